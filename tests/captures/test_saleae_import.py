"""Saleae Logic 2 exports: digital.csv and binary digital_N.bin v0 and v1.

Fixture files come from the test helper saleae_fixture_writer (no Saleae software here)."""
from __future__ import annotations

import pytest

from captures.formats import open_capture
from captures.model import CaptureError, Gap, MemoryCapture
from captures.saleae import read_saleae_bin, read_saleae_csv
from saleae_fixture_writer import write_bin, write_csv
from capfmt_helpers import same_changes


def _cap(rate=250_000.0):
    return MemoryCapture.from_edges(["a", "b", "c"], rate, [
        (0, "a", 1), (3, "b", 1), (7, "a", 0), (7, "c", 1), (12, "b", 0)], 20)


def test_repo_style_csv_row_reads_as_a_transition(tmp_path):
    path = tmp_path / "digital.csv"
    path.write_text("Time [s],Channel 0,Channel 1\n0.000000000,1,0\n0.000016460,0,1\n")
    cap = read_saleae_csv(path)
    mem = cap.to_memory()
    assert cap.channels == ["Channel 0", "Channel 1"]
    assert cap.samplerate == pytest.approx(1e9 / 16460)
    assert mem.times.tolist() == [0, 1] and mem.words.tolist() == [1, 2]


def test_csv_samplerate_comes_from_the_time_grid(tmp_path):
    write_csv(_cap(), tmp_path / "digital.csv")
    cap = open_capture(tmp_path / "digital.csv")
    assert cap.samplerate == 250_000
    assert same_changes(cap, _cap())


def test_negative_trigger_relative_times_start_at_sample_0(tmp_path):
    write_csv(_cap(), tmp_path / "digital.csv", offset_s=-0.001)
    cap = open_capture(tmp_path)
    assert cap.info.meta["time_offset_s"] == pytest.approx(-0.001)
    assert same_changes(cap, _cap())


@pytest.mark.parametrize("ext", [".sr", ".vcd", ".tlc", ".jsonl.gz"])
def test_converted_export_keeps_its_start_time_as_a_number(tmp_path, ext):
    from captures.formats import write_capture
    write_csv(_cap(), tmp_path / "digital.csv", offset_s=-0.001)
    write_capture(open_capture(tmp_path / "digital.csv"), tmp_path / f"c{ext}")
    back = open_capture(tmp_path / f"c{ext}")
    assert back.info.meta["time_offset_s"] == pytest.approx(-0.001)
    assert same_changes(back, _cap())


def test_csv_rows_of_all_x_are_a_gap(tmp_path):
    path = tmp_path / "digital.csv"
    path.write_text("Time [s],Channel 0,Channel 1\n0.000,1,0\n0.001,X,X\n0.004,0,1\n")
    cap = read_saleae_csv(path)
    assert cap.samplerate == 1000
    assert cap.gaps == [Gap(1, 4, "no data (X in the Saleae export)")]
    assert cap.to_memory().words.tolist() == [1, 2]


@pytest.mark.parametrize("text, message", [
    ("Time,Channel 0\n0,1\n", r"digital.csv:1: header must be 'Time \[s\],<channel>"),
    ("Time [s],Channel 0\n0.0,1,1\n", r"digital.csv:2: 3 fields, expected 2"),
    ("Time [s],Channel 0\n0.0,2\n", r"digital.csv:2: level '2' is not 0, 1 or X"),
    ("Time [s],Channel 0\nabc,1\n", r"digital.csv:2: time 'abc' is not a number"),
    ("Time [s],Channel 0\n0.5,1\n0.1,0\n", r"digital.csv:3: time goes backwards"),
    ("Time [s],Channel 0\n", r"digital.csv: no data rows"),
])
def test_bad_csv_names_file_and_line(tmp_path, text, message):
    path = tmp_path / "digital.csv"
    path.write_text(text)
    with pytest.raises(CaptureError, match=message):
        read_saleae_csv(path)


def test_binary_v0_folder_reads_one_channel_per_file(tmp_path):
    write_bin(_cap(), tmp_path, version=0)
    cap = open_capture(tmp_path)
    assert cap.channels == ["Channel 0", "Channel 1", "Channel 2"]
    assert cap.samplerate == 250_000
    assert cap.info.total_samples == 20
    assert same_changes(cap, _cap())


def test_binary_v1_uses_the_chunk_samplerate_and_marks_missing_time_as_a_gap(tmp_path):
    write_bin(_cap(1_000_000.0), tmp_path, version=1, split_at=10, gap_samples=5)
    cap = read_saleae_bin(tmp_path)
    mem = cap.to_memory()
    assert cap.samplerate == 1_000_000
    assert cap.gaps == [Gap(10, 15, "no data between Saleae chunks")]
    assert mem.times.tolist() == [0, 3, 7, 17]      # the change at 12 comes 5 samples later
    assert mem.words.tolist() == _cap().words.tolist()


def test_single_binary_file_is_one_channel_named_after_it(tmp_path):
    write_bin(_cap(), tmp_path, version=0)
    cap = open_capture(tmp_path / "digital_2.bin")
    assert cap.channels == ["Channel 2"]
    assert cap.to_memory().times.tolist() == [0, 7]


def test_truncated_binary_file_is_a_clear_error(tmp_path):
    paths = write_bin(_cap(), tmp_path, version=0)
    data = paths[0].read_bytes()
    paths[0].write_bytes(data[:-3])
    with pytest.raises(CaptureError, match="digital_0.bin: file ends early"):
        read_saleae_bin(paths[0])


def test_binary_version_2_is_refused(tmp_path):
    path = tmp_path / "digital_0.bin"
    path.write_bytes(b"<SALEAE>" + (2).to_bytes(4, "little") + bytes(4))
    with pytest.raises(CaptureError, match="Saleae binary version 2 is not supported"):
        read_saleae_bin(path)


def test_analog_export_is_refused(tmp_path):
    path = tmp_path / "analog_0.bin"
    path.write_bytes(b"<SALEAE>" + bytes(4) + (1).to_bytes(4, "little"))
    with pytest.raises(CaptureError, match="type 1 is not digital"):
        open_capture(path)


def test_csv_file_object_reads_the_same_as_its_path(tmp_path):
    write_csv(_cap(), tmp_path / "digital.csv")
    with open(tmp_path / "digital.csv", "rb") as f:
        cap = read_saleae_csv(f)
        assert same_changes(cap, read_saleae_csv(tmp_path / "digital.csv"))
        assert same_changes(cap, _cap())            # a second pass over the same file object
