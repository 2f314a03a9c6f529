"""towerlab decode / plot / wav / diff / clock, called through the CLI entry point."""
from __future__ import annotations

import io
import json
import wave

from captures.events import read_events
from tests.analysis.capload import CAPTURES
from towerlab.cli import main

TT = CAPTURES / "tower_test"


def run(*argv):
    out = io.StringIO()
    return main([str(a) for a in argv], out), out.getvalue()


def test_decode_writes_the_events_file_and_summarises_it(tmp_path):
    dest = tmp_path / "ev.jsonl"
    status, text = run("decode", TT / "capture.sr", "-o", dest)
    assert status == 0 and "35 display" in text and "4 tone" in text
    events = read_events(str(dest))
    assert [e["text"] for e in events if e["type"] == "display"][-1] == "  "


def test_decode_summary_lists_steady_and_flashing_display_spans(tmp_path):
    status, text = run("decode", TT / "edges.jsonl.gz", "-o", tmp_path / "e.jsonl", "--summary")
    assert status == 0
    assert "0.267  display '--' flashing x6, period 0.55 s, until 3.067" in text
    assert "11.317  display 'L1' flashing x8, period 0.54 s, until 15.417" in text


def test_decode_with_a_channel_map_renames_probes(tmp_path):
    cmap = tmp_path / "map.txt"
    cmap.write_text("R9 = R9\n")
    dest = tmp_path / "ev.jsonl"
    status, text = run("decode", TT / "edges.jsonl.gz", "-o", dest, "--channel-map", cmap)
    assert status == 0 and "2 motor" in text and "skipped display" in text


def test_decode_of_a_missing_file_is_one_line_exit_2_and_writes_nothing(tmp_path, capsys):
    dest = tmp_path / "ev.jsonl"
    status, _ = run("decode", tmp_path / "nope.sr", "-o", dest)
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "nope.sr" in err
    assert not dest.exists()


def test_diff_of_a_capture_and_its_events_is_equivalent():
    status, text = run("diff", TT / "events.jsonl", TT / "capture.sr")
    assert status == 0 and text.startswith("equivalent within tolerance (clock ratio 1.0000")


def test_diff_reports_the_first_difference_and_exits_1(tmp_path):
    events = read_events(str(TT / "events.jsonl"))
    for e in events:
        if e["type"] == "display" and e["text"] == "L1":
            e["text"] = "L2"
    other = tmp_path / "b.jsonl"
    other.write_text("".join(json.dumps(e) + "\n" for e in events))
    status, text = run("diff", TT / "events.jsonl", other, "--same-clock")
    assert status == 1
    assert text.startswith("first difference at t=11.316667 s")
    assert "text=L1" in text and "text=L2" in text


def test_diff_rejects_an_unknown_event_type(capsys):
    status, _ = run("diff", TT / "events.jsonl", TT / "events.jsonl", "--types", "smell")
    assert status == 2 and "unknown event type 'smell'" in capsys.readouterr().err


def test_clock_reports_the_oscillator_of_the_reference_capture():
    status, text = run("clock", TT / "capture.sr")
    assert status == 0 and text.startswith("clock 42")
    khz = float(text.split()[1])
    assert abs(khz - 425.0) < 0.5


def test_wav_writes_a_playable_file(tmp_path):
    dest = tmp_path / "t.wav"
    status, text = run("wav", TT / "edges.jsonl.gz", "-o", dest, "--rate", "22050")
    assert status == 0
    with wave.open(str(dest)) as w:
        assert w.getframerate() == 22050 and abs(w.getnframes() / 22050 - 15.51) < 0.01


def test_plot_timing_and_sound_write_images(tmp_path):
    a, b = tmp_path / "t.svg", tmp_path / "s.png"
    assert run("plot", "timing", TT / "edges.jsonl.gz", "--from", "6.5", "--to", "6.6",
               "-o", a)[0] == 0
    assert run("plot", "sound", TT / "edges.jsonl.gz", "-o", b)[0] == 0
    assert a.stat().st_size > 0 and b.stat().st_size > 0


def test_plot_to_an_unknown_image_type_is_an_error(tmp_path, capsys):
    status, _ = run("plot", "timing", TT / "edges.jsonl.gz", "-o", tmp_path / "t.gif")
    assert status == 2 and "must end in .png, .svg or .pdf" in capsys.readouterr().err


def test_clock_of_a_slow_tower_from_tones_and_from_the_timeline(tmp_path):
    events = read_events(str(TT / "events.jsonl"))
    for e in events:
        e["t"] = round(e["t"] * 1.05, 6)
        if e["type"] == "tone":
            e["freq_hz"] = e["freq_hz"] / 1.05
    slow = tmp_path / "slow.jsonl"
    slow.write_text("".join(json.dumps(e) + "\n" for e in events))
    status, text = run("clock", slow, "--reference", TT / "events.jsonl")
    tones, timeline = text.splitlines()
    assert status == 0
    assert abs(float(tones.split()[1]) - 425 / 1.05) < 0.2
    assert abs(float(timeline.split("clock ")[1].split()[0]) - 425 / 1.05) < 0.2


