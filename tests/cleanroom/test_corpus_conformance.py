"""Every genuine session conforms at the strict check, one test per session.

The sessions: the four shared captures and the 30 corpus sessions copied into tests/data
(every clone has them), and, where the lab's genuine corpus sits beside the checkout
(tests/corpus.py), its other development sessions (tests/cleanroom/corpus_split.py
DEVELOPMENT).  The held-out sessions are measured in tests/cleanroom/test_heldout.py.

Each test replays the session's script on the clean-room game with its random draws resolved
from the recording (``cleanroom.conform.resolve``) and compares every item within one 1/60 s
frame (``STRICT``); a failure names the session and its first difference.  The decisions each
session last conformed with are kept in tests/data/witnesses (rig.conformance): one replay
with them settles a session the game still explains, and the search runs only where it does
not.  Regenerate them after a change of the rules with

    towerlab conform --witnesses tests/data/witnesses --jobs 2 \\
        --reference tests/data/captures/* CORPUS/l*   (CORPUS: tests/corpus.py)

(a stale witness costs time only: the session is resolved from scratch).

A session the game does not explain yet is an expected failure, strict (its test fails the
day it conforms, so the list only shrinks), with the open rule as the reason
(tests/cleanroom/known_differences.py).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from cleanroom.conform import STRICT, load_reference, resolve
from rig.conformance import read_witness, recording_key

from ..corpus import DATA_CORPUS, genuine_corpus
from .corpus_split import DEVELOPMENT
from .known_differences import OPEN

DATA = Path(__file__).resolve().parents[1] / "data"
CAPTURES = DATA / "captures"
WITNESSES = str(DATA / "witnesses")
COPIED = sorted(p.name for p in DATA_CORPUS.iterdir() if (p / "events.jsonl").exists())
_CORPUS = genuine_corpus()
# the development sessions only the lab's corpus has (none where it is absent)
MORE = [n for n in DEVELOPMENT if n not in COPIED] if _CORPUS is not None else []


def _cases(names):
    return [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=OPEN[n]))
            if n in OPEN else n for n in names]


def _check(folder: Path) -> None:
    script, events = load_reference(str(folder))
    pairs = read_witness(WITNESSES, recording_key(script, events))
    result = resolve(script, events, STRICT, witness=pairs)
    assert result.conforms, f"{folder.name}: {result.describe()}"


@pytest.mark.parametrize("name", _cases(sorted(p.name for p in CAPTURES.iterdir()
                                               if p.is_dir())))
def test_the_shared_capture_conforms(name):
    _check(CAPTURES / name)


@pytest.mark.parametrize("name", _cases(COPIED))
def test_the_copied_corpus_session_conforms(name):
    _check(DATA_CORPUS / name)


@pytest.mark.parametrize("name", _cases(MORE))
def test_the_development_session_conforms(name):
    _check(_CORPUS / name)


def test_every_open_difference_names_a_development_session():
    assert set(OPEN) <= set(DEVELOPMENT), sorted(set(OPEN) - set(DEVELOPMENT))
