"""A simulated Cypress FX2 logic analyser behind a pyusb backend, fed by a virtual tower's pins.

``SimFX2`` models what the rig's fx2lafw driver relies on, following the sigrok fx2lafw
firmware and libsigrok's ``fx2lafw`` driver:

- Before firmware: VID:PID 04b4:8613 ("Cypress" / "FX2"), control endpoint only. Vendor request
  0xA0 writes the 8051's RAM at ``wValue``; writing 1 to CPUCS (0xE600) holds the 8051 in reset,
  writing 0 starts it. The started image must be one of the fx2lafw firmware files (compared
  byte for byte with /usr/share/sigrok-firmware/fx2lafw-*.fw): then the device drops off the bus
  and re-enumerates after ``renumerate_s`` (wall seconds) as 1d50:608d ("sigrok" / "fx2lafw")
  with bulk IN endpoint 0x82 (512-byte packets). Any other image never comes back.
- fx2lafw requests: 0xB0 GET_FW_VERSION -> (1, 4); 0xB2 GET_REVID -> 1; 0xB1 START with
  ``{flags, delay_h, delay_l}``: samplerate = (48 MHz if flags bit 6 else 30 MHz) / (delay + 1),
  16-bit samples if flags bit 5.
- Samples stream on endpoint 0x82 as little-endian bytes. The device buffers ``fifo_bytes``
  (the FX2's quad-buffered endpoint plus the transfers libsigrok keeps queued); when the host
  does not read fast enough, new samples are dropped (the GPIF stalls), which the driver must
  notice as an overrun.

Faithfulness: register-level upload, the request numbers and payloads, re-enumeration and the
bulk byte format are real; the 8051 is not executed (the image is recognised, not run), USB
timing is not modelled, and the sample clock is the virtual bench's clock, not a crystal.

Faults: ``unplug()`` (bulk and control transfers raise ENODEV), ``deny_access`` (open raises
EACCES, like a missing udev rule), ``hold_bus(seconds)`` (no bulk data is delivered for that
much bench time, so the FIFO overruns).
"""
from __future__ import annotations

import array
import errno
import glob
import os
import threading
import time
from types import SimpleNamespace
from typing import Callable

import numpy as np
import usb.backend
import usb.core

__all__ = ["CYPRESS_IDS", "FX2LAFW_IDS", "FIRMWARE_DIRS", "find_firmware", "SimFX2",
           "SimUsbBackend", "FW_VERSION"]

CYPRESS_IDS = (0x04B4, 0x8613)
FX2LAFW_IDS = (0x1D50, 0x608D)
FW_VERSION = (1, 4)
CPUCS = 0xE600
FIRMWARE_DIRS = ("/usr/share/sigrok-firmware", "/usr/local/share/sigrok-firmware",
                 os.path.expanduser("~/.local/share/sigrok-firmware"))


def find_firmware(name: str = "fx2lafw-cypress-fx2.fw") -> str | None:
    """Return the path of an fx2lafw firmware file in the usual sigrok directories, or None."""
    extra = os.environ.get("SIGROK_FIRMWARE_DIR")
    for d in ((extra,) if extra else ()) + FIRMWARE_DIRS:
        path = os.path.join(d, name)
        if os.path.isfile(path):
            return path
    return None


def _known_images() -> dict[bytes, str]:
    images = {}
    for d in FIRMWARE_DIRS:
        for path in glob.glob(os.path.join(d, "fx2lafw-*.fw")):
            with open(path, "rb") as f:
                images[f.read()] = os.path.basename(path)
    return images


def _usb_error(text: str, code: int, err: int) -> usb.core.USBError:
    return usb.core.USBError(text, error_code=code, errno=err)


