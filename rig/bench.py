"""The virtual bench: a virtual tower wired to the simavr-run button box and a simulated USB
analyser, all on one simulated clock, so the rig's real drivers can be exercised without
hardware.

The tower is made by ``tower_factory`` when the box first closes the power relay, so its clock
(and the emulator's reel timer) starts at power-on, as on a real tower.

Wiring (as on the real bench, rig/README.md): the box's key outputs close the tower's key
contacts, its power output switches the tower's supply (pins read 0 while it is off), its SYNC
output can be probed; the analyser's inputs D0.. are clipped to the tower pins named in
``probe`` (default: the 16-channel map R4-R10, O0-O7, K8).

Time: the bench owns the world clock (seconds). A thread advances it in slices of ``slice_s``
(5 ms): first the AVR runs to the slice end (``SimulatedBox.run_until``) and reports its pin
changes with their AVR times, then the tower is advanced to each change, the change applied,
and the tower advanced to the slice end; finally the analyser receives the samples of the slice.
The AVR thus runs at most one slice ahead of the tower, and since the box only drives the tower
(it reads nothing back), key and power changes reach the tower at their exact AVR time. The
world runs at most ``max_speed`` times faster than the wall clock (like hardware), waits when
the analyser's FIFO is full and the reader is busy (lossless unless a fault is injected), and
waits for the host when the host is late (``HostPacer``: the world stays within 0.1 s of the
host's last command on its serial link, so a descheduled host is never late with an action it
schedules ``lead_s`` ahead). Faults are scheduled in bench time (``at_session``), not raced
against the wall clock. ``tower_speed`` runs the whole virtual tower's time fast or slow against
the world (for towers without a clock setting, such as the pin-level fake; rig.specs gives the
emulator ``425 kHz x speed`` as its clock instead, so that only the chip runs fast, like a real
tower's RC oscillator, which ``rig check --clock auto`` must estimate);
``box_clock_error`` does the same for the box's resonator (SYNC pulses correct for it).

Example::

    bench = VirtualBench(PinTower)               # the tower is built at its first power-on
    bench.start()
    box = ButtonBox(bench.port,                     # the real host code, over a pty
                    link=bench.pacer.link(open_serial(bench.port), bench.clock))
    fx = Fx2lafw(backend=bench.usb_backend, clock=bench.clock)
    ...
    bench.close()
"""
from __future__ import annotations

import threading
import time
from typing import Callable

import numpy as np

from captures.darktower_facts import NOMINAL_CLOCK_HZ
from captures.model import DARKTOWER_CHANNELS
from rig.errors import RigError
from rig.simbox import PinChange, SimulatedBox
from rig.usbsim import SimFX2, SimUsbBackend

__all__ = ["VirtualBench", "HostPacer", "PacedLink", "PROBE_16", "PROBE_8", "SYNC_BIT"]

PROBE_16 = tuple(f"R{i}" for i in range(4, 11)) + tuple(f"O{i}" for i in range(8)) + ("K8",)
PROBE_8 = ("R4", "R5", "R6", "R7", "R8", "R9", "R10", "K8")
SYNC_BIT = 40       # the box's SYNC line, kept next to the tower's pin word


