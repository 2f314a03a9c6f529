"""Open and write capture files of any supported format, by content or extension.

A format is one module plus one row of ``FORMATS`` (a ``CaptureFormat``): its name, reader,
writer and written extension, and how it is recognised: first bytes (``magic``), first text
(``text_start``, after a UTF-8 byte-order mark and white space), file name endings, and the
files a folder export holds. The format modules share ``captures.source`` and never import
this module or each other.

``open_capture(path)`` sniffs the content first (every row's magic, then every row's first
text), then the extension:

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

Example::

    cap = open_capture("tests/data/captures/tower_test/capture.sr")
    write_capture(cap, "/tmp/tower_test.vcd")
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO, Callable, Mapping

from captures.model import Capture, CaptureError
from captures.source import atomic_write, read_head

__all__ = ["open_capture", "write_capture", "sniff_format", "writer_format", "CaptureFormat",
           "formats", "writers"]


@dataclass(frozen=True)
class CaptureFormat:
    """One capture file format: how to read, write and recognise it."""
    name: str
    read: Callable[[str | os.PathLike], Capture]   # a path (or folder) -> streaming Capture
    write: Callable[[Capture, BinaryIO], None] | None = None
    write_ext: str | None = None                   # the extension written
    magic: tuple[bytes, ...] = ()                  # first bytes of the file
    text_start: tuple[bytes, ...] = ()             # first text, BOM and white space stripped
    extensions: tuple[str, ...] = ()               # file name endings (lower case)
    folder_file: str | None = None                 # a glob a folder export of it holds


@lru_cache(maxsize=1)
def formats() -> tuple[CaptureFormat, ...]:
    """Return the format rows (in the order folders are tried: Saleae CSV before binary)."""
    from captures import edges, saleae, sigrok, stream, vcd

    return (
        CaptureFormat("sr", sigrok.read_sr, sigrok.write_sr, ".sr",
                      magic=(b"PK\x03\x04", b"PK\x05\x06"), extensions=(".sr",)),
        CaptureFormat("vcd", vcd.read_vcd, vcd.write_vcd, ".vcd", text_start=vcd.KEYWORDS,
                      extensions=(".vcd",)),
        CaptureFormat("tlc", stream.read_stream, stream.write_stream, ".tlc",
                      magic=(stream.MAGIC,), extensions=(".tlc",)),
        CaptureFormat("edges", edges.read_edges, edges.write_edges, ".jsonl.gz",
                      magic=(b"\x1f\x8b",), extensions=(".gz",)),
        CaptureFormat("saleae-csv", saleae.read_saleae_export_csv,
                      text_start=(b"Time [s]", b'"Time [s]"'), extensions=(".csv",),
                      folder_file="digital.csv"),
        CaptureFormat("saleae-bin", saleae.read_saleae_bin, magic=(saleae.MAGIC,),
                      extensions=(".bin",), folder_file="digital_*.bin"),
    )


def writers() -> dict[str, str]:
    """Return extension -> name of every format with a writer (.sr, .vcd, .tlc, .jsonl.gz)."""
    return {f.write_ext: f.name for f in formats() if f.write is not None}

_EXPECTED = ("expected a sigrok .sr, .vcd, Saleae digital.csv or .bin, TowerLab .tlc or edges "
             ".jsonl.gz file")


def _row(name: str) -> CaptureFormat:
    return next(f for f in formats() if f.name == name)


def sniff_format(path: str | os.PathLike) -> str:
    """Return the format of the capture at ``path`` (a row's name), from its content
    first and its extension second; raise CaptureError if it is none of them."""
    name = os.fspath(path)
    p = Path(path)
    rows = formats()
    if p.is_dir():
        for fmt in rows:
            if fmt.folder_file and any(p.glob(fmt.folder_file)):
                return fmt.name
        raise CaptureError(f"{name}: folder has no Saleae export (digital.csv or digital_N.bin)")
    head = read_head(path)
    if not head:
        raise CaptureError(f"{name}: empty file")
    for fmt in rows:
        if any(head.startswith(m) for m in fmt.magic):
            return fmt.name
    text = head.lstrip(b"\xef\xbb\xbf").lstrip()
    for fmt in rows:
        if any(text.startswith(t) for t in fmt.text_start):
            return fmt.name
    lower = name.lower()
    for fmt in rows:
        if any(lower.endswith(ext) for ext in fmt.extensions):
            return fmt.name
    if lower.endswith(".jsonl") or text.startswith(b'{"t"'):
        raise CaptureError(f"{name}: is an events file (JSON lines), not a pin capture "
                           f"({_EXPECTED})")
    raise CaptureError(f"{name}: unknown capture format ({_EXPECTED})")


def open_capture(path: str | os.PathLike,
                 channel_map: "str | os.PathLike | Mapping[str, str] | None" = None) -> Capture:
    """Open a capture file (or Saleae export folder) of any supported format as a streaming
    Capture; ``channel_map`` (a map file or a {probe: signal} mapping) renames and selects
    channels. Raise CaptureError naming the file on any problem."""
    cap = _row(sniff_format(path)).read(path)
    if channel_map is not None:
        from captures.channelmap import apply_channel_map, load_channel_map
        cmap = load_channel_map(channel_map)
        map_name = "channel map" if isinstance(channel_map, Mapping) else os.fspath(channel_map)
        cap = apply_channel_map(cap, cmap, map_name, os.fspath(path))
    return cap


def writer_format(path: str | os.PathLike) -> str:
    """Return the format written for ``path`` by its extension; raise CaptureError if none."""
    lower = os.fspath(path).lower()
    known = writers()
    for ext, fmt in known.items():
        if lower.endswith(ext):
            return fmt
    raise CaptureError(f"{os.fspath(path)}: cannot write this extension (expected one of "
                       f"{', '.join(known)})")


def write_capture(capture: Capture, path: str | os.PathLike) -> None:
    """Write ``capture`` to ``path`` in the format its extension names (.sr, .vcd, .tlc,
    .jsonl.gz), atomically (temporary file, then rename)."""
    write = _row(writer_format(path)).write
    atomic_write(path, lambda f: write(capture, f))
