"""A virtual Return to Dark Tower: the tower's side of the Bluetooth LE protocol as a model in
explicit time, speaking the same bytes as the real one (``captures.rtdt``).

The model knows nothing of radios or event loops. Whoever carries its bytes (the simulated
bleak backend ``rig.rtdt.simble``) calls::

    dev.connect(t); dev.subscribe(t)        # the client connected and enabled notifications
    dev.write(t, data)                      # bytes written to the NUS RX characteristic
    dev.next_due()                          # when something happens next (s), or None
    dev.pop_due(t) -> [(t_i, bytes), ...]   # notifications due by t, in order
    dev.drop_skull(t); dev.drop_link(t, silent); dev.set_battery(t, mv)   # what tests inject
    dev.send_raw(t, data)                   # any notification bytes, as they are

What it does (sources and our own choices: docs/rtdt-protocol.md, "The virtual tower"):

- On subscribe it sends a battery packet at once, then one every ``battery_interval_s``.
- ``04`` calibrates: the drums turn for ``sim_calibration_s`` (the cells sag as when turning),
  then stand calibrated at ``sim_calibration_positions``; it answers with a type-8 packet, a
  state packet, or both (``sim_calibration_reply``).
- A state write is echoed after ``sim_echo_delay_s`` with the sound and sequence bytes zero;
  with a sequence, the echo comes when the animation ends (``sequence_s``). A calibrated drum
  whose position changes turns clockwise, ``sim_rotation_base_s + steps *
  sim_rotation_per_side_s``; when every drum of that write stands still it reports the time
  (type 4, milliseconds). Position changes for an uncalibrated drum are ignored.
- A skull counter of 0 in a write resets the count; other values are ignored (the tower
  counts), unless ``sim_counter_write_sets``.
- Writes closer than ``sim_min_write_interval_s`` to the last accepted one are dropped
  silently (a flood); bytes that are no command get a type-1 "invalid state" packet.
- A dropped link loses the calibration; the tower advertises again after
  ``sim_reconnect_after_s``.
"""
from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass, replace

from captures.rtdt import (BatteryNote, CalibrationNote, DiagnosticNote, Drum, OpcodeCommand,
                           RotationNote, RtdtPacketError, RtdtParams, RtdtState, StateNote,
                           StateWrite, build_notification, parse_command)

__all__ = ["VirtualRtdt", "WriteRecord", "DIS_VALUES"]

# The Device Information strings a tower reports (docs/rtdt-protocol.md, "Discovery").
DIS_VALUES = {
    "00002a29-0000-1000-8000-00805f9b34fb": b"Restoration Games LLC",
    "00002a24-0000-1000-8000-00805f9b34fb": b"ReturnToDarkTower",
    "00002a27-0000-1000-8000-00805f9b34fb": b"1.11",
    "00002a26-0000-1000-8000-00805f9b34fb": b"79556657694099f3ca293f534b9cc5b55bfeaa31",
    "00002a28-0000-1000-8000-00805f9b34fb": b"1.0.0",
}


@dataclass(frozen=True)
class WriteRecord:
    """One write as the virtual tower took it: time, bytes, and what became of it."""
    t: float
    data: bytes
    result: str          # "ok", "dropped (flood)", "invalid: ...", "ignored (link down)"


