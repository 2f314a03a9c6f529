"""Drive a Return to Dark Tower over Bluetooth LE with bleak: ``RtdtClient`` (asyncio) and
``RtdtTower``, its synchronous face, close to the Dark Tower's ``captures.tower.Tower``.

The same code talks to a real tower (bleak's platform backend, the wall clock) and to the
virtual one (``rig.rtdt.simble`` as the bleak backend, ``rig.rtdt.clock`` as the loop, so
every wait is simulated time)::

    tower = RtdtTower.simulated()            # or RtdtTower.bluetooth("AA:BB:...") / (None): scan
    tower.calibrate()                        # waits until the tower reports it (<= 60 s)
    tower.rotate("top", "south")
    tower.light("ledge", "northeast", "breathe")
    tower.sound(17)
    tower.advance(2.0)                       # let 2 s pass; notifications become events
    tower.events()                           # captures.events dicts, timed on arrival
    tower.close()

What the client does, each rule from docs/rtdt-protocol.md (all numbers in RtdtParams):

- finds the tower by advertised name (a prefix match by default) unless given an address,
  and refuses to choose when a second one is heard within ``scan_settle_s``;
- subscribes to the NUS TX characteristic and writes to RX (with response by default);
- keeps one command in flight: write (retrying a failed write ``write_retries`` times,
  ``write_retry_base_s * n`` apart), wait for the tower's reply (any notification but battery,
  rotation report and the unprompted diagnostics), then wait ``command_gap_s`` (drums:
  ``drum_gap_s``) before the next;
- builds every state write from the tower's last reported state with the sound, sequence and
  reverse bits cleared, because a state write sets everything and resent sounds replay;
- refuses drum moves before calibration;
- warns when the battery is low, and treats ``link_timeout_s`` without a battery packet
  (``link_timeout_long_s`` during a sequence or calibration) as a lost link, as a dropped
  connection is: it reconnects (``reconnect_attempts``), says the calibration was lost, and
  resends the command that was in flight, ``reconnect_attempts`` times at most (a drum
  move is not resent: the tower is no longer calibrated; it fails in one line instead).
"""
from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Callable

from bleak import BleakClient, BleakScanner
from bleak.exc import BleakError

from captures.events import make_event
from captures.rtdt import (DRUMS, LAYERS, LIGHT_NAMES, SEQUENCES, SIDES, BatteryNote,
                           CalibrationNote, DiagnosticNote, RotationNote, RtdtPacketError,
                           RtdtParams, RtdtState, StateNote, battery_percent, build_opcode,
                           build_state_write, effect_code, hexbytes, parse_notification,
                           state_events)
from captures.rtdt_script import RtdtScript
from rig.errors import RigError

__all__ = ["RtdtError", "RtdtClient", "RtdtTower", "run_rtdt_script", "scan"]


class RtdtError(RigError):
    """The tower could not be found, did not answer, or refused a command (one line)."""


class _LinkDropped(Exception):
    """The link went away while a command waited for its reply."""


def _no_radio(exc: BaseException) -> RtdtError:
    why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return RtdtError(f"Bluetooth LE is not available on this machine ({why}): it needs an "
                     f"adapter and, on Linux, BlueZ (apt-get install -y bluez; systemctl "
                     f"start bluetooth); use --target sim for the virtual tower")


def _service_filter(params: RtdtParams) -> list[str] | None:
    return [params.service_uuid] if params.scan_by_service else None


def _matches(name: str | None, params: RtdtParams) -> bool:
    if not name:
        return False
    return name.startswith(params.device_name) if params.name_is_prefix \
        else name == params.device_name


async def scan(params: RtdtParams, timeout: float | None = None, backend=None,
               **backend_kwargs) -> list[tuple[str, str, int]]:
    """Return ``(address, name, rssi)`` of every tower heard within ``timeout`` seconds."""
    try:
        found = await BleakScanner.discover(timeout=timeout or params.scan_timeout_s,
                                            return_adv=True, backend=backend,
                                            service_uuids=_service_filter(params),
                                            **backend_kwargs)
    except (BleakError, OSError) as exc:
        raise _no_radio(exc) from None
    return sorted((dev.address, adv.local_name or dev.name or "", adv.rssi)
                  for dev, adv in found.values() if _matches(adv.local_name or dev.name, params))


