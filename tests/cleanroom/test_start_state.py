"""cleanroom.start_state (``towerlab draws --setup``): the set-up after the level key, read from
recordings, follows the key-loop passes counted from the tower test (docs/draws.md, section
10).

The pin sessions of tests/data/corpus and twelve development sessions cut after the
player-count prompt's first key (tests/data/setup, with the command that cuts them) stand on
their own; where the lab's corpus sits beside the checkout (tests/corpus.py) its development
sessions are read too."""
from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pytest

from captures.events import read_events
from captures.tower import run_script
from cleanroom.reference import load_reference
from cleanroom.start_state import (AGREE_CYCLES, read_setup, setup_groups, setup_report,
                                   shuffled_agreement)
from cleanroom.decisions import Start
from tests.cleanroom.corpus_split import DEVELOPMENT
from tests.corpus import DATA_CORPUS, genuine_corpus
from towerlab.cli import main

SETUP = Path(__file__).resolve().parents[1] / "data" / "setup"
# the game's own set-up, from the level key's taking scan to the player-count loop's first,
# in cycles: what the pins' gap is beyond the set-up's extra time, the take's pass dark or
# lit (the 22 pin sessions of levels 1-3: 16,689-16,750 and 16,898-16,986), where the gaps
# themselves spread over 3,180
OWN_SETUP = ((16680, 16760), (16890, 16995))


def reading(folder: Path):
    script, events = load_reference(str(folder))
    return read_setup(script, events, folder.name)


def r2_passes(folder: Path, loops: int) -> list[int]:
    """The key-loop passes of a pin log's first ``loops`` loops: R2 strobes, a loop ending
    where the next strobe is more than a pass and a half away."""
    with gzip.open(folder / "edges.jsonl.gz", "rt") as f:
        f.readline()
        r2 = [c for c, sig, v in map(json.loads, f) if sig == "R2" and v == 1]
    counts, n = [], 1
    for a, b in zip(r2, r2[1:]):
        if b - a > 12000:
            counts.append(n)
            n = 0
            if len(counts) == loops:
                break
        n += 1
    return counts


def pins_setup_gap(folder: Path, level_loops: int) -> int:
    """The cycles from the level key's taking scan to the next loop's first (the pins)."""
    with gzip.open(folder / "edges.jsonl.gz", "rt") as f:
        f.readline()
        r2 = [c for c, sig, v in map(json.loads, f) if sig == "R2" and v == 1]
    gaps = [b - a for a, b in zip(r2, r2[1:]) if b - a > 12000]
    return gaps[level_loops]


def test_the_game_counts_each_loops_passes_as_the_pins_strobe_r2():
    # the power-on loop, the level prompt's and, with the set-up the recording shows, the
    # player-count prompt's
    folder = DATA_CORPUS / "l1_p1_s01"
    script, _ = load_reference(str(folder))
    setup = round(reading(folder).extra_cycles / 6) * 6
    tower, chooser = Start(1.0, watch=False)([setup])
    run_script(tower, script, until=20.0)
    assert chooser.calls[0].name == "players_setup_cycles"
    takes = tower.game.engine.takes
    assert [round(n) for _, _, n in takes[:3]] == r2_passes(folder, 3) == [183, 39, 60]
    assert [k for _, k, _ in takes[:3]] == ["YES/BUY", "YES/BUY", "YES/BUY"]


def test_the_setup_read_from_the_clicks_is_the_pins_gap_less_the_games_own():
    seen = 0
    for folder in sorted(DATA_CORPUS.iterdir()):
        if not (folder / "edges.jsonl.gz").is_file() or folder.name.startswith("l4"):
            continue
        r = reading(folder)
        gap = pins_setup_gap(folder, len(r.level_loops))
        assert any(lo <= gap - r.extra_cycles <= hi for lo, hi in OWN_SETUP), folder.name
        seen += 1
    assert seen == 22


def test_games_whose_level_prompt_took_as_many_passes_set_up_alike():
    readings = [reading(f) for f in sorted(SETUP.iterdir()) if f.is_dir()]
    groups = setup_groups(readings)
    assert [g[0].key for g in groups] == [(1, 49), (1, 94), (2, 133), (2, 151), (3, 202)]
    for g in groups:
        assert max(r.extra_cycles for r in g) - min(r.extra_cycles for r in g) < AGREE_CYCLES
        assert len({r.power_on_passes for r in g}) == len(g)    # the power-on loops differ


