"""The count a MOVE's outcome reads, as a draw model: 16 bits stepped by ``COUNT_STEP`` at each
key-loop pass since the tower test, read through its top digit and bit 7 (docs/draws.md,
section 12).

Found on the two MOVE sweeps (``analysis.accumulator``: one table for both games, each with a
start of its own, ``MOVE_TABLE`` is that table) and checked on the first draws of the
level-4 games that begin with a MOVE (no draw before it: the count is then the one the tower
test left, ``COUNT_START``, moved on by the passes since): ``first_move_fit`` fits the start
on such games and tells how many the table then gets right, against shufflings of their
outcomes, and left out in turn.  What the count does at a draw is not known, so the model
says nothing of any later draw (docs/draws.md, section 12: "What it is not yet").

Example::

    from cleanroom.count import move_from_count
    print(move_from_count(641))     # a level-4 game's first MOVE 641 passes after the test
"""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from .choosers import is_timing_name

__all__ = ["COUNT_STEP", "COUNT_START", "MOVE_TABLE", "MOVE_PICTURES", "count_at", "count_cell",
           "passes_since_tower_test", "first_move_passes", "move_from_count", "FirstMoveFit",
           "first_move_fit", "best_start", "first_move_lines", "AFTER_DRAW_RULES",
           "AFTER_DRAW_TOLERANCE", "LOW_TOLERANCE", "Family", "after_draw_lines", "MODULUS"]

COUNT_STEP = 9479            # 0x2507 a key-loop pass (analysis.accumulator.STEP)
MODULUS = 1 << 16
# the MOVE's outcome by cell (top hexadecimal digit x 2 + bit 7), as the two MOVE sweeps fit
# it together (analysis.accumulator.joint_fit; tests/analysis/test_accumulator.py checks it)
MOVE_TABLE = ("lost", "dragon", "safe", "safe", "battle", "battle", "plague", "dragon",
              "dragon", "lost", "safe", "safe", "battle", "safe", "dragon", "plague",
              "safe", "lost", "safe", "lost", "safe", "safe", "plague", "plague",
              "lost", "lost", "safe", "safe", "plague", "battle", "plague", "battle")
# what a sweep of the genuine tower reads for each of the game's MOVE outcomes: the first
# picture lit after the press, "none" for a safe move, which lights none (analysis.draws)
MOVE_PICTURES = {"safe": "none", "lost": "LOST", "dragon": "DRAGON", "plague": "PLAGUE",
                 "battle": "BRIGANDS"}
# the count at the tower test's key, fitted on the development sessions' level-4 games that
# begin with a MOVE (``first_move_fit``, ``best_start``: tests/cleanroom/test_count.py)
COUNT_START = 0xECFC
SHUFFLES = 300


def count_at(passes: int, start: int = COUNT_START) -> int:
    """Return the count ``passes`` key-loop passes after the tower test."""
    return (start + COUNT_STEP * passes) % MODULUS


def count_cell(count):
    """Return the cell a count (an int, or a numpy array of them) is read through: its top
    digit times 2, plus its bit 7 (as analysis.accumulator.cell)."""
    return (count >> 12) * 2 + ((count >> 7) & 1)


def passes_since_tower_test(takes, t: float) -> int:
    """Return the key-loop passes from the tower test's key to the key taken at tower time
    ``t`` (``takes``: the clean-room engine's (time, key, passes) since power-on)."""
    return int(round(sum(n for when, _, n in takes[1:] if when <= t + 1e-6)))


def first_move_passes(tower, name: str, t: float) -> int | None:
    """Return the passes since the tower test when draw ``name`` at ``t`` is the first draw of
    a level-4 game on the clean-room ``tower`` and a MOVE, else None (a script may power the
    tower off and on: the engine's takes begin again at each power-on, the chooser's calls
    do not)."""
    game = tower.game
    takes = game.engine.takes
    if name != "move" or game.level != 4 or not takes:
        return None
    if any(not is_timing_name(d.name) and d.t >= takes[0][0] for d in game.chooser.calls):
        return None
    return passes_since_tower_test(takes, t)


def move_from_count(passes: int, start: int = COUNT_START) -> str:
    """Return the MOVE's outcome the count gives ``passes`` passes after the tower test."""
    return MOVE_TABLE[count_cell(count_at(passes, start))]


@dataclass(frozen=True)
class FirstMoveFit:
    """How the count reads games' first MOVEs: the most the table gets right at any start
    (``right`` of ``games``), the starts that do (``starts``), of ``shuffles`` shufflings
    of the outcomes among the games how many do as well at their own best start (``hits``),
    and each game left out in turn, predicted at the starts that fit the others best (the
    commonest outcome those starts give): ``left_out`` right."""
    right: int
    games: int
    starts: tuple[int, ...]
    hits: int
    shuffles: int
    left_out: int


