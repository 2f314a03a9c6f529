"""Check the clean-room game against a recording, trace for trace, and estimate its odds.

A reference is a folder with ``script.txt`` (the button session) and ``events.jsonl`` (what the
tower showed, captures.events vocabulary).  ``conform(script, events)`` replays the script on
the clean-room game and compares what both towers showed, meaning by meaning:

- display: each text shown, with its start time; blanks shorter than 0.1 s (the decoder's
  one-frame flicker while digits change) are dropped, and a text that alternates with blank in
  phases under 0.45 s is one "flashing" item (start, period);
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
and 50 ms for flashing ones.  Flash periods must agree within 15 %.  The first
item that has no partner on the other side is the first difference; it is reported with its
time, both sides, and the reference's neighbouring items as context.

How random decisions are resolved (``resolve``): the game asks a chooser at each decision
point (bazaar price, haggle, move outcome, brigand count, skirmish, ...; names in
cleanroom.game).  The resolver replays the script with a list of forced choices: decisions
beyond the list take their first option.  Starting from an empty list it takes the first
decision not yet forced, replays once per candidate option (likeliest first), and keeps the
option whose replay differs from the reference latest (or not at all); ties keep the likelier
option.  Numbers (prices, brigands, gold) have every displayable value as an option, so a
recording outside the game's chosen range still resolves (and ``--stats`` flags it).  It repeats
until the replay conforms or every decision is forced.  Unforced decisions take their
likeliest option.  Each decision therefore takes the
value the reference displays, as far as the reference shows it; decisions the reference never
reveals keep their first option and are marked unrevealed.

Statistics (``estimate``): over many references, the resolved decisions that were revealed are
counted per name; yes/no odds and each outcome's share get Wilson 95 % intervals and are
checked against the parameter table (cleanroom.params); counts and prices are checked against
their ranges.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any, Sequence

from captures.events import EventError, read_events
from captures.script import Script, ScriptError, read_script
from captures.tower import run_script

from .tower import CleanroomError, CleanroomTower

__all__ = ["ConformError", "Tolerance", "Item", "Difference", "Result", "summarize",
           "compare", "conform", "load_reference", "read_reference_script", "resolve",
           "Decision", "estimate", "Estimate", "ForcedChooser"]


class ConformError(CleanroomError):
    """A reference folder or a value given to conformance is not usable; says which and why."""


@dataclass(frozen=True)
class Tolerance:
    """How far two towers may differ and still conform (seconds, fractions)."""
    time_s: float = 0.05
    flash_s: float = 0.15
    freq_frac: float = 0.03
    dur_frac: float = 0.10
    dur_s: float = 0.005
    period_frac: float = 0.15


BLANK_GLITCH_S = 0.1
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


def _display_items(events: list[dict], end: float) -> list[Item]:
    shown = [(e["t"], e["text"]) for e in events if e["type"] == "display"]
    spans = []
    for i, (t, text) in enumerate(shown):
        t_end = shown[i + 1][0] if i + 1 < len(shown) else end
        if text.strip():
            spans.append([t, t_end, text])
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
            period = (group[-1][0] - first[0]) / (len(group) - 1)
        else:
            flashing = None if (short or cut) else False
            period = None
        items.append(Item(first[0], "display", first[2], flashing, period, len(group)))
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


def _same(a: Item, b: Item, tol: Tolerance) -> bool:
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


def _window(a: Item, b: Item, tol: Tolerance) -> float:
    if a.kind == "display" and (a.flashing or b.flashing or a.flashing is None
                                or b.flashing is None):
        return tol.flash_s
    return tol.time_s


@dataclass
class Difference:
    """The first place two towers disagree: time, both sides and the reference's context."""
    t: float
    reference: Item | None
    game: Item | None
    context: list[Item]
    nearest: Item | None = None

    def describe(self) -> str:
        """Return a multi-line report: what differs, both sides, and context."""
        ref = (f"{self.reference.describe()} at {self.reference.t:.3f} s" if self.reference
               else "(nothing)")
        if self.game is not None:
            game = f"{self.game.describe()} at {self.game.t:.3f} s"
            if self.reference is not None and self.game.describe() == \
                    self.reference.describe():
                game += (f" (the same item {1000 * (self.game.t - self.reference.t):+.0f} ms "
                         f"away: outside the time tolerance)")
        elif self.nearest is not None:
            game = (f"(nothing within tolerance; nearest like it: {self.nearest.describe()} "
                    f"at {self.nearest.t:.3f} s)")
        else:
            game = "(nothing)"
        lines = [f"first difference at {self.t:.3f} s",
                 f"  reference: {ref}",
                 f"  game:      {game}",
                 "  context (reference):"]
        for it in self.context:
            mark = ">>" if it is self.reference else "  "
            lines.append(f"   {mark} {it.t:9.3f}  {it.describe()}")
        return "\n".join(lines)


