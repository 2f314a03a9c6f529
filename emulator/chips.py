"""Describe the TMS1000-family variants as data: one frozen row per chip.

Sources: TI TMS1000 Series Data Manual (1976) for the TMS1000/1100 organisation; MAME's device
parameters as summarised in ``docs/tms1400.md`` §1 (TMS1100/1400), §7 (stack), §9.1 (SETR/RSTR).
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Chip", "TMS1000", "TMS1100", "TMS1400", "CHIPS", "get_chip"]


@dataclass(frozen=True)
class Chip:
    """One TMS1000-family variant."""
    name: str
    rom_size: int          # bytes (8-bit words)
    ram_size: int          # 4-bit nibbles
    chapter_bits: int      # 0 (TMS1000), 1 (TMS1100), 2 (TMS1400)
    stack_depth: int       # subroutine levels: 1, or 3 on the TMS1400
    r_count: int           # R output pins
    o_count: int           # O output pins
    x_bits: int            # width of the X (RAM file) register
    op_0b: str             # what opcode 0x0B is: 'CLO' (TMS1000), 'COMC' (TMS1100), 'TPC' (TMS1400)
    setr_rule: str         # 'y' (R[Y], X ignored) or 'y_x_msb_clear' (only when X bit 2 is 0)
    opla_terms: int        # output-PLA term count MAME reads (TMS1000: none, O PLA is 5x8 too)
    mpla_terms: int = 30   # micro-PLA term count (8 inputs x 16 outputs)
    clock_hz: int = 425_000  # a typical oscillator; boards override

    @property
    def chapters(self) -> int:
        return 1 << self.chapter_bits

    @property
    def chapter_mask(self) -> int:
        return self.chapters - 1


TMS1000 = Chip("tms1000", rom_size=1024, ram_size=64, chapter_bits=0, stack_depth=1,
               r_count=11, o_count=8, x_bits=2, op_0b="CLO", setr_rule="y", opla_terms=20,
               clock_hz=300_000)
TMS1100 = Chip("tms1100", rom_size=2048, ram_size=128, chapter_bits=1, stack_depth=1,
               r_count=11, o_count=8, x_bits=3, op_0b="COMC", setr_rule="y_x_msb_clear",
               opla_terms=20, clock_hz=475_000)
TMS1400 = Chip("tms1400", rom_size=4096, ram_size=128, chapter_bits=2, stack_depth=3,
               r_count=11, o_count=8, x_bits=3, op_0b="TPC", setr_rule="y", opla_terms=32,
               clock_hz=425_000)

CHIPS = {c.name: c for c in (TMS1000, TMS1100, TMS1400)}


def get_chip(name: str) -> Chip:
    """Return the chip row for ``name`` (case-insensitive); ValueError lists the known ones."""
    try:
        return CHIPS[name.lower()]
    except KeyError:
        raise ValueError(f"unknown chip {name!r} (expected one of {', '.join(CHIPS)})") from None
