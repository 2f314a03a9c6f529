"""Wire a TMS1100 core into Mattel's D&D Computer Labyrinth Game: touch board, buttons, speaker.

The wiring is MAME 0.251's ``mdndclab`` driver as described in ``docs/labyrinth-wiring.md``:

    O0-O7      input-mux bits 0-7 (the O pins *after* the output PLA): bottom-half columns
    R0         input-mux bit 8: the button group Wall/Door, Illegal Move, Warrior 1, Warrior 2
    R1-R8      input-mux bits 9-16: top-half columns of the 8x8 board
    R9         input-mux bit 17: Switch Key, Next Turn, Dragon Flying, Dragon Attacks
    R10        speaker (1-bit, level = R10)
    K1-K8      OR of the 4-bit rows of every selected mux column

Squares are named by column letter A-H (left to right) and row number 1-8 (top to bottom):
rows 1-4 are read through R1-R8 (K1..K8 = rows 1..4), rows 5-8 through O0-O7 (K1..K8 = rows
5..8). Keys act from the exact cycle they are pressed.

Example::

    board = LabyrinthBoard(Cpu(TMS1100, rom, mpla, opla))
    board.press("C6"); board.run_until(475_000)
"""
from __future__ import annotations

from emulator.board import Board

__all__ = ["LabyrinthBoard", "LABYRINTH_CHANNELS", "LABYRINTH_KEYS", "LABYRINTH_BUTTONS",
           "square_name"]

LABYRINTH_CHANNELS = tuple([f"R{i}" for i in range(11)] + [f"O{i}" for i in range(8)]
                           + ["K1", "K2", "K4", "K8"])

# Side buttons (docs/labyrinth-wiring.md §2, layout names): name -> (mux bit, K bit).
LABYRINTH_BUTTONS: dict[str, tuple[int, int]] = {
    "WALL/DOOR": (8, 1), "ILLEGAL MOVE": (8, 2), "WARRIOR 1": (8, 4), "WARRIOR 2": (8, 8),
    "SWITCH KEY": (17, 1), "NEXT TURN": (17, 2), "DRAGON FLYING": (17, 4),
    "DRAGON ATTACKS": (17, 8),
}


def square_name(col: int, row: int) -> str:
    """Return the name of the square at ``col`` 0-7 (left to right), ``row`` 0-7 (top down)."""
    return f"{'ABCDEFGH'[col]}{row + 1}"


def _square_keys() -> dict[str, tuple[int, int]]:
    keys = {}
    for col in range(8):
        for row in range(8):
            if row < 4:
                keys[square_name(col, row)] = (9 + col, 1 << row)      # R(1+col)
            else:
                keys[square_name(col, row)] = (col, 1 << (row - 4))    # O(col)
    return keys


# Every key of the game: 64 squares and 8 buttons -> (mux bit 0-17, K bit).
LABYRINTH_KEYS: dict[str, tuple[int, int]] = {**_square_keys(), **LABYRINTH_BUTTONS}


class LabyrinthBoard(Board):
    """The Labyrinth around a TMS1100 core: attaches to the core's pin callbacks.

    ``pins`` records ``(cycle, word)`` over ``LABYRINTH_CHANNELS``; ``events`` holds button
    press/release events (``button`` = square or button name); ``speaker`` records
    ``(cycle, level)`` of R10. Keys, pins and speaker are ``emulator.board.Board``'s; the
    strobe lines are the 18 input-mux bits.
    """

    name = "labyrinth"
    clock_hz = 475_000                 # MAME 0.251 mdndclab (docs/adding-a-board.md, clocks)
    channels = LABYRINTH_CHANNELS
    KEYS = LABYRINTH_KEYS              # strobe line = input-mux bit 0-17

    def _strobe(self) -> int:
        return (self.o & 0xFF) | ((self.r & 0x3FF) << 8)     # mux bits 0-7 = O, 8-17 = R0-R9

    def _unknown_key(self, key: str) -> str:
        return (f"unknown Labyrinth key {key!r} (expected a square A1-H8 or one of "
                f"{', '.join(LABYRINTH_BUTTONS)})")

    @property
    def event_channels(self) -> tuple[str, ...]:
        """Return R4 (held low) and R10: the speaker decoder reads R10 AND NOT R4, and the
        Labyrinth's R4 is a mux line, not an enable."""
        return ("R4", "R10")

    def event_pins(self) -> list[tuple[int, int]]:
        """Return the speaker alone over ``event_channels`` (R10 = bit 1)."""
        return [(c, lvl << 1) for c, lvl in self.speaker]

    def event_count(self) -> int:
        """Return how many changes ``event_pins`` (the speaker's) holds."""
        return len(self.speaker)

    def event_pairs(self, start: int = 0) -> list[tuple[int, int]]:
        """Return ``event_pins`` from index ``start`` on."""
        return [(c, lvl << 1) for c, lvl in self.speaker[start:]]

    def event_arrays(self, start: int = 0):
        """Return ``event_pins`` from index ``start`` on as numpy arrays (cycles as int64,
        words as uint64), in time linear in what is returned (a live reader's new edges)."""
        import numpy as np

        new = self.speaker[start:]
        times = np.fromiter((c for c, _ in new), np.int64, len(new))
        words = np.fromiter((lvl << 1 for _, lvl in new), np.uint64, len(new))
        return times, words
