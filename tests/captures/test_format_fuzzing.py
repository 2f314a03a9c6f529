"""Fuzzing (hypothesis): random bytes and mutated valid files give a Capture or a CaptureError.

Each test counts the cases it ran and prints the count (see it with ``pytest -rP``).
More cases: TOWERLAB_HYPOTHESIS_EXAMPLES=2000 pytest tests/captures/test_format_fuzzing.py
"""
from __future__ import annotations

import gzip
import io
import os
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from captures.formats import open_capture
from captures.model import CaptureError, CaptureInfo, Gap, MemoryCapture
from captures.sigrok import write_sr
from captures.stream import StreamWriter, write_stream
from captures.edges import write_edges
from captures.vcd import write_vcd
from saleae_fixture_writer import write_bin, write_csv

EXAMPLES = int(os.environ.get("TOWERLAB_HYPOTHESIS_EXAMPLES", 150))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


def _seed_capture():
    info = CaptureInfo(["R4", "R10", "O7"], 250_000.0, 400, {"darktower": {"script": "fuzz"}})
    return MemoryCapture(info, np.array([0, 10, 11, 50, 300]),
                         np.array([1, 3, 2, 6, 0], np.uint64), [Gap(100, 120, "overrun")])


def _bytes_of(write) -> bytes:
    buf = io.BytesIO()
    write(_seed_capture(), buf)
    return buf.getvalue()


def _saleae(tmp, version):
    d = tmp / f"sal{version}"
    d.mkdir(exist_ok=True)
    if version == "csv":
        write_csv(_seed_capture(), d / "digital.csv")
        return (d / "digital.csv").read_bytes()
    return write_bin(_seed_capture(), d, version=version)[1].read_bytes()


SEEDS = {
    ".sr": lambda tmp: _bytes_of(write_sr),
    ".vcd": lambda tmp: _bytes_of(write_vcd),
    ".tlc": lambda tmp: _bytes_of(write_stream),
    ".jsonl.gz": lambda tmp: _bytes_of(write_edges),
    ".csv": lambda tmp: _saleae(tmp, "csv"),
    ".bin": lambda tmp: _saleae(tmp, 0),
    "_v1.bin": lambda tmp: _saleae(tmp, 1),
}
MAGICS = [b"", b"PK\x03\x04", b"TWRLBCAP\x01\x00", b"\x1f\x8b", b"<SALEAE>", b"Time [s],A\n",
          b"$timescale 1 us $end\n"]


def _must_open_or_refuse(path) -> str:
    """Open and read the whole file; return 'ok' or 'refused'; any other exception fails."""
    try:
        cap = open_capture(path)
        for _ in cap.changes():
            pass
        list(cap.gaps)
        return "ok"
    except CaptureError as exc:
        assert str(exc) and "\n" not in str(exc)
        return "refused"


@st.composite
def mutations(draw, data: bytes) -> bytes:
    """Apply 1-4 random edits (flip, overwrite, insert, delete, truncate) to ``data``."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "set", "insert", "delete", "truncate"]))
        pos = draw(st.integers(0, max(0, len(out) - 1)))
        if op == "flip" and out:
            out[pos] ^= 1 << draw(st.integers(0, 7))
        elif op == "set" and out:
            out[pos] = draw(st.integers(0, 255))
        elif op == "insert":
            out[pos:pos] = draw(st.binary(min_size=1, max_size=16))
        elif op == "delete":
            del out[pos:pos + draw(st.integers(1, 16))]
        elif op == "truncate":
            del out[pos:]
    return bytes(out)


@pytest.mark.parametrize("ext", list(SEEDS))
def test_mutated_valid_files_open_or_are_refused_cleanly(tmp_path, ext):
    seed = SEEDS[ext](tmp_path)
    path = tmp_path / f"fuzz{ext}"
    path.write_bytes(seed)
    assert _must_open_or_refuse(path) == "ok"
    counts = {"ok": 0, "refused": 0}

    @SETTINGS
    @given(data=st.data())
    def run(data):
        path.write_bytes(data.draw(mutations(seed)))
        counts[_must_open_or_refuse(path)] += 1

    run()
    print(f"{ext}: {sum(counts.values())} mutated files, {counts['ok']} opened, "
          f"{counts['refused']} refused")
    assert sum(counts.values()) >= EXAMPLES // 2


@pytest.mark.parametrize("ext", [".sr", ".vcd", ".tlc", ".jsonl.gz", ".csv", ".bin", ".dat"])
def test_random_bytes_open_or_are_refused_cleanly(tmp_path, ext):
    path = tmp_path / f"random{ext}"
    counts = {"ok": 0, "refused": 0}

    @SETTINGS
    @given(magic=st.sampled_from(MAGICS), body=st.binary(max_size=300))
    def run(magic, body):
        path.write_bytes(magic + body)
        counts[_must_open_or_refuse(path)] += 1

    run()
    print(f"random{ext}: {sum(counts.values())} files, {counts['ok']} opened, "
          f"{counts['refused']} refused")
    assert sum(counts.values()) >= EXAMPLES // 2


def test_truncated_stream_at_every_length_opens_or_is_refused(tmp_path):
    buf = io.BytesIO()
    with StreamWriter(buf, ["A", "B"], 1000.0) as w:
        small = MemoryCapture.from_edges(["A", "B"], 1000.0, [(0, "A", 1), (5, "B", 1)], 10)
        w.write_changes(next(small.changes()))
    data = buf.getvalue()
    path = tmp_path / "cut.tlc"
    results = set()
    for n in range(len(data) + 1):
        path.write_bytes(data[:n])
        results.add(_must_open_or_refuse(path))
    assert results == {"ok", "refused"}


def _zip_with_metadata(seed: bytes, metadata: bytes) -> bytes:
    src = zipfile.ZipFile(io.BytesIO(seed))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name in src.namelist():
            zf.writestr(name, metadata if name == "metadata" else src.read(name))
    return out.getvalue()


INSIDE = {
    # Mutate what the container protects (gzip CRC, zip CRC), then re-wrap it validly, so
    # the parsers behind the checksums get fuzzed too.
    "edges text": lambda seed, mutated: gzip.compress(mutated),
    "sr metadata": _zip_with_metadata,
}


@pytest.mark.parametrize("what", list(INSIDE))
def test_mutated_content_behind_checksums_opens_or_is_refused_cleanly(tmp_path, what):
    if what == "edges text":
        seed = SEEDS[".jsonl.gz"](tmp_path)
        inner = gzip.decompress(seed)
        path = tmp_path / "inner.jsonl.gz"
    else:
        seed = SEEDS[".sr"](tmp_path)
        inner = zipfile.ZipFile(io.BytesIO(seed)).read("metadata")
        path = tmp_path / "inner.sr"
    counts = {"ok": 0, "refused": 0}

    @SETTINGS
    @given(data=st.data())
    def run(data):
        path.write_bytes(INSIDE[what](seed, data.draw(mutations(inner))))
        counts[_must_open_or_refuse(path)] += 1

    run()
    print(f"{what}: {sum(counts.values())} mutated files, {counts['ok']} opened, "
          f"{counts['refused']} refused")
    assert sum(counts.values()) >= EXAMPLES // 2
