"""Measure our TMS1400 core's speed against MAME 0.251 running the same image.

One job, one image, emulated seconds on each side:

- our plain-Python core (``emulator.core.Cpu``) and, when built, the compiled kernel
  (``emulator.fastcore.FastCpu``), both with no board attached (K reads 0), N seconds each,
  timed with ``time.perf_counter``;
- MAME's ``mbdtower`` driver headless (``-video none -sound none -nothrottle
  -seconds_to_run M``, no debugger, no Lua), M = max(N, --mame-seconds): MAME's own "Average
  speed" line (start-up excluded; the reference for the ratios), and the wall time of the
  M-second run minus that of a 1-second start-up run (MAME cannot run for 0 seconds:
  ``-seconds_to_run 0`` means "forever"), best of two runs each. Measured here: MAME's wall
  time is nearly flat up to about 60 emulated seconds (0.52 s for 1 s, 0.56 s for 60 s, 1.46 s
  for 300 s, 5.1 s for 1200 s on the demo firmware), so the wall difference is only
  meaningful for long runs, hence the 600-second default.

Prints instructions per second for each, the ratios to MAME, and the multiple of real time at
the 425 kHz clock (70,833 instructions/s = 1x). Target for the plain-Python core: 30x real time
(2.125 M instructions/s). The image is ``--rom`` (a user's 4096-byte dump, with ``--mpla`` /
``--opla`` PLA files, else our standard decode and the Dark Tower glyph output PLA), else the
open demo firmware (emulator/firmware/demo.asm), else a seeded random image.

    .venv/bin/python benchmarks/emulator_speed.py [--seconds 60] [--mame-seconds 600]
        [--rom mp7332] [--mpla F] [--opla F] [--no-mame]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from emulator.chips import TMS1400  # noqa: E402
from emulator.core import Cpu  # noqa: E402
from emulator.darktower import glyph_output_pla  # noqa: E402
from emulator.decode import standard_micro_pla  # noqa: E402
from emulator.mame import (CLOCK_HZ, MPLA_SIZE, OPLA_SIZE, MameError,  # noqa: E402
                           MameOracle)
from emulator.pla import PlaError, Pla, pla_text, read_pla  # noqa: E402

INSTR_PER_S = CLOCK_HZ / 6          # 70,833 instructions per emulated second
TARGET_X = 30                       # plain-Python core, times real time
DEMO = ROOT / "emulator" / "firmware" / "demo.asm"


class BenchError(ValueError):
    """Bad benchmark input (a file or value); printed as one line, exit status 2."""


def load_image(args) -> tuple[str, bytes, Pla, Pla, str, str]:
    """Return (description, image, micro PLA, output PLA, their MAME file texts)."""
    if args.rom:
        try:
            rom = Path(args.rom).read_bytes()
        except OSError as exc:
            raise BenchError(f"{args.rom}: cannot read ({exc.strerror})")
        if len(rom) != 4096:
            raise BenchError(f"{args.rom}: {len(rom)} bytes (expected 4096)")
        name = args.rom
    elif DEMO.exists():
        from emulator.asm import assemble_file
        rom = assemble_file(DEMO).rom
        name = "demo firmware (emulator/firmware/demo.asm)"
    else:
        from emulator.randrom import random_rom
        rom = random_rom(args.seed)
        name = f"random image, seed {args.seed}"
    texts = []
    plas = []
    for path, default, size, terms in ((args.mpla, standard_micro_pla(), MPLA_SIZE, 30),
                                       (args.opla, glyph_output_pla(), OPLA_SIZE, 32)):
        if path:
            try:
                text = Path(path).read_text(encoding="ascii")
                plas.append(read_pla(text, path))
            except (OSError, UnicodeDecodeError) as exc:
                raise BenchError(f"{path}: cannot read a PLA text file ({exc})")
            except PlaError as exc:
                raise BenchError(f"{exc}")
            texts.append(text)
        else:
            plas.append(default)
            texts.append(pla_text(default, pad_to_bytes=size, term_count=terms))
    return name, rom, plas[0], plas[1], texts[0], texts[1]


def time_core(make, rom: bytes, mpla: Pla, opla: Pla, seconds: float) -> tuple[float, int]:
    """Return (wall seconds, instructions) for ``seconds`` emulated seconds on one core."""
    cpu = make(TMS1400, rom, mpla, opla)
    end = int(seconds * CLOCK_HZ)
    t0 = time.perf_counter()
    done = cpu.run_until(end)
    wall = time.perf_counter() - t0
    return wall, int(done)


def line(name: str, ips: float, mame_ips: float | None) -> str:
    ratio = f"{ips / mame_ips:8.3f}x MAME" if mame_ips else ""
    return f"  {name:<28} {ips / 1e6:9.3f} M instr/s  {ips / INSTR_PER_S:8.1f}x real time  {ratio}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=int, default=60, help="emulated seconds (whole number)")
    ap.add_argument("--rom", help="a 4096-byte TMS1400 image (e.g. your mp7332 dump)")
    ap.add_argument("--mpla", help="micro PLA file (MAME format); default: our standard decode")
    ap.add_argument("--opla", help="output PLA file; default: the Dark Tower glyph PLA")
    ap.add_argument("--seed", type=int, default=1, help="random image seed (no demo firmware)")
    ap.add_argument("--mame-seconds", type=int, default=600,
                    help="emulated seconds for MAME (at least --seconds)")
    ap.add_argument("--no-mame", action="store_true", help="time our cores only")
    args = ap.parse_args(argv)
    try:
        return run(args)
    except BenchError as exc:
        print(f"emulator_speed: {exc}", file=sys.stderr)
        return 2


def run(args) -> int:
    """Run the benchmark for parsed arguments; print the table; return 0."""
    if args.seconds < 2:
        raise BenchError(f"--seconds {args.seconds}: must be a whole number >= 2 (MAME's "
                         "1-second run is the start-up reference)")

    name, rom, mpla, opla, mpla_text, opla_text = load_image(args)
    print(f"image: {name}; {args.seconds} emulated s = "
          f"{args.seconds * INSTR_PER_S:,.0f} instructions at {CLOCK_HZ} Hz")

    mame_ips = speed = None
    if not args.no_mame:
        mame_s = max(args.seconds, args.mame_seconds)
        try:
            speed = MameOracle(timeout=600).speed(rom, mpla_text, opla_text, mame_s)
        except MameError as exc:
            raise BenchError(f"{exc}")
        mame_ips = (speed.reported * INSTR_PER_S if speed.reported
                    else speed.instructions_per_s)
        print(f"MAME: {mame_s}-second run {speed.wall_s:.2f} s wall, 1-second run "
              f"(start-up) {speed.startup_s:.2f} s")

    results = [("plain-Python core", Cpu)]
    try:
        from emulator.fastcore import FAST_AVAILABLE, FastCpu
        if FAST_AVAILABLE:
            results.append(("compiled kernel (fastcore)", FastCpu))
    except ImportError:
        pass
    timings = []
    for label, make in results:
        wall, done = time_core(make, rom, mpla, opla, args.seconds)
        timings.append((label, done / wall))

    print("instructions per second:")
    if speed is not None:
        if speed.reported:
            print(line("MAME 0.251, its own average", mame_ips, mame_ips))
        print(line("MAME 0.251, wall - start-up", speed.instructions_per_s, mame_ips))
    for label, ips in timings:
        print(line(label, ips, mame_ips))
    plain = timings[0][1] / INSTR_PER_S
    verdict = "meets" if plain >= TARGET_X else "misses"
    print(f"target: plain-Python core >= {TARGET_X}x real time "
          f"({TARGET_X * INSTR_PER_S / 1e6:.3f} M instr/s): {verdict} it ({plain:.1f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
