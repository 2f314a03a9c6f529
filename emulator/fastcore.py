"""Run the same chip model as ``emulator.core.Cpu`` in the compiled kernel ``emulator._fastcore``.

The decode is done once here, in Python, by the same functions the reference core uses
(``emulator.decode``: micro PLA -> micro-op word per opcode, the opcode table's hard-wired
actions, the output PLA); the C kernel only executes by lookup. It runs many instructions per
call and returns to Python only at the pin events the caller asks for:

- with ``read_k`` set to a Python callable, K is read through it (slow path, any board);
- with ``set_k_orform(kconst, r_rows, o_rows)`` K is computed in C as the wired OR the boards
  here use (K = kconst | rows of the set R pins | rows of the set O pins), so K reads cost
  nothing and the caller only has to refresh the form when a key, the reel sensor or the time
  changes what a column returns;
- R/O pin changes are buffered with their clock; ``take_edges()`` returns them, ``on_r``/``on_o``
  (when set) receive them. With a Python ``read_k`` the kernel stops after every pin change so the
  callback always sees current pins, exactly as with the reference core.

With the OR-form (and no debugger watch) the kernel runs its fast path: the registers in C
locals, and pure wait loops fast-forwarded. A wait loop is an instruction that takes neither
K nor RAM into the adder, stores nothing and has no hard-wired action, followed by a BRANCH
back to it that keeps the page: a function of (A, Y) alone that reads no input and writes no
pin, so its exit (iterations, A, Y) is simulated once per entry value and the loop is skipped
to it when its last instruction is fetched before the cycle asked for; the clock, the pins,
the K reads after it and every register are what stepping gives (``fast_forwarded`` counts
the skipped instructions). ``board_kernel()`` hands the kernel to a board model that runs in
it (the Dark Tower's, ``emulator.darktower``).

Both cores share one interface: ``power_on``, ``reset``, ``run_until``, ``step``, ``state`` /
``set_state`` (the same dict on either core), ``pins``, ``take_edges`` and ``core`` ("fast" or
"reference"). Identity with the reference core (instruction traces, pin-change streams, states
at any stopping cycle, with and without the fast-forward) is a test (``tests/fastcore/``).
Where the kernel is not built (no compiler at install time) ``make_cpu(..., core="fast")``
falls back to the reference core with a notice.
"""
from __future__ import annotations

import struct
import sys
from typing import Callable, Iterator

from emulator.chips import Chip
from emulator.core import LFSR_NEXT, Cpu, CpuError
from emulator.decode import FIXED_CODES, cki_constant, fixed_table, micro_table, output_table
from emulator.pla import Pla

try:  # the kernel is optional: built by setup.py where a compiler exists
    from emulator import _fastcore
except ImportError:  # pragma: no cover - depends on the install
    _fastcore = None

__all__ = ["FAST_AVAILABLE", "FastCpu", "make_cpu", "fast_trace_lines", "fast_trace_chunks",
           "CORES", "HIT_KINDS", "hit_dict"]

FAST_AVAILABLE = _fastcore is not None
CORES = ("reference", "fast")


# struct trace_t of _fastcore.c: u64 cycle, u16 r, then 12 bytes, padded to 24 bytes.
_TRACE = struct.Struct("<QH12B2x")

# struct hit_t of _fastcore.c (the debugger watch): u64 cycle, u16 r, u16 where, u16 from, 15
# register bytes, the 3-entry stack (sr, ps, cs), 128 RAM nibbles, padded to 168 bytes.
_HIT = struct.Struct("<QHHH15B9B128s2x")
_HIT_REGS = ("kind", "a", "x", "y", "pc", "pa", "pb", "ca", "cb", "cl", "status", "sl", "o",
             "o_index", "op")
HIT_KINDS = ("pc", "ram_read", "ram_write", "k", "r", "o")

_notice_given = False


def _tables(chip: Chip, mpla: Pla | None, opla: Pla | None) -> dict:
    micro = micro_table(chip, mpla)
    fixed = fixed_table(chip)
    codes = bytearray(256)
    operand = bytearray(256)
    cki = bytearray(256)
    for op in range(256):
        name, value = fixed[op]
        codes[op] = FIXED_CODES[name]
        operand[op] = (value or 0) & 0xFF
        cki[op] = 0xFF if 0x08 <= op <= 0x0F else cki_constant(op)
    return {
        "micro": struct.pack("<256H", *micro), "fixed": bytes(codes),
        "operand": bytes(operand), "cki": bytes(cki),
        "opla": bytes(output_table(opla)),
    }


