"""The skip policy (tests/skippolicy.py): strict mode refuses skips that are not opt-in, and
every run ends with the line of tools used (with versions) and the line of skips (with why).

Each test runs a small pytest session in a subprocess on test files written to a temporary
folder, with the policy registered by a conftest as ours does.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.skippolicy import STRICT_ENV, is_opt_in

ROOT = Path(__file__).resolve().parent.parent

CONFTEST = '''
import pytest
from tests import skippolicy
from tests.skippolicy import require_tool

def pytest_addoption(parser):
    skippolicy.add_option(parser)

def pytest_configure(config):
    config.addinivalue_line("markers", "romset: opt-in")
    skippolicy.register(config)

@pytest.fixture(scope="session")
def shell():
    return require_tool("sh", "dash")
'''

MISSING_TOOL = '''
from tests.skippolicy import require_tool

def test_needs_a_missing_tool():
    require_tool("/nonexistent/towerlab-no-such-tool", "no-such-package")
'''

OPT_IN = '''
import pytest

def test_hardware_only():
    pytest.skip("needs a real tower: run with --hw")

@pytest.mark.romset
def test_romset_only():
    pytest.skip("not the known-good dump")
'''

TOOL_USERS = '''
def test_one(shell):
    assert shell.endswith("sh")

def test_two(shell):
    assert shell.endswith("sh")

def test_three():
    pass
'''

MODULE_SKIP = '''
import pytest
pytest.importorskip("towerlab_module_that_does_not_exist")

def test_never_collected():
    pass
'''


def run_session(tmp_path: Path, files: dict[str, str], *args: str,
                strict: bool = False) -> subprocess.CompletedProcess:
    """Run pytest on ``files`` (plus the policy's conftest) and return the finished process."""
    (tmp_path / "conftest.py").write_text(CONFTEST)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    env = {k: v for k, v in os.environ.items() if k != STRICT_ENV}
    env["PYTHONPATH"] = str(ROOT)
    if strict:
        env[STRICT_ENV] = "1"
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:towerlab_rig", *args, str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)


def test_strict_mode_fails_a_test_that_skips_for_a_missing_tool(tmp_path):
    proc = run_session(tmp_path, {"test_missing.py": MISSING_TOOL}, strict=True)
    assert proc.returncode == 1, proc.stdout
    assert "1 failed" in proc.stdout
    assert "towerlab-no-such-tool not found: apt-get install -y no-such-package" in proc.stdout
    assert "strict skips: 1 skips refused as failures" in proc.stdout


def test_the_strict_skips_option_works_like_the_environment_variable(tmp_path):
    proc = run_session(tmp_path, {"test_missing.py": MISSING_TOOL}, "--strict-skips")
    assert proc.returncode == 1 and "1 failed" in proc.stdout, proc.stdout


def test_without_strict_mode_a_missing_tool_is_a_skip_named_in_the_summary(tmp_path):
    proc = run_session(tmp_path, {"test_missing.py": MISSING_TOOL})
    assert proc.returncode == 0, proc.stdout
    assert ("skipped 1: /nonexistent/towerlab-no-such-tool not found: apt-get install -y "
            "no-such-package (make test does it as root) (1 tests)") in proc.stdout


def test_strict_mode_keeps_opt_in_skips_by_reason_or_marker(tmp_path):
    proc = run_session(tmp_path, {"test_opt_in.py": OPT_IN}, strict=True)
    assert proc.returncode == 0, proc.stdout
    assert "2 skipped" in proc.stdout


def test_strict_mode_turns_a_skip_while_collecting_into_an_error(tmp_path):
    proc = run_session(tmp_path, {"test_module.py": MODULE_SKIP}, strict=True)
    assert proc.returncode != 0, proc.stdout
    assert "1 error" in proc.stdout
    assert "towerlab_module_that_does_not_exist" in proc.stdout


def _dash_version() -> str:
    out = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "dash"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        pytest.fail("dpkg-query does not know dash: this test expects a Debian system")
    return out.stdout.strip()


def test_the_summary_names_each_tool_its_version_and_the_tests_that_used_it(tmp_path):
    proc = run_session(tmp_path, {"test_users.py": TOOL_USERS}, strict=True)
    assert proc.returncode == 0, proc.stdout
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("tools ("))
    sh = subprocess.run(["sh", "-c", "command -v sh"], capture_output=True, text=True)
    assert line == f"tools (strict skips): sh {_dash_version()} ({sh.stdout.strip()}, 2 tests)"
    assert "skipped: none" in proc.stdout


def test_the_summary_counts_the_same_under_two_xdist_workers(tmp_path):
    proc = run_session(tmp_path, {"test_users.py": TOOL_USERS}, "-n", "2", strict=True)
    assert proc.returncode == 0, proc.stdout
    assert "/sh, 2 tests)" in proc.stdout, proc.stdout


def test_reasons_naming_an_opt_in_option_are_opt_in():
    assert is_opt_in("needs a real tower on the bench: run with --tower=real --tower-port X")
    assert is_opt_in("whatever", ["romset"])
    assert not is_opt_in("mame not found: apt-get install -y mame", ["mame"])
