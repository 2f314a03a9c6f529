"""The tower counts a force's rations at each action key before the action shows anything, a
little longer for each ration past the first (params ``ration_count_cycles``: the level-4
development sessions, where forces of 16 to 46 warriors eat 2 to 4 rations a turn)."""
from __future__ import annotations

import pytest

from captures.darktower_facts import NOMINAL_CLOCK_HZ
from cleanroom.params import SOUNDS, param

from .util import press, shown, tower


def click_to_output(tw, button: str) -> float:
    """Press ``button``; return the time in cycles from its click to the next tone, lamp or
    motor start."""
    start = len(tw.events())
    press(tw, button)
    events = tw.events()[start:]
    click = next(i for i, e in enumerate(events) if e.get("cue") == "click")
    out = next(e for e in events[click + 1:]
               if e["type"] in ("tone", "motor", "lamp") and e.get("on", 1))
    return (out["t"] - events[click]["t"]) * NOMINAL_CLOCK_HZ


def count_cycles(steps: int) -> int:
    row = param("ration_count_cycles")
    return 0 if steps == 0 else row["first"] + row["each"] * (steps - 1)


@pytest.mark.parametrize("warriors, cycles", [(15, 0), (16, 323), (30, 323), (31, 638),
                                              (45, 638), (46, 953), (61, 1268)])
def test_an_action_comes_later_by_the_count_of_each_ration_past_the_first(warriors, cycles):
    """l4_p1_s28 108.40 (21 warriors, FRONTIER), l4_p3_s20 354.62 (40, BAZAAR), l4_p1_s104
    298.23 (46, DARK TOWER): 323-331, 635-641 and 953 cycles after the time with 15 or
    fewer."""
    for key in ("INVENTORY", "FRONTIER", "BAZAAR"):
        plain = click_to_output(tower(4, 1, inventory=dict(warriors=10)), key)
        late = click_to_output(tower(4, 1, inventory=dict(warriors=warriors)), key)
        assert late - plain == pytest.approx(cycles, abs=1), key


def test_the_rations_are_counted_before_the_low_food_warning():
    """l4_p1_s168 346.48 (24 warriors, 7 rations left): the warning 323 cycles later."""
    plain = click_to_output(tower(4, 1, inventory=dict(warriors=10, food=3)), "MOVE")
    late = click_to_output(tower(4, 1, inventory=dict(warriors=24, food=6)), "MOVE")
    assert late - plain == pytest.approx(count_cycles(1), abs=1)


@pytest.mark.parametrize("warriors, steps", [(20, 0), (35, 1), (46, 2)])
def test_a_starving_force_counts_one_ration_fewer(warriors, steps):
    """l4_p1_s28 223.68 (23 warriors, no food): the Death March as with 15 or fewer;
    l4_p1_s104 374.73 (35), l4_p1_s152 274.93 (46): one and two counts later."""
    plain = click_to_output(tower(4, 1, inventory=dict(warriors=10, food=0)), "MOVE")
    late = click_to_output(tower(4, 1, inventory=dict(warriors=warriors, food=0)), "MOVE")
    assert late - plain == pytest.approx(count_cycles(steps), abs=1)


def test_a_tomb_creaks_first_and_counts_the_rations_in_the_first_period():
    """l4_p1_s136 126.17 (28 warriors): the creak starts as with 15 or fewer, its first
    period 10.2 ms long (98.4 Hz) instead of 9.4."""
    plain = click_to_output(tower(4, 1, inventory=dict(warriors=10), tomb=["deserted"]),
                            "TOMB/RUIN")
    tw = tower(4, 1, inventory=dict(warriors=28), tomb=["deserted"])
    assert click_to_output(tw, "TOMB/RUIN") == pytest.approx(plain, abs=1)


@pytest.mark.parametrize("warriors, cue", [(15, "creak_open"), (16, "creak_open_slow_start"),
                                           (31, "creak_open_slow_start_2"),
                                           (99, "creak_open_slow_start_6")])
def test_a_tomb_creak_takes_its_form_from_the_rations_counted(warriors, cue):
    tw = tower(4, 1, inventory=dict(warriors=warriors, food=99), tomb=["deserted"])
    assert shown(press(tw, "TOMB/RUIN"), "sound")[0] == cue


def test_each_ration_more_lengthens_the_creaks_first_period_by_one_count():
    each = param("ration_count_cycles")["each"] / NOMINAL_CLOCK_HZ
    slow = SOUNDS["creak_open_slow_start"].notes
    for steps in range(2, 7):
        notes = SOUNDS[f"creak_open_slow_start_{steps}"].notes
        # a note's offset: where the next begins, one period after it
        assert notes[1][0] - slow[1][0] == pytest.approx((steps - 1) * each, abs=2e-4)
        assert 1 / notes[0][1] - 1 / slow[0][1] == pytest.approx((steps - 1) * each, abs=2e-5)
        shift = notes[1][0] - slow[1][0]
        assert [(f, d) for _, f, d in notes[2:]] == [(f, d) for _, f, d in slow[2:]]
        assert [o - shift for o, _, _ in notes[2:]] == pytest.approx([o for o, _, _ in slow[2:]])


@pytest.mark.parametrize("key", ["REPEAT", "CLEAR"])
def test_repeat_or_clear_at_the_turns_prompt_counts_nothing(key):
    """l4_p1_s28 89.80 (REPEAT, 20 warriors), l4_p1_s104 314.42 (CLEAR, 46): the key loop
    goes on as with 15 warriors or fewer, the next key's click within 0.1 ms (12 of 12)."""
    clicks = []
    for warriors in (10, 46):
        tw = tower(4, 1, inventory=dict(warriors=warriors, food=99))
        press(tw, key)
        start = len(tw.events())
        press(tw, "INVENTORY")
        clicks.append(next(e["t"] for e in tw.events()[start:] if e.get("cue") == "click"))
    assert clicks[1] == pytest.approx(clicks[0], abs=1e-7)
