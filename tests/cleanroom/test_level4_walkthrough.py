"""The rulebook's chapter 5, Game Level 4: the bazaar and haggling lesson, the riddle of the keys
and the final battle, each step as the rulebook describes it."""
from __future__ import annotations

from .util import player, press, shown, tower


def test_level4_presets_inventory_keys_and_16_brigands():
    tw = tower(4)
    p = player(tw)
    assert (p.warriors, p.gold, p.beast, p.scout, p.healer, p.sword, p.keys) == \
        (10, 30, True, True, True, True, 3)
    assert tw.game.tower_brigands == 16


def test_bazaar_first_shows_the_warrior_price():
    obs = press(tower(4, warrior_price=[7]), "BAZAAR")
    assert shown(obs, "sound")[0] == "bazaar"
    assert shown(obs, "picture") == ["WARRIOR"]
    assert shown(obs, "display")[:2] == ["07", "--"]


def test_bazaar_no_end_shows_food_at_one_bag():
    tw = tower(4, warrior_price=[7])
    press(tw, "BAZAAR")
    obs = press(tw, "NO/END")
    assert shown(obs, "picture") == ["FOOD"]
    assert shown(obs, "display")[0] == "01"


def test_bazaar_skips_beast_scout_healer_already_owned_and_returns_to_warriors():
    tw = tower(4, warrior_price=[7])
    press(tw, "BAZAAR", "NO/END")
    obs = press(tw, "NO/END")
    assert shown(obs, "picture") == ["WARRIOR"]
    assert shown(obs, "display")[0] == "07"


def test_repeat_shows_the_warrior_price_again():
    tw = tower(4, warrior_price=[7])
    press(tw, "BAZAAR")
    obs = press(tw, "REPEAT")
    assert shown(obs, "picture") == ["WARRIOR"] and shown(obs, "display")[0] == "07"


def test_buying_two_warriors_flashes_02():
    tw = tower(4, warrior_price=[7])
    press(tw, "BAZAAR")
    obs = press(tw, "YES/BUY", "YES/BUY")
    assert shown(obs, "display") == ["01", "02"]


def test_ending_the_purchase_shows_gold_left_then_the_end_of_turn_signal():
    tw = tower(4, warrior_price=[7])
    press(tw, "BAZAAR", "YES/BUY", "YES/BUY")
    obs = press(tw, "NO/END")
    assert shown(obs, "picture") == ["GOLD"]
    assert shown(obs, "display") == ["16", "-1"]
    assert (player(tw).warriors, player(tw).gold) == (12, 16)


def test_no_end_after_the_end_signal_plays_the_end_sound_and_flashes_the_next_player():
    tw = tower(4, warrior_price=[7])
    press(tw, "BAZAAR", "YES/BUY", "NO/END")
    obs = press(tw, "NO/END")
    assert shown(obs, "sound") == ["end_turn"]
    assert shown(obs, "display") == [" 1"]


def test_successful_haggle_drops_the_price_by_one_bag():
    tw = tower(4, warrior_price=[5], haggle=[True])
    press(tw, "BAZAAR")
    obs = press(tw, "HAGGLE")
    assert shown(obs, "picture") == ["WARRIOR"] and shown(obs, "display")[0] == "04"


def test_angered_merchant_shows_bazaar_closed_and_ends_the_turn():
    tw = tower(4, warrior_price=[5], haggle=[True, False])
    press(tw, "BAZAAR", "HAGGLE")
    obs = press(tw, "HAGGLE")
    assert shown(obs, "picture") == ["BAZAAR CLOSED"]
    assert shown(obs, "sound") == ["sad"]
    assert shown(obs, "display") == ["-1"]
    assert player(tw).gold == 30


def test_dark_tower_plays_its_tune_then_shows_the_gold_key_and_asks_for_key_1():
    obs = press(tower(4, riddle_key1=["GOLD KEY"] * 3, riddle_key2=["SILVER KEY"] * 3), "DARK TOWER")
    assert shown(obs, "sound")[0] == "dark_tower"
    assert shown(obs, "picture") == ["GOLD KEY"]
    assert shown(obs, "display") == ["1 "]


def test_no_end_in_the_riddle_shows_the_next_key():
    tw = tower(4, riddle_key1=["GOLD KEY"] * 3, riddle_key2=["SILVER KEY"] * 3)
    press(tw, "DARK TOWER")
    assert shown(press(tw, "NO/END"), "picture") == ["SILVER KEY"]
    assert shown(press(tw, "NO/END"), "picture") == ["BRASS KEY"]
    assert shown(press(tw, "NO/END"), "picture") == ["GOLD KEY"]


def test_silver_key_first_is_a_wrong_guess_that_ends_the_turn():
    tw = tower(4, riddle_key1=["GOLD KEY"] * 3, riddle_key2=["SILVER KEY"] * 3)
    press(tw, "DARK TOWER", "NO/END")
    obs = press(tw, "YES/BUY")
    assert shown(obs, "sound") == ["sad"]
    assert shown(obs, "display") == ["-1"]


def test_brass_key_first_is_also_wrong():
    tw = tower(4, riddle_key1=["GOLD KEY"] * 3, riddle_key2=["SILVER KEY"] * 3)
    press(tw, "DARK TOWER", "NO/END", "NO/END")
    assert shown(press(tw, "YES/BUY"), "display") == ["-1"]


def test_gold_key_first_is_right_and_the_silver_key_is_offered_as_key_2():
    tw = tower(4, riddle_key1=["GOLD KEY"] * 3, riddle_key2=["SILVER KEY"] * 3)
    press(tw, "DARK TOWER")
    obs = press(tw, "YES/BUY")
    assert shown(obs, "picture") == ["SILVER KEY"]
    assert shown(obs, "display") == ["2 "]


def test_silver_as_key_2_sounds_the_battle_horn_and_shows_16_brigands():
    tw = tower(4, skirmish=[True] * 5, riddle_key1=["GOLD KEY"] * 3, riddle_key2=["SILVER KEY"] * 3)
    press(tw, "DARK TOWER", "YES/BUY")
    obs = press(tw, "YES/BUY")
    assert shown(obs, "sound")[0] == "battle_horn"
    assert ("picture", "BRIGANDS") in obs and shown(obs, "display")[0] == "16"


def test_winning_the_final_battle_shows_victory_and_the_score():
    tw = tower(4, skirmish=[True] * 5, riddle_key1=["GOLD KEY"] * 3, riddle_key2=["SILVER KEY"] * 3)
    obs = press(tw, "DARK TOWER", "YES/BUY", "YES/BUY")
    # a prompt may flash on once more between the press and the key being taken
    texts = [t for i, t in enumerate(shown(obs, "display"))
             if i == 0 or t != shown(obs, "display")[i - 1]]
    assert texts == ["1 ", "2 ", "16", "10", "08", "10", "04", "10", "02",
                     "10", "01", "10", "00", "99"]
    assert shown(obs, "picture")[-1] == "VICTORY"
    assert tw.game.over
