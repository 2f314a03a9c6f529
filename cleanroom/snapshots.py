"""Replay a session script on the clean-room game from saved game states, not from power-on.

The resolver (cleanroom.conform) replays one script hundreds of times, each replay with a
different list of forced decisions: every candidate option of every random decision.  All
those replays agree up to the decision they change, so replaying each from power-on spends
most of its time redoing what the previous one did.  Starting from a saved state instead needs
a copy of the game as it stood before the decision, and the game cannot simply be copied: its
rules are Python generator flows (cleanroom.game) suspended inside the engine's clock
(cleanroom.engine), and a live generator can be neither deep-copied nor pickled.

Why a process per saved state.  ``os.fork()`` copies a whole interpreter, suspended generator
frames included, copy-on-write; the copy is exact by construction because it is the same
memory, with nothing to keep in step with the game as its rules change.  The other ways were
weighed: a checkpoint to replay from is the same problem; rewriting the flows as copyable
state machines would rewrite every rule of the game; deep-copying objects that reference
running generators fails.

How.  A *node* is a process paused at a step of the script (just before the ``advance`` that
precedes one of its presses, releases or power changes), or inside that advance, a moment
(``NODE_LEAD_S``) before the decision a caller changes when the last step lies further back
(the tower often plays on for tens of seconds after a press: a battle, a tomb), holding the
game with the decisions it has taken so far.  Splitting an advance there changes nothing: the
engine runs its events in time order whatever the advances' lengths, as the comparisons with
replays from power-on show (tests/cleanroom/test_resolve_fast.py).  It waits on a socket; for
each request it forks a child that goes on from there with the requested forced decisions and
either runs to the requested time and sends back what the tower emitted since the node and the
decisions it took (a *run*), or pauses at a later step and becomes a node
itself.  ``ForkReplayer.run(forced, until, t0)`` picks the latest node whose decisions so far
are those ``forced`` gives (the chooser's own rule, ``take``), makes a node just before ``t0``
(where the caller's first changed decision is taken) when none is near, and runs from it.

A run that has answered waits at its ``until``: when the next request has the same forced
decisions and a later time (a probe doubling its span, cleanroom.conform ``_probe``), it
goes on from there instead of a new run starting over from its node, and any other request
ends it first (its node waits for it).  A fork costs about as much as 20 s of game in a run,
and going on is the same game as a run asked for the later time, as a node's pause inside an
advance is.

The nodes descend from one *server* per process, a fresh interpreter with only the game
loaded (``python -c``, started on first use, ended at exit or by ``shutdown``): a fork copies
page tables, and copying a small process is several times cheaper than copying the caller
(the CLI, a test runner, a Dask worker with its threads, which must not fork anyway).  Its
children start games at power-on; nodes descend from them.

Identical results.  A run from a node makes exactly the calls ``captures.tower.run_script``
makes with the same ``until`` from power-on: a node has only performed steps at or before
``until`` (it is chosen so), and each run stops at the first step after ``until`` the way
``run_script`` does (one last ``advance`` to ``until``).  The game is deterministic given its
decisions, so the events and decisions are those of a replay from power-on; the events are
put in time order by the engine's own ``sorted_events``.  ``PowerOnReplayer`` is that replay
from power-on, the reference (tests/cleanroom/test_snapshots.py compares runs with it,
tests/cleanroom/test_resolve_fast.py whole resolutions) and the path where ``fork`` is not
available.

What a run costs.  A fork and the pages the run then writes (each first write copies a
page) cost a millisecond or two on the development machine, a virtual machine where a page
fault is slow; so early in a session, where a replay from power-on costs less than that, a run
is replayed from power-on here instead (``FORK_S``, ``HERE_S_PER_S``, ``CHILD_S_PER_S``).  Only
the time the game runs from the node is saved: the search still asks for each candidate's
replay, some tens of seconds of game each (benchmarks/conform_speed.py).  The processes of the
tree fork through the C library's ``fork`` (cleanroom.forks), not ``os.fork``: the interpreter's
steps around ``os.fork`` (its at-fork handlers, ``threading``'s among them, and its
reinitialisation of threads and locks) cost a run's child about 200 page copies and 0.4 ms
before it does anything, a third of what a run costs; a raw fork's child starts with about 30.
Where a run's cost goes (measured 2026-12-05 over the 651 runs of one resolution of the
development session l2_p1_s150, a 15 s run on the median): 1.7 ms from the fork to the answer
whatever the run's length, and 34 us per second of game; the fixed part is the pages the run
writes as soon as the game goes on, about 340 of them, and at its answer some 460 are its own
(in l2_p2_s122: 330 in the small-object arenas, where new objects go into partly used pools
spread over the heap and every object the game touches has its count of references written;
65 in the C heap; 56 in the interpreter's static data).  So a run costs about as much as 50 s
of game; fewer runs, not shorter ones, make a resolution faster.
Those steps keep a process with threads sound after a fork; every process of the tree has
one thread (the server is a fresh interpreter that starts none, and neither does the game),
it holds the GIL across the call (``PyDLL``), and ``os.fork`` is used wherever another thread
runs.

Where a run runs.  On a machine with more than one CPU the kernel starts a new process on
the idlest one.  A node sleeps while its run plays, so the run would start on a CPU that was
idle (waking it costs a virtual machine much) with none of the node's memory in its caches,
and the caller, woken by the answer, would move after it.  So each fork pins the child to
the CPU the forking process runs on (cleanroom.forks ``fork_here``): the runs and nodes of
one game stay on the CPU where the server started that game at power-on.  The server itself
stays free, so its next game may start elsewhere, and resolutions run side by side
(``conform --jobs``) each keep their own.  Measured (2026-12-06, l1_p1_s133 alone on two
CPUs): the tree's system time 0.50 -> 0.38 s, and benchmarks/conform_speed.py's median over
58 sessions of about 400 s 1.85 -> 1.72 s; over the whole corpus with ``--jobs 2``, where
both CPUs are busy anyway, the same time (1 min 54 s against 1 min 56 s).

Cut from a longer replay.  ``ForkReplayer.events`` gives only a replay's events, cut from a
kept replay that went further with the same decisions where they are provably the same
(cleanroom.cut).

Processes.  The server is the subreaper of the tree below it (Linux ``PR_SET_CHILD_SUBREAPER``)
and every process reaps its children as they end, so no zombie stays and the tree's processor
time adds up in the caller's children times once the server has ended (``shutdown``; the
benchmark reads it).  Every process of the tree ignores SIGINT (the caller handles Ctrl-C)
and leaves only through ``os._exit``.  A node whose caller closed its socket (``close``, at most
``max_nodes`` nodes per replayer, the least recently used going first) or died reads end of
file and ends.
"""
from __future__ import annotations

