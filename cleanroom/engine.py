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
mode, so the same stepping times both.  The tick clock and the key scans are
cleanroom.ticks (``TickClock``, which ``Engine`` extends).

Commands a flow may yield::

    ("sleep", seconds)           resume after that much tower time
    ("key", frozenset(buttons))  resume when one of the buttons is seen; the value is its name
    ("reel", target)             turn the reel: target = card 0-7, or "index" (find the index
                                 hole); resume when the motor has stopped
"""
from __future__ import annotations

import math
from array import array
from typing import Callable, Generator

from captures.darktower_facts import NOMINAL_CLOCK_HZ
from captures.script import BUTTONS

from .params import SOUNDS, Sound, param
from .reel import Reel, sensor_lit, stop_position
from .ticks import _EPS, TickClock
from .watched import Watched, plain

__all__ = ["Engine", "EngineError", "Flow"]

Flow = Generator[tuple, object, None]


class EngineError(ValueError):
    """A button or time given to the game is not valid; the message says what was expected."""


def _frame_ceil(t: float) -> float:
    """Return the first 1/60 s frame boundary at or after ``t`` (seconds)."""
    return math.ceil(t * 60 - 1e-3) / 60


def _tone_fields(freq_hz: float | None, dur_s: float, cue: str | None,
                 clock_ratio: float) -> tuple[dict, float]:
    """Return a tone's event fields on a tower of ``clock_ratio`` and its length (s)."""
    k = clock_ratio
    if freq_hz is not None:
        freq_hz = round(freq_hz * k, 1)
    dur_s = dur_s / k
    fields = {"freq_hz": freq_hz, "dur_s": round(dur_s, 4),
              "pulses": max(1, round((freq_hz or 0) * dur_s))}
    if cue:
        fields["cue"] = cue
    return fields, dur_s


# _cue_tones's answers: (cue name, clock ratio) -> (the cue's Sound, its notes)
_CUE_TONES: dict[tuple[str, float], tuple[Sound, list[tuple[float, dict]]]] = {}


def _cue_tones(snd: Sound, name: str, clock_ratio: float) -> list[tuple[float, dict]]:
    """Return the notes of sound cue ``snd`` (named ``name``) as (offset from its start in s
    on a tower of ``clock_ratio``, the tone's event fields), as ``Engine.tone`` works them
    out.  They depend on nothing else, so each cue is worked out once per clock ratio (and
    again if its Sound is replaced); a name that is not a plain string (a decision's value,
    cleanroom.watched) is worked out each time.  The fields are never changed: a tone's
    event is a new dict made from them."""
    plain_name = type(name) is str
    made = _CUE_TONES.get((name, clock_ratio)) if plain_name else None
    if made is not None and made[0] is snd:
        return made[1]
    notes = [(off / clock_ratio, _tone_fields(freq, dur, name, clock_ratio)[0])
             for off, freq, dur in snd.notes]
    if plain_name:
        _CUE_TONES[name, clock_ratio] = (snd, notes)
    return notes


