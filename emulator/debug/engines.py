"""The debugger's run engines: moving forwards to the first stop, and finding the last stop
before now.

- With nothing to stop at, a run is ``board.run_until``: the compiled kernel at its own speed.
- **Watching** (the compiled kernel): with breakpoints or watchpoints the kernel records the
  matching instructions while it runs at full speed (``FastCpu.set_watch``: a bitmap test per
  instruction); the conditions are evaluated on those records, and the machine re-runs from
  the segment's snapshot to the first hit that stops.
- **Stepping** (the reference core, or while tracing): one instruction at a time, each checked
  in Python; both engines find the same stops (``tests/emulator/test_debug.py``).

A K read is an instruction whose micro-ops take K from the CKI bus (TKA, KNEZ; the other
opcodes 0x08-0x0F sample K too, as ``emulator.core`` models, but use none of it). A RAM read is
an instruction whose adder takes the nibble (micro-ops MTP or MTN: TMA, XMA, TBIT, ...) or
SBIT/RBIT; a write any store to it (STO, CKM, SBIT, RBIT), even of the value it held.
"""
from __future__ import annotations

from typing import IO, Iterable

from emulator.asm import rom_offset
from emulator.debug.chipstate import RecordView, from_kernel, read_state, with_value
from emulator.debug.history import Snapshot
from emulator.debug.points import DebugError, Point, Stop
from emulator.decode import MICRO_BIT, fixed_table, micro_table
from emulator.fastcore import hit_dict
from emulator.machine import NO_BOARD
from emulator.trace import format_line

__all__ = ["Runner"]

_READ_MICRO = MICRO_BIT["MTP"] | MICRO_BIT["MTN"]
_WRITE_MICRO = MICRO_BIT["STO"] | MICRO_BIT["CKM"]
_CKI_MICRO = MICRO_BIT["CKP"] | MICRO_BIT["CKN"] | MICRO_BIT["CKM"]


