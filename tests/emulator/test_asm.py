"""The assembler: placement in LFSR order, operands, labels, long forms, directives, errors.

Facts from ``docs/tms1400.md`` §2 (LFSR PC, ROM offset), §5 (bit-reversed operands), §7
(page/chapter buffers) and MAME 0.251's mnemonics (``emulator.opcodes``).
"""
from __future__ import annotations

import textwrap

import pytest

import emulator.asm
from emulator.asm import PC_ORDER, AsmError, assemble, assemble_file, format_address, rom_offset
from emulator.chips import TMS1000, TMS1100, TMS1400
from emulator.core import LFSR_NEXT


def asm(text: str, chip=TMS1400):
    return assemble(text, chip, "t.asm")


def at(program, chapter: int, page: int, pc: int) -> int:
    return program.rom[rom_offset(chapter, page, pc)]


def error(text: str, chip=TMS1400) -> str:
    with pytest.raises(AsmError) as info:
        asm(text, chip)
    return str(info.value)


# --- program counter and placement -----------------------------------------------------------

def test_pc_order_is_the_lfsr_sequence_of_the_facts_file():
    assert PC_ORDER[:16] == (0x00, 0x01, 0x03, 0x07, 0x0F, 0x1F, 0x3F, 0x3E,
                             0x3D, 0x3B, 0x37, 0x2F, 0x1E, 0x3C, 0x39, 0x33)
    assert PC_ORDER[-4:] == (0x14, 0x28, 0x10, 0x20)


def test_pc_order_visits_all_64_values_and_wraps_from_20_to_00():
    assert sorted(PC_ORDER) == list(range(64))
    assert LFSR_NEXT[0x20] == 0x00


def test_lfsr_exceptions_at_1f_and_3f():
    assert LFSR_NEXT[0x1F] == 0x3F
    assert LFSR_NEXT[0x3F] == 0x3E


def test_rom_offset_is_chapter_times_1024_plus_page_times_64_plus_raw_pc():
    assert rom_offset(2, 3, 0x3E) == 2 * 1024 + 3 * 64 + 0x3E


def test_address_format_is_mames_chapter_page_pc():
    assert format_address(0, 15, 0x3E) == "0:F:3E"


def test_consecutive_instructions_sit_at_successive_lfsr_pcs():
    p = asm(".page 2\n" + "\n".join(f"TCY {i}" for i in range(8)))
    assert [at(p, 0, 2, pc) for pc in PC_ORDER[:8]] == [0x40, 0x48, 0x44, 0x4C,
                                                         0x42, 0x4A, 0x46, 0x4E]


def test_placement_starts_at_the_reset_address_0_f_00():
    p = asm("TCY 1\nTCY 2")
    assert at(p, 0, 15, 0x00) == 0x48
    assert at(p, 0, 15, 0x01) == 0x44


def test_page_directive_with_pc_starts_there_and_wraps_from_20_to_00():
    p = asm(".page 5, $20\nTCY 1\nTCY 2")
    assert at(p, 0, 5, 0x20) == 0x48
    assert at(p, 0, 5, 0x00) == 0x44


def test_chapter_directive_starts_at_page_0_pc_00():
    p = asm(".chapter 3\nTCY 1")
    assert at(p, 3, 0, 0x00) == 0x48


def test_org_moves_within_the_current_page():
    p = asm(".page 4\nTCY 1\n.org $3E\nTCY 2")
    assert at(p, 0, 4, 0x3E) == 0x44


def test_rom_size_is_the_chips():
    assert len(asm("", TMS1400).rom) == 4096
    assert len(asm("", TMS1100).rom) == 2048
    assert len(asm("", TMS1000).rom) == 1024


def test_unused_bytes_are_00_by_default():
    assert set(asm("").rom) == {0x00}


def test_fill_sets_the_unused_byte():
    p = asm(".fill $7F\nTCY 1")
    assert p.rom.count(0x7F) == 4095


def test_byte_places_raw_bytes_in_lfsr_order():
    p = asm(".page 1\n.byte $12, 0x34, %1010, 0b1")
    assert [at(p, 0, 1, pc) for pc in PC_ORDER[:4]] == [0x12, 0x34, 0x0A, 0x01]


# --- operands --------------------------------------------------------------------------------

