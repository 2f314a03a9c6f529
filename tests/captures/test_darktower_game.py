"""Reading a Dark Tower game out of events (captures.darktower_game): pictures by lamp and
reel card, numbers, prompts, presses and cues."""
from __future__ import annotations

from pathlib import Path

import pytest

from captures.darktower_facts import CARD_IMAGES
from captures.darktower_game import (ACTIONS, BAZAAR_ITEMS, BUTTON_SHORT, BUTTONS, CARD_SETTLE_S,
                                     CUE_NOTES, PICTURES, PLACES, REEL_CARDS, GameEvents,
                                     LampChange, Prompt, lamp_changes, picture, read_prompt,
                                     settled_card)
from captures.events import read_events

CORPUS = Path(__file__).resolve().parent.parent / "data" / "corpus"


def lamp(t, name, on=1):
    return {"t": t, "type": "lamp", "lamp": name, "on": on}


def reel(t, card):
    return {"t": t, "type": "reel", "card_pos": card}


def test_every_picture_has_one_place_on_the_reel_and_the_blank_card_none():
    assert len(PICTURES) == 21 and len(PLACES) == 21
    assert all(PICTURES[PLACES[name]] == name for name in PLACES)
    assert picture(3, "upper") == "DRAGON" and picture(7, "middle") is None
    assert picture(None, "lower") is None
    assert REEL_CARDS[2] == tuple(CARD_IMAGES[lamp][2] for lamp in ("upper", "middle", "lower"))


def test_the_key_vocabularies_name_real_keys():
    assert set(ACTIONS) <= set(BUTTONS) and set(BUTTON_SHORT) == set(BUTTONS)
    assert set(BAZAAR_ITEMS) <= set(PLACES)


def test_a_card_reported_just_after_the_lamp_is_the_picture_it_lights():
    events = [reel(0.0, 7), lamp(1.0, "upper"), reel(1.015, 6)]
    assert settled_card(events, 1, 7) == 6
    assert picture(settled_card(events, 1, 7), "upper") == "WARRIOR"


def test_a_card_reported_after_the_settle_window_is_not():
    events = [reel(0.0, 3), lamp(1.0, "upper"), reel(1.0 + CARD_SETTLE_S + 0.01, 6)]
    assert settled_card(events, 1, 3) == 3


def test_lamp_changes_name_each_lamp_event_with_its_card_in_time_order():
    events = [lamp(2.0, "upper", 0), reel(0.0, 3), lamp(1.0, "upper"), lamp(3.0, "lower")]
    assert list(lamp_changes(events)) == [
        LampChange(1.0, "upper", True, 3, "DRAGON"), LampChange(2.0, "upper", False, 3, "DRAGON"),
        LampChange(3.0, "lower", True, 3, "PEGASUS")]


def test_a_lamp_with_the_reel_unknown_names_no_picture():
    assert list(lamp_changes([lamp(1.0, "middle")])) == [
        LampChange(1.0, "middle", True, None, None)]


@pytest.mark.parametrize("text,prompt", [
    ("L3", Prompt("level", 3)), ("P2", Prompt("players", 2)), (" 4", Prompt("turn", 4)),
    ("-1", Prompt("turn end", 1)), ("C2", Prompt("curse", 2)), ("1 ", Prompt("riddle", 1)),
    ("2 ", Prompt("riddle", 2)), ("--", Prompt("offer")), ("05", Prompt("number")),
    ("  ", None), (" 5", None), ("L ", None), ("88 ", None), ("0 ", None),
])
def test_a_prompt_is_read_from_its_two_characters(text, prompt):
    assert read_prompt(text) == prompt


def test_a_pictures_number_is_the_display_a_tenth_of_a_second_after_its_lamp():
    game = GameEvents([reel(0.0, 6), lamp(1.0, "upper"), {"t": 1.05, "type": "display",
                                                          "text": "10"},
                       lamp(3.0, "upper", 0), {"t": 3.0, "type": "display", "text": "  "},
                       lamp(4.0, "middle"),
                       {"t": 4.2, "type": "display", "text": "24"}])
    assert [(p.t, p.name, p.number, p.lamp) for p in game.pictures] == [
        (1.0, "WARRIOR", 10, "upper"), (4.0, "FOOD", None, "middle")]
    assert [p.name for p in game.pictures_in(0.0, 4.0)] == ["WARRIOR"]


def test_a_press_answers_the_last_text_shown_and_follows_whose_turn_it_is():
    game = GameEvents([{"t": 1.0, "type": "display", "text": " 2"},
                       {"t": 1.3, "type": "display", "text": "  "},
                       {"t": 1.5, "type": "button", "button": "MOVE", "action": "press"},
                       {"t": 1.7, "type": "button", "button": "MOVE", "action": "release"},
                       {"t": 3.0, "type": "display", "text": "-2"},
                       {"t": 3.5, "type": "button", "button": "NO/END", "action": "press"}])
    assert [(p.button, p.prompt, p.player) for p in game.presses] == [
        ("MOVE", " 2", 2), ("NO/END", "-2", 2)]


def test_a_cue_is_found_by_its_first_two_notes_within_one_percent():
    horn = CUE_NOTES["battle horn"]
    tones = [{"t": 5.0, "type": "tone", "freq_hz": None, "dur_s": 0.005},
             {"t": 6.0, "type": "tone", "freq_hz": horn[0] * 1.009, "dur_s": 0.1},
             {"t": 6.1, "type": "tone", "freq_hz": horn[1] * 0.995, "dur_s": 0.1}]
    game = GameEvents(tones)
    assert game.cue_between(horn, 0.0, 10.0) == 6.0
    assert game.cue_between(horn, 6.05, 10.0) is None
    assert game.cue_between(CUE_NOTES["skirmish won"], 0.0, 10.0) is None


def test_every_lit_picture_of_a_corpus_session_reads_a_known_card():
    events = read_events(str(CORPUS / "l4_p2_s08" / "events.jsonl"))
    game = GameEvents(events)
    lit = sum(1 for e in events if e["type"] == "lamp" and e["on"])
    blank = sum(1 for ch in lamp_changes(events) if ch.on and ch.card == 7)
    assert len(game.pictures) == lit - blank > 20
    assert {p.name for p in game.pictures} >= {"BRIGANDS", "WARRIORS", "GOLD"}
