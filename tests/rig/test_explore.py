"""`towerlab explore` (rig/player.py, rig/explore.py): a seeded player that answers the
tower's flashing prompts as a person would, on the clean-room game (whole games) and on the
emulator's demo firmware (which does not play the game)."""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from captures.events import read_events
from captures.script import BUTTONS
from captures.tower import run_script
from cleanroom import params as cleanroom_params
from cleanroom.tower import CleanroomTower
from rig.explore import explore, summary_table
from rig.player import REACTION_S, Explorer, SessionSummary, reaction_delays
from rig.towers.fakes import PinTower
from rig.recording import load_recording
from rig.specs import TargetSpec
from towerlab.cli import main

ROOT = Path(__file__).resolve().parent.parent.parent
CORPUS = ROOT / "tests" / "data" / "corpus"
FRAME_S = 1 / 60


@pytest.fixture(scope="module")
def solo(tmp_path_factory):
    """Two solo games at random levels (seed 5): a level 3 game lost after battles, tombs
    and Dark Tower visits; a level 2 game lost after battles, a retreat, purchases, three
    riddles and two Final Battles."""
    out = tmp_path_factory.mktemp("solo")
    return out, explore(TargetSpec("cleanroom"), 2, 5, out, players=1, max_seconds=600)


@pytest.fixture(scope="module")
def level4(tmp_path_factory):
    """Four level 4 games (seed 1), 1-4 players: the riddle, the Final Battle, victory."""
    out = tmp_path_factory.mktemp("level4")
    return out, explore(TargetSpec("cleanroom"), 4, 1, out, level=4)


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def _sessions(*fixtures):
    for out, summaries in fixtures:
        for s in summaries:
            yield out / f"session_{s.session:04d}", s


def test_cleanroom_sessions_reach_battles_retreats_the_bazaar_tombs_and_the_dark_tower(
        solo, level4):
    total = {k: sum(getattr(s, k) for _, s in _sessions(solo, level4))
             for k in ("battles", "retreats", "bazaar_buys", "tombs", "dark_tower",
                       "riddles", "final_battles")}
    assert all(v > 0 for v in total.values()), total


def test_cleanroom_games_are_won_and_lost_across_seeds(solo, level4):
    outcomes = [s.outcome for _, s in _sessions(solo, level4)]
    assert "won" in outcomes and "lost" in outcomes
    assert set(outcomes) <= {"won", "lost"}             # whole games, none cut short


def test_a_won_game_ends_on_the_flashing_score_after_the_victory_picture(level4):
    folder, s = next((f, s) for f, s in _sessions(level4) if s.outcome == "won")
    events = read_events(str(folder / "events.jsonl"))
    victory = [e for e in events if e["type"] == "lamp" and e["on"] and e["lamp"] == "upper"
               and _card(events, e["t"]) == 1]
    assert victory and s.note.startswith("victory: the score")
    assert s.note.split()[3] in {e["text"] for e in events if e["type"] == "display"}


def test_a_lost_solo_game_ends_when_the_tower_goes_quiet(solo):
    lost = [s for _, s in _sessions(solo) if s.outcome == "lost"]
    assert lost and all(s.note.startswith("game over") for s in lost)


def test_a_retreat_holds_no_end_until_the_warriors_show_with_no_number(solo):
    folder, s = next((f, s) for f, s in _sessions(solo) if s.retreats)
    rec = load_recording(folder)
    holds = [a for a in rec.script.actions if a.button == "NO/END" and a.hold > 1.0]
    assert len(holds) >= s.retreats
    for a in holds[:s.retreats]:
        lit = [e for e in rec.events if e["type"] == "lamp" and e["on"]
               and e["lamp"] == "middle" and a.t <= e["t"] <= a.t + a.hold]
        assert lit and _card(rec.events, lit[0]["t"]) == 1          # WARRIORS
        off = next(e["t"] for e in rec.events if e["type"] == "lamp" and not e["on"]
                   and e["lamp"] == "middle" and e["t"] > lit[0]["t"])
        # the next prompt may take the 1/60 s frame in which the lamp goes dark
        shown = [e["text"] for e in rec.events if e["type"] == "display"
                 and lit[0]["t"] <= e["t"] <= off - 1 / 60]
        assert all(t == "  " for t in shown)                     # no number


def test_each_session_folder_is_a_recording_its_script_replays_exactly(solo):
    for folder, s in _sessions(solo):
        rec = load_recording(folder)
        assert rec.meta["explore"]["seed"] == s.seed and rec.meta["target"] == "cleanroom"
        assert run_script(CleanroomTower(seed=s.seed), rec.script) == rec.events