class FastCpu:
    """A TMS1000-family chip executed by the C kernel; the interface of ``emulator.core.Cpu``.

    Registers are read through properties (each read asks the kernel, so inspect, don't loop on
    them). ``cycle`` is the clock of the next fetch (6n + 5 after reset).
    """

    core = "fast"

    def __init__(self, chip: Chip, rom: bytes, mpla: Pla | None = None,
                 opla: Pla | None = None) -> None:
        if _fastcore is None:
            raise RuntimeError("the accelerated core is not built (no C compiler at install)")
        if len(rom) != chip.rom_size:
            raise CpuError(f"ROM is {len(rom)} bytes (expected {chip.rom_size} for a "
                           f"{chip.name.upper()})")
        try:
            tables = _tables(chip, mpla, opla)
        except ValueError as exc:
            raise CpuError(str(exc)) from None
        self.chip = chip
        self.rom = bytes(rom)
        self.mpla = mpla
        self.opla = opla
        self.output_table = tuple(tables["opla"])
        self._core = _fastcore.Core(
            self.rom, tables["micro"], tables["fixed"], tables["operand"], tables["cki"],
            tables["opla"], chip.chapter_bits, chip.stack_depth, (1 << chip.x_bits) - 1,
            1 if chip.setr_rule == "y_x_msb_clear" else 0)
        self.on_r: Callable[[int, int], object] | None = None
        self.on_o: Callable[[int, int], object] | None = None
        self._read_k: Callable[[int], int] | None = None
        self._stops = (0, 0)                 # (R mask, O mask) the caller watches
        self._core.reset(0, True)
        self._deliver()

    # -- pins ------------------------------------------------------------------------------

    @property
    def read_k(self) -> Callable[[int], int] | None:
        return self._read_k

    @read_k.setter
    def read_k(self, fn: Callable[[int], int] | None) -> None:
        """Read K through a Python callable (None: K = 0, or the OR-form if one is set)."""
        self._read_k = fn
        self._core.set_k_callback(fn)
        self._update_stops()

    def set_k_orform(self, kconst: int, r_rows: bytes | list[int] = b"",
                     o_rows: bytes | list[int] = b"") -> None:
        """Compute K in the kernel as ``kconst | OR(r_rows[i] for R_i set) | OR(o_rows[j] ...)``.

        ``r_rows`` has up to 16 entries (one per R latch bit), ``o_rows`` up to 8 (one per O pin);
        missing entries are 0. Clears any Python ``read_k``.
        """
        r = bytes(r_rows).ljust(16, b"\0")
        o = bytes(o_rows).ljust(8, b"\0")
        self._read_k = None
        self._core.set_k_callback(None)
        self._core.set_k(kconst & 0xF, r, o)
        self._update_stops()

    def set_stops(self, r_mask: int, o_mask: int) -> None:
        """Return from ``run_until`` as soon as an R pin in ``r_mask`` or O pin in ``o_mask``
        changes (used by boards whose state depends on those pins)."""
        self._stops = (r_mask, o_mask)
        self._core.set_stop(r_mask, o_mask)

    def _update_stops(self) -> None:
        if self._read_k is not None:
            self._core.set_stop(0x7FF, 0xFF)  # the callback must see every pin change
        else:
            self._core.set_stop(*self._stops)

    def board_kernel(self):
        """Return the kernel object, for a board model that runs in it (emulator.darktower)."""
        return self._core

    def take_edges(self) -> list[tuple[int, int, int]]:
        """Return and clear the buffered pin changes ``(cycle, kind, value)`` (kind 0 R, 1 O)."""
        return self._core.take_edges()

    def _deliver(self) -> None:
        on_r, on_o = self.on_r, self.on_o
        if on_r is None and on_o is None:
            return
        for cycle, kind, value in self._core.take_edges():
            if kind == 0:
                if on_r is not None:
                    on_r(cycle, value)
            elif on_o is not None:
                on_o(cycle, value)

    # -- control ---------------------------------------------------------------------------

    def reset(self, cycle: int = 0) -> None:
        """Apply INIT at clock ``cycle`` (docs/tms1400.md §11); pins are reported at ``cycle``."""
        self._core.reset(cycle, False)
        self._deliver()

    def power_on(self, cycle: int = 0) -> None:
        """Apply a power-on reset at clock ``cycle``: RAM, A, X, Y, SL zeroed, then INIT."""
        self._core.reset(cycle, True)
        self._deliver()

    def run_until(self, cycle: int) -> int:
        """Execute every instruction fetched before clock ``cycle``; return how many.

        Returns early (``self.cycle < cycle``) only when a pin selected by ``set_stops`` changed,
        or when no ``on_r``/``on_o`` consumes the pin-change buffer and it is full: callers
        using ``take_edges`` loop until ``self.cycle >= cycle``.
        """
        core = self._core
        consuming = self.on_r is not None or self.on_o is not None
        user_stops = self._stops != (0, 0)
        total = 0
        while True:
            total += core.run(cycle)
            if consuming:
                self._deliver()
            if core.cycle >= cycle:
                return total
            if user_stops and self._read_k is None:
                return total  # a pin the caller watches changed
            if not consuming and core.n_edges >= _fastcore.EDGE_CAP - 2:
                return total  # buffer full: the caller takes the edges and calls again
            # else the kernel stopped so a Python read_k sees current pins: go on

    def step(self) -> None:
        """Execute one instruction (6 oscillator clocks)."""
        self._core.step()
        self._deliver()

    def run(self, instructions: int) -> None:
        """Execute ``instructions`` instructions."""
        self.run_until(self.cycle + 6 * instructions - 5)

    # -- registers (the reference core's attribute names) ------------------------------------

    @property
    def cycle(self) -> int:
        return self._core.cycle

    @property
    def pins(self) -> tuple[int, int]:
        """Return the pins the chip drives now: (the visible R bits, the 8 O pins)."""
        st = self._core.state()
        return st["r"] & ((1 << self.chip.r_count) - 1), st["o"]

    @property
    def fast_forwarded(self) -> int:
        """Return how many instructions the kernel skipped in wait loops (same result as
        stepping them; ``set_fast_forward(False)`` turns it off)."""
        return self._core.ff_skipped

    def set_fast_forward(self, on: bool) -> None:
        """Let the kernel skip pure wait loops to their exit (on by default)."""
        self._core.set_fast_forward(bool(on))

    def state(self) -> dict:
        """Return every register, the RAM and the clock as a dict."""
        return self._core.state()

    def set_state(self, state: dict) -> None:
        """Restore every register, the RAM and the clock from a dict made by ``state()``."""
        self._core.set_state(state)

    # -- debugger watch (emulator.debug) -------------------------------------------------------

    def set_watch(self, brk: bytes | None, ram_read: bytes = bytes(16),
                  ram_write: bytes = bytes(16), k: bool = False, r_mask: int = 0,
                  o_mask: int = 0) -> None:
        """Arm the kernel's record of matching instructions (None disarms it; costs nothing).

        ``brk`` is a 4096-bit bitmap (512 bytes) of ROM addresses ``CA<<10 | PA<<6 | PC``:
        a hit is recorded before such an instruction runs. ``ram_read``/``ram_write`` are
        128-bit bitmaps of RAM addresses ``X<<4 | Y`` (a read is an instruction whose adder
        takes the nibble, MTP or MTN, or SBIT/RBIT; a write any store), ``k`` records K reads
        that return non-zero (an instruction whose micro-ops take K: TKA, KNEZ), ``r_mask`` /
        ``o_mask`` R and O pin changes: those after the instruction. Recording never stops
        the run; ``take_hits`` returns what matched.
        """
        if brk is None:
            self._core.set_watch(None)
        else:
            self._core.set_watch(bytes(brk), bytes(ram_read), bytes(ram_write), bool(k),
                                 r_mask & 0xFFFF, o_mask & 0xFF)

    def take_hits(self) -> tuple[list[dict], int]:
        """Return and clear the recorded hits and the stop cycle of the first one dropped
        (0: none; the buffer holds ``_fastcore.HIT_CAP``).

        Each hit is the ``state()`` dict at the point a debugger stops (before a PC hit's
        instruction, after the others'), plus ``kind`` (one of ``HIT_KINDS``) and ``where``
        (the ROM address, RAM address, K value, or the changed pin bits) and ``from`` (the ROM
        address of the instruction that made it).
        """
        records, dropped = self.take_hit_records()
        return [hit_dict(r) for r in records], dropped

    def take_hit_records(self) -> tuple[list[tuple], int]:
        """Return and clear the recorded hits as raw tuples (the fields of ``hit_t`` in
        order: cycle, r, where, from, kind index, a x y pc pa pb ca cb cl status sl o o_index
        op, sr[3], ps[3], cs[3], ram) and the first dropped stop cycle; ``hit_dict`` turns
        one into ``take_hits``' dict. Cheaper when most hits are tested and dropped."""
        blob, dropped = self._core.take_hits()
        return list(_HIT.iter_unpack(blob)), dropped

    def _get(self, name: str) -> int:
        return self._core.state()[name]

    a = property(lambda self: self._get("a"))
    x = property(lambda self: self._get("x"))
    y = property(lambda self: self._get("y"))
    pa = property(lambda self: self._get("pa"))
    pb = property(lambda self: self._get("pb"))
    ca = property(lambda self: self._get("ca"))
    cb = property(lambda self: self._get("cb"))
    cl = property(lambda self: self._get("cl"))
    status = property(lambda self: self._get("status"))
    sl = property(lambda self: self._get("sl"))
    r = property(lambda self: self._get("r"))
    o = property(lambda self: self._get("o"))
    o_index = property(lambda self: self._get("o_index"))

    @property
    def pc(self) -> int:
        """Return the PC of the next instruction to execute (as MAME's debugger shows it)."""
        return LFSR_NEXT.index(self._get("pc"))

    @property
    def ram(self) -> bytes:
        return self._core.state()["ram"][: self.chip.ram_size]


