"""Decode the two 7-segment digits: what a person sees per 1/60 s window.

Channels read: O0-O6 (segments), O7 (digit select: 0 = left digit, 1 = right digit), R4 (the
SN75494 enable, active low: R4 high blanks both digits). Segment wiring of the Dark Tower board
(docs/dark-tower-wiring.md §3): a=O5 b=O6 c=O1 d=O2 e=O3 f=O4 g=O0.

Events emitted (rules of ``tests/data/captures/README.md``, which derived ``events.jsonl``)::

    {"t": 11.316667, "type": "display", "text": "L1"}        space = blank digit

- Time is cut into windows of 1/60 s from the start of the capture. While R4 is low, O7 picks
  the digit and O0-O6 its segment pattern; per window and digit the decoder adds up how long
  each non-blank pattern was driven. A digit shows the pattern driven longest if that lasted
  more than 2 % of the window, else blank.
- A state starts at each window whose two characters differ from the window before. States are
  judged in time order: a state is a transition when it lasts exactly one window, a state was
  kept before it and another follows it, and each of its digits equals the same digit of the
  last kept state, or of the following state, or is blank. A transition is dropped and its
  window given to the following state (which then starts one window earlier and is judged with
  that extent); a state equal to the last kept one is merged into it. E.g. ``C2``, ``C `` for
  one window, `` 2`` for one window, ``C2`` gives ``C2``, `` 2`` (from the ``C `` window),
  ``C2``: the definition at the end of ``tests/data/captures/README.md``.
- An event is written for each kept state; ``t`` = the window start.
- A gap in the capture drops the window it cuts (part of a window is not what a person sees
  in 1/60 s: a multiplexed digit may not have had its turn yet) and the windows start again
  from the gap's end; the first text after a gap is always written.
- Glyphs 0-9, C, P, L, -, blank (the Dark Tower glyph table, docs/mame-oracle.md §3). A pattern
  outside the table shows as the nearest glyph (fewest differing segments) and the event gets
  ``"segments": [left, right]`` (segment bytes, bit 0 = a ... bit 6 = g).

``flash_summary(events)`` folds a display event list into steady and flashing spans (text,
start, end, number of flashes, flash period in seconds).
"""
from __future__ import annotations

from functools import lru_cache

from analysis.base import Decoder
from captures.darktower_facts import GLYPH_BY_PATTERN, SEGMENT_PINS, SEGMENTS

__all__ = ["DisplayDecoder", "GLYPHS", "glyph", "segments_from_o", "flash_summary",
           "WINDOW_S", "MIN_SHARE"]

WINDOW_S = 1 / 60     # what a person sees: one 1/60 s window (seconds)
MIN_SHARE = 0.02      # a pattern must be driven for more than 2 % of a window to show

# Segment byte (bit 0 = a ... bit 6 = g) -> character; alternative forms of 6, 7 and 9 too.
GLYPHS: dict[int, str] = GLYPH_BY_PATTERN
# O line feeding each segment a..g.
_SEGMENT_O = tuple(SEGMENT_PINS[s] for s in SEGMENTS)


def segments_from_o(o: int) -> int:
    """Return the segment byte (bit 0 = a ... bit 6 = g) driven by O pins ``o`` (O0 = bit 0)."""
    s = 0
    for seg, line in enumerate(_SEGMENT_O):
        if o >> line & 1:
            s |= 1 << seg
    return s


# segments_from_o of each O0-O6 value, looked up per change by the decoder
_SEGMENTS = tuple(segments_from_o(o) for o in range(128))


@lru_cache(maxsize=256)
def glyph(segments: int) -> tuple[str, bool]:
    """Return the character for a segment byte and whether it is in the glyph table."""
    if segments in GLYPHS:
        return GLYPHS[segments], True
    best = min(GLYPHS, key=lambda g: (bin(g ^ segments).count("1"), g))
    return GLYPHS[best], False


