"""The shared comparison types (captures.tolerance): one Tolerance, one Difference."""
from __future__ import annotations

import pytest

from captures.tolerance import Difference, Tolerance


def test_one_time_window_serves_every_event_type():
    tol = Tolerance(time_s=0.02)
    assert tol.time_for("lamp") == tol.time_for("display") == 0.02
    assert tol.has_time_for("anything")


def test_a_per_type_window_is_looked_up_by_type_and_refuses_others():
    tol = Tolerance(time_s={"lamp": 0.001, "display": 0.0177})
    assert tol.time_for("display") == 0.0177
    assert not tol.has_time_for("tone")
    with pytest.raises(KeyError):
        tol.time_for("tone")


def test_describe_lists_the_compared_types_windows_and_the_frequency():
    tol = Tolerance(time_s={"lamp": 0.001, "tone": 0.002}, freq_frac=0.01, types=("tone",))
    assert tol.describe() == "times: tone 2 ms; tone frequency 1 %"


def test_a_difference_of_events_names_both_sides_with_the_given_names():
    a = {"t": 1.5, "type": "lamp", "lamp": "upper", "on": 1}
    text = Difference(1.5, a, None, [a], kind="only in A").describe("A", "B")
    assert text.splitlines() == ["first difference at 1.500 s",
                                 "  A: lamp lamp=upper on=1 at 1.500 s",
                                 "  B: (nothing)",
                                 "  context (A):",
                                 "   >>     1.500  lamp lamp=upper on=1"]


def test_a_difference_answers_to_both_comparators_field_names():
    d = Difference(2.0, "x", "y", ["x"], kind="time", context_b=["y"])
    assert (d.reference, d.game, d.context_a, d.context_b) == ("x", "y", ["x"], ["y"])