def test_summary_txt_is_the_table_of_what_each_session_showed(level4):
    out, summaries = level4
    text = (out / "summary.txt").read_text()
    assert text == summary_table(summaries)
    lines = text.splitlines()
    assert lines[0].split("\t") == list(SessionSummary.COLUMNS) and len(lines) == 5
    for line, s in zip(lines[1:], summaries):
        meta = load_recording(out / f"session_{s.session:04d}").meta["explore"]
        assert line.split("\t")[SessionSummary.COLUMNS.index("outcome")] == meta["outcome"]


def test_seeded_runs_are_byte_identical_and_another_seed_is_not(tmp_path, level4):
    out, _ = level4
    explore(TargetSpec("cleanroom"), 4, 1, tmp_path / "again", level=4)
    assert _tree(tmp_path / "again") == _tree(out)
    explore(TargetSpec("cleanroom"), 1, 2, tmp_path / "other", level=4)
    assert _tree(tmp_path / "other")["session_0001/script.txt"] != \
        _tree(out)["session_0001/script.txt"]


def test_local_processes_write_what_one_process_writes(tmp_path, level4):
    out, _ = level4
    explore(TargetSpec("cleanroom"), 4, 1, tmp_path / "jobs", level=4, jobs=2)
    assert _tree(tmp_path / "jobs") == _tree(out)


def test_the_menus_reach_the_level_and_player_count_the_player_chose(solo, level4):
    for fixture, options in ((solo, {"players": 1}), (level4, {"level": 4})):
        for _, s in _sessions(fixture):
            chose = Explorer(s.seed, **options)
            assert (s.level, s.players) == (chose.want_level, chose.want_players)
    assert {s.players for _, s in _sessions(level4)} == {1, 2, 3, 4}


def test_every_level_and_player_count_is_chosen_across_seeds():
    chosen = {(Explorer(seed).want_level, Explorer(seed).want_players) for seed in range(60)}
    assert {lv for lv, _ in chosen} == {1, 2, 3, 4} and {n for _, n in chosen} == {1, 2, 3, 4}


def test_the_sessions_press_every_button(solo, level4, tmp_path):
    pressed = set()
    for folder, _ in _sessions(solo, level4):
        pressed |= {a.button for a in load_recording(folder).script.actions}
    if pressed != set(BUTTONS):                      # two more level 2 games, same seed
        more = explore(TargetSpec("cleanroom"), 2, 3, tmp_path, level=2, max_seconds=300)
        for s in more:
            pressed |= {a.button for a in load_recording(
                tmp_path / f"session_{s.session:04d}").script.actions}
    assert pressed == set(BUTTONS)


def test_the_genuine_corpus_answers_its_prompts_within_the_players_delay_range():
    delays = np.concatenate([reaction_delays(read_events(str(d / "events.jsonl")))
                             for d in sorted(CORPUS.iterdir()) if d.is_dir()])
    assert len(delays) > 1500
    lo, hi = REACTION_S
    assert lo - FRAME_S <= delays.min() and delays.max() <= hi + FRAME_S
    # and the player's range is no wider than the corpus's: its ends are where the corpus's are
    assert delays.min() <= lo + 2 * FRAME_S and delays.max() >= hi - 2 * FRAME_S


def test_the_player_answers_within_its_delay_range_measured_as_on_the_corpus(solo, level4):
    delays = np.concatenate([reaction_delays(load_recording(f).events)
                             for f, _ in _sessions(solo, level4)])
    lo, hi = REACTION_S
    assert len(delays) > 50
    assert lo - 1e-6 <= delays.min() and delays.max() <= hi + 0.1
    assert np.median(delays) == pytest.approx(np.mean(REACTION_S), abs=0.35)


def test_on_the_demo_firmware_a_session_ends_with_a_clear_line(tmp_path):
    [s] = explore(TargetSpec("emu"), 1, 1, tmp_path)
    assert s.outcome == "no game" and s.players and s.level
    assert s.note == "the tower ignored 3 presses in a row at ' 1' (a firmware that does " \
                     "not play the game?)"
    folder = tmp_path / "session_0001"
    assert {p.name for p in folder.iterdir()} == {"recording.json", "script.txt",
                                                    "capture.tlc", "events.jsonl"}
    assert load_recording(folder).meta["target"] == "emu"


def test_a_tower_that_never_flashes_a_turn_ends_with_no_game_prompt_seen():
    ex = Explorer(1, quiet_s=5, game_within_s=15)
    ex.run(PinTower())
    assert ex.summary.outcome == "no game"
    assert ex.summary.note.startswith("no game prompt seen within 15 s")


