"""The command language of ``towerlab debug``: one line per command over :class:`Debugger`.

``CommandShell(debugger, out).execute("break readk if A == 0")`` runs one command and writes
what it shows to ``out``; ``run_lines`` runs a command file (``-x FILE``) and ``interact``
reads commands from a terminal (readline history and completion where Python has readline).
Every command is a method of the debugger or one of its views (``emulator.debug``); ``help`` lists them::

    (towerlab) break shnew
    breakpoint 1 at 0:0:22 shnew
    (towerlab) press YES/BUY 0.2
    YES/BUY down for 0.2 s
    (towerlab) continue
    breakpoint 1: 0:0:22 shnew  [0.032878 s, cycle 13973]
    B=> 0:0:22  4B  TCY 13
"""
from __future__ import annotations

import shlex
import signal
from typing import IO, Callable, Iterable

from emulator.debug import DebugError, Debugger, Stop
from emulator.debug.views import (format_board, format_disasm, format_pins, format_points,
                                  format_ram, format_registers, format_view, point_text)

__all__ = ["CommandShell", "COMMANDS", "HELP"]

# name -> (usage, what it does); aliases in _ALIASES
HELP: dict[str, tuple[str, str]] = {
    "step": ("step [N]", "execute N instructions (1), stopping at breakpoints/watchpoints"),
    "next": ("next", "one instruction; over a CALL that is taken, until it returns"),
    "finish": ("finish", "run until the current subroutine returns"),
    "continue": ("continue", "run until a breakpoint or watchpoint stops it (Ctrl-C stops)"),
    "until": ("until ADDR", "run until the instruction at ADDR is next"),
    "run": ("run SECONDS", "run SECONDS of tower time (stopping at breakpoints/watchpoints)"),
    "break": ("break ADDR [if COND]", "breakpoint at c:p:pc (hex) or a label (label+N too); "
              "stops before the instruction"),
    "watch": ("watch ram X:Y[-X:Y] [read|write|access] [if COND] | watch r [PIN..] | "
              "watch o [PIN..] | watch k",
              "stop after an instruction that reads/writes the nibbles (default write; a "
              "store of the value held counts), changes an R or O pin, or reads a non-zero K"),
    "delete": ("delete [N]", "delete breakpoint/watchpoint N (all without N)"),
    "disable": ("disable N", "disable breakpoint/watchpoint N"),
    "enable": ("enable N", "enable breakpoint/watchpoint N"),
    "info": ("info", "list breakpoints and watchpoints"),
    "press": ("press BUTTON [HOLD]", "press a key now, held HOLD seconds or until release "
              "(after going back: the keys given later are forgotten, and named)"),
    "release": ("release [BUTTON]", "release a key (every key without BUTTON)"),
    "regs": ("regs", "registers, call stack and clock"),
    "ram": ("ram", "the RAM, one row per file X; * marks nibbles changed since last shown"),
    "pins": ("pins", "R and O pins and K"),
    "display": ("display", "what the board shows: digits, lamps, reel, keys down"),
    "disasm": ("disasm [ADDR] [N]", "N instructions from ADDR (default: around PC)"),
    "view": ("view", "registers, RAM, pins, board and disassembly"),
    "trace": ("trace on FILE | trace off", "write the canonical trace of what runs"),
    "save": ("save FILE", "write the machine state"),
    "load": ("load FILE", "restore a machine state written by save"),
    "reverse-step": ("reverse-step [N]", "go back N instructions (1)"),
    "reverse-continue": ("reverse-continue", "go back to the previous breakpoint or "
                         "watchpoint stop"),
    "goto": ("goto SECONDS", "go to tower time SECONDS, earlier or later"),
    "help": ("help [COMMAND]", "this list, or one command"),
    "quit": ("quit", "leave the debugger"),
}
_ALIASES = {"s": "step", "si": "step", "stepi": "step", "n": "next", "ni": "next",
            "c": "continue", "cont": "continue", "b": "break", "d": "delete",
            "rs": "reverse-step", "rsi": "reverse-step", "rc": "reverse-continue",
            "q": "quit", "exit": "quit", "x": "disasm", "registers": "regs", "i": "info",
            "breaks": "info", "?": "help"}
