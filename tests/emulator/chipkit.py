"""Build tiny ROM images for the core tests from mnemonics (``emulator.opcodes.encode``).

Programs are lists of ``"MNEMONIC operand"`` strings placed at consecutive LFSR addresses of a
page, so the tests do not depend on the assembler. ``"=XX"`` places a raw opcode byte.
"""
from __future__ import annotations

import pytest

from emulator.chips import TMS1000, TMS1100, TMS1400, Chip
from emulator.core import Cpu, lfsr_order
from emulator.opcodes import encode, mnemonics
from emulator.pla import Pla

ALL_CHIPS = pytest.mark.parametrize("chip", [TMS1000, TMS1100, TMS1400], ids=lambda c: c.name)
CHAPTER_CHIPS = pytest.mark.parametrize("chip", [TMS1100, TMS1400], ids=lambda c: c.name)
ONE_LEVEL_CHIPS = pytest.mark.parametrize("chip", [TMS1000, TMS1100], ids=lambda c: c.name)
ORDER = lfsr_order()


def opcode(chip: Chip, text: str) -> int:
    """Return the opcode byte of ``"MNEMONIC [operand]"`` on ``chip``.

    Operands are decimal, or hex after ``$`` (branch targets: raw PC values); ``"=XX"`` is a
    raw opcode byte.
    """
    if text.startswith("="):
        return int(text[1:], 16)
    name, *rest = text.split()
    op = mnemonics(chip)[name]
    if not rest:
        return encode(op)
    arg = rest[0]
    value = int(arg[1:], 16) if arg.startswith("$") else int(arg)
    return encode(op, value)


def rom(chip: Chip, pages: dict) -> bytes:
    """Return a ROM image with each ``{(chapter, page) or page: [instructions]}`` from PC 0."""
    image = bytearray(chip.rom_size)
    for key, program in pages.items():
        chapter, page = key if isinstance(key, tuple) else (0, key)
        for i, text in enumerate(program):
            image[chapter << 10 | page << 6 | ORDER[i]] = opcode(chip, text)
    return bytes(image)


def cpu(chip: Chip, *program: str, pages: dict | None = None, mpla: Pla | None = None,
        opla: Pla | None = None) -> Cpu:
    """Return a reset Cpu whose program starts at chapter 0, page 15 (the reset address)."""
    all_pages = {15: list(program)}
    all_pages.update(pages or {})
    return Cpu(chip, rom(chip, all_pages), mpla, opla)


def pc_at(index: int) -> int:
    """Return the PC value of the ``index``-th instruction of a page."""
    return ORDER[index]


def micro_pla(opcode_micro: dict[int, set[str]]) -> Pla:
    """Return a micro PLA (MAME bit order, active-low lines phased) giving ``opcode_micro``.

    Opcodes not listed get no micro-op.
    """
    from emulator.decode import MICRO_XOR
    from emulator.opcodes import MICRO_OPS

    terms = []
    for op, names in opcode_micro.items():
        ins = "".join("1" if op >> k & 1 else "0" for k in range(8))
        outs = "".join("1" if MICRO_OPS[k] in names else "0" for k in range(16))
        terms.append((ins, outs))
    phase = "".join("0" if MICRO_XOR >> k & 1 else "1" for k in range(16))
    return Pla(8, 16, tuple(terms), phase)


def output_pla(table: dict[int, int]) -> Pla:
    """Return a 5x8 output PLA giving O pins ``table[index]`` (others 0)."""
    terms = []
    for index, pins in table.items():
        ins = "".join("1" if index >> k & 1 else "0" for k in range(5))
        outs = "".join("1" if pins >> k & 1 else "0" for k in range(8))
        terms.append((ins, outs))
    return Pla(5, 8, tuple(terms), None)
