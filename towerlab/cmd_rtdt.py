"""Subcommands for the Return to Dark Tower (2022) over Bluetooth LE: record, check, scan,
status and one-shot commands (see the README section "Return to Dark Tower")."""
from __future__ import annotations

import argparse
from typing import IO

__all__ = ["register", "cmd_record", "cmd_check", "cmd_scan", "cmd_status", "cmd_oneshot",
           "ONE_SHOT"]

ONE_SHOT = ("calibrate", "rotate", "light", "sound", "sequence", "volume", "reset-skulls")


def _params_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--params", metavar="FILE",
                   help="protocol parameters to override, JSON or TOML (.toml): top-level "
                        "keys are RtdtParams fields (docs/rtdt-protocol.md)")
    p.add_argument("--set", metavar="KEY=VALUE", action="append", default=[],
                   help="override one protocol parameter, e.g. --set sim_calibration_s=8 "
                        "(repeatable; applied after --params)")


def _target_option(p: argparse.ArgumentParser, required: bool = True) -> None:
    p.add_argument("--target", required=required, default=None if required else "sim",
                   metavar="sim|ble[:ADDRESS]",
                   help="sim: the virtual tower on a simulated radio and clock; ble: scan "
                        "for a tower by name; ble:ADDRESS: that tower")


def _params(args, base=None):
    from captures.rtdt import load_params
    return load_params(args.params, args.set, base=base)


def _progress_record(args, out):
    from rig.progress import progress_line
    from rig.rtdt.session import parse_target, record
    params = _params(args)
    target = parse_target(args.target)
    with progress_line(f"recording on {target}") as line:
        return record(args.script, target, args.out, params,
                      progress=line.update if line.shown else None)


def cmd_record(args, out: IO[str]) -> int:
    """Run a script on a tower and store sent bytes, notifications and events in --out."""
    rec = _progress_record(args, out)
    late = [c for c in rec.meta["commands"] if c["t_start"] - c["t_script"] > 0.5]
    kinds = sorted({e["type"] for e in rec.events})
    print(f"recorded {len(rec.events)} events ({', '.join(kinds)}), {len(rec.sent)} writes "
          f"and {len(rec.notifications)} notifications from {rec.meta['target']} "
          f"({rec.meta['address']}) in {args.out}", file=out)
    for c in late:
        print(f"note: line {c['line']} '{c['command']}' ran {c['t_start'] - c['t_script']:.2f} "
              f"s late (the tower was busy with the command before)", file=out)
    for w in rec.meta["warnings"]:
        print(f"warning: {w}", file=out)
    return 0


def cmd_check(args, out: IO[str]) -> int:
    """Rerun a recording's script on a tower; print 'equivalent' or the first difference."""
    from analysis.rtdt import RtdtTolerance
    from captures.rtdt import ParamsError
    from rig.rtdt.session import check, load_rtdt_recording, parse_target, recording_params
    if args.rotation_tolerance_rel is None:
        args.rotation_tolerance_rel = 0.2
    for name, v in (("--tolerance", args.tolerance), ("--rotation-tolerance",
                                                       args.rotation_tolerance),
                    ("--rotation-tolerance-rel", args.rotation_tolerance_rel)):
        if not v >= 0 or v == float("inf"):
            raise ParamsError(f"{name} {v}: expected a finite number >= 0")
    rec = load_rtdt_recording(args.recording)
    base = recording_params(rec.meta, f"{args.recording}/rtdt.json")
    params = _params(args, base=base)
    tol = RtdtTolerance(args.tolerance, args.rotation_tolerance, args.rotation_tolerance_rel,
                        tuple(args.ignore or ("battery",)))
    result, _ = check(args.recording, parse_target(args.target), params, tolerance=tol)
    print(result.describe("recording", str(args.target)), file=out)
    return 0 if result.equivalent else 1


def cmd_scan(args, out: IO[str]) -> int:
    """List the towers heard within --timeout seconds."""
    import asyncio

    from rig.rtdt.session import parse_target
    from rig.rtdt.tower import scan
    params = _params(args)
    timeout = params.scan_timeout_s if args.timeout is None else args.timeout
    target = parse_target(args.target)
    if target.kind == "sim":
        from emulator.rtdt import VirtualRtdt
        from rig.rtdt.clock import VirtualClockLoop
        from rig.rtdt.simble import SimBleakScanner, SimRadio
        radio = SimRadio([VirtualRtdt(params)])
        loop = VirtualClockLoop()
        try:
            found = loop.run_until_complete(scan(params, timeout, SimBleakScanner,
                                                 radio=radio))
        finally:
            loop.close()
    else:
        found = asyncio.run(scan(params, timeout))
    if target.address:
        found = [f for f in found if f[0].upper() == target.address.upper()]
    for address, name, rssi in found:
        print(f"{address}  {name}  {rssi} dBm", file=out)
    if not found:
        print(f"no tower named {params.device_name!r} heard in {timeout:g} s", file=out)
        return 1
    return 0


