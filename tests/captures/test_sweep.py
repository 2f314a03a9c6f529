"""A lab timing sweep made whole sessions from power-on (captures.sweep), on the copy of the
lab's MOVE sweep of l2_p1_s102 in tests/data/sweeps with the corpus session cut at the
swept press (tests/data/sweeps/l2_p1_s102, ``cut_base.py``)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from captures.script import Press
from captures.sweep import (CUT_MARGIN_S, SweepError, read_lab_sweep, read_sweep_runs,
                            sweep_sessions)

DATA = Path(__file__).resolve().parents[1] / "data" / "sweeps"
SWEEP = DATA / "move_l2_p1_s102"
BASE = DATA / "l2_p1_s102"
SWEPT_AT = 31.05        # the MOVE the sweep moves, in the corpus session


@pytest.fixture(scope="module")
def sessions():
    return sweep_sessions(str(SWEEP), str(BASE))


def test_the_readme_names_the_session_the_press_and_the_window():
    sweep = read_lab_sweep(str(SWEEP))
    assert (sweep.session, sweep.press, sweep.after_s) == ("l2_p1_s102", 6, 8.0)
    assert [r.offset_frames for r in sweep.runs] == list(range(120))


def test_every_run_is_a_session_labelled_by_its_offset(sessions):
    assert [label.rsplit("#", 1)[1] for label, _, _ in sessions] == \
        [f"k{k:03d}" for k in range(120)]


def test_the_swept_press_moves_a_frame_a_run(sessions):
    for k, (_, script, _) in enumerate(sessions):
        last = script.actions[-1]
        assert isinstance(last, Press) and last.button == "MOVE"
        assert last.t == pytest.approx(SWEPT_AT + k / 60, abs=1e-6)
        assert len(script.actions) == 7      # the corpus session's six presses before it


def test_a_session_ends_before_its_window_does(sessions):
    for k, (_, script, events) in enumerate(sessions):
        end = SWEPT_AT + k / 60 + 8.0 - CUT_MARGIN_S
        assert script.end_time() == pytest.approx(end, abs=1e-5)
        assert max(e["t"] for e in events) <= script.end_time()


def test_a_session_holds_its_run_window_unchanged(sessions):
    runs = read_lab_sweep(str(SWEEP)).runs
    for (_, script, events), run in zip(sessions, runs):
        start = run.press_s - 1.0 + 1e-5
        mine = [e for e in events if e["t"] > start]
        theirs = [e for e in run.events if start < e["t"] <= script.end_time()]
        assert mine == theirs


def test_sessions_agree_up_to_the_earlier_press(sessions):
    # the same game until the earlier run's press: the seams of both (the corpus session,
    # the idle prompt of later runs, the windows) must give the same events there
    for (_, a, ea), (_, _, eb) in zip(sessions, sessions[1:]):
        t = a.actions[-1].t - 1e-5
        assert [e for e in ea if e["t"] < t] == [e for e in eb if e["t"] < t]


def test_a_late_run_sees_the_prompt_idle_and_one_press(sessions):
    # k = 119: nearly two seconds after the corpus session's press, all of it idle
    _, script, events = sessions[119]
    presses = [e["t"] for e in events if e["type"] == "button" and e["action"] == "press"]
    assert presses == pytest.approx([a.t for a in script.actions], abs=1e-5)
    idle = [e for e in events if SWEPT_AT <= e["t"] < script.actions[-1].t]
    assert idle and {e["type"] for e in idle} == {"display"}


def _copy(tmp_path: Path, readme: str | None = None, lines: int = 3) -> Path:
    folder = tmp_path / "move_l2_p1_s102"
    folder.mkdir()
    (folder / "README.md").write_text(readme if readme is not None else
                                      (SWEEP / "README.md").read_text())
    with open(SWEEP / "sweep.jsonl") as f:
        (folder / "sweep.jsonl").write_text("".join(f.readline() for _ in range(lines)))
    return folder


def test_a_readme_without_the_lab_description_is_one_clear_error(tmp_path):
    folder = _copy(tmp_path, readme="# a sweep\n")
    with pytest.raises(SweepError, match=r"README\.md: expected the lab's description"):
        sweep_sessions(str(folder), str(BASE))


def test_a_missing_corpus_session_is_named_with_where_it_was_looked_for(tmp_path):
    folder = _copy(tmp_path)
    with pytest.raises(SweepError, match=r"its corpus session l2_p1_s102 is not at .*corpus"):
        sweep_sessions(str(folder))


def test_a_run_pressed_off_its_frame_is_named(tmp_path):
    folder = _copy(tmp_path)
    recs = [json.loads(line) for line in (folder / "sweep.jsonl").read_text().splitlines()]
    recs[2]["press_s"] += 0.004
    (folder / "sweep.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    with pytest.raises(SweepError, match=r"sweep\.jsonl: run 2 pressed at .* expected"):
        sweep_sessions(str(folder), str(BASE))


def test_a_late_run_without_runs_to_show_the_idle_prompt_is_named(tmp_path):
    folder = _copy(tmp_path, lines=0)
    with open(SWEEP / "sweep.jsonl") as f:
        (folder / "sweep.jsonl").write_text(f.readlines()[119])
    with pytest.raises(SweepError, match=r"no run shows the prompt idling from 31\.050 s"):
        sweep_sessions(str(folder), str(BASE))


def test_a_base_session_without_the_swept_press_is_named(tmp_path):
    base = tmp_path / "l2_p1_s102"
    shutil.copytree(BASE, base)
    text = (base / "script.txt").read_text().splitlines()
    (base / "script.txt").write_text("\n".join(text[:-1]) + "\n")
    with pytest.raises(SweepError, match=r"press number 6 swept, .*script\.txt has 6 presses"):
        sweep_sessions(str(SWEEP), str(base))


def test_the_corpus_session_is_found_by_name_in_a_corpus_folder(tmp_path):
    shutil.copytree(BASE, tmp_path / "l2_p1_s102")
    by_name = sweep_sessions(str(SWEEP), str(tmp_path))
    assert [s[2] for s in by_name] == [s[2] for s in sweep_sessions(str(SWEEP), str(BASE))]


@pytest.mark.parametrize("bad, named", [
    ([{"t": "x"}], r"sweep\.jsonl:1: event 0: 't' must be a number of seconds"),
    ([1, 2], r"sweep\.jsonl:1: event 0: expected a JSON object, got int"),
    ([{"t": 1.0}], r"sweep\.jsonl:1: event 0: unknown event type None"),
])
def test_a_run_whose_events_are_not_events_names_the_line_and_the_event(tmp_path, bad, named):
    (tmp_path / "sweep.jsonl").write_text(
        json.dumps({"offset_frames": 0, "press_s": 1.0, "events": bad}) + "\n")
    with pytest.raises(SweepError, match=named):
        read_sweep_runs(str(tmp_path))


def test_a_run_with_a_negative_offset_is_named(tmp_path):
    (tmp_path / "sweep.jsonl").write_text(
        json.dumps({"offset_frames": -3, "press_s": 1.0, "events": []}) + "\n")
    with pytest.raises(SweepError, match=r"sweep\.jsonl:1: offset_frames -3 must be 0 or more"):
        read_sweep_runs(str(tmp_path))
