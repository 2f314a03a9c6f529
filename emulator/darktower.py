"""Wire a TMS1400 core into the Milton Bradley Dark Tower: keys, digits, lamps, reel, speaker.

The wiring is MAME 0.251's ``mbdtower`` driver as described in ``docs/dark-tower-wiring.md``
(sections named below; the numbers are ``captures.darktower_facts``):

    R0 R1 R2   key-matrix columns (§5)
    R3         not connected
    R4         /EN of the SN75494 driver: digits, lamps, sensor LED and speaker only while R4 = 0
    R5 R6 R7   lower / middle / upper card lamp
    R8         reel-sensor LED
    R9         reel motor
    R10        speaker (sounds as R10 AND NOT R4, §8)
    O0-O6      segments g c d e f a b (a=O5 b=O6 c=O1 d=O2 e=O3 f=O4 g=O0)
    O7         digit select (0 = left digit, 1 = right digit)
    K1 K2 K4 K8  key rows; K8 is OR-ed with the reel sensor

The reel (§6): 128 positions, a 27 ms tick timer; while running the position decrements
once per tick and a decay counter lets it coast up to 5 steps after R9 drops. The sensor sees
the LED through 8 holes (``(pos & 15) < 4 or pos < 12``), and the LED counts as lit through
MAME's 1/60 s PWM-display brightness (§7), which this model accumulates in exact machine
time. Timing is kept in integer units of 1/(3000 * clock) s so that 27 ms ticks, 1/60 s
frames and CPU cycles compare exactly.

Key timing (a decision): keys act at their exact script time (``schedule``) or from the start of
a given clock (``press(button, cycle)``); they are not snapped to frames. The K pins change at
the first cycle at or after that time; a K sample sees a change that falls inside its clock, as
MAME's does (docs/k-sampling.md, measured by tests/mame/test_k_sampling.py). MAME applies inputs
at 1/60 s frame boundaries, and the reference captures' scripts carry those boundary times, so
replaying them here gives the chip MAME's timing (all K1-K8 edges of the shared captures and of
the 30 corpus sessions match to the cycle); a button event carries the script time. A script
written for MAME with mid-frame times must be snapped with ``emulator.mame.frame_boundary``.

Reel events are published like MAME's frame-polled ``card_pos`` output: at the first 1/60 s
boundary at or after the tick that changed it; a tick on a boundary moves the reel first
(shared captures tower_test: reel events at 3.083333, 3.516667, ...; level4_bazaar: 52.65 s).

Example::

    cpu = Cpu(TMS1400, rom, mpla, glyph_output_pla())
    board = DarkTowerBoard(cpu)
    board.press("YES/BUY"); board.run_until(425_000)
    board.pins   # [(cycle, word), ...] over captures.model.DARKTOWER_CHANNELS
"""
from __future__ import annotations

import heapq
import struct
from itertools import chain

from captures.darktower_facts import (
    BUTTONS, KEY_MATRIX, LAMP_PINS, NOMINAL_CLOCK_HZ, REEL_COAST_MAX, REEL_STEPS, REEL_TICK_MS,
    GLYPHS, SEGMENTS, SEGMENT_PINS, o_pins, reel_card, reel_step, sensor_sees_light)
from captures.events import make_event
from captures.model import DARKTOWER_CHANNELS
from emulator.board import Board, BoardError

__all__ = [
    "BoardError", "DarkTowerBoard", "glyph_o_table", "glyph_output_pla", "write_glyph_output_pla",
    "segments_from_o", "reel_blind",
]


_BRI_CAP = 0.04           # PWM display brightness cap = 4 x the 0.01 "on" threshold (docs/dark-tower-wiring.md §7)
_BRI_ON = 0.01
_UNITS = 3000             # time unit = 1 / (3000 * clock) s: lcm of 1/60 s and 1 ms steps

_CH = {name: i for i, name in enumerate(DARKTOWER_CHANNELS)}
_R_SHIFT = _CH["R0"]
_O_SHIFT = _CH["O0"]
_K_SHIFT = _CH["K1"]
_SENSOR_BIT = 1 << _CH["SENSOR"]
# Records exchanged with the kernel's board (emulator/_fastcore.c, Core_board_run).
_KEY_REC = struct.Struct("<qBBB5x")
_PIN_REC = struct.Struct("<QQ")
_SPK_REC = struct.Struct("<QB7x")
_EV_REC = struct.Struct("<QBB6x")