def cmd_status(args, out: IO[str]) -> int:
    """Connect, read the device information, wait for the battery and print the state."""
    from captures.rtdt import DRUMS, SIDES, battery_percent
    from rig.rtdt.session import open_rtdt, parse_target
    params = _params(args)
    tower = open_rtdt(parse_target(args.target), params)
    try:
        info = tower.device_info()
        tower.advance(max(1.0, 3 * params.battery_interval_s))
        client = tower.client
        print(f"tower {client.address}: " + ", ".join(f"{k} {v}" for k, v in info.items()),
              file=out)
        if client.battery_mv is not None:
            print(f"battery: {client.battery_mv} mV "
                  f"({battery_percent(client.battery_mv, params)} %)", file=out)
        else:
            print("battery: no report yet", file=out)
        st = client.state
        if st is None:
            print("drums: not reported yet (the tower reports its state after a command)",
                  file=out)
        else:
            print("drums: " + ", ".join(
                f"{n} {SIDES[d.position]}{'' if d.calibrated else ' (not calibrated)'}"
                for n, d in zip(DRUMS, st.drums)) + f"; skulls {st.skulls}", file=out)
    finally:
        tower.close()
    return 0


def cmd_oneshot(args, out: IO[str]) -> int:
    """Connect, run one command (calibrating first when it moves a drum), print the events."""
    from captures.events import dumps_event
    from captures.rtdt_script import parse_rtdt_script
    from rig.rtdt.session import open_rtdt, parse_target
    from rig.rtdt.tower import run_rtdt_script
    from captures.rtdt_script import RtdtScriptError
    params = _params(args)
    line = " ".join([args.rtdt_command] + list(args.words))
    try:
        script = parse_rtdt_script(f"0 {line}\n", "command", params)
    except RtdtScriptError as exc:
        raise RtdtScriptError(f"rtdt {line}: {str(exc).split(': ', 1)[1]}") from None
    if args.rtdt_command == "rotate" and args.calibrate:
        script = parse_rtdt_script(f"0 calibrate\n0 {line}\n", "command", params)
    tower = open_rtdt(parse_target(args.target), params)
    try:
        run_rtdt_script(tower, script, until=0.0)
        tower.advance(args.wait)
        for ev in tower.events():
            if ev["type"] != "battery" or args.battery:
                print(dumps_event(ev), file=out)
        for w in tower.client.warnings:
            print(f"warning: {w}", file=out)
    finally:
        tower.close()
    return 0


def register(sub) -> None:
    """Add the rtdt subcommands to the towerlab parser."""
    from towerlab.options import add_output, add_tolerance, positive, seconds

    rt = sub.add_parser("rtdt", help="Return to Dark Tower (2022) over Bluetooth LE: record, "
                                     "check, scan, status, one-shot commands")
    rsub = rt.add_subparsers(dest="rtdt_command", metavar="RTDT_COMMAND")

    p = rsub.add_parser("record", help="run a script on a tower and store the recording")
    p.add_argument("--script", required=True, help="session script (captures/rtdt_script.py "
                                                   "format: '<time_s> COMMAND ...')")
    add_output(p, required=True, metavar="DIR", help="recording folder to write")
    _target_option(p)
    _params_options(p)
    p.set_defaults(func=cmd_record)

    p = rsub.add_parser("check", help="rerun a recording on a tower and compare")
    p.add_argument("recording", help="recording folder from towerlab rtdt record")
    _target_option(p)
    _params_options(p)
    p.add_argument("--tolerance", type=float, default=0.25, metavar="S",
                   help="time tolerance per event in seconds (default 0.25)")
    p.add_argument("--rotation-tolerance", type=float, default=0.5, metavar="S",
                   help="rotation reports: time and duration within max(S, REL x duration) "
                        "(default 0.5 s)")
    add_tolerance(p, "rotation-tolerance-rel", unit="fraction",
                  help="relative rotation tolerance (default 0.2 = 20 %%)",
                  old=(("--rotation-rel", 1.0, "fraction"),))
    p.add_argument("--ignore", action="append", metavar="TYPE",
                   help="event types not compared (default: battery; repeatable)")
    p.set_defaults(func=cmd_check)

    p = rsub.add_parser("scan", help="list the towers in range")
    _target_option(p, required=False)
    # a finite time: inf listened for ever, nan and -1 passed for 0
    p.add_argument("--timeout", type=positive, default=None, help="seconds to listen "
                                                                  "(default: scan_timeout_s)")
    _params_options(p)
    p.set_defaults(func=cmd_scan)

    p = rsub.add_parser("status", help="device information, battery and drums of a tower")
    _target_option(p, required=False)
    _params_options(p)
    p.set_defaults(func=cmd_status)

    for name in ONE_SHOT:
        p = rsub.add_parser(name, help=f"one-shot: connect, {name}, print the events")
        p.add_argument("words", nargs="*", help="the command's arguments, as in a script "
                                                "line (e.g. 'top north' for rotate)")
        _target_option(p, required=False)
        _params_options(p)
        p.add_argument("--wait", type=seconds, default=1.0, metavar="S",
                       help="seconds to listen after the command (default 1)")
        p.add_argument("--battery", action="store_true", help="print battery events too")
        if name == "rotate":
            p.add_argument("--no-calibrate", dest="calibrate", action="store_false",
                           help="do not calibrate first (the tower must be calibrated "
                                "already; a new connection never is)")
        p.set_defaults(func=cmd_oneshot)

    def no_sub(args, out) -> int:
        """Print the rtdt commands' help (no subcommand given)."""
        rt.print_help(out)
        return 2

    rt.set_defaults(func=no_sub)
