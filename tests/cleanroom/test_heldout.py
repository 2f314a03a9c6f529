"""Held out: the 30 genuine sessions the clean-room game was never developed on conform.

The split is tests/cleanroom/corpus_split.py (30 of the 100 sessions without pins, drawn with a
fixed seed before any was read).  These sessions set no parameter and are only run here, to
measure the game: one test per session, resolved from scratch (no witness), at the strict
check (every item within one 1/60 s frame, ``cleanroom.conform.STRICT``).  They are in the
lab's corpus beside the checkout (tests/corpus.py) and not in tests/data: a clone without the
corpus collects none of them.

The first measurement (2026-12-04, the game as of commit 4a0a85e): 24 of the 30 conformed;
after the rules found on the development sessions that day (the curse offer's loop with one
other player, a prompt's text one pass before its first scan, the frontier's end signal at
level 4): 25; with the starving force's last meal and the bazaar's timings: 26; with the
ranges of the durations the hidden state decides measured again over the development
sessions: 27; with the turn change's duration the hidden state decides: 28; with the
resolver's last resorts where it stops (every duration measured again, the decisions of the
two minutes before settled again; made for explore sessions of the clean-room game): 29;
with the victory's score counting turns and warriors alike (2026-12-06, commit ebd1b79: a
choice among the forms the development sessions' 8 victories allow, made on them before this
measurement): 30.  A session that does not conform is listed in ``NOT_YET`` as an expected
failure, strict: its test fails the day it conforms, so that the list can only shrink.  A
failure message names the session only; what differs is not read here (the game is not
developed on these sessions).
"""
from __future__ import annotations

import pytest

from cleanroom.conform import STRICT, load_reference, resolve

from ..corpus import genuine_corpus
from .corpus_split import HELD_OUT

_CORPUS = genuine_corpus()
# did not conform at the first measurement: l4_p2_s172, l4_p4_s116, l3_p3_s175, l3_p4_s195,
# l1_p1_s181 and l4_p1_s184; they conform since
NOT_YET: set[str] = set()


def _cases():
    if _CORPUS is None:
        return []
    return [pytest.param(n, marks=pytest.mark.xfail(
        strict=True, reason="does not conform yet"))
            if n in NOT_YET else n for n in HELD_OUT]


@pytest.mark.parametrize("name", _cases())
def test_the_held_out_session_conforms(name):
    script, events = load_reference(str(_CORPUS / name))
    result = resolve(script, events, STRICT)
    assert result.conforms, f"{name}: does not conform"


def test_the_expected_failures_are_held_out_sessions():
    assert NOT_YET <= set(HELD_OUT)
