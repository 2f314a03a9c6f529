"""Load the shared reference captures for the analysis tests (through captures.formats)."""
from __future__ import annotations

from pathlib import Path

from captures.events import read_events
from captures.formats import open_capture
from captures.model import Capture

CAPTURES = Path(__file__).resolve().parent.parent / "data" / "captures"
NAMES = sorted(p.name for p in CAPTURES.iterdir() if (p / "events.jsonl").exists())


def load(name: str, kind: str = "edges") -> Capture:
    """Return capture ``name`` from its edges.jsonl.gz (``kind="edges"``) or capture.sr."""
    return open_capture(CAPTURES / name / ("edges.jsonl.gz" if kind == "edges" else "capture.sr"))


def truth(name: str) -> list[dict]:
    """Return the reference events of capture ``name``."""
    return read_events(str(CAPTURES / name / "events.jsonl"))
