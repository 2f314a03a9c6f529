"""sigrok session files (.sr): reading, writing, and agreement with the real sigrok-cli."""
from __future__ import annotations

import subprocess
import zipfile

import numpy as np
import pytest

from captures.formats import open_capture, write_capture
from captures.model import CaptureError, Changes, MemoryCapture
from captures.sigrok import SrWriter, format_samplerate, parse_samplerate, read_sr, write_sr
from capfmt_helpers import DATA, SHARED, expand, same_changes, sigrok_csv


def _demo(sigrok, tmp_path, channels, samples=300):
    path = tmp_path / "demo.sr"
    subprocess.run([sigrok, "-d", "demo", "--channels", ",".join(channels), "--samples",
                    str(samples), "-o", str(path)], check=True, capture_output=True, timeout=60)
    return path


def _small(channels, rate=1_000_000.0, total=500):
    rng = np.random.default_rng(len(channels))
    times = np.concatenate([[0], np.sort(rng.choice(np.arange(1, total), 40, replace=False))])
    flips = rng.integers(1, 1 << len(channels), len(times), dtype=np.uint64)
    words = np.bitwise_xor.accumulate(flips)     # every change changes something
    from captures.model import CaptureInfo
    return MemoryCapture(CaptureInfo(list(channels), rate, total), times, words)


def _write_session(path, metadata, data=b"\x00", version=b"2"):
    with zipfile.ZipFile(path, "w") as zf:
        if version is not None:
            zf.writestr("version", version)
        if metadata is not None:
            zf.writestr("metadata", metadata)
        if data is not None:
            zf.writestr("logic-1-1", data)


META = ("[global]\nsigrok version=0.5.2\n\n[device 1]\ncapturefile=logic-1\n"
        "total probes={probes}\nsamplerate=1 MHz\ntotal analog=0\n{names}unitsize={unitsize}\n")


def test_samplerate_strings_parse_in_hz():
    assert parse_samplerate("250 kHz") == 250_000
    assert parse_samplerate("1 MHz") == 1_000_000
    assert parse_samplerate("1000000") == 1_000_000
    assert format_samplerate(250_000) == "250 kHz"
    assert format_samplerate(425_000) == "425 kHz"
    assert format_samplerate(1_500) == "1500 Hz"


def test_demo_session_from_sigrok_cli_reads_as_cli_prints_it(sigrok_cli, tmp_path):
    names = [f"D{i}" for i in range(8)]
    path = _demo(sigrok_cli, tmp_path, names)
    cap = read_sr(path)
    assert cap.channels == names
    assert cap.samplerate == 200_000
    assert cap.info.total_samples == 300
    assert np.array_equal(expand(cap), sigrok_csv(sigrok_cli, path))


def test_disabled_probes_are_dropped_and_the_rest_packed_in_order(sigrok_cli, tmp_path):
    path = _demo(sigrok_cli, tmp_path, ["D0", "D2", "D5"])
    cap = read_sr(path)
    assert cap.channels == ["D0", "D2", "D5"]
    assert np.array_equal(expand(cap), sigrok_csv(sigrok_cli, path))


def test_bits_output_of_sigrok_cli_matches_each_channel(sigrok_cli, tmp_path):
    path = _demo(sigrok_cli, tmp_path, ["D1", "D3"], samples=64)
    out = subprocess.run([sigrok_cli, "-i", str(path), "-O", "bits"], check=True,
                         capture_output=True, text=True, timeout=60).stdout
    rows = {ln.split(":")[0]: ln.split(":")[1].replace(" ", "")
            for ln in out.splitlines() if ln.startswith("D")}
    ours = expand(read_sr(path))
    for i, name in enumerate(["D1", "D3"]):
        assert "".join(str(int(w >> i) & 1) for w in ours) == rows[name]


@pytest.mark.parametrize("nch", [3, 12, 24])
def test_our_session_converts_in_sigrok_cli_to_the_same_samples(sigrok_cli, tmp_path, nch):
    cap = _small([f"S{i}" for i in range(nch)])
    path = tmp_path / "ours.sr"
    write_capture(cap, path)
    assert np.array_equal(sigrok_csv(sigrok_cli, path), expand(cap))


