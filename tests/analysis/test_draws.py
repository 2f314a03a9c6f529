"""analysis.draws (``towerlab draws``): a timing sweep of the genuine tower read scan by scan,
with the figures docs/draws.md gives (sections 1, 2, 3, 6 and 7).

The sweep of a MOVE of the corpus session l2_p1_s102 is in tests/data/sweeps (every clone
has it); the lab's other sweeps are read where the lab keeps them beside the corpus
(tests/corpus.py), checked against the same figures of the document."""
from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

from fractions import Fraction

from analysis.draws import (CIRCLE, SweepError, _fit_paths, arc_misfits, circle_order,
                            circle_steps, read_sweep)
from captures.events import write_events
from tests.analysis.sweep_runs import run_folders
from tests.corpus import genuine_corpus
from towerlab.cli import main

DATA_SWEEP = Path(__file__).resolve().parents[1] / "data" / "sweeps" / "move_l2_p1_s102"

# docs/draws.md, per MOVE sweep: the same outcome 1, 2 and 7 scans later; the bases of the
# picture and the no-picture branches and the largest j; the 18-scan blocks' first scans and
# values; the brigands' think times modulo 3; the windows of 18 scans half a block off that
# read one circle; the think time less the outcomes' paths inside blocks: its change in
# instructions, the steps between pictures, the falls, the whole 9s (section 6)
DOC = {
    "move_l2_p1_s102": dict(lags={1: (0, 77), 2: (25, 76), 7: (53, 71)},
                            bases={"picture": 927, "none": 937}, jmax=14,
                            blocks=[(5, 1), (23, 0), (41, 1), (59, 0)],
                            battles={8: {2: 2}, 9: {0: 3}, 10: {1: 3}, 11: {2: 2}, 12: {1: 2}},
                            half_off=(4, 21), steady=(127.1, 39, 1, 39)),
    "move_l1_p1_s101": dict(lags={1: (0, 77), 2: (30, 76), 7: (48, 71)},
                            bases={"picture": 938, "none": 951}, jmax=15,
                            blocks=[(14, 1), (32, 2), (50, 1), (68, 2)],
                            battles={8: {1: 4}, 10: {0: 6}, 11: {1: 3}, 12: {0: 3}},
                            half_off=(1, 26), steady=(126.7, 33, 3, 32)),
}


def lab_sweeps() -> list[Path]:
    corpus = genuine_corpus()
    folder = None if corpus is None else corpus.parent / "experiments" / "sweeps"
    return sorted(p for p in folder.iterdir() if (p / "sweep.jsonl").is_file()) \
        if folder is not None and folder.is_dir() else []


@pytest.fixture(scope="module")
def sweep():
    return read_sweep(str(DATA_SWEEP))


def test_each_run_is_taken_at_the_second_scan_that_sees_its_key(sweep):
    # a scan a pass apart (25.4-26.0 ms): the click comes one to two passes after the press
    assert len(sweep.runs) == 120 and len(sweep.scans) == 78
    assert all(r.click is not None and 0.025 < r.click - r.press < 0.053 for r in sweep.runs)


def test_runs_taken_at_the_same_scan_show_the_same_after_the_click(sweep):
    assert sweep.same_scan() == (42, 42)


def test_no_two_consecutive_scans_draw_the_same_move(sweep):
    prof = sweep.lag_profile()
    for lag, figure in DOC["move_l2_p1_s102"]["lags"].items():
        assert prof[lag] == figure


def test_a_moves_draw_time_is_its_branch_base_plus_whole_three_instruction_steps(sweep):
    counts = sweep.loop_counts()
    assert {b: base for b, (base, _, _) in counts.items()} == {"picture": 927, "none": 937}
    assert all(off == 0 for _, _, off in counts.values())
    assert max(j for _, js, _ in counts.values() for j in js.values()) == 14
    assert sum(len(js) for _, js, _ in counts.values()) == 66     # every scan but the battles


def test_j_and_the_outcomes_place_agree_mod_3_over_blocks_of_18_scans(sweep):
    fits = sweep.block_fits()
    assert fits[18][0] == 0
    assert [b for b in sweep.blocks(18, fits[18][1]) if b[0] >= 0][:4] == \
        DOC["move_l2_p1_s102"]["blocks"]


def test_blocks_shorter_or_longer_than_18_scans_leave_exceptions(sweep):
    fits = sweep.block_fits()
    assert [p for p, (miss, _) in fits.items() if miss == 0] == [6, 9, 18]
    assert all(fits[p][0] > 0 for p in (12, 17, 19, 22, 36))


