"""The replay tree's processes (cleanroom.forks): they fork through the C library where they
have one thread (cleanroom.snapshots, "What a run costs")."""
from __future__ import annotations

import os

import pytest

from cleanroom import forks


@pytest.mark.skipif(not os.uname().sysname == "Linux", reason="the raw fork is Linux's")
def test_the_tree_forks_through_the_c_library_on_linux():
    # every process of the tree has one thread: its runs fork through it
    assert forks.LIBC_FORK is not None


def test_a_process_with_another_thread_forks_through_os_fork(monkeypatch):
    import threading

    calls = []

    def spy():
        calls.append("os.fork")
        return 1                # as the parent: nothing is forked
    monkeypatch.setattr(forks.os, "fork", spy)
    monkeypatch.setattr(forks, "raw_fork", lambda: pytest.fail("raw fork with a thread"))
    release = threading.Event()
    other = threading.Thread(target=release.wait, args=(60.0,))
    other.start()
    try:
        assert forks.fork() == 1
    finally:
        release.set()
        other.join(60.0)
    assert calls == ["os.fork"]
