"""Write one self-contained HTML page about a recording: what was run, the overview plot, the
events table played along with the speaker's sound, and, for a comparison, the first
difference marked on both timelines.

The page needs nothing but a browser: the overview is an embedded PNG, the sound an embedded
16-bit mono WAV rendered from the speaker line as ``analysis.sound`` does (MAME's speaker
model), the script and the style are inline, and no font, script or image is fetched.

In the page:

- clicking an event row (or a point of an overview plot) moves the audio to that time (and
  plays from there); while the audio plays, the row of the latest event at the play position
  is highlighted and scrolled into view, and a line follows the time over the plots;
- ``Timeline.audio_offset_s`` maps session seconds (the events' ``t``) to seconds of the
  audio: a rig recording's events count from power-on, its capture from the start of the
  analyser;
- check boxes above each table hide and show its event types;
- the session's story (``analysis.story``: turn by turn, read from the events) sits beside the
  recording's table; clicking an entry seeks the audio to it;
- for a comparison, the pins of the recording's capture around the first difference
  (``analysis.plot.timing_figure``, ``ZOOM_SPAN_S`` wide) are shown below its table;
- a second timeline (the target of a ``rig check``, the clean-room game of a conformance) gets
  its own plot and table; ``Timeline.to_main`` maps its times onto the first timeline (the
  fitted clock ratio and offset of the comparison), so its rows seek the same audio.

Sources (``open_source``): a capture file (any format ``captures.formats`` reads), an events
file (``.jsonl``: no sound), or a folder with ``events.jsonl`` and/or a capture
(``CAPTURE_NAMES``) and ``script.txt`` (the shared captures, the corpus).
"""
from __future__ import annotations

import base64
import html
import io
import os
from dataclasses import dataclass, field
from typing import Sequence

from analysis.base import AnalysisError
from captures.model import Capture

__all__ = ["Timeline", "FirstDifference", "Source", "open_source", "run_info", "describe_event",
           "report_html", "write_report", "source_timeline", "CAPTURE_NAMES", "AUDIO_RATE"]

CAPTURE_NAMES = ("capture.sr", "capture.tlc", "capture.vcd", "edges.jsonl.gz")
AUDIO_RATE = 11025          # Hz: the tower's tones reach about 2.5 kHz
AUDIO_GAIN = 0.25           # MAME's mixer gain for the Dark Tower (analysis.sound)


@dataclass
class Timeline:
    """One side of a report: its name, events (session seconds), the session's length
    (seconds; None: up to the last event), the capture its sound is rendered from (None:
    no sound), the offset of session time 0 in that capture (seconds), and how its times map
    onto the report's first timeline: ``t_main = ratio * t + offset``."""
    name: str
    events: list[dict]
    end_s: float | None = None
    capture: Capture | None = None
    audio_offset_s: float = 0.0
    to_main: tuple[float, float] = (1.0, 0.0)


@dataclass
class FirstDifference:
    """The first difference of a comparison, as the report marks it: a one-line summary, the
    full text, and its time on each timeline (seconds; None where a side has nothing),
    with the event of each side when there is one."""
    summary: str
    detail: str
    t_main: float | None
    t_other: float | None
    event_main: dict | None = None
    event_other: dict | None = None


@dataclass
class Source:
    """A recording as the report reads it: its events, capture (or None), script text (or
    None) and what is known of how it was made (label -> value)."""
    path: str
    events: list[dict]
    capture: Capture | None
    script: str | None
    info: dict[str, str] = field(default_factory=dict)


def _read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


