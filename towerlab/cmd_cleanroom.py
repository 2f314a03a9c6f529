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
    from cleanroom.conform import FRAME_S, LOOSE, STRICT, Tolerance

    # none given: the strict check (cleanroom.conform.STRICT, every item within one 1/60 s
    # frame); a time window or a growth given alone: an older check, whose flashing texts
    # start within LOOSE.flash_s unless --flash-tolerance says otherwise
    older = args.tolerance is not None or args.tolerance_rel is not None
    if args.tolerance is None:
        args.tolerance = FRAME_S
    if args.tolerance_rel is None:
        args.tolerance_rel = 0.0
    if args.flash_tolerance is None:
        args.flash_tolerance = LOOSE.flash_s if older else FRAME_S
    for name in ("tolerance", "flash_tolerance"):
        v = getattr(args, name)
        if not v > 0:
            raise ValueError(f"--{name.replace('_', '-')} {v!r} must be more than 0 s")
    if not 0 <= args.tolerance_rel < 1:
        raise ValueError(f"--tolerance-rel {args.tolerance_rel!r} must be a fraction from 0 "
                         "to under 1")
    if not older and args.flash_tolerance == FRAME_S:
        return STRICT
    return Tolerance(time_s=args.tolerance, flash_s=args.flash_tolerance,
                     since_input_frac=args.tolerance_rel)


def _clock_ratio(events: list, given: float | None) -> tuple[float, str]:
    """Return the reference's clock over MAME's 425 kHz and how it was found: ``given``
    (--clock-ratio), else fitted from its tones as ``towerlab clock`` does
    (analysis.compare.estimate_clock).  A fit within its own precision of 1 is the
    reference clock itself (MAME, the corpus: exact), so nothing drifts; any other fit is
    used as it is, and said."""
    if given is not None:
        if not given > 0 or given == float("inf"):
            raise ValueError(f"--clock-ratio {given!r} must be a finite number above 0")
        return given, ""
    from analysis.compare import AnalysisError, estimate_clock

    try:
        est = estimate_clock(events)
    except AnalysisError:
        return 1.0, ""          # no tone to fit: the reference clock
    # the agreeing estimates span spread_rel, so their median is known to about that over
    # sqrt(n), but no better than the tones' 0.1 Hz rounding (2e-4 of a 430 Hz click)
    error = max(2e-4, 2 * est.spread_rel / max(1, est.tones_used) ** 0.5)
    if abs(est.ratio - 1.0) <= error:
        return 1.0, ""
    return est.ratio, (f"clock ratio {est.ratio:.4f} fitted from {est.tones_used} tones "
                       f"(--clock-ratio to give it)")


def cmd_conform(args, out: IO[str]) -> int:
    """Compare the clean-room game with references; or estimate the odds (--stats)."""
    from cleanroom.conform import ConformError, resolve
    from cleanroom.params import parameter_table

    if args.params:
        out.write(parameter_table() + "\n")
        return 0
    if args.cues:
        return _cues(args, out)
    tol = _tolerance(args)
    if args.stats:
        return _stats(args, out)
    if args.write_evidence:
        raise ConformError("conform: --write-evidence goes with --stats DIR...")
    if not args.reference:
        raise ConformError("conform: give --reference DIR, --stats DIR... or --params")
    status = 0
    folders = _folders(args.reference)
    totals = [0, 0, 0, 0, 0]      # conforming, matched, total, rule-predicted, random-decided
    for folder in folders:
        script, events = _reference(folder)
        ratio, fitted = _clock_ratio(events, args.clock_ratio)
        result = resolve(script, events, tol, clock_ratio=ratio)
        if fitted:
            out.write(f"{folder}: {fitted}\n")
        out.write(f"{folder}: {result.describe()}\n")
        if not result.conforms:
            out.write(f"  before it: {result.counts()}\n")
        if args.decisions:
            for d in result.decisions:
                seen = "revealed" if d.revealed else "not shown"
                out.write(f"  {d.t:9.3f}  {d.name:18} {d.value!s:20} {seen}\n")
        for i, v in enumerate((int(result.conforms), result.matched, result.total,
                               result.rule_items or 0, result.random_items or 0)):
            totals[i] += v
        if not result.conforms:
            status = 1
    if len(folders) > 1:
        out.write(f"total: {totals[0]} of {len(folders)} sessions conform; {totals[1]} of "
                  f"{totals[2]} items matched: {totals[3]} predicted by rules, {totals[4]} "
                  f"decided by random choices\n")
    return status


