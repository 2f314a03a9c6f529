"""Subcommands of the emulator area: ``run``, ``play`` and ``demo`` (registered by towerlab.cli).

Each is a small function over ``rig.towers.emulated.EmulatorTower`` and ``rig.play``.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import IO

from captures.files import atomic_write, check_not_an_input, check_output_path
from rig.progress import progress_line, shows_progress

__all__ = ["register", "cmd_run", "cmd_play", "cmd_demo", "DEMO_SESSION"]

DEMO_SESSION = (Path(__file__).resolve().parent.parent / "emulator" / "firmware"
                / "demo_session.txt")


# --clock bounds, Hz: wide around MAME's 425 kHz (docs/dark-tower-wiring.md §9: real RC
# oscillators spread about 50 kHz), narrow enough that a run ends and shows something.
# Single runs at least this long (tower seconds, a few wall seconds) show a progress bar.
_PROGRESS_SECONDS = 600.0
_CLOCK_MIN_HZ = 10_000
_CLOCK_MAX_HZ = 10_000_000


_BOARD_HELP = ("darktower or labyrinth (default: the board that carries the ROM's chip: "
               "a TMS1100 set runs on the labyrinth, else darktower)")


def register(sub) -> None:
    """Add this area's subcommands to the towerlab parser."""
    from towerlab.options import add_output

    p = sub.add_parser("run", help="run a ROM (or the demo firmware) on a board model",
                       description="Run the emulator on the Dark Tower or Labyrinth board for "
                                   "a fixed time, optionally replaying a button script; write "
                                   "the events, a sigrok capture and the sound. Deterministic.")
    _source_args(p, required=True)
    p.add_argument("--board", help=_BOARD_HELP)
    p.add_argument("--clock", type=float, help="oscillator clock in Hz (default: MAME's)")
    p.add_argument("--script", nargs="+", help="button script(s) (<time_s> <BUTTON> <hold_s> "
                                               "lines); several scripts make a batch run")
    p.add_argument("--seconds", type=float, required=True, help="tower time to run, seconds")
    p.add_argument("--core", choices=["fast", "reference"], default="fast",
                   help="fast: the compiled kernel where built (default); reference: the "
                        "plain-Python core. Results are identical.")
    p.add_argument("--jobs", type=int, default=1,
                   help="batch runs: scripts run in parallel on this many processes")
    add_output(p, metavar="DIR", help="batch runs: folder for <script>.events.jsonl files")
    p.add_argument("--scheduler", help="batch runs: run on the Dask cluster at "
                                       "tcp://HOST:PORT (ROM paths must be readable there)")
    p.add_argument("--events", help="write the events here (JSON lines)")
    p.add_argument("--sr", help="write the pins here as a sigrok .sr capture")
    p.add_argument("--wav", help="write the speaker here as a WAV file")
    p.add_argument("--quiet", action="store_true",
                   help="do not print the timeline, and no progress line on a terminal")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("play", help="play a tower in the terminal",
                       description="Two 7-segment digits, the three windows, the reel and the "
                                   "keypad on keyboard keys (1 2 3 / Q W E / A S D / Z X C); "
                                   "live sound where an audio device exists.")
    _source_args(p, required=False)
    p.add_argument("--cleanroom", action="store_true", help="play the clean-room game")
    p.add_argument("--board", help=_BOARD_HELP)
    p.add_argument("--wav", help="record the sound to this WAV file")
    p.add_argument("--seconds", type=float, help="stop after this much tower time")
    p.add_argument("--silent", action="store_true", help="no live sound")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("demo", help="show the demo firmware's tower test and level selection",
                       description="Run the open demo firmware through a scripted session "
                                   "(tower test, level and player selection), print its "
                                   "timeline and write events.jsonl, capture.sr, demo.wav and "
                                   "script.txt.")
    add_output(p, metavar="DIR", default="out/demo", help="output folder (default: out/demo)")
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