def hit_dict(f: tuple) -> dict:
    """Return the dict form (``FastCpu.take_hits``) of one raw hit record."""
    h = dict(zip(_HIT_REGS, f[4:19]))
    h["kind"] = HIT_KINDS[h["kind"]]
    h["cycle"], h["r"], h["where"], h["from"] = f[0], f[1], f[2], f[3]
    h["sr"], h["ps"], h["cs"] = f[19:22], f[22:25], f[25:28]
    h["ram"] = f[28]
    return h


def fast_trace_chunks(cpu: FastCpu, steps: int, binary: bool = False,
                      flt=None, chunk: int = 1 << 16) -> Iterator[bytes]:
    """Yield the trace of ``steps`` instructions as bytes, formatted in the kernel: canonical
    text lines (emulator.trace) or binary records (docs/trace-format.md, without the header),
    keeping what ``flt`` (an ``emulator.trace.TraceFilter``) keeps. Numbering starts at 0."""
    limits = flt.astuple() if flt is not None else (0, 0xFFF, 0, 0xFF, False)
    core = cpu._core
    done, prev = 0, None
    while done < steps:
        n = min(steps - done, chunk)
        data, prev = core.trace_out(n, done, binary, limits, prev)
        core.take_edges()  # trace mode delivers no pin callbacks
        done += n
        if data:
            yield data


