"""Berkeley PLA reader/writer in MAME's format (docs/tms1400.md §4.3, docs/mame-oracle.md §3) and
the built-in standard decode (TI TMS1000 Series Data Manual, table 3)."""
from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.chips import TMS1000, TMS1100, TMS1400
from emulator.decode import (MICRO_XOR, ident_output_pla, micro_table, output_table,
                             standard_micro_pla, standard_micro_table)
from emulator.pla import MAME_PLA_SIZES, Pla, PlaError, pla_text, read_pla, write_pla

SAMPLE = """# a comment
.i 3
.o 2
.p 3
1-0 10
011 01
~11 11
.phase 01
.e
"""


def test_input_column_k_is_input_bit_k():
    pla = read_pla(".i 3\n.o 1\n1-0 1\n")
    assert [x for x in range(8) if pla.evaluate(x)] == [0b001, 0b011]


def test_output_column_k_is_output_bit_k():
    pla = read_pla(".i 1\n.o 3\n1 001\n")
    assert pla.evaluate(1) == 0b100


def test_only_a_1_in_the_output_field_drives_an_output():
    pla = read_pla(".i 1\n.o 4\n1 1-~0\n")
    assert pla.evaluate(1) == 0b0001


def test_a_tilde_input_never_matches():
    pla = read_pla(".i 2\n.o 1\n~- 1\n")
    assert [pla.evaluate(x) for x in range(4)] == [0, 0, 0, 0]


def test_phase_zero_inverts_that_output():
    pla = read_pla(SAMPLE)
    assert pla.phase == "01"
    assert pla.evaluate(0b000) == 0b01       # nothing matches: output 0 inverted
    assert pla.evaluate(0b001) == 0b00       # term 1 drives output 0, inverted to 0
    assert pla.evaluate(0b110) == 0b11       # term 2 (inputs 0,1,1 = bits 1 and 2 set)


def test_comments_and_p_are_accepted_and_terms_kept_in_file_order():
    pla = read_pla(SAMPLE, "x.pla")
    assert (pla.inputs, pla.outputs) == (3, 2)
    assert pla.terms == (("1-0", "10"), ("011", "01"), ("~11", "11"))


def test_reads_bytes_and_file_objects():
    assert read_pla(SAMPLE.encode()) == read_pla(io.StringIO(SAMPLE)) == read_pla(SAMPLE)


@pytest.mark.parametrize("text, message", [
    (".i 2\n.o 1\n.type fr\n", "x.pla:3: unknown keyword '.type'"),
    (".i 2\n.o 1\n1 1\n", "x.pla:3: input field '1' is not 2 of 0 1 - ~"),
    (".i 2\n.o 1\n11 10\n", "x.pla:3: output field '10' is not 1 of 0 1 - ~"),
    (".i 2\n.o 1\n1x 1\n", "x.pla:3: input field '1x' is not 2 of 0 1 - ~"),
    ("11 1\n", "x.pla:1: term before .i and .o"),
    (".i 2\n.o 2\n.phase 1\n", "x.pla:3: .phase '1' is not 2 digits 0/1"),
    (".i 2\n.o 1\n11 1\0\n", "x.pla:3: NUL byte"),
    ("# only comments\n", "x.pla: no .i/.o header"),
    (".i two\n", "x.pla:1: .i needs a number"),
])
def test_malformed_pla_is_refused_with_file_and_line(text, message):
    with pytest.raises(PlaError) as err:
        read_pla(text, "x.pla")
    assert str(err.value).startswith(message)
    assert "\n" not in str(err.value)


_term = st.integers(1, 8).flatmap(lambda i: st.integers(1, 16).flatmap(lambda o: st.tuples(
    st.just(i), st.just(o),
    st.lists(st.tuples(st.text("01-~", min_size=i, max_size=i),
                       st.text("01-~", min_size=o, max_size=o)), max_size=12),
    st.none() | st.text("01", min_size=o, max_size=o))))


@settings(max_examples=60, deadline=None)
@given(_term)
def test_written_pla_reads_back_identical(spec):
    inputs, outputs, terms, phase = spec
    pla = Pla(inputs, outputs, tuple(terms), phase)
    assert read_pla(pla_text(pla, title="round trip")) == pla