def _resolve_board(args: argparse.Namespace) -> None:
    """Set ``args.board`` when it was not given: the board carrying the ROM's chip (a
    TMS1100 set such as mdndclab.zip is the Labyrinth), else the Dark Tower."""
    if args.board is not None:
        return
    args.board = "darktower"
    path = args.rom or args.romset
    if path and not getattr(args, "cleanroom", False):
        from emulator.boards import board_for_chip
        from emulator.romset import load_romset

        args.board = board_for_chip(load_romset(path).chip) or "darktower"


def _tower(args: argparse.Namespace):
    from captures.darktower_facts import NOMINAL_CLOCK_HZ
    from rig.towers.emulated import EmulatorTower

    clock = getattr(args, "clock", None)
    if clock is not None and not _CLOCK_MIN_HZ <= clock <= _CLOCK_MAX_HZ:
        raise ValueError(f"--clock {clock!r} out of range {_CLOCK_MIN_HZ}-{_CLOCK_MAX_HZ} Hz "
                         f"(MAME runs the tower at {NOMINAL_CLOCK_HZ}; real RC oscillators stay within "
                         f"about 50 kHz of it)")
    return EmulatorTower(firmware=args.firmware, rom=args.rom, romset=args.romset,
                         mpla=args.mpla, opla=args.opla, board=args.board,
                         clock_hz=int(clock) if clock else None,
                         core=getattr(args, "core", "fast"))


def _check_outputs(events_path: str | None, sr_path: str | None,
                   wav_path: str | None, inputs: tuple = ()) -> None:
    """Refuse unusable output names before any work is done (one line naming the file):
    folders, missing folders, one file for two outputs, an output that is one of ``inputs``."""
    for path in (events_path, sr_path, wav_path):
        if path is not None:
            check_output_path(path)
            check_not_an_input(path, *inputs)
    if sr_path is not None and not sr_path.endswith(".sr"):
        raise ValueError(f"{sr_path}: a sigrok capture must end in .sr")
    seen: dict[str, str] = {}
    for option, path in (("--events", events_path), ("--sr", sr_path), ("--wav", wav_path)):
        if path is None or (os.path.exists(path) and not os.path.isfile(path)):
            continue                        # /dev/null may take every output
        real = os.path.realpath(path)
        if real in seen:
            raise ValueError(f"{path}: given to both {seen[real]} and {option} "
                             f"(expected a file for each)")
        seen[real] = option


def _write_outputs(tower, events: list[dict], events_path: str | None, sr_path: str | None,
                   wav_path: str | None) -> None:
    from captures.events import write_events

    _check_outputs(events_path, sr_path, wav_path)
    if events_path is not None:
        atomic_write(events_path, lambda f: write_events(events, f), binary=False)
    if sr_path is not None:
        from captures.formats import write_capture

        write_capture(tower.capture(), sr_path)
    if wav_path is not None:
        from analysis.sound import write_wav

        atomic_write(wav_path, lambda f: write_wav(tower.speaker_capture(), f), binary=True)


