"""The phase the genuine tower's draws read: a quantity that turns 27/64 of its range at each
key-loop pass, the same in every game after the tower test (docs/draws.md, section 11).

Read from recordings as a black box, three ways that agree on the step:

- the set-up after the level key (``cleanroom.start_state``): ordered round the circle by
  ``phase(passes)``, the passes from the tower test's key to the level key, the set-up times
  of level 3 lie on a smooth curve, smoother than at any other step (``step_smoothness``);
- the first draw of a game at level 4 (no set-up draws before it): the first MOVE's outcomes,
  ordered by ``phase(passes)``, follow the order the MOVE sweeps show round each block's circle
  (``MOVE_ORDER``; ``read_first_draw``, ``order_misfits``); at level 1 they do when the
  set-up's extra instructions count a step each (``FirstDraw.phase_after_setup``);
- the sweeps (``analysis.draws``): a MOVE 64 scans later often draws the same, a TOMB/RUIN's
  battles lie on one arc of 27/64 x scan.

The phase is the fourth harmonic of the count of cleanroom.count (section 12): four times a
count stepping 0x2507 a pass turns 27/64 of a turn a pass less 1/2,340, backwards; the count
reads the MOVE's outcome with one table for every game.

Example::

    first = read_first_draw(*load_reference("tests/data/corpus/l4_p3_s20"), "l4_p3_s20")
    print(first.line())
    # l4_p3_s20: level 4, move safe, 641 passes since the tower test, phase 27
"""
from __future__ import annotations

import bisect
import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, Sequence

from captures.darktower_facts import INSTRUCTION_CYCLES
from captures.script import Script
from captures.tower import run_script

from .choosers import is_timing_name
from .conform import resolve
from .count import first_move_lines, passes_since_tower_test
from .decisions import Start
from .start_state import SetupReading, read_setup

__all__ = ["PHASE_STEP", "PHASE_TURN", "MOVE_ORDER", "FirstDraw", "phase", "roughness",
           "step_smoothness", "order_misfits", "read_first_draw", "first_draw_report",
           "setup_phase_lines"]

# the phase turns PHASE_STEP / PHASE_TURN of its range at each key-loop pass (section 11)
PHASE_STEP, PHASE_TURN = 27, 64
# a MOVE's outcomes round the circle, by rising phase (the sweeps' blocks, section 6)
MOVE_ORDER = ("safe", "lost", "dragon", "plague", "battle")
SHUFFLES = 300
# the first draw's outcome shows within this long: the resolver reads it off a cut recording
_SHOWN_S = 8.0
# the draws a game at levels 1-3 makes at its set-up, shown only at the Dark Tower
_SETUP_DRAWS = ("tower_brigands_L1", "tower_brigands_L2", "tower_brigands_L3", "riddle")


def phase(passes: int) -> int:
    """Return the phase after ``passes`` key-loop passes, in 1/PHASE_TURN of a turn."""
    return PHASE_STEP * passes % PHASE_TURN


def roughness(points: Iterable[tuple[float, str, float]]) -> float:
    """Return how far apart neighbours lie round the circle: ``points`` are (position,
    name, value), ordered by position (then name); the sum of the value's steps from each to
    the next, the last to the first included."""
    return _ring_steps([v for _, _, v in sorted(points)])


def _ring_steps(values: Sequence[float]) -> float:
    """The sum of the steps from each of ``values`` to the next, the last to the first."""
    return sum(abs(values[i] - values[i - 1]) for i in range(len(values))) if values else 0.0


def _orders(passes: Sequence[int], names: Sequence[str], span: int) -> list[tuple[Fraction,
                                                                                   list[int]]]:
    """Each order of the points round the circle of step a per pass, 0 < a <= 1/2, with the
    smallest step that gives it: it changes only where a is a fraction with a denominator up
    to the largest difference of passes (``span``)."""
    cuts = sorted({Fraction(p, q) for q in range(1, span + 1) for p in range(q // 2 + 1)}
                  | {Fraction(1, 2)})
    out = []
    for lo, hi in zip(cuts, cuts[1:]):
        a = (lo + hi) / 2
        out.append((lo, sorted(range(len(passes)),
                               key=lambda i: ((a * passes[i]) % 1, names[i]))))
    return out


def step_smoothness(items: Sequence[tuple[str, int, float]], shuffles: int = SHUFFLES,
                    seed: int = 1981) -> tuple[float, float, tuple[Fraction, Fraction], int]:
    """Return, for ``items`` (name, passes, value), (the roughness ordered by ``phase``; the
    least roughness at any step per pass; the steps that give it, (lo, hi); of ``shuffles``
    shufflings of the values among the items, how many are as smooth at some step)."""
    names = [n for n, _, _ in items]
    passes = [p for _, p, _ in items]
    values = [v for _, _, v in items]
    at_phase = roughness((phase(p), n, v) for n, p, v in items)
    orders = _orders(passes, names, max(passes) - min(passes) if passes else 1)

    def best(vals: Sequence[float]) -> tuple[float, Fraction, Fraction]:
        top = None
        for k, (lo, order) in enumerate(orders):
            r = _ring_steps([vals[i] for i in order])
            hi = orders[k + 1][0] if k + 1 < len(orders) else Fraction(1, 2)
            if top is None or r < top[0] - 1e-9:
                top = (r, lo, hi)
            elif abs(r - top[0]) <= 1e-9 and lo == top[2]:
                top = (top[0], top[1], hi)
        return top or (0.0, Fraction(0), Fraction(1, 2))
    least, lo, hi = best(values)
    rng = random.Random(seed)
    mixed, hits = list(values), 0
    for _ in range(shuffles):
        rng.shuffle(mixed)
        hits += best(mixed)[0] <= least + 1e-9
    return at_phase, least, (lo, hi), hits


def order_misfits(points: Iterable[tuple[int, str, str]], order: Sequence[str] = MOVE_ORDER
                  ) -> int:
    """Return how few of ``points`` (phase, name, outcome) must be left out for the others,
    read round the circle by rising phase (then name), to follow ``order`` cyclically, each
    outcome in one stretch."""
    seq = [o for _, _, o in sorted(points)]
    rank = {o: i for i, o in enumerate(order)}
    best = len(seq)
    for start in range(len(seq)):
        turned = seq[start:] + seq[:start]
        for first in range(len(order)):
            tails: list[int] = []       # the longest run in order: a non-decreasing one
            for o in turned:
                r = (rank[o] - first) % len(order)
                i = bisect.bisect_right(tails, r)
                tails[i:i + 1] = [r]
            best = min(best, len(seq) - len(tails))
    return best


@dataclass(frozen=True)
class FirstDraw:
    """The first draw a recorded game shows: its decision ``name`` and ``value`` (the
    resolver's), the key-loop ``passes`` from the tower test's key to the key that made it,
    the game's level and, at levels 1-3, the set-up's time beyond the game's own in cycles
    (``cleanroom.start_state``; None at level 4, which has none)."""
    session: str
    level: int
    name: str
    value: object
    passes: int
    setup_cycles: float | None = None

    @property
    def phase(self) -> int:
        return phase(self.passes)

    @property
    def phase_after_setup(self) -> int:
        """The phase with a step more for each instruction of the set-up's extra time."""
        extra = round((self.setup_cycles or 0.0) / INSTRUCTION_CYCLES)
        return (self.phase + extra) % PHASE_TURN

    def line(self) -> str:
        setup = "" if self.setup_cycles is None else (
            f", set-up {self.setup_cycles / INSTRUCTION_CYCLES:+.0f} instructions (phase "
            f"{self.phase_after_setup} with them)")
        return (f"{self.session}: level {self.level}, {self.name} {self.value}, {self.passes} "
                f"passes since the tower test, phase {self.phase}{setup}")


def read_first_draw(script: Script, events: Sequence[dict], session: str = ""
                    ) -> FirstDraw | None:
    """Return the first draw the game the recording (``script``, ``events``) holds shows,
    with the passes before it, or None when it has none or does not show it (at levels 1-3
    the set-up's draws, the Dark Tower's brigands and the riddle, show only at the Dark
    Tower: the first draw after them is read, with the set-up's time).  The value is the
    resolver's on the recording cut ``_SHOWN_S`` after the draw; ValueError when the
    recording differs from the game before that."""
    tower, chooser = Start(1.0, watch=False)([])
    run_script(tower, script, until=script.end_time())
    takes = tower.game.engine.takes
    first = next((d for d in chooser.calls
                  if not is_timing_name(d.name) and d.name not in _SETUP_DRAWS), None)
    if first is None or len(takes) < 2:
        return None
    end = first.t + _SHOWN_S
    result = resolve(script, events, end=end)
    if result.diff_time < min(end, script.end_time()) - 1.0:
        raise ValueError(f"{session or 'recording'}: the game differs from it at "
                         f"{result.diff_time:.3f} s, before its first draw at {first.t:.3f} "
                         f"s showed (expected a recording of the genuine tower from power-on)")
    found = next(d for d in result.decisions if d.name == first.name)
    if not found.revealed:
        return None
    passes = passes_since_tower_test(takes, first.t)
    setup = read_setup(script, events, session) if tower.game.level < 4 else None
    return FirstDraw(session, tower.game.level, first.name, found.value, passes,
                     None if setup is None else setup.extra_cycles)


def first_draw_report(draws: Sequence[FirstDraw], shuffles: int = SHUFFLES,
                      seed: int = 1981) -> list[str]:
    """Return the lines of ``towerlab draws --first``: each game's first draw by level and
    phase, and, per level, for those that are a MOVE, how many leave the circle order
    ``MOVE_ORDER`` (against shufflings of the outcomes among them), by the phase of the
    passes and, at levels 1-3, with the set-up's instructions too; at level 4, how the count
    reads them (``cleanroom.count``)."""
    out = [d.line() for d in sorted(draws, key=lambda d: (d.level, d.phase, d.session))]
    for level in sorted({d.level for d in draws}):
        moves = [d for d in draws if d.name == "move" and d.level == level]
        if len(moves) < 3:
            out.append(f"level {level}: {len(moves)} first draws are a MOVE, too few to read "
                       f"an order")
            continue
        readings = [("by phase", lambda d: d.phase)]
        if level < 4:
            readings.append(("with the set-up's instructions", lambda d: d.phase_after_setup))
        for how, key in readings:
            misfits, hits = _order_test([(key(d), d.session, d.value) for d in moves],
                                        shuffles, seed)
            out.append(f"level {level}, {len(moves)} first draws that are a MOVE, {how}: all "
                       f"but {misfits} follow the order {' '.join(MOVE_ORDER)} round the "
                       f"circle (of {shuffles} shufflings of their outcomes, {hits} do as "
                       f"well)")
        if level == 4:
            out += first_move_lines([(d.passes, d.value) for d in moves], shuffles)
    return out


def _order_test(points: list[tuple[int, str, object]], shuffles: int, seed: int
                ) -> tuple[int, int]:
    """(``order_misfits`` of ``points``, how many of ``shuffles`` shufflings of their
    outcomes among them leave as few)."""
    misfits = order_misfits(points)
    rng = random.Random(seed)
    outcomes = [o for _, _, o in points]
    hits = 0
    for _ in range(shuffles):
        rng.shuffle(outcomes)
        hits += order_misfits([(p, n, o) for (p, n, _), o in zip(points, outcomes)]) <= misfits
    return misfits, hits


# a group of set-ups this large is ordered by the phase (fewer say little)
PHASE_GROUP = 8


def setup_phase_lines(readings: Sequence[SetupReading], shuffles: int = SHUFFLES) -> list[str]:
    """Return the lines ``towerlab draws --setup`` adds on the phase: the set-ups
    (``cleanroom.start_state``) of each level and number of level-prompt loops ordered round
    the circle by the phase of their passes since the tower test: how rough, and at which
    step per pass the order is smoothest (docs/draws.md, section 11)."""
    out = [f"ordered by the phase ({PHASE_STEP}/{PHASE_TURN} of a turn a pass since the tower "
           f"test), the set-ups' steps from one to the next, summed round the circle:"]
    for key in sorted({(r.level, len(r.level_loops)) for r in readings}):
        rs = [r for r in readings if (r.level, len(r.level_loops)) == key]
        if len(rs) < PHASE_GROUP:
            continue
        at, least, (lo, hi), hits = step_smoothness(
            [(r.session, r.passes, r.extra_cycles) for r in rs], shuffles=shuffles)
        out.append(f"  level {key[0]}, {key[1]} level-prompt loop{'s' if key[1] > 1 else ''} "
                   f"({len(rs)}): {at:.0f} cycles; smoothest at a step of {lo}-{hi} a pass "
                   f"({least:.0f}); of {shuffles} shufflings {hits} as smooth at any "
                   f"step")
    return out if len(out) > 1 else []
