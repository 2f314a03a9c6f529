"""The disassembler: MAME's text for every opcode, LFSR order, and exact round trips.

MAME's own disassembly of the bytes 00-FF (``tests/data/mame_dasm/*.txt``, MAME 0.251) is the
reference for the mnemonic/operand text.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator.asm import PC_ORDER, assemble, rom_offset
from emulator.chips import TMS1000, TMS1100, TMS1400
from emulator.disasm import DisasmError, disassemble, disassemble_listing, instruction_text

LARGE = [HealthCheck.too_slow, HealthCheck.large_base_example, HealthCheck.data_too_large]
# LDP 0, LDP 5, TPC (COMC on a TMS1100), BRANCH $00, BRANCH $3E, CALL $01, CALL $3F, RETN, MNEA
DENSE = bytes([0x10, 0x1A, 0x0B, 0x80, 0xBE, 0xC1, 0xFF, 0x0F, 0x00])
MAME_DASM = Path(__file__).resolve().parents[1] / "data" / "mame_dasm"


def mame_text(chip) -> dict[int, str]:
    table = {}
    for line in (MAME_DASM / f"{chip.name}_opcodes.txt").read_text().splitlines():
        byte, _, text = line.partition(" ")
        table[int(byte, 16)] = text.rstrip()
    return table


@pytest.mark.parametrize("chip", [TMS1400, TMS1100], ids=lambda c: c.name)
def test_instruction_text_equals_mames_for_every_opcode(chip):
    mame = mame_text(chip)
    assert len(mame) == 256
    assert {b: instruction_text(chip, b) for b in range(256)} == mame


@pytest.mark.parametrize("chip", [TMS1400, TMS1100], ids=lambda c: c.name)
def test_listing_text_equals_mames_for_every_opcode(chip):
    rom = bytes(range(256)) * (chip.rom_size // 256)
    mame = mame_text(chip)
    for line in disassemble_listing(rom, chip).splitlines():
        address, offset, opcode, text = line.split(None, 3)
        assert text == mame[int(opcode, 16)], line


def test_listing_line_is_chapter_page_pc_offset_opcode_mnemonic():
    rom = bytearray(4096)
    rom[rom_offset(2, 11, 0x3E)] = 0x45
    lines = disassemble_listing(bytes(rom), TMS1400).splitlines()
    assert "2:B:3E  AFE  45  TCY 10" in lines


def test_listing_runs_through_each_page_in_lfsr_order():
    lines = disassemble_listing(bytes(4096), TMS1400).splitlines()
    assert [int(line.split()[0].split(":")[2], 16) for line in lines[:64]] == list(PC_ORDER)
    assert lines[64].startswith("0:1:00")


def test_listing_has_one_line_per_byte():
    assert len(disassemble_listing(bytes(2048), TMS1100).splitlines()) == 2048


def test_branch_targets_in_the_tracked_page_become_labels():
    rom = bytearray(4096)
    rom[rom_offset(0, 3, 0x00)] = 0x81          # BRANCH $01
    source = disassemble(bytes(rom), TMS1400)
    assert "BRANCH L0301" in source
    assert "L0301:" in source


def test_branch_after_ldp_is_labelled_in_the_ldp_page():
    rom = bytearray(4096)
    rom[rom_offset(0, 3, 0x00)] = 0x1A          # LDP 5
    rom[rom_offset(0, 3, 0x01)] = 0x90          # BRANCH $10
    assert "BRANCH L0510" in disassemble(bytes(rom), TMS1400)


def test_disassembly_names_the_chip_and_every_page():
    source = disassemble(bytes(2048), TMS1100)
    lines = source.splitlines()
    assert ".chip tms1100" in lines
    assert lines.count(".chapter 1") == 1
    assert lines.count(".page 15") == 2


@pytest.mark.parametrize("chip", [TMS1400, TMS1100, TMS1000], ids=lambda c: c.name)
def test_disassembling_every_opcode_everywhere_assembles_back(chip):
    rom = bytes((i * 7 + i // 256) & 0xFF for i in range(chip.rom_size))
    assert assemble(disassemble(rom, chip), chip).rom == rom


def test_disassembly_of_an_assembled_program_assembles_back():
    program = assemble(".page 2\nloop: LDP 3\nTPC\nLDP 4\nCALL sub\nBR loop\n"
                       ".chapter 3\n.page 4\nsub: TCY 5\nRETN")
    assert assemble(disassemble(program.rom, TMS1400)).rom == program.rom


@pytest.mark.parametrize("chip", [TMS1400, TMS1100, TMS1000], ids=lambda c: c.name)
def test_wrong_image_size_is_an_error(chip):
    with pytest.raises(DisasmError, match=f"ROM image is 100 bytes but a {chip.name} ROM is "
                                          f"{chip.rom_size} bytes"):
        disassemble(bytes(100), chip)


def test_wrong_image_size_is_an_error_in_the_listing_too():
    with pytest.raises(DisasmError):
        disassemble_listing(bytes(4095), TMS1400)


def _roundtrip(chip):
    @settings(max_examples=15, deadline=None, suppress_health_check=LARGE)
    @given(st.binary(min_size=chip.rom_size, max_size=chip.rom_size))
    def check(rom):
        assert assemble(disassemble(rom, chip), chip).rom == rom
    return check


def test_any_tms1400_image_survives_disassemble_then_assemble():
    _roundtrip(TMS1400)()


def test_any_tms1100_image_survives_disassemble_then_assemble():
    _roundtrip(TMS1100)()


def test_any_tms1000_image_survives_disassemble_then_assemble():
    _roundtrip(TMS1000)()


@pytest.mark.parametrize("chip", [TMS1400, TMS1100], ids=lambda c: c.name)
def test_images_dense_in_ldp_tpc_comc_branch_call_survive_the_round_trip(chip):
    @settings(max_examples=20, deadline=None, suppress_health_check=LARGE)
    @given(st.binary(min_size=chip.rom_size, max_size=chip.rom_size))
    def check(noise):
        rom = bytes(DENSE[b % len(DENSE)] for b in noise)
        assert assemble(disassemble(rom, chip), chip).rom == rom
    check()