import atexit
import bisect
import gc
import math
import os
import pickle
import signal
import socket
import struct
import subprocess
import sys
import threading
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from captures.script import Script, timeline
from captures.tower import run_script

from .cut import cut, takes_alike
from .decisions import first_looks
from .forks import fork_here, reap, subreaper
from .replies import (emitted, events_since, looks_copy, looks_from, looks_since, marks_since,
                      run_events, time_order, used_times)

__all__ = ["Replay", "PowerOnReplayer", "ForkReplayer", "ReplayProcessError", "can_fork",
           "make_replayer", "shutdown", "time_order"]

# (tower, chooser) for a list of forced decisions, a picklable callable (the server gets it);
# the chooser logs ``calls`` and takes decision i from ``forced`` (which a run may replace)
Start = Callable[[Sequence], tuple[Any, Any]]
# the value the chooser takes for logged decision ``dec`` (the i-th) given a forced list
Take = Callable[[Sequence, int, Any], Any]

# make a node before t0 when the nearest one is further back than this: a node costs some
# 1,100 page copies and 3 ms (its fork, its play, its requests), a second of game in a run
# 45 us; measured over the 45 development sessions of 360-440 s (benchmarks/conform_speed.py
# --around 400), 2 s took 100.8-100.9 s of processor time, 8 s 96.3-97.4, 12 s 96.5-96.7,
# 20 s 94.5-97.6, 40 s and more slower again (six sessions: 40 s 15.6-15.7 s, 80 s
# 17.3-17.6 s against 14.8-15.0 s at 20 s)
NODE_GAP_S = 12.0
NODE_LEAD_S = 0.01      # how long before t0 a node pauses when no script step comes between
MAX_NODES = 12
KEPT_REPLAYS = 512      # replays kept for a request made again (the resolver repeats some)
CUT_SPAN_S = 5.0        # and looked up by the stretches of this length they cover, to cut
# Costs that choose between a run from a node and a replay from power-on here (measured on
# the development machine, a 2-core VM where a page fault costs some microseconds, over the
# 491 runs of one resolution of tests/data/corpus/l2_p1_s02, each run's own processor time
# fitted against its game time): a run in a forked process costs about 1.2 ms more than its
# game time (the few hundred pages its first writes copy, the game's working set), and 0.3 ms
# more in its node (the fork); its game runs about twice as slowly as here (each first write
# to a page copies it); here the game takes about 23 us per game second (a replay from
# power-on to 50-400 s; benchmarks/game_speed.py).
FORK_S = 1.4e-3
HERE_S_PER_S = 0.023e-3         # processor seconds per game second, replaying here
CHILD_S_PER_S = 0.045e-3        # the same in a forked run
SERVER_START_S = 120.0  # a server that has not said hello by then is not coming


