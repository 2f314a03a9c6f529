"""Take turns: each player's meal, the action keys, REPEAT and CLEAR, the end of the turn
(rulebook: The Order Of Play; How To End Your Turn; Food; The Repeat Button; The Clear
Button).

What the tower shows and when: the corpus recordings (tests/data/corpus and the development
sessions) cited at each rule; the numbers are cleanroom.params rows.
"""
from __future__ import annotations

from dataclasses import replace

from ..params import param
from ..rules import ACTION_KEYS, Player, food_per_turn
from ..stage import Stage, after_click
from .bazaar import bazaar
from .curse import cursed
from .dark_tower import dark_tower
from .ending import game_lost
from .frontier import frontier, inventory
from .move import move
from .sanctuary import sanctuary
from .tomb import tomb

__all__ = ["ACTIONS", "turns", "end_of_turn", "action", "repeat", "repeatable"]

# The section that plays each action key (REPEAT and CLEAR are this section's own).
ACTIONS = {
    "MOVE": move, "TOMB/RUIN": tomb, "SANCTUARY/CITADEL": sanctuary, "BAZAAR": bazaar,
    "FRONTIER": frontier, "INVENTORY": inventory, "DARK TOWER": dark_tower,
}


def turns(g: Stage):
    """Play turn after turn, player after player, until the game is over."""
    # the first turn: the key loop begins 10.6 ms after the overture (all 34 recordings:
    # first key scan 36-37 ms after its last note)
    delay = param("first_turn_after_tune_s")
    while not g.over:
        p = g.player
        p.turns += 1
        yield from g.sleep(delay)
        yield from feed(g, p)
        if g.over:
            return
        # CLEAR undoes the action, not the turn's rations (rulebook: Rations Of Food, each
        # turn's food is eaten 'whether you move your warrior pawn or not')
        snapshot = replace(p)
        hoard = (g.dragon_warriors, g.dragon_gold)
        outcome = "again"
        while outcome == "again":
            # after the end cue or the overture: the running phase (557 turn changes)
            key = yield from g.prompt(f" {p.number}", ACTION_KEYS)
            outcome = yield from action(g, p, key)
        if g.over:
            return
        if outcome == "extra":
            # rulebook: a Scout's extra turn; it is a whole turn (sample game: food 17)
            delay = 0.0
            continue
        if outcome == "undone":
            undo(g, snapshot, hoard)
        else:
            key = yield from end_of_turn(g, p)
            if key == "CLEAR":
                undo(g, snapshot, hoard)
            if g.over:
                return
        g.current = (g.current + 1) % len(g.players)
        # the tower looks through its four player slots for the next player: each empty
        # slot passed over delays the next key loop (cleanroom/params.py)
        skipped = 4 - len(g.players) if g.current == 0 else 0
        delay = param("next_player_after_sound_s")[skipped]
        if g.current == 0 and skipped == 0:
            delay = param("next_player_wrap_after_sound_s")     # 4 -> 1, no slot empty
        # and a little more or less, as the hidden state decides (``turn_think_cycles``)
        delay += g.think("turn_think_cycles")


def feed(g: Stage, p: Player):
    """Eat one turn's food; starve one warrior when there is none (rulebook: Food)."""
    need = food_per_turn(p.warriors)
    # each action key of the turn counts the rations first; a starving force one fewer
    # (params ``ration_count_cycles``)
    g.meal_steps = max(0, need - 1 - (p.food < need))
    if p.food < need:
        # not a whole meal left (none, or less than a large force eats): the rest is eaten
        # and a warrior starves now; the Death March sounds with the turn's first action
        # key, before the action, as the low-food warning does (corpus: 31 of 31 with no
        # food, e.g. l2_p1_s118 323.75, l4_p1_s28 223.68; l4_p1_s104 374.77 with 1 ration
        # for 35 warriors, l4_p1_s152 274.96 with 2 for 46)
        p.food = 0
        p.warriors = max(g.min_warriors(), p.warriors - 1)
        p.carry()
        g.warning_turn = (p.number, p.turns, "death_march")
        if False:
            yield
        return
    # the warning: fewer than 4 turns' worth of rations left after this meal (params
    # ``low_food_turns``: l2_p1_s26 297.30 none with 4 left, 301.32 with 3; l4_p3_s20
    # 400.50 with 10 left at 3 a turn)
    p.food = max(0, p.food - need)
    if p.food < param("low_food_turns") * need:
        # the warning sounds with the turn's first action key, before the action
        # (corpus: 6 of 6, e.g. l2_p1_s26 301.32, l2_p1_s02 365.73)
        g.warning_turn = (p.number, p.turns, "low_food")


def sound_warning(g: Stage, p: Player, cue: str):
    """Sound the turn's warning (the low-food whoops, or the Death March of a starving
    force) after the action key's click; the action then runs as after a click
    ``action_after_warning_s`` past the warning's last note (params: every action after
    either warning, 80 of 80, its first output that much after the notes plus its own time
    after a click).  The starving Death March starts a time after the click the hidden
    state decides (``starve_cycles``)."""
    if cue == "death_march" and p.warriors == 0:
        # a solo force's last warrior starved: WARRIORS with the Death March, and the game
        # is over, no action (l3_p1_s119 417.35: the reel turns 9.8 ms after the click)
        yield from g.sleep(param("starve_last_after_click_s"))
        yield from g.picture_with_sound("WARRIORS", "death_march")
        return
    delay = after_click(cue)
    if cue == "death_march":
        delay = param("starve_after_click_s") + g.think("starve_cycles")
    yield from g.sound(cue, delay=delay, tail=param("action_after_warning_s"))


