"""Read and write symbol files: one ``ADDR NAME`` line per code label, for the debugger and
the disassembler.

``ADDR`` is ``chapter:page:pc`` in hexadecimal, as MAME's debugger and our listings print it
(``0:F:00``); on chips without chapters ``page:pc`` is accepted too. ``NAME`` is any word
without blanks. Blank lines and everything after ``;`` or ``#`` are ignored. The assembler
writes one for any program (``towerlab asm SRC -o ROM --symbols FILE``)::

    ; symbols of demo.asm
    0:F:00 reset
    0:0:00 show
    0:8:2A readk

Example::

    syms = read_symbols("demo.sym")
    syms.address("show")        # (0, 0, 0x00)
    syms.describe((0, 0, 0x01)) # 'show+1' (one instruction later in LFSR order)
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import IO, Iterable

from emulator.asm import PC_ORDER, format_address

__all__ = ["Symbols", "SymbolError", "read_symbols", "parse_symbols", "write_symbols",
           "parse_address"]

Address = tuple[int, int, int]          # chapter, page, pc (the raw 6-bit LFSR value)

_PC_INDEX = {pc: i for i, pc in enumerate(PC_ORDER)}
_ADDR_RE = re.compile(r"^(?:([0-3]):)?([0-9A-Fa-f]):([0-9A-Fa-f]{1,2})$")


class SymbolError(ValueError):
    """A symbol file or address that cannot be used; one line naming it and what was expected."""


def parse_address(text: str, chapters: int = 4) -> Address | None:
    """Return ``(chapter, page, pc)`` for ``c:p:pc`` (or ``p:pc``) hex text, None if not one.

    Raises SymbolError when it has the form but a chapter the chip does not have, or a pc
    above 3F.
    """
    m = _ADDR_RE.match(text.strip())
    if not m:
        return None
    chapter = int(m.group(1) or "0")
    page, pc = int(m.group(2), 16), int(m.group(3), 16)
    if chapter >= chapters:
        raise SymbolError(f"address {text!r}: chapter {chapter} (expected 0-{chapters - 1} "
                          f"on this chip)")
    if pc > 0x3F:
        raise SymbolError(f"address {text!r}: pc {pc:02X} (expected 00-3F)")
    return chapter, page, pc


@dataclass
class Symbols:
    """Code labels both ways: ``names`` maps name -> address, ``labels`` address -> name."""
    names: dict[str, Address] = field(default_factory=dict)
    labels: dict[Address, str] = field(default_factory=dict)

    @classmethod
    def from_program(cls, symbols: dict) -> "Symbols":
        """Return the labels of an assembled program (``emulator.asm.Program.symbols``)."""
        out = cls()
        for name, addr in sorted(symbols.items(), key=lambda kv: (kv[1], kv[0])):
            out.add(name, tuple(addr))
        return out

    def add(self, name: str, addr: Address) -> None:
        """Add label ``name`` at ``addr`` (the first name given to an address labels it)."""
        self.names[name] = addr
        self.labels.setdefault(addr, name)

    def address(self, name: str) -> Address | None:
        """Return the address of ``name`` (None when unknown)."""
        return self.names.get(name)

    def describe(self, addr: Address) -> str:
        """Return ``label`` or ``label+n`` (n instructions later in the page's LFSR order) for
        ``addr``, or '' when no label precedes it on its page."""
        chapter, page, pc = addr
        index = _PC_INDEX[pc]
        for back in range(index + 1):
            name = self.labels.get((chapter, page, PC_ORDER[index - back]))
            if name is not None:
                return name if back == 0 else f"{name}+{back}"
        return ""

    def __len__(self) -> int:
        return len(self.names)


def parse_symbols(text: str, name: str = "<symbols>", chapters: int = 4) -> Symbols:
    """Return the symbols of a symbol file's text (``name`` is used in errors)."""
    out = Symbols()
    for number, line in enumerate(text.splitlines(), 1):
        line = re.split(r"[;#]", line, maxsplit=1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2:
            raise SymbolError(f"{name}:{number}: {line!r} (expected 'ADDR NAME', e.g. "
                              f"'0:F:00 reset')")
        try:
            addr = parse_address(parts[0], chapters)
        except SymbolError as exc:
            raise SymbolError(f"{name}:{number}: {exc}") from None
        if addr is None:
            raise SymbolError(f"{name}:{number}: address {parts[0]!r} (expected "
                              f"chapter:page:pc in hex, e.g. 0:F:00)")
        out.add(parts[1], addr)
    return out


def read_symbols(path: str | os.PathLike, chapters: int = 4) -> Symbols:
    """Read a symbol file; SymbolError names the file (and line) when it cannot be used."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read(1 << 20)
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise SymbolError(f"{path}: cannot read the symbol file ({reason})") from None
    return parse_symbols(text, str(path), chapters)


def write_symbols(symbols: Symbols | dict, fileobj: IO[str], title: str = "") -> None:
    """Write ``ADDR NAME`` lines (address order); ``symbols`` may be a Program's dict."""
    if isinstance(symbols, dict):
        symbols = Symbols.from_program(symbols)
    if title:
        fileobj.write(f"; {title}\n")
    rows: Iterable = sorted(symbols.names.items(), key=lambda kv: (kv[1][0], kv[1][1],
                                                                    _PC_INDEX[kv[1][2]], kv[0]))
    for name, addr in rows:
        fileobj.write(f"{format_address(*addr)} {name}\n")
