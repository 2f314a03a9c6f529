"""Where a debugger run stops, and the keys given to it: breakpoints, watchpoints, conditions,
and the key journal.

A :class:`Point` is a breakpoint (stop *before* the instruction at an address runs) or a
watchpoint (stop *after* an instruction that read or wrote a RAM nibble, read a non-zero K or
changed an R or O pin), with an optional condition over the chip state
(:func:`compile_condition`); the debugger keeps them numbered in a :class:`PointTable`, which
also gives the compiled kernel its watch bitmaps (``FastCpu.set_watch``). A :class:`Stop` says
why a run ended.

The :class:`KeyJournal` holds the keys given at the prompt (not by the script) with the fetch
clock of each, so a re-run from a snapshot presses them again at the same instruction::

    table = PointTable(TMS1400)
    table.add_break((0, 0, 0x22), cond="A == 0")          # breakpoint 1
    table.add_watch_ram("0:8", "write")                   # watchpoint 2
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Callable, Iterable

from emulator.asm import rom_offset
from emulator.chips import Chip
from emulator.machine import NO_BOARD

__all__ = ["DebugError", "Point", "Stop", "PointTable", "KeyJournal", "compile_condition",
           "parse_ram_address", "RAM_KINDS"]

RAM_KINDS = ("read", "write", "access")


class DebugError(ValueError):
    """A debugger command that cannot be done; one line saying what and what was expected."""


@dataclass
class Point:
    """A breakpoint or watchpoint.

    ``kind`` is "break" (``addr`` = (chapter, page, pc)), "ram" (``ram`` = RAM addresses
    ``X<<4 | Y``, ``mode`` read/write/access), "k" (a K read returning non-zero), "r" or "o"
    (``pins`` = bit mask of the pins watched). ``cond`` is the condition text (None: always),
    ``hits`` how often it stopped the machine.
    """
    number: int
    kind: str
    addr: tuple[int, int, int] | None = None
    ram: frozenset = frozenset()
    mode: str = "write"
    pins: int = 0
    cond: str | None = None
    enabled: bool = True
    temporary: bool = False
    hits: int = 0
    _test: Callable[[dict], bool] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.cond is not None and self._test is None:
            self._test = compile_condition(self.cond)

    def matches(self, hit: dict) -> bool:
        """Return True when ``hit`` (a recorded instruction) stops at this point."""
        kind = hit["kind"]
        if self.kind == "break":
            if kind != "pc" or hit["where"] != rom_offset(*self.addr):
                return False
        elif self.kind == "ram":
            if kind == "ram_read":
                if self.mode == "write" or hit["where"] not in self.ram:
                    return False
            elif kind == "ram_write":
                if self.mode == "read" or hit["where"] not in self.ram:
                    return False
            else:
                return False
        elif self.kind == "k":
            if kind != "k":
                return False
        elif self.kind in ("r", "o"):
            if kind != self.kind or not hit["where"] & self.pins:
                return False
        return self._test is None or bool(self._test(hit))


@dataclass
class Stop:
    """Why a run ended: ``reason`` (``breakpoint 2``, ``watchpoint 3``, ``step``, ``time``,
    ``interrupted``, ``start of history``...), the ``point`` that stopped it (None for the
    others), the ``cycle`` and, for a watchpoint, what it saw (``detail``)."""
    reason: str
    cycle: int
    point: Point | None = None
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.reason}{': ' + self.detail if self.detail else ''}"


# ---- conditions ---------------------------------------------------------------------------------

_COND_NAMES = ("A", "X", "Y", "S", "SL", "PA", "PB", "CA", "CB", "CL", "PC", "R", "O", "M",
               "DEPTH", "CYCLE", "N", "VALUE", "WHERE")
_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
           ast.Mult: lambda a, b: a * b, ast.BitAnd: lambda a, b: a & b,
           ast.BitOr: lambda a, b: a | b, ast.BitXor: lambda a, b: a ^ b,
           ast.LShift: lambda a, b: a << b, ast.RShift: lambda a, b: a >> b,
           ast.Mod: lambda a, b: a % b, ast.FloorDiv: lambda a, b: a // b}
_CMPOPS = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
           ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
           ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b}


def compile_condition(text: str) -> Callable[[dict], bool]:
    """Return a test of a hit for condition ``text`` (Python syntax over the chip state).

    Names (any case): A X Y S (status) SL PA PB CA CB CL PC (the next instruction's pc) R O
    M (the RAM nibble at X:Y) DEPTH (subroutine levels) CYCLE N (instructions since reset)
    VALUE (a watched nibble's value now) WHERE (the hit's RAM address, K value or changed
    pins); ``ram[0x08]`` or ``ram[0, 8]`` (X, Y) for any nibble. Operators: arithmetic, bit
    operations, comparisons, ``and``/``or``/``not``. DebugError says what is not allowed.
    """
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        raise DebugError(f"condition {text!r}: not an expression (expected e.g. 'A == 3' or "
                         f"'ram[0x08] == 2')") from None
    return _build(tree, text)


def _build(node, text: str) -> Callable[[dict], object]:
    """Return the test of one node of condition ``text``'s syntax tree."""
    if isinstance(node, ast.Expression):
        return _build(node.body, text)
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        v = node.value
        return lambda h: v
    if isinstance(node, ast.Name):
        name = node.id.upper()
        if name not in _COND_NAMES:
            raise DebugError(f"condition {text!r}: unknown name {node.id!r} (expected one "
                             f"of {' '.join(_COND_NAMES)}, or ram[...])")
        key = name.lower()
        return lambda h: h[key]
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
            and node.value.id.lower() == "ram":
        index = node.slice
        if isinstance(index, ast.Tuple) and len(index.elts) == 2:
            fx, fy = _build(index.elts[0], text), _build(index.elts[1], text)
            return lambda h: h["ram"][(fx(h) << 4 | fy(h)) & 0x7F]
        fi = _build(index, text)
        return lambda h: h["ram"][fi(h) & 0x7F]
    if isinstance(node, ast.BoolOp):
        parts = [_build(v, text) for v in node.values]
        if isinstance(node.op, ast.And):
            return lambda h: all(p(h) for p in parts)
        return lambda h: any(p(h) for p in parts)
    if isinstance(node, ast.UnaryOp):
        inner = _build(node.operand, text)
        if isinstance(node.op, ast.Not):
            return lambda h: not inner(h)
        if isinstance(node.op, ast.USub):
            return lambda h: -inner(h)
        if isinstance(node.op, ast.Invert):
            return lambda h: ~inner(h)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        fn, left, right = _BINOPS[type(node.op)], _build(node.left, text), \
            _build(node.right, text)
        return lambda h: fn(left(h), right(h))
    if isinstance(node, ast.Compare):
        first = _build(node.left, text)
        rest = [(_CMPOPS.get(type(op)), _build(c, text))
                for op, c in zip(node.ops, node.comparators)]
        if all(fn is not None for fn, _ in rest):
            def compare(h):
                value = first(h)
                for fn, right in rest:
                    other = right(h)
                    if not fn(value, other):
                        return False
                    value = other
                return True
            return compare
    raise DebugError(f"condition {text!r}: {type(node).__name__} is not allowed (expected "
                     f"names, numbers, ram[...], arithmetic, comparisons, and/or/not)")


def parse_ram_address(text: str, ram_size: int = 128) -> list[int]:
    """Return the RAM addresses ``X<<4 | Y`` of ``X:Y`` (hex), a hex byte (``08``) or a range
    of either (``0:0-0:F``, ``00-0F``); DebugError when it is none or outside the chip's RAM."""
    def one(part: str) -> int:
        part = part.strip()
        try:
            if ":" in part:
                x, y = part.split(":")
                value = int(x, 16) << 4 | int(y, 16)
                if int(y, 16) > 15:
                    raise ValueError
            else:
                value = int(part, 16)
        except ValueError:
            raise DebugError(f"RAM address {text!r} (expected X:Y in hex such as 0:8, a hex "
                             f"address such as 08, or a range 0:0-0:F)") from None
        if not 0 <= value < ram_size:
            raise DebugError(f"RAM address {text!r} is outside the {ram_size}-nibble RAM")
        return value

    if "-" in text:
        low, high = text.split("-", 1)
        a, b = one(low), one(high)
        if b < a:
            raise DebugError(f"RAM range {text!r} ends before it starts")
        return list(range(a, b + 1))
    return [one(text)]


# ---- the numbered points ------------------------------------------------------------------------


class PointTable(dict):
    """The breakpoints and watchpoints of one chip, by number (a dict ``number -> Point``);
    numbers are given in order and never reused."""

    def __init__(self, chip: Chip) -> None:
        super().__init__()
        self.chip = chip
        self._next_number = 1

    def _add(self, kind: str, **fields) -> Point:
        point = Point(self._next_number, kind, **fields)
        self._next_number += 1
        self[point.number] = point
        return point

    def add_break(self, addr: tuple[int, int, int], cond: str | None = None,
                  temporary: bool = False) -> Point:
        """Add a breakpoint at ``addr`` = (chapter, page, pc)."""
        return self._add("break", addr=tuple(addr), cond=cond, temporary=temporary)

    def add_watch_ram(self, where: str | int | Iterable[int], mode: str = "write",
                      cond: str | None = None) -> Point:
        """Add a watchpoint on RAM nibbles (``X:Y``, hex address, range, or addresses) for
        ``mode`` read, write or access."""
        if mode not in RAM_KINDS:
            raise DebugError(f"watch mode {mode!r} (expected one of {', '.join(RAM_KINDS)})")
        size = self.chip.ram_size
        if isinstance(where, str):
            addrs = parse_ram_address(where, size)
        elif isinstance(where, int):
            addrs = [where]
        else:
            addrs = list(where)
        for a in addrs:
            if not 0 <= a < size:
                raise DebugError(f"RAM address {a:#x} is outside the {size}-nibble RAM")
        return self._add("ram", ram=frozenset(addrs), mode=mode, cond=cond)

    def add_watch_pins(self, bank: str, pins: Iterable[int] | None = None,
                       cond: str | None = None) -> Point:
        """Add a watchpoint on a change of R pins or O pins (``bank`` "r" or "o"; ``pins``
        None = any of them)."""
        bank = bank.lower()
        count = {"r": self.chip.r_count, "o": self.chip.o_count}.get(bank)
        if count is None:
            raise DebugError(f"pin bank {bank!r} (expected r or o)")
        mask = 0
        for p in (range(count) if pins is None else pins):
            if not 0 <= p < count:
                raise DebugError(f"pin {bank.upper()}{p} (expected {bank.upper()}0-"
                                 f"{bank.upper()}{count - 1})")
            mask |= 1 << p
        return self._add(bank, pins=mask, cond=cond)

    def add_watch_k(self, cond: str | None = None) -> Point:
        """Add a watchpoint on a K read (TKA, KNEZ, ...) that returns non-zero."""
        return self._add("k", cond=cond)

    def delete(self, number: int | None = None) -> None:
        """Delete point ``number`` (None: all of them)."""
        if number is None:
            self.clear()
        elif self.pop(number, None) is None:
            raise DebugError(f"no breakpoint or watchpoint {number}")

    def enable(self, number: int, on: bool = True) -> None:
        """Enable (or disable) point ``number``."""
        if number not in self:
            raise DebugError(f"no breakpoint or watchpoint {number}")
        self[number].enabled = on

    def active(self, extra: Iterable[Point] = ()) -> list[Point]:
        """Return the enabled points, then ``extra`` (the temporary points of a command)."""
        return [p for p in self.values() if p.enabled] + list(extra)

    def watch_args(self, points: list[Point]) -> tuple:
        """Return ``FastCpu.set_watch``'s arguments for ``points``: the ROM bitmap of the
        breakpoints, the RAM read and write bitmaps, K, the R and O pin masks."""
        brk = bytearray(512)
        read = bytearray(16)
        write = bytearray(16)
        k = False
        rmask = omask = 0
        for p in points:
            if p.kind == "break":
                a = rom_offset(*p.addr) % self.chip.rom_size
                brk[a >> 3] |= 1 << (a & 7)
            elif p.kind == "ram":
                for a in p.ram:
                    if p.mode in ("read", "access"):
                        read[a >> 3] |= 1 << (a & 7)
                    if p.mode in ("write", "access"):
                        write[a >> 3] |= 1 << (a & 7)
            elif p.kind == "k":
                k = True
            elif p.kind == "r":
                rmask |= p.pins
            elif p.kind == "o":
                omask |= p.pins
        return bytes(brk), bytes(read), bytes(write), k, rmask, omask


# ---- the keys given at the prompt ---------------------------------------------------------------


class KeyJournal:
    """The keys given to the debugger, each ``(cycle, "press"/"release"/"schedule", key, hold
    s, at s)`` with the fetch clock it was given at; ``pos`` entries are applied to the board
    (a snapshot keeps ``pos``, so restoring one and running on presses them again)."""

    def __init__(self, board, board_name: str, clock_hz: int) -> None:
        self.board = board
        self.board_name = board_name
        self.clock_hz = clock_hz
        self.entries: list[tuple] = []
        self.pos = 0

    def check_key(self, button: str) -> None:
        """Refuse a key the board does not have (DebugError naming the keys it has)."""
        from emulator.boards import board_keys
        if self.board_name == NO_BOARD:
            raise DebugError("no board: the chip has no keys (K reads 0); give --board")
        keys = board_keys(self.board_name)
        if button not in keys:
            raise DebugError(f"unknown button {button!r} (expected one of {', '.join(keys)})")

    def add(self, cycle: int, action: str, button: str | None, hold: float | None,
            at: float | None = None) -> None:
        """Add an entry given at ``cycle`` (now) after the applied ones, dropping any later."""
        del self.entries[self.pos:]
        self.entries.append((cycle, action, button, hold, at))

    def next_cycle(self) -> int | None:
        """Return the clock of the first entry not applied yet (None: none)."""
        return self.entries[self.pos][0] if self.pos < len(self.entries) else None

    def apply(self, now: int) -> None:
        """Apply the entries due at or before clock ``now``."""
        entries = self.entries
        while self.pos < len(entries) and entries[self.pos][0] <= now:
            self._apply_entry(entries[self.pos])
            self.pos += 1

    def _apply_entry(self, entry: tuple) -> None:
        cycle, action, button, hold, at = entry
        board = self.board
        if action == "schedule":
            from captures.script import Press, Script
            board.schedule(Script(name="press_at", actions=[Press(at, button, hold)]))
        elif action == "press":
            board.press(button)
            if hold is not None:
                board.release(button, cycle + round(hold * self.clock_hz))
        else:
            for b in sorted(board.pressed) if button is None else [button]:
                board.release(b)

    def applied(self) -> list[tuple]:
        """Return the entries applied so far."""
        return self.entries[: self.pos]

    def replace(self, entries: Iterable[tuple]) -> None:
        """Take ``entries`` as the journal, all applied (a loaded state)."""
        self.entries = [tuple(e) for e in entries]
        self.pos = len(self.entries)
