"""A real tower on the bench: the button box presses, a logic analyser watches, and the pins are
decoded into events. ``RealTower`` answers the Tower protocol (captures.tower), so a session
script runs on it as on the emulator.

Time: the session clock starts when the box switches the tower's power on (device time
``t0_us``). Every key and power action is scheduled on the box at its exact device time
(``lead_s`` ahead, so USB latency does not matter); ``advance`` waits, polling the box's
status, until the device clock is ``lead_s`` short of the new time. The capture is aligned to
the session clock by the SYNC pulses (if a probe channel is named SYNC: the box pulses it at
power-on and every ``sync_every_s``, and a straight-line fit maps the box's clock onto the
analyser's); or else, when an O pin is probed, by the first sample at which a probed pin leaves
the all-low level of an unpowered tower (the TMS1400 drives its O pins from reset; exact to a
few cycles); or else (an 8-input probe on R pins only: the first R activity comes half a second
after power-on) by the box clock read just after the analyser started (the capture's times are
then late by the time from the start to that read: under a millisecond on an idle bench, at
most the time since the read before the start, ``t0_uncertainty_s``). Past the alignment both
clocks are taken as nominal.

States: READY, or UNKNOWN when the tower stops answering (no probed pin changed for
``stall_s`` while powered, or nothing showed within ``boot_s`` of power-on). In UNKNOWN, key
presses raise TowerUnknownError; ``recover()`` power-cycles the tower and waits for the
power-on display, then the state is READY again.

Example::

    box = ButtonBox("/dev/ttyACM0")
    tower = RealTower(box, Fx2lafw(), probe_channels(load_channel_map("probe.map")))
    events = run_script(tower, read_script("session.txt"))
    capture = tower.finish()
"""
from __future__ import annotations

import bisect
import time
from typing import Callable

import numpy as np

from analysis.decode import StreamDecoder
from captures.eventlog import EventLog
from captures.events import make_event
from captures.model import CaptureInfo, Changes, Gap, MemoryCapture
from rig import protocol as p
from rig.buttonbox import ButtonBox
from rig.errors import LinkLostError, RigError, TowerUnknownError, UsbError

__all__ = ["RealTower", "SessionDecoder", "READY", "UNKNOWN", "probe_channels"]

READY, UNKNOWN = "READY", "UNKNOWN"


def _time(ev: dict) -> float:
    return ev["t"]


def _merge_sorted(first: list[dict], then: list[dict]) -> list[dict]:
    """Return ``sorted(first + then, key=time)`` for two time-sorted lists, ``first`` short,
    in time linear in ``then`` (a stable merge: ``first`` goes first at equal times)."""
    out: list[dict] = []
    i = 0
    for ev in first:
        j = bisect.bisect_left(then, ev["t"], lo=i, key=_time)
        out += then[i:j]
        out.append(ev)
        i = j
    out += then[i:]
    return out


class SessionDecoder:
    """Decode an analyser's capture as it arrives, on the session clock: capture sample
    ``t0`` (the session's power-on) is time 0 and the level there starts the session, as in
    ``RealTower.session_capture``. ``take`` the blocks and gaps that arrived (gaps in order,
    each before the data after it, as an analyser finds them), ``read`` the events so far:
    each read decodes only what arrived since the last one, and returns what decoding the
    whole capture so far in one go would (tests/rig/test_live_read.py).

    Example::

        dec = SessionDecoder(channels, 250_000, t0_sample)
        dec.take(new_blocks, new_gaps)
        events = dec.read(samples_received, session_seconds)
    """

    def __init__(self, channels: list[str], samplerate: float, t0: int):
        self.t0 = int(t0)
        self._dec = StreamDecoder(CaptureInfo(list(channels), samplerate))
        self._log = EventLog(("decoded", "pending"))
        self._started = False
        self._before: tuple[int, int] | None = None     # the last change before t0

    def take(self, blocks: list[Changes], gaps: list[Gap]) -> None:
        """Decode the change blocks and gaps that arrived (capture samples)."""
        t0, dec = self.t0, self._dec
        for gap in gaps:
            if gap.end > t0:
                dec.add_gap(Gap(max(0, gap.start - t0), max(0, gap.end - t0), gap.reason))
        for block in blocks:
            times, words = block.times, block.words
            if not self._started:
                # The session starts with the level at t0: the last change at or before it
                # (t0 is one: the first sign of life or the first SYNC pulse).
                if not len(times):
                    continue
                if int(times[-1]) < t0:
                    self._before = (int(times[-1]), int(words[-1]))
                    continue
                first = int(np.searchsorted(times, t0, side="right")) - 1
                if first < 0 and self._before is not None:
                    times = np.concatenate(([self._before[0]], times))
                    words = np.concatenate((np.array([self._before[1]], np.uint64), words))
                first = max(first, 0)
                times = times[first:] - t0
                times[0] = 0
                words = words[first:]
                self._started = True
            else:
                times = times - t0
            self._log.add("decoded", dec.feed(Changes(times, words)))

    def read(self, received: int, end_t: float) -> list[dict]:
        """Return the decoded events up to ``end_t`` (session seconds), the capture having
        ``received`` samples so far."""
        dec = self._dec
        pending = dec.peek(max(0, received - self.t0))
        self._log.settle(min(dec.released, end_t - 1e-5))
        return self._log.read(upto=end_t + 1e-9, pending=pending)