class ReplayProcessError(RuntimeError):
    """A replay process ended without an answer or could not start; says which and why."""


@dataclass
class Replay:
    """One replay: the events the tower showed up to ``until`` (time order, as
    ``run_script`` returns them) and the decisions the game took (the chooser's log)."""
    events: list[dict]
    calls: list
    # when the game first looked at each decision's value, up to ``until`` (None: not by
    # then; the chooser's ``used``, cleanroom.watched)
    used: list
    # when it looked at each (the chooser's ``looks``; None: not kept)
    looks: list | None = None
    # where it went: its ``until``, and the tower time it started from (a node's, or 0 from
    # power-on) with the marks of what the engine wrote or took back since (time, and the
    # tower's time then: cleanroom.engine ``marks_t``, ``marks_now``; None: not kept)
    until: float = math.inf
    start: float = 0.0
    marks: tuple | None = None
    index: Any = field(default=None, repr=False, compare=False)    # cleanroom.cut's


def can_fork() -> bool:
    """Return True where saved states work: ``os.fork`` and passing sockets exist."""
    return hasattr(os, "fork") and hasattr(socket, "send_fds") and hasattr(socket, "AF_UNIX")


def make_replayer(script: Script, start: Start, take: Take, fast: bool = True):
    """Return a ForkReplayer where processes can fork and the replay server starts (and
    ``fast``), else a PowerOnReplayer."""
    global _NO_SERVER
    if fast and can_fork() and _NO_SERVER is None:
        try:
            return ForkReplayer(script, start, take)
        except ReplayProcessError as exc:
            _NO_SERVER = str(exc)       # replay from power-on from now on: slower, the same
    return PowerOnReplayer(script, start)


