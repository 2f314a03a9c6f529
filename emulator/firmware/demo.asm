; TowerLab open demo firmware for the Dark Tower board (TMS1400, 425 kHz).
;
; Our own program, written from the 1981 rulebook's "Tower Test" and "Choice Of Levels And
; Players" (the 1981 rulebook), with flash periods and beep
; pitches chosen to look and sound like the shared capture tower_test / level_select:
;
;   power on: "0 " for a frame, blank, then "--" flashing (0.28 s on, 0.27 s off);
;   any key: a click, the reel turns once (the sensor counts 7 small holes and the big one),
;   then the three windows light top to bottom, each with a beep, while "88" shows;
;   then "L1" flashes; NO/END steps L1-L4 (a click each), YES/BUY picks;
;   then P1-P4 the same way; YES/BUY plays the 16-note overture of the shared capture
;   level_select (4.8 s) and " 1" flashes for ever.
;
; Needs the standard micro PLA (emulator.decode.standard_micro_pla) and the glyph output PLA
; (emulator.darktower.glyph_output_pla: A = 0-9 digits, 11 C, 12 P, 13 L, 14 -, 15 blank;
; O7 = SL = digit select). Wiring: docs/dark-tower-wiring.md (emulator/darktower.py).
;
; Timing: one instruction = 6 clocks = 14.1 us. SHOW (both digits + key scan) is one "tick"
; of about 9.4 ms; WAITT runs n+1 ticks.

        .chip   tms1400

; R lines
        .equ    COL0, 0         ; key column: INVENTORY NO/END CLEAR SANCTUARY/CITADEL
        .equ    COL1, 1         ; FRONTIER REPEAT BAZAAR MOVE
        .equ    COL2, 2         ; DARK TOWER YES/BUY HAGGLE TOMB/RUIN
        .equ    LOWER, 5        ; lamps
        .equ    MIDDLE, 6
        .equ    UPPER, 7
        .equ    LED, 8          ; reel sensor LED
        .equ    MOTOR, 9
        .equ    SPK, 10         ; speaker

; glyphs (output PLA index A)
        .equ    G_P, 12
        .equ    G_L, 13
        .equ    G_DASH, 14
        .equ    G_BLANK, 15
        .equ    G_EIGHT, 8

; rests of silence (thalf: 9 + 2*TFINE + 34*TCOARSE instructions)
        .equ    OV_FINE, 0      ; before the overture
        .equ    OV_COARSE, 2
        .equ    RL_FINE, 0      ; tonel: four of these
        .equ    RL_COARSE, 15
        .equ    RS_FINE, 2      ; tones: one
        .equ    RS_COARSE, 7

; RAM file 0
        .equ    LD, 0           ; left digit glyph
        .equ    RD, 1           ; right digit glyph
        .equ    TFINE, 2        ; tone: fine high half-period (2 instructions per unit)
        .equ    TCOARSE, 3      ; tone: coarse half-period (34 instructions per unit)
        .equ    PLO, 4          ; tone: pulses - 1, low nibble
        .equ    PHI, 5          ; tone: pulses - 1, high nibble
        .equ    CLO_, 6         ; tick counter, low nibble
        .equ    CHI, 7          ; tick counter, high nibble
        .equ    VAL, 8          ; level / players being chosen (1-4)
        .equ    KEY0, 9         ; K of column 0 at the last READK
        .equ    TLOW, 10        ; tone: fine low half-period (2 instructions per unit)
        .equ    KEY2, 11        ; K of column 2 at the last READK
        .equ    HOLES, 12       ; reel holes still to see
        .equ    NEWKEY, 13      ; 1 when SHOW saw a key go down
        .equ    PREV, 14        ; K of the last scan (0 = all keys up)
        .equ    KNOW, 15        ; scratch: K of this scan

; ---------------------------------------------------------------------------------------
        .chapter 0
        .page   15              ; reset enters at 0:F:00
