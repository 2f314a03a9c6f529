"""Subcommands of the cleanroom area: conform, cleanroom-play (registered by towerlab.cli).

Each is a small function ``(args, out) -> exit status`` over ``cleanroom``.
"""
from __future__ import annotations

import glob
import os
import sys
from typing import IO

__all__ = ["register", "cmd_conform", "cmd_play"]


def _is_reference(folder: str) -> bool:
    """Tell whether ``folder`` is a session (script.txt) or a lab sweep (sweep.jsonl)."""
    return any(os.path.exists(os.path.join(folder, n)) for n in ("script.txt", "sweep.jsonl"))


def _folders(paths: list[str]) -> list[str]:
    """Expand each path: a glob, or a folder of capture folders (or of lab sweeps), to
    capture folders (and sweeps)."""
    out: list[str] = []
    for path in paths:
        hits = sorted(glob.glob(path)) or [path]
        if len(hits) > 1 or len(paths) > 1:
            hits = [h for h in hits if os.path.isdir(h) or not os.path.exists(h)]
        for hit in hits:
            subs = sorted(d for d in glob.glob(os.path.join(hit, "*")) if _is_reference(d))
            if os.path.isdir(hit) and not _is_reference(hit) and subs:
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
    from dataclasses import replace

    from cleanroom.conform import FRAME_S, LOOSE, STRICT, Tolerance
    from cleanroom.matching import ROUNDING_S

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
    if not older:
        # the strict check with its flashing texts' window changed, nothing else: the other
        # items keep its window and the tones their 1 %; the flash window gets the same
        # allowance for the events' microsecond dating (ROUNDING_S) as STRICT's own
        return replace(STRICT, flash_s=args.flash_tolerance + ROUNDING_S)
    return Tolerance(time_s=args.tolerance, flash_s=args.flash_tolerance,
                     since_input_frac=args.tolerance_rel)


def cmd_conform(args, out: IO[str]) -> int:
    """Compare the clean-room game with references; or estimate the odds (--stats)."""
    from cleanroom.conform import ConformError
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
    return _conform(args, tol, out)


