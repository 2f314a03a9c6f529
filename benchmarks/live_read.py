"""Time reading a tower's events while it runs against reading them once, per tower and length.

The towers: the Dark Tower board on the open demo firmware (its demo session, then a key
every 5 s), the D&D Labyrinth board on a small tone program (benchmarks/labyrinth_tones.asm:
bursts of tones about once a second, a square pressed every 3 s), the clean-room game (a key
every 5 s) and a replayed recording (the Dark Tower session above, recorded first). For each
session length (default 100 s and 1000 s) the same session is driven three ways in this
process:

- live:  ``advance`` in 0.05 s steps (keys pressed and released at their times), and
  ``events()`` after every step, as ``towerlab play``, explore and a live check read;
- once:  the same steps, ``events()`` once at the end;
- whole: ``captures.tower.run_script`` (one advance between actions) and one read.

Each is timed best of ``--repeat`` in CPU seconds of this process (the whole drive; other
jobs on a shared machine disturb CPU time much less than wall time), and the last read of
every way must give the same events. Prints the seconds, the events and the ratios live/once
and live/whole; target: live/once at most 3 at every length.

    .venv/bin/python benchmarks/live_read.py [--seconds 100 1000] [--repeat 3]
        [--towers darktower labyrinth cleanroom replay]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from captures.script import Press, Script, read_script, timeline  # noqa: E402

STEP_S = 0.05
TARGET = 3.0
TOWERS = ("darktower", "labyrinth", "cleanroom", "replay")
LABYRINTH_ASM = ROOT / "benchmarks" / "labyrinth_tones.asm"
DEMO_SESSION = ROOT / "emulator" / "firmware" / "demo_session.txt"


def darktower_script(seconds: float) -> Script:
    """Return the demo session, then one key every 5 s (the twelve in turn) up to ``seconds``."""
    from captures.script import BUTTONS

    demo = read_script(str(DEMO_SESSION))
    actions = list(demo.actions)
    t, k = demo.end_time() + 4.0, 0
    while t + 1.0 < seconds:
        actions.append(Press(round(t, 6), BUTTONS[k % len(BUTTONS)], 0.2))
        t, k = t + 5.0, k + 1
    return Script(actions, seconds, "darktower")


def labyrinth_script(seconds: float) -> Script:
    """Return square A1 held 0.5 s every 3 s up to ``seconds``."""
    return Script([Press(float(t), "A1", 0.5) for t in range(1, int(seconds) - 1, 3)],
                  seconds, "labyrinth")


class Towers:
    """Makes a fresh tower of each kind (files it needs live in ``tmp``)."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self._rom: Path | None = None

    def make(self, kind: str, seconds: float):
        """Return ``(fresh tower, its session script)``."""
        from rig.towers.emulated import EmulatorTower, ReplayTower

        if kind == "darktower":
            return EmulatorTower(), darktower_script(seconds)
        if kind == "labyrinth":
            return EmulatorTower(rom=str(self._labyrinth_rom()), opla=str(self.tmp / "o.pla"),
                                 board="labyrinth"), labyrinth_script(seconds)
        if kind == "cleanroom":
            from cleanroom.tower import CleanroomTower
            script = darktower_script(seconds)
            return CleanroomTower(seed=1), script
        if kind == "replay":
            folder = self._recording(seconds)
            return ReplayTower(folder), read_script(str(folder / "script.txt"))
        raise ValueError(f"unknown tower {kind!r} (expected one of {', '.join(TOWERS)})")

    def _labyrinth_rom(self) -> Path:
        if self._rom is None:
            from emulator.asm import assemble
            from emulator.chips import TMS1100
            from emulator.decode import ident_output_pla
            from emulator.pla import write_pla

            program = assemble(LABYRINTH_ASM.read_text(encoding="utf-8"), TMS1100,
                               str(LABYRINTH_ASM))
            self._rom = self.tmp / "m34012"
            self._rom.write_bytes(bytes(program.rom))
            with open(self.tmp / "o.pla", "w") as f:
                write_pla(ident_output_pla(TMS1100), f)
        return self._rom

    def _recording(self, seconds: float) -> Path:
        """Record the Dark Tower session of ``seconds`` on the emulator (script + events)."""
        from captures.events import write_events
        from captures.script import write_script
        from captures.tower import run_script
        from rig.towers.emulated import EmulatorTower

        folder = self.tmp / f"recording_{seconds:g}"
        if not folder.exists():
            folder.mkdir()
            script = darktower_script(seconds)
            events = run_script(EmulatorTower(), script)
            with open(folder / "script.txt", "w", encoding="utf-8") as f:
                write_script(script, f)
            with open(folder / "events.jsonl", "w", encoding="utf-8") as f:
                write_events(events, f)
        return folder


