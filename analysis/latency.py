"""An action key's time to its first output against what the force holds (docs/draws.md,
section 13).

From an action key's click to its first output the genuine tower takes a number of
instructions that depends on the force in play: one instruction fewer when its food's units
digit is 4-8 (the food left once this turn's ration is eaten), one fewer when its warriors'
units digit is 6-9, for a force that eats one ration a turn.  The time of an action whose
first output does not wait for a draw is nothing else (the bazaar's first price 916
instructions less those terms, the frontier's tone 888, ...: each key's base is the
commonest time with the terms added back); a MOVE's adds its outcome's path and its draw's
reading of the state in whole 3-instruction steps (section 6), so the terms fix its
remainder modulo 3; a battle's horn adds the brigands' path (``brigands_path``: the warriors
plus an offset of -2..+2, added digit by digit).  Modulo 9 a MOVE's time then shows the
count's bit 7 (``residue``; over a sweep, ``bit7_from_times`` places the count's low byte).

The holdings at each draw come from the clean-room game's replay of the recording
(``cleanroom.holdings``, which notes each action key too); this module takes them as plain
tuples, (time, name, value, food, warriors, rations), and the recording's events.

Example::

    times = key_times(events, [(h.t, h.name, h.value, h.food, h.warriors, h.rations)
                               for h in read_holdings(script, events)], "l1_p1_s01")
    print("\\n".join(latency_report(times)))
"""
from __future__ import annotations

import collections
import random
from dataclasses import dataclass
from typing import Sequence

from analysis.accumulator import STEP
from analysis.draws import click_and_output, instructions_between

__all__ = ["KeyTime", "FIXED_KEYS", "digit_terms", "brigands_path", "key_times", "residue",
           "key_line", "latency_report", "bit7_from_times", "sweep_bit7", "Bit7Reading",
           "MOVE_PATHS", "BRIGANDS_PATHS"]

MOVE_PATHS = {"lost": 0, "dragon": 3, "plague": 6, "safe": 4}   # above LOST's (section 6)
BRIGANDS_PATHS = {0: 0, 1: 1, 2: 0}     # a battle's brigands offset, modulo 3 (section 13)
DRAW_WITHIN_S = 0.25     # the game takes the key, and draws for it, this soon after the press
KEY = "key"              # an action key's holding (cleanroom.holdings.KEY)
# the action keys whose first output comes a fixed time after the click, less the terms (a
# tomb's first creak note comes before the rations are counted; REPEAT counts nothing)
FIXED_KEYS = ("BAZAAR", "SANCTUARY/CITADEL", "DARK TOWER", "FRONTIER", "INVENTORY")
SHUFFLES = 200           # shuffles of the MOVEs' outcomes, for the remainder's chance
# a sweep's outcomes (analysis.draws: the first picture lit, "none" for a safe move) and
# their paths, as MOVE_PATHS
SWEEP_PATHS = {("none" if o == "safe" else o.upper()): p for o, p in MOVE_PATHS.items()}
BIT7_ADDS = 6            # instructions bit 7 adds to a MOVE's time, modulo 9 (section 6)
LOW_STEP = STEP & 0xFF   # the count's low byte steps this a key-loop pass (7)


def digit_terms(food: int, warriors: int) -> int:
    """Return the instructions the tower's time is short of its base for a force of one
    ration with this ``food`` (this turn's ration eaten) and these ``warriors``."""
    return int(4 <= food % 10 <= 8) + int(6 <= warriors % 10 <= 9)


@dataclass(frozen=True)
class KeyTime:
    """A key (``key``) pressed at ``t`` s in ``session``: the instructions from its click to
    the tower's next output (of kind ``output``: motor, lamp or tone), the first draw the
    game made for it (``draw``, ``value``) and the force's ``food``, ``warriors`` and
    ``rations`` then."""
    session: str
    key: str
    t: float
    instructions: float
    draw: str
    value: str
    food: int
    warriors: int
    rations: int
    output: str = "tone"
    brigands: int | None = None     # a battle's brigands, when the game drew them for the key

    @property
    def whole(self) -> int:
        """Return the time to the nearest instruction."""
        return round(self.instructions)