def test_constant_operands_are_bit_reversed_in_the_opcode():
    p = asm("TCY 1\nLDP 2\nYNEC 8\nTCMIY 3")
    assert [at(p, 0, 15, pc) for pc in PC_ORDER[:4]] == [0x48, 0x14, 0x51, 0x6C]


def test_ldx_operand_is_3_bit_reversed_on_tms1400():
    assert at(asm("LDX 1"), 0, 15, 0) == 0x2C


def test_ldx_operand_is_2_bit_reversed_on_tms1000():
    assert at(asm("LDX 1", TMS1000), 0, 15, 0) == 0x3E


def test_bit_operands_are_2_bit_reversed():
    p = asm("SBIT 1\nRBIT 2\nTBIT 3")
    assert [at(p, 0, 15, pc) for pc in PC_ORDER[:3]] == [0x32, 0x35, 0x3B]


def test_add_constant_mnemonics_are_mames_a_n_acc():
    p = asm("A1ACC\nA3ACC\nA15ACC\nCLA")
    assert [at(p, 0, 15, pc) for pc in PC_ORDER[:4]] == [0x70, 0x74, 0x77, 0x7F]


def test_opcode_0b_is_tpc_on_tms1400_and_comc_on_tms1100():
    assert at(asm("TPC"), 0, 15, 0) == 0x0B
    assert at(asm("COMC", TMS1100), 0, 15, 0) == 0x0B


def test_mnemonics_are_case_insensitive():
    assert at(asm("tcy 1"), 0, 15, 0) == 0x48


def test_br_is_an_alias_of_branch_and_tbit1_of_tbit():
    p = asm("BR $05\nTBIT1 1")
    assert at(p, 0, 15, 0x00) == 0x85
    assert at(p, 0, 15, 0x01) == 0x3A


def test_raw_branch_and_call_targets_are_the_6_bit_pc():
    p = asm("BRANCH $3E\nCALL 0x01")
    assert at(p, 0, 15, 0x00) == 0xBE
    assert at(p, 0, 15, 0x01) == 0xC1


def test_equ_constants_are_usable_as_operands_with_plus_and_minus():
    p = asm(".equ SPEAKER, 10\n.equ ONE 1\nTCY SPEAKER - ONE + 2")
    assert at(p, 0, 15, 0) == 0x4D  # TCY 11


def test_equ_may_be_used_before_its_definition():
    assert at(asm("TCY N\n.equ N, 3"), 0, 15, 0) == 0x4C


def test_page_and_chapter_of_a_label_are_usable_as_operands():
    p = asm("LDP page(far)\nLDP chapter(far)\n.chapter 2\n.page 9\nfar: TCY 0")
    assert at(p, 0, 15, 0x00) == 0x19  # LDP 9
    assert at(p, 0, 15, 0x01) == 0x14  # LDP 2


# --- labels and branches ---------------------------------------------------------------------

def test_label_value_is_chapter_page_pc_of_the_next_byte():
    p = asm(".chapter 1\n.page 3\nTCY 0\nTCY 1\nhere:\n  TCY 2")
    assert p.symbols["here"] == (1, 3, 0x03)


def test_a_label_on_a_directive_line_names_the_new_place():
    p = asm("there: .page 6, $3E\nTCY 1\nLBR there")
    assert p.symbols["there"] == (0, 6, 0x3E)
    assert at(p, 0, 6, 0x3D) == 0xBE


def test_branch_to_a_label_encodes_its_raw_pc():
    p = asm(".page 3\nloop: TCY 0\nTCY 1\nTCY 2\nBRANCH loop\nCALL sub\nsub: RETN")
    assert at(p, 0, 3, 0x07) == 0x80
    assert at(p, 0, 3, 0x0F) == 0xC0 | 0x1F


def test_branch_forward_to_a_label():
    p = asm("BR next\nTCY 1\nnext: TCY 2")
    assert at(p, 0, 15, 0x00) == 0x80 | 0x03


def test_branch_to_another_page_without_the_long_form_is_an_error():
    msg = error(".page 1\nBR far\n.page 2\nfar: RETN")
    assert msg.startswith("t.asm:2: branch target 'far' is in page 0:2")
    assert "LBR" in msg


def test_branch_after_ldp_of_the_target_page_is_accepted():
    p = asm(".page 1\nLDP 2\nBR far\n.page 2\nfar: RETN")
    assert at(p, 0, 1, 0x01) == 0x80