class RtdtClient:
    """One tower over bleak (see the module docstring); every method runs on one loop."""

    def __init__(self, params: RtdtParams | None = None, address: str | None = None, *,
                 client_backend=None, scanner_backend=None, backend_kwargs: dict | None = None,
                 on_warning: Callable[[str], None] | None = None):
        self.params = params or RtdtParams()
        self.address = address
        self._backend = client_backend
        self._scanner_backend = scanner_backend
        self._kw = dict(backend_kwargs or {})
        self.on_warning = on_warning
        self.events_log: list[dict] = []
        self.sent: list[dict] = []            # {"t", "data", "command", "result"}
        self.notifications: list[dict] = []   # {"t", "data"}
        self.warnings: list[str] = []
        self.state: RtdtState | None = None   # the tower's last reported state
        self.battery_mv: int | None = None
        self.device_info: dict[str, str] = {}
        self._t0: float | None = None
        self._client: BleakClient | None = None
        self._reply: tuple[str, asyncio.Future] | None = None
        self._lock = asyncio.Lock()
        self._link = asyncio.Event()
        self._link_gen = 0
        self._failed: RtdtError | None = None
        self._closing = False
        self._long = False
        self._last_battery_t = 0.0
        self._battery_event_mv: int | None = None
        self._low = False
        self._tasks: set[asyncio.Task] = set()
        self._reconnecting: asyncio.Task | None = None
        self._needs_calibration = False
        self.subscribed_at: float | None = None   # session time notifications were enabled
        self._sink: Callable[[str, dict], None] | None = None
        self._keep_notifications = True
        self.counts = {"sent": 0, "notifications": 0, "events": 0}
        self._in_flight: dict | None = None       # the sent row whose result may change
        self._settled_s = 0.0                     # scan time not counted (``open``)

    # -- time and events -------------------------------------------------------------------

    @property
    def now(self) -> float:
        """Return seconds since the session began (the loop's clock)."""
        t = asyncio.get_running_loop().time() if self._t0 is not None else 0.0
        return t - self._t0 if self._t0 is not None else 0.0

    def _emit(self, type: str, **fields) -> dict:
        ev = make_event(self.now, type, **fields)
        self._event(ev)
        return ev

    def _event(self, ev: dict) -> None:
        self.events_log.append(ev)
        self.counts["events"] += 1
        if self._sink is not None:
            self._sink("events", ev)

    def _sent_final(self, entry: dict) -> None:
        """Count a sent row whose result is final, and stream it (rig.rtdt.session)."""
        self._in_flight = None
        self.counts["sent"] += 1
        if self._sink is not None:
            self._sink("sent", entry)

    def stream_to(self, sink: Callable[[str, dict], None],
                  keep_notifications: bool = False) -> None:
        """Hand every row to ``sink(kind, row)`` as it becomes final (kind ``sent``,
        ``notifications`` or ``events``), starting with those kept so far; unless
        ``keep_notifications``, notifications are no longer kept in memory (a long session
        stays flat: the battery alone sends five a second)."""
        for entry in self.sent:
            if entry is not self._in_flight:
                sink("sent", entry)
        for row in self.notifications:
            sink("notifications", row)
        for ev in self.events_log:
            sink("events", ev)
        self._sink, self._keep_notifications = sink, keep_notifications
        if not keep_notifications:
            self.notifications.clear()

    def end_stream(self) -> None:
        """Hand the sink the command still waiting for its reply (its result says so), then
        stop streaming."""
        entry = self._in_flight
        if entry is not None:
            entry["result"] = f"{entry.get('result', 'not written')}; no reply before the " \
                              f"session ended"
            self._sent_final(entry)
        self._sink = None

    def _warn(self, text: str) -> None:
        self.warnings.append(f"t={self.now:.3f} s: {text}")
        if self.on_warning is not None:
            self.on_warning(text)

    # -- connection ------------------------------------------------------------------------

    async def open(self) -> None:
        """Find the tower, connect, subscribe; the session clock starts here (the time spent
        listening for a second tower, ``scan_settle_s``, not counted)."""
        self._t0 = asyncio.get_running_loop().time()
        self._settled_s = 0.0
        target = await self._find()
        self._t0 += self._settled_s
        await self._connect_once(target)
        self._spawn(self._watchdog())

    def _spawn(self, coro) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _find(self):
        if self.address:
            return self.address
        p = self.params
        found: dict[str, tuple] = {}
        heard = asyncio.Event()

        def seen(dev, adv) -> None:
            if _matches(adv.local_name or dev.name, p) and dev.address not in found:
                found[dev.address] = (dev, adv.rssi)
                heard.set()
        try:
            async with BleakScanner(seen, _service_filter(p), backend=self._scanner_backend,
                                    **self._kw):
                try:
                    await asyncio.wait_for(heard.wait(), p.scan_timeout_s)
                    heard_at = asyncio.get_running_loop().time()
                    await asyncio.sleep(p.scan_settle_s)     # is another tower in range?
                    self._settled_s = asyncio.get_running_loop().time() - heard_at
                except asyncio.TimeoutError:
                    pass
        except (BleakError, OSError) as exc:
            raise _no_radio(exc) from None
        if not found:
            raise RtdtError(f"no Bluetooth LE device named {p.device_name!r} heard in "
                            f"{p.scan_timeout_s:g} s (is the tower switched on, within 3 m, "
                            f"and not connected to the app?)")
        if len(found) > 1:
            towers = ", ".join(f"{a} ({rssi} dBm)" for a, (_, rssi) in sorted(found.items()))
            raise RtdtError(f"{len(found)} towers named {p.device_name!r} in range: {towers}; "
                            f"choose one by its address (--target ble:ADDRESS)")
        return next(iter(found.values()))[0]

    async def _connect_once(self, target=None) -> None:
        p = self.params
        target = target or await self._find()
        try:
            client = BleakClient(target, disconnected_callback=self._on_disconnect,
                                 timeout=p.connect_timeout_s, backend=self._backend, **self._kw)
        except (BleakError, OSError) as exc:
            raise _no_radio(exc) from None
        try:
            await asyncio.wait_for(client.connect(), p.connect_timeout_s)
            await client.start_notify(p.notify_uuid, self._on_note)
        except (BleakError, asyncio.TimeoutError, OSError) as exc:
            try:
                await client.disconnect()
            except (BleakError, OSError):
                pass
            if isinstance(exc, OSError) and not isinstance(exc, TimeoutError):
                raise _no_radio(exc) from None
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise RtdtError(f"cannot connect to the tower at {getattr(target, 'address', target)}"
                            f" ({why})") from None
        self._client = client
        self.address = client.address
        self.subscribed_at = self.now
        self._link_gen += 1
        self._last_battery_t = self.now
        self._link.set()

    def _on_disconnect(self, client) -> None:
        if self._closing or client is not self._client:
            return
        self._lost("the tower disconnected")

    def _lost(self, reason: str) -> None:
        if not self._link.is_set():
            return
        self._link.clear()
        self._emit("link", up=0, reason=reason)
        self._warn(f"link lost: {reason}")
        if self._reply is not None and not self._reply[1].done():
            self._reply[1].set_exception(_LinkDropped(reason))
        self._needs_calibration = True            # the tower forgets its calibration
        self._reconnecting = self._spawn(self._reconnect())

    async def _reconnect(self) -> None:
        p = self.params
        old = self._client
        if old is not None:
            try:
                await old.disconnect()
            except (BleakError, OSError):
                pass
        for attempt in range(1, p.reconnect_attempts + 1):
            await asyncio.sleep(p.reconnect_delay_s)
            if self._closing:
                return
            try:
                await self._connect_once()
            except RtdtError:
                continue
            self._emit("link", up=1, reason=f"reconnected (attempt {attempt}); the "
                                            f"calibration was lost")
            return
        self._failed = RtdtError(f"lost the tower and could not reconnect in "
                                 f"{p.reconnect_attempts} attempts "
                                 f"{p.reconnect_delay_s:g} s apart")
        self._link.set()                          # wake waiters: they see _failed

    async def _watchdog(self) -> None:
        p = self.params
        while not self._closing:
            await asyncio.sleep(0.25)
            limit = p.link_timeout_long_s if self._long else p.link_timeout_s
            if self._link.is_set() and self._failed is None and \
                    self.now - self._last_battery_t > limit:
                self._lost(f"no battery packet for {limit:g} s")

    async def _wait_link(self, timeout: float) -> None:
        if not self._link.is_set():
            try:
                await asyncio.wait_for(self._link.wait(), timeout)
            except asyncio.TimeoutError:
                raise RtdtError(f"the link to the tower stayed down for {timeout:g} s") from None
        if self._failed is not None:
            raise self._failed

    async def close(self) -> None:
        """Stop notifications and disconnect."""
        self._closing = True
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass
        if self._client is not None:
            try:
                await self._client.disconnect()
            except (BleakError, OSError):
                pass

    async def read_device_info(self) -> dict[str, str]:
        """Read the Device Information strings (manufacturer, model, firmware, ...)."""
        names = {"2a29": "manufacturer", "2a24": "model", "2a27": "hardware",
                 "2a26": "firmware", "2a28": "software"}
        await self._wait_link(self.params.reply_timeout_s)
        for short, label in names.items():
            uuid = f"0000{short}-0000-1000-8000-00805f9b34fb"
            try:
                raw = await self._client.read_gatt_char(uuid)
            except (BleakError, OSError):
                continue
            self.device_info[label] = bytes(raw).decode("utf-8", "replace")
        return self.device_info

    # -- notifications ---------------------------------------------------------------------

    def _on_note(self, _char, data: bytearray) -> None:
        p = self.params
        raw = bytes(data)
        row = {"t": round(self.now, 6), "data": raw.hex(" ")}
        self.counts["notifications"] += 1
        if self._keep_notifications:
            self.notifications.append(row)
        if self._sink is not None:
            self._sink("notifications", row)
        try:
            note = parse_notification(raw, p)
        except RtdtPacketError as exc:
            self._emit("notice", kind="unparsed", data=hexbytes(raw))
            self._warn(str(exc))
            return
        if isinstance(note, BatteryNote):
            self._battery(note.mv)
            return
        if isinstance(note, RotationNote):
            self._emit("rotation", ms=note.ms)
            return
        if isinstance(note, DiagnosticNote):
            self._emit("notice", kind=note.kind, data=hexbytes(raw))
            if note.kind in ("invalid_state", "hardware_failure"):
                self._resolve(("echo",), note)
            return
        if isinstance(note, CalibrationNote):
            if p.calibration_done_on in ("either", "calibration") or not self._pending(
                    "calibration"):
                self._emit("calibration", done=1)
                self._needs_calibration = False
                self._resolve(("calibration",), note)
            return
        assert isinstance(note, StateNote)
        evs = state_events(self.state, note.state, self.now, p)
        self.state = note.state
        for ev in evs:
            self._event(ev)
        self._resolve(("echo",), note)
        if self._pending("calibration") and (
                p.calibration_done_on == "state" or (
                    p.calibration_done_on == "either"
                    and all(d.calibrated for d in note.state.drums))):
            self._emit("calibration", done=1)
            self._needs_calibration = False
            self._resolve(("calibration",), note)

    def _pending(self, kind: str) -> bool:
        return self._reply is not None and self._reply[0] == kind and not self._reply[1].done()

    def _resolve(self, kinds: tuple, note) -> None:
        if self._reply is not None and self._reply[0] in kinds and not self._reply[1].done():
            self._reply[1].set_result(note)

    def _battery(self, mv: int) -> None:
        p = self.params
        self._last_battery_t = self.now
        self.battery_mv = mv
        pct = battery_percent(mv, p)
        low = pct <= p.battery_low_percent
        if self._battery_event_mv is None or abs(mv - self._battery_event_mv) >= \
                p.battery_event_step_mv or low != self._low:
            self._battery_event_mv = mv
            self._emit("battery", mv=mv, percent=pct, low=int(low))
        if low and not self._low:
            self._warn(f"battery low: {mv} mV ({pct} %): drums may jam; fit fresh cells "
                       f"(3 x AA, name-brand alkaline, lithium or >= 2000 mAh NiMH)")
        self._low = low

    # -- commands --------------------------------------------------------------------------

    def _base(self) -> RtdtState:
        s = self.state or RtdtState()
        return replace(s, sound=0, sound_loop=False, sequence=0,
                       drums=tuple(replace(d, reverse=False) for d in s.drums))

    async def _send(self, data: bytes, what: str, reply: str = "echo",
                    timeout: float | None = None, gap: float | None = None,
                    long: bool = False, answered: Callable[[], None] | None = None,
                    calibrated: bool = False) -> object:
        p = self.params
        timeout = p.reply_timeout_s if timeout is None else timeout
        async with self._lock:
            failures = drops = 0
            while True:
                if calibrated and self._needs_calibration:
                    # a drum move cut off by the link: the tower forgot its calibration with it
                    raise RtdtError(f"{what}: the link dropped before the tower answered, "
                                    f"and a tower forgets its calibration with the link: "
                                    f"calibrate, then send it again")
                await self._wait_link(timeout)
                loop = asyncio.get_running_loop()
                fut = loop.create_future()
                self._reply = (reply, fut)
                entry = {"t": round(self.now, 6), "data": data.hex(" "), "command": what}
                self.sent.append(entry)
                self._in_flight = entry
                gen = self._link_gen
                try:
                    await self._client.write_gatt_char(p.write_uuid, data,
                                                       response=p.write_with_response)
                except (BleakError, OSError) as exc:
                    why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                    entry["result"] = f"write failed: {why}"
                    self._reply = None
                    if fut.done():
                        fut.exception()          # the link dropped meanwhile: seen, not lost
                    if gen == self._link_gen and self._link.is_set():
                        failures += 1
                    self._sent_final(entry)
                    if failures > p.write_retries:
                        raise RtdtError(f"{what}: {p.write_retries + 1} writes failed "
                                        f"({entry['result']})") from None
                    await asyncio.sleep(p.write_retry_base_s * max(failures, 1))
                    continue
                entry["result"] = "written"
                self._long = long
                try:
                    note = await asyncio.wait_for(asyncio.shield(fut), timeout)
                except _LinkDropped:
                    drops += 1
                    if calibrated:
                        entry["result"] = "link lost before the reply; not resent"
                        self._sent_final(entry)
                        continue
                    if drops > p.reconnect_attempts:
                        entry["result"] = "link lost before the reply; given up"
                        self._sent_final(entry)
                        raise RtdtError(
                            f"{what}: the link dropped {drops} times before the tower "
                            f"answered (cells that sag when the drums turn can reset the "
                            f"tower: fit fresh ones)") from None
                    entry["result"] = "link lost before the reply; resent"
                    self._sent_final(entry)
                    continue
                except asyncio.TimeoutError:
                    entry["result"] = f"no reply in {timeout:g} s"
                    self._sent_final(entry)
                    raise RtdtError(f"{what}: no reply from the tower in {timeout:g} s (it drops "
                                    f"commands sent too fast, and while calibrating)") from None
                finally:
                    self._long = False
                    self._reply = None
                entry["result"] = "answered"
                self._sent_final(entry)
                if answered is not None:
                    answered()
                break
            await asyncio.sleep(p.command_gap_s if gap is None else gap)
            return note

    async def calibrate(self) -> None:
        """Calibrate the drums; return when the tower says it is done."""
        p = self.params
        await self._send(build_opcode(p.opcode_calibrate, p), "calibrate",
                         reply="calibration", timeout=p.calibration_timeout_s, long=True)

    async def rotate(self, drum: str, side: str) -> None:
        """Turn ``drum`` (top, middle, bottom) to ``side`` (north, east, south, west)."""
        i, pos = _index(DRUMS, drum, "drum"), _index(SIDES, side, "side")
        base = self._base()
        if not base.drums[i].calibrated or self._needs_calibration:
            raise RtdtError(f"rotate {drum} {side}: the {drum} drum is not calibrated "
                            f"(calibrate first; a tower forgets it on every disconnect)")
        new = base.with_drum(i, position=pos, calibrated=True, jammed=False, reverse=False)
        await self._send(build_state_write(new), f"rotate {drum} {side}",
                         gap=self.params.drum_gap_s, calibrated=True)

    async def light(self, layer: str, light: str, effect: str, loop: bool | None = None) -> None:
        """Set one light; ``loop`` defaults to on for every effect but off (as UDT does)."""
        p = self.params
        li = _index(LAYERS, layer, "light layer")
        names = LIGHT_NAMES[LAYERS[li]]
        n = _index(names, light, f"light on layer {layer}")
        code = effect_code(effect, p)
        loop = code != 0 if loop is None else loop
        new = self._base().with_light(li, n, code, loop, p)
        await self._send(build_state_write(new), f"light {layer} {light} {effect}")

    async def sound(self, n: int, loop: bool = False) -> None:
        """Play sound ``n`` (1..sound_count); a ``sound`` event follows the tower's echo."""
        if not 1 <= n <= self.params.sound_count:
            raise RtdtError(f"sound {n}: expected 1-{self.params.sound_count}")
        new = replace(self._base(), sound=n, sound_loop=loop)
        await self._send(build_state_write(new), f"sound {n}",
                         answered=lambda: self._emit("sound", sound=n, loop=int(loop)))

    async def sequence(self, n: int) -> None:
        """Run LED sequence ``n``; the tower echoes when the animation ends."""
        if not 1 <= n <= 255:
            raise RtdtError(f"sequence {n}: expected 1-255")
        new = replace(self._base(), sequence=n)
        await self._send(build_state_write(new), f"sequence {n}", long=True,
                         answered=lambda: self._emit("sequence", sequence=n,
                                                     name=SEQUENCES.get(n, f"sequence{n}")))

    async def volume(self, v: int) -> None:
        """Write the volume nibble (0-15; what the values mean is disputed)."""
        if not 0 <= v <= 15:
            raise RtdtError(f"volume {v}: expected 0-15")
        await self._send(build_state_write(replace(self._base(), volume=v)), f"volume {v}")

    async def reset_skulls(self) -> None:
        """Set the skull counter back to 0."""
        p = self.params
        if p.skull_reset_by_opcode:
            await self._send(build_opcode(p.opcode_reset_counter, p), "reset-skulls")
        else:
            await self._send(build_state_write(replace(self._base(), skulls=0,
                                                       beam_fault=False)), "reset-skulls")


