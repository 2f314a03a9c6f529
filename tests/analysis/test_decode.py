"""StreamDecoder: stacked decoders, time order, block independence, bounded memory."""
from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from analysis.base import AnalysisError
from analysis.decode import StreamDecoder, decode
from analysis.synthetic import sample_blocks, tiled_capture
from captures.model import Capture, Changes, Gap, MemoryCapture, changes_from_samples
from tests.analysis.synth import capture


def _split(cap: MemoryCapture, sizes) -> Capture:
    t, w = cap.times, cap.words

    def factory():
        i, k = 0, 0
        while i < len(t):
            n = sizes[k % len(sizes)]
            yield Changes(t[i:i + n], w[i:i + n])
            i, k = i + n, k + 1
    return Capture(cap.info, factory)


def test_events_do_not_depend_on_how_changes_are_split_into_blocks(tower_test,
                                                                   tower_test_events):
    mem = tower_test.to_memory()
    assert decode(_split(mem, [1, 17, 300, 5])) == tower_test_events


def test_feed_releases_only_final_events_in_time_order(tower_test, tower_test_events):
    mem = tower_test.to_memory()
    dec = StreamDecoder(mem.info)
    released = []
    for block in _split(mem, [250]).changes():
        released.append(dec.feed(block))
    tail = dec.finish(mem.info.total_samples)
    flat = [e for chunk in released for e in chunk] + tail
    assert flat == tower_test_events
    assert sum(1 for chunk in released if chunk) > 10      # released as it went


def test_decoders_that_lack_channels_are_skipped_and_say_why():
    cap = capture([(10, "R9", 1)], 2000, 1000.0, channels=("R9",))
    dec = StreamDecoder(cap.info)
    assert [d.NAME for d in dec.decoders] == ["motor"]
    assert "display" in dec.skipped and "'O0'" in dec.skipped["display"]


def test_asking_for_a_decoder_whose_channels_are_missing_is_an_error():
    cap = capture([], 2000, 1000.0, channels=("R9",))
    with pytest.raises(AnalysisError, match="speaker decoder needs channel 'R10'"):
        StreamDecoder(cap.info, only=["speaker"])


def test_an_unknown_decoder_name_is_an_error():
    cap = capture([], 2000, 1000.0)
    with pytest.raises(AnalysisError, match="unknown decoder 'lcd'"):
        StreamDecoder(cap.info, only=["lcd"])


def test_capture_gaps_become_gap_events():
    cap = capture([(10, "R9", 1)], 20_000, 1000.0, channels=("R9",))
    cap.gaps.append(Gap(5000, 6000, "probe unplugged"))
    events = decode(cap)
    assert {"t": 5.0, "type": "gap", "dur_s": 1.0, "reason": "probe unplugged"} in events


def test_a_10_minute_1mhz_24_channel_capture_decodes_in_bounded_memory(tower_test):
    peaks = []
    for minutes in (1, 10):
        cap = tiled_capture(tower_test, minutes * 60, 1e6)
        tracemalloc.start()
        dec = StreamDecoder(cap.info)
        n = 0
        for block in cap.changes():
            n += len(dec.feed(block))
        n += len(dec.finish(cap.info.total_samples))
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert n > 200 * minutes
    assert peaks[1] < 5e6 and peaks[1] < 2 * peaks[0]


def test_synthetic_sample_blocks_expand_to_the_same_changes(tower_test):
    cap = tiled_capture(tower_test, 20, 250_000)
    prev, times = None, []
    start = 0
    for words in sample_blocks(cap, 1 << 20):
        ch = changes_from_samples(words, start, prev)
        times.append(ch.times)
        prev, start = int(words[-1]), start + len(words)
    got = np.concatenate(times)
    want = np.concatenate([b.times for b in cap.changes()])
    assert np.array_equal(got[1:], want[1:])      # the first change is the initial level


