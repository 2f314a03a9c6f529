"""Fuzz every parser at scale and print the count and result per parser (``make fuzz``).

    python -m tests.fuzz [--cases 100000] [--jobs 2] [--only sr,pla] [--seed 0] [--out out/fuzz]

Each parser runs ``--cases`` mutated inputs (tests/fuzz/targets.py) with a 10 s limit per
case; one line per parser, e.g. ``pla: 100000 cases, 31250 opened, 68750 refused, 0 failures
(95.2 s)``, then the total. A failing input is saved to ``OUT/<parser>-case<N>.bin`` and
named with its error; the exit status is 1 when any case failed.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from tests.fuzz.harness import Result, run_target


def _run(name: str, cases: int, seed: int) -> Result:
    from tests.fuzz.targets import TARGETS
    shm = "/dev/shm" if Path("/dev/shm").is_dir() else None     # memory: no disk waits
    with tempfile.TemporaryDirectory(prefix=f"towerlab-fuzz-{name}-", dir=shm) as tmp:
        return run_target(TARGETS[name], cases, Path(tmp), seed=seed, case_timeout=10.0)


def main(argv: list[str] | None = None, out=sys.stdout) -> int:
    """Run the fuzzers; return 0 when no case failed, 1 otherwise, 2 on a bad option."""
    from tests.fuzz.targets import TARGETS
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=100_000, help="cases per parser")
    ap.add_argument("--jobs", type=int, default=2, help="parsers fuzzed at once (processes)")
    ap.add_argument("--only", default="", help="comma-separated parser names: "
                                               + ", ".join(TARGETS))
    ap.add_argument("--seed", type=int, default=0, help="mutation seed (case i is reproducible)")
    ap.add_argument("--out", default="out/fuzz", help="folder for failing inputs")
    args = ap.parse_args(argv)
    names = [n for n in args.only.split(",") if n] or list(TARGETS)
    unknown = [n for n in names if n not in TARGETS]
    if unknown or args.cases < 1 or args.jobs < 1:
        what = (f"unknown parser {unknown[0]!r} (expected one of {', '.join(TARGETS)})"
                if unknown else "--cases and --jobs must be at least 1")
        print(f"fuzz: {what}", file=sys.stderr)
        return 2
    print(f"fuzz: {len(names)} parsers x {args.cases} cases, seed {args.seed}, "
          f"{args.jobs} jobs", file=out, flush=True)
    results: list[Result] = []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(_run, n, args.cases, args.seed) for n in names]
        for fut in as_completed(futures):
            res = fut.result()
            results.append(res)
            print(res.line(), file=out, flush=True)
            for f in res.failures[:3]:
                path = Path(args.out) / f"{res.name}-case{f.case}.bin"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(f.data)
                print(f"  case {f.case}: {f.error} (input: {path})", file=out, flush=True)
    failed = sum(len(r.failures) for r in results)
    total = sum(r.cases for r in results)
    print(f"fuzz: {len(results)} parsers, {total} cases, {failed} failures", file=out, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
