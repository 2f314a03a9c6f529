"""`towerlab trace` on the compiled kernel: the C formatter writes the canonical lines byte for
byte, `--filter` keeps the same instructions on either core, and `--format binary` records
(docs/trace-format.md) read back into the same lines."""
from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.asm import assemble_file
from emulator.chips import TMS1000, TMS1100, TMS1400
from emulator.core import Cpu
from emulator.fastcore import FAST_AVAILABLE, FastCpu, fast_trace_chunks
from emulator.randrom import random_rom
from emulator.trace import (TRACE_HEADER, TraceError, TraceFilter, _pack, binary_trace_lines,
                            read_binary_trace, record_line, trace_chunks, trace_lines,
                            trace_records, write_binary_header)
from emulator.boards import demo_program
from towerlab.cli import main

pytestmark = pytest.mark.skipif(not FAST_AVAILABLE,
                                reason="accelerated core not built: pip install -e . with gcc")

PROGRAMS = Path(__file__).parent.parent / "programs"


def _images():
    yield "demo", TMS1400, bytes(demo_program().rom)
    yield "r_o_k", TMS1400, assemble_file(PROGRAMS / "r_o_k.asm", TMS1400).rom
    yield "tms1100_paging", TMS1100, assemble_file(PROGRAMS / "tms1100_paging.asm",
                                                   TMS1100).rom
    yield "tms1000_ops", TMS1000, assemble_file(PROGRAMS / "tms1000_ops.asm", TMS1000).rom
    for seed in range(3):
        yield f"random{seed}", TMS1400, random_rom(seed)


IMAGES = list(_images())


def _kernel(chip, rom, steps, binary=False, flt=None, chunk=1 << 16):
    return b"".join(fast_trace_chunks(FastCpu(chip, rom), steps, binary, flt, chunk))


def _reference(chip, rom, steps, binary=False, flt=None):
    return b"".join(trace_chunks(trace_records(Cpu(chip, rom), steps), binary, flt))


@pytest.mark.parametrize("name,chip,rom", IMAGES, ids=[i[0] for i in IMAGES])
def test_kernel_formats_the_reference_lines_byte_for_byte(name, chip, rom):
    text = _kernel(chip, rom, 5000, chunk=777)
    expected = "".join(line + "\n" for line in trace_lines(Cpu(chip, rom), 5000)).encode()
    assert text == expected


@pytest.mark.parametrize("name,chip,rom", IMAGES, ids=[i[0] for i in IMAGES])
def test_kernel_binary_records_equal_the_reference_records(name, chip, rom):
    assert _kernel(chip, rom, 3000, binary=True, chunk=500) == \
        _reference(chip, rom, 3000, binary=True)


FILTERS = [["pins"], ["page=0:F"], ["chapter=0"], ["op=08-0F"], ["op=0C"],
           ["pc=0:F:00-0:F:1F"], ["pc=0:0:00-0:7:3F", "pins"], ["page=0:1", "op=80-BF"]]


@pytest.mark.parametrize("terms", FILTERS, ids=lambda t: "+".join(t))
def test_filters_keep_the_same_instructions_on_either_core(terms):
    flt = TraceFilter.parse(terms)
    for name, chip, rom in IMAGES[:4]:
        for binary in (False, True):
            got = _kernel(chip, rom, 20_000, binary, flt, chunk=3001)
            assert got == _reference(chip, rom, 20_000, binary, flt), (name, binary)


def test_pins_filter_keeps_the_first_line_after_each_pin_change():
    rom = bytes(demo_program().rom)
    lines = [line for line in trace_lines(Cpu(TMS1400, rom), 20_000)]
    kept = _kernel(TMS1400, rom, 20_000, flt=TraceFilter.parse(["pins"])).decode().splitlines()
    pins = [line.split(" R=")[1] for line in lines]
    expected = [lines[i] for i in range(len(lines)) if i == 0 or pins[i] != pins[i - 1]]
    assert kept == expected and 10 < len(kept) < len(lines)


def test_filtered_lines_keep_their_numbers_in_the_whole_trace():
    rom = bytes(demo_program().rom)
    kept = _kernel(TMS1400, rom, 4000, flt=TraceFilter.parse(["op=0C"])).decode().splitlines()
    whole = _kernel(TMS1400, rom, 4000).decode().splitlines()
    assert kept and all(whole[int(line.split()[0], 16)] == line for line in kept)


