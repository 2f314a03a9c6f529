"""The resolver's last resort (cleanroom/conform.py ``_widen``): where nothing else got
further, the decisions after each recent one are settled again by a search of their own.  A
retreat that costs 6 of 8 warriors, made up for by a sanctuary's 7 (the count shown after
the sanctuary is the one a loss of 4 with 5 shows), shows only at a gold total the warriors
cap, four minutes on: after the recent decisions, a decision whose other options all differ
only much later, through a later draw, is tried with every option, as far back as twice the
recent span, on a budget of its own.  A stand-in replayer and search say where each set of
values differs; which decisions the searches of their own were given is noted."""
from __future__ import annotations

from types import SimpleNamespace

from cleanroom import conform
from cleanroom.conform import WIDE_SHARE, WIDE_SPAN_S, _widen
from cleanroom.decisions import LATE_S
from cleanroom.decisions import Calls, Decision

DIFF = 944.58
SANCTUARY_SHOWN = (751.23, 753.72)     # where a smaller loss and a larger one first differ
FRAME = SimpleNamespace(time_s=1 / 60)
LOSS_ODDS = [0.801, 0.151, 0.051, 0.001, 0.001, 0.001, 0.001]


def _decisions(warriors=8):
    decs = [Decision(560.2, "tomb", ["deserted", "battle", "treasure"], "battle", True),
            Decision(698.94, "retreat_loss", list(range(1, warriors)), 4, True,
                     (LOSS_ODDS + [0.001] * warriors)[:warriors - 1]),
            Decision(751.25, "sanctuary_warriors", [4, 5, 6, 7, 8], 5, True),
            Decision(871.42, "tomb", ["deserted", "battle", "treasure"], "treasure", True),
            Decision(925.03, "beast_price", [20, 21, 22], 22, False)]
    return decs, Calls(decs, [d.t for d in decs])


def _stuck(monkeypatch, loss=6, budget=10_000, warriors=8, own_runs=11):
    """Return _widen's arguments for a search stuck at DIFF that gets further only with a
    retreat's loss of ``loss`` (None: with nothing), and the list of (decision, option)
    each search of its own was given, in order.  Each such search replays ``own_runs``
    times (its failed retries among them)."""
    decs, calls = _decisions(warriors)
    forced = [d.value for d in decs]
    tried: list[tuple[int, object]] = []
    search = SimpleNamespace(tol=FRAME, runs=0)     # runs: the replays asked for

    def probe(choices, t0, stop=float("inf"), span=20.0):
        search.runs += 1
        changed = [k for k, (a, b) in enumerate(zip(choices, forced)) if a != b]
        if changed == [1]:
            d = SANCTUARY_SHOWN[choices[1] > 4]     # the sanctuary's count no longer adds up
        elif changed:
            d = decs[changed[0]].t + 0.03       # shown at once
        else:
            d = DIFF
        return d, SimpleNamespace(conforms=False), calls

    def search_own(search, max_runs, count=True, head=(), retie=None, **kw):
        i = next(k for k in range(len(head)) if head[k] != forced[k])
        tried.append((i, head[i]))
        search.runs += own_runs
        further = i == 1 and head[1] == loss
        done = [Decision(d.t, d.name, d.options, head[k] if k < len(head) else d.value)
                for k, d in enumerate(decs)]
        return SimpleNamespace(diff_time=DIFF + (30.0 if further else 0.0), conforms=False,
                               decisions=done)

    monkeypatch.setattr(conform, "_search", search_own)
    return (search, probe, forced, [True] * 4 + [False], calls, DIFF, budget), tried


RECENT_SEARCHES = [4, 4, 4, 4, 3, 3, 3, 3, 2, 2, 2, 2]   # the price's, tomb's, sanctuary's


def test_the_recent_decisions_are_tried_first_as_they_always_were(monkeypatch):
    args, tried = _stuck(monkeypatch)
    _widen(*args)
    assert [i for i, _ in tried[:12]] == RECENT_SEARCHES
    assert all(DIFF - _decisions()[0][i].t < WIDE_SPAN_S for i in (2, 3, 4))


