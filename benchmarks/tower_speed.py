"""Time a scripted Dark Tower session, whole process, on our accelerated core and on MAME 0.251.

One job, the same image and PLAs on both sides (the open demo firmware, or ``--rom`` /
``--romset`` for a user's image), N emulated seconds (default 600):

- ours: ``python -m towerlab run --firmware demo --script emulator/firmware/demo_session.txt
  --seconds N --events OUT --quiet`` as a separate process, wall time from launch to exit:
  interpreter start-up, imports, decode, the chip and the board model (reel, PWM sensor, key
  matrix, pin recording), the event decoders and writing the events. The sources are
  byte-compiled once beforehand into a scratch cache (``PYTHONPYCACHEPREFIX``), as an installed
  package has them; best of ``--repeat`` runs (default 5), all of which must write the same
  events; also its CPU time (user + system), which other jobs on a shared machine disturb less
  than the wall time;
- MAME 0.251's mbdtower driver with the same image and PLAs (``-video none -sound none
  -nothrottle -seconds_to_run N``, no debugger, no Lua, so no keys: MAME's cost barely depends
  on what the firmware does), wall time from launch to exit, best of two
  (``emulator.mame.MameOracle.speed``), and the CPU time of one more such run;
- then one run of the same session inside this process, timed by phase, to say where our time
  goes; and, with ``--reference S``, the plain-Python reference core for S emulated seconds.

Prints emulated seconds per wall second for each, the ratio (target: ours >= 10x MAME), the
machine's core count and load average.

    .venv/bin/python benchmarks/tower_speed.py [--seconds 600] [--repeat 5]
        [--rom mp7332 | --romset mbdtower.zip] [--no-mame] [--reference 30]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.processes import cached_env, time_process  # noqa: E402

SESSION = ROOT / "emulator" / "firmware" / "demo_session.txt"
TARGET = 10.0


def mame_cpu(oracle, rom: bytes, mpla_text: str, opla_text: str, seconds: int) -> float:
    """Return the CPU seconds (user + system) of one MAME run of ``seconds``, whole process
    (the same command line as ``MameOracle.speed``)."""
    with oracle._scratch() as tmp:
        work = Path(tmp)
        romdir = oracle._romset(work, rom, mpla_text, opla_text)
        return time_process(oracle._command(work, romdir, None, seconds, debug=False), None,
                            cwd=work)[1]


def phases(seconds: int, source: dict) -> tuple[dict, int, int]:
    """Run the session once in this process; return wall seconds per phase, the instructions
    executed and those the kernel's wait-loop fast-forward skipped."""
    t = {}
    t0 = time.perf_counter()
    from captures.events import write_events
    from captures.script import read_script
    from captures.tower import run_script
    from rig.towers.emulated import EmulatorTower
    t["imports"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    tower = EmulatorTower(core="fast", **source)
    script = read_script(str(SESSION))
    t["set-up"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    decode = tower.events
    tower.events = lambda: []             # run_script asks for the events at the end
    run_script(tower, script, until=seconds)
    t["chip + board"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    del tower.events
    events = decode()
    t["event decoders"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, open(Path(tmp) / "events.jsonl", "w") as f:
        write_events(events, f)
    t["write events"] = time.perf_counter() - t0
    steps = (tower.cpu.cycle - 5) // 6
    return t, steps, tower.cpu.fast_forwarded if tower.core == "fast" else 0


def reference_speed(seconds: int, source: dict) -> float:
    """Return the reference core's emulated seconds per wall second on the session."""
    from captures.script import read_script
    from captures.tower import run_script
    from rig.towers.emulated import EmulatorTower
    t0 = time.perf_counter()
    tower = EmulatorTower(core="reference", **source)
    run_script(tower, read_script(str(SESSION)), until=seconds)
    tower.events()
    return seconds / (time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=int, default=600, help="emulated seconds (whole number)")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs of ours (best counts)")
    ap.add_argument("--rom", help="a raw 4096-byte TMS1400 image (with the standard PLAs)")
    ap.add_argument("--romset", help="a MAME mbdtower romset (zip or folder)")
    ap.add_argument("--no-mame", action="store_true", help="time ours only")
    ap.add_argument("--reference", type=int, default=0, metavar="S",
                    help="also time the reference core for S emulated seconds")
    ap.add_argument("--phases", type=int, help=argparse.SUPPRESS)   # the phase-timing child
    args = ap.parse_args(argv)
    if args.phases:
        source = {"romset": args.romset} if args.romset else {"rom": args.rom} if args.rom \
            else {}
        print(json.dumps(phases(args.phases, source)))
        return 0
    if args.seconds < 2 or args.repeat < 1:
        print("tower_speed: --seconds must be a whole number >= 2 and --repeat >= 1",
              file=sys.stderr)
        return 2
    from emulator.darktower import glyph_output_pla
    from emulator.decode import standard_micro_pla
    from emulator.mame import MPLA_SIZE, OPLA_SIZE, MameError, MameOracle
    from emulator.pla import pla_text
    from emulator.boards import demo_program

    mpla, opla = standard_micro_pla(), glyph_output_pla()
    if args.romset:
        from emulator.romset import load_romset
        rs = load_romset(args.romset)
        rom, mpla, opla = rs.rom, rs.mpla or mpla, rs.opla or opla
        source, program, name = {"romset": args.romset}, ["--romset", args.romset], args.romset
    elif args.rom:
        rom = Path(args.rom).read_bytes()
        source, program, name = {"rom": args.rom}, ["--rom", args.rom], args.rom
    else:
        rom = bytes(demo_program().rom)
        source, program = {}, ["--firmware", "demo"]
        name = "open demo firmware (emulator/firmware/demo.asm)"
    load = os.getloadavg()
    print(f"Dark Tower board, {name}, script {SESSION.name}, {args.seconds} emulated s; "
          f"{os.cpu_count()} cores; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    cache = tempfile.TemporaryDirectory()
    env = cached_env(str(Path(cache.name) / "pycache"))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "events.jsonl"
        cmd = [sys.executable, "-m", "towerlab", "run", *program, "--script", str(SESSION),
               "--seconds", str(args.seconds), "--events", str(out), "--quiet"]
        time_process(cmd, env)                       # byte-compiles into the scratch cache
        first = out.read_bytes()
        interp = min(time_process([sys.executable, "-c", "pass"], env)[0] for _ in range(3))
        ours, ours_cpu = [], []
        for _ in range(args.repeat):
            wall, cpu = time_process(cmd, env)
            ours.append(wall)
            ours_cpu.append(cpu)
            if out.read_bytes() != first:
                print("tower_speed: the runs wrote different events", file=sys.stderr)
                return 1
    best = min(ours)
    mame = mame_cpu_s = None
    if not args.no_mame:
        oracle = MameOracle(timeout=900)
        texts = (pla_text(mpla, pad_to_bytes=MPLA_SIZE, term_count=30),
                 pla_text(opla, pad_to_bytes=OPLA_SIZE, term_count=32))
        try:
            mame = oracle.speed(rom, *texts, args.seconds)
            mame_cpu_s = mame_cpu(oracle, rom, *texts, args.seconds)
        except MameError as exc:
            print(f"tower_speed: MAME not timed: {exc}", file=sys.stderr)
    ratio = f"  {mame.wall_s / best:6.2f}x MAME" if mame else ""
    print(f"  ours (towerlab run, whole process)  {args.seconds / best:8.1f} emulated s per "
          f"wall s  (best {best:.3f} s of {args.repeat}: "
          f"{', '.join(f'{w:.3f}' for w in ours)}){ratio}")
    if mame:
        extra = f", MAME's own average {mame.reported:.1f}x" if mame.reported else ""
        print(f"  MAME 0.251 mbdtower, whole process  {args.seconds / mame.wall_s:8.1f} emulated "
              f"s per wall s  ({mame.wall_s:.3f} s, of which start-up {mame.startup_s:.3f} s"
              f"{extra})")
    child = subprocess.run([sys.executable, __file__, "--phases", str(args.seconds),
                            *(["--rom", args.rom] if args.rom else []),
                            *(["--romset", args.romset] if args.romset else [])],
                           cwd=ROOT, env=env, capture_output=True, text=True)
    if child.returncode != 0:
        print(f"tower_speed: phase run failed: {child.stderr.strip()[-300:]}", file=sys.stderr)
        return 1
    t, steps, skipped = json.loads(child.stdout)
    if mame_cpu_s:
        print(f"  CPU seconds (user + system), whole process: ours {min(ours_cpu):.3f} s "
              f"(best of {args.repeat}), MAME {mame_cpu_s:.3f} s: "
              f"{mame_cpu_s / min(ours_cpu):.2f}x")
    print(f"  ours by phase (one run in this process; interpreter start-up {interp:.3f} s): "
          + ", ".join(f"{k} {v:.3f} s" for k, v in t.items()))
    print(f"  kernel: {steps:,} instructions, {skipped:,} of them ({100 * skipped / steps:.1f} %) "
          f"fast-forwarded in wait loops")
    cache.cleanup()
    if args.reference:
        x = reference_speed(args.reference, source)
        print(f"  reference core, in process, {args.reference} s: {x:.1f} emulated s per wall s")
    if mame:
        verdict = "meets" if mame.wall_s / best >= TARGET else "misses"
        print(f"ours / MAME (whole process): {mame.wall_s / best:.2f}x; {verdict} the "
              f"{TARGET:.0f}x target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
