"""Build a machine: a program, its PLAs, a chip on a core, and the board that carries it.

One builder for everything that runs a ROM: the debugger (``emulator.debug``), the emulated
tower (``rig.towers.emulated.EmulatorTower``) and ``towerlab trace``. It takes the program from
exactly one source (the open demo firmware, a raw ROM file, a MAME romset zip or folder, or an
image in memory), the PLAs from the caller, else the set, else the defaults (the TI standard
micro decode; the board row's output PLA, or O = SL<<4 | A), and puts the chip on a board
row of ``emulator.boards`` or on none (``BareChip``: K reads 0)::

    m = build_machine(firmware="demo")           # the demo firmware on the Dark Tower board
    m.board.run_until(m.clock_hz)                # one second of tower time
    m.summary              # 'demo firmware (emulator/firmware/demo.asm), TMS1400'
    bare = build_machine(image=bytes(1024), chip=TMS1000, board=NO_BOARD)

Errors are ``MachineError`` (a ValueError) naming the value and what was expected, or the
``emulator.romset.RomError`` of a file that cannot be read.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from emulator.chips import Chip
from emulator.pla import Pla

__all__ = ["Machine", "MachineError", "BareChip", "NO_BOARD", "build_machine", "load_pla"]

NO_BOARD = "none"          # the chip alone: K = 0 (BareChip)


class MachineError(ValueError):
    """A machine that cannot be built from what was given; one line saying what and what was
    expected."""


class BareChip:
    """The chip alone (``board="none"``), for chips no board carries (the TMS1000): K reads 0,
    pins go nowhere, and there are no keys. Offers what the debugger uses of a board."""

    name = NO_BOARD

    def __init__(self, cpu, clock_hz: int) -> None:
        self.cpu = cpu
        self.clock_hz = int(clock_hz)
        self.pressed: set[str] = set()
        self.pins: list = []
        self.speaker: list = []
        self.events: list = []
        if cpu is not None:
            cpu.on_r = cpu.on_o = cpu.read_k = None

    def run_until(self, cycle: int) -> None:
        """Run the chip to clock ``cycle``, dropping its pin changes."""
        cpu = self.cpu
        while cpu.cycle < cycle:
            cpu.run_until(cycle)
            cpu.take_edges()

    def schedule(self, script) -> None:
        """Refuse a script: there are no keys."""
        if script.actions:
            raise MachineError(f"{script.name}: no board, so no keys to press (give --board)")

    def _k(self) -> int:
        return 0


@dataclass
class Machine:
    """A built machine: the chip on its core (``cpu``, ``core`` says which), the program
    (``rom``; ``program`` is the assembled demo firmware with its labels, else None), the PLAs
    the core decodes (None: the standard decode / O = SL<<4 | A), the board (``board_name``,
    its row ``spec``; ``BareChip`` and None for ``NO_BOARD``) and its clock (Hz). ``source``
    says where the program came from, ``summary`` that in one line with the chip, ``notes``
    what was recognised or warned about, for the command line to print."""
    chip: Chip
    rom: bytes
    mpla: Pla | None
    opla: Pla | None
    cpu: object
    board: object
    board_name: str
    spec: object
    clock_hz: int
    source: str
    summary: str
    notes: list[str] = field(default_factory=list)
    program: object = None

    @property
    def core(self) -> str:
        """Return the core the chip runs on: "fast" or "reference"."""
        return self.cpu.core


def load_pla(value, kind: str) -> Pla | None:
    """Return a Pla from a Pla, a PLA file path, or None; a file of the wrong shape for
    ``kind`` ("micro" or "output") is refused naming the file."""
    if value is None or isinstance(value, Pla):
        return value
    from emulator.decode import check_micro_pla, check_output_pla
    from emulator.romset import load_pla_file

    pla = load_pla_file(value)
    (check_micro_pla if kind == "micro" else check_output_pla)(pla, str(value))
    return pla


def build_machine(firmware: str | None = None, rom: str | os.PathLike | None = None,
                  romset: str | os.PathLike | None = None, image: bytes | None = None,
                  chip: Chip | None = None, mpla=None, opla=None, board: str | None = None,
                  clock_hz: int | None = None, core: str = "fast", script=None,
                  board_opla: bool = True) -> Machine:
    """Build a chip running a program on a board (see the module docstring).

    Exactly one of ``firmware`` ("demo", with its board's output PLA), ``rom`` (raw image
    path), ``romset`` (MAME set zip or folder) or ``image`` (bytes, with ``chip``) gives the
    program; ``chip`` is also the chip a raw file is read as. ``mpla``/``opla`` are ``Pla`` objects or PLA file paths. ``board``
    is a row of ``emulator.boards`` or ``NO_BOARD``; None picks the board that carries the
    chip (the first board with a demo firmware for ``firmware``), else none. With no output
    PLA from the caller or the set, ``board_opla`` takes the board row's default (an error
    where the row has none); False leaves O = SL<<4 | A. ``clock_hz`` defaults to the board's
    (MAME's) clock, or that of the MAME machine with the chip. ``script`` (a
    ``captures.script.Script`` or a path) is scheduled on the board. ``core`` is "fast"
    (falling back to the reference core where the kernel is not built) or "reference".
    """
    from emulator.boards import BOARDS

    given = [n for n, v in (("firmware", firmware), ("rom", rom), ("romset", romset),
                            ("image", image)) if v is not None]
    if len(given) != 1:
        raise MachineError("give one program: --firmware demo, --rom FILE or --romset SET"
                           + (f" (not {' and '.join(given)})" if given else ""))
    if board is not None and board not in BOARDS and board != NO_BOARD:
        raise MachineError(f"unknown board {board!r} (expected one of {', '.join(BOARDS)} or "
                           f"{NO_BOARD})")
    mpla, opla = load_pla(mpla, "micro"), load_pla(opla, "output")
    loaded = program = None
    if firmware is not None:
        home, program = _demo(firmware, board)
        if chip is not None and chip is not program.chip:
            raise MachineError(f"the demo firmware is a {program.chip.name.upper()} program, "
                               f"not {chip.name.upper()}")
        chip, image = program.chip, bytes(program.rom)
        source = f"demo firmware (emulator/firmware/{BOARDS[home].demo.name})"
        board = board or home
        # the firmware comes with its board's output PLA, as a romset with its own
        opla = opla if opla is not None else BOARDS[home].default_opla()
    elif image is not None:
        if chip is None:
            raise MachineError("an image needs its chip (tms1000, tms1100 or tms1400)")
        image, source = bytes(image), "ROM image"
    else:
        from emulator.romset import load_romset

        path = rom if rom is not None else romset
        loaded = load_romset(path, chip or (BOARDS[board].chip if board in BOARDS else None))
        chip, image, source = loaded.chip, loaded.rom, str(path)
    if board is None:
        from emulator.boards import board_for_chip
        board = board_for_chip(chip) or NO_BOARD
    if board != NO_BOARD and BOARDS[board].chip != chip:
        raise MachineError(f"{source}: board {board} carries a "
                           f"{BOARDS[board].chip.name.upper()}, not a {chip.name.upper()}")
    summary, notes = f"{source}, {chip.name.upper()}", []
    if loaded is not None:
        loaded = loaded.with_plas(mpla, opla, opla_note=_opla_note(board, board_opla))
        mpla, opla = loaded.mpla, loaded.opla
        summary, notes = loaded.summary(), list(loaded.recognised)
    if opla is None and board != NO_BOARD and board_opla:
        if BOARDS[board].default_opla is None:
            raise MachineError(f"the {board} board needs its output PLA (a romset with one, "
                               f"or --opla FILE)")
        opla = BOARDS[board].default_opla()
    # No micro PLA: the cores decode by the TI standard table itself
    # (emulator.decode.standard_micro_table, what standard_micro_pla covers exactly,
    # tests/emulator/test_pla.py), without building the PLA's terms at every start-up.
    from emulator.fastcore import make_cpu
    try:
        cpu = make_cpu(chip, image, mpla, opla, core=core)
    except ValueError as exc:
        raise MachineError(str(exc)) from None
    spec, the_board = _board(board, cpu, chip, clock_hz)
    if script is not None:
        _schedule(the_board, board, script)
    return Machine(chip, image, mpla, opla, cpu, the_board, board, spec, the_board.clock_hz,
                   source, summary, notes, program)


def _demo(firmware: str, board: str | None):
    """Return (the board it is for, assembled demo firmware) for ``--firmware``; on no board
    (NO_BOARD) it is the first board's demo."""
    from emulator.boards import BOARDS, demo_program

    if firmware != "demo":
        raise MachineError(f"unknown firmware {firmware!r} (expected 'demo')")
    demos = [n for n, spec in BOARDS.items() if spec.demo is not None]
    if board is not None and board != NO_BOARD and board not in demos:
        raise MachineError(f"the demo firmware is for the {' or '.join(demos)} board, not "
                           f"{board!r}")
    home = board if board in demos else demos[0]
    return home, demo_program(home)


