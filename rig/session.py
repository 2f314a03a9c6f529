"""Record a scripted session on any tower and check a recording against a tower.

A recording is a directory::

    recording.json   what was recorded: target, romset, samplerate, channels, t0_sample,
                     the event types the target could observe, a fault if one happened
    script.txt       the session script (captures.script format)
    capture.tlc      the pins (captures.stream; written as they arrive on real hardware, so a
                     crash or an unplugged probe leaves a readable file)
    events.jsonl     what the tower showed, in session seconds (captures.events)

Targets (``open_target``):

    real       the button box on a serial port + an fx2lafw analyser (or sigrok-cli)
    sim        the same drivers against the virtual bench: the button-box firmware in simavr,
               the simulated FX2 on pyusb, and a virtual tower inside (the emulator, or
               ``virtual="fake"`` for rig.fakes.PinTower)
    emu        the emulator (rig.targets.EmulatorTower, demo firmware or a romset)
    cleanroom  the clean-room game (cleanroom.tower.CleanroomTower)
    replay     a recorded session (rig.targets.ReplayTower: a recording or a shared capture)
    fake       rig.fakes.PinTower directly (a pin-level double, for tests)

``check`` replays the recording's script on a target and compares the events with
analysis.compare (clock ratio estimated, per-type time tolerances) on the event types both
sides observe.
"""
from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import numpy as np

from analysis.base import AnalysisError
from analysis.compare import (Comparison, IntervalFit, Tolerance, compare_events,
                              fit_interval_ratio)
from captures.darktower_facts import NOMINAL_CLOCK_HZ as DARKTOWER_CLOCK_HZ
from captures.events import read_events, write_events
from captures.script import Script, read_script, write_script
from captures.tower import run_script
from rig.bench import PROBE_16, VirtualBench
from rig.errors import ClockFitError, RigError

if TYPE_CHECKING:
    from rig.real import RealTower

__all__ = ["TargetSpec", "Target", "open_target", "record", "check", "import_capture",
           "recorded_clock", "fit_recorded_clock", "CheckResult", "Recording", "load_recording",
           "TARGETS", "DEFAULT_CHANNEL_MAP", "NOMINAL_CLOCK_HZ", "validate_spec",
           "load_probe_map", "check_cleanroom"]

TARGETS = ("real", "sim", "emu", "cleanroom", "replay", "fake")
RECORDING_FORMAT = "towerlab-recording"
RECORDING_VERSION = 1
DEFAULT_CHANNEL_MAP = {f"D{i}": name for i, name in enumerate(PROBE_16)}
DECODER_TYPES = {"display": "display", "lamps": "lamp", "motor": "motor", "reel": "reel",
                 "speaker": "tone", "keypad": "button"}
ALL_OUTPUT_TYPES = ("display", "lamp", "motor", "reel", "tone")
NOMINAL_CLOCK_HZ = float(DARKTOWER_CLOCK_HZ)   # MAME's clock for the tower, as a float
RECORDING_FILES = ("recording.json", "script.txt", "capture.tlc", "events.jsonl")
FAULT_MARGIN_S = 0.2    # a recording's fault: compare up to this long before it
# plausible oscillator / nominal (the RC spread: docs/dark-tower-wiring.md §9)
CLOCK_FIT_RANGE = (0.7, 1.3)
CLOCK_FIT_MAX_STD = 0.005      # a fit less certain than 0.5 % is not used
END_MARGIN_S = 0.05     # events this close to the session end are not compared


@dataclass
class TargetSpec:
    """How to reach a tower: target kind and its options."""
    target: str
    romset: str | None = None
    firmware: str = "demo"
    port: str | None = None
    analyser: str = "fx2lafw"          # or a sigrok-cli driver spec: "sigrok:DRIVER[:opts]"
    channel_map: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_CHANNEL_MAP))
    samplerate: float = 250_000
    virtual: str = "emu"               # inside the bench: "emu" or "fake"
    tower_speed: float = 1.0           # bench: the virtual tower's clock against the world
    seed: int = 0
    clock_hz: float | None = None      # emu: oscillator (default: the board's 425 kHz)
    box_clock_error: float = 0.0       # bench: the box's resonator error (0.003 = 0.3 % fast)
    replay: str | None = None          # replay: the recording folder to answer from


