"""TMS1000 mnemonics: MAME 0.251's disassembler text for every opcode (its ``simon`` machine).

``tests/data/mame_dasm/tms1000_opcodes.txt`` is MAME's ``dasm`` of a 1024-byte ROM holding the
bytes 00-FF four times (``MameOracle(machine=SIMON).disassemble``; regenerated and compared
live by tests/mame/test_mame_tms1000.py). MAME spells the TI data manual's A6AAC/A8AAC/A10AAC
as A6ACC/A8ACC/A10ACC; our listings follow MAME, the assembler takes both.
"""
from __future__ import annotations

from pathlib import Path

from emulator.asm import assemble
from emulator.chips import TMS1000
from emulator.disasm import instruction_text

MAME_DASM = Path(__file__).resolve().parents[1] / "data" / "mame_dasm" / "tms1000_opcodes.txt"


def mame_text() -> dict[int, str]:
    table = {}
    for line in MAME_DASM.read_text(encoding="ascii").splitlines():
        byte, _, text = line.partition(" ")
        table[int(byte, 16)] = text.rstrip()
    return table


def test_tms1000_instruction_text_equals_mames_for_every_opcode():
    mame = mame_text()
    assert len(mame) == 256
    assert {b: instruction_text(TMS1000, b) for b in range(256)} == mame


def test_tms1000_add_constant_opcodes_are_named_as_mame_names_them():
    assert [instruction_text(TMS1000, b) for b in (0x01, 0x05, 0x06)] == \
        ["A8ACC", "A10ACC", "A6ACC"]


def test_the_ti_data_manual_spelling_assembles_to_the_same_opcode():
    ti = assemble("A8AAC\nA10AAC\nA6AAC", TMS1000).rom
    mame = assemble("A8ACC\nA10ACC\nA6ACC", TMS1000).rom
    assert ti == mame and ti.count(0x01) == 1 and ti.count(0x05) == 1 and ti.count(0x06) == 1
