"""Run the game's flows in tower time and turn them into captures.events events.

The game (cleanroom.game) is written as generator flows that yield small commands; this module
is the clock that runs them: it wakes a flow after a sleep, when a key it waits for is seen,
or when the reel reaches the position it waits for, and it keeps the display's flashing, the
reel's 27 ms steps and the 1/60 s display frames going in between.

Event timing follows what the shared captures show (see cleanroom.params): display changes
and reel ``card_pos`` reports land on 1/60 s frame boundaries (the decoder's window start and
MAME's frame poll), lamps, motor and tones at their own times.

Commands a flow may yield::

    ("sleep", seconds)           resume after that much tower time
    ("key", frozenset(buttons))  resume when one of the buttons is seen; the value is its name
    ("reel", target)             turn the reel: target = card 0-7, or "index" (find the index
                                 hole); resume when the motor has stopped
"""
from __future__ import annotations

import math
from typing import Callable, Generator

from captures.events import make_event
from captures.script import BUTTONS

from .params import SOUNDS, param
from .reel import Reel, sensor_lit, stop_position

__all__ = ["Engine", "EngineError", "Flow"]

Flow = Generator[tuple, object, None]

_EPS = 1e-9


class EngineError(ValueError):
    """A button or time given to the game is not valid; the message says what was expected."""


def _frame_ceil(t: float) -> float:
    """Return the first 1/60 s frame boundary at or after ``t`` (seconds)."""
    return math.ceil(t * 60 - 1e-3) / 60


