"""Import a capture made elsewhere (sigrok, Saleae, VCD, ...) as a recording: the pins from
power-on, the script read back from the keys, the events decoded.

Example::

    import_capture("bench.sr", "out/", channel_map="probes.map")
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np

from captures.events import write_events
from captures.script import Script, write_script
from rig.errors import RigError
from rig.recording import (RECORDING_FORMAT, RECORDING_VERSION, Recording, make_dir, out_dir,
                           read_session_script, write_json, load_recording)
from rig.specs import ALL_OUTPUT_TYPES, is_number
__all__ = ["import_capture"]


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
    leaves the all-low level of an unpowered tower (the TMS1400 drives O from reset,
    docs/tms1400.md §11), as RealTower aligns a capture without SYNC; 0 when the capture starts
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

    d = out_dir(out)
    script = read_session_script(script_path) if script_path else None
    cap = open_capture(path, channel_map=channel_map)
    if start_s is None:
        t0 = _power_on_sample(cap)
    elif not (is_number(start_s) and 0 <= start_s < cap.info.seconds(cap.info.total_samples
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
    make_dir(parent)
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
        observed = [type(x).EVENT for x in dec.decoders if type(x).EVENT in ALL_OUTPUT_TYPES]
        with open(tmp / "events.jsonl", "w", encoding="utf-8") as f:
            write_events(events, f)
        write_json(tmp / "recording.json", {
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
