"""Keep the time-ordered merge of event lists that grow while a tower runs, so that reading it
after every step costs what is new since the last read, not the whole session.

A live tower's events come from a few *sources* that only grow (decoded pins, board events,
key and power actions, in the order each source made them) and, at each read, a few events
that are provisional (what the decoders still hold: a tone still sounding, a display window
still open). ``EventLog`` merges everything before a *watermark* once and for all: the caller
promises, with ``settle(t)``, that no source will add an event before ``t`` any more (the
decoders' release time, the tower's clock). A read then sorts only what came after the
watermark and the provisional events, and returns the settled prefix plus that tail as an
``EventList``, which shares the prefix with earlier reads instead of copying it.

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

from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, islice
from operator import itemgetter

__all__ = ["EventLog", "EventList"]


class EventList(Sequence):
    """A read-only list of events: the first ``settled`` events of a shared list that only
    grows, then a tail of its own. A read returns one without copying what earlier reads
    returned, so it costs what is new, however long the session; it compares equal to a list
    of the same events, indexes and slices like one (slices are lists), ``+`` gives a list.
    ``list(events)`` makes a plain copy (e.g. for ``json``).
    """

    __slots__ = ("_base", "_n", "_tail")

    def __init__(self, base: list[dict], settled: int, tail: Sequence[dict] = ()):
        self._base, self._n, self._tail = base, settled, tail

    @property
    def settled(self) -> int:
        """Return how many leading events every later read of the same source repeats
        unchanged (as long as no source broke its promise: ``EventLog.rebuilds``)."""
        return self._n

    def __len__(self) -> int:
        return self._n + len(self._tail)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))] if i.step not in (None, 1) \
                else self._span(*i.indices(len(self))[:2])
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("event index out of range")
        return self._base[i] if i < self._n else self._tail[i - self._n]

    def _span(self, start: int, stop: int) -> list[dict]:
        if stop <= start:
            return []
        n = self._n
        return self._base[start:min(stop, n)] + list(self._tail[max(0, start - n):stop - n])

    def __iter__(self) -> Iterator[dict]:
        return chain(islice(self._base, self._n), self._tail)

    def __eq__(self, other) -> bool:
        if not isinstance(other, (list, tuple, EventList)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other) -> list[dict]:
        return list(self) + list(other)

    def __radd__(self, other) -> list[dict]:
        return list(other) + list(self)

    def __repr__(self) -> str:
        return repr(list(self))


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
        # with no types ranked first every rank is the same: sorting by the time alone gives
        # the order ``key`` gives (a stable sort keeps ties as they came), for less
        self._sort_key = self.key if self._rank else itemgetter("t")
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
        if not self._stale and self._watermark > float("-inf") and \
                any(e["t"] < self._watermark for e in new):     # none is before -inf
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
            batch.sort(key=self._sort_key)
        self._settled += batch
        self._watermark = watermark

    def read(self, upto: float = float("inf"), **provisional: list[dict]) -> EventList:
        """Return every event up to ``upto`` (s): the sources' and the ``provisional`` ones
        (by slot name), in the order of the module docstring; the settled ones are shared
        with earlier reads, not copied."""
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
        if tail:
            tail = [e for e in tail if e["t"] <= upto]
            tail.sort(key=self._sort_key)
        return EventList(self._settled, len(self._settled), tail)

    def _merge_all(self, upto: float, provisional: dict[str, list[dict]]) -> EventList:
        every = [e for s in self.slots for e in self._all[s] + provisional.get(s, [])]
        merged = sorted((e for e in every if e["t"] <= upto), key=self._sort_key)
        return EventList(merged, 0, merged)

    def _rebuild(self) -> None:
        """Merge everything again (a source added an event under the watermark)."""
        self.rebuilds += 1
        self._stale = False
        watermark, self._watermark = self._watermark, float("-inf")
        self._settled = []
        self._pending = {s: list(self._all[s]) for s in self.slots}
        self.settle(watermark)
