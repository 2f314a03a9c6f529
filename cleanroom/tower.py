"""Answer the Tower protocol (captures.tower) with the clean-room game.

``CleanroomTower`` is a tower like the emulator's or a real one: power it, press and release
keys, advance time, read the events (captures.events vocabulary, with the tower's timing).
``captures.tower.run_script`` drives it, so every session script plays on it unchanged::

    tower = CleanroomTower(seed=1)
    events = run_script(tower, read_script("tests/data/captures/level_select/script.txt"))

The session starts powered, as the shared captures do (power-on at t = 0).
"""
from __future__ import annotations

from captures.eventlog import EventLog
from captures.script import BUTTONS

from .engine import EngineError
from .choosers import Chooser, RandomChooser
from .game import Game

__all__ = ["CleanroomTower", "CleanroomError"]

SETTLED_S = 0.5     # how far behind its clock the game may still write an event (seconds)


class CleanroomError(EngineError):
    """A value given to the clean-room tower is not valid; the message names it."""


class CleanroomTower:
    """The clean-room Dark Tower behind the Tower protocol."""

    def __init__(self, seed: int | None = None, chooser: Chooser | None = None,
                 powered: bool = True, start: tuple[int, int] | None = None,
                 clock_ratio: float = 1.0):
        """Make a tower; ``start=(level, players)`` begins at player 1's turn (for tests);
        ``clock_ratio`` = this tower's clock over the reference's (1.0 = MAME's 425 kHz)."""
        try:
            self.game = Game(chooser or RandomChooser(seed), start=start,
                             clock_ratio=clock_ratio)
        except ValueError as exc:
            raise CleanroomError(str(exc)) from None
        self._engine = self.game.engine
        self._closed = False
        self._log = EventLog(("game",))
        self._seen, self._seen_last = 0, None
        if powered:
            self._engine.power(True)

    @property
    def now(self) -> float:
        """Return the tower time in seconds since the session began."""
        return self._engine.now

    def power(self, on: bool) -> None:
        """Switch the tower on (the game restarts at the tower test) or off."""
        self._check_open()
        if on and not self._engine.powered:
            old_ratio = self._engine.clock_ratio
            self.game = Game(self.game.chooser, start=self.game.start,
                             clock_ratio=old_ratio)
            old = self._engine
            self._engine = self.game.engine
            self._engine.now = old.now
            self._engine.events = old.events
            self._engine.marks_t, self._engine.marks_now = old.marks_t, old.marks_now
            self._engine.reel = old.reel
            self._engine.held = old.held
            self._engine.held_since = old.held_since
            self._engine.keep_ticking()
        self._engine.power(on)

    def press(self, button: str) -> None:
        """Close the contact of ``button``."""
        self._check_open()
        self._check(button)
        self._engine.press(button)

    def release(self, button: str) -> None:
        """Open the contact of ``button``."""
        self._check_open()
        self._check(button)
        self._engine.release(button)

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` of tower time pass."""
        self._check_open()
        try:
            seconds = float(seconds)
        except (TypeError, ValueError):
            raise CleanroomError(f"advance: {seconds!r} is not a number of seconds") from None
        if not seconds >= 0 or seconds == float("inf"):
            raise CleanroomError(f"advance: {seconds!r} must be a finite number of seconds >= 0")
        self._engine.advance(seconds)

    def waiting(self) -> bool:
        """Return True when the game waits for a key press."""
        return self._engine.waiting

    def events(self) -> list[dict]:
        """Return the events shown so far, in time order (ties in the order the game made
        them), as ``engine.sorted_events`` does, merging only what is new since the last read
        (``captures.eventlog``): reading after every step costs little more than once."""
        engine = self._engine
        made = engine.events
        seen = self._seen
        if seen and (len(made) < seen or made[seen - 1] is not self._seen_last):
            # The game took back an event already read (two display changes inside one
            # 1/60 s frame: the later one wins): merge everything again.
            self._log, seen = EventLog(("game",)), 0
        if len(made) > seen:
            self._log.add("game", made[seen:])
            self._seen, self._seen_last = len(made), made[-1]
        # The game writes an event up to a display frame before the time it is at: what lies
        # further back than SETTLED_S is merged for good (a later one would merge again).
        self._log.settle(engine.now - SETTLED_S)
        return self._log.read(upto=engine.now + 1e-6)

    def close(self) -> None:
        """Release every key still held; the tower stays readable (events) but takes no more
        actions, like the emulator's."""
        for button in sorted(self._engine.held):
            self._engine.release(button)
        self._closed = True

    def _check_open(self) -> None:
        if self._closed:
            raise CleanroomError("the clean-room tower is closed (make a new CleanroomTower)")

    @staticmethod
    def _check(button: str) -> None:
        if button not in BUTTONS:
            raise CleanroomError(f"unknown button {button!r} (expected one of "
                                 f"{', '.join(BUTTONS)})")
