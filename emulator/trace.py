"""Format the canonical instruction trace: one line per instruction, the state *before* it.

Line format (issue 2, item 7; every number hexadecimal, upper case)::

    n cycle c:p:pc op A=a X=x Y=y S=s SL=l PB=pb CB=cb R=rrrr O=oo
    0 5 0:F:00 0C A=0 X=0 Y=0 S=1 SL=0 PB=F CB=0 R=0000 O=00

``n`` is the instruction number since reset, ``cycle`` the oscillator clock of its fetch
(``6n + 5`` as in MAME, ``mame-oracle.md`` §6), ``c:p:pc`` chapter, page and PC as MAME's
debugger prints them, ``op`` the opcode, ``S`` STATUS, ``SL`` the status latch, ``R`` the R0-R10
pins (without the latch's hidden bits 11-15), ``O`` the O pins the output PLA gives.
"""
from __future__ import annotations

from typing import Iterator

from emulator.core import Cpu

__all__ = ["format_state", "trace_lines"]


def format_state(cpu: Cpu, n: int) -> str:
    """Return the trace line of ``cpu``'s state before its next instruction, numbered ``n``."""
    op = cpu.rom[cpu.ca << 10 | cpu.pa << 6 | cpu.pc]
    r_pins = cpu.r & ((1 << cpu.chip.r_count) - 1)
    return (f"{n:X} {cpu.cycle:X} {cpu.ca:X}:{cpu.pa:X}:{cpu.pc:02X} {op:02X} "
            f"A={cpu.a:X} X={cpu.x:X} Y={cpu.y:X} S={cpu.status:X} SL={cpu.sl:X} "
            f"PB={cpu.pb:X} CB={cpu.cb:X} R={r_pins:04X} O={cpu.o:02X}")


def trace_lines(cpu: Cpu, steps: int) -> Iterator[str]:
    """Yield ``steps`` trace lines, executing one instruction after each (numbering from 0)."""
    for n in range(steps):
        yield format_state(cpu, n)
        cpu.step()