def cmd_run(args: argparse.Namespace, out: IO[str]) -> int:
    """Run the emulator for ``--seconds`` with an optional script; print and write events.

    With several scripts (a batch), each runs in its own tower on ``--jobs`` processes and
    writes ``<out>/<script name>.events.jsonl``; a progress bar shows on a terminal.
    """
    from captures.script import Script, read_script, timeline
    from captures.tower import run_script
    from rig.play import timeline_lines

    if not args.seconds > 0 or args.seconds == float("inf"):
        raise ValueError(f"--seconds {args.seconds!r} must be a finite number of seconds > 0")
    if args.jobs < 1:
        raise ValueError(f"--jobs {args.jobs} must be 1 or more processes")
    _resolve_board(args)
    scripts = args.script or []
    if len(scripts) > 1:
        return _run_batch(args, scripts, out)
    if args.out:
        raise ValueError("--out is for batch runs (several --script files); use --events, "
                         "--sr, --wav for one run")
    if args.scheduler:
        raise ValueError("--scheduler is for batch runs (several --script files)")
    from emulator.boards import board_keys

    _check_outputs(args.events, args.sr, args.wav,
                   (*scripts, args.rom, args.romset, args.mpla, args.opla))
    script = (read_script(scripts[0], board_keys(args.board)) if scripts
              else Script(name="(no script)"))
    late = [t for t, _, _ in timeline(script) if t > args.seconds]
    if late:
        print(f"towerlab: note: {scripts[0]} has {len(late)} action(s) after --seconds "
              f"{args.seconds:g} (from {late[0]:g} s); they do not run", file=sys.stderr)
    tower = _tower(args)
    if args.romset or args.rom:             # say which set was recognised, as trace does
        print(f"towerlab: {tower.summary}", file=sys.stderr)
        for note in tower.notes:
            print(f"towerlab: {note}", file=sys.stderr)
    if args.seconds >= _PROGRESS_SECONDS and shows_progress(quiet=args.quiet):
        events = _run_with_progress(tower, script, args.seconds)
    else:
        events = run_script(tower, script, until=args.seconds)
    tower.close()
    _write_outputs(tower, events, args.events, args.sr, args.wav)
    if not args.quiet:
        for line in timeline_lines(events):
            print(line, file=out)
    print(f"ran {tower.source} on the {tower.board_name} board for {args.seconds:g} s: "
          f"{len(events)} events", file=out)
    return 0


class _Paced:
    """A tower whose ``advance`` goes in steps of ``step_s`` tower seconds, calling
    ``tick(now)`` after each (for a progress bar); everything else is the tower's."""

    def __init__(self, tower, tick, step_s: float = 5.0) -> None:
        self._tower, self._tick, self._step = tower, tick, step_s

    def __getattr__(self, name: str):
        return getattr(self._tower, name)

    def advance(self, seconds: float) -> None:
        """Advance the tower by ``seconds``, in steps."""
        end = self._tower.now + seconds
        while end - self._tower.now > self._step:
            self._tower.advance(self._step)
            self._tick(self._tower.now)
        self._tower.advance(max(0.0, end - self._tower.now))
        self._tick(self._tower.now)


def _run_with_progress(tower, script, seconds: float) -> list[dict]:
    """Run ``script`` for ``seconds`` with a progress line (tower seconds) on stderr."""
    from captures.tower import run_script

    with progress_line("running", total=seconds) as line:
        return run_script(_Paced(tower, line.update), script, until=seconds)


def _batch_output(script_path: str, out_dir: str) -> str:
    """Return the events file of one batch script: ``<out>/<name>.events.jsonl``, where a
    ``folder/script.txt`` (the shared capture layout) is named after its folder."""
    name = Path(script_path).name
    stem = name[:-4] if name.endswith(".txt") else name
    if Path(script_path).parent.name and stem == "script":
        stem = Path(script_path).parent.name       # folder/script.txt -> folder
    return os.path.join(out_dir, f"{stem}.events.jsonl")