class Engine(TickClock):
    """Hold tower time, the outputs and one running flow; advance them together."""

    # Every attribute is a slot (those TickClock's methods share too, all set in __init__):
    # the clock reads them at every step, and a slot is read faster than one of these many
    # entries of an instance dict (a replay about 5 % sooner).
    __slots__ = (
        "clock_ratio", "_factory", "now", "events", "marks_t", "marks_now", "reel", "powered",
        "held", "held_since", "pressed_since", "_flow", "_wake", "_wait_keys", "_key_value",
        "_reel_target", "_lit_run", "_ftext", "_fstate", "_toggled_at", "_fpending", "_ticks",
        "_tk_t", "_lit", "_scan_mode", "_mode_pending", "_click_lag", "_entry_hint", "_in_loop",
        "_loop_ticks0", "_scan_lead", "_take_ticks", "_take_click_s", "_taken_ticks",
        "_bit_at_key", "_tones", "_disp", "_lamps", "_last_card", "_next_tick", "_reel_tick_s",
        "_flash_ticks", "_scan_ticks", "_frame_s", "_toggle_extra_cycles", "_tick_lens", "decide",
        "takes")

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
        # when each event was written or taken back: its time (``marks_t``) and the tower's
        # (``marks_now``, never decreasing), in the order written (cleanroom.cut cuts a
        # replay's events at an earlier time where nothing written later lands before it)
        self.marks_t = array("d")
        self.marks_now = array("d")
        self.reel = Reel()
        self.powered = False
        self.held: set[str] = set()
        self.held_since: dict[str, float] = {}     # when each held key closed
        self.pressed_since: set[str] = set()
        self._flow: Flow | None = None
        self._wake: float | None = None
        self._wait_keys: frozenset | None = None
        self._key_value: str | None = None
        self._reel_target: object = None
        self._lit_run = 0
        self._ftext: str | None = None      # the flashing text, shown while the bit is on
        self._fstate = False                # the flash timer's state bit (on = shown)
        self._toggled_at: float | None = None   # the tick count of the last toggle
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
        # (time, key, key-loop passes) of each key taken since power-on: the passes from the
        # loop's entry to the scan that took it, as the pins count R2 strobes (for studies of
        # what the hidden state depends on, cleanroom/start_state.py)
        self.takes: list[tuple[float, str | None, float]] = []
        self._tones: list[tuple[float, float]] = []   # (start, end): no ticks while sounding
        self._disp: list[dict] = []
        self._lamps = {"upper": 0, "middle": 0, "lower": 0}
        self._last_card: int | None = None
        self._next_tick = 1
        # The parameters the clock reads at every step, read once for the game: cleanroom.params
        # holds fixed values (nothing changes PARAMS while a game runs; a test that patched
        # one would make its tower after), so these are the numbers param() would answer.
        self._reel_tick_s = param("reel_tick_s")
        self._flash_ticks = param("flash_ticks")
        self._scan_ticks = param("scan_ticks")
        self._frame_s = param("frame_s")
        self._toggle_extra_cycles = param("toggle_extra_cycles")
        self._tick_lens: dict[tuple, float] = {}    # TickClock._tick_len's answers
        # asks the game's chooser for a decision: (name, options, weights) -> option
        self.decide: Callable[[str, list, list | None], object] | None = None

    # ---- outputs --------------------------------------------------------------------
    def emit(self, t: float, type: str, **fields) -> None:
        """Record an event at ``t`` seconds (a decision's value in it is looked at now:
        cleanroom.watched)."""
        for v in fields.values():
            if v.__class__ is Watched:
                fields = {k: plain(v) for k, v in fields.items()}
                break
        # make_event's dict, made here at once (the game makes thousands: a call each costs
        # a tenth of a replay)
        t = round(float(t), 6)
        self.events.append({"t": t, "type": type, **fields})
        self.marks_t.append(t)
        self.marks_now.append(self.now)

    def _put_display(self, t: float, text: str) -> None:
        if type(text) is Watched:       # plain(text), without a call for a plain one
            text = plain(text)
        t = round(self._frame_of_change(t, text), 6)
        disp = self._disp
        if disp:
            last = disp[-1]
            if t < last["t"]:
                t = last["t"]       # changes stay in order: the later one wins the frame
            if abs(last["t"] - t) < 1e-6:
                # Two changes inside one 1/60 s frame: the decoder reports only the later one.
                disp.pop()
                events = self.events
                for i in range(len(events) - 1, -1, -1):
                    if events[i] is last:
                        del events[i]
                        break
                self.marks_t.append(last["t"])
                self.marks_now.append(self.now)
        shown = disp[-1]["text"] if disp else None
        if text != shown:
            # make_event's dict: t is rounded to the microsecond already, as it would round
            # it (rounding a rounded time again gives the same float)
            ev = {"t": t, "type": "display", "text": text}
            self.events.append(ev)
            disp.append(ev)
            self.marks_t.append(t)
            self.marks_now.append(self.now)

    def _frame_of_change(self, t: float, text: str) -> float:
        """Return the 1/60 s window start at which the decoder reports a change to ``text`` at
        ``t`` seconds (tests/data/captures/README.md): a text that lights up is seen in the
        window where it is driven for more than 2 % of it, a blank from the first window where
        the old text is not, and a text replacing another in the window where it is driven
        longer."""
        frame = self._frame_s
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
        fields, dur_s = _tone_fields(freq_hz, dur_s, cue, self.clock_ratio)
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

    def sound(self, name: str, at: float | None = None, early: float = 0.0) -> float:
        """Play sound cue ``name`` from ``at``; return its length (tail included) in seconds of
        the reference clock, as flows sleep.  ``early``: the chip is free again that long
        before the last note's decoded end (a key loop that follows may begin then)."""
        snd = SOUNDS[name]
        t0 = self.now if at is None else at
        if name in param("flash_toggling_cues"):
            self.force_toggle()
        for off_s, fields in _cue_tones(snd, name, self.clock_ratio):
            self.emit(t0 + off_s, "tone", **fields)
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
            self.takes = []
            self._toggled_at = None
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
        self.held_since.setdefault(button, self.now)
        self._keys_changed()
        self.pressed_since.add(button)
        if self.powered and self._wait_keys and (button in self._wait_keys
                                                 or self._stray_taken(button)):
            self._wait_keys = None
            self._key_value = button
            self._key_seen(self.now)

    def _stray_taken(self, button: str) -> bool:
        """Return True when the waiting key loop takes ``button``, a key its prompt does not
        take, with a click and nothing else (decision ``stray_key``; no recording has one:
        cleanroom/params.py).  The prompt then waits on (``Stage.prompt``)."""
        if self.decide is None:
            return False
        return bool(self.decide("stray_key", [False, True], list(param("stray_key"))))

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
            self.held_since.pop(button, None)
            self._keys_changed()
            self.emit(self.now, "button", button=button, action="release")

    # ---- time -----------------------------------------------------------------------
    def advance(self, seconds: float) -> None:
        """Let ``seconds`` of tower time pass."""
        if not seconds >= 0 or seconds == float("inf"):
            raise EngineError(f"advance: {seconds!r} must be a finite number of seconds >= 0")
        end = self.now + seconds
        tick_s = self._reel_tick_s
        reel = self.reel
        while True:
            # The next thing due, the earliest of: the end, a flashing text that starts
            # later, the flash timer's toggle, the next scan's key mode, the scan that takes
            # a key, the flow's wake, the reel's step (of equal times, the first handled
            # below goes first).  Outside the key-wait loop the tick clock stands still: no
            # toggle, mode or take is due (at inf), so none is looked at.
            t = end
            fpending = self._fpending
            if fpending is not None and fpending[0] < t:
                t = fpending[0]
            toggle = col_at = take_at = None
            tick_s_now = self._tick_s()     # inf outside the key-wait loop
            if tick_s_now != math.inf:
                # when the tick count reaches the next phase boundary, the next scan's and
                # the taking scan's counts (the tick's length read once for the three)
                if self.powered:
                    toggle = self._time_at_ticks(self._next_boundary(), tick_s_now)
                    if toggle < t:
                        t = toggle
                if self._mode_pending is not None:
                    col_at = self._time_at_ticks(self._mode_pending[0], tick_s_now)
                    if col_at < t:
                        t = col_at
                if self._take_ticks is not None:
                    take_at = self._time_at_ticks(self._take_ticks, tick_s_now)
                    if take_at < t:
                        t = take_at
            others = t      # the earliest but the wake and the reel's step
            wake = self._wake
            if wake is not None and wake < t:
                t = wake
            reel_at = None
            if reel.running:
                reel_at = self._next_tick * tick_s
                if reel_at < t:
                    t = reel_at
            if t > end + _EPS:
                break
            if t > self.now:
                self.now = t
            if reel_at is not None and abs(t - reel_at) < _EPS:
                self._tick()
                # the reel's next steps, while nothing else is due first: a step changes
                # only the reel and the wake, so the other times found above stand
                while reel.running:
                    reel_at = self._next_tick * tick_s
                    t = others
                    wake = self._wake
                    if wake is not None and wake < t:
                        t = wake
                    if reel_at < t:
                        t = reel_at
                    if not abs(t - reel_at) < _EPS:
                        break
                    if t > self.now:
                        self.now = t
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
                self.takes.append((t, self._key_value, (self._take_ticks - self._loop_ticks0
                                                        + self._scan_lead) / self._scan_ticks))
                self._taken_ticks, self._take_ticks = self._take_ticks, None
                self._wake = t + self._take_click_s
                continue
            if fpending is not None and abs(t - fpending[0]) < _EPS:
                _, text, restart = fpending
                self._sync_ticks(t)
                self.flash(text, at=t, restart=restart)
                continue
            if wake is not None and abs(t - wake) < _EPS:
                self._sync_ticks(t)
                if self._taken_ticks is not None:
                    # the loop ends at the scan that took the key: a whole number of ticks
                    # (the refreshes counted are whole even when the scans came early)
                    self._ticks = self._taken_ticks + self._scan_lead
                    self._taken_ticks = None
                    # a toggle due at the take's last refresh (the count stopped at it and
                    # it was not made yet) happens before the flow goes on
                    n = self._flash_ticks
                    if abs(self._ticks - round(self._ticks / n) * n) < 1e-9 and \
                            self._toggled_at != self._ticks:
                        self._toggle(t)
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
        t = self._next_tick * self._reel_tick_s
        self._next_tick += 1
        reel = self.reel
        if not reel.tick():
            return
        pos = reel.pos
        card = reel.card
        if card != self._last_card:
            self._last_card = card
            self.emit(_frame_ceil(t + 1e-6), "reel", card_pos=card)
        target = self._reel_target
        if target is None:
            return
        stop = False
        if target == "index":
            if sensor_lit(pos):
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
