"""Measure a timing decision from the reference: the duration that dates the output it moves
where the genuine tower shows that output (cleanroom.conform's search, module doc there);
every duration of a replay again, in turn (``measure_all``, after a looser search and as a
last resort); and where a key's click comes a key-loop pass off the genuine's, the duration
that puts the loop's scan on the genuine's side of the press (``rescan``).

``search`` is the conform search (cleanroom.conform ``_Search``): its ``replay``, ``reference``
lamps, motor and tones (``precise``), check (``tol``), session ``end``, clock ratio and press
times; ``measured`` keeps the outputs dated, so that the search at a stricter check after a
looser one dates each only once.
"""
from __future__ import annotations

import bisect
import math
from typing import Sequence

from captures.darktower_facts import NOMINAL_CLOCK_HZ
from captures.tower import run_script

from .choosers import is_timing_name
from .cuefind import is_key_click
from .decisions import Decision, ForcedChooser, allowed, is_timing, ranked
from .params import param
from .tower import CleanroomTower

__all__ = ["measure", "measure_all", "rescan", "output_key", "time_of", "PRECISE",
           "SWEEP_POINTS", "SWEEP_STEPS"]

# how far after a timing decision the output it moves is looked for: a duration that delays
# only a key loop shows first at the next key's click, which may come many seconds later
MEASURE_SPAN_S = 30.0
MEASURE_PRESS_S = 1.0   # measure looks first up to this long after the next press
SWEEP_POINTS = 9        # measure's sweep: options dated across the range at first,
SWEEP_STEPS = 6         # then this many rounds of halving towards the nearest,
RESCAN_SPAN_S = 20.0    # rescan moves the key loop by a duration taken this soon before
SWEEP_CLOSE_S = 2e-4    # stopping once an output lands this close to the reference's
PRECISE = ("lamp", "motor", "tone")     # outputs dated to the cycle (displays go by frames)


def output_key(e: dict) -> tuple:
    if e["type"] == "lamp":
        return ("lamp", e["lamp"], bool(e["on"]))
    if e["type"] == "motor":
        return ("motor", bool(e["on"]))
    return ("tone", round(e["freq_hz"]) if e.get("freq_hz") else None)


def time_of(e: dict) -> float:
    return e["t"]


def measure(search, forced: Sequence, dec, sweep: bool = False, tail: Sequence = ()):
    """Return the option of timing decision ``dec`` (the next after ``forced``) that dates
    the first output it moves where the reference shows that output, or None when no output
    moves within ``MEASURE_SPAN_S`` or the reference shows none near it.  ``tail``: the
    values of the decisions after ``dec`` the replays take (by default their likeliest
    options: a stray key ignored, where one taken clicks and moves the loop's scans).

    Two replays, with the shortest and the longest option, find that output.  It moves with
    the option, a cycle per cycle (the time goes to a sleep), except where a key scan takes
    the key that sounds it: a later loop scans later, and the scan that takes a key pressed
    just before one of them comes a scan sooner (the output jumps back by a scan).  So the
    reference's time of the output, counted from either end, gives the option; where the two
    ends disagree (a jump lies between them) one more replay per candidate keeps the option
    whose output lands nearest the reference's, if it lands within ``SWEEP_CLOSE_S`` of it;
    else neither line holds (a jump and a loop that moves more or less than a cycle per cycle
    between the ends, as a set-up's range wider than a display tick has) and the output is
    dated across the range as ``sweep`` does.

    ``sweep``: the output is not a straight line of the option between the ends (a key loop
    whose scans go by display ticks moves less than a cycle per cycle, and a key scan's jump
    may lie on either side of the option the straight line gives): the output is dated at
    ``SWEEP_POINTS`` options across the range, then halfway towards the neighbours of the
    nearest, ``SWEEP_STEPS`` times; the nearest is returned if it lands within the time
    tolerance of the reference's, else None."""
    lo, hi = min(dec.options), max(dec.options)
    if lo == hi:
        return None
    until = min(search.end, dec.t + MEASURE_SPAN_S)
    # the output moved comes by the next key's click, most often: look there first
    k = bisect.bisect_right(search.presses, dec.t)
    spans = [until]
    if k < len(search.presses) and search.presses[k] + MEASURE_PRESS_S < until:
        spans.insert(0, search.presses[k] + MEASURE_PRESS_S)
    for span_end in spans:
        found = _measure_within(search, forced, dec, sweep, span_end, tuple(tail))
        if found is not _NOTHING_MOVED:
            return found
    return None


_NOTHING_MOVED = object()


