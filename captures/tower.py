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

``run_script`` drives any Tower through a ``captures.script.Script``.
"""
from __future__ import annotations

from typing import Protocol, Sequence, runtime_checkable

from captures.script import Script, timeline

__all__ = ["Tower", "run_script"]


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


def run_script(tower: Tower, script: Script, until: float | None = None) -> list[dict]:
    """Replay ``script`` on ``tower`` up to ``until`` seconds (default: the script's end).

    Presses and releases happen at their exact script times, measured on ``tower.now``.
    Returns the tower's events as a list.
    """
    end = script.end_time() if until is None else until
    for t, kind, arg in timeline(script):
        if t > end:
            break
        if t > tower.now:
            tower.advance(t - tower.now)
        if kind == "press":
            tower.press(arg)
        elif kind == "release":
            tower.release(arg)
        else:
            tower.power(bool(arg))
    if end > tower.now:
        tower.advance(end - tower.now)
    return list(tower.events())
