"""Sessions on the virtual bench: the real drivers (ButtonBox over a pty to the firmware in
simavr, Fx2lafw over pyusb to the simulated FX2) around a virtual tower; record, check,
import, faults."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from captures.formats import open_capture
from captures.script import parse_script
from captures.tower import run_script
from rig.errors import Interrupted, LinkLostError, RigError, TowerUnknownError, UsbError
from rig.towers.real import READY, UNKNOWN
from rig.check import check
from rig.record import CUT_SHORT, record
from rig.recording import load_recording
from rig.specs import TargetSpec, open_target

DATA = Path(__file__).resolve().parents[1] / "data" / "captures"
SHORT = "# run length: 3 s\n1.2 MOVE 0.2\n2.0 CLEAR 0.3\n"


@pytest.fixture
def short_script(tmp_path):
    path = tmp_path / "short.txt"
    path.write_text(SHORT)
    return str(path)


def _when(bench, t: float, action) -> None:
    """Run ``action`` once the session (the tower's power-on on the bench) has lasted ``t``
    seconds of bench time: in the bench's own thread, so it does not race the host."""
    bench.at_session(t, action)


def test_keys_reach_the_virtual_tower_at_their_script_times(avr_tools, has_fx2lafw_firmware):
    target = open_target(TargetSpec("sim", virtual="fake"))
    try:
        events = run_script(target.tower, parse_script(SHORT))
    finally:
        target.close()
    presses = [e["t"] for e in events if e["type"] == "button" and e["action"] == "press"]
    lamps = [e["t"] for e in events if e["type"] == "lamp" and e["on"]]
    assert presses == [1.2, 2.0]
    assert lamps == pytest.approx(presses, abs=0.0003)


def test_a_recording_holds_script_capture_and_events(avr_tools, has_fx2lafw_firmware,
                                                     short_script, tmp_path):
    rec = record(short_script, TargetSpec("sim", virtual="fake"), tmp_path / "rec")
    cap = open_capture(tmp_path / "rec" / "capture.tlc")
    assert rec.meta["target"] == "sim" and rec.meta["fault"] is None
    assert cap.info.channels[:2] == ["R4", "R5"] and cap.info.samplerate == 250_000
    assert [e["text"] for e in rec.events if e["type"] == "display"][:4] == ["--", "  ", "--",
                                                                            "08"]


def test_check_against_the_same_tower_says_equivalent(avr_tools, has_fx2lafw_firmware,
                                                       short_script, tmp_path):
    record(short_script, TargetSpec("sim", virtual="fake"), tmp_path / "rec")
    result = check(tmp_path / "rec", TargetSpec("fake"))
    assert result.equivalent and result.ratio == pytest.approx(1.0, abs=1e-3)


def test_check_names_the_first_difference(avr_tools, has_fx2lafw_firmware, short_script,
                                          tmp_path):
    record(short_script, TargetSpec("sim", virtual="fake"), tmp_path / "rec")
    events = (tmp_path / "rec" / "events.jsonl").read_text().splitlines()
    kept = [line for line in events if '"text": "08"' not in line]
    (tmp_path / "rec" / "events.jsonl").write_text("\n".join(kept) + "\n")
    result = check(tmp_path / "rec", TargetSpec("fake"))
    assert not result.equivalent
    assert result.difference.kind == "only in B" and result.difference.b["text"] == "08"


def test_a_box_unplugged_mid_session_leaves_a_readable_capture_with_the_gap(
        avr_tools, has_fx2lafw_firmware, short_script, tmp_path):
    out = tmp_path / "rec"
    with pytest.raises(LinkLostError, match="went away"):
        record(short_script, TargetSpec("sim", virtual="fake"), out,
               inject=lambda tg: _when(tg.bench, 1.7, tg.bench.unplug_box))
    rec = load_recording(out)
    cap = open_capture(out / "capture.tlc")
    gap = cap.gaps[-1]
    end = rec.meta["t0_sample"] + 3.0 * 250_000
    assert "rig fault" in gap.reason and gap.end == end
    assert 0 < gap.start < end and rec.meta["fault"]
    assert any(e["type"] == "gap" for e in rec.events)
    assert [e["t"] for e in rec.events if e["type"] == "button"] == [1.2, 1.4]


def test_an_analyser_unplugged_mid_session_leaves_a_readable_capture_with_the_gap(
        avr_tools, has_fx2lafw_firmware, short_script, tmp_path):
    out = tmp_path / "rec"
    with pytest.raises(UsbError, match="disappeared"):
        record(short_script, TargetSpec("sim", virtual="fake"), out,
               inject=lambda tg: _when(tg.bench, 1.7, tg.bench.usb_device.unplug))
    cap = open_capture(out / "capture.tlc")
    reasons = [g.reason for g in cap.gaps]
    assert "analyser unplugged" in reasons
    assert cap.info.total_samples == load_recording(out).meta["t0_sample"] + 3.0 * 250_000


def _stop_at(t: float, exc: BaseException):
    """A progress callback that raises ``exc`` once the session has lasted ``t`` seconds
    (session time, as the host drives it: no race with the wall clock)."""
    def progress(done: float, total: float) -> None:
        if done >= t:
            raise exc
    return progress


def test_ctrl_c_mid_session_keeps_the_recording_up_to_then_and_says_where(
        avr_tools, has_fx2lafw_firmware, short_script, tmp_path):
    out = tmp_path / "rec"
    with pytest.raises(Interrupted, match=r"^interrupted \(Ctrl-C\) at 1\.\d+ s: the "
                                          r"recording up to then is in .*rec \(its events end "
                                          r"in a gap\)$"):
        record(short_script, TargetSpec("sim", virtual="fake"), out,
               progress=_stop_at(1.3, KeyboardInterrupt()))
    rec = load_recording(out)
    cap = open_capture(out / "capture.tlc")
    assert rec.meta["fault"].startswith("interrupted (Ctrl-C)")
    # MOVE went down at 1.2 s; its release at 1.4 s was never sent (closing released it)
    assert [e["t"] for e in rec.events if e["type"] == "button"] == [1.2]
    assert rec.events[-1]["type"] == "gap" and not cap.warnings    # closed, not cut


def test_a_record_that_dies_mid_session_leaves_a_recording_that_says_it_was_cut_short(
        avr_tools, has_fx2lafw_firmware, short_script, tmp_path):
    out = tmp_path / "rec"
    with pytest.raises(RuntimeError, match="the host crashed"):
        record(short_script, TargetSpec("sim", virtual="fake"), out,
               progress=_stop_at(1.5, RuntimeError("the host crashed")))
    meta = json.loads((out / "recording.json").read_text())
    cap = open_capture(out / "capture.tlc")
    assert meta["fault"] == CUT_SHORT and (out / "script.txt").read_text() == SHORT
    assert cap.info.total_samples > 250_000 and "truncated" in cap.gaps[-1].reason
    with pytest.raises(RigError, match=r"holds no events.jsonl \(cut short: .*'towerlab rig "
                                       r"import .*capture.tlc --script .*script.txt"):
        load_recording(out)


def test_a_tower_that_stops_responding_is_unknown_until_power_cycled(avr_tools,
                                                                      has_fx2lafw_firmware):
    target = open_target(TargetSpec("sim", virtual="fake"))
    tower = target.tower
    try:
        _when(target.bench, 0.5, lambda: target.bench.tower.freeze())   # at 0.5 s bench time
        tower.advance(4.0)              # the rig waits for a stall of 2 s (stall_s)
        tower.events()
        assert tower.state == UNKNOWN
        with pytest.raises(TowerUnknownError, match="UNKNOWN .*recover"):
            tower.press("MOVE")
        tower.recover()
        assert tower.state == READY
        tower.press("MOVE")
        tower.advance(0.3)
        tower.release("MOVE")
        events = tower.events()
    finally:
        target.close()
    after = [e for e in events if e["type"] == "display" and e["t"] > tower.now - 0.4]
    (gap,) = [e for e in events if e["type"] == "gap"]
    assert any(e["text"] == "08" for e in after)
    assert gap["t"] == pytest.approx(0.5, abs=0.1) and gap["dur_s"] > 1.9


def test_a_shared_capture_script_records_on_the_bench_and_checks_equivalent_on_the_emulator(
        avr_tools, has_fx2lafw_firmware, tmp_path):
    from towerlab.cli import main
    import io
    out = io.StringIO()
    rec_dir = str(tmp_path / "tower_test")
    assert main(["rig", "record", "--script", str(DATA / "tower_test" / "script.txt"),
                 "--target", "sim", "--out", rec_dir], out) == 0
    assert main(["rig", "check", rec_dir, "--target", "emu"], out) == 0
    assert "equivalent" in out.getvalue().splitlines()[-1]


SYNC_MAP = {**{f"D{i}": f"R{i + 4}" for i in range(7)},
            **{f"D{i + 7}": f"O{i}" for i in range(8)}, "D15": "SYNC"}
LONG = "# run length: 6 s\n1.0 MOVE 0.2\n5.0 CLEAR 0.3\n"


def _key_to_lamp_delays(spec):
    target = open_target(spec)
    try:
        events = run_script(target.tower, parse_script(LONG))
    finally:
        target.close()
    presses = [e["t"] for e in events if e["type"] == "button" and e["action"] == "press"]
    lamps = [e["t"] for e in events if e["type"] == "lamp" and e["on"]]
    return [lamp - press for press, lamp in zip(presses, lamps)]


def test_sync_pulses_keep_key_times_on_the_analyser_clock_with_a_fast_box(
        avr_tools, has_fx2lafw_firmware):
    delays = _key_to_lamp_delays(TargetSpec("sim", virtual="fake", channel_map=SYNC_MAP,
                                            box_clock_error=0.003))
    assert delays == pytest.approx([0.0, 0.0], abs=0.0003)


def test_without_sync_a_fast_box_clock_shows_as_drift(avr_tools, has_fx2lafw_firmware):
    delays = _key_to_lamp_delays(TargetSpec("sim", virtual="fake", box_clock_error=0.003))
    assert delays[1] - delays[0] == pytest.approx(-0.003 * 4.0, abs=0.001)


def test_an_eight_channel_probe_sees_lamps_and_tones_but_no_digits(avr_tools,
                                                                     has_fx2lafw_firmware):
    from rig.bench import PROBE_8
    spec = TargetSpec("sim", virtual="fake", channel_map={f"D{i}": n for i, n in
                                                          enumerate(PROBE_8)})
    target = open_target(spec)
    try:
        events = run_script(target.tower, parse_script(SHORT))
        observed = target.observed_types()
    finally:
        target.close()
    kinds = {e["type"] for e in events}
    assert {"lamp", "tone", "button"} <= kinds and "display" not in kinds
    assert "display" not in observed and "lamp" in observed


def test_an_eight_channel_probe_without_o_pins_is_aligned_by_the_box_clock(
        avr_tools, has_fx2lafw_firmware):
    # R pins only: the first R activity is no power-on mark; the fake tower lights its
    # lower lamp the moment MOVE closes; the capture's times are late by at most the time
    # between the box clock reads around the analyser's start (a loaded host widens it)
    from rig.bench import PROBE_8
    spec = TargetSpec("sim", virtual="fake", channel_map={f"D{i}": n for i, n in
                                                          enumerate(PROBE_8)})
    target = open_target(spec)
    try:
        events = run_script(target.tower, parse_script(SHORT))
        uncertainty = target.tower.t0_uncertainty_s
    finally:
        target.close()
    press = next(e for e in events if e["type"] == "button" and e["button"] == "MOVE")
    lit = next(e for e in events if e["type"] == "lamp" and e["on"])
    assert uncertainty > 0
    assert 0 <= lit["t"] - press["t"] <= uncertainty


def test_a_recording_that_ends_in_a_fault_is_checked_up_to_the_fault(
        avr_tools, has_fx2lafw_firmware, short_script, tmp_path):
    out = tmp_path / "rec"
    with pytest.raises(LinkLostError):
        record(short_script, TargetSpec("sim", virtual="fake"), out,
               inject=lambda tg: _when(tg.bench, 1.7, tg.bench.unplug_box))
    result = check(out, TargetSpec("fake"))
    assert result.equivalent and result.fault
    assert 1.4 < result.compared_until < 1.7
