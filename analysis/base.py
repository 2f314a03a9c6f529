"""Share the plumbing of the pin decoders: channel selection, change extraction, time bases.

Every decoder in this package reads a few named channels of a capture (``captures.model``) and
turns their level changes into events (``captures.events``). A decoder is fed ``Changes``
blocks in time order and keeps its own state between blocks, so a capture of any length is
decoded in memory bounded by the decoder state, not the capture.

``Decoder`` is the small protocol they share:

- ``CHANNELS``: the channels the decoder reads (``OPTIONAL`` ones may be absent);
- ``feed(changes) -> list[event]``: events that are final once the block is seen;
- ``finish(end_sample) -> list[event]``: flush at the end of the capture;
- ``horizon``: a sample index before which the decoder will emit no further events (events
  are sometimes held back while a pulse filter or a 1/60 s window is still open); the merging
  ``analysis.decode.StreamDecoder`` uses it to release events in time order;
- ``gap(start, end) -> list[event]``: the capture has no data for samples ``start``..``end``
  (an overrun, an unplugged probe): what is open at ``start`` is closed there, and nothing
  seen before the gap is joined with what comes after it (a tone, a display window, a pulse
  still inside its minimum length). Levels are kept: a change word holds until the next one;
- ``snapshot() -> Decoder``: a copy to feed and finish without touching this one, so a live
  reader can see what is still pending (``analysis.decode.StreamDecoder.peek``) in time
  bounded by the decoder's small state. A decoder with mutable state beyond plain values
  copies it in ``_copy_state``.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from captures.model import CaptureInfo, Changes

__all__ = ["AnalysisError", "Decoder", "ChannelSelector", "seconds", "shallow_copy"]

_PACKED_MAX = 4096        # masked words ChannelSelector.pack remembers the values of
_SMALL_BLOCK = 128        # changes up to which ChannelSelector.select_lists stays in Python


class AnalysisError(ValueError):
    """A capture or event stream cannot be analysed; the message says what and where."""


def _time(ev: dict) -> float:
    return ev["t"]


def shallow_copy(obj):
    """Return a new object of ``obj``'s class sharing its attribute values (``copy.copy``
    without its protocol lookups: a live read snapshots every decoder)."""
    twin = object.__new__(type(obj))
    twin.__dict__.update(obj.__dict__)
    return twin


def seconds(sample: float, samplerate: float) -> float:
    """Return sample index ``sample`` as seconds, rounded to 1 µs like events files."""
    return round(sample / samplerate, 6)


class ChannelSelector:
    """Pick named channels out of packed change words and keep only the changes among them.

    ``values`` packs the selected channels as bit 0, 1, ... in the order given, so a decoder
    sees small integers and only the changes that matter to it (cost scales with its edges).
    """

    def __init__(self, info: CaptureInfo, names: Sequence[str], optional: Sequence[str] = (),
                 decoder: str = "decoder"):
        self.names: list[str] = []
        self.present: dict[str, bool] = {}
        shifts = []
        for name in list(names) + list(optional):
            if name in info.channels:
                self.present[name] = True
                self.names.append(name)
                shifts.append(info.channels.index(name))
            elif name in optional:
                self.present[name] = False
            else:
                raise AnalysisError(
                    f"{decoder} decoder needs channel {name!r}, which this capture lacks "
                    f"(channels: {' '.join(info.channels) or 'none'}); map it with --channel-map")
        # The same as runs of neighbouring bits: (source shift, mask, destination shift), so
        # O0-O7 move as one field (numpy passes per run, not per channel).
        runs: list[list[int]] = []
        for k, sh in enumerate(shifts):
            if runs and sh == runs[-1][0] + runs[-1][1]:
                runs[-1][1] += 1
            else:
                runs.append([sh, 1, k])
        self._runs = tuple((sh, (1 << width) - 1, k) for sh, width, k in runs)
        self._np_runs = tuple((np.uint64(sh), np.uint64(mask), np.uint64(k))
                              for sh, mask, k in self._runs)
        self._mask = sum(1 << sh for sh in shifts)     # the selected bits of a change word
        self._np_mask = np.uint64(self._mask)
        self._packed: dict[int, int] = {}              # masked word -> value (pack)
        self._last: int | None = None                  # the last value (select)
        self._last_bits: int | None = None             # the last selected bits (select_lists)

    @property
    def mask(self) -> int:
        """Return the bits of the selected channels in a change word."""
        return self._mask

    def bit(self, name: str) -> int:
        """Return the bit mask of channel ``name`` in ``values`` (0 if it is absent)."""
        return 1 << self.names.index(name) if self.present.get(name) else 0

    def select(self, changes: Changes) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(times, values)`` of the block's changes of the selected channels."""
        words = changes.words
        if len(words) == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        vals = np.zeros(len(words), dtype=np.uint64)
        for sh, mask, k in self._np_runs:
            vals |= ((words >> sh) & mask) << k
        vals = vals.astype(np.int64)
        keep = np.empty(len(vals), dtype=bool)
        keep[0] = self._last is None or int(vals[0]) != self._last
        np.not_equal(vals[1:], vals[:-1], out=keep[1:])
        self._last = int(vals[-1])
        idx = np.flatnonzero(keep)
        return changes.times[idx], vals[idx]

    def select_lists(self, changes: Changes) -> tuple[list[int], list[int]]:
        """Return ``select``'s result as lists of ints, packing only the changes that are
        kept (most changes of a word concern other decoders): a block is thinned out on its
        masked words first, with numpy unless it is small (a live read's few new changes),
        where numpy's per-call cost would dominate."""
        n = len(changes)
        if not n:
            return [], []
        last = self._last_bits
        if n > _SMALL_BLOCK:
            bits = changes.words & self._np_mask
            keep = np.empty(n, dtype=bool)
            keep[0] = last is None or int(bits[0]) != last
            np.not_equal(bits[1:], bits[:-1], out=keep[1:])
            self._last_bits = int(bits[-1])
            idx = np.flatnonzero(keep)
            bits = bits[idx]
            vals = np.zeros(len(bits), dtype=np.uint64)
            for sh, m, k in self._np_runs:
                vals |= ((bits >> sh) & m) << k
            return changes.times[idx].tolist(), vals.tolist()
        return self.select_from(changes.times.tolist(), changes.words.tolist())

    def select_from(self, times: list[int], words: list[int]) -> tuple[list[int], list[int]]:
        """Return ``select_lists`` of changes given as lists (plain Python throughout)."""
        mask, last = self._mask, self._last_bits
        kept_t, kept_b = [], []
        for t, w in zip(times, words):
            b = w & mask
            if b != last:
                kept_t.append(t)
                kept_b.append(b)
                last = b
        self._last_bits = last
        return kept_t, self.pack(kept_b)

    def pack(self, bits: list[int]) -> list[int]:
        """Return the values (selected channels as bit 0, 1, ...) of masked change words."""
        runs = self._runs
        if len(runs) == 1:
            sh, m, k = runs[0]
            return [(b >> sh & m) << k for b in bits]
        known = self._packed              # a word's channels take few values: remembered
        vals = []
        for b in bits:
            v = known.get(b)
            if v is None:
                v = 0
                for sh, m, k in runs:
                    v |= (b >> sh & m) << k
                if len(known) < _PACKED_MAX:
                    known[b] = v
            vals.append(v)
        return vals