def _index(names, value: str, what: str) -> int:
    v = value.lower()
    if v in names:
        return list(names).index(v)
    raise RtdtError(f"unknown {what} {value!r} (expected one of {', '.join(names)})")


class RtdtTower:
    """A Return to Dark Tower driven synchronously: each call runs the client's loop until
    the command is answered; ``advance`` lets time pass (simulated or wall clock)."""

    def __init__(self, client: RtdtClient, loop: asyncio.AbstractEventLoop, radio=None,
                 prompt: Callable[[str], None] | None = None):
        self.client = client
        self.loop = loop
        self.radio = radio
        self.prompt = prompt
        self._closed = False

    @classmethod
    def simulated(cls, params: RtdtParams | None = None, address: str | None = None,
                  device=None) -> "RtdtTower":
        """Open a virtual tower on a simulated radio and a simulated clock (found by
        scanning unless ``address`` is given)."""
        from emulator.rtdt import VirtualRtdt
        from rig.rtdt.clock import VirtualClockLoop
        from rig.rtdt.simble import SimBleakClient, SimBleakScanner, SimRadio
        params = params or RtdtParams()
        device = device or VirtualRtdt(params)
        radio = SimRadio([device])
        client = RtdtClient(params, address, client_backend=SimBleakClient,
                            scanner_backend=SimBleakScanner, backend_kwargs={"radio": radio})
        return cls._opened(client, VirtualClockLoop(), radio)

    @classmethod
    def bluetooth(cls, address: str | None = None, params: RtdtParams | None = None,
                  prompt: Callable[[str], None] | None = None) -> "RtdtTower":
        """Open a real tower over this machine's Bluetooth adapter (scan when no address)."""
        client = RtdtClient(params or RtdtParams(), address)
        return cls._opened(client, asyncio.new_event_loop(), None, prompt)

    @classmethod
    def _opened(cls, client, loop, radio, prompt=None) -> "RtdtTower":
        tower = cls(client, loop, radio, prompt)
        try:
            tower._run(client.open())
        except BaseException:
            tower.close()
            raise
        return tower

    def _run(self, coro):
        task = self.loop.create_task(coro)
        try:
            return self.loop.run_until_complete(task)
        except KeyboardInterrupt:
            # Ctrl-C left the command waiting: end it, so that closing finds no orphan
            if not task.done():
                task.cancel()
                try:
                    self.loop.run_until_complete(task)
                except BaseException:
                    pass
            raise

    @property
    def simulated_tower(self):
        """Return the virtual tower (emulator.rtdt.VirtualRtdt), or None on a real one."""
        if self.radio is None:
            return None
        return self.radio.device(self.client.address)

    @property
    def params(self) -> RtdtParams:
        return self.client.params

    @property
    def now(self) -> float:
        """Return seconds since the session began."""
        t0 = self.client._t0
        return 0.0 if t0 is None else self.loop.time() - t0

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` pass; notifications arriving meanwhile become events."""
        if seconds > 0:
            self._run(asyncio.sleep(seconds))

    def events(self) -> list[dict]:
        """Return the events observed so far (captures.events dicts)."""
        return list(self.client.events_log)

    def calibrate(self) -> None:
        """Calibrate the drums (waits for the tower's report, at most calibration_timeout_s)."""
        self._run(self.client.calibrate())

    def rotate(self, drum: str, side: str) -> None:
        """Turn a drum to a side."""
        self._run(self.client.rotate(drum, side))

    def light(self, layer: str, light: str, effect: str, loop: bool | None = None) -> None:
        """Set one of the 24 lights."""
        self._run(self.client.light(layer, light, effect, loop))

    def sound(self, n: int, loop: bool = False) -> None:
        """Play a sound."""
        self._run(self.client.sound(n, loop))

    def sequence(self, n: int) -> None:
        """Run an LED sequence."""
        self._run(self.client.sequence(n))

    def volume(self, v: int) -> None:
        """Write the volume nibble."""
        self._run(self.client.volume(v))

    def reset_skulls(self) -> None:
        """Reset the skull counter."""
        self._run(self.client.reset_skulls())

    def _inject(self, what: str, fn) -> None:
        if self.radio is None:
            if self.prompt is None:
                raise RtdtError(f"{what}: only the virtual tower can be made to do this")
            self.prompt(what)
            return

        async def run():
            fn(self.radio, self.client.address)
        self._run(run())

    def skull_drop(self) -> None:
        """Virtual tower: drop a skull now (a real tower: ask the person at it)."""
        self._inject("drop a skull into the tower now", lambda r, a: r.drop_skull(a))

    def drop_link(self, silent: bool = False) -> None:
        """Virtual tower: break the radio link now."""
        self._inject("break the link now (switch the tower off and on)",
                     lambda r, a: r.drop_link(a, silent))

    def set_battery(self, mv: int) -> None:
        """Virtual tower: the cells now give ``mv`` millivolts."""
        self._inject(f"fit cells giving {mv} mV", lambda r, a: r.set_battery(a, mv))

    def device_info(self) -> dict[str, str]:
        """Return the Device Information strings."""
        return self._run(self.client.read_device_info())

    def close(self) -> None:
        """Disconnect and close the loop."""
        if self._closed:
            return
        self._closed = True
        try:
            if not self.loop.is_closed():
                self._run(self.client.close())
        finally:
            if not self.loop.is_closed():
                self.loop.close()


def run_rtdt_script(tower: RtdtTower, script: RtdtScript, until: float | None = None,
                    progress: Callable[[float, float], None] | None = None,
                    log: list | None = None) -> list[dict]:
    """Run ``script`` on ``tower``: each command at its time, or as soon as the tower is free
    when an earlier one took longer; return one log entry per command (``t_script``,
    ``t_start``, ``t_end``, ``command``), appended to ``log`` as each ends when given (so a
    caller keeps them when the run breaks off)."""
    end = script.end_time() if until is None else until
    log = [] if log is None else log
    for cmd in script.timeline():
        if cmd.t > end:
            break
        if cmd.t > tower.now:
            tower.advance(cmd.t - tower.now)
        start = tower.now
        try:
            _do(tower, cmd)
        except RtdtError as exc:
            raise RtdtError(f"{script.name}:{cmd.line}: {exc}") from None
        log.append({"t_script": cmd.t, "t_start": round(start, 6), "t_end": round(tower.now, 6),
                    "command": cmd.text(), "line": cmd.line})
        if progress is not None:
            progress(min(tower.now, end), end)
    if end > tower.now:
        tower.advance(end - tower.now)
    return log


def _do(tower: RtdtTower, cmd) -> None:
    a = cmd.args
    if cmd.name == "calibrate":
        tower.calibrate()
    elif cmd.name == "rotate":
        tower.rotate(a[0], a[1])
    elif cmd.name == "light":
        tower.light(a[0], a[1], a[2], False if len(a) > 3 else None)
    elif cmd.name == "sound":
        tower.sound(a[0], loop=len(a) > 1)
    elif cmd.name == "sequence":
        tower.sequence(a[0])
    elif cmd.name == "volume":
        tower.volume(a[0])
    elif cmd.name == "reset-skulls":
        tower.reset_skulls()
    elif cmd.name == "skull-drop":
        tower.skull_drop()
    elif cmd.name == "drop-link":
        tower.drop_link(silent=bool(a))
    elif cmd.name == "battery":
        tower.set_battery(a[0])
    else:  # pragma: no cover - the parser knows every command
        raise RtdtError(f"unknown command {cmd.name!r}")
