"""Play the 1981 Dark Tower game, written from the rulebook and observed behaviour only.

Sources: the 1981 rulebook for every rule (sections named in each rule section's docstring
and comments) and the four shared MAME captures of the genuine tower for what the tower shows and
when (timings and sound cues in cleanroom.params).  Nothing here comes from the MP7332 ROM.

The game is a set of generator flows run by cleanroom.engine.Engine, one module per rulebook
section (cleanroom.sections: selection, turn, move, battle, treasure, curse, tomb,
sanctuary, bazaar, frontier, dark_tower, ending) over the timing and display layer
(cleanroom.stage: pictures, cues, prompts, the reel, the decisions); the rulebook's
arithmetic is cleanroom.rules.  ``Game`` binds them: a stage whose flow is the power-on
section's.  Every random decision goes through ``Game.choose(name, options, weights)``, which
asks a pluggable chooser (cleanroom.choosers): a seeded ``RandomChooser`` for play, or the
resolver in cleanroom.conform that picks what a reference recording shows.  Decision
names::

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
    turn_think_cycles       how much longer than the median the turn change takes before the
                      next player's key loop (a timing decision)
    bazaar_think_cycles     how much longer than the median the bazaar takes to open (a timing
                      decision)
    key_scan_cycles         0, or one scan later or sooner: which scan sees a key closed
                      within ``scan_edge_s`` of its column's strobe (cleanroom.engine)

A name ending in ``_cycles`` is a timing decision (``is_timing_name``): a duration, not an
outcome.  The RandomChooser draws those from a second generator so that adding one never
shifts the outcomes a seed plays.
"""
from __future__ import annotations

import functools
import warnings
from typing import Any

from . import rules, stage
from .choosers import Chooser, RandomChooser, ScriptedChooser, is_timing_name
from .rules import (ACTION_KEYS, Player, dragon_takes, food_per_turn, quarter_by_digits,
                    skirmish_chance)
from .sections import selection, turn
from .stage import Stage

__all__ = ["Chooser", "RandomChooser", "is_timing_name", "ScriptedChooser", "Player", "Game",
           "ACTION_KEYS", "food_per_turn", "skirmish_chance", "dragon_takes",
           "quarter_by_digits"]


class Game(Stage):
    """The tower's program: power-on test, level and player selection, then the turns."""

    def __init__(self, chooser: Chooser | None = None, start: tuple[int, int] | None = None,
                 clock_ratio: float = 1.0):
        """Make a game; ``start=(level, players)`` skips the tower test and the selection.

        ``clock_ratio``: this tower's clock relative to the reference (cleanroom.engine).
        """
        self.start = start
        if start is not None and not (start[0] in (1, 2, 3, 4) and start[1] in (1, 2, 3, 4)):
            raise ValueError(f"start {start!r}: expected (level 1-4, players 1-4)")
        flow = (functools.partial(selection.quick_start, self, start) if start
                else functools.partial(selection.power_on, self))
        super().__init__(chooser, flow, clock_ratio)

    def setup(self, level: int, count: int) -> None:
        """Set the table for a game of ``level`` with ``count`` players
        (cleanroom.sections.selection.setup)."""
        selection.setup(self, level, count)

    def end_of_turn(self, p: Player):
        """Flash the end-of-turn signal and wait for NO/END or CLEAR; return the key
        (cleanroom.sections.turn.end_of_turn)."""
        return (yield from turn.end_of_turn(self, p))


# Names that lived here before the split into sections: importable from here for one more
# release, with a DeprecationWarning naming their new home.
_MOVED = {"after_click": stage, "lamp_after_motor": stage, "cue_after_lamp": stage,
          "KEYS": rules}


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        home = _MOVED[name]
        warnings.warn(f"cleanroom.game.{name} moved to {home.__name__}.{name}; the old name "
                      f"goes in the next release", DeprecationWarning, stacklevel=2)
        return getattr(home, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
