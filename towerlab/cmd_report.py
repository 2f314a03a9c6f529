"""The ``report`` subcommand (registered by towerlab.cli): one self-contained HTML page for a
recording, a capture, or a check/conformance made on it (rig.report over analysis.report)."""
from __future__ import annotations

import argparse
from typing import IO

__all__ = ["register", "cmd_report"]


def cmd_report(args: argparse.Namespace, out: IO[str]) -> int:
    """Write the report page; with --check or --conform, exit 1 when a difference is found."""
    import os

    from rig.report import report_check, report_cleanroom, report_recording

    if not args.out.lower().endswith((".html", ".htm")):
        raise ValueError(f"{args.out}: report output must end in .html")
    from captures.files import check_output_path
    check_output_path(args.out)          # before any work: a bad -o is said at once
    if not os.path.exists(args.source):
        raise ValueError(f"{args.source}: no such file or folder (expected a recording, a "
                         f"capture folder or a capture file)")
    compares = args.check is not None or args.conform
    if compares and not os.path.isdir(args.source):
        raise ValueError(f"{args.source}: --check and --conform need a recording or capture "
                         f"folder (with script.txt and events.jsonl)")
    if args.check is not None and args.conform:
        raise ValueError("report: give --check TARGET or --conform, not both")
    status = 0
    if args.conform or args.check == "cleanroom":
        result = report_cleanroom(args.source, args.out, whole=args.conform,
                                  audio_rate=args.audio_rate)
        line = result.describe().splitlines()[0]
        status = 0 if result.conforms else 1
    elif args.check is not None:
        from rig.specs import TargetSpec
        from towerlab.cmd_rig import _clock
        spec = TargetSpec(args.check, romset=args.romset, firmware=args.firmware,
                          clock_hz=_clock(args), replay=args.replay)
        result = report_check(args.source, spec, args.out, auto_clock=args.clock == "auto",
                              audio_rate=args.audio_rate)
        line = ("equivalent" if result.equivalent else
                f"first difference at {result.difference.t:.3f} s ({result.difference.kind})")
        status = 0 if result.equivalent else 1
    else:
        report_recording(args.source, args.out, args.channel_map, args.audio_rate)
        line = "recording"
    size = os.path.getsize(args.out)
    print(f"{args.out}: {line} ({size / 1e6:.1f} MB)", file=out)
    return status


def register(sub: "argparse._SubParsersAction") -> None:
    """Add the report subcommand to the towerlab parser."""
    from towerlab.options import add_output

    from towerlab.cmd_captures import _audio_rate

    p = sub.add_parser("report", help="one HTML page for a recording: overview, events, sound",
                       description="Write one self-contained HTML page (works offline) for a "
                                   "recording, a capture folder or a capture: what was run, "
                                   "the overview plot, the events table played along with the "
                                   "speaker's sound; with --check/--conform also the other "
                                   "side and the first difference marked on both timelines "
                                   "(exit status 1 when they differ).")
    p.add_argument("source", help="recording directory (rig record/import), capture folder "
                                  "(script.txt, events.jsonl, capture.sr or edges.jsonl.gz) "
                                  "or capture file")
    add_output(p, required=True, metavar="REPORT.html", help="page to write")
    p.add_argument("--check", metavar="TARGET",
                   choices=("emu", "cleanroom", "replay", "fake"),
                   help="also check the recording on this target as rig check does (emu, "
                        "cleanroom, replay, fake)")
    p.add_argument("--conform", action="store_true",
                   help="also compare the clean-room game with it as towerlab conform does")
    p.add_argument("--romset", help="--check emu: genuine romset (mbdtower.zip)")
    p.add_argument("--firmware", default="demo", help="--check emu: firmware when no romset")
    p.add_argument("--replay", metavar="DIR", help="--check replay: the recording to replay")
    p.add_argument("--clock", help="--check emu: oscillator in Hz, or 'auto' (as rig check)")
    p.add_argument("--audio-rate", type=_audio_rate, default=11025, metavar="HZ",
                   help="rate of the embedded sound, 1000-192000 Hz (11025)")
    p.add_argument("--channel-map", metavar="F", default=None,
                   help="channel map file for a capture file (probe = SIGNAL lines)")
    p.set_defaults(func=cmd_report)
