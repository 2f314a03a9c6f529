"""Fixtures for the rig tests: the firmware in simavr, stepped by a thread like a free-running
board, and the host-side ButtonBox on its pseudo-terminal."""
from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from tests.conftest import require_file, require_tool


def _need_avr_tools() -> None:
    require_tool("avr-gcc", "gcc-avr avr-libc")
    require_tool("gcc", "gcc")
    require_file(Path("/usr/include/simavr/sim_avr.h"), "libsimavr-dev", "simavr headers")


class SteppedBox:
    """A SimulatedBox run by a thread in 1 ms slices, collecting its pin changes.

    The AVR runs at most ``speed`` times faster than the wall clock and, like the virtual
    bench, waits for the host (rig.bench.HostPacer): it stays within 5 ms of AVR time of the
    host's last command on the serial link (``link``), opening that slack over 50 ms of wall
    time (the bytes need that long to reach the simulated UART on a loaded machine; a lost race
    means a resent frame, which restarts the watchdog), and only ``wait_until`` lets it run
    further (no patience: every test lets time pass explicitly). So a command the test
    schedules ahead reaches the AVR in time however busy the machine is.
    """

    def __init__(self, speed: float = 4.0, firmware: Path | None = None):
        from rig.bench import HostPacer
        from rig.simbox import SimulatedBox
        self.sim = SimulatedBox(firmware)
        self.pacer = HostPacer(slack_s=0.005, patience_s=None, ramp_s=0.05)
        self.changes = []
        self._stop = threading.Event()
        self._speed = speed
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def clock(self) -> float:
        """Return the AVR time in seconds."""
        return self.sim.now_us / 1e6

    def link(self):
        """Return the box's serial port, opened, as a host link that paces the AVR."""
        from rig.buttonbox import open_serial
        return self.pacer.link(open_serial(self.sim.port), self.clock)

    def _run(self) -> None:
        t = 0.0
        wall0 = time.monotonic()
        while not self._stop.is_set():
            self.pacer.wait((t + 1000.0) / 1e6, self._stop)
            t += 1000.0
            self.changes.extend(self.sim.run_until(t))
            ahead = t / 1e6 / self._speed - (time.monotonic() - wall0)
            if ahead > 0:
                time.sleep(ahead)

    def wait_until(self, us: float, timeout: float = 30.0) -> None:
        """Let the AVR run to ``us`` (AVR microseconds) and return once it is there; fail
        the test if it is not within ``timeout`` wall seconds."""
        self.pacer.allow_until(us / 1e6 + 0.001)
        deadline = time.monotonic() + timeout
        while self.sim.now_us < us:
            if time.monotonic() > deadline:
                pytest.fail(f"the simulated box did not reach {us:.0f} us within {timeout:g} s "
                            f"(it is at {self.sim.now_us:.0f} us)")
            time.sleep(0.005)

    def key_intervals(self, button: str) -> list[tuple[float, float]]:
        """Return (closed_from_us, opened_at_us) in AVR time for ``button``."""
        out, since = [], None
        for c in self.changes:
            down = button in c.keys
            if down and since is None:
                since = c.t_us
            elif not down and since is not None:
                out.append((since, c.t_us))
                since = None
        return out

    def close(self) -> None:
        self._stop.set()
        self.pacer.release()
        self._thread.join(timeout=10)
        self.sim.close()


@pytest.fixture
def stepped_box():
    _need_avr_tools()
    box = SteppedBox()
    yield box
    box.close()


@pytest.fixture
def host(stepped_box):
    """Return (ButtonBox on the simulated box's pty, the SteppedBox)."""
    from rig.buttonbox import ButtonBox
    b = ButtonBox(stepped_box.sim.port, link=stepped_box.link())
    yield b, stepped_box
    b.close()


@pytest.fixture
def resolver_budgets(monkeypatch):
    """Return a list each clean-room search appends its budget to (cleanroom.conform
    ``_resolve``'s ``max_runs``, as ``resolve`` hands it on: the default filled in)."""
    from cleanroom import conform

    budgets: list = []
    real = conform._resolve

    def spy(script, reference, tol=None, end=None, max_runs=conform.MAX_RUNS, *args, **kw):
        budgets.append(max_runs)
        return real(script, reference, tol, end, max_runs, *args, **kw)

    monkeypatch.setattr(conform, "_resolve", spy)
    return budgets


@pytest.fixture
def avr_tools():
    _need_avr_tools()


@pytest.fixture
def sigrok_tool():
    return require_tool("sigrok-cli", "sigrok-cli")


@pytest.fixture
def has_fx2lafw_firmware():
    from rig.usbsim import find_firmware
    return require_file(find_firmware(), "sigrok-firmware-fx2lafw", "fx2lafw firmware")
