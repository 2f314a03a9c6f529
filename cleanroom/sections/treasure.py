"""Award a won battle's or a tomb's treasure: the gold, then maybe a key, the sword, the
Pegasus or the wizard (rulebook: Battle Treasures; Three Magic Keys).
"""
from __future__ import annotations

from ..params import param
from ..rules import KEYS, Player, two_digits
from ..stage import Stage
from .curse import curse

__all__ = ["treasure", "treasure_odds"]


def treasure_odds(g: Stage, p: Player, name: str) -> dict[str, float]:
    """Return the odds of parameter ``name`` less the treasures ``p`` cannot get: a key
    only in a foreign kingdom whose key is missing (brass, silver, gold; never two of
    one: rulebook, Three Magic Keys), a sword only without one, a wizard only with
    someone to curse."""
    odds = dict(param(name))
    if not (1 <= p.frontiers <= 3 and p.keys == p.frontiers - 1):
        odds.pop("key")
    if p.sword:
        odds.pop("sword")
    if len(g.players) == 1:
        odds.pop("wizard")
    return odds


def treasure(g: Stage, p: Player):
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
    found = g.pick("battle_gold", lo, hi, full=(0, 99))
    p.gold = min(param("max_count"), p.gold + found)
    p.carry()
    odds = treasure_odds(g, p, "treasure_odds")
    kind = g.choose("treasure", list(odds), list(odds.values()))
    yield from g.show("GOLD", two_digits(p.gold), then="gold_found",
                      think=g.think("treasure_think_cycles"))
    if kind == "key":
        yield from g.show(KEYS[p.keys], then="key_won")
        p.keys += 1
    elif kind == "sword":
        yield from g.show("SWORD")
        p.sword = True
    elif kind == "pegasus":
        yield from g.picture_with_sound("PEGASUS", "pegasus")
        # a treasure gained: REPEAT shows it again, with a beep like the other items
        # (rulebook: The Repeat Button; l1_p4_s13 89.57: GOLD 44, then PEGASUS)
        g.last_shown.append(("PEGASUS", None))
    elif kind == "wizard":
        yield from g.show("WIZARD")
        yield from curse(g, p)
    return None
