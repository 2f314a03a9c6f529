"""Rules from the rulebook's chapter 4 (Keyboard Buttons, Food, Sanctuary/Citadel, Frontier,
Inventory, Clear, Repeat) and its limits: 99s, 6 bags per warrior, a Beast's 50, one warrior."""
from __future__ import annotations

import pytest

from cleanroom.game import Player, food_per_turn
from cleanroom.play import observations

from .util import player, press, shown, tower


@pytest.mark.parametrize("warriors, rations", [(1, 1), (15, 1), (16, 2), (30, 2), (31, 3),
                                               (45, 3), (46, 4), (60, 4), (61, 5), (75, 5),
                                               (76, 6), (90, 6), (91, 7), (99, 7)])
def test_food_eaten_per_turn_follows_the_rulebook_table(warriors, rations):
    assert food_per_turn(warriors) == rations


def test_each_warrior_carries_6_bags_and_a_beast_50_up_to_99():
    assert Player(1, warriors=4).gold_limit() == 24
    assert Player(1, warriors=4, beast=True).gold_limit() == 74
    assert Player(1, warriors=20, beast=True).gold_limit() == 99


def test_losing_warriors_drops_the_gold_they_cannot_carry():
    p = Player(1, warriors=3, gold=30)
    p.carry()
    assert p.gold == 18


def test_low_food_warning_sounds_with_the_turns_first_action_key_with_4_turns_left():
    """Corpus l2_p1_s26 301.32: SANCTUARY/CITADEL at ` 1` with 4 rations before the turn's
    meal, the three whoops, then the trill."""
    tw = tower(1, 1, inventory=dict(warriors=10, food=4), move=["safe"])
    assert "low_food" not in shown(observations(tw.events()), "sound")
    assert player(tw).food == 3
    sounds = shown(press(tw, "MOVE"), "sound")
    assert sounds[:2] == ["low_food", "beep"]


def test_no_warning_with_4_turns_of_rations_left_after_the_meal():
    """Corpus l2_p1_s26 297.30 (INVENTORY showed FOOD 06 two turns before): MOVE with 4
    rations left after the meal plays the safe beep alone; l2_p1_s02 348.60 the same before
    BAZAAR's tune."""
    tw = tower(1, 1, inventory=dict(warriors=10, food=5), move=["safe"])
    assert player(tw).food == 4
    assert shown(press(tw, "MOVE"), "sound") == ["beep"]


@pytest.mark.parametrize("food, warned", [(13, True), (16, False)])
def test_low_food_warning_counts_turns_at_the_forces_rate(food, warned):
    """Corpus l4_p3_s20 400.50: 40 warriors eat 3 rations a turn; 10 left after the meal
    (3.3 turns) warn, 13 (4.3 turns) the turn before did not."""
    tw = tower(1, 1, inventory=dict(warriors=40, food=food), move=["safe"])
    assert player(tw).food == food - 3
    assert ("low_food" in shown(press(tw, "MOVE"), "sound")) == warned


def test_no_warning_with_more_than_4_turns_of_food():
    tw = tower(1, 1, inventory=dict(warriors=10, food=6), move=["safe"])
    assert "low_food" not in shown(press(tw, "MOVE"), "sound")


def test_starvation_costs_one_warrior_at_the_start_of_the_turn():
    tw = tower(1, 1, inventory=dict(warriors=10, food=0))
    assert player(tw).warriors == 9
    assert "death_march" not in shown(observations(tw.events()), "sound")


def test_starvation_s_death_march_sounds_with_the_first_action_key_before_the_action():
    """l2_p1_s118 323.75: DARK TOWER's click, the Death March, then the tower's tune."""
    tw = tower(1, 1, inventory=dict(warriors=10, food=0), move=["safe"])
    sounds = shown(press(tw, "MOVE"), "sound")
    assert sounds[0] == "death_march" and "beep" in sounds[1:]


def test_end_of_turn_no_end_passes_to_the_next_player():
    tw = tower(1, 3, move=["safe"])
    press(tw, "MOVE")
    assert shown(press(tw, "NO/END"), "display") == [" 2"]


def test_plague_takes_two_warriors_without_a_healer():
    tw = tower(1, 1, inventory=dict(warriors=10), move=["plague"])
    obs = press(tw, "MOVE")
    assert shown(obs, "picture") == ["PLAGUE", "WARRIOR"] and "08" in shown(obs, "display")


def test_multi_player_keeps_at_least_one_warrior():
    tw = tower(1, 2, inventory=dict(warriors=1), move=["plague"])
    press(tw, "MOVE")
    assert player(tw).warriors == 1


