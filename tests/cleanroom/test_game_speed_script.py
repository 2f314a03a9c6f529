"""benchmarks/game_speed.py runs end to end (speed itself is not asserted: CI machines vary)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.benchscripts import load, run

ROOT = Path(__file__).resolve().parents[2]
SESSION = ROOT / "tests" / "data" / "corpus" / "l4_p4_s16"


@pytest.fixture(scope="module")
def bench():
    return load("game_speed")


def test_the_benchmark_prints_the_time_per_replay_and_the_ratio_to_the_towers_time(bench):
    status, out, _ = run(bench, "--repeat", "2", str(SESSION))
    assert status == 0
    line = next(x for x in out.splitlines() if SESSION.name in x)
    assert "ms per replay" in line and "us per game s" in line and "x  outputs" in line


def test_a_folder_without_a_script_is_one_clear_error(bench, tmp_path):
    status, out, err = run(bench, str(tmp_path))
    assert status == 2 and out == ""
    assert err.strip() == f"{tmp_path}: not a session folder (expected script.txt and events.jsonl)"
