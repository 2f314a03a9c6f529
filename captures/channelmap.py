"""Rename and select the channels of a capture with a channel map (probe names -> signals).

A logic analyser names its inputs after its probes (sigrok ``D0``..``D15``, Saleae
``Channel 0``..); a channel map says which tower signal each probe was clipped to. File format
(one mapping per line, ``#`` starts a comment, blank lines ignored, names may contain spaces)::

    # 8-channel FX2 clone on a Rev C tower
    D0 = R4
    D1 = R10
    Channel 2 = R9

Signal names are free for conversion (``towerlab convert`` may rename ``R10`` to ``SPK``);
tools that read the tower's pins check them with ``check_tower_signals``: the pin names
(``DARKTOWER_CHANNELS``: R0-R10, O0-O7, K1 K2 K4 K8, SENSOR) or ``SYNC`` (the button box's
sync output, rig/README.md), so a typo ("r10") does not silently leave a decoder without its
channel.
Applying a map keeps only the mapped channels, in the map's order, under their new names; a
probe name the capture does not have is an error that lists the capture's channels.
"""
from __future__ import annotations

import os
from typing import Iterator, Mapping

import numpy as np

from captures.model import DARKTOWER_CHANNELS, Capture, CaptureError, CaptureInfo, Changes

__all__ = ["SIGNALS", "parse_channel_map", "load_channel_map", "apply_channel_map",
           "check_tower_signals"]

# The names a probe may be mapped to for the decoders.
SIGNALS = DARKTOWER_CHANNELS + ("SYNC",)


def parse_channel_map(text: str, name: str = "channel map") -> dict[str, str]:
    """Parse channel-map text (``probe = SIGNAL`` lines) into an ordered dict; raise
    CaptureError naming ``name`` and the line on a malformed or repeated entry."""
    result: dict[str, str] = {}
    seen_signals: dict[str, int] = {}
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        probe, eq, signal = line.partition("=")
        probe, signal = probe.strip(), signal.strip()
        if not eq or not probe or not signal:
            raise CaptureError(f"{name}:{n}: expected 'probe = SIGNAL', got {raw.strip()!r}")
        if probe in result:
            raise CaptureError(f"{name}:{n}: probe {probe!r} is mapped twice")
        if signal in seen_signals:
            raise CaptureError(f"{name}:{n}: signal {signal!r} is already mapped on line "
                               f"{seen_signals[signal]}")
        result[probe] = signal
        seen_signals[signal] = n
    if not result:
        raise CaptureError(f"{name}: channel map has no 'probe = SIGNAL' lines")
    return result


def load_channel_map(source: "str | os.PathLike | Mapping[str, str]") -> dict[str, str]:
    """Return the mapping from a channel-map file path, or check and copy a given mapping."""
    if isinstance(source, Mapping):
        text = "\n".join(f"{k} = {v}" for k, v in source.items())
        if any("=" in k or "#" in k or "\n" in k + v for k, v in source.items()):
            raise CaptureError("channel map: names may not contain '=', '#' or newlines")
        return parse_channel_map(text)
    name = os.fspath(source)
    try:
        with open(source, encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        raise CaptureError(f"{name}: cannot read channel map ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise CaptureError(f"{name}: channel map is not UTF-8 text") from None
    return parse_channel_map(text, name)


def check_tower_signals(cmap: Mapping[str, str], name: str = "channel map") -> None:
    """Raise CaptureError naming ``name`` if a probe is mapped to a signal that is not a
    tower pin or SYNC (``SIGNALS``), with the likely intended name when there is one."""
    for probe, signal in cmap.items():
        if signal not in SIGNALS:
            like = [s for s in SIGNALS if s == signal.upper().replace(" ", "").replace("_", "")]
            hint = f"did you mean {like[0]!r}? " if like else ""
            raise CaptureError(f"{name}: {probe} = {signal}: unknown signal {signal!r} ({hint}"
                               "expected R0-R10, O0-O7, K1 K2 K4 K8, SENSOR or SYNC)")


def apply_channel_map(capture: Capture, cmap: Mapping[str, str],
                      map_name: str = "channel map", capture_name: str = "the capture") -> Capture:
    """Return a Capture with only the mapped channels, renamed, in map order (streaming);
    ``map_name`` and ``capture_name`` name the two files in the error for an unknown probe."""
    missing = [p for p in cmap if p not in capture.channels]
    if missing:
        raise CaptureError(f"{map_name}: probe {missing[0]!r} is not in {capture_name} "
                           f"(channels: {', '.join(capture.channels)})")
    src_bits = np.array([capture.channels.index(p) for p in cmap], dtype=np.uint64)
    dst_bits = np.arange(len(src_bits), dtype=np.uint64)
    info = CaptureInfo(list(cmap.values()), capture.samplerate, capture.info.total_samples,
                       dict(capture.info.meta))
    one = np.uint64(1)

    def factory() -> Iterator[Changes]:
        last = None
        for block in capture.changes():
            if not len(block):
                continue
            bits = (block.words[:, None] >> src_bits) & one
            words = np.bitwise_or.reduce(bits << dst_bits, axis=1).astype(np.uint64)
            keep = np.empty(len(words), dtype=bool)
            keep[0] = last is None or int(words[0]) != last
            np.not_equal(words[1:], words[:-1], out=keep[1:])
            last = int(words[-1])
            if keep.any():
                yield Changes(block.times[keep], words[keep])

    out = Capture(info, factory, capture.gaps)
    out.warnings = list(capture.warnings)
    return out
