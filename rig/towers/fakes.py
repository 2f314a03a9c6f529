"""A small virtual Dark Tower that drives real pin patterns, for testing the rig without an
emulator: the button box, the simulated analyser and the decoders all see its pins.

``PinTower`` is not the game. It multiplexes the two digits like the real board (R4 low enables
the SN75494; O7 selects the digit, O0-O6 carry the segments with the wiring of
docs/dark-tower-wiring.md §3), flashes ``--`` until a key is pressed, then shows the key's number
(01-12) for one second, lights the lower lamp (R5) while a key is held and beeps 1 kHz on R10
for 50 ms at each press. It answers the Tower protocol and the pin-listener interface of
rig.towers.emulated's EmulatorTower (``add_pin_listener``, ``capture``, ``clock_hz``), so the
virtual bench can use either.

Its pins are computed on a 106-cycle tick (4009 Hz at 425 kHz); ``freeze()`` stops it changing
any pin, which is how the fault tests model a tower that stopped responding.

Example::

    t = PinTower()
    t.press("MOVE"); t.advance(0.2); t.release("MOVE"); t.advance(1.0)
    t.capture()          # MemoryCapture over DARKTOWER_CHANNELS at 425 kHz
"""
from __future__ import annotations

import bisect
from typing import Callable

import numpy as np

from captures.darktower_facts import GLYPH_SEGMENTS, NOMINAL_CLOCK_HZ, o_pins
from captures.eventlog import EventLog
from captures.events import make_event
from captures.model import DARKTOWER_CHANNELS, CaptureInfo, Changes, MemoryCapture
from captures.script import BUTTONS

__all__ = ["PinTower", "o_word"]

_CH = {name: i for i, name in enumerate(DARKTOWER_CHANNELS)}
TICK_CYCLES = 106
FLASH_S = 0.5
SHOW_S = 1.0
BEEP_S = 0.05


def o_word(char: str, right: bool) -> int:
    """Return the O0-O7 levels that show ``char`` on the left (O7 = 0) or right digit."""
    return o_pins(GLYPH_SEGMENTS[char]) | (0x80 if right else 0)


