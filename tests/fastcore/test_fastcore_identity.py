"""The accelerated core is the reference core, faster: identical instruction traces and pin-change
streams on the cross-check corpus (tests/programs/*.asm, seeded random images) on every chip."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from emulator.asm import assemble_file
from emulator.chips import TMS1000, TMS1100, TMS1400, get_chip
from emulator.core import Cpu
from emulator.fastcore import FAST_AVAILABLE, FastCpu, fast_trace_lines, make_cpu
from emulator.randrom import random_rom
from emulator.trace import trace_lines

pytestmark = pytest.mark.skipif(not FAST_AVAILABLE,
                                reason="accelerated core not built: pip install -e . with gcc")

PROGRAMS = sorted((Path(__file__).parent.parent / "programs").glob("*.asm"))
STEPS = 3000


def _keys(seed: int):
    """Return a K provider whose value changes every 100 instructions (seeded)."""
    values = [random.Random(seed * 7919 + i).randrange(16) for i in range(256)]
    return lambda cycle: values[(cycle // 600) % 256]


def _pair(chip, rom, seed):
    ref, fast = Cpu(chip, rom), FastCpu(chip, rom)
    ref.read_k = _keys(seed)
    fast.read_k = _keys(seed)
    return ref, fast


def _first_difference(a: list[str], b: list[str]) -> str:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"instruction {i}:\n  reference {x}\n  fast      {y}"
    return f"lengths differ: {len(a)} vs {len(b)}"


def _changes(events):
    last, out = {}, []
    for cycle, kind, value in events:
        if last.get(kind) != value:
            out.append((cycle, kind, value))
            last[kind] = value
    return out


def _program_chip(path: Path):
    for line in path.read_text().splitlines():
        if line.strip().lower().startswith(".chip"):
            return get_chip(line.split()[1])
    return TMS1400


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_traces_identical_on_hand_written_programs(path):
    chip = _program_chip(path)
    rom = assemble_file(path, chip).rom
    ref, fast = _pair(chip, rom, 1)
    a = list(trace_lines(ref, STEPS))
    b = list(fast_trace_lines(fast, STEPS))
    assert a == b, _first_difference(a, b)


@pytest.mark.parametrize("chip", [TMS1000, TMS1100, TMS1400], ids=lambda c: c.name)
def test_traces_identical_on_random_images(chip):
    compared = 0
    for seed in range(40):
        rnd = random.Random(seed)
        if chip is TMS1400:
            rom = random_rom(seed)
        else:
            rom = bytes(rnd.randrange(256) for _ in range(chip.rom_size))
        ref, fast = _pair(chip, rom, seed)
        a = list(trace_lines(ref, 2000))
        b = list(fast_trace_lines(fast, 2000))
        assert a == b, f"seed {seed}: " + _first_difference(a, b)
        compared += len(a)
    print(f"{chip.name}: compared 40 images, {compared} instructions, 0 mismatches")


@pytest.mark.parametrize("chip", [TMS1000, TMS1100, TMS1400], ids=lambda c: c.name)
def test_pin_change_streams_identical_on_random_images(chip):
    for seed in range(20):
        rnd = random.Random(1000 + seed)
        rom = random_rom(seed) if chip is TMS1400 else bytes(
            rnd.randrange(256) for _ in range(chip.rom_size))
        ref, fast = _pair(chip, rom, seed)
        got_ref, got_fast = [], []
        ref.on_r = lambda c, v: got_ref.append((c, 0, v))
        ref.on_o = lambda c, v: got_ref.append((c, 1, v))
        fast.on_r = lambda c, v: got_fast.append((c, 0, v))
        fast.on_o = lambda c, v: got_fast.append((c, 1, v))
        ref.reset()
        fast.reset()
        ref.run_until(120_000)
        fast.run_until(120_000)
        assert _changes(got_ref) == _changes(got_fast), f"seed {seed}"
        assert bytes(ref.ram) == bytes(fast.ram) and ref.cycle == fast.cycle


def test_orform_k_equals_the_same_function_as_a_python_provider():
    rom = random_rom(5)
    rows = bytes([3, 5, 9])
    def k_of(r):
        return 8 | (rows[0] if r & 1 else 0) | (rows[1] if r & 2 else 0) | (rows[2] if r & 4 else 0)
    ref = Cpu(TMS1400, rom)
    ref_r = [0]
    ref.on_r = lambda c, v: ref_r.__setitem__(0, v)
    ref.read_k = lambda c: k_of(ref_r[0])
    fast = FastCpu(TMS1400, rom)
    fast.set_k_orform(8, rows)
    a = list(trace_lines(ref, 3000))
    b = list(fast_trace_lines(fast, 3000))
    assert a == b, _first_difference(a, b)


def test_fast_core_stops_when_a_watched_pin_changes():
    rom = random_rom(3)
    fast = FastCpu(TMS1400, rom)
    fast.set_stops(0x7FF, 0)
    fast.take_edges()
    fast.run_until(10_000_000)
    edges = fast.take_edges()
    assert fast.cycle < 10_000_000 and edges and edges[-1][1] == 0


def test_make_cpu_picks_the_requested_core():
    rom = bytes(4096)
    assert isinstance(make_cpu(TMS1400, rom, core="fast"), FastCpu)
    assert type(make_cpu(TMS1400, rom, core="reference")) is Cpu
    with pytest.raises(ValueError, match="unknown core"):
        make_cpu(TMS1400, rom, core="turbo")

