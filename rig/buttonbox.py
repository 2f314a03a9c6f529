"""Talk to the button box (rig/firmware/buttonbox.c) over a serial port with pyserial.

The same class drives a real Arduino on /dev/ttyACM0 and the simavr-run firmware behind a
pseudo-terminal (rig/simbox.py). Each command is one frame; the reply carries the same ``seq``.
A reply that does not come within ``timeout`` seconds (lost or garbled on the line) makes the
host resend the same frame with the same ``seq``: the firmware answers a repeat without running
it again, so a resend never presses a key twice.

Example::

    box = ButtonBox("/dev/ttyACM0")
    box.hello()                                  # checks protocol and firmware versions
    ack = box.press("YES/BUY", hold_ms=200)      # ack.at_us = device time the key closed
    box.close()
"""
from __future__ import annotations

import errno
import random
import time
from dataclasses import dataclass

import serial

try:
    from termios import error as _TermiosError
except ImportError:                     # not a POSIX host: pyserial raises only the others
    class _TermiosError(Exception):
        """Never raised here."""

# what a serial port raises when its device has gone: pyserial's own error, an OSError (EIO
# on a pty whose other end closed) or, from tcdrain in flush, termios.error (which is no
# OSError)
_GONE = (OSError, serial.SerialException, _TermiosError)

from captures.script import BUTTONS
from rig import protocol as p
from rig.errors import FirmwareError, LinkError, LinkLostError, PortBusyError, RigError

__all__ = ["ButtonBox", "Hello", "Ack", "Status", "button_index", "open_serial"]

FLASH_HINT = "flash it with: towerlab rig firmware --flash PORT"


def button_index(button: str) -> int:
    """Return the key number (0-11, captures.script.BUTTONS order) of a button name."""
    try:
        return BUTTONS.index(button.upper())
    except ValueError:
        raise RigError(f"unknown button {button!r} (expected one of {', '.join(BUTTONS)})") \
            from None


@dataclass(frozen=True)
class Hello:
    """The box's identity: protocol version, firmware version, key count, device time (us)."""
    protocol: int
    firmware: tuple[int, int]
    buttons: int
    now_us: int

    def outdated(self) -> str | None:
        """Return what an older firmware of the same major version lacks (one line, with how
        to update it), or None for the firmware this host is written for."""
        if tuple(self.firmware) >= p.FIRMWARE_VERSION:
            return None
        have = ".".join(map(str, self.firmware))
        want = ".".join(map(str, p.FIRMWARE_VERSION))
        return (f"firmware {have} cannot say that the box was reset, and its clock wraps at "
                f"35.8 min; {want} can: {FLASH_HINT}")


@dataclass(frozen=True)
class Ack:
    """A command's outcome: ``at_us`` is when it takes (or took) effect, in unwrapped device us;
    ``status`` is protocol.ACK_DONE, ACK_SCHEDULED or ACK_LATE."""
    cmd: int
    status: int
    at_us: int


@dataclass(frozen=True)
class Status:
    """The box's state: device time (us), closed keys (bit i = BUTTONS[i]), power, flags."""
    now_us: int
    buttons: int
    power: bool
    watchdog_tripped: bool
    pending: bool
    crc_errors: int
    watchdog_ms: int
    restarted: bool = False     # no hello since the box's reset (firmware 1.1 and later)


def open_serial(port: str, baudrate: int = 115200) -> serial.Serial:
    """Open ``port`` exclusively; raise a one-line RigError with the fix when that fails."""
    try:
        return serial.serial_for_url(port, baudrate=baudrate, timeout=0.05, exclusive=True)
    except serial.SerialException as exc:
        err = getattr(exc, "errno", None)
        text = str(exc)
        if "exclusively lock" in text or err in (errno.EBUSY, errno.EAGAIN):
            raise PortBusyError(f"{port}: serial port is busy (another program holds it; "
                                f"find it with: fuser -v {port})") from None
        if err == errno.EACCES or "Permission denied" in text:
            raise RigError(f"{port}: permission denied (add yourself to the dialout group: "
                           f"sudo usermod -aG dialout $USER, then log in again)") from None
        if err == errno.ENOENT or "No such file" in text:
            raise RigError(f"{port}: no such serial port (is the button box plugged in? "
                           f"try ls /dev/ttyACM* /dev/ttyUSB*)") from None
        raise RigError(f"{port}: cannot open serial port ({text.splitlines()[0]})") from None


