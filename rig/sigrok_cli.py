"""Capture through ``sigrok-cli``: any logic analyser sigrok supports, as a subprocess.

``SigrokCli(driver).start(samplerate, channels)`` runs::

    sigrok-cli -d DRIVER[:conn=CONN] --config samplerate=R --continuous -O binary

with its stdin kept open (sigrok-cli ends a continuous capture at end of stdin; closing it is
how ``stop`` ends the capture) and reads the raw samples from its stdout in a thread (the same
``Acquisition`` as the fx2lafw driver: change blocks, overrun detection against a clock, a gap
when the process dies). The
binary output carries one word of ``unitsize`` bytes per sample, bit i = the device's logic
channel i; ``unitsize`` is the device's logic channel count / 8, rounded up (``--show`` tells
it), whatever channels are selected, so we keep the first ``len(channels)`` bits.

Tested with sigrok-cli's ``demo`` driver (``demo:logic_channels=16:analog_channels=0``).
"""
from __future__ import annotations

import os
import select
import shutil
import subprocess
import time
from typing import Callable

import numpy as np

from rig.errors import UsbError
from rig.fx2lafw import Acquisition, _Fault

__all__ = ["SigrokCli", "SigrokAcquisition"]


class SigrokAcquisition(Acquisition):
    """An acquisition whose bytes come from a sigrok-cli process."""

    def __init__(self, proc: subprocess.Popen, unitsize: int, channels: list[str],
                 samplerate: float, clock: Callable[[], float], slack_s: float, sink=None):
        self.proc = proc
        self.unitsize = unitsize
        os.set_blocking(proc.stdout.fileno(), False)
        super().__init__(None, samplerate, channels, clock, buffer_samples=1 << 16,
                         slack_s=slack_s, sink=sink, wide=unitsize == 2, start_thread=False)
        self._mask = (1 << len(channels)) - 1
        self._thread.start()

    def _read(self) -> bytes | None:
        ready, _, _ = select.select([self.proc.stdout], [], [], 0.1)
        if not ready:
            if self.proc.poll() is not None:
                raise self._died()
            return None
        data = self.proc.stdout.read(1 << 16)
        if data is None:          # select woke but a non-blocking read found nothing yet
            return None
        if not data:
            raise self._died()
        if self.unitsize not in (1, 2):
            words = np.frombuffer(data[:len(data) - len(data) % self.unitsize], np.uint8)
            words = words.reshape(-1, self.unitsize)[:, :2]
            data = words.tobytes()
        return data

    def _died(self) -> _Fault:
        if self._stop.is_set():
            return _Fault("stopped", "stopped")
        self.proc.wait()
        err = (self.proc.stderr.read() or b"").decode(errors="replace").strip().splitlines()
        msg = err[-1] if err else f"exit status {self.proc.returncode}"
        return _Fault(f"sigrok-cli stopped: {msg}", f"sigrok-cli stopped ({msg})")

    def _release(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()          # sigrok-cli stops at end of stdin
            try:
                self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            f.close()


class SigrokCli:
    """An analyser driven by sigrok-cli (``driver`` as in ``sigrok-cli -d``)."""

    def __init__(self, driver: str = "fx2lafw", conn: str | None = None,
                 binary: str = "sigrok-cli", unitsize: int | None = None,
                 clock: Callable[[], float] = time.monotonic, slack_s: float = 0.5):
        self.driver = driver
        self.conn = conn
        self.binary = binary
        self.unitsize = unitsize
        self.clock = clock
        self.slack_s = slack_s

    def _device(self) -> str:
        return f"{self.driver}:conn={self.conn}" if self.conn else self.driver

    def _exe(self) -> str:
        exe = shutil.which(self.binary)
        if not exe:
            raise UsbError(f"{self.binary} not found: apt-get install -y sigrok-cli")
        return exe

    def logic_channels(self) -> int:
        """Return how many logic channels the device has (from ``sigrok-cli --show``)."""
        proc = subprocess.run([self._exe(), "-d", self._device(), "--show"], capture_output=True,
                              text=True, timeout=30)
        for line in proc.stdout.splitlines():
            line = line.strip()
            if line.startswith("Logic:") and "channels" in line:
                return len(line.split("channels", 1)[1].split())
        err = (proc.stderr.strip().splitlines() or ["no logic channels reported"])[-1]
        raise UsbError(f"sigrok-cli cannot use device {self._device()!r}: {err}")

    def start(self, samplerate: float, channels: list[str], sink=None) -> SigrokAcquisition:
        """Start a continuous capture; ``channels`` name the device's first logic inputs."""
        unitsize = self.unitsize or -(-self.logic_channels() // 8)
        if len(channels) > unitsize * 8:
            raise UsbError(f"device {self._device()!r} has {unitsize * 8} logic channels, "
                           f"{len(channels)} requested")
        cmd = [self._exe(), "-d", self._device(), "--config", f"samplerate={int(samplerate)}",
               "--continuous", "-O", "binary"]
        # sigrok-cli ends a continuous capture when its stdin reaches end of file: keep a pipe.
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        return SigrokAcquisition(proc, unitsize, list(channels), samplerate, self.clock,
                                 self.slack_s, sink)
