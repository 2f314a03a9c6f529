"""Subcommands of the chip area (registered by towerlab.cli): ``trace``, ``asm``, ``disasm``.

Each is a small function ``(args, out) -> exit status`` over the library (emulator.machine,
emulator.romset, emulator.trace, emulator.asm, emulator.disasm).
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import IO

from captures.files import atomic_write, check_not_an_input, check_output_path

__all__ = ["register", "cmd_trace", "cmd_asm", "cmd_disasm"]

# Traces at least this long (instructions, a few seconds) show a progress bar on a terminal.
_PROGRESS_STEPS = 200_000


def register(sub) -> None:
    """Add this area's subcommands to the ``towerlab`` parser."""
    from towerlab.options import add_output

    p = sub.add_parser("trace", help="write the canonical instruction trace of a ROM",
                       description="Run a ROM on the emulator core and write one line per "
                                   "instruction: the state before it (all numbers hex).")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--rom", help="raw ROM binary")
    src.add_argument("--romset", help="MAME romset zip or folder (ROM + PLA files)")
    src.add_argument("--firmware", choices=["demo"],
                     help="the open demo firmware (emulator/firmware/demo.asm, with the Dark "
                          "Tower's output PLA), as run, debug, play and explore take it")
    p.add_argument("--mpla", help="micro-instruction PLA file (default: the set's, else the TI "
                                  "standard decode)")
    p.add_argument("--opla", help="output PLA file (default: the set's, else O = SL<<4|A)")
    p.add_argument("--chip", help="tms1000, tms1100 or tms1400 (default: from the set, the "
                                  "board, or the ROM size)")
    p.add_argument("--steps", type=int, required=True, help="instructions to trace")
    p.add_argument("--board", help="drive K from a board model: darktower or labyrinth "
                                   "(default: no board, K reads 0)")
    p.add_argument("--script", help="button script for the board (keys held from their exact "
                                    "script times)")
    add_output(p, metavar="FILE", help="trace file (default: standard output)")
    p.add_argument("--core", choices=["fast", "reference"], default="fast",
                   help="fast: the compiled kernel where built (default), else the reference "
                        "core; reference: the plain-Python core. Traces are identical.")
    p.add_argument("--filter", action="append", default=[], metavar="TERM",
                   help="keep only some instructions (repeatable, all must hold): "
                        "pc=C:P:PC[-C:P:PC], page=C:P, chapter=C, op=HH[-HH] (hex), or "
                        "pins (the first instruction after each R/O pin change); numbering "
                        "stays that of the whole trace")
    p.add_argument("--format", choices=["text", "binary"], default="text",
                   help="text: the canonical lines (default); binary: 32-byte records after "
                        "a 24-byte header (docs/trace-format.md), needs -o")
    p.add_argument("--quiet", action="store_true",
                   help="no progress line (it shows only with -o, on a terminal)")
    p.set_defaults(func=cmd_trace)

    p = sub.add_parser("asm", help="assemble TMS1000-family source into a ROM image")
    p.add_argument("source", help="assembler source file")
    add_output(p, required=True, metavar="ROM.bin", help="ROM image to write")
    p.add_argument("--chip", help="tms1000, tms1100 or tms1400 (default: .chip directive, "
                                  "else tms1400)")
    p.add_argument("--listing", metavar="FILE",
                   help="also write the listing: one line per placed byte, "
                        "c:p:pc offset opcode source")
    p.add_argument("--symbols", metavar="FILE",
                   help="also write the labels as a symbol file ('c:p:pc NAME' lines) for "
                        "towerlab debug and disasm --symbols")
    p.set_defaults(func=cmd_asm)

    p = sub.add_parser("disasm", help="disassemble a ROM image into source")
    p.add_argument("rom", help="raw ROM binary, romset zip or folder")
    p.add_argument("--chip", help="tms1000, tms1100 or tms1400 (default: from the ROM size)")
    p.add_argument("--listing", action="store_true",
                   help="one line per byte (c:p:pc offset opcode mnemonic) instead of source")
    p.add_argument("--symbols", metavar="FILE",
                   help="symbol file ('c:p:pc NAME' lines): label those addresses and name "
                        "the branch and call targets")
    add_output(p, metavar="FILE", help="file to write (default: standard output)")
    p.set_defaults(func=cmd_disasm)


def _chip(name: str | None):
    from emulator.chips import get_chip
    return get_chip(name) if name else None


