"""Estimate the genuine tower's random quantities from what recordings show, with 95 % intervals.

The estimates are read from the observed behaviour alone (``events.jsonl``: the buttons
pressed, the picture lit = the reel's ``card_pos`` with the lamp, cleanroom.reel; the numbers
shown with it; the tones), never from the clean-room game, so they hold even where the game
does not yet conform.  ``observe(events)`` turns one recording into a list of ``Observation``
rows (quantity, situation, value); ``estimate_all(observations)`` turns many into ``Row``
estimates and checks each chosen value of cleanroom.params against its interval.

How each quantity is read (corpus README: how the sessions were played):

- the level and the number of players: the ``Ln`` and ``Pn`` texts YES/BUY was pressed on;
  whose turn it is: the flashing `` N``; what a press answers: the last text shown before it;
- ``move`` (per level) and ``tomb``: the answer to MOVE / TOMB/RUIN at a turn prompt: the
  battle horn (520.8 + 787.0 Hz) = battle; else the first picture (LOST, PLAGUE, DRAGON; a
  tomb's treasure picture); no picture = safe (a move) or deserted (a tomb); CURSED (a curse
  taking effect before the action) is left out, and so is a key that starved the last
  warrior (WARRIORS without a number, the Death March, the game over);
- ``tomb_treasure``: whether a tomb's treasure starts with the GOLD total (a rule);
  ``treasure`` / ``tomb_extra``: the picture after a won battle's or a tomb's GOLD total (no
  further picture = none), both against ``treasure_odds``;
- ``haggle``: HAGGLE at the bazaar's ``--`` while a price is shown: the same picture again =
  success (``haggle_step``: by how much the price fell), BAZAAR CLOSED = failure;
- ``<item>_price``: each bazaar visit's first showing of each item (WARRIOR, FOOD, BEAST,
  SCOUT, HEALER) with its number, before any haggle;
- battles: the BRIGANDS number after the horn (``tower_brigands`` when the horn answers the
  riddle of the keys: the Final Battle), then per skirmish the WARRIORS and BRIGANDS
  numbers it left and its cue (276.7 + 407.1 Hz won, 278.9 + 203.5 Hz lost); the warriors
  at the start are the first number shown, plus one when the first skirmish was lost.  A
  skirmish lost to the end shows no numbers: WARRIORS without one and the Death March where
  its WARRIORS would light, when the force had 2 or 1 warriors (multi-player) or 1 (solo);
  when it is the battle's first, the force is the player's total followed (below).  Such a
  Death March after a larger force is a retreat's.  ``brigands_minus_warriors`` the
  difference (its range, and ``brigands_spread`` how often each value comes where 3 or more
  warriors fought), ``skirmish`` (won or not, by the step of the force ratio it falls in,
  with the game's chance before it, cleanroom.game.skirmish_chance), ``last_stand`` (a
  multi-player force of 2 or 1: its skirmish, apart from the others), ``brigands_after_win``
  (halved?), ``warriors_after_loss``, ``battle_rounds`` (skirmishes until the end),
  ``retreat`` (NO/END pressed during a battle: whether more skirmishes followed);
- totals need the player's totals before the event: each player starts with the rulebook's
  10 warriors and 30 gold and every WARRIOR(S) or GOLD number shown in that player's action
  updates them; so do a battle's last numbers (a battle lost to the end leaves 1 warrior,
  multi-player, or none), what was bought at the bazaar (an item for its price; warriors by
  the count NO/END was pressed on; nothing when a purchase brings BAZAAR CLOSED), a warrior
  starved (the Death March as the turn's action key is taken, before the action: no food
  left) and the gold cut to what the force can carry, 6 per warrior.  A value becomes
  unknown where the recording does not show it (a curse received, a retreat, a battle not
  read, CLEAR before the turn's snapshot).  ``inventory_totals`` checks the totals so
  followed against every INVENTORY that shows them.  ``battle_gold`` / ``tomb_gold`` (gold
  found: the rise of the GOLD total, left out when the total is at what the warriors can
  carry, because then it is cut), ``dragon_warriors`` / ``dragon_gold`` (whether the dragon
  took its quarter, cleanroom.game.dragon_takes), ``sanctuary_warriors`` /
  ``sanctuary_gold`` (the bonus).

Intervals (``Row``): a share gets the Wilson 95 % score interval; a number drawn from a range
gets the observed min and max with the count, and the chosen range must contain every
observed value and must not be so wide that n draws would miss its ends: each end is allowed
only as far out as a uniform draw of n values avoids it with probability 2.5 %.  A rule
(``dragon_*``, ``brigands_after_win``, ...) is checked as "k of n agree"; it fails on one
disagreement.
"""
from __future__ import annotations

import bisect
import os
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Iterable, Sequence

from .conform import read_reference_events, wilson
from .game import dragon_takes, skirmish_chance
from .params import PARAMS
from .reel import CARDS
from .tower import CleanroomError

__all__ = ["Observation", "Row", "observe", "observe_folder", "estimate_all", "wilson",
           "range_interval", "rows_markdown", "rows_data", "replace_evidence", "StatsError",
           "force_class", "force_classes"]



class StatsError(CleanroomError):
    """A recording or a parameter file given to the statistics is not usable; says which."""


