"""Report pages of rig recordings and of the checks made on them (rig.report, towerlab report):
what was run comes from recording.json, a check puts the target's events beside the recording
with the comparison's first difference on both."""
from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from rig.report import recording_source, report_check, report_cleanroom
from rig.record import record
from rig.specs import TargetSpec
from towerlab.cli import main

CAPTURES = Path(__file__).resolve().parent.parent / "data" / "captures"
SCRIPT = "# run length: 6 s\n3.0 YES/BUY 0.2\n"


def run(*argv):
    out = io.StringIO()
    return main([str(a) for a in argv], out), out.getvalue()


@pytest.fixture(scope="module")
def demo_recording(tmp_path_factory):
    d = tmp_path_factory.mktemp("rec")
    script = d / "script_in.txt"
    script.write_text(SCRIPT)
    record(str(script), TargetSpec("emu"), d / "rec")
    return d / "rec"


def test_a_recording_says_its_target_firmware_and_rom(demo_recording):
    from rig.recording import target_rom_sha1
    src, tl = recording_source(demo_recording)
    assert src.info["target"] == "emu" and src.info["firmware"] == "demo"
    assert src.info["ROM SHA-1"] == target_rom_sha1(TargetSpec("emu"))
    assert tl.end_s == 6.0 and tl.capture is not None and tl.audio_offset_s == 0.0


def test_report_of_a_recording_writes_one_page(demo_recording, tmp_path):
    status, text = run("report", demo_recording, "-o", tmp_path / "r.html")
    page = (tmp_path / "r.html").read_text()
    assert status == 0 and "r.html: recording" in text
    assert page.count("<img") == 1 and "<audio" in page and "YES/BUY" in page


def test_a_check_that_agrees_is_reported_equivalent_with_both_timelines(demo_recording,
                                                                        tmp_path):
    result = report_check(demo_recording, TargetSpec("emu"), str(tmp_path / "c.html"))
    page = (tmp_path / "c.html").read_text()
    assert result.equivalent and result.target_events
    assert 'class="verdict ok"' in page and page.count("<img") == 2
    assert 'class="diff"' not in page


def test_a_check_that_differs_marks_the_first_difference_on_both_timelines(tmp_path):
    # The genuine tower_test capture against the open demo firmware (no genuine ROM here).
    status, text = run("report", CAPTURES / "tower_test", "--check", "emu",
                       "-o", tmp_path / "c.html")
    page = (tmp_path / "c.html").read_text()
    assert status == 1 and "first difference at" in text
    assert 'class="verdict bad"' in page and "first difference at t=" in page
    assert len(re.findall(r'<tr data-t="[0-9.]+" data-type="\w+" class="diff">', page)) == 2
    assert 'alt="pins around the first difference"' in page


def test_the_clean_room_game_on_a_shared_capture_conforms(tmp_path):
    result = report_cleanroom(CAPTURES / "tower_test", str(tmp_path / "g.html"))
    page = (tmp_path / "g.html").read_text()
    assert result.conforms and "clean-room game" in page and 'class="verdict ok"' in page


def test_report_with_check_and_conform_together_is_refused(tmp_path, capsys):
    status, _ = run("report", CAPTURES / "tower_test", "--check", "emu", "--conform",
                    "-o", tmp_path / "r.html")
    assert status == 2 and "not both" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


def test_report_of_a_missing_source_names_it(tmp_path, capsys):
    status, _ = run("report", tmp_path / "nothing", "-o", tmp_path / "r.html")
    assert status == 2 and f"{tmp_path / 'nothing'}: no such file" in capsys.readouterr().err


def test_report_into_a_missing_folder_is_refused_before_any_check(tmp_path, capsys,
                                                                  monkeypatch):
    import rig.check
    monkeypatch.setattr(rig.check, "check", lambda *a, **k: pytest.fail("checked"))
    status, _ = run("report", CAPTURES / "tower_test", "--check", "emu",
                    "-o", tmp_path / "no" / "r.html")
    assert status == 2 and f"folder {tmp_path / 'no'} does not exist" in \
        capsys.readouterr().err
