"""Every run of the lab's timing sweeps conforms at the strict check, made a whole session
from power-on (captures.sweep): the genuine tower's answer to one key pressed at 120
successive frames, none of which set a rule or a parameter (cleanroom/params.py cites corpus
sessions only).  A clone checks ten runs of the copy in tests/data/sweeps, one of each
outcome and the runs about the seams; where the lab's sweeps sit beside the checkout
(tests/corpus.py), all 480 runs of the four, one test each.  As for the corpus
(tests/cleanroom/test_corpus_conformance.py), the decisions each run last conformed with are
kept, in tests/data/witnesses/sweeps: one replay with them settles a run the game still
explains.  Regenerate them after a change of the rules with

    towerlab conform --witnesses tests/data/witnesses/sweeps --jobs 2 \
        --reference SWEEPS           (SWEEPS: experiments/sweeps beside the lab's corpus)
"""
from __future__ import annotations

import functools
import io
import json
from pathlib import Path

import pytest

from captures.sweep import sweep_sessions
from cleanroom.conform import STRICT, resolve
from rig.conformance import read_witness, recording_key
from towerlab.cli import main

from ..corpus import genuine_corpus

DATA = Path(__file__).resolve().parents[1] / "data" / "sweeps"
SWEEP, BASE = DATA / "move_l2_p1_s102", DATA / "l2_p1_s102"
WITNESSES = str(Path(__file__).resolve().parents[1] / "data" / "witnesses" / "sweeps")
# a dragon (k 0), brigands (2), lost (3), plague (5), a quiet move (6); the seams: the last
# run whose window begins before the corpus session's press (59), the first two after (60,
# 61), the run furthest from it (119)
SAMPLE = (0, 2, 3, 5, 6, 59, 60, 61, 68, 119)
_CORPUS = genuine_corpus()
LAB = _CORPUS.parent / "experiments" / "sweeps" if _CORPUS is not None else None
LAB_SWEEPS = sorted(p.name for p in LAB.iterdir() if (p / "sweep.jsonl").is_file()) \
    if LAB is not None and LAB.is_dir() else []


@functools.lru_cache(maxsize=None)
def _lab_sessions(sweep: str) -> list:
    return sweep_sessions(str(LAB / sweep))


@pytest.fixture(scope="module")
def data_sessions():
    return sweep_sessions(str(SWEEP), str(BASE))


def _check(label, script, events) -> None:
    pairs = read_witness(WITNESSES, recording_key(script, events))
    result = resolve(script, events, STRICT, witness=pairs)
    assert result.conforms, f"{label}: {result.describe()}"


@pytest.mark.parametrize("k", SAMPLE)
def test_the_data_sweep_run_conforms(data_sessions, k):
    _check(*data_sessions[k])


@pytest.mark.parametrize("k", range(120))
@pytest.mark.parametrize("sweep", LAB_SWEEPS)
def test_the_lab_sweep_run_conforms(sweep, k):
    _check(*_lab_sessions(sweep)[k])


def test_conform_takes_a_sweep_as_a_session_per_run(tmp_path):
    folder = tmp_path / SWEEP.name
    folder.mkdir()
    (folder / "README.md").write_text((SWEEP / "README.md").read_text())
    lines = (SWEEP / "sweep.jsonl").read_text().splitlines()
    (folder / "sweep.jsonl").write_text("".join(lines[k] + "\n" for k in (0, 60, 119)))
    out = io.StringIO()
    code = main(["conform", "--no-witnesses", "--reference", str(folder), "--sweep-base",
                 str(BASE)], out)
    text = out.getvalue()
    assert code == 0 and "total: 3 of 3 sessions conform" in text
    assert f"{folder}#k060: conforms" in text


def test_conform_names_a_sweep_without_its_corpus_session(tmp_path, capsys):
    folder = tmp_path / SWEEP.name
    folder.mkdir()
    (folder / "README.md").write_text((SWEEP / "README.md").read_text())
    (folder / "sweep.jsonl").write_text(json.dumps({"offset_frames": 0, "press_s": 31.05,
                                                    "events": []}) + "\n")
    code = main(["conform", "--no-witnesses", "--reference", str(folder)], io.StringIO())
    err = capsys.readouterr().err
    assert code == 2 and "its corpus session l2_p1_s102 is not at" in err
    assert err.count("\n") == 1


def test_conform_takes_one_run_by_the_label_its_report_gives(tmp_path):
    out = io.StringIO()
    code = main(["conform", "--no-witnesses", "--reference", f"{SWEEP}#k003", "--sweep-base",
                 str(BASE)], out)
    assert code == 0 and out.getvalue().count("conforms") == 1
    assert f"{SWEEP}#k003: conforms" in out.getvalue()


def test_conform_names_a_run_the_sweep_does_not_have(capsys):
    code = main(["conform", "--reference", f"{SWEEP}#k120", "--sweep-base", str(BASE)],
                io.StringIO())
    err = capsys.readouterr().err
    assert code == 2 and "has no run 'k120' (expected k000 to k119)" in err