COMMANDS = tuple(HELP)
_MOVES = {"step", "next", "finish", "continue", "until", "run", "reverse-step",
          "reverse-continue", "goto", "load"}


class _Quit(Exception):
    pass


class CommandShell:
    """Run debugger commands from text, writing their output to ``out``.

    ``full_view`` shows registers, RAM, pins, board and disassembly after every stop (the
    terminal default); otherwise a stop prints its reason and the next instruction. ``color``
    highlights changed RAM nibbles with ANSI colour instead of ``*``.
    """

    def __init__(self, debugger: Debugger, out: IO[str], full_view: bool = False,
                 color: bool = False) -> None:
        self.dbg = debugger
        self.out = out
        self.full_view = full_view
        self.color = color
        self.interactive = False        # set by interact: Ctrl-C can end an open continue

    # ---- one command ----------------------------------------------------------------------

    def execute(self, line: str) -> bool:
        """Run one command line; return False when it was ``quit``. DebugError (and the
        library's ValueErrors) propagate with a one-line message."""
        line = line.strip()
        if not line or line.startswith("#"):
            return True
        try:
            words = shlex.split(line)
        except ValueError as exc:
            raise DebugError(f"{line!r}: {exc}") from None
        name = _ALIASES.get(words[0].lower(), words[0].lower())
        handler: Callable | None = getattr(self, "_do_" + name.replace("-", "_"), None)
        if handler is None:
            raise DebugError(f"unknown command {words[0]!r} (type 'help' for the list)")
        try:
            handler(words[1:], line)
        except _Quit:
            return False
        return True

    def run_lines(self, lines: Iterable[str], echo: bool = True) -> None:
        """Run commands one per line (a ``-x`` file), echoing each after the prompt; stop at
        the first failing one (DebugError names its line) or at ``quit``."""
        for number, line in enumerate(lines, 1):
            if echo and line.strip() and not line.lstrip().startswith("#"):
                self._print(f"(towerlab) {line.rstrip()}")
            try:
                if not self.execute(line):
                    return
            except ValueError as exc:
                raise DebugError(f"line {number}: {str(exc).splitlines()[0]}") from None

    def interact(self, prompt: str = "(towerlab) ",
                 read: Callable[[str], str] = input) -> None:
        """Read and run commands until ``quit`` or end of input; errors print one line.

        Ctrl-C while the machine runs stops it at the next segment; at the prompt it
        gives a new prompt."""
        _setup_readline()
        self.interactive = True
        self._print(f"{self.dbg.source} on the {self.dbg.board_name} board "
                    f"({self.dbg.chip.name.upper()}, {self.dbg.core} core); type 'help'")
        self._show_stop(None)
        while True:
            try:
                line = read(prompt)
            except EOFError:
                self._print("")
                return
            except KeyboardInterrupt:
                self._print("")
                continue
            try:
                if not self._interruptible(lambda: self.execute(line)):
                    return
            except ValueError as exc:
                self._print(f"error: {str(exc).splitlines()[0]}")

    def _interruptible(self, fn: Callable[[], bool]) -> bool:
        def on_sigint(signum, frame):
            self.dbg.interrupt = True
        try:
            old = signal.signal(signal.SIGINT, on_sigint)
        except ValueError:              # not the main thread: no Ctrl-C handling
            return fn()
        try:
            return fn()
        finally:
            signal.signal(signal.SIGINT, old)
            self.dbg.interrupt = False

    # ---- output ---------------------------------------------------------------------------

    def _print(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def _show_stop(self, stop: Stop | None) -> None:
        if stop is not None:
            self._print(f"{stop}  [{self.dbg.seconds:.6f} s, cycle {self.dbg.cycle}]")
        if self.full_view:
            self._print(format_view(self.dbg, self.color))
        else:
            here = [ln for ln in format_disasm(self.dbg, count=1, before=0).splitlines()
                    if "=>" in ln]
            self._print(here[0] if here else "")

    # ---- commands ---------------------------------------------------------------------------

    @staticmethod
    def _count(args: list[str], name: str, default: int = 1) -> int:
        if not args:
            return default
        try:
            n = int(args[0], 0)
        except ValueError:
            raise DebugError(f"{name} {args[0]!r}: expected a number") from None
        return n

    @staticmethod
    def _split_cond(line: str, keyword_index: int = 1) -> tuple[list[str], str | None]:
        head, sep, cond = line.partition(" if ")
        words = shlex.split(head)[keyword_index:]
        return words, (cond.strip() or None) if sep else None

    def _do_step(self, args, line):
        self._show_stop(self.dbg.step(self._count(args, "step")))

    def _do_next(self, args, line):
        self._show_stop(self.dbg.next())

    def _do_finish(self, args, line):
        self._show_stop(self.dbg.finish())

    def _do_continue(self, args, line):
        if not any(p.enabled for p in self.dbg.points.values()):
            if not self.interactive:
                raise DebugError("continue with no breakpoint or watchpoint would never end "
                                 "(expected 'run SECONDS', or a break/watch first)")
            self._print("no breakpoints or watchpoints: running until Ctrl-C")
            self._show_stop(self.dbg.run(seconds=1e9))
            return
        self._show_stop(self.dbg.run())

    def _do_until(self, args, line):
        if len(args) != 1:
            raise DebugError("until needs one address (c:p:pc or a label)")
        self._show_stop(self.dbg.until(args[0]))

    def _do_run(self, args, line):
        if len(args) != 1:
            raise DebugError("run needs a time in seconds (e.g. run 2.5)")
        self._show_stop(self.dbg.run(_seconds(args[0], "run")))

    def _do_goto(self, args, line):
        if len(args) != 1:
            raise DebugError("goto needs a time in seconds")
        self._show_stop(self.dbg.goto(_seconds(args[0], "goto")))

    def _do_reverse_step(self, args, line):
        self._show_stop(self.dbg.reverse_step(self._count(args, "reverse-step")))

    def _do_reverse_continue(self, args, line):
        self._show_stop(self.dbg.reverse_continue())

    def _do_break(self, args, line):
        words, cond = self._split_cond(line)
        if len(words) != 1:
            raise DebugError("break needs one address: c:p:pc (hex) or a label, then "
                             "optionally 'if COND'")
        p = self.dbg.add_break(words[0], cond)
        self._print(f"breakpoint {p.number} at {self.dbg.describe(p.addr)}"
                    + (f" if {cond}" if cond else ""))

    def _do_watch(self, args, line):
        words, cond = self._split_cond(line)
        if not words:
            raise DebugError("watch what? (watch ram X:Y [read|write|access], watch r [PIN], "
                             "watch o [PIN], watch k)")
        what = words[0].lower()
        if what == "ram":
            if len(words) not in (2, 3):
                raise DebugError("watch ram needs an address X:Y (or a range X:Y-X:Y) and "
                                 "optionally read, write or access")
            mode = words[2].lower() if len(words) == 3 else "write"
            p = self.dbg.add_watch_ram(words[1], mode, cond)
        elif what in ("r", "o"):
            pins = []
            for w in words[1:]:
                w = w.upper().removeprefix(what.upper())
                try:
                    pins.append(int(w))
                except ValueError:
                    raise DebugError(f"pin {w!r}: expected a pin number (e.g. watch r 9)") \
                        from None
            p = self.dbg.add_watch_pins(what, pins or None, cond)
        elif what == "k":
            if len(words) != 1:
                raise DebugError("watch k takes no address (it stops at a non-zero K read)")
            p = self.dbg.add_watch_k(cond)
        else:
            raise DebugError(f"watch {words[0]!r} (expected ram, r, o or k)")
        self._print(f"watchpoint {p.number}: {point_text(self.dbg, p)}")

    def _do_delete(self, args, line):
        self.dbg.delete(self._count(args, "delete") if args else None)

    def _do_disable(self, args, line):
        self.dbg.enable(self._count(args, "disable", -1), False)

    def _do_enable(self, args, line):
        self.dbg.enable(self._count(args, "enable", -1), True)

    def _do_info(self, args, line):
        self._print(format_points(self.dbg))

    def _do_press(self, args, line):
        if not args:
            raise DebugError("press needs a button (e.g. press YES/BUY 0.2)")
        hold = None
        try:
            hold = float(args[-1])
            args = args[:-1]
        except ValueError:
            pass
        button = self._button(" ".join(args))
        self.dbg.press(button, hold)
        self._print(f"{button} down" + (f" for {hold:g} s" if hold else " (until release)"))
        self._say_forgotten()

    def _do_release(self, args, line):
        button = self._button(" ".join(args)) if args else None
        self.dbg.release(button)
        self._print(f"{button or 'every key'} released")
        self._say_forgotten()

    def _say_forgotten(self) -> None:
        """Say which keys given later (before going back) a key given now replaced."""
        gone = self.dbg.forgotten
        if gone:
            keys = ", ".join(f"{b or 'release'} at {c / self.dbg.clock_hz:.6f} s"
                             for c, _, b, _, _ in gone)
            self._print(f"forgot the {len(gone)} later key{'s' if len(gone) > 1 else ''} "
                        f"given before going back ({keys}): a key now changes what follows")

    def _button(self, text: str) -> str:
        from emulator.boards import board_keys
        keys = board_keys(self.dbg.board_name)
        wanted = text.strip().upper()
        for k in keys:
            if k.upper() == wanted:
                return k
        raise DebugError(f"unknown button {text!r} (expected one of {', '.join(keys)})")

    def _do_regs(self, args, line):
        self._print(format_registers(self.dbg))

    def _do_ram(self, args, line):
        self._print(format_ram(self.dbg, self.color))
        self.dbg.shown_ram = self.dbg.ram()

    def _do_pins(self, args, line):
        self._print(format_pins(self.dbg))

    def _do_display(self, args, line):
        self._print(format_board(self.dbg))

    def _do_view(self, args, line):
        self._print(format_view(self.dbg, self.color))

    def _do_disasm(self, args, line):
        where = None
        count = 7
        if args:
            try:
                count = int(args[-1], 10)
                args = args[:-1]
            except ValueError:
                pass
        if args:
            where = args[0]
        if count < 1:
            raise DebugError(f"disasm {count}: expected 1 or more instructions")
        self._print(format_disasm(self.dbg, where, count))

    def _do_trace(self, args, line):
        if args[:1] == ["on"] and len(args) == 2:
            self.dbg.trace_on(args[1])
            self._print(f"tracing to {args[1]} (runs step one instruction at a time)")
        elif args == ["off"]:
            path = self.dbg.trace_off()
            self._print(f"trace {path} closed" if path else "no trace was on")
        else:
            raise DebugError("trace on FILE | trace off")

    def _do_save(self, args, line):
        if len(args) != 1:
            raise DebugError("save needs a file name")
        self.dbg.save(args[0])
        self._print(f"saved the state at {self.dbg.seconds:.6f} s to {args[0]}")

    def _do_load(self, args, line):
        if len(args) != 1:
            raise DebugError("load needs a file name")
        self.dbg.load(args[0])
        self._show_stop(Stop("loaded", self.dbg.cycle, detail=args[0]))

    def _do_help(self, args, line):
        if args:
            name = _ALIASES.get(args[0].lower(), args[0].lower())
            if name not in HELP:
                raise DebugError(f"no command {args[0]!r} (type 'help' for the list)")
            usage, what = HELP[name]
            self._print(f"{usage}\n    {what}")
            return
        for usage, what in HELP.values():
            self._print(f"  {usage:<34} {what}" if len(usage) <= 34 else
                        f"  {usage}\n  {'':<34} {what}")
        self._print("ADDR: c:p:pc in hex (0:F:00) or a label; COND: e.g. A == 3, "
                    "ram[0x08] == 2, X == 0 and Y == 8, DEPTH > 1")

    def _do_quit(self, args, line):
        raise _Quit


def _seconds(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise DebugError(f"{what} {text!r}: expected seconds") from None
    return value


def _setup_readline() -> None:
    try:
        import readline
    except ImportError:                       # pragma: no cover - no readline on this Python
        return
    words = sorted(set(HELP) | set(_ALIASES))

    def complete(text: str, state: int):
        matches = [w for w in words if w.startswith(text)]
        return matches[state] if state < len(matches) else None
    readline.set_completer(complete)
    readline.parse_and_bind("tab: complete")