@dataclass
class Result:
    """The outcome of one comparison."""
    conforms: bool
    difference: Difference | None
    matched: int
    total: int
    decisions: list = field(default_factory=list)

    @property
    def diff_time(self) -> float:
        """Return the time of the first difference, or infinity when the towers conform."""
        return math.inf if self.difference is None else self.difference.t

    def describe(self) -> str:
        """Return "conforms" with the item count, or the first difference."""
        if self.conforms:
            return f"conforms ({self.matched} of {self.total} items matched)"
        return self.difference.describe()


OUTPUT_TYPES = ("display", "lamp", "motor", "reel", "tone")


def compare(reference: Sequence[dict], game: Sequence[dict], tol: Tolerance | None = None,
            end: float | None = None, types: Sequence[str] | None = None) -> Result:
    """Compare two event lists (see module doc); return the result with the first difference.

    ``types``: the output types the reference could observe (e.g. no display on an 8-channel
    probe); the game's other outputs are not compared. Default: all.
    """
    tol = tol or Tolerance()
    if types is not None:
        unseen = set(OUTPUT_TYPES) - set(types)
        reference = [e for e in reference if e["type"] not in unseen]
        game = [e for e in game if e["type"] not in unseen]
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
    used = [False] * len(got)
    missing: Item | None = None
    start = 0
    for r in ref:
        win = _window(r, r, tol)
        best, best_dt = None, None
        while start < len(got) and got[start].t < r.t - 2 * tol.flash_s - 1:
            start += 1
        for j in range(start, len(got)):
            g = got[j]
            if g.t > r.t + win + tol.flash_s:
                break
            if used[j] or not _same(r, g, tol):
                continue
            dt = abs(g.t - r.t)
            # the earliest partner within the window: repeated items (a cue's notes, a
            # flashing text) pair in order even when one side runs up to the tolerance early
            if dt <= _window(r, g, tol):
                best, best_dt = j, dt
                break
        if best is None:
            missing = r
            break
        used[best] = True
    # A game item in the last ``time_s`` of the session may fall after the recording stopped.
    extra = next((g for j, g in enumerate(got) if not used[j] and g.t < end - tol.time_s and
                  (missing is None or g.t < missing.t)), None)
    matched = sum(used)
    if missing is None and extra is None:
        return Result(True, None, matched, len(ref))
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
    return Result(False, diff, matched, len(ref))


def _index_near(items: list[Item], t: float) -> int:
    for i, it in enumerate(items):
        if it.t >= t:
            return i
    return len(items)


# ---- random decisions resolved from a reference -----------------------------------------
@dataclass
class Decision:
    """One random decision as the game took it: time, name, options, value, revealed."""
    t: float
    name: str
    options: list
    value: Any
    revealed: bool = False
    weights: list | None = None


class ForcedChooser:
    """Take decisions from a list, then each remaining decision's likeliest option; log them."""

    def __init__(self, forced: Sequence = ()):
        self.forced = list(forced)
        self.calls: list[Decision] = []

    def choose(self, name: str, options: Sequence, weights, t: float):
        """Return the forced value for this decision if it is a valid option, else the first."""
        i = len(self.calls)
        value = _ranked(options, weights)[0]
        if i < len(self.forced) and self.forced[i] in options:
            value = self.forced[i]
        self.calls.append(Decision(t, name, list(options), value, False,
                                   list(weights) if weights is not None else None))
        return value


