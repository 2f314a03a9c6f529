"""Channel maps: 'probe = SIGNAL' files that rename and select channels."""
from __future__ import annotations

import numpy as np
import pytest

from captures.channelmap import apply_channel_map, load_channel_map, parse_channel_map
from captures.formats import open_capture
from captures.model import CaptureError, MemoryCapture
from capfmt_helpers import DATA


def test_map_lines_parse_in_order_with_comments_and_spaces():
    text = "# FX2 clone\nD0 = R4\n\nChannel 2 = R10   # speaker\n"
    assert list(parse_channel_map(text).items()) == [("D0", "R4"), ("Channel 2", "R10")]


@pytest.mark.parametrize("text, message", [
    ("D0 R4\n", r"probes.map:1: expected 'probe = SIGNAL'"),
    ("D0 = R4\nD0 = R5\n", r"probes.map:2: probe 'D0' is mapped twice"),
    ("D0 = R4\nD1 = R4\n", r"probes.map:2: signal 'R4' is already mapped on line 1"),
    ("# nothing\n", r"probes.map: channel map has no"),
])
def test_malformed_map_names_file_and_line(text, message):
    with pytest.raises(CaptureError, match=message):
        parse_channel_map(text, "probes.map")


def test_applying_a_map_keeps_renames_and_reorders_channels():
    cap = MemoryCapture.from_edges(["D0", "D1", "D2"], 1000,
                                   [(0, "D0", 1), (5, "D1", 1), (7, "D2", 1), (9, "D0", 0)], 20)
    mapped = apply_channel_map(cap, {"D2": "SPK", "D0": "DRV"}).to_memory()
    assert mapped.channels == ["SPK", "DRV"]
    # D1's change at 5 disappears: nothing mapped changed there.
    assert mapped.times.tolist() == [0, 7, 9]
    assert mapped.words.tolist() == [0b10, 0b11, 0b01]


def test_unknown_probe_names_the_map_and_lists_the_channels(tmp_path):
    path = tmp_path / "probes.map"
    path.write_text("D9 = R4\n")
    with pytest.raises(CaptureError, match=r"probes.map: probe 'D9' is not in .*capture.sr "
                                           r"\(channels: R0, R1"):
        open_capture(DATA / "tower_test" / "capture.sr", channel_map=path)


def test_open_capture_applies_a_map_file(tmp_path):
    path = tmp_path / "probes.map"
    path.write_text("R10 = SPK\nR4 = DRV_EN_N\n")
    cap = open_capture(DATA / "tower_test" / "capture.sr", channel_map=path)
    full = open_capture(DATA / "tower_test" / "capture.sr").to_memory()
    mem = cap.to_memory()
    assert cap.channels == ["SPK", "DRV_EN_N"]
    expect = ((full.words >> np.uint64(10)) & np.uint64(1)) | (
        ((full.words >> np.uint64(4)) & np.uint64(1)) << np.uint64(1))
    keep = np.concatenate([[True], expect[1:] != expect[:-1]])
    assert np.array_equal(mem.times, full.times[keep])
    assert np.array_equal(mem.words, expect[keep])


def test_missing_map_file_is_a_clear_error(tmp_path):
    with pytest.raises(CaptureError, match="nope.map: cannot read channel map"):
        load_channel_map(tmp_path / "nope.map")


def test_tower_signal_check_accepts_pin_names_and_sync():
    from captures.channelmap import check_tower_signals
    check_tower_signals({"D0": "R10", "D1": "SENSOR", "D7": "SYNC"}, "probes.map")


def test_tower_signal_check_names_the_map_the_probe_and_the_likely_pin():
    from captures.channelmap import check_tower_signals
    with pytest.raises(CaptureError, match=r"probes.map: D3 = k8: unknown signal 'k8' "
                                           r"\(did you mean 'K8'\?"):
        check_tower_signals({"D0": "R10", "D3": "k8"}, "probes.map")
