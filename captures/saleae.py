"""Import Saleae Logic 2 digital exports: ``digital.csv`` and binary ``digital_N.bin`` v0/v1.

Layouts (Saleae "Binary Export Format - Logic 2" and its 2025 update, as summarised in
docs/capture-formats.md §1.5; all little-endian):

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
in seconds is kept as ``meta["time_offset_s"]``). Channel names are Saleae's (``Channel 0``);
use a channel map to name the tower signals.

Exports are streamed in bounded memory, however long they are. Opening makes one checking pass
(every error is raised there, before any change is handed on; it also finds the time grid and
the gaps); each ``changes()`` pass then reads the files again in blocks of ``block``
transitions (binary: per channel; csv: rows). Binary channels are decoded each into its own
stream of toggle samples and merged in time order (a k-way merge over the per-channel block
streams: every round hands on all toggles up to the earliest last-buffered sample of any
channel, so no sample is split between rounds).

Example::

    cap = read_saleae_bin("export/")            # folder of digital_0.bin, digital_1.bin, ...
    for block in cap.changes():                  # Changes of at most a few block sizes each
        ...
"""
from __future__ import annotations

import codecs
import math
import os
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import BinaryIO, Iterable, Iterator, NamedTuple

import numpy as np
from construct import (Bytes, ConstructError, Float64l, Int32sl, Int32ul, Int64ul,
                       Struct)

from captures.source import Source, open_source, source_name
from captures.model import Capture, CaptureError, CaptureInfo, Changes, Gap

__all__ = ["MAGIC", "V0_HEADER", "V1_HEADER", "V1_CHUNK", "BLOCK", "read_saleae_csv",
           "read_saleae_export_csv", "read_saleae_bin", "read_saleae_bin_files"]

MAGIC = b"<SALEAE>"
V0_HEADER = Struct("magic" / Bytes(8), "version" / Int32sl, "type" / Int32sl,
                   "initial_state" / Int32ul, "begin_time" / Float64l, "end_time" / Float64l,
                   "num_transitions" / Int64ul)
V1_HEADER = Struct("magic" / Bytes(8), "version" / Int32sl, "type" / Int32sl,
                   "chunk_count" / Int64ul)
V1_CHUNK = Struct("initial_state" / Int32ul, "sample_rate" / Float64l, "begin_time" / Float64l,
                  "end_time" / Float64l, "num_transitions" / Int64ul)
# Transitions held at once while reading a binary export (shared by all channels).
BLOCK = 1 << 17
_CSV_ROWS = 1 << 14               # csv rows parsed at once (each costs ~100 bytes of lists)
_MIN_CHANNEL_BLOCK = 1024         # per binary channel, however many channels there are
_TEXT_READ = 1 << 16              # bytes of csv decoded at once
_MAX_TIME_S = 1e7                 # ~4 months: anything beyond is a damaged number
_NS = 10 ** 9
_NO_GRID_STEP = 1000              # a single time says nothing about the rate: assume 1 MHz
_EMPTY_T = np.zeros(0, np.int64)


# -- shared: turning (sample, word) runs into change blocks ----------------------------------

class _Emitter:
    """Turn increasing (sample, word) runs into Changes: the first change is at sample 0
    (all-low before any data), and a word equal to the previous one is dropped."""

    def __init__(self) -> None:
        self.prev: int | None = None

    def push(self, times: np.ndarray, words: np.ndarray) -> Changes | None:
        """Return the changes among ``times``/``words`` (samples after every earlier push)."""
        if not len(times):
            return None
        if self.prev is None:
            if times[0] != 0:
                times = np.concatenate([[0], times]).astype(np.int64)
                words = np.concatenate([np.zeros(1, np.uint64), words]).astype(np.uint64)
            keep = np.ones(len(words), dtype=bool)
            keep[1:] = words[1:] != words[:-1]
        else:
            keep = np.empty(len(words), dtype=bool)
            keep[0] = int(words[0]) != self.prev
            np.not_equal(words[1:], words[:-1], out=keep[1:])
        self.prev = int(words[-1])
        if not keep.any():
            return None
        return Changes(times[keep].astype(np.int64, copy=False),
                       words[keep].astype(np.uint64, copy=False))

    def finish(self) -> Changes | None:
        """Return the all-low change at sample 0 if nothing was pushed at all."""
        if self.prev is not None:
            return None
        self.prev = 0
        return Changes(np.zeros(1, np.int64), np.zeros(1, np.uint64))


