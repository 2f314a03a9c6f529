"""EmulatorTower and ReplayTower behind the captures.tower.Tower protocol."""
from __future__ import annotations

import pytest

from analysis.decode import decode
from captures.model import DARKTOWER_CHANNELS
from captures.script import read_script
from captures.tower import Tower, run_script
from rig.towers.emulated import EmulatorTower, ReplayTower, TargetError

from .capdata import CAPTURES, events as capture_events


def test_emulator_tower_answers_the_tower_protocol():
    assert isinstance(EmulatorTower(), Tower)


def test_replay_tower_answers_the_tower_protocol():
    assert isinstance(ReplayTower(CAPTURES / "tower_test"), Tower)


def test_advance_moves_now_by_exactly_the_seconds_given():
    tower = EmulatorTower()
    tower.advance(0.25)
    tower.advance(0.5)
    assert tower.now == 0.75
    assert tower.cycle == round(0.75 * 425_000)


def test_capture_holds_the_pins_at_the_chip_clock():
    tower = EmulatorTower()
    tower.advance(0.5)
    cap = tower.capture()
    assert cap.channels == list(DARKTOWER_CHANNELS)
    assert cap.samplerate == 425_000
    assert cap.info.total_samples == tower.cycle
    assert len(cap.times) == len(tower.board.pins) > 10


def test_pin_listener_sees_every_later_pin_change():
    tower = EmulatorTower()
    seen = []
    tower.add_pin_listener(lambda cycle, word: seen.append((cycle, word)))
    before = len(tower.board.pins)
    tower.advance(0.3)
    assert seen[-1] == tower.board.pins[-1]
    assert len(seen) >= len(tower.board.pins) - before


def test_events_read_piecewise_equal_a_decode_of_the_whole_capture():
    tower = EmulatorTower()
    script = read_script(str(CAPTURES / "tower_test" / "script.txt"))
    run_script(tower, script, until=4.0)
    piecewise = tower.events()
    run_script(tower, script, until=8.0)
    later = tower.events()
    assert later[:len([e for e in piecewise if e["t"] < 3.9])] == \
        [e for e in piecewise if e["t"] < 3.9]
    whole = decode(tower.capture(), only=("display", "lamps", "motor", "speaker"))
    pins_only = [e for e in later if e["type"] in ("display", "lamp", "motor", "tone")]
    assert pins_only == whole


def test_power_off_darkens_the_pins_and_power_on_restarts_the_tower_test():
    tower = EmulatorTower()
    tower.advance(1.0)
    tower.power(False)
    assert tower.board.pins[-1][1] & ((1 << 19) - 1) == 0
    tower.advance(0.5)
    tower.power(True)
    tower.advance(0.5)
    evs = tower.events()
    assert [(e["t"], e["on"]) for e in evs if e["type"] == "power"] == [(1.0, 0), (1.5, 1)]
    assert [e["text"] for e in evs if e["type"] == "display" and e["t"] >= 1.5][:2] == \
        ["0 ", "  "]


def test_power_off_during_an_instruction_darkens_the_pins_after_its_own_changes():
    # run_until finishes the instruction fetched before the cycle asked for, whose pins
    # change at fetch + 3, up to 2 clocks later: a power-off then must not date the dark pins
    # before them (the capture's change times would go back)
    first = EmulatorTower()
    first.advance(1.0)
    times, _ = first.board.pin_arrays()
    change = int(times[times > 0.5 * first.clock_hz][0])
    tower = EmulatorTower()                     # the same run, stopped a clock before it
    tower.advance((change - 1) / tower.clock_hz)
    assert tower.cycle == change - 1
    tower.power(False)
    times, words = tower.board.pin_arrays()
    assert times[-1] >= change and int(words[-1]) & ((1 << 19) - 1) == 0
    assert (times[1:] > times[:-1]).all()