reset:  LDX     0
        TCY     HOLES           ; the reset glyph "0 " stays for the first frame (23 ms)
        TCMIY   0
        LCALL   sdelay
        TCY     LD
        TCMIY   G_BLANK         ; LD
        TCMIY   G_BLANK         ; RD
        TCY     PREV
        TCMIY   0
        TCY     CLO_
        TCMIY   9               ; 26 ticks of blank (0.25 s)
        TCMIY   1
        LCALL   waitt
        TCY     NEWKEY          ; a key already: straight to the reel
        MNEZ
        BRANCH  dashk
dash:   TCY     LD
        TCMIY   G_DASH
        TCMIY   G_DASH
        TCY     CLO_
        TCMIY   13              ; 30 ticks on (0.28 s)
        TCMIY   1
        LCALL   waitt
        TCY     NEWKEY
        MNEZ
        BRANCH  dashk
        TCY     LD
        TCMIY   G_BLANK
        TCMIY   G_BLANK
        TCY     CLO_
        TCMIY   11              ; 28 ticks off (0.27 s)
        TCMIY   1
        LCALL   waitt
        TCY     NEWKEY
        MNEZ
        BRANCH  dashk
        BRANCH  dash
dashk:  LBR     spin

; ---------------------------------------------------------------------------------------
        .page   14
spin:   TCY     LED
        SETR
        LCALL   click
        TCY     MOTOR
        SETR
        TCY     HOLES
        TCMIY   1               ; about 46 ms: past the first reel step out of the big hole
        LCALL   sdelay
        TCY     HOLES
        TCMIY   7               ; 7 small holes, then the big one
sdark:  KNEZ                    ; R0-R2 are low: K8 is the sensor alone
        BRANCH  sdark
slit:   KNEZ
        BRANCH  shole
        BRANCH  slit
shole:  TCY     HOLES
        DMAN
        BRANCH  snext
        TCY     HOLES           ; the big hole: turn 0.3 s more (about 12 reel steps)
        TCMIY   12
        LCALL   sdelay
        TCY     MOTOR
        RSTR
        TCY     LED
        RSTR
        LBR     lamps
snext:  TAM
        BRANCH  sdark
; wait (HOLES + 1) x about 23 ms (three 7.7 ms half-periods of a silent tone)
sdelay: TCY     TFINE
        TCMIY   15
        TCMIY   15
sdl:    LCALL   thalf
        LCALL   thalf
        LCALL   thalf
        TCY     HOLES
        DMAN
        BRANCH  sdn
        RETN
sdn:    TAM
        BRANCH  sdl

; ---------------------------------------------------------------------------------------
        .page   13
lamps:  TCY     UPPER
        SETR
        LCALL   beep
        LCALL   show88
        TCY     UPPER
        RSTR
        TCY     MIDDLE
        SETR
        LCALL   beep
        LCALL   show88
        TCY     MIDDLE
        RSTR
        TCY     LOWER
        SETR
        LCALL   beep
        LCALL   show88
        TCY     LOWER
        RSTR
        LBR     level

; "88" for 1.6 s (170 ticks); a key press ends it early
show88: TCY     LD
        TCMIY   G_EIGHT
        TCMIY   G_EIGHT
        TCY     CLO_
        TCMIY   9
        TCMIY   10
        LBR     waitt           ; tail call: waitt's RETN returns to our caller

; ---------------------------------------------------------------------------------------
        .page   12
level:  TCY     VAL
        TCMIY   1
lvon:   TCY     VAL
        TMA
        LDX     1               ; the flashing text lives in file 1
        TCY     LD
        TCMIY   G_L
        TAM                     ; RD = VAL
        LDX     0
        LCALL   flash
        TCY     NEWKEY
        MNEZ
        BRANCH  lvkey
        BRANCH  lvon
lvkey:  LCALL   readk
        TCY     KEY2
        TBIT    1               ; YES/BUY (R2, K2)
        BRANCH  lvyes
        TCY     KEY0
        TBIT    1               ; NO/END (R0, K2)
        BRANCH  lvno
        BRANCH  lvon
lvno:   LCALL   click
        TCY     VAL
        IMAC
        TAM
        A11ACC                  ; carry when VAL + 1 >= 5
        BRANCH  lvwrap
        BRANCH  lvpause
lvwrap: TCY     VAL
        TCMIY   1
lvpause: LCALL  pause
        BRANCH  lvon
lvyes:  LCALL   click
        LCALL   pause
        LBR     players

