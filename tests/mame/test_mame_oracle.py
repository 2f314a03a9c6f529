"""The MAME 0.251 oracle harness (emulator.mame) on its own, checked against the MAME behaviour
that docs/tms1400.md and docs/mame-oracle.md record as measured: reset at 0:F:00, cycle =
6n + 5, the LFSR PC order, power-on state, the key matrix and MAME's 1/60 s input frames, R/O
pin timing (fetch + 3).

Sources: docs/tms1400.md §2, §3, §11; docs/dark-tower-wiring.md §5; docs/mame-oracle.md §5,
§6.
"""
from __future__ import annotations

import pytest

from captures.script import parse_script
from emulator.asm import assemble
from emulator.core import lfsr_order
from emulator.mame import (CLOCK_HZ, KEY_MATRIX, MameError, MameOracle, PinChange,
                           frame_boundary, mame_pla_texts, script_inputs)
from emulator.randrom import random_rom

pytestmark = pytest.mark.mame

FRAME_CYCLES = CLOCK_HZ / 60          # 7083.33 clocks per 1/60 s frame


def rom_of(source: str) -> bytes:
    return assemble(source, filename="test.asm").rom


def key_bit(button: str) -> int:
    port, mask = KEY_MATRIX[button]
    return 1 << (4 * port + mask.bit_length() - 1)


# The key scanner used below: select column R<col>, then read K into A and show it on O.
def scanner(column: int) -> bytes:
    return rom_of(f"""
            TCY {column}
            SETR
    loop:   TKA
            TDO
            BR loop
    """)


# --- trace mode ----------------------------------------------------------------------------

def test_first_instruction_is_fetched_from_0_F_00_at_clock_5(oracle, mpla_text, opla_text):
    [trace] = oracle.trace([random_rom(3)], mpla_text, opla_text, 1)
    first = trace.steps[0]
    assert (first.n, first.cycle, first.chapter, first.page, first.pc) == (0, 5, 0, 15, 0)


def test_every_instruction_takes_6_clocks(oracle, mpla_text, opla_text):
    [trace] = oracle.trace([random_rom(4)], mpla_text, opla_text, 500)
    assert [s.cycle for s in trace.steps] == [6 * n + 5 for n in range(500)]


def test_pc_follows_the_lfsr_order_and_stays_in_its_page(oracle, mpla_text, opla_text):
    rom = bytes(4096)     # all MNEA: no branch, the page wraps from pc 20 to 00
    [trace] = oracle.trace([rom], mpla_text, opla_text, 65)
    assert [s.pc for s in trace.steps] == lfsr_order() + [0]
    assert {(s.chapter, s.page) for s in trace.steps} == {(0, 15)}


def test_power_on_state_is_the_canonical_first_line(oracle, mpla_text, glyph_opla_text):
    rom = bytearray(4096)
    rom[0x3C0] = 0x0C     # RSTR at the reset address, as in the contract's example line
    [trace] = oracle.trace([bytes(rom)], mpla_text, glyph_opla_text, 1)
    # O = output-PLA entry 0, the glyph '0' on the Dark Tower segment pins (docs/tms1400.md §11).
    assert trace.lines() == ["0 5 0:F:00 0C A=0 X=0 Y=0 S=1 SL=0 PB=F CB=0 R=0000 O=7E"]


def test_each_image_of_a_batch_starts_from_the_power_on_state(oracle, mpla_text, opla_text):
    scribbler, probe = random_rom(11), random_rom(12)
    alone = oracle.trace([probe], mpla_text, opla_text, 400)
    batch = oracle.trace([scribbler, probe], mpla_text, opla_text, 400)
    assert batch[0].lines() != alone[0].lines()
    assert batch[1].lines() == alone[0].lines()


def test_tka_reads_a_held_key_from_the_first_frame_boundary(oracle, mpla_text, opla_text):
    # MOVE is on column R1, K8 (docs/dark-tower-wiring.md §5); MAME hands it to the chip at
    # t = 1/60 s.
    [trace] = oracle.trace([scanner(1)], mpla_text, opla_text, 1500,
                           keys=[[key_bit("MOVE")]])
    reads = [(s.cycle, s.k) for s in trace.steps if s.op == 0x08]
    assert {k for c, k in reads if c + 1 < FRAME_CYCLES} == {0}
    assert {k for c, k in reads if c + 1 > FRAME_CYCLES} == {8}