def run_info(capture: Capture | None) -> dict[str, str]:
    """Return what a capture's metadata says about how it was made (script, ROM SHA-1,
    target or source, clock, samplerate) as label -> text."""
    info: dict[str, str] = {}
    if capture is None:
        return info
    meta = dict(capture.info.meta)
    section = meta.get("darktower") if isinstance(meta.get("darktower"), dict) else {}
    flat = {**{k: v for k, v in meta.items() if not isinstance(v, dict)}, **section}
    # What ran: a recording names its target; a shared capture says what recorded it.
    for label, keys in (("script", ("script",)), ("ROM SHA-1", ("rom sha1", "rom_sha1")),
                        ("target", ("target", "source")), ("clock", ("clock", "clock_hz"))):
        for k in keys:
            if flat.get(k) not in (None, ""):
                value = flat[k]
                if label == "clock" and isinstance(value, (int, float)):
                    value = f"{value:g} Hz"
                info[label] = str(value)
                break
    info["samplerate"] = f"{capture.info.samplerate:g} Hz"
    return info


def open_source(path: str, channel_map: str | None = None) -> Source:
    """Open a capture, an events file or a capture folder (module doc) for a report; raise
    AnalysisError naming ``path`` when it is none of them."""
    from captures.events import read_events
    from captures.formats import open_capture

    path = str(path)
    script = None
    if os.path.isdir(path):
        events_path = os.path.join(path, "events.jsonl")
        found = [os.path.join(path, n) for n in CAPTURE_NAMES
                 if os.path.exists(os.path.join(path, n))]
        if not found and not os.path.exists(events_path):
            raise AnalysisError(f"{path}: no events.jsonl and no capture "
                                f"({', '.join(CAPTURE_NAMES)}) to report on")
        capture = open_capture(found[0], channel_map) if found else None
        script = _read_text(os.path.join(path, "script.txt"))
        if os.path.exists(events_path):
            events = read_events(events_path)
        else:
            events = _decoded(capture)
    elif path.lower().endswith(".jsonl"):
        capture, events = None, read_events(path)
    else:
        capture = open_capture(path, channel_map)
        events = _decoded(capture)
    info = run_info(capture)
    if capture is not None and "clock" not in info and \
            (found[0] if os.path.isdir(path) else path).lower().endswith(".jsonl.gz"):
        # An edge log counts the chip's clock cycles (captures/edges.py).
        info["clock"] = f"{capture.info.samplerate:g} Hz"
    if script is not None and "script" not in info:
        info["script"] = os.path.join(path, "script.txt")
    return Source(path, events, capture, script, info)


def _decoded(capture: Capture) -> list[dict]:
    """Decode a capture into events, its gaps included as gap events."""
    from analysis.decode import decode

    rate = capture.info.samplerate
    events = decode(capture)
    events += [{"t": g.start / rate, "type": "gap", "dur_s": (g.end - g.start) / rate,
                "reason": g.reason} for g in capture.gaps]
    return sorted(events, key=lambda e: e["t"])


def describe_event(ev: dict) -> str:
    """Return one event as a short line: "display 'L1'", "tone 431.9 Hz A4, 4.6 ms", ..."""
    kind = ev["type"]
    if kind == "display":
        return f"display '{ev['text']}'"
    if kind == "lamp":
        return f"lamp {ev['lamp']} {'on' if ev['on'] else 'off'}"
    if kind == "motor":
        return f"motor {'on' if ev['on'] else 'off'}"
    if kind == "reel":
        from analysis.plot import REEL_CARDS
        names = "/".join(n for n in REEL_CARDS.get(ev["card_pos"], ()) if n)
        return f"reel card {ev['card_pos']}" + (f" ({names})" if names else "")
    if kind == "tone":
        if ev["freq_hz"] is None:
            return f"click, {ev['dur_s'] * 1000:.1f} ms"
        from analysis.speaker import note_name
        note = ev.get("note") or note_name(ev["freq_hz"])[0]
        return f"tone {ev['freq_hz']:g} Hz {note}, {ev['dur_s'] * 1000:.1f} ms"
    if kind == "button":
        return f"{ev['button']} {ev['action']}"
    if kind == "power":
        return f"power {'on' if ev['on'] else 'off'}"
    if kind == "gap":
        return f"gap {ev['dur_s']:.3f} s ({ev['reason']})"
    return kind