class PowerOnReplayer:
    """Replay every run from power-on (the reference path, and the portable one)."""

    def __init__(self, script: Script, start: Start):
        self.script, self.start = script, start

    def run(self, forced: Sequence, until: float, t0: float = 0.0) -> Replay:
        """Replay the script to ``until`` seconds with ``forced`` decisions (t0 unused)."""
        tower, chooser = self.start(list(forced))
        events = run_script(tower, self.script, until=until)
        tower.close()
        return Replay(events, chooser.calls, used_times(chooser), looks_copy(chooser), until, 0.0,
                      marks_since(tower, 0))

    def events(self, forced: Sequence, until: float, t0: float = 0.0) -> list[dict]:
        """Return the events of ``run(forced, until)``, replayed."""
        return self.run(forced, until, t0).events

    @staticmethod
    def saved_from(forced: Sequence) -> float:
        """No saved states here (``ForkReplayer.saved_from``)."""
        return math.inf

    def close(self) -> None:
        """Nothing to release."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# ---- the tree's side ---------------------------------------------------------------------
class _Process:
    """What one process of the tree is doing: the state copied at each fork."""

    def __init__(self, sock: socket.socket):
        self.sock = sock            # to the caller: requests (a node) or the answer (a run)
        self.kind = "node"          # "run" or "node" (a child on its way to become one)
        self.nraw = 0               # events the node this process was forked from had emitted
        self.nmarks = 0             # and the engine's marks it had then
        self.last = None            # the last of them
        self.ncalls = 0             # decisions it had logged
        self.nlooked = 0            # and looks after a decision's taking (``looked``)


class _Proxy:
    """The tower as ``run_script`` sees it in the tree: counts the script's steps, pauses at
    a node's step, and stops a run at the first step after its ``until``."""

    def __init__(self, tower, chooser, times: list[float], proc: _Process):
        self.tower, self.chooser, self.times, self.proc = tower, chooser, times, proc
        self.done = 0                   # script steps performed
        self.until: float | None = None
        self.pause_at: int | None = None    # pause once this many steps are performed,
        self.pause_t: float | None = None   # at this time (before the next step) if given

    @property
    def now(self) -> float:
        return self.tower.now

    def _gate(self) -> None:
        """Stop before a step after ``until`` as run_script does: advance to it, no more;
        answer there, and go on if the caller asks for more (``_more``)."""
        while self.until is not None and (self.done >= len(self.times) or
                                          self.times[self.done] > self.until):
            if self.until > self.tower.now:
                self.tower.advance(self.until - self.tower.now)
            _more(self)

    def advance(self, seconds: float) -> None:
        target = self.tower.now + seconds
        while self.pause_at is not None and self.done >= self.pause_at:
            # a node: pause here, or at its time within this advance (its remainder after)
            t = self.pause_t
            if t is not None and t > self.tower.now:
                if t >= target:
                    raise ReplayProcessError(f"a saved state at {t:.6f} s was asked for past "
                                             f"the next step of the script ({target:.6f} s)")
                self.tower.advance(t - self.tower.now)
            _serve(self)                # returns in a child with its own pause or until
        self._gate()
        if target > self.tower.now:
            self.tower.advance(target - self.tower.now)

    def press(self, button: str) -> None:
        self._gate()
        self.tower.press(button)
        self.done += 1

    def release(self, button: str) -> None:
        self._gate()
        self.tower.release(button)
        self.done += 1

    def power(self, on: bool) -> None:
        self._gate()
        self.tower.power(on)
        self.done += 1

    def events(self) -> list[dict]:
        return self.tower.events()

    def close(self) -> None:
        self.tower.close()


def _take_request(proc: _Process, listening: socket.socket):
    """Wait for a request; fork for it.  Return it in the child, None in this process (or
    end this process at end of file)."""
    msg, fds = _recv(listening)
    if msg is None or msg[0] == "exit":
        listening.close()
        os._exit(0)             # children still running go to the server (module doc)
    gc.freeze()                 # the child need not scan (and so copy) what is here
    pid = fork_here()
    if pid == 0:
        listening.close()
        proc.sock = socket.socket(fileno=fds[0])
        proc.kind = msg[0]
        return msg
    for fd in fds:
        os.close(fd)
    if msg[0] == "run":
        # touch nothing while the run shares this process's memory: each page written
        # meanwhile would be copied (the caller waits for the run anyway)
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass                # the SIGCHLD handler took it
    return None


def _serve(proxy: _Proxy) -> None:
    """Become a node: answer requests until one makes a child, which returns from here and
    goes on with the script."""
    proc = proxy.proc
    if proc.kind == "node":
        # the caller waits for this node's state: its step, time, events and decisions
        _send(proc.sock, ("ready", proxy.done, proxy.tower.now,
                          events_since(proc, proxy.tower), proxy.chooser.calls[proc.ncalls:],
                          looks_since(proxy.chooser, proc)))
    raw = emitted(proxy.tower)
    proc.nraw, proc.last = len(raw), raw[-1] if raw else None
    proc.nmarks = len(proxy.tower.game.engine.marks_t)
    proc.ncalls = len(proxy.chooser.calls)
    proc.nlooked = len(getattr(proxy.chooser, "looked", ()))
    listening = proc.sock
    while True:
        msg = _take_request(proc, listening)
        if msg is not None:
            kind, forced, arg = msg[:3]
            proxy.chooser.forced = list(forced)
            _aim(proxy, kind, arg)
            return


def _aim(proxy: _Proxy, kind: str, arg) -> None:
    """Set where a new process stops: a run at time ``arg``; a node at ``arg`` = (step,
    time): once ``step`` steps are performed, at that time if it comes before the next."""
    if kind == "run":
        proxy.until, proxy.pause_at, proxy.pause_t = arg, None, None
    else:
        proxy.until, (proxy.pause_at, proxy.pause_t) = None, arg


