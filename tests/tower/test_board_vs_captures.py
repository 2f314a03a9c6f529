"""The board model driven by the genuine firmware's pins from the shared captures (MAME 0.251
runs of MP7332): the reel, sensor, key matrix and MAME's frame-polled reel output must come out
exactly as recorded."""
from __future__ import annotations

import pytest

from captures.darktower_facts import GLYPHS
from captures.script import read_script
from emulator.darktower import DarkTowerBoard, glyph_o_table
from tests.analysis.capload import without_script_time

from .capdata import CAPTURES, NAMES, board_edges, channel_edges, edges, events


def replay_r(name: str, with_script: bool = False) -> DarkTowerBoard:
    """Drive a board with the capture's R pins (and its script's keys)."""
    header, all_edges = edges(name)
    board = DarkTowerBoard(None, header["clock_hz"])
    if with_script:
        board.schedule(read_script(str(CAPTURES / name / "script.txt")))
    r = 0
    for cycle, signal, value in all_edges:
        if signal[0] == "R":
            i = int(signal[1:])
            r = r | 1 << i if value else r & ~(1 << i)
            board.write_r(cycle, r)
    board.advance_to(header["end_cycle"])
    return board


@pytest.mark.parametrize("name", NAMES)
def test_sensor_edges_equal_the_capture_to_the_cycle(name):
    assert board_edges(replay_r(name), "SENSOR") == channel_edges(name, "SENSOR")


@pytest.mark.parametrize("name", NAMES)
def test_reel_events_equal_the_capture_at_mames_frame_times(name):
    ours = [e for e in replay_r(name).events if e["type"] == "reel"]
    theirs = [e for e in events(name) if e["type"] == "reel"]
    assert ours == theirs                                       # whole events


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("k", ["K1", "K2", "K4", "K8"])
def test_k_lines_from_the_script_and_r_pins_equal_the_capture(name, k):
    assert board_edges(replay_r(name, with_script=True), k) == channel_edges(name, k)


@pytest.mark.parametrize("name", NAMES)
def test_button_events_equal_the_capture(name):
    ours = [e for e in replay_r(name, with_script=True).events if e["type"] == "button"]
    theirs = [without_script_time(e) for e in events(name) if e["type"] == "button"]
    assert ours == theirs


def test_reel_steps_every_27_ms_in_the_capture():
    header, _ = edges("tower_test")
    tick = round(0.027 * header["clock_hz"])
    assert all(c % tick == 0 for c, _ in channel_edges("tower_test", "SENSOR"))


def test_every_o_word_the_genuine_firmware_drives_is_a_glyph_of_our_output_pla():
    table = set(glyph_o_table())
    for name in NAMES:
        o, after = 0, {}
        for cycle, signal, value in edges(name)[1]:
            if signal[0] == "O":
                i = int(signal[1:])
                o = o | 1 << i if value else o & ~(1 << i)
                after[cycle] = o              # the word once every edge of the cycle is in
        assert set(after.values()) <= table, name


def test_display_multiplexes_both_digits_within_every_frame_of_the_flashing_l1():
    # shared capture tower_test: 'L1' flashes from 11.317 s; O7 selects the digit.
    header, all_edges = edges("tower_test")
    clock = header["clock_hz"]
    o7 = [(c, v) for c, s, v in all_edges if s == "O7" and 11.4 * clock <= c < 11.5 * clock]
    frame = clock / 60
    assert len(o7) >= 2 * 0.1 * 60
    gaps = [b[0] - a[0] for a, b in zip(o7, o7[1:])]
    assert max(gaps) < frame


def test_lamps_light_top_to_bottom_in_the_tower_test():
    lamps = [(e["lamp"], e["on"]) for e in events("tower_test") if e["type"] == "lamp"]
    assert [lamp for lamp, on in lamps if on] == ["upper", "middle", "lower"]


def test_glyph_characters_of_the_capture_displays_are_in_our_table():
    chars = {c for g in GLYPHS for c in g[0]}
    for name in NAMES:
        for e in events(name):
            if e["type"] == "display":
                assert set(e["text"]) <= chars
