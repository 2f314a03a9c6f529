"""Subcommand ``serve``: the tower in a web browser (registered by towerlab.cli); a small
function over ``rig.web``."""
from __future__ import annotations

import argparse
from typing import IO

__all__ = ["register", "cmd_serve", "parse_listen"]

DEFAULT_LISTEN = "127.0.0.1:8765"


def parse_listen(text: str) -> tuple[str, int]:
    """Return (host, port) of ``HOST:PORT`` (or ``PORT``); ValueError naming it otherwise."""
    host, _, port = text.rpartition(":")
    try:
        number = int(port)
    except ValueError:
        number = -1
    if not 0 <= number <= 65535:
        raise ValueError(f"--listen {text!r}: expected HOST:PORT with a port from 0 to 65535 "
                         f"(e.g. {DEFAULT_LISTEN})")
    return host or "127.0.0.1", number


def _target(args: argparse.Namespace) -> str:
    """Return the target the options ask for (``--target``, else what the options imply)."""
    implied = []
    if args.rom or args.romset or args.firmware:
        implied.append("emu")
    if args.replay:
        implied.append("replay")
    if args.target is not None:
        wrong = [t for t in implied if t != args.target]
        if wrong:
            given = "--replay" if wrong[0] == "replay" else "--rom/--romset/--firmware"
            raise ValueError(f"--target {args.target} does not go with {given} (the options "
                             f"of --target {wrong[0]})")
        return args.target
    if len(implied) > 1:
        raise ValueError("give a program (--rom/--romset/--firmware) or a recording "
                         "(--replay), not both")
    return implied[0] if implied else "cleanroom"


def cmd_serve(args: argparse.Namespace, out: IO[str]) -> int:
    """Serve the tower's page until Ctrl-C."""
    import asyncio

    from rig.specs import DEFAULT_CHANNEL_MAP, TargetSpec
    from rig.web.backends import open_session
    from rig.web.server import serve

    host, port = parse_listen(args.listen)
    target = _target(args)
    if target == "replay" and not args.replay:
        raise ValueError("--target replay needs the recording (--replay DIR)")
    cmap = dict(DEFAULT_CHANNEL_MAP)
    if args.channel_map:
        from rig.specs import load_probe_map
        cmap = load_probe_map(args.channel_map)
    if args.port and target != "real":
        raise ValueError(f"--port {args.port!r} is the real tower's serial port; --target "
                         f"{target} has none")
    if args.seed is not None and target != "cleanroom":
        raise ValueError(f"--seed {args.seed} is the clean-room game's; --target {target} "
                         f"draws nothing of its own")
    seed = args.seed
    if seed is None:
        import random
        seed = random.SystemRandom().randrange(1_000_000)
    spec = TargetSpec(target, romset=args.romset or args.rom, firmware=args.firmware or "demo",
                      port=args.port, analyser=args.analyser, channel_map=cmap,
                      replay=args.replay, seed=seed)
    session = open_session(spec, pace=args.pace)

    def ready(url: str) -> None:
        print(f"serving {session.about} at {url} (Ctrl-C stops)", file=out, flush=True)

    try:
        asyncio.run(serve(session, host, port, ready))
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        raise ValueError(f"--listen {args.listen}: cannot listen there "
                         f"({exc.strerror or exc})") from None
    return 0


def register(sub) -> None:
    """Add the serve subcommand to the towerlab parser."""
    p = sub.add_parser("serve", help="the tower in a web browser: play, replay, watch",
                       description="Serve a local web page of the tower: the two digits, the "
                                   "three windows with the reel's pictures, the reel turning, "
                                   "the 12 keys (mouse, touch, keyboard 1 2 3 / Q W E / A S D "
                                   "/ Z X C), the sound through Web Audio, a timeline, the "
                                   "events and the session's story. The clean-room game by "
                                   "default; the emulator with --firmware demo, --rom or "
                                   "--romset; a recording with --replay DIR (scrub its "
                                   "timeline); a real tower through the rig with --target real "
                                   "--port PORT. The page works offline.")
    p.add_argument("--target", choices=("cleanroom", "emu", "replay", "real", "sim"),
                   help="the tower to show (default: cleanroom, or what the options imply)")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--firmware", choices=["demo"], help="emu: the open demo firmware")
    src.add_argument("--rom", help="emu: a raw ROM image")
    src.add_argument("--romset", help="emu: a MAME romset zip or folder")
    p.add_argument("--replay", metavar="DIR",
                   help="a recording to replay: a rig recording, a capture folder or a corpus "
                        "session (script.txt and events.jsonl)")
    p.add_argument("--seed", type=int, default=None,
                   help="cleanroom: the game's random seed (default: a new one each time)")
    p.add_argument("--port", help="real: the button box's serial port, e.g. /dev/ttyACM0")
    p.add_argument("--analyser", default="fx2lafw",
                   help="real: fx2lafw (pyusb driver) or sigrok:DRIVER[:opts]")
    p.add_argument("--channel-map", default=None,
                   help="real: probe -> tower pin map file (default: the rig's)")
    p.add_argument("--listen", default=DEFAULT_LISTEN, metavar="HOST:PORT",
                   help=f"where the page is served (default {DEFAULT_LISTEN}; port 0: any "
                        f"free port)")
    p.add_argument("--pace", choices=("wall", "manual"), default="wall",
                   help="wall: tower time runs with the clock (default); manual: it moves "
                        "only when the page or a script sends 'advance' (for tests)")
    p.set_defaults(func=cmd_serve)
