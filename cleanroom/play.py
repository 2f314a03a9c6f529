"""Play the clean-room tower in a terminal, one line per key press.

Each input line is a button name as printed on the key (``YES/BUY``, ``MOVE``, ``DARK TOWER``;
case and the slash are optional: ``yes``, ``no``, ``tomb`` and ``dark`` also work), ``wait S``
(let S seconds pass), ``off``/``on`` (power) or ``quit``.  After each line the tower runs until it
waits for a key again, and what it showed is printed as the player would see and hear it::

    [display  -1 flashing]  [lamp GOLD 16]  [sound end_turn]
"""
from __future__ import annotations

from typing import IO

from captures.script import BUTTONS

from .reel import CARDS
from .tower import CleanroomError, CleanroomTower

__all__ = ["ALIASES", "HELP", "parse_key", "observations", "describe_events", "play_terminal",
           "settle"]

ALIASES = {
    "yes": "YES/BUY", "buy": "YES/BUY", "no": "NO/END", "end": "NO/END", "repeat": "REPEAT",
    "haggle": "HAGGLE", "bazaar": "BAZAAR", "clear": "CLEAR", "tomb": "TOMB/RUIN",
    "ruin": "TOMB/RUIN", "move": "MOVE", "sanctuary": "SANCTUARY/CITADEL",
    "citadel": "SANCTUARY/CITADEL", "dark": "DARK TOWER", "tower": "DARK TOWER",
    "frontier": "FRONTIER", "inventory": "INVENTORY",
}

HOLD_S = 0.2
MAX_RUN_S = 60.0
COMMANDS = ("wait S", "off", "on", "quit", "help")    # the words besides the keys
HELP = ("Keys: yes no repeat haggle bazaar clear tomb move sanctuary dark frontier inventory; "
        + "; ".join(COMMANDS))


def parse_key(word: str) -> str:
    """Return the button named by ``word`` (a BUTTONS name or an alias); raise on others."""
    name = " ".join(word.split()).upper()
    if name in BUTTONS:
        return name
    alias = ALIASES.get(name.lower().split("/")[0].split()[0]) if name else None
    if alias is None:
        raise CleanroomError(f"unknown key {word!r} (expected one of {', '.join(BUTTONS)}; "
                             f"or {', '.join(COMMANDS)})")
    return alias


def observations(events: list[dict], start: int = 0) -> list[tuple[str, str]]:
    """Return what a player notices in ``events[start:]``, in order.

    Items are ``("picture", name)`` when a lamp lights (name from the reel's card and the
    lamp), ``("display", text)`` for each non-blank text (a flashing text once), and
    ``("sound", cue)`` once per cue (key clicks left out).
    """
    out: list[tuple[str, str]] = []
    card = 0
    cue = None
    last_text = None
    for i, ev in enumerate(events):
        kind = ev["type"]
        if kind == "reel":
            card = ev["card_pos"]
        if i < start:
            continue
        if kind == "lamp" and ev["on"]:
            now = card      # the reel's report lands on the next 1/60 s frame, after the lamp
            for later in events[i + 1:]:
                if later["t"] > ev["t"] + 0.02:
                    break
                if later["type"] == "reel":
                    now = later["card_pos"]
            # card 7 is the reel's blank card, lit by the tower test (docs/dark-tower-wiring.md §6)
            out.append(("picture", CARDS.get((now, ev["lamp"]), "(void)")))
            last_text = None
        elif kind == "display" and ev["text"].strip():
            if ev["text"] != last_text:
                out.append(("display", ev["text"]))
            last_text = ev["text"]
        elif kind == "tone":
            name = ev.get("cue", "tone")
            if name != "click" and name != cue:
                out.append(("sound", name))
            cue = name
        elif kind == "button" and ev["action"] == "press":
            last_text = None
            cue = None
    return out


def describe_events(events: list[dict], start: int = 0) -> list[str]:
    """Return :func:`observations` as text lines."""
    return [f"{kind} {value!r}" if kind == "display" else f"{kind} {value}"
            for kind, value in observations(events, start)]


def _wait_seconds(line: str) -> float:
    """Return the seconds of a ``wait [S]`` line (default 1 s); raise CleanroomError naming
    the value when it is not a number of seconds from 0 to 3600."""
    parts = line.split()
    if len(parts) == 1:
        return 1.0
    try:
        seconds = float(parts[1])
    except ValueError:
        seconds = float("nan")
    if len(parts) > 2 or not 0 <= seconds <= 3600:
        raise CleanroomError(f"wait {' '.join(parts[1:])!r}: expected seconds from 0 to 3600, "
                             f"e.g. 'wait 2.5'")
    return seconds


def settle(tower: CleanroomTower) -> None:
    """Advance until the game waits for a key (and one flash has shown), at most 60 s."""
    run = 0.0
    while run < MAX_RUN_S:
        tower.advance(0.1)
        run += 0.1
        if tower.waiting():
            tower.advance(0.3)
            return


def _is_terminal(infile: IO[str]) -> bool:
    try:
        return infile.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def _lines(infile: IO[str], out: IO[str], echo: bool):
    """Yield the input's lines, each after a ``> `` prompt (followed by the line itself when
    ``echo``); end the prompt's line at the end of input."""
    while True:
        out.write("> ")
        out.flush()
        raw = infile.readline()
        if not raw:
            out.write("\n")
            return
        if echo:
            out.write(raw if raw.endswith("\n") else raw + "\n")
        yield raw


def play_terminal(tower: CleanroomTower, infile: IO[str], out: IO[str],
                  strict: bool = False) -> int:
    """Run the line-driven game on ``tower``; return 0 at quit or end of input. A bad line
    is said and skipped at a terminal; with ``strict`` (a file of keys) it raises
    CleanroomError naming the file and line, as a bad input file must. Lines that do not
    come from a terminal are echoed after their prompt, so the output reads as a session;
    at the end of input, or Ctrl-C, the prompt's line is ended for the shell's prompt."""
    try:
        return _play_lines(tower, infile, out, strict)
    except KeyboardInterrupt:
        out.write("\n")         # after the terminal's ^C, for the shell's prompt
        out.flush()
        raise


def _play_lines(tower: CleanroomTower, infile: IO[str], out: IO[str], strict: bool) -> int:
    seen = len(tower.events())
    settle(tower)
    name = getattr(infile, "name", "input")
    echo = not _is_terminal(infile)
    number = 0
    for raw in _lines(infile, out, echo):
        number += 1
        line = raw.strip()
        if not line:
            continue
        word = line.lower()
        try:
            if word in ("quit", "exit", "q"):
                return 0
            if word in ("help", "?"):
                out.write(HELP + "\n")
                continue
            if word.startswith("wait"):
                tower.advance(_wait_seconds(word))
            elif word in ("on", "off"):
                tower.power(word == "on")
                settle(tower)
            else:
                key = parse_key(line)
                tower.press(key)
                tower.advance(HOLD_S)
                tower.release(key)
                settle(tower)
        except (CleanroomError, ValueError) as exc:
            if strict:
                raise CleanroomError(f"{name}:{number}: {str(exc).splitlines()[0]}") from None
            out.write(f"{str(exc).splitlines()[0]}\n")
            continue
        events = tower.events()
        for text in describe_events(events, seen):
            out.write(f"  {text}\n")
        seen = len(events)
    return 0
