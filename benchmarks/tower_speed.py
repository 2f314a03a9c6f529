"""Time the Dark Tower board running a scripted session on both of our cores and MAME.

One job: the open demo firmware (or ``--rom``/``--romset`` for a user's image) on the Dark Tower
board for N emulated seconds (default 300) with the demo session script
(emulator/firmware/demo_session.txt: tower test, level and player choice, then the firmware
idles with its flashing display), on

- the accelerated core (``emulator.fastcore``, the compiled kernel; board work in quanta),
- the reference core (``emulator.core``, plain Python, every pin through callbacks),
- MAME 0.251's mbdtower driver with the same image and PLAs
  (``-video none -sound none -nothrottle -seconds_to_run N``, no debugger, no Lua, so no keys:
  MAME's cost barely depends on what the firmware does), wall time minus MAME's start-up.

Both of our runs include everything a user gets from ``towerlab run``: the board model (reel,
PWM sensor, key matrix, pin recording) and the decoded events. Prints emulated seconds per wall
second for each, and the ratios. Targets: accelerated >= 1.0x MAME; reference >= 30x real time.

    .venv/bin/python benchmarks/tower_speed.py [--seconds 300] [--rom mp7332 | --romset mbdtower.zip]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from captures.script import read_script  # noqa: E402
from captures.tower import run_script  # noqa: E402
from emulator.darktower import glyph_output_pla  # noqa: E402
from emulator.decode import standard_micro_pla  # noqa: E402
from emulator.mame import MPLA_SIZE, OPLA_SIZE, MameError, MameOracle  # noqa: E402
from emulator.pla import pla_text  # noqa: E402
from rig.towers.emulated import EmulatorTower, demo_program  # noqa: E402

SESSION = ROOT / "emulator" / "firmware" / "demo_session.txt"


def time_tower(core: str, seconds: int, source: dict) -> tuple[float, int, str]:
    """Return (wall s, events, core actually used) for one scripted run of ``seconds``."""
    t0 = time.perf_counter()
    tower = EmulatorTower(core=core, **source)
    run_script(tower, read_script(str(SESSION)), until=seconds)
    events = tower.events()
    return time.perf_counter() - t0, len(events), tower.core


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=int, default=300, help="emulated seconds (whole number)")
    ap.add_argument("--rom", help="a raw 4096-byte TMS1400 image (with the standard PLAs)")
    ap.add_argument("--romset", help="a MAME mbdtower romset (zip or folder)")
    ap.add_argument("--no-mame", action="store_true", help="time our cores only")
    args = ap.parse_args(argv)
    if args.seconds <= 0:
        print("tower_speed: --seconds must be a whole number > 0", file=sys.stderr)
        return 2
    source: dict = {}
    mpla, opla = standard_micro_pla(), glyph_output_pla()
    if args.romset:
        from emulator.romset import load_romset
        rs = load_romset(args.romset)
        rom, mpla, opla = rs.rom, rs.mpla or mpla, rs.opla or opla
        source = {"romset": args.romset}
        name = args.romset
    elif args.rom:
        rom = Path(args.rom).read_bytes()
        source = {"rom": args.rom}
        name = args.rom
    else:
        rom = bytes(demo_program().rom)
        name = "open demo firmware (emulator/firmware/demo.asm)"
    print(f"Dark Tower board, {name}, script {SESSION.name}, {args.seconds} emulated s; "
          f"{os.cpu_count()} cores")
    rows = []
    wall, n, used = time_tower("fast", args.seconds, source)
    rows.append((f"accelerated core ({used})", args.seconds / wall, wall, n))
    wall, n, used = time_tower("reference", args.seconds, source)
    rows.append(("reference core", args.seconds / wall, wall, n))
    mame_x = None
    if not args.no_mame:
        try:
            speed = MameOracle(timeout=900).speed(
                rom, pla_text(mpla, pad_to_bytes=MPLA_SIZE, term_count=30),
                pla_text(opla, pad_to_bytes=OPLA_SIZE, term_count=32), args.seconds)
        except MameError as exc:
            print(f"tower_speed: MAME not timed: {exc}", file=sys.stderr)
        else:
            mame_x = args.seconds / speed.run_s
            extra = f", MAME's own average {speed.reported:.1f}x" if speed.reported else ""
            rows.append(("MAME 0.251 mbdtower", mame_x, speed.run_s, None))
            print(f"MAME: {speed.wall_s:.2f} s wall incl. start-up {speed.startup_s:.2f} s{extra}")
    for label, x, wall, n in rows:
        ratio = f"{x / mame_x:6.2f}x MAME" if mame_x else ""
        events = f"{n} events" if n is not None else ""
        print(f"  {label:<32} {x:8.1f} emulated s per wall s  ({wall:6.2f} s)  {ratio}  {events}")
    fast_x, ref_x = rows[0][1], rows[1][1]
    print(f"accelerated / reference: {fast_x / ref_x:.1f}x; reference core "
          f"{'meets' if ref_x >= 30 else 'misses'} 30x real time"
          + (f"; accelerated core {'meets' if fast_x >= mame_x else 'misses'} 1.0x MAME"
             if mame_x else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
