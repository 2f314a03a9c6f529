"""The corpus split: which genuine sessions the clean-room game is developed on, which it is
judged on.

The corpus (found by tests/corpus.py; a copy of its first 30 sessions is in tests/data/corpus)
holds 142 sessions of the genuine tower: 42 with their pin logs and 100
with events and script only.  Before any of the 100 was read, 30 of them were set aside at
random with the fixed seed below (``random.Random(SEED).sample(sorted(EVENTS_ONLY), 30)``;
tests/cleanroom/test_corpus_split.py checks the draw): the clean-room game is developed on the
other 112 (``DEVELOPMENT``) and the held-out 30 are only run to measure it.  No parameter of
cleanroom/params.py may cite a held-out session (checked there too).

``development_folders()`` gives the sessions the statistics and the calibration are computed
over: the 112 development sessions where tests/corpus.py finds the genuine corpus, else the
repository's sample (all development sessions).  ``python -m tests.cleanroom.corpus_split``
prints the 112 folders, for ``towerlab conform --stats`` (cleanroom/evidence.py,
``EVIDENCE_COMMAND``).
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

from ..corpus import DATA_CORPUS, genuine_corpus

__all__ = ["SEED", "WITH_PINS", "EVENTS_ONLY", "HELD_OUT", "DEVELOPMENT", "draw_held_out",
           "development_folders"]

SEED = 20261203
HELD_OUT_COUNT = 30

# the 42 sessions with a pin log (edges.jsonl.gz): all are development sessions
WITH_PINS = (
    "l1_p1_s01", "l1_p1_s25", "l1_p2_s05", "l1_p2_s29", "l1_p3_s09", "l1_p3_s17",
    "l1_p3_s35", "l1_p4_s13", "l1_p4_s21", "l1_p4_s40", "l2_p1_s02", "l2_p1_s26",
    "l2_p1_s34", "l2_p2_s06", "l2_p2_s30", "l2_p2_s33", "l2_p3_s10", "l2_p3_s18",
    "l2_p4_s14", "l2_p4_s22", "l3_p1_s03", "l3_p1_s27", "l3_p1_s37", "l3_p2_s07",
    "l3_p2_s31", "l3_p3_s11", "l3_p3_s19", "l3_p3_s36", "l3_p4_s15", "l3_p4_s23",
    "l4_p1_s04", "l4_p1_s28", "l4_p2_s08", "l4_p2_s32", "l4_p3_s12", "l4_p3_s20",
    "l4_p3_s38", "l4_p4_s16", "l4_p4_s24", "l4_p4_s39", "level1_solo_moves",
    "level1_two_players",
)

# the 100 sessions with events and script only, from which the held-out 30 are drawn
EVENTS_ONLY = (
    "l1_p1_s101", "l1_p1_s117", "l1_p1_s133", "l1_p1_s149", "l1_p1_s165", "l1_p1_s181",
    "l1_p1_s197", "l1_p2_s105", "l1_p2_s121", "l1_p2_s137", "l1_p2_s153", "l1_p2_s169",
    "l1_p2_s185", "l1_p3_s109", "l1_p3_s125", "l1_p3_s141", "l1_p3_s157", "l1_p3_s173",
    "l1_p3_s189", "l1_p4_s113", "l1_p4_s129", "l1_p4_s145", "l1_p4_s161", "l1_p4_s177",
    "l1_p4_s193", "l2_p1_s102", "l2_p1_s118", "l2_p1_s134", "l2_p1_s150", "l2_p1_s166",
    "l2_p1_s182", "l2_p1_s198", "l2_p2_s106", "l2_p2_s122", "l2_p2_s138", "l2_p2_s154",
    "l2_p2_s170", "l2_p2_s186", "l2_p3_s110", "l2_p3_s126", "l2_p3_s142", "l2_p3_s158",
    "l2_p3_s174", "l2_p3_s190", "l2_p4_s114", "l2_p4_s130", "l2_p4_s146", "l2_p4_s162",
    "l2_p4_s178", "l2_p4_s194", "l3_p1_s103", "l3_p1_s119", "l3_p1_s135", "l3_p1_s151",
    "l3_p1_s167", "l3_p1_s183", "l3_p1_s199", "l3_p2_s107", "l3_p2_s123", "l3_p2_s139",
    "l3_p2_s155", "l3_p2_s171", "l3_p2_s187", "l3_p3_s111", "l3_p3_s127", "l3_p3_s143",
    "l3_p3_s159", "l3_p3_s175", "l3_p3_s191", "l3_p4_s115", "l3_p4_s131", "l3_p4_s147",
    "l3_p4_s163", "l3_p4_s179", "l3_p4_s195", "l4_p1_s104", "l4_p1_s120", "l4_p1_s136",
    "l4_p1_s152", "l4_p1_s168", "l4_p1_s184", "l4_p1_s200", "l4_p2_s108", "l4_p2_s124",
    "l4_p2_s140", "l4_p2_s156", "l4_p2_s172", "l4_p2_s188", "l4_p3_s112", "l4_p3_s128",
    "l4_p3_s144", "l4_p3_s160", "l4_p3_s176", "l4_p3_s192", "l4_p4_s116", "l4_p4_s132",
    "l4_p4_s148", "l4_p4_s164", "l4_p4_s180", "l4_p4_s196",
)

HELD_OUT = (
    "l1_p1_s165", "l1_p1_s181", "l1_p2_s153", "l1_p2_s169", "l1_p3_s157", "l1_p4_s113",
    "l1_p4_s161", "l2_p2_s138", "l2_p3_s126", "l2_p4_s146", "l3_p1_s103", "l3_p1_s167",
    "l3_p1_s199", "l3_p2_s139", "l3_p3_s159", "l3_p3_s175", "l3_p3_s191", "l3_p4_s115",
    "l3_p4_s147", "l3_p4_s195", "l4_p1_s184", "l4_p1_s200", "l4_p2_s156", "l4_p2_s172",
    "l4_p3_s144", "l4_p4_s116", "l4_p4_s132", "l4_p4_s148", "l4_p4_s164", "l4_p4_s196",
)

DEVELOPMENT = tuple(sorted(set(WITH_PINS) | set(EVENTS_ONLY) - set(HELD_OUT)))


def draw_held_out(names=EVENTS_ONLY, seed: int = SEED, count: int = HELD_OUT_COUNT) -> tuple:
    """Return the held-out sessions drawn from ``names`` with ``seed``, sorted."""
    return tuple(sorted(random.Random(seed).sample(sorted(names), count)))


def development_folders() -> list[Path]:
    """Return the folders of the development sessions to compute over: the 112 of the genuine
    corpus where this machine has it (tests/corpus.py), else those of the repository's
    sample; never a held-out one."""
    corpus = genuine_corpus()
    if corpus is not None:
        return [corpus / name for name in DEVELOPMENT]
    return sorted(p for p in DATA_CORPUS.iterdir()
                  if p.name in DEVELOPMENT and (p / "events.jsonl").exists())


if __name__ == "__main__":
    if genuine_corpus() is None:
        print(f"no genuine corpus on this machine (expected the {len(DEVELOPMENT) + len(HELD_OUT)} "
              f"sessions where tests/corpus.py looks: TOWERLAB_CORPUS, or a sibling folder of "
              f"the checkout holding captures/corpus)", file=sys.stderr)
        sys.exit(2)
    print(" ".join(str(p) for p in development_folders()))
