"""Statistics read from what a tower showed: each random outcome is read back as it was shown
(genuine corpus sessions and clean-room recordings with known decisions), intervals are the
stated ones, and every chosen value of cleanroom.params lies in its corpus interval."""
from __future__ import annotations

from pathlib import Path

import pytest

from captures.events import read_events
from captures.script import parse_script
from captures.tower import run_script
from cleanroom.game import ScriptedChooser
from cleanroom.params import EVIDENCE, _EVIDENCE_ROWS
from cleanroom.stats import (StatsError, estimate_all, observe, observe_folder, range_interval,
                             replace_evidence, rows_data, wilson)
from cleanroom.tower import CleanroomTower

CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus"
SESSIONS = sorted(p.name for p in CORPUS.iterdir() if (p / "events.jsonl").exists())


@pytest.fixture(scope="module")
def corpus_observations():
    out = []
    for name in SESSIONS:
        out.extend(observe_folder(str(CORPUS / name)))
    return out


@pytest.fixture(scope="module")
def s05():
    return observe(read_events(str(CORPUS / "l1_p2_s05" / "events.jsonl")), "l1_p2_s05")


def _at(observations, quantity, t, within=1.0):
    return [o for o in observations if o.quantity == quantity and abs(o.t - t) <= within]


# ---- intervals ------------------------------------------------------------------------------
def test_wilson_interval_of_no_successes_starts_at_exactly_zero():
    lo, hi = wilson(0, 27)
    assert lo == 0.0 and 0.1 < hi < 0.15


def test_wilson_interval_of_all_successes_ends_at_exactly_one():
    assert wilson(27, 27)[1] == 1.0


def test_a_range_seen_in_few_draws_may_reach_far_beyond_them():
    low, lo, hi, high = range_interval([20, 24])
    assert (lo, hi) == (20, 24) and low < 17 and high > 27


def test_a_range_seen_in_many_draws_may_not_reach_beyond_them():
    values = [5, 6, 7, 8] * 23
    assert range_interval(values) == (5, 5, 8, 8)


def test_a_continuous_range_widens_by_the_draws_chance_of_missing_its_ends():
    low, lo, hi, high = range_interval([0.5, 1.5] * 50)
    assert lo == 0.5 and hi == 1.5 and 0.45 < low < 0.5 and 1.5 < high < 1.55


# ---- read from the genuine corpus (l1_p2_s05, timeline read by eye) ---------------------------
def test_the_level_and_every_move_of_a_genuine_session_are_read(s05):
    moves = [o for o in s05 if o.quantity == "move"]
    assert all(o.situation == "level 1" for o in moves)
    assert _at(s05, "move", 79.55)[0].value == "plague"
    assert _at(s05, "move", 92.08)[0].value == "safe"
    assert _at(s05, "move", 134.27)[0].value == "battle"
    assert _at(s05, "move", 170.08)[0].value == "dragon"
    assert _at(s05, "move", 183.77)[0].value == "lost"


def test_a_tomb_battle_gives_its_brigands_skirmishes_and_gold(s05):
    (tomb,) = _at(s05, "tomb", 32.65)
    assert tomb.value == "battle"
    (spread,) = _at(s05, "brigands_minus_warriors", 39.75)
    assert spread.value == 0                                   # 10 brigands, 10 warriors
    skirmishes = [o for o in s05 if o.quantity == "skirmish" and 40 < o.t < 60]
    assert [o.value for o in skirmishes] == [True] * 4
    assert skirmishes[0].chance == pytest.approx(1 / 1.64)     # 10^2 / (10^2 + 8^2)
    assert _at(s05, "battle_gold", 62.1)[0].value == 16        # 30 -> 46


def test_gold_at_what_the_warriors_can_carry_is_not_counted_as_found(s05):
    # player 2 has 8 warriors (48 bags at most): the tomb's gold shows 48, cut
    assert not _at(s05, "tomb_gold", 101.25)
    assert _at(s05, "tomb_treasure", 101.25)[0].value is True     # it starts with GOLD


def test_a_dragon_reads_the_totals_before_and_after(s05):
    assert _at(s05, "dragon_warriors", 170.86)[0].value == (8, 6)
    assert _at(s05, "dragon_gold", 170.86)[0].value == (48, 36)


def test_bazaar_prices_and_a_successful_haggle_are_read(s05):
    assert _at(s05, "warrior_price", 229.69)[0].value == 7
    assert _at(s05, "food_price", 237.32)[0].value == 1
    assert _at(s05, "haggle", 233.78)[0].value is True
    assert _at(s05, "haggle_step", 233.78)[0].value == 1


def test_a_wizard_after_a_won_battle_is_its_treasure(s05):
    (wizard,) = _at(s05, "treasure", 283.8)
    assert wizard.value == "wizard" and 0 < wizard.chance["wizard"] < 1


def test_a_failed_haggle_is_read_from_bazaar_closed():
    obs = observe(read_events(str(CORPUS / "l1_p1_s01" / "events.jsonl")))
    haggles = [o.value for o in obs if o.quantity == "haggle"]
    assert False in haggles


def test_the_citadel_doubles_the_warriors_at_level_4(corpus_observations):
    doubles = [o for o in corpus_observations if o.quantity == "citadel_double"]
    assert doubles and all(o.value for o in doubles)
    assert all(o.source.startswith("l4_") for o in doubles)


def test_a_battle_in_the_dark_tower_counts_its_brigands_apart(corpus_observations):
    tower = [o for o in corpus_observations if o.quantity == "tower_brigands"]
    assert tower and all(o.value == 16 for o in tower if o.situation == "level 4")