def _conform(args, tol, out: IO[str]) -> int:
    """Resolve each reference folder (rig.conformance), --jobs at a time or on the Dask
    cluster at --scheduler; print each session's report in the order given, a progress line
    on a terminal, and the totals and a summary table for several."""
    from cleanroom.conform import budget_line
    from rig.conformance import (conform_sessions, default_witness_dir, load_references,
                                 summary_table)
    from towerlab.options import check_draw_model, search_budget

    if args.jobs < 1:
        raise ValueError(f"--jobs {args.jobs}: expected a number of processes >= 1")
    budget = search_budget(args)
    folders = _folders(args.reference)
    sessions = load_references(folders, args.sweep_base)    # bad input first
    console = None
    if not args.quiet and len(sessions) > 1 and getattr(out, "isatty", lambda: False)():
        from rich.console import Console
        console = Console(file=out)

    model = None
    check_draw_model(args)
    if args.no_resolve:
        from cleanroom.predict import RESYNC_NOTE, batch_line, mode_line, model_named

        model = model_named(args.draw_model)
        mode = f"{mode_line(model, args.resync)}; scored against the resolver's\n"
    else:
        mode = "mode: draws resolved from the recording (the resolver)\n"
    line = budget_line(budget)
    if line:
        mode += line + "\n"
    said = [False]

    def write(text: str) -> None:
        if console is not None:
            console.print(text, end="", markup=False, highlight=False, emoji=False,
                          soft_wrap=True)
        else:
            out.write(text)
            out.flush()

    def show(report) -> None:
        if not said[0]:                 # the input is good: the mode, before the first report
            said[0] = True
            write(mode)
        write(report.text)

    witnesses = None if args.no_witnesses else (args.witnesses or default_witness_dir())
    reports = conform_sessions(sessions, tol, args.clock_ratio, args.decisions, args.jobs,
                               args.scheduler, on_report=show, console=console,
                               witnesses=witnesses, model=model and model.name,
                               max_runs=budget, resync=args.resync)
    if len(reports) > 1:
        if model is None:
            out.write(f"total: {sum(r.conforms for r in reports)} of {len(reports)} sessions "
                      f"conform; {sum(r.matched for r in reports)} of "
                      f"{sum(r.total for r in reports)} items matched: "
                      f"{sum(r.rule_items for r in reports)} predicted by rules, "
                      f"{sum(r.random_items for r in reports)} decided by random choices\n")
        else:
            drawn = "the resolver's draws, predicted by" if args.resync else "the draws of"
            out.write(f"total: {sum(r.conforms for r in reports)} of {len(reports)} sessions "
                      f"conform with {drawn} the model; {sum(r.matched for r in reports)} of "
                      f"{sum(r.total for r in reports)} items matched; "
                      f"{batch_line(r.draws for r in reports)}"
                      f"{'; ' + RESYNC_NOTE if args.resync else ''}\n")
        out.write("\n" + summary_table(reports))
    return 0 if all(r.conforms for r in reports) else 1


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
    from cleanroom.play import HELP, play_terminal
    from cleanroom.tower import CleanroomTower

    out.write(f"Dark Tower (clean room). {HELP}\n")
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
                      help="capture folder(s) with script.txt and events.jsonl (or a capture), "
                           "or a lab timing sweep (sweep.jsonl: each run a session)")
    what.add_argument("--stats", nargs="+", metavar="DIR",
                      help="estimate every random quantity from these recordings (what the "
                           "tower showed) with 95 %% intervals; check the chosen values")
    what.add_argument("--params", action="store_true", help="print the game's parameter table")
    p.add_argument("--write-evidence", metavar="EVIDENCE_PY", default=None,
                   help="with --stats: write the estimates into this cleanroom/evidence.py's "
                        "evidence block")
    p.add_argument("--markdown", action="store_true",
                   help="with --stats: print only the estimates, as a Markdown table")
    what.add_argument("--cues", nargs="+", metavar="DIR",
                      help="name every tone run of these recordings with the sound-cue "
                           "catalogue (cleanroom/cues.py); list the runs that are no cue")
    p.add_argument("--decisions", action="store_true",
                   help="list the random decisions resolved from each reference")
    p.add_argument("--sweep-base", metavar="DIR", default=None,
                   help="where a lab sweep's corpus session is: that session's folder, or a "
                        "corpus folder holding it by the name the sweep's README gives "
                        "(default: ../../../corpus from the sweep, where the lab keeps it)")
    from towerlab.options import add_draw_model, add_search_budget, add_tolerance

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
    p.add_argument("--jobs", type=int, default=1,
                   help="references checked in parallel on this many processes (default 1)")
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT", default=None,
                   help="check the references on the Dask cluster at this scheduler")
    p.add_argument("--quiet", action="store_true",
                   help="no progress line (there is none when the output is not a terminal)")
    p.add_argument("--witnesses", metavar="DIR", default=None,
                   help="keep the decisions each conforming session was resolved with here and "
                        "try them first next time (default ~/.cache/towerlab/witnesses)")
    p.add_argument("--no-witnesses", action="store_true",
                   help="resolve every session from scratch and keep nothing")
    p.add_argument("--no-resolve", action="store_true",
                   help="play each script with the game drawing from its draw model instead of "
                        "resolving the draws from the recording; report the first difference "
                        "and 'draws predicted: K of N' against the resolver's draws")
    add_search_budget(p, help="the resolver's budget of replays for each 400 s of a session "
                              "(default 2000); a smaller one gives up sooner on a recording it "
                              "cannot explain (a triage: 200 rejects a 20-minute mutant in about "
                              "a third of the time) and may miss a hard draw the default finds")
    add_draw_model(p)
    p.set_defaults(func=cmd_conform)

    q = sub.add_parser("cleanroom-play", help="play the clean-room game in the terminal")
    q.add_argument("--seed", type=int, default=None, help="random seed (default: random)")
    q.add_argument("--input", type=argparse.FileType("r"), default=None,
                   help="read key names from this file instead of the terminal")
    q.set_defaults(func=cmd_play)
