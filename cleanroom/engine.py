"""Run the game's flows in tower time and turn them into captures.events events.

The game (cleanroom.game) is written as generator flows that yield small commands; this module
is the clock that runs them: it wakes a flow after a sleep, when a key it waits for is seen,
or when the reel reaches the position it waits for, and it keeps the display's flashing, the
reel's 27 ms steps and the 1/60 s display frames going in between.

Event timing follows what the shared captures show (see cleanroom.params): display changes
and reel ``card_pos`` reports land on 1/60 s frame boundaries (the decoder's window start and
MAME's frame poll), lamps, motor and tones at their own times.

The tower's time base is a display tick (one digit refresh; cleanroom/README.md, "Timing
observed in the genuine recordings"): in the key-wait loop ``tick_lit_s`` while a digit is lit
and ``tick_dark_s`` while the display is dark, and no ticks at all while a tone or a cue sounds
(the chip is busy making the square wave).  The flash timer counts these ticks in the key-wait
loop only: outside it (pictures, reel turns, tunes, pauses) the timer stands still.  Every
``flash_ticks`` ticks its state bit toggles, and a flashing text is shown while the bit is on.
The timer is never restarted: a new flashing text (the next menu entry, the next prompt after
a picture or a sound) takes the running phase, is shown at once while the bit is on and at the
next toggle while it is off.  The flows that play one of ``flash_toggling_cues`` (the sad cue,
a tomb's creak) toggle it once (``force_toggle``).  The key scan runs every ``scan_ticks``
ticks from the moment the game starts waiting for a key (the first scan one loop pass after
it); a key is taken at the second scan that sees it closed (a debounce): a press notes that
scan's tick count (``_key_seen``) and the clock runs to it like to a toggle or a scan's key
mode, so the same stepping times both.

Commands a flow may yield::

    ("sleep", seconds)           resume after that much tower time
    ("key", frozenset(buttons))  resume when one of the buttons is seen; the value is its name
    ("reel", target)             turn the reel: target = card 0-7, or "index" (find the index
                                 hole); resume when the motor has stopped
"""
from __future__ import annotations

import math
from typing import Callable, Generator

