"""captures.events.recording_events_file and recordings_in: which events file a folder a user
names holds, and what each recording is called in a report (towerlab draws, battles)."""
from __future__ import annotations

from captures.events import recording_events_file, recordings_in


def _recording(folder):
    folder.mkdir(parents=True)
    (folder / "events.jsonl").write_text('{"t": 0.0, "type": "display", "text": "  "}\n')
    return folder / "events.jsonl"


def test_a_recording_folder_holds_its_own_events(tmp_path):
    events = _recording(tmp_path / "l1_p1_s01")
    assert recording_events_file(str(tmp_path / "l1_p1_s01")) == str(events)
    assert recordings_in(str(tmp_path / "l1_p1_s01")) == [("l1_p1_s01", str(events))]


def test_a_request_folder_holding_one_session_is_named_after_the_request(tmp_path):
    events = _recording(tmp_path / "setup_sweep_k00" / "session_0001")
    assert recording_events_file(str(tmp_path / "setup_sweep_k00")) == str(events)
    assert recordings_in(str(tmp_path / "setup_sweep_k00")) == [("setup_sweep_k00",
                                                                   str(events))]


def test_a_folder_of_recordings_gives_each_named_folder_slash_name(tmp_path):
    a = _recording(tmp_path / "corpus" / "l1_p1_s01")
    b = _recording(tmp_path / "corpus" / "l2_p1_s02")
    (tmp_path / "corpus" / "README.md").write_text("not a recording\n")
    assert recording_events_file(str(tmp_path / "corpus")) is None
    assert recordings_in(str(tmp_path / "corpus")) == [("corpus/l1_p1_s01", str(a)),
                                                       ("corpus/l2_p1_s02", str(b))]


def test_an_events_file_is_named_by_its_stem_or_its_folder(tmp_path):
    excerpt = tmp_path / "l1_p3_s141_50.95.jsonl"
    excerpt.write_text("")
    events = _recording(tmp_path / "l3_p3_s111")
    assert recordings_in(str(excerpt)) == [("l1_p3_s141_50.95", str(excerpt))]
    assert recordings_in(str(events)) == [("l3_p3_s111", str(events))]


def test_a_folder_without_recordings_holds_none(tmp_path):
    (tmp_path / "empty").mkdir()
    assert recording_events_file(str(tmp_path / "empty")) is None
    assert recordings_in(str(tmp_path / "empty")) == []
    assert recordings_in(str(tmp_path / "missing")) == []
