; tms1000_ops.asm -- the plain TMS1000's own opcodes and its one-level subroutine.
;
; Chips: TMS1000
; Covers (TI TMS1000 Series Data Manual, instruction table; MAME 0.251 "simon" as the
; reference): the add-constant opcodes A8ACC, A10ACC, A6ACC (TI: A8AAC ...) with and without
; carry, DAN and IA (CKI constants of opcodes 01-07, docs/tms1400.md §5.2.1), ALEC true and
; false, TAMIY, COMX on the 2-bit X (X ^= 3), LDX 0-3, SBIT/RBIT/TBIT on a 64-nibble RAM,
; KNEZ at 09, TKA, CLO (O index 0) after TDO, TDO with SL 0 and 1 after YNEA, SETR/RSTR on
; Y = 0..15 (R11-R15 have no pin), the TMS1000 ALU opcodes 20-2F (AMAAC, MNEZ, SAMAN, IMAC,
; ALEM, DMAN, IYC, DYN, CPAIZ, XMA, CLA, TMA, TMY, TYA, TAY, TAMZA); RETN with the call
; latch clear (PA <- PB, used as a jump), a taken CALL, BR and CALL inside a subroutine
; staying in the page, LDP inside a subroutine choosing the return page, a CALL not taken.
; Every STATUS test has both paths meeting again, so K never changes the path. Ends in a loop
; that reads the keys and toggles R10 forever.

        .chip   tms1000
        .page   15
start:  TCY     3
        TYA                             ; A = 3
        A8ACC                           ; A = 11, no carry: STATUS 0
        BR      c1
        TDO
c1:     A10ACC                          ; 11 + 10 = 21: A = 5, carry
        BR      c2
        TDO
c2:     A6ACC                           ; A = 11
        DAN                             ; A = 10, carry (A + 14 + 1)
        BR      c3
        TDO
c3:     IA                              ; A = 11
        ALEC    7                       ; 11 <= 7: no
        BR      c4
        TDO
c4:     ALEC    12                      ; 11 <= 12: yes
        BR      c5
        TDO
c5:     CLA
        DAN                             ; 0 - 1: A = 15, no carry
        BR      c6
        TDO
c6:     TCY     15
        TYA
        A8ACC                           ; 15 + 8: carry
        A6AAC                           ; TI spelling, same opcode
        A10AAC
        TCY     0                       ; no test before the LBR
        LBR     ram

        .page   1
ram:    LDX     1
        TCY     0
        TAMIY                           ; M(1,0) = A, Y = 1
        TAMIY                           ; M(1,1) = A, Y = 2
        TMA
        COMX                            ; X = 2
        TAM
        COMX                            ; X = 1
        LDX     3
        TCY     15
        SBIT    0
        SBIT    1
        SBIT    2
        SBIT    3
        TBIT    2
        BR      r1
        TDO
r1:     RBIT    2
        TBIT    2
        BR      r2
        TDO
r2:     RBIT    0
        RBIT    1
        RBIT    3
        LDX     2
        TCY     1
        SETR                            ; R1: simon's colour buttons (IN.1)
        TKA
        KNEZ
        BR      r3
        TDO
r3:     RSTR
        TCY     9
        SETR                            ; R9: simon's difficulty switch (IN.3)
        KNEZ
        BR      r4
r4:     TKA
        RSTR
        LBR     alu

        .page   2
alu:    TCY     5
        TCMIY   9                       ; M(2,5) = 9, Y = 6
        DYN                             ; Y = 5
        TYA
        AMAAC                           ; A = 5 + 9 = 14
        MNEZ
        BR      a1
        TDO
a1:     SAMAN                           ; A = 9 - 14: borrow
        BR      a2
        TDO
a2:     IMAC                            ; A = 10
        ALEM                            ; A <= M?
        BR      a3
        TDO
a3:     DMAN                            ; A = 8
        IYC                             ; Y = 6
        DYN                             ; Y = 5
        CPAIZ
        XMA
        TMY
        TAY
        TAMZA
        YNEA                            ; Y = A?
        TDO                             ; O index SL<<4 | A
        YNEC    3
        TCY     3
        TYA
        TCY     4
        YNEA                            ; SL = 1
        TDO
        CLO                             ; O index 0
        YNEC    4
        TCY     0
        LBR     rlines

        .page   3
rlines: TCY     0                       ; SETR then RSTR on Y = 0..15
rset:   SETR
        IYC
        BR      rdone                   ; carry out of Y = 15: done
        BR      rset
rdone:  TCY     0
rclr:   RSTR
        IYC
        BR      calls
        BR      rclr
calls:  LDX     0                       ; pc rest of page 3
        LBR     jmp

        .page   4
jmp:    LDX     0                       ; pc 00
        LDP     6                       ; pc 01
        RETN                            ; pc 03: call latch clear: PA <- PB = 6, no jump

        .page   6, $07
rjump:  TCY     2                       ; 0:6:07, the pc after that RETN
        LDP     8
        CALL    sub                     ; CL = 1, return to page 6 (PB = 6)
        TCY     3                       ; back in page 6
        LDP     8
        CALL    sub2                    ; returns to page 12 instead
        TDO                             ; never reached

        .page   12, $3B
landed: TCY     7                       ; the pc after "CALL sub2" in page 12
        YNEC    7                       ; STATUS 0
        CALL    $00                     ; not taken: nothing changes
        LBR     idle

        .page   8
sub:    TCY     4
        LDP     9                       ; PB = 9
        BR      pc(s1)                  ; in a subroutine BR stays in page 8
        TDO                             ; skipped
s1:     CALL    pc(s2)                  ; no push, stays in page 8, PB = 8
        TDO                             ; never reached: s2 returns to the caller
s2:     TCY     5
        LDP     6                       ; the return page lives in PB: the caller's again
        RETN
sub2:   TCY     6
        LDP     12                      ; return to page 12 instead of 6
        RETN

        .page   5
idle:   LDX     0                       ; forever: toggle R10, read the keys
        TCY     2
loop:   TCY     10
        SETR
        TCY     1
        SETR
        TKA
        RSTR
        TCY     10
        RSTR
        KNEZ
        BR      loop
        BR      loop
