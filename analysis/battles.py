"""Time a recording's battles skirmish by skirmish, and find battles that repeat across
recordings (docs/draws.md, section 9, says what the figures mean).

A battle (``analysis.story``: the BRIGANDS picture, then per skirmish WARRIORS n and
BRIGANDS m, then the won or lost cue) is read off the lamps and tones, which a recording of
an exact clock dates to the microsecond.  Every stretch of a skirmish has a fixed length
but one: from the previous skirmish's cue (the start of its last tone: a tone's start is
dated to the microsecond, its length only to 0.1 ms) or, for the first skirmish, the
battle's BRIGANDS lamp going dark, to this skirmish's WARRIORS lamp, where the tower scans
for a retreat and works the skirmish out.  That stretch, in instructions (425 kHz, 6 clocks
each), with the outcome, is what a battle's ``key`` lists; two battles with the same key
went through the same draws.  Battles that only begin alike (the same outcomes from the first
skirmish and three won skirmishes within a few instructions: ``alike_starts``) started from
one state; each battle knows the key whose draw began it and how long that draw took
(``Battle.draw_time``, timed as a sweep's draws are: ``analysis.draws.click_and_output``),
which such battles share (``same_draws``).

Example::

    battles = read_battles(read_events("tests/data/corpus/l1_p1_s01/events.jsonl"), "l1_p1_s01")
    print(battles[0].line())
    # l1_p1_s01    97.687  BRIGANDS 09  W 114415, W 64865, W 64847, W 64789
"""
from __future__ import annotations

import bisect
import collections
import itertools
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from analysis.draws import click_and_output, instructions_between
from analysis.story import session_story
from captures.darktower_facts import NOMINAL_CLOCK_HZ

__all__ = ["Skirmish", "Battle", "read_battles", "identical_battles", "shared_pairs",
           "alike_starts", "same_draws", "segments", "battle_report"]

SAME_T_S = 1e-5          # a picture's time and its lamp's agree within this
CUE_GAP_S = 0.01         # a cue's tones follow each other within this
CUE_START_S = 0.005      # the cue starts this soon after the BRIGANDS lamp goes dark
BEGINNERS = ("MOVE", "TOMB/RUIN")   # the keys whose draw can begin a battle
ALIKE_WON = 3            # battles begin alike: this many won skirmishes agree from the first
ALIKE_WITHIN = 4         # within this many instructions (a won skirmish's small game terms)
SAME_DRAW = 2            # two draws that took this many instructions apart or less


@dataclass
class Skirmish:
    """One skirmish: its number ``k`` (from 0), whether it was ``won``, the warriors and
    brigands it left, its WARRIORS and BRIGANDS lamps (on and off, s), its cue (tones:
    start, Hz, duration) and ``stretch``: the instructions from the start of the previous
    cue's last tone (the first skirmish: the battle's BRIGANDS lamp going dark) to its
    WARRIORS lamp."""
    k: int
    won: bool
    warriors: int
    brigands: int
    warriors_lamp: tuple[float, float]
    brigands_lamp: tuple[float, float]
    cue: list[tuple[float, float, float]]
    stretch: int


@dataclass
class Battle:
    """A battle of ``session`` whose BRIGANDS (``brigands``) lit at ``t`` s (lamp on, off:
    ``lamp``), and its skirmishes; the key that began it (``begun_by``, the last MOVE or
    TOMB/RUIN pressed before it) and how long that key's draw took (``draw_time``: from its
    click to the tower's next output, as ``analysis.draws`` times a sweep's draws)."""
    session: str
    t: float
    brigands: int
    lamp: tuple[float, float]
    skirmishes: list[Skirmish] = field(default_factory=list)
    begun_by: str | None = None           # the key whose draw began it: MOVE or TOMB/RUIN
    draw_time: float | None = None        # that key's click to the next output, instructions

    @property
    def warriors(self) -> int | None:
        """Return the warriors the battle began with (the first skirmish's, one more if it
        was lost); None without skirmishes."""
        if not self.skirmishes:
            return None
        first = self.skirmishes[0]
        return first.warriors + (0 if first.won else 1)

    @property
    def key(self) -> tuple[tuple[int, bool], ...]:
        """Return each skirmish's (stretch, won): what two identical battles share."""
        return tuple((s.stretch, s.won) for s in self.skirmishes)

    def line(self) -> str:
        """Return the battle as one line: session, time, brigands, each skirmish's outcome
        and stretch."""
        return (f"{self.session}  {self.t:8.3f}  BRIGANDS {self.brigands:02d}  " +
                ", ".join(f"{'W' if s.won else 'L'} {s.stretch}" for s in self.skirmishes))


def _lamp_spans(events: Sequence[dict]) -> list[tuple[float, float, str]]:
    spans, lit = [], {}
    for e in events:
        if e["type"] != "lamp":
            continue
        if e["on"]:
            lit.setdefault(e["lamp"], e["t"])
        elif e["lamp"] in lit:
            spans.append((lit.pop(e["lamp"]), e["t"], e["lamp"]))
    return sorted(spans)


