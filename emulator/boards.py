"""Pick a board model by name: the Dark Tower (TMS1400) or the D&D Computer Labyrinth (TMS1100).

Every board attaches to a core's pin callbacks (``cpu.on_r``, ``cpu.on_o``, ``cpu.read_k``) and
offers the same small surface: ``press``/``release``, ``schedule(script)`` (keys held from their
exact script times), ``run_until(cycle)``, ``pins`` (``(cycle, word)`` over ``channels``),
``events`` (board-only events), ``speaker`` and ``add_pin_listener``.

Example::

    board = make_board("darktower", cpu)
    board.schedule(read_script("session.txt"))
    board.run_until(10 * board.clock_hz)
"""
from __future__ import annotations

from emulator.chips import TMS1100, TMS1400, Chip
from emulator.darktower import BoardError, DarkTowerBoard
from emulator.labyrinth import LabyrinthBoard

__all__ = ["BOARDS", "BOARD_CHIPS", "Board", "BoardError", "make_board", "board_chip", "board_keys",
           "board_for_chip"]

Board = DarkTowerBoard | LabyrinthBoard

BOARDS = {"darktower": DarkTowerBoard, "labyrinth": LabyrinthBoard}

# The chip each board carries (docs/dark-tower-wiring.md, docs/labyrinth-wiring.md) and MAME's
# clock for it.
BOARD_CHIPS: dict[str, tuple[Chip, int]] = {
    "darktower": (TMS1400, 425_000),
    "labyrinth": (TMS1100, 475_000),
}


def _check(name: str) -> None:
    if name not in BOARDS:
        raise BoardError(f"unknown board {name!r} (expected one of {', '.join(BOARDS)})")


def board_chip(name: str) -> Chip:
    """Return the chip variant board ``name`` carries."""
    _check(name)
    return BOARD_CHIPS[name][0]


def board_for_chip(chip: Chip) -> str | None:
    """Return the name of the board that carries ``chip`` (None for a chip no board has)."""
    for name, (board_chip_, _) in BOARD_CHIPS.items():
        if board_chip_ == chip:
            return name
    return None


def board_keys(name: str) -> tuple[str, ...]:
    """Return the key names board ``name`` accepts in scripts (Dark Tower: its 12 buttons;
    Labyrinth: 64 squares A1-H8 and 8 side buttons)."""
    _check(name)
    if name == "labyrinth":
        from emulator.labyrinth import LABYRINTH_KEYS
        return tuple(LABYRINTH_KEYS)
    from captures.script import BUTTONS
    return BUTTONS


def make_board(name: str, cpu, clock_hz: int | None = None) -> Board:
    """Build board ``name`` around ``cpu`` (clock default: MAME's for that board, in Hz)."""
    _check(name)
    return BOARDS[name](cpu, clock_hz or BOARD_CHIPS[name][1])
