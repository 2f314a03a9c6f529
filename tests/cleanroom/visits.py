"""Replay one recorded visit of the genuine tower (a BAZAAR, INVENTORY, ... turn) on the game.

A corpus session (tests/data/corpus/<name>/events.jsonl) is a whole game; the rules of one
button are easiest to check on one visit: from the press of the action key to the end signal.
``visit(...)`` starts the clean-room game at the session's level and player count, gives the
player whose turn it is the inventory the test reads off the recording, puts the reel at the
card the recording shows, presses the same keys at the same tower times (the script times) and
compares what both towers showed inside the window with cleanroom.conform.compare
(conformance's tolerances but for the flash phase: TOLERANCE).  Both sides run on the same
absolute clock, so the reel's 27 ms steps and the 1/60 s display frames keep their phases.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from cleanroom.conform import Result, Tolerance, compare
from cleanroom.game import ScriptedChooser, food_per_turn
from cleanroom.params import SOUNDS, Sound
from cleanroom.tower import CleanroomTower

CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus"


# conform's tolerances, except where a flashing text starts and its period: the genuine flash
# timer runs freely (over the corpus the bazaar's '--' appears 0 to 0.55 s after the picture's
# lamp goes off, evenly spread), so a prompt shows at once in an "on" phase, for a short first
# flash (l2_p1_s02 203.150: '--' for 33 ms, then every 0.55 s), or waits up to one period.
# That phase is the engine's (cleanroom/engine.py); a visit checks the flow and its steady times.
TOLERANCE = Tolerance(flash_s=0.56, period_frac=0.5)


def load(session: str) -> list[dict]:
    """Return the events of corpus session ``session`` in time order."""
    path = CORPUS / session / "events.jsonl"
    with open(path) as f:
        return sorted((json.loads(line) for line in f if line.strip()), key=lambda e: e["t"])


def level_players(session: str) -> tuple[int, int]:
    """Return (level, players) from a corpus session name ``l<level>_p<players>_s<seed>``."""
    parts = session.split("_")
    return int(parts[0][1:]), int(parts[1][1:])


@dataclass
class Visit:
    """A recorded window and the game's rendition of it."""
    reference: list[dict]
    game: list[dict]
    tower: CleanroomTower
    result: Result


def _window(events: list[dict], t0: float, t1: float, quiet_until: float) -> list[dict]:
    out = []
    for e in events:
        if not (t0 <= e["t"] < t1) or e["type"] in ("button", "power"):
            continue
        if e["type"] == "display" and e["t"] < quiet_until:
            continue        # the turn prompt still flashing when the key went down
        out.append(e)
    return out


def recorded_cue(events: list[dict], name: str, t_from: float, tail_s: float) -> Sound:
    """Return cue ``name`` as ``events`` play it first after ``t_from`` (s): the notes from
    the first tone that is not a key click up to the first silence over 60 ms, then
    ``tail_s`` seconds of silence."""
    notes, t0, end = [], None, None
    for e in events:
        if e["type"] != "tone" or e["t"] < t_from or e["freq_hz"] is None:
            continue
        if t0 is None and e["dur_s"] < 0.006:
            continue        # the key click (431.9 Hz, 4.6 ms)
        if end is not None and e["t"] - end > 0.06:
            break
        t0 = e["t"] if t0 is None else t0
        notes.append((round(e["t"] - t0, 4), e["freq_hz"], e["dur_s"]))
        end = e["t"] + e["dur_s"]
    if not notes:
        raise ValueError(f"no tone after {t_from:.3f} s for cue {name!r}")
    return Sound(name, tuple(notes), tail_s, f"recorded after {t_from:.3f} s")


def visit(session: str, t_press: float, t_end: float, player: int = 1,
          inventory: dict | None = None, cues: dict | None = None, **outcomes) -> Visit:
    """Replay the recorded keys of ``session`` from ``t_press`` (s) to ``t_end`` (s) on the game.

    ``player``: whose turn it is (1-4); ``inventory``: that player's fields at the start of
    the turn, after the turn's rations are eaten; ``outcomes``: the random decisions, as for
    ScriptedChooser.  The comparison covers the outputs from the key's click to ``t_end``.
    ``cues``: ``{name: (t_from, tail_s)}`` plays cue ``name`` as the recording does first
    after ``t_from`` (recorded_cue) instead of the catalogue's, for a flow whose cue the
    catalogue does not have right yet: the test then checks what follows the cue, and when.
    """
    events = load(session)
    saved = dict(SOUNDS)
    try:
        for name, (t_from, tail_s) in (cues or {}).items():
            SOUNDS[name] = recorded_cue(events, name, t_from, tail_s)
        return _visit(events, session, t_press, t_end, player, inventory, outcomes)
    finally:
        SOUNDS.clear()
        SOUNDS.update(saved)


def _visit(events: list[dict], session: str, t_press: float, t_end: float, player: int,
           inventory: dict | None, outcomes: dict) -> Visit:
    level, players = level_players(session)
    presses = [e for e in events if e["type"] == "button" and t_press - 0.1 <= e["t"] < t_end]
    card = None
    for e in events:
        if e["type"] == "reel" and e["t"] <= t_press:
            card = e["card_pos"]
    tw = CleanroomTower(chooser=ScriptedChooser(outcomes), start=(level, players),
                        powered=False)
    game = tw.game
    setup = game._setup

    def _setup(lv: int, count: int) -> None:
        setup(lv, count)
        game.current = player - 1
        p = game.players[player - 1]
        for name, value in (inventory or {}).items():
            setattr(p, name, value)
        p.food += food_per_turn(p.warriors)     # the turn's meal is eaten before the prompt

    game._setup = _setup
    if card is not None:
        tw._engine.reel.pos = 16 * card + 10
        tw._engine.set_last_card(card)
    tw._engine.power(True)      # (CleanroomTower.power would make a new Game)
    first = min(e["t_script"] for e in presses)
    tw.advance(first - 0.001)
    for e in sorted(presses, key=lambda e: e["t_script"]):
        if e["t_script"] > tw.now:
            tw.advance(e["t_script"] - tw.now)
        (tw.press if e["action"] == "press" else tw.release)(e["button"])
    tw.advance(max(0.0, t_end - tw.now))
    click = next(e["t"] for e in events if e["type"] == "tone" and e["t"] >= first)
    ref = _window(events, first, t_end, click + 0.02)
    got = _window(tw.events(), first, t_end, click + 0.02)
    return Visit(ref, got, tw, compare(ref, got, TOLERANCE, end=t_end))


__all__ = ["CORPUS", "Visit", "load", "level_players", "recorded_cue", "visit"]