def first_move_fit(points: Sequence[tuple[int, str]], shuffles: int = SHUFFLES,
                   seed: int = 1981) -> FirstMoveFit:
    """Return the ``FirstMoveFit`` of ``points`` (passes since the tower test, outcome), the
    first MOVEs of games that drew nothing before them."""
    import numpy as np      # only here: the game itself needs no numpy (65,536 starts a game)
    starts = np.arange(MODULUS, dtype=np.int64)
    table = np.array(MOVE_TABLE)
    guesses = np.stack([table[count_cell((starts + COUNT_STEP * p) % MODULUS)]
                        for p, _ in points], axis=1)           # (starts, games)
    truth = np.array([o for _, o in points])
    rights = (guesses == truth[None, :]).sum(1)
    best = int(rights.max()) if len(points) else 0
    rng = random.Random(seed)
    mixed, hits = list(truth), 0
    for _ in range(shuffles):
        rng.shuffle(mixed)
        hits += int((guesses == np.array(mixed)[None, :]).sum(1).max()) >= best
    left_out = 0
    for i in range(len(points)):
        others = rights - (guesses[:, i] == truth[i])
        fits = guesses[others == others.max(), i]
        left_out += Counter(fits.tolist()).most_common(1)[0][0] == truth[i]
    return FirstMoveFit(best, len(points), tuple(int(s) for s in starts[rights == best]),
                        hits, shuffles, left_out)


def _start_runs(starts: Sequence[int]) -> list[tuple[int, int]]:
    """Return sorted starts as runs of consecutive ones, (first, last) each."""
    runs: list[tuple[int, int]] = []
    for s in sorted(starts):
        if runs and s == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], s)
        else:
            runs.append((s, s))
    return runs


def best_start(starts: Sequence[int]) -> int:
    """Return the start a model takes among those that fit best: the middle of the first of
    the longest runs of consecutive ones (the farthest from a cell's edge)."""
    runs = _start_runs(starts)
    first, last = max(runs, key=lambda r: (r[1] - r[0], -r[0]))
    return (first + last) // 2


def first_move_lines(points: Sequence[tuple[int, str]], shuffles: int = SHUFFLES) -> list[str]:
    """Return the lines ``towerlab draws --first`` prints on the count for the first MOVEs of
    level-4 games (``points``: passes since the tower test, outcome)."""
    if len(points) < 3:
        return []
    fit = first_move_fit(points, shuffles)
    runs = _runs(fit.starts)
    return [f"level 4, {fit.games} first draws that are a MOVE, read by the count "
            f"({COUNT_STEP:#06x} a pass, the MOVE sweeps' table): {fit.right} right at the "
            f"best starts ({runs}; the model's {COUNT_START:#06x}); of {fit.shuffles} "
            f"shufflings of their outcomes {fit.hits} do as well; each left out in turn, "
            f"{fit.left_out} of {fit.games} right from the others"]


def _runs(starts: Sequence[int]) -> str:
    """Say a set of starts as runs: '0xecec-0xed0d, 0xedec-0xee0d'."""
    out = [f"{a:#06x}" if a == b else f"{a:#06x}-{b:#06x}" for a, b in _start_runs(starts)]
    return ", ".join(out[:4]) + (f" and {len(out) - 4} more runs" if len(out) > 4 else "")


# what the count at the tower test's key, as a family's second MOVEs imply it, does from one
# family to the next when their first MOVEs (safe moves) come ``d`` passes apart, under each
# rule for what a draw does to the count (docs/draws.md, section 12; DEVELOPERS.md)
AFTER_DRAW_RULES = {
    "adds a constant": lambda d: 0,
    "multiplies by 0x2507 and adds (a linear congruential step)":
        lambda d: (COUNT_STEP * COUNT_STEP - COUNT_STEP) * d % MODULUS,
    "sets the count afresh": lambda d: -COUNT_STEP * d % MODULUS,
}
# how far a measured difference may lie from a rule's and still be read as it: a start is
# fitted to a few counts (a sweep of some 30 scans), the cells are 128 counts wide at least
AFTER_DRAW_TOLERANCE = 256
# how far the low bytes the swept MOVEs' times imply may lie from a rule's (docs/draws.md,
# section 13: the times' bit 7 places the low byte to a few counts)
LOW_TOLERANCE = 4


