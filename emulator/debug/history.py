"""The debugger's history: snapshots of chip and board, moving to any clock by re-running, and
the state file.

Time is the position: one instruction is 6 clocks (``emulator.core``), so the fetch clock names
every point of a run, and the machine is deterministic (the same start and the same inputs give
the same run on either core). A :class:`History` keeps a :class:`Snapshot` every ``every``
instructions (and at every key given at the prompt); going to an earlier clock restores the
snapshot before it and runs forward to it (:meth:`History.goto`), which is what reverse
stepping is. Nothing is dropped: the snapshots reach back to the start (about 3 KB each on
the Dark Tower, some 25 MB an hour of tower time at the default ``every``; the board's pin
log, which is the board's, grows faster).

A board is snapshotted by its attribute names (read from a spare board of its class); its
append-only logs ``pins``, ``speaker`` and ``events`` are kept by length and last entry, so a
board model may add attributes freely but must keep those three logs append-only (the last
entry may be replaced). ``save_state``/``load_state`` write and read the machine state now as
gzip JSON (tuples, sets, bytes and dicts with non-string keys tagged).
"""
from __future__ import annotations

import bisect
import copy
import gzip
import hashlib
import json
import os
from dataclasses import dataclass

from emulator.darktower import DarkTowerBoard
from emulator.debug.chipstate import common_image, cpu_state, set_cpu_state
from emulator.debug.points import DebugError, KeyJournal

__all__ = ["Snapshot", "History", "save_state", "load_state"]

_LOGS = ("pins", "speaker", "events")      # append-only board logs: kept by length
_SKIP = ("cpu", "_listeners", "_error")    # board attributes a snapshot does not copy
# Attributes a snapshot reaches through another name: the Dark Tower board keeps its pin log
# behind the ``pins`` property (the kernel's records wait as blocks until it is read).
_STORED_AS = {"_pins": "pins", "_pin_blocks": None}
_STATE_FORMAT = "towerlab-debug-state"
_STATE_VERSION = 1
_ATOMS = (int, float, bool, str, bytes, type(None))


@dataclass
class Snapshot:
    """The machine at fetch clock ``cycle``: ``journal`` key-journal entries applied, the raw
    ``cpu`` registers and the ``board`` attributes."""
    cycle: int
    journal: int
    cpu: dict
    board: dict