def test_writer_cuts_chunks_and_reader_joins_them_in_numeric_order(tmp_path):
    cap = _small(["A", "B", "C"], total=5000)
    path = tmp_path / "chunks.sr"
    with open(path, "wb") as f:
        w = SrWriter(f, cap.channels, cap.samplerate, chunk_size=333)
        w.write_changes(Changes(cap.times, cap.words))
        w.close(5000)
    names = zipfile.ZipFile(path).namelist()
    assert "logic-1-10" in names and "logic-1-2" in names
    assert same_changes(read_sr(path), cap)


def test_metadata_sections_and_gaps_survive_a_round_trip(tmp_path):
    from captures.model import CaptureInfo, Gap
    meta = {"darktower": {"rom sha1": "abc", "clock": "425000 Hz"}, "script": "tower_test"}
    info = CaptureInfo(["A"], 1000.0, 100, meta)
    cap = MemoryCapture(info, np.array([0, 5]), np.array([1, 0], np.uint64),
                        [Gap(10, 20, "probe unplugged")])
    path = tmp_path / "meta.sr"
    write_capture(cap, path)
    back = read_sr(path)
    assert back.info.meta == {"darktower": {"rom sha1": "abc", "clock": "425000 Hz"},
                              "script": "tower_test"}
    assert back.gaps == [Gap(10, 20, "probe unplugged")]


def test_numbers_in_metadata_read_back_as_numbers_not_text(tmp_path):
    # a Saleae export's start time went through .sr as the text '-0.001'
    from captures.model import CaptureInfo
    meta = {"time_offset_s": -0.001, "count": 3, "ok": True, "none": None, "ids": [1, "a"],
            "text": "0.5", "odd \\ text": "a\\b \"q\""}
    cap = MemoryCapture(CaptureInfo(["A"], 1000.0, 100, meta), np.array([0, 5]),
                        np.array([1, 0], np.uint64))
    write_capture(cap, tmp_path / "meta.sr")
    assert read_sr(tmp_path / "meta.sr").info.meta == meta
    write_capture(read_sr(tmp_path / "meta.sr"), tmp_path / "again.sr")
    assert read_sr(tmp_path / "again.sr").info.meta == meta


def test_shared_captures_keep_their_darktower_section():
    cap = read_sr(DATA / "tower_test" / "capture.sr")
    assert cap.info.meta["darktower"]["script"] == "tower_test"
    assert cap.info.total_samples == 3_877_500
    assert cap.channels[-1] == "SENSOR"


@pytest.mark.parametrize("name", SHARED)
def test_shared_capture_sr_agrees_with_its_edges_within_one_sample(name):
    """shared captures: capture.sr (250 kHz) is edges.jsonl.gz (425 kHz) resampled."""
    sr = read_sr(DATA / name / "capture.sr").to_memory()
    edges = open_capture(DATA / name / "edges.jsonl.gz").to_memory()
    assert sr.channels == edges.channels
    assert len(sr.times) == len(edges.times)
    assert np.array_equal(sr.words, edges.words)
    dt = np.abs(sr.times / sr.samplerate - edges.times / edges.samplerate)
    assert dt.max() <= 1 / sr.samplerate
    assert abs(sr.info.total_samples / sr.samplerate
               - edges.info.total_samples / edges.samplerate) <= 1 / sr.samplerate


def test_wrong_unitsize_names_probes_and_expected_size(tmp_path):
    names = "".join(f"probe{i + 1}=P{i}\n" for i in range(32))
    path = tmp_path / "capture.sr"
    _write_session(path, META.format(probes=32, names=names, unitsize=3))
    with pytest.raises(CaptureError, match=r"capture.sr: metadata has unitsize=3 but 32 probes "
                                           r"\(expected 4\)"):
        read_sr(path)


def test_zip_without_version_member_is_not_a_session(tmp_path):
    path = tmp_path / "x.sr"
    _write_session(path, META.format(probes=1, names="probe1=A\n", unitsize=1), version=None)
    with pytest.raises(CaptureError, match="x.sr: zip is not a sigrok session"):
        read_sr(path)


def test_version_3_session_is_refused(tmp_path):
    path = tmp_path / "x.sr"
    _write_session(path, META.format(probes=1, names="probe1=A\n", unitsize=1), version=b"3")
    with pytest.raises(CaptureError, match="version '3' is not supported"):
        read_sr(path)


