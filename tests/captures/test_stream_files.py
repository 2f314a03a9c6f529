"""The TowerLab stream capture (.tlc): append-only, checksummed, readable after a crash."""
from __future__ import annotations

import numpy as np
import pytest

from captures.formats import open_capture, write_capture
from captures.model import CaptureError, Changes, Gap
from captures.stream import CHUNK, StreamWriter, read_stream
from capfmt_helpers import DATA, same_changes


def _record(path, close=True):
    w = StreamWriter(path, ["R4", "R10"], 425_000.0, {"probe": "fx2"})
    w.write_changes(Changes(np.array([0, 10, 20]), np.array([1, 3, 2], np.uint64)))
    w.write_gap(Gap(25, 40, "overrun"))
    w.write_changes(Changes(np.array([50, 60]), np.array([0, 1], np.uint64)), upto=70)
    if close:
        w.close(100)
    else:
        w.abandon()
    return path


def test_closed_stream_reads_back_changes_gaps_and_length(tmp_path):
    cap = read_stream(_record(tmp_path / "a.tlc"))
    mem = cap.to_memory()
    assert mem.times.tolist() == [0, 10, 20, 50, 60]
    assert mem.words.tolist() == [1, 3, 2, 0, 1]
    assert cap.gaps == [Gap(25, 40, "overrun")]
    assert cap.info.total_samples == 100
    assert cap.info.meta == {"probe": "fx2"}
    assert cap.warnings == []


def test_stream_without_end_chunk_reports_where_it_stops(tmp_path):
    cap = read_stream(_record(tmp_path / "a.tlc", close=False))
    assert cap.gaps[-1] == Gap(70, 70, "truncated after chunk 3 at sample 70")
    assert cap.info.total_samples == 70
    assert "truncated after chunk 3 at sample 70" in cap.warnings[0]
    assert len(cap.to_memory().times) == 5


def test_file_cut_inside_a_chunk_keeps_every_whole_chunk(tmp_path):
    path = _record(tmp_path / "a.tlc")
    data = path.read_bytes()
    header_end = 14 + int.from_bytes(data[10:14], "little") + 4
    for cut in range(len(data) - 1, header_end - 1, -3):
        path.write_bytes(data[:cut])
        cap = read_stream(path)
        mem = cap.to_memory()
        assert cap.gaps[-1].reason.startswith("truncated after chunk")
        assert mem.times.tolist() == [0, 10, 20, 50, 60][:len(mem.times)]


def test_a_damaged_last_changes_chunk_is_a_gap_up_to_the_end_chunk(tmp_path):
    path = _record(tmp_path / "a.tlc")
    data = bytearray(path.read_bytes())
    data[-30] ^= 0xFF          # inside the second changes chunk
    path.write_bytes(bytes(data))
    cap = read_stream(path)
    assert cap.gaps[-1].start == 40 and cap.gaps[-1].end == 100
    assert "is damaged" in cap.gaps[-1].reason and "is damaged" in cap.warnings[0]
    assert cap.to_memory().times.tolist() == [0, 10, 20] and cap.info.total_samples == 100


def test_a_damaged_end_chunk_stops_reading_there_and_says_so(tmp_path):
    path = _record(tmp_path / "a.tlc")
    data = bytearray(path.read_bytes())
    data[-6] ^= 0xFF           # inside the end chunk
    path.write_bytes(bytes(data))
    cap = read_stream(path)
    assert "truncated after chunk 3" in cap.gaps[-1].reason and "is damaged" in cap.gaps[-1].reason
    assert cap.to_memory().times.tolist() == [0, 10, 20, 50, 60]


def test_a_damaged_chunk_in_the_middle_is_skipped_and_the_rest_is_read(tmp_path):
    path = tmp_path / "m.tlc"
    w = StreamWriter(path, ["R4", "R10"], 1000.0)
    for k in range(4):
        w.write_changes(Changes(np.array([100 * k, 100 * k + 50]), np.array([1, 2], np.uint64)),
                        upto=100 * k + 60)
    w.close(400)
    data = bytearray(path.read_bytes())
    second = data.index(bytes([1]) + (2).to_bytes(4, "little"))     # chunk 2's header
    data[second + 20] ^= 0xFF
    path.write_bytes(bytes(data))
    cap = read_stream(path)
    assert cap.to_memory().times.tolist() == [0, 50, 200, 250, 300, 350]
    assert cap.gaps == [Gap(60, 200, cap.gaps[0].reason)]
    assert "chunk 2" in cap.gaps[0].reason and "samples 60..200 are a gap" in cap.warnings[0]
    assert cap.info.total_samples == 400


