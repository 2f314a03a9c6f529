"""Cross a frontier, and count what a player owns (rulebook: The Frontier Button; The
Inventory Button).
"""
from __future__ import annotations

from ..rules import KEYS, Player, two_digits
from ..stage import Stage, after_click, tail_before_picture

__all__ = ["frontier", "inventory"]


def frontier(g: Stage, p: Player):
    """Play the frontier cue and count the frontier; leaving a foreign kingdom without its
    key shows KEY MISSING with the sad cue after the frontier cue, and does not count
    (rulebook: The Frontier Button; the order: cleanroom/README.md, Observed)."""
    missing = 1 <= p.frontiers <= 3 and p.keys < p.frontiers
    tail = tail_before_picture("frontier") if missing else None
    yield from g.sound("frontier", delay=after_click("frontier"), tail=tail)
    if missing:
        return (yield from g.picture_with_sound("KEY MISSING", "sad"))
    p.frontiers = min(4, p.frontiers + 1)
    return None


def inventory(g: Stage, p: Player):
    """Show what ``p`` owns, one picture after the other, 1.6 s each.

    The rulebook (The Inventory Button) lists warriors, gold, food, keys, Dragonswords,
    Scouts, Beasts and Healers; the genuine tower shows them in reel order instead, one card
    after the next (cleanroom/README.md, Observed): WARRIOR with the warriors, FOOD with the
    rations, the BEAST, SCOUT and HEALER owned, GOLD with the bags, the keys owned (GOLD,
    SILVER, BRASS: top to bottom on their card), the SWORD.
    """
    yield from g.sleep(g.lead("inventory_after_click_s", "WARRIOR"))
    yield from g.show("WARRIOR", two_digits(p.warriors))
    yield from g.show("FOOD", two_digits(p.food))
    for have, picture in ((p.beast, "BEAST"), (p.scout, "SCOUT"), (p.healer, "HEALER")):
        if have:
            yield from g.show(picture, item=True)
    yield from g.show("GOLD", two_digits(p.gold), then="inventory_gold")
    for k in reversed(KEYS[:p.keys]):
        yield from g.show(k, item=True)
    if p.sword:
        yield from g.show("SWORD", item=True)
    return None
