"""Read a timing sweep of the genuine tower: one key pressed a frame later in each run, and
what the tower drew at each key scan (docs/draws.md says what the figures mean).

A sweep is a set of runs that are the same game up to one press, the *swept* key, moved by
whole 1/60 s frames.  The lab's sweeps come as one folder with ``sweep.jsonl`` (a line per
run: ``offset_frames``, ``press_s`` when the chip first saw the key, and ``events``); a
sweep asked for as single games comes as one recording folder per run (``events.jsonl``,
the swept key the last press, or ``press`` counted from 0), and one asked for as a single
session of several games (a request's script that powers the tower off and on) as one
recording whose ``script.txt`` says where each game begins: a run per game, its times from
its power-on.  From each run this reads:

- ``click``: the key's click, the first tone after the press (the key loop's scan that took
  it: runs with the same click were taken at the same scan);
- ``think``: the time from the click to the tower's next output (the reel's motor, a lamp
  or a tone), in instructions (``captures.darktower_facts``: 425 kHz, 6 clocks each);
- ``outcome``: the first picture lit after the press (``analysis.pictures``), "none" when
  the tower lit none; ``number``: the first number the display shows while it is lit.

and over the sweep's key scans (``Sweep``):

- whether runs taken at the same scan showed the same thing (``same_scan``);
- how often the outcome at scan n comes again at scan n + p (``lag_profile``);
- the think times of each outcome: a base and a whole number j of 3-instruction steps
  (``loop_counts``);
- for a MOVE sweep, (j + e) mod 3, e the outcome's place in the circle PLAGUE, DRAGON,
  LOST (a safe move counts as LOST with a base of its own), over blocks of consecutive
  scans of every period (``block_fits``), and a battle's count of BRIGANDS against its
  think time modulo 3 (``battle_residues``);
- for a MOVE sweep, the path each outcome adds to the think time (``path_fit``): what
  leaves the rest steadiest from scan to scan inside each block of 18;
- for each of those blocks, the steps a per scan for which its scans, ordered by the
  fractional part of a x n, show each outcome in one stretch (``circle_steps``,
  ``block_circles``), and the order of the outcomes round that circle;
- over the whole sweep, the turn of PHASE_STEP/PHASE_TURN a scan (docs/draws.md, section 11):
  the same outcome 64 scans later (``lag_profile``), and how close an outcome comes to one
  arc of that phase, against every other step (``outcome_arc``).

Example::

    sweep = read_sweep("tests/data/sweeps/move_l2_p1_s102")
    print("\\n".join(sweep_report(sweep)))
"""
from __future__ import annotations

import collections
import dataclasses
import math
import os
import random
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Iterable, Sequence

import numpy as np

from analysis.base import AnalysisError
from analysis.pictures import BLANK, lit_pictures
from captures.darktower_facts import INSTRUCTION_CYCLES, NOMINAL_CLOCK_HZ
from captures.events import read_events, recording_events_file
from captures.script import Power, ScriptError, power_ons, read_script
from captures.sweep import SweepError as LabSweepError, read_sweep_runs

__all__ = ["Run", "Sweep", "SweepError", "PathFit", "read_sweep", "run_from_events",
           "click_and_output", "instructions_between", "sweep_report", "circle_steps",
           "circle_order", "outcome_letter", "CIRCLE", "MOVE_CIRCLE", "PASS_S"]

PASS_S = 0.0257          # a key-loop pass (3 display ticks: 25.4 ms dark, 26.0 ms lit)
SAME_CLICK_S = 2e-4      # clicks this close are the same scan's
CLICK_WITHIN_S = 0.2     # the click follows the press within this
FRAME_S = 1 / 60         # a display frame
OUTPUTS = ("motor", "lamp", "tone")
# a MOVE's outcomes in the order its draw steps round them (docs/draws.md, section 6); the
# safe move (no picture) counts as LOST, with a base time of its own
MOVE_CIRCLE = {"PLAGUE": 0, "DRAGON": 1, "LOST": 2, "none": 2}
MOVE_OUTCOMES = {"PLAGUE", "DRAGON", "LOST", "BRIGANDS", "none"}
# the order of a MOVE's outcomes round each block's circle (docs/draws.md, section 6)
CIRCLE = ("none", "LOST", "DRAGON", "PLAGUE", "BRIGANDS")
SAFE_ABOVE = 13          # a safe move's base lies this many instructions above the others'
BLOCK = 18               # scans in a block of the MOVE sweeps (docs/draws.md, section 6)
# the phase the draws read turns PHASE_STEP / PHASE_TURN a pass (docs/draws.md, section 11;
# cleanroom/phase.py holds the same, tests/cleanroom/test_phase.py checks they agree)
PHASE_STEP, PHASE_TURN = 27, 64
PHASE_LAGS = (57, 64, 71)   # a turn of the phase, and a turn less and more 7 passes
SHUFFLES = 200           # shuffles of a block's outcomes, for the chance of a circle
PATHS = range(-12, 19)   # a MOVE outcome's path tried, instructions above LOST's
PATH_SHUFFLES = 100      # shuffles of the outcomes within blocks, for the paths' chance