def fast_trace_lines(cpu: FastCpu, steps: int) -> Iterator[str]:
    """Yield ``steps`` canonical trace lines (emulator.trace format), executed by the kernel."""
    from emulator.trace import format_line

    rec = _TRACE
    done = 0
    while done < steps:
        n = min(steps - done, 65536)
        blob = cpu._core.trace(n)
        cpu._core.take_edges()  # trace mode delivers no pin callbacks
        for i in range(n):
            cycle, r, ca, pa, pc, op, a, x, y, s, sl, pb, cb, o = rec.unpack_from(blob, i * rec.size)
            yield format_line(done + i, cycle, ca, pa, pc, op, a, x, y, s, sl, pb, cb, r, o)
        done += n


def make_cpu(chip: Chip, rom: bytes, mpla: Pla | None = None, opla: Pla | None = None,
             core: str = "fast", notice=sys.stderr) -> Cpu | FastCpu:
    """Return a chip on the requested core; "fast" falls back to "reference" with a notice."""
    global _notice_given
    if core not in CORES:
        raise ValueError(f"unknown core {core!r} (expected one of {', '.join(CORES)})")
    if core == "fast":
        if FAST_AVAILABLE:
            return FastCpu(chip, rom, mpla, opla)
        if not _notice_given and notice is not None:
            print("towerlab: accelerated core not built (no C compiler at install time); "
                  "using the reference core", file=notice)
            _notice_given = True
    return Cpu(chip, rom, mpla, opla)
