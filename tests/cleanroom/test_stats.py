"""Statistics read from what a tower showed: each random outcome is read back as it was shown
(genuine corpus sessions and clean-room recordings with known decisions), intervals are the
stated ones, and every chosen value of cleanroom.params lies in its corpus interval.

The estimates are computed over the development sessions (corpus_split.development_folders):
the 112 of the genuine corpus where this machine has it (tests/corpus.py; CI does), where the
stored evidence and the docs' table must be exactly what they give; else the repository's
sample of 30, where the chosen values must lie in the sample's intervals too and the stored
evidence must contain what the sample shows.  A held-out session is never read.
"""
from __future__ import annotations

import functools
from pathlib import Path

import pytest

from captures.events import read_events
from captures.script import parse_script
from captures.tower import run_script
from cleanroom.game import ScriptedChooser
from cleanroom.evidence import _EVIDENCE_ROWS, EVIDENCE, EVIDENCE_COMMAND
from cleanroom.stats import (StatsError, estimate_all, force_class, observe, observe_folder,
                             range_interval, replace_evidence, rows_data, rows_markdown, wilson)
from cleanroom.tower import CleanroomTower

from ..corpus import DATA_CORPUS, genuine_corpus
from .corpus_split import DEVELOPMENT, development_folders

FOLDERS = development_folders()
GENUINE = genuine_corpus()
FULL = GENUINE is not None              # the 112 development sessions, not the sample
NEEDS_FULL = pytest.mark.skipif(not FULL, reason="needs the genuine corpus's development "
                                "sessions: TOWERLAB_CORPUS naming the corpus folder, or the "
                                "lab's recordings beside the checkout (tests/corpus.py)")
DOC = Path(__file__).resolve().parents[2] / "docs" / "corpus-statistics.md"


@functools.cache
def _observations() -> tuple:
    out = []
    for folder in FOLDERS:
        out.extend(observe_folder(str(folder)))
    return tuple(out)


@functools.cache
def _rows() -> tuple:
    return tuple(estimate_all(_observations()))


@pytest.fixture(scope="module")
def corpus_observations():
    return list(_observations())


def _session(name: str) -> list:
    """Return the observations of development session ``name`` (the sample's copy, else the
    genuine corpus's)."""
    assert name in DEVELOPMENT, f"{name} is not a development session"
    folder = DATA_CORPUS / name
    if not folder.is_dir() and GENUINE is not None:
        folder = GENUINE / name
    return observe(read_events(str(folder / "events.jsonl")), name)


@pytest.fixture(scope="module")
def s05():
    return _session("l1_p2_s05")


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
    assert skirmishes[0].chance == pytest.approx(0.625)        # even forces (skirmish_win)
    assert skirmishes[0].situation == "b <= w < 2b"
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
    haggles = [o.value for o in _session("l1_p1_s01") if o.quantity == "haggle"]
    assert False in haggles


def test_food_bought_leaves_the_warriors_known():
    # l2_p1_s26: two rations bought at 55.2 s (GOLD 30 -> 28); the dragon at 72.4 s takes a
    # quarter of the 10 warriors the player still has
    assert _at(_session("l2_p1_s26"), "dragon_warriors", 72.442)[0].value == (10, 8)


def test_warriors_bought_by_count_join_the_force():
    # l2_p3_s10: NO/END on '02' at 39.75 s buys two at 5 bags (GOLD 30 -> 20): 12 warriors
    # when the dragon attacks at 129.8 s
    assert _at(_session("l2_p3_s10"), "dragon_warriors", 129.79)[0].value == (12, 10)


def test_a_count_the_gold_does_not_pay_for_buys_nothing():
    # l3_p3_s19: player 3 (23 bags) asks for a third warrior at 8 bags at 206.6 s and the
    # bazaar closes; the dragon at 232.1 s finds the 8 warriors it had
    assert _at(_session("l3_p3_s19"), "dragon_warriors", 232.066)[0].value == (8, 6)


def test_a_multi_player_force_of_two_loses_its_last_stand():
    # l1_p3_s09: 2 warriors against 11 brigands at 166.3 s, then the Death March
    obs = _session("l1_p3_s09")
    assert [o.value for o in _at(obs, "last_stand", 169.585)] == [False]
    assert not _at(obs, "skirmish", 169.585, within=0.1)


def test_skirmishes_are_counted_by_the_steps_of_the_force_ratio(s05):
    assert force_class(10, 10) == force_class(19, 10) == "b <= w < 2b"
    assert force_class(20, 10) == "2b <= w < 4b" and force_class(4, 10) == "w < b/2"
    assert {o.situation for o in s05 if o.quantity == "skirmish"} <= {
        "w < b/2", "b/2 <= w < b", "b <= w < 2b", "2b <= w < 4b", "w >= 4b"}


@NEEDS_FULL
def test_a_starving_warrior_is_taken_from_the_force_and_its_gold_cut():
    # l2_p1_s118: 7 warriors, 22 bags; six turns without food starve six (the Death March as
    # each action key is taken), 1 warrior carries 6 bags; the Sanctuary then gives 7 and 12
    obs = _session("l2_p1_s118")
    assert _at(obs, "sanctuary_warriors", 386.696)[0].value == 7
    assert _at(obs, "sanctuary_gold", 390.179)[0].value == 12


