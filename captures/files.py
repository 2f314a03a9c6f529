"""Write output files so that nothing is ever half-written, and refuse unusable output names.

Every writer in TowerLab (captures, events, WAV, plots, ROM images, traces) goes through
``atomic_write``: the data goes to a temporary sibling that is renamed over the target only
when complete. An existing device or FIFO (``/dev/null``, ``/dev/stdout``, a pipe to another
tool) is written in place instead, since renaming over it would replace it with a plain file;
a symlink is followed so the link stays. Files get the mode ``open()`` would give them.
"""
from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import IO, Callable

__all__ = ["OutputError", "atomic_write", "check_output_path", "check_not_an_input"]


class OutputError(ValueError):
    """An output file cannot be written there; one line naming the file."""


def check_output_path(path: str | os.PathLike) -> Path:
    """Return ``path`` as a Path if a file can be written there; OutputError if it is empty,
    a folder, or in a folder that does not exist."""
    if not os.fspath(path):
        raise OutputError("output file name is empty (expected a file name)")
    target = Path(path)
    if target.is_dir():
        raise OutputError(f"{path}: is a folder (expected a file name)")
    folder = Path(os.path.abspath(path)).parent
    if not folder.is_dir():
        raise OutputError(f"{path}: folder {folder} does not exist")
    return target


def check_not_an_input(output: str | None, *inputs: str | None) -> None:
    """Refuse an ``output`` that is one of the command's ``inputs`` (writing it would destroy
    the source, a ROM dump or a script)."""
    if output is None:
        return
    real = os.path.realpath(output)
    for path in inputs:
        if path and os.path.isfile(path) and os.path.realpath(path) == real:
            raise OutputError(f"{output}: is also an input of this command (expected a new "
                              f"file name for the output)")


def atomic_write(path: str | os.PathLike, write: Callable[[IO], None],
                 binary: bool = True) -> None:
    """Call ``write(f)`` on a temporary sibling of ``path`` and rename it to ``path`` when it
    returns; on any error remove the temporary file and re-raise (OutputError for I/O)."""
    target = check_output_path(path)
    mode = "wb" if binary else "w"
    encoding = None if binary else "utf-8"
    if target.exists() and not target.is_file():
        try:
            with open(target, mode, encoding=encoding) as f:
                write(f)
        except OSError as exc:
            raise OutputError(f"{path}: cannot write ({exc.strerror or exc})") from None
        return
    real = Path(os.path.realpath(target))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".part", dir=real.parent)
    except OSError as exc:
        raise OutputError(f"{path}: cannot write ({exc.strerror or exc})") from None
    try:
        with os.fdopen(fd, mode, encoding=encoding) as f:
            write(f)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)      # as open() would have made it, not mkstemp's 0600
        os.replace(tmp, real)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise OutputError(f"{path}: cannot write ({exc.strerror or exc})") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
