"""Towers that answer the ``captures.tower.Tower`` protocol without hardware: the emulator on a
board model (``EmulatorTower``) and a recorded session (``ReplayTower``).

``EmulatorTower`` runs the core of a board's row (``emulator.boards``: the TMS1400 of
``emulator.darktower``, the TMS1100 of ``emulator.labyrinth``) on that board: the open demo
firmware (``emulator/firmware/demo.asm``, assembled on first use), a user's ROM with optional
PLA files, or a MAME romset. It is deterministic: the same
presses at the same tower times give the same pins and events. Its events are the
``analysis`` decoders over the chip's pins (display, lamps, motor, tones) plus the board-only
facts (reel card_pos as MAME publishes it, button presses at the time the chip first sees them)
and power switching, in time order::

    tower = EmulatorTower()                     # the demo firmware on the Dark Tower board
    events = run_script(tower, read_script("tests/data/captures/tower_test/script.txt"))
    tower.capture()                             # MemoryCapture of the pins at 425 kHz

``ReplayTower`` answers from a recorded capture folder (``script.txt``, ``events.jsonl`` and a
``capture.sr`` or ``edges.jsonl.gz``): presses and releases must be the recording's, and the
events are the recording's up to ``now``.
"""
from __future__ import annotations

import bisect
import os
from pathlib import Path
from typing import Callable

from captures.eventlog import EventList, EventLog
from captures.events import make_event, read_events
from captures.model import CaptureInfo, Changes, MemoryCapture
from captures.script import read_script
from emulator.boards import DEMO_SOURCE, demo_program

__all__ = ["TargetError", "EmulatorTower", "ReplayTower", "demo_program", "DEMO_SOURCE"]


# New pin changes up to which a read decodes them in plain Python (more: numpy arrays).
_BULK = 2000


class TargetError(ValueError):
    """A tower target was given a bad source or an action it cannot take; one line."""


