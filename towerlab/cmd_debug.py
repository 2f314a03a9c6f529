"""Subcommand ``debug`` (registered by towerlab.cli): the ROM debugger at a prompt or in batch.

A small function over ``emulator.debug.Debugger`` and ``emulator.debugcmd.CommandShell``.
"""
from __future__ import annotations

import argparse
import sys
from typing import IO

__all__ = ["register", "cmd_debug"]


def register(sub) -> None:
    """Add the ``debug`` subcommand to the towerlab parser."""
    p = sub.add_parser("debug", help="debug a ROM: breakpoints, watchpoints, reverse stepping",
                       description="Run a ROM (or the demo firmware) on a board model under a "
                                   "debugger: breakpoints (by address, label, condition), "
                                   "watchpoints (RAM, R/O pins, K), stepping forwards and "
                                   "backwards, key presses, traces, saved states. Type 'help' "
                                   "at the prompt.")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--romset", help="MAME romset zip or folder (ROM + PLA files)")
    src.add_argument("--rom", help="raw ROM image")
    src.add_argument("--firmware", choices=["demo"], help="the open demo firmware (its labels "
                                                          "come with it)")
    p.add_argument("--mpla", help="micro-instruction PLA file (default: the set's, else the TI "
                                  "standard decode)")
    p.add_argument("--opla", help="output PLA file (default: the set's, else the Dark Tower "
                                  "glyph table)")
    p.add_argument("--board", help="darktower, labyrinth, or none (the chip alone, K = 0; "
                                   "default: the board that carries the ROM's chip, none for "
                                   "a TMS1000)")
    p.add_argument("--script", help="button script scheduled from the start (<time_s> <BUTTON> "
                                    "<hold_s> lines)")
    p.add_argument("--symbols", help="symbol file: 'c:p:pc NAME' lines (towerlab asm "
                                     "--symbols writes one)")
    p.add_argument("-x", "--commands", metavar="FILE",
                   help="run the commands in FILE (one per line) and exit")
    p.add_argument("--core", choices=["fast", "reference"], default="fast",
                   help="fast: the compiled kernel where built (default); reference: the "
                        "plain-Python core. Stops are identical.")
    p.add_argument("--view", choices=["full", "short"],
                   help="after each stop show everything (default at a terminal) or the "
                        "reason and the next instruction (default with -x)")
    p.set_defaults(func=cmd_debug)


def cmd_debug(args: argparse.Namespace, out: IO[str], read=input) -> int:
    """Build the debugger from the options and run the prompt (or the ``-x`` file)."""
    from emulator.debug import Debugger
    from emulator.debugcmd import CommandShell

    dbg = Debugger(firmware=args.firmware, rom=args.rom, romset=args.romset, mpla=args.mpla,
                   opla=args.opla, board=args.board, script=args.script,
                   symbols=args.symbols, core=args.core)
    for note in dbg.notes:
        print(f"towerlab: {note}", file=sys.stderr)
    tty = hasattr(out, "isatty") and out.isatty()
    full = args.view == "full" if args.view else (tty and args.commands is None)
    shell = CommandShell(dbg, out, full_view=full, color=tty)
    try:
        if args.commands is not None:
            try:
                with open(args.commands, encoding="utf-8") as f:
                    lines = f.read(1 << 20).splitlines()
            except (OSError, UnicodeDecodeError) as exc:
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
                raise ValueError(f"{args.commands}: cannot read the command file ({reason})") \
                    from None
            try:
                shell.run_lines(lines)
            except ValueError as exc:
                raise ValueError(f"{args.commands}: {exc}") from None
        else:
            shell.interact(read=read)
    finally:
        dbg.trace_off()
    return 0
