"""The phase the genuine tower's draws read: a quantity that turns 27/64 of its range at each
key-loop pass, the same in every game after the tower test (docs/draws.md, section 11).

Read from recordings as a black box, three ways that agree on the step:

- the set-up after the level key (``cleanroom.start_state``): ordered round the circle by
  ``phase(passes)``, the passes from the tower test's key to the level key, the set-up times
  of level 3 lie on a smooth curve, smoother than at any other step (``step_smoothness``);
- the first draw of a game at level 4 (no set-up draws before it): the first MOVE's outcomes,
  ordered by ``phase(passes)``, follow the order the MOVE sweeps show round each block's circle
  (``MOVE_ORDER``; ``read_first_move``, ``order_misfits``);
- the sweeps (``analysis.draws``): a MOVE 64 scans later often draws the same, a TOMB/RUIN's
  battles lie on one arc of 27/64 x scan.

Example::

    first = read_first_move(*load_reference("tests/data/corpus/l4_p3_s20"), "l4_p3_s20")
    print(first.line())    # l4_p3_s20: move safe, 641 passes since the tower test, phase 27
"""
from __future__ import annotations

import bisect
import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, Sequence

from captures.script import Script
from captures.tower import run_script

from .conform import resolve
from .decisions import Start

__all__ = ["PHASE_STEP", "PHASE_TURN", "MOVE_ORDER", "FirstDraw", "phase", "roughness",
           "step_smoothness", "order_misfits", "read_first_draw", "first_draw_report"]

# the phase turns PHASE_STEP / PHASE_TURN of its range at each key-loop pass (section 11)
PHASE_STEP, PHASE_TURN = 27, 64
# a MOVE's outcomes round the circle, by rising phase (the sweeps' blocks, section 6)
MOVE_ORDER = ("safe", "lost", "dragon", "plague", "battle")
SHUFFLES = 300
# the first draw's outcome shows within this long: the resolver reads it off a cut recording
_SHOWN_S = 8.0


def phase(passes: int) -> int:
    """Return the phase after ``passes`` key-loop passes, in 1/PHASE_TURN of a turn."""
    return PHASE_STEP * passes % PHASE_TURN


def roughness(points: Iterable[tuple[float, str, float]]) -> float:
    """Return how far apart neighbours lie round the circle: ``points`` are (position,
    name, value), ordered by position (then name); the sum of the value's steps from each to
    the next, the last to the first included."""
    values = [v for _, _, v in sorted(points)]
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
            r = sum(abs(vals[order[i]] - vals[order[i - 1]]) for i in range(len(order)))
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
    """The first draw of a recorded game: its decision ``name`` and ``value`` (the
    resolver's), the key-loop ``passes`` from the tower test's key to the key that made it,
    and the game's level."""
    session: str
    level: int
    name: str
    value: object
    passes: int

    @property
    def phase(self) -> int:
        return phase(self.passes)

    def line(self) -> str:
        return (f"{self.session}: {self.name} {self.value}, {self.passes} passes since the "
                f"tower test, phase {self.phase}")


def read_first_draw(script: Script, events: Sequence[dict], session: str = ""
                    ) -> FirstDraw | None:
    """Return the first draw of the game the recording (``script``, ``events``) holds, with
    the passes before it, or None when it has none or the recording does not show it (at
    levels 1-3 the first draws are the set-up's, the Dark Tower's brigands and the riddle,
    shown only at the Dark Tower: only a game at level 4 begins with a draw it shows).  The
    value is the resolver's on the recording cut ``_SHOWN_S`` after the draw; ValueError
    when the recording differs from the game before that."""
    tower, chooser = Start(1.0, watch=False)([])
    run_script(tower, script, until=script.end_time())
    takes = tower.game.engine.takes
    first = next((d for d in chooser.calls if not d.name.endswith("_cycles")), None)
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
    passes = sum(n for t, _, n in takes[1:] if t <= first.t + 1e-6)
    return FirstDraw(session, tower.game.level, first.name, found.value, int(round(passes)))


def first_draw_report(draws: Sequence[FirstDraw], shuffles: int = SHUFFLES,
                      seed: int = 1981) -> list[str]:
    """Return the lines of ``towerlab draws --first``: each game's first draw by phase, and,
    for those that are a MOVE, how many leave the circle order ``MOVE_ORDER`` (against
    shufflings of the outcomes among them)."""
    out = [d.line() for d in sorted(draws, key=lambda d: (d.phase, d.session))]
    moves = [d for d in draws if d.name == "move"]
    if len(moves) < 3:
        return out + [f"{len(moves)} first draws are a MOVE: too few to read an order"]
    points = [(d.phase, d.session, d.value) for d in moves]
    misfits = order_misfits(points)
    rng = random.Random(seed)
    outcomes = [d.value for d in moves]
    hits = 0
    for _ in range(shuffles):
        rng.shuffle(outcomes)
        hits += order_misfits([(p, n, o) for (p, n, _), o in zip(points, outcomes)]) <= misfits
    out.append(f"first draws that are a MOVE: {len(moves)}; by phase, all but {misfits} follow "
               f"the order {' '.join(MOVE_ORDER)} round the circle (of {shuffles} shufflings "
               f"of their outcomes, {hits} do as well)")
    return out