def cmd_trace(args: argparse.Namespace, out: IO[str]) -> int:
    """Write ``--steps`` canonical trace lines of a ROM (or romset) to ``-o`` or ``out``
    (to a file: with a progress line on a terminal, rig.progress)."""
    from emulator.trace import (TraceFilter, trace_chunks, trace_records,
                                write_binary_header)
    from rig.progress import progress_line

    if args.steps < 0:
        raise ValueError(f"--steps {args.steps} must be 0 or more instructions")
    binary = getattr(args, "format", "text") == "binary"
    if binary and args.out is None:
        raise ValueError("--format binary needs -o FILE (binary records do not go to the "
                         "terminal)")
    terms = getattr(args, "filter", None) or []
    flt = TraceFilter.parse(terms) if terms else None
    if args.out is not None:
        check_output_path(args.out)
        check_not_an_input(args.out, args.rom, args.romset, args.mpla, args.opla,
                           args.script)
    board_name = args.board
    if args.script and not board_name:
        raise ValueError("--script needs --board (darktower or labyrinth)")
    from emulator.fastcore import fast_trace_chunks
    from emulator.machine import NO_BOARD, build_machine

    # O = SL<<4 | A unless an output PLA is given (board_opla=False): the trace's default
    machine = build_machine(firmware=getattr(args, "firmware", None),
                            rom=args.romset or args.rom, chip=_chip(args.chip), mpla=args.mpla,
                            opla=args.opla, board=board_name or NO_BOARD, core=args.core,
                            script=args.script, board_opla=False)
    cpu = machine.cpu
    if board_name:
        cpu.reset()     # the board sees the reset state of R and O
    print(f"towerlab: {machine.summary}", file=sys.stderr)
    for note in machine.notes:
        print(f"towerlab: {note}", file=sys.stderr)

    def chunks():
        if cpu.core == "fast" and not board_name:
            # no board: the kernel traces, filters and formats alone
            return fast_trace_chunks(cpu, args.steps, binary, flt)
        return trace_chunks(trace_records(cpu, args.steps), binary, flt)

    def write(f, text_stream: bool = False) -> None:
        if binary:
            write_binary_header(f, machine.chip.name, flt is not None)
        start = cpu.cycle
        quiet = getattr(args, "quiet", False) or not args.out or args.steps < _PROGRESS_STEPS
        with progress_line(f"tracing {args.steps:,} instructions", total=args.steps,
                           quiet=quiet) as line:
            for data in chunks():
                f.write(data.decode() if text_stream else data)
                line.update((cpu.cycle - start) // 6)

    if args.out is not None:
        atomic_write(args.out, write, binary=True)
    else:
        write(out, text_stream=True)
    return 0


def cmd_asm(args: argparse.Namespace, out: IO[str]) -> int:
    """Assemble ``source`` and write the ROM image to ``-o`` (and its listing to
    ``--listing``)."""
    from emulator.asm import assemble_file

    check_output_path(args.out)
    check_not_an_input(args.out, args.source)
    if args.listing is not None:
        check_output_path(args.listing)
        check_not_an_input(args.listing, args.source)
        if os.path.realpath(args.listing) == os.path.realpath(args.out):
            raise ValueError(f"{args.listing}: given as both -o and --listing (expected two "
                             f"files)")
    if args.symbols is not None:
        check_output_path(args.symbols)
        check_not_an_input(args.symbols, args.source)
        others = [(o, p) for o, p in (("-o", args.out), ("--listing", args.listing)) if p]
        for option, path in others:
            if os.path.realpath(args.symbols) == os.path.realpath(path):
                raise ValueError(f"{args.symbols}: given as both {option} and --symbols "
                                 f"(expected two files)")
    program = assemble_file(args.source, _chip(args.chip))
    atomic_write(args.out, lambda f: f.write(program.rom), binary=True)
    if args.listing is not None:
        atomic_write(args.listing, lambda f: f.write(program.listing), binary=False)
    if args.symbols is not None:
        from emulator.symbols import write_symbols

        title = f"symbols of {os.path.basename(args.source)}"
        atomic_write(args.symbols, lambda f: write_symbols(program.symbols, f, title),
                     binary=False)
    print(f"{args.out}: {len(program.rom)} bytes for a {program.chip.name.upper()}", file=out)
    return 0


def cmd_disasm(args: argparse.Namespace, out: IO[str]) -> int:
    """Disassemble a ROM image (or a romset's ROM) to ``-o`` or ``out``."""
    from emulator.disasm import disassemble, disassemble_listing
    from emulator.romset import load_romset

    if args.out is not None:
        check_output_path(args.out)
        check_not_an_input(args.out, args.rom)
    rs = load_romset(args.rom, _chip(args.chip))
    symbols = None
    if args.symbols is not None:
        from emulator.symbols import read_symbols

        symbols = read_symbols(args.symbols, rs.chip.chapters)
    print(f"towerlab: {rs.summary()}", file=sys.stderr)      # stdout stays clean source
    for note in rs.recognised:
        print(f"towerlab: {note}", file=sys.stderr)
    text = (disassemble_listing if args.listing else disassemble)(rs.rom, rs.chip, symbols)
    if args.out is not None:
        atomic_write(args.out, lambda f: f.write(text), binary=False)
    else:
        out.write(text)
    return 0
