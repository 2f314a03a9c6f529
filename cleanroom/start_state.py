"""Where the genuine tower's hidden state starts: the set-up after the level key, read from
recordings (docs/draws.md, section 10).

After the key that chooses the level (YES/BUY at L1, L2 or L3) the genuine tower works for a
time its hidden state decides before the player-count prompt's key loop begins (the game's
``players_setup_cycles`` timing decision, cleanroom/params.py).  It is the first thing in a
game the state decides, and a recording dates it: the next key's click comes a whole
number of key-loop passes after that loop begins, so the click's time, against the
clean-room game's own click with the decision at a known value, gives the set-up's time
within some tens of cycles (the game's model of the key loop; against the pins of 22 games
the spread is 61 cycles, 88 where the take's pass is lit, where the set-ups spread over
3,700).  ``read_setup`` reads it, with the key-loop passes before it as the clean-room game
counts them (``Engine.takes``, the R2 strobes of the pins): the power-on loop's (the
flashing dashes, up to the tower test's key) and each level-prompt loop's (L1, and the loops
NO/END steps through).

What it shows (``setup_report``): recordings whose level prompt took the same number of loops
and the same number of passes in all agree, whatever the power-on loop's passes; counted from
power-on they do not.  So the state the draws read is set at the tower test, the same in every
game, and moved on by the key loops after it (and the flows between them).  Level 4 is
preprogrammed and has no such set-up (None).

The clock is MAME's 425 kHz (the corpus's) unless a clock ratio is given: a real tower's
recording needs its own (``towerlab clock`` fits it; ``towerlab draws --setup --clock-ratio``).
"""
from __future__ import annotations

import itertools
import random
from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Sequence

from captures.darktower_facts import INSTRUCTION_CYCLES, NOMINAL_CLOCK_HZ
from captures.script import Script
from captures.tower import run_script

from .decisions import Start
from .params import param

__all__ = ["SetupReading", "read_setup", "setup_groups", "setup_report", "shuffled_agreement",
           "AGREE_CYCLES", "BAND_CYCLES"]

SETUP = "players_setup_cycles"
# two set-ups this close agree: the game's key loop is modelled within a few cycles of the
# genuine's, and the set-up's own extra instructions (0, 3 or 6 at a pass's end) move it by up
# to 36 cycles; the set-ups of the corpus spread over some 3,700
AGREE_CYCLES = 70.0
# the shortest set-ups of the corpus lie within this much of the shortest (a set-up that did
# not repeat its step, docs/draws.md section 10): at level 1 the next are 600 cycles longer
BAND_CYCLES = 400.0
# how long after the level key's click the next click is looked for
_NEXT_CLICK_S = 60.0
_GRID = 8                   # values across the decision's range a reading starts from
_SAME_PASS_CYCLES = 30.0    # a checked value's click this close: the same key-loop pass


@dataclass(frozen=True)
class SetupReading:
    """The set-up after the level key of one recording."""
    session: str
    power_on_passes: int            # key-loop passes of the power-on loop, to the tower test
    level_loops: tuple[int, ...]    # the passes of each level-prompt loop, to its key
    level: int                      # the level chosen (1-3)
    extra_cycles: float             # the set-up's time beyond the game's own, in cycles

    @property
    def passes(self) -> int:
        """The key-loop passes from the tower test's key to the level key."""
        return sum(self.level_loops)

    @property
    def key(self) -> tuple[int, int]:
        """(level-prompt loops, passes): what the set-up's time follows."""
        return len(self.level_loops), self.passes

    def line(self) -> str:
        loops = "+".join(str(n) for n in self.level_loops)
        return (f"{self.session}: level {self.level}, power-on loop {self.power_on_passes} "
                f"passes, level prompt {loops} = {self.passes} passes in "
                f"{len(self.level_loops)} loop{'s' if len(self.level_loops) > 1 else ''}, "
                f"set-up {self.extra_cycles:+.0f} cycles")


def _clicks(events: Iterable[dict], after: float, clock_ratio: float = 1.0) -> list[float]:
    hz = param("click_hz") * clock_ratio        # a tone's pitch follows the clock
    return sorted(e["t"] for e in events if e["type"] == "tone" and e["t"] > after
                  and abs((e.get("freq_hz") or 0) - hz) < 1)


def _replay(script: Script, forced: Sequence, until: float, clock_ratio: float = 1.0):
    tower, chooser = Start(clock_ratio, watch=False)(list(forced))
    events = run_script(tower, script, until=until)
    return events, chooser.calls, tower.game.engine.takes


