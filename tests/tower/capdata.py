"""Read the shared reference captures' lossless edges for the tower tests, and a board's own
pin record the same way (test helper)."""
from __future__ import annotations

import gzip
import json
from functools import lru_cache
from pathlib import Path

CAPTURES = Path(__file__).resolve().parent.parent / "data" / "captures"
NAMES = sorted(p.name for p in CAPTURES.iterdir() if (p / "edges.jsonl.gz").exists())


@lru_cache(maxsize=None)
def edges(name: str) -> tuple[dict, tuple]:
    """Return (header, ((cycle, signal, value), ...)) of capture ``name``'s edges.jsonl.gz."""
    with gzip.open(CAPTURES / name / "edges.jsonl.gz", "rt", encoding="utf-8") as f:
        header = json.loads(f.readline())
        return header, tuple(tuple(json.loads(line)) for line in f if line.strip())


def channel_edges(name: str, channel: str) -> list[tuple[int, int]]:
    """Return the (cycle, level) changes of one channel after cycle 0."""
    return [(c, v) for c, s, v in edges(name)[1] if s == channel and c > 0]


def events(name: str) -> list[dict]:
    """Return the capture's events.jsonl."""
    from captures.events import read_events

    return read_events(str(CAPTURES / name / "events.jsonl"))


def board_edges(board, channel: str) -> list[tuple[int, int]]:
    """Return the (cycle, level) changes of one channel of a DarkTowerBoard's pin record."""
    from captures.model import DARKTOWER_CHANNELS

    mask = 1 << DARKTOWER_CHANNELS.index(channel)
    out, prev = [], 0
    for cycle, word in board.pins:
        level = int(bool(word & mask))
        if level != prev:
            out.append((cycle, level))
            prev = level
    return out
