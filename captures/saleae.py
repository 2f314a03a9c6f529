"""Import Saleae Logic 2 digital exports: ``digital.csv`` and binary ``digital_N.bin`` v0/v1.

Layouts (Saleae "Binary Export Format - Logic 2" and its 2025 update, as summarised in
capture-formats.md §1.5; all little-endian):

- ``digital.csv``: header ``Time [s],Channel 0,Channel 1,...``, then one row per transition
  (``0.000016460,0,1``); the first row gives the initial levels; ``X`` = no data (2025).
- binary v0, one file per channel: ``"<SALEAE>"``, i32 version=0, i32 type=0 (digital),
  u32 initial_state, f64 begin_time, f64 end_time, u64 n, f64[n] transition times (s); the
  level toggles at each transition.
- binary v1: ``"<SALEAE>"``, i32 version=1, i32 type=0, u64 chunk_count, then per chunk
  u32 initial_state, f64 sample_rate (Hz), f64 begin, f64 end, u64 n, f64[n]; time between
  chunks has no data (a gap).

Saleae exports carry no samplerate (except v1): it is taken as 1 / the largest step that every
time is a whole multiple of (times read to the nanosecond), e.g. times on a 4 us grid give
250 kHz. Sample 0 is the first time of the export (Saleae times may be negative: the offset
in seconds is kept as ``meta["time_offset_s"]``). Exports are read into memory (a channel's
transitions are one array), which suits the seconds-to-minutes tower sessions they hold.
Channel names are Saleae's (``Channel 0``); use a channel map to name the tower signals.
"""
from __future__ import annotations

import math
import os
import re
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import BinaryIO

import numpy as np
from construct import (Bytes, ConstructError, Float64l, Int32sl, Int32ul, Int64ul,
                       Struct)

from captures.formats import Source, open_source, source_name
from captures.model import Capture, CaptureError, CaptureInfo, Gap, MemoryCapture

__all__ = ["MAGIC", "V0_HEADER", "V1_HEADER", "V1_CHUNK", "read_saleae_csv", "read_saleae_bin",
           "read_saleae_bin_files"]

MAGIC = b"<SALEAE>"
V0_HEADER = Struct("magic" / Bytes(8), "version" / Int32sl, "type" / Int32sl,
                   "initial_state" / Int32ul, "begin_time" / Float64l, "end_time" / Float64l,
                   "num_transitions" / Int64ul)
V1_HEADER = Struct("magic" / Bytes(8), "version" / Int32sl, "type" / Int32sl,
                   "chunk_count" / Int64ul)
V1_CHUNK = Struct("initial_state" / Int32ul, "sample_rate" / Float64l, "begin_time" / Float64l,
                  "end_time" / Float64l, "num_transitions" / Int64ul)
_MAX_TIME_S = 1e7                 # ~4 months: anything beyond is a damaged number
_NS = 10 ** 9


def _rate_from_grid(offsets_ns: np.ndarray, name: str) -> tuple[float, int]:
    """Return (samplerate in Hz, grid step in ns) for times (ns from the start)."""
    step = int(np.gcd.reduce(offsets_ns)) if len(offsets_ns) else 0
    if step <= 0:
        step = 1000        # a single row says nothing about the rate: assume 1 MHz
    return _NS / step, step


