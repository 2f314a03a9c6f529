"""An asyncio event loop on simulated time: it never sleeps, it jumps to the next timer.

``VirtualClockLoop().time()`` starts at 0 and advances only when every task waits: the loop
asks its selector to wait ``timeout`` seconds for the next timer, and the selector (after a
real zero-wait poll, so sockets and the loop's self-pipe still work) moves the clock forward
by exactly that much instead. ``asyncio.sleep``, ``asyncio.wait_for`` and ``loop.call_at``
therefore all run in simulated seconds, as fast as the CPU allows and the same on every run.
A loop with no timer and nothing ready would wait forever: it raises ``VirtualClockDeadlock``
instead, so a test that waits for something that never comes fails at once.
"""
from __future__ import annotations

import asyncio
import selectors

__all__ = ["VirtualClockLoop", "VirtualClockDeadlock"]


class VirtualClockDeadlock(RuntimeError):
    """Every task waits and no timer is set: on simulated time nothing can ever happen."""


class _JumpingSelector:
    """Wraps a real selector; a wait of ``timeout`` advances the loop's clock instead."""

    def __init__(self, real: selectors.BaseSelector, loop: "VirtualClockLoop"):
        self._real = real
        self._loop = loop

    def select(self, timeout=None):
        events = self._real.select(0)
        if events:
            return events
        if timeout is None:
            raise VirtualClockDeadlock(
                f"simulated time {self._loop.time():.3f} s: every task waits and no timer is "
                f"set (a wait that can never end)")
        if timeout > 0:
            self._loop.advance_clock(timeout)
        return []

    def __getattr__(self, name):
        return getattr(self._real, name)


class VirtualClockLoop(asyncio.SelectorEventLoop):
    """A selector event loop whose ``time()`` is simulated seconds (see the module)."""

    def __init__(self, start: float = 0.0):
        super().__init__(selectors.DefaultSelector())
        self._virtual_now = float(start)
        self._selector = _JumpingSelector(self._selector, self)

    def time(self) -> float:
        """Return the simulated time in seconds."""
        return self._virtual_now

    def advance_clock(self, seconds: float) -> None:
        """Move the simulated clock forward by ``seconds`` (the loop does this itself)."""
        if seconds < 0:
            raise ValueError(f"cannot move simulated time back ({seconds} s)")
        self._virtual_now += seconds
