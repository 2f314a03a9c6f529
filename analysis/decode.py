"""Decode a capture's pins into events: all decoders stacked, merged in time order.

The decoders (one module each, every module documents its channels and events):

    display  O0-O7, R4          -> display   two characters per 1/60 s window
    lamps    R5-R7, R4          -> lamp      upper/middle/lower on/off
    motor    R9                 -> motor     on/off
    reel     R9, R8, R4, SENSOR -> reel      card_pos 0-7
    keypad   R0-R2, K1-K8       -> button    decoded presses/releases ("source": "keypad")
    speaker  R10, R4            -> tone      tones and clicks

Example::

    >>> dec = StreamDecoder(capture.info)
    >>> for block in capture.changes():
    ...     for ev in dec.feed(block):
    ...         print(ev)
    >>> rest = dec.finish(capture.info.total_samples)

``StreamDecoder`` holds back events until every decoder has passed their time (each reports a
``horizon``), so what ``feed`` returns is final and in time order; memory is bounded by the
decoders' small states. ``peek(end)`` returns what ``finish(end)`` would return now without
finishing, so a tower read while it runs costs only its new pins plus that small state
(``rig.towers.emulated``); ``feed_pairs`` takes a live read's few new changes as a list;
``add_gap`` takes a gap found while the capture is still arriving. Gaps of the capture become
``gap`` events and cut every decoder (``Decoder.gap``): no tone, display window or lamp pulse
is joined across missing data; the last change inside a gap gives the levels from the gap's
end on. The decoders that cannot run on the capture's channels are skipped (``skipped`` says
why) unless asked for by name.
"""
from __future__ import annotations

import heapq
from typing import Iterable, Iterator, Sequence

import numpy as np

from analysis.base import _SMALL_BLOCK, AnalysisError, Decoder, shallow_copy
from analysis.display import DisplayDecoder
from analysis.keypad import KeypadDecoder
from analysis.lamps import LampDecoder
from analysis.motor import MotorDecoder
from analysis.reel import ReelDecoder
from analysis.speaker import SpeakerDecoder
from captures.model import Capture, CaptureInfo, Changes, Gap

__all__ = ["DECODERS", "StreamDecoder", "decode", "iter_decode", "AnalysisError"]

DECODERS: dict[str, type[Decoder]] = {
    "display": DisplayDecoder,
    "lamps": LampDecoder,
    "motor": MotorDecoder,
    "reel": ReelDecoder,
    "keypad": KeypadDecoder,
    "speaker": SpeakerDecoder,
}


