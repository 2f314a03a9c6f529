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
from rig.errors import RigError
from rig.recording import (RECORDING_FILES, RECORDING_FORMAT, RECORDING_VERSION, Recording,
                           make_dir, out_dir, read_session_script, write_json, load_recording)
from rig.specs import Target, TargetSpec, open_target, validate_spec
__all__ = ["record", "record_session"]


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
    """
    from captures.formats import write_capture
    from captures.stream import StreamWriter

    d = out_dir(out)
    validate_spec(spec)
    made_dir = make_dir(d)
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
        if made_dir is not None:
            shutil.rmtree(made_dir, ignore_errors=True)

    try:
        target = open_target(spec, sink_factory)
    except BaseException:
        discard()
        raise
    fault: BaseException | None = None
    done = False
    try:
        if inject is not None:
            inject(target)
        try:
            events = drive.run(target.tower)
        except RigError as exc:
            fault = target.explain(exc)
            events = None
        end = drive.script.end_time()
        (d / "script.txt").write_text(drive.script_text(), encoding="utf-8")
        meta = {"format": RECORDING_FORMAT, "version": RECORDING_VERSION,
                "target": spec.target, "romset": spec.romset, "firmware": spec.firmware,
                "script_end_s": end, "observed": target.observed_types(), "fault": None}
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
                write_capture(cap, capture_path)
                meta.update({"samplerate": cap.info.samplerate,
                             "channels": list(cap.info.channels), "t0_sample": 0})
        if fault is not None:
            meta["fault"] = str(fault)
        with open(d / "events.jsonl", "w", encoding="utf-8") as f:
            write_events(events or [], f)
        write_json(d / "recording.json", meta)
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
