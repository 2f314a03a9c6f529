"""Make seeded random TMS1400/TMS1100/TMS1000 ROM images that exercise every opcode, page and
chapter.

Used by the MAME cross-check (tests/mame/): the same image runs in MAME 0.251 and in our core,
and their per-instruction traces must agree. A page is written as 64 instructions in execution
order (the PC's LFSR order, ``docs/tms1400.md`` §2) from a mix of snippets:

- any of the 256 opcodes, uniformly (so every opcode and operand appears);
- ALU/RAM work: the micro-programmed opcodes 00-08, 0E, 20-27, 38-3F, 40-7F, LDX, SBIT/RBIT
  (on the TMS1000 its own set, TI TMS1000 Series Data Manual: 01-09, 0E, 20-2F, 38-3B, 40-7F,
  COMX, LDX, SBIT/RBIT);
- key scans: ``TCY 0..2`` (a key-matrix column of the Dark Tower board; on the TMS1000 ``TCY
  0..2`` or ``TCY 9``, the columns of MAME's ``simon``), ``SETR``, ``TKA`` or ``KNEZ``,
  sometimes ``RSTR``; and R/O traffic: ``TCY n; SETR|RSTR``, ``TDO``, ``YNEA; TDO``;
- control flow that keeps execution moving across pages and chapters: ``BR``/``CALL`` to a
  random PC, ``LDP p; BR|CALL``, the far form ``LDP c; TPC; LDP p; BR|CALL``
  (docs/tms1400.md §7.2; on the TMS1100 opcode 0B is COMC, which toggles the chapter buffer,
  §7.1; on the TMS1000 it is CLO, which clears the O index), and ``RETN``.

The same seed gives the same image on every machine (``random.Random(seed)``); TMS1000 images
come from their own mix (the TMS1000 opcode map differs) and use the same seeds.

Example::

    >>> rom = random_rom(1)
    >>> len(rom), rom == random_rom(1)
    (4096, True)
"""
from __future__ import annotations

import random

from emulator.chips import TMS1000, TMS1100, TMS1400, Chip
from emulator.core import lfsr_order

__all__ = ["random_rom", "random_key_masks", "RandRomError"]

_PAGES = 16
_ALU = ([*range(0x00, 0x09), 0x0E, *range(0x20, 0x28), *range(0x38, 0x80)]
        + list(range(0x28, 0x38)))
# The TMS1000's micro-programmed opcodes (TI TMS1000 Series Data Manual, instruction table),
# its COMX and its 2-bit LDX.
_ALU_TMS1000 = ([*range(0x01, 0x0A), 0x0E, *range(0x20, 0x30), *range(0x38, 0x80)]
                + [0x00, *range(0x3C, 0x40), *range(0x30, 0x38)])
_KEY_COLUMNS = (0, 1, 2, 2, 1, 0, 8)            # Dark Tower R0-R2 (and R8, no keys)
_KEY_COLUMNS_TMS1000 = (0, 1, 2, 2, 1, 9)       # MAME simon: R0-R2 and R9 select IN.0-IN.3
_TKA, _KNEZ, _TDO, _TPC, _RSTR, _SETR, _RETN, _YNEA = 0x08, 0x0E, 0x0A, 0x0B, 0x0C, 0x0D, 0x0F, 0x02
_KNEZ_TMS1000 = 0x09


class RandRomError(ValueError):
    """A bad argument to the random-image generator (names the value and what was expected)."""


def _rev4(n: int) -> int:
    return int(f"{n & 15:04b}"[::-1], 2)


def _tcy(n: int) -> int:
    return 0x40 | _rev4(n)


def _ldp(n: int) -> int:
    return 0x10 | _rev4(n)


