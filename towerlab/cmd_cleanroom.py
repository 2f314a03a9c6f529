"""Subcommands of the cleanroom area: conform, cleanroom-play (registered by towerlab.cli).

Each is a small function ``(args, out) -> exit status`` over ``cleanroom``.
"""
from __future__ import annotations

import glob
import os
import sys
from typing import IO

__all__ = ["register", "cmd_conform", "cmd_play"]

_CAPTURE_NAMES = ("capture.sr", "capture.tlc", "capture.vcd", "edges.jsonl.gz", "capture.csv")


def _reference(folder: str):
    """Return (script, events) of a reference folder; decode its capture if it has no events."""
    from cleanroom.conform import ConformError, load_reference

    if os.path.isdir(folder) and not os.path.exists(os.path.join(folder, "events.jsonl")):
        found = [os.path.join(folder, n) for n in _CAPTURE_NAMES
                 if os.path.exists(os.path.join(folder, n))]
        if found and os.path.exists(os.path.join(folder, "script.txt")):
            from analysis.decode import decode
            from captures.formats import open_capture
            from cleanroom.conform import read_reference_script
            return (read_reference_script(os.path.join(folder, "script.txt")),
                    decode(open_capture(found[0])))
        if not found:
            raise ConformError(f"{folder}: no events.jsonl and no capture "
                               f"({', '.join(_CAPTURE_NAMES)})")
    return load_reference(folder)


def _folders(paths: list[str]) -> list[str]:
    """Expand each path: a glob, or a folder of capture folders, to capture folders."""
    out: list[str] = []
    for path in paths:
        hits = sorted(glob.glob(path)) or [path]
        if len(hits) > 1 or len(paths) > 1:
            hits = [h for h in hits if os.path.isdir(h) or not os.path.exists(h)]
        for hit in hits:
            subs = sorted(d for d in glob.glob(os.path.join(hit, "*"))
                          if os.path.exists(os.path.join(d, "script.txt")))
            if os.path.isdir(hit) and not os.path.exists(os.path.join(hit, "script.txt")) and subs:
                out.extend(subs)
            else:
                out.append(hit)
    return out


def _progress(folders: list[str], out: IO[str], what: str):
    """Yield the folders, with a rich progress bar when there are many and ``out`` is a tty."""
    if len(folders) < 4 or not getattr(out, "isatty", lambda: False)():
        yield from folders
        return
    from rich.progress import track
    yield from track(folders, description=what, transient=True)


def _tolerance(args):
    from cleanroom.conform import Tolerance

    for name in ("tolerance_ms", "flash_tolerance_ms"):
        v = getattr(args, name)
        if not v > 0:
            raise ValueError(f"--{name.replace('_', '-')} {v!r} must be more than 0 ms")
    return Tolerance(time_s=args.tolerance_ms / 1000, flash_s=args.flash_tolerance_ms / 1000)


def cmd_conform(args, out: IO[str]) -> int:
    """Compare the clean-room game with references; or estimate its odds (--stats)."""
    from cleanroom.conform import ConformError, estimate, resolve
    from cleanroom.params import parameter_table

    if args.params:
        out.write(parameter_table() + "\n")
        return 0
    if args.cues:
        return _cues(args, out)
    tol = _tolerance(args)
    if args.stats:
        folders = _folders(args.stats)
        decisions = []
        failed = 0
        for folder in _progress(folders, out, "resolving recordings"):
            script, events = _reference(folder)
            result = resolve(script, events, tol, clock_ratio=args.clock_ratio)
            if not result.conforms:
                failed += 1
                out.write(f"{folder}: does not conform at {result.diff_time:.3f} s; "
                          f"its decisions are left out\n")
                continue
            decisions.extend(result.decisions)
        rows = estimate(decisions)
        out.write(f"{len(folders) - failed} of {len(folders)} recordings resolved, "
                  f"{sum(1 for d in decisions if d.revealed)} revealed decisions\n")
        if not rows:
            out.write("no random decision was revealed by these recordings\n")
        if rows:
            out.write(f"{'decision':18} {'outcome':10} {'n/total':9} {'share':>6} "
                      f"[95 % interval]    game's value   verdict\n")
        for row in rows:
            out.write(row.describe() + "\n")
        bad = [r for r in rows if r.ok is False]
        return 1 if bad or failed else 0
    if not args.reference:
        raise ConformError("conform: give --reference DIR, --stats DIR... or --params")
    status = 0
    for folder in _folders(args.reference):
        script, events = _reference(folder)
        result = resolve(script, events, tol, clock_ratio=args.clock_ratio)
        out.write(f"{folder}: {result.describe()}\n")
        if args.decisions:
            for d in result.decisions:
                seen = "revealed" if d.revealed else "not shown"
                out.write(f"  {d.t:9.3f}  {d.name:18} {d.value!s:20} {seen}\n")
        if not result.conforms:
            status = 1
    return status


def _cues(args, out: IO[str]) -> int:
    """Name every tone run of the recordings with the cue catalogue; exit 1 if one is no cue."""
    from cleanroom.cuefind import read_runs, report
    from cleanroom.cues import CUES, catalogue

    runs = read_runs(_folders(args.cues), catalogue=catalogue())
    out.write(report(runs, order=list(CUES)))
    return 1 if any(r.name is None for r in runs) else 0


def cmd_play(args, out: IO[str]) -> int:
    """Play the clean-room tower in the terminal (one key name per line)."""
    from cleanroom.play import play_terminal
    from cleanroom.tower import CleanroomTower

    out.write("Dark Tower (clean room). Keys: yes no repeat haggle bazaar clear tomb move "
              "sanctuary dark frontier inventory; wait S; quit\n")
    return play_terminal(CleanroomTower(seed=args.seed), args.input or sys.stdin, out)


def register(sub) -> None:
    """Add this area's subcommands to the towerlab parser."""
    import argparse

    p = sub.add_parser("conform", help="check the clean-room game against recordings",
                       description="Replay each reference's script on the clean-room game, "
                                   "resolving its random decisions to what the reference "
                                   "shows, and report 'conforms' or the first difference.")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--reference", nargs="+", metavar="DIR",
                      help="capture folder(s) with script.txt and events.jsonl (or a capture)")
    what.add_argument("--stats", nargs="+", metavar="DIR",
                      help="estimate random-event frequencies over these recordings")
    what.add_argument("--params", action="store_true", help="print the game's parameter table")
    what.add_argument("--cues", nargs="+", metavar="DIR",
                      help="name every tone run of these recordings with the sound-cue "
                           "catalogue (cleanroom/cues.py); list the runs that are no cue")
    p.add_argument("--decisions", action="store_true",
                   help="list the random decisions resolved from each reference")
    p.add_argument("--tolerance-ms", type=float, default=50.0,
                   help="timing tolerance in ms (default 50)")
    p.add_argument("--flash-tolerance-ms", type=float, default=150.0,
                   help="tolerance for where a flashing display starts, ms (default 150)")
    p.add_argument("--clock-ratio", type=float, default=1.0,
                   help="the recorded tower's clock over MAME's 425 kHz (default 1.0)")
    p.set_defaults(func=cmd_conform)

    q = sub.add_parser("cleanroom-play", help="play the clean-room game in the terminal")
    q.add_argument("--seed", type=int, default=None, help="random seed (default: random)")
    q.add_argument("--input", type=argparse.FileType("r"), default=None,
                   help="read key names from this file instead of the terminal")
    q.set_defaults(func=cmd_play)
