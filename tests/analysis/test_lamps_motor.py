"""Lamp (R5-R7 while R4 low) and motor (R9) decoders: pulses under 10 ms are ignored."""
from __future__ import annotations

from analysis.lamps import LampDecoder
from analysis.motor import MotorDecoder
from tests.analysis.synth import capture, run

RATE = 100_000.0   # 10 ms = 1000 samples


def test_a_lamp_change_is_reported_at_the_pin_change_time():
    cap = capture([(5000, "R7", 1), (9000, "R7", 0)], 20_000, RATE)
    assert [(e["t"], e["lamp"], e["on"]) for e in run(LampDecoder, cap)] == [
        (0.05, "upper", 1), (0.09, "upper", 0)]


def test_r5_is_the_lower_lamp_and_r6_the_middle_one():
    cap = capture([(100, "R5", 1), (200, "R6", 1)], 5000, RATE)
    assert [e["lamp"] for e in run(LampDecoder, cap)] == ["lower", "middle"]


def test_lamp_pulses_under_10ms_are_ignored():
    cap = capture([(5000, "R6", 1), (5999, "R6", 0)], 20_000, RATE)
    assert run(LampDecoder, cap) == []


def test_a_lamp_pulse_of_10ms_counts():
    cap = capture([(5000, "R6", 1), (6000, "R6", 0)], 20_000, RATE)
    assert [e["on"] for e in run(LampDecoder, cap)] == [1, 0]


def test_r4_high_darkens_the_lamps():
    cap = capture([(1000, "R7", 1), (4000, "R4", 1)], 20_000, RATE)
    assert [(e["t"], e["on"]) for e in run(LampDecoder, cap)] == [(0.01, 1), (0.04, 0)]


def test_half_millisecond_motor_blinks_at_reel_holes_are_not_stops():
    cap = capture([(1000, "R9", 1), (30_000, "R9", 0), (30_050, "R9", 1), (60_000, "R9", 0)],
                  80_000, RATE)
    assert [(e["t"], e["on"]) for e in run(MotorDecoder, cap)] == [(0.01, 1), (0.6, 0)]


def test_a_change_lasting_to_the_end_of_the_capture_is_reported():
    cap = capture([(1000, "R9", 1)], 1100, RATE)
    assert [e["on"] for e in run(MotorDecoder, cap)] == [1]
