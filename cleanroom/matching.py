"""Match what two towers showed, meaning by meaning: a recording and the clean-room game.

``compare(reference, game)`` reduces both event lists (captures.events vocabulary) to items and
pairs them:

- display: each text shown, with its start time; blanks shorter than 0.1 s (the decoder's
  one-frame flicker while digits change) and texts caught half-changed for one or two 1/60 s
  windows (e.g. ` 3` as `P2` becomes `P3`, corpus l1_p3_s35 20.367) are dropped, and a text
  that alternates with blank in phases under 0.45 s is one "flashing" item (start, period);
  a flashing text whose first flash lasted one or two windows (it took the running flash
  timer's phase near its end) may pair by its second flash;
- lamps (which lamp, on/off), motor (on/off), reel (``card_pos``) and tones (frequency within
  3 %, duration within 10 % or 5 ms; clicks have no frequency).  Buttons and power events are
  the inputs and are not compared; the ``cue`` field the game adds to its tones is ignored.
  Nothing is compared inside a ``gap`` of the reference (the probe saw nothing there).

Timing tolerance (``Tolerance``): an item matches when its time differs by at most 50 ms
(``time_s``), except where a flashing display starts: 0.15 s (``flash_s``, half a flash
phase), because the tower's flash timer runs in the firmware's main loop and is not re-phased
at every change (shared captures tower_test and level_select show the same ``L1`` appearing
8 ms and 87 ms after the same lamp).  On the shared captures the game is off by at most
13 ms for tones, lamps and motor (the key-scan jitter), one 1/60 s frame for steady displays
and 50 ms for flashing ones.  Flash periods must agree within 15 %.  ``since_input_frac``
widens the window by a fraction of the time since the reference's last button press (the
timing criterion 1/60 s + 1 %: ``towerlab conform --tolerance-ms 16.7 --tolerance-pct 1``).
The first
item that has no partner on the other side is the first difference; it is reported with its
time, both sides, and the reference's neighbouring items as context.
"""
from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from captures.tolerance import Difference, Tolerance

from .choosers import is_timing_name
from .cuefind import is_key_click
from .tower import CleanroomError

__all__ = ["ConformError", "Tolerance", "Item", "Difference", "Result", "summarize",
           "compare", "same_item", "match_window", "CRITERION", "STRICT", "LOOSE", "FRAME_S",
           "ROUNDING_S", "OUTPUT_TYPES", "QuietWindow"]


# The strict check, conformance's default: every item within one display frame, 1/60 s flat,
# the start of a flashing text included.  A reference whose clock is exact (MAME's 425 kHz, the
# corpus) needs no allowance that grows with time; a real tower's recording is first put on the
# reference clock (``clock_ratio``).  Events files date to the microsecond, so two items one
# whole frame apart may read up to 2 us more than 1/60 s apart (``ROUNDING_S``).
# A tone's pitch within 1 %: the genuine tower's notes decode within 0.3 % of the cue
# catalogue's (cleanroom/cues.py), so a note 3 % off is a different note.
FRAME_S = 1 / 60
ROUNDING_S = 2e-6
STRICT = Tolerance(time_s=FRAME_S + ROUNDING_S, flash_s=FRAME_S + ROUNDING_S, freq_frac=0.01)
CRITERION = STRICT
# The older, looser check: 1/60 s plus 1 % of the time since the reference's last press, a
# flashing text's start within 0.15 s (``towerlab conform --tolerance-pct 1
# --flash-tolerance-ms 150``).  The resolver also searches at it first (``resolve``).
LOOSE = Tolerance(time_s=FRAME_S, since_input_frac=0.01, flash_s=0.15)


class ConformError(CleanroomError):
    """A reference folder or a value given to conformance is not usable; says which and why."""


BLANK_GLITCH_S = 0.1
HALF_CHANGED_S = 2 / 60 + 1e-3
MIX_NEIGHBOUR_S = 0.6
FLASH_PHASE_S = 0.45