def test_branch_to_the_current_page_after_an_ldp_elsewhere_is_an_error():
    assert "page buffer holds 0:2" in error(".page 1\nstart: LDP 2\nBR start")


def test_call_after_ldp_of_the_target_page_is_accepted():
    p = asm(".page 1\nLDP 2\nCALL sub\n.page 2\nsub: RETN")
    assert at(p, 0, 1, 0x01) == 0xC0


def test_after_a_call_the_page_buffer_is_the_current_page_again():
    p = asm(".page 1\nhome: LDP 2\nCALL sub\nBR home\n.page 2\nsub: RETN")
    assert at(p, 0, 1, 0x03) == 0x80


def test_a_call_to_another_chapter_needs_the_chapter_buffer_on_tms1400():
    assert "page 1:2" in error("LDP 2\nCALL sub\n.chapter 1\n.page 2\nsub: RETN")


def test_tpc_sets_the_tracked_chapter_buffer_from_the_page_buffer():
    p = asm("LDP 1\nTPC\nLDP 2\nCALL sub\n.chapter 1\n.page 2\nsub: RETN")
    assert at(p, 0, 15, 0x07) == 0xC0


def test_comc_toggles_the_tracked_chapter_buffer_on_tms1100():
    p = asm("COMC\nLDP 2\nBR far\n.chapter 1\n.page 2\nfar: RETN", TMS1100)
    assert at(p, 0, 15, 0x03) == 0x80


def test_pc_of_a_label_is_its_raw_pc_without_the_page_check():
    p = asm(".page 1\nLDP 9\nBR pc(here)\nhere: RETN")
    assert at(p, 0, 1, 0x01) == 0x80 | 0x03


def test_pc_of_a_label_is_only_a_branch_operand():
    assert error("x: TCY pc(x)").startswith("t.asm:1: pc(x) is only allowed as a BRANCH/CALL")


# --- long branch / long call -----------------------------------------------------------------

def test_lbr_in_the_same_page_is_one_branch():
    p = asm(".page 4\nloop: TCY 0\nLBR loop\nTCY 1")
    assert at(p, 0, 4, 0x01) == 0x80
    assert at(p, 0, 4, 0x03) == 0x48


def test_lbr_to_another_page_is_ldp_then_branch():
    p = asm(".page 4\nLBR far\n.page 6, $3E\nfar: RETN")
    assert [at(p, 0, 4, pc) for pc in PC_ORDER[:2]] == [0x16, 0xBE]


def test_lbr_to_another_chapter_on_tms1400_is_ldp_tpc_ldp_branch():
    p = asm(".page 4\nLBR far\n.chapter 2\n.page 6\nfar: RETN")
    assert [at(p, 0, 4, pc) for pc in PC_ORDER[:4]] == [0x14, 0x0B, 0x16, 0x80]


def test_lbr_to_page_equal_to_chapter_skips_the_second_ldp():
    p = asm(".page 4\nLBR far\n.chapter 2\n.page 2\nfar: RETN")
    assert [at(p, 0, 4, pc) for pc in PC_ORDER[:3]] == [0x14, 0x0B, 0x80]


def test_lbr_to_another_chapter_on_tms1100_is_comc_ldp_branch():
    p = asm(".page 4\nLBR far\n.chapter 1\n.page 6\nfar: RETN", TMS1100)
    assert [at(p, 0, 4, pc) for pc in PC_ORDER[:3]] == [0x0B, 0x16, 0x80]


def test_lcall_to_another_page_is_ldp_then_call():
    p = asm(".page 4\nLCALL sub\n.page 6\nsub: RETN")
    assert [at(p, 0, 4, pc) for pc in PC_ORDER[:2]] == [0x16, 0xC0]


def test_after_a_tms1100_long_call_to_chapter_1_the_chapter_buffer_stays_1():
    # RETN restores CA from CS but leaves CB (docs/tms1400.md §7.1): going home needs COMC again
    p = asm(".page 4\nhome: LCALL sub\nLBR home\n.chapter 1\n.page 6\nsub: RETN", TMS1100)
    assert [at(p, 0, 4, pc) for pc in PC_ORDER[:5]] == [0x0B, 0x16, 0xC0, 0x0B, 0x80]


