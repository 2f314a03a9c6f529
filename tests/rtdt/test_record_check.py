"""towerlab rtdt record / check / scan / status / one-shot commands on the virtual tower."""
from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from captures.events import read_events
from towerlab.cli import main

ROOT = Path(__file__).resolve().parents[2]

SESSION = """# run length: 24 s
0 calibrate
8 rotate top south
9 light ledge ne breathe
10 sound 0x5e
12 skull-drop
13 sequence sealReveal
17 reset-skulls
20 drop-link
"""


def _run(argv):
    out = io.StringIO()
    code = main(argv, out)
    return code, out.getvalue()


@pytest.fixture
def recording(tmp_path):
    script = tmp_path / "session.txt"
    script.write_text(SESSION)
    rec = tmp_path / "rec"
    code, text = _run(["rtdt", "record", "--target", "sim", "--script", str(script),
                       "--out", str(rec)])
    assert code == 0, text
    return rec


def test_a_recording_holds_the_script_the_bytes_and_the_events(recording):
    assert sorted(p.name for p in recording.iterdir()) == [
        "events.jsonl", "notifications.jsonl", "rtdt.json", "script.txt", "sent.jsonl"]
    meta = json.loads((recording / "rtdt.json").read_text())
    assert meta["target"] == "sim" and meta["params"]["sim_calibration_s"] == 6.0
    sent = [json.loads(x) for x in (recording / "sent.jsonl").read_text().splitlines()]
    assert sent[0]["data"] == "04" and sent[0]["command"] == "calibrate"
    kinds = {e["type"] for e in read_events(str(recording / "events.jsonl"))}
    assert {"calibration", "drum", "rotation", "led", "sound", "sequence", "skull", "link",
            "battery"} <= kinds


def test_a_recorded_skull_drop_checks_equivalent_on_the_virtual_tower(recording):
    events = read_events(str(recording / "events.jsonl"))
    assert [(e["count"], e["drop"]) for e in events if e["type"] == "skull"] == [(1, 1), (0, 0)]
    code, text = _run(["rtdt", "check", str(recording), "--target", "sim"])
    assert code == 0 and text.startswith("equivalent: ") and "battery not compared" in text


def test_a_replay_without_the_skull_drop_shows_the_first_difference(recording):
    script = recording / "script.txt"
    script.write_text(script.read_text().replace("12 skull-drop\n", ""))
    code, text = _run(["rtdt", "check", str(recording), "--target", "sim"])
    assert code == 1
    first, rec, rep = text.splitlines()[:3]
    assert first.startswith("first difference at event ") and "skull" in first
    assert "skull count=1 drop=1" in rec


# The rotation tolerance: arrival time and duration each within max(0.5 s, 20 % of the
# rotation). The recording's top-drum turn (N -> S) takes 0.4 + 2 * 0.9 = 2.2 s.
def test_a_rotation_slower_within_the_tolerance_is_equivalent(recording):
    code, text = _run(["rtdt", "check", str(recording), "--target", "sim",
                       "--set", "sim_rotation_per_side_s=1.1"])           # 2.6 s: +0.4 s
    assert code == 0, text


def test_a_rotation_slower_beyond_the_tolerance_is_a_difference(recording):
    code, text = _run(["rtdt", "check", str(recording), "--target", "sim",
                       "--set", "sim_rotation_per_side_s=1.2"])           # 2.8 s: +0.6 s
    assert code == 1 and "rotation took 2200 ms against 2800 ms (tolerance +-0.56 s)" in text


def test_a_wider_stated_rotation_tolerance_accepts_the_slower_drum(recording):
    code, text = _run(["rtdt", "check", str(recording), "--target", "sim",
                       "--set", "sim_rotation_per_side_s=1.2", "--rotation-tolerance", "1"])
    assert code == 0 and "rotations within +-max(1 s, 20 %)" in text


def test_a_session_that_breaks_off_is_kept_up_to_the_fault(tmp_path):
    script = tmp_path / "s.txt"
    script.write_text("0 calibrate\n8 drop-link\n9 rotate top east\n")
    code, err = _cli(["rtdt", "record", "--target", "sim", "--script", str(script), "--out",
                      str(tmp_path / "rec")])
    assert code == 2 and f"{script}:3: rotate top east: the top drum is not calibrated" in err
    meta = json.loads((tmp_path / "rec" / "rtdt.json").read_text())
    assert meta["fault"].startswith(f"{script}:3: ")