@settings(max_examples=30, deadline=None)
@given(_term)
def test_padding_to_the_device_term_count_keeps_the_function(spec):
    inputs, outputs, terms, phase = spec
    pla = Pla(inputs, outputs, tuple(terms), phase)
    back = read_pla(pla_text(pla, term_count=12, pad_to_bytes=1000))
    assert len(back.terms) == 12
    assert back.table() == pla.table()


@pytest.mark.parametrize("pad", [0, 1, 2, 3, 73, 74, 200])
def test_padding_reaches_the_exact_size_with_comment_lines_only(pad):
    pla = Pla(2, 1, (("11", "1"),), None)
    size = len(pla_text(pla)) + pad
    text = pla_text(pla, pad_to_bytes=size)
    assert len(text.encode()) == size
    assert "\0" not in text
    assert read_pla(text) == pla


def test_text_longer_than_the_pad_size_is_refused():
    with pytest.raises(PlaError, match="more than 10"):
        pla_text(Pla(2, 1, (("11", "1"),), None), pad_to_bytes=10)


def test_more_terms_than_the_device_reads_is_refused():
    with pytest.raises(PlaError, match="more than the device's 1"):
        pla_text(Pla(2, 1, (("11", "1"), ("00", "1")), None), term_count=1)


def test_write_pla_accepts_binary_and_text_files():
    pla = Pla(2, 1, (("11", "1"),), None)
    raw, txt = io.BytesIO(), io.StringIO()
    write_pla(pla, raw, 50)
    write_pla(pla, txt, 50)
    assert raw.getvalue().decode() == txt.getvalue() and len(txt.getvalue()) == 50


# -- the standard decode as MAME-loadable files ------------------------------------------------

@pytest.mark.parametrize("chip", [TMS1000, TMS1100, TMS1400], ids=lambda c: c.name)
def test_standard_micro_pla_fits_the_30_terms_mame_reads(chip):
    assert len(standard_micro_pla(chip).terms) <= 30


@pytest.mark.parametrize("chip", [TMS1000, TMS1100, TMS1400], ids=lambda c: c.name)
def test_standard_micro_pla_decodes_every_opcode_as_the_opcode_table(chip):
    assert micro_table(chip, standard_micro_pla(chip)) == standard_micro_table(chip)


def test_standard_micro_pla_phase_marks_the_nine_active_low_lines():
    phase = standard_micro_pla().phase
    assert [k for k, c in enumerate(phase) if c == "0"] == [
        k for k in range(16) if MICRO_XOR >> k & 1]


def test_standard_micro_pla_file_is_867_bytes_with_30_terms_then_phase():
    text = pla_text(standard_micro_pla(), term_count=30, pad_to_bytes=MAME_PLA_SIZES["micro"])
    assert len(text.encode()) == 867 and "\0" not in text
    lines = [ln for ln in text.splitlines() if not ln.startswith("#")]
    assert lines[:3] == [".i 8", ".o 16", ".p 30"]
    assert lines[33].startswith(".phase ") and lines[34] == ".e"
    assert micro_table(TMS1400, read_pla(text)) == standard_micro_table(TMS1400)


@pytest.mark.parametrize("terms, size", [(32, 557), (20, 365)])
def test_output_pla_files_pad_to_mame_sizes(terms, size):
    text = pla_text(ident_output_pla(), term_count=terms, pad_to_bytes=size)
    assert len(text.encode()) == size
    assert len(read_pla(text).terms) == terms


def test_identity_output_pla_gives_o_equal_to_sl_and_a():
    assert output_table(ident_output_pla()) == tuple(range(32))


def test_standard_micro_pla_file_writer_makes_the_867_byte_mame_file():
    from emulator.decode import write_standard_micro_pla
    buf = io.StringIO()
    write_standard_micro_pla(buf)
    text = buf.getvalue()
    assert len(text.encode()) == 867
    assert micro_table(TMS1400, read_pla(text)) == standard_micro_table(TMS1400)
