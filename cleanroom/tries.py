"""Ways of trying a decision's options with replays, for the resolver's search
(cleanroom/conform.py): every allowed option in turn (``best_of``), one decision further on
both sides of a timing's change (``ahead``), a duration measured with the option it is
taken with (``best_paired``), and a duration dated past a stray key the recording's tower
took (``stray_timing``).  ``probe(values, t0, stop=inf, span=...)`` replays the game with
``values`` for its decisions and gives (the time of the first difference, the comparison
or None where it matched up to ``stop``, the decisions taken)."""
from __future__ import annotations

import math
from typing import Sequence

from captures.tolerance import Tolerance

from .cuefind import is_key_click
from .decisions import PROBE_MARGIN_S, Decision, is_timing
from .decisions import ranked as _ranked, unseen as _unseen
from .measure import measure

__all__ = ["best_of", "best_paired", "ahead", "try_timing", "may_pair", "paired",
           "stray_timing", "stray_tail", "PAIRED_SPAN_S", "AHEAD_OPTIONS", "STRAY_CLICK_S"]

PAIRED_SPAN_S = 5.0     # how soon after a decision a tie may be a duration taken with it
AHEAD_OPTIONS = 8       # ahead tries a decision with at most this many options
STRAY_CLICK_S = 0.08    # a key's click follows its press within this (stray_tail)


def best_paired(search, probe, dec: Decision, head: list):
    """Replay each allowed option of ``dec`` with the duration taken with it (the next
    decision) measured for that option, and the durations that follow it before its first
    difference measured in turn (a reel's step after a MOVE's time); return (the decisions
    from ``dec`` on, difference, result, decisions) of the option that differs latest (None
    if none could be measured) and the replays taken."""
    best, runs = None, 0
    tol = search.tol
    for option in _ranked(dec.options, dec.weights):
        choices = head + [option]
        d, res, cl = probe(choices, dec.t)
        runs += 1
        while not res.conforms and len(cl) > len(choices) and is_timing(cl[len(choices)]) \
                and cl[len(choices)].t <= d + tol.time_s:
            paired = measure(search, choices, cl[len(choices)])
            runs += 4
            if paired is None:
                break
            got = probe(choices + [paired], dec.t)
            if got[0] < d:
                break
            choices = choices + [paired]
            d, res, cl = got
        if len(choices) > len(head) + 1 and (best is None or d > best[1]):
            best = (choices[len(head):], d, res, cl)
        if res.conforms:
            break
    return best, runs


def stray_timing(search, probe, settled: tuple[list, list], dec: Decision, k: int,
                  now: tuple) -> tuple | None:
    """Measure duration ``dec`` (decision ``k``, the next after the values ``settled[0]``)
    again where a stray key the recording's tower took comes before the output it moves
    (``stray_tail``): measured with that key ignored, the duration dated another press.
    ``now``: its value so far and that replay's (difference, result, decisions).  When the
    measure gets further, settle the duration, the decisions up to the stray key and the
    key taken (appended to ``settled``: values, revealed flags) and return the replay's
    (difference, result, decisions); else None.  It takes 4 replays (``measure``, a probe)."""
    forced, revealed = settled
    taken, (far, _, calls) = now
    tail = stray_tail(search, calls, k, far)
    option = measure(search, forced, dec, tail=tail) if tail else None
    if option is None or option == taken:
        return None
    got = probe(forced + [option] + tail, dec.t)
    if got[0] <= far:
        return None
    forced += [option] + tail
    revealed += [True] + [False] * (len(tail) - 1) + [True]
    return got


def stray_tail(search, calls: list, k: int, diff: float) -> list:
    """Return the values of the decisions after duration ``k`` up to a stray key the replay
    ``calls`` ignored (decision ``stray_key``, cleanroom.engine) but the recording's tower
    took (its click within ``STRAY_CLICK_S`` of the press), that key taken; or [] when there
    is none before ``diff``."""
    for j in range(k + 1, len(calls)):
        d = calls[j]
        if d.t > diff + search.tol.time_s:
            break
        if d.name == "stray_key" and d.value is False and any(
                e["type"] == "tone" and is_key_click(e)
                for e in search.precise(d.t, d.t + STRAY_CLICK_S)):
            return [c.value for c in calls[k + 1:j]] + [True]
    return []


