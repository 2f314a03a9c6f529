"""The pytest plugin's --tower=rtdt-sim and --tower=rtdt:ADDRESS (opt-in with --hw)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

USER_TESTS = '''
from captures.rtdt_script import parse_rtdt_script
from rig.rtdt.tower import run_rtdt_script

def test_a_calibrated_drum_turns_and_reports(tower):
    run_rtdt_script(tower, parse_rtdt_script("0 calibrate\\n7 rotate top east\\n"
                                             "# run length: 12 s\\n"))
    assert any(e["type"] == "rotation" for e in tower.events())

def test_the_rtdt_fixture_gives_a_connected_tower(rtdt_tower):
    rtdt_tower.advance(1.0)
    assert any(e["type"] == "battery" for e in rtdt_tower.events())
'''


def _pytest(tmp_path, *opts):
    (tmp_path / "test_user.py").write_text(USER_TESTS)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:towerlab_rig", "-p",
                           "rig.pytest_plugin", "-p", "no:cacheprovider", *opts, str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


def test_tower_rtdt_sim_gives_user_tests_the_virtual_return_to_dark_tower(tmp_path):
    proc = _pytest(tmp_path, "--tower=rtdt-sim")
    assert "2 passed" in proc.stdout, proc.stdout + proc.stderr


def test_a_real_rtdt_address_needs_hw(tmp_path):
    proc = _pytest(tmp_path, "--tower=rtdt:DA:4C:10:00:00:01")
    assert proc.returncode == 4
    assert "drives a real Return to Dark Tower over Bluetooth LE: add --hw" in proc.stderr


def test_an_unknown_tower_is_refused_with_the_choices(tmp_path):
    proc = _pytest(tmp_path, "--tower=rtdt")
    assert proc.returncode == 4 and "rtdt-sim, rtdt:ADDRESS" in proc.stderr


def test_rtdt_params_that_do_not_load_are_a_usage_error(tmp_path):
    bad = tmp_path / "p.json"
    bad.write_text('{"nope": 1}')
    proc = _pytest(tmp_path, "--tower=rtdt-sim", f"--rtdt-params={bad}")
    assert proc.returncode == 4 and "unknown RTDT parameter 'nope'" in proc.stderr
