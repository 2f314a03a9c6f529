; branch_pages.asm -- LDP, TPC and BRANCH across pages and chapters; every BRANCH opcode.
;
; Chips: TMS1400
; Covers (docs/tms1400.md §2, §7.2): LDP 0-15 (a chain of long branches through pages 0-15),
; all 64 BRANCH opcodes $80-$BF (a page of branches from each pc to the next in LFSR order,
; entered with BRANCH $00 and left with BRANCH $20), TPC moving to chapters 1, 2, 3 and back
; to 0 (LDP c; TPC; LDP p; BRANCH), a BRANCH not taken (STATUS 0) that leaves PB and CB as
; LDP/TPC set them so the next taken BRANCH goes there, the page wrap from pc 20 to pc 00
; without a page change (page 8 starts at pc 20), and straight-line code across a page.
; Ends in a loop in 0:F toggling R10 forever.

        .chip   tms1400
        .page   15
start:  TCY     0
        LBR     hop0
idle:   TCY     10                      ; forever: toggle R10
        SETR
        TCY     15
        TYA
        TDO
        TCY     10
        RSTR
        BR      idle

        .page   0
hop0:   LDP     1                       ; PB = 1
        TCY     0
        YNEC    0                       ; STATUS 0
        BR      hop1                    ; not taken: PB stays 1
        BR      hop1                    ; taken: to page 1

        .page   1
hop1:   TCY     1
        LBR     hop2

        .page   2
hop2:   TCY     2
        TYA
        TDO
        LBR     hop3
        .page   3
hop3:   TCY     3
        TYA
        TDO
        LBR     hop4
        .page   4
hop4:   TCY     4
        TYA
        TDO
        LBR     hop5
        .page   5
hop5:   TCY     5
        TYA
        TDO
        LBR     hop6
        .page   6
hop6:   TCY     6
        TYA
        TDO
        LBR     tramp

        .page   7                       ; all 64 branch targets, in LFSR order
tramp:  BRANCH  $01                 ; pc 00 -> 01
        BRANCH  $03                 ; pc 01 -> 03
        BRANCH  $07                 ; pc 03 -> 07
        BRANCH  $0F                 ; pc 07 -> 0F
        BRANCH  $1F                 ; pc 0F -> 1F
        BRANCH  $3F                 ; pc 1F -> 3F
        BRANCH  $3E                 ; pc 3F -> 3E
        BRANCH  $3D                 ; pc 3E -> 3D
        BRANCH  $3B                 ; pc 3D -> 3B
        BRANCH  $37                 ; pc 3B -> 37
        BRANCH  $2F                 ; pc 37 -> 2F
        BRANCH  $1E                 ; pc 2F -> 1E
        BRANCH  $3C                 ; pc 1E -> 3C
        BRANCH  $39                 ; pc 3C -> 39
        BRANCH  $33                 ; pc 39 -> 33
        BRANCH  $27                 ; pc 33 -> 27
        BRANCH  $0E                 ; pc 27 -> 0E
        BRANCH  $1D                 ; pc 0E -> 1D
        BRANCH  $3A                 ; pc 1D -> 3A
        BRANCH  $35                 ; pc 3A -> 35
        BRANCH  $2B                 ; pc 35 -> 2B
        BRANCH  $16                 ; pc 2B -> 16
        BRANCH  $2C                 ; pc 16 -> 2C
        BRANCH  $18                 ; pc 2C -> 18
        BRANCH  $30                 ; pc 18 -> 30
        BRANCH  $21                 ; pc 30 -> 21
        BRANCH  $02                 ; pc 21 -> 02
        BRANCH  $05                 ; pc 02 -> 05
        BRANCH  $0B                 ; pc 05 -> 0B
        BRANCH  $17                 ; pc 0B -> 17
        BRANCH  $2E                 ; pc 17 -> 2E
        BRANCH  $1C                 ; pc 2E -> 1C
        BRANCH  $38                 ; pc 1C -> 38
        BRANCH  $31                 ; pc 38 -> 31
        BRANCH  $23                 ; pc 31 -> 23
        BRANCH  $06                 ; pc 23 -> 06
        BRANCH  $0D                 ; pc 06 -> 0D
        BRANCH  $1B                 ; pc 0D -> 1B
        BRANCH  $36                 ; pc 1B -> 36
        BRANCH  $2D                 ; pc 36 -> 2D
        BRANCH  $1A                 ; pc 2D -> 1A
        BRANCH  $34                 ; pc 1A -> 34
        BRANCH  $29                 ; pc 34 -> 29
        BRANCH  $12                 ; pc 29 -> 12
        BRANCH  $24                 ; pc 12 -> 24
        BRANCH  $08                 ; pc 24 -> 08
        BRANCH  $11                 ; pc 08 -> 11
        BRANCH  $22                 ; pc 11 -> 22
        BRANCH  $04                 ; pc 22 -> 04
        BRANCH  $09                 ; pc 04 -> 09
        BRANCH  $13                 ; pc 09 -> 13
        BRANCH  $26                 ; pc 13 -> 26
        BRANCH  $0C                 ; pc 26 -> 0C
        BRANCH  $19                 ; pc 0C -> 19
        BRANCH  $32                 ; pc 19 -> 32
        BRANCH  $25                 ; pc 32 -> 25
        BRANCH  $0A                 ; pc 25 -> 0A
        BRANCH  $15                 ; pc 0A -> 15
        BRANCH  $2A                 ; pc 15 -> 2A
        BRANCH  $14                 ; pc 2A -> 14
        BRANCH  $28                 ; pc 14 -> 28
        BRANCH  $10                 ; pc 28 -> 10
        LDP     8                       ; pc 10: PB = 8
        BRANCH  $20                     ; pc 20: to 0:8:20

        .page   8, $20
wrap:   TCY     8                       ; at pc 20
        TCY     9                       ; at pc 00: the page wrapped, still page 8
        TYA
        TDO
        LBR     hop9

        .page   9
hop9:   LBR     hop10
        .page   10
hop10:  LBR     hop11
        .page   11
hop11:  LBR     hop12
        .page   12
hop12:  LBR     hop13
        .page   13
hop13:  LBR     hop14
        .page   14
hop14:  LBR     ch1                     ; LDP 1; TPC; LDP 5; BRANCH

        .chapter 1
        .page   5
ch1:    LDP     2                       ; PB = 2
        TPC                             ; CB = 2
        TCY     3
        YNEC    3                       ; STATUS 0
        BR      ch2                     ; not taken: CB stays 2, CA stays 1
        TCY     1                       ; still in chapter 1
        BR      ch2                     ; taken: to 2:2

        .chapter 2
        .page   2
ch2:    TCY     2
        LBR     ch3                     ; LDP 3; TPC; LDP 12; BRANCH

        .chapter 3
        .page   12
ch3:    TCY     3
        LBR     back                    ; LDP 0; TPC; LDP 15; BRANCH

        .chapter 0
        .page   15, $25
back:   TCY     0
        BR      idle