def _measure_within(search, forced: Sequence, dec, sweep: bool,
                    until: float, tail: tuple = ()):
    """``measure`` with the replays cut at ``until``; ``_NOTHING_MOVED`` when no output the
    two ends show by then moves."""
    lo, hi = min(dec.options), max(dec.options)
    tol = search.tol
    rate = NOMINAL_CLOCK_HZ * search.clock_ratio    # option cycles per second the output moves
    span = (hi - lo) / rate
    slack = tol.time_s * rate                   # a reference output this far off still dates

    def outputs(option) -> list[dict]:
        # events are dated to the microsecond: one taken at the decision may print before it
        key = (tuple(forced), option, until, dec.t) + ((tail,) if tail else ())
        got = search.measured.get(key)
        if got is None:
            events = search.events(list(forced) + [option] + list(tail), until, dec.t)
            first = bisect.bisect_left(events, dec.t - 1e-5, key=time_of)   # time order
            got = search.measured[key] = [e for e in events[first:]
                                          if e["t"] <= until and e["type"] in PRECISE]
        return got

    def snap(want: float):
        return min(dec.options, key=lambda o: abs(o - want))

    for i, (a, b) in enumerate(zip(outputs(lo), outputs(hi))):
        if output_key(a) != output_key(b):
            return None
        if abs(b["t"] - a["t"]) <= 1e-7:
            continue
        near = [e for e in search.precise(min(a["t"], b["t"]) - tol.time_s,
                                          max(a["t"], b["t"]) + span + tol.time_s)
                if output_key(e) == output_key(a)]
        wants = {snap(w) for r in near
                 for w in (lo + (r["t"] - a["t"]) * rate, hi + (r["t"] - b["t"]) * rate)
                 if lo - slack <= w <= hi + slack}

        def miss(option) -> float:
            got = outputs(option)
            if len(got) <= i or output_key(got[i]) != output_key(a):
                return math.inf
            return min(abs(got[i]["t"] - r["t"]) for r in near)
        if not sweep:
            if len(wants) <= 1:
                return wants.pop() if wants else None
            best = min(sorted(wants), key=miss)
            if miss(best) <= SWEEP_CLOSE_S:
                return best
            # neither end's line lands on the reference's output (a key scan's jump and a
            # loop that moves more or less than a cycle per cycle between them): date the
            # output across the range instead, as the sweep does
        if not near:
            return None
        misses = {o: miss(o) for o in sorted(
            wants | {snap(lo + (hi - lo) * j / (SWEEP_POINTS - 1))
                     for j in range(SWEEP_POINTS)})}
        for _ in range(SWEEP_STEPS):
            best = min(misses, key=lambda o: (misses[o], abs(o)))
            if misses[best] <= SWEEP_CLOSE_S:
                break
            order = sorted(misses)
            j = order.index(best)
            halves = {snap((best + n) / 2) for n in order[max(0, j - 1):j + 2]} - set(misses)
            if not halves:
                break
            misses.update((o, miss(o)) for o in sorted(halves))
        best = min(misses, key=lambda o: (misses[o], abs(o)))
        return best if misses[best] <= tol.time_s else None
    return _NOTHING_MOVED


def rescan(search, probe, forced: list, calls, diff: float):
    """Where a key's click comes a key-loop pass off the recording's (the game's scans a
    little before the press where the genuine's came just after it, or the other way): move
    the loop by the time that puts the scan on the recording's side of the press, through
    one of the last three durations taken before it (within ``RESCAN_SPAN_S``: a click
    within the tolerance, a stray key's, may lie between; latest first; at the end of its
    range, which key scan sees the key may be left to the scan's edge decision,
    ``key_scan_cycles``, whose other option is tried too).  Where the game did not take the
    key at all and a decision was made as it closed (a stray key's, ignored or taken), that
    decision takes its other option first.  ``probe(choices, t0)`` replays and compares as the
    search does (cleanroom.conform).  Return what the search's retries return (the index, the
    values from it on, their revealed flags, False: the decisions after are settled again,
    (difference, result, decisions), the replays taken), or None."""
    k = bisect.bisect_right(search.presses, diff) - 1
    if k < 0 or diff - search.presses[k] > 0.2:
        return None
    press = search.presses[k]

    def click(evs) -> float | None:
        return next((e["t"] for e in evs if e["type"] == "tone" and press < e["t"] < diff + 0.05
                     and is_key_click(e)), None)

    def beyond(got, t: float) -> bool:          # a probe's result got further than ``t``
        return got[0] > t or got[1] is not None and got[1].conforms
    # the values the replay that stopped took (``forced`` may name options it could not take)
    forced = [d.value for d in calls[:len(forced)]]
    ref = click(search.precise(press, diff + 0.05))
    game = click(search.events(forced, diff + 0.05, press))
    runs, best, taken = 1, None, None
    if ref is not None and game is None:
        # no click: the key was not taken; a decision made as it closed (a stray key's:
        # ignored or taken) takes its other option, then the scan is put right as below
        taken = next((j for j, d in enumerate(calls[:len(forced)])
                      if abs(d.t - press) < 1e-6 and len(d.options) == 2), None)
        if taken is None:
            return None
        forced = forced[:taken] + [o for o in calls[taken].options if o != forced[taken]]
        got = probe(forced, press)
        game = click(search.events(forced, diff + 0.05, press))
        runs += 2
        if beyond(got, diff + search.tol.time_s):
            return taken, forced[taken:], [True], False, got, runs
    if ref is None or game is None:
        return None
    off = game - ref                            # the game's click less the recording's
    if not 0.012 < abs(off) < 0.03:
        return None
    rate = NOMINAL_CLOCK_HZ * search.clock_ratio
    shifts = [math.copysign(3 * param(f"tick_{kind}_s") - abs(off), off) * rate + margin
              for kind in ("dark", "lit") for margin in ((12, 60) if off > 0 else (-12, -60))]
    timed = [i for i in range(len(forced) - 1, -1, -1)
             if is_timing_name(calls[i].name) and press - RESCAN_SPAN_S < calls[i].t < press][:3]
    for i in timed:
        dec = calls[i]
        tail = [forced[j] for j in range(i + 1, len(forced))
                if calls[j].t < press or j == taken]
        lo, hi = min(dec.options), max(dec.options)
        for want in sorted({min(hi, max(lo, forced[i] + shift)) for shift in shifts}):
            option = min(dec.options, key=lambda o: abs(o - want))
            head = forced[:i] + [option] + tail
            got = probe(head, dec.t)
            runs += 1
            cl = got[2]
            if len(cl) > len(head) and cl[len(head)].name == "key_scan_cycles":
                edge = head + [o for o in cl[len(head)].options if o != 0][:1]
                got2 = probe(edge, dec.t)
                runs += 1
                if got2[0] > got[0]:
                    head, got = edge, got2
            if beyond(got, diff + search.tol.time_s):
                # on the recording's scan now: date the click exactly (a cycle per cycle)
                now = click(search.events(head, diff + 0.05, dec.t))
                exact = head[:i] + [min(dec.options, key=lambda o: abs(
                    o - option + ((now or ref) - ref) * rate))] + head[i + 1:]
                again = probe(exact, dec.t)
                runs += 2
                if again[0] >= got[0] - search.tol.time_s or \
                        again[1] is not None and again[1].conforms:
                    head, got = exact, again
                if best is None or got[0] > best[4][0]:
                    best = (i, head[i:], [True] * (len(head) - i), False, got)
        if best is not None:
            return best + (runs,)
    return None


