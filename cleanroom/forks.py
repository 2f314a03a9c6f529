"""How the processes of the replay tree (cleanroom.snapshots) fork, where they run and how they
are collected: the C library's ``fork`` where a process has one thread, a child kept on the CPU
its parent runs on, the server as the tree's subreaper.  Why each: cleanroom.snapshots, "What a
run costs", "Where a run runs" and "Processes"."""
from __future__ import annotations

import ctypes
import os
import sys
import threading

__all__ = ["fork", "fork_here", "pin_here", "raw_fork", "reap", "subreaper", "LIBC_FORK",
           "GETCPU"]


def raw_fork() -> int:
    """``fork()`` from the C library, without the interpreter's own steps around it
    (cleanroom.snapshots, "What a run costs"); the GIL stays held (``PyDLL``).  Raise OSError
    as ``os.fork``."""
    pid = LIBC_FORK()
    if pid < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return pid


def _libc_fork():
    """Return the C library's ``fork`` where the tree may call it directly (Linux), else
    None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        fork = ctypes.PyDLL(None, use_errno=True).fork
    except (OSError, AttributeError):
        return None
    fork.restype, fork.argtypes = ctypes.c_int, ()
    return fork


def fork() -> int:
    """Fork a node or a run (cleanroom.snapshots ``_take_request``): the C library's ``fork``
    where the process has one thread, as every process of the tree has, else ``os.fork``."""
    if LIBC_FORK is not None and threading.active_count() == 1:
        return raw_fork()
    return os.fork()


LIBC_FORK = _libc_fork()


def _libc_getcpu():
    """Return the C library's ``sched_getcpu`` where a process can be pinned to a CPU
    (Linux), else None."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    try:
        getcpu = ctypes.CDLL(None).sched_getcpu
    except (OSError, AttributeError):
        return None
    getcpu.restype, getcpu.argtypes = ctypes.c_int, ()
    return getcpu


GETCPU = _libc_getcpu()


def fork_here() -> int:
    """``fork`` a child that stays on the CPU this process runs on (cleanroom.snapshots,
    "Where a run runs"); this process keeps the CPUs it had."""
    mask = pin_here()
    pid = -1
    try:
        pid = fork()
    finally:
        if mask is not None and pid != 0:   # this process, whether the fork failed or not
            try:
                os.sched_setaffinity(0, mask)
            except OSError:
                pass        # a CPU taken away meanwhile: it stays pinned, only slower
    return pid


def pin_here() -> set | None:
    """Pin this process to the CPU it runs on; return the CPUs it could run on before, or
    None where it has only one already or where that cannot be done."""
    if GETCPU is None:
        return None
    try:
        mask = os.sched_getaffinity(0)
        if len(mask) < 2:
            return None         # pinned already: a node of the tree, most often
        cpu = GETCPU()
        if cpu not in mask:
            return None
        os.sched_setaffinity(0, {cpu})
    except OSError:
        return None
    return mask


def reap(wait: bool = False) -> None:
    """Collect ended children (all of them, waiting, with ``wait``)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, 0 if wait else os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def subreaper() -> None:
    """Make this process the one the tree's orphans go to (Linux; elsewhere they go to init
    and the tree still ends, its processor time uncounted)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)    # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass
