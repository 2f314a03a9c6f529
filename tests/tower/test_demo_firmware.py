"""The open demo firmware (emulator/firmware/demo.asm) on the Dark Tower board: the rulebook's
tower test and choice of levels and players, as events.

Golden file: tests/golden/demo_session.events.jsonl. Regenerate (after a deliberate change to
the firmware, the board or the decoders) with::

    towerlab run --firmware demo --script emulator/firmware/demo_session.txt --seconds 26 \\
        --events tests/golden/demo_session.events.jsonl --quiet
"""
from __future__ import annotations

from pathlib import Path

import pytest

from captures.events import read_events
from captures.script import read_script
from captures.tower import run_script
from rig.towers.emulated import EmulatorTower, demo_program

from .capdata import events as capture_events

ROOT = Path(__file__).resolve().parent.parent.parent
SESSION = ROOT / "emulator" / "firmware" / "demo_session.txt"
GOLDEN = ROOT / "tests" / "golden" / "demo_session.events.jsonl"


@pytest.fixture(scope="module")
def session():
    tower = EmulatorTower(firmware="demo")
    events = run_script(tower, read_script(str(SESSION)))
    return tower, events


def of(events, kind, **match):
    return [e for e in events if e["type"] == kind and all(e[k] == v for k, v in match.items())]


def texts(events, start=0.0, end=1e9):
    return [e["text"] for e in of(events, "display") if start <= e["t"] < end]


def test_demo_assembles_into_a_tms1400_rom_entered_at_the_reset_address():
    program = demo_program()
    assert len(program.rom) == 4096
    assert program.rom[0x3C0] != 0


def test_demo_session_events_equal_the_golden_file(session):
    _, events = session
    assert events == read_events(str(GOLDEN))


def test_power_on_shows_zero_then_flashing_dashes_until_a_key(session):
    _, events = session
    shown = texts(events, 0, 3.0)
    assert shown[0] == "0 "
    assert shown[1:] == ["  ", "--"] * 5 + ["  "] + ["--"] * (len(shown) - 12)


def test_dash_flash_period_is_that_of_the_genuine_tower_test(session):
    # shared capture tower_test: '--' flashing with a 0.55 s period.
    _, events = session
    starts = [e["t"] for e in of(events, "display", text="--")]
    periods = [b - a for a, b in zip(starts, starts[1:])]
    assert all(abs(p - 0.55) <= 0.02 for p in periods)


def test_a_key_turns_the_reel_once_round_and_stops_at_the_big_hole(session):
    _, events = session
    on = of(events, "motor", on=1)[0]["t"]
    off = of(events, "motor", on=0)[0]["t"]
    assert 3.0 < on < 3.1
    assert abs((off - on) - 3.469) < 0.05       # genuine: 3.067 -> 6.536 s
    cards = [e["card_pos"] for e in of(events, "reel") if on <= e["t"] <= off]
    assert cards == [7, 6, 5, 4, 3, 2, 1, 0]


def test_the_three_windows_light_top_to_bottom_each_with_a_beep_and_88(session):
    _, events = session
    lit = of(events, "lamp", on=1)
    assert [e["lamp"] for e in lit] == ["upper", "middle", "lower"]
    for e in lit:
        beeps = [t for t in of(events, "tone") if 0 <= t["t"] - e["t"] < 0.01]
        assert beeps and 700 < beeps[0]["freq_hz"] < 800 and beeps[0]["pulses"] == 33
    assert "88" in texts(events, lit[0]["t"], lit[2]["t"] + 1.5)


def test_then_l1_flashes_and_no_end_steps_the_level(session):
    _, events = session
    after_test = of(events, "lamp", lamp="lower", on=0)[0]["t"]
    shown = [t for t in texts(events, after_test - 0.1, 16.1) if t != "  "]
    assert shown[0] == "L1"
    assert sorted(set(shown), key=shown.index) == ["L1", "L2", "L3"]


def test_yes_buy_picks_the_level_then_players_step_the_same_way(session):
    _, events = session
    shown = [t for t in texts(events, 16.1, 20.0) if t != "  "]
    assert sorted(set(shown), key=shown.index) == ["P1", "P2"]


def genuine_overture():
    """Return the tones after P2 is chosen in the shared capture level_select (its overture)."""
    tones = of(capture_events("level_select"), "tone")
    choose = [e for e in tones if e["pulses"] == 2][-1]      # the click of YES/BUY on P2
    return [e for e in tones if e["t"] > choose["t"]]


def demo_overture(events):
    return [e for e in of(events, "tone") if e["t"] > 20.0 and e["pulses"] > 2]


def test_the_beep_is_the_genuine_towers_within_1_percent(session):
    # shared capture tower_test: 737.8 Hz, 33 pulses after each lamp.
    _, events = session
    genuine = [e for e in of(capture_events("tower_test"), "tone") if e["pulses"] > 2][0]
    beeps = [e for e in of(events, "tone") if 3.1 < e["t"] < 12.0]
    assert len(beeps) == 3
    for beep in beeps:
        assert abs(beep["freq_hz"] / genuine["freq_hz"] - 1) <= 0.01
        assert beep["pulses"] == genuine["pulses"] == 33


def test_the_key_click_is_the_genuine_towers_within_1_percent(session):
    # shared capture tower_test: 431.9 Hz, 2 pulses on the first key.
    _, events = session
    genuine = of(capture_events("tower_test"), "tone")[0]
    clicks = [e for e in of(events, "tone") if e["pulses"] == 2]
    assert len(clicks) == len(of(events, "button", action="press")) == 6
    for click in clicks:
        assert abs(click["freq_hz"] / genuine["freq_hz"] - 1) <= 0.01


def test_the_overture_plays_the_genuine_note_sequence(session):
    _, events = session
    ours, theirs = demo_overture(events), genuine_overture()
    assert len(theirs) == 16
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert abs(a["freq_hz"] / b["freq_hz"] - 1) <= 0.01, (a, b)
        assert abs(a["dur_s"] / b["dur_s"] - 1) <= 0.05, (a, b)


def test_the_overtures_notes_start_when_the_genuine_ones_do_within_5_ms(session):
    _, events = session
    ours, theirs = demo_overture(events), genuine_overture()
    click = [e for e in of(events, "tone") if e["pulses"] == 2][-1]["t"]
    genuine_click = [e for e in of(capture_events("level_select"), "tone")
                     if e["pulses"] == 2][-1]["t"]
    assert len(ours) == len(theirs) == 16
    for a, b in zip(ours, theirs):
        assert abs((a["t"] - click) - (b["t"] - genuine_click)) <= 0.005, (a, b)


def test_the_digits_stay_dark_through_the_overture_then_1_flashes(session):
    _, events = session
    end = demo_overture(events)[-1]
    end_t = end["t"] + end["dur_s"]
    assert texts(events, 20.0, end_t) == ["  "]
    assert texts(events, end_t) == [" 1", "  ", " 1", "  "]


def test_every_key_press_gives_a_click_within_20_ms(session):
    _, events = session
    for press in of(events, "button", action="press"):
        clicks = [e for e in of(events, "tone") if 0 <= e["t"] - press["t"] < 0.02]
        assert clicks and clicks[0]["pulses"] == 2


def test_the_same_session_gives_the_same_pins_every_time(session):
    tower, _ = session
    again = EmulatorTower(firmware="demo")
    run_script(again, read_script(str(SESSION)))
    assert again.board.pins == tower.board.pins
