"""Write and read the TowerLab stream capture (``.tlc``), an append-only file that survives a
crash.

A probe or an emulator writes changes as they come; every chunk is checksummed and flushed, so
a file cut short by a crash, a full disk or an unplugged probe is readable up to its last whole
chunk. The reader then reports where the data stops: ``capture.warnings`` gets a line and
``capture.gaps`` ends with a zero-length ``Gap(S, S, "truncated after chunk N at sample S")``;
``info.total_samples`` is ``S``. A damaged chunk in the middle (a flipped bit on disk) is
skipped: the reader finds the next chunk whose number and CRC check out, and the samples
from the last good data to the first change after the damage become a gap (with a warning).

Layout (all little-endian; ``HEADER`` and ``CHUNK`` below are the ``construct`` definitions)::

    header  "TWRLBCAP" | u16 version=1 | u32 length | body | u32 CRC32(body)
            body = f64 samplerate (Hz) | u8 n | n x (u8 len, UTF-8 channel name)
                   | u32 len, UTF-8 JSON object (metadata)
    chunk   u8 kind | u32 seq (1, 2, ...) | u64 upto | u32 len | payload | u32 CRC32(all before)
            kind 1 changes: zlib( u32 n | i64 first time | n-1 x u64 time deltas | n x u64 words )
            kind 2 gap:     i64 start | i64 end | u16 len, UTF-8 reason
            kind 3 end:     i64 total samples (written by close(); absent after a crash)

``upto`` is the sample up to which (exclusive) the data is known once the chunk is read.
"""
from __future__ import annotations

import json
import os
import zlib
from typing import BinaryIO, Iterator

import numpy as np
from construct import (Bytes, Checksum, ConstructError, Enum, Float64l, GreedyBytes, Int8ul,
                       Int16ul, Int32ul, Int64sl, Int64ul, PascalString, Prefixed,
                       PrefixedArray, RawCopy, Struct, this)

from captures.source import BLOCK, Source, checked_blocks, open_source, source_name
from captures.model import Capture, CaptureError, CaptureInfo, Changes, Gap

__all__ = ["MAGIC", "VERSION", "HEADER", "CHUNK", "StreamWriter", "read_stream",
           "write_stream"]

MAGIC = b"TWRLBCAP"        # first bytes of a TowerLab stream capture (.tlc)
VERSION = 1
_MAX_PAYLOAD = 1 << 28          # a length field above this is damage, not data

_crc = zlib.crc32

HEADER_BODY = Struct(
    "samplerate" / Float64l,
    "channels" / PrefixedArray(Int8ul, PascalString(Int8ul, "utf8")),
    "meta" / PascalString(Int32ul, "utf8"),
)
HEADER = Struct(
    "magic" / Bytes(8),
    "version" / Int16ul,
    "body" / RawCopy(Prefixed(Int32ul, HEADER_BODY)),
    "crc" / Checksum(Int32ul, lambda data: _crc(data[4:]), this.body.data),
)
CHUNK_KIND = Enum(Int8ul, changes=1, gap=2, end=3)
CHUNK_BODY = Struct(
    "kind" / CHUNK_KIND,
    "seq" / Int32ul,
    "upto" / Int64ul,
    "payload" / Prefixed(Int32ul, GreedyBytes),
)
CHUNK = Struct(
    "body" / RawCopy(CHUNK_BODY),
    "crc" / Checksum(Int32ul, lambda data: _crc(data), this.body.data),
)
GAP_PAYLOAD = Struct("start" / Int64sl, "end" / Int64sl, "reason" / PascalString(Int16ul, "utf8"))
END_PAYLOAD = Struct("total" / Int64sl)
_CHUNK_HEAD = 1 + 4 + 8 + 4     # kind, seq, upto, payload length
_RESYNC_SEQS = 64               # after damage, look for the next chunk among this many numbers


def _encode_changes(times: np.ndarray, words: np.ndarray) -> bytes:
    n = len(times)
    head = np.array([n], "<u4").tobytes() + np.array([times[0]], "<i8").tobytes()
    deltas = np.diff(times).astype("<u8").tobytes()
    return zlib.compress(head + deltas + words.astype("<u8").tobytes(), 1)


def _decode_changes(payload: bytes) -> Changes:
    raw = zlib.decompress(payload)
    if len(raw) < 12:
        raise ValueError("changes payload too short")
    n = int(np.frombuffer(raw[:4], "<u4")[0])
    if n == 0 or len(raw) != 12 + 8 * (n - 1) + 8 * n:
        raise ValueError(f"changes payload has {len(raw)} bytes for {n} changes")
    first = int(np.frombuffer(raw[4:12], "<i8")[0])
    deltas = np.frombuffer(raw[12:12 + 8 * (n - 1)], "<u8")
    if first < 0 or np.any(deltas == 0) or np.any(deltas > (1 << 62)):
        raise ValueError("change times do not increase")
    times = np.empty(n, np.int64)
    times[0] = first
    np.cumsum(deltas.astype(np.int64), out=times[1:])
    times[1:] += first
    if n > 1 and (times[1] <= first or np.any(np.diff(times) <= 0)):
        raise ValueError("change times overflow")
    words = np.frombuffer(raw[12 + 8 * (n - 1):], "<u8").astype(np.uint64)
    return Changes(times, words)


