"""Where the resolver's search is stuck, it tries earlier decisions again (cleanroom/conform.py
``_retie``), the one the game looked at last before the difference first: a riddle's key order
is drawn as the game starts and read at each visit to the Dark Tower, so a wrong answer
twenty minutes in turns on it and not on the draws just before.  A stand-in replayer says
where each set of values first differs, and which decision each replay tried is noted."""
from __future__ import annotations

from types import SimpleNamespace

from cleanroom.conform import _retie
from cleanroom.decisions import Calls, Decision

DIFF = 1031.87
FRAME = SimpleNamespace(time_s=1 / 60)


def _decisions():
    riddle = Decision(16.2, "riddle", [("SILVER", "GOLD", "BRASS"), ("BRASS", "GOLD", "SILVER")],
                      ("SILVER", "GOLD", "BRASS"))
    brigands = Decision(996.1, "brigands", [7, 8], 7)
    treasure = Decision(1010.8, "tomb", ["treasure", "battle"], "treasure")
    decs = [riddle, brigands, treasure]
    # the riddle read at two visits, the others as they were drawn
    looks = [[913.3, 1031.83], [996.1], [1010.8]]
    return decs, Calls(decs, [x[0] for x in looks], looks)


def _stuck(right: dict[int, object]):
    """Return _retie's arguments for a search stuck at DIFF whose replays get further only
    with the values ``right`` (index -> value), and the list of the decisions tried, in the
    order they were first tried."""
    decs, calls = _decisions()
    forced = [d.value for d in decs]
    tried: list[int] = []

    def probe(choices, t0, stop=float("inf"), span=20.0):
        i = next(k for k, d in enumerate(decs) if abs(d.t - t0) < 1e-9)
        if i not in tried:
            tried.append(i)
        further = all(choices[k] == v for k, v in right.items())
        return (DIFF + 30.0 if further else DIFF), SimpleNamespace(conforms=False), calls

    ties = {i: (d.t + 1.0, d, "best") for i, d in enumerate(decs)}
    return (SimpleNamespace(tol=FRAME), probe, forced, (ties, {}), DIFF, 100, calls), tried


def test_the_decision_looked_at_last_before_the_difference_is_tried_first():
    args, tried = _stuck({0: ("BRASS", "GOLD", "SILVER")})
    got = _retie(*args)
    assert tried == [0]
    assert got[0] == 0 and got[1] == [("BRASS", "GOLD", "SILVER")]


def test_decisions_read_once_go_latest_drawn_first_after_it():
    args, tried = _stuck({1: 8})
    got = _retie(*args)
    assert tried == [0, 2, 1] and got[0] == 1 and got[1] == [8]


def test_a_decision_tried_already_is_tried_again_once_the_game_has_looked_at_it_since():
    args, tried = _stuck({0: "no order gets further"})
    ties, retried = args[3]
    retried.update({0: 950.0, 1: 1000.0, 2: 1020.0})   # tried at earlier differences
    assert _retie(*args) is None
    assert tried == [0]         # read again at 1031.83; the others not since their retry


def _bazaar():
    """A bazaar's beast and scout prices, drawn as it opens, left at their likeliest while
    the game had not shown them (ties), shown at 251.30 s and 254.65 s."""
    beast = Decision(230.512, "beast_price", [17, 21], 17)
    scout = Decision(230.513, "scout_price", [17, 19], 17)
    decs = [beast, scout]
    looks = [[251.25], [254.60]]
    calls = Calls(decs, [x[0] for x in looks], looks)
    right = {0: 21, 1: 19}

    def probe(choices, t0, stop=float("inf"), span=20.0):
        diff = 251.300 if choices[0] != right[0] else 254.650 if choices[1] != right[1] \
            else 280.0
        return diff, SimpleNamespace(conforms=False), calls

    ties = {i: (240.100, d, "tie") for i, d in enumerate(decs)}
    return decs, calls, probe, ties


def test_a_tie_after_a_decision_a_retry_changes_is_kept_for_the_next_retry():
    decs, calls, probe, ties = _bazaar()
    retried: dict = {}
    forced = [d.value for d in decs]
    got = _retie(SimpleNamespace(tol=FRAME), probe, forced, (ties, retried), 251.300, 100,
                 calls)
    assert got[0] == 0 and got[1] == [21] and got[3] is True    # the scout's price stays
    assert 1 in ties            # still to be tried once the game shows it
    forced[0] = 21
    got = _retie(SimpleNamespace(tol=FRAME), probe, forced, (ties, retried), 254.650, 100,
                 calls)
    assert got[0] == 1 and got[1] == [19]


def _resort_with(monkeypatch, remeasured, nested_found):
    """Run conform._resort with stand-ins for the durations measured again and the ties'
    nested searches; return what it returns and the order they were tried in."""
    from cleanroom import conform

    tried: list[str] = []

    def remeasure(*args):
        tried.append("durations")
        return remeasured

    def retie(*args, nested=True):
        tried.append("nested" if nested else "single")
        return nested_found

    monkeypatch.setattr(conform, "_remeasure", remeasure)
    monkeypatch.setattr(conform, "_retie", retie)
    monkeypatch.setattr(conform, "rescan", lambda *a: tried.append("rescan"))
    search = SimpleNamespace(final=False)
    got = conform._resort(search, None, ([], [], []), ({}, {}), DIFF, True, 100, 100)
    return got, tried


def test_the_durations_are_measured_again_before_the_ties_nested_searches(monkeypatch):
    found = (3, [1], [True], False, (DIFF + 1.0, None, None), 40)
    got, tried = _resort_with(monkeypatch, found, None)
    assert tried == ["durations"] and got == (found, 0)


def test_the_ties_nested_searches_follow_when_the_durations_get_no_further(monkeypatch):
    found = (1, [8], [True], False, (DIFF + 1.0, None, None), 900)
    got, tried = _resort_with(monkeypatch, None, found)
    assert tried == ["durations", "nested"] and got == (found, 0)
