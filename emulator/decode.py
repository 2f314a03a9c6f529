"""Build the per-opcode decode tables the core executes from: micro-ops and fixed actions.

- Micro-ops come from the micro-instruction PLA (``docs/tms1400.md`` §4.2): the PLA output word
  for each opcode, XORed with 0x3FC8 (nine active-low lines), bit k = ``MICRO_OPS[k]``.
- Without a micro PLA file the TI standard decode is used (TI TMS1000 Series Data Manual,
  table 3; the micro sets of ``emulator/opcodes.py``). :func:`standard_micro_pla` writes that
  decode as a PLA MAME can load (``.phase`` marks the nine active-low lines negative, so a ``1``
  in a term always means "micro-op on").
- Fixed (hard-wired) actions come from the opcode table (docs/tms1400.md §5.2).
- The output PLA maps the 5-bit O index ``SL<<4 | A`` to the 8 O pins (docs/tms1400.md §8).

Example::

    >>> from emulator.chips import TMS1400
    >>> micro_table(TMS1400, standard_micro_pla())[0x40] == micro_mask({"CKP", "AUTY"})
    True
"""
from __future__ import annotations

from functools import lru_cache
from typing import IO, Iterable

from emulator.chips import TMS1400, Chip
from emulator.opcodes import FIXED_ACTIONS, MICRO_OPS, bitrev, opcode_map
from emulator.pla import MAME_PLA_SIZES, Pla, PlaError, terms_from_table, write_pla

__all__ = [
    "MICRO_XOR", "MICRO_BIT", "micro_mask", "standard_micro_table", "standard_micro_pla",
    "micro_table", "fixed_table", "ident_output_pla", "output_table", "check_micro_pla",
    "check_output_pla", "output_pla_from_table", "write_standard_micro_pla", "FIXED_CODES",
    "K_READ_CODE", "cki_constant",
]

# MAME XORs the raw micro-PLA word with this before testing bits (docs/tms1400.md §4.2): CIN,
# CKN, 15TN, MTN, NATN, ATN, MTP, YTP and CKP are active-low on the die.
MICRO_XOR = 0x3FC8

# Bit of each micro-op in the decoded word (MAME's order, docs/tms1400.md §4.2).
MICRO_BIT = {name: 1 << k for k, name in enumerate(MICRO_OPS)}


# The fixed-action numbering every core executes by: 0 = none, then FIXED_ACTIONS in order
# (the reference core's loop literals, the kernel's tables and its enum F_* in
# emulator/_fastcore.c; tests/fastcore/test_action_numbering.py checks both against this).
FIXED_CODES: dict[str | None, int] = {None: 0, **{name: i + 1
                                                  for i, name in enumerate(FIXED_ACTIONS)}}
# The reference core's extra code: no fixed action, but the opcode reads K (0x08-0x0F).
K_READ_CODE = len(FIXED_ACTIONS) + 1


def cki_constant(op: int) -> int:
    """Return the CKI bus value of ``op`` when it is not K (docs/tms1400.md §5.2.1)."""
    if op < 0x08 or 0x40 <= op <= 0x7F:
        return bitrev(op & 0xF, 4)
    if 0x30 <= op <= 0x3F:
        return 0xF ^ (1 << bitrev(op & 3, 2))
    return 0


def micro_mask(names: Iterable[str]) -> int:
    """Return the decoded micro-op word (bit k = ``MICRO_OPS[k]``) for a set of micro-op names."""
    word = 0
    for name in names:
        word |= MICRO_BIT[name]
    return word


@lru_cache(maxsize=None)
def standard_micro_table(chip: Chip = TMS1400) -> tuple[int, ...]:
    """Return the TI standard decode: the micro-op word of each opcode 0x00-0xFF on ``chip``."""
    return tuple(micro_mask(op.micro) for op, _ in opcode_map(chip))


def _minimal_terms(words: tuple[int, ...], inputs: int) -> list[tuple[int, int, int]]:
    """Cover ``words`` (one output word per input value) with few ``(care, value, out)`` cubes.

    A cube may drive an output only if every input it matches needs that output, so any cover
    reproduces ``words`` exactly. Weighted greedy set cover (an (input, output) pair that few
    cubes can reach weighs more), then redundant cubes are dropped.
    """
    size = 1 << inputs
    candidates = []
    for care in range(size):
        free = (size - 1) & ~care
        spread = [0]    # every subset of the free bits, ascending
        for bit in _bits(free):
            spread += [s | 1 << bit for s in spread]
        spread.sort()
        value = care
        while True:  # every assignment of the cared-for bits
            members = [value | s for s in spread]     # the inputs x with x & care == value
            common = -1
            for x in members:
                common &= words[x]
            if common > 0:
                candidates.append((care, value, common, members))
            if value == 0:
                break
            value = (value - 1) & care
    reach: dict[tuple[int, int], int] = {}
    for _, _, common, members in candidates:
        for x in members:
            for bit in _bits(common):
                reach[x, bit] = reach.get((x, bit), 0) + 1
    uncovered = {x: words[x] for x in range(size) if words[x]}
    chosen = []
    while uncovered:
        best, best_gain = None, 0.0
        for cand in candidates:
            gain = 0.0
            for x in cand[3]:
                for bit in _bits(uncovered.get(x, 0) & cand[2]):
                    gain += 1.0 / reach[x, bit]
            if gain > best_gain + 1e-9:
                best, best_gain = cand, gain
        care, value, common, members = best
        chosen.append((care, value, common, members))
        for x in members:
            left = uncovered.get(x, 0) & ~common
            if left:
                uncovered[x] = left
            else:
                uncovered.pop(x, None)
    for cube in list(reversed(chosen)):
        rest = [c for c in chosen if c is not cube]
        if all(_covered(words[x], x, rest) for x in cube[3]):
            chosen = rest
    return [(care, value, common) for care, value, common, _ in chosen]