class StreamWriter:
    """Write a ``.tlc`` stream capture incrementally (flushed after every chunk).

    ``target`` is a path (created or truncated) or a writable binary file object. Use as a
    context manager: leaving the block normally writes the end chunk; leaving it by an
    exception does not, so the file reads back as truncated at its last whole chunk.
    """

    def __init__(self, target: "str | os.PathLike | BinaryIO", channels: list[str],
                 samplerate: float, meta: dict | None = None, sync: bool = False):
        if not 1 <= len(channels) <= 64:
            raise CaptureError(f"a stream capture needs 1..64 channels, got {len(channels)}")
        if len(set(channels)) != len(channels) or not all(channels):
            raise CaptureError("channel names must be unique and non-empty")
        if any(len(c.encode()) > 255 for c in channels):
            raise CaptureError("channel names are limited to 255 UTF-8 bytes")
        if not 0 < samplerate < 1e15:
            raise CaptureError(f"samplerate must be a positive number of Hz, got {samplerate}")
        self.channels = list(channels)
        self.samplerate = float(samplerate)
        self._mask = (1 << len(channels)) - 1
        self._owns = isinstance(target, (str, os.PathLike))
        self.name = source_name(target)     # how errors name the file
        self._f: BinaryIO | None = open(target, "wb") if self._owns else target  # type: ignore
        self._sync = sync
        self._seq = 0
        self._last = -1          # last change time written
        self._upto = 0
        header = HEADER.build({"magic": MAGIC, "version": VERSION, "body": {"value": {
            "samplerate": self.samplerate, "channels": self.channels,
            "meta": json.dumps(meta or {}, default=str)}}})
        self._write(header)

    def _write(self, data: bytes) -> None:
        if self._f is None:
            raise CaptureError(f"{self.name}: stream capture is already closed")
        try:
            self._f.write(data)
            self._f.flush()
            if self._sync and hasattr(self._f, "fileno"):
                os.fsync(self._f.fileno())
        except OSError as exc:
            # a full disk, a vanished drive: what is on disk reads back up to the last chunk
            self.abandon()
            kept = (f"it reads back up to chunk {self._seq - 1}" if self._seq
                    else "it holds no whole header")
            raise CaptureError(f"{self.name}: cannot write the capture ({exc.strerror or exc}); "
                               f"{kept}") from None

    def _chunk(self, kind: str, payload: bytes) -> None:
        self._seq += 1
        self._write(CHUNK.build({"body": {"value": {"kind": kind, "seq": self._seq,
                                                    "upto": self._upto, "payload": payload}}}))

    def write_changes(self, changes: Changes, upto: int | None = None) -> None:
        """Append a block of changes (sample times increasing, the first ever at 0); ``upto``
        (samples, exclusive) says how far the data is known, default just past the last
        change. Large blocks are split into chunks of at most 65536 changes."""
        times = np.asarray(changes.times, dtype=np.int64)
        words = np.asarray(changes.words, dtype=np.uint64)
        if len(times) != len(words):
            raise CaptureError("changes have different numbers of times and words")
        if not len(times):
            return
        if self._last < 0 and times[0] != 0:
            raise CaptureError(f"first change is at sample {int(times[0])}, expected 0")
        if times[0] <= self._last or np.any(np.diff(times) <= 0):
            raise CaptureError(f"change times do not increase (near sample {int(times[0])})")
        if np.any(words & ~np.uint64(self._mask)):
            raise CaptureError(f"change word has bits above the {len(self.channels)} channels")
        for i in range(0, len(times), BLOCK):
            t, w = times[i:i + BLOCK], words[i:i + BLOCK]
            self._last = int(t[-1])
            self._upto = max(self._upto, self._last + 1)
            if i + BLOCK >= len(times) and upto is not None:
                self._upto = max(self._upto, int(upto))
            self._chunk("changes", _encode_changes(t, w))

    def write_gap(self, gap: Gap) -> None:
        """Append a gap record (samples ``gap.start``..``gap.end`` carry no data)."""
        if not 0 <= gap.start <= gap.end:
            raise CaptureError(f"gap {gap.start}..{gap.end} is not a sample range")
        self._upto = max(self._upto, gap.end)
        self._chunk("gap", GAP_PAYLOAD.build({"start": gap.start, "end": gap.end,
                                              "reason": gap.reason}))

    def close(self, total_samples: int | None = None) -> None:
        """Write the end chunk (``total_samples``, default how far the data is known) and
        close a file this writer opened."""
        if self._f is None:
            return
        total = self._upto if total_samples is None else int(total_samples)
        if total <= self._last:
            raise CaptureError(f"total_samples={total} ends before the last change at sample "
                               f"{self._last}")
        self._upto = max(self._upto, total)
        self._chunk("end", END_PAYLOAD.build({"total": total}))
        self.abandon()

    def abandon(self) -> None:
        """Stop writing without an end chunk (the file reads back as truncated)."""
        f, self._f = self._f, None
        if f is not None and self._owns:
            try:
                f.close()
            except OSError:
                pass            # the unwritten tail of a chunk: the reader skips it

    def __enter__(self) -> "StreamWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abandon()