HORN_HZ = (520.8, 787.0)
DEATH_MARCH_HZ = (201.2, 201.2)
WON_HZ = (276.7, 407.1)
LOST_HZ = (278.9, 203.5)
BAZAAR_ITEMS = ("WARRIOR", "FOOD", "BEAST", "SCOUT", "HEALER")
PRICE_NAMES = {"WARRIOR": "warrior_price", "FOOD": "food_price", "BEAST": "beast_price",
               "SCOUT": "scout_price", "HEALER": "healer_price"}
TREASURES = {"GOLD": "gold", "BRASS KEY": "key", "SILVER KEY": "key", "GOLD KEY": "key",
             "PEGASUS": "pegasus", "SWORD": "sword", "WIZARD": "wizard"}
MOVE_PICTURES = {"LOST": "lost", "PLAGUE": "plague", "DRAGON": "dragon"}


def range_interval(values: Sequence[float], alpha: float = 0.025
                   ) -> tuple[float, float, float, float]:
    """Return (lowest lo, min, max, highest hi) a uniform range lo..hi may have.

    ``min``/``max`` are observed; ``lo`` may lie below the observed min only while n uniform
    draws from lo..max would all miss lo..min with probability above ``alpha`` (the same for
    ``hi`` above the observed max).  Integers (counts, prices) are whole numbers 0-99;
    other values (ratios) are continuous: the ends may then lie (max - min) x
    (alpha^(-1/n) - 1) beyond what was seen.
    """
    lo, hi = min(values), max(values)
    n = len(values)
    if not all(isinstance(v, int) for v in values):
        slack = (hi - lo) * (alpha ** (-1 / n) - 1)
        return round(lo - slack, 4), lo, hi, round(hi + slack, 4)
    low = lo
    while low > 0 and ((hi - lo + 1) / (hi - (low - 1) + 1)) ** n > alpha:
        low -= 1
    high = hi
    while high < 99 and ((hi - lo + 1) / ((high + 1) - lo + 1)) ** n > alpha:
        high += 1
    return low, lo, hi, high


@dataclass(frozen=True)
class Observation:
    """One observed random outcome: quantity, situation (e.g. level), value, where and when.

    ``chance``: the game's chance there: of winning, for a skirmish (cleanroom.params
    ``skirmish_win``); of each outcome, for a treasure (its odds less what the player could
    not get); ``source`` and ``t``: the recording and the time (s) it was read at.
    """
    quantity: str
    situation: str
    value: Any
    source: str
    t: float
    chance: float | dict | None = None


# ---- reading one recording ----------------------------------------------------------------
@dataclass
class _Picture:
    t: float
    name: str
    number: int | None


@dataclass
class _Press:
    t: float
    button: str
    prompt: str          # the last text shown before the press ('' if none)
    player: int          # whose turn it is (0 before the first turn)


class _Recording:
    """Index one events list: presses with their prompts, pictures with numbers, tones."""

    def __init__(self, events: Sequence[dict]):
        events = sorted(events, key=lambda e: e["t"])
        self.displays = [(e["t"], e["text"]) for e in events if e["type"] == "display"]
        self._dt = [t for t, _ in self.displays]
        reels = [(e["t"], e["card_pos"]) for e in events if e["type"] == "reel"]
        self._rt = [t for t, _ in reels]
        self._rc = [c for _, c in reels]
        self.tones = [(e["t"], e["freq_hz"], e["dur_s"]) for e in events if e["type"] == "tone"]
        self._tt = [t for t, _, _ in self.tones]
        self.pictures: list[_Picture] = []
        for e in events:
            if e["type"] == "lamp" and e["on"]:
                # the reel coasts into the card's window just after the lamp lights (MAME's
                # reel: about 135 ms), so the card is the one reported up to 0.2 s later
                i = bisect.bisect_right(self._rt, e["t"] + 0.2) - 1
                card = self._rc[i] if i >= 0 else None
                name = CARDS.get((card, e["lamp"]))
                if name is not None:
                    text = self.text_at(e["t"] + 0.1)
                    number = int(text) if text.isdigit() else None
                    self.pictures.append(_Picture(e["t"], name, number))
        self._pt = [p.t for p in self.pictures]
        self.presses: list[_Press] = []
        player = 0
        for e in events:
            if e["type"] == "button" and e["action"] == "press":
                prompt = self.prompt_before(e["t"])
                if len(prompt) == 2 and prompt[0] == " " and prompt[1].isdigit():
                    player = int(prompt[1])
                self.presses.append(_Press(e["t"], e["button"], prompt, player))
        self.end = events[-1]["t"] if events else 0.0

    def text_at(self, t: float) -> str:
        """Return the display text at time ``t``."""
        i = bisect.bisect_right(self._dt, t) - 1
        return self.displays[i][1] if i >= 0 else "  "

    def prompt_before(self, t: float) -> str:
        """Return the last non-blank text shown before ``t``."""
        i = bisect.bisect_left(self._dt, t) - 1
        while i >= 0 and not self.displays[i][1].strip():
            i -= 1
        return self.displays[i][1] if i >= 0 else ""

    def pictures_in(self, a: float, b: float) -> list[_Picture]:
        """Return the pictures lit in [a, b)."""
        return self.pictures[bisect.bisect_left(self._pt, a):bisect.bisect_left(self._pt, b)]

    def tones_in(self, a: float, b: float) -> list[tuple[float, float | None, float]]:
        """Return the tones in [a, b)."""
        return self.tones[bisect.bisect_left(self._tt, a):bisect.bisect_left(self._tt, b)]

    def has_cue(self, notes: tuple[float, float], a: float, b: float) -> float | None:
        """Return the time of a cue whose first two notes are ``notes`` in [a, b), or None."""
        tones = self.tones_in(a, b)
        for (t, f, _), (_, g, _) in zip(tones, tones[1:]):
            if f is not None and g is not None and abs(f - notes[0]) <= 0.01 * notes[0] \
                    and abs(g - notes[1]) <= 0.01 * notes[1]:
                return t
        return None


