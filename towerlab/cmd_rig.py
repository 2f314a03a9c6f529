"""Subcommands of the rig area: record, check, import, firmware, status (see rig/README.md)."""
from __future__ import annotations

import argparse
import shutil
import subprocess
from typing import IO

__all__ = ["register", "record_spec", "cmd_record", "cmd_check", "cmd_import", "cmd_firmware",
           "cmd_status"]


def _target_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--target", required=True,
                   choices=("real", "sim", "emu", "cleanroom", "replay", "fake"),
                   help="real: button box + analyser; sim: the same drivers on the virtual "
                        "bench; emu: the emulator; cleanroom: the clean-room game; replay: a "
                        "recording (--replay DIR); fake: the rig's pin-level test tower")
    p.add_argument("--replay", metavar="DIR", help="replay target: recording or shared "
                                                   "capture folder")
    p.add_argument("--romset", help="genuine romset (mbdtower.zip) for the emulator")
    p.add_argument("--firmware", default="demo", help="emulator firmware when no romset "
                                                      "(default: demo)")
    p.add_argument("--port", help="button box serial port (real target), e.g. /dev/ttyACM0")
    p.add_argument("--analyser", default="fx2lafw",
                   help="fx2lafw (pyusb driver) or sigrok:DRIVER[:opts] (sigrok-cli)")
    p.add_argument("--channel-map", help="probe -> tower pin map file (default: D0-D6 = "
                                         "R4-R10, D7-D14 = O0-O7, D15 = K8)")
    p.add_argument("--samplerate", type=float, default=250_000,
                   help="analyser sample rate in Hz (default 250000)")
    p.add_argument("--virtual", default="emu", choices=("emu", "fake"),
                   help="the tower inside the virtual bench (sim target)")
    p.add_argument("--tower-speed", type=float, default=1.0,
                   help="sim: the virtual tower's clock against the bench (1.02 = 2 %% fast)")
    p.add_argument("--clock", help="emu, sim: oscillator in Hz, or 'auto' (check: run once at "
                                   "425 kHz, fit the recorded tower's clock from the "
                                   "intervals its firmware times, rerun at that clock)")


def _clock(args) -> float | None:
    if not args.clock or args.clock == "auto":
        return None
    try:
        hz = float(args.clock)
    except ValueError:
        hz = -1.0
    if not hz > 0:
        from rig.errors import RigError
        raise RigError(f"--clock {args.clock!r}: expected a frequency in Hz or 'auto'")
    return hz


def _spec(args):
    from rig.specs import DEFAULT_CHANNEL_MAP, TargetSpec
    cmap = dict(DEFAULT_CHANNEL_MAP)
    if args.channel_map:
        from rig.specs import load_probe_map
        cmap = load_probe_map(args.channel_map)
    return TargetSpec(args.target, romset=args.romset, firmware=args.firmware, port=args.port,
                      analyser=args.analyser, channel_map=cmap, samplerate=args.samplerate,
                      virtual=args.virtual, tower_speed=args.tower_speed,
                      clock_hz=_clock(args), replay=args.replay)


def record_spec(args):
    """The target to record on (``_target_options``): as ``_spec``, but ``--clock auto``,
    which fits a recording's clock, is refused in one line (nothing to fit yet)."""
    from rig.errors import RigError
    if args.clock == "auto":
        raise RigError("--clock auto applies to rig check (it fits a recording's clock); "
                       "a recording takes --clock HZ")
    return _spec(args)


def cmd_record(args, out: IO[str]) -> int:
    """Run a script on a target and store script, capture and events in --out (with a
    progress line of the session's seconds on a terminal)."""
    from rig.progress import progress_line
    from rig.record import record
    spec = record_spec(args)
    with progress_line(f"recording on {args.target}", quiet=args.quiet) as line:
        rec = record(args.script, spec, args.out,
                     progress=line.update if line.shown else None)
    n = len(rec.events)
    print(f"recorded {n} events from {args.target} in {args.out} "
          f"(observed: {', '.join(rec.meta.get('observed', []))})", file=out)
    late = rec.meta.get("late_actions") or 0
    if late:
        print(f"warning: {late} key/power actions reached the box after their time (the host "
              f"was slow); their events carry the time they happened", file=out)
    return 0


