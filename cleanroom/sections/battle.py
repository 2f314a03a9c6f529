"""Fight a battle with brigands, skirmish by skirmish (rulebook: A Battle With Brigands; The
Final Battle; Warriors for the least a loss leaves).

What the tower shows and when: the corpus (tests/data/corpus and the development sessions,
cited at each rule; docs/corpus-statistics.md for the odds).
"""
from __future__ import annotations

from captures.darktower_facts import INSTRUCTION_CYCLES, NOMINAL_CLOCK_HZ

from ..params import param
from ..rules import Player, skirmish_chance, two_digits
from ..stage import Stage, after_click, notes_length, tail_before_picture
from .ending import game_lost, victory
from .treasure import treasure

__all__ = ["battle", "battle_lost", "retreat", "skirmish", "brigands_for"]


def brigands_for(g: Stage, p: Player) -> int:
    """Return the brigands of a MOVE or TOMB/RUIN battle: the warriors' own number plus a
    difference drawn with the odds of ``brigands_spread``, at least 1 (corpus: every
    first BRIGANDS count within 2 of the warriors that fought, as many as the warriors
    about twice as often as each other difference).  Every count is an option, with
    weight 0 where none falls (as ``pick`` does)."""
    weights = [0.0] * 100
    for d, weight in param("brigands_spread").items():
        weights[min(99, max(1, p.warriors + d))] += weight
    return g.choose("brigands", list(range(1, 100)), weights[1:])


def battle(g: Stage, p: Player, brigands: int, final: bool, horn_delay: float | None = None):
    """Fight a battle, as the corpus shows it (l1_p1_s01 181.08, l1_p3_s09 127.82): the
    battle horn right after the click; BRIGANDS and their number; then per skirmish the
    WARRIORS and BRIGANDS left after it and the won or lost cue; a won skirmish halves the
    brigands (rounded down), a lost one costs one warrior.  The battle is won at 0
    brigands (GOLD and maybe a treasure follow); it is lost when a lost skirmish would
    leave a single warrior: WARRIORS without a number and the Death March."""
    e = g.engine
    # the horn: 17 ms after the key click, or at once after a tomb's creak (cues.py)
    yield from g.sound("battle_horn", delay=after_click("battle_horn")
                       if horn_delay is None else horn_delay,
                       tail=tail_before_picture("battle_horn"))
    yield from g.show("BRIGANDS", two_digits(brigands), remember=False)
    # each skirmish's pause ends in a time the hidden state decides (params
    # ``skirmish_think_cycles``): the pauses run to the earliest of it, the rest follows
    # the skirmish's outcome
    think = param("skirmish_think_cycles")
    floor = min(lo for lo, _ in think.values()) / NOMINAL_CLOCK_HZ
    w = w0 = p.warriors       # w0: the force that lays siege (rulebook: Scoring)
    gap = None                # the pause before this skirmish's result, after the first
    last_scan = None          # when the battle's last key scan looked for a retreat
    while True:
        if final:
            # what a retreat or a lost battle would leave unbeaten (``siege_brigands``)
            g.tower_brigands_left = brigands
        won = None
        # a lost skirmish ends the battle when it would leave fewer warriors than a
        # loss keeps: multi-player 1 (so at 2 or 1 warriors), solo 0 (at 1)
        fatal = w - 1 <= g.min_warriors()
        if fatal and len(g.players) > 1:
            # in a multi-player game such a skirmish is the force's last stand: it is
            # lost (params ``min_warriors``: 35 of 35) and brings the Death March sooner,
            # without the key scan that looks for a retreat (``skirmish_fatal_gap_s``,
            # ``skirmish_fatal_first_s``), the battle's first one too; a solo game's last
            # warrior fights an ordinary skirmish (l1_p1_s149 233.7: 2 warriors lose one
            # and fight on)
            won = False
        if gap is None:
            pause = (param("skirmish_fatal_first_s") if won is False
                     else param("battle_pause_s") + floor)
        else:
            pause = param("skirmish_fatal_gap_s") if won is False else gap + floor
        yield from g.sleep(pause)
        if won is not False:
            # the skirmish's key scan (the first skirmish's is the second of two a pass
            # apart): the scan before it is the one NO/END must have been held at, too, if
            # the battle's scans take a key as a key loop does (``retreat_at_first_scan``)
            before = last_scan if last_scan is not None \
                else e.now - 3 * param("tick_dark_s") / e.clock_ratio
            last_scan = e.now
            if "NO/END" in e.held and _retreat_taken(g, e.held_since["NO/END"] <= before):
                return (yield from retreat(g, p, w))
        if won is None:
            won = skirmish(g, w, brigands)
        if won:
            brigands //= 2
        elif fatal and len(g.players) > 1:
            return (yield from battle_lost(g, p))
        else:
            # a lost skirmish takes longer to work out (params ``skirmish_lost_extra_s``)
            yield from g.sleep(param("skirmish_lost_extra_s"))
        lo, hi = think["won" if won else "lost"]
        yield from g.sleep(g.think("skirmish_think_cycles", lo, hi) - floor)
        if not won and fatal:
            # the solo game's last warrior: the Death March where the skirmish's
            # WARRIORS would light (l1_p1_s133 384.3: 3.287 s after BRIGANDS, as a lost
            # skirmish's next picture)
            return (yield from battle_lost(g, p))
        if not won:
            w -= 1
        # rulebook (REPEAT): the warriors left after a battle are not repeated; the
        # skirmish's pictures are lit a little longer than others (params
        # ``skirmish_picture_s``), the cue follows 0.6 ms after them
        hold = param("skirmish_picture_s")
        yield from g.show("WARRIORS", two_digits(w), remember=False, hold=hold)
        yield from g.show("BRIGANDS", two_digits(brigands), remember=False, hold=hold)
        cue = "skirmish_won" if won else "skirmish_lost"
        lead = param("skirmish_cue_after_lamp_s")
        e.sound(cue, at=e.now + lead / e.clock_ratio)
        yield ("sleep", lead + notes_length(cue))
        if brigands == 0:
            if final:
                yield from g.sleep(param("victory_gap_s"))
            else:
                # the won battle's spoils take a time the hidden state decides (params)
                yield from g.sleep(param("gold_after_battle_s")
                                   + g.think("spoils_think_cycles"))
            break
        gap = param("skirmish_gap_s" if won else "skirmish_lost_gap_s")
    p.warriors = w
    if final:
        yield from victory(g, p, siege=w0)
        return None
    return (yield from treasure(g, p))


