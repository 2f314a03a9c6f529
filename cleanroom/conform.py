"""Check the clean-room game against a recording, trace for trace.

A reference is a folder with ``script.txt`` (the button session) and ``events.jsonl`` (what the
tower showed, captures.events vocabulary).  ``conform(script, events)`` replays the script on
the clean-room game and compares what both towers showed, meaning by meaning
(cleanroom.matching: what is compared, with which tolerances; its names answer here too).

How random decisions are resolved (``resolve``): the game asks a chooser at each decision
point (bazaar price, haggle, move outcome, brigand count, skirmish, ...; names in
cleanroom.game).  The resolver replays the script with a list of forced choices: decisions
beyond the list take their first option.  Starting from an empty list it takes the first
decision not yet forced, replays once per candidate option (likeliest first), and keeps the
option whose replay differs from the reference latest (or not at all); ties keep the likelier
option.  Only the options the rules allow are tried: those the game offers with a weight above
0 (``allowed``; a price drawn from 4-10 is never resolved to 12, however the game lists its
options), so a wrong rule cannot hide behind the search: a recording outside the rules does not
conform.  It repeats until the replay conforms or every decision is forced.

The search is greedy: each decision keeps the option that gets furthest with the likeliest
options after it.  A later decision can belie that choice (a retreat's loss is read at once but
shows only at the next WARRIOR count; a PLAGUE turns the reel after another time than a LOST).
So when the search stops at a difference that no later decision explains, it tries earlier
decisions again (``_retie``), the one the game looked at last before the difference first (a
riddle's key order is drawn as the game starts and read at each visit to the Dark Tower), each
once, or again where the game has looked at it since: every option with the decisions after it
as they were, or, for one taken with a duration, with that duration and those after it measured
for the option (a decision changed so keeps the ties after it, to be tried again in the game
it now makes).  A decision the game had not looked at by the difference is not tried.  What
gets further is kept and the search goes on from it.  Where that finds nothing, at the first
stop at a difference, every duration before it is measured again in turn (``_remeasure``: one
kept at the game's own value because its outputs came within the tolerance may still set a
later prompt's flash a phase off; a retreat's two durations, each measured with the other at
its own value, may both be off); then the decisions whose options all differed at the same
time are tried with each other likely option and the decisions after it settled again by a
search of their own, on the retries' own budget of replays (``RETIE_SHARE`` times
``max_runs``, for each 400 s of the session: ``_budget``; these take tens of thousands of
replays in a long session, the durations some hundreds, so they come second,
``_resort``).  Where those find nothing: where a key's click comes a key-loop pass off, a recent
duration is moved by what puts the loop's scan on the recording's side of the press, then
dated at the click (cleanroom.measure ``rescan``); and last, at the check asked for only,
the decisions after each one of the four minutes before the difference are settled again,
those the recording did not show first
(``_widen``, on ``WIDE_SHARE`` times ``max_runs``: a retreat's loss kept at 1 while later draws
were settled to suit it), each option first with the decisions after it as they were and the
search's retries free to change them (settling them again may stop at a duration the search
had measured again on its way); then, on a budget of their own, every other option of those
of the eight minutes before shown only through a later draw (a retreat's loss made up for by
a sanctuary's warriors, shown at a gold total the warriors cap four minutes on).  The last
resort's budgets, the retries' settling of the decisions after a tie and the durations
measured again count every replay asked for (``_Search.runs``), those of the searches of
their own among them, their retries that found nothing included.  Counted by what those
searches said of themselves (which left such retries out), the first part took up to ten
times its budget before the second part found the draw (a 1,200 s explore session: 61,254
replays, 12 minutes, on a budget of 6,154); counted as taken, the first part's share is twice
the budget, which the largest first-part find measured took (9,437 replays of a budget of
7,502).  The retries' own budget is charged what the retries that got further took: at each
stop the retries may take what is left of it, and those that find nothing there are not
charged, as the search then ends at that stop unless a last resort gets further.
Unforced decisions take their likeliest option.  Each decision therefore takes the value the
reference displays, as far as the reference shows it; decisions the reference never reveals
keep their first option and are marked unrevealed.

Timing decisions: where the genuine tower takes a time its hidden state decides (a skirmish is
worked out in 4326-6210 cycles, whatever the numbers shown; cleanroom/params.py
``skirmish_think_cycles``), the game asks for a duration in chip cycles, a decision whose name
ends in ``_cycles`` (``is_timing``).  Its options are one instruction apart and the search
does not try them one by one: two replays, with the shortest and the longest, find the first
lamp, motor or tone the duration moves (displays go by 1/60 s frames), and the reference's
time of that output gives the duration directly (cleanroom.measure); the search keeps it unless its
replay differs from the reference sooner than the game's own value.  Where the output is no
straight line of the duration (a key loop's scans go by display ticks, and a key scan's jump
may lie between the line's option and the genuine's), the output is dated across the range
instead, 9 options and then halving towards the nearest (its sweep).  Where it differs only a
little sooner (within the time tolerance: the same difference, e.g. a key at the edge of a key
scan that the next decision, which scan sees it, may settle), both are taken one random
decision further and the one that then gets further is kept (cleanroom.tries ``ahead``).
Such a decision decides no item by itself (the outputs it moves stay within the tolerance
either way); it matters where a later output is quantized: a reel stop on the 27 ms step, a
key taken at a key scan.  Where a decision's best options differ from the reference at the
same time, soon after it, and a timing decision is taken with it (MOVE's outcome and how
long the tower takes to work it out), the timing decision is measured first with the best of
them and the options are ranked again with that duration (cleanroom.tries ``paired``).

What the rules predict and what chance decided (``Result.rule_items``, ``random_items``):
cleanroom.items.

How it stays fast: the search replays the script hundreds of times, and every replay goes on
from a saved game state taken before the decision it changes instead of from power-on
(cleanroom.snapshots: paused forked processes, as the game's generator flows cannot be
copied); and each comparison looks only at what follows a quiet, blank stretch of both
towers that an earlier comparison of the same events vouches for (cleanroom.matching's
``QuietWindow``: no item pairs or changes across such a stretch).  A decision the game has
not looked at by the first difference (a bazaar's prices of items the player never steps to,
the Dark Tower's brigands drawn at the start) is not tried option by option: every option
differs there, and the likeliest is kept as the replays would have kept it; nor is it replayed
for the item counts or the revealed flags where the game never looks at it in time
(cleanroom.watched says how a replay notes the game's first look).  A duration's outputs are
dated once per set of decisions before it, for the search at both checks.  A decision's
likeliest option is not replayed again: the replay that reached the decision took it.  All
of this is exact: ``_resolve(..., fast=False)`` replays from power-on without watching and
compares whole sessions, and gives the same results (the decisions, the first difference,
the item counts; tests/cleanroom/test_resolve_fast.py).

Statistics over many recordings, read from what the genuine tower showed rather than from the
game, are in cleanroom.stats (``towerlab conform --stats``).
"""
from __future__ import annotations