def test_dragon_with_a_sword_wins_the_dragons_hoard_and_loses_the_sword():
    tw = tower(1, 1, inventory=dict(warriors=10, gold=20, sword=True), move=["dragon"])
    tw.game.dragon_warriors, tw.game.dragon_gold = 5, 12
    obs = press(tw, "MOVE")
    assert shown(obs, "picture")[:2] == ["DRAGON", "SWORD"]
    p = player(tw)
    assert (p.warriors, p.gold, p.sword) == (15, 32, False)


def test_citadel_doubles_5_to_24_warriors_after_four_frontiers_with_three_keys():
    tw = tower(1, 1, inventory=dict(warriors=12, keys=3, frontiers=4))
    obs = press(tw, "SANCTUARY/CITADEL")
    assert "24" in shown(obs, "display") and player(tw).warriors == 24


def test_citadel_does_not_double_25_warriors():
    tw = tower(1, 1, inventory=dict(warriors=25, keys=3, frontiers=4))
    press(tw, "SANCTUARY/CITADEL")
    assert player(tw).warriors == 25


def test_citadel_doubles_again_only_after_another_building_in_the_home_kingdom():
    tw = tower(1, 1, inventory=dict(warriors=6, keys=3, frontiers=4), tomb=["deserted"])
    press(tw, "SANCTUARY/CITADEL", "NO/END", "SANCTUARY/CITADEL", "NO/END")
    assert player(tw).warriors == 12
    press(tw, "TOMB/RUIN", "NO/END", "SANCTUARY/CITADEL")
    assert player(tw).warriors == 24


def test_sanctuary_gives_warriors_food_and_gold_to_the_needy_in_reel_order():
    """Rulebook: 4 or fewer warriors, 7 or fewer bags, 5 or fewer rations get a bonus; the
    totals show on WARRIOR, FOOD (corpus l2_p1_s26 301.3: WARRIOR 08, FOOD 13), then GOLD."""
    tw = tower(1, 1, inventory=dict(warriors=4, gold=7, food=6), sanctuary_warriors=[6],
               sanctuary_gold=[15], sanctuary_food=[12])
    obs = press(tw, "SANCTUARY/CITADEL")
    assert shown(obs, "picture") == ["WARRIOR", "FOOD", "GOLD"]
    p = player(tw)
    assert (p.warriors, p.gold, p.food) == (10, 22, 17)


def test_sanctuary_gives_nothing_to_a_player_in_no_need():
    obs = press(tower(1, 1), "SANCTUARY/CITADEL")
    assert shown(obs, "picture") == [] and shown(obs, "display") == ["-1"]


def test_frontier_without_the_kingdoms_key_shows_key_missing():
    tw = tower(1, 1, inventory=dict(frontiers=1, keys=0))
    obs = press(tw, "FRONTIER")
    assert shown(obs, "picture") == ["KEY MISSING"] and "sad" in shown(obs, "sound")
    assert player(tw).frontiers == 1


def test_battle_treasure_key_is_brass_in_the_first_foreign_kingdom():
    tw = tower(1, 1, inventory=dict(frontiers=1, keys=0), move=["battle"], brigands=[1],
               skirmish=[True], battle_gold=[5], treasure=["key"])
    obs = press(tw, "MOVE")
    assert "BRASS KEY" in shown(obs, "picture") and player(tw).keys == 1


def test_dark_tower_without_three_keys_is_refused():
    tw = tower(1, 1, inventory=dict(frontiers=4, keys=2))
    assert shown(press(tw, "DARK TOWER"), "picture") == ["KEY MISSING"]


def test_bazaar_closes_when_buying_more_than_the_gold_allows():
    tw = tower(1, 1, inventory=dict(gold=10), warrior_price=[7])
    press(tw, "BAZAAR", "YES/BUY")
    obs = press(tw, "YES/BUY")
    assert shown(obs, "picture") == ["BAZAAR CLOSED"] and player(tw).gold == 10


def test_bazaar_offers_items_in_rulebook_order_when_none_is_owned():
    tw = tower(1, 1, warrior_price=[6], beast_price=[20], scout_price=[18], healer_price=[19])
    obs = press(tw, "BAZAAR", "NO/END", "NO/END", "NO/END", "NO/END", "NO/END")
    assert shown(obs, "picture") == ["WARRIOR", "FOOD", "BEAST", "SCOUT", "HEALER", "WARRIOR"]


def test_buying_a_beast_shows_the_gold_left_at_once():
    tw = tower(1, 1, warrior_price=[6], beast_price=[20], scout_price=[18], healer_price=[19])
    press(tw, "BAZAAR", "NO/END", "NO/END")
    obs = press(tw, "YES/BUY")
    assert shown(obs, "picture") == ["GOLD"] and "10" in shown(obs, "display")
    assert player(tw).beast


