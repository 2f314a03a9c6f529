"""Enter the Dark Tower: the tower's tune, the riddle of the keys, the Final Battle
(rulebook: The Dark Tower Button; Level 4 Dark Tower).
"""
from __future__ import annotations

from ..params import SOUNDS, param
from ..rules import Player
from ..stage import Stage, after_click, tail_before_picture
from .battle import battle

__all__ = ["dark_tower"]


def dark_tower(g: Stage, p: Player):
    """Play the tower's tune, then refuse or ask the riddle of the keys; a solved riddle
    opens the Final Battle (rulebook: The Dark Tower Button; Level 4 Dark Tower).

    Observed in the corpus (cleanroom/README.md): the tune plays at every press, also
    when the tower then refuses; without the three keys it shows KEY MISSING with the sad
    cue.  The riddle offers the keys round the cycle GOLD, SILVER, BRASS (params
    ``riddle_offer_order``) from a key that changes from visit to visit (decision
    ``riddle_key1``); for key 2 the two others, in the same cycle, from one of them
    (``riddle_key2``).  A wrong key: the sad cue, no picture, the end signal.
    """
    cycle = list(param("riddle_offer_order"))
    stage, left = 1, cycle
    refusal = _refusal(g, p)
    if refusal is None:
        i = left.index(g.choose("riddle_key1", left))
        # the first key comes after a time the hidden state decides (params)
        tail = SOUNDS["dark_tower"].tail_s + g.think("riddle_think_cycles")
    elif refusal == "KEY MISSING":
        tail = tail_before_picture("dark_tower")      # KEY MISSING follows
    else:
        # the sad cue alone, after a silence no recording has timed (params)
        tail = SOUNDS["dark_tower"].tail_s + g.think("unready_sad_cycles")
    yield from g.sound("dark_tower", delay=after_click("dark_tower"), tail=tail)
    if refusal == "KEY MISSING":
        # rulebook: 'You must own all three keys to enter the tower'; REPEAT does not show
        # the refusal again (l3_p1_s03 182.17)
        return (yield from g.picture_with_sound("KEY MISSING", "sad"))
    if refusal == "sad":
        # the end signal follows as after a wrong key of the riddle (params ``loop_lead_s``)
        yield from g.sound("sad", tail=-param("loop_lead_s")["sad"])
        return 0.0
    yield from g.show(left[i], None, remember=False)
    while True:
        key = yield from g.prompt(f"{stage} ", {"YES/BUY", "NO/END", "REPEAT"})
        if key == "NO/END":
            i = (i + 1) % len(left)
        if key != "YES/BUY":
            yield from g.show(left[i], None, delay=param("key_after_click_s"),
                              remember=False)
            continue
        if left[i] != g.riddle[stage - 1]:
            yield from g.sound("sad", delay=after_click("sad"),
                               tail=-param("loop_lead_s")["sad"])
            return 0.0
        if stage == 2:
            break
        stage, left = 2, [k for k in cycle if k != left[i]]
        i = left.index(g.choose("riddle_key2", left))
        # the first candidate for key 2 follows at once (level4_riddle 60.984)
        yield from g.show(left[i], None, delay=param("key2_after_click_s"),
                          remember=False)
    # the Final Battle's horn follows YES/BUY's click sooner than a MOVE's battle horn
    # (params ``final_horn_after_click_s``)
    return (yield from battle(g, p, siege_brigands(g), final=True,
                                 horn_delay=param("final_horn_after_click_s")))


def _refusal(g: Stage, p: Player) -> str | None:
    """Return how the tower refuses ``p`` the Dark Tower after its tune, or None when it
    asks the riddle: "KEY MISSING" (the picture with the sad cue) without the three keys
    (the corpus); with them but without the last FRONTIER press (rulebook, Frontier
    footnote: 'the tower will warn you of your failure by emitting a sad-sounding musical
    signal'), "sad" (the cue alone) or "KEY MISSING" again if one check refuses both, as
    decision ``dark_tower_unready`` settles (no recording has such a visit)."""
    if p.keys < 3:
        return "KEY MISSING"
    if p.frontiers >= 4:
        return None
    return g.choose("dark_tower_unready", ["sad", "KEY MISSING"],
                    list(param("dark_tower_unready")))


def siege_brigands(g: Stage) -> int:
    """Return the brigands of a Final Battle: the level's count (``tower_brigands``), or,
    after a Final Battle left by a retreat or lost, maybe as many as it left unbeaten (the
    rulebook says only that the riddle is asked again; decision ``siege_after_retreat``,
    params)."""
    left = g.tower_brigands_left
    if left is None or left == g.tower_brigands:
        return g.tower_brigands
    return g.choose("siege_after_retreat", [g.tower_brigands, left],
                    list(param("siege_after_retreat")))