@dataclass
class _Totals:
    warriors: int | None = 10
    gold: int | None = 30
    sword: bool = False
    keys: int = 0
    frontiers: int = 0
    beast: bool | None = False      # None: perhaps (a purchase while the BEAST was offered)

    def copy(self) -> "_Totals":
        """Return a copy (the turn's snapshot that CLEAR returns to)."""
        return replace(self)


def _treasure_chance(table: dict, who: _Totals, players: int, outcome: str) -> float:
    """Return the game's chance of ``outcome`` from ``table`` less what ``who`` cannot get
    (cleanroom.game ``_treasure_odds``: a key only in a kingdom whose key is missing, a sword
    only without one, a wizard only with someone to curse)."""
    odds = dict(table)
    if not (1 <= who.frontiers <= 3 and who.keys == who.frontiers - 1):
        odds.pop("key", None)
    if who.sword:
        odds.pop("sword", None)
    if players == 1:
        odds.pop("wizard", None)
    total = sum(odds.values())
    return odds.get(outcome, 0.0) / total if total else 0.0


@dataclass
class _Battle:
    start: float
    warriors: int              # at the start
    brigands: int
    skirmishes: list = field(default_factory=list)   # (t, won, w_before, b_before, w, b)
    end: float = 0.0
    lost: bool = False         # lost to the end: the Death March after a skirmish lost
    retreat: bool = False      # the Death March of a retreat

    @property
    def won(self) -> bool:
        """Return True when the brigands were beaten (the last number shown is 0)."""
        return bool(self.skirmishes) and self.skirmishes[-1][5] == 0


def _read_battle(rec: _Recording, horn_t: float, until: float, warriors: int | None,
                 floor: int) -> _Battle | None:
    """Read the battle whose horn sounded at ``horn_t`` (module doc), or None if unreadable.

    ``warriors``: the force's total before it, if known; ``floor``: the fewest warriors a
    lost battle leaves (params ``min_warriors``).  A skirmish lost to the end shows no
    numbers: WARRIORS without one and the Death March where its WARRIORS would light, when
    the loss would leave fewer than ``floor`` + 1 (cleanroom.game: a multi-player force at
    2 or 1 warriors, a solo force at its last), the battle's first skirmish too (then the
    force is ``warriors``); with more warriors that Death March is a retreat's.
    """
    pics = [p for p in rec.pictures_in(horn_t, until)]
    if not pics or pics[0].name != "BRIGANDS" or pics[0].number is None:
        return None
    b0 = pics[0].number
    pairs = []
    i = 1
    while i + 1 < len(pics) and pics[i].name == "WARRIORS" and pics[i + 1].name == "BRIGANDS" \
            and pics[i].number is not None and pics[i + 1].number is not None:
        pairs.append((pics[i], pics[i + 1]))
        i += 2
    march = pics[i] if i < len(pics) and pics[i].name == "WARRIORS" and \
        pics[i].number is None else None
    if not pairs:
        if march is None or warriors is None:
            return None
        battle = _Battle(pics[0].t, warriors, b0)
        w_prev, b_prev = warriors, b0
    else:
        outcomes = []
        for k, (w, b) in enumerate(pairs):
            nxt = pairs[k + 1][0].t if k + 1 < len(pairs) else b.t + 3.5
            won = rec.has_cue(WON_HZ, b.t, nxt)
            lost = rec.has_cue(LOST_HZ, b.t, nxt)
            if (won is None) == (lost is None):
                # the last pair of a battle may end without a cue only when brigands are 0
                if b.number == 0 and k == len(pairs) - 1:
                    outcomes.append(True)
                    continue
                return None
            outcomes.append(won is not None)
        w_start = pairs[0][0].number + (0 if outcomes[0] else 1)
        battle = _Battle(pics[0].t, w_start, b0)
        w_prev, b_prev = w_start, b0
        for (w, b), won in zip(pairs, outcomes):
            battle.skirmishes.append((w.t, won, w_prev, b_prev, w.number, b.number))
            w_prev, b_prev = w.number, b.number
        battle.end = pairs[-1][1].t
    if march is not None:
        if w_prev - 1 <= floor:
            battle.skirmishes.append((march.t, False, w_prev, b_prev, None, b_prev))
            battle.lost = True
        else:
            battle.retreat = True
        battle.end = march.t
    return battle


def _times_b(ratio: float) -> str:
    """Return ``ratio`` times the brigands as text: "b/2", "b", "2b"."""
    f = Fraction(ratio).limit_denominator(16)
    times = "" if f.numerator == 1 else str(f.numerator)
    return f"{times}b" + ("" if f.denominator == 1 else f"/{f.denominator}")


def force_classes() -> list[str]:
    """Return the names of the force-ratio steps of params ``skirmish_win`` (warriors w,
    brigands b), in order: e.g. "w < b/2", "b/2 <= w < b", ..., "w >= 4b"."""
    steps = [_times_b(r) for r, _ in PARAMS["skirmish_win"].value[1:]]
    return ([f"w < {steps[0]}"] + [f"{a} <= w < {b}" for a, b in zip(steps, steps[1:])]
            + [f"w >= {steps[-1]}"])


