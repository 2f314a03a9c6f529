"""The game with a draw model instead of the resolver (cleanroom/predict.py; towerlab conform
--no-resolve): how a model's replay is made, compared and scored against the resolver's draws."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from cleanroom.conform import ConformError, load_reference, resolve
from cleanroom.decisions import Decision, Start, is_timing, ranked
from cleanroom.predict import (RESYNC_NOTE, DrawModel, Likeliest, model_named, predict,
                               predict_resynced, score)
from cleanroom.snapshots import PowerOnReplayer
from towerlab.cli import main

DATA = Path(__file__).resolve().parents[1] / "data"
BAZAAR = DATA / "captures" / "level4_bazaar"        # 7 draws the recording shows


class Told(DrawModel):
    """A test model: the values a list gives, in order (``wrong``: this index takes
    another allowed option instead, and every later draw its first option: the game's flow
    may go another way after it)."""

    name = "told"
    description = "the values it is told"

    def __init__(self, values, wrong=None):
        self.values, self.wrong, self.n = list(values), wrong, 0

    def draw(self, name, options, weights, t, tower):
        i, self.n = self.n, self.n + 1
        value = self.values[i] if i < len(self.values) else options[0]
        if self.wrong is not None and i > self.wrong:
            return options[0]
        if i == self.wrong:
            value = next(o for o in options if o != value)
        return value


@pytest.fixture(scope="module")
def bazaar():
    script, events = load_reference(str(BAZAAR))
    return script, events, resolve(script, events)


def test_the_likeliest_model_plays_as_the_resolver_with_nothing_forced(bazaar):
    script, events, truth = bazaar
    got = predict(script, events, Likeliest(), truth)
    end = max(e["t"] for e in events)
    ref = PowerOnReplayer(script, Start(1.0)).run([], max(end, script.end_time()))
    assert [(d.name, d.value) for d in got.calls] == [(d.name, d.value) for d in ref.calls]


def test_a_model_drawing_what_the_recording_shows_conforms_and_predicts_every_draw(bazaar):
    script, events, truth = bazaar
    assert truth.conforms
    got = predict(script, events, Told([d.value for d in truth.decisions]), truth)
    assert got.result.conforms
    shown = [d for d in truth.decisions if d.revealed and not is_timing(d)]
    assert got.drawn == len(shown) == 7
    assert got.predicted == got.drawn
    assert got.line().startswith("draws predicted: 7 of 7 (")


def test_a_wrong_draw_ends_the_count_at_the_first_difference(bazaar):
    script, events, truth = bazaar
    draws = [i for i, d in enumerate(truth.decisions) if d.revealed and not is_timing(d)]
    wrong = draws[3]
    got = predict(script, events, Told([d.value for d in truth.decisions], wrong=wrong), truth)
    assert not got.result.conforms
    before = [i for i in draws if truth.decisions[i].t < got.result.diff_time and i != wrong]
    assert before == draws[:3]          # the wrong haggle shows at once
    assert got.predicted == 3 and got.drawn == 7
    assert "none counted after the first difference" in got.line()


def test_a_resynchronised_model_predicts_each_draw_while_the_game_follows_the_recording(
        bazaar):
    script, events, truth = bazaar
    got = predict_resynced(script, events, Likeliest(), truth)
    assert got.result.conforms          # the game plays the resolver's draws
    shown = [d for d in truth.decisions if d.revealed and not is_timing(d)]
    likeliest = [d for d in shown if d.value == ranked(d.options, d.weights)[0]]
    assert got.drawn == 7 and got.predicted == len(likeliest) == 5
    assert got.line() == ("draws predicted: 5 of 7 (haggle 4 of 5, warrior_price 1 of 2); "
                          + RESYNC_NOTE)


def test_a_wrong_draw_does_not_end_a_resynchronised_count(bazaar):
    script, events, truth = bazaar
    values = [d.value for d in truth.decisions]
    draws = [i for i, d in enumerate(truth.decisions) if d.revealed and not is_timing(d)]
    wrong = draws[3]
    values[wrong] = next(o for o in truth.decisions[wrong].options if o != values[wrong])
    got = predict_resynced(script, events, Told(values), truth)
    assert got.result.conforms and (got.predicted, got.drawn) == (6, 7)


def test_the_resolver_s_draws_after_its_own_difference_are_not_counted():
    truth = [Decision(1.0, "move", ["a", "b"], "a", True),
             Decision(2.0, "move", ["a", "b"], "b", True),
             Decision(3.0, "move", ["a", "b"], "a", True)]
    assert score(truth, truth, float("inf"), 2.5) == {"move": [2, 2]}


def test_durations_and_draws_the_recording_never_shows_are_not_counted():
    truth = [Decision(1.0, "move", ["a", "b"], "a", True),
             Decision(1.5, "turn_think_cycles", [1, 2], 2, True),
             Decision(2.0, "haggle", [True, False], True, False)]
    assert score(truth, truth, float("inf"), float("inf")) == {"move": [1, 1]}


def test_a_draw_taken_elsewhere_is_not_predicted():
    truth = [Decision(1.0, "move", ["a", "b"], "a", True)]
    moved = [Decision(1.1, "move", ["a", "b"], "a", False)]
    assert score(moved, truth, float("inf"), float("inf")) == {"move": [0, 1]}


def test_a_model_value_the_rules_do_not_allow_is_one_clear_error(bazaar):
    script, events, truth = bazaar
    with pytest.raises(ConformError, match=r"draw model 'told': 'nonsense' for \w+ at "
                                           r"[\d.]+ s is not one of the options"):
        predict(script, events, Told(["nonsense"]), truth)


def test_an_unknown_model_name_is_one_clear_error():
    with pytest.raises(ConformError,
                       match="draw model 'oracle': expected one of count, likeliest"):
        model_named("oracle")


def run(*argv):
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


def test_conform_no_resolve_says_its_mode_and_ends_with_the_draws_predicted():
    code, text = run("conform", "--no-resolve", "--no-witnesses", "--reference", str(BAZAAR))
    lines = text.splitlines()
    assert code == 1                    # the likeliest draws are not this recording's
    assert lines[0].startswith("mode: draws made by the draw model 'likeliest'")
    assert "first difference at" in text
    assert lines[-1] == (f"{BAZAAR}: draws predicted: 0 of 7 (haggle 0 of 5, warrior_price "
                         f"0 of 2); none counted after the first difference at 29.067 s")


def test_conform_says_when_it_resolves_the_draws():
    code, text = run("conform", "--no-witnesses", "--reference", str(BAZAAR))
    assert code == 0
    assert text.splitlines()[0] == "mode: draws resolved from the recording (the resolver)"


def test_conform_no_resolve_over_many_sessions_totals_the_draws_by_kind():
    folders = [str(DATA / "captures" / n) for n in ("level4_bazaar", "level_select")]
    code, text = run("conform", "--no-resolve", "--no-witnesses", "--reference", *folders)
    (total,) = [x for x in text.splitlines() if x.startswith("total:")]
    assert total.endswith("draws predicted: 0 of 7 (0.0 %): haggle 0 of 5, warrior_price 0 of 2")


def test_rig_check_no_resolve_on_the_cleanroom_target_ends_with_the_draws_predicted():
    code, text = run("rig", "check", "--target", "cleanroom", "--no-resolve", str(BAZAAR))
    assert code == 1
    assert text.splitlines()[-1].startswith("draws predicted: 0 of 7 (haggle 0 of 5")


def test_conform_resync_says_its_mode_and_counts_every_draw():
    code, text = run("conform", "--no-resolve", "--resync", "--no-witnesses", "--reference",
                     str(BAZAAR))
    lines = text.splitlines()
    assert code == 0                    # the game followed the recording
    assert lines[0].startswith("mode: each draw predicted by the draw model 'likeliest'")
    assert lines[-1] == (f"{BAZAAR}: draws predicted: 5 of 7 (haggle 4 of 5, warrior_price "
                         f"1 of 2); {RESYNC_NOTE}")


def test_resync_without_no_resolve_is_one_clear_error(capsys):
    for argv in (("conform", "--resync", "--reference", str(BAZAAR)),
                 ("rig", "check", "--target", "cleanroom", "--resync", str(BAZAAR))):
        code, text = run(*argv)
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and text == "" and len(err) == 1
        assert "--resync: expected --no-resolve too" in err[0]


def test_rig_check_resync_ends_with_the_draws_predicted():
    code, text = run("rig", "check", "--target", "cleanroom", "--no-resolve", "--resync",
                     str(BAZAAR))
    assert code == 0
    assert text.splitlines()[-1].endswith(RESYNC_NOTE)


def test_rig_check_no_resolve_on_another_target_is_one_clear_error(capsys):
    code, _ = run("rig", "check", "--target", "emu", "--no-resolve", str(BAZAAR))
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert "--no-resolve applies to the cleanroom target" in err[0]


def test_conform_with_an_unknown_draw_model_is_one_line_naming_it(capsys):
    code, text = run("conform", "--no-resolve", "--draw-model", "oracle", "--reference",
                     str(BAZAAR))
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and text == "" and len(err) == 1
    assert "draw model 'oracle': expected one of count, likeliest" in err[0]


@pytest.mark.parametrize("argv", [
    ("conform", "--draw-model", "count", "--reference", str(BAZAAR)),
    ("rig", "check", "--target", "cleanroom", "--draw-model", "count", str(BAZAAR)),
])
def test_a_draw_model_without_no_resolve_is_refused_not_ignored(argv, capsys):
    code, text = run(*argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and text == "" and len(err) == 1
    assert "--draw-model count: expected --no-resolve too" in err[0]


def test_an_unknown_draw_model_without_no_resolve_is_named(capsys):
    code, _ = run("conform", "--draw-model", "oracle", "--reference", str(BAZAAR))
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and "draw model 'oracle': expected one of count, likeliest" in err[0]


def test_conform_no_resolve_on_two_processes_prints_what_one_process_prints():
    folders = [str(DATA / "captures" / n) for n in ("level4_bazaar", "level_select")]
    one = run("conform", "--no-resolve", "--no-witnesses", "--reference", *folders)
    two = run("conform", "--no-resolve", "--no-witnesses", "--jobs", "2", "--reference", *folders)
    assert one == two and one[0] == 1
