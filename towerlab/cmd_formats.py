"""Register the formats area's subcommands, ``towerlab convert`` and ``towerlab info``.

    towerlab convert capture.sr -o capture.vcd [--channel-map probes.map]
    towerlab info capture.sr
"""
from __future__ import annotations

import argparse
import contextlib
from typing import IO, Iterator

from captures.files import check_not_an_input
from captures.formats import open_capture, sniff_format, write_capture
from captures.model import Capture, Changes

__all__ = ["register", "cmd_convert", "cmd_info", "WRITTEN"]

# The extensions captures.formats.writers() writes, for the help text without importing every
# format module at start-up (tests/captures/test_format_sniffing.py checks they agree).
WRITTEN = ".sr, .vcd, .tlc, .jsonl.gz"


def register(sub) -> None:
    """Add this area's subcommands to the ``towerlab`` parser."""
    p = sub.add_parser("convert", help="convert a capture between file formats",
                       description="Convert a capture (.sr, .vcd, Saleae .csv/.bin, .tlc, "
                                   ".jsonl.gz) to the format named by the output extension ("
                                   + WRITTEN + ").")
    p.add_argument("input", metavar="IN", help="capture file (or Saleae export folder)")
    p.add_argument("-o", "--out", "--output", dest="out", metavar="OUT", required=True,
                   help="output file; its extension picks the format")
    p.add_argument("--channel-map", metavar="FILE",
                   help="'probe = SIGNAL' lines: keep and rename only these channels")
    p.set_defaults(func=cmd_convert)
    p = sub.add_parser("info", help="describe a capture file",
                       description="Print a capture's format, channels, samplerate, length, "
                                   "change count and gaps.")
    p.add_argument("capture", metavar="CAPTURE", help="capture file (or Saleae export folder)")
    p.add_argument("--channel-map", metavar="FILE", help="apply a channel map first")
    p.set_defaults(func=cmd_info)


def cmd_convert(args: argparse.Namespace, out: IO[str]) -> int:
    """Convert ``args.input`` to ``args.out`` (format from the extension); an output that is
    the input itself (a symlink to it too) is refused, since it would replace the source."""
    check_not_an_input(args.out, args.input)
    cap = open_capture(args.input, args.channel_map)
    with _progress(cap, f"converting to {args.out}") as shown:
        write_capture(shown, args.out)
    for line in cap.warnings:
        print(f"warning: {line}", file=out)
    print(f"wrote {args.out}: {len(cap.channels)} channels, "
          f"{_fmt_rate(cap.samplerate)}, {_length(cap)}", file=out)
    return 0


def cmd_info(args: argparse.Namespace, out: IO[str]) -> int:
    """Print what ``args.capture`` holds (reads every change to count them)."""
    fmt = sniff_format(args.capture)
    cap = open_capture(args.capture, args.channel_map)
    changes = 0
    last = None
    with _progress(cap, "counting changes") as shown:
        for block in shown.changes():
            changes += len(block)
            if len(block):
                last = int(block.times[-1])
    print(f"file:        {args.capture}", file=out)
    print(f"format:      {fmt}", file=out)
    print(f"channels:    {len(cap.channels)}: {' '.join(cap.channels)}", file=out)
    print(f"samplerate:  {_fmt_rate(cap.samplerate)}", file=out)
    print(f"length:      {_length(cap)}", file=out)
    print(f"changes:     {changes}" + (f" (last at sample {last})" if last is not None else ""),
          file=out)
    print(f"gaps:        {len(cap.gaps)}", file=out)
    for g in cap.gaps:
        print(f"  {g.start}..{g.end} ({cap.info.seconds(g.start):.6f} s, "
              f"{cap.info.seconds(g.end - g.start):.6f} s): {g.reason}", file=out)
    for line in cap.warnings:
        print(f"warning:     {line}", file=out)
    for key, value in cap.info.meta.items():
        if isinstance(value, dict):
            print(f"[{key}]", file=out)
            for k, v in value.items():
                print(f"  {k} = {v}", file=out)
        else:
            print(f"{key}: {value}", file=out)
    return 0


def _fmt_rate(hz: float) -> str:
    for unit, scale in (("MHz", 1e6), ("kHz", 1e3)):
        if hz >= scale:
            return f"{hz / scale:g} {unit}"
    return f"{hz:g} Hz"


def _length(cap) -> str:
    total = cap.info.total_samples
    if total is None:
        return "length unknown"
    return f"{total} samples ({cap.info.seconds(total):.6f} s)"


@contextlib.contextmanager
def _progress(cap: Capture, label: str) -> Iterator[Capture]:
    """Yield ``cap``, wrapped to draw a rich progress bar on stderr (by sample position) when
    stderr is a terminal and the length is known; otherwise yield it unchanged."""
    from rig.progress import progress_line, shows_progress

    total = cap.info.total_samples
    if not total or not shows_progress():
        yield cap
        return
    with progress_line(label, total=total) as line:

        def factory() -> Iterator[Changes]:
            for block in cap.changes():
                if len(block):
                    line.update(int(block.times[-1]))
                yield block
            line.update(total)

        shown = Capture(cap.info, factory, cap.gaps)
        shown.warnings = cap.warnings
        yield shown