def _begun(events: Sequence[dict], times: list[float], presses: list[tuple[float, str]],
           t: float) -> tuple[str | None, float | None]:
    """Return the key that began the battle whose BRIGANDS lit at ``t`` (the last press
    before it, if a MOVE or TOMB/RUIN) and its draw's time in instructions (None if unseen),
    from ``events`` sorted by their ``times``."""
    i = bisect.bisect_left(presses, (t,)) - 1
    if i < 0 or presses[i][1] not in BEGINNERS:
        return None, None
    press, key = presses[i]
    window = events[bisect.bisect_left(times, press - 1e-6):bisect.bisect_right(times, t)]
    click, first, _ = click_and_output(window, press)
    return key, None if first is None else instructions_between(click, first)


def read_battles(events: Sequence[dict], session: str = "") -> list[Battle]:
    """Return the battles ``events`` show with a BRIGANDS count, each skirmish timed
    (module doc); a battle whose pictures cannot all be matched to lamps, or a skirmish
    without a cue (a retreat, the Death March, a cut recording), ends the battle there."""
    events = sorted(events, key=lambda e: e["t"])
    spans = _lamp_spans(events)
    starts = [a for a, _, _ in spans]
    tones = [(e["t"], e.get("freq_hz") or 0.0, e.get("dur_s") or 0.0)
             for e in events if e["type"] == "tone"]

    tone_t = [x[0] for x in tones]
    times = [e["t"] for e in events]
    presses = [(e["t"], e["button"]) for e in events
               if e["type"] == "button" and e.get("action") == "press"]

    def span_at(t: float) -> int | None:
        i = bisect.bisect_left(starts, t - SAME_T_S)
        return i if i < len(starts) and abs(starts[i] - t) <= SAME_T_S else None

    def cue_after(t: float) -> list[tuple[float, float, float]]:
        cue: list[tuple[float, float, float]] = []
        for x in tones[bisect.bisect_left(tone_t, t - 1e-4):]:
            if not cue:
                if x[0] - t > CUE_START_S:
                    break
                cue.append(x)
            elif x[0] - (cue[-1][0] + cue[-1][2]) <= CUE_GAP_S:
                cue.append(x)
            else:
                break
        return cue

    out = []
    for entry in session_story(events):
        for b in entry.battles:
            first = span_at(b.t)
            if not b.brigands.strip().isdigit() or first is None:
                continue
            battle = Battle(session, b.t, int(b.brigands), spans[first][:2])
            battle.begun_by, battle.draw_time = _begun(events, times, presses, b.t)
            landmark, brigands = spans[first][1], int(b.brigands)
            for k, (t, w, br) in enumerate(b.rounds):
                i = span_at(t)
                if i is None or i + 1 >= len(spans) or not (w.strip().isdigit()
                                                            and br.strip().isdigit()):
                    break
                warriors_lamp, brigands_lamp = spans[i][:2], spans[i + 1][:2]
                cue = cue_after(brigands_lamp[1])
                if not cue:
                    break
                left = int(br)
                battle.skirmishes.append(Skirmish(
                    k, left < brigands, int(w), left, warriors_lamp, brigands_lamp, cue,
                    round(instructions_between(landmark, warriors_lamp[0]))))
                landmark, brigands = cue[-1][0], left
            if battle.skirmishes:
                out.append(battle)
    return out


def identical_battles(battles: Iterable[Battle]) -> list[list[Battle]]:
    """Return the groups of battles of different sessions whose skirmishes agree in every
    stretch and outcome (``Battle.key``), the longest first."""
    by_key: dict[tuple, list[Battle]] = collections.defaultdict(list)
    for b in battles:
        by_key[b.key].append(b)
    groups = [g for g in by_key.values() if len({b.session for b in g}) > 1]
    return sorted(groups, key=lambda g: (-len(g[0].skirmishes), g[0].session, g[0].t))


def shared_pairs(battles: Iterable[Battle]) -> tuple[int, int]:
    """Return (pairs of consecutive skirmishes, each's stretch and outcome, that come in more
    than one battle; distinct such pairs)."""
    where: dict[tuple, set] = collections.defaultdict(set)
    for b in battles:
        for a, c in zip(b.key, b.key[1:]):
            where[a + c].add((b.session, b.t))
    return sum(len(v) > 1 for v in where.values()), len(where)


def _alike(a: Battle, b: Battle) -> bool:
    """Tell whether ``a`` and ``b`` begin alike (``alike_starts``)."""
    won = 0
    for x, y in zip(a.skirmishes, b.skirmishes):
        if x.won != y.won or (x.won and abs(x.stretch - y.stretch) > ALIKE_WITHIN):
            break
        won += x.won
    return won >= ALIKE_WON


def alike_starts(battles: Sequence[Battle]) -> tuple[list[tuple[Battle, Battle]], int]:
    """Return (the pairs of battles of different sessions that begin alike: from the first
    skirmish the same outcomes, and ``ALIKE_WON`` or more won skirmishes whose stretches
    agree within ``ALIKE_WITHIN`` instructions before the first that differs (a lost
    skirmish's stretch carries terms of the game's own and is not compared); how many pairs
    of battles of different sessions there are).  Such battles start from one state
    (docs/draws.md, section 9)."""
    pairs = [(a, b) for a, b in itertools.combinations(battles, 2) if a.session != b.session]
    return [(a, b) for a, b in pairs if _alike(a, b)], len(pairs)


