"""towerlab run / demo / play: small commands over the library, errors as one line, exit 2."""
from __future__ import annotations

import io
import wave

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