class EmulatorTower:
    """The emulated tower: a core plus a board model behind the Tower protocol.

    Exactly one of ``firmware`` ("demo"), ``rom`` (a raw ROM image path) or ``romset`` (a MAME
    romset zip or folder) gives the program; with none, the demo firmware runs. ``mpla`` /
    ``opla`` (paths or ``emulator.pla.Pla``) override the PLAs; the defaults are the standard
    micro PLA and the board row's default output PLA (the Dark Tower's glyph table).
    ``clock_hz`` defaults to the row's (MAME's) clock for the board. The session starts
    powered (power-on at t = 0), as the shared captures do, unless ``powered`` is False. ``core`` is "fast" (the compiled kernel, falling
    back to the reference core with a notice where it is not built) or "reference".
    ``summary`` is one line saying what was loaded (``mbdtower.zip: mbdtower set, TMS1400``)
    and ``notes`` what was recognised or warned about, for the command line to print.
    """

    def __init__(self, firmware: str | None = None, rom: str | os.PathLike | None = None,
                 romset: str | os.PathLike | None = None, mpla=None, opla=None,
                 board: str = "darktower", clock_hz: int | None = None, powered: bool = True,
                 core: str = "fast"):
        from emulator.boards import BOARDS
        from emulator.machine import MachineError, build_machine

        if board not in BOARDS:
            raise TargetError(f"unknown board {board!r} (expected one of {', '.join(BOARDS)})")
        if firmware is None and rom is None and romset is None:
            firmware = "demo"
        try:
            machine = build_machine(firmware=firmware, rom=rom, romset=romset, mpla=mpla,
                                    opla=opla, board=board, clock_hz=clock_hz, core=core)
        except MachineError as exc:
            raise TargetError(str(exc)) from None
        self.source, self.summary, self.notes = machine.source, machine.summary, machine.notes
        self.spec = machine.spec
        self.board_name = board
        self.cpu, self.core, self.board = machine.cpu, machine.core, machine.board
        self.clock_hz = machine.clock_hz
        self._cycle = 0
        self._t = 0.0
        self._powered = False
        self._power_events: list[dict] = []
        self._dec = None
        self._fed = 0
        self._log = EventLog(("decoded", "pending", "board", "power"), first=("power", "button"))
        self._board_seen = self._power_seen = 0
        self._closed = False
        if powered:
            self.power(True)

    # ---- the Tower protocol ------------------------------------------------------------------

    @property
    def now(self) -> float:
        """Return the tower time in seconds since the session began."""
        return self._t

    def power(self, on: bool) -> None:
        """Switch on (a power-on reset: RAM and registers cleared, as MAME starts) or off
        (the chip stops and its pins fall to 0; the reel keeps coasting)."""
        self._check_open()
        on = bool(on)
        if on == self._powered:
            return
        self.board.advance_to(self._cycle)
        cpu = self.cpu
        if on:
            cpu.power_on(self._cycle)
        else:
            # the chip finishes the instruction it fetched before now (run_until), whose pins
            # change at its fetch + 3 (cpu.cycle - 3), up to 2 clocks past now: they fall
            # there at the earliest
            off = max(self._cycle, cpu.cycle - 3)
            self.board.write_r(off, 0)
            self.board.write_o(off, 0)
        self._powered = on
        if self._cycle > 0 or not on:
            self._power_events.append(make_event(self._t, "power", on=int(on)))

    def press(self, button: str) -> None:
        """Close ``button``'s contact now (the chip sees it from this cycle on)."""
        self._check_open()
        self._check_button(button)
        self.board.press(button, self._cycle, self._t)
        self.board.advance_to(self._cycle)

    def release(self, button: str) -> None:
        """Open ``button``'s contact now."""
        self._check_open()
        self._check_button(button)
        self.board.release(button, self._cycle, self._t)
        self.board.advance_to(self._cycle)

    def advance(self, seconds: float) -> None:
        """Run the emulation for ``seconds`` of tower time (exactly, at the board's clock)."""
        self._check_open()
        if not seconds >= 0:
            raise TargetError(f"cannot advance by {seconds!r} s (expected seconds >= 0)")
        self._t += seconds
        target = self.board.cycle_at(self._t)
        if target <= self._cycle:
            return
        if self._powered:
            self.board.run_until(target)
        else:
            self.board.advance_to(target)
        self._cycle = target

    def events(self) -> list[dict]:
        """Return every event up to now: decoded pins, board events and power, time-sorted
        (power, then buttons, first at equal times).

        Read as often as you like: each read decodes only the pins since the last one and
        merges only the events not yet settled (``captures.eventlog``), so reading after
        every step costs little more than reading once at the end (benchmarks/live_read.py),
        and gives what one read at the same time would (tests/tower/test_live_read.py).
        """
        dec = self._decoder()
        rest = self._feed()
        log = self._log
        board = self.board.events
        if len(board) > self._board_seen:
            log.add("board", board[self._board_seen:])
            self._board_seen = len(board)
        if len(self._power_events) > self._power_seen:
            log.add("power", self._power_events[self._power_seen:])
            self._power_seen = len(self._power_events)
        end = self._cycle if rest is None else max(self._cycle, int(rest.times[-1]) + 1)
        pending = dec.peek(end, rest)
        # Board and power events come at the tower's time or later (a reel frame just past a
        # clock boundary): 10 us of margin keeps their rounding to 1 us clear of it.
        log.settle(min(dec.released, self._t - 1e-5))
        return log.read(upto=self._t + 1e-9, pending=pending)

    def close(self) -> None:
        """Release every key; the tower stays readable (events, capture) but takes no actions."""
        if self._closed:
            return
        for button in sorted(self.board.pressed):
            self.board.release(button, self._cycle, self._t)
        self.board.advance_to(self._cycle)
        self._closed = True

    # ---- beyond the protocol -------------------------------------------------------------------

    @property
    def cycle(self) -> int:
        """Return the board clock cycle the session has reached."""
        return self._cycle

    def capture(self) -> MemoryCapture:
        """Return the pins so far as a MemoryCapture (samplerate = the chip clock)."""
        times, words = self.board.pin_arrays()
        # the chip ends the instruction it fetched before now: its pins may change up to 2
        # clocks past the session's end, which the capture then still holds
        end = max(self._cycle, int(times[-1]) + 1 if len(times) else 1)
        info = CaptureInfo(list(self.board.channels), self.clock_hz, end,
                           {"source": f"TowerLab emulator, {self.source}",
                            "board": self.board_name})
        return MemoryCapture(info, times, words)

    def add_pin_listener(self, fn: Callable[[int, int], None]) -> None:
        """Call ``fn(cycle, word)`` on every later pin change (word over the board's channels)."""
        self.board.add_pin_listener(fn)

    def speaker_capture(self) -> MemoryCapture:
        """Return the speaker alone as a capture with channels R4 (held 0) and R10, for
        ``analysis.sound`` (the Labyrinth's R4 is a mux line, not an enable)."""
        speaker = self.board.speaker
        edges = [(0, "R4", 0)] + [(c, "R10", lvl) for c, lvl in speaker]
        return MemoryCapture.from_edges(["R4", "R10"], self.clock_hz, edges,
                                        max(self._cycle, speaker[-1][0] + 1 if speaker else 1))

    def speaker_edges(self, start: int = 0) -> list[tuple[int, int]]:
        """Return the speaker level changes ``(cycle, level)`` so far (R10 AND NOT R4), from
        index ``start`` on (a live reader's new ones)."""
        return self.board.speaker[start:]

    # ---- internals ---------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise TargetError("this tower is closed")

    def _check_button(self, button: str) -> None:
        try:
            self.board.check_key(button)
        except ValueError as exc:
            raise TargetError(str(exc)) from None

    def _decoder(self):
        """Return the stream decoder of the row's decoders over the board's event pins (the
        Dark Tower's own pins; the Labyrinth's speaker alone)."""
        if self._dec is None:
            from analysis.decode import StreamDecoder

            info = CaptureInfo(list(self.board.event_channels), self.clock_hz)
            self._dec = StreamDecoder(info, only=self.spec.decoders)
        return self._dec

    def _feed(self) -> Changes | None:
        """Feed the pin changes since the last call to the incremental decoders and their
        final events to the log, up to the current cycle: the board records every later pin
        change at this cycle or after, where it may still replace the last one. Return the
        changes from the current cycle on (None: none, as usual)."""
        dec, board = self._dec, self.board
        if board.event_count() - self._fed > _BULK:
            import numpy as np

            times, words = board.event_arrays(self._fed)
            n = int(np.searchsorted(times, self._cycle, "left"))
            if n:
                self._log.add("decoded", dec.feed(Changes(times[:n], words[:n])))
                self._fed += n
            return Changes(times[n:], words[n:]) if n < len(times) else None
        pairs = board.event_pairs(self._fed)
        n = len(pairs)
        while n and pairs[n - 1][0] >= self._cycle:
            n -= 1
        if n:
            self._log.add("decoded", dec.feed_pairs(pairs[:n] if n < len(pairs) else pairs))
            self._fed += n
        if n == len(pairs):
            return None
        import numpy as np

        rest = pairs[n:]
        return Changes(np.array([t for t, _ in rest], np.int64),
                       np.array([w for _, w in rest], np.uint64))


