; bits_ram.asm -- RAM addressing, LDX/COMX, and SBIT/RBIT/TBIT on every bit.
;
; Chips: TMS1400 (default) and TMS1100 (assemble with --chip tms1100).
; Covers: LDX 0-7 (3-bit X, bit-reversed in the opcode), COMX (MAME's COMX8: X ^= 4, from
; X = 3 and from X = 7), SBIT 0-3, RBIT 0-3, TBIT 0-3 with the bit set (STATUS 1) and clear
; (STATUS 0), SBIT/RBIT starting from the RAM nibble, the CKI bit masks of 0x30-0x3F
; (docs/tms1400.md §5.2.1), writes and reads in all 8 RAM files (M(X,Y) at X<<4 | Y), and a
; TBIT result branched on ("BR kN / TDO / kN:": STATUS 0 shows as a TDO).
; Ends in a loop toggling R10 and walking a set bit through M(3,15), forever.

        .page   15
start:  LDX     0                       ; one TCMIY in each file: M(x, x) = 15 - x
        TCY     0
        TCMIY   15
        LDX     1
        TCY     1
        TCMIY   14
        LDX     2
        TCY     2
        TCMIY   13
        LDX     3
        TCY     3
        TCMIY   12
        LDX     4
        TCY     4
        TCMIY   11
        LDX     5
        TCY     5
        TCMIY   10
        LDX     6
        TCY     6
        TCMIY   9
        LDX     7
        TCY     7
        TCMIY   8
        TCY     3                       ; COMX: X 7 -> 3 reads M(3,3) = 12
        COMX
        TMA
        COMX                            ; X 3 -> 7 reads M(7,3) = 0
        TMA
        TCY     7
        TMA                             ; M(7,7) = 8
        LBR     bits

        .page   0
bits:   LDX     2                       ; file 2, word 9 starts at 0
        TCY     9
        SBIT    0                       ; 1
        SBIT    1                       ; 3
        SBIT    2                       ; 7
        SBIT    3                       ; 15
        TMA
        TBIT    0                       ; set: STATUS 1
        BR      b1
        TDO
b1:     TBIT    1
        BR      b2
        TDO
b2:     TBIT    2
        BR      b3
        TDO
b3:     TBIT    3
        BR      b4
        TDO
b4:     RBIT    0                       ; 14
        TBIT    0                       ; clear: STATUS 0
        BR      b5
        TDO
b5:     RBIT    1                       ; 12
        TBIT    1
        BR      b6
        TDO
b6:     RBIT    2                       ; 8
        TBIT    2
        BR      b7
        TDO
b7:     RBIT    3                       ; 0
        TBIT    3
        BR      b8
        TDO
b8:     TMA                             ; A = 0
        SBIT    2                       ; 4: one bit alone
        TBIT    1                       ; neighbour clear: STATUS 0
        BR      b9
        TDO
b9:     TBIT    2
        BR      b10
        TDO
b10:    LBR     files

        .page   1
files:  LDX     5                       ; same bit operations in the upper files (X bit 2 set)
        TCY     15
        SBIT    3
        SBIT    0
        TMA                             ; 9
        RBIT    3
        TMA                             ; 1
        LDX     6
        TCY     0
        SBIT    1
        TBIT    1
        BR      f1
        TDO
f1:     RBIT    1
        TBIT    1
        BR      f2
        TDO
f2:     LDX     1                       ; SBIT on a cell written by TCMIY: M(1,1) = 14
        TCY     1
        SBIT    0                       ; 15
        TMA
        RBIT    2                       ; 11
        TMA
        TCY     4                       ; XMA across files: A <-> M(1,4)
        XMA
        LDX     4
        XMA                             ; M(4,4): A = 11 (written by TCMIY 11)
        TAM
        LDX     3
        TCY     15
        TCMIY   0                       ; M(3,15) = 0, Y wraps to 0
        LBR     idle

        .page   2
idle:   LDX     3                       ; forever: toggle R10, walk a bit through M(3,15)
                                        ; (X < 4: the TMS1100 ignores SETR/RSTR with X >= 4)
        TCY     15
loop:   SBIT    0
        TCY     10
        SETR
        TCY     15
        RBIT    0
        SBIT    3
        TCY     10
        RSTR
        TCY     15
        TBIT    3
        RBIT    3
        BR      loop
        TDO
        BR      loop
