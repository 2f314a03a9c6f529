"""Debug a ROM on a board: breakpoints, watchpoints, stepping, and stepping backwards in time.

A :class:`Debugger` holds one chip (either core) on one board (Dark Tower, Labyrinth, or none
for a chip alone), built by ``emulator.machine``, and moves it forwards and backwards. Every
command of ``towerlab debug`` is a method of it or a view, so a study can be a script or a
test::

    dbg = Debugger(firmware="demo")                     # labels come with the demo firmware
    stop = dbg.break_at("shnew").press_at(3.0, "YES/BUY", 0.2).run(seconds=30)
    stop.reason, dbg.describe(dbg.address)              # ('breakpoint 1', '0:0:22 shnew')
    dbg.reverse_step()                                  # the instruction before, exactly
    dbg.describe(dbg.address)                           # '0:0:08 sd2+24'
    print(views.format_registers(dbg))                  # A=.. X=.. / cycle .. / call stack

The rooms, one module each:

- ``points``: breakpoints and watchpoints (``Point``, ``PointTable``, conditions), why a run
  stopped (``Stop``), and the key journal (keys given at the prompt, with their clock).
- ``history``: snapshots every ``snapshot_every`` instructions and at every key given here;
  going to an earlier clock restores the one before it and runs forward (``reverse-step``
  and ``reverse-continue`` are a re-run); the state file.
- ``engines``: the runs that stop at points: the compiled kernel watching at full speed
  (``FastCpu.set_watch``), or one instruction at a time on the reference core and while
  tracing; both find the same stops (``benchmarks/debug_speed.py`` measures the cost).
- ``chipstate``: the chip state in one form on both cores; ``views``: the text it shows.

Stops: a breakpoint stops *before* the instruction at its address runs; a watchpoint stops
*after* the instruction that read or wrote the RAM nibble, read a non-zero K or changed the
pin (``engines`` says what counts as a read).
"""
from __future__ import annotations

import warnings

from emulator.boards import DEMO_SOURCE
import emulator.debug.views as views
from emulator.debug.debugger import Debugger
from emulator.debug.points import (RAM_KINDS, DebugError, Point, Stop, compile_condition,
                                   parse_ram_address)
from emulator.machine import NO_BOARD

__all__ = ["Debugger", "DebugError", "Stop", "Point", "DEMO_SOURCE", "demo_program",
           "parse_ram_address", "compile_condition", "RAM_KINDS", "NO_BOARD", "views"]

# Names that moved, kept importable from here for one release with a DeprecationWarning.
_MOVED = {"BareChip": "emulator.machine"}


def __getattr__(name: str):
    if name in _MOVED:
        import importlib

        warnings.warn(f"emulator.debug.{name} moved to {_MOVED[name]}.{name}",
                      DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(_MOVED[name]), name)
    raise AttributeError(f"module 'emulator.debug' has no attribute {name!r}")


def demo_program():
    """Return the open demo firmware (``emulator/firmware/demo.asm``) assembled, labels
    included (``emulator.boards.demo_program``)."""
    from emulator.boards import demo_program as board_demo

    return board_demo("darktower")