def test_key_masks_change_once_per_frame(oracle, mpla_text, opla_text):
    keys = [key_bit("MOVE"), key_bit("BAZAAR") | key_bit("FRONTIER"), 0]
    [trace] = oracle.trace([scanner(1)], mpla_text, opla_text, 3700, keys=[keys])
    seen = [s.k for s in trace.steps if s.op == 0x08]
    changes = [k for i, k in enumerate(seen) if i == 0 or seen[i - 1] != k]
    assert changes == [0, 8, 5, 0]


def test_a_key_on_an_unselected_column_reads_0(oracle, mpla_text, opla_text):
    [trace] = oracle.trace([scanner(0)], mpla_text, opla_text, 1500,
                           keys=[[key_bit("MOVE")]])
    assert {s.k for s in trace.steps if s.op == 0x08} == {0}


def test_opcodes_08_to_0F_report_their_k_at_the_sampling_clock(oracle, mpla_text, opla_text):
    # TKA and TDO both read K (docs/tms1400.md §9.2); the sampling clock is fetch + 1.
    [trace] = oracle.trace([scanner(1)], mpla_text, opla_text, 30)
    reading = [s.cycle for s in trace.steps if 0x08 <= s.op <= 0x0F]
    assert sorted(trace.k_reads()) == [c + 1 for c in reading]
    assert all(s.k is None for s in trace.steps if not 0x08 <= s.op <= 0x0F)


# --- pins mode -----------------------------------------------------------------------------

def test_pins_start_with_the_reset_values_at_cycle_0(oracle, mpla_text, glyph_opla_text):
    pins = oracle.run_pins(scanner(1), mpla_text, glyph_opla_text, None, 0.01)
    assert pins[:2] == [PinChange(0, "R", 0), PinChange(0, "O", 0x7E)]


def test_pin_changes_come_3_clocks_after_the_output_opcodes_fetch(oracle, mpla_text, opla_text):
    rom = rom_of("""
            TCY 10
    loop:   SETR
            RSTR
            BR loop
    """)
    pins = oracle.run_pins(rom, mpla_text, opla_text, None, 0.001)
    # SETR is instruction 1 (fetch 11), RSTR instruction 2 (fetch 17), then every 18 clocks.
    assert pins[2:6] == [PinChange(14, "R", 0x400), PinChange(20, "R", 0),
                         PinChange(32, "R", 0x400), PinChange(38, "R", 0)]


def test_pins_mode_agrees_with_the_trace(oracle, mpla_text, opla_text):
    rom = random_rom(21)
    [trace] = oracle.trace([rom], mpla_text, opla_text, 3000)
    end = trace.steps[-1].cycle
    expected = []
    for before, after in zip(trace.steps, trace.steps[1:]):
        for port, old, new in (("R", before.r, after.r), ("O", before.o, after.o)):
            if old != new:
                expected.append(PinChange(before.cycle + 3, port, new))
    pins = oracle.run_pins(rom, mpla_text, opla_text, None, end / CLOCK_HZ)
    assert expected, "the random image should move its pins"
    assert [p for p in pins[2:] if p.cycle < end] == expected


def test_a_scripted_press_reaches_the_chip_at_its_frame_boundary(oracle, mpla_text, opla_text):
    # YES/BUY is column R2, K2: the scanner copies K to A and shows it on O (ident PLA).
    script = parse_script("0.1 YES/BUY 0.2\n", "press.txt")
    pins = oracle.run_pins(scanner(2), mpla_text, opla_text, script, 0.5)
    o_changes = [(p.cycle, p.value) for p in pins[2:] if p.port == "O"]
    assert [v for _, v in o_changes] == [2, 0]
    press, release = o_changes[0][0], o_changes[1][0]
    assert 0.1 * CLOCK_HZ < press < 0.1 * CLOCK_HZ + 30
    assert 0.3 * CLOCK_HZ < release < 0.3 * CLOCK_HZ + 30


# --- MAME's input frames -------------------------------------------------------------------

def test_an_input_between_frames_is_seen_at_the_next_boundary():
    assert frame_boundary(0.105) == pytest.approx(7 / 60)