def test_towerlab_explore_prints_the_table_and_writes_the_folders(tmp_path):
    out = io.StringIO()
    rc = main(["explore", "--target", "cleanroom", "--sessions", "2", "--seed", "4",
               "--level", "4", "--out", str(tmp_path / "x")], out)
    lines = out.getvalue().splitlines()
    assert rc == 0 and lines[0].split()[:3] == ["session", "seed", "level"]
    assert lines[-1] == f"explored 2 sessions on cleanroom (1 process): {tmp_path}/x/summary.txt"
    assert (tmp_path / "x" / "session_0002" / "events.jsonl").exists()


@pytest.mark.parametrize("argv, message", [
    (["--sessions", "0"], "--sessions 0: expected a number of sessions >= 1"),
    (["--level", "5"], "level 5: expected 1, 2, 3 or 4"),
    (["--rom", "x.bin"], "--rom, --romset and --firmware are for --target emu, not cleanroom"),
    (["--max-seconds", "-1"], "max seconds -1.0: expected a finite number"),
    (["--odds", "stray_key=0.5"], "--odds 'stray_key=0.5': expected 2 weights, e.g. 0.55,0.45"),
    (["--odds", "skirmish=1"], "--odds 'skirmish=1': expected NAME=WEIGHTS with NAME one of"),
    (["--odds", "move_odds=safe:1,ogre:1"], "--odds 'move_odds=safe:1,ogre:1': expected "
                                            "OPTION:WEIGHT,... e.g. safe:0.3"),
    (["--odds", "stray_key=0,0"], "expected finite weights of 0 or more, not all 0"),
])
def test_bad_explore_options_are_one_line_naming_the_value(tmp_path, capsys, argv, message):
    rc = main(["explore", "--target", "cleanroom", "--out", str(tmp_path / "x"), *argv],
              io.StringIO())
    err = capsys.readouterr().err
    assert rc == 2 and message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_an_out_that_is_a_file_is_refused(tmp_path, capsys):
    (tmp_path / "f").write_text("mine")
    rc = main(["explore", "--target", "cleanroom", "--out", str(tmp_path / "f")],
              io.StringIO())
    assert rc == 2 and "exists and is not a folder" in capsys.readouterr().err


def _card(events, t):
    """Return the reel card reported last up to 50 ms after ``t``."""
    card = None
    for e in events:
        if e["type"] == "reel" and e["t"] <= t + 0.05:
            card = e["card_pos"]
    return card


def test_a_folder_an_earlier_explore_wrote_is_refused_without_force(tmp_path, level4, capsys):
    out, _ = level4
    before = _tree(out)
    code = main(["explore", "--target", "cleanroom", "--sessions", "1", "--out", str(out)],
                io.StringIO())
    err = capsys.readouterr().err
    assert code == 2 and "holds an earlier explore" in err and "--force" in err
    assert err.count("\n") == 1 and _tree(out) == before


def test_force_replaces_an_earlier_explore_leaving_none_of_its_sessions(tmp_path):
    out = tmp_path / "x"
    explore(TargetSpec("cleanroom"), 2, 3, out, max_seconds=30)
    (out / "notes.txt").write_text("mine")
    explore(TargetSpec("cleanroom"), 1, 4, out, force=True, max_seconds=30)
    assert sorted(p.name for p in out.iterdir()) == ["explore.json", "notes.txt",
                                                     "session_0001", "summary.txt"]
    assert len((out / "summary.txt").read_text().splitlines()) == 2


def _ctrl_c_after(n: int):
    """Return an ``on_session`` callback that presses Ctrl-C after the n-th session."""
    finished = []

    def on_session(summary):
        finished.append(summary.session)
        if len(finished) == n:
            raise KeyboardInterrupt
    return on_session


def test_ctrl_c_in_a_batch_says_how_many_sessions_are_kept_and_how_to_resume(tmp_path):
    from rig.errors import Interrupted

    with pytest.raises(Interrupted, match=r"^interrupted: 1 of 3 sessions recorded in .*/x; "
                                          r"the same command resumes the batch$"):
        explore(TargetSpec("cleanroom"), 3, 6, tmp_path / "x", max_seconds=30,
                on_session=_ctrl_c_after(1))


def _whole_and_cut(tmp_path, sessions: int, kept: int) -> tuple[Path, Path]:
    """Play a batch of ``sessions`` (seed 6) whole, and again cut short by Ctrl-C after
    ``kept`` sessions; return the two folders."""
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    explore(TargetSpec("cleanroom"), sessions, 6, whole, max_seconds=30)
    with pytest.raises(KeyboardInterrupt):
        explore(TargetSpec("cleanroom"), sessions, 6, cut, max_seconds=30,
                on_session=_ctrl_c_after(kept))
    return whole, cut