def _build(name: str, channels: list[str], events: list[tuple[np.ndarray, np.ndarray]],
           start_ns: int, step_ns: int, rate: float, end_ns: int, gaps: list[Gap],
           meta: dict) -> MemoryCapture:
    """Merge per-channel level events (ns times, absolute levels) into one capture."""
    all_t, all_toggle = [], []
    for ch, (t_ns, levels) in enumerate(events):
        if not len(t_ns):
            continue
        prev = np.concatenate([[0], levels[:-1]])
        toggles = levels != prev
        all_t.append(t_ns[toggles])
        all_toggle.append(np.full(int(toggles.sum()), 1 << ch, dtype=np.uint64))
    times_ns = np.concatenate(all_t) if all_t else np.zeros(0, np.int64)
    bits = np.concatenate(all_toggle) if all_toggle else np.zeros(0, np.uint64)
    order = np.argsort(times_ns, kind="stable")
    samples = (times_ns[order] - start_ns) // step_ns
    words = np.bitwise_xor.accumulate(bits[order]) if len(bits) else bits
    samples = np.concatenate([[0], samples]).astype(np.int64)
    words = np.concatenate([np.zeros(1, np.uint64), words]).astype(np.uint64)
    last_of_sample = np.ones(len(samples), dtype=bool)
    last_of_sample[:-1] = samples[1:] != samples[:-1]
    samples, words = samples[last_of_sample], words[last_of_sample]
    keep = np.ones(len(words), dtype=bool)
    keep[1:] = words[1:] != words[:-1]
    samples, words = samples[keep], words[keep]
    if samples[0] != 0:
        samples = np.concatenate([[0], samples])
        words = np.concatenate([np.zeros(1, np.uint64), words])
    total = max(int(samples[-1]) + 1, (end_ns - start_ns) // step_ns)
    info = CaptureInfo(channels, rate, total, meta)
    return MemoryCapture(info, samples, words, gaps)


def _seconds_to_ns(value: str, where: str) -> int:
    try:
        d = Decimal(value.strip())
    except InvalidOperation:
        raise CaptureError(f"{where}: time {value.strip()[:20]!r} is not a number of "
                           "seconds") from None
    if not d.is_finite() or abs(d) > _MAX_TIME_S:
        raise CaptureError(f"{where}: time {value.strip()[:20]!r} is out of range")
    return int((d * _NS).to_integral_value())


def read_saleae_csv(source: Source) -> Capture:
    """Read a Saleae Logic 2 ``digital.csv`` export (a path or binary file object)."""
    name = source_name(source)
    with open_source(source) as f:
        data = f.read()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CaptureError(f"{name}: not UTF-8 text") from None
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise CaptureError(f"{name}: empty file (expected a 'Time [s],Channel 0,...' header)")
    header = [c.strip().strip('"') for c in lines[0].split(",")]
    if header[0] != "Time [s]" or len(header) < 2:
        raise CaptureError(f"{name}:1: header must be 'Time [s],<channel>,...', got "
                           f"{lines[0][:40]!r}")
    channels = header[1:]
    if len(channels) > 64 or len(set(channels)) != len(channels) or not all(channels):
        raise CaptureError(f"{name}:1: channel names must be 1..64 unique non-empty names")
    width = len(header)
    times: list[int] = []
    rows: list[list[int]] = []
    for n, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        cells = line.split(",")
        if len(cells) != width:
            raise CaptureError(f"{name}:{n}: {len(cells)} fields, expected {width}")
        t = _seconds_to_ns(cells[0], f"{name}:{n}")
        if times and t < times[-1]:
            raise CaptureError(f"{name}:{n}: time goes backwards")
        levels = []
        for cell in cells[1:]:
            c = cell.strip()
            if c not in ("0", "1", "X", "x"):
                raise CaptureError(f"{name}:{n}: level {c[:10]!r} is not 0, 1 or X")
            levels.append(-1 if c in "Xx" else int(c))
        times.append(t)
        rows.append(levels)
    if not times:
        raise CaptureError(f"{name}: no data rows after the header")
    t_ns = np.array(times, dtype=np.int64)
    start = int(t_ns[0])
    rate, step = _rate_from_grid(t_ns - start, name)
    table = np.array(rows, dtype=np.int8)
    # Rows where every channel is X have no data: a gap until the next row (levels kept).
    all_x = np.all(table < 0, axis=1)
    gaps: list[Gap] = []
    for i in np.flatnonzero(all_x):
        s = (int(t_ns[i]) - start) // step
        e = (int(t_ns[i + 1]) - start) // step if i + 1 < len(t_ns) else s
        gaps.append(Gap(s, e, "no data (X in the Saleae export)"))
    events = []
    for ch in range(len(channels)):
        col = table[:, ch].astype(np.int64)
        keep = ~all_x
        col = np.where(col < 0, 0, col)[keep]
        events.append((t_ns[keep], col))
    meta = {"time_offset_s": start / _NS, "source_format": "saleae digital.csv"}
    return _build(name, channels, events, start, step, rate, int(t_ns[-1]), gaps, meta)


def _read_channel(f: BinaryIO, name: str) -> tuple[list[tuple[int, float, float, float,
                                                              np.ndarray]], int]:
    """Read one binary channel file: a list of chunks (initial, rate, begin, end, times)."""
    head = f.read(16)
    if len(head) < 16 or not head.startswith(MAGIC):
        raise CaptureError(f"{name}: not a Saleae binary export (no <SALEAE> header)")
    version = int.from_bytes(head[8:12], "little", signed=True)
    kind = int.from_bytes(head[12:16], "little", signed=True)
    if kind != 0:
        raise CaptureError(f"{name}: Saleae export type {kind} is not digital (expected 0)")
    chunks = []
    try:
        if version == 0:
            h = V0_HEADER.parse(head + _need(f, V0_HEADER.sizeof() - 16, name))
            chunks.append(_chunk_data(f, name, h.initial_state, None, h.begin_time,
                                      h.end_time, h.num_transitions))
        elif version == 1:
            h = V1_HEADER.parse(head + _need(f, 8, name))
            if h.chunk_count > 1 << 20:
                raise CaptureError(f"{name}: chunk count {h.chunk_count} is damaged")
            for _ in range(h.chunk_count):
                c = V1_CHUNK.parse(_need(f, V1_CHUNK.sizeof(), name))
                chunks.append(_chunk_data(f, name, c.initial_state, c.sample_rate,
                                          c.begin_time, c.end_time, c.num_transitions))
        else:
            raise CaptureError(f"{name}: Saleae binary version {version} is not supported "
                               "(expected 0 or 1)")
    except ConstructError as exc:
        raise CaptureError(f"{name}: damaged header ({str(exc)[:60]})") from None
    if f.read(1):
        raise CaptureError(f"{name}: extra bytes after the last transition")
    return chunks, version


def _need(f: BinaryIO, n: int, name: str) -> bytes:
    here = f.tell()
    size = f.seek(0, 2)
    f.seek(here)
    if n > size - here:
        raise CaptureError(f"{name}: file ends early (truncated Saleae export)")
    data = f.read(n)
    if len(data) < n:
        raise CaptureError(f"{name}: file ends early (truncated Saleae export)")
    return data


def _chunk_data(f: BinaryIO, name: str, initial: int, rate: float | None, begin: float,
                end: float, n: int) -> tuple[int, float | None, float, float, np.ndarray]:
    if initial not in (0, 1):
        raise CaptureError(f"{name}: initial_state {initial} is not 0 or 1")
    for value in (begin, end):
        if not math.isfinite(value) or abs(value) > _MAX_TIME_S:
            raise CaptureError(f"{name}: time {value} is out of range")
    if end < begin:
        raise CaptureError(f"{name}: end_time {end} is before begin_time {begin}")
    if rate is not None and not (math.isfinite(rate) and 1 <= rate <= 1e10):
        raise CaptureError(f"{name}: sample_rate {rate} is not 1 Hz..10 GHz")
    if n > 1 << 32:
        raise CaptureError(f"{name}: transition count {n} is damaged")
    times = np.frombuffer(_need(f, 8 * n, name), dtype="<f8")
    if n and (not np.all(np.isfinite(times)) or np.any(np.diff(times) < 0)
              or times[0] < begin - 1e-9 or times[-1] > end + 1e-9):
        raise CaptureError(f"{name}: transition times are not increasing within "
                           f"{begin}..{end} s")
    return initial, rate, begin, end, times


def _channel_name(path: Path) -> str:
    m = re.search(r"(\d+)$", path.stem)
    return f"Channel {m.group(1)}" if m else path.stem


def read_saleae_bin(path: str | os.PathLike) -> Capture:
    """Read a Saleae binary export: a folder of ``digital_N.bin`` or one such file."""
    p = Path(path)
    if p.is_dir():
        files = sorted(p.glob("digital_*.bin"),
                       key=lambda q: (len(q.stem), q.stem))
        if not files:
            raise CaptureError(f"{os.fspath(path)}: no digital_N.bin files in this folder")
    else:
        files = [p]
    return read_saleae_bin_files(files)


def read_saleae_bin_files(files: list) -> Capture:
    """Read binary channel files (paths, one per channel, in channel order) into a capture."""
    if not 1 <= len(files) <= 64:
        raise CaptureError(f"Saleae export has {len(files)} channel files (expected 1..64)")
    per_channel = []
    versions = set()
    for path in files:
        with open_source(path) as f:
            chunks, version = _read_channel(f, source_name(path))
        per_channel.append(chunks)
        versions.add(version)
    name = os.fspath(Path(files[0]).parent) if len(files) > 1 else source_name(files[0])
    starts = [c[2] for chunks in per_channel for c in chunks]
    ends = [c[3] for chunks in per_channel for c in chunks]
    if not starts:
        raise CaptureError(f"{name}: Saleae export has no data chunks")
    start_ns = round(min(starts) * _NS)
    end_ns = round(max(ends) * _NS)
    rates = {c[1] for chunks in per_channel for c in chunks if c[1] is not None}
    if len(rates) > 1:
        raise CaptureError(f"{name}: chunks have different sample rates "
                           f"({', '.join(str(r) for r in sorted(rates))} Hz)")
    events = []
    gaps: list[Gap] = []
    grid = []
    for chunks in per_channel:
        ts, lv = [], []
        prev_end = None
        for initial, _, begin, end, times in chunks:
            t_ns = np.rint(np.concatenate([[begin], times]) * _NS).astype(np.int64)
            levels = (initial + np.arange(len(t_ns))) % 2
            ts.append(t_ns)
            lv.append(levels.astype(np.int64))
            if prev_end is not None and begin > prev_end:
                gaps.append((round(prev_end * _NS), round(begin * _NS)))
            prev_end = end
        t_all = np.concatenate(ts)
        if np.any(np.diff(t_all) < 0):
            raise CaptureError(f"{name}: chunks overlap in time")
        events.append((t_all, np.concatenate(lv)))
        grid.append(t_all - start_ns)
    if rates:
        rate = rates.pop()
        step = _NS / rate
        if not float(step).is_integer():
            raise CaptureError(f"{name}: sample rate {rate} Hz is not a whole number of ns "
                               "per sample (not supported)")
        step = int(step)
    else:
        rate, step = _rate_from_grid(np.concatenate(grid + [np.array([end_ns - start_ns])]),
                                     name)
    model_gaps = sorted({Gap((s - start_ns) // step, (e - start_ns) // step,
                             "no data between Saleae chunks") for s, e in gaps},
                        key=lambda g: (g.start, g.end))
    meta = {"time_offset_s": start_ns / _NS,
            "source_format": f"saleae binary v{min(versions)}"}
    channels = [_channel_name(Path(f)) for f in files]
    if len(set(channels)) != len(channels):
        channels = [f"Channel {i}" for i in range(len(files))]
    return _build(name, channels, events, start_ns, step, rate, end_ns, model_gaps, meta)
