"""The chip-area commands: ``towerlab trace``, ``asm`` and ``disasm`` (thin wrappers)."""
from __future__ import annotations

import io
import os
import stat
import zipfile

import pytest
from chipkit import rom

from emulator.chips import TMS1400
from emulator.decode import ident_output_pla, standard_micro_pla
from emulator.pla import pla_text
from towerlab.cli import main

PROGRAM = ["TCY 3", "YNEA", "TCY 5", "SETR", "TYA", "TDO", "TKA", "BRANCH $00"]


def run_cli(argv):
    out = io.StringIO()
    status = main(argv, out)
    return status, out.getvalue()


@pytest.fixture
def rom_file(tmp_path):
    path = tmp_path / "prog.bin"
    path.write_bytes(rom(TMS1400, {15: PROGRAM}))
    return path


def test_trace_prints_one_contract_line_per_step(rom_file):
    status, text = run_cli(["trace", "--rom", str(rom_file), "--steps", "3"])
    assert status == 0
    assert text.splitlines() == [
        "0 5 0:F:00 4C A=0 X=0 Y=0 S=1 SL=0 PB=F CB=0 R=0000 O=00",
        "1 B 0:F:01 02 A=0 X=0 Y=3 S=1 SL=0 PB=F CB=0 R=0000 O=00",
        "2 11 0:F:03 4A A=0 X=0 Y=3 S=1 SL=1 PB=F CB=0 R=0000 O=00",
    ]


def test_trace_shows_r_pins_and_o_through_the_output_pla(rom_file, tmp_path):
    opla = tmp_path / "o.pla"
    table = [0] * 32
    table[0x15] = 0xA5
    from emulator.decode import output_pla_from_table
    opla.write_text(pla_text(output_pla_from_table(table), term_count=32, pad_to_bytes=557))
    status, text = run_cli(["trace", "--rom", str(rom_file), "--opla", str(opla),
                            "--steps", "7"])
    assert status == 0
    assert text.splitlines()[6].endswith("R=0020 O=A5")


def test_trace_writes_the_output_file(rom_file, tmp_path):
    out = tmp_path / "t.trace"
    status, text = run_cli(["trace", "--rom", str(rom_file), "--steps", "20", "-o", str(out)])
    assert status == 0 and text == ""
    lines = out.read_text().splitlines()
    assert len(lines) == 20 and lines[19].startswith("13 77 ")


def test_trace_loads_a_romset_zip(tmp_path):
    path = tmp_path / "mbdtower.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("mp7332", rom(TMS1400, {15: PROGRAM}))
        zf.writestr("tms1100_common1_micro.pla",
                    pla_text(standard_micro_pla(), term_count=30, pad_to_bytes=867))
        zf.writestr("tms1400_mbdtower_output.pla",
                    pla_text(ident_output_pla(), term_count=32, pad_to_bytes=557))
    status, text = run_cli(["trace", "--romset", str(path), "--steps", "7"])
    assert status == 0
    assert text.splitlines()[6].endswith("R=0020 O=15")


def test_trace_with_the_darktower_board_reads_k_from_it(rom_file, tmp_path):
    status, text = run_cli(["trace", "--rom", str(rom_file), "--board", "darktower",
                            "--steps", "8"])
    assert status == 0 and len(text.splitlines()) == 8


def test_trace_with_a_board_script_holds_keys_from_the_script_time(tmp_path):
    # R0 column high, then TKA in a loop: K goes to 2 (NO/END is R0/K2) from 1 ms.
    path = tmp_path / "k.bin"
    path.write_bytes(rom(TMS1400, {15: ["TCY 0", "SETR", "TKA", "BRANCH $03"]}))
    script = tmp_path / "s.txt"
    script.write_text("0.001 NO/END 0.5\n")
    status, text = run_cli(["trace", "--rom", str(path), "--board", "darktower",
                            "--script", str(script), "--steps", "100"])
    assert status == 0
    a_values = [ln.split()[4] for ln in text.splitlines()]
    first = a_values.index("A=2")
    cycle = int(text.splitlines()[first - 1].split()[1], 16)
    assert 425 <= cycle + 1 <= 425 + 3 * 6


