"""Run a TMS1000-family microcontroller (TMS1000, TMS1100, TMS1400) one instruction at a time.

The chip is seen only through its pins: R and O changes go to the ``on_r`` / ``on_o`` callbacks,
the K inputs come from ``read_k``; each is ``None`` (and costs nothing) when unused.

Behaviour and sources:
- Instruction cycle, STATUS, RAM, R/O/K timing: ``docs/tms1400.md`` §3 (MAME 0.251's 6 sub-cycle
  model, collapsed to instruction granularity): one instruction = 6 oscillator clocks,
  the fetch of instruction n is at clock ``6n + 5`` after reset; K is sampled at fetch + 1, R/O
  pins and RAM change at fetch + 3, A/Y/SL at fetch + 4.
- Program counter: 6-bit LFSR (docs/tms1400.md §2.1); ROM byte address ``CA<<10 | PA<<6 | PC``, no
  unscrambling (§2.2).
- Branch, call and return: docs/tms1400.md §7.1 (1-level call latch, TMS1100 and TMS1000 — TI
  TMS1000 Series Data Manual: one subroutine level, return page kept in the page buffer) and §7.2
  (TMS1400 3-level stack), with the MAME 0.251 edge cases listed there.
- Micro-ops and the CKI bus: docs/tms1400.md §4 and §5.2.1; fixed instructions: §5.2 (TMS1000:
  COMX complements X, CLO clears O to index 0, LDX loads 2 bits — TI data manual).
- Reset: docs/tms1400.md §11 (PA = PB = 15, PC = 0, chapters and call latch 0, R = 0, O =
  OPLA(0); A, X, Y, SL, RAM and the return registers keep their value, 0 at power-on).

Example::

    >>> from emulator.chips import TMS1400
    >>> cpu = Cpu(TMS1400, bytes(4096))
    >>> cpu.pa, cpu.pc, cpu.cycle
    (15, 0, 5)
    >>> cpu.step(); cpu.pc, cpu.cycle
    (1, 11)
"""
from __future__ import annotations

from typing import Callable

from emulator.chips import Chip
from emulator.decode import (FIXED_CODES, K_READ_CODE, MICRO_BIT, cki_constant, fixed_table,
                             micro_table, output_table)
from emulator.pla import Pla

__all__ = ["Cpu", "CpuError", "LFSR_NEXT", "lfsr_order", "call_depth", "return_addresses",
           "enters_subroutine", "state_image"]


class CpuError(ValueError):
    """A ROM or PLA the core cannot run (wrong size or shape)."""


def _lfsr_next(pc: int) -> int:
    """Return the program counter after ``pc`` (docs/tms1400.md §2: feedback = XNOR of bits 5
    and 4)."""
    if pc == 0x1F:
        feedback = 1
    elif pc == 0x3F:
        feedback = 0
    else:
        feedback = 1 if (pc >> 5 & 1) == (pc >> 4 & 1) else 0
    return ((pc << 1) | feedback) & 0x3F


# Successor of each 6-bit PC value.
LFSR_NEXT = tuple(_lfsr_next(pc) for pc in range(64))


def lfsr_order() -> list[int]:
    """Return the 64 PC values in execution order starting at 0 (docs/tms1400.md §2.1 table)."""
    order, pc = [], 0
    for _ in range(64):
        order.append(pc)
        pc = LFSR_NEXT[pc]
    return order


def call_depth(chip: Chip, cl: int) -> int:
    """Return the subroutine levels in use for call latch ``cl``: the count of valid levels
    of the TMS1400's 3-bit mask (docs/tms1400.md §7.2), else 0 or 1 (the call latch, §7.1)."""
    return cl.bit_length() if chip.stack_depth == 3 else int(bool(cl))


