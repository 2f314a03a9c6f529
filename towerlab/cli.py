"""The ``towerlab`` command: a thin dispatcher over the library.

Each area registers its subcommands from its own module (``towerlab/cmd_*.py``); every command
is a small function ``(args, out) -> exit code`` over the library, so tests can call it with
injected streams. Errors the user can fix (bad files, bad values) print one line and exit 2.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import IO, Sequence

__all__ = ["main", "build_parser", "UserError"]

# Modules that contribute subcommands, in help order.
COMMAND_MODULES = (
    "towerlab.cmd_chip",       # asm, disasm, trace
    "towerlab.cmd_emulator",   # run, play, demo
    "towerlab.cmd_debug",      # debug
    "towerlab.cmd_formats",    # convert, info
    "towerlab.cmd_captures",   # decode, plot, wav, diff, clock
    "towerlab.cmd_rig",        # rig record/check/...
    "towerlab.cmd_rtdt",       # rtdt record/check/scan/status/one-shot (Return to Dark Tower)
    "towerlab.cmd_cleanroom",  # conform
    "towerlab.cmd_explore",    # explore
    "towerlab.cmd_requests",   # requests list/record (the lab's requests, on any tower)
    "towerlab.cmd_report",     # report
    "towerlab.cmd_serve",      # serve (the tower in a web browser)
)


class UserError(Exception):
    """An error caused by the user's input: printed as one line, exit status 2."""


class _OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line (and exit status 2), and whose
    help leaves out the old option names (towerlab.options)."""

    def __init__(self, *args, **kwargs):
        from towerlab.options import AliasHelpFormatter

        kwargs.setdefault("formatter_class", AliasHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):  # noqa: D401 - argparse's hook
        print(f"{self.prog}: {message} (see '{self.prog} --help')", file=sys.stderr)
        raise SystemExit(2)


class _RaisingParser(_OneLineParser):
    """A parser whose usage errors raise UserError (the one line, naming the command)
    instead of printing and exiting: for options read from a file (a request's explore
    line, towerlab/cmd_requests.py)."""

    def error(self, message: str):  # noqa: D401 - argparse's hook
        raise UserError(f"{self.prog}: {message}")


def build_parser(raise_errors: bool = False) -> argparse.ArgumentParser:
    """Return the argument parser with every area's subcommands; ``raise_errors``: usage
    errors raise UserError instead of printing and exiting."""
    import importlib

    parser = (_RaisingParser if raise_errors else _OneLineParser)(
        prog="towerlab",
        description="TowerLab: emulate, probe, record, decode and compare Milton Bradley's "
                    "Dark Tower (TMS1400) and its clean-room game. "
                    "'towerlab COMMAND --help' says more about each command.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None, out: IO[str] | None = None) -> int:
    """Run the CLI; return the exit status (0 ok, 1 a check failed, 2 bad input)."""
    out = out or sys.stdout
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(out)
        return 2
    try:
        from towerlab.options import merge_aliases

        merge_aliases(args)
        return int(args.func(args, out) or 0)
    except BrokenPipeError:
        # The reader went away (e.g. `towerlab trace ... | head`): stop quietly.
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0
    except UserError as exc:
        print(f"towerlab: {exc}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as exc:
        # Library errors (CaptureError, ScriptError, AsmError, RomError, ...) carry one line
        # that names the file and what was expected.
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"towerlab: {msg}", file=sys.stderr)
        return 2
    except MemoryError:
        print("towerlab: out of memory (is an input file far larger than expected?)",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        if str(exc):        # what was kept, and where (rig.errors.Interrupted)
            print(f"towerlab: {exc}", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