def _wav_bytes(capture: Capture, rate: int) -> bytes:
    from analysis.sound import write_wav

    buf = io.BytesIO()
    write_wav(capture, buf, rate, AUDIO_GAIN)
    return buf.getvalue()


def _row_index(events: Sequence[dict], t: float | None, ev: dict | None) -> int | None:
    """Return the index of ``ev`` in ``events`` (same time and meaning), else of the last
    event at or before ``t``."""
    if ev is not None:
        for i, e in enumerate(events):
            if abs(e["t"] - ev["t"]) < 1e-6 and e["type"] == ev["type"] \
                    and describe_event(e) == describe_event(ev):
                return i
    if t is None or not events:
        return None
    best = 0
    for i, e in enumerate(events):
        if e["t"] <= t + 1e-9:
            best = i
    return best


def _plot_html(tl: Timeline, index: int, mark: float | None, mark_label: str) -> str:
    from analysis.plot import figure_bytes, overview_figure, session_end

    end = tl.end_s if tl.end_s is not None else session_end(tl.events)
    marks = [(mark, mark_label)] if mark is not None else []
    fig, lay = overview_figure(tl.events, 0.0, end if end > 0 else None,
                               title=f"{tl.name}: overview", marks=marks)
    png = base64.b64encode(figure_bytes(fig, "png")).decode("ascii")
    ratio, offset = tl.to_main
    return (f'<div class="plot" data-t0="{lay.t0}" data-t1="{lay.t1}" data-left="{lay.left}" '
            f'data-right="{lay.right}" data-ratio="{ratio}" data-offset="{offset}" '
            f'id="plot{index}"><img alt="overview of {html.escape(tl.name)}" '
            f'width="{lay.width_px}" height="{lay.height_px}" '
            f'src="data:image/png;base64,{png}"><div class="playhead"></div></div>')


ZOOM_SPAN_S = 0.2           # width of the pin-level picture around a first difference


def _zoom_html(tl: Timeline, t: float) -> str:
    """Return the pin-level timing picture of ``tl``'s capture around session time ``t``."""
    from analysis.plot import capture_end, figure_bytes, timing_figure

    at = t + tl.audio_offset_s
    start = max(0.0, at - ZOOM_SPAN_S / 2)
    end = min(capture_end(tl.capture), start + ZOOM_SPAN_S)
    if not end > start:
        return ""
    fig = timing_figure(tl.capture, start, end)
    for ax in fig.axes:
        ax.axvline(at, color="red", lw=1.2, zorder=5)
    png = figure_bytes(fig, "png")
    return (f'<details open><summary>the pins around the first difference ({start:.3f}-'
            f'{end:.3f} s of the capture)</summary><img class="zoom" alt="pins around the '
            f'first difference" src="data:image/png;base64,'
            f'{base64.b64encode(png).decode("ascii")}"></details>')


def _story_html(tl: Timeline) -> str:
    """Return the session's story (analysis.story) as a list whose entries seek the audio."""
    from analysis.story import session_story

    entries = session_story(tl.events)
    if not entries:
        return ""
    ratio, offset = tl.to_main
    items = []
    for e in entries:
        who = f"player {e.player}: " if e.player else ""
        what = e.what()
        items.append(f'<li data-t="{ratio * e.t + offset:.6f}"><span class="t">{e.t:.1f} s'
                     f'</span> {html.escape(who)}<b>{html.escape(e.action)}</b>'
                     + (f" {html.escape(what)}" if what else "") + "</li>")
    return (f'<details class="story" open><summary>the session\'s story, turn by turn '
            f'({len(entries)} entries, read from the events)</summary><ol class="story">'
            + "".join(items) + "</ol></details>")


