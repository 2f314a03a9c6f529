"""A decision's value that notes when the game looks at it.

The resolver (cleanroom.conform) tries every option of a random decision and keeps the one whose
replay differs from the reference latest.  Many decisions are drawn long before anything shows
them: a bazaar draws every price at once and the player sees only the ones he steps to, the
Dark Tower's brigands and riddle are drawn as the game starts and shown at its end.  Until the
game reads such a value every option gives the same outputs, so every option differs from the
reference at the same time, and the replays that show it are spent for nothing.

``Watched`` wraps the value a replay's chooser hands the game and calls back the first time
the game does anything with it: compares, hashes, formats, counts or indexes with it, does
arithmetic with it, iterates it, reads an attribute of it.  The callback notes the tower's time
then (``ForcedChooser.used``).  Every such operation goes through a special method of the
wrapper, which answers with the value's own result, so the game behaves exactly as with the
plain value.  What does not go through a method is ``is``, ``type()``, ``isinstance()`` and
``id()``: the game's rules test decision values with none of them (tests/cleanroom/
test_watched.py resolves sessions with and without the wrapper and gets the same results,
decision for decision).  Only plain ints, strings and tuples are wrapped (a ``bool`` cannot be
told from its wrapper by ``is``, and floats are durations used at once).

The chooser asks to be called at every look and keeps the later looks too, a second apart at
least (``ForcedChooser.looks``): a value the game reads again long after it was drawn (the
riddle's key order, at each visit to the Dark Tower) is what a difference just after such a
reading most likely turns on (cleanroom.conform ``_retie`` tries those first).

Outputs before the first look are the same for every option, and the comparison's verdict
before a time depends only on the outputs up to 2 s after it (cleanroom.conform
``PROBE_MARGIN_S``, which the search's partial replays rest on too).  So when a decision is
first looked at more than that margin after the replay's first difference, every option of it
differs at that same time: the search takes the likeliest, as the replays would have, without
them (cleanroom.conform ``_search``); and an alternative option cannot change an item before
its first look, which ``cleanroom.items.count_items`` uses the same way.
"""
from __future__ import annotations

import operator
from typing import Any, Callable

__all__ = ["Watched", "WATCHED_TYPES", "plain"]

WATCHED_TYPES = (int, str, tuple)


class Watched:
    """``value``, calling ``on_use()`` once, the first time anything is done with it (or, if
    ``every``, each time)."""

    __slots__ = ("_value", "_on_use", "_every")

    def __init__(self, value: Any, on_use: Callable[[], None], every: bool = False):
        object.__setattr__(self, "_value", value)
        object.__setattr__(self, "_on_use", on_use)
        object.__setattr__(self, "_every", every)

    def _look(self) -> Any:
        on_use = object.__getattribute__(self, "_on_use")
        if on_use is not None:
            if not object.__getattribute__(self, "_every"):
                object.__setattr__(self, "_on_use", None)
            on_use()
        return object.__getattribute__(self, "_value")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._look(), name)

    def __reduce__(self):
        return (_identity, (self._look(),))


def _identity(value: Any) -> Any:
    return value


def plain(value: Any) -> Any:
    """Return ``value`` itself, or the value a ``Watched`` wraps (which counts as a look)."""
    return value._look() if type(value) is Watched else value


def _unary(name: str):
    def method(self):
        return getattr(self._look(), name)()
    method.__name__ = name
    return method


def _binary(op):
    def method(self, other):
        return op(self._look(), plain(other))
    return method


def _reflected(op):
    def method(self, other):
        return op(plain(other), self._look())
    return method


for _name in ("__hash__", "__bool__", "__int__", "__float__", "__index__", "__str__",
              "__repr__", "__len__", "__iter__", "__reversed__", "__neg__", "__pos__",
              "__abs__", "__invert__", "__trunc__", "__floor__", "__ceil__", "__complex__"):
    setattr(Watched, _name, _unary(_name))
Watched.__format__ = lambda self, spec: format(self._look(), spec)
Watched.__round__ = lambda self, *n: round(self._look(), *n)
Watched.__getitem__ = lambda self, key: self._look()[plain(key)]
Watched.__contains__ = lambda self, item: plain(item) in self._look()
for _name, _op in (("eq", operator.eq), ("ne", operator.ne), ("lt", operator.lt),
                   ("le", operator.le), ("gt", operator.gt), ("ge", operator.ge)):
    setattr(Watched, f"__{_name}__", _binary(_op))
for _name, _op in (("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
                   ("truediv", operator.truediv), ("floordiv", operator.floordiv),
                   ("mod", operator.mod), ("divmod", divmod), ("pow", pow),
                   ("lshift", operator.lshift), ("rshift", operator.rshift),
                   ("and", operator.and_), ("or", operator.or_), ("xor", operator.xor)):
    setattr(Watched, f"__{_name}__", _binary(_op))
    setattr(Watched, f"__r{_name}__", _reflected(_op))