def glyph_o_table() -> list[int]:
    """Return the 32 O-pin words of the Dark Tower output PLA, index = SL << 4 | A.

    O0-O6 carry the glyph of A (docs/mame-oracle.md §3 segment order), O7 = SL (digit select).
    """
    table = []
    for index in range(32):
        sl, a = index >> 4, index & 15
        word = o_pins(GLYPHS[a][1])
        table.append(word | (sl << 7))
    return table


def glyph_output_pla():
    """Return the Dark Tower output PLA (an ``emulator.pla.Pla``) built from the glyph table.

    Write it with ``emulator.pla.write_pla`` to get a MAME-loadable 557-byte
    ``tms1400_mbdtower_output.pla`` (32 terms, 5 inputs, 8 outputs).
    """
    from emulator.pla import Pla, terms_from_table

    return Pla(5, 8, terms_from_table(5, 8, glyph_o_table()))


def write_glyph_output_pla(fileobj) -> None:
    """Write the glyph output PLA as MAME's 557-byte ``tms1400_mbdtower_output.pla``."""
    from emulator.pla import MAME_PLA_SIZES, write_pla

    write_pla(glyph_output_pla(), fileobj, MAME_PLA_SIZES["tms1400_output"], term_count=32,
              title="glyph table")


def segments_from_o(o: int) -> str:
    """Return the lit segment letters (``abcdefg`` order) of O pins ``o``."""
    return "".join(s for s in SEGMENTS if o >> SEGMENT_PINS[s] & 1)


def reel_blind(pos: int) -> bool:
    """Return True when the sensor cannot see the LED at reel position ``pos``
    (docs/dark-tower-wiring.md §6)."""
    return not sensor_sees_light(pos)


# The reel's facts per position, for the kernel's copy of this board.
_REEL_BLIND = bytes(reel_blind(p) for p in range(REEL_STEPS))
_REEL_CARD = bytes(reel_card(p) for p in range(REEL_STEPS))


