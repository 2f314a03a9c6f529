"""R, O and K pins, the CKI bus, RAM bits, X register and PLA-driven decode
(docs/tms1400.md §4-§6, §8, §9; TMS1000: TI TMS1000 Series Data Manual)."""
from __future__ import annotations

import pytest
from chipkit import ALL_CHIPS, CHAPTER_CHIPS, cpu, micro_pla, output_pla

from emulator.chips import TMS1000, TMS1100, TMS1400
from emulator.opcodes import bitrev


def record(c):
    seen = []
    c.on_r = lambda cycle, r: seen.append(("r", cycle, r))
    c.on_o = lambda cycle, o: seen.append(("o", cycle, o))
    return seen


# -- CKI bus (docs/tms1400.md §5.2.1), via a micro PLA giving the opcode CKP + AUTA (A = CKI) --

def _cki_of(chip, opcode, k=0):
    c = cpu(chip, f"={opcode:02X}", mpla=micro_pla({opcode: {"CKP", "AUTA"}}))
    c.read_k = lambda cycle: k
    c.step()
    return c.a


@CHAPTER_CHIPS
@pytest.mark.parametrize("opcode", [0x00, 0x03, 0x07, 0x41, 0x5E, 0x66, 0x7B])
def test_cki_is_the_bit_reversed_constant_for_00_07_and_40_7f(chip, opcode):
    assert _cki_of(chip, opcode) == bitrev(opcode & 0xF, 4)


@CHAPTER_CHIPS
@pytest.mark.parametrize("opcode", [0x08, 0x0E])
def test_cki_is_k_for_08_0f(chip, opcode):
    assert _cki_of(chip, opcode, k=0b0110) == 0b0110


@CHAPTER_CHIPS
@pytest.mark.parametrize("opcode", [0x30, 0x31, 0x36, 0x3B])
def test_cki_is_all_ones_but_the_selected_bit_for_30_3f(chip, opcode):
    assert _cki_of(chip, opcode) == 0xF ^ (1 << bitrev(opcode & 3, 2))


@CHAPTER_CHIPS
@pytest.mark.parametrize("opcode", [0x10, 0x21, 0x2C, 0x9F, 0xC3])
def test_cki_is_zero_for_other_opcodes(chip, opcode):
    assert _cki_of(chip, opcode) == 0


# -- micro PLA drives the decode ---------------------------------------------------------------

@CHAPTER_CHIPS
def test_micro_pla_replaces_the_standard_decode(chip):
    c = cpu(chip, "TCY 5", mpla=micro_pla({0x4A: {"CKP", "AUTA"}}))   # TCY 5 now means A = 5
    c.step()
    assert (c.a, c.y) == (5, 0)


@CHAPTER_CHIPS
def test_fixed_opcodes_also_take_micro_ops_from_the_pla(chip):
    c = cpu(chip, "LDP 3", mpla=micro_pla({0x1C: {"CKP", "AUTY"}}))   # LDP 3 = 0x1C, CKI = 0
    c.step()
    assert c.pb == 3 and c.y == 0


@CHAPTER_CHIPS
def test_adder_inputs_from_several_sources_are_ored(chip):
    c = cpu(chip, "=20", mpla=micro_pla({0x20: {"ATN", "15TN", "CIN", "AUTY"}}))
    c.a = 5
    c.step()
    assert c.y == ((5 | 15) + 1) & 15    # OR-ed: 0; an adder of the two would give 5


@CHAPTER_CHIPS
def test_sto_wins_over_ckm(chip):
    c = cpu(chip, "=44", mpla=micro_pla({0x44: {"STO", "CKM"}}))   # CKI = 2, A = 0
    c.ram[0] = 9
    c.step()
    assert c.ram[0] == 0