def _cli(argv):
    proc = subprocess.run([sys.executable, "-m", "towerlab"] + argv, capture_output=True,
                          text=True, cwd=ROOT, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    return proc.returncode, proc.stderr.strip()


@pytest.mark.parametrize("argv, words", [
    (["rtdt", "check", "/nonexistent", "--target", "sim"], "/nonexistent: not a folder"),
    (["rtdt", "scan", "--target", "wifi"], "unknown RTDT target 'wifi'"),
    (["rtdt", "status", "--set", "colour=red"], "--set: unknown RTDT parameter 'colour'"),
    (["rtdt", "sound", "200"], "towerlab: rtdt sound 200: sound 200 is out of range (expected "
                               "1-113)"),
    (["rtdt", "rotate", "top"], "towerlab: rtdt rotate top: rotate takes 'DRUM SIDE'"),
    (["rtdt", "sound", "3", "--wait", "-1"], "--wait: '-1' is not a time in seconds >= 0"),
    (["rtdt", "sound", "3", "--wait", "nan"], "--wait: 'nan' is not a time in seconds"),
    (["rtdt", "sound", "3", "--wait", "inf"], "--wait: 'inf' is not a time in seconds"),
    (["rtdt", "scan", "--timeout", "0"], "--timeout: '0' is not a positive number"),
    (["rtdt", "scan", "--timeout", "-1"], "--timeout: '-1' is not a positive number"),
])
def test_bad_input_is_one_line_and_exit_status_2(argv, words):
    code, err = _cli(argv)
    assert code == 2 and words in err and len(err.splitlines()) == 1, err


def test_a_script_error_names_the_file_and_line(tmp_path):
    script = tmp_path / "s.txt"
    script.write_text("0 calibrate\n3 rotate upper north\n")
    code, err = _cli(["rtdt", "record", "--target", "sim", "--script", str(script), "--out",
                      str(tmp_path / "rec")])
    assert code == 2 and err == f"towerlab: {script}:2: unknown drum 'upper' (expected top, " \
                                f"middle, bottom)"
    assert not (tmp_path / "rec").exists()


def test_a_tower_that_cannot_be_found_leaves_no_recording_folder(tmp_path):
    script = tmp_path / "s.txt"
    script.write_text("0 calibrate\n")
    # scanning by service finds no virtual tower that advertises its name only
    code, err = _cli(["rtdt", "record", "--target", "sim", "--set", "scan_by_service=true",
                      "--set", "scan_timeout_s=2", "--script", str(script),
                      "--out", str(tmp_path / "rec")])
    assert code == 2 and "no Bluetooth LE device named 'ReturnToDarkTower' heard in 2 s" in err
    assert not (tmp_path / "rec").exists()


def test_scan_lists_the_virtual_tower():
    code, text = _run(["rtdt", "scan", "--target", "sim", "--timeout", "1"])
    assert code == 0 and text == "DA:4C:10:00:00:01  ReturnToDarkTower  -60 dBm\n"


def test_status_shows_the_device_information_and_the_battery():
    code, text = _run(["rtdt", "status", "--target", "sim"])
    assert code == 0
    assert "manufacturer Restoration Games LLC" in text and "battery: 45" in text


def test_a_one_shot_rotate_calibrates_first_and_prints_the_events():
    code, text = _run(["rtdt", "rotate", "middle", "west", "--wait", "5"])
    assert code == 0
    events = [json.loads(x) for x in text.splitlines()]
    assert [e["type"] for e in events][:1] == ["calibration"]
    assert {"drum": "middle", "position": "west"}.items() <= events[-2].items()
    assert events[-1]["type"] == "rotation"


def test_parameters_come_from_a_file_for_every_command(tmp_path):
    f = tmp_path / "tower.toml"
    f.write_text('device_name = "RTDT-2"\n')
    code, text = _run(["rtdt", "scan", "--target", "sim", "--timeout", "1", "--params", str(f)])
    assert code == 0 and "RTDT-2" in text


# ---- a recording as the session goes: Ctrl-C, a kill, a flood, a long session --------------
# Each test opens the virtual tower as `record` does and schedules what happens on the tower's
# own simulated clock (loop.call_at), so nothing races the wall clock.

def _opening_with(monkeypatch, at_s, action):
    """Make rig.rtdt.session open the virtual tower and call ``action(tower)`` at ``at_s``
    seconds of session time; return the list that receives the opened tower."""
    from rig.rtdt import session
    opened = []
    real = session.open_rtdt

    def opening(target, params, prompt=None):
        tower = real(target, params)
        opened.append(tower)
        tower.loop.call_at(tower.client._t0 + at_s, action, tower)
        return tower
    monkeypatch.setattr(session, "open_rtdt", opening)
    return opened


def _ctrl_c(tower):
    raise KeyboardInterrupt


def test_ctrl_c_during_a_recording_keeps_what_arrived_and_says_where(tmp_path, monkeypatch,
                                                                    capsys):
    script = tmp_path / "session.txt"
    script.write_text(SESSION)
    rec = tmp_path / "rec"
    _opening_with(monkeypatch, 13.5, _ctrl_c)          # while the sealReveal sequence runs
    code, _ = _run(["rtdt", "record", "--target", "sim", "--script", str(script),
                    "--out", str(rec)])
    err = capsys.readouterr().err.strip()
    assert code == 130
    assert err == f"towerlab: interrupted (Ctrl-C) at t=13.500 s: the recording up to then " \
                  f"is in {rec}"
    meta = json.loads((rec / "rtdt.json").read_text())
    assert meta["fault"] == "interrupted (Ctrl-C) at t=13.500 s" and meta["end_s"] == 13.5
    events = read_events(str(rec / "events.jsonl"))
    assert [e["count"] for e in events if e["type"] == "skull"] == [1]
    sent = [json.loads(x) for x in (rec / "sent.jsonl").read_text().splitlines()]
    assert sent[-1]["command"] == "sequence 14"
    assert sent[-1]["result"] == "written; no reply before the session ended"
    monkeypatch.undo()
    code, text = _run(["rtdt", "check", str(rec), "--target", "sim"])
    assert code == 0 and text.startswith("equivalent: ")


def test_a_recording_grows_a_line_per_row_while_the_session_runs(tmp_path, monkeypatch):
    script = tmp_path / "session.txt"
    script.write_text(SESSION)
    seen = {}

    def look(tower):
        for name in ("events", "notifications", "sent"):
            seen[name] = (tmp_path / "rec" / f"{name}.jsonl").read_text().splitlines()
        seen["rtdt"] = json.loads((tmp_path / "rec" / "rtdt.json").read_text())
        seen["counts"] = dict(tower.client.counts)
    _opening_with(monkeypatch, 12.5, look)               # after the skull drop at 12 s
    code, text = _run(["rtdt", "record", "--target", "sim", "--script", str(script),
                       "--out", str(tmp_path / "rec")])
    assert code == 0, text
    assert '"type": "skull", "count": 1, "drop": 1' in seen["events"][-1]
    assert [len(seen[k]) for k in ("sent", "notifications", "events")] == \
        [seen["counts"][k] for k in ("sent", "notifications", "events")]
    assert seen["rtdt"]["fault"].startswith("cut short: ")


def test_a_recording_cut_short_is_readable_and_checks_up_to_where_it_stopped(tmp_path,
                                                                            monkeypatch):
    script = tmp_path / "session.txt"
    script.write_text(SESSION)

    def crash(tower):
        raise SystemExit("killed")                       # nothing after this runs
    _opening_with(monkeypatch, 12.5, crash)
    with pytest.raises(SystemExit):
        _run(["rtdt", "record", "--target", "sim", "--script", str(script),
              "--out", str(tmp_path / "rec")])
    assert json.loads((tmp_path / "rec" / "rtdt.json").read_text())["fault"].startswith(
        "cut short: ")
    monkeypatch.undo()
    code, text = _run(["rtdt", "check", str(tmp_path / "rec"), "--target", "sim"])
    assert code == 0 and text.startswith("equivalent: "), text


def test_a_flood_of_notifications_is_recorded_whole_and_not_kept_in_memory(tmp_path,
                                                                          monkeypatch):
    script = tmp_path / "long.txt"
    script.write_text("# run length: 600 s\n0 calibrate\n")

    def flood(tower):
        for i in range(2000):                            # all at one instant
            tower.radio.notify(tower.client.address, bytes([3, i & 0xFF]))
    opened = _opening_with(monkeypatch, 100.0, flood)
    code, text = _run(["rtdt", "record", "--target", "sim", "--script", str(script),
                       "--out", str(tmp_path / "rec")])
    assert code == 0, text
    client = opened[0].client
    lines = (tmp_path / "rec" / "notifications.jsonl").read_text().splitlines()
    assert len(lines) == client.counts["notifications"] > 2000 + 600 / 0.2
    assert sum('"data": "03 ' in x for x in lines) == 2000
    assert client.notifications == []                    # memory stays flat
    assert f"and {len(lines)} notifications from sim" in text