def _server_main(fd: int) -> None:
    """Run the server (module doc) on the socket ``fd``: each request carries its session
    and starts a game at power-on in a child."""
    status = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGCHLD, lambda *_: reap())
        subreaper()
        sock = socket.socket(fileno=fd)
        _send(sock, ("hello", os.getpid()))
        proc = _Process(sock)
        while True:
            msg = _take_request(proc, sock)
            if msg is not None:
                kind, forced, arg, (script, start) = msg
                _play(proc, script, start, forced, kind, arg)     # never returns
    except BaseException:               # noqa: BLE001 - the caller sees end of file
        status = 1
    finally:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        reap(wait=True)
        os._exit(status)


def _play(proc: _Process, script: Script, start: Start, forced, kind: str, arg) -> None:
    """Run a game from power-on in this process; it may become nodes whose children come
    back here when their run ends.  Answer on the socket of whichever process ends."""
    status = 0
    try:
        tower, chooser = start(list(forced))
        proxy = _Proxy(tower, chooser, [t for t, _, _ in timeline(script)], proc)
        _aim(proxy, kind, arg)
        # a run ends in its gate (``_more``): its last advance is past every step
        run_script(proxy, script, until=math.inf)
        raise ReplayProcessError("the script ended before the step of a saved state")
    except BaseException as exc:       # noqa: BLE001 - every failure goes to the caller
        status = 1
        try:
            _send(proc.sock, ("error", _picklable(exc)))
        except BaseException:          # noqa: BLE001 - the caller is gone
            pass
    finally:
        os._exit(status)


def _more(proxy: _Proxy) -> None:
    """A run at its ``until``: answer, then wait for the caller, who may ask it to go on to a
    later time (``("more", until)``: return with the new ``until``) or close the socket (end
    this process).  The events and decisions after more are those of a run asked for with
    the later time: the game goes on from where it stands, as a node does."""
    proc = proxy.proc
    _send(proc.sock, ("ok", proxy.tower.now, events_since(proc, proxy.tower),
                      proxy.chooser.calls[proc.ncalls:], looks_since(proxy.chooser, proc),
                      marks_since(proxy.tower, proc.nmarks)))
    msg, fds = _recv(proc.sock)
    for fd in fds:
        os.close(fd)
    if msg is None or msg[0] != "more" or not msg[1] > proxy.until:
        os._exit(0)
    proxy.until = msg[1]


def _picklable(exc: BaseException) -> BaseException:
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:                   # noqa: BLE001 - any exception that does not travel
        return ReplayProcessError(f"{type(exc).__name__}: {exc}")


# ---- messages ----------------------------------------------------------------------------
_HEADER = struct.Struct("!Q")


def _send(sock: socket.socket, obj, fds: Sequence[int] = ()) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    header = _HEADER.pack(len(data))
    if fds:
        sent = socket.send_fds(sock, [header], list(fds))
        if sent != len(header):
            sock.sendall(header[sent:])
    else:
        sock.sendall(header)
    sock.sendall(data)


def _recv(sock: socket.socket) -> tuple[Any, list[int]]:
    """Return (message, passed descriptors); (None, []) at end of file."""
    header, fds = b"", []
    while len(header) < _HEADER.size:
        data, got, _, _ = socket.recv_fds(sock, _HEADER.size - len(header), 4)
        fds += got
        if not data:
            for fd in fds:
                os.close(fd)
            return None, []
        header += data
    size = _HEADER.unpack(header)[0]
    buf = bytearray(size)
    view = memoryview(buf)
    got_bytes = 0
    while got_bytes < size:
        n = sock.recv_into(view[got_bytes:])
        if n == 0:
            return None, fds
        got_bytes += n
    return pickle.loads(buf), fds


