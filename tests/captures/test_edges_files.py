"""The lossless edges format (edges.jsonl.gz) of the shared captures."""
from __future__ import annotations

import gzip
import io
import json

import pytest

from captures.edges import read_edges, write_edges
from captures.model import CaptureError, Gap, MemoryCapture
from capfmt_helpers import DATA, same_changes


def _edges_file(path, lines, header=None):
    head = header if header is not None else {"clock_hz": 1000, "end_cycle": 100,
                                              "signals": ["A", "B"], "format": "capgen-edges-1"}
    text = json.dumps(head) + "\n" + "".join(line + "\n" for line in lines)
    path.write_bytes(gzip.compress(text.encode()))
    return path


def _reference(path):
    """The shared capture built edge by edge with MemoryCapture.from_edges."""
    with gzip.open(path, "rt") as f:
        head = json.loads(f.readline())
        edges = [tuple(json.loads(line)) for line in f]
    return MemoryCapture.from_edges(head["signals"], head["clock_hz"], edges, head["end_cycle"])


def test_shared_capture_reads_as_the_edges_it_lists():
    path = DATA / "tower_test" / "edges.jsonl.gz"
    cap = read_edges(path)
    assert cap.samplerate == 425_000
    assert cap.info.total_samples == 6_591_750
    assert cap.info.meta["script"] == "tower_test"
    assert same_changes(cap, _reference(path))


def test_writing_a_shared_capture_gives_back_the_same_lines(tmp_path):
    path = DATA / "level_select" / "edges.jsonl.gz"
    buf = io.BytesIO()
    write_edges(read_edges(path), buf)
    ours = gzip.decompress(buf.getvalue()).decode().splitlines()
    theirs = gzip.decompress(path.read_bytes()).decode().splitlines()
    assert ours[1:] == theirs[1:]
    assert json.loads(ours[0])["signals"] == json.loads(theirs[0])["signals"]


def test_reading_streams_in_blocks_of_bounded_size(monkeypatch):
    import captures.edges as edges
    monkeypatch.setattr(edges, "BLOCK", 100)
    blocks = list(read_edges(DATA / "tower_test" / "edges.jsonl.gz").changes())
    assert len(blocks) > 10
    assert max(len(b) for b in blocks) < 200


def test_edges_at_one_cycle_merge_into_one_change(tmp_path):
    path = _edges_file(tmp_path / "e.jsonl.gz", ['[0,"A",1]', '[5,"A",0]', '[5,"B",1]'])
    mem = read_edges(path).to_memory()
    assert mem.times.tolist() == [0, 5]
    assert mem.words.tolist() == [1, 2]


def test_signal_without_cycle_0_line_starts_low(tmp_path):
    path = _edges_file(tmp_path / "e.jsonl.gz", ['[3,"B",1]'])
    mem = read_edges(path).to_memory()
    assert mem.times.tolist() == [0, 3] and mem.words.tolist() == [0, 2]


def test_gaps_are_kept_in_the_header(tmp_path):
    cap = MemoryCapture.from_edges(["A"], 1000, [(0, "A", 1)], 50, gaps=[Gap(5, 9, "overrun")])
    buf = io.BytesIO()
    write_edges(cap, buf)
    assert read_edges(buf).gaps == [Gap(5, 9, "overrun")]


@pytest.mark.parametrize("line, message", [
    ('[3,"C",1]', r"e.jsonl.gz:2: unknown signal 'C'"),
    ('[3,"A",2]', r"e.jsonl.gz:2: level must be 0 or 1"),
    ('[-1,"A",1]', r"e.jsonl.gz:2: cycle must be an integer >= 0"),
    ('[3,"A"]', r"e.jsonl.gz:2: expected \[cycle"),
    ('[3,"A",1', r"e.jsonl.gz:2: not a JSON line"),
    ('[300,"A",1]', r"e.jsonl.gz:2: cycle 300 is not before end_cycle 100"),
])
def test_bad_edge_line_names_file_and_line(tmp_path, line, message):
    path = _edges_file(tmp_path / "e.jsonl.gz", [line])
    with pytest.raises(CaptureError, match=message):
        read_edges(path).to_memory()


def test_cycles_going_backwards_name_the_line(tmp_path):
    path = _edges_file(tmp_path / "e.jsonl.gz", ['[5,"A",1]', '[6,"B",1]', '[4,"A",0]'])
    with pytest.raises(CaptureError, match=r"e.jsonl.gz:4: cycle 4 goes backwards \(after 6\)"):
        read_edges(path).to_memory()


@pytest.mark.parametrize("header, message", [
    ({"clock_hz": 1000}, "needs \"signals\""),
    ({"clock_hz": 0, "signals": ["A"]}, "needs \"clock_hz\""),
    ({"clock_hz": 10, "signals": ["A", "A"]}, "listed twice"),
    ([1, 2], "header is not a JSON object"),
])
def test_bad_header_is_refused(tmp_path, header, message):
    path = _edges_file(tmp_path / "e.jsonl.gz", [], header=header)
    with pytest.raises(CaptureError, match=message):
        read_edges(path)


def test_damaged_gzip_stream_is_a_clear_error(tmp_path):
    data = (DATA / "tower_test" / "edges.jsonl.gz").read_bytes()
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(data[:len(data) // 2])
    with pytest.raises(CaptureError, match="cut.jsonl.gz: damaged gzip data"):
        read_edges(path).to_memory()


def test_file_that_is_not_gzip_is_refused(tmp_path):
    path = tmp_path / "plain.jsonl.gz"
    path.write_text('{"clock_hz": 1}\n')
    with pytest.raises(CaptureError, match="plain.jsonl.gz: not a gzip file"):
        read_edges(path)
