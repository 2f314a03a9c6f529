"""The kernel's fast path (registers in locals, K as the OR-form) and its fast-forward of wait
loops give exactly what stepping the reference core gives: pin changes with their cycles, the
K the chip reads (it steers the path, so it shows in the pins), and the whole state at any
stopping cycle."""
from __future__ import annotations

import random

import pytest

from emulator.asm import assemble
from emulator.chips import TMS1000, TMS1100, TMS1400
from emulator.core import Cpu
from emulator.fastcore import FAST_AVAILABLE, FastCpu
from emulator.randrom import random_rom
from emulator.boards import demo_program

pytestmark = pytest.mark.skipif(not FAST_AVAILABLE,
                                reason="accelerated core not built: pip install -e . with gcc")

ROWS = bytes([3, 5, 9])
KCONST = 8

# Wait loops of every shape the kernel fast-forwards (an adder-only instruction and a BRANCH
# back to it): on A (A15ACC, A1ACC to 15, CPAIZ), on Y (DYN, IYC, YNEC), with STSL (YNEA),
# inside a subroutine (the call latch of a 1-level chip keeps PA), nested in an outer loop;
# each followed by pin writes that show A, Y and SL.
WAITS = """
        .page   15
start:  TCY     6
        CLA
outer:  A15ACC
        BRANCH  outer
        TDO
        TCY     9
wy:     DYN
        BRANCH  wy
        TYA
        TDO
        TCY     3
wi:     IYC
        BRANCH  wi
        SETR
        TCY     12
        CLA
        A6ACC
wa:     A1ACC
        BRANCH  wa
        TDO
        TCY     5
wn:     YNEC    0
        BRANCH  wn2
        BRANCH  done
wn2:    DYN
        BRANCH  wn
done:   RSTR
        LCALL   sub
        TCY     10
        TCMIY   7
        BRANCH  start

        .page   3
sub:    TCY     4
        CLA
        A9ACC
ws:     YNEA
        BRANCH  ws2
        BRANCH  sret
ws2:    A15ACC
        BRANCH  ws2
        TDO
sret:   RETN
"""


def _orform_k(cpu):
    def k(cycle):
        r, o = cpu.pins
        value = KCONST
        for i in range(3):
            if r >> i & 1:
                value |= ROWS[i]
        return value
    return k


def _pair(chip, rom):
    ref, fast = Cpu(chip, rom), FastCpu(chip, rom)
    ref.read_k = _orform_k(ref)
    fast.set_k_orform(KCONST, ROWS)
    got = []
    ref.on_r = lambda c, v: got.append((c, 0, v))
    ref.on_o = lambda c, v: got.append((c, 1, v))
    ref.power_on()
    fast.power_on()
    return ref, fast, got


def _changes(edges):
    last, out = {}, []
    for cycle, kind, value in edges:
        if last.get(kind) != value:
            out.append((cycle, kind, value))
            last[kind] = value
    return out


def _run_both(ref, fast, got, targets):
    edges = []
    for target in targets:
        ref.run_until(target)
        while fast.cycle < target:
            fast.run_until(target)
            edges += fast.take_edges()
        edges += fast.take_edges()
        assert ref.state() == fast.state(), f"state differs at cycle {target}"
    assert _changes(got) == _changes(edges)


def _waits_rom(chip):
    return bytes(assemble(f"        .chip   {chip.name}\n" + WAITS, chip).rom)


@pytest.mark.parametrize("chip", [TMS1000, TMS1100, TMS1400], ids=lambda c: c.name)
def test_fast_path_pins_and_state_equal_the_reference_core_on_random_images(chip):
    for seed in range(12):
        rnd = random.Random(500 + seed)
        rom = random_rom(seed) if chip is TMS1400 else bytes(
            rnd.randrange(256) for _ in range(chip.rom_size))
        ref, fast, got = _pair(chip, rom)
        targets = sorted(rnd.randrange(1, 60_000) for _ in range(8)) + [60_000]
        _run_both(ref, fast, got, targets)


@pytest.mark.parametrize("chip", [TMS1100, TMS1400], ids=lambda c: c.name)
def test_wait_loops_are_fast_forwarded_with_the_stepped_pins_and_state(chip):
    rom = _waits_rom(chip)
    ref, fast, got = _pair(chip, rom)
    _run_both(ref, fast, got, [200_000])
    assert fast.fast_forwarded > 10_000


