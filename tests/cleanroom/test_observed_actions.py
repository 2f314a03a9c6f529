"""MOVE, battles, tombs, treasures, curses, REPEAT and CLEAR as the genuine tower shows them in
the corpus (tests/data/corpus; the session and time of an example are named in each test)."""
from __future__ import annotations

import pytest

from cleanroom.game import dragon_takes, quarter_by_digits, skirmish_chance

from .util import player, press, shown, tower


def test_a_safe_move_is_one_beep_and_the_end_of_turn_signal():
    """l1_p1_s01 37.05: click, beep 13 ms later, flashing -1."""
    tw = tower(1, 1, move=["safe"])
    obs = press(tw, "MOVE")
    assert shown(obs, "sound") == ["beep"] and shown(obs, "picture") == []
    assert shown(obs, "display")[-1] == "-1"


def test_lost_plays_the_sad_cue_with_its_picture():
    """l1_p1_s01 270.15: LOST with the falling sad cue, no number."""
    tw = tower(1, 1, move=["lost"])
    obs = press(tw, "MOVE")
    assert shown(obs, "picture") == ["LOST"] and "sad" in shown(obs, "sound")


def test_lost_with_a_scout_shows_lost_and_scout_and_gives_another_turn():
    """l4_p1_s04 281.12: LOST and SCOUT with beeps, then ` 1` flashes again."""
    tw = tower(1, 1, inventory=dict(scout=True), move=["lost"])
    obs = press(tw, "MOVE")
    assert shown(obs, "picture") == ["LOST", "SCOUT"] and "sad" not in shown(obs, "sound")
    assert shown(obs, "display")[-1] == " 1"


def test_plague_plays_the_death_march_and_shows_the_warriors_on_card_6():
    """l1_p1_s01 66.95: PLAGUE with the Death March, then WARRIOR 08."""
    tw = tower(1, 1, inventory=dict(warriors=10), move=["plague"])
    obs = press(tw, "MOVE")
    assert shown(obs, "picture") == ["PLAGUE", "WARRIOR"] and "08" in shown(obs, "display")
    assert "death_march" in shown(obs, "sound")


def test_plague_with_a_healer_beeps_and_adds_two_warriors():
    """l4_p1_s04 99.05: PLAGUE and HEALER with beeps, WARRIOR 12."""
    tw = tower(1, 1, inventory=dict(warriors=10, healer=True), move=["plague"])
    obs = press(tw, "MOVE")
    assert shown(obs, "picture") == ["PLAGUE", "HEALER", "WARRIOR"]
    assert "12" in shown(obs, "display") and "death_march" not in shown(obs, "sound")


@pytest.mark.parametrize("warriors, taken", [(1, 0), (2, 0), (3, 0), (5, 1), (6, 1), (8, 2),
                                             (10, 2), (11, 2), (12, 2), (14, 3)])
def test_the_dragon_takes_a_quarter_of_the_warriors_by_digits_none_of_three_or_fewer(
        warriors, taken):
    """l2_p2_s06 217: 12 warriors become 10 (a quarter of 10 is 2, of 2 is 0); l1_p1_s133
    161.5: 2 stay 2; l3_p2_s07 298.6: 3 stay 3."""
    assert dragon_takes(warriors, 0)[0] == taken


def test_the_dragon_takes_a_quarter_of_the_gold_rounded_down():
    """l1_p1_s01 168.50: 30 bags become 23 (corpus 27 of 27)."""
    assert dragon_takes(0, 30)[1] == 7


def test_the_dragon_takes_the_quarter_of_the_gold_digit_by_digit():
    """l3_p1_s27 135.5: 36 bags become 28, not 27: a quarter of 30 is 7, of 6 is 1."""
    assert dragon_takes(0, 36)[1] == 8


def test_a_quarter_by_digits_is_one_less_only_with_odd_tens_and_2_or_3_units_over_4():
    for n in range(100):
        tens, units = divmod(n, 10)
        less = tens % 2 == 1 and units % 4 in (2, 3)
        assert quarter_by_digits(n) == n // 4 - less, n


def test_the_sword_slays_the_dragon_and_the_hoard_is_won():
    """l4_p3_s38 177.77: DRAGON, then SWORD lit during the glide, then WARRIOR and GOLD."""
    tw = tower(1, 1, inventory=dict(warriors=10, gold=30, sword=True), move=["dragon"])
    obs = press(tw, "MOVE")
    assert shown(obs, "picture") == ["DRAGON", "SWORD", "WARRIOR", "GOLD"]
    assert "dragon_slain" in shown(obs, "sound")
    assert (player(tw).warriors, player(tw).gold, player(tw).sword) == (12, 36, False)


def test_the_dragons_hoard_holds_2_warriors_and_6_bags_before_any_attack():
    """l3_p1_s03 149.32: the first dragon of the game is slain; 10 warriors become 12 and 60
    bags 66 (l4_p3_s38 177.77 and l4_p4_s39 166.32 the same, from 10 and 30)."""
    tw = tower(1, 1, inventory=dict(warriors=10, gold=60, sword=True), move=["dragon"])
    obs = press(tw, "MOVE")
    assert shown(obs, "display")[-3:-1] == ["12", "66"]