def test_an_input_on_a_boundary_is_seen_at_that_boundary():
    # The shared captures' scripts use boundaries rounded to 6 decimals, e.g. 3.016667 = 181/60.
    assert frame_boundary(3.016667) == pytest.approx(181 / 60)


def test_an_input_at_power_on_is_seen_at_the_first_boundary():
    assert frame_boundary(0.0) == pytest.approx(1 / 60)


def test_a_press_at_power_on_reaches_the_chip_at_the_first_boundary(oracle, mpla_text,
                                                                    opla_text):
    script = parse_script("0 MOVE 0.1\n", "start.txt")
    pins = oracle.run_pins(scanner(1), mpla_text, opla_text, script, 0.05)
    first = next(p for p in pins[2:] if p.port == "O")
    assert (first.value, FRAME_CYCLES < first.cycle < FRAME_CYCLES + 30) == (8, True)


def test_script_inputs_list_presses_and_releases_at_their_boundaries():
    script = parse_script("0.105 MOVE 0.1\n", "s.txt")
    assert script_inputs(script) == [(pytest.approx(7 / 60), "MOVE", True),
                                     (pytest.approx(13 / 60), "MOVE", False)]


def test_a_power_action_is_rejected_with_the_script_name():
    script = parse_script("1 power off\n", "off.txt")
    with pytest.raises(MameError, match="off.txt: 'power' at 1 s"):
        script_inputs(script)


def test_an_initial_power_on_is_accepted():
    script = parse_script("0 power on\n0.105 MOVE 0.1\n", "on.txt")
    assert [b for _, b, _ in script_inputs(script)] == ["MOVE", "MOVE"]


def test_a_press_released_in_the_same_frame_is_rejected():
    script = parse_script("0.101 MOVE 0.005\n", "short.txt")
    with pytest.raises(MameError, match="short.txt: MOVE pressed at 0.101 s is released"):
        script_inputs(script)


# --- bad input -----------------------------------------------------------------------------

def test_a_rom_of_the_wrong_size_is_rejected(mpla_text, opla_text):
    with pytest.raises(MameError, match="image 0: ROM image has 2048 bytes .expected 4096"):
        MameOracle().trace([bytes(2048)], mpla_text, opla_text, 10)


def test_a_pla_text_of_the_wrong_size_is_rejected(mpla_text):
    with pytest.raises(MameError, match="tms1400_mbdtower_output.pla: PLA text has 3 bytes"):
        MameOracle().run_pins(bytes(4096), mpla_text, ".e\n", None, 1.0)


def test_a_missing_mame_binary_is_named(mpla_text, opla_text):
    with pytest.raises(MameError, match="/nonexistent/mame: MAME not found"):
        MameOracle("/nonexistent/mame").trace([bytes(4096)], mpla_text, opla_text, 10)


def fake_mame(tmp_path, version_line: str) -> str:
    """Return the path of a shell script that prints ``version_line`` for ``-version``."""
    path = tmp_path / "mame"
    path.write_text(f"#!/bin/sh\nprintf '%s' '{version_line}'\n")
    path.chmod(0o755)
    return str(path)


def test_the_oracle_reports_the_version_of_the_mame_it_drives(oracle):
    assert oracle.version() == "0.251"


def test_a_mame_of_another_version_is_refused_naming_both_versions(tmp_path, mpla_text,
                                                                  opla_text):
    other = MameOracle(fake_mame(tmp_path, "0.260 (mame0260)"))
    assert other.version() == "0.260"
    with pytest.raises(MameError, match=r"/mame: MAME 0\.260, expected 0\.251 \(the traces were "
                                        r"verified against it; .*expect_version=None"):
        other.trace([bytes(4096)], mpla_text, opla_text, 10)


def test_an_executable_that_prints_no_version_is_named(tmp_path):
    with pytest.raises(MameError, match=r"/mame -version: printed 'hello' \(exit status 0; "
                                        r"expected a version such as 0\.251\)"):
        MameOracle(fake_mame(tmp_path, "hello")).version()


def test_a_key_mask_wider_than_12_bits_is_rejected(mpla_text, opla_text):
    with pytest.raises(MameError, match="key mask 4096 is not a 12-bit number"):
        MameOracle().trace([bytes(4096)], mpla_text, opla_text, 10, keys=[[0x1000]])