import bisect
import math
from dataclasses import replace
from typing import Mapping, Sequence

from captures.script import Press, Script
from captures.tolerance import Difference, Tolerance

from .decisions import PROBE_MARGIN_S, Decision, ForcedChooser, allowed, is_timing
from .decisions import Calls as _Calls, Start as _Start, ranked as _ranked
from .decisions import shown_late as _late, taken_value as _take, unseen as _unseen
from .measure import (PRECISE, SWEEP_POINTS, SWEEP_STEPS, measure, measure_all, rescan,
                      time_of)
from .items import count_items as _count_items
from .matching import (CRITERION, FRAME_S, LOOSE, ROUNDING_S, STRICT, ConformError, Item,
                       QuietWindow, Result, compare, summarize)
from .reference import load_reference, read_reference_events, read_reference_script
from .snapshots import make_replayer
from .tries import best_of as _best_of, best_paired as _best_paired
from .tries import may_pair as _may_pair, paired as _paired
from .tries import stray_timing as _stray_timing, try_timing as _try_timing

__all__ = ["ConformError", "Tolerance", "Item", "Difference", "Result", "summarize",
           "compare", "conform", "load_reference", "read_reference_script",
           "read_reference_events", "resolve", "witness_of", "check_witness", "Decision",
           "ForcedChooser", "allowed", "MAX_RUNS", "budget_line",
           "CRITERION", "STRICT", "LOOSE", "FRAME_S"]



# ---- random decisions resolved from a reference ---------------------------------------
NESTED_OPTIONS = 3      # _retie settles the decisions after again for this many options
NESTED_RUNS = 800       # and takes at most this many replays for each
WIDE_SPAN_S = 240.0     # _widen, the last resort, goes back this far before a difference
WIDE_SHARE = 2          # and its first part may take this many times its budget in replays
RETIE_SHARE = 2         # _retie may take this many times a search's max_runs in replays
BUDGET_SPAN_S = 400.0   # resolve's max_runs is a budget of replays for each this many seconds
MAX_RUNS = 2000         # and this many by default
STEP_RUNS = 60          # and a search may take this many more for each decision it settles


