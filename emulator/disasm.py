"""Disassemble TMS1000-family ROM images into source that assembles back to the same bytes.

Mnemonics and operand text come from the one opcode table (:mod:`emulator.opcodes`, MAME
0.251's disassembler output, checked against ``tests/data/mame_dasm``). Addresses are shown as
MAME's debugger does, ``chapter:page:pc``, and every page is listed in execution (LFSR) order
from pc 00 (``docs/tms1400.md`` §2).

:func:`disassemble` writes every byte of the image, used or not, one instruction per line
under ``.chapter``/``.page`` directives, so :func:`emulator.asm.assemble` gives back the
identical image for any input. BRANCH/CALL targets become labels (``L0F3E`` = chapter 0,
page F, pc 3E) where the page buffer the assembler tracks at that point names the target page;
elsewhere (after an LDP that the disassembler cannot follow across a label) the raw ``$3E``
form is kept, which the assembler never checks. With ``symbols`` (an
:class:`emulator.symbols.Symbols`, e.g. from ``--symbols FILE``) their names label those
addresses and name the targets instead. Excerpt::

    .chip tms1400
    .chapter 0
    .page 15
    L0F00:
            TCY 10                  ; 0:F:00  3C0  45
            BRANCH L0F00            ; 0:F:01  3C1  80
"""
from __future__ import annotations

import re

from emulator.asm import _NAME, PC_ORDER, PageBuffers, format_address, rom_offset
from emulator.chips import Chip
from emulator.opcodes import decode, format_operand

__all__ = ["DisasmError", "disassemble", "disassemble_listing", "instruction_text"]


class DisasmError(ValueError):
    """The image does not fit the chip (wrong size)."""


def _check(rom: bytes, chip: Chip) -> None:
    if len(rom) != chip.rom_size:
        raise DisasmError(f"ROM image is {len(rom)} bytes but a {chip.name} ROM is "
                          f"{chip.rom_size} bytes")


def instruction_text(chip: Chip, byte: int) -> str:
    """Return MAME's disassembly text for one opcode (``TCY 4``, ``BRANCH $3E``, ``TPC``)."""
    op, value = decode(chip, byte)
    return f"{op.mnemonic} {format_operand(op, value)}".rstrip()


def _pages(chip: Chip):
    for chapter in range(chip.chapters):
        for page in range(16):
            yield chapter, page


def _label(chapter: int, page: int, pc: int) -> str:
    return f"L{chapter}{page:X}{pc:02X}"


def _targets(rom: bytes, chip: Chip, labels: set | None) -> list:
    """Walk the image in listing order tracking PB/CB as the assembler does.

    Returns, for each (chapter, page), the list of (pc, byte, target) where target is the
    ``(chapter, page, pc)`` a BRANCH/CALL reaches with the tracked buffers, else None. With
    ``labels`` given, a label at a position resynchronises the buffers, as in the assembler.
    """
    buffers = PageBuffers(chip)
    out = []
    for chapter, page in _pages(chip):
        buffers.sync(chapter, page)
        rows = []
        for pc in PC_ORDER:
            if labels is not None and (chapter, page, pc) in labels:
                buffers.sync(chapter, page)
            byte = rom[rom_offset(chapter, page, pc)]
            op, value = decode(chip, byte)
            target = (buffers.cb, buffers.pb, value) if op.operand == "a6" else None
            rows.append((pc, byte, target))
            buffers.apply(byte)
        out.append((chapter, page, rows))
    return out


def _names(symbols, chip: Chip) -> dict:
    """Return address -> label for the symbols that fit the image and are assembler names."""
    if symbols is None:
        return {}
    valid = re.compile(rf"{_NAME}$")
    generated = re.compile(r"L[0-3][0-9A-F][0-9A-F]{2}$")
    return {addr: name for addr, name in symbols.labels.items()
            if addr[0] < chip.chapters and valid.match(name) and not generated.match(name)}


def disassemble(rom: bytes, chip: Chip, symbols=None) -> str:
    """Return assembler source for the whole image (``chip.rom_size`` bytes) in LFSR order.

    ``symbols`` (an ``emulator.symbols.Symbols``) names labels and targets. Raises
    :class:`DisasmError` when the image has the wrong size.
    """
    _check(rom, chip)
    names = _names(symbols, chip)
    labels = {t for _, _, rows in _targets(rom, chip, None) for _, _, t in rows if t}
    labels |= set(names)

    def label(addr: tuple) -> str:
        return names.get(addr) or _label(*addr)
    lines = [f"; disassembly of a {chip.name} ROM image ({chip.rom_size} bytes), "
             f"pages in LFSR order", f".chip {chip.name}"]
    for chapter, page, rows in _targets(rom, chip, labels):
        if page == 0:
            lines.append(f".chapter {chapter}")
        lines.append(f".page {page}")
        for pc, byte, target in rows:
            if (chapter, page, pc) in labels:
                lines.append(f"{label((chapter, page, pc))}:")
            text = instruction_text(chip, byte)
            if target is not None and target in labels:
                text = f"{text.split()[0]} {label(target)}"
            address = format_address(chapter, page, pc)
            lines.append(f"        {text:<24}; {address}  "
                         f"{rom_offset(chapter, page, pc):03X}  {byte:02X}")
    return "\n".join(lines) + "\n"


def disassemble_listing(rom: bytes, chip: Chip, symbols=None) -> str:
    """Return one line per byte, ``c:p:pc  offset  opcode  mnemonic``, pages in LFSR order.

    The mnemonic text is MAME 0.251's (``tests/data/mame_dasm``). With ``symbols`` (an
    ``emulator.symbols.Symbols``) a ``name:`` line precedes each labelled address and a
    BRANCH/CALL whose target (with the page buffers tracked as the assembler does) has a
    label ends in ``; name``. Raises :class:`DisasmError` when the image has the wrong size.
    """
    _check(rom, chip)
    names = symbols.labels if symbols is not None else {}
    rows = {(c, p): r for c, p, r in _targets(rom, chip, set(names))} if names else {}
    lines = []
    for chapter, page in _pages(chip):
        targets = {pc: t for pc, _, t in rows.get((chapter, page), ())}
        for pc in PC_ORDER:
            offset = rom_offset(chapter, page, pc)
            byte = rom[offset]
            name = names.get((chapter, page, pc))
            if name:
                lines.append(f"{name}:")
            text = instruction_text(chip, byte)
            target = names.get(targets.get(pc)) if names else None
            if target:
                text = f"{text:<12} ; {target}"
            lines.append(f"{format_address(chapter, page, pc)}  {offset:03X}  {byte:02X}  "
                         f"{text}")
    return "\n".join(lines) + "\n"
