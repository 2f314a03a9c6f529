"""Decode the key matrix scan: which key the chip saw pressed, and when.

Channels read: R0, R1, R2 (column strobes), K1, K2, K4, K8 (rows as the chip sees them), and
SENSOR if captured (the reel sensor, OR-ed into K8 on the board). Key matrix from MAME's
mbdtower driver (docs/dark-tower-wiring.md §5); keys are active high::

    column   K1            K2       K4       K8
    R0       INVENTORY     NO/END   CLEAR    SANCTUARY/CITADEL
    R1       FRONTIER      REPEAT   BAZAAR   MOVE
    R2       DARK TOWER    YES/BUY  HAGGLE   TOMB/RUIN

Events emitted (``button`` events of the shared vocabulary, marked as decoded)::

    {"t": 3.449, "type": "button", "button": "YES/BUY", "action": "press", "source": "keypad"}
    {"t": 11.756, "type": "button", "button": "YES/BUY", "action": "release", "source": "keypad",
     "down_until": 3.4745}

- A strobe is a span during which exactly one of R0-R2 is high; the K rows high during it are
  that column's pressed keys. A key's state changes when a strobe of its column sees a
  different value; ``t`` = the strobe's start (the chip reads K during the strobe).
- A release's ``t`` is the first strobe of the key's column that sees it up; ``down_until``
  is the release edge, the end of the last strobe that saw it down (the K row falls there).
  The key was let go somewhere in between, and a firmware that stops scanning (the tower
  test's reel turn: no strobe of R2 from 3.47 s to 11.76 s in ``level_select``) leaves that
  span long: the hold a person saw ends at ``down_until`` (``analysis.plot.button_blocks``).
- The K8 row is ambiguous while the reel sensor is lit: if SENSOR is captured and high during
  the strobe (or, without SENSOR, K8 was already high with no column strobed just before), the
  K8 keys of that column keep their previous state.

A strobe cut by a gap in the capture, or already running when the data resumes, is not
judged (it may have seen only part of its rows); the next whole strobe of the column is.

Script button events (``t`` = the 1/60 s frame when MAME applied the key) precede the decoded
press by up to one scan period (about 25 ms at 425 kHz in the shared captures).
"""
from __future__ import annotations

from analysis.base import Decoder, seconds
from captures.darktower_facts import KEY_MATRIX

__all__ = ["KeypadDecoder"]

# _BUTTON_AT[column][row bit] -> button name (row bits: K1=0, K2=1, K4=2, K8=3).
_BUTTON_AT = tuple(
    tuple(next(b for b, at in KEY_MATRIX.items() if at == (col, 1 << row)) for row in range(4))
    for col in range(3))


class KeypadDecoder(Decoder):
    """Turn column strobes and K rows into decoded button press/release events."""

    NAME = "keypad"
    EVENT = "button"       # the event type it emits
    CHANNELS = ("R0", "R1", "R2", "K1", "K2", "K4", "K8")
    OPTIONAL = ("SENSOR",)

    def __init__(self, info):
        super().__init__(info)
        self._sensor = self.sel.bit("SENSOR")
        self._col = -1            # column of the strobe in progress (-1: none)
        self._start = 0           # its start (samples)
        self._seen = 0            # K rows seen high during it
        self._k8_blind = False    # the sensor hides the K8 row during this strobe
        self._idle_k8 = 0         # K8 with no column strobed (the sensor, when SENSOR is absent)
        self._state = [0, 0, 0]   # pressed rows per column
        self._resumed = -1        # end of the last gap: strobes starting by then are partial
        self._down_end = [[0] * 4 for _ in range(3)]   # per column and row: release edge

    def on_change(self, t: int, value: int, out: list[dict]) -> None:
        cols = value & 7
        rows = value >> 3 & 0xF
        col = {1: 0, 2: 1, 4: 2}.get(cols, -1)
        if col != self._col:
            if self._col >= 0:
                self._end_strobe(t, out)
            self._col, self._start, self._seen, self._k8_blind = col, t, 0, False
        if cols == 0:
            self._idle_k8 = rows >> 3 & 1
        if col >= 0:
            self._seen |= rows
            if (value & self._sensor) if self._sensor else self._idle_k8:
                self._k8_blind = True

    def advance(self, t: int, out: list[dict]) -> None:
        self.horizon = self._start if self._col >= 0 else max(self.horizon, t)

    def close(self, end: int, out: list[dict]) -> None:
        if self._col >= 0:
            self._end_strobe(end, out)
            self._col = -1

    def cut(self, start: int, end: int, out: list[dict]) -> None:
        self._resumed = end

    def _copy_state(self, twin: "KeypadDecoder") -> None:
        twin._state = list(self._state)
        twin._down_end = [list(rows) for rows in self._down_end]

    def _end_strobe(self, end: int, out: list[dict]) -> None:
        """Judge the strobe that ends at sample ``end``."""
        if self._start <= self._resumed:
            return
        col, seen = self._col, self._seen
        old = self._state[col]
        if self._k8_blind:
            seen = (seen & 7) | (old & 8)
        for row in range(4):
            was, now = old >> row & 1, seen >> row & 1
            if was != now:
                ev = {"t": seconds(self._start, self.rate), "type": "button",
                      "button": _BUTTON_AT[col][row],
                      "action": "press" if now else "release", "source": "keypad"}
                if not now:
                    ev["down_until"] = seconds(self._down_end[col][row], self.rate)
                out.append(ev)
            if now and not (row == 3 and self._k8_blind):
                self._down_end[col][row] = end
        self._state[col] = seen