class Target:
    """An open tower plus what is needed to finish a recording from it."""

    def __init__(self, tower, spec: TargetSpec, bench: VirtualBench | None = None):
        self.tower = tower
        self.spec = spec
        self.bench = bench

    @property
    def real(self) -> "RealTower | None":
        """Return the RealTower when the target goes through the rig's drivers, else None."""
        from rig.real import RealTower
        return self.tower if isinstance(self.tower, RealTower) else None

    def observed_types(self) -> list[str]:
        """Return the output event types this target can produce."""
        if self.real is None:
            return list(ALL_OUTPUT_TYPES)
        from analysis.decode import StreamDecoder
        from captures.model import CaptureInfo
        dec = StreamDecoder(CaptureInfo(self.real.channels, self.real.samplerate))
        names = [type(d).NAME for d in dec.decoders]
        return [DECODER_TYPES[n] for n in names if DECODER_TYPES.get(n) in ALL_OUTPUT_TYPES]

    def explain(self, exc: RigError) -> RigError:
        """Return ``exc``, or the virtual bench's own failure when that is what broke the
        link (the host only sees the box go away)."""
        if self.bench is not None and self.bench.error:
            return RigError(f"virtual bench failed: {self.bench.error}")
        return exc

    def close(self) -> None:
        """Close the tower and stop the bench, if any."""
        try:
            self.tower.close()
        finally:
            if self.bench is not None:
                self.bench.close()


def _emulator_tower(spec: TargetSpec):
    try:
        from rig.targets import EmulatorTower
    except ImportError as exc:
        raise RigError(f"the emulator target is not available ({exc})") from None
    clock = int(round(spec.clock_hz)) if spec.clock_hz else None
    if spec.romset:
        return EmulatorTower(romset=spec.romset, clock_hz=clock)
    return EmulatorTower(firmware=spec.firmware, clock_hz=clock)


def _virtual_tower(spec: TargetSpec):
    if spec.virtual == "fake":
        from rig.fakes import PinTower
        return PinTower()
    if spec.virtual == "emu":
        # An RC oscillator off by ``tower_speed`` runs the chip fast or slow; the reel motor
        # and the board's 1/60 s frames keep real time (the emulator's clock_hz does that).
        base = spec.clock_hz or NOMINAL_CLOCK_HZ
        return _emulator_tower(replace(spec, clock_hz=base * spec.tower_speed))
    raise RigError(f"unknown virtual tower {spec.virtual!r} (expected emu or fake)")


def _bench_tower_speed(spec: TargetSpec) -> float:
    """Return the time scale the bench applies to the virtual tower: the emulator takes the
    oscillator error as its clock (``_virtual_tower``), the pin-level fake has no clock."""
    return spec.tower_speed if spec.virtual == "fake" else 1.0


def _analyser(spec: TargetSpec, bench: VirtualBench | None):
    from rig.fx2lafw import Fx2lafw
    if bench is not None:
        return Fx2lafw(backend=bench.usb_backend, clock=bench.clock)
    if spec.analyser == "fx2lafw":
        return Fx2lafw()
    if spec.analyser.startswith("sigrok:"):
        from rig.sigrok_cli import SigrokCli
        return SigrokCli(spec.analyser[len("sigrok:"):])
    raise RigError(f"unknown analyser {spec.analyser!r} (expected fx2lafw or sigrok:DRIVER)")


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value


def validate_spec(spec: TargetSpec) -> None:
    """Raise RigError, one line naming the value, for an option of ``spec`` that no target
    could use; nothing is opened."""
    from captures.model import DARKTOWER_CHANNELS

    if spec.target not in TARGETS:
        raise RigError(f"unknown target {spec.target!r} (expected one of {', '.join(TARGETS)})")
    if not (_number(spec.tower_speed) and 0.5 <= spec.tower_speed <= 2.0):
        raise RigError(f"tower speed {spec.tower_speed!r}: expected a factor from 0.5 to 2 "
                       f"(1.03 = the tower's clock 3 % fast)")
    if spec.clock_hz is not None and not (_number(spec.clock_hz)
                                          and 1_000 <= spec.clock_hz <= 10_000_000):
        raise RigError(f"clock {spec.clock_hz!r} Hz: expected an oscillator from 1 kHz to "
                       f"10 MHz (the tower's is about 425000)")
    if not (_number(spec.samplerate) and 0 < spec.samplerate < float("inf")):
        raise RigError(f"samplerate {spec.samplerate!r}: expected a positive number of Hz "
                       f"(e.g. 250000)")
    if spec.analyser != "fx2lafw" and not (spec.analyser.startswith("sigrok:")
                                           and len(spec.analyser) > len("sigrok:")):
        raise RigError(f"unknown analyser {spec.analyser!r} (expected fx2lafw or "
                       f"sigrok:DRIVER, e.g. sigrok:fx2lafw or sigrok:saleae-logic16)")
    if spec.virtual not in ("emu", "fake"):
        raise RigError(f"unknown virtual tower {spec.virtual!r} (expected emu or fake)")
    pins = set(DARKTOWER_CHANNELS) | {"SYNC"}
    for probe, pin in spec.channel_map.items():
        if pin not in pins:
            raise RigError(f"channel map: {probe} = {pin!r} is not a tower pin (expected SYNC "
                           f"or one of {' '.join(DARKTOWER_CHANNELS)})")