@dataclass
class Item:
    """One thing the tower showed, reduced to its meaning."""
    t: float
    kind: str
    value: Any
    flashing: bool | None = None
    period: float | None = None
    count: int = 1
    # a flashing text whose first flash lasted at most two 1/60 s windows (it took the free-
    # running flash timer's phase near its end): the start of its second flash, which may
    # pair instead of the first
    alt_t: float | None = None
    dur: float | None = None

    def describe(self) -> str:
        """Return the item as a short human-readable line."""
        if self.kind == "display":
            what = f"display {self.value!r}"
            if self.flashing:
                what += f" flashing x{self.count}"
                if self.period:
                    what += f", period {self.period:.2f} s"
            return what
        if self.kind == "tone":
            if self.value is None:
                return f"click {self.dur:.4f} s"
            return f"tone {self.value:.1f} Hz {self.dur:.3f} s"
        if self.kind == "lamp":
            return f"lamp {self.value[0]} {'on' if self.value[1] else 'off'}"
        if self.kind == "motor":
            return f"motor {'on' if self.value else 'off'}"
        return f"reel card_pos {self.value}"


def _without_half_changed(spans: list[list]) -> list[list]:
    """Drop the texts the decoder caught half-changed: at most two 1/60 s windows long, not
    the text shown before or after it (within ``MIX_NEIGHBOUR_S``), and each character blank
    or the one at its place in one of those (` 3` as `P2` becomes `P3`, corpus l1_p3_s35
    20.367; `- ` before `-1`, l1_p1_s01 61.950; `-8` between `08` and `-1`, l3_p4_s15 50.650).
    A person never reads them; the tower writes its digits inside a frame."""
    out = []
    for i, (t0, t1, text) in enumerate(spans):
        if t1 - t0 <= HALF_CHANGED_S:
            # the neighbours are the nearest texts that are not half-changed themselves
            before = next((s[2] for s in reversed(spans[:i]) if t0 - s[1] < MIX_NEIGHBOUR_S
                           and s[1] - s[0] > HALF_CHANGED_S), "  ")
            after = next((s[2] for s in spans[i + 1:] if s[0] - t1 < MIX_NEIGHBOUR_S
                          and s[1] - s[0] > HALF_CHANGED_S), "  ")
            if text not in (before, after) and all(
                    c == " " or c == before[k] or c == after[k] for k, c in enumerate(text)):
                continue
        out.append([t0, t1, text])
    return out


def _without_one_digit_at_a_click(spans: list[list], clicks: list[float]) -> list[list]:
    """Drop a text the decoder caught with one digit dark as a key's scan ended the loop: at
    most two 1/60 s windows long, a key click inside it, and the flashing text just before
    it with a digit blank (l1_p1_s01 178.200: ` 1` for `-1`; on the pins the flash turned on
    one digit refresh before the scan that took NO/END, and only the right digit was lit
    before the click).  Which digit comes first follows the refreshes outside the key loop,
    which the game does not count; the text is the flashing one either way."""
    out = []
    for i, (t0, t1, text) in enumerate(spans):
        if t1 - t0 <= HALF_CHANGED_S and out:
            before = out[-1][2]
            at_click = any(t0 - 1e-6 <= c <= t1 + 1e-6 for c in clicks)
            if (at_click and text != before and t0 - out[-1][1] < FLASH_PHASE_S
                    and all(c == " " or c == before[k] for k, c in enumerate(text))):
                continue
        out.append([t0, t1, text])
    return out


def _display_items(events: list[dict], end: float) -> list[Item]:
    shown = [(e["t"], e["text"]) for e in events if e["type"] == "display"]
    clicks = [e["t"] for e in events if e["type"] == "tone" and is_key_click(e)]
    spans = []
    for i, (t, text) in enumerate(shown):
        t_end = shown[i + 1][0] if i + 1 < len(shown) else end
        if text.strip():
            spans.append([t, t_end, text])
    spans = _without_one_digit_at_a_click(_without_half_changed(spans), clicks)
    merged: list[list] = []
    for span in spans:
        if merged and merged[-1][2] == span[2] and span[0] - merged[-1][1] < BLANK_GLITCH_S:
            merged[-1][1] = span[1]
        else:
            merged.append(span)
    items: list[Item] = []
    group: list[list] = []

    def flush():
        if not group:
            return
        first = group[0]
        cut = group[-1][1] >= end - 1e-6
        short = all(s[1] - s[0] < FLASH_PHASE_S for s in group)
        if len(group) >= 2:
            flashing = True
            # the period from the second flash on: the first may be cut short, as the text
            # takes the free-running flash timer's phase (corpus l1_p3_s35 63.933: `C2`)
            lead = group[1] if len(group) >= 3 else first
            period = (group[-1][0] - lead[0]) / (len(group) - 1 - (lead is not first))
        else:
            flashing = None if (short or cut) else False
            period = None
        alt = group[1][0] if flashing and first[1] - first[0] <= HALF_CHANGED_S else None
        items.append(Item(first[0], "display", first[2], flashing, period, len(group),
                          alt_t=alt))
        group.clear()

    for span in merged:
        if group:
            prev = group[-1]
            same = prev[2] == span[2]
            if (same and prev[1] - prev[0] < FLASH_PHASE_S and span[0] - prev[1] < FLASH_PHASE_S
                    and span[1] - span[0] < FLASH_PHASE_S + 0.1):
                group.append(span)
                continue
            flush()
        group.append(span)
    flush()
    return items


