"""Read a Dark Tower game out of its events: the prompts, the pictures by lamp and reel card,
the presses that answered, the sound cues; and the game's vocabularies of keys and items, once.

The events are ``captures.events``' (display, lamp, reel, tone, button...), from any tower:
the emulator, the clean-room game, a recording. What they mean in the game (the 1981 rulebook;
the corpus recordings for what the tower does when):

- **Pictures.** A lit lamp shows the picture of the reel's card behind it
  (``captures.darktower_facts.CARD_IMAGES``). The reel's card is reported on the next 1/60 s
  frame (MAME's frame-polled ``card_pos``), which can come just after the lamp lit: in 2,952
  of the 7,963 lightings of the 112 development sessions of the corpus, 15.2 ms after at
  most. So the card of a picture is the last one reported up to ``CARD_SETTLE_S`` (50 ms)
  after its lamp lit; any window from one frame to 0.2 s names the same cards there. Card 7
  is the blank card: no picture.
- **Numbers.** A number shown with a picture is the display 0.1 s after its lamp lit, when
  that is two digits (numbers show with a leading zero: ``05``).
- **Prompts.** A text the tower waits at (``read_prompt``): ``Ln``/``Pn`` the level and
  player-count menus, `` n`` player n's turn, ``-n`` the end of it, ``Cn`` the wizard's curse
  on player n, ``1 ``/``2 `` the riddle of the keys, ``--`` a bazaar offer (and the tower at
  power-on), two digits a count or a score.
- **Presses.** Each press answers the last text shown before it; whose turn it is follows
  the turn prompts.
- **Cues.** A cue is known by its first two notes (``CUE_NOTES``, within 1 %).

Example::

    game = GameEvents(read_events("session/events.jsonl"))
    [(p.t, p.name, p.number) for p in game.pictures]     # [(31.078, 'WARRIOR', None), ...]
    [(p.button, p.prompt, p.player) for p in game.presses]
    read_prompt(" 2")                                    # Prompt(kind='turn', n=2)
    game.cue_between(CUE_NOTES["battle horn"], 40.0, 45.0)       # time of the horn, or None
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Iterator, Sequence

from captures.darktower_facts import BUTTONS, CARD_IMAGES, LAMP_PINS

__all__ = ["BUTTONS", "ACTIONS", "BUTTON_SHORT", "LAMPS", "PICTURES", "PLACES", "REEL_CARDS",
           "KEYS", "SPECIALS", "BAZAAR_ITEMS", "TREASURES", "CUE_NOTES", "CARD_SETTLE_S",
           "NUMBER_AFTER_S", "picture", "settled_card", "LampChange", "lamp_changes",
           "Prompt", "read_prompt", "Picture", "Press", "GameEvents"]

# ---- the keys ---------------------------------------------------------------------------------

# The keys a player takes a turn with (rulebook: a turn is one of these; REPEAT and CLEAR
# are answered at a turn prompt too).
ACTIONS = ("MOVE", "TOMB/RUIN", "SANCTUARY/CITADEL", "BAZAAR", "FRONTIER", "INVENTORY",
           "DARK TOWER", "REPEAT", "CLEAR")
# Short names of the keys (as the corpus README abbreviates them).
BUTTON_SHORT = {"YES/BUY": "Y", "NO/END": "N", "REPEAT": "Rep", "HAGGLE": "H",
                "BAZAAR": "Bz", "CLEAR": "Cl", "TOMB/RUIN": "T", "MOVE": "M",
                "SANCTUARY/CITADEL": "S", "DARK TOWER": "DT", "FRONTIER": "F",
                "INVENTORY": "I"}

# ---- the pictures and the items -------------------------------------------------------------

LAMPS = tuple(LAMP_PINS)             # upper, middle, lower: the reel's windows top to bottom
# (card_pos, lamp) -> picture; picture -> (card_pos, lamp); card_pos -> its three pictures
# top to bottom ('' for the blank card 7).
PICTURES: dict[tuple[int, str], str] = {
    (card, lamp): CARD_IMAGES[lamp][card]
    for card in range(8) for lamp in LAMPS if CARD_IMAGES[lamp][card]
}
PLACES: dict[str, tuple[int, str]] = {name: place for place, name in PICTURES.items()}
REEL_CARDS: dict[int, tuple[str, ...]] = {
    card: tuple(CARD_IMAGES[lamp][card] for lamp in LAMPS) for card in range(8)
}
KEYS = ("GOLD KEY", "SILVER KEY", "BRASS KEY")      # the keys to the Dark Tower
SPECIALS = ("BEAST", "SCOUT", "HEALER")             # bought once, kept
BAZAAR_ITEMS = ("WARRIOR", "FOOD") + SPECIALS       # what the bazaar offers, in its order
# A treasure's picture -> the kind of treasure (a tomb's or a won battle's).
TREASURES = {"GOLD": "gold", "BRASS KEY": "key", "SILVER KEY": "key", "GOLD KEY": "key",
             "PEGASUS": "pegasus", "SWORD": "sword", "WIZARD": "wizard"}

# ---- the cues -----------------------------------------------------------------------------------

# The first two notes (Hz) of the cues a game is read by, measured on the corpus recordings.
CUE_NOTES = {"battle horn": (520.8, 787.0), "skirmish won": (276.7, 407.1),
             "skirmish lost": (278.9, 203.5)}
CUE_TOLERANCE = 0.01

CARD_SETTLE_S = 0.05       # a picture's card: the last reported up to this after its lamp
NUMBER_AFTER_S = 0.1       # a picture's number: the display this long after its lamp


def picture(card: int | None, lamp: str) -> str | None:
    """Return the picture ``lamp`` lights at reel card ``card`` (None: the blank card or an
    unknown card)."""
    return PICTURES.get((card, lamp))


def settled_card(events: Sequence[dict], i: int, card: int | None,
                 settle_s: float = CARD_SETTLE_S) -> int | None:
    """Return the reel card behind the lamp lit by ``events[i]`` (time-sorted events): the
    last ``card_pos`` reported up to ``settle_s`` after it; ``card`` is the last one
    reported before it (None: none)."""
    until = events[i]["t"] + settle_s
    for e in events[i + 1:]:
        if e["t"] > until:
            break
        if e["type"] == "reel":
            card = e["card_pos"]
    return card


@dataclass(frozen=True)
class LampChange:
    """A lamp switched at ``t`` (``on``), with the reel card behind it and its picture (None
    when the card is blank or unknown)."""
    t: float
    lamp: str
    on: bool
    card: int | None
    name: str | None


def lamp_changes(events: Sequence[dict], settle_s: float = CARD_SETTLE_S
                 ) -> Iterator[LampChange]:
    """Yield every lamp event of ``events`` (sorted by time here) with the picture it lights
    (the card settled as :func:`settled_card` says; a lamp switched off gets its card too)."""
    events = sorted(events, key=lambda e: e["t"])
    card = None
    for i, e in enumerate(events):
        if e["type"] == "reel":
            card = e["card_pos"]
        elif e["type"] == "lamp":
            behind = settled_card(events, i, card, settle_s)
            yield LampChange(e["t"], e["lamp"], bool(e["on"]), behind, picture(behind, e["lamp"]))


# ---- prompts ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Prompt:
    """What a text the tower waits at asks: ``kind`` and the player or stage ``n`` (None
    for an offer or a number)."""
    kind: str
    n: int | None = None


_LETTER_KINDS = {"L": "level", "P": "players", " ": "turn", "-": "turn end", "C": "curse"}


def read_prompt(text: str) -> Prompt | None:
    """Return what the two-character display ``text`` asks (see the module docstring):
    kinds level, players, turn, turn end, curse (with n = 1-4), riddle (n = 1 or 2), offer,
    number; None for any other text."""
    if len(text) != 2:
        return None
    if text[0] in _LETTER_KINDS and text[1] in "1234":
        return Prompt(_LETTER_KINDS[text[0]], int(text[1]))
    if text in ("1 ", "2 "):
        return Prompt("riddle", int(text[0]))
    if text == "--":
        return Prompt("offer")
    if text.isdigit():
        return Prompt("number")
    return None


# ---- a whole game -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Picture:
    """A picture lit at ``t`` by ``lamp``, with the number shown with it (None: none)."""
    t: float
    name: str
    number: int | None
    lamp: str = ""


@dataclass(frozen=True)
class Press:
    """A key pressed at ``t``, the text it answers (the last shown before it; '' if none) and
    whose turn it was (0 before the first turn)."""
    t: float
    button: str
    prompt: str
    player: int


class GameEvents:
    """One game's events indexed by what they mean: texts shown, pictures with their
    numbers, presses with their prompts, tones (see the module docstring)."""

    def __init__(self, events: Sequence[dict], settle_s: float = CARD_SETTLE_S) -> None:
        events = sorted(events, key=lambda e: e["t"])
        self.displays = [(e["t"], e["text"]) for e in events if e["type"] == "display"]
        self._dt = [t for t, _ in self.displays]
        self.tones = [(e["t"], e["freq_hz"], e["dur_s"]) for e in events if e["type"] == "tone"]
        self._tt = [t for t, _, _ in self.tones]
        self.pictures: list[Picture] = []
        for ch in lamp_changes(events, settle_s):
            if ch.on and ch.name is not None:
                text = self.text_at(ch.t + NUMBER_AFTER_S)
                self.pictures.append(Picture(ch.t, ch.name, int(text) if text.isdigit()
                                             else None, ch.lamp))
        self._pt = [p.t for p in self.pictures]
        self.presses: list[Press] = []
        player = 0
        for e in events:
            if e["type"] == "button" and e["action"] == "press":
                prompt = self.prompt_before(e["t"])
                if len(prompt) == 2 and prompt[0] == " " and prompt[1].isdigit():
                    player = int(prompt[1])
                self.presses.append(Press(e["t"], e["button"], prompt, player))
        self.end = events[-1]["t"] if events else 0.0

    def text_at(self, t: float) -> str:
        """Return the display text at time ``t`` (blank before the first)."""
        i = bisect.bisect_right(self._dt, t) - 1
        return self.displays[i][1] if i >= 0 else "  "

    def prompt_before(self, t: float) -> str:
        """Return the last non-blank text shown before ``t`` ('' if none)."""
        i = bisect.bisect_left(self._dt, t) - 1
        while i >= 0 and not self.displays[i][1].strip():
            i -= 1
        return self.displays[i][1] if i >= 0 else ""

    def pictures_in(self, a: float, b: float) -> list[Picture]:
        """Return the pictures lit in [a, b)."""
        return self.pictures[bisect.bisect_left(self._pt, a):bisect.bisect_left(self._pt, b)]

    def tones_in(self, a: float, b: float) -> list[tuple[float, float | None, float]]:
        """Return the tones ``(t, freq_hz or None for a click, dur_s)`` in [a, b)."""
        return self.tones[bisect.bisect_left(self._tt, a):bisect.bisect_left(self._tt, b)]

    def cue_between(self, notes: tuple[float, float], a: float, b: float) -> float | None:
        """Return the time of the first cue in [a, b) whose first two notes are ``notes``
        (each within 1 %), or None."""
        tones = self.tones_in(a, b)
        for (t, f, _), (_, g, _) in zip(tones, tones[1:]):
            if f is not None and g is not None and abs(f - notes[0]) <= CUE_TOLERANCE * notes[0] \
                    and abs(g - notes[1]) <= CUE_TOLERANCE * notes[1]:
                return t
        return None
