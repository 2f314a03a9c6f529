"""Shared pytest options and fixtures.

- ``--hw``: run tests that need a real tower/probe/analyser (opt-in).
- ``--romset PATH``: run tests that need the user's genuine romset (mbdtower.zip); also
  taken from the environment variable TOWERLAB_ROMSET.
"""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DATA = ROOT / "tests" / "data"
MAME = "/usr/games/mame"


def pytest_addoption(parser):
    parser.addoption("--hw", action="store_true", default=False,
                     help="run tests that need real hardware (a tower and the probe)")
    parser.addoption("--romset", default=os.environ.get("TOWERLAB_ROMSET"),
                     help="path to the user's genuine mbdtower romset (zip or folder)")


def pytest_configure(config):
    config.addinivalue_line("markers", "romset: needs the genuine romset (--romset PATH)")


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
    return notes


def require_tool(path: str, package: str) -> str:
    """Return the tool's path, or skip saying how to install it."""
    found = shutil.which(path) or (path if os.path.exists(path) else None)
    if not found:
        pytest.skip(f"{path} not found: apt-get install -y {package} (make test does it as root)")
    return found


@pytest.fixture
def mame_binary() -> str:
    return require_tool(MAME, "mame")


@pytest.fixture
def sigrok_cli() -> str:
    return require_tool("sigrok-cli", "sigrok-cli")


@pytest.fixture
def romset(request):
    return request.config.getoption("--romset")
