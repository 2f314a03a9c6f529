"""Micro-programmed instructions with the TI standard decode (docs/tms1400.md §4, §5.3;
TI TMS1000 Series Data Manual, instruction table). One behaviour per test."""
from __future__ import annotations

import pytest
from chipkit import ALL_CHIPS, CHAPTER_CHIPS, cpu

from emulator.chips import TMS1000


def run(chip, *program, k=None):
    c = cpu(chip, *program)
    if k is not None:
        c.read_k = lambda cycle: k
    c.run(len(program))
    return c


def ram(c, x, y):
    return c.ram[x << 4 | y]


@ALL_CHIPS
def test_tcy_loads_y_with_the_bit_reversed_constant(chip):
    c = cpu(chip, "TCY 1")
    assert c.rom[0x3C0] == 0x48
    c.step()
    assert c.y == 1


@ALL_CHIPS
def test_tcmiy_stores_the_constant_at_old_y_then_increments_y(chip):
    c = run(chip, "TCY 4", "TCMIY 12")
    assert ram(c, 0, 4) == 12 and c.y == 5


@ALL_CHIPS
def test_tam_stores_a_at_x_y(chip):
    c = run(chip, "TCY 6", "TAY", "TCY 2", "TAM")
    assert ram(c, 0, 2) == 0    # A was 0: TAY then TCY leaves A = 0
    c = run(chip, "TCY 6", "TYA", "LDX 1", "TAM")
    assert ram(c, 1, 6) == 6


@ALL_CHIPS
def test_tamza_stores_a_then_clears_a(chip):
    c = run(chip, "TCY 9", "TYA", "TAMZA")
    assert ram(c, 0, 9) == 9 and c.a == 0


@ALL_CHIPS
def test_xma_exchanges_a_and_memory(chip):
    c = run(chip, "TCY 3", "TCMIY 5", "TCY 3", "TYA", "XMA")
    assert c.a == 5 and ram(c, 0, 3) == 3


@ALL_CHIPS
def test_tma_and_tmy_copy_memory(chip):
    c = run(chip, "TCY 2", "TCMIY 11", "TCY 2", "TMA", "TMY")
    assert (c.a, c.y) == (11, 11)


@ALL_CHIPS
def test_tay_and_tya_copy_between_a_and_y(chip):
    c = run(chip, "TCY 7", "TYA", "TCY 1", "TAY")
    assert (c.a, c.y) == (7, 7)


@ALL_CHIPS
def test_amaac_adds_memory_to_a_and_sets_status_on_carry(chip):
    c = run(chip, "TCY 0", "TCMIY 9", "TCY 12", "TYA", "TCY 0", "AMAAC")
    assert c.a == (12 + 9) & 15 and c.status == 1
    c = run(chip, "TCY 0", "TCMIY 2", "TCY 3", "TYA", "TCY 0", "AMAAC")
    assert c.a == 5 and c.status == 0


@ALL_CHIPS
def test_saman_subtracts_a_from_memory_and_status_means_no_borrow(chip):
    c = run(chip, "TCY 0", "TCMIY 3", "TCY 5", "TYA", "TCY 0", "SAMAN")
    assert c.a == (3 - 5) & 15 and c.status == 0
    c = run(chip, "TCY 0", "TCMIY 7", "TCY 5", "TYA", "TCY 0", "SAMAN")
    assert c.a == 2 and c.status == 1


@ALL_CHIPS
def test_cpaiz_negates_a_and_status_means_a_was_zero(chip):
    c = run(chip, "TCY 3", "TYA", "CPAIZ")
    assert c.a == 13 and c.status == 0
    c = run(chip, "CPAIZ")
    assert c.a == 0 and c.status == 1


@ALL_CHIPS
def test_imac_loads_memory_plus_one_and_status_means_carry(chip):
    c = run(chip, "TCY 0", "TCMIY 15", "TCY 0", "IMAC")
    assert c.a == 0 and c.status == 1


@ALL_CHIPS
def test_dman_loads_memory_minus_one_and_status_means_memory_was_not_zero(chip):
    c = run(chip, "DMAN")
    assert c.a == 15 and c.status == 0
    c = run(chip, "TCY 0", "TCMIY 4", "TCY 0", "DMAN")
    assert c.a == 3 and c.status == 1


@ALL_CHIPS
def test_iyc_increments_y_and_status_means_carry(chip):
    c = run(chip, "TCY 15", "IYC")
    assert c.y == 0 and c.status == 1
    c = run(chip, "TCY 4", "IYC")
    assert c.y == 5 and c.status == 0


@ALL_CHIPS
def test_dyn_decrements_y_and_status_means_y_was_not_zero(chip):
    c = run(chip, "DYN")
    assert c.y == 15 and c.status == 0
    c = run(chip, "TCY 4", "DYN")
    assert c.y == 3 and c.status == 1


