"""The one protocol every tower answers: the real tower through the rig, the emulator's board,
the clean-room game and a replayed recording.

Higher code (session runner, rig, CLI, pytest plugin) speaks only this interface::

    tower.power(True)            # switch on (power-on reset)
    tower.press("YES/BUY")       # close a key contact
    tower.advance(0.2)           # let 0.2 s of tower time pass
    tower.release("YES/BUY")
    tower.now                    # seconds since the session started
    tower.events()               # what the tower showed so far (captures.events vocabulary)
    tower.close()

``run_script`` drives any Tower through a ``captures.script.Script``; ``play_to`` does it a
stretch at a time (a caller that reads the tower as it runs).
"""
from __future__ import annotations

from typing import Protocol, Sequence, runtime_checkable

from captures.script import Script, timeline

__all__ = ["Tower", "run_script", "play_to"]


@runtime_checkable
class Tower(Protocol):
    """A Dark Tower you can press and watch."""

    @property
    def now(self) -> float:
        """Return the tower time in seconds since the session began."""

    def power(self, on: bool) -> None:
        """Switch the tower on (a power-on reset) or off."""

    def press(self, button: str) -> None:
        """Close the contact of ``button`` (a captures.script.BUTTONS name)."""

    def release(self, button: str) -> None:
        """Open the contact of ``button``."""

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` of tower time pass (runs the emulator, or waits on real hardware)."""

    def events(self) -> Sequence[dict]:
        """Return the events observed since the session began (captures.events), in time
        order: a list, or a read-only ``captures.eventlog.EventList`` that shares with
        earlier reads what they returned (so reading as the tower runs costs what is new)."""

    def close(self) -> None:
        """Release every key and free the backend's resources."""


def play_to(tower: Tower, actions: Sequence[tuple], i: int, until: float) -> int:
    """Apply ``actions`` (``captures.script.timeline``'s (t, kind, arg)) from index ``i`` on
    whose time is ``until`` or sooner, each at its exact time on ``tower.now``, then let the
    tower run to ``until``; return the index of the first action not applied."""
    while i < len(actions) and actions[i][0] <= until:
        t, kind, arg = actions[i]
        if t > tower.now:
            tower.advance(t - tower.now)
        if kind == "press":
            tower.press(arg)
        elif kind == "release":
            tower.release(arg)
        else:
            tower.power(bool(arg))
        i += 1
    if until > tower.now:
        tower.advance(until - tower.now)
    return i


def run_script(tower: Tower, script: Script, until: float | None = None) -> list[dict]:
    """Replay ``script`` on ``tower`` up to ``until`` seconds (default: the script's end).

    Presses and releases happen at their exact script times, measured on ``tower.now``.
    Returns the tower's events as a list.
    """
    end = script.end_time() if until is None else until
    play_to(tower, list(timeline(script)), 0, end)
    return list(tower.events())
