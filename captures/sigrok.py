"""Read and write sigrok session files (``.sr``, srzip v2), streaming chunk by chunk.

Layout (libsigrok ``src/output/srzip.c`` and ``src/session_file.c``, as summarised in
docs/capture-formats.md §1.3; checked against sigrok-cli 0.7.2 / libsigrok 0.5.2): a zip
archive with

- ``version``: ASCII ``2`` (``1`` is accepted too, as libsigrok does);
- ``metadata``: GKeyFile INI; ``[device 1]`` has ``capturefile=logic-1``, ``total probes=N``,
  ``samplerate=250 kHz``, ``unitsize=U`` and ``probeK=name`` for each *enabled* channel
  (bit K-1 of every sample; disabled channels have no ``probeK`` and are dropped here);
- ``logic-1-1``, ``logic-1-2``, ...: raw samples, ``U`` bytes each, little-endian, chunks of at
  most 4 MiB in numeric order (a single ``logic-1`` member is accepted).

Extra INI sections (the shared captures' ``[darktower]``) are kept in ``CaptureInfo.meta`` as
``{section: {key: value}}`` and written back. TowerLab's own ``[towerlab]`` section holds text
metadata and gaps (``gap 1=start end reason``; samples inside a gap repeat the last level,
because srzip has no way to mark missing data), and ``[towerlab json]`` the other values as
JSON, so that a number (a Saleae export's ``time_offset_s``) reads back as a number.
libsigrok ignores these sections.

The writer (``SrWriter``) writes each 4 MiB chunk as soon as it is full, but a zip file is only
valid once its central directory is written by ``close()``: a crash mid-capture loses the
whole ``.sr``. For crash-safe recording use the TowerLab stream format (``captures.stream``)
and convert afterwards.
"""
from __future__ import annotations

import configparser
import json
import re
import zipfile
import zlib
from typing import BinaryIO, Iterator

import numpy as np

from captures.source import Source, checked_blocks, open_source, source_name
from captures.model import (Capture, CaptureError, CaptureInfo, Changes, Gap,
                            changes_from_samples)

__all__ = ["CHUNK_SIZE", "read_sr", "write_sr", "SrWriter", "parse_samplerate",
           "format_samplerate"]

CHUNK_SIZE = 4 * 1024 * 1024    # bytes per logic-1-N member, as libsigrok's srzip writer
_READ_UNITS = 1 << 18           # samples decoded per step while reading
_ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError,
               EOFError, zlib.error, OSError, ValueError, KeyError, IndexError, OverflowError,
               UnicodeDecodeError)
_UNITS = {"": 1, "hz": 1, "khz": 1e3, "mhz": 1e6, "ghz": 1e9}
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)


def parse_samplerate(text: str) -> float:
    """Parse a sigrok samplerate string ("250 kHz", "1 MHz", "1000000") into Hz; raise
    ValueError if it is not one."""
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?)\s*([kMG]?Hz)?\s*", text, flags=re.IGNORECASE)
    if not m:
        raise ValueError(text)
    value = float(m.group(1)) * _UNITS[(m.group(2) or "").lower()]
    if not 0 < value < 1e15:
        raise ValueError(text)
    return value


def format_samplerate(hz: float) -> str:
    """Format a samplerate in Hz the way sigrok writes it ("250 kHz", "1 MHz", "1500 Hz")."""
    if float(hz).is_integer():
        n = int(hz)
        for unit, scale in (("GHz", 10**9), ("MHz", 10**6), ("kHz", 10**3)):
            if n % scale == 0:
                return f"{n // scale} {unit}"
        return f"{n} Hz"
    return f"{hz!r} Hz"


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "s": " ", "r": "\r"}
                  .get(m.group(1), m.group(1)), value)


def _escape(value: str) -> str:
    value = value.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
    value = value.replace("\t", "\\t")
    return "\\s" + value[1:] if value.startswith(" ") else value


def _key(key: str) -> str:
    """Make a metadata key GKeyFile-safe (no '=', brackets, '#' or line breaks; checked with
    sigrok-cli 0.7.2, which also accepts '_', '.' and ':' in keys)."""
    return re.sub(r"[=\[\]#\r\n]", "-", key).strip() or "key"


_Metadata = tuple[CaptureInfo, list[Gap], list[str], list[tuple[int, int]], int]


