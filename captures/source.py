"""What every capture file format shares: naming a source in error messages, opening it for
each pass, splitting and checking change blocks, and writing atomically.

A format is one module (``captures.sigrok``, ``captures.vcd``, ...) that imports these helpers
and nothing of the other formats, plus one row in ``captures.formats.formats()``.

Example::

    with open_source("capture.sr") as f:       # a path is opened and closed for the caller
        head = f.read(4)
"""
from __future__ import annotations

import contextlib
import os
from typing import BinaryIO, Callable, Iterator, Union

import numpy as np

from captures.model import Capture, CaptureError, Changes

__all__ = ["Source", "BLOCK", "source_name", "open_source", "read_head", "checked_blocks",
           "atomic_write"]

Source = Union[str, os.PathLike, BinaryIO]

# Largest change block a reader or writer hands on at once (changes).
BLOCK = 1 << 16


def source_name(source: Source) -> str:
    """Return how error messages name ``source`` (its path, or the file object's name)."""
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    name = getattr(source, "name", None)
    return name if isinstance(name, str) else "<stream>"


@contextlib.contextmanager
def open_source(source: Source, offset: int = 0) -> Iterator[BinaryIO]:
    """Open ``source`` for binary reading at byte ``offset`` (a path is opened and closed,
    a file object is seeked and left open); OSError becomes CaptureError naming the file."""
    name = source_name(source)
    if isinstance(source, (str, os.PathLike)):
        try:
            f = open(source, "rb")
        except OSError as exc:
            raise CaptureError(f"{name}: cannot open ({exc.strerror or exc})") from None
        with f:
            if offset:
                f.seek(offset)
            yield f
    else:
        source.seek(offset)
        yield source


def read_head(source: Source, n: int = 512) -> bytes:
    """Return the first ``n`` bytes of ``source`` (fewer if it is shorter)."""
    with open_source(source) as f:
        return f.read(n)


def checked_blocks(capture: Capture, max_len: int = BLOCK) -> Iterator[Changes]:
    """Yield the capture's change blocks split to at most ``max_len`` changes, checking that
    times start at sample 0 and strictly increase and that words fit the channel count."""
    last = -1
    nbits = len(capture.channels)
    mask = np.uint64((1 << nbits) - 1) if nbits < 64 else np.uint64(0xFFFF_FFFF_FFFF_FFFF)
    for block in capture.changes():
        times = np.asarray(block.times, dtype=np.int64)
        words = np.asarray(block.words, dtype=np.uint64)
        if len(times) != len(words):
            raise CaptureError(f"change block has {len(times)} times but {len(words)} words")
        if not len(times):
            continue
        if last < 0 and times[0] != 0:
            raise CaptureError(f"first change is at sample {int(times[0])}, expected 0 "
                               "(the initial levels)")
        if times[0] <= last or (len(times) > 1 and np.any(np.diff(times) <= 0)):
            raise CaptureError(f"change times do not increase (near sample {int(times[0])})")
        if np.any(words & ~mask):
            raise CaptureError(f"change word has bits above the {nbits} channels")
        last = int(times[-1])
        for i in range(0, len(times), max_len):
            yield Changes(times[i:i + max_len], words[i:i + max_len])


def atomic_write(path: str | os.PathLike, write: Callable[[BinaryIO], None]) -> None:
    """Call ``write(f)`` on a temporary file next to ``path``, then rename it to ``path``
    (captures.files.atomic_write); errors are CaptureError lines naming ``path``."""
    from captures.files import OutputError
    from captures.files import atomic_write as _atomic_write

    try:
        _atomic_write(path, write, binary=True)
    except OutputError as exc:
        raise CaptureError(str(exc)) from None