def _last_of_sample(times: np.ndarray) -> np.ndarray:
    """Return a mask of the last entry of each run of equal samples in sorted ``times``."""
    last = np.ones(len(times), dtype=bool)
    last[:-1] = times[1:] != times[:-1]
    return last


def _gcd_from(values: np.ndarray, ref: int) -> int:
    """Return the gcd of ``values - ref`` (ns), 0 if every value equals ``ref``."""
    return int(np.gcd.reduce(values - ref)) if len(values) else 0


def _seconds_to_ns(value: str, where: str) -> int:
    """Convert a csv time cell (seconds, exact decimal) to whole ns; ``where`` names the
    file and line in errors."""
    try:
        d = Decimal(value.strip())
    except InvalidOperation:
        raise CaptureError(f"{where}: time {value.strip()[:20]!r} is not a number of "
                           "seconds") from None
    if not d.is_finite() or abs(d) > _MAX_TIME_S:
        raise CaptureError(f"{where}: time {value.strip()[:20]!r} is out of range")
    return int((d * _NS).to_integral_value())


# -- digital.csv --------------------------------------------------------------------------

def _check_utf8(f: BinaryIO, name: str) -> None:
    """Raise CaptureError unless the whole file decodes as UTF-8 (read in bounded pieces)."""
    dec = codecs.getincrementaldecoder("utf-8-sig")()
    try:
        while True:
            data = f.read(_TEXT_READ)
            dec.decode(data, final=not data)
            if not data:
                return
    except UnicodeDecodeError:
        raise CaptureError(f"{name}: not UTF-8 text") from None


def _text_lines(f: BinaryIO, name: str) -> Iterator[tuple[int, str]]:
    """Yield (line number from 1, line without its end) like ``str.splitlines`` of the whole
    decoded file, reading it in pieces of _TEXT_READ bytes."""
    dec = codecs.getincrementaldecoder("utf-8-sig")()
    carry = ""
    n = 0
    while True:
        data = f.read(_TEXT_READ)
        try:
            text = carry + dec.decode(data, final=not data)
        except UnicodeDecodeError:
            raise CaptureError(f"{name}: not UTF-8 text") from None
        pieces = text.splitlines(keepends=True)
        carry = ""
        if data and pieces:
            tail = pieces[-1]
            # A piece without its line end, or ending in "\r" (maybe half of "\r\n"), waits.
            if tail.endswith("\r") or len(tail.splitlines()[0]) == len(tail):
                carry = pieces.pop()
        for piece in pieces:
            n += 1
            yield n, piece.splitlines()[0]
        if not data:
            return


def _csv_header(lines: Iterator[tuple[int, str]], name: str) -> list[str]:
    """Read the header line; return the channel names."""
    first = next(lines, None)
    if first is None or not first[1].strip():
        raise CaptureError(f"{name}: empty file (expected a 'Time [s],Channel 0,...' header)")
    line = first[1]
    header = [c.strip().strip('"') for c in line.split(",")]
    if header[0] != "Time [s]" or len(header) < 2:
        raise CaptureError(f"{name}:1: header must be 'Time [s],<channel>,...', got "
                           f"{line[:40]!r}")
    channels = header[1:]
    if len(channels) > 64 or len(set(channels)) != len(channels) or not all(channels):
        raise CaptureError(f"{name}:1: channel names must be 1..64 unique non-empty names")
    return channels


