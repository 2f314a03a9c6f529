; alu_status.asm -- ALU micro-operations, carries, borrows and STATUS.
;
; Chips: TMS1400 (default) and TMS1100 (assemble with --chip tms1100); no TPC/COMC is used.
; Covers (standard TI decode, docs/tms1400.md §5.3): TCY 0-15, TCMIY 0-15 (with the Y wrap
; 15 -> 0), YNEC 0-15 (equal and not), A1ACC-A15ACC with and without carry, CLA, MNEA, ALEM,
; YNEA, XMA, DYN (Y=0 borrow and not), IYC (Y=15 carry and not), AMAAC (carry and not), DMAN
; (M=0 borrow and not), TAY, TMA, TMY, TYA, TAMDYN, TAMIYC, TAMZA, TAM, SAMAN (M>=A and M<A),
; CPAIZ (A=0 and not), IMAC (M=15 and not), MNEZ (M=0 and not). Each test is followed by
; "BR kN / TDO / kN:" so a STATUS of 0 shows as a TDO (O pins) and the BR is not taken.
; Ends in a loop toggling R10 (the Dark Tower speaker) and counting in RAM, forever.
; RAM: file 0 holds M(0,y) = y after the TCMIY run; file 1 is scratch.

        .page   15                      ; reset address 0:F:00
start:  LDX     0
        TCY     0                       ; TCMIY 0..15 writes M(0,y) = y
        TCMIY   0
        TCMIY   1
        TCMIY   2
        TCMIY   3
        TCMIY   4
        TCMIY   5
        TCMIY   6
        TCMIY   7
        TCMIY   8
        TCMIY   9
        TCMIY   10
        TCMIY   11
        TCMIY   12
        TCMIY   13
        TCMIY   14
        TCMIY   15                      ; Y 15 -> 0 (no C8: STATUS stays 1)
        YNEC    0                       ; Y wrapped to 0: STATUS 0
        BR      k1
        TDO
k1:     TCY     1                       ; every TCY constant
        TCY     2
        TCY     3
        TCY     4
        TCY     5
        TCY     6
        TCY     7
        TCY     8
        TCY     9
        TCY     10
        TCY     11
        TCY     12
        TCY     13
        TCY     14
        TCY     15
        TCY     5                       ; YNEC every constant with Y = 5
        YNEC    0
        YNEC    1
        YNEC    2
        YNEC    3
        YNEC    4
        YNEC    5                       ; equal: STATUS 0
        BR      k2
        TDO
k2:     YNEC    6
        YNEC    7
        YNEC    8
        YNEC    9
        YNEC    10
        YNEC    11
        YNEC    12
        YNEC    13
        YNEC    14
        YNEC    15
        BR      k3                      ; STATUS 1: taken
        TDO
k3:     LBR     acc

        .page   1
acc:    CLA                             ; A = 0, then add 1..15: sums 1 3 6 10 15 21 ...
        A1ACC                           ; 1
        BR      a1
        TDO
a1:     A2ACC                           ; 3
        BR      a2
        TDO
a2:     A3ACC                           ; 6
        BR      a3
        TDO
a3:     A4ACC                           ; 10
        BR      a4
        TDO
a4:     A5ACC                           ; 15, no carry
        BR      a5
        TDO
a5:     A6ACC                           ; 21: A = 5, carry
        BR      a6
        TDO
a6:     A7ACC                           ; 12
        BR      a7
        TDO
a7:     A8ACC                           ; 20: A = 4, carry
        BR      a8
        TDO
a8:     A9ACC                           ; 13
        BR      a9
        TDO
a9:     A10ACC                          ; 23: A = 7, carry
        BR      a10
        TDO
a10:    A11ACC                          ; 18: A = 2, carry
        BR      a11
        TDO
a11:    A12ACC                          ; 14
        BR      a12
        TDO
a12:    A13ACC                          ; 27: A = 11, carry
        BR      a13
        TDO
a13:    A14ACC                          ; 25: A = 9, carry
        BR      a14
        TDO
a14:    A15ACC                          ; 24: A = 8, carry
        BR      a15
        TDO
a15:    LBR     cmp

        .page   2
cmp:    TCY     7                       ; M(0,7) = 7
        CLA
        A7ACC                           ; A = 7
        MNEA                            ; M = A: STATUS 0
        BR      c1
        TDO
c1:     TCY     3                       ; M(0,3) = 3
        MNEA                            ; 3 != 7: STATUS 1
        BR      c2
        TDO