@pytest.mark.parametrize("good_rom, argv, message", [
    (False, ["--steps", "3"], "prog.bin is 5 bytes"),
    (False, ["--steps", "3", "--board", "labyrinth"], "is 5 bytes (expected 2048 for a TMS1100)"),
    (True, ["--steps", "-1"], "--steps -1 must be 0 or more"),
    (True, ["--steps", "3", "--chip", "tms9999"], "unknown chip 'tms9999'"),
    (True, ["--steps", "3", "--script", "x.txt"], "--script needs --board"),
    (True, ["--steps", "3", "--opla", "nothere.pla"], "nothere.pla: cannot read"),
    (True, ["--steps", "3", "--mpla", "OPLA"], "o.pla: has 5 inputs x 8 outputs (expected 8 x 16"),
    (True, ["--steps", "3", "--board", "darktower", "--script", "nothere.txt"], "nothere.txt"),
])
def test_trace_bad_input_prints_one_line_and_exits_2(tmp_path, capsys, good_rom, argv, message):
    path = tmp_path / "prog.bin"
    path.write_bytes(rom(TMS1400, {15: PROGRAM}) if good_rom else b"short")
    (tmp_path / "o.pla").write_text(pla_text(ident_output_pla()))
    argv = [str(tmp_path / "o.pla") if a == "OPLA" else a for a in argv]
    out = tmp_path / "never.trace"
    status, _ = run_cli(["trace", "--rom", str(path), *argv, "-o", str(out)])
    err = capsys.readouterr().err
    assert status == 2
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists()


def test_trace_refuses_a_board_of_another_chip(tmp_path, capsys):
    path = tmp_path / "p.bin"
    path.write_bytes(bytes(4096))
    status, _ = run_cli(["trace", "--rom", str(path), "--chip", "tms1400", "--board",
                         "labyrinth", "--steps", "1"])
    assert status == 2
    assert "board labyrinth carries a TMS1100, not a TMS1400" in capsys.readouterr().err


def test_asm_then_disasm_round_trips(tmp_path):
    src = tmp_path / "p.asm"
    src.write_text(".chip tms1400\n.page 15\nstart: TCY 3\n  BRANCH start\n")
    binary = tmp_path / "p.bin"
    status, text = run_cli(["asm", str(src), "-o", str(binary)])
    assert status == 0 and "4096 bytes for a TMS1400" in text
    status, listing = run_cli(["disasm", str(binary)])
    assert status == 0 and "TCY 3" in listing
    again = tmp_path / "again.asm"
    again.write_text(listing)
    status, _ = run_cli(["asm", str(again), "-o", str(tmp_path / "again.bin")])
    assert status == 0 and (tmp_path / "again.bin").read_bytes() == binary.read_bytes()


def test_disasm_listing_mode_gives_one_line_per_byte(rom_file):
    status, text = run_cli(["disasm", str(rom_file), "--listing"])
    assert status == 0 and len(text.splitlines()) == 4096
    assert text.splitlines()[15 * 64].startswith("0:F:00  3C0  4C  TCY 3")


def test_asm_error_exits_2_without_writing(tmp_path, capsys):
    src = tmp_path / "bad.asm"
    src.write_text("  FROB 3\n")
    out = tmp_path / "bad.bin"
    status, _ = run_cli(["asm", str(src), "-o", str(out)])
    assert status == 2 and not out.exists()
    assert capsys.readouterr().err.startswith("towerlab: ")


def test_trace_tells_on_stderr_what_it_loaded(rom_file, capsys):
    status, _ = run_cli(["trace", "--rom", str(rom_file), "--steps", "1"])
    err = capsys.readouterr().err.splitlines()
    assert status == 0
    assert err[0] == "towerlab: prog.bin: raw ROM image (no known set), TMS1400"
    assert err[1].startswith("towerlab: warning: prog.bin: unknown image, SHA-1 ")


def test_trace_into_a_missing_folder_is_refused(rom_file, tmp_path, capsys):
    status, _ = run_cli(["trace", "--rom", str(rom_file), "--steps", "1", "-o",
                         str(tmp_path / "nope" / "t.trace")])
    assert status == 2
    assert "does not exist" in capsys.readouterr().err.splitlines()[-1]


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "p.asm"
    path.write_text("  TCY 1\n")
    return path


def test_asm_output_to_a_folder_is_refused_naming_it(source, tmp_path, capsys):
    status, _ = run_cli(["asm", str(source), "-o", str(tmp_path)])
    assert status == 2
    assert capsys.readouterr().err == f"towerlab: {tmp_path}: is a folder (expected a file name)\n"