def _csv_rows(lines: Iterator[tuple[int, str]], name: str, width: int,
              block: int) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Yield blocks of data rows as (times ns int64, packed levels uint64 with X as 0,
    all-X mask); raise CaptureError naming the file and line of the first bad row."""
    times: list[int] = []
    words: list[int] = []
    all_x: list[bool] = []
    last_t: int | None = None
    for n, line in lines:
        if not line.strip():
            continue
        cells = line.split(",")
        if len(cells) != width:
            raise CaptureError(f"{name}:{n}: {len(cells)} fields, expected {width}")
        t = _seconds_to_ns(cells[0], f"{name}:{n}")
        if last_t is not None and t < last_t:
            raise CaptureError(f"{name}:{n}: time goes backwards")
        word, xs = 0, 0
        for i, cell in enumerate(cells[1:]):
            c = cell.strip()
            if c == "1":
                word |= 1 << i
            elif c in ("X", "x"):
                xs += 1
            elif c != "0":
                raise CaptureError(f"{name}:{n}: level {c[:10]!r} is not 0, 1 or X")
        last_t = t
        times.append(t)
        words.append(word)
        all_x.append(xs == width - 1)
        if len(times) >= block:
            yield (np.array(times, np.int64), np.array(words, np.uint64),
                   np.array(all_x, bool))
            times, words, all_x = [], [], []
    if times:
        yield np.array(times, np.int64), np.array(words, np.uint64), np.array(all_x, bool)


@dataclass
class _CsvScan:
    """What the checking pass over a digital.csv learns (times in ns)."""
    start: int | None = None
    last: int = 0
    grid: int = 0                          # gcd of (time - start)
    gap_rows: list[list[int]] = field(default_factory=list)   # [time, next time or None]
    word: int = 0                          # levels after the last row with data
    word_before_last_time: int = 0         # levels before the rows at the last time

    def add(self, t: np.ndarray, w: np.ndarray, x: np.ndarray) -> None:
        """Take in one block of rows."""
        if self.start is None:
            self.start = self.last = int(t[0])
            self.word_before_last_time = 0
        if self.gap_rows and self.gap_rows[-1][1] is None:
            self.gap_rows[-1][1] = int(t[0])
        for i in np.flatnonzero(x).tolist():
            self.gap_rows.append([int(t[i]), int(t[i + 1]) if i + 1 < len(t) else None])
        self.grid = math.gcd(self.grid, _gcd_from(t, self.start))
        last_t = int(t[-1])
        if last_t != self.last:                     # a new time group starts in this block
            first = int(np.searchsorted(t, last_t, side="left"))
            data = np.flatnonzero(~x[:first])
            self.word_before_last_time = int(w[data[-1]]) if len(data) else self.word
        data = np.flatnonzero(~x)
        if len(data):
            self.word = int(w[data[-1]])
        self.last = last_t


def read_saleae_export_csv(path: str | os.PathLike) -> Capture:
    """Open a ``digital.csv`` export given as the file or as the export folder holding it."""
    p = Path(path)
    return read_saleae_csv(p / "digital.csv" if p.is_dir() else p)


def read_saleae_csv(source: Source, *, block: int = _CSV_ROWS) -> Capture:
    """Open a Saleae Logic 2 ``digital.csv`` export (a path or seekable binary file object)
    as a streaming Capture, reading ``block`` rows at a time; raise CaptureError naming the
    file and line on any problem."""
    name = source_name(source)
    if block < 1:
        raise CaptureError(f"block size {block} must be at least 1 row")
    with open_source(source) as f:
        _check_utf8(f, name)
    scan = _CsvScan()
    with open_source(source) as f:
        lines = _text_lines(f, name)
        channels = _csv_header(lines, name)
        width = len(channels) + 1
        for t, w, x in _csv_rows(lines, name, width, block):
            scan.add(t, w, x)
    if scan.start is None:
        raise CaptureError(f"{name}: no data rows after the header")
    start = scan.start
    step = scan.grid if scan.grid > 0 else _NO_GRID_STEP
    rate = _NS / step
    # Rows where every channel is X have no data: a gap until the next row (levels kept).
    gaps = []
    for t, nxt in scan.gap_rows:
        s = (t - start) // step
        gaps.append(Gap(s, (nxt - start) // step if nxt is not None else s,
                        "no data (X in the Saleae export)"))
    # Every time is on the grid, so only rows at the last time fall in the last sample.
    last_sample = (scan.last - start) // step
    changes_at_last = last_sample > 0 and scan.word != scan.word_before_last_time
    total = max(1, last_sample + 1 if changes_at_last else last_sample)
    meta = {"time_offset_s": start / _NS, "source_format": "saleae digital.csv"}
    info = CaptureInfo(channels, rate, total, meta)

    def factory() -> Iterator[Changes]:
        emit = _Emitter()
        pend_t, pend_w = _EMPTY_T, np.zeros(0, np.uint64)   # the last sample, may continue
        with open_source(source) as f:
            lines = _text_lines(f, name)
            _csv_header(lines, name)
            for t, w, x in _csv_rows(lines, name, width, block):
                samples = np.concatenate([pend_t, (t[~x] - start) // step])
                words = np.concatenate([pend_w, w[~x]])
                if not len(samples):
                    continue
                last = _last_of_sample(samples)
                samples, words = samples[last], words[last]
                pend_t, pend_w = samples[-1:], words[-1:]
                out = emit.push(samples[:-1], words[:-1])
                if out is not None:
                    yield out
        for out in (emit.push(pend_t, pend_w), emit.finish()):
            if out is not None:
                yield out

    return Capture(info, factory, gaps)


# -- binary digital_N.bin ------------------------------------------------------------------

class _Chunk(NamedTuple):
    """One chunk of a binary channel file; ``offset`` is the byte offset of its times."""
    initial: int
    rate: float | None
    begin: float
    end: float
    count: int
    offset: int


@dataclass
class _ChannelScan:
    """What the checking pass over one binary channel file learns (times in ns)."""
    source: Source
    name: str
    version: int = 0
    chunks: list[_Chunk] = field(default_factory=list)
    first: int | None = None     # time of the first event (begin of the first chunk)
    grid: int = 0                # gcd of (event time - first)
    last: int | None = None      # time of the latest event so far
    overlap: bool = False        # an event before an earlier one (chunks overlap)

    def add_times(self, t_ns: np.ndarray) -> None:
        """Take in event times (ns, non-decreasing within the call)."""
        if not len(t_ns):
            return
        if self.first is None:
            self.first = int(t_ns[0])
        if self.last is not None and int(t_ns[0]) < self.last:
            self.overlap = True
        self.last = int(t_ns[-1])
        self.grid = math.gcd(self.grid, _gcd_from(t_ns, self.first))


def _to_ns(seconds: np.ndarray) -> np.ndarray:
    """Convert times in seconds to whole ns (rounded half to even)."""
    return np.rint(seconds * _NS).astype(np.int64)


def _need(f: BinaryIO, n: int, name: str) -> bytes:
    """Read exactly ``n`` bytes or raise CaptureError (checked against the file size first,
    so a damaged count never allocates)."""
    here = f.tell()
    size = f.seek(0, 2)
    f.seek(here)
    if n > size - here:
        raise CaptureError(f"{name}: file ends early (truncated Saleae export)")
    data = f.read(n)
    if len(data) < n:
        raise CaptureError(f"{name}: file ends early (truncated Saleae export)")
    return data


def _read_times(f: BinaryIO, chunk: _Chunk, lo: int, hi: int, name: str) -> np.ndarray:
    """Return transition times ``lo``..``hi`` (exclusive) of ``chunk`` in seconds."""
    f.seek(chunk.offset + 8 * lo)
    return np.frombuffer(_need(f, 8 * (hi - lo), name), dtype="<f8")


def _scan_channel(f: BinaryIO, scan: _ChannelScan, block: int) -> None:
    """Check one binary channel file from its header to its end, filling ``scan``."""
    name = scan.name
    head = f.read(16)
    if len(head) < 16 or not head.startswith(MAGIC):
        raise CaptureError(f"{name}: not a Saleae binary export (no <SALEAE> header)")
    version = int.from_bytes(head[8:12], "little", signed=True)
    kind = int.from_bytes(head[12:16], "little", signed=True)
    if kind != 0:
        raise CaptureError(f"{name}: Saleae export type {kind} is not digital (expected 0)")
    scan.version = version
    try:
        if version == 0:
            h = V0_HEADER.parse(head + _need(f, V0_HEADER.sizeof() - 16, name))
            _scan_chunk(f, scan, block, h.initial_state, None, h.begin_time, h.end_time,
                        h.num_transitions)
        elif version == 1:
            h = V1_HEADER.parse(head + _need(f, 8, name))
            if h.chunk_count > 1 << 20:
                raise CaptureError(f"{name}: chunk count {h.chunk_count} is damaged")
            for _ in range(h.chunk_count):
                c = V1_CHUNK.parse(_need(f, V1_CHUNK.sizeof(), name))
                _scan_chunk(f, scan, block, c.initial_state, c.sample_rate, c.begin_time,
                            c.end_time, c.num_transitions)
        else:
            raise CaptureError(f"{name}: Saleae binary version {version} is not supported "
                               "(expected 0 or 1)")
    except ConstructError as exc:
        raise CaptureError(f"{name}: damaged header ({str(exc)[:60]})") from None
    if f.read(1):
        raise CaptureError(f"{name}: extra bytes after the last transition")


def _scan_chunk(f: BinaryIO, scan: _ChannelScan, block: int, initial: int,
                rate: float | None, begin: float, end: float, n: int) -> None:
    """Check one chunk's header and times (read ``block`` at a time); add it to ``scan``."""
    name = scan.name
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
    chunk = _Chunk(initial, rate, begin, end, n, f.tell())
    if 8 * n > f.seek(0, 2) - chunk.offset:
        raise CaptureError(f"{name}: file ends early (truncated Saleae export)")
    scan.chunks.append(chunk)
    scan.add_times(_to_ns(np.array([begin])))
    bad = CaptureError(f"{name}: transition times are not increasing within {begin}..{end} s")
    prev = begin - 1e-9
    for lo in range(0, n, block):
        times = _read_times(f, chunk, lo, min(n, lo + block), name)
        if (not np.all(np.isfinite(times)) or times[0] < prev
                or np.any(np.diff(times) < 0) or times[-1] > end + 1e-9):
            raise bad
        prev = float(times[-1])
        scan.add_times(_to_ns(times))
    f.seek(chunk.offset + 8 * n)


