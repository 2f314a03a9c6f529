"""Resolve the game's random decisions: a seeded generator, a script of outcomes, or a resolver.

Every random decision of the game (cleanroom.game lists their names) goes through
``Stage.choose(name, options, weights)`` (cleanroom.stage), which asks a pluggable chooser: a
seeded ``RandomChooser`` for play, a ``ScriptedChooser`` for a rulebook example, or the
resolver in cleanroom.conform that picks what a reference recording shows.

A name ending in ``_cycles`` is a timing decision (``is_timing_name``): a duration, not an
outcome.  The RandomChooser draws those from a second generator so that adding one never
shifts the outcomes a seed plays.
"""
from __future__ import annotations

import random
from typing import Any, Protocol, Sequence

__all__ = ["Chooser", "RandomChooser", "ScriptedChooser", "is_timing_name"]


class Chooser(Protocol):
    """Resolve one random decision of the game."""

    def choose(self, name: str, options: Sequence, weights: Sequence[float] | None,
               t: float) -> Any:
        """Return one of ``options`` for decision ``name`` taken at tower time ``t``."""


def is_timing_name(name: str) -> bool:
    """Return True if decision ``name`` is a timing decision (a duration in chip cycles)."""
    return name.endswith("_cycles")


class RandomChooser:
    """Choose with a seeded pseudo-random generator, using the parameter table's odds.

    Outcomes and timing decisions come from two generators seeded alike, so a seed plays
    the same game whatever durations the game asks for."""

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)
        self.timing = random.Random(None if seed is None else f"timing {seed}")

    def choose(self, name: str, options: Sequence, weights: Sequence[float] | None,
               t: float) -> Any:
        """Return a weighted random choice (uniform when ``weights`` is None)."""
        rng = self.timing if is_timing_name(name) else self.rng
        return rng.choices(list(options), weights=weights)[0]


class ScriptedChooser:
    """Take each named decision from a queue of values (e.g. a rulebook example's outcomes).

    ``ScriptedChooser({"move": ["dragon"], "skirmish": [True, True]})``: decisions whose queue
    is empty fall back to ``fallback`` (default a RandomChooser with seed 0).  A queued value
    that is not among the options raises ValueError naming the decision.
    """

    def __init__(self, outcomes: dict[str, Sequence], fallback: Chooser | None = None):
        self.queues = {name: list(values) for name, values in outcomes.items()}
        self.fallback = fallback or RandomChooser(0)

    def choose(self, name: str, options: Sequence, weights: Sequence[float] | None,
               t: float) -> Any:
        """Return the next queued value for ``name``, or ask the fallback."""
        queue = self.queues.get(name)
        if queue:
            value = queue.pop(0)
            if value not in options:
                raise ValueError(f"decision {name!r} at {t:.3f} s: {value!r} is not one of "
                                 f"the options {list(options)[:10]}")
            return value
        return self.fallback.choose(name, options, weights, t)