def _is_transition(kept: str | None, text: str, windows: int, nxt: str | None) -> bool:
    """Tell whether a state ``text`` lasting ``windows`` windows, after the last kept state
    ``kept`` and before ``nxt``, is a transition (the rule of the module docstring)."""
    if kept is None or nxt is None or windows != 1:
        return False
    return all(c in (a, b, " ") for a, c, b in zip(kept, text, nxt))


class DisplayDecoder(Decoder):
    """Turn O0-O7/R4 changes into display events (rules in the module docstring)."""

    NAME = "display"
    EVENT = "display"      # the event type it emits
    CHANNELS = tuple(f"O{i}" for i in range(8)) + ("R4",)

    def __init__(self, info, window_s: float = WINDOW_S, min_share: float = MIN_SHARE):
        super().__init__(info)
        self.window = window_s * self.rate          # samples per window (fractional)
        self.window_s = window_s
        self.min_share = min_share
        self._origin = 0                            # sample where window 0 starts
        self._k = 0                                 # current window index
        self._end = self.window                     # its end (samples, fractional)
        self._t = 0.0                               # last change time
        self._digit = -1                            # digit driven now (-1: none, R4 high)
        self._seg = 0
        self._acc: list[dict[int, float]] = [{}, {}]
        self._shown: str | None = None              # text of the last kept state
        # The newest state: [start window, text, segments, kept]; its length and successor
        # are not known yet, so it is judged when the next state starts.
        self._state: list | None = None

    def feed_selected(self, times: list[int], vals: list[int], last_t: int | None) -> list[dict]:
        """Decode one selected block (``on_change`` for each change, with the per-change steps
        of ``_run_to``/``_add`` written out in one loop: the same arithmetic in the same
        order)."""
        out: list[dict] = []
        table = _SEGMENTS
        end, last, digit, seg, acc = self._end, self._t, self._digit, self._seg, self._acc
        for t, v in zip(times, vals):
            while t >= end:
                dur = end - last
                if digit >= 0 and seg and dur > 0:
                    a = acc[digit]
                    a[seg] = a.get(seg, 0.0) + dur
                last = end
                self._t = last
                self._close_window(out)
                end, acc = self._end, self._acc
            dur = t - last
            if digit >= 0 and seg and dur > 0:
                a = acc[digit]
                a[seg] = a.get(seg, 0.0) + dur
            last = t
            digit = -1 if v >> 8 & 1 else v >> 7 & 1
            seg = table[v & 0x7F]
        self._t, self._digit, self._seg = last, digit, seg
        if last_t is not None:
            self.advance(last_t, out)
        out.sort(key=lambda e: e["t"])
        return out

    def on_change(self, t: int, value: int, out: list[dict]) -> None:
        self._run_to(t, out)
        r4 = value >> 8 & 1
        self._digit = -1 if r4 else value >> 7 & 1
        self._seg = _SEGMENTS[value & 0x7F]

    def advance(self, t: int, out: list[dict]) -> None:
        self._run_to(t, out)
        held = self._state[0] if self._state is not None and not self._state[3] else self._k
        self.horizon = int(self._origin + held * self.window)

    def close(self, end: int, out: list[dict]) -> None:
        # The last, partial window (up to ``end``, where finish() advanced) counts if anything
        # was driven in it; its 2 % threshold is still that of a whole window.
        if any(self._acc):
            self._close_window(out)
        self._filter(None, out)

    def cut(self, start: int, end: int, out: list[dict]) -> None:
        self._filter(None, out)
        self._shown = None
        self._origin, self._k, self._t = end, 0, end
        self._end = end + self.window
        self._acc = [{}, {}]

    def _copy_state(self, twin: "DisplayDecoder") -> None:
        twin._acc = [dict(a) for a in self._acc]
        twin._state = None if self._state is None else list(self._state)

    def _run_to(self, t: float, out: list[dict]) -> None:
        while t >= self._end:
            self._add(self._end - self._t)
            self._t = self._end
            self._close_window(out)
        self._add(t - self._t)
        self._t = t

    def _add(self, dur: float) -> None:
        if self._digit >= 0 and self._seg and dur > 0:
            acc = self._acc[self._digit]
            acc[self._seg] = acc.get(self._seg, 0.0) + dur

    def _close_window(self, out: list[dict]) -> None:
        chars, segs = [], []
        for acc in self._acc:
            if not acc:
                seg = 0
            else:
                if len(acc) == 1:                   # one pattern: the max without a key
                    (seg, held), = acc.items()
                else:
                    seg = max(acc, key=lambda s: (acc[s], s))
                    held = acc[seg]
                if held <= self.min_share * self.window:
                    seg = 0
            segs.append(seg)
            chars.append(glyph(seg)[0])
        self._filter((self._k, "".join(chars), tuple(segs)), out)
        self._acc = [{}, {}]
        self._k += 1
        self._end = self._origin + (self._k + 1) * self.window

    def _filter(self, item: tuple[int, str, tuple[int, int]] | None, out: list[dict]) -> None:
        """Take one window (``None``: the end), judge the state it ends, write kept states."""
        state = self._state
        if item is None:
            if state is not None and not state[3]:
                self._keep(state, out)
            self._state = None
            return
        k, text, segs = item
        if state is None:
            self._state = [k, text, segs, False]
            return
        if text == state[1]:                        # the state goes on: two windows or
            if not state[3]:                        # more are no transition, so it is kept
                self._keep(state, out)              # (written now, not when it ends)
            return
        new = [k, text, segs, False]
        if not state[3]:
            if _is_transition(self._shown, state[1], k - state[0], text):
                new[0] = state[0]                   # dropped: its window goes to the next one
                if text == self._shown:
                    new[3] = True                   # merged into the last kept state
            else:
                self._keep(state, out)
        self._state = new

    def _keep(self, state: list, out: list[dict]) -> None:
        """Write a kept state's event (none when it only continues the last kept text)."""
        k, text, segs, _ = state
        state[3] = True
        if text == self._shown:
            return
        ev = {"t": round(self._origin / self.rate + k * self.window_s, 6),
              "type": "display", "text": text}
        if not all(glyph(s)[1] for s in segs):
            ev["segments"] = list(segs)
        out.append(ev)
        self._shown = text


