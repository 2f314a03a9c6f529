"""Compare two event sequences by meaning, with tolerances and a clock ratio.

Real towers run on an RC oscillator (the driver's 425 kHz is an approximation, spreads of up to
about 50 kHz are reported, docs/dark-tower-wiring.md §9), so two recordings of the same session
differ by a time scale. ``compare_events`` therefore:

1. keeps the compared types (display, lamp, motor, reel, tone by default; inputs such as
   button events are not outputs of the tower and are left out);
2. aligns each type's sequence on its meaning (display text, lamp and level, motor level,
   card position, tone pulse count or click) with a longest-matching-blocks alignment
   (``difflib.SequenceMatcher``), so a missing or extra event does not shift the rest; tones
   whose pulse counts differ by one (a legato seam sampled on the other side of the 3 % rule)
   still pair up;
3. fits ``t_a = ratio * t_b + offset`` by least squares on the matched event times, weighted
   by each type's time tolerance (display and reel times are 1/60 s coarse), refits
   without outliers (residual over 0.1 s), and reports ``ratio`` as the clock ratio
   (clock of B / clock of A: 1.02 = B runs 2 % fast);
4. walks the aligned sequences in time order and reports the first difference: an event on
   one side only, a time off by more than the type's tolerance after mapping B's times onto
   A's, or a tone frequency off by more than ``freq_frac`` after dividing B's by the ratio.

``estimate_clock`` gives a tower's oscillator frequency from its tones: every tone period of
the firmware is a whole number of instructions (6 clocks each); the reference table of the
shared captures (pulses -> instructions per period, at 425 kHz) lets each decoded tone vote for
candidate clocks 6 * N * f, and the densest cluster wins.

The tolerance and difference types are ``captures.tolerance``'s, shared with the clean-room
conformance (``cleanroom.conform``); ``event_tolerance()`` gives this comparison's values.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, replace
from statistics import median
from typing import Sequence

import numpy as np

from analysis.base import AnalysisError
from captures.darktower_facts import NOMINAL_CLOCK_HZ
from captures.tolerance import OUTPUT_TYPES, Difference, Tolerance

__all__ = ["Tolerance", "Difference", "event_tolerance", "Comparison", "compare_events",
           "fit_clock_ratio", "estimate_clock", "ClockEstimate", "format_comparison",
           "TONE_PERIODS", "REFERENCE_CLOCK_HZ", "fit_interval_ratio", "IntervalFit",
           "RATIO_RANGE", "GIVEN_RATIO_RANGE", "clock_line", "fit_same_session_ratio"]

REFERENCE_CLOCK_HZ = float(NOMINAL_CLOCK_HZ)
COMPARED = OUTPUT_TYPES

# Tone period in instructions (6 clocks each) by pulse count, from the tones of the shared
# captures (N = 425 kHz / (6 * freq_hz), all within 0.2 of an integer). Data, not a ROM dump.
TONE_PERIODS: dict[int, tuple[int, ...]] = {
    2: (164,), 25: (254,), 27: (276, 322, 428), 33: (96, 254, 286, 316), 35: (272, 322),
    53: (428,), 65: (96, 130, 164, 198, 232, 266, 368), 66: (300, 334), 69: (428,),
    70: (322,), 81: (136, 228, 238, 256, 316), 82: (238, 286, 348), 97: (276, 322),
    129: (68, 218, 348), 161: (254,), 162: (238,), 177: (174, 316), 251: (90,), 256: (258,),
}


def event_tolerance(**changes) -> Tolerance:
    """Return the event comparison's tolerance (a fresh one; ``changes`` replace fields): one
    time window per event type, tone frequency within 1 %, pulse counts within 1."""
    tol = Tolerance(time_s={
        "display": 1 / 60 + 0.001,   # display texts are per 1/60 s window
        "lamp": 0.001, "motor": 0.001,
        "reel": 1 / 60 + 0.001,      # MAME reports card_pos at the next 1/60 s frame
        "tone": 0.001,
    }, freq_frac=0.01, pulses=1, types=COMPARED)
    return replace(tol, **changes) if changes else tol


@dataclass
class Comparison:
    """Outcome of ``compare_events``: ratio, offset, matched pairs, first difference;
    ``fitted`` tells whether the ratio was fitted (else it was given), ``refused_ratio`` is a
    fit outside ``RATIO_RANGE`` that was not used (the times were compared on one clock)."""
    ratio: float
    offset: float
    matched: int
    difference: Difference | None
    tolerance: Tolerance
    fitted: bool = False
    refused_ratio: float | None = None

    @property
    def equivalent(self) -> bool:
        """Tell whether A and B agree within the tolerances."""
        return self.difference is None


def _key(ev: dict):
    kind = ev["type"]
    if kind == "display":
        return ev["text"]
    if kind == "lamp":
        return (ev["lamp"], ev["on"])
    if kind in ("motor", "power"):
        return ev["on"]
    if kind == "reel":
        return ev["card_pos"]
    if kind == "tone":
        return None if ev["freq_hz"] is None else ev.get("pulses")
    if kind == "button":
        return (ev["button"], ev["action"])
    return ev.get("reason")


def _select(events: Sequence[dict], types: Sequence[str]) -> dict[str, list[dict]]:
    by: dict[str, list[dict]] = {k: [] for k in types}
    for ev in events:
        if ev.get("type") in by:
            by[ev["type"]].append(ev)
    for k in by:
        by[k].sort(key=lambda e: e["t"])
    return by


def _match(a: list[dict], b: list[dict]) -> list[tuple[str, int, int, int, int]]:
    sm = difflib.SequenceMatcher(None, [_key(e) for e in a], [_key(e) for e in b],
                                 autojunk=False)
    return sm.get_opcodes()


# Plausible clock ratios between two towers: RC oscillators spread by up to about 50 kHz
# around 425 kHz (docs/dark-tower-wiring.md §9), +-12 %; a fit beyond +-20-25 % means the
# matched events are unrelated (two different sessions), not a faster tower.
RATIO_RANGE = (0.8, 1.25)
# A clock ratio given by hand (``--clock-ratio`` of towerlab draws and conform), exclusive
# bounds: wider than a fit may give, to replay a tower far off, but a value beyond them is a
# slip (a ratio of 1e9 replays a session that never ends).
GIVEN_RATIO_RANGE = (0.5, 2.0)


def fit_clock_ratio(pairs: Sequence[tuple[float, float]],
                    sigmas: Sequence[float] | None = None) -> tuple[float, float]:
    """Fit ``t_a = ratio * t_b + offset`` (weighted least squares) on matched (t_a, t_b)
    seconds; ``sigmas`` are each pair's time uncertainty (seconds; default all equal).

    Returns (ratio, offset); (1.0, mean difference) with fewer than two distinct times, or when
    the fit leaves ``RATIO_RANGE``: then (1.0, 0.0) (no two towers' RC clocks differ that
    much: such a fit means the matched events are unrelated, and comparing on the same clock
    reports the real difference). A second fit drops pairs whose residual exceeds 0.1 s.
    """
    ratio, offset = _fit(pairs, sigmas)
    if not RATIO_RANGE[0] <= ratio <= RATIO_RANGE[1]:
        return 1.0, 0.0
    return ratio, offset


def _fit(pairs: Sequence[tuple[float, float]],
         sigmas: Sequence[float] | None = None) -> tuple[float, float]:
    """Return the weighted least-squares (ratio, offset) of ``fit_clock_ratio``, whatever the
    ratio."""
    if not pairs:
        return 1.0, 0.0
    ta = np.array([p[0] for p in pairs])
    tb = np.array([p[1] for p in pairs])
    w = 1 / np.asarray(sigmas if sigmas is not None else np.ones(len(pairs)), dtype=float)
    if len(pairs) < 2 or np.ptp(tb) == 0:
        return 1.0, float(np.average(ta - tb, weights=w))
    ratio, offset = np.polyfit(tb, ta, 1, w=w)
    keep = np.abs(ta - (ratio * tb + offset)) <= 0.1
    if 2 <= keep.sum() < len(pairs) and np.ptp(tb[keep]) > 0:
        ratio, offset = np.polyfit(tb[keep], ta[keep], 1, w=w[keep])
    return float(ratio), float(offset)


def _paired(a: Sequence[dict], b: Sequence[dict], tol: Tolerance):
    """Return the events of each compared type of A and B, their alignment by meaning
    (opcodes per type), and the (t_a, t_b) pairs of the aligned events with each one's time
    uncertainty (the type's time tolerance)."""
    for k in tol.types:
        if not tol.has_time_for(k):
            raise AnalysisError(f"no time tolerance for event type {k!r}")
    sa, sb = _select(a, tol.types), _select(b, tol.types)
    ops = {k: _match(sa[k], sb[k]) for k in tol.types}
    pairs, sigmas = [], []
    for k, opcodes in ops.items():
        for tag, i1, i2, j1, j2 in opcodes:
            if tag == "equal":
                pairs += [(sa[k][i]["t"], sb[k][j]["t"])
                          for i, j in zip(range(i1, i2), range(j1, j2))]
                sigmas += [tol.time_for(k)] * (i2 - i1)
    return sa, sb, ops, pairs, sigmas


def fit_same_session_ratio(a: Sequence[dict], b: Sequence[dict]) -> IntervalFit:
    """Return the clock ratio of B over A (``fit_interval_ratio``) for two recordings of the
    same session; raise AnalysisError, one line, when they are not that: fewer than two of
    their events pair, the paired events lie on no line of a tower's ratio
    (``RATIO_RANGE``: the tones alone may still agree, as the demo firmware's do with the
    genuine ROM's), or the intervals fit a ratio beyond any tower's."""
    pairs, sigmas = _paired(a, b, event_tolerance())[3:]
    if len(pairs) < 2:
        raise AnalysisError(f"{len(pairs)} event(s) pair (expected 2 or more to fit a "
                            f"timeline: the same session recorded twice)")
    line = _fit(pairs, sigmas)[0]
    if not RATIO_RANGE[0] <= line <= RATIO_RANGE[1]:
        raise AnalysisError(f"the paired events lie on a line of ratio {line:.4f}, beyond "
                            f"any tower's: the two are not the same session")
    fit = fit_interval_ratio(a, b)
    if not RATIO_RANGE[0] <= fit.ratio <= RATIO_RANGE[1]:
        raise AnalysisError(f"the intervals fit a clock ratio of {fit.ratio:.4f}, beyond any "
                            f"tower's: the two are not the same session")
    return fit


def compare_events(a: Sequence[dict], b: Sequence[dict], tolerance: Tolerance | None = None,
                   ratio: float | None = None, offset: float | None = None,
                   context: int = 3) -> Comparison:
    """Align events ``a`` and ``b`` and report the first difference (see module docstring).

    ``ratio``/``offset`` fix the time mapping instead of fitting it (ratio 1.0, offset 0.0
    compares on the same clock).
    """
    tol = tolerance or event_tolerance()
    sa, sb, ops, pairs, sigmas = _paired(a, b, tol)
    fitted, refused = ratio is None, None
    if ratio is None:
        fit_ratio, fit_offset = _fit(pairs, sigmas)
        if not RATIO_RANGE[0] <= fit_ratio <= RATIO_RANGE[1]:
            refused, fit_ratio, fit_offset = fit_ratio, 1.0, 0.0
        ratio = fit_ratio
        offset = fit_offset if offset is None else offset
    offset = 0.0 if offset is None else offset

    def to_a(t: float) -> float:
        return ratio * t + offset

    found: list[tuple[float, str, dict | None, dict | None, str]] = []
    for k, opcodes in ops.items():
        for tag, i1, i2, j1, j2 in opcodes:
            if tag == "replace" and k == "tone" and i2 - i1 == j2 - j1 and all(
                    _near_tone(sa[k][i], sb[k][j], tol.pulses) for i, j in zip(range(i1, i2),
                                                                               range(j1, j2))):
                tag = "equal"     # pulse counts off by one at a legato seam: same tones
            if tag == "equal":
                for i, j in zip(range(i1, i2), range(j1, j2)):
                    ea, eb = sa[k][i], sb[k][j]
                    if abs(ea["t"] - to_a(eb["t"])) > tol.time_for(k):
                        found.append((min(ea["t"], to_a(eb["t"])), ea["t"], "time", ea, eb, k))
                        break
                    if k == "tone" and ea["freq_hz"] is not None:
                        fb = eb["freq_hz"] / ratio
                        if abs(fb - ea["freq_hz"]) > tol.freq_frac * ea["freq_hz"]:
                            found.append((ea["t"], ea["t"], "frequency", ea, eb, k))
                            break
            else:
                ea = sa[k][i1] if i1 < i2 else None
                eb = sb[k][j1] if j1 < j2 else None
                ts = [e for e in (ea and ea["t"], eb and to_a(eb["t"])) if e is not None]
                if tag == "replace":
                    kind = "different"
                else:
                    kind = "only in A" if tag == "delete" else "only in B"
                found.append((min(ts), max(0.0, min(ts)), kind, ea, eb, k))
                break
    diff = None
    if found:
        _, t, kind, ea, eb, k = min(found, key=lambda f: f[0])
        diff = Difference(t, ea, eb, _around(a, t, context, lambda e: e["t"], tol.types),
                          kind=kind,
                          context_b=_around(b, t, context, lambda e: to_a(e["t"]), tol.types))
    return Comparison(ratio, offset, len(pairs), diff, tol, fitted and refused is None, refused)


def _near_tone(a: dict, b: dict, pulses: int) -> bool:
    """Tell whether two tones differ only in pulse count, by at most ``pulses``."""
    if a["freq_hz"] is None or b["freq_hz"] is None:
        return False
    return abs(a.get("pulses", 0) - b.get("pulses", 0)) <= pulses


def _around(events: Sequence[dict], t: float, n: int, when, types) -> list[dict]:
    evs = sorted((e for e in events if e.get("type") in types), key=when)
    idx = min(range(len(evs)), key=lambda i: abs(when(evs[i]) - t), default=None)
    if idx is None:
        return []
    return evs[max(0, idx - n):idx + n + 1]


def _show(ev: dict | None, mapped: float | None = None) -> str:
    """Return an event as a line; ``mapped`` is its time on the other side's clock, shown
    when it differs (so two sides that differ only in time never read the same)."""
    if ev is None:
        return "-"
    fields = {k: v for k, v in ev.items() if k not in ("t", "type")}
    when = f"{ev['t']:.6f}"
    if mapped is not None and abs(mapped - ev["t"]) >= 5e-7:
        when += f" (at {mapped:.6f} on the other clock)"
    return f"{when} {ev['type']} " + " ".join(f"{k}={v}" for k, v in fields.items())


def clock_line(c: Comparison, name_a: str = "A", name_b: str = "B") -> str:
    """Return one line saying how the two clocks were related: a fitted ratio (and what it
    means), a refused fit, or the ratio given."""
    if c.refused_ratio is not None:
        return (f"clock ratio not fitted: the fit gave {c.refused_ratio:.4f}, beyond what two "
                f"towers' clocks differ ({RATIO_RANGE[0]:g}-{RATIO_RANGE[1]:g}): the events "
                f"paired are not the same session's, so times were compared on one clock")
    if c.fitted:
        return (f"clock ratio fitted: {c.ratio:.4f} ({name_b}'s clock "
                f"{(c.ratio - 1) * 100:+.2f} % against {name_a}'s) on {c.matched} paired "
                f"events; --same-clock compares without one")
    return f"clock ratio given: {c.ratio:.4f}, offset {c.offset:+.4f} s"


def format_comparison(c: Comparison, name_a: str = "A", name_b: str = "B") -> str:
    """Return a human report: "equivalent within tolerance (clock ratio ...)" or the first
    difference with both sides and context."""
    head = f"clock ratio {c.ratio:.4f}"
    if c.difference is None:
        return (f"equivalent within tolerance ({head}, {c.matched} events matched; "
                f"{c.tolerance.describe()})")
    d = c.difference
    mapped = c.ratio * d.b["t"] + c.offset if d.b is not None else None
    lines = [f"first difference at t={d.t:.6f} s ({name_a} time): {d.kind}",
             f"  {name_a}: {_show(d.a)}", f"  {name_b}: {_show(d.b, mapped)}"]
    if d.kind == "time" and d.a is not None and d.b is not None:
        mapped = c.ratio * d.b["t"] + c.offset
        tol = (c.tolerance.time_for(d.a["type"]) if c.tolerance.has_time_for(d.a["type"])
               else 0.0)
        lines.append(f"  {d.b['t']:.6f} s of {name_b} maps to {mapped:.6f} s: off by "
                     f"{(mapped - d.a['t']) * 1000:+.1f} ms (tolerance {tol * 1000:g} ms)")
    if d.kind == "frequency" and d.a is not None and d.b is not None:
        scaled = d.b["freq_hz"] / c.ratio
        lines.append(f"  {d.b['freq_hz']:g} Hz of {name_b} on {name_a}'s clock (ratio "
                     f"{c.ratio:.4f}) is {scaled:.1f} Hz: off by "
                     f"{(scaled / d.a['freq_hz'] - 1) * 100:+.2f} % (tolerance "
                     f"{c.tolerance.freq_frac * 100:g} %)")
    how = (f"fitted on {c.matched} paired events" if c.fitted else
           "one clock: the fit was refused, see below" if c.refused_ratio is not None else
           "given")
    lines += [f"  ({head}, offset {c.offset:+.4f} s, {how}; {c.tolerance.describe()})",
              f"  context {name_a}:"]
    lines += [f"    {_show(e)}" for e in d.context_a]
    lines.append(f"  context {name_b}:")
    lines += [f"    {_show(e, c.ratio * e['t'] + c.offset)}" for e in d.context_b]
    return "\n".join(lines)


@dataclass
class ClockEstimate:
    """An oscillator estimate: ``clock_hz``, the tones that agreed, and their spread."""
    clock_hz: float
    ratio: float              # clock_hz / 425 kHz
    tones_used: int
    tones_total: int
    spread_rel: float         # (max - min) / median of the agreeing estimates


def estimate_clock(events: Sequence[dict], cluster_rel: float = 0.005,
                   search: tuple[float, float] = (0.7, 1.3)) -> ClockEstimate:
    """Estimate the oscillator (Hz) from decoded tones (see module docstring).

    Each tone with a known pulse count votes for clocks ``6 * N * freq_hz`` (N from
    ``TONE_PERIODS``) inside ``search`` x 425 kHz; the estimate is the median of the largest
    group of votes within ``cluster_rel`` of each other.
    """
    tones = [e for e in events if e.get("type") == "tone" and e.get("freq_hz")]
    votes = []
    for e in tones:
        for n in TONE_PERIODS.get(e.get("pulses"), ()):
            clock = 6 * n * e["freq_hz"]
            if search[0] <= clock / REFERENCE_CLOCK_HZ <= search[1]:
                votes.append((clock, id(e)))
    if not votes:
        raise AnalysisError(f"no tone matches the reference tone table ({len(tones)} tones "
                            "decoded); record a session with the tower test or key clicks")
    votes.sort()
    clocks = [v[0] for v in votes]
    best: tuple[int, int, int] = (0, 0, 0)
    j = 0
    for i in range(len(clocks)):
        while clocks[i] - clocks[j] > cluster_rel * clocks[j]:
            j += 1
        n_tones = len({votes[k][1] for k in range(j, i + 1)})
        if n_tones > best[0]:
            best = (n_tones, j, i)
    n_tones, j, i = best
    group = clocks[j:i + 1]
    clock = median(group)
    return ClockEstimate(clock, clock / REFERENCE_CLOCK_HZ, n_tones, len(tones),
                         (max(group) - min(group)) / clock)


# -- the clock ratio from internally timed intervals, for any firmware -------------------------

# Events that start a new stretch of program time: inputs (the same wall time on both sides,
# whatever the clocks) and the motor (it stops when the reel's sensor passes a hole, a
# mechanical time that does not scale with the oscillator).
_TRIGGERS = ("button", "power", "motor", "gap")


@dataclass
class IntervalFit:
    """A clock ratio fitted from intervals the firmware times itself (see ``fit_interval_ratio``).

    ``ratio`` is clock of B / clock of A, as in ``Comparison`` (1.03 = B runs 3 % fast);
    ``ratio_intervals`` / ``ratio_tones`` are the two estimates it combines (None when that
    kind of evidence is missing), ``std_rel`` its standard error (a fraction).
    """
    ratio: float
    std_rel: float
    intervals: int                 # matched events used in the interval fit
    stretches: int                 # trigger-free stretches they fall in
    tones: int                     # matched pitched tones used
    ratio_intervals: float | None
    ratio_tones: float | None


def _triggers(a: Sequence[dict], b: Sequence[dict]) -> tuple[np.ndarray, np.ndarray]:
    """Return the trigger times (seconds) of A and B. The session start is the common origin
    (a power-on at t = 0 is on one side only); the inputs are the same script on both sides,
    so a side whose events do not list them (a capture imported without its key actions)
    takes the other side's."""
    def times(evs, kinds):
        return sorted(e["t"] for e in evs if e.get("type") in kinds and e["t"] > 0)

    inputs = ("button", "power")
    outputs = tuple(k for k in _TRIGGERS if k not in inputs)
    in_a, in_b = times(a, inputs), times(b, inputs)
    in_a, in_b = in_a or in_b, in_b or in_a
    return (np.array(sorted(in_a + times(a, outputs)), dtype=float),
            np.array(sorted(in_b + times(b, outputs)), dtype=float))


def _stretch(t: float, triggers: np.ndarray) -> int:
    """Return the number of trigger times at or before ``t`` (seconds)."""
    return int(np.searchsorted(triggers, t, side="right"))


def fit_interval_ratio(a: Sequence[dict], b: Sequence[dict],
                       types: Sequence[str] = ("display", "lamp", "tone"),
                       sigma_s: dict[str, float] | None = None,
                       min_tone_pulses: int = 8) -> IntervalFit:
    """Fit the clock ratio of B over A (seconds ratio of A's intervals to B's) from what both
    firmwares time themselves, for any firmware: no tone table is needed.

    Two kinds of evidence, combined by inverse variance:

    - intervals: events of ``types`` are aligned by meaning (as ``compare_events`` does) and
      split into stretches between triggers (button and power inputs, motor switching, gaps:
      the time of an input is wall time on both sides and the motor stops on a mechanical
      sensor); inside a stretch every interval is counted in instructions, so a least-squares
      line ``t_a = ratio * t_b + c_stretch`` (one slope, one offset per stretch) weighted by
      each type's time resolution (``sigma_s``, default ``event_tolerance().time_s``) gives the
      ratio of the two clocks (flash periods, step delays, tone lengths);
    - tone periods: a tone is a whole number of instructions per period, so the pulse-weighted
      median of ``freq_b / freq_a`` over matched tones of at least ``min_tone_pulses`` pulses
      is the ratio directly.

    Raises AnalysisError when neither kind of evidence exists (no matched stretch with two
    events and no matched tone).
    """
    sig = dict(event_tolerance().time_s)
    sig.update(sigma_s or {})
    for k in types:
        if k not in sig:
            raise AnalysisError(f"no time resolution for event type {k!r}")
    sa, sb = _select(a, types), _select(b, types)
    trig_a, trig_b = _triggers(a, b)
    ta, tb, w, seg, tone_r, tone_w = [], [], [], [], [], []
    for k in types:
        for tag, i1, i2, j1, j2 in _match(sa[k], sb[k]):
            if tag != "equal":
                continue
            for i, j in zip(range(i1, i2), range(j1, j2)):
                ea, eb = sa[k][i], sb[k][j]
                sa_i = _stretch(ea["t"], trig_a)
                if sa_i == _stretch(eb["t"], trig_b):
                    ta.append(ea["t"])
                    tb.append(eb["t"])
                    w.append(1 / sig[k] ** 2)
                    seg.append(sa_i)
                if (k == "tone" and ea.get("freq_hz") and eb.get("freq_hz")
                        and min(ea.get("pulses", 0), eb.get("pulses", 0)) >= min_tone_pulses):
                    tone_r.append(eb["freq_hz"] / ea["freq_hz"])
                    tone_w.append(min(ea["pulses"], eb["pulses"]))
    r_int, var_int, used, stretches = _stretch_slope(np.array(ta), np.array(tb), np.array(w),
                                                     np.array(seg, dtype=int))
    r_tone = var_tone = None
    if tone_r:
        r_tone = _weighted_median(tone_r, tone_w)
        # A decoded period is good to about one sample in the tone's length: 0.1 % for the
        # short ones, less for long ones; the spread of the tones says the rest.
        spread = float(np.median(np.abs(np.array(tone_r) - r_tone))) if len(tone_r) > 2 else 0.0
        var_tone = max(spread, 1e-3 / np.sqrt(sum(tone_w) / min_tone_pulses)) ** 2
    if r_int is None and r_tone is None:
        raise AnalysisError("no internally timed interval and no tone matched between the two "
                            f"sessions ({len(ta)} events in trigger-free stretches, "
                            f"{len(tone_r)} tones); record a longer session")
    if r_int is None:
        ratio, var = r_tone, var_tone
    elif r_tone is None:
        ratio, var = r_int, var_int
    else:
        ratio = (r_int / var_int + r_tone / var_tone) / (1 / var_int + 1 / var_tone)
        var = 1 / (1 / var_int + 1 / var_tone)
    return IntervalFit(float(ratio), float(np.sqrt(var)), used, stretches, len(tone_r),
                       None if r_int is None else float(r_int),
                       None if r_tone is None else float(r_tone))


def _weighted_median(values: Sequence[float], weights: Sequence[float]) -> float:
    order = np.argsort(values)
    v = np.asarray(values, dtype=float)[order]
    cw = np.cumsum(np.asarray(weights, dtype=float)[order])
    return float(v[np.searchsorted(cw, cw[-1] / 2)])


def _stretch_slope(ta: np.ndarray, tb: np.ndarray, w: np.ndarray, seg: np.ndarray,
                   outlier_s: float = 0.05):
    """Return (slope, its variance, events used, stretches used) of ``t_a = slope * t_b +
    c_seg`` by weighted least squares with one offset per stretch; (None, None, 0, 0) when no
    stretch has two distinct times. One refit drops events whose residual exceeds
    ``outlier_s`` seconds."""
    keep = np.ones(len(ta), dtype=bool)
    slope = var = None
    for _ in range(2):
        xs, ys, ws, n_used, n_seg = [], [], [], 0, 0
        for s in np.unique(seg[keep]) if len(ta) else ():
            m = keep & (seg == s)
            if m.sum() < 2 or np.ptp(tb[m]) == 0:
                continue
            wm = w[m]
            xs.append(tb[m] - np.average(tb[m], weights=wm))
            ys.append(ta[m] - np.average(ta[m], weights=wm))
            ws.append(wm)
            n_used += int(m.sum())
            n_seg += 1
        if not xs:
            return None, None, 0, 0
        x, y, ww = np.concatenate(xs), np.concatenate(ys), np.concatenate(ws)
        sxx = float(np.sum(ww * x * x))
        slope = float(np.sum(ww * x * y) / sxx)
        resid = y - slope * x
        # Known time resolutions give 1 / sxx; scale it when the residuals say worse.
        dof = max(1, len(x) - n_seg - 1)
        var = max(1.0, float(np.sum(ww * resid * resid)) / dof) / sxx
        bad = np.zeros(len(ta), dtype=bool)
        for s in np.unique(seg[keep]):
            m = keep & (seg == s)
            if m.sum() < 2:
                continue
            wm = w[m]
            c = np.average(ta[m] - slope * tb[m], weights=wm)
            bad[m] = np.abs(ta[m] - slope * tb[m] - c) > outlier_s
        if not bad.any():
            break
        keep &= ~bad
    return slope, var, n_used, n_seg
