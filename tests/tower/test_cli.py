"""towerlab run / demo / play: small commands over the library, errors as one line, exit 2."""
from __future__ import annotations

import io
import wave
import zipfile

import pytest

from captures.events import read_events
from captures.formats import open_capture
from towerlab.cli import main

from .capdata import CAPTURES


def run(argv):
    out = io.StringIO()
    return main(argv, out), out.getvalue()


def test_run_writes_events_a_sigrok_capture_and_a_wav(tmp_path):
    ev, sr, wav = tmp_path / "e.jsonl", tmp_path / "c.sr", tmp_path / "s.wav"
    code, text = run(["run", "--firmware", "demo", "--script",
                      str(CAPTURES / "tower_test" / "script.txt"), "--seconds", "7",
                      "--events", str(ev), "--sr", str(sr), "--wav", str(wav)])
    assert code == 0
    assert "motor on" in text and "press YES/BUY" in text
    events = read_events(str(ev))
    assert any(e["type"] == "motor" for e in events)
    cap = open_capture(str(sr))
    assert "SENSOR" in cap.channels
    with wave.open(str(wav)) as w:
        assert w.getnframes() == pytest.approx(7 * w.getframerate(), rel=0.01)


def test_run_is_deterministic(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path in (a, b):
        run(["run", "--firmware", "demo", "--seconds", "2", "--events", str(path), "--quiet"])
    assert a.read_text() == b.read_text()


def test_run_needs_a_program_source(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--seconds", "1"])


def test_run_refuses_a_bad_script_with_its_line_and_writes_nothing(tmp_path, capsys):
    script = tmp_path / "s.txt"
    script.write_text("1.0 FIRE 0.2\n")
    ev = tmp_path / "e.jsonl"
    code, _ = run(["run", "--firmware", "demo", "--script", str(script), "--seconds", "2",
                   "--events", str(ev)])
    err = capsys.readouterr().err
    assert code == 2 and "s.txt:1" in err and "FIRE" in err and len(err.splitlines()) == 1
    assert not ev.exists()


def test_run_refuses_zero_seconds(capsys):
    code, _ = run(["run", "--firmware", "demo", "--seconds", "0"])
    assert code == 2 and "--seconds" in capsys.readouterr().err


def test_run_refuses_a_sigrok_name_without_sr(tmp_path, capsys):
    code, _ = run(["run", "--firmware", "demo", "--seconds", "1", "--sr", str(tmp_path / "c.vcd")])
    assert code == 2 and "c.vcd" in capsys.readouterr().err
    assert not (tmp_path / "c.vcd").exists()


def test_demo_prints_the_timeline_and_writes_its_three_files(tmp_path):
    code, text = run(["demo", "--out", str(tmp_path)])
    assert code == 0
    assert "display 'L1'" in text and "lamp upper on" in text and "display 'P2'" in text
    for name in ("events.jsonl", "capture.sr", "demo.wav", "script.txt"):
        assert (tmp_path / name).stat().st_size > 0


def test_play_without_a_terminal_says_so(capsys):
    code, _ = run(["play", "--firmware", "demo"])
    assert code == 2 and "terminal" in capsys.readouterr().err


def test_run_refuses_a_folder_as_the_events_file(tmp_path, capsys):
    code, _ = run(["run", "--firmware", "demo", "--seconds", "1", "--events", str(tmp_path)])
    assert code == 2
    assert capsys.readouterr().err == f"towerlab: {tmp_path}: is a folder (expected a file name)\n"


def test_run_refuses_one_file_for_two_outputs(tmp_path, capsys):
    same = str(tmp_path / "out")
    code, _ = run(["run", "--firmware", "demo", "--seconds", "1", "--events", same,
                   "--wav", same])
    assert code == 2 and "given to both --events and --wav" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("clock", ["0", "nan", "1e300", "0.5"])
def test_run_refuses_a_clock_out_of_range(clock, capsys):
    code, _ = run(["run", "--firmware", "demo", "--seconds", "1", "--clock", clock])
    assert code == 2 and "out of range 10000-10000000 Hz" in capsys.readouterr().err


def test_run_names_an_output_pla_file_of_the_wrong_shape(tmp_path, capsys):
    from emulator.decode import standard_micro_pla
    from emulator.pla import pla_text

    pla = tmp_path / "micro.pla"
    pla.write_text(pla_text(standard_micro_pla()))
    code, _ = run(["run", "--firmware", "demo", "--seconds", "1", "--opla", str(pla)])
    assert code == 2
    assert capsys.readouterr().err.startswith(f"towerlab: {pla}: has 8 inputs x 16 outputs")


@pytest.fixture
def bare_set(tmp_path):
    from rig.towers.emulated import demo_program

    path = tmp_path / "mbdtower.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("mp7332", bytes(demo_program().rom))
    return path


def test_run_says_which_romset_it_loaded(bare_set, capsys):
    code, _ = run(["run", "--romset", str(bare_set), "--seconds", "0.1", "--quiet"])
    assert code == 0
    assert capsys.readouterr().err.splitlines()[0] == \
        "towerlab: mbdtower.zip: mbdtower set, TMS1400"


def test_run_on_a_set_without_output_pla_says_it_uses_the_glyph_table(bare_set, capsys):
    code, _ = run(["run", "--romset", str(bare_set), "--seconds", "0.1", "--quiet"])
    err = capsys.readouterr().err
    assert code == 0 and "O pins = SL<<4 | A" not in err
    assert "towerlab: warning: no output PLA: using the demo firmware's glyph table" in err


def batch_scripts(tmp_path):
    for folder in ("d1", "d2"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "a.txt").write_text("0.1 YES/BUY 0.1\n")
    return [str(tmp_path / "d1" / "a.txt"), str(tmp_path / "d2" / "a.txt")]


def test_batch_refuses_two_scripts_that_would_write_the_same_file(tmp_path, capsys):
    out = tmp_path / "out"
    code, _ = run(["run", "--firmware", "demo", "--seconds", "0.2", "--script",
                   *batch_scripts(tmp_path), "--out", str(out)])
    assert code == 2 and "would write" in capsys.readouterr().err
    assert not out.exists()


def test_batch_refuses_a_file_as_the_out_folder(tmp_path, capsys):
    (tmp_path / "f").write_text("x")
    code, _ = run(["run", "--firmware", "demo", "--seconds", "0.2", "--script",
                   str(CAPTURES / "tower_test" / "script.txt"),
                   str(CAPTURES / "level_select" / "script.txt"), "--out", str(tmp_path / "f")])
    assert code == 2
    assert capsys.readouterr().err.startswith(f"towerlab: {tmp_path / 'f'}: not a folder")


def test_batch_with_a_missing_script_makes_no_folder(tmp_path, capsys):
    out = tmp_path / "out"
    code, _ = run(["run", "--firmware", "demo", "--seconds", "0.2", "--script",
                   str(CAPTURES / "tower_test" / "script.txt"), str(tmp_path / "none.txt"),
                   "--out", str(out)])
    assert code == 2 and not out.exists()


@pytest.mark.parametrize("folder, message", [
    ("", "--out: folder name is empty"),
    ("FILE", "not a folder"),
])
def test_demo_refuses_an_out_that_is_not_a_folder(tmp_path, capsys, folder, message):
    (tmp_path / "file").write_text("x")
    folder = str(tmp_path / "file") if folder == "FILE" else folder
    code, _ = run(["demo", "--out", folder])
    assert code == 2 and message in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_a_run_paced_for_its_progress_bar_gives_the_same_events():
    from captures.script import read_script
    from captures.tower import run_script
    from rig.towers.emulated import EmulatorTower
    from towerlab.cmd_emulator import _Paced

    script = read_script(str(CAPTURES / "tower_test" / "script.txt"))
    ticks = []
    paced = run_script(_Paced(EmulatorTower(), ticks.append, step_s=0.7), script, until=8)
    assert paced == run_script(EmulatorTower(), script, until=8) and len(ticks) > 10


def test_run_puts_a_tms1100_set_on_the_labyrinth_board_without_board(tmp_path):
    from emulator.asm import assemble
    from emulator.chips import TMS1100
    from emulator.decode import ident_output_pla
    from emulator.pla import pla_text

    path = tmp_path / "mdndclab.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("m34012", assemble("TCY 10\nloop: SETR\nRSTR\nBR loop\n", TMS1100).rom)
        zf.writestr("tms1100_mdndclab_output.pla",
                    pla_text(ident_output_pla(TMS1100), term_count=20))
    code, text = run(["run", "--romset", str(path), "--seconds", "0.1", "--quiet"])
    assert code == 0 and "on the labyrinth board" in text


def test_run_refuses_to_write_its_events_over_its_script(tmp_path, capsys):
    script = tmp_path / "s.txt"
    script.write_text("1.0 YES/BUY 0.2\n")
    code, _ = run(["run", "--firmware", "demo", "--seconds", "1", "--script", str(script),
                   "--events", str(script)])
    assert code == 2 and "is also an input of this command" in capsys.readouterr().err
    assert script.read_text() == "1.0 YES/BUY 0.2\n"


def test_run_notes_script_actions_after_the_end_of_the_run(capsys):
    code, _ = run(["run", "--firmware", "demo", "--seconds", "2", "--quiet", "--script",
                   str(CAPTURES / "tower_test" / "script.txt")])
    assert code == 0
    assert "has 2 action(s) after --seconds 2 (from 3.01667 s)" in capsys.readouterr().err
