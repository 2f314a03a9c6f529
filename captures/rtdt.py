"""Build and parse the Bluetooth LE packets of the 2022 *Return to Dark Tower* (RTDT) tower, and
turn the tower's state changes into events.

Every layout and number here is a claim of one public reverse-engineering effort, summarised
with its sources and disagreements in ``docs/rtdt-protocol.md``. The numbers that behaviour
depends on live in one dataclass, ``RtdtParams``, which a user overrides from a JSON or TOML
file (``load_params``) or ``key=value`` options (``apply_overrides``).

Packets (client -> tower, written to the NUS "RX" characteristic)::

    04                              an opcode write (4 = calibrate; 1, 2, 3, 5 named, unused)
    00 <19 bytes of tower state>    a state write: the whole state, not a delta

The 19 state bytes (``STATE_BODY``): byte 1 and 2 the three drums (position 0-3 = N E S W,
jammed, calibrated, sound-while-turning), bytes 3-14 the 24 lights as effect nibbles
(``effect << 1 | loop``), byte 15 sound (bit 7 loop, bits 0-6 index), bytes 16-17 the skull
(beam-break) counter big-endian, byte 18 volume (bits 4-7), the three reverse bits and the beam
fault bit, byte 19 an LED sequence. Example::

    >>> s = RtdtState().with_drum(0, position=2, calibrated=True)
    >>> build_state_write(s).hex(" ")[:8]
    '00 14 00'

Notifications (tower -> client), byte 0 = type: 0 state (20 bytes, same layout), 1 invalid
state, 2 hardware failure, 3 unjam jiggle, 4 rotation duration, 5 unexpected mechanical
trigger, 6 differential sensor readings, 7 battery (millivolts in bytes 3-4), 8 calibration
finished. ``parse_notification`` and ``parse_command`` accept any bytes and either return a
packet or raise ``RtdtPacketError``, one line naming the bytes.

Events (``captures.events`` vocabulary, added for this tower)::

    {"t": 6.02, "type": "calibration", "done": 1}
    {"t": 7.31, "type": "drum", "drum": "top", "position": "south", "calibrated": 1, "jammed": 0}
    {"t": 9.40, "type": "rotation", "ms": 2100}      the tower's rotation report
    {"t": 7.31, "type": "led", "layer": "top", "light": "north", "effect": "on", "loop": 1}
    {"t": 8.00, "type": "sound", "sound": 17, "loop": 0}    accepted by the tower (echo seen)
    {"t": 9.62, "type": "sequence", "sequence": 14, "name": "sealReveal"}  its echo arrived
    {"t": 12.5, "type": "skull", "count": 1, "drop": 1}     drop 0 = the counter was reset
    {"t": 0.05, "type": "battery", "mv": 4480, "percent": 100, "low": 0}
    {"t": 20.1, "type": "link", "up": 0, "reason": "no battery packet for 3 s"}
    {"t": 3.10, "type": "notice", "kind": "invalid_state", "data": "01 00"}
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, fields, replace
from typing import Any, Iterable

from construct import (BitsInteger, BitStruct, Bytes, ConstructError, Flag, Int8ub, Int16ub,
                       Struct)

__all__ = [
    "RtdtParams", "ParamsError", "load_params", "apply_overrides", "params_dict",
    "RtdtPacketError", "DRUMS", "SIDES", "LAYERS", "LIGHT_NAMES", "SEQUENCES",
    "Drum", "RtdtState", "StateWrite", "OpcodeCommand", "StateNote", "BatteryNote",
    "RotationNote", "CalibrationNote", "DiagnosticNote", "STATE_BODY",
    "build_state_write", "build_opcode", "parse_command", "parse_notification",
    "build_notification", "parse_state_body", "build_state_body", "battery_percent",
    "state_events", "effect_name", "effect_code", "light_index", "hexbytes",
]


class ParamsError(ValueError):
    """An RTDT parameter file or override is malformed; the message names it and the key."""


class RtdtPacketError(ValueError):
    """Bytes are not an RTDT packet; the one-line message shows the bytes and what was expected."""


# ---- the protocol parameters ---------------------------------------------------------------

@dataclass(frozen=True)
class RtdtParams:
    """Every protocol claim the code depends on, with the default our sources give
    (docs/rtdt-protocol.md lists each with its source). Override any field from a JSON/TOML
    file (``load_params``) or ``key=value`` strings (``apply_overrides``)."""

    # discovery and GATT (Nordic UART service)
    device_name: str = "ReturnToDarkTower"
    name_is_prefix: bool = True
    scan_by_service: bool = False            # also require the NUS UUID in the advert
    service_uuid: str = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
    write_uuid: str = "6e400002-b5a3-f393-e0a9-e50e24dcca9e"
    notify_uuid: str = "6e400003-b5a3-f393-e0a9-e50e24dcca9e"
    write_with_response: bool = True
    scan_timeout_s: float = 10.0
    scan_settle_s: float = 1.0               # our choice: after the first tower, listen this
    #                                          long for a second one (two: the user chooses)
    connect_timeout_s: float = 20.0
    # opcodes and notification types
    opcode_calibrate: int = 4
    opcode_reset_counter: int = 3
    opcode_max: int = 5
    skull_reset_by_opcode: bool = False      # UDT resets with a state write of counter 0
    skull_counter_bytes: int = 2             # 1: read byte 17 only, as UDT does
    note_types: dict = field(default_factory=lambda: {
        "state": 0, "invalid_state": 1, "hardware_failure": 2, "unjam_jiggle": 3,
        "rotation": 4, "mechanical_trigger": 5, "sensors": 6, "battery": 7, "calibration": 8})
    # lights, sounds, sequences
    led_pairing: str = "adjacent"           # "adjacent": lights 0&1, 2&3 share a byte;
    #                                         "alternate": lights 0&2, 1&3 (the other diagram)
    effects: dict = field(default_factory=lambda: {
        "off": 0, "on": 1, "breathe": 2, "breathe-fast": 3, "breathe50": 4, "flicker": 5})
    sound_count: int = 113
    sequence_count: int = 0x15
    # battery (NUS type 7: millivolts of the three cells in series)
    battery_cells: int = 3
    battery_table_mv: tuple = (1500, 1390, 1350, 1320, 1295, 1270, 1245, 1225, 1205, 1180,
                               1175, 1166, 1150, 1133, 1125, 1107, 1095, 1066, 1033, 980)
    battery_percent_step: int = 5
    battery_interval_s: float = 0.2
    battery_low_percent: int = 20           # our choice: warn at or below this
    battery_event_step_mv: int = 50         # our choice: a battery event per this much change
    # pacing and the link
    reply_timeout_s: float = 30.0
    command_gap_s: float = 0.25
    drum_gap_s: float = 0.4
    write_retries: int = 5
    write_retry_base_s: float = 0.25
    link_timeout_s: float = 3.0
    link_timeout_long_s: float = 30.0
    calibration_timeout_s: float = 60.0
    calibration_done_on: str = "either"     # "state" (first type 0), "calibration" (type 8)
    reconnect_attempts: int = 5
    reconnect_delay_s: float = 1.0
    # the virtual tower (emulator.rtdt): behaviour no source measures, our defaults
    sim_address: str = "DA:4C:10:00:00:01"
    sim_calibration_s: float = 6.0
    sim_calibration_positions: tuple = (0, 0, 0)
    sim_calibration_reply: str = "both"      # "state", "calibration" or "both"
    sim_rotation_base_s: float = 0.4
    sim_rotation_per_side_s: float = 0.9
    sim_echo_delay_s: float = 0.03
    sim_min_write_interval_s: float = 0.2   # writes closer than this are silently dropped
    sim_sequence_s: dict = field(default_factory=lambda: {
        "0x0e": 1.6, "0x0f": 12.0, "0x13": 16.0})
    sim_sequence_default_s: float = 2.0
    sim_battery_start_mv: int = 4500
    sim_battery_idle_mv_per_s: float = 0.05
    sim_battery_turning_mv_per_s: float = 4.0
    sim_reconnect_after_s: float = 0.5
    sim_counter_write_sets: bool = False     # a non-zero counter in a write sets the count
    sim_subscribe_battery: bool = True
    sim_advertise_service: bool = False      # put the NUS UUID in the advert (the name only:
    #                                          both do not fit one 31-byte advert)

    def note_type(self, name: str) -> int:
        """Return the notification type byte called ``name``."""
        return int(self.note_types[name])

    def note_name(self, code: int) -> str | None:
        """Return the name of notification type ``code``, or None when unknown."""
        for name, c in self.note_types.items():
            if int(c) == code:
                return name
        return None

    def sequence_s(self, n: int) -> float:
        """Return how long the virtual tower's LED sequence ``n`` runs before it echoes (s)."""
        for key, v in self.sim_sequence_s.items():
            if int(str(key), 0) == n:
                return float(v)
        return self.sim_sequence_default_s


