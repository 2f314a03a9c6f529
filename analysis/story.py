"""Tell a session's story turn by turn, read from its events alone: who played, which key, the
pictures the tower lit with the numbers it showed beside them, and each battle's rounds.

The events are any tower's (a recording, a decoded capture, the emulator, the clean-room game):
the story needs display texts, lamps, reel cards and button presses, nothing of the game's
insides. How it reads them (the prompts are those of the 1981 tower, as the corpus shows them,
``tests/data/corpus/README.md``):

- a key press answers the prompt on the display just before it (the last text that was not
  blank: a flashing prompt blanks between its flashes): ``--`` after power-on starts the tower
  test, ``L1``-``L4`` and ``P1``-``P4`` choose the level and the players (YES/BUY picks, NO/END
  steps on), `` N`` is player N's turn (the key is the turn's action), ``-N`` the end of a
  turn, anything else a step inside the turn (the bazaar's ``--`` offer, a count, the curse's
  ``CN``, the riddle's ``1 ``);
- a lit lamp is a picture (``analysis.pictures``: the card in front of it), with the number
  the display shows while it is lit (``WARRIOR 10``);
- a battle is a run of WARRIORS and BRIGANDS pictures: each WARRIORS-then-BRIGANDS pair is one
  round (warriors v brigands after it); brigands at 00 is a won battle, a NO/END during it a
  retreat.

Example::

    for entry in session_story(read_events("tests/data/corpus/l1_p2_s05/events.jsonl")):
        print(entry.line())
    #   3.367  tower test
    #  13.483  level 1
    #  18.767  2 players
    #  24.850  player 1  INVENTORY: WARRIOR 10, FOOD 24, BEAST 30
    #  32.650  player 2  TOMB/RUIN: battle with BRIGANDS 10: 10 v 05, 10 v 02, 10 v 01,
    #                    10 v 00 (won), GOLD 46
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from analysis.pictures import BLANK, lit_pictures
from captures.darktower_game import read_prompt

__all__ = ["Shown", "Step", "Battle", "Entry", "session_story", "story_lines", "story_text"]

SAME_PRESS_S = 0.1     # presses of one key this close together are one (script and decoded)
NUMBER_AFTER_S = 0.2   # a picture's number may light this long after its lamp goes dark


def _kind(text: str) -> str | None:
    """Return what a display text asks as a prompt the tower waits at
    (``captures.darktower_game.read_prompt``: level, players, turn, turn end, curse, riddle,
    offer); None for a number or any other text."""
    prompt = read_prompt(text)
    return prompt.kind if prompt is not None and prompt.kind != "number" else None


@dataclass
class Shown:
    """Something the tower showed after a key: a picture (``picture``, with the ``number``
    shown beside it, "" for none) or a display text alone (``picture`` "")."""
    t: float
    picture: str
    number: str = ""

    def text(self) -> str:
        """Return it as "WARRIOR 10", "BLANK", or the number alone."""
        return " ".join(p for p in (self.picture, self.number) if p)


@dataclass
class Step:
    """A key press (``button``) at ``t`` seconds answering ``prompt``, and what followed."""
    t: float
    button: str
    prompt: str
    shown: list[Shown] = field(default_factory=list)


@dataclass
class Battle:
    """A battle's rounds as (t, warriors, brigands) after each round, the brigands it began
    with ("" when not shown) and how it ended: "won", "retreated" or "ended"."""
    t: float
    brigands: str
    rounds: list[tuple[float, str, str]]
    outcome: str
    items: list[Shown] = field(default_factory=list, repr=False, compare=False)

    def text(self) -> str:
        """Return "battle with BRIGANDS 10: 10 v 05, 10 v 02 (won)"."""
        rounds = ", ".join(f"{w} v {b}" for _, w, b in self.rounds)
        first = f" with BRIGANDS {self.brigands}" if self.brigands else ""
        return f"battle{first}: {rounds} ({self.outcome})"


@dataclass
class Entry:
    """One line of the story: a setup step or a player's turn, from ``t`` to ``end`` seconds.

    ``player`` is the player (None for setup), ``action`` the key that began it (or what the
    setup chose: "tower test", "level 1", "2 players", "power off"), ``steps`` every key of
    the turn with what it showed, ``battles`` the battles fought in it.
    """
    t: float
    end: float
    player: int | None
    action: str
    steps: list[Step] = field(default_factory=list)
    battles: list[Battle] = field(default_factory=list)

    def what(self) -> str:
        """Return what happened in the turn after its key, as one text: the pictures with
        their numbers, each battle as its rounds, and the later keys with what they showed."""
        in_battle = {id(item): b for b in self.battles for item in b.items}
        parts: list[str] = []
        for i, step in enumerate(self.steps):
            if i > 0 and step.button == "NO/END" and _kind(step.prompt) == "turn end" \
                    and not step.shown:
                continue                      # the turn's end: no news
            shown: list[str] = []
            for item in step.shown:
                battle = in_battle.get(id(item))
                if battle is None:
                    shown.append(item.text())
                elif item is battle.items[0]:
                    shown.append(battle.text())
            text = ", ".join(shown)
            parts.append(text if i == 0 else f"{step.button}" + (f": {text}" if text else ""))
        return "; ".join(p for p in parts if p)

    def line(self) -> str:
        """Return the entry as one line: time, who, the key and what followed."""
        who = f"player {self.player}" if self.player else ""
        what = self.what()
        body = f"{self.action}: {what}" if what else self.action
        return f"{self.t:8.3f}  {who:<9} {body}".rstrip()

    def as_dict(self) -> dict:
        """Return the entry for a JSON page: t, end, player, action, what, battles."""
        return {"t": self.t, "end": self.end, "player": self.player, "action": self.action,
                "what": self.what(), "battles": [
                    {"t": b.t, "brigands": b.brigands, "outcome": b.outcome,
                     "rounds": [[t, w, br] for t, w, br in b.rounds]} for b in self.battles]}


def _presses(events: Sequence[dict]) -> list[tuple[float, str]]:
    """Return the key presses (t, button), one per press (a script's and a decoder's press of
    one key within ``SAME_PRESS_S`` are the same)."""
    out: list[tuple[float, str]] = []
    for e in events:
        if e["type"] == "button" and e["action"] == "press":
            if any(b == e["button"] and e["t"] - t < SAME_PRESS_S for t, b in out[-3:]):
                continue
            out.append((e["t"], e["button"]))
    return out


def _texts(events: Sequence[dict]) -> list[tuple[float, str]]:
    return [(e["t"], e["text"]) for e in events if e["type"] == "display"]


def _prompt_before(texts: list[tuple[float, str]], t: float) -> str:
    """Return the last non-blank display text shown at or before ``t``."""
    prompt = ""
    for tt, text in texts:
        if tt > t + 1e-9:
            break
        if text.strip():
            prompt = text
    return prompt


def _shown_between(events: Sequence[dict], texts: list[tuple[float, str]], a: float,
                   b: float, end: float) -> list[Shown]:
    """Return the pictures lit and the numbers shown without a picture from ``a`` to ``b``."""
    lits = [lit for lit in lit_pictures(events, end) if a <= lit.start < b]
    out: list[Shown] = []
    covered: list[tuple[float, float]] = []
    for lit in lits:
        number = ""
        for tt, text in texts:
            if lit.start <= tt <= lit.end + NUMBER_AFTER_S and text.strip():
                number = text.strip() if not _kind(text) else ""
                break
            if tt > lit.end + NUMBER_AFTER_S:
                break
        name = lit.picture if lit.picture else "a picture (reel position unknown)"
        if out and out[-1].t == lit.start and out[-1].picture == name.upper():
            continue
        out.append(Shown(lit.start, name.upper() if name != BLANK else "BLANK", number))
        covered.append((lit.start, lit.end + NUMBER_AFTER_S))
    last = ""
    for tt, text in texts:
        if not a <= tt < b or not text.strip() or _kind(text):
            continue
        if any(s <= tt <= e for s, e in covered) or text == last:
            continue
        last = text
        out.append(Shown(tt, "", text.strip()))
    return sorted(out, key=lambda s: s.t)


def _battles(entry: Entry) -> list[Battle]:
    """Find the battles of a turn: runs of WARRIORS/BRIGANDS pictures (module doc)."""
    shown = [(s, step) for step in entry.steps for s in step.shown]
    out: list[Battle] = []
    i = 0
    while i < len(shown):
        first = i
        brigands = ""
        if shown[i][0].picture == "BRIGANDS" and i + 1 < len(shown) and \
                shown[i + 1][0].picture == "WARRIORS":
            brigands = shown[i][0].number
            i += 1
        rounds = []
        while i + 1 < len(shown) and shown[i][0].picture == "WARRIORS" and \
                shown[i + 1][0].picture == "BRIGANDS":
            rounds.append((shown[i][0].t, shown[i][0].number, shown[i + 1][0].number))
            i += 2
        if not rounds:
            i = first + 1
            continue
        t0, t1 = shown[first][0].t, rounds[-1][0]
        retreat = any(step.button == "NO/END" and t0 <= step.t <= t1 + 3.0
                      for step in entry.steps[1:])
        outcome = ("won" if rounds[-1][2] in ("00", "0") else
                   "retreated" if retreat else "ended")
        out.append(Battle(shown[first][0].t, brigands, rounds, outcome,
                          [item for item, _ in shown[first:i]]))
    return out


def session_story(events: Sequence[dict]) -> list[Entry]:
    """Return the story of a session (module doc): one entry per setup step and per turn."""
    events = sorted(events, key=lambda e: e["t"])
    if not events:
        return []
    from analysis.plot import session_end

    end = session_end(events)
    texts = _texts(events)
    presses = _presses(events)
    entries: list[Entry] = []
    current: Entry | None = None
    for k, (t, button) in enumerate(presses):
        nxt = presses[k + 1][0] if k + 1 < len(presses) else end + 1e-6
        prompt = _prompt_before(texts, t)
        step = Step(t, button, prompt, _shown_between(events, texts, t, nxt, end))
        asked = read_prompt(prompt)
        kind = asked.kind if asked is not None else None
        setup = None
        if prompt == "--" and not entries and current is None:
            setup = "tower test"
        elif kind == "level" and button == "YES/BUY":
            setup = f"level {asked.n}"
        elif kind == "players" and button == "YES/BUY":
            setup = f"{asked.n} player{'s' if asked.n > 1 else ''}"
        elif kind in ("level", "players") and current is None:
            continue                              # stepping through the choices
        if setup is not None:
            current = None
            entries.append(Entry(t, nxt, None, setup, [step]))
        elif kind == "turn":
            current = Entry(t, nxt, asked.n, button, [step])
            entries.append(current)
        elif current is not None:
            current.steps.append(step)
            current.end = nxt
        else:
            entries.append(Entry(t, nxt, None, f"{button} at {prompt or 'a dark display'}",
                                 [step]))
    for e in events:
        if e["type"] == "power" and (e["t"] > 0 or not e["on"]):
            entries.append(Entry(e["t"], e["t"], None, f"power {'on' if e['on'] else 'off'}"))
    entries.sort(key=lambda en: en.t)
    for entry in entries:
        entry.battles = _battles(entry)
    return entries


def story_lines(events: Sequence[dict]) -> list[str]:
    """Return the story as text lines (``Entry.line``)."""
    return [entry.line() for entry in session_story(events)]


def story_text(events: Sequence[dict]) -> str:
    """Return the story as one text, a line per entry (empty when nothing was pressed)."""
    return "\n".join(story_lines(events))
