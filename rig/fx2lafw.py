"""Drive an FX2-based logic analyser running sigrok's fx2lafw firmware, through pyusb.

Protocol as implemented by libsigrok's ``fx2lafw`` driver and the fx2lafw firmware:

1. Find a Cypress FX2 with no firmware (04b4:8613) or one already running fx2lafw (its
   manufacturer/product strings are "sigrok"/"fx2lafw"). For the former, upload a firmware file
   (``/usr/share/sigrok-firmware/fx2lafw-*.fw``, a raw image for address 0) with vendor request
   0xA0: CPUCS (0xE600) := 1 to hold the 8051, the image in 4 KiB chunks, CPUCS := 0 to start
   it; the board then re-enumerates.
2. 0xB0 GET_FW_VERSION (2 bytes; major must be 1), 0xB2 GET_REVID (1 byte).
3. 0xB1 START with ``{flags, delay_h, delay_l}``: flags bit 6 = 48 MHz clock (else 30 MHz),
   bit 5 = 16-bit samples; samplerate = clock / (delay + 1), delay at most 6 * 256.
4. Samples arrive on bulk IN endpoint 0x82, one byte (8 channels) or two little-endian bytes
   (16 channels) per sample. A reader thread turns them into ``Changes``.

Overrun detection: fx2lafw does not report lost samples, so the reader counts samples against a
reference clock (``clock``; wall time on real hardware, the bench clock in simulation). When
the count falls behind by more than the device can buffer plus ``slack_s``, the missing samples
are recorded as a ``Gap`` (placed after the data received so far: exact to one device buffer).
A USB error (cable pulled) ends the acquisition with a gap up to the clock's time.

Example::

    dev = Fx2lafw()                  # finds the board, uploads firmware if needed
    acq = dev.start(250_000, channels=16)
    ...                              # acq.capture() at any time: what arrived so far
    cap = acq.stop()
"""
from __future__ import annotations

import errno
import threading
import time
from collections import deque
from typing import Callable

import numpy as np
import usb.core
import usb.util

from captures.model import (CaptureError, CaptureInfo, Changes, Gap, MemoryCapture,
                            changes_from_samples)
from rig.errors import FirmwareError, UsbError, UsbPermissionError
from rig.usbsim import CYPRESS_IDS, find_firmware

__all__ = ["Fx2lafw", "Acquisition", "sample_delay", "FX2LAFW_REQUIRED_MAJOR"]

FX2LAFW_REQUIRED_MAJOR = 1
CMD_GET_FW_VERSION, CMD_START, CMD_GET_REVID = 0xB0, 0xB1, 0xB2
MAX_SAMPLE_DELAY = 6 * 256
UDEV_HINT = ("install sigrok's udev rule (60-libsigrok.rules from libsigrok) and re-plug, "
             "or add yourself to the plugdev group")