def force_class(warriors: int, brigands: int) -> str:
    """Return the force-ratio step of params ``skirmish_win`` a skirmish of ``warriors``
    against ``brigands`` falls in (cleanroom.game.skirmish_chance)."""
    table = PARAMS["skirmish_win"].value
    step = max(i for i, (ratio, _) in enumerate(table) if warriors >= ratio * brigands)
    return force_classes()[step]


def observe(events: Sequence[dict], source: str = "recording") -> list[Observation]:
    """Read every random outcome a recording shows (module doc); ``source`` names it."""
    rec = _Recording(events)
    out: list[Observation] = []

    def add(quantity: str, situation: str, value: Any, t: float,
            chance: float | dict | None = None):
        out.append(Observation(quantity, situation, value, source, round(t, 3), chance))

    level = players = None
    for p in rec.presses:
        if p.button == "YES/BUY" and len(p.prompt) == 2 and p.prompt[1] in "1234":
            if p.prompt[0] == "L":
                level = int(p.prompt[1])
            elif p.prompt[0] == "P" and level is not None:
                players = int(p.prompt[1])
    if level is None or players is None:
        return out
    lv = f"level {level}"
    per = PARAMS["gold_per_warrior"].value      # bags each warrior carries (rulebook)
    floor = PARAMS["min_warriors"].value["multi" if players > 1 else "solo"]
    totals = {n: _Totals() for n in range(1, players + 1)}
    if level == 4:
        inv = PARAMS["level4_inventory"].value
        for who in totals.values():
            who.warriors, who.gold = inv["warriors"], inv["gold"]
            who.sword, who.keys, who.frontiers = bool(inv["sword"]), inv["keys"], \
                inv["frontiers"]
            who.beast = bool(inv["beast"])
    odds = {"treasure": PARAMS["treasure_odds"].value,
            "tomb_extra": PARAMS["treasure_odds"].value}

    def treasure(quantity: str, picture: _Picture | None, t: float, who: _Totals) -> None:
        kind = "none" if picture is None else TREASURES[picture.name]
        chance = {o: round(_treasure_chance(odds[quantity], who, players, o), 4)
                  for o in odds[quantity]} if quantity in odds else None
        add(quantity, "all levels", kind, t, chance)
        if kind == "key":
            who.keys += 1
        elif kind == "sword":
            who.sword = True

    snapshot: dict[int, _Totals] = {}
    presses = rec.presses
    bazaar: dict | None = None
    fighting = -1.0         # the last picture of the battle being read
    for i, p in enumerate(presses):
        if p.t < fighting:
            continue            # a key pressed during a battle: read with the battle
        nxt = presses[i + 1].t if i + 1 < len(presses) else rec.end + 1
        me = totals.get(p.player)
        turn_prompt = len(p.prompt) == 2 and p.prompt[0] == " " and p.prompt[1].isdigit()
        if turn_prompt and me is not None and _starved(rec, p.t, rec.pictures_in(p.t, nxt)):
            # no food left: one warrior starves as the action key is taken (rulebook: Rations
            # Of Food), before the action, so CLEAR does not bring it back
            if me.warriors is not None:
                me.warriors = max(floor, me.warriors - 1)
            _carry(me, per, known=True, lost=True)
        # the response to a press runs until the next press, or on through a battle
        horn = rec.has_cue(HORN_HZ, p.t, nxt)
        until = nxt
        battle = None
        if horn is not None:
            stop = next((q.t for q in presses[i + 1:] if q.prompt.strip() and
                         q.prompt[0] in " -"), rec.end + 1)
            battle = _read_battle(rec, horn, stop, None if me is None else me.warriors, floor)
            until = stop
            if battle is not None:
                fighting = battle.end
        pics = rec.pictures_in(p.t, until)
        if turn_prompt and horn is None and pics and pics[0].name == "WARRIORS" and \
                pics[0].number is None and rec.has_cue(DEATH_MARCH_HZ, pics[0].t,
                                                       pics[0].t + 0.7) is not None:
            # the last warrior starved: WARRIORS without a number, the Death March and the
            # game is over (00 flashes); the key answered no action
            if me is not None:
                me.warriors = 0
            continue
        if turn_prompt:
            snapshot[p.player] = me.copy() if me else _Totals()
            bazaar = None
        cursed = bool(pics) and pics[0].name == "CURSED"
        if p.button == "INVENTORY" and me is not None and me.warriors is not None and \
                me.gold is not None:
            # INVENTORY shows the totals: the reading's own check
            shown = {q.name: q.number for q in pics if q.number is not None}
            if "WARRIOR" in shown and "GOLD" in shown:
                add("inventory_totals", "all levels",
                    (shown["WARRIOR"], shown["GOLD"]) == (me.warriors, me.gold), p.t)
        if p.button == "CLEAR" and me is not None:
            old = snapshot.get(p.player)
            if old is not None:
                totals[p.player] = me = old.copy()
            else:
                me.warriors = me.gold = None
            bazaar = None
            continue
        if turn_prompt and p.button == "FRONTIER" and not cursed and me is not None and \
                not any(q.name == "KEY MISSING" for q in pics):
            me.frontiers = min(4, me.frontiers + 1)
        if turn_prompt and p.button in ("MOVE", "TOMB/RUIN") and not cursed:
            quantity = "move" if p.button == "MOVE" else "tomb"
            if horn is not None:
                kind = "battle"
            elif not pics:
                kind = "safe" if quantity == "move" else "deserted"
            elif quantity == "move":
                kind = MOVE_PICTURES.get(pics[0].name, "other:" + pics[0].name)
            else:
                kind = "treasure" if pics[0].name in TREASURES else "other:" + pics[0].name
            add(quantity, lv if quantity == "move" else "all levels", kind, p.t)
            if quantity == "tomb" and kind == "treasure" and me is not None:
                add("tomb_treasure", "all levels", pics[0].name == "GOLD", pics[0].t)
                if pics[0].name == "GOLD":
                    if pics[0].number is not None and me.gold is not None and \
                            me.warriors is not None and pics[0].number < min(99, per * me.warriors):
                        add("tomb_gold", "all levels", pics[0].number - me.gold, pics[0].t)
                    extra = pics[1:2]
                    treasure("tomb_extra", extra[0] if extra and extra[0].name in TREASURES
                             else None, pics[0].t, me)
            if kind == "dragon" and me is not None:
                after = {q.name: q.number for q in pics[1:3]}
                w_after = after.get("WARRIOR", after.get("WARRIORS"))
                g_after = after.get("GOLD")
                if "SWORD" in after:
                    me.sword = False
                if "SWORD" not in after and w_after is not None and me.warriors is not None:
                    add("dragon_warriors", "all levels", (me.warriors, w_after), pics[0].t)
                if "SWORD" not in after and g_after is not None and me.gold is not None:
                    add("dragon_gold", "all levels", (me.gold, g_after), pics[0].t)
        if turn_prompt and p.button == "SANCTUARY/CITADEL" and not cursed and me is not None:
            for q in pics:
                if q.name in ("WARRIOR", "WARRIORS") and q.number is not None and \
                        me.warriors is not None:
                    if me.frontiers >= 4 and me.keys >= 3:
                        # the Citadel (rulebook): the warriors are doubled, not a bonus
                        add("citadel_double", "all levels", q.number == 2 * me.warriors, q.t)
                    else:
                        add("sanctuary_warriors", "all levels", q.number - me.warriors, q.t)
                if q.name == "GOLD" and q.number is not None and me.gold is not None:
                    add("sanctuary_gold", "all levels", q.number - me.gold, q.t)
        if battle is not None and p.prompt in ("1 ", "2 "):
            # the riddle answered: the Final Battle in the Dark Tower (rulebook)
            add("tower_brigands", lv, battle.brigands, battle.start)
        elif battle is not None:
            add("brigands_minus_warriors", lv, battle.brigands - battle.warriors, battle.start)
            if battle.warriors >= 3:
                # how often each difference comes, where none is cut at 1 brigand
                add("brigands_spread", "3+ warriors", battle.brigands - battle.warriors,
                    battle.start)
        if battle is not None:
            add("battle_rounds", "all levels", len(battle.skirmishes), battle.start)
            retreat = next((q for q in presses[i + 1:] if q.button == "NO/END" and
                            battle.start <= q.t <= battle.end), None)
            if retreat is not None:
                # NO/END during a battle (rulebook: a retreat): did the skirmishes go on?
                on = any(s[0] > retreat.t for s in battle.skirmishes)
                add("retreat", "all levels", "went on" if on else "ended", retreat.t)
            for (t, won, wb, bb, w, b) in battle.skirmishes:
                if players > 1 and wb - 1 <= floor:
                    # a multi-player force of 2 or 1 warriors: its skirmish is the battle's
                    # last, lost (the Death March) or won
                    add("last_stand", "multi-player", won, t)
                else:
                    add("skirmish", force_class(wb, bb), won, t,
                        chance=skirmish_chance(wb, bb))
                if won:
                    add("brigands_after_win", "all levels", b == bb // 2, t)
                elif w is not None:         # a skirmish lost to the end shows no number
                    add("warriors_after_loss", "all levels", w == wb - 1, t)
            after = [q for q in pics if q.t > battle.end]
            if battle.won and after and after[0].name == "GOLD" and \
                    after[0].number is not None:
                w_end = battle.skirmishes[-1][4]
                if me and me.gold is not None and after[0].number < min(99, per * w_end):
                    add("battle_gold", "all levels", after[0].number - me.gold, after[0].t)
                extra = after[1:2]
                if me is not None:
                    treasure("treasure", extra[0] if extra and extra[0].name in TREASURES and
                             extra[0].t - after[0].t < 4 else None, after[0].t, me)
        # bazaar: prices and haggles
        if turn_prompt and p.button == "BAZAAR" and not cursed:
            bazaar = {"shown": set(), "current": None, "price": None}
        in_bazaar = bazaar is not None and (p.button == "BAZAAR" or not turn_prompt)
        if in_bazaar and pics:
            first = pics[0]
            if p.button == "HAGGLE" and p.prompt == "--" and bazaar["current"] not in \
                    (None, "FOOD"):
                if first.name == "BAZAAR CLOSED":
                    add("haggle", "all levels", False, p.t)
                    bazaar = None
                elif first.name == bazaar["current"] and first.number is not None:
                    add("haggle", "all levels", True, p.t)
                    if bazaar["price"] is not None:
                        add("haggle_step", "all levels", bazaar["price"] - first.number, p.t)
                    bazaar["price"] = first.number
            elif first.name in BAZAAR_ITEMS and first.number is not None and \
                    p.button in ("BAZAAR", "NO/END", "REPEAT"):
                if first.name not in bazaar["shown"]:
                    bazaar["shown"].add(first.name)
                    add(PRICE_NAMES[first.name], "all levels", first.number, first.t)
                bazaar["current"], bazaar["price"] = first.name, first.number
        # totals after the action (what this player's pictures showed)
        if me is not None:
            if bazaar is not None:
                _buy(bazaar, me, p, pics)
            for q in pics:
                if q.number is None or (battle is not None and battle.start <= q.t <=
                                        battle.end):
                    continue
                if q.name in ("WARRIOR", "WARRIORS") and bazaar is None:
                    me.warriors = q.number
                elif q.name == "GOLD":
                    me.gold = q.number
            lost = battle is not None and battle.lost
            if lost:
                # lost to the end: a multi-player force keeps 1 warrior, a solo one none
                # (rulebook, A Battle With Brigands, IMPORTANT)
                me.warriors = floor
            elif battle is not None and not battle.retreat:
                me.warriors = battle.skirmishes[-1][4]
            elif horn is not None:
                me.warriors = None      # a retreat, or a battle that could not be read
            if p.button == "YES/BUY" and p.prompt.startswith("C") and p.prompt[1:].isdigit():
                victim = totals.get(int(p.prompt[1:]))
                if victim is not None:
                    victim.warriors = victim.gold = None
            # after a battle won its treasure is not all shown; a lost one brings none
            _carry(me, per, known=horn is None or lost)
    return out


def _buy(bazaar: dict, me: _Totals, p: _Press, pics: list) -> None:
    """Follow a purchase at the bazaar (rulebook: Bazaar) in ``me``'s totals: what was bought
    shows only in the GOLD total after it.  YES/BUY at ``--`` buys the item offered; warriors
    go by count (``01``, ``02``, ... each YES/BUY, then NO/END on the count to buy); a
    purchase the gold does not pay for brings BAZAAR CLOSED and buys nothing."""
    closed = any(q.name == "BAZAAR CLOSED" for q in pics)
    shown = next((q.number for q in pics if q.name == "GOLD"), None)
    if p.button == "YES/BUY" and p.prompt == "--" and not closed:
        if bazaar["current"] == "WARRIOR":
            bazaar["buying"] = (me.warriors, me.gold, bazaar["price"])
            me.warriors = None
        elif bazaar["current"] == "BEAST" and me.beast is False:
            paid = None not in (me.gold, bazaar["price"]) and shown == me.gold - bazaar["price"]
            me.beast = True if paid else None
    elif "buying" in bazaar and p.button == "YES/BUY" and closed:
        me.warriors = bazaar.pop("buying")[0]
    elif "buying" in bazaar and p.button == "NO/END" and p.prompt.isdigit():
        # the count NO/END was pressed on is what was bought (the GOLD total shown after it,
        # where the gold is known, is the gold less that many times the price)
        w, gold, price = bazaar.pop("buying")
        count = int(p.prompt)
        paid = gold is None or (price is not None and shown == gold - count * price)
        if w is not None and paid:
            me.warriors = min(99, w + count)


def _starved(rec: _Recording, t: float, pics: list) -> bool:
    """Tell whether the key pressed at ``t`` starved a warrior: the Death March begins as the
    key is taken (within 0.15 s), before any picture."""
    march = rec.has_cue(DEATH_MARCH_HZ, t, t + 0.7)
    return march is not None and march < t + 0.15 and (not pics or pics[0].t > march)


def _carry(me: _Totals, per: int, known: bool, lost: bool = False) -> None:
    """Cut ``me``'s gold to what the force can carry (``per`` bags a warrior, rulebook:
    Warriors); the gold becomes unknown where the cut cannot be told: a Beast (perhaps)
    carrying more, not ``known``, or the warriors unknown when one was ``lost``."""
    if me.gold is None:
        return
    if me.warriors is None:
        if lost and me.gold > per:
            me.gold = None      # even one warrior carries this much
    elif me.gold > per * me.warriors:
        me.gold = per * me.warriors if known and me.beast is False else None


# ---- estimates -----------------------------------------------------------------------------
@dataclass
class Row:
    """One estimate: quantity, situation, outcome; count of total; interval; chosen; verdict.

    ``kind``: "share" (``low``-``high`` is the Wilson interval of count/total), "range"
    (``low``..``high`` the lowest lo and highest hi a uniform range may have; ``lo_seen``,
    ``hi_seen`` the observed min and max), "model" (the share of wins with the game's mean
    chance as ``chosen``), "rule" (count of total agree) or "info" (no chosen value).
    """
    quantity: str
    situation: str
    outcome: str
    kind: str
    count: int
    total: int
    low: float
    high: float
    chosen: Any = None
    param: str = ""
    ok: bool | None = None
    lo_seen: float | None = None
    hi_seen: float | None = None

    def describe(self) -> str:
        """Return one table line."""
        verdict = {True: "ok", False: "OUTSIDE", None: "-"}[self.ok]
        if self.kind in ("share", "model"):
            est = f"{self.count / self.total:6.3f} [{self.low:5.3f}, {self.high:5.3f}]"
        elif self.kind == "range":
            est = (f"seen {self.lo_seen:g}-{self.hi_seen:g}, range may be "
                   f"{self.low:g}-{self.high:g}")
        elif self.kind == "info":
            est = f"seen {self.lo_seen:g}-{self.hi_seen:g}, mean {self.low:.2f}"
        else:
            est = f"{self.count} of {self.total} agree"
        chosen = "" if self.chosen is None else f"  chosen {self.chosen!s}"
        return (f"{self.quantity:20} {self.situation:17} {self.outcome:9} n={self.total:<4} "
                f"{est}{chosen}  {verdict}")


def _share_rows(obs: list[Observation], quantity: str, param_name: str | None,
                chosen_table: dict | None) -> list[Row]:
    rows = []
    for situation in sorted({o.situation for o in obs}):
        these = [o for o in obs if o.situation == situation]
        n = len(these)
        outcomes = list(chosen_table or {})
        outcomes += sorted({str(o.value) for o in these} - set(map(str, outcomes)))
        for outcome in outcomes:
            k = sum(1 for o in these if str(o.value) == str(outcome))
            lo, hi = wilson(k, n)
            chosen = chosen_table.get(outcome) if chosen_table else None
            ok = None if chosen_table is None else \
                (lo <= (chosen or 0.0) <= hi)
            rows.append(Row(quantity, situation, str(outcome), "share", k, n, lo, hi,
                            chosen if chosen_table is not None else None, param_name or "",
                            ok))
    return rows


def _range_row(obs: list[Observation], quantity: str, param_name: str | None,
               chosen: tuple | None, situation: str = "all levels") -> Row:
    values = [o.value for o in obs]
    low, lo, hi, high = range_interval(values)
    ok = None
    if chosen is not None:
        a, b = chosen
        ok = low <= a <= lo and hi <= b <= high
    return Row(quantity, situation, "range", "range", len(values), len(values), low, high,
               chosen, param_name or "", ok, lo, hi)


def estimate_all(observations: Iterable[Observation]) -> list[Row]:
    """Estimate every quantity in ``observations``; check chosen values (module doc)."""
    by: dict[str, list[Observation]] = {}
    for o in observations:
        by.setdefault(o.quantity, []).append(o)
    rows: list[Row] = []

    def value(name: str) -> Any:
        return PARAMS[name].value if name in PARAMS else None

    for q in sorted(by):
        obs = by[q]
        if q in ("move", "tomb"):
            name = {"move": "move_odds", "tomb": "tomb_odds"}[q]
            rows += _share_rows(obs, q, name, value(name))
        elif q in ("treasure", "tomb_extra"):
            # the game's odds less what each player could not get there: the mean of its
            # chances over the observed situations must lie in each outcome's interval (a
            # tomb's picture after its gold follows the same odds as a battle's)
            name = "treasure_odds"
            table = value(name)
            seen = sorted({o.value for o in obs} - set(table))
            for outcome in list(table) + seen:
                k = sum(1 for o in obs if o.value == outcome)
                lo, hi = wilson(k, len(obs))
                mean = sum(o.chance.get(outcome, 0.0) for o in obs) / len(obs)
                rows.append(Row(q, "all levels", outcome, "model", k, len(obs), lo, hi,
                                round(mean, 3), name, lo <= mean <= hi))
        elif q == "retreat":
            rows += _share_rows(obs, q, None, None)
        elif q == "brigands_spread":
            weights = value(q)
            rows += _share_rows(obs, q, q, {d: round(w / sum(weights.values()), 4)
                                            for d, w in weights.items()})
        elif q == "haggle":
            k = sum(1 for o in obs if o.value)
            lo, hi = wilson(k, len(obs))
            chosen = value("haggle_success")
            rows.append(Row(q, "all levels", "success", "share", k, len(obs), lo, hi, chosen,
                            "haggle_success", lo <= chosen <= hi))
        elif q == "skirmish":
            k = sum(1 for o in obs if o.value)
            lo, hi = wilson(k, len(obs))
            mean = sum(o.chance for o in obs) / len(obs)
            rows.append(Row(q, "all levels", "won", "model", k, len(obs), lo, hi,
                            round(mean, 3), "skirmish_win", lo <= mean <= hi))
            # the same by the force ratio, in the steps of the game's chance
            # (cleanroom.game.skirmish_chance)
            for situation in force_classes():
                these = [o for o in obs if o.situation == situation]
                if these:
                    k = sum(1 for o in these if o.value)
                    lo, hi = wilson(k, len(these))
                    mean = sum(o.chance for o in these) / len(these)
                    rows.append(Row(q, situation, "won", "model", k, len(these), lo, hi,
                                    round(mean, 3), "skirmish_win", lo <= mean <= hi))
        elif q in ("brigands_after_win", "warriors_after_loss", "dragon_warriors",
                   "dragon_gold", "haggle_step", "citadel_double", "tomb_treasure",
                   "last_stand", "inventory_totals"):
            if q == "haggle_step":
                k = sum(1 for o in obs if o.value == 1)
            elif q == "dragon_warriors":
                k = sum(1 for o in obs if o.value[1] == o.value[0] - dragon_takes(o.value[0], 0)[0])
            elif q == "dragon_gold":
                k = sum(1 for o in obs if o.value[1] == o.value[0] - dragon_takes(0, o.value[0])[1])
            elif q == "last_stand":
                k = sum(1 for o in obs if o.value is False)
            else:
                k = sum(1 for o in obs if o.value)
            param_name = {"brigands_after_win": "brigands_after_win",
                          "warriors_after_loss": "warriors_after_loss",
                          "dragon_warriors": "dragon_share", "dragon_gold": "dragon_share",
                          "haggle_step": "haggle_success",
                          "citadel_double": "citadel_double", "tomb_treasure": "tomb_odds",
                          "last_stand": "min_warriors", "inventory_totals": ""}[q]
            chosen = {"haggle_step": "1 bag", "last_stand": "lost",
                      "inventory_totals": "reading"}.get(q, "rule")
            rows.append(Row(q, obs[0].situation, "agree", "rule", k, len(obs), k / len(obs),
                            k / len(obs), chosen, param_name, k == len(obs)))
        elif q.endswith("_price"):
            chosen = value(q)
            if q == "food_price":
                k = sum(1 for o in obs if o.value == chosen)
                rows.append(Row(q, "all levels", f"= {chosen}", "rule", k, len(obs), 0, 0,
                                chosen, q, k == len(obs)))
            else:
                rows.append(_range_row(obs, q, q, tuple(chosen)))
        elif q == "brigands_minus_warriors":
            # one chosen range for every level: checked on all battles, shown per level
            spread = value("brigands_spread")
            rows.append(_range_row(obs, q, "brigands_spread", (min(spread), max(spread))))
            for situation in sorted({o.situation for o in obs}):
                rows.append(_range_row([o for o in obs if o.situation == situation], q,
                                       "brigands_spread", None, situation))
        elif q == "tower_brigands":
            for situation in sorted({o.situation for o in obs}):
                lo, hi = value(q)[int(situation.split()[-1])]
                rows.append(_range_row([o for o in obs if o.situation == situation], q, q,
                                       (lo, hi), situation))
        elif q in ("battle_gold", "tomb_gold"):
            rows.append(_range_row(obs, q, "battle_gold", tuple(value("battle_gold"))))
        elif q in ("sanctuary_warriors", "sanctuary_gold"):
            bonus = value("sanctuary_bonus")[q.split("_")[1]]
            rows.append(_range_row(obs, q, "sanctuary_bonus", tuple(bonus)))
        else:
            values = [o.value for o in obs]
            rows.append(Row(q, "all levels", "values", "info", len(values), len(values),
                            sum(values) / len(values), 0.0, None, "", None, min(values),
                            max(values)))
    return rows


def rows_data(rows: Sequence[Row]) -> list[tuple]:
    """Return rows as plain tuples: (param, quantity, situation, outcome, kind, count, total,
    low, high, lo_seen, hi_seen), the ``EVIDENCE`` data in cleanroom.params."""
    def num(v):
        return round(v, 4) if isinstance(v, float) else v
    return [(r.param, r.quantity, r.situation, r.outcome, r.kind, r.count, r.total,
             num(r.low), num(r.high), num(r.lo_seen), num(r.hi_seen)) for r in rows]


def rows_markdown(rows: Sequence[Row]) -> str:
    """Return the estimates as a Markdown table."""
    out = ["| parameter | quantity | situation | outcome | n | estimate, 95 % interval | chosen "
           "| verdict |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r.kind in ("share", "model"):
            est = f"{r.count}/{r.total} = {r.count / r.total:.3f} [{r.low:.3f}, {r.high:.3f}]"
        elif r.kind == "range":
            est = f"seen {r.lo_seen:g}-{r.hi_seen:g} (range may be {r.low:g}-{r.high:g})"
        elif r.kind == "info":
            est = f"seen {r.lo_seen:g}-{r.hi_seen:g}, mean {r.low:.2f}"
        else:
            est = f"{r.count} of {r.total} agree"
        verdict = {True: "ok", False: "OUTSIDE", None: "-"}[r.ok]
        chosen = "" if r.chosen is None else str(r.chosen)
        out.append(f"| {r.param and '`' + r.param + '`'} | {r.quantity} | {r.situation} | "
                   f"{r.outcome} | {r.total} | {est} | {chosen} | {verdict} |")
    return "\n".join(out) + "\n"


def observe_folder(folder: str) -> list[Observation]:
    """Read ``folder``/events.jsonl and return its observations (source = the folder name)."""
    path = os.path.join(folder, "events.jsonl")
    if not os.path.isfile(path):
        raise StatsError(f"{folder}: no events.jsonl (expected a recording folder)")
    events = read_reference_events(path, StatsError)
    return observe(events, os.path.basename(os.path.normpath(folder)))


BEGIN = "# BEGIN EVIDENCE"
END = "# END EVIDENCE"


def replace_evidence(text: str, rows: Sequence[Row], where: str = "params.py") -> str:
    """Return ``text`` (cleanroom/params.py) with its evidence block holding ``rows``."""
    start = text.find(BEGIN)
    stop = text.find(END)
    if start < 0 or stop < start:
        raise StatsError(f"{where}: no '{BEGIN}' ... '{END}' block (expected "
                         f"cleanroom/params.py)")
    head = text[:text.index("\n", start) + 1]
    lines = ["_EVIDENCE_ROWS: list[tuple] = ["]
    for row in rows_data(rows):
        lines.append(f"    ({', '.join(map(repr, row[:5]))},")
        lines.append(f"     {', '.join(map(repr, row[5:]))}),")
    lines.append("]")
    return head + "\n".join(lines) + "\n" + text[stop:]
