"""Subcommand ``explore``: play whole games at random on a tower (registered by towerlab.cli).

A small function over ``rig.explore.explore``; the player, the recordings and the batch live
in the library (``rig/player.py``, ``rig/explore.py``, ``rig/batch.py``).
"""
from __future__ import annotations

import argparse
from typing import IO

__all__ = ["register", "cmd_explore", "explore_plan"]


def register(sub) -> None:
    """Add the explore subcommand to the towerlab parser."""
    from towerlab.options import add_output

    p = sub.add_parser("explore", help="play whole games at random, as a person would",
                       description="Play sessions on a tower as a person would: wait for each "
                                   "flashing prompt, press after a seeded human-like delay, "
                                   "every level, 1-4 players, every button, the bazaar, "
                                   "battles with and without retreat, the Dark Tower. Writes "
                                   "a recording folder per session (as rig record) and "
                                   "summary.txt; seeded runs are identical.")
    p.add_argument("--target", choices=["emu", "cleanroom", "real"], required=True,
                   help="emu: the emulator; cleanroom: the clean-room game; real: a tower "
                        "through the button box and analyser")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--romset", help="emu: MAME romset zip or folder")
    src.add_argument("--rom", help="emu: raw ROM image")
    src.add_argument("--firmware", choices=["demo"], help="emu: the open demo firmware "
                                                         "(the default)")
    p.add_argument("--port", help="real: the button box's serial port")
    p.add_argument("--sessions", type=int, default=1, help="sessions to play (default 1)")
    p.add_argument("--seed", type=int, default=0, help="batch seed (default 0)")
    add_output(p, required=True, metavar="DIR",
               help="folder for session_NNNN/ and summary.txt (a new or empty one, a batch "
                    "cut short to resume with the same options, or --force)")
    p.add_argument("--level", type=int, help="play this level (default: random per session)")
    p.add_argument("--players", type=int, help="this many players (default: random)")
    p.add_argument("--max-seconds", type=float, default=None,
                   help="end a game at the first turn prompt after this much tower time "
                        "(default 1800)")
    p.add_argument("--favour", action="append", default=[], metavar="KEY=FACTOR",
                   help="steer the play: multiply the weight of a turn's action key by FACTOR "
                        "(e.g. 'DARK TOWER=5', 'MOVE=3', 'BAZAAR=0'; repeatable)")
    p.add_argument("--repeat-rate", type=float, default=None, metavar="SHARE",
                   help="steer the play: press REPEAT at the end-of-turn signal after this "
                        "share of the actions (default: now and then)")
    p.add_argument("--retreat-rate", type=float, default=None, metavar="SHARE",
                   help="steer the play: retreat from this share of the battles, the Final "
                        "Battle's too (default: 0.3 of the battles, 0.15 of Final Battles)")
    p.add_argument("--odds", action="append", default=[], metavar="NAME=WEIGHTS",
                   help="cleanroom: draw with these odds in place of the game's own, to see "
                        "how conform fares with a tower that draws otherwise (e.g. "
                        "'stray_key=0.2,0.8', 'retreat_loss=1:0.2,2:0.2,3:0.2,4:0.2,5:0.2'; "
                        "repeatable; recording.json notes them)")
    p.add_argument("--jobs", type=int, default=1, help="sessions in parallel on this many "
                                                       "local processes")
    p.add_argument("--scheduler", help="run on the Dask cluster at tcp://HOST:PORT")
    p.add_argument("--force", action="store_true",
                   help="replace an earlier explore in --out (its sessions, summary.txt "
                        "and explore.json), finished or cut short")
    p.add_argument("--quiet", action="store_true",
                   help="no progress line (it shows only on a terminal)")
    p.set_defaults(func=cmd_explore)


def explore_plan(args: argparse.Namespace) -> tuple:
    """Return (target spec, player options) of parsed explore options; ValueError naming the
    first bad one, before any work (also for a request's explore line, towerlab/
    cmd_requests.py)."""
    from cleanroom.odds import read_odds
    from rig.explore import check_options
    from rig.player import MAX_SECONDS
    from rig.specs import TargetSpec

    if args.target != "emu" and (args.rom or args.romset or args.firmware):
        raise ValueError(f"--rom, --romset and --firmware are for --target emu, not "
                         f"{args.target}")
    if args.target == "real" and not args.port:
        raise ValueError("--target real needs the button box's serial port (--port "
                         "/dev/ttyACM0)")
    odds = dict(read_odds(item) for item in args.odds) or None
    spec = TargetSpec(args.target, romset=args.romset or args.rom, port=args.port, odds=odds)
    options = {"level": args.level, "players": args.players,
               "max_seconds": MAX_SECONDS if args.max_seconds is None else args.max_seconds}
    if args.favour:
        options["favour"] = _favour(args.favour)
    if args.repeat_rate is not None:
        options["repeat_rate"] = args.repeat_rate
    if args.retreat_rate is not None:
        options["retreat_rate"] = args.retreat_rate
    check_options(args.sessions, args.seed, **options)
    return spec, options


def cmd_explore(args: argparse.Namespace, out: IO[str]) -> int:
    """Play ``--sessions`` sessions; print one line per session and the summary table."""
    from rig.explore import explore, summary_table

    spec, options = explore_plan(args)
    summaries = explore(spec, args.sessions, args.seed, args.out, jobs=args.jobs,
                        scheduler=args.scheduler, progress=not args.quiet,
                        force=args.force, **options)
    rows = [line.split("\t") for line in summary_table(summaries).splitlines()]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for r in rows:                          # aligned columns; the note last, as it is
        print("  ".join(c.rjust(n) for c, n in zip(r, widths)) + "  " + r[-1], file=out)
    where = (f"the Dask cluster at {args.scheduler}" if args.scheduler else
             f"{min(args.jobs, args.sessions)} process{'es' if args.jobs > 1 else ''}")
    print(f"explored {len(summaries)} session{'s' if len(summaries) != 1 else ''} on "
          f"{args.target} ({where}): {args.out}/summary.txt", file=out)
    return 0


def _favour(items: list[str]) -> dict[str, float]:
    """Read --favour KEY=FACTOR options (a key name with spaces may be given with _)."""
    out = {}
    for item in items:
        key, sep, factor = item.partition("=")
        key = key.strip().replace("_", " ").upper()
        try:
            value = float(factor)
        except ValueError:
            value = None
        if not sep or value is None:
            raise ValueError(f"--favour {item!r}: expected KEY=FACTOR, e.g. 'DARK TOWER=5'")
        out[key] = value
    return out
