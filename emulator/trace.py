"""Format the canonical instruction trace: one line per instruction, the state *before* it.

Line format (every number hexadecimal, upper case)::

    n cycle c:p:pc op A=a X=x Y=y S=s SL=l PB=pb CB=cb R=rrrr O=oo
    0 5 0:F:00 0C A=0 X=0 Y=0 S=1 SL=0 PB=F CB=0 R=0000 O=00

``n`` is the instruction number since reset, ``cycle`` the oscillator clock of its fetch
(``6n + 5`` as in MAME, ``docs/mame-oracle.md`` §6), ``c:p:pc`` chapter, page and PC as MAME's
debugger prints them, ``op`` the opcode, ``S`` STATUS, ``SL`` the status latch, ``R`` the R0-R10
pins (without the latch's hidden bits 11-15), ``O`` the O pins the output PLA gives.
"""
from __future__ import annotations

from typing import Iterator

from emulator.core import Cpu

__all__ = ["format_line", "format_state", "trace_lines"]


def format_line(n: int, cycle: int, chapter: int, page: int, pc: int, op: int, a: int, x: int,
                y: int, status: int, sl: int, pb: int, cb: int, r: int, o: int) -> str:
    """Return the canonical line from raw values (``r`` = the R pins, ``o`` = the O pins).

    The one place the layout is written: the reference core, the compiled kernel and the MAME
    oracle all format through it.
    """
    return (f"{n:X} {cycle:X} {chapter:X}:{page:X}:{pc:02X} {op:02X} A={a:X} X={x:X} Y={y:X} "
            f"S={status:X} SL={sl:X} PB={pb:X} CB={cb:X} R={r:04X} O={o:02X}")


def format_state(cpu: Cpu, n: int) -> str:
    """Return the trace line of ``cpu``'s state before its next instruction, numbered ``n``."""
    op = cpu.rom[cpu.ca << 10 | cpu.pa << 6 | cpu.pc]
    r_pins = cpu.r & ((1 << cpu.chip.r_count) - 1)
    return format_line(n, cpu.cycle, cpu.ca, cpu.pa, cpu.pc, op, cpu.a, cpu.x, cpu.y,
                       cpu.status, cpu.sl, cpu.pb, cpu.cb, r_pins, cpu.o)


def trace_lines(cpu: Cpu, steps: int) -> Iterator[str]:
    """Yield ``steps`` trace lines, executing one instruction after each (numbering from 0)."""
    for n in range(steps):
        yield format_state(cpu, n)
        cpu.step()