def summarize(events: Sequence[dict], end: float | None = None) -> list[Item]:
    """Reduce events to the items conformance compares, in time order (see module doc)."""
    events = sorted(events, key=lambda e: e["t"])
    if end is None:
        end = events[-1]["t"] if events else 0.0
    items = _display_items(events, end)
    for e in events:
        kind = e["type"]
        if kind == "lamp":
            items.append(Item(e["t"], "lamp", (e["lamp"], int(e["on"]))))
        elif kind == "motor":
            items.append(Item(e["t"], "motor", int(e["on"])))
        elif kind == "reel":
            items.append(Item(e["t"], "reel", int(e["card_pos"])))
        elif kind == "tone":
            items.append(Item(e["t"], "tone", e["freq_hz"], dur=float(e["dur_s"])))
    items.sort(key=lambda it: it.t)
    return items


def same_item(a: Item, b: Item, tol: Tolerance) -> bool:
    if a.kind != b.kind:
        return False
    if a.kind == "tone":
        if (a.value is None) != (b.value is None):
            return False
        if a.value is not None and abs(a.value - b.value) > tol.freq_frac * a.value:
            return False
        if a.value is None:
            return True
        return abs(a.dur - b.dur) <= max(tol.dur_s, tol.dur_frac * a.dur)
    if a.value != b.value:
        return False
    if a.kind == "display":
        if a.flashing is not None and b.flashing is not None and a.flashing != b.flashing:
            return False
        if a.period and b.period and a.count >= 3 and b.count >= 3:
            if abs(a.period - b.period) > tol.period_frac * a.period:
                return False
    return True


def _gap(a: Item, b: Item) -> float:
    """Return how far apart two items start (s); a flashing text whose first flash was cut
    short may start at its second flash instead (``Item.alt_t``)."""
    starts_a = [a.t] + ([a.alt_t] if a.alt_t is not None else [])
    starts_b = [b.t] + ([b.alt_t] if b.alt_t is not None else [])
    return min(abs(x - y) for x in starts_a for y in starts_b)


def match_window(a: Item, b: Item, tol: Tolerance, grow: float = 0.0) -> float:
    """Return the time window for pairing ``a`` with ``b``: the flash window where a
    flashing text starts, else ``time_s`` plus ``grow`` (``since_input_frac``'s share)."""
    if a.kind == "display" and (a.flashing or b.flashing or a.flashing is None
                                or b.flashing is None):
        return tol.flash_s
    return tol.time_s + grow


@dataclass
class Result:
    """The outcome of one comparison.

    ``matched_items``: the game's items that matched reference items (in time order);
    ``rule_items`` / ``random_items``: how many of them the rules predicted and how many a
    random decision decided (set by ``resolve``; module doc), None after a bare ``compare``;
    ``decided_items``: the latter; ``full``: False for the resolver's partial comparisons.
    """
    conforms: bool
    difference: Difference | None
    matched: int
    total: int
    decisions: list = field(default_factory=list)
    matched_items: list = field(default_factory=list, repr=False)
    rule_items: int | None = None
    random_items: int | None = None
    decided_items: list = field(default_factory=list, repr=False)
    full: bool = True

    @property
    def diff_time(self) -> float:
        """Return the time of the first difference, or infinity when the towers conform."""
        return math.inf if self.difference is None else self.difference.t

    def counts(self) -> str:
        """Return the item counts: matched, predicted by rules, decided by a random choice."""
        text = f"{self.matched} of {self.total} items matched"
        if self.rule_items is not None:
            taken = [d for d in self.decisions if len(d.options) > 1 and d.t <= self.diff_time]
            durations = sum(1 for d in taken if is_timing_name(d.name))
            text += (f": {self.rule_items} predicted by rules, {self.random_items} decided by "
                     f"{len(taken) - durations} random choices")
            if durations:
                # durations decide no item by themselves (module doc)
                text += f"; {durations} durations the hidden state decides"
        return text

    def describe(self) -> str:
        """Return "conforms" with the item counts, or the first difference."""
        if self.conforms:
            return f"conforms ({self.counts()})"
        return self.difference.describe()