class _Search:
    """The replays and comparisons of one search at check ``tol``.

    Fast: the replayer goes on from saved game states (cleanroom.snapshots) and each
    comparison looks only at what follows a quiet stretch both towers share with an earlier
    comparison (``QuietWindow``).  Reference (``fast=False``): every replay from power-on and
    every comparison over the whole session, as the search was first written; the fast path
    gives the same results (tests/cleanroom/test_resolve_fast.py)."""

    def __init__(self, script: Script, reference: Sequence[dict], tol: Tolerance, end: float,
                 types, clock_ratio: float, replayer, fast: bool,
                 measured: dict | None = None, retie: int = 2, final: bool = True):
        self.script, self.reference, self.tol = script, reference, tol
        self.end, self.types, self.clock_ratio = end, types, clock_ratio
        self.replayer = replayer
        # the outputs cleanroom.measure dated, by (decisions before, option, until, time): the
        # same at any check, so a search at a stricter check after a looser one (``resolve``)
        # shares them
        self.measured: dict[tuple, list[dict]] = {} if measured is None else measured
        self.retie = retie      # how a stuck search tries earlier decisions again (_search)
        self.final = final      # the check asked for (not a looser one searched first)
        self.window = QuietWindow(reference, tol, types) if fast else None
        self._precise = sorted((e for e in reference if e["type"] in PRECISE), key=time_of)
        self._precise_t = [e["t"] for e in self._precise]
        self.presses = sorted(a.t for a in script.actions if isinstance(a, Press))
        self.runs = 0           # replays asked for: what the last resorts' budgets count

    def precise(self, lo: float, hi: float) -> list[dict]:
        """Return the reference's lamp, motor and tone events from ``lo`` to ``hi`` seconds."""
        return self._precise[bisect.bisect_left(self._precise_t, lo):
                             bisect.bisect_right(self._precise_t, hi)]

    def replay(self, forced: Sequence, until: float, t0: float = 0.0) -> tuple[list, list]:
        """Return (events, decisions) of the script replayed to ``until`` with ``forced``;
        ``t0``: the time of the first decision the caller may have changed."""
        self.runs += 1
        rep = self.replayer.run(forced, until, t0)
        return rep.events, _Calls(rep.calls, rep.used, rep.looks)

    def saved_from(self, forced: Sequence) -> float:
        """Return the time of the earliest saved state the replayer keeps with ``forced``'s
        decisions (inf: none; cleanroom.snapshots)."""
        return self.replayer.saved_from(forced)

    def events(self, forced: Sequence, until: float, t0: float = 0.0) -> list[dict]:
        """Return the events of ``replay(forced, until, t0)`` (the fast path may cut them from
        a longer replay with the same decisions to ``until``: cleanroom.snapshots)."""
        self.runs += 1
        return self.replayer.events(forced, until, t0)

    def compare(self, events: list[dict], h: float) -> Result:
        """Compare ``events`` (a replay to ``h``) with the reference up to ``h``; at the
        session's end with the whole reference.  The fast path's result has the first
        difference and ``conforms`` of the whole comparison but item counts of a part of it
        only (``full`` False)."""
        whole = h >= self.end
        if self.window is not None:
            res = self.window.compare(events, h, whole)
            if res is not None:
                return res
        ref = self.reference if whole else [e for e in self.reference if e["t"] <= h]
        res = compare(ref, events, self.tol, self.end if whole else h, self.types)
        if self.window is not None:
            self.window.learn(events, h, res)
        return res

    def summarize(self, events: list[dict], end: float, after: float) -> list[Item]:
        """Return ``summarize(events, end)``'s items from ``after`` on, and maybe some
        before (the fast path summarizes only from a quiet stretch before ``after``)."""
        if self.window is not None:
            return self.window.summarize(events, end, after)
        return summarize(events, end)


PROBE_SPAN_S = 20.0


def _probe(search: _Search, forced: Sequence, t0: float, stop: float = math.inf,
           span: float = PROBE_SPAN_S):
    """Replay with ``forced`` just far enough to know where it first differs from the
    reference.

    Replays to ``t0`` + ``span`` (20 s) and compares what both showed until then; while
    nothing differs before the last 2 s (items there may have partners after the cut),
    doubles the span (or stretches it just enough to pass ``stop``), until the session's end
    or until the replay is known to match beyond ``stop``.  Returns (time of the
    first difference, result, decisions); the result is None when the replay matched beyond
    ``stop`` (and the time is then only a lower bound), and partial (``result.full`` False)
    when the replay stopped before the end.  The time does not depend on the spans.
    """
    end = search.end
    need = stop - t0 + PROBE_MARGIN_S + 0.01       # a span that settles the stop
    while True:
        h = min(end, t0 + span)
        events, calls = search.replay(forced, h, t0)
        res = search.compare(events, h)
        if h >= end:
            return res.diff_time, res, calls
        if not res.conforms and res.diff_time < h - PROBE_MARGIN_S:
            res.full = False
            return res.diff_time, res, calls
        if h - PROBE_MARGIN_S > stop:
            return h - PROBE_MARGIN_S, None, calls
        span = need if span < need < 2 * span else span * 2


def resolve(script: Script, reference: Sequence[dict], tol: Tolerance | None = None,
            end: float | None = None, max_runs: int | None = None, clock_ratio: float = 1.0,
            types: Sequence[str] | None = None, witness: Sequence | None = None) -> Result:
    """Replay ``script`` with each random decision resolved to what ``reference`` shows.

    ``witness``: the decisions an earlier resolve of the same recording found (``witness_of``,
    e.g. read back from a file by rig.conformance): when one replay with them conforms at
    ``tol``, that is the result (the game produces the recording with those draws, which is
    what conforming means) and no search is run; otherwise the search runs as without it.

    Returns the comparison of the best replay; ``result.decisions`` lists the decisions
    (module doc: how they are resolved).  ``clock_ratio``: the recorded tower's clock over
    MAME's 425 kHz (a real tower's RC oscillator; e.g. from ``towerlab conform``'s fit).
    ``types``: the output types the reference observed (``compare``); ``tol``: default
    ``CRITERION`` (the strict check).  ``max_runs``: the search's replays for each
    ``BUDGET_SPAN_S`` (400 s) of the session (``_budget``; None: ``MAX_RUNS``).

    A check stricter than ``LOOSE`` searches at ``LOOSE`` first and checks the decisions it
    found at ``tol``: searched at one frame, a duration a frame off early in the session ties
    every option of the decisions after it (they all differ there first), so the search keeps
    their likeliest options and a later total may show a wrong draw, where the looser search
    reads each draw off what the reference shows.  Only when those decisions do not conform
    at ``tol`` is the search run again at ``tol``, and the replay that gets further kept.
    """
    if witness is not None:
        checked = check_witness(script, reference, witness, tol, end, clock_ratio, types)
        if checked.conforms:
            return checked
    return _resolve(script, reference, tol, end, MAX_RUNS if max_runs is None else max_runs,
                    clock_ratio, types, fast=True)