def _scan(f: BinaryIO, name: str) -> tuple[CaptureInfo, int, list[tuple[int, int]],
                                           list[Gap], list[str], int | None]:
    """Check the header and every chunk's framing and CRC; return the info, the offset of the
    first chunk, (offset, length) of each good changes chunk, gaps, warnings and the total."""
    start = f.read(14)
    if len(start) < 14 or not start.startswith(MAGIC):
        raise CaptureError(f"{name}: not a TowerLab stream capture (no {MAGIC.decode()} header)")
    version = int.from_bytes(start[8:10], "little")
    if version != VERSION:
        raise CaptureError(f"{name}: stream format version {version} is not supported "
                           f"(expected {VERSION})")
    length = int.from_bytes(start[10:14], "little")
    if length > _MAX_PAYLOAD:
        raise CaptureError(f"{name}: header length {length} is damaged")
    rest = f.read(length + 4)
    if len(rest) < length + 4:
        raise CaptureError(f"{name}: file ends inside the header")
    try:
        head = HEADER.parse(start + rest)
        meta = json.loads(head.body.value.meta)
        if not isinstance(meta, dict):
            raise ValueError("metadata is not a JSON object")
    except (ConstructError, ValueError, UnicodeDecodeError) as exc:
        raise CaptureError(f"{name}: header is damaged ({_why(exc)})") from None
    body = head.body.value
    channels = list(body.channels)
    rate = body.samplerate
    if not channels or len(channels) > 64 or len(set(channels)) != len(channels):
        raise CaptureError(f"{name}: header has {len(channels)} channels (expected 1..64, "
                           "unique)")
    if not 0 < rate < 1e15:
        raise CaptureError(f"{name}: header has samplerate {rate} (expected a positive Hz)")
    first = 14 + length + 4
    good: list[tuple[int, int]] = []
    gaps: list[Gap] = []
    warnings: list[str] = []
    total: int | None = None
    upto = 0
    seq = 0
    pos = first
    stop: str | None = None
    damaged: tuple[int, str] | None = None     # (last good sample, why) until data resumes
    while True:
        fixed = f.read(_CHUNK_HEAD)
        if not fixed and total is not None:
            break
        if total is not None:
            warnings.append(f"{name}: {len(fixed) + len(f.read())} bytes after the end chunk "
                            "ignored")
            break
        if len(fixed) < _CHUNK_HEAD:
            stop = "truncated"
            break
        n = int.from_bytes(fixed[13:17], "little")
        problem = None
        if n > _MAX_PAYLOAD:
            problem = f"chunk {seq + 1} at byte {pos} is damaged (length {n})"
        else:
            rest = f.read(n + 4)
            try:
                chunk = CHUNK.parse(fixed + rest)
                c = chunk.body.value
                if c.seq != seq + 1:
                    problem = f"chunk at byte {pos} has number {c.seq}, expected {seq + 1}"
            except ConstructError as exc:
                if len(rest) < n + 4:
                    problem = "truncated"
                else:
                    problem = f"chunk {seq + 1} at byte {pos} is damaged ({_why(exc)})"
        if problem is not None:
            found = _resync(f, pos, seq)
            if found is None:
                stop = problem
                break
            if damaged is None:
                damaged = (upto, problem)
            pos, seq = found
            seq -= 1
            f.seek(pos)
            continue
        try:
            if c.kind == "gap":
                g = GAP_PAYLOAD.parse(c.payload)
                if not 0 <= g.start <= g.end:
                    raise ValueError(f"gap {g.start}..{g.end} is not a sample range")
                gaps.append(Gap(g.start, g.end, g.reason))
            elif c.kind == "end":
                total = END_PAYLOAD.parse(c.payload).total
                if total < 0:
                    raise ValueError(f"total {total} is negative")
                if damaged is not None:
                    _skipped(name, damaged, max(total, damaged[0]), gaps, warnings)
                    damaged = None
            elif c.kind == "changes":
                good.append((pos, _CHUNK_HEAD + n + 4))
                if damaged is not None:
                    resumed = int(_decode_changes(c.payload).times[0])
                    _skipped(name, damaged, max(resumed, damaged[0]), gaps, warnings)
                    damaged = None
            else:
                raise ValueError(f"unknown chunk kind {c.kind!r}")
        except (ConstructError, ValueError, UnicodeDecodeError, zlib.error) as exc:
            raise CaptureError(f"{name}: chunk {c.seq} at byte {pos}: {_why(exc)}") from None
        seq = c.seq
        upto = max(upto, c.upto)
        pos += _CHUNK_HEAD + n + 4
    if stop is not None:
        reason = f"truncated after chunk {seq} at sample {upto}"
        if stop != "truncated":
            reason += f" ({stop})"
        gaps.append(Gap(upto, upto, reason))
        warnings.append(f"{name}: {reason}")
        total = upto
    info = CaptureInfo(channels, float(rate), total, meta)
    return info, first, good, gaps, warnings, total