class Engine:
    """Hold tower time, the outputs and one running flow; advance them together."""

    def __init__(self, flow_factory: Callable[["Engine"], Flow], clock_ratio: float = 1.0):
        """Make an engine for the flows ``flow_factory`` makes at each power-on.

        ``clock_ratio`` is the tower's oscillator relative to the reference tower's (MAME's
        425 kHz): the program's waits, flash phases and key scan shrink by it and its tones
        rise by it; the reel is mechanical and keeps its 27 ms steps.
        """
        if not clock_ratio > 0 or clock_ratio == float("inf"):
            raise EngineError(f"clock ratio {clock_ratio!r} must be a finite number above 0")
        self.clock_ratio = float(clock_ratio)
        self._factory = flow_factory
        self.now = 0.0
        self.events: list[dict] = []
        self.reel = Reel()
        self.powered = False
        self.held: set[str] = set()
        self.pressed_since: set[str] = set()
        self._flow: Flow | None = None
        self._wake: float | None = None
        self._wait_keys: frozenset | None = None
        self._key_value: str | None = None
        self._reel_target: object = None
        self._lit_run = 0
        self._flash: list | None = None     # [text, next_toggle_t, shown]
        self._disp: list[dict] = []
        self._lamps = {"upper": 0, "middle": 0, "lower": 0}
        self._last_card: int | None = None
        self._next_tick = 1

    # ---- outputs --------------------------------------------------------------------
    def emit(self, t: float, type: str, **fields) -> None:
        """Record an event at ``t`` seconds."""
        self.events.append(make_event(t, type, **fields))

    def _put_display(self, t: float, text: str) -> None:
        t = round(_frame_ceil(t), 6)
        if self._disp and abs(self._disp[-1]["t"] - t) < 1e-6:
            # Two changes inside one 1/60 s frame: the decoder reports only the later one.
            ev = self._disp.pop()
            for i in range(len(self.events) - 1, -1, -1):
                if self.events[i] is ev:
                    del self.events[i]
                    break
        shown = self._disp[-1]["text"] if self._disp else None
        if text != shown:
            ev = make_event(t, "display", text=text)
            self.events.append(ev)
            self._disp.append(ev)

    def display(self, text: str, at: float | None = None) -> None:
        """Show ``text`` (two characters) steadily from ``at`` (default now)."""
        self._flash = None
        self._put_display(self.now if at is None else at, text)

    def flash(self, text: str, at: float | None = None) -> None:
        """Flash ``text`` from ``at`` (default now): on 0.283 s, off 0.267 s (tower_test)."""
        t = self.now if at is None else at
        self._put_display(t, text)
        self._flash = [text, t + param("flash_on_s") / self.clock_ratio, True]

    def lamp(self, name: str, on: bool, at: float | None = None) -> None:
        """Switch a card lamp (upper, middle, lower)."""
        if self._lamps[name] != int(on):
            self._lamps[name] = int(on)
            self.emit(self.now if at is None else at, "lamp", lamp=name, on=int(on))

    def lamps_off(self, at: float | None = None) -> None:
        """Switch every lamp off."""
        for name in ("upper", "middle", "lower"):
            self.lamp(name, False, at)

    def tone(self, freq_hz: float | None, dur_s: float, at: float | None = None,
             cue: str | None = None) -> None:
        """Sound a tone (``freq_hz`` None = a click) for ``dur_s`` seconds."""
        k = self.clock_ratio
        if freq_hz is not None:
            freq_hz = round(freq_hz * k, 1)
        dur_s = dur_s / k
        fields = {"freq_hz": freq_hz, "dur_s": round(dur_s, 4),
                  "pulses": max(1, round((freq_hz or 0) * dur_s))}
        if cue:
            fields["cue"] = cue
        self.emit(self.now if at is None else at, "tone", **fields)

    def sound(self, name: str, at: float | None = None) -> float:
        """Play sound cue ``name`` from ``at``; return its length (tail included) in seconds of
        the reference clock, as flows sleep."""
        snd = SOUNDS[name]
        t0 = self.now if at is None else at
        for off, freq, dur in snd.notes:
            self.tone(freq, dur, at=t0 + off / self.clock_ratio, cue=name)
        return snd.length

    def motor(self, on: bool) -> None:
        """Switch the reel motor now."""
        if self.reel.motor != on:
            self.reel.set_motor(on)
            self.emit(self.now, "motor", on=int(on))

    # ---- inputs ---------------------------------------------------------------------
    def power(self, on: bool) -> None:
        """Switch the tower on (restart the game from power-on) or off (everything dark)."""
        self.emit(self.now, "power", on=int(on))
        if on and not self.powered:
            self.powered = True
            self._flow = self._factory(self)
            self._wake = self.now
            self._wait_keys = None
            self._reel_target = None
            self._run_flow(None)
        elif not on and self.powered:
            self.powered = False
            self._flow = None
            self._wake = None
            self._wait_keys = None
            self._flash = None
            self._put_display(self.now, "  ")
            self.lamps_off()
            self.motor(False)

    def press(self, button: str) -> None:
        """Close a key contact now."""
        if button not in BUTTONS:
            raise EngineError(f"unknown button {button!r} (expected one of {', '.join(BUTTONS)})")
        self.emit(self.now, "button", button=button, action="press")
        self.held.add(button)
        self.pressed_since.add(button)
        if self.powered and self._wait_keys is not None and button in self._wait_keys:
            self._wait_keys = None
            self._key_value = button
            self._wake = self.now + param("key_latency_s") / self.clock_ratio

    def release(self, button: str) -> None:
        """Open a key contact now."""
        if button not in BUTTONS:
            raise EngineError(f"unknown button {button!r} (expected one of {', '.join(BUTTONS)})")
        if button in self.held:
            self.held.discard(button)
            self.emit(self.now, "button", button=button, action="release")

    # ---- time -----------------------------------------------------------------------
    def advance(self, seconds: float) -> None:
        """Let ``seconds`` of tower time pass."""
        if not seconds >= 0 or seconds == float("inf"):
            raise EngineError(f"advance: {seconds!r} must be a finite number of seconds >= 0")
        end = self.now + seconds
        tick_s = param("reel_tick_s")
        while True:
            cands = [end]
            if self._wake is not None:
                cands.append(self._wake)
            if self.reel.running:
                cands.append(self._next_tick * tick_s)
            if self._flash is not None:
                cands.append(self._flash[1])
            t = min(cands)
            if t > end + _EPS:
                break
            self.now = max(self.now, t)
            if self.reel.running and abs(t - self._next_tick * tick_s) < _EPS:
                self._tick()
                continue
            if self._flash is not None and abs(t - self._flash[1]) < _EPS:
                text, _, shown = self._flash
                self._put_display(t, "  " if shown else text)
                self._flash = [text, t + (param("flash_off_s") if shown else
                                          param("flash_on_s")) / self.clock_ratio, not shown]
                continue
            if self._wake is not None and abs(t - self._wake) < _EPS:
                self._wake = None
                value, self._key_value = self._key_value, None
                self._run_flow(value)
                continue
            if t >= end - _EPS:
                break
        self.now = end

    def _tick(self) -> None:
        t = self._next_tick * param("reel_tick_s")
        self._next_tick += 1
        if not self.reel.tick():
            return
        pos = self.reel.pos
        if self.reel.card != self._last_card:
            self._last_card = self.reel.card
            self.emit(_frame_ceil(t + 1e-6), "reel", card_pos=self.reel.card)
        target = self._reel_target
        if target is None:
            return
        lit = sensor_lit(pos)
        stop = False
        if target == "index":
            if lit:
                self._lit_run += 1
            else:
                stop = self._lit_run >= 8
                self._lit_run = 0
        else:
            stop = pos == stop_position(int(target))
        if stop:
            self._reel_target = None
            self._wake = t + param("motor_off_after_tick_s")

    def keep_ticking(self) -> None:
        """Align the reel's 27 ms tick counter with the current time (after idle periods)."""
        tick_s = param("reel_tick_s")
        self._next_tick = max(self._next_tick, math.floor(self.now / tick_s + _EPS) + 1)

    def _run_flow(self, value) -> None:
        flow = self._flow
        while flow is not None:
            try:
                cmd = flow.send(value)
            except StopIteration:
                self._flow = None
                return
            value = None
            kind = cmd[0]
            if kind == "sleep":
                self._wake = self.now + max(0.0, float(cmd[1])) / self.clock_ratio
                return
            if kind == "key":
                self._wake = None
                self._wait_keys = frozenset(cmd[1])
                self.pressed_since.clear()
                return
            if kind == "reel":
                self._wake = None
                self.keep_ticking()
                self._reel_target = cmd[1]
                self._lit_run = 0
                self.motor(True)
                return
            raise EngineError(f"game flow yielded an unknown command {cmd!r}")

    @property
    def waiting(self) -> bool:
        """Return True when the game waits for a key (or has stopped) and nothing is pending."""
        return self.powered and self._wake is None and self._reel_target is None and (
            self._wait_keys is not None or self._flow is None)

    def sorted_events(self) -> list[dict]:
        """Return the events so far in time order (ties keep emission order)."""
        return sorted((e for e in self.events if e["t"] <= self.now + 1e-6),
                      key=lambda e: e["t"])

    def set_last_card(self, card: int | None) -> None:
        """Record the card the reel reports (for the first report after power-on)."""
        self._last_card = card