class HostPacer:
    """Hold a simulated world within ``slack_s`` (world seconds) of the host's last word.

    On a real bench the world never waits, but it never needs to: the host schedules every
    action ``lead_s`` ahead and a loaded PC is late by milliseconds. A simulated world running
    several times faster than the wall clock on a loaded machine could leave a descheduled
    host behind by more than its lead, so the bench does what a logic analyser's buffer does
    for a slow reader: it waits. Every write on the host's serial link (:class:`PacedLink`) is
    a ``contact`` at the current world time and lets the world run to ``contact + slack_s``,
    time enough for the box to answer (a command frame and its reply take about 2 ms at 115200
    baud); reads do not count, so a host waiting for a reply cannot let the world drift;
    ``allow_until(t)`` lets it run to ``t`` (a test that lets time pass). A host silent for
    ``patience_s`` wall seconds (None: never) is taken to be quiet on purpose (a host that
    crashed) and the world runs on; ``release()`` (the bench closing) stops all waiting. An
    unplugged box does not release it: the host's next command fails at once, and what the
    analyser records after the fault does not depend on how fast the host notices.
    """

    def __init__(self, slack_s: float = 0.1, patience_s: float | None = 10.0,
                 ramp_s: float = 0.0) -> None:
        self.slack_s = slack_s
        self.patience_s = patience_s
        self.ramp_s = ramp_s        # wall seconds over which a contact's slack opens up
        self._last = (0.0, 0.0)     # (world, wall) of the last contact
        self._cond = threading.Condition()
        self._horizon = slack_s
        self._contact_wall = time.monotonic()
        self._released = False
        self.waits = 0              # how often the world waited for the host (diagnostics)

    def contact(self, world_s: float) -> None:
        """Note that the host talked to the bench at world time ``world_s``."""
        with self._cond:
            self._contact_wall = time.monotonic()
            self._last = (world_s, self._contact_wall)
            if world_s + self.slack_s > self._horizon:
                self._horizon = world_s + self.slack_s
                self._cond.notify_all()

    def allow_until(self, world_s: float) -> None:
        """Let the world run to ``world_s`` whether or not the host talks meanwhile."""
        with self._cond:
            self._contact_wall = time.monotonic()
            if world_s > self._horizon:
                self._horizon = world_s
                self._cond.notify_all()

    def release(self) -> None:
        """Stop holding the world back (for good)."""
        with self._cond:
            self._released = True
            self._cond.notify_all()

    def _limit(self) -> float:
        """Return how far the world may run now: the horizon, less the part of the last
        contact's slack not yet opened (``ramp_s``: the host's bytes need wall time to reach
        the simulated UART, so the world must not spend the slack before they can)."""
        world, wall = self._last
        if self.ramp_s <= 0 or self._horizon > world + self.slack_s + 1e-12:
            return self._horizon
        opened = min(1.0, (time.monotonic() - wall) / self.ramp_s)
        return world + self.slack_s * opened

    def may_run_to(self, world_s: float) -> bool:
        """Return True when the world may run to ``world_s`` now (without waiting)."""
        with self._cond:
            return self._released or world_s <= self._limit() + 1e-12

    def wait(self, world_s: float, stop: threading.Event | None = None) -> None:
        """Return once the world may run to ``world_s`` (or the host has been quiet for
        ``patience_s``, or ``stop`` is set)."""
        with self._cond:
            counted = False
            while not self._released and world_s > self._limit() + 1e-12 \
                    and not (stop is not None and stop.is_set()):
                left = (0.05 if self.patience_s is None else
                        self._contact_wall + self.patience_s - time.monotonic())
                if left <= 0:
                    return
                if not counted:
                    self.waits += 1
                    counted = True
                self._cond.wait(min(left, 0.05, max(self.ramp_s / 20, 0.001)))

    def link(self, ser, clock: Callable[[], float]) -> "PacedLink":
        """Return ``ser`` (a serial port object) wrapped so that its use is host contact."""
        return PacedLink(ser, self, clock)


class PacedLink:
    """A serial link whose writes tell a :class:`HostPacer` the host is there; every other
    attribute is the wrapped port's."""

    def __init__(self, ser, pacer: HostPacer, clock: Callable[[], float]) -> None:
        self._ser = ser
        self._pacer = pacer
        self._clock = clock

    def write(self, data: bytes) -> int:
        """Write to the port (host contact)."""
        self._pacer.contact(self._clock())
        return self._ser.write(data)

    def __getattr__(self, name: str):
        return getattr(self._ser, name)


