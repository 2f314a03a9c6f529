"""The boards, one descriptor row each: chip, clock, keys, channels, board class, default output
PLA, decoders, ROM set members with their SHA-1s, and the MAME machine with its parameters.

Every other table is read from these rows: ``emulator.romset`` recognises a set by its row's
members and SHA-1s, ``emulator.mame`` builds its machines from the rows' MAME parameters,
``rig.towers.emulated.EmulatorTower`` takes the chip, the default output PLA, the demo firmware
and the decoders from the row, and the command line's ``--board`` names a row. Adding a board
is one row (``register_board``) plus one ``emulator.board.Board`` subclass:
docs/adding-a-board.md.

Every board attaches to a core's pin callbacks (``cpu.on_r``, ``cpu.on_o``, ``cpu.read_k``) and
offers the same small surface (``emulator.board``).

Example::

    board = make_board("darktower", cpu)
    board.schedule(read_script("session.txt"))
    board.run_until(10 * board.clock_hz)
    board_spec("labyrinth").chip.name, board_spec("labyrinth").clock_hz   # ('tms1100', 475000)
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

from emulator.board import Board, BoardError
from emulator.chips import TMS1100, TMS1400, Chip
from emulator.darktower import DarkTowerBoard, glyph_output_pla
from emulator.labyrinth import LabyrinthBoard

__all__ = ["BOARDS", "Board", "BoardError", "BoardSpec", "RomMember", "RomsetSpec",
           "MameParams", "DEMO_SOURCE", "register_board", "board_spec", "make_board",
           "board_chip", "board_keys", "board_for_chip", "demo_program"]

DEMO_SOURCE = Path(__file__).resolve().parent / "firmware" / "demo.asm"


@dataclass(frozen=True)
class RomMember:
    """One file of a MAME ROM set: its name and the SHA-1 of the known-good dump."""
    file: str
    sha1: str


@dataclass(frozen=True)
class RomsetSpec:
    """A board's MAME ROM set: the set (zip) name, its ROM and its two PLA files."""
    name: str
    rom: RomMember
    mpla: RomMember
    opla: RomMember

    @property
    def members(self) -> tuple[RomMember, ...]:
        """Return the ROM, micro PLA and output PLA members."""
        return (self.rom, self.mpla, self.opla)


@dataclass(frozen=True)
class MameParams:
    """How MAME runs a board: the driver (machine) name, its input ports ``IN.0`` ..
    ``IN.n-1`` (4 K bits each; port p = the board's strobe line p), those of them that are
    configuration switches, and the output-PLA file size MAME insists on (bytes)."""
    machine: str
    key_ports: int
    opla_size: int
    switch_ports: tuple[int, ...] = ()


@dataclass(frozen=True)
class BoardSpec:
    """One board: everything the rest of TowerLab needs to know about it.

    ``clock_hz`` (the MAME driver's oscillator, the board's default clock), ``keys`` and
    ``channels`` are read from the board class, which needs them when built directly;
    ``decoders`` are the ``analysis`` decoders run over ``board_class.event_pins()`` for the
    tower's events; ``default_opla`` builds the output PLA used when a ROM comes without one
    (None: the ROM must bring its own) and ``default_opla_source`` says what it is;
    ``demo`` is the open firmware the board runs with ``--firmware demo`` (None: none).
    """
    name: str
    title: str
    chip: Chip
    board_class: type[Board]
    decoders: tuple[str, ...]
    romset: RomsetSpec | None = None
    mame: MameParams | None = None
    default_opla: Callable[[], object] | None = None
    default_opla_source: str = ""
    demo: Path | None = None

    @property
    def clock_hz(self) -> int:
        """Return the board's default clock (Hz): MAME's for the machine."""
        return self.board_class.clock_hz

    @property
    def keys(self) -> tuple[str, ...]:
        """Return the key names the board accepts in scripts, in panel order."""
        return self.board_class.key_names

    @property
    def channels(self) -> tuple[str, ...]:
        """Return the channels of the board's pin word."""
        return self.board_class.channels


BOARDS: dict[str, BoardSpec] = {}


