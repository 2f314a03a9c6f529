"""Every mistake a user can make with towerlab rig is one line naming the file or value, exit
status 2, and nothing written half-way."""
from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from towerlab.cli import main

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "captures"
TOWER_TEST = DATA / "tower_test"


def _run(argv, capsys):
    out = io.StringIO()
    code = main([str(a) for a in argv], out)
    return code, out.getvalue(), capsys.readouterr().err


def _one_line(code: int, err: str, *words: str) -> bool:
    return code == 2 and err.count("\n") == 1 and all(w in err for w in words)


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "s.txt"
    path.write_text("# run length: 1.5 s\n0.5 MOVE 0.2\n")
    return path


@pytest.fixture
def recording(tmp_path, script, capsys):
    rec = tmp_path / "rec"
    assert _run(["rig", "record", "--script", script, "--target", "emu", "--out", rec],
                capsys)[0] == 0
    return rec


def test_record_of_a_script_that_is_not_text_names_the_script(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\x8b\xac\x00\xff garbage")
    code, _, err = _run(["rig", "record", "--script", bad, "--target", "emu", "--out",
                         tmp_path / "r"], capsys)
    assert _one_line(code, err, "bad.txt: not a text script") and not (tmp_path / "r").exists()


def test_record_of_an_empty_script_says_there_is_nothing_to_record(tmp_path, capsys):
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n")
    code, _, err = _run(["rig", "record", "--script", empty, "--target", "emu", "--out",
                         tmp_path / "r"], capsys)
    assert _one_line(code, err, "empty.txt", "nothing to record")


def test_record_into_a_file_says_it_is_not_a_directory(tmp_path, script, capsys):
    (tmp_path / "afile").write_text("mine")
    code, _, err = _run(["rig", "record", "--script", script, "--target", "emu", "--out",
                         tmp_path / "afile"], capsys)
    assert _one_line(code, err, "afile: exists and is not a directory")
    assert (tmp_path / "afile").read_text() == "mine"


def test_record_never_overwrites_a_folder_that_is_not_a_recording(tmp_path, script, capsys):
    folder = tmp_path / "my_capture"
    shutil.copytree(TOWER_TEST, folder)
    before = (folder / "events.jsonl").read_text()
    code, _, err = _run(["rig", "record", "--script", script, "--target", "emu", "--out",
                         folder], capsys)
    assert _one_line(code, err, "not empty and not a recording")
    assert (folder / "events.jsonl").read_text() == before


def test_record_replaces_an_older_recording(recording, tmp_path, capsys):
    longer = tmp_path / "longer.txt"
    longer.write_text("# run length: 2.5 s\n0.5 MOVE 0.2\n")
    code, _, _ = _run(["rig", "record", "--script", longer, "--target", "emu", "--out",
                       recording], capsys)
    meta = json.loads((recording / "recording.json").read_text())
    assert code == 0 and meta["script_end_s"] == 2.5


@pytest.mark.parametrize("option,value,words", [
    ("--samplerate", "-5", ("samplerate -5.0", "positive number of Hz")),
    ("--analyser", "foo", ("unknown analyser 'foo'", "sigrok:DRIVER")),
    ("--clock", "1e12", ("clock 1000000000000.0 Hz", "1 kHz to 10 MHz")),
])
def test_record_with_a_bad_option_value_names_it(option, value, words, tmp_path, script,
                                                 capsys):
    code, _, err = _run(["rig", "record", "--script", script, "--target", "emu", option, value,
                         "--out", tmp_path / "r"], capsys)
    assert _one_line(code, err, *words) and not (tmp_path / "r").exists()


def test_a_channel_map_naming_no_tower_pin_names_the_map_file(tmp_path, script, capsys):
    cmap = tmp_path / "probe.map"
    cmap.write_text("D0 = R4\nD1 = R99\n")
    code, _, err = _run(["rig", "record", "--script", script, "--target", "sim",
                         "--channel-map", cmap, "--out", tmp_path / "r"], capsys)
    assert _one_line(code, err, "probe.map", "'R99'") and not (tmp_path / "r").exists()


def test_an_interrupted_record_leaves_no_directory(tmp_path, script):
    from rig.record import record
    from rig.specs import TargetSpec

    def interrupt(done, total):
        if done >= 0.5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        record(str(script), TargetSpec("fake"), tmp_path / "r", progress=interrupt)
    assert not (tmp_path / "r").exists()


def test_check_of_a_recording_json_that_is_not_an_object_is_one_line(recording, capsys):
    (recording / "recording.json").write_text("[1, 2]\n")
    code, _, err = _run(["rig", "check", recording, "--target", "emu"], capsys)
    assert _one_line(code, err, "recording.json: expected format 'towerlab-recording'")


def test_check_of_a_recording_json_with_a_wrong_field_names_the_field(recording, capsys):
    meta = json.loads((recording / "recording.json").read_text())
    meta["observed"] = 5
    (recording / "recording.json").write_text(json.dumps(meta))
    code, _, err = _run(["rig", "check", recording, "--target", "emu"], capsys)
    assert _one_line(code, err, "recording.json: 'observed' is 5")


def test_check_of_events_that_are_not_text_names_the_events_file(recording, capsys):
    (recording / "events.jsonl").write_bytes(b"\xfa\xfb\x00garbage")
    code, _, err = _run(["rig", "check", recording, "--target", "emu"], capsys)
    assert _one_line(code, err, "events.jsonl: not a JSON-lines events file")


def test_check_of_a_file_says_it_is_not_a_recording(tmp_path, capsys):
    (tmp_path / "afile").write_text("x")
    code, _, err = _run(["rig", "check", tmp_path / "afile", "--target", "emu"], capsys)
    assert _one_line(code, err, "afile: not a recording")


def test_check_takes_a_shared_capture_folder_as_the_recording(capsys):
    code, out, _ = _run(["rig", "check", TOWER_TEST, "--target", "replay", "--replay",
                         TOWER_TEST], capsys)
    assert code == 0 and out.startswith("equivalent")


def test_check_of_unrelated_towers_compares_on_the_same_clock(tmp_path, capsys):
    rec = tmp_path / "emu"
    assert _run(["rig", "record", "--script", TOWER_TEST / "script.txt", "--target", "emu",
                 "--out", rec], capsys)[0] == 0
    code, out, _ = _run(["rig", "check", rec, "--target", "fake"], capsys)
    assert code == 1 and "(clock ratio 1.0000, offset +0.0000 s" in out


def test_import_with_a_missing_script_leaves_nothing(tmp_path, capsys):
    code, _, err = _run(["rig", "import", TOWER_TEST / "capture.sr", "--script",
                         tmp_path / "nope.txt", "--out", tmp_path / "imp"], capsys)
    assert _one_line(code, err, "nope.txt: cannot read script")
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_import_with_a_script_that_is_not_text_leaves_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\xac\xff\x00")
    code, _, err = _run(["rig", "import", TOWER_TEST / "capture.sr", "--script", bad, "--out",
                         tmp_path / "imp"], capsys)
    assert _one_line(code, err, "bad.txt: not a text script")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.txt"]


def test_import_replaces_an_older_recording_whole(tmp_path, capsys):
    rec = tmp_path / "imp"
    args = ["rig", "import", TOWER_TEST / "capture.sr", "--out", rec]
    assert _run(args + ["--script", TOWER_TEST / "script.txt"], capsys)[0] == 0
    assert _run(args, capsys)[0] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["imp"]
    assert (rec / "script.txt").read_text().startswith("# run length: 15.51")


USER_TEST = '''
def test_uses_the_tower(tower):
    pass
'''


def _user_pytest(tmp_path, *options):
    (tmp_path / "test_user.py").write_text(USER_TEST)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:towerlab_rig", "-p",
                           "rig.pytest_plugin", "-p", "no:cacheprovider", *options,
                           str(tmp_path)], capture_output=True, text=True, cwd=tmp_path,
                          timeout=300, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