def test_a_batch_cut_short_resumes_keeping_its_finished_sessions(tmp_path):
    whole, cut = _whole_and_cut(tmp_path, 3, 1)
    assert sorted(p.name for p in cut.iterdir()) == ["explore.json", "session_0001"]
    first = (cut / "session_0001" / "events.jsonl").stat().st_mtime_ns
    played = []
    explore(TargetSpec("cleanroom"), 3, 6, cut, max_seconds=30,
            on_session=lambda s: played.append(s.session))
    assert played == [2, 3]
    assert (cut / "session_0001" / "events.jsonl").stat().st_mtime_ns == first
    assert _tree(cut) == _tree(whole)


def test_a_batch_cut_short_with_other_options_is_refused_unless_force(tmp_path, capsys):
    out = tmp_path / "x"
    with pytest.raises(KeyboardInterrupt):
        explore(TargetSpec("cleanroom"), 2, 6, out, max_seconds=30,
                on_session=_ctrl_c_after(1))
    code = main(["explore", "--target", "cleanroom", "--sessions", "2", "--seed", "7",
                 "--max-seconds", "30", "--out", str(out)], io.StringIO())
    err = capsys.readouterr().err
    assert code == 2 and "holds an explore cut short with other options" in err
    assert err.count("\n") == 1
    explore(TargetSpec("cleanroom"), 1, 7, out, max_seconds=30, force=True)
    assert sorted(p.name for p in out.iterdir()) == ["explore.json", "session_0001",
                                                     "summary.txt"]


def test_a_session_left_half_written_or_unfinished_is_played_again(tmp_path):
    whole, cut = _whole_and_cut(tmp_path, 2, 2)
    # a kill while the second session's folder was written beside its place, and a first
    # session whose recording says it was cut short (a live tower's, rig.record)
    (cut / "session_0002").rename(cut / ".session_0002.part")
    meta = (cut / "session_0001" / "recording.json").read_text()
    (cut / "session_0001" / "recording.json").write_text(
        meta.replace('"fault": null', '"fault": "cut short"'))
    explore(TargetSpec("cleanroom"), 2, 6, cut, max_seconds=30)
    assert _tree(cut) == _tree(whole)


def test_session_folders_without_a_plan_are_replaced_only_with_force(tmp_path):
    from rig.explore import ExploreError

    explore(TargetSpec("cleanroom"), 1, 6, tmp_path / "x", max_seconds=30)
    for name in ("summary.txt", "explore.json"):
        (tmp_path / "x" / name).unlink()
    with pytest.raises(ExploreError, match="an explore cut short by an older towerlab"):
        explore(TargetSpec("cleanroom"), 1, 6, tmp_path / "x", max_seconds=30)
    explore(TargetSpec("cleanroom"), 1, 6, tmp_path / "x", max_seconds=30, force=True)
    assert (tmp_path / "x" / "summary.txt").exists()


def test_a_folder_with_other_files_is_refused_even_with_force(tmp_path):
    from rig.explore import ExploreError

    (tmp_path / "photo.jpg").write_bytes(b"x")
    with pytest.raises(ExploreError, match="not an explore folder"):
        explore(TargetSpec("cleanroom"), 1, 0, tmp_path, force=True, max_seconds=30)


def test_the_player_still_imports_from_rig_explore_with_a_deprecation_warning():
    import rig.explore
    import rig.player

    with pytest.warns(DeprecationWarning, match="rig.player.Explorer"):
        old = rig.explore.Explorer
    assert old is rig.player.Explorer


def test_a_favoured_key_is_pressed_more_and_a_key_favoured_zero_never(tmp_path):
    out = tmp_path / "steered"
    steered = explore(TargetSpec("cleanroom"), 1, 3, out, level=4, players=1, max_seconds=300,
                      favour={"DARK TOWER": 0.0, "SANCTUARY/CITADEL": 20.0})
    script = (out / "session_0001" / "script.txt").read_text()
    assert "DARK TOWER" not in script and steered[0].dark_tower == 0
    assert script.count("SANCTUARY/CITADEL") >= 3


