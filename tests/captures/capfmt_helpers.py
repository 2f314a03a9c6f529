"""Helpers shared by the capture-format tests: expanding captures, reading sigrok-cli CSV,
and hypothesis strategies for random captures."""
from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
from hypothesis import strategies as st

from captures.model import Capture, Gap, MemoryCapture

DATA = Path(__file__).resolve().parent.parent / "data" / "captures"
SHARED = ("tower_test", "level_select", "level4_bazaar", "level4_riddle")


def expand(capture: Capture, total: int | None = None) -> np.ndarray:
    """Return one packed word per sample (for short captures only)."""
    mem = capture.to_memory()
    end = total if total is not None else capture.info.total_samples
    lengths = np.diff(np.concatenate([mem.times, [end]]))
    return np.repeat(mem.words, lengths)


def sigrok_csv(sigrok: str, path: Path, *extra: str) -> np.ndarray:
    """Run ``sigrok-cli -i path -O csv`` and return one packed word per sample."""
    out = subprocess.run([sigrok, *extra, "-i", str(path), "-O", "csv:header=false"],
                         check=True, capture_output=True, text=True, timeout=60).stdout
    rows = [ln for ln in out.splitlines() if ln and ln[0] in "01"]
    bits = np.array([[int(c) for c in ln.split(",")] for ln in rows], dtype=np.uint64)
    weights = np.uint64(1) << np.arange(bits.shape[1], dtype=np.uint64)
    return (bits * weights).sum(axis=1).astype(np.uint64)


def same_changes(a: Capture, b: Capture) -> bool:
    """Return whether two captures have identical change times and words."""
    ma, mb = a.to_memory(), b.to_memory()
    return np.array_equal(ma.times, mb.times) and np.array_equal(ma.words, mb.words)


NAME = st.from_regex(r"[A-Za-z]([A-Za-z0-9_ ]{0,6}[A-Za-z0-9_])?", fullmatch=True)


@st.composite
def captures(draw, max_channels: int = 24, max_changes: int = 40, rates=None,
             with_gaps: bool = True) -> MemoryCapture:
    """Draw a random capture: unique channel names, increasing change times from 0, words
    that change at each time, an optional length past the last change and gaps."""
    names = draw(st.lists(NAME, min_size=1, max_size=max_channels, unique=True))
    rate = draw(rates if rates is not None else st.sampled_from(
        [1000.0, 250_000.0, 425_000.0, 1_000_000.0, 24_000_000.0, 44_100.0, 3.0]))
    n = draw(st.integers(1, max_changes))
    steps = draw(st.lists(st.integers(1, 5000), min_size=n - 1, max_size=n - 1))
    times = np.cumsum([0] + steps).astype(np.int64)
    full = (1 << len(names)) - 1
    words = [draw(st.integers(0, full))]
    for _ in range(n - 1):
        flip = draw(st.integers(1, full))
        words.append(words[-1] ^ flip)
    total = int(times[-1]) + draw(st.integers(1, 1000))
    gaps = []
    if with_gaps:
        for _ in range(draw(st.integers(0, 2))):
            a = draw(st.integers(0, total))
            b = draw(st.integers(a, total))
            gaps.append(Gap(a, b, draw(st.sampled_from(["overrun", "probe unplugged", ""]))))
    from captures.model import CaptureInfo
    info = CaptureInfo(names, rate, total, {})
    return MemoryCapture(info, times, np.array(words, dtype=np.uint64), gaps)