def test_the_pytest_plugin_asks_for_the_port_of_a_real_tower_before_running(tmp_path):
    proc = _user_pytest(tmp_path, "--tower=real")
    assert proc.returncode == 4
    assert "--tower=real needs the button box's serial port" in proc.stderr


def test_the_pytest_plugin_reports_a_tower_that_cannot_open_in_one_line(tmp_path):
    rom = tmp_path / "short.bin"
    rom.write_bytes(bytes(300))
    proc = _user_pytest(tmp_path, "--tower=emu", f"--tower-romset={rom}")
    assert "1 error" in proc.stdout and "Traceback" not in proc.stdout
    assert "cannot open the emu tower: " in proc.stdout and "expected 4096" in proc.stdout


def test_firmware_into_a_file_says_it_is_not_a_build_directory(tmp_path, capsys):
    (tmp_path / "afile").write_text("mine")
    code, _, err = _run(["rig", "firmware", "--out", tmp_path / "afile"], capsys)
    assert _one_line(code, err, "afile: exists and is not a directory")


def test_record_with_clock_auto_says_it_belongs_to_check(tmp_path, script, capsys):
    code, _, err = _run(["rig", "record", "--script", script, "--target", "emu", "--clock",
                         "auto", "--out", tmp_path / "r"], capsys)
    assert _one_line(code, err, "--clock auto applies to rig check")


