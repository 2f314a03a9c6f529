"""Decode the reel (the picture drum behind the lamps): card position from motor and sensor.

Channels read: R9 (motor), R8 (sensor LED), R4 (the SN75494 enable; R4 high darkens the LED),
and the reel sensor: SENSOR if captured, else K8 while none of R0-R2 strobes the key matrix
(the board ORs the sensor into K8: docs/k-sampling.md, "The reel sensor").

Events emitted (``card_pos`` as MAME's ``card_pos`` output, docs/k-sampling.md)::

    {"t": 3.516667, "type": "reel", "card_pos": 6}
    {"t": 0.016667, "type": "reel", "card_pos": 0, "source": "assumed"}

How the position is found, as well as the sensor allows:

- The reel has 128 steps; card_pos = (pos >> 4) & 7. The sensor sees light through a big hole
  at positions 0-11 and small holes at 16j..16j+3 (j = 1..7); the reel turns towards lower
  positions. So a hole's trailing edge (sensor going dark) is exactly a card change: leaving
  the big hole gives pos 127 (card 7), leaving small hole j gives pos 16j - 1 (card j - 1).
  A lit span of 8 steps or more is the big hole; a shorter one is the small hole nearest to
  the dead-reckoned position.
- Between holes, and while the LED is dark, the position is dead-reckoned with MAME's motor
  model: a step every 27 ms (``step_s``) while running; R9 high starts it; after R9 drops the
  reel coasts until a decay counter (up to 4) runs out, i.e. 5 more steps after a long run
  (``captures.darktower_facts.coast_step``).
  Each hole edge re-synchronises the step phase, so a real motor's different speed is
  corrected at every hole.
- Sensor edges count only while the LED has been lit for at least 50 ms (three 1/60 s
  frames): MAME's sensor follows the filtered LED brightness, so it lags LED switching by up
  to three frames (docs/k-sampling.md, "The reel sensor"). A sensor that lights up sooner
  after the LED (the reel was parked in a hole) still bounds the hole from below: a hole
  that stays lit for 8 steps or more from there is the big hole.
- At power-on MAME's reel is at position 0 (``start_pos``, emitted at the first frame with
  ``"source": "assumed"``); a real tower starts wherever it stopped, so pass
  ``start_pos=None`` and the position is unknown until the sensor sees the big hole.

- After a gap in the capture the position is unknown (the motor may have run while nothing
  was recorded) until the sensor sees the big hole again; the card is then written even if
  it is the one shown before the gap.

Events are published like MAME's frame-polled ``card_pos`` output, which the reference
captures' events record: at the first 1/60 s frame boundary (k/60 s from the capture start) at
or after the step, the card the reel shows then (a step on a boundary counts for it); so a
MAME recording decodes to its ``events.jsonl`` exactly (tests/tower/test_corpus_replay.py).
"""
from __future__ import annotations

import math

from analysis.base import AnalysisError, Decoder
from captures.darktower_facts import CARD_STEPS, REEL_STEPS, REEL_TICK_S, coast_step, reel_card

__all__ = ["ReelDecoder", "STEP_S", "STEPS", "LED_SETTLE_S"]

STEP_S = REEL_TICK_S    # MAME: 3500 ms / 128 steps, integer division
STEPS = REEL_STEPS
LED_SETTLE_S = 0.050    # LED lit this long before sensor edges are trusted
BIG_HOLE_STEPS = 8      # lit spans at least this long are the big hole (12 steps)


