"""CleanroomTower answers the Tower protocol: scripts drive it, inputs are checked, power works."""
from __future__ import annotations

from pathlib import Path

import pytest

from captures.events import validate_event
from captures.script import parse_script, read_script
from captures.tower import Tower, run_script
from cleanroom.reel import Reel, stop_position
from cleanroom.tower import CleanroomError, CleanroomTower

CAPTURES = Path(__file__).resolve().parents[1] / "data" / "captures"


def test_cleanroom_tower_is_a_tower():
    assert isinstance(CleanroomTower(seed=1), Tower)


def test_power_on_shows_a_zero_then_flashing_dashes():
    tw = CleanroomTower(seed=1)
    tw.advance(1.0)
    texts = [e["text"] for e in tw.events() if e["type"] == "display"]
    assert texts[:4] == ["0 ", "  ", "--", "  "]


def test_tower_test_turns_the_reel_then_lights_three_lamps_with_88_then_flashes_l1():
    tw = CleanroomTower(seed=1)
    events = run_script(tw, read_script(str(CAPTURES / "tower_test" / "script.txt")))
    lamps = [e["lamp"] for e in events if e["type"] == "lamp" and e["on"]]
    texts = [e["text"] for e in events if e["type"] == "display" and e["text"].strip()]
    assert lamps == ["upper", "middle", "lower"]
    assert "88" in texts and texts[-1] == "L1"
    assert [e["card_pos"] for e in events if e["type"] == "reel"][:3] == [0, 7, 6]


def test_every_event_is_valid_in_the_shared_vocabulary():
    tw = CleanroomTower(seed=2)
    for e in run_script(tw, read_script(str(CAPTURES / "level4_riddle" / "script.txt"))):
        validate_event(e)


def test_same_seed_gives_the_same_session():
    script = parse_script("1 YES/BUY 0.2\n12 YES/BUY 0.2\n14 YES/BUY 0.2\n"
                          "25 MOVE 0.2\n30 NO/END 0.2\n35 TOMB/RUIN 0.2\n# run length: 45 s\n")
    a = run_script(CleanroomTower(seed=7), script)
    b = run_script(CleanroomTower(seed=7), script)
    assert a == b


def test_unknown_button_is_refused_with_its_name():
    with pytest.raises(CleanroomError, match="unknown button 'JUMP'"):
        CleanroomTower(seed=1).press("JUMP")


def test_negative_advance_is_refused():
    with pytest.raises(CleanroomError, match="-1"):
        CleanroomTower(seed=1).advance(-1)


def test_bad_quick_start_is_refused():
    with pytest.raises(CleanroomError, match="level 1-4"):
        CleanroomTower(start=(5, 1))


def test_power_off_darkens_the_tower_and_power_on_restarts_the_test():
    tw = CleanroomTower(seed=1)
    tw.advance(1.0)
    tw.power(False)
    tw.advance(1.0)
    assert tw.events()[-1]["type"] in ("display", "power")
    tw.power(True)
    tw.advance(0.1)
    texts = [e["text"] for e in tw.events() if e["type"] == "display" and e["t"] >= 2.0]
    assert texts[0] == "0 "


def test_close_releases_held_keys():
    tw = CleanroomTower(seed=1)
    tw.press("MOVE")
    tw.close()
    assert tw.events()[-1] == {"t": 0.0, "type": "button", "button": "MOVE",
                               "action": "release"}


def test_reel_coasts_five_steps_after_the_motor_stops():
    reel = Reel(pos=20)
    reel.set_motor(True)
    for _ in range(4):
        reel.tick()
    reel.set_motor(False)
    while reel.running:
        reel.tick()
    assert reel.pos == 20 - 4 - 5


def test_reel_stops_in_the_window_of_the_wanted_card():
    reel = Reel(pos=stop_position(3))
    reel.set_motor(False)
    reel.decay, reel.running = 4, True
    while reel.running:
        reel.tick()
    assert reel.card == 3


def test_a_closed_tower_takes_no_more_actions_but_keeps_its_events():
    import pytest

    from cleanroom.tower import CleanroomError, CleanroomTower
    tower = CleanroomTower(seed=1)
    tower.advance(1.0)
    shown = tower.events()
    tower.close()
    with pytest.raises(CleanroomError, match="closed"):
        tower.press("MOVE")
    with pytest.raises(CleanroomError, match="closed"):
        tower.advance(1.0)
    assert tower.events() == shown
