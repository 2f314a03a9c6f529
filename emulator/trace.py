"""Format the canonical instruction trace: one line per instruction, the state *before* it.

Line format (every number hexadecimal, upper case)::

    n cycle c:p:pc op A=a X=x Y=y S=s SL=l PB=pb CB=cb R=rrrr O=oo
    0 5 0:F:00 0C A=0 X=0 Y=0 S=1 SL=0 PB=F CB=0 R=0000 O=00

``n`` is the instruction number since reset, ``cycle`` the oscillator clock of its fetch
(``6n + 5`` as in MAME, ``docs/mame-oracle.md`` §6), ``c:p:pc`` chapter, page and PC as MAME's
debugger prints them, ``op`` the opcode, ``S`` STATUS, ``SL`` the status latch, ``R`` the R0-R10
pins (without the latch's hidden bits 11-15), ``O`` the O pins the output PLA gives.

The same records can be written as fixed-size binary records (docs/trace-format.md: a
24-byte header, then 32 bytes per instruction); ``read_binary_trace`` reads them back and
``binary_trace_lines`` gives the text lines, byte for byte. ``TraceFilter`` keeps a subset of
the instructions (a ROM address range, an opcode range, pin changes only), the same on either
core (the compiled kernel filters in C, tests/fastcore/test_trace_output.py).

Example::

    >>> flt = TraceFilter.parse(["page=0:F", "op=08-0F"])
    >>> (flt.addr_lo, flt.addr_hi, flt.op_lo, flt.op_hi, flt.pins_only)
    (960, 1023, 8, 15, False)
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import IO, Iterable, Iterator

import numpy as np
from construct import Const, ConstructError, Int16ul, Int32ul, PaddedString, Struct

from emulator.core import Cpu

__all__ = ["format_line", "format_state", "trace_lines", "TraceFilter", "TraceError",
           "TRACE_HEADER", "TRACE_RECORD", "TRACE_MAGIC", "TRACE_VERSION", "trace_records",
           "trace_chunks", "write_binary_header", "read_binary_trace", "binary_trace_lines",
           "record_line"]


class TraceError(ValueError):
    """A trace filter or binary trace file that cannot be used."""


def format_line(n: int, cycle: int, chapter: int, page: int, pc: int, op: int, a: int, x: int,
                y: int, status: int, sl: int, pb: int, cb: int, r: int, o: int) -> str:
    """Return the canonical line from raw values (``r`` = the R pins, ``o`` = the O pins).

    The one place the layout is written in Python: the reference core and the MAME oracle
    format through it; the compiled kernel's C formatter (emulator/_fastcore.c, format_text)
    is checked against it (tests/fastcore/test_trace_output.py).
    """
    return (f"{n:X} {cycle:X} {chapter:X}:{page:X}:{pc:02X} {op:02X} A={a:X} X={x:X} Y={y:X} "
            f"S={status:X} SL={sl:X} PB={pb:X} CB={cb:X} R={r:04X} O={o:02X}")


def _state_record(cpu: Cpu, n: int) -> tuple:
    """Return ``(n, cycle, r, chapter, page, pc, op, a, x, y, s, sl, pb, cb, o)`` of ``cpu``."""
    op = cpu.rom[cpu.ca << 10 | cpu.pa << 6 | cpu.pc]
    r_pins = cpu.r & ((1 << cpu.chip.r_count) - 1)
    return (n, cpu.cycle, r_pins, cpu.ca, cpu.pa, cpu.pc, op, cpu.a, cpu.x, cpu.y, cpu.status,
            cpu.sl, cpu.pb, cpu.cb, cpu.o)


def record_line(rec: tuple) -> str:
    """Return the canonical line of one record (the field order of ``TRACE_RECORD``)."""
    n, cycle, r, ca, pa, pc, op, a, x, y, s, sl, pb, cb, o = rec
    return format_line(n, cycle, ca, pa, pc, op, a, x, y, s, sl, pb, cb, r, o)


def format_state(cpu: Cpu, n: int) -> str:
    """Return the trace line of ``cpu``'s state before its next instruction, numbered ``n``."""
    return record_line(_state_record(cpu, n))


def trace_lines(cpu: Cpu, steps: int) -> Iterator[str]:
    """Yield ``steps`` trace lines, executing one instruction after each (numbering from 0)."""
    for n in range(steps):
        yield format_state(cpu, n)
        cpu.step()