class ButtonBox:
    """The host side of the button-box protocol over one serial port."""

    def __init__(self, port: str, baudrate: int = 115200, timeout: float = 0.25,
                 retries: int = 6, link: serial.Serial | None = None):
        self.port = port
        self.timeout = timeout
        self.retries = retries
        self._ser = link if link is not None else open_serial(port, baudrate)
        self._parser = p.FrameParser()
        self._seq = random.randrange(255)   # a new host does not reuse the last session's seq
        self._wrap = 0          # unwrapping of the 32-bit device microsecond counter
        self._last_us = 0
        self.resends = 0
        self.hello_info: Hello | None = None

    # -- link --------------------------------------------------------------------------

    def close(self) -> None:
        """Close the serial port (the box's watchdog then releases every key)."""
        try:
            self._ser.close()
        except _GONE:
            pass

    def _write(self, data: bytes) -> None:
        try:
            self._ser.write(data)
            self._ser.flush()
        except _GONE as exc:
            raise LinkLostError(f"{self.port}: button box went away while writing "
                                f"({_first_line(exc)}); plug it back in and re-run") from None

    def _read(self) -> bytes:
        try:
            return self._ser.read(max(1, self._ser.in_waiting))
        except (*_GONE, TypeError) as exc:
            raise LinkLostError(f"{self.port}: button box went away while reading "
                                f"({_first_line(exc)}); plug it back in and re-run") from None

    def request(self, type: int, retries: int | None = None, **fields) -> p.Frame:
        """Send one command and return its reply frame; resend on silence, raise on NAK."""
        self._seq = self._seq % 255 + 1
        raw = p.encode(type, self._seq, **fields)
        pending: list[p.Frame] = []
        tries = self.retries if retries is None else retries
        for attempt in range(tries):
            if attempt:
                self.resends += 1
            self._write(raw)
            deadline = time.monotonic() + self.timeout
            while time.monotonic() < deadline:
                data = self._read()
                if data:
                    pending.extend(self._parser.feed(data))
                while pending:
                    frame = pending.pop(0)
                    if frame.seq != self._seq:
                        continue            # a late reply to an earlier attempt
                    if frame.type == p.REP_NAK:
                        f = frame.fields()
                        raise LinkError(f"{self.port}: button box refused command 0x{f.cmd:02x}"
                                        f": {p.NAK_REASONS.get(f.code, f'code {f.code}')}")
                    return frame
        raise LinkError(f"{self.port}: no reply from the button box after {tries} tries "
                        f"(is the TowerLab firmware running? {FLASH_HINT})")

    def _unwrap(self, us: int) -> int:
        """Extend a 32-bit device time to a monotonic count (valid for replies < 35 min apart)."""
        full = self._wrap + us
        if full < self._last_us - (1 << 31):
            self._wrap += 1 << 32
            full += 1 << 32
        elif full > self._last_us + (1 << 31) and self._wrap:
            full -= 1 << 32             # a time stamped just before the last wrap
        self._last_us = max(self._last_us, full)
        return full

    def _at(self, at_us: int | None) -> int:
        return p.NOW if at_us is None else at_us & 0xFFFFFFFF

    def _ack(self, frame: p.Frame) -> Ack:
        if frame.type != p.REP_ACK:
            raise LinkError(f"{self.port}: expected an ACK frame, got type 0x{frame.type:02x}")
        f = frame.fields()
        return Ack(f.cmd, f.status, self._unwrap(f.at_us))

    # -- commands ----------------------------------------------------------------------

    def hello(self, boot_s: float = 3.0) -> Hello:
        """Identify the box; raise FirmwareError unless it speaks this host's protocol.

        Opening the port resets an Uno or Nano (DTR) and its bootloader ignores the UART for up
        to about 2 s, so the hello is retried for ``boot_s`` seconds.
        """
        tries = max(self.retries, int(boot_s / self.timeout) + 1)
        try:
            frame = self.request(p.CMD_HELLO, retries=tries)
        except LinkLostError:
            raise
        except LinkError:
            raise FirmwareError(f"{self.port}: the device does not answer the TowerLab hello "
                                f"(no or other firmware; {FLASH_HINT})") from None
        if frame.type != p.REP_HELLO:
            raise FirmwareError(f"{self.port}: unexpected answer to hello (type 0x{frame.type:02x};"
                                f" {FLASH_HINT})")
        f = frame.fields()
        info = Hello(f.protocol, (f.fw_major, f.fw_minor), f.buttons, self._unwrap(f.now_us))
        want = p.FIRMWARE_VERSION
        if f.protocol != p.PROTOCOL_VERSION or f.fw_major != want[0] or f.ident != b"TLBX":
            raise FirmwareError(
                f"{self.port}: button box runs firmware {f.fw_major}.{f.fw_minor} (protocol "
                f"{f.protocol}); this host needs {want[0]}.x (protocol {p.PROTOCOL_VERSION}): "
                f"{FLASH_HINT}")
        self.hello_info = info
        return info

    def press(self, button: str | int, hold_ms: int = 0, at_us: int | None = None) -> Ack:
        """Close a key contact now or at device time ``at_us``; open it after ``hold_ms`` (0 =
        hold until release)."""
        b = button if isinstance(button, int) else button_index(button)
        if not 0 <= hold_ms <= 0xFFFF:
            raise RigError(f"hold {hold_ms} ms is out of range (0-65535)")
        return self._ack(self.request(p.CMD_PRESS, button=b, hold_ms=hold_ms,
                                      at_us=self._at(at_us)))

    def release(self, button: str | int, at_us: int | None = None) -> Ack:
        """Open a key contact now or at device time ``at_us``."""
        b = button if isinstance(button, int) else button_index(button)
        return self._ack(self.request(p.CMD_RELEASE, button=b, at_us=self._at(at_us)))

    def release_all(self, at_us: int | None = None) -> Ack:
        """Open every key contact at ``at_us``; with ``at_us`` None (now) also cancel every
        scheduled action (the box's emergency stop)."""
        return self._ack(self.request(p.CMD_RELEASE_ALL, at_us=self._at(at_us)))

    def power(self, on: bool, at_us: int | None = None) -> Ack:
        """Switch the tower's supply relay on or off, now or at device time ``at_us``."""
        return self._ack(self.request(p.CMD_POWER, on=int(bool(on)), at_us=self._at(at_us)))

    def sync(self, width_us: int = 100, at_us: int | None = None) -> Ack:
        """Pulse the SYNC output high for ``width_us`` microseconds."""
        return self._ack(self.request(p.CMD_SYNC, width_us=width_us, at_us=self._at(at_us)))

    def set_watchdog(self, timeout_ms: int) -> Ack:
        """Release every key when no frame arrives for ``timeout_ms`` (0 = never)."""
        return self._ack(self.request(p.CMD_WATCHDOG, timeout_ms=timeout_ms))

    def status(self) -> Status:
        """Return the box's device time, closed keys, power and error counters."""
        frame = self.request(p.CMD_STATUS)
        if frame.type != p.REP_STATUS:
            raise LinkError(f"{self.port}: expected a STATUS frame, got type 0x{frame.type:02x}")
        f = frame.fields()
        if f.flags & 4 and self.hello_info is not None:
            # a reset undid every press and schedule since the hello: a session cannot go on
            raise LinkLostError(f"{self.port}: the button box restarted (reset or lost power) "
                                f"since its hello, letting go of its keys and its schedule; "
                                f"check its USB cable and supply and re-run")
        return Status(self._unwrap(f.now_us), f.buttons, bool(f.power), bool(f.flags & 1),
                      bool(f.flags & 2), f.crc_errors, f.watchdog_ms, bool(f.flags & 4))

    @property
    def dropped_bytes(self) -> int:
        """Return how many received bytes were not part of a good frame."""
        return self._parser.dropped


def _first_line(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0]
