"""End the game: VICTORY and the score, or a solo game lost (rulebook: The Final Battle;
Scoring).
"""
from __future__ import annotations

from ..params import param
from ..reel import PICTURES
from ..rules import Player, two_digits
from ..stage import Stage

__all__ = ["victory", "score", "game_lost"]


def victory(g: Stage, p: Player, siege: int):
    """Show VICTORY with the victory tune, then flash the score (level4_riddle 101.267);
    ``siege`` = the warriors that began the Final Battle."""
    e = g.engine
    card, lamp = PICTURES["VICTORY"]
    if e.reel.card != card:
        yield ("reel", card)
        e.motor(False)
    e.lamps_off()
    e.lamp(lamp, True)
    after = param("victory_tune_after_lamp_s")
    length = e.sound("overture", at=e.now + after)
    yield ("sleep", after + length)
    e.lamps_off()
    g.over = True
    e.flash(two_digits(score(p.turns, siege)), at=e.now + param("score_after_tune_s"))
    yield ("key", frozenset())


def score(turns: int, siege: int) -> int:
    """Return the score 0-99 from the turns taken and the warriors that laid siege
    (rulebook, Scoring: 'based both on the number of moves ... and the number of warriors
    that you lay siege to the tower with'; the formula: params ``score``)."""
    a, per_turn, per_warrior = param("score")
    return max(0, min(99, a - per_turn * turns - per_warrior * siege))


def game_lost(g: Stage, p: Player):
    """End a solo game lost: the score 00 flashes for good, no key answered (corpus: the
    two solo games lost, l1_p1_s133 387.83 after the last Death March, level1_solo_moves;
    rulebook: Scoring, 00 for a game not won)."""
    g.over = True
    g.engine.flash("00")
    yield ("key", frozenset())
