"""Show one progress line (rich) while long work runs: on a terminal only, never in a pipe,
a log file or a test, and not with ``--quiet``.

Every long command uses this one helper (``towerlab trace -o``, ``run`` and its ``--jobs``
batches, ``explore``, ``rig record``, ``rtdt record``, ``convert``/``info``, rig.batch's
jobs): the line is drawn on ``stream`` (default: standard error, so standard output stays the
command's result) and removed when the work ends.

Example::

    with progress_line("tracing", total=steps) as line:
        for chunk in chunks():
            ...
            line.update(done)            # or line.advance(1)
"""
from __future__ import annotations

import contextlib
import sys
from typing import IO, Iterator

__all__ = ["ProgressLine", "progress_line", "shows_progress"]


class ProgressLine:
    """The handle a ``progress_line`` block gets: ``update`` and ``advance`` (no-ops when
    nothing is shown)."""

    def __init__(self, bar=None, task=None):
        self._bar, self._task = bar, task

    @property
    def shown(self) -> bool:
        """Return True when the line is drawn."""
        return self._bar is not None

    def update(self, done: float, total: float | None = None) -> None:
        """Set the work done so far (and the total, when it becomes known)."""
        if self._bar is not None:
            if total is None:
                self._bar.update(self._task, completed=done)
            else:
                self._bar.update(self._task, completed=done, total=total)

    def advance(self, amount: float = 1) -> None:
        """Add ``amount`` to the work done."""
        if self._bar is not None:
            self._bar.advance(self._task, amount)


def shows_progress(stream: IO[str] | None = None, quiet: bool = False) -> bool:
    """Return True when a progress line would be drawn on ``stream`` (default: standard
    error): it is a terminal and ``quiet`` is not set."""
    stream = sys.stderr if stream is None else stream
    if quiet:
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):        # no isatty, or a closed stream
        return False


@contextlib.contextmanager
def progress_line(label: str, total: float | None = None, stream: IO[str] | None = None,
                  quiet: bool = False) -> Iterator[ProgressLine]:
    """Draw a progress line named ``label`` on ``stream`` (default: standard error) while the
    block runs, if it is a terminal and not ``quiet``; ``total`` None: a spinner until a
    total is given. Yields a ``ProgressLine``."""
    stream = sys.stderr if stream is None else stream
    if not shows_progress(stream, quiet):
        yield ProgressLine()
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(file=stream, force_terminal=True), transient=True) as bar:
        yield ProgressLine(bar, bar.add_task(label, total=total))
