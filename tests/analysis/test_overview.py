"""The session overview (analysis.plot): lanes from events, blocks narrower than a pixel merged,
and `towerlab plot timing` drawing it when no window is given."""
from __future__ import annotations

import io

import pytest

from analysis.plot import (Block, aggregate, button_blocks, display_blocks, lamp_blocks,
                           motor_blocks, overview_figure, plot_overview, reel_blocks,
                           session_end, tone_marks)
from tests.analysis.capload import CAPTURES, truth
from towerlab.cli import main

TT = CAPTURES / "tower_test"


def run(*argv):
    out = io.StringIO()
    return main([str(a) for a in argv], out), out.getvalue()


def test_display_blocks_are_the_texts_shown_with_blank_as_no_block():
    events = [{"t": 0.0, "type": "display", "text": "L1"},
              {"t": 0.5, "type": "display", "text": "  "},
              {"t": 1.0, "type": "display", "text": " 2"}]
    assert display_blocks(events, 2.0) == [Block(0.0, 0.5, "L1"), Block(1.0, 2.0, "_2")]


def test_a_gap_ends_the_display_block_that_runs_over_it():
    events = [{"t": 0.0, "type": "display", "text": "88"},
              {"t": 1.0, "type": "gap", "dur_s": 0.5, "reason": "probe unplugged"}]
    assert display_blocks(events, 3.0) == [Block(0.0, 1.0, "88")]


def test_a_lit_lamp_is_labelled_with_the_picture_of_the_card_in_front_of_it():
    events = [{"t": 0.0, "type": "reel", "card_pos": 3},
              {"t": 1.0, "type": "lamp", "lamp": "upper", "on": 1},
              {"t": 2.0, "type": "lamp", "lamp": "upper", "on": 0},
              {"t": 2.0, "type": "reel", "card_pos": 1},
              {"t": 3.0, "type": "lamp", "lamp": "lower", "on": 1}]
    lamps = lamp_blocks(events, 4.0)
    assert lamps["upper"] == [Block(1.0, 2.0, "DRAGON")]
    assert lamps["lower"] == [Block(3.0, 4.0, "BRIGANDS")]
    assert lamps["middle"] == []


def test_a_lamp_lit_with_the_reel_unknown_says_so_and_one_at_card_7_says_it_is_blank():
    events = [{"t": 1.0, "type": "lamp", "lamp": "middle", "on": 1},
              {"t": 2.0, "type": "reel", "card_pos": 7},
              {"t": 3.0, "type": "lamp", "lamp": "lower", "on": 1}]
    lamps = lamp_blocks(events, 4.0)
    assert lamps["middle"] == [Block(1.0, 2.0, "card ?"), Block(2.0, 4.0, "blank (card 7)")]
    assert lamps["lower"] == [Block(3.0, 4.0, "blank (card 7)")]


def test_a_lamp_is_named_by_the_card_reported_up_to_a_frame_after_it_lit():
    # MAME's card_pos comes at the next 1/60 s frame: the reel stopped before the lamp lit
    events = [{"t": 0.0, "type": "reel", "card_pos": 0},
              {"t": 6.941, "type": "lamp", "lamp": "upper", "on": 1},
              {"t": 6.95, "type": "reel", "card_pos": 7}]
    assert lamp_blocks(events, 8.0)["upper"] == [Block(6.941, 8.0, "blank (card 7)")]


def test_the_tower_tests_three_lamps_are_named_as_the_blank_card_they_light():
    lamps = lamp_blocks(truth("level_select"), 40.0)
    assert [b.label for lamp in ("upper", "middle", "lower") for b in lamps[lamp]] == \
        ["blank (card 7)"] * 3