def open_target(spec: TargetSpec, sink_factory=None) -> Target:
    """Open the tower named by ``spec``; ``sink_factory(channels, samplerate)`` returns the
    live capture sink for rig targets (e.g. a StreamWriter)."""
    validate_spec(spec)
    if spec.target == "emu":
        return Target(_emulator_tower(spec), spec)
    if spec.target == "cleanroom":
        from cleanroom.tower import CleanroomTower
        return Target(CleanroomTower(seed=spec.seed), spec)
    if spec.target == "fake":
        from rig.fakes import PinTower
        return Target(PinTower(), spec)
    if spec.target == "replay":
        if not spec.replay:
            raise RigError("the replay target needs the recording to replay (--replay DIR)")
        from rig.targets import ReplayTower
        return Target(ReplayTower(spec.replay), spec)
    from rig.buttonbox import ButtonBox, open_serial
    from rig.real import RealTower, probe_channels
    channels = probe_channels(spec.channel_map)
    bench = None
    if spec.target == "sim":
        bench = VirtualBench(lambda: _virtual_tower(spec), probe=tuple(channels),
                             tower_speed=_bench_tower_speed(spec),
                             box_clock_error=spec.box_clock_error).start()
        port = bench.port
    else:
        if not spec.port:
            raise RigError("the real target needs the button box's serial port (--port "
                           "/dev/ttyACM0)")
        port = spec.port
    box = None
    try:
        # On the bench the host's serial link paces the world (rig.bench.HostPacer).
        box = (ButtonBox(port) if bench is None else
               ButtonBox(port, link=bench.pacer.link(open_serial(port), bench.clock)))
        sink = sink_factory(channels, spec.samplerate) if sink_factory else None
        # On the bench the world may run several times faster than the wall clock: schedule
        # actions two (bench) seconds ahead, 0.4 s of wall time, so a host slowed down by a
        # loaded machine is not late.
        tower = RealTower(box, _analyser(spec, bench), channels, spec.samplerate, sink=sink,
                          lead_s=2.0 if bench is not None else 0.3)
    except BaseException:
        if box is not None:
            box.close()
        if bench is not None:
            bench.close()
        raise
    return Target(tower, spec, bench)


def _read_script(path: str | os.PathLike, empty_ok: bool = True) -> Script:
    """Read a session script; errors name the file (also for bytes that are not UTF-8
    text). With ``empty_ok`` False a script with no action and no run length is refused."""
    try:
        script = read_script(str(path))
    except UnicodeDecodeError:
        raise RigError(f"{path}: not a text script (expected '<time_s> <BUTTON> <hold_s>' "
                       f"lines in UTF-8)") from None
    if not empty_ok and not script.actions and script.length is None:
        raise RigError(f"{path}: the script has no action and no '# run length: S s' line "
                       f"(nothing to record)")
    return script


def _read_events(path: Path) -> list[dict]:
    """Read an events file; errors name the file (also for bytes that are not UTF-8)."""
    try:
        return read_events(str(path))
    except UnicodeDecodeError:
        raise RigError(f"{path}: not a JSON-lines events file (bytes that are not UTF-8 "
                       f"text)") from None


def _out_dir(path: str | os.PathLike) -> Path:
    """Return ``path`` as a directory a recording may be written to, without creating it:
    a new or empty directory, or an old recording (replaced). Anything else would have the
    user's own script.txt or events.jsonl overwritten."""
    d = Path(path)
    if d.exists() and not d.is_dir():
        raise RigError(f"{d}: exists and is not a directory (expected a recording directory "
                       f"to write)")
    if d.is_dir() and any(d.iterdir()) and not (d / "recording.json").exists():
        raise RigError(f"{d}: not empty and not a recording (expected a new or empty "
                       f"directory, or a recording to replace)")
    parent = d.resolve().parent
    while not parent.exists():
        parent = parent.parent
    if not os.access(parent if not d.exists() else d, os.W_OK):
        raise RigError(f"{d}: cannot write here (permission denied; choose another --out)")
    return d