class Runner:
    """Run the machine of debugger ``dbg`` (decoding by ``mpla``) forwards until a point
    stops it (see the module docstring); ``trace`` (an open text file, or None) gets the
    canonical line of every instruction run while it is set."""

    def __init__(self, dbg, mpla=None) -> None:
        self.dbg = dbg
        self.cpu, self.board, self.chip, self.rom = dbg.cpu, dbg.board, dbg.chip, dbg.rom
        self.history = dbg.history
        self.journal = dbg.history.journal
        self.trace: IO[str] | None = None
        self._armed: tuple = ()
        self._k_seen: int | None = None
        self._micro = micro_table(dbg.chip, mpla)
        self._fixed = [f for f, _ in fixed_table(dbg.chip)]
        if self.cpu.core == "reference" and dbg.board_name != NO_BOARD:
            self._board_read_k = self.cpu.read_k
            self.cpu.read_k = self._read_k_recorded

    def state(self) -> dict:
        """Return the chip state now (``emulator.debug.chipstate.read_state``)."""
        return read_state(self.cpu, self.chip, self.history.origin)

    # ---- forwards ---------------------------------------------------------------------------

    def run(self, end: int | None, extra: Iterable[Point] = (), step_only: bool = False
            ) -> Stop | None:
        """Run forwards to ``end`` (None: no end) and return the stop, or None at ``end``;
        ``extra`` are a command's temporary points, ``step_only`` ignores every point."""
        points = [] if step_only else self.dbg.points.active(extra)
        start = self.cpu.cycle
        if not points and self.trace is None:
            if end is None:
                raise DebugError("nothing to stop at: set a breakpoint or watchpoint, or "
                                 "give a time")
            self._advance_interruptible(end)
            return self._interrupted() if self.cpu.cycle < end else None
        if self.trace is not None or self.cpu.core == "reference":
            return self._run_stepping(end, points, start)
        return self._run_watching(end, points, start)

    def _advance_interruptible(self, end: int) -> None:
        history = self.history
        while self.cpu.cycle < end and not self.dbg.interrupt:
            history.advance(min(end, history.boundary_after(self.cpu.cycle)))

    def _interrupted(self) -> Stop:
        self.dbg.interrupt = False
        return Stop("interrupted", self.cpu.cycle)

    def _run_watching(self, end: int | None, points: list[Point], start: int) -> Stop | None:
        skip = start
        armed = self.dbg.points.watch_args(points)
        history, cpu = self.history, self.cpu
        while end is None or cpu.cycle < end:
            if self.dbg.interrupt:
                return self._interrupted()
            seg_end = history.segment_end(end)
            snap = history.here()
            cpu.set_watch(*armed)
            try:
                if seg_end > cpu.cycle:
                    self.board.run_until(seg_end)
                records, dropped = cpu.take_hit_records()
            finally:
                cpu.set_watch(None)
            found = self._first_stop(records, points, skip, dropped or None)
            if found is not None:
                hit, point = found
                history.restore(snap)
                history.advance(hit["cycle"])
                self.journal.apply(cpu.cycle)
                return self.stopped(point, hit)
            if dropped:                   # the record was full: look again from there
                history.restore(snap)
                history.advance(dropped - 6)
                skip = cpu.cycle
                continue
            self.journal.apply(cpu.cycle)
            if history.at_boundary():
                history.take()
        return None

    def _first_stop(self, records: list[tuple], points: list[Point], skip_pc_at: int,
                    before: int | None = None):
        """Return (hit, point) for the first kernel record that stops at a point."""
        view = RecordView(self.chip, self.history.origin)
        for rec in records:
            if before is not None and rec[0] >= before:
                break
            if rec[4] == 0 and rec[0] == skip_pc_at:
                continue
            view.rec = rec
            for p in points:
                if p.matches(view):
                    return from_kernel(self.chip, hit_dict(rec), self.history.origin), p
        return None

    def _run_stepping(self, end: int | None, points: list[Point], start: int) -> Stop | None:
        """Run one instruction at a time (reference core, or tracing), checking each."""
        if self.cpu.core == "fast":
            self._armed = self.dbg.points.watch_args(points)
        breaks = self._breaks(points)
        others = [p for p in points if p.kind != "break"]
        cpu = self.cpu
        while end is None or cpu.cycle < end:
            if self.dbg.interrupt:
                return self._interrupted()
            before = self.state()
            addr = rom_offset(before["ca"], before["pa"], before["pc"])
            if cpu.cycle != start and addr in breaks:
                hit = dict(before, kind="pc", where=addr, **{"from": addr})
                for p in breaks[addr]:
                    if p.matches(hit):
                        return self.stopped(p, hit)
            if self.trace is not None:
                self.trace.write(self._trace_line(before) + "\n")
            for hit in self.step_hits(before):
                for p in others:
                    if p.matches(hit):
                        self.journal.apply(cpu.cycle)
                        return self.stopped(p, hit)
            due = self.journal.next_cycle()
            if due is not None and due <= cpu.cycle:
                self.journal.apply(cpu.cycle)
            if self.history.at_boundary():
                self.history.take()
        return None

    def _breaks(self, points: list[Point]) -> dict[int, list[Point]]:
        """Return the breakpoints of ``points`` by ROM offset."""
        breaks: dict[int, list[Point]] = {}
        for p in points:
            if p.kind == "break":
                breaks.setdefault(rom_offset(*p.addr) % self.chip.rom_size, []).append(p)
        return breaks

    def _read_k_recorded(self, cycle: int) -> int:
        k = self._board_read_k(cycle)
        self._k_seen = k & 15
        return k

    def step_hits(self, before: dict) -> list[dict]:
        """Execute one instruction; return its hits (the reference-core check, or the
        kernel's record on the fast core) as states plus kind/where."""
        cpu = self.cpu
        if cpu.core == "fast":
            cpu.set_watch(*self._armed)
            try:
                self.board.run_until(cpu.cycle + 6)     # to the next fetch, as a run does
                raw, _ = cpu.take_hits()
            finally:
                cpu.set_watch(None)
            return [from_kernel(self.chip, h, self.history.origin) for h in raw
                    if h["kind"] != "pc"]
        src = rom_offset(before["ca"], before["pa"], before["pc"])
        op = self.rom[src]
        addr = (before["x"] << 4 | before["y"]) & (self.chip.ram_size - 1)
        self._k_seen = None
        self.board.run_until(cpu.cycle + 6)             # the board's time too
        after = self.state()
        hits = []
        micro, fixed = self._micro[op], self._fixed[op]

        def hit(kind: str, where: int) -> None:
            hits.append(with_value(dict(after, kind=kind, where=where, **{"from": src})))
        if micro & _READ_MICRO or fixed in ("SBIT", "RBIT"):
            hit("ram_read", addr)
        if micro & _WRITE_MICRO or fixed in ("SBIT", "RBIT"):
            hit("ram_write", addr)
        if self._k_seen and micro & _CKI_MICRO:
            hit("k", self._k_seen)
        if fixed in ("SETR", "RSTR"):
            changed = (after["r"] ^ before["r"]) & ((1 << self.chip.r_count) - 1)
            if changed:
                hit("r", changed)
        elif fixed in ("TDO", "CLO") and after["o"] != before["o"]:
            hit("o", after["o"] ^ before["o"])
        return hits

    def _trace_line(self, st: dict) -> str:
        op = self.rom[rom_offset(st["ca"], st["pa"], st["pc"])]
        return format_line(st["n"], st["cycle"], st["ca"], st["pa"], st["pc"], op, st["a"],
                           st["x"], st["y"], st["s"], st["sl"], st["pb"], st["cb"],
                           st["r"] & ((1 << self.chip.r_count) - 1), st["o"])

    # ---- what stopped -----------------------------------------------------------------------

    def stopped(self, point: Point, hit: dict) -> Stop:
        """Count a stop at ``point`` (dropping a temporary one) and return it."""
        point.hits += 1
        if point.temporary:
            self.dbg.points.pop(point.number, None)
        what = "breakpoint" if point.kind == "break" else "watchpoint"
        return Stop(f"{what} {point.number}", self.cpu.cycle, point,
                    self.hit_detail(hit))

    def hit_detail(self, hit: dict) -> str:
        """Return what a hit saw, as a stop reports it (the address, or the nibble, K or pins
        with the instruction that did it)."""
        describe = self.dbg.describe
        kind = hit["kind"]
        if kind == "pc":
            return describe((hit["ca"], hit["pa"], hit["pc"]))
        src = hit["from"]
        at = f" by {describe((src >> 10, src >> 6 & 15, src & 63))}"
        if kind in ("ram_read", "ram_write"):
            a = hit["where"]
            verb = "read" if kind == "ram_read" else "write"
            return f"{verb} RAM {a >> 4:X}:{a & 15:X} = {hit['ram'][a]:X}{at}"
        if kind == "k":
            return f"K = {hit['where']:X}{at}"
        bank = kind.upper()
        pins = " ".join(f"{bank}{i}" for i in range(16) if hit["where"] >> i & 1)
        return f"{pins} changed{at}"

    # ---- backwards --------------------------------------------------------------------------

    def last_stop_between(self, snap: Snapshot, seg_end: int, now: int,
                          points: list[Point]):
        """Return the last (hit, point) recorded between ``snap`` and ``seg_end`` that is
        before ``now``: PC hits at clocks [snap, seg_end), the others in (snap, seg_end]."""
        self.history.restore(snap)
        if self.cpu.core == "fast":
            return self._last_recorded(snap, seg_end, now, points)
        return self._last_stepped(seg_end, now, points)

    def _last_recorded(self, snap: Snapshot, seg_end: int, now: int, points: list[Point]):
        """:meth:`last_stop_between` on the kernel's watch record."""
        found = None
        start = snap.cycle
        history, cpu = self.history, self.cpu
        while True:
            cpu.set_watch(*self.dbg.points.watch_args(points))
            try:
                history.advance(seg_end)
                records, dropped = cpu.take_hit_records()
            finally:
                cpu.set_watch(None)
            view = RecordView(self.chip, history.origin)
            for rec in records:
                c = rec[0]
                if dropped and c >= dropped:
                    break
                if c >= now or (rec[4] == 0 and (c >= seg_end or c < start)):
                    continue
                view.rec = rec
                for p in points:
                    if p.matches(view):
                        found = (from_kernel(self.chip, hit_dict(rec), history.origin), p)
                        break
            if not dropped:
                return found
            history.restore(snap)                    # the record was full: go on from there
            history.advance(dropped - 6)
            start = cpu.cycle

    def _last_stepped(self, seg_end: int, now: int, points: list[Point]):
        """:meth:`last_stop_between` one instruction at a time."""
        found = None
        breaks = set(self._breaks(points))
        while self.cpu.cycle < seg_end:
            before = self.state()
            addr = rom_offset(before["ca"], before["pa"], before["pc"])
            if addr in breaks:
                hit = dict(before, kind="pc", where=addr, **{"from": addr})
                for p in points:
                    if p.kind == "break" and p.matches(hit):
                        found = (hit, p)
                        break
            for hit in self.step_hits(before):
                if hit["cycle"] < now:
                    for p in points:
                        if p.kind != "break" and p.matches(hit):
                            found = (hit, p)
                            break
            self.journal.apply(self.cpu.cycle)
        return found