class SweepError(AnalysisError):
    """A sweep that cannot be read: the message names the file and what was expected."""


@dataclass
class Run:
    """One run of a sweep: ``label`` (its frame offset or folder), the swept key's
    ``press`` and ``click`` (s), the tower's next output after the click (``first``, s, and
    its ``kind``), the first picture lit after the press (``outcome``) and the number shown
    with it, and the events after the click (``after``: for comparing runs)."""
    label: str
    press: float
    click: float | None
    first: float | None
    kind: str
    outcome: str
    number: str
    end: float
    after: list = field(default_factory=list, repr=False)
    scan: int | None = None

    @property
    def think(self) -> float | None:
        """Return the time from the click to the next output in instructions."""
        if self.click is None or self.first is None:
            return None
        return instructions_between(self.click, self.first)


def click_and_output(events: Sequence[dict], press: float
                     ) -> tuple[float | None, float | None, str]:
    """Return, for a key pressed at ``press`` s, (its click: the first tone within
    ``CLICK_WITHIN_S``; the tower's next output after the click; that output's kind, "none"
    without one), from ``events`` sorted by time.  None where there is no click."""
    click = _click(events, press)
    if click is None:
        return None, None, "none"
    nxt = next((e for e in events if e["t"] > click + 1e-7 and e["type"] in OUTPUTS
                and (e["type"] == "tone" or e.get("on"))), None)
    return (click, None, "none") if nxt is None else (click, nxt["t"], nxt["type"])


def _click(events: Sequence[dict], press: float) -> float | None:
    """Return the click of a key pressed at ``press`` s: the first tone of ``events`` within
    ``CLICK_WITHIN_S`` after it (None: no key scan took it)."""
    return next((e["t"] for e in events if e["type"] == "tone"
                 and press - 1e-9 <= e["t"] <= press + CLICK_WITHIN_S), None)


def instructions_between(start: float, stop: float) -> float:
    """Return the instructions of the nominal clock between two times in seconds."""
    return (stop - start) * NOMINAL_CLOCK_HZ / INSTRUCTION_CYCLES


def run_from_events(label: str, events: Sequence[dict], press: float,
                    end: float | None = None) -> Run:
    """Return what ``events`` show after the swept key pressed at ``press`` seconds (module
    doc); ``end``: where the run's recording stops (default its last event)."""
    events = sorted(events, key=lambda e: e["t"])
    end = max((e["t"] for e in events), default=press) if end is None else end
    click, first, kind = click_and_output(events, press)
    lit = [x for x in lit_pictures(events, end)
           if x.start > press and x.picture not in ("", BLANK)]
    outcome, number = "none", ""
    if lit:
        outcome = lit[0].picture
        number = next((e["text"].strip() for e in events if e["type"] == "display"
                       and lit[0].start - 1e-6 <= e["t"] <= lit[0].end
                       and e["text"].strip().isdigit()), "")
    # what follows the click, to compare runs: every output dated to the microsecond, the
    # display's texts in order (a display is dated by the frame it shows in, MAME's poll)
    after = [] if click is None else [
        (round(e["t"], 6), e["type"] if e["type"] != "display" else None,
         tuple(sorted((k, str(v)) for k, v in e.items() if k not in ("t", "type"))))
        for e in events if e["t"] > click - 1e-7 and e["type"] != "button"]
    return Run(label, press, click, first, kind, outcome, number, end, after)


def _number_scans(runs: list[Run]) -> None:
    """Number the runs' key scans from 0, a pass apart: runs whose clicks coincide share
    one; a longer gap between clicks counts its passes (``PASS_S``)."""
    clicked = sorted((r for r in runs if r.click is not None), key=lambda r: r.click)
    scan, last = 0, None
    for r in clicked:
        if last is not None and r.click - last > SAME_CLICK_S:
            scan += max(1, round((r.click - last) / PASS_S))
        if last is None or r.click - last > SAME_CLICK_S:
            last = r.click
        r.scan = scan