class StreamDecoder:
    """Run the chosen decoders over change blocks and release their events in time order.

    ``only``: decoder names (default: all that the capture's channels allow).
    ``options``: per-decoder keyword arguments, e.g. ``{"reel": {"start_pos": None}}``.
    """

    def __init__(self, info: CaptureInfo, only: Sequence[str] | None = None,
                 options: dict[str, dict] | None = None, gaps: Iterable[Gap] = ()):
        self.info = info
        self.decoders: list[Decoder] = []
        self.skipped: dict[str, str] = {}
        options = options or {}
        for name in options:
            if name not in DECODERS:
                raise AnalysisError(f"unknown decoder {name!r} in options (expected one of "
                                    f"{', '.join(DECODERS)})")
        for name in only or DECODERS:
            if name not in DECODERS:
                raise AnalysisError(f"unknown decoder {name!r} (expected one of "
                                    f"{', '.join(DECODERS)})")
            try:
                self.decoders.append(DECODERS[name](info, **options.get(name, {})))
            except AnalysisError as exc:
                if only:
                    raise
                self.skipped[name] = str(exc)
        # Heap of (t, decoder rank, sequence, event): ties in time go in decoder order, so the
        # output does not depend on how the changes were split into blocks.
        self._heap: list[tuple[float, int, int, dict]] = []
        self._seq = 0
        # The spans the decoders are cut at: overlapping or touching gaps merged.
        self._cuts: list[list[int]] = []
        self._next_cut = 0
        self._inside: tuple[int, int] | None = None     # a gap not yet followed by data
        self._fed_to = -1                               # the last sample fed
        self._union = 0                                 # every decoder's channels
        for d in self.decoders:
            self._union |= d.sel.mask
        self._last_union: int | None = None             # their levels at the last change
        for gap in sorted(gaps, key=lambda g: g.start):
            self.add_gap(gap)

    @property
    def released(self) -> float:
        """Return the time (s) up to which events are released: every event ``feed`` will
        still return lies after it."""
        if not self.decoders:
            return -2e-6
        return min([d.horizon for d in self.decoders]) / self.info.samplerate - 2e-6

    def add_gap(self, gap: Gap) -> None:
        """Take a gap of the capture (no data for samples ``gap.start``..``gap.end``) that
        starts after every change fed so far (an overrun found while capturing); gaps must
        come in order."""
        if gap.start <= self._fed_to:
            raise AnalysisError(f"gap at sample {gap.start} comes after changes up to sample "
                                f"{self._fed_to} were decoded (expected gaps in time order, "
                                f"before the data after them)")
        self._push(-1, [{"t": round(gap.start / self.info.samplerate, 6), "type": "gap",
                         "dur_s": round((gap.end - gap.start) / self.info.samplerate, 6),
                         "reason": gap.reason}])
        if gap.end <= gap.start:
            return
        if len(self._cuts) > self._next_cut and gap.start <= self._cuts[-1][1]:
            self._cuts[-1][1] = max(self._cuts[-1][1], gap.end)   # not reached yet: merged
        else:
            self._cuts.append([gap.start, gap.end])

    def feed(self, changes: Changes) -> list[dict]:
        """Decode one block; return the events that are final, in time order."""
        if len(changes):
            self._fed_to = max(self._fed_to, int(changes.times[-1]))
        for piece in self._pieces(changes):
            if not isinstance(piece, Changes):
                for rank, d in enumerate(self.decoders):
                    self._push(rank, d.gap(*piece))
            elif len(piece) <= _SMALL_BLOCK:        # a few changes: in Python
                self._feed_small(zip(piece.times.tolist(), piece.words.tolist()),
                                 int(piece.times[-1]))
            else:
                piece = self._thin(piece)
                for rank, d in enumerate(self.decoders):
                    self._push(rank, d.feed(piece))
        return self._pop_before(self.released)

    def feed_pairs(self, pairs: Sequence[tuple[int, int]]) -> list[dict]:
        """Decode a few changes given as ``(sample, word)`` pairs, as ``feed`` does, in plain
        Python (a live reader's new changes, where numpy's per-call cost would dominate)."""
        if not pairs:
            return []
        last = pairs[-1][0]
        if self._inside is not None or (self._next_cut < len(self._cuts)
                                        and self._cuts[self._next_cut][0] <= last):
            return self.feed(Changes(np.array([t for t, _ in pairs], np.int64),
                                     np.array([w for _, w in pairs], np.uint64)))
        self._fed_to = max(self._fed_to, last)
        self._feed_small(pairs, last)
        return self._pop_before(self.released)

    def finish(self, end_sample: int) -> list[dict]:
        """Flush every decoder at ``end_sample``; return the remaining events in time order."""
        while self._next_cut < len(self._cuts) and self._cuts[self._next_cut][0] < end_sample:
            start, end = self._cuts[self._next_cut]
            self._next_cut += 1
            for rank, d in enumerate(self.decoders):
                self._push(rank, d.gap(start, min(end, end_sample)))
        for rank, d in enumerate(self.decoders):
            self._push(rank, d.finish(end_sample))
        return self._pop_before(float("inf"))

    def _thin(self, changes: Changes) -> Changes:
        """Return the block without the changes that move none of the decoders' channels
        (a board's word also carries key strobes and the like), its last change kept so
        that every decoder still sees the block's end."""
        bits = changes.words & np.uint64(self._union)
        keep = np.empty(len(bits), dtype=bool)
        keep[0] = self._last_union is None or int(bits[0]) != self._last_union
        np.not_equal(bits[1:], bits[:-1], out=keep[1:])
        self._last_union = int(bits[-1])
        keep[-1] = True
        idx = np.flatnonzero(keep)
        return changes if len(idx) == len(bits) else Changes(changes.times[idx],
                                                              changes.words[idx])

    def _feed_small(self, pairs: Iterable[tuple[int, int]], last: int) -> None:
        """Feed a few changes, last one at sample ``last``, in plain Python: thinned as
        ``_thin`` does, then each decoder's own; a decoder none of whose channels moved is
        only advanced."""
        union, prev = self._union, self._last_union
        moved = 0
        times, words = [], []
        for t, w in pairs:
            b = w & union
            if b != prev:
                times.append(t)
                words.append(w)
                moved |= b ^ (b if prev is None else prev)
                prev = b
        if times and self._last_union is None:
            moved = union                            # the first change: every decoder's
        self._last_union = prev
        for rank, d in enumerate(self.decoders):
            if moved & d.sel.mask:
                self._push(rank, d.feed_selected(*d.sel.select_from(times, words), last))
            else:
                self._push(rank, d.feed_selected([], [], last))

    def peek(self, end_sample: int, changes: Changes | None = None) -> list[dict]:
        """Return, in time order, what ``feed(changes)`` and then ``finish(end_sample)`` would
        return now, leaving this decoder as it is (its decoders' ``snapshot``s do the work)."""
        if (changes is None or not len(changes)) and not (
                self._next_cut < len(self._cuts) and self._cuts[self._next_cut][0] < end_sample):
            # Nothing to feed and no gap to cut: the held events and what each decoder still
            # holds, merged as finish() would (by time, decoder rank, order made).
            items = list(self._heap)
            seq = self._seq
            for rank, d in enumerate(self.decoders):
                if d.quiet():
                    continue
                for ev in d.snapshot().finish(end_sample):
                    items.append((ev["t"], rank, seq, ev))
                    seq += 1
            items.sort(key=_heap_order)
            return [item[3] for item in items]
        twin = shallow_copy(self)
        twin.decoders = [d.snapshot() for d in self.decoders]
        twin._heap = list(self._heap)
        out = twin.feed(changes) if changes is not None and len(changes) else []
        return out + twin.finish(end_sample)

    def _pieces(self, changes: Changes) -> Iterator[Changes | tuple[int, int]]:
        """Split a block at the gaps: change blocks, and (start, end) where a gap cuts in.

        Changes inside a gap carry no timing; the last of them is moved to the gap's end,
        where it gives the levels the data resumes with.
        """
        times, words = changes.times, changes.words
        n, i = len(times), 0
        while True:
            if self._inside is not None:
                end = self._inside[1]
                m = int(np.searchsorted(times, end, "left"))
                if m > i:
                    yield Changes(np.array([end], np.int64), words[m - 1:m])
                    i = m
                if m == n:
                    return
                self._inside = None
            if self._next_cut == len(self._cuts):
                break
            start, end = self._cuts[self._next_cut]
            k = int(np.searchsorted(times, start, "left"))
            if k == n:
                break
            if k > i:
                yield Changes(times[i:k], words[i:k])
            yield start, end
            self._next_cut += 1
            self._inside = (start, end)
            i = k
        if i < n:
            yield Changes(times[i:], words[i:]) if i else changes

    def _push(self, rank: int, events: list[dict]) -> None:
        for ev in events:
            heapq.heappush(self._heap, (ev["t"], rank, self._seq, ev))
            self._seq += 1

    def _pop_before(self, t: float) -> list[dict]:
        out = []
        while self._heap and self._heap[0][0] <= t:
            out.append(heapq.heappop(self._heap)[3])
        return out


def _heap_order(item: tuple[float, int, int, dict]) -> tuple[float, int, int]:
    return item[0], item[1], item[2]


def _end_sample(capture: Capture, last: int) -> int:
    total = capture.info.total_samples
    return int(total) if total is not None else last + 1


def iter_decode(capture: Capture, only: Sequence[str] | None = None,
                options: dict[str, dict] | None = None) -> Iterator[dict]:
    """Yield the capture's events in time order as its change blocks stream by."""
    dec = StreamDecoder(capture.info, only, options, capture.gaps)
    last = 0
    for block in capture.changes():
        if len(block):
            last = int(block.times[-1])
        yield from dec.feed(block)
    yield from dec.finish(max(_end_sample(capture, last), last))


def decode(capture: Capture, only: Sequence[str] | None = None,
           options: dict[str, dict] | None = None) -> list[dict]:
    """Return all events of a capture, in time order (see ``StreamDecoder``)."""
    return list(iter_decode(capture, only, options))