def cmd_check(args, out: IO[str]) -> int:
    """Replay a recording's script on a target; print 'equivalent' or the first difference."""
    from analysis.compare import format_comparison
    from rig.check import check, check_cleanroom, predict_cleanroom
    from rig.errors import RigError
    from rig.specs import NOMINAL_CLOCK_HZ
    from towerlab.options import check_draw_model, search_budget
    if args.no_resolve and args.target != "cleanroom":
        raise RigError(f"--no-resolve applies to the cleanroom target (the game's draw model), "
                       f"not {args.target}")
    check_draw_model(args)
    budget = search_budget(args)
    if budget is not None and args.target != "cleanroom":
        raise RigError(f"--search-budget applies to the cleanroom target (the resolver's "
                       f"budget), not {args.target}")
    if args.target == "cleanroom":
        if args.clock:
            raise RigError("--clock applies to the emu and sim targets; the clean-room game "
                           "is compared with its own tolerances")
        from cleanroom.conform import budget_line

        line = budget_line(budget)
        if line:
            print(line, file=out)
        if args.no_resolve:
            from cleanroom.predict import mode_line

            predicted = predict_cleanroom(args.recording, args.draw_model, budget,
                                          args.resync)
            print(mode_line(predicted.model, args.resync), file=out)
            result = predicted.result
            print(f"equivalent: the clean-room game {result.describe()}" if result.conforms
                  else result.describe(), file=out)
            print(predicted.line(), file=out)
            return 0 if result.conforms else 1
        conformed = check_cleanroom(args.recording, budget)
        if conformed.conforms:
            print(f"equivalent: the clean-room game {conformed.describe()}, random decisions "
                  f"resolved as towerlab conform does", file=out)
        else:
            print(conformed.describe(), file=out)
        return 0 if conformed.conforms else 1
    result = check(args.recording, _spec(args), auto_clock=args.clock == "auto")
    if result.rom_note:
        print(f"note: {result.rom_note}", file=out)
    print(format_comparison(result, "recording", args.target), file=out)
    if result.late_actions and not result.equivalent:
        print(f"note: {result.late_actions} key/power actions of the recording reached the box after their "
              f"time; what followed them is shifted", file=out)
    if result.fault:
        print(f"note: the recording ends in a fault ({result.fault}); compared up to "
              f"t={result.compared_until:.3f} s", file=out)
    if result.clock_note:
        print(f"note: --clock auto: {result.clock_note}; compared at 425 kHz", file=out)
    fit = result.clock_fit
    if fit is not None:
        print(f"recorded tower's clock: {result.clock_hz:.0f} Hz "
              f"({(result.clock_hz / NOMINAL_CLOCK_HZ - 1) * 100:+.2f} % against 425 kHz, "
              f"+-{fit.std_rel * 100:.2f} %; fitted on {fit.intervals} events in "
              f"{fit.stretches} stretches and {fit.tones} tones of a first run at 425 kHz)",
              file=out)
    return 0 if result.equivalent else 1


def cmd_import(args, out: IO[str]) -> int:
    """Turn a capture made elsewhere into a recording directory (decoded events)."""
    from rig.importing import import_capture
    rec = import_capture(args.capture, args.out, args.channel_map, args.script, args.start)
    print(f"imported {args.capture}: {len(rec.events)} events in {args.out}", file=out)
    return 0


