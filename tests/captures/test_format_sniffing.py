"""open_capture / write_capture: picking the format by content and extension, atomic writes."""
from __future__ import annotations

import os

import numpy as np
import pytest

from captures.formats import open_capture, sniff_format, write_capture
from captures.model import CaptureError, CaptureInfo, MemoryCapture
from capfmt_helpers import DATA, same_changes


def _cap():
    return MemoryCapture.from_edges(["A", "B"], 1000, [(0, "A", 1), (4, "B", 1)], 10)


@pytest.mark.parametrize("ext, fmt", [(".sr", "sr"), (".vcd", "vcd"), (".tlc", "tlc"),
                                      (".jsonl.gz", "edges")])
def test_written_files_are_recognised_by_content_whatever_their_name(tmp_path, ext, fmt):
    write_capture(_cap(), tmp_path / f"x{ext}")
    os.rename(tmp_path / f"x{ext}", tmp_path / "renamed.dat")
    assert sniff_format(tmp_path / "renamed.dat") == fmt
    assert same_changes(open_capture(tmp_path / "renamed.dat"), _cap())


def test_shared_capture_files_are_recognised():
    assert sniff_format(DATA / "tower_test" / "capture.sr") == "sr"
    assert sniff_format(DATA / "tower_test" / "edges.jsonl.gz") == "edges"


def test_empty_file_is_refused_by_name(tmp_path):
    (tmp_path / "empty.sr").write_bytes(b"")
    with pytest.raises(CaptureError, match="empty.sr: empty file"):
        open_capture(tmp_path / "empty.sr")


def test_unknown_content_and_extension_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(CaptureError, match="notes.txt: unknown capture format"):
        open_capture(tmp_path / "notes.txt")


def test_missing_file_is_a_capture_error(tmp_path):
    with pytest.raises(CaptureError, match="nope.sr: cannot open"):
        open_capture(tmp_path / "nope.sr")


def test_folder_without_saleae_export_is_refused(tmp_path):
    with pytest.raises(CaptureError, match="folder has no Saleae export"):
        open_capture(tmp_path)


def test_unwritable_extension_is_refused_before_writing(tmp_path):
    with pytest.raises(CaptureError, match=r"out.csv: cannot write this extension"):
        write_capture(_cap(), tmp_path / "out.csv")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("ext", [".sr", ".vcd", ".tlc", ".jsonl.gz"])
def test_failed_write_leaves_no_file_behind(tmp_path, ext):
    info = CaptureInfo(["A"], 1000, 10)
    bad = MemoryCapture(info, np.array([0, 5, 3]), np.array([0, 1, 0], np.uint64))
    target = tmp_path / f"out{ext}"
    target.write_bytes(b"previous")
    with pytest.raises(CaptureError, match="do not increase"):
        write_capture(bad, target)
    assert target.read_bytes() == b"previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"out{ext}"]


def test_capture_whose_first_change_is_late_is_refused_by_writers(tmp_path):
    bad = MemoryCapture(CaptureInfo(["A"], 1000, 10), np.array([2]), np.array([1], np.uint64))
    with pytest.raises(CaptureError, match="first change is at sample 2, expected 0"):
        write_capture(bad, tmp_path / "x.sr")


def test_conversion_chain_keeps_the_shared_capture(tmp_path):
    src = open_capture(DATA / "level4_riddle" / "edges.jsonl.gz")
    path = tmp_path / "a"
    for ext in (".tlc", ".vcd", ".sr", ".jsonl.gz"):
        write_capture(open_capture(path) if ext != ".tlc" else src, f"{path}{ext}")
        path = f"{path}{ext}"
    assert same_changes(open_capture(path), src)


def test_writing_over_a_folder_names_it_and_leaves_it_alone(tmp_path):
    from captures.source import atomic_write
    folder = tmp_path / "out.vcd"
    folder.mkdir()
    with pytest.raises(CaptureError, match=r"out.vcd: is a folder \(expected a file name"):
        atomic_write(folder, lambda f: f.write(b"x"))
    assert list(tmp_path.iterdir()) == [folder] and list(folder.iterdir()) == []


def test_an_events_file_given_as_a_capture_is_named_as_such(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text('{"t": 0.0, "type": "display", "text": "0 "}\n')
    with pytest.raises(CaptureError, match=r"events.jsonl: is an events file \(JSON lines\), "
                                           r"not a pin capture"):
        open_capture(path)


def test_the_convert_help_names_every_extension_a_writer_takes():
    from captures.formats import writers
    from towerlab.cmd_formats import WRITTEN

    assert WRITTEN == ", ".join(writers())
