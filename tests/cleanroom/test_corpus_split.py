"""The corpus split (tests/cleanroom/corpus_split.py): drawn with its fixed seed, disjoint, and
held out of everything that sets the game's parameters."""
from __future__ import annotations

import re
from pathlib import Path

from .corpus_split import (DEVELOPMENT, EVENTS_ONLY, HELD_OUT, SEED, WITH_PINS,
                           draw_held_out)

from ..corpus import genuine_corpus

ROOT = Path(__file__).resolve().parents[2]


def test_the_held_out_sessions_are_the_seeded_draw_of_30_from_the_100_without_pins():
    assert len(EVENTS_ONLY) == 100 and len(HELD_OUT) == 30
    assert draw_held_out(EVENTS_ONLY, SEED) == HELD_OUT


def test_the_split_covers_the_142_sessions_once():
    assert len(WITH_PINS) == 42
    assert not set(WITH_PINS) & set(EVENTS_ONLY)
    assert not set(DEVELOPMENT) & set(HELD_OUT)
    assert len(DEVELOPMENT) + len(HELD_OUT) == 142


def test_the_held_out_sessions_span_every_level_and_player_count():
    assert {n[:2] for n in HELD_OUT} == {"l1", "l2", "l3", "l4"}
    assert {n[3:5] for n in HELD_OUT} == {"p1", "p2", "p3", "p4"}


def test_no_source_outside_the_tests_names_a_held_out_session():
    pattern = re.compile("|".join(re.escape(n) for n in HELD_OUT))
    cited = []
    for folder in ("cleanroom", "captures", "analysis", "emulator", "rig", "towerlab", "docs"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".py", ".md", ".txt") and pattern.search(path.read_text()):
                cited.append(str(path.relative_to(ROOT)))
    assert not cited, f"held-out sessions cited in {cited}"


def test_the_genuine_corpus_is_the_split_where_it_is_present():
    corpus = genuine_corpus()
    if corpus is None:
        return      # a clone without the lab's recordings: the names above are the record
    names = {p.name for p in corpus.iterdir() if (p / "events.jsonl").exists()}
    assert names == set(DEVELOPMENT) | set(HELD_OUT)
    pins = {n for n in names if (corpus / n / "edges.jsonl.gz").exists()}
    assert pins == set(WITH_PINS)