OUTPUT_TYPES = ("display", "lamp", "motor", "reel", "tone")


def compare(reference: Sequence[dict], game: Sequence[dict], tol: Tolerance | None = None,
            end: float | None = None, types: Sequence[str] | None = None) -> Result:
    """Compare two event lists (see module doc); return the result with the first difference.

    ``types``: the output types the reference could observe (e.g. no display on an 8-channel
    probe); the game's other outputs are not compared. Default: all.  ``tol``: default
    ``Tolerance()`` (50 ms; ``resolve`` and ``towerlab conform`` default to ``CRITERION``).
    """
    tol = tol or Tolerance()
    reference, game = _observable(reference, types), _observable(game, types)
    if end is None:
        end = max([e["t"] for e in reference] + [0.0])
    gaps = [(e["t"], e["t"] + e["dur_s"]) for e in reference if e["type"] == "gap"]

    def seen(it: Item) -> bool:
        return not any(a - tol.time_s <= it.t <= b + tol.time_s for a, b in gaps)

    # a gap cuts the display on both sides: what showed before it ends where the gap starts
    cuts = [{"t": a, "type": "display", "text": "  "} for a, _ in gaps]
    ref = [it for it in summarize(list(reference) + cuts, end) if seen(it)]
    got = [it for it in summarize([e for e in game if e["t"] <= end + 1e-6] + cuts, end)
           if seen(it)]
    return _pair(ref, got, _presses(reference), tol, end)


def _observable(events: Sequence[dict], types: Sequence[str] | None) -> Sequence[dict]:
    """Return ``events`` without the outputs a reference observing ``types`` could not see
    (``compare``; None: it sees all)."""
    if types is None:
        return events
    unseen = set(OUTPUT_TYPES) - set(types)
    return [e for e in events if e["type"] not in unseen]


def _presses(reference: Sequence[dict]) -> list[float]:
    return sorted(e["t"] for e in reference
                  if e["type"] == "button" and e.get("action") == "press")


def _pair(ref: list[Item], got: list[Item], presses: list[float], tol: Tolerance,
          end: float) -> Result:
    """Pair the game's items ``got`` with the reference's ``ref`` (``compare``); ``presses``:
    the reference's press times (the since-input share)."""
    used = [False] * len(got)
    missing: Item | None = None
    start = 0

    def grow(t: float) -> float:
        if not tol.since_input_frac:
            return 0.0
        i = bisect.bisect_right(presses, t) - 1
        return tol.since_input_frac * (t - (presses[i] if i >= 0 else 0.0))

    for r in ref:
        extra_s = grow(r.t)
        win = match_window(r, r, tol, extra_s)
        best = None
        while start < len(got) and got[start].t < r.t - 2 * tol.flash_s - 1:
            start += 1
        for j in range(start, len(got)):
            g = got[j]
            if g.t > r.t + win + tol.flash_s:
                break
            if used[j] or not same_item(r, g, tol):
                continue
            # the earliest partner within the window: repeated items (a cue's notes, a
            # flashing text) pair in order even when one side runs up to the tolerance early
            if _gap(r, g) <= match_window(r, g, tol, extra_s):
                best = j
                break
        if best is None:
            missing = r
            break
        used[best] = True
    # A game item in the last ``time_s`` of the session may fall after the recording stopped.
    extra = next((g for j, g in enumerate(got) if not used[j] and g.t < end - tol.time_s and
                  (missing is None or g.t < missing.t)), None)
    matched = sum(used)
    matched_items = [g for j, g in enumerate(got) if used[j]]
    if missing is None and extra is None:
        return Result(True, None, matched, len(ref), matched_items=matched_items)
    if extra is not None and (missing is None or extra.t < missing.t):
        pos = _index_near(ref, extra.t)
        diff = Difference(extra.t, None, extra, ref[max(0, pos - 3):pos + 3])
    else:
        pos = ref.index(missing)
        nearest = min((g for g in got if g.kind == missing.kind and g.value == missing.value),
                      key=lambda g: abs(g.t - missing.t), default=None)
        other = min((g for j, g in enumerate(got) if not used[j] and g.t >= missing.t - 0.5),
                    key=lambda g: abs(g.t - missing.t), default=None)
        diff = Difference(missing.t, missing, other if other and abs(other.t - missing.t) < 1
                          else None, ref[max(0, pos - 3):pos + 4], nearest)
    return Result(False, diff, matched, len(ref), matched_items=matched_items)


