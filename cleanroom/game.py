"""Play the 1981 Dark Tower game, written from the rulebook and observed behaviour only.

Sources: the 1981 rulebook for every rule (sections named in the
comments) and the four shared MAME captures of the genuine tower for what the tower shows and
when (timings and sound cues in cleanroom.params).  Nothing here comes from the MP7332 ROM.

The game is a set of generator flows run by cleanroom.engine.Engine.  Every random decision
goes through ``Game.choose(name, options, weights)``, which asks a pluggable chooser: a seeded
``RandomChooser`` for play, or the resolver in cleanroom.conform that picks what a reference
recording shows.  Decision names::

    warrior_price beast_price scout_price healer_price   bazaar prices on entering (bags)
    haggle            True = the price drops by one, False = the bazaar closes
    move              safe, battle, lost, plague, dragon
    tomb              deserted, battle, treasure
    brigands          brigands attacking in a MOVE/TOMB battle
    skirmish          True = the warriors win the skirmish
    battle_gold       gold found after a won battle or in a tomb (bags)
    treasure          after a won battle, besides the gold: none, key, pegasus, sword, wizard
    tomb_treasure     a tomb's or ruin's one treasure: gold, key, pegasus, sword, wizard
    sanctuary_warriors / sanctuary_gold / sanctuary_food   bonus amounts
    tower_brigands_L1 (L2, L3)  brigands in the Dark Tower (once per game; level 4 has 16)
    riddle            key order (levels 1-3, once per game)
    riddle_key1       the key the riddle offers first for key 1 (each DARK TOWER visit)
    riddle_key2       the key it offers first for key 2, of the two left
    skirmish_think_cycles   how long the tower works a skirmish out (a timing decision)
    players_setup_cycles    how much longer than the median levels 1-3 take to set up before
                      the first player-count prompt (a timing decision)
    move_think_cycles       how much longer than the median MOVE takes to decide (a timing
                      decision)
    treasure_think_cycles   how much longer than the median a won battle's or a tomb's
                      treasure takes after the GOLD total (a timing decision)
    riddle_think_cycles     how much longer than the median the riddle's first key takes
                      after the tower's tune (a timing decision)
    haggle_think_cycles     how much longer than the median a haggle takes (a timing decision)
    spoils_think_cycles     how much longer than the median a won battle takes to turn to its
                      GOLD (a timing decision)
    sanctuary_think_cycles  how much longer than the median a Sanctuary's bonuses take to draw
                      (a timing decision)
    reel_step_cycles        0, or one reel step later or sooner: which 27 ms step a reel turn
                      that starts within ``reel_edge_s`` of one steps first at (cleanroom.engine)
    key_scan_cycles         0, or one scan later or sooner: which scan sees a key closed
                      within ``scan_edge_s`` of its column's strobe (cleanroom.engine)

A name ending in ``_cycles`` is a timing decision (``is_timing_name``): a duration, not an
outcome.  The RandomChooser draws those from a second generator so that adding one never
shifts the outcomes a seed plays.
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, replace
from typing import Any, Protocol, Sequence

from captures.darktower_facts import INSTRUCTION_CYCLES, NOMINAL_CLOCK_HZ
from captures.script import BUTTONS

from .engine import Engine
from .cues import CUES
from .params import SOUNDS, param
from .reel import PICTURES

__all__ = ["Chooser", "RandomChooser", "is_timing_name", "ScriptedChooser", "Player", "Game",
           "ACTION_KEYS", "food_per_turn", "skirmish_chance", "dragon_takes",
           "quarter_by_digits"]

ACTION_KEYS = frozenset({"MOVE", "TOMB/RUIN", "SANCTUARY/CITADEL", "BAZAAR", "FRONTIER",
                         "INVENTORY", "DARK TOWER", "REPEAT", "CLEAR"})
KEYS = ("BRASS KEY", "SILVER KEY", "GOLD KEY")


class Chooser(Protocol):
    """Resolve one random decision of the game."""

    def choose(self, name: str, options: Sequence, weights: Sequence[float] | None,
               t: float) -> Any:
        """Return one of ``options`` for decision ``name`` taken at tower time ``t``."""


def is_timing_name(name: str) -> bool:
    """Return True if decision ``name`` is a timing decision (a duration in chip cycles)."""
    return name.endswith("_cycles")


class RandomChooser:
    """Choose with a seeded pseudo-random generator, using the parameter table's odds.

    Outcomes and timing decisions come from two generators seeded alike, so a seed plays
    the same game whatever durations the game asks for."""

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)
        self.timing = random.Random(None if seed is None else f"timing {seed}")

    def choose(self, name: str, options: Sequence, weights: Sequence[float] | None,
               t: float) -> Any:
        """Return a weighted random choice (uniform when ``weights`` is None)."""
        rng = self.timing if is_timing_name(name) else self.rng
        return rng.choices(list(options), weights=weights)[0]


class ScriptedChooser:
    """Take each named decision from a queue of values (e.g. a rulebook example's outcomes).

    ``ScriptedChooser({"move": ["dragon"], "skirmish": [True, True]})``: decisions whose queue
    is empty fall back to ``fallback`` (default a RandomChooser with seed 0).  A queued value
    that is not among the options raises ValueError naming the decision.
    """

    def __init__(self, outcomes: dict[str, Sequence], fallback: Chooser | None = None):
        self.queues = {name: list(values) for name, values in outcomes.items()}
        self.fallback = fallback or RandomChooser(0)

    def choose(self, name: str, options: Sequence, weights: Sequence[float] | None,
               t: float) -> Any:
        """Return the next queued value for ``name``, or ask the fallback."""
        queue = self.queues.get(name)
        if queue:
            value = queue.pop(0)
            if value not in options:
                raise ValueError(f"decision {name!r} at {t:.3f} s: {value!r} is not one of "
                                 f"the options {list(options)[:10]}")
            return value
        return self.fallback.choose(name, options, weights, t)


def after_click(cue: str) -> float:
    """Return how long after the key click's start cue ``cue`` begins when a key starts it
    (the median over the corpus, cleanroom.cues; the usual 6 ms where none is recorded)."""
    lead = CUES[cue].after_click_s if cue in CUES else None
    return param("sound_after_click_s") if lead is None else lead


def lamp_after_motor(role: str, picture: str = "") -> float:
    """Return how long after the motor stops a picture of ``role`` lights (params
    ``lamp_after_motor_s``: the picture's own entry, else its role's)."""
    table = param("lamp_after_motor_s")
    return table.get(f"{role} {picture}", table[role])


def cue_after_lamp(cue: str) -> float:
    """Return how long after its picture's lamp cue ``cue`` starts (its catalogue row's time,
    else params ``cue_after_lamp_s``)."""
    lead = SOUNDS[cue].after_lamp_s
    return param("cue_after_lamp_s") if lead is None else lead


def skirmish_chance(warriors: int, brigands: int) -> float:
    """Return the chance that the warriors win a skirmish: it goes by steps of the force
    ratio, the chance of the last row of params ``skirmish_win`` whose ratio the warriors
    reach (warriors >= ratio x brigands).  Read off the corpus's skirmishes
    (docs/corpus-statistics.md): within each step, at half, once, twice and four times the
    brigands, the share won does not change with the ratio, where w^k / (w^k + (c b)^k)
    would rise through it (even forces win 62 %, not the 54 % of the best such k and c)."""
    chance = 0.0
    for ratio, p in param("skirmish_win"):
        if warriors >= ratio * brigands:
            chance = p
    return chance


def quarter_by_digits(n: int, share: int | None = None) -> int:
    """Return a quarter of ``n`` (0-99) taken digit by digit: a quarter of the tens' value
    plus a quarter of the units, each rounded down (36 -> 7 + 1 = 8, where n // 4 is 9).

    Read off the corpus's dragon attacks (docs/corpus-statistics.md, ``dragon_share``): it is
    the one rule that fits every one of them, gold and warriors alike, with the rulebook's
    "1/4": l3_p1_s27 135.5 s 36 bags became 28, l2_p2_s06 217 s 12 warriors became 10; a plain
    quarter rounded down gives 27 and 9.  The counts show as two decimal digits, and the
    numbers behave as if each digit were divided on its own.  ``share``: the divisor
    (default the dragon's, params ``dragon_share``; a wizard's curse takes ``curse_share``).
    """
    share = param("dragon_share") if share is None else share
    tens, units = divmod(max(0, min(99, n)), 10)
    return (10 * tens) // share + units // share


def dragon_takes(warriors: int, gold: int) -> tuple[int, int]:
    """Return (warriors, gold) the dragon takes: a quarter of each taken digit by digit
    (``quarter_by_digits``), so none of 1 to 3 warriors (params ``dragon_share``: every attack
    of the development corpus: 1 warrior kept 5 times in level1_solo_moves, 3 kept in
    l3_p2_s07 298.6 and level1_solo_moves 89.0, 2 kept in l1_p1_s133 161.5)."""
    return quarter_by_digits(warriors), quarter_by_digits(gold)


def food_per_turn(warriors: int) -> int:
    """Return rations eaten per turn: 1 per started 15 warriors, at least 1 (rulebook: Food)."""
    return max(1, (warriors + 14) // 15)


@dataclass
class Player:
    """One player's inventory as the tower keeps it (rulebook: score chart)."""
    number: int
    warriors: int = 10
    gold: int = 30
    food: int = 25
    beast: bool = False
    scout: bool = False
    healer: bool = False
    sword: bool = False
    keys: int = 0              # 0-3: brass, silver, gold in that order
    frontiers: int = 0         # frontiers crossed (4 = back home)
    doubled: bool = False      # the home Citadel doubled the warriors since the last building
    cursed_by: int | None = None
    turns: int = 0

    def gold_limit(self) -> int:
        """Return the most gold this force can carry (6 per warrior, 50 with a beast, <= 99)."""
        return min(param("max_count"), param("gold_per_warrior") * self.warriors +
                   (param("beast_carries") if self.beast else 0))

    def carry(self) -> None:
        """Drop gold the force cannot carry (rulebook: Battle Treasures, gold)."""
        self.gold = max(0, min(self.gold, self.gold_limit()))


def _two(n: int) -> str:
    return f"{max(0, min(99, n)):02d}"


class Game:
    """The tower's program: power-on test, level and player selection, then the turns."""

    def __init__(self, chooser: Chooser | None = None, start: tuple[int, int] | None = None,
                 clock_ratio: float = 1.0):
        """Make a game; ``start=(level, players)`` skips the tower test and the selection.

        ``clock_ratio``: this tower's clock relative to the reference (cleanroom.engine).
        """
        self.chooser = chooser or RandomChooser()
        self.start = start
        if start is not None and not (start[0] in (1, 2, 3, 4) and start[1] in (1, 2, 3, 4)):
            raise ValueError(f"start {start!r}: expected (level 1-4, players 1-4)")
        self.engine = Engine(self._quick_start if start else self._power_on, clock_ratio)
        self.engine.decide = self.choose
        self.level = 1
        self.players: list[Player] = []
        self.current = 0
        self.tower_brigands = 16
        self.riddle: tuple[str, ...] = param("level4_riddle")
        self.dragon_warriors, self.dragon_gold = self._hoard_start()
        self.last_shown: list[tuple[str, str | None]] = []
        # (picture or kind, time) of the picture whose lamp went dark last: the reel turn
        # that follows it starts a little later (params ``motor_after_picture_s``)
        self._picture_end: tuple[str, float, float] | None = None
        self._shown_turn: tuple[int, int] | None = None    # whose turn last_shown belongs to
        self._acted_turn: tuple[int, int] | None = None    # the turn an action was taken in
        # (player, turn, cue): a turn whose first action key sounds a warning first (food
        # running low, or a warrior starving)
        self._warning_turn: tuple[int, int, str] | None = None
        self._warned = False        # this action began with such a warning
        self._citadel_cleared = False   # this action cleared the Citadel's doubling
        self.over = False
        self.log: list[tuple[float, str, Any]] = []

    # ---- helpers ----------------------------------------------------------------------
    @staticmethod
    def _hoard_start() -> tuple[int, int]:
        """Return the (warriors, gold) the Dragon's hoard holds before its first attack and
        after a sword has won it (params ``dragon_hoard_start``: every slaying in the corpus
        wins 2 warriors and 6 bags more than the attacks took)."""
        start = param("dragon_hoard_start")
        return start["warriors"], start["gold"]

    def choose(self, name: str, options: Sequence, weights: Sequence[float] | None = None):
        """Resolve a random decision through the chooser and log it."""
        value = self.chooser.choose(name, list(options), weights, self.engine.now)
        self.log.append((self.engine.now, name, value))
        return value

    def pick(self, name: str, lo: int, hi: int, full: tuple[int, int] = (1, 99)) -> int:
        """Choose a number for decision ``name``: uniform in lo..hi (the chosen parameter).

        Every value the display can show (``full``) is an option, with weight 0 outside
        lo..hi, so a resolver can still match a recording that shows one (and
        ``conform --stats`` reports it as outside the parameter's range).
        """
        a, b = full
        options = list(range(min(a, lo), max(b, hi) + 1))
        return self.choose(name, options, [1.0 if lo <= v <= hi else 0.0 for v in options])

    def think(self, name: str, lo: int | None = None, hi: int | None = None) -> float:
        """Decide how long the tower works something out that its hidden state times: a timing
        decision ``name`` (ending in ``_cycles``, cleanroom.conform) over ``lo``..``hi``
        cycles at 425 kHz (default: the parameter of that name) in one-instruction steps (6
        cycles), the game's own time first; return it in seconds (nominal clock, like every
        sleep)."""
        if lo is None:
            lo, hi = param(name)
        step = INSTRUCTION_CYCLES
        options = sorted(range(lo - lo % step, hi + 1, step), key=lambda c: (abs(c), c))
        return self.choose(name, options) / NOMINAL_CLOCK_HZ

    def sleep(self, s: float):
        """Wait ``s`` seconds."""
        if s > 0:
            yield ("sleep", s)

    def sound(self, name: str, delay: float = 0.0, tail: float | None = None):
        """Play cue ``name`` ``delay`` s from now and wait until it (and its tail, or ``tail``
        seconds of silence instead) ends."""
        e = self.engine
        early = -tail if tail is not None and tail < 0 else 0.0
        length = e.sound(name, at=e.now + delay / e.clock_ratio, early=early)
        if tail is not None:
            length = self._notes_length(name) + tail
        yield ("sleep", delay + length)

    def prompt(self, text: str, keys, delay: float = 0.0, keep: bool = False,
               entry: str | None = None, extra_cycles: float = 0.0):
        """Flash ``text`` from ``delay`` s on and wait for one of ``keys``; click; return it.

        The key-wait loop begins now (``entry``: a ``loop_after_click_cycles`` row, the loop
        begins that much after the click that came just before, the flash timer standing still
        until then) and the text takes the flash timer's running phase (cleanroom.engine):
        shown at once while the timer's bit is on, else from its next toggle.  The key is
        taken at the second key scan that sees it, with a click; then the display goes dark,
        unless ``keep`` (a menu: the next entry replaces the text in the same phase,
        ``text_after_click_s`` later).  ``extra_cycles``: the entry comes that
        many cycles (at 425 kHz) later still."""
        e = self.engine
        e.flash(text, at=e.now + delay / e.clock_ratio)
        if entry is not None:
            # these prompts follow a key's click at once: the extra comes after the click
            yield ("sleep", (param("click_dur_s") + (param("loop_after_click_cycles")[entry]
                             + extra_cycles) / NOMINAL_CLOCK_HZ) / e.clock_ratio)
        key = yield ("key", frozenset(keys))
        e.click()
        if not keep:
            e.end_flash()
        return key

    def _turn_to(self, picture: str, role: str = "event"):
        """Turn the reel to ``picture``'s card if needed and light its lamp alone; return the
        lamp's time: after a turn, as long after the motor stops as the picture's ``role``
        takes (params ``lamp_after_motor_s``: "total", "offer", "item", "event", "cue")."""
        e = self.engine
        card, lamp = PICTURES[picture]
        lamp_at = e.now
        end = self._picture_end
        if e.reel.card == card and end is not None and abs(end[1] - e.now) < 1e-9:
            # the next picture on the same card lights a little after the last goes dark
            # (params ``lamp_after_lamp_s``)
            lamp_at += param("lamp_after_lamp_s").get(picture, 0.0)
        if e.reel.card != card:
            end, self._picture_end = self._picture_end, None
            if end is not None and abs(end[1] - e.now) < 1e-9:
                after = param("motor_after_picture_s")
                yield from self.sleep(after.get(end[0], after["other"]) + end[2])
            yield ("reel", card)
            e.motor(False)
            lamp_at = e.now + lamp_after_motor(role, picture)
        e.lamps_off(at=lamp_at)
        e.lamp(lamp, True, at=lamp_at)
        return lamp_at

    def show(self, picture: str, text: str | None = None, delay: float = 0.0,
             remember: bool = True, keep_lamp: bool = False, hold: float | None = None,
             then: str | None = None, item: bool = False, think: float = 0.0):
        """Turn the reel to ``picture``, light its lamp with a beep, show ``text``, hold 1.6 s
        (``hold`` seconds if given).  A key loop begun as it ends scans first after the
        ``scan_after_picture_cycles`` row ``then`` (by default: "event" for a picture
        without a number, "warriors" and "gold" for those totals, else "event").  ``item``:
        a possession INVENTORY or REPEAT shows (its lamp's time after a reel turn).
        ``think``: what follows the picture (a key loop or a reel turn) comes that many
        seconds later still."""
        e = self.engine
        yield from self.sleep(delay)
        role = ("offer" if then == "offer" else "total" if text is not None
                else "item" if item else "event")
        lamp_at = yield from self._turn_to(picture, role)
        e.tone(param("beep_hz"), param("beep_dur_s"), at=lamp_at + param("beep_after_lamp_s"),
               cue="beep")
        if text is not None:
            e.display(text, at=lamp_at + param("number_after_lamp_s"))
        else:
            e.display("  ", at=lamp_at)
        if remember:
            self.last_shown.append((picture, text))
        yield ("sleep", lamp_at - e.now + (param("picture_s") if hold is None else hold))
        if not keep_lamp:
            e.lamp(PICTURES[picture][1], False)
            self._picture_end = ("gold_found" if then == "gold_found" else picture, e.now,
                                 think)
        e.display("  ")
        if then is None:
            then = {"WARRIOR": "warriors", "GOLD": "gold", "FOOD": "food"}.get(picture, "event")
        e.first_scan_after(param("scan_after_picture_cycles")[then] + think * NOMINAL_CLOCK_HZ)

    @property
    def player(self) -> Player:
        """Return the player whose turn it is."""
        return self.players[self.current]

    # ---- power-on, tower test, selection (rulebook: Tower Test; Choice Of Levels) ------------
    def _power_on(self, e: Engine):
        e.display("0 ", at=0.0 + e.now)
        e.display("  ", at=e.now + param("frame_s"))
        e.emit(e.now + param("frame_s"), "reel", card_pos=e.reel.card)
        e.set_last_card(e.reel.card)
        # the flash timer starts dark: '--' shows 32 ticks after power-on (cleanroom.engine)
        yield from self.prompt("--", set(BUTTONS))
        yield from self.sleep(param("motor_after_click_s"))
        yield ("reel", "index")
        e.motor(False)
        lamp_at = e.now + lamp_after_motor("tower_test")
        steps = param("tower_test_lamp_s")
        for i, lamp in enumerate(("upper", "middle", "lower")):
            t = lamp_at + sum(steps[:i])
            if i:
                e.lamp(("upper", "middle")[i - 1], False, at=t)
            e.lamp(lamp, True, at=t)
            e.tone(param("beep_hz"), param("beep_dur_s"), at=t + param("beep_after_lamp_s"),
                   cue="beep")
        e.display("88", at=lamp_at + param("number_after_lamp_s"))
        yield ("sleep", lamp_at + sum(steps) - e.now)
        e.lamp("lower", False)
        # '88' and the lamps cleared the flash timer's bit: L1 shows at its next toggle, and
        # the menus L1-L4 then P1-P4 keep that phase (every recording)
        level = 1
        delay = 0.0
        e.shift_loop(param("menu_after_test_cycles"))
        while True:
            key = yield from self.prompt(f"L{level}", {"YES/BUY", "NO/END"}, delay=delay,
                                         keep=True)
            delay = param("text_after_click_s")
            if key == "YES/BUY":
                break
            level = level % 4 + 1
        count = 1
        # levels 1-3 take longer to set up before the first player-count prompt (params)
        entry = "players" if level != 4 else None
        extra = 0.0
        if entry:
            # how much longer than the median is a hidden state's (params)
            extra = self.think("players_setup_cycles")
        while True:
            key = yield from self.prompt(f"P{count}", {"YES/BUY", "NO/END"}, delay=delay,
                                         keep=True, entry=entry,
                                         extra_cycles=extra * NOMINAL_CLOCK_HZ)
            entry, extra = None, 0.0
            if key == "YES/BUY":
                break
            count = count % 4 + 1
        e.end_flash()
        self._setup(level, count)
        yield from self.sound("overture", delay=after_click("overture"))
        yield from self._turns()

    def _quick_start(self, e: Engine):
        e.display("  ")
        self._setup(*self.start)
        yield from self._turns()

    def _setup(self, level: int, count: int) -> None:
        self.level = level
        self.dragon_warriors, self.dragon_gold = self._hoard_start()
        self.players = [Player(number=i + 1, warriors=param("start_warriors"),
                               gold=param("start_gold"), food=param("start_food"))
                        for i in range(count)]
        lo, hi = param("tower_brigands")[level]
        if level == 4:
            inv = param("level4_inventory")
            for p in self.players:
                p.warriors, p.gold, p.food = inv["warriors"], inv["gold"], inv["food"]
                p.beast, p.scout, p.healer = bool(inv["beast"]), bool(inv["scout"]), \
                    bool(inv["healer"])
                p.sword, p.keys, p.frontiers = bool(inv["sword"]), inv["keys"], inv["frontiers"]
            self.tower_brigands = lo
            self.riddle = tuple(param("level4_riddle"))
        else:
            self.tower_brigands = self.pick(f"tower_brigands_L{level}", lo, hi)
            # rulebook: the order of the keys changes from game to game (any of the 6)
            self.riddle = self.choose("riddle", list(itertools.permutations(
                ("GOLD KEY", "SILVER KEY", "BRASS KEY"))))
        self.current = 0

    # ---- turns (rulebook: The Order Of Play, How To End Your Turn, Food) ----------------
    def _turns(self):
        # the first turn: the key loop begins 10.6 ms after the overture (all 34 recordings:
        # first key scan 36-37 ms after its last note)
        delay = param("first_turn_after_tune_s")
        while not self.over:
            p = self.player
            p.turns += 1
            yield from self.sleep(delay)
            yield from self._feed(p)
            if self.over:
                return
            # CLEAR undoes the action, not the turn's rations (rulebook: Rations Of Food, each
            # turn's food is eaten 'whether you move your warrior pawn or not')
            snapshot = replace(p)
            hoard = (self.dragon_warriors, self.dragon_gold)
            outcome = "again"
            while outcome == "again":
                # after the end cue or the overture: the running phase (557 turn changes)
                key = yield from self.prompt(f" {p.number}", ACTION_KEYS)
                outcome = yield from self._action(p, key)
            if self.over:
                return
            if outcome == "extra":
                # rulebook: a Scout's extra turn; it is a whole turn (sample game: food 17)
                delay = 0.0
                continue
            if outcome == "undone":
                self._undo(snapshot, hoard)
            else:
                key = yield from self.end_of_turn(p)
                if key == "CLEAR":
                    self._undo(snapshot, hoard)
                if self.over:
                    return
            self.current = (self.current + 1) % len(self.players)
            # the tower looks through its four player slots for the next player: each empty
            # slot passed over delays the next key loop (cleanroom/params.py)
            skipped = 4 - len(self.players) if self.current == 0 else 0
            delay = param("next_player_after_sound_s")[skipped]
            if self.current == 0 and skipped == 0:
                delay = param("next_player_wrap_after_sound_s")     # 4 -> 1, no slot empty

    def _feed(self, p: Player):
        """Eat one turn's food; starve one warrior when there is none (rulebook: Food)."""
        need = food_per_turn(p.warriors)
        if p.food < need:
            # not a whole meal left (none, or less than a large force eats): the rest is eaten
            # and a warrior starves now; the Death March sounds with the turn's first action
            # key, before the action, as the low-food warning does (corpus: 31 of 31 with no
            # food, e.g. l2_p1_s118 323.75, l4_p1_s28 223.68; l4_p1_s104 374.77 with 1 ration
            # for 35 warriors, l4_p1_s152 274.96 with 2 for 46)
            p.food = 0
            p.warriors = max(self._min_warriors(), p.warriors - 1)
            p.carry()
            self._warning_turn = (p.number, p.turns, "death_march")
            if False:
                yield
            return
        # the warning: fewer than 4 turns' worth of rations left after this meal (params
        # ``low_food_turns``: l2_p1_s26 297.30 none with 4 left, 301.32 with 3; l4_p3_s20
        # 400.50 with 10 left at 3 a turn)
        p.food = max(0, p.food - need)
        if p.food < param("low_food_turns") * need:
            # the warning sounds with the turn's first action key, before the action
            # (corpus: 6 of 6, e.g. l2_p1_s26 301.32, l2_p1_s02 365.73)
            self._warning_turn = (p.number, p.turns, "low_food")

    def _warning(self, p: Player, cue: str):
        """Sound the turn's warning (the low-food whoops, or the Death March of a starving
        force) after the action key's click; the action then runs as after a click
        ``action_after_warning_s`` past the warning's last note (params: every action after
        either warning, 80 of 80, its first output that much after the notes plus its own time
        after a click).  The starving Death March starts a time after the click the hidden
        state decides (``starve_cycles``)."""
        if cue == "death_march" and p.warriors == 0:
            # a solo force's last warrior starved: WARRIORS with the Death March, and the game
            # is over, no action (l3_p1_s119 417.35: the reel turns 9.8 ms after the click)
            yield from self.sleep(param("starve_last_after_click_s"))
            yield from self._picture_with_sound("WARRIORS", "death_march")
            return
        delay = after_click(cue)
        if cue == "death_march":
            delay = param("starve_after_click_s") + self.think("starve_cycles")
        yield from self.sound(cue, delay=delay, tail=param("action_after_warning_s"))

    def _min_warriors(self) -> int:
        """Return the fewest warriors a loss leaves (params ``min_warriors``)."""
        return param("min_warriors")["multi" if len(self.players) > 1 else "solo"]

    def _undo(self, snapshot: Player, hoard: tuple[int, int]) -> None:
        """Undo the turn's action (rulebook: The Clear Button): the player's inventory and the
        dragon's hoard return to what they were before it.  A curse the action cast is not
        undone (rulebook: Clear, EXCEPTION): the victim keeps its loss and is still cursed,
        while the curser's gain goes with the rest of the action (corpus l3_p4_s15: player 3
        curses player 4 at 125.02 (12 warriors, 56 bags) and CLEARs at 131.68; player 4 shows
        CURSED, 08 and 23 at 138.59; player 3 has its 10 and 30 again when player 1's curse
        takes 2 and 7 from it at 222.28)."""
        now = self.players[self.current]
        self.players[self.current] = replace(snapshot, cursed_by=now.cursed_by)
        self.dragon_warriors, self.dragon_gold = hoard

    def end_of_turn(self, p: Player):
        """Flash the end-of-turn signal and wait for NO/END or CLEAR; return the key.

        The signal's key loop begins as the action ends, in the flash timer's running phase
        (cleanroom.engine; l3_p1_s03 37.250: '-1' right after a safe move's beep)."""
        e = self.engine
        while True:
            key = yield from self.prompt(f"-{p.number}", {"NO/END", "CLEAR", "REPEAT",
                                                          "INVENTORY"}, keep=True)
            if key == "INVENTORY" or (key == "REPEAT" and not self._repeatable()):
                # INVENTORY, or REPEAT with nothing to repeat, at the end-of-turn signal: the
                # click alone, the signal flashes on in its phase (corpus l1_p1_s01 42.18,
                # 39.37; l2_p1_s02 37.33, 40.2)
                e.shift_loop(param("click_alone_cycles")[
                    "inventory_signal" if key == "INVENTORY" else "repeat_signal"])
                continue
            e.end_flash()
            if key != "REPEAT":
                break
            yield from self._repeat()
        if key == "CLEAR":
            yield from self.sound("siren", delay=after_click("siren"))
        else:
            yield from self.sound("end_turn", delay=after_click("end_turn"))
        return key

    def _action(self, p: Player, key: str):
        """Run one keyboard action.

        Return 'again' (the same turn goes on), 'extra' (a new turn for the same player),
        'undone' (CLEAR: the turn is void) or the delay in seconds before the end-of-turn
        signal (None = the usual delay).
        """
        if p.cursed_by is not None and key not in ("REPEAT", "CLEAR"):
            # REPEAT then shows the totals the curse left again (l1_p2_s121 157.12: WARRIOR
            # and GOLD, not CURSED)
            self.last_shown = []
            self._shown_turn = (p.number, p.turns)
            return (yield from self._cursed(p))
        if key == "REPEAT":
            yield from self._repeat()
            return "again"
        if key == "CLEAR":
            if self._acted_turn != (p.number, p.turns):
                # nothing to undo before the turn's first action: the click alone (corpus
                # l3_p1_s27 49.0, l1_p2_s29 40.7; after a Scout's extra move the siren
                # sounds, l4_p4_s24 63.6)
                return "again"
            yield from self.sound("siren", delay=after_click("siren"))
            return "undone"
        warning = self._warning_turn
        self._warned = warning is not None and warning[:2] == (p.number, p.turns)
        if self._warned:
            self._warning_turn = None
            yield from self._warning(p, warning[2])
            if p.warriors == 0:
                return (yield from self._game_lost(p))
        self.last_shown = []
        self._shown_turn = self._acted_turn = (p.number, p.turns)
        handler = {
            "MOVE": self._move, "TOMB/RUIN": self._tomb, "SANCTUARY/CITADEL": self._sanctuary,
            "BAZAAR": self._bazaar, "FRONTIER": self._frontier, "INVENTORY": self._inventory,
            "DARK TOWER": self._dark_tower,
        }[key]
        self._citadel_cleared = False
        if key == "TOMB/RUIN" and p.frontiers >= 4:
            # rulebook: revisit the Citadel only after another building; the genuine tower
            # counts a tomb or ruin only: after a BAZAAR visit the Citadel still only trills
            # and a later tomb still clears the doubling, its creak starting slow (l4_p1_s136
            # 93.08 -> 126.21, l4_p1_s152 147.71 -> 179.92, l4_p1_s28 91.17 -> 138.29)
            self._citadel_cleared, p.doubled = p.doubled, False
        return (yield from handler(p))

    def _lead(self, name: str, picture: str) -> float:
        """Return how long after a key's click the flow that shows ``picture`` first starts
        the reel (``name``'s "turn" entry) or, with the reel already there, lights the lamp
        (its entry for the lamp, or "lamp"): params ``name``."""
        card, lamp = PICTURES[picture]
        leads = param(name)
        if self.engine.reel.card != card:
            return leads["turn"]
        return leads.get(lamp, leads.get("lamp"))

    def _repeatable(self) -> bool:
        """Return True when REPEAT has pictures of this turn's action to show again."""
        p = self.player
        return bool(self.last_shown) and self._shown_turn == (p.number, p.turns)

    def _repeat(self):
        """Show again the beeped pictures (with their numbers) of this turn's action; nothing
        but the click before this turn's first action (corpus: REPEAT at ` N` never shows
        anything, l1_p4_s21 49.03; at `-N` it repeats the numbers, not the pictures shown
        with a cue: after a plague only WARRIOR 08, l2_p1_s02 144.7; after a tomb GOLD and
        SWORD, l1_p3_s35 235.8; after LOST nothing, l2_p2_s06 365.6)."""
        shown = list(self.last_shown) if self._repeatable() else []
        if not shown:
            # the click alone: the key loop goes on at once (l1_p1_s01 47.277: the next scan
            # one pass plus the click after the scan that took REPEAT)
            self.engine.shift_loop(param("click_alone_cycles")["repeat_first"])
            return
        yield from self.sleep(self._lead("repeat_after_click_s", shown[0][0]))
        for picture, text in shown:
            yield from self.show(picture, text, remember=False, item=True)

    # ---- MOVE (rulebook: The Move Button, 6 events) -------------------------------------
    # What each outcome shows and when, observed in the corpus (tests/data/corpus, e.g.
    # l1_p1_s01 37.05 safe, 270.15 lost, 66.95 plague, 168.50 dragon, 181.08 battle;
    # l4_p1_s04 99.05 plague with a Healer, 281.12 lost with a Scout; l4_p3_s38 177.77 the
    # dragon slain with the sword).  Times are from the key click.
    def _move(self, p: Player):
        odds = param("move_odds")
        event = self.choose("move", list(odds), list(odds.values()))
        # how long the tower works the move out: its hidden state decides (params)
        think = self.think("move_think_cycles",
                           *param("move_think_cycles")["battle" if event == "battle" else "other"])
        if event == "safe":
            # a short beep right after the click, then the end-of-turn signal
            yield from self.sound("beep", delay=after_click("beep") + think,
                                  tail=-param("loop_lead_s")["beep"])
            return None
        if event == "battle":
            return (yield from self._battle(p, self._brigands_for(p), final=False,
                                            horn_delay=after_click("battle_horn") + think))
        yield from self.sleep(param("picture_after_click_s") + think)
        if event == "lost":
            if p.scout:
                # with a Scout: LOST and SCOUT with their beeps, then another turn (REPEAT
                # shows neither, as it shows no other event picture: chosen)
                yield from self.show("LOST", remember=False)
                yield from self.show("SCOUT", remember=False)
                self._acted_turn = (p.number, p.turns + 1)    # the extra turn continues this one
                return "extra"
            yield from self._picture_with_sound("LOST", "sad")
            return None
        if event == "plague":
            if p.healer:
                # the Healer: PLAGUE and HEALER with beeps, two more warriors; REPEAT shows
                # only the warriors again (l4_p1_s104 87.85)
                yield from self.show("PLAGUE", remember=False)
                yield from self.show("HEALER", remember=False)
                p.warriors = min(param("max_count"), p.warriors + param("plague_warriors"))
            else:
                yield from self._picture_with_sound("PLAGUE", "death_march")
                p.warriors = max(self._min_warriors(), p.warriors - param("plague_warriors"))
                p.carry()
            yield from self.show("WARRIOR", _two(p.warriors))
            if p.warriors == 0:
                yield from self._game_lost(p)
            return None
        # dragon
        if p.sword:
            # the sword slays it: the dragon's cue runs on into a falling glide while SWORD
            # is lit; the sword is spent and the hoard won (corpus l4_p3_s38 177.77)
            e = self.engine
            lamp_at = yield from self._turn_to("DRAGON", "cue")
            start = lamp_at + cue_after_lamp("dragon_slain")
            end = start + e.sound("dragon_slain", at=start)
            sword_at = start + self._notes_length("dragon")
            e.lamp(PICTURES["DRAGON"][1], False, at=sword_at)
            e.lamp(PICTURES["SWORD"][1], True, at=sword_at)
            yield ("sleep", end - e.now)
            e.lamps_off()
            yield from self.sleep(param("reel_after_cue_s")["dragon_slain"])
            p.sword = False
            p.warriors = min(param("max_count"), p.warriors + self.dragon_warriors)
            p.gold = p.gold + self.dragon_gold
            self.dragon_warriors, self.dragon_gold = self._hoard_start()
        else:
            yield from self._picture_with_sound("DRAGON", "dragon")
            yield from self.sleep(param("motor_after_dragon_s"))
            lw, lg = dragon_takes(p.warriors, p.gold)
            p.warriors = max(self._min_warriors(), p.warriors - lw)
            p.gold -= lg
            self.dragon_warriors += lw
            self.dragon_gold += lg
        p.carry()
        yield from self.show("WARRIOR", _two(p.warriors))
        yield from self.show("GOLD", _two(p.gold))
        return None

    def _picture_with_sound(self, picture: str, cue: str):
        """Light ``picture`` and play ``cue`` with it (no beep); the lamp goes off when the
        cue's notes end plus its tail (the Death March and the cursed cue keep the picture lit
        0.44 s longer; LOST, DRAGON, PEGASUS go dark as the notes end: cleanroom/cues.py)."""
        e = self.engine
        lamp_at = yield from self._turn_to(picture, "cue")
        e.display("  ", at=lamp_at)
        start = lamp_at + cue_after_lamp(cue)
        off = start + e.sound(cue, at=start)
        yield ("sleep", off - e.now)
        e.lamps_off()
        first = param("scan_after_picture_cycles")["event"]
        if cue in param("reel_after_cue_s"):
            # the wait is the next reel turn's; a key loop that begins instead still scans
            # first ``first`` cycles after the lamp (l1_p3_s09 172.82: 10440 after the
            # Death March)
            wait = param("reel_after_cue_s")[cue]
            yield from self.sleep(wait)
            e.first_scan_after(first - wait * NOMINAL_CLOCK_HZ)
        else:
            e.first_scan_after(first)
            self._picture_end = (picture, e.now, 0.0)

    @staticmethod
    def _tail_before_picture(cue: str) -> float:
        """Return the silence after cue ``cue`` when a picture follows it: the catalogue's tail
        and the measured difference (params ``tail_before_picture_s``)."""
        return SOUNDS[cue].tail_s + param("tail_before_picture_s")[cue]

    @staticmethod
    def _notes_length(cue: str) -> float:
        """Return how long cue ``cue``'s notes last (s), without its tail."""
        snd = SOUNDS[cue]
        return snd.length - snd.tail_s

    def _brigands_for(self, p: Player) -> int:
        """Return the brigands of a MOVE or TOMB/RUIN battle: the warriors' own number plus a
        difference drawn with the odds of ``brigands_spread``, at least 1 (corpus: every
        first BRIGANDS count within 2 of the warriors that fought, as many as the warriors
        about twice as often as each other difference).  Every count is an option, with
        weight 0 where none falls (as ``pick`` does)."""
        weights = [0.0] * 100
        for d, weight in param("brigands_spread").items():
            weights[min(99, max(1, p.warriors + d))] += weight
        return self.choose("brigands", list(range(1, 100)), weights[1:])

    # ---- battles (rulebook: A Battle With Brigands; The Final Battle) --------------------
    def _battle(self, p: Player, brigands: int, final: bool, horn_delay: float | None = None):
        """Fight a battle, as the corpus shows it (l1_p1_s01 181.08, l1_p3_s09 127.82): the
        battle horn right after the click; BRIGANDS and their number; then per skirmish the
        WARRIORS and BRIGANDS left after it and the won or lost cue; a won skirmish halves the
        brigands (rounded down), a lost one costs one warrior.  The battle is won at 0
        brigands (GOLD and maybe a treasure follow); it is lost when a lost skirmish would
        leave a single warrior: WARRIORS without a number and the Death March."""
        e = self.engine
        # the horn: 17 ms after the key click, or at once after a tomb's creak (cues.py)
        yield from self.sound("battle_horn", delay=after_click("battle_horn")
                              if horn_delay is None else horn_delay,
                              tail=self._tail_before_picture("battle_horn"))
        yield from self.show("BRIGANDS", _two(brigands), remember=False)
        # each skirmish's pause ends in a time the hidden state decides (params
        # ``skirmish_think_cycles``): the pauses run to the earliest of it, the rest follows
        # the skirmish's outcome
        think = param("skirmish_think_cycles")
        floor = min(lo for lo, _ in think.values()) / NOMINAL_CLOCK_HZ
        w = w0 = p.warriors       # w0: the force that lays siege (rulebook: Scoring)
        gap = None                # the pause before this skirmish's result, after the first
        while True:
            won = None
            # a lost skirmish ends the battle when it would leave fewer warriors than a
            # loss keeps: multi-player 1 (so at 2 or 1 warriors), solo 0 (at 1)
            fatal = w - 1 <= self._min_warriors()
            if fatal and len(self.players) > 1:
                # in a multi-player game such a skirmish is the force's last stand: it is
                # lost (params ``min_warriors``: 35 of 35) and brings the Death March sooner,
                # without the key scan that looks for a retreat (``skirmish_fatal_gap_s``,
                # ``skirmish_fatal_first_s``), the battle's first one too; a solo game's last
                # warrior fights an ordinary skirmish (l1_p1_s149 233.7: 2 warriors lose one
                # and fight on)
                won = False
            if gap is None:
                pause = (param("skirmish_fatal_first_s") if won is False
                         else param("battle_pause_s") + floor)
            else:
                pause = param("skirmish_fatal_gap_s") if won is False else gap + floor
            yield from self.sleep(pause)
            if "NO/END" in e.held and won is not False:
                # rulebook: hold NO/END down to retreat; the corpus's short presses during a
                # battle never retreat (l1_p3_s09 42.35, l1_p3_s35 357.44); the retreat
                # used the key: the end signal waits for a new press
                e.use_key("NO/END")
                p.warriors = max(1, w - param("retreat_loss"))
                p.carry()
                yield from self._picture_with_sound("WARRIORS", "death_march")
                return None
            if won is None:
                won = self._skirmish(w, brigands)
            if won:
                brigands //= 2
            elif fatal and len(self.players) > 1:
                return (yield from self._battle_lost(p))
            else:
                # a lost skirmish takes longer to work out (params ``skirmish_lost_extra_s``)
                yield from self.sleep(param("skirmish_lost_extra_s"))
            lo, hi = think["won" if won else "lost"]
            yield from self.sleep(self.think("skirmish_think_cycles", lo, hi) - floor)
            if not won and fatal:
                # the solo game's last warrior: the Death March where the skirmish's
                # WARRIORS would light (l1_p1_s133 384.3: 3.287 s after BRIGANDS, as a lost
                # skirmish's next picture)
                return (yield from self._battle_lost(p))
            if not won:
                w -= 1
            # rulebook (REPEAT): the warriors left after a battle are not repeated; the
            # skirmish's pictures are lit a little longer than others (params
            # ``skirmish_picture_s``), the cue follows 0.6 ms after them
            hold = param("skirmish_picture_s")
            yield from self.show("WARRIORS", _two(w), remember=False, hold=hold)
            yield from self.show("BRIGANDS", _two(brigands), remember=False, hold=hold)
            cue = "skirmish_won" if won else "skirmish_lost"
            lead = param("skirmish_cue_after_lamp_s")
            e.sound(cue, at=e.now + lead / e.clock_ratio)
            yield ("sleep", lead + self._notes_length(cue))
            if brigands == 0:
                if final:
                    yield from self.sleep(param("victory_gap_s"))
                else:
                    # the won battle's spoils take a time the hidden state decides (params)
                    yield from self.sleep(param("gold_after_battle_s")
                                          + self.think("spoils_think_cycles"))
                break
            gap = param("skirmish_gap_s" if won else "skirmish_lost_gap_s")
        p.warriors = w
        if final:
            yield from self._victory(p, siege=w0)
            return None
        return (yield from self._treasure(p))

    def _battle_lost(self, p: Player):
        """End a lost battle: WARRIORS without a number and the Death March; a multi-player
        game keeps 1 warrior, a solo game loses every one and is over (rulebook, IMPORTANT)."""
        p.warriors = self._min_warriors()
        p.carry()
        yield from self._picture_with_sound("WARRIORS", "death_march")
        if p.warriors == 0:
            yield from self._game_lost(p)
        return None

    def _skirmish(self, warriors: int, brigands: int) -> bool:
        """Decide one skirmish: True when the warriors win it (``skirmish_chance``)."""
        chance = skirmish_chance(warriors, brigands)
        return self.choose("skirmish", [True, False], [chance, 1 - chance])

    def _victory(self, p: Player, siege: int):
        """Show VICTORY with the victory tune, then flash the score (level4_riddle 101.267);
        ``siege`` = the warriors that began the Final Battle."""
        e = self.engine
        card, lamp = PICTURES["VICTORY"]
        if e.reel.card != card:
            yield ("reel", card)
            e.motor(False)
        e.lamps_off()
        e.lamp(lamp, True)
        after = param("victory_tune_after_lamp_s")
        length = e.sound("overture", at=e.now + after)
        yield ("sleep", after + length)
        e.lamps_off()
        self.over = True
        e.flash(_two(self._score(p.turns, siege)), at=e.now + param("score_after_tune_s"))
        yield ("key", frozenset())

    def _score(self, turns: int, siege: int) -> int:
        """Return the score 0-99 from the turns taken and the warriors that laid siege
        (rulebook, Scoring: 'based both on the number of moves ... and the number of warriors
        that you lay siege to the tower with'; the formula: params ``score``)."""
        a, per_turn, per_warrior = param("score")
        return max(0, min(99, a - per_turn * turns - per_warrior * siege))

    def _game_lost(self, p: Player):
        """End a solo game lost: the score 00 flashes for good, no key answered (corpus: the
        two solo games lost, l1_p1_s133 387.83 after the last Death March, level1_solo_moves;
        rulebook: Scoring, 00 for a game not won)."""
        self.over = True
        self.engine.flash("00")
        yield ("key", frozenset())

    # ---- treasure (rulebook: Battle Treasures) -------------------------------------------
    def _treasure_odds(self, p: Player, name: str) -> dict[str, float]:
        """Return the odds of parameter ``name`` less the treasures ``p`` cannot get: a key
        only in a foreign kingdom whose key is missing (brass, silver, gold; never two of
        one: rulebook, Three Magic Keys), a sword only without one, a wizard only with
        someone to curse."""
        odds = dict(param(name))
        if not (1 <= p.frontiers <= 3 and p.keys == p.frontiers - 1):
            odds.pop("key")
        if p.sword:
            odds.pop("sword")
        if len(self.players) == 1:
            odds.pop("wizard")
        return odds

    def _treasure(self, p: Player):
        """Award a won battle's or a tomb's treasure: the new gold total, then maybe one more
        treasure (corpus: l1_p1_s01 181.08 gold + Pegasus, l1_p3_s17 269.57 tomb gold +
        sword, l1_p4_s40 217.98 gold + brass key, l1_p2_s05 264.05 gold + wizard).

        The found gold is added and shown with GOLD (rulebook: Battle Treasures, gold: 'the
        number displayed is always the total bags of gold you own'; corpus: the total is
        shown after every won battle and treasure-giving tomb, as much as the force
        carries).  What follows the total waits for the treasure, which takes a time the
        hidden state decides (params ``treasure_think_cycles``): the treasure is drawn
        first, then that duration."""
        lo, hi = param("battle_gold")
        found = self.pick("battle_gold", lo, hi, full=(0, 99))
        p.gold = min(param("max_count"), p.gold + found)
        p.carry()
        odds = self._treasure_odds(p, "treasure_odds")
        kind = self.choose("treasure", list(odds), list(odds.values()))
        yield from self.show("GOLD", _two(p.gold), then="gold_found",
                             think=self.think("treasure_think_cycles"))
        if kind == "key":
            yield from self.show(KEYS[p.keys], then="key_won")
            p.keys += 1
        elif kind == "sword":
            yield from self.show("SWORD")
            p.sword = True
        elif kind == "pegasus":
            yield from self._picture_with_sound("PEGASUS", "pegasus")
            # a treasure gained: REPEAT shows it again, with a beep like the other items
            # (rulebook: The Repeat Button; l1_p4_s13 89.57: GOLD 44, then PEGASUS)
            self.last_shown.append(("PEGASUS", None))
        elif kind == "wizard":
            yield from self.show("WIZARD")
            yield from self._curse(p)
        return None

    def _curse(self, p: Player):
        """Let ``p`` curse another player: ``CN`` flashes from the next player on, NO/END
        steps to the one after (skipping ``p``), YES/BUY curses; then ``p``'s new warriors
        and gold (corpus l4_p4_s24 211.60: player 3 is offered C4, then C1)."""
        n = len(self.players)
        others = [(p.number + k) % n or n for k in range(1, n)]
        i = 0
        entry = None
        # the tower finds each offer by looking through its four player slots: the slots it
        # passes over, empty ones and the curser's own, delay the offer's key loop (params
        # ``curse_slot_cycles``); with one other player NO/END offers the same one again
        # without looking (``loop_after_click_cycles``' curse_only row)
        slot = param("curse_slot_cycles")
        last = p.number
        while True:
            between = ((last + k - 1) % 4 + 1 for k in range(1, (others[i] - last) % 4 or 4))
            extra = slot * sum(1 for s in between if s > n or s == p.number)
            if entry is not None and len(others) == 1:
                entry, extra = "curse_only", 0.0
            if entry is None:
                self.engine.first_scan_after(param("scan_after_picture_cycles")["curse_offer"]
                                             + extra)
            key = yield from self.prompt(f"C{others[i]}", {"YES/BUY", "NO/END"}, entry=entry,
                                         extra_cycles=extra)
            entry = "curse"
            last = others[i]
            if key == "YES/BUY":
                break
            i = (i + 1) % len(others)
        # the curse's totals replace what REPEAT shows (WIZARD is not repeated: l3_p3_s11 353.6)
        self.last_shown = []
        victim = self.players[others[i] - 1]
        # a quarter taken digit by digit, as the dragon's (rulebook: 1/4 of the warriors and
        # gold; corpus: a victim's 12 warriors give 2, not 3)
        share = param("curse_share")
        lw, lg = quarter_by_digits(victim.warriors, share), quarter_by_digits(victim.gold, share)
        victim.warriors = max(1, victim.warriors - lw)
        victim.gold -= lg
        victim.carry()
        victim.cursed_by = p.number
        p.warriors = min(param("max_count"), p.warriors + lw)
        p.gold = min(param("max_count"), p.gold + lg)
        p.carry()
        # the reel turns later the further the victim's number is after the curser's,
        # counted round four (params ``curse_reel_after_click_s``; all 12 corpus curses)
        lead = param("curse_reel_after_click_s")[(victim.number - p.number) % 4]
        yield from self.show("WARRIOR", _two(p.warriors), delay=lead)
        yield from self.show("GOLD", _two(p.gold))

    def _cursed(self, p: Player):
        """The cursed player's next action: CURSED with the lost-skirmish cue, then the
        warriors and gold the curse left (corpus l1_p2_s05 368.53, l1_p3_s35 88.10)."""
        p.cursed_by = None
        yield from self.sleep(param("sound_after_click_s"))
        yield from self._picture_with_sound("CURSED", "cursed")
        yield from self.show("WARRIOR", _two(p.warriors))
        yield from self.show("GOLD", _two(p.gold), then="cursed_gold")
        return None

    # ---- TOMB/RUIN, SANCTUARY/CITADEL, FRONTIER, INVENTORY ------------------------------
    def _tomb(self, p: Player):
        """TOMB/RUIN: the creaking door, then nothing (the door creaks shut), a battle, or a
        treasure: the gold total and maybe one more (corpus: l2_p2_s33 113.08 deserted,
        l1_p1_s01 90.58 battle, 223.97 gold).

        The creak has two other recorded forms (cleanroom/cues.py): right after the low-food
        warning its first note is missing (l2_p1_s02 365.73, l4_p3_s20 400.50: 2 of 2 tombs
        after the warning), and when this visit clears the player's Citadel doubling the
        sweep's first period is longer, read as 98.4 Hz (l4_p3_s20 114.12, l4_p4_s16 84.68,
        l4_p4_s24 380.10: the 3 tombs after a doubling, and none of the 14 others of level 4).
        """
        odds = param("tomb_odds")
        cue = ("creak_open_after_low_food" if self._warned else
               "creak_open_slow_start" if self._citadel_cleared else "creak_open")
        event = self.choose("tomb", list(odds), list(odds.values()))
        # after a warning the sweep's first period is no note of its own: its first note is
        # the normal creak's second, as late (params ``action_after_warning_s``)
        delay = after_click("creak_open")
        if self._warned:
            delay += SOUNDS["creak_open"].notes[1][0]
        # a deserted tomb's closing creak follows the opening one sooner than a horn would
        yield from self.sound(cue, delay=delay,
                              tail=param("creak_close_after_creak_s") if event == "deserted"
                              else None)
        if event == "deserted":
            yield from self.sound("creak_close", tail=-param("loop_lead_s")["creak_close"])
            return None
        if event == "battle":
            return (yield from self._battle(p, self._brigands_for(p), final=False,
                                            horn_delay=0.0))
        # the treasure's GOLD comes a little later than a battle's horn would
        yield from self.sleep(self._lead("tomb_treasure_after_creak_s", "GOLD"))
        return (yield from self._treasure(p))

    def _sanctuary(self, p: Player):
        """Play the trill; double the warriors at the Citadel, else give the Sanctuary's bonuses.

        Rulebook (The Sanctuary/Citadel Button): a force of 4 or fewer warriors, 7 or fewer
        bags, 5 or fewer rations gets a bonus of each; the Citadel doubles 5 to 24 warriors
        once all 4 frontiers are crossed with the 3 keys.  The new totals show on the WARRIOR,
        FOOD and GOLD pictures in reel order, as INVENTORY shows them (cleanroom/README.md,
        Observed; the warriors on card 6, not the battle card's WARRIORS).
        """
        lo, hi = param("citadel_double")
        citadel = p.frontiers >= 4 and p.keys >= 3
        doubles = citadel and lo <= p.warriors <= hi and not p.doubled
        # each bonus depends on its own total only, so all three are known before the trill
        needs = {item: getattr(p, item) <= param(f"sanctuary_{item}_below")
                 for item in ("warriors", "food", "gold")}
        # the Citadel that doubles the warriors also gives the food and gold a needy force
        # gets at a Sanctuary (l4_p1_s104 234.53: WARRIOR 44, then FOOD 15; l4_p1_s28
        # 272.12: 42, then 10)
        needs["warriors"] = needs["warriors"] and not doubles
        # the silence after the trill depends on what follows (params ``trill_tail_s``); at
        # the Citadel once the warriors are doubled the end signal comes sooner; each bonus
        # drawn takes a time the hidden state decides (``sanctuary_think_cycles``)
        bonuses = sum(needs.values())
        if doubles or bonuses:
            first = ("WARRIOR" if doubles or needs["warriors"] else
                     "FOOD" if needs["food"] else "GOLD")
            turn = self.engine.reel.card != PICTURES[first][0]
            tail = param("trill_tail_s")["picture" if turn else "picture_lamp"]
        else:
            # the end signal comes sooner only once the warriors are doubled (l4_p1_s136
            # 147.35: 28 warriors, too many to double, the plain end signal)
            tail = param("trill_tail_s")["citadel_again" if citadel and p.doubled
                                         else "end_signal"]
        if bonuses:
            lo, hi = param("sanctuary_think_cycles")
            tail += (bonuses * param("sanctuary_bonus_cycles") / NOMINAL_CLOCK_HZ
                     + self.think("sanctuary_think_cycles", bonuses * lo, bonuses * hi))
        # after the low-food warning the trill follows the warning's tail, not the click
        yield from self.sound("trill", delay=after_click("trill"), tail=tail)
        if doubles:
            p.warriors = min(param("max_count"), 2 * p.warriors)
            p.doubled = True
            yield from self.show("WARRIOR", _two(p.warriors))
        bonus = param("sanctuary_bonus")
        if needs["warriors"]:
            p.warriors = min(param("max_count"),
                             p.warriors + self.pick("sanctuary_warriors", *bonus["warriors"]))
            yield from self.show("WARRIOR", _two(p.warriors))
        if needs["food"]:
            p.food = min(param("max_count"),
                         p.food + self.pick("sanctuary_food", *bonus["food"]))
            yield from self.show("FOOD", _two(p.food))
        if needs["gold"]:
            p.gold = min(param("max_count"),
                         p.gold + self.pick("sanctuary_gold", *bonus["gold"]))
            p.carry()
            yield from self.show("GOLD", _two(p.gold))
        return None

    def _frontier(self, p: Player):
        """Play the frontier cue and count the frontier; leaving a foreign kingdom without its
        key shows KEY MISSING with the sad cue after the frontier cue, and does not count
        (rulebook: The Frontier Button; the order: cleanroom/README.md, Observed)."""
        missing = 1 <= p.frontiers <= 3 and p.keys < p.frontiers
        tail = self._tail_before_picture("frontier") if missing else None
        if p.frontiers >= 4:
            # every frontier crossed already (level 4 from the start): the end signal's loop
            # begins a little later with a large force (params ``frontier_crossed_extra_s``)
            lo, extra = param("frontier_crossed_extra_s")
            tail = SOUNDS["frontier"].tail_s + (extra if p.warriors >= lo else 0.0)
        yield from self.sound("frontier", delay=after_click("frontier"), tail=tail)
        if missing:
            return (yield from self._picture_with_sound("KEY MISSING", "sad"))
        p.frontiers = min(4, p.frontiers + 1)
        return None

    def _inventory(self, p: Player):
        """Show what ``p`` owns, one picture after the other, 1.6 s each.

        The rulebook (The Inventory Button) lists warriors, gold, food, keys, Dragonswords,
        Scouts, Beasts and Healers; the genuine tower shows them in reel order instead, one card
        after the next (cleanroom/README.md, Observed): WARRIOR with the warriors, FOOD with the
        rations, the BEAST, SCOUT and HEALER owned, GOLD with the bags, the keys owned (GOLD,
        SILVER, BRASS: top to bottom on their card), the SWORD.
        """
        yield from self.sleep(self._lead("inventory_after_click_s", "WARRIOR"))
        yield from self.show("WARRIOR", _two(p.warriors))
        yield from self.show("FOOD", _two(p.food))
        for have, picture in ((p.beast, "BEAST"), (p.scout, "SCOUT"), (p.healer, "HEALER")):
            if have:
                yield from self.show(picture, item=True)
        yield from self.show("GOLD", _two(p.gold), then="inventory_gold")
        for k in reversed(KEYS[:p.keys]):
            yield from self.show(k, item=True)
        if p.sword:
            yield from self.show("SWORD", item=True)
        return None

    # ---- BAZAAR (rulebook: The Bazaar Button; Level 4 Bazaar and How To Haggle) -----------
    def _bazaar(self, p: Player):
        """Sell warriors, food and the specials not owned, offer by offer (rulebook: The
        Bazaar Button; order, wrap, food haggle and timing: cleanroom/README.md, Observed).

        Only the GOLD left after a purchase is remembered for REPEAT; the offers, the counts
        and BAZAAR CLOSED are not (chosen: REPEAT shows totals and treasures, and never the
        event pictures LOST, PLAGUE, DRAGON, KEY MISSING in the corpus).
        """
        items = ["warriors", "food"] + [s for s in ("beast", "scout", "healer")
                                        if not getattr(p, s)]
        prices = {"food": param("food_price")}
        for item in items:
            if item != "food":
                lo, hi = param(f"{'warrior' if item == 'warriors' else item}_price")
                prices[item] = self.pick(f"{'warrior' if item == 'warriors' else item}_price",
                                         lo, hi)
        first = dict(prices)
        pictures = {"warriors": "WARRIOR", "food": "FOOD", "beast": "BEAST", "scout": "SCOUT",
                    "healer": "HEALER"}
        # the reel to the first offer starts a time after the cue the hidden state decides
        # (params ``bazaar_think_cycles``)
        yield from self.sound("bazaar", delay=after_click("bazaar"),
                              tail=SOUNDS["bazaar"].tail_s + self.think("bazaar_think_cycles"))
        i = 0
        yield from self.show(pictures[items[i]], _two(prices[items[i]]), remember=False,
                             then="offer")
        while True:
            key = yield from self.prompt("--", {"YES/BUY", "NO/END", "REPEAT", "HAGGLE", "CLEAR"})
            item = items[i]
            if key == "CLEAR":
                yield from self.sound("siren", delay=after_click("siren"))
                return "undone"
            if key == "NO/END":
                # a haggled price holds while its offer is shown: back at it after the others,
                # the price first asked (l4_p2_s108 127.90: 08 haggled to 07, then 08 again)
                prices[item] = first[item]
                i = (i + 1) % len(items)
                lead = "offer_wrap_after_click_s" if i == 0 else "offer_after_click_s"
                yield from self.show(pictures[items[i]], _two(prices[items[i]]),
                                     delay=self._lead(lead, pictures[items[i]]),
                                     remember=False, then="offer")
                continue
            if key == "REPEAT":
                yield from self.show(pictures[item], _two(prices[item]),
                                     delay=param("offer_repeat_after_click_s"),
                                     remember=False, then="offer")
                continue
            if key == "HAGGLE":
                if item == "food":
                    # rulebook, Rations Of Food: 'you cannot haggle' over food; the genuine
                    # tower closes the bazaar at once (cleanroom/README.md, Observed)
                    return (yield from self._closed())
                won = self.choose("haggle", [True, False],
                                  [param("haggle_success"), 1 - param("haggle_success")])
                # the haggle takes a time the hidden state decides (params)
                think = self.think("haggle_think_cycles")
                if won:
                    prices[item] = max(1, prices[item] - 1)
                    yield from self.show(pictures[item], _two(prices[item]),
                                         delay=param("haggled_after_click_s") + think,
                                         remember=False, then="offer")
                    continue
                return (yield from self._closed(param("haggle_refused_after_click_s") + think))
            # YES/BUY
            if item in ("beast", "scout", "healer"):
                if prices[item] > p.gold:
                    return (yield from self._closed(param("unpaid_closed_after_click_s")))
                p.gold -= prices[item]
                setattr(p, item, True)
                p.carry()
                # GOLD on the card in place (after the SCOUT or HEALER) lights later than
                # a reel turn to it would start (params)
                same = PICTURES["GOLD"][0] == self.engine.reel.card
                yield from self.show("GOLD", _two(p.gold), delay=param(
                    "gold_lamp_after_buy_s" if same else "reel_after_click_s"))
                return None
            return (yield from self._buy_many(p, item, prices[item]))

    def _buy_many(self, p: Player, item: str, price: int):
        count = 1
        have = p.warriors if item == "warriors" else p.food
        while True:
            if count * price > p.gold:
                # what the gold cannot pay closes the bazaar a little later than a refused
                # haggle (params ``unpaid_closed_after_click_s``)
                return (yield from self._closed(param("unpaid_closed_after_click_s")))
            key = yield from self.prompt(_two(count), {"YES/BUY", "NO/END", "CLEAR"},
                                         entry="count_first" if count == 1 else "count_next")
            if key == "CLEAR":
                yield from self.sound("siren", delay=after_click("siren"))
                return "undone"
            if key == "NO/END":
                break
            if have + count < param("max_count"):
                count += 1
        p.gold -= count * price
        if item == "warriors":
            p.warriors = min(param("max_count"), p.warriors + count)
        else:
            p.food = min(param("max_count"), p.food + count)
        p.carry()
        yield from self.show("GOLD", _two(p.gold), delay=param("reel_after_click_s"))
        return None

    def _closed(self, lead: float | None = None):
        """Show BAZAAR CLOSED with the sad cue ``lead`` s after the click (default
        ``closed_after_click_s``); the turn is over (rulebook: Haggling)."""
        yield from self.sleep(param("closed_after_click_s") if lead is None else lead)
        return (yield from self._picture_with_sound("BAZAAR CLOSED", "sad"))

    # ---- DARK TOWER (rulebook: The Dark Tower Button; Level 4 Dark Tower) ----------------
    def _dark_tower(self, p: Player):
        """Play the tower's tune, then refuse or ask the riddle of the keys; a solved riddle
        opens the Final Battle (rulebook: The Dark Tower Button; Level 4 Dark Tower).

        Observed in the corpus (cleanroom/README.md): the tune plays at every press, also
        when the tower then refuses; without the three keys it shows KEY MISSING with the sad
        cue.  The riddle offers the keys round the cycle GOLD, SILVER, BRASS (params
        ``riddle_offer_order``) from a key that changes from visit to visit (decision
        ``riddle_key1``); for key 2 the two others, in the same cycle, from one of them
        (``riddle_key2``).  A wrong key: the sad cue, no picture, the end signal.
        """
        tail = None
        cycle = list(param("riddle_offer_order"))
        stage, left = 1, cycle
        if p.keys >= 3 and p.frontiers >= 4:
            i = left.index(self.choose("riddle_key1", left))
            # the first key comes after a time the hidden state decides (params)
            tail = SOUNDS["dark_tower"].tail_s + self.think("riddle_think_cycles")
        elif p.keys < 3:
            tail = self._tail_before_picture("dark_tower")      # KEY MISSING follows
        yield from self.sound("dark_tower", delay=after_click("dark_tower"), tail=tail)
        if p.keys < 3:
            # rulebook: 'You must own all three keys to enter the tower'; REPEAT does not show
            # the refusal again (l3_p1_s03 182.17)
            return (yield from self._picture_with_sound("KEY MISSING", "sad"))
        if p.frontiers < 4:
            # rulebook, Frontier footnote: without the last FRONTIER press 'the tower will warn
            # you of your failure by emitting a sad-sounding musical signal' (after the tune,
            # as the KEY MISSING refusal: chosen, no recording shows it)
            yield from self.sound("sad")
            return 0.0
        yield from self.show(left[i], None, remember=False)
        while True:
            key = yield from self.prompt(f"{stage} ", {"YES/BUY", "NO/END", "REPEAT"})
            if key == "NO/END":
                i = (i + 1) % len(left)
            if key != "YES/BUY":
                yield from self.show(left[i], None, delay=param("key_after_click_s"),
                                     remember=False)
                continue
            if left[i] != self.riddle[stage - 1]:
                yield from self.sound("sad", delay=after_click("sad"),
                                      tail=-param("loop_lead_s")["sad"])
                return 0.0
            if stage == 2:
                break
            stage, left = 2, [k for k in cycle if k != left[i]]
            i = left.index(self.choose("riddle_key2", left))
            # the first candidate for key 2 follows at once (level4_riddle 60.984)
            yield from self.show(left[i], None, delay=param("key2_after_click_s"),
                                 remember=False)
        # the Final Battle's horn follows YES/BUY's click sooner than a MOVE's battle horn
        # (params ``final_horn_after_click_s``)
        return (yield from self._battle(p, self.tower_brigands, final=True,
                                        horn_delay=param("final_horn_after_click_s")))
