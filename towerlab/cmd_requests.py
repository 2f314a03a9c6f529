"""Subcommand ``requests``: list the requests for recordings of the genuine tower and record
them as the lab does, on a real tower, the emulator with the user's romset, or the clean-room
game (``rig/requests.py``; DEVELOPERS.md, "Asking the tower").
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import IO

__all__ = ["register", "cmd_list", "cmd_record", "cmd_predict", "cmd_score"]

# the repository's requests, when towerlab runs from a checkout
DEFAULT_REQUESTS = Path(__file__).resolve().parents[1] / "experiments" / "requests"
DEFAULT_PREDICTIONS = DEFAULT_REQUESTS.parent / "predictions" / "count_first_moves.tsv"
EXPLORE_TARGETS = ("emu", "cleanroom", "real")


def _requests_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--requests", metavar="DIR", default=str(DEFAULT_REQUESTS),
                   help="folder of request files NAME.txt (default: this checkout's "
                        "experiments/requests)")
    p.add_argument("names", nargs="*", metavar="NAME",
                   help="only these requests: names or shell patterns ('l4_second_move_k0*')")


def register(sub) -> None:
    """Add the requests subcommands to the towerlab parser."""
    from towerlab.cmd_rig import _target_options
    from towerlab.options import add_output

    top = sub.add_parser("requests", help="list and record the requests for recordings of "
                                          "the genuine tower",
                         description="The requests of experiments/requests/ (DEVELOPERS.md, "
                                     "'Asking the tower'): list them with what is recorded, "
                                     "or record them as the lab does, into RECORDINGS/NAME/.")
    rsub = top.add_subparsers(dest="requests_command", metavar="REQUESTS_COMMAND")

    p = rsub.add_parser("list", help="each request: kind, games, length, recorded or not")
    _requests_option(p)
    p.add_argument("--recordings", metavar="DIR",
                   help="the folder the recordings go to (say which are recorded)")
    p.set_defaults(func=cmd_list)

    p = rsub.add_parser("record", help="record the requests not yet recorded, in order")
    _requests_option(p)
    add_output(p, required=True, metavar="RECORDINGS",
               help="folder of the recordings, one NAME/ per request (the layout of the "
                    "shared experiments folder)")
    _target_options(p)
    p.add_argument("--again", action="store_true",
                   help="record again requests whose text changed since they were recorded "
                        "(the old recording is kept as NAME.older)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress line (it shows only on a terminal)")
    p.set_defaults(func=cmd_record)

    p = rsub.add_parser("predict", help="what the count model says of the requests' "
                                        "level-4 first MOVEs, before they are recorded")
    _requests_option(p)
    add_output(p, metavar="TSV", help="write the predictions here (default: print them)")
    p.set_defaults(func=cmd_predict)

    p = rsub.add_parser("score", help="the predictions against the recordings of the "
                                      "requests")
    p.add_argument("recordings", metavar="RECORDINGS",
                   help="folder of the recordings, one NAME/ per request")
    p.add_argument("--predictions", metavar="TSV", default=str(DEFAULT_PREDICTIONS),
                   help="predictions made before the recordings (default: this checkout's "
                        "experiments/predictions/count_first_moves.tsv)")
    p.add_argument("--each", action="store_true", help="a line per predicted game first")
    p.set_defaults(func=cmd_score)

    def no_sub(args, out) -> int:
        """Print the requests commands' help (no subcommand given)."""
        top.print_help(out)
        return 2

    top.set_defaults(func=no_sub)


def _describe(req) -> str:
    if req.explore is not None:
        return "explore " + " ".join(req.explore)
    n = req.games()
    return f"{n} game{'s' if n != 1 else ''}, {req.script.end_time():.1f} s"


