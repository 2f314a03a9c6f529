"""Wire a TMS1100 core into Mattel's D&D Computer Labyrinth Game: touch board, buttons, speaker.

The wiring is MAME 0.251's ``mdndclab`` driver as described in ``docs/labyrinth-wiring.md``:

    O0-O7      input-mux bits 0-7 (the O pins *after* the output PLA): bottom-half columns
    R0         input-mux bit 8: the button group Wall/Door, Illegal Move, Warrior 1, Warrior 2
    R1-R8      input-mux bits 9-16: top-half columns of the 8x8 board
    R9         input-mux bit 17: Switch Key, Next Turn, Dragon Flying, Dragon Attacks
    R10        speaker (1-bit, level = R10)
    K1-K8      OR of the 4-bit rows of every selected mux column

Squares are named by column letter A-H (left to right) and row number 1-8 (top to bottom):
rows 1-4 are read through R1-R8 (K1..K8 = rows 1..4), rows 5-8 through O0-O7 (K1..K8 = rows
5..8). Keys act from the exact cycle they are pressed.

Example::

    board = LabyrinthBoard(Cpu(TMS1100, rom, mpla, opla))
    board.press("C6"); board.run_until(475_000)
"""
from __future__ import annotations

import heapq
from typing import Callable

from captures.events import make_event
from emulator.keyqueue import ScriptedKeys

__all__ = ["LabyrinthBoard", "LABYRINTH_CHANNELS", "LABYRINTH_KEYS", "LABYRINTH_BUTTONS",
           "square_name"]

LABYRINTH_CHANNELS = tuple([f"R{i}" for i in range(11)] + [f"O{i}" for i in range(8)]
                           + ["K1", "K2", "K4", "K8"])

# Side buttons (docs/labyrinth-wiring.md §2, layout names): name -> (mux bit, K bit).
LABYRINTH_BUTTONS: dict[str, tuple[int, int]] = {
    "WALL/DOOR": (8, 1), "ILLEGAL MOVE": (8, 2), "WARRIOR 1": (8, 4), "WARRIOR 2": (8, 8),
    "SWITCH KEY": (17, 1), "NEXT TURN": (17, 2), "DRAGON FLYING": (17, 4),
    "DRAGON ATTACKS": (17, 8),
}


def square_name(col: int, row: int) -> str:
    """Return the name of the square at ``col`` 0-7 (left to right), ``row`` 0-7 (top down)."""
    return f"{'ABCDEFGH'[col]}{row + 1}"


def _square_keys() -> dict[str, tuple[int, int]]:
    keys = {}
    for col in range(8):
        for row in range(8):
            if row < 4:
                keys[square_name(col, row)] = (9 + col, 1 << row)      # R(1+col)
            else:
                keys[square_name(col, row)] = (col, 1 << (row - 4))    # O(col)
    return keys


# Every key of the game: 64 squares and 8 buttons -> (mux bit 0-17, K bit).
LABYRINTH_KEYS: dict[str, tuple[int, int]] = {**_square_keys(), **LABYRINTH_BUTTONS}

_K_SHIFT = LABYRINTH_CHANNELS.index("K1")
_O_SHIFT = LABYRINTH_CHANNELS.index("O0")