def key_times(events: Sequence[dict], held: Sequence[tuple], session: str = ""
              ) -> list[KeyTime]:
    """Return a ``KeyTime`` for every key press of ``events`` that clicked, had an output
    after, and that the game took as an action key or drew for within ``DRAW_WITHIN_S``
    (``held``: (time, name, value, food, warriors, rations) in time order, as
    ``cleanroom.holdings`` gives them, an action key's named ``KEY``; a key without a draw
    has ``draw`` and ``value`` "")."""
    events = sorted(events, key=lambda e: e["t"])
    held = sorted(held, key=lambda h: h[0])
    out = []
    for e in events:
        if e["type"] != "button" or e.get("action") != "press":
            continue
        near = [h for h in held if 0 <= h[0] - e["t"] < DRAW_WITHIN_S]
        if not near:
            continue
        click, first, output = click_and_output(events, e["t"])
        if click is None or first is None:
            continue
        draw = next((h for h in near if h[1] != KEY), None)
        name, value = ("", "") if draw is None else (draw[1], str(draw[2]))
        _, _, _, food, warriors, rations = near[0]
        brigands = next((h[2] for h in near if h[1] == "brigands"), None)
        out.append(KeyTime(session, e["button"], e["t"], instructions_between(click, first),
                           name, value, food, warriors, rations, output, brigands))
    return out


def brigands_path(warriors: int, brigands: int) -> int | None:
    """Return what the brigands drawn as the warriors plus an offset of -2..+2 add to the
    battle horn's time, modulo 3 (section 13): 1 for an offset of 1 either way, none for 0 or
    2, and 1 more when taking it away borrows from the warriors' tens, 2 more when adding it
    carries into them; None for a larger offset."""
    offset = brigands - warriors
    if abs(offset) > 2:
        return None
    borrow = offset < 0 and warriors % 10 < -offset
    carry = offset > 0 and warriors % 10 + offset > 9
    return (BRIGANDS_PATHS[abs(offset)] + borrow + 2 * carry) % 3


def residue(k: KeyTime) -> int | None:
    """Return a MOVE's time less its outcome's path plus its force's digit terms, modulo 9
    (section 13: 3 or 6 by the count's bit 7 before a game's first draw, 0 too after); None
    for another key, a battle or a force of more than one ration."""
    if k.key != "MOVE" or k.draw != "move" or k.value not in MOVE_PATHS or k.rations != 1:
        return None
    return (k.whole - MOVE_PATHS[k.value] + digit_terms(k.food, k.warriors)) % 9


def _key_lines(times: Sequence[KeyTime]) -> list[str]:
    lines = []
    for key in FIXED_KEYS:
        by_output = collections.defaultdict(list)
        for k in times:
            if k.key == key and k.rations == 1:
                by_output[k.output].append(k)
        for output, taken in sorted(by_output.items(), key=lambda kv: -len(kv[1])):
            by = collections.Counter(k.whole + digit_terms(k.food, k.warriors) for k in taken)
            base, right = by.most_common(1)[0]
            alone = collections.Counter(k.whole for k in taken).most_common(1)[0][1]
            others = ", ".join(f"{t} x {n}" for t, n in sorted(by.items()) if t != base)
            lines.append(f"{key}, a force of one ration, to the first {output}: {len(taken)}; "
                         f"{base} instructions less the digit terms at {right} of "
                         f"{len(taken)} (the commonest time alone: {alone})"
                         + (f"; the others, with their terms: {others}" if others else ""))
    return lines or ["no action key of a force of one ration with a fixed time"]


def _move_lines(times: Sequence[KeyTime], seed: int) -> list[str]:
    moves = [k for k in times if residue(k) is not None]
    if not moves:
        return ["MOVE: none without a battle by a force of one ration"]

    def agree(values: Sequence[str], terms: bool) -> int:
        rests = collections.Counter(
            (k.whole - MOVE_PATHS[v] + (digit_terms(k.food, k.warriors) if terms else 0)) % 3
            for k, v in zip(moves, values))
        return rests.most_common(1)[0][1]

    values = [k.value for k in moves]
    rng = random.Random(seed)
    shuffled = []
    for _ in range(SHUFFLES):
        mixed = values[:]
        rng.shuffle(mixed)
        shuffled.append(agree(mixed, True))
    return [f"MOVE without a battle, a force of one ration: {len(moves)}; the time less its "
            f"outcome's path plus the digit terms in one remainder modulo 3 at "
            f"{agree(values, True)} of {len(moves)} (without the terms {agree(values, False)}; "
            f"the outcomes shuffled among the MOVEs {min(shuffled)}-{max(shuffled)} in "
            f"{SHUFFLES})"]


def key_line(k: KeyTime) -> str:
    """Return one key's line: session, time, key, draw, the force, the time in instructions
    and, for a MOVE, its residue modulo 9."""
    rest = residue(k)
    drawn = f"{k.draw}={k.value}" if k.draw else ""
    return (f"{k.session:20} {k.t:9.3f}  {k.key:17} {drawn:26.26}  food "
            f"{k.food:2d} warriors {k.warriors:2d} rations {k.rations}  {k.instructions:8.2f}"
            + ("" if rest is None else f"  residue {rest}"))


