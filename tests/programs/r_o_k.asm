; r_o_k.asm -- R outputs, O outputs through the output PLA, K inputs (Dark Tower wiring).
;
; Chips: TMS1400
; Covers: SETR and RSTR on Y = 0..15 (Y = 11..15 are latch bits without a pin) with each
; X = 0..7 (the TMS1400 ignores X, docs/tms1400.md §9.1); TDO for every A = 0..15 with
; SL = 0 (after an equal YNEA) and SL = 1 (after an unequal YNEA), docs/tms1400.md §8; TKA and KNEZ
; reading K with each key column R0, R1, R2 selected, with the sensor LED (R8) and the motor
; (R9) on so that MAME's reel sensor drives K8 (docs/dark-tower-wiring.md §6); KNEZ with K = 0
; (no column).
; The K results never change the path (both sides of each KNEZ test meet again), so the
; program runs the same with or without keys. Ends in a loop that reads the keys and toggles
; R10 (speaker) forever. Uses a CALL/RETN in one page for the sweep subroutine.

        .chip   tms1400
        .page   15
start:  LDX     0                       ; SETR/RSTR sweep for every X
        CALL    sweep
        LDX     1
        CALL    sweep
        LDX     2
        CALL    sweep
        LDX     3
        CALL    sweep
        LDX     4
        CALL    sweep
        LDX     5
        CALL    sweep
        LDX     6
        CALL    sweep
        LDX     7
        CALL    sweep
        LBR     tdo

sweep:  TCY     0                       ; R0..R15 set one by one, then cleared one by one
s_set:  SETR
        IYC                             ; STATUS 1 when Y wraps 15 -> 0
        BR      s_done
        BR      s_set
s_done: RSTR
        IYC
        BR      s_end
        BR      s_done
s_end:  RETN

        .page   1
tdo:    LDX     0
        CLA                             ; A = 0..15, each with SL = 0 then SL = 1
t_loop: TAY                             ; Y = A
        YNEA                            ; equal: STATUS 0, SL = 0
        TDO                             ; O index 0:A
        IYC                             ; Y = A + 1
        YNEA                            ; unequal: STATUS 1, SL = 1
        TDO                             ; O index 1:A
        A1ACC                           ; carry when A wraps 15 -> 0
        BR      t_done
        BR      t_loop
t_done: TKA                             ; no key column selected: K = K8 (reel sensor) only;
        KNEZ                            ; in MAME the LED lit by the sweep still counts as on
                                        ; for a few 1/60 s frames (docs/dark-tower-wiring.md
                                        ; §7): K8 may be 1
        BR      k0
        TDO
k0:     TCY     8                       ; sensor LED and motor on
        SETR
        TCY     9
        SETR
        LBR     idle

        .page   2
idle:   LDX     0                       ; forever: read each key column, toggle the speaker
loop:   TCY     0                       ; column R0
        SETR
        TKA
        TAM                             ; M(0,0) = K
        KNEZ
        BR      c0
        TDO
c0:     RSTR
        TCY     1                       ; column R1
        SETR
        TKA
        TAM
        KNEZ
        BR      c1
        TDO
c1:     RSTR
        TCY     2                       ; column R2
        SETR
        TKA
        TAM
        KNEZ
        BR      c2
        TDO
c2:     RSTR
        TCY     10                      ; speaker
        SETR
        TKA                             ; K8 alone: the reel sensor
        TDO
        RSTR
        BR      loop