@pytest.mark.parametrize("chip", [TMS1100, TMS1400], ids=lambda c: c.name)
def test_a_stop_inside_a_wait_loop_gives_the_stepped_state(chip):
    rom = _waits_rom(chip)
    ref, fast, got = _pair(chip, rom)
    _run_both(ref, fast, got, list(range(7, 20_000, 97)))
    assert fast.fast_forwarded > 0


def test_fast_forward_off_gives_the_same_run():
    rom = bytes(demo_program().rom)
    runs = []
    for on in (True, False):
        cpu = FastCpu(TMS1400, rom)
        cpu.set_fast_forward(on)
        cpu.set_k_orform(0)
        cpu.run_until(3_000_000)
        runs.append((cpu.state(), cpu.take_edges(), cpu.fast_forwarded))
    assert runs[0][:2] == runs[1][:2]
    assert runs[0][2] > 0 and runs[1][2] == 0


def test_demo_firmware_fast_path_equals_the_reference_core():
    rom = bytes(demo_program().rom)
    ref, fast, got = _pair(TMS1400, rom)
    _run_both(ref, fast, got, [400_000, 1_000_003, 1_500_000])
    assert fast.fast_forwarded > 0


def test_state_restores_on_either_core():
    rom = random_rom(9)
    for cls in (Cpu, FastCpu):
        cpu = cls(TMS1400, rom)
        cpu.run_until(30_000)
        saved = cpu.state()
        cpu.run_until(60_000)
        after = cpu.state()
        cpu.set_state(saved)
        cpu.run_until(60_000)
        assert cpu.state() == after, cls.__name__


def test_a_wait_loop_whose_instruction_stores_status_in_sl_leaves_sl_as_stepped():
    # A micro PLA where A15ACC also has STSL: the loop's last STATUS (0) is left in SL, which
    # the TDO after the loop sends to O7.
    from emulator.decode import MICRO_BIT, MICRO_XOR, standard_micro_table
    from emulator.pla import Pla, terms_from_table

    words = list(standard_micro_table(TMS1400))
    words[0x77] |= MICRO_BIT["STSL"]
    mpla = Pla(8, 16, terms_from_table(8, 16, [w ^ MICRO_XOR for w in words]))
    source = """
        .chip   tms1400
        .page   15
start:  TCY     3
        YNEC    3
        TCY     7
        CLA
        A9ACC
wa:     A15ACC
        BRANCH  wa
        TDO
        TCY     2
        YNEA
        TDO
        BRANCH  start
"""
    rom = bytes(assemble(source, TMS1400).rom)
    ref, fast = Cpu(TMS1400, rom, mpla), FastCpu(TMS1400, rom, mpla)
    got = []
    ref.on_o = lambda c, v: got.append((c, 1, v))
    ref.power_on()
    fast.power_on()
    fast.set_k_orform(0)
    ref.run_until(50_000)
    fast.run_until(50_000)
    assert ref.state() == fast.state()
    edges = [e for e in fast.take_edges() if e[1] == 1]
    assert _changes(got) == _changes(edges)
    assert fast.fast_forwarded > 1000


def _hits_with(brk_addresses, fast_forward: bool):
    program = demo_program()
    cpu = FastCpu(TMS1400, bytes(program.rom))
    cpu.set_fast_forward(fast_forward)
    cpu.set_k_orform(0)
    brk = bytearray(512)
    for addr in brk_addresses:
        brk[addr >> 3] |= 1 << (addr & 7)
    cpu.set_watch(bytes(brk))
    cpu.run_until(60_000)
    hits, dropped = cpu.take_hits()
    return hits, dropped, cpu.fast_forwarded, cpu.state()


def test_pc_breakpoints_on_a_wait_loop_see_every_iteration_the_stepped_run_sees():
    from emulator.core import LFSR_NEXT

    chapter, page, pc = demo_program().symbols["sd1"]
    loop = [chapter << 10 | page << 6 | pc, chapter << 10 | page << 6 | LFSR_NEXT[pc]]
    elsewhere = [0x3FF]   # a breakpoint outside the loop leaves the loop's fast-forward on
    on = _hits_with(loop, True)
    off = _hits_with(loop, False)
    assert on[0] == off[0] and len(on[0]) > 500 and on[1] == off[1] == 0
    assert on[3] == off[3]
    assert _hits_with(elsewhere, True)[2] > 0