# ---- read back what the clean-room game decided ----------------------------------------------
def _game_recording(outcomes: dict, keys: list[str]):
    lines = ["1 YES/BUY 0.2", "12.5 YES/BUY 0.2", "14.5 YES/BUY 0.2"]
    t = 20.0
    for key in keys:
        lines.append(f"{t:g} {key} 0.2")
        lines.append(f"{t + 30:g} NO/END 0.2")
        t += 34
    script = parse_script("\n".join(lines) + f"\n# run length: {t:g} s\n")
    return run_script(CleanroomTower(chooser=ScriptedChooser(outcomes)), script)


def test_a_battle_the_game_decided_is_read_back():
    events = _game_recording({"move": ["battle"], "brigands": [8],
                              "skirmish": [False, True, True, True, True],
                              "battle_gold": [15], "treasure": ["none"]}, ["MOVE"])
    obs = observe(events)
    assert [o.value for o in obs if o.quantity == "move"] == ["battle"]
    assert [o.value for o in obs if o.quantity == "brigands_minus_warriors"] == [-2]
    skirmishes = [o for o in obs if o.quantity == "skirmish"]
    assert [o.value for o in skirmishes] == [False, True, True, True, True]
    assert skirmishes[0].chance == pytest.approx(100 / (100 + 0.64 * 64))
    assert [o.value for o in obs if o.quantity == "battle_gold"] == [15]
    assert [o.value for o in obs if o.quantity == "treasure"] == ["none"]


def test_a_deserted_tomb_the_game_decided_is_read_back():
    events = _game_recording({"tomb": ["deserted"]}, ["TOMB/RUIN"])
    assert [o.value for o in observe(events) if o.quantity == "tomb"] == ["deserted"]


def test_a_recording_without_the_level_selection_gives_no_observations():
    events = _game_recording({"move": ["lost"]}, ["MOVE"])
    assert observe([e for e in events if e["t"] > 18]) == []


# ---- estimates and the parameter table -------------------------------------------------------
def test_the_stored_evidence_is_what_the_corpus_gives(corpus_observations):
    """Regenerate with: towerlab conform --stats tests/data/corpus --write-evidence
    cleanroom/params.py"""
    assert rows_data(estimate_all(corpus_observations)) == [tuple(r) for r in _EVIDENCE_ROWS]


def _checked_rows():
    obs = []
    for name in SESSIONS:
        obs.extend(observe_folder(str(CORPUS / name)))
    return [r for r in estimate_all(obs) if r.ok is not None]


CHECKED = _checked_rows()


@pytest.mark.parametrize("row", CHECKED, ids=[f"{r.param}:{r.quantity}:{r.situation}:{r.outcome}"
                                              for r in CHECKED])
def test_chosen_value_lies_in_its_corpus_interval(row):
    assert row.ok, row.describe()


def test_every_chosen_random_parameter_has_corpus_evidence():
    have = {e.param for e in EVIDENCE}
    for name in ("move_odds", "tomb_odds", "haggle_success", "warrior_price",
                 "brigands_spread", "skirmish_win", "battle_gold", "treasure_odds",
                 "dragon_share", "sanctuary_bonus", "tower_brigands"):
        assert name in have, name


def test_a_share_outside_its_interval_is_flagged():
    from cleanroom.stats import Observation

    obs = [Observation("haggle", "all levels", True, "x", 0.0) for _ in range(30)]
    (row,) = estimate_all(obs)
    assert row.param == "haggle_success" and row.ok is False


def test_a_price_outside_the_chosen_range_is_flagged():
    from cleanroom.stats import Observation

    obs = [Observation("warrior_price", "all levels", v, "x", 0.0) for v in (5, 6, 12)]
    (row,) = estimate_all(obs)
    assert row.ok is False and row.hi_seen == 12


def test_a_chosen_range_much_wider_than_many_draws_is_flagged():
    from cleanroom.stats import Observation

    obs = [Observation("warrior_price", "all levels", v, "x", 0.0) for v in [6, 7] * 40]
    (row,) = estimate_all(obs)
    assert row.ok is False          # (5, 8) chosen; 80 draws never showed 5 or 8


def test_replacing_the_evidence_needs_the_block_markers():
    with pytest.raises(StatsError, match="no '# BEGIN EVIDENCE'"):
        replace_evidence("x = 1\n", [], "p.py")


def test_replacing_the_evidence_keeps_the_rest_of_the_file():
    text = "a = 1\n# BEGIN EVIDENCE (x)\n_EVIDENCE_ROWS = []\n# END EVIDENCE\nb = 2\n"
    new = replace_evidence(text, [])
    assert new.startswith("a = 1\n# BEGIN EVIDENCE (x)\n") and new.endswith(
        "# END EVIDENCE\nb = 2\n")


def test_a_folder_without_events_is_one_line_naming_it(tmp_path):
    with pytest.raises(StatsError, match="no events.jsonl"):
        observe_folder(str(tmp_path))


def test_the_docs_estimates_table_is_what_the_corpus_gives(corpus_observations):
    """Regenerate with: towerlab conform --stats tests/data/corpus --markdown (below the
    '## Estimates' paragraph of docs/corpus-statistics.md, without the first line)."""
    from cleanroom.stats import rows_markdown

    doc = (Path(__file__).resolve().parents[2] / "docs" / "corpus-statistics.md").read_text()
    table = "| parameter |" + doc.split("\n| parameter |", 1)[1]
    assert table == rows_markdown(estimate_all(corpus_observations))