def test_a_repeat_rate_of_one_repeats_after_every_action(tmp_path):
    from captures.darktower_game import GameEvents

    out = tmp_path / "repeats"
    explore(TargetSpec("cleanroom"), 1, 3, out, level=1, players=1, max_seconds=200,
            repeat_rate=1.0)
    presses = GameEvents(load_recording(out / "session_0001").events).presses
    # the first key at each end-of-turn signal ('-1') after a turn's action is REPEAT
    firsts = [q.button for p, q in zip(presses, presses[1:])
              if q.prompt == "-1" and p.prompt != "-1"]
    assert len(firsts) >= 3 and set(firsts) == {"REPEAT"}


def test_a_retreat_rate_of_zero_fights_every_battle_out(tmp_path):
    summary = explore(TargetSpec("cleanroom"), 1, 5, tmp_path / "fight", level=1, players=1,
                      max_seconds=400, favour={"MOVE": 4.0}, retreat_rate=0.0)[0]
    assert summary.battles >= 3 and summary.retreats == 0


def test_a_retreat_rate_of_one_holds_no_end_in_every_battle(tmp_path):
    # a retreat waits for the battle's first, second or third BRIGANDS: none ends sooner
    # here; whether the tower takes it before the battle ends is the tower's (a key first
    # seen by a later skirmish's scan may wait for the next, cleanroom/sections/battle.py)
    from rig.conformance import load_session

    summary = explore(TargetSpec("cleanroom"), 1, 5, tmp_path / "flee", level=1, players=1,
                      max_seconds=400, favour={"MOVE": 4.0}, retreat_rate=1.0)[0]
    script, events = load_session(str(tmp_path / "flee" / "session_0001"))
    horns = [e["t"] for e in events if e.get("cue") == "battle_horn"]
    prompts = [e["t"] for e in events if e["type"] == "display"
               and e["text"].strip() and not e["text"].isdigit()]

    def in_battle(t: float) -> bool:    # after a horn, with no prompt shown since
        horn = max((h for h in horns if h < t), default=None)
        return horn is not None and not any(horn < p < t for p in prompts)
    held = [a for a in script.actions if getattr(a, "button", None) == "NO/END"
            and in_battle(a.t)]
    assert summary.battles >= 2 and len(held) == summary.battles
    assert 1 <= summary.retreats <= summary.battles


def test_explore_refuses_a_retreat_rate_above_one_in_one_line(tmp_path, capsys):
    from towerlab.cli import main
    code = main(["explore", "--target", "cleanroom", "--out", str(tmp_path / "x"),
                 "--retreat-rate", "1.5"])
    err = capsys.readouterr().err
    assert code == 2 and "retreat rate 1.5: expected a share from 0 to 1" in err
    assert err.count("\n") == 1


def test_explore_refuses_a_favour_that_is_no_turn_s_action_in_one_line(tmp_path, capsys):
    from towerlab.cli import main
    code = main(["explore", "--target", "cleanroom", "--out", str(tmp_path / "x"),
                 "--favour", "HAGGLE=3"])
    err = capsys.readouterr().err
    assert code == 2 and "favour 'HAGGLE'" in err and err.count("\n") == 1


def test_odds_in_place_of_the_games_own_steer_its_draws(tmp_path):
    odds = {"move_odds": {"safe": 1.0}, "tomb_odds": {"deserted": 1.0}}
    own, = explore(TargetSpec("cleanroom"), 1, 3, tmp_path / "own", players=1,
                   max_seconds=300)
    steered, = explore(TargetSpec("cleanroom", odds=odds), 1, 3, tmp_path / "steered",
                       players=1, max_seconds=300)
    assert own.battles > 0 and own.level < 4            # seed 3's first game has battles
    assert steered.battles == 0 and steered.tombs > 0   # every move safe, every tomb empty
    assert cleanroom_params.param("move_odds")["battle"] > 0     # the game's own again


def test_towerlab_explore_odds_are_noted_in_recording_json(tmp_path):
    rc = main(["explore", "--target", "cleanroom", "--seed", "3", "--players", "1",
               "--max-seconds", "60", "--out", str(tmp_path / "x"), "--odds",
               "stray_key=0.2,0.8", "--odds", "retreat_loss=1:0.5,4:0.5"], io.StringIO())
    rec = load_recording(tmp_path / "x" / "session_0001")
    assert rc == 0
    assert rec.meta["odds"] == {"stray_key": [0.2, 0.8], "retreat_loss": {"1": 0.5, "4": 0.5}}


def test_odds_are_for_the_clean_room_game_only(tmp_path, capsys):
    rc = main(["explore", "--target", "emu", "--out", str(tmp_path / "x"), "--odds",
               "stray_key=0.5,0.5"], io.StringIO())
    err = capsys.readouterr().err
    assert rc == 2 and "--odds is for the clean-room game (--target cleanroom), not emu" in err
    assert not (tmp_path / "x").exists()
