"""A third board is one row plus one class (docs/adding-a-board.md): the worked example there,
registered here, runs through the same paths as the Dark Tower and the Labyrinth."""
from __future__ import annotations

import zipfile
from functools import partial
from hashlib import sha1

import pytest

from captures.script import parse_script
from captures.tower import run_script
from emulator.asm import assemble
from emulator.board import Board
from emulator.boards import (BOARDS, BoardSpec, RomMember, RomsetSpec, board_chip, board_keys,
                             make_board, register_board)
from emulator.chips import TMS1000
from emulator.decode import ident_output_pla, standard_micro_pla
from emulator.labyrinth import LABYRINTH_CHANNELS
from emulator.pla import pla_text
from rig.towers.emulated import EmulatorTower, TargetError

CLOCK = 300_000

# The worked example of docs/adding-a-board.md: while GO is held, beep.
BUZZER_SOURCE = """
        .chip tms1000
        .page 15
start:  TCY 0
        SETR              ; R0 high: strobe the GO key onto K1
loop:   KNEZ              ; status = (K != 0)
        BRANCH beep
        BRANCH loop
beep:   TCY 10
        SETR              ; R10: one speaker pulse per pass
        RSTR
        TCY 0
        BRANCH loop       ; 7 instructions = 42 clocks a pass
"""


class BuzzerBoard(Board):
    """A made-up TMS1000 board: one key (GO) on R0/K1 and a speaker on R10."""

    name = "buzzer"
    clock_hz = CLOCK
    channels = LABYRINTH_CHANNELS          # R0-R10, O0-O7, K1 K2 K4 K8
    KEYS = {"GO": (0, 1)}                  # strobe line 0 = R0, K1

    def _strobe(self) -> int:
        return self.r


def buzzer_row(rom_sha1: str = "0" * 40) -> BoardSpec:
    return BoardSpec(
        "buzzer", "a one-key buzzer", TMS1000, BuzzerBoard,
        decoders=("speaker",),
        romset=RomsetSpec("buzzset", RomMember("buzz.bin", rom_sha1),
                          RomMember("tms1000_common3_micro.pla", "1" * 40),
                          RomMember("buzz_output.pla", "2" * 40)),
        default_opla=partial(ident_output_pla, TMS1000),
        default_opla_source="the identity output PLA")


@pytest.fixture
def image() -> bytes:
    return bytes(assemble(BUZZER_SOURCE, TMS1000).rom)


@pytest.fixture
def buzzer(image):
    """Register the buzzer row (its ROM's SHA-1 as the known dump) for one test."""
    spec = register_board(buzzer_row(sha1(image).hexdigest()))
    yield spec
    del BOARDS[spec.name]


def test_a_registered_board_is_made_by_name_at_its_rows_clock(buzzer):
    board = make_board("buzzer", None)
    assert isinstance(board, BuzzerBoard) and board.clock_hz == CLOCK
    assert board_chip("buzzer") is TMS1000 and board_keys("buzzer") == ("GO",)


def test_the_new_board_beeps_while_its_key_is_held_behind_the_tower_protocol(buzzer, image,
                                                                             tmp_path):
    rom = tmp_path / "buzz.bin"
    rom.write_bytes(image)
    tower = EmulatorTower(rom=str(rom), board="buzzer")
    events = run_script(tower, parse_script("0.5 GO 0.25\n# run length: 1 s\n", "buzz.txt",
                                            board_keys("buzzer")))
    presses = [(e["t"], e["action"]) for e in events if e["type"] == "button"]
    assert presses == [(0.5, "press"), (0.75, "release")]
    tones = [e for e in events if e["type"] == "tone"]
    assert len(tones) == 1
    assert 0.5 <= tones[0]["t"] < 0.5 + 1e-3
    assert tones[0]["freq_hz"] == pytest.approx(CLOCK / 42, abs=0.1)
    assert tones[0]["t"] + tones[0]["dur_s"] == pytest.approx(0.75, abs=1e-3)
    assert tower.summary.endswith("buzz.bin: raw ROM image of the buzzset set, TMS1000")


def test_the_new_boards_romset_is_recognised_by_its_rows_members(buzzer, image, tmp_path):
    path = tmp_path / "buzzset.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("buzz.bin", image)
        zf.writestr("tms1000_common3_micro.pla",
                    pla_text(standard_micro_pla(TMS1000), term_count=30, pad_to_bytes=867))
    tower = EmulatorTower(romset=str(path), board="buzzer")
    assert tower.summary == "buzzset.zip: buzzset set, TMS1000"
    assert "buzz.bin: known-good dump" in tower.notes


def test_the_new_board_refuses_a_key_it_does_not_have(buzzer, image, tmp_path):
    rom = tmp_path / "buzz.bin"
    rom.write_bytes(image)
    tower = EmulatorTower(rom=str(rom), board="buzzer")
    with pytest.raises(TargetError, match="unknown button 'YES/BUY' \\(expected one of GO\\)"):
        tower.press("YES/BUY")


def test_a_board_name_is_registered_once():
    from emulator.boards import BoardError

    with pytest.raises(BoardError, match="'darktower' is registered already"):
        register_board(BOARDS["darktower"])


def test_the_scheduled_keys_still_import_from_their_old_module_with_a_warning():
    import emulator.keyqueue
    from emulator.board import BoardError

    with pytest.warns(DeprecationWarning, match="emulator.board"):
        assert emulator.keyqueue.BoardError is BoardError
