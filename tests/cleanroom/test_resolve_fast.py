"""The fast resolver (replays from saved game states, comparisons after a quiet stretch) gives
exactly the results of the reference path (every replay from power-on, every comparison over
the whole session): per recording of tests/data, and piece by piece.

How fast it is, is measured by benchmarks/conform_speed.py, not here.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from cleanroom import conform, matching, snapshots
from cleanroom.conform import CRITERION, Tolerance, load_reference

DATA = Path(__file__).resolve().parents[1] / "data"
# The reference path replays from power-on at every decision (minutes per long session): a
# sample covers the four captures (menus, bazaar, riddle, tower test) and one game of each level.
# Every session of tests/data is resolved on the fast path in test_corpus_conformance.py.
SESSIONS = ["captures/level4_bazaar", "captures/level4_riddle", "captures/level_select",
            "captures/tower_test", "corpus/l1_p1_s01", "corpus/l3_p2_s31"]


def _outcome(result) -> dict:
    """Return everything a resolve reports: the comparison, the decisions and the counts."""
    return {"describe": result.describe(), "counts": result.counts(),
            "conforms": result.conforms, "matched": result.matched, "total": result.total,
            "rule": result.rule_items, "random": result.random_items,
            "decided": result.decided_items, "decisions": result.decisions}


def test_saved_states_are_used_here():
    script, _ = load_reference(str(DATA / "captures" / "tower_test"))
    replayer = snapshots.make_replayer(script, conform._Start(1.0), conform._take)
    replayer.close()
    assert isinstance(replayer, snapshots.ForkReplayer), \
        f"no saved states here ({snapshots._NO_SERVER or 'no os.fork'}): identity is untested"


@pytest.mark.parametrize("name", SESSIONS)
def test_the_fast_resolver_gives_the_reference_paths_results(name):
    script, events = load_reference(str(DATA / name))
    fast = conform._resolve(script, events, fast=True)
    slow = conform._resolve(script, events, fast=False)
    assert _outcome(fast) == _outcome(slow)


@pytest.mark.parametrize("name,tol", [("captures/level4_bazaar", Tolerance()),
                                      ("captures/level4_riddle", Tolerance(time_s=0.01))])
def test_the_fast_resolver_gives_the_reference_paths_results_at_other_tolerances(name, tol):
    script, events = load_reference(str(DATA / name))
    assert _outcome(conform._resolve(script, events, tol, fast=True)) == \
        _outcome(conform._resolve(script, events, tol, fast=False))


def test_a_recording_that_does_not_conform_gets_the_same_first_difference():
    # the first 170 s (a whole session on the reference path takes minutes), its 10 at
    # 132.97 s shown as 11
    script, events = load_reference(str(DATA / "corpus" / "l2_p3_s10"))
    later = [e if e["type"] != "display" or e["t"] < 130 or e["text"].strip() != "10"
             else {**e, "text": "11"} for e in events if e["t"] <= 170.0]
    # (without trying earlier decisions again where the search stops, thousands of replays
    # from power-on on the reference path: tests/rig/test_explore_resolves.py checks that)
    fast = conform._resolve(script, later, end=170.0, fast=True, retie=0)
    assert not fast.conforms and 130 < fast.diff_time < 134
    assert _outcome(fast) == _outcome(conform._resolve(script, later, end=170.0, fast=False,
                                                       retie=0))


class _Checked(matching.QuietWindow):
    """A quiet-stretch comparison that also runs the whole one and keeps both."""
    pairs: list = []

    def compare(self, events, h, whole):
        res = super().compare(events, h, whole)
        if res is not None:
            ref = self._reference if whole else [e for e in self._reference if e["t"] <= h]
            full = conform.compare(ref, events, self.tol, h, self.types)
            self.pairs.append(((res.diff_time, res.conforms), (full.diff_time, full.conforms)))
        return res

    def __init__(self, reference, tol, types):
        super().__init__(reference, tol, types)
        self._reference = reference


@pytest.mark.parametrize("name", ["corpus/l1_p2_s29", "corpus/l4_p3_s20"])
def test_each_comparison_after_a_quiet_stretch_finds_the_whole_comparisons_difference(
        name, monkeypatch):
    monkeypatch.setattr(conform, "QuietWindow", _Checked)
    _Checked.pairs = []
    script, events = load_reference(str(DATA / name))
    conform._resolve(script, events, fast=True)
    assert len(_Checked.pairs) > 50
    assert [got for got, _ in _Checked.pairs] == [whole for _, whole in _Checked.pairs]


def test_a_summary_after_a_quiet_stretch_has_the_whole_summarys_items_after_it():
    _, events = load_reference(str(DATA / "corpus" / "l1_p1_s01"))
    window = matching.QuietWindow(events, CRITERION, None)
    whole = conform.summarize(events, 250.0)
    shorter = 0
    for after in range(20, 250, 5):
        part = window.summarize(events, 250.0, after)
        assert [it for it in part if it.t >= after] == [it for it in whole if it.t >= after]
        shorter += len(part) < len(whole)
    assert shorter > 30