def cmd_list(args: argparse.Namespace, out: IO[str]) -> int:
    """Print one line per request (name, what it plays, its status); exit 1 when a request
    does not read or cannot be run as it is (each problem printed)."""
    from collections import Counter

    from rig.requests import find_requests, request_problems, request_status

    if args.recordings and Path(args.recordings).exists() and \
            not Path(args.recordings).is_dir():     # a folder not made yet: none recorded
        raise ValueError(f"{args.recordings}: not a folder of recordings (expected one NAME/ "
                         f"per request)")
    problems: list[str] = []
    reqs = find_requests(args.requests, args.names, errors=problems)
    width = max((len(r.name) for r in reqs), default=0)
    tally: Counter = Counter()
    for r in reqs:
        status = request_status(r, args.recordings) if args.recordings else ""
        tally[status] += 1
        problems += request_problems(r)
        if r.explore is not None:
            try:     # as the lab runs it (DEVELOPERS.md, "Asking the tower")
                _explore_args(r, ["--target", "emu"], str(Path("EXP") / r.name))
            except ValueError as exc:
                problems.append(str(exc))
        print(f"{r.name:<{width}}  {r.kind:<7}  {_describe(r):<28}  {status}".rstrip(),
              file=out)
    for line in problems:
        print(f"problem: {line}", file=out)
    where = (f" in {args.recordings}: " + ", ".join(f"{n} {s}" for s, n in tally.items())
             if args.recordings else "")
    hours = sum(r.script.end_time() for r in reqs if r.script is not None) / 3600
    explores = sum(r.explore is not None for r in reqs)
    print(f"{len(reqs)} request{'s' if len(reqs) != 1 else ''}{where}; the scripts play "
          f"{hours:.1f} h of tower time" + (f", besides {explores} explore request"
                                           f"{'s' if explores != 1 else ''}" if explores
                                           else ""), file=out)
    return 1 if problems else 0


def cmd_record(args: argparse.Namespace, out: IO[str]) -> int:
    """Record each selected request that is not yet recorded; a line per request."""
    from rig.errors import RigError
    from rig.requests import (CHANGED, INCOMPLETE, RECORDED, find_requests, request_folder,
                              request_problems, request_status, set_aside)
    from towerlab.cmd_rig import record_spec

    reqs = find_requests(args.requests, args.names)
    explores = {}               # an explore request's parsed options, by request name
    for r in reqs:
        problems = request_problems(r)
        if problems:
            raise RigError(problems[0])
        if r.explore is not None and args.target not in EXPLORE_TARGETS:
            raise RigError(f"{r.path}: an explore request plays on --target "
                           f"{', '.join(EXPLORE_TARGETS)}, not {args.target}")
        if r.explore is not None:       # every request's options checked before any plays
            explores[r.name] = _explore_args(r, _tower_options(args),
                                             str(request_folder(r, args.out)))
    spec = record_spec(args)
    _warn_if_not_genuine(spec, out)
    done = 0
    for r in reqs:
        status = request_status(r, args.out)
        if status == RECORDED or (status == CHANGED and not args.again):
            again = " (--again records it anew)" if status == CHANGED else ""
            print(f"{r.name}: {status}, left as it is{again}", file=out)
            continue
        if status in (INCOMPLETE, CHANGED):
            old = set_aside(request_folder(r, args.out),
                            "incomplete" if status == INCOMPLETE else "older")
            print(f"{r.name}: {status}; the earlier recording kept as {old}", file=out)
        try:
            if r.explore is not None:
                _record_explore(r, explores[r.name], spec, args, out)
            else:
                _record_script(r, spec, args, out)
        except KeyboardInterrupt as exc:
            from rig.errors import Interrupted
            said = f"{exc}; " if str(exc) else ""
            raise Interrupted(f"{said}stopped at {r.name} with {done} of {len(reqs)} "
                              f"requests recorded this time; the same command resumes the "
                              f"batch") from None
        done += 1
    print(f"recorded {done} of {len(reqs)} request{'s' if len(reqs) != 1 else ''} on "
          f"{args.target} in {args.out}", file=out)
    return 0


def _warn_if_not_genuine(spec, out: IO[str]) -> None:
    """Say so when the emulator runs another program than the genuine MP7332 ROM: the
    requests ask what the genuine tower does."""
    from emulator.boards import board_spec
    from rig.recording import target_rom_sha1

    sha1 = target_rom_sha1(spec)
    genuine = board_spec("darktower").romset.rom.sha1
    if sha1 is not None and sha1 != genuine:
        print(f"warning: the emulator runs {spec.romset or 'the demo firmware'} (ROM SHA-1 "
              f"{sha1}), not the genuine MP7332 ({genuine}): these recordings say nothing of "
              f"the genuine tower", file=out)


def _record_script(req, spec, args, out: IO[str]) -> None:
    from rig.progress import progress_line
    from rig.requests import record_script_request

    with progress_line(f"{req.name} on {args.target}", quiet=args.quiet) as line:
        rec = record_script_request(req, spec, args.out,
                                    progress=line.update if line.shown else None)
    print(f"{req.name}: {len(rec.events)} events in {rec.path}", file=out)


def _tower_options(args: argparse.Namespace) -> list[str]:
    """The explore options that name the tower ``requests record`` was given (and its
    ``--quiet``)."""
    tower = ["--target", args.target] + (["--quiet"] if args.quiet else [])
    if args.target == "emu" and args.romset:
        tower += ["--romset", args.romset]
    if args.target == "real":
        tower += ["--port", args.port or ""]
    return tower


