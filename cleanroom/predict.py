"""Play a recording's script with the game's draws made by a draw model instead of resolved
from the recording, and score the model (``towerlab conform --no-resolve``).

The resolver (cleanroom.conform) shows that the game *could* have produced a recording: it
gives each random draw the value the recording shows.  The genuine tower is a deterministic
machine, so its draws follow from its state at each draw, and that state from the press
times alone; a *draw model* is a rule for that (docs/draws.md says what is known of it).
Here the script is replayed once, each draw made by the model (``ModelChooser``), and the
replay compared with the recording at the same check as ``resolve``'s; the model is then
scored against the resolver's draws for the same recording (``score``): of the draws the
resolver reads off the recording (every revealed decision that is not a duration), how many
the model made the same, in the same place, before the model's replay first differs from
the recording.  A draw after that difference counts as not predicted: the model does not
re-synchronise from the recording's outputs.

Re-synchronised (``predict_resynced``, ``towerlab conform --no-resolve --resync``): the game
plays the resolver's draws, so that it follows the recording, and at each draw the model is
asked what it would draw there, with the game as the recording has it so far (the draws
before it read off the recording's outputs).  Every draw is then scored, the first
difference no longer ending the count: how well a model predicts each draw from the presses
and the recording up to it, the measure for a model that knows part of the state (one kind
of draw, a game's first draw, docs/draws.md).

Durations the hidden state decides (the ``*_cycles`` decisions) are drawn by the model too
but not counted: they are timing, not outcomes.

Models (``MODELS``): ``likeliest``, each draw its likeliest option, the floor any model of
the tower's state has to beat; ``count``, a level-4 game's first MOVE read off the count
(cleanroom.count, docs/draws.md section 12), every other draw as ``likeliest``: the one
part of the state known so far.  A model is a
``DrawModel``: ``draw(name, options, weights, t, tower)``, where ``tower`` is the clean-room
tower being played, whose tick clock (cleanroom/ticks.py) a model of the genuine's key-loop
state reads.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from captures.script import Script, power_ons
from captures.tower import run_script

from .conform import _defaults
from .count import first_move_passes, move_from_count, passes_since_tower_test
from .decisions import Decision, ForcedChooser, allowed, is_timing, ranked
from .matching import ConformError, Result, compare
from .tower import CleanroomTower

__all__ = ["DrawModel", "Likeliest", "Count", "MODELS", "ModelChooser", "ResyncChooser",
           "Prediction", "model_named", "play", "score", "predict", "predict_resynced", "by_kind",
           "mode_line", "batch_line", "RESYNC_NOTE", "MoveAt", "level4_moves"]


class DrawModel:
    """A rule for the game's draws (module doc).  ``name``: how ``--draw-model`` names it;
    ``description``: what it does, in a few words."""

    name = ""
    description = ""

    def draw(self, name: str, options: Sequence, weights: Sequence[float] | None, t: float,
             tower: CleanroomTower) -> Any:
        """Return the value of draw ``name`` at tower time ``t``, one of ``options`` (those
        the rules allow; ``weights`` their odds, None for even odds)."""
        raise NotImplementedError


class Likeliest(DrawModel):
    """Each draw its likeliest option (ties: the first listed), as the resolver's replays
    take every draw they do not force."""

    name = "likeliest"
    description = "each draw its likeliest option, not from the press times"

    def draw(self, name, options, weights, t, tower):
        return ranked(options, weights)[0]


class Count(Likeliest):
    """A level-4 game's first draw, when it is a MOVE, read off the count the MOVE sweeps
    show (cleanroom.count: ``COUNT_START`` moved on ``COUNT_STEP`` a key-loop pass since the
    tower test, read through ``MOVE_TABLE``); every other draw its likeliest option, as
    ``likeliest`` (what a draw does to the count is not known)."""

    name = "count"
    description = ("a level-4 game's first MOVE from the passes since the tower test; "
                   "every other draw its likeliest option")

    def draw(self, name, options, weights, t, tower):
        passes = first_move_passes(tower, name, t)
        guess = None if passes is None else move_from_count(passes)
        return guess if guess in options else super().draw(name, options, weights, t, tower)


MODELS: dict[str, type[DrawModel]] = {m.name: m for m in (Likeliest, Count)}


def model_named(name: str) -> DrawModel:
    """Return a new model by its name; ConformError naming the known ones otherwise."""
    try:
        return MODELS[name]()
    except KeyError:
        raise ConformError(f"draw model {name!r}: expected one of "
                           f"{', '.join(sorted(MODELS))}") from None


class ModelChooser(ForcedChooser):
    """A chooser that logs its decisions as the resolver's does and takes each value from a
    draw model; ``tower`` is set once the tower it draws for is made."""

    def __init__(self, model: DrawModel):
        super().__init__(())
        self.model = model
        self.tower: CleanroomTower | None = None

    def choose(self, name: str, options: Sequence, weights, t: float):
        options, weights = allowed(options, weights)
        value = _ask(self.model, name, options, weights, t, self.tower)
        self.calls.append(Decision(t, name, list(options), value, False, weights))
        return self._hand(value, t)


def _ask(model: DrawModel, name: str, options: list, weights, t: float, tower) -> Any:
    """Return ``model``'s value for a draw among the ``options`` the rules allow;
    ConformError naming the model, the draw and the options for one outside them."""
    value = model.draw(name, options, weights, t, tower)
    if value not in options:
        raise ConformError(f"draw model {model.name!r}: {value!r} for {name} at {t:.3f} s is "
                           f"not one of the options the rules allow "
                           f"({', '.join(map(repr, options))})")
    return value


class ResyncChooser(ForcedChooser):
    """A chooser that takes the resolver's draws (``forced``) and, at each, logs in
    ``guesses`` what ``model`` would have drawn there (``tower``: set once it is made)."""

    def __init__(self, forced, model: DrawModel):
        super().__init__(forced)
        self.model = model
        self.tower: CleanroomTower | None = None
        self.guesses: list = []

    def choose(self, name: str, options: Sequence, weights, t: float):
        self.guesses.append(_ask(self.model, name, *allowed(options, weights), t, self.tower))
        return super().choose(name, options, weights, t)


def play(script: Script, model: DrawModel, until: float, clock_ratio: float = 1.0
         ) -> tuple[list[dict], list[Decision]]:
    """Replay ``script`` to ``until`` with every draw made by ``model``; return (events,
    decisions)."""
    chooser = ModelChooser(model)
    return _run(script, chooser, until, clock_ratio), chooser.calls


@dataclass(frozen=True)
class MoveAt:
    """A MOVE of a level-4 game as the ``count`` model plays a script: its ``game`` (the
    script's power-on it follows, from 0 for the one at 0 s), the tower time ``t`` of the
    key that took it, the
    key-loop ``passes`` since the tower test's key, and the count's outcome when it is the
    game's first draw (``predicted``; None for a later MOVE: the model says nothing of it)."""
    game: int
    t: float
    passes: int
    predicted: str | None


class _MoveLog(Count):
    """The ``count`` model, noting each level-4 MOVE it draws (``MoveAt``)."""

    def __init__(self, ons: list[float]):
        self.moves: list[MoveAt] = []
        self._ons = ons                     # each game's power-on (captures.script.power_ons)

    def draw(self, name, options, weights, t, tower):
        value = super().draw(name, options, weights, t, tower)
        takes = tower.game.engine.takes
        if name == "move" and tower.game.level == 4 and takes:
            first = first_move_passes(tower, name, t) is not None
            self.moves.append(MoveAt(bisect.bisect_right(self._ons, t) - 1, t,
                                     passes_since_tower_test(takes, t), value if first else None))
        return value


def level4_moves(script: Script) -> list[MoveAt]:
    """Return every MOVE of a level-4 game that ``script`` plays, as the ``count`` model
    plays it (the passes are the clean-room game's, which keeps the genuine's loops)."""
    model = _MoveLog(power_ons(script))
    play(script, model, script.end_time())
    return model.moves


def _run(script: Script, chooser, until: float, clock_ratio: float) -> list[dict]:
    """Replay ``script`` to ``until`` on a clean-room tower that draws through ``chooser``
    (told the tower, which a model reads); return the events."""
    tower = CleanroomTower(chooser=chooser, clock_ratio=clock_ratio)
    chooser.tower = tower
    try:
        return run_script(tower, script, until=until)
    finally:
        tower.close()


def score(calls: Sequence[Decision], truth: Sequence[Decision], before: float,
          truth_before: float) -> dict[str, list[int]]:
    """Return {kind: [predicted, drawn]}: ``drawn`` counts the resolver's draws (``truth``:
    revealed decisions that are not durations, before ``truth_before``, where the resolver's
    own replay first differs, if it does); ``predicted`` those the model's replay
    (``calls``) took in the same place (the same index, name and time) with the same value,
    before ``before`` (its first difference from the recording)."""
    kinds: dict[str, list[int]] = {}
    for i, d in enumerate(truth):
        if is_timing(d) or not d.revealed or d.t >= truth_before:
            continue
        counts = kinds.setdefault(d.name, [0, 0])
        counts[1] += 1
        if i < len(calls):
            m = calls[i]
            if m.name == d.name and abs(m.t - d.t) < 1e-6 and m.value == d.value \
                    and m.t < before:
                counts[0] += 1
    return kinds


def by_kind(kinds: dict) -> str:
    """Return ``{kind: [predicted, drawn]}`` as "move K of N, ...", the most drawn first."""
    return ", ".join(f"{name} {k} of {n}" for name, (k, n) in
                     sorted(kinds.items(), key=lambda kv: (-kv[1][1], kv[0])))


def batch_line(scores: Iterable[dict | None]) -> str:
    """Return a batch's ``draws predicted: K of N (share): by kind`` from each session's
    ``{kind: [predicted, drawn]}`` (None for a session without one)."""
    kinds: dict[str, list[int]] = {}
    for one in scores:
        for name, (k, n) in (one or {}).items():
            counts = kinds.setdefault(name, [0, 0])
            counts[0] += k
            counts[1] += n
    k = sum(v[0] for v in kinds.values())
    n = sum(v[1] for v in kinds.values())
    share = f" ({100 * k / n:.1f} %)" if n else ""
    parts = by_kind(kinds)
    return f"draws predicted: {k} of {n}{share}" + (f": {parts}" if parts else "")


# what a re-synchronised count says it counts (``Prediction.line``, the batch's total)
RESYNC_NOTE = "re-synchronised: each draw predicted with the recording's draws before it"


def mode_line(model: DrawModel, resync: bool = False) -> str:
    """Return the line that says a report's draws were made by ``model`` (``resync``: only
    predicted by it, the game playing the resolver's: ``predict_resynced``)."""
    if resync:
        return (f"mode: each draw predicted by the draw model {model.name!r} "
                f"({model.description}) with the recording's draws before it; the game "
                f"plays the resolver's draws (re-synchronised at every draw)")
    return (f"mode: draws made by the draw model {model.name!r} ({model.description}), "
            f"not resolved from the recording")


@dataclass
class Prediction:
    """A model's replay of a recording (``result``: its comparison, ``calls``: its draws)
    and its score against the resolver's (``truth``, ``kinds``: {kind: [predicted,
    drawn]})."""
    model: DrawModel
    result: Result
    calls: list
    truth: Result
    kinds: dict = field(default_factory=dict)
    resynced: bool = False

    @property
    def predicted(self) -> int:
        return sum(k for k, _ in self.kinds.values())

    @property
    def drawn(self) -> int:
        return sum(n for _, n in self.kinds.values())

    def line(self) -> str:
        """Return the report's last line: ``draws predicted: K of N`` and what it counts."""
        parts = by_kind(self.kinds)
        text = f"draws predicted: {self.predicted} of {self.drawn}"
        if parts:
            text += f" ({parts})"
        if self.resynced:
            text += f"; {RESYNC_NOTE}"
        if not self.result.conforms:
            text += f"; none counted after the first difference at {self.result.diff_time:.3f} s"
        if not self.truth.conforms:
            text += (f"; the resolver's own replay differs at {self.truth.diff_time:.3f} s: "
                     f"its draws after that are not counted")
        return text


def predict(script: Script, reference: Sequence[dict], model: DrawModel, truth: Result,
            tol=None, end: float | None = None, clock_ratio: float = 1.0,
            types: Sequence[str] | None = None, resync: bool = False) -> Prediction:
    """Replay ``script`` with ``model``'s draws, compare it with ``reference`` (as
    ``resolve`` does: ``tol`` default the strict check, ``end`` the recording's), and score
    it against ``truth``, the resolver's result for the same recording (``resync``: the
    model re-synchronised at every draw, ``predict_resynced``)."""
    if resync:
        return predict_resynced(script, reference, model, truth, tol, end, clock_ratio, types)
    tol, end = _defaults(script, reference, tol, end, clock_ratio)
    events, calls = play(script, model, end, clock_ratio)
    result = compare(reference, events, tol, end, types)
    result.decisions = list(calls)
    before = result.diff_time
    truth_before = truth.diff_time
    return Prediction(model, result, list(calls), truth,
                      score(calls, truth.decisions, before, truth_before))


def predict_resynced(script: Script, reference: Sequence[dict], model: DrawModel,
                     truth: Result, tol=None, end: float | None = None,
                     clock_ratio: float = 1.0, types: Sequence[str] | None = None
                     ) -> Prediction:
    """Replay ``script`` with ``truth``'s draws (the resolver's for the same recording),
    asking ``model`` at each draw what it would draw there (module doc: re-synchronised);
    compare the replay with ``reference`` as ``predict`` does and score the model's guesses
    against ``truth``'s draws, every one up to the replay's first difference (none where
    ``truth`` conforms)."""
    tol, end = _defaults(script, reference, tol, end, clock_ratio)
    chooser = ResyncChooser([d.value for d in truth.decisions], model)
    events = _run(script, chooser, end, clock_ratio)
    result = compare(reference, events, tol, end, types)
    result.decisions = list(chooser.calls)
    guesses = [Decision(d.t, d.name, d.options, g, False, d.weights)
               for d, g in zip(chooser.calls, chooser.guesses)]
    return Prediction(model, result, guesses, truth,
                      score(guesses, truth.decisions, result.diff_time, truth.diff_time),
                      resynced=True)