@CHAPTER_CHIPS
def test_tdo_uses_the_status_latch_as_it_was_at_instruction_start(chip):
    c = cpu(chip, "=0A", "=0A", mpla=micro_pla({0x0A: {"YTP", "ATN", "NE", "STSL"}}))
    c.y = 3
    c.step()
    assert (c.o_index, c.sl) == (0x00, 1)
    c.step()
    assert c.o_index == 0x10


# -- RAM bits (docs/tms1400.md §5.2, §6) -----------------------------------------------------------

@ALL_CHIPS
@pytest.mark.parametrize("bit", range(4))
def test_sbit_sets_one_memory_bit(chip, bit):
    c = cpu(chip, "TCY 2", f"SBIT {bit}")
    c.ram[2] = 0
    c.run(2)
    assert c.ram[2] == 1 << bit


@ALL_CHIPS
@pytest.mark.parametrize("bit", range(4))
def test_rbit_clears_one_memory_bit(chip, bit):
    c = cpu(chip, "TCY 2", f"RBIT {bit}")
    c.ram[2] = 15
    c.run(2)
    assert c.ram[2] == 15 ^ (1 << bit)


@ALL_CHIPS
def test_ram_address_is_x_times_16_plus_y(chip):
    c = cpu(chip, "LDX 3", "TCY 14", "TCMIY 6")
    c.run(3)
    assert c.ram[3 << 4 | 14] == 6


# -- X register ------------------------------------------------------------------------------

@CHAPTER_CHIPS
def test_ldx_loads_three_bits_on_tms1100_and_tms1400(chip):
    c = cpu(chip, "LDX 6")
    assert c.rom[0x3C0] == 0x2B
    c.step()
    assert c.x == 6


@CHAPTER_CHIPS
def test_comx_complements_only_the_msb_of_x_on_tms1100_and_tms1400(chip):
    c = cpu(chip, "LDX 1", "COMX")
    c.run(2)
    assert c.x == 5


def test_tms1000_ldx_loads_two_bits():
    c = cpu(TMS1000, "LDX 2")
    assert c.rom[0x3C0] == 0x3D
    c.step()
    assert c.x == 2


def test_tms1000_comx_complements_both_bits_of_x():
    c = cpu(TMS1000, "LDX 1", "COMX")
    c.run(2)
    assert c.x == 2


def test_tms1000_has_64_nibbles_of_ram():
    c = cpu(TMS1000, "LDX 3", "TCY 15", "TCMIY 9")
    c.run(3)
    assert len(c.ram) == 64 and c.ram[63] == 9


# -- R outputs (docs/tms1400.md §9.1) --------------------------------------------------------------

@ALL_CHIPS
def test_setr_sets_the_r_line_selected_by_y(chip):
    c = cpu(chip, "TCY 9", "SETR")
    c.run(2)
    assert c.r == 1 << 9


@ALL_CHIPS
def test_rstr_clears_the_r_line_selected_by_y(chip):
    c = cpu(chip, "TCY 9", "SETR", "TCY 2", "SETR", "TCY 9", "RSTR")
    c.run(6)
    assert c.r == 1 << 2


@ALL_CHIPS
def test_setr_with_y_11_to_15_sets_a_hidden_latch_bit_without_a_pin(chip):
    c = cpu(chip, "TCY 13", "SETR")
    seen = record(c)
    c.run(2)
    assert c.r == 1 << 13
    assert seen == [("r", 11 + 3, 0)]


@ALL_CHIPS
def test_on_r_gets_the_11_pins_after_every_setr_and_rstr_even_unchanged(chip):
    c = cpu(chip, "TCY 1", "SETR", "SETR", "RSTR", "RSTR")
    seen = record(c)
    c.run(5)
    assert seen == [("r", 11 + 3, 2), ("r", 17 + 3, 2), ("r", 23 + 3, 0), ("r", 29 + 3, 0)]


def test_tms1400_setr_ignores_x():
    c = cpu(TMS1400, "LDX 7", "TCY 4", "SETR")
    c.run(3)
    assert c.r == 1 << 4