def cmd_firmware(args, out: IO[str]) -> int:
    """Build the button-box firmware; print (or run, with --flash) the avrdude command."""
    from pathlib import Path

    from rig.build import avrdude_command, build_firmware, firmware_hex
    elf = build_firmware(Path(args.out) if args.out else None)
    hex_path = firmware_hex(elf)
    cmd = avrdude_command(hex_path, args.flash or "/dev/ttyACM0", args.board)
    print(f"firmware: {hex_path}", file=out)
    if not args.flash:
        print("flash with: " + " ".join(cmd), file=out)
        return 0
    if not shutil.which("avrdude"):
        from rig.errors import BuildError
        raise BuildError("avrdude not found: apt-get install -y avrdude")
    return subprocess.run(cmd).returncode


def cmd_status(args, out: IO[str]) -> int:
    """Say hello to the button box and print its state."""
    from rig.buttonbox import ButtonBox
    box = ButtonBox(args.port)
    try:
        hello = box.hello()
        st = box.status()
    finally:
        box.close()
    print(f"{args.port}: button box firmware {hello.firmware[0]}.{hello.firmware[1]} "
          f"(protocol {hello.protocol}), device time {st.now_us / 1e6:.3f} s, keys "
          f"0x{st.buttons:03x}, power {'on' if st.power else 'off'}, "
          f"{st.crc_errors} bad frames", file=out)
    if hello.outdated():
        print(f"note: {hello.outdated()}", file=out)
    return 0


def register(sub) -> None:
    """Add this area's subcommands to the towerlab parser."""
    from towerlab.options import add_draw_model, add_output, add_search_budget

    rig = sub.add_parser("rig", help="the bench: record and check sessions on any tower")
    rsub = rig.add_subparsers(dest="rig_command", metavar="RIG_COMMAND")

    p = rsub.add_parser("record", help="run a script on a tower and store the recording")
    p.add_argument("--script", required=True, help="session script (captures.script format)")
    add_output(p, required=True, metavar="DIR", help="recording directory to write")
    _target_options(p)
    p.add_argument("--quiet", action="store_true",
                   help="no progress line (it shows only on a terminal)")
    p.set_defaults(func=cmd_record)

    p = rsub.add_parser("check", help="replay a recording on a tower and compare")
    p.add_argument("recording", help="recording directory (from rig record or rig import), "
                                     "or a capture folder with script.txt and events.jsonl")
    _target_options(p)
    p.add_argument("--no-resolve", action="store_true",
                   help="cleanroom: the game draws from its draw model instead of resolving "
                        "the draws from the recording; ends with 'draws predicted: K of N'")
    add_draw_model(p)
    add_search_budget(p, help="cleanroom: the resolver's budget of replays for each 400 s of "
                              "the recording (default 2000), as towerlab conform's")
    p.set_defaults(func=cmd_check)

    p = rsub.add_parser("import", help="make a recording from a capture made elsewhere")
    p.add_argument("capture", help=".sr, .vcd, Saleae, .tlc or edges.jsonl.gz capture")
    add_output(p, required=True, metavar="DIR", help="recording directory to write")
    p.add_argument("--channel-map", help="probe -> tower pin map file")
    p.add_argument("--script", help="the script that was played during the capture")
    p.add_argument("--start", type=float, metavar="S",
                   help="seconds into the capture at which the tower was switched on "
                        "(default: where an O pin first leaves all-low; 0 without O pins)")
    p.set_defaults(func=cmd_import)

    p = rsub.add_parser("firmware", help="build (and flash) the button-box firmware")
    add_output(p, metavar="DIR", help="build directory (default: rig/firmware/build)")
    p.add_argument("--flash", metavar="PORT", help="flash it with avrdude to this port")
    p.add_argument("--board", default="uno", choices=("uno", "nano", "nano-new"))
    p.set_defaults(func=cmd_firmware)

    p = rsub.add_parser("status", help="say hello to the button box")
    p.add_argument("--port", required=True, help="serial port, e.g. /dev/ttyACM0")
    p.set_defaults(func=cmd_status)

    def no_sub(args, out) -> int:
        """Print the rig commands' help (no subcommand given)."""
        rig.print_help(out)
        return 2

    rig.set_defaults(func=no_sub)
