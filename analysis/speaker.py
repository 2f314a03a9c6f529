"""Decode the speaker: rising edges of R10 while R4 is low, grouped into tones and clicks.

Channels read: R10 (speaker), R4 (the SN75494 enable, active low: R4 high silences the
speaker, docs/dark-tower-wiring.md §2).

Events emitted (the rules of ``tests/data/captures/README.md``, which derived the reference
captures' ``events.jsonl``)::

    {"t": 6.536419, "type": "tone", "freq_hz": 737.8, "dur_s": 0.0447, "pulses": 33,
     "note": "F#5", "cents": 2}
    {"t": 9.1, "type": "tone", "freq_hz": null, "dur_s": 0.0, "pulses": 1}      a click

- A *rise* is a 0 -> 1 edge of R10 at a time when R4 is low.
- A *run* is a sequence of rises whose rise-to-rise periods are each within 3 % of the run's
  first period and under 25 ms. Runs are found greedily from the earliest rise; a run ends at
  the first period that does not fit, and the next run starts at the run's last rise (so two
  legato notes may share their boundary rise).
- A run of one single period whose first rise ends the previous run and whose last rise starts
  the next run, one of the two being longer than one period, is the seam between two legato
  notes: dropped. A chain of single periods (a sweep whose period changes at every rise, as
  the genuine firmware's falling "buzz" makes) keeps each period as a 2-pulse tone, as the
  corpus events do (tests/data/corpus).
- ``t`` = first rise, ``pulses`` = rises in the run, ``freq_hz`` = (pulses - 1) / span
  (span = last rise - first rise, seconds), rounded to 0.1 Hz; ``dur_s`` = pulses / freq_hz,
  rounded to 0.1 ms. ``note`` is the nearest equal-tempered note (A4 = 440 Hz) and ``cents``
  the offset from it.
- A rise in no run is a click: ``freq_hz`` null, ``pulses`` 1, ``dur_s`` 0.

A gap in the capture ends every run: the rises before it are decoded at its start, so no tone
spans missing data.

Streaming: a run cannot cross a period of 25 ms or more, so every period inside a buffer of
rises between two such silences is under 25 ms and the runs tile the buffer: each run but the
last ends at the rise where the next one starts. The decoder follows them rise by rise and
writes each run's tone as soon as its fate is known (a run of two periods or more is kept; a
single period is dropped as a seam once a neighbour is seen to be longer, kept once the next
run ends after one period or the buffer ends; the rise between two dropped seams is a click),
so its state is the open run and at most one
undecided run, whatever the length of a tune, and ``tones_from_rises`` over the buffer gives
the same events (tests/analysis/test_speaker.py).
"""
from __future__ import annotations

import math
from typing import Sequence

from analysis.base import Decoder, seconds

__all__ = ["SpeakerDecoder", "tones_from_rises", "note_name", "MAX_PERIOD_S", "PERIOD_TOL"]

MAX_PERIOD_S = 0.025   # a period this long or longer ends a run (seconds)
PERIOD_TOL = 0.03      # periods within 3 % of the run's first period continue it
NOTE_NAMES = ("C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B")


def note_name(freq_hz: float) -> tuple[str, int]:
    """Return the nearest equal-tempered note name (A4 = 440 Hz) and the offset in cents."""
    midi = 69 + 12 * math.log2(freq_hz / 440.0)
    n = round(midi)
    return f"{NOTE_NAMES[n % 12]}{n // 12 - 1}", round((midi - n) * 100)


def _runs(rises: Sequence[int], max_period: float, tol: float) -> list[tuple[int, int]]:
    """Return the greedy runs as (first index, last index) pairs over ``rises``."""
    runs = []
    i, n = 0, len(rises)
    while i < n - 1:
        p = rises[i + 1] - rises[i]
        if p >= max_period:
            i += 1
            continue
        j = i + 1
        while (j + 1 < n and rises[j + 1] - rises[j] < max_period
               and abs(rises[j + 1] - rises[j] - p) <= tol * p):
            j += 1
        runs.append((i, j))
        i = j
    return runs


def tones_from_rises(rises: Sequence[int], samplerate: float,
                     max_period_s: float = MAX_PERIOD_S, tol: float = PERIOD_TOL) -> list[dict]:
    """Group rise times (samples) into tone and click events, in time order (see module doc)."""
    max_period = max_period_s * samplerate
    runs = _runs(rises, max_period, tol)
    keep = []
    for k, (i, j) in enumerate(runs):
        seam = (j == i + 1 and 0 < k < len(runs) - 1
                and runs[k - 1][1] == i and runs[k + 1][0] == j
                and (runs[k - 1][1] - runs[k - 1][0] > 1 or runs[k + 1][1] - runs[k + 1][0] > 1))
        if not seam:
            keep.append((i, j))
    covered = set()
    events = []
    for i, j in keep:
        covered.update(range(i, j + 1))
        events.append((rises[i], _tone(rises[i], rises[j], j - i + 1, samplerate)))
    for k, r in enumerate(rises):
        if k not in covered:
            events.append((r, _click(r, samplerate)))
    events.sort(key=lambda e: e[0])
    return [e for _, e in events]


