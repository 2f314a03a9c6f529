"""Other odds for the clean-room game's draws while a session plays (``towerlab explore
--target cleanroom --odds NAME=WEIGHTS``, docs/explore.md): a game drawing as a tower whose
unrecorded odds differ might, to measure the resolver, which keeps the parameters' own
(cleanroom.params)."""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace
from typing import Any, Iterator, Mapping

from .params import PARAMS, Param

__all__ = ["read_odds", "odds_overridden"]


def _is_odds(p: Param) -> bool:
    """Tell whether parameter ``p`` is a set of odds (a draw's weights, one per option)."""
    return ("odds" in p.unit or p.unit == "probability") and isinstance(p.value, (dict, tuple))


def read_odds(text: str) -> tuple[str, Any]:
    """Read ``NAME=W1,W2`` (a two-way or n-way draw's weights, in the parameter's order) or
    ``NAME=K:W,K:W`` (weights by option) into (name, value); ValueError, one line naming the
    text and what was expected, for anything else (towerlab explore ``--odds``)."""
    name, sep, body = text.partition("=")
    name = name.strip()
    odds = sorted(n for n, p in PARAMS.items() if _is_odds(p))
    if not sep or name not in odds:
        raise ValueError(f"--odds {text!r}: expected NAME=WEIGHTS with NAME one of "
                         f"{', '.join(odds)}")
    old = PARAMS[name].value
    key = type(next(iter(old))) if isinstance(old, dict) else None
    try:
        if isinstance(old, dict):
            value: Any = {key(k.strip()): float(w) for k, w in
                          (item.split(":") for item in body.split(","))}
        else:
            value = tuple(float(w) for w in body.split(","))
    except ValueError:
        value = None
    shape = ("OPTION:WEIGHT,... e.g. " + ",".join(f"{k}:{w}" for k, w in old.items())
             if isinstance(old, dict) else
             f"{len(old)} weights, e.g. " + ",".join(str(w) for w in old))
    if value is None or not value or (not isinstance(old, dict) and len(value) != len(old)) \
            or (isinstance(old, dict) and key is str and not set(value) <= set(old)):
        raise ValueError(f"--odds {text!r}: expected {shape}")
    weights = list(value.values()) if isinstance(value, dict) else list(value)
    if any(not 0 <= w < float("inf") for w in weights) or not any(weights):
        raise ValueError(f"--odds {text!r}: expected finite weights of 0 or more, not all 0")
    return name, value


@contextmanager
def odds_overridden(odds: Mapping[str, Any] | None) -> Iterator[None]:
    """Play with ``odds`` (name -> value, as ``read_odds`` gives) in place of the parameters'
    own until the block ends: a clean-room game drawing as a tower whose unrecorded odds
    differ might (towerlab explore ``--odds``), to see how the resolver, which keeps the
    parameters' own, fares with it."""
    saved = dict(PARAMS)
    try:
        for name, value in (odds or {}).items():
            PARAMS[name] = replace(PARAMS[name], value=value)
        yield
    finally:
        PARAMS.clear()
        PARAMS.update(saved)