def witness_of(result: Result) -> list:
    """Return the decisions of a resolve as plain (value, revealed) pairs: what
    ``resolve(..., witness=)`` and ``check_witness`` take again."""
    return [(d.value, bool(d.revealed)) for d in result.decisions]


def _defaults(script: Script, reference: Sequence[dict], tol: Tolerance | None,
              end: float | None, clock_ratio: float) -> tuple[Tolerance, float]:
    """Check ``clock_ratio``; return the check (default ``CRITERION``) and the end of the
    comparison (default: the later of the reference's last event and the script's end)."""
    if not clock_ratio > 0 or clock_ratio == float("inf"):
        raise ConformError(f"clock ratio {clock_ratio!r} must be a finite number above 0")
    if end is None:
        end = max([e["t"] for e in reference] + [script.end_time()])
    return tol or CRITERION, end


def check_witness(script: Script, reference: Sequence[dict], pairs: Sequence,
                  tol: Tolerance | None = None, end: float | None = None,
                  clock_ratio: float = 1.0, types: Sequence[str] | None = None,
                  count: bool = True) -> Result:
    """Replay ``script`` once with the decisions ``pairs`` ((value, revealed), ``witness_of``)
    and compare it with ``reference`` at ``tol``; return the comparison with the decisions
    (and, if it conforms and ``count``, the item counts, as ``resolve`` gives them).  A value
    the rules do not allow at its decision is not taken (``ForcedChooser``)."""
    tol, end = _defaults(script, reference, tol, end, clock_ratio)
    pairs = list(pairs)
    # counting replays each decision changed alone: from saved states when counting
    replayer = make_replayer(script, _Start(clock_ratio), _take, count)
    try:
        search = _Search(script, reference, tol, end, types, clock_ratio, replayer, count)
        events, calls = search.replay([v for v, _ in pairs], end)
        result = compare(reference, events, tol, end, types)
        calls = [replace(d) for d in calls]
        for i, d in enumerate(calls):
            d.revealed = bool(pairs[i][1]) if i < len(pairs) and pairs[i][0] == d.value \
                else False
        result.decisions = calls
        if result.conforms and count:
            _count_items(result, search)
        return result
    finally:
        replayer.close()


def _resolve(script: Script, reference: Sequence[dict], tol: Tolerance | None = None,
             end: float | None = None, max_runs: int = MAX_RUNS, clock_ratio: float = 1.0,
             types: Sequence[str] | None = None, fast: bool = True,
             watch: bool | None = None, retie: int = 2) -> Result:
    """``resolve``; ``fast=False`` replays from power-on and compares whole sessions (the
    reference the fast path is tested against; module doc).  ``watch`` (default: as
    ``fast``): note when the game looks at each decision (cleanroom.watched), so that a
    decision not looked at by a difference is not tried option by option.  ``retie``: how a
    search that stops at a difference tries earlier decisions again (``_search``)."""
    tol, end = _defaults(script, reference, tol, end, clock_ratio)
    max_runs = _budget(max_runs, end)
    watch = fast if watch is None else watch
    replayer = make_replayer(script, _Start(clock_ratio, watch=watch), _take, fast)
    measured: dict = {}
    try:
        def at(t: Tolerance, final: bool = True) -> _Search:
            return _Search(script, reference, t, end, types, clock_ratio, replayer, fast,
                           measured, retie, final)
        return _resolve_at(at, tol, max_runs)
    finally:
        replayer.close()


def budget_line(max_runs: int | None) -> str | None:
    """Return the line a report gives for a search budget of ``max_runs`` (``towerlab
    conform --search-budget``, ``rig check``); None for the default (None or ``MAX_RUNS``),
    which a report does not mention."""
    if max_runs is None or max_runs == MAX_RUNS:
        return None
    plural = "s" if max_runs > 1 else ""
    after = "may conform with the default" if max_runs < MAX_RUNS else "is searched further"
    return (f"search budget: {max_runs} replay{plural} for each {BUDGET_SPAN_S:g} s of a "
            f"session (default {MAX_RUNS}): a session that does not conform {after}")


def _budget(max_runs: int, end: float) -> int:
    """Return the replays a search of a session of ``end`` seconds may take: ``max_runs``
    for each ``BUDGET_SPAN_S`` of it, at least ``max_runs``: what the retries of a stuck
    search (``_retie``) and the last resorts may spend grows with the session, as the
    decisions do (a session of half an hour has four times those of one of seven minutes).
    Going forward a search also takes ``STEP_RUNS`` more for each decision it settles: with
    one budget for any length it stopped, out of replays, at a draw it had not tried (a count
    of brigands one off 24 minutes in, a riddle's key 17 minutes in)."""
    return max(max_runs, math.ceil(max_runs * end / BUDGET_SPAN_S))