class SimFX2:
    """The simulated analyser board (see the module docstring)."""

    def __init__(self, clock: Callable[[], float], fifo_bytes: int = 1 << 18,
                 renumerate_s: float = 0.05, bus: int = 1, address: int = 7):
        self.clock = clock
        self.fifo_bytes = fifo_bytes
        self.renumerate_s = renumerate_s
        self.bus, self.address = bus, address
        self.ram = bytearray(0x4000)
        self.in_reset = False
        self.written = 0
        self.firmware_name: str | None = None
        self.plugged = True
        self.deny_access = False
        self._back_at: float | None = None     # wall time the re-enumerated device appears
        self._gone = False                      # off the bus (after an unknown image)
        self.samplerate = 0.0
        self.wide = False
        self.acquiring = False
        self.acq_start = 0.0                    # bench seconds of sample 0
        self.samples_made = 0
        self.samples_dropped = 0
        self._hold_until = -1.0
        self._fifo = bytearray()
        self._cond = threading.Condition()

    # -- identity --------------------------------------------------------------------------

    @property
    def running_fx2lafw(self) -> bool:
        """Return True once the fx2lafw image runs and the device has re-enumerated."""
        return self.firmware_name is not None and (self._back_at is None
                                                   or time.monotonic() >= self._back_at)

    @property
    def visible(self) -> bool:
        """Return True while the device is on the bus (not mid re-enumeration, not unplugged)."""
        if not self.plugged or self._gone:
            return False
        return self._back_at is None or time.monotonic() >= self._back_at

    @property
    def ids(self) -> tuple[int, int]:
        return FX2LAFW_IDS if self.running_fx2lafw else CYPRESS_IDS

    def strings(self) -> dict[int, str]:
        if self.running_fx2lafw:
            return {1: "sigrok", 2: "fx2lafw", 3: "SIM0001"}
        return {1: "Cypress", 2: "FX2", 3: ""}

    # -- bench side ------------------------------------------------------------------------

    def push(self, words: np.ndarray, wait_s: float | None = 0.0) -> None:
        """Queue samples (one probe word per sample, bit i = input Di) as the GPIF would.

        Waits up to ``wait_s`` wall seconds for FIFO room (None: as long as the device is
        plugged and the bus not held), then drops what does not fit.
        """
        if not self.acquiring or not len(words):
            return
        data = (np.asarray(words).astype("<u2") if self.wide
                else np.asarray(words).astype(np.uint8)).tobytes()
        size = 2 if self.wide else 1
        self.samples_made += len(words)
        with self._cond:
            deadline = None if wait_s is None else time.monotonic() + wait_s
            while (len(self._fifo) + len(data) > self.fifo_bytes and self.plugged
                   and self.clock() >= self._hold_until
                   and (deadline is None or time.monotonic() < deadline)):
                self._cond.wait(0.1 if deadline is None else deadline - time.monotonic())
            room = max(0, self.fifo_bytes - len(self._fifo))
            room -= room % size
            if room < len(data):
                self.samples_dropped += (len(data) - room) // size
                data = data[:room]
            self._fifo += data
            self._cond.notify_all()

    def unplug(self) -> None:
        """Pull the USB cable: every later transfer fails with ENODEV."""
        with self._cond:
            self.plugged = False
            self.acquiring = False
            self._cond.notify_all()

    def hold_bus(self, seconds: float) -> None:
        """Deliver no bulk data for the next ``seconds`` of bench time (forces an overrun)."""
        self._hold_until = self.clock() + seconds

    # -- USB side --------------------------------------------------------------------------

    def control(self, bm: int, req: int, value: int, index: int, data) -> bytes | int:
        """Handle a control transfer: return bytes for IN requests, a count for OUT."""
        if not self.plugged or self._gone:
            raise _usb_error("No such device (it may have been disconnected)", -4, errno.ENODEV)
        if bm == 0x80 and req == 0x06:
            return self._descriptor(value >> 8, value & 0xFF)
        if bm == 0x40 and req == 0xA0:
            return self._write_ram(value, bytes(data))
        if not self.running_fx2lafw:
            raise _usb_error("Pipe error", -9, errno.EPIPE)
        if bm == 0xC0 and req == 0xB0:
            return bytes(FW_VERSION)
        if bm == 0xC0 and req == 0xB2:
            return bytes([1])
        if bm == 0x40 and req == 0xB1:
            return self._start(bytes(data))
        raise _usb_error("Pipe error", -9, errno.EPIPE)

    def _descriptor(self, kind: int, idx: int) -> bytes:
        if kind == 1:
            vid, pid = self.ids
            return bytes([18, 1, 0x00, 0x02, 0, 0, 0, 64, vid & 0xFF, vid >> 8, pid & 0xFF,
                          pid >> 8, 0x00, 0x01, 1, 2, 3, 1])
        if kind == 3:
            if idx == 0:
                return bytes([4, 3, 0x09, 0x04])
            text = self.strings().get(idx, "").encode("utf-16-le")
            return bytes([2 + len(text), 3]) + text
        raise _usb_error("Pipe error", -9, errno.EPIPE)

    def _write_ram(self, addr: int, data: bytes) -> int:
        if addr == CPUCS:
            held = bool(data[0] & 1)
            if self.in_reset and not held:
                self._boot()
            self.in_reset = held
            return len(data)
        if not self.in_reset:
            raise _usb_error("Pipe error (8051 not held in reset)", -9, errno.EPIPE)
        if addr + len(data) > len(self.ram):
            raise _usb_error("Pipe error (address beyond RAM)", -9, errno.EPIPE)
        self.ram[addr:addr + len(data)] = data
        self.written = max(self.written, addr + len(data))
        return len(data)

    def _boot(self) -> None:
        image = bytes(self.ram[:self.written])
        self.firmware_name = _known_images().get(image)
        self.acquiring = False
        if self.firmware_name is None:
            self._gone = True
        else:
            self._back_at = time.monotonic() + self.renumerate_s

    def _start(self, data: bytes) -> int:
        if len(data) != 3:
            raise _usb_error("Pipe error (start needs 3 bytes)", -9, errno.EPIPE)
        flags, delay = data[0], (data[1] << 8) | data[2]
        base = 48e6 if flags & 0x40 else 30e6
        with self._cond:
            self.samplerate = base / (delay + 1)
            self.wide = bool(flags & 0x20)
            self._fifo.clear()
            self.samples_made = 0
            self.samples_dropped = 0
            self.acq_start = self.clock()
            self.acquiring = True
        return len(data)

    def bulk_in(self, size: int, timeout_ms: int) -> bytes:
        """Return up to ``size`` bytes from the FIFO, waiting up to ``timeout_ms``."""
        deadline = time.monotonic() + timeout_ms / 1000.0
        with self._cond:
            while True:
                if not self.plugged:
                    raise _usb_error("No such device (it may have been disconnected)", -4,
                                     errno.ENODEV)
                if self._fifo and self.clock() >= self._hold_until:
                    n = min(size, len(self._fifo))
                    if self.wide:
                        n -= n % 2
                    out = bytes(self._fifo[:n])
                    del self._fifo[:n]
                    self._cond.notify_all()
                    return out
                left = deadline - time.monotonic()
                if left <= 0:
                    raise usb.core.USBTimeoutError("Operation timed out", -7, errno.ETIMEDOUT)
                self._cond.wait(min(left, 0.01))


