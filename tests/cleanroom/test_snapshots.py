"""Replays from saved game states (cleanroom/snapshots.py) are replays from power-on: the same
events in the same order and the same decisions, whatever the node they start from."""
from __future__ import annotations

import math
from array import array
import os
from pathlib import Path

import pytest

from cleanroom import conform, snapshots
from cleanroom.conform import ForcedChooser, load_reference
from cleanroom.cut import cut
from cleanroom.snapshots import ForkReplayer, PowerOnReplayer, ReplayProcessError
from cleanroom.tower import CleanroomTower

pytestmark = pytest.mark.skipif(not snapshots.can_fork(), reason="saved states need os.fork "
                                "(POSIX); the portable path is the reference itself")

SESSION = Path(__file__).resolve().parents[1] / "data" / "corpus" / "l1_p1_s01"


@pytest.fixture(autouse=True)
def every_run_forks(monkeypatch):
    # a replayer replays short runs early in a session from power-on in its own process,
    # where that costs less than a fork (``FORK_S``...): these tests are about the forks
    monkeypatch.setattr(snapshots, "HERE_S_PER_S", math.inf)


@pytest.fixture(scope="module")
def session():
    script, events = load_reference(str(SESSION))
    reference = PowerOnReplayer(script, conform._Start(1.0))
    taken = [d.value for d in reference.run([], 300.0).calls]
    return script, reference, taken


def _variants(taken: list, calls: list) -> list[tuple[list, float]]:
    """Return (forced decisions, the time of the first one changed) for a few changes."""
    out = []
    for i in (5, 12, 20, 28, 35):
        if i < len(calls) and len(calls[i].options) > 1:
            other = next(o for o in calls[i].options if o != taken[i])
            out.append((taken[:i] + [other], calls[i].t))
    return out


def _same(a, b) -> None:
    assert a.events == b.events
    assert [(d.t, d.name, d.value, d.options) for d in a.calls] == \
        [(d.t, d.name, d.value, d.options) for d in b.calls]
    # when the game looked at each decision (a run sends only the looks that changed)
    assert a.used == b.used
    assert [list(x) for x in a.looks] == [list(x) for x in b.looks]


def test_runs_from_saved_states_are_the_replays_from_power_on(session):
    script, reference, taken = session
    calls = reference.run(taken, 300.0).calls
    with ForkReplayer(script, conform._Start(1.0), conform._take) as fast:
        for forced, t0 in [(taken, 100.0)] + _variants(taken, calls):
            for until in (t0 + 20, t0 + 60, 283.4):
                _same(fast.run(forced, until, t0), reference.run(forced, until))


def test_a_run_that_ends_exactly_at_a_press_makes_the_press(session):
    script, reference, taken = session
    steps = [t for t, _, _ in snapshots.timeline(script) if t > 150][:3]
    with ForkReplayer(script, conform._Start(1.0), conform._take) as fast:
        for until in steps + [s + 1e-9 for s in steps] + [s - 1e-9 for s in steps]:
            _same(fast.run(taken, until, 140.0), reference.run(taken, until))


def test_a_state_saved_between_two_presses_gives_the_same_runs(session, monkeypatch):
    # decisions taken long after the last press (a battle's skirmishes, a tomb's picture):
    # the node pauses inside the advance towards the next press, just before the decision
    # (with nodes made 2 s apart, so that this session has such decisions)
    monkeypatch.setattr(snapshots, "NODE_GAP_S", 2.0)
    script, reference, taken = session
    calls = reference.run(taken, 300.0).calls
    steps = [t for t, _, _ in snapshots.timeline(script)]
    late = [(i, d) for i, d in enumerate(calls) if len(d.options) > 1 and d.t > steps[0]
            and d.t - max(t for t in steps if t <= d.t) > 3 * snapshots.NODE_GAP_S][:4]
    assert late, "the session has no decision long after a press: pick another"
    with ForkReplayer(script, conform._Start(1.0), conform._take) as fast:
        for i, d in late:
            other = next(o for o in d.options if o != taken[i])
            for forced in (taken, taken[:i] + [other]):
                for until in (d.t + 0.5, d.t + 20):
                    _same(fast.run(forced, until, d.t), reference.run(forced, until))
        inside = [n for n in fast._nodes if n.t not in steps]
    assert inside, "no state was saved between two presses"


