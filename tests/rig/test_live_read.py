"""A rig tower read while the capture arrives: rig.towers.real.SessionDecoder decodes each
block once and gives what decoding the capture so far in one go gives."""
from __future__ import annotations

import numpy as np
import pytest

from analysis.decode import decode
from captures.formats import open_capture
from captures.model import Changes, Gap, MemoryCapture
from rig.towers.real import SessionDecoder
from tests.analysis.capload import CAPTURES


def one_go(cap: MemoryCapture, t0: int, received: int, end_t: float) -> list[dict]:
    """Decode the capture's first ``received`` samples on the session clock in one go."""
    keep = cap.times < received
    times, words = cap.times[keep], cap.words[keep]
    idx = max(0, int(np.searchsorted(times, t0, side="right")) - 1)
    times = times[idx:] - t0
    times[0] = 0
    gaps = [Gap(max(0, g.start - t0), max(0, g.end - t0), g.reason) for g in cap.gaps
            if g.end > t0 and g.start < received]
    session = MemoryCapture(cap.info.__class__(list(cap.info.channels), cap.info.samplerate,
                                               received - t0), times, words[idx:], gaps)
    return [e for e in decode(session) if e["t"] <= end_t + 1e-9]


@pytest.fixture(scope="module")
def arriving():
    """The shared capture tower_test as an analyser delivers it: 4 ms blocks, two overrun
    gaps with no data in them, the session starting at its first change after 0.2 s."""
    cap = open_capture(CAPTURES / "tower_test" / "capture.sr").to_memory()
    rate = cap.info.samplerate
    gaps = [Gap(int(5.0 * rate), int(5.2 * rate), "overrun"),
            Gap(int(9.1 * rate), int(9.15 * rate), "overrun")]
    inside = np.zeros(len(cap.times), bool)
    for g in gaps:
        inside |= (cap.times >= g.start) & (cap.times < g.end)
    cap = MemoryCapture(cap.info, cap.times[~inside], cap.words[~inside], gaps)
    t0 = int(cap.times[np.searchsorted(cap.times, int(0.2 * rate))])
    return cap, t0, int(0.004 * rate)


@pytest.mark.parametrize("reads_every", [1, 13, 250])
def test_reading_as_the_capture_arrives_gives_what_decoding_it_so_far_gives(arriving,
                                                                             reads_every):
    cap, t0, block = arriving
    rate = cap.info.samplerate
    dec = SessionDecoder(cap.info.channels, rate, t0)
    total = int(cap.info.total_samples)
    gaps = list(cap.gaps)
    checked, reads = 0, 0
    compare_every = max(1, total // block // reads_every // 8)    # about 8 full comparisons
    for k, start in enumerate(range(0, total, block)):
        end = min(total, start + block)
        while gaps and gaps[0].start < end:
            gap = gaps.pop(0)                      # an overrun: found, then data after it
            dec.take([], [gap])
            end = max(end, gap.end)
        sel = (cap.times >= start) & (cap.times < end)
        dec.take([Changes(cap.times[sel], cap.words[sel])], [])
        if k % reads_every == 0 and end > t0:
            end_t = (end - t0) / rate
            got = dec.read(end, end_t)
            reads += 1
            if reads % compare_every == 0:
                assert got == one_go(cap, t0, end, end_t), f"read at sample {end}"
                checked += 1
    assert checked >= 3
    final = dec.read(total, (total - t0) / rate)
    assert final == one_go(cap, t0, total, (total - t0) / rate)
    assert {e["type"] for e in final} >= {"display", "lamp", "tone", "reel", "gap"}