class SimUsbBackend(usb.backend.IBackend):
    """A pyusb backend whose bus holds simulated devices (pass it as ``backend=`` to pyusb).

    Its methods are those of ``usb.backend.IBackend`` (pyusb documents each); they answer
    from the SimFX2 devices: descriptors, control and bulk transfers, USB errors as libusb's.
    """

    def __init__(self, devices: list[SimFX2]):
        self.devices = list(devices)

    def enumerate_devices(self):
        for d in self.devices:
            if d.visible:
                yield d

    def get_device_descriptor(self, dev):
        vid, pid = dev.ids
        return SimpleNamespace(
            bLength=18, bDescriptorType=1, bcdUSB=0x0200, bDeviceClass=0, bDeviceSubClass=0,
            bDeviceProtocol=0, bMaxPacketSize0=64, idVendor=vid, idProduct=pid, bcdDevice=0x0100,
            iManufacturer=1, iProduct=2, iSerialNumber=3, bNumConfigurations=1,
            address=dev.address, bus=dev.bus, port_number=1, port_numbers=(1,), speed=3)

    def get_configuration_descriptor(self, dev, config):
        if config != 0:
            raise IndexError("configuration index out of range")
        return SimpleNamespace(bLength=9, bDescriptorType=2, wTotalLength=32, bNumInterfaces=1,
                               bConfigurationValue=1, iConfiguration=0, bmAttributes=0x80,
                               bMaxPower=50, extra_descriptors=[])

    def get_interface_descriptor(self, dev, intf, alt, config):
        if intf != 0 or alt != 0 or config != 0:
            raise IndexError("interface index out of range")
        return SimpleNamespace(bLength=9, bDescriptorType=4, bInterfaceNumber=0,
                               bAlternateSetting=0,
                               bNumEndpoints=1 if dev.running_fx2lafw else 0,
                               bInterfaceClass=0xFF, bInterfaceSubClass=0, bInterfaceProtocol=0,
                               iInterface=0, extra_descriptors=[])

    def get_endpoint_descriptor(self, dev, ep, intf, alt, config):
        if ep != 0 or intf != 0 or not dev.running_fx2lafw:
            raise IndexError("endpoint index out of range")
        return SimpleNamespace(bLength=7, bDescriptorType=5, bEndpointAddress=0x82,
                               bmAttributes=0x02, wMaxPacketSize=512, bInterval=0, bRefresh=0,
                               bSynchAddress=0, extra_descriptors=[])

    def open_device(self, dev):
        if not dev.visible:
            raise _usb_error("No such device (it may have been disconnected)", -4, errno.ENODEV)
        if dev.deny_access:
            raise _usb_error("Access denied (insufficient permissions)", -3, errno.EACCES)
        return dev

    def close_device(self, dev_handle):
        dev_handle.acquiring = False

    def set_configuration(self, dev_handle, config_value):
        pass

    def get_configuration(self, dev_handle):
        return 1

    def set_interface_altsetting(self, dev_handle, intf, altsetting):
        pass

    def claim_interface(self, dev_handle, intf):
        if not dev_handle.plugged:
            raise _usb_error("No such device (it may have been disconnected)", -4, errno.ENODEV)

    def release_interface(self, dev_handle, intf):
        pass

    def is_kernel_driver_active(self, dev_handle, intf):
        return False

    def ctrl_transfer(self, dev_handle, bmRequestType, bRequest, wValue, wIndex, data, timeout):
        out = dev_handle.control(bmRequestType, bRequest, wValue, wIndex, data)
        if isinstance(out, int):
            return out
        n = min(len(out), len(data))
        data[:n] = array.array("B", out[:n])
        return n

    def bulk_read(self, dev_handle, ep, intf, buff, timeout):
        if ep != 0x82 or not dev_handle.running_fx2lafw:
            raise _usb_error("Pipe error", -9, errno.EPIPE)
        got = dev_handle.bulk_in(len(buff), timeout)
        buff[:len(got)] = array.array("B", got)
        return len(got)

    def clear_halt(self, dev_handle, ep):
        pass

    def reset_device(self, dev_handle):
        pass
