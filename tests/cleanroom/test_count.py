"""cleanroom.count and the ``count`` draw model: a level-4 game's first MOVE read off the count
that steps 0x2507 a key-loop pass since the tower test (docs/draws.md, section 12).

The level-4 sessions of tests/data/corpus stand on their own; where the lab's corpus sits
beside the checkout (tests/corpus.py) its development sessions are read too (never the
held-out ones)."""
from __future__ import annotations

import pytest

from cleanroom.conform import load_reference, resolve
from cleanroom.count import (COUNT_START, COUNT_STEP, MOVE_TABLE, best_start, count_at,
                             count_cell, first_move_fit, first_move_lines, move_from_count)
from cleanroom.decisions import is_timing
from cleanroom.phase import read_first_draw
from cleanroom.predict import Count, Likeliest, model_named, predict_resynced
from tests.cleanroom.corpus_split import DEVELOPMENT
from tests.corpus import DATA_CORPUS, genuine_corpus


def first_moves(folders) -> list[tuple[int, str]]:
    draws = [read_first_draw(*load_reference(str(f)), f.name) for f in folders]
    return [(d.passes, d.value) for d in draws if d is not None and d.name == "move"]


def test_the_count_steps_0x2507_a_pass_from_the_tower_tests_start():
    assert count_at(0) == COUNT_START and count_at(1) == (COUNT_START + 0x2507) % 65536
    assert count_at(2, start=0xFFFF) == (0xFFFF + 2 * COUNT_STEP) % 65536


def test_a_cell_is_the_top_digit_and_bit_7_and_the_table_names_the_games_outcomes():
    assert [count_cell(c) for c in (0x0000, 0x0080, 0x1000, 0xF0FF)] == [0, 1, 2, 31]
    assert len(MOVE_TABLE) == 32
    assert set(MOVE_TABLE) == {"safe", "lost", "dragon", "plague", "battle"}


def test_the_model_takes_the_middle_of_the_longest_run_of_best_starts():
    assert best_start([5, 6, 7, 20, 21, 22, 23, 24]) == 22
    assert best_start([9, 10, 11, 40, 41, 42]) == 10          # ties: the first run


def test_first_moves_the_count_made_are_all_right_at_their_start_and_left_out_in_turn():
    points = [(p, move_from_count(p, 0x1234)) for p in range(400, 1600, 41)]    # 30 games
    fit = first_move_fit(points, shuffles=20)
    assert (fit.right, fit.left_out, fit.hits) == (30, 30, 0) and 0x1234 in fit.starts


def test_the_first_moves_of_level_4_games_are_read_off_the_count():
    corpus = genuine_corpus()
    if corpus is None:
        points = first_moves(sorted(DATA_CORPUS.glob("l4_*")))
        assert [move_from_count(p) == o for p, o in points] == [True] * 3
        return
    points = first_moves([corpus / n for n in sorted(DEVELOPMENT) if n.startswith("l4")])
    fit = first_move_fit(points)
    assert (fit.games, fit.right, fit.left_out) == (14, 11, 9)
    assert fit.hits <= 6                  # 2 of 300 shufflings as good
    assert best_start(fit.starts) == COUNT_START
    assert sum(move_from_count(p) == o for p, o in points) == 11
    line = first_move_lines(points, shuffles=20)[0]
    assert line.startswith("level 4, 14 first draws that are a MOVE, read by the count")
    assert "11 right at the best starts" in line and "9 of 14 right from the others" in line


@pytest.fixture(scope="module")
def level4():
    script, events = load_reference(str(DATA_CORPUS / "l4_p3_s20"))
    return script, events, resolve(script, events)


def test_the_count_model_draws_a_level_4_games_first_move_off_the_count(level4):
    script, events, truth = level4
    got = predict_resynced(script, events, Count(), truth)
    draws = [d for d in got.calls if not is_timing(d)]
    assert draws[0].name == "move" and draws[0].value == move_from_count(641) == "safe"
    assert got.kinds["move"][0] >= 1


def test_the_count_model_draws_every_later_draw_as_the_likeliest(level4):
    script, events, truth = level4
    count = [d for d in predict_resynced(script, events, Count(), truth).calls
             if not is_timing(d)]
    likeliest = [d for d in predict_resynced(script, events, Likeliest(), truth).calls
                 if not is_timing(d)]
    assert [d.value for d in count[1:]] == [d.value for d in likeliest[1:]]


def test_the_count_model_is_known_by_its_name():
    assert isinstance(model_named("count"), Count)
