"""One machine builder (emulator.machine) for the debugger, the emulated tower and the trace."""
from __future__ import annotations

import warnings

import pytest

from emulator.chips import TMS1000, TMS1100, TMS1400
from emulator.darktower import DarkTowerBoard, glyph_output_pla
from emulator.decode import output_table
from emulator.machine import NO_BOARD, BareChip, MachineError, build_machine


def test_the_demo_firmware_runs_on_the_dark_tower_board_with_its_glyph_table():
    m = build_machine(firmware="demo")
    assert (m.board_name, m.chip, type(m.board)) == ("darktower", TMS1400, DarkTowerBoard)
    assert m.opla.table() == glyph_output_pla().table()
    assert m.summary == "demo firmware (emulator/firmware/demo.asm), TMS1400"
    assert m.program is not None and m.clock_hz == 425_000


def test_a_chip_no_board_carries_runs_alone_at_its_mame_machines_clock():
    m = build_machine(image=bytes(1024), chip=TMS1000)
    assert (m.board_name, m.spec) == (NO_BOARD, None)
    assert isinstance(m.board, BareChip) and m.board.clock_hz > 0
    m.board.run_until(600)
    assert m.cpu.cycle >= 600


def test_a_raw_rom_on_a_board_gets_the_boards_output_pla_and_says_so(tmp_path):
    path = tmp_path / "p.bin"
    path.write_bytes(bytes(4096))
    m = build_machine(rom=path)
    assert m.board_name == "darktower"
    assert m.opla.table() == glyph_output_pla().table()
    assert any("using the demo firmware's glyph table" in n for n in m.notes)


def test_board_opla_false_keeps_o_equal_to_sl_and_a(tmp_path):
    path = tmp_path / "p.bin"
    path.write_bytes(bytes(4096))
    m = build_machine(rom=path, board="darktower", board_opla=False)
    assert m.opla is None and m.cpu.output_table == output_table(None)
    assert not any("glyph table" in n for n in m.notes)


def test_a_script_path_is_scheduled_on_the_board(tmp_path):
    script = tmp_path / "s.txt"
    script.write_text("0.01 YES/BUY 0.2\n")
    m = build_machine(firmware="demo", script=script)
    m.board.run_until(m.clock_hz // 20)
    assert "YES/BUY" in m.board.pressed


@pytest.mark.parametrize("kwargs,message", [
    ({}, "give one program"),
    ({"firmware": "demo", "image": bytes(4096)}, "not firmware and image"),
    ({"firmware": "other"}, "unknown firmware 'other'"),
    ({"firmware": "demo", "board": "labyrinth"}, "the demo firmware is for the darktower"),
    ({"image": bytes(4096)}, "an image needs its chip"),
    ({"image": bytes(4096), "chip": TMS1400, "board": "chess"}, "unknown board 'chess'"),
    ({"image": bytes(2048), "chip": TMS1100, "board": "darktower"},
     "ROM image: board darktower carries a TMS1400, not a TMS1100"),
    ({"image": bytes(2048), "chip": TMS1100, "board": "labyrinth"},
     "the labyrinth board needs its output PLA"),
    ({"image": bytes(1024), "chip": TMS1000, "script": "x.txt"}, "x.txt"),
])
def test_a_machine_that_cannot_be_built_says_what_in_one_line(kwargs, message):
    with pytest.raises(ValueError, match=message) as info:
        build_machine(**kwargs)
    assert "\n" not in str(info.value)


def test_a_script_with_keys_is_refused_without_a_board():
    from captures.script import parse_script

    with pytest.raises(MachineError, match="no board, so no keys"):
        build_machine(image=bytes(1024), chip=TMS1000,
                      script=parse_script("0.1 YES/BUY 0.2\n", "s.txt"))


def test_the_debugger_and_the_emulated_tower_build_the_same_machine():
    from emulator.debug import Debugger
    from rig.towers.emulated import EmulatorTower

    dbg, tower = Debugger(firmware="demo"), EmulatorTower(powered=False)
    for m in (dbg, tower):
        assert (m.cpu.chip, m.board_name, m.clock_hz, m.core) == (
            TMS1400, "darktower", 425_000, build_machine(firmware="demo").core)
    assert dbg.cpu.output_table == tower.cpu.output_table
    assert dbg.rom == bytes(tower.cpu.rom)


def test_the_bare_chip_still_imports_from_the_debugger_with_a_deprecation_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        from emulator.debug import BareChip as old
    assert old is BareChip
    assert any(issubclass(w.category, DeprecationWarning) and "emulator.machine" in
               str(w.message) for w in caught)
