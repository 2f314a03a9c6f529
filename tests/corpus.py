"""Where the genuine corpus is: the recordings a lab keeps beside a checkout, or a given folder.

``TOWERLAB_CORPUS`` names the corpus folder (one folder per session); else the corpus is found
as a sibling folder of the checkout holding ``captures/corpus/README.md`` (how the lab that
records the genuine tower lays its recordings out next to the repository).  Without either,
the tests fall back on the 30-session copy in tests/data/corpus.
"""
from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA_CORPUS = ROOT / "tests" / "data" / "corpus"

__all__ = ["genuine_corpus", "DATA_CORPUS"]


def genuine_corpus() -> Path | None:
    """Return the whole genuine corpus folder, or None where this machine has none."""
    given = os.environ.get("TOWERLAB_CORPUS")
    if given:
        return Path(given)
    for sibling in sorted(ROOT.parent.iterdir()):
        candidate = sibling / "captures" / "corpus"
        if sibling != ROOT and (candidate / "README.md").is_file():
            return candidate
    return None