def _read_metadata(zf: zipfile.ZipFile, name: str) -> _Metadata:
    """Parse ``version`` and ``metadata``; return info, gaps, chunk names, (bit, new bit)
    pairs and the unit size."""
    members = set(zf.namelist())
    if "version" not in members:
        raise CaptureError(f"{name}: zip is not a sigrok session (no 'version' member)")
    version = zf.read("version").decode("ascii", "replace").strip()
    if version not in ("1", "2"):
        raise CaptureError(f"{name}: sigrok session version {version[:10]!r} is not supported "
                           "(expected 1 or 2)")
    if "metadata" not in members:
        raise CaptureError(f"{name}: sigrok session has no 'metadata' member")
    ini = configparser.ConfigParser(interpolation=None, strict=False, delimiters=("=",),
                                    comment_prefixes=("#",), empty_lines_in_values=False)
    ini.optionxform = str  # type: ignore[assignment,method-assign]
    try:
        ini.read_string(zf.read("metadata").decode("utf-8"))
    except (configparser.Error, UnicodeDecodeError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise CaptureError(f"{name}: metadata is not a valid INI file ({first[:80]})") from None
    dev = next((s for s in ini.sections() if re.fullmatch(r"device \d+", s)
                and ini.has_option(s, "capturefile")), None)
    if dev is None:
        raise CaptureError(f"{name}: metadata has no [device N] section with a capturefile")
    sec = ini[dev]

    def integer(key: str, low: int, high: int) -> int:
        raw = sec.get(key)
        if raw is None:
            raise CaptureError(f"{name}: metadata [{dev}] has no '{key}'")
        try:
            value = int(raw.strip())
        except ValueError:
            raise CaptureError(f"{name}: metadata has {key}={raw.strip()[:20]!r} "
                               "(expected an integer)") from None
        if not low <= value <= high:
            raise CaptureError(f"{name}: metadata has {key}={value} (expected {low}..{high})")
        return value

    probes = integer("total probes", 1, 64)
    unitsize = integer("unitsize", 1, 8)
    need = (probes + 7) // 8
    if unitsize < need:
        raise CaptureError(f"{name}: metadata has unitsize={unitsize} but {probes} probes "
                           f"(expected {need})")
    raw_rate = sec.get("samplerate")
    if raw_rate is None:
        raise CaptureError(f"{name}: metadata [{dev}] has no samplerate")
    try:
        rate = parse_samplerate(raw_rate)
    except ValueError:
        raise CaptureError(f"{name}: metadata has samplerate={raw_rate[:20]!r} "
                           "(expected e.g. '250 kHz' or '1000000')") from None
    channels: list[str] = []
    bits: list[tuple[int, int]] = []
    for key, value in sec.items():
        m = re.fullmatch(r"probe(\d+)", key)
        if not m:
            continue
        k = int(m.group(1))
        if not 1 <= k <= probes:
            raise CaptureError(f"{name}: metadata has {key} but total probes={probes}")
        label = value.strip()
        if not label or label in channels:
            raise CaptureError(f"{name}: metadata {key}={label!r} is empty or repeated")
        bits.append((k - 1, len(channels)))
        channels.append(label)
    if not channels:
        raise CaptureError(f"{name}: metadata names no logic channels (no probeN keys)")
    order = sorted(range(len(bits)), key=lambda i: bits[i][0])
    channels = [channels[i] for i in order]
    bits = [(bits[i][0], j) for j, i in enumerate(order)]
    base = sec.get("capturefile", "").strip()
    chunks = []
    for member in members:
        if member == base:
            chunks.append((0, member))
        elif member.startswith(base + "-") and member[len(base) + 1:].isdigit():
            chunks.append((int(member[len(base) + 1:]), member))
    if not chunks:
        raise CaptureError(f"{name}: sigrok session has no logic data ('{base}-1' missing)")
    chunks.sort()
    if chunks[0][0] == 0 and len(chunks) > 1:
        raise CaptureError(f"{name}: sigrok session has both '{base}' and '{chunks[1][1]}' "
                           "(expected one or the other)")
    for k, (num, member) in enumerate(chunks):
        if num and num != k + 1:
            # libsigrok stops reading at the first missing chunk; the rest would be misplaced.
            raise CaptureError(f"{name}: logic data chunk '{base}-{k + 1}' is missing "
                               f"(found '{member}' after it)")
    chunk_names = [c for _, c in chunks]
    for member in chunk_names[:-1]:
        size = zf.getinfo(member).file_size
        if size % unitsize:
            raise CaptureError(f"{name}: {member} is {size} bytes, not a whole number of "
                               f"{unitsize}-byte samples (wrong unitsize, or a damaged file)")
    total_bytes = sum(zf.getinfo(c).file_size for c in chunk_names)
    meta: dict = {}
    gaps: list[Gap] = []
    for s in ini.sections():
        if s == "global" or re.fullmatch(r"device \d+", s):
            continue
        if s == "towerlab":
            for key, value in ini[s].items():
                m = re.fullmatch(r"gap \d+", key)
                if m:
                    parts = value.split(" ", 2)
                    try:
                        start, end = int(parts[0]), int(parts[1])
                        if not 0 <= start <= end:
                            raise ValueError
                    except (ValueError, IndexError):
                        raise CaptureError(f"{name}: metadata [towerlab] {key}={value[:30]!r} "
                                           "(expected 'start end reason')") from None
                    gaps.append(Gap(start, end, _unescape(parts[2]) if len(parts) > 2 else ""))
                else:
                    meta[key] = _unescape(value)
        elif s == "towerlab json":
            for key, value in ini[s].items():
                try:
                    meta[key] = json.loads(_unescape(value))
                except ValueError:
                    raise CaptureError(f"{name}: metadata [towerlab json] {key}="
                                       f"{value[:30]!r} is not JSON") from None
        else:
            meta[s] = {k: _unescape(v) for k, v in ini[s].items()}
    if total_bytes % unitsize:
        meta["warning"] = (f"logic data is {total_bytes} bytes, not a whole number of "
                           f"{unitsize}-byte samples; the last partial sample is ignored")
    info = CaptureInfo(channels, rate, total_bytes // unitsize, meta)
    _check_padding(zf, name, chunk_names[0], unitsize, probes)
    return info, gaps, chunk_names, bits, unitsize


def _check_padding(zf: zipfile.ZipFile, name: str, member: str, unitsize: int,
                   probes: int) -> None:
    """Raise CaptureError if the first samples set bits above ``probes``: the bytes are then
    not ``unitsize``-byte samples (a unitsize larger than the one the data was written with)."""
    if unitsize * 8 <= probes:
        return
    with zf.open(member) as f:
        head = f.read(65536 - 65536 % unitsize)
    head = head[:len(head) - len(head) % unitsize]
    if not head:
        return
    if np.any(_to_words(head, unitsize) >> np.uint64(probes)):
        raise CaptureError(f"{name}: samples set bits above the {probes} probes (unitsize="
                           f"{unitsize} does not match the data, or the file is damaged)")


def _to_words(buf: bytes, unitsize: int) -> np.ndarray:
    """Unpack little-endian units of ``unitsize`` bytes into uint64 words."""
    if unitsize in (1, 2, 4, 8):
        return np.frombuffer(buf, dtype=f"<u{unitsize}").astype(np.uint64)
    raw = np.frombuffer(buf, dtype=np.uint8).reshape(-1, unitsize)
    padded = np.zeros((len(raw), 8), dtype=np.uint8)
    padded[:, :unitsize] = raw
    return padded.view("<u8").reshape(-1).astype(np.uint64)


def read_sr(source: Source) -> Capture:
    """Open a sigrok session (a path or a seekable binary file object) as a streaming
    Capture; raise CaptureError naming the file if it is not a usable session."""
    name = source_name(source)
    try:
        with open_source(source) as f, zipfile.ZipFile(f) as zf:
            info, gaps, chunk_names, bits, unitsize = _read_metadata(zf, name)
    except CaptureError:
        raise
    except _ZIP_ERRORS as exc:
        hint = ""
        with open_source(source) as f:
            if f.read(4) == b"PK\x03\x04" and isinstance(exc, zipfile.BadZipFile):
                # Members are there but the directory at the end is not: a file cut short.
                hint = ("; a .sr cut short has no zip directory and cannot be read "
                        "(record to .tlc to survive crashes)")
        raise CaptureError(f"{name}: not a readable zip file ({_why(exc)}){hint}") from None
    contiguous = all(src == dst for src, dst in bits)
    mask = np.uint64((1 << len(bits)) - 1)
    src = np.array([b for b, _ in bits], dtype=np.uint64)
    dst = np.array([b for _, b in bits], dtype=np.uint64)
    step = _READ_UNITS * unitsize
    warnings = [f"{name}: {info.meta.pop('warning')}"] if "warning" in info.meta else []

    def select(words: np.ndarray) -> np.ndarray:
        if contiguous:
            return words & mask
        picked = (words[:, None] >> src) & np.uint64(1)
        return np.bitwise_or.reduce(picked << dst, axis=1).astype(np.uint64)

    def factory() -> Iterator[Changes]:
        try:
            with open_source(source) as f, zipfile.ZipFile(f) as zf:
                start, prev, carry = 0, None, b""
                for chunk in chunk_names:
                    with zf.open(chunk) as member:
                        while True:
                            data = member.read(step)
                            if not data:
                                break
                            data = carry + data
                            whole = len(data) - len(data) % unitsize
                            carry = data[whole:]
                            if not whole:
                                continue
                            words = select(_to_words(data[:whole], unitsize))
                            block = changes_from_samples(words, start, prev)
                            start += len(words)
                            prev = int(words[-1])
                            if len(block):
                                yield block
        except CaptureError:
            raise
        except _ZIP_ERRORS as exc:
            raise CaptureError(f"{name}: damaged logic data ({_why(exc)})") from None

    cap = Capture(info, factory, gaps)
    cap.warnings.extend(warnings)
    return cap


def _why(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:100]


class SrWriter:
    """Write a sigrok session to a seekable binary file object as changes arrive.

    Samples are expanded from the changes and written in 4 MiB ``logic-1-N`` members as soon
    as a chunk is full; ``close(total_samples)`` writes the last chunk, the metadata and the zip
    directory (only then is the file a valid zip).
    """

    def __init__(self, f: BinaryIO, channels: list[str], samplerate: float,
                 meta: dict | None = None, chunk_size: int = CHUNK_SIZE):
        if not 1 <= len(channels) <= 64:
            raise CaptureError(f"a sigrok session needs 1..64 channels, got {len(channels)}")
        bad = [c for c in channels if not c or "\n" in c or c != c.strip()]
        if bad:
            raise CaptureError(f"channel name {bad[0]!r} cannot be stored in .sr metadata")
        self.channels = list(channels)
        self.samplerate = float(samplerate)
        self.meta = dict(meta or {})
        self.unitsize = (len(channels) + 7) // 8
        self._units = max(1, chunk_size // self.unitsize)
        self._buf = np.empty(self._units, dtype=np.uint64)
        self._fill = 0
        self._chunk = 0
        self._written = 0            # samples written into members so far
        self._pending: tuple[int, int] | None = None   # last change, not yet expanded
        self.gaps: list[Gap] = []
        self._zip = zipfile.ZipFile(f, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6)
        self._member("version", b"2")

    def _member(self, name: str, data: bytes) -> None:
        info = zipfile.ZipInfo(name, _ZIP_DATE)
        info.compress_type = zipfile.ZIP_DEFLATED
        self._zip.writestr(info, data)

    def _flush_chunk(self) -> None:
        if not self._fill:
            return
        words = self._buf[:self._fill]
        if self.unitsize in (1, 2, 4, 8):
            data = words.astype(f"<u{self.unitsize}").tobytes()
        else:
            data = words.astype("<u8").view(np.uint8).reshape(-1, 8)[:, :self.unitsize].tobytes()
        self._chunk += 1
        self._member(f"logic-1-{self._chunk}", data)
        self._written += self._fill
        self._fill = 0

    def _expand(self, values: np.ndarray, lengths: np.ndarray) -> None:
        """Append runs (``values[i]`` repeated ``lengths[i]`` samples) to the chunk buffer."""
        i, n = 0, len(values)
        lengths = lengths.copy()
        while i < n:
            room = self._units - self._fill
            window = lengths[i:i + 4096]
            cs = np.cumsum(window)
            k = int(np.searchsorted(cs, room, side="right"))
            if k:
                used = int(cs[k - 1])
                self._buf[self._fill:self._fill + used] = np.repeat(values[i:i + k], window[:k])
                self._fill += used
                i += k
            else:
                self._buf[self._fill:] = values[i]
                self._fill = self._units
                lengths[i] -= room
            if self._fill == self._units:
                self._flush_chunk()

    def write_changes(self, changes: Changes) -> None:
        """Add a block of changes (times in samples, increasing, the first ever at 0)."""
        times = np.asarray(changes.times, dtype=np.int64)
        words = np.asarray(changes.words, dtype=np.uint64)
        if not len(times):
            return
        if self._pending is None:
            if times[0] != 0:
                raise CaptureError(f"first change is at sample {int(times[0])}, expected 0")
        elif times[0] <= self._pending[0]:
            raise CaptureError(f"change at sample {int(times[0])} does not come after "
                               f"sample {self._pending[0]}")
        if self._pending is not None:
            times = np.concatenate([[self._pending[0]], times])
            words = np.concatenate([np.array([self._pending[1]], np.uint64), words])
        lengths = np.diff(times)
        if np.any(lengths <= 0):
            raise CaptureError("change times do not increase")
        self._expand(words[:-1], lengths)
        self._pending = (int(times[-1]), int(words[-1]))

    def write_gap(self, gap: Gap) -> None:
        """Record a gap in the metadata (its samples repeat the last level in the data)."""
        self.gaps.append(gap)

    def close(self, total_samples: int | None = None) -> None:
        """Write the samples up to ``total_samples`` (default: just past the last change),
        the metadata and the zip directory."""
        if self._zip is None:
            return
        if self._pending is None:
            raise CaptureError("a sigrok session needs at least one change (the initial levels)")
        t, w = self._pending
        end = t + 1 if total_samples is None else int(total_samples)
        if end <= t:
            raise CaptureError(f"total_samples={end} ends before the last change at sample {t}")
        self._expand(np.array([w], np.uint64), np.array([end - t], np.int64))
        self._flush_chunk()
        self._member("metadata", self._metadata().encode("utf-8"))
        self._zip.close()
        self._zip = None

    def abort(self) -> None:
        """Stop writing: close the zip without metadata (the caller discards the file)."""
        if self._zip is not None:
            zf, self._zip = self._zip, None
            try:
                zf.close()
            except (OSError, ValueError):
                pass

    def __enter__(self) -> "SrWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()

    def _metadata(self) -> str:
        lines = ["[global]", "sigrok version=0.5.2", "", "[device 1]", "capturefile=logic-1",
                 f"total probes={len(self.channels)}",
                 f"samplerate={format_samplerate(self.samplerate)}", "total analog=0"]
        lines += [f"probe{i + 1}={_escape(c)}" for i, c in enumerate(self.channels)]
        lines += [f"unitsize={self.unitsize}", ""]
        own = [(k, v) for k, v in self.meta.items() if isinstance(v, str)]
        if own or self.gaps:
            lines.append("[towerlab]")
            lines += [f"{_key(k)}={_escape(v)}" for k, v in own]
            lines += [f"gap {i + 1}={g.start} {g.end} {_escape(g.reason)}"
                      for i, g in enumerate(self.gaps)]
            lines.append("")
        typed = [(k, v) for k, v in self.meta.items() if not isinstance(v, (str, dict))]
        if typed:
            lines.append("[towerlab json]")
            lines += [f"{_key(k)}={_escape(json.dumps(v, default=str))}" for k, v in typed]
            lines.append("")
        for section, values in self.meta.items():
            if isinstance(values, dict) and section not in ("global", "towerlab",
                                                            "towerlab json") \
                    and not re.fullmatch(r"device \d+", section):
                title = re.sub(r"[\[\]\n]", "-", section)
                lines.append(f"[{title}]")
                lines += [f"{_key(str(k))}={_escape(str(v))}" for k, v in values.items()]
                lines.append("")
        return "\n".join(lines)


def write_sr(capture: Capture, f: BinaryIO) -> None:
    """Write ``capture`` as a sigrok session to the seekable binary file object ``f``."""
    with SrWriter(f, capture.channels, capture.samplerate, capture.info.meta) as w:
        for block in checked_blocks(capture):
            w.write_changes(block)
        for gap in capture.gaps:
            w.write_gap(gap)
        w.close(capture.info.total_samples)
