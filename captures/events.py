"""Write and read what the tower shows, as events (JSON-lines, one event per line, ``t`` in seconds).

This is the vocabulary shared by the emulator's board model, the pin decoders in ``analysis``,
the clean-room game and the rig. It follows ``tests/data/captures/README.md``:

    {"t": 11.817, "type": "display", "text": "L1"}           two characters, space = blank digit
    {"t": 6.536, "type": "lamp", "lamp": "upper", "on": 1}  upper = R7, middle = R6, lower = R5
    {"t": 3.067, "type": "motor", "on": 1}                  R9
    {"t": 3.083, "type": "reel", "card_pos": 7}             reel card position 0-7
    {"t": 3.062, "type": "tone", "freq_hz": 431.9, "dur_s": 0.0046, "pulses": 2}
                                                            freq_hz null = a click
    {"t": 3.017, "type": "button", "button": "YES/BUY", "action": "press"}
    {"t": 0.0, "type": "power", "on": 1}
    {"t": 9.2, "type": "gap", "dur_s": 0.3, "reason": "probe unplugged"}

The Return to Dark Tower adds calibration, drum, rotation, led, sound, sequence, skull,
battery, link and notice (documented with examples in ``captures/rtdt.py``).

Extra fields are allowed and kept (e.g. ``t_script``, ``note``, ``flashing``).
"""
from __future__ import annotations

import json
import os
from typing import IO, Any, Iterable, Iterator

__all__ = [
    "EVENT_TYPES", "LAMPS", "DISPLAY_CHARS", "EventError", "make_event", "validate_event",
    "read_events", "iter_events", "write_events", "EventWriter", "dumps_event",
    "recording_events_file", "recordings_in",
]

LAMPS = ("upper", "middle", "lower")
MAX_LINE_CHARS = 1 << 20   # one event is ~100 characters; a longer line is not an event
DISPLAY_CHARS = "0123456789CPL- "

# Required fields per event type and their accepted Python types.
EVENT_TYPES: dict[str, dict[str, tuple[type, ...]]] = {
    "display": {"text": (str,)},
    "lamp": {"lamp": (str,), "on": (int,)},
    "motor": {"on": (int,)},
    "reel": {"card_pos": (int,)},
    "tone": {"freq_hz": (int, float, type(None)), "dur_s": (int, float)},
    "button": {"button": (str,), "action": (str,)},
    "power": {"on": (int,)},
    "gap": {"dur_s": (int, float), "reason": (str,)},
    # Return to Dark Tower (captures/rtdt.py)
    "calibration": {"done": (int,)},
    "drum": {"drum": (str,), "position": (str,), "calibrated": (int,)},
    "rotation": {"ms": (int,)},
    "led": {"layer": (str,), "light": (str,), "effect": (str,), "loop": (int,)},
    "sound": {"sound": (int,), "loop": (int,)},
    "sequence": {"sequence": (int,)},
    "skull": {"count": (int,), "drop": (int,)},
    "battery": {"mv": (int,), "percent": (int,)},
    "link": {"up": (int,), "reason": (str,)},
    "notice": {"kind": (str,), "data": (str,)},
}


class EventError(ValueError):
    """An event or an events file is malformed; the message names where and what was expected."""


def make_event(t: float, type: str, **fields: Any) -> dict:
    """Build an event dict with ``t`` (seconds) and ``type`` first, then the fields."""
    return {"t": round(float(t), 6), "type": type, **fields}


def validate_event(ev: Any, where: str = "event") -> dict:
    """Check one event against the vocabulary; raise EventError naming ``where`` on a problem."""
    if not isinstance(ev, dict):
        raise EventError(f"{where}: expected a JSON object, got {type(ev).__name__}")
    t = ev.get("t")
    if not isinstance(t, (int, float)) or isinstance(t, bool) or t != t or t < 0:
        raise EventError(f"{where}: 't' must be a number of seconds >= 0, got {t!r}")
    kind = ev.get("type")
    if kind not in EVENT_TYPES:
        raise EventError(f"{where}: unknown event type {kind!r} (expected one of "
                         f"{', '.join(sorted(EVENT_TYPES))})")
    for name, types in EVENT_TYPES[kind].items():
        if name not in ev:
            raise EventError(f"{where}: {kind} event has no {name!r} field")
        if not isinstance(ev[name], types) or isinstance(ev[name], bool):
            raise EventError(f"{where}: {kind}.{name} = {ev[name]!r} has the wrong type")
    if kind == "display":
        text = ev["text"]
        if len(text) != 2 or any(c not in DISPLAY_CHARS for c in text):
            raise EventError(f"{where}: display text {text!r} must be two characters from "
                             f"{DISPLAY_CHARS!r}")
    elif kind == "lamp" and ev["lamp"] not in LAMPS:
        raise EventError(f"{where}: lamp {ev['lamp']!r} must be one of {', '.join(LAMPS)}")
    elif kind == "reel" and not 0 <= ev["card_pos"] <= 7:
        raise EventError(f"{where}: reel card_pos {ev['card_pos']} must be 0-7")
    elif kind == "button" and ev["action"] not in ("press", "release"):
        raise EventError(f"{where}: button action {ev['action']!r} must be press or release")
    return ev


