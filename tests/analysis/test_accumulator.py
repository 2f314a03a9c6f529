"""analysis.accumulator (``towerlab draws --count``): the 16-bit count a MOVE's outcome reads,
stepped 0x2507 a key-loop pass and read through its top digit and bit 7 (docs/draws.md,
section 12).  Made-up sweeps show what each fit does; the two MOVE sweeps of tests/data
(every clone has them) give the document's figures."""
from __future__ import annotations

import io
import random
from pathlib import Path

import pytest

from analysis.accumulator import (CELLS, OUTCOMES, STEP, accumulator_lines, cell, half_predictions,
                                  joint_fit, outcomes_of, own_fit, predict_with, step_scan)
from analysis.draws import read_sweep
from cleanroom.count import COUNT_STEP, MOVE_PICTURES, MOVE_TABLE
from tests.analysis.sweep_runs import run_folders
from towerlab.cli import main

SWEEPS = Path(__file__).resolve().parents[1] / "data" / "sweeps"
NAMES = ("move_l1_p1_s101", "move_l2_p1_s102")


def made_up(table, start: int, scans=range(40), step: int = STEP) -> dict[int, str]:
    """A sweep the count makes: each scan's outcome the table's at its cell."""
    return {n: table[cell((start + step * n) % 65536)] for n in scans}


@pytest.fixture(scope="module")
def table():
    rng = random.Random(7)
    return [rng.choice(OUTCOMES) for _ in range(CELLS)]


@pytest.fixture(scope="module")
def sweeps():
    return {n: outcomes_of(read_sweep(str(SWEEPS / n))) for n in NAMES}


@pytest.fixture(scope="module")
def joint(sweeps):
    return joint_fit(list(sweeps.values()))


def test_the_cell_is_the_top_digit_and_bit_7():
    assert cell(0x0000) == 0 and cell(0x0080) == 1 and cell(0x1000) == 2
    assert cell(0xF0FF) == 31 and cell(0xF07F) == 30


def test_a_sweep_the_count_makes_fits_with_no_contradiction(table):
    fit = own_fit(made_up(table, 0x1234))
    assert fit.contradictions == 0


def test_two_sweeps_of_one_table_fit_one_table_each_at_its_own_start(table):
    a, b = made_up(table, 0x1234), made_up(table, 0xBEEF, range(60))
    fit = joint_fit([a, b])
    assert fit.contradictions == 0
    right, covered, _ = predict_with(fit.table, made_up(table, 0x4321))
    assert right == covered


def test_a_wrong_step_leaves_contradictions(table):
    a, b = made_up(table, 0x1234, range(78)), made_up(table, 0xBEEF, range(78))
    scan = step_scan([a, b], [STEP, STEP + 1])
    assert scan[STEP] == 0 and scan[STEP + 1] > 0


def test_a_half_is_predicted_from_the_start_its_other_half_fits(table):
    # 39 scans fix a start only up to a few counts: a scan of the other half at a cell's
    # edge may fall on the neighbouring cell
    sweeps = {"a": made_up(table, 0x1234, range(78)), "b": made_up(table, 0xBEEF, range(78))}
    got = half_predictions(sweeps)
    assert len(got) == 4 and all(right >= n - 1 for _, _, right, n in got)


def test_a_joint_fit_takes_one_or_two_sweeps():
    with pytest.raises(ValueError, match="expected one or two"):
        joint_fit([])
    with pytest.raises(ValueError, match="expected one or two"):
        joint_fit([{0: "none"}] * 3)


def test_each_move_sweep_alone_fits_all_but_5_of_its_78_scans(sweeps):
    assert [own_fit(o).contradictions for o in sweeps.values()] == [5, 5]


def test_the_two_move_sweeps_fit_one_table_but_for_15_of_156_scans(joint):
    assert joint.contradictions == 15 and joint.starts == (0xB222, 0x08E6)


def test_the_game_reads_the_table_the_two_sweeps_fit(joint):
    assert COUNT_STEP == STEP
    assert joint.table == tuple(MOVE_PICTURES[o] for o in MOVE_TABLE)


def test_each_sweep_is_predicted_from_the_others_table_and_its_halves_from_each_other(sweeps):
    lines = accumulator_lines(sweeps)
    assert "  one table for all: 15 of 156 scans contradict it (starts 0xb222, 0x08e6)" in lines
    assert ("  move_l1_p1_s101 from the others' table: 63 of 78 right (relabelled outcomes: at "
            "most 38)") in lines
    assert ("  move_l2_p1_s102 from the others' table: 62 of 78 right (relabelled outcomes: at "
            "most 43)") in lines
    halves = [int(line.split(": ")[1].split()[0]) for line in lines if " half " in line]
    assert halves == [32, 23, 28, 30]


def test_towerlab_draws_count_prints_the_fits():
    out = io.StringIO()
    assert main(["draws", "--count", str(SWEEPS / NAMES[0]), str(SWEEPS / NAMES[1])], out) == 0
    text = out.getvalue()
    assert text.startswith("the count (16 bits, 9479 = 0x2507 a pass; top digit and bit 7):")
    assert "one table for all: 15 of 156" in text


@pytest.mark.parametrize("names, says", [
    (NAMES + NAMES[:1], "3 sweeps given (expected one or two MOVE sweeps)"),
    (NAMES[:1] * 2, "a second sweep named move_l1_p1_s101 (expected two different")])
def test_towerlab_draws_count_of_other_than_two_different_sweeps_is_one_line(capsys, names,
                                                                              says):
    assert main(["draws", "--count"] + [str(SWEEPS / n) for n in names], io.StringIO()) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0]


def test_recording_folders_of_single_runs_are_read_as_one_sweep(tmp_path):
    # a request's single games come back one recording folder each (the swept key the last
    # press): --count reads them together, and places them with the game's table
    folders = run_folders(SWEEPS / NAMES[1], tmp_path, 40)
    out = io.StringIO()
    assert main(["draws", "--count"] + folders, out) == 0
    lines = out.getvalue().splitlines()
    assert sum(" alone: " in line for line in lines) == 1
    assert lines[-1].startswith("  with the table the game reads (cleanroom.count): ")
