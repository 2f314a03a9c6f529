"""Time the clean-room game itself: one replay of a recorded session's script, in this process.

The conformance resolver (cleanroom.conform) replays a session's script hundreds of times, from
power-on or from saved game states (cleanroom/snapshots.py), so the game's own speed per game
second is a large part of ``towerlab conform``'s time.  For each session this runs what one of
those replays runs: the tower and its chooser as the resolver makes them
(``cleanroom.decisions.Start``, every decision at its likeliest option, watched), then the
session's script to its end plus 5 s (``captures.tower.run_script``), the events read once at
the end.  Loading the script is not timed.

Times are CPU seconds of this process (``time.process_time``: other jobs on a shared machine
count less than in wall time); each session is replayed ``--repeat`` times (default 20) and
the best counts.  Prints milliseconds per replay and per game second, and a digest of the
replay's events and decisions (the same digest before and after a change to the game's speed
says it gave the same outputs).

    .venv/bin/python benchmarks/game_speed.py [--repeat 20] [SESSION_DIR ...]

Default sessions: tests/data/corpus/l2_p1_s02 (460 s), l4_p4_s16 and l1_p3_s35.

Measured on the development machine (2-core VM), 2026-12-04: l2_p1_s02 20.7 ms per replay
before the engine's loop found the next due time by comparisons (and kept its fixed
parameters, a cue's tones, a duration's options), 11.3 ms after, with the same digests.
"""
from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from captures.tower import run_script  # noqa: E402
from cleanroom.decisions import Start  # noqa: E402
from cleanroom.reference import load_reference  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "corpus"
SESSIONS = [CORPUS / "l2_p1_s02", CORPUS / "l4_p4_s16", CORPUS / "l1_p3_s35"]
TAIL_S = 5.0        # replay this far past the script's last action or event (s)


def replay(script, until: float) -> tuple[list[dict], list]:
    """Replay ``script`` to ``until`` seconds as the resolver does; return the events and the
    decisions (time, name, options, value) the game took."""
    tower, chooser = Start(1.0, watch=True)([])
    events = run_script(tower, script, until=until)
    return events, [(d.t, d.name, d.options, d.value) for d in chooser.calls]


def time_session(folder: Path, repeat: int) -> tuple[float, float, str]:
    """Return the best CPU seconds of ``repeat`` replays of session ``folder``, the game
    seconds replayed, and a digest of the outputs (every replay must give the same)."""
    script, reference = load_reference(str(folder))
    until = max(script.end_time(), reference[-1]["t"] if reference else 0.0) + TAIL_S
    best, digests = float("inf"), set()
    for _ in range(repeat):
        t0 = time.process_time()
        events, calls = replay(script, until)
        best = min(best, time.process_time() - t0)
        digests.add(hashlib.sha256(f"{events!r}\n{calls!r}".encode()).hexdigest()[:12])
    if len(digests) != 1:
        raise SystemExit(f"{folder}: replays gave {len(digests)} different outputs "
                         f"(expected one: the game is deterministic)")
    return best, until, digests.pop()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sessions", nargs="*", type=Path, default=SESSIONS,
                    help="session folders with script.txt and events.jsonl")
    ap.add_argument("--repeat", type=int, default=20, help="replays per session (best counts)")
    args = ap.parse_args(argv)
    for folder in args.sessions:
        if not (folder / "script.txt").is_file():
            print(f"{folder}: not a session folder (expected script.txt and events.jsonl)",
                  file=sys.stderr)
            return 2
    print(f"one replay per session, best of {args.repeat} (CPU time of this process); "
          f"ratio: game time over the time it took (the tower's own time is 1x)")
    for folder in args.sessions:
        best, game_s, digest = time_session(folder, args.repeat)
        print(f"  {folder.name:<12} {game_s:6.0f} game s  {best * 1e3:7.2f} ms per replay  "
              f"{best / game_s * 1e6:6.1f} us per game s  {game_s / best:8.0f}x  "
              f"outputs {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