def test_every_repeat_of_a_tiled_session_decodes_to_the_same_outputs(tower_test):
    tile = tower_test.info.total_samples / tower_test.info.samplerate
    events = decode(tiled_capture(tower_test, 2 * tile, 1e6))

    def part(k, kind):
        # A display event is stamped with its 1/60 s window's start, up to 1/60 s early.
        lo, hi = k * tile - 1 / 60, (k + 1) * tile - 1 / 60
        return [(e["t"] - k * tile, e.get("text"), e.get("lamp"), e.get("on"),
                 e.get("pulses")) for e in events if e["type"] == kind and lo <= e["t"] < hi]
    for kind, n in (("display", 35), ("lamp", 6), ("motor", 2), ("tone", 4)):
        first, second = part(0, kind), part(1, kind)
        assert len(first) == n and [x[1:] for x in second] == [x[1:] for x in first]
        assert all(abs(a[0] - b[0]) <= 1 / 60 + 0.001 for a, b in zip(first, second))


def _decode_upto(mem: MemoryCapture, n: int, end: int, gaps=()) -> list[dict]:
    """Decode the first ``n`` changes of ``mem`` in one go, finishing at sample ``end``."""
    dec = StreamDecoder(mem.info, gaps=[g for g in gaps if g.start < end])
    return dec.feed(Changes(mem.times[:n], mem.words[:n])) + dec.finish(end)


@pytest.mark.parametrize("block", [7, 160, 900])
def test_peek_returns_what_a_one_shot_decode_up_to_there_gives_and_changes_nothing(
        tower_test, tower_test_events, block):
    # Reads every `block` changes land inside tones, display flashes and reel steps alike.
    mem = tower_test.to_memory()
    dec = StreamDecoder(mem.info)
    final: list[dict] = []
    checked = 0
    for k, i in enumerate(range(0, len(mem.times), block)):
        final += dec.feed(Changes(mem.times[i:i + block], mem.words[i:i + block]))
        n = min(i + block, len(mem.times))
        end = int(mem.times[n - 1]) + 1 + k % 3 * 200
        pending = dec.peek(end)
        if k % max(1, len(mem.times) // block // 40) == 0:     # about 40 full comparisons
            assert final + pending == _decode_upto(mem, n, end)
            checked += 1
        assert all(e["t"] > dec.released for e in pending)
    assert checked >= 3
    assert final + dec.finish(mem.info.total_samples) == tower_test_events


def test_peek_decodes_the_changes_it_is_given_without_keeping_them(tower_test):
    mem = tower_test.to_memory()
    half = len(mem.times) // 2
    dec = StreamDecoder(mem.info)
    first = dec.feed(Changes(mem.times[:half - 50], mem.words[:half - 50]))
    end = int(mem.times[half - 1]) + 1
    rest = Changes(mem.times[half - 50:half], mem.words[half - 50:half])
    assert first + dec.peek(end, rest) == _decode_upto(mem, half, end)
    assert first + dec.feed(rest) + dec.finish(end) == _decode_upto(mem, half, end)


def test_gaps_added_while_decoding_give_what_gaps_known_up_front_give(tower_test):
    mem = tower_test.to_memory()
    rate = mem.info.samplerate
    gaps = [Gap(int(3.3 * rate), int(3.5 * rate), "overrun"),
            Gap(int(8.0 * rate), int(8.3 * rate), "overrun"),
            Gap(int(8.3 * rate), int(9.0 * rate), "touching")]
    # An analyser has no data inside its gaps: the changes there are dropped.
    inside = np.zeros(len(mem.times), bool)
    for g in gaps:
        inside |= (mem.times >= g.start) & (mem.times < g.end)
    mem = MemoryCapture(mem.info, mem.times[~inside], mem.words[~inside])
    whole = decode(MemoryCapture(mem.info, mem.times, mem.words, gaps))
    dec = StreamDecoder(mem.info)
    out, todo = [], list(gaps)
    for i in range(0, len(mem.times), 300):
        block = Changes(mem.times[i:i + 300], mem.words[i:i + 300])
        while todo and todo[0].start <= int(block.times[-1]):
            dec.add_gap(todo.pop(0))          # as an analyser finds them: before later data
        out += dec.feed(block)
    assert out + dec.finish(mem.info.total_samples) == whole
    with pytest.raises(AnalysisError, match="in time order"):
        dec.add_gap(Gap(10, 20, "late"))
