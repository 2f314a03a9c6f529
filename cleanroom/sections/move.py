"""Move: one of the MOVE button's events, safe, lost, plague, the dragon or a battle
(rulebook: The Move Button, 6 events; the sixth, cursed, is cleanroom.sections.curse's).

What each outcome shows and when, observed in the corpus (tests/data/corpus, e.g.
l1_p1_s01 37.05 safe, 270.15 lost, 66.95 plague, 168.50 dragon, 181.08 battle;
l4_p1_s04 99.05 plague with a Healer, 281.12 lost with a Scout; l4_p3_s38 177.77 the
dragon slain with the sword).  Times are from the key click.
"""
from __future__ import annotations

from ..params import param
from ..reel import PICTURES
from ..rules import Player, dragon_takes, hoard_start, two_digits
from ..stage import Stage, after_click, cue_after_lamp, notes_length
from .battle import battle, brigands_for
from .ending import game_lost

__all__ = ["move"]


def move(g: Stage, p: Player):
    odds = param("move_odds")
    event = g.choose("move", list(odds), list(odds.values()))
    # how long the tower works the move out: its hidden state decides (params)
    think = g.think("move_think_cycles",
                    *param("move_think_cycles")["battle" if event == "battle" else "other"])
    if event == "safe":
        # a short beep right after the click, then the end-of-turn signal
        yield from g.sound("beep", delay=after_click("beep") + think,
                           tail=-param("loop_lead_s")["beep"])
        return None
    if event == "battle":
        return (yield from battle(g, p, brigands_for(g, p), final=False,
                                     horn_delay=after_click("battle_horn") + think))
    yield from g.sleep(param("picture_after_click_s") + think)
    if event == "lost":
        if p.scout:
            # with a Scout: LOST and SCOUT with their beeps, then another turn (REPEAT
            # shows neither, as it shows no other event picture: chosen)
            yield from g.show("LOST", remember=False)
            yield from g.show("SCOUT", remember=False)
            g.acted_turn = (p.number, p.turns + 1)    # the extra turn continues this one
            return "extra"
        yield from g.picture_with_sound("LOST", "sad")
        return None
    if event == "plague":
        if p.healer:
            # the Healer: PLAGUE and HEALER with beeps, two more warriors; REPEAT shows
            # only the warriors again (l4_p1_s104 87.85)
            yield from g.show("PLAGUE", remember=False)
            yield from g.show("HEALER", remember=False)
            p.warriors = min(param("max_count"), p.warriors + param("plague_warriors"))
        else:
            yield from g.picture_with_sound("PLAGUE", "death_march")
            p.warriors = max(g.min_warriors(), p.warriors - param("plague_warriors"))
            p.carry()
        yield from g.show("WARRIOR", two_digits(p.warriors))
        if p.warriors == 0:
            yield from game_lost(g, p)
        return None
    # dragon
    if p.sword:
        # the sword slays it: the dragon's cue runs on into a falling glide while SWORD
        # is lit; the sword is spent and the hoard won (corpus l4_p3_s38 177.77)
        e = g.engine
        lamp_at = yield from g.turn_to("DRAGON", "cue")
        start = lamp_at + cue_after_lamp("dragon_slain")
        end = start + e.sound("dragon_slain", at=start)
        sword_at = start + notes_length("dragon")
        e.lamp(PICTURES["DRAGON"][1], False, at=sword_at)
        e.lamp(PICTURES["SWORD"][1], True, at=sword_at)
        yield ("sleep", end - e.now)
        e.lamps_off()
        yield from g.sleep(param("reel_after_cue_s")["dragon_slain"])
        p.sword = False
        p.warriors = min(param("max_count"), p.warriors + g.dragon_warriors)
        p.gold = p.gold + g.dragon_gold
        g.dragon_warriors, g.dragon_gold = hoard_start()
    else:
        yield from g.picture_with_sound("DRAGON", "dragon")
        yield from g.sleep(param("motor_after_dragon_s"))
        lw, lg = dragon_takes(p.warriors, p.gold)
        p.warriors = max(g.min_warriors(), p.warriors - lw)
        p.gold -= lg
        g.dragon_warriors += lw
        g.dragon_gold += lg
    p.carry()
    yield from g.show("WARRIOR", two_digits(p.warriors))
    yield from g.show("GOLD", two_digits(p.gold))
    return None