class Decoder:
    """Base of the stacked decoders: channel lookup, the release horizon and the feed loop."""

    NAME = "decoder"
    EVENT = ""                # the event type the decoder emits (captures.events)
    CHANNELS: tuple[str, ...] = ()
    OPTIONAL: tuple[str, ...] = ()

    def __init__(self, info: CaptureInfo):
        self.info = info
        self.rate = float(info.samplerate)
        if not self.rate > 0:
            raise AnalysisError(f"samplerate {info.samplerate!r} must be a positive number of Hz")
        self.sel = ChannelSelector(info, self.CHANNELS, self.OPTIONAL, self.NAME)
        self.horizon = 0

    def feed(self, changes: Changes) -> list[dict]:
        """Decode one block of changes; return the events that are now final."""
        times, vals = self.sel.select_lists(changes)
        return self.feed_selected(times, vals, int(changes.times[-1]) if len(changes) else None)

    def feed_selected(self, times: list[int], values: list[int], end: int | None) -> list[dict]:
        """Decode a block already through ``self.sel`` (``ChannelSelector.select_lists``),
        whose last change was at sample ``end`` (None: an empty block); return the events
        that are now final."""
        out: list[dict] = []
        for t, v in zip(times, values):
            self.on_change(t, v, out)
        if end is not None:
            self.advance(end, out)
        if len(out) > 1:
            out.sort(key=_time)
        return out

    def finish(self, end_sample: int) -> list[dict]:
        """Flush the decoder at ``end_sample`` (the capture length); return the last events."""
        out: list[dict] = []
        self.advance(end_sample, out)
        self.close(end_sample, out)
        self.horizon = end_sample
        if len(out) > 1:
            out.sort(key=_time)
        return out

    def snapshot(self) -> "Decoder":
        """Return a copy that can be fed and finished without changing this decoder."""
        twin = shallow_copy(self)
        twin.sel = shallow_copy(self.sel)
        self._copy_state(twin)
        return twin

    def quiet(self) -> bool:
        """Return True when ``finish`` would return nothing now, whatever the end (nothing
        is held): a live read then skips the decoder's snapshot."""
        return False

    def _copy_state(self, twin: "Decoder") -> None:
        """Give ``twin`` (a shallow copy) its own copy of every mutable container of state."""

    def gap(self, start: int, end: int) -> list[dict]:
        """Cut the decoder at a gap of the capture (no data for samples ``start``..``end``);
        return the events that became final at ``start``."""
        out: list[dict] = []
        self.advance(start, out)
        self.cut(start, end, out)
        self.advance(end, out)
        out.sort(key=lambda e: e["t"])
        return out

    # Subclasses implement these four.
    def on_change(self, t: int, value: int, out: list[dict]) -> None:
        """Handle a change of the selected channels to ``value`` at sample ``t``."""

    def advance(self, t: int, out: list[dict]) -> None:
        """Note that the capture has been seen up to sample ``t`` (no change since)."""
        self.horizon = max(self.horizon, t)

    def close(self, end: int, out: list[dict]) -> None:
        """Emit whatever is still pending at the end of the capture."""

    def cut(self, start: int, end: int, out: list[dict]) -> None:
        """Close what is open at gap ``start`` and restart the timing state at gap ``end``."""
