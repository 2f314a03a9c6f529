"""Recording the requests for the genuine tower as the lab does (rig/requests.py, `towerlab
requests`): each request into RECORDINGS/NAME/ with the shared experiments folder's layout,
request.txt written last, nothing recorded lost when a request is recorded again."""
from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pytest

from captures.formats import open_capture
from rig.errors import LinkLostError
from rig.recording import load_recording, target_rom_sha1
from rig.requests import (CHANGED, INCOMPLETE, NOT_RECORDED, RECORDED, RequestError,
                          find_requests, read_request, record_script_request,
                          request_problems, request_status)
from rig.specs import TargetSpec
from towerlab.cli import main

SCRIPT = """# Question: what the demo firmware shows after two presses.
# run length: 3.000000 s
1.000000 YES/BUY 0.200000
2.000000 MOVE 0.200000
"""
EXPLORE = """# Question: one random game on the clean-room game.
explore --sessions 1 --seed 7 --max-seconds 20
"""


def _requests(tmp_path: Path, **files: str) -> Path:
    d = tmp_path / "requests"
    d.mkdir(exist_ok=True)
    for name, text in files.items():
        (d / f"{name}.txt").write_text(text, encoding="utf-8")
    return d


def _run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out), out.getvalue()


def test_a_request_without_its_question_line_is_refused_naming_the_file(tmp_path):
    d = _requests(tmp_path, plain=SCRIPT.split("\n", 1)[1])
    with pytest.raises(RequestError, match=r"plain\.txt: the first line must be '# Question:"):
        read_request(d / "plain.txt")


def test_an_explore_request_that_names_the_target_is_refused(tmp_path):
    d = _requests(tmp_path, ex="# Question: q\nexplore --target emu --sessions 1\n")
    with pytest.raises(RequestError, match=r"ex\.txt: an explore request takes every option "
                                           r"but --target"):
        read_request(d / "ex.txt")


def test_a_malformed_script_line_is_refused_with_its_file_and_line(tmp_path):
    d = _requests(tmp_path, bad=SCRIPT + "4.0 SOMETHING 0.2\n")
    with pytest.raises(RequestError, match=r"bad\.txt:5"):
        read_request(d / "bad.txt")


def test_an_action_off_the_frames_and_a_missing_run_length_are_problems(tmp_path):
    text = SCRIPT.replace("# run length: 3.000000 s\n", "").replace("2.000000", "2.005000")
    d = _requests(tmp_path, off=text)
    problems = request_problems(read_request(d / "off.txt"))
    assert any("no '# run length" in p for p in problems)
    assert any("2.005 s is not on a 1/60 s frame" in p for p in problems)


def test_a_game_powered_on_off_the_first_games_clock_phase_is_a_problem(tmp_path):
    d = _requests(tmp_path, two=SCRIPT.replace("3.000000 s", "9.000000 s")
                  + "3.000000 power off\n4.016667 power on\n5.016667 MOVE 0.2\n")
    req = read_request(d / "two.txt")
    assert req.games() == 2
    assert request_problems(req) == [f"{d / 'two.txt'}: power on at 4.016667 s is not on a "
                                     f"multiple of 0.05 s"]


def test_a_pattern_that_names_no_request_is_refused(tmp_path):
    d = _requests(tmp_path, one=SCRIPT)
    with pytest.raises(RequestError, match="'two_k\\*': names no request in"):
        find_requests(d, ["two_k*"])
    assert [r.name for r in find_requests(d, ["o*"])] == ["one"]


def test_requests_named_by_patterns_come_in_the_patterns_order(tmp_path):
    d = _requests(tmp_path, a_k00=SCRIPT, a_k01=SCRIPT, b_k00=SCRIPT)
    assert [r.name for r in find_requests(d)] == ["a_k00", "a_k01", "b_k00"]
    assert [r.name for r in find_requests(d, ["b_*", "a_k*", "b_k00"])] == [
        "b_k00", "a_k00", "a_k01"]