def _explore_args(req, tower: list[str], folder: str) -> argparse.Namespace:
    """Parse and check an explore request's options as ``towerlab explore`` would, with
    ``tower``'s options and ``--out folder``; RequestError naming the request otherwise."""
    from rig.requests import RequestError
    from towerlab.cli import UserError, build_parser
    from towerlab.cmd_explore import explore_plan

    if {"-h", "--help"} & set(req.explore):
        raise RequestError(f"{req.path}: the explore options ask for help, not a recording")
    try:
        eargs = build_parser(raise_errors=True).parse_args(
            ["explore", *req.explore, *tower, "--out", folder])
        explore_plan(eargs)
    except (UserError, ValueError) as exc:
        raise RequestError(f"{req.path}: the explore options do not run ({exc}; see "
                           f"'towerlab explore --help')") from None
    return eargs


def _record_explore(req, eargs: argparse.Namespace, spec, args, out: IO[str]) -> None:
    """Play an explore request with its parsed options (``_explore_args``: towerlab
    explore's own, and this tower)."""
    import io

    from rig.explore import session_folder
    from rig.requests import finish_request, pins_as_edges, request_folder
    from towerlab.cmd_explore import cmd_explore

    folder = request_folder(req, args.out)
    table = io.StringIO()
    cmd_explore(eargs, table)
    for n in range(1, eargs.sessions + 1):
        pins_as_edges(session_folder(folder, n), spec, req.name)
    finish_request(req, folder)
    print(f"{req.name}: {table.getvalue().splitlines()[-1]}", file=out)


def cmd_predict(args: argparse.Namespace, out: IO[str]) -> int:
    """Write what the count model predicts for the first MOVE of each level-4 game the
    requests play (``rig.requests.count_predictions``)."""
    import io

    from captures.files import atomic_write
    from cleanroom.count import COUNT_START, COUNT_STEP
    from rig.requests import count_predictions, find_requests, write_predictions

    preds = count_predictions(find_requests(args.requests, args.names))
    header = [f"the count model (cleanroom/count.py: {COUNT_START:#06x} at the tower test's "
              f"key, {COUNT_STEP:#06x} a key-loop pass, docs/draws.md section 12) on the "
              f"first MOVE of each level-4 game of the requests,",
              "written before the lab recorded them: towerlab requests score RECORDINGS "
              "says how many the genuine tower bore out"]
    text = io.StringIO()
    write_predictions(preds, text, header)
    if args.out:
        atomic_write(args.out, lambda f: f.write(text.getvalue()), binary=False)
        print(f"wrote {len(preds)} predictions to {args.out}", file=out)
    else:
        out.write(text.getvalue())
    return 0


def cmd_score(args: argparse.Namespace, out: IO[str]) -> int:
    """Print, per family of requests, how many of its predicted first MOVEs the recordings
    show, and the total against the commonest outcome shown."""
    import re
    from collections import Counter

    from rig.requests import read_predictions, score_predictions

    if not Path(args.recordings).is_dir():
        raise ValueError(f"{args.recordings}: not a folder of recordings (expected one NAME/ "
                         f"per request)")
    scored = score_predictions(read_predictions(args.predictions), args.recordings)
    if args.each:
        for s in scored:
            p = s.prediction
            print(f"{p.request}  game {p.game}  {p.passes} passes  predicted {p.predicted}  "
                  f"shown {s.shown or '-'}{'  ' + s.why if s.why else ''}", file=out)
    # a line per family of requests (NAME_k00, NAME_k01, ... one family NAME)
    families: dict[str, list] = {}
    for s in scored:
        families.setdefault(re.sub(r"_k\d+$", "", s.prediction.request), []).append(s)
    for name, rows in families.items():
        shown = [s for s in rows if s.shown is not None]
        if not shown:
            continue
        seen = Counter(s.shown for s in shown)
        print(f"{name}: {sum(s.right for s in shown)} of {len(shown)} as predicted (shown: "
              + ", ".join(f"{o} {n}" for o, n in seen.most_common()) + ")"
              + (f"; {len(rows) - len(shown)} not read ("
                 + next(s.why for s in rows if s.shown is None) + ")"
                 if len(shown) < len(rows) else ""), file=out)
    shown = [s for s in scored if s.shown is not None]
    commonest = Counter(s.shown for s in shown).most_common(1)
    unread = len(scored) - len(shown)
    print(f"first MOVEs predicted by the count: {sum(s.right for s in shown)} of {len(shown)}"
          + (f" (the commonest shown, {commonest[0][0]}, {commonest[0][1]})" if commonest
             else "") + (f"; {unread} predicted games not recorded or not read" if unread
                         else ""), file=out)
    return 0
