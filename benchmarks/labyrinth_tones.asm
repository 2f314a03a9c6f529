; The live-read benchmark's Labyrinth program (benchmarks/live_read.py): bursts of four 16-period
; tones, then about 0.9 s of silence, forever; square A1 (R1, K1) held lowers the pitch.
        .chip   tms1100
        .page   15
main:   TCY     0
        TCMIY   3               ; M(0) = 3: 4 bursts of 16 periods, then a silence
burst:  TCY     1
        TCMIY   15              ; M(1) = 15: 16 periods
per:    TCY     10
        SETR
        CALL    half
        TCY     10
        RSTR
        CALL    half
        TCY     1
        DMAN                    ; A = M(1) - 1, status = M(1) > 0
        BRANCH  per1
        TCY     0
        DMAN
        BRANCH  burst1
        TCY     3
        TCMIY   15              ; silence: 16 rounds of 8 x 16 x 16 loops (about 0.9 s)
qo:     TCY     4
        TCMIY   7
qm:     TCY     15
        CLA
q1:     A15ACC
        BRANCH  q1
        DYN
        BRANCH  q1
        TCY     4
        DMAN
        BRANCH  qm1
        TCY     3
        DMAN
        BRANCH  qo1
        BRANCH  main
qo1:    TAM
        BRANCH  qo
qm1:    TAM
        BRANCH  qm
per1:   TAM
        BRANCH  per
burst1: TAM
        BRANCH  burst
; half a period: longer while square A1 (R1, K1) is held
half:   TCY     1
        SETR
        TKA
        RSTR
        TCY     2
        TAM                     ; M(2) = K
        TMY
        CLA
h1:     A15ACC
        BRANCH  h1
        DYN
        BRANCH  h1
        RETN