def _table_html(tl: Timeline, index: int, marked: int | None) -> str:
    if not tl.events:
        return (f'<p class="empty" id="empty{index}">No events: nothing shown, sounded or '
                f'pressed was read here, so there is no table or story to follow.</p>')
    ratio, offset = tl.to_main
    rows = []
    types = sorted({e["type"] for e in tl.events})
    for i, e in enumerate(tl.events):
        cls = ' class="diff"' if i == marked else ""
        rows.append(f'<tr data-t="{ratio * e["t"] + offset:.6f}" data-type="{e["type"]}"{cls}>'
                    f'<td>{e["t"]:.3f}</td><td>{e["type"]}</td>'
                    f'<td>{html.escape(describe_event(e))}</td></tr>')
    boxes = "".join(f'<label><input type="checkbox" class="show-type" data-table="{index}" '
                    f'value="{t}" checked> {t}</label> ' for t in types)
    return (f'<p class="filter">show: {boxes}</p>'
            f'<div class="scroll" id="scroll{index}"><table class="events" id="events{index}">'
            f'<thead><tr><th>t (s)</th><th>type</th><th>what</th></tr></thead><tbody>'
            + "".join(rows) + "</tbody></table></div>")


_STYLE = """
body { font-family: sans-serif; margin: 1em 2em; color: #222; }
@media (max-width: 40em) { body { margin: 0.5em; } }
h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin-top: 1.2em; }
h1, table.info td { overflow-wrap: anywhere; }
table.info td { padding: 1px 12px 1px 0; vertical-align: top; }
table.info td:first-child { color: #666; }
.verdict { padding: 0.5em 0.8em; border-radius: 4px; }
.verdict.ok { background: #e6f4e6; } .verdict.bad { background: #fde8e8; }
.plot { position: relative; display: inline-block; cursor: crosshair; max-width: 100%; }
.plot img { display: block; max-width: 100%; height: auto; }
.playhead { position: absolute; top: 0; bottom: 0; width: 2px; background: #1565c0;
            left: 0; display: none; pointer-events: none; }
.scroll { max-height: 24em; overflow-y: auto; border: 1px solid #ccc; display: inline-block;
          max-width: 100%; overflow-x: auto; box-sizing: border-box; }
table.events { border-collapse: collapse; font-family: monospace; font-size: 0.9em; }
table.events th { position: sticky; top: 0; background: #eee; text-align: left; }
table.events td, table.events th { padding: 1px 10px; }
table.events tbody tr { cursor: pointer; }
table.events tbody tr:hover { background: #f3f3f3; }
tr.current { background: #cfe3ff !important; }
tr.diff { background: #ffd0d0; font-weight: bold; }
audio { width: 100%; max-width: 60em; }
pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto; }
img.zoom { max-width: 100%; height: auto; }
p.filter { margin: 0.3em 0; font-size: 0.9em; } p.filter label { margin-right: 0.6em; }
ol.story { max-height: 20em; overflow-y: auto; font-size: 0.9em; padding-left: 2.5em;
           border: 1px solid #ccc; margin: 0.3em 0; }
ol.story li { cursor: pointer; margin: 1px 0; } ol.story li:hover { background: #f3f3f3; }
ol.story span.t { color: #666; font-family: monospace; }
"""

