"""The RTDT packets (captures/rtdt.py), read like the protocol notes in docs/rtdt-protocol.md."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from captures.rtdt import (BatteryNote, CalibrationNote, DiagnosticNote, Drum, OpcodeCommand,
                           RotationNote, RtdtPacketError, RtdtParams, RtdtState, StateNote,
                           StateWrite, battery_percent, build_notification, build_opcode,
                           build_state_write, parse_command, parse_notification, state_events)

P = RtdtParams()

drums = st.builds(Drum, st.integers(0, 3), st.booleans(), st.booleans(), st.booleans(),
                  st.booleans())
states = st.builds(RtdtState, st.tuples(drums, drums, drums), st.binary(min_size=12,
                                                                        max_size=12),
                   st.integers(0, 127), st.booleans(), st.integers(0, 0xFFFF),
                   st.integers(0, 15), st.booleans(), st.integers(0, 255), st.booleans())


@settings(deadline=None)
@given(states)
def test_a_state_write_parses_back_to_the_state_it_was_built_from(state):
    data = build_state_write(state)
    assert len(data) == 20 and data[0] == 0
    assert parse_command(data) == StateWrite(state)


@settings(deadline=None)
@given(st.binary(min_size=19, max_size=19))
def test_any_nineteen_state_bytes_round_trip_exactly(body):
    data = b"\x00" + body
    assert build_state_write(parse_command(data).state) == data
    assert build_notification(parse_notification(data)) == data


@settings(deadline=None)
@given(st.integers(0, 0xFFFF))
def test_a_battery_packet_round_trips_its_millivolts(mv):
    assert parse_notification(build_notification(BatteryNote(mv, b""))).mv == mv


@settings(deadline=None)
@given(st.integers(0, 0xFFFF))
def test_a_rotation_report_round_trips_its_milliseconds(ms):
    assert parse_notification(build_notification(RotationNote(ms, b""))).ms == ms


def test_the_captured_battery_packet_reads_3088_millivolts():
    note = parse_notification(bytes.fromhex("07 00 00 0c 10"))
    assert isinstance(note, BatteryNote) and note.mv == 3088


def test_battery_percent_counts_the_table_entries_at_or_below_the_cell_voltage():
    assert battery_percent(4500, P) == 100      # 1500 mV a cell: every entry
    assert battery_percent(3088, P) == 5        # 1029 mV a cell: only 980
    assert battery_percent(2000, P) == 0


def test_the_legacy_rotate_codes_decode_to_their_sides():
    # top N/E/S/W = 10/02/14/16 in byte 1; bottom 42/4A/52/5A in byte 2 (docs/rtdt-protocol.md)
    for side, code in enumerate((0x10, 0x02, 0x14, 0x16)):
        s = parse_command(bytes([0, code]) + bytes(18)).state
        assert s.drums[0].position == side
    for side, code in enumerate((0x10, 0x40, 0x90, 0xD0)):
        assert parse_command(bytes([0, code]) + bytes(18)).state.drums[1].position == side
    for side, code in enumerate((0x42, 0x4A, 0x52, 0x5A)):
        s = parse_command(bytes([0, 0, code]) + bytes(17)).state
        assert s.drums[2].position == side and s.drums[2].calibrated and s.drums[1].calibrated


def test_byte_3_equal_to_20_is_the_top_ring_north_light_solid():
    s = parse_command(bytes([0, 0, 0, 0x20]) + bytes(16)).state
    assert s.light(0, 0, P) == (1, False)
    assert all(s.light(layer, n, P) == (0, False) for layer in range(6) for n in range(4)
               if (layer, n) != (0, 0))


def test_the_alternate_led_pairing_puts_light_2_in_the_first_byte():
    alt = RtdtParams(led_pairing="alternate")
    assert RtdtState().with_light(0, 2, 1, False, P).leds[1] == 0x20
    assert RtdtState().with_light(0, 2, 1, False, alt).leds[0] == 0x02


def test_sound_loop_is_bit_7_of_byte_15():
    data = build_state_write(RtdtState(sound=0x71, sound_loop=True))
    assert data[15] == 0xF1


def test_the_skull_counter_is_big_endian_in_bytes_16_and_17():
    assert build_state_write(RtdtState(skulls=0x0102))[16:18] == b"\x01\x02"


def test_volume_is_the_high_nibble_of_byte_18():
    assert build_state_write(RtdtState(volume=3))[18] == 0x30


def test_the_calibrate_opcode_is_the_single_byte_04():
    assert build_opcode(P.opcode_calibrate) == b"\x04"
    assert parse_command(b"\x04") == OpcodeCommand(4)


def test_each_notification_type_parses_to_its_kind():
    assert isinstance(parse_notification(b"\x08"), CalibrationNote)
    assert isinstance(parse_notification(bytes(20)), StateNote)
    for code, kind in ((1, "invalid_state"), (2, "hardware_failure"), (3, "unjam_jiggle"),
                       (5, "mechanical_trigger"), (6, "sensors")):
        note = parse_notification(bytes([code, 9, 9]))
        assert isinstance(note, DiagnosticNote) and note.kind == kind


@pytest.mark.parametrize("data, words", [
    (b"", "empty"),
    (b"\x09\x01", "unknown type 0x09"),
    (b"\x00\x01\x02", "3 bytes (expected 20)"),
    (b"\x07\x00\x00", "expected 5"),
    (b"\x04\x01", "expected 3"),
])
def test_a_bad_notification_is_refused_in_one_line_naming_its_bytes(data, words):
    with pytest.raises(RtdtPacketError) as exc:
        parse_notification(data)
    msg = str(exc.value)
    assert words in msg and "\n" not in msg and data.hex(" ") in msg


@pytest.mark.parametrize("data, words", [
    (b"\x07", "unknown opcode 0x07"), (b"\x00", "unknown opcode 0x00"),
    (b"\x00\x01", "2 bytes"), (b"\x01" + bytes(19), "must start with 00"), (b"", "(empty)"),
])
def test_a_bad_command_is_refused_in_one_line(data, words):
    with pytest.raises(RtdtPacketError) as exc:
        parse_command(data)
    assert words in str(exc.value) and "\n" not in str(exc.value)


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=64))
def test_the_notification_parser_survives_any_bytes(data):
    try:
        note = parse_notification(data)
    except RtdtPacketError as exc:
        msg = str(exc)
        assert msg.startswith("RTDT notification") and "\n" not in msg
        assert data[:24].hex(" ") in msg
    else:
        assert note is not None


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=64))
def test_the_command_parser_survives_any_bytes(data):
    try:
        cmd = parse_command(data)
    except RtdtPacketError as exc:
        assert str(exc).startswith("RTDT command") and "\n" not in str(exc)
    else:
        assert isinstance(cmd, (OpcodeCommand, StateWrite))


def test_a_long_packet_is_shown_cut_with_its_length():
    with pytest.raises(RtdtPacketError, match=r"\.\.\. \(300 bytes\)"):
        parse_notification(b"\x09" * 300)


def test_a_skull_counter_rise_is_a_drop_and_zero_a_reset():
    a, b = RtdtState(skulls=1), RtdtState(skulls=2)
    assert [e for e in state_events(a, b, 1.0, P) if e["type"] == "skull"] == [
        {"t": 1.0, "type": "skull", "count": 2, "drop": 1}]
    assert state_events(b, RtdtState(), 2.0, P)[-1]["drop"] == 0


def test_reading_byte_17_only_ignores_the_high_byte_as_udt_does():
    one = RtdtParams(skull_counter_bytes=1)
    assert [e["type"] for e in state_events(RtdtState(skulls=0x0005), RtdtState(skulls=0x0105),
                                            0.0, one)] == []


def test_a_moved_drum_and_a_changed_light_become_events():
    a = RtdtState().with_drum(0, calibrated=True)
    b = a.with_drum(0, position=2).with_light(3, 0, 2, True, P)
    evs = state_events(a, b, 3.0, P)
    assert {"t": 3.0, "type": "drum", "drum": "top", "position": "south", "calibrated": 1,
            "jammed": 0} in evs
    assert {"t": 3.0, "type": "led", "layer": "ledge", "light": "northeast",
            "effect": "breathe", "loop": 1} in evs
