"""cleanroom.phase (``towerlab draws --first``, the phase lines of ``--setup``): a quantity that
turns 27/64 of its range at each key-loop pass, read by the set-ups and by a level-4 game's
first draw (docs/draws.md, section 11).

The level-4 sessions of tests/data/corpus stand on their own; where the lab's corpus sits
beside the checkout (tests/corpus.py) its development sessions are read too (never the
held-out ones)."""
from __future__ import annotations

import io
from fractions import Fraction

import analysis.draws
from cleanroom.phase import (MOVE_ORDER, PHASE_STEP, PHASE_TURN, first_draw_report, order_misfits,
                             phase, read_first_draw, roughness, setup_phase_lines,
                             step_smoothness)
from cleanroom.reference import load_reference
from cleanroom.start_state import read_setup
from tests.cleanroom.corpus_split import DEVELOPMENT
from tests.corpus import DATA_CORPUS, genuine_corpus
from towerlab.cli import main


def first(name: str, folder=DATA_CORPUS):
    script, events = load_reference(str(folder / name))
    return read_first_draw(script, events, name)


def test_the_phase_turns_27_64ths_a_pass_and_comes_round_after_64():
    assert [phase(n) for n in range(4)] == [0, 27, 54, 17]
    assert phase(64) == phase(0) and phase(7) == 61      # seven passes: 3/64 short of a turn


def test_analysis_and_the_game_read_the_same_phase():
    assert (analysis.draws.PHASE_STEP, analysis.draws.PHASE_TURN) == (PHASE_STEP, PHASE_TURN)


def test_roughness_sums_the_steps_round_the_circle():
    # 10 -> 30 -> 20 -> back to 10: 20 + 10 + 10
    assert roughness([(2, "b", 30.0), (1, "a", 10.0), (3, "c", 20.0)]) == 40.0
    assert roughness([]) == 0.0


def test_values_that_follow_a_step_are_smoothest_at_that_step():
    # scattered passes, each value a tent function of the phase: smooth only in its order
    passes = [30 + i * 37 % 101 for i in range(16)]
    items = [(f"s{p}", p, abs((p * 27 % 64) - 32) * 10.0) for p in passes]
    at, least, (lo, hi), hits = step_smoothness(items, shuffles=50)
    assert lo <= Fraction(27, 64) <= hi and at == least
    assert hits == 0


def test_outcomes_in_the_circles_order_leave_no_misfit():
    points = [(0, "a", "plague"), (10, "b", "battle"), (20, "c", "safe"), (40, "d", "lost"),
              (60, "e", "dragon")]
    assert order_misfits(points) == 0
    # the same outcomes read the other way round the circle: only two keep the order
    backwards = [(64 - t, n, o) for t, n, o in points]
    assert order_misfits(backwards) == 3


def test_the_first_draw_of_a_level_4_game_and_the_passes_before_it():
    draw = first("l4_p3_s20")
    assert (draw.level, draw.name, draw.value, draw.passes, draw.phase) == \
        (4, "move", "safe", 641, 27)
    assert draw.setup_cycles is None and draw.phase_after_setup == 27
    assert first("l4_p1_s04").value == "battle" and first("l4_p1_s04").phase == 34
    assert first("l4_p2_s32").name == "tomb"


def test_a_game_at_levels_1_to_3_is_read_after_its_setups_hidden_draws():
    # the Dark Tower's brigands and the riddle are drawn at the set-up and shown only at the
    # Dark Tower: the first draw read is the next, with the set-up's time
    draw = first("l1_p3_s35")
    assert (draw.level, draw.name, draw.value, draw.passes, draw.phase) == \
        (1, "move", "battle", 428, 36)
    assert round(draw.setup_cycles / 6) == -153 and draw.phase_after_setup == 11


def test_the_first_moves_of_level_4_games_follow_the_circles_order():
    corpus = genuine_corpus()
    folders = ([corpus / n for n in DEVELOPMENT if n.startswith("l4")] if corpus is not None
               else sorted(DATA_CORPUS.glob("l4_*")))
    draws = [d for d in (first(f.name, f.parent) for f in folders) if d is not None]
    moves = [d for d in draws if d.name == "move"]
    misfits = order_misfits([(d.phase, d.session, d.value) for d in moves])
    if corpus is None:
        assert len(moves) == 3 and misfits <= 1
        return
    assert (len(draws), len(moves), misfits) == (25, 14, 2)
    report = first_draw_report(draws, shuffles=100)
    by_phase = [line for line in report if "by phase" in line]
    assert by_phase[-1].startswith("level 4, 14 first draws that are a MOVE, by phase: all but "
                                   "2 follow")
    assert f"the order {' '.join(MOVE_ORDER)}" in by_phase[-1]


def test_level_3_set_ups_are_smoothest_ordered_at_27_64ths_a_pass():
    corpus = genuine_corpus()
    if corpus is None:
        return          # tests/data holds too few level-3 set-ups to order (the lab's corpus)
    readings = [r for r in (read_setup(*load_reference(str(corpus / n)), n)
                            for n in sorted(DEVELOPMENT) if n.startswith("l3")) if r]
    group = [(r.session, r.passes, r.extra_cycles) for r in readings if len(r.level_loops) == 3]
    assert len(group) == 17
    at, least, (lo, hi), hits = step_smoothness(group, shuffles=300)
    assert (lo, hi) == (Fraction(27, 64), Fraction(19, 45))
    assert hits <= 10           # 7 of 300 shufflings as smooth at their own best step
    lines = setup_phase_lines(readings, shuffles=20)
    assert any(line.startswith("  level 3, 3 level-prompt loops (17): 6263 cycles; smoothest "
                               "at a step of 27/64-19/45 a pass") for line in lines)


def test_towerlab_draws_first_prints_each_games_first_draw():
    out = io.StringIO()
    assert main(["draws", "--first", str(DATA_CORPUS / "l4_p3_s20"),
                 str(DATA_CORPUS / "l1_p1_s01")], out) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("l1_p1_s01: level 1, warrior_price 5, 304 passes since the "
                               "tower test, phase 16, set-up +0 instructions")
    assert "l4_p3_s20: level 4, move safe, 641 passes since the tower test, phase 27" in lines


def test_towerlab_draws_first_and_setup_together_exit_2_with_one_line(capsys):
    assert main(["draws", "--first", "--setup", str(DATA_CORPUS)], io.StringIO()) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--setup, --first, --count, --after and --holdings" in err[0]