def test_session_without_logic_data_is_refused(tmp_path):
    path = tmp_path / "x.sr"
    _write_session(path, META.format(probes=1, names="probe1=A\n", unitsize=1), data=None)
    with pytest.raises(CaptureError, match="no logic data"):
        read_sr(path)


def test_session_without_samplerate_is_refused(tmp_path):
    path = tmp_path / "x.sr"
    meta = META.format(probes=1, names="probe1=A\n", unitsize=1).replace("samplerate=1 MHz\n", "")
    _write_session(path, meta)
    with pytest.raises(CaptureError, match="no samplerate"):
        read_sr(path)


def test_partial_last_sample_is_a_warning_not_an_error(tmp_path):
    path = tmp_path / "x.sr"
    _write_session(path, META.format(probes=9, names="probe1=A\nprobe9=B\n", unitsize=2),
                   data=b"\x01\x01\x00\x00\x07")
    cap = read_sr(path)
    assert cap.info.total_samples == 2
    assert "not a whole number of 2-byte samples" in cap.warnings[0]
    assert expand(cap).tolist() == [3, 0]


def test_truncated_zip_is_a_clear_error(tmp_path):
    src = (DATA / "tower_test" / "capture.sr").read_bytes()
    path = tmp_path / "cut.sr"
    path.write_bytes(src[:len(src) // 2])
    with pytest.raises(CaptureError, match="cut.sr: not a readable zip file"):
        read_sr(path)


def test_writer_refuses_a_first_change_after_sample_0(tmp_path):
    with open(tmp_path / "x.sr", "wb") as f:
        with pytest.raises(CaptureError, match="expected 0"):
            with SrWriter(f, ["A"], 1000) as w:
                w.write_changes(Changes(np.array([3]), np.array([1], np.uint64)))


def test_write_sr_to_a_file_object_reads_back(tmp_path):
    import io
    cap = _small(["A", "B"])
    buf = io.BytesIO()
    write_sr(cap, buf)
    assert same_changes(read_sr(buf), cap)


def _write_chunks(path, metadata, chunks):
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("version", b"2")
        zf.writestr("metadata", metadata)
        for member, data in chunks.items():
            zf.writestr(member, data)


def test_a_missing_logic_chunk_is_refused(tmp_path):
    path = tmp_path / "x.sr"
    _write_chunks(path, META.format(probes=1, names="probe1=A\n", unitsize=1),
                  {"logic-1-2": b"\x00\x01", "logic-1-3": b"\x00"})
    with pytest.raises(CaptureError, match="x.sr: logic data chunk 'logic-1-1' is missing"):
        read_sr(path)


def test_a_chunk_that_is_not_whole_samples_is_refused_before_the_last(tmp_path):
    path = tmp_path / "x.sr"
    _write_chunks(path, META.format(probes=9, names="probe1=A\nprobe9=B\n", unitsize=2),
                  {"logic-1-1": b"\x01\x00\x01", "logic-1-2": b"\x00\x00"})
    with pytest.raises(CaptureError, match=r"x.sr: logic-1-1 is 3 bytes, not a whole number "
                                           r"of 2-byte samples \(wrong unitsize"):
        read_sr(path)


def test_a_unitsize_too_large_for_the_data_is_refused(tmp_path):
    # 3-byte samples of 24 probes read as 4-byte units: the next sample lands in the top byte.
    path = tmp_path / "x.sr"
    names = "".join(f"probe{i + 1}=P{i}\n" for i in range(24))
    _write_chunks(path, META.format(probes=24, names=names, unitsize=4),
                  {"logic-1-1": bytes([1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0])})
    with pytest.raises(CaptureError, match=r"x.sr: samples set bits above the 24 probes "
                                           r"\(unitsize=4 does not match"):
        read_sr(path)


def test_a_session_cut_short_says_why_it_cannot_be_read(tmp_path):
    src = (DATA / "tower_test" / "capture.sr").read_bytes()
    path = tmp_path / "cut.sr"
    path.write_bytes(src[:len(src) // 2])
    with pytest.raises(CaptureError, match=r"cut.sr: .*a .sr cut short has no zip directory"):
        read_sr(path)