@ALL_CHIPS
def test_ynec_status_means_y_differs_from_the_constant(chip):
    assert run(chip, "TCY 6", "YNEC 6").status == 0
    assert run(chip, "TCY 6", "YNEC 7").status == 1


@ALL_CHIPS
def test_mnez_status_means_memory_not_zero(chip):
    assert run(chip, "MNEZ").status == 0
    assert run(chip, "TCMIY 1", "TCY 0", "MNEZ").status == 1


@ALL_CHIPS
def test_alem_status_means_a_less_or_equal_memory(chip):
    assert run(chip, "TCMIY 5", "TCY 5", "TYA", "TCY 0", "ALEM").status == 1
    assert run(chip, "TCMIY 5", "TCY 6", "TYA", "TCY 0", "ALEM").status == 0


@ALL_CHIPS
@pytest.mark.parametrize("bit", range(4))
def test_tbit_status_is_the_selected_memory_bit(chip, bit):
    c = run(chip, "TCMIY 5", "TCY 0", f"TBIT {bit}")
    assert c.status == (5 >> bit & 1)


@ALL_CHIPS
def test_ynea_status_means_y_differs_from_a_and_loads_the_status_latch(chip):
    c = run(chip, "TCY 3", "YNEA")
    assert c.status == 1 and c.sl == 1
    c = run(chip, "TCY 3", "YNEA", "TYA", "YNEA")
    assert c.status == 0 and c.sl == 0


@ALL_CHIPS
def test_only_stsl_instructions_change_the_status_latch(chip):
    c = run(chip, "TCY 3", "YNEA", "YNEC 3", "TCY 0", "DYN")
    assert c.status == 0 and c.sl == 1


@ALL_CHIPS
def test_cla_clears_a(chip):
    c = run(chip, "TCY 9", "TYA", "CLA")
    assert c.a == 0


@ALL_CHIPS
def test_tka_loads_a_from_k(chip):
    assert run(chip, "TKA", k=0b1010).a == 0b1010


@ALL_CHIPS
def test_knez_status_means_k_not_zero(chip):
    assert run(chip, "KNEZ", k=0).status == 0
    assert run(chip, "KNEZ", k=4).status == 1


@ALL_CHIPS
def test_k_reads_0_without_a_k_provider(chip):
    c = run(chip, "TCY 5", "TYA", "TKA")
    assert c.a == 0


@ALL_CHIPS
def test_instruction_without_c8_or_ne_sets_status_to_1(chip):
    c = run(chip, "TCY 4", "IYC", "TAM")
    assert c.status == 1


@CHAPTER_CHIPS
def test_acc_adds_constant_plus_one_and_sets_status_on_carry(chip):
    c = run(chip, "TCY 3", "TYA", "A5ACC")
    assert c.a == 8 and c.status == 0
    c = run(chip, "TCY 12", "TYA", "A5ACC")
    assert c.a == 1 and c.status == 1


@CHAPTER_CHIPS
def test_mnea_status_means_memory_differs_from_a(chip):
    assert run(chip, "MNEA").status == 0
    assert run(chip, "TCY 1", "TYA", "MNEA").status == 1


@CHAPTER_CHIPS
def test_tamiyc_stores_a_then_increments_y_with_carry_status(chip):
    c = run(chip, "TCY 15", "TYA", "TAMIYC")
    assert ram(c, 0, 15) == 15 and c.y == 0 and c.status == 1


@CHAPTER_CHIPS
def test_tamdyn_stores_a_then_decrements_y(chip):
    c = run(chip, "TCY 5", "TYA", "TAMDYN")
    assert ram(c, 0, 5) == 5 and c.y == 4 and c.status == 1


def test_tms1000_a8aac_adds_the_constant_without_plus_one():
    c = run(TMS1000, "TCY 3", "TYA", "A8AAC")
    assert c.a == 11 and c.status == 0


def test_tms1000_ia_increments_a_without_touching_status():
    c = run(TMS1000, "TCY 15", "TYA", "IA")
    assert c.a == 0 and c.status == 1


def test_tms1000_dan_decrements_a():
    c = run(TMS1000, "TCY 3", "TYA", "DAN")
    assert c.a == 2 and c.status == 1


def test_tms1000_alec_status_means_a_less_or_equal_constant():
    assert run(TMS1000, "TCY 7", "TYA", "ALEC 7").status == 1
    assert run(TMS1000, "TCY 8", "TYA", "ALEC 7").status == 0


def test_tms1000_tamiy_stores_a_then_increments_y():
    c = run(TMS1000, "TCY 2", "TYA", "TAMIY")
    assert c.ram[2] == 2 and c.y == 3
