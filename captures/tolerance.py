"""How close two towers' events must be to count as the same (``Tolerance``) and where they
first disagree (``Difference``): the types every event comparison shares.

Two comparators use them: ``analysis.compare.compare_events`` (``towerlab diff`` and
``rig check``: events aligned by meaning on a fitted clock ratio, one time tolerance per event
type) and ``cleanroom.conform.compare`` (``towerlab conform``: the clean-room game's items
against a recording, one time window). A ``Tolerance``'s defaults are the conformance values;
``analysis.compare.event_tolerance()`` gives the per-type times of the event comparison.

Example::

    tol = Tolerance(time_s={"lamp": 0.001, "tone": 0.001}, freq_frac=0.01, types=("lamp",))
    tol.time_for("lamp")                         # 0.001
    Difference(1.5, {"t": 1.5, "type": "lamp"}, None, [], kind="only in A").describe("A", "B")
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

__all__ = ["Tolerance", "Difference", "OUTPUT_TYPES"]

# The event types a tower shows (captures.events); inputs such as buttons are not compared.
OUTPUT_TYPES = ("display", "lamp", "motor", "reel", "tone")


@dataclass(frozen=True)
class Tolerance:
    """How far two towers may differ and still agree (seconds, fractions).

    ``time_s``: one time window for every type, or a window per event type;
    ``flash_s``: the window of a flashing display text (conformance);
    ``freq_frac``: tone frequency; ``dur_frac``/``dur_s``: tone duration, relative or at least
    this many seconds (conformance); ``period_frac``: a flashing text's period (conformance);
    ``pulses``: tone pulse counts may differ by this much (a legato seam, event comparison);
    ``types``: the event types compared;
    ``since_input_frac``: the ``time_s`` window (not ``flash_s``) grows by this fraction of
    the time since the reference's last input (a button press) before the item, as a clock
    that runs a little off gathers error between the inputs that set both towers going
    (conformance; e.g. 1/60 s + 1 %: ``Tolerance(time_s=1/60, since_input_frac=0.01)``).
    """
    time_s: float | Mapping[str, float] = 0.05
    flash_s: float = 0.15
    freq_frac: float = 0.03
    dur_frac: float = 0.10
    dur_s: float = 0.005
    period_frac: float = 0.15
    pulses: int = 1
    types: tuple[str, ...] = OUTPUT_TYPES
    since_input_frac: float = 0.0

    def time_for(self, kind: str) -> float:
        """Return the time window (s) for events of type ``kind`` (KeyError if the per-type
        table has none)."""
        if isinstance(self.time_s, Mapping):
            return self.time_s[kind]
        return self.time_s

    def has_time_for(self, kind: str) -> bool:
        """Tell whether there is a time window for events of type ``kind``."""
        return not isinstance(self.time_s, Mapping) or kind in self.time_s

    def describe(self) -> str:
        """Return the time and frequency tolerances of the compared types as one line."""
        ts = ", ".join(f"{k} {self.time_for(k) * 1000:g} ms" for k in self._time_keys()
                       if k in self.types)
        return f"times: {ts}; tone frequency {self.freq_frac * 100:g} %"

    def _time_keys(self):
        return list(self.time_s) if isinstance(self.time_s, Mapping) else list(self.types)


def _text(item: Any) -> str:
    """Return how a report names one side: an item's own description, else an event's fields."""
    if hasattr(item, "describe"):
        return item.describe()
    fields = {k: v for k, v in item.items() if k not in ("t", "type")}
    return f"{item['type']} " + " ".join(f"{k}={v}" for k, v in fields.items())


def _t(item: Any) -> float:
    return item.t if hasattr(item, "t") else item["t"]


@dataclass
class Difference:
    """The first place two towers disagree: its time (on ``a``'s clock), both sides (None for
    nothing there) and ``a``'s neighbours.

    ``kind`` says what differs ("only in A", "only in B", "time", "frequency", "different";
    conformance leaves it empty); ``context_b`` are ``b``'s neighbours; ``nearest`` is, in
    conformance, the game's item most like the missing reference item. ``reference``/``game``
    and ``context_a`` name the same fields as conformance and the event comparison call them.
    """
    t: float
    a: Any
    b: Any
    context: list
    nearest: Any = None
    kind: str = ""
    context_b: list = field(default_factory=list)

    @property
    def reference(self) -> Any:
        """Return side ``a`` (conformance: the recording's item)."""
        return self.a

    @property
    def game(self) -> Any:
        """Return side ``b`` (conformance: the clean-room game's item)."""
        return self.b

    @property
    def context_a(self) -> list:
        """Return ``a``'s neighbours around the difference."""
        return self.context

    def describe(self, name_a: str = "reference", name_b: str = "game") -> str:
        """Return a multi-line report: what differs, both sides, and ``a``'s context."""
        a = f"{_text(self.a)} at {_t(self.a):.3f} s" if self.a is not None else "(nothing)"
        if self.b is not None:
            b = f"{_text(self.b)} at {_t(self.b):.3f} s"
            if self.a is not None and _text(self.b) == _text(self.a):
                b += (f" (the same item {1000 * (_t(self.b) - _t(self.a)):+.0f} ms "
                      f"away: outside the time tolerance)")
        elif self.nearest is not None:
            b = (f"(nothing within tolerance; nearest like it: {_text(self.nearest)} "
                 f"at {_t(self.nearest):.3f} s)")
        else:
            b = "(nothing)"
        width = max(len(name_a), len(name_b)) + 1
        lines = [f"first difference at {self.t:.3f} s",
                 f"  {name_a + ':':<{width}} {a}",
                 f"  {name_b + ':':<{width}} {b}",
                 f"  context ({name_a}):"]
        for it in self.context:
            mark = ">>" if it is self.a else "  "
            lines.append(f"   {mark} {_t(it):9.3f}  {_text(it)}")
        return "\n".join(lines)
