"""Record a scripted session on any tower (``rig.specs`` targets) into a recording
directory (``rig.recording``).

Example::

    record("session.txt", TargetSpec("emu"), "out/")
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Callable

from captures.events import write_events
from captures.tower import run_script
from rig.errors import Interrupted, RigError
from rig.recording import (RECORDING_FILES, RECORDING_FORMAT, RECORDING_VERSION, Recording,
                           make_dir, out_dir, read_session_script, write_json, load_recording)
from rig.specs import Target, TargetSpec, open_target, validate_spec
__all__ = ["record", "record_session", "CUT_SHORT"]


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


class _ScriptDrive:
    """Play a script file on a tower, for ``record``: the script as given, byte for byte."""

    def __init__(self, script_path: str, progress: Callable[[float, float], None] | None):
        self.script = read_session_script(script_path, empty_ok=False)
        # write_script keeps 6 significant digits: keep the user's text instead
        self.text = Path(script_path).read_text(encoding="utf-8")
        self._progress = progress

    def run(self, tower) -> list[dict]:
        """Run the script on ``tower``; return its events."""
        end = self.script.end_time()
        if self._progress is not None:
            tower = _Watched(tower, end, self._progress)
        return run_script(tower, self.script)

    def script_text(self) -> str:
        """Return the text of script.txt."""
        return self.text

    def meta(self) -> dict:
        """Return what recording.json adds for this kind of session (nothing)."""
        return {}


def record(script_path: str, spec: TargetSpec, out: str | os.PathLike,
           inject: Callable[[Target], None] | None = None,
           progress: Callable[[float, float], None] | None = None) -> Recording:
    """Run a script on a target and store script, capture and events in ``out``.

    On a rig fault (box unplugged, USB error, tower UNKNOWN) the files are still written, up to
    the fault with the rest of the session recorded as a gap, and the fault is raised after.
    ``inject(target)`` is called once the target is open (fault-injection tests use it);
    ``progress(done_s, total_s)`` after every advance of the session.
    """
    return record_session(_ScriptDrive(script_path, progress), spec, out, inject)


def record_session(drive, spec: TargetSpec, out: str | os.PathLike,
                   inject: Callable[[Target], None] | None = None) -> Recording:
    """Play a session on a target with ``drive`` and store script, capture and events in
    ``out`` (the layout of ``record``).

    ``drive`` has ``run(tower) -> events`` (it plays the whole session; it may raise RigError
    for a rig fault), then ``script`` (a ``captures.script.Script``: what was pressed, its
    ``end_time()`` the session's length), ``script_text()`` (the text of script.txt) and
    ``meta()`` (a dict added to recording.json). ``record`` drives a script file;
    ``rig.player`` a player that reacts to what the tower shows.

    A live capture (the rig's analyser) is never thrown away: script.txt and a
    recording.json whose fault is ``CUT_SHORT`` are written before its first sample, so a
    killed process leaves a recording that says so; Ctrl-C finishes the recording up to
    then (its events end in a gap) and raises ``rig.errors.Interrupted`` naming it. A
    computed session (emulator, clean-room game) interrupted leaves nothing behind.
    """
    from captures.stream import StreamWriter

    d = out_dir(out)
    validate_spec(spec)
    made_dir = make_dir(d)
    capture_path = d / "capture.tlc"
    writers: list[StreamWriter] = []

    def sink_factory(channels: list[str], samplerate: float) -> StreamWriter:
        """Return the live capture.tlc writer for the rig's analyser, after the files that
        make what it holds a recording cut short (an older recording's go first)."""
        for name in RECORDING_FILES:
            (d / name).unlink(missing_ok=True)
        _finishing(d, lambda: (d / "script.txt").write_text(drive.script_text(),
                                                            encoding="utf-8"))
        _finishing(d, lambda: write_json(d / "recording.json", {
            **_base_meta(spec, drive), "observed": [], "fault": CUT_SHORT}))
        w = StreamWriter(capture_path, channels, samplerate, {"target": spec.target})
        writers.append(w)
        return w

    def discard() -> None:
        """Nothing half-written: remove what this recording wrote (Ctrl-C, a crash)."""
        for w in writers:
            w.abandon()
        for name in RECORDING_FILES:
            (d / name).unlink(missing_ok=True)
        if made_dir is not None:
            shutil.rmtree(made_dir, ignore_errors=True)

    try:
        target = open_target(spec, sink_factory)
    except BaseException:
        discard()
        raise
    fault: BaseException | None = None
    stopped: str | None = None
    done = False
    try:
        if inject is not None:
            inject(target)
        try:
            events = drive.run(target.tower)
        except RigError as exc:
            fault = target.explain(exc)
            events = None
        except KeyboardInterrupt:
            if target.real is None or not writers:
                raise           # a computed session: nothing was recorded yet
            stopped = f"interrupted (Ctrl-C) at {target.real.stopped('interrupted'):.3f} s"
            fault = RigError(stopped)
            events = None
        _finishing(d, lambda: _finish(drive, spec, target, d, writers, fault, events),
                   live=bool(writers))
        done = True
    finally:
        # Stop the analyser's reader before its sink goes away.
        target.close()
        if done or writers:     # a live capture stays, readable up to its last chunk
            for w in writers:
                w.abandon()
        else:
            discard()
    if stopped is not None:
        raise Interrupted(f"{stopped}: the recording up to then is in {d} (its events end "
                          f"in a gap)")
    if fault is not None:
        raise type(fault)(f"{fault} (the recording up to then is in {d})")
    return load_recording(d)


CUT_SHORT = ("cut short: the recording stopped before it finished (the process killed or "
             "crashed, or the disk full); capture.tlc holds the pins up to then")


def _base_meta(spec: TargetSpec, drive) -> dict:
    """Return what recording.json says of every recording of ``drive`` on ``spec``."""
    return {"format": RECORDING_FORMAT, "version": RECORDING_VERSION,
            "target": spec.target, "romset": spec.romset, "firmware": spec.firmware,
            "script_end_s": drive.script.end_time()}


def _finishing(d: Path, write: Callable[[], object], live: bool = True) -> None:
    """Run ``write``; a full disk or a failing drive becomes one RigError naming ``d`` and
    what is left there (``live``: a streamed capture, kept; else nothing)."""
    from captures.files import OutputError
    from captures.model import CaptureError

    kept = (f"what is in {d} reads up to the failure" if live
            else "nothing was kept; record it again where there is room")
    try:
        write()
    except OSError as exc:
        raise RigError(f"{exc.filename or d}: cannot write the recording "
                       f"({exc.strerror or exc}); {kept}") from None
    except (CaptureError, OutputError) as exc:
        raise RigError(f"{exc}; {kept}") from None


def _finish(drive, spec: TargetSpec, target: Target, d: Path, writers: list,
            fault: BaseException | None, events: list[dict] | None) -> None:
    """Write script.txt, the capture (a computed one; the rig's streamed as it came),
    events.jsonl and, last, recording.json."""
    from captures.files import atomic_write
    from captures.formats import write_capture

    end = drive.script.end_time()
    if not writers:             # a live capture's came before its first sample
        (d / "script.txt").write_text(drive.script_text(), encoding="utf-8")
    meta = {**_base_meta(spec, drive), "observed": target.observed_types(), "fault": None}
    meta.update(drive.meta())
    if spec.odds:
        meta["odds"] = {n: v if not isinstance(v, dict) else {str(k): w for k, w in v.items()}
                        for n, v in spec.odds.items()}
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
            write_capture(cap, d / "capture.tlc")
            meta.update({"samplerate": cap.info.samplerate,
                         "channels": list(cap.info.channels), "t0_sample": 0})
    if fault is not None:
        meta["fault"] = str(fault)
    # whole or not at all: an empty events.jsonl on a full disk would read as a quiet tower
    atomic_write(d / "events.jsonl", lambda f: write_events(events or [], f), binary=False)
    write_json(d / "recording.json", meta)
