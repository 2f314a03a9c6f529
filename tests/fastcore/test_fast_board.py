"""The Dark Tower board on the accelerated core gives the same pins, board events and decoded
events as on the reference core (the quantum scheme of DarkTowerBoard._run_fast)."""
from __future__ import annotations

from pathlib import Path

import pytest

from captures.script import parse_script, read_script
from captures.tower import run_script
from emulator.fastcore import FAST_AVAILABLE
from rig.towers.emulated import EmulatorTower

pytestmark = pytest.mark.skipif(not FAST_AVAILABLE,
                                reason="accelerated core not built: pip install -e . with gcc")

ROOT = Path(__file__).resolve().parent.parent.parent
DEMO_SESSION = ROOT / "emulator" / "firmware" / "demo_session.txt"


def _session(core: str, script, seconds: float) -> EmulatorTower:
    tower = EmulatorTower(core=core)
    run_script(tower, script, until=seconds)
    return tower


def test_demo_session_pins_identical_on_both_cores():
    script = read_script(str(DEMO_SESSION))
    ref = _session("reference", script, script.end_time())
    fast = _session("fast", script, script.end_time())
    assert fast.core == "fast" and ref.core == "reference"
    assert len(ref.board.pins) > 1000
    assert fast.board.pins == ref.board.pins
    assert fast.board.speaker == ref.board.speaker
    assert fast.events() == ref.events()


def test_keys_pressed_mid_quantum_are_seen_at_the_same_cycle_on_both_cores():
    script = parse_script("0.3011 YES/BUY 0.2033\n4.0517 NO/END 0.0911\n5.5 YES/BUY 0.25\n"
                          "7.0123 NO/END 0.2\n9 YES/BUY 0.2\n", "mid-frame keys")
    ref = _session("reference", script, 12.0)
    fast = _session("fast", script, 12.0)
    assert fast.board.pins == ref.board.pins
    assert fast.events() == ref.events()


def test_power_cycle_identical_on_both_cores():
    script = parse_script("1.0 YES/BUY 0.2\n2.5 power off\n3.0 power on\n4.2 YES/BUY 0.2\n",
                          "power cycle")
    ref = _session("reference", script, 9.0)
    fast = _session("fast", script, 9.0)
    assert fast.board.pins == ref.board.pins
    assert fast.events() == ref.events()


def test_a_pin_listener_sees_the_same_changes_on_both_cores():
    # a listener needs every pin word as it happens: the fast core then runs the board's
    # Python quanta (DarkTowerBoard._run_fast) instead of the kernel's board
    script = read_script(str(DEMO_SESSION))
    seen = {}
    towers = {}
    for core in ("reference", "fast"):
        tower = EmulatorTower(core=core)
        seen[core] = []
        tower.add_pin_listener(lambda c, w, out=seen[core]: out.append((c, w)))
        run_script(tower, script, until=8.0)
        towers[core] = tower
    assert len(seen["fast"]) > 100 and seen["fast"] == seen["reference"]
    assert towers["fast"].board.pins == towers["reference"].board.pins
    assert towers["fast"].events() == towers["reference"].events()