def probe_channels(channel_map: dict[str, str]) -> list[str]:
    """Return the capture channel names in probe order D0, D1, ... from a channel map
    (``probe -> signal``, probes named D<n>); unmapped probes keep their D<n> name."""
    idx = {}
    for probe, signal in channel_map.items():
        if not (probe.startswith("D") and probe[1:].isdigit()):
            raise RigError(f"channel map: probe {probe!r} is not an analyser input name "
                           f"(expected D0..D15)")
        idx[int(probe[1:])] = signal
    n = max(idx) + 1
    if n > 16:
        raise RigError(f"channel map uses D{n - 1}; fx2lafw analysers have at most 16 inputs")
    return [idx.get(i, f"D{i}") for i in range(n)]


class RealTower:
    """A tower behind the button box and an analyser (see the module docstring)."""

    def __init__(self, box: ButtonBox, analyser, channels: list[str], samplerate: float = 250_000,
                 lead_s: float = 0.3, boot_s: float = 2.0, stall_s: float = 2.0,
                 poll_s: float = 0.01, sink=None, timeout_factor: float = 20.0,
                 sync_every_s: float = 1.0, sleep: Callable[[float], None] = time.sleep):
        self.box = box
        self.channels = list(channels)
        self.samplerate = float(samplerate)
        self.lead_us = int(lead_s * 1e6)
        self.boot_s = boot_s
        self.stall_s = stall_s
        self.poll_s = poll_s
        self.timeout_factor = timeout_factor
        self._sleep = sleep
        self.state = READY
        self.fault: str | None = None
        self.fault_t: float | None = None     # session time the box was last heard from
        self.late_actions = 0
        self._cursor = 0.0
        self._boot_at = 0.0
        self._powered = True
        self._events: list[dict] = []
        self._t0_sample: int | None = None
        self._device_now = 0
        self._sync_bit = self.channels.index("SYNC") if "SYNC" in self.channels else None
        self.sync_every_us = int(sync_every_s * 1e6)
        self._syncs: list[int] = []          # device us of the SYNC pulses scheduled
        self.acq = None
        # Live reading (events): blocks and gaps taken from the analyser, the SYNC edges
        # seen in them, and the decoders over the session's changes (from t0_sample on).
        self._live_blocks = self._live_gaps = 0
        self._live_pending_blocks: list[Changes] = []
        self._live_pending_gaps: list[Gap] = []
        self._live_dec: SessionDecoder | None = None
        self._sync_rises: list[int] = []
        self._sync_high = False
        box.hello()
        box.set_watchdog(2000)
        box.release_all()
        box.power(False)
        self._wait_device(self.box.status().now_us + 300_000)      # let the supply discharge
        before_us = self._device_now
        self.acq = analyser.start(self.samplerate, self.channels, sink)
        after_us = self.box.status().now_us
        self.t0_us = after_us + self.lead_us
        # how much later than the truth the capture's times may be (s): 0 with SYNC or an O pin
        self.t0_uncertainty_s = 0.0
        if self._sync_bit is None and not any(c.startswith("O") for c in self.channels):
            # without SYNC or an O pin, power-on is found from when the analyser started:
            # taken as the box clock read just after the start, which began since the read
            # before it
            self._t0_sample = int(round(self.lead_us * 1e-6 * self.samplerate))
            self.t0_uncertainty_s = (after_us - before_us) / 1e6
        self._schedule(box.power, True, at=self.t0_us)
        self._schedule_syncs(self.t0_us)
        self._events.append(make_event(0.0, "power", on=1))

    # -- time ------------------------------------------------------------------------------

    @property
    def now(self) -> float:
        """Return the session time in seconds (since the box powered the tower on)."""
        return self._cursor

    def _wait_device(self, until_us: int) -> None:
        """Poll the box until its clock reaches ``until_us`` (also keeps its watchdog fed)."""
        wall_limit = time.monotonic() + self.timeout_factor * max(
            1.0, (until_us - self._device_now) / 1e6)
        while True:
            self._device_now = self._link(self.box.status).now_us
            if self._device_now >= until_us:
                return
            self._check_analyser()
            self._check_health()
            if time.monotonic() > wall_limit:
                raise RigError("button box clock does not advance (is the box running?)")
            self._sleep(self.poll_s)

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` of session time pass (returns ``lead_s`` early: actions are
        scheduled on the box at their exact device time)."""
        if seconds < 0:
            raise RigError(f"cannot advance by {seconds} s")
        self._cursor += seconds
        self._schedule_syncs(self._at(self._cursor))
        self._wait_device(self._at(self._cursor) - self.lead_us)

    def _schedule_syncs(self, until_us: int) -> None:
        """Schedule SYNC pulses every ``sync_every_s`` up to device time ``until_us`` (only
        when a probe channel records SYNC): they tie the box's clock to the analyser's."""
        if self._sync_bit is None:
            return
        nxt = self._syncs[-1] + self.sync_every_us if self._syncs else self.t0_us
        while nxt <= until_us:
            self._schedule(self.box.sync, 200, at=nxt)
            self._syncs.append(nxt)
            nxt += self.sync_every_us

    def _at(self, t: float) -> int:
        return self.t0_us + int(round(t * 1e6))

    def _link(self, fn, *args, **kw):
        try:
            return fn(*args, **kw)
        except LinkLostError as exc:
            self.fault = str(exc)
            self.fault_t = self._session_now()
            raise

    def stopped(self, why: str) -> float:
        """Note that the session stopped short at ``now`` (Ctrl-C, rig.record): a fault
        there, so ``finish`` records the rest as a gap; return that time (s)."""
        self.fault = why
        self.fault_t = self._cursor
        return self.fault_t

    def _schedule(self, fn, *args, at: int):
        ack = self._link(fn, *args, at_us=at)
        if ack.status == p.ACK_LATE:
            self.late_actions += 1
        return ack

    # -- Tower protocol --------------------------------------------------------------------

    def press(self, button: str) -> None:
        """Close a key contact at the current session time."""
        if self.state == UNKNOWN:
            raise TowerUnknownError(f"tower state is UNKNOWN ({self.fault}); power-cycle it "
                                    f"with recover() before pressing keys")
        ack = self._schedule(self.box.press, button, 0, at=self._at(self._cursor))
        self._events.append(make_event(0.0, "button", button=button.upper(), action="press",
                                       _dev=ack.at_us))

    def release(self, button: str) -> None:
        """Open a key contact at the current session time."""
        ack = self._schedule(self.box.release, button, at=self._at(self._cursor))
        self._events.append(make_event(0.0, "button", button=button.upper(), action="release",
                                       _dev=ack.at_us))

    def power(self, on: bool) -> None:
        """Switch the tower's supply at the current session time."""
        ack = self._schedule(self.box.power, bool(on), at=self._at(self._cursor))
        t = (ack.at_us - self.t0_us) / 1e6
        self._events.append(make_event(t, "power", on=int(bool(on)), _dev=ack.at_us))
        self._powered = bool(on)
        if on:
            self._boot_at = t

    def events(self) -> list[dict]:
        """Return what the tower showed up to now (decoded pins) plus keys and power, as
        ``final_events`` would from the capture so far; each read decodes only the changes
        that arrived since the last one."""
        self._wait_device(self._at(self._cursor))
        self._wait_samples(self._cursor)
        return self._live_merge(self._cursor)

    def close(self) -> None:
        """Release every key, switch the tower off, stop the analyser, close the port."""
        try:
            self.box.release_all()
            self.box.power(False)
        except RigError:
            pass
        if self.acq.running:
            self.acq.stop()
        self.box.close()

    # -- capture, alignment, health ---------------------------------------------------------

    def _wait_samples(self, t: float) -> None:
        t0 = self.t0_sample()
        if t0 is None:
            return
        wanted = t0 + int(t * self.samplerate)
        timeout = self.timeout_factor * 0.25
        if not self.acq.wait_for(wanted, timeout=timeout) and self.acq.running \
                and self.acq.fault is None:
            # a stalled USB reader: say so instead of returning a view with a silent hole
            raise RigError(f"analyser: the samples up to {t:.3f} s of session time did not "
                           f"arrive within {timeout:g} s (expected a running acquisition; "
                           f"is the USB bus overloaded?)")

    def t0_sample(self) -> int | None:
        """Return the capture sample of session time 0 (None until the tower has shown
        activity after power-on, or SYNC has pulsed)."""
        if self._t0_sample is not None:
            return self._t0_sample
        cap = self.acq.capture()
        words = cap.words
        mask = ~np.uint64(0)
        if self._sync_bit is not None:
            bit = np.uint64(1 << self._sync_bit)
            hits = np.flatnonzero(words & bit)
        else:
            hits = np.flatnonzero(words & mask)
        if len(hits):
            self._t0_sample = int(cap.times[hits[0]])
        return self._t0_sample

    def _check_analyser(self) -> None:
        if self.acq is not None and not self.acq.running and self.acq.fault:
            self.fault = self.acq.fault
            raise UsbError(self.acq.fault)

    def _session_now(self) -> float:
        return (self._device_now - self.t0_us) / 1e6

    def _check_health(self) -> None:
        if self.acq is None or self.state == UNKNOWN or not self._powered:
            return
        now = self._session_now()
        t0 = self.t0_sample()
        if t0 is None:
            if now > self.boot_s:
                self._unknown(f"nothing showed within {self.boot_s:g} s of power-on", 0.0)
            return
        if now - self._boot_at < self.boot_s:
            return
        last = self._last_change()
        if last is not None and (self.acq.received - last) / self.samplerate > self.stall_s:
            since = max(0.0, (last - t0) / self.samplerate)
            self._unknown(f"no pin changed since t={since:.3f} s", since)

    def _last_change(self) -> int | None:
        blocks = self.acq.blocks
        for b in reversed(blocks):
            if len(b):
                return int(b.times[-1])
        return None

    def _unknown(self, why: str, since: float | None = None) -> None:
        """Enter UNKNOWN; a gap event covers ``since`` (default now) .. now (seconds)."""
        self.state = UNKNOWN
        self.fault = f"tower stopped responding: {why}"
        now = max(0.0, self._session_now())
        start = now if since is None else min(since, now)
        self._events.append(make_event(start, "gap", dur_s=round(now - start, 6),
                                       reason=f"tower UNKNOWN: {why}"))

    def recover(self, off_s: float = 0.5) -> None:
        """Leave UNKNOWN: power the tower off for ``off_s``, on again, and wait for the
        power-on display (probed pins changing again, 50 ms or more after power-on, within
        ``boot_s``)."""
        self.power(False)
        self.advance(off_s)
        self.power(True)
        on_t = self._cursor
        while self._cursor < on_t + self.boot_s:
            self.advance(0.05)
            self._wait_device(self._at(self._cursor))
            self._wait_samples(self._cursor)
            last = self._last_change()
            t0 = self.t0_sample()
            shown = t0 is not None and last is not None
            if shown and last >= t0 + (on_t + 0.05) * self.samplerate:
                self.state = READY
                self.fault = None
                return
        raise TowerUnknownError(f"tower shows nothing {self.boot_s:g} s after a power cycle "
                                f"(check its supply and the probe clips)")

    def _live_merge(self, end_t: float) -> list[dict]:
        """Return ``_merge(acq.capture(), end_t)``, decoding only the changes and gaps that
        arrived since the last call (``SessionDecoder``)."""
        blocks, gaps, total = self.acq.arrived(self._live_blocks, self._live_gaps)
        self._live_blocks += len(blocks)
        self._live_gaps += len(gaps)
        for block in blocks:
            self._note_syncs(block)
        self._live_pending_blocks += blocks
        self._live_pending_gaps += gaps
        box = sorted(self._box_events(end_t, self._device_to_session()), key=_time)
        t0 = self.t0_sample()
        if t0 is None:
            return box
        if self._live_dec is None:
            self._live_dec = SessionDecoder(self.channels, self.samplerate, t0)
        self._live_dec.take(self._live_pending_blocks, self._live_pending_gaps)
        self._live_pending_blocks, self._live_pending_gaps = [], []
        return _merge_sorted(box, self._live_dec.read(total, end_t))

    def _box_events(self, end_t: float, to_session: Callable[[int], float]) -> list[dict]:
        """Return the key, power and gap events the rig made, timed on the session clock."""
        # Key and power actions the box acknowledged for after it went away never happened
        # for sure: keep only those up to the last time it was heard from.
        box_end = end_t if self.fault_t is None else min(end_t, self.fault_t)
        events = []
        for ev in self._events:
            if "_dev" in ev:
                if (ev["_dev"] - self.t0_us) / 1e6 > box_end + 1e-9:
                    continue
                ev = dict(ev)
                ev["t"] = round(max(0.0, to_session(ev.pop("_dev"))), 6)
            if ev["t"] <= end_t + 1e-9:
                events.append(ev)
        return events

    def _note_syncs(self, block: Changes) -> None:
        """Note the SYNC rising edges of a block that arrived (capture samples)."""
        if self._sync_bit is None or not len(block):
            return
        high = (block.words & np.uint64(1 << self._sync_bit)) != 0
        before = np.concatenate(([self._sync_high], high[:-1]))
        self._sync_rises += block.times[high & ~before].tolist()
        self._sync_high = bool(high[-1])

    def _sync_edges(self, cap: MemoryCapture) -> np.ndarray:
        bit = np.uint64(1 << self._sync_bit)
        high = (cap.words & bit) != 0
        rising = high & ~np.concatenate(([False], high[:-1]))
        return cap.times[rising]

    def _device_to_session(self, cap: MemoryCapture | None = None) -> Callable[[int], float]:
        """Return a map from device microseconds to session seconds on the analyser's clock:
        a straight-line fit of the SYNC pulses' rising edges (in ``cap``; None: those noted
        as the capture arrived) against the device times they were scheduled at, or the
        nominal clocks (1 device us = 1 us) without SYNC."""
        nominal = (lambda dev: (dev - self.t0_us) / 1e6)
        if self._sync_bit is None or self.t0_sample() is None:
            return nominal
        edges = self._sync_edges(cap) if cap is not None else np.array(self._sync_rises,
                                                                         np.int64)
        n = min(len(edges), len(self._syncs))
        if n < 2:
            return nominal
        slope, icept = np.polyfit(np.array(self._syncs[:n], float), edges[:n].astype(float), 1)
        t0, rate = self._t0_sample, self.samplerate
        return lambda dev: (slope * dev + icept - t0) / rate

    def session_capture(self, cap: MemoryCapture) -> MemoryCapture:
        """Return ``cap`` re-based so that sample 0 is the session's power-on (t0_sample)."""
        t0 = self.t0_sample() or 0
        idx = max(0, int(np.searchsorted(cap.times, t0, side="right")) - 1)
        times = cap.times[idx:] - t0
        words = cap.words[idx:]
        if len(times):
            times = times.copy()
            times[0] = 0
        gaps = [Gap(max(0, g.start - t0), max(0, g.end - t0), g.reason) for g in cap.gaps
                if g.end > t0]
        total = None if cap.info.total_samples is None else max(0, cap.info.total_samples - t0)
        info = CaptureInfo(list(cap.info.channels), cap.info.samplerate, total,
                           dict(cap.info.meta))
        return MemoryCapture(info, times, words, gaps)

    def _merge(self, cap: MemoryCapture, end_t: float) -> list[dict]:
        box = sorted(self._box_events(end_t, self._device_to_session(cap)), key=_time)
        t0 = self.t0_sample()
        if t0 is None:
            return box
        dec = SessionDecoder(self.channels, self.samplerate, t0)
        dec.take([Changes(cap.times, cap.words)], cap.gaps)
        return _merge_sorted(box, dec.read(int(cap.info.total_samples or 0), end_t))

    def finish(self, end_t: float | None = None, reason: str | None = None) -> MemoryCapture:
        """Stop the analyser and return its capture; after a fault, a gap from the fault to
        ``end_t`` (session seconds) records the time the rig could not observe."""
        cap = self.acq.stop() if self.acq.running else self.acq.capture()
        t0 = self.t0_sample() or 0
        cap.info.meta.update({"t0_sample": t0, "t0_device_us": self.t0_us,
                              "late_actions": self.late_actions})
        if self.fault and end_t is not None:
            start = int(cap.info.total_samples or 0)
            end = max(start, t0 + int(end_t * self.samplerate))
            if end > start:
                gap = Gap(start, end, reason or self.fault)
                cap.gaps.append(gap)
                if self.acq.sink is not None:
                    self.acq.sink.write_gap(gap)
                cap.info.total_samples = end
        return cap

    def final_events(self, cap: MemoryCapture, end_t: float) -> list[dict]:
        """Return the session's events from a finished capture (no waiting on the box)."""
        return self._merge(cap, end_t)
