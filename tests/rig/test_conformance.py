"""`towerlab conform` over many references (rig/conformance.py): the same report per session
whatever the number of processes, in the order given, a summary table, a progress line only on
a terminal, and bad input refused in one line before any work.  (On a Dask cluster:
tests/rig/test_batch.py, beside its local cluster.)"""
from __future__ import annotations

import io
import json
from pathlib import Path

from rig.conformance import SessionReport, decision_line, summary_table
from towerlab.cli import main

CAPTURES = Path(__file__).resolve().parents[1] / "data" / "captures"
# not in name order: the reports come in the order given
FOLDERS = [str(CAPTURES / n) for n in ("tower_test", "level_select")]


class Terminal(io.StringIO):
    """An output that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def run(*argv, out=None):
    out = out or io.StringIO()
    return main(list(argv), out), out.getvalue()


def _changed(tmp_path: Path) -> tuple[str, float]:
    """Return a copy of tower_test whose second ``88`` reads ``87`` (it no longer conforms)
    and the time of that text."""
    src = CAPTURES / "tower_test"
    (tmp_path / "script.txt").write_text((src / "script.txt").read_text())
    lines = (src / "events.jsonl").read_text().splitlines(keepends=True)
    second = [i for i, line in enumerate(lines) if '"text": "88"' in line][1]
    lines[second] = lines[second].replace('"88"', '"87"')
    (tmp_path / "events.jsonl").write_text("".join(lines))
    return str(tmp_path), json.loads(lines[second])["t"]


def test_two_processes_print_what_one_prints():
    one = run("conform", "--reference", *FOLDERS)
    two = run("conform", "--jobs", "2", "--reference", *FOLDERS)
    assert one == two and one[0] == 0


def test_each_session_is_reported_in_the_order_given():
    _, text = run("conform", "--jobs", "2", "--reference", *FOLDERS)
    firsts = [line.split(":")[0] for line in text.splitlines() if ": conforms (" in line]
    assert firsts == FOLDERS


def test_the_summary_table_gives_each_session_and_its_first_difference(tmp_path):
    changed, t = _changed(tmp_path)
    code, text = run("conform", "--jobs", "2", "--reference", FOLDERS[0], changed)
    assert code == 1
    table = text[text.index("\nsession "):].splitlines()[1:]
    assert table[0].split() == ["session", "conforming", "items", "matched", "first",
                                "difference"]
    assert table[2].split()[:5] == [FOLDERS[0], "yes", "26", "of", "26"]
    row = table[3]
    assert row.split()[:2] == [changed, "no"]
    assert row.endswith(f"{t:.3f} s: reference display '87' at {t:.3f} s; game nothing")
    assert table[-1].split()[:5] == ["2", "sessions", "1", "of", "2"]


def test_one_session_gets_no_table():
    code, text = run("conform", "--reference", FOLDERS[0])
    assert code == 0 and "session " not in text and text.count("\n") == 2
    assert text.startswith("mode: draws resolved from the recording")


def test_no_progress_line_unless_the_output_is_a_terminal():
    plain = run("conform", "--reference", *FOLDERS)[1]
    code, quiet = run("conform", "--quiet", "--reference", *FOLDERS, out=Terminal())
    assert quiet == plain
    code, shown = run("conform", "--reference", *FOLDERS, out=Terminal())
    assert "conform: 2 jobs" in shown and "conform: 2 jobs" not in plain
    for line in plain.splitlines()[:2]:
        assert line in shown


def test_a_reference_folder_without_events_is_one_line_before_any_work(tmp_path, capsys):
    (tmp_path / "script.txt").write_text((CAPTURES / "tower_test" / "script.txt").read_text())
    code, text = run("conform", "--jobs", "2", "--reference", FOLDERS[0], str(tmp_path))
    err = capsys.readouterr().err
    assert code == 2 and text == "" and err.count("\n") == 1
    assert f"{tmp_path}: no events.jsonl and no capture" in err


def test_a_script_that_does_not_parse_is_one_line_naming_it(tmp_path, capsys):
    (tmp_path / "script.txt").write_text("4.5 JUMP 0.2\n")
    (tmp_path / "events.jsonl").write_text((CAPTURES / "tower_test" / "events.jsonl")
                                           .read_text())
    code, text = run("conform", "--reference", FOLDERS[0], str(tmp_path))
    err = capsys.readouterr().err
    assert code == 2 and text == "" and err.count("\n") == 1
    assert "script.txt" in err and "JUMP" in err


def test_an_unknown_clock_is_one_line(capsys):
    for ratio in ("0", "-1", "inf", "nan", "1e9"):     # 1e9: a replay that never ended
        code, text = run("conform", "--clock-ratio", ratio, "--reference", *FOLDERS)
        err = capsys.readouterr().err
        assert code == 2 and text == "" and err.count("\n") == 1
        assert f"--clock-ratio {float(ratio)!r}" in err


def test_jobs_below_one_are_refused(capsys):
    code, _ = run("conform", "--jobs", "0", "--reference", *FOLDERS)
    err = capsys.readouterr().err
    assert code == 2 and "--jobs 0" in err and err.count("\n") == 1


def test_a_search_budget_below_one_is_refused(capsys):
    code, _ = run("conform", "--search-budget", "0", "--reference", *FOLDERS)
    err = capsys.readouterr().err
    assert code == 2 and "--search-budget 0" in err and err.count("\n") == 1


def test_the_search_budget_is_the_resolvers_and_the_report_says_it(tmp_path, resolver_budgets):
    from cleanroom import conform

    budgets = resolver_budgets
    changed, _ = _changed(tmp_path)
    code, text = run("conform", "--no-witnesses", "--search-budget", "200", "--reference",
                     changed)
    assert code == 1 and budgets == [200]
    assert text.splitlines()[1].startswith("search budget: 200 replays for each 400 s")
    code, text = run("conform", "--no-witnesses", "--reference", changed)
    assert budgets == [200, conform.MAX_RUNS] and "search budget" not in text


def test_the_table_totals_its_rows():
    reports = [SessionReport("a", "", True, 10, 10, 8, 2),
               SessionReport("b", "", False, 3, 9, 3, 0, 1.5, "reference x; game y")]
    lines = summary_table(reports).splitlines()
    assert lines[-1].split() == ["2", "sessions", "1", "of", "2", "13", "of", "19"]
    assert lines[3].endswith("1.500 s: reference x; game y")


# ---- witnesses: the decisions a session conformed with, tried first the next time ----------
BAZAAR = str(CAPTURES / "level4_bazaar")


def test_a_conforming_session_leaves_its_witness_in_the_witness_folder(tmp_path):
    run("conform", "--witnesses", str(tmp_path), "--reference", BAZAAR)
    kept = list(tmp_path.glob("*.json"))
    assert len(kept) == 1
    assert json.loads(kept[0].read_text())["recording"] == "level4_bazaar"


def test_a_second_check_replays_the_witness_without_a_search_and_prints_the_same(
        tmp_path, monkeypatch):
    import cleanroom.conform as conform
    first = run("conform", "--witnesses", str(tmp_path), "--reference", BAZAAR)

    def no_search(*args, **kwargs):
        raise AssertionError("the search ran although the witness conforms")
    monkeypatch.setattr(conform, "_resolve", no_search)
    assert run("conform", "--witnesses", str(tmp_path), "--reference", BAZAAR) == first


def test_a_witness_that_no_longer_conforms_is_resolved_again_and_replaced(tmp_path):
    first = run("conform", "--witnesses", str(tmp_path), "--reference", BAZAAR)
    kept = next(tmp_path.glob("*.json"))
    good = kept.read_text()
    wrong = json.loads(good)
    wrong["decisions"] = [["99", False] for _ in wrong["decisions"]]
    kept.write_text(json.dumps(wrong))
    assert run("conform", "--witnesses", str(tmp_path), "--reference", BAZAAR) == first
    assert kept.read_text() == good


def test_an_unreadable_witness_is_ignored(tmp_path):
    first = run("conform", "--witnesses", str(tmp_path), "--reference", BAZAAR)
    kept = next(tmp_path.glob("*.json"))
    kept.write_text("{not json")
    assert run("conform", "--witnesses", str(tmp_path), "--reference", BAZAAR) == first


def test_a_session_that_does_not_conform_leaves_no_witness(tmp_path):
    (tmp_path / "rec").mkdir()
    folder, _ = _changed(tmp_path / "rec")
    status, _ = run("conform", "--witnesses", str(tmp_path / "w"), "--reference", folder)
    assert status == 1 and not list((tmp_path / "w").glob("*.json"))


def test_a_witness_folder_that_is_a_file_is_refused_before_any_check(tmp_path, capsys,
                                                                     monkeypatch):
    import cleanroom.conform as conform

    def no_check(*args, **kwargs):
        raise AssertionError("a session was checked although --witnesses is a file")
    monkeypatch.setattr(conform, "resolve", no_check)
    (tmp_path / "w").write_text("")
    code = main(["conform", "--witnesses", str(tmp_path / "w"), "--reference", BAZAAR],
                io.StringIO())
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err == [f"towerlab: {tmp_path / 'w'}: not a folder (expected the "
                                 f"folder of witnesses, made if missing)"]


def test_no_witnesses_keeps_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    run("conform", "--no-witnesses", "--reference", BAZAAR)
    assert not list(tmp_path.rglob("*.json"))
    run("conform", "--reference", BAZAAR)
    assert len(list((tmp_path / "towerlab" / "witnesses").glob("*.json"))) == 1


def test_a_session_the_resolver_fails_on_is_reported_and_the_others_still_run(monkeypatch):
    import cleanroom.conform

    real = cleanroom.conform.resolve

    def failing(script, events, *args, **kwargs):
        if any(e.get("text") == "P1" for e in events):      # level_select, not tower_test
            raise TypeError("a defect")
        return real(script, events, *args, **kwargs)
    monkeypatch.setattr(cleanroom.conform, "resolve", failing)
    code, text = run("conform", "--no-witnesses", "--reference", *FOLDERS)
    assert code == 1
    assert f"{FOLDERS[0]}: conforms (" in text
    failed = [line for line in text.splitlines() if line.startswith(f"{FOLDERS[1]}: ")]
    assert failed and "the resolver failed (TypeError: a defect" in failed[0]
    assert text.splitlines()[-1].split()[:5] == ["2", "sessions", "1", "of", "2"]


def test_a_duration_dated_at_its_ranges_end_is_marked_in_the_decisions_list():
    from cleanroom.decisions import Decision

    options = list(range(-594, 2521, 6))
    at_end = decision_line(Decision(280.514, "sanctuary_think_cycles", options, -594, True))
    inside = decision_line(Decision(280.514, "sanctuary_think_cycles", options, 222, True))
    unseen = decision_line(Decision(280.514, "sanctuary_think_cycles", options, -594, False))
    assert at_end.endswith("revealed, at its range's end")
    assert inside.endswith("revealed") and unseen.endswith("not shown")


def test_a_scan_or_step_edge_decision_is_never_marked_at_its_ranges_end():
    from cleanroom.decisions import Decision

    line = decision_line(Decision(239.895, "reel_step_cycles", [0, 11475], 11475, True))
    assert line.endswith("revealed")
