"""Bad input to towerlab decode / plot / wav / diff / clock: one line naming the file or value,
exit status 2, nothing written."""
from __future__ import annotations

import io
import json

import pytest

from analysis.base import AnalysisError
from analysis.sound import write_wav
from captures.formats import write_capture
from captures.model import MemoryCapture
from tests.analysis.capload import CAPTURES
from tests.analysis.synth import capture
from towerlab.cli import main

TT = CAPTURES / "tower_test"


def run(*argv):
    out = io.StringIO()
    return main([str(a) for a in argv], out), out.getvalue()


def _probe_capture(tmp_path, name="probes.sr"):
    """A capture with an analyser's own channel names (D0-D3), as sigrok-cli -d demo makes."""
    cap = MemoryCapture.from_edges(["D0", "D1", "D2", "D3"], 100_000.0,
                                   [(0, "D0", 0), (100, "D0", 1), (300, "D0", 0)], 1000)
    write_capture(cap, tmp_path / name)
    return tmp_path / name


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


def test_decode_of_a_capture_no_decoder_can_read_is_an_error_that_writes_nothing(tmp_path,
                                                                                 capsys):
    dest = tmp_path / "ev.jsonl"
    status, _ = run("decode", _probe_capture(tmp_path), "-o", dest)
    err = _one_line_error(capsys)
    assert status == 2 and "probes.sr: no decoder can run on its channels" in err
    assert "--channel-map" in err and not dest.exists()


def test_decode_output_must_be_an_events_jsonl_file(tmp_path, capsys):
    status, _ = run("decode", TT / "capture.sr", "-o", tmp_path / "ev.wav")
    assert status == 2 and "ev.wav: events output must end in .jsonl" in _one_line_error(capsys)
    assert not (tmp_path / "ev.wav").exists()


def test_decode_into_a_folder_names_the_folder(tmp_path, capsys):
    folder = tmp_path / "out.jsonl"
    folder.mkdir()
    status, _ = run("decode", TT / "capture.sr", "-o", folder)
    assert status == 2 and "out.jsonl: is a folder" in _one_line_error(capsys)
    assert list(folder.iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == [
        "out.jsonl"]


def test_decode_prints_the_readers_warnings(tmp_path):
    whole = tmp_path / "whole.vcd"
    write_capture(capture([(0, "R9", 0), (500, "R9", 1), (3000, "R9", 0)], 5000), whole)
    text = whole.read_text()
    cut = tmp_path / "cut.vcd"
    cut.write_text(text[:text.index("#3000")])
    status, out = run("decode", cut, "-o", tmp_path / "ev.jsonl", "--only", "motor")
    assert status == 0 and "warning: " in out and "truncated" in out


def test_a_channel_map_to_an_unknown_signal_is_an_error_with_a_hint(tmp_path, capsys):
    cmap = tmp_path / "probes.map"
    cmap.write_text("D0 = r10\n")
    status, _ = run("decode", _probe_capture(tmp_path), "-o", tmp_path / "ev.jsonl",
                    "--channel-map", cmap)
    err = _one_line_error(capsys)
    assert status == 2 and "probes.map: D0 = r10: unknown signal 'r10'" in err
    assert "did you mean 'R10'?" in err


def test_a_missing_channel_error_names_the_capture(tmp_path, capsys):
    status, _ = run("wav", _probe_capture(tmp_path), "-o", tmp_path / "s.wav")
    err = _one_line_error(capsys)
    assert status == 2 and "probes.sr: sound decoder needs channel 'R10'" in err
    assert not (tmp_path / "s.wav").exists()


def test_clock_without_usable_tones_names_the_file(tmp_path, capsys):
    empty = tmp_path / "quiet.jsonl"
    empty.write_text("")
    status, _ = run("clock", empty)
    assert status == 2 and "quiet.jsonl: no tone matches" in _one_line_error(capsys)


def test_clock_against_a_reference_it_shares_no_events_with_says_so(tmp_path, capsys):
    empty = tmp_path / "other.jsonl"
    empty.write_text("")
    status, text = run("clock", TT / "events.jsonl", "--reference", empty)
    err = _one_line_error(capsys)
    assert status == 2 and "events.jsonl against " in err and "other.jsonl: 0 event(s) pair" in err
    assert "timeline" not in text


def test_clock_against_another_session_refuses_the_timeline(tmp_path, capsys):
    # the demo firmware's session against the genuine tower's level selection: a fit at a
    # ratio of 0.62 (tests/analysis/test_cli.py), no tower's
    assert run("demo", "--out", tmp_path)[0] == 0
    status, _ = run("clock", tmp_path / "events.jsonl", "--reference",
                    CAPTURES / "level_select" / "events.jsonl")
    assert status == 2 and "not the same session" in _one_line_error(capsys)


@pytest.mark.parametrize("argv", [
    ("wav", TT / "capture.sr", "-o", "x.wav", "--rate", "0"),
    ("wav", TT / "capture.sr", "-o", "x.wav", "--rate", "-5"),
    ("wav", TT / "capture.sr", "-o", "x.wav", "--gain", "inf"),
    ("diff", TT / "events.jsonl", TT / "events.jsonl", "--context", "-1"),
    ("diff", TT / "events.jsonl", TT / "events.jsonl", "--time-tol", "inf"),
])
def test_bad_numbers_are_refused_before_any_work(argv, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        run(*argv)
    assert exc.value.code == 2 and argv[-1] in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_the_wav_writer_checks_the_rate_before_writing():
    sink = io.BytesIO()
    with pytest.raises(AnalysisError, match="audio rate 0 Hz must be 1000-192000"):
        write_wav(capture([], 1000), sink, rate=0)
    assert sink.getvalue() == b""


def test_the_wav_writer_refuses_an_infinite_gain():
    with pytest.raises(AnalysisError, match="gain inf must be a positive number"):
        write_wav(capture([], 1000), io.BytesIO(), gain=float("inf"))


def test_a_time_difference_shows_where_b_lands_on_a_s_clock(tmp_path):
    events = [json.loads(x) for x in (TT / "events.jsonl").read_text().splitlines()]
    lamp = next(e for e in events if e["type"] == "lamp")
    lamp["t"] = round(lamp["t"] + 0.005, 6)        # 5 ms late
    late = tmp_path / "late.jsonl"
    late.write_text("".join(json.dumps(e) + "\n" for e in events))
    status, text = run("diff", TT / "events.jsonl", late, "--same-clock")
    assert status == 1 and text.startswith(f"first difference at t={lamp['t'] - 0.005:.6f} s")
    assert "off by +5.0 ms (tolerance 1 ms)" in text


def test_a_time_difference_is_reported_at_the_time_of_a_s_event():
    # level_select starts with the tower test, with the key pressed 0.4 s later: the fitted
    # clock maps B's first display before A's start; the report stays on A's clock.
    status, text = run("diff", TT / "events.jsonl", CAPTURES / "level_select" / "events.jsonl")
    assert status == 1 and text.startswith("first difference at t=0.000000 s")


def test_plotting_onto_a_folder_names_it_and_leaves_it_alone(tmp_path, capsys):
    folder = tmp_path / "t.png"
    folder.mkdir()
    status, _ = run("plot", "timing", TT / "capture.sr", "-o", folder)
    assert status == 2 and "t.png: is a folder" in _one_line_error(capsys)
    assert [p.name for p in tmp_path.iterdir()] == ["t.png"] and not any(folder.iterdir())