def try_timing(probe, forced: list, calls: list, dec: Decision, option, diff: float,
                tol: Tolerance) -> tuple[bool, tuple | None, int]:
    """Return whether ``option`` of timing decision ``dec`` (the next after ``forced``) gets
    further than its default (``calls``' replay differs at ``diff``), its replay's (difference
    time, result, calls), and the replays that took."""
    if option is None or option == dec.value:
        return False, None, 0
    d, res, cl = probe(forced + [option], dec.t)
    keep, runs = d >= diff, 1
    if not keep and d >= diff - tol.time_s:
        # the same difference a little sooner: a key at a scan's edge may decide it; look one
        # random decision further on both sides
        with_it, n1 = ahead(probe, forced + [option], cl, d, tol)
        without, n2 = ahead(probe, forced + [dec.value], calls, diff, tol)
        runs += n1 + n2
        keep = with_it > without
    return keep, (d, res, cl), runs


def ahead(probe, forced: list, calls: list, diff: float, tol: Tolerance
           ) -> tuple[float, int]:
    """Return how far the best option of the next decision after ``forced`` gets (the time of
    its first difference; ``diff`` when there is none, it comes after the difference, or it
    has more than ``AHEAD_OPTIONS`` options, as a duration does; which key scan sees a key
    has two) and the replays that took."""
    k = len(forced)
    if k >= len(calls) or calls[k].t > diff + tol.time_s or \
            len(calls[k].options) > AHEAD_OPTIONS or _unseen(calls, k, diff):
        return diff, 0          # (unseen: every option differs at ``diff``, cleanroom.watched)
    best, runs, _ = best_of(probe, calls[k], forced, known=(diff, None, calls))
    return max(diff, best[0]), runs


def best_of(probe, dec: Decision, head: list, tail: Sequence = (),
             known: tuple | None = None) -> tuple[tuple, int, list]:
    """Replay each allowed option of ``dec``, likeliest first, between the decisions ``head``
    and ``tail``; return (time of the first difference, option, result, decisions) of the
    one that differs latest (the likelier of equals; the first that conforms ends the
    search), the replays taken and each option's time of its first difference.  A replay
    after the first goes only as far as it takes to tell whether it beats the best so far.
    ``known``: (difference, result or None, decisions) of the replay of ``head`` alone
    (``dec`` took its likeliest option there), which the likeliest option then need not
    replay again."""
    best, runs, scores = None, 0, []
    for option in _ranked(dec.options, dec.weights):
        runs += 1
        if best is None and known is not None and not tail and option == dec.value:
            d, res, cl = known
        else:
            choices = list(head) + [option] + list(tail)
            d, res, cl = probe(choices, dec.t, best[0] if best else math.inf)
            if res is None:         # matches beyond the best so far: find where it differs,
                # going on doubling the span from where that replay stopped
                d, res, cl = probe(choices, dec.t, span=2 * (d + PROBE_MARGIN_S - dec.t))
        scores.append(d)
        if best is None or d > best[0]:
            best = (d, option, res, cl)
        if res is not None and res.conforms:
            break
    return best, runs, scores


def may_pair(dec: Decision, k: int, diff: float, calls: Sequence) -> bool:
    """Tell whether decision ``k`` would be ``_paired`` if all its options differed at
    ``diff`` (``calls``: the decisions of a replay that differs there)."""
    return (len(dec.options) > 1 and diff - dec.t < PAIRED_SPAN_S and len(calls) > k + 1
            and is_timing(calls[k + 1]) and abs(calls[k + 1].t - dec.t) < 1e-6)


def paired(dec: Decision, k: int, scores: list, best: tuple) -> bool:
    """Tell whether decision ``k``'s best options differ from the reference at the same time,
    within ``PAIRED_SPAN_S`` of it, and a timing decision is taken with it (the next, at the
    same time): then the duration may be what differs, and the options are ranked again with
    it measured (module doc)."""
    d, _, res, calls = best
    return scores.count(d) > 1 and not res.conforms and may_pair(dec, k, d, calls)
