"""Every genuine corpus session, pin for pin (tests/data/corpus, 30 MAME 0.251 runs of MP7332).

Board replay: a DarkTowerBoard without a chip, driven with the session's recorded R pins and
its script's keys, gives the recorded K1 K2 K4 K8 and SENSOR edges to the cycle and the
recorded button events. Decoding: the stacked decoders turn the session's edges.jsonl.gz into
its events.jsonl exactly (display, lamp, motor, reel, tone: whole events, every field of
both, in order). Edge logs are streamed, never held whole.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from analysis.decode import decode
from captures.events import read_events
from captures.formats import open_capture
from captures.script import read_script
from emulator.darktower import DarkTowerBoard
from tests.analysis.capload import as_recorded, without_script_time

from .capdata import board_edges

CORPUS = Path(__file__).resolve().parent.parent / "data" / "corpus"
SESSIONS = sorted(p.name for p in CORPUS.iterdir() if (p / "edges.jsonl.gz").exists())
K_CHANNELS = ("K1", "K2", "K4", "K8", "SENSOR")
DECODED = ("display", "lamp", "motor", "reel", "tone")


def test_the_corpus_has_its_30_sessions():
    assert len(SESSIONS) == 30


def replay(name: str) -> tuple[DarkTowerBoard, dict[str, list[tuple[int, int]]]]:
    """Stream session ``name``'s edges into a chip-less board (R pins, script keys); return the
    board and the recorded K/SENSOR edges after cycle 0."""
    board = DarkTowerBoard(None, 425_000)
    board.schedule(read_script(str(CORPUS / name / "script.txt")))
    recorded: dict[str, list[tuple[int, int]]] = {ch: [] for ch in K_CHANNELS}
    r, pending = 0, None
    with gzip.open(CORPUS / name / "edges.jsonl.gz", "rt", encoding="utf-8") as f:
        header = json.loads(f.readline())
        assert header["clock_hz"] == 425_000
        for line in f:
            cycle, signal, value = json.loads(line)
            if pending is not None and cycle != pending:
                board.write_r(pending, r)           # once every R edge of the cycle is in
                pending = None
            if signal[0] == "R":
                bit = 1 << int(signal[1:])
                r = r | bit if value else r & ~bit
                pending = cycle
            elif signal in recorded and cycle > 0:
                recorded[signal].append((cycle, value))
    if pending is not None:
        board.write_r(pending, r)
    board.advance_to(header["end_cycle"])
    return board, recorded


def first_difference(ours: list, theirs: list) -> str:
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a != b:
            return f"edge {i}: ours {a}, recorded {b}"
    return f"ours has {len(ours)} edges, the recording {len(theirs)}"


@pytest.mark.parametrize("name", SESSIONS)
def test_board_replay_gives_the_recorded_k_and_sensor_edges_to_the_cycle(name):
    board, recorded = replay(name)
    for channel in K_CHANNELS:
        ours = board_edges(board, channel)
        assert ours == recorded[channel], \
            f"{name} {channel}: {first_difference(ours, recorded[channel])}"
    assert len(recorded["SENSOR"]) > 50 and len(recorded["K2"]) > 10
    ours = [e for e in board.events if e["type"] == "button"]
    theirs = [without_script_time(e)
              for e in read_events(str(CORPUS / name / "events.jsonl")) if e["type"] == "button"]
    assert ours == theirs


@pytest.mark.parametrize("name", SESSIONS)
def test_decoding_the_edges_gives_the_sessions_events_exactly(name):
    got = [e for e in decode(open_capture(CORPUS / name / "edges.jsonl.gz"))
           if e["type"] in DECODED]
    want = [e for e in read_events(str(CORPUS / name / "events.jsonl")) if e["type"] in DECODED]
    assert {e["type"] for e in want} == set(DECODED)
    for i, (a, b) in enumerate(zip(got, want)):
        assert as_recorded(a) == b, f"{name}: event {i}: decoded {a}, file {b}"
    assert len(got) == len(want), f"{name}: {len(got)} events decoded, {len(want)} in the file"