def test_clock_reference_recovers_a_fast_towers_ratio_when_the_script_presses_keys(tmp_path):
    # A tower 3 % fast replaying the script: the key is pressed at the same wall time, and
    # everything the firmware times runs 3 % faster from the last press (or power-on) on.
    events = read_events(str(TT / "events.jsonl"))
    presses = [0.0] + [e["t"] for e in events if e["type"] == "button"]
    for e in events:
        if e["type"] != "button":
            start = max(p for p in presses if p <= e["t"])
            e["t"] = round(start + (e["t"] - start) / 1.03, 6)
        if e["type"] == "tone" and e["freq_hz"]:
            e["freq_hz"] = e["freq_hz"] * 1.03
    fast = tmp_path / "fast.jsonl"
    fast.write_text("".join(json.dumps(e) + "\n" for e in sorted(events, key=lambda e: e["t"])))
    status, text = run("clock", fast, "--reference", TT / "events.jsonl")
    tones, timeline = text.splitlines()
    assert status == 0
    assert abs(float(tones.split()[1]) - 425 * 1.03) < 0.2
    assert abs(float(timeline.split("clock ")[1].split()[0]) - 425 * 1.03) < 0.2


def _probe_copy(tmp_path, signals, name):
    from captures.formats import open_capture, write_capture
    cap = open_capture(TT / "capture.sr", {s: s for s in signals})
    write_capture(cap, tmp_path / name)
    return tmp_path / name


def test_diff_with_an_8_channel_capture_compares_what_both_can_show(tmp_path):
    small = _probe_copy(tmp_path, ["R4", "R5", "R6", "R7", "R8", "R9", "R10", "K8"], "p8.sr")
    status, text = run("diff", TT / "capture.sr", small)
    first, *rest = text.splitlines()
    assert status == 0 and first.startswith("equivalent within tolerance")
    assert f"not compared: display ({small} lacks its channels); --types overrides" in rest


def test_diff_of_captures_with_no_event_type_in_common_is_an_error(tmp_path, capsys):
    a = _probe_copy(tmp_path, ["R9"], "motor.sr")
    b = _probe_copy(tmp_path, ["R10", "R4"], "speaker.sr")
    status, _ = run("diff", a, b)
    assert status == 2 and "no event type both can show" in capsys.readouterr().err


def test_diff_refuses_an_implausible_clock_ratio_and_says_so(tmp_path):
    # `make demo`'s session on the demo firmware against the genuine tower's level selection:
    # a fit pairs unrelated events at a ratio of 0.62; no two towers' clocks differ that much
    assert run("demo", "--out", tmp_path)[0] == 0
    status, text = run("diff", tmp_path / "events.jsonl", CAPTURES / "level_select" /
                       "events.jsonl")
    assert status == 1
    assert "clock ratio not fitted: the fit gave 0.6" in text
    assert "(clock ratio 1.0000, offset +0.0000 s, one clock: the fit was refused" in text


def test_diff_says_the_clock_ratio_it_fitted():
    status, text = run("diff", TT / "events.jsonl", TT / "capture.sr")
    assert status == 0 and "\nclock ratio fitted: 1.0000" in text


def test_a_difference_in_time_shows_both_sides_at_different_times():
    from analysis.compare import compare_events, format_comparison

    a = [{"t": 1.0, "type": "lamp", "lamp": "upper", "on": 1},
         {"t": 2.0, "type": "lamp", "lamp": "upper", "on": 0}]
    b = [{"t": 1.0, "type": "lamp", "lamp": "upper", "on": 1},
         {"t": 2.5, "type": "lamp", "lamp": "upper", "on": 0}]
    lines = format_comparison(compare_events(a, b, ratio=1.0, offset=0.2)).splitlines()
    assert lines[1] != lines[2].replace("B:", "A:")          # never two equal lines
    assert lines[2] == "  B: 1.000000 (at 1.200000 on the other clock) lamp lamp=upper on=1"


def test_every_output_is_o_or_out_and_the_old_output_spelling_still_works(tmp_path, capsys):
    assert run("decode", TT / "capture.sr", "--output", tmp_path / "a.jsonl")[0] == 0
    assert run("decode", TT / "capture.sr", "--out", tmp_path / "b.jsonl")[0] == 0
    assert (tmp_path / "a.jsonl").read_text() == (tmp_path / "b.jsonl").read_text()
    import pytest

    for command in (["decode"], ["report"], ["rig", "record"], ["explore"]):
        with pytest.raises(SystemExit):
            run(*command, "--help")
        text = capsys.readouterr().out
        assert "-o " in text and "--out " in text and "--output" not in text


def test_diff_takes_the_old_tolerance_names_in_their_units():
    new = run("diff", TT / "events.jsonl", TT / "capture.sr", "--tolerance", "0.0001")
    old = run("diff", TT / "events.jsonl", TT / "capture.sr", "--time-tol", "0.0001")
    assert new == old and "lamp 0.1 ms" in new[1]
