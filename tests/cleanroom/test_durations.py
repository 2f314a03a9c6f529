"""The durations the hidden state decides (timing decisions, cleanroom.game ``*_cycles``): each
range the game draws from covers every time the corpus shows, and the game's own value (the
offset 0) lies inside it, so the resolver never has to leave the rules to date an output."""
from __future__ import annotations

import functools
from pathlib import Path

import pytest

from captures.darktower_facts import NOMINAL_CLOCK_HZ
from captures.events import read_events
from captures.script import read_script
from cleanroom.cuefind import is_key_click
from cleanroom.choosers import is_timing_name
from cleanroom.stage import after_click
from cleanroom.params import PARAMS, param

CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus"
SESSIONS = sorted(p for p in CORPUS.iterdir() if (p / "events.jsonl").exists())
BEEP_HZ, HORN_HZ = 737.8, 520.8


@functools.lru_cache(maxsize=None)
def _events(folder: Path) -> list[dict]:
    """Return a corpus session's events, read once for all the tests here."""
    return read_events(str(folder / "events.jsonl"))


def _after_click(button: str) -> list[tuple[str, float]]:
    """Return (what, seconds) from each recorded click of ``button`` to the first lamp, motor
    or tone after it: what is 'beep', 'horn', 'lamp', 'motor' or another tone's frequency."""
    out = []
    for folder in SESSIONS:
        events = _events(folder)
        for press in read_script(str(folder / "script.txt")).actions:
            if getattr(press, "button", None) != button:
                continue
            clicks = [e["t"] for e in events if e["type"] == "tone" and is_key_click(e)
                      and press.t <= e["t"] < press.t + 0.1]
            if not clicks:
                continue
            nxt = next((e for e in events if clicks[0] < e["t"] < clicks[0] + 1.0
                        and e["type"] in ("tone", "motor", "lamp")), None)
            if nxt is None:
                continue
            what = nxt["type"]
            if what == "tone":
                what = {BEEP_HZ: "beep", HORN_HZ: "horn"}.get(nxt["freq_hz"], nxt["freq_hz"])
            out.append((what, nxt["t"] - clicks[0]))
    return out


def _covered(name: str, row, game_s: float, recorded: list[float]) -> None:
    lo, hi = param(name)[row] if row is not None else param(name)
    assert lo < 0 < hi, (name, row)
    for t in recorded:
        cycles = (t - game_s) * NOMINAL_CLOCK_HZ
        assert lo <= cycles <= hi, (name, row, t)


def test_every_timing_decision_has_a_parameter_row():
    names = {"skirmish_think_cycles", "players_setup_cycles", "move_think_cycles",
             "treasure_think_cycles", "riddle_think_cycles", "haggle_think_cycles",
             "spoils_think_cycles", "sanctuary_think_cycles"}
    assert names <= set(PARAMS) and all(is_timing_name(n) for n in names)


@pytest.mark.parametrize("what, row, game", [
    ("beep", "other", lambda: after_click("beep")),
    ("motor", "other", lambda: param("picture_after_click_s")),
    ("horn", "battle", lambda: after_click("battle_horn")),
])
def test_the_move_durations_cover_every_recorded_move(what, row, game):
    # a cursed player's MOVE brings CURSED instead, its reel 5.5 ms after the click
    recorded = [t for w, t in _after_click("MOVE") if w == what and t > 0.01]
    assert len(recorded) >= 40
    _covered("move_think_cycles", row, game(), recorded)


def test_the_haggle_durations_cover_every_recorded_haggle():
    got = _after_click("HAGGLE")
    won = [t for w, t in got if w == "lamp"]
    refused = [t for w, t in got if w == "motor" and t > 0.006]    # not food's 5.4 ms close
    assert len(won) >= 25 and len(refused) >= 10
    _covered("haggle_think_cycles", None, param("haggled_after_click_s"), won)
    _covered("haggle_think_cycles", None, param("haggle_refused_after_click_s"), refused)


def test_the_spoils_durations_cover_every_recorded_won_battle():
    from cleanroom.cues import CUES
    last = CUES["skirmish_won"].notes[-1][0]
    recorded = []
    for folder in SESSIONS:
        events = _events(folder)
        for i, e in enumerate(events):
            if e["type"] == "motor" and e["on"]:
                tones = [x for x in events[max(0, i - 6):i] if x["type"] == "tone"
                         and x.get("freq_hz")]
                if tones and abs(tones[-1]["freq_hz"] - last) < 1 and e["t"] - tones[-1]["t"] < 1:
                    recorded.append(e["t"] - tones[-1]["t"] - tones[-1]["dur_s"])
    assert len(recorded) >= 80
    _covered("spoils_think_cycles", None, param("gold_after_battle_s"), recorded)


