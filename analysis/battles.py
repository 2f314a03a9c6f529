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
went through the same draws.

Example::

    battles = read_battles(read_events("tests/data/corpus/l1_p1_s01/events.jsonl"), "l1_p1_s01")
    print(battles[0].line())
    # l1_p1_s01    97.687  BRIGANDS 09  W 114415, W 64865, W 64847, W 64789
"""
from __future__ import annotations

import bisect
import collections
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from analysis.story import session_story
from captures.darktower_facts import INSTRUCTION_CYCLES, NOMINAL_CLOCK_HZ

__all__ = ["Skirmish", "Battle", "read_battles", "identical_battles", "shared_pairs",
           "segments", "battle_report"]

SAME_T_S = 1e-5          # a picture's time and its lamp's agree within this
CUE_GAP_S = 0.01         # a cue's tones follow each other within this
CUE_START_S = 0.005      # the cue starts this soon after the BRIGANDS lamp goes dark


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
    ``lamp``), and its skirmishes."""
    session: str
    t: float
    brigands: int
    lamp: tuple[float, float]
    skirmishes: list[Skirmish] = field(default_factory=list)

    @property
    def key(self) -> tuple[tuple[int, bool], ...]:
        """Return each skirmish's (stretch, won): what two identical battles share."""
        return tuple((s.stretch, s.won) for s in self.skirmishes)

    def line(self) -> str:
        """Return the battle as one line: session, time, brigands, each skirmish's outcome
        and stretch."""
        return (f"{self.session}  {self.t:8.3f}  BRIGANDS {self.brigands:02d}  " +
                ", ".join(f"{'W' if s.won else 'L'} {s.stretch}" for s in self.skirmishes))


def _instructions(seconds: float) -> int:
    return round(seconds * NOMINAL_CLOCK_HZ / INSTRUCTION_CYCLES)


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
                    _instructions(warriors_lamp[0] - landmark)))
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
    return lines
