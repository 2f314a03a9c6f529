"""Subcommands of the emulator area: ``run``, ``play`` and ``demo`` (registered by towerlab.cli).

Each is a small function over ``rig.targets.EmulatorTower`` and ``rig.play``.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import IO

__all__ = ["register", "cmd_run", "cmd_play", "cmd_demo", "DEMO_SESSION"]

DEMO_SESSION = (Path(__file__).resolve().parent.parent / "emulator" / "firmware"
                / "demo_session.txt")


def register(sub) -> None:
    """Add this area's subcommands to the towerlab parser."""
    p = sub.add_parser("run", help="run a ROM (or the demo firmware) on a board model",
                       description="Run the emulator on the Dark Tower or Labyrinth board for "
                                   "a fixed time, optionally replaying a button script; write "
                                   "the events, a sigrok capture and the sound. Deterministic.")
    _source_args(p, required=True)
    p.add_argument("--board", default="darktower", help="darktower (default) or labyrinth")
    p.add_argument("--clock", type=float, help="oscillator clock in Hz (default: MAME's)")
    p.add_argument("--script", nargs="+", help="button script(s) (<time_s> <BUTTON> <hold_s> "
                                               "lines); several scripts make a batch run")
    p.add_argument("--seconds", type=float, required=True, help="tower time to run, seconds")
    p.add_argument("--core", choices=["fast", "reference"], default="fast",
                   help="fast: the compiled kernel where built (default); reference: the "
                        "plain-Python core. Results are identical.")
    p.add_argument("--jobs", type=int, default=1,
                   help="batch runs: scripts run in parallel on this many processes")
    p.add_argument("--out", help="batch runs: folder for <script>.events.jsonl files")
    p.add_argument("--events", help="write the events here (JSON lines)")
    p.add_argument("--sr", help="write the pins here as a sigrok .sr capture")
    p.add_argument("--wav", help="write the speaker here as a WAV file")
    p.add_argument("--quiet", action="store_true", help="do not print the timeline")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("play", help="play a tower in the terminal",
                       description="Two 7-segment digits, the three windows, the reel and the "
                                   "keypad on keyboard keys (1 2 3 / Q W E / A S D / Z X C); "
                                   "live sound where an audio device exists.")
    _source_args(p, required=False)
    p.add_argument("--cleanroom", action="store_true", help="play the clean-room game")
    p.add_argument("--board", default="darktower", help="darktower (default) or labyrinth")
    p.add_argument("--wav", help="record the sound to this WAV file")
    p.add_argument("--seconds", type=float, help="stop after this much tower time")
    p.add_argument("--silent", action="store_true", help="no live sound")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("demo", help="show the demo firmware's tower test and level selection",
                       description="Run the open demo firmware through a scripted session "
                                   "(tower test, level and player selection), print its "
                                   "timeline and write events.jsonl, capture.sr and demo.wav.")
    p.add_argument("--out", default="out/demo", help="output folder (default: out/demo)")
    p.set_defaults(func=cmd_demo)


def _source_args(p: argparse.ArgumentParser, required: bool) -> None:
    src = p.add_mutually_exclusive_group(required=required)
    src.add_argument("--romset", help="MAME romset zip or folder (ROM + PLA files)")
    src.add_argument("--rom", help="raw ROM image")
    src.add_argument("--firmware", choices=["demo"], help="the open demo firmware")
    p.add_argument("--mpla", help="micro-instruction PLA file (default: the set's, else the "
                                  "TI standard decode)")
    p.add_argument("--opla", help="output PLA file (default: the set's, else the Dark Tower "
                                  "glyph table)")


def _tower(args: argparse.Namespace):
    from rig.targets import EmulatorTower

    clock = getattr(args, "clock", None)
    if clock is not None and not clock > 0:
        raise ValueError(f"--clock {clock!r} must be a positive number of Hz")
    return EmulatorTower(firmware=args.firmware, rom=args.rom, romset=args.romset,
                         mpla=args.mpla, opla=args.opla, board=args.board,
                         clock_hz=int(clock) if clock else None,
                         core=getattr(args, "core", "fast"))


def _atomic(path: str, write, binary: bool = False) -> None:
    """Write ``path`` through a temporary file, so a failure leaves nothing half-written."""
    tmp = f"{path}.part"
    try:
        with open(tmp, "wb" if binary else "w", encoding=None if binary else "utf-8") as f:
            write(f)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _write_outputs(tower, events: list[dict], events_path: str | None, sr_path: str | None,
                   wav_path: str | None) -> None:
    from captures.events import write_events

    for path in (events_path, sr_path, wav_path):
        if path and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            raise ValueError(f"{path}: folder does not exist")
    if sr_path and not sr_path.endswith(".sr"):
        raise ValueError(f"{sr_path}: a sigrok capture must end in .sr")
    if events_path:
        _atomic(events_path, lambda f: write_events(events, f))
    if sr_path:
        from captures.formats import write_capture

        write_capture(tower.capture(), sr_path)
    if wav_path:
        from analysis.sound import write_wav

        _atomic(wav_path, lambda f: write_wav(tower.speaker_capture(), f), binary=True)


