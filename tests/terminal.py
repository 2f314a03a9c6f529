"""A real terminal (tmux) read by the tests of the terminal front-ends (towerlab play,
cleanroom-play): what it shows, and waits for text on it with a deadline that fails loudly.
The ``tmux`` fixture (tests/conftest.py) gives the command prefix; the session is "play"."""
from __future__ import annotations

import subprocess
import time
from typing import Callable

__all__ = ["screen", "wait_until_shown", "wait_for_words"]


def screen(tmux: list[str], joined: bool = False) -> str:
    """Return what the terminal shows (``joined``: lines the terminal wrapped, whole)."""
    return subprocess.run(tmux + ["capture-pane", "-p", *(["-J"] if joined else []), "-t",
                                  "play"], capture_output=True, text=True, timeout=10).stdout


def wait_until_shown(tmux: list[str], found: Callable[[str], bool], what: str,
                     timeout: float = 20.0, joined: bool = False) -> str:
    """Return the screen once ``found(screen)``; fail naming ``what`` after ``timeout`` s."""
    end = time.monotonic() + timeout
    shown = ""
    while time.monotonic() < end:
        shown = screen(tmux, joined)
        if found(shown):
            return shown
        time.sleep(0.1)
    raise AssertionError(f"{what} not on screen after {timeout} s:\n{shown}")


def wait_for_words(tmux: list[str], words: str, timeout: float = 20.0) -> str:
    """Wait until ``words`` are on screen, however the terminal wrapped or spaced them."""
    want = " ".join(words.split())
    return wait_until_shown(tmux, lambda s: want in " ".join(s.split()), repr(words), timeout,
                            joined=True)
