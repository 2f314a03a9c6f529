"""The rig's command line (towerlab rig ...) and its pytest plugin."""
from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from towerlab.cli import main

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "captures"


def _run(argv, capsys):
    out = io.StringIO()
    code = main(argv, out)
    return code, out.getvalue(), capsys.readouterr().err


def test_import_turns_a_shared_sigrok_capture_into_a_checkable_recording(tmp_path, capsys):
    rec = tmp_path / "imported"
    code, out, _ = _run(["rig", "import", str(DATA / "tower_test" / "capture.sr"), "--out",
                         str(rec), "--script", str(DATA / "tower_test" / "script.txt")], capsys)
    assert code == 0 and "events" in out
    texts = [line for line in (rec / "events.jsonl").read_text().splitlines() if "88" in line]
    assert texts and (rec / "capture.tlc").exists() and (rec / "recording.json").exists()


def test_check_of_a_folder_that_is_not_a_recording_is_one_line(tmp_path, capsys):
    code, _, err = _run(["rig", "check", str(tmp_path), "--target", "fake"], capsys)
    assert code == 2 and err.count("\n") == 1 and "not a recording" in err


def test_status_on_a_missing_port_is_one_line_with_the_fix(capsys):
    code, _, err = _run(["rig", "status", "--port", "/dev/ttyTOWERLAB-none"], capsys)
    assert code == 2 and err.count("\n") == 1 and "plugged in" in err


def test_real_target_without_a_port_asks_for_one(tmp_path, capsys):
    script = tmp_path / "s.txt"
    script.write_text("1 MOVE 0.1\n")
    code, _, err = _run(["rig", "record", "--script", str(script), "--target", "real", "--out",
                         str(tmp_path / "r")], capsys)
    assert code == 2 and "--port /dev/ttyACM0" in err


def test_a_bad_clock_value_is_one_line(tmp_path, capsys):
    code, _, err = _run(["rig", "check", str(tmp_path), "--target", "emu", "--clock", "fast"],
                        capsys)
    assert code == 2 and "expected a frequency in Hz or 'auto'" in err


def test_firmware_builds_a_hex_and_prints_the_avrdude_line(avr_tools, tmp_path, capsys):
    code, out, _ = _run(["rig", "firmware", "--out", str(tmp_path), "--board", "nano"], capsys)
    assert code == 0
    hex_line, flash_line = out.splitlines()
    assert hex_line.endswith(".hex") and Path(hex_line.split(": ", 1)[1]).read_text()[0] == ":"
    assert "avrdude -p m328p -c arduino -P /dev/ttyACM0 -b 57600" in flash_line


PLUGIN_TESTS = '''
import pytest
from captures.script import parse_script
from captures.tower import run_script

def test_a_key_press_shows_on_the_display(tower):
    events = run_script(tower, parse_script("# run length: 1.5 s\\n0.5 MOVE 0.2\\n"))
    assert any(e["type"] == "display" and e["text"] == "08" for e in events)

@pytest.mark.real_tower
def test_only_on_the_bench(tower):
    raise AssertionError("must not run without --tower=real")
'''


def test_the_pytest_plugin_gives_user_tests_a_tower_and_keeps_hardware_opt_in(tmp_path):
    (tmp_path / "test_user.py").write_text(PLUGIN_TESTS)
    # no:towerlab_rig: if the package's pytest11 entry point already loads the plugin, load it
    # once, by module name.
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:towerlab_rig", "-p",
                           "rig.pytest_plugin", "-p", "no:cacheprovider", "--tower=fake", "-rs",
                           str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert "1 passed, 1 skipped" in proc.stdout, proc.stdout + proc.stderr
    assert "--tower=real" in proc.stdout


def test_a_failed_record_leaves_no_half_written_directory(tmp_path, capsys):
    script = tmp_path / "s.txt"
    script.write_text("1 MOVE 0.1\n")
    out = tmp_path / "never"
    code, _, err = _run(["rig", "record", "--script", str(script), "--target", "real",
                         "--port", "/dev/ttyTOWERLAB-none", "--out", str(out)], capsys)
    assert code == 2 and "no such serial port" in err and not out.exists()


def test_a_failed_record_leaves_no_parent_directory_it_made_either(tmp_path, capsys):
    script = tmp_path / "s.txt"
    script.write_text("1 MOVE 0.1\n")
    out = tmp_path / "new" / "deeper" / "rec"
    code, _, err = _run(["rig", "record", "--script", str(script), "--target", "real",
                         "--port", "/dev/ttyTOWERLAB-none", "--out", str(out)], capsys)
    assert code == 2 and "no such serial port" in err and not (tmp_path / "new").exists()


def test_the_emulator_target_records_its_pins_and_events(tmp_path, capsys):
    script = tmp_path / "s.txt"
    script.write_text("# run length: 2 s\n1 YES/BUY 0.2\n")
    code, out, _ = _run(["rig", "record", "--script", str(script), "--target", "emu", "--out",
                         str(tmp_path / "emu")], capsys)
    meta = (tmp_path / "emu" / "recording.json").read_text()
    assert code == 0 and '"samplerate": 425000' in meta
    assert (tmp_path / "emu" / "capture.tlc").stat().st_size > 0


def test_a_recording_checks_equivalent_against_its_own_replay(tmp_path, capsys):
    script = tmp_path / "s.txt"
    script.write_text("# run length: 2 s\n0.7 MOVE 0.2\n")
    rec = str(tmp_path / "rec")
    assert _run(["rig", "record", "--script", str(script), "--target", "fake", "--out", rec],
                capsys)[0] == 0
    code, out, _ = _run(["rig", "check", rec, "--target", "replay", "--replay", rec], capsys)
    assert code == 0 and out.startswith("equivalent")


def test_record_reports_progress_up_to_the_run_length(tmp_path):
    from rig.record import record
    from rig.specs import TargetSpec
    script = tmp_path / "s.txt"
    script.write_text("# run length: 1.5 s\n0.5 MOVE 0.2\n")
    seen = []
    record(str(script), TargetSpec("fake"), tmp_path / "rec",
           progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (1.5, 1.5) and [d for d, _ in seen] == sorted(d for d, _ in seen)
