"""Queue key presses and releases at exact script times: the part every board model shares.

A board's chip sees a key from the first oscillator cycle at or after the key's script time
(``cycle_at``); presses and releases wait in a heap ordered by (cycle, release before press,
arrival) until the board's clock reaches them. Boards define ``clock_hz``, ``_check_key`` (which
raises for a name the board has no key for) and process the heap themselves; a board that keeps
a scripted key's exact time (the Dark Tower's, whose K samples see a change inside their clock,
docs/k-sampling.md) overrides ``_queue_at``.
"""
from __future__ import annotations

import heapq

from captures.script import Power, Press, Script

__all__ = ["BoardError", "ScriptedKeys"]


class BoardError(ValueError):
    """A board was driven with a bad value (unknown key, bad script action); one line."""


class ScriptedKeys:
    """Mixin: ``schedule(script)``, ``cycle_at(seconds)`` and the key heap ``_sched``."""

    clock_hz: int

    def _check_key(self, key: str) -> None:  # pragma: no cover - each board defines it
        raise NotImplementedError

    def cycle_at(self, seconds: float) -> int:
        """Return the first cycle at or after ``seconds`` (rounded to 1 ns against float noise)."""
        c = round(seconds * self.clock_hz * 1e6) / 1e6
        return int(-(-c // 1))

    def schedule(self, script: Script) -> None:
        """Queue a script's presses and releases at their exact times (seconds -> cycles).

        Power actions other than an initial ``0 power on`` are refused: a board cannot power
        itself off (use ``rig.targets.EmulatorTower``).
        """
        for a in script.actions:
            if isinstance(a, Power):
                if a.on and a.t == 0:
                    continue
                raise BoardError(f"{script.name}: 'power {'on' if a.on else 'off'}' at "
                                 f"{a.t:g} s cannot be scheduled on a board (use a tower)")
            if isinstance(a, Press):
                self._queue_at(a.t, 1, "press", a.button)
                self._queue_at(a.t + a.hold, 0, "release", a.button)

    def _queue_at(self, seconds: float, order: int, kind: str, key: str) -> None:
        """Queue ``kind`` of ``key`` at script time ``seconds`` (a board keeping exact times
        overrides this; the default acts from ``cycle_at(seconds)``)."""
        self._queue(self.cycle_at(seconds), order, kind, key, seconds)

    def _queue(self, cycle: int, order: int, kind: str, key: str,
               seconds: float | None = None) -> None:
        """Queue ``kind`` ("press"/"release") of ``key`` at ``cycle``; order 0 = release first."""
        self._check_key(key)
        self._seq += 1
        heapq.heappush(self._sched, (cycle, order, self._seq, kind, key, seconds))
