"""What the debugger shows: registers, RAM, pins, the board, disassembly and the points, each
as text from a :class:`emulator.debug.Debugger` (``towerlab debug`` prints them)::

    print(format_registers(dbg))      # A=0 X=0 Y=0 S=1 ... / cycle 5 ... / call stack (0): ...
    print(format_view(dbg))           # everything; marks the RAM shown
"""
from __future__ import annotations

from emulator.asm import PC_ORDER, format_address, rom_offset
from emulator.disasm import instruction_text
from emulator.machine import NO_BOARD
from emulator.opcodes import decode as decode_op

__all__ = ["format_registers", "format_ram", "format_pins", "format_board", "format_disasm",
           "format_view", "format_points", "point_text", "VIEWS"]

_PC_INDEX = {pc: i for i, pc in enumerate(PC_ORDER)}


def format_registers(dbg) -> str:
    """Return the registers, the call stack and the clock as three lines."""
    s = dbg.state()
    addr = (s["ca"], s["pa"], s["pc"])
    lines = [f"A={s['a']:X} X={s['x']:X} Y={s['y']:X} S={s['s']:X} SL={s['sl']:X} "
             f"PB={s['pb']:X} CB={s['cb']:X}  PC={dbg.describe(addr)}  chapter {s['ca']} "
             f"page {s['pa']:X}",
             f"cycle {s['cycle']} ({s['cycle'] / dbg.clock_hz:.6f} s), instruction "
             f"{s['n']}"]
    stack = " <- ".join(dbg.describe(a) for a in s["stack"]) or "(empty)"
    lines.append(f"call stack ({s['depth']}): {stack}")
    return "\n".join(lines)