class LabyrinthBoard(ScriptedKeys):
    """The Labyrinth around a TMS1100 core: attaches to the core's pin callbacks.

    ``pins`` records ``(cycle, word)`` over ``LABYRINTH_CHANNELS``; ``events`` holds button
    press/release events (``button`` = square or button name); ``speaker`` records
    ``(cycle, level)`` of R10.
    """

    name = "labyrinth"
    channels = LABYRINTH_CHANNELS

    def __init__(self, cpu=None, clock_hz: int = 475_000):
        from emulator.darktower import BoardError

        if clock_hz <= 0:
            raise BoardError(f"clock {clock_hz!r} Hz must be a positive number of Hz")
        self._error = BoardError
        self.clock_hz = int(clock_hz)
        self.cpu = cpu
        self.r = 0
        self.o = 0
        self.mux_keys = [0] * 18          # mux bit -> pressed K bits
        self.pressed: set[str] = set()
        self.pins: list[tuple[int, int]] = [(0, 0)]
        self.speaker: list[tuple[int, int]] = [(0, 0)]
        self.events: list[dict] = []
        self._word = 0
        self._cycle = 0
        self._sched: list[tuple] = []   # (cycle, order, seq, kind, key, seconds or None)
        self._seq = 0
        self._listeners: list[Callable[[int, int], None]] = []
        if cpu is not None:
            cpu.on_r = self.write_r
            cpu.on_o = self.write_o
            cpu.read_k = self.read_k

    def write_r(self, cycle: int, r: int) -> None:
        """Take the 11 R latches at ``cycle``: R0-R9 mux, R10 speaker."""
        self.advance_to(cycle)
        self.r = r & 0x7FF
        spk = self.r >> 10 & 1
        if spk != self.speaker[-1][1]:
            self.speaker.append((cycle, spk))
        self._update_word(cycle)

    def write_o(self, cycle: int, o: int) -> None:
        """Take the 8 O pins (after the output PLA) at ``cycle``: mux bits 0-7."""
        self.advance_to(cycle)
        self.o = o & 0xFF
        self._update_word(cycle)

    def read_k(self, cycle: int) -> int:
        """Return K (bits 0-3) = OR of the rows of every selected mux column at ``cycle``."""
        self.advance_to(cycle)
        return self._k()

    def press(self, key: str, cycle: int | None = None, seconds: float | None = None) -> None:
        """Touch square or button ``key`` from ``cycle`` (default: now); ``seconds`` is the
        session time to report in the button event (default: the cycle's)."""
        self._key(key, True, cycle, seconds)

    def release(self, key: str, cycle: int | None = None, seconds: float | None = None) -> None:
        """Lift ``key`` from ``cycle`` (default: now)."""
        self._key(key, False, cycle, seconds)

    def run_until(self, cycle: int) -> None:
        """Run the chip (if any) and the board up to ``cycle``."""
        if self.cpu is not None:
            self.cpu.run_until(cycle)
        self.advance_to(cycle)

    def advance_to(self, cycle: int) -> None:
        """Apply the scheduled key changes due at or before ``cycle``."""
        while self._sched and self._sched[0][0] <= cycle:
            c, _, _, kind, key, secs = heapq.heappop(self._sched)
            self._apply(key, kind == "press", c, secs)
        self._cycle = max(self._cycle, cycle)

    def add_pin_listener(self, fn: Callable[[int, int], None]) -> None:
        """Call ``fn(cycle, word)`` on every later change of the pin word."""
        self._listeners.append(fn)

    def _mux(self) -> int:
        return (self.o & 0xFF) | ((self.r & 0x3FF) << 8)

    def _k(self) -> int:
        mux = self._mux()
        k = 0
        for bit, rows in enumerate(self.mux_keys):
            if rows and mux >> bit & 1:
                k |= rows
        return k

    def _update_word(self, cycle: int) -> None:
        word = self.r | (self.o << _O_SHIFT) | (self._k() << _K_SHIFT)
        if word == self._word:
            return
        self._word = word
        if self.pins[-1][0] == cycle:
            self.pins[-1] = (cycle, word)
        else:
            self.pins.append((cycle, word))
        for fn in self._listeners:
            fn(cycle, word)

    def _check_key(self, key: str) -> None:
        self._check(key)

    def _check(self, key: str) -> None:
        if key not in LABYRINTH_KEYS:
            raise self._error(f"unknown Labyrinth key {key!r} (expected a square A1-H8 or one "
                              f"of {', '.join(LABYRINTH_BUTTONS)})")

    def _key(self, key: str, down: bool, cycle: int | None, seconds: float | None) -> None:
        self._check(key)
        if cycle is None:
            self._apply(key, down, self._cycle, seconds)
        else:
            self._queue(cycle, 1 if down else 0, "press" if down else "release", key, seconds)

    def _apply(self, key: str, down: bool, cycle: int, seconds: float | None = None) -> None:
        if down == (key in self.pressed):
            return
        bit, row = LABYRINTH_KEYS[key]
        if down:
            self.pressed.add(key)
            self.mux_keys[bit] |= row
        else:
            self.pressed.discard(key)
            self.mux_keys[bit] &= ~row
        t = cycle / self.clock_hz if seconds is None else seconds
        self.events.append(make_event(t, "button", button=key,
                                      action="press" if down else "release"))
        self._update_word(cycle)
