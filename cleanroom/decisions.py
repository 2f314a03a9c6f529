"""The decisions a replay takes: what each was (``Decision``), the options the rules allow,
the chooser that forces a list of values on a replay (``ForcedChooser``) and notes when the
game first looks at each (cleanroom.watched), and how the resolver (cleanroom.conform) ranks
options and tells a decision the game had not yet looked at."""
from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from .choosers import is_timing_name
from .matching import ConformError
from .tower import CleanroomTower
from .watched import WATCHED_TYPES, Watched

__all__ = ["Decision", "allowed", "first_looks", "ForcedChooser", "is_timing", "ranked", "Start",
           "taken_value", "Calls", "unseen", "shown_late", "PROBE_MARGIN_S", "LATE_S"]

# how far past a difference a partial replay runs (cleanroom.conform): a decision looked at
# later than that cannot move what came before it
PROBE_MARGIN_S = 2.0
# a decision whose other options all differ this long after it shows through a later draw
LATE_S = 20.0
# the looks at a value a chooser keeps (``ForcedChooser.looks``) are at least this far apart
LOOK_GAP_S = 1.0


@dataclass
class Decision:
    """One random decision as the game took it: time, name, options, value, revealed."""
    t: float
    name: str
    options: list
    value: Any
    revealed: bool = False
    weights: list | None = None


def allowed(options: Sequence, weights: Sequence[float] | None) -> tuple[list, list | None]:
    """Return the options the rules allow (weight above 0) and their weights.

    ``weights`` None means every option is allowed with the same weight.  A decision whose
    weights are all 0 is a defect of the game, reported as a ConformError.
    """
    if weights is None:
        return list(options), None
    if len(weights) != len(options):
        raise ConformError(f"decision with {len(options)} options but {len(weights)} weights "
                           f"(expected one weight per option)")
    keep = [(o, w) for o, w in zip(options, weights) if w > 0]
    if not keep:
        raise ConformError(f"decision over {list(options)[:6]}: every weight is 0 (expected "
                           f"at least one option the rules allow)")
    return [o for o, _ in keep], [w for _, w in keep]


def first_looks(looks: Sequence[Sequence[float]]) -> list[float | None]:
    """Return when the game first looked at each decision, from when it looked at each
    (``ForcedChooser.looks``; None: not yet)."""
    return [seen[0] if seen else None for seen in looks]


class ForcedChooser:
    """Take decisions from a list, then each remaining decision's likeliest option; log them.

    Only the options the rules allow (``allowed``) are taken or logged: a forced value outside
    them is ignored and the likeliest allowed option is taken instead.
    """

    def __init__(self, forced: Sequence = ()):
        self.forced = list(forced)
        self.calls: list[Decision] = []
        # when the game looked at each decision's value (tower time), the first look and
        # later ones LOOK_GAP_S apart or more: with a ``clock`` (the tower's time), values
        # are handed out ``Watched`` (cleanroom.watched); without one each counts as looked
        # at as it is taken
        self.looks: list[list[float]] = []
        # the decision each look after its taking went to, in order (a saved state's run
        # sends back only the looks that changed: cleanroom.snapshots)
        self.looked: list[int] = []
        self.clock: Callable[[], float] | None = None

    @property
    def used(self) -> list[float | None]:
        """When the game first looked at each decision's value (None: not yet)."""
        return first_looks(self.looks)

    def choose(self, name: str, options: Sequence, weights, t: float):
        """Return the forced value for this decision if the rules allow it, else the likeliest."""
        options, weights = allowed(options, weights)
        value = self.take(self.forced, len(self.calls), options, weights)
        self.calls.append(Decision(t, name, options, value, False, weights))
        return self._hand(value, t)

    def _hand(self, value, t: float):
        """Note the decision just logged and return its value as the game gets it."""
        if self.clock is None or type(value) not in WATCHED_TYPES or is_timing_name(
                self.calls[-1].name):
            self.looks.append([t])
            return value
        seen: list[float] = []
        self.looks.append(seen)
        i, again = len(self.looks) - 1, self.looked

        def looked() -> None:
            now = self.clock()
            if not seen or now >= seen[-1] + LOOK_GAP_S:
                seen.append(now)
                again.append(i)
        return Watched(value, looked, every=True)

    @staticmethod
    def take(forced: Sequence, i: int, options: Sequence, weights):
        """Return the value decision ``i`` takes with ``forced`` among the allowed
        ``options``: the forced one if the rules allow it, else the likeliest."""
        if i < len(forced) and forced[i] in options:
            return forced[i]
        return ranked(options, weights)[0]