def dumps_event(ev: dict) -> str:
    """Return one event as a compact JSON line (no newline)."""
    return json.dumps(ev, separators=(", ", ": "))


def iter_events(fileobj: IO[str], name: str = "events") -> Iterator[dict]:
    """Yield validated events from a JSON-lines text stream; blank lines are skipped."""
    lines = iter(lambda: fileobj.readline(MAX_LINE_CHARS + 1), "")
    for lineno, line in enumerate(lines, 1):
        if len(line) > MAX_LINE_CHARS:
            raise EventError(f"{name}:{lineno}: line longer than {MAX_LINE_CHARS} characters "
                             f"(expected one JSON event per line)")
        line = line.strip()
        if not line:
            continue
        try:
            ev = json.loads(line)
        except json.JSONDecodeError as exc:
            raise EventError(f"{name}:{lineno}: not JSON ({exc.msg})") from None
        yield validate_event(ev, f"{name}:{lineno}")


def read_events(source: str | IO[str], name: str | None = None) -> list[dict]:
    """Read a whole events file (path or text stream) into a list of event dicts."""
    if isinstance(source, str):
        try:
            with open(source, encoding="utf-8") as f:
                return list(iter_events(f, name or source))
        except OSError as exc:
            raise EventError(f"{source}: cannot read ({exc.strerror})") from None
        except UnicodeDecodeError as exc:
            raise EventError(f"{source}: not a JSON-lines events file (not UTF-8: byte "
                             f"{exc.start} is 0x{exc.object[exc.start]:02x})") from None
    return list(iter_events(source, name or getattr(source, "name", "events")))


def write_events(events: Iterable[dict], fileobj: IO[str]) -> int:
    """Write events as JSON lines; return how many were written."""
    n = 0
    for ev in events:
        fileobj.write(dumps_event(ev) + "\n")
        n += 1
    return n


class EventWriter:
    """Append events to a JSON-lines file, flushing each line so a crash loses nothing written."""

    def __init__(self, fileobj: IO[str]):
        self._f = fileobj
        self.count = 0

    def write(self, ev: dict) -> None:
        """Write one event and flush it."""
        self._f.write(dumps_event(ev) + "\n")
        self._f.flush()
        self.count += 1


def recording_events_file(folder: str) -> str | None:
    """Return the events file of a recording folder: its ``events.jsonl``, or that of the
    one recording folder inside it (as the lab returns a request's one session); None when
    ``folder`` is not a folder or holds neither."""
    if not os.path.isdir(folder):
        return None
    own = os.path.join(folder, "events.jsonl")
    if os.path.isfile(own):
        return own
    inner = [os.path.join(folder, d, "events.jsonl") for d in sorted(os.listdir(folder))
             if os.path.isfile(os.path.join(folder, d, "events.jsonl"))]
    return inner[0] if len(inner) == 1 else None


def recordings_in(path: str) -> list[tuple[str, str]]:
    """Return (name, events file) of each recording ``path`` names: an events ``.jsonl``
    file (named by its stem, or by its folder when it is an ``events.jsonl``); a recording
    folder (``recording_events_file``, named by the folder); or a folder of them (the
    corpus, a request's folder of sessions, a folder of events files), each of its
    recording folders and ``.jsonl`` files, named ``FOLDER/NAME``.  Empty when ``path``
    holds none."""
    if os.path.isfile(path):
        base = os.path.basename(path)
        name = os.path.basename(os.path.dirname(os.path.abspath(path))) \
            if base == "events.jsonl" else os.path.splitext(base)[0]
        return [(name, path)]
    if not os.path.isdir(path):
        return []
    top = os.path.basename(os.path.normpath(os.path.abspath(path)))
    own = os.path.join(path, "events.jsonl")
    if os.path.isfile(own):
        return [(top, own)]
    found = []
    for entry in sorted(os.listdir(path)):
        full = os.path.join(path, entry)
        if os.path.isdir(full):
            inner = recording_events_file(full)
            if inner is not None:
                found.append((f"{top}/{entry}", inner))
        elif entry.endswith(".jsonl") and os.path.isfile(full):
            found.append((f"{top}/{os.path.splitext(entry)[0]}", full))
    if len(found) == 1 and recording_events_file(path) is not None:
        return [(top, found[0][1])]     # a request's folder holding its one session
    return found
