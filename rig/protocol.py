"""Define the button-box serial protocol (version 1) as ``construct`` structs, and parse a byte
stream into frames with resynchronisation.

The firmware side is ``rig/firmware/buttonbox.c``; the two must agree. A frame is::

    0xA5 0x5A  type:u8  seq:u8  len:u8  payload[len]  crc:u16le

``crc`` is CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) over type, seq, len and payload. Times
are device microseconds (Timer1 of the ATmega328P, wrapping after 2**32 us = 71.6 min);
``at_us = NOW`` (0xFFFFFFFF) means "as soon as the frame arrives".

Example::

    >>> raw = encode(CMD_PRESS, 7, button=1, hold_ms=200, at_us=NOW)
    >>> FrameParser().feed(raw)[0].type == CMD_PRESS
    True
"""
from __future__ import annotations

from dataclasses import dataclass

from construct import (Bytes, Checksum, ChecksumError, Const, Int8ul, Int16ul, Int32ul,
                       RawCopy, Struct, this)

__all__ = [
    "PROTOCOL_VERSION", "FIRMWARE_VERSION", "NOW", "MAGIC", "CMD_HELLO", "CMD_PRESS",
    "CMD_RELEASE", "CMD_RELEASE_ALL", "CMD_POWER", "CMD_SYNC", "CMD_STATUS", "CMD_WATCHDOG",
    "REP_ACK", "REP_HELLO", "REP_STATUS", "REP_NAK", "ACK_DONE", "ACK_SCHEDULED", "ACK_LATE",
    "NAK_REASONS", "PAYLOADS", "Frame", "FRAME", "crc16", "encode", "decode_payload",
    "FrameParser",
]

PROTOCOL_VERSION = 1
FIRMWARE_VERSION = (1, 1)   # the firmware this host code is written for (major must match)
NOW = 0xFFFFFFFF
MAGIC = b"\xa5\x5a"

CMD_HELLO, CMD_PRESS, CMD_RELEASE, CMD_RELEASE_ALL = 0x01, 0x02, 0x03, 0x04
CMD_POWER, CMD_SYNC, CMD_STATUS, CMD_WATCHDOG = 0x05, 0x06, 0x07, 0x08
REP_ACK, REP_HELLO, REP_STATUS, REP_NAK = 0x80, 0x81, 0x87, 0x7F
ACK_DONE, ACK_SCHEDULED, ACK_LATE = 0, 1, 2
NAK_REASONS = {1: "button number out of range", 2: "payload has the wrong length",
               3: "unknown command", 4: "schedule full (32 actions pending)"}

# Payload layout per frame type (little-endian, as the AVR stores them).
PAYLOADS: dict[int, Struct] = {
    CMD_HELLO: Struct(),
    CMD_PRESS: Struct("button" / Int8ul, "hold_ms" / Int16ul, "at_us" / Int32ul),
    CMD_RELEASE: Struct("button" / Int8ul, "at_us" / Int32ul),
    CMD_RELEASE_ALL: Struct("at_us" / Int32ul),
    CMD_POWER: Struct("on" / Int8ul, "at_us" / Int32ul),
    CMD_SYNC: Struct("width_us" / Int16ul, "at_us" / Int32ul),
    CMD_STATUS: Struct(),
    CMD_WATCHDOG: Struct("timeout_ms" / Int16ul),
    REP_ACK: Struct("cmd" / Int8ul, "status" / Int8ul, "at_us" / Int32ul),
    REP_NAK: Struct("cmd" / Int8ul, "code" / Int8ul),
    REP_HELLO: Struct("protocol" / Int8ul, "fw_major" / Int8ul, "fw_minor" / Int8ul,
                      "buttons" / Int8ul, "now_us" / Int32ul, "ident" / Bytes(4)),
    REP_STATUS: Struct("now_us" / Int32ul, "buttons" / Int16ul, "power" / Int8ul,
                       "flags" / Int8ul, "crc_errors" / Int16ul, "watchdog_ms" / Int16ul),
}


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """Return the CRC-16/CCITT-FALSE of ``data`` (poly 0x1021, init 0xFFFF, no reflection)."""
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


FRAME = Struct(
    "magic" / Const(MAGIC),
    "body" / RawCopy(Struct("type" / Int8ul, "seq" / Int8ul, "length" / Int8ul,
                            "payload" / Bytes(this.length))),
    "crc" / Checksum(Int16ul, lambda data: crc16(data), this.body.data),
)


@dataclass(frozen=True)
class Frame:
    """One good frame: its type, sequence number and raw payload bytes."""
    type: int
    seq: int
    payload: bytes

    def fields(self):
        """Return the payload parsed with its type's struct (a construct Container)."""
        return decode_payload(self.type, self.payload)


def encode(type: int, seq: int, **fields) -> bytes:
    """Build the bytes of one frame of ``type`` with sequence number ``seq`` (0-255)."""
    payload = PAYLOADS[type].build(fields)
    return FRAME.build({"body": {"value": {"type": type, "seq": seq & 0xFF,
                                           "length": len(payload), "payload": payload}}})


def decode_payload(type: int, payload: bytes):
    """Parse a payload by frame type; raise ValueError if the type is unknown or it is short."""
    if type not in PAYLOADS:
        raise ValueError(f"button box sent unknown frame type 0x{type:02x}")
    if len(payload) != PAYLOADS[type].sizeof():
        raise ValueError(f"button box frame type 0x{type:02x} has {len(payload)} payload bytes "
                         f"(expected {PAYLOADS[type].sizeof()})")
    return PAYLOADS[type].parse(payload)


class FrameParser:
    """Cut a byte stream into good frames; bytes that are not part of one are dropped and
    counted in ``dropped`` (line noise, a half frame after a reconnect)."""

    MAX_PAYLOAD = 33

    def __init__(self) -> None:
        self._buf = bytearray()
        self.dropped = 0
        self.bad_crc = 0

    def feed(self, data: bytes) -> list[Frame]:
        """Add received bytes; return the complete frames they finish, in order."""
        self._buf += data
        out: list[Frame] = []
        buf = self._buf
        while True:
            start = buf.find(MAGIC)
            if start < 0:
                keep = 1 if buf.endswith(MAGIC[:1]) else 0
                self.dropped += len(buf) - keep
                del buf[:len(buf) - keep]
                break
            if start:
                self.dropped += start
                del buf[:start]
            if len(buf) < 5:
                break
            length = buf[4]
            if length > self.MAX_PAYLOAD:
                self.dropped += 1
                del buf[:1]
                continue
            end = 7 + length
            if len(buf) < end:
                break
            try:
                parsed = FRAME.parse(bytes(buf[:end]))
            except ChecksumError:
                self.bad_crc += 1
                self.dropped += 1
                del buf[:1]          # resync: hunt for the next magic inside this frame
                continue
            body = parsed.body.value
            out.append(Frame(body.type, body.seq, bytes(body.payload)))
            del buf[:end]
        return out
