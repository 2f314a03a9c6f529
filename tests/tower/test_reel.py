"""The reel, motor and sensor model against docs/dark-tower-wiring.md §6-§7 (MAME 0.251,
measured)."""
from __future__ import annotations

from emulator.darktower import DarkTowerBoard, reel_blind

from .capdata import board_edges

CLOCK = 425_000
TICK = 11_475
R8, R9, R4 = 1 << 8, 1 << 9, 1 << 4


def sensor_edges(board):
    return board_edges(board, "SENSOR")


def test_sensor_sees_the_led_through_the_big_hole_and_seven_small_ones():
    visible = [p for p in range(128) if not reel_blind(p)]
    assert visible == list(range(12)) + [p for h in range(1, 8) for p in range(16 * h, 16 * h + 4)]


def test_reel_steps_once_per_27_ms_downwards_while_the_motor_runs():
    board = DarkTowerBoard()
    board.write_r(0, R9)
    board.advance_to(TICK - 1)
    assert board.pos == 0
    board.advance_to(TICK)
    assert board.pos == 127
    board.advance_to(10 * TICK)
    assert board.pos == 118


def test_card_and_percent_after_two_and_four_seconds_match_mame():
    # docs/dark-tower-wiring.md §6 (measured in MAME 0.251): motor_pos 42 / 84 and card_pos 3 / 6
    # after 2.0167 / 4.0167 s.
    board = DarkTowerBoard()
    board.write_r(0, R9)
    board.advance_to(round(2.0167 * CLOCK))
    assert (int(100 * board.pos / 128), board.card_pos) == (42, 3)
    board.advance_to(round(4.0167 * CLOCK))
    assert (int(100 * board.pos / 128), board.card_pos) == (84, 6)


def test_reel_coasts_five_steps_after_the_motor_stops_at_full_speed():
    board = DarkTowerBoard()
    board.write_r(0, R9)
    board.advance_to(10 * TICK)
    board.write_r(10 * TICK + 1, 0)
    board.advance_to(30 * TICK)
    assert board.pos == (0 - 10 - 5) & 127
    assert not board.running


def test_k8_timing_with_led_and_motor_on_from_power_on_matches_mame():
    # docs/dark-tower-wiring.md §6 (measured in MAME 0.251): K8 1 from 16.70 ms, 0 from 27.03 ms,
    # 1 from 351 ms, 0 from 459 ms, 1 from 783 ms, 0 from 891 ms.
    board = DarkTowerBoard()
    board.write_r(0, R8 | R9)
    board.advance_to(round(0.95 * CLOCK))
    times = [(round(c / CLOCK * 1000, 2), v) for c, v in sensor_edges(board)]
    assert times == [(16.67, 1), (27.0, 0), (351.0, 1), (459.0, 0), (783.0, 1), (891.0, 0)]


def test_led_counts_as_lit_only_from_the_next_display_frame():
    board = DarkTowerBoard()
    board.write_r(100, R8)
    assert board.read_k(7082) == 0
    assert board.read_k(7084) == 8


def test_a_k_sample_sees_the_frame_boundary_inside_its_clock():
    # The 1/60 s boundary at 7083.33 cycles falls inside clock 7083; MAME commits it before
    # that clock runs (docs/k-sampling.md), so the sample of clock 7083 already sees the LED.
    board = DarkTowerBoard()
    board.write_r(100, R8)
    assert board.read_k(7083) == 8


def test_a_k_sample_does_not_see_a_reel_tick_on_the_next_clock_edge():
    board = DarkTowerBoard()
    board.write_r(0, R8 | R9)
    assert board.read_k(TICK - 1) == 8       # the tick at 11475 moves the reel off its hole
    assert board.read_k(TICK) == 0


def test_led_lit_under_two_percent_of_a_frame_stays_dark():
    board = DarkTowerBoard()
    board.write_r(100, R8)
    board.write_r(100 + 141, 0)          # 1.99 % of a 7083-cycle frame
    board.advance_to(3 * 7084)
    assert board.led_bri <= 0.01 and board.read_k(3 * 7084) == 0


def test_led_stays_seen_one_dark_frame_after_it_goes_out_on_a_frame_boundary():
    board = DarkTowerBoard()
    board.write_r(0, R8)
    board.write_r(21_250, 0)                 # 3/60 s: brightness saturated at 0.04
    assert board.read_k(28_334) == 8         # halves to 0.02 after the first dark frame
    assert board.read_k(35_417) == 0         # 0.01 is not above the 0.01 threshold


def test_led_going_dark_mid_frame_is_seen_one_frame_longer():
    board = DarkTowerBoard()
    board.write_r(0, R8)
    board.write_r(21_250 + 3_000, 0)         # 42 % of the fourth frame still lit
    assert board.read_k(35_417) == 8
    assert board.read_k(42_500) == 0


def test_r4_high_blanks_the_sensor_led():
    board = DarkTowerBoard()
    board.write_r(0, R8 | R4)
    board.advance_to(5 * 7084)
    assert board.read_k(5 * 7084) == 0


def test_reel_events_are_published_at_the_next_display_frame_like_mame():
    board = DarkTowerBoard()
    board.write_r(0, R9)
    board.advance_to(TICK * 2)
    assert [(e["t"], e["card_pos"]) for e in board.events] == [(0.016667, 0), (0.033333, 7)]
