"""A bleak backend whose radio reaches virtual Return to Dark Towers (``emulator.rtdt``).

``SimBleakClient`` and ``SimBleakScanner`` implement bleak's backend interfaces
(``BaseBleakClient``, ``BaseBleakScanner``), so the real client code runs unchanged::

    radio = SimRadio([VirtualRtdt(params)])
    BleakScanner(backend=SimBleakScanner, radio=radio)
    BleakClient(address, backend=SimBleakClient, radio=radio)

as ``rig.usbsim`` is a pyusb backend for the simulated analyser. What is modelled: adverts
every ``ADVERT_INTERVAL_S`` carrying the name only (a name and a 128-bit UUID do not fit one
advert), connecting to an advertising tower, the GATT table (Generic Access, Device
Information with the tower's strings, Battery, Nordic UART with RX write / TX notify, Nordic
DFU, which this backend refuses to touch), writes with and without response, notifications
delivered on the loop at the tower's times, and the link going away (the disconnected
callback, or nothing at all for a silent drop). Radio timing is a fixed latency, not
modelled further; all times are the event loop's (simulated, with ``rig.rtdt.clock``).
"""
from __future__ import annotations

import asyncio
from typing import Any, Callable

from bleak.backends.characteristic import BleakGATTCharacteristic
from bleak.backends.client import BaseBleakClient
from bleak.backends.device import BLEDevice
from bleak.backends.scanner import AdvertisementData, BaseBleakScanner
from bleak.backends.service import BleakGATTService, BleakGATTServiceCollection
from bleak.exc import BleakDeviceNotFoundError, BleakError

from emulator.rtdt import DIS_VALUES, VirtualRtdt

__all__ = ["SimRadio", "SimBleakClient", "SimBleakScanner", "ADVERT_INTERVAL_S",
           "LINK_LATENCY_S"]

ADVERT_INTERVAL_S = 0.1
LINK_LATENCY_S = 0.015          # one way, per packet
DFU_SERVICE = "0000fe59-0000-1000-8000-00805f9b34fb"
DIS_SERVICE = "0000180a-0000-1000-8000-00805f9b34fb"
BATTERY_SERVICE = "0000180f-0000-1000-8000-00805f9b34fb"


class SimRadio:
    """The air between the host and the virtual towers: which are there, who is connected,
    and the timer that delivers each tower's notifications on the running event loop."""

    def __init__(self, devices: list[VirtualRtdt] | None = None):
        self.devices = {d.address.upper(): d for d in (devices or [])}
        self._clients: dict[str, "SimBleakClient"] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}

    def add(self, device: VirtualRtdt) -> VirtualRtdt:
        """Put a virtual tower on the air; return it."""
        self.devices[device.address.upper()] = device
        return device

    def device(self, address: str) -> VirtualRtdt:
        """Return the virtual tower at ``address``; raise BleakDeviceNotFoundError if none."""
        dev = self.devices.get(address.upper())
        if dev is None:
            raise BleakDeviceNotFoundError(address, f"no virtual tower at {address}")
        return dev

    @staticmethod
    def now() -> float:
        """Return the running event loop's time (s)."""
        return asyncio.get_running_loop().time()

    # -- what the client backend uses ------------------------------------------------------

    def attach(self, client: "SimBleakClient", dev: VirtualRtdt) -> None:
        self._clients[dev.address.upper()] = client
        self.kick(dev)

    def detach(self, dev: VirtualRtdt) -> None:
        self._clients.pop(dev.address.upper(), None)
        timer = self._timers.pop(dev.address.upper(), None)
        if timer is not None:
            timer.cancel()

    def kick(self, dev: VirtualRtdt) -> None:
        """(Re)arm the delivery timer of ``dev`` for its next notification."""
        key = dev.address.upper()
        timer = self._timers.pop(key, None)
        if timer is not None:
            timer.cancel()
        due = dev.next_due()
        if due is None or key not in self._clients:
            return
        loop = asyncio.get_running_loop()
        self._timers[key] = loop.call_at(max(due, loop.time()), self._deliver, dev)

    def _deliver(self, dev: VirtualRtdt) -> None:
        self._timers.pop(dev.address.upper(), None)
        client = self._clients.get(dev.address.upper())
        notes = dev.pop_due(self.now())
        if client is not None:
            for _, data in notes:
                client.receive(data)
        self.kick(dev)

    # -- what tests and scripts inject -----------------------------------------------------

    def drop_skull(self, address: str) -> None:
        """A skull falls through the tower at ``address`` now."""
        dev = self.device(address)
        dev.drop_skull(self.now())
        self.kick(dev)

    def notify(self, address: str, data: bytes) -> None:
        """The tower at ``address`` sends ``data`` as a notification now, as it is."""
        dev = self.device(address)
        dev.send_raw(self.now(), data)
        self.kick(dev)

    def set_battery(self, address: str, mv: int) -> None:
        """The cells of the tower at ``address`` now give ``mv`` millivolts."""
        dev = self.device(address)
        dev.set_battery(self.now(), mv)
        self.kick(dev)

    def drop_link(self, address: str, silent: bool = False) -> None:
        """Break the link to the tower at ``address`` now (``silent``: the host's stack does
        not notice; only the missing notifications tell)."""
        dev = self.device(address)
        client = self._clients.get(dev.address.upper())
        dev.drop_link(self.now(), silent)
        self.detach(dev)
        if client is not None:
            client.link_lost(silent)


