"""The count a MOVE's outcome reads: 16 bits stepped by ``STEP`` at each key-loop pass, read
through its top digit and bit 7 (docs/draws.md, section 12).

Read from the MOVE sweeps (``analysis.draws``: the outcome at each of 78 consecutive key
scans of two different games) as a black box.  The model: at key scan n a sweep's count is
``start + STEP x n`` modulo 2**16, and the outcome is ``table[cell]``, the cell being the
count's top hexadecimal digit (bits 12-15) and its bit 7 (``cell``: 32 cells).  One table
for every game; each sweep has a start of its own.  What is fitted and how well:

- ``own_fit``: one sweep alone, its start and table, and how many scans contradict them
  (the scans of a cell whose outcome is not the cell's commonest);
- ``joint_fit``: several sweeps, a start each and one table for all;
- ``predict_with``: a table fitted elsewhere applied to a sweep, only its start fitted: how
  many scans it gets right (``cross_predictions``: each sweep predicted from the table the
  others fit, ``others_tables``; ``relabelled_predictions``: the same by chance);
- ``half_predictions``: table and starts fitted on one half of every sweep's scans, the
  other halves predicted with them: whether the count goes on by ``STEP`` a pass;
- ``step_scan``: ``joint_fit`` at other steps, the chance of doing as well.

Bit 7 is where the sweeps' 18-pass blocks come from (docs/draws.md, section 6): the count's
low byte steps 7 a pass, so bit 7 turns over every 128/7 = 18.3 passes; and four times the
count, read two bits lower, turns 27/64 of its range a pass less 1/2,340 (section 11).

Example::

    from analysis.draws import read_sweep
    sweeps = [read_sweep(p) for p in ("tests/data/sweeps/move_l1_p1_s101",
                                      "tests/data/sweeps/move_l2_p1_s102")]
    fit = joint_fit([outcomes_of(s) for s in sweeps])
    print(fit.contradictions, [hex(s) for s in fit.starts])
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from analysis.draws import CIRCLE, outcome_letter

__all__ = ["STEP", "BITS", "CELLS", "OUTCOMES", "Fit", "cell", "outcomes_of", "own_fit",
           "joint_fit", "predict_with", "best_starts", "others_tables", "cross_predictions",
           "relabelled_predictions", "half_predictions", "step_scan", "accumulator_lines"]

STEP = 9479                  # 0x2507: the count's step a key-loop pass (section 12)
BITS = 16
MODULUS = 1 << BITS
CELLS = 32                   # the top digit (16) times bit 7 (2)
# the outcomes a MOVE shows, in a fixed order (a cell's ties go to the first): round the
# circle of analysis.draws
OUTCOMES = CIRCLE
_CHUNK = 4096                # starts counted at once (memory: CHUNK x CELLS x 5 counts)
_SLACK = 3                   # a joint fit combines each sweep's starts this close to its best
_CAP = 2048                  # and at most this many of them
RELABELLINGS = 8             # relabelled outcomes for the chance of a cross prediction


@dataclass(frozen=True)
class Fit:
    """A fitted model: ``contradictions`` (scans whose outcome is not their cell's), the
    ``starts`` (one per sweep), the ``table`` (the outcome of each of the ``CELLS`` cells,
    None for a cell no scan fell in)."""
    contradictions: int
    starts: tuple[int, ...]
    table: tuple[str | None, ...]


def cell(count):
    """Return the cell a count (an int or a numpy array of them) is read through: its top
    hexadecimal digit times 2, plus its bit 7."""
    return (count >> 12) * 2 + ((count >> 7) & 1)


def outcomes_of(sweep) -> dict[int, str]:
    """Return a MOVE sweep's (``analysis.draws.Sweep``) outcome at each key scan."""
    return {n: r.outcome for n, r in sweep.scans.items() if r.outcome in OUTCOMES}


def _arrays(outcomes: dict[int, str]) -> tuple[np.ndarray, np.ndarray]:
    scans = sorted(outcomes)
    return (np.array(scans, dtype=np.int64),
            np.array([OUTCOMES.index(outcomes[n]) for n in scans], dtype=np.int64))


def _cells(scans: np.ndarray, starts: np.ndarray, step: int) -> np.ndarray:
    """Return the cell of each scan (columns) for each start (rows)."""
    return cell((starts[:, None] + step * scans[None, :]) % MODULUS)


def _counts(scans: np.ndarray, codes: np.ndarray, starts: np.ndarray, step: int) -> np.ndarray:
    """Return, per start, the scans of each outcome in each cell: (starts, CELLS, 5)."""
    cells = _cells(scans, starts, step)
    out = np.zeros((len(starts), CELLS, len(OUTCOMES)), dtype=np.int32)
    rows = np.repeat(np.arange(len(starts)), len(scans))
    np.add.at(out, (rows, cells.ravel(), np.tile(codes, len(starts))), 1)
    return out


def _misses(counts: np.ndarray) -> np.ndarray:
    return (counts.sum(-1) - counts.max(-1)).sum(-1)


def _table(counts: np.ndarray) -> tuple[str | None, ...]:
    return tuple(OUTCOMES[int(c.argmax())] if c.sum() else None for c in counts)


def _candidates(scans, codes, step: int, slack: int, cap: int, stride: int = 1
                ) -> list[tuple[int, int, np.ndarray]]:
    """Return (contradictions, start, counts) for one sweep alone: a start for each distinct
    sequence of cells its scans fall in (the lowest such start; every ``stride``-th start
    tried), those within ``slack`` of the fewest contradictions, at most ``cap`` of them,
    fewest first."""
    seen: dict[bytes, tuple[int, int, np.ndarray]] = {}
    for lo in range(0, MODULUS, _CHUNK * stride):
        starts = np.arange(lo, lo + _CHUNK * stride, stride, dtype=np.int64)
        cells = _cells(scans, starts, step).astype(np.int8)
        counts = _counts(scans, codes, starts, step)
        misses = _misses(counts)
        for i in np.argsort(misses, kind="stable"):
            key = cells[i].tobytes()
            if key not in seen:
                seen[key] = (int(misses[i]), int(starts[i]), counts[i])
    ranked = sorted(seen.values(), key=lambda c: (c[0], c[1]))
    return [c for c in ranked if c[0] <= ranked[0][0] + slack][:cap]


def own_fit(outcomes: dict[int, str], step: int = STEP) -> Fit:
    """Return the start and table that fit one sweep's outcomes best."""
    misses, start, counts = _candidates(*_arrays(outcomes), step, 0, 1)[0]
    return Fit(misses, (start,), _table(counts))


def joint_fit(sweeps: Sequence[dict[int, str]], step: int = STEP, slack: int = _SLACK,
              cap: int = _CAP, stride: int = 1) -> Fit:
    """Return one table and a start per sweep that fit all the sweeps' outcomes best: among
    each sweep's starts within ``slack`` contradictions of its own best (``_candidates``,
    every ``stride``-th start), every pair (one or two sweeps)."""
    if not 1 <= len(sweeps) <= 2:
        raise ValueError(f"joint_fit: {len(sweeps)} sweeps given (expected one or two)")
    tops = [_candidates(*_arrays(o), step, slack, cap, stride) for o in sweeps]
    if len(tops) == 1:
        misses, start, counts = tops[0][0]
        return Fit(misses, (start,), _table(counts))
    first = np.stack([c[2] for c in tops[0]])           # (a, CELLS, 5)
    best = None
    for j, (_, start2, counts2) in enumerate(tops[1]):
        misses = _misses(first + counts2[None])
        i = int(misses.argmin())
        if best is None or misses[i] < best[0]:
            best = (int(misses[i]), (tops[0][i][1], start2), first[i] + counts2)
    return Fit(best[0], best[1], _table(best[2]))


def _rights(table: Sequence[str | None], outcomes: dict[int, str], step: int):
    """Yield (starts, scans right, scans whose cell has an outcome in ``table``) for every
    start, a chunk at a time."""
    scans, codes = _arrays(outcomes)
    predicted = np.array([-1 if t is None else OUTCOMES.index(t) for t in table])
    for lo in range(0, MODULUS, _CHUNK):
        starts = np.arange(lo, lo + _CHUNK, dtype=np.int64)
        guess = predicted[_cells(scans, starts, step)]
        yield starts, (guess == codes[None, :]).sum(1), (guess >= 0).sum(1)


def predict_with(table: Sequence[str | None], outcomes: dict[int, str],
                 step: int = STEP) -> tuple[int, int, int]:
    """Return (scans right, scans whose cell has an outcome in ``table``, the start) for the
    start that gets the most of a sweep's outcomes right with a table fitted elsewhere."""
    best = (-1, 0, 0)
    for starts, right, known in _rights(table, outcomes, step):
        i = int(right.argmax())
        if right[i] > best[0]:
            best = (int(right[i]), int(known[i]), int(starts[i]))
    return best


def best_starts(table: Sequence[str | None], outcomes: dict[int, str], step: int = STEP
                ) -> tuple[int, tuple[int, ...]]:
    """Return (the most scans of a sweep a table fitted elsewhere gets right at any start,
    every start that gets as many), the starts in order."""
    most, found = -1, []
    for starts, right, _ in _rights(table, outcomes, step):
        top = int(right.max())
        if top > most:
            most, found = top, []
        if top == most:
            found += starts[right == top].tolist()
    return most, tuple(found)


def others_tables(sweeps: dict[str, dict[int, str]], step: int = STEP
                  ) -> dict[str, tuple[str | None, ...]]:
    """Return, per sweep, the table the other sweeps fit together (``joint_fit``)."""
    return {name: joint_fit([o for n, o in sweeps.items() if n != name], step).table
            for name in sweeps if len(sweeps) > 1}


def cross_predictions(sweeps: dict[str, dict[int, str]], step: int = STEP,
                      tables: dict | None = None) -> dict[str, tuple[int, int]]:
    """Return, per sweep, (scans right, scans) when its outcomes are predicted with the table
    the other sweeps fit (``others_tables``, or ``tables`` given), only its start fitted."""
    tables = others_tables(sweeps, step) if tables is None else tables
    return {name: (predict_with(tables[name], outcomes, step)[0], len(outcomes))
            for name, outcomes in sweeps.items() if name in tables}


def relabelled_predictions(sweeps: dict[str, dict[int, str]], step: int = STEP,
                           times: int = RELABELLINGS, seed: int = 1981,
                           tables: dict | None = None) -> dict[str, int]:
    """Return, per sweep, the most scans a cross prediction gets right when the sweep's
    outcomes are relabelled (each outcome given another's name, ``times`` relabellings):
    what a table that is not shared gets by chance."""
    tables = others_tables(sweeps, step) if tables is None else tables
    rng = random.Random(seed)
    perms = [p for p in itertools.permutations(OUTCOMES) if p != OUTCOMES]
    out = {}
    for name, outcomes in sweeps.items():
        if name not in tables:
            continue
        most = 0
        for perm in rng.sample(perms, times):
            rename = dict(zip(OUTCOMES, perm))
            most = max(most, predict_with(tables[name],
                                          {n: rename[o] for n, o in outcomes.items()}, step)[0])
        out[name] = most
    return out


def half_predictions(sweeps: dict[str, dict[int, str]], step: int = STEP,
                     tables: dict | None = None) -> list[tuple[str, str, int, int]]:
    """Return (sweep, the half predicted, scans right, scans) for each sweep and half: the
    table the other sweeps fit, the start fitted on the sweep's other half (scans below or
    from its middle scan), the half predicted at that start: whether the count goes on by
    ``step`` a pass beyond the scans its start was fitted on."""
    tables = others_tables(sweeps, step) if tables is None else tables
    out = []
    for name, outcomes in sweeps.items():
        if name not in tables:
            continue
        table = tables[name]
        middle = sorted(outcomes)[len(outcomes) // 2]
        for half, tested in (("first", lambda s: s < middle), ("second", lambda s: s >= middle)):
            start = predict_with(table, {s: o for s, o in outcomes.items() if not tested(s)},
                                 step)[2]
            test = {s: o for s, o in outcomes.items() if tested(s)}
            right = sum(table[cell((start + step * s) % MODULUS)] == o for s, o in test.items())
            out.append((name, half, int(right), len(test)))
    return out


def step_scan(sweeps: Sequence[dict[int, str]], steps: Sequence[int], stride: int = 4
              ) -> dict[int, int]:
    """Return ``joint_fit``'s contradictions at each step (every ``stride``-th start tried,
    each sweep's best only: a quick scan, a little above the full fit's figure)."""
    return {s: joint_fit(sweeps, s, slack=0, cap=64, stride=stride).contradictions
            for s in steps}


def accumulator_lines(sweeps: dict[str, dict[int, str]], step: int = STEP) -> list[str]:
    """Return the lines ``towerlab draws`` prints for MOVE sweeps (section 12)."""
    names = list(sweeps)
    lines = [f"the count (16 bits, {step} = {step:#06x} a pass; top digit and bit 7):"]
    for name in names:
        fit = own_fit(sweeps[name], step)
        lines.append(f"  {name} alone: {fit.contradictions} of {len(sweeps[name])} scans "
                     f"contradict its table (start {fit.starts[0]:#06x})")
    if len(names) < 2:
        return lines
    fit = joint_fit([sweeps[n] for n in names], step)
    total = sum(len(o) for o in sweeps.values())
    lines.append(f"  one table for all: {fit.contradictions} of {total} scans contradict it "
                 f"(starts {', '.join(f'{s:#06x}' for s in fit.starts)})")
    lines.append("  table (top digit 0-f; bit 7 clear / set): " + " ".join(
        f"{_letter(fit.table[2 * d])}{_letter(fit.table[2 * d + 1])}" for d in range(16)))
    tables = others_tables(sweeps, step)
    chance = relabelled_predictions(sweeps, step, tables=tables)
    for name, (right, n) in cross_predictions(sweeps, step, tables=tables).items():
        lines.append(f"  {name} from the others' table: {right} of {n} right "
                     f"(relabelled outcomes: at most {chance[name]})")
    for name, half, right, n in half_predictions(sweeps, step, tables=tables):
        lines.append(f"  {name}, its {half} half at the start its other half fits, with the "
                     f"other's table: {right} of {n} right")
    return lines


def _letter(outcome: str | None) -> str:
    return "." if outcome is None else outcome_letter(outcome)