def test_after_a_tms1400_long_call_the_buffers_are_the_callers_again():
    p = asm(".page 4\nhome: LCALL sub\nLBR home\n.chapter 1\n.page 6\nsub: RETN")
    assert [at(p, 0, 4, pc) for pc in PC_ORDER[:5]] == [0x18, 0x0B, 0x16, 0xC0, 0x80]


def test_lbr_uses_an_earlier_ldp_of_the_target_page():
    p = asm(".page 4\nLDP 6\nYNEC 3\nLBR far\n.page 6\nfar: RETN")
    assert at(p, 0, 4, 0x03) == 0x80


def test_expanded_lbr_after_a_test_instruction_is_an_error():
    msg = error(".page 4\nYNEC 3\nLBR far\n.page 6\nfar: RETN")
    assert msg.startswith("t.asm:3: LBR far expands to LDP 6")
    assert "YNEC" in msg


def test_lbr_needs_a_label():
    assert error("LBR $3E").startswith("t.asm:1: LBR expects one label")


# --- directives ------------------------------------------------------------------------------

def test_opla_entries_are_collected_by_index():
    p = asm(".opla 0, $7E\n.opla 31, 1")
    assert p.opla == {0: 0x7E, 31: 0x01}


def test_opla_table_has_32_entries_with_a_default():
    table = asm(".opla 3, $12").opla_table(default=0xFF)
    assert len(table) == 32 and table[3] == 0x12 and table[0] == 0xFF


def test_opla_is_none_without_entries():
    assert asm("TCY 1").opla is None


def test_chip_directive_chooses_the_chip_when_none_is_given():
    assert assemble(".chip tms1100\nCOMC").chip is TMS1100


def test_default_chip_is_tms1400():
    assert assemble("TPC").chip is TMS1400


def test_chip_directive_must_match_the_requested_chip():
    assert error(".chip tms1100").startswith("t.asm:1: source is for tms1100 but assembling "
                                             "for tms1400")


def test_comments_and_blank_lines_emit_nothing():
    p = asm("; a comment\n\n   ; another\nTCY 1 ; trailing")
    assert at(p, 0, 15, 0) == 0x48
    assert at(p, 0, 15, 1) == 0x00


# --- listing ---------------------------------------------------------------------------------

def test_listing_line_shows_address_offset_opcode_and_source():
    p = asm(".page 3, $3E\nstart: TCY 1 ; go")
    assert "0:3:3E  0FE  48  start: TCY 1 ; go" in p.listing.splitlines()


def test_listing_shows_the_expansion_of_a_long_branch():
    lines = asm(".page 4\nLBR far\n.page 6\nfar: RETN").listing.splitlines()
    assert lines[1] == "0:4:00  100  16  LBR far"
    assert lines[2] == "0:4:01  101  80    + BRANCH $00"


# --- errors ----------------------------------------------------------------------------------

@pytest.mark.parametrize("source, message", [
    ("FOO", "t.asm:1: unknown mnemonic 'FOO' for tms1400"),
    ("COMC", "t.asm:1: unknown mnemonic 'COMC' for tms1400"),
    ("TCY 16", "t.asm:1: TCY constant 16 out of range 0-15"),
    ("LDX 8", "t.asm:1: LDX RAM file 8 out of range 0-7"),
    ("SBIT 4", "t.asm:1: SBIT bit number 4 out of range 0-3"),
    ("BRANCH $40", "t.asm:1: BRANCH target pc 64 out of range 0-63"),
    ("TCY", "t.asm:1: TCY expects one operand"),
    ("TCY 1, 2", "t.asm:1: TCY expects one operand"),
    ("TAY 1", "t.asm:1: TAY takes no operand"),
    ("TCY $G", "t.asm:1: cannot read the number '$G' in '$G'"),
    ("TCY nothing", "t.asm:1: undefined name 'nothing'"),
    ("x: TCY x", "t.asm:1: label 'x' used as a number"),
    ("BR nowhere", "t.asm:1: undefined label 'nowhere'"),
    ("a: TCY 1\na: TCY 2", "t.asm:2: duplicate label 'a' (first defined on line 1)"),
    (".equ A 1\n.equ A 2", "t.asm:2: duplicate name 'A' (first defined on line 1)"),
    (".equ A B\n.equ B A\nTCY A", "t.asm:2: .equ A refers to itself"),
    (".page 16", "t.asm:1: page 16 out of range 0-15"),
    (".page 1, $40", "t.asm:1: pc 64 out of range 0-63"),
    (".chapter 4", "t.asm:1: chapter 4 out of range 0-3 (a tms1400 has 4 chapters)"),
    (".org", "t.asm:1: .org expects one raw pc value"),
    (".opla 32, 0", "t.asm:1: output-PLA index (SL<<4 | A) 32 out of range 0-31"),
    (".opla 1, 0\n.opla 1, 2", "t.asm:2: output-PLA index 1 already set on line 1"),
    (".byte 256", "t.asm:1: byte 256 out of range 0-255"),
    (".align 2", "t.asm:1: unknown directive '.align'"),
    (".chip z80", "t.asm:1: unknown chip 'z80'"),
    (".chip tms1400\n.chip tms1100", "t.asm:2: .chip tms1100 contradicts .chip tms1400"),
    ("TCY 1,", "t.asm:1: empty operand in 'TCY 1,'"),
    ("@@", "t.asm:1: cannot read '@@'"),
    (".page page(x)\nx: TCY 1", "t.asm:1: page(x) cannot be used here"),
])
def test_bad_source_gives_a_file_line_message(source, message):
    assert error(source).startswith(message)


