"""benchmarks/conform_speed.py's timing of the sessions of one length runs end to end (speed
itself is not asserted: CI machines vary)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.benchscripts import load, run

CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus"


@pytest.fixture(scope="module")
def bench():
    return load("conform_speed")


def test_the_sessions_of_one_length_are_timed_with_their_median_and_the_goal(bench):
    status, out, _ = run(bench, "--corpus", str(CORPUS), "--around", "225", "--goal", "60")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].startswith(f"corpus {CORPUS}: 1 sessions of ")
    assert lines[1].split()[:2] == ["l4_p4_s16", "238"] and lines[1].endswith("(conforms)")
    # beside each, the reference run: the resolution's time in replays from power-on
    assert float(lines[1].split(",")[-1].split()[0]) > 1
    assert lines[2].startswith("  median ") and lines[2].endswith("1 of 1 under 60 s")
    assert " replays), " in lines[2]


def test_no_session_of_that_length_is_one_clear_error(bench):
    status, out, err = run(bench, "--corpus", str(CORPUS), "--around", "5")
    assert status == 2 and out == ""
    assert err.strip() == f"{CORPUS}: no session of 5 s +- 10 %"
