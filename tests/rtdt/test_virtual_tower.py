"""The virtual tower (emulator/rtdt.py) on its own clock: what it answers and when."""
from __future__ import annotations

from dataclasses import replace

import pytest

from captures.rtdt import (BatteryNote, CalibrationNote, DiagnosticNote, RotationNote,
                           RtdtParams, RtdtState, StateNote, build_state_write,
                           parse_notification)
from emulator.rtdt import VirtualRtdt

P = RtdtParams()


def _notes(dev, until):
    return [(t, parse_notification(d)) for t, d in dev.pop_due(until)]


def _connected(params=P):
    dev = VirtualRtdt(params)
    dev.connect(0.0)
    dev.subscribe(0.0)
    return dev


def _calibrated(params=P):
    dev = _connected(params)
    dev.write(0.0, b"\x04")
    dev.pop_due(params.sim_calibration_s)
    return dev


def test_subscribing_sends_a_battery_packet_at_once_then_every_interval():
    dev = _connected()
    notes = _notes(dev, 0.5)
    assert [t for t, _ in notes] == pytest.approx([0.0, 0.2, 0.4])
    assert all(isinstance(n, BatteryNote) and n.mv == 4500 for _, n in notes[:1])


def test_calibration_takes_sim_calibration_s_and_ends_calibrated_at_north():
    dev = _connected()
    dev.write(1.0, b"\x04")
    assert not [n for _, n in _notes(dev, 1.0 + P.sim_calibration_s - 0.01)
                if not isinstance(n, BatteryNote)]
    done = [(t, n) for t, n in _notes(dev, 1.0 + P.sim_calibration_s)
            if not isinstance(n, BatteryNote)]
    assert [type(n) for _, n in done] == [CalibrationNote, StateNote]
    assert done[0][0] == pytest.approx(7.0)
    assert all(d.calibrated and d.position == 0 for d in done[1][1].state.drums)


@pytest.mark.parametrize("reply, kinds", [("state", [StateNote]),
                                          ("calibration", [CalibrationNote])])
def test_the_calibration_reply_is_configurable(reply, kinds):
    p = RtdtParams(sim_calibration_reply=reply)
    dev = _connected(p)
    dev.write(0.0, b"\x04")
    assert [type(n) for _, n in _notes(dev, 10) if not isinstance(n, BatteryNote)] == kinds


def test_a_state_write_is_echoed_with_sound_and_sequence_cleared():
    dev = _calibrated()
    dev.write(7.0, build_state_write(dev.state.__class__(sound=17, volume=2,
                                                         drums=dev.state.drums)))
    echo = [(t, n) for t, n in _notes(dev, 7.5) if isinstance(n, StateNote)]
    assert echo[0][0] == pytest.approx(7.0 + P.sim_echo_delay_s)
    assert echo[0][1].state.sound == 0 and echo[0][1].state.volume == 2


def test_a_rotation_is_reported_when_the_drum_stops():
    dev = _calibrated()
    s = dev.state.with_drum(0, position=3)            # N -> W: three sides clockwise
    dev.write(7.0, build_state_write(s))
    rot = [(t, n) for t, n in _notes(dev, 20) if isinstance(n, RotationNote)]
    dur = P.sim_rotation_base_s + 3 * P.sim_rotation_per_side_s
    assert rot[0][0] == pytest.approx(7.0 + dur) and rot[0][1].ms == round(dur * 1000)


def test_an_uncalibrated_drum_does_not_move():
    dev = _connected()
    dev.write(0.0, build_state_write(RtdtState().with_drum(1, position=2, calibrated=True)))
    notes = [n for _, n in _notes(dev, 10) if not isinstance(n, BatteryNote)]
    assert notes[0].state.drums[1].position == 0 and not notes[0].state.drums[1].calibrated
    assert not any(isinstance(n, RotationNote) for n in notes)


def test_a_sequence_is_echoed_when_its_animation_ends():
    dev = _calibrated()
    dev.write(7.0, build_state_write(replace(dev.state, sequence=0x0E)))
    echo = [t for t, n in _notes(dev, 20) if isinstance(n, StateNote)]
    assert echo == [pytest.approx(7.0 + P.sequence_s(0x0E))] and P.sequence_s(0x0E) == 1.6


def test_writes_closer_than_the_rate_limit_are_dropped_silently():
    dev = _calibrated()
    assert dev.write(7.0, build_state_write(dev.state)) == "ok"
    assert dev.write(7.1, build_state_write(dev.state)) == "dropped (flood)"
    assert dev.write(7.2, build_state_write(dev.state)) == "ok"


def test_bytes_that_are_no_command_get_an_invalid_state_packet():
    dev = _connected()
    assert dev.write(0.0, b"\x00\x01").startswith("invalid: ")
    notes = [n for _, n in _notes(dev, 1) if not isinstance(n, BatteryNote)]
    assert isinstance(notes[0], DiagnosticNote) and notes[0].kind == "invalid_state"


def test_a_dropped_skull_raises_the_counter_and_sends_the_state():
    dev = _calibrated()
    dev.drop_skull(8.0)
    note = [n for _, n in _notes(dev, 8.0) if isinstance(n, StateNote)][-1]
    assert note.state.skulls == 1


def test_a_zero_counter_in_a_write_resets_the_skulls_and_others_are_ignored():
    dev = _calibrated()
    dev.drop_skull(7.0)
    dev.drop_skull(7.1)
    dev.write(8.0, build_state_write(replace(dev.state, skulls=9)))
    assert dev.state.skulls == 2
    dev.write(9.0, build_state_write(replace(dev.state, skulls=0)))
    assert dev.state.skulls == 0


def test_the_battery_sags_faster_while_a_drum_turns():
    idle = _calibrated()
    busy = _calibrated()
    busy.write(7.0, build_state_write(busy.state.with_drum(0, position=2)))
    idle.pop_due(10.0)
    busy.pop_due(10.0)
    assert busy.battery_mv < idle.battery_mv < P.sim_battery_start_mv


def test_a_dropped_link_loses_the_calibration_and_advertises_again_later():
    dev = _calibrated()
    dev.drop_link(8.0)
    assert not dev.connected and not any(d.calibrated for d in dev.state.drums)
    assert not dev.advertising(8.0) and dev.advertising(8.0 + P.sim_reconnect_after_s)
