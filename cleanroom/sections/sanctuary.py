"""Visit the Sanctuary or the home Citadel: its bonuses, or the warriors doubled (rulebook:
The Sanctuary/Citadel Button).
"""
from __future__ import annotations

from captures.darktower_facts import NOMINAL_CLOCK_HZ

from ..params import param
from ..reel import PICTURES
from ..rules import Player, at_citadel, citadel_doubles, two_digits
from ..stage import Stage, after_click

__all__ = ["sanctuary"]


def sanctuary(g: Stage, p: Player):
    """Play the trill; double the warriors at the Citadel, else give the Sanctuary's bonuses.

    Rulebook (The Sanctuary/Citadel Button): a force of 4 or fewer warriors, 7 or fewer
    bags, 5 or fewer rations gets a bonus of each; the Citadel doubles 5 to 24 warriors
    once all 4 frontiers are crossed with the 3 keys.  The new totals show on the WARRIOR,
    FOOD and GOLD pictures in reel order, as INVENTORY shows them (cleanroom/README.md,
    Observed; the warriors on card 6, not the battle card's WARRIORS).
    """
    citadel = at_citadel(p.frontiers, p.keys)
    doubles = citadel_doubles(p.warriors, p.frontiers, p.keys) and not p.doubled
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
        turn = g.engine.reel.card != PICTURES[first][0]
        tail = param("trill_tail_s")["picture" if turn else "picture_lamp"]
    else:
        # the end signal comes sooner only once the warriors are doubled (l4_p1_s136
        # 147.35: 28 warriors, too many to double, the plain end signal)
        tail = param("trill_tail_s")["citadel_again" if citadel and p.doubled
                                     else "end_signal"]
    if bonuses:
        lo, hi = param("sanctuary_think_cycles")
        tail += (bonuses * param("sanctuary_bonus_cycles") / NOMINAL_CLOCK_HZ
                 + g.think("sanctuary_think_cycles", bonuses * lo, bonuses * hi))
    # after the low-food warning the trill follows the warning's tail, not the click
    yield from g.sound("trill", delay=after_click("trill"), tail=tail)
    if doubles:
        p.warriors = min(param("max_count"), 2 * p.warriors)
        p.doubled = True
        yield from g.show("WARRIOR", two_digits(p.warriors))
    bonus = param("sanctuary_bonus")
    if needs["warriors"]:
        p.warriors = min(param("max_count"),
                         p.warriors + g.pick("sanctuary_warriors", *bonus["warriors"]))
        yield from g.show("WARRIOR", two_digits(p.warriors))
    if needs["food"]:
        p.food = min(param("max_count"),
                     p.food + g.pick("sanctuary_food", *bonus["food"]))
        yield from g.show("FOOD", two_digits(p.food))
    if needs["gold"]:
        p.gold = min(param("max_count"),
                     p.gold + g.pick("sanctuary_gold", *bonus["gold"]))
        p.carry()
        yield from g.show("GOLD", two_digits(p.gold))
    return None