def test_haggling_over_food_closes_the_bazaar():
    """Rulebook: 'you cannot haggle' over food; the corpus shows HAGGLE at the food offer
    closing the bazaar every time (9 of 9, e.g. l1_p3_s09 86.0, l3_p1_s03 58.2)."""
    tw = tower(1, 1, warrior_price=[6])
    press(tw, "BAZAAR", "NO/END")
    obs = press(tw, "HAGGLE")
    assert shown(obs, "picture") == ["BAZAAR CLOSED"] and shown(obs, "display") == ["-1"]
    assert player(tw).gold == 30


def test_warriors_never_exceed_99():
    tw = tower(1, 1, inventory=dict(warriors=98, gold=99), warrior_price=[4])
    press(tw, "BAZAAR", "YES/BUY", "YES/BUY", "YES/BUY", "NO/END")
    assert player(tw).warriors == 99 and player(tw).gold == 95


def test_clear_in_the_bazaar_buys_nothing_and_passes_the_turn():
    tw = tower(1, 2, warrior_price=[6])
    press(tw, "BAZAAR")
    obs = press(tw, "CLEAR")
    assert shown(obs, "sound") == ["siren"] and shown(obs, "display") == [" 2"]


def test_clear_after_an_illegal_move_restores_the_inventory():
    tw = tower(1, 2, inventory=dict(warriors=10), move=["plague"])
    press(tw, "MOVE")
    assert player(tw).warriors == 8
    obs = press(tw, "CLEAR")
    assert "siren" in shown(obs, "sound") and player(tw).warriors == 10


def test_inventory_shows_warrior_food_specials_gold_keys_sword_in_reel_order():
    """Corpus l2_p1_s02 223.1: WARRIOR 07, FOOD 12, SCOUT, GOLD 11, BRASS KEY; l4_p2_s32 48.6:
    ... BEAST, SCOUT, HEALER, GOLD 30, GOLD KEY, SILVER KEY, BRASS KEY, SWORD."""
    tw = tower(1, 1, inventory=dict(warriors=10, gold=30, food=25, keys=2, scout=True,
                                    sword=True))
    obs = press(tw, "INVENTORY")
    assert shown(obs, "picture") == ["WARRIOR", "FOOD", "SCOUT", "GOLD", "SILVER KEY",
                                     "BRASS KEY", "SWORD"]
    assert shown(obs, "display")[:3] == ["10", "24", "30"]


def test_repeat_at_the_end_of_turn_shows_the_numbers_again_not_the_cue_pictures():
    """Corpus l2_p1_s02 144.7: after a plague, REPEAT at `-1` shows WARRIOR 07 alone."""
    tw = tower(1, 1, inventory=dict(warriors=10), move=["plague"])
    press(tw, "MOVE")
    obs = press(tw, "REPEAT")
    assert shown(obs, "picture") == ["WARRIOR"] and "08" in shown(obs, "display")
    assert shown(obs, "display")[-1] == "-1"


def test_repeat_before_the_turns_first_action_shows_nothing():
    """Corpus l1_p4_s21 49.03, l4_p1_s04 81.8: REPEAT at ` N` only clicks."""
    tw = tower(1, 1, inventory=dict(warriors=10), move=["plague", "safe"])
    press(tw, "MOVE", "NO/END")
    obs = press(tw, "REPEAT")
    assert shown(obs, "picture") == []
    assert shown(obs, "display")[-1] == " 1"


def test_wizard_curse_takes_a_quarter_and_the_victim_sees_cursed_next_turn():
    tw = tower(1, 2, inventory=dict(warriors=10, gold=10), move=["battle", "safe"],
               brigands=[1], skirmish=[True], battle_gold=[0], treasure=["wizard"])
    victim = player(tw, 2)
    victim.warriors, victim.gold = 20, 40
    obs = press(tw, "MOVE")
    assert "WIZARD" in shown(obs, "picture") and "C2" in shown(obs, "display")
    press(tw, "YES/BUY")
    assert (player(tw).warriors, victim.warriors, victim.gold) == (15, 15, 30)
    press(tw, "NO/END")
    obs = press(tw, "MOVE")
    assert shown(obs, "picture")[0] == "CURSED"


def test_repeat_at_the_end_signal_shows_the_treasure_but_not_the_battle():
    tw = tower(1, 1, inventory=dict(warriors=9, gold=20), move=["battle"], brigands=[1],
               skirmish=[True], battle_gold=[12], treasure=["none"])
    press(tw, "MOVE")
    obs = press(tw, "REPEAT")
    assert shown(obs, "picture") == ["GOLD"]
    assert shown(obs, "display") == ["32", "-1"]