def sample_delay(samplerate: float) -> tuple[int, int]:
    """Return (flags clock bit, delay) for ``samplerate`` Hz as libsigrok's fx2lafw computes it.

    48 MHz is used when it divides evenly and the delay fits, else 30 MHz; raise UsbError if the
    rate cannot be made exactly.
    """
    for base, flag in ((48_000_000, 0x40), (30_000_000, 0x00)):
        if base % samplerate == 0 and 0 < base // samplerate - 1 <= MAX_SAMPLE_DELAY:
            return flag, int(base // samplerate - 1)
    raise UsbError(f"samplerate {samplerate:g} Hz is not one fx2lafw can make (use a divisor "
                   f"of 48 MHz or 30 MHz between 20 kHz and 24 MHz, e.g. 250000 or 1000000)")


def _is_fx2lafw(dev) -> bool:
    try:
        return (usb.util.get_string(dev, dev.iManufacturer) == "sigrok"
                and usb.util.get_string(dev, dev.iProduct) == "fx2lafw")
    except (usb.core.USBError, ValueError):
        return False


def _usb_fail(exc: usb.core.USBError, what: str) -> UsbError:
    if exc.errno == errno.EACCES:
        return UsbPermissionError(f"USB analyser: permission denied while {what} ({UDEV_HINT})")
    if exc.errno == errno.ENODEV:
        return UsbError(f"USB analyser disappeared while {what} (check the cable and re-plug)")
    return UsbError(f"USB analyser: {what} failed ({exc.strerror or exc})")


class _Fault(Exception):
    """The capture source failed: ``message`` for the user, ``reason`` for the gap record."""

    def __init__(self, message: str, reason: str):
        super().__init__(message)
        self.message = message
        self.reason = reason


class Acquisition:
    """A running capture: a reader thread fills change blocks and gaps until ``stop``.

    ``sink`` (optional) receives each ``Changes`` block and ``Gap`` as it is made (e.g. a
    captures.stream.StreamWriter's write_changes/write_gap), so a crash keeps what came in.
    """

    def __init__(self, dev, samplerate: float, channels: list[str], clock: Callable[[], float],
                 buffer_samples: int, slack_s: float, sink=None, wide: bool | None = None,
                 start_thread: bool = True):
        self.dev = dev
        self.samplerate = samplerate
        self.channels = channels
        self.wide = len(channels) > 8 if wide is None else wide
        self.clock = clock
        self.buffer_samples = buffer_samples
        self.slack_samples = int(slack_s * samplerate)
        self.sink = sink
        self.blocks: list[Changes] = []
        self.gaps: list[Gap] = []
        self.received = 0
        self.fault: str | None = None
        self._prev: int | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._t0 = clock()
        self._lags: deque[int] = deque(maxlen=64)
        self._thread = threading.Thread(target=self._run, name="analyser-reader", daemon=True)
        if start_thread:
            self._thread.start()

    def _expected(self) -> int:
        return int((self.clock() - self._t0) * self.samplerate)

    def _gap(self, size: int, reason: str) -> None:
        gap = Gap(self.received, self.received + size, reason)
        with self._lock:
            self.gaps.append(gap)
            self.received += size
        if self.sink is not None:
            try:
                self.sink.write_gap(gap)
            except (CaptureError, OSError):
                self.sink = None        # the fault that caused the gap is the one reported

    def _check_overrun(self) -> None:
        lag = self._expected() - self.received
        base = min(self._lags) if self._lags else 0
        if lag > self.buffer_samples + self.slack_samples + base:
            self._gap(lag - base, "overrun: host did not read the analyser fast enough")
        else:
            self._lags.append(max(0, lag))

    def _read(self) -> bytes | None:
        """Return the next bytes from the device, None on a timeout; raise _Fault on loss."""
        try:
            return bytes(self.dev.read(0x82, 1 << 16, timeout=100))
        except usb.core.USBTimeoutError:
            return None
        except usb.core.USBError as exc:
            raise _Fault(_usb_fail(exc, "capturing").args[0],
                         "analyser unplugged" if exc.errno == errno.ENODEV
                         else f"USB error: {exc.strerror}") from None

    def _release(self) -> None:
        try:
            usb.util.dispose_resources(self.dev)
        except usb.core.USBError:
            pass

    def _run(self) -> None:
        dtype = np.dtype("<u2") if self.wide else np.dtype(np.uint8)
        size = dtype.itemsize
        rest = b""
        while not self._stop.is_set():
            try:
                data = self._read()
            except _Fault as fault:
                missing = max(0, self._expected() - self.received)
                self.fault = fault.message
                self._gap(missing, fault.reason)
                return
            if not data:
                continue
            data = rest + data
            cut = len(data) - len(data) % size
            data, rest = data[:cut], data[cut:]
            words = np.frombuffer(data, dtype=dtype)
            if not len(words):
                continue
            block = changes_from_samples(words, self.received, self._prev)
            self._prev = int(words[-1])
            with self._lock:
                if len(block):
                    self.blocks.append(block)
                self.received += len(words)
            if self.sink is not None and len(block):
                try:
                    self.sink.write_changes(block, upto=self.received)
                except (CaptureError, OSError) as exc:
                    # the disk filled: stop here, so the file on disk and the session agree
                    self.sink = None
                    self.fault = str(exc)
                    return
            self._check_overrun()

    @property
    def running(self) -> bool:
        """Return True while the reader thread runs (False after stop or a fault)."""
        return self._thread.is_alive()

    def capture(self) -> MemoryCapture:
        """Return what arrived so far (changes and gaps) as a capture."""
        with self._lock:
            blocks = list(self.blocks)
            gaps = list(self.gaps)
            total = self.received
        times = np.concatenate([b.times for b in blocks]) if blocks else np.zeros(0, np.int64)
        words = np.concatenate([b.words for b in blocks]) if blocks else np.zeros(0, np.uint64)
        info = CaptureInfo(list(self.channels), self.samplerate, total,
                           {"source": "fx2lafw", "fault": self.fault} if self.fault
                           else {"source": "fx2lafw"})
        return MemoryCapture(info, times, words, gaps)

    def arrived(self, blocks_from: int = 0,
                gaps_from: int = 0) -> tuple[list[Changes], list[Gap], int]:
        """Return the change blocks from index ``blocks_from`` on, the gaps from index
        ``gaps_from`` on and the samples received so far (a live reader's new data, without
        copying what it has)."""
        with self._lock:
            return self.blocks[blocks_from:], self.gaps[gaps_from:], self.received

    def wait_for(self, samples: int, timeout: float) -> bool:
        """Block until ``samples`` samples (or gaps) have arrived; False on timeout or fault."""
        deadline = time.monotonic() + timeout
        while self.received < samples:
            if not self.running or time.monotonic() > deadline:
                return self.received >= samples
            time.sleep(0.002)
        return True

    def stop(self) -> MemoryCapture:
        """Stop reading, release the device and return the capture."""
        self._stop.set()
        self._thread.join(timeout=5)
        self._release()
        return self.capture()


class Fx2lafw:
    """An fx2lafw analyser: find it, load firmware, start acquisitions."""

    def __init__(self, backend=None, firmware: str | None = None,
                 clock: Callable[[], float] = time.monotonic, renumerate_timeout: float = 5.0,
                 buffer_bytes: int = 1 << 16, slack_s: float = 0.25):
        self.backend = backend
        self.firmware = firmware
        self.clock = clock
        self.renumerate_timeout = renumerate_timeout
        self.buffer_bytes = buffer_bytes
        self.slack_s = slack_s
        self.dev = None
        self.version: tuple[int, int] | None = None
        self.revid: int | None = None

    def _find(self):
        try:
            devs = list(usb.core.find(find_all=True, backend=self.backend))
        except usb.core.NoBackendError:
            raise UsbError("no USB backend: install libusb-1.0 (apt-get install -y "
                           "libusb-1.0-0)") from None
        ready = [d for d in devs if _is_fx2lafw(d)]
        blank = [d for d in devs if (d.idVendor, d.idProduct) == CYPRESS_IDS]
        return ready, blank

    def open(self) -> "Fx2lafw":
        """Find the analyser, upload fx2lafw if it has none, and check its firmware version."""
        ready, blank = self._find()
        if not ready:
            if not blank:
                raise UsbError("no fx2lafw-compatible analyser found (plug it in; lsusb should "
                               "show 04b4:8613 or 1d50:608c/608d)")
            self._upload(blank[0])
            deadline = time.monotonic() + self.renumerate_timeout
            while not ready and time.monotonic() < deadline:
                time.sleep(0.02)
                ready, _ = self._find()
            if not ready:
                raise FirmwareError(f"USB analyser did not come back after loading "
                                    f"{self.firmware} (not an fx2lafw image? use "
                                    f"/usr/share/sigrok-firmware/fx2lafw-cypress-fx2.fw)")
        self.dev = ready[0]
        try:
            ver = self.dev.ctrl_transfer(0xC0, CMD_GET_FW_VERSION, 0, 0, 2, timeout=1000)
            rev = self.dev.ctrl_transfer(0xC0, CMD_GET_REVID, 0, 0, 1, timeout=1000)
        except usb.core.USBError as exc:
            raise _usb_fail(exc, "reading the firmware version") from None
        self.version = (ver[0], ver[1])
        self.revid = rev[0]
        if ver[0] != FX2LAFW_REQUIRED_MAJOR:
            raise FirmwareError(f"USB analyser runs fx2lafw {ver[0]}.{ver[1]}; this driver needs "
                                f"{FX2LAFW_REQUIRED_MAJOR}.x (update sigrok-firmware-fx2lafw and "
                                f"re-plug)")
        return self

    def _upload(self, dev) -> None:
        path = self.firmware or find_firmware()
        if path is None:
            raise FirmwareError("fx2lafw firmware not found in /usr/share/sigrok-firmware "
                                "(apt-get install -y sigrok-firmware-fx2lafw)")
        self.firmware = path
        try:
            with open(path, "rb") as f:
                image = f.read()
        except OSError as exc:
            raise FirmwareError(f"{path}: cannot read firmware ({exc.strerror})") from None
        if not image:
            raise FirmwareError(f"{path}: firmware file is empty")
        try:
            dev.ctrl_transfer(0x40, 0xA0, 0xE600, 0, b"\x01", timeout=1000)
            for off in range(0, len(image), 4096):
                dev.ctrl_transfer(0x40, 0xA0, off, 0, image[off:off + 4096], timeout=1000)
            dev.ctrl_transfer(0x40, 0xA0, 0xE600, 0, b"\x00", timeout=1000)
        except usb.core.USBError as exc:
            raise _usb_fail(exc, f"uploading {path}") from None
        usb.util.dispose_resources(dev)

    def start(self, samplerate: float, channels: list[str], sink=None) -> Acquisition:
        """Start sampling ``channels`` (probe D0.. in order; up to 16) at ``samplerate`` Hz."""
        if self.dev is None:
            self.open()
        if not 1 <= len(channels) <= 16:
            raise UsbError(f"fx2lafw records 1 to 16 channels, got {len(channels)}")
        flag, delay = sample_delay(samplerate)
        wide = len(channels) > 8
        flags = flag | (0x20 if wide else 0)
        try:
            self.dev.ctrl_transfer(0x40, CMD_START, 0, 0,
                                   bytes([flags, delay >> 8, delay & 0xFF]), timeout=1000)
        except usb.core.USBError as exc:
            raise _usb_fail(exc, "starting the acquisition") from None
        size = 2 if wide else 1
        return Acquisition(self.dev, samplerate, list(channels), self.clock,
                           self.buffer_bytes // size, self.slack_s, sink)