def trace_records(cpu, steps: int) -> Iterator[tuple]:
    """Yield ``steps`` records (``TRACE_RECORD`` fields), stepping ``cpu`` one instruction at a
    time (either core; a board attached to it sees every pin change)."""
    for n in range(steps):
        yield _state_record(cpu, n)
        cpu.step()


# ---- filter ---------------------------------------------------------------------------------

_ADDR = re.compile(r"([0-9A-Fa-f]):([0-9A-Fa-f]):([0-9A-Fa-f]{1,2})")
_HEX = re.compile(r"[0-9A-Fa-f]{1,2}")


@dataclass(frozen=True)
class TraceFilter:
    """Which instructions a trace keeps: all conditions hold (an empty filter keeps all).

    ``addr_lo``..``addr_hi`` bound the ROM address ``CA<<10 | PA<<6 | PC`` (PC as the trace
    prints it), ``op_lo``..``op_hi`` the opcode; ``pins_only`` keeps an instruction only when
    its R or O pins differ from those of the instruction before it (the first instruction of a
    trace counts as a change), i.e. the first line after each pin change.
    """
    addr_lo: int = 0
    addr_hi: int = 0xFFF
    op_lo: int = 0
    op_hi: int = 0xFF
    pins_only: bool = False

    @classmethod
    def parse(cls, terms: Iterable[str]) -> "TraceFilter":
        """Build a filter from ``--filter`` terms, each one of ``pc=C:P:PC[-C:P:PC]``,
        ``page=C:P``, ``chapter=C``, ``op=HH[-HH]`` or ``pins`` (hexadecimal); several terms
        must all hold."""
        lo, hi, op_lo, op_hi, pins = 0, 0xFFF, 0, 0xFF, False
        for term in terms:
            key, _, value = term.partition("=")
            key = key.strip().lower()
            value = value.strip()
            if key == "pins" and not value:
                pins = True
                continue
            if key == "pc":
                a, b = _range(value, _addr, term, "C:P:PC or C:P:PC-C:P:PC")
            elif key == "page":
                m = re.fullmatch(r"([0-9A-Fa-f]):([0-9A-Fa-f])", value)
                if not m:
                    raise TraceError(f"--filter {term!r}: expected page=C:P (hex chapter and "
                                     f"page, e.g. page=0:F)")
                a = int(m.group(1), 16) << 10 | int(m.group(2), 16) << 6
                b = a | 0x3F
            elif key == "chapter":
                if not re.fullmatch(r"[0-3]", value):
                    raise TraceError(f"--filter {term!r}: expected chapter=C with C 0-3")
                a = int(value) << 10
                b = a | 0x3FF
            elif key == "op":
                op_a, op_b = _range(value, _op, term, "HH or HH-HH (hex opcodes)")
                op_lo, op_hi = max(op_lo, op_a), min(op_hi, op_b)
                continue
            else:
                raise TraceError(f"--filter {term!r}: unknown filter (expected pc=, page=, "
                                 f"chapter=, op= or pins)")
            lo, hi = max(lo, a), min(hi, b)
        return cls(lo, hi, op_lo, op_hi, pins)

    def astuple(self) -> tuple[int, int, int, int, bool]:
        """Return the filter as the kernel takes it."""
        return self.addr_lo, self.addr_hi, self.op_lo, self.op_hi, self.pins_only

    def select(self, records: Iterable[tuple]) -> Iterator[tuple]:
        """Yield the records this filter keeps (``TRACE_RECORD`` field order)."""
        prev = None
        for rec in records:
            pins = (rec[2], rec[14])
            changed = pins != prev
            prev = pins
            addr = rec[3] << 10 | rec[4] << 6 | rec[5]
            if not (self.addr_lo <= addr <= self.addr_hi and self.op_lo <= rec[6] <= self.op_hi):
                continue
            if self.pins_only and not changed:
                continue
            yield rec


def _addr(text: str, term: str, expected: str) -> int:
    m = _ADDR.fullmatch(text.strip())
    if not m or int(m.group(3), 16) > 0x3F or int(m.group(1), 16) > 3:
        raise TraceError(f"--filter {term!r}: {text!r} is not a ROM address (expected "
                         f"{expected}: chapter 0-3, page 0-F, pc 00-3F, hex)")
    return int(m.group(1), 16) << 10 | int(m.group(2), 16) << 6 | int(m.group(3), 16)


def _op(text: str, term: str, expected: str) -> int:
    if not _HEX.fullmatch(text.strip()):
        raise TraceError(f"--filter {term!r}: {text!r} is not an opcode (expected {expected})")
    return int(text, 16)