def read_setup(script: Script, events: Sequence[dict], session: str = "",
               clock_ratio: float = 1.0) -> SetupReading | None:
    """Return the set-up after the level key of the recording (``script``, ``events``), or
    None where there is none (level 4; a recording that ends before it).  ``clock_ratio``:
    the recorded tower's clock over MAME's 425 kHz (a real tower's, ``towerlab clock``); the
    set-up is given in cycles of its own clock, as the game's decision counts them.  Raise
    ValueError when the recording's clicks do not follow the script's keys (not a recording
    of this game from power-on, or another clock)."""
    end = script.end_time()
    _, calls, takes = _replay(script, (), end, clock_ratio)
    i = next((j for j, d in enumerate(calls) if d.name == SETUP), None)
    if i is None:
        return None
    # the level prompt's loops: after the tower test's key, up to the YES/BUY that chose
    level_at = next((j for j in range(1, len(takes)) if takes[j][1] == "YES/BUY"), None)
    if level_at is None or calls[i].t < takes[level_at][0] - 1e-6:
        return None
    steps = [k for _, k, _ in takes[1:level_at]]
    head = [d.value for d in calls[:i]]
    lo, hi = min(calls[i].options), max(calls[i].options)
    ref = _clicks(events, 0.0, clock_ratio)
    until = min(end, calls[i].t + _NEXT_CLICK_S)

    def offset(value: int) -> float | None:
        # the recording's next click less the game's, in cycles, with the set-up at ``value``
        events_game, _, game_takes = _replay(script, head + [value], until, clock_ratio)
        game = _clicks(events_game, game_takes[level_at][0] - 1e-6, clock_ratio)
        if len(game) < 2:
            return None
        near = min(ref, key=lambda t: abs(t - game[0]), default=None)
        if near is None or abs(near - game[0]) > 0.01:
            raise ValueError(f"{session or 'recording'}: no click within 10 ms of the level "
                             f"key's at {game[0]:.3f} s (expected a recording of the game "
                             f"from power-on, its script and events together)")
        nxt = [t for t in ref if t > near + 1e-3]
        return (nxt[0] - game[1]) * NOMINAL_CLOCK_HZ * clock_ratio if nxt else None

    # the click moves with the set-up's time a cycle per cycle, except where the next key
    # is taken a key-loop pass sooner or later: from each of a few values across the range,
    # the time the click gives is checked by a replay with it (the same pass: no offset)
    tried: set[int] = set()
    for start in [0] + [int(round((lo + (hi - lo) * j / _GRID) / 6)) * 6
                        for j in range(_GRID + 1)]:
        if start in tried:
            continue
        tried.add(start)
        first = offset(start)
        if first is None:
            return None
        value = int(round((start + first) / 6)) * 6     # one-instruction options
        if value == start:
            check = first
        elif not lo <= value <= hi or value in tried:
            continue
        else:
            tried.add(value)
            check = offset(value)
        if check is not None and abs(check) < _SAME_PASS_CYCLES:
            return SetupReading(session, int(round(takes[0][2])),
                                tuple(int(round(n)) for _, _, n in takes[1:level_at + 1]),
                                1 + sum(k == "NO/END" for k in steps) % 4, value + check)
    raise ValueError(f"{session or 'recording'}: no set-up time from {lo} to {hi} cycles "
                     f"puts the game's next click on the recording's (expected a recording "
                     f"of the genuine tower at {NOMINAL_CLOCK_HZ * clock_ratio / 1000:g} kHz)")


def setup_groups(readings: Iterable[SetupReading]) -> list[list[SetupReading]]:
    """Return the readings grouped by (level-prompt loops, passes), groups of two or more."""
    groups: dict[tuple, list[SetupReading]] = defaultdict(list)
    for r in readings:
        groups[r.key].append(r)
    return [g for _, g in sorted(groups.items()) if len(g) > 1]


def _tally(pairs: Sequence[tuple[float, float]]) -> tuple[int, int]:
    """(agreeing, not) among pairs of set-up times: within ``AGREE_CYCLES`` of each other."""
    agree = sum(abs(a - b) <= AGREE_CYCLES for a, b in pairs)
    return agree, len(pairs) - agree


def _agreeing_pairs(readings: Sequence[SetupReading], key) -> tuple[int, int]:
    """(agreeing, not) pairs with the same ``key``."""
    groups: dict[tuple, list[float]] = defaultdict(list)
    for r in readings:
        groups[key(r)].append(r.extra_cycles)
    return _tally([ab for values in groups.values() for ab in itertools.combinations(values, 2)])


def _pairs_apart(readings: Sequence[SetupReading], d: int) -> tuple[int, int]:
    """(agreeing, not) pairs with as many level-prompt loops and passes ``d`` apart."""
    return _tally([(a.extra_cycles, b.extra_cycles)
                   for a, b in itertools.combinations(readings, 2)
                   if len(a.level_loops) == len(b.level_loops) and abs(a.passes - b.passes) == d])


