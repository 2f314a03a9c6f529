"""The replay tree's processes (cleanroom.forks): they fork through the C library where they
have one thread; a child forked here stays on the CPU its parent ran on, and the parent keeps
the CPUs it had (cleanroom.snapshots, "What a run costs", "Where a run runs")."""
from __future__ import annotations

import os

import pytest

from cleanroom import forks

affinity = pytest.mark.skipif(not hasattr(os, "sched_setaffinity"),
                              reason="CPU affinity is Linux's")


def _child_affinity() -> tuple[set, set]:
    """Fork with ``fork_here``; return (the child's CPUs, this process's CPUs after)."""
    r, w = os.pipe()
    pid = forks.fork_here()
    if pid == 0:                # the child: say where it may run, and leave at once
        try:
            os.write(w, ",".join(map(str, sorted(os.sched_getaffinity(0)))).encode())
        finally:
            os._exit(0)
    os.close(w)
    try:
        data = os.read(r, 4096).decode()
    finally:
        os.close(r)
        os.waitpid(pid, 0)
    return {int(c) for c in data.split(",")}, os.sched_getaffinity(0)


@affinity
def test_a_child_forked_here_runs_only_on_the_cpu_its_parent_ran_on(monkeypatch):
    before = os.sched_getaffinity(0)
    cpu = max(before)           # the CPU the parent runs on, as the C library would say
    monkeypatch.setattr(forks, "GETCPU", lambda: cpu)
    child, after = _child_affinity()
    assert child == {cpu}
    assert after == before


@affinity
def test_a_child_forked_here_on_the_real_cpu_has_one_of_its_parents():
    before = os.sched_getaffinity(0)
    child, after = _child_affinity()
    assert len(child) == 1 and child <= before
    assert after == before


@affinity
def test_a_process_with_one_cpu_is_left_as_it_is(monkeypatch):
    monkeypatch.setattr(forks.os, "sched_getaffinity", lambda pid: {3})
    monkeypatch.setattr(forks.os, "sched_setaffinity",
                        lambda pid, cpus: pytest.fail("pinned a process with one CPU"))
    monkeypatch.setattr(forks, "GETCPU", lambda: 3)
    assert forks.pin_here() is None


@affinity
def test_a_cpu_outside_the_processs_own_is_not_pinned_to(monkeypatch):
    monkeypatch.setattr(forks.os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(forks.os, "sched_setaffinity",
                        lambda pid, cpus: pytest.fail("pinned to a CPU it may not use"))
    monkeypatch.setattr(forks, "GETCPU", lambda: -1)    # sched_getcpu failed
    assert forks.pin_here() is None


@affinity
def test_a_failed_fork_gives_the_process_its_cpus_back(monkeypatch):
    before = os.sched_getaffinity(0)
    monkeypatch.setattr(forks, "GETCPU", lambda: max(before))

    def fail():
        raise OSError(11, "Resource temporarily unavailable")
    monkeypatch.setattr(forks, "fork", fail)
    with pytest.raises(OSError):
        forks.fork_here()
    assert os.sched_getaffinity(0) == before


@affinity
def test_a_parent_whose_cpus_cannot_be_given_back_still_forks(monkeypatch):
    calls = []

    def refuse_the_second(pid, cpus):
        calls.append(set(cpus))
        if len(calls) > 1:
            raise OSError(22, "Invalid argument")
    monkeypatch.setattr(forks.os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(forks.os, "sched_setaffinity", refuse_the_second)
    monkeypatch.setattr(forks, "GETCPU", lambda: 1)
    monkeypatch.setattr(forks, "fork", lambda: 4242)        # as the parent: nothing forked
    assert forks.fork_here() == 4242
    assert calls == [{1}, {0, 1}]


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