def _trill_visits() -> list[tuple[str, float, dict, list[str]]]:
    """Return (session, the trill's end, what came next, the pictures before the next key)
    for each SANCTUARY/CITADEL trill of the corpus."""
    from cleanroom.cues import CUES
    from cleanroom.reel import CARDS
    trill = {round(note[0], 1) for note in CUES["trill"].notes}
    out = []
    for folder in SESSIONS:
        events = _events(folder)
        tones = [e for e in events if e["type"] == "tone" and e.get("freq_hz")
                 and round(e["freq_hz"], 1) in trill]
        ends = [a["t"] + a["dur_s"] for a, b in zip(tones, tones[1:] + [None])
                if b is None or b["t"] - a["t"] > 0.2]
        for end in ends:
            after = [e for e in events if end < e["t"] < end + 6.0]
            nxt = next(e for e in after if e["type"] in ("motor", "lamp", "tone")
                       and e.get("on", True))
            key = next((e["t"] for e in after if e["type"] == "button"), end + 6.0)
            card, pictures = None, []
            for e in after:
                if e["t"] >= key:
                    break
                if e["type"] == "reel":
                    card = e["card_pos"]
                elif e["type"] == "lamp" and e["on"]:
                    later = [x["card_pos"] for x in after if x["type"] == "reel"
                             and x["t"] <= e["t"] + 0.2]
                    pictures.append(CARDS.get((later[-1] if later else card, e["lamp"])))
            out.append((folder.name, end, nxt, pictures))
    return out


def test_the_sanctuary_bonus_durations_cover_every_recorded_bonus():
    """Levels 1-3 (no Citadel in the corpus there): the bonus pictures' first lamp or reel
    after the trill, per bonus drawn, around the game's time for it."""
    recorded = 0
    lo, hi = param("sanctuary_think_cycles")
    for session, end, nxt, pictures in _trill_visits():
        if session.startswith("l4") or not pictures:
            continue
        bonuses = len(pictures)
        tail = param("trill_tail_s")["picture" if nxt["type"] == "motor" else "picture_lamp"]
        game_s = tail + bonuses * param("sanctuary_bonus_cycles") / NOMINAL_CLOCK_HZ
        cycles = (nxt["t"] - end - game_s) * NOMINAL_CLOCK_HZ
        assert bonuses * lo <= cycles <= bonuses * hi, (session, end, cycles)
        recorded += 1
    assert recorded >= 4 and lo < 0 < hi


def test_the_citadel_doubles_at_the_game_s_time_after_the_trill():
    """Level 4: the doubled WARRIOR's reel, or its lamp when no turn is needed, within the
    trill's last note's rounding (0.1 ms) of the game's tail."""
    seen = 0
    for session, end, nxt, pictures in _trill_visits():
        if not session.startswith("l4") or pictures != ["WARRIOR"]:
            continue
        tail = param("trill_tail_s")["picture" if nxt["type"] == "motor" else "picture_lamp"]
        assert abs(nxt["t"] - end - tail) < 0.0003, (session, end)
        seen += 1
    assert seen >= 8


@pytest.mark.parametrize("cue, at_least", [("battle_horn", 90), ("frontier", 9),
                                           ("dark_tower", 25)])
def test_the_picture_after_the_cue_comes_at_the_measured_tail(cue, at_least):
    """The reel (or lamp) after the horn's, the FRONTIER cue's and the refusing DARK TOWER
    tune's last note: the catalogue's tail and ``tail_before_picture_s``, within the note
    duration's rounding (0.1 ms)."""
    from cleanroom.cues import CUES
    from cleanroom.params import SOUNDS
    last = CUES[cue].notes[-1][0]
    tail = SOUNDS[cue].tail_s + param("tail_before_picture_s")[cue]
    seen = 0
    for folder in SESSIONS:
        events = _events(folder)
        for i, e in enumerate(events):
            if not (e["type"] == "tone" and e.get("freq_hz") and abs(e["freq_hz"] - last) < 1):
                continue
            nxt = next((x for x in events[i + 1:i + 8] if x["type"] in ("motor", "lamp", "tone")
                        and x.get("on", True)), None)
            if nxt is None or nxt["type"] == "tone" or nxt["t"] - e["t"] > 2.0:
                continue
            if cue == "dark_tower" and folder.name.startswith("l4"):
                continue        # the riddle of the keys follows there (riddle_think_cycles)
            assert abs(nxt["t"] - e["t"] - e["dur_s"] - tail) < 0.0001, (folder.name, e["t"])
            seen += 1
    assert seen >= at_least