def test_a_run_killed_by_the_timeout_says_so(mame_binary, mpla_text, opla_text):
    slow = MameOracle(mame_binary, timeout=1)
    with pytest.raises(MameError, match="killed after 1 s"):
        slow.trace([bytes(4096)], mpla_text, opla_text, 10_000_000)


# --- speed ---------------------------------------------------------------------------------

def test_speed_times_mame_and_its_start_up_separately(oracle, mpla_text, opla_text):
    speed = oracle.speed(scanner(1), mpla_text, opla_text, 3)
    assert speed.emulated_s == 3.0
    assert speed.wall_s > 0 and speed.startup_s > 0
    assert speed.reported is not None and speed.reported > 0


def test_speed_needs_at_least_2_seconds(oracle, mpla_text, opla_text):
    with pytest.raises(MameError, match="seconds 1 must be a whole number >= 2"):
        oracle.speed(scanner(1), mpla_text, opla_text, 1)


def test_pla_objects_are_written_as_the_files_mame_expects(oracle, mpla_text, glyph_opla_text):
    from emulator.darktower import glyph_output_pla
    from emulator.decode import standard_micro_pla
    from emulator.mame import mame_pla_texts

    from emulator.pla import read_pla

    micro, output = mame_pla_texts()
    assert (len(micro), len(output)) == (867, 557)
    assert (read_pla(micro), read_pla(output)) == (read_pla(mpla_text), read_pla(glyph_opla_text))
    rom = scanner(1)
    assert (oracle.run_pins(rom, standard_micro_pla(), glyph_output_pla(), None, 0.01)
            == oracle.run_pins(rom, mpla_text, glyph_opla_text, None, 0.01))


# --- the D&D Computer Labyrinth (mdndclab, TMS1100) ----------------------------------------

def test_mdndclab_reads_a_board_square_through_its_mux_port(oracle, mpla_text):
    # R1 is input-mux bit 9 = port IN.9, whose four fields are all named "Board Sensor"
    # (docs/labyrinth-wiring.md §2): the harness must find them by mask, not by name.
    from emulator.chips import TMS1100
    from emulator.mame import MDNDCLAB, mame_pla_texts

    dnd = MameOracle(oracle.binary, oracle.timeout, machine="mdndclab")
    rom = assemble("TCY 1\nSETR\nloop: TKA\nTDO\nBR loop\n", TMS1100, "dnd.asm").rom
    _, opla = mame_pla_texts(machine=MDNDCLAB)
    [trace] = dnd.trace([rom], mpla_text, opla, 1500, keys=[[1 << (4 * 9 + 2)]])
    frame = 475_000 / 60
    reads = [(s.cycle, s.k) for s in trace.steps if s.op == 0x08]
    assert {k for c, k in reads if c + 1 < frame} == {0}
    assert {k for c, k in reads if c + 1 > frame} == {4}


def test_mdndclab_takes_a_2048_byte_image(mpla_text):
    dnd = MameOracle(machine="mdndclab")
    with pytest.raises(MameError, match="ROM image has 4096 bytes .expected 2048 for the "
                                        "TMS1100 of mdndclab"):
        dnd.trace([bytes(4096)], mpla_text, "x", 10)


def test_mdndclab_refuses_a_dark_tower_button_script(mpla_text):
    from emulator.mame import MDNDCLAB, mame_pla_texts

    _, opla = mame_pla_texts(machine=MDNDCLAB)
    with pytest.raises(MameError, match="keys.txt: button scripts name Dark Tower keys"):
        MameOracle(machine="mdndclab").run_pins(bytes(2048), mpla_text, opla,
                                                parse_script("1 MOVE 1\n", "keys.txt"), 2.0)


def test_an_unknown_machine_is_named():
    with pytest.raises(MameError, match="unknown MAME machine 'ssimon' .expected one of "
                                        "mbdtower, mdndclab, simon"):
        MameOracle(machine="ssimon")


def test_simon_is_the_plain_tms1000_machine():
    oracle = MameOracle(machine="simon")
    assert oracle.machine.chip.name == "tms1000" and oracle.machine.rom_size == 1024
    mpla, opla = mame_pla_texts(machine=oracle.machine)
    assert (len(mpla), len(opla)) == (867, 365)