def _resolve_at(at, tol: Tolerance, max_runs: int) -> Result:
    """Resolve at ``tol``, searching at ``LOOSE`` first where ``tol`` is stricter (``resolve``);
    ``at(t)`` gives the replays and comparisons at check ``t``."""
    if not _stricter(tol, LOOSE):
        return _search(at(tol), max_runs)
    strict = at(tol)
    reference, end, types = strict.reference, strict.end, strict.types
    loose = _search(at(LOOSE, final=False), max_runs, count=False)
    events, calls = strict.replay([d.value for d in loose.decisions], end)
    calls = [replace(d) for d in calls]
    checked = compare(reference, events, tol, end, types)
    if not checked.conforms:
        # the looser search leaves a duration it did not need at the game's own value, a
        # little off, and measured others before the decisions before them were settled; a
        # frame is less forgiving: measure every duration again now
        values = measure_all(strict, loose.decisions)
        if values is not None:
            ev2, calls2 = strict.replay(values, end)
            calls2 = [replace(d) for d in calls2]
            again = compare(reference, ev2, tol, end, types)
            if again.diff_time > checked.diff_time:
                for d, taken in zip(calls2, loose.decisions):
                    d.revealed = taken.revealed or (is_timing(d) and d.value != taken.value)
                events, calls, checked = ev2, calls2, again
                loose.decisions = calls2
    if not checked.conforms:
        direct = _search(strict, max_runs)
        if direct.diff_time >= checked.diff_time:
            return direct
        # the looser search's decisions, measured again, got further: go on from them (the
        # decisions taken before their first difference)
        head = [(d.value, taken.revealed) for d, taken in zip(calls, loose.decisions)
                if d.t < checked.diff_time]
        resumed = _search(strict, max_runs, head=[v for v, _ in head],
                          head_revealed=[r for _, r in head])
        if resumed.diff_time > checked.diff_time:
            return resumed
    for d, taken in zip(calls, loose.decisions):
        d.revealed = taken.revealed
    checked.decisions = list(calls)
    _count_items(checked, strict)
    return checked


def _stricter(a: Tolerance, b: Tolerance) -> bool:
    """Tell whether check ``a`` is stricter than ``b`` in its time windows (and not the same)."""
    if isinstance(a.time_s, Mapping) or isinstance(b.time_s, Mapping):
        return False
    return (a.time_s <= b.time_s + ROUNDING_S and a.flash_s <= b.flash_s
            and a.since_input_frac <= b.since_input_frac
            and (a.time_s, a.flash_s, a.since_input_frac) !=
            (b.time_s, b.flash_s, b.since_input_frac))


