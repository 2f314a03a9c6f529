"""Count the display ticks the key-wait loop runs on: the flash timer and the key scans.

The tower's time base is a display tick (one digit refresh; cleanroom/README.md, "Timing
observed in the genuine recordings"): in the key-wait loop ``tick_lit_s`` while a digit is lit
and ``tick_dark_s`` while the display is dark, and no ticks at all while a tone or a cue sounds
(the chip is busy making the square wave).  The flash timer counts these ticks in the key-wait
loop only; every ``flash_ticks`` ticks its state bit toggles.  The key scan runs every
``scan_ticks`` ticks from the moment the game starts waiting for a key; a key is taken at the
second scan that sees it closed.  cleanroom.engine (its module doc tells the whole clock)
runs the flows on this clock: ``Engine`` is a ``TickClock`` and holds the state these
methods share (set in ``Engine.__init__`` and at power-on).
"""
from __future__ import annotations

import math

from captures.darktower_facts import KEY_MATRIX, NOMINAL_CLOCK_HZ

from .params import param

__all__ = ["TickClock"]

_EPS = 1e-9


class TickClock:
    """The flash timer's and the key scans' tick count, and the tones that stop it."""

    __slots__ = ()      # the state is the engine's (its slots)

    # ---- the tick clock ----------------------------------------------------------------
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
        # a function of its arguments, the engine's clock ratio and fixed parameters: worked
        # out once per combination (the engine's cache), a handful in a game
        key = (lit, mode)
        t = self._tick_lens.get(key)
        if t is None:
            t = param("tick_lit_s" if lit else "tick_dark_s")
            if mode is not None and mode[0] != "entry":
                kind, col = mode
                cut = (param("release_pass_cut_cycles") if kind == "release"
                       else param(f"{kind}_key_pass_cut_cycles")[col])
                t -= cut / 3 / NOMINAL_CLOCK_HZ
            t = self._tick_lens[key] = t / self.clock_ratio
        return t

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
        if not self.held:
            return None
        return max(KEY_MATRIX[b][0] for b in self.held)

    def _next_scan_ticks(self) -> float:
        """Return the tick count of the next key scan (every ``scan_ticks`` from the loop's
        entry)."""
        k = self._scan_ticks
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
        if not self._tones or self._tones[-1][1] <= t0:
            return t0 + running     # every tone over by t0 (the last span ends last)
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
        if not self._tones or self._tones[-1][1] <= t0:
            return max(0.0, run)    # every tone over by t0 (the last span ends last)
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
        # the toggle itself is handled in advance(); never run past it here (min(ticks,
        # boundary): the boundary only when below)
        boundary = self._next_boundary()
        if boundary < self._ticks:
            self._ticks = boundary

    def _next_boundary(self) -> float:
        """Return the tick count of the flash timer's next toggle (its next phase)."""
        n = self._flash_ticks
        return (math.floor(self._ticks / n + 1e-9) + 1) * n

    def _time_at_ticks(self, target: float, tick_s: float) -> float:
        """Return when the tick count reaches ``target`` (within the current flash phase),
        in the key-wait loop with ticks of ``tick_s`` seconds (``_tick_s``)."""
        left = target - self._ticks
        return self._run_until(self._tk_t, (left if left > 0.0 else 0.0) * tick_s)

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
        self._ticks = self._next_boundary()
        self._toggled_at = self._ticks
        self._tk_t = t
        self._fstate = not self._fstate
        # the toggle's own work: the next ticks come that much later
        self._pause(t, t + self._toggle_extra_s())
        text = self._ftext
        if text is not None:
            self._put_display(t, text if self._fstate else "  ")
            self._lit = self._fstate and bool(text.strip())

    def _toggle_extra_s(self) -> float:
        return self._toggle_extra_cycles / NOMINAL_CLOCK_HZ / self.clock_ratio

    # ---- the key-wait loop's scans ------------------------------------------------------
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
        n = self._flash_ticks
        seen = target - param("toggle_bit_before_take_ticks")
        crossed = math.floor(seen / n + 1e-9) - math.floor(self._ticks / n + 1e-9)
        self._bit_at_key = self._fstate ^ (crossed % 2 == 1)
        cycles = param("click_after_scan_cycles")
        self._take_ticks = target
        self._take_click_s = cycles[key_col] / NOMINAL_CLOCK_HZ / self.clock_ratio
        self._click_lag = (cycles[key_col] - cycles[2]) / NOMINAL_CLOCK_HZ / self.clock_ratio
        self._wake = None

    # ---- no ticks while the chip sounds -------------------------------------------------
    def _pause(self, a: float, b: float) -> None:
        """Record that the tick clock stops from ``a`` to ``b`` (a tone or a whole cue)."""
        self._sync_ticks(self.now)
        # ``_tones`` is always sorted, each span starting more than ``_EPS`` after the one
        # before it ends (what the merge below makes; dropping spans or cutting their ends,
        # ``_first_scan_at``, keeps it so): the last span ends last
        since = self._tk_t - 1.0
        spans = [span for span in self._tones if span[1] >= since]
        new = (a, b)
        if not spans or (new >= spans[-1] and a > spans[-1][1] + _EPS):
            # the usual case, a span after all the others: the sort and the merge would
            # leave the list as it is, with the span at its end
            spans.append(new)
            self._tones = spans
            return
        spans.append(new)
        spans.sort()
        merged: list[tuple[float, float]] = []
        for x, y in spans:
            if merged and x <= merged[-1][1] + _EPS:
                merged[-1] = (merged[-1][0], max(merged[-1][1], y))
            else:
                merged.append((x, y))
        self._tones = merged

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
