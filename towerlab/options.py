"""The options every command names the same way, and the old names kept as aliases.

- outputs: ``-o OUT`` / ``--out OUT`` (a file or a folder, as the command writes);
  ``--output`` is the older spelling of some commands and still works;
- tolerances: ``--[WHAT-]tolerance S`` in seconds and ``--[WHAT-]tolerance-rel FRAC`` as a
  fraction (``diff --tolerance 0.002 --freq-tolerance-rel 0.02``, ``conform --tolerance
  0.0167 --tolerance-rel 0.01``, ``rtdt check --rotation-tolerance-rel 0.2``); the older
  names (``--time-tol``, ``--tolerance-ms``, ``--tolerance-pct``, ...) still work, in their
  own units, and are left out of the help.

``AliasHelpFormatter`` hides the old names from ``--help``; ``add_output``, ``add_tolerance``
and ``add_search_budget`` add the options; ``merge_aliases`` turns an old name's value (in its unit)
into the new option's after parsing.

Example::

    add_output(p, required=True, metavar="EVENTS.jsonl", help="events file to write")
    add_tolerance(p, "tolerance", unit="s", help="time tolerance", old=(("--time-tol", 1.0),))
"""
from __future__ import annotations

import argparse
import math

__all__ = ["AliasHelpFormatter", "add_output", "add_tolerance", "add_search_budget",
           "add_draw_model", "check_draw_model", "search_budget", "merge_aliases", "OLD_NAMES",
           "checked", "seconds", "positive"]

# Option strings kept for the older command lines; --help does not show them.
OLD_NAMES: set[str] = {"--output"}


def checked(convert, ok, what: str):
    """Return an argparse type: ``convert(text)`` that must satisfy ``ok``, else one line
    (``'TEXT' is not WHAT``)."""
    def parse(text: str):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not ok(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
        return value
    return parse


# finite, so that inf and nan (which float() takes) never pass as a time
seconds = checked(float, lambda v: v >= 0 and math.isfinite(v), "a time in seconds >= 0")
positive = checked(float, lambda v: v > 0 and math.isfinite(v), "a positive number")


class AliasHelpFormatter(argparse.HelpFormatter):
    """A help formatter that leaves the old option names (``OLD_NAMES``) out."""

    def _format_action_invocation(self, action: argparse.Action) -> str:
        shown = [s for s in action.option_strings if s not in OLD_NAMES]
        if not action.option_strings or len(shown) == len(action.option_strings):
            return super()._format_action_invocation(action)
        copy = argparse.Action(shown, action.dest, nargs=action.nargs, metavar=action.metavar)
        return super()._format_action_invocation(copy)


def add_output(p: argparse.ArgumentParser, *, required: bool = False, metavar: str = "OUT",
               help: str, default=None) -> None:
    """Add ``-o/--out`` (and the older ``--output``) with ``dest="out"``."""
    p.add_argument("-o", "--out", "--output", dest="out", required=required, metavar=metavar,
                   default=default, help=help)


def _number(unit: str):
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if not (math.isfinite(value) and value >= 0):
            raise argparse.ArgumentTypeError(f"{text!r} is not a tolerance >= 0 ({unit})")
        return value
    return parse


def add_tolerance(p: argparse.ArgumentParser, name: str, *, unit: str, help: str,
                  default=None, old: tuple[tuple[str, float, str], ...] = ()) -> None:
    """Add ``--NAME`` (dest ``NAME`` with dashes as underscores) taking a number >= 0 in
    ``unit`` ("s" or "fraction"), and each older name in ``old`` as (option, factor to the
    new unit, its unit): given, its value times the factor becomes the new option's
    (``merge_aliases``)."""
    dest = name.replace("-", "_")
    p.add_argument(f"--{name}", dest=dest, type=_number(unit), default=default,
                   metavar="S" if unit == "s" else "FRAC", help=help)
    for option, factor, old_unit in old:
        p.add_argument(option, dest=f"_old_{dest}__{option}", type=_number(old_unit),
                       default=None, help=argparse.SUPPRESS)
        p.set_defaults(**{f"_old_{dest}__{option}__factor": factor})


def add_search_budget(p: argparse.ArgumentParser, *, help: str) -> None:
    """Add ``--search-budget REPLAYS`` (dest ``search_budget``, None when not given): the
    clean-room resolver's budget (cleanroom.conform ``resolve``'s ``max_runs``); read it
    with ``search_budget``."""
    p.add_argument("--search-budget", type=int, default=None, metavar="REPLAYS", help=help)


def add_draw_model(p: argparse.ArgumentParser) -> None:
    """Add ``--draw-model NAME`` and ``--resync``, the draw model's options with
    ``--no-resolve`` (cleanroom.predict; ``towerlab conform`` and ``towerlab rig check``)."""
    p.add_argument("--resync", action="store_true",
                   help="with --no-resolve: the game plays the resolver's draws and the model "
                        "predicts each with the recording's draws before it, so that a wrong "
                        "draw does not end the count (docs/draws.md)")
    p.add_argument("--draw-model", default="likeliest", metavar="NAME",
                   help="with --no-resolve: the draw model (default likeliest: each draw its "
                        "likeliest option; count: a level-4 game's first MOVE off the count "
                        "of docs/draws.md section 12, every other draw as likeliest)")


def check_draw_model(args: argparse.Namespace) -> None:
    """Raise ValueError, one line, for ``--resync`` or another ``--draw-model`` than the
    default asked for without ``--no-resolve`` (they would be ignored), or a draw model
    cleanroom.predict does not know (``add_draw_model``'s options, conform's and rig
    check's)."""
    from cleanroom.predict import Likeliest, model_named

    if args.resync and not args.no_resolve:
        raise ValueError("--resync: expected --no-resolve too (it re-synchronises the draw "
                         "model's draws)")
    model_named(args.draw_model)        # an unknown name: ConformError naming the known ones
    if args.draw_model != Likeliest.name and not args.no_resolve:
        raise ValueError(f"--draw-model {args.draw_model}: expected --no-resolve too (the "
                         f"resolver, the default, uses no draw model)")


def search_budget(args: argparse.Namespace) -> int | None:
    """Return ``--search-budget``'s value (None: not given); ValueError below 1."""
    budget = args.search_budget
    if budget is not None and budget < 1:
        raise ValueError(f"--search-budget {budget}: expected a number of replays >= 1")
    return budget


def merge_aliases(args: argparse.Namespace) -> None:
    """Move the values given under old tolerance names onto their new options (module doc);
    an option given under both names is refused, naming both."""
    for key in [k for k in vars(args) if k.startswith("_old_") and not k.endswith("__factor")]:
        value = getattr(args, key)
        if value is None:
            continue
        dest, option = key[len("_old_"):].split("__", 1)
        new = f"--{dest.replace('_', '-')}"
        if getattr(args, dest, None) is not None:
            raise ValueError(f"{option} is the old name of {new} (in other units): give "
                             f"one of them")
        setattr(args, dest, value * getattr(args, f"{key}__factor"))