@dataclass(frozen=True)
class Family:
    """A family of single level-4 games of a request (``name``), read as one sweep of their
    second MOVE: the passes from the tower test to their first MOVE (``first_passes``), the
    outcomes that first MOVE showed (``first_seen``: outcome, games) and the count's
    prediction for it (``predicted``); the count at the tower test's key that the second
    MOVEs imply (``implied``: the count at the sweep's first scan, fitted with
    ``MOVE_TABLE``, less ``COUNT_STEP`` times that scan's passes since the test), its scans
    right at that count of the sweep's ``scans``; and the low byte of that count the second
    MOVEs' times imply through bit 7 (``low``: None where the times do not read it), with
    the scans that agree (``low_fit``: agree, read)."""
    name: str
    first_passes: int
    first_seen: tuple[tuple[str, int], ...]
    predicted: str
    implied: int
    right: int
    scans: int
    low: int | None = None
    low_fit: tuple[int, int] = (0, 0)


def _apart(a: int, b: int) -> int:
    """Return how far two counts lie apart round the count's circle."""
    d = (a - b) % MODULUS
    return min(d, MODULUS - d)


def _verdict(rules: Sequence[str]) -> str:
    return rules[0] if len(rules) == 1 else "none of these" if not rules else "ambiguous"


def after_draw_lines(families: Sequence[Family]) -> list[str]:
    """Return the lines ``towerlab draws --after`` prints: each family, and for each two
    whose first MOVEs lie apart, which rule for what a draw does to the count their implied
    counts follow (``AFTER_DRAW_RULES`` within ``AFTER_DRAW_TOLERANCE``); where no one rule
    fits every pair, whether they move as an affine draw of another multiplier would
    (``_affine_lines``)."""
    out = []
    ordered = sorted(families, key=lambda f: (f.first_passes, f.name))
    for f in ordered:
        seen = ", ".join(f"{o} {n}" for o, n in f.first_seen)
        times = ("its times do not read bit 7" if f.low is None else
                 f"its times' bit 7 implies the low byte {f.low:#04x} ({f.low_fit[0]} of "
                 f"{f.low_fit[1]} scans)")
        out.append(f"{f.name}: first MOVE {f.first_passes} passes after the tower test "
                   f"(shown: {seen}; the count predicts {f.predicted}); second MOVEs read "
                   f"by the count: {f.right} of {f.scans} scans right, the count at the "
                   f"tower test's key they imply {f.implied:#06x}; {times}")
    verdicts, moves = [], []
    for a, b in zip(ordered, ordered[1:]):
        d = b.first_passes - a.first_passes
        if d == 0:
            continue
        moved = (b.implied - a.implied) % MODULUS
        moves.append((d, moved))
        near = [rule for rule, step in AFTER_DRAW_RULES.items()
                if _apart(moved, step(d)) <= AFTER_DRAW_TOLERANCE]
        expected = ", ".join(f"{rule} {step(d):#06x}" for rule, step in AFTER_DRAW_RULES.items())
        text = (f"{a.name} to {b.name} ({d:+d} passes at the first MOVE): the implied "
                f"count moves {moved:#06x} (if a draw {expected}): {_verdict(near)}")
        if a.low is not None and b.low is not None:
            low = (b.low - a.low) % 256
            by_low = [rule for rule, step in AFTER_DRAW_RULES.items()
                      if min((low - step(d)) % 256, (step(d) - low) % 256) <= LOW_TOLERANCE]
            text += f"; the times' low byte moves {low:#04x}: {_verdict(by_low)}"
            near = [rule for rule in near if rule in by_low]
        out.append(text)
        verdicts.append(tuple(near))
    if verdicts:
        rules = set(verdicts[0]).intersection(*verdicts[1:])
        out.append(f"a draw {sorted(rules)[0]}" if len(rules) == 1 else
                   "no one of these rules fits every pair of families: the draw moves the "
                   "count some other way (or a first MOVE was not the one predicted)")
        if not rules:
            out += _affine_lines(moves)
    return out


def _affine_lines(moves: Sequence[tuple[int, int]]) -> list[str]:
    """Return the line that says whether the implied counts of the pairs of families
    (``moves``: passes apart at the first MOVE, more than none, and how far the implied
    count moves) move by one amount a pass, as any affine draw x -> a x + b moves them
    ((a - 1) x ``COUNT_STEP`` a pass: the three rules are a = 1, ``COUNT_STEP`` and 0); no
    line without a pair one pass apart to read that amount off."""
    ones = [moved for d, moved in moves if d == 1]
    if not ones or len(moves) < 2:
        return []
    per_pass = ones[0]
    fits = all(_apart(moved, d * per_pass % MODULUS) <= AFTER_DRAW_TOLERANCE * d
               for d, moved in moves)
    if fits:
        return [f"the implied counts move by one amount a pass of the first MOVE, "
                f"{per_pass:#06x}, at every pair: the draw is an affine map of the count "
                f"(x -> a x + b with (a - 1) x {COUNT_STEP:#06x} = {per_pass:#06x} within "
                f"{AFTER_DRAW_TOLERANCE}), with a multiplier none of these rules has"]
    return ["nor do the implied counts move by one amount a pass of the first MOVE at every "
            "pair: the draw is no affine map of the count"]
