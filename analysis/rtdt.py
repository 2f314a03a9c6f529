"""Compare two Return to Dark Tower sessions by meaning: the same events in the same order,
each within a stated time tolerance.

Tolerances (``RtdtTolerance``, all overridable):

- every event: its arrival time within ``event_s`` (default 0.25 s: radio latency plus the
  tower's own reply time, which the client's pacing adds up);
- a ``rotation`` event (the tower's report of how long a rotation took): its arrival time and
  its ``ms`` each within ``max(rotation_s, rotation_rel * duration)`` (default 0.5 s or 20 %),
  since no source measures rotation times and real drums vary with the cells;
- ``battery`` events are not compared by default (cells sag differently on every run).

The first difference names the event index, both times and both sides.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["RtdtTolerance", "RtdtDifference", "RtdtComparison", "compare_rtdt_events"]


@dataclass(frozen=True)
class RtdtTolerance:
    """How far two sessions may differ and still be equivalent (seconds, fraction)."""
    event_s: float = 0.25
    rotation_s: float = 0.5
    rotation_rel: float = 0.2
    ignore: tuple = ("battery",)

    def rotation_limit(self, ms: int) -> float:
        """Return the allowed difference (s) for a rotation of ``ms`` milliseconds."""
        return max(self.rotation_s, self.rotation_rel * ms / 1000.0)

    def describe(self) -> str:
        """Return the tolerance in one phrase."""
        ign = f"; {', '.join(self.ignore)} not compared" if self.ignore else ""
        return (f"times within +-{self.event_s:g} s, rotations within "
                f"+-max({self.rotation_s:g} s, {self.rotation_rel * 100:g} %){ign}")


@dataclass(frozen=True)
class RtdtDifference:
    """The first place two sessions part: index in the compared events, both sides, why."""
    index: int
    a: dict | None
    b: dict | None
    why: str


@dataclass
class RtdtComparison:
    """The outcome of ``compare_rtdt_events``."""
    equivalent: bool
    compared: int
    tolerance: RtdtTolerance
    difference: RtdtDifference | None = None

    def describe(self, a_name: str = "recording", b_name: str = "replay") -> str:
        """Return 'equivalent ...' or the first difference, both sides shown."""
        if self.equivalent:
            return f"equivalent: {self.compared} events ({self.tolerance.describe()})"
        d = self.difference
        return (f"first difference at event {d.index + 1}: {d.why}\n"
                f"  {a_name}: {_show(d.a)}\n  {b_name}: {_show(d.b)}")


def _show(ev: dict | None) -> str:
    if ev is None:
        return "(nothing: the session had ended)"
    fields = " ".join(f"{k}={v}" for k, v in ev.items() if k not in ("t", "type"))
    return f"t={ev['t']:.3f} s {ev['type']} {fields}"


_NOT_MEANING = ("t", "reason", "data", "name", "percent", "low", "mv")


def compare_rtdt_events(a: list[dict], b: list[dict],
                        tolerance: RtdtTolerance | None = None) -> RtdtComparison:
    """Compare two event lists (captures.events dicts) in order, within ``tolerance``."""
    tol = tolerance or RtdtTolerance()
    xs = [e for e in a if e["type"] not in tol.ignore]
    ys = [e for e in b if e["type"] not in tol.ignore]
    for i in range(max(len(xs), len(ys))):
        x = xs[i] if i < len(xs) else None
        y = ys[i] if i < len(ys) else None
        if x is None or y is None:
            why = "the replay has an extra event" if x is None else "the replay ends early"
            return RtdtComparison(False, i, tol, RtdtDifference(i, x, y, why))
        if x["type"] != y["type"]:
            return RtdtComparison(False, i, tol, RtdtDifference(
                i, x, y, f"{x['type']} event against {y['type']}"))
        limit = tol.event_s
        if x["type"] == "rotation":
            limit = tol.rotation_limit(max(x["ms"], y["ms"]))
            if abs(x["ms"] - y["ms"]) / 1000.0 > limit + 1e-9:
                return RtdtComparison(False, i, tol, RtdtDifference(
                    i, x, y, f"rotation took {x['ms']} ms against {y['ms']} ms (tolerance "
                             f"+-{limit:g} s)"))
        keys = sorted((set(x) | set(y)) - set(_NOT_MEANING) - {"ms"})
        for k in keys:
            if x.get(k) != y.get(k):
                return RtdtComparison(False, i, tol, RtdtDifference(
                    i, x, y, f"{x['type']} {k} {x.get(k)!r} against {y.get(k)!r}"))
        if abs(x["t"] - y["t"]) > limit + 1e-9:
            return RtdtComparison(False, i, tol, RtdtDifference(
                i, x, y, f"{x['type']} at t={x['t']:.3f} s against t={y['t']:.3f} s "
                         f"({y['t'] - x['t']:+.3f} s; tolerance +-{limit:g} s)"))
    return RtdtComparison(True, len(xs), tol)