def _ranked(options: Sequence, weights: Sequence[float] | None) -> list:
    """Return options, likeliest first (stable: equal weights keep their order)."""
    if not weights:
        return list(options)
    order = sorted(range(len(options)), key=lambda i: -weights[i])
    return [options[i] for i in order]


def _replay(script: Script, forced: Sequence, until: float, clock_ratio: float = 1.0
            ) -> tuple[list[dict], list]:
    chooser = ForcedChooser(forced)
    tower = CleanroomTower(chooser=chooser, clock_ratio=clock_ratio)
    events = run_script(tower, script, until=until)
    tower.close()
    return events, chooser.calls


def resolve(script: Script, reference: Sequence[dict], tol: Tolerance | None = None,
            end: float | None = None, max_runs: int = 2000, clock_ratio: float = 1.0,
            types: Sequence[str] | None = None) -> Result:
    """Replay ``script`` with each random decision resolved to what ``reference`` shows.

    Returns the comparison of the best replay; ``result.decisions`` lists the decisions
    (module doc: how they are resolved).  ``clock_ratio``: the recorded tower's clock over
    MAME's 425 kHz (a real tower's RC oscillator; e.g. from ``towerlab clock``).
    ``types``: the output types the reference observed (``compare``).
    """
    if not clock_ratio > 0 or clock_ratio == float("inf"):
        raise ConformError(f"clock ratio {clock_ratio!r} must be a finite number above 0")
    tol = tol or Tolerance()
    if end is None:
        end = max([e["t"] for e in reference] + [script.end_time()])
    forced: list = []
    revealed: list[bool] = []
    runs = 0
    events, calls = _replay(script, forced, end, clock_ratio)
    result = compare(reference, events, tol, end, types)
    while not result.conforms and len(forced) < len(calls) and runs < max_runs:
        k = len(forced)
        dec = calls[k]
        if dec.t > result.diff_time + 1e-9:
            break
        scores = []
        best = None
        for option in _ranked(dec.options, dec.weights):
            runs += 1
            ev, cl = _replay(script, forced + [option], end, clock_ratio)
            res = compare(reference, ev, tol, end, types)
            scores.append(res.diff_time)
            if best is None or res.diff_time > best[0]:
                best = (res.diff_time, option, res, cl)
            if res.conforms:
                break
        forced.append(best[1])
        revealed.append(len(set(scores)) > 1)
        result, calls = best[2], best[3]
    if result.conforms:
        # Decisions the search did not need: revealed if another option would not conform.
        taken = [d.value for d in calls]
        for i in range(len(forced), len(calls)):
            revealed.append(False)
            for option in _ranked(calls[i].options, calls[i].weights)[:8]:
                if option == taken[i] or runs >= max_runs:
                    continue
                runs += 1
                ev, _ = _replay(script, taken[:i] + [option] + taken[i + 1:], end,
                                clock_ratio)
                if not compare(reference, ev, tol, end, types).conforms:
                    revealed[i] = True
                    break
    for i, d in enumerate(calls):
        d.revealed = revealed[i] if i < len(revealed) else False
    result.decisions = list(calls)
    return result


def load_reference(folder: str) -> tuple[Script, list[dict]]:
    """Read ``folder``/script.txt and ``folder``/events.jsonl; errors name the missing file."""
    if not os.path.isdir(folder):
        raise ConformError(f"{folder}: not a folder (expected a capture folder with script.txt "
                           f"and events.jsonl)")
    script_path = os.path.join(folder, "script.txt")
    events_path = os.path.join(folder, "events.jsonl")
    if not os.path.exists(script_path):
        raise ConformError(f"{folder}: no script.txt (the session's button script)")
    if not os.path.exists(events_path):
        raise ConformError(f"{folder}: no events.jsonl (decode the capture first: "
                           f"towerlab decode)")
    script = read_reference_script(script_path)
    try:
        events = read_events(events_path)
    except EventError as exc:
        raise ConformError(str(exc)) from None
    except UnicodeDecodeError:
        raise ConformError(f"{events_path}: not a JSON-lines events file (bytes that are not "
                           f"UTF-8 text)") from None
    return script, events


