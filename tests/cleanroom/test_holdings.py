"""cleanroom.holdings (``towerlab draws --holdings``): what the force in play holds at each
draw, read from a recording by the clean-room game's replay (docs/draws.md, section 13)."""
from __future__ import annotations

import io

import pytest

from cleanroom.conform import resolve
from cleanroom.holdings import holdings, read_holdings
from cleanroom.reference import load_reference
from tests.corpus import DATA_CORPUS
from towerlab.cli import main


def recording(name: str):
    """The script and events of a tests/data corpus session."""
    return load_reference(str(DATA_CORPUS / name))


@pytest.fixture(scope="module")
def solo():
    script, events = recording("l1_p1_s01")
    return script, events, read_holdings(script, events)


def test_each_move_notes_the_food_left_once_the_turns_ration_is_eaten(solo):
    _, _, held = solo
    moves = [(round(h.t, 2), h.value, h.warriors, h.food) for h in held if h.name == "move"]
    # l1_p1_s01: 25 food at the start, one eaten a turn; its first MOVE at its third turn
    assert moves[:3] == [(37.08, "safe", 10, 22), (49.83, "safe", 10, 21),
                         (66.98, "plague", 10, 19)]


def test_a_force_of_16_to_30_warriors_eats_two_rations():
    script, events = recording("l4_p3_s20")
    move = next(h for h in read_holdings(script, events) if h.name == "move" and h.t > 72)
    assert (move.player, move.warriors, move.food, move.rations) == (2, 20, 22, 2)


def test_the_replay_takes_the_values_it_is_given(solo):
    script, events, held = solo
    decisions = resolve(script, events).decisions
    values = [d.value for d in decisions]
    again = holdings(script, values, until=70.0)
    assert again == [h for h in held if h.t < 70.0]
    # a made-up first MOVE: the replay notes the value it was given
    i = next(i for i, d in enumerate(decisions) if d.name == "move")
    moved = holdings(script, values[:i] + ["lost"], until=40.0)
    assert [h.value for h in moved if h.name == "move"] == ["lost"]


def test_towerlab_draws_holdings_times_the_bazaar_by_the_digits():
    out = io.StringIO()
    assert main(["draws", "--holdings", str(DATA_CORPUS / "l1_p1_s01"),
                 str(DATA_CORPUS / "l4_p3_s20")], out) == 0
    text = out.getvalue()
    # l1_p1_s01: 916, 915 (16 food left) and 914 (7 food, 6 warriors); l4_p3_s20's first
    assert "BAZAAR, a force of one ration, to the first tone: 4; 916 instructions less the " \
           "digit terms at 4 of 4" in text
    # the frontier's tone, and an inventory's two first outputs, each its own base
    assert "FRONTIER, a force of one ration, to the first tone: 1; 888" in text
    assert "INVENTORY, a force of one ration, to the first lamp: 2; 887" in text
    assert "BAZAAR, larger forces" in text


def test_towerlab_draws_holdings_refuses_a_second_reading_switch(capsys):
    assert main(["draws", "--holdings", "--setup", str(DATA_CORPUS / "l1_p1_s01")],
                io.StringIO()) == 2
    assert "expected one of them" in capsys.readouterr().err


def test_towerlab_draws_holdings_of_a_recording_without_its_script_is_one_line(tmp_path, capsys):
    (tmp_path / "events.jsonl").write_text(
        (DATA_CORPUS / "l1_p1_s01" / "events.jsonl").read_text(encoding="utf-8"),
        encoding="utf-8")
    assert main(["draws", "--holdings", str(tmp_path)], io.StringIO()) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no script.txt" in err[0]


def test_towerlab_draws_holdings_on_two_processes_prints_what_one_does():
    folders = [str(DATA_CORPUS / "l1_p1_s01"), str(DATA_CORPUS / "l4_p3_s20")]
    one, two = io.StringIO(), io.StringIO()
    assert main(["draws", "--holdings"] + folders, one) == 0
    assert main(["draws", "--holdings", "--jobs", "2"] + folders, two) == 0
    assert two.getvalue() == one.getvalue()


def test_towerlab_draws_holdings_with_no_process_is_one_line(capsys):
    assert main(["draws", "--holdings", "--jobs", "0", str(DATA_CORPUS / "l1_p1_s01")],
                io.StringIO()) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--jobs 0: expected a number of processes >= 1" in err[0]