def register_board(spec: BoardSpec) -> BoardSpec:
    """Add ``spec`` to ``BOARDS`` and return it; BoardError for a name already taken or a
    board class that is not a ``Board`` of that name."""
    if spec.name in BOARDS:
        raise BoardError(f"board {spec.name!r} is registered already")
    if not (isinstance(spec.board_class, type) and issubclass(spec.board_class, Board)):
        raise BoardError(f"board {spec.name!r}: board_class {spec.board_class!r} is not an "
                         "emulator.board.Board subclass")
    if spec.board_class.name != spec.name:
        raise BoardError(f"board {spec.name!r}: board_class {spec.board_class.__name__} is "
                         f"named {spec.board_class.name!r} (expected {spec.name!r})")
    if not (isinstance(spec.clock_hz, int) and spec.clock_hz > 0):
        raise BoardError(f"board {spec.name!r}: {spec.board_class.__name__}.clock_hz "
                         f"{spec.clock_hz!r} must be a positive number of Hz")
    BOARDS[spec.name] = spec
    return spec


_MICRO_PLA = RomMember("tms1100_common1_micro.pla", "d6297f2a4bc7a870b76cc498d19dbb0ce7d69fec")

# Chips, clocks, ROM set members and SHA-1s: MAME 0.251 (-listxml, -listroms) of the mbdtower
# and mdndclab drivers (docs/adding-a-board.md lists the primary sources).
register_board(BoardSpec(
    "darktower", "Milton Bradley Dark Tower", TMS1400, DarkTowerBoard,
    decoders=("display", "lamps", "motor", "speaker"),
    romset=RomsetSpec("mbdtower",
                      RomMember("mp7332", "7edbff437da371390fa8f28b3d183f833eaa9be9"),
                      _MICRO_PLA,
                      RomMember("tms1400_mbdtower_output.pla",
                                "72ce6d24cedf9c606f1742cd5620f75907246e87")),
    mame=MameParams("mbdtower", key_ports=3, opla_size=557),
    default_opla=glyph_output_pla,
    default_opla_source="the demo firmware's glyph table (emulator.darktower)",
    demo=DEMO_SOURCE,
))
register_board(BoardSpec(
    "labyrinth", "Mattel D&D Computer Labyrinth Game", TMS1100, LabyrinthBoard,
    decoders=("speaker",),
    romset=RomsetSpec("mdndclab",
                      RomMember("m34012", "158362c2821678a51554e02dbb2f9ef5aaf5f59f"),
                      _MICRO_PLA,
                      RomMember("tms1100_mdndclab_output.pla",
                                "63a2531278a665ace54c541101e052eb84413511")),
    mame=MameParams("mdndclab", key_ports=18, opla_size=365),
))


def board_spec(name: str) -> BoardSpec:
    """Return the row of board ``name``; BoardError naming the known boards otherwise."""
    try:
        return BOARDS[name]
    except (KeyError, TypeError):
        raise BoardError(f"unknown board {name!r} (expected one of {', '.join(BOARDS)})") \
            from None


def board_chip(name: str) -> Chip:
    """Return the chip variant board ``name`` carries."""
    return board_spec(name).chip


def board_for_chip(chip: Chip) -> str | None:
    """Return the name of the board that carries ``chip`` (None for a chip no board has)."""
    for spec in BOARDS.values():
        if spec.chip == chip:
            return spec.name
    return None


def board_keys(name: str) -> tuple[str, ...]:
    """Return the key names board ``name`` accepts in scripts (Dark Tower: its 12 buttons;
    Labyrinth: 64 squares A1-H8 and 8 side buttons)."""
    return board_spec(name).keys


def make_board(name: str, cpu, clock_hz: int | None = None) -> Board:
    """Build board ``name`` around ``cpu`` (clock default: the row's, MAME's, in Hz)."""
    spec = board_spec(name)
    return spec.board_class(cpu, clock_hz or spec.clock_hz)


@lru_cache(maxsize=None)
def demo_program(name: str = "darktower"):
    """Assemble and return board ``name``'s open demo firmware (an ``emulator.asm.Program``,
    labels included), once per process; BoardError for a board without one."""
    from emulator.asm import assemble

    spec = board_spec(name)
    if spec.demo is None:
        raise BoardError(f"the {name} board has no demo firmware")
    return assemble(spec.demo.read_text(encoding="utf-8"), spec.chip, str(spec.demo))
