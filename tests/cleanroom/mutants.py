"""Make mutants of genuine recordings: one mistake each, for testing that conformance is sharp.

A mutant is a genuine reference (script + events) with one mistake put in: an output moved in
time, a number changed by one, a tone's pitch off, an event deleted, two outputs swapped, a key
press moved.  ``towerlab conform``'s strict check (cleanroom.conform.STRICT) must reject every
mutant at or near its mistake; the unmutated reference must conform.

Which items are mutated: those the game's rules predict (``Result.decided_items`` excluded:
an item a random draw decided may be explained by another draw, e.g. a bazaar price of 07
instead of 06, which only a draw model could reject).  Times a display or the reel reports
lie on 1/60 s frames and are moved by two frames; lamps, motor and tones by 20 ms.

``cut_at_prompt`` cuts a recording (events and script together) where the tower flashes a
prompt and waits for a key, so a long session gives short references.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Callable

from captures.script import Press, Script
from cleanroom.conform import FRAME_S, Item, summarize

__all__ = ["Mutant", "OPERATORS", "mutants", "cut_at_prompt", "rule_items"]

NEAR_S = 1.0          # "near a press": within this of the last press before the item
FAR_S = 5.0           # "far from a press": at least this after it


@dataclass
class Mutant:
    """One mistake: what it is, when it is (s), and the mutated reference."""
    operator: str
    what: str
    t: float
    script: Script
    events: list


def cut_at_prompt(script: Script, events: list[dict], after: float) -> tuple[Script, list, float]:
    """Return the recording cut where the tower flashes a prompt, the first after ``after``
    seconds with no press in the 1.5 s before the cut: (script, events, end); the end is the
    middle of that wait, between two presses."""
    presses = sorted(a.t for a in script.actions if isinstance(a, Press))
    for t_next in presses:
        if t_next <= after:
            continue
        before = [p for p in presses if p < t_next]
        last = before[-1] if before else 0.0
        if t_next - last > 3.0:
            end = round((last + t_next) / 2 * 60) / 60 + 0.5 / 60
            kept = Script(actions=[a for a in script.actions if a.t + getattr(a, "hold", 0.0)
                                   < end], length=end, name=script.name)
            return kept, [e for e in events if e["t"] <= end], end
    raise ValueError(f"no prompt waited on for 3 s after {after} s")


def rule_items(reference: list[dict], decided: list[Item], end: float) -> list[Item]:
    """Return the reference's items the rules predict: every item but those within a frame
    of a random-decided one of the same kind and value."""
    def decided_here(it: Item) -> bool:
        return any(d.kind == it.kind and d.value == it.value and abs(d.t - it.t) <= FRAME_S
                   for d in decided)
    return [it for it in summarize(reference, end) if not decided_here(it)]


def _last_press_before(script: Script, t: float) -> float:
    presses = [a.t for a in script.actions if isinstance(a, Press) and a.t <= t]
    return max(presses, default=0.0)


def _event_of(events: list[dict], it: Item) -> int | None:
    """Return the index of the event that starts item ``it`` (None if there is none)."""
    for i, e in enumerate(events):
        if abs(e["t"] - it.t) > 1e-6 or e["type"] != it.kind:
            continue
        if it.kind == "display" and e["text"] != it.value:
            continue
        if it.kind == "lamp" and (e["lamp"], int(e["on"])) != tuple(it.value):
            continue
        if it.kind == "motor" and int(e["on"]) != it.value:
            continue
        if it.kind == "reel" and e["card_pos"] != it.value:
            continue
        return i
    return None


def _moved(script, events, items, rng, near: bool) -> list[Mutant]:
    out = []
    for kind in ("lamp", "motor", "reel", "display"):
        dt = 2 * FRAME_S if kind in ("reel", "display") else 0.020
        pool = []
        for it in items:
            if it.kind != kind or (kind == "display" and it.flashing):
                continue
            since = it.t - _last_press_before(script, it.t)
            if (since <= NEAR_S) if near else (since >= FAR_S):
                pool.append(it)
        for it in rng.sample(pool, min(1, len(pool))):
            i = _event_of(events, it)
            if i is None:
                continue
            sign = rng.choice((-1, 1))
            ev = [dict(e) for e in events]
            ev[i]["t"] = round(ev[i]["t"] + sign * dt, 6)
            ev.sort(key=lambda e: e["t"])
            where = "near a press" if near else "far from a press"
            out.append(Mutant(f"move {kind} {'near' if near else 'far'}",
                              f"{it.describe()} at {it.t:.3f} s moved {sign * dt * 1000:+.0f} ms "
                              f"({where})", min(it.t, it.t + sign * dt), script, ev))
    return out


def _move_near(script, events, items, rng):
    return _moved(script, events, items, rng, near=True)


def _move_far(script, events, items, rng):
    return _moved(script, events, items, rng, near=False)


def _number(script, events, items, rng):
    pool = [it for it in items if it.kind == "display" and it.value.isdigit()
            and it.value != "99"]
    out = []
    for it in rng.sample(pool, min(2, len(pool))):
        new = f"{int(it.value) + 1:02d}"
        ev = [dict(e) for e in events]
        for e in ev:
            if e["type"] == "display" and e["text"] == it.value and it.t - 1e-6 <= e["t"] <= \
                    it.t + (it.count - 1) * 0.6 + 0.3:
                e["text"] = new
        out.append(Mutant("number + 1", f"display {it.value!r} at {it.t:.3f} s shown as "
                          f"{new!r}", it.t, script, ev))
    return out


def _pitch(script, events, items, rng):
    pool = [it for it in items if it.kind == "tone" and it.value is not None]
    out = []
    for it in rng.sample(pool, min(2, len(pool))):
        i = _tone_index(events, it)
        ev = [dict(e) for e in events]
        ev[i]["freq_hz"] = round(ev[i]["freq_hz"] * 1.03, 1)
        out.append(Mutant("tone 3 % off", f"{it.describe()} at {it.t:.3f} s played at "
                          f"{ev[i]['freq_hz']} Hz", it.t, script, ev))
    return out


def _tone_index(events, it: Item) -> int:
    return next(i for i, e in enumerate(events) if e["type"] == "tone" and
                abs(e["t"] - it.t) <= 1e-6)


def _delete(script, events, items, rng):
    out = []
    for kind in ("lamp", "tone", "motor", "display"):
        pool = [it for it in items if it.kind == kind and not it.flashing]
        for it in rng.sample(pool, min(1, len(pool))):
            i = _tone_index(events, it) if kind == "tone" else _event_of(events, it)
            if i is None:
                continue
            ev = [dict(e) for j, e in enumerate(events) if j != i]
            out.append(Mutant("delete", f"{it.describe()} at {it.t:.3f} s deleted", it.t,
                              script, ev))
    return out


def _swap(script, events, items, rng):
    """Swap the times of two outputs that follow each other: two numbers shown (a total and
    the next), or a lamp and the next lamp of another window."""
    pairs = []
    shown = [it for it in items if it.kind == "display" and it.value.isdigit()]
    for a, b in zip(shown, shown[1:]):
        if a.value != b.value and 0.1 < b.t - a.t < 3.0:
            pairs.append((a, b))
    lamps = [it for it in items if it.kind == "lamp" and it.value[1] == 1]
    for a, b in zip(lamps, lamps[1:]):
        if a.value[0] != b.value[0] and 0.1 < b.t - a.t < 3.0:
            pairs.append((a, b))
    out = []
    for a, b in rng.sample(pairs, min(2, len(pairs))):
        ia, ib = _event_of(events, a), _event_of(events, b)
        if ia is None or ib is None:
            continue
        ev = [dict(e) for e in events]
        ev[ia]["t"], ev[ib]["t"] = ev[ib]["t"], ev[ia]["t"]
        ev.sort(key=lambda e: e["t"])
        out.append(Mutant("swap", f"{a.describe()} at {a.t:.3f} s and {b.describe()} at "
                          f"{b.t:.3f} s swapped", a.t, script, ev))
    return out


def _press(script, events, items, rng):
    """Move one key press (not the last) four frames later or sooner in the script."""
    idx = [i for i, a in enumerate(script.actions[:-1]) if isinstance(a, Press)]
    out = []
    for i in rng.sample(idx, min(2, len(idx))):
        a = script.actions[i]
        dt = rng.choice((-4, 4)) * FRAME_S
        actions = list(script.actions)
        actions[i] = replace(a, t=round(a.t + dt, 6))
        out.append(Mutant("press moved", f"{a.button} at {a.t:.3f} s pressed "
                          f"{dt * 1000:+.0f} ms", min(a.t, a.t + dt),
                          replace(script, actions=actions), events))
    return out


OPERATORS: dict[str, Callable] = {
    "move near a press": _move_near,
    "move far from a press": _move_far,
    "number + 1": _number,
    "tone 3 % off": _pitch,
    "delete": _delete,
    "swap": _swap,
    "press moved": _press,
}


def mutants(operator: str, script: Script, events: list[dict], items: list[Item],
            seed: int) -> list[Mutant]:
    """Return the mutants ``operator`` makes of a reference, its items chosen with ``seed``."""
    return OPERATORS[operator](script, events, items, random.Random(f"{operator} {seed}"))