class VirtualRtdt:
    """The virtual tower (see the module docstring). Times are seconds on the caller's clock."""

    def __init__(self, params: RtdtParams | None = None, address: str | None = None,
                 name: str | None = None):
        self.params = params or RtdtParams()
        self.address = address or self.params.sim_address
        self.name = name or self.params.device_name
        self.state = RtdtState()          # what the tower holds (positions: where drums stop)
        self.connected = False
        self.subscribed = False
        self.link_up = True               # False after drop_link until advertising again
        self.silent_drop = False
        self.advertising_from = 0.0
        self.writes: list[WriteRecord] = []
        self.calibrating_until: float | None = None
        self._queue: list = []
        self._seq = itertools.count()
        self._mv = float(self.params.sim_battery_start_mv)
        self._mv_t = 0.0
        self._turning_until = 0.0
        self._last_accepted: float | None = None
        self._battery_due: float | None = None
        self._rotation_end = 0.0          # when the drums of the last rotation stand still
        self._rotation_ms = 0

    # -- the link --------------------------------------------------------------------------

    def advertising(self, t: float) -> bool:
        """Return True when the tower can be found and connected at ``t``."""
        return not self.connected and t >= self.advertising_from

    def connect(self, t: float) -> None:
        """Accept a connection at ``t`` (a fresh link: nothing subscribed yet)."""
        if not self.advertising(t):
            raise ConnectionError(f"virtual RTDT {self.address} is not advertising at "
                                  f"t={t:.3f} s")
        self.connected, self.subscribed, self.link_up, self.silent_drop = True, False, True, \
            False

    def subscribe(self, t: float) -> None:
        """Enable notifications at ``t``: the battery report starts at once."""
        self.subscribed = True
        if self.params.sim_subscribe_battery:
            self._battery_due = t
        else:
            self._battery_due = t + self.params.battery_interval_s

    def disconnect(self, t: float) -> None:
        """End the connection at ``t`` (client side or lost): the calibration is lost."""
        self._sag(t)
        self.connected = self.subscribed = False
        self._battery_due = None
        self._queue = [q for q in self._queue if q[2] != "note"]
        heapq.heapify(self._queue)
        self.calibrating_until = None
        self.state = replace(self.state, drums=tuple(replace(d, calibrated=False)
                                                     for d in self.state.drums))

    def drop_link(self, t: float, silent: bool = False) -> None:
        """Break the radio link at ``t``; ``silent``: the client is not told (it must notice
        the missing battery packets)."""
        self.link_up = False
        self.silent_drop = silent
        self.disconnect(t)
        self.advertising_from = t + self.params.sim_reconnect_after_s

    # -- what tests inject -----------------------------------------------------------------

    def drop_skull(self, t: float) -> None:
        """A skull falls through the beam at ``t``: the counter goes up, the state is sent."""
        self.pop_due(t)
        self.state = replace(self.state, skulls=(self.state.skulls + 1) & 0xFFFF)
        self._note(t, StateNote(self._echo_state()))

    def send_raw(self, t: float, data: bytes) -> None:
        """Send ``data`` as a notification at ``t`` as it is (a diagnostic packet the model
        never makes on its own, such as an unjam jiggle, or bytes that are no packet)."""
        if self.connected:
            self._push(t, "note", bytes(data))

    def set_battery(self, t: float, mv: int) -> None:
        """Set the cells' voltage at ``t`` (millivolts); the sag goes on from there."""
        self._sag(t)
        self._mv = float(mv)

    @property
    def battery_mv(self) -> int:
        """Return the cells' voltage at the last update (millivolts)."""
        return max(0, int(round(self._mv)))

    # -- writes ----------------------------------------------------------------------------

    def write(self, t: float, data: bytes) -> str:
        """Take bytes written at ``t``; return what became of them (also kept in
        ``writes``)."""
        self.pop_due(t)
        result = self._write(t, bytes(data))
        self.writes.append(WriteRecord(t, bytes(data), result))
        return result

    def _write(self, t: float, data: bytes) -> str:
        p = self.params
        if not self.connected:
            return "ignored (link down)"
        if self._last_accepted is not None and t - self._last_accepted < \
                p.sim_min_write_interval_s - 1e-9:
            return "dropped (flood)"
        try:
            cmd = parse_command(data, p)
        except RtdtPacketError as exc:
            self._note(t + p.sim_echo_delay_s,
                       DiagnosticNote("invalid_state", bytes([p.note_type("invalid_state"), 0])))
            return f"invalid: {exc}"
        self._last_accepted = t
        if isinstance(cmd, OpcodeCommand):
            if cmd.opcode == p.opcode_calibrate:
                self._calibrate(t)
                return "ok"
            if cmd.opcode == p.opcode_reset_counter:
                self.state = replace(self.state, skulls=0)
            self._note(t + p.sim_echo_delay_s, StateNote(self._echo_state()))
            return "ok"
        assert isinstance(cmd, StateWrite)
        self._take_state(t, cmd.state)
        return "ok"

    def _calibrate(self, t: float) -> None:
        p = self.params
        self._sag(t)
        end = t + p.sim_calibration_s
        self.calibrating_until = end
        self._turning_until = max(self._turning_until, end)
        self.state = replace(self.state, drums=tuple(replace(d, calibrated=False)
                                                     for d in self.state.drums))
        self._push(end, "calibrated", None)

    def _take_state(self, t: float, new: RtdtState) -> None:
        p = self.params
        self._sag(t)
        drums, steps = [], []
        calibrating = self.calibrating_until is not None
        for old, want in zip(self.state.drums, new.drums):
            if old.calibrated and not calibrating and want.position != old.position:
                steps.append((want.position - old.position) % 4)   # clockwise, no reverse
                drums.append(replace(old, position=want.position, sound=want.sound))
            else:
                drums.append(replace(old, sound=want.sound))
        skulls = self.state.skulls
        if new.skulls == 0 or p.sim_counter_write_sets:
            skulls = new.skulls
        self.state = replace(new, drums=tuple(drums), skulls=skulls, sound=0, sound_loop=False,
                             sequence=0, beam_fault=self.state.beam_fault)
        echo_at = t + p.sim_echo_delay_s
        if new.sequence:
            echo_at = t + p.sequence_s(new.sequence)
        self._note(echo_at, StateNote(self._echo_state()))
        if steps:
            dur = p.sim_rotation_base_s + max(steps) * p.sim_rotation_per_side_s
            start = max(t, self._rotation_end)
            self._rotation_end = start + dur
            self._turning_until = max(self._turning_until, self._rotation_end)
            self._push(self._rotation_end, "rotated", int(round(dur * 1000)))

    def _echo_state(self) -> RtdtState:
        return replace(self.state, sound=0, sound_loop=False, sequence=0)

    # -- time ------------------------------------------------------------------------------

    def _push(self, t: float, kind: str, payload) -> None:
        heapq.heappush(self._queue, (t, next(self._seq), kind, payload))

    def _note(self, t: float, note) -> None:
        if self.connected:
            self._push(t, "note", build_notification(note, self.params))

    def _sag(self, t: float) -> None:
        """Run the battery model up to ``t``: idle drain, more while a drum turns."""
        p = self.params
        if t <= self._mv_t:
            return
        turning = max(0.0, min(t, self._turning_until) - self._mv_t)
        self._mv -= p.sim_battery_idle_mv_per_s * (t - self._mv_t) \
            + p.sim_battery_turning_mv_per_s * turning
        self._mv = max(self._mv, 0.0)
        self._mv_t = t

    def next_due(self) -> float | None:
        """Return the time of the next thing the tower does (s), or None when idle."""
        times = [q[0] for q in self._queue[:1]]
        if self._battery_due is not None and self.subscribed:
            times.append(self._battery_due)
        return min(times) if times else None

    def pop_due(self, t: float) -> list[tuple[float, bytes]]:
        """Run the tower up to ``t``; return the notifications sent by then, in order."""
        out = []
        while True:
            due = self.next_due()
            if due is None or due > t + 1e-9:
                break
            if self._battery_due is not None and self.subscribed and \
                    (not self._queue or self._battery_due < self._queue[0][0]):
                self._sag(due)
                out.append((due, build_notification(BatteryNote(self.battery_mv, b""),
                                                    self.params)))
                self._battery_due = due + self.params.battery_interval_s
                continue
            when, _, kind, payload = heapq.heappop(self._queue)
            self._sag(when)
            if kind == "note":
                if self.subscribed:
                    out.append((when, payload))
            elif kind == "rotated":
                if self.connected:
                    out.append((when, build_notification(RotationNote(payload, b""),
                                                         self.params)))
            elif kind == "calibrated" and self.calibrating_until == when:
                self.calibrating_until = None
                pos = self.params.sim_calibration_positions
                self.state = replace(self.state, drums=tuple(
                    Drum(position=pos[i], calibrated=True) for i in range(3)))
                reply = self.params.sim_calibration_reply
                if reply in ("calibration", "both"):
                    out.append((when, build_notification(CalibrationNote(b""), self.params)))
                if reply in ("state", "both"):
                    out.append((when, build_notification(StateNote(self._echo_state()),
                                                         self.params)))
        return out
