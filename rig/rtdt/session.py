"""Record a scripted Return to Dark Tower session and check a recording against a tower.

A recording is a directory::

    rtdt.json             target, address, the protocol parameters used (captures.rtdt
                          RtdtParams), each command's script time and when it ran, warnings,
                          a fault if the session broke off (CUT_SHORT while it runs)
    script.txt            the session script (captures.rtdt_script format)
    sent.jsonl            every write: {"t", "data" (hex), "command", "result"}; these three
                          files grow a line at a time as the session runs
    notifications.jsonl   every notification: {"t", "data" (hex)}
    events.jsonl          what the tower showed (captures.events; t = arrival, seconds)

Targets: ``sim`` (the virtual tower on the simulated radio and clock), ``ble`` (scan for a
tower by name) and ``ble:ADDRESS``. ``check`` reruns the recording's script on a target with
the recording's parameters (unless overridden) and compares the events by meaning
(analysis.rtdt: times within a tolerance, rotations within a wider one).
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from analysis.rtdt import RtdtComparison, RtdtTolerance, compare_rtdt_events
from captures.events import read_events
from captures.files import atomic_write
from captures.rtdt import ParamsError, RtdtParams, apply_overrides, params_dict
from captures.rtdt_script import SIM_ONLY, RtdtScript, parse_rtdt_script, read_rtdt_script
from rig.errors import Interrupted
from rig.rtdt.tower import RtdtError, RtdtTower, run_rtdt_script

__all__ = ["RtdtTarget", "parse_target", "open_rtdt", "record", "check", "RtdtRecording",
           "load_rtdt_recording", "RECORDING_FILES"]

RECORDING_FORMAT = "towerlab-rtdt-recording"
RECORDING_VERSION = 1
RECORDING_FILES = ("rtdt.json", "script.txt", "sent.jsonl", "notifications.jsonl",
                   "events.jsonl")


@dataclass(frozen=True)
class RtdtTarget:
    """Where the tower is: ``sim`` or ``ble`` with an optional address."""
    kind: str
    address: str | None = None

    def __str__(self) -> str:
        return self.kind + (f":{self.address}" if self.address else "")


def parse_target(text: str) -> RtdtTarget:
    """Parse ``sim``, ``ble`` or ``ble:ADDRESS``; raise RtdtError for anything else."""
    if text == "sim":
        return RtdtTarget("sim")
    if text == "ble":
        return RtdtTarget("ble")
    if text.startswith("ble:") and len(text) > 4:
        return RtdtTarget("ble", text[4:])
    raise RtdtError(f"unknown RTDT target {text!r} (expected sim, ble or ble:ADDRESS, e.g. "
                    f"ble:DA:4C:10:00:00:01)")


def _prompt(text: str) -> None:
    print(f"tower: {text}", file=sys.stderr, flush=True)


def open_rtdt(target: RtdtTarget, params: RtdtParams,
              prompt: Callable[[str], None] | None = _prompt) -> RtdtTower:
    """Open the tower ``target`` names."""
    if target.kind == "sim":
        return RtdtTower.simulated(params, target.address)
    return RtdtTower.bluetooth(target.address, params, prompt=prompt)


@dataclass
class RtdtRecording:
    """A recording directory's contents."""
    path: str
    meta: dict
    script: RtdtScript
    events: list = field(default_factory=list)
    sent: list = field(default_factory=list)
    notifications: list = field(default_factory=list)


CUT_SHORT = ("cut short: the session stopped before it finished (the process killed or "
             "crashed); the .jsonl files hold what arrived up to then")


class _Streams:
    """sent.jsonl, notifications.jsonl and events.jsonl, a line written and flushed as each
    row arrives, so that a session cut short keeps everything it received."""

    def __init__(self, out: Path):
        self._files = {}
        try:
            for kind in ("sent", "notifications", "events"):
                self._files[kind] = open(out / f"{kind}.jsonl", "w", encoding="utf-8")
        except OSError as exc:
            self.close()
            raise RtdtError(f"{out}: cannot write the recording ({exc.strerror})") from None

    def write(self, kind: str, row: dict) -> None:
        f = self._files[kind]
        f.write(json.dumps(row) + "\n")
        f.flush()

    def close(self) -> None:
        for f in self._files.values():
            f.close()
        self._files = {}


