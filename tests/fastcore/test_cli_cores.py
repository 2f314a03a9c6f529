"""`towerlab run`/`trace` choose the core (--core) and batch many scripts (--jobs)."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from captures.events import read_events
from captures.script import ScriptError, parse_script
from emulator.boards import board_keys
from towerlab.cli import main

ROOT = Path(__file__).resolve().parent.parent.parent
CAPTURES = ROOT / "tests" / "data" / "captures"
GOLDEN = ROOT / "tests" / "golden"


def _run(argv):
    out = io.StringIO()
    rc = main(argv, out)
    return rc, out.getvalue()


def test_batch_run_writes_the_same_events_as_single_runs(tmp_path):
    scripts = [str(CAPTURES / n / "script.txt") for n in ("tower_test", "level_select")]
    rc, text = _run(["run", "--firmware", "demo", "--script", *scripts, "--seconds", "20",
                     "--jobs", "2", "--out", str(tmp_path / "batch")])
    assert rc == 0 and "ran 2 scripts" in text
    for name, script in zip(("tower_test", "level_select"), scripts):
        single = tmp_path / f"{name}.jsonl"
        assert _run(["run", "--firmware", "demo", "--script", script, "--seconds", "20",
                     "--events", str(single), "--quiet"])[0] == 0
        assert read_events(str(tmp_path / "batch" / f"{name}.events.jsonl")) == \
            read_events(str(single))


def test_batch_run_without_out_folder_is_refused(capsys):
    scripts = [str(CAPTURES / n / "script.txt") for n in ("tower_test", "level_select")]
    rc, _ = _run(["run", "--firmware", "demo", "--script", *scripts, "--seconds", "5"])
    assert rc == 2
    assert "needs --out FOLDER" in capsys.readouterr().err


@pytest.mark.parametrize("core", ["fast", "reference"])
def test_run_gives_the_same_events_on_either_core(tmp_path, core):
    path = tmp_path / f"{core}.jsonl"
    rc, _ = _run(["run", "--firmware", "demo", "--core", core, "--script",
                  str(CAPTURES / "tower_test" / "script.txt"), "--seconds", "15.5",
                  "--events", str(path), "--quiet"])
    assert rc == 0
    golden = tmp_path / "other.jsonl"
    other = "reference" if core == "fast" else "fast"
    _run(["run", "--firmware", "demo", "--core", other, "--script",
          str(CAPTURES / "tower_test" / "script.txt"), "--seconds", "15.5",
          "--events", str(golden), "--quiet"])
    assert read_events(str(path)) == read_events(str(golden))


def test_trace_is_identical_on_both_cores(tmp_path):
    rom = tmp_path / "golden.bin"
    assert _run(["asm", str(GOLDEN / "core_tms1400.asm"), "-o", str(rom)])[0] == 0
    traces = []
    for core in ("fast", "reference"):
        out = tmp_path / f"{core}.trace"
        assert _run(["trace", "--rom", str(rom), "--opla", str(GOLDEN / "core_output.pla"),
                     "--steps", "2000", "--core", core, "-o", str(out)])[0] == 0
        traces.append(out.read_text())
    assert traces[0] == traces[1] and len(traces[0].splitlines()) == 2000


def test_labyrinth_scripts_use_the_labyrinth_key_names():
    script = parse_script("1.0 NEXT TURN 0.2\n2 a1 0.3\n", "lab", board_keys("labyrinth"))
    assert [a.button for a in script.actions] == ["NEXT TURN", "A1"]
    with pytest.raises(ScriptError, match="unknown button 'YES/BUY'"):
        parse_script("1 YES/BUY 0.2\n", "lab", board_keys("labyrinth"))