def _search(search: _Search, max_runs: int, count: bool = True, head: Sequence = (),
            head_revealed: Sequence[bool] = (), retie: int | None = None) -> Result:
    """Resolve the decisions at the search's check (module doc); return the best replay's
    comparison (with its item counts unless not ``count``: nothing reads them).  ``head``:
    the values of decisions already settled (``head_revealed``: which the recording shows),
    the search goes on after them.  ``retie`` (default the search's): when stuck, try
    earlier decisions again (``_retie``): 2 as it says, 1 without settling the decisions
    after one again, 0 not."""
    tol = search.tol
    retie = search.retie if retie is None else retie
    forced: list = list(head)
    revealed: list[bool] = list(head_revealed) + [True] * (len(head) - len(head_revealed))
    runs = 0

    def probe(choices: list, t0: float, stop: float = math.inf, span: float = PROBE_SPAN_S):
        return _probe(search, choices, t0, stop, span)

    diff, result, calls = probe(forced, 0.0)
    ties: dict[int, tuple] = {}     # decision -> how it was kept (_retie)
    retried: dict[int, float] = {}  # ties _retie tried with the decisions after them: by when
    resorted: set[float] = set()    # differences the last resorts were tried at
    retie_budget = RETIE_SHARE * max_runs if retie > 1 else max_runs // 2
    for k, dec in enumerate(calls[:len(head)]):
        if not is_timing(dec) and len(allowed(dec.options, dec.weights)[0]) > 1:
            ties[k] = (dec.t, dec, "pair" if _may_pair(dec, k, diff, calls) else "best")

    def allowance() -> int:
        # a decision settled going forward takes a bounded number of replays (its options, a
        # duration's sweep): an allowance for each keeps a long session's search from
        # stopping, out of replays, at a draw it never tried (``_budget``)
        return max_runs + STEP_RUNS * (len(forced) - len(head))

    while not result.conforms and runs < allowance():
        k = len(forced)
        if k >= len(calls) or calls[k].t > diff + tol.time_s:
            # stuck: a decision taken after the difference cannot explain it (one within the
            # time tolerance can: the output it decides may be dated a little before it is
            # taken); a tie left behind may, now that the difference has moved past it
            got = _retie(search, probe, forced, (ties, retried), diff, retie_budget, calls,
                         nested=False) if retie else None
            if got is None and retie > 1:
                got, own = _resort(search, probe, (forced, revealed, calls), (ties, retried),
                                   diff, diff not in resorted, retie_budget, max_runs)
                resorted.add(diff)
                retie_budget += own
            if got is None:
                break
            i, values, flags, stay, (diff, result, calls), n = got
            retie_budget -= n
            if stay:
                forced[i], revealed[i] = values[0], flags[0]
            else:
                # the decisions after it were settled in another game: settle them again
                # (or were, by a search that went on from it)
                del forced[i:], revealed[i:]
                forced += values
                revealed += flags
            continue
        dec = calls[k]
        if is_timing(dec):
            runs += 3
            option = measure(search, forced, dec)
            keep, got, n = _try_timing(probe, forced, calls, dec, option, diff, tol)
            runs += n
            if not keep and option is not None and option != dec.value:
                # the straight line's option did not get further: date the output across
                # the range instead (cleanroom.measure's sweep)
                option = measure(search, forced, dec, sweep=True)
                keep, got, n = _try_timing(probe, forced, calls, dec, option, diff, tol)
                runs += SWEEP_POINTS + 2 * SWEEP_STEPS + n
            moved = _stray_timing(search, probe, (forced, revealed), dec, k,
                                  (option, got) if keep else (dec.value, (diff, result, calls)))
            if moved is not None:
                runs, (diff, result, calls) = runs + 4, moved
                continue
            if keep:
                forced.append(option)
                revealed.append(True)
                diff, result, calls = got
                continue
            forced.append(dec.value)
            revealed.append(option is not None)
            continue
        if _unseen(calls, k, diff) and not _may_pair(dec, k, diff, calls):
            # the game has not looked at this value by the difference: every option differs
            # there, and the likeliest, the one ``calls`` took, is kept (cleanroom.watched)
            forced.append(calls[k].value)
            revealed.append(False)
            ties[k] = (diff, dec, "tie")
            continue
        best, n, scores = _best_of(probe, dec, forced, known=(diff, result, calls))
        runs += n
        paired = None
        if _paired(dec, k, scores, best):
            runs += 3
            paired = measure(search, forced + [best[1]], best[3][k + 1])
        if paired is not None:
            # the best options differ at the same time soon after the decision: the duration
            # taken with it may be what differs; rank the options again with it measured
            pair, n, _ = _best_of(probe, dec, forced, [paired])
            runs += n
            if pair[0] > best[0]:
                ties[k] = (pair[0], dec, "pair")
                forced += [pair[1], paired]
                revealed += [True, True]
                diff, result, calls = pair[0], pair[2], pair[3]
                continue
        forced.append(best[1])
        revealed.append(len(set(scores)) > 1)
        ties[k] = (best[0], dec, "pair" if _may_pair(dec, k, best[0], best[3]) else
                   "tie" if len(set(scores)) == 1 else "best")
        diff, result, calls = best[0], best[2], best[3]
    if not result.full:
        # the search stopped at a difference found in a partial replay: compare the whole
        events, calls = search.replay(forced, search.end)
        result = compare(search.reference, events, tol, search.end, search.types)
    if result.conforms:
        # Decisions the search did not need: revealed if another option would not conform.
        taken = [d.value for d in calls]
        for i in range(len(forced), len(calls)):
            revealed.append(False)
            if is_timing(calls[i]):
                continue        # within the tolerance either way (the search never needed it)
            if calls.used[i] is None:
                continue        # never looked at: every option conforms (cleanroom.watched)
            for option in _ranked(calls[i].options, calls[i].weights)[:8]:
                if option == taken[i] or runs >= allowance():
                    continue
                runs += 1
                if not probe(taken[:i] + [option] + taken[i + 1:], calls[i].t)[1].conforms:
                    revealed[i] = True
                    break
    # the decisions as this result's own (a replay's log may be shared with saved states)
    calls = [replace(d) for d in calls]
    for i, d in enumerate(calls):
        d.revealed = revealed[i] if i < len(revealed) else False
    result.decisions = calls
    if count:
        _count_items(result, search)
    return result


def _resort(search: "_Search", probe, state: tuple, kept: tuple[dict, dict], diff: float,
            first: bool, budget: int, max_runs: int):
    """Where the retries of single decisions found nothing at ``diff``: at the first stop
    there, every duration measured again (``_remeasure``: some hundreds of replays); then
    each tie's other options with the decisions after it settled again (``_retie``'s nested
    part, up to the search's ``budget``: tens of thousands of replays in a long session,
    spent in vain before the durations where a retreat's two durations were both off);
    then, at the first stop, a key a pass off, and last, at the check asked for only (not a
    looser one before it), on a budget of its own, the decisions of the four minutes before
    (module doc).  ``state``: (forced, revealed, calls).  Return (what ``_retie`` returns or
    None, the replays of it not charged to the retries' budget: ``_widen``'s own)."""
    forced, revealed, calls = state
    ties, retried = kept
    got = _remeasure(search, probe, calls[:len(forced)], revealed, diff) if first else None
    if got is None:
        got = _retie(search, probe, forced, kept, diff, budget, calls, nested=True)
        if got is not None:
            return got, 0
    if got is None and first:
        got = rescan(search, probe, forced, calls, diff)
    own = 0
    if got is None and first and search.final:
        got = _widen(search, probe, forced, revealed, calls, diff, max_runs)
        own = got[-1] if got is not None else 0
    if got is not None:
        _drop_after(ties, retried, got[0] - 1)
    return got, own


