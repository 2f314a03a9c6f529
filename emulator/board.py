"""The part every board model shares: keys on strobe lines, the pin word, the speaker log.

A board sits on a core's pin callbacks (``cpu.on_r``, ``cpu.on_o``, ``cpu.read_k``). Every key
of a TMS1000-family game is a contact between one *strobe line* the chip drives (an R pin, an
O pin, or an input-mux bit made of them) and one K input; ``KEYS`` maps each key name to that
``(line, K bit)``, and a K read is the OR of the pressed K bits of every line the chip selects
now (``_strobe``). What is left to a board is its wiring: which lines ``_strobe`` selects, what
the speaker is (``_speaker_level``), any extra K or pin-word bits, and its own devices.

The surface every board offers (what ``rig.towers.emulated.EmulatorTower`` and
``emulator.debug`` use):
``press``/``release`` (now, or from a given clock), ``schedule(script)``, ``check_key``,
``run_until(cycle)``, ``advance_to(cycle)``, ``write_r``/``write_o``/``read_k``, ``pins``
(``(cycle, word)`` over ``channels``, the last entry replaced when a second change falls on
its cycle), ``speaker`` (``(cycle, level)``), ``events`` (button presses and any board-only
events), ``pressed`` and ``add_pin_listener``. ``event_channels``/``event_pins`` are the pins
the ``analysis`` decoders named in the board's row read (``emulator.boards``);
``pin_arrays``/``event_arrays`` give ``pins``/``event_pins`` as numpy arrays, ``event_pairs``
the newest event pins as a list and ``event_count`` how many there are.

Adding a board is one row in ``emulator.boards`` plus one subclass (docs/adding-a-board.md).

Example (a whole board: one key on R0/K1, the speaker on R10)::

    class Buzzer(Board):
        name = "buzzer"                  # its row in emulator.boards
        clock_hz = 300_000
        channels = LABYRINTH_CHANNELS    # R0-R10, O0-O7, K1 K2 K4 K8
        KEYS = {"GO": (0, 1)}            # strobe line 0 = R0, K1

        def _strobe(self) -> int:
            return self.r
"""
from __future__ import annotations

import heapq
from itertools import chain
from typing import Callable

from captures.events import make_event
from captures.script import Power, Press, Script

__all__ = ["Board", "BoardError"]


class BoardError(ValueError):
    """A board was driven with a bad value (unknown key, bad script action); one line."""