def _unknown_time(g: Stage, name: str) -> float:
    """Return a duration no recording has timed: timing decision ``name`` over its
    parameter's range, the middle of it the game's own value (the option tried first), not
    its low end.  The resolver compares a draw's options with the durations after it at the
    game's own values (cleanroom/tries.py, ``best_of``): a retreat timed at the range's
    low end showed its lamp sooner than a skirmish going on would, and lost to it."""
    lo, hi = param(name)
    mid = (lo + hi) // 2 // INSTRUCTION_CYCLES * INSTRUCTION_CYCLES
    return mid / NOMINAL_CLOCK_HZ + g.think(name, lo - mid, hi - mid)


def _retreat_taken(g: Stage, seen_before: bool) -> bool:
    """Return True when a skirmish's key scan that finds NO/END held takes it: always when
    the battle's scan before found it held too; at its first sight, as decision
    ``retreat_at_first_scan`` settles (params: a key loop takes a key at the second scan
    that sees it, and whether the battle's scans, one a skirmish, count alike is not
    recorded).  Not taken, the key waits for the next skirmish's scan."""
    if seen_before:
        return True
    return bool(g.choose("retreat_at_first_scan", [True, False],
                         list(param("retreat_at_first_scan"))))


def retreat(g: Stage, p: Player, w: int):
    """Leave the battle at a skirmish's key scan that finds NO/END held (rulebook:
    Retreating in battle: the Death March, WARRIORS without a number, 'at least one'
    warrior lost).  The corpus's short presses during a battle never cover a scan
    (l1_p3_s09 42.35, l1_p3_s35 357.44) and no recording shows a retreat, so what the
    recordings cannot fix is left to decisions a recording settles (conform --decisions
    reports them): how long after the scan the key is taken (``retreat_take_cycles``: at
    once, or at the next pass's scan as the key loop's debounce takes keys; the pins show
    the battle's first skirmish scanning twice, one pass apart, after the key that began
    it opened, cleanroom/README.md), whether the take clicks as a key loop's does
    (``retreat_click``), when the lamp follows (``retreat_lamp_cycles``), and how many
    warriors it costs (``retreat_loss``, never the last).  The retreat used the key: the
    end signal waits for a new press."""
    e = g.engine
    e.use_key("NO/END")
    click = g.choose("retreat_click", [True, False], param("retreat_click"))
    yield from g.sleep(_unknown_time(g, "retreat_take_cycles"))
    if click:
        e.tone(param("click_hz"), param("click_dur_s"), cue="click")
    yield from g.sleep(_unknown_time(g, "retreat_lamp_cycles"))
    losses = list(range(1, w)) or [0]
    weights = [param("retreat_loss").get(n, 0.0) + 1e-3 for n in losses]
    p.warriors = w - g.choose("retreat_loss", losses, weights)
    p.carry()
    yield from g.picture_with_sound("WARRIORS", "death_march")
    return None


def battle_lost(g: Stage, p: Player):
    """End a lost battle: WARRIORS without a number and the Death March; a multi-player
    game keeps 1 warrior, a solo game loses every one and is over (rulebook, IMPORTANT)."""
    p.warriors = g.min_warriors()
    p.carry()
    yield from g.picture_with_sound("WARRIORS", "death_march")
    if p.warriors == 0:
        yield from game_lost(g, p)
    return None


def skirmish(g: Stage, warriors: int, brigands: int) -> bool:
    """Decide one skirmish: True when the warriors win it (``skirmish_chance``)."""
    chance = skirmish_chance(warriors, brigands)
    return g.choose("skirmish", [True, False], [chance, 1 - chance])
