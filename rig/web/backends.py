"""The towers ``towerlab serve`` shows, each opened through ``rig.specs.open_target`` and so
answering the one Tower protocol; this module only says how each is paced and described.

    cleanroom  the clean-room game (no ROM needed; the default)
    emu        the emulator on the demo firmware, a ROM or a MAME romset
    replay     a recording (a rig recording, a shared capture folder, a corpus session):
               no keys, a known length, so the page can scrub it
    real       a real tower through the button box and an analyser (mirrored; keys go to
               the box)
    sim        the same drivers on the virtual bench (what ``real`` runs, without hardware)

Example::

    session = open_session(TargetSpec("cleanroom", seed=3), pace="manual")
"""
from __future__ import annotations

import os
from dataclasses import replace

from rig.errors import RigError
from rig.specs import TargetSpec, open_target
from rig.web.session import FRAME_S, TowerSession

__all__ = ["open_session", "SERVED", "SETTLE_S"]

SERVED = ("cleanroom", "emu", "replay", "real", "sim")
# How long each tower's newest events may still change (s), and how often it is read.
SETTLE_S = {"cleanroom": FRAME_S + 0.001, "emu": 0.05, "replay": 0.0, "real": 0.4, "sim": 0.4}
POLL_S = {"cleanroom": FRAME_S, "emu": FRAME_S, "replay": FRAME_S, "real": 0.1, "sim": 0.1}


def _recording_length(folder: str, tower) -> float:
    """Return a recording's length in seconds: its run length, its script's end or its last
    event, whichever is latest."""
    from analysis.plot import session_end
    from captures.events import read_events

    events = read_events(os.path.join(folder, "events.jsonl"))
    ends = [session_end(events), tower.script.end_time()]
    try:
        with open(os.path.join(folder, "script.txt"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("# run length:"):
                    ends.append(float(line.split(":", 1)[1].split()[0]))
    except (OSError, ValueError):
        pass
    return max(ends)


def _about(spec: TargetSpec, tower) -> str:
    """Return one line saying what is being shown (for people: the page shows it as text)."""
    if spec.target == "cleanroom":
        return f"the clean-room game (cleanroom/), seed {spec.seed}"
    if spec.target == "emu":
        return f"the emulator: {tower.summary}"
    if spec.target == "replay":
        return f"the recording {spec.replay}"
    if spec.target == "real":
        return f"a real tower: button box on {spec.port}, analyser {spec.analyser}"
    return "the virtual bench: the button-box firmware in simavr, a simulated analyser, " \
           "the emulator as the tower"


def open_session(spec: TargetSpec, pace: str = "wall") -> TowerSession:
    """Open the tower of ``spec`` and return its session (not started)."""
    from rig.play import KEYMAP

    if spec.target not in SERVED:
        raise RigError(f"towerlab serve shows {', '.join(SERVED)}, not {spec.target!r}")
    if spec.target == "replay" and spec.replay and \
            not os.path.exists(os.path.join(spec.replay, "events.jsonl")):
        raise RigError(f"{spec.replay}: no events.jsonl (expected a recording or a capture "
                       f"folder with script.txt and events.jsonl)")
    if spec.target == "real" and not spec.port:
        raise RigError("--target real needs the button box's serial port (--port "
                       "/dev/ttyACM0)")
    target = open_target(replace(spec))
    tower = target.tower
    length = _recording_length(spec.replay, tower) if spec.target == "replay" else None
    name = {"cleanroom": "clean-room game", "emu": "emulator", "replay": "recording",
            "real": "real tower", "sim": "virtual bench"}[spec.target]
    return TowerSession(tower, title=f"Dark Tower: {name}", about=_about(spec, tower),
                        live=spec.target != "replay", length_s=length, pace=pace,
                        settle_s=SETTLE_S[spec.target], poll_s=POLL_S[spec.target],
                        keymap={k: b for k, b in KEYMAP.items()}, on_close=target.close)
