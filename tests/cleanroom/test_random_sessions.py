"""Seeded random sessions (random keys at random times, all levels and player counts) keep every
limit and emit only valid events."""
from __future__ import annotations

import random

import pytest

from captures.events import validate_event
from captures.script import BUTTONS
from cleanroom.game import RandomChooser, is_timing_name
from cleanroom.tower import CleanroomTower

FAVOURED = ("MOVE", "MOVE", "TOMB/RUIN", "NO/END", "NO/END", "YES/BUY", "FRONTIER")


def _session(seed: int) -> CleanroomTower:
    rng = random.Random(seed)
    tw = CleanroomTower(seed=seed)
    tw.advance(1.0)
    for _ in range(300):
        tw.advance(rng.choice((0.3, 1.0, 2.0, 4.0)))
        if tw.waiting() or rng.random() < 0.1:
            key = rng.choice(BUTTONS + FAVOURED)
            tw.press(key)
            tw.advance(0.2 if rng.random() < 0.9 else 3.0)
            tw.release(key)
    return tw


@pytest.mark.parametrize("seed", range(12))
def test_random_session_keeps_the_limits_and_the_event_vocabulary(seed):
    tw = _session(seed)
    for ev in tw.events():
        validate_event(ev)
    for p in tw.game.players:
        assert 0 <= p.warriors <= 99 and 0 <= p.food <= 99 and 0 <= p.gold <= p.gold_limit()
        assert 0 <= p.keys <= 3 and 0 <= p.frontiers <= 4
        if len(tw.game.players) > 1:
            assert p.warriors >= 1


def test_timing_decisions_do_not_shift_the_outcomes_a_seed_draws():
    plain, timed = RandomChooser(7), RandomChooser(7)
    outcomes = []
    for i in range(50):
        timed.choose("skirmish_think_cycles", range(1000, 5000), None, float(i))
        outcomes.append((plain.choose("skirmish", (True, False), (0.4, 0.6), float(i)),
                         timed.choose("skirmish", (True, False), (0.4, 0.6), float(i))))
    assert all(a == b for a, b in outcomes)
    assert len({a for a, _ in outcomes}) == 2


def test_a_name_ending_in_cycles_is_a_timing_decision():
    assert is_timing_name("skirmish_think_cycles") and not is_timing_name("skirmish")