def _battle_lines(times: Sequence[KeyTime]) -> list[str]:
    battles = [k for k in times if k.key == "MOVE" and k.value == "battle" and k.rations == 1
               and k.brigands is not None
               and brigands_path(k.warriors, k.brigands) is not None]
    if not battles:
        return []

    def agree(with_path: bool) -> int:
        rests = collections.Counter(
            (k.whole + digit_terms(k.food, k.warriors)
             - (brigands_path(k.warriors, k.brigands) if with_path else 0)) % 3
            for k in battles)
        return rests.most_common(1)[0][1]

    return [f"MOVE with a battle, a force of one ration, brigands within 2 of the warriors: "
            f"{len(battles)}; the time to the horn plus the digit terms less the brigands' "
            f"path in one remainder modulo 3 at {agree(True)} of {len(battles)} (without the "
            f"brigands' path {agree(False)})"]


def latency_report(times: Sequence[KeyTime], seed: int = 0, each: bool = False) -> list[str]:
    """Return the report's lines (``each``: a line per key first, ``key_line``): each action
    key's time against the digit terms, the MOVEs' remainders modulo 3 with and without them, and
    the visits of larger forces."""
    lines = [key_line(k) for k in times] if each else []
    lines += ["digit terms: one instruction less when the food's units digit is 4-8 (this "
              "turn's ration eaten), one less when the warriors' is 6-9"]
    lines += _key_lines(times) + _move_lines(times, seed) + _battle_lines(times)
    larger = collections.Counter((k.rations, k.warriors, k.output, k.whole) for k in times
                                 if k.key == "BAZAAR" and k.rations > 1)
    if larger:
        lines.append("BAZAAR, larger forces (rations, warriors, first output: time x visits): "
                     + ", ".join(f"{r}, {w}, {o}: {t} x {n}"
                                 for (r, w, o, t), n in sorted(larger.items())))
    return lines


@dataclass(frozen=True)
class Bit7Reading:
    """What a MOVE sweep's times say of the count's bit 7: the residue modulo 9 of the scans
    where it is set (``set_residue``; the other scans' is 6 less), the low bytes at scan 0
    that set it so at the most scans (``lows``, stepping ``LOW_STEP`` a scan), how many agree
    there (``fit``) of the ``scans`` read."""
    set_residue: int
    lows: tuple[int, ...]
    fit: int
    scans: int

    def line(self) -> str:
        """Return the reading as one line."""
        lows = (f"{self.lows[0]}" if len(self.lows) == 1 else
                f"{self.lows[0]}-{self.lows[-1]}" if self.lows[-1] - self.lows[0] == len(
                    self.lows) - 1 else ", ".join(map(str, self.lows)))
        return (f"bit 7 from the times: residue {self.set_residue} where set, "
                f"{(self.set_residue - BIT7_ADDS) % 9} where clear; the count's low byte at "
                f"the first scan {lows}, {self.fit} of {self.scans} scans agree")


def bit7_from_times(scans: dict[int, tuple[str, float | None]]) -> Bit7Reading | None:
    """Read bit 7 of the count off a MOVE sweep's times (``scans``: key scan -> (outcome,
    think time in instructions), as ``analysis.draws`` reads a sweep): each scan without a
    battle whose time is a whole instruction leaves its time less its outcome's path modulo
    9, one residue where bit 7 is clear and that plus ``BIT7_ADDS`` where it is set (section
    13: the force's terms and a draw's term are the same at every scan of one sweep).  None
    when the two commonest residues are not so apart."""
    rest = {n: (round(t) - SWEEP_PATHS[o]) % 9 for n, (o, t) in scans.items()
            if o in SWEEP_PATHS and t is not None and abs(t - round(t)) < 0.2}
    common = [r for r, _ in collections.Counter(rest.values()).most_common(2)]
    if len(common) < 2:
        return None
    a, b = common
    if (b - a) % 9 == BIT7_ADDS:
        set_residue = b
    elif (a - b) % 9 == BIT7_ADDS:
        set_residue = a
    else:
        return None
    best, lows = -1, []
    for low in range(256):
        fit = sum((r == set_residue) == bool(((low + LOW_STEP * n) >> 7) & 1)
                  for n, r in rest.items())
        if fit > best:
            best, lows = fit, []
        if fit == best:
            lows.append(low)
    return Bit7Reading(set_residue, tuple(lows), best, len(rest))


def sweep_bit7(sweep) -> Bit7Reading | None:
    """Return ``bit7_from_times`` of an ``analysis.draws.Sweep``, its scans counted from its
    first (the low byte is then the count's at that scan)."""
    first = min(sweep.scans, default=0)
    return bit7_from_times({n - first: (r.outcome, r.think) for n, r in sweep.scans.items()})