def test_a_lamp_lit_while_the_reel_moves_is_split_at_each_card():
    events = [{"t": 0.0, "type": "reel", "card_pos": 3},
              {"t": 1.0, "type": "lamp", "lamp": "upper", "on": 1},
              {"t": 2.0, "type": "reel", "card_pos": 2},
              {"t": 3.0, "type": "lamp", "lamp": "upper", "on": 0}]
    assert lamp_blocks(events, 4.0)["upper"] == [Block(1.0, 2.0, "DRAGON"),
                                                 Block(2.0, 3.0, "WIZARD")]


def test_motor_and_reel_blocks_follow_their_events():
    events = [{"t": 1.0, "type": "motor", "on": 1}, {"t": 1.5, "type": "reel", "card_pos": 2},
              {"t": 2.0, "type": "motor", "on": 0}]
    assert motor_blocks(events, 5.0) == [Block(1.0, 2.0, "on")]
    assert reel_blocks(events, 5.0) == [Block(1.5, 5.0, "2 WIZARD/BAZAAR CLOSED/KEY MISSING")]


def test_a_decoded_hold_ends_at_its_release_edge_not_at_the_next_scan():
    # the keypad is not scanned during the tower test's reel turn: the first scan that sees
    # YES/BUY up is at 11.756 s, the last that saw it down ended at 3.474 s
    events = [{"t": 3.44992, "type": "button", "button": "YES/BUY", "action": "press"},
              {"t": 11.755956, "type": "button", "button": "YES/BUY", "action": "release",
               "down_until": 3.474432}]
    assert button_blocks(events, 20.0) == [Block(3.44992, 3.474432, "Y")]


def test_a_button_block_runs_from_press_to_release_with_its_short_name():
    events = [{"t": 1.0, "type": "button", "button": "YES/BUY", "action": "press"},
              {"t": 1.2, "type": "button", "button": "YES/BUY", "action": "release"},
              {"t": 3.0, "type": "button", "button": "DARK TOWER", "action": "press"}]
    assert button_blocks(events, 4.0) == [Block(1.0, 1.2, "Y"), Block(3.0, 4.0, "DT")]


def test_blocks_narrower_than_a_pixel_and_closer_than_one_merge_into_one():
    flashing = [Block(k / 8, k / 8 + 1 / 16, "L1") for k in range(10)]
    merged = aggregate(flashing + [Block(5.0, 9.0, "P2")], px_s=0.2)
    assert merged == [Block(0.0, 9 / 8 + 1 / 16, "L1", 10), Block(5.0, 9.0, "P2")]


def test_blocks_wider_than_a_pixel_are_kept_as_they_are():
    blocks = [Block(0.0, 0.3, "L1"), Block(0.5, 0.8, "L1")]
    assert aggregate(blocks, px_s=0.2) == blocks


def test_a_merged_block_is_labelled_with_the_label_that_covers_most_of_it():
    blocks = [Block(0.0, 0.01, "A"), Block(0.02, 0.08, "B"), Block(0.09, 0.1, "A")]
    assert aggregate(blocks, px_s=0.1) == [Block(0.0, 0.1, "B", 3)]


def test_tones_of_one_note_in_one_pixel_column_are_one_mark():
    tones = [{"t": 1.1 + 0.01 * k, "type": "tone", "freq_hz": 440.0, "dur_s": 0.005}
             for k in range(5)]
    tones.append({"t": 1.12, "type": "tone", "freq_hz": None, "dur_s": 0.001})
    tones.append({"t": 1.3, "type": "tone", "freq_hz": 440.0, "dur_s": 0.005})
    marks = tone_marks(tones, px_s=0.25)
    assert [(m[2], m[3], m[4]) for m in marks] == [(440.0, "A4", 5), (None, "click", 1),
                                                   (440.0, "A4", 1)]
    assert marks[0][0] == 1.1 and abs(marks[0][1] - 1.145) < 1e-9


def test_the_session_ends_where_its_last_tone_or_gap_ends():
    events = [{"t": 1.0, "type": "display", "text": "L1"},
              {"t": 2.0, "type": "tone", "freq_hz": 440.0, "dur_s": 0.5}]
    assert session_end(events) == 2.5