def test_keys_pressed_during_an_instruction_are_recorded_after_its_own_pin_changes():
    # the same for the host's keys: their K lines go into the pin record after the changes
    # of the instruction the chip finished, never before
    from captures.darktower_facts import BUTTONS

    first = EmulatorTower()
    first.advance(1.0)
    times, _ = first.board.pin_arrays()
    change = int(times[times > 0.5 * first.clock_hz][0])
    tower = EmulatorTower()
    tower.advance((change - 1) / tower.clock_hz)
    for button in BUTTONS:
        tower.press(button)
    times, words = tower.board.pin_arrays()
    assert times[-1] >= change and int(words[-1]) >> 19 & 0xF
    assert (times[1:] > times[:-1]).all()


def test_a_session_ending_during_an_instruction_captures_its_pin_changes(tmp_path):
    from captures.formats import write_capture

    first = EmulatorTower()
    first.advance(1.0)
    times, _ = first.board.pin_arrays()
    change = int(times[times > 0.5 * first.clock_hz][0])
    tower = EmulatorTower()
    tower.advance((change - 1) / tower.clock_hz)     # the session ends a clock before it
    cap = tower.capture()
    assert cap.info.total_samples == change + 1
    write_capture(cap, tmp_path / "c.tlc")           # refused if a change came after the end


def test_press_of_an_unknown_button_is_refused_naming_it():
    with pytest.raises(TargetError, match="'FIRE'"):
        EmulatorTower().press("FIRE")


def test_advance_by_a_negative_time_is_refused():
    with pytest.raises(TargetError, match="-1"):
        EmulatorTower().advance(-1)


def test_two_program_sources_are_refused():
    with pytest.raises(TargetError, match="firmware and rom"):
        EmulatorTower(firmware="demo", rom="x.bin")


def test_the_demo_firmware_refuses_the_labyrinth_board():
    with pytest.raises(TargetError, match="labyrinth"):
        EmulatorTower(firmware="demo", board="labyrinth")


def test_a_missing_rom_file_is_named():
    with pytest.raises(ValueError, match="nothere.bin"):
        EmulatorTower(rom="nothere.bin")


def test_a_closed_tower_takes_no_more_actions_but_stays_readable():
    tower = EmulatorTower()
    tower.press("MOVE")
    tower.advance(0.1)
    tower.close()
    assert tower.board.pressed == set()
    assert tower.events()
    with pytest.raises(TargetError, match="closed"):
        tower.advance(1)


def test_labyrinth_tower_runs_a_tms1100_rom_with_its_output_pla(tmp_path):
    from emulator.asm import assemble
    from emulator.chips import TMS1100
    from emulator.decode import ident_output_pla
    from emulator.pla import write_pla

    program = assemble("        .chip tms1100\n        .page 15\nloop:   TCY 10\n"
                       "        SETR\n        RSTR\n        BR loop\n", TMS1100)
    rom = tmp_path / "m34012"
    rom.write_bytes(bytes(program.rom))
    opla = tmp_path / "o.pla"
    with open(opla, "w") as f:
        write_pla(ident_output_pla(TMS1100), f)
    tower = EmulatorTower(rom=str(rom), opla=str(opla), board="labyrinth")
    tower.advance(0.05)
    tones = [e for e in tower.events() if e["type"] == "tone"]
    assert tones and abs(tones[0]["freq_hz"] - 475_000 / 6 / 4) < 50


def test_replay_tower_returns_the_recorded_events_for_the_recorded_script():
    folder = CAPTURES / "tower_test"
    events = run_script(ReplayTower(folder), read_script(str(folder / "script.txt")))
    assert events == capture_events("tower_test")


def test_replay_tower_refuses_a_press_the_recording_does_not_have():
    tower = ReplayTower(CAPTURES / "tower_test")
    tower.advance(1.0)
    with pytest.raises(TargetError, match="NO/END at 1 s is not in the recording"):
        tower.press("NO/END")