def test_the_power_on_loops_passes_do_not_count():
    # the same passes since power-on (161 + 73 and 181 + 53): 1,688 cycles apart
    a, b = reading(SETUP / "l1_p3_s09"), reading(SETUP / "l1_p4_s40")
    assert a.power_on_passes + a.passes == b.power_on_passes + b.passes == 234
    assert abs(a.extra_cycles - b.extra_cycles) > 1500


def test_the_level_is_read_from_the_level_prompts_steps():
    assert reading(SETUP / "l2_p2_s30").level == 2
    assert reading(SETUP / "l3_p2_s07").level == 3
    assert reading(SETUP / "l1_p3_s09").level == 1


def test_a_level_4_game_has_no_setup():
    assert reading(DATA_CORPUS / "l4_p1_s04") is None


def test_a_recording_whose_clicks_do_not_follow_its_script_is_refused():
    script, events = load_reference(str(SETUP / "l1_p3_s09"))
    moved = [dict(e, t=e["t"] + 0.5) for e in events]
    with pytest.raises(ValueError, match="no click within 10 ms of the level key"):
        read_setup(script, moved, "moved")


def test_towerlab_draws_setup_prints_the_groups():
    out = io.StringIO()
    assert main(["draws", "--setup", str(SETUP)], out) == 0
    text = out.getvalue()
    assert "12 set-ups after the level key" in text
    assert "pairs with the same level-prompt loops and passes since the tower test: 5 of 5" \
        in text


def test_towerlab_draws_setup_on_a_folder_without_recordings_exits_2(tmp_path, capsys):
    assert main(["draws", "--setup", str(tmp_path)], io.StringIO()) == 2
    assert "no events.jsonl" in capsys.readouterr().err


def test_the_development_corpus_sets_up_alike_in_ten_groups():
    corpus = genuine_corpus()
    if corpus is None:
        # a clone without the lab's corpus (tests/corpus.py): the cut sessions of tests/data
        readings = [reading(f) for f in sorted(SETUP.iterdir()) if f.is_dir()]
        assert len(setup_groups(readings)) == 5
        return
    readings = [r for r in (reading(corpus / name) for name in sorted(DEVELOPMENT)) if r]
    assert len(readings) == 87
    groups = setup_groups(readings)
    assert len(groups) == 10
    assert all(max(r.extra_cycles for r in g) - min(r.extra_cycles for r in g) < AGREE_CYCLES
               for g in groups)
    assert shuffled_agreement(readings, shuffles=500) == 0.0
    report = "\n".join(setup_report(readings, shuffles=0))
    assert "passes since the tower test: 12 of 12 agree" in report
    assert "passes since power-on: 1 of 8 agree" in report
    # its shape: the band of set-ups that did not repeat their step, by level
    assert "level 1, 1 level-prompt loop: 16 of 24 in the band" in report
    assert "level 3, 3 level-prompt loops: 4 of 17 in the band" in report
    assert "level 2, 2 level-prompt loops: 0 of 28 in the band" in report
    # a set-up that repeated is followed one pass later by one that repeated once less
    assert "39 / 40 passes: 147 / -1" in report and "72 / 73 passes: 119 / -5" in report


def test_an_events_file_reads_as_events(tmp_path):
    # the cut sessions are ordinary recordings: their events read back as written
    events = read_events(str(SETUP / "l1_p3_s09" / "events.jsonl"))
    assert events[0]["t"] <= events[-1]["t"] <= 16.517


def test_a_tower_with_another_clock_is_read_with_its_clock_ratio():
    # a clean-room game at 97 % of 425 kHz set up 600 cycles (of its own clock) longer
    script, _ = load_reference(str(DATA_CORPUS / "l1_p3_s09"))
    tower, _ = Start(0.97, watch=False)([600])
    events = run_script(tower, script, until=40.0)
    assert abs(read_setup(script, events, "slow", clock_ratio=0.97).extra_cycles - 600) < 3
    with pytest.raises(ValueError, match="expected a recording of the game from power-on"):
        read_setup(script, events, "slow")      # read at 425 kHz, no click where it looks


def test_towerlab_draws_setup_refuses_a_clock_ratio_far_from_1(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["draws", "--setup", "--clock-ratio", "5", str(SETUP)], io.StringIO())
    assert stop.value.code == 2
    assert "'5' is not a clock ratio near 1" in capsys.readouterr().err
