"""What the rules predict and what chance decided in a conforming replay (``Result.rule_items``,
``random_items``, ``decided_items``), counted for cleanroom.conform's report.

A matched item is decided by a random choice when it follows a decision with two or more allowed
options, before the next button press and the next such decision, and is not shown the same
(kind, value, time within the tolerance) when that decision takes its next likeliest allowed
option instead (one more replay per such decision).  Every other matched item (key clicks,
pictures, totals, cues, the timing of all of them) is predicted by the rules from the script
and the earlier decisions.
"""
from __future__ import annotations

import bisect

from .decisions import ranked as _ranked, unseen as _unseen
from .matching import Result, match_window, same_item

__all__ = ["count_items"]


def count_items(result: Result, search) -> None:
    """Set ``result.rule_items``, ``random_items`` and ``decided_items`` for the resolved
    ``result`` (module doc: one replay per decision); ``search``: the resolver's replays and
    comparisons at its check (cleanroom.conform ``_Search``)."""
    tol, end = search.tol, search.end
    presses = search.presses
    taken = [d.value for d in result.decisions]
    limit = result.diff_time
    decided: set[int] = set()
    matched = result.matched_items          # in time order
    matched_t = [g.t for g in matched]
    seen = search.replay(taken, end)[1]     # kept from the search, most often
    # the decisions from the earliest saved state the search left first, then the earlier
    # ones: those states serve the later decisions before they give way to the states the
    # earlier ones need (the counts do not depend on the order: each replay stands alone)
    start = search.saved_from(taken)
    order = [i for i, d in enumerate(result.decisions) if d.t >= start] + \
        [i for i, d in enumerate(result.decisions) if d.t < start]
    for i in order:
        d = result.decisions[i]
        if len(d.options) < 2 or d.t > limit:
            continue
        later = [e.t for e in result.decisions[i + 1:] if len(e.options) > 1 and e.t > d.t + 1e-9]
        until = min([end, next((t for t in presses if t > d.t + 1e-9), end)] + later[:1])
        if _unseen(seen, i, until):
            continue            # another option shows the same until then (cleanroom.watched)
        inside = range(bisect.bisect_left(matched_t, d.t - 1e-9),
                       bisect.bisect_left(matched_t, until))
        if not inside:
            continue
        other = next(o for o in _ranked(d.options, d.weights) if o != d.value)
        ev = search.events(taken[:i] + [other] + taken[i + 1:], until, d.t)
        alt = search.summarize([e for e in ev if e["t"] <= until + 1e-6], until,
                               d.t - tol.flash_s)
        alt_t = [a.t for a in alt]
        for k in inside:
            g = matched[k]
            near = alt[bisect.bisect_left(alt_t, g.t - tol.flash_s - 1e-9):
                       bisect.bisect_right(alt_t, g.t + tol.flash_s + 1e-9)]
            if not any(same_item(g, a, tol) and abs(a.t - g.t) <= match_window(g, a, tol)
                       for a in near if abs(a.t - g.t) <= tol.flash_s):
                decided.add(k)
    result.decided_items = [matched[k] for k in sorted(decided)]
    result.random_items = len(decided)
    result.rule_items = len(matched) - len(decided)