def test_a_script_request_recorded_on_the_emulator_has_the_labs_layout(tmp_path):
    d = _requests(tmp_path, one=SCRIPT)
    req = read_request(d / "one.txt")
    rec = record_script_request(req, TargetSpec("emu"), tmp_path / "exp")
    folder = tmp_path / "exp" / "one"
    assert rec.path == folder
    assert sorted(p.name for p in folder.iterdir()) == [
        "edges.jsonl.gz", "events.jsonl", "recording.json", "request.txt", "script.txt"]
    assert (folder / "request.txt").read_text(encoding="utf-8") == SCRIPT
    with gzip.open(folder / "edges.jsonl.gz", "rt", encoding="utf-8") as f:
        head = json.loads(f.readline())
    assert head["script"] == "one" and head["rom_sha1"] == target_rom_sha1(TargetSpec("emu"))
    cap = open_capture(folder / "edges.jsonl.gz")
    assert "K8" in cap.channels and cap.info.total_samples > 2.9 * 425_000
    assert request_status(req, tmp_path / "exp") == RECORDED


def test_recording_again_leaves_a_recorded_request_as_it_is(tmp_path):
    d = _requests(tmp_path, one=SCRIPT)
    exp = tmp_path / "exp"
    assert _run("requests", "record", "--requests", str(d), "--target", "cleanroom",
                "-o", str(exp), "--quiet")[0] == 0
    before = (exp / "one" / "events.jsonl").stat().st_mtime_ns
    code, text = _run("requests", "record", "--requests", str(d), "--target", "cleanroom",
                      "-o", str(exp), "--quiet")
    assert code == 0 and "one: recorded, left as it is" in text
    assert "recorded 0 of 1 request on cleanroom" in text
    assert (exp / "one" / "events.jsonl").stat().st_mtime_ns == before


def test_a_changed_request_is_recorded_anew_only_with_again_and_the_old_kept(tmp_path):
    d = _requests(tmp_path, one=SCRIPT)
    exp = tmp_path / "exp"
    args = ("requests", "record", "--requests", str(d), "--target", "cleanroom", "-o",
            str(exp), "--quiet")
    _run(*args)
    (d / "one.txt").write_text(SCRIPT.replace("MOVE", "NO/END"), encoding="utf-8")
    assert request_status(read_request(d / "one.txt"), exp) == CHANGED
    code, text = _run(*args)
    assert "one: changed since recorded, left as it is (--again records it anew)" in text
    code, text = _run(*args, "--again")
    assert code == 0 and f"the earlier recording kept as {exp / 'one.older'}" in text
    assert "MOVE" in (exp / "one.older" / "script.txt").read_text(encoding="utf-8")
    assert "NO/END" in (exp / "one" / "script.txt").read_text(encoding="utf-8")
    assert request_status(read_request(d / "one.txt"), exp) == RECORDED


def test_an_incomplete_recording_is_set_aside_and_the_request_recorded_again(tmp_path):
    d = _requests(tmp_path, one=SCRIPT)
    exp = tmp_path / "exp"
    (exp / "one").mkdir(parents=True)
    (exp / "one" / "events.jsonl").write_text('{"t": 0.5, "type": "gap"}\n')
    assert request_status(read_request(d / "one.txt"), exp) == INCOMPLETE
    code, text = _run("requests", "record", "--requests", str(d), "--target", "cleanroom",
                      "-o", str(exp), "--quiet")
    assert code == 0 and f"kept as {exp / 'one.incomplete'}" in text
    assert (exp / "one.incomplete" / "events.jsonl").read_text() == '{"t": 0.5, "type": "gap"}\n'
    assert (exp / "one" / "request.txt").exists()