def _run_batch(args: argparse.Namespace, scripts: list[str], out: IO[str]) -> int:
    """Run many scripts, ``--jobs`` at a time on local processes or on the Dask cluster at
    ``--scheduler`` (rig.batch), writing one events file per script as each finishes."""
    from captures.script import read_script
    from rig.batch import emulator_script_job, run_jobs

    if args.events or args.sr or args.wav:
        raise ValueError("a batch run (several --script files) writes <out>/<script>."
                         "events.jsonl; --events, --sr and --wav are for one run")
    if not args.out:
        raise ValueError("a batch run (several --script files) needs --out FOLDER")
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        raise ValueError(f"{args.out}: not a folder (--out takes the folder for the "
                         f"<script>.events.jsonl files)")
    from emulator.boards import board_keys

    texts = {}
    for path in scripts:                    # bad scripts fail before any work starts
        read_script(path, board_keys(args.board))
        texts[path] = Path(path).read_text(encoding="utf-8")
    outputs: dict[str, str] = {}
    for path in scripts:
        written = _batch_output(path, args.out)
        if written in outputs:
            raise ValueError(f"{path}: would write {written} like {outputs[written]} "
                             f"(expected scripts with different names)")
        outputs[written] = path
    tower = _tower(args)                     # bad sources fail once, up front
    tower.close()
    clock = getattr(args, "clock", None)
    source = {"firmware": args.firmware, "rom": args.rom, "romset": args.romset,
              "mpla": args.mpla, "opla": args.opla, "board": args.board,
              "clock_hz": int(clock) if clock else None, "core": args.core}
    created = not os.path.isdir(args.out)
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"{args.out}: cannot make the folder ({exc.strerror or exc})") \
            from None
    order = list(outputs.items())
    jobs = [(source, texts[path], path, args.seconds) for _, path in order]

    def write(i: int, result: tuple[str, int, str]) -> None:
        """Write one finished script's events file (atomically)."""
        text = result[2]
        atomic_write(order[i][0], lambda f: f.write(text), binary=False)

    try:
        results = run_jobs(emulator_script_job, jobs, workers=args.jobs,
                           scheduler=args.scheduler, on_result=write,
                           progress=not args.quiet, label="run")
    except BaseException:
        if created and not os.listdir(args.out):    # leave no empty folder behind
            os.rmdir(args.out)
        raise
    for (written, path), (_, count, _) in zip(order, results):
        print(f"{path}: {count} events -> {written}", file=out)
    workers = min(args.jobs, len(jobs))
    where = (f"on the Dask cluster at {args.scheduler}" if args.scheduler else
             f"on {workers} process{'es' if workers > 1 else ''}")
    print(f"ran {len(results)} scripts for {args.seconds:g} s each {where}", file=out)
    return 0


def cmd_play(args: argparse.Namespace, out: IO[str]) -> int:
    """Play a tower (the emulator, or the clean-room game) in the terminal."""
    from rig.play import play

    if args.wav is not None:

        check_output_path(args.wav)
    _resolve_board(args)
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
    status = play(tower, title=title, wav=args.wav, seconds=args.seconds,
                  live_sound=not args.silent)
    if args.wav is not None:
        print(f"wrote {args.wav} ({tower.now:.1f} s of sound)", file=out)
    return status


def cmd_demo(args: argparse.Namespace, out: IO[str]) -> int:
    """Run the demo firmware through the demo session; print the timeline, write the files."""
    from captures.script import read_script
    from captures.tower import run_script
    from rig.play import timeline_lines
    from rig.towers.emulated import EmulatorTower

    if not args.out:
        raise ValueError("--out: folder name is empty (expected a folder)")
    folder = Path(args.out)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{args.out}: not a folder (--out takes the folder for the demo's "
                         f"files)")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"{args.out}: cannot make the folder ({exc.strerror or exc})") \
            from None
    script = read_script(str(DEMO_SESSION))
    tower = EmulatorTower(firmware="demo")
    print(f"TowerLab demo: the open demo firmware on the Dark Tower board, "
          f"{script.end_time():g} s scripted ({DEMO_SESSION.name})", file=out)
    events = run_script(tower, script)
    tower.close()
    _write_outputs(tower, events, str(folder / "events.jsonl"), str(folder / "capture.sr"),
                   str(folder / "demo.wav"))
    atomic_write(str(folder / "script.txt"), lambda f: f.write(DEMO_SESSION.read_text()),
                 binary=False)
    for line in timeline_lines(events):
        print(line, file=out)
    print(f"wrote {folder}/events.jsonl ({len(events)} events), {folder}/capture.sr, "
          f"{folder}/demo.wav and {folder}/script.txt (the session, for rig and conform)",
          file=out)
    return 0