_SCRIPT = """
(function () {
  "use strict";
  var audio = document.getElementById("audio");
  var tables = Array.prototype.slice.call(document.querySelectorAll("table.events"));
  var plots = Array.prototype.slice.call(document.querySelectorAll(".plot"));
  var rowsOf = tables.map(function (t) {
    return Array.prototype.slice.call(t.querySelectorAll("tbody tr"));
  });
  var timesOf = rowsOf.map(function (rows) {
    return rows.map(function (r) { return parseFloat(r.getAttribute("data-t")); });
  });
  var offset = audio ? parseFloat(audio.getAttribute("data-offset")) : 0;
  var current = tables.map(function () { return null; });

  function lastAtOrBefore(times, t) {
    var lo = 0, hi = times.length - 1, best = -1;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (times[mid] <= t + 1e-6) { best = mid; lo = mid + 1; } else { hi = mid - 1; }
    }
    return best;
  }
  function show(t) {
    tables.forEach(function (table, k) {
      var i = lastAtOrBefore(timesOf[k], t);
      var row = i >= 0 ? rowsOf[k][i] : null;
      if (row === current[k]) { return; }
      if (current[k]) { current[k].classList.remove("current"); }
      current[k] = row;
      if (row) {
        row.classList.add("current");
        var box = table.parentNode;
        var top = row.offsetTop - box.clientHeight / 2;
        box.scrollTop = Math.max(0, top);
      }
    });
    plots.forEach(function (p) {
      var t0 = parseFloat(p.dataset.t0), t1 = parseFloat(p.dataset.t1);
      var ratio = parseFloat(p.dataset.ratio), off = parseFloat(p.dataset.offset);
      var local = (t - off) / ratio;
      var head = p.querySelector(".playhead");
      if (local < t0 || local > t1) { head.style.display = "none"; return; }
      var left = parseFloat(p.dataset.left), right = parseFloat(p.dataset.right);
      var f = left + (local - t0) / (t1 - t0) * (right - left);
      head.style.left = (100 * f) + "%";
      head.style.display = "block";
    });
    document.body.setAttribute("data-time", t.toFixed(6));
  }
  function seek(t) {
    show(t);
    if (!audio) { return; }
    var target = Math.max(0, t + offset);
    var apply = function () {
      audio.currentTime = Math.min(target, isFinite(audio.duration) ? audio.duration : target);
      var p = audio.play();
      if (p && p.catch) { p.catch(function () {}); }
    };
    if (audio.readyState >= 1) { apply(); }
    else { audio.addEventListener("loadedmetadata", apply, { once: true }); audio.load(); }
  }
  rowsOf.forEach(function (rows, k) {
    rows.forEach(function (row, i) {
      row.addEventListener("click", function () { seek(timesOf[k][i]); });
    });
  });
  Array.prototype.forEach.call(document.querySelectorAll("ol.story li"), function (li) {
    li.addEventListener("click", function () { seek(parseFloat(li.getAttribute("data-t"))); });
  });
  plots.forEach(function (p) {
    p.addEventListener("click", function (ev) {
      var box = p.getBoundingClientRect();
      var left = parseFloat(p.dataset.left), right = parseFloat(p.dataset.right);
      var f = ((ev.clientX - box.left) / box.width - left) / (right - left);
      var t0 = parseFloat(p.dataset.t0), t1 = parseFloat(p.dataset.t1);
      var local = t0 + Math.min(1, Math.max(0, f)) * (t1 - t0);
      seek(parseFloat(p.dataset.ratio) * local + parseFloat(p.dataset.offset));
    });
  });
  // Event types shown in each table (the check boxes above it).
  Array.prototype.forEach.call(document.querySelectorAll("input.show-type"), function (box) {
    box.addEventListener("change", function () {
      rowsOf[parseInt(box.dataset.table, 10)].forEach(function (row) {
        if (row.getAttribute("data-type") === box.value) {
          row.style.display = box.checked ? "" : "none";
        }
      });
    });
  });
  if (audio) {
    audio.addEventListener("timeupdate", function () { show(audio.currentTime - offset); });
    audio.addEventListener("seeked", function () { show(audio.currentTime - offset); });
  }
  // Each table opens at its marked row (tr > tbody > table > the scrolling box).
  Array.prototype.forEach.call(document.querySelectorAll("tr.diff"), function (row) {
    row.parentNode.parentNode.parentNode.scrollTop = Math.max(0, row.offsetTop - 60);
  });
})();
"""