def test_few_saved_states_give_the_same_runs(session):
    script, reference, taken = session
    calls = reference.run(taken, 300.0).calls
    with ForkReplayer(script, conform._Start(1.0), conform._take, max_nodes=1) as fast:
        for forced, t0 in reversed(_variants(taken, calls)):
            _same(fast.run(forced, t0 + 30, t0), reference.run(forced, t0 + 30))


def test_a_run_asked_to_go_on_is_the_run_to_the_later_time(session):
    # the last run waits at its end; asked again with the same decisions and a later time,
    # it goes on from there (no new process): the events and decisions of a run to that time
    script, reference, taken = session
    steps = [t for t, _, _ in snapshots.timeline(script) if t > 150][:2]
    for untils in ([151.0, 152.5, 171.0, 230.0], [steps[0], steps[0] + 1e-9, steps[1]],
                   [steps[0] - 1e-9, steps[0], 283.4]):
        with ForkReplayer(script, conform._Start(1.0), conform._take) as fast:
            for until in untils:
                _same(fast.run(taken, until, 140.0), reference.run(taken, until))
                assert fast._going is not None and fast._going.until == until
            # another request ends the waiting run first; an earlier time is a new run
            _same(fast.run(taken, 145.0, 140.0), reference.run(taken, 145.0))


def test_a_run_waiting_to_go_on_holds_up_no_other_replayer(session):
    # replayers share the process's server; a run waiting on a node holds up only its node
    script, reference, taken = session
    with ForkReplayer(script, conform._Start(1.0), conform._take) as one, \
            ForkReplayer(script, conform._Start(1.0), conform._take) as two:
        one.run(taken, 170.0, 150.0)
        assert one._going is not None
        _same(two.run(taken, 190.0, 120.0), reference.run(taken, 190.0))
        _same(one.run(taken, 200.0, 150.0), reference.run(taken, 200.0))


def test_a_short_run_early_in_a_session_is_replayed_from_power_on_here(session,
                                                                         monkeypatch):
    script, reference, taken = session
    monkeypatch.setattr(snapshots, "HERE_S_PER_S", 0.0)
    with ForkReplayer(script, conform._Start(1.0), conform._take) as fast:
        _same(fast.run(taken, 150.0, 140.0), reference.run(taken, 150.0))
        assert fast._nodes == [] and fast._going is None


def test_a_run_that_fails_while_going_on_is_reported(session):
    script, _, _ = session
    fifth = PowerOnReplayer(script, _Trouble("raise")).run([], 300.0).calls[4].t
    with ForkReplayer(script, _Trouble("raise"), conform._take) as fast:
        fast.run(["fail"], fifth - 0.5, fifth - 1.0)
        with pytest.raises(ValueError, match="decision .* no good"):
            fast.run(["fail"], fifth + 5.0, fifth - 1.0)
        assert fast._going is None
        assert fast.run([], fifth + 5.0, fifth - 1.0).events     # the others still answer


class _Trouble(conform._Start):
    """Start a tower whose chooser fails at its fifth decision: raises, or ends the
    process (``how``)."""

    def __init__(self, how: str):
        super().__init__(1.0)
        self.how = how

    def __call__(self, forced):
        how = self.how

        class Failing(ForcedChooser):
            def choose(self, name, options, weights, t):
                if len(self.calls) == 5 and self.forced[:1] == ["fail"]:
                    if how == "raise":
                        raise ValueError(f"decision {name} at {t:.3f} s: no good")
                    os._exit(3)
                return super().choose(name, options, weights, t)

        chooser = Failing(forced)
        return CleanroomTower(chooser=chooser, clock_ratio=self.clock_ratio), chooser


@pytest.mark.parametrize("how", ["raise", "exit"])
def test_a_failing_replay_is_reported_to_the_caller(session, how):
    script, _, _ = session
    with ForkReplayer(script, _Trouble(how), conform._take) as fast:
        if how == "raise":
            with pytest.raises(ValueError, match="decision .* no good"):
                fast.run(["fail"], 200.0, 150.0)
        else:
            with pytest.raises(ReplayProcessError, match="ended without an answer"):
                fast.run(["fail"], 200.0, 150.0)
        assert fast.run([], 200.0, 150.0).events       # the others still answer


def test_the_server_and_its_processes_end_on_shutdown(session):
    script, _, taken = session
    with ForkReplayer(script, conform._Start(1.0), conform._take) as fast:
        fast.run(taken, 200.0, 150.0)
        server = snapshots._SERVER.proc
    snapshots.shutdown()
    assert server.poll() is not None
    with pytest.raises(ProcessLookupError):
        os.kill(server.pid, 0)