def test_tms1100_setr_and_rstr_do_nothing_when_x_is_4_or_more():
    c = cpu(TMS1100, "TCY 4", "SETR", "LDX 4", "RSTR", "TCY 5", "SETR")
    seen = record(c)
    c.run(6)
    assert c.r == 1 << 4
    assert [r for _, _, r in seen] == [16, 16, 16]


def test_tms1100_setr_works_when_x_is_below_4():
    c = cpu(TMS1100, "LDX 3", "TCY 6", "SETR")
    c.run(3)
    assert c.r == 1 << 6


# -- O outputs (docs/tms1400.md §8) ----------------------------------------------------------------

@ALL_CHIPS
def test_tdo_sends_sl_and_a_through_the_output_pla(chip):
    c = cpu(chip, "TCY 5", "TYA", "YNEA", "TDO", "TCY 3", "YNEA", "TDO",
            opla=output_pla({0x05: 0x41, 0x15: 0x80}))
    c.run(4)
    assert (c.sl, c.o_index, c.o) == (0, 0x05, 0x41)   # YNEA with Y = A: SL = 0
    c.run(3)
    assert (c.sl, c.o_index, c.o) == (1, 0x15, 0x80)


@ALL_CHIPS
def test_on_o_gets_the_pins_after_every_tdo_at_fetch_plus_3(chip):
    c = cpu(chip, "TDO", "TDO", opla=output_pla({0: 0x3F}))
    seen = record(c)
    c.run(2)
    assert seen == [("o", 5 + 3, 0x3F), ("o", 11 + 3, 0x3F)]


@ALL_CHIPS
def test_without_an_output_pla_o_is_sl_and_a(chip):
    c = cpu(chip, "TCY 3", "YNEA", "TCY 9", "TYA", "TDO")
    c.run(5)
    assert c.o == 0x19


def test_tms1000_clo_clears_the_o_index_and_drives_output_pla_entry_0():
    c = cpu(TMS1000, "TCY 6", "TYA", "TDO", "CLO", opla=output_pla({0: 0x7E, 6: 0x12}))
    seen = record(c)
    c.run(3)
    assert c.o == 0x12
    c.step()
    assert (c.o_index, c.o) == (0, 0x7E)
    assert seen[-1] == ("o", 6 * 3 + 5 + 3, 0x7E)


# -- K inputs (docs/tms1400.md §9.2) ---------------------------------------------------------------

@ALL_CHIPS
def test_k_is_sampled_one_clock_after_the_fetch(chip):
    c = cpu(chip, "TCY 0", "TKA")
    asked = []
    c.read_k = lambda cycle: asked.append(cycle) or 5
    c.run(2)
    assert asked == [11 + 1] and c.a == 5


@CHAPTER_CHIPS
def test_k_is_read_for_every_opcode_08_to_0f_and_no_other(chip):
    program = ["=08", "=09", "=0A", "=0B", "=0C", "=0D", "=0E", "=0F", "TCY 1", "=3F", "=07"]
    c = cpu(chip, *program)
    asked = []
    c.read_k = lambda cycle: asked.append(cycle) or 0
    c.run(len(program))
    assert asked == [6 * n + 5 + 1 for n in range(8)]


@ALL_CHIPS
def test_setr_is_visible_to_the_k_read_of_the_next_instruction(chip):
    c = cpu(chip, "TCY 1", "SETR", "TKA")
    c.read_k = lambda cycle: 8 if c_r[0] & 2 else 0
    c_r = [0]
    c.on_r = lambda cycle, r: c_r.__setitem__(0, r)
    c.run(3)
    assert c.a == 8


@CHAPTER_CHIPS
def test_k_value_is_masked_to_four_bits(chip):
    c = cpu(chip, "TKA")
    c.read_k = lambda cycle: 0x1F
    c.step()
    assert c.a == 0xF