def _opla_note(board: str, board_opla: bool) -> str | None:
    """Return the note a set without an output PLA gets when the board's default takes its
    place (None: no default is taken)."""
    from emulator.boards import BOARDS

    spec = BOARDS.get(board)
    if not board_opla or spec is None or spec.default_opla is None:
        return None
    return (f"warning: no output PLA: using {spec.default_opla_source}; a genuine ROM needs "
            "its own, give --opla")


def _board(board: str, cpu, chip: Chip, clock_hz: int | None):
    """Return (row, board model) of ``board`` around ``cpu``; the bare chip runs by default
    at the clock of the MAME machine with that chip."""
    if board == NO_BOARD:
        from emulator.mame import machines

        clock = clock_hz or next(m.clock_hz for m in machines().values() if m.chip == chip)
        return None, BareChip(cpu, clock)
    from emulator.boards import BOARDS, make_board

    return BOARDS[board], make_board(board, cpu, clock_hz)


def _schedule(the_board, board: str, script) -> None:
    """Schedule ``script`` (a Script or a path read with the board's key names)."""
    if isinstance(script, (str, os.PathLike)):
        from captures.script import read_script
        from emulator.boards import board_keys

        script = (read_script(str(script)) if board == NO_BOARD
                  else read_script(str(script), board_keys(board)))
    the_board.schedule(script)
