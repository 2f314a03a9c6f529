"""Opt-in (pytest --romset mbdtower.zip): the user's genuine romset on our board gives the
rulebook's tower test event for event, within 1 % in time, as shared capture tower_test shows."""
from __future__ import annotations

import pytest

from analysis.compare import compare_events, format_comparison
from captures.script import read_script
from captures.tower import run_script
from rig.towers.emulated import EmulatorTower

from .capdata import CAPTURES, events


@pytest.mark.romset
@pytest.mark.parametrize("name", ["tower_test", "level_select"])
def test_genuine_romset_reproduces_the_capture_events(romset, name):
    tower = EmulatorTower(romset=romset)
    ours = run_script(tower, read_script(str(CAPTURES / name / "script.txt")))
    result = compare_events(events(name), ours)
    assert result.equivalent, format_comparison(result, name, "emulator")
    assert abs(result.ratio - 1) < 0.01


def test_a_mame_romset_folder_runs_through_the_same_path_as_the_genuine_one(tmp_path):
    # Our own files under MAME's member names stand in for the genuine set (which we lack).
    from emulator.darktower import write_glyph_output_pla
    from emulator.decode import standard_micro_pla
    from emulator.pla import MAME_PLA_SIZES, write_pla
    from rig.towers.emulated import demo_program

    folder = tmp_path / "mbdtower"
    folder.mkdir()
    (folder / "mp7332").write_bytes(bytes(demo_program().rom))
    with open(folder / "tms1100_common1_micro.pla", "w") as f:
        write_pla(standard_micro_pla(), f, MAME_PLA_SIZES["micro"], term_count=30)
    with open(folder / "tms1400_mbdtower_output.pla", "w") as f:
        write_glyph_output_pla(f)
    script = read_script(str(CAPTURES / "tower_test" / "script.txt"))
    from_set = run_script(EmulatorTower(romset=str(folder)), script)
    from_demo = run_script(EmulatorTower(firmware="demo"), script)
    assert compare_events(from_demo, from_set, ratio=1.0, offset=0.0).equivalent
    assert from_set == from_demo
