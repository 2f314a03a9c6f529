"""The rulebook's battle sequence (A Battle With Brigands; The Final Battle): its graphic example,
retreat, defeat, and the one warrior multi-player games always keep."""
from __future__ import annotations

from cleanroom.play import settle

from .util import player, press, shown, tower


def test_rulebook_battle_example_4_brigands_against_5_warriors():
    tw = tower(1, 1, inventory=dict(warriors=5), move=["battle"], brigands=[4],
               skirmish=[True, True, True], battle_gold=[10], treasure=["none"])
    obs = press(tw, "MOVE")
    assert shown(obs, "sound")[0] == "battle_horn"
    assert shown(obs, "display")[:7] == ["04", "05", "02", "05", "01", "05", "00"]
    assert shown(obs, "picture")[:7] == ["BRIGANDS", "WARRIORS", "BRIGANDS", "WARRIORS",
                                         "BRIGANDS", "WARRIORS", "BRIGANDS"]


def test_winning_and_losing_skirmishes_have_different_sounds():
    tw = tower(1, 1, inventory=dict(warriors=9), move=["battle"], brigands=[2],
               skirmish=[False, True, True], battle_gold=[10], treasure=["none"])
    sounds = shown(press(tw, "MOVE"), "sound")
    assert "skirmish_lost" in sounds and "skirmish_won" in sounds


def test_lost_skirmish_costs_one_warrior_and_won_skirmish_halves_the_brigands():
    tw = tower(1, 1, inventory=dict(warriors=9), move=["battle"], brigands=[7],
               skirmish=[False, True, True, True], battle_gold=[10], treasure=["none"])
    assert shown(press(tw, "MOVE"), "display")[:9] == ["07", "08", "07", "08", "03", "08",
                                                       "01", "08", "00"]


def test_won_battle_awards_gold_shown_as_the_new_total():
    tw = tower(1, 1, inventory=dict(warriors=9, gold=20), move=["battle"], brigands=[1],
               skirmish=[True], battle_gold=[12], treasure=["none"])
    obs = press(tw, "MOVE")
    assert ("picture", "GOLD") in obs and "32" in shown(obs, "display")
    assert player(tw).gold == 32


def test_gold_beyond_6_bags_per_warrior_is_lost():
    tw = tower(1, 1, inventory=dict(warriors=3, gold=10), move=["battle"], brigands=[1],
               skirmish=[True], battle_gold=[30], treasure=["none"])
    press(tw, "MOVE")
    assert player(tw).gold == 18


def test_lost_battle_in_a_multi_player_game_leaves_one_warrior_after_the_death_march():
    """Rulebook, A Battle With Brigands: 'AFTER YOU LOSE A BATTLE IN A MULTIPLE PLAYER GAME,
    THE TOWER IS PROGRAMMED TO ALWAYS LET YOU KEEP 1 WARRIOR'."""
    tw = tower(1, 2, inventory=dict(warriors=3), move=["battle"], brigands=[20],
               skirmish=[False, False])
    obs = press(tw, "MOVE")
    assert "death_march" in shown(obs, "sound")
    assert shown(obs, "picture")[-1] == "WARRIORS"
    assert player(tw).warriors == 1 and not tw.game.over
    assert shown(obs, "display")[-1] == "-1"


def test_lost_battle_in_a_solo_game_takes_every_warrior_and_ends_the_game():
    """Rulebook, A Battle With Brigands: 'IN A SOLO PLAYER GAME, IF THE BATTLE SEQUENCE
    CONTINUES TO THE END AND YOU LOSE, ALL YOUR MEN WILL BE TAKEN FROM YOU AND THE GAME WILL
    BE OVER!' (a MOVE battle, not only the Final Battle)."""
    tw = tower(1, 1, inventory=dict(warriors=3), move=["battle"], brigands=[20],
               skirmish=[False, False])
    obs = press(tw, "MOVE")
    assert "death_march" in shown(obs, "sound")
    assert shown(obs, "picture")[-1] == "WARRIORS"
    assert player(tw).warriors == 0 and tw.game.over
    assert "-1" not in shown(obs, "display")


def test_lost_tomb_battle_in_a_solo_game_also_ends_the_game():
    """Rulebook, Tomb/Ruin: 'The same battle sequence described under the MOVE button will
    happen here' (so the solo defeat rule too)."""
    tw = tower(1, 1, inventory=dict(warriors=2), tomb=["battle"], brigands=[20],
               skirmish=[False])
    press(tw, "TOMB/RUIN")
    assert player(tw).warriors == 0 and tw.game.over


def test_holding_no_end_retreats_with_the_death_march_and_one_warrior_lost():
    tw = tower(1, 1, inventory=dict(warriors=10), move=["battle"], brigands=[30],
               skirmish=[False] * 20)
    start = len(tw.events())
    tw.press("MOVE")
    tw.advance(0.2)
    tw.release("MOVE")
    tw.advance(4.0)
    tw.press("NO/END")
    tw.advance(8.0)
    tw.release("NO/END")
    settle(tw)
    from cleanroom.play import observations
    obs = observations(tw.events(), start)
    assert "death_march" in shown(obs, "sound")
    assert shown(obs, "display")[-1] == "-1"
    assert player(tw).warriors == 9


def test_solo_final_battle_lost_ends_the_game_with_no_warriors():
    tw = tower(1, 1, inventory=dict(warriors=2, keys=3, frontiers=4),
               riddle=[("GOLD KEY", "SILVER KEY", "BRASS KEY")], tower_brigands_L1=[30],
               skirmish=[False] * 3, riddle_key1=["GOLD KEY"] * 3, riddle_key2=["SILVER KEY"] * 3)
    press(tw, "DARK TOWER", "YES/BUY", "YES/BUY")
    assert player(tw).warriors == 0 and tw.game.over


def test_multi_player_final_battle_lost_keeps_one_warrior_and_play_goes_on():
    tw = tower(1, 2, inventory=dict(warriors=3, keys=3, frontiers=4),
               riddle=[("GOLD KEY", "SILVER KEY", "BRASS KEY")], tower_brigands_L1=[30],
               skirmish=[False] * 3, riddle_key1=["GOLD KEY"] * 3, riddle_key2=["SILVER KEY"] * 3)
    obs = press(tw, "DARK TOWER", "YES/BUY", "YES/BUY")
    assert player(tw).warriors == 1 and not tw.game.over
    assert shown(obs, "display")[-1] == "-1"
