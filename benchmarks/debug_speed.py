"""Time the debugger's ``continue`` against the bare board run in the same process.

The demo firmware on the Dark Tower board, the demo session script
(emulator/firmware/demo_session.txt), N emulated seconds (default 120), on the accelerated core:

- **bare**: ``build_machine(firmware="demo").board.run_until(...)``: the compiled kernel and
  the board model, nothing else (what ``towerlab run`` costs without decoding);
- **debugger, nothing set**: ``Debugger.run(seconds=N)`` with no breakpoint or watchpoint
  (the same run, plus the periodic snapshots for stepping backwards);
- **debugger, PC breakpoints**: the same with breakpoints on 8 addresses the run never
  reaches (the kernel tests a bitmap per instruction; nothing comes back to Python);
- **debugger, RAM watchpoint**: a write watchpoint on a nibble the firmware never writes
  (RAM 7:F), the kernel testing every store;
- **debugger, hot breakpoint**: a conditional breakpoint (never true) at ``sd1``, the display
  loop run about 30 000 times a second, each hit evaluated in Python.

Times are CPU seconds of this process (``time.process_time``: other jobs on a shared machine
count less than in wall time). Each is run five times, interleaved, and the best time counts
(``--hot`` adds the last case). Prints emulated seconds per CPU second and the ratio
to bare. Target: nothing set and PC breakpoints within 10% of bare (ratio >= 0.9).

    .venv/bin/python benchmarks/debug_speed.py [--seconds 120] [--repeat 5] [--hot]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from emulator.debug import Debugger  # noqa: E402
from emulator.fastcore import FAST_AVAILABLE  # noqa: E402
from emulator.machine import build_machine  # noqa: E402

SESSION = ROOT / "emulator" / "firmware" / "demo_session.txt"
# addresses in pages the demo does not use (pages 5-7 hold no code): never reached
_COLD = ("0:5:00", "0:5:01", "0:6:00", "0:6:3E", "0:7:00", "0:7:1F", "1:0:00", "3:F:3F")


def bare(seconds: int) -> float:
    board = build_machine(firmware="demo", script=str(SESSION)).board
    t0 = time.process_time()
    board.run_until(board.cycle_at(seconds))
    return time.process_time() - t0


def debugged(seconds: int, setup) -> float:
    dbg = Debugger(firmware="demo", script=str(SESSION))
    setup(dbg)
    t0 = time.process_time()
    stop = dbg.run(seconds=seconds)
    elapsed = time.process_time() - t0
    if stop.reason != "time":
        raise SystemExit(f"debug_speed: the run stopped early ({stop}); the benchmark needs "
                         f"points that never stop")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=int, default=120, help="emulated seconds (whole number)")
    ap.add_argument("--repeat", type=int, default=5, help="runs of each; the best counts")
    ap.add_argument("--hot", action="store_true",
                    help="also time the hot conditional breakpoint (slow: every hit in Python)")
    args = ap.parse_args(argv)
    if args.seconds <= 0 or args.repeat <= 0:
        print("debug_speed: --seconds and --repeat must be whole numbers > 0", file=sys.stderr)
        return 2
    if not FAST_AVAILABLE:
        print("debug_speed: the accelerated core is not built (pip install -e . with gcc)",
              file=sys.stderr)
        return 2

    def cold(dbg):
        for a in _COLD:
            dbg.add_break(a)

    cases = [
        ("bare board run", lambda: bare(args.seconds)),
        ("debugger, nothing set", lambda: debugged(args.seconds, lambda d: None)),
        ("debugger, 8 PC breakpoints", lambda: debugged(args.seconds, cold)),
        ("debugger, RAM write watchpoint", lambda: debugged(
            args.seconds, lambda d: d.add_watch_ram("7:F", "write"))),
        ("debugger, hot conditional break", lambda: debugged(
            args.seconds, lambda d: d.add_break("sd1", "A == 99"))),
    ]
    if not args.hot:
        cases.pop()
    best = {name: float("inf") for name, _ in cases}
    for _ in range(args.repeat):            # interleaved: a busy machine slows all alike
        for name, fn in cases:
            best[name] = min(best[name], fn())
    base = best[cases[0][0]]
    print(f"demo firmware, demo session, {args.seconds} emulated s, best of {args.repeat}")
    for name, _ in cases:
        t = best[name]
        print(f"  {name:<34} {t:7.3f} s CPU  {args.seconds / t:8.1f} x real time  "
              f"ratio to bare {base / t:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