; ---------------------------------------------------------------------------------------
        .page   11
players: TCY    VAL
        TCMIY   1
plon:   TCY     VAL
        TMA
        LDX     1
        TCY     LD
        TCMIY   G_P
        TAM
        LDX     0
        LCALL   flash
        TCY     NEWKEY
        MNEZ
        BRANCH  plkey
        BRANCH  plon
plkey:  LCALL   readk
        TCY     KEY2
        TBIT    1
        BRANCH  plyes
        TCY     KEY0
        TBIT    1
        BRANCH  plno
        BRANCH  plon
plno:   LCALL   click
        TCY     VAL
        IMAC
        TAM
        A11ACC
        BRANCH  plwrap
        BRANCH  plpause
plwrap: TCY     VAL
        TCMIY   1
plpause: LCALL  pause
        BRANCH  plon
plyes:  LCALL   click
        LBR     overture

; ---------------------------------------------------------------------------------------
        .page   10
; the genuine overture (shared capture level_select, after P2 is chosen): 16 notes, each
; TFINE, TCOARSE, PLO, PHI, TLOW (period = 36 + 2*(TFINE + TLOW) + 68*TCOARSE instructions,
; PHI*16 + PLO + 1 periods), then a rest of about 30 ms (tonel) or 3.8 ms (tones)
overture: TCY   TFINE           ; 1.3 ms after the click, as the genuine tower
        TCMIY   OV_FINE
        TCMIY   OV_COARSE
        LCALL   thalf
        TCY     TFINE           ;  1: 220.0 Hz (322 instructions) x 97
        TCMIY   4
        TCMIY   4
        TCMIY   0
        TCMIY   6
        TCY     TLOW
        TCMIY   3
        LCALL   tonel
        TCY     TFINE           ;  2: 165.5 Hz (428 instructions) x 69
        TCMIY   13
        TCMIY   5
        TCMIY   4
        TCMIY   4
        TCY     TLOW
        TCMIY   13
        LCALL   tonel
        TCY     TFINE           ;  3: 220.0 Hz (322 instructions) x 27
        TCMIY   4
        TCMIY   4
        TCMIY   10
        TCMIY   1
        TCY     TLOW
        TCMIY   3
        LCALL   tones
        TCY     TFINE           ;  4: 165.5 Hz (428 instructions) x 27
        TCMIY   13
        TCMIY   5
        TCMIY   10
        TCMIY   1
        TCY     TLOW
        TCMIY   13
        LCALL   tones
        TCY     TFINE           ;  5: 220.0 Hz (322 instructions) x 35
        TCMIY   4
        TCMIY   4
        TCMIY   2
        TCMIY   2
        TCY     TLOW
        TCMIY   3
        LCALL   tonel
        LBR     ov2

; ---------------------------------------------------------------------------------------
        .page   3
ov2:    TCY     TFINE           ;  6: 256.6 Hz (276 instructions) x 97
        TCMIY   9
        TCMIY   3
        TCMIY   0
        TCMIY   6
        TCY     TLOW
        TCMIY   9
        LCALL   tonel
        TCY     TFINE           ;  7: 220.0 Hz (322 instructions) x 70
        TCMIY   4
        TCMIY   4
        TCMIY   5
        TCMIY   4
        TCY     TLOW
        TCMIY   3
        LCALL   tonel
        TCY     TFINE           ;  8: 256.6 Hz (276 instructions) x 27
        TCMIY   9
        TCMIY   3
        TCMIY   10
        TCMIY   1
        TCY     TLOW
        TCMIY   9
        LCALL   tones
        TCY     TFINE           ;  9: 220.0 Hz (322 instructions) x 27
        TCMIY   4
        TCMIY   4
        TCMIY   10
        TCMIY   1
        TCY     TLOW
        TCMIY   3
        LCALL   tones
        TCY     TFINE           ; 10: 260.4 Hz (272 instructions) x 35
        TCMIY   8
        TCMIY   3
        TCMIY   2
        TCMIY   2
        TCY     TLOW
        TCMIY   8
        LCALL   tonel
        TCY     TFINE           ; 11: 324.9 Hz (218 instructions) x 129
        TCMIY   12
        TCMIY   2
        TCMIY   0
        TCMIY   8
        TCY     TLOW
        TCMIY   11
        LCALL   tonel
        LBR     ov3

