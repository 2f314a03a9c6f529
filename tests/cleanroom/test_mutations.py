"""The strict check is sharp: every mistake put into a genuine recording is rejected at or near
it (tests/cleanroom/mutants.py says which mistakes), the recordings themselves conform, and so
does a recording cut at a prompt.

The references are genuine sessions cut at a prompt to 60-110 s (tests/data), resolved once
each; every mutant is resolved again from scratch, as ``towerlab conform`` would.  ``pytest -s``
prints the kill table (operator: mutants rejected near the mistake / made).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from captures.script import read_script
from captures.events import read_events
from cleanroom.conform import STRICT, resolve

from .mutants import OPERATORS, cut_at_prompt, mutants, rule_items

DATA = Path(__file__).resolve().parents[1] / "data"
# (folder, cut after this many seconds): every level, a battle, the bazaar, a curse, the riddle
SAMPLE = {
    "level4_bazaar": ("captures/level4_bazaar", None),
    "level4_riddle": ("captures/level4_riddle", None),
    "l1_p4_s21": ("corpus/l1_p4_s21", 60.0),
    "l3_p3_s11": ("corpus/l3_p3_s11", 80.0),
}
# a mutant is rejected "near" its mistake: at the latest at the next picture (a total a skirmish
# decides, changed, is explained by the other outcome until the next count shows)
NEAR_AFTER_S = 2.0


def _reference(name: str):
    folder, after = SAMPLE[name]
    script = read_script(str(DATA / folder / "script.txt"))
    events = read_events(str(DATA / folder / "events.jsonl"))
    if after is None:
        return script, events, max([e["t"] for e in events] + [script.end_time()])
    return cut_at_prompt(script, events, after)


_RESOLVED: dict = {}


def _resolved(name: str):
    if name not in _RESOLVED:
        script, events, end = _reference(name)
        result = resolve(script, events, STRICT, end=end)
        _RESOLVED[name] = (script, events, end, result)
    return _RESOLVED[name]


@pytest.mark.parametrize("name", sorted(SAMPLE))
def test_the_reference_cut_at_a_prompt_conforms(name):
    _, _, end, result = _resolved(name)
    assert result.conforms, f"{name} cut at {end:.3f} s: {result.describe()}"


@pytest.mark.parametrize("operator", sorted(OPERATORS))
@pytest.mark.parametrize("name", sorted(SAMPLE))
def test_every_mutant_is_rejected_near_its_mistake(name, operator):
    script, events, end, result = _resolved(name)
    items = rule_items(events, result.decided_items, end)
    made = mutants(operator, script, events, items, seed=len(name))
    assert made, f"{name}: no {operator} mutant could be made"
    survivors = []
    for m in made:
        got = resolve(m.script, m.events, STRICT, end=end)
        near = not got.conforms and m.t - STRICT.time_s <= got.diff_time <= m.t + NEAR_AFTER_S
        if not near:
            where = "conforms" if got.conforms else f"first difference at {got.diff_time:.3f} s"
            survivors.append(f"{m.what}: {where}")
    print(f"\nkill {name:14} {operator:22} {len(made) - len(survivors)} of {len(made)}")
    assert not survivors, f"{name}: mutants not rejected near their mistake:\n" + \
        "\n".join(survivors)
