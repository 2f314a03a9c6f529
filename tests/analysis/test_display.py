"""Display decoder: O/R multiplex -> two characters per 1/60 s window
(tests/data/captures/README.md)."""
from __future__ import annotations

from analysis.display import DisplayDecoder, flash_summary, glyph, segments_from_o
from tests.analysis.synth import capture, run

RATE = 60_000.0          # 1000 samples per 1/60 s window
W = 1000
# O pins for characters (a=O5 b=O6 c=O1 d=O2 e=O3 f=O4 g=O0).
O_OF = {"8": 0x7F, "1": 0x42, "L": 0x1C, "-": 0x01, "0": 0x7E, "C": 0x3C, "2": 0x6D}


def drive(start, end, left, right, step=100):
    """Return edges multiplexing ``left``/``right`` characters from start to end."""
    edges = []
    t = start
    k = 0
    while t < end:
        digit = k % 2
        o = O_OF.get((left, right)[digit], 0) | (digit << 7)
        edges += [(t, f"O{i}", (o >> i) & 1) for i in range(8)]
        t += step
        k += 1
    edges += [(end, f"O{i}", 0) for i in range(8)]
    return edges


def texts(events):
    return [(e["t"], e["text"]) for e in events]


def test_segments_follow_the_board_wiring_a_o5_b_o6_c_o1_d_o2_e_o3_f_o4_g_o0():
    assert segments_from_o(1 << 5) == 0x01       # a
    assert segments_from_o(1 << 0) == 0x40       # g
    assert glyph(segments_from_o(O_OF["L"])) == ("L", True)
    assert glyph(segments_from_o(O_OF["1"])) == ("1", True)


def test_unknown_patterns_show_the_nearest_glyph_and_are_flagged():
    assert glyph(0x3E) == ("0", False)           # "0" without segment a


def test_an_event_with_an_unknown_pattern_carries_its_segment_bytes():
    o = 0x7E & ~(1 << 5)                         # "0" without segment a (O5)
    edges = [(0, f"O{i}", (o >> i) & 1) for i in range(8)]
    (ev, _) = run(DisplayDecoder, capture(edges + [(2 * W, "O1", 0)], 3 * W, RATE))[:2]
    assert ev["text"] == "0 " and ev["segments"] == [0x3E, 0]


def test_each_digit_shows_its_multiplexed_character_from_the_window_start():
    cap = capture(drive(0, 5 * W, "L", "1"), 6 * W, RATE)
    assert texts(run(DisplayDecoder, cap)) == [(0.0, "L1"), (round(5 / 60, 6), "  ")]


def test_r4_high_blanks_the_display():
    cap = capture(drive(0, 5 * W, "8", "8") + [(2 * W, "R4", 1)], 6 * W, RATE)
    assert texts(run(DisplayDecoder, cap)) == [(0.0, "88"), (round(2 / 60, 6), "  ")]


def test_a_pattern_driven_2_percent_of_a_window_or_less_is_blank():
    o = O_OF["8"]
    short = [(100, f"O{i}", (o >> i) & 1) for i in range(8)] + \
            [(120, f"O{i}", 0) for i in range(8)]           # 20 samples = 2.0 %
    longer = [(1100, f"O{i}", (o >> i) & 1) for i in range(8)] + \
             [(1121, f"O{i}", 0) for i in range(8)]         # 21 samples = 2.1 %
    cap = capture(short + longer, 3 * W, RATE)
    assert texts(run(DisplayDecoder, cap)) == [
        (0.0, "  "), (round(1 / 60, 6), "8 "), (round(2 / 60, 6), "  ")]


def test_a_one_window_mix_of_neighbours_is_a_transition_and_dropped():
    # "88" for 3 windows, then one window of "1 8"-style mix "18", then "11".
    edges = (drive(0, 3 * W, "8", "8") + drive(3 * W, 4 * W, "1", "8")
             + drive(4 * W, 7 * W, "1", "1"))
    cap = capture(edges, 8 * W, RATE)
    assert texts(run(DisplayDecoder, cap)) == [
        (0.0, "88"), (round(3 / 60, 6), "11"), (round(7 / 60, 6), "  ")]


def test_a_one_window_blank_between_equal_texts_is_a_transition_merged_into_them():
    # Both digits blank: each equals "the same digit ... or is blank" (README rule 2).
    edges = drive(0, 3 * W, "8", "8") + drive(4 * W, 7 * W, "8", "8")
    cap = capture(edges, 8 * W, RATE)
    assert texts(run(DisplayDecoder, cap)) == [(0.0, "88"), (round(7 / 60, 6), "  ")]


def test_a_two_window_blank_between_equal_texts_is_kept():
    edges = drive(0, 3 * W, "8", "8") + drive(5 * W, 7 * W, "8", "8")
    cap = capture(edges, 8 * W, RATE)
    assert [t for _, t in texts(run(DisplayDecoder, cap))] == ["88", "  ", "88", "  "]


def test_back_to_back_one_window_transitions_keep_the_second_with_the_first_window():
    # README example: "C2", "C " for one window, " 2" for one window, "C2". "C " is dropped
    # and " 2" starts one window earlier: two windows long, so it is kept.
    edges = (drive(0, 3 * W, "C", "2") + drive(3 * W, 4 * W, "C", " ")
             + drive(4 * W, 5 * W, " ", "2") + drive(5 * W, 8 * W, "C", "2"))
    cap = capture(edges, 9 * W, RATE)
    assert texts(run(DisplayDecoder, cap)) == [
        (0.0, "C2"), (round(3 / 60, 6), " 2"), (round(5 / 60, 6), "C2"),
        (round(8 / 60, 6), "  ")]


def test_a_one_window_state_that_is_not_a_mix_of_its_neighbours_is_kept():
    edges = (drive(0, 3 * W, "1", "1") + drive(3 * W, 4 * W, "8", "8")
             + drive(4 * W, 7 * W, "2", "2"))
    cap = capture(edges, 8 * W, RATE)
    assert [t for _, t in texts(run(DisplayDecoder, cap))] == ["11", "88", "22", "  "]


def test_the_first_state_is_kept_even_when_it_lasts_one_window():
    edges = drive(0, W, "0", " ") + drive(W, 4 * W, "8", "8")
    cap = capture(edges, 5 * W, RATE)
    assert texts(run(DisplayDecoder, cap)) == [
        (0.0, "0 "), (round(1 / 60, 6), "88"), (round(4 / 60, 6), "  ")]


def test_a_one_window_blank_between_different_texts_is_dropped():
    edges = drive(0, 3 * W, "0", " ") + drive(4 * W, 7 * W, "-", "-")
    cap = capture(edges, 8 * W, RATE)
    assert texts(run(DisplayDecoder, cap)) == [
        (0.0, "0 "), (round(3 / 60, 6), "--"), (round(7 / 60, 6), "  ")]


def test_flash_summary_finds_the_tower_tests_flashing_texts(tower_test_events):
    spans = [s for s in flash_summary(tower_test_events) if s["flashing"]]
    assert [(s["text"], s["flashes"]) for s in spans] == [("--", 6), ("88", 3), ("L1", 8)]
    assert [s["end"] for s in spans] == [3.066667, 11.316667, 15.416667]
    assert abs(spans[0]["period_s"] - 0.55) < 0.01
    assert abs(spans[1]["period_s"] - 1.60) < 0.01
    assert abs(spans[2]["period_s"] - 0.54) < 0.01

