"""Time `towerlab trace` on the compiled kernel: canonical lines, binary records, filtered traces.

The open demo firmware (or ``--rom``) traced for N emulated seconds (default 60, i.e.
N x 70,833 instructions at 425 kHz), no board (the kernel traces, filters and formats alone):

- ``towerlab trace ... -o FILE`` as a separate process, whole process (start-up included),
  writing the text trace to a scratch file, and to memory (``/dev/shm``, where there is one),
  then with ``--format binary`` and with ``--filter pins``; and the rate at which the scratch
  file system takes plain writes of the same size (what bounds the text trace to a file);
- the formatter alone: the same trace written to ``os.devnull`` in this process (what the
  kernel and the formatter cost without the file system).

Prints lines per second and the multiple of real time (70,833 lines/s = 1x); target: text
lines at >= 30x real time (2.125 M lines/s). Also checks that the binary trace reads back into
the text trace byte for byte on the first 100,000 records.

    .venv/bin/python benchmarks/trace_speed.py [--seconds 60] [--rom mp7332]
"""
from __future__ import annotations

import argparse
import itertools
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.processes import cached_env, time_process  # noqa: E402

LINES_PER_S = 425_000 / 6          # one line per instruction at 425 kHz
TARGET_X = 30


def _run(cmd: list[str], env: dict) -> float:
    return time_process(cmd, env)[0]


def _row(label: str, lines: int, wall: float, extra: str = "") -> None:
    rate = lines / wall
    print(f"  {label:<44} {rate / 1e6:7.2f} M lines/s  {rate / LINES_PER_S:7.1f}x real time"
          f"  ({wall:.3f} s){extra}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=int, default=60, help="emulated seconds to trace")
    ap.add_argument("--rom", help="a raw 4096-byte TMS1400 image (default: the demo firmware)")
    args = ap.parse_args(argv)
    if args.seconds <= 0:
        print("trace_speed: --seconds must be > 0", file=sys.stderr)
        return 2
    from emulator.chips import TMS1400
    from emulator.fastcore import FAST_AVAILABLE, FastCpu, fast_trace_chunks
    from emulator.trace import binary_trace_lines
    from emulator.boards import demo_program

    if not FAST_AVAILABLE:
        print("trace_speed: the compiled kernel is not built (pip install -e . with gcc)",
              file=sys.stderr)
        return 2
    steps = int(args.seconds * LINES_PER_S)
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        rom = Path(args.rom) if args.rom else Path(tmp) / "demo.bin"
        if not args.rom:
            rom.write_bytes(bytes(demo_program().rom))
        name = args.rom or "open demo firmware (emulator/firmware/demo.asm)"
        print(f"towerlab trace, {name}, {steps:,} instructions ({args.seconds} emulated s); "
              f"{os.cpu_count()} cores; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
        env = cached_env(str(Path(tmp) / "pycache"))
        base = [sys.executable, "-m", "towerlab", "trace", "--rom", str(rom)]
        _run(base + ["--steps", "1000", "-o", str(Path(tmp) / "warm.txt")], env)
        text, binary, pins = (Path(tmp) / n for n in ("t.txt", "t.bin", "p.txt"))
        wall = _run(base + ["--steps", str(steps), "-o", str(text)], env)
        _row("text, whole process, to a file", steps, wall,
             f"  {text.stat().st_size / 1e6:.0f} MB")
        shm = Path("/dev/shm")
        if shm.is_dir() and os.access(shm, os.W_OK):
            mem = shm / f"towerlab-trace-speed-{os.getpid()}.txt"
            try:
                wall = _run(base + ["--steps", str(steps), "-o", str(mem)], env)
            finally:
                mem.unlink(missing_ok=True)
            _row("text, whole process, to memory (/dev/shm)", steps, wall)
        t0 = time.perf_counter()
        with open(Path(tmp) / "raw.bin", "wb") as f:
            block = b"\n" * (1 << 22)
            for _ in range(text.stat().st_size >> 22):
                f.write(block)
        print(f"  (this file system takes plain writes at "
              f"{text.stat().st_size / (time.perf_counter() - t0) / 1e6:.0f} MB/s)")
        (Path(tmp) / "raw.bin").unlink()
        wall = _run(base + ["--steps", str(steps), "--format", "binary", "-o", str(binary)],
                    env)
        _row("binary, whole process, to a file", steps, wall,
             f"  {binary.stat().st_size / 1e6:.0f} MB")
        wall = _run(base + ["--steps", str(steps), "--filter", "pins", "-o", str(pins)], env)
        with open(pins, "rb") as f:
            kept = sum(1 for _ in f)
        _row("--filter pins, whole process (instructions)", steps, wall,
             f"  {kept:,} lines kept")
        with open(binary, "rb") as f, open(text, "rb") as g:
            same = all(a.encode() + b"\n" == b for a, b in
                       zip(itertools.islice(binary_trace_lines(f), 100_000), g))
        print(f"  binary -> text lines, first 100,000 records: "
              f"{'identical' if same else 'DIFFERENT'}")
        for path in (text, binary, pins):
            path.unlink()
        cpu = FastCpu(TMS1400, rom.read_bytes())
        t0 = time.perf_counter()
        with open(os.devnull, "wb") as f:
            for data in fast_trace_chunks(cpu, steps):
                f.write(data)
        wall = time.perf_counter() - t0
        _row("text, kernel + formatter, in process, no file", steps, wall)
    x = steps / wall / LINES_PER_S
    print(f"kernel + formatter: {x:.1f}x real time; "
          f"{'meets' if x >= TARGET_X else 'misses'} the {TARGET_X}x target")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
