"""Power the tower on, test it, choose the level and the players, set the table (rulebook:
Tower Test; Choice Of Levels; Level 4 for its starting inventory).

What the tower shows and when: the four shared MAME captures and the corpus (cleanroom.params
rows cited below).
"""
from __future__ import annotations

import itertools

from captures.darktower_facts import NOMINAL_CLOCK_HZ
from captures.script import BUTTONS

from ..engine import Engine
from ..params import param
from ..rules import Player, hoard_start
from ..stage import Stage, after_click, lamp_after_motor
from .turn import turns

__all__ = ["power_on", "quick_start", "setup"]


def power_on(g: Stage, e: Engine):
    """Show the power-on ``--``, run the tower test at YES/BUY, take the level and the player
    count from the ``Ln`` and ``Pn`` menus, play the overture, then the turns."""
    e.display("0 ", at=0.0 + e.now)
    e.display("  ", at=e.now + param("frame_s"))
    e.emit(e.now + param("frame_s"), "reel", card_pos=e.reel.card)
    e.set_last_card(e.reel.card)
    # the flash timer starts dark: '--' shows 32 ticks after power-on (cleanroom.engine)
    yield from g.prompt("--", set(BUTTONS))
    yield from g.sleep(param("motor_after_click_s"))
    yield ("reel", "index")
    e.motor(False)
    lamp_at = e.now + lamp_after_motor("tower_test")
    steps = param("tower_test_lamp_s")
    for i, lamp in enumerate(("upper", "middle", "lower")):
        t = lamp_at + sum(steps[:i])
        if i:
            e.lamp(("upper", "middle")[i - 1], False, at=t)
        e.lamp(lamp, True, at=t)
        e.tone(param("beep_hz"), param("beep_dur_s"), at=t + param("beep_after_lamp_s"),
               cue="beep")
    e.display("88", at=lamp_at + param("number_after_lamp_s"))
    yield ("sleep", lamp_at + sum(steps) - e.now)
    e.lamp("lower", False)
    # '88' and the lamps cleared the flash timer's bit: L1 shows at its next toggle, and
    # the menus L1-L4 then P1-P4 keep that phase (every recording)
    level = 1
    delay = 0.0
    e.shift_loop(param("menu_after_test_cycles"))
    while True:
        key = yield from g.prompt(f"L{level}", {"YES/BUY", "NO/END"}, delay=delay,
                                  keep=True)
        delay = param("text_after_click_s")
        if key == "YES/BUY":
            break
        level = level % 4 + 1
    count = 1
    # levels 1-3 take longer to set up before the first player-count prompt (params)
    entry = "players" if level != 4 else None
    extra = 0.0
    if entry:
        # how much longer than the median is a hidden state's (params)
        extra = g.think("players_setup_cycles")
    while True:
        key = yield from g.prompt(f"P{count}", {"YES/BUY", "NO/END"}, delay=delay,
                                  keep=True, entry=entry,
                                  extra_cycles=extra * NOMINAL_CLOCK_HZ)
        entry, extra = None, 0.0
        if key == "YES/BUY":
            break
        count = count % 4 + 1
    e.end_flash()
    g.setup(level, count)
    yield from g.sound("overture", delay=after_click("overture"))
    yield from turns(g)


def quick_start(g: Stage, start: tuple[int, int], e: Engine):
    """Begin at player 1's turn of a game of ``start`` = (level, players): no tower test, no
    menus (for tests)."""
    e.display("  ")
    g.setup(*start)
    yield from turns(g)


def setup(g: Stage, level: int, count: int) -> None:
    """Set the table: ``count`` players with the starting inventory (level 4's own), the
    dragon's hoard, the tower's brigands and the riddle's key order for ``level``."""
    g.level = level
    g.dragon_warriors, g.dragon_gold = hoard_start()
    g.players = [Player(number=i + 1, warriors=param("start_warriors"),
                        gold=param("start_gold"), food=param("start_food"))
                 for i in range(count)]
    lo, hi = param("tower_brigands")[level]
    if level == 4:
        inv = param("level4_inventory")
        for p in g.players:
            p.warriors, p.gold, p.food = inv["warriors"], inv["gold"], inv["food"]
            p.beast, p.scout, p.healer = bool(inv["beast"]), bool(inv["scout"]), \
                bool(inv["healer"])
            p.sword, p.keys, p.frontiers = bool(inv["sword"]), inv["keys"], inv["frontiers"]
        g.tower_brigands = lo
        g.riddle = tuple(param("level4_riddle"))
    else:
        g.tower_brigands = g.pick(f"tower_brigands_L{level}", lo, hi)
        # rulebook: the order of the keys changes from game to game (any of the 6)
        g.riddle = g.choose("riddle", list(itertools.permutations(
            ("GOLD KEY", "SILVER KEY", "BRASS KEY"))))
    g.current = 0
