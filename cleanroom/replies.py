"""What a process of the replay tree (cleanroom.snapshots) sends back, and how the caller
rebuilds a replay from it: the events emitted since the node the process was forked from,
the decisions and looks since, the engine's marks since (cleanroom.cut), and the events in
time order as the engine orders them.  ``proc`` is the process's state (snapshots
``_Process``: what its node had emitted and logged), ``node`` the caller's record of a node
(snapshots ``_Node``)."""
from __future__ import annotations

import bisect
from types import SimpleNamespace

from .engine import Engine

__all__ = ["time_order", "used_times", "looks_copy", "looks_since", "looks_from", "emitted",
           "marks_since", "events_since", "run_events"]


def time_order(raw: list[dict], now: float) -> list[dict]:
    """Return what the tower's ``events()`` returns for emitted events ``raw`` at ``now``:
    the engine's own ordering (cleanroom.engine.Engine.sorted_events)."""
    return Engine.sorted_events(SimpleNamespace(events=raw, now=now))


def used_times(chooser) -> list:
    """Return when the game first looked at each of ``chooser``'s decisions (its ``used``;
    a chooser without one: each as it was taken)."""
    used = getattr(chooser, "used", None)
    return list(used) if used is not None else [d.t for d in chooser.calls]


def looks_copy(chooser) -> list | None:
    """Return when the game looked at each of ``chooser``'s decisions (its ``looks``, copied;
    None for a chooser without them)."""
    looks = getattr(chooser, "looks", None)
    return [list(x) for x in looks] if looks is not None else None


def looks_since(chooser, proc):
    """Return the chooser's looks (``looks_copy``) as a change from the node this process was
    forked from: (the looks of the decisions taken since, {index: looks} of the earlier ones
    looked at since); the whole list where the chooser does not note which (``looked``), or
    None without looks.  A run touches only what changed: reading every decision's list
    would copy the pages they lie in."""
    looks = getattr(chooser, "looks", None)
    again = getattr(chooser, "looked", None)
    if looks is None or again is None:
        return looks_copy(chooser)
    n = proc.ncalls
    return ([list(x) for x in looks[n:]],
            {i: list(looks[i]) for i in set(again[proc.nlooked:]) if i < n})


def looks_from(base: list | None, sent):
    """Return the looks a process sent (``looks_since``) as a whole list, from ``base``,
    its node's."""
    if not isinstance(sent, tuple):
        return sent
    new, changed = sent
    looks = list(base)
    for i, x in changed.items():
        looks[i] = x
    looks += new
    return looks


def emitted(tower) -> list[dict]:
    """Return the clean-room tower's events as emitted (the engine's own list)."""
    return tower.game.engine.events


def marks_since(tower, n: int) -> tuple | None:
    """Return the clean-room engine's marks from the ``n``-th on (``Replay.marks``): two
    arrays' bytes, or None for a tower without them."""
    engine = getattr(getattr(tower, "game", None), "engine", None)
    if engine is None or not hasattr(engine, "marks_t"):
        return None
    return engine.marks_t[n:].tobytes(), engine.marks_now[n:].tobytes()


def events_since(proc, tower) -> tuple[int, list[dict]]:
    """Return (how many of the node's emitted events are still the first ones, the events
    after them).  The engine only appends events and takes back the last display change of
    a frame, so the node's events are all there, first, when its last one is still in its
    place; else all are sent (none kept)."""
    raw = emitted(tower)
    n = proc.nraw
    if n and not (len(raw) >= n and raw[n - 1] is proc.last):
        return 0, list(raw)
    return n, raw[n:]


def run_events(node, keep: int, new: list[dict], now: float) -> list[dict]:
    """Return a run's events in time order from its node's ``keep`` first events and its
    ``new`` ones: the node's in the order it holds them up to the first time a new one (or
    ``now``) may come between, the rest ordered by ``time_order``.  The same list, because
    the engine orders by time alone and keeps the order of emission at equal times."""
    if keep < len(node.raw):
        return time_order(node.raw[:keep] + new, now)
    lo = min([now] + [e["t"] for e in new])
    p = bisect.bisect_left(node.ordered_t, lo)
    return node.ordered[:p] + time_order(node.ordered[p:] + new, now)