def test_each_block_of_18_scans_alone_orders_its_outcomes_round_one_circle(sweep):
    # ordered by (a x scan) mod 1, any a from 5/12 to 3/7, each outcome makes one stretch,
    # in the one order of CIRCLE; no shuffling of a block's outcomes does so
    circles = sweep.block_circles(sweep.block_fits()[18][1])
    assert [first for first, *_ in circles] == [5, 23, 41, 59]
    for first, steps, order, shuffled_circles in circles:
        assert steps[0][0] == Fraction(5, 12) and steps[0][1] >= Fraction(3, 7), first
        assert [CIRCLE.index(o) for o in order] == sorted(CIRCLE.index(o) for o in order)
        assert shuffled_circles == 0


def test_windows_of_18_scans_half_a_block_off_seldom_read_one_circle(sweep):
    windows = sweep.window_circles(sweep.block_fits()[18][1])
    assert windows[0] == (4, 4)
    half = [windows[k] for k in range(6, 13)]
    assert (sum(a for a, _ in half), sum(b for _, b in half)) == \
        DOC["move_l2_p1_s102"]["half_off"]


PATHS_SEEN = {"LOST": 0, "DRAGON": 3, "PLAGUE": 6, "none": 4}


def test_each_pictures_path_is_three_instructions_longer_lost_dragon_plague(sweep):
    # the think time less these paths is steadiest inside the blocks; shuffling the
    # pictures among their scans never makes it as steady
    fit = sweep.path_fit()
    assert fit.paths == PATHS_SEEN
    assert fit.as_steady == 0 and fit.shuffles == 100


def test_the_think_time_less_the_paths_rises_in_whole_nines_inside_a_block(sweep):
    fit = sweep.path_fit(shuffles=0)
    assert (fit.change, fit.hazard_steps, fit.falls, fit.nines) == \
        DOC["move_l2_p1_s102"]["steady"]