def return_addresses(chip: Chip, cl: int, pb: int,
                     stack: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """Return the return addresses ``(chapter, page, pc)`` in use, innermost first.

    ``stack`` holds the return registers ``(pc, page, chapter)`` top first, as ``Cpu.stack``
    (or ``zip(sr, ps, cs)`` of a state dict); a 1-level chip returns to the page in PB
    (docs/tms1400.md §7.1), the TMS1400 to each level's own page (§7.2).
    """
    if chip.stack_depth == 3:
        return [(c, p, pc) for pc, p, c in stack[:call_depth(chip, cl)]]
    return [(stack[0][2], pb, stack[0][0])] if cl else []


def enters_subroutine(chip: Chip, op: int, status: int, cl: int) -> bool:
    """Return True when instruction ``op`` run with ``status`` and call latch ``cl`` pushes a
    return address: a CALL (0xC0-0xFF) taken, on a 1-level chip only outside a subroutine
    (a CALL inside one is a branch, docs/tms1400.md §7.1)."""
    return 0xC0 <= op and status == 1 and (chip.stack_depth == 3 or not cl)


# The run loop spells the fixed-action codes (emulator.decode.FIXED_CODES) as literals, each
# commented with its name (a constant is cheaper than a global; tests/fastcore/
# test_action_numbering.py checks every literal against the table); BR, CALL and RETN are 1-3
# (the loop tests ``fx <= 3``); K_READ_CODE marks opcodes such as TKA and KNEZ that have no
# fixed action but read K.
_NONE = FIXED_CODES[None]


# The registers a state image (``Cpu.state``) copies as they are, besides pc, op and the stack.
_IMAGE_REGS = ("a", "x", "y", "pc", "pa", "pb", "ca", "cb", "cl", "status", "sl", "r", "o",
               "o_index", "cycle")


def state_image(regs: dict, stack, ram, rom: bytes) -> dict:
    """Return the state image both cores read and write (``Cpu.state``, the compiled kernel's
    ``emulator.fastcore.FastCpu.state``) from the reference core's registers ``regs`` (``pc``
    the next instruction's, before its fetch), ``stack`` of (pc, page, chapter) top first and
    ``ram``: there ``pc`` is the PC register after the fetch of the next instruction (its
    successor in the LFSR order) and ``op`` that instruction; ``sr``/``ps``/``cs`` are the
    return PCs, pages and chapters, top first, 3 each; ``ram`` is 128 nibbles."""
    stack = (list(stack) + [(0, 0, 0)] * 3)[:3]
    image = {k: regs[k] for k in _IMAGE_REGS}
    image.update(pc=LFSR_NEXT[regs["pc"]], op=rom[regs["ca"] << 10 | regs["pa"] << 6 | regs["pc"]],
                 sr=tuple(e[0] for e in stack), ps=tuple(e[1] for e in stack),
                 cs=tuple(e[2] for e in stack), ram=bytes(ram).ljust(128, b"\0"))
    return image


class Cpu:
    """A TMS1000-family chip: registers as attributes, pins through callbacks.

    Attributes (4-bit unless noted): ``a``, ``x`` (2/3 bits), ``y``, ``pc`` (6-bit LFSR value of
    the next instruction to execute, as MAME's debugger shows it), ``pa``/``pb`` (page address and
    buffer), ``ca``/``cb`` (chapter address and buffer), ``status`` (1 bit, the branch condition
    left by the last instruction), ``sl`` (status latch), ``r`` (the whole R latch, 16 bits,
    bits 11-15 have no pin), ``o`` (the 8 O pins), ``o_index`` (5-bit SL<<4|A last sent to the
    output PLA), ``ram`` (bytearray of nibbles at ``X<<4 | Y``), ``stack`` (list of
    ``(pc, page, chapter)`` return entries, top first; the page is unused on 1-level chips whose
    return page lives in PB), ``cl`` (call latch: 0/1, or the TMS1400's 3-bit valid-level mask),
    ``cycle`` (oscillator clocks since reset at which the next instruction is fetched).

    Callbacks (None = unused): ``on_r(cycle, r)`` gets the 11 visible R bits after every SETR/RSTR
    and at reset; ``on_o(cycle, o)`` gets the 8 O pins after every TDO (and CLO) and at reset;
    ``read_k(cycle) -> int`` gives the 4 K bits (K1 = bit 0) for opcodes 0x08-0x0F, K = 0 when
    None. ``cycle`` is the clock at which MAME's pins change (fetch + 3) or K is sampled
    (fetch + 1).
    """

    core = "reference"

    def __init__(self, chip: Chip, rom: bytes, mpla: Pla | None = None,
                 opla: Pla | None = None) -> None:
        if len(rom) != chip.rom_size:
            raise CpuError(f"ROM is {len(rom)} bytes (expected {chip.rom_size} for a "
                           f"{chip.name.upper()})")
        self.chip = chip
        self.rom = bytes(rom)
        self.mpla = mpla
        self.opla = opla
        try:
            micro = micro_table(chip, mpla)
            self.output_table = output_table(opla)
        except ValueError as exc:
            raise CpuError(str(exc)) from None
        self.micro = micro
        fixed = fixed_table(chip)
        self._ops = tuple(self._decode(op, micro[op], *fixed[op]) for op in range(256))
        self.on_r: Callable[[int, int], object] | None = None
        self.on_o: Callable[[int, int], object] | None = None
        self.read_k: Callable[[int], int] | None = None
        # Power-on: MAME zero-fills the whole state (docs/tms1400.md §11).
        self.a = self.x = self.y = 0
        self.sl = 0
        self.ram = bytearray(chip.ram_size)
        self.stack: list[tuple[int, int, int]] = [(0, 0, 0)] * chip.stack_depth
        self.reset()

    # -- decode ----------------------------------------------------------------------------

    @staticmethod
    def _decode(op: int, micro: int, fixed: str | None, operand: int | None) -> tuple:
        """Return the run loop's entry for ``op``: ``(fixed code, operand, cki, alu)``.

        ``cki`` is the CKI bus constant, or -1 when the opcode reads K (0x08-0x0F); ``alu`` is
        None when the opcode has no micro-op (STATUS becomes 1), else ``(15TN, ATN, NATN, CKN,
        MTN, CKP, MTP, YTP)`` as 0/15 masks so the adder inputs need no branching, then carry-in
        (0/1), the status test (bit 0 C8, bit 1 NE), the RAM write source (0 none, 1 STO = A,
        2 CKM = CKI; STO wins) and the register stores (bit 0 AUTA, bit 1 AUTY, bit 2 STSL).
        """
        code = FIXED_CODES[fixed]
        cki = -1 if 0x08 <= op <= 0x0F else cki_constant(op)
        if cki < 0 and code == _NONE:
            code = K_READ_CODE  # no fixed action, but the K read must run (docs/tms1400.md §9.2)
        alu = None
        if micro:
            def on(name: str) -> int:
                return 15 if micro & MICRO_BIT[name] else 0

            def flag(name: str, value: int) -> int:
                return value if micro & MICRO_BIT[name] else 0
            alu = (on("15TN"), on("ATN"), on("NATN"), on("CKN"), on("MTN"),
                   on("CKP"), on("MTP"), on("YTP"), flag("CIN", 1),
                   flag("C8", 1) | flag("NE", 2),
                   1 if micro & MICRO_BIT["STO"] else flag("CKM", 2),
                   flag("AUTA", 1) | flag("AUTY", 2) | flag("STSL", 4))
        return code, operand, cki, alu

    # -- control ---------------------------------------------------------------------------

    def reset(self, cycle: int = 0) -> None:
        """Apply INIT at oscillator clock ``cycle``: the first fetch follows at ``cycle + 5``.

        Sets PA = PB = 15, PC = 0, CA = CB = 0, call latch 0, R = 0 and O = OPLA(0), and tells
        ``on_r`` / ``on_o`` at ``cycle`` (docs/tms1400.md §11). A, X, Y, SL, RAM and SR are kept.
        """
        self.pa = self.pb = 15
        self.pc = 0
        self.ca = self.cb = 0
        self.cl = 0
        self.stack = [(pc, page, 0) for pc, page, _ in self.stack]
        self.status = 1  # the first instruction sees STATUS 1 (docs/tms1400.md §3)
        self.r = 0
        self.o_index = 0
        self.o = self.output_table[0]
        self.cycle = cycle + 5
        if self.on_r is not None:
            self.on_r(cycle, 0)
        if self.on_o is not None:
            self.on_o(cycle, self.o)

    def power_on(self, cycle: int = 0) -> None:
        """Apply a power-on reset at clock ``cycle``: RAM, A, X, Y, SL and the return
        registers zeroed (MAME zero-fills the whole state, docs/tms1400.md §11), then INIT."""
        self.a = self.x = self.y = self.sl = 0
        self.ram[:] = bytes(len(self.ram))
        self.stack = [(0, 0, 0)] * self.chip.stack_depth
        self.reset(cycle)

    @property
    def pins(self) -> tuple[int, int]:
        """Return the pins the chip drives now: (the visible R bits, the 8 O pins)."""
        return self.r & ((1 << self.chip.r_count) - 1), self.o

    def take_edges(self) -> list[tuple[int, int, int]]:
        """Return the buffered pin changes: none, this core calls ``on_r``/``on_o`` at once."""
        return []

    def state(self) -> dict:
        """Return a snapshot of every register, the RAM and the clock, for ``set_state``
        (the image :func:`state_image` describes)."""
        return state_image({k: getattr(self, k) for k in _IMAGE_REGS}, self.stack, self.ram,
                           self.rom)

    def set_state(self, state: dict) -> None:
        """Restore every register, the RAM and the clock from a dict made by ``state()``."""
        for name in ("a", "x", "y", "pa", "pb", "ca", "cb", "cl", "status", "sl", "r", "o",
                     "o_index", "cycle"):
            setattr(self, name, state[name])
        self.pc = LFSR_NEXT.index(state["pc"])
        depth = self.chip.stack_depth
        self.stack = list(zip(state["sr"], state["ps"], state["cs"]))[:depth]
        self.ram[:] = bytes(state["ram"])[: len(self.ram)]

    def step(self) -> None:
        """Execute one instruction (6 oscillator clocks)."""
        self.run_until(self.cycle + 1)

    def run(self, instructions: int) -> None:
        """Execute ``instructions`` instructions."""
        self.run_until(self.cycle + 6 * instructions - 5)

    def run_until(self, cycle: int) -> int:
        """Execute every instruction fetched before oscillator clock ``cycle``; return how many.

        Afterwards ``self.cycle >= cycle`` (it is the fetch clock of the next instruction).
        During a callback only ``cycle`` is current; the other registers are stored on return.
        """
        chip = self.chip
        rom = self.rom
        ram = self.ram
        ops = self._ops
        nxt = LFSR_NEXT
        otable = self.output_table
        on_r, on_o, read_k = self.on_r, self.on_o, self.read_k
        three_level = chip.stack_depth == 3
        x_msb_rule = chip.setr_rule == "y_x_msb_clear"
        x_mask = (1 << chip.x_bits) - 1
        r_pins = (1 << chip.r_count) - 1
        chapter_mask = chip.chapter_mask
        a, x, y, pc, pa, pb = self.a, self.x, self.y, self.pc, self.pa, self.pb
        ca, cb, cl, status, sl = self.ca, self.cb, self.cl, self.status, self.sl
        stack = self.stack
        base = ca << 10 | pa << 6          # ROM address of the current page
        cyc = self.cycle
        start = cyc
        while cyc < cycle:
            op = rom[base | pc]
            pc = nxt[pc]
            fx, arg, cki, alu = ops[op]
            if fx:
                # sub-cycle 0: branch, call, return with the previous STATUS (docs/tms1400.md §7)
                if fx <= 3:
                    if fx == 1:                                     # BR
                        if status:
                            if three_level or not cl:
                                pa = pb
                            ca = cb
                            pc = arg
                    elif fx == 2:                                   # CALL
                        if status:
                            if three_level:
                                cl = (cl << 1 | 1) & 7
                                stack = [(pc, pa, ca)] + stack[:2]
                                pa = pb
                            else:
                                old = pa
                                if not cl:
                                    cl = 1
                                    stack = [(pc, 0, ca)]
                                    pa = pb
                                pb = old
                            ca = cb
                            pc = arg
                        elif three_level:
                            pb = pa     # a call not taken re-synchronises the buffers (§7.2)
                            cb = ca
                    elif three_level:                               # RETN, 3-level stack
                        if cl & 1:
                            cl >>= 1
                            pc, pa, ca = stack[0]
                            stack = stack[1:] + stack[-1:]
                            pb = pa
                            cb = ca
                    else:                                           # RETN, call latch
                        if cl:
                            cl = 0
                            pc, _, ca = stack[0]
                        pa = pb
                    base = ca << 10 | pa << 6
                # K is sampled for every opcode 0x08-0x0F (docs/tms1400.md §9.2)
                if cki < 0:
                    if read_k is not None:
                        self.cycle = cyc
                        cki = read_k(cyc + 1) & 15
                    else:
                        cki = 0
            addr = x << 4 | y
            if alu is None:
                status = 1
                store = 0
            else:
                n15, atn, natn, ckn, mtn, ckp, mtp, ytp, cin, test, source, store = alu
                m = ram[addr]
                n = n15 | (a & atn) | (~a & natn) | (cki & ckn) | (m & mtn)
                p = (cki & ckp) | (m & mtp) | (y & ytp)
                total = p + n + cin
                status = 1
                if test:
                    if test & 1:
                        status = total >> 4
                    if test & 2 and n == p:
                        status = 0
                if source:
                    ram[addr] = a if source == 1 else cki
            # sub-cycle 2: fixed actions; R and O pins change at fetch + 3
            if fx > 3:
                if fx == 4:                                         # LDP
                    pb = arg
                elif fx == 5:                                       # LDX
                    x = arg
                elif fx == 8:                                       # SBIT: CKI = ~bit
                    ram[addr] |= cki ^ 15
                elif fx == 9:                                       # RBIT
                    ram[addr] &= cki
                elif fx == 12 or fx == 13:                          # TDO, CLO
                    index = (sl << 4 | a) if fx == 12 else 0
                    self.o_index = index
                    self.o = otable[index]
                    if on_o is not None:
                        self.cycle = cyc
                        on_o(cyc + 3, self.o)
                elif fx == 10 or fx == 11:                          # SETR, RSTR
                    if not (x_msb_rule and x & 4):
                        if fx == 10:
                            self.r |= 1 << y
                        else:
                            self.r &= ~(1 << y)
                    if on_r is not None:
                        self.cycle = cyc
                        on_r(cyc + 3, self.r & r_pins)
                elif fx == 6:                                       # COMX (TMS1000)
                    x ^= x_mask
                elif fx == 7:                                       # COMX8
                    x ^= 4
                elif fx == 14:                                      # COMC
                    cb ^= chapter_mask
                elif fx == 15:                                      # TPC
                    cb = pb & 3
            # sub-cycle 4: register stores
            if store:
                if store & 1:
                    a = total & 15
                if store & 2:
                    y = total & 15
                if store & 4:
                    sl = status
            cyc += 6
        self.a, self.x, self.y, self.pc, self.pa, self.pb = a, x, y, pc, pa, pb
        self.ca, self.cb, self.cl, self.status, self.sl = ca, cb, cl, status, sl
        self.stack = stack
        self.cycle = cyc
        return (cyc - start) // 6