class History:
    """The snapshots of one machine (``cpu`` on ``board``, keys from ``journal``) since
    ``origin`` (the fetch clock of instruction 0), one every ``every`` instructions."""

    def __init__(self, cpu, board, journal: KeyJournal, origin: int, every: int) -> None:
        self.cpu = cpu
        self.board = board
        self.journal = journal
        self.origin = origin
        self.every = int(every)
        self.fields = _board_fields(board)
        self.snaps: list[Snapshot] = []
        self.cycles: list[int] = []

    @property
    def first(self) -> int:
        """Return the clock of the earliest snapshot (the start of history)."""
        return self.cycles[0]

    # ---- the board's state ----------------------------------------------------------------

    def board_state(self) -> dict:
        """Return the board's attributes, its logs by length and last entry."""
        out = {}
        board = self.board
        for k in self.fields:
            if k == "pins" and isinstance(board, DarkTowerBoard):
                out[k] = board.pin_mark()    # without turning the kernel's records into tuples
                continue
            v = getattr(board, k)
            if k in _LOGS:
                out[k] = (len(v), v[-1] if v else None)
            else:
                out[k] = _copy(v)
        return out

    def set_board_state(self, st: dict) -> None:
        """Put the board back to a state from :meth:`board_state`."""
        board = self.board
        for k, v in st.items():
            if k in _LOGS:
                n, last = v
                log = getattr(board, k)
                del log[n:]
                if n:
                    log[-1] = last
            else:
                setattr(board, k, _copy(v))

    def board_full(self) -> dict:
        """Return every kept board attribute, logs whole (for the state file)."""
        return {k: getattr(self.board, k) for k in self.fields}

    # ---- snapshots ------------------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        """Return a snapshot of now."""
        return Snapshot(self.cpu.cycle, self.journal.pos, cpu_state(self.cpu),
                        self.board_state())

    def take(self) -> None:
        """Keep a snapshot of now (replacing one of the same clock with fewer keys applied)."""
        now = self.cpu.cycle
        i = bisect.bisect_left(self.cycles, now)
        if i < len(self.snaps) and self.cycles[i] == now:
            if self.snaps[i].journal >= self.journal.pos:
                return
            self.snaps[i] = self.snapshot()
            return
        self.snaps.insert(i, self.snapshot())
        self.cycles.insert(i, now)

    def replace_now(self) -> None:
        """Keep a snapshot of now, replacing the one of the same clock."""
        i = bisect.bisect_left(self.cycles, self.cpu.cycle)
        if i < len(self.snaps) and self.cycles[i] == self.cpu.cycle:
            self.snaps[i] = self.snapshot()
        else:
            self.take()

    def here(self) -> Snapshot:
        """Return the kept snapshot of now (segments start at the periodic ones), or a new
        one."""
        now = self.cpu.cycle
        i = bisect.bisect_left(self.cycles, now)
        if i < len(self.snaps) and self.cycles[i] == now \
                and self.snaps[i].journal == self.journal.pos:
            return self.snaps[i]
        return self.snapshot()

    def restore(self, snap: Snapshot) -> None:
        """Put chip, board and key journal back to ``snap``."""
        set_cpu_state(self.cpu, snap.cpu)
        self.set_board_state(snap.board)
        self.journal.pos = snap.journal

    def earlier(self, cycle: int) -> list[Snapshot]:
        """Return the snapshots before clock ``cycle``, latest first."""
        return self.snaps[: bisect.bisect_left(self.cycles, cycle)][::-1]

    def forget_future(self) -> None:
        """Drop the snapshots and key-journal entries after now: a new input changes what
        follows."""
        del self.journal.entries[self.journal.pos:]
        keep = bisect.bisect_right(self.cycles, self.cpu.cycle)
        del self.snaps[keep:], self.cycles[keep:]

    def restart(self) -> None:
        """Drop every snapshot and start the history again now (a loaded state)."""
        self.snaps, self.cycles = [], []
        self.take()

    # ---- moving ---------------------------------------------------------------------------

    def boundary_after(self, cycle: int) -> int:
        """Return the next snapshot clock after ``cycle`` (every ``every`` instructions)."""
        step = 6 * self.every
        return self.origin + ((cycle - self.origin) // step + 1) * step

    def at_boundary(self) -> bool:
        """Return True when now is a periodic snapshot clock."""
        return (self.cpu.cycle - self.origin) % (6 * self.every) == 0

    def segment_end(self, end: int | None) -> int:
        """Return where a run towards ``end`` (None: no end) stops next: the next snapshot
        clock, ``end`` or the next key of the journal, whichever is first."""
        target = self.boundary_after(self.cpu.cycle)
        if end is not None:
            target = min(target, end)
        due = self.journal.next_cycle()
        return target if due is None else min(target, due)

    def advance(self, end: int, interrupted=None) -> None:
        """Run to fetch clock ``end`` at full speed, applying the journal and taking the
        periodic snapshots on the way; ``interrupted`` (a function) is asked before each
        segment and stops the run early when it returns True."""
        while self.cpu.cycle < end:
            if interrupted is not None and interrupted():
                return
            target = self.segment_end(end)
            if target > self.cpu.cycle:
                self.board.run_until(target)
            self.journal.apply(self.cpu.cycle)
            if self.at_boundary():
                self.take()

    def goto(self, target: int, interrupted=None) -> None:
        """Put the machine at fetch clock ``target`` (earlier or later) by re-running;
        ``interrupted`` as for :meth:`advance` (the machine stays where it got to)."""
        target = max(target, self.cycles[0])
        now = self.cpu.cycle
        if target < now or now < self.cycles[0]:
            i = bisect.bisect_right(self.cycles, target) - 1
            self.restore(self.snaps[i])
        elif target > now:
            i = bisect.bisect_right(self.cycles, target) - 1
            if self.cycles[i] > now and self._logs_reach(self.snaps[i]):
                self.restore(self.snaps[i])      # a later snapshot is closer
        self.advance(target, interrupted)
        self.journal.apply(self.cpu.cycle)

    def _logs_reach(self, snap: Snapshot) -> bool:
        """Return True when the board's logs hold every entry ``snap`` keeps by length: after
        going back they are cut short, and a later snapshot cannot give them back."""
        for k in _LOGS:
            if k not in snap.board:
                continue
            if k == "pins" and isinstance(self.board, DarkTowerBoard):
                have = self.board.pin_count()
            else:
                have = len(getattr(self.board, k))
            if have < snap.board[k][0]:
                return False
        return True


def _board_fields(board) -> tuple[str, ...]:
    """Return the names of a board's attributes that a snapshot keeps.

    They are read from a second, chip-less board of the same class: ``vars()`` on the board
    being run would turn its attribute storage into a dict, which makes CPython 3.11+ look its
    attributes up more slowly for the rest of the run (about 20% of the board's time here).
    """
    spare = type(board)(None, board.clock_hz)
    names = [_STORED_AS.get(k, k) for k in vars(spare)]
    return tuple(k for k in names if k is not None and k not in _SKIP)


def _copy(value):
    """Return a copy of a board attribute that shares nothing mutable with it."""
    if isinstance(value, _ATOMS):
        return value
    if isinstance(value, tuple) and all(isinstance(v, _ATOMS) for v in value):
        return value
    if isinstance(value, list):
        return [_copy(v) for v in value]
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, set):
        return set(value)
    return copy.deepcopy(value)


