; Golden-trace program for the reference core (tests/emulator/test_golden.py).
; Exercises RAM, ALU, R/O pins, the status latch, K (reads 0 without a board), the 3-level
; stack, a chapter change, a not-taken CALL and RETN with an empty stack.
        .chip   tms1400
        .chapter 0
        .page   15
start:  TCY     0
fill:   TCMIY   5
        YNEC    8
        BR      fill
        LDX     1
        TCY     3
        TYA
        TAM
        AMAAC
        TDO
        YNEA
        TDO
        TCY     9
        SETR
        TCY     13
        SETR
        TKA
        KNEZ
        CLA
        LCALL   sub1
        LCALL   far
        SBIT    2
        RBIT    0
        TBIT    2
        COMX
        DMAN
        IMAC
        SAMAN
        CPAIZ
        ALEM
        MNEA
        XMA
        TAMDYN
        TAMIYC
        TAMZA
        DYN
        IYC
        A7ACC
        CLA
        TCY     9
        RSTR
        LDP     6
        TCY     3
        YNEC    3
        CALL    $00         ; not taken: PB back to the current page
        RETN                ; empty stack: does nothing
        BR      start

        .page   2
sub1:   TCY     1
        LCALL   sub2
        RETN
        .page   3
sub2:   TCY     2
        LCALL   sub3
        RETN
        .page   4
sub3:   TCY     4
        LDP     9
        RETN

        .chapter 2
        .page   5
far:    TCY     1
        TPC
        RETN
