"""Decode the three card lamps behind the reel: R5 (lower), R6 (middle), R7 (upper), lit while R4
is low.

Channels read: R5, R6, R7, R4 (R4 high blanks the SN75494 outputs, docs/dark-tower-wiring.md §2).

Events emitted (rules of ``tests/data/captures/README.md``)::

    {"t": 6.536009, "type": "lamp", "lamp": "upper", "on": 1}

- A lamp's level is ``R(n) AND NOT R4``; an event is written at the pin-change time when the
  level changes, starting from all lamps off at power-on.
- Pulses shorter than 10 ms (either polarity) are ignored: a change is only final once the new
  level has lasted 10 ms, so events are released 10 ms late (``horizon``).
- A gap in the capture does not count towards the 10 ms: a change that had not lasted 10 ms
  when the data stopped is forgotten, and a level that differs at the gap's end is a new
  change from the gap's end.
"""
from __future__ import annotations


from analysis.base import Decoder, seconds, shallow_copy
from captures.darktower_facts import LAMP_PINS as DT_LAMP_PINS

__all__ = ["LampDecoder", "LevelFilter", "MIN_PULSE_S", "LAMP_PINS"]

MIN_PULSE_S = 0.010
LAMP_PINS = tuple((lamp, f"R{pin}") for lamp, pin in DT_LAMP_PINS.items())


class LevelFilter:
    """Follow one binary level, dropping pulses shorter than ``min_len`` samples.

    ``change(t, level)`` and ``advance(t)`` return the accepted changes ``(t, level)``.
    """

    def __init__(self, min_len: float, level: int = 0):
        self.min_len = min_len
        self.level = level
        self.pending: tuple[int, int] | None = None

    def change(self, t: int, level: int) -> list[tuple[int, int]]:
        """Note a raw change at sample ``t``; return the changes that became final."""
        done = self.advance(t)
        if self.pending is not None:
            # A change back within min_len: the pulse is ignored.
            if level == self.level:
                self.pending = None
            return done
        if level != self.level:
            self.pending = (t, level)
        return done

    def advance(self, t: int) -> list[tuple[int, int]]:
        """Note that nothing changed before sample ``t``; return changes that became final."""
        if self.pending is not None and t - self.pending[0] >= self.min_len:
            accepted = self.pending
            self.level = accepted[1]
            self.pending = None
            return [accepted]
        return []

    def flush(self, end: float = float("inf")) -> list[tuple[int, int]]:
        """Accept a pending change at the end of the data (sample ``end``: it lasted to the
        end); one that starts only at ``end`` (after a gap reaching the end) is dropped."""
        if self.pending is None or self.pending[0] >= end:
            self.pending = None
            return []
        accepted, self.pending = self.pending, None
        self.level = accepted[1]
        return [accepted]

    def restart(self, t: int, level: int) -> None:
        """Forget a change that has not lasted ``min_len`` (data stopped); from sample ``t``
        on, ``level`` is a new change if it differs from the accepted level."""
        self.pending = (t, level) if level != self.level else None

    def hold(self, t: int) -> int:
        """Return the earliest sample whose change may still be reported (``t`` if none)."""
        return self.pending[0] if self.pending is not None else t


class LampDecoder(Decoder):
    """Turn R5-R7/R4 changes into lamp events (rules in the module docstring)."""

    NAME = "lamps"
    EVENT = "lamp"         # the event type it emits
    CHANNELS = ("R7", "R6", "R5", "R4")

    def __init__(self, info, min_pulse_s: float = MIN_PULSE_S):
        super().__init__(info)
        self._filters = {lamp: LevelFilter(min_pulse_s * self.rate) for lamp, _ in LAMP_PINS}
        self._bits = {lamp: self.sel.bit(pin) for lamp, pin in LAMP_PINS}
        self._r4 = self.sel.bit("R4")
        self._raw = {lamp: 0 for lamp, _ in LAMP_PINS}     # unfiltered levels

    def on_change(self, t: int, value: int, out: list[dict]) -> None:
        for lamp, f in self._filters.items():
            level = int(bool(value & self._bits[lamp]) and not value & self._r4)
            self._raw[lamp] = level
            self._emit(lamp, f.change(t, level), out)

    def advance(self, t: int, out: list[dict]) -> None:
        if self.quiet():                    # nothing pending: nothing to accept
            self.horizon = t
            return
        for lamp, f in self._filters.items():
            self._emit(lamp, f.advance(t), out)
        self.horizon = min(f.hold(t) for f in self._filters.values())

    def close(self, end: int, out: list[dict]) -> None:
        for lamp, f in self._filters.items():
            self._emit(lamp, f.flush(end), out)

    def cut(self, start: int, end: int, out: list[dict]) -> None:
        for lamp, f in self._filters.items():
            f.restart(end, self._raw[lamp])

    def quiet(self) -> bool:
        return all(f.pending is None for f in self._filters.values())

    def _copy_state(self, twin: "LampDecoder") -> None:
        twin._filters = {lamp: shallow_copy(f) for lamp, f in self._filters.items()}
        twin._raw = dict(self._raw)

    def _emit(self, lamp: str, changes: list[tuple[int, int]], out: list[dict]) -> None:
        for t, level in changes:
            out.append({"t": seconds(t, self.rate), "type": "lamp", "lamp": lamp, "on": level})