; ---------------------------------------------------------------------------------------
        .page   4
ov3:    TCY     TFINE           ; 12: 165.5 Hz (428 instructions) x 53
        TCMIY   13
        TCMIY   5
        TCMIY   4
        TCMIY   3
        TCY     TLOW
        TCMIY   13
        LCALL   tonel
        TCY     TFINE           ; 13: 220.0 Hz (322 instructions) x 35
        TCMIY   4
        TCMIY   4
        TCMIY   2
        TCMIY   2
        TCY     TLOW
        TCMIY   3
        LCALL   tones
        TCY     TFINE           ; 14: 165.5 Hz (428 instructions) x 27
        TCMIY   13
        TCMIY   5
        TCMIY   10
        TCMIY   1
        TCY     TLOW
        TCMIY   13
        LCALL   tones
        TCY     TFINE           ; 15: 220.0 Hz (322 instructions) x 35
        TCMIY   4
        TCMIY   4
        TCMIY   2
        TCMIY   2
        TCY     TLOW
        TCMIY   3
        LCALL   tonel
        TCY     TFINE           ; 16: 274.5 Hz (258 instructions) x 256
        TCMIY   5
        TCMIY   3
        TCMIY   15
        TCMIY   15
        TCY     TLOW
        TCMIY   4
        LCALL   tone
        TCY     LD              ; blank for 16 ticks (0.15 s), then " 1"
        TCMIY   G_BLANK
        TCMIY   G_BLANK
        TCY     CLO_
        TCMIY   15
        TCMIY   0
        LCALL   waitt
        LBR     final

; ---------------------------------------------------------------------------------------
        .page   9
final:  LDX     1
        TCY     LD
        TCMIY   G_BLANK
        TCMIY   1
        LDX     0
fin1:   LCALL   flash
        BRANCH  fin1

; one flash period: the text of file 1 (LD, RD) for 30 ticks, then blank for 28;
; returns early when a key goes down (NEWKEY = 1)
flash:  LDX     1
        TCY     LD
        TMA
        LDX     0
        TAM
        LDX     1
        TCY     RD
        TMA
        LDX     0
        TAM
        TCY     CLO_
        TCMIY   13              ; 30 ticks on
        TCMIY   1
        LCALL   waitt
        TCY     NEWKEY
        MNEZ
        BRANCH  flret
        TCY     LD
        TCMIY   G_BLANK
        TCMIY   G_BLANK
        TCY     CLO_
        TCMIY   11              ; 28 ticks off
        TCMIY   1
        LCALL   waitt
flret:  RETN

; ---------------------------------------------------------------------------------------
        .page   8
; a key click (431.9 Hz, 2 periods of 164 instructions) and a beep (737.8 Hz, 33 periods of
; 96 instructions): the genuine tower's, shared captures tower_test and level_select
click:  TCY     TLOW
        TCMIY   15
        TCY     TFINE
        TCMIY   15
        TCMIY   1
        TCMIY   1
        TCMIY   0
        LBR     tone
beep:   TCY     TLOW
        TCMIY   15
        TCY     TFINE
        TCMIY   15
        TCMIY   0
        TCMIY   0
        TCMIY   2
        LBR     tone
; about 0.12 s of blank digits after a choice (keys still scanned)
pause:  TCY     LD
        TCMIY   G_BLANK
        TCMIY   G_BLANK
        TCY     CLO_
        TCMIY   11
        TCMIY   0
        LBR     waitt
; read columns 0 and 2 into KEY0 / KEY2
readk:  TCY     COL0
        SETR
        TKA
        RSTR
        TCY     KEY0
        TAM
        TCY     COL2
        SETR
        TKA
        RSTR
        TCY     KEY2
        TAM
        RETN

; ---------------------------------------------------------------------------------------
        .page   1
; run SHOW (CHI*16 + CLO_ + 1) times; return at once when a key goes down (NEWKEY = 1)
waitt:  LCALL   show
        TCY     NEWKEY
        MNEZ
        BRANCH  wret
        TCY     CLO_
        DMAN
        BRANCH  wlo
        TAM                     ; low nibble wraps to 15
        TCY     CHI
        DMAN
        BRANCH  whi
        RETN                    ; counter exhausted