# ---- the caller's side -------------------------------------------------------------------
class _Server:
    """This process's server (module doc): a ``python -c`` child holding the game."""

    def __init__(self):
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        mine, theirs = socket.socketpair()
        code = (f"import sys; sys.path[:0] = [{here!r}]; "
                f"from cleanroom.snapshots import _server_main; _server_main({theirs.fileno()})")
        try:
            self.proc = subprocess.Popen([sys.executable, "-c", code], pass_fds=[theirs.fileno()],
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.PIPE)
        except OSError as exc:
            mine.close()
            raise ReplayProcessError(f"cannot start the replay server {sys.executable} "
                                     f"({exc.strerror or exc})") from None
        finally:
            theirs.close()
        self.sock, self.pid, self.lock = mine, os.getpid(), threading.Lock()
        mine.settimeout(SERVER_START_S)
        try:
            hello, _ = _recv(mine)
        except OSError:
            hello = None
        mine.settimeout(None)
        if hello is None or hello[0] != "hello":
            self.close()
            err = self.proc.stderr.read().decode("utf-8", "replace").strip().splitlines()
            raise ReplayProcessError(f"the replay server did not start"
                                     f"{': ' + err[-1] if err else ''}")
        self.proc.stderr.close()

    def ask(self, msg, fds: Sequence[int]) -> None:
        with self.lock:
            _send(self.sock, msg, fds)

    def close(self) -> None:
        """End the server (it waits for its whole tree) and wait for it."""
        try:
            self.sock.close()
        except OSError:
            pass
        if self.pid == os.getpid():
            self.proc.wait()


_SERVER: _Server | None = None
_SERVER_LOCK = threading.Lock()
_NO_SERVER: str | None = None   # why the server could not start, once it could not
_REPLAYERS: "weakref.WeakSet[ForkReplayer]" = weakref.WeakSet()


def _server() -> _Server:
    """Return this process's server, started on first use (again in a forked process)."""
    global _SERVER
    with _SERVER_LOCK:
        if _SERVER is None or _SERVER.pid != os.getpid() or _SERVER.proc.poll() is not None:
            if _SERVER is not None and _SERVER.pid == os.getpid():
                _SERVER.close()
            _SERVER = _Server()
            # end it at exit; a multiprocessing worker (a local batch, a Dask worker) ends
            # through os._exit, after multiprocessing's own exit handlers, not atexit's
            from multiprocessing.util import Finalize
            atexit.register(shutdown)
            Finalize(None, shutdown, exitpriority=10)
        return _SERVER


def shutdown() -> None:
    """End this process's server and the saved states below it (they are made again on the
    next fast replay); after it, their processor time is in ``os.times()``'s children
    times."""
    global _SERVER
    for replayer in list(_REPLAYERS):
        replayer.close()
    with _SERVER_LOCK:
        if _SERVER is not None and _SERVER.pid == os.getpid():
            _SERVER.close()
        _SERVER = None



def _close_all(socks: list[socket.socket]) -> None:
    for sock in socks:
        sock.close()
    socks.clear()


@dataclass
class _Node:
    sock: socket.socket | None  # None: the server (power-on)
    done: int                   # script steps performed
    t: float                    # its tower time
    raw: list                   # its events as emitted
    calls: list                 # its decisions
    values: list                # their values
    free: int                   # decisions from here on took their likeliest option
    ordered: list               # its events in time order, all (time_order at infinity)
    ordered_t: list             # their times
    looks: list | None          # when the game looked at each decision (Replay.looks)
    used: int = 0


@dataclass
class _Going:
    """The last run, kept waiting at its ``until`` in case it is asked to go on."""
    sock: socket.socket
    forced: list
    until: float
    node: _Node


def _remove(replays: list, replay: Replay) -> None:
    """Remove ``replay`` itself from ``replays`` (``list.remove`` would compare the others'
    events with its own)."""
    del replays[next(i for i, r in enumerate(replays) if r is replay)]