def test_check_against_the_clean_room_game_resolves_its_random_decisions(capsys):
    code, out, _ = _run(["rig", "check", DATA / "level4_bazaar", "--target", "cleanroom"],
                        capsys)
    assert code == 0 and out.startswith("equivalent: the clean-room game conforms")


def test_check_against_the_clean_room_game_compares_only_what_the_probe_saw(tmp_path, capsys):
    cmap = tmp_path / "eight.map"
    cmap.write_text("".join(f"{p} = {p}\n" for p in ("R4", "R5", "R6", "R7", "R8", "R9",
                                                      "R10", "K8")))
    rec = tmp_path / "eight"
    assert _run(["rig", "import", DATA / "level4_bazaar" / "capture.sr", "--channel-map", cmap,
                 "--script", DATA / "level4_bazaar" / "script.txt", "--out", rec],
                capsys)[0] == 0
    code, out, _ = _run(["rig", "check", rec, "--target", "cleanroom"], capsys)
    assert code == 0 and out.startswith("equivalent")


def test_check_against_the_clean_room_game_names_the_first_difference(tmp_path, capsys):
    shutil.copytree(TOWER_TEST, tmp_path / "ref")
    events = tmp_path / "ref" / "events.jsonl"
    events.write_text(events.read_text().replace('"text": "88"', '"text": "87"'))
    code, out, _ = _run(["rig", "check", tmp_path / "ref", "--target", "cleanroom"], capsys)
    assert code == 1 and out.startswith("first difference") and "'87'" in out


def test_check_against_the_clean_room_game_refuses_a_clock(capsys):
    code, _, err = _run(["rig", "check", TOWER_TEST, "--target", "cleanroom", "--clock", "auto"],
                        capsys)
    assert _one_line(code, err, "--clock applies to the emu and sim targets")


def test_check_against_the_clean_room_game_takes_the_resolvers_budget(capsys,
                                                                    resolver_budgets):
    code, out, _ = _run(["rig", "check", DATA / "level4_bazaar", "--target", "cleanroom",
                         "--search-budget", "300"], capsys)
    assert code == 0 and resolver_budgets == [300]
    assert out.splitlines()[0].startswith("search budget: 300 replays for each 400 s")
    assert out.splitlines()[1].startswith("equivalent: the clean-room game conforms")


