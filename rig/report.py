"""Report pages for rig recordings and for the comparisons made on them (analysis.report).

- ``recording_source``: a recording directory (``rig record``/``rig import``: recording.json,
  capture.tlc, events.jsonl, script.txt) or anything ``analysis.report.open_source`` reads;
  for a recording, what was run comes from recording.json (target, romset or firmware, ROM
  SHA-1, clock, fault) and the audio is aligned to the events through ``t0_sample``.
- ``report_check``: ``rig.check.check`` on a target; the target's events are the second
  timeline, mapped onto the recording's by the fitted clock ratio and offset, and the first
  difference (analysis.compare) is marked on both.
- ``report_cleanroom``: the clean-room game against the recording, as ``rig check --target
  cleanroom`` (``rig.check.check_cleanroom``) or, with ``whole=True``, as ``towerlab
  conform`` does (every event of the reference); the game's events are its replay with the
  decisions the comparison resolved, and the first difference (cleanroom.conform) is marked.

The comparisons are the library's own; this module only reads their results.
"""
from __future__ import annotations

import os
from pathlib import Path

from analysis.report import (AUDIO_RATE, FirstDifference, Source, Timeline, open_source,
                             source_timeline, write_report)

__all__ = ["recording_source", "report_recording", "report_check", "report_cleanroom"]


def recording_source(path: str | os.PathLike, channel_map: str | None = None
                     ) -> tuple[Source, Timeline]:
    """Open a recording directory or a capture (folder) for a report; return the source and
    its timeline (audio aligned to the events' session time)."""
    d = Path(path)
    meta_path = d / "recording.json"
    if not (d.is_dir() and meta_path.exists()):
        src = open_source(str(path), channel_map)
        return src, source_timeline(src)
    from rig.recording import load_recording
    rec = load_recording(d)
    src = open_source(str(d), channel_map)
    src.events = rec.events
    meta = rec.meta
    info = {"target": str(meta.get("target"))}
    if meta.get("romset"):
        info["romset"] = str(meta["romset"])
    elif meta.get("target") in ("emu", "sim"):
        info["firmware"] = str(meta.get("firmware"))
    for key, label in (("rom_sha1", "ROM SHA-1"), ("clock_hz", "clock")):
        if meta.get(key):
            info[label] = str(meta[key])
    if "ROM SHA-1" not in info and meta.get("target") == "emu":
        from rig.recording import target_rom_sha1
        from rig.specs import TargetSpec
        try:
            info["ROM SHA-1"] = str(target_rom_sha1(TargetSpec(
                "emu", romset=meta.get("romset"), firmware=meta.get("firmware") or "demo")))
        except (ValueError, OSError):
            pass
    info.update({k: v for k, v in src.info.items() if k not in info})
    info["script"] = str(d / "script.txt")
    info["observed"] = ", ".join(meta.get("observed", []))
    if meta.get("fault"):
        info["fault"] = str(meta["fault"])
    src.info = info
    tl = source_timeline(src)
    if src.capture is not None and meta.get("t0_sample"):
        tl.audio_offset_s = float(meta["t0_sample"]) / src.capture.info.samplerate
        tl.end_s = max(0.0, tl.end_s - tl.audio_offset_s)
    if meta.get("script_end_s"):
        tl.end_s = float(meta["script_end_s"])
    return src, tl


def report_recording(path: str | os.PathLike, out: str, channel_map: str | None = None,
                     audio_rate: int = AUDIO_RATE) -> int:
    """Write the report page of a recording or capture to ``out``; return its size (bytes)."""
    src, tl = recording_source(path, channel_map)
    return write_report(out, f"TowerLab report: {path}", src.info, tl, script=src.script,
                        audio_rate=audio_rate)