class ForkReplayer:
    """Replay from game states held by paused processes (module doc); POSIX only."""

    def __init__(self, script: Script, start: Start, take: Take, max_nodes: int = MAX_NODES):
        self.script, self.start, self.take, self.max_nodes = script, start, take, max_nodes
        self.times = [t for t, _, _ in timeline(script)]
        self._server = _server()
        self._here = PowerOnReplayer(script, start)
        self._clock = 0
        self._root = _Node(None, 0, 0.0, [], [], [], 0, [], [], [])
        self._nodes: list[_Node] = []
        self._kept: dict[tuple, Replay] = {}
        self.cuts = 0           # events() answered from a kept replay (cleanroom.cut)
        self._by_span: dict[int, list[Replay]] = {}     # kept replays by stretch (_spans)
        self._socks: list[socket.socket] = []
        self._going: _Going | None = None     # the last run, waiting to go on (``_more``)
        weakref.finalize(self, _close_all, self._socks)
        _REPLAYERS.add(self)

    def run(self, forced: Sequence, until: float, t0: float = 0.0) -> Replay:
        """Return the replay of the script to ``until`` seconds with ``forced`` decisions;
        ``t0``: the time of the first decision that may differ from earlier runs (a node is
        made just before it).  A replay asked for again is the one kept (the game is
        deterministic; the caller must not change it)."""
        try:
            key = (tuple(forced), until)
            hash(key)
        except TypeError:
            return self._run(list(forced), until, t0)
        replay = self._kept.pop(key, None)
        if replay is None:
            replay = self._run(list(forced), until, t0)
            self._spans(replay, list.append)
        self._kept[key] = replay                # the latest last
        if len(self._kept) > KEPT_REPLAYS:
            self._spans(self._kept.pop(next(iter(self._kept))), _remove)
        return replay

    def events(self, forced: Sequence, until: float, t0: float = 0.0) -> list[dict]:
        """Return the events of ``run(forced, until, t0)``: cut from a kept replay that went
        further where they are provably the same (cleanroom.cut), else replayed."""
        forced = list(forced)
        for replay in reversed(self._by_span.get(int(until // CUT_SPAN_S), ())):
            got = cut(replay, forced, until, self.take)
            if got is not None:
                self.cuts += 1
                return got
        return self.run(forced, until, t0).events

    def saved_from(self, forced: Sequence) -> float:
        """Return the time of the earliest saved state kept whose decisions are those
        ``forced`` takes (inf: none)."""
        forced = list(forced)
        return min((n.t for n in self._nodes if self._compatible(n, forced)),
                   default=math.inf)

    def _spans(self, replay: Replay, how) -> None:
        """Note a kept replay (``how`` list.append) under each ``CUT_SPAN_S`` stretch of tower
        time it covers from its start, where ``events`` looks for one to cut, or forget it
        (``_remove``)."""
        if replay.marks is None or not math.isfinite(replay.until):
            return
        for k in range(int(replay.start // CUT_SPAN_S), int(replay.until // CUT_SPAN_S) + 1):
            how(self._by_span.setdefault(k, []), replay)

    def _run(self, forced: list, until: float, t0: float) -> Replay:
        going = self._going
        if going is not None and going.forced == forced and until > going.until:
            # the last run, with the same decisions, goes on from where it stopped: no new
            # process, and only the game time after it (a probe doubling its span)
            return self._go_on(until)
        self._stop_going()          # its node waits for it: before any other request
        node = self._nearest(forced, until)
        # a node just before t0: once the steps before t0 are performed, NODE_LEAD_S before
        # t0 if the last of them is further back (a long stretch of play without a press)
        step = bisect.bisect_left(self.times, t0 - 1e-6)
        prev = self.times[step - 1] if step else 0.0
        at = max(prev, t0 - NODE_LEAD_S)
        later = step > node.done or (step == node.done and at > node.t)
        spawn = step > 0 and later and at - node.t > NODE_GAP_S
        start = at if spawn else node.t
        if until * HERE_S_PER_S <= FORK_S + (until - start) * CHILD_S_PER_S:
            # early in the session a replay from power-on costs less than a fork
            return self._here.run(forced, until)
        if spawn:
            node = self._spawn(node, forced, (step, at if at > prev else None))
        mine, theirs = socket.socketpair()
        try:
            try:
                self._request(node, ("run", forced, until), theirs)
            finally:
                theirs.close()
            answer = self._answer(mine, f"a replay to {until:.3f} s")
        except BaseException:
            mine.close()
            raise
        if node.sock is None:
            mine.close()        # the server waits for it, and every replayer asks the server
        else:
            self._going = _Going(mine, forced, until, node)
            self._socks.append(mine)
        return self._replay(node, answer)

    def _go_on(self, until: float) -> Replay:
        """Ask the run kept going to go on to ``until`` (later than where it stands)."""
        going = self._going
        try:
            _send(going.sock, ("more", until))
            answer = self._answer(going.sock, f"a replay going on to {until:.3f} s")
        except OSError as exc:
            self._stop_going()
            raise ReplayProcessError(f"a replay going on to {until:.3f} s is gone "
                                     f"({exc})") from None
        except BaseException:
            self._stop_going()
            raise
        going.until = until
        return self._replay(going.node, answer)

    def _stop_going(self) -> None:
        """End the run kept going (it reads end of file); its node goes back to listening."""
        going, self._going = self._going, None
        if going is not None:
            going.sock.close()
            if going.sock in self._socks:
                self._socks.remove(going.sock)

    @staticmethod
    def _replay(node: _Node, answer) -> Replay:
        _, now, (keep, new), calls, looks, marks = answer
        calls = node.calls + calls
        looks = looks_from(node.looks, looks)
        used = [d.t for d in calls] if looks is None else first_looks(looks)
        return Replay(run_events(node, keep, new, now), calls, used, looks, now, node.t, marks)

    def _answer(self, sock: socket.socket, what: str):
        answer, _ = _recv(sock)
        self._check(answer, what)
        return answer

    def close(self) -> None:
        """End this replayer's nodes and the run kept going (they read end of file)."""
        self._going = None
        _close_all(self._socks)
        self._nodes.clear()
        self._kept.clear()
        self._by_span.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- nodes --
    def _compatible(self, node: _Node, forced: list) -> bool:
        """Tell whether ``forced`` takes every decision ``node`` took as it did."""
        if node.free > len(forced):
            return False                # a forced option past the end of ``forced``
        # after its end, the node took each likeliest option, as ``forced`` takes them
        return takes_alike(forced, node.values, node.calls, min(len(node.calls), len(forced)),
                           self.take)

    def _nearest(self, forced: list, until: float) -> _Node:
        best = self._root
        for node in self._nodes:        # the latest first
            if node.t <= until and self.times[node.done - 1] <= until \
                    and self._compatible(node, forced):
                best = node
                break
        self._clock += 1
        best.used = self._clock
        return best

    def _free(self, calls: list) -> int:
        """Return the index after the last decision not at its likeliest option."""
        for i in range(len(calls) - 1, -1, -1):
            if self.take((), i, calls[i]) != calls[i].value:
                return i + 1
        return 0

    def _spawn(self, origin: _Node, forced: list, where: tuple) -> _Node:
        """Make a node from ``origin`` at ``where`` = (step, time or None: ``_aim``)."""
        mine, theirs = socket.socketpair()
        try:
            self._request(origin, ("node", forced, where), theirs)
        finally:
            theirs.close()
        msg, _ = _recv(mine)
        try:
            self._check(msg, f"a saved game state at step {where[0]}")
        except BaseException:
            mine.close()
            raise
        _, done, t, (keep, new), calls, looks = msg
        calls = origin.calls + calls
        looks = looks_from(origin.looks, looks)
        raw = origin.raw[:keep] + new
        ordered = time_order(raw, math.inf)
        node = _Node(mine, done, t, raw, calls, [d.value for d in calls], self._free(calls),
                     ordered, [e["t"] for e in ordered], looks)
        self._nodes.append(node)
        self._nodes.sort(key=lambda n: (-n.done, -n.t))     # the latest first (_nearest)
        self._socks.append(mine)
        self._clock += 1
        node.used = self._clock
        if len(self._nodes) > self.max_nodes:
            old = min(self._nodes, key=lambda n: n.used)
            self._nodes.remove(old)
            self._socks.remove(old.sock)
            old.sock.close()
        return node

    def _request(self, node: _Node, msg, reply: socket.socket) -> None:
        try:
            if node.sock is None:
                self._server.ask(msg + ((self.script, self.start),), [reply.fileno()])
            else:
                _send(node.sock, msg, [reply.fileno()])
        except OSError as exc:
            raise ReplayProcessError(f"a saved game state at {node.t:.3f} s is gone "
                                     f"({exc})") from None

    @staticmethod
    def _check(msg, what: str) -> None:
        if msg is None:
            raise ReplayProcessError(f"{what}: the replay process ended without an answer "
                                     f"(killed, or out of memory?)")
        if msg[0] == "error":
            raise msg[1]
