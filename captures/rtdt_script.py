"""Read and write Return to Dark Tower session scripts: one command per line.

Format (``#`` starts a comment, blank lines are ignored, times are seconds from connecting)::

    # run length: 30 s               optional: how long the session runs
    0 calibrate                      find each drum's zero (waits until the tower reports it)
    8 rotate top south               drum top|middle|bottom, side north|east|south|west (n e s w)
    9 light top north on             layer light effect [once]; effect off on breathe ...
    10 sound 17                      sound 1-113 (decimal, or hex as 0x11) [loop]
    11 sequence sealReveal           LED sequence by number or name
    12 volume 3                      the raw volume nibble 0-15 (its meaning is disputed)
    13 reset-skulls                  set the skull counter to 0
    14 skull-drop                    virtual tower: a skull falls through (real: a prompt)
    15 drop-link [silent]            virtual tower: the radio link breaks (silent: no notice)
    16 battery 3300                  virtual tower: the cells now give 3300 mV

Commands happen in time order; one that the tower is still busy for runs late (the record
says by how much). Errors name the file and line: ``s.txt:3: unknown drum 'upper' ...``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import IO

from captures.rtdt import (DRUMS, LAYERS, LIGHT_NAMES, SEQUENCES, SIDES, RtdtParams,
                           effect_code)
from captures.script import (format_seconds, read_script_text, script_lines,
                             seconds_value)

__all__ = ["RtdtCommand", "RtdtScript", "RtdtScriptError", "parse_rtdt_script",
           "read_rtdt_script", "write_rtdt_script", "SIM_ONLY", "COMMANDS"]

SIM_ONLY = ("skull-drop", "drop-link", "battery")
COMMANDS = ("calibrate", "rotate", "light", "sound", "sequence", "volume", "reset-skulls") \
    + SIM_ONLY
_SIDE_ALIASES = {"n": 0, "e": 1, "s": 2, "w": 3, "north": 0, "east": 1, "south": 2, "west": 3}
_CORNER_ALIASES = {"ne": 0, "se": 1, "sw": 2, "nw": 3, "northeast": 0, "southeast": 1,
                   "southwest": 2, "northwest": 3}


class RtdtScriptError(ValueError):
    """A script line is malformed; the message is ``file:line: what was expected``."""


@dataclass(frozen=True)
class RtdtCommand:
    """One script line: at ``t`` seconds do ``name`` with ``args`` (already checked)."""
    t: float
    name: str
    args: tuple = ()
    line: int = 0

    def text(self) -> str:
        """Return the command as a script line (without the time)."""
        return " ".join((self.name,) + tuple(str(a) for a in self.args))


@dataclass
class RtdtScript:
    """A session: commands in file order and the optional run length (seconds)."""
    commands: list = field(default_factory=list)
    length: float | None = None
    name: str = "script"

    def end_time(self) -> float:
        """Return the run length, or the last command's time plus one second."""
        if self.length is not None:
            return self.length
        return max((c.t for c in self.commands), default=0.0) + 1.0

    def timeline(self) -> list:
        """Return the commands in time order (file order among equal times)."""
        return sorted(self.commands, key=lambda c: (c.t, c.line))


def _time(tok: str, where: str) -> float:
    return seconds_value(tok, where, "time", RtdtScriptError)


def _int(tok: str, where: str, what: str, lo: int, hi: int) -> int:
    try:
        v = int(tok, 0)
    except ValueError:
        raise RtdtScriptError(f"{where}: {what} {tok!r} is not a number "
                              f"(expected {lo}-{hi})") from None
    if not lo <= v <= hi:
        raise RtdtScriptError(f"{where}: {what} {v} is out of range (expected {lo}-{hi})")
    return v