@NEEDS_FULL
def test_the_last_warrior_starving_ends_the_game_and_is_no_move():
    # l3_p1_s119 417.35: MOVE brings WARRIORS without a number, the Death March and 00
    obs = _session("l3_p1_s119")
    assert not _at(obs, "move", 417.35, within=0.1)
    assert _at(obs, "move", 410.233, within=0.1)[0].value == "safe"   # starved, then moved


@NEEDS_FULL
def test_a_battle_lost_at_its_first_skirmish_is_read_with_the_force_followed():
    # level1_two_players 259.5: 1 warrior against 1 brigand, the Death March 1.56 s after
    obs = _session("level1_two_players")
    assert _at(obs, "brigands_minus_warriors", 259.471)[0].value == 0
    assert [o.value for o in _at(obs, "last_stand", 262.626)] == [False]


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
    assert skirmishes[0].chance == pytest.approx(0.625)        # 10 against 8: b <= w < 2b
    assert [o.value for o in obs if o.quantity == "battle_gold"] == [15]
    assert [o.value for o in obs if o.quantity == "treasure"] == ["none"]


def test_a_deserted_tomb_the_game_decided_is_read_back():
    events = _game_recording({"tomb": ["deserted"]}, ["TOMB/RUIN"])
    assert [o.value for o in observe(events) if o.quantity == "tomb"] == ["deserted"]


def test_a_citadel_visit_with_four_warriors_is_read_as_the_sanctuarys_bonus():
    # level 4 (3 keys, 4 frontiers: SANCTUARY/CITADEL is the Citadel); a battle leaves 4 of
    # the 10 warriors; the Citadel doubles only 5 to 24 (rulebook) and gives 4 the
    # Sanctuary's bonus instead
    lines = ["3.433333 YES/BUY 0.2", "12.783333 NO/END 0.2", "14.433333 NO/END 0.2",
             "16.083333 NO/END 0.2", "17.733333 YES/BUY 0.2", "19.383333 YES/BUY 0.2",
             "25 MOVE 0.2", "80 NO/END 0.2", "84 SANCTUARY/CITADEL 0.2", "110 NO/END 0.2"]
    script = parse_script("\n".join(lines) + "\n# run length: 115 s\n")
    events = run_script(CleanroomTower(chooser=ScriptedChooser(
        {"move": ["battle"], "brigands": [2], "skirmish": [False] * 6 + [True, True],
         "battle_gold": [15], "treasure": ["none"], "sanctuary_warriors": [6]})), script)
    obs = observe(events)
    assert [o.value for o in obs if o.quantity == "sanctuary_warriors"] == [6]
    assert [o for o in obs if o.quantity == "citadel_double"] == []


def test_a_recording_without_the_level_selection_gives_no_observations():
    events = _game_recording({"move": ["lost"]}, ["MOVE"])
    assert observe([e for e in events if e["t"] > 18]) == []


# ---- estimates and the parameter table -------------------------------------------------------
def test_the_stored_evidence_is_what_the_development_corpus_gives():
    """Regenerate with cleanroom.evidence.EVIDENCE_COMMAND (the 112 development sessions)."""
    data = rows_data(_rows())
    stored = [tuple(r) for r in _EVIDENCE_ROWS]
    if FULL:
        assert data == stored, f"regenerate with: {EVIDENCE_COMMAND}"
        return
    # the sample's 30 sessions are development sessions: what they show is in the stored
    # counts over all 112
    by_key = {r[:4]: r for r in stored}
    for row in data:
        param, quantity, situation, outcome, kind, count, total, low, high, lo, hi = row
        whole = by_key.get(row[:4])
        assert whole is not None, f"{row[:4]} not in the stored evidence"
        assert count <= whole[5] and total <= whole[6], (row, whole)
        if kind == "range" or kind == "info":
            assert whole[9] <= lo and hi <= whole[10], (row, whole)
        if kind == "rule" and whole[5] == whole[6]:
            assert count == total, (row, whole)


CHECKED = sorted({e.param for e in EVIDENCE})


@pytest.mark.parametrize("param", CHECKED, ids=[p or "reading" for p in CHECKED])
def test_chosen_value_lies_in_its_development_corpus_interval(param):
    rows = [r for r in _rows() if r.param == param and r.ok is not None]
    outside = [r.describe() for r in rows if not r.ok]
    assert not outside, "\n".join(outside)


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


def test_the_docs_estimates_table_is_what_the_development_corpus_gives():
    """Regenerate with: towerlab conform --stats $(python -m tests.cleanroom.corpus_split)
    --markdown (below the '## Estimates' paragraph of docs/corpus-statistics.md)."""
    table = "| parameter |" + DOC.read_text().split("\n| parameter |", 1)[1]
    if FULL:
        assert table == rows_markdown(_rows())
        return
    # without the 112: the table is the stored evidence's, row for row
    lines = table.splitlines()[2:]
    assert len(lines) == len(EVIDENCE)
    for line, e in zip(lines, EVIDENCE):
        assert line.startswith(f"| {e.param and '`' + e.param + '`'} | {e.quantity} | "
                               f"{e.situation} | {e.outcome} | {e.total} |"), (line, e)