class DarkTowerBoard(Board):
    """The tower around a TMS1400 core: attaches to the core's pin callbacks.

    ``pins`` records every change of the pin word as ``(cycle, word)`` over
    ``DARKTOWER_CHANNELS`` (R0-R10, O0-O7, K1 K2 K4 K8 as the chip sees them, SENSOR);
    ``events`` holds the board-only events (reel card_pos, button press/release);
    ``speaker`` records ``(cycle, level)`` of R10 AND NOT R4. The keys, pin word and speaker
    log are ``emulator.board.Board``'s; this class adds the reel, the sensor LED and the
    exact key times.
    """

    name = "darktower"
    clock_hz = NOMINAL_CLOCK_HZ        # MAME 0.251 mbdtower (docs/adding-a-board.md, clocks)
    channels = DARKTOWER_CHANNELS
    KEYS = KEY_MATRIX                  # strobe line = R column 0-2
    key_names = BUTTONS

    def _setup(self) -> None:
        # Reel state (docs/dark-tower-wiring.md §6).
        self.pos = 0
        self.decay = 0
        self.running = False
        self.blind = False
        # PWM display brightness of the sensor LED element (docs/dark-tower-wiring.md §7).
        self.led_bri = 0.0
        self.led_on_units = 0          # lit time in the current frame (units)
        self._led_level = 0
        self._led_since = 0            # units
        self._now = 0                  # units processed so far
        self._tick = 1                 # next reel tick index
        self._frame = 1                # next frame index
        self._tick_units = REEL_TICK_MS * 3 * self.clock_hz   # 27 ms in units (1 ms = 3 x clock)
        self._frame_units = 50 * self.clock_hz   # 1/60 s in units
        # Pending key changes (``_sched``) are kept in units here, not cycles.
        self._card_pos = -1
        # The kernel's pin records (_PIN_REC) not yet in _pins, its blocks appended back to
        # back: a live reader takes the new ones by offset (pin_arrays), in time linear in them.
        self._pin_blocks = bytearray()

    def _attach(self, cpu) -> None:
        super()._attach(cpu)
        # The pins the chip drives already (e.g. O = OPLA(0) after its reset).
        self.write_r(0, cpu.r & 0x7FF)
        self.write_o(0, cpu.o & 0xFF)

    # ---- pins from the chip ------------------------------------------------------------

    def _apply_r(self, cycle: int, r: int) -> None:
        """Take R at ``cycle`` once every board event due by then has been processed."""
        old = self.r
        self.r = r & 0x7FF
        if self.r >> 9 & 1:                 # R9: any R write with the motor bit starts the reel
            self.running = True
        self._led_change(cycle)
        self._speaker_change(cycle)
        if old != self.r:
            self._update_word(cycle)

    def _speaker_level(self) -> int:
        """Return the speaker level: R10 AND NOT R4 (docs/dark-tower-wiring.md §8)."""
        return (self.r >> 10 & 1) & ~(self.r >> 4) & 1

    def read_k(self, cycle: int) -> int:
        """Return K1/K2/K4/K8 (bits 0-3) as the chip samples them during clock ``cycle``.

        The sample sees every board event before the end of that clock (``cycle + 1``): MAME
        runs the CPU in whole clocks and commits a timer (a 1/60 s input frame or brightness
        update, which falls between clock edges) before the clock in progress at its time; an
        event exactly on ``cycle + 1`` (a 27 ms reel tick there) is not seen yet
        (docs/k-sampling.md).
        """
        self._advance_units((cycle + 1) * _UNITS - 1)
        return self._k()

    # ---- time --------------------------------------------------------------------------

    def run_until(self, cycle: int) -> None:
        """Run the chip (if any) and the board up to ``cycle``."""
        if self.cpu is not None:
            if self.cpu.core != "fast":
                self.cpu.run_until(cycle)
            elif self._listeners:
                self._run_fast(cycle)
            else:
                self._run_kernel(cycle)
        self.advance_to(cycle)

    def _run_kernel(self, cycle: int) -> None:
        """Run an accelerated core and this board together in the compiled kernel.

        The kernel holds a copy of this board model (emulator/_fastcore.c, "the Dark Tower
        board"): the quanta of ``_run_fast`` with every pin change, reel tick, display frame
        and scheduled key handled in C, so only the recorded pins, speaker edges and events
        come back. Identical to ``_run_fast`` and to the reference core
        (tests/fastcore/test_fast_board.py).
        """
        core = self.cpu.board_kernel()
        core.board_setup(_UNITS, self._tick_units, self._frame_units, _R_SHIFT, _O_SHIFT,
                         _K_SHIFT, _SENSOR_BIT, _BRI_CAP, _BRI_ON, REEL_COAST_MAX, _REEL_BLIND,
                         _REEL_CARD)
        self.cpu.on_r = self.cpu.on_o = None
        self.cpu.set_k_orform(0)     # the kernel's board sets the form at every quantum
        pending = sorted(self._sched)
        sched = b"".join(_KEY_REC.pack(units, kind == "press", *KEY_MATRIX[button])
                         for units, _, _, kind, button, _ in pending)
        keys = self.lines                # strobe line = R column 0-2 (KEY_MATRIX)
        state = (self.r, self.o, keys[0], keys[1], keys[2], self.pos,
                 self.decay, self.running, self.blind, self._led_level,
                 self.speaker[-1][1], self._card_pos, self.led_bri, self.led_on_units,
                 self._led_since, self._now, self._tick, self._frame, self._word,
                 self._last_pin()[0])
        state, pins, replace, speaker, events, used = core.board_run(cycle, state, sched)
        (self.r, self.o, keys[0], keys[1], keys[2], self.pos, self.decay,
         running, blind, self._led_level, _, self._card_pos, self.led_bri, self.led_on_units,
         self._led_since, self._now, self._tick, self._frame, self._word, _) = state
        self.running, self.blind = bool(running), bool(blind)
        self._held = {line: bits for line, bits in enumerate(keys) if bits}
        taken = [heapq.heappop(self._sched) for _ in range(used)]
        if replace is not None:
            if self._pin_blocks:
                self._pin_blocks[-8:] = replace.to_bytes(8, "little")
            else:
                self._pins[-1] = (self._pins[-1][0], replace)
        if pins:
            self._pin_blocks += pins
        self.speaker.extend(_SPK_REC.iter_unpack(speaker))
        for i in range(0, len(events), 16):
            value, kind, aux = _EV_REC.unpack_from(events, i)
            if kind == 0:
                self.events.append(make_event(value / _UNITS / self.clock_hz, "reel",
                                              card_pos=aux))
            else:
                units, _, _, kind_, button, secs = taken[value]
                down = kind_ == "press"
                if down:
                    self.pressed.add(button)
                else:
                    self.pressed.discard(button)
                c = self._unit_cycle(units)
                t = c / self.clock_hz if secs is None else secs
                self.events.append(make_event(t, "button", button=button,
                                              action="press" if down else "release"))

    def _run_fast(self, cycle: int) -> None:
        """Run an accelerated core (emulator.fastcore) in quanta between board events.

        Between two board events (reel tick, 1/60 s frame, scheduled key) K is a fixed wired OR
        of the pressed keys of the strobed columns plus the sensor, so the kernel computes it
        itself and only the pin changes come back, in order, with their cycles. An instruction
        fetched at ``f`` samples K during clock ``f + 1``: it must see every event before
        ``f + 2``, which is what the reference path's ``read_k`` does; the quantum therefore
        ends before the first fetch whose sample clock reaches the next event. Identical pins
        and events to the callback path (tests/fastcore/test_fast_board.py).
        """
        cpu = self.cpu
        cpu.on_r = cpu.on_o = None
        write_r, write_o = self.write_r, self.write_o
        apply_r, apply_o = self._apply_r, self._apply_o
        while cpu.cycle < cycle:
            self._advance_units((cpu.cycle + 2) * _UNITS - 1)   # what the next K sample sees
            t_next = min(self._tick * self._tick_units, self._frame * self._frame_units)
            if self._sched:
                t_next = min(t_next, self._sched[0][0])
            first_seen = t_next // _UNITS           # first clock whose K sample sees it (read_k)
            cpu.set_k_orform(8 if self.sensor else 0, bytes(self.lines))
            cpu.run_until(min(cycle, first_seen - 1))
            # Edges before ``first_seen`` see no board event: no advance_to needed.
            last = 0
            for c, kind, value in cpu.take_edges():
                if c >= first_seen:
                    (write_r if kind == 0 else write_o)(c, value)
                else:
                    (apply_r if kind == 0 else apply_o)(c, value)
                    last = c
            if last:
                self._now = max(self._now, last * _UNITS)

    @property
    def pins(self) -> list[tuple[int, int]]:
        """Return every change of the pin word so far as ``(cycle, word)``, in order."""
        if self._pin_blocks:
            self._pins.extend(_PIN_REC.iter_unpack(self._pin_blocks))
            self._pin_blocks = bytearray()
        return self._pins

    @pins.setter
    def pins(self, value: list[tuple[int, int]]) -> None:
        self._pin_blocks = bytearray()
        self._pins = value

    def pin_arrays(self, start: int = 0):
        """Return the pin changes from index ``start`` on as numpy arrays (cycles as int64,
        words as uint64), without making a tuple of each (long sessions)."""
        import numpy as np

        times, words = [], []
        listed = len(self._pins)
        if start < listed:
            flat = np.fromiter(chain.from_iterable(self._pins[start:]), np.uint64,
                               2 * (listed - start))
            times.append(flat[0::2])
            words.append(flat[1::2])
        skip = max(0, start - listed) * _PIN_REC.size
        if skip < len(self._pin_blocks):
            rec = np.frombuffer(bytes(memoryview(self._pin_blocks)[skip:]),
                                np.uint64).reshape(-1, 2)
            times.append(rec[:, 0])
            words.append(rec[:, 1])
        if not times:
            return np.zeros(0, np.int64), np.zeros(0, np.uint64)
        return np.concatenate(times).astype(np.int64), np.concatenate(words)

    def event_count(self) -> int:
        """Return how many changes ``event_pins`` (the pins) holds."""
        return self.pin_count()

    def event_pairs(self, start: int = 0) -> list[tuple[int, int]]:
        """Return the pin changes from index ``start`` on as ``(cycle, word)``, without
        turning the older kernel records into tuples."""
        listed = len(self._pins)
        out = self._pins[start:] if start < listed else []
        skip = max(0, start - listed) * _PIN_REC.size
        if skip < len(self._pin_blocks):
            out += _PIN_REC.iter_unpack(memoryview(self._pin_blocks)[skip:])
        return out

    def pin_count(self) -> int:
        """Return how many pin changes ``pins`` holds."""
        return len(self._pins) + len(self._pin_blocks) // _PIN_REC.size

    def pin_mark(self) -> tuple[int, tuple[int, int]]:
        """Return ``(len(pins), pins[-1])`` without turning the kernel's records into tuples."""
        return self.pin_count(), self._last_pin()

    def _last_pin(self) -> tuple[int, int]:
        if self._pin_blocks:
            return _PIN_REC.unpack_from(self._pin_blocks, len(self._pin_blocks) - _PIN_REC.size)
        return self._pins[-1]

    def advance_to(self, cycle: int) -> None:
        """Process reel ticks, display frames and scheduled keys due at or before ``cycle``."""
        self._advance_units(cycle * _UNITS)
        self._now = max(self._now, cycle * _UNITS)

    def _advance_units(self, limit: int) -> None:
        """Process the board events due at or before ``limit`` (units)."""
        while True:
            t_tick = self._tick * self._tick_units
            t_frame = self._frame * self._frame_units
            t_key = self._sched[0][0] if self._sched else None
            t = min(t_tick, t_frame) if t_key is None else min(t_tick, t_frame, t_key)
            if t > limit:
                break
            self._now = t
            if t_key is not None and t_key == t:
                _, _, _, kind, button, secs = heapq.heappop(self._sched)
                self._apply_key(button, kind == "press", self._unit_cycle(t), secs)
            elif t_tick == t:          # at a tie the reel moves first (shared capture
                self._reel_tick()      # level4_bazaar: card_pos 1 polled at 52.65 s)
            else:
                self._frame_tick()

    @property
    def card_pos(self) -> int:
        """Return the reel card position 0-7 (``(pos >> 4) & 7``)."""
        return reel_card(self.pos)

    @property
    def sensor(self) -> int:
        """Return 1 while the sensor sees the lit LED through a hole (K8 OR-ed term)."""
        return int(not self.blind and self.led_bri > _BRI_ON)

    def lamps(self) -> dict[str, int]:
        """Return the lamps as lit now (R5-R7 while R4 = 0)."""
        en = not (self.r >> 4 & 1)
        return {name: int(en and self.r >> pin & 1) for name, pin in LAMP_PINS.items()}

    # ---- internals -------------------------------------------------------------------------

    def _now_cycle(self) -> int:
        return self._unit_cycle(self._now)

    def _strobe(self) -> int:
        return self.r                  # R0-R2 select the key columns

    def _k(self) -> int:
        return self._keys_k() | (8 if self.sensor else 0)   # K8 is OR-ed with the reel sensor

    def _word_now(self) -> int:
        # Board._word_now plus the SENSOR bit, with the sensor read once (the pin word is
        # rebuilt at every pin change, reel tick and frame).
        if self.sensor:
            k = self._keys_k() | 8
            return (self.r << _R_SHIFT) | (self.o << _O_SHIFT) | (k << _K_SHIFT) | _SENSOR_BIT
        return (self.r << _R_SHIFT) | (self.o << _O_SHIFT) | (self._keys_k() << _K_SHIFT)

    def _unit_cycle(self, units: int) -> int:
        return -(-units // _UNITS)

    def _led_change(self, cycle: int) -> None:
        level = (self.r >> 8 & 1) & ~(self.r >> 4) & 1
        if level != self._led_level:
            now = cycle * _UNITS
            if self._led_level:
                self.led_on_units += now - self._led_since
            self._led_since = now
            self._led_level = level

    def _frame_tick(self) -> None:
        """Update the PWM brightness at a 1/60 s boundary and poll card_pos
        (docs/dark-tower-wiring.md §7)."""
        now = self._now
        on = self.led_on_units
        if self._led_level:
            on += now - self._led_since
            self._led_since = now
        self.led_on_units = 0
        self.led_bri = min(0.5 * self.led_bri + 0.5 * (on / self._frame_units), _BRI_CAP)
        self._frame += 1
        if self.card_pos != self._card_pos:
            self._card_pos = self.card_pos
            self.events.append(make_event(now / _UNITS / self.clock_hz, "reel",
                                          card_pos=self._card_pos))
        self._update_word(self._unit_cycle(now))

    def _reel_tick(self) -> None:
        """Advance the reel by one 27 ms timer tick (docs/dark-tower-wiring.md §6)."""
        self.pos, self.decay, self.running = reel_step(self.pos, self.decay, self.running,
                                                       self.r >> 9 & 1)
        self.blind = reel_blind(self.pos)
        self._tick += 1
        self._update_word(self._unit_cycle(self._now))

    def _queue_at(self, seconds: float, order: int, kind: str, key: str) -> None:
        """Queue a scripted key change at its exact time: a 1/60 s frame boundary of a
        script lies between clock edges, and the K sample of the clock it falls in sees it."""
        self._check_key(key)
        self._seq += 1
        units = round(seconds * self.clock_hz * _UNITS)
        heapq.heappush(self._sched, (units, order, self._seq, kind, key, seconds))

    def _queue(self, cycle: int, order: int, kind: str, key: str,
               seconds: float | None = None) -> None:
        """Queue a key change at the start of clock ``cycle`` (see ``_queue_at``)."""
        self._check_key(key)
        self._seq += 1
        heapq.heappush(self._sched, (cycle * _UNITS, order, self._seq, kind, key, seconds))