def _skipped(name: str, damaged: tuple[int, str], resumed: int, gaps: list[Gap],
             warnings: list[str]) -> None:
    """Record the gap left by chunks skipped after damage: from the last good sample to
    where the data resumes."""
    start, why = damaged
    reason = f"damaged chunks skipped ({why})"
    gaps.append(Gap(start, resumed, reason))
    warnings.append(f"{name}: {reason}; samples {start}..{resumed} are a gap")


def _resync(f: BinaryIO, pos: int, seq: int) -> tuple[int, int] | None:
    """Find the first whole chunk after the damaged one at byte ``pos``: the lowest offset
    where a chunk numbered seq + 1 .. seq + _RESYNC_SEQS parses with a good CRC. Return
    (offset, chunk number) or None."""
    f.seek(pos + 1)
    data = f.read()
    best: tuple[int, int] | None = None
    for s in range(seq + 1, seq + 1 + _RESYNC_SEQS):
        for kind in (1, 2, 3):
            pattern = bytes([kind]) + s.to_bytes(4, "little")
            at = data.find(pattern)
            while at >= 0 and (best is None or pos + 1 + at < best[0]):
                n = int.from_bytes(data[at + 13:at + 17], "little")
                try:
                    if n <= _MAX_PAYLOAD:
                        CHUNK.parse(data[at:at + _CHUNK_HEAD + n + 4])
                        best = (pos + 1 + at, s)
                        break
                except ConstructError:
                    pass
                at = data.find(pattern, at + 1)
    return best


def _why(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:100]


def read_stream(source: Source) -> Capture:
    """Open a ``.tlc`` stream capture (a path or a seekable binary file object) as a streaming
    Capture; a cut or damaged tail becomes a warning and a final zero-length Gap."""
    name = source_name(source)
    with open_source(source) as f:
        info, _, good, gaps, warnings, _ = _scan(f, name)
    mask = np.uint64((1 << len(info.channels)) - 1)

    def factory() -> Iterator[Changes]:
        last = -1
        with open_source(source) as f:
            for offset, size in good:
                f.seek(offset)
                try:
                    chunk = CHUNK.parse(f.read(size)).body.value
                    block = _decode_changes(chunk.payload)
                except ConstructError:
                    raise CaptureError(f"{name}: chunk at byte {offset} changed since the file "
                                       "was opened") from None
                except (ValueError, zlib.error) as exc:
                    raise CaptureError(f"{name}: chunk {chunk.seq} at byte {offset}: "
                                       f"{_why(exc)}") from None
                if last < 0 and block.times[0] != 0:
                    raise CaptureError(f"{name}: first change is at sample "
                                       f"{int(block.times[0])}, expected 0")
                if block.times[0] <= last:
                    raise CaptureError(f"{name}: chunk {chunk.seq}: change times go backwards "
                                       f"(sample {int(block.times[0])} after {last})")
                if np.any(block.words & ~mask):
                    raise CaptureError(f"{name}: chunk {chunk.seq}: change word has bits above "
                                       f"the {len(info.channels)} channels")
                if info.total_samples is not None and block.times[-1] >= max(
                        info.total_samples, 1):
                    raise CaptureError(f"{name}: chunk {chunk.seq}: change at sample "
                                       f"{int(block.times[-1])} is past the end "
                                       f"({info.total_samples} samples)")
                last = int(block.times[-1])
                yield block

    cap = Capture(info, factory, gaps)
    cap.warnings.extend(warnings)
    return cap


def write_stream(capture: Capture, f: BinaryIO) -> None:
    """Write ``capture`` as a complete ``.tlc`` stream capture to the binary file object."""
    w = StreamWriter(f, capture.channels, capture.samplerate, capture.info.meta)
    for block in checked_blocks(capture):
        w.write_changes(block)
    for gap in capture.gaps:
        w.write_gap(gap)
    w.close(capture.info.total_samples)