def read_reference_script(path: str) -> Script:
    """Read a reference's session script; errors name the file (also for non-UTF-8 bytes)."""
    try:
        return read_script(path)
    except ScriptError as exc:
        raise ConformError(str(exc)) from None
    except UnicodeDecodeError:
        raise ConformError(f"{path}: not a text script (expected '<time_s> <BUTTON> <hold_s>' "
                           f"lines in UTF-8)") from None


def conform(script: Script, reference: Sequence[dict], tol: Tolerance | None = None,
            clock_ratio: float = 1.0) -> Result:
    """Run ``script`` on the game with decisions resolved from ``reference``; compare."""
    return resolve(script, reference, tol, clock_ratio=clock_ratio)


# ---- statistics over many references -----------------------------------------------------
@dataclass
class Estimate:
    """The observed frequency of one outcome with a 95 % interval and the game's value."""
    name: str
    outcome: str
    count: int
    total: int
    low: float
    high: float
    expected: Any
    ok: bool | None

    def describe(self) -> str:
        """Return one table line."""
        share = self.count / self.total if self.total else float("nan")
        verdict = {True: "ok", False: "OUTSIDE", None: "-"}[self.ok]
        return (f"{self.name:18} {self.outcome:10} {self.count:4}/{self.total:<4} "
                f"{share:6.3f} [{self.low:6.3f}, {self.high:6.3f}]  game {self.expected!s:>16}"
                f"  {verdict}")


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Return the Wilson score interval for ``k`` successes in ``n`` trials."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, mid - half), min(1.0, mid + half)


def _allowed(d: Decision) -> list:
    """Return the options the game itself would pick (weight above 0)."""
    if not d.weights:
        return list(d.options)
    return [o for o, w in zip(d.options, d.weights) if w > 0]


def estimate(decisions: Sequence[Decision]) -> list[Estimate]:
    """Count revealed decisions per name and check them against the game's odds and ranges.

    Weighted decisions (haggle, skirmish, move, tomb, treasure): each outcome's count gets a
    Wilson 95 % interval, and the game's expected share (the mean of its weights at those
    decisions) must lie inside it.  Numbers (prices, brigands, gold): every observed value must
    lie in the game's range (``count`` of ``total`` do), and the game's expected mean inside the
    observed mean's 95 % interval (``low``-``high``).
    """
    by_name: dict[str, list[Decision]] = {}
    for d in decisions:
        if d.revealed:
            by_name.setdefault(d.name, []).append(d)
    out: list[Estimate] = []
    for name, ds in sorted(by_name.items()):
        n = len(ds)
        ranged = all(d.weights and set(d.weights) <= {0.0, 1.0} for d in ds)
        if all(d.weights for d in ds) and not ranged:
            outcomes = []
            for d in ds:
                for o in d.options:
                    if o not in outcomes:
                        outcomes.append(o)
            for o in outcomes:
                k = sum(1 for d in ds if d.value == o)
                shares = [d.weights[d.options.index(o)] / sum(d.weights)
                          if o in d.options and sum(d.weights) else 0.0 for d in ds]
                expected = sum(shares) / n
                lo, hi = wilson(k, n)
                out.append(Estimate(name, str(o), k, n, lo, hi, round(expected, 3),
                                    lo <= expected <= hi))
            continue
        values = [d.value for d in ds]
        inside = sum(1 for d in ds if d.value in _allowed(d))
        numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
        if not numeric:
            out.append(Estimate(name, f"{len(set(map(str, values)))} kinds", inside, n, 0.0,
                                1.0, f"{len(_allowed(ds[0]))} options", inside == n))
            continue
        # mean with a 95 % normal interval; the game's expected mean is its uniform range's
        mean = sum(values) / n
        sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
        half = 1.96 * sd / math.sqrt(n) if n > 1 else math.inf
        expected = sum(sum(_allowed(d)) / len(_allowed(d)) for d in ds) / n
        lo_opt = min(min(_allowed(d)) for d in ds)
        hi_opt = max(max(_allowed(d)) for d in ds)
        ok = inside == n and (n < 2 or sd == 0 or mean - half <= expected <= mean + half)
        out.append(Estimate(name, f"mean {mean:.1f}", inside, n, mean - half, mean + half,
                            f"{lo_opt}-{hi_opt}, mean {expected:.1f}", ok))
    return out
