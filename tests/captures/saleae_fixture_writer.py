"""TEST HELPER ONLY: write Saleae Logic 2 export files to produce fixtures for the importer.

This is not a supported export path of TowerLab (the library only *imports* Saleae files). It
writes the layouts documented in captures/saleae.py from a capture, so tests can check that
reading gives back the same changes.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from captures.model import MemoryCapture
from captures.saleae import V0_HEADER, V1_CHUNK, V1_HEADER


def _per_channel(cap: MemoryCapture, ch: int) -> tuple[int, np.ndarray]:
    """Return the channel's initial level and its transition samples."""
    levels = ((cap.words >> np.uint64(ch)) & np.uint64(1)).astype(np.int64)
    change = np.flatnonzero(np.diff(levels) != 0) + 1
    return int(levels[0]), cap.times[change]


def write_csv(cap: MemoryCapture, path: Path, offset_s: float = 0.0) -> None:
    """Write a ``digital.csv`` (one row per change, times with 9 decimals)."""
    rate = cap.samplerate
    names = ",".join(f"Channel {i}" for i in range(len(cap.channels)))
    rows = [f"Time [s],{names}"]
    for t, w in zip(cap.times.tolist(), cap.words.tolist()):
        levels = ",".join(str((w >> i) & 1) for i in range(len(cap.channels)))
        rows.append(f"{offset_s + t / rate:.9f},{levels}")
    path.write_text("\n".join(rows) + "\n")


def write_bin(cap: MemoryCapture, folder: Path, version: int, split_at: int | None = None,
              gap_samples: int = 0) -> list[Path]:
    """Write one ``digital_N.bin`` per channel, binary ``version`` 0 or 1; for v1,
    ``split_at`` cuts the data into two chunks there, the second ``gap_samples`` later."""
    rate = cap.samplerate
    end = cap.info.total_samples
    paths = []
    for ch in range(len(cap.channels)):
        initial, trans = _per_channel(cap, ch)
        path = folder / f"digital_{ch}.bin"
        if version == 0:
            data = V0_HEADER.build({"magic": b"<SALEAE>", "version": 0, "type": 0,
                                    "initial_state": initial, "begin_time": 0.0,
                                    "end_time": end / rate, "num_transitions": len(trans)})
            data += (trans / rate).astype("<f8").tobytes()
        else:
            cuts = [(0, end)] if split_at is None else [(0, split_at), (split_at, end)]
            data = V1_HEADER.build({"magic": b"<SALEAE>", "version": 1, "type": 0,
                                    "chunk_count": len(cuts)})
            for k, (a, b) in enumerate(cuts):
                shift = gap_samples if k else 0
                inside = trans[(trans > a) & (trans < b)]
                levels = ((cap.words >> np.uint64(ch)) & np.uint64(1)).astype(int)
                idx = np.searchsorted(cap.times, a, side="right") - 1
                data += V1_CHUNK.build({"initial_state": int(levels[idx]), "sample_rate": rate,
                                        "begin_time": (a + shift) / rate,
                                        "end_time": (b + shift) / rate,
                                        "num_transitions": len(inside)})
                data += ((inside + shift) / rate).astype("<f8").tobytes()
        path.write_bytes(data)
        paths.append(path)
    return paths