def _retie(search: "_Search", probe, forced: list, kept: tuple[dict, dict], diff: float,
           budget: int, calls: "_Calls", nested: bool = True):
    """Try earlier decisions again where the search stopped at ``diff``.

    ``kept``: (index -> (the difference the option kept had, the decision, how it was kept:
    "tie" when every option had that difference, "pair" when a duration is taken with it,
    else "best"); index -> the difference at which it was tried with the decisions after
    it).  The search keeps each decision's option that gets furthest with the likeliest
    options after it, which a later decision can belie: a value the game reads at once may
    show only after a later draw is settled (a retreat's loss shows at the next WARRIOR
    count, after the next MOVE's draw; a loss of 2 with as many brigands as warriors and one
    of 1 with a brigand fewer show the same until the next skirmish), and where every
    option's outputs came at another time than the recording's, the duration measured for
    the one kept may not suit another (a MOVE's LOST and PLAGUE turn the reel from the same
    click, each after its own time).

    The one the game looked at last before the difference first (cleanroom.watched: the
    riddle's key order, drawn as the game starts, is read at each visit to the Dark Tower),
    each once, or again where the game has looked at it since: every option with the
    decisions after it as they were (a tie only once the difference has moved past it), or
    with its own duration measured; then, unless not ``nested``, each tie's likeliest other
    options with the decisions after it settled again by a search of their own; while fewer
    than ``budget`` replays were taken.
    A decision the game had not looked at by the difference (in the replay that logged
    ``calls``) is not tried.  Return (index, the values from it on and their revealed flags,
    whether the decisions after it stay as they were, (difference, result, decisions),
    replays) of the first whose best option gets further than ``diff``, else None."""
    ties, retried = kept
    tol = search.tol
    runs = 0
    # a decision not looked at by the difference: no option of it explains it (yet)
    unseen = {i for i in ties if i < len(calls) and _unseen(calls, i, diff)}
    # when the game last looked at each by what the difference's replay showed
    looked = {i: calls.last_look(i, diff + PROBE_MARGIN_S) for i in set(ties) - unseen}
    looked = {i: ties[i][1].t if t is None else t for i, t in looked.items()}
    fresh = [i for i in looked if i not in retried or looked[i] > retried[i]]
    for i in sorted(fresh, key=lambda i: (looked[i], i), reverse=True):
        if runs >= budget:
            break
        tied, dec, kind = ties[i]
        if kind == "tie" and tied >= diff - tol.time_s:
            continue
        if kind == "pair":
            del ties[i]
            got, n = _best_paired(search, probe, dec, forced[:i])
        else:
            retried[i] = diff + PROBE_MARGIN_S     # what this replay could show
            best, n, _ = _best_of(probe, dec, forced[:i], forced[i + 1:])
            got = ([best[1]], best[0], best[2], best[3])
        runs += n
        if got is not None and (got[1] > diff or got[2].conforms):
            # the decisions after a pair were settled again; those after another option
            # stay as they were, and so do their ties (a bazaar's later prices, unseen until
            # this one showed), to be tried again in the game it now makes
            _drop_after(ties if kind == "pair" else {}, retried, i)
            return i, got[0], [True] * len(got[0]), kind != "pair", got[1:], runs
    # the decisions after one may have been settled to suit its option: settle them again
    # after each other likely option (a retreat's loss of 1, then a lost skirmish where a won
    # one left as many warriors)
    again = [i for i in sorted(retried.keys() - unseen, reverse=True)
             if nested and i in ties and ties[i][2] == "tie"]
    for i in again:
        got, n = _settle_after(search, probe, forced, i, ties.pop(i)[1], diff, budget - runs)
        runs += n
        if got is not None:
            _drop_after(ties, retried, got[0] - 1)
            return got[:-1] + (runs,)
    return None


def _settle_after(search: "_Search", probe, forced: list, i: int, dec: Decision, diff: float,
                  budget: int, further: float = 0.0, keep: bool = False,
                  ranks: slice = slice(NESTED_OPTIONS)):
    """Try decision ``i``'s likeliest other options (those of ``ranks`` among its options,
    likeliest first) with the decisions after it settled again by a search of their own;
    return (what ``_retie`` returns, for the first that gets ``further`` than ``diff``, or
    None; the replays taken).  ``keep``: first with the decisions after it as they were, the
    search's retries free to change them (a retreat's loss shown three minutes on, where
    settling again from it stops at a duration the search had measured again on its way)."""
    start = search.runs
    for option in _ranked(dec.options, dec.weights)[ranks]:
        if option == forced[i]:
            continue
        kept = [forced[:i] + [option] + forced[i + 1:]] if keep else []
        for head in kept + [forced[:i] + [option]]:
            runs = search.runs - start
            if runs >= budget:
                break
            res = _search(search, min(NESTED_RUNS, budget - runs), count=False, head=head,
                          retie=1)
            if res.diff_time > diff + further or res.conforms:
                got = _went_on(probe, forced, i, dec.t, res)
                runs = search.runs - start      # the probe that confirms the find counted
                return got + (runs,), runs
    return None, search.runs - start


def _went_on(probe, forced: list, i: int, t: float, res: Result) -> tuple:
    """Return what ``_retie`` returns, but for its count of replays, for a search of its own
    (``res``) that settled again the decisions after decision ``i`` (taken at ``t``) and got
    further: its decisions taken before its difference, from the first it changed (its own
    retries may have changed one before ``i``: ``forced``, the values before)."""
    settled = [d for d in res.decisions if d.t < res.diff_time or d.t <= t]
    j = next((j for j in range(i) if settled[j].value != forced[j]), i)
    d, r, cl = probe([d.value for d in settled], settled[j].t)
    return j, [d.value for d in settled[j:]], [d.revealed for d in settled[j:]], False, (d, r, cl)