def _args(name: str, toks: list[str], where: str, params: RtdtParams) -> tuple:
    def want(n_min, n_max, usage):
        if not n_min <= len(toks) <= n_max:
            raise RtdtScriptError(f"{where}: {name} takes {usage}, got "
                                  f"{' '.join(toks) or 'nothing'!r}")
    if name in ("calibrate", "reset-skulls", "skull-drop"):
        want(0, 0, "no arguments")
        return ()
    if name == "rotate":
        want(2, 2, "'DRUM SIDE' (e.g. 'rotate top north')")
        drum, side = toks[0].lower(), toks[1].lower()
        if drum not in DRUMS:
            raise RtdtScriptError(f"{where}: unknown drum {toks[0]!r} (expected "
                                  f"{', '.join(DRUMS)})")
        if side not in _SIDE_ALIASES:
            raise RtdtScriptError(f"{where}: unknown side {toks[1]!r} (expected "
                                  f"{', '.join(SIDES)} or n e s w)")
        return (drum, SIDES[_SIDE_ALIASES[side]])
    if name == "light":
        want(3, 4, "'LAYER LIGHT EFFECT [once]' (e.g. 'light top north on')")
        layer, light, eff = (t.lower() for t in toks[:3])
        if layer not in LAYERS:
            raise RtdtScriptError(f"{where}: unknown light layer {toks[0]!r} (expected "
                                  f"{', '.join(LAYERS)})")
        names = LIGHT_NAMES[layer]
        if light in _CORNER_ALIASES and layer in LAYERS[3:]:
            light = names[_CORNER_ALIASES[light]]
        elif light in _SIDE_ALIASES:                  # N -> NE, E -> SE, ... for corners
            light = names[_SIDE_ALIASES[light]]
        if light not in names:
            raise RtdtScriptError(f"{where}: unknown light {toks[1]!r} on layer {layer} "
                                  f"(expected {', '.join(names)})")
        try:
            effect_code(eff, params)
        except ValueError as exc:
            raise RtdtScriptError(f"{where}: {exc}") from None
        if len(toks) == 4 and toks[3].lower() != "once":
            raise RtdtScriptError(f"{where}: light takes 'once' after the effect, got "
                                  f"{toks[3]!r}")
        return (layer, light, eff) + (("once",) if len(toks) == 4 else ())
    if name == "sound":
        want(1, 2, "'N [loop]' (N = 1-113)")
        n = _int(toks[0], where, "sound", 1, params.sound_count)
        if len(toks) == 2 and toks[1].lower() != "loop":
            raise RtdtScriptError(f"{where}: sound takes 'loop' after the number, got "
                                  f"{toks[1]!r}")
        return (n,) + (("loop",) if len(toks) == 2 else ())
    if name == "sequence":
        want(1, 1, "a sequence number or name (e.g. 'sequence sealReveal')")
        by_name = {v.lower(): k for k, v in SEQUENCES.items()}
        if toks[0].lower() in by_name:
            return (by_name[toks[0].lower()],)
        return (_int(toks[0], where, "sequence", 1, params.sequence_count),)
    if name == "volume":
        want(1, 1, "the volume nibble 0-15")
        return (_int(toks[0], where, "volume", 0, 15),)
    if name == "drop-link":
        want(0, 1, "nothing or 'silent'")
        if toks and toks[0].lower() != "silent":
            raise RtdtScriptError(f"{where}: drop-link takes 'silent' or nothing, got "
                                  f"{toks[0]!r}")
        return ("silent",) if toks else ()
    if name == "battery":
        want(1, 1, "the cells' voltage in millivolts (e.g. 'battery 3300')")
        return (_int(toks[0], where, "battery", 0, 0xFFFF),)
    raise AssertionError(name)  # pragma: no cover


def parse_rtdt_script(text: str, name: str = "script",
                      params: RtdtParams | None = None) -> RtdtScript:
    """Parse script text; raise RtdtScriptError (``name:line: message``) on the first bad
    line."""
    params = params or RtdtParams()
    script = RtdtScript(name=name)
    for lineno, (where, length, toks) in enumerate(script_lines(text, name, RtdtScriptError), 1):
        if length is not None:
            script.length = length
        if not toks:
            continue
        if len(toks) < 2:
            raise RtdtScriptError(f"{where}: expected '<time_s> COMMAND ...' (commands: "
                                  f"{', '.join(COMMANDS)}), got {' '.join(toks)!r}")
        t = _time(toks[0], where)
        cmd = toks[1].lower()
        if cmd not in COMMANDS:
            raise RtdtScriptError(f"{where}: unknown command {toks[1]!r} (expected one of "
                                  f"{', '.join(COMMANDS)})")
        script.commands.append(RtdtCommand(t, cmd, _args(cmd, toks[2:], where, params),
                                           lineno))
    return script


def read_rtdt_script(path: str, params: RtdtParams | None = None) -> RtdtScript:
    """Read a script file; errors name the file and line."""
    text = read_script_text(path, RtdtScriptError)
    return parse_rtdt_script(text, path, params)


def write_rtdt_script(script: RtdtScript, fileobj: IO[str]) -> None:
    """Write a script in the text format (parse_rtdt_script reads it back the same)."""
    if script.length is not None:
        fileobj.write(f"# run length: {format_seconds(script.length)} s\n")
    for c in script.commands:
        fileobj.write(f"{format_seconds(c.t)} {c.text()}\n")
