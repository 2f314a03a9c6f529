; call_stack.asm -- CALL/RETN on the TMS1400's 3-level stack; every CALL opcode.
;
; Chips: TMS1400
; Covers (docs/tms1400.md §7.2): all 64 CALL opcodes $C0-$FF (LDP 5; CALL $xx into a page
; holding RETN at every pc), RETN popping pc, page and chapter into PA/PB and CA/CB, RETN with
; an empty stack (at reset, and after an overflow) doing nothing, four nested calls (the 4th
; drops the oldest return: the outermost RETN falls through), a CALL not taken (STATUS 0) that
; copies PA into PB and CA into CB, undoing an LDP and an LDP/TPC, and a long call into
; chapter 2 returning to chapter 0. Ends in a loop calling a subroutine that toggles R10.

        .chip   tms1400
        .page   15
start:  RETN                            ; empty stack: nothing happens
        TCY     0
        LBR     calls1
idle:   CALL    toggle                  ; forever: toggle R10 in a subroutine
        TCY     15
        TYA
        TDO
        BR      idle
toggle: TCY     10
        SETR
        RSTR
        RETN

        .page   5
rets:   RETN                            ; pc 00
        RETN                            ; pc 01
        RETN                            ; pc 03
        RETN                            ; pc 07
        RETN                            ; pc 0F
        RETN                            ; pc 1F
        RETN                            ; pc 3F
        RETN                            ; pc 3E
        RETN                            ; pc 3D
        RETN                            ; pc 3B
        RETN                            ; pc 37
        RETN                            ; pc 2F
        RETN                            ; pc 1E
        RETN                            ; pc 3C
        RETN                            ; pc 39
        RETN                            ; pc 33
        RETN                            ; pc 27
        RETN                            ; pc 0E
        RETN                            ; pc 1D
        RETN                            ; pc 3A
        RETN                            ; pc 35
        RETN                            ; pc 2B
        RETN                            ; pc 16
        RETN                            ; pc 2C
        RETN                            ; pc 18
        RETN                            ; pc 30
        RETN                            ; pc 21
        RETN                            ; pc 02
        RETN                            ; pc 05
        RETN                            ; pc 0B
        RETN                            ; pc 17
        RETN                            ; pc 2E
        RETN                            ; pc 1C
        RETN                            ; pc 38
        RETN                            ; pc 31
        RETN                            ; pc 23
        RETN                            ; pc 06
        RETN                            ; pc 0D
        RETN                            ; pc 1B
        RETN                            ; pc 36
        RETN                            ; pc 2D
        RETN                            ; pc 1A
        RETN                            ; pc 34
        RETN                            ; pc 29
        RETN                            ; pc 12
        RETN                            ; pc 24
        RETN                            ; pc 08
        RETN                            ; pc 11
        RETN                            ; pc 22
        RETN                            ; pc 04
        RETN                            ; pc 09
        RETN                            ; pc 13
        RETN                            ; pc 26
        RETN                            ; pc 0C
        RETN                            ; pc 19
        RETN                            ; pc 32
        RETN                            ; pc 25
        RETN                            ; pc 0A
        RETN                            ; pc 15
        RETN                            ; pc 2A
        RETN                            ; pc 14
        RETN                            ; pc 28
        RETN                            ; pc 10
        RETN                            ; pc 20

        .page   1
calls1: ; CALL $00 .. $1D
        LDP     5
        CALL    $00
        LDP     5
        CALL    $01
        LDP     5
        CALL    $02
        LDP     5
        CALL    $03
        LDP     5
        CALL    $04
        LDP     5
        CALL    $05
        LDP     5
        CALL    $06
        LDP     5
        CALL    $07
        LDP     5
        CALL    $08
        LDP     5
        CALL    $09
        LDP     5
        CALL    $0A
        LDP     5
        CALL    $0B
        LDP     5
        CALL    $0C
        LDP     5
        CALL    $0D
        LDP     5
        CALL    $0E
        LDP     5
        CALL    $0F
        LDP     5
        CALL    $10
        LDP     5
        CALL    $11
        LDP     5
        CALL    $12
        LDP     5
        CALL    $13
        LDP     5
        CALL    $14
        LDP     5
        CALL    $15
        LDP     5
        CALL    $16
        LDP     5
        CALL    $17
        LDP     5
        CALL    $18
        LDP     5
        CALL    $19
        LDP     5
        CALL    $1A
        LDP     5
        CALL    $1B
        LDP     5
        CALL    $1C
        LDP     5
        CALL    $1D
        LBR     calls2

        .page   2
calls2: ; CALL $1E .. $3B
        LDP     5
        CALL    $1E
        LDP     5
        CALL    $1F
        LDP     5
        CALL    $20
        LDP     5
        CALL    $21
        LDP     5
        CALL    $22
        LDP     5
        CALL    $23
        LDP     5
        CALL    $24
        LDP     5
        CALL    $25
        LDP     5
        CALL    $26
        LDP     5
        CALL    $27
        LDP     5
        CALL    $28
        LDP     5
        CALL    $29
        LDP     5
        CALL    $2A
        LDP     5
        CALL    $2B
        LDP     5
        CALL    $2C
        LDP     5
        CALL    $2D
        LDP     5
        CALL    $2E
        LDP     5
        CALL    $2F
        LDP     5
        CALL    $30
        LDP     5
        CALL    $31
        LDP     5
        CALL    $32
        LDP     5
        CALL    $33
        LDP     5
        CALL    $34
        LDP     5
        CALL    $35
        LDP     5
        CALL    $36
        LDP     5
        CALL    $37
        LDP     5
        CALL    $38
        LDP     5
        CALL    $39
        LDP     5
        CALL    $3A
        LDP     5
        CALL    $3B
        LBR     calls3

        .page   3
calls3: ; CALL $3C .. $3F
        LDP     5
        CALL    $3C
        LDP     5
        CALL    $3D
        LDP     5
        CALL    $3E
        LDP     5
        CALL    $3F
        LDP     6                       ; PB = 6
        TCY     0
        YNEC    0                       ; STATUS 0
        CALL    $00                     ; not taken: PB = PA = 3 again
        BR      nt1                     ; so this stays in page 3
        TDO
nt1:    LDP     2
        TPC                             ; CB = 2
        LDP     6                       ; PB = 6
        YNEC    0                       ; STATUS 0
        CALL    $00                     ; not taken: PB = 3, CB = CA = 0
        BR      nt2                     ; stays in 0:3
        TDO
nt2:    LCALL   n1                      ; four nested calls: this return is dropped
        LBR     idle                    ; only if the dropped return survived (it must not)
nest_back:                              ; reached from n1 after its RETN did nothing
        TCY     1
        LCALL   far                     ; LDP 2; TPC; LDP 4; CALL: into chapter 2
        TCY     2                       ; back in 0:3
        LBR     idle

        .page   9
n1:     TCY     1
        LCALL   n2
        RETN                            ; the stack lost this return: nothing happens
        LBR     nest_back

        .page   10
n2:     TCY     2
        LCALL   n3
        RETN                            ; to n1

        .page   11
n3:     TCY     3
        LCALL   n4
        RETN                            ; to n2

        .page   12
n4:     TCY     4                       ; 4th level: the return to calls3 is gone
        RETN                            ; to n3

        .chapter 2
        .page   4
far:    TCY     5
        TYA
        TDO
        RETN                            ; to 0:3, CA = CB = 0