def undo(g: Stage, snapshot: Player, hoard: tuple[int, int]) -> None:
    """Undo the turn's action (rulebook: The Clear Button): the player's inventory and the
    dragon's hoard return to what they were before it.  A curse the action cast is not
    undone (rulebook: Clear, EXCEPTION): the victim keeps its loss and is still cursed,
    while the curser's gain goes with the rest of the action (corpus l3_p4_s15: player 3
    curses player 4 at 125.02 (12 warriors, 56 bags) and CLEARs at 131.68; player 4 shows
    CURSED, 08 and 23 at 138.59; player 3 has its 10 and 30 again when player 1's curse
    takes 2 and 7 from it at 222.28)."""
    now = g.players[g.current]
    g.players[g.current] = replace(snapshot, cursed_by=now.cursed_by)
    g.dragon_warriors, g.dragon_gold = hoard


def end_of_turn(g: Stage, p: Player):
    """Flash the end-of-turn signal and wait for NO/END or CLEAR; return the key.

    The signal's key loop begins as the action ends, in the flash timer's running phase
    (cleanroom.engine; l3_p1_s03 37.250: '-1' right after a safe move's beep)."""
    e = g.engine
    while True:
        key = yield from g.prompt(f"-{p.number}", {"NO/END", "CLEAR", "REPEAT",
                                                   "INVENTORY"}, keep=True)
        if key == "INVENTORY" or (key == "REPEAT" and not repeatable(g)):
            # INVENTORY, or REPEAT with nothing to repeat, at the end-of-turn signal: the
            # click alone, the signal flashes on in its phase (corpus l1_p1_s01 42.18,
            # 39.37; l2_p1_s02 37.33, 40.2)
            e.shift_loop(param("click_alone_cycles")[
                "inventory_signal" if key == "INVENTORY" else "repeat_signal"])
            continue
        e.end_flash()
        if key != "REPEAT":
            break
        yield from repeat(g)
    if key == "CLEAR":
        yield from g.sound("siren", delay=after_click("siren"))
    else:
        yield from g.sound("end_turn", delay=after_click("end_turn"))
    return key


def action(g: Stage, p: Player, key: str):
    """Run one keyboard action.

    Return 'again' (the same turn goes on), 'extra' (a new turn for the same player),
    'undone' (CLEAR: the turn is void) or the delay in seconds before the end-of-turn
    signal (None = the usual delay).
    """
    g.action_keys.append((g.engine.now, key, p.number, p.warriors, p.food))
    if p.cursed_by is not None and key not in ("REPEAT", "CLEAR"):
        # REPEAT then shows the totals the curse left again (l1_p2_s121 157.12: WARRIOR
        # and GOLD, not CURSED)
        g.last_shown = []
        g.shown_turn = (p.number, p.turns)
        # the rations counted as at any action key (chosen: no recording has a cursed
        # force of 16 warriors or more)
        yield from g.count_rations()
        return (yield from cursed(g, p))
    if key == "REPEAT":
        yield from repeat(g)
        return "again"
    if key == "CLEAR":
        if g.acted_turn != (p.number, p.turns):
            # nothing to undo before the turn's first action: the click alone (corpus
            # l3_p1_s27 49.0, l1_p2_s29 40.7; after a Scout's extra move the siren
            # sounds, l4_p4_s24 63.6)
            return "again"
        yield from g.sound("siren", delay=after_click("siren"))
        return "undone"
    warning = g.warning_turn
    g.warned = warning is not None and warning[:2] == (p.number, p.turns)
    # the rations are counted before the warning, or before all the action shows but a
    # tomb's creak, which has begun by then (its first period takes the count, tomb)
    if g.warned or key != "TOMB/RUIN":
        yield from g.count_rations()
    if g.warned:
        g.warning_turn = None
        yield from sound_warning(g, p, warning[2])
        if p.warriors == 0:
            return (yield from game_lost(g, p))
    g.last_shown = []
    g.shown_turn = g.acted_turn = (p.number, p.turns)
    handler = ACTIONS[key]
    if key == "TOMB/RUIN" and p.frontiers >= 4:
        # rulebook: revisit the Citadel only after another building; the genuine tower
        # counts a tomb or ruin only: after a BAZAAR visit (or a MOVE, REPEAT, DARK TOWER)
        # the Citadel still only trills (l4_p1_s120 258.61 -> 280.51, l4_p2_s108,
        # l4_p4_s24 266.73 -> 368.8), after a tomb it doubles again (l4_p1_s104 157.77)
        p.doubled = False
    return (yield from handler(g, p))


def repeatable(g: Stage) -> bool:
    """Return True when REPEAT has pictures of this turn's action to show again."""
    p = g.player
    return bool(g.last_shown) and g.shown_turn == (p.number, p.turns)


def repeat(g: Stage):
    """Show again the beeped pictures (with their numbers) of this turn's action; nothing
    but the click before this turn's first action (corpus: REPEAT at ` N` never shows
    anything, l1_p4_s21 49.03; at `-N` it repeats the numbers, not the pictures shown
    with a cue: after a plague only WARRIOR 08, l2_p1_s02 144.7; after a tomb GOLD and
    SWORD, l1_p3_s35 235.8; after LOST nothing, l2_p2_s06 365.6)."""
    shown = list(g.last_shown) if repeatable(g) else []
    if not shown:
        # the click alone: the key loop goes on at once (l1_p1_s01 47.277: the next scan
        # one pass plus the click after the scan that took REPEAT)
        g.engine.shift_loop(param("click_alone_cycles")["repeat_first"])
        return
    yield from g.sleep(g.lead("repeat_after_click_s", shown[0][0]))
    for picture, text in shown:
        yield from g.show(picture, text, remember=False, item=True)