class Board:
    """A board model around a TMS1000-family core (see the module docstring).

    Subclasses set ``name`` (their row in ``emulator.boards``), ``clock_hz`` (the default
    clock, Hz; a board built directly needs it without the table), ``channels`` (the pin word's
    bits in order: R0-R10, O0-O7 and K1 K2 K4 K8 go in from the positions of R0, O0 and K1)
    and ``KEYS`` (key name -> (strobe line, K bit)), and define ``_strobe``.
    """

    name: str = ""
    clock_hz: int = 0                      # the board's oscillator (Hz): MAME's driver value
    channels: tuple[str, ...] = ()
    KEYS: dict[str, tuple[int, int]] = {}
    key_names: tuple[str, ...] = ()        # the keys in panel order (default: KEYS' order)

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.key_names:
            cls.key_names = tuple(cls.KEYS)
        cls._lines = 1 + max((line for line, _ in cls.KEYS.values()), default=-1)
        index = {ch: i for i, ch in enumerate(cls.channels)}
        cls._r_shift = index.get("R0", 0)
        cls._o_shift = index.get("O0", 0)
        cls._k_shift = index.get("K1", 0)

    def __init__(self, cpu=None, clock_hz: int | None = None):
        if clock_hz is None:
            clock_hz = type(self).clock_hz
        if clock_hz <= 0:
            raise BoardError(f"clock {clock_hz!r} Hz must be a positive number of Hz")
        self.clock_hz = int(clock_hz)
        self.cpu = cpu
        self.r = 0
        self.o = 0
        self.lines = [0] * self._lines      # strobe line -> pressed K bits
        self._held: dict[int, int] = {}     # the same, for the lines with a key down
        self.pressed: set[str] = set()
        self.pins: list[tuple[int, int]] = [(0, 0)]
        self.speaker: list[tuple[int, int]] = [(0, 0)]
        self.events: list[dict] = []
        self._word = 0
        self._cycle = 0                     # clock processed so far (boards on the chip clock)
        self._sched: list[tuple] = []       # (time, order, seq, kind, key, seconds or None)
        self._seq = 0
        self._listeners: list[Callable[[int, int], None]] = []
        self._setup()
        if cpu is not None:
            self._attach(cpu)

    def _setup(self) -> None:
        """Set up the board's own state (reel, timers...) before a core is attached."""

    def _attach(self, cpu) -> None:
        """Take the core's pin callbacks."""
        cpu.on_r = self.write_r
        cpu.on_o = self.write_o
        cpu.read_k = self.read_k

    # ---- pins from the chip ------------------------------------------------------------

    def write_r(self, cycle: int, r: int) -> None:
        """Take the chip's 11 R latches at ``cycle`` (after SETR/RSTR and reset)."""
        self.advance_to(cycle)
        self._apply_r(cycle, r)

    def _apply_r(self, cycle: int, r: int) -> None:
        """Take R at ``cycle`` once every board event due by then has been processed."""
        self.r = r & 0x7FF
        self._speaker_change(cycle)
        self._update_word(cycle)

    def write_o(self, cycle: int, o: int) -> None:
        """Take the chip's 8 O pins (after the output PLA) at ``cycle``."""
        self.advance_to(cycle)
        self._apply_o(cycle, o)

    def _apply_o(self, cycle: int, o: int) -> None:
        """Take O at ``cycle`` once every board event due by then has been processed."""
        if (o & 0xFF) != self.o:
            self.o = o & 0xFF
            self._update_word(cycle)

    def read_k(self, cycle: int) -> int:
        """Return K1/K2/K4/K8 (bits 0-3) as the chip samples them at ``cycle``."""
        self.advance_to(cycle)
        return self._k()

    # ---- keys --------------------------------------------------------------------------

    def press(self, key: str, cycle: int | None = None, seconds: float | None = None) -> None:
        """Close ``key``'s contact from ``cycle`` (default: now); ``seconds`` is the session
        time to report in the button event (default: the cycle's)."""
        self._key(key, True, cycle, seconds)

    def release(self, key: str, cycle: int | None = None, seconds: float | None = None) -> None:
        """Open ``key``'s contact from ``cycle`` (default: now)."""
        self._key(key, False, cycle, seconds)

    def check_key(self, key: str) -> None:
        """Raise BoardError (one line naming ``key`` and the board's keys) for a key the board
        does not have."""
        if key not in self.KEYS:
            raise BoardError(self._unknown_key(key))

    def _check_key(self, key: str) -> None:
        self.check_key(key)

    def _unknown_key(self, key: str) -> str:
        return f"unknown button {key!r} (expected one of {', '.join(self.key_names)})"

    def _key(self, key: str, down: bool, cycle: int | None, seconds: float | None) -> None:
        self.check_key(key)
        if cycle is not None:
            self._queue(cycle, 1 if down else 0, "press" if down else "release", key, seconds)
            return
        self._apply_key(key, down, self._now_cycle(), seconds)

    def _now_cycle(self) -> int:
        """Return the clock the board has reached (where a key given without one acts)."""
        return self._cycle

    def _apply_key(self, key: str, down: bool, cycle: int, seconds: float | None = None) -> None:
        if down == (key in self.pressed):
            return
        line, bit = self.KEYS[key]
        if down:
            self.pressed.add(key)
            self.lines[line] |= bit
        else:
            self.pressed.discard(key)
            self.lines[line] &= ~bit
        if self.lines[line]:
            self._held[line] = self.lines[line]
        else:
            self._held.pop(line, None)
        # The event time is the script time when there is one (the shared captures' scripts
        # hold the 1/60 s frame boundary MAME applied the key at), else the cycle's.
        t = cycle / self.clock_hz if seconds is None else seconds
        self.events.append(make_event(t, "button", button=key,
                                      action="press" if down else "release"))
        self._update_word(cycle)

    # ---- keys at exact script times ----------------------------------------------------
    # A chip sees a scripted key from the first oscillator cycle at or after the key's script
    # time (``cycle_at``); presses and releases wait in a heap ordered by (cycle, release before
    # press, arrival) until the board's clock reaches them. A board that keeps a scripted
    # key's exact time (the Dark Tower's, whose K samples see a change inside their clock,
    # docs/k-sampling.md) overrides ``_queue_at``.

    def cycle_at(self, seconds: float) -> int:
        """Return the first cycle at or after ``seconds`` (rounded to 1 ns against float noise)."""
        c = round(seconds * self.clock_hz * 1e6) / 1e6
        return int(-(-c // 1))

    def schedule(self, script: Script) -> None:
        """Queue a script's presses and releases at their exact times (seconds -> cycles).

        Power actions other than an initial ``0 power on`` are refused: a board cannot power
        itself off (use ``rig.towers.emulated.EmulatorTower``).
        """
        for a in script.actions:
            if isinstance(a, Power):
                if a.on and a.t == 0:
                    continue
                raise BoardError(f"{script.name}: 'power {'on' if a.on else 'off'}' at "
                                 f"{a.t:g} s cannot be scheduled on a board (use a tower)")
            if isinstance(a, Press):
                self._queue_at(a.t, 1, "press", a.button)
                self._queue_at(a.t + a.hold, 0, "release", a.button)

    def _queue_at(self, seconds: float, order: int, kind: str, key: str) -> None:
        """Queue ``kind`` of ``key`` at script time ``seconds`` (a board keeping exact times
        overrides this; the default acts from ``cycle_at(seconds)``)."""
        self._queue(self.cycle_at(seconds), order, kind, key, seconds)

    def _queue(self, cycle: int, order: int, kind: str, key: str,
               seconds: float | None = None) -> None:
        """Queue ``kind`` ("press"/"release") of ``key`` at ``cycle``; order 0 = release first."""
        self._check_key(key)
        self._seq += 1
        heapq.heappush(self._sched, (cycle, order, self._seq, kind, key, seconds))

    # ---- time --------------------------------------------------------------------------

    def run_until(self, cycle: int) -> None:
        """Run the chip (if any) and the board up to ``cycle``."""
        if self.cpu is not None:
            self.cpu.run_until(cycle)
        self.advance_to(cycle)

    def advance_to(self, cycle: int) -> None:
        """Apply the scheduled key changes due at or before ``cycle``."""
        while self._sched and self._sched[0][0] <= cycle:
            c, _, _, kind, key, secs = heapq.heappop(self._sched)
            self._apply_key(key, kind == "press", c, secs)
        self._cycle = max(self._cycle, cycle)

    # ---- what the board shows ----------------------------------------------------------

    def add_pin_listener(self, fn: Callable[[int, int], None]) -> None:
        """Call ``fn(cycle, word)`` on every later change of the pin word."""
        self._listeners.append(fn)

    @property
    def event_channels(self) -> tuple[str, ...]:
        """Return the channels of ``event_pins`` (default: the board's own)."""
        return self.channels

    def event_pins(self) -> list[tuple[int, int]]:
        """Return the ``(cycle, word)`` changes the row's decoders read (default: ``pins``)."""
        return self.pins

    def event_count(self) -> int:
        """Return how many changes ``event_pins`` holds."""
        return len(self.event_pins())

    def event_pairs(self, start: int = 0) -> list[tuple[int, int]]:
        """Return ``event_pins`` from index ``start`` on, in time linear in what is returned
        (a live reader's few new changes; ``event_arrays`` for many)."""
        return self.event_pins()[start:]

    def pin_arrays(self, start: int = 0):
        """Return ``pins`` from index ``start`` on as numpy arrays (cycles as int64, words as
        uint64); a board that keeps its pins otherwise (the Dark Tower's kernel records)
        overrides it."""
        return _arrays(self.pins[start:])

    def event_arrays(self, start: int = 0):
        """Return ``event_pins`` from index ``start`` on as ``pin_arrays`` does."""
        if type(self).event_pins is Board.event_pins:
            return self.pin_arrays(start)
        return _arrays(self.event_pins()[start:])

    # ---- wiring (subclasses) -------------------------------------------------------------

    def _strobe(self) -> int:  # pragma: no cover - each board defines it
        """Return the strobe lines selected now, bit ``line`` = line ``line``."""
        raise NotImplementedError

    def _speaker_level(self) -> int:
        """Return the speaker level now (default: R10)."""
        return self.r >> 10 & 1

    def _k(self) -> int:
        """Return K as the chip reads it now (default: the keys alone, ``_keys_k``)."""
        return self._keys_k()

    def _keys_k(self) -> int:
        """Return the OR of the pressed K bits of every strobe line selected now."""
        if not self._held:
            return 0
        strobe = self._strobe()
        k = 0
        for line, bits in self._held.items():
            if strobe >> line & 1:
                k |= bits
        return k

    def _word_now(self) -> int:
        return (self.r << self._r_shift) | (self.o << self._o_shift) | \
            (self._k() << self._k_shift)

    def _speaker_change(self, cycle: int) -> None:
        spk = self._speaker_level()
        if spk != self.speaker[-1][1]:
            self.speaker.append((cycle, spk))

    def _update_word(self, cycle: int) -> None:
        word = self._word_now()
        if word == self._word:
            return
        self._word = word
        # a key the host presses at ``cycle`` while the chip has run on to the end of the
        # instruction fetched before it (its pins change up to 2 clocks later): recorded
        # with that instruction's change, so that the record never goes back in time
        last = self.pins[-1][0]
        cycle = max(cycle, last)
        if last == cycle:
            self.pins[-1] = (cycle, word)
        else:
            self.pins.append((cycle, word))
        for fn in self._listeners:
            fn(cycle, word)


def _arrays(pins: list[tuple[int, int]]):
    """Return ``(cycle, word)`` pairs as (int64 cycles, uint64 words) numpy arrays."""
    import numpy as np

    flat = np.fromiter(chain.from_iterable(pins), np.uint64, 2 * len(pins))
    return flat[0::2].astype(np.int64), flat[1::2].copy()
