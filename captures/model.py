"""The pin-level trace model: channels, a time base, value changes and gaps.

A capture is a set of digital lines sampled at ``samplerate`` Hz (for an emulator, the chip's
oscillator: 425 kHz for the Dark Tower). Its data is a stream of ``Changes`` blocks: at sample
``times[k]`` the packed word of all channels becomes ``words[k]`` (bit i = ``channels[i]``) and
stays so until the next change. The first change of a capture is at sample 0 and gives the
initial levels. Gaps (overruns, an unplugged probe, a truncated file) are first-class records:
no data is claimed for samples inside a gap.

Streaming: readers return a ``Capture`` whose ``changes()`` yields blocks as the file is read,
so a 10-minute 1 MHz capture never has to sit in memory; ``MemoryCapture`` holds arrays.

Example::

    cap = MemoryCapture.from_edges(["R4", "R10"], 425_000,
                                   [(0, "R4", 1), (700, "R4", 0), (800, "R10", 1)], 10_000)
    for block in cap.changes():
        ...
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

import numpy as np

__all__ = [
    "DARKTOWER_CHANNELS", "CaptureError", "Gap", "CaptureInfo", "Changes", "Capture",
    "MemoryCapture", "changes_from_samples",
]

# Channel order of the shared reference captures (R0-R10, O0-O7, K1 K2 K4 K8, SENSOR).
DARKTOWER_CHANNELS = tuple([f"R{i}" for i in range(11)] + [f"O{i}" for i in range(8)]
                           + ["K1", "K2", "K4", "K8", "SENSOR"])


class CaptureError(ValueError):
    """A capture file or channel map is unusable; the message names the file and the problem."""


@dataclass(frozen=True)
class Gap:
    """Samples ``start``..``end`` (exclusive) carry no data; ``reason`` says why."""
    start: int
    end: int
    reason: str


@dataclass
class CaptureInfo:
    """What a capture is: channel names (bit order), samplerate (Hz), length (samples)."""
    channels: list[str]
    samplerate: float
    total_samples: int | None = None
    meta: dict = field(default_factory=dict)

    def index(self, name: str) -> int:
        """Return the bit index of channel ``name``; raise CaptureError if it is not captured."""
        try:
            return self.channels.index(name)
        except ValueError:
            raise CaptureError(f"channel {name!r} is not in this capture (channels: "
                               f"{' '.join(self.channels)})") from None

    def seconds(self, samples: int | float) -> float:
        """Convert a sample index to seconds."""
        return samples / self.samplerate


@dataclass
class Changes:
    """A block of value changes: ``times`` (int64 sample indices, increasing) and ``words``
    (uint64 packed channel levels from that sample on)."""
    times: np.ndarray
    words: np.ndarray

    def __len__(self) -> int:
        return len(self.times)


class Capture:
    """A capture whose changes are produced on demand by ``factory`` (re-iterable)."""

    def __init__(self, info: CaptureInfo, factory: Callable[[], Iterable[Changes]],
                 gaps: list[Gap] | None = None):
        self.info = info
        self._factory = factory
        self.gaps: list[Gap] = list(gaps or [])
        # Non-fatal findings of the reader (e.g. "truncated after chunk 12"), one line each.
        self.warnings: list[str] = []

    @property
    def channels(self) -> list[str]:
        return self.info.channels

    @property
    def samplerate(self) -> float:
        return self.info.samplerate

    def changes(self) -> Iterator[Changes]:
        """Yield the change blocks from the start of the capture."""
        yield from self._factory()

    def to_memory(self) -> "MemoryCapture":
        """Load all changes into one MemoryCapture."""
        ts, ws = [], []
        for b in self.changes():
            ts.append(b.times)
            ws.append(b.words)
        times = np.concatenate(ts) if ts else np.zeros(0, np.int64)
        words = np.concatenate(ws) if ws else np.zeros(0, np.uint64)
        mem = MemoryCapture(self.info, times, words, self.gaps)
        mem.warnings = list(self.warnings)
        return mem


class MemoryCapture(Capture):
    """A capture held as two arrays (times, words)."""

    def __init__(self, info: CaptureInfo, times: np.ndarray, words: np.ndarray,
                 gaps: list[Gap] | None = None):
        self.times = np.asarray(times, dtype=np.int64)
        self.words = np.asarray(words, dtype=np.uint64)
        super().__init__(info, lambda: iter([Changes(self.times, self.words)]), gaps)

    def to_memory(self) -> "MemoryCapture":
        return self

    @classmethod
    def from_edges(cls, channels: list[str], samplerate: float,
                   edges: Iterable[tuple[int, str, int]], total_samples: int | None = None,
                   meta: dict | None = None, gaps: list[Gap] | None = None) -> "MemoryCapture":
        """Build a capture from per-signal edges ``(sample, name, level)`` in time order.

        Edges at sample 0 set initial levels (default 0); several edges at one sample merge.
        """
        index = {n: i for i, n in enumerate(channels)}
        times: list[int] = [0]
        words: list[int] = [0]
        word = 0
        last = -1
        for t, name, level in edges:
            if name not in index:
                raise CaptureError(f"edge on unknown channel {name!r}")
            if t < last:
                raise CaptureError(f"edge times go backwards at sample {t} (after {last})")
            bit = 1 << index[name]
            word = (word | bit) if level else (word & ~bit)
            if t == times[-1]:
                words[-1] = word
            else:
                if word != words[-1]:
                    times.append(t)
                    words.append(word)
            last = t
        info = CaptureInfo(list(channels), samplerate, total_samples, dict(meta or {}))
        return cls(info, np.array(times, np.int64), np.array(words, np.uint64), gaps)

    def edges(self) -> Iterator[tuple[int, str, int]]:
        """Yield per-signal edges ``(sample, name, level)``; sample 0 gives every initial level."""
        prev = None
        for t, w in zip(self.times.tolist(), self.words.tolist()):
            if prev is None:
                for i, n in enumerate(self.info.channels):
                    yield 0, n, (w >> i) & 1
            else:
                diff = w ^ prev
                i = 0
                while diff:
                    if diff & 1:
                        yield t, self.info.channels[i], (w >> i) & 1
                    diff >>= 1
                    i += 1
            prev = w


def changes_from_samples(samples: np.ndarray, start: int, prev_word: int | None) -> Changes:
    """Turn a block of packed samples (one word per sample, from sample ``start``) into Changes.

    ``prev_word`` is the last word of the previous block (None for the first block); only
    samples that differ from their predecessor are kept.
    """
    s = np.asarray(samples).astype(np.uint64, copy=False)
    if len(s) == 0:
        return Changes(np.zeros(0, np.int64), np.zeros(0, np.uint64))
    diff = np.empty(len(s), dtype=bool)
    diff[0] = prev_word is None or int(s[0]) != prev_word
    np.not_equal(s[1:], s[:-1], out=diff[1:])
    idx = np.flatnonzero(diff)
    return Changes(idx.astype(np.int64) + start, s[idx])
