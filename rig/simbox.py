"""Run the real button-box firmware in simavr and expose its serial port and pins.

``SimulatedBox`` starts the harness (rig/sim/boxsim.c, built on demand) on the firmware ELF.
The harness bridges UART0 to a pseudo-terminal, which the host opens with pyserial exactly like
/dev/ttyACM0. The AVR only runs when asked: ``run_until(us)`` advances the simulated ATmega328P
(16 MHz, so 16 cycles per microsecond) and returns the pin changes it made, stamped in AVR
microseconds. The virtual bench (rig/bench.py) alternates this with the virtual tower, so both
share one simulated time line.

The wiring the firmware expects (rig/README.md): PD2..PD7 = keys 0..5, PB0..PB5 = keys 6..11
(captures.script.BUTTONS order), PC0 = tower power, PC1 = SYNC.
"""
from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from captures.script import BUTTONS
from rig.build import build_boxsim, build_firmware
from rig.errors import RigError

__all__ = ["AVR_HZ", "PinChange", "SimulatedBox", "decode_pins"]

AVR_HZ = 16_000_000


@dataclass(frozen=True)
class PinChange:
    """The box's outputs from ``t_us`` (AVR microseconds) on: closed keys, power, SYNC."""
    t_us: float
    keys: frozenset
    power: bool
    sync: bool


def decode_pins(ports: dict[str, int]) -> tuple[frozenset, bool, bool]:
    """Map AVR port levels {'B','C','D'} to (closed key names, power relay, SYNC level)."""
    d, b, c = ports.get("D", 0), ports.get("B", 0), ports.get("C", 0)
    mask = ((d >> 2) & 0x3F) | ((b & 0x3F) << 6)
    keys = frozenset(BUTTONS[i] for i in range(12) if mask >> i & 1)
    return keys, bool(c & 1), bool(c & 2)


class SimulatedBox:
    """The firmware running on a simulated ATmega328P, its UART on a pseudo-terminal."""

    def __init__(self, firmware: Path | None = None, clock_error: float = 0.0):
        elf = firmware or build_firmware()
        # The AVR's crystal or resonator against the world: +0.003 = 0.3 % fast (an Arduino's
        # ceramic resonator is within +-0.5 %).
        self.cycles_per_us = AVR_HZ / 1_000_000 * (1.0 + clock_error)
        exe = build_boxsim()
        self._proc = subprocess.Popen([str(exe), str(elf)], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                      bufsize=1)
        self.port = ""
        self.ports = {"B": 0, "C": 0, "D": 0}
        self.now_us = 0.0
        while True:
            line = self._proc.stdout.readline()
            if not line:
                err = self._proc.stderr.read().strip().splitlines()
                self._proc.wait()
                raise RigError(f"{elf}: simavr harness failed to start "
                               f"({err[0] if err else 'no output'})")
            if line.startswith("PTY "):
                self.port = line[4:].strip()
                break

    def run_until(self, t_us: float) -> list[PinChange]:
        """Run the AVR up to world time ``t_us`` (microseconds); return its output changes in
        time order, stamped in world microseconds."""
        out: list[PinChange] = []
        cycle = int(t_us * self.cycles_per_us)
        try:
            self._proc.stdin.write(f"R {cycle}\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise RigError("simavr harness has exited") from None
        while True:
            line = self._proc.stdout.readline()
            if not line:
                raise RigError("simavr harness has exited")
            kind = line[:1]
            if kind == "P":
                _, cyc, port, val = line.split()
                self.ports[port] = int(val, 16)
                keys, power, sync = decode_pins(self.ports)
                out.append(PinChange(int(cyc) / self.cycles_per_us, keys, power, sync))
            elif kind == "T":
                self.now_us = int(line.split()[1]) / self.cycles_per_us
                return out
            elif kind == "E":
                raise RigError(f"simulated button box: {line[2:].strip()}")

    def _command(self, text: str) -> None:
        try:
            self._proc.stdin.write(text + "\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise RigError("simavr harness has exited") from None

    def corrupt_to_box(self, k: int) -> None:
        """Flip a bit in the ``k``-th next byte from the host to the AVR (line noise)."""
        self._command(f"I {k}")

    def corrupt_to_host(self, k: int) -> None:
        """Flip a bit in the ``k``-th next byte from the AVR to the host (line noise)."""
        self._command(f"O {k}")

    def unplug(self) -> None:
        """Close the pseudo-terminal: the host sees the port vanish, like a pulled USB cable."""
        self._command("C")

    def reset(self) -> None:
        """Reset the AVR, as a power cycle of the box would: the firmware starts afresh (its
        device time from 0, its schedule empty, every output low) on the same port."""
        self._command("X")

    def close(self) -> None:
        """Stop the harness process."""
        if self._proc.poll() is None:
            try:
                self._proc.stdin.write("Q\n")
                self._proc.stdin.flush()
            except (BrokenPipeError, OSError):
                pass
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        for f in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            try:
                f.close()
            except OSError:
                pass

    @property
    def keys(self) -> frozenset:
        """Return the names of the keys the box currently closes."""
        return decode_pins(self.ports)[0]
