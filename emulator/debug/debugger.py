"""The :class:`Debugger`: one machine (``emulator.machine``) and the rooms that move it and
look at it, behind the methods ``towerlab debug``'s commands call (``emulator.debugcmd``).

Where we are comes from the chip (``chipstate``); the numbered points and the keys given here
from ``points``; the snapshots, going back and the state file from ``history``; the runs that
stop at points from ``engines``; what is shown from ``views``.
"""
from __future__ import annotations

import functools
import os
import warnings
from typing import IO, Iterable

from emulator.asm import PC_ORDER, format_address, rom_offset
from emulator.chips import Chip
from emulator.core import LFSR_NEXT, enters_subroutine
from emulator.debug.chipstate import read_state
from emulator.debug.engines import Runner
from emulator.debug.history import History, load_state, save_state
from emulator.debug.points import DebugError, KeyJournal, Point, PointTable, Stop
from emulator.debug.views import VIEWS
from emulator.machine import MachineError, build_machine
from emulator.opcodes import decode as decode_op
from emulator.symbols import SymbolError, Symbols, parse_address, read_symbols

__all__ = ["Debugger"]

_PC_INDEX = {pc: i for i, pc in enumerate(PC_ORDER)}


class Debugger:
    """One chip on one board under a debugger (see ``emulator.debug``).

    Exactly one of ``firmware`` ("demo"), ``rom`` (raw image path) or ``romset`` (MAME set zip
    or folder) gives the program, or ``image`` (bytes, with ``chip``). ``board`` defaults to
    the board that carries the chip; ``script`` (a ``captures.script.Script`` or a path) is
    scheduled on it; ``symbols`` is a path or :class:`emulator.symbols.Symbols` (the demo
    firmware brings its own labels). ``core`` is "fast" (compiled kernel, falling back to the
    reference core where it is not built) or "reference".

    Rooms: ``points`` (a :class:`PointTable`, number -> Point), ``journal`` (the keys given
    here), ``history`` (snapshots), ``runner`` (the run engines); the views are the functions
    of ``emulator.debug.views``.
    """

    def __init__(self, firmware: str | None = None, rom: str | os.PathLike | None = None,
                 romset: str | os.PathLike | None = None, image: bytes | None = None,
                 chip: Chip | None = None, mpla=None, opla=None, board: str | None = None,
                 script=None, symbols=None, core: str = "fast", clock_hz: int | None = None,
                 snapshot_every: int = 1 << 15) -> None:
        if snapshot_every < 1:
            raise DebugError(f"snapshot_every {snapshot_every} must be 1 or more instructions")
        try:
            machine = build_machine(firmware=firmware, rom=rom, romset=romset, image=image,
                                    chip=chip, mpla=mpla, opla=opla, board=board,
                                    clock_hz=clock_hz, core=core, script=script)
        except MachineError as exc:
            raise DebugError(str(exc)) from None
        self.machine = machine
        self.notes, self.source = machine.notes, machine.source
        self.chip, self.rom, self.board_name = machine.chip, machine.rom, machine.board_name
        self.cpu, self.core, self.board = machine.cpu, machine.core, machine.board
        self.clock_hz = machine.clock_hz
        if isinstance(symbols, (str, os.PathLike)):
            symbols = read_symbols(symbols, self.chip.chapters)
        elif not isinstance(symbols, Symbols):
            symbols = (Symbols.from_program(machine.program.symbols)
                       if machine.program is not None else None)
        self.symbols = symbols or Symbols()
        self.points = PointTable(self.chip)
        self.journal = KeyJournal(self.board, self.board_name, self.clock_hz)
        self.history = History(self.cpu, self.board, self.journal, self.cpu.cycle,
                               snapshot_every)
        self.runner = Runner(self, machine.mpla)
        self._trace_path: str | None = None
        self.interrupt = False                    # set (e.g. by SIGINT) to stop a run
        self.last_stop: Stop | None = None
        self.forgotten: list[tuple] = []          # keys the last key given here replaced
        self.shown_ram = self.ram()               # the RAM as last shown (views.format_ram)
        self.history.take()

    def __getattr__(self, name: str):
        """Return a view by its old method name (``dbg.format_ram()``), with a
        DeprecationWarning: the views are ``emulator.debug.views`` functions now."""
        view = VIEWS.get(name)
        if view is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        warnings.warn(f"Debugger.{name}() is deprecated: use emulator.debug.views.{name}"
                      f"(debugger, ...)", DeprecationWarning, stacklevel=2)
        return functools.partial(view, self)

    # ---- where we are ---------------------------------------------------------------------

    @property
    def cycle(self) -> int:
        """Return the fetch clock of the next instruction (oscillator cycles since reset)."""
        return self.cpu.cycle

    @property
    def instructions(self) -> int:
        """Return the number of instructions executed since reset."""
        return (self.cpu.cycle - self.history.origin) // 6

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
        return read_state(self.cpu, self.chip, self.history.origin)

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

    def add_break(self, where: str | tuple, cond: str | None = None,
                  temporary: bool = False) -> Point:
        """Add a breakpoint at a label or ``c:p:pc`` (``cond``: stop only when true)."""
        addr = self.resolve(where) if isinstance(where, str) else tuple(where)
        return self.points.add_break(addr, cond, temporary)

    def add_watch_ram(self, where: str | int | Iterable[int], mode: str = "write",
                      cond: str | None = None) -> Point:
        """Add a watchpoint on RAM nibbles (``X:Y``, hex address, range, or addresses) for
        ``mode`` read, write or access."""
        return self.points.add_watch_ram(where, mode, cond)

    def add_watch_pins(self, bank: str, pins: Iterable[int] | None = None,
                       cond: str | None = None) -> Point:
        """Add a watchpoint on a change of R pins or O pins (``bank`` "r" or "o"; ``pins``
        None = any of them)."""
        return self.points.add_watch_pins(bank, pins, cond)

    def add_watch_k(self, cond: str | None = None) -> Point:
        """Add a watchpoint on a K read (TKA, KNEZ, ...) that returns non-zero."""
        return self.points.add_watch_k(cond)

    def delete(self, number: int | None = None) -> None:
        """Delete breakpoint/watchpoint ``number`` (None: all of them)."""
        self.points.delete(number)

    def enable(self, number: int, on: bool = True) -> None:
        """Enable (or disable) point ``number``."""
        self.points.enable(number, on)

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
        self.journal.check_key(button)
        if hold is not None and not hold > 0:
            raise DebugError(f"hold {hold!r} must be a number of seconds > 0")
        self._give("press", button, hold)
        return self

    def release(self, button: str | None = None) -> "Debugger":
        """Release ``button`` now (None: every pressed key)."""
        if button is not None:
            self.journal.check_key(button)
        self._give("release", button, None)
        return self

    def press_at(self, seconds: float, button: str, hold: float = 0.2) -> "Debugger":
        """Schedule ``button`` at tower time ``seconds`` for ``hold`` seconds, as a script
        line would (the key becomes part of the run from the start: any snapshot has it)."""
        self.journal.check_key(button)
        if not seconds * self.clock_hz >= self.cycle:
            raise DebugError(f"{seconds:g} s is in the past (now {self.seconds:.6f} s)")
        if not hold > 0:
            raise DebugError(f"hold {hold!r} must be a number of seconds > 0")
        self._give("schedule", button, hold, seconds)
        return self

    def _give(self, action: str, button: str | None, hold: float | None,
              at: float | None = None) -> None:
        """Add a key to the journal now: what followed is forgotten (the keys given later
        than now before going back are left in ``forgotten``), a snapshot kept."""
        self.forgotten = self.journal.entries[self.journal.pos:]
        self.history.forget_future()
        self.journal.add(self.cycle, action, button, hold, at)
        self.journal.apply(self.cycle)
        self.history.replace_now()

    # ---- commands -------------------------------------------------------------------------------

    def step(self, n: int = 1) -> Stop:
        """Execute ``n`` instructions (stopping early at a breakpoint or watchpoint)."""
        if n < 1:
            raise DebugError(f"step {n}: expected 1 or more instructions")
        stop = self.runner.run(self.cycle + 6 * n)
        return self._done(stop or Stop("step", self.cycle))

    def next(self) -> Stop:
        """Execute one instruction; over a CALL that is taken, run until it returns."""
        st = self.state()
        op = self.rom[rom_offset(st["ca"], st["pa"], st["pc"])]
        if not enters_subroutine(self.chip, op, st["s"], st["cl"]):
            return self.step()
        ret = (st["ca"], st["pa"], LFSR_NEXT[st["pc"]])
        temp = Point(0, "break", addr=ret, cond=f"DEPTH <= {st['depth']}", temporary=True)
        stop = self.runner.run(None, [temp])
        if stop is not None and stop.point is temp:
            stop = Stop("next", self.cycle)
        return self._done(stop)

    def finish(self) -> Stop:
        """Run until the current subroutine returns (stop after its RETN)."""
        depth = self.state()["depth"]
        if depth == 0:
            raise DebugError("finish: not in a subroutine (the call stack is empty)")
        temps = [Point(0, "break", addr=(offset >> 10, offset >> 6 & 15, offset & 63),
                       cond=f"DEPTH == {depth}", temporary=True)
                 for offset, byte in enumerate(self.rom)
                 if decode_op(self.chip, byte)[0].fixed == "RETN"]
        stop = self.runner.run(None, temps)
        if stop is not None and stop.point in temps:
            inner = self.runner.run(self.cycle + 6, step_only=True)
            stop = inner or Stop("finish", self.cycle, detail=f"returned to "
                                 f"{self.describe(self.address)}")
        return self._done(stop)

    def until(self, where: str | tuple) -> Stop:
        """Run until the instruction at ``where`` (a label or c:p:pc) is next."""
        addr = self.resolve(where) if isinstance(where, str) else tuple(where)
        temp = Point(0, "break", addr=addr, temporary=True)
        stop = self.runner.run(None, [temp])
        if stop is not None and stop.point is temp:
            stop = Stop("until", self.cycle, detail=self.describe(addr))
        return self._done(stop)

    def run(self, seconds: float | None = None) -> Stop:
        """Continue until a breakpoint or watchpoint stops the machine, or for ``seconds`` of
        tower time (None: no limit; then something must be set to stop at)."""
        if seconds is not None and not 0 <= seconds < float("inf"):
            raise DebugError(f"run {seconds!r}: expected a finite number of seconds >= 0")
        end = None if seconds is None else self.cycle + max(6, round(seconds * self.clock_hz))
        if end is not None:
            origin = self.history.origin
            end = origin + -(-(end - origin) // 6) * 6
        stop = self.runner.run(end)
        return self._done(stop or Stop("time", self.cycle,
                                       detail=f"ran {seconds:g} s" if seconds else ""))

    cont = run

    def reverse_step(self, n: int = 1) -> Stop:
        """Go back ``n`` instructions (to the state stepping forward had there)."""
        if n < 1:
            raise DebugError(f"reverse-step {n}: expected 1 or more instructions")
        target = self.cycle - 6 * n
        if target < self.history.first:
            self.history.goto(self.history.first)
            return self._done(Stop("start of history", self.cycle))
        self.history.goto(target)
        return self._done(Stop("reverse-step", self.cycle))

    def reverse_continue(self) -> Stop:
        """Go back to the latest earlier stop of a breakpoint or watchpoint (or the start);
        ``interrupt`` stops the search at the earliest point searched (nothing after it)."""
        points = self.points.active()
        now = seg_end = self.cycle
        if points:
            for snap in self.history.earlier(now):
                if self.interrupt:                # nothing to stop at from here to now
                    self.interrupt = False
                    self.history.goto(seg_end)
                    return self._done(Stop("interrupted", self.cycle))
                found = self.runner.last_stop_between(snap, seg_end, now, points)
                if found is not None:
                    hit, point = found
                    self.history.goto(hit["cycle"])
                    point.hits += 1
                    what = "breakpoint" if point.kind == "break" else "watchpoint"
                    return self._done(Stop(f"{what} {point.number}", self.cycle, point,
                                           self.runner.hit_detail(hit)))
                seg_end = snap.cycle
        self.history.goto(self.history.first)
        return self._done(Stop("start of history", self.cycle))

    def goto(self, seconds: float) -> Stop:
        """Go to tower time ``seconds`` (earlier or later), without stopping at points; not
        before the start of history (the Stop says so), and a run forwards stops early when
        ``interrupt`` is set (Ctrl-C at the prompt)."""
        if not 0 <= seconds < float("inf"):
            raise DebugError(f"goto {seconds!r}: expected a finite tower time in seconds >= 0")
        origin = self.history.origin
        target = origin + max(0, -(-(round(seconds * self.clock_hz) - origin) // 6)) * 6
        if target < self.history.first:
            self.history.goto(self.history.first)
            return self._done(Stop("start of history", self.cycle))
        self.history.goto(target, lambda: self.interrupt)
        if self.cycle != target:
            self.interrupt = False
            return self._done(Stop("interrupted", self.cycle))
        return self._done(Stop("goto", self.cycle))

    def _done(self, stop: Stop) -> Stop:
        self.last_stop = stop
        return stop

    # ---- trace, save, load ----------------------------------------------------------------------

    def trace_on(self, path: str | os.PathLike) -> None:
        """Write the canonical trace line (``emulator.trace``) of every instruction run
        forwards from now to ``path``; runs step one instruction at a time while it is on."""
        self.trace_off()
        try:
            self.runner.trace = open(path, "w", encoding="utf-8")
        except OSError as exc:
            raise DebugError(f"{path}: cannot write the trace ({exc.strerror or exc})") \
                from None
        self._trace_path = str(path)

    def trace_off(self) -> str | None:
        """Stop tracing; return the trace file's name (None when none was open)."""
        path = self._trace_path
        trace: IO[str] | None = self.runner.trace
        if trace is not None:
            trace.close()
        self.runner.trace, self._trace_path = None, None
        return path

    def save(self, path: str | os.PathLike) -> None:
        """Write the machine state now (chip, board, keys journal) to ``path`` (gzip JSON)."""
        save_state(path, self.history, self.rom, self.chip.name, self.board_name,
                   self.clock_hz)

    def load(self, path: str | os.PathLike) -> None:
        """Restore a state written by :meth:`save`; the history starts again there."""
        load_state(path, self.history, self.rom, self.board_name, self.clock_hz)
        self.shown_ram = self.ram()
        self.last_stop = None