class VirtualBench:
    """A virtual tower, the simulated button box and the simulated analyser on one clock."""

    def __init__(self, tower_factory: Callable[[], object], probe: tuple[str, ...] = PROBE_16,
                 slice_s: float = 0.005, max_speed: float = 2.0, tower_speed: float = 1.0,
                 firmware=None, fifo_bytes: int = 1 << 16, box_clock_error: float = 0.0,
                 pacer: HostPacer | None = None):
        self._factory = tower_factory
        self.pacer = pacer if pacer is not None else HostPacer()
        self._scheduled: list[tuple[float, int, Callable[[], None]]] = []
        self.tower = None
        self.clock_hz = NOMINAL_CLOCK_HZ
        self._born = 0.0          # world time at which the tower was first powered
        self.probe = tuple(probe)
        self._src = []
        for name in self.probe:
            if name == "SYNC":
                self._src.append(SYNC_BIT)
            elif name in DARKTOWER_CHANNELS:
                self._src.append(DARKTOWER_CHANNELS.index(name))
            else:
                raise RigError(f"probe channel {name!r} is not a tower pin (expected SYNC or one "
                               f"of {' '.join(DARKTOWER_CHANNELS)})")
        self.slice_s = slice_s
        self.max_speed = max_speed
        self.tower_speed = tower_speed
        self._t = 0.0
        self.box = SimulatedBox(firmware, clock_error=box_clock_error)
        self.port = self.box.port
        self.usb_device = SimFX2(self.clock, fifo_bytes=fifo_bytes)
        self.usb_backend = SimUsbBackend([self.usb_device])
        self.keys: frozenset = frozenset()
        self.relay = False
        self.sync = False
        self._raw = 0
        self._hist_c: list[int] = []
        self._hist_w: list[int] = []
        self._word = 0            # effective word before the current history
        self._tower_cycle = 0
        self.error: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._pending: list[PinChange] = []
        self._box_dead = False
        self._lock = threading.Lock()

    # -- clock -----------------------------------------------------------------------------

    def clock(self) -> float:
        """Return the world time in seconds (the AVR's and the analyser's time base)."""
        return self._t

    @property
    def born(self) -> float:
        """Return the world time (s) at which the tower was first powered (0 before)."""
        return self._born

    def at_session(self, session_s: float, action: Callable[[], None]) -> None:
        """Run ``action()`` in the world thread once the tower has been powered for
        ``session_s`` seconds of bench time (at the first slice boundary at or after it), so a
        fault lands at the same bench time however busy the host is."""
        with self._lock:
            self._scheduled.append((session_s, len(self._scheduled), action))
            self._scheduled.sort()

    def _run_scheduled(self) -> None:
        while self._scheduled and self.tower is not None \
                and self._t - self._born >= self._scheduled[0][0] - 1e-9:
            with self._lock:
                _, _, action = self._scheduled.pop(0)
            action()

    # -- wiring ----------------------------------------------------------------------------

    def _effective(self) -> int:
        w = self._raw if self.relay else 0
        return w | (int(self.sync) << SYNC_BIT)

    def _record(self, cycle: int) -> None:
        w = self._effective()
        last = self._hist_w[-1] if self._hist_w else self._word
        if w == last:
            return
        if self._hist_c and self._hist_c[-1] == cycle:
            self._hist_w[-1] = w
        else:
            self._hist_c.append(cycle)
            self._hist_w.append(w)

    def _on_pins(self, cycle: int, word: int) -> None:
        self._raw = int(word)
        self._record(int(cycle))

    def _tower_to(self, world_s: float) -> None:
        if self.tower is None:
            return
        target = int(round((world_s - self._born) * self.tower_speed * self.clock_hz))
        if target > self._tower_cycle:
            self.tower.advance((target - self._tower_cycle) / self.clock_hz)
            self._tower_cycle = target

    def _birth(self, world_s: float) -> None:
        """Create the tower at its first power-on: its clock starts there, as a tower's
        oscillator (and MAME's reel timer) starts when it gets power."""
        self.tower = self._factory()
        self.clock_hz = int(getattr(self.tower, "clock_hz", NOMINAL_CLOCK_HZ))
        self._born = world_s
        self._tower_cycle = 0
        self.tower.add_pin_listener(self._on_pins)
        self._raw = self._initial_word(self.tower)
        for b in sorted(self.keys):
            self.tower.press(b)

    @staticmethod
    def _initial_word(tower) -> int:
        cap = tower.capture() if hasattr(tower, "capture") else None
        if cap is not None and len(cap.words):
            return int(cap.words[-1])
        return 0

    def _apply(self, change) -> None:
        if change.power != self.relay:
            self.relay = change.power
            if self.tower is None:
                self._birth(change.t_us / 1e6)
            else:
                self.tower.power(self.relay)
            self._record(self._tower_cycle)
        if self.tower is None:
            self.keys = change.keys
            self.sync = change.sync
            return
        cycle = self._tower_cycle
        for b in sorted(self.keys - change.keys):
            self.tower.release(b)
        for b in sorted(change.keys - self.keys):
            self.tower.press(b)
        self.keys = change.keys
        if change.sync != self.sync:
            self.sync = change.sync
            self._record(cycle)

    # -- the world loop --------------------------------------------------------------------

    def unplug_box(self) -> None:
        """Pull the button box's USB cable: its pty closes and, unpowered, it lets go of every
        key and opens the power relay (the tower switches off), as a USB-powered Arduino does."""
        with self._lock:
            self.box.unplug()
            self._box_dead = True
            self._pending.append(PinChange(self._t * 1e6, frozenset(), False, False))
        # The world still waits for the host (whose next command fails): what the analyser
        # records after the fault does not depend on how fast the host notices.

    def step(self) -> None:
        """Advance the world by one slice: scheduled actions due, AVR, then tower, then
        analyser samples."""
        self._run_scheduled()
        t0, t1 = self._t, self._t + self.slice_s
        with self._lock:
            changes = list(self._pending)
            self._pending.clear()
            if not self._box_dead:
                changes += self.box.run_until(t1 * 1e6)
        for change in changes:
            self._tower_to(change.t_us / 1e6)
            self._apply(change)
        self._tower_to(t1)
        self._feed(t0, t1)
        self._t = t1

    def _feed(self, t0: float, t1: float) -> None:
        dev = self.usb_device
        hist_c = np.array(self._hist_c, np.int64)
        hist_w = np.array(self._hist_w, np.uint64)
        base = self._word
        if self._hist_w:
            self._word = self._hist_w[-1]
        self._hist_c.clear()
        self._hist_w.clear()
        if not dev.acquiring:
            return
        rate = dev.samplerate
        k0 = max(0, int(np.ceil((t0 - dev.acq_start) * rate - 1e-9)))
        k1 = int(np.ceil((t1 - dev.acq_start) * rate - 1e-9))
        if k1 <= k0:
            return
        ks = np.arange(k0, k1, dtype=np.int64)
        cycles = np.floor((dev.acq_start + ks / rate - self._born) * self.tower_speed
                          * self.clock_hz + 1e-6)
        idx = np.searchsorted(hist_c, cycles.astype(np.int64), side="right") - 1
        words = np.where(idx >= 0, hist_w[np.maximum(idx, 0)] if len(hist_w) else base,
                         np.uint64(base)).astype(np.uint64)
        out = np.zeros(len(words), np.uint16)
        for bit, src in enumerate(self._src):
            out |= (((words >> np.uint64(src)) & np.uint64(1)).astype(np.uint16) << bit)
        # the analyser's FIFO holds the world until the host has read (a slow host on a
        # loaded machine loses nothing; hold_bus() is how a test forces an overrun)
        dev.push(out, wait_s=None)

    def _loop(self) -> None:
        wall0 = time.monotonic()
        try:
            while not self._stop.is_set():
                self.pacer.wait(self._t + self.slice_s, self._stop)
                self.step()
                if self.max_speed:
                    ahead = self._t / self.max_speed - (time.monotonic() - wall0)
                    if ahead > 0:
                        time.sleep(ahead)
        except Exception as exc:     # surfaced by the host side as a dead link
            self.error = f"{type(exc).__name__}: {exc}"
            try:
                self.box.unplug()
            except RigError:
                pass                 # the harness itself is gone: the pty closed with it

    def start(self) -> "VirtualBench":
        """Start the world thread."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="virtual-bench",
                                            daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        """Stop the world thread and the simulated AVR."""
        self._stop.set()
        self.pacer.release()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.usb_device.unplug()
        self.box.close()