def _snippet(rnd: random.Random, tms1000: bool = False) -> list[int]:
    """Return one short instruction sequence (opcodes in execution order)."""
    roll = rnd.random()
    if roll < 0.24:
        return [rnd.randrange(256)]
    if roll < 0.44:
        return [rnd.choice(_ALU_TMS1000 if tms1000 else _ALU)]
    if roll < 0.54:                      # key scan of one key-matrix column
        columns, knez = ((_KEY_COLUMNS_TMS1000, _KNEZ_TMS1000) if tms1000
                         else (_KEY_COLUMNS, _KNEZ))
        seq = [_tcy(rnd.choice(columns)), _SETR, rnd.choice((_TKA, knez, _TKA))]
        if rnd.random() < 0.5:
            seq.append(_RSTR)
        return seq
    if roll < 0.64:                      # R and O traffic
        kind = rnd.random()
        if kind < 0.5:
            return [_tcy(rnd.randrange(16)), rnd.choice((_SETR, _RSTR))]
        if kind < 0.75:
            return [_TDO]
        return [_YNEA, _TDO]
    if roll < 0.78:                      # near branch or call in the page PB holds
        return [rnd.randrange(0x80, 0x100)]
    if roll < 0.88:                      # to another page
        return [_ldp(rnd.randrange(16)), rnd.randrange(0x80, 0x100)]
    if roll < 0.95:                      # to another chapter (TPC: CB = PB & 3)
        return [_ldp(rnd.randrange(4)), _TPC, _ldp(rnd.randrange(16)),
                rnd.randrange(0x80, 0x100)]
    return [_RETN]


def random_rom(seed: int, chip: Chip = TMS1400) -> bytes:
    """Return a random image for ``seed`` on ``chip`` (TMS1400: 4096 bytes, TMS1100: 2048,
    TMS1000: 1024)."""
    if not isinstance(seed, int):
        raise RandRomError(f"seed {seed!r} must be an integer")
    if chip not in (TMS1400, TMS1100, TMS1000):
        raise RandRomError(f"chip {getattr(chip, 'name', chip)!r}: random images are made for "
                           "the TMS1400, the TMS1100 and the TMS1000")
    tms1000 = chip == TMS1000
    rnd = random.Random(seed)
    order = lfsr_order()
    rom = bytearray(chip.rom_size)
    for chapter in range(chip.chapters):
        for page in range(_PAGES):
            seq: list[int] = []
            while len(seq) < 64:
                seq.extend(_snippet(rnd, tms1000))
            base = chapter << 10 | page << 6
            for i in range(64):
                rom[base | order[i]] = seq[i]
    return bytes(rom)


def random_key_masks(seed: int, frames: int, ports: int = 3,
                     allowed: int | None = None) -> list[int]:
    """Return ``frames`` random key masks (one per 1/60 s frame) over ``ports`` input ports.

    Bit ``4p + b`` = the key on input port IN.p with K bit ``1 << b`` (mbdtower: 3 ports,
    emulator.darktower.KEY_MATRIX; mdndclab: 18, the input-mux bits; simon: 4). ``allowed``
    limits the keys to those bits (e.g. ``SIMON.key_mask``, leaving out configuration
    switches); None allows all ``4 * ports``. About a third of the frames hold no key, the
    others one to four keys (one to eight on more than 3 ports).
    """
    if not isinstance(frames, int) or frames < 0:
        raise RandRomError(f"frames {frames!r} must be a whole number >= 0")
    if not isinstance(ports, int) or ports <= 0:
        raise RandRomError(f"ports {ports!r} must be a whole number > 0")
    bits = None
    if allowed is not None:
        if not isinstance(allowed, int) or allowed <= 0 or allowed >> 4 * ports:
            raise RandRomError(f"allowed key bits {allowed!r} must be a non-zero mask within "
                               f"the {4 * ports} bits of {ports} ports")
        bits = [b for b in range(4 * ports) if allowed >> b & 1]
    rnd = random.Random(f"keys-{seed}")
    most = 4 if ports <= 3 else 8
    masks = []
    for _ in range(frames):
        mask = 0
        if rnd.random() > 0.33:
            for _ in range(rnd.randint(1, most)):
                mask |= 1 << (rnd.randrange(4 * ports) if bits is None else rnd.choice(bits))
        masks.append(mask)
    return masks