_CHOICES = {"led_pairing": ("adjacent", "alternate"),
            "calibration_done_on": ("either", "state", "calibration"),
            "sim_calibration_reply": ("both", "state", "calibration")}
# Times that must be more than 0: an interval of 0 repeats for ever at one instant (the
# virtual tower's battery packets), a timeout of 0 gives up before anything can arrive.
_POSITIVE = ("battery_interval_s", "link_timeout_s", "link_timeout_long_s", "scan_timeout_s",
             "connect_timeout_s", "reply_timeout_s", "calibration_timeout_s")
# Counts bounded by the state packet's fields (STATE_BODY): sound 7 bits, sequence a byte.
_MAXIMA = {"sound_count": 127, "sequence_count": 255, "battery_cells": 255}


def params_dict(params: RtdtParams) -> dict:
    """Return the parameters as a JSON-ready dict (tuples become lists)."""
    out = {}
    for f in fields(params):
        v = getattr(params, f.name)
        out[f.name] = list(v) if isinstance(v, tuple) else (dict(v) if isinstance(v, dict) else v)
    return out


def _coerce(name: str, value: Any, default: Any, where: str) -> Any:
    def bad(expected: str):
        return ParamsError(f"{where}: {name} = {value!r}: expected {expected}")
    if isinstance(default, bool):
        if isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "yes", "no"):
            return value.lower() in ("true", "1", "yes")
        if not isinstance(value, bool):
            raise bad("true or false")
        return value
    if isinstance(default, int):
        if isinstance(value, str):
            try:
                value = int(value, 0)
            except ValueError:
                raise bad("an integer") from None
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad("an integer")
        if value < 0:
            raise bad("an integer >= 0")
        if name.startswith("opcode_") and not 1 <= value <= 255:
            raise bad("an opcode 1-255")
        if name == "skull_counter_bytes" and value not in (1, 2):
            raise bad("1 (byte 17 only) or 2 (bytes 16-17)")
        if name in _MAXIMA and not 1 <= value <= _MAXIMA[name]:
            raise bad(f"an integer 1-{_MAXIMA[name]}")
        return value
    if isinstance(default, float):
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                raise bad("a number") from None
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value) or value < 0:
            raise bad("a finite number >= 0")
        if name in _POSITIVE and value == 0:
            raise bad("a number of seconds > 0")
        return float(value)
    if isinstance(default, str):
        if not isinstance(value, str):
            raise bad("a string")
        if not value.strip():
            raise bad("a non-empty string")
        if name in _CHOICES and value not in _CHOICES[name]:
            raise bad("one of " + ", ".join(_CHOICES[name]))
        return value
    if isinstance(default, tuple):
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except json.JSONDecodeError:
                raise bad("a JSON list of integers") from None
        if not isinstance(value, (list, tuple)) or not value or any(
                isinstance(x, bool) or not isinstance(x, int) or x < 0 for x in value):
            raise bad("a non-empty list of integers >= 0")
        if len(default) == 3 and name == "sim_calibration_positions" and (
                len(value) != 3 or any(x > 3 for x in value)):
            raise bad("three positions 0-3 (top, middle, bottom)")
        return tuple(value)
    if isinstance(default, dict):
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except json.JSONDecodeError:
                raise bad("a JSON object") from None
        if not isinstance(value, dict):
            raise bad("a table of name = number")
        merged = dict(default)
        for k, v in value.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0 \
                    or not math.isfinite(v):
                raise bad(f"numbers >= 0 (got {k} = {v!r})")
            if name == "sim_sequence_s":
                try:
                    int(str(k), 0)
                except ValueError:
                    raise bad(f"sequence numbers as keys (got {k!r}; e.g. \"0x0e\" = 1.6)") \
                        from None
            elif name == "note_types" and str(k) not in default:
                raise bad(f"known notification names as keys (got {k!r}; expected "
                          f"{', '.join(default)})")
            if name in ("note_types", "effects") and (v != int(v) or v > (255 if name ==
                                                                            "note_types" else 7)):
                raise bad(f"whole codes ({'0-255' if name == 'note_types' else '0-7'}; got "
                          f"{k} = {v!r})")
            merged[str(k)] = int(v) if name in ("note_types", "effects") else v
        if name in ("note_types", "effects"):
            seen: dict = {}
            for k, v in merged.items():
                if v in seen:
                    raise bad(f"a different code for each name ({seen[v]} and {k} would both "
                              f"be {v})")
                seen[v] = k
        return merged
    raise bad("a known kind of value")     # pragma: no cover - every default is one above