def _widen(search: "_Search", probe, forced: list, revealed: list, calls: "_Calls",
           diff: float, budget: int):
    """The last resort where nothing else got further: settle again the decisions after each
    one taken less than ``WIDE_SPAN_S`` before ``diff``, ties or not, retried or not, those
    the recording did not show first (latest first, then the others): a retreat's loss kept
    at 1 while later skirmishes were settled to suit it shows only at a count a minute on;
    one kept at 1 where a sanctuary's warriors made up for it, at a gold total capped by the
    warriors, almost three minutes on; up to ``WIDE_SHARE`` times ``budget`` replays.
    Where none gets further, on ``budget`` replays of its own (``_late_options``), the other
    options of those of twice that span shown only through a later draw.  Return what
    ``_retie`` returns for the first that gets a frame further, or None."""
    recent = [i for i in range(len(forced) - 1, -1, -1)
              if calls[i].t > diff - 2 * WIDE_SPAN_S and not is_timing(calls[i])
              and len(allowed(calls[i].options, calls[i].weights)[0]) > 1
              and not _unseen(calls, i, diff)]
    near = [i for i in recent if calls[i].t > diff - WIDE_SPAN_S]
    runs = 0
    for i in sorted(near, key=lambda i: revealed[i]):     # stable: latest first in each
        got, n = _settle_after(search, probe, forced, i, calls[i], diff,
                               WIDE_SHARE * budget - runs, further=search.tol.time_s,
                               keep=True)
        runs += n
        if got is not None:
            return got[:-1] + (runs,)
        if runs >= WIDE_SHARE * budget:
            break
    got = _late_options(search, probe, forced, [i for i in recent if revealed[i]], calls,
                        diff, budget, set(near))
    return got[:-1] + (runs + got[-1],) if got is not None else None


def _late_options(search: "_Search", probe, forced: list, shown: list, calls: "_Calls",
                  diff: float, budget: int, tried: set):
    """``_widen``'s second part, on ``budget`` replays of its own: of the decisions ``shown``
    (latest first), those whose other options all differ only ``LATE_S`` or more after them
    (cleanroom.decisions ``shown_late``: a retreat's loss of 6 of 8 where a sanctuary's 7 gave
    the count a loss of 4 with 5 gives, shown by a gold total the warriors cap four minutes
    on), each option after the likeliest ``NESTED_OPTIONS`` for those ``tried`` already, with
    the decisions after it settled again.  Return what ``_retie`` returns for the first that
    gets a frame further (replays: ``_widen``'s second part's), or None."""
    start = search.runs
    for i in shown:
        if search.runs - start >= budget:
            break
        ranks = slice(NESTED_OPTIONS if i in tried else 0, None)
        if all(o == forced[i] for o in _ranked(calls[i].options, calls[i].weights)[ranks]):
            continue            # no option left to try: the screen's replays would be lost
        if not _late(probe, forced, i, calls[i], diff):
            continue
        got, _ = _settle_after(search, probe, forced, i, calls[i], diff,
                               budget - (search.runs - start), search.tol.time_s, True, ranks)
        if got is not None:
            return got[:-1] + (search.runs - start,)
    return None


def _remeasure(search: "_Search", probe, decisions: list, revealed: list, diff: float):
    """Where the retries found nothing: measure every duration before ``diff`` again in turn
    (cleanroom.measure ``measure_all``, with the draws after each as the search settled
    them).  The search keeps a duration's own value when its outputs come within the time
    tolerance; the flash timer's phase, and so the time of a later prompt, follows the
    exact value (a retreat's lamp 7 ms early); and a duration measured before the draw after
    it was settled may be measured at another output (a turn's pause at the MOVE's click
    where the stray key before it clicks).  Return what ``_retie`` returns, the decisions
    after the first changed settled again (by a search of their own when the values measured
    do not get further as they are: the exact duration may bring a decision of its own, a
    reel's step at its edge), or None if it gets no further."""
    start = search.runs
    values = measure_all(search, decisions, settled=len(decisions))
    if values is None:
        return None
    values = values[:len(decisions)]
    moved = [i for i, (a, b) in enumerate(zip(values, decisions)) if a != b.value]
    first = moved[0] if moved else len(decisions)
    flags = [r or a != b.value for a, b, r in zip(values, decisions, revealed)]
    d, res, cl = probe(values, decisions[first].t if moved else diff)
    if d > diff or res.conforms:
        return first, values[first:], flags[first:], False, (d, res, cl), search.runs - start
    if not moved:
        return None
    # the durations as measured, each with the draws after it as they were settled, are
    # kept: the draws after the last of them are settled again
    last = moved[-1]
    again = _search(search, NESTED_RUNS, count=False, head=values[:last + 1],
                    head_revealed=flags[:last + 1], retie=1)
    if not (again.diff_time > diff or again.conforms):
        return None
    got = _went_on(probe, [x.value for x in decisions], first, decisions[last].t, again)
    return got + (search.runs - start,)


def _drop_after(ties: dict, retried: dict, i: int) -> None:
    """Forget the decisions after ``i``: they were taken in another game."""
    for j in [j for j in ties if j > i]:
        del ties[j]
    for j in [j for j in retried if j > i]:
        del retried[j]


def conform(script: Script, reference: Sequence[dict], tol: Tolerance | None = None,
            clock_ratio: float = 1.0) -> Result:
    """Run ``script`` on the game with decisions resolved from ``reference``; compare."""
    return resolve(script, reference, tol, clock_ratio=clock_ratio)
