"""Golden canonical traces (tests/golden/core_*.trace): the reference core must reproduce them
line for line. Each golden file starts with the commands that regenerate it."""
from __future__ import annotations

from pathlib import Path

import pytest

from emulator.asm import assemble_file
from emulator.core import Cpu
from emulator.romset import load_pla_file
from emulator.trace import trace_lines

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


@pytest.mark.parametrize("chip", ["tms1100", "tms1400"])
def test_reference_core_reproduces_the_golden_trace(chip):
    program = assemble_file(GOLDEN / f"core_{chip}.asm")
    opla = load_pla_file(GOLDEN / "core_output.pla")
    expected = [ln for ln in (GOLDEN / f"core_{chip}.trace").read_text().splitlines()
                if not ln.startswith("#")]
    cpu = Cpu(program.chip, program.rom, None, opla)
    got = list(trace_lines(cpu, len(expected)))
    for n, (want, have) in enumerate(zip(expected, got)):
        assert have == want, f"instruction {n}: expected\n  {want}\ngot\n  {have}"
    assert len(expected) == 200


def test_golden_files_say_how_to_regenerate_them():
    for chip in ("tms1100", "tms1400"):
        head = (GOLDEN / f"core_{chip}.trace").read_text().splitlines()[:4]
        assert any(f"towerlab trace --rom /tmp/core_{chip}.bin" in ln for ln in head)