def test_the_overview_spans_the_whole_session_with_a_lane_each():
    fig, layout = overview_figure(truth("level_select"))
    labels = [ax.get_ylabel() for ax in fig.axes]
    assert labels == ["display", "lamps", "motor", "reel\ncard", "tones\n(Hz)", "buttons"]
    assert layout.t0 == 0.0 and abs(layout.t1 - 37.55) < 0.01
    assert fig.axes[-1].get_xlim() == (layout.t0, layout.t1)


def test_the_overview_labels_the_texts_it_shows():
    fig, _ = overview_figure(truth("tower_test"))
    shown = {t.get_text() for t in fig.axes[0].texts}
    assert "88" in shown and any(s.startswith("L1") for s in shown)


def test_the_overview_marks_a_time_across_every_lane():
    fig, _ = overview_figure(truth("tower_test"), marks=[(5.0, "first difference")])
    assert all(any(tuple(line.get_xdata()) == (5.0, 5.0) for line in ax.lines)
               for ax in fig.axes)


def test_the_overview_is_written_as_an_image(tmp_path):
    layout = plot_overview(truth("tower_test"), str(tmp_path / "o.png"))
    data = (tmp_path / "o.png").read_bytes()
    assert data[:4] == b"\x89PNG" and len(data) > 20_000
    assert layout.width_px == 1540


def test_plot_timing_without_a_window_draws_the_overview_of_the_whole_capture(tmp_path):
    status, text = run("plot", "timing", TT / "capture.sr", "-o", tmp_path / "t.png")
    assert status == 0 and "overview 0-15.51 s" in text
    assert (tmp_path / "t.png").stat().st_size > 20_000


def test_plot_timing_at_a_time_zooms_to_the_pins_around_it(tmp_path):
    status, text = run("plot", "timing", TT / "capture.sr", "--at", "3.06", "--span", "0.2",
                       "-o", tmp_path / "t.png")
    assert status == 0 and "timing 2.96-3.16 s" in text


def test_plot_timing_of_an_events_file_draws_its_overview(tmp_path):
    status, text = run("plot", "timing", TT / "events.jsonl", "-o", tmp_path / "t.svg")
    assert status == 0 and "overview of" in text
    assert (tmp_path / "t.svg").read_text().count("<svg") == 1


def test_a_span_without_a_time_to_zoom_to_is_an_error(tmp_path, capsys):
    status, _ = run("plot", "timing", TT / "capture.sr", "--span", "0.1",
                    "-o", tmp_path / "t.png")
    assert status == 2 and "--span S needs --at T" in capsys.readouterr().err
    assert not (tmp_path / "t.png").exists()


def test_the_zoomed_timing_plot_has_the_decoded_lanes_above_the_pins(tmp_path):
    import matplotlib.pyplot as plt

    from analysis.plot import plot_timing
    from tests.analysis.capload import load

    made = []
    real_close = plt.close
    plt.close = lambda fig=None: made.append(fig)
    try:
        plot_timing(load("tower_test"), 3.0, 3.2, str(tmp_path / "z.png"))
    finally:
        plt.close = real_close
    labels = [ax.get_ylabel() for ax in made[-1].axes]
    real_close(made[-1])
    # 3.0-3.2 s of the tower test: YES/BUY, its click, the motor starting the reel
    assert labels[:5] == ["motor", "reel\ncard", "tones\n(Hz)", "buttons", "display"]
    assert labels[5:7] == ["digit bus", "O0 seg g"]


def _figure_of(tmp_path, capture: str, start: float, end: float):
    """Return the pin-level figure of a shared capture's window (kept open for reading)."""
    from analysis.plot import timing_figure
    from tests.analysis.capload import load

    return timing_figure(load(capture), start, end)


def _close(fig) -> None:
    import matplotlib.pyplot as plt
    plt.close(fig)


