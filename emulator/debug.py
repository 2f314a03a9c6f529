"""Debug a ROM on a board: breakpoints, watchpoints, stepping, and stepping backwards in time.

A :class:`Debugger` holds one chip (either core) on one board (Dark Tower, Labyrinth, or none
for a chip alone) and moves it forwards and backwards. Every command of ``towerlab debug`` is
a method here, so a study can be a script or a test::

    dbg = Debugger(firmware="demo")                     # labels come with the demo firmware
    stop = dbg.break_at("shnew").press_at(3.0, "YES/BUY", 0.2).run(seconds=30)
    stop.reason, dbg.describe(dbg.address)              # ('breakpoint 1', '0:0:22 shnew')
    dbg.reverse_step()                                  # the instruction before, exactly
    dbg.describe(dbg.address)                           # '0:0:08 sd2+24'


How it works (and what it costs):

- **Time is the position.** One instruction is 6 clocks (``emulator.core``), so the fetch
  clock ``cycle`` names every point of a run. The machine is deterministic: the same start
  and the same inputs (script keys, and the ``press``/``release`` journal this debugger keeps
  with the cycle of each) give the same run on either core.
- **Snapshots** of chip and board are kept every ``snapshot_every`` instructions (and at every
  key given at the prompt). Going to any earlier cycle restores the snapshot before it and runs
  forward to it: ``reverse-step`` and ``reverse-continue`` are a re-run.
- **Running** with nothing to stop at is ``board.run_until``: the compiled kernel at its own
  speed (``benchmarks/debug_speed.py`` measures the ratio). With breakpoints or watchpoints
  the kernel records matching instructions while it runs at full speed (``FastCpu.set_watch``:
  a bitmap test per instruction); the debugger evaluates the conditions on those records and
  re-runs from the segment's snapshot to the first hit that stops. On the reference core, and
  while tracing, it steps one instruction at a time and checks in Python instead; both find
  the same stops (``tests/emulator/test_debug.py``).

Stops: a breakpoint stops *before* the instruction at its address runs; a watchpoint stops
*after* the instruction that read or wrote the RAM nibble, read a non-zero K or changed the
pin. A K read is an instruction whose micro-ops take K from the CKI bus (TKA, KNEZ; the other
opcodes 0x08-0x0F sample K too, as ``emulator.core`` models, but use none of it). A RAM read is
an instruction whose adder takes the nibble (micro-ops MTP or MTN: TMA, XMA, TBIT, ...) or
SBIT/RBIT; a write any store to it (STO, CKM, SBIT, RBIT), even of the value it held.
"""
from __future__ import annotations

import ast
import bisect
import copy
import gzip
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Callable, Iterable

from emulator.asm import PC_ORDER, format_address, rom_offset
from emulator.boards import DEMO_SOURCE
from emulator.chips import Chip
from emulator.core import LFSR_NEXT
from emulator.darktower import DarkTowerBoard
from emulator.decode import MICRO_BIT, fixed_table, micro_table
from emulator.disasm import instruction_text
from emulator.fastcore import hit_dict
from emulator.opcodes import decode as decode_op
from emulator.symbols import SymbolError, Symbols, parse_address, read_symbols
from emulator.trace import format_line

__all__ = ["Debugger", "DebugError", "Stop", "Point", "BareChip", "DEMO_SOURCE", "demo_program",
           "parse_ram_address", "compile_condition", "RAM_KINDS", "NO_BOARD"]

_PREV_PC = {nxt: pc for pc, nxt in enumerate(LFSR_NEXT)}     # raw post-fetch pc -> pc
_PC_INDEX = {pc: i for i, pc in enumerate(PC_ORDER)}
_LOGS = ("pins", "speaker", "events")      # append-only board logs: kept by length
_SKIP = ("cpu", "_listeners", "_error")    # board attributes a snapshot does not copy
# Attributes a snapshot reaches through another name: the Dark Tower board keeps its pin log
# behind the ``pins`` property (the kernel's records wait as blocks until it is read).
_STORED_AS = {"_pins": "pins", "_pin_blocks": None}
_STATE_FORMAT = "towerlab-debug-state"
_STATE_VERSION = 1

RAM_KINDS = ("read", "write", "access")
NO_BOARD = "none"          # the chip alone: K = 0 (BareChip)

_READ_MICRO = MICRO_BIT["MTP"] | MICRO_BIT["MTN"]
_WRITE_MICRO = MICRO_BIT["STO"] | MICRO_BIT["CKM"]
_CKI_MICRO = MICRO_BIT["CKP"] | MICRO_BIT["CKN"] | MICRO_BIT["CKM"]


class DebugError(ValueError):
    """A debugger command that cannot be done; one line saying what and what was expected."""


def demo_program():
    """Return the open demo firmware (``emulator/firmware/demo.asm``) assembled, labels
    included (``emulator.boards.demo_program``)."""
    from emulator.boards import demo_program as board_demo

    return board_demo("darktower")


# ---- stop points ------------------------------------------------------------------------------


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


@dataclass
class _Snapshot:
    cycle: int
    journal: int            # journal entries applied
    cpu: dict
    board: dict


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

    def build(node):
        if isinstance(node, ast.Expression):
            return build(node.body)
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
                fx, fy = build(index.elts[0]), build(index.elts[1])
                return lambda h: h["ram"][(fx(h) << 4 | fy(h)) & 0x7F]
            fi = build(index)
            return lambda h: h["ram"][fi(h) & 0x7F]
        if isinstance(node, ast.BoolOp):
            parts = [build(v) for v in node.values]
            if isinstance(node.op, ast.And):
                return lambda h: all(p(h) for p in parts)
            return lambda h: any(p(h) for p in parts)
        if isinstance(node, ast.UnaryOp):
            inner = build(node.operand)
            if isinstance(node.op, ast.Not):
                return lambda h: not inner(h)
            if isinstance(node.op, ast.USub):
                return lambda h: -inner(h)
            if isinstance(node.op, ast.Invert):
                return lambda h: ~inner(h)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            fn, left, right = _BINOPS[type(node.op)], build(node.left), build(node.right)
            return lambda h: fn(left(h), right(h))
        if isinstance(node, ast.Compare):
            first = build(node.left)
            rest = [(_CMPOPS.get(type(op)), build(c)) for op, c in zip(node.ops,
                                                                         node.comparators)]
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

    return build(tree)


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


# ---- the debugger -------------------------------------------------------------------------------