def _levels_before(chunks: list[_Chunk]) -> list[int]:
    """Return each chunk's level before its begin (0 before the first chunk)."""
    out, level = [], 0
    for c in chunks:
        out.append(level)
        level = (c.initial + c.count) % 2
    return out


def _tail_toggles(scan: _ChannelScan, threshold: int, block: int) -> list[int]:
    """Return the channel's toggle times (ns) at or after ``threshold``, read backwards."""
    out: list[int] = []
    before = _levels_before(scan.chunks)
    with open_source(scan.source) as f:
        for k in range(len(scan.chunks) - 1, -1, -1):
            c = scan.chunks[k]
            hi = c.count
            while hi > 0:
                lo = max(0, hi - block)
                t_ns = _to_ns(_read_times(f, c, lo, hi, scan.name))
                out.extend(t_ns[t_ns >= threshold].tolist())
                if t_ns[0] < threshold:
                    return out
                hi = lo
            begin = int(_to_ns(np.array([c.begin]))[0])
            if begin < threshold:
                return out
            if c.initial != before[k]:
                out.append(begin)
    return out


def _channel_toggles(scan: _ChannelScan, start: int, step: int,
                     block: int) -> Iterator[np.ndarray]:
    """Yield the channel's toggle samples in blocks (non-decreasing; a chunk begin toggles
    when its initial_state differs from the level before it)."""
    before = _levels_before(scan.chunks)
    with open_source(scan.source) as f:
        for c, level in zip(scan.chunks, before):
            if c.initial != level:
                yield (_to_ns(np.array([c.begin])) - start) // step
            for lo in range(0, c.count, block):
                times = _read_times(f, c, lo, min(c.count, lo + block), scan.name)
                yield (_to_ns(times) - start) // step