def is_timing(dec: Decision) -> bool:
    """Return True for a timing decision: a duration in chip cycles (its name ends in
    ``_cycles``; module doc)."""
    return is_timing_name(dec.name)


def ranked(options: Sequence, weights: Sequence[float] | None) -> list:
    """Return options, likeliest first (stable: equal weights keep their order)."""
    if not weights:
        return list(options)
    order = sorted(range(len(options)), key=lambda i: -weights[i])
    return [options[i] for i in order]


class Start:
    """Make the tower and chooser of a replay (picklable: the replay server makes them)."""

    def __init__(self, clock_ratio: float, watch: bool = True):
        self.clock_ratio, self.watch = clock_ratio, watch

    def __call__(self, forced: Sequence) -> tuple[CleanroomTower, ForcedChooser]:
        chooser = ForcedChooser(forced)
        tower = CleanroomTower(chooser=chooser, clock_ratio=self.clock_ratio)
        if self.watch:
            chooser.clock = lambda: tower.now      # note when the game looks at each value
        return tower, chooser


def taken_value(forced: Sequence, i: int, dec: Decision):
    """Return the value the replay's chooser takes for logged decision ``dec``."""
    return ForcedChooser.take(forced, i, dec.options, dec.weights)


class Calls(list):
    """A replay's decisions, with ``used``: when the game first looked at each one's value
    (None: not by the replay's end; cleanroom.watched), and ``looks``: when it looked at each
    (``ForcedChooser.looks``; where the replay did not keep them, each decision's ``used``)."""

    def __init__(self, calls: Sequence, used: Sequence, looks: Sequence | None = None):
        super().__init__(calls)
        self.used = list(used)
        self.looks = list(looks) if looks is not None else \
            [[u] if u is not None else [] for u in self.used]

    def last_look(self, i: int, before: float) -> float | None:
        """Return the last time the game looked at decision ``i``'s value by ``before``
        (None: not by then)."""
        looks = self.looks[i] if i < len(self.looks) else []
        k = bisect.bisect_right(looks, before)
        return looks[k - 1] if k else None


def unseen(calls: Calls, i: int, before: float) -> bool:
    """Tell whether the game had not looked at decision ``i``'s value (in the replay that
    logged ``calls``) by ``before`` + ``PROBE_MARGIN_S``: then each option of it gives the
    same outputs that far, and the same first difference before ``before``."""
    used = calls.used[i]
    return used is None or used > before + PROBE_MARGIN_S


def shown_late(probe, forced: Sequence, i: int, dec: Decision, diff: float) -> bool:
    """Tell whether decision ``i``'s other options, the values ``forced`` after it as they
    were, all differ from the reference ``LATE_S`` or more after it and before ``diff``: what
    it decides shows only through a later draw (a retreat's loss, at the warriors a
    sanctuary's draw adds to).  ``probe(values, t0, stop)`` gives a replay's first
    difference first (cleanroom.conform ``_probe``)."""
    times = [probe(list(forced[:i]) + [o] + list(forced[i + 1:]), dec.t, diff)[0]
             for o in dec.options if o != forced[i]]
    return bool(times) and dec.t + LATE_S <= min(times) and max(times) < diff