def test_the_pin_view_leaves_out_decoded_lanes_with_nothing_in_its_window(tmp_path):
    fig = _figure_of(tmp_path, "level_select", 2.96, 3.16)  # '--' lights up, nothing else
    labels = [ax.get_ylabel() for ax in fig.axes]
    _close(fig)
    assert labels[:3] == ["reel\ncard", "display", "digit bus"]
    assert not {"lamps", "motor", "tones\n(Hz)", "buttons"} & set(labels)


def test_the_pin_view_keeps_the_decoded_lanes_that_have_events_in_its_window(tmp_path):
    fig = _figure_of(tmp_path, "level_select", 3.4, 3.6)      # YES/BUY, the click, the motor
    labels = [ax.get_ylabel() for ax in fig.axes]
    _close(fig)
    assert {"motor", "tones\n(Hz)", "buttons"} <= set(labels)


def test_every_pin_row_of_the_pin_view_has_its_0_and_1_levels_marked(tmp_path):
    fig = _figure_of(tmp_path, "tower_test", 3.0, 3.2)
    rows = [ax for ax in fig.axes if ax.get_ylabel().split()[0] in
            {"O0", "O7", "R0", "K1", "R10", "SENSOR"}]
    ticks = [[t.get_text() for t in ax.get_yticklabels()] for ax in rows]
    _close(fig)
    assert len(rows) == 6 and all(t == ["0", "1"] for t in ticks)


def test_the_pin_view_has_a_row_for_each_O_line_with_what_it_drives(tmp_path):
    fig = _figure_of(tmp_path, "tower_test", 3.0, 3.2)
    labels = [ax.get_ylabel() for ax in fig.axes]
    o7 = next(ax for ax in fig.axes if ax.get_ylabel().startswith("O7"))
    levels = set(o7.lines[0].get_ydata())
    _close(fig)
    assert [lab for lab in labels if lab.startswith("O")] == [
        "O0 seg g", "O1 seg c", "O2 seg d", "O3 seg e", "O4 seg f", "O5 seg a", "O6 seg b",
        "O7 digit R"]
    assert levels == {0.1, 0.9}          # the digit select toggles: both levels drawn


def test_the_overview_draws_the_reel_as_the_card_in_front_over_time():
    fig, _ = overview_figure(truth("level_select"))
    reel = next(ax for ax in fig.axes if ax.get_ylabel().startswith("reel"))
    cards = list(reel.lines[0].get_ydata())
    _close(fig)
    # the tower test turns the reel once round: 7, 6, ..., 0, then it coasts onto 7
    steps = [c for i, c in enumerate(cards) if i == 0 or c != cards[i - 1]]
    assert steps == [0, 7, 6, 5, 4, 3, 2, 1, 0, 7]


def test_the_overview_of_a_decoded_capture_draws_a_hold_no_longer_than_the_key_was_seen():
    from analysis.decode import decode
    from tests.analysis.capload import load

    fig, _ = overview_figure(decode(load("level_select")))
    buttons = next(ax for ax in fig.axes if ax.get_ylabel() == "buttons")
    boxes = [p.vertices for c in buttons.collections for p in c.get_paths()]
    _close(fig)
    first = min(boxes, key=lambda v: v[:, 0].min())
    assert first[:, 0].min() == pytest.approx(3.44992)
    assert first[:, 0].max() < 3.5          # not up to the next scan of its column at 11.76 s


def test_the_overview_names_its_units_and_the_button_letters_it_uses():
    fig, _ = overview_figure(truth("level_select"))
    legend = next(t.get_text() for t in fig.texts if t.get_gid() == "legend")
    tones = next(ax for ax in fig.axes if ax.get_ylabel().startswith("tones"))
    _close(fig)
    assert "(Hz)" in tones.get_ylabel()
    assert "Y YES/BUY" in legend and "N NO/END" in legend and "M MOVE" not in legend
