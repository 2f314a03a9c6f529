"""The one opcode table of the TMS1000 family: mnemonics, operands, hard-wired actions and the
standard micro-instruction decode.

The core (fixed-instruction decode, standard micro PLA), the assembler, the disassembler and the
coverage reports all read this table; there is no second list of mnemonics.

Sources:
- Mnemonics and operand forms are MAME 0.251's disassembler output for TMS1100/TMS1400
  (``tests/data/mame_dasm/*.txt``: MAME's ``dasm`` of a ROM holding the bytes 00-FF).
- TMS1100/1400 hard-wired instructions and the standard micro decode: ``docs/tms1400.md``
  §5.1-§5.3 and ``docs/mame-oracle.md`` §3 (the TI standard instruction set, TI TMS1000 Series
  Data Manual, table 3).
- TMS1000 map and micro-ops: TI TMS1000 Series Data Manual (1976), instruction table; the
  TMS1000 mnemonics are MAME 0.251's (``tests/data/mame_dasm/tms1000_opcodes.txt``, the
  ``simon`` machine's disassembler), which spells the data manual's A6AAC/A8AAC/A10AAC as
  A6ACC/A8ACC/A10ACC; the assembler accepts the data manual's spelling too.

Operand encodings (all bit-reversed in the opcode, docs/tms1400.md §5.1):
``c4`` 4-bit constant ``bitrev4(op & 0xF)``; ``x3`` 3-bit X ``bitrev3(op & 7)``;
``x2`` 2-bit X ``bitrev2(op & 3)`` (TMS1000 LDX); ``b2`` bit number ``bitrev2(op & 3)``;
``a6`` branch/call target = raw 6-bit PC value ``op & 0x3F``.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from emulator.chips import Chip

__all__ = [
    "MICRO_OPS", "Op", "bitrev", "opcode_map", "mnemonics", "encode", "decode", "format_operand",
    "FIXED_ACTIONS",
]

# The 16 micro-instruction lines of the TMS1100/1400 micro PLA, in MAME's bit order
# (docs/tms1400.md §4.2).
MICRO_OPS = ("STSL", "AUTY", "AUTA", "CIN", "C8", "NE", "CKN", "15TN", "MTN", "NATN", "ATN",
             "MTP", "YTP", "CKP", "CKM", "STO")

FIXED_ACTIONS = ("BR", "CALL", "RETN", "LDP", "LDX", "COMX", "COMX8", "SBIT", "RBIT", "SETR",
                 "RSTR", "TDO", "CLO", "COMC", "TPC")


def bitrev(value: int, bits: int) -> int:
    """Return ``value`` with its lowest ``bits`` bits in reverse order."""
    out = 0
    for i in range(bits):
        if value >> i & 1:
            out |= 1 << (bits - 1 - i)
    return out


@dataclass(frozen=True)
class Op:
    """One instruction form: ``count`` consecutive opcodes from ``opcode``."""
    mnemonic: str
    opcode: int
    count: int = 1
    operand: str = ""            # "", "c4", "x3", "x2", "b2", "a6"
    fixed: str | None = None     # hard-wired action (FIXED_ACTIONS), None for PLA-only ops
    micro: frozenset = frozenset()  # standard micro-ops (TI table); empty for fixed ops


def _m(*names: str) -> frozenset:
    return frozenset(names)


_ACC = _m("CKP", "ATN", "CIN", "C8", "AUTA")  # A + c + 1 (row 7x of the TMS1100/1400)


def _tms1100_ops(chip: Chip) -> list[Op]:
    ops = [
        Op("MNEA", 0x00, micro=_m("MTP", "ATN", "NE")),
        Op("ALEM", 0x01, micro=_m("MTP", "NATN", "CIN", "C8")),
        Op("YNEA", 0x02, micro=_m("YTP", "ATN", "NE", "STSL")),
        Op("XMA", 0x03, micro=_m("MTP", "STO", "AUTA")),
        Op("DYN", 0x04, micro=_m("YTP", "15TN", "C8", "AUTY")),
        Op("IYC", 0x05, micro=_m("YTP", "CIN", "C8", "AUTY")),
        Op("AMAAC", 0x06, micro=_m("MTP", "ATN", "C8", "AUTA")),
        Op("DMAN", 0x07, micro=_m("MTP", "15TN", "C8", "AUTA")),
        Op("TKA", 0x08, micro=_m("CKP", "AUTA")),
        Op("COMX", 0x09, fixed="COMX8"),
        Op("TDO", 0x0A, fixed="TDO"),
        Op("TPC", 0x0B, fixed="TPC") if chip.op_0b == "TPC" else Op("COMC", 0x0B, fixed="COMC"),
        Op("RSTR", 0x0C, fixed="RSTR"),
        Op("SETR", 0x0D, fixed="SETR"),
        Op("KNEZ", 0x0E, micro=_m("CKP", "NE")),
        Op("RETN", 0x0F, fixed="RETN"),
        Op("LDP", 0x10, 16, "c4", fixed="LDP"),
        Op("TAY", 0x20, micro=_m("ATN", "AUTY")),
        Op("TMA", 0x21, micro=_m("MTP", "AUTA")),
        Op("TMY", 0x22, micro=_m("MTP", "AUTY")),
        Op("TYA", 0x23, micro=_m("YTP", "AUTA")),
        Op("TAMDYN", 0x24, micro=_m("STO", "YTP", "15TN", "C8", "AUTY")),
        Op("TAMIYC", 0x25, micro=_m("STO", "YTP", "CIN", "C8", "AUTY")),
        Op("TAMZA", 0x26, micro=_m("STO", "AUTA")),
        Op("TAM", 0x27, micro=_m("STO")),
        Op("LDX", 0x28, 8, "x3", fixed="LDX"),
        Op("SBIT", 0x30, 4, "b2", fixed="SBIT"),
        Op("RBIT", 0x34, 4, "b2", fixed="RBIT"),
        Op("TBIT", 0x38, 4, "b2", micro=_m("CKP", "CKN", "MTP", "NE")),
        Op("SAMAN", 0x3C, micro=_m("MTP", "NATN", "CIN", "C8", "AUTA")),
        Op("CPAIZ", 0x3D, micro=_m("NATN", "CIN", "C8", "AUTA")),
        Op("IMAC", 0x3E, micro=_m("MTP", "CIN", "C8", "AUTA")),
        Op("MNEZ", 0x3F, micro=_m("MTP", "NE")),
        Op("TCY", 0x40, 16, "c4", micro=_m("CKP", "AUTY")),
        Op("YNEC", 0x50, 16, "c4", micro=_m("YTP", "CKN", "NE")),
        Op("TCMIY", 0x60, 16, "c4", micro=_m("CKM", "YTP", "CIN", "AUTY")),
    ]
    # 0x70-0x7E: A<c+1>ACC, A = A + c + 1 with c = bitrev4(op & 0xF); MAME names them by c + 1.
    for low in range(15):
        ops.append(Op(f"A{bitrev(low, 4) + 1}ACC", 0x70 + low, micro=_ACC))
    ops.append(Op("CLA", 0x7F, micro=_m("AUTA")))
    ops.append(Op("BRANCH", 0x80, 64, "a6", fixed="BR"))
    ops.append(Op("CALL", 0xC0, 64, "a6", fixed="CALL"))
    return ops


def _tms1000_ops() -> list[Op]:
    acc = _m("CKP", "ATN", "C8", "AUTA")
    ops = [
        Op("COMX", 0x00, fixed="COMX"),
        Op("A8ACC", 0x01, micro=acc),
        Op("YNEA", 0x02, micro=_m("YTP", "ATN", "NE", "STSL")),
        Op("TAM", 0x03, micro=_m("STO")),
        Op("TAMZA", 0x04, micro=_m("STO", "AUTA")),
        Op("A10ACC", 0x05, micro=acc),
        Op("A6ACC", 0x06, micro=acc),
        Op("DAN", 0x07, micro=_m("CKP", "ATN", "CIN", "C8", "AUTA")),  # A + 14 + 1
        Op("TKA", 0x08, micro=_m("CKP", "AUTA")),
        Op("KNEZ", 0x09, micro=_m("CKP", "NE")),
        Op("TDO", 0x0A, fixed="TDO"),
        Op("CLO", 0x0B, fixed="CLO"),
        Op("RSTR", 0x0C, fixed="RSTR"),
        Op("SETR", 0x0D, fixed="SETR"),
        Op("IA", 0x0E, micro=_m("ATN", "CIN", "AUTA")),
        Op("RETN", 0x0F, fixed="RETN"),
        Op("LDP", 0x10, 16, "c4", fixed="LDP"),
        Op("TAMIY", 0x20, micro=_m("STO", "YTP", "CIN", "AUTY")),
        Op("TMA", 0x21, micro=_m("MTP", "AUTA")),
        Op("TMY", 0x22, micro=_m("MTP", "AUTY")),
        Op("TYA", 0x23, micro=_m("YTP", "AUTA")),
        Op("TAY", 0x24, micro=_m("ATN", "AUTY")),
        Op("AMAAC", 0x25, micro=_m("MTP", "ATN", "C8", "AUTA")),
        Op("MNEZ", 0x26, micro=_m("MTP", "NE")),
        Op("SAMAN", 0x27, micro=_m("MTP", "NATN", "CIN", "C8", "AUTA")),
        Op("IMAC", 0x28, micro=_m("MTP", "CIN", "C8", "AUTA")),
        Op("ALEM", 0x29, micro=_m("MTP", "NATN", "CIN", "C8")),
        Op("DMAN", 0x2A, micro=_m("MTP", "15TN", "C8", "AUTA")),
        Op("IYC", 0x2B, micro=_m("YTP", "CIN", "C8", "AUTY")),
        Op("DYN", 0x2C, micro=_m("YTP", "15TN", "C8", "AUTY")),
        Op("CPAIZ", 0x2D, micro=_m("NATN", "CIN", "C8", "AUTA")),
        Op("XMA", 0x2E, micro=_m("MTP", "STO", "AUTA")),
        Op("CLA", 0x2F, micro=_m("AUTA")),
        Op("SBIT", 0x30, 4, "b2", fixed="SBIT"),
        Op("RBIT", 0x34, 4, "b2", fixed="RBIT"),
        Op("TBIT", 0x38, 4, "b2", micro=_m("CKP", "CKN", "MTP", "NE")),
        Op("LDX", 0x3C, 4, "x2", fixed="LDX"),
        Op("TCY", 0x40, 16, "c4", micro=_m("CKP", "AUTY")),
        Op("YNEC", 0x50, 16, "c4", micro=_m("YTP", "CKN", "NE")),
        Op("TCMIY", 0x60, 16, "c4", micro=_m("CKM", "YTP", "CIN", "AUTY")),
        Op("ALEC", 0x70, 16, "c4", micro=_m("CKP", "NATN", "CIN", "C8")),
        Op("BRANCH", 0x80, 64, "a6", fixed="BR"),
        Op("CALL", 0xC0, 64, "a6", fixed="CALL"),
    ]
    return ops


def _operand_value(op: Op, byte: int) -> int | None:
    kind = op.operand
    if kind == "c4":
        return bitrev(byte & 0xF, 4)
    if kind == "x3":
        return bitrev(byte & 7, 3)
    if kind in ("x2", "b2"):
        return bitrev(byte & 3, 2)
    if kind == "a6":
        return byte & 0x3F
    return None


@lru_cache(maxsize=None)
def opcode_map(chip: Chip) -> tuple[tuple[Op, int | None], ...]:
    """Return, for each opcode 0x00-0xFF, its ``(Op, operand value)`` on ``chip``."""
    ops = _tms1000_ops() if chip.chapter_bits == 0 else _tms1100_ops(chip)
    table: list = [None] * 256
    for op in ops:
        for byte in range(op.opcode, op.opcode + op.count):
            if table[byte] is not None:
                raise AssertionError(f"opcode {byte:02X} defined twice")
            table[byte] = (op, _operand_value(op, byte))
    missing = [f"{i:02X}" for i, e in enumerate(table) if e is None]
    if missing:
        raise AssertionError(f"opcodes without an entry: {missing}")
    return tuple(table)


# TI TMS1000 Series Data Manual spellings of TMS1000 mnemonics that MAME 0.251 spells otherwise
# (data manual -> MAME); the assembler accepts both, listings use MAME's.
_TMS1000_TI_SPELLINGS = {"A6AAC": "A6ACC", "A8AAC": "A8ACC", "A10AAC": "A10ACC"}


@lru_cache(maxsize=None)
def mnemonics(chip: Chip) -> dict[str, Op]:
    """Return the chip's instruction forms by mnemonic (on the TMS1000 also by the TI data
    manual's spelling, ``A8AAC`` for MAME's ``A8ACC``)."""
    table = {op.mnemonic: op for op, _ in opcode_map(chip)}
    if chip.chapter_bits == 0:
        for ti, mame in _TMS1000_TI_SPELLINGS.items():
            table[ti] = table[mame]
    return table


_OPERAND_RANGE = {"c4": 16, "x3": 8, "x2": 4, "b2": 4, "a6": 64}


def encode(op: Op, value: int | None = None) -> int:
    """Return the opcode byte for ``op`` with operand ``value``; ValueError when out of range."""
    if not op.operand:
        if value is not None:
            raise ValueError(f"{op.mnemonic} takes no operand")
        return op.opcode
    if value is None:
        raise ValueError(f"{op.mnemonic} needs an operand")
    limit = _OPERAND_RANGE[op.operand]
    if not 0 <= value < limit:
        raise ValueError(f"{op.mnemonic} operand {value} out of range 0-{limit - 1}")
    if op.operand == "c4":
        return op.opcode | bitrev(value, 4)
    if op.operand == "x3":
        return op.opcode | bitrev(value, 3)
    if op.operand in ("x2", "b2"):
        return op.opcode | bitrev(value, 2)
    return op.opcode | value


def decode(chip: Chip, byte: int) -> tuple[Op, int | None]:
    """Return ``(Op, operand value)`` for an opcode byte."""
    return opcode_map(chip)[byte & 0xFF]


def format_operand(op: Op, value: int | None) -> str:
    """Format an operand as MAME's disassembler does (``$3E`` for targets, decimal otherwise)."""
    if value is None:
        return ""
    if op.operand == "a6":
        return f"${value:02X}"
    return str(value)
