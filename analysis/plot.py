"""Draw timing diagrams and sound pictures of a capture (matplotlib, Agg backend).

``plot_timing`` draws one row per line between two times: the decoded display text and the
digit bus (O7 digit select with the O0-O6 pattern shown as its character) as labelled bus
segments, then the keypad strobes and rows, R4, the lamps, the sensor LED, the motor, the reel
sensor and the speaker, with tone labels; any other captured line (a probe left unmapped,
SYNC) gets a plain row after them. Rows whose channels are missing are left out; gaps of
the capture (no data) are shaded grey and hatched across every row. Only the
window's edges are kept: change blocks are cut to the window as they stream by
(capture-formats.md §5: plot edges, never per-sample arrays).

``plot_sound`` draws the pitch over time (decoded tones, labelled with note names, gaps
shaded), a spectrogram and the waveform of the speaker rendered as ``analysis.sound`` does; the
spectrogram and the waveform envelope are computed chunk by chunk into a bounded number of
columns.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from analysis.base import AnalysisError
from analysis.display import glyph, segments_from_o
from captures.model import Capture

__all__ = ["plot_timing", "plot_sound", "window_edges", "gap_spans", "TIMING_ROWS"]

# Channels the digit bus row needs (O0-O6 segments, O7 digit select, R4 enable).
_DIGIT_BUS_CHANNELS = tuple(f"O{i}" for i in range(8)) + ("R4",)
# Rows of the timing diagram: (label, channel or None for a bus row).
TIMING_ROWS: tuple[tuple[str, str | None], ...] = (
    ("display", None), ("digit bus", None),
    ("R0 col", "R0"), ("R1 col", "R1"), ("R2 col", "R2"),
    ("K1", "K1"), ("K2", "K2"), ("K4", "K4"), ("K8", "K8"),
    ("R4 /EN", "R4"), ("R7 upper", "R7"), ("R6 middle", "R6"), ("R5 lower", "R5"),
    ("R8 LED", "R8"), ("R9 motor", "R9"), ("SENSOR", "SENSOR"), ("R10 spk", "R10"),
)


def _figure(nrows: int, height: float, width: float = 14.0):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt.subplots(nrows, 1, sharex=True, figsize=(width, height), squeeze=False)


def _check_path(path: str) -> str:
    """Return the image format of ``path`` (png, svg, pdf); raise AnalysisError if it is
    none of them, is a folder, or is in a folder that does not exist (checked before any
    work is done)."""
    from captures.files import OutputError, check_output_path

    ext = str(path).lower().rsplit(".", 1)[-1]
    if ext not in ("png", "svg", "pdf"):
        raise AnalysisError(f"{path}: plot output must end in .png, .svg or .pdf")
    try:
        check_output_path(path)
    except OutputError as exc:
        raise AnalysisError(str(exc)) from None
    return ext


def _save(fig, path: str) -> None:
    """Save the figure through captures.files.atomic_write (nothing half-written)."""
    import matplotlib.pyplot as plt

    from captures.files import OutputError, atomic_write

    fmt = _check_path(path)
    try:
        atomic_write(path, lambda f: fig.savefig(f, format=fmt, dpi=110), binary=True)
    except OutputError as exc:
        raise AnalysisError(str(exc)) from None
    finally:
        plt.close(fig)


def window_edges(capture: Capture, start: int, end: int) -> tuple[np.ndarray, np.ndarray]:
    """Return (times, words) of the changes in samples [start, end), with the level at
    ``start`` as the first entry; blocks outside the window are skipped as they stream."""
    ts, ws = [np.array([start], np.int64)], []
    before = np.uint64(0)
    for block in capture.changes():
        if len(block) == 0:
            continue
        if block.times[0] >= end:
            break
        i0 = int(np.searchsorted(block.times, start, side="right"))
        if i0 > 0:
            before = block.words[i0 - 1]
        i1 = int(np.searchsorted(block.times, end, side="left"))
        if i1 > i0:
            ts.append(block.times[i0:i1])
            ws.append(block.words[i0:i1])
        if block.times[-1] >= end:
            break
    words = np.concatenate([np.array([before], np.uint64)] + ws)
    return np.concatenate(ts), words


def _bus(ax, segments: Sequence[tuple[float, float, str]], x0: float, x1: float,
         color: str) -> None:
    """Draw labelled bus segments (start, end, label) as hexagon-ish boxes (one collection
    for all boxes and one for the idle lines, so a long window draws quickly)."""
    from matplotlib.collections import LineCollection, PolyCollection

    span = x1 - x0
    boxes, idle = [], []
    for a, b, label in segments:
        if not label.strip():
            idle.append([(a, 0.5), (b, 0.5)])
            continue
        d = min((b - a) * 0.2, span * 0.002)
        boxes.append([(a, 0.5), (a + d, 0.9), (b - d, 0.9), (b, 0.5), (b - d, 0.1),
                      (a + d, 0.1)])
        if b - a > span * 0.012:
            ax.text((a + b) / 2, 0.5, label, ha="center", va="center", fontsize=8,
                    family="monospace", clip_on=True)
    if idle:
        ax.add_collection(LineCollection(idle, colors="0.6", linewidths=1))
    if boxes:
        ax.add_collection(PolyCollection(boxes, facecolors=color, edgecolors=color,
                                         alpha=0.35, linewidths=0.8))


def plot_timing(capture: Capture, start_s: float, end_s: float, path: str) -> None:
    """Draw the timing diagram of ``capture`` between ``start_s`` and ``end_s`` seconds."""
    from analysis.decode import iter_decode

    info = capture.info
    _check_path(path)
    if not end_s > start_s >= 0:
        raise AnalysisError(f"plot window {start_s}..{end_s} s must satisfy 0 <= from < to")
    total = info.total_samples
    if total is not None and start_s * info.samplerate >= total:
        raise AnalysisError(f"plot window starts at {start_s} s, after the end of the capture "
                            f"({total / info.samplerate:.3f} s)")
    start, end = int(start_s * info.samplerate), int(np.ceil(end_s * info.samplerate))
    times, words = window_edges(capture, start, end)
    tsec = times / info.samplerate
    stop = end_s if total is None else min(end_s, total / info.samplerate)

    # Decoded display and tones in the window (decoders stream from the start).
    from analysis.display import DisplayDecoder
    from analysis.speaker import SpeakerDecoder
    only = [n for n, cls in (("display", DisplayDecoder), ("speaker", SpeakerDecoder))
            if all(c in info.channels for c in cls.CHANNELS)]
    shown, tones, text_before = [], [], "  "
    if only:
        for ev in iter_decode(capture, only=only):
            if ev["t"] > stop:
                break
            if ev["type"] == "display":
                if ev["t"] <= start_s:
                    text_before = ev["text"]
                else:
                    shown.append(ev)
            elif ev["type"] == "tone" and ev["t"] + ev["dur_s"] >= start_s:
                tones.append(ev)

    rows = _timing_rows(info.channels, "display" in only)
    fig, axes = _figure(len(rows), 0.45 * len(rows) + 1.2)
    for ax, (label, ch) in zip(axes[:, 0], rows):
        ax.set_yticks([])
        ax.set_ylim(-0.1, 1.1)
        ax.set_ylabel(label, rotation=0, ha="right", va="center", fontsize=9)
        for side in ("top", "right", "left"):
            ax.spines[side].set_visible(False)
        if ch is not None:
            bit = np.uint64(info.channels.index(ch))
            lv = ((words >> bit) & np.uint64(1)).astype(float)
            edges = np.append(tsec, stop)
            # Steps as one polyline (x repeated at each edge): fast for long windows.
            ax.plot(np.repeat(edges, 2)[1:-1], np.repeat(lv * 0.8 + 0.1, 2),
                    color="tab:blue", lw=1)
            if ch == "R10":
                # One label per tone, skipping those that would overprint the previous one.
                room, last_x = 0.12 * (stop - start_s), -np.inf
                for tone in tones:
                    if max(tone["t"], start_s) - last_x < room:
                        continue
                    last_x = max(tone["t"], start_s)
                    name = "click" if tone["freq_hz"] is None else \
                        f"{tone['freq_hz']:g} Hz {tone.get('note', '')}"
                    ax.text(max(tone["t"], start_s), 0.5, " " + name, fontsize=8,
                            va="center", color="tab:red", clip_on=True,
                            bbox=dict(fc="white", ec="none", alpha=0.7, pad=0.5))
        elif label == "display":
            # A gap ends what was shown before it (the decoder writes the text again after).
            marks = sorted([(start_s, text_before)] + [(e["t"], e["text"]) for e in shown]
                           + [(a, "  ") for a, _ in gap_spans(capture, start_s, stop)
                              if a > start_s], key=lambda m: m[0])
            segs = [(a, (marks[i + 1][0] if i + 1 < len(marks) else stop),
                     text.replace(" ", "_") if text.strip() else " ")
                    for i, (a, text) in enumerate(marks)]
            _bus(ax, segs, start_s, stop, "tab:green")
        else:
            _bus(ax, _digit_segments(info, tsec, words, stop), start_s, stop, "tab:orange")
    for a, b in gap_spans(capture, start_s, stop):
        for ax in axes[:, 0]:
            ax.axvspan(a, b, color="0.85", hatch="//", ec="0.6", lw=0, zorder=3)
    axes[-1, 0].set_xlim(start_s, stop)
    axes[-1, 0].set_xlabel("time (s)")
    fig.suptitle(f"timing {start_s:g}-{stop:g} s ({info.samplerate:g} Hz, "
                 f"{len(times) - 1} changes)", fontsize=10)
    fig.tight_layout()
    _save(fig, path)


def gap_spans(capture: Capture, start_s: float, end_s: float) -> list[tuple[float, float]]:
    """Return the capture's gaps that overlap ``start_s``..``end_s`` as (start, end) seconds,
    clipped to that window."""
    rate = capture.info.samplerate
    spans = []
    for g in sorted(capture.gaps, key=lambda g: g.start):
        a, b = max(g.start / rate, start_s), min(g.end / rate, end_s)
        if b > a:
            spans.append((a, b))
    return spans


def _timing_rows(channels: Sequence[str], display: bool) -> list[tuple[str, str | None]]:
    """Return the rows (label, channel or None for a bus) to draw for these channels."""
    digit_bus = all(c in channels for c in _DIGIT_BUS_CHANNELS)
    rows: list[tuple[str, str | None]] = []
    if display:
        rows.append(("display", None))
    if digit_bus:
        rows.append(("digit bus", None))
    rows += [(label, ch) for label, ch in TIMING_ROWS if ch is not None and ch in channels]
    drawn = {ch for _, ch in TIMING_ROWS} | ({f"O{i}" for i in range(8)} if digit_bus else set())
    # R3 is not wired on the Dark Tower board (tms1400-facts.md §12.2): no row.
    rows += [(c, c) for c in channels if c not in drawn and c != "R3"]
    return rows


def _digit_segments(info, tsec: np.ndarray, words: np.ndarray,
                    stop: float) -> list[tuple[float, float, str]]:
    """Return bus segments of the multiplexed digit bus: "L:5" / "R:-" / blank."""
    names = [f"O{i}" for i in range(8)] + ["R4"]
    if not all(n in info.channels for n in names):
        return []
    idx = [info.channels.index(n) for n in names]
    labels = []
    for w in words.tolist():
        o = sum(((w >> i) & 1) << k for k, i in enumerate(idx[:8]))
        if (w >> idx[8]) & 1:
            labels.append(" ")
        else:
            ch = glyph(segments_from_o(o & 0x7F))[0]
            labels.append(f"{'R' if o >> 7 else 'L'}:{ch}" if ch != " " else " ")
    segs = []
    for i, lab in enumerate(labels):
        a = tsec[i]
        b = tsec[i + 1] if i + 1 < len(tsec) else stop
        if segs and segs[-1][2] == lab:
            segs[-1] = (segs[-1][0], b, lab)
        else:
            segs.append((a, b, lab))
    return segs


def _labelled_tones(tones: Sequence[dict], duration: float) -> list[dict]:
    """Return the tones that get a note label in the pitch plot: a label is skipped if it
    would overprint one already placed (closer than a label's width, about 1/22 of the
    ``duration`` in seconds, and a label's height, a pitch ratio of 1.15)."""
    placed: list[dict] = []
    for t in tones:
        if not any(abs(t["t"] - p["t"]) < duration / 22
                   and max(t["freq_hz"], p["freq_hz"]) / min(t["freq_hz"], p["freq_hz"]) < 1.15
                   for p in placed):
            placed.append(t)
    return placed


def plot_sound(capture: Capture, path: str, rate: int = 22050, columns: int = 1500) -> None:
    """Draw pitch (tones with note names), spectrogram and waveform of the speaker."""
    from analysis.decode import iter_decode
    from analysis.sound import render

    _check_path(path)
    tones = [e for e in iter_decode(capture, only=["speaker"]) if e["type"] == "tone"]
    info = capture.info
    total = info.total_samples
    duration = (total / info.samplerate) if total else None
    nfft = 1024
    if duration is None:
        last = 0
        for block in capture.changes():
            if len(block):
                last = int(block.times[-1])
        duration = (last + 1) / info.samplerate
    n_total = int(duration * rate)
    hop = max(nfft // 2, n_total // columns + 1)
    win = np.hanning(nfft)
    spec_cols, env_min, env_max = [], [], []
    env_bin = max(1, n_total // 3000 + 1)
    buf = np.zeros(0)
    pos = 0                 # sample index of buf[0]
    next_frame = 0
    env_buf = np.zeros(0)
    for chunk in render(capture, rate=rate, gain=1.0):
        buf = np.concatenate((buf, chunk))
        while next_frame + nfft <= pos + len(buf):
            f = buf[next_frame - pos:next_frame - pos + nfft]
            spec_cols.append(np.abs(np.fft.rfft(f * win)))
            next_frame += hop
        drop = min(len(buf), max(0, next_frame - pos))
        buf, pos = buf[drop:], pos + drop
        env_buf = np.concatenate((env_buf, chunk))
        nb = len(env_buf) // env_bin
        if nb:
            blk = env_buf[:nb * env_bin].reshape(nb, env_bin)
            env_min.append(blk.min(axis=1))
            env_max.append(blk.max(axis=1))
            env_buf = env_buf[nb * env_bin:]

    fig, axes = _figure(3, 9.0)
    ax_p, ax_s, ax_w = axes[:, 0]
    real = [t for t in tones if t["freq_hz"]]
    for t in real:
        ax_p.plot([t["t"], t["t"] + t["dur_s"]], [t["freq_hz"]] * 2, color="tab:blue", lw=3,
                  solid_capstyle="butt")
    if real:
        # Short tones (key clicks, beeps) would be invisible as segments: mark their starts.
        ax_p.plot([t["t"] for t in real], [t["freq_hz"] for t in real], "o", ms=3,
                  color="tab:blue")
    clicks = [t["t"] for t in tones if not t["freq_hz"]]
    if clicks:
        ax_p.plot(clicks, [60] * len(clicks), "|", color="tab:red", label="clicks")
        ax_p.legend(loc="upper right", fontsize=8)
    for t in _labelled_tones(real, duration):
        ax_p.text(t["t"], t["freq_hz"] * 1.04, f"{t.get('note', '')} {t['freq_hz']:.0f}",
                  fontsize=7)
    ax_p.set_yscale("log")
    lo_f, hi_f = 50.0, 4000.0
    if real:
        freqs = [t["freq_hz"] for t in real]
        lo_f, hi_f = min(freqs) / 1.5, max(freqs) * 1.5
    ax_p.set_ylim(lo_f, hi_f)
    ticks = [f for f in (50, 75, 100, 150, 200, 300, 400, 600, 800, 1000, 1500, 2000, 3000,
                         4000) if lo_f <= f <= hi_f]
    ax_p.set_yticks(ticks, [str(f) for f in ticks])
    ax_p.minorticks_off()
    ax_p.set_ylabel("pitch (Hz)")
    ax_p.set_title(f"speaker: {len(real)} tones, {len(clicks)} clicks", fontsize=10)
    if spec_cols:
        s = np.array(spec_cols).T
        freqs = np.fft.rfftfreq(nfft, 1 / rate)
        keep = freqs <= 5000
        img = 20 * np.log10(s[keep] + 1e-6)
        t_cols = (np.arange(s.shape[1]) * hop + nfft / 2) / rate
        ax_s.pcolormesh(t_cols, freqs[keep], img, shading="nearest", cmap="magma",
                        vmin=img.max() - 70, vmax=img.max(), rasterized=True)
    ax_s.set_facecolor("black")       # silence past the last spectrogram column
    ax_s.set_ylabel("frequency (Hz)")
    if env_min:
        lo, hi = np.concatenate(env_min), np.concatenate(env_max)
        tt = (np.arange(len(lo)) + 0.5) * env_bin / rate
        ax_w.fill_between(tt, lo, hi, color="tab:gray", lw=0)
    for a, b in gap_spans(capture, 0.0, duration):
        for ax in (ax_p, ax_w):
            ax.axvspan(a, b, color="0.85", hatch="//", ec="0.6", lw=0, zorder=0)
    ax_w.set_ylabel("waveform")
    ax_w.set_xlabel("time (s)")
    ax_w.set_xlim(0, duration)
    fig.tight_layout()
    _save(fig, path)