def apply_overrides(params: RtdtParams, values: dict | Iterable[str],
                    where: str = "override") -> RtdtParams:
    """Return ``params`` with fields replaced from a dict or from ``key=value`` strings;
    raise ParamsError naming ``where`` and the key for an unknown key or a bad value."""
    if not isinstance(values, dict):
        pairs = {}
        for item in values:
            if "=" not in item:
                raise ParamsError(f"{where}: {item!r}: expected KEY=VALUE (e.g. "
                                  f"sim_calibration_s=8)")
            k, v = item.split("=", 1)
            pairs[k.strip()] = v.strip()
        values = pairs
    known = {f.name: f for f in fields(params)}
    changes = {}
    for key, value in values.items():
        if key not in known:
            close = [n for n in known if key.split("_")[0] in n][:4]
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise ParamsError(f"{where}: unknown RTDT parameter {key!r}{hint}")
        changes[key] = _coerce(key, value, getattr(params, key), where)
    new = replace(params, **changes)
    if not new.battery_table_mv or new.battery_cells == 0:
        raise ParamsError(f"{where}: battery_cells must be >= 1 and battery_table_mv non-empty")
    return new


def load_params(path: str | None = None, overrides: Iterable[str] = (),
                base: RtdtParams | None = None) -> RtdtParams:
    """Return the default parameters (or ``base``) overridden by a JSON or TOML file at
    ``path`` (top-level keys = field names; TOML when the name ends in .toml) and then by
    ``key=value`` strings."""
    params = base or RtdtParams()
    if path:
        try:
            with open(path, "rb") as f:
                data = f.read(1 << 20)
        except OSError as exc:
            raise ParamsError(f"{path}: cannot read RTDT parameters ({exc.strerror})") from None
        try:
            text = data.decode("utf-8")
            if path.endswith(".toml"):
                import tomllib
                values = tomllib.loads(text)
            else:
                values = json.loads(text)
        except UnicodeDecodeError:
            raise ParamsError(f"{path}: not a text file (expected JSON or TOML)") from None
        except json.JSONDecodeError as exc:
            raise ParamsError(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from None
        except Exception as exc:  # tomllib.TOMLDecodeError
            raise ParamsError(f"{path}: not TOML ({str(exc).splitlines()[0]})") from None
        if not isinstance(values, dict):
            raise ParamsError(f"{path}: expected an object of parameter = value")
        params = apply_overrides(params, values, path)
    return apply_overrides(params, list(overrides), "--set") if overrides else params


# ---- names ---------------------------------------------------------------------------------

DRUMS = ("top", "middle", "bottom")
SIDES = ("north", "east", "south", "west")            # positions 0-3, clockwise
LAYERS = ("top", "middle", "bottom", "ledge", "base1", "base2")
LIGHT_NAMES = {layer: SIDES for layer in LAYERS[:3]}
LIGHT_NAMES.update({layer: ("northeast", "southeast", "southwest", "northwest")
                    for layer in LAYERS[3:]})
SEQUENCES = {
    0x01: "twinkle", 0x02: "flareThenFade", 0x03: "flareThenFadeBase",
    0x04: "flareThenFlicker", 0x05: "angryStrobe01", 0x06: "angryStrobe02",
    0x07: "angryStrobe03", 0x08: "gloat01", 0x09: "gloat02", 0x0A: "gloat03", 0x0B: "defeat",
    0x0C: "victory", 0x0D: "dungeonIdle", 0x0E: "sealReveal", 0x0F: "rotationAllDrums",
    0x10: "rotationDrumTop", 0x11: "rotationDrumMiddle", 0x12: "rotationDrumBottom",
    0x13: "monthStarted", 0x14: "wholeTowerBreathing", 0x15: "slowFlareThenFade",
}


def hexbytes(data: bytes, limit: int = 24) -> str:
    """Return ``data`` as spaced hex, cut after ``limit`` bytes with the total length."""
    data = bytes(data)
    text = data[:limit].hex(" ")
    return text + (f" ... ({len(data)} bytes)" if len(data) > limit else "")


def effect_name(code: int, params: RtdtParams) -> str:
    """Return the name of LED effect ``code`` (``effect6`` for a code no source names)."""
    for name, c in params.effects.items():
        if int(c) == code:
            return name
    return f"effect{code}"


def effect_code(name: str, params: RtdtParams) -> int:
    """Return the code of the LED effect called ``name``; raise ValueError if unknown."""
    key = name.lower()
    if key in params.effects:
        return int(params.effects[key])
    if key.startswith("effect") and key[6:].isdigit() and int(key[6:]) < 8:
        return int(key[6:])
    raise ValueError(f"unknown LED effect {name!r} (expected one of "
                     f"{', '.join(params.effects)})")


def light_index(layer: int, light: int, params: RtdtParams) -> tuple[int, int]:
    """Return (byte offset in the 12 LED bytes, 0 = high nibble / 1 = low) of a light."""
    if params.led_pairing == "alternate":
        return 2 * layer + (light & 1), light >> 1
    return 2 * layer + (light >> 1), light & 1


# ---- the state layout ----------------------------------------------------------------------

_DRUMS_BITS = BitStruct(                 # bytes 1 and 2, bit 7 first
    "middle_position" / BitsInteger(2), "middle_sound" / Flag, "top_calibrated" / Flag,
    "top_jammed" / Flag, "top_position" / BitsInteger(2), "top_sound" / Flag,
    "spare" / Flag, "bottom_calibrated" / Flag, "bottom_jammed" / Flag,
    "bottom_position" / BitsInteger(2), "bottom_sound" / Flag, "middle_calibrated" / Flag,
    "middle_jammed" / Flag,
)
_FLAGS_BITS = BitStruct(                 # byte 18
    "volume" / BitsInteger(4), "bottom_reverse" / Flag, "middle_reverse" / Flag,
    "top_reverse" / Flag, "beam_fault" / Flag,
)
STATE_BODY = Struct(
    "drums" / _DRUMS_BITS,
    "leds" / Bytes(12),
    "sound" / BitStruct("loop" / Flag, "index" / BitsInteger(7)),
    "skulls" / Int16ub,
    "flags" / _FLAGS_BITS,
    "sequence" / Int8ub,
)
assert STATE_BODY.sizeof() == 19


@dataclass(frozen=True)
class Drum:
    """One drum as the state packet carries it: position 0-3 (N, E, S, W) and its bits."""
    position: int = 0
    calibrated: bool = False
    jammed: bool = False
    sound: bool = False       # sound while turning
    reverse: bool = False


@dataclass(frozen=True)
class RtdtState:
    """The whole tower state of a state write or a state notification (bytes 1-19)."""
    drums: tuple = (Drum(), Drum(), Drum())
    leds: bytes = bytes(12)
    sound: int = 0
    sound_loop: bool = False
    skulls: int = 0
    volume: int = 0
    beam_fault: bool = False
    sequence: int = 0
    spare: bool = False       # byte 2 bit 7, unused: kept so any bytes round-trip

    def with_drum(self, drum: int, **changes) -> "RtdtState":
        """Return a copy with drum ``drum`` (0 top, 1 middle, 2 bottom) changed."""
        drums = list(self.drums)
        drums[drum] = replace(drums[drum], **changes)
        return replace(self, drums=tuple(drums))

    def light(self, layer: int, light: int, params: RtdtParams) -> tuple[int, bool]:
        """Return (effect code, loop) of light ``light`` (0-3) in layer ``layer`` (0-5)."""
        off, half = light_index(layer, light, params)
        nib = (self.leds[off] >> 4) if half == 0 else (self.leds[off] & 0x0F)
        return nib >> 1, bool(nib & 1)

    def with_light(self, layer: int, light: int, effect: int, loop: bool,
                   params: RtdtParams) -> "RtdtState":
        """Return a copy with one light set to ``effect`` (0-7) and ``loop``."""
        if not 0 <= effect <= 7:
            raise ValueError(f"LED effect {effect} must be 0-7 (three bits)")
        off, half = light_index(layer, light, params)
        nib = (effect << 1) | int(bool(loop))
        leds = bytearray(self.leds)
        leds[off] = (leds[off] & 0x0F) | (nib << 4) if half == 0 else (leds[off] & 0xF0) | nib
        return replace(self, leds=bytes(leds))


def parse_state_body(body: bytes) -> RtdtState:
    """Parse the 19 state bytes (bytes 1-19 of a state packet) into an RtdtState."""
    c = STATE_BODY.parse(bytes(body))
    d, f = c.drums, c.flags
    drums = tuple(Drum(d[f"{n}_position"], d[f"{n}_calibrated"], d[f"{n}_jammed"],
                       d[f"{n}_sound"], f[f"{n}_reverse"]) for n in DRUMS)
    return RtdtState(drums, bytes(c.leds), c.sound.index, c.sound.loop, c.skulls, f.volume,
                     f.beam_fault, c.sequence, d.spare)


def build_state_body(state: RtdtState) -> bytes:
    """Build the 19 state bytes of ``state``; raise ValueError for a field out of range."""
    drums, flags = {"spare": state.spare}, {"volume": state.volume,
                                             "beam_fault": state.beam_fault}
    if len(state.drums) != 3 or len(state.leds) != 12:
        raise ValueError("a tower state has 3 drums and 12 LED bytes")
    for name, drum in zip(DRUMS, state.drums):
        if not 0 <= drum.position <= 3:
            raise ValueError(f"{name} drum position {drum.position} must be 0-3 (N, E, S, W)")
        drums.update({f"{name}_position": drum.position, f"{name}_calibrated": drum.calibrated,
                      f"{name}_jammed": drum.jammed, f"{name}_sound": drum.sound})
        flags[f"{name}_reverse"] = drum.reverse
    for what, v, hi in (("sound", state.sound, 127), ("skull counter", state.skulls, 0xFFFF),
                        ("volume", state.volume, 15), ("sequence", state.sequence, 255)):
        if not 0 <= v <= hi:
            raise ValueError(f"{what} {v} must be 0-{hi}")
    return STATE_BODY.build({"drums": drums, "leds": state.leds,
                             "sound": {"loop": state.sound_loop, "index": state.sound},
                             "skulls": state.skulls, "flags": flags,
                             "sequence": state.sequence})


# ---- commands ------------------------------------------------------------------------------

@dataclass(frozen=True)
class OpcodeCommand:
    """A one-byte opcode write (4 = calibrate)."""
    opcode: int


@dataclass(frozen=True)
class StateWrite:
    """A 20-byte state write: the whole state the tower should take."""
    state: RtdtState


def build_state_write(state: RtdtState) -> bytes:
    """Return the 20 bytes of a state write (``00`` then the state)."""
    return b"\x00" + build_state_body(state)


def build_opcode(opcode: int, params: RtdtParams | None = None) -> bytes:
    """Return the one byte of an opcode write; raise ValueError outside 1..opcode_max."""
    top = (params or RtdtParams()).opcode_max
    if not 1 <= opcode <= top:
        raise ValueError(f"RTDT opcode {opcode} must be 1-{top}")
    return bytes([opcode])


def parse_command(data: bytes, params: RtdtParams | None = None):
    """Parse bytes written to the tower: an OpcodeCommand or a StateWrite; raise
    RtdtPacketError (one line, showing the bytes) for anything else."""
    params = params or RtdtParams()
    data = bytes(data)
    if len(data) == 1:
        if 1 <= data[0] <= params.opcode_max:
            return OpcodeCommand(data[0])
        raise RtdtPacketError(f"RTDT command {hexbytes(data)}: unknown opcode 0x{data[0]:02x} "
                              f"(expected 01-{params.opcode_max:02x})")
    if len(data) != 20:
        raise RtdtPacketError(f"RTDT command {hexbytes(data) or '(empty)'}: {len(data)} bytes "
                              f"(expected a 1-byte opcode or a 20-byte state write)")
    if data[0] != 0:
        raise RtdtPacketError(f"RTDT command {hexbytes(data)}: a 20-byte write must start "
                              f"with 00 (a state write), not {data[0]:02x}")
    return StateWrite(parse_state_body(data[1:]))


# ---- notifications -------------------------------------------------------------------------

@dataclass(frozen=True)
class StateNote:
    """Type 0: the tower's state (the echo of a write, or a change such as a skull drop)."""
    state: RtdtState


@dataclass(frozen=True)
class BatteryNote:
    """Type 7: the three cells' voltage in millivolts (bytes 3-4, big-endian)."""
    mv: int
    raw: bytes


@dataclass(frozen=True)
class RotationNote:
    """Type 4: how long the last rotation took, in milliseconds (bytes 1-2, big-endian;
    our reading: no source gives the layout)."""
    ms: int
    raw: bytes


@dataclass(frozen=True)
class CalibrationNote:
    """Type 8: calibration finished."""
    raw: bytes


@dataclass(frozen=True)
class DiagnosticNote:
    """Types 1, 2, 3, 5, 6: errors and sensor reports, kept as raw bytes with their name."""
    kind: str
    raw: bytes


def parse_notification(data: bytes, params: RtdtParams | None = None):
    """Parse one notification; raise RtdtPacketError (one line, showing the bytes) when the
    bytes are not one."""
    params = params or RtdtParams()
    data = bytes(data)
    if not data:
        raise RtdtPacketError("RTDT notification (empty): expected a type byte 00-08 first")
    kind = params.note_name(data[0])
    if kind is None:
        raise RtdtPacketError(f"RTDT notification {hexbytes(data)}: unknown type "
                              f"0x{data[0]:02x} (expected one of "
                              f"{', '.join(f'{int(c):02x}' for c in params.note_types.values())})")
    if kind == "state":
        if len(data) != 20:
            raise RtdtPacketError(f"RTDT notification {hexbytes(data)}: a state packet has "
                                  f"{len(data)} bytes (expected 20)")
        try:
            return StateNote(parse_state_body(data[1:]))
        except ConstructError as exc:  # pragma: no cover - 19 bytes always parse
            raise RtdtPacketError(f"RTDT notification {hexbytes(data)}: {exc}") from None
    if kind == "battery":
        if len(data) < 5:
            raise RtdtPacketError(f"RTDT notification {hexbytes(data)}: a battery packet has "
                                  f"{len(data)} bytes (expected 5: 07 xx xx MV_HI MV_LO)")
        return BatteryNote(data[3] << 8 | data[4], data)
    if kind == "rotation":
        if len(data) < 3:
            raise RtdtPacketError(f"RTDT notification {hexbytes(data)}: a rotation report has "
                                  f"{len(data)} bytes (expected 3: 04 MS_HI MS_LO)")
        return RotationNote(data[1] << 8 | data[2], data)
    if kind == "calibration":
        return CalibrationNote(data)
    return DiagnosticNote(kind, data)


def build_notification(note, params: RtdtParams | None = None) -> bytes:
    """Return the bytes of a notification (what the virtual tower sends)."""
    params = params or RtdtParams()
    if isinstance(note, StateNote):
        return bytes([params.note_type("state")]) + build_state_body(note.state)
    if isinstance(note, BatteryNote):
        if not 0 <= note.mv <= 0xFFFF:
            raise ValueError(f"battery {note.mv} mV must be 0-65535")
        return bytes([params.note_type("battery"), 0, 0, note.mv >> 8, note.mv & 0xFF])
    if isinstance(note, RotationNote):
        ms = min(max(int(note.ms), 0), 0xFFFF)
        return bytes([params.note_type("rotation"), ms >> 8, ms & 0xFF])
    if isinstance(note, CalibrationNote):
        return bytes([params.note_type("calibration")])
    if isinstance(note, DiagnosticNote):
        return bytes([params.note_type(note.kind)]) + bytes(note.raw[1:])
    raise TypeError(f"not an RTDT notification: {note!r}")


def battery_percent(mv: int, params: RtdtParams) -> int:
    """Return the charge in percent: ``battery_percent_step`` times the number of per-cell
    table entries at or below the per-cell voltage (mv / cells)."""
    per_cell = mv / params.battery_cells
    return min(100, params.battery_percent_step
               * sum(1 for e in params.battery_table_mv if e <= per_cell))


# ---- events from state changes -------------------------------------------------------------

def state_events(prev: RtdtState | None, new: RtdtState, t: float,
                 params: RtdtParams) -> list[dict]:
    """Return the events that going from state ``prev`` to ``new`` at ``t`` seconds shows:
    drums that moved or changed calibration, lights that changed, the skull counter."""
    from captures.events import make_event
    out = []
    for i, name in enumerate(DRUMS):
        a = prev.drums[i] if prev is not None else None
        b = new.drums[i]
        if a is None or (a.position, a.calibrated, a.jammed) != (b.position, b.calibrated,
                                                                  b.jammed):
            out.append(make_event(t, "drum", drum=name, position=SIDES[b.position],
                                  calibrated=int(b.calibrated), jammed=int(b.jammed)))
    for layer, lname in enumerate(LAYERS):
        for light in range(4):
            eff, loop = new.light(layer, light, params)
            if prev is not None and prev.light(layer, light, params) == (eff, loop):
                continue
            if prev is None and eff == 0:
                continue
            out.append(make_event(t, "led", layer=lname, light=LIGHT_NAMES[lname][light],
                                  effect=effect_name(eff, params), loop=int(loop)))
    mask = 0xFF if params.skull_counter_bytes == 1 else 0xFFFF
    if prev is not None and new.skulls & mask != prev.skulls & mask:
        count = new.skulls & mask
        out.append(make_event(t, "skull", count=count, drop=int(count != 0)))
    return out
