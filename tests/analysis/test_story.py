"""The session story (analysis.story): turn by turn, read from events alone, checked against
what the corpus README says of each session and against the clean-room game's own events."""
from __future__ import annotations

import re

import pytest

from analysis.story import session_story, story_lines
from captures.events import read_events
from tests.analysis.capload import CAPTURES

CORPUS = CAPTURES.parent / "corpus"


def _story(name: str):
    return session_story(read_events(str(CORPUS / name / "events.jsonl")))


def _readme_battles() -> dict[str, int]:
    """Return the battles the corpus README lists per session (its "notable" column)."""
    text = (CORPUS / "README.md").read_text()
    out = {}
    for m in re.finditer(r"^\| `(l\d_p\d_s\d+)` \|.*\| ([^|]*) \|$", text, re.M):
        found = re.search(r"(\d+) battles?", m.group(2))
        out[m.group(1)] = int(found.group(1)) if found else 0
    return out


def test_the_story_begins_with_the_tower_test_the_level_and_the_players():
    entries = _story("l1_p2_s05")
    assert [(e.player, e.action) for e in entries[:3]] == [
        (None, "tower test"), (None, "level 1"), (None, "2 players")]
    assert entries[1].t == pytest.approx(13.483, abs=0.01)


def test_a_turn_names_its_player_its_key_and_the_pictures_with_their_numbers():
    turn = _story("l1_p2_s05")[3]
    assert (turn.player, turn.action) == (1, "INVENTORY")
    # the inventory's pictures in reel order: WARRIOR (card 6 top), FOOD, GOLD with the bags
    assert turn.what() == "WARRIOR 10, FOOD 24, GOLD 30"


def test_a_battle_is_told_round_by_round_with_how_it_ended():
    turn = _story("l1_p2_s05")[4]
    assert (turn.player, turn.action) == (2, "TOMB/RUIN")
    (battle,) = turn.battles
    assert battle.brigands == "10" and battle.outcome == "won"
    assert [(w, b) for _, w, b in battle.rounds] == [("10", "05"), ("10", "02"),
                                                     ("10", "01"), ("10", "00")]
    assert turn.what().endswith("10 v 00 (won), GOLD 46")


def test_a_no_end_during_a_battle_is_a_retreat():
    battles = [b for e in _story("l1_p3_s35") for b in e.battles]
    assert [b.outcome for b in battles][-1] == "retreated"


def test_later_keys_of_a_turn_are_told_with_what_they_showed():
    bazaar = next(e for e in _story("l1_p2_s05") if e.action == "BAZAAR")
    assert bazaar.player == 1
    assert bazaar.what().startswith("WARRIOR 07; HAGGLE: WARRIOR 06; NO/END: FOOD 01")


@pytest.mark.parametrize("name", sorted(_readme_battles()))
def test_the_story_finds_as_many_battles_as_the_corpus_readme_lists(name):
    assert sum(len(e.battles) for e in _story(name)) == _readme_battles()[name]


def test_the_story_of_the_clean_room_game_reads_its_events_the_same_way():
    from captures.script import read_script
    from captures.tower import run_script
    from cleanroom.tower import CleanroomTower

    events = run_script(CleanroomTower(seed=1),
                        read_script(str(CAPTURES / "level_select" / "script.txt")))
    assert [e.action for e in session_story(events)] == ["tower test", "level 1", "2 players"]


def test_no_press_no_story():
    assert story_lines([{"t": 0.0, "type": "display", "text": "--"}]) == []