def _cut_points(replay, after: float) -> list[float]:
    """Times where a cut is most likely to go wrong: at each decision, event and press after
    ``after``, and a microsecond and a nanosecond on either side."""
    times = sorted({d.t for d in replay.calls if d.t > after} |
                   {e["t"] for e in replay.events if e["t"] > after})
    return [t + dt for t in times[::3] for dt in (0.0, -1e-6, 1e-6, -1e-9, 1e-9, -2e-6)]


def test_events_cut_from_a_longer_replay_are_the_replay_to_the_cut(session):
    # ``events`` answers from a kept replay that went further with the same decisions;
    # at any time, a decision's, an event's (where one written later may be dated back to
    # its display frame) or a press's, the cut is what a replay to there shows
    script, reference, taken = session
    calls = reference.run(taken, 300.0).calls
    checked = 0
    with ForkReplayer(script, conform._Start(1.0), conform._take) as fast:
        for forced, t0 in [(taken, 100.0)] + _variants(taken, calls)[:3]:
            long = fast.run(forced, t0 + 40.0, t0)
            for until in _cut_points(long, t0):
                if until >= t0 + 40.0:
                    continue
                got = fast.events(forced, until, t0)
                assert got == reference.run(forced, until).events, (forced[-1], until)
                checked += 1
        assert fast.cuts > checked // 2, (fast.cuts, checked)


def test_events_are_not_cut_from_a_replay_whose_decisions_differ_before_the_cut(session):
    script, reference, taken = session
    calls = reference.run(taken, 300.0).calls
    (forced, t0), = _variants(taken, calls)[1:2]
    with ForkReplayer(script, conform._Start(1.0), conform._take) as fast:
        fast.run(forced, t0 + 40.0, t0)
        got = fast.events(taken, t0 + 20.0, t0)
        assert fast.cuts == 0
        assert got == reference.run(taken, t0 + 20.0).events


def test_events_are_not_cut_where_a_later_write_lands_before_the_cut():
    # a display change is dated to the start of its 1/60 s frame, so what the engine writes
    # just after ``until`` may land before it, and a second change in one frame takes the
    # first back: a replay that went further is then not the replay to ``until``
    replay = snapshots.Replay([{"t": 1.0, "type": "display", "text": "12"}], [], [], None,
                              until=2.0, start=0.0,
                              marks=(array("d", [1.0, 1.49]).tobytes(),
                                     array("d", [1.0, 1.51]).tobytes()))
    assert cut(replay, [], 1.5, conform._take) is None
    assert cut(replay, [], 1.52, conform._take) == replay.events
    assert cut(replay, [], 1.49 - 1e-5, conform._take) == replay.events


def test_a_run_reports_the_looks_at_decisions_taken_before_its_saved_state(session,
                                                                           monkeypatch):
    # a run sends back only the looks that changed since its node: here decisions taken
    # at 125.3 s whose values the game reads again up to 178 s, after nodes made at 130 s
    # and later (made 2 s apart)
    monkeypatch.setattr(snapshots, "NODE_GAP_S", 2.0)
    script, reference, taken = session
    full = reference.run(taken, 300.0)
    read_later = [i for i, d in enumerate(full.calls)
                  if full.looks[i] and full.looks[i][-1] > d.t + 20]
    assert read_later, "the session has no value read long after its draw: pick another"
    with ForkReplayer(script, conform._Start(1.0), conform._take) as fast:
        for t0 in (130.0, 150.0, 170.0):
            for until in (t0 + 5, 200.0):
                _same(fast.run(taken, until, t0), reference.run(taken, until))


def test_a_replay_no_longer_kept_is_no_longer_cut_from(session, monkeypatch):
    monkeypatch.setattr(snapshots, "KEPT_REPLAYS", 2)
    script, reference, taken = session
    with ForkReplayer(script, conform._Start(1.0), conform._take) as fast:
        for until in (150.0, 160.0, 170.0, 180.0, 190.0):
            fast.run(taken, until, 140.0)
        kept = list(fast._kept.values())
        filed = {id(r) for replays in fast._by_span.values() for r in replays}
        assert filed == {id(r) for r in kept}
        assert fast.events(taken, 185.0, 140.0) == reference.run(taken, 185.0).events
        assert fast.cuts == 1
