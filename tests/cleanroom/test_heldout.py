"""Held out: check the game on 10 genuine sessions of the sample, every level and player count.

The calibration (every chosen value of cleanroom.params in its interval over the development
sessions, cleanroom.stats) is tests/cleanroom/test_stats.py's.  Conformance is ``resolve``
on these 10 sessions; the counts (sessions conforming, items matched before each first
difference, items predicted by the rules vs decided by a random choice) are printed
(``pytest -s`` or ``-rA`` shows them).

Every held-out session conforms at the timing criterion (event times within 1/60 s + 1 % of
the time since the last key, ``STRICT``, ``towerlab conform``'s default) and at the older,
looser 50 ms (``Tolerance()``): ``REACHED`` and ``REACHED_STRICT`` are all ten sessions and
every item; the test fails on fewer sessions conforming or fewer items matched.
"""
from __future__ import annotations

from pathlib import Path

from cleanroom.conform import Tolerance, load_reference, resolve

from .util import STRICT

CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus"

HELD_OUT = (
    "l1_p2_s05", "l1_p3_s35", "l1_p4_s40", "l2_p1_s26", "l2_p4_s22",
    "l3_p1_s37", "l3_p3_s19", "l4_p2_s32", "l4_p3_s38", "l4_p4_s16",
)


def test_the_ten_are_sessions_of_the_sample_at_every_level():
    corpus = {p.name for p in CORPUS.iterdir() if (p / "events.jsonl").exists()}
    assert len(set(HELD_OUT)) == 10 and set(HELD_OUT) <= corpus
    assert {n[:2] for n in HELD_OUT} == {"l1", "l2", "l3", "l4"}


REACHED = {"sessions": 10, "items": 13485}
REACHED_STRICT = {"sessions": 10, "items": 13485}


def test_the_game_keeps_what_it_reaches_on_the_held_out_sessions():
    _held_out(Tolerance(), REACHED, "50 ms")


def test_the_game_keeps_what_it_reaches_on_the_held_out_sessions_at_the_timing_criterion():
    _held_out(STRICT, REACHED_STRICT, "1/60 s + 1 %")


def _held_out(tol: Tolerance | None, reached: dict, label: str) -> None:
    lines = []
    conforming = matched = total = rule = random_ = 0
    for name in HELD_OUT:
        script, events = load_reference(str(CORPUS / name))
        result = resolve(script, events, tol)
        conforming += result.conforms
        matched += result.matched
        total += result.total
        rule += result.rule_items or 0
        random_ += result.random_items or 0
        where = "conforms" if result.conforms else \
            f"first difference at {result.diff_time:.3f} s"
        lines.append(f"  {name}: {where}; {result.counts()}")
    summary = (f"held out, at {label}: {conforming} of {len(HELD_OUT)} sessions conform; "
               f"{matched} of "
               f"{total} items matched: {rule} predicted by rules, {random_} decided by "
               f"random choices\n" + "\n".join(lines))
    print("\n" + summary)
    assert conforming >= reached["sessions"] and matched >= reached["items"], summary
