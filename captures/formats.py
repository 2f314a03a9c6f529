"""Open and write capture files of any supported format, by content or extension.

``open_capture(path)`` sniffs the content first (magic bytes), then the extension:

- sigrok session (``captures.sigrok``): a zip (``PK``), or ``.sr``;
- TowerLab stream (``captures.stream``): ``TWRLBCAP``, or ``.tlc``;
- edges (``captures.edges``): gzip magic, or ``.jsonl.gz``/``.gz``;
- Saleae binary (``captures.saleae``): ``<SALEAE>``, ``.bin``, or a folder of ``digital_N.bin``;
- Saleae CSV (``captures.saleae``): first line ``Time [s],...``, ``.csv``, or a folder with
  ``digital.csv``;
- VCD (``captures.vcd``): first word a VCD keyword (``$timescale``, ``$var``, ...), or ``.vcd``.

``write_capture(capture, path)`` picks the writer by extension (``.sr``, ``.vcd``, ``.tlc``,
``.jsonl.gz``). Every writer writes to a temporary file next to ``path`` and renames it on
success, so a failed conversion leaves nothing behind.

This module also holds the small helpers the format modules share (naming a source in error
messages, re-opening it for each pass, splitting and checking change blocks, atomic writes).

Example::

    cap = open_capture("tests/data/captures/tower_test/capture.sr")
    write_capture(cap, "/tmp/tower_test.vcd")
"""
from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import BinaryIO, Callable, Iterator, Mapping, Union

import numpy as np

from captures.model import Capture, CaptureError, Changes

__all__ = ["open_capture", "write_capture", "sniff_format", "writer_format", "WRITERS",
           "READ_FORMATS", "Source", "source_name", "open_source", "atomic_write",
           "checked_blocks"]

Source = Union[str, os.PathLike, BinaryIO]

READ_FORMATS = ("sr", "tlc", "edges", "saleae-bin", "saleae-csv", "vcd")
# Extension -> format written.
WRITERS = {".sr": "sr", ".vcd": "vcd", ".tlc": "tlc", ".jsonl.gz": "edges"}

# First bytes of a TowerLab stream capture (.tlc; layout in captures.stream).
TLC_MAGIC = b"TWRLBCAP"

# Largest change block a reader or writer hands on at once (changes).
BLOCK = 1 << 16

_VCD_KEYWORDS = (b"$date", b"$version", b"$timescale", b"$comment", b"$scope", b"$var",
                 b"$enddefinitions", b"$dumpvars", b"$upscope")


def source_name(source: Source) -> str:
    """Return how error messages name ``source`` (its path, or the file object's name)."""
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    name = getattr(source, "name", None)
    return name if isinstance(name, str) else "<stream>"


@contextlib.contextmanager
def open_source(source: Source, offset: int = 0) -> Iterator[BinaryIO]:
    """Open ``source`` for binary reading at byte ``offset`` (a path is opened and closed,
    a file object is seeked and left open); OSError becomes CaptureError naming the file."""
    name = source_name(source)
    if isinstance(source, (str, os.PathLike)):
        try:
            f = open(source, "rb")
        except OSError as exc:
            raise CaptureError(f"{name}: cannot open ({exc.strerror or exc})") from None
        with f:
            if offset:
                f.seek(offset)
            yield f
    else:
        source.seek(offset)
        yield source


def _read_head(source: Source, n: int = 512) -> bytes:
    """Return the first ``n`` bytes of ``source`` (fewer if it is shorter)."""
    with open_source(source) as f:
        return f.read(n)


def checked_blocks(capture: Capture, max_len: int = BLOCK) -> Iterator[Changes]:
    """Yield the capture's change blocks split to at most ``max_len`` changes, checking that
    times start at sample 0 and strictly increase and that words fit the channel count."""
    last = -1
    nbits = len(capture.channels)
    mask = np.uint64((1 << nbits) - 1) if nbits < 64 else np.uint64(0xFFFF_FFFF_FFFF_FFFF)
    for block in capture.changes():
        times = np.asarray(block.times, dtype=np.int64)
        words = np.asarray(block.words, dtype=np.uint64)
        if len(times) != len(words):
            raise CaptureError(f"change block has {len(times)} times but {len(words)} words")
        if not len(times):
            continue
        if last < 0 and times[0] != 0:
            raise CaptureError(f"first change is at sample {int(times[0])}, expected 0 "
                               "(the initial levels)")
        if times[0] <= last or (len(times) > 1 and np.any(np.diff(times) <= 0)):
            raise CaptureError(f"change times do not increase (near sample {int(times[0])})")
        if np.any(words & ~mask):
            raise CaptureError(f"change word has bits above the {nbits} channels")
        last = int(times[-1])
        for i in range(0, len(times), max_len):
            yield Changes(times[i:i + max_len], words[i:i + max_len])