def flash_summary(events: list[dict], max_gap_s: float = 1.2) -> list[dict]:
    """Fold display events into spans: steady texts and flashing ones.

    A text alternating with blank ("  "), each return of the text less than 2 x ``max_gap_s``
    seconds after the previous one, is one flashing span (so the tower test's "88", lit
    1.55 s between short blanks, is "flashing x3, period 1.60 s", as the shared capture
    tower_test's README puts it). Returns dicts
    ``{"text", "t", "end", "flashing", "flashes", "period_s"}``
    (``period_s`` = mean on-to-on time, seconds; None when steady); ``end`` is None for the
    last span.
    """
    disp = [e for e in events if e["type"] == "display"]
    spans: list[dict] = []
    i = 0
    while i < len(disp):
        ev = disp[i]
        end = disp[i + 1]["t"] if i + 1 < len(disp) else None
        j = i
        # Pattern: text, blank, text, blank, ... each on-to-on step under 2 * max_gap_s.
        while (ev["text"] != "  " and j + 2 < len(disp) and disp[j + 1]["text"] == "  "
               and disp[j + 2]["text"] == ev["text"]
               and disp[j + 2]["t"] - disp[j]["t"] < 2 * max_gap_s):
            j += 2
        if j > i:
            # The span ends where its last flash goes dark.
            ons = [disp[k]["t"] for k in range(i, j + 1, 2)]
            end = disp[j + 1]["t"] if j + 1 < len(disp) else None
            spans.append({"text": ev["text"], "t": ev["t"], "end": end, "flashing": True,
                          "flashes": len(ons),
                          "period_s": round((ons[-1] - ons[0]) / (len(ons) - 1), 4)})
            i = j + 1
        else:
            spans.append({"text": ev["text"], "t": ev["t"], "end": end, "flashing": False,
                          "flashes": 0, "period_s": None})
            i += 1
    return spans
