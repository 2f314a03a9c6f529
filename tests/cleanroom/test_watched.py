"""A watched decision value (cleanroom.watched) behaves as the value and notes the game's first
look at it; the resolver's shortcuts that rest on it keep its results
(tests/cleanroom/test_resolve_fast.py compares the fast path, which watches, with the reference
path, which does not, on six recordings)."""
from __future__ import annotations

import pickle
from pathlib import Path

from captures.tower import run_script
from cleanroom import conform
from cleanroom.conform import ForcedChooser, load_reference
from cleanroom.decisions import Calls
from cleanroom.tower import CleanroomTower
from cleanroom.watched import Watched, plain

DATA = Path(__file__).resolve().parents[1] / "data"


def _watched(value):
    looks = []
    return Watched(value, lambda: looks.append(1)), looks


def test_a_watched_number_answers_as_the_number_does():
    w, _ = _watched(7)
    assert (w + 1, 1 + w, w * 2, w // 2, 20 - w, w % 4, -w, abs(w)) == (8, 8, 14, 3, 13, 3, -7, 7)
    assert (w == 7, w != 7, w < 8, 8 > w, hash(w) == hash(7)) == (True, False, True, True, True)
    assert f"{w:02d}" == "07" and str(w) == "7" and int(w) == 7 and [0] * w == [0] * 7
    assert list(range(w)) == list(range(7)) and "abcdefghij"[w] == "h"


def test_a_watched_text_and_tuple_answer_as_they_do():
    name, _ = _watched("safe")
    assert {"safe": 1}[name] == 1 and name == "safe" and name.upper() == "SAFE"
    keys, _ = _watched(("GOLD KEY", "BRASS KEY"))
    assert list(keys) == ["GOLD KEY", "BRASS KEY"] and keys[1] == "BRASS KEY"
    assert "GOLD KEY" in keys and len(keys) == 2 and ["a", "b"].index(_watched("b")[0]) == 1


def test_the_first_look_is_noted_once():
    w, looks = _watched(3)
    assert looks == []
    assert w + 1 == 4 and w > 2 and f"{w}" == "3"
    assert looks == [1]


def test_keeping_a_watched_value_is_no_look():
    w, looks = _watched(5)
    kept = {"price": w}
    also = [w, w]
    assert kept["price"] is w and also[1] is w
    assert looks == []


def test_a_watched_value_pickles_as_its_value_and_that_is_a_look():
    w, looks = _watched(12)
    assert pickle.loads(pickle.dumps(w)) == 12 and type(pickle.loads(pickle.dumps(w))) is int
    assert looks == [1] and plain(w) == 12 and plain(12) == 12


def _replay(name: str, until: float):
    script, _ = load_reference(str(DATA / name))
    tower, chooser = conform._Start(1.0)([])
    run_script(tower, script, until=until)
    tower.close()
    return chooser


def test_a_price_is_looked_at_when_the_bazaar_shows_it_not_as_it_is_drawn():
    # the bazaar draws the warriors' price as it opens and shows it after its picture
    chooser = _replay("captures/level4_bazaar", 60.0)
    prices = [(d.t, u) for d, u in zip(chooser.calls, chooser.used) if d.name == "warrior_price"]
    assert prices and all(u is not None and u > t + 2.0 for t, u in prices)


def test_a_haggle_is_looked_at_as_it_is_drawn():
    chooser = _replay("captures/level4_bazaar", 70.0)
    haggles = [(d.t, u) for d, u in zip(chooser.calls, chooser.used) if d.name == "haggle"]
    assert haggles and all(u == t for t, u in haggles)


def test_a_chooser_notes_every_look_a_second_apart_and_the_last_before_a_time():
    now = [0.0]
    chooser = ForcedChooser([])
    chooser.clock = lambda: now[0]
    order = chooser.choose("riddle", [("GOLD KEY", "BRASS KEY", "SILVER KEY")], None, 0.0)
    for now[0] in (5.0, 5.4, 6.2, 40.0):        # a visit to the Dark Tower, then another
        assert order[1] == "BRASS KEY"
    assert chooser.used == [5.0] and chooser.looks == [[5.0, 6.2, 40.0]]
    calls = Calls(chooser.calls, chooser.used, chooser.looks)
    assert (calls.last_look(0, 4.0), calls.last_look(0, 30.0), calls.last_look(0, 99.0)) == \
        (None, 6.2, 40.0)


def test_a_chooser_without_a_clock_hands_out_plain_values_looked_at_as_taken():
    script, _ = load_reference(str(DATA / "captures" / "level4_bazaar"))
    chooser = ForcedChooser([])
    run_script(CleanroomTower(chooser=chooser), script, until=60.0)
    assert chooser.used == [d.t for d in chooser.calls]


def test_the_resolver_gives_the_same_results_with_and_without_watching():
    # the shortcuts (a decision not looked at by the first difference is not tried option by
    # option) on a recording with a bazaar: the fast path with and without them
    script, events = load_reference(str(DATA / "captures" / "level4_bazaar"))
    watched = conform._resolve(script, events, fast=True, watch=True)
    unwatched = conform._resolve(script, events, fast=True, watch=False)
    assert watched.describe() == unwatched.describe()
    assert watched.decisions == unwatched.decisions
    assert (watched.rule_items, watched.random_items, watched.decided_items) == \
        (unwatched.rule_items, unwatched.random_items, unwatched.decided_items)
