"""Decode the reel motor: R9.

Channels read: R9 (motor on, docs/dark-tower-wiring.md §2; not gated by R4).

Events emitted (rules of ``tests/data/captures/README.md``)::

    {"t": 3.067247, "type": "motor", "on": 1}

- An event at the pin-change time whenever R9's level changes, from off at power-on.
- Pulses shorter than 10 ms are ignored: the firmware drops R8/R9 for about 0.5 ms at each reel
  hole (shared capture tower_test), which is not a motor stop.
- Across a gap in the capture, as for lamps (``analysis.lamps``): the 10 ms restart at the
  gap's end.
"""
from __future__ import annotations


from analysis.base import Decoder, seconds, shallow_copy
from analysis.lamps import MIN_PULSE_S, LevelFilter

__all__ = ["MotorDecoder"]


class MotorDecoder(Decoder):
    """Turn R9 changes into motor events (rules in the module docstring)."""

    NAME = "motor"
    EVENT = "motor"        # the event type it emits
    CHANNELS = ("R9",)

    def __init__(self, info, min_pulse_s: float = MIN_PULSE_S):
        super().__init__(info)
        self._f = LevelFilter(min_pulse_s * self.rate)
        self._raw = 0

    def on_change(self, t: int, value: int, out: list[dict]) -> None:
        self._raw = value & 1
        self._emit(self._f.change(t, self._raw), out)

    def advance(self, t: int, out: list[dict]) -> None:
        self._emit(self._f.advance(t), out)
        self.horizon = self._f.hold(t)

    def close(self, end: int, out: list[dict]) -> None:
        self._emit(self._f.flush(end), out)

    def cut(self, start: int, end: int, out: list[dict]) -> None:
        self._f.restart(end, self._raw)

    def quiet(self) -> bool:
        return self._f.pending is None

    def _copy_state(self, twin: "MotorDecoder") -> None:
        twin._f = shallow_copy(self._f)

    def _emit(self, changes: list[tuple[int, int]], out: list[dict]) -> None:
        for t, level in changes:
            out.append({"t": seconds(t, self.rate), "type": "motor", "on": level})