def record(script_path: str, target: RtdtTarget, out_dir: str, params: RtdtParams,
           progress: Callable[[float, float], None] | None = None) -> RtdtRecording:
    """Run the script on the target and write the recording directory ``out_dir`` as the
    session goes (the .jsonl files a line per row, rtdt.json saying ``CUT_SHORT`` until the
    end); a session that breaks off is written up to there (``fault`` in rtdt.json) and the
    error re-raised; Ctrl-C keeps it too and raises ``rig.errors.Interrupted`` naming it."""
    script = read_rtdt_script(script_path, params)
    with open(script_path, encoding="utf-8-sig") as f:
        text = f.read()
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise RtdtError(f"{out_dir}: exists and is not a folder (expected a recording folder)")
    tower = open_rtdt(target, params)
    fault, stopped, log, streams = None, None, [], None
    client = tower.client

    def meta(end_s, why) -> dict:
        return {"format": RECORDING_FORMAT, "version": RECORDING_VERSION,
                "target": str(target), "address": client.address, "end_s": end_s,
                "commands": log, "warnings": client.warnings, "fault": why,
                "params": params_dict(params)}

    def write_meta(m: dict) -> None:
        atomic_write(out / "rtdt.json", lambda f: f.write(json.dumps(m, indent=1) + "\n"),
                     binary=False)
    try:
        out.mkdir(parents=True, exist_ok=True)
        for name in RECORDING_FILES:
            (out / name).unlink(missing_ok=True)
        atomic_write(out / "script.txt", lambda f: f.write(text), binary=False)
        write_meta(meta(None, CUT_SHORT))
        streams = _Streams(out)
        client.stream_to(streams.write)
        try:
            run_rtdt_script(tower, script, progress=progress, log=log)
        except RtdtError as exc:
            fault = str(exc).splitlines()[0]
        except KeyboardInterrupt:
            stopped = fault = f"interrupted (Ctrl-C) at t={tower.now:.3f} s"
        end_s = round(tower.now, 6)
        client.end_stream()
        streams.close()
        write_meta(meta(end_s, fault))
    finally:
        if streams is not None:
            streams.close()
        tower.close()
    if stopped:
        raise Interrupted(f"{stopped}: the recording up to then is in {out_dir}")
    if fault:
        raise RtdtError(f"{fault} (recorded up to t={end_s:.3f} s in {out_dir})")
    return load_rtdt_recording(out_dir)


def _read_jsonl(path: Path) -> list[dict]:
    rows = []
    try:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if line.strip():
                    try:
                        rows.append(json.loads(line))
                    except json.JSONDecodeError as exc:
                        raise RtdtError(f"{path}:{n}: not JSON ({exc.msg})") from None
    except OSError as exc:
        raise RtdtError(f"{path}: cannot read ({exc.strerror})") from None
    return rows


def load_rtdt_recording(path: str) -> RtdtRecording:
    """Read a recording directory; errors name the file and what was expected."""
    d = Path(path)
    if not d.is_dir():
        raise RtdtError(f"{path}: not a folder (expected an RTDT recording from towerlab "
                        f"rtdt record)")
    for name in RECORDING_FILES:
        if not (d / name).is_file():
            raise RtdtError(f"{path}: no {name} (expected an RTDT recording with "
                            f"{', '.join(RECORDING_FILES)})")
    try:
        meta = json.loads((d / "rtdt.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RtdtError(f"{d / 'rtdt.json'}: not JSON ({exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != RECORDING_FORMAT:
        raise RtdtError(f"{d / 'rtdt.json'}: format is not {RECORDING_FORMAT!r}")
    if meta.get("version") != RECORDING_VERSION:
        raise RtdtError(f"{d / 'rtdt.json'}: version {meta.get('version')!r} (expected "
                        f"{RECORDING_VERSION})")
    params = recording_params(meta, str(d / "rtdt.json"))
    text = (d / "script.txt").read_text(encoding="utf-8-sig")
    script = parse_rtdt_script(text, str(d / "script.txt"), params)
    return RtdtRecording(str(d), meta, script, read_events(str(d / "events.jsonl")),
                         _read_jsonl(d / "sent.jsonl"), _read_jsonl(d / "notifications.jsonl"))


def recording_params(meta: dict, where: str) -> RtdtParams:
    """Return the RtdtParams a recording was made with."""
    values = meta.get("params", {})
    if not isinstance(values, dict):
        raise ParamsError(f"{where}: params is not an object")
    return apply_overrides(RtdtParams(), values, where)


def check(recording: str, target: RtdtTarget, params: RtdtParams | None = None,
          overrides: dict | None = None,
          tolerance: RtdtTolerance | None = None) -> tuple[RtdtComparison, RtdtRecording]:
    """Rerun a recording's script on ``target`` and compare; return (comparison, the rerun).

    ``params`` replaces the recording's parameters; ``overrides`` (field -> value) change
    them. A recorded fault (Ctrl-C, a session cut short) limits the comparison to the events
    before it."""
    rec = load_rtdt_recording(recording)
    base = params or recording_params(rec.meta, os.path.join(recording, "rtdt.json"))
    if overrides:
        base = apply_overrides(base, overrides, "--set")
    if target.kind == "ble" and any(c.name in SIM_ONLY for c in rec.script.commands):
        _prompt("this script has simulator-only lines (skull-drop, drop-link, battery): you "
                "will be asked to do them at the tower")
    tower = open_rtdt(target, base)
    try:
        end = rec.meta.get("end_s") if rec.meta.get("fault") else None
        if rec.meta.get("fault") and not isinstance(end, (int, float)):   # cut short
            end = max((e["t"] for e in rec.events), default=0.0)
        try:
            run_rtdt_script(tower, rec.script, until=end)
        except RtdtError:
            if not rec.meta.get("fault"):     # a recording that broke off may break off again
                raise
        events = tower.events()
        if end is not None:       # the recording stopped there: it cannot show what came later
            events = [e for e in events if e["t"] <= end]
        replay = RtdtRecording("", {"target": str(target)}, rec.script, events,
                               list(tower.client.sent), list(tower.client.notifications))
    finally:
        tower.close()
    return compare_rtdt_events(rec.events, replay.events, tolerance), replay
