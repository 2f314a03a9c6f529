"""Time conformance (``cleanroom.conform.resolve``) the old way and the new, on the same
sessions, in the same process, and print the ratio.

- old: the reference path, every replay from power-on and every comparison over the whole
  session (``conform._resolve(..., fast=False)``, the resolver as it was first written);
- new: replays from saved game states and comparisons after a quiet stretch (the default,
  cleanroom/snapshots.py);
- witness: the check of a recording checked before, one replay with the decisions it conformed
  with (``resolve(..., witness=)``; ``towerlab conform`` keeps them, rig/conformance.py).

Both give the same results (checked here too).  Processor time counts this process and every
process the replays ran in (the replay server is ended after each timing so that its tree's
time is counted, ``snapshots.shutdown``; the new path's times include starting it, about
0.1-0.3 s); wall time is printed beside it.  A shared machine disturbs the wall time more.

One session (default ``tests/data/corpus/l2_p1_s02``, 460 s of play)::

    .venv/bin/python benchmarks/conform_speed.py [--session DIR]

A whole corpus with rig.conformance's batch on N local processes (wall time, the way
``towerlab conform --reference DIR --jobs N`` runs it; ``--no-old`` skips the old path,
which takes some tens of minutes on a 112-session corpus)::

    .venv/bin/python benchmarks/conform_speed.py --corpus CORPUS --jobs 2 [--no-old]

The sessions of a corpus whose length is within a tenth of S seconds, one after the other
on one process, the new path only (processor time of each, the median, and how many resolve
within ``--goal`` seconds; beside each, the reference run: its time in replays of the session
from power-on with the decisions resolved, which a slower or faster machine moves less)::

    .venv/bin/python benchmarks/conform_speed.py --corpus CORPUS --around 400 [--goal 2]

Goals (issue: conformance in seconds): a 400 s session in under 2 s on one core; a 142-session
corpus in under 5 minutes on 2 cores with ``--jobs 2``.
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SESSION = ROOT / "tests" / "data" / "corpus" / "l2_p1_s02"


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _outcome(result) -> tuple:
    return (result.describe(), result.counts(), result.decisions, result.decided_items)


def timed(script, events, fast: bool):
    """Resolve once; return (result, processor seconds, wall seconds)."""
    from cleanroom import conform, snapshots

    c, w = _cpu(), time.perf_counter()
    result = conform._resolve(script, events, fast=fast)
    snapshots.shutdown()
    return result, _cpu() - c, time.perf_counter() - w


def one_session(folder: str) -> None:
    from cleanroom.conform import load_reference

    script, events = load_reference(folder)
    length = max(e["t"] for e in events)
    old, old_cpu, old_wall = timed(script, events, fast=False)
    new, new_cpu, new_wall = timed(script, events, fast=True)
    same = _outcome(old) == _outcome(new)
    print(f"session {folder} ({length:.0f} s of play): {new.describe().splitlines()[0]}")
    print(f"  old (from power-on, whole comparisons): {old_cpu:7.2f} s processor, "
          f"{old_wall:7.2f} s wall")
    print(f"  new (saved states, after quiet stretches): {new_cpu:7.2f} s processor, "
          f"{new_wall:7.2f} s wall")
    print(f"  ratio: {old_cpu / new_cpu:.1f}x processor, {old_wall / new_wall:.1f}x wall; "
          f"same results: {'yes' if same else 'NO'}")
    if new.conforms:
        from cleanroom.conform import resolve, witness_of

        pairs = witness_of(new)
        c, w = _cpu(), time.perf_counter()
        again = resolve(script, events, witness=pairs)
        wit_cpu, wit_wall = _cpu() - c, time.perf_counter() - w
        print(f"  witness (one replay with the decisions kept, item counts included): "
              f"{wit_cpu:7.2f} s processor, {wit_wall:7.2f} s wall; ratio to new "
              f"{new_cpu / wit_cpu:.1f}x processor; same results: "
              f"{'yes' if _outcome(again) == _outcome(new) else 'NO'}")


def _old_job(folder, script, events):
    """Resolve one session the old way (a rig.batch job)."""
    from cleanroom import conform

    r = conform._resolve(script, events, fast=False)
    return folder, r.describe(), r.counts(), [(d.t, d.name, repr(d.value), d.revealed)
                                               for d in r.decisions]


def _new_job(folder, script, events):
    """Resolve one session the new way (a rig.batch job)."""
    from cleanroom import conform

    r = conform.resolve(script, events)
    return folder, r.describe(), r.counts(), [(d.t, d.name, repr(d.value), d.revealed)
                                               for d in r.decisions]


def corpus(folder: str, jobs: int, old: bool) -> None:
    from rig.batch import run_jobs
    from rig.conformance import load_session

    folders = sorted(str(p) for p in Path(folder).iterdir()
                     if (p / "script.txt").exists())
    sessions = [(f, *load_session(f)) for f in folders]
    play = sum(max(e["t"] for e in ev) for _, _, ev in sessions)
    print(f"corpus {folder}: {len(sessions)} sessions, {play / 3600:.1f} h of play, "
          f"{jobs} processes, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    times, cpus, results = {}, {}, {}
    for name, fn in ([("old", _old_job)] if old else []) + [("new", _new_job)]:
        c, w = _cpu(), time.perf_counter()
        results[name] = run_jobs(fn, sessions, workers=jobs, label=name,
                                 progress=sys.stderr.isatty(),
                                 cost=lambda job: max(e["t"] for e in job[2]))
        # the pool's processes (and their replay servers) have ended: their time is counted
        times[name], cpus[name] = time.perf_counter() - w, _cpu() - c
        conforming = sum(r[1].startswith("conforms") for r in results[name])
        print(f"  {name}: {times[name]:8.1f} s wall, {cpus[name]:8.1f} s processor "
              f"({conforming} of {len(sessions)} conform)")
    if old:
        same = sum(a == b for a, b in zip(results["old"], results["new"]))
        print(f"  ratio: {times['old'] / times['new']:.1f}x wall, "
              f"{cpus['old'] / cpus['new']:.1f}x processor; identical results: {same} of "
              f"{len(sessions)} sessions")


def around(folder: str, seconds: float, goal: float) -> int:
    from cleanroom.conform import load_reference
    from tests.cleanroom.corpus_split import HELD_OUT

    picked = []
    for p in sorted(Path(folder).iterdir()):
        if (p / "script.txt").exists() and (p / "events.jsonl").exists():
            script, events = load_reference(str(p))
            length = max(e["t"] for e in events)
            if abs(length - seconds) <= seconds / 10:
                picked.append((p.name, length, script, events))
    if not picked:
        print(f"{folder}: no session of {seconds:.0f} s +- 10 %", file=sys.stderr)
        return 2
    print(f"corpus {folder}: {len(picked)} sessions of {seconds * 0.9:.0f}-{seconds * 1.1:.0f} "
          f"s, one process, load {os.getloadavg()[0]:.1f}")
    cpus, ratios = [], []
    for name, length, script, events in picked:
        result, cpu, wall = timed(script, events, fast=True)
        cpus.append(cpu)
        ratios.append(cpu / _replay_cpu(script, result, length))
        # a held-out session is timed like the others but is not one to study
        print(f"  {name:24} {length:6.0f} s of play: {cpu:6.2f} s processor, {wall:6.2f} s wall"
              f", {ratios[-1]:4.0f} replays ({'conforms' if result.conforms else 'differs'})"
              f"{'  [held out: measure only]' if name in HELD_OUT else ''}")
    print(f"  median {statistics.median(cpus):.2f} s ({statistics.median(ratios):.0f} replays), "
          f"fastest {min(cpus):.2f} s, slowest {max(cpus):.2f} s; "
          f"{sum(c < goal for c in cpus)} of {len(cpus)} under {goal:g} s")
    return 0


def _replay_cpu(script, result, length: float) -> float:
    """Return the processor time of the reference run beside each resolution: one replay of
    the session from power-on to its end with the decisions it resolved, in this process (the
    best of three).  A resolution's time in such replays moves less with the machine's speed
    than its seconds do."""
    from cleanroom import conform, snapshots

    replayer = snapshots.PowerOnReplayer(script, conform._Start(1.0))
    values = [d.value for d in result.decisions]
    best = math.inf
    for _ in range(3):
        c = time.process_time()
        replayer.run(values, length)
        best = min(best, time.process_time() - c)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--session", default=str(SESSION), help="one reference folder")
    ap.add_argument("--corpus", help="a folder of reference folders (instead of --session)")
    ap.add_argument("--jobs", type=int, default=2, help="processes for --corpus (default 2)")
    ap.add_argument("--no-old", action="store_true", help="--corpus: time the new path only")
    ap.add_argument("--around", type=float, metavar="S",
                    help="--corpus: time each session of S seconds +- 10 %% on one process")
    ap.add_argument("--goal", type=float, default=2.0,
                    help="--around: count the sessions resolved within this many processor "
                         "seconds (default 2)")
    args = ap.parse_args(argv)
    if args.corpus and args.around:
        return around(args.corpus, args.around, args.goal)
    if args.corpus:
        corpus(args.corpus, args.jobs, not args.no_old)
    else:
        one_session(args.session)
    return 0


if __name__ == "__main__":
    sys.exit(main())