def test_ctrl_c_in_a_batch_says_how_many_were_recorded_and_the_same_command_resumes(
        tmp_path, monkeypatch, capsys):
    import towerlab.cmd_requests as cmd

    d = _requests(tmp_path, a=SCRIPT, b=SCRIPT)
    exp = tmp_path / "exp"
    argv = ("requests", "record", "--requests", str(d), "--target", "cleanroom", "-o",
            str(exp), "--quiet")
    record = cmd._record_script

    def ctrl_c_at_b(req, *args):
        if req.name == "b":
            raise KeyboardInterrupt
        record(req, *args)
    monkeypatch.setattr(cmd, "_record_script", ctrl_c_at_b)
    assert _run(*argv)[0] == 130
    assert capsys.readouterr().err == ("towerlab: stopped at b with 1 of 2 requests recorded "
                                       "this time; the same command resumes the batch\n")
    monkeypatch.setattr(cmd, "_record_script", record)
    code, text = _run(*argv)
    assert code == 0 and "a: recorded, left as it is" in text
    assert (exp / "b" / "request.txt").exists()


def test_a_box_unplugged_mid_request_leaves_it_incomplete_and_readable(
        avr_tools, has_fx2lafw_firmware, tmp_path):
    d = _requests(tmp_path, one=SCRIPT)
    req = read_request(d / "one.txt")
    with pytest.raises(LinkLostError, match="went away"):
        record_script_request(req, TargetSpec("sim", virtual="fake"), tmp_path / "exp",
                              inject=lambda tg: tg.bench.at_session(1.7, tg.bench.unplug_box))
    folder = tmp_path / "exp" / "one"
    assert request_status(req, tmp_path / "exp") == INCOMPLETE
    assert not (folder / "request.txt").exists()
    assert load_recording(folder).meta["fault"]
    assert open_capture(folder / "capture.tlc").gaps


def test_an_explore_request_records_its_sessions_then_marks_it_whole(tmp_path):
    d = _requests(tmp_path, ex=EXPLORE)
    exp = tmp_path / "exp"
    code, text = _run("requests", "record", "--requests", str(d), "--target", "cleanroom",
                      "-o", str(exp), "--quiet")
    assert code == 0 and "ex: explored 1 session on cleanroom" in text
    assert (exp / "ex" / "request.txt").read_text(encoding="utf-8") == EXPLORE
    assert load_recording(exp / "ex" / "session_0001").events


def test_an_explore_request_for_a_tower_explore_cannot_play_is_refused_before_recording(
        tmp_path, capsys):
    d = _requests(tmp_path, a_script=SCRIPT, ex=EXPLORE)
    exp = tmp_path / "exp"
    code, _ = _run("requests", "record", "--requests", str(d), "--target", "fake",
                   "-o", str(exp))
    assert code == 2
    assert "ex.txt: an explore request plays on --target emu, cleanroom, real, not fake" in \
        capsys.readouterr().err
    assert not exp.exists()


def test_recording_on_the_emulator_without_the_genuine_rom_says_so(tmp_path):
    d = _requests(tmp_path, one=SCRIPT)
    code, text = _run("requests", "record", "--requests", str(d), "--target", "emu", "-o",
                      str(tmp_path / "exp"), "--quiet")
    assert code == 0
    assert text.splitlines()[0].startswith("warning: the emulator runs the demo firmware (ROM "
                                           "SHA-1 ")
    assert "not the genuine MP7332 (7edbff437da371390fa8f28b3d183f833eaa9be9)" in text


def test_clock_auto_is_refused_for_a_recording(tmp_path, capsys):
    d = _requests(tmp_path, one=SCRIPT)
    code, _ = _run("requests", "record", "--requests", str(d), "--target", "emu", "--clock",
                   "auto", "-o", str(tmp_path / "exp"))
    assert code == 2 and "--clock auto applies to rig check" in capsys.readouterr().err
    assert not (tmp_path / "exp").exists()