from captures.darktower_facts import KEY_MATRIX, NOMINAL_CLOCK_HZ
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
        self._ftext: str | None = None      # the flashing text, shown while the bit is on
        self._fstate = False                # the flash timer's state bit (on = shown)
        self._fpending: tuple | None = None  # (t, text): a flashing text that starts later
        self._ticks = 0.0                   # display ticks since power-on, at time _tk_t
        self._tk_t = 0.0
        self._lit = False                   # a digit is lit (ticks are tick_lit_s long)
        self._scan_mode: tuple | None = None   # the pass's key mode (_next_mode)
        self._mode_pending: tuple | None = None  # (tick count of the next scan, its mode)
        self._click_lag = 0.0               # how much later than a column-R2 key's its click is
        self._entry_hint: tuple | None = None   # (t, cycles, toggles_too or "sooner")
        self._in_loop = False               # in the key-wait loop (else no ticks)
        self._loop_ticks0 = 0.0             # tick count when the key-wait loop was entered
        self._scan_lead = 0.0               # ticks the loop's scans come before 3, 6, 9...
        self._take_ticks: float | None = None   # tick count of the scan that will take a key
        self._take_click_s = 0.0            # its click comes that long after that scan
        self._taken_ticks: float | None = None  # tick count at the scan that took the key
        self._bit_at_key: bool | None = None    # the flash bit when the last key was seen
        self._tones: list[tuple[float, float]] = []   # (start, end): no ticks while sounding
        self._disp: list[dict] = []
        self._lamps = {"upper": 0, "middle": 0, "lower": 0}
        self._last_card: int | None = None
        self._next_tick = 1
        # asks the game's chooser for a decision: (name, options, weights) -> option
        self.decide: Callable[[str, list, list | None], object] | None = None

    # ---- outputs --------------------------------------------------------------------
    def emit(self, t: float, type: str, **fields) -> None:
        """Record an event at ``t`` seconds."""
        self.events.append(make_event(t, type, **fields))

    def _put_display(self, t: float, text: str) -> None:
        t = round(self._frame_of_change(t, text), 6)
        if self._disp and t < self._disp[-1]["t"]:
            t = self._disp[-1]["t"]     # changes stay in order: the later one wins the frame
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

    def _frame_of_change(self, t: float, text: str) -> float:
        """Return the 1/60 s window start at which the decoder reports a change to ``text`` at
        ``t`` seconds (tests/data/captures/README.md): a text that lights up is seen in the
        window where it is driven for more than 2 % of it, a blank from the first window where
        the old text is not, and a text replacing another in the window where it is driven
        longer."""
        frame = param("frame_s")
        w = math.floor(t / frame + 1e-9) * frame
        into = (t - w) / frame
        shown = self._disp[-1]["text"] if self._disp else "  "
        if not text.strip():
            cut = 0.02           # blank: the old text lit for more than 2 % keeps the window
        elif not shown.strip():
            cut = 0.98           # lighting up: more than 2 % of the window shows it
        else:
            cut = 0.5
        return w if into <= cut + 1e-9 else w + frame

    def display(self, text: str, at: float | None = None) -> None:
        """Show ``text`` (two characters) steadily from ``at`` (default now).

        A steady text ends the flashing one; the flash timer runs on."""
        self._sync_ticks(self.now)
        self._ftext = None
        self._fpending = None
        self._lit = bool(text.strip())
        self._put_display(self.now if at is None else at, text)

    def flash(self, text: str, at: float | None = None, restart: bool = False) -> None:
        """Flash ``text`` from ``at`` (default now) in the flash timer's running phase: shown
        at once while the timer's bit is on, else from its next toggle (module doc).

        ``restart``: start an on phase at ``at`` instead (the timer is set to a phase start),
        which the genuine game never does; the timing tests use it to begin from a phase a
        recording shows."""
        t = self.now if at is None else at
        shown_at = t
        hint = self._entry_hint
        if hint is not None and hint[2] is True and abs(hint[0] - t) < _EPS:
            # a prompt after a picture: the loop lights the text one lit pass before its first
            # scan, never before the lamp goes dark (params ``text_before_scan_cycles``); its
            # passes are lit ones from the start
            lit_first = hint[1] + 3 * (param("tick_lit_s") - param("tick_dark_s")) \
                * NOMINAL_CLOCK_HZ
            shown_at += max(0.0, lit_first - param("text_before_scan_cycles")) \
                / NOMINAL_CLOCK_HZ / self.clock_ratio
        if t > self.now + _EPS:
            self._fpending = (t, text, restart)
            return
        self._fpending = None
        self._sync_ticks(self.now)
        self._ftext = text
        if restart:
            n = param("flash_ticks")
            self._ticks = math.floor(self._ticks / n + 1e-9) * n
            self._fstate = True
        if self._fstate:
            self._put_display(shown_at, text)
            self._lit = bool(text.strip())
        else:
            # the loop refreshes the text only in an on phase: what was shown before (the
            # tower test's 88) goes dark now, and the passes until the toggle are dark ones
            self._lit = False
            self._put_display(t, "  ")

    def end_flash(self, at: float | None = None) -> None:
        """Stop flashing and blank the display (the game leaves its key loop); the flash
        timer keeps its phase."""
        self._sync_ticks(self.now)
        self._ftext = None
        self._fpending = None
        self._lit = False
        self._put_display(self.now if at is None else at, "  ")

    # ---- the tick clock (module doc) ---------------------------------------------------
    def _tick_s(self) -> float:
        """Return the length of a flash-timer tick now (inf outside the key-wait loop: the
        timer stands still there)."""
        if not self._in_loop:
            return math.inf
        return self._tick_len(self._lit, self._scan_mode)

    def _tick_len(self, lit: bool, mode: tuple | None) -> float:
        """Return a tick's length with a digit lit or not in a loop pass of key mode ``mode``
        (_next_mode: None, no key seen; a key newly seen or still held in a column; a key
        just seen open)."""
        t = param("tick_lit_s" if lit else "tick_dark_s")
        if mode is not None and mode[0] != "entry":
            kind, col = mode
            cut = (param("release_pass_cut_cycles") if kind == "release"
                   else param(f"{kind}_key_pass_cut_cycles")[col])
            t -= cut / 3 / NOMINAL_CLOCK_HZ
        return t / self.clock_ratio

    def _next_mode(self, mode: tuple | None) -> tuple | None:
        """Return the key mode of the loop pass that a key scan now begins, after a pass of
        ``mode``: the scan strobes R2, R1, R0 and stops at the first column with a closed
        key; a key it did not see at the scan before is "new", one it saw is "held", and
        the first scan that finds the keys open after one was seen begins a "release" pass
        (cleanroom/README.md, "Timing observed in the genuine recordings")."""
        col = self._held_col()
        if col is None:
            return ("release", None) if mode is not None and mode[0] != "release" else None
        if mode is not None and mode[0] in ("new", "held", "entry") and mode[1] == col:
            return ("held", col)
        return ("new", col)

    def _held_col(self) -> int | None:
        """Return the column where a key scan now stops: it strobes R2, R1, R0 in turn and
        stops at the first column with a closed key (None: no key held)."""
        cols = [KEY_MATRIX[b][0] for b in self.held]
        return max(cols) if cols else None

    def _next_scan_ticks(self) -> float:
        """Return the tick count of the next key scan (every ``scan_ticks`` from the loop's
        entry)."""
        k = param("scan_ticks")
        base = self._loop_ticks0 - self._scan_lead
        return base + (math.floor((self._ticks - base) / k + 1e-9) + 1) * k

    def _keys_changed(self) -> None:
        """A key closed or opened: the next key scan begins a pass of the new key mode."""
        if self._in_loop:
            self._sync_ticks(self.now)
            self._schedule_mode()

    def _schedule_mode(self) -> None:
        mode = self._next_mode(self._scan_mode)
        self._mode_pending = None if mode == self._scan_mode else (self._next_scan_ticks(), mode)

    def _run_until(self, t0: float, running: float) -> float:
        """Return the time when ``running`` seconds of ticking have passed after ``t0``,
        skipping the tones (no ticks while a tone sounds)."""
        t = t0
        for a, b in self._tones:
            if b <= t:
                continue
            if a >= t + running:
                break
            running -= max(0.0, a - t)
            t = max(t, b)
        return t + running

    def _running_between(self, t0: float, t1: float) -> float:
        """Return the ticking time (seconds, tones excluded) between ``t0`` and ``t1``."""
        run = t1 - t0
        for a, b in self._tones:
            if b <= t0:
                continue
            if a >= t1:
                break
            run -= min(b, t1) - max(a, t0)
        return max(0.0, run)

    def _sync_ticks(self, t: float) -> None:
        if t > self._tk_t:
            tick_s = self._tick_s()
            if tick_s != math.inf:
                self._ticks += self._running_between(self._tk_t, t) / tick_s
            self._tk_t = t
        n = param("flash_ticks")
        # the toggle itself is handled in advance(); never run past it here
        self._ticks = min(self._ticks, (math.floor(self._ticks / n + 1e-9) + 1) * n)

    def _time_at_ticks(self, target: float) -> float:
        """Return when the tick count reaches ``target`` (within the current flash phase);
        inf when the timer stands still (outside the key-wait loop)."""
        left = max(0.0, target - self._ticks)
        tick_s = self._tick_s()
        if tick_s == math.inf:
            return math.inf
        return self._run_until(self._tk_t, left * tick_s)

    def _next_toggle(self) -> float:
        n = param("flash_ticks")
        boundary = (math.floor(self._ticks / n + 1e-9) + 1) * n
        return self._time_at_ticks(boundary)

    def force_toggle(self) -> None:
        """Start the flash timer's next phase now with the bit the other way from what it was
        at the genuine's scan that took the last key (the game's bit
        ``toggle_bit_before_take_ticks`` before its take: its count runs one ahead): what the
        genuine tower does in the flows that play the sad cue or open a tomb
        (cleanroom/README.md, "The flash timer counts only in the key loop")."""
        self._sync_ticks(self.now)
        if self._bit_at_key is not None:
            self._fstate, self._bit_at_key = self._bit_at_key, None
        self._toggle(self.now)

    def _toggle(self, t: float) -> None:
        n = param("flash_ticks")
        self._ticks = (math.floor(self._ticks / n + 1e-9) + 1) * n
        self._tk_t = t
        self._fstate = not self._fstate
        # the toggle's own work: the next ticks come that much later
        self._pause(t, t + self._toggle_extra_s())
        if self._ftext is not None:
            self._put_display(t, self._ftext if self._fstate else "  ")
            self._lit = self._fstate and bool(self._ftext.strip())

    def _toggle_extra_s(self) -> float:
        return param("toggle_extra_cycles") / NOMINAL_CLOCK_HZ / self.clock_ratio

    def _key_seen(self, t: float) -> None:
        """A key the loop waits for closed at ``t``: note the tick count of the scan that will
        take it (the second key scan that sees it; scans every ``scan_ticks`` ticks from the
        loop's entry), when its click comes after that scan, and the flash bit a forced
        toggle will invert.  advance() runs the clock to that scan like to any other."""
        k = param("scan_ticks")
        self._sync_ticks(t)
        first = self._next_scan_ticks()
        # a scan strobes R2, R1, R0 in turn: a key closed after the last scan's R2 strobe but
        # before its own column's is seen by that scan
        key_col = KEY_MATRIX[self._key_value][0] if self._key_value else 2
        strobe = (2 - key_col) * param("column_strobe_cycles") / NOMINAL_CLOCK_HZ
        strobe /= self.clock_ratio
        prev = first - k
        prev_ok = prev >= self._loop_ticks0 - self._scan_lead + k - 1e-9
        tick_s = self._tick_len(self._lit, self._scan_mode)
        since_prev = (self._ticks - prev) * tick_s      # since the last scan's R2 strobe
        seen_prev = bool(strobe) and prev_ok and since_prev < strobe
        # a key closed within scan_edge_s of its column's strobe may be seen by the scan on
        # either side of it (the game's scans are that close to the genuine's): a decision
        if seen_prev:
            margin, other = strobe - since_prev, 1
        else:
            margin, other = min([((first - self._ticks) * tick_s + strobe, 1)]
                                + ([(since_prev - strobe, -1)] if prev_ok else []))
        edge = param("scan_edge_s") / self.clock_ratio
        shift = 0
        if margin < edge and self.decide is not None:
            scan_cycles = round(k * param("tick_lit_s") * NOMINAL_CLOCK_HZ)
            p = 0.5 * (1 - margin / edge)
            shift = other if self.decide("key_scan_cycles", [0, other * scan_cycles],
                                         [1 - p, p]) else 0
        if (seen_prev and not shift) or shift < 0:
            # the scan that saw it has just been: this pass already stops at its column,
            # the next one is a held key's
            seen_mode = self._next_mode(self._scan_mode)
            self._scan_mode = seen_mode
            self._mode_pending = (first, self._next_mode(seen_mode))
            first = prev
        elif shift > 0 and not seen_prev:
            first += k
        target = first + k * (param("debounce_scans") - 1)
        # the timer's bit at the genuine's taking scan (what a forced toggle inverts)
        n = param("flash_ticks")
        seen = target - param("toggle_bit_before_take_ticks")
        crossed = math.floor(seen / n + 1e-9) - math.floor(self._ticks / n + 1e-9)
        self._bit_at_key = self._fstate ^ (crossed % 2 == 1)
        cycles = param("click_after_scan_cycles")
        self._take_ticks = target
        self._take_click_s = cycles[key_col] / NOMINAL_CLOCK_HZ / self.clock_ratio
        self._click_lag = (cycles[key_col] - cycles[2]) / NOMINAL_CLOCK_HZ / self.clock_ratio
        self._wake = None

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
             cue: str | None = None, pause: bool = True) -> None:
        """Sound a tone (``freq_hz`` None = a click) for ``dur_s`` seconds; the tick clock
        stands still meanwhile (unless not ``pause``)."""
        k = self.clock_ratio
        if freq_hz is not None:
            freq_hz = round(freq_hz * k, 1)
        dur_s = dur_s / k
        fields = {"freq_hz": freq_hz, "dur_s": round(dur_s, 4),
                  "pulses": max(1, round((freq_hz or 0) * dur_s))}
        if cue:
            fields["cue"] = cue
        t = self.now if at is None else at
        self.emit(t, "tone", **fields)
        if pause:
            self._pause(t, t + dur_s)

    def click(self) -> None:
        """Sound the key click now (the key was just taken).  It is heard later for a key in
        a later column (``click_after_scan_cycles``), but the loop pass it falls in has the
        same length whatever the column (the corpus's pins, cleanroom/README.md): the ticks
        stand still for the click's length from where a column-R2 key's click begins."""
        dur = param("click_dur_s") / self.clock_ratio
        self.tone(param("click_hz"), param("click_dur_s"), cue="click", pause=False)
        self._pause(self.now - self._click_lag, self.now - self._click_lag + dur)

    def _pause(self, a: float, b: float) -> None:
        """Record that the tick clock stops from ``a`` to ``b`` (a tone or a whole cue)."""
        self._sync_ticks(self.now)
        spans = [(x, y) for x, y in self._tones if y >= self._tk_t - 1.0]
        spans.append((a, b))
        spans.sort()
        merged: list[tuple[float, float]] = []
        for x, y in spans:
            if merged and x <= merged[-1][1] + _EPS:
                merged[-1] = (merged[-1][0], max(merged[-1][1], y))
            else:
                merged.append((x, y))
        self._tones = merged

    def sound(self, name: str, at: float | None = None, early: float = 0.0) -> float:
        """Play sound cue ``name`` from ``at``; return its length (tail included) in seconds of
        the reference clock, as flows sleep.  ``early``: the chip is free again that long
        before the last note's decoded end (a key loop that follows may begin then)."""
        snd = SOUNDS[name]
        t0 = self.now if at is None else at
        if name in param("flash_toggling_cues"):
            self.force_toggle()
        for off, freq, dur in snd.notes:
            self.tone(freq, dur, at=t0 + off / self.clock_ratio, cue=name, pause=False)
        # no ticks between a cue's notes either: the tune routine holds the chip throughout
        off, _, dur = snd.notes[-1]
        self._pause(t0, t0 + (off + dur - early) / self.clock_ratio)
        return snd.length

    def motor(self, on: bool) -> None:
        """Switch the reel motor now."""
        if self.reel.motor != on:
            self._sync_ticks(self.now)
            self.reel.set_motor(on)
            self.emit(self.now, "motor", on=int(on))

    # ---- inputs ---------------------------------------------------------------------
    def power(self, on: bool) -> None:
        """Switch the tower on (restart the game from power-on) or off (everything dark)."""
        self.emit(self.now, "power", on=int(on))
        if on and not self.powered:
            self.powered = True
            # the flash timer starts dark at power-on (every recording: '--' 32 ticks later)
            self._ticks, self._tk_t, self._fstate, self._lit = 0.0, self.now, False, False
            self._in_loop = True
            # the first key scans after power-on come sooner than a pass each, the flash
            # timer's refreshes not (params ``power_on_scan_cycles``)
            self._entry_hint = (self.now, param("power_on_scan_cycles"), False)
            self._ftext = self._fpending = None
            self._flow = self._factory(self)
            self._wake = self.now
            self._wait_keys = None
            self._take_ticks = self._key_value = None
            self._reel_target = None
            self._run_flow(None)
        elif not on and self.powered:
            self.powered = False
            self._flow = None
            self._wake = None
            self._wait_keys = None
            self._take_ticks = self._key_value = None     # a key seen but not taken is gone
            self._ftext = self._fpending = None
            self._put_display(self.now, "  ")
            self.lamps_off()
            self.motor(False)

    def press(self, button: str) -> None:
        """Close a key contact now."""
        if button not in BUTTONS:
            raise EngineError(f"unknown button {button!r} (expected one of {', '.join(BUTTONS)})")
        self.emit(self.now, "button", button=button, action="press")
        self.held.add(button)
        self._keys_changed()
        self.pressed_since.add(button)
        if self.powered and self._wait_keys is not None and button in self._wait_keys:
            self._wait_keys = None
            self._key_value = button
            self._key_seen(self.now)

    def first_scan_after(self, cycles: float) -> None:
        """A key loop that begins now has its first key scan ``cycles`` (at 425 kHz, the
        display dark) after its start instead of one ordinary pass: what the genuine tower
        does after a picture (params ``scan_after_picture_cycles``)."""
        self._entry_hint = (self.now, cycles, True)

    def shift_loop(self, cycles: float) -> None:
        """A key loop that begins now runs ``cycles`` (at 425 kHz, under a tick) later than
        one begun now would, or sooner for a negative count: its scans and the flash timer's
        toggles move together (params ``click_alone_cycles``).  Later: its ticks stand still
        that much longer after the sound now playing (the click); sooner: it is as far along
        as if it had begun that much sooner."""
        if cycles >= 0:
            t = self._run_until(self.now, 0.0)
            self._pause(t, t + cycles / NOMINAL_CLOCK_HZ / self.clock_ratio)
        else:
            self._entry_hint = (self.now, -cycles, "sooner")

    def _first_scan_at(self, cycles: float, toggles_too: bool) -> None:
        """Make the loop just begun scan first ``cycles`` (display dark) after now instead of
        one dark pass.  ``toggles_too``: its ticks run as if it had begun that much sooner
        (later, for a negative shift), so the flash timer's toggles move with the scans;
        else only the scans move and the refreshes the timer counts keep their times."""
        dark_pass = param("tick_dark_s") * 3 * NOMINAL_CLOCK_HZ
        if not toggles_too:
            self._scan_lead = (dark_pass - cycles) / (dark_pass / 3)
            return
        shift = (dark_pass - cycles) / NOMINAL_CLOCK_HZ / self.clock_ratio
        self._tk_t = self.now - shift
        if shift > 0:
            # nothing sounded in the time taken as the loop's: the tones before it are done
            self._tones = [(a, min(b, self._tk_t)) for a, b in self._tones if a < self._tk_t]

    def use_key(self, button: str) -> None:
        """Mark a held key as used by the flow (it read ``held`` itself): the next key loop
        does not take it as a press made before it began."""
        self.pressed_since.discard(button)

    def release(self, button: str) -> None:
        """Open a key contact now."""
        if button not in BUTTONS:
            raise EngineError(f"unknown button {button!r} (expected one of {', '.join(BUTTONS)})")
        if button in self.held:
            self.held.discard(button)
            self._keys_changed()
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
            toggle = self._next_toggle() if self.powered else None
            if toggle is not None:
                cands.append(toggle)
            if self._fpending is not None:
                cands.append(self._fpending[0])
            col_at = (self._time_at_ticks(self._mode_pending[0])
                      if self._mode_pending is not None and self._in_loop else None)
            if col_at is not None:
                cands.append(col_at)
            take_at = (self._time_at_ticks(self._take_ticks)
                       if self._take_ticks is not None and self._in_loop else None)
            if take_at is not None:
                cands.append(take_at)
            t = min(cands)
            if t > end + _EPS:
                break
            self.now = max(self.now, t)
            if self.reel.running and abs(t - self._next_tick * tick_s) < _EPS:
                self._tick()
                continue
            if toggle is not None and abs(t - toggle) < _EPS:
                self._toggle(t)
                continue
            if col_at is not None and abs(t - col_at) < _EPS:
                self._sync_ticks(t)
                self._scan_mode, self._mode_pending = self._mode_pending[1], None
                self._schedule_mode()       # a new key or a release lasts one pass
                continue
            if take_at is not None and abs(t - take_at) < _EPS:
                # the scan that takes the key: the flow goes on at its click
                self._sync_ticks(t)
                self._taken_ticks, self._take_ticks = self._take_ticks, None
                self._wake = t + self._take_click_s
                continue
            if self._fpending is not None and abs(t - self._fpending[0]) < _EPS:
                _, text, restart = self._fpending
                self._sync_ticks(t)
                self.flash(text, at=t, restart=restart)
                continue
            if self._wake is not None and abs(t - self._wake) < _EPS:
                self._sync_ticks(t)
                if self._taken_ticks is not None:
                    # the loop ends at the scan that took the key: a whole number of ticks
                    # (the refreshes counted are whole even when the scans came early)
                    self._ticks = self._taken_ticks + self._scan_lead
                    self._taken_ticks = None
                self._in_loop = False
                self._wake = None
                if self._key_value is not None:
                    self.pressed_since.clear()      # presses before a taken key are used
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
            self._wake = t + (param("motor_off_after_index_s") if target == "index"
                              else param("motor_off_after_tick_s"))

    def _reel_edge(self) -> None:
        """A reel turn that starts within ``reel_edge_s`` of the reel's 27 ms step may start on
        the other side of it in the genuine tower, whose motor starts vary by that much with
        its hidden state (a Death March's picture: 6.5-7.0 ms after the lamp): the reel then
        steps first a tick later or sooner.  Which side is a decision (``reel_step_cycles``:
        0, or one step later or sooner; the game's side likelier, evens at the step)."""
        if self.decide is None:
            return
        tick_s = param("reel_tick_s")
        to_next = self._next_tick * tick_s - self.now
        since_prev = tick_s - to_next
        edge = param("reel_edge_s")
        margin, other = min((to_next, 1), (since_prev, -1))
        if margin >= edge:
            return
        step = round(tick_s * NOMINAL_CLOCK_HZ)
        p = 0.5 * (1 - margin / edge)
        if self.decide("reel_step_cycles", [0, other * step], [1 - p, p]):
            # later: the step the motor just missed is skipped; sooner: the step just gone
            # is taken now
            self._next_tick += 1 if other > 0 else -1

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
                self._sync_ticks(self.now)
                self._in_loop = True
                self._loop_ticks0 = self._ticks
                self._scan_lead = 0.0
                hint, self._entry_hint = self._entry_hint, None
                if hint is not None and abs(hint[0] - self.now) < _EPS:
                    if hint[2] == "sooner":
                        # the loop as far along as if begun that much sooner
                        tick_cycles = self._tick_s() * NOMINAL_CLOCK_HZ * self.clock_ratio
                        self._ticks += hint[1] / tick_cycles
                    else:
                        self._first_scan_at(hint[1], toggles_too=hint[2])
                if self._scan_mode is None or self._scan_mode[0] == "release":
                    self._scan_mode = None      # the last scans found the keys open
                else:
                    # the loop still knows the key the last one took: a menu's next loop,
                    # begun at its click, finds it held; after a longer flow its first scan
                    # finds the keys open and begins a release pass (cleanroom/README.md);
                    # the pass before that first scan is an ordinary one
                    self._scan_mode = ("entry", self._scan_mode[1])
                self._keys_changed()        # the first scan stops at a key already held
                self._wake = None
                self._wait_keys = frozenset(cmd[1])
                # a key closed since the last one was taken and still held is seen by the
                # loop's first scans like one closed now
                early = sorted(self.pressed_since & self.held & self._wait_keys)
                if early:
                    self._wait_keys = None
                    self._key_value = early[0]
                    self._key_seen(self.now)
                return
            if kind == "reel":
                self._wake = None
                self.keep_ticking()
                self._reel_edge()
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