def format_ram(dbg, color: bool = False) -> str:
    """Return the RAM as one row per file X (16 nibbles); nibbles changed since the RAM
    last shown (``dbg.shown_ram``) are marked ``*`` (or in bold colour)."""
    ram, old = dbg.ram(), dbg.shown_ram
    rows = ["RAM  " + " ".join(f" {y:X}" for y in range(16))]
    for x in range(len(ram) // 16):
        cells = []
        for y in range(16):
            i = x << 4 | y
            if ram[i] != old[i]:
                cells.append(f"\x1b[1;31m*{ram[i]:X}\x1b[0m" if color else f"*{ram[i]:X}")
            else:
                cells.append(f" {ram[i]:X}")
        rows.append(f"X={x:X} " + " ".join(cells))
    return "\n".join(rows)


def format_pins(dbg) -> str:
    """Return the R pins, O pins and K as the chip sees them now."""
    s = dbg.state()
    chip = dbg.chip
    r = s["r"] & ((1 << chip.r_count) - 1)
    rbits = "".join("1" if r >> i & 1 else "." for i in range(chip.r_count))
    obits = "".join("1" if s["o"] >> i & 1 else "." for i in range(chip.o_count))
    k = getattr(dbg.board, "_k", None)
    k = k() if k is not None else 0
    return (f"R={r:04X} R0..R{chip.r_count - 1} {rbits}   O={s['o']:02X} O0..O7 "
            f"{obits}   K={k:X}")


def format_board(dbg) -> str:
    """Return what the board shows: Dark Tower digits, lamps and reel; else its keys."""
    board = dbg.board
    if dbg.board_name == NO_BOARD:
        return "no board: K reads 0"
    if dbg.board_name != "darktower":
        pressed = " ".join(sorted(board.pressed)) or "none"
        return f"{dbg.board_name}: keys down: {pressed}"
    from captures.darktower_facts import GLYPHS, LAMP_PINS, card_image
    from captures.model import DARKTOWER_CHANNELS
    from emulator.darktower import segments_from_o

    o0 = DARKTOWER_CHANNELS.index("O0")
    r4 = 1 << DARKTOWER_CHANNELS.index("R4")
    shapes = {segs: ch for ch, segs in GLYPHS if segs}
    digits: dict[int, str] = {}
    for _, word in reversed(board.pins):
        o = word >> o0 & 0xFF
        side = o >> 7
        if side in digits:
            continue
        digits[side] = " " if word & r4 else shapes.get(segments_from_o(o), "?" if o & 0x7F
                                                          else " ")
        if len(digits) == 2:
            break
    text = digits.get(0, " ") + digits.get(1, " ")
    lamps = board.lamps()
    card = board.card_pos
    lit = [name for name in LAMP_PINS if lamps[name]]
    pictures = "/".join(card_image(card, name) or "-" for name in LAMP_PINS)
    pressed = " ".join(sorted(board.pressed)) or "none"
    reel = "turning" if board.running else "still"
    return (f"display [{text}]  lamps: {' '.join(lit) or 'off'}  reel: card {card} "
            f"({pictures}) pos {board.pos} {reel}  keys down: {pressed}")


def format_disasm(dbg, where: str | tuple | None = None, count: int = 7,
                  before: int | None = None) -> str:
    """Return ``count`` instructions in execution order around ``where`` (default: the
    next instruction, with a few before it); ``=>`` marks the next, ``B`` breakpoints."""
    here = dbg.address
    addr = here if where is None else (dbg.resolve(where) if isinstance(where, str)
                                       else tuple(where))
    if before is None:
        before = min(3, count // 2) if where is None else 0
    c, p, pc = addr
    start = max(0, _PC_INDEX[pc] - before)
    breaks = {pt.addr for pt in dbg.points.values() if pt.kind == "break"}
    s = dbg.state()
    lines = []
    for i in range(start, min(64, start + count)):
        a = (c, p, PC_ORDER[i])
        byte = dbg.rom[rom_offset(*a)]
        name = dbg.symbols.labels.get(a)
        if name:
            lines.append(f"{name}:")
        mark = "=>" if a == here else "  "
        brk = "B" if a in breaks else " "
        text = instruction_text(dbg.chip, byte)
        op, value = decode_op(dbg.chip, byte)
        # where a BRANCH/CALL goes is known for the next instruction (PB/CB as now; inside
        # a 1-level chip's subroutine the page stays, docs/tms1400.md section 7.1)
        if op.operand == "a6" and a == (s["ca"], s["pa"], s["pc"]):
            page = s["pa"] if dbg.chip.stack_depth == 1 and s["cl"] else s["pb"]
            label = dbg.symbols.describe((s["cb"], page, value))
            if label:
                text = f"{text:<12} ; {label}"
        lines.append(f"{brk}{mark} {format_address(*a)}  {byte:02X}  {text}")
    return "\n".join(lines)


def format_view(dbg, color: bool = False) -> str:
    """Return everything: registers, RAM, pins, board and disassembly; marks the RAM
    shown so the next view highlights what changed since."""
    text = "\n".join([format_registers(dbg), format_ram(dbg, color), format_pins(dbg),
                      format_board(dbg), format_disasm(dbg)])
    dbg.shown_ram = dbg.ram()
    return text


def format_points(dbg) -> str:
    """Return one line per breakpoint/watchpoint."""
    if not dbg.points:
        return "no breakpoints or watchpoints"
    lines = []
    for p in dbg.points.values():
        off = "" if p.enabled else " (disabled)"
        lines.append(f"{p.number}: {point_text(dbg, p)}{off}  hits {p.hits}")
    return "\n".join(lines)


def point_text(dbg, p) -> str:
    """Return what point ``p`` watches, as the command that set it would say it."""
    if p.kind == "break":
        what = f"break {dbg.describe(p.addr)}"
    elif p.kind == "ram":
        addrs = sorted(p.ram)
        span = f"{addrs[0] >> 4:X}:{addrs[0] & 15:X}" + (
            f"-{addrs[-1] >> 4:X}:{addrs[-1] & 15:X}" if len(addrs) > 1 else "")
        what = f"watch ram {span} {p.mode}"
    elif p.kind == "k":
        what = "watch k (a non-zero K read)"
    else:
        bank = p.kind.upper()
        what = f"watch {p.kind} " + " ".join(f"{bank}{i}" for i in range(16)
                                             if p.pins >> i & 1)
    return what + (f" if {p.cond}" if p.cond else "")


# the views by their old method names (Debugger.format_ram() -> format_ram(debugger))
VIEWS = {fn.__name__: fn for fn in (format_registers, format_ram, format_pins, format_board,
                                    format_disasm, format_view, format_points, point_text)}