class Sweep:
    """The runs of a sweep (``read_sweep``) and what they show over its key scans."""

    def __init__(self, name: str, runs: list[Run]):
        self.name, self.runs = name, runs
        _number_scans(runs)
        self.by_scan: dict[int, list[Run]] = collections.defaultdict(list)
        for r in runs:
            if r.scan is not None:
                self.by_scan[r.scan].append(r)

    @property
    def scans(self) -> dict[int, Run]:
        """Return the first run taken at each scan, by scan."""
        return {s: rs[0] for s, rs in sorted(self.by_scan.items())}

    def is_move(self) -> bool:
        """Tell whether the swept key drew a MOVE's outcomes only."""
        return {r.outcome for r in self.scans.values()} <= MOVE_OUTCOMES

    def same_scan(self) -> tuple[int, int]:
        """Return (pairs of runs taken at the same scan that showed the same after the click
        up to the earlier run's end: each lamp, motor, reel and tone at the same microsecond,
        the same display texts in the same order; such pairs)."""
        def seen(run: Run, stop: float) -> tuple[list, list]:
            kept = [x for x in run.after if x[0] < stop]
            return [x for x in kept if x[1] is not None], [x[2] for x in kept if x[1] is None]
        same = pairs = 0
        for rs in self.by_scan.values():
            for a, b in zip(rs, rs[1:]):
                stop = min(a.end, b.end) - FRAME_S    # the last frame may be cut in one
                pairs += 1
                same += seen(a, stop) == seen(b, stop)
        return same, pairs

    def lag_profile(self, lags: Iterable[int] = range(1, 13)) -> dict[int, tuple[int, int]]:
        """Return, for each lag p, (scans n whose outcome comes again at scan n + p, scans n
        with a scan n + p)."""
        scans = self.scans
        out = {}
        for p in lags:
            both = [n for n in scans if n + p in scans]
            out[p] = (sum(scans[n].outcome == scans[n + p].outcome for n in both), len(both))
        return out

    def branches(self) -> dict[str, list[int]]:
        """Return the scans of each branch of the draw's time: a battle (BRIGANDS), a move
        without a picture ("none") and the other outcomes together ("picture")."""
        out: dict[str, list[int]] = collections.defaultdict(list)
        for n, r in self.scans.items():
            if r.think is None:
                continue
            out["battle" if r.outcome == "BRIGANDS" else
                "none" if r.outcome == "none" else "picture"].append(n)
        return dict(out)

    def loop_counts(self) -> dict[str, tuple[int, dict[int, int], int]]:
        """Return, per branch other than a battle, (its base: the shortest think time in whole
        instructions; each scan's j, the steps of 3 instructions above the base, for the
        think times that are the base plus a whole number of them within 0.1 instruction;
        how many are not)."""
        scans = self.scans
        out = {}
        for branch, ns in self.branches().items():
            if branch == "battle":
                continue
            base = round(min(scans[n].think for n in ns))
            js, off = {}, 0
            for n in ns:
                steps = (scans[n].think - base) / 3
                if abs(steps - round(steps)) * 3 <= 0.1:
                    js[n] = round(steps)
                else:
                    off += 1
            out[branch] = (base, js, off)
        return out

    def block_values(self) -> dict[int, int]:
        """Return (j + e) mod 3 at each scan of a MOVE sweep with a loop count (module doc):
        j counted from the picture branch's base, a safe move's from that base plus
        ``SAFE_ABOVE`` instructions (its own base lies so in both MOVE sweeps, up to whole
        steps), e its place in ``MOVE_CIRCLE``."""
        counts = self.loop_counts()
        if "picture" not in counts:
            return {}
        base = counts["picture"][0]
        out = {}
        for n, r in self.scans.items():
            if r.think is None or r.outcome not in MOVE_CIRCLE:
                continue
            steps = (r.think - base - (SAFE_ABOVE if r.outcome == "none" else 0)) / 3
            if abs(steps - round(steps)) * 3 <= 0.1:
                out[n] = (round(steps) + MOVE_CIRCLE[r.outcome]) % 3
        return out

    def block_fits(self, periods: Iterable[int] = range(6, 60)) -> dict[int, tuple[int, int]]:
        """Return, per period P, (the fewest scans whose ``block_values`` differ from their
        block's commonest value, blocks of P consecutive scans at any phase; that phase: the
        first block's first scan modulo P)."""
        values = self.block_values()
        out = {}
        for period in periods:
            best = None
            for phase in range(period):
                blocks: dict[int, collections.Counter] = collections.defaultdict(
                    collections.Counter)
                for n, v in values.items():
                    blocks[(n - phase) // period][v] += 1
                miss = sum(sum(c.values()) - max(c.values()) for c in blocks.values())
                if best is None or miss < best[0]:
                    best = (miss, phase)
            out[period] = best
        return out

    def blocks(self, period: int, phase: int) -> list[tuple[int, int | None]]:
        """Return (first scan, commonest value) of each block of ``period`` scans at
        ``phase`` that holds a scan with a value."""
        values = self.block_values()
        blocks: dict[int, collections.Counter] = collections.defaultdict(collections.Counter)
        for n, v in values.items():
            blocks[(n - phase) // period][v] += 1
        return [(b * period + phase, blocks[b].most_common(1)[0][0]) for b in sorted(blocks)]

    def block_circles(self, phase: int, period: int = BLOCK) -> list[tuple]:
        """Return, per block of ``period`` scans at ``phase`` (``blocks``) whose every scan
        is in the sweep: (its first scan, ``circle_steps`` of its outcomes, their order round
        the circle at the middle of the first interval, of ``SHUFFLES`` shufflings of its
        outcomes among its scans how many give some step a circle too)."""
        scans = self.scans
        out = []
        for first, _ in self.blocks(period, phase):
            ns = range(first, first + period)
            if not all(n in scans for n in ns):
                continue
            outcomes = {n - first: scans[n].outcome for n in ns}
            steps = circle_steps(outcomes)
            order = circle_order(outcomes, float(sum(steps[0]) / 2)) if steps else []
            rng = random.Random(f"{self.name} {first}")
            values, hits = list(outcomes.values()), 0
            for _ in range(SHUFFLES):
                rng.shuffle(values)
                hits += bool(circle_steps(dict(zip(outcomes, values))))
            out.append((first, steps, order, hits))
        return out

    def window_circles(self, phase: int, period: int = BLOCK) -> dict[int, tuple[int, int]]:
        """Return, per offset k from a block's start (blocks of ``period`` at ``phase``), of
        the windows of ``period`` consecutive scans all in the sweep that begin k scans after
        a block's start (k = 0: the blocks themselves), (how many read one circle as in
        ``block_circles``, how many there are)."""
        scans = self.scans
        out: dict[int, list[int]] = collections.defaultdict(lambda: [0, 0])
        for first in range(min(scans, default=0), max(scans, default=0) - period + 2):
            ns = range(first, first + period)
            if all(n in scans for n in ns):
                got = out[(first - phase) % period]
                got[0] += bool(circle_steps({n - first: scans[n].outcome for n in ns}))
                got[1] += 1
        return {k: (a, b) for k, (a, b) in sorted(out.items())}

    def outcome_arc(self, outcome: str) -> tuple[int, int, tuple[Fraction, Fraction]]:
        """Return (the scans off the best arc of ``outcome`` at the phase's step
        PHASE_STEP/PHASE_TURN a scan; the fewest at any step 0 < a <= 1/2; the steps that
        give the fewest, (lo, hi), the first such interval)."""
        flags = {n: r.outcome == outcome for n, r in self.scans.items()}
        at_phase = arc_misfits(flags, PHASE_STEP / PHASE_TURN)
        steps = _step_intervals(flags, lambda a: arc_misfits(flags, a))
        lo, hi, least = min(steps, key=lambda s: s[2])       # the first with the fewest
        return at_phase, least, (lo, hi)

    def path_fit(self, shuffles: int = PATH_SHUFFLES) -> PathFit | None:
        """Return, for a MOVE sweep, each outcome's path (``PathFit``): the instructions it
        adds to the think time above LOST's, chosen so that the rest changes least from scan
        to scan inside each block of ``BLOCK`` scans (``block_fits``), and the chance of so
        steady a rest: of ``shuffles`` shufflings of the pictures among each block's scans
        that drew one (the safe moves left where they are), each fitted alike, how many are
        as steady.  None for a sweep that is not a MOVE's or has no LOST."""
        scans = self.scans
        if not self.is_move():
            return None
        phase = self.block_fits([BLOCK])[BLOCK][1]
        rows = [(n, r.outcome, r.think) for n, r in scans.items()
                if r.think is not None and r.outcome in MOVE_CIRCLE]
        if not any(o == "LOST" for _, o, _ in rows):
            return None
        blocks = [(n - phase) // BLOCK for n, _, _ in rows]
        think = np.array([t for _, _, t in rows])
        fit = _fit_paths(think, [o for _, o, _ in rows], blocks)
        rng = random.Random(f"{self.name} paths")
        pictures = [[i for i, (bb, (_, o, _)) in enumerate(zip(blocks, rows))
                     if bb == b and o != "none"] for b in sorted(set(blocks))]
        as_steady = 0
        for _ in range(shuffles):
            labels = [o for _, o, _ in rows]
            for where in pictures:
                mine = [labels[i] for i in where]
                rng.shuffle(mine)
                for i, o in zip(where, mine):
                    labels[i] = o
            as_steady += _fit_paths(think, labels, blocks).change <= fit.change
        return dataclasses.replace(fit, shuffles=shuffles, as_steady=as_steady)

    def battle_residues(self) -> dict[int, collections.Counter]:
        """Return, per count of BRIGANDS a battle showed, its think times (whole
        instructions) modulo 3, counted."""
        out: dict[int, collections.Counter] = collections.defaultdict(collections.Counter)
        for r in self.scans.values():
            if r.outcome == "BRIGANDS" and r.think is not None and r.number:
                out[int(r.number)][round(r.think) % 3] += 1
        return dict(sorted(out.items()))


@dataclass(frozen=True)
class PathFit:
    """What ``Sweep.path_fit`` finds: ``paths``, per MOVE outcome, the instructions its path
    adds to the think time above LOST's.  With them the rest of the think time, from one
    scan that drew a picture to the next inside a block (``hazard_steps`` such steps),
    changes by ``change`` instructions in all, falls at ``falls`` steps and moves by a whole
    number of 9 instructions at ``nines``; from any scan to the next inside a block, the
    safe moves too (``steps``), it falls at ``all_falls``.  Of ``shuffles`` shufflings of
    the pictures within blocks, ``as_steady`` change as little."""
    paths: dict[str, int]
    change: float
    hazard_steps: int
    falls: int
    nines: int
    steps: int
    all_falls: int
    shuffles: int = 0
    as_steady: int = 0


def _fit_paths(think: np.ndarray, outcomes: Sequence[str], blocks: Sequence[int]) -> PathFit:
    """Fit the paths of ``PathFit``: PLAGUE's and DRAGON's together on the scans that drew
    a picture, then the safe move's on all, each from ``PATHS``."""
    labels, block_of = np.array(outcomes), np.array(blocks)
    same_block = block_of[1:] == block_of[:-1]
    hazard = labels != "none"

    def change(rest: np.ndarray, keep: np.ndarray) -> np.ndarray:
        """Total change of each row of ``rest`` over the kept scans, within blocks."""
        kept = block_of[keep]
        return np.abs(np.diff(rest[:, keep], axis=1))[:, kept[1:] == kept[:-1]].sum(axis=1)

    grid = np.array([(p, d) for p in PATHS for d in PATHS], float)
    rest = (think[None, :] - grid[:, :1] * (labels == "PLAGUE") -
            grid[:, 1:] * (labels == "DRAGON"))
    plague, dragon = grid[int(np.argmin(change(rest, hazard)))]
    base = think - plague * (labels == "PLAGUE") - dragon * (labels == "DRAGON")
    safe_paths = np.array(list(PATHS), float)
    rests = base[None, :] - safe_paths[:, None] * (labels == "none")
    every = np.ones(len(labels), bool)
    safe = safe_paths[int(np.argmin(change(rests, every)))]
    rest = base - safe * (labels == "none")
    steps = np.diff(rest)[same_block]
    kept = block_of[hazard]
    between = np.diff(rest[hazard])[kept[1:] == kept[:-1]]
    nines = int(np.sum(np.abs(between / 9 - np.round(between / 9)) * 9 <= 0.1))
    return PathFit({"LOST": 0, "DRAGON": int(dragon), "PLAGUE": int(plague),
                    "none": int(safe)}, round(float(np.abs(between).sum()), 1), len(between),
                   int(np.sum(between < -0.5)), nines, len(steps), int(np.sum(steps < -0.5)))


def circle_steps(outcomes: dict[int, str]) -> list[tuple[Fraction, Fraction]]:
    """Return the intervals (lo, hi) of steps a, 0 < a <= 1/2, for which the scans of
    ``outcomes`` (scan: outcome), ordered by the fractional part of a x scan, show each
    outcome in one stretch round the circle (intervals that touch are joined; a step 1 - a
    orders the scans the other way round, the same circle read backwards).  One a inside
    each interval where the order does not change tells for all of it (``_step_intervals``).
    """
    want = len(set(outcomes.values()))
    return [(lo, hi) for lo, hi, one in _step_intervals(
        outcomes, lambda a: len(_stretches(outcomes, a)) == want) if one]


def _step_intervals(scans: dict, value) -> list[tuple[Fraction, Fraction, object]]:
    """Return ``value(a)`` over the steps 0 < a <= 1/2 for ``scans`` (keyed by scan) ordered
    round the circle of step a: (lo, hi, value) for each interval of steps with one order,
    intervals that touch and give the same value joined.  The order of scans n0..n1 changes
    only where a is a fraction whose denominator is at most n1 - n0."""
    ns = sorted(scans)
    span = ns[-1] - ns[0] if len(ns) > 1 else 1
    cuts = sorted({Fraction(p, q) for q in range(1, span + 1) for p in range(q // 2 + 1)}
                  | {Fraction(1, 2)})
    out: list[tuple[Fraction, Fraction, object]] = []
    for lo, hi in zip(cuts, cuts[1:]):
        v = value(float(lo + hi) / 2)
        if out and out[-1][1] == lo and out[-1][2] == v:
            out[-1] = (out[-1][0], hi, v)
        else:
            out.append((lo, hi, v))
    return out


def circle_order(outcomes: dict[int, str], a: float) -> list[str]:
    """Return the outcomes of ``outcomes`` (scan: outcome) round the circle of step ``a`` (by
    the fractional part of a x scan), one per stretch, from the first in ``CIRCLE``."""
    stretches = _stretches(outcomes, a)
    first = min(range(len(stretches)),
                key=lambda i: CIRCLE.index(stretches[i]) if stretches[i] in CIRCLE else 99)
    return stretches[first:] + stretches[:first]


def arc_misfits(flags: dict[int, bool], a: float) -> int:
    """Return how few scans of ``flags`` (scan: in or not) lie off the best arc of the
    circle of step ``a`` (scans ordered by (a x scan) mod 1): the ins outside it and the
    outs inside it, the arc chosen to make that least."""
    seq = [1 if flags[n] else -1 for n in _round_circle(flags, a)]
    ins = sum(v > 0 for v in seq)

    def most(values: list[int]) -> int:        # the largest sum of a run (Kadane)
        best = run = 0
        for v in values:
            run = max(0, run + v)
            best = max(best, run)
        return best
    # an arc round the circle: a run of the sequence, or all but a run of it
    gain = max(most(seq), sum(seq) + most([-v for v in seq]))
    return ins - gain


def _stretches(outcomes: dict[int, str], a: float) -> list[str]:
    """The outcome of each stretch round the circle of step ``a``: consecutive scans in the
    order of (a x scan) mod 1 with the same outcome make one stretch."""
    seq = [outcomes[n] for n in _round_circle(outcomes, a)]
    return [x for i, x in enumerate(seq) if x != seq[i - 1]] or seq[:1]


def _round_circle(scans: Iterable[int], a: float) -> list[int]:
    """The scans in their order round the circle of step ``a``: by (a x scan) mod 1, the
    earlier scan first where two fall together."""
    return sorted(scans, key=lambda n: ((a * n) % 1.0, n))


def read_sweep(paths: Sequence[str] | str, press: int | None = None) -> Sweep:
    """Read a sweep: a folder with ``sweep.jsonl``, or recording folders with
    ``events.jsonl`` (one run each, or a folder holding one such folder, as the lab returns
    a request's session; the swept key is the last press, or press number ``press`` from
    0).  Raise ``SweepError`` naming the file for anything else."""
    paths = [paths] if isinstance(paths, str) else list(paths)
    if len(paths) == 1 and os.path.isfile(os.path.join(paths[0], "sweep.jsonl")):
        return _read_lab_sweep(paths[0])
    runs = []
    for folder in paths:
        if not os.path.exists(folder):
            raise SweepError(f"{folder}: no such folder (expected a sweep folder or recording "
                             f"folders)")
        path = recording_events_file(folder)
        if path is None:
            raise SweepError(f"{folder}: no sweep.jsonl or events.jsonl (expected a sweep "
                             f"folder or recording folders)")
        try:
            events = read_events(path)
        except (OSError, ValueError) as exc:
            raise SweepError(f"{path}: {exc}") from None
        name = os.path.basename(os.path.normpath(folder))
        games = _games(os.path.dirname(path))
        for i, (on, off) in enumerate(games):
            one = len(games) == 1
            label = name if one else f"{name} game {i + 1}"
            game = [dict(e, t=e["t"] - on) for e in events if on - 1e-9 <= e["t"] < off]
            runs.append(_run_of_game(label, path if one else f"{path} ({label})", game, press))
    return Sweep(", ".join(os.path.basename(os.path.normpath(p)) for p in paths[:1]) +
                 (f" and {len(paths) - 1} more" if len(paths) > 1 else ""), runs)


def _games(folder: str) -> list[tuple[float, float]]:
    """The games a recording holds, (power-on, power-off) in its time: one per power-on its
    ``script.txt`` switches (a request's sweep in one session, each game from a fresh
    power-on); the whole recording when it has no script or no power-on after the start."""
    script_path = os.path.join(folder, "script.txt")
    if not os.path.isfile(script_path):
        return [(0.0, math.inf)]
    try:
        script = read_script(script_path)
    except ScriptError as exc:
        raise SweepError(str(exc)) from None
    offs = sorted(a.t for a in script.actions if isinstance(a, Power) and not a.on)
    return [(on, next((t for t in offs if t > on), math.inf)) for on in power_ons(script)]


def _run_of_game(label: str, where: str, events: list[dict], press: int | None) -> Run:
    """The run of one game's ``events`` (its time from its power-on; ``where``: the file and
    game an error names): the swept key is its last press, or press number ``press`` from
    0, and the run ends at the next press the tower takes (what a later key draws is not the
    swept key's; a key pressed while the draw still shows, which no click follows, draws
    nothing)."""
    presses = [e["t"] for e in events if e["type"] == "button" and e["action"] == "press"]
    if not presses:
        raise SweepError(f"{where}: no button press (expected the swept key's)")
    if press is not None and not -len(presses) <= press < len(presses):
        raise SweepError(f"{where}: press {press} asked for, it has {len(presses)} presses")
    index = len(presses) - 1 if press is None else press % len(presses)
    end = next((t for t in presses[index + 1:] if _click(events, t) is not None), None)
    return run_from_events(label, [e for e in events if end is None or e["t"] < end],
                           presses[index], end)


def _read_lab_sweep(folder: str) -> Sweep:
    try:
        runs = read_sweep_runs(folder)
    except LabSweepError as exc:
        raise SweepError(str(exc)) from None
    return Sweep(os.path.basename(os.path.normpath(folder)),
                 [run_from_events(str(r.offset_frames), r.events, r.press_s) for r in runs])


def sweep_report(sweep: Sweep, runs: bool = False) -> list[str]:
    """Return the lines of ``towerlab draws``: the sweep's scans, outcomes and the figures of
    docs/draws.md sections 1, 2, 3, 6 and 7 (``runs``: a line per run first)."""
    lines = []
    scans = sweep.scans
    if runs:
        lines.append("run     press s     click s  scan  outcome   number  think (instr)")
        for r in sorted(sweep.runs, key=lambda r: r.press):
            think = "-" if r.think is None else f"{r.think:.2f}"
            lines.append(f"{r.label:>5} {r.press:11.6f} {r.click or 0:11.6f} "
                         f"{'-' if r.scan is None else r.scan:>5}  {r.outcome:9} "
                         f"{r.number or '-':>6}  {think}")
    unclicked = sum(r.click is None for r in sweep.runs)
    lines.append(f"sweep {sweep.name}: {len(sweep.runs)} runs, {len(scans)} key scans "
                 f"({unclicked} runs without a click)")
    same, pairs = sweep.same_scan()
    lines.append(f"runs taken at the same scan that show the same after the click: "
                 f"{same} of {pairs} pairs")
    counts = collections.Counter(r.outcome for r in scans.values())
    lines.append("outcomes by scan: " + ", ".join(f"{k} {v}" for k, v in counts.most_common()))
    lines.append("sequence: " + " ".join(outcome_letter(scans[n].outcome) for n in scans))
    prof = sweep.lag_profile()
    chance = sum((v / len(scans)) ** 2 for v in counts.values())
    lines.append(f"same outcome p scans later (chance {chance:.2f}): " +
                 ", ".join(f"{p}: {a}/{b}" for p, (a, b) in prof.items()))
    lines.extend(_phase_lines(sweep, counts))
    for branch, (base, js, off) in sorted(sweep.loop_counts().items()):
        if js:
            lines.append(f"think time, {branch}: {base} + 3j instructions at {len(js)} scans "
                         f"(j {min(js.values())}-{max(js.values())}), {off} not")
    if sweep.is_move():
        fits = sweep.block_fits()
        values = sweep.block_values()
        clean = [p for p, (miss, _) in fits.items() if miss == 0]
        lines.append(f"(j + e) mod 3 over blocks: {len(values)} scans; periods that leave no "
                     f"exception: {', '.join(map(str, clean)) or 'none'}")
        miss, phase = fits[18]
        blocks = sweep.blocks(18, phase)
        lines.append(f"  blocks of 18 scans: {miss} exceptions; blocks begin at " +
                     ", ".join(f"{s} ({v})" for s, v in blocks) + " (scan (value))")
        lines.extend(_circle_lines(sweep.block_circles(phase), sweep.window_circles(phase)))
        lines.extend(_path_lines(sweep.path_fit()))
        residues = sweep.battle_residues()
        if residues:
            lines.append("battles, think time mod 3 by BRIGANDS: " + "; ".join(
                f"{n}: " + " ".join(f"{r}x{c}" for r, c in sorted(cnt.items()))
                for n, cnt in residues.items()))
    return lines


def _phase_lines(sweep: Sweep, counts: collections.Counter) -> list[str]:
    """The report's lines on the phase (docs/draws.md, section 11)."""
    far = {p: ab for p, ab in sweep.lag_profile(PHASE_LAGS).items() if ab[1]}
    out = []
    if far:
        out.append(f"a turn of the phase ({PHASE_STEP}/{PHASE_TURN} a scan): same outcome " +
                   ", ".join(f"{p}: {a}/{b}" for p, (a, b) in far.items()) + " scans later")
    for outcome, _ in counts.most_common():
        if outcome == "none" or not 3 <= counts[outcome] < len(sweep.scans):
            continue
        at, least, (lo, hi) = sweep.outcome_arc(outcome)
        out.append(f"  {outcome} on one arc of the phase: {at} of {len(sweep.scans)} scans "
                   f"off; the fewest at any step, {least}, at {lo}-{hi} a scan")
    return out


def _path_lines(fit: PathFit | None) -> list[str]:
    """The report's lines on ``Sweep.path_fit`` (docs/draws.md, section 6)."""
    if fit is None:
        return []
    paths = ", ".join(f"{outcome_letter(o)} {'+' if p >= 0 else ''}{p}"
                      for o, p in fit.paths.items() if o != "LOST")
    return [f"  think time less each outcome's path (instructions above LOST's: {paths}), "
            f"inside blocks:",
            f"    from a picture to the next it changes by {fit.change:g} instructions over "
            f"{fit.hazard_steps} steps, {fit.nines} of them whole 9s, falling at {fit.falls} "
            f"({fit.all_falls} of {fit.steps} with the safe moves); of {fit.shuffles} "
            f"shufflings of the pictures within blocks, {fit.as_steady} as steady"]


def _circle_lines(circles: list[tuple], windows: dict[int, tuple[int, int]]) -> list[str]:
    """The report's lines on ``Sweep.block_circles`` and ``Sweep.window_circles``."""
    if not circles:
        return []
    half = [windows[k] for k in range(BLOCK // 3, BLOCK - BLOCK // 3 + 1) if k in windows]
    whole = sum(bool(steps) for _, steps, _, _ in circles)
    spans = sorted({" or ".join(f"{lo}-{hi}" for lo, hi in steps) or "none"
                    for _, steps, _, _ in circles})
    orders = sorted({" ".join(outcome_letter(o) for o in order) for _, _, order, _ in circles})
    circle = " ".join(map(outcome_letter, CIRCLE))
    return [f"  each whole block alone, its scans ordered by (a x scan) mod 1: one stretch "
            f"per outcome in {whole} of {len(circles)} blocks, a {'; '.join(spans)}",
            f"    round the circle: {', '.join(orders)} (circle {circle});"
            f" of {SHUFFLES} shufflings of each block's outcomes "
            + ", ".join(str(h) for *_, h in circles) + " read one circle",
            f"    windows of {BLOCK} scans half a block off (beginning {BLOCK // 3}-"
            f"{BLOCK - BLOCK // 3} scans after a block's start): {sum(a for a, _ in half)} of "
            f"{sum(b for _, b in half)} read one circle"]


def outcome_letter(outcome: str) -> str:
    """Return the letter a report shows for a sweep's outcome ("-" for none)."""
    return {"none": "-", "BRIGANDS": "B"}.get(outcome, outcome[:1])
