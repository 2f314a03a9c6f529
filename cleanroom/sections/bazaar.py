"""Trade at the bazaar: the offers, haggling, buying, the bazaar closed (rulebook: The Bazaar
Button; Level 4 Bazaar and How To Haggle; Rations Of Food).
"""
from __future__ import annotations

from ..params import SOUNDS, param
from ..reel import PICTURES
from ..rules import Player, two_digits
from ..stage import Stage, after_click

__all__ = ["bazaar"]


def bazaar(g: Stage, p: Player):
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
            prices[item] = g.pick(f"{'warrior' if item == 'warriors' else item}_price",
                                  lo, hi)
    first = dict(prices)
    pictures = {"warriors": "WARRIOR", "food": "FOOD", "beast": "BEAST", "scout": "SCOUT",
                "healer": "HEALER"}
    # the reel to the first offer starts a time after the cue the hidden state decides
    # (params ``bazaar_think_cycles``)
    yield from g.sound("bazaar", delay=after_click("bazaar"),
                       tail=SOUNDS["bazaar"].tail_s + g.think("bazaar_think_cycles"))
    i = 0
    yield from g.show(pictures[items[i]], two_digits(prices[items[i]]), remember=False,
                      then="offer")
    while True:
        key = yield from g.prompt("--", {"YES/BUY", "NO/END", "REPEAT", "HAGGLE", "CLEAR"})
        item = items[i]
        if key == "CLEAR":
            yield from g.sound("siren", delay=after_click("siren"))
            return "undone"
        if key == "NO/END":
            # a haggled price holds while its offer is shown: back at it after the others,
            # the price first asked (l4_p2_s108 127.90: 08 haggled to 07, then 08 again)
            prices[item] = first[item]
            i = (i + 1) % len(items)
            lead = "offer_wrap_after_click_s" if i == 0 else "offer_after_click_s"
            yield from g.show(pictures[items[i]], two_digits(prices[items[i]]),
                              delay=g.lead(lead, pictures[items[i]]),
                              remember=False, then="offer")
            continue
        if key == "REPEAT":
            yield from g.show(pictures[item], two_digits(prices[item]),
                              delay=param("offer_repeat_after_click_s"),
                              remember=False, then="offer")
            continue
        if key == "HAGGLE":
            if item == "food":
                # rulebook, Rations Of Food: 'you cannot haggle' over food; the genuine
                # tower closes the bazaar at once (cleanroom/README.md, Observed)
                return (yield from closed(g))
            won = g.choose("haggle", [True, False],
                           [param("haggle_success"), 1 - param("haggle_success")])
            # the haggle takes a time the hidden state decides (params)
            think = g.think("haggle_think_cycles")
            if won:
                prices[item] = max(1, prices[item] - 1)
                yield from g.show(pictures[item], two_digits(prices[item]),
                                  delay=param("haggled_after_click_s") + think,
                                  remember=False, then="offer")
                continue
            return (yield from closed(g, param("haggle_refused_after_click_s") + think))
        # YES/BUY
        if item in ("beast", "scout", "healer"):
            if prices[item] > p.gold:
                return (yield from closed(g, param("unpaid_closed_after_click_s")))
            p.gold -= prices[item]
            setattr(p, item, True)
            p.carry()
            # GOLD on the card in place (after the SCOUT or HEALER) lights later than
            # a reel turn to it would start (params)
            same = PICTURES["GOLD"][0] == g.engine.reel.card
            yield from g.show("GOLD", two_digits(p.gold), delay=param(
                "gold_lamp_after_buy_s" if same else "reel_after_click_s"))
            return None
        return (yield from buy_many(g, p, item, prices[item]))


def buy_many(g: Stage, p: Player, item: str, price: int):
    count = 1
    have = p.warriors if item == "warriors" else p.food
    while True:
        if count * price > p.gold:
            # what the gold cannot pay closes the bazaar a little later than a refused
            # haggle (params ``unpaid_closed_after_click_s``)
            return (yield from closed(g, param("unpaid_closed_after_click_s")))
        key = yield from g.prompt(two_digits(count), {"YES/BUY", "NO/END", "CLEAR"},
                                  entry="count_first" if count == 1 else "count_next")
        if key == "CLEAR":
            yield from g.sound("siren", delay=after_click("siren"))
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
    yield from g.show("GOLD", two_digits(p.gold), delay=param("reel_after_click_s"))
    return None


def closed(g: Stage, lead: float | None = None):
    """Show BAZAAR CLOSED with the sad cue ``lead`` s after the click (default
    ``closed_after_click_s``); the turn is over (rulebook: Haggling)."""
    yield from g.sleep(param("closed_after_click_s") if lead is None else lead)
    return (yield from g.picture_with_sound("BAZAAR CLOSED", "sad"))
