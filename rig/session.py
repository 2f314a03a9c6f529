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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from captures.events import read_events, write_events
from captures.script import Script, read_script, write_script
from captures.tower import run_script
from rig.bench import PROBE_16, VirtualBench
from rig.errors import RigError

__all__ = ["TargetSpec", "Target", "open_target", "record", "check", "import_capture",
           "recorded_clock", "Recording", "load_recording", "TARGETS", "DEFAULT_CHANNEL_MAP"]

TARGETS = ("real", "sim", "emu", "cleanroom", "replay", "fake")
RECORDING_FORMAT = "towerlab-recording"
RECORDING_VERSION = 1
DEFAULT_CHANNEL_MAP = {f"D{i}": name for i, name in enumerate(PROBE_16)}
DECODER_TYPES = {"display": "display", "lamps": "lamp", "motor": "motor", "reel": "reel",
                 "speaker": "tone", "keypad": "button"}
ALL_OUTPUT_TYPES = ("display", "lamp", "motor", "reel", "tone")
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
    def real(self):
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
        return _emulator_tower(spec)
    raise RigError(f"unknown virtual tower {spec.virtual!r} (expected emu or fake)")


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


def open_target(spec: TargetSpec, sink_factory=None) -> Target:
    """Open the tower named by ``spec``; ``sink_factory(channels, samplerate)`` returns the
    live capture sink for rig targets (e.g. a StreamWriter)."""
    if spec.target not in TARGETS:
        raise RigError(f"unknown target {spec.target!r} (expected one of {', '.join(TARGETS)})")
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
    from rig.buttonbox import ButtonBox
    from rig.real import RealTower, probe_channels
    channels = probe_channels(spec.channel_map)
    bench = None
    if spec.target == "sim":
        bench = VirtualBench(lambda: _virtual_tower(spec), probe=tuple(channels),
                             tower_speed=spec.tower_speed,
                             box_clock_error=spec.box_clock_error).start()
        port = bench.port
    else:
        if not spec.port:
            raise RigError("the real target needs the button box's serial port (--port "
                           "/dev/ttyACM0)")
        port = spec.port
    box = None
    try:
        box = ButtonBox(port)
        sink = sink_factory(channels, spec.samplerate) if sink_factory else None
        # On the bench the world may run several times faster than the wall clock: schedule
        # actions a full (bench) second ahead so a busy host is never late.
        tower = RealTower(box, _analyser(spec, bench), channels, spec.samplerate, sink=sink,
                          lead_s=1.0 if bench is not None else 0.3)
    except BaseException:
        if box is not None:
            box.close()
        if bench is not None:
            bench.close()
        raise
    return Target(tower, spec, bench)


@dataclass
class Recording:
    """A recording directory's contents."""
    path: Path
    meta: dict
    script: Script
    events: list[dict]


def load_recording(path: str | os.PathLike) -> Recording:
    """Read a recording directory; raise RigError naming the file that is missing or wrong."""
    d = Path(path)
    meta_path = d / "recording.json"
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RigError(f"{d}: not a recording (no recording.json; make one with "
                       f"towerlab rig record)") from None
    except (OSError, ValueError) as exc:
        raise RigError(f"{meta_path}: unreadable ({exc})") from None
    if meta.get("format") != RECORDING_FORMAT or meta.get("version") != RECORDING_VERSION:
        raise RigError(f"{meta_path}: expected format {RECORDING_FORMAT!r} version "
                       f"{RECORDING_VERSION}, got {meta.get('format')!r} "
                       f"{meta.get('version')!r}")
    script = read_script(str(d / "script.txt"))
    events = read_events(str(d / "events.jsonl"))
    return Recording(d, meta, script, events)


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


