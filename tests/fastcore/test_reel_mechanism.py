"""The reel mechanism (captures.darktower_facts.reel_step, docs/dark-tower-wiring.md §6), and
the compiled kernel's copy of it (emulator/_fastcore.c, b_reel_tick) checked against it from
every state the reel can be in."""
from __future__ import annotations

import itertools

import pytest

from captures.darktower_facts import REEL_COAST_MAX, REEL_STEPS, REEL_TICK_S, coast_step, reel_step
from emulator.boards import make_board
from emulator.chips import TMS1400
from emulator.fastcore import FAST_AVAILABLE, make_cpu

CLA = 0x7F        # a TMS1400 instruction that leaves the pins alone: R (and R9) stay as set


def test_a_still_reel_stays_where_it_is():
    assert reel_step(40, 3, False, True) == (40, 3, False)


def test_a_running_reel_steps_to_the_next_lower_position_and_wraps():
    assert reel_step(0, 0, True, True) == (REEL_STEPS - 1, 1, True)


def test_the_coasting_counter_counts_up_to_its_maximum_while_driven():
    assert coast_step(REEL_COAST_MAX - 1, True) == (REEL_COAST_MAX, True)
    assert coast_step(REEL_COAST_MAX, True) == (REEL_COAST_MAX, True)


def test_after_a_long_run_the_reel_coasts_five_more_steps():
    pos, decay, running = 100, REEL_COAST_MAX, True
    steps = 0
    while running:
        pos, decay, running = reel_step(pos, decay, running, False)
        steps += 1
    assert (steps, pos, decay) == (REEL_COAST_MAX + 1, 100 - REEL_COAST_MAX - 1, 0)


def _board_after(core: str, pos: int, decay: int, running: bool, motor: bool, ticks: int):
    """Return (pos, decay, running) of the Dark Tower board on ``core`` after ``ticks`` reel
    ticks from that state, with R9 held at ``motor``."""
    cpu = make_cpu(TMS1400, bytes([CLA]) * 4096, core=core)
    board = make_board("darktower", cpu)
    cpu.take_edges()                                # the reset's R = 0, already seen
    state = cpu.state()
    state["r"] = board.r = int(motor) << 9          # the chip drives R9, the board sees it
    cpu.set_state(state)
    board.pos, board.decay, board.running = pos, decay, running
    board.run_until(board.cycle_at((ticks + 0.5) * REEL_TICK_S))
    return board.pos, board.decay, board.running


def _model_after(pos: int, decay: int, running: bool, motor: bool, ticks: int):
    for _ in range(ticks):
        pos, decay, running = reel_step(pos, decay, running, motor)
    return pos, decay, running


STATES = list(itertools.product((0, 17, 127), range(REEL_COAST_MAX + 1), (False, True),
                                (False, True)))


@pytest.mark.parametrize("core", [
    pytest.param("fast", marks=pytest.mark.skipif(
        not FAST_AVAILABLE, reason="accelerated core not built: pip install -e . with gcc")),
    "reference"])
def test_the_boards_reel_moves_as_the_mechanism_from_every_state(core):
    for pos, decay, running, motor in STATES:
        for ticks in (1, 3, REEL_COAST_MAX + 2):
            assert _board_after(core, pos, decay, running, motor, ticks) == \
                _model_after(pos, decay, running, motor, ticks), (pos, decay, running, motor)