@lru_cache(maxsize=1 << 16)
def _bits(word: int) -> tuple[int, ...]:
    return tuple(k for k in range(word.bit_length()) if word >> k & 1)


def _covered(word: int, x: int, cubes: list) -> bool:
    got = 0
    for care, value, common, _ in cubes:
        if x & care == value:
            got |= common
    return got == word


@lru_cache(maxsize=None)
def standard_micro_pla(chip: Chip = TMS1400) -> Pla:
    """Return the TI standard micro decode of ``chip`` as an 8x16 PLA in MAME's bit order.

    ``.phase`` marks the nine active-low lines (MICRO_XOR) negative, so MAME's XOR cancels it and a
    ``1`` in a term means "micro-op on". The TMS1100/1400 decode needs at most the device's 30
    terms; the writer pads with ``~`` filler terms.
    """
    words = standard_micro_table(chip)
    terms = []
    for care, value, out in _minimal_terms(words, 8):
        ins = "".join(("1" if value >> k & 1 else "0") if care >> k & 1 else "-"
                      for k in range(8))
        outs = "".join("1" if out >> k & 1 else "0" for k in range(16))
        terms.append((ins, outs))
    phase = "".join("0" if MICRO_XOR >> k & 1 else "1" for k in range(16))
    return Pla(8, 16, tuple(terms), phase)


def check_micro_pla(pla: Pla, name: str = "micro PLA") -> None:
    """Raise PlaError unless ``pla`` has the micro PLA's shape (8 inputs, 16 outputs)."""
    if (pla.inputs, pla.outputs) != (8, 16):
        raise PlaError(f"{name}: has {pla.inputs} inputs x {pla.outputs} outputs "
                       "(expected 8 x 16 for a micro-instruction PLA)")


def check_output_pla(pla: Pla, name: str = "output PLA") -> None:
    """Raise PlaError unless ``pla`` has the output PLA's shape (5 inputs, 8 outputs)."""
    if (pla.inputs, pla.outputs) != (5, 8):
        raise PlaError(f"{name}: has {pla.inputs} inputs x {pla.outputs} outputs "
                       "(expected 5 x 8 for an output PLA)")


def micro_table(chip: Chip, mpla: Pla | None = None) -> tuple[int, ...]:
    """Return the micro-op word of each opcode 0x00-0xFF: from ``mpla`` or the TI standard."""
    if mpla is None:
        return standard_micro_table(chip)
    check_micro_pla(mpla)
    return tuple(word ^ MICRO_XOR for word in mpla.table())


def fixed_table(chip: Chip) -> tuple[tuple[str | None, int | None], ...]:
    """Return ``(fixed action or None, operand value)`` for each opcode 0x00-0xFF on ``chip``."""
    return tuple((op.fixed, value) for op, value in opcode_map(chip))


def ident_output_pla(chip: Chip = TMS1400) -> Pla:
    """Return the identity output PLA (O pins = ``SL<<4 | A``) as a 5x8 PLA of 5 terms.

    It is the same for every chip (``chip`` is accepted for symmetry with the term counts the
    writer pads to: 20 on the TMS1000/1100, 32 on the TMS1400).
    """
    terms = []
    for bit in range(5):
        ins = "".join("1" if k == bit else "-" for k in range(5))
        outs = "".join("1" if k == bit else "0" for k in range(8))
        terms.append((ins, outs))
    return Pla(5, 8, tuple(terms), None)


def output_table(opla: Pla | None) -> tuple[int, ...]:
    """Return the 8 O pins for each O index 0-31 (identity when ``opla`` is None)."""
    if opla is None:
        return tuple(range(32))
    check_output_pla(opla)
    return tuple(w & 0xFF for w in opla.table())


def output_pla_from_table(words: Iterable[int]) -> Pla:
    """Return a 5x8 PLA with one term per non-zero O-pin value of the 32 O indexes."""
    return Pla(5, 8, terms_from_table(5, 8, list(words)), None)


def write_standard_micro_pla(fileobj: IO, chip: Chip = TMS1400) -> None:
    """Write the TI standard decode as MAME's ``tms1100_common1_micro.pla``: 867 bytes, 30 terms.

    MAME 0.251 loads it in place of the dumped file (with a "WRONG CHECKSUMS" warning) and then
    decodes exactly as this core does (tests/emulator/test_mame_oracle.py).
    """
    write_pla(standard_micro_pla(chip), fileobj, MAME_PLA_SIZES["micro"], term_count=30,
              title=f"TI standard {chip.name} micro decode")
