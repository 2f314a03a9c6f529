"""Cut a replay's events from a longer replay with the same decisions, where that is provably
what a replay to the cut shows (cleanroom.snapshots ``ForkReplayer.events``).

Some callers want only the events of a replay (the resolver's item counts and its measures of
durations, cleanroom.items and cleanroom.measure), often where a kept replay went further with
the same decisions (an option's probe, a measure's replay).  Cutting that replay's events at
``until`` saves running the game again, when it is the same list:

- The game is deterministic given its decisions, so both took the same course up to
  ``until`` when every decision the longer one took by then takes the same value with the
  caller's forced list (the chooser's rule, ``take``).  Decisions up to ``CUT_S`` after it
  are compared too: the engine runs what is due within a nanosecond past an advance's end.
- Their events by then differ only by what the longer one wrote after ``until`` and dated by
  then: the engine dates a display change to the start of its 1/60 s frame, and takes back the
  first of two changes in one frame.  So the engine marks every event it writes or takes back
  with its time and the tower's time then (cleanroom.engine ``marks_t``, ``marks_now``); a
  replay keeps the marks made since the state it started from (``Replay.start``), and the cut
  needs none made after ``until`` to be dated by ``until`` + ``CUT_S``.
- A replay keeps the events up to 1 us past its end (the engine's ``sorted_events``); no
  event may lie within a nanosecond of that edge, where rounding ``until`` may count it or not.

tests/cleanroom/test_snapshots.py compares cuts with replays from power-on at decisions,
events and presses, a microsecond and a nanosecond on either side.
"""
from __future__ import annotations

import bisect
from array import array
from typing import Any, Callable, Sequence

__all__ = ["cut", "takes_alike", "CUT_S"]

CUT_S = 2e-6


class CutIndex:
    """What ``cut`` looks up in a replay, made once: its decisions' values and times, and on
    first use which of them took an option other than the likeliest (``chosen``) and its
    marks as arrays."""

    def __init__(self, replay):
        calls = replay.calls
        self.calls = calls
        self.values = [d.value for d in calls]
        self.times = [d.t for d in calls]
        self._chosen: list[int] | None = None
        self._marks = replay.marks
        self._arrays: tuple[array, array] | None = None

    def chosen(self, take: Callable[[Sequence, int, Any], Any]) -> list[int]:
        if self._chosen is None:
            self._chosen = [i for i, d in enumerate(self.calls) if take((), i, d) != d.value]
        return self._chosen

    def marks(self) -> tuple[array, array]:
        if self._arrays is None:
            t, now = array("d"), array("d")
            t.frombytes(self._marks[0])
            now.frombytes(self._marks[1])
            self._arrays = (t, now)
        return self._arrays


def takes_alike(forced: Sequence, values: Sequence, calls: Sequence, n: int,
                take: Callable[[Sequence, int, Any], Any]) -> bool:
    """Tell whether ``forced`` takes each of a replay's first ``n`` decisions (``calls``,
    taken as ``values``; ``n`` at most ``len(forced)``) as the replay took it (``take``: the
    chooser's rule, which passes over a forced value the rules do not allow)."""
    if forced[:n] == values[:n]:
        return True
    return not any(forced[i] != values[i] and take(forced, i, calls[i]) != values[i]
                   for i in range(n - 1, -1, -1))


def _time(e: dict) -> float:
    return e["t"]


def cut(replay, forced: list, until: float, take: Callable[[Sequence, int, Any], Any]
        ) -> list[dict] | None:
    """Return ``replay``'s (cleanroom.snapshots ``Replay``) events up to ``until`` if they are
    those of a replay with ``forced`` to ``until`` (module doc), else None; ``take(forced,
    i, decision)``: the value the chooser takes for the i-th decision."""
    if replay.marks is None or replay.until < until or replay.start > until:
        return None
    index = replay.index
    if index is None:
        index = replay.index = CutIndex(replay)
    # every decision it took by then, and a little after, as ``forced`` takes it
    m = bisect.bisect_right(index.times, until + CUT_S)
    n = min(m, len(forced))
    if not takes_alike(forced, index.values, replay.calls, n, take):
        return None
    if m > n:
        chosen = index.chosen(take)
        if bisect.bisect_left(chosen, n) < bisect.bisect_left(chosen, m):
            return None     # it took a decision past ``forced``'s end off its likeliest
    # nothing it wrote or took back after ``until`` is dated by then
    marks_t, marks_now = index.marks()
    k = bisect.bisect_right(marks_now, until)
    if k < len(marks_t) and min(marks_t[k:]) <= until + CUT_S:
        return None
    # no event where rounding the end may count it or not
    events = replay.events
    edge = until + 1e-6
    if bisect.bisect_left(events, edge - 1e-9, key=_time) != \
            bisect.bisect_right(events, edge + 1e-9, key=_time):
        return None
    return events[:bisect.bisect_right(events, edge, key=_time)]
