"""Build tiny synthetic captures for decoder unit tests (edges by name, in samples)."""
from __future__ import annotations

from captures.model import DARKTOWER_CHANNELS, MemoryCapture


def capture(edges, total: int, rate: float = 100_000.0,
            channels=DARKTOWER_CHANNELS) -> MemoryCapture:
    """Return a capture from ``(sample, name, level)`` edges (sorted here) of ``total`` samples."""
    return MemoryCapture.from_edges(list(channels), rate, sorted(edges, key=lambda e: e[0]),
                                    total)


def square(name: str, start: int, period: int, count: int) -> list[tuple[int, str, int]]:
    """Return edges of ``count`` pulses (rise at start + k * period, 50 % duty) on ``name``."""
    out = []
    for k in range(count):
        t = start + k * period
        out += [(t, name, 1), (t + period // 2, name, 0)]
    return out


def run(decoder_cls, cap, **kw) -> list[dict]:
    """Feed a capture through one decoder; return all its events."""
    d = decoder_cls(cap.info, **kw)
    out = []
    for b in cap.changes():
        out += d.feed(b)
    return out + d.finish(cap.info.total_samples)