def test_two_operands_without_a_comma_are_refused_not_joined_into_one_number():
    assert error("TCMIY 1 2") == "t.asm:1: cannot read the value '1 2' (expected one value; " \
                                 "operands are separated by commas)"


def test_an_unused_equ_with_a_bad_value_is_still_an_error():
    assert error(".equ SPARE, nothing") == "t.asm:1: undefined name 'nothing'"


def test_chapter_1_is_the_last_on_tms1100():
    assert "chapter 2 out of range 0-1 (a tms1100 has 2 chapters)" in error(".chapter 2", TMS1100)


def test_65_bytes_in_one_page_is_page_overflow():
    msg = error(".page 2\n" + "TCY 1\n" * 65)
    assert msg == "t.asm:66: page overflow: more than 64 bytes in page 0:2 since line 1"


def test_a_byte_placed_twice_is_an_error():
    assert error(".page 2\nTCY 1\n.page 2\nTCY 2") == \
        "t.asm:4: 0:2:00 already holds the byte from line 2"


def test_errors_are_value_errors():
    assert issubclass(AsmError, ValueError)


def test_an_error_message_is_one_line():
    assert "\n" not in error(".page 1\nBR far\n.page 2\nfar: RETN")


def test_the_module_docstring_example_assembles():
    doc = emulator.asm.__doc__
    example = doc.split("Syntax", 1)[1].split("::", 1)[1].split("\n\nStatements", 1)[0]
    p = asm(textwrap.dedent(example))
    assert p.symbols["far"] == (0, 3, 0x3E)
    assert "0:F:00  3C0  45  start:  TCY     SPEAKER" in p.listing


# --- files -----------------------------------------------------------------------------------

def test_assemble_file_names_the_file_in_errors(tmp_path):
    path = tmp_path / "bad.asm"
    path.write_text("TCY 1\nNOPE\n")
    with pytest.raises(AsmError, match=r"bad\.asm:2: unknown mnemonic 'NOPE'"):
        assemble_file(path, TMS1400)


def test_assemble_file_reports_a_missing_file(tmp_path):
    with pytest.raises(AsmError, match=r"missing\.asm: cannot read"):
        assemble_file(tmp_path / "missing.asm")


def test_assemble_file_reports_non_utf8(tmp_path):
    path = tmp_path / "bin.asm"
    path.write_bytes(b"TCY 1\n\xff\xfe\n")
    with pytest.raises(AsmError, match=r"bin\.asm: not UTF-8"):
        assemble_file(path)


def test_an_endless_source_file_is_refused_after_a_bounded_read():
    with pytest.raises(AsmError, match=r"^/dev/zero: more than 16777216 bytes"):
        assemble_file("/dev/zero")


def test_a_source_file_with_a_byte_order_mark_assembles(tmp_path):
    path = tmp_path / "bom.asm"
    path.write_bytes(b"\xef\xbb\xbf  TCY 1\r\n")
    assert assemble_file(path).rom[0x3C0] == 0x48
