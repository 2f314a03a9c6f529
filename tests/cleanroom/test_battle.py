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


def _retreat_recording(no_end_at: float = 24.2, hold: float = 8.0, **retreat):
    """Return (script, events, log) of a level-1 game whose first MOVE (at 20 s) is a battle
    that NO/END, held from ``no_end_at`` for ``hold`` s, leaves with ``retreat``'s
    decisions (the others seeded).  Its first BRIGANDS lights at 23.98 s, the first
    skirmish's scans come at 27.1 s, each later one's about 3.6 s after the one before."""
    from captures.script import parse_script
    from captures.tower import run_script
    from cleanroom.choosers import RandomChooser, ScriptedChooser
    from cleanroom.tower import CleanroomTower

    script = parse_script("1 YES/BUY 0.2\n12.5 YES/BUY 0.2\n14.5 YES/BUY 0.2\n20 MOVE 0.2\n"
                          f"{no_end_at:g} NO/END {hold:g}\n45 NO/END 0.2\n49 INVENTORY 0.2\n"
                          "# run length: 65 s\n")
    outcomes = dict(move=["battle"], brigands=[11], skirmish=[False] * 5, **retreat)
    tw = CleanroomTower(chooser=ScriptedChooser(outcomes, RandomChooser(3)))
    return script, run_script(tw, script), tw.game.log


def test_a_retreat_taken_a_pass_later_without_a_click_costing_two_is_resolved():
    """No recording shows a retreat: what it shows of one is left to the recording, and the
    resolver recovers it from the outputs (the Death March's lamp, the warriors shown)."""
    from cleanroom.conform import resolve

    # taken 11,418 cycles after the scan (the decision counts from its range's middle)
    truth = dict(retreat_take_cycles=[11418 - 7998], retreat_click=[False], retreat_loss=[2])
    script, events, log = _retreat_recording(**truth)
    assert any(e["type"] == "tone" and e.get("cue") == "death_march" for e in events)
    result = resolve(script, events)
    assert result.conforms, result.describe()
    found = {d.name: d.value for d in result.decisions if d.name.startswith("retreat")}
    assert found["retreat_click"] is False and found["retreat_loss"] == 2


def test_a_retreat_that_clicks_has_the_key_click_before_the_death_march():
    script, events, _ = _retreat_recording(retreat_click=[True],
                                           retreat_take_cycles=[-7998])    # at the scan
    death = next(e["t"] for e in events if e.get("cue") == "death_march")
    battle = next(e["t"] for e in events if e.get("cue") == "battle_horn")
    clicks = [e["t"] for e in events if e.get("cue") == "click" and battle < e["t"] < death]
    assert len(clicks) == 1 and death - clicks[0] < 0.1


def _retreat_decisions(log) -> list[tuple[str, object]]:
    return [(n, v) for _, n, v in log if n in ("retreat_at_first_scan", "retreat_loss")]


def test_no_end_held_at_both_of_the_first_skirmishs_scans_retreats_there_without_a_choice():
    _, events, log = _retreat_recording(24.2, retreat_at_first_scan=[False])
    assert _retreat_decisions(log) == [("retreat_loss", 1)]
    death = next(e["t"] for e in events if e.get("cue") == "death_march")
    assert 27.1 < death < 27.3


def test_no_end_first_seen_by_a_later_skirmishs_scan_retreats_there_when_taken_at_once():
    _, events, log = _retreat_recording(28.0, 10.0, retreat_at_first_scan=[True])
    assert [n for n, _ in _retreat_decisions(log)] == ["retreat_at_first_scan", "retreat_loss"]
    death = next(e["t"] for e in events if e.get("cue") == "death_march")
    assert 32.0 < death < 32.2


def test_no_end_first_seen_by_a_later_skirmishs_scan_may_wait_for_the_next_skirmishs_scan():
    _, events, log = _retreat_recording(28.0, 10.0, retreat_at_first_scan=[False])
    assert _retreat_decisions(log) == [("retreat_at_first_scan", False), ("retreat_loss", 1)]
    death = next(e["t"] for e in events if e.get("cue") == "death_march")
    assert 36.9 < death < 37.1
    shown = [e["text"] for e in events if e["type"] == "display" and 32 < e["t"] < death]
    assert "08" in shown            # one more skirmish fought, and lost


def test_no_end_released_before_the_next_scan_leaves_the_battle_going_on():
    _, events, log = _retreat_recording(28.0, 8.0, retreat_at_first_scan=[False])
    assert _retreat_decisions(log) == [("retreat_at_first_scan", False)]
    assert not any(e.get("cue") == "death_march" for e in events if e["t"] < 37.0)


def test_a_retreat_taken_only_at_the_next_skirmishs_scan_is_resolved():
    from cleanroom.conform import resolve

    script, events, _ = _retreat_recording(28.0, 10.0, retreat_at_first_scan=[False])
    result = resolve(script, events)
    assert result.conforms, result.describe()
    found = {d.name: d.value for d in result.decisions if d.name.startswith("retreat")}
    assert found["retreat_at_first_scan"] is False


def _siege_again(siege_after_retreat: list) -> tuple[list, list]:
    """Lay siege at level 4 (16 brigands) with 20 warriors, win the first skirmish (16 -> 8),
    retreat at the second's scan, end the turn and lay siege again; return what the second
    siege showed and the decisions taken."""
    tw = tower(4, 1, inventory=dict(warriors=20, keys=3, frontiers=4),
               skirmish=[True, False, False, False], riddle_key1=["GOLD KEY"] * 3,
               riddle_key2=["SILVER KEY"] * 3, retreat_at_first_scan=[True], retreat_loss=[1],
               siege_after_retreat=siege_after_retreat)
    press(tw, "DARK TOWER", "YES/BUY")
    tw.press("YES/BUY")
    tw.advance(0.2)
    tw.release("YES/BUY")
    tw.advance(6.0)                     # past the first skirmish's scans
    tw.press("NO/END")
    tw.advance(8.0)
    tw.release("NO/END")
    settle(tw)
    assert player(tw).warriors == 19 and tw.game.tower_brigands_left == 8
    press(tw, "NO/END")
    again = press(tw, "DARK TOWER", "YES/BUY", "YES/BUY")
    return again, [(name, value) for _, name, value in tw.game.log]


def test_a_siege_after_a_final_battle_retreat_may_face_the_levels_brigands_again():
    again, log = _siege_again([16])
    assert ("siege_after_retreat", 16) in log
    assert shown(again, "display")[3] == "16"


def test_a_siege_after_a_final_battle_retreat_may_face_the_brigands_it_left():
    again, log = _siege_again([8])
    assert ("siege_after_retreat", 8) in log
    assert shown(again, "display")[3] == "08"


def test_a_siege_after_a_battle_that_beat_no_brigand_is_not_a_choice():
    from cleanroom.sections.dark_tower import siege_brigands

    tw = tower(4, 1)
    tw.game.tower_brigands_left = 16
    assert siege_brigands(tw.game) == 16
    assert "siege_after_retreat" not in {name for _, name, _ in tw.game.log}