def same_draws(pairs: Iterable[tuple[Battle, Battle]]) -> tuple[int, int]:
    """Return (of the pairs both begun by a MOVE whose draw was timed, how many took times
    within ``SAME_DRAW`` instructions of each other; such pairs)."""
    timed = [(a.draw_time, b.draw_time) for a, b in pairs
             if a.begun_by == b.begun_by == "MOVE" and None not in (a.draw_time, b.draw_time)]
    return sum(abs(x - y) <= SAME_DRAW + 0.1 for x, y in timed), len(timed)


def segments(battles: Iterable[Battle]) -> dict[str, tuple[float, float, int]]:
    """Return each fixed stretch's (shortest, longest in clocks, how many): the lamps' lit
    times, the dark gap between WARRIORS and BRIGANDS, BRIGANDS dark to the cue, the cue;
    and the variable ``stretch`` (instructions) after a first, won and lost skirmish."""
    vals: dict[str, list[float]] = collections.defaultdict(list)
    clocks = NOMINAL_CLOCK_HZ
    for b in battles:
        vals["battle BRIGANDS lit"].append((b.lamp[1] - b.lamp[0]) * clocks)
        prev = None
        for s in b.skirmishes:
            tag = "won" if s.won else "lost"
            vals["WARRIORS lit"].append((s.warriors_lamp[1] - s.warriors_lamp[0]) * clocks)
            vals["WARRIORS dark to BRIGANDS"].append(
                (s.brigands_lamp[0] - s.warriors_lamp[1]) * clocks)
            vals["BRIGANDS lit"].append((s.brigands_lamp[1] - s.brigands_lamp[0]) * clocks)
            vals[f"BRIGANDS dark to cue, {tag}"].append(
                (s.cue[0][0] - s.brigands_lamp[1]) * clocks)
            vals[f"cue, {tag}"].append((s.cue[-1][0] + s.cue[-1][2] - s.cue[0][0]) * clocks)
            after = "first" if prev is None else "after won" if prev else "after lost"
            vals[f"stretch (instructions), {tag}, {after}"].append(s.stretch)
            prev = s.won
    return {k: (min(v), max(v), len(v)) for k, v in sorted(vals.items())}


def battle_report(battles: Sequence[Battle], each: bool = False) -> list[str]:
    """Return the lines of ``towerlab battles``: counts, the stretches, identical battles and
    shared pairs across sessions (``each``: a line per battle first)."""
    lines = [b.line() for b in battles] if each else []
    n = sum(len(b.skirmishes) for b in battles)
    sessions = len({b.session for b in battles})
    lines.append(f"{len(battles)} battles with a BRIGANDS count, {n} skirmishes, "
                 f"{sessions} recordings")
    for name, (lo, hi, count) in segments(battles).items():
        unit = "" if name.startswith("stretch") else " clocks"
        lines.append(f"  {name}: {lo:.0f}-{hi:.0f}{unit} ({count})")
    groups = identical_battles(battles)
    lines.append(f"identical battles in different recordings: {len(groups)} groups")
    for g in groups:
        lines.append("  " + "; ".join(f"{b.session} {b.t:.2f}" for b in g) +
                     f": {len(g[0].skirmishes)} skirmishes")
    repeated, distinct = shared_pairs(battles)
    lines.append(f"pairs of consecutive skirmishes in more than one battle: {repeated} of "
                 f"{distinct}")
    return lines + _alike_lines(battles, each)


def _alike_lines(battles: Sequence[Battle], each: bool) -> list[str]:
    """The report's lines on ``alike_starts`` and ``same_draws``."""
    alike, tried = alike_starts(battles)
    moves = [b for b in battles if b.begun_by == "MOVE"]
    same, timed = same_draws(alike)
    any_same, any_timed = same_draws((a, b) for a, b in itertools.combinations(moves, 2)
                                     if a.session != b.session)
    lead = sum(a.brigands - a.warriors == b.brigands - b.warriors for a, b in alike)
    lines = [f"battles that begin alike (the same outcomes from the first skirmish, "
             f"{ALIKE_WON} or more won within {ALIKE_WITHIN} instructions): "
             f"{len(alike)} of {tried} pairs, {lead} of them with as many brigands more than "
             f"warriors"]
    if timed:
        lines.append(f"  begun by a MOVE in both: {timed}; the two MOVEs' draws within "
                     f"{SAME_DRAW} instructions of each other in {same} (any two battles "
                     f"begun by a MOVE: {any_same} of {any_timed})")
    if each:
        lines += [f"  {a.session} {a.t:.2f} ({a.begun_by or '-'} {_time(a)}) and "
                  f"{b.session} {b.t:.2f} ({b.begun_by or '-'} {_time(b)})" for a, b in alike]
    return lines


def _time(b: Battle) -> str:
    return "-" if b.draw_time is None else f"{b.draw_time:.1f}"
