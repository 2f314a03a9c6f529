"""Shared pytest options and fixtures.

- ``--hw``: run tests that need a real tower/probe/analyser (opt-in).
- ``--romset PATH``: run tests that need the user's genuine romset (mbdtower.zip); also
  taken from the environment variable TOWERLAB_ROMSET.
- ``--strict-skips`` (or TOWERLAB_STRICT_SKIPS=1, what ``.ci/run`` sets): a skip that is not
  opt-in fails (tests/skippolicy.py); every run ends with a line naming the real tools used.
- TOWERLAB_MAME: the MAME executable the cross-checks drive (default /usr/games/mame).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests import skippolicy  # noqa: E402
from tests.skippolicy import require_file, require_tool  # noqa: E402,F401

DATA = ROOT / "tests" / "data"
MAME = os.environ.get("TOWERLAB_MAME", "/usr/games/mame")


def pytest_addoption(parser):
    parser.addoption("--hw", action="store_true", default=False,
                     help="run tests that need real hardware (a tower and the probe)")
    parser.addoption("--romset", default=os.environ.get("TOWERLAB_ROMSET"),
                     help="path to the user's genuine mbdtower romset (zip or folder)")
    skippolicy.add_option(parser)


def pytest_configure(config):
    config.addinivalue_line("markers", "romset: needs the genuine romset (--romset PATH)")
    skippolicy.register(config)


def pytest_collection_modifyitems(config, items):
    """Leave out (deselect, not skip) the opt-in tests: real hardware (--hw) and the user's
    genuine romset (--romset), so a plain run reports no skips for things we cannot ship."""
    keep, dropped = [], []
    for item in items:
        if "hw" in item.keywords and not config.getoption("--hw"):
            dropped.append(item)
        elif "romset" in item.keywords and not config.getoption("--romset"):
            dropped.append(item)
        else:
            keep.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def pytest_report_header(config):
    notes = []
    if not config.getoption("--hw"):
        notes.append("hardware tests left out (opt in with --hw)")
    if not config.getoption("--romset"):
        notes.append("genuine-romset tests left out (opt in with --romset mbdtower.zip)")
    if skippolicy.strict_enabled(config):
        notes.append("strict skips: a skip that is not opt-in (--hw, --romset, --tower=real) "
                     "fails")
    return notes


@pytest.fixture
def mame_binary() -> str:
    return require_tool(MAME, "mame")


@pytest.fixture
def sigrok_cli() -> str:
    return require_tool("sigrok-cli", "sigrok-cli")


@pytest.fixture
def tmux():
    """A tmux command prefix on a server of this test's own, killed after it: a real
    terminal for the front-ends (towerlab play, cleanroom-play)."""
    import subprocess
    import uuid

    path = require_tool("tmux", "tmux")
    sock = f"towerlab-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"   # one tmux server per test
    yield [path, "-L", sock]
    subprocess.run([path, "-L", sock, "kill-server"], capture_output=True, timeout=10)


@pytest.fixture
def romset(request):
    return request.config.getoption("--romset")


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    """Every test gets its own cache folder (XDG_CACHE_HOME): ``towerlab conform`` keeps its
    witnesses there (rig.conformance), and a test must neither read a witness another run
    left in the user's ~/.cache nor leave one there."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