# ---- the state file: JSON with tagged tuples, sets, dicts with non-string keys and bytes --------


def save_state(path: str | os.PathLike, history: History, rom: bytes, chip_name: str,
               board_name: str, clock_hz: int) -> None:
    """Write the machine state now (chip, board, keys journal) to ``path`` (gzip JSON)."""
    from captures.files import atomic_write

    doc = {"format": _STATE_FORMAT, "version": _STATE_VERSION,
           "rom_sha1": hashlib.sha1(rom).hexdigest(), "chip": chip_name,
           "board": board_name, "clock_hz": clock_hz, "origin": history.origin,
           "cpu": _encode(cpu_state(history.cpu)), "board_state": _encode(history.board_full()),
           "journal": [list(e) for e in history.journal.applied()]}
    data = gzip.compress(json.dumps(doc).encode("utf-8"), mtime=0)
    atomic_write(str(path), lambda f: f.write(data), binary=True)


def load_state(path: str | os.PathLike, history: History, rom: bytes, board_name: str,
               clock_hz: int) -> None:
    """Restore a state written by :func:`save_state` for the same ROM, board and clock; the
    history starts again there. DebugError names the file and what did not match."""
    try:
        with open(path, "rb") as f:
            doc = json.loads(gzip.decompress(f.read(16 << 20)).decode("utf-8"))
    except (OSError, EOFError, ValueError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise DebugError(f"{path}: not a debugger state file ({reason})") from None
    if not isinstance(doc, dict) or doc.get("format") != _STATE_FORMAT:
        raise DebugError(f"{path}: not a debugger state file (expected format "
                         f"{_STATE_FORMAT!r})")
    if doc.get("version") != _STATE_VERSION:
        raise DebugError(f"{path}: state version {doc.get('version')!r} (expected "
                         f"{_STATE_VERSION})")
    sha = hashlib.sha1(rom).hexdigest()
    for key, mine in (("rom_sha1", sha), ("board", board_name), ("clock_hz", clock_hz)):
        if doc.get(key) != mine:
            raise DebugError(f"{path}: saved with {key} {doc.get(key)!r}, but this "
                             f"debugger has {mine!r}")
    set_cpu_state(history.cpu, common_image(_decode(doc["cpu"]), rom))
    for k, v in _decode(doc["board_state"]).items():
        if k in _LOGS:
            getattr(history.board, k)[:] = v
        else:
            setattr(history.board, k, v)
    history.origin = doc["origin"]
    history.journal.replace(doc["journal"])
    history.restart()


def _encode(value):
    if isinstance(value, (bytes, bytearray)):
        return {"__bytes": bytes(value).hex()}
    if isinstance(value, tuple):
        return {"__tuple": [_encode(v) for v in value]}
    if isinstance(value, (set, frozenset)):
        return {"__set": sorted(_encode(v) for v in value)}
    if isinstance(value, dict):
        return {"__dict": [[_encode(k), _encode(v)] for k, v in value.items()]}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise DebugError(f"cannot save a {type(value).__name__} in a debugger state file")


def _decode(value):
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if isinstance(value, dict):
        if "__bytes" in value:
            return bytes.fromhex(value["__bytes"])
        if "__tuple" in value:
            return tuple(_decode(v) for v in value["__tuple"])
        if "__set" in value:
            return {_decode(k) for k in value["__set"]}
        if "__dict" in value:
            return {_decode(k): _decode(v) for k, v in value["__dict"]}
    return value