@pytest.mark.parametrize("core", ["fast", "reference"])
def test_binary_trace_file_reads_back_into_the_text_lines(tmp_path, core):
    rom = tmp_path / "demo.bin"
    rom.write_bytes(bytes(demo_program().rom))
    common = ["trace", "--rom", str(rom), "--steps", "30000", "--core", core]
    assert main(common + ["-o", str(tmp_path / "t.txt")], io.StringIO()) == 0
    assert main(common + ["--format", "binary", "-o", str(tmp_path / "t.bin")],
                io.StringIO()) == 0
    with open(tmp_path / "t.bin", "rb") as f:
        lines = [line + "\n" for line in binary_trace_lines(f, "t.bin")]
    assert "".join(lines).encode() == (tmp_path / "t.txt").read_bytes()
    assert (tmp_path / "t.bin").stat().st_size == TRACE_HEADER.sizeof() + 32 * 30000
    with open(tmp_path / "t.bin", "rb") as f:
        info, _ = read_binary_trace(f)
    assert info == {"chip": "tms1400", "filtered": False}


_RECORD = st.tuples(st.integers(0, 2**40), st.integers(0, 2**48), st.integers(0, 0x7FF),
                    st.integers(0, 3), st.integers(0, 15), st.integers(0, 63),
                    st.integers(0, 255), *[st.integers(0, 15)] * 3, st.integers(0, 1),
                    st.integers(0, 1), st.integers(0, 15), st.integers(0, 3),
                    st.integers(0, 255))


@settings(max_examples=60, deadline=None)
@given(st.lists(_RECORD, max_size=40), st.booleans())
def test_binary_records_round_trip(records, filtered):
    f = io.BytesIO()
    write_binary_header(f, "tms1100", filtered)
    f.write(_pack(records))
    f.seek(0)
    info, blocks = read_binary_trace(f)
    back = [tuple(int(v) for v in rec.tolist()[:15]) for block in blocks for rec in block]
    assert info == {"chip": "tms1100", "filtered": filtered} and back == records
    f.seek(0)
    assert list(binary_trace_lines(f)) == [record_line(r) for r in records]


def test_a_file_that_is_not_a_binary_trace_is_named_in_the_error():
    with pytest.raises(TraceError, match=r"t\.bin: not a TowerLab binary trace"):
        read_binary_trace(io.BytesIO(b"0 5 0:F:00 28 A=0"), "t.bin")


def test_a_truncated_binary_trace_is_named_in_the_error():
    f = io.BytesIO()
    write_binary_header(f, "tms1400", False)
    f.write(bytes(40))
    f.seek(0)
    with pytest.raises(TraceError, match="t.bin: ends inside a record"):
        list(binary_trace_lines(f, "t.bin"))


@pytest.mark.parametrize("term,message", [
    ("pc=0:F:40", "not a ROM address"), ("pc=4:0:00", "not a ROM address"),
    ("page=F", "expected page=C:P"), ("chapter=5", "chapter=C with C 0-3"),
    ("op=1FF", "not an opcode"), ("op=20-10", "ends before it starts"),
    ("speed=3", "unknown filter"), ("pins=1", "unknown filter"),
])
def test_bad_filter_terms_give_one_line_errors(term, message):
    with pytest.raises(TraceError, match=message):
        TraceFilter.parse([term])


def test_binary_trace_to_the_terminal_is_refused(tmp_path):
    import argparse

    from towerlab.cmd_chip import cmd_trace

    rom = tmp_path / "demo.bin"
    rom.write_bytes(bytes(demo_program().rom))
    args = argparse.Namespace(rom=str(rom), romset=None, mpla=None, opla=None, chip=None,
                              steps=10, board=None, script=None, out=None, core="fast",
                              filter=[], format="binary")
    with pytest.raises(ValueError, match="--format binary needs -o FILE"):
        cmd_trace(args, io.StringIO())


def test_a_board_trace_filters_the_same_on_either_core(tmp_path):
    # with a board the trace steps one instruction at a time on either core
    rom = tmp_path / "demo.bin"
    rom.write_bytes(bytes(demo_program().rom))
    outs = []
    for core in ("fast", "reference"):
        out = tmp_path / f"{core}.txt"
        assert main(["trace", "--rom", str(rom), "--board", "darktower", "--steps", "8000",
                     "--core", core, "--filter", "pins", "-o", str(out)], io.StringIO()) == 0
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] and outs[0].count(b"\n") > 10
