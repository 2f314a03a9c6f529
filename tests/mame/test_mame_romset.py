"""The user's own ROM set (``pytest --romset mbdtower.zip``) in MAME 0.251: it runs identically
in MAME and in our core (same ROM and PLA files; our core reads the K values MAME's core read
while keys change every 1/60 s frame), and, for the known-good MP7332 dump, MAME's pins mode
reproduces the R/O edges of the shared reference captures.

Opt-in (marker ``romset``): we never ship ROM or PLA dumps; users bring their own.
"""
from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest

from captures.script import read_script

from emulator.chips import TMS1400
from emulator.core import Cpu
from emulator.darktower import glyph_output_pla
from emulator.decode import ident_output_pla, standard_micro_pla
from emulator.mame import (CLOCK_HZ, MBDTOWER, MDNDCLAB, MameOracle, PinChange,
                           mame_pla_texts)
from emulator.randrom import random_key_masks
from emulator.romset import load_romset
from emulator.trace import trace_lines

pytestmark = [pytest.mark.mame, pytest.mark.romset]

STEPS = 150_000            # about 2.1 s of the game from power-on


def test_the_users_romset_runs_identically_in_mame(romset, oracle, capsys):
    rs = load_romset(romset)
    machine = MBDTOWER if rs.chip == TMS1400 else MDNDCLAB
    # Members the set lacks get our defaults, on both sides.
    mpla = rs.mpla or standard_micro_pla(rs.chip)
    opla = rs.opla or (glyph_output_pla() if machine is MBDTOWER else ident_output_pla(rs.chip))
    mpla_text, opla_text = mame_pla_texts(mpla, opla, machine)
    frames = STEPS * 6 * 60 // machine.clock_hz + 2
    keys = random_key_masks(2026, frames, machine.key_ports)
    dut = MameOracle(oracle.binary, oracle.timeout, oracle.workdir, machine)
    [trace] = dut.trace([rs.rom], mpla_text, opla_text, STEPS, [keys])

    cpu = Cpu(rs.chip, rs.rom, mpla, opla)
    k_at = trace.k_reads()
    cpu.read_k = lambda cycle: k_at.get(cycle, 0)
    theirs = trace.lines()
    first = next((n for n, (a, b) in enumerate(zip(trace_lines(cpu, STEPS), theirs)) if a != b),
                 None)
    summary = (f"{rs.summary()}: compared 1 program, {STEPS} instructions, "
               f"{0 if first is None else 1} mismatches")
    with capsys.disabled():
        print(f"\n{summary}")
    if first is not None:
        cpu = Cpu(rs.chip, rs.rom, mpla, opla)
        cpu.read_k = lambda cycle: k_at.get(cycle, 0)
        ours = list(trace_lines(cpu, first + 1))[-1]
        pytest.fail(f"{summary}\n  instruction {first}:\n  ours  {ours}\n  MAME  {theirs[first]}")


CAPTURES = Path(__file__).resolve().parent.parent / "data" / "captures"
GENUINE_SHA1 = "7edbff437da371390fa8f28b3d183f833eaa9be9"


def capture_pin_changes(folder: Path) -> tuple[int, list[PinChange]]:
    """Return (end cycle, R/O word changes) of a shared capture's edges.jsonl.gz."""
    with gzip.open(folder / "edges.jsonl.gz", "rt", encoding="utf-8") as f:
        header = json.loads(f.readline())
        words = {"R": 0, "O": 0}
        changes: list[PinChange] = []
        pending: dict[str, int] = {}
        last_cycle = 0
        for line in f:
            cycle, signal, value = json.loads(line)
            if cycle != last_cycle:
                changes += [PinChange(last_cycle, p, v) for p, v in sorted(pending.items())]
                pending, last_cycle = {}, cycle
            port = signal[0]
            if port in "RO" and signal[1:].isdigit():
                bit = 1 << int(signal[1:])
                words[port] = words[port] | bit if value else words[port] & ~bit
                pending[port] = words[port]
        changes += [PinChange(last_cycle, p, v) for p, v in sorted(pending.items())]
    # The R and O words at cycle 0 (the initial values), then every change of either word.
    initial = [PinChange(0, "R", 0), PinChange(0, "O", 0)]
    initial = [next((c for c in changes if c.cycle == 0 and c.port == p), i)
               for p, i in (("R", initial[0]), ("O", initial[1]))]
    return header["end_cycle"], initial + [c for c in changes if c.cycle > 0]


@pytest.mark.parametrize("session", ["tower_test", "level_select", "level4_bazaar",
                                     "level4_riddle"])
def test_mame_pins_mode_reproduces_the_shared_capture(session, romset, oracle):
    # The shared captures were recorded from the known-good dump with the standard decode and
    # the Dark Tower glyph output PLA (tests/data/captures/*/README.md).
    rs = load_romset(romset)
    if hashlib.sha1(rs.rom).hexdigest() != GENUINE_SHA1:
        pytest.skip(f"{romset}: not the known-good MP7332 dump the shared captures were made from")
    folder = CAPTURES / session
    end, expected = capture_pin_changes(folder)
    script = read_script(str(folder / "script.txt"))
    pins = oracle.run_pins(rs.rom, standard_micro_pla(), glyph_output_pla(), script,
                           end / CLOCK_HZ)
    got = [p for p in pins if p.cycle < end]
    first = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b), None)
    assert first is None and len(got) == len(expected), (
        f"{session}: {len(got)} pin changes from MAME, {len(expected)} in the capture; first "
        f"difference at change {first}: MAME {got[first] if first is not None else '-'}, "
        f"capture {expected[first] if first is not None else '-'}")
