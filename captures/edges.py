"""Read and write the lossless edges format (``edges.jsonl.gz``) of the shared captures.

Layout (shared capture tower_test, ``format: capgen-edges-1``): a gzip-compressed text file whose
first line is a JSON object, then one JSON array per line::

    {"clock_hz": 425000, "end_cycle": 6591750, "signals": ["R0", ..., "SENSOR"],
     "format": "capgen-edges-1", "source": "...", "note": "..."}
    [0,"R0",0]          cycle 0 lines give the initial levels (a missing signal starts at 0)
    [44,"R0",1]         [cycle, signal, level]: from this cycle on the signal is at level
    [50,"R0",0]

``clock_hz`` is the samplerate (Hz) and ``end_cycle`` the length (samples). Other header fields
are kept in ``CaptureInfo.meta``; TowerLab adds ``"gaps": [[start, end, reason], ...]`` when a
capture has gaps. Reading streams: lines are parsed in blocks of ``BLOCK`` and turned into
change blocks, so memory stays bounded by the block size, not the file.
"""
from __future__ import annotations

import gzip
import io
import itertools
import json
import zlib
from typing import BinaryIO, Iterator

import numpy as np

from captures.source import BLOCK, Source, checked_blocks, open_source, source_name
from captures.model import Capture, CaptureError, CaptureInfo, Changes, Gap

__all__ = ["FORMAT", "read_edges", "write_edges"]

FORMAT = "capgen-edges-1"
_RESERVED = ("clock_hz", "end_cycle", "signals", "format", "gaps")
_DECODE_ERRORS = (OSError, EOFError, zlib.error, UnicodeDecodeError)


def _header(f: BinaryIO, name: str) -> tuple[dict, int]:
    """Read and check the header line; return it and the text line count read (1)."""
    try:
        line = f.readline(1 << 20)
    except _DECODE_ERRORS as exc:
        raise CaptureError(f"{name}: not a readable gzip file ({_why(exc)})") from None
    if not line:
        raise CaptureError(f"{name}: empty edges file (expected a JSON header line)")
    try:
        head = json.loads(line)
    except ValueError:
        raise CaptureError(f"{name}:1: header is not a JSON object") from None
    if not isinstance(head, dict):
        raise CaptureError(f"{name}:1: header is not a JSON object")
    return head, 1


def _why(exc: BaseException) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _info(head: dict, name: str) -> tuple[CaptureInfo, list[Gap]]:
    signals = head.get("signals")
    if (not isinstance(signals, list) or not signals
            or not all(isinstance(s, str) and s for s in signals)):
        raise CaptureError(f"{name}:1: header needs \"signals\": a list of channel names")
    if len(set(signals)) != len(signals):
        dup = next(s for s in signals if signals.count(s) > 1)
        raise CaptureError(f"{name}:1: channel {dup!r} is listed twice in \"signals\"")
    if len(signals) > 64:
        raise CaptureError(f"{name}:1: {len(signals)} signals (at most 64 are supported)")
    rate = head.get("clock_hz")
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 < rate < 1e15:
        raise CaptureError(f"{name}:1: header needs \"clock_hz\": a positive samplerate in Hz")
    end = head.get("end_cycle")
    if end is not None and (isinstance(end, bool) or not isinstance(end, int) or end < 0):
        raise CaptureError(f"{name}:1: \"end_cycle\" must be a cycle count >= 0, got {end!r}")
    gaps = []
    for g in head.get("gaps") or []:
        if (not isinstance(g, list) or len(g) != 3 or not all(type(x) is int for x in g[:2])
                or not isinstance(g[2], str) or not 0 <= g[0] <= g[1]):
            raise CaptureError(f"{name}:1: a gap must be [start, end, \"reason\"], got {g!r}")
        gaps.append(Gap(g[0], g[1], g[2]))
    meta = {k: v for k, v in head.items() if k not in _RESERVED}
    return CaptureInfo(list(signals), float(rate), end, meta), gaps


def read_edges(source: Source) -> Capture:
    """Open an edges file (a path or a binary file object) as a streaming Capture whose
    samplerate is ``clock_hz`` (Hz) and length ``end_cycle`` (samples)."""
    name = source_name(source)
    with open_source(source) as raw:
        if raw.read(2) != b"\x1f\x8b":
            raise CaptureError(f"{name}: not a gzip file (expected an edges .jsonl.gz)")
        raw.seek(raw.tell() - 2)
        with gzip.GzipFile(fileobj=raw, mode="rb") as gz:
            head, _ = _header(gz, name)
    info, gaps = _info(head, name)

    def factory() -> Iterator[Changes]:
        with open_source(source) as raw, gzip.GzipFile(fileobj=raw, mode="rb") as gz:
            try:
                gz.readline(1 << 20)
                yield from _blocks(gz, info, name)
            except _DECODE_ERRORS as exc:
                raise CaptureError(f"{name}: damaged gzip data ({_why(exc)})") from None

    return Capture(info, factory, gaps)