def report_html(title: str, info: dict[str, str], main: Timeline,
                other: Timeline | None = None, difference: FirstDifference | None = None,
                verdict: str | None = None, script: str | None = None,
                audio_rate: int = AUDIO_RATE) -> str:
    """Return the report page (module doc) as HTML text: ``info`` is what was run (label ->
    value), ``main`` the recording (its capture gives the sound), ``other`` the compared
    side, ``difference`` the first difference (marked on both timelines), ``verdict`` a line
    saying how the comparison came out."""
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">'
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>",
             f"<h1>{html.escape(title)}</h1>", "<h2>What was run</h2><table class=\"info\">"]
    for label, value in info.items():
        parts.append(f"<tr><td>{html.escape(label)}</td><td>{html.escape(str(value))}</td></tr>")
    parts.append("</table>")
    if verdict is not None:
        ok = difference is None
        parts.append(f'<h2>Result</h2><p class="verdict {"ok" if ok else "bad"}" '
                     f'id="verdict">{html.escape(verdict)}</p>')
    if difference is not None:
        parts.append(f'<pre id="difference">{html.escape(difference.detail)}</pre>')
    parts.append(f"<h2>{html.escape(main.name)}</h2>")
    parts.append(_plot_html(main, 0, difference.t_main if difference else None,
                            "first difference"))
    if main.capture is not None:
        wav = base64.b64encode(_wav_bytes(main.capture, audio_rate)).decode("ascii")
        parts.append(f'<p><audio id="audio" controls preload="auto" '
                     f'data-offset="{main.audio_offset_s}" '
                     f'src="data:audio/wav;base64,{wav}"></audio><br><small>the speaker line '
                     f'(R10 while R4 is low) rendered at {audio_rate} Hz as MAME does; click '
                     f'an event or the plot to listen from there</small></p>')
    else:
        parts.append("<p><small>no capture of the pins: no sound</small></p>")
    marked = _row_index(main.events, difference.t_main, difference.event_main) \
        if difference else None
    parts.append(_story_html(main))
    parts.append((f"<p>{len(main.events)} events</p>" if main.events else "")
                 + _table_html(main, 0, marked))
    if difference is not None and difference.t_main is not None and main.capture is not None:
        parts.append(_zoom_html(main, difference.t_main))
    if other is not None:
        parts.append(f"<h2>{html.escape(other.name)}</h2>")
        parts.append(_plot_html(other, 1, difference.t_other if difference else None,
                                "first difference"))
        marked = _row_index(other.events, difference.t_other, difference.event_other) \
            if difference else None
        parts.append((f"<p>{len(other.events)} events (times on its own clock; a click plays "
                      f"the recording at the matching time)</p>" if other.events else "")
                     + _table_html(other, 1, marked))
    if script:
        parts.append(f"<h2>Script</h2><details><summary>{script.count(chr(10))} lines"
                     f"</summary><pre>{html.escape(script)}</pre></details>")
    parts.append(f"<script>{_SCRIPT}</script></body></html>")
    return "\n".join(parts)


def write_report(path: str, title: str, info: dict[str, str], main: Timeline,
                 other: Timeline | None = None, difference: FirstDifference | None = None,
                 verdict: str | None = None, script: str | None = None,
                 audio_rate: int = AUDIO_RATE) -> int:
    """Write the report page (``report_html``) to ``path`` (.html), nothing half-written;
    return its size in bytes. The path is checked before any work is done."""
    from captures.files import OutputError, atomic_write, check_output_path

    if not str(path).lower().endswith((".html", ".htm")):
        raise AnalysisError(f"{path}: report output must end in .html")
    if not 1000 <= audio_rate <= 192000:
        raise AnalysisError(f"audio rate {audio_rate} Hz must be 1000-192000")
    try:
        check_output_path(path)
    except OutputError as exc:
        raise AnalysisError(str(exc)) from None
    text = report_html(title, info, main, other, difference, verdict, script, audio_rate)
    data = text.encode("utf-8")
    try:
        atomic_write(path, lambda f: f.write(data), binary=True)
    except OutputError as exc:
        raise AnalysisError(str(exc)) from None
    return len(data)


def source_timeline(src: Source, name: str | None = None) -> Timeline:
    """Return the main timeline of a source: its events, length and capture."""
    from analysis.plot import capture_end, session_end

    end = capture_end(src.capture) if src.capture is not None else session_end(src.events)
    return Timeline(name or os.path.basename(os.path.normpath(src.path)), src.events, end,
                    src.capture)