def cmd_run(args: argparse.Namespace, out: IO[str]) -> int:
    """Run the emulator for ``--seconds`` with an optional script; print and write events.

    With several scripts (a batch), each runs in its own tower on ``--jobs`` processes and
    writes ``<out>/<script name>.events.jsonl``; a progress bar shows on a terminal.
    """
    from captures.script import Script, read_script
    from captures.tower import run_script
    from rig.play import timeline_lines

    if not args.seconds > 0 or args.seconds == float("inf"):
        raise ValueError(f"--seconds {args.seconds!r} must be a finite number of seconds > 0")
    if args.jobs < 1:
        raise ValueError(f"--jobs {args.jobs} must be 1 or more processes")
    scripts = args.script or []
    if len(scripts) > 1:
        return _run_batch(args, scripts, out)
    if args.out:
        raise ValueError("--out is for batch runs (several --script files); use --events, "
                         "--sr, --wav for one run")
    from emulator.boards import board_keys

    script = (read_script(scripts[0], board_keys(args.board)) if scripts
              else Script(name="(no script)"))
    tower = _tower(args)
    for note in tower.notes:
        if note.startswith("warning"):
            print(f"towerlab: {note}", file=sys.stderr)
    events = run_script(tower, script, until=args.seconds)
    tower.close()
    _write_outputs(tower, events, args.events, args.sr, args.wav)
    if not args.quiet:
        for line in timeline_lines(events):
            print(line, file=out)
    print(f"ran {tower.source} on the {tower.board_name} board for {args.seconds:g} s: "
          f"{len(events)} events", file=out)
    return 0


def _batch_one(job: tuple) -> tuple[str, int, str]:
    """Run one script of a batch in a worker process; return (script, events, output path)."""
    from captures.events import write_events
    from captures.script import read_script
    from captures.tower import run_script

    fields, script_path, out_dir = job
    args = argparse.Namespace(**fields)
    tower = _tower(args)
    from emulator.boards import board_keys

    events = run_script(tower, read_script(script_path, board_keys(args.board)),
                        until=args.seconds)
    tower.close()
    name = Path(script_path).name
    stem = name[:-4] if name.endswith(".txt") else name
    if Path(script_path).parent.name and stem == "script":
        stem = Path(script_path).parent.name       # folder/script.txt -> folder
    path = os.path.join(out_dir, f"{stem}.events.jsonl")
    _atomic(path, lambda f: write_events(events, f))
    return script_path, len(events), path


def _run_batch(args: argparse.Namespace, scripts: list[str], out: IO[str]) -> int:
    """Run many scripts, ``--jobs`` at a time, writing one events file per script."""
    from concurrent.futures import ProcessPoolExecutor

    from captures.script import read_script

    if args.events or args.sr or args.wav:
        raise ValueError("a batch run (several --script files) writes <out>/<script>."
                         "events.jsonl; --events, --sr and --wav are for one run")
    if not args.out:
        raise ValueError("a batch run (several --script files) needs --out FOLDER")
    os.makedirs(args.out, exist_ok=True)
    from emulator.boards import board_keys

    for path in scripts:                    # bad scripts fail before any work starts
        read_script(path, board_keys(args.board))
    fields = {k: getattr(args, k) for k in ("firmware", "rom", "romset", "mpla", "opla",
                                             "board", "clock", "seconds", "core")}
    _tower(argparse.Namespace(**fields)).close()   # bad sources fail once, up front
    jobs = [(fields, path, args.out) for path in scripts]
    results = []
    progress = None
    if sys.stderr.isatty():
        from rich.console import Console
        from rich.progress import Progress
        progress = Progress(console=Console(stderr=True), transient=True)
    with ProcessPoolExecutor(max_workers=min(args.jobs, len(jobs))) as pool:
        if progress is not None:
            with progress:
                task = progress.add_task(f"running {len(jobs)} scripts", total=len(jobs))
                for res in pool.map(_batch_one, jobs):
                    results.append(res)
                    progress.advance(task)
        else:
            results = list(pool.map(_batch_one, jobs))
    for path, count, written in results:
        print(f"{path}: {count} events -> {written}", file=out)
    print(f"ran {len(results)} scripts for {args.seconds:g} s each on {args.jobs} "
          f"process{'es' if args.jobs > 1 else ''}", file=out)
    return 0


def cmd_play(args: argparse.Namespace, out: IO[str]) -> int:
    """Play a tower (the emulator, or the clean-room game) in the terminal."""
    from rig.play import play

    if args.cleanroom:
        if args.rom or args.romset or args.firmware:
            raise ValueError("--cleanroom plays the clean-room game: give no ROM or firmware")
        try:
            from cleanroom.tower import CleanroomTower
        except ImportError:
            raise ValueError("the clean-room game is not available in this checkout") from None
        tower, title = CleanroomTower(), "clean-room game"
    else:
        tower = _tower(args)
        title = f"{tower.board_name}, {tower.source}"
    return play(tower, title=title, wav=args.wav, seconds=args.seconds,
                live_sound=not args.silent)


def cmd_demo(args: argparse.Namespace, out: IO[str]) -> int:
    """Run the demo firmware through the demo session; print the timeline, write the files."""
    from captures.script import read_script
    from captures.tower import run_script
    from rig.play import timeline_lines
    from rig.targets import EmulatorTower

    folder = Path(args.out)
    folder.mkdir(parents=True, exist_ok=True)
    script = read_script(str(DEMO_SESSION))
    tower = EmulatorTower(firmware="demo")
    print(f"TowerLab demo: the open demo firmware on the Dark Tower board, "
          f"{script.end_time():g} s scripted ({DEMO_SESSION.name})", file=out)
    events = run_script(tower, script)
    tower.close()
    _write_outputs(tower, events, str(folder / "events.jsonl"), str(folder / "capture.sr"),
                   str(folder / "demo.wav"))
    _atomic(str(folder / "script.txt"), lambda f: f.write(DEMO_SESSION.read_text()))
    for line in timeline_lines(events):
        print(line, file=out)
    print(f"wrote {folder}/events.jsonl ({len(events)} events), {folder}/capture.sr, "
          f"{folder}/demo.wav", file=out)
    return 0
