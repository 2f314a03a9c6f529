"""Comparison of event sequences: alignment, clock ratio, first difference, clock estimate."""
from __future__ import annotations

import copy

import pytest

from analysis.base import AnalysisError
from analysis.compare import (compare_events, estimate_clock, event_tolerance,
                              fit_clock_ratio, format_comparison)


def scaled(events, factor):
    """Return events as recorded on a clock 1/factor as fast (times x factor)."""
    out = copy.deepcopy(events)
    for e in out:
        e["t"] = round(e["t"] * factor, 6)
        if e["type"] == "tone" and e["freq_hz"]:
            e["freq_hz"] = e["freq_hz"] / factor
    return out


def test_decoded_events_are_equivalent_to_the_reference(tower_test_truth, tower_test_events):
    c = compare_events(tower_test_truth, tower_test_events)
    assert c.equivalent and abs(c.ratio - 1) < 1e-4
    assert format_comparison(c).startswith("equivalent within tolerance (clock ratio 1.0000")


def test_a_slower_clock_is_found_as_the_clock_ratio(tower_test_truth, tower_test_events):
    c = compare_events(tower_test_truth, scaled(tower_test_events, 1.05))
    assert c.equivalent
    assert abs(c.ratio - 1 / 1.05) < 2e-4


def test_a_missing_event_is_the_first_difference_with_time_and_both_sides(tower_test_truth,
                                                                          tower_test_events):
    b = [e for e in tower_test_events if not (e["type"] == "lamp" and e["lamp"] == "middle")]
    c = compare_events(tower_test_truth, b)
    d = c.difference
    assert d.kind == "only in A" and d.a["lamp"] == "middle" and d.a["on"] == 1
    assert abs(d.t - 8.132489) < 1e-6
    text = format_comparison(c, "ref", "rec")
    assert "first difference at t=8.132489 s" in text and "context rec:" in text


def test_a_late_event_beyond_tolerance_is_reported_as_a_time_difference(tower_test_truth):
    b = copy.deepcopy(tower_test_truth)
    motor_on = next(e for e in b if e["type"] == "motor")
    motor_on["t"] += 0.002
    c = compare_events(tower_test_truth, b, ratio=1.0, offset=0.0)
    assert c.difference.kind == "time" and c.difference.a["type"] == "motor"


def test_tolerances_are_settable(tower_test_truth):
    b = copy.deepcopy(tower_test_truth)
    next(e for e in b if e["type"] == "motor")["t"] += 0.002
    tol = event_tolerance()
    tol.time_s["motor"] = 0.005
    assert compare_events(tower_test_truth, b, tol, ratio=1.0, offset=0.0).equivalent


def test_a_tone_frequency_off_by_more_than_1_percent_is_a_difference(tower_test_truth):
    b = copy.deepcopy(tower_test_truth)
    tone = next(e for e in b if e["type"] == "tone")
    tone["freq_hz"] *= 1.02
    c = compare_events(tower_test_truth, b, ratio=1.0, offset=0.0)
    assert c.difference.kind == "frequency"


def test_a_changed_display_text_is_reported(tower_test_truth):
    b = copy.deepcopy(tower_test_truth)
    next(e for e in b if e["type"] == "display" and e["text"] == "88")["text"] = "89"
    c = compare_events(tower_test_truth, b)
    assert c.difference.kind == "different" and c.difference.b["text"] == "89"


def test_the_least_squares_fit_recovers_ratio_and_offset():
    pairs = [(1.02 * t + 0.5, t) for t in (1.0, 2.0, 5.0, 9.0)]
    ratio, offset = fit_clock_ratio(pairs)
    assert ratio == pytest.approx(1.02) and offset == pytest.approx(0.5)


def test_clock_is_estimated_from_tone_periods(tower_test_truth):
    est = estimate_clock(scaled(tower_test_truth, 425 / 400))
    assert est.clock_hz == pytest.approx(400_000, rel=2e-3)
    assert est.tones_used == 4


def test_clock_estimate_needs_known_tones():
    with pytest.raises(AnalysisError, match="no tone matches"):
        estimate_clock([{"t": 0.0, "type": "tone", "freq_hz": 1000.0, "dur_s": 0.1,
                         "pulses": 3}])


def test_clock_fit_outside_a_plausible_range_falls_back_to_the_same_clock():
    from analysis.compare import fit_clock_ratio

    # Unrelated events paired by accident: the raw fit would be negative.
    ratio, offset = fit_clock_ratio([(1.0, 5.0), (2.0, 4.0), (3.0, 3.0), (4.0, 2.0)])
    assert (ratio, offset) == (1.0, 0.0)


def test_a_frequency_difference_shows_the_other_tone_on_this_clock():
    from analysis.compare import compare_events, format_comparison

    a = [{"t": 1.0, "type": "tone", "freq_hz": 431.9, "dur_s": 0.0046, "pulses": 2}]
    b = [{"t": 1.0, "type": "tone", "freq_hz": 431.9, "dur_s": 0.0046, "pulses": 2}]
    report = format_comparison(compare_events(a, b, ratio=0.98, offset=0.02), "A", "B")
    assert "431.9 Hz of B on A's clock (ratio 0.9800) is 440.7 Hz: off by +2.04 %" in report