def test_a_decision_shown_only_through_a_later_draw_beyond_the_recent_span_is_tried_next(
        monkeypatch):
    args, tried = _stuck(monkeypatch)
    assert DIFF - _decisions()[0][1].t > WIDE_SPAN_S      # beyond the recent span
    assert min(SANCTUARY_SHOWN) - _decisions()[0][1].t >= LATE_S
    got = _widen(*args)
    assert {i for i, _ in tried[12:]} == {1}
    assert got is not None and got[0] == 1 and got[1][0] == 6


def test_every_option_of_such_a_decision_is_tried_not_only_the_likeliest_three(monkeypatch):
    args, tried = _stuck(monkeypatch)
    _widen(*args)
    assert [o for i, o in tried if i == 1] == [1, 1, 2, 2, 3, 3, 5, 5, 6]


def test_such_a_decision_has_a_budget_of_its_own(monkeypatch):
    # each search here takes 11 replays; the recent decisions' part may take WIDE_SHARE
    # times the budget, and the second part, after it, still runs on the budget
    args, tried = _stuck(monkeypatch, budget=120 // WIDE_SHARE)
    _widen(*args)
    assert [i for i, _ in tried if i != 1] == RECENT_SEARCHES[:11]    # stopped at 120
    assert [o for i, o in tried if i == 1][:4] == [1, 1, 2, 2]


def test_a_decision_shown_at_once_is_not_tried_beyond_the_recent_span(monkeypatch):
    args, tried = _stuck(monkeypatch, loss=None)
    assert _widen(*args) is None
    assert DIFF - _decisions()[0][0].t < 2 * WIDE_SPAN_S
    assert {i for i, _ in tried} == {1, 2, 3, 4}      # not the tomb shown at once (0)


def test_such_a_decision_within_the_recent_span_is_tried_next_with_its_other_options(
        monkeypatch):
    monkeypatch.setattr(conform, "WIDE_SPAN_S", 300.0)     # the retreat now a recent one
    args, tried = _stuck(monkeypatch)
    got = _widen(*args)
    assert [o for i, o in tried if i == 1] == [1, 1, 2, 2, 3, 3, 5, 5, 6]
    assert [i for i, _ in tried[:18]] == RECENT_SEARCHES + [1] * 6    # 1-3 among the recent
    assert got is not None and got[1][0] == 6


def test_such_a_decision_is_tried_however_many_options_it_has(monkeypatch):
    args, tried = _stuck(monkeypatch, loss=9, warriors=12)     # a retreat from 12 warriors
    got = _widen(*args)
    assert [o for i, o in tried if i == 1][-1] == 9
    assert got is not None and got[1][0] == 9


def test_the_budgets_count_every_replay_the_searches_of_their_own_take(monkeypatch):
    # each search of its own replays 40 times, a failed retry inside it among them
    args, tried = _stuck(monkeypatch, loss=None, budget=200 // WIDE_SHARE, own_runs=40)
    search = args[0]
    assert _widen(*args) is None
    assert len([i for i, _ in tried if i != 1]) == 5       # 5 x 40 reach 200
    second = [i for i, _ in tried if i == 1]
    assert second                                       # the second part ran, and
    assert search.runs - 200 <= 200 // WIDE_SHARE + 40 + 10     # on its own budget


def test_a_find_counts_the_replay_that_confirms_it(monkeypatch):
    # the search of its own that gets further is replayed once more from the first decision
    # it changed (conform._went_on): that replay is spent too, and the count says so
    # (a loss of 2 is among the likeliest options the recent decisions' part tries)
    monkeypatch.setattr(conform, "WIDE_SPAN_S", 300.0)
    args, tried = _stuck(monkeypatch, loss=2)
    search = args[0]
    got = _widen(*args)
    assert got is not None and got[1][0] == 2 and len(tried) <= 16
    assert got[-1] == search.runs, (got[-1], search.runs)
