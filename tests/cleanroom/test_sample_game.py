"""The rulebook's chapter 6, A Sample Game for 1 player: eleven numbered moves, replayed on the
clean-room tower with the random outcomes the rulebook reports, each checked as a behaviour."""
from __future__ import annotations

import pytest

from .util import player, press, shown, tower

START = dict(warriors=8, gold=13, food=25, scout=True, healer=True, keys=3, frontiers=3)
OUTCOMES = dict(move=["safe", "dragon", "lost", "plague"], tomb=["deserted", "treasure"],
                battle_gold=[15], treasure=["none"] * 3, warrior_price=[5], haggle=[True],
                riddle=[("GOLD KEY", "SILVER KEY", "BRASS KEY")], tower_brigands_L1=[20],
                riddle_key1=["GOLD KEY"] * 2, riddle_key2=["SILVER KEY"],
                skirmish=[True] * 12)


@pytest.fixture(scope="module")
def game():
    """Play moves 1-11 once; return the tower and what each move showed."""
    tw = tower(1, 1, inventory=START, **OUTCOMES)
    steps = {}
    steps[1] = press(tw, "FRONTIER")
    steps[1] += press(tw, "NO/END")
    steps[2] = press(tw, "MOVE") + press(tw, "NO/END")
    steps[3] = press(tw, "TOMB/RUIN") + press(tw, "NO/END")
    steps[4] = press(tw, "TOMB/RUIN")
    steps["4gold"] = player(tw).gold
    steps[4] += press(tw, "NO/END")
    steps[5] = press(tw, "MOVE")
    steps["5inv"] = (player(tw).warriors, player(tw).gold)
    steps[5] += press(tw, "NO/END")
    steps[6] = press(tw, "SANCTUARY/CITADEL")
    steps["6w"] = player(tw).warriors
    steps[6] += press(tw, "NO/END")
    steps[7] = press(tw, "MOVE")
    steps[8] = press(tw, "BAZAAR", "HAGGLE", *["YES/BUY"] * 5, "NO/END")
    steps["8inv"] = (player(tw).warriors, player(tw).gold, player(tw).food)
    steps[8] += press(tw, "NO/END")
    steps[9] = press(tw, "MOVE")
    steps["9w"] = player(tw).warriors
    steps[9] += press(tw, "NO/END")
    steps[10] = press(tw, "DARK TOWER", "NO/END", "YES/BUY")
    steps[10] += press(tw, "NO/END")
    steps[11] = press(tw, "DARK TOWER", "YES/BUY", "YES/BUY")
    return tw, steps


def test_1_frontier_plays_the_frontier_sound_and_counts_the_fourth_frontier(game):
    tw, steps = game
    assert "frontier" in shown(steps[1], "sound")
    assert player(tw).frontiers == 4


def test_2_safe_move_beeps_and_ends_the_turn(game):
    _, steps = game
    assert shown(steps[2], "sound")[:1] == ["beep"]
    assert shown(steps[2], "picture") == []
    assert "-1" in shown(steps[2], "display")


def test_3_deserted_tomb_creaks_open_and_shut_with_nothing_shown(game):
    _, steps = game
    assert shown(steps[3], "sound")[:2] == ["creak_open", "creak_close"]
    assert shown(steps[3], "picture") == []


def test_4_tomb_treasure_of_15_bags_shows_a_total_of_28(game):
    _, steps = game
    assert ("picture", "GOLD") in steps[4] and "28" in shown(steps[4], "display")
    assert steps["4gold"] == 28


def test_5_dragon_takes_a_quarter_leaving_6_warriors_and_21_bags(game):
    _, steps = game
    assert shown(steps[5], "picture")[:1] == ["DRAGON"]
    assert shown(steps[5], "display")[:2] == ["06", "21"]
    assert steps["5inv"] == (6, 21)


def test_6_home_citadel_doubles_6_warriors_to_12(game):
    _, steps = game
    assert shown(steps[6], "display")[0] == "12" and steps["6w"] == 12


def test_7_lost_with_a_scout_shows_scout_and_a_flashing_1_for_another_turn(game):
    _, steps = game
    assert shown(steps[7], "picture") == ["LOST", "SCOUT"]
    assert shown(steps[7], "display") == [" 1"]


def test_8_bazaar_haggle_5_to_4_and_five_warriors_leave_1_bag(game):
    _, steps = game
    assert shown(steps[8], "display")[:3] == ["05", "--", "04"]
    assert "01" in shown(steps[8], "display")
    assert steps["8inv"] == (17, 1, 17)


def test_9_plague_with_a_healer_adds_2_warriors_to_19(game):
    _, steps = game
    assert shown(steps[9], "picture")[:2] == ["PLAGUE", "HEALER"]
    assert "19" in shown(steps[9], "display") and steps["9w"] == 19


def test_10_silver_key_first_is_wrong_and_flashes_minus_1(game):
    _, steps = game
    assert shown(steps[10], "picture") == ["GOLD KEY", "SILVER KEY"]
    assert "-1" in shown(steps[10], "display")


def test_11_gold_then_silver_solves_the_riddle_and_the_final_battle_begins(game):
    tw, steps = game
    assert shown(steps[11], "picture")[:2] == ["GOLD KEY", "SILVER KEY"]
    assert "battle_horn" in shown(steps[11], "sound")
    assert ("picture", "BRIGANDS") in steps[11] and "20" in shown(steps[11], "display")
