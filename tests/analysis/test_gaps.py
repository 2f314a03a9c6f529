"""Gaps in a capture (overruns, an unplugged probe) cut every decoder: nothing is joined across
missing data, and the levels the data resumes with hold from the gap's end."""
from __future__ import annotations

from analysis.decode import decode
from captures.model import Capture, Changes, Gap, MemoryCapture
from tests.analysis.synth import capture, square

RATE = 100_000.0      # 1 sample = 10 us; a 1/60 s display window = 1666.7 samples


def _with_gaps(cap: MemoryCapture, *gaps: tuple[int, int]) -> MemoryCapture:
    cap.gaps.extend(Gap(a, b, "probe unplugged") for a, b in gaps)
    return cap


def _of(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["type"] == kind]


def test_a_tone_is_not_joined_across_a_gap():
    # 500 Hz on R10 from 10 ms to 88 ms; no data between two rises around 51 ms.
    cap = _with_gaps(capture(square("R10", 1000, 200, 40), 10_000, RATE), (5110, 5190))
    tones = _of(decode(cap, only=["speaker"]), "tone")
    assert [(t["t"], t["pulses"], t["freq_hz"]) for t in tones] == [
        (0.01, 21, 500.0), (0.052, 19, 500.0)]


def test_a_display_window_is_not_joined_across_a_gap():
    # "1" on the left digit for 1.2 % of a window before a gap and 1.2 % after it, in the
    # same 1/60 s window: each side alone is under the 2 % a glyph needs.
    edges = [(100_480, "O6", 1), (100_480, "O1", 1), (100_500, "O6", 0), (100_500, "O1", 0),
             (101_000, "O6", 1), (101_000, "O1", 1), (101_020, "O6", 0), (101_020, "O1", 0)]
    cap = _with_gaps(capture(edges, 110_000, RATE), (100_500, 101_000))
    assert "1 " not in [e["text"] for e in _of(decode(cap, only=["display"]), "display")]


def test_the_display_text_after_a_gap_is_written_again_from_the_gap_end():
    # "1 " shown all along (segments b and c = O6, O1; R4 low; O7 low = left digit).
    cap = _with_gaps(capture([(0, "O6", 1), (0, "O1", 1)], 200_000, RATE), (100_500, 120_500))
    shown = [(e["t"], e["text"]) for e in _of(decode(cap, only=["display"]), "display")]
    assert shown == [(0.0, "1 "), (1.205, "1 ")]


def test_a_lamp_pulse_is_not_joined_across_a_gap():
    # On 5 ms before a 50 ms gap, off 5 ms after it: under 10 ms of data either side.
    cap = _with_gaps(capture([(9500, "R7", 1), (15_500, "R7", 0)], 30_000, RATE),
                     (10_000, 15_000))
    assert _of(decode(cap, only=["lamps"]), "lamp") == []


def test_a_lamp_lit_just_before_a_gap_and_after_it_is_reported_from_the_gap_end():
    cap = _with_gaps(capture([(9500, "R7", 1)], 30_000, RATE), (10_000, 15_000))
    assert [(e["t"], e["on"]) for e in _of(decode(cap, only=["lamps"]), "lamp")] == [(0.15, 1)]


def test_a_motor_pulse_is_not_joined_across_a_gap():
    cap = _with_gaps(capture([(9500, "R9", 1), (15_500, "R9", 0)], 30_000, RATE),
                     (10_000, 15_000))
    assert _of(decode(cap, only=["motor"]), "motor") == []


def test_a_change_just_before_a_gap_that_reaches_the_end_is_not_reported():
    cap = _with_gaps(capture([(9500, "R9", 1)], 15_000, RATE), (10_000, 15_000))
    assert _of(decode(cap, only=["motor"]), "motor") == []


def test_a_key_pressed_during_a_gap_is_reported_at_the_first_whole_strobe_after_it():
    # R0 strobes 1 ms in every 5 ms; INVENTORY (R0, K1) goes down while nothing is recorded,
    # in the middle of a strobe that began before the gap.
    edges = []
    for k in range(10):
        t = 1000 + 500 * k
        edges += [(t, "R0", 1), (t + 100, "R0", 0)]
        if t > 3000:
            edges += [(t, "K1", 1), (t + 100, "K1", 0)]
    edges = [e for e in edges if not 3020 <= e[0] < 3550]
    edges += [(3550, "K1", 1), (3600, "K1", 0)]
    cap = _with_gaps(capture(edges, 8000, RATE), (3020, 3550))
    presses = [(e["t"], e["button"]) for e in _of(decode(cap, only=["keypad"]), "button")]
    assert presses == [(0.04, "INVENTORY")]


def test_the_reel_position_is_unknown_after_a_gap_until_the_big_hole(tower_test):
    # tower_test: the reel turns from 3.07 s and leaves the big hole at 6.534 s (card 7),
    # published at the next 1/60 s frame, 6.55 s.
    mem = tower_test.to_memory()
    rate = mem.info.samplerate
    gapped = MemoryCapture(mem.info, mem.times, mem.words,
                           [Gap(int(4.0 * rate), int(4.1 * rate), "overrun")])
    reel = [(e["t"], e["card_pos"]) for e in _of(decode(gapped, only=["reel"]), "reel")
            if e["t"] > 4.0]
    assert reel == [(6.55, 7)]


def test_gap_cuts_do_not_depend_on_how_changes_are_split_into_blocks(tower_test):
    mem = tower_test.to_memory()
    rate = mem.info.samplerate
    gaps = [Gap(int(3.3 * rate), int(3.5 * rate), "overrun"),
            Gap(int(8.0 * rate), int(8.3 * rate), "overrun"),
            Gap(int(8.2 * rate), int(9.0 * rate), "overlapping")]
    whole = decode(MemoryCapture(mem.info, mem.times, mem.words, gaps))

    def factory():
        i, sizes, k = 0, (1, 17, 300, 5), 0
        while i < len(mem.times):
            n = sizes[k % 4]
            yield Changes(mem.times[i:i + n], mem.words[i:i + n])
            i, k = i + n, k + 1
    assert decode(Capture(mem.info, factory, gaps)) == whole
    assert len(_of(whole, "gap")) == 3