def atomic_write(path: str | os.PathLike, write: Callable[[BinaryIO], None]) -> None:
    """Call ``write(f)`` on a temporary file next to ``path``, then rename it to ``path``
    (captures.files.atomic_write); errors are CaptureError lines naming ``path``."""
    from captures.files import OutputError
    from captures.files import atomic_write as _atomic_write

    try:
        _atomic_write(path, write, binary=True)
    except OutputError as exc:
        raise CaptureError(str(exc)) from None


def sniff_format(path: str | os.PathLike) -> str:
    """Return the format of the capture at ``path`` (one of READ_FORMATS), from its content
    first and its extension second; raise CaptureError if it is none of them."""
    name = os.fspath(path)
    p = Path(path)
    if p.is_dir():
        if (p / "digital.csv").is_file():
            return "saleae-csv"
        if any(p.glob("digital_*.bin")):
            return "saleae-bin"
        raise CaptureError(f"{name}: folder has no Saleae export (digital.csv or digital_N.bin)")
    head = _read_head(path)
    if not head:
        raise CaptureError(f"{name}: empty file")
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        return "sr"
    if head.startswith(TLC_MAGIC):
        return "tlc"
    if head.startswith(b"\x1f\x8b"):
        return "edges"
    if head.startswith(b"<SALEAE>"):
        return "saleae-bin"
    text = head.lstrip(b"\xef\xbb\xbf").lstrip()
    if text.startswith(b"Time [s]") or text.startswith(b'"Time [s]"'):
        return "saleae-csv"
    if any(text.startswith(k) for k in _VCD_KEYWORDS):
        return "vcd"
    lower = name.lower()
    for ext, fmt in ((".sr", "sr"), (".tlc", "tlc"), (".gz", "edges"), (".vcd", "vcd"),
                     (".csv", "saleae-csv"), (".bin", "saleae-bin")):
        if lower.endswith(ext):
            return fmt
    if lower.endswith(".jsonl") or text.startswith(b'{"t"'):
        raise CaptureError(f"{name}: is an events file (JSON lines), not a pin capture "
                           "(expected a sigrok .sr, .vcd, Saleae digital.csv or .bin, TowerLab "
                           ".tlc or edges .jsonl.gz file)")
    raise CaptureError(f"{name}: unknown capture format (expected a sigrok .sr, .vcd, Saleae "
                       "digital.csv or .bin, TowerLab .tlc or edges .jsonl.gz file)")


def open_capture(path: str | os.PathLike,
                 channel_map: "str | os.PathLike | Mapping[str, str] | None" = None) -> Capture:
    """Open a capture file (or Saleae export folder) of any supported format as a streaming
    Capture; ``channel_map`` (a map file or a {probe: signal} mapping) renames and selects
    channels. Raise CaptureError naming the file on any problem."""
    fmt = sniff_format(path)
    if fmt == "sr":
        from captures.sigrok import read_sr
        cap = read_sr(path)
    elif fmt == "tlc":
        from captures.stream import read_stream
        cap = read_stream(path)
    elif fmt == "edges":
        from captures.edges import read_edges
        cap = read_edges(path)
    elif fmt == "saleae-bin":
        from captures.saleae import read_saleae_bin
        cap = read_saleae_bin(path)
    elif fmt == "saleae-csv":
        from captures.saleae import read_saleae_csv
        p = Path(path)
        cap = read_saleae_csv(p / "digital.csv" if p.is_dir() else p)
    else:
        from captures.vcd import read_vcd
        cap = read_vcd(path)
    if channel_map is not None:
        from captures.channelmap import apply_channel_map, load_channel_map
        cmap = load_channel_map(channel_map)
        map_name = "channel map" if isinstance(channel_map, Mapping) else os.fspath(channel_map)
        cap = apply_channel_map(cap, cmap, map_name, os.fspath(path))
    return cap


def writer_format(path: str | os.PathLike) -> str:
    """Return the format written for ``path`` by its extension; raise CaptureError if none."""
    lower = os.fspath(path).lower()
    for ext, fmt in WRITERS.items():
        if lower.endswith(ext):
            return fmt
    raise CaptureError(f"{os.fspath(path)}: cannot write this extension (expected one of "
                       f"{', '.join(WRITERS)})")


def write_capture(capture: Capture, path: str | os.PathLike) -> None:
    """Write ``capture`` to ``path`` in the format its extension names (.sr, .vcd, .tlc,
    .jsonl.gz), atomically (temporary file, then rename)."""
    fmt = writer_format(path)
    if fmt == "sr":
        from captures.sigrok import write_sr as write
    elif fmt == "vcd":
        from captures.vcd import write_vcd as write
    elif fmt == "tlc":
        from captures.stream import write_stream as write
    else:
        from captures.edges import write_edges as write
    atomic_write(path, lambda f: write(capture, f))