def test_disasm_to_an_empty_output_name_is_refused(rom_file, capsys):
    status, _ = run_cli(["disasm", str(rom_file), "-o", ""])
    assert status == 2
    assert capsys.readouterr().err == "towerlab: output file name is empty (expected a file name)\n"


def test_asm_output_gets_the_mode_the_umask_gives(source, tmp_path):
    old = os.umask(0o022)
    try:
        status, _ = run_cli(["asm", str(source), "-o", str(tmp_path / "p.bin")])
    finally:
        os.umask(old)
    assert status == 0 and stat.S_IMODE((tmp_path / "p.bin").stat().st_mode) == 0o644


def test_asm_into_a_fifo_writes_through_it_and_leaves_it_a_fifo(source, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        status, _ = run_cli(["asm", str(source), "-o", str(fifo)])
        data = os.read(reader, 8192)
    finally:
        os.close(reader)
    assert status == 0 and stat.S_ISFIFO(fifo.stat().st_mode) and len(data) == 4096


def test_asm_through_a_symlink_writes_the_linked_file_and_keeps_the_link(source, tmp_path):
    (tmp_path / "real.bin").write_bytes(b"old")
    (tmp_path / "link.bin").symlink_to("real.bin")
    status, _ = run_cli(["asm", str(source), "-o", str(tmp_path / "link.bin")])
    assert status == 0 and (tmp_path / "link.bin").is_symlink()
    assert len((tmp_path / "real.bin").read_bytes()) == 4096


def test_trace_with_mpla_on_a_set_without_one_does_not_warn_it_is_missing(tmp_path, capsys):
    zpath = tmp_path / "mbdtower.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        zf.writestr("mp7332", rom(TMS1400, {15: PROGRAM}))
    mpla = tmp_path / "m.pla"
    mpla.write_text(pla_text(standard_micro_pla()))
    status, _ = run_cli(["trace", "--romset", str(zpath), "--mpla", str(mpla), "--steps", "1"])
    err = capsys.readouterr().err
    assert status == 0 and "no micro PLA" not in err and "no output PLA" in err


def test_asm_writes_the_listing_when_asked(source, tmp_path):
    listing = tmp_path / "p.lst"
    status, _ = run_cli(["asm", str(source), "-o", str(tmp_path / "p.bin"), "--listing",
                         str(listing)])
    assert status == 0 and listing.read_text() == "0:F:00  3C0  48    TCY 1\n"


def test_disasm_refuses_to_write_over_the_rom_it_reads(rom_file, capsys):
    before = rom_file.read_bytes()
    status, _ = run_cli(["disasm", str(rom_file), "-o", str(rom_file)])
    assert status == 2 and "is also an input of this command" in capsys.readouterr().err
    assert rom_file.read_bytes() == before


def test_asm_refuses_to_write_over_its_source(source, capsys):
    status, _ = run_cli(["asm", str(source), "-o", str(source)])
    assert status == 2 and source.read_text() == "  TCY 1\n"


def test_trace_runs_the_demo_firmware_as_the_other_commands_take_it(tmp_path):
    from emulator.boards import BOARDS

    code, text = run_cli(["trace", "--firmware", "demo", "--steps", "400", "--board",
                          "darktower"])
    assert code == 0
    # the same program as assembled from its source, with the Dark Tower's output PLA
    assert run_cli(["asm", "emulator/firmware/demo.asm", "-o", str(tmp_path / "demo.bin")])[0] \
        == 0
    (tmp_path / "dt.pla").write_text(pla_text(BOARDS["darktower"].default_opla()))
    code, same = run_cli(["trace", "--rom", str(tmp_path / "demo.bin"), "--opla",
                          str(tmp_path / "dt.pla"), "--steps", "400", "--board", "darktower"])
    assert code == 0 and text == same and len(text.splitlines()) == 400


def test_trace_of_the_demo_firmware_on_a_board_it_is_not_for_is_refused(capsys):
    code, _ = run_cli(["trace", "--firmware", "demo", "--steps", "1", "--board", "labyrinth"])
    err = capsys.readouterr().err
    assert code == 2 and "the demo firmware is for the darktower board, not 'labyrinth'" in err