def _parse(lines: list[bytes], first_line: int, name: str) -> list:
    try:
        items = json.loads(b"[" + b",".join(lines) + b"]")
    except ValueError:
        items = None
    if items is None or len(items) != len(lines):
        for n, line in enumerate(lines, first_line):
            try:
                json.loads(line)
            except ValueError:
                raise CaptureError(f"{name}:{n}: not a JSON line "
                                   "(expected [cycle, \"signal\", level])") from None
        raise CaptureError(f"{name}:{first_line}: blank or malformed line in this block "
                           "(expected [cycle, \"signal\", level])")
    return items


def _blocks(gz: BinaryIO, info: CaptureInfo, name: str) -> Iterator[Changes]:
    """Parse edge lines into change blocks (several edges at one cycle merge)."""
    index = {s: 1 << i for i, s in enumerate(info.channels)}
    end = info.total_samples
    cur_t, cur_w = 0, 0           # the change being built (not yet emitted)
    last_w = None                 # last emitted word
    times: list[int] = []
    words: list[int] = []
    lineno = 2
    while True:
        lines = [ln for ln in itertools.islice(gz, BLOCK)]
        if not lines:
            break
        items = _parse(lines, lineno, name)
        for n, item in enumerate(items, lineno):
            if type(item) is not list or len(item) != 3:
                raise CaptureError(f"{name}:{n}: expected [cycle, \"signal\", level], "
                                   f"got {item!r:.60}")
            t, sig, level = item
            if type(t) is not int or t < 0:
                raise CaptureError(f"{name}:{n}: cycle must be an integer >= 0, got {t!r:.30}")
            bit = index.get(sig) if type(sig) is str else None
            if bit is None:
                raise CaptureError(f"{name}:{n}: unknown signal {sig!r:.30} (header lists "
                                   f"{' '.join(info.channels)})")
            if level not in (0, 1) or type(level) is not int:
                raise CaptureError(f"{name}:{n}: level must be 0 or 1, got {level!r:.30}")
            if t != cur_t:
                if t < cur_t:
                    raise CaptureError(f"{name}:{n}: cycle {t} goes backwards (after {cur_t})")
                if end is not None and t >= end:
                    raise CaptureError(f"{name}:{n}: cycle {t} is not before end_cycle {end}")
                if cur_w != last_w:
                    times.append(cur_t)
                    words.append(cur_w)
                    last_w = cur_w
                cur_t = t
            cur_w = (cur_w | bit) if level else (cur_w & ~bit)
        lineno += len(lines)
        if len(times) >= BLOCK:
            yield Changes(np.array(times, np.int64), np.array(words, np.uint64))
            times, words = [], []
    if cur_w != last_w:
        times.append(cur_t)
        words.append(cur_w)
    if times:
        yield Changes(np.array(times, np.int64), np.array(words, np.uint64))


def _header_for(capture: Capture) -> dict:
    info = capture.info
    rate = info.samplerate
    head: dict = {"clock_hz": int(rate) if float(rate).is_integer() else rate}
    if info.total_samples is not None:
        head["end_cycle"] = int(info.total_samples)
    head["format"] = FORMAT
    head["signals"] = list(info.channels)
    for k, v in info.meta.items():
        if k not in _RESERVED:
            head[k] = v
    if capture.gaps:
        head["gaps"] = [[g.start, g.end, g.reason] for g in capture.gaps]
    return head


def write_edges(capture: Capture, f: BinaryIO) -> None:
    """Write ``capture`` as an edges file (gzip, header line, ``[cycle, "signal", level]``
    lines, cycle 0 = every initial level) to the binary file object ``f``."""
    names = [json.dumps(c) for c in capture.channels]
    nch = len(names)
    shifts = np.arange(nch, dtype=np.uint64)
    full = np.uint64((1 << nch) - 1)
    with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, compresslevel=6) as gz:
        out = io.BufferedWriter(gz, 1 << 16)
        out.write(json.dumps(_header_for(capture), default=str).encode() + b"\n")
        prev = None
        for block in checked_blocks(capture, 1 << 14):
            words = block.words
            # Before the first change every bit "differs", so sample 0 lists every level.
            first = words[0] ^ full if prev is None else np.uint64(prev)
            before = np.concatenate([np.array([first], np.uint64), words[:-1]])
            diff = words ^ before
            rows, cols = np.nonzero((diff[:, None] >> shifts) & np.uint64(1))
            levels = (words[rows] >> cols.astype(np.uint64)) & np.uint64(1)
            ts = block.times[rows].tolist()
            chunk = [f"[{t},{names[c]},{v}]\n" for t, c, v in
                     zip(ts, cols.tolist(), levels.tolist())]
            out.write("".join(chunk).encode())
            prev = int(words[-1])
        out.flush()
        out.detach()
