"""Make long synthetic captures for scale tests and benchmarks, streamed block by block.

``tiled_capture`` repeats a recorded session (e.g. the shared capture tower_test: power-on, the
tower test, 15.5 s) back to back at another samplerate until the requested length, yielding
``Changes`` blocks lazily, so a 10-minute 1 MHz capture on 24 channels never exists in memory.
Each repeat is a fresh power-on of the same firmware, so decoded events repeat too.

``sample_blocks`` expands a capture to per-sample packed words (block by block), for the
benchmark's plain numpy baseline that scans raw samples.
"""
from __future__ import annotations

from typing import Iterator

import numpy as np

from analysis.base import AnalysisError
from captures.model import Capture, CaptureInfo, Changes

__all__ = ["tiled_capture", "sample_blocks"]


def tiled_capture(base: Capture, duration_s: float, samplerate: float = 1_000_000.0,
                  block_changes: int = 1 << 15) -> Capture:
    """Return a capture of ``duration_s`` seconds at ``samplerate`` Hz repeating ``base``."""
    if not duration_s > 0 or not samplerate > 0:
        raise AnalysisError(f"synthetic capture needs duration > 0 s and samplerate > 0 Hz, got "
                            f"{duration_s} s at {samplerate} Hz")
    mem = base.to_memory()
    if base.info.total_samples:
        tile_s = base.info.total_samples / base.info.samplerate
    else:
        tile_s = (int(mem.times[-1]) + 1) / base.info.samplerate
    base_s = mem.times / base.info.samplerate
    words = mem.words
    total = int(round(duration_s * samplerate))

    def factory() -> Iterator[Changes]:
        k = 0
        last_t = -1
        while k * tile_s * samplerate < total:
            t = np.round((k * tile_s + base_s) * samplerate).astype(np.int64)
            keep = (t < total) & (t > last_t)
            # Resampling may merge changes: keep the last word at each sample.
            t, w = t[keep], words[keep]
            if len(t):
                last_of_run = np.append(t[1:] != t[:-1], True)
                t, w = t[last_of_run], w[last_of_run]
                last_t = int(t[-1])
                for s in range(0, len(t), block_changes):
                    yield Changes(t[s:s + block_changes], w[s:s + block_changes])
            k += 1

    meta = {"synthetic": f"{base.info.meta.get('script', 'capture')} repeated"}
    info = CaptureInfo(list(base.info.channels), samplerate, total, meta)
    return Capture(info, factory)


def sample_blocks(capture: Capture, block_samples: int = 1 << 22) -> Iterator[np.ndarray]:
    """Yield the capture as packed per-sample words (uint32 when 32 channels or fewer)."""
    dtype = np.uint32 if len(capture.info.channels) <= 32 else np.uint64
    total = capture.info.total_samples
    if total is None:
        raise AnalysisError("sample_blocks needs a capture with a known length")
    word = 0
    start = 0
    blocks = capture.changes()
    buf_t = np.zeros(0, np.int64)
    buf_w = np.zeros(0, np.uint64)
    exhausted = False
    while start < total:
        end = min(start + block_samples, total)
        while not exhausted and (len(buf_t) == 0 or buf_t[-1] < end):
            try:
                b = next(blocks)
            except StopIteration:
                exhausted = True
                break
            buf_t = np.concatenate((buf_t, b.times))
            buf_w = np.concatenate((buf_w, b.words))
        n = int(np.searchsorted(buf_t, end, side="left"))
        t, w = buf_t[:n], buf_w[:n]
        buf_t, buf_w = buf_t[n:], buf_w[n:]
        out = np.empty(end - start, dtype=dtype)
        edges = np.concatenate(([start], t, [end])) - start
        vals = np.concatenate(([word], w)).astype(dtype)
        out[:] = np.repeat(vals, np.diff(edges))
        if len(w):
            word = int(w[-1])
        yield out
        start = end