class _Watched:
    """A Tower proxy that reports session progress (seconds done, seconds total)."""

    def __init__(self, tower, total: float, report: Callable[[float, float], None]):
        self._tower, self._total, self._report = tower, total, report

    def __getattr__(self, name):
        return getattr(self._tower, name)

    def advance(self, seconds: float) -> None:
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

    script = read_script(script_path)
    d = Path(out)
    made_dir = not d.exists()
    d.mkdir(parents=True, exist_ok=True)
    capture_path = d / "capture.tlc"
    writers: list[StreamWriter] = []

    def sink_factory(channels, samplerate):
        w = StreamWriter(capture_path, channels, samplerate, {"target": spec.target})
        writers.append(w)
        return w

    try:
        target = open_target(spec, sink_factory)
    except BaseException:
        for w in writers:           # nothing half-written: the target never opened
            w.abandon()
        capture_path.unlink(missing_ok=True)
        if made_dir:
            shutil.rmtree(d, ignore_errors=True)
        raise
    with open(d / "script.txt", "w", encoding="utf-8") as f:
        write_script(script, f)
    if inject is not None:
        inject(target)
    end = script.end_time()
    fault: BaseException | None = None
    try:
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
    finally:
        for w in writers:
            w.abandon()
        target.close()
    if fault is not None:
        raise fault
    return load_recording(d)


def recorded_clock(rec: Recording) -> float:
    """Estimate the recorded tower's oscillator (Hz) from its tones (analysis.compare's
    estimate_clock, which knows the genuine firmware's tone periods)."""
    from analysis.compare import estimate_clock

    return estimate_clock(rec.events).clock_hz


def check(path: str | os.PathLike, spec: TargetSpec, auto_clock: bool = False):
    """Replay a recording's script on a target; return analysis.compare's Comparison
    (recording = A, target = B) over the event types both observe.

    ``auto_clock``: run the emulator at the recorded tower's oscillator, estimated from its
    tones, so a real tower's RC clock does not shift key presses against its program.
    """
    from analysis.compare import Tolerance, compare_events

    rec = load_recording(path)
    if auto_clock:
        if spec.target != "emu":
            raise RigError("--clock auto applies to the emu target only")
        spec.clock_hz = recorded_clock(rec)
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
    # The decoders' last 1/60 s window depends on where each side stops: compare up to a
    # margin before the end.
    end = float(rec.meta.get("script_end_s") or rec.script.end_time()) - END_MARGIN_S
    a = [e for e in rec.events if e["t"] < end]
    b = [e for e in events if e["t"] < end]
    # Reel positions are inferred (dead reckoning between sensor holes on a probe, frame-polled
    # on the emulator's board): fit the clock on the pin-exact types, then compare everything.
    exact = tuple(t for t in types if t != "reel") or types
    fit = compare_events(a, b, Tolerance(types=exact))
    return compare_events(a, b, Tolerance(types=types), ratio=fit.ratio, offset=fit.offset)


def import_capture(path: str, out: str | os.PathLike, channel_map: str | None = None,
                   script_path: str | None = None) -> Recording:
    """Turn a capture recorded elsewhere (.sr, .vcd, Saleae, .tlc, edges) into a recording:
    decode it, keep it as capture.tlc, and store the script if one is given."""
    from analysis.decode import StreamDecoder, decode
    from captures.formats import open_capture, write_capture

    cap = open_capture(path, channel_map=channel_map)
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    events = decode(cap)
    write_capture(cap, d / "capture.tlc")
    if script_path:
        shutil.copyfile(script_path, d / "script.txt")
        script = read_script(str(d / "script.txt"))
    else:
        script = Script(name="script")
        script.length = round(cap.info.seconds(cap.info.total_samples or 0), 6)
        with open(d / "script.txt", "w", encoding="utf-8") as f:
            write_script(script, f)
    dec = StreamDecoder(cap.info)
    observed = [DECODER_TYPES[type(x).NAME] for x in dec.decoders
                if DECODER_TYPES.get(type(x).NAME) in ALL_OUTPUT_TYPES]
    with open(d / "events.jsonl", "w", encoding="utf-8") as f:
        write_events(events, f)
    _write_json(d / "recording.json", {
        "format": RECORDING_FORMAT, "version": RECORDING_VERSION, "target": "import",
        "source": os.path.abspath(path), "samplerate": cap.info.samplerate,
        "channels": list(cap.info.channels), "t0_sample": 0, "observed": observed,
        "script_end_s": script.end_time(), "fault": None, "romset": None, "firmware": None})
    return load_recording(d)
