"""Draw timing diagrams, session overviews and sound pictures (matplotlib, Agg backend).

``plot_timing`` draws one row per line between two times: the decoded display text and the
digit bus (O7 digit select with the O0-O6 pattern shown as its character) as labelled bus
segments, then the keypad strobes and rows, R4, the lamps, the sensor LED, the motor, the reel
sensor and the speaker, with tone labels; any other captured line (a probe left unmapped,
SYNC) gets a plain row after them. Rows whose channels are missing are left out; gaps of
the capture (no data) are shaded grey and hatched across every row. Only the
window's edges are kept: change blocks are cut to the window as they stream by
(docs/capture-formats.md §5: plot edges, never per-sample arrays).

Above those rows, ``plot_timing`` draws the decoded lanes of the overview (lamps, motor, reel,
tones, buttons) for the same window.

``plot_overview`` draws a whole session from its events, one lane each: the display text as
labelled blocks, the lamps (each lit span named by the picture it lights: the reel's card at
the time, ``REEL_CARDS``), the motor, the reel's card position, the tones as notes on a pitch
scale (clicks as ticks) and the button presses (press to release, short names). Blocks
narrower than a pixel that lie within a pixel of each other merge into one hatched block with
a count (``aggregate``), tones of one note in one pixel column into one mark (``tone_marks``),
so a session of many minutes stays readable; a label is written inside its block, or once
over a run of blocks with that label (a flashing text), where it fits.

``plot_sound`` draws the pitch over time (decoded tones, labelled with note names, gaps
shaded), a spectrogram and the waveform of the speaker rendered as ``analysis.sound`` does; the
spectrogram and the waveform envelope are computed chunk by chunk into a bounded number of
columns.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Sequence

import numpy as np

from analysis.base import AnalysisError
from analysis.display import glyph, segments_from_o
from analysis.speaker import note_name
from analysis.pictures import BLANK, LAMPS, lit_pictures
from captures.darktower_facts import LAMP_PINS
from captures.darktower_game import BUTTON_SHORT, REEL_CARDS
from captures.model import Capture

__all__ = ["plot_timing", "timing_figure", "plot_sound", "window_edges", "gap_spans",
           "TIMING_ROWS", "plot_overview", "overview_figure", "figure_bytes", "draw_lanes",
           "Block", "Layout", "aggregate", "display_blocks", "lamp_blocks", "motor_blocks",
           "reel_blocks", "reel_steps", "button_blocks", "button_legend", "tone_marks",
           "session_end", "capture_end", "lanes_with_data", "legend_text", "REEL_CARDS",
           "BUTTON_SHORT", "OVERVIEW_LANES", "LANE_LABELS"]

# Channels the digit bus row needs (O0-O6 segments, O7 digit select, R4 enable).
_DIGIT_BUS_CHANNELS = tuple(f"O{i}" for i in range(8)) + ("R4",)
# Rows of the timing diagram: (label, channel or None for a bus row).
TIMING_ROWS: tuple[tuple[str, str | None], ...] = (
    ("display", None), ("digit bus", None),
    # the O lines under the bus: O0-O6 each drive one segment, O7 picks the digit (0 left)
    ("O0 seg g", "O0"), ("O1 seg c", "O1"), ("O2 seg d", "O2"), ("O3 seg e", "O3"),
    ("O4 seg f", "O4"), ("O5 seg a", "O5"), ("O6 seg b", "O6"), ("O7 digit R", "O7"),
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
    """Draw the timing diagram of ``capture`` between ``start_s`` and ``end_s`` seconds
    (``timing_figure``) to ``path`` (.png, .svg, .pdf)."""
    _check_path(path)
    _save(timing_figure(capture, start_s, end_s), path)


def timing_figure(capture: Capture, start_s: float, end_s: float):
    """Build the timing diagram of ``capture`` between ``start_s`` and ``end_s`` seconds: the
    decoded lanes, then the display, the digit bus and one row per pin; return the figure."""
    from analysis.decode import iter_decode

    info = capture.info
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

    # Every decoder the channels allow, up to the window's end (decoders stream from the
    # start): the display and tones for the rows below, all of it for the decoded lanes.
    from analysis.decode import DECODERS
    only = [n for n, cls in DECODERS.items() if all(c in info.channels for c in cls.CHANNELS)]
    shown, tones, text_before, decoded = [], [], "  ", []
    if only:
        for ev in iter_decode(capture, only=only):
            if ev["t"] > stop:
                break
            decoded.append(ev)
            if ev["type"] == "display":
                if ev["t"] <= start_s:
                    text_before = ev["text"]
                else:
                    shown.append(ev)
            elif ev["type"] == "tone" and ev["t"] + ev["dur_s"] >= start_s:
                tones.append(ev)
    for g in capture.gaps:
        decoded.append({"t": g.start / info.samplerate, "type": "gap",
                        "dur_s": (g.end - g.start) / info.samplerate, "reason": g.reason})
    decoded.sort(key=lambda e: e["t"])

    rows = _timing_rows(info.channels, "display" in only)
    # only the decoded lanes with something in the window (an empty lane says nothing)
    lanes = lanes_with_data(decoded, _zoom_lanes(only), start_s, stop)
    height = 0.45 * len(rows) + sum(_LANE_HEIGHT[n] for n in lanes) + 1.2
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig = plt.figure(figsize=(14.0, height))
    all_axes = _lane_axes(fig, lanes, extra=len(rows))
    width_px = 14.0 * _DPI * 0.85
    draw_lanes(all_axes[:len(lanes)], lanes, decoded, start_s, stop,
               (stop - start_s) / width_px, end=stop)
    axes = np.array(all_axes, dtype=object).reshape(-1, 1)
    for ax, (label, ch) in zip(axes[len(lanes):, 0], rows):
        ax.set_yticks([])
        if ch is not None:                # a pin: its two levels on the axis
            ax.set_yticks([0.1, 0.9], ["0", "1"], fontsize=6)
        ax.set_ylim(-0.1, 1.1)
        ax.set_ylabel(label, rotation=0, ha="right", va="center", fontsize=9)
        for side in ("top", "right") + (("left",) if ch is None else ()):
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
    fig.subplots_adjust(left=0.1, right=0.98, top=1 - 0.45 / height, bottom=0.55 / height)
    return fig


def _zoom_lanes(decoders: Sequence[str]) -> list[str]:
    """Return the decoded lanes drawn above the pin rows of a timing plot: those of the
    overview the ``decoders`` feed, but the display (it has its own row)."""
    feeds = {"lamps": "lamps", "motor": "motor", "reel": "reel", "tones": "speaker",
             "buttons": "keypad"}
    return [lane for lane in OVERVIEW_LANES if feeds.get(lane) in decoders]


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
    drawn = {ch for _, ch in TIMING_ROWS}
    # R3 is not wired on the Dark Tower board (docs/dark-tower-wiring.md §2): no row.
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


# ---- the overview: what the tower showed over a whole session, lane by lane --------------

OVERVIEW_LANES = ("display", "lamps", "motor", "reel", "tones", "buttons")
# What each lane's label says (with its unit where it has one).
LANE_LABELS = {"tones": "tones\n(Hz)", "reel": "reel\ncard"}
_LANE_HEIGHT = {"display": 0.55, "lamps": 0.9, "motor": 0.35, "reel": 0.55, "tones": 1.1,
                "buttons": 0.55}
_MARGIN_LEFT, _MARGIN_RIGHT = 0.09, 0.985       # axes span of every lane (figure fractions)
_DPI = 110
_CHAR_PX = 6.7                                   # width of one monospace character at 8 pt
FLASH_RUN_S = 0.6      # blocks of one label closer than this are one run (a flashing text)


class Block(NamedTuple):
    """A span of one lane (seconds) with its label; ``count`` > 1 when it stands for that
    many blocks merged because each was narrower than a pixel."""
    start: float
    end: float
    label: str
    count: int = 1


@dataclass(frozen=True)
class Layout:
    """Where the time axis of a drawn overview lies: ``t0``..``t1`` seconds span the
    figure's width fractions ``left``..``right``; the image is ``width_px`` x
    ``height_px`` pixels."""
    t0: float
    t1: float
    left: float
    right: float
    width_px: int
    height_px: int


def session_end(events: Sequence[dict]) -> float:
    """Return the time (s) at which the last event of ``events`` ends (tones and gaps last
    ``dur_s``), 0 for none."""
    return max([e["t"] + (e.get("dur_s") or 0.0) for e in events] + [0.0])


def _gap_starts(events: Sequence[dict]) -> list[float]:
    return [e["t"] for e in events if e["type"] == "gap"]


def _spans(changes: Sequence[tuple[float, str]], end: float,
           cuts: Sequence[float] = ()) -> list[Block]:
    """Turn (time, state) changes into blocks of the non-empty states; a cut (a gap's start)
    ends the state that runs over it."""
    marks = sorted(list(changes) + [(t, "") for t in cuts], key=lambda m: m[0])
    out = []
    for i, (t, state) in enumerate(marks):
        stop = marks[i + 1][0] if i + 1 < len(marks) else end
        if state and stop > t:
            out.append(Block(t, stop, state))
    return out


def display_blocks(events: Sequence[dict], end: float) -> list[Block]:
    """Return the display lane: one block per text shown (blank digits as ``_``), from the
    display events; blank is no block."""
    return _spans([(e["t"], e["text"].replace(" ", "_") if e["text"].strip() else "")
                   for e in events if e["type"] == "display"], end, _gap_starts(events))


def lamp_blocks(events: Sequence[dict], end: float) -> dict[str, list[Block]]:
    """Return, per lamp (upper, middle, lower), the spans it was lit, each labelled with
    the picture it lit (``analysis.pictures``: the card in front of it, reported up to a
    frame after the lamp): its name, "blank (card 7)", or "card ?" while the reel's
    position is unknown; a span is split where the card changes."""
    out: dict[str, list[Block]] = {lamp: [] for lamp in LAMPS}
    for lit in lit_pictures(events, end):
        label = (lit.picture if lit.picture not in ("", BLANK) else
                 f"blank (card {lit.card})" if lit.picture == BLANK else "card ?")
        out[lit.lamp].append(Block(lit.start, lit.end, label))
    return out


def motor_blocks(events: Sequence[dict], end: float) -> list[Block]:
    """Return the spans the reel motor ran."""
    return _spans([(e["t"], "on" if e["on"] else "") for e in events if e["type"] == "motor"],
                  end, _gap_starts(events))


def reel_blocks(events: Sequence[dict], end: float) -> list[Block]:
    """Return the reel lane: one block per card position in front of the windows, labelled
    with the position and its three pictures."""
    def label(pos: int) -> str:
        names = "/".join(n for n in REEL_CARDS.get(pos, ()) if n)
        return f"{pos} {names}".strip()
    return _spans([(e["t"], label(e["card_pos"])) for e in events if e["type"] == "reel"],
                  end, _gap_starts(events))


def reel_steps(events: Sequence[dict], end: float) -> tuple[list[float], list[int]]:
    """Return the reel lane's line: the times (s) at which the card in front changed and the
    card from each on (the last one held to ``end``); empty before any reel event."""
    times, cards = [], []
    for e in sorted((e for e in events if e["type"] == "reel"), key=lambda e: e["t"]):
        if cards and cards[-1] == e["card_pos"]:
            continue
        times.append(e["t"])
        cards.append(e["card_pos"])
    if times:
        times.append(max(end, times[-1]))
        cards.append(cards[-1])
    return times, cards


def button_blocks(events: Sequence[dict], end: float) -> list[Block]:
    """Return the button lane: one block per press, from press to release, labelled with the
    button's short name (``BUTTON_SHORT``). A decoded release ends the block at its release
    edge (``down_until``, analysis/keypad.py): the first scan that sees a key up can come
    long after it was let go."""
    out, down = [], {}
    for e in sorted((e for e in events if e["type"] == "button"), key=lambda e: e["t"]):
        if e["action"] == "press":
            down.setdefault(e["button"], e["t"])
        elif e["button"] in down:
            a = down.pop(e["button"])
            out.append(Block(a, max(a, e.get("down_until", e["t"])),
                             BUTTON_SHORT.get(e["button"], e["button"])))
    out += [Block(a, end, BUTTON_SHORT.get(b, b)) for b, a in down.items()]
    return sorted(out)


def button_legend(events: Sequence[dict]) -> str:
    """Return the legend of the short names the button lane uses for ``events``:
    "Y YES/BUY, N NO/END" in panel order; "" without presses."""
    from captures.darktower_facts import BUTTONS

    used = {e["button"] for e in events if e["type"] == "button"}
    return ", ".join(f"{BUTTON_SHORT[b]} {b}" for b in BUTTONS if b in used)


def aggregate(blocks: Sequence[Block], px_s: float) -> list[Block]:
    """Merge each run of blocks narrower than ``px_s`` seconds (one pixel) that lie closer
    than a pixel to each other into one block; it is labelled with the label that covers the
    most time in it and counts the blocks it stands for. Wider blocks are kept as they are."""
    out: list[Block] = []
    group: list[Block] = []

    def flush() -> None:
        if len(group) == 1:
            out.append(group[0])
        elif group:
            cover: dict[str, float] = {}
            for b in group:
                cover[b.label] = cover.get(b.label, 0.0) + (b.end - b.start)
            out.append(Block(group[0].start, max(b.end for b in group),
                             max(cover, key=cover.get), sum(b.count for b in group)))
        group.clear()

    for b in sorted(blocks):
        narrow = b.end - b.start < px_s
        if group and narrow and b.start - max(g.end for g in group) < px_s:
            group.append(b)
            continue
        flush()
        if narrow:
            group.append(b)
        else:
            out.append(b)
    flush()
    return out


def tone_marks(events: Sequence[dict], px_s: float, t0: float = 0.0
               ) -> list[tuple[float, float, float | None, str, int]]:
    """Return the tones lane as (start, end, freq_hz or None for clicks, note, count): tones
    of the same note starting in the same pixel column (``px_s`` seconds from ``t0``) are one
    mark spanning them all."""
    cols: dict[tuple[int, str], list] = {}
    for e in events:
        if e["type"] != "tone":
            continue
        freq = e["freq_hz"]
        note = "click" if freq is None else (e.get("note") or note_name(freq)[0])
        key = (int((e["t"] - t0) // px_s), note)
        end = e["t"] + max(float(e["dur_s"]), 0.0)
        if key in cols:
            m = cols[key]
            m[1] = max(m[1], end)
            m[4] += 1
            if freq is not None:
                m[5] += freq
        else:
            cols[key] = [e["t"], end, freq, note, 1, freq or 0.0]
    out = []
    for start, end, freq, note, count, fsum in sorted(cols.values(), key=lambda m: m[0]):
        out.append((start, end, None if freq is None else fsum / count, note, count))
    return out


def _lane_axes(fig, lanes: Sequence[str], extra: int = 0, extra_height: float = 0.45):
    """Return one axes per lane (and ``extra`` pin rows below), sharing the time axis."""
    ratios = [_LANE_HEIGHT[n] for n in lanes] + [extra_height] * extra
    gs = fig.add_gridspec(len(ratios), 1, height_ratios=ratios, hspace=0.12)
    axes = []
    for i in range(len(ratios)):
        ax = fig.add_subplot(gs[i, 0], sharex=axes[0] if axes else None)
        ax.set_yticks([])
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        if i < len(ratios) - 1:
            ax.tick_params(labelbottom=False)
        axes.append(ax)
    return axes


def _label_runs(blocks: Sequence[Block], gap_s: float) -> list[list[Block]]:
    """Group consecutive blocks that carry the same label and lie less than ``gap_s`` seconds
    apart (a flashing text, a button pressed again) into runs."""
    runs: list[list[Block]] = []
    for b in blocks:
        if runs and runs[-1][-1].label == b.label and b.start - runs[-1][-1].end < gap_s:
            runs[-1].append(b)
        else:
            runs.append([b])
    return runs


def _draw_blocks(ax, blocks: Sequence[Block], y0: float, h: float, color: str,
                 px_s: float, t0: float, t1: float) -> None:
    """Draw blocks as boxes from ``y0`` to ``y0 + h``; merged blocks are hatched. Labels:
    inside each box that is wide enough; else once over a run of boxes with that label
    (``_label_runs``), centred when the run is wide enough, else starting at the run, when
    there is room before the next run."""
    from matplotlib.collections import PolyCollection

    plain, merged = [], []
    shown = [b for b in blocks if b.end >= t0 and b.start <= t1]
    for b in shown:
        a, e = b.start, max(b.end, b.start + px_s)
        box = [(a, y0), (e, y0), (e, y0 + h), (a, y0 + h)]
        (merged if b.count > 1 else plain).append(box)

    def width_px(a: float, e: float) -> float:
        return (min(e, t1) - max(a, t0)) / px_s

    def fits(text: str, a: float, e: float) -> bool:
        return width_px(a, e) >= len(text) * _CHAR_PX + 4

    def put(x: float, text: str, ha: str, boxed: bool = False) -> None:
        ax.text(x, y0 + h / 2, text, ha=ha, va="center", fontsize=8, family="monospace",
                clip_on=True, bbox=dict(fc="white", ec="none", alpha=0.7, pad=0.3)
                if boxed else None)

    runs = _label_runs(shown, FLASH_RUN_S)
    for i, run in enumerate(runs):
        label = run[0].label
        if not label:
            continue
        if all(fits(label, b.start, b.end) for b in run):
            for b in run:
                full = f"{label} x{b.count}" if b.count > 1 else label
                put((max(b.start, t0) + min(b.end, t1)) / 2,
                    full if fits(full, b.start, b.end) else label, "center")
            continue
        a, e = run[0].start, max(b.end for b in run)
        count = sum(b.count for b in run)
        full = f"{label} x{count}" if count > 1 else label
        nxt = runs[i + 1][0].start if i + 1 < len(runs) else t1
        if fits(full, a, e):
            put((max(a, t0) + min(e, t1)) / 2, full, "center", boxed=True)
        elif fits(label, a, e):
            put((max(a, t0) + min(e, t1)) / 2, label, "center", boxed=True)
        elif fits(label, a, nxt) and a >= t0:
            put(a, label, "left", boxed=True)
    if plain:
        ax.add_collection(PolyCollection(plain, facecolors=color, edgecolors=color,
                                         alpha=0.4, linewidths=0.6))
    if merged:
        ax.add_collection(PolyCollection(merged, facecolors="none", edgecolors=color,
                                         hatch="////", alpha=0.6, linewidths=0.6))


def _draw_tones(ax, events: Sequence[dict], px_s: float, t0: float, t1: float) -> None:
    """Draw the tones lane: each note as a bar at its pitch (log scale), note names where
    they fit, clicks as ticks along the bottom."""
    from matplotlib.collections import LineCollection

    marks = [m for m in tone_marks(events, px_s, t0) if m[1] >= t0 and m[0] <= t1]
    real = [m for m in marks if m[2] is not None]
    lo, hi = 80.0, 3000.0
    if real:
        lo = min(lo, min(m[2] for m in real) / 1.3)
        hi = max(hi, max(m[2] for m in real) * 1.3)
    ax.set_yscale("log")
    ax.set_ylim(lo, hi)
    ticks = [f for f in (100, 300, 1000, 3000) if lo <= f <= hi]
    ax.set_yticks(ticks, [f"{f:g}" for f in ticks], fontsize=7)
    ax.minorticks_off()
    if real:
        segs = [[(m[0], m[2]), (max(m[1], m[0] + px_s), m[2])] for m in real]
        ax.add_collection(LineCollection(segs, colors="tab:red", linewidths=3))
        last_x = -np.inf
        for m in real:
            if m[0] - last_x < (len(m[3]) + 1) * _CHAR_PX * px_s:
                continue
            last_x = m[0]
            ax.text(max(m[0], t0), m[2] * 1.12, m[3], fontsize=7, color="tab:red",
                    va="bottom", clip_on=True)
    clicks = [m[0] for m in marks if m[2] is None]
    if clicks:
        ax.plot(clicks, [lo * 1.05] * len(clicks), "|", color="0.3", ms=6)


def _draw_reel(ax, events: Sequence[dict], end: float, px_s: float, t0: float,
               t1: float) -> None:
    """Draw the reel lane: the card in front of the windows (0-7) as a step line, so a turn
    shows as a staircase; each resting card wider than its label is named."""
    times, cards = reel_steps(events, end)
    ax.set_ylim(-0.7, 7.7)
    ax.set_yticks([0, 7], ["card 0", "7"], fontsize=7)
    if not times:
        return
    ax.step(times, cards, where="post", color="tab:brown", lw=1.5)
    for i in range(len(times) - 1):
        a, b = max(times[i], t0), min(times[i + 1], t1)
        label = f"{cards[i]}"
        if b - a >= (len(label) + 2) * _CHAR_PX * px_s:
            ax.text((a + b) / 2, cards[i] + 0.6 if cards[i] < 5 else cards[i] - 0.6, label,
                    ha="center", va="center", fontsize=7, color="tab:brown", clip_on=True)


def lanes_with_data(events: Sequence[dict], lanes: Sequence[str], t0: float,
                    t1: float) -> list[str]:
    """Return those of ``lanes`` that have something to draw between ``t0`` and ``t1``
    seconds (a state that began before ``t0`` and still holds counts)."""
    end = max(t1, session_end(events))
    spans = {
        "display": display_blocks(events, end), "motor": motor_blocks(events, end),
        "lamps": [b for blocks in lamp_blocks(events, end).values() for b in blocks],
        "buttons": button_blocks(events, end),
        "tones": [Block(e["t"], e["t"] + e["dur_s"], "") for e in events
                  if e["type"] == "tone"],
    }
    times, _ = reel_steps(events, end)
    spans["reel"] = [Block(times[0], end, "")] if times else []
    return [lane for lane in lanes
            if any(b.end >= t0 and b.start <= t1 for b in spans.get(lane, []))]


def draw_lanes(axes: Sequence, lanes: Sequence[str], events: Sequence[dict], t0: float,
               t1: float, px_s: float, end: float | None = None) -> None:
    """Draw the decoded ``lanes`` of ``events`` into ``axes`` (one each) between ``t0`` and
    ``t1`` seconds; ``px_s`` is the width of one pixel in seconds (narrower blocks merge)."""
    events = sorted(events, key=lambda e: e["t"])
    end = session_end(events) if end is None else end
    for ax, lane in zip(axes, lanes):
        ax.set_ylabel(LANE_LABELS.get(lane, lane), rotation=0, ha="right", va="center",
                      fontsize=9)
        ax.set_ylim(0, 1)
        if lane == "display":
            _draw_blocks(ax, aggregate(display_blocks(events, end), px_s), 0.1, 0.8,
                         "tab:green", px_s, t0, t1)
        elif lane == "lamps":
            lit = lamp_blocks(events, end)
            for row, lamp in enumerate(("lower", "middle", "upper")):
                _draw_blocks(ax, aggregate(lit[lamp], px_s),
                             row / 3 + 0.03, 1 / 3 - 0.06, "goldenrod", px_s, t0, t1)
            ax.set_yticks([1 / 6, 0.5, 5 / 6],
                          [f"{lamp} R{LAMP_PINS[lamp]}" for lamp in ("lower", "middle", "upper")],
                          fontsize=7)
        elif lane == "motor":
            _draw_blocks(ax, aggregate(motor_blocks(events, end), px_s), 0.15, 0.7,
                         "tab:purple", px_s, t0, t1)
        elif lane == "reel":
            _draw_reel(ax, events, end, px_s, t0, t1)
        elif lane == "tones":
            _draw_tones(ax, events, px_s, t0, t1)
        elif lane == "buttons":
            _draw_blocks(ax, aggregate(button_blocks(events, end), px_s), 0.1, 0.8,
                         "tab:blue", px_s, t0, t1)
        else:
            raise AnalysisError(f"unknown overview lane {lane!r} (expected one of "
                                f"{', '.join(OVERVIEW_LANES)})")
        for e in events:
            if e["type"] == "gap" and e["t"] <= t1 and e["t"] + e["dur_s"] >= t0:
                ax.axvspan(e["t"], e["t"] + max(e["dur_s"], px_s), color="0.85", hatch="//",
                           ec="0.6", lw=0, zorder=0)


def overview_figure(events: Sequence[dict], start_s: float = 0.0, end_s: float | None = None,
                    title: str = "", marks: Sequence[tuple[float, str]] = (),
                    width_in: float = 14.0):
    """Build the overview figure of ``events`` between ``start_s`` and ``end_s`` seconds
    (default: the whole session): one lane each for the display text, the lamps (with the
    pictures they light), the motor, the reel, the tones (as notes) and the button presses.
    ``marks`` (time, label) are drawn as red lines across every lane. Return (figure,
    Layout)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    end = session_end(events)
    stop = end if end_s is None else end_s
    if not stop > start_s >= 0:
        stop = start_s + 1.0
    height = sum(_LANE_HEIGHT.values()) + 1.1
    fig = plt.figure(figsize=(width_in, height))
    axes = _lane_axes(fig, OVERVIEW_LANES)
    fig.subplots_adjust(left=_MARGIN_LEFT, right=_MARGIN_RIGHT, top=1 - 0.35 / height,
                        bottom=0.7 / height)
    width_px = int(round(width_in * _DPI))
    px_s = (stop - start_s) / (width_px * (_MARGIN_RIGHT - _MARGIN_LEFT))
    draw_lanes(axes, OVERVIEW_LANES, events, start_s, stop, px_s, end)
    for t, label in marks:
        for ax in axes:
            ax.axvline(t, color="red", lw=1.2, zorder=5)
        axes[0].text(t, 1.02, f" {label}", color="red", fontsize=8, va="bottom",
                     transform=axes[0].get_xaxis_transform(), clip_on=False)
    axes[-1].set_xlim(start_s, stop)
    axes[-1].set_xlabel("time (s)")
    fig.text(_MARGIN_LEFT, 0.05 / height, legend_text(events), fontsize=7.5, va="bottom",
             ha="left", color="0.25", gid="legend")
    counts = {k: sum(1 for e in events if e["type"] == k) for k in ("display", "tone",
                                                                    "button")}
    fig.suptitle(title or f"session {start_s:g}-{stop:g} s: {counts['display']} display "
                 f"changes, {counts['tone']} tones, {counts['button']} button events",
                 fontsize=10, y=1 - 0.05 / height, va="top")
    layout = Layout(start_s, stop, _MARGIN_LEFT, _MARGIN_RIGHT, width_px,
                    int(round(height * _DPI)))
    return fig, layout


def legend_text(events: Sequence[dict]) -> str:
    """Return the overview's legend line: what the lamps, the reel, the tones and the button
    letters of ``events`` mean."""
    buttons = button_legend(events)
    return ("lamps: the picture each lit (the card in front of it); reel: the card in front "
            "of the windows, 0-7; tones: pitch in Hz, note names, | clicks"
            + (f"; buttons: {buttons}" if buttons else ""))


def figure_bytes(fig, fmt: str = "png") -> bytes:
    """Return the figure as image bytes (png or svg) and close it."""
    import io

    import matplotlib.pyplot as plt
    buf = io.BytesIO()
    try:
        fig.savefig(buf, format=fmt, dpi=_DPI)
    finally:
        plt.close(fig)
    return buf.getvalue()


def plot_overview(events: Sequence[dict], path: str, start_s: float = 0.0,
                  end_s: float | None = None, title: str = "",
                  marks: Sequence[tuple[float, str]] = ()) -> Layout:
    """Draw the overview of a session (``overview_figure``) to ``path`` (.png, .svg,
    .pdf); return its Layout."""
    _check_path(path)
    fig, layout = overview_figure(events, start_s, end_s, title, marks)
    _save(fig, path)
    return layout


def capture_end(capture: Capture) -> float:
    """Return the length of ``capture`` in seconds (its total samples, or past its last
    change when the length is not stored)."""
    info = capture.info
    if info.total_samples is not None:
        return info.total_samples / info.samplerate
    last = 0
    for block in capture.changes():
        if len(block):
            last = int(block.times[-1])
    return (last + 1) / info.samplerate