class Debugger:
    """One chip on one board under a debugger (see the module docstring).

    Exactly one of ``firmware`` ("demo"), ``rom`` (raw image path) or ``romset`` (MAME set zip
    or folder) gives the program, or ``image`` (bytes, with ``chip``). ``board`` defaults to
    the board that carries the chip; ``script`` (a ``captures.script.Script`` or a path) is
    scheduled on it; ``symbols`` is a path or :class:`emulator.symbols.Symbols` (the demo
    firmware brings its own labels). ``core`` is "fast" (compiled kernel, falling back to the
    reference core where it is not built) or "reference".
    """

    def __init__(self, firmware: str | None = None, rom: str | os.PathLike | None = None,
                 romset: str | os.PathLike | None = None, image: bytes | None = None,
                 chip: Chip | None = None, mpla=None, opla=None, board: str | None = None,
                 script=None, symbols=None, core: str = "fast", clock_hz: int | None = None,
                 snapshot_every: int = 1 << 15) -> None:
        from emulator.boards import BOARDS, board_chip, board_for_chip, make_board
        from emulator.boards import demo_program as board_demo
        from emulator.fastcore import make_cpu
        from emulator.mame import machines

        given = [n for n, v in (("firmware", firmware), ("rom", rom), ("romset", romset),
                                ("image", image)) if v is not None]
        if len(given) != 1:
            raise DebugError("give one program: --firmware demo, --rom FILE or --romset SET"
                             + (f" (not {' and '.join(given)})" if given else ""))
        if board is not None and board not in BOARDS and board != NO_BOARD:
            raise DebugError(f"unknown board {board!r} (expected one of {', '.join(BOARDS)} or "
                             f"{NO_BOARD})")
        if snapshot_every < 1:
            raise DebugError(f"snapshot_every {snapshot_every} must be 1 or more instructions")
        labels = None
        notes: list[str] = []
        if firmware is not None:
            if firmware != "demo":
                raise DebugError(f"unknown firmware {firmware!r} (expected 'demo')")
            demos = [n for n, spec in BOARDS.items() if spec.demo is not None]
            if board is not None and board not in demos:
                raise DebugError(f"the demo firmware is for the {' or '.join(demos)} board, "
                                 f"not {board!r}")
            board = board or demos[0]
            program = board_demo(board)
            chip, image = program.chip, program.rom
            labels = Symbols.from_program(program.symbols)
            self.source = "demo firmware (emulator/firmware/demo.asm)"
        elif image is not None:
            if chip is None:
                raise DebugError("an image needs its chip (tms1000, tms1100 or tms1400)")
            image = bytes(image)
            self.source = "ROM image"
        else:
            from emulator.romset import load_romset

            path = rom if rom is not None else romset
            loaded = load_romset(path, board_chip(board) if board in BOARDS else None)
            chip, image = loaded.chip, loaded.rom
            mpla = mpla if mpla is not None else loaded.mpla
            opla = opla if opla is not None else loaded.opla
            notes = list(loaded.recognised)
            self.source = str(path)
        if board is None:
            board = board_for_chip(chip) or NO_BOARD
        if board != NO_BOARD and board_chip(board) != chip:
            raise DebugError(f"the {board} board carries a {board_chip(board).name.upper()}, "
                             f"not a {chip.name.upper()}")
        mpla, opla = _load_pla(mpla), _load_pla(opla)
        if mpla is None:
            from emulator.decode import standard_micro_pla
            mpla = standard_micro_pla(chip)
        if opla is None:
            if board == NO_BOARD:
                from emulator.decode import ident_output_pla
                opla = ident_output_pla(chip)
            elif BOARDS[board].default_opla is None:
                raise DebugError(f"the {board} board needs its output PLA (a romset with one, "
                                 f"or --opla FILE)")
            else:
                opla = BOARDS[board].default_opla()
        self.notes = notes
        self.chip = chip
        self.rom = image
        self.board_name = board
        try:
            self.cpu = make_cpu(chip, image, mpla, opla, core=core)
        except ValueError as exc:
            raise DebugError(str(exc)) from None
        self.core = self.cpu.core
        if board != NO_BOARD:
            self.board = make_board(board, self.cpu, clock_hz)
        else:       # by default at the clock of the MAME machine with that chip
            clock = clock_hz or next(m.clock_hz for m in machines().values() if m.chip == chip)
            self.board = BareChip(self.cpu, clock)
        self.clock_hz = self.board.clock_hz
        self._fields = _board_fields(self.board)
        if self.core == "reference" and board != NO_BOARD:
            self._board_read_k = self.cpu.read_k
            self.cpu.read_k = self._read_k_recorded
        self._k_seen: int | None = None
        self._micro = micro_table(chip, mpla)
        self._fixed = [f for f, _ in fixed_table(chip)]
        if script is not None:
            if isinstance(script, (str, os.PathLike)):
                from captures.script import read_script
                from emulator.boards import board_keys
                script = read_script(str(script), board_keys(board))
            self.board.schedule(script)
        if isinstance(symbols, (str, os.PathLike)):
            labels = read_symbols(symbols, chip.chapters)
        elif isinstance(symbols, Symbols):
            labels = symbols
        self.symbols = labels or Symbols()
        self.points: dict[int, Point] = {}
        self._next_number = 1
        # keys given here: (cycle, "press"/"release"/"schedule", key, hold s, at s)
        self._journal: list[tuple] = []
        self._jpos = 0
        self._every = int(snapshot_every)
        self._origin = self.cpu.cycle            # fetch clock of instruction 0
        self._snaps: list[_Snapshot] = []
        self._snap_cycles: list[int] = []
        self._trace: IO[str] | None = None
        self._trace_path: str | None = None
        self.interrupt = False                    # set (e.g. by SIGINT) to stop a run
        self.last_stop: Stop | None = None
        self._shown_ram = self.ram()
        self._take_snapshot()

    # ---- where we are ---------------------------------------------------------------------

    @property
    def cycle(self) -> int:
        """Return the fetch clock of the next instruction (oscillator cycles since reset)."""
        return self.cpu.cycle

    @property
    def instructions(self) -> int:
        """Return the number of instructions executed since reset."""
        return (self.cpu.cycle - self._origin) // 6

    @property
    def seconds(self) -> float:
        """Return the tower time in seconds."""
        return self.cpu.cycle / self.clock_hz

    @property
    def address(self) -> tuple[int, int, int]:
        """Return (chapter, page, pc) of the next instruction."""
        s = self.state()
        return s["ca"], s["pa"], s["pc"]

    def state(self) -> dict:
        """Return the chip state before the next instruction, the same on both cores.

        Keys: a x y s (status) sl pa pb ca cb cl pc (the next instruction's) r o o_index cycle
        n (instructions) depth ram (bytes) stack (return addresses, innermost first).
        """
        cpu = self.cpu
        if self.core == "fast":
            return self._normal_fast(cpu.state())
        depth = self._depth(cpu.cl)
        if self.chip.stack_depth == 3:
            stack = [(c, p, pc) for pc, p, c in cpu.stack[:depth]]
        else:
            stack = [(cpu.stack[0][2], cpu.pb, cpu.stack[0][0])] if cpu.cl else []
        return {"a": cpu.a, "x": cpu.x, "y": cpu.y, "s": cpu.status, "status": cpu.status,
                "sl": cpu.sl, "pa": cpu.pa, "pb": cpu.pb, "ca": cpu.ca, "cb": cpu.cb,
                "cl": cpu.cl, "pc": cpu.pc, "r": cpu.r, "o": cpu.o, "o_index": cpu.o_index,
                "cycle": cpu.cycle, "n": (cpu.cycle - self._origin) // 6, "depth": depth,
                "ram": bytes(cpu.ram), "stack": stack,
                "m": cpu.ram[(cpu.x << 4 | cpu.y) & (len(cpu.ram) - 1)],
                "value": cpu.ram[(cpu.x << 4 | cpu.y) & (len(cpu.ram) - 1)], "where": 0}

    def _normal_fast(self, st: dict) -> dict:
        """Return a kernel state dict (or hit record) in :meth:`state`'s form."""
        depth = self._depth(st["cl"])
        sr, ps, cs = st["sr"], st["ps"], st["cs"]
        if self.chip.stack_depth == 3:
            stack = [(cs[i], ps[i], sr[i]) for i in range(depth)]
        else:
            stack = [(cs[0], st["pb"], sr[0])] if st["cl"] else []
        ram = bytes(st["ram"][: self.chip.ram_size])
        out = {k: st[k] for k in ("a", "x", "y", "sl", "pa", "pb", "ca", "cb", "cl", "r", "o",
                                  "o_index", "cycle")}
        out.update(s=st["status"], status=st["status"], pc=_PREV_PC[st["pc"]],
                   n=(st["cycle"] - self._origin) // 6, depth=depth, ram=ram, stack=stack,
                   m=ram[(st["x"] << 4 | st["y"]) & (self.chip.ram_size - 1)])
        if "kind" in st:
            out["kind"], out["where"], out["from"] = st["kind"], st["where"], st["from"]
        return _with_value(out)

    def _depth(self, cl: int) -> int:
        return cl.bit_length() if self.chip.stack_depth == 3 else int(bool(cl))

    def ram(self) -> bytes:
        """Return the RAM nibbles (index ``X<<4 | Y``)."""
        return bytes(self.cpu.ram[: self.chip.ram_size])

    def describe(self, addr: tuple[int, int, int]) -> str:
        """Return ``c:p:pc`` with its label (``0:0:05 show+3``) when the symbols have one."""
        name = self.symbols.describe(addr)
        return f"{format_address(*addr)}{' ' + name if name else ''}"

    def resolve(self, where: str) -> tuple[int, int, int]:
        """Return the address of ``c:p:pc`` hex text or a label (``label+n`` too)."""
        text = where.strip()
        try:
            addr = parse_address(text, self.chip.chapters)
        except SymbolError as exc:
            raise DebugError(str(exc)) from None
        if addr is not None:
            return addr
        name, _, offset = text.partition("+")
        addr = self.symbols.address(name)
        if addr is None:
            known = f" ({len(self.symbols)} labels loaded)" if len(self.symbols) else \
                " (no symbols loaded: give --symbols FILE)"
            raise DebugError(f"address {text!r}: not c:p:pc hex and not a label{known}")
        if offset:
            try:
                n = int(offset, 0)
            except ValueError:
                raise DebugError(f"address {text!r}: offset {offset!r} is not a number") \
                    from None
            index = _PC_INDEX[addr[2]] + n
            if not 0 <= index < 64:
                raise DebugError(f"address {text!r} leaves the page")
            addr = (addr[0], addr[1], PC_ORDER[index])
        return addr

    # ---- breakpoints and watchpoints --------------------------------------------------------

    def _add(self, point: Point) -> Point:
        if point.cond is not None:
            point._test = compile_condition(point.cond)
        self.points[point.number] = point
        return point

    def _number(self) -> int:
        n = self._next_number
        self._next_number += 1
        return n

    def add_break(self, where: str | tuple, cond: str | None = None,
                  temporary: bool = False) -> Point:
        """Add a breakpoint at a label or ``c:p:pc`` (``cond``: stop only when true)."""
        addr = self.resolve(where) if isinstance(where, str) else tuple(where)
        return self._add(Point(self._number(), "break", addr=addr, cond=cond,
                               temporary=temporary))

    def add_watch_ram(self, where: str | int | Iterable[int], mode: str = "write",
                      cond: str | None = None) -> Point:
        """Add a watchpoint on RAM nibbles (``X:Y``, hex address, range, or addresses) for
        ``mode`` read, write or access."""
        if mode not in RAM_KINDS:
            raise DebugError(f"watch mode {mode!r} (expected one of {', '.join(RAM_KINDS)})")
        if isinstance(where, str):
            addrs = parse_ram_address(where, self.chip.ram_size)
        elif isinstance(where, int):
            addrs = [where]
        else:
            addrs = list(where)
        for a in addrs:
            if not 0 <= a < self.chip.ram_size:
                raise DebugError(f"RAM address {a:#x} is outside the {self.chip.ram_size}-"
                                 f"nibble RAM")
        return self._add(Point(self._number(), "ram", ram=frozenset(addrs), mode=mode,
                               cond=cond))

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
        return self._add(Point(self._number(), bank, pins=mask, cond=cond))

    def add_watch_k(self, cond: str | None = None) -> Point:
        """Add a watchpoint on a K read (TKA, KNEZ, ...) that returns non-zero."""
        return self._add(Point(self._number(), "k", cond=cond))

    def delete(self, number: int | None = None) -> None:
        """Delete breakpoint/watchpoint ``number`` (None: all of them)."""
        if number is None:
            self.points.clear()
        elif self.points.pop(number, None) is None:
            raise DebugError(f"no breakpoint or watchpoint {number}")

    def enable(self, number: int, on: bool = True) -> None:
        """Enable (or disable) point ``number``."""
        if number not in self.points:
            raise DebugError(f"no breakpoint or watchpoint {number}")
        self.points[number].enabled = on

    # chainable forms, for scripts: Debugger(...).break_at("show").watch_ram("0:8").run()
    def break_at(self, where, cond: str | None = None) -> "Debugger":
        """Add a breakpoint (see :meth:`add_break`) and return the debugger."""
        self.add_break(where, cond)
        return self

    def watch_ram(self, where, mode: str = "write", cond: str | None = None) -> "Debugger":
        """Add a RAM watchpoint (see :meth:`add_watch_ram`) and return the debugger."""
        self.add_watch_ram(where, mode, cond)
        return self

    def watch_pins(self, bank: str, pins=None, cond: str | None = None) -> "Debugger":
        """Add a pin watchpoint (see :meth:`add_watch_pins`) and return the debugger."""
        self.add_watch_pins(bank, pins, cond)
        return self

    def watch_k(self, cond: str | None = None) -> "Debugger":
        """Add a K watchpoint (see :meth:`add_watch_k`) and return the debugger."""
        self.add_watch_k(cond)
        return self

    # ---- keys ---------------------------------------------------------------------------------

    def press(self, button: str, hold: float | None = None) -> "Debugger":
        """Press ``button`` now (held ``hold`` seconds, or until :meth:`release`)."""
        self._check_key(button)
        if hold is not None and not hold > 0:
            raise DebugError(f"hold {hold!r} must be a number of seconds > 0")
        self._issue("press", button, hold)
        return self

    def release(self, button: str | None = None) -> "Debugger":
        """Release ``button`` now (None: every pressed key)."""
        if button is not None:
            self._check_key(button)
        self._issue("release", button, None)
        return self

    def press_at(self, seconds: float, button: str, hold: float = 0.2) -> "Debugger":
        """Schedule ``button`` at tower time ``seconds`` for ``hold`` seconds, as a script
        line would (the key becomes part of the run from the start: any snapshot has it)."""
        self._check_key(button)
        if not seconds * self.clock_hz >= self.cycle:
            raise DebugError(f"{seconds:g} s is in the past (now {self.seconds:.6f} s)")
        if not hold > 0:
            raise DebugError(f"hold {hold!r} must be a number of seconds > 0")
        self._issue("schedule", button, hold, seconds)
        return self

    def _check_key(self, button: str) -> None:
        from emulator.boards import board_keys
        if self.board_name == NO_BOARD:
            raise DebugError("no board: the chip has no keys (K reads 0); give --board")
        keys = board_keys(self.board_name)
        if button not in keys:
            raise DebugError(f"unknown button {button!r} (expected one of {', '.join(keys)})")

    def _issue(self, action: str, button: str | None, hold: float | None,
               at: float | None = None) -> None:
        self._forget_future()
        self._journal.append((self.cycle, action, button, hold, at))
        self._apply_journal()
        self._replace_snapshot_now()

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

    def _apply_journal(self) -> None:
        """Apply the journal entries due at or before now (keys given at the prompt)."""
        journal, now = self._journal, self.cycle
        while self._jpos < len(journal) and journal[self._jpos][0] <= now:
            self._apply_entry(journal[self._jpos])
            self._jpos += 1

    def _forget_future(self) -> None:
        """Drop snapshots and journal entries after now: a new input changes what follows."""
        now = self.cycle
        del self._journal[self._jpos:]
        keep = bisect.bisect_right(self._snap_cycles, now)
        del self._snaps[keep:], self._snap_cycles[keep:]

    # ---- snapshots ------------------------------------------------------------------------------

    def _cpu_state(self) -> dict:
        cpu = self.cpu
        if self.core == "fast":
            return cpu.state()
        return {k: getattr(cpu, k) for k in ("a", "x", "y", "pc", "pa", "pb", "ca", "cb", "cl",
                                            "status", "sl", "r", "o", "o_index", "cycle")} | \
            {"ram": bytes(cpu.ram), "stack": list(cpu.stack)}

    def _set_cpu_state(self, st: dict) -> None:
        cpu = self.cpu
        if self.core == "fast":
            cpu.take_edges()
            cpu.set_state(st)
            return
        for k, v in st.items():
            if k == "ram":
                cpu.ram[:] = v
            elif k == "stack":
                cpu.stack = list(v)
            else:
                setattr(cpu, k, v)

    def _board_state(self) -> dict:
        out = {}
        board = self.board
        for k in self._fields:
            if k == "pins" and isinstance(board, DarkTowerBoard):
                out[k] = board.pin_mark()    # without turning the kernel's records into tuples
                continue
            v = getattr(board, k)
            if k in _LOGS:
                out[k] = (len(v), v[-1] if v else None)
            else:
                out[k] = _copy(v)
        return out

    def _set_board_state(self, st: dict) -> None:
        board = self.board
        for k, v in st.items():
            if k in _LOGS:
                n, last = v
                log = getattr(board, k)
                del log[n:]
                if n:
                    log[-1] = last
            else:
                setattr(board, k, _copy(v))

    def _snapshot(self) -> _Snapshot:
        return _Snapshot(self.cycle, self._jpos, self._cpu_state(), self._board_state())

    def _take_snapshot(self) -> None:
        i = bisect.bisect_left(self._snap_cycles, self.cycle)
        if i < len(self._snaps) and self._snap_cycles[i] == self.cycle:
            if self._snaps[i].journal >= self._jpos:
                return
            self._snaps[i] = self._snapshot()
            return
        self._snaps.insert(i, self._snapshot())
        self._snap_cycles.insert(i, self.cycle)

    def _replace_snapshot_now(self) -> None:
        i = bisect.bisect_left(self._snap_cycles, self.cycle)
        if i < len(self._snaps) and self._snap_cycles[i] == self.cycle:
            self._snaps[i] = self._snapshot()
        else:
            self._take_snapshot()

    def _restore(self, snap: _Snapshot) -> None:
        self._set_cpu_state(snap.cpu)
        self._set_board_state(snap.board)
        self._jpos = snap.journal

    def _boundary_after(self, cycle: int) -> int:
        """Return the next snapshot clock after ``cycle`` (every ``snapshot_every`` instr.)."""
        step = 6 * self._every
        return self._origin + ((cycle - self._origin) // step + 1) * step

    # ---- moving forwards without looking --------------------------------------------------------

    def _advance(self, end: int) -> None:
        """Run to fetch clock ``end`` at full speed, applying the journal and taking the
        periodic snapshots on the way."""
        journal = self._journal
        while self.cycle < end:
            target = min(end, self._boundary_after(self.cycle))
            if self._jpos < len(journal):
                target = min(target, journal[self._jpos][0])
            if target > self.cycle:
                self.board.run_until(target)
            self._apply_journal()
            if (self.cycle - self._origin) % (6 * self._every) == 0:
                self._take_snapshot()

    def _goto(self, target: int) -> None:
        """Put the machine at fetch clock ``target`` (earlier or later) by re-running."""
        target = max(target, self._snap_cycles[0])
        if target < self.cycle or self.cycle < self._snap_cycles[0]:
            i = bisect.bisect_right(self._snap_cycles, target) - 1
            self._restore(self._snaps[i])
        elif target > self.cycle:
            i = bisect.bisect_right(self._snap_cycles, target) - 1
            if self._snap_cycles[i] > self.cycle:
                self._restore(self._snaps[i])      # a later snapshot is closer
        self._advance(target)
        self._apply_journal()

    # ---- moving forwards, stopping at points ----------------------------------------------------

    def _active(self, extra: Iterable[Point] = ()) -> list[Point]:
        return [p for p in self.points.values() if p.enabled] + list(extra)

    def _arm(self, points: list[Point]) -> None:
        self.cpu.set_watch(*self._watch_args(points))

    def _watch_args(self, points: list[Point]) -> tuple:
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

    def _first_stop(self, records: list[tuple], points: list[Point], skip_pc_at: int,
                    before: int | None = None):
        """Return (hit, point) for the first kernel record that stops at a point."""
        view = _RecordView(self)
        for rec in records:
            if before is not None and rec[0] >= before:
                break
            if rec[4] == 0 and rec[0] == skip_pc_at:
                continue
            view.rec = rec
            for p in points:
                if p.matches(view):
                    return self._normal_fast(hit_dict(rec)), p
        return None

    def _run(self, end: int | None, extra: Iterable[Point] = (), step_only: bool = False
             ) -> Stop | None:
        """Run forwards to ``end`` (None: no end) and return the stop, or None at ``end``."""
        points = self._active(extra)
        start = self.cycle
        if step_only:
            points = []
        if not points and self._trace is None:
            if end is None:
                raise DebugError("nothing to stop at: set a breakpoint or watchpoint, or "
                                 "give a time")
            self._advance_interruptible(end)
            return self._interrupted_stop() if self.cycle < end else None
        if self._trace is not None or self.core == "reference":
            return self._run_stepping(end, points, start)
        return self._run_watching(end, points, start)

    def _advance_interruptible(self, end: int) -> None:
        while self.cycle < end and not self.interrupt:
            self._advance(min(end, self._boundary_after(self.cycle)))

    def _interrupted_stop(self) -> Stop:
        self.interrupt = False
        return Stop("interrupted", self.cycle)

    def _snapshot_here(self) -> _Snapshot:
        """Return the kept snapshot of now (segments start at the periodic ones), or a new
        one."""
        i = bisect.bisect_left(self._snap_cycles, self.cycle)
        if i < len(self._snaps) and self._snap_cycles[i] == self.cycle \
                and self._snaps[i].journal == self._jpos:
            return self._snaps[i]
        return self._snapshot()

    def _run_watching(self, end: int | None, points: list[Point], start: int) -> Stop | None:
        skip = start
        armed = self._watch_args(points)
        journal = self._journal
        while end is None or self.cycle < end:
            if self.interrupt:
                return self._interrupted_stop()
            seg_end = self._boundary_after(self.cycle)
            if end is not None:
                seg_end = min(seg_end, end)
            if self._jpos < len(journal):
                seg_end = min(seg_end, journal[self._jpos][0])
            snap = self._snapshot_here()
            self.cpu.set_watch(*armed)
            try:
                if seg_end > self.cycle:
                    self.board.run_until(seg_end)
                records, dropped = self.cpu.take_hit_records()
            finally:
                self.cpu.set_watch(None)
            found = self._first_stop(records, points, skip, dropped or None)
            if found is not None:
                hit, point = found
                self._restore(snap)
                self._advance(hit["cycle"])
                self._apply_journal()
                return self._stopped(point, hit)
            if dropped:                   # the record was full: look again from there
                self._restore(snap)
                self._advance(dropped - 6)
                skip = self.cycle
                continue
            self._apply_journal()
            if (self.cycle - self._origin) % (6 * self._every) == 0:
                self._take_snapshot()
        return None

    def _read_k_recorded(self, cycle: int) -> int:
        k = self._board_read_k(cycle)
        self._k_seen = k & 15
        return k

    def _step_hits(self, before: dict) -> list[dict]:
        """Execute one instruction; return its hits (the reference-core check, or the
        kernel's record on the fast core) as :meth:`state` dicts plus kind/where."""
        if self.core == "fast":
            self.cpu.set_watch(*self._armed)
            try:
                self.board.run_until(self.cycle + 1)
                raw, _ = self.cpu.take_hits()
            finally:
                self.cpu.set_watch(None)
            return [self._normal_fast(h) for h in raw if h["kind"] != "pc"]
        op = self.rom[rom_offset(before["ca"], before["pa"], before["pc"])]
        addr = (before["x"] << 4 | before["y"]) & (self.chip.ram_size - 1)
        self._k_seen = None
        self.board.run_until(self.cycle + 1)
        after = self.state()
        hits = []
        micro, fixed = self._micro[op], self._fixed[op]
        src = rom_offset(before["ca"], before["pa"], before["pc"])

        def hit(kind: str, where: int) -> None:
            hits.append(_with_value(dict(after, kind=kind, where=where, **{"from": src})))
        if micro & _READ_MICRO or fixed in ("SBIT", "RBIT"):
            hit("ram_read", addr)
        if micro & _WRITE_MICRO or fixed in ("SBIT", "RBIT"):
            hit("ram_write", addr)
        if self._k_seen and micro & _CKI_MICRO:
            hit("k", self._k_seen)
        if fixed in ("SETR", "RSTR"):
            changed = (after["r"] ^ before["r"]) & ((1 << self.chip.r_count) - 1)
            if changed:
                hit("r", changed)
        elif fixed in ("TDO", "CLO") and after["o"] != before["o"]:
            hit("o", after["o"] ^ before["o"])
        return hits

    def _run_stepping(self, end: int | None, points: list[Point], start: int) -> Stop | None:
        """Run one instruction at a time (reference core, or tracing), checking each."""
        if self.core == "fast":
            self._armed = self._watch_args(points)
        breaks: dict[int, list[Point]] = {}
        for p in points:
            if p.kind == "break":
                breaks.setdefault(rom_offset(*p.addr) % self.chip.rom_size, []).append(p)
        others = [p for p in points if p.kind != "break"]
        journal = self._journal
        while end is None or self.cycle < end:
            if self.interrupt:
                return self._interrupted_stop()
            before = self.state()
            addr = rom_offset(before["ca"], before["pa"], before["pc"])
            if self.cycle != start and addr in breaks:
                hit = dict(before, kind="pc", where=addr, **{"from": addr})
                for p in breaks[addr]:
                    if p.matches(hit):
                        return self._stopped(p, hit)
            if self._trace is not None:
                self._trace.write(self._trace_line(before) + "\n")
            for hit in self._step_hits(before):
                for p in others:
                    if p.matches(hit):
                        self._apply_journal()
                        return self._stopped(p, hit)
            if self._jpos < len(journal) and journal[self._jpos][0] <= self.cycle:
                self._apply_journal()
            if (self.cycle - self._origin) % (6 * self._every) == 0:
                self._take_snapshot()
        return None

    def _trace_line(self, st: dict) -> str:
        op = self.rom[rom_offset(st["ca"], st["pa"], st["pc"])]
        return format_line(st["n"], st["cycle"], st["ca"], st["pa"], st["pc"], op, st["a"],
                           st["x"], st["y"], st["s"], st["sl"], st["pb"], st["cb"],
                           st["r"] & ((1 << self.chip.r_count) - 1), st["o"])

    def _stopped(self, point: Point, hit: dict) -> Stop:
        point.hits += 1
        if point.temporary:
            self.points.pop(point.number, None)
        what = "breakpoint" if point.kind == "break" else "watchpoint"
        detail = self._hit_detail(point, hit)
        return Stop(f"{what} {point.number}", self.cycle, point, detail)

    def _hit_detail(self, point: Point, hit: dict) -> str:
        kind = hit["kind"]
        if kind == "pc":
            return self.describe((hit["ca"], hit["pa"], hit["pc"]))
        src = hit["from"]
        at = f" by {self.describe((src >> 10, src >> 6 & 15, src & 63))}"
        if kind in ("ram_read", "ram_write"):
            a = hit["where"]
            verb = "read" if kind == "ram_read" else "write"
            return f"{verb} RAM {a >> 4:X}:{a & 15:X} = {hit['ram'][a]:X}{at}"
        if kind == "k":
            return f"K = {hit['where']:X}{at}"
        bank = kind.upper()
        pins = " ".join(f"{bank}{i}" for i in range(16) if hit["where"] >> i & 1)
        return f"{pins} changed{at}"

    # ---- commands -------------------------------------------------------------------------------

    def step(self, n: int = 1) -> Stop:
        """Execute ``n`` instructions (stopping early at a breakpoint or watchpoint)."""
        if n < 1:
            raise DebugError(f"step {n}: expected 1 or more instructions")
        stop = self._run(self.cycle + 6 * n)
        return self._done(stop or Stop("step", self.cycle))

    def next(self) -> Stop:
        """Execute one instruction; over a CALL that is taken, run until it returns."""
        st = self.state()
        op = self.rom[rom_offset(st["ca"], st["pa"], st["pc"])]
        taken = 0xC0 <= op and st["s"] == 1 and (self.chip.stack_depth == 3 or not st["cl"])
        if not taken:
            return self.step()
        ret = (st["ca"], st["pa"], LFSR_NEXT[st["pc"]])
        depth = st["depth"]
        temp = Point(0, "break", addr=ret, cond=f"DEPTH <= {depth}", temporary=True)
        temp._test = compile_condition(temp.cond)
        stop = self._run(None, [temp])
        if stop is not None and stop.point is temp:
            stop = Stop("next", self.cycle)
        return self._done(stop)

    def finish(self) -> Stop:
        """Run until the current subroutine returns (stop after its RETN)."""
        st = self.state()
        depth = st["depth"]
        if depth == 0:
            raise DebugError("finish: not in a subroutine (the call stack is empty)")
        temps = []
        for offset, byte in enumerate(self.rom):
            if decode_op(self.chip, byte)[0].fixed == "RETN":
                c, p, pc = offset >> 10, offset >> 6 & 15, offset & 63
                t = Point(0, "break", addr=(c, p, pc), cond=f"DEPTH == {depth}",
                          temporary=True)
                t._test = compile_condition(t.cond)
                temps.append(t)
        stop = self._run(None, temps)
        if stop is not None and stop.point in temps:
            inner = self._run(self.cycle + 6, step_only=True)
            stop = inner or Stop("finish", self.cycle, detail=f"returned to "
                                 f"{self.describe(self.address)}")
        return self._done(stop)

    def until(self, where: str | tuple) -> Stop:
        """Run until the instruction at ``where`` (a label or c:p:pc) is next."""
        addr = self.resolve(where) if isinstance(where, str) else tuple(where)
        temp = Point(0, "break", addr=addr, temporary=True)
        stop = self._run(None, [temp])
        if stop is not None and stop.point is temp:
            stop = Stop("until", self.cycle, detail=self.describe(addr))
        return self._done(stop)

    def run(self, seconds: float | None = None) -> Stop:
        """Continue until a breakpoint or watchpoint stops the machine, or for ``seconds`` of
        tower time (None: no limit; then something must be set to stop at)."""
        if seconds is not None and not seconds >= 0:
            raise DebugError(f"run {seconds!r}: expected seconds >= 0")
        end = None if seconds is None else self.cycle + max(6, round(seconds * self.clock_hz))
        if end is not None:
            end = self._origin + -(-(end - self._origin) // 6) * 6
        stop = self._run(end)
        return self._done(stop or Stop("time", self.cycle,
                                       detail=f"ran {seconds:g} s" if seconds else ""))

    cont = run

    def reverse_step(self, n: int = 1) -> Stop:
        """Go back ``n`` instructions (to the state stepping forward had there)."""
        if n < 1:
            raise DebugError(f"reverse-step {n}: expected 1 or more instructions")
        target = self.cycle - 6 * n
        if target < self._snap_cycles[0]:
            self._goto(self._snap_cycles[0])
            return self._done(Stop("start of history", self.cycle))
        self._goto(target)
        return self._done(Stop("reverse-step", self.cycle))

    def reverse_continue(self) -> Stop:
        """Go back to the latest earlier stop of a breakpoint or watchpoint (or the start)."""
        points = self._active()
        now = self.cycle
        first = self._snap_cycles[0]
        seg_end = now
        if points:
            for i in range(bisect.bisect_left(self._snap_cycles, now) - 1, -1, -1):
                snap = self._snaps[i]
                found = self._last_stop_between(snap, seg_end, now, points)
                if found is not None:
                    hit, point = found
                    self._goto(hit["cycle"])
                    point.hits += 1
                    what = "breakpoint" if point.kind == "break" else "watchpoint"
                    return self._done(Stop(f"{what} {point.number}", self.cycle, point,
                                           self._hit_detail(point, hit)))
                seg_end = snap.cycle
        self._goto(first)
        return self._done(Stop("start of history", self.cycle))

    def _last_stop_between(self, snap: _Snapshot, seg_end: int, now: int,
                           points: list[Point]):
        """Return the last (hit, point) recorded between ``snap`` and ``seg_end`` that is
        before ``now``: PC hits at clocks [snap, seg_end), the others in (snap, seg_end]."""
        self._restore(snap)
        found = None
        if self.core == "fast":
            start = snap.cycle
            while True:
                self._arm(points)
                try:
                    self._advance(seg_end)
                    records, dropped = self.cpu.take_hit_records()
                finally:
                    self.cpu.set_watch(None)
                view = _RecordView(self)
                for rec in records:
                    c = rec[0]
                    if dropped and c >= dropped:
                        break
                    if c >= now or (rec[4] == 0 and (c >= seg_end or c < start)):
                        continue
                    view.rec = rec
                    for p in points:
                        if p.matches(view):
                            found = (self._normal_fast(hit_dict(rec)), p)
                            break
                if not dropped:
                    return found
                self._restore(snap)                    # the record was full: go on from there
                self._advance(dropped - 6)
                start = self.cycle
        if self.core == "fast":
            self._armed = self._watch_args(points)
        breaks = {rom_offset(*p.addr) % self.chip.rom_size for p in points if p.kind == "break"}
        while self.cycle < seg_end:
            before = self.state()
            addr = rom_offset(before["ca"], before["pa"], before["pc"])
            if addr in breaks:
                hit = dict(before, kind="pc", where=addr, **{"from": addr})
                for p in points:
                    if p.kind == "break" and p.matches(hit):
                        found = (hit, p)
                        break
            for hit in self._step_hits(before):
                if hit["cycle"] < now:
                    for p in points:
                        if p.kind != "break" and p.matches(hit):
                            found = (hit, p)
                            break
            self._apply_journal()
        return found

    def _done(self, stop: Stop) -> Stop:
        self.last_stop = stop
        return stop

    def goto(self, seconds: float) -> Stop:
        """Go to tower time ``seconds`` (earlier or later), without stopping at points."""
        target = self._origin + max(0, -(-(round(seconds * self.clock_hz) - self._origin)
                                         // 6)) * 6
        self._goto(target)
        return self._done(Stop("goto", self.cycle))

    # ---- trace ----------------------------------------------------------------------------------

    def trace_on(self, path: str | os.PathLike) -> None:
        """Write the canonical trace line (``emulator.trace``) of every instruction run
        forwards from now to ``path``; runs step one instruction at a time while it is on."""
        self.trace_off()
        try:
            self._trace = open(path, "w", encoding="utf-8")
        except OSError as exc:
            raise DebugError(f"{path}: cannot write the trace ({exc.strerror or exc})") \
                from None
        self._trace_path = str(path)

    def trace_off(self) -> str | None:
        """Stop tracing; return the trace file's name (None when none was open)."""
        path = self._trace_path
        if self._trace is not None:
            self._trace.close()
        self._trace, self._trace_path = None, None
        return path

    # ---- save / load ----------------------------------------------------------------------------

    def save(self, path: str | os.PathLike) -> None:
        """Write the machine state now (chip, board, keys journal) to ``path`` (gzip JSON)."""
        from captures.files import atomic_write

        doc = {"format": _STATE_FORMAT, "version": _STATE_VERSION,
               "rom_sha1": hashlib.sha1(self.rom).hexdigest(), "chip": self.chip.name,
               "board": self.board_name, "clock_hz": self.clock_hz, "origin": self._origin,
               "cpu": _encode(self._cpu_state()), "board_state": _encode(self._board_full()),
               "journal": [list(e) for e in self._journal[: self._jpos]]}
        data = gzip.compress(json.dumps(doc).encode("utf-8"), mtime=0)
        atomic_write(str(path), lambda f: f.write(data), binary=True)

    def load(self, path: str | os.PathLike) -> None:
        """Restore a state written by :meth:`save`; the history starts again there."""
        try:
            with open(path, "rb") as f:
                doc = json.loads(gzip.decompress(f.read(16 << 20)).decode("utf-8"))
        except (OSError, EOFError, ValueError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise DebugError(f"{path}: not a debugger state file ({reason})") from None
        if not isinstance(doc, dict) or doc.get("format") != _STATE_FORMAT:
            raise DebugError(f"{path}: not a debugger state file (expected format "
                             f"{_STATE_FORMAT!r})")
        if doc.get("version") != _STATE_VERSION:
            raise DebugError(f"{path}: state version {doc.get('version')!r} (expected "
                             f"{_STATE_VERSION})")
        sha = hashlib.sha1(self.rom).hexdigest()
        for key, mine in (("rom_sha1", sha), ("board", self.board_name),
                          ("clock_hz", self.clock_hz)):
            if doc.get(key) != mine:
                raise DebugError(f"{path}: saved with {key} {doc.get(key)!r}, but this "
                                 f"debugger has {mine!r}")
        self._set_cpu_state(_decode(doc["cpu"]))
        for k, v in _decode(doc["board_state"]).items():
            if k in _LOGS:
                getattr(self.board, k)[:] = v
            else:
                setattr(self.board, k, v)
        self._origin = doc["origin"]
        self._journal = [tuple(e) for e in doc["journal"]]
        self._jpos = len(self._journal)
        self._snaps, self._snap_cycles = [], []
        self._take_snapshot()
        self._shown_ram = self.ram()
        self.last_stop = None

    def _board_full(self) -> dict:
        return {k: getattr(self.board, k) for k in self._fields}

    # ---- views ----------------------------------------------------------------------------------

    def format_registers(self) -> str:
        """Return the registers, the call stack and the clock as two or three lines."""
        s = self.state()
        addr = (s["ca"], s["pa"], s["pc"])
        lines = [f"A={s['a']:X} X={s['x']:X} Y={s['y']:X} S={s['s']:X} SL={s['sl']:X} "
                 f"PB={s['pb']:X} CB={s['cb']:X}  PC={self.describe(addr)}  chapter {s['ca']} "
                 f"page {s['pa']:X}",
                 f"cycle {s['cycle']} ({s['cycle'] / self.clock_hz:.6f} s), instruction "
                 f"{s['n']}"]
        stack = " <- ".join(self.describe(a) for a in s["stack"]) or "(empty)"
        lines.append(f"call stack ({s['depth']}): {stack}")
        return "\n".join(lines)

    def format_ram(self, color: bool = False) -> str:
        """Return the RAM as one row per file X (16 nibbles); nibbles changed since the last
        shown view are marked ``*`` (or in bold colour)."""
        ram, old = self.ram(), self._shown_ram
        rows = ["RAM  " + " ".join(f" {y:X}" for y in range(16))]
        for x in range(len(ram) // 16):
            cells = []
            for y in range(16):
                i = x << 4 | y
                if ram[i] != old[i]:
                    cells.append(f"\x1b[1;31m*{ram[i]:X}\x1b[0m" if color else f"*{ram[i]:X}")
                else:
                    cells.append(f" {ram[i]:X}")
            rows.append(f"X={x:X} " + " ".join(cells))
        return "\n".join(rows)

    def format_pins(self) -> str:
        """Return the R pins, O pins and K as the chip sees them now."""
        s = self.state()
        r = s["r"] & ((1 << self.chip.r_count) - 1)
        rbits = "".join("1" if r >> i & 1 else "." for i in range(self.chip.r_count))
        obits = "".join("1" if s["o"] >> i & 1 else "." for i in range(self.chip.o_count))
        k = self._board_k()
        return (f"R={r:04X} R0..R{self.chip.r_count - 1} {rbits}   O={s['o']:02X} O0..O7 "
                f"{obits}   K={k:X}")

    def _board_k(self) -> int:
        k = getattr(self.board, "_k", None)
        return k() if k is not None else 0

    def format_board(self) -> str:
        """Return what the board shows: Dark Tower digits, lamps and reel; else its pins."""
        if self.board_name == NO_BOARD:
            return "no board: K reads 0"
        if self.board_name != "darktower":
            pressed = " ".join(sorted(self.board.pressed)) or "none"
            return f"{self.board_name}: keys down: {pressed}"
        from captures.model import DARKTOWER_CHANNELS
        from captures.darktower_facts import GLYPHS, LAMP_PINS, card_image

        o0 = DARKTOWER_CHANNELS.index("O0")
        r4 = 1 << DARKTOWER_CHANNELS.index("R4")
        shapes = {segs: ch for ch, segs in GLYPHS if segs}
        from emulator.darktower import segments_from_o
        digits: dict[int, str] = {}
        for _, word in reversed(self.board.pins):
            o = word >> o0 & 0xFF
            side = o >> 7
            if side in digits:
                continue
            digits[side] = " " if word & r4 else shapes.get(segments_from_o(o), "?" if o & 0x7F
                                                              else " ")
            if len(digits) == 2:
                break
        text = digits.get(0, " ") + digits.get(1, " ")
        lamps = self.board.lamps()
        card = self.board.card_pos
        lit = [name for name in LAMP_PINS if lamps[name]]
        pictures = "/".join(card_image(card, name) or "-" for name in LAMP_PINS)
        pressed = " ".join(sorted(self.board.pressed)) or "none"
        reel = "turning" if self.board.running else "still"
        return (f"display [{text}]  lamps: {' '.join(lit) or 'off'}  reel: card {card} "
                f"({pictures}) pos {self.board.pos} {reel}  keys down: {pressed}")

    def format_disasm(self, where: str | tuple | None = None, count: int = 7,
                      before: int | None = None) -> str:
        """Return ``count`` instructions in execution order around ``where`` (default: the
        next instruction, with a few before it); ``=>`` marks the next, ``B`` breakpoints."""
        here = self.address
        addr = here if where is None else (self.resolve(where) if isinstance(where, str)
                                           else tuple(where))
        if before is None:
            before = min(3, count // 2) if where is None else 0
        c, p, pc = addr
        index = _PC_INDEX[pc]
        start = max(0, index - before)
        breaks = {pt.addr for pt in self.points.values() if pt.kind == "break"}
        lines = []
        for i in range(start, min(64, start + count)):
            a = (c, p, PC_ORDER[i])
            byte = self.rom[rom_offset(*a)]
            name = self.symbols.labels.get(a)
            if name:
                lines.append(f"{name}:")
            mark = "=>" if a == here else "  "
            brk = "B" if a in breaks else " "
            text = instruction_text(self.chip, byte)
            op, value = decode_op(self.chip, byte)
            if op.operand == "a6":
                target = self._branch_target(a, value)
                label = self.symbols.describe(target) if target else ""
                if label:
                    text = f"{text:<12} ; {label}"
            lines.append(f"{brk}{mark} {format_address(*a)}  {byte:02X}  {text}")
        return "\n".join(lines)

    def _branch_target(self, addr: tuple, value: int) -> tuple | None:
        """Return where a BRANCH/CALL at ``addr`` goes when PB/CB are as now and ``addr`` is
        the next instruction, or the same page (no LDP in between) elsewhere."""
        s = self.state()
        if addr == (s["ca"], s["pa"], s["pc"]):
            return (s["cb"], s["pb"], value)
        return None

    def format_view(self, color: bool = False) -> str:
        """Return everything: registers, RAM, pins, board and disassembly; marks the RAM
        shown so the next view highlights what changed since."""
        text = "\n".join([self.format_registers(), self.format_ram(color), self.format_pins(),
                          self.format_board(), self.format_disasm()])
        self._shown_ram = self.ram()
        return text

    def format_points(self) -> str:
        """Return one line per breakpoint/watchpoint."""
        if not self.points:
            return "no breakpoints or watchpoints"
        lines = []
        for p in self.points.values():
            off = "" if p.enabled else " (disabled)"
            lines.append(f"{p.number}: {self.point_text(p)}{off}  hits {p.hits}")
        return "\n".join(lines)

    def point_text(self, p: Point) -> str:
        """Return what point ``p`` watches, as the command that set it would say it."""
        if p.kind == "break":
            what = f"break {self.describe(p.addr)}"
        elif p.kind == "ram":
            addrs = sorted(p.ram)
            span = f"{addrs[0] >> 4:X}:{addrs[0] & 15:X}" + (
                f"-{addrs[-1] >> 4:X}:{addrs[-1] & 15:X}" if len(addrs) > 1 else "")
            what = f"watch ram {span} {p.mode}"
        elif p.kind == "k":
            what = "watch k (a non-zero K read)"
        else:
            bank = p.kind.upper()
            what = f"watch {p.kind} " + " ".join(f"{bank}{i}" for i in range(16)
                                                 if p.pins >> i & 1)
        return what + (f" if {p.cond}" if p.cond else "")


# Fields of a raw kernel hit record (emulator.fastcore.take_hit_records) by state() name.
_REC = {"cycle": 0, "r": 1, "where": 2, "from": 3, "a": 5, "x": 6, "y": 7, "pa": 9,
        "pb": 10, "ca": 11, "cb": 12, "cl": 13, "s": 14, "status": 14, "sl": 15, "o": 16,
        "o_index": 17}
_REC_KIND = ("pc", "ram_read", "ram_write", "k", "r", "o")


class _RecordView:
    """Read a raw kernel hit record by :meth:`Debugger.state` names without building the
    dict (conditions test tens of thousands of records a second at a hot breakpoint)."""

    __slots__ = ("rec", "_origin", "_three", "_ram_mask")

    def __init__(self, dbg: "Debugger") -> None:
        self.rec: tuple = ()
        self._origin = dbg._origin
        self._three = dbg.chip.stack_depth == 3
        self._ram_mask = dbg.chip.ram_size - 1

    def __getitem__(self, key: str):
        rec = self.rec
        i = _REC.get(key)
        if i is not None:
            return rec[i]
        if key == "kind":
            return _REC_KIND[rec[4]]
        if key == "pc":
            return _PREV_PC[rec[8]]
        if key == "ram":
            return rec[28]
        if key == "m":
            return rec[28][(rec[6] << 4 | rec[7]) & self._ram_mask]
        if key == "n":
            return (rec[0] - self._origin) // 6
        if key == "depth":
            return rec[13].bit_length() if self._three else int(bool(rec[13]))
        if key == "value":
            kind = rec[4]
            if kind in (1, 2):
                return rec[28][rec[2]]
            if kind >= 3:
                return rec[2]
            return rec[28][(rec[6] << 4 | rec[7]) & self._ram_mask]
        raise KeyError(key)


class BareChip:
    """The chip alone (``board="none"``), for chips no board carries (the TMS1000): K reads 0,
    pins go nowhere, and there are no keys. Offers what the debugger uses of a board."""

    name = NO_BOARD

    def __init__(self, cpu, clock_hz: int) -> None:
        self.cpu = cpu
        self.clock_hz = int(clock_hz)
        self.pressed: set[str] = set()
        self.pins: list = []
        self.speaker: list = []
        self.events: list = []
        if cpu is not None:
            cpu.on_r = cpu.on_o = cpu.read_k = None

    def run_until(self, cycle: int) -> None:
        """Run the chip to clock ``cycle``, dropping its pin changes."""
        cpu = self.cpu
        while cpu.cycle < cycle:
            cpu.run_until(cycle)
            cpu.take_edges()

    def schedule(self, script) -> None:
        """Refuse a script: there are no keys."""
        if script.actions:
            raise DebugError(f"{script.name}: no board, so no keys to press (give --board)")

    def _k(self) -> int:
        return 0


def _board_fields(board) -> tuple[str, ...]:
    """Return the names of a board's attributes that a snapshot keeps.

    They are read from a second, chip-less board of the same class: ``vars()`` on the board
    being run would turn its attribute storage into a dict, which makes CPython 3.11+ look its
    attributes up more slowly for the rest of the run (about 20% of the board's time here).
    """
    spare = type(board)(None, board.clock_hz)
    names = [_STORED_AS.get(k, k) for k in vars(spare)]
    return tuple(k for k in names if k is not None and k not in _SKIP)


_ATOMS = (int, float, bool, str, bytes, type(None))


def _copy(value):
    """Return a copy of a board attribute that shares nothing mutable with it."""
    if isinstance(value, _ATOMS):
        return value
    if isinstance(value, tuple) and all(isinstance(v, _ATOMS) for v in value):
        return value
    if isinstance(value, list):
        return [_copy(v) for v in value]
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, set):
        return set(value)
    return copy.deepcopy(value)


def _with_value(hit: dict) -> dict:
    """Set ``value``: a RAM hit's nibble now, another hit's ``where``, else M."""
    kind = hit.get("kind")
    if kind in ("ram_read", "ram_write"):
        hit["value"] = hit["ram"][hit["where"]]
    elif kind in ("k", "r", "o"):
        hit["value"] = hit["where"]
    else:
        hit["value"] = hit["m"]
        hit.setdefault("where", 0)
    return hit


def _load_pla(value):
    if value is None:
        return None
    from emulator.pla import Pla
    if isinstance(value, Pla):
        return value
    from emulator.romset import load_pla_file
    return load_pla_file(value)


# ---- the state file: JSON with tagged tuples, sets, dicts with non-string keys and bytes --------

def _encode(value):
    if isinstance(value, (bytes, bytearray)):
        return {"__bytes": bytes(value).hex()}
    if isinstance(value, tuple):
        return {"__tuple": [_encode(v) for v in value]}
    if isinstance(value, (set, frozenset)):
        return {"__set": sorted(_encode(v) for v in value)}
    if isinstance(value, dict):
        return {"__dict": [[_encode(k), _encode(v)] for k, v in value.items()]}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise DebugError(f"cannot save a {type(value).__name__} in a debugger state file")


def _decode(value):
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if isinstance(value, dict):
        if "__bytes" in value:
            return bytes.fromhex(value["__bytes"])
        if "__tuple" in value:
            return tuple(_decode(v) for v in value["__tuple"])
        if "__set" in value:
            return {_decode(v) for v in value["__set"]}
        if "__dict" in value:
            return {_decode(k): _decode(v) for k, v in value["__dict"]}
    return value
