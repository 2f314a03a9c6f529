; tms1100_paging.asm -- the TMS1100's one-level subroutine, chapters and R rules.
;
; Chips: TMS1100
; Covers (docs/tms1400.md §7.1, §9.1, MAME 0.251 as verified there): RETN with the call
; latch clear only does PA <- PB (used here as a jump: LDP 3; RETN continues in page 3 at the
; next pc); COMC toggling CB and a long branch COMC; LDP; BRANCH into chapter 1 and back;
; a taken CALL saving the caller's page in PB; a BRANCH inside a subroutine staying in the
; current page whatever PB holds; a CALL inside a subroutine (no push, stays in the page,
; PB = current page); LDP inside a subroutine choosing the page RETN returns to (the caller's
; page, and page 12 instead); RETN restoring CA from CS while CB keeps its value; a CALL not
; taken changing nothing (PB keeps its LDP); COMX flipping X bit 2; SETR/RSTR with X >= 4
; having no effect. Ends in chapter 1 in a loop that toggles R10 through a subroutine.

        .chip   tms1100
        .page   15
start:  RETN                            ; pc 00: call latch clear: PA <- PB = 15, no jump
        LDX     0                       ; pc 01
        LDP     3                       ; pc 03
        RETN                            ; pc 07: PA <- PB = 3: next fetch is 0:3:0F

        .page   3, $0F
rjump:  TCY     10
        SETR                            ; X = 0: R10 on
        COMX                            ; X = 4
        RSTR                            ; X >= 4: ignored, R10 stays on
        COMX                            ; X = 0
        RSTR                            ; R10 off
        LDX     4
        TCY     3
        SETR                            ; ignored
        LDX     3
        SETR                            ; R3 on
        RSTR                            ; R3 off
        COMC                            ; CB = 1
        LDP     4
        BR      c1main                  ; to 1:4

        .chapter 1
        .page   4
c1main: TCY     1
        LDP     6
        CALL    csub                    ; CL = 1, saved pc, CS = 1, PA = 6, PB = 4
        TCY     2                       ; back in 1:4
        LBR     c1b

        .page   6
csub:   TCY     3
        LDP     9                       ; PB = 9
        BR      pc(cs1)                 ; in a subroutine BR stays in page 6
        TDO                             ; skipped
cs1:    CALL    pc(cs2)                 ; no push, stays in page 6, PB = 6
        TDO                             ; never reached: cs2 returns to the caller
cs2:    TCY     4
        LDP     4                       ; the return page lives in PB: the caller's again
        RETN                            ; to 1:4 after the CALL, CA = CS = 1
csub2:  TCY     5
        LDP     12                      ; return to page 12 instead of 8
        RETN

        .page   8
c1b:    LDP     6                       ; pc 00
        CALL    csub2                   ; pc 01: saves pc 03
        TDO                             ; never reached: csub2 returns to page 12

        .page   12, $03
landed: TCY     6                       ; 1:C:03, reached through csub2's LDP 12; RETN
        LBR     ctest                   ; COMC; LDP 7; BRANCH

        .chapter 0
        .page   7
ctest:  LDP     9
        TCY     0
        YNEC    0                       ; STATUS 0
        CALL    $00                     ; not taken: nothing changes, PB stays 9
        BR      pc(p9)                  ; taken: to page 9

        .page   9
p9:     TCY     9
        COMC                            ; CB = 1
        LDP     2
        CALL    c1sub                   ; into 1:2; RETN brings CA back to 0, CB stays 1
        TCY     7
        LBR     idle                    ; CB is still 1: LDP 0; BRANCH reaches chapter 1

        .chapter 1
        .page   2
c1sub:  TCY     8
        RETN

        .page   0
idle:   LDX     0                       ; forever: toggle R10 in a subroutine
loop:   CALL    toggle
        TCY     15
        TYA
        TDO
        BR      loop
toggle: TCY     10
        SETR
        RSTR
        RETN
