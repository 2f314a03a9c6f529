"""Name the pictures a session lit: which lamp, which card of the reel, and so which picture.

The three lamps (upper R7, middle R6, lower R5) light one window each of the reel's card in
front of them (``captures.darktower_facts.CARD_IMAGES``; card 7 is blank on every window).
The reel's position comes in ``reel`` events, published like MAME's frame-polled ``card_pos``
output: at the first 1/60 s frame boundary after the reel stepped (``analysis/reel.py``). A
picture is lit just after the reel stops, so the card event of that stop can come up to one
frame *after* the lamp event: the card in front of a lamp lit at ``t`` is the one reported at
or before ``t + REEL_REPORT_LAG_S``, the game's reading of a picture's card
(``captures.darktower_game``). (Reading the card at ``t`` named the tower test's three
lamps CURSED and two blanks in ``tests/data/captures/level_select``: the reel coasts on to
the blank card 7 and is reported there 9 ms after the first lamp.)

Example::

    lit_pictures([{"t": 1.0, "type": "lamp", "lamp": "upper", "on": 1},
                  {"t": 1.01, "type": "reel", "card_pos": 3}], end=2.0)
    # [Lit(start=1.0, end=2.0, lamp='upper', card=3, picture='DRAGON')]
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

from captures.darktower_game import CARD_SETTLE_S, LAMPS, picture

__all__ = ["Lit", "lit_pictures", "picture_name", "REEL_REPORT_LAG_S", "LAMPS", "BLANK"]

REEL_REPORT_LAG_S = CARD_SETTLE_S    # the game's reading of a picture's card: more than a frame
BLANK = "blank"                      # card 7 has no picture on any window


class Lit(NamedTuple):
    """A lamp lit from ``start`` to ``end`` seconds with ``card`` (None: unknown) in front:
    ``picture`` is the window's picture, ``BLANK`` for the blank card, "" when unknown."""
    start: float
    end: float
    lamp: str
    card: int | None
    picture: str


def picture_name(lamp: str, card: int | None) -> str:
    """Return the picture ``lamp`` lights on ``card``: its name, ``BLANK``, or "" (unknown)."""
    if card is None:
        return ""
    return picture(card, lamp) or BLANK


def lit_pictures(events: Sequence[dict], end: float) -> list[Lit]:
    """Return every span a lamp was lit, split where the card in front of it changed, in
    time order; a lamp still lit at the end runs to ``end`` seconds, and a gap (no data)
    ends what was lit before it."""
    events = sorted(events, key=lambda e: e["t"])
    reels = [(e["t"], e["card_pos"]) for e in events if e["type"] == "reel"]

    def card_at(t: float) -> int | None:
        card = None
        for rt, pos in reels:
            if rt > t + 1e-9:
                break
            card = pos
        return card

    out: list[Lit] = []
    lit_since: dict[str, float] = {}

    def close(lamp: str, stop: float) -> None:
        start = lit_since.pop(lamp)
        # the card named at the lamp's start (one report lag late), then each later report
        cuts = [start] + [rt for rt, _ in reels if start + REEL_REPORT_LAG_S < rt < stop]
        for i, a in enumerate(cuts):
            b = cuts[i + 1] if i + 1 < len(cuts) else stop
            card = card_at(a + REEL_REPORT_LAG_S if i == 0 else a)
            if b > a:
                out.append(Lit(a, b, lamp, card, picture_name(lamp, card)))

    for e in events:
        if e["type"] == "lamp" and e["lamp"] in LAMPS:
            if e["on"] and e["lamp"] not in lit_since:
                lit_since[e["lamp"]] = e["t"]
            elif not e["on"] and e["lamp"] in lit_since:
                close(e["lamp"], e["t"])
        elif e["type"] == "gap":
            for lamp in list(lit_since):
                close(lamp, e["t"])
    for lamp in list(lit_since):
        close(lamp, max(end, lit_since[lamp]))
    return sorted(out, key=lambda lit: (lit.start, LAMPS.index(lit.lamp)))
