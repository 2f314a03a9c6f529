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


def as_recorded(ev: dict) -> dict:
    """Return a decoded event as the recordings' events files hold it: whole, every key, but
    for the mark of the power-on reel position the decoder assumes (``"source": "assumed"``;
    MAME's reel starts there too, and the files say nothing of it) and a tone's note and
    cents, which the files leave out and which must be those of its frequency (to a cent,
    the frequency being rounded to 0.1 Hz)."""
    from analysis.speaker import note_name

    if ev["type"] == "reel" and ev.get("source") == "assumed":
        return {k: v for k, v in ev.items() if k != "source"}
    if ev["type"] == "tone" and "note" in ev:
        note, cents = note_name(ev["freq_hz"])
        assert ev["note"] == note and abs(ev["cents"] - cents) <= 1, ev
        return {k: v for k, v in ev.items() if k not in ("note", "cents")}
    return ev


def without_script_time(ev: dict) -> dict:
    """Return a recorded event without ``t_script``, the script time a recorder notes beside
    a button event's frame time (not something a decoder or board can know)."""
    return {k: v for k, v in ev.items() if k != "t_script"}
