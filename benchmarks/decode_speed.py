"""Measure decode throughput (samples/s) on a long synthetic capture against a numpy scan.

The capture is the shared capture tower_test repeated to 10 minutes at 1 MHz on its 24
channels (``analysis.synthetic.tiled_capture``), streamed as change blocks. The reference,
run in the same process on the same data, is a plain numpy scan of the raw samples
(``np.flatnonzero(np.diff(words))`` per 4 Mi-sample block, the cheapest way to find edges in
per-sample data; expanding the samples is not timed). Peak memory of the decode is measured
with tracemalloc. Target: at least 20 M samples/s.

    .venv/bin/python benchmarks/decode_speed.py [--minutes 10] [--rate 1e6]
"""
from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analysis.decode import StreamDecoder  # noqa: E402
from analysis.synthetic import sample_blocks, tiled_capture  # noqa: E402

BASE = ROOT / "tests" / "data" / "captures" / "tower_test" / "edges.jsonl.gz"
TARGET = 20e6


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--rate", type=float, default=1e6, help="samplerate in Hz")
    args = ap.parse_args()

    from captures.formats import open_capture
    cap = tiled_capture(open_capture(str(BASE)), args.minutes * 60, args.rate)
    total = cap.info.total_samples

    tracemalloc.start()
    t0 = time.perf_counter()
    dec = StreamDecoder(cap.info)
    n_events = n_changes = 0
    for block in cap.changes():
        n_changes += len(block)
        n_events += len(dec.feed(block))
    n_events += len(dec.finish(total))
    t_decode = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()

    t_scan = 0.0
    n_edges = 0
    for words in sample_blocks(cap):
        t1 = time.perf_counter()
        n_edges += len(np.flatnonzero(np.diff(words)))
        t_scan += time.perf_counter() - t1

    dec_rate, scan_rate = total / t_decode, total / t_scan
    print(f"capture: {total:,} samples ({args.minutes:g} min at {args.rate:g} Hz, "
          f"{len(cap.info.channels)} channels), {n_changes:,} changes, {n_events:,} events")
    print(f"decode:     {t_decode:8.3f} s  {dec_rate / 1e6:10.1f} M samples/s  "
          f"peak memory {peak / 1e6:.2f} MB (tracemalloc)")
    print(f"numpy scan: {t_scan:8.3f} s  {scan_rate / 1e6:10.1f} M samples/s  "
          f"({n_edges:,} sample-to-sample changes)")
    print(f"ratio decode/scan: {dec_rate / scan_rate:.2f}; target {TARGET / 1e6:g} M samples/s: "
          f"{'met' if dec_rate >= TARGET else 'NOT met'}")
    return 0 if dec_rate >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
