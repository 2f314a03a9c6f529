"""A lab timing sweep as whole sessions: each run's script and events from power-on.

The lab's timing sweeps (``sweep.jsonl`` beside a ``README.md``) replay a corpus session as
recorded up to one press, the *swept* one, which each run makes k frames (k/60 s) later; a
run holds only its window, the events from 1 s before its press to some seconds after it
(the README says how many).  Everything before the window is the same game as the corpus
session's, or the same game idling longer at the swept key's prompt, so each run can be
made a whole session again (``sweep_sessions``):

- its script: the corpus session's actions up to the swept press, that press moved k frames
  later, and a run length where the window ends less ``CUT_MARGIN_S`` (a tone still
  sounding when the recording stopped is not in it: the recorder dates a tone once it ends;
  the tower's longest tone lasts 1.02 s);
- its events: the corpus session's before its swept press, then the idle prompt as the runs
  with a later press show it (each run's events before its own press: the tower cannot
  know of a press to come), then the run's window.  Events that fall exactly at a seam
  come from the later source, and from the earlier one where the later has none of that
  type then (a window's first instant holds the events at press - 1 s or not, as the
  float falls).

The lab's README names the corpus session and the press (``The corpus session `NAME` ...
up to its press number N (0-based ...) ... goes on S s past that press``); the corpus session
is looked for where the lab keeps it (``../../../corpus/NAME`` from the sweep, its
``experiments/sweeps/`` beside ``corpus/``) unless given (the session's folder, or a corpus
folder holding it by name).  Every missing or malformed part
is a ``SweepError`` naming the file.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass

from captures.events import EventError, read_events, validate_event
from captures.script import Press, Script, read_script

__all__ = ["SweepError", "SweepRun", "LabSweep", "read_sweep_runs", "read_lab_sweep",
           "sweep_sessions",
           "CUT_MARGIN_S"]

CUT_MARGIN_S = 1.1      # compare to this long before a window's end (module doc)
SEAM_S = 1e-5           # events this close to a seam are at it
FRAME_S = 1 / 60


class SweepError(ValueError):
    """A sweep folder or its corpus session is missing or malformed; names the file."""


@dataclass
class SweepRun:
    offset_frames: int
    press_s: float              # when the chip first saw the swept key
    events: list[dict]          # from 1 s before the press to the window's end


@dataclass
class LabSweep:
    folder: str
    session: str                # the corpus session it was played from
    press: int                  # the swept press, counted from 0
    after_s: float              # how long each run goes on after its press
    runs: list[SweepRun]


_SESSION = re.compile(r"corpus session `([^`]+)`")
_PRESS = re.compile(r"press number (\d+)")
_AFTER = re.compile(r"goes on ([0-9.]+) s past")


def read_sweep_runs(folder: str) -> list[SweepRun]:
    """Read the runs of a lab sweep's ``sweep.jsonl``, in file order."""
    path = os.path.join(folder, "sweep.jsonl")
    runs = []
    try:
        with open(path, encoding="utf-8") as f:
            for i, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                    run = SweepRun(int(rec["offset_frames"]), float(rec["press_s"]),
                                   list(rec["events"]))
                except (ValueError, KeyError, TypeError) as exc:
                    raise SweepError(f"{path}:{i}: expected a JSON object with "
                                     f"offset_frames, press_s and events ({exc})") from None
                runs.append(_checked(run, f"{path}:{i}"))
    except OSError as exc:
        raise SweepError(f"{path}: cannot read ({exc.strerror})") from None
    if not runs:
        raise SweepError(f"{path}: no runs")
    return runs


def _checked(run: SweepRun, where: str) -> SweepRun:
    """Return ``run`` once its offset, press time and every event are as a sweep's must be
    (captures.events' vocabulary); raise SweepError naming ``where`` otherwise."""
    if run.offset_frames < 0:
        raise SweepError(f"{where}: offset_frames {run.offset_frames} must be 0 or more frames")
    if not 0 <= run.press_s < float("inf"):
        raise SweepError(f"{where}: press_s {run.press_s!r} must be a finite time >= 0 s")
    for j, ev in enumerate(run.events):
        try:
            validate_event(ev, f"{where}: event {j}")
        except EventError as exc:
            raise SweepError(str(exc)) from None
    return run