class ReplayTower:
    """A recorded session behind the Tower protocol.

    ``folder`` holds ``script.txt`` and ``events.jsonl`` (and a ``capture.sr`` or
    ``edges.jsonl.gz`` for ``capture()``). ``press``/``release`` must match the recording's
    script within ``tolerance_s``; ``events()`` returns the recorded events up to ``now``.
    """

    def __init__(self, folder: str | os.PathLike, tolerance_s: float = 0.002):
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise TargetError(f"{self.folder}: not a recording folder")
        self.script = read_script(str(self.folder / "script.txt"))
        self._events = read_events(str(self.folder / "events.jsonl"))
        # A recording in time order (as recorded) is read by its prefix up to now.
        self._times = [e["t"] for e in self._events]
        self._in_order = all(a <= b for a, b in zip(self._times, self._times[1:]))
        self.tolerance_s = tolerance_s
        self._t = 0.0
        self._expected = self._expected_actions()    # script actions not yet taken
        self._closed = False

    @property
    def now(self) -> float:
        """Return the replay time in seconds."""
        return self._t

    def power(self, on: bool) -> None:
        """Accept a power switch the recording has at this time (power on at 0 is implicit)."""
        if on and self._t <= self.tolerance_s and not self._pending("power", True):
            return
        self._expect("power", bool(on))

    def press(self, button: str) -> None:
        """Accept a press the recording's script has at this time; TargetError otherwise."""
        self._expect("press", button)

    def release(self, button: str) -> None:
        """Accept a release the recording's script has at this time; TargetError otherwise."""
        self._expect("release", button)

    def advance(self, seconds: float) -> None:
        """Move the replay time on by ``seconds``."""
        if not seconds >= 0:
            raise TargetError(f"cannot advance by {seconds!r} s (expected seconds >= 0)")
        self._t += seconds

    def events(self) -> list[dict]:
        """Return the recorded events up to now (in the recording's order)."""
        if self._in_order:
            return EventList(self._events, bisect.bisect_right(self._times, self._t + 1e-9))
        return [e for e in self._events if e["t"] <= self._t + 1e-9]

    def close(self) -> None:
        """End the replay."""
        self._closed = True

    def capture(self):
        """Open the recording's capture (``capture.sr`` or ``edges.jsonl.gz``)."""
        from captures.formats import open_capture

        for name in ("edges.jsonl.gz", "capture.sr"):
            path = self.folder / name
            if path.exists():
                return open_capture(path)
        raise TargetError(f"{self.folder}: no capture.sr or edges.jsonl.gz")

    def _expected_actions(self) -> list[tuple[float, str, object]]:
        from captures.script import timeline

        return list(timeline(self.script))

    def _pending(self, kind: str, arg) -> bool:
        return any(k == kind and a == arg and abs(t - self._t) <= self.tolerance_s
                   for t, k, a in self._expected[:4])

    def _expect(self, kind: str, arg) -> None:
        """Take the matching action among the next few of the script (same-time actions may
        come in any order); TargetError naming the expected next action otherwise."""
        if self._closed:
            raise TargetError("this replay is closed")
        for i, (t, k, a) in enumerate(self._expected[:4]):
            if k == kind and a == arg and abs(t - self._t) <= self.tolerance_s:
                del self._expected[i]
                return
        nxt = self._expected[0] if self._expected else None
        want = f"{nxt[1]} {nxt[2]} at {nxt[0]:g} s" if nxt else "nothing more"
        raise TargetError(f"{self.folder}: {kind} {arg} at {self._t:g} s is not in the "
                          f"recording (it has {want} next)")
