"""Keep the time-ordered merge of event lists that grow while a tower runs, so that reading it
after every step costs what is new since the last read, not the whole session.

A live tower's events come from a few *sources* that only grow (decoded pins, board events,
key and power actions, in the order each source made them) and, at each read, a few events
that are provisional (what the decoders still hold: a tone still sounding, a display window
still open). ``EventLog`` merges everything before a *watermark* once and for all: the caller
promises, with ``settle(t)``, that no source will add an event before ``t`` any more (the
decoders' release time, the tower's clock). A read then sorts only what came after the
watermark and the provisional events, and returns the settled prefix plus that tail.

The result is always that of one stable sort of every source's events, concatenated in the
order of ``slots``, by ``(t, rank of the type)``: an event that comes in under the watermark
after all (a source broke the promise) makes the log merge everything again, so only the speed,
never the result, depends on the promise (tests/captures_core/test_eventlog.py).

Example::

    log = EventLog(("decoded", "pending", "board", "power"), first=("power", "button"))
    log.add("decoded", new_decoded_events)
    log.add("board", board.events[seen:])
    log.settle(min(decoder.released, tower.now))
    events = log.read(upto=tower.now, pending=decoder.peek(end))
"""
from __future__ import annotations

from typing import Iterable, Sequence

__all__ = ["EventLog"]


class EventLog:
    """The merge of growing event sources in time order (see the module docstring).

    ``slots`` name the sources in the order their events go at equal keys (a slot given only
    to ``read`` holds provisional events); ``first`` lists event types that sort before the
    others at the same time, in that order (e.g. ``("power", "button")``).
    """

    def __init__(self, slots: Sequence[str], first: Sequence[str] = ()):
        self.slots = tuple(slots)
        self._rank = {kind: i for i, kind in enumerate(first)}
        self._last_rank = len(self._rank)
        self._all: dict[str, list[dict]] = {s: [] for s in self.slots}
        self._pending: dict[str, list[dict]] = {s: [] for s in self.slots}
        self._settled: list[dict] = []
        self._watermark = float("-inf")
        self._stale = False
        self.rebuilds = 0              # how often a late event made the log merge everything

    @property
    def watermark(self) -> float:
        """Return the time (s) below which every event is merged for good."""
        return self._watermark

    def key(self, ev: dict) -> tuple[float, int]:
        """Return the sort key of ``ev``: its time, then the rank of its type."""
        return ev["t"], self._rank.get(ev["type"], self._last_rank)

    def add(self, slot: str, events: Iterable[dict]) -> None:
        """Append ``events`` (new, in the source's order) to source ``slot``."""
        new = list(events)
        if not new:
            return
        self._all[slot].extend(new)
        self._pending[slot].extend(new)
        if not self._stale and any(e["t"] < self._watermark for e in new):
            self._stale = True

    def settle(self, watermark: float) -> None:
        """Merge for good every event before ``watermark`` (s): no source will add one there
        any more, and no read will ask for less than ``watermark``."""
        if self._stale:
            self._rebuild()
        if not watermark > self._watermark:
            return
        batch: list[dict] = []
        for slot, pending in self._pending.items():
            if any(e["t"] < watermark for e in pending):
                batch += [e for e in pending if e["t"] < watermark]
                self._pending[slot] = [e for e in pending if e["t"] >= watermark]
        if len(batch) > 1:
            batch.sort(key=self.key)
        self._settled += batch
        self._watermark = watermark

    def read(self, upto: float = float("inf"), **provisional: list[dict]) -> list[dict]:
        """Return every event up to ``upto`` (s): the sources' and the ``provisional`` ones
        (by slot name), in the order of the module docstring."""
        if self._stale:
            self._rebuild()
        tail: list[dict] = []
        for slot, pending in self._pending.items():
            tail += pending
            more = provisional.get(slot)
            if more:
                if any(e["t"] < self._watermark for e in more):
                    return self._merge_all(upto, provisional)
                tail += more
        if not tail:
            return self._settled[:]
        tail = [e for e in tail if e["t"] <= upto]
        tail.sort(key=self.key)
        return self._settled + tail

    def _merge_all(self, upto: float, provisional: dict[str, list[dict]]) -> list[dict]:
        every = [e for s in self.slots for e in self._all[s] + provisional.get(s, [])]
        return sorted((e for e in every if e["t"] <= upto), key=self.key)

    def _rebuild(self) -> None:
        """Merge everything again (a source added an event under the watermark)."""
        self.rebuilds += 1
        self._stale = False
        watermark, self._watermark = self._watermark, float("-inf")
        self._settled = []
        self._pending = {s: list(self._all[s]) for s in self.slots}
        self.settle(watermark)