def _odd_toggles(blocks: Iterable[np.ndarray]) -> Iterator[np.ndarray]:
    """Yield the samples that occur an odd number of times in non-decreasing sample blocks,
    strictly increasing over all blocks (an even number of toggles in one sample cancels)."""
    carry = _EMPTY_T
    for b in blocks:
        if not len(b):
            continue
        s = np.concatenate([carry, b])
        cut = int(np.searchsorted(s, s[-1], side="left"))
        # The last sample may go on in the next block: keep back its parity only.
        carry = s[cut:cut + (len(s) - cut) % 2]
        out = _odd(s[:cut])
        if len(out):
            yield out
    if len(carry):
        yield carry


def _odd(s: np.ndarray) -> np.ndarray:
    """Return the distinct values of sorted ``s`` that occur an odd number of times."""
    if not len(s):
        return s
    starts = np.flatnonzero(np.concatenate([[True], s[1:] != s[:-1]]))
    counts = np.diff(np.concatenate([starts, [len(s)]]))
    return s[starts[counts % 2 == 1]]


def _merge(streams: list[Iterator[np.ndarray]]) -> Iterator[Changes]:
    """Merge per-channel streams of strictly increasing toggle samples (bit i = stream i)
    into change blocks: each round takes every buffered toggle up to the smallest last
    buffered sample of any channel, which no later block of any channel can reach."""
    bits = [np.uint64(1 << i) for i in range(len(streams))]
    bufs = [_EMPTY_T for _ in streams]
    live = [True for _ in streams]
    emit = _Emitter()
    word = np.uint64(0)
    while True:
        for i, stream in enumerate(streams):
            while live[i] and not len(bufs[i]):
                nxt = next(stream, None)
                if nxt is None:
                    live[i] = False
                else:
                    bufs[i] = nxt
        active = [i for i in range(len(streams)) if len(bufs[i])]
        if not active:
            break
        horizon = min(int(bufs[i][-1]) for i in active)
        parts_t, parts_b = [], []
        for i in active:
            cut = int(np.searchsorted(bufs[i], horizon, side="right"))
            parts_t.append(bufs[i][:cut])
            parts_b.append(np.full(cut, bits[i], dtype=np.uint64))
            bufs[i] = bufs[i][cut:]
        times = np.concatenate(parts_t)
        order = np.argsort(times, kind="stable")
        times = times[order]
        words = np.bitwise_xor.accumulate(np.concatenate(parts_b)[order]) ^ word
        word = words[-1]
        last = _last_of_sample(times)
        out = emit.push(times[last], words[last])
        if out is not None:
            yield out
    out = emit.finish()
    if out is not None:
        yield out


