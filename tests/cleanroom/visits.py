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
from cleanroom.reel import CARDS
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


FRAME_S = 1 / 60


def drop_partial_frames(events: list[dict]) -> list[dict]:
    """Return ``events`` without the display texts the decoder caught half-changed.

    When the tower rewrites its digits inside a frame, the decoder may report one or two
    frames of a mixed text: ``'0 '`` between ``'01'`` and ``'02'`` (l2_p3_s10 370.383),
    ``' 1'`` before ``'-1'`` lights up (l2_p1_s02 313.733), ``'-5'`` between ``'05'`` and the
    ``'--'`` that follows (l2_p1_s26 349.000), ``'- '`` for ``'--'`` (l1_p3_s09 84.267,
    l2_p3_s10 350.100).  Such a text lasts at most 2 frames, differs from the non-blank texts
    shown less than 0.6 s before and after it, and each of its characters is blank or the
    one at its place in one of those two.
    """
    shown = [e for e in events if e["type"] == "display"]
    drop = set()
    for i in range(1, len(shown) - 1):
        cur = shown[i]
        if shown[i + 1]["t"] - cur["t"] > 2 * FRAME_S + 1e-3 or not cur["text"].strip():
            continue
        after = next((e["text"] for e in shown[i + 1:] if e["text"].strip()
                      and e["t"] - cur["t"] < 0.6), "  ")
        before = "  "
        for j in range(i - 1, -1, -1):
            if cur["t"] - shown[j + 1]["t"] >= 0.6:
                break
            if shown[j]["text"].strip():
                before = shown[j]["text"]
                break
        if cur["text"] in (before, after):
            continue
        if all(c in (" ", a, b) for c, a, b in zip(cur["text"], before, after)):
            drop.add(id(cur))
    return [e for e in events if id(e) not in drop]


@dataclass
class Step:
    """One thing a recorded visit shows: a key press, a picture, a number, a prompt."""
    t: float
    kind: str       # "press", "picture", "text"
    value: str


def steps(events: list[dict]) -> list[Step]:
    """Return the presses, pictures (named by the reel position reported up to 0.2 s after
    the lamp: the reel event comes a frame late) and non-blank texts of ``events``."""
    reels = [(e["t"], e["card_pos"]) for e in events if e["type"] == "reel"]
    out: list[Step] = []
    j, card = 0, None
    for e in events:
        if e["type"] == "lamp" and e["on"]:
            while j < len(reels) and reels[j][0] <= e["t"] + 0.2:
                card = reels[j][1]
                j += 1
            out.append(Step(e["t"], "picture", CARDS.get((card, e["lamp"]), "?")))
        elif e["type"] == "display" and e["text"].strip():
            if not (out and out[-1].kind == "text" and out[-1].value == e["text"]):
                out.append(Step(e["t"], "text", e["text"]))
        elif e["type"] == "button" and e["action"] == "press":
            out.append(Step(e["t"], "press", e["button"]))
    return out


@dataclass
class RecordedVisit:
    """One press of an action key at a turn prompt, up to the turn's end signal."""
    session: str
    t_press: float
    player: int
    t_end: float            # the end signal (or the next turn prompt) first shows
    steps: list[Step]


PROMPT_AFTER_PRESS_S = 0.06


def _turn_text(text: str) -> tuple[str, int] | None:
    if len(text) == 2 and text[0] in " -" and text[1] in "1234":
        return text[0], int(text[1])
    return None


def recorded_visits(session: str, button: str) -> list[RecordedVisit]:
    """Return every visit of ``session`` that starts with ``button`` at a turn prompt ` N` and
    ends with an end signal `-N` or the next turn prompt (the session's last one may not)."""
    all_steps = steps(drop_partial_frames(load(session)))
    out, prompt = [], None
    for i, st in enumerate(all_steps):
        turn = _turn_text(st.value) if st.kind == "text" else None
        if turn:
            prompt = turn
        if not (st.kind == "press" and st.value == button and prompt and prompt[0] == " "):
            continue
        # the prompt may still show until the key's click (26-50 ms, l1_p1_s01 260.983)
        rest = [x for x in all_steps[i + 1:] if not (x.t < st.t + PROMPT_AFTER_PRESS_S and
                                                    x.kind == "text" and _turn_text(x.value))]
        for k, x in enumerate(rest):
            if x.kind == "text" and _turn_text(x.value):
                out.append(RecordedVisit(session, st.t, prompt[1], x.t, rest[:k]))
                break
    return out


def visit(session: str, t_press: float, t_end: float, player: int = 1,
          inventory: dict | None = None, **outcomes) -> Visit:
    """Replay the recorded keys of ``session`` from ``t_press`` (s) to ``t_end`` (s) on the game.

    ``player``: whose turn it is (1-4); ``inventory``: that player's fields at the start of
    the turn, after the turn's rations are eaten; ``outcomes``: the random decisions, as for
    ScriptedChooser.  The comparison covers the outputs from the key's click to ``t_end``.
    """
    return _visit(load(session), session, t_press, t_end, player, inventory, outcomes)


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
    setup = game.setup

    def _setup(lv: int, count: int) -> None:
        setup(lv, count)
        game.current = player - 1
        p = game.players[player - 1]
        for name, value in (inventory or {}).items():
            setattr(p, name, value)
        p.food += food_per_turn(p.warriors)     # the turn's meal is eaten before the prompt

    game.setup = _setup
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
    # each side's prompt flashes until its own click (the game's may come a scan earlier or
    # later: it starts at an arbitrary phase of its key loop)
    click = next(e["t"] for e in events if e["type"] == "tone" and e["t"] >= first)
    game_click = next((e["t"] for e in tw.events() if e["type"] == "tone" and e["t"] >= first),
                      click)
    ref = _window(drop_partial_frames(events), first, t_end, click + 0.02)
    got = _window(drop_partial_frames(tw.events()), first, t_end, game_click + 0.02)
    return Visit(ref, got, tw, compare(ref, got, TOLERANCE, end=t_end))


__all__ = ["CORPUS", "Visit", "Step", "RecordedVisit", "load", "level_players",
           "drop_partial_frames", "steps", "recorded_visits", "visit"]
