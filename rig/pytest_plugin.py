"""A pytest plugin: write your own regression tests against any tower.

Options::

    --tower=emu|cleanroom|sim|fake|real   which tower the ``tower`` fixture opens (default emu)
    --tower-romset PATH                   genuine romset for emu (else the demo firmware)
    --tower-port /dev/ttyACM0             button box (real)
    --tower-analyser fx2lafw|sigrok:DRV   analyser (real)
    --tower-channel-map FILE              probe -> pin map (real, sim)

The ``tower`` fixture yields a fresh tower answering captures.tower.Tower, powered on at t = 0,
and closes it afterwards. Tests marked ``@pytest.mark.real_tower`` need the real bench and are
skipped unless ``--tower=real`` is given: hardware tests are opt-in. Example::

    from captures.tower import run_script
    from captures.script import parse_script

    def test_yes_starts_the_reel(tower):
        events = run_script(tower, parse_script("3.0 YES/BUY 0.2\\n# run length: 5 s"))
        assert any(e["type"] == "motor" and e["on"] for e in events)

Enable it with ``-p rig.pytest_plugin`` (or the ``pytest11`` entry point of the package).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from typing import Iterator

    from captures.tower import Tower
    from rig.specs import TargetSpec

__all__ = ["pytest_addoption", "pytest_configure", "pytest_collection_modifyitems", "tower",
           "tower_spec"]


def pytest_addoption(parser) -> None:
    """Add the --tower options (pytest hook)."""
    group = parser.getgroup("towerlab", "TowerLab tower under test")
    group.addoption("--tower", default="emu",
                    choices=("emu", "cleanroom", "sim", "fake", "real"),
                    help="the tower the 'tower' fixture opens (default: emu)")
    group.addoption("--tower-romset", default=None, help="genuine romset for the emulator")
    group.addoption("--tower-port", default=None, help="button box serial port (real)")
    group.addoption("--tower-analyser", default="fx2lafw",
                    help="fx2lafw or sigrok:DRIVER (real)")
    group.addoption("--tower-channel-map", default=None, help="probe -> pin map file")


def pytest_configure(config) -> None:
    """Register the real_tower marker and refuse unusable tower options (pytest hook)."""
    config.addinivalue_line("markers", "real_tower: needs the real bench (opt-in: "
                                       "--tower=real --tower-port PORT)")
    _check_options(config)


def _check_options(config) -> None:
    """Refuse, as one usage line, tower options that could never open a tower."""
    import os

    opt = config.getoption
    if opt("--tower") == "real" and not opt("--tower-port"):
        raise pytest.UsageError("--tower=real needs the button box's serial port: add "
                                "--tower-port /dev/ttyACM0")
    romset = opt("--tower-romset")
    if romset and not os.path.exists(romset):
        raise pytest.UsageError(f"--tower-romset {romset}: no such file or folder (expected a "
                                f"MAME romset such as mbdtower.zip)")
    if opt("--tower-channel-map"):
        from rig.specs import load_probe_map
        try:
            load_probe_map(opt("--tower-channel-map"))
        except ValueError as exc:
            raise pytest.UsageError(f"--tower-channel-map: {exc}") from None


def pytest_collection_modifyitems(config, items) -> None:
    """Skip tests marked real_tower unless --tower=real (pytest hook): hardware is opt-in."""
    if config.getoption("--tower") == "real":
        return
    skip = pytest.mark.skip(reason="needs a real tower on the bench: run with --tower=real "
                                   "--tower-port /dev/ttyACM0")
    for item in items:
        if "real_tower" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def tower_spec(request) -> "TargetSpec":
    """Return the rig.specs.TargetSpec the command-line options describe."""
    from rig.specs import DEFAULT_CHANNEL_MAP, TargetSpec
    opt = request.config.getoption
    cmap = dict(DEFAULT_CHANNEL_MAP)
    if opt("--tower-channel-map"):
        from rig.specs import load_probe_map
        cmap = load_probe_map(opt("--tower-channel-map"))
    return TargetSpec(opt("--tower"), romset=opt("--tower-romset"), port=opt("--tower-port"),
                      analyser=opt("--tower-analyser"), channel_map=cmap)


@pytest.fixture
def tower(tower_spec) -> "Iterator[Tower]":
    """Yield a fresh tower (captures.tower.Tower) of the kind chosen by ``--tower``."""
    from rig.specs import open_target
    try:
        target = open_target(tower_spec)
    except ValueError as exc:       # RigError, RomError, ...: one line, no traceback
        pytest.fail(f"cannot open the {tower_spec.target} tower: "
                    f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}",
                    pytrace=False)
    try:
        yield target.tower
    finally:
        target.close()