def _tone(first: int, last: int, pulses: int, samplerate: float) -> dict:
    """Return the tone event of a run of ``pulses`` rises from sample ``first`` to ``last``."""
    freq = (pulses - 1) / ((last - first) / samplerate)
    note, cents = note_name(freq)
    return {"t": seconds(first, samplerate), "type": "tone", "freq_hz": round(freq, 1),
            "dur_s": round(pulses / freq, 4), "pulses": pulses, "note": note, "cents": cents}


def _click(rise: int, samplerate: float) -> dict:
    """Return the click event of a rise in no run."""
    return {"t": seconds(rise, samplerate), "type": "tone", "freq_hz": None, "dur_s": 0.0,
            "pulses": 1}


class SpeakerDecoder(Decoder):
    """Turn R10/R4 changes into tone and click events (rules in the module docstring)."""

    NAME = "speaker"
    EVENT = "tone"         # the event type it emits
    CHANNELS = ("R10", "R4")

    def __init__(self, info, max_period_s: float = MAX_PERIOD_S, tol: float = PERIOD_TOL):
        super().__init__(info)
        self.max_period = max_period_s * self.rate
        self.max_period_s = max_period_s
        self.tol = tol
        self._r10 = self.sel.bit("R10")
        self._r4 = self.sel.bit("R4")
        self._prev = 0
        # The buffer since the last silence, as runs (all plain numbers: a snapshot is a
        # shallow copy). ``_last`` is its newest rise (None: empty); ``_first`` its only rise
        # while it has one; the open run starts at ``_start`` with first period ``_period``
        # and has ``_pulses`` rises (0: no run yet); ``_held`` is a finished single-period run
        # (first, last, whether the run before it was dropped) whose fate waits on the next
        # run; ``_before`` says whether the run before the open one exists and spans more
        # than one period (None: no run before); ``_dropped`` whether the last finished run
        # was dropped as a seam (two seams in a row leave the rise between them a click).
        self._last: int | None = None
        self._first: int | None = None
        self._start = self._period = self._pulses = 0
        self._held: tuple[int, int, bool] | None = None
        self._before: bool | None = None
        self._dropped = False

    def on_change(self, t: int, value: int, out: list[dict]) -> None:
        rising = value & self._r10 and not self._prev & self._r10
        self._prev = value
        if rising and not value & self._r4:
            if self._last is not None and t - self._last >= self.max_period:
                self._flush(out)
            self._rise(t, out)

    def advance(self, t: int, out: list[dict]) -> None:
        if self._last is not None and t - self._last >= self.max_period:
            self._flush(out)
        self.horizon = self._pending_from() if self._last is not None else max(self.horizon, t)

    def close(self, end: int, out: list[dict]) -> None:
        self._flush(out)

    def cut(self, start: int, end: int, out: list[dict]) -> None:
        self._flush(out)

    def quiet(self) -> bool:
        return self._last is None

    def _pending_from(self) -> int:
        """Return the first rise whose event is not written yet."""
        if self._held is not None:
            return self._held[0]
        return self._start if self._pulses else self._first

    def _rise(self, t: int, out: list[dict]) -> None:
        """Take a rise less than ``max_period`` after the previous one of the buffer."""
        last, self._last = self._last, t
        if last is None:
            self._first = t
            return
        d = t - last
        if not self._pulses:                       # the buffer's second rise opens run 0
            self._start, self._period, self._pulses, self._first = last, d, 2, None
            return
        if abs(d - self._period) <= self.tol * self._period:
            self._pulses += 1                      # the open run goes on
            if self._pulses == 3 and self._held is not None:
                if self._held[2]:                  # a seam before a longer run: dropped;
                    out.append(_click(self._held[0], self.rate))   # after another: a click
                self._held = None
            return
        self._end_run(last, out)
        self._start, self._period, self._pulses = last, d, 2

    def _end_run(self, last: int, out: list[dict]) -> None:
        """The open run ended at rise ``last`` (a new run starts there): judge it."""
        single = self._pulses == 2
        if self._held is not None:                 # the held seam candidate's next run is
            self._write(self._held, 2, out)        # single too: it is a note
            self._held, self._dropped = None, False
        if single and self._before is False:
            self._held = (self._start, last, self._dropped)    # fate waits on the next run
        elif single and self._before:              # a single after a longer run: a seam
            self._dropped = True
        else:
            self._write((self._start, last), self._pulses, out)
            self._dropped = False
        self._before = not single

    def _write(self, run: tuple[int, ...], pulses: int, out: list[dict]) -> None:
        out.append(_tone(run[0], run[1], pulses, self.rate))

    def _flush(self, out: list[dict]) -> None:
        """End the buffer: write what is left (the last run is always a note)."""
        if self._held is not None:
            self._write(self._held, 2, out)
        if self._pulses:
            self._write((self._start, self._last), self._pulses, out)
        elif self._first is not None:
            out.append(_click(self._first, self.rate))
        self._last = self._first = self._held = self._before = None
        self._start = self._period = self._pulses = 0
        self._dropped = False