def test_context_manager_leaves_a_truncated_file_after_an_exception(tmp_path):
    path = tmp_path / "crash.tlc"
    with pytest.raises(RuntimeError):
        with StreamWriter(path, ["A"], 1000.0) as w:
            w.write_changes(Changes(np.array([0, 5]), np.array([0, 1], np.uint64)))
            raise RuntimeError("probe unplugged")
    cap = read_stream(path)
    assert cap.gaps == [Gap(6, 6, "truncated after chunk 1 at sample 6")]


def test_each_chunk_is_flushed_to_the_file_as_written(tmp_path):
    path = tmp_path / "live.tlc"
    w = StreamWriter(path, ["A"], 1000.0)
    w.write_changes(Changes(np.array([0, 5]), np.array([0, 1], np.uint64)))
    assert read_stream(path).to_memory().times.tolist() == [0, 5]
    w.close()


def test_chunk_layout_is_a_construct_struct_with_crc():
    built = CHUNK.build({"body": {"value": {"kind": "end", "seq": 1, "upto": 9,
                                            "payload": b"\x09" + bytes(7)}}})
    assert len(built) == 1 + 4 + 8 + 4 + 8 + 4
    assert CHUNK.parse(built).body.value.upto == 9


def test_shared_capture_converts_to_stream_and_back_unchanged(tmp_path):
    src = open_capture(DATA / "level4_bazaar" / "capture.sr")
    write_capture(src, tmp_path / "b.tlc")
    back = open_capture(tmp_path / "b.tlc")
    assert back.info.total_samples == src.info.total_samples
    assert same_changes(back, src)


def test_stream_converts_to_sr_and_vcd(tmp_path):
    path = _record(tmp_path / "a.tlc")
    for ext in (".sr", ".vcd"):
        write_capture(read_stream(path), tmp_path / f"a{ext}")
        back = open_capture(tmp_path / f"a{ext}")
        assert same_changes(back, read_stream(path))
        assert back.gaps == [Gap(25, 40, "overrun")]


@pytest.mark.parametrize("data, message", [
    (b"TWRLBCAP\x02\x00", "not a TowerLab stream capture"),
    (b"TWRLBCAP\x02\x00\x00\x00\x00\x00", "stream format version 2 is not supported"),
    (b"TWRLBCAP\x01\x00\x10\x00\x00\x00abc", "file ends inside the header"),
])
def test_bad_header_is_refused(tmp_path, data, message):
    path = tmp_path / "bad.tlc"
    path.write_bytes(data)
    with pytest.raises(CaptureError, match=f"bad.tlc: {message}"):
        read_stream(path)


def test_writer_refuses_times_that_go_backwards(tmp_path):
    with StreamWriter(tmp_path / "a.tlc", ["A"], 1000.0) as w:
        w.write_changes(Changes(np.array([0, 5]), np.array([0, 1], np.uint64)))
        with pytest.raises(CaptureError, match="do not increase"):
            w.write_changes(Changes(np.array([4]), np.array([0], np.uint64)))


class _FullDisk:
    """A binary file that takes ``room`` bytes, then fails as a full disk does."""

    name = "full/capture.tlc"

    def __init__(self, path, room: int):
        self._f, self._room = open(path, "wb"), room

    def write(self, data: bytes) -> int:
        if len(data) > self._room:
            self._f.write(data[:self._room])
            self._room = 0
            raise OSError(28, "No space left on device")
        self._room -= len(data)
        return self._f.write(data)

    def flush(self) -> None:
        self._f.flush()

    def close(self) -> None:
        self._f.close()


def test_a_full_disk_stops_the_writer_in_one_line_and_the_file_reads_to_its_last_chunk(
        tmp_path):
    disk = _FullDisk(tmp_path / "c.tlc", room=400)
    w = StreamWriter(disk, ["a", "b"], 1000.0)
    with pytest.raises(CaptureError, match=r"^full/capture.tlc: cannot write the capture "
                                           r"\(No space left on device\); it reads back up "
                                           r"to chunk \d+$") as err:
        for k in range(100):
            w.write_changes(Changes(np.array([2 * k]), np.array([k & 3], np.uint64)))
    disk.close()
    kept = int(str(err.value).rsplit(" ", 1)[1])
    cap = read_stream(str(tmp_path / "c.tlc"))
    assert kept > 0 and len(cap.to_memory().times) == kept
    assert cap.gaps[-1].reason.startswith(f"truncated after chunk {kept}")
    with pytest.raises(CaptureError, match="already closed"):
        w.write_changes(Changes(np.array([999]), np.array([1], np.uint64)))
