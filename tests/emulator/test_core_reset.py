"""Reset state, program counter order and instruction timing (docs/tms1400.md §2, §3, §11)."""
from __future__ import annotations

from chipkit import ALL_CHIPS, cpu, output_pla, pc_at

from emulator.core import LFSR_NEXT, lfsr_order

FACTS_ORDER = [int(v, 16) for v in (
    "00 01 03 07 0F 1F 3F 3E 3D 3B 37 2F 1E 3C 39 33 27 0E 1D 3A 35 2B 16 2C 18 30 21 02 05 "
    "0B 17 2E 1C 38 31 23 06 0D 1B 36 2D 1A 34 29 12 24 08 11 22 04 09 13 26 0C 19 32 25 0A "
    "15 2A 14 28 10 20").split()]


def test_pc_follows_the_lfsr_order_of_the_facts_table():
    assert lfsr_order() == FACTS_ORDER


def test_pc_lfsr_visits_all_64_values_then_returns_to_zero():
    assert sorted(lfsr_order()) == list(range(64))
    assert LFSR_NEXT[0x20] == 0x00


@ALL_CHIPS
def test_first_instruction_is_fetched_from_chapter_0_page_15_pc_0(chip):
    c = cpu(chip, "TCY 9")          # placed at 0x3C0
    c.step()
    assert c.y == 9


@ALL_CHIPS
def test_reset_sets_page_and_buffer_to_15_and_pc_to_0(chip):
    c = cpu(chip)
    assert (c.pa, c.pb, c.pc, c.ca, c.cb, c.cl) == (15, 15, 0, 0, 0, 0)


@ALL_CHIPS
def test_first_fetch_is_at_clock_5_and_each_instruction_takes_6_clocks(chip):
    c = cpu(chip)
    cycles = []
    for _ in range(4):
        cycles.append(c.cycle)
        c.step()
    assert cycles == [5, 11, 17, 23]


@ALL_CHIPS
def test_run_until_executes_every_instruction_fetched_before_the_clock(chip):
    c = cpu(chip)
    assert c.run_until(6 * 10 + 5) == 10
    assert c.cycle == 65
    assert c.run_until(66) == 1


@ALL_CHIPS
def test_execution_stays_in_the_page_when_the_pc_wraps(chip):
    c = cpu(chip)
    for _ in range(64):
        c.step()
    assert (c.pa, c.pc) == (15, 0)


@ALL_CHIPS
def test_power_on_zeroes_a_x_y_sl_and_ram(chip):
    c = cpu(chip)
    assert (c.a, c.x, c.y, c.sl) == (0, 0, 0, 0)
    assert len(c.ram) == chip.ram_size and not any(c.ram)


@ALL_CHIPS
def test_reset_keeps_a_x_y_and_ram(chip):
    c = cpu(chip, "TCY 5", "TCMIY 7", "A5ACC" if chip.chapter_bits else "A6AAC")
    c.run(3)
    before = (c.a, c.x, c.y, bytes(c.ram))
    c.reset()
    assert (c.a, c.x, c.y, bytes(c.ram)) == before


@ALL_CHIPS
def test_reset_drives_r_to_0_and_o_to_output_pla_entry_0(chip):
    c = cpu(chip, opla=output_pla({0: 0x7E, 1: 0x30}))
    seen = []
    c.on_r = lambda cycle, r: seen.append(("r", cycle, r))
    c.on_o = lambda cycle, o: seen.append(("o", cycle, o))
    c.reset()
    assert (c.r, c.o, c.o_index) == (0, 0x7E, 0)
    assert seen == [("r", 0, 0), ("o", 0, 0x7E)]


@ALL_CHIPS
def test_reset_at_a_later_clock_fetches_5_clocks_after_it(chip):
    c = cpu(chip)
    c.reset(600)
    assert c.cycle == 605


@ALL_CHIPS
def test_first_instruction_sees_status_1(chip):
    c = cpu(chip, "BRANCH $3E")
    c.step()
    assert c.pc == 0x3E


@ALL_CHIPS
def test_pc_attribute_is_the_address_of_the_next_instruction(chip):
    c = cpu(chip)
    c.run(3)
    assert c.pc == pc_at(3)


def test_rom_of_the_wrong_size_is_refused():
    import pytest

    from emulator.chips import TMS1400
    from emulator.core import Cpu, CpuError
    with pytest.raises(CpuError, match=r"^ROM is 2048 bytes \(expected 4096 for a TMS1400\)$"):
        Cpu(TMS1400, bytes(2048))


def test_plas_of_the_wrong_shape_are_refused():
    import pytest

    from emulator.chips import TMS1400
    from emulator.core import Cpu, CpuError
    from emulator.pla import Pla
    with pytest.raises(CpuError, match="expected 8 x 16"):
        Cpu(TMS1400, bytes(4096), mpla=Pla(5, 8, (), None))
    with pytest.raises(CpuError, match="expected 5 x 8"):
        Cpu(TMS1400, bytes(4096), opla=Pla(8, 16, (), None))