def shuffled_agreement(readings: Sequence[SetupReading], shuffles: int = 2000,
                       seed: int = 1981) -> float:
    """Return the share of shuffles (the set-up times permuted among the readings with the
    same number of level-prompt loops) whose same-(loops, passes) pairs agree as often as the
    readings' own do: the chance of the agreement if the time did not follow the passes."""
    observed = _agreeing_pairs(readings, lambda r: r.key)[0]
    rng = random.Random(seed)
    by_loops: dict[int, list[SetupReading]] = defaultdict(list)
    for r in readings:
        by_loops[len(r.level_loops)].append(r)
    hits = 0
    for _ in range(shuffles):
        mixed = []
        for rs in by_loops.values():
            values = [r.extra_cycles for r in rs]
            rng.shuffle(values)
            mixed += [SetupReading(r.session, r.power_on_passes, r.level_loops, r.level, v)
                      for r, v in zip(rs, values)]
        hits += _agreeing_pairs(mixed, lambda r: r.key)[0] >= observed
    return hits / shuffles


def setup_report(readings: Sequence[SetupReading], each: bool = False,
                 shuffles: int = 2000) -> list[str]:
    """Return the report ``towerlab draws --setup`` prints (docs/draws.md, section 10)."""
    readings = list(readings)
    out = [r.line() for r in readings] if each else []
    if not readings:
        return out + ["no set-up after a level key in these recordings (level 4 has none)"]
    lo = min(r.extra_cycles for r in readings)
    hi = max(r.extra_cycles for r in readings)
    out.append(f"{len(readings)} set-ups after the level key: {lo:+.0f} to {hi:+.0f} cycles "
               f"beyond the game's own")
    groups = setup_groups(readings)
    out.append(f"recordings with the same level-prompt loops and passes since the tower "
               f"test: {len(groups)} groups")
    for g in groups:
        spread = max(r.extra_cycles for r in g) - min(r.extra_cycles for r in g)
        loops, passes = g[0].key
        names = ", ".join(f"{r.session} ({r.extra_cycles:+.0f}, power-on loop "
                          f"{r.power_on_passes})" for r in g)
        out.append(f"  {loops} loop{'s' if loops > 1 else ''}, {passes} passes: {names}; "
                   f"spread {spread:.0f} cycles")
    rows = [("the same level-prompt loops and passes since the tower test",
             _agreeing_pairs(readings, lambda r: r.key)),
            ("the same level-prompt loops and passes since power-on",
             _agreeing_pairs(readings,
                             lambda r: (len(r.level_loops), r.passes + r.power_on_passes))),
            ("the same level-prompt loops and power-on passes",
             _agreeing_pairs(readings, lambda r: (len(r.level_loops), r.power_on_passes)))]
    rows += [(f"the same level-prompt loops, passes since the tower test {d} apart",
              _pairs_apart(readings, d)) for d in (1, 2, 7)]
    for what, (agree, apart) in rows:
        out.append(f"pairs with {what}: {agree} of {agree + apart} agree within "
                   f"{AGREE_CYCLES:.0f} cycles")
    if shuffles and groups:
        p = shuffled_agreement(readings, shuffles)
        out.append(f"set-up times shuffled among recordings with as many level-prompt loops: "
                   f"{p * shuffles:.0f} of {shuffles} shuffles agree as often")
    return out + _shape(readings)


def _shape(readings: Sequence[SetupReading]) -> list[str]:
    """The set-up's shape (docs/draws.md, section 10): by level and level-prompt loops, how
    many lie in the band of the shortest (within ``BAND_CYCLES`` of the shortest of all),
    the others in instructions above the band's middle; and the set-ups one pass apart."""
    floor = min(r.extra_cycles for r in readings)
    middle = floor + BAND_CYCLES / 2

    def above(r: SetupReading) -> int:
        return round((r.extra_cycles - middle) / INSTRUCTION_CYCLES)
    out = [f"the band of the shortest set-ups: {floor:+.0f} to {floor + BAND_CYCLES:+.0f} "
           f"cycles"]
    for key in sorted({(r.level, len(r.level_loops)) for r in readings}):
        rs = [r for r in readings if (r.level, len(r.level_loops)) == key]
        rest = sorted(above(r) for r in rs if r.extra_cycles > floor + BAND_CYCLES)
        out.append(f"  level {key[0]}, {key[1]} level-prompt loop{'s' if key[1] > 1 else ''}: "
                   f"{len(rs) - len(rest)} of {len(rs)} in the band; the others "
                   f"{', '.join(str(a) for a in rest) or 'none'} instructions above its "
                   f"middle")
    pairs = sorted(((a, b) for a, b in itertools.permutations(readings, 2)
                    if len(a.level_loops) == len(b.level_loops) and b.passes == a.passes + 1),
                   key=lambda ab: (len(ab[0].level_loops), ab[0].passes, ab[0].session,
                                   ab[1].session))
    if pairs:
        out.append("set-ups one pass apart (same level-prompt loops), in instructions above "
                   "the band's middle:")
        out += [f"  {a.passes} / {b.passes} passes: {above(a)} / {above(b)} "
                f"({a.session} / {b.session})" for a, b in pairs]
    return out
