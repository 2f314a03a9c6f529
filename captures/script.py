"""Read and write scripted sessions: the button script every tower backend replays.

Format (one action per line, ``#`` starts a comment, blank lines ignored)::

    # run length: 15.51 s          (optional: how long the session runs)
    3.016667 YES/BUY 0.2           <time_s> <BUTTON> <hold_s>
    20 DARK TOWER 0.25             button names may contain a space
    30 power off                   <time_s> power off|on

Times are seconds from power-on. Buttons are the tower's twelve keys, named as printed on them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import IO, Iterator

from captures.darktower_facts import BUTTONS

__all__ = ["BUTTONS", "Press", "Power", "Script", "ScriptError", "parse_script",
           "read_script", "write_script", "timeline", "power_ons"]

# BUTTONS: the Dark Tower's 12 keys (captures.darktower_facts), the default script vocabulary.


MAX_SCRIPT_BYTES = 1 << 20   # a script is text of a few kB; more is not a script


class ScriptError(ValueError):
    """A script line is malformed; the message is ``file:line: what was expected``."""


@dataclass(frozen=True)
class Press:
    """Hold ``button`` from ``t`` for ``hold`` seconds."""
    t: float
    button: str
    hold: float


@dataclass(frozen=True)
class Power:
    """Switch the tower's power at ``t`` seconds."""
    t: float
    on: bool


@dataclass
class Script:
    """A session: its actions in file order and its optional run length (seconds)."""
    actions: list = field(default_factory=list)
    length: float | None = None
    name: str = "script"

    def end_time(self) -> float:
        """Return the run length, or the time the last action ends plus one second."""
        if self.length is not None:
            return self.length
        last = 0.0
        for a in self.actions:
            last = max(last, a.t + (a.hold if isinstance(a, Press) else 0.0))
        return last + 1.0


_LENGTH = re.compile(r"#\s*run length:\s*([0-9.]+)\s*s", re.I)


def seconds_value(tok: str, where: str, what: str,
                  error: type[Exception] | None = None) -> float:
    """Return ``tok`` as a finite number of seconds >= 0; else raise ``error`` (default
    ScriptError) as ``where: what 'tok' ...``."""
    error = error or ScriptError
    try:
        v = float(tok)
    except ValueError:
        raise error(f"{where}: {what} {tok!r} is not a number of seconds") from None
    if not v >= 0 or v == float("inf"):
        raise error(f"{where}: {what} {tok!r} must be a finite number of seconds >= 0")
    return v


def script_lines(text: str, name: str, error: type[Exception]
                 ) -> Iterator[tuple[str, float | None, list[str]]]:
    """Yield ``(where, run_length, tokens)`` for each line of a script text in the shared
    format (the button scripts here, captures.rtdt_script's command scripts): ``where`` is
    ``name:lineno``; ``run_length`` the seconds of a ``# run length: N s`` comment on the line,
    else None; ``tokens`` the words before any ``#`` (empty for a blank or comment line)."""
    for lineno, raw in enumerate(text.splitlines(), 1):
        where = f"{name}:{lineno}"
        m = _LENGTH.match(raw.strip())
        length = seconds_value(m.group(1), where, "run length", error) if m else None
        yield where, length, raw.split("#", 1)[0].split()


def read_script_text(path: str, error: type[Exception]) -> str:
    """Return the text of the script file ``path`` (bounded by MAX_SCRIPT_BYTES, UTF-8);
    raise ``error`` naming the file and what was expected."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_SCRIPT_BYTES + 1)     # bounded: /dev/zero never ends
        if len(data) > MAX_SCRIPT_BYTES:
            raise error(f"{path}: more than {MAX_SCRIPT_BYTES} bytes (expected a script)")
        return data.decode("utf-8-sig")
    except OSError as exc:
        raise error(f"{path}: cannot read script ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not a text script (not UTF-8: byte {exc.start} is "
                    f"0x{exc.object[exc.start]:02x})") from None


def parse_script(text: str, name: str = "script", buttons=BUTTONS) -> Script:
    """Parse script text; raise ScriptError (``name:line: message``) on the first bad line.

    ``buttons`` are the key names the board accepts (default: the Dark Tower's twelve; the
    Labyrinth board passes its 64 squares and 8 buttons).
    """
    script = Script(name=name)
    for where, length, toks in script_lines(text, name, ScriptError):
        if length is not None:
            script.length = length
        if not toks:
            continue
        line = " ".join(toks)
        if len(toks) == 3 and toks[1].lower() == "power":
            if toks[2].lower() not in ("on", "off"):
                raise ScriptError(f"{where}: power takes 'on' or 'off', got {toks[2]!r}")
            script.actions.append(Power(seconds_value(toks[0], where, "time"),
                                        toks[2].lower() == "on"))
            continue
        if len(toks) < 3:
            raise ScriptError(f"{where}: expected '<time_s> <BUTTON> <hold_s>' or "
                              f"'<time_s> power on|off', got {line!r}")
        t = seconds_value(toks[0], where, "time")
        hold = seconds_value(toks[-1], where, "hold")
        button = " ".join(toks[1:-1]).upper()
        if button not in buttons:
            shown = ", ".join(list(buttons)[:16]) + (", ..." if len(buttons) > 16 else "")
            raise ScriptError(f"{where}: unknown button {button!r} (expected one of {shown})")
        if hold <= 0:
            raise ScriptError(f"{where}: hold {toks[-1]!r} must be more than 0 s")
        script.actions.append(Press(t, button, hold))
    return script


def read_script(path: str, buttons=BUTTONS) -> Script:
    """Read a script file; errors name the file and line (``buttons`` as in parse_script)."""
    return parse_script(read_script_text(path, ScriptError), path, buttons)


def format_seconds(v: float) -> str:
    """Format seconds with microsecond precision and no trailing zeros (12.783333, 3, 0.2)."""
    text = f"{v:.6f}".rstrip("0").rstrip(".")
    return text or "0"


def write_script(script: Script, fileobj: IO[str]) -> None:
    """Write a script in the text format (round-trips through parse_script to the µs)."""
    if script.length is not None:
        fileobj.write(f"# run length: {format_seconds(script.length)} s\n")
    for a in script.actions:
        if isinstance(a, Power):
            fileobj.write(f"{format_seconds(a.t)} power {'on' if a.on else 'off'}\n")
        else:
            fileobj.write(f"{format_seconds(a.t)} {a.button} {format_seconds(a.hold)}\n")


def timeline(script: Script) -> Iterator[tuple[float, str, object]]:
    """Yield ``(t, kind, arg)`` in time order: kind is 'press', 'release' or 'power'.

    At equal times releases come before power changes, which come before presses.
    """
    items = []
    order = {"release": 0, "power": 1, "press": 2}
    for i, a in enumerate(script.actions):
        if isinstance(a, Power):
            items.append((a.t, order["power"], i, "power", a.on))
        else:
            items.append((a.t, order["press"], i, "press", a.button))
            items.append((a.t + a.hold, order["release"], i, "release", a.button))
    for t, _, _, kind, arg in sorted(items):
        yield t, kind, arg


def power_ons(script: Script) -> list[float]:
    """Return when each game of ``script`` begins: 0 s (the tower starts powered), then each
    later ``power on``, in time order."""
    return [0.0] + sorted(a.t for a in script.actions if isinstance(a, Power) and a.on
                          and a.t > 0)
