"""EventLog: the merge of growing event sources, settled below a watermark, is one stable sort."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from captures.eventlog import EventLog

SLOTS = ("decoded", "pending", "board", "power")
TYPES = ("tone", "display", "button", "power")


def reference(sources: dict[str, list[dict]], upto: float) -> list[dict]:
    """Return what a tower read returns: one stable sort of the sources in slot order."""
    rank = {"power": 0, "button": 1}
    every = [e for s in SLOTS for e in sources.get(s, [])]
    return sorted((e for e in every if e["t"] <= upto),
                  key=lambda e: (e["t"], rank.get(e["type"], 2)))


def ev(t: float, kind: str, n: int) -> dict:
    return {"t": t, "type": kind, "n": n}


def test_events_before_the_watermark_are_merged_once_and_the_rest_at_each_read():
    log = EventLog(SLOTS, first=("power", "button"))
    log.add("decoded", [ev(1.0, "tone", 0), ev(2.0, "display", 1)])
    log.add("board", [ev(1.0, "button", 2)])
    log.settle(1.5)
    assert log.watermark == 1.5
    got = log.read(upto=3.0, pending=[ev(2.5, "tone", 3)])
    assert [e["n"] for e in got] == [2, 0, 1, 3]
    assert [e["n"] for e in log.read(upto=3.0)] == [2, 0, 1]       # provisional: gone


def test_equal_times_keep_the_type_ranks_then_the_slot_order():
    log = EventLog(SLOTS, first=("power", "button"))
    log.add("power", [ev(1.0, "power", 0)])
    log.add("board", [ev(1.0, "tone", 1), ev(1.0, "button", 2)])
    log.add("decoded", [ev(1.0, "tone", 3)])
    log.settle(2.0)
    assert [e["n"] for e in log.read()] == [0, 2, 3, 1]


def test_an_event_added_under_the_watermark_is_merged_where_it_belongs():
    log = EventLog(SLOTS)
    log.add("decoded", [ev(1.0, "tone", 0), ev(3.0, "tone", 1)])
    log.settle(2.0)
    log.add("board", [ev(0.5, "button", 2)])          # a broken promise
    assert [e["n"] for e in log.read()] == [2, 0, 1]
    assert log.rebuilds == 1


def test_a_provisional_event_under_the_watermark_is_merged_where_it_belongs():
    log = EventLog(SLOTS)
    log.add("decoded", [ev(1.0, "tone", 0)])
    log.settle(2.0)
    assert [e["n"] for e in log.read(pending=[ev(0.5, "tone", 1)])] == [1, 0]


step = st.tuples(
    st.dictionaries(st.sampled_from(SLOTS),
                    st.lists(st.tuples(st.integers(0, 40), st.sampled_from(TYPES)),
                             max_size=4), max_size=4),
    st.integers(0, 6),          # how far the watermark moves on (tenths of a second)
    st.booleans())              # whether the sources keep the watermark's promise


@settings(max_examples=120, deadline=None)
@given(steps=st.lists(step, min_size=1, max_size=12))
def test_every_read_is_one_stable_sort_of_everything_so_far(steps):
    log = EventLog(SLOTS, first=("power", "button"))
    sources: dict[str, list[dict]] = {s: [] for s in SLOTS}
    now, n = 0.0, 0
    for adds, move, keep_promise in steps:
        now += 0.5
        provisional = []
        for slot, items in adds.items():
            new = []
            for tenth, kind in items:
                t = round(now - 4.0 + tenth / 10, 1)
                if keep_promise:
                    t = max(t, log.watermark)
                new.append(ev(t, kind, n))
                n += 1
            if slot == "pending":
                provisional = new
            else:
                log.add(slot, new)
                sources[slot] += new
        log.settle(min(now, max(log.watermark, now - 3.0 + move / 10)))
        got = log.read(upto=now, pending=provisional)
        assert got == reference({**sources, "pending": provisional}, now)


def test_a_read_is_a_read_only_list_sharing_what_earlier_reads_settled():
    log = EventLog(SLOTS)
    log.add("decoded", [ev(1.0, "tone", 0), ev(2.0, "tone", 1)])
    log.settle(1.5)
    first = log.read(pending=[ev(3.0, "tone", 2)])
    log.add("decoded", [ev(4.0, "tone", 3)])
    log.settle(5.0)
    second = log.read()
    assert [e["n"] for e in first] == [0, 1, 2] and first.settled == 1
    assert [e["n"] for e in second] == [0, 1, 3] and second.settled == 3
    assert first == [ev(1.0, "tone", 0), ev(2.0, "tone", 1), ev(3.0, "tone", 2)]
    assert [ev(1.0, "tone", 0)] + first[:1] == [ev(1.0, "tone", 0)] * 2
    assert first[-1]["n"] == 2 and first[1:][0]["n"] == 1 and first[::2][1]["n"] == 2
    assert len(first + second) == 6 and first != second
    with pytest.raises(IndexError):
        first[3]