def read_lab_sweep(folder: str) -> LabSweep:
    """Read a lab sweep folder (``README.md`` and ``sweep.jsonl``)."""
    readme = os.path.join(folder, "README.md")
    try:
        with open(readme, encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        raise SweepError(f"{readme}: cannot read ({exc.strerror}); a lab sweep folder has "
                         f"README.md and sweep.jsonl") from None
    found = [rx.search(text) for rx in (_SESSION, _PRESS, _AFTER)]
    if not all(found):
        raise SweepError(f"{readme}: expected the lab's description: 'corpus session `NAME`', "
                         f"'press number N' and 'goes on S s past'")
    session, press, after = found[0].group(1), int(found[1].group(1)), float(found[2].group(1))
    runs = sorted(read_sweep_runs(folder), key=lambda r: r.offset_frames)
    return LabSweep(folder, session, press, after, runs)


def _seam(before: list[dict], after: list[dict], t: float) -> list[dict]:
    """``before``'s events up to ``t`` and ``after``'s from it (module doc: at the seam)."""
    at = {e["type"] for e in after if abs(e["t"] - t) < SEAM_S}
    return ([e for e in before if e["t"] < t - SEAM_S
             or (abs(e["t"] - t) < SEAM_S and e["type"] not in at)]
            + [e for e in after if e["t"] >= t - SEAM_S])


def _idle(events: list[dict], press_s: float) -> list[dict]:
    """The events before a swept press: the prompt idling (not the press itself)."""
    return [e for e in events if e["t"] < press_s - SEAM_S
            or (abs(e["t"] - press_s) < SEAM_S and e["type"] != "button")]


def sweep_sessions(folder: str, base: str | None = None
                   ) -> list[tuple[str, Script, list[dict]]]:
    """Return (label, script, events) for every run of the lab sweep in ``folder``, whole
    sessions from power-on (module doc); ``base``: the corpus session's folder, or a corpus
    folder that holds it by name (default: where the lab keeps it).  The label is
    ``FOLDER#kNNN`` (the run's offset in frames)."""
    sweep = read_lab_sweep(folder)
    if base is None:
        base = os.path.join(folder, os.pardir, os.pardir, os.pardir, "corpus")
    if not os.path.isfile(os.path.join(base, "script.txt")):
        base = os.path.join(base, sweep.session)
    base = os.path.normpath(base)
    script_path = os.path.join(base, "script.txt")
    events_path = os.path.join(base, "events.jsonl")
    if not (os.path.isfile(script_path) and os.path.isfile(events_path)):
        raise SweepError(f"{folder}: its corpus session {sweep.session} is not at {base} "
                         f"(expected script.txt and events.jsonl there; give the session's "
                         f"folder or its corpus folder)")
    script = read_script(script_path)
    try:
        base_events = read_events(events_path)
    except ValueError as exc:
        raise SweepError(str(exc)) from None
    presses = [a for a in script.actions if isinstance(a, Press)]
    if sweep.press >= len(presses):
        raise SweepError(f"{folder}: press number {sweep.press} swept, {script_path} has "
                         f"{len(presses)} presses")
    swept = presses[sweep.press]
    head = script.actions[:script.actions.index(swept)]
    # the idle prompt from power-on: the corpus session's, then the runs' in press order
    idle = [(swept.t, _idle(base_events, swept.t))]
    for run in sweep.runs:
        idle.append((run.press_s, _idle(run.events, run.press_s)))
    out = []
    for run in sweep.runs:
        k = run.offset_frames
        moved = round(swept.t + k * FRAME_S, 6)
        if abs(moved - run.press_s) > 1e-4:
            raise SweepError(f"{folder}/sweep.jsonl: run {k} pressed at {run.press_s} s, "
                             f"expected {moved} s ({swept.t} s in {script_path} + {k} "
                             f"frames)")
        window = run.press_s - 1.0
        events, until = idle[0][1], idle[0][0]
        while until < window - SEAM_S:
            # of the runs whose window (1 s before their press) begins in time, the one
            # pressed latest
            later = [(p, ev) for p, ev in idle[1:] if p - 1.0 <= until + SEAM_S
                     and p > until + SEAM_S]
            if not later:
                raise SweepError(f"{folder}: no run shows the prompt idling from {until:.3f} "
                                 f"s to run {k}'s window at {window:.3f} s")
            p, ev = max(later, key=lambda x: x[0])
            events = _seam(events, ev, until)
            until = p
        events = _seam(events, run.events, window)
        end = run.press_s + sweep.after_s - CUT_MARGIN_S
        events = [e for e in events if e["t"] <= end]
        label = f"{os.path.normpath(folder)}#k{k:03d}"
        out.append((label, Script(head + [Press(moved, swept.button, swept.hold)], end,
                                  name=label), events))
    return out
