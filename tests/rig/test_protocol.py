"""The button-box frame format (rig/protocol.py, mirrored by rig/firmware/buttonbox.c)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rig import protocol as p


def test_crc16_is_ccitt_false_on_the_standard_check_string():
    assert p.crc16(b"123456789") == 0x29B1


@settings(deadline=None)      # a loaded host must not fail a correct parser
@given(button=st.integers(0, 255), hold=st.integers(0, 0xFFFF), at=st.integers(0, 2**32 - 1),
       seq=st.integers(0, 255))
def test_a_press_frame_round_trips_through_the_parser(button, hold, at, seq):
    raw = p.encode(p.CMD_PRESS, seq, button=button, hold_ms=hold, at_us=at)
    (frame,) = p.FrameParser().feed(raw)
    f = frame.fields()
    assert (frame.type, frame.seq, f.button, f.hold_ms, f.at_us) == (p.CMD_PRESS, seq, button,
                                                                     hold, at)


def test_every_frame_type_has_a_payload_layout_that_builds_and_parses():
    for kind, layout in p.PAYLOADS.items():
        values = {sub.name: (b"TLBX" if sub.name == "ident" else 1) for sub in layout.subcons}
        (frame,) = p.FrameParser().feed(p.encode(kind, 3, **values))
        assert frame.type == kind and len(frame.payload) == layout.sizeof()


def test_noise_before_a_frame_is_dropped_and_counted():
    parser = p.FrameParser()
    frames = parser.feed(b"\x00\xa5\x13garbage" + p.encode(p.CMD_STATUS, 9))
    assert [f.seq for f in frames] == [9]
    assert parser.dropped == 10


def test_a_frame_split_across_reads_is_assembled():
    raw = p.encode(p.CMD_HELLO, 4)
    parser = p.FrameParser()
    assert parser.feed(raw[:3]) == []
    assert [f.type for f in parser.feed(raw[3:])] == [p.CMD_HELLO]


def test_a_frame_with_a_flipped_bit_is_rejected_and_the_next_frame_still_parses():
    bad = bytearray(p.encode(p.CMD_PRESS, 1, button=2, hold_ms=0, at_us=p.NOW))
    bad[6] ^= 0x10
    parser = p.FrameParser()
    frames = parser.feed(bytes(bad) + p.encode(p.CMD_RELEASE, 2, button=2, at_us=p.NOW))
    assert [(f.type, f.seq) for f in frames] == [(p.CMD_RELEASE, 2)]
    assert parser.bad_crc == 1


def test_a_payload_of_the_wrong_length_is_a_clear_error():
    with pytest.raises(ValueError, match="has 2 payload bytes"):
        p.decode_payload(p.REP_ACK, b"\x01\x02")