class _AligningChooser(ForcedChooser):
    """Force ``forced`` first, then take the earlier replay's ``later`` decisions in order,
    matched by name: a decision whose name is not the next one's (a key or a reel turn at the
    edge of a scan or a step, which a moved duration can add or remove) takes its likeliest
    option, and an earlier one that did not come again is passed over."""

    EDGES = ("key_scan_cycles", "reel_step_cycles")

    def __init__(self, forced: Sequence, later: Sequence[Decision]):
        super().__init__(forced)
        self.later = list(later)
        self._j = 0

    def choose(self, name: str, options: Sequence, weights, t: float):
        """Return the forced value, else the next earlier decision's of the same name."""
        if len(self.calls) < len(self.forced):
            return super().choose(name, options, weights, t)
        while (self._j < len(self.later) and self.later[self._j].name != name
               and self.later[self._j].name in self.EDGES):
            self._j += 1
        value = None
        if self._j < len(self.later) and self.later[self._j].name == name:
            value = self.later[self._j].value
            self._j += 1
        options, weights = allowed(options, weights)
        if value not in options:
            value = ranked(options, weights)[0]
        self.calls.append(Decision(t, name, options, value, False, weights))
        return self._hand(value, t)


def measure_all(search, decisions: list, settled: int = 0) -> list | None:
    """Return the decisions' values with every timing decision measured again in turn
    (``measure`` at the search's check, after the decisions before it as they now stand), or
    None when none changes: the search (cleanroom.conform) measured some of them before the
    decisions before them were settled, and left the others at the game's own value.  After
    a change the decisions after it are replayed and matched by name (``_AligningChooser``: a
    moved duration can add or remove a key at a scan's edge, which would shift every later
    value).  The first ``settled`` decisions were settled by the search: a duration among
    them is measured with the draws that follow it up to the next duration as they were
    settled (``_tail``), not at their likeliest options (a turn's pause measured at the next
    MOVE's click where a stray key, settled as taken, clicks first)."""
    calls = list(decisions)
    changed = False
    k = 0
    while k < len(calls):
        if is_timing(calls[k]):
            values = [d.value for d in calls[:k]]
            option = measure(search, values, calls[k], tail=_tail(calls, k, settled))
            if option is not None and option != calls[k].value:
                chooser = _AligningChooser(values + [option], calls[k + 1:])
                tower = CleanroomTower(chooser=chooser, clock_ratio=search.clock_ratio)
                run_script(tower, search.script, until=search.end)
                tower.close()
                calls = chooser.calls
                changed = True
        k += 1
    return [d.value for d in calls] if changed else None


def _tail(calls: list, k: int, settled: int) -> list:
    """Return the values of the draws after duration ``k`` up to the next duration (and
    before ``settled``): what its measurement replays with (``measure_all``)."""
    tail = []
    for d in calls[k + 1:settled]:
        if is_timing(d):
            break
        tail.append(d.value)
    return tail
