"""Where the search is stuck, the last resorts measure every duration again
(cleanroom/conform.py ``_remeasure``, cleanroom/measure.py ``measure_all``): a duration
measured before the draw after it was settled was dated at another output (a turn's pause
measured at the next MOVE's click while a stray key, later settled as taken, clicks first);
measured again, it replays with the draws after it as the search settled them, and what it
took is counted in replays asked for.  A stand-in search says what each replay was asked for
and dates the click where the stray key's value puts it."""
from __future__ import annotations

from types import SimpleNamespace

from cleanroom.decisions import Decision
from cleanroom.measure import _tail, measure

CLICK = 713.745099      # the recording's click, 1098 cycles after the game's with 0


def _decisions():
    pause = Decision(713.041, "turn_think_cycles", list(range(-474, 925, 6)), 0)
    stray = Decision(713.699, "stray_key", [False, True], True)
    later = Decision(727.421, "turn_think_cycles", list(range(-474, 925, 6)), 0)
    after = Decision(730.0, "move", ["safe", "lost"], "safe")
    return [pause, stray, later, after]


def _search(asked: list):
    """A search whose replays click at the stray key's scan when it is taken, on time with a
    pause of 624 cycles, and 2.3 s later at the MOVE's when it is not, on time with -474
    (the loop's scans go on from another phase); the pause moves either a cycle per cycle."""
    def events(forced, until, t0):
        asked.append(list(forced))
        if len(forced) > 1 and forced[1] is True:
            t = CLICK + (forced[0] - 624) / 425000
        else:
            t = 716.087899 + (forced[0] + 474) / 425000
        return [{"t": t, "type": "tone", "freq_hz": 431.9}]
    reference = [{"t": CLICK, "type": "tone", "freq_hz": 431.9},
                 {"t": 716.087899, "type": "tone", "freq_hz": 431.9}]
    return SimpleNamespace(
        events=events, measured={}, end=760.0, presses=[713.7, 716.08], clock_ratio=1.0,
        tol=SimpleNamespace(time_s=1 / 60),
        precise=lambda lo, hi: [e for e in reference if lo <= e["t"] <= hi])


def test_a_duration_measured_again_replays_the_draws_after_it_as_settled():
    asked: list = []
    pause = _decisions()[0]
    assert measure(_search(asked), [], pause, tail=[True]) == 624
    assert asked and all(forced[1:] == [True] for forced in asked)


def test_a_duration_measured_with_the_draws_after_it_at_their_likeliest_dates_another_click():
    asked: list = []
    assert measure(_search(asked), [], _decisions()[0]) == -474
    assert all(len(forced) == 1 for forced in asked)


def test_the_draws_kept_run_to_the_next_duration_and_no_further_than_those_settled():
    decs = _decisions()
    assert _tail(decs, 0, settled=4) == [True]
    assert _tail(decs, 2, settled=4) == ["safe"]
    assert _tail(decs, 2, settled=3) == []
    assert _tail(decs, 0, settled=1) == []


def test_measuring_again_counts_every_replay_its_search_of_its_own_takes(monkeypatch):
    # the durations measured again get no further as they are; the draws after the last of
    # them settled again by a search of its own do, and that search takes 50 replays, a
    # failed retry of its own among them: all of them are what the last resort spent
    from cleanroom import conform

    decs = _decisions()
    search = SimpleNamespace(runs=0)

    def measure_all(search, decisions, settled):
        search.runs += 7
        return [624] + [d.value for d in decisions[1:]]

    def probe(values, t0):
        search.runs += 1
        return 740.0, SimpleNamespace(conforms=False), decs

    def search_own(search, max_runs, count=True, head=(), head_revealed=(), retie=None):
        search.runs += 50
        done = [Decision(d.t, d.name, d.options, head[k] if k < len(head) else d.value, True)
                for k, d in enumerate(decs)]
        return SimpleNamespace(diff_time=750.0, conforms=False, decisions=done)

    monkeypatch.setattr(conform, "measure_all", measure_all)
    monkeypatch.setattr(conform, "_search", search_own)
    got = conform._remeasure(search, probe, decs, [True] * 4, 740.0)
    assert got is not None and got[0] == 0 and got[1][0] == 624
    assert got[-1] == search.runs == 7 + 1 + 50 + 1