def _index_near(items: list[Item], t: float) -> int:
    for i, it in enumerate(items):
        if it.t >= t:
            return i
    return len(items)


# ---- comparing only after a quiet stretch ------------------------------------------------
ZONE_MARGIN_S = 0.05
WINDOW_FACTS = 8        # the latest comparisons a new one may build on
WINDOW_ZONES = 6        # quiet stretches tried per comparison it builds on
WINDOW_REFS = 16        # the reference's summarized parts kept for the next comparisons


class QuietWindow:
    """Compare a replay with the reference only after a quiet stretch: the same first
    difference as the whole comparison, found over a fraction of the items.

    A quiet stretch (z0, z1) is a time where neither the reference nor the replay shows any
    output (display, lamp, motor, reel, tone) and both displays are blank.  No item on one
    side of it can change or pair with an item on the other, if it is long enough: a display
    text ends before it (blank), so the texts before and after are summarized apart (flashes
    group, blanks merge and half-changed texts look for neighbours only within
    ``FLASH_PHASE_S``, ``BLANK_GLITCH_S``, ``MIX_NEIGHBOUR_S``), and no pairing window reaches
    across it (``flash_s``, or ``time_s`` plus the since-input share, bounded from the presses
    around it).  So ``compare`` over the whole session is its comparison up to z0 followed by
    its comparison after z1.

    The part up to z0 is known when an earlier comparison ("fact": a replay, its time and its
    first difference) had identical events up to z0, the same stretch quiet and blank, and no
    difference before z0: then every item up to z0 pairs as it did there, and the first
    difference is the comparison after z1's (that of the items after z1 with the button
    presses of the reference kept for the since-input share).  Replays from the same saved
    state share their events up to the decision they change, so the previous comparisons
    almost always give such a stretch a few seconds before it.  Where none is found (or the
    reference has gaps, whose cuts reach across), the whole comparison runs.
    """

    def __init__(self, reference: Sequence[dict], tol: Tolerance, types):
        self.tol, self.types = tol, types
        self.seen = set(OUTPUT_TYPES) if types is None else set(OUTPUT_TYPES) & set(types)
        ref = sorted(reference, key=_time)
        # a gap's cuts reach across a quiet stretch; a window per type is not one window
        self.usable = not any(e["type"] == "gap" for e in ref) and \
            not isinstance(tol.time_s, Mapping)
        self.outputs = [e for e in ref if e["type"] in self.seen]
        self.out_t = [e["t"] for e in self.outputs]
        self.others = [e for e in ref if e["type"] not in OUTPUT_TYPES]
        self.others_t = [e["t"] for e in self.others]
        self.presses = _presses(ref)
        self.press_at = [i for i, e in enumerate(self.others)
                         if e["type"] == "button" and e.get("action") == "press"]
        self.press_t = [self.others[i]["t"] for i in self.press_at]
        self.least = max(MIX_NEIGHBOUR_S, FLASH_PHASE_S + BLANK_GLITCH_S, tol.flash_s,
                         tol.time_s if self.usable else 0.0) + ZONE_MARGIN_S
        self.zones: list[tuple[float, float]] = []      # the reference's quiet blank stretches
        shown = "  "
        for a, b in zip(self.outputs, self.outputs[1:]):
            if a["type"] == "display":
                shown = a["text"]
            if b["t"] - a["t"] >= self.least and not shown.strip():
                self.zones.append((a["t"], b["t"]))
        self.zone_end = [b for _, b in self.zones]
        self.facts: list[tuple[list, float, float]] = []
        self._refs: dict[tuple, tuple[list[Item], list[float]]] = {}    # compare's, kept

    def learn(self, events: list[dict], h: float, res: Result) -> None:
        """Keep a comparison (whole, or found equal to it) to build later ones on."""
        if self.usable:
            self.facts.append((events, h, res.diff_time))
            del self.facts[:-WINDOW_FACTS]

    def compare(self, events: list[dict], h: float, whole: bool) -> Result | None:
        """Return the comparison of ``events`` at ``h`` (with the whole reference when
        ``whole``) found after a quiet stretch, or None when no earlier comparison gives
        one."""
        if not self.usable:
            return None
        for fact in reversed(self.facts):
            z = self._zone(events, h, fact)
            if z is not None:
                break
        else:
            return None
        z1 = z[1]
        k0 = bisect.bisect_left(self.out_t, z1)
        # the last press before z1 and the inputs after it: the since-input share after z1
        j = bisect.bisect_right(self.press_t, z1) - 1
        j = self.press_at[j] if j >= 0 else 0
        # the reference's part summarized once for the replays that share its stretch (the
        # options of one decision, most often): ``compare`` with no gap in the reference
        key = (j, k0, whole, h)
        ref = self._refs.pop(key, None)
        if ref is None:
            if whole:
                part = self.others[j:] + self.outputs[k0:]
            else:
                part = (self.others[j:bisect.bisect_right(self.others_t, h)]
                        + self.outputs[k0:bisect.bisect_right(self.out_t, h)])
            ref = (summarize(_observable(part, self.types), h), _presses(part))
        self._refs[key] = ref
        if len(self._refs) > WINDOW_REFS:
            del self._refs[next(iter(self._refs))]
        got = events[bisect.bisect_left(events, z1, key=_time):]
        got = summarize([e for e in _observable(got, self.types) if e["t"] <= h + 1e-6], h)
        res = _pair(ref[0], got, ref[1], self.tol, h)
        res.full = False
        self.learn(events, h, res)
        return res

    def summarize(self, events: list[dict], end: float, after: float) -> list[Item]:
        """Return the items ``summarize(events, end)`` has from ``after`` on, summarizing only
        what follows the latest quiet blank stretch of ``events`` before it (class doc: the
        items on either side of one are summarized apart); more items may come before."""
        if self.usable and self.seen == set(OUTPUT_TYPES):
            n = bisect.bisect_right(self.zone_end, after - ZONE_MARGIN_S)
            for a, b in self.zones[max(0, n - WINDOW_ZONES):n][::-1]:
                z = self._narrow(a, b, events)
                if z is not None and z[1] - z[0] >= self.least:
                    return summarize(events[bisect.bisect_left(events, z[1], key=_time):], end)
        return summarize(events, end)

    def _zone(self, events: list[dict], h: float, fact) -> tuple[float, float] | None:
        """Return the latest quiet blank stretch (z0, z1) that ``fact`` vouches for in
        ``events`` (class doc), or None."""
        base, h_b, diff_b = fact
        tries = 0
        for n in range(bisect.bisect_right(self.zone_end, min(h, h_b)) - 1, -1, -1):
            a, b = self.zones[n]
            if a >= diff_b:
                continue
            if tries >= WINDOW_ZONES:
                return None
            tries += 1
            z = self._narrow(a, b, events)
            z = z and self._narrow(z[0], z[1], base)
            if z is None or z[0] >= diff_b or not self._long_enough(*z):
                continue
            i = bisect.bisect_right(events, z[0], key=_time)
            if i == bisect.bisect_right(base, z[0], key=_time) and events[:i] == base[:i]:
                return z
            return None         # the replays part before it: another comparison may do
        return None

    def _narrow(self, a: float, b: float, events: list[dict]):
        """Return the part of (a, b) where ``events`` show no output, around its middle, if
        their display is blank there; else None."""
        mid = (a + b) / 2
        j = bisect.bisect_right(events, mid, key=_time)
        lo, hi = a, b
        for k in range(j - 1, -1, -1):
            e = events[k]
            if e["type"] not in self.seen:
                continue
            lo = max(lo, e["t"])
            if e["type"] == "display":
                if e["text"].strip():
                    return None
                break
            if e["t"] <= a and "display" not in self.seen:
                break
        for k in range(j, len(events)):
            e = events[k]
            if e["type"] in self.seen:
                hi = min(hi, e["t"])
                break
        return (lo, hi) if hi > lo else None

    def _long_enough(self, z0: float, z1: float) -> bool:
        """Tell whether no pairing window reaches across (z0, z1) (class doc)."""
        tol = self.tol
        if z1 - z0 < self.least:
            return False
        frac, presses = tol.since_input_frac, self.presses

        def since(t: float) -> float:
            i = bisect.bisect_right(presses, t) - 1
            return t - (presses[i] if i >= 0 else 0.0)
        # an item before z0 whose window could reach z1 comes after r0; each one's window
        # grows with the time since the press before it, at most the longest time between
        # presses there (or since the last)
        r0 = (z1 - tol.time_s) / (1 + frac) - ZONE_MARGIN_S
        longest = max(since(z1), since(z0))
        for i in range(bisect.bisect_right(presses, r0), bisect.bisect_right(presses, z0)):
            longest = max(longest, presses[i] - (presses[i - 1] if i else 0.0))
        return z1 - z0 > tol.time_s + frac * longest + ZONE_MARGIN_S


def _time(e: dict) -> float:
    return e["t"]