def _make_dir(d: Path) -> bool:
    """Create ``d`` (and parents); return whether it was created. Errors are one line."""
    made = not d.exists()
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RigError(f"{d}: cannot create the recording directory "
                       f"({exc.strerror or exc})") from None
    return made


@dataclass
class Recording:
    """A recording directory's contents."""
    path: Path
    meta: dict
    script: Script
    events: list[dict]


def load_recording(path: str | os.PathLike) -> Recording:
    """Read a recording directory (or a shared capture folder: script.txt + events.jsonl);
    raise RigError naming the file that is missing or wrong."""
    d = Path(path)
    meta_path = d / "recording.json"
    if not d.is_dir():
        raise RigError(f"{d}: not a recording (expected a directory made by towerlab rig "
                       f"record or rig import)")
    if not meta_path.exists():
        if (d / "script.txt").exists() and (d / "events.jsonl").exists():
            return _capture_folder(d)
        raise RigError(f"{d}: not a recording (no recording.json, nor script.txt and "
                       f"events.jsonl; make one with towerlab rig record or rig import)")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RigError(f"{meta_path}: unreadable ({exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != RECORDING_FORMAT \
            or meta.get("version") != RECORDING_VERSION:
        got = (meta.get("format"), meta.get("version")) if isinstance(meta, dict) else \
            type(meta).__name__
        raise RigError(f"{meta_path}: expected format {RECORDING_FORMAT!r} version "
                       f"{RECORDING_VERSION}, got {got!r}")
    _check_meta(meta_path, meta)
    script = _read_script(d / "script.txt")
    events = _read_events(d / "events.jsonl")
    return Recording(d, meta, script, events)


def _check_meta(meta_path: Path, meta: dict) -> None:
    """Raise RigError naming the field of recording.json that has the wrong kind of value."""
    observed = meta.get("observed", list(ALL_OUTPUT_TYPES))
    if not isinstance(observed, list) or not all(isinstance(t, str) for t in observed):
        raise RigError(f"{meta_path}: 'observed' is {observed!r} (expected a list of event "
                       f"types such as [\"display\", \"lamp\"])")
    end = meta.get("script_end_s")
    if end is not None and (isinstance(end, bool) or not isinstance(end, (int, float))
                            or not end >= 0):
        raise RigError(f"{meta_path}: 'script_end_s' is {end!r} (expected seconds >= 0)")
    late = meta.get("late_actions")
    if late is not None and (isinstance(late, bool) or not isinstance(late, int) or late < 0):
        raise RigError(f"{meta_path}: 'late_actions' is {late!r} (expected a count >= 0)")


def _capture_folder(d: Path) -> Recording:
    """Return a shared capture folder (script.txt, events.jsonl: every output observed) as a
    Recording."""
    script = _read_script(d / "script.txt")
    meta = {"format": RECORDING_FORMAT, "version": RECORDING_VERSION, "target": "capture",
            "observed": list(ALL_OUTPUT_TYPES), "script_end_s": script.end_time(),
            "fault": None}
    rom = _edges_rom_sha1(d / "edges.jsonl.gz")
    if rom:
        meta["rom_sha1"] = rom
    return Recording(d, meta, script, _read_events(d / "events.jsonl"))


def _edges_rom_sha1(path: Path) -> str | None:
    """Return the ROM SHA-1 named in an edges.jsonl.gz header (the shared captures carry
    one), or None when there is no such file or field."""
    import gzip

    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            header = json.loads(f.readline(1 << 16))
    except (OSError, ValueError, EOFError):
        return None
    rom = header.get("rom_sha1") if isinstance(header, dict) else None
    return rom if isinstance(rom, str) else None


def target_rom_sha1(spec: TargetSpec) -> str | None:
    """Return the SHA-1 of the ROM image an emulator target runs (None for other targets)."""
    import hashlib

    if spec.target != "emu":
        return None
    if spec.romset:
        from emulator.romset import load_romset
        rom = load_romset(spec.romset).rom
    else:
        from rig.targets import demo_program
        rom = bytes(demo_program().rom)
    return hashlib.sha1(rom).hexdigest()


def _write_json(path: Path, data: dict) -> None:
    from captures.files import atomic_write

    text = json.dumps(data, indent=2, sort_keys=True) + "\n"
    atomic_write(path, lambda f: f.write(text), binary=False)


class _Watched:
    """A Tower proxy that reports session progress (seconds done, seconds total)."""

    def __init__(self, tower, total: float, report: Callable[[float, float], None]):
        self._tower, self._total, self._report = tower, total, report

    def __getattr__(self, name):
        return getattr(self._tower, name)

    def advance(self, seconds: float) -> None:
        """Advance the tower by ``seconds`` and report the progress."""
        self._tower.advance(seconds)
        self._report(min(self._tower.now, self._total), self._total)


def record(script_path: str, spec: TargetSpec, out: str | os.PathLike,
           inject: Callable[[Target], None] | None = None,
           progress: Callable[[float, float], None] | None = None) -> Recording:
    """Run a script on a target and store script, capture and events in ``out``.

    On a rig fault (box unplugged, USB error, tower UNKNOWN) the files are still written, up to
    the fault with the rest of the session recorded as a gap, and the fault is raised after.
    ``inject(target)`` is called once the target is open (fault-injection tests use it);
    ``progress(done_s, total_s)`` after every advance of the session.
    """
    from captures.formats import write_capture
    from captures.stream import StreamWriter

    script = _read_script(script_path, empty_ok=False)
    d = _out_dir(out)
    validate_spec(spec)
    made_dir = _make_dir(d)
    capture_path = d / "capture.tlc"
    writers: list[StreamWriter] = []

    def sink_factory(channels: list[str], samplerate: float) -> StreamWriter:
        """Return the live capture.tlc writer for the rig's analyser."""
        w = StreamWriter(capture_path, channels, samplerate, {"target": spec.target})
        writers.append(w)
        return w

    def discard() -> None:
        """Nothing half-written: remove what this recording wrote (Ctrl-C, a crash)."""
        for w in writers:
            w.abandon()
        for name in RECORDING_FILES:
            (d / name).unlink(missing_ok=True)
        if made_dir:
            shutil.rmtree(d, ignore_errors=True)

    try:
        target = open_target(spec, sink_factory)
    except BaseException:
        discard()
        raise
    end = script.end_time()
    fault: BaseException | None = None
    done = False
    try:
        # The script as given, byte for byte (write_script keeps 6 significant digits).
        (d / "script.txt").write_text(Path(script_path).read_text(encoding="utf-8"),
                                      encoding="utf-8")
        if inject is not None:
            inject(target)
        tower = target.tower if progress is None else _Watched(target.tower, end, progress)
        try:
            events = run_script(tower, script)
        except RigError as exc:
            fault = target.explain(exc)
            events = None
        meta = {"format": RECORDING_FORMAT, "version": RECORDING_VERSION,
                "target": spec.target, "romset": spec.romset, "firmware": spec.firmware,
                "script_end_s": end, "observed": target.observed_types(), "fault": None}
        real = target.real
        if real is not None:
            cap = real.finish(end, reason=f"rig fault: {fault}" if fault else None)
            if events is None:
                events = real.final_events(cap, end)
            if fault is not None:
                events.append({"t": round(cap.gaps[-1].start / real.samplerate
                                          - (real.t0_sample() or 0) / real.samplerate, 6)
                               if cap.gaps else 0.0,
                               "type": "gap", "dur_s": 0.0, "reason": str(fault)})
                events.sort(key=lambda e: e["t"])
            for w in writers:
                w.close(int(cap.info.total_samples or 0) or None)
            meta.update({"samplerate": real.samplerate, "channels": real.channels,
                         "t0_sample": real.t0_sample(), "late_actions": real.late_actions})
            if target.bench is not None:
                meta["bench"] = {"virtual": spec.virtual, "tower_speed": spec.tower_speed}
        else:
            cap = target.tower.capture() if hasattr(target.tower, "capture") else None
            if cap is not None:
                write_capture(cap, capture_path)
                meta.update({"samplerate": cap.info.samplerate,
                             "channels": list(cap.info.channels), "t0_sample": 0})
        if fault is not None:
            meta["fault"] = str(fault)
        with open(d / "events.jsonl", "w", encoding="utf-8") as f:
            write_events(events or [], f)
        _write_json(d / "recording.json", meta)
        done = True
    finally:
        # Stop the analyser's reader before its sink goes away.
        target.close()
        if done:
            for w in writers:
                w.abandon()
        else:
            discard()
    if fault is not None:
        raise fault
    return load_recording(d)


def recorded_clock(rec: Recording) -> float:
    """Estimate the recorded tower's oscillator (Hz) from its tones (analysis.compare's
    estimate_clock, which knows the genuine firmware's tone periods)."""
    from analysis.compare import estimate_clock

    return estimate_clock(rec.events).clock_hz


@dataclass
class CheckResult(Comparison):
    """A ``Comparison`` (recording = A, target = B) plus the oscillator the target ran at.

    ``clock_hz`` is None when the target ran at its own clock; with ``--clock auto``,
    ``clock_fit`` is the first pass's fit (analysis.compare.IntervalFit, ratio = the nominal
    run's clock over the recorded tower's).
    """
    clock_hz: float | None = None
    clock_fit: IntervalFit | None = None
    compared_until: float | None = None     # session seconds; less than the script's length
    fault: str | None = None                # when the recording ends in a fault
    late_actions: int = 0                   # the recording's actions that ran late
    clock_note: str | None = None           # why --clock auto fell back to the nominal clock
    rom_note: str | None = None             # the recording names another ROM than the target's
    target_events: list[dict] | None = None  # what the target showed (B), up to compared_until


def _replay(rec: Recording, spec: TargetSpec) -> tuple[list[dict], tuple[str, ...]]:
    """Run the recording's script on the target; return its events and the output types both
    sides observe."""
    target = open_target(spec)
    try:
        try:
            events = run_script(target.tower, rec.script, until=rec.meta.get("script_end_s"))
        except RigError as exc:
            raise target.explain(exc) from None
        types = tuple(t for t in ALL_OUTPUT_TYPES
                      if t in rec.meta.get("observed", ALL_OUTPUT_TYPES)
                      and t in target.observed_types())
    finally:
        target.close()
    return events, types


def fit_recorded_clock(rec: Recording, spec: TargetSpec,
                       events: list[dict] | None = None) -> tuple[float, IntervalFit]:
    """Return the recorded tower's oscillator (Hz) and the fit it comes from, for any firmware.

    The target (which must take a clock: emu, or sim with the emulator inside) runs the
    script at its nominal clock (``spec.clock_hz`` or 425 kHz), or ``events`` are that run;
    analysis.compare.fit_interval_ratio then compares the intervals both firmwares time
    themselves (flash periods, step delays, tone periods) between the recording and that run.
    """
    if spec.target not in ("emu", "sim") or (spec.target == "sim" and spec.virtual != "emu"):
        what = f"sim --virtual {spec.virtual}" if spec.target == "sim" else spec.target
        raise RigError(f"--clock auto needs a target that takes a clock (emu, or sim with "
                       f"the emulator inside), not {what}")
    nominal = spec.clock_hz or NOMINAL_CLOCK_HZ
    if events is None:
        events = _replay(rec, replace(spec, clock_hz=nominal))[0]
    end = _compared_end(rec)
    try:
        fit = fit_interval_ratio([e for e in rec.events if e["t"] < end],
                                 [e for e in events if e["t"] < end])
    except AnalysisError as exc:
        raise ClockFitError(f"{rec.path}: cannot fit the recorded tower's clock "
                            f"({exc})") from None
    clock = nominal / fit.ratio
    if not (CLOCK_FIT_RANGE[0] <= clock / nominal <= CLOCK_FIT_RANGE[1]
            and fit.std_rel <= CLOCK_FIT_MAX_STD):
        raise ClockFitError(f"{rec.path}: the fitted clock {clock:.0f} Hz (+-"
                            f"{fit.std_rel * 100:.2f} %, from {fit.intervals} events and "
                            f"{fit.tones} tones) is not plausible: the recording and a run at "
                            f"{nominal:.0f} Hz have too little in common")
    return clock, fit


def _compared_end(rec: Recording) -> float:
    """Return the session time (s) up to which events are compared: the decoders' last
    1/60 s window depends on where each side stops, and a recording that ends in a fault (a
    gap: the probe saw nothing from there) is compared up to ``FAULT_MARGIN_S`` before the
    fault (an unplugged box drops the tower's power a moment before the host notices)."""
    end = float(rec.meta.get("script_end_s") or rec.script.end_time()) - END_MARGIN_S
    gaps = [e["t"] - FAULT_MARGIN_S for e in rec.events if e.get("type") == "gap"]
    return min([end] + gaps)


def check(path: str | os.PathLike, spec: TargetSpec, auto_clock: bool = False) -> CheckResult:
    """Replay a recording's script on a target; return the comparison (recording = A,
    target = B) over the event types both observe.

    ``auto_clock``: a real tower's RC oscillator is off its nominal 425 kHz, so the same
    press lands in a different program state unless the target runs at the recorded tower's
    clock. Two passes: run at the nominal clock and fit the clock from internally timed
    intervals (``fit_recorded_clock``, any firmware), then rerun at the fitted clock and
    compare that.
    """
    rec = load_recording(path)
    fit = None
    note = None
    rom_note = None
    recorded_rom = rec.meta.get("rom_sha1")
    if isinstance(recorded_rom, str):
        ours = target_rom_sha1(spec)
        if ours is not None and ours != recorded_rom:
            rom_note = (f"the recording was made with ROM {recorded_rom[:12]}..., the target "
                        f"runs {ours[:12]}... ({'--romset ' + spec.romset if spec.romset else 'the demo firmware'}): "
                        f"differences are expected; pass --romset with that ROM")
    if auto_clock:
        try:
            clock, fit = fit_recorded_clock(rec, spec)
            spec = replace(spec, clock_hz=clock)
        except ClockFitError as exc:
            # Compare at the nominal clock: the first difference says where they part.
            note = str(exc)
    events, types = _replay(rec, spec)
    end = _compared_end(rec)
    a = [e for e in rec.events if e["t"] < end]
    b = [e for e in events if e["t"] < end]
    # Reel positions are inferred (dead reckoning between sensor holes on a probe, frame-polled
    # on the emulator's board): fit the clock on the pin-exact types, then compare everything.
    exact = tuple(t for t in types if t != "reel") or types
    # (A fit outside analysis.compare.RATIO_RANGE comes back as the same clock, 1.0 / 0.0.)
    first = compare_events(a, b, Tolerance(types=exact))
    result = compare_events(a, b, Tolerance(types=types), ratio=first.ratio,
                            offset=first.offset)
    return CheckResult(**vars(result), clock_hz=spec.clock_hz, clock_fit=fit,
                       compared_until=end, fault=rec.meta.get("fault"),
                       late_actions=int(rec.meta.get("late_actions") or 0),
                       clock_note=note, rom_note=rom_note, target_events=b)


def check_cleanroom(path: str | os.PathLike):
    """Check a recording against the clean-room game; return cleanroom.conform's Result.

    The game draws random decisions (move outcomes, prices, haggles...), so it is compared as
    ``towerlab conform`` does: each decision resolved to what the recording shows, with the
    game's tolerances (key-scan latency, flash phase), on the output types the recording
    observed, up to its end (or its fault).
    """
    from cleanroom.conform import resolve

    rec = load_recording(path)
    end = _compared_end(rec)
    types = [t for t in ALL_OUTPUT_TYPES if t in rec.meta.get("observed", ALL_OUTPUT_TYPES)]
    return resolve(rec.script, [e for e in rec.events if e["t"] < end], end=end, types=types)


def load_probe_map(path: str | os.PathLike) -> dict[str, str]:
    """Read a channel-map file (captures.channelmap format) for the rig's analyser: probes
    D0..D15, each on a tower pin or SYNC; errors name the file."""
    from captures.channelmap import load_channel_map

    cmap = load_channel_map(path)
    try:
        validate_spec(TargetSpec("fake", channel_map=cmap))
        from rig.real import probe_channels
        probe_channels(cmap)
    except RigError as exc:
        raise RigError(f"{path}: {str(exc).removeprefix('channel map: ')}") from None
    return cmap


def _script_inputs(script: Script) -> list[dict]:
    """Return the script's key and power actions as button/power events (the inputs a rig
    recording holds next to what the tower showed)."""
    from captures.events import make_event
    from captures.script import timeline

    out = []
    for t, kind, arg in timeline(script):
        if kind == "power":
            out.append(make_event(t, "power", on=int(bool(arg))))
        else:
            out.append(make_event(t, "button", button=arg, action=kind))
    return out


def _power_on_sample(cap) -> int:
    """Return the sample at which the tower was switched on: the first at which an O pin
    leaves the all-low level of an unpowered tower (the TMS1400 drives O from reset, tms1400-
    facts.md §6), as RealTower aligns a capture without SYNC; 0 when the capture starts
    powered or probes no O pin."""
    mask = sum(1 << i for i, name in enumerate(cap.info.channels)
               if name in {f"O{k}" for k in range(8)})
    if not mask:
        return 0
    for block in cap.changes():
        lit = np.flatnonzero(block.words & np.uint64(mask))
        if len(lit):
            return int(block.times[lit[0]])
    return 0


def _from_sample(cap, t0: int):
    """Return ``cap`` seen from sample ``t0`` on (a change time), its samples renumbered
    from 0."""
    from captures.model import Capture, CaptureInfo, Changes, Gap

    def blocks():
        for block in cap.changes():
            keep = block.times >= t0
            if keep.any():
                yield Changes(block.times[keep] - t0, block.words[keep])

    total = cap.info.total_samples
    info = CaptureInfo(list(cap.info.channels), cap.info.samplerate,
                       None if total is None else total - t0, dict(cap.info.meta))
    gaps = [Gap(max(0, g.start - t0), g.end - t0, g.reason) for g in cap.gaps if g.end > t0]
    return Capture(info, blocks, gaps)


def import_capture(path: str, out: str | os.PathLike, channel_map: str | None = None,
                   script_path: str | None = None, start_s: float | None = None) -> Recording:
    """Turn a capture recorded elsewhere (.sr, .vcd, Saleae, .tlc, edges) into a recording:
    decode it, keep it as capture.tlc, and store the script if one is given.

    Session time 0 is the tower's power-on: a capture that starts before it has its events
    decoded from there (``t0_sample`` in recording.json), so the script's times, counted from
    power-on, line up. ``start_s`` gives it (seconds into the capture); by default it is the
    first sample at which an O pin leaves the all-low level of an unpowered tower (the
    TMS1400 drives O from reset), or 0 when no O pin was probed (an 8-channel probe cannot
    see the power-on).

    Everything is checked and written in a temporary directory next to ``out`` first, then
    renamed into place: a bad input leaves nothing behind.
    """
    import tempfile

    from analysis.decode import StreamDecoder, decode
    from captures.formats import open_capture, write_capture

    d = _out_dir(out)
    script = _read_script(script_path) if script_path else None
    cap = open_capture(path, channel_map=channel_map)
    if start_s is None:
        t0 = _power_on_sample(cap)
    elif not (_number(start_s) and 0 <= start_s < cap.info.seconds(cap.info.total_samples
                                                                     or 0)):
        raise RigError(f"--start {start_s!r}: expected the seconds into {path} at which the "
                       f"tower was switched on (0 to the capture's length)")
    else:
        t0 = int(round(start_s * cap.info.samplerate))
    shift = t0 / cap.info.samplerate
    events = decode(_from_sample(cap, t0)) if t0 else decode(cap)
    if script is not None:
        events = sorted(events + _script_inputs(script), key=lambda e: e["t"])
    parent = d.resolve().parent
    _make_dir(parent)
    tmp = Path(tempfile.mkdtemp(prefix=f".{d.name}.", dir=parent))
    try:
        write_capture(cap, tmp / "capture.tlc")
        if script is None:
            script = Script(name="script")
            script.length = round(cap.info.seconds(cap.info.total_samples or 0) - shift, 6)
        with open(tmp / "script.txt", "w", encoding="utf-8") as f:
            if script_path:
                f.write(Path(script_path).read_text(encoding="utf-8"))
            else:
                write_script(script, f)
        dec = StreamDecoder(cap.info)
        observed = [DECODER_TYPES[type(x).NAME] for x in dec.decoders
                    if DECODER_TYPES.get(type(x).NAME) in ALL_OUTPUT_TYPES]
        with open(tmp / "events.jsonl", "w", encoding="utf-8") as f:
            write_events(events, f)
        _write_json(tmp / "recording.json", {
            "format": RECORDING_FORMAT, "version": RECORDING_VERSION, "target": "import",
            "source": os.path.abspath(path), "samplerate": cap.info.samplerate,
            "channels": list(cap.info.channels), "t0_sample": t0, "observed": observed,
            "script_end_s": script.end_time(), "fault": None, "romset": None,
            "firmware": None})
        if d.exists():
            shutil.rmtree(d)
        os.replace(tmp, d)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return load_recording(d)