def _stats(args, out: IO[str]) -> int:
    """Estimate every random quantity from the recordings themselves (cleanroom.stats)."""
    from captures.files import atomic_write
    from cleanroom.stats import estimate_all, observe_folder, replace_evidence

    folders = _folders(args.stats)
    observations = []
    for folder in _progress(folders, out, "reading recordings"):
        observations.extend(observe_folder(folder))
    rows = estimate_all(observations)
    bad = [r for r in rows if r.ok is False]
    if args.markdown:
        from cleanroom.stats import rows_markdown
        out.write(rows_markdown(rows))
        return 1 if bad else 0
    out.write(f"{len(folders)} recordings, {len(observations)} observations of random "
              f"outcomes\n")
    if not rows:
        out.write("no random outcome was shown in these recordings\n")
    for row in rows:
        out.write(row.describe() + "\n")
    if bad:
        out.write(f"{len(bad)} chosen values outside their 95 % intervals: "
                  f"{', '.join(sorted({r.param or r.quantity for r in bad}))}\n")
    if args.write_evidence:
        path = args.write_evidence
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as exc:
            from cleanroom.stats import StatsError
            raise StatsError(f"{path}: cannot read ({exc.strerror or exc})") from None
        new = replace_evidence(text, rows, path)
        atomic_write(path, lambda f: f.write(new), binary=False)
        out.write(f"{path}: evidence written ({len(rows)} rows)\n")
    return 1 if bad else 0
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
    return play_terminal(CleanroomTower(seed=args.seed), args.input or sys.stdin, out,
                         strict=args.input is not None)


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
                      help="estimate every random quantity from these recordings (what the "
                           "tower showed) with 95 %% intervals; check the chosen values")
    what.add_argument("--params", action="store_true", help="print the game's parameter table")
    p.add_argument("--write-evidence", metavar="PARAMS_PY", default=None,
                   help="with --stats: write the estimates into this cleanroom/params.py's "
                        "evidence block")
    p.add_argument("--markdown", action="store_true",
                   help="with --stats: print only the estimates, as a Markdown table")
    what.add_argument("--cues", nargs="+", metavar="DIR",
                      help="name every tone run of these recordings with the sound-cue "
                           "catalogue (cleanroom/cues.py); list the runs that are no cue")
    p.add_argument("--decisions", action="store_true",
                   help="list the random decisions resolved from each reference")
    from towerlab.options import add_tolerance

    add_tolerance(p, "tolerance", unit="s",
                  help="timing tolerance in s (default 0.0167: one 1/60 s display frame for "
                       "every item, the strict check)",
                  old=(("--tolerance-ms", 0.001, "ms"),))
    add_tolerance(p, "tolerance-rel", unit="fraction",
                  help="widen the timing tolerance by this fraction of the time since the "
                       "recording's last button press (default 0; --tolerance-rel 0.01 "
                       "--flash-tolerance 0.15 is the older 1/60 s + 1 %% criterion, "
                       "--tolerance 0.05 --tolerance-rel 0 the older 50 ms check)",
                  old=(("--tolerance-pct", 0.01, "%"),))
    add_tolerance(p, "flash-tolerance", unit="s",
                  help="tolerance for where a flashing display starts, s (default: the "
                       "--tolerance window; 0.15 with an older check's --tolerance or "
                       "--tolerance-rel)",
                  old=(("--flash-tolerance-ms", 0.001, "ms"),))
    p.add_argument("--clock-ratio", type=float, default=None,
                   help="the recorded tower's clock over MAME's 425 kHz (default: fitted from "
                        "the reference's tones; 1 when the fit is the reference clock)")
    p.set_defaults(func=cmd_conform)

    q = sub.add_parser("cleanroom-play", help="play the clean-room game in the terminal")
    q.add_argument("--seed", type=int, default=None, help="random seed (default: random)")
    q.add_argument("--input", type=argparse.FileType("r"), default=None,
                   help="read key names from this file instead of the terminal")
    q.set_defaults(func=cmd_play)
