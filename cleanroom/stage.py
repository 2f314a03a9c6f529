"""Show the game: the timing and display layer every rule section plays on.

A rule section (cleanroom.sections) says *what* the tower does; this layer says how it shows
it and when, from the corpus recordings of the genuine tower (the numbers are
cleanroom.params rows, the cues cleanroom.cues): light a picture with its beep and number
(``show``), turn the reel to its card (``turn_to``), play a cue (``sound``,
``picture_with_sound``), flash a prompt and take a key (``prompt``), wait (``sleep``).  It
also takes the decisions (``choose``, ``pick`` for a number, ``think`` for a duration the
tower's hidden state decides) through the chooser (cleanroom.choosers), and holds the table
every section reads and writes: the players, whose turn it is, the dragon's hoard, the
tower's brigands and riddle, what REPEAT would show.

The flows are generators run by cleanroom.engine.Engine: a helper here is used as
``yield from g.show(...)``.  Nothing here comes from the MP7332 ROM.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from captures.darktower_facts import INSTRUCTION_CYCLES, NOMINAL_CLOCK_HZ

from .choosers import Chooser, RandomChooser
from .cues import CUES
from .engine import Engine
from .params import SOUNDS, param
from .reel import PICTURES
from .rules import Player, hoard_start

__all__ = ["Stage", "after_click", "lamp_after_motor", "cue_after_lamp",
           "tail_before_picture", "notes_length"]


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


def tail_before_picture(cue: str) -> float:
    """Return the silence after cue ``cue`` when a picture follows it: the catalogue's tail
    and the measured difference (params ``tail_before_picture_s``)."""
    return SOUNDS[cue].tail_s + param("tail_before_picture_s")[cue]


def notes_length(cue: str) -> float:
    """Return how long cue ``cue``'s notes last (s), without its tail."""
    snd = SOUNDS[cue]
    return snd.length - snd.tail_s


# a timing decision's options for each cycle range (``_think_options``): a few ranges, each
# asked for many times per game, and sorting hundreds of options each time was a tenth of a
# replay's time
_THINK_OPTIONS: dict[tuple[int, int], tuple[int, ...]] = {}


def _think_options(start: int, stop: int) -> tuple[int, ...]:
    """Return the cycle counts ``start``, ``start`` + 6, ... below ``stop`` (one instruction
    apart), the shortest first (a pure function of its ints, so kept once made)."""
    options = _THINK_OPTIONS.get((start, stop))
    if options is None:
        options = tuple(sorted(range(start, stop, INSTRUCTION_CYCLES),
                               key=lambda c: (abs(c), c)))
        _THINK_OPTIONS[start, stop] = options
    return options


