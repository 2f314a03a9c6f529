"""Open a tomb or a ruin: deserted, a battle, or a treasure (rulebook: The Tomb/Ruin
Button).
"""
from __future__ import annotations

from ..params import SOUNDS, creak_for_count, param
from ..rules import Player
from ..stage import Stage, after_click
from .battle import battle, brigands_for
from .treasure import treasure

__all__ = ["tomb"]


def tomb(g: Stage, p: Player):
    """TOMB/RUIN: the creaking door, then nothing (the door creaks shut), a battle, or a
    treasure: the gold total and maybe one more (corpus: l2_p2_s33 113.08 deserted,
    l1_p1_s01 90.58 battle, 223.97 gold).

    The creak has two other recorded forms (cleanroom/cues.py): right after the low-food
    warning its first note is missing (l2_p1_s02 365.73, l4_p3_s20 400.50: 2 of 2 tombs
    after the warning), and when the player leads 16 warriors or more the sweep's first
    period is longer, read as 98.4 Hz: the tower counts the force's rations in it (params
    ``ration_count_cycles``), longer still with each ration past two.
    """
    odds = param("tomb_odds")
    cue = "creak_open_after_low_food" if g.warned else creak_for_count(g.meal_steps)
    event = g.choose("tomb", list(odds), list(odds.values()))
    # after a warning the sweep's first period is no note of its own: its first note is
    # the normal creak's second, as late (params ``action_after_warning_s``)
    delay = after_click("creak_open")
    if g.warned:
        delay += SOUNDS["creak_open"].notes[1][0]
    # a deserted tomb's closing creak follows the opening one sooner than a horn would
    yield from g.sound(cue, delay=delay,
                       tail=param("creak_close_after_creak_s") if event == "deserted"
                       else None)
    if event == "deserted":
        yield from g.sound("creak_close", tail=-param("loop_lead_s")["creak_close"])
        return None
    if event == "battle":
        return (yield from battle(g, p, brigands_for(g, p), final=False,
                                     horn_delay=0.0))
    # the treasure's GOLD comes a little later than a battle's horn would
    yield from g.sleep(g.lead("tomb_treasure_after_creak_s", "GOLD"))
    return (yield from treasure(g, p))
