; Golden-trace program for the reference core on a TMS1100 (tests/emulator/test_golden.py).
; Exercises SETR/RSTR ignored while X >= 4, TDO with the status latch, a COMC chapter call,
; and the 1-level call latch: LDP, CALL and BRANCH inside a subroutine (docs/tms1400.md §7.1).
        .chip   tms1100
        .chapter 0
        .page   15
start:  TCY     2
        SETR
        LDX     4
        TCY     3
        SETR                ; X >= 4: no effect
        RSTR
        LDX     0
        TCY     9
        TYA
        TCY     4
        TDO
        YNEA
        TDO
        COMC
        LDP     3
        CALL    far
        COMC
        TCY     7
        LBR     main2

        .page   14
main2:  LDP     2
        CALL    sub
        TCY     5

        .page   2
sub:    LDP     6
        CALL    pc(inner)   ; inside a subroutine: stays in page 2, PB = 2, SR kept
        TCY     11          ; RETN of inner comes back here (SR, page 2)
        BRANCH  pc(tail)    ; call latch clear again: PA = PB = 2
        TCY     12
inner:  TCY     13
        RETN
tail:   RETN                ; no call pending: PA = PB
        LBR     start

        .chapter 1
        .page   3
far:    TCY     1
        RETN
