"""Saleae exports stream: long exports decode in blocks to the same changes as a one-block
read, in memory that does not grow with the length of the export.

Fixture files come from the test helper saleae_fixture_writer (no Saleae software here)."""
from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from captures.model import Capture, CaptureError, CaptureInfo, MemoryCapture
from captures.saleae import V1_HEADER, read_saleae_bin, read_saleae_csv
from capfmt_helpers import captures, same_changes
from saleae_fixture_writer import write_bin, write_csv

EXAMPLES = int(os.environ.get("TOWERLAB_HYPOTHESIS_EXAMPLES", 40))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])
LONG_CHANGES = 4_200_000          # 4 channels: about 2.2 million transitions per channel
WHOLE = 1 << 30                   # a block size that reads everything at once


def _synthetic(changes: int, seed: int) -> MemoryCapture:
    """Return a 4-channel 1 MHz capture with ``changes`` changes 1..5 samples apart."""
    rng = np.random.default_rng(seed)
    times = np.concatenate([[0], np.cumsum(rng.integers(1, 6, changes - 1))])
    flips = np.concatenate([[rng.integers(0, 16)], rng.integers(1, 16, changes - 1)])
    words = np.bitwise_xor.accumulate(flips.astype(np.uint64))
    info = CaptureInfo(["a", "b", "c", "d"], 1_000_000.0, int(times[-1]) + 10)
    return MemoryCapture(info, times, words)


def _fresh_folder(folder: Path) -> Path:
    folder.mkdir(exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    return folder


def _peak_bytes(open_export) -> int:
    """Return the peak traced memory (bytes) of opening an export and reading every block."""
    tracemalloc.start()
    try:
        for _ in open_export().changes():
            pass
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.fixture(scope="module")
def long_exports(tmp_path_factory):
    """Binary v0 exports of 1/4 and all of LONG_CHANGES changes, and the long capture."""
    root = tmp_path_factory.mktemp("saleae_long")
    long_cap = _synthetic(LONG_CHANGES, seed=1)
    write_bin(long_cap, _fresh_folder(root / "x4"), version=0)
    write_bin(_synthetic(LONG_CHANGES // 4, seed=2), _fresh_folder(root / "x1"), version=0)
    return root, long_cap


def test_long_binary_export_decodes_to_the_written_changes(long_exports):
    root, long_cap = long_exports
    per_channel = [len(q.read_bytes()) // 8 for q in sorted((root / "x4").iterdir())]
    assert min(per_channel) > 2_000_000          # the export really is long
    cap = read_saleae_bin(root / "x4")
    assert cap.info.total_samples == long_cap.info.total_samples
    assert len(list(cap.changes())) > 1          # handed on in blocks, not as one array
    assert same_changes(cap, long_cap)


def test_binary_peak_memory_does_not_grow_with_export_length(long_exports):
    root, _ = long_exports
    short = _peak_bytes(lambda: read_saleae_bin(root / "x1"))
    long = _peak_bytes(lambda: read_saleae_bin(root / "x4"))
    long_file_bytes = sum(q.stat().st_size for q in (root / "x4").iterdir())
    assert long < 1.25 * short
    assert long < long_file_bytes / 4


def test_csv_peak_memory_does_not_grow_with_export_length(tmp_path):
    write_csv(_synthetic(12_000, seed=3), tmp_path / "x1.csv")
    write_csv(_synthetic(48_000, seed=4), tmp_path / "x4.csv")
    short = _peak_bytes(lambda: read_saleae_csv(tmp_path / "x1.csv", block=2048))
    long = _peak_bytes(lambda: read_saleae_csv(tmp_path / "x4.csv", block=2048))
    assert long < 1.25 * short


def _assert_same_capture(a: Capture, b: Capture) -> None:
    assert a.channels == b.channels
    assert a.samplerate == b.samplerate
    assert a.info.total_samples == b.info.total_samples
    assert a.gaps == b.gaps
    assert same_changes(a, b)


@SETTINGS
@given(cap=captures(max_channels=6, with_gaps=False,
                    rates=st.sampled_from([1_000.0, 250_000.0, 1_000_000.0])),
       version=st.sampled_from([0, 1]), block=st.integers(1, 5), split=st.floats(0, 1),
       gap=st.integers(0, 7))
def test_binary_read_in_tiny_blocks_equals_a_one_block_read(tmp_path, cap, version, block,
                                                            split, gap):
    folder = _fresh_folder(tmp_path / "sal")
    total = cap.info.total_samples
    split_at = int(1 + split * (total - 2)) if version == 1 and total > 2 else None
    write_bin(cap, folder, version=version, split_at=split_at, gap_samples=gap)
    _assert_same_capture(read_saleae_bin(folder, block=block),
                         read_saleae_bin(folder, block=WHOLE))


@SETTINGS
@given(cap=captures(max_channels=6, with_gaps=False), block=st.integers(1, 5),
       offset=st.sampled_from([0.0, -0.25, 3.0]))
def test_csv_read_in_tiny_blocks_equals_a_one_block_read(tmp_path, cap, block, offset):
    write_csv(cap, tmp_path / "digital.csv", offset_s=offset)
    _assert_same_capture(read_saleae_csv(tmp_path / "digital.csv", block=block),
                         read_saleae_csv(tmp_path / "digital.csv", block=WHOLE))


def test_csv_x_rows_split_across_blocks_are_the_same_gaps(tmp_path):
    path = tmp_path / "digital.csv"
    path.write_text("Time [s],Channel 0,Channel 1\n0.000,1,0\n0.001,X,X\n0.002,X,X\n"
                    "0.004,0,1\n0.004,1,1\n0.005,X,X\n")
    for block in (1, 2, 3, WHOLE):
        _assert_same_capture(read_saleae_csv(path, block=block),
                             read_saleae_csv(path, block=WHOLE))


def test_csv_line_ends_split_between_reads_count_lines_like_the_whole_file(tmp_path):
    path = tmp_path / "digital.csv"
    path.write_bytes(b"Time [s],Channel 0\r\n0.0,1\r\n0.5,0\r\n\r\n1.0,2\r\n")
    with pytest.raises(CaptureError, match=r"digital.csv:5: level '2'"):
        read_saleae_csv(path, block=1)


def test_bad_time_at_the_end_of_a_long_export_is_refused_when_opening(tmp_path):
    paths = write_bin(_synthetic(200_000, seed=5), tmp_path, version=0)
    data = bytearray(paths[2].read_bytes())
    data[-8:] = np.array([-1.0], "<f8").tobytes()       # last transition goes back in time
    paths[2].write_bytes(bytes(data))
    with pytest.raises(CaptureError, match="digital_2.bin: transition times are not "
                                           "increasing"):
        read_saleae_bin(tmp_path, block=1024)


def test_v1_channel_file_without_chunks_reads_as_a_low_channel(tmp_path):
    write_bin(_synthetic(50, seed=6), tmp_path, version=1)
    (tmp_path / "digital_4.bin").write_bytes(
        V1_HEADER.build({"magic": b"<SALEAE>", "version": 1, "type": 0, "chunk_count": 0}))
    cap = read_saleae_bin(tmp_path, block=3)
    words = cap.to_memory().words
    assert cap.channels[4] == "Channel 4"
    assert not np.any(words & np.uint64(1 << 4))
    assert same_changes(cap, read_saleae_bin(tmp_path, block=WHOLE))


def test_block_size_below_one_is_refused(tmp_path):
    write_bin(_synthetic(10, seed=7), tmp_path, version=0)
    with pytest.raises(CaptureError, match="block size 0 must be at least 1"):
        read_saleae_bin(tmp_path, block=0)
