"""What the count model predicts of the requests' level-4 first MOVEs, written before the lab
records them (`towerlab requests predict`, experiments/predictions/), and the recordings
scored against it (`towerlab requests score`).  The recordings here are played by clean-room
towers whose first MOVE follows the count, or does not, so the score is known."""
from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest

from captures.events import write_events
from captures.script import read_script
from cleanroom.predict import Count, Likeliest, play
from rig.requests import RequestError, read_predictions
from towerlab.cli import main

ROOT = Path(__file__).resolve().parents[2]
REQUESTS = ROOT / "experiments" / "requests"
PREDICTIONS = ROOT / "experiments" / "predictions" / "count_first_moves.tsv"


class AlwaysLost(Likeliest):
    """A tower whose every MOVE is lost."""

    def draw(self, name, options, weights, t, tower):
        if name == "move" and "lost" in options:
            return "lost"
        return super().draw(name, options, weights, t, tower)


def _run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


def _record(tmp_path: Path, names: list[str], model) -> Path:
    """Play each request on a clean-room tower drawing with ``model``; one folder each, as
    the lab returns them."""
    exp = tmp_path / "exp"
    for name in names:
        script = read_script(str(REQUESTS / f"{name}.txt"))
        events, _ = play(script, model, script.end_time())
        (exp / name).mkdir(parents=True)
        shutil.copy(REQUESTS / f"{name}.txt", exp / name / "script.txt")
        with open(exp / name / "events.jsonl", "w", encoding="utf-8") as f:
            write_events(events, f)
    return exp


def test_predict_gives_a_level4_games_first_move_with_its_passes():
    code, text = _run("requests", "predict", "l4_second_move_k00")
    rows = [line.split("\t") for line in text.splitlines() if not line.startswith("#")]
    assert code == 0 and rows == [
        ["request", "game", "move_take_s", "passes_since_tower_test", "predicted"],
        ["l4_second_move_k00", "0", rows[1][2], "352", "safe"]]


def test_the_committed_predictions_are_what_the_count_model_says_now(tmp_path):
    # written before the recordings: a change of the model writes them again
    # (towerlab requests predict -o experiments/predictions/count_first_moves.tsv)
    fresh = tmp_path / "p.tsv"
    assert _run("requests", "predict", "-o", str(fresh))[0] == 0
    assert fresh.read_text(encoding="utf-8") == PREDICTIONS.read_text(encoding="utf-8")


def test_each_game_of_a_sweep_of_games_is_predicted_for_its_own_power_on():
    games = [p.game for p in read_predictions(PREDICTIONS)
             if p.request == "l4_first_move_turns"]
    assert games == list(range(130))


def test_a_tower_whose_first_moves_follow_the_count_bears_out_every_prediction(tmp_path):
    exp = _record(tmp_path, ["l4_first_move_turns", "l4_second_move_k00"], Count())
    code, text = _run("requests", "score", str(exp))
    lines = text.splitlines()
    assert code == 0
    assert lines[0].startswith("l4_first_move_turns: 130 of 130 as predicted (shown: safe ")
    assert lines[1] == ("l4_second_move: 1 of 1 as predicted (shown: safe 1); 47 not read "
                        "(not recorded)")
    assert lines[-1].startswith("first MOVEs predicted by the count: 131 of 131 (the "
                                "commonest shown, safe, ")
    unread = len(read_predictions(PREDICTIONS)) - 131
    assert lines[-1].endswith(f"; {unread} predicted games not recorded or not read")


def test_a_tower_that_draws_otherwise_bears_out_only_what_it_shares(tmp_path):
    exp = _record(tmp_path, ["l4_first_move_turns"], AlwaysLost())
    predicted = [p.predicted for p in read_predictions(PREDICTIONS)
                 if p.request == "l4_first_move_turns"]
    code, text = _run("requests", "score", str(exp))
    assert text.splitlines()[0] == (f"l4_first_move_turns: {predicted.count('lost')} of 130 "
                                    f"as predicted (shown: lost 130)")


def test_score_each_names_every_game_and_what_it_showed(tmp_path):
    exp = _record(tmp_path, ["l4_second_move_k01"], Count())
    code, text = _run("requests", "score", str(exp), "--each")
    assert "l4_after_safe_p336_k00  game 0  336 passes  predicted safe  shown -  not " \
        "recorded" in text.splitlines()
    assert "l4_second_move_k01  game 0  352 passes  predicted safe  shown safe" in text


def test_a_malformed_predictions_line_is_one_line_naming_file_and_line(tmp_path):
    bad = tmp_path / "p.tsv"
    bad.write_text("# made by hand\nl4_x\t0\t1.0\t336\tsometimes\n", encoding="utf-8")
    with pytest.raises(RequestError, match=r"p\.tsv:2: expected 5 tab-separated columns"):
        read_predictions(bad)


def test_score_of_a_folder_that_is_not_there_is_one_line(tmp_path, capsys):
    code, _ = _run("requests", "score", str(tmp_path / "none"))
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "not a folder of recordings" in err[0]