class ReelDecoder(Decoder):
    """Turn motor, LED and sensor changes into reel card_pos events (see module docstring)."""

    NAME = "reel"
    EVENT = "reel"         # the event type it emits
    CHANNELS = ("R9", "R8", "R4")
    OPTIONAL = ("SENSOR", "K8", "R0", "R1", "R2")

    def __init__(self, info, start_pos: int | None = 0, step_s: float = STEP_S):
        super().__init__(info)
        if not (self.sel.present["SENSOR"] or self.sel.present["K8"]):
            raise AnalysisError("reel decoder needs channel 'SENSOR' or 'K8' for the reel "
                                "sensor; map one with --channel-map")
        if start_pos is not None and not 0 <= start_pos < STEPS:
            raise AnalysisError(f"reel start position {start_pos} must be 0-{STEPS - 1}")
        self.period = step_s * self.rate
        self.settle = LED_SETTLE_S * self.rate
        self._b = {n: self.sel.bit(n)
                   for n in ("R9", "R8", "R4", "SENSOR", "K8", "R0", "R1", "R2")}
        self._cols = self._b["R0"] | self._b["R1"] | self._b["R2"]
        self.pos = start_pos
        self._card: int | None = None
        self._next_tick = self.period
        self._last_tick = -math.inf
        self._running = False
        self._decay = 0
        self._r9 = 0
        self._led_since: float | None = None
        self._sensor = 0
        self._hole_start: int | None = None
        self._started = start_pos is None
        self._frame = self.rate / 60              # samples per 1/60 s frame
        self._pending: tuple[int, int, bool] | None = None   # (frame, card, assumed)

    def on_change(self, t: int, value: int, out: list[dict]) -> None:
        self._start(out)
        self._ticks_to(t, out)
        b = self._b
        r9 = 1 if value & b["R9"] else 0
        if r9 and not self._r9:
            self._running = True
        self._r9 = r9
        led = value & b["R8"] and not value & b["R4"]
        if led and self._led_since is None:
            self._led_since = t
        elif not led:
            self._led_since = None
        if b["SENSOR"]:
            sensor = 1 if value & b["SENSOR"] else 0
        elif value & self._cols:
            sensor = self._sensor          # K8 carries keys during a strobe: keep the last
        else:
            sensor = 1 if value & b["K8"] else 0
        if sensor != self._sensor:
            self._sensor = sensor
            trusted = self._led_since is not None and t - self._led_since >= self.settle
            if sensor:
                self._hole_start = t
            elif trusted:
                self._hole_end(t, out)
            else:
                self._hole_start = None

    def advance(self, t: int, out: list[dict]) -> None:
        self._start(out)
        self._ticks_to(t, out)
        self._publish(t, out)
        held = t if self._pending is None else min(t, int(self._pending[0] * self._frame))
        self.horizon = max(self.horizon, held)

    def close(self, end: int, out: list[dict]) -> None:
        self._publish(end, out)

    def _publish(self, t: float, out: list[dict]) -> None:
        """Write the pending card once frame time has reached its frame (at or before ``t``)."""
        if self._pending is None or self._pending[0] * self._frame > t:
            return
        frame, card, assumed = self._pending
        self._pending = None
        if card != self._card:
            self._card = card
            ev = {"t": round(frame / 60, 6), "type": "reel", "card_pos": card}
            if assumed:
                ev["source"] = "assumed"
            out.append(ev)

    def cut(self, start: int, end: int, out: list[dict]) -> None:
        self._publish(start, out)
        self._pending = None
        self.pos = None
        self._card = None
        self._hole_start = None
        self._running = bool(self._r9)
        self._decay = 0
        self._last_tick = -math.inf
        self._next_tick = end + self.period
        if self._led_since is not None:
            self._led_since = end

    def _start(self, out: list[dict]) -> None:
        if not self._started:
            self._started = True
            self._emit(0, out, assumed=True)

    def _ticks_to(self, t: float, out: list[dict]) -> None:
        """Run MAME's 27 ms motor ticks that fall before sample ``t``."""
        while self._running and self._next_tick < t:
            tick = self._next_tick
            self._next_tick += self.period
            self._last_tick = tick
            if self.pos is not None:
                self.pos = (self.pos - 1) % STEPS
            self._step_decay()
            self._emit(tick, out)
        if not self._running and self._next_tick < t:
            # Stopped: keep the tick phase without stepping through idle time.
            self._next_tick += math.ceil((t - self._next_tick) / self.period) * self.period

    def _step_decay(self) -> None:
        self._decay, going = coast_step(self._decay, self._r9)
        if not going:
            self._running = False

    def _hole_end(self, t: int, out: list[dict]) -> None:
        """The sensor went dark with the LED lit: a step just left a hole."""
        # From a rise seen before the LED settled the length is a lower bound.
        length = None if self._hole_start is None else (t - self._hole_start) / self.period
        self._hole_start = None
        if length is not None and length >= BIG_HOLE_STEPS:
            self.pos = STEPS - 1
        elif self.pos is not None:
            # Nearest trailing-edge position 16j - 1 of a small hole (j = 1..7).
            ends = [CARD_STEPS * j - 1 for j in range(1, STEPS // CARD_STEPS)]
            self.pos = min(ends, key=lambda e: min((e - self.pos) % STEPS,
                                                   (self.pos - e) % STEPS))
        if t - self._last_tick >= self.period / 2:
            self._step_decay()          # this step was not dead-reckoned yet
            self._running = True
        self._last_tick = t
        self._next_tick = t + self.period
        self._emit(t, out)

    def _emit(self, t: float, out: list[dict], assumed: bool = False) -> None:
        """Note the card after a step at sample ``t``: it is published at the next frame."""
        if self.pos is None:
            return
        frame = max(math.ceil(t / self._frame - 1e-9), 1)
        if self._pending is not None and self._pending[0] != frame:
            self._publish(self._pending[0] * self._frame, out)
        self._pending = (frame, reel_card(self.pos), assumed)