class PinTower:
    """A pin-level tower double (see the module docstring)."""

    def __init__(self, clock_hz: int = NOMINAL_CLOCK_HZ):
        self.clock_hz = int(clock_hz)
        self.cycle = 0
        self._next_tick = TICK_CYCLES
        self.powered = True
        self.frozen = False
        self._held: set[str] = set()
        self._last_key: tuple[int, str] | None = None   # (cycle pressed, button)
        self._power_cycle = 0
        self._listeners: list[Callable[[int, int], None]] = []
        self._word = -1
        self._times: list[int] = []
        self._words: list[int] = []
        self._events: list[dict] = [make_event(0.0, "power", on=1)]
        self._emit(0, self._compute(0))
        self._dec = None                  # the decoders, fed up to pin _fed (events)
        self._fed = self._own_seen = 0
        self._log = EventLog(("own", "decoded", "pending"))

    # -- Tower protocol --------------------------------------------------------------------

    @property
    def now(self) -> float:
        """Return the tower time in seconds."""
        return self.cycle / self.clock_hz

    def power(self, on: bool) -> None:
        """Switch on (a reset: display back to flashing dashes) or off (all pins low)."""
        self.powered = bool(on)
        self.frozen = False
        self._last_key = None
        self._power_cycle = self.cycle
        self._events.append(make_event(self.now, "power", on=int(self.powered)))
        self._emit(self.cycle, self._compute(self.cycle))

    def press(self, button: str) -> None:
        """Close a key contact."""
        self._check(button)
        if button not in self._held:
            self._held.add(button)
            if self.powered and not self.frozen:
                self._last_key = (self.cycle, button)
            self._events.append(make_event(self.now, "button", button=button, action="press"))
        self._emit(self.cycle, self._compute(self.cycle))

    def release(self, button: str) -> None:
        """Open a key contact."""
        self._check(button)
        if button in self._held:
            self._held.discard(button)
            self._events.append(make_event(self.now, "button", button=button,
                                           action="release"))
        self._emit(self.cycle, self._compute(self.cycle))

    def advance(self, seconds: float) -> None:
        """Run ``seconds`` of tower time."""
        self.run_until(self.cycle + int(round(seconds * self.clock_hz)))

    def run_until(self, cycle: int) -> None:
        """Compute the pins up to ``cycle`` (exclusive of changes at ``cycle`` itself)."""
        while self._next_tick < cycle:
            self.cycle = self._next_tick
            self._emit(self._next_tick, self._compute(self._next_tick))
            self._next_tick += TICK_CYCLES
        self.cycle = max(self.cycle, cycle)

    def events(self) -> list[dict]:
        """Return the power and button events plus the decoded pins (analysis.decode), in
        time order; each read decodes only the pins since the last one (``captures.eventlog``
        merges), and gives what decoding the whole capture would."""
        from analysis.decode import StreamDecoder

        if self._dec is None:
            self._dec = StreamDecoder(CaptureInfo(list(DARKTOWER_CHANNELS), self.clock_hz))
        dec, log = self._dec, self._log
        # Pins from the current cycle on may still be replaced (a press at this cycle): held.
        n = bisect.bisect_left(self._times, self.cycle, self._fed)
        if n > self._fed:
            log.add("decoded", dec.feed_pairs(list(zip(self._times[self._fed:n],
                                                       self._words[self._fed:n]))))
            self._fed = n
        rest = None
        if n < len(self._times):
            rest = Changes(np.array(self._times[n:], np.int64),
                           np.array(self._words[n:], np.uint64))
        if len(self._events) > self._own_seen:
            log.add("own", self._events[self._own_seen:])
            self._own_seen = len(self._events)
        pending = dec.peek(self.cycle + 1, rest)
        log.settle(min(dec.released, self.now - 1e-5))
        return log.read(pending=pending)

    def close(self) -> None:
        """Release every key."""
        for b in list(self._held):
            self.release(b)

    # -- pins ------------------------------------------------------------------------------

    def add_pin_listener(self, fn: Callable[[int, int], None]) -> None:
        """Call ``fn(cycle, word)`` on every later change of the pin word (DARKTOWER_CHANNELS)."""
        self._listeners.append(fn)

    def capture(self) -> MemoryCapture:
        """Return the pins so far as a capture at ``clock_hz`` samples per second."""
        info = CaptureInfo(list(DARKTOWER_CHANNELS), self.clock_hz, self.cycle + 1,
                           {"source": "rig.towers.fakes.PinTower"})
        return MemoryCapture(info, np.array(self._times, np.int64),
                             np.array(self._words, np.uint64))

    def freeze(self) -> None:
        """Stop changing any pin (a hung tower) until the next power-on."""
        self.frozen = True

    # -- model -----------------------------------------------------------------------------

    def _check(self, button: str) -> None:
        if button not in BUTTONS:
            raise ValueError(f"unknown button {button!r} (expected one of {', '.join(BUTTONS)})")

    def _text(self, cycle: int) -> str:
        if self._last_key is not None:
            c, button = self._last_key
            if cycle - c < SHOW_S * self.clock_hz:
                return f"{BUTTONS.index(button) + 1:02d}"
        since = (cycle - self._power_cycle) / self.clock_hz
        return "--" if int(since / FLASH_S) % 2 == 0 else "  "

    def _compute(self, cycle: int) -> int:
        if not self.powered:
            return 0
        if self.frozen:
            return self._word
        tick = cycle // TICK_CYCLES
        right = (tick // 4) % 2 == 1
        text = self._text(cycle)
        word = o_word(text[1] if right else text[0], right) << _CH["O0"]
        if self._held:
            word |= 1 << _CH["R5"]
        if self._last_key is not None:
            c, _ = self._last_key
            if cycle - c < BEEP_S * self.clock_hz and ((cycle - c) // (2 * TICK_CYCLES)) % 2:
                word |= 1 << _CH["R10"]
        return word

    def _emit(self, cycle: int, word: int) -> None:
        if word == self._word:
            return
        self._word = word
        if self._times and self._times[-1] == cycle:
            self._words[-1] = word
        else:
            self._times.append(cycle)
            self._words.append(word)
        for fn in self._listeners:
            fn(cycle, word)