whi:    TAM
        BRANCH  waitt
wlo:    TAM
        BRANCH  waitt
wret:   RETN

; ---------------------------------------------------------------------------------------
        .page   0
; one tick (about 10 ms): left digit, right digit, then scan the keys
show:   TYA
        YNEA                    ; Y = A: SL = 0 selects the left digit
        TCY     LD
        TMA
        TDO
        CLA
        A15ACC
        TCY     8
sd1:    A15ACC                  ; 2*(A+1) + 34*Y + 2 instructions
        BRANCH  sd1
        DYN
        BRANCH  sd1
        TCY     0
        CLA
        A1ACC
        YNEA                    ; Y != A: SL = 1 selects the right digit
        TCY     RD
        TMA
        TDO
        CLA
        A15ACC
        TCY     8
sd2:    A15ACC
        BRANCH  sd2
        DYN
        BRANCH  sd2
        TCY     COL0            ; all three columns: K = any key
        SETR
        TCY     COL1
        SETR
        TCY     COL2
        SETR
        TKA
        RSTR
        TCY     COL1
        RSTR
        TCY     COL0
        RSTR
        TCY     KNOW
        TAM
        TCY     NEWKEY
        TCMIY   0               ; NEWKEY = 0, Y = PREV
        MNEZ
        BRANCH  shheld
        TCY     KNOW
        MNEZ
        BRANCH  shnew
        RETN
shnew:  TCY     NEWKEY
        TCMIY   1
        TCMIY   1               ; PREV = 1
        RETN
shheld: TCY     KNOW
        TMA
        TCY     PREV
        TAM                     ; PREV = K (0 once every key is up)
        RETN

; ---------------------------------------------------------------------------------------
        .page   2
; square wave on R10: (PHI*16 + PLO + 1) periods of 36 + 2*(TFINE + TLOW) + 68*TCOARSE
; instructions (high for 15 + 2*TFINE + 34*TCOARSE of them); the digits are dark while it sounds
; (TDO of the blank glyph). Both halves take whole instruction counts at 425 kHz / 6, so the
; period steps by 2 instructions: enough to land exactly on every pitch the genuine tower plays
; in the shared captures tower_test and level_select (96, 164, 218 ... 428 instructions).
tone:   CLA
        A15ACC
        TDO
tn1:    TCY     SPK
        SETR
        CALL    thalf
        TCY     SPK             ; pad: three instructions (the TMS1400 has no NOP)
        TCY     SPK
        TCY     SPK
        TCY     SPK
        RSTR
        TCY     TLOW
        CALL    thalfy
        TCY     PLO
        DMAN                    ; A = PLO - 1, status = PLO != 0
        BRANCH  tnlo
        TAM                     ; PLO wraps to 15: borrow from PHI
        TCY     PHI
        DMAN
        BRANCH  tnhi
        RETN
tnhi:   TAM
        BRANCH  tn1
tnlo:   TAM                     ; pad to the length of the borrow path: every period
        TCY     PHI             ; takes the same time
        TCY     PHI
        TCY     PHI
        TCY     PHI
        BRANCH  tn1
; wait 9 + 2*TFINE + 34*TCOARSE instructions (thalfy: 8 + 2*M(Y) + 34*TCOARSE)
thalf:  TCY     TFINE
thalfy: TMA
        TCY     TCOARSE
        TMY
tdly:   A15ACC
        BRANCH  tdly
        DYN
        BRANCH  tdly
        RETN
; a note of the overture, then a rest: tonel about 30 ms, tones about 3.8 ms (the gaps between
; the genuine overture's notes, shared capture level_select)
tonel:  CALL    tone
        TCY     TFINE
        TCMIY   RL_FINE
        TCMIY   RL_COARSE
        CALL    thalf
        CALL    thalf
        CALL    thalf
        CALL    thalf
        RETN
tones:  CALL    tone
        TCY     TFINE
        TCMIY   RS_FINE
        TCMIY   RS_COARSE
        CALL    thalf
        RETN