def test_a_tower_that_cannot_be_opened_leaves_no_folder_behind(tmp_path, capsys):
    d = _requests(tmp_path, one=SCRIPT)
    exp = tmp_path / "exp"
    code, _ = _run("requests", "record", "--requests", str(d), "--target", "real", "-o",
                   str(exp))
    assert code == 2 and "needs the button box's serial port" in capsys.readouterr().err
    assert not exp.exists()


def test_list_says_what_each_request_plays_and_whether_it_is_recorded(tmp_path):
    d = _requests(tmp_path, one=SCRIPT, ex=EXPLORE)
    code, text = _run("requests", "list", "--requests", str(d), "--recordings",
                      str(tmp_path / "exp"))
    assert code == 0
    lines = text.splitlines()
    assert lines[0].startswith("ex ") and lines[0].endswith(f"  {NOT_RECORDED}")
    assert lines[0].split()[1:4] == ["explore", "explore", "--sessions"]
    assert lines[1].split()[:5] == ["one", "script", "1", "game,", "3.0"]
    assert lines[-1] == (f"2 requests in {tmp_path / 'exp'}: 2 not recorded; the scripts "
                         f"play 0.0 h of tower time, besides 1 explore request")


def test_list_exits_1_and_names_each_problem(tmp_path):
    d = _requests(tmp_path, off=SCRIPT.replace("2.000000", "2.005000"))
    code, text = _run("requests", "list", "--requests", str(d))
    assert code == 1 and "problem: " in text and "not on a 1/60 s frame" in text


def test_list_lists_the_requests_that_read_beside_one_that_does_not(tmp_path):
    d = _requests(tmp_path, bad=SCRIPT + "4.0 JUMP 0.2\n", good=SCRIPT)
    code, text = _run("requests", "list", "--requests", str(d))
    lines = text.splitlines()
    assert code == 1 and lines[0].startswith("good ")
    assert lines[1] == f"problem: {d / 'bad.txt'}:5: unknown button 'JUMP' (expected one of " \
        f"YES/BUY, REPEAT, NO/END, HAGGLE, BAZAAR, CLEAR, TOMB/RUIN, MOVE, SANCTUARY/CITADEL, " \
        f"DARK TOWER, FRONTIER, INVENTORY)"
    assert lines[-1].startswith("1 request;")


@pytest.mark.parametrize("line, named", [
    ("explore --nosuch 3", "unrecognized arguments: --nosuch 3"),
    ("explore --seed zz", "argument --seed: invalid int value: 'zz'"),
    ("explore --sessions 0", "--sessions 0: expected a number of sessions >= 1"),
    ("explore --level 9", "level 9: expected 1, 2, 3 or 4"),
    ("explore --help", "the explore options ask for help"),
])
def test_list_names_an_explore_request_whose_options_do_not_run(tmp_path, line, named):
    d = _requests(tmp_path, ex=f"# Question: q\n{line}\n")
    code, text = _run("requests", "list", "--requests", str(d))
    problems = [s for s in text.splitlines() if s.startswith("problem: ")]
    assert code == 1 and len(problems) == 1
    assert "ex.txt: the explore options" in problems[0] and named in problems[0]


def test_record_refuses_an_explore_request_whose_options_do_not_run_in_one_line(
        tmp_path, capsys):
    d = _requests(tmp_path, a_script=SCRIPT, ex="# Question: q\nexplore --games 5\n")
    exp = tmp_path / "exp"
    code, _ = _run("requests", "record", "--requests", str(d), "--target", "cleanroom",
                   "-o", str(exp), "--quiet")
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert "ex.txt: the explore options do not run" in err[0] and "--games 5" in err[0]
    assert not exp.exists()      # refused before the script request was recorded


def test_list_refuses_recordings_that_are_a_file(tmp_path, capsys):
    d = _requests(tmp_path, one=SCRIPT)
    (tmp_path / "exp").write_text("")
    code, _ = _run("requests", "list", "--requests", str(d), "--recordings",
                   str(tmp_path / "exp"))
    assert code == 2 and "exp: not a folder of recordings" in capsys.readouterr().err