def test_path_fit_finds_the_paths_of_a_rising_time():
    # a made-up sweep: a count rising one step of 9 every 5 scans inside blocks of 18,
    # each outcome's path added; the fit gives those paths back
    rng = np.random.default_rng(1)
    outcomes = list(rng.choice(["LOST", "DRAGON", "PLAGUE", "none"], 72))
    blocks = [n // 18 for n in range(72)]
    paths = {"LOST": 0, "DRAGON": 6, "PLAGUE": -3, "none": 10}
    think = np.array([900.0 + 9 * (n % 18 // 5) + paths[o] for n, o in enumerate(outcomes)])
    fit = _fit_paths(think, outcomes, blocks)
    assert fit.paths == paths and fit.falls == 0 and fit.nines == fit.hazard_steps


def test_a_sweep_that_never_drew_lost_has_no_paths(tmp_path):
    # the paths are counted from LOST's
    lines = [{"t": 0.0, "type": "button", "button": "TOMB/RUIN", "action": "press"},
             {"t": 0.03, "type": "tone", "freq_hz": 431.9, "dur_s": 0.0046},
             {"t": 0.2, "type": "lamp", "lamp": "upper", "on": 1}]
    (tmp_path / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in lines))
    assert read_sweep([str(tmp_path)], press=0).path_fit() is None


def test_circle_steps_finds_the_step_of_outcomes_read_off_a_turning_circle():
    table = ("none", "LOST", "DRAGON", "PLAGUE", "BRIGANDS")
    outcomes = {n: table[int((0.1 + 0.42 * n) % 1 * 5)] for n in range(18)}
    steps = circle_steps(outcomes)
    assert any(lo < Fraction(42, 100) < hi for lo, hi in steps)
    assert circle_order(outcomes, 0.42) == list(table)


def test_circle_steps_finds_none_for_outcomes_no_step_orders():
    # two outcomes alternating in runs of 1, 2, 3 ... fit no circle of 18 scans
    outcomes = {n: "LOST" if n in (0, 2, 3, 6, 7, 8, 13, 14, 15, 16) else "none"
                for n in range(18)}
    assert circle_steps(outcomes) == []


def test_a_move_64_scans_later_often_draws_the_same(sweep):
    # a turn of the phase (27/64 a scan); 57 and 71 scans are a turn less and more 7 scans,
    # which bring the phase 3/64 of a turn either side
    prof = sweep.lag_profile((57, 64, 71))
    assert prof == {57: (9, 21), 64: (8, 14), 71: (3, 7)}
    assert sweep.lag_profile((18,))[18] == (1, 60)      # 18 scans: 38/64 of a turn away


def test_arc_misfits_counts_the_scans_off_the_best_arc():
    # scans whose phase at 27/64 a scan lies in the first half of the turn are in
    flags = {n: (27 * n) % 64 < 32 for n in range(40)}
    assert arc_misfits(flags, 27 / 64) == 0
    flags[5] = not flags[5]
    assert arc_misfits(flags, 27 / 64) == 1
    assert arc_misfits(flags, 0.3) > 5


def test_a_battles_draw_time_mod_3_follows_its_brigands(sweep):
    got = {n: dict(c) for n, c in sweep.battle_residues().items()}
    assert got == DOC["move_l2_p1_s102"]["battles"]


def test_a_battles_outcome_carries_its_count_of_brigands(sweep):
    battles = [r for r in sweep.runs if r.outcome == "BRIGANDS"]
    assert battles and all(r.number.isdigit() and 8 <= int(r.number) <= 12 for r in battles)
    assert all(r.number == "" for r in sweep.runs if r.outcome in ("PLAGUE", "DRAGON", "LOST"))


def test_recording_folders_read_as_the_lab_sweep(tmp_path, sweep):
    single = read_sweep(run_folders(DATA_SWEEP, tmp_path, 12))
    want = [(r.scan, r.outcome, r.number, round(r.think, 2)) for r in sweep.runs[:12]]
    assert [(r.scan, r.outcome, r.number, round(r.think, 2)) for r in single.runs] == want


def test_a_request_folder_holding_one_recording_reads_as_that_run(tmp_path, sweep):
    rec = json.loads((DATA_SWEEP / "sweep.jsonl").read_text().splitlines()[2])
    inner = tmp_path / "first_move_k02" / "session_0001"
    inner.mkdir(parents=True)
    (inner / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in rec["events"]))
    run = read_sweep([str(tmp_path / "first_move_k02")]).runs[0]
    assert (run.outcome, run.number, round(run.think, 2)) == \
        (sweep.runs[2].outcome, sweep.runs[2].number, round(sweep.runs[2].think, 2))


def test_a_recording_of_several_games_reads_as_a_run_per_game(tmp_path, sweep):
    # a request's sweep played in one session: each game from a power-on its script switches
    # (every 50 s here), the swept key each game's last press
    lines = (DATA_SWEEP / "sweep.jsonl").read_text().splitlines()[:5]
    events, script = [], ["# run length: 250.0 s"]
    for i, line in enumerate(lines):
        rec = json.loads(line)
        at = 50.0 * i
        if i:
            script.append(f"{at:.6f} power on")
        events += [dict(e, t=round(e["t"] + at, 6)) for e in rec["events"]]
        script.append(f"{at + rec['press_s']:.6f} MOVE 0.2")
        script.append(f"{at + 45.0:.6f} power off")
    folder = tmp_path / "move_sweep"
    folder.mkdir()
    with open(folder / "events.jsonl", "w", encoding="utf-8") as f:
        write_events(events, f)
    (folder / "script.txt").write_text("\n".join(script) + "\n")
    games = read_sweep([str(folder)])
    assert [r.label for r in games.runs] == [f"move_sweep game {i}" for i in range(1, 6)]
    want = [(r.scan, r.outcome, r.number, round(r.think, 2)) for r in sweep.runs[:5]]
    assert [(r.scan, r.outcome, r.number, round(r.think, 2)) for r in games.runs] == want


def test_a_folder_without_events_is_named_in_one_line(tmp_path):
    with pytest.raises(SweepError, match=r"^.*empty: no sweep.jsonl or events.jsonl"):
        (tmp_path / "empty").mkdir()
        read_sweep(str(tmp_path / "empty"))


def test_a_sweep_line_that_is_not_a_run_is_named_by_its_line(tmp_path):
    (tmp_path / "sweep.jsonl").write_text('{"offset_frames": 0, "press_s": 1.0, "events": []}\n'
                                          '{"offset_frames": 1}\n')
    with pytest.raises(SweepError, match=r"sweep.jsonl:2: expected a JSON object with "
                                         r"offset_frames, press_s and events"):
        read_sweep(str(tmp_path))


def test_a_press_the_recording_does_not_have_is_refused(tmp_path):
    (tmp_path / "events.jsonl").write_text(
        '{"t": 1.0, "type": "button", "button": "MOVE", "action": "press"}\n')
    with pytest.raises(SweepError, match=r"press 3 asked for, it has 1 presses"):
        read_sweep([str(tmp_path)], press=3)


def test_a_press_before_the_last_shows_only_what_comes_before_the_next_press(tmp_path):
    # a first MOVE that lit no picture, then a second MOVE that lit LOST: the first press's
    # run is the safe move, not the later press's picture
    lines = [{"t": 1.0, "type": "button", "button": "MOVE", "action": "press"},
             {"t": 1.0, "type": "tone", "freq_hz": 431.9, "dur_s": 0.0046},
             {"t": 3.0, "type": "button", "button": "MOVE", "action": "press"},
             {"t": 3.0, "type": "tone", "freq_hz": 431.9, "dur_s": 0.0046},
             {"t": 3.5, "type": "reel", "card_pos": 2},
             {"t": 3.6, "type": "lamp", "lamp": "middle", "on": 1},
             {"t": 4.6, "type": "lamp", "lamp": "middle", "on": 0}]
    with open(tmp_path / "events.jsonl", "w", encoding="utf-8") as f:
        write_events(lines, f)
    last = read_sweep([str(tmp_path)]).runs[0]
    first = read_sweep([str(tmp_path)], press=0).runs[0]
    assert (first.outcome, first.end) == ("none", 3.0)
    assert last.outcome != "none"


def test_a_later_press_no_click_follows_does_not_end_the_run(tmp_path):
    # a MOVE that draws a battle, and NO/END pressed while the reel still turns (no click:
    # the tower takes no key then): the picture lit after it is still the MOVE's
    lines = [{"t": 1.0, "type": "button", "button": "MOVE", "action": "press"},
             {"t": 1.04, "type": "tone", "freq_hz": 431.9, "dur_s": 0.0046},
             {"t": 2.0, "type": "button", "button": "NO/END", "action": "press"},
             {"t": 3.5, "type": "reel", "card_pos": 1},
             {"t": 3.6, "type": "lamp", "lamp": "lower", "on": 1},
             {"t": 4.6, "type": "lamp", "lamp": "lower", "on": 0}]
    (tmp_path / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in lines))
    run = read_sweep([str(tmp_path)], press=0).runs[0]
    assert (run.outcome, run.end) == ("BRIGANDS", 4.6)       # to the recording's end


def test_towerlab_draws_prints_the_figures():
    out = io.StringIO()
    assert main(["draws", str(DATA_SWEEP)], out) == 0
    text = out.getvalue()
    assert "120 runs, 78 key scans" in text
    assert "1: 0/77" in text and "7: 53/71" in text
    assert "picture: 927 + 3j instructions at 44 scans (j 0-14), 0 not" in text
    assert "blocks of 18 scans: 0 exceptions; blocks begin at -13 (0), 5 (1), 23 (0)" in text
    assert "one stretch per outcome in 4 of 4 blocks, a 5/12-3/7; 5/12-4/9" in text
    assert "instructions above LOST's: D +3, P +6, - +4" in text
    assert "changes by 127.1 instructions over 39 steps, 39 of them whole 9s" in text


def test_towerlab_draws_on_a_missing_folder_exits_2_with_one_line(tmp_path, capsys):
    assert main(["draws", str(tmp_path / "nowhere")], io.StringIO()) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nowhere: no such folder" in err[0]


def test_draws_on_a_sweep_run_whose_events_are_not_events_is_one_line(tmp_path, capsys):
    (tmp_path / "sweep.jsonl").write_text(
        json.dumps({"offset_frames": 0, "press_s": 1.0, "events": [{"t": 0.5}]}) + "\n")
    assert main(["draws", str(tmp_path)], io.StringIO()) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "sweep.jsonl:1: event 0: unknown event type" in err[0]


def test_the_lab_sweeps_give_the_documents_figures():
    # every sweep the lab keeps beside the corpus (a clone without it: the copy in tests/data)
    for folder in lab_sweeps() or [DATA_SWEEP]:
        check_sweep(folder)


def check_sweep(folder: Path) -> None:
    sweep = read_sweep(str(folder))
    assert sweep.same_scan()[0] == sweep.same_scan()[1] == 42, folder.name
    if folder.name == "tomb_l1_p1_s101":
        # its battles on one arc of the phase: 9 of 78 scans off, the fewest at any step
        assert sweep.outcome_arc("BRIGANDS") == (9, 9, (Fraction(8, 19), Fraction(14, 33)))
    doc = DOC.get(folder.name)
    if doc is None:             # the TOMB/RUIN and HAGGLE sweeps: no MOVE, no paths
        assert sweep.path_fit() is None, folder.name
        return
    prof = sweep.lag_profile()
    assert all(prof[lag] == f for lag, f in doc["lags"].items())
    counts = sweep.loop_counts()
    assert {b: base for b, (base, _, _) in counts.items()} == doc["bases"]
    assert max(j for _, js, _ in counts.values() for j in js.values()) == doc["jmax"]
    fits = sweep.block_fits()
    assert fits[18][0] == 0
    assert [b for b in sweep.blocks(18, fits[18][1]) if b[0] >= 0][:4] == doc["blocks"]
    assert {n: dict(c) for n, c in sweep.battle_residues().items()} == doc["battles"]
    circles = sweep.block_circles(fits[18][1])
    assert all(steps and hits == 0 for _, steps, _, hits in circles)
    half = [n for k, n in sweep.window_circles(fits[18][1]).items() if 6 <= k <= 12]
    assert (sum(a for a, _ in half), sum(b for _, b in half)) == doc["half_off"]
    fit = sweep.path_fit()
    assert fit.paths == PATHS_SEEN and fit.as_steady == 0
    assert (fit.change, fit.hazard_steps, fit.falls, fit.nines) == doc["steady"]
