"""Read the random outcomes one recording shows: ``observe(events)`` turns a recording into
``Observation`` rows (quantity, situation, value), read press by press by one reading per
situation (``READINGS``).

The outcomes are read from the observed behaviour alone (``events.jsonl``: the buttons
pressed, the picture lit = the reel's ``card_pos`` with the lamp; the numbers shown with it;
the tones), never from the clean-room game, so they hold even where the game does not yet
conform.  The game-level reading of events (pictures by lamp and card, the presses with the
text each answers, the cues by their first notes, the vocabularies) is the house's one,
captures.darktower_game's ``GameEvents``.  cleanroom.stats turns many into estimates with
intervals.

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
  with the game's chance before it, cleanroom.rules.skirmish_chance), ``last_stand`` (a
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
  took its quarter, cleanroom.rules.dragon_takes), ``sanctuary_warriors`` /
  ``sanctuary_gold`` (the bonus).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Sequence

from captures.darktower_game import (BAZAAR_ITEMS, CUE_NOTES, TREASURES, GameEvents, Picture,
                                     Press)

from .params import PARAMS
from .rules import citadel_doubles, skirmish_chance

__all__ = ["Observation", "observe", "force_class", "force_classes", "READINGS"]


HORN_HZ = CUE_NOTES["battle horn"]
DEATH_MARCH_HZ = (201.2, 201.2)
WON_HZ = CUE_NOTES["skirmish won"]
LOST_HZ = CUE_NOTES["skirmish lost"]
PRICE_NAMES = {"WARRIOR": "warrior_price", "FOOD": "food_price", "BEAST": "beast_price",
               "SCOUT": "scout_price", "HEALER": "healer_price"}
MOVE_PICTURES = {"LOST": "lost", "PLAGUE": "plague", "DRAGON": "dragon"}


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
    (cleanroom.sections.treasure ``treasure_odds``: a key only in a kingdom whose key is missing, a sword
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


def _read_battle(rec: GameEvents, horn_t: float, until: float, warriors: int | None,
                 floor: int) -> _Battle | None:
    """Read the battle whose horn sounded at ``horn_t`` (module doc), or None if unreadable.

    ``warriors``: the force's total before it, if known; ``floor``: the fewest warriors a
    lost battle leaves (params ``min_warriors``).  A skirmish lost to the end shows no
    numbers: WARRIORS without one and the Death March where its WARRIORS would light, when
    the loss would leave fewer than ``floor`` + 1 (cleanroom.sections.battle: a multi-player force at
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
            won = rec.cue_between(WON_HZ, b.t, nxt)
            lost = rec.cue_between(LOST_HZ, b.t, nxt)
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
    against ``brigands`` falls in (cleanroom.rules.skirmish_chance)."""
    table = PARAMS["skirmish_win"].value
    step = max(i for i, (ratio, _) in enumerate(table) if warriors >= ratio * brigands)
    return force_classes()[step]


def observe(events: Sequence[dict], source: str = "recording") -> list[Observation]:
    """Read every random outcome a recording shows (module doc); ``source`` names it.

    Each press is read by the readings of ``READINGS`` in turn, one per situation (a warrior
    starving, a battle, the bazaar, ...); a reading that returns True has read the press
    whole and the rest are skipped."""
    reading = _Reading.begin(GameEvents(events), source)
    if reading is None:
        return []
    for i, p in enumerate(reading.rec.presses):
        if p.t < reading.fighting:
            continue            # a key pressed during a battle: read with the battle
        answer = reading.answer(i, p)
        for read in READINGS:
            if read(reading, answer):
                break
    return reading.out


@dataclass
class _Answer:
    """One press and what answered it: ``pics`` until the next press (or on through the
    battle its horn began), whose totals ``me`` are (None: a player not in the game)."""
    i: int
    press: Press
    nxt: float                      # the next press (or just after the recording's end)
    me: _Totals | None
    turn_prompt: bool               # answers a player's turn prompt `` N``
    horn: float | None = None       # the battle horn's time
    battle: _Battle | None = None
    pics: list = field(default_factory=list)
    cursed: bool = False            # CURSED comes first: a curse, not the action


@dataclass
class _Reading:
    """The reading of one recording: the game's level and players, each player's totals
    followed so far, the observations."""
    rec: GameEvents
    source: str
    level: int
    players: int
    totals: dict
    out: list = field(default_factory=list)
    snapshot: dict = field(default_factory=dict)    # each player's totals at its turn
    bazaar: dict | None = None      # the bazaar visit being read
    fighting: float = -1.0          # the last picture of the battle being read
    sieges: int = 0                 # the Final Battles read so far

    @classmethod
    def begin(cls, rec: GameEvents, source: str) -> "_Reading | None":
        """Return the reading of ``rec``, or None when its level and players are not shown
        (the ``Ln`` and ``Pn`` texts YES/BUY was pressed on)."""
        level = players = None
        for p in rec.presses:
            if p.button == "YES/BUY" and len(p.prompt) == 2 and p.prompt[1] in "1234":
                if p.prompt[0] == "L":
                    level = int(p.prompt[1])
                elif p.prompt[0] == "P" and level is not None:
                    players = int(p.prompt[1])
        if level is None or players is None:
            return None
        totals = {n: _Totals() for n in range(1, players + 1)}
        if level == 4:
            inv = PARAMS["level4_inventory"].value
            for who in totals.values():
                who.warriors, who.gold = inv["warriors"], inv["gold"]
                who.sword, who.keys, who.frontiers = bool(inv["sword"]), inv["keys"], \
                    inv["frontiers"]
                who.beast = bool(inv["beast"])
        return cls(rec, source, level, players, totals)

    @property
    def lv(self) -> str:
        """Return the level as a situation: "level N"."""
        return f"level {self.level}"

    @property
    def per(self) -> int:
        """Return the bags each warrior carries (rulebook)."""
        return PARAMS["gold_per_warrior"].value

    @property
    def floor(self) -> int:
        """Return the fewest warriors a lost battle leaves (params ``min_warriors``)."""
        return PARAMS["min_warriors"].value["multi" if self.players > 1 else "solo"]

    def add(self, quantity: str, situation: str, value: Any, t: float,
            chance: float | dict | None = None) -> None:
        """Record one observation."""
        self.out.append(Observation(quantity, situation, value, self.source, round(t, 3),
                                    chance))

    def answer(self, i: int, p: Press) -> _Answer:
        """Return press ``i`` (``p``) with whose totals it touches and where its answer ends
        (the pictures and the battle are read by ``_read_response``)."""
        presses = self.rec.presses
        nxt = presses[i + 1].t if i + 1 < len(presses) else self.rec.end + 1
        turn_prompt = len(p.prompt) == 2 and p.prompt[0] == " " and p.prompt[1].isdigit()
        return _Answer(i, p, nxt, self.totals.get(p.player), turn_prompt)

    def treasure(self, quantity: str, picture: Picture | None, t: float,
                 who: _Totals) -> None:
        """Record the treasure ``picture`` (None: none) of ``quantity`` ("treasure" after a
        battle, "tomb_extra" after a tomb's gold) with the game's chances, and give it."""
        table = PARAMS["treasure_odds"].value
        kind = "none" if picture is None else TREASURES[picture.name]
        chance = {o: round(_treasure_chance(table, who, self.players, o), 4) for o in table}
        self.add(quantity, "all levels", kind, t, chance)
        if kind == "key":
            who.keys += 1
        elif kind == "sword":
            who.sword = True


# ---- the readings, one per situation, in the order they read a press --------------------
def _read_starving(r: _Reading, a: _Answer) -> None:
    """No food left: one warrior starves as the action key is taken (rulebook: Rations Of
    Food), before the action, so CLEAR does not bring it back."""
    me = a.me
    if a.turn_prompt and me is not None and _starved(r.rec, a.press.t,
                                                     r.rec.pictures_in(a.press.t, a.nxt)):
        if me.warriors is not None:
            me.warriors = max(r.floor, me.warriors - 1)
        _carry(me, r.per, known=True, lost=True)


def _read_response(r: _Reading, a: _Answer) -> None:
    """Find where the response to the press ends: at the next press, or on through a
    battle its horn began (then read the battle, ``_read_battle``)."""
    p = a.press
    a.horn = r.rec.cue_between(HORN_HZ, p.t, a.nxt)
    until = a.nxt
    if a.horn is not None:
        stop = next((q.t for q in r.rec.presses[a.i + 1:] if q.prompt.strip() and
                     q.prompt[0] in " -"), r.rec.end + 1)
        a.battle = _read_battle(r.rec, a.horn, stop, None if a.me is None else a.me.warriors,
                                r.floor)
        until = stop
        if a.battle is not None:
            r.fighting = a.battle.end
    a.pics = r.rec.pictures_in(p.t, until)


def _read_last_warrior_starved(r: _Reading, a: _Answer) -> bool:
    """The last warrior starved: WARRIORS without a number, the Death March and the game is
    over (00 flashes); the key answered no action."""
    pics = a.pics
    if a.turn_prompt and a.horn is None and pics and pics[0].name == "WARRIORS" and \
            pics[0].number is None and r.rec.cue_between(DEATH_MARCH_HZ, pics[0].t,
                                                     pics[0].t + 0.7) is not None:
        if a.me is not None:
            a.me.warriors = 0
        return True
    return False


def _read_turn(r: _Reading, a: _Answer) -> None:
    """A turn begins: keep the player's totals for CLEAR; a curse falls before the action
    (CURSED first)."""
    if a.turn_prompt:
        r.snapshot[a.press.player] = a.me.copy() if a.me else _Totals()
        r.bazaar = None
    a.cursed = bool(a.pics) and a.pics[0].name == "CURSED"


def _read_inventory(r: _Reading, a: _Answer) -> None:
    """INVENTORY shows the totals: the reading's own check (``inventory_totals``)."""
    me = a.me
    if a.press.button == "INVENTORY" and me is not None and me.warriors is not None and \
            me.gold is not None:
        shown = {q.name: q.number for q in a.pics if q.number is not None}
        if "WARRIOR" in shown and "GOLD" in shown:
            r.add("inventory_totals", "all levels",
                  (shown["WARRIOR"], shown["GOLD"]) == (me.warriors, me.gold), a.press.t)


def _read_clear(r: _Reading, a: _Answer) -> bool:
    """CLEAR: the player's totals return to the turn's snapshot (unknown without one)."""
    p, me = a.press, a.me
    if p.button == "CLEAR" and me is not None:
        old = r.snapshot.get(p.player)
        if old is not None:
            r.totals[p.player] = old.copy()
        else:
            me.warriors = me.gold = None
        r.bazaar = None
        return True
    return False


def _read_frontier(r: _Reading, a: _Answer) -> None:
    """FRONTIER counts a frontier crossed unless KEY MISSING refuses it."""
    if a.turn_prompt and a.press.button == "FRONTIER" and not a.cursed and a.me is not None \
            and not any(q.name == "KEY MISSING" for q in a.pics):
        a.me.frontiers = min(4, a.me.frontiers + 1)


def _read_move_or_tomb(r: _Reading, a: _Answer) -> None:
    """MOVE's or TOMB/RUIN's outcome (``move`` per level, ``tomb``); a tomb's treasure
    (``tomb_treasure``, ``tomb_gold``, ``tomb_extra``); the dragon's share
    (``dragon_warriors``, ``dragon_gold``)."""
    p, me, pics = a.press, a.me, a.pics
    if not (a.turn_prompt and p.button in ("MOVE", "TOMB/RUIN") and not a.cursed):
        return
    per = r.per
    quantity = "move" if p.button == "MOVE" else "tomb"
    if a.horn is not None:
        kind = "battle"
    elif not pics:
        kind = "safe" if quantity == "move" else "deserted"
    elif quantity == "move":
        kind = MOVE_PICTURES.get(pics[0].name, "other:" + pics[0].name)
    else:
        kind = "treasure" if pics[0].name in TREASURES else "other:" + pics[0].name
    r.add(quantity, r.lv if quantity == "move" else "all levels", kind, p.t)
    if quantity == "tomb" and kind == "treasure" and me is not None:
        r.add("tomb_treasure", "all levels", pics[0].name == "GOLD", pics[0].t)
        if pics[0].name == "GOLD":
            if pics[0].number is not None and me.gold is not None and \
                    me.warriors is not None and pics[0].number < min(99, per * me.warriors):
                r.add("tomb_gold", "all levels", pics[0].number - me.gold, pics[0].t)
            extra = pics[1:2]
            r.treasure("tomb_extra", extra[0] if extra and extra[0].name in TREASURES
                       else None, pics[0].t, me)
    if kind == "dragon" and me is not None:
        after = {q.name: q.number for q in pics[1:3]}
        w_after = after.get("WARRIOR", after.get("WARRIORS"))
        g_after = after.get("GOLD")
        if "SWORD" in after:
            me.sword = False
        if "SWORD" not in after and w_after is not None and me.warriors is not None:
            r.add("dragon_warriors", "all levels", (me.warriors, w_after), pics[0].t)
        if "SWORD" not in after and g_after is not None and me.gold is not None:
            r.add("dragon_gold", "all levels", (me.gold, g_after), pics[0].t)


def _read_sanctuary(r: _Reading, a: _Answer) -> None:
    """SANCTUARY/CITADEL: the bonuses (``sanctuary_warriors``, ``sanctuary_gold``) or the
    Citadel's doubling (``citadel_double``)."""
    me = a.me
    if not (a.turn_prompt and a.press.button == "SANCTUARY/CITADEL" and not a.cursed and
            me is not None):
        return
    for q in a.pics:
        if q.name in ("WARRIOR", "WARRIORS") and q.number is not None and \
                me.warriors is not None:
            if citadel_doubles(me.warriors, me.frontiers, me.keys):
                # the Citadel doubles the force; any other force gets the Sanctuary's bonus
                r.add("citadel_double", "all levels", q.number == 2 * me.warriors, q.t)
            else:
                r.add("sanctuary_warriors", "all levels", q.number - me.warriors, q.t)
        if q.name == "GOLD" and q.number is not None and me.gold is not None:
            r.add("sanctuary_gold", "all levels", q.number - me.gold, q.t)


def _read_brigands(r: _Reading, a: _Answer) -> None:
    """A battle's brigands: the tower's (``tower_brigands``) when the horn answers the
    riddle of the keys (a game's first siege only: after a Final Battle left or lost the
    next may face fewer, cleanroom/sections/dark_tower.py), else against the warriors
    (``brigands_minus_warriors``, ``brigands_spread``)."""
    battle = a.battle
    if battle is not None and a.press.prompt in ("1 ", "2 "):
        # the riddle answered: the Final Battle in the Dark Tower (rulebook)
        r.sieges += 1
        if r.sieges == 1:
            r.add("tower_brigands", r.lv, battle.brigands, battle.start)
    elif battle is not None:
        r.add("brigands_minus_warriors", r.lv, battle.brigands - battle.warriors, battle.start)
        if battle.warriors >= 3:
            # how often each difference comes, where none is cut at 1 brigand
            r.add("brigands_spread", "3+ warriors", battle.brigands - battle.warriors,
                  battle.start)


def _read_skirmishes(r: _Reading, a: _Answer) -> None:
    """A battle's course: its rounds, a retreat, each skirmish (``skirmish`` by force
    ratio, a multi-player ``last_stand``, ``brigands_after_win``, ``warriors_after_loss``),
    a won battle's gold and treasure."""
    battle, me = a.battle, a.me
    if battle is None:
        return
    r.add("battle_rounds", "all levels", len(battle.skirmishes), battle.start)
    retreat = next((q for q in r.rec.presses[a.i + 1:] if q.button == "NO/END" and
                    battle.start <= q.t <= battle.end), None)
    if retreat is not None:
        # NO/END during a battle (rulebook: a retreat): did the skirmishes go on?
        on = any(s[0] > retreat.t for s in battle.skirmishes)
        r.add("retreat", "all levels", "went on" if on else "ended", retreat.t)
    for (t, won, wb, bb, w, b) in battle.skirmishes:
        if r.players > 1 and wb - 1 <= r.floor:
            # a multi-player force of 2 or 1 warriors: its skirmish is the battle's
            # last, lost (the Death March) or won
            r.add("last_stand", "multi-player", won, t)
        else:
            r.add("skirmish", force_class(wb, bb), won, t, chance=skirmish_chance(wb, bb))
        if won:
            r.add("brigands_after_win", "all levels", b == bb // 2, t)
        elif w is not None:         # a skirmish lost to the end shows no number
            r.add("warriors_after_loss", "all levels", w == wb - 1, t)
    after = [q for q in a.pics if q.t > battle.end]
    if battle.won and after and after[0].name == "GOLD" and after[0].number is not None:
        w_end = battle.skirmishes[-1][4]
        if me and me.gold is not None and after[0].number < min(99, r.per * w_end):
            r.add("battle_gold", "all levels", after[0].number - me.gold, after[0].t)
        extra = after[1:2]
        if me is not None:
            r.treasure("treasure", extra[0] if extra and extra[0].name in TREASURES and
                       extra[0].t - after[0].t < 4 else None, after[0].t, me)


def _read_bazaar(r: _Reading, a: _Answer) -> None:
    """The bazaar: each item's first price (``<item>_price``), haggles (``haggle``,
    ``haggle_step``)."""
    p = a.press
    if a.turn_prompt and p.button == "BAZAAR" and not a.cursed:
        r.bazaar = {"shown": set(), "current": None, "price": None}
    bazaar = r.bazaar
    in_bazaar = bazaar is not None and (p.button == "BAZAAR" or not a.turn_prompt)
    if not (in_bazaar and a.pics):
        return
    first = a.pics[0]
    if p.button == "HAGGLE" and p.prompt == "--" and bazaar["current"] not in (None, "FOOD"):
        if first.name == "BAZAAR CLOSED":
            r.add("haggle", "all levels", False, p.t)
            r.bazaar = None
        elif first.name == bazaar["current"] and first.number is not None:
            r.add("haggle", "all levels", True, p.t)
            if bazaar["price"] is not None:
                r.add("haggle_step", "all levels", bazaar["price"] - first.number, p.t)
            bazaar["price"] = first.number
    elif first.name in BAZAAR_ITEMS and first.number is not None and \
            p.button in ("BAZAAR", "NO/END", "REPEAT"):
        if first.name not in bazaar["shown"]:
            bazaar["shown"].add(first.name)
            r.add(PRICE_NAMES[first.name], "all levels", first.number, first.t)
        bazaar["current"], bazaar["price"] = first.name, first.number


def _read_totals(r: _Reading, a: _Answer) -> None:
    """The player's totals after the action: what its pictures showed, what it bought, a
    battle's end, a curse cast (the victim's totals become unknown)."""
    p, me, battle = a.press, a.me, a.battle
    if me is None:
        return
    if r.bazaar is not None:
        _buy(r.bazaar, me, p, a.pics)
    for q in a.pics:
        if q.number is None or (battle is not None and battle.start <= q.t <= battle.end):
            continue
        if q.name in ("WARRIOR", "WARRIORS") and r.bazaar is None:
            me.warriors = q.number
        elif q.name == "GOLD":
            me.gold = q.number
    lost = battle is not None and battle.lost
    if lost:
        # lost to the end: a multi-player force keeps 1 warrior, a solo one none
        # (rulebook, A Battle With Brigands, IMPORTANT)
        me.warriors = r.floor
    elif battle is not None and not battle.retreat:
        me.warriors = battle.skirmishes[-1][4]
    elif a.horn is not None:
        me.warriors = None      # a retreat, or a battle that could not be read
    if p.button == "YES/BUY" and p.prompt.startswith("C") and p.prompt[1:].isdigit():
        victim = r.totals.get(int(p.prompt[1:]))
        if victim is not None:
            victim.warriors = victim.gold = None
    # after a battle won its treasure is not all shown; a lost one brings none
    _carry(me, r.per, known=a.horn is None or lost)


# The readings of a press, in order (``observe``): one per situation; True = read whole.
READINGS = (_read_starving, _read_response, _read_last_warrior_starved, _read_turn,
            _read_inventory, _read_clear, _read_frontier, _read_move_or_tomb,
            _read_sanctuary, _read_brigands, _read_skirmishes, _read_bazaar, _read_totals)


def _buy(bazaar: dict, me: _Totals, p: Press, pics: list) -> None:
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


def _starved(rec: GameEvents, t: float, pics: list) -> bool:
    """Tell whether the key pressed at ``t`` starved a warrior: the Death March begins as the
    key is taken (within 0.15 s), before any picture."""
    march = rec.cue_between(DEATH_MARCH_HZ, t, t + 0.7)
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


