"""Cast the wizard's curse and let it fall on its victim (rulebook: Battle Treasures, the
Wizard; The Clear Button, EXCEPTION).
"""
from __future__ import annotations

from ..params import param
from ..rules import Player, quarter_by_digits, two_digits
from ..stage import Stage

__all__ = ["curse", "cursed"]


def curse(g: Stage, p: Player):
    """Let ``p`` curse another player: ``CN`` flashes from the next player on, NO/END
    steps to the one after (skipping ``p``), YES/BUY curses; then ``p``'s new warriors
    and gold (corpus l4_p4_s24 211.60: player 3 is offered C4, then C1)."""
    n = len(g.players)
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
            g.engine.first_scan_after(param("scan_after_picture_cycles")["curse_offer"]
                                      + extra)
        key = yield from g.prompt(f"C{others[i]}", {"YES/BUY", "NO/END"}, entry=entry,
                                  extra_cycles=extra)
        entry = "curse"
        last = others[i]
        if key == "YES/BUY":
            break
        i = (i + 1) % len(others)
    # the curse's totals replace what REPEAT shows (WIZARD is not repeated: l3_p3_s11 353.6)
    g.last_shown = []
    victim = g.players[others[i] - 1]
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
    yield from g.show("WARRIOR", two_digits(p.warriors), delay=lead)
    yield from g.show("GOLD", two_digits(p.gold))


def cursed(g: Stage, p: Player):
    """The cursed player's next action: CURSED with the lost-skirmish cue, then the
    warriors and gold the curse left (corpus l1_p2_s05 368.53, l1_p3_s35 88.10)."""
    p.cursed_by = None
    yield from g.sleep(param("sound_after_click_s"))
    yield from g.picture_with_sound("CURSED", "cursed")
    yield from g.show("WARRIOR", two_digits(p.warriors))
    yield from g.show("GOLD", two_digits(p.gold), then="cursed_gold")
    return None