def _channel_name(path: Path) -> str:
    """Name a channel after the number that ends its file name (``digital_3`` -> Channel 3)."""
    m = re.search(r"(\d+)$", path.stem)
    return f"Channel {m.group(1)}" if m else path.stem


def _channel_block(block: int, channels: int) -> int:
    """Return the transitions read at once per channel for ``block`` over all channels."""
    if block < 1:
        raise CaptureError(f"block size {block} must be at least 1 transition")
    return max(min(block, _MIN_CHANNEL_BLOCK), block // channels)


def read_saleae_bin(path: str | os.PathLike, *, block: int = BLOCK) -> Capture:
    """Open a Saleae binary export (a folder of ``digital_N.bin`` or one such file) as a
    streaming Capture; ``block`` is the number of transitions held at once."""
    p = Path(path)
    if p.is_dir():
        files = sorted(p.glob("digital_*.bin"),
                       key=lambda q: (len(q.stem), q.stem))
        if not files:
            raise CaptureError(f"{os.fspath(path)}: no digital_N.bin files in this folder")
    else:
        files = [p]
    return read_saleae_bin_files(files, block=block)


def read_saleae_bin_files(files: list, *, block: int = BLOCK) -> Capture:
    """Open binary channel files (paths or seekable binary file objects, one per channel, in
    channel order) as one streaming Capture, holding about ``block`` transitions at once
    over all channels; raise CaptureError naming the file on any problem."""
    if not 1 <= len(files) <= 64:
        raise CaptureError(f"Saleae export has {len(files)} channel files (expected 1..64)")
    per_channel = _channel_block(block, len(files))
    scans = []
    for path in files:
        scan = _ChannelScan(path, source_name(path))
        with open_source(path) as f:
            _scan_channel(f, scan, per_channel)
        scans.append(scan)
    name = os.fspath(Path(files[0]).parent) if len(files) > 1 else source_name(files[0])
    chunks = [c for s in scans for c in s.chunks]
    if not chunks:
        raise CaptureError(f"{name}: Saleae export has no data chunks")
    start = round(min(c.begin for c in chunks) * _NS)
    end = round(max(c.end for c in chunks) * _NS)
    rates = {c.rate for c in chunks if c.rate is not None}
    if len(rates) > 1:
        raise CaptureError(f"{name}: chunks have different sample rates "
                           f"({', '.join(str(r) for r in sorted(rates))} Hz)")
    if any(s.overlap for s in scans):
        raise CaptureError(f"{name}: chunks overlap in time")
    if rates:
        rate = rates.pop()
        step_s = _NS / rate
        if not float(step_s).is_integer():
            raise CaptureError(f"{name}: sample rate {rate} Hz is not a whole number of ns "
                               "per sample (not supported)")
        step = int(step_s)
    else:
        # The start is one of the event times, so offsets from each channel's first event
        # span the same grid as offsets from the start.
        grid = abs(end - start)
        for s in scans:
            if s.first is not None:
                grid = math.gcd(grid, s.grid, abs(s.first - start))
        step = grid if grid > 0 else _NO_GRID_STEP
        rate = _NS / step
    gaps = set()
    for s in scans:
        for prev, c in zip(s.chunks, s.chunks[1:]):
            if c.begin > prev.end:
                gaps.add(Gap((round(prev.end * _NS) - start) // step,
                             (round(c.begin * _NS) - start) // step,
                             "no data between Saleae chunks"))
    model_gaps = sorted(gaps, key=lambda g: (g.start, g.end))
    # The length runs to the end time, or past the last change if one lies beyond it; a
    # change in a sample is any channel toggling an odd number of times there.
    last_sample = (end - start) // step
    threshold = start + last_sample * step
    total = max(1, last_sample)
    for s in scans:
        tail = np.array(_tail_toggles(s, threshold, per_channel), np.int64)
        odd = _odd(np.sort((tail - start) // step))
        if len(odd):
            total = max(total, int(odd[-1]) + 1)
    meta = {"time_offset_s": start / _NS,
            "source_format": f"saleae binary v{min(s.version for s in scans)}"}
    channels = [_channel_name(Path(source_name(f))) for f in files]
    if len(set(channels)) != len(channels):
        channels = [f"Channel {i}" for i in range(len(files))]
    info = CaptureInfo(channels, rate, total, meta)

    def factory() -> Iterator[Changes]:
        streams = [_odd_toggles(_channel_toggles(s, start, step, per_channel)) for s in scans]
        yield from _merge(streams)

    return Capture(info, factory, model_gaps)
