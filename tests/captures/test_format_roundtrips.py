"""Round-trip properties (hypothesis): every writable format gives back what was written.

More examples: TOWERLAB_HYPOTHESIS_EXAMPLES=1000 pytest tests/captures/test_format_roundtrips.py
"""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from captures.formats import open_capture, write_capture
from capfmt_helpers import captures, same_changes
from saleae_fixture_writer import write_bin

EXAMPLES = int(os.environ.get("TOWERLAB_HYPOTHESIS_EXAMPLES", 60))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


def _check_round_trip(cap, path):
    note(f"channels={cap.channels} rate={cap.samplerate} total={cap.info.total_samples} "
         f"times={cap.times.tolist()} words={cap.words.tolist()} gaps={cap.gaps}")
    write_capture(cap, path)
    back = open_capture(path)
    assert back.channels == cap.channels
    assert back.samplerate == cap.samplerate
    assert back.info.total_samples == cap.info.total_samples
    assert same_changes(back, cap)
    assert back.gaps == cap.gaps
    assert back.warnings == []


@pytest.mark.parametrize("ext", [".sr", ".vcd", ".tlc", ".jsonl.gz"])
@SETTINGS
@given(cap=captures())
def test_random_capture_round_trips_unchanged(tmp_path, ext, cap):
    _check_round_trip(cap, tmp_path / f"rt{ext}")


@SETTINGS
@given(cap=captures(max_channels=64, max_changes=10, with_gaps=False))
def test_up_to_64_channels_round_trip_through_sr(tmp_path, cap):
    _check_round_trip(cap, tmp_path / "wide.sr")


@SETTINGS
@given(cap=captures(max_channels=8, with_gaps=False,
                    rates=st.sampled_from([1_000.0, 250_000.0, 1_000_000.0])))
def test_saleae_binary_v1_fixture_reads_back_unchanged(tmp_path, cap):
    folder = tmp_path / "sal"
    folder.mkdir(exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    write_bin(cap, folder, version=1)
    back = open_capture(folder)
    assert back.samplerate == cap.samplerate
    assert back.info.total_samples == cap.info.total_samples
    assert same_changes(back, cap)