c2:     ALEM                            ; A=7 <= M=3? no: STATUS 0
        BR      c3
        TDO
c3:     TCY     9
        ALEM                            ; 7 <= 9: STATUS 1
        BR      c4
        TDO
c4:     TCY     7
        ALEM                            ; 7 <= 7: STATUS 1
        BR      c5
        TDO
c5:     YNEA                            ; Y = A = 7: STATUS 0, SL = 0
        TDO                             ; O index 0:7
        TCY     2
        YNEA                            ; 2 != 7: STATUS 1, SL = 1
        TDO                             ; O index 1:7
        XMA                             ; A <-> M(0,2): A = 2, M(0,2) = 7
        TMA                             ; A = 7
        TCY     0
        DYN                             ; Y = 0 -> 15, borrow: STATUS 0
        BR      c6
        TDO
c6:     DYN                             ; 15 -> 14: STATUS 1
        BR      c7
        TDO
c7:     IYC                             ; 14 -> 15: STATUS 0
        BR      c8
        TDO
c8:     IYC                             ; 15 -> 0, carry: STATUS 1
        BR      c9
        TDO
c9:     LBR     arith

        .page   3
arith:  TCY     9                       ; M(0,9) = 9
        CLA
        A8ACC                           ; A = 8
        AMAAC                           ; 8 + 9 = 17: A = 1, carry
        BR      d1
        TDO
d1:     AMAAC                           ; 1 + 9 = 10: no carry
        BR      d2
        TDO
d2:     TCY     0                       ; M(0,0) = 0
        DMAN                            ; A = M - 1 = 15, borrow: STATUS 0
        BR      d3
        TDO
d3:     TCY     5
        DMAN                            ; A = 4: STATUS 1
        BR      d4
        TDO
d4:     TAY                             ; Y = 4
        TMY                             ; Y = M(0,4) = 4
        TYA                             ; A = 4
        TCY     15
        TMA                             ; A = 15
        IMAC                            ; M = 15: A = 0, carry: STATUS 1
        BR      d5
        TDO
d5:     TCY     14
        IMAC                            ; A = 15: STATUS 0
        BR      d6
        TDO
d6:     TCY     6                       ; M(0,6) = 6
        SAMAN                           ; A = 6 - 15, borrow: STATUS 0
        BR      d7
        TDO
d7:     CLA
        A3ACC                           ; A = 3
        SAMAN                           ; 6 - 3 = 3, no borrow: STATUS 1
        BR      d8
        TDO
d8:     TCY     3                       ; M(0,3) = 3 = A
        SAMAN                           ; 3 - 3 = 0, no borrow: STATUS 1
        CLA
        CPAIZ                           ; A = 0: -0 = 0, carry: STATUS 1
        BR      d9
        TDO
d9:     A5ACC
        CPAIZ                           ; A = 5: A = 11, STATUS 0
        BR      d10
        TDO
d10:    TCY     0
        MNEZ                            ; M(0,0) = 0: STATUS 0
        BR      d11
        TDO
d11:    TCY     1
        MNEZ                            ; M(0,1) = 1: STATUS 1
        BR      d12
        TDO
d12:    LBR     store

        .page   4
store:  LDX     1                       ; file 1 scratch
        TCY     0
        CLA
        A9ACC                           ; A = 9
        TAM                             ; M(1,0) = 9
        TAMIYC                          ; M(1,0) = 9, Y = 1: STATUS 0
        BR      e1
        TDO
e1:     TCY     15
        TAMIYC                          ; M(1,15) = 9, Y 15 -> 0, carry: STATUS 1
        BR      e2
        TDO
e2:     TAMDYN                          ; M(1,0) = 9, Y 0 -> 15, borrow: STATUS 0
        BR      e3
        TDO
e3:     TAMDYN                          ; M(1,15) = 9, Y = 14: STATUS 1
        BR      e4
        TDO
e4:     TAMZA                           ; M(1,14) = 9, A = 0
        XMA                             ; A = 9, M(1,14) = 0
        TCY     2
        TAMZA
        TCY     3
        TAMZA
        LBR     idle

        .page   5
idle:   LDX     1                       ; forever: toggle R10, count M(1,2) up
        TCY     2
loop:   TCY     10
        SETR
        TCY     2
        IMAC
        TAM
        TCY     10
        RSTR
        TCY     2
        BR      loop
