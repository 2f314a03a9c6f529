"""Decoding every shared reference capture gives that capture's events.jsonl.

Regression tests against ground truth (shared captures, genuine firmware in MAME 0.251), whole
events (every key of both, as tests.analysis.capload.as_recorded puts a decoded event): display
events identical and in order, t within one 1/60 s window; lamps and motor within 1 ms; tones
within 1 % in frequency and 1 ms in start (identical from the lossless edges); reel events
identical, t within one frame
(MAME reports card_pos at the next 1/60 s frame); decoded key presses within one keypad scan
(26 ms) after the script's press. Both the lossless edges (425 kHz) and the 250 kHz sigrok
session are decoded.
"""
from __future__ import annotations

import pytest

from tests.analysis.capload import NAMES, as_recorded, truth
from tests.analysis.conftest import decoded

WINDOW = 1 / 60
CASES = [(n, k) for n in NAMES for k in ("edges", "sr")]


def _of(events, kind):
    return [e for e in events if e["type"] == kind and e.get("source") != "keypad"]


def _but_t(events, *keys):
    """Return the events whole (as recorded), but for ``t`` and ``keys``, checked apart."""
    return [{k: v for k, v in as_recorded(e).items() if k not in ("t",) + keys} for e in events]


@pytest.mark.parametrize("name,kind", CASES)
def test_display_texts_match_in_order_within_one_window(name, kind):
    got, want = _of(decoded(name, kind), "display"), _of(truth(name), "display")
    assert _but_t(got) == _but_t(want)
    assert max(abs(a["t"] - b["t"]) for a, b in zip(got, want)) <= WINDOW + 1e-6


@pytest.mark.parametrize("name,kind", CASES)
@pytest.mark.parametrize("event", ["lamp", "motor"])
def test_lamp_and_motor_changes_match_within_1ms(name, kind, event):
    got, want = _of(decoded(name, kind), event), _of(truth(name), event)
    assert _but_t(got) == _but_t(want)
    assert all(abs(a["t"] - b["t"]) <= 0.001 for a, b in zip(got, want))


@pytest.mark.parametrize("name,kind", CASES)
def test_tones_match_within_1_percent_and_1ms(name, kind):
    got, want = _of(decoded(name, kind), "tone"), _of(truth(name), "tone")
    # (pulses and duration: a 250 kHz sample may see one rise more or less at a tone's end)
    loose = ("freq_hz", "dur_s", "pulses")
    assert _but_t(got, *loose) == _but_t(want, *loose)
    for a, b in zip(got, want):
        assert abs(a["pulses"] - b["pulses"]) <= 1, (a, b)
        assert abs(a["t"] - b["t"]) <= 0.001, (a, b)
        assert (a["freq_hz"] is None) == (b["freq_hz"] is None), (a, b)
        if b["freq_hz"] is not None:
            assert abs(a["freq_hz"] - b["freq_hz"]) <= 0.01 * b["freq_hz"], (a, b)


@pytest.mark.parametrize("name", NAMES)
def test_tones_from_lossless_edges_are_exact(name):
    got = [as_recorded(e) for e in _of(decoded(name), "tone")]
    assert got == _of(truth(name), "tone")


@pytest.mark.parametrize("name,kind", CASES)
def test_reel_positions_match_within_one_frame(name, kind):
    got, want = _of(decoded(name, kind), "reel"), _of(truth(name), "reel")
    assert _but_t(got) == _but_t(want)
    assert all(0 <= b["t"] - a["t"] <= WINDOW + 0.001 for a, b in zip(got, want))


@pytest.mark.parametrize("name,kind", CASES)
def test_keypad_presses_follow_script_presses_within_one_scan(name, kind):
    got = [e for e in decoded(name, kind) if e.get("source") == "keypad"
           and e["action"] == "press"]
    want = [e for e in truth(name) if e["type"] == "button" and e["action"] == "press"]
    assert [e["button"] for e in got] == [e["button"] for e in want]
    assert all(0 <= a["t"] - b["t"] <= 0.026 for a, b in zip(got, want))


@pytest.mark.parametrize("name", NAMES)
def test_decoded_events_are_in_time_order_and_valid(name):
    from captures.events import validate_event
    events = decoded(name)
    assert [e["t"] for e in events] == sorted(e["t"] for e in events)
    for e in events:
        validate_event(e)