def test_check_given_the_default_budget_says_nothing_of_it(capsys, resolver_budgets):
    from cleanroom.conform import MAX_RUNS

    code, out, _ = _run(["rig", "check", DATA / "level4_bazaar", "--target", "cleanroom",
                         "--search-budget", str(MAX_RUNS)], capsys)
    assert code == 0 and resolver_budgets == [MAX_RUNS]
    assert out.splitlines()[0].startswith("equivalent: the clean-room game conforms")


def test_a_search_budget_below_one_is_refused(capsys):
    code, _, err = _run(["rig", "check", TOWER_TEST, "--target", "cleanroom",
                         "--search-budget", "0"], capsys)
    assert _one_line(code, err, "--search-budget 0", "replays >= 1")


def test_a_search_budget_belongs_to_the_clean_room_game(capsys):
    code, _, err = _run(["rig", "check", TOWER_TEST, "--target", "emu", "--search-budget",
                         "200"], capsys)
    assert _one_line(code, err, "--search-budget applies to the cleanroom target")


def test_a_recording_keeps_the_script_exactly_as_given(tmp_path, capsys):
    rec = tmp_path / "rec"
    src = DATA / "level_select" / "script.txt"
    assert _run(["rig", "record", "--script", src, "--target", "emu", "--out", rec],
                capsys)[0] == 0
    assert (rec / "script.txt").read_text() == src.read_text()


def test_import_starts_the_session_at_the_towers_power_on(tmp_path, capsys):
    import numpy as np

    from captures.formats import open_capture, write_capture
    from captures.model import CaptureInfo, MemoryCapture

    mem = open_capture(TOWER_TEST / "capture.sr").to_memory()
    late = MemoryCapture(CaptureInfo(list(mem.info.channels), mem.info.samplerate,
                                     mem.info.total_samples + 250_000),
                         np.concatenate([[0], mem.times + 250_000]).astype(np.int64),
                         np.concatenate([[0], mem.words]).astype(np.uint64))
    write_capture(late, tmp_path / "late.tlc")
    rec = tmp_path / "rec"
    assert _run(["rig", "import", tmp_path / "late.tlc", "--script", TOWER_TEST / "script.txt",
                 "--out", rec], capsys)[0] == 0
    code, out, _ = _run(["rig", "check", rec, "--target", "replay", "--replay", TOWER_TEST],
                        capsys)
    assert code == 0 and out.startswith("equivalent")
    assert json.loads((rec / "recording.json").read_text())["t0_sample"] == 250_000
    shown = [json.loads(line) for line in (rec / "events.jsonl").read_text().splitlines()]
    assert [e["t"] for e in shown if e["type"] == "display"][0] == 0.0


def test_import_start_outside_the_capture_is_one_line(tmp_path, capsys):
    code, _, err = _run(["rig", "import", TOWER_TEST / "capture.sr", "--start", "99", "--out",
                         tmp_path / "r"], capsys)
    assert _one_line(code, err, "--start 99.0", "switched on") and not (tmp_path / "r").exists()


def test_clock_auto_without_a_plausible_fit_compares_at_the_nominal_clock_and_says_why(
        tmp_path, capsys):
    script = tmp_path / "s.txt"
    script.write_text("# run length: 3 s\n1.2 MOVE 0.2\n2.0 CLEAR 0.3\n")
    rec = tmp_path / "fake"
    assert _run(["rig", "record", "--script", script, "--target", "fake", "--out", rec],
                capsys)[0] == 0
    code, out, _ = _run(["rig", "check", rec, "--target", "emu", "--clock", "auto"], capsys)
    assert code == 1 and out.startswith("first difference")
    assert "note: --clock auto: " in out and "compared at 425 kHz" in out


def test_checking_a_genuine_capture_against_the_demo_firmware_says_the_roms_differ(tmp_path):
    import io

    from towerlab.cli import main

    out = io.StringIO()
    code = main(["rig", "check", str(TOWER_TEST), "--target", "emu"], out)
    first = out.getvalue().splitlines()[0]
    assert code == 1
    assert first.startswith("note: the recording was made with ROM 7edbff437da3...")
    assert "the demo firmware" in first and "pass --romset" in first
