"""The D&D Computer Labyrinth board: 18-column mux, 8x8 squares + 8 buttons, speaker
(docs/labyrinth-wiring.md)."""
from __future__ import annotations

import pytest

from captures.script import Press, Script, parse_script
from emulator.boards import BoardError, board_chip, make_board
from emulator.chips import TMS1100, TMS1400
from emulator.labyrinth import LABYRINTH_KEYS, LabyrinthBoard


def test_there_are_72_keys_64_squares_and_8_buttons():
    assert len(LABYRINTH_KEYS) == 72
    assert len(set(LABYRINTH_KEYS.values())) == 72


def test_top_half_square_is_read_through_its_r_column():
    board = LabyrinthBoard()
    board.press("C2")                  # column C = R3, row 2 = K2
    board.write_r(10, 1 << 3)
    assert board.read_k(11) == 2
    board.write_r(20, 1 << 4)
    assert board.read_k(21) == 0


def test_bottom_half_square_is_read_through_its_o_column():
    board = LabyrinthBoard()
    board.press("H8")                  # column H = O7, row 8 = K8
    board.write_o(10, 0x80)
    assert board.read_k(11) == 8
    board.write_o(20, 0x7F)
    assert board.read_k(21) == 0


@pytest.mark.parametrize("key,r,k", [("WALL/DOOR", 0, 1), ("WARRIOR 2", 0, 8),
                                     ("SWITCH KEY", 9, 1), ("DRAGON ATTACKS", 9, 8)])
def test_side_buttons_sit_on_r0_and_r9(key, r, k):
    board = LabyrinthBoard()
    board.press(key)
    board.write_r(5, 1 << r)
    assert board.read_k(6) == k


def test_k_is_the_or_of_every_selected_column():
    board = LabyrinthBoard()
    board.press("A1")                  # R1 K1
    board.press("B5")                  # O1 K1... row 5 = K1
    board.press("A3")                  # R1 K4
    board.write_r(1, 1 << 1)
    board.write_o(2, 1 << 1)
    assert board.read_k(3) == 0b0101


def test_speaker_follows_r10():
    board = LabyrinthBoard()
    board.write_r(10, 1 << 10)
    board.write_r(20, 0)
    assert board.speaker == [(0, 0), (10, 1), (20, 0)]


def test_scheduled_square_touch_holds_from_its_script_time():
    board = LabyrinthBoard()
    board.schedule(Script([Press(1.0, "C2", 0.5)]))
    board.write_r(0, 1 << 3)
    assert board.read_k(474_999) == 0
    assert board.read_k(475_000) == 2
    assert board.read_k(712_500) == 0


def test_dark_tower_button_names_are_refused_by_the_labyrinth_schedule():
    with pytest.raises(BoardError, match="YES/BUY"):
        LabyrinthBoard().schedule(parse_script("1 YES/BUY 0.5\n"))


def test_unknown_key_is_refused_naming_it():
    with pytest.raises(BoardError, match="'J9'"):
        LabyrinthBoard().press("J9")


def test_make_board_picks_the_board_and_its_clock():
    assert isinstance(make_board("labyrinth", None), LabyrinthBoard)
    assert make_board("labyrinth", None).clock_hz == 475_000
    assert make_board("darktower", None).clock_hz == 425_000
    assert board_chip("labyrinth") is TMS1100 and board_chip("darktower") is TMS1400


def test_make_board_refuses_an_unknown_board():
    with pytest.raises(BoardError, match="'chess'"):
        make_board("chess", None)


def test_each_chip_names_the_board_that_carries_it():
    from emulator.boards import board_for_chip
    from emulator.chips import TMS1000

    assert [board_for_chip(c) for c in (TMS1400, TMS1100, TMS1000)] == \
        ["darktower", "labyrinth", None]