def test_the_dragons_hoard_is_its_start_plus_what_its_attacks_took():
    """l3_p1_s37: two attacks take 2 + 1 warriors and 7 + 7 bags (42.50, 118.86); the sword
    wins them with the start, 9 warriors become 14 and 24 bags 44 (238.84)."""
    tw = tower(1, 1, inventory=dict(warriors=10, gold=30), move=["dragon", "dragon", "dragon"])
    press(tw, "MOVE", "NO/END")
    p = player(tw)
    assert (p.warriors, p.gold) == (8, 23)
    p.warriors, p.gold = 5, 30
    press(tw, "MOVE", "NO/END")
    assert (p.warriors, p.gold) == (4, 23)
    p.warriors, p.gold, p.sword = 9, 24, True
    press(tw, "MOVE")
    assert (p.warriors, p.gold, p.sword) == (14, 44, False)


def test_a_won_hoard_starts_again_at_2_warriors_and_6_bags():
    """l4_p4_s39: player 2 slays the dragon at 166.32 (20 -> 22, 30 -> 36), player 4 again at
    267.02 with no attack between: 10 -> 12, 30 -> 36."""
    tw = tower(1, 2, inventory=dict(warriors=20, gold=30, sword=True),
               move=["dragon", "dragon"])
    press(tw, "MOVE", "NO/END")
    assert (player(tw).warriors, player(tw).gold) == (22, 36)
    p2 = player(tw, 2)
    p2.sword = True
    press(tw, "MOVE")
    assert (p2.warriors, p2.gold) == (12, 36)


def test_battle_brigands_are_the_warriors_give_or_take_two():
    tw = tower(1, 1, inventory=dict(warriors=10), move=["battle"], brigands=[12],
               skirmish=[True] * 8, battle_gold=[13], treasure=["none"])
    seen = []
    real = tw.game.chooser.choose

    def spy(name, options, weights, t):
        if name == "brigands":
            seen.append([o for o, w in zip(options, weights) if w > 0])
        return real(name, options, weights, t)

    tw.game.chooser.choose = spy
    press(tw, "MOVE")
    assert seen == [[8, 9, 10, 11, 12]]


def test_each_skirmish_shows_warriors_then_brigands_then_its_cue():
    """l1_p1_s01 181.08: BRIGANDS 07; WARRIORS 06, BRIGANDS 03, won; ... BRIGANDS 00; GOLD."""
    tw = tower(1, 1, inventory=dict(warriors=6, gold=30), move=["battle"], brigands=[7],
               skirmish=[True, True, True], battle_gold=[6], treasure=["none"])
    obs = press(tw, "MOVE")
    assert [t for t in shown(obs, "display") if t.isdigit()] == \
        ["07", "06", "03", "06", "01", "06", "00", "36"]
    assert shown(obs, "sound").count("skirmish_won") == 3
    assert shown(obs, "picture")[-1] == "GOLD"


def test_a_battle_is_lost_when_a_lost_skirmish_would_leave_one_warrior():
    """l1_p3_s09 127.82: ... WARRIORS 02, BRIGANDS 11, lost; WARRIORS lit with the Death
    March and no number; the player keeps 1 warrior (several players)."""
    tw = tower(1, 2, inventory=dict(warriors=3), move=["battle"], brigands=[5],
               skirmish=[False, False])
    obs = press(tw, "MOVE")
    assert [t for t in shown(obs, "display") if t.isdigit()] == ["05", "02", "05"]
    assert shown(obs, "picture")[-1] == "WARRIORS" and "death_march" in shown(obs, "sound")
    assert player(tw).warriors == 1


def test_a_short_no_end_press_during_a_battle_does_not_retreat():
    """24 of 24 corpus battles with a brief NO/END went on to the end (l1_p3_s09 42.35)."""
    tw = tower(1, 1, inventory=dict(warriors=10), move=["battle"], brigands=[10],
               skirmish=[True] * 4, battle_gold=[13], treasure=["none"])
    tw.press("MOVE")
    tw.advance(0.2)
    tw.release("MOVE")
    tw.advance(4.5)                         # the first BRIGANDS picture is lit
    obs = press(tw, "NO/END")
    assert shown(obs, "display").count("00") == 1 and "GOLD" in shown(obs, "picture")


def test_skirmish_odds_go_by_steps_of_the_force_ratio():
    """params skirmish_win: the same chance from even forces up to twice the brigands."""
    assert skirmish_chance(10, 10) == skirmish_chance(19, 10) == pytest.approx(0.625)
    assert skirmish_chance(20, 10) == skirmish_chance(39, 10) == pytest.approx(0.89)
    assert skirmish_chance(9, 10) == skirmish_chance(5, 10) == pytest.approx(0.40)
    assert skirmish_chance(4, 10) == pytest.approx(0.10)