def _char(service: BleakGATTService, handle: int, uuid: str, props: list[str]):
    return BleakGATTCharacteristic(None, handle, uuid, props, lambda: 20, service)


def _services(params) -> BleakGATTServiceCollection:
    coll = BleakGATTServiceCollection()
    handle = 1
    layout = [
        ("00001800-0000-1000-8000-00805f9b34fb", [("00002a00-0000-1000-8000-00805f9b34fb",
                                                  ["read"])]),
        ("00001801-0000-1000-8000-00805f9b34fb", []),
        (DIS_SERVICE, [(u, ["read"]) for u in DIS_VALUES]),
        (BATTERY_SERVICE, [("00002a19-0000-1000-8000-00805f9b34fb", ["read", "notify"])]),
        (params.service_uuid, [(params.write_uuid, ["write", "write-without-response"]),
                               (params.notify_uuid, ["notify"])]),
        (DFU_SERVICE, [("8ec90003-f315-4f60-9fb8-838830daea50", ["write", "indicate"])]),
    ]
    for suuid, chars in layout:
        svc = BleakGATTService(None, handle, suuid)
        coll.add_service(svc)
        handle += 1
        for cuuid, props in chars:
            coll.add_characteristic(_char(svc, handle, cuuid, props))
            handle += 2
    return coll