def _range(value: str, parse, term: str, expected: str) -> tuple[int, int]:
    a, sep, b = value.partition("-")
    lo = parse(a, term, expected)
    hi = parse(b, term, expected) if sep else lo
    if hi < lo:
        raise TraceError(f"--filter {term!r}: the range ends before it starts")
    return lo, hi


# ---- binary records (docs/trace-format.md) ---------------------------------------------------

TRACE_MAGIC = b"TLTRACE\0"
TRACE_VERSION = 1

# The 24-byte header: magic, version, record size, the chip's name, and flags (bit 0: filtered).
TRACE_HEADER = Struct(
    "magic" / Const(TRACE_MAGIC),
    "version" / Const(TRACE_VERSION, Int16ul),
    "record_size" / Const(32, Int16ul),
    "chip" / PaddedString(8, "ascii"),
    "flags" / Int32ul,
)

# One record per instruction, little-endian, 32 bytes: the fields of the text line.
TRACE_RECORD = np.dtype([
    ("n", "<u8"), ("cycle", "<u8"), ("r", "<u2"), ("chapter", "u1"), ("page", "u1"),
    ("pc", "u1"), ("op", "u1"), ("a", "u1"), ("x", "u1"), ("y", "u1"), ("s", "u1"),
    ("sl", "u1"), ("pb", "u1"), ("cb", "u1"), ("o", "u1"), ("pad", "V2"),
])
assert TRACE_RECORD.itemsize == 32


def write_binary_header(f: IO[bytes], chip_name: str, filtered: bool) -> None:
    """Write the binary trace header for ``chip_name`` ("tms1400", ...)."""
    f.write(TRACE_HEADER.build({"chip": chip_name, "flags": 1 if filtered else 0}))


def _pack(records: list[tuple]) -> bytes:
    arr = np.zeros(len(records), TRACE_RECORD)
    if records:
        cols = list(zip(*records))
        for name, col in zip(TRACE_RECORD.names[:15], cols):
            arr[name] = col
    return arr.tobytes()


def trace_chunks(records: Iterable[tuple], binary: bool, flt: TraceFilter | None = None,
                 chunk: int = 4096) -> Iterator[bytes]:
    """Yield the trace of ``records`` as bytes: text lines (UTF-8, ``\\n``) or binary records
    (without the header), keeping what ``flt`` keeps."""
    if flt is not None:
        records = flt.select(records)
    block: list[tuple] = []
    for rec in records:
        block.append(rec)
        if len(block) >= chunk:
            yield _pack(block) if binary else _text(block)
            block = []
    if block:
        yield _pack(block) if binary else _text(block)


def _text(block: list[tuple]) -> bytes:
    return "".join(record_line(r) + "\n" for r in block).encode()


def read_binary_trace(f: IO[bytes], name: str = "trace") -> tuple[dict, Iterator[np.ndarray]]:
    """Read a binary trace: return its header (``chip``, ``filtered``) and an iterator over
    blocks of records (numpy arrays of ``TRACE_RECORD``)."""
    head = f.read(TRACE_HEADER.sizeof())
    try:
        hdr = TRACE_HEADER.parse(head)
    except ConstructError:
        raise TraceError(f"{name}: not a TowerLab binary trace version {TRACE_VERSION} (expected "
                         f"a {TRACE_HEADER.sizeof()}-byte header starting {TRACE_MAGIC!r}, "
                         f"docs/trace-format.md)") from None
    info = {"chip": hdr.chip, "filtered": bool(hdr.flags & 1)}

    def blocks() -> Iterator[np.ndarray]:
        size = TRACE_RECORD.itemsize
        offset = TRACE_HEADER.sizeof()
        while True:
            data = f.read(size * 65536)
            if not data:
                return
            if len(data) % size:
                raise TraceError(f"{name}: ends inside a record (byte {offset + len(data)}, "
                                 f"records are {size} bytes)")
            offset += len(data)
            yield np.frombuffer(data, TRACE_RECORD)

    return info, blocks()


def binary_trace_lines(f: IO[bytes], name: str = "trace") -> Iterator[str]:
    """Yield the canonical text line of every record of a binary trace."""
    _, blocks = read_binary_trace(f, name)
    fields = TRACE_RECORD.names[:15]
    for block in blocks:
        for rec in zip(*(block[k].tolist() for k in fields)):
            yield record_line(rec)
