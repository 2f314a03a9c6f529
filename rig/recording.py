"""The recording layout: a directory that ``rig.record`` writes and ``rig.check`` reads::

    recording.json   what was recorded: target, romset, samplerate, channels, t0_sample,
                     the event types the target could observe, a fault if one happened
    script.txt       the session script (captures.script format)
    capture.tlc      the pins (captures.stream; written as they arrive on real hardware, so a
                     crash or an unplugged probe leaves a readable file)
    events.jsonl     what the tower showed, in session seconds (captures.events)

A shared capture folder (``script.txt``, ``events.jsonl``, ``capture.sr`` or
``edges.jsonl.gz``) loads as a recording too.

Example::

    rec = load_recording("tests/data/captures/tower_test")
    rec.script, rec.events[:2]
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from captures.events import read_events
from captures.script import Script, read_script
from rig.errors import RigError
from rig.specs import ALL_OUTPUT_TYPES, TargetSpec
__all__ = ["Recording", "load_recording", "RECORDING_FORMAT", "RECORDING_VERSION",
           "RECORDING_FILES", "target_rom_sha1", "read_session_script", "read_session_events",
           "out_dir", "make_dir", "write_json"]


RECORDING_FORMAT = "towerlab-recording"
RECORDING_VERSION = 1
RECORDING_FILES = ("recording.json", "script.txt", "capture.tlc", "events.jsonl")


def read_session_script(path: str | os.PathLike, empty_ok: bool = True) -> Script:
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


def read_session_events(path: Path) -> list[dict]:
    """Read an events file; errors name the file (also for bytes that are not UTF-8)."""
    try:
        return read_events(str(path))
    except UnicodeDecodeError:
        raise RigError(f"{path}: not a JSON-lines events file (bytes that are not UTF-8 "
                       f"text)") from None


def out_dir(path: str | os.PathLike) -> Path:
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


def make_dir(d: Path) -> Path | None:
    """Create ``d`` (and parents); return the outermost directory this created (what to
    remove to leave nothing behind), None when ``d`` was there. Errors are one line."""
    made = None
    for p in (d, *d.parents):
        if p.exists():
            break
        made = p
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
    if not (d / "events.jsonl").exists() and (d / "capture.tlc").exists():
        # what a killed rig record leaves (rig.record.CUT_SHORT): the pins, no events yet
        raise RigError(f"{d}: holds no events.jsonl ({meta.get('fault')}); "
                       f"'towerlab rig import {d / 'capture.tlc'} --script {d / 'script.txt'} "
                       f"--out NEW' makes a recording of them")
    script = read_session_script(d / "script.txt")
    events = read_session_events(d / "events.jsonl")
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
    script = read_session_script(d / "script.txt")
    meta = {"format": RECORDING_FORMAT, "version": RECORDING_VERSION, "target": "capture",
            "observed": list(ALL_OUTPUT_TYPES), "script_end_s": script.end_time(),
            "fault": None}
    rom = _edges_rom_sha1(d / "edges.jsonl.gz")
    if rom:
        meta["rom_sha1"] = rom
    return Recording(d, meta, script, read_session_events(d / "events.jsonl"))


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
        from rig.towers.emulated import demo_program
        rom = bytes(demo_program().rom)
    return hashlib.sha1(rom).hexdigest()


def write_json(path: Path, data: dict) -> None:
    from captures.files import atomic_write

    text = json.dumps(data, indent=2, sort_keys=True) + "\n"
    atomic_write(path, lambda f: f.write(text), binary=False)