class Stage:
    """The tower's outputs with their timing, the decisions, and the table of the game."""

    def __init__(self, chooser: Chooser | None, flow: Callable[[Engine], Any],
                 clock_ratio: float = 1.0):
        """Make the stage of a game whose flow is ``flow`` (started at power-on).

        ``clock_ratio``: this tower's clock relative to the reference (cleanroom.engine).
        """
        self.chooser = chooser or RandomChooser()
        self.engine = Engine(flow, clock_ratio)
        self.engine.decide = self.choose
        self.level = 1
        self.players: list[Player] = []
        self.current = 0
        self.tower_brigands = 16
        # the brigands a Final Battle left or lost to had not beaten yet (None: none was)
        self.tower_brigands_left: int | None = None
        self.riddle: tuple[str, ...] = param("level4_riddle")
        self.dragon_warriors, self.dragon_gold = hoard_start()
        self.last_shown: list[tuple[str, str | None]] = []
        # (picture or kind, time) of the picture whose lamp went dark last: the reel turn
        # that follows it starts a little later (params ``motor_after_picture_s``)
        self._picture_end: tuple[str, float, float] | None = None
        self.shown_turn: tuple[int, int] | None = None    # whose turn last_shown belongs to
        self.acted_turn: tuple[int, int] | None = None    # the turn an action was taken in
        # (player, turn, cue): a turn whose first action key sounds a warning first (food
        # running low, or a warrior starving)
        self.warning_turn: tuple[int, int, str] | None = None
        self.warned = False        # this action began with such a warning
        # the rations the tower counts past the first at each action key of this turn
        # (params ``ration_count_cycles``; cleanroom.sections.turn ``feed``)
        self.meal_steps = 0
        # each action key the game took, as the force in play stood then (its turn's ration
        # eaten): (time, key, player, warriors, food); cleanroom.holdings reads them
        self.action_keys: list[tuple[float, str, int, int, int]] = []
        self.over = False
        self.log: list[tuple[float, str, Any]] = []

    def setup(self, level: int, count: int) -> None:
        """Set the table for a game of ``level`` with ``count`` players: the selection
        section's rule (cleanroom.sections.selection.setup), which the game binds here."""
        raise NotImplementedError("the game binds the selection section's setup")

    @property
    def player(self) -> Player:
        """Return the player whose turn it is."""
        return self.players[self.current]

    def min_warriors(self) -> int:
        """Return the fewest warriors a loss leaves (params ``min_warriors``)."""
        return param("min_warriors")["multi" if len(self.players) > 1 else "solo"]

    # ---- decisions ----------------------------------------------------------------------
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
        return self.choose(name, _think_options(lo - lo % INSTRUCTION_CYCLES, hi + 1)) \
            / NOMINAL_CLOCK_HZ

    def count_rations(self):
        """Wait while the tower counts the rations past the first (``meal_steps``), as it does
        at each action key before the action shows anything (params
        ``ration_count_cycles``)."""
        if self.meal_steps:
            row = param("ration_count_cycles")
            yield from self.sleep((row["first"] + row["each"] * (self.meal_steps - 1))
                                  / NOMINAL_CLOCK_HZ)

    # ---- time, sound, prompts ------------------------------------------------------------
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
            length = notes_length(name) + tail
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
        many cycles (at 425 kHz) later still.  A key not in ``keys`` that the loop takes
        (decision ``stray_key``, cleanroom.engine) clicks, and the prompt waits on."""
        e = self.engine
        e.flash(text, at=e.now + delay / e.clock_ratio)
        if entry is not None:
            # these prompts follow a key's click at once: the extra comes after the click
            yield ("sleep", (param("click_dur_s") + (param("loop_after_click_cycles")[entry]
                             + extra_cycles) / NOMINAL_CLOCK_HZ) / e.clock_ratio)
        keys = frozenset(keys)
        while True:
            key = yield ("key", keys)
            e.click()
            if key in keys:
                break
            # a stray key the loop took (cleanroom.engine, decision ``stray_key``): the click
            # alone, the prompt flashing on in its phase
            e.shift_loop(param("click_alone_cycles")["stray"])
        if not keep:
            e.end_flash()
        return key

    # ---- pictures ---------------------------------------------------------------------------
    def turn_to(self, picture: str, role: str = "event"):
        """Turn the reel to ``picture``'s card if needed and light its lamp alone; return the
        lamp's time: after a turn, as long after the motor stops as the picture's ``role``
        takes (params ``lamp_after_motor_s``: "total", "offer", "item", "event", "cue")."""
        e = self.engine
        card, lamp = PICTURES[picture]
        lamp_at = e.now
        end = self._picture_end
        if e.reel.card == card and end is not None and abs(end[1] - e.now) < 1e-9:
            # the next picture on the same card lights a little after the last goes dark,
            # by the pair (params ``lamp_after_lamp_s``)
            lamp_at += param("lamp_after_lamp_s").get(f"{end[0]}>{picture}", 0.0)
        if e.reel.card != card:
            end, self._picture_end = self._picture_end, None
            if end is not None and abs(end[1] - e.now) < 1e-9:
                after = param("motor_after_picture_s")
                yield from self.sleep(after.get(f"{end[0]}>{picture}",
                                                after.get(end[0], after["other"])) + end[2])
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
        lamp_at = yield from self.turn_to(picture, role)
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

    def picture_with_sound(self, picture: str, cue: str):
        """Light ``picture`` and play ``cue`` with it (no beep); the lamp goes off when the
        cue's notes end plus its tail (the Death March and the cursed cue keep the picture lit
        0.44 s longer; LOST, DRAGON, PEGASUS go dark as the notes end: cleanroom/cues.py)."""
        e = self.engine
        lamp_at = yield from self.turn_to(picture, "cue")
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

    def lead(self, name: str, picture: str) -> float:
        """Return how long after a key's click the flow that shows ``picture`` first starts
        the reel (``name``'s "turn" entry) or, with the reel already there, lights the lamp
        (its entry for the lamp, or "lamp"): params ``name``."""
        card, lamp = PICTURES[picture]
        leads = param(name)
        if self.engine.reel.card != card:
            return leads["turn"]
        return leads.get(lamp, leads.get("lamp"))