class SimBleakClient(BaseBleakClient):
    """A bleak client backend connected through a ``SimRadio`` (pass ``radio=``)."""

    def __init__(self, address_or_ble_device: BLEDevice | str, *,
                 disconnected_callback: Callable[[], None] | None = None, timeout: float = 10.0,
                 radio: SimRadio | None = None, **kwargs: Any):
        super().__init__(address_or_ble_device, disconnected_callback=disconnected_callback,
                         timeout=timeout)
        if radio is None:
            raise BleakError("SimBleakClient needs radio=SimRadio(...)")
        self._radio = radio
        self._dev: VirtualRtdt | None = None
        self._notify: Callable[[bytearray], None] | None = None
        self._connected = False

    @property
    def name(self) -> str:
        return self._dev.name if self._dev else self.address

    @property
    def mtu_size(self) -> int:
        return 23

    @property
    def is_connected(self) -> bool:
        return self._connected

    async def connect(self, pair: bool, **kwargs: Any) -> None:
        dev = self._radio.device(self.address)
        await asyncio.sleep(2 * LINK_LATENCY_S)
        if not dev.advertising(self._radio.now()):
            raise BleakDeviceNotFoundError(self.address,
                                           f"virtual tower {self.address} is not advertising")
        dev.connect(self._radio.now())
        self._dev = dev
        self._connected = True
        self.services = _services(dev.params)
        self._radio.attach(self, dev)

    async def disconnect(self) -> None:
        if self._dev is not None and self._connected:
            self._connected = False
            self._dev.disconnect(self._radio.now())
            self._radio.detach(self._dev)
        self._notify = None

    async def pair(self, *args: Any, **kwargs: Any) -> None:
        return None

    async def unpair(self) -> None:
        return None

    def _check(self) -> VirtualRtdt:
        if not self._connected or self._dev is None:
            raise BleakError(f"{self.address}: not connected")
        return self._dev

    async def read_gatt_char(self, characteristic, *, use_cached: bool = False, **kwargs):
        dev = self._check()
        await asyncio.sleep(2 * LINK_LATENCY_S)
        uuid = characteristic.uuid
        if uuid in DIS_VALUES:
            return bytearray(DIS_VALUES[uuid])
        if uuid == "00002a00-0000-1000-8000-00805f9b34fb":
            return bytearray(dev.name.encode())
        if uuid == "00002a19-0000-1000-8000-00805f9b34fb":
            from captures.rtdt import battery_percent
            return bytearray([battery_percent(dev.battery_mv, dev.params)])
        raise BleakError(f"{self.address}: characteristic {uuid} cannot be read")

    async def read_gatt_descriptor(self, descriptor, *, use_cached: bool = False, **kwargs):
        raise BleakError(f"{self.address}: the virtual tower has no readable descriptors")

    async def write_gatt_char(self, characteristic, data, response: bool) -> None:
        dev = self._check()
        if characteristic.service_uuid == DFU_SERVICE:
            raise BleakError("refusing to write the Nordic DFU service (it can brick a tower)")
        if characteristic.uuid != dev.params.write_uuid:
            raise BleakError(f"{self.address}: characteristic {characteristic.uuid} is not "
                             f"writable")
        await asyncio.sleep(LINK_LATENCY_S)
        if not self._connected:
            raise BleakError(f"{self.address}: disconnected during the write")
        if dev.silent_drop or not dev.connected:
            if response:
                await asyncio.sleep(1.0)       # the stack waits for a response in vain
                raise BleakError(f"{self.address}: write timed out (no response)")
            return
        dev.write(self._radio.now(), bytes(data))
        self._radio.kick(dev)
        if response:
            await asyncio.sleep(LINK_LATENCY_S)

    async def write_gatt_descriptor(self, descriptor, data) -> None:
        raise BleakError(f"{self.address}: the virtual tower has no writable descriptors")

    async def start_notify(self, characteristic, callback, **kwargs: Any) -> None:
        dev = self._check()
        if characteristic.uuid != dev.params.notify_uuid:
            raise BleakError(f"{self.address}: the virtual tower notifies only on "
                             f"{dev.params.notify_uuid}")
        await asyncio.sleep(2 * LINK_LATENCY_S)
        self._notify = callback
        dev.subscribe(self._radio.now())
        self._radio.kick(dev)

    async def stop_notify(self, characteristic) -> None:
        self._notify = None
        if self._dev is not None:
            self._dev.subscribed = False

    # -- from the radio --------------------------------------------------------------------

    def receive(self, data: bytes) -> None:
        """Deliver one notification (after the link latency)."""
        if self._notify is not None and self._connected:
            cb = self._notify
            asyncio.get_running_loop().call_later(LINK_LATENCY_S, self._late, cb,
                                                  bytearray(data))

    def _late(self, cb, data: bytearray) -> None:
        if self._notify is cb and self._connected:
            cb(data)

    def link_lost(self, silent: bool) -> None:
        """The radio link broke: tell bleak (unless ``silent``)."""
        if silent:
            self._notify = None              # nothing arrives any more; the host is not told
            return
        self._connected = False
        self._notify = None
        if self._disconnected_callback is not None:
            asyncio.get_running_loop().call_soon(self._disconnected_callback)


class SimBleakScanner(BaseBleakScanner):
    """A bleak scanner backend listening on a ``SimRadio`` (pass ``radio=``)."""

    def __init__(self, detection_callback=None, service_uuids=None, scanning_mode="active", *,
                 radio: SimRadio | None = None, **kwargs: Any):
        super().__init__(detection_callback, service_uuids)
        if radio is None:
            raise BleakError("SimBleakScanner needs radio=SimRadio(...)")
        self._radio = radio
        self._timer: asyncio.TimerHandle | None = None

    async def start(self) -> None:
        self.seen_devices = {}
        self._advertise()

    async def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _advertise(self) -> None:
        now = self._radio.now()
        for dev in self._radio.devices.values():
            if not dev.advertising(now):
                continue
            adv = AdvertisementData(local_name=dev.name, manufacturer_data={},
                                    service_data={},
                                    service_uuids=[dev.params.service_uuid]
                                    if dev.params.sim_advertise_service else [],
                                    tx_power=None,
                                    rssi=-60, platform_data=())
            if not self.is_allowed_uuid(adv.service_uuids):
                continue
            device = self.create_or_update_device(dev.address, dev.address, dev.name, None,
                                                  adv)
            self.call_detection_callbacks(device, adv)
        self._timer = asyncio.get_running_loop().call_later(ADVERT_INTERVAL_S,
                                                            self._advertise)