def drive(tower, script: Script, step_s: float | None, read_every: bool) -> tuple[float, list]:
    """Play ``script`` on ``tower``: in ``step_s`` steps (None: run_script), reading the events
    after every step if ``read_every``; return (CPU seconds, the last read)."""
    from captures.tower import play_to, run_script

    t0 = time.process_time()
    if step_s is None:
        events = run_script(tower, script)
        return time.process_time() - t0, events
    end = script.end_time()
    actions = list(timeline(script))
    i, k = 0, 0
    while tower.now < end - 1e-9:
        k += 1
        i = play_to(tower, actions, i, min(end, k * step_s))
        if read_every:
            events = tower.events()
    events = tower.events()
    return time.process_time() - t0, events


def measure(towers: Towers, kind: str, seconds: float, repeat: int) -> dict:
    """Return the best CPU time of each way and the events, checking they agree."""
    ways = {"live": (STEP_S, True), "once": (STEP_S, False), "whole": (None, False)}
    best = dict.fromkeys(ways, float("inf"))
    results = {}
    for _ in range(repeat):
        for way, (step, every) in ways.items():
            tower, script = towers.make(kind, seconds)
            wall, events = drive(tower, script, step, every)
            best[way] = min(best[way], wall)
            results[way] = events
    if not results["live"] == results["once"] == results["whole"]:
        raise SystemExit(f"live_read: {kind} at {seconds:g} s: the three ways read different "
                         f"events ({len(results['live'])}, {len(results['once'])}, "
                         f"{len(results['whole'])})")
    return {**best, "events": len(results["live"])}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, nargs="+", default=[100.0, 1000.0],
                    help="session lengths (s)")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs of each way (best counts)")
    ap.add_argument("--towers", nargs="+", default=list(TOWERS), choices=TOWERS)
    args = ap.parse_args(argv)
    if args.repeat < 1 or any(not s >= 2 for s in args.seconds):
        print("live_read: --repeat must be >= 1 and every --seconds >= 2", file=sys.stderr)
        return 2
    load = os.getloadavg()
    print(f"events() after every {STEP_S:g} s step (live) against once at the end (once) and "
          f"one advance per action (whole); CPU s, best of {args.repeat}; {os.cpu_count()} cores, "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"{'tower':<10} {'session':>8} {'events':>7} {'live s':>8} {'once s':>8} "
          f"{'whole s':>8} {'live/once':>10} {'live/whole':>11}")
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        towers = Towers(Path(tmp))
        for kind in args.towers:
            for seconds in args.seconds:
                r = measure(towers, kind, seconds, args.repeat)
                ratio, whole = r["live"] / r["once"], r["live"] / r["whole"]
                worst = max(worst, ratio)
                print(f"{kind:<10} {seconds:>7g}s {r['events']:>7} {r['live']:>8.3f} "
                      f"{r['once']:>8.3f} {r['whole']:>8.3f} {ratio:>10.2f} {whole:>11.2f}",
                      flush=True)
    met = worst <= TARGET
    print(f"worst live/once {worst:.2f}; target at most {TARGET:g}: {'met' if met else 'NOT met'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