def report_check(path: str | os.PathLike, spec, out: str, auto_clock: bool = False,
                 audio_rate: int = AUDIO_RATE):
    """Check a recording on a target (``rig.check.check``) and write the report page to
    ``out``; return the CheckResult."""
    from analysis.compare import format_comparison
    from rig.check import check

    src, tl = recording_source(path)
    result = check(path, spec, auto_clock=auto_clock)
    tl.name = f"recording {path}"
    other = Timeline(f"target {spec.target}", list(result.target_events or []),
                     result.compared_until, to_main=(result.ratio, result.offset))
    info = dict(src.info)
    info["checked on"] = spec.target + (f" (romset {spec.romset})" if spec.romset else
                                        f" (firmware {spec.firmware})"
                                        if spec.target in ("emu", "sim") else "")
    from rig.recording import target_rom_sha1
    ours = target_rom_sha1(spec)
    if ours:
        info["target ROM SHA-1"] = ours
    if result.clock_hz:
        info["target clock"] = f"{result.clock_hz:.0f} Hz"
    info["compared until"] = f"{result.compared_until:.3f} s"
    detail = format_comparison(result, "recording", spec.target)
    notes = [n for n in (result.rom_note, result.clock_note) if n]
    if notes:
        detail += "\n" + "\n".join(f"note: {n}" for n in notes)
    diff = None
    if result.difference is not None:
        d = result.difference
        t_other = d.b["t"] if d.b is not None else (d.t - result.offset) / result.ratio
        diff = FirstDifference(f"first difference at {d.t:.3f} s: {d.kind}", detail, d.t, t_other,
                          d.a, d.b)
        verdict = f"differs from {spec.target}: first difference at {d.t:.3f} s ({d.kind})"
    else:
        verdict = f"equivalent on {spec.target}: {detail}"
    write_report(out, f"TowerLab check: {path} on {spec.target}", info, tl, other, diff,
                 verdict, src.script, audio_rate)
    return result


def report_cleanroom(path: str | os.PathLike, out: str, whole: bool = False,
                     audio_rate: int = AUDIO_RATE):
    """Compare the clean-room game with a recording and write the report page to ``out``;
    return cleanroom.conform's Result (module doc: ``whole``)."""
    from captures.tower import run_script
    from cleanroom.conform import ForcedChooser, resolve
    from cleanroom.tower import CleanroomTower
    from rig.check import compared_end, check_cleanroom
    from rig.recording import load_recording

    src, tl = recording_source(path)
    rec = load_recording(path)
    if whole:
        end = max([e["t"] for e in rec.events] + [rec.script.end_time()])
        result = resolve(rec.script, rec.events)
    else:
        end = compared_end(rec)
        result = check_cleanroom(path)
    # The game's side: the replay with the decisions the comparison resolved.
    chooser = ForcedChooser([d.value for d in result.decisions])
    tower = CleanroomTower(chooser=chooser)
    try:
        game = run_script(tower, rec.script, until=end)
    finally:
        tower.close()
    tl.name = f"recording {path}"
    other = Timeline("clean-room game", game, end)
    info = dict(src.info)
    info["checked on"] = "the clean-room game (" + ("towerlab conform" if whole else
                                                   "rig check --target cleanroom") + ")"
    info["random decisions"] = str(len(result.decisions))
    diff = None
    if result.conforms:
        verdict = f"the clean-room game {result.describe()}"
    else:
        d = result.difference
        game_t = d.game.t if d.game is not None else d.t
        diff = FirstDifference(f"first difference at {d.t:.3f} s", d.describe(), d.t, game_t,
                          _event_of(rec.events, d.reference), _event_of(game, d.game))
        verdict = f"the clean-room game differs: first difference at {d.t:.3f} s"
    write_report(out, f"TowerLab conformance: {path}", info, tl, other, diff, verdict,
                 src.script, audio_rate)
    return result


def _event_of(events: list[dict], item) -> dict | None:
    """Return the event a cleanroom.conform Item was made from (same time, kind), or None."""
    if item is None:
        return None
    kind = {"tone": "tone", "lamp": "lamp", "motor": "motor", "reel": "reel",
            "display": "display"}[item.kind]
    for e in events:
        if e["type"] == kind and abs(e["t"] - item.t) < 1e-6:
            return e
    return None