def test_skirmish_odds_never_reach_certainty():
    """A loss must stay possible for the resolver, however strong the warriors."""
    assert 0.99 < skirmish_chance(40, 1) < 1 and 0 < skirmish_chance(1, 40) < 0.2


def test_a_tomb_battle_follows_the_creaking_door():
    """l1_p1_s01 90.58: creak, battle horn, BRIGANDS."""
    tw = tower(1, 1, inventory=dict(warriors=10), tomb=["battle"], brigands=[9],
               skirmish=[True] * 4, battle_gold=[13], treasure=["none"])
    obs = press(tw, "TOMB/RUIN")
    sounds = shown(obs, "sound")
    assert sounds.index("creak_open") < sounds.index("battle_horn")


def test_a_deserted_tomb_creaks_shut_and_shows_nothing():
    """l2_p2_s33 113.08."""
    tw = tower(1, 1, tomb=["deserted"])
    obs = press(tw, "TOMB/RUIN")
    assert shown(obs, "picture") == [] and "creak_close" in shown(obs, "sound")


def test_the_curse_prompt_starts_at_the_next_player_and_skips_the_curser():
    """l4_p4_s24 211.60: player 3 is offered C4, then C1."""
    tw = tower(1, 4, move=["safe", "safe"], tomb=["treasure"], battle_gold=[13],
               treasure=["wizard"])
    press(tw, "MOVE", "NO/END", "MOVE", "NO/END")          # players 1 and 2
    obs = press(tw, "TOMB/RUIN", "NO/END", "NO/END", "NO/END")
    flashing = [t for t in shown(obs, "display") if t.startswith("C")]
    assert flashing[:4] == ["C4", "C1", "C2", "C4"]


def test_the_cursed_player_sees_cursed_with_its_cue_then_warriors_and_gold():
    """l1_p2_s05 368.53: CURSED with the lost-skirmish notes, WARRIOR 06, GOLD 36."""
    tw = tower(1, 2, move=["safe"])
    player(tw).cursed_by = 2
    obs = press(tw, "MOVE")
    assert shown(obs, "picture") == ["CURSED", "WARRIOR", "GOLD"]
    assert "cursed" in shown(obs, "sound")


def test_clear_before_the_turns_first_action_only_clicks():
    """l3_p1_s27 49.0: CLEAR at ` 1` with nothing done: the click, no siren, ` 1` again."""
    tw = tower(1, 1, move=["safe"])
    obs = press(tw, "CLEAR")
    assert shown(obs, "sound") == [] and shown(obs, "display")[-1] == " 1"
    assert [e for e in tw.events() if e.get("cue") == "click"][-1]["t"] > 0


def test_clear_after_the_action_sounds_the_siren_and_passes_the_turn():
    """l1_p1_s01 76.1: a plague, CLEAR at -1: siren, then ` 1` (the next turn)."""
    tw = tower(1, 2, move=["plague"])
    press(tw, "MOVE")
    obs = press(tw, "CLEAR")
    assert "siren" in shown(obs, "sound") and shown(obs, "display")[-1] == " 2"


def test_a_tomb_opened_with_16_warriors_or_more_creaks_with_a_longer_first_period():
    """l4_p3_s20 114.12, l4_p4_s16 84.68, l4_p4_s24 380.10 (20 to 24 warriors, each just
    doubled at the Citadel): the creak starts at 98.4 Hz (creak_open_slow_start), and again
    at the next tomb with as many warriors."""
    tw = tower(1, 1, inventory=dict(warriors=10, keys=3, frontiers=4),
               tomb=["deserted", "deserted"])
    press(tw, "SANCTUARY/CITADEL", "NO/END")
    assert player(tw).warriors == 20
    assert shown(press(tw, "TOMB/RUIN"), "sound")[0] == "creak_open_slow_start"
    press(tw, "NO/END")
    assert shown(press(tw, "TOMB/RUIN"), "sound")[0] == "creak_open_slow_start"


def test_a_tomb_opened_with_15_warriors_or_fewer_creaks_plainly_even_after_a_doubling():
    """l4_p1_s168 232.08: 6 warriors doubled to 12 at the Citadel, then a tomb: the plain
    creak at 106.5 Hz (creak_open)."""
    tw = tower(1, 1, inventory=dict(warriors=6, keys=3, frontiers=4), tomb=["deserted"])
    press(tw, "SANCTUARY/CITADEL", "NO/END")
    assert player(tw).warriors == 12
    assert shown(press(tw, "TOMB/RUIN"), "sound")[0] == "creak_open"


def test_a_tomb_right_after_the_low_food_warning_creaks_without_its_first_note():
    """l2_p1_s02 365.73, l4_p3_s20 400.50: the warning, then the creak from its 79.9 Hz note
    (creak_open_after_low_food)."""
    tw = tower(1, 1, inventory=dict(warriors=10, food=4), tomb=["deserted"])
    assert shown(press(tw, "TOMB/RUIN"), "sound")[:2] == ["low_food",
                                                         "creak_open_after_low_food"]
