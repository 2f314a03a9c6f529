"""The Dark Tower board model, pin by pin (docs/dark-tower-wiring.md), without a ROM."""
from __future__ import annotations

import io

import pytest

from captures.darktower_facts import CARD_IMAGES, KEY_MATRIX, card_image
from captures.model import DARKTOWER_CHANNELS
from captures.script import BUTTONS, parse_script
from emulator.darktower import (
    BoardError, DarkTowerBoard, glyph_o_table, segments_from_o, write_glyph_output_pla,
)

from .capdata import board_edges

CLOCK = 425_000
TICK = 11_475                 # 27 ms at 425 kHz
FRAME = CLOCK / 60            # 7083.33 cycles


def bit(name: str) -> int:
    return 1 << DARKTOWER_CHANNELS.index(name)


def r(*pins: int) -> int:
    return sum(1 << p for p in pins)


@pytest.mark.parametrize("button", BUTTONS)
def test_each_key_pulls_its_k_row_high_only_while_its_column_is_selected(button):
    board = DarkTowerBoard()
    col, kbit = KEY_MATRIX[button]
    board.press(button, 0)
    board.write_r(10, 0)
    assert board.read_k(11) == 0
    board.write_r(20, r(col))
    assert board.read_k(21) == kbit
    board.write_r(30, r(*(c for c in range(3) if c != col)))
    assert board.read_k(31) == 0


def test_key_matrix_covers_the_twelve_keys_once_each():
    assert sorted(KEY_MATRIX) == sorted(BUTTONS)
    assert len(set(KEY_MATRIX.values())) == 12


def test_keys_of_all_selected_columns_are_ored_on_k():
    board = DarkTowerBoard()
    board.press("YES/BUY", 0)          # R2 K2
    board.press("INVENTORY", 0)        # R0 K1
    board.write_r(5, r(0, 1, 2))
    assert board.read_k(6) == 0b0011


def test_a_scheduled_key_is_seen_from_the_exact_cycle_of_its_script_time():
    board = DarkTowerBoard()
    board.schedule(parse_script("1.0 NO/END 0.5\n"))
    board.write_r(0, r(0))
    assert board.read_k(CLOCK - 1) == 0
    assert board.read_k(CLOCK) == 2
    assert board.read_k(CLOCK + CLOCK // 2 - 1) == 2
    assert board.read_k(CLOCK + CLOCK // 2) == 0


def test_button_events_carry_the_time_the_chip_first_sees_the_key():
    board = DarkTowerBoard()
    board.schedule(parse_script("3.016667 YES/BUY 0.2\n"))
    board.advance_to(2 * CLOCK * 2)
    presses = [e for e in board.events if e["type"] == "button"]
    assert [(e["action"], e["t"]) for e in presses] == [("press", 3.016667),
                                                        ("release", 3.216667)]


def test_unknown_button_is_refused_naming_it():
    with pytest.raises(BoardError, match="'FIRE'"):
        DarkTowerBoard().press("FIRE")


def test_power_off_in_a_script_cannot_be_scheduled_on_a_board():
    with pytest.raises(BoardError, match="power off"):
        DarkTowerBoard().schedule(parse_script("2 power off\n"))


def test_r_and_o_writes_appear_on_their_channels_at_their_cycle():
    board = DarkTowerBoard()
    board.write_r(100, r(5, 9))
    board.write_o(200, 0x81)
    assert (100, bit("R5") | bit("R9")) in board.pins
    assert board.pins[-1] == (200, bit("R5") | bit("R9") | bit("O0") | bit("O7"))


def test_speaker_sounds_only_while_r4_is_low():
    board = DarkTowerBoard()
    board.write_r(10, r(10))
    board.write_r(20, r(4, 10))
    board.write_r(30, r(10))
    board.write_r(40, 0)
    assert board.speaker == [(0, 0), (10, 1), (20, 0), (30, 1), (40, 0)]


def test_lamps_light_from_r5_r6_r7_only_while_r4_is_low():
    board = DarkTowerBoard()
    board.write_r(10, r(5, 6, 7))
    assert board.lamps() == {"upper": 1, "middle": 1, "lower": 1}
    board.write_r(20, r(4, 7))
    assert board.lamps() == {"upper": 0, "middle": 0, "lower": 0}
    board.write_r(30, r(7))
    assert board.lamps() == {"upper": 1, "middle": 0, "lower": 0}


@pytest.mark.parametrize("a,char,segs", [(0, "0", "abcdef"), (1, "1", "bc"), (8, "8", "abcdefg"),
                                         (11, "C", "adef"), (12, "P", "abefg"),
                                         (13, "L", "def"), (14, "-", "g"), (15, " ", "")])
def test_glyph_pla_drives_the_segments_of_each_character(a, char, segs):
    assert segments_from_o(glyph_o_table()[a]) == segs
    assert segments_from_o(glyph_o_table()[16 | a]) == segs


def test_glyph_pla_puts_the_status_latch_on_o7_as_digit_select():
    table = glyph_o_table()
    assert all(table[i] >> 7 == 0 for i in range(16))
    assert all(table[16 + i] >> 7 == 1 for i in range(16))


def test_glyph_pla_reset_entry_lights_a_zero_as_mame_shows_at_power_on():
    assert glyph_o_table()[0] == 0x7E            # docs/mame-oracle.md §6: O = 7E after reset


def test_glyph_pla_file_is_mame_sized_and_reads_back_to_the_same_table():
    from emulator.pla import read_pla

    f = io.StringIO()
    write_glyph_output_pla(f)
    text = f.getvalue()
    assert len(text.encode("ascii")) == 557
    assert list(read_pla(text).table()) == glyph_o_table()


def test_card_images_follow_the_reel_positions_and_lamp_rows():
    assert card_image(3, "upper") == "DRAGON"
    assert card_image(2, "middle") == "BAZAAR CLOSED"
    assert card_image(5, "lower") == "GOLD"
    assert card_image(7, "upper") == ""
    assert [CARD_IMAGES[row][0] for row in ("upper", "middle", "lower")] == \
        ["CURSED", "LOST", "PLAGUE"]


def test_a_key_on_a_frame_boundary_is_seen_by_the_sample_clock_the_boundary_falls_in():
    # Corpus l1_p3_s09 at 86.283 s: NO/END is committed at the frame boundary 36,670,416.67
    # while R0 strobes (36,670,412-36,670,424). The instruction fetched at 36,670,415 samples K
    # during clock 36,670,416, which contains the boundary, and sees the key; the K2 pin shows
    # it from the next whole clock, as recorded (docs/k-sampling.md).
    board = DarkTowerBoard()
    board.schedule(parse_script("86.283333 NO/END 0.2\n", "l1_p3_s09"))
    board.write_r(36_670_412, r(0))
    assert board.read_k(36_670_410) == 0           # the instruction fetched at 36,670,409
    assert board.read_k(36_670_416) == 2
    board.write_r(36_670_424, 0)
    assert board_edges(board, "K2") == [(36_670_417, 1), (36_670_424, 0)]


def test_a_key_given_as_a_whole_clock_is_seen_from_that_clock():
    board = DarkTowerBoard()
    board.write_r(100, r(0))
    board.press("NO/END", cycle=1_000)
    assert board.read_k(999) == 0
    assert board.read_k(1_000) == 2
