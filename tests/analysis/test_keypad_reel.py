"""Keypad scan and reel position decoders."""
from __future__ import annotations

import pytest

from analysis.base import AnalysisError
from analysis.keypad import KeypadDecoder
from analysis.reel import ReelDecoder
from captures.model import DARKTOWER_CHANNELS, MemoryCapture
from tests.analysis.synth import capture, run

RATE = 100_000.0


def strobes(start, count, period=2500, keys=()):
    """Return column strobes R2, R1, R0 every ``period``; ``keys`` = (column, K line) held."""
    edges = []
    for k in range(count):
        t = start + k * period
        for c, col in enumerate(("R2", "R1", "R0")):
            s = t + c * 100
            edges += [(s, col, 1), (s + 10, col, 0)]
            for kcol, kline in keys:
                if kcol == col:
                    edges += [(s, kline, 1), (s + 10, kline, 0)]
    return edges


def test_a_key_seen_in_its_column_strobe_is_pressed_then_released():
    edges = strobes(0, 2) + strobes(5000, 2, keys=[("R2", "K2")]) + strobes(10_000, 2)
    events = run(KeypadDecoder, capture(edges, 20_000, RATE))
    assert [(e["t"], e["button"], e["action"]) for e in events] == [
        (0.05, "YES/BUY", "press"), (0.1, "YES/BUY", "release")]


def test_a_release_carries_the_edge_where_the_key_was_last_seen_down():
    # pressed during the strobes at 5000 and 7500; the column is not scanned again until
    # 15000: the release is judged there, its edge is the end of the strobe at 7500
    edges = strobes(5000, 2, keys=[("R2", "K2")]) + strobes(15_000, 1)
    release = run(KeypadDecoder, capture(edges, 20_000, RATE))[-1]
    assert (release["t"], release["action"], release["down_until"]) == (0.15, "release",
                                                                        0.0751)


@pytest.mark.parametrize("col,line,button", [("R0", "K1", "INVENTORY"), ("R1", "K8", "MOVE"),
                                             ("R2", "K4", "HAGGLE"), ("R0", "K2", "NO/END")])
def test_the_key_matrix_follows_the_mame_driver(col, line, button):
    events = run(KeypadDecoder, capture(strobes(0, 1, keys=[(col, line)]), 5000, RATE))
    assert [e["button"] for e in events] == [button]


def test_k8_keys_are_not_decided_while_the_reel_sensor_is_lit():
    edges = [(0, "SENSOR", 1), (0, "K8", 1)] + strobes(0, 1)
    assert run(KeypadDecoder, capture(edges, 5000, RATE)) == []


def test_reel_assumes_mames_power_on_position_and_says_so(tower_test_events):
    first = next(e for e in tower_test_events if e["type"] == "reel")
    # Published at the first 1/60 s frame, as MAME's frame-polled card_pos output.
    assert first == {"t": 0.016667, "type": "reel", "card_pos": 0, "source": "assumed"}


def test_reel_without_a_start_position_is_found_from_the_big_hole(tower_test):
    events = [e for e in run(ReelDecoder, tower_test, start_pos=None)]
    # The tower test turns one full turn and stops after the big hole: card 7.
    # It leaves the big hole at 6.534 s; the card is published at the next frame.
    assert [(e["t"], e["card_pos"]) for e in events] == [(6.55, 7)]


def test_reel_reads_the_sensor_from_k8_when_sensor_is_not_captured(tower_test):
    chans = [c for c in DARKTOWER_CHANNELS if c != "SENSOR"]
    mem = tower_test.to_memory()
    keep = [DARKTOWER_CHANNELS.index(c) for c in chans]
    edges = [(t, n, v) for t, n, v in mem.edges() if n != "SENSOR"]
    cap = MemoryCapture.from_edges(chans, mem.info.samplerate, edges, mem.info.total_samples)
    assert len(keep) == 23
    assert run(ReelDecoder, cap) == run(ReelDecoder, tower_test)


def test_reel_needs_a_sensor_channel():
    cap = capture([], 100, RATE, channels=("R9", "R8", "R4"))
    with pytest.raises(AnalysisError, match="SENSOR' or 'K8"):
        ReelDecoder(cap.info)
