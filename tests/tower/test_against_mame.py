"""The demo firmware runs identically in MAME 0.251's mbdtower driver: the same R and O pin
changes at the same cycles (the oracle: emulator.mame.MameOracle.run_pins)."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from captures.script import read_script
from captures.tower import run_script
from emulator.darktower import write_glyph_output_pla
from emulator.decode import standard_micro_pla
from emulator.pla import MAME_PLA_SIZES, pla_text
from rig.towers.emulated import EmulatorTower, demo_program

SESSION = Path(__file__).resolve().parent.parent.parent / "emulator" / "firmware" / \
    "demo_session.txt"


def pin_changes(board_pins, seconds, clock=425_000):
    """Return (cycle, 'R'|'O', value) for every change of R0-R10 or O0-O7."""
    out, r0, o0 = [], None, None
    for cycle, word in board_pins:
        if cycle >= seconds * clock:
            break
        r, o = word & 0x7FF, word >> 11 & 0xFF
        if r != r0:
            out.append((cycle, "R", r))
            r0 = r
        if o != o0:
            out.append((cycle, "O", o))
            o0 = o
    return out


@pytest.mark.mame
def test_demo_session_pins_equal_mames_cycle_for_cycle(mame_binary):
    from emulator.mame import MameOracle

    script = read_script(str(SESSION))
    seconds = script.end_time()
    f = io.StringIO()
    write_glyph_output_pla(f)
    mpla = pla_text(standard_micro_pla(), pad_to_bytes=MAME_PLA_SIZES["micro"], term_count=30)
    pins = MameOracle(binary=mame_binary, timeout=600).run_pins(
        bytes(demo_program().rom), mpla, f.getvalue(), script, seconds)
    theirs, last = [], {}
    for p in pins:
        if p.cycle < seconds * 425_000 and last.get(p.port) != p.value:
            theirs.append((p.cycle, p.port, p.value))
            last[p.port] = p.value
    tower = EmulatorTower(firmware="demo")
    run_script(tower, script)
    ours = pin_changes(tower.board.pins, seconds)
    assert len(ours) > 10_000
    first = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), None)
    assert first is None, f"first difference at change {first}: ours {ours[first]}, " \
                          f"MAME {theirs[first]}"
    assert len(ours) == len(theirs)
