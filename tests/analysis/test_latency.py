"""analysis.latency: an action key's time to its first output against the force's food and
warriors (docs/draws.md, section 13), on made-up key times and events."""
from __future__ import annotations

import io
from pathlib import Path

from analysis.draws import read_sweep
from analysis.latency import (KeyTime, bit7_from_times, brigands_path, digit_terms,
                              key_times, latency_report, residue)
from captures.darktower_facts import NOMINAL_CLOCK_HZ
from towerlab.cli import main

INSTRUCTION_S = 6 / NOMINAL_CLOCK_HZ


def key(key="BAZAAR", draw="warrior_price", value="7", whole=916, food=23,
        warriors=10, rations=1):
    return KeyTime("s", key, 1.0, float(whole), draw, value, food, warriors, rations)


def test_food_left_with_units_4_to_8_saves_one_instruction():
    assert [digit_terms(food, 10) for food in range(20, 30)] == [0, 0, 0, 0, 1, 1, 1, 1, 1, 0]


def test_warriors_with_units_6_to_9_save_one_instruction():
    assert [digit_terms(23, w) for w in range(10, 20)] == [0, 0, 0, 0, 0, 0, 1, 1, 1, 1]


def test_the_two_terms_add():
    assert digit_terms(14, 8) == 2


def test_a_key_is_timed_from_its_click_to_the_next_output_with_its_first_draw():
    events = [{"t": 2.0, "type": "button", "action": "press", "button": "BAZAAR"},
              {"t": 2.01, "type": "tone", "hz": 1000.0, "duration": 0.005},
              {"t": 2.01 + 915 * INSTRUCTION_S, "type": "tone", "hz": 500.0, "duration": 0.1}]
    held = [(2.02, "warrior_price", 7, 24, 10, 1), (5.0, "haggle", "no", 24, 10, 1)]
    (t,) = key_times(events, held, "made-up")
    assert (t.key, t.draw, t.value, t.food, t.warriors, t.whole) == (
        "BAZAAR", "warrior_price", "7", 24, 10, 915)


def test_a_key_without_a_draw_soon_after_it_is_not_timed():
    events = [{"t": 2.0, "type": "button", "action": "press", "button": "FRONTIER"},
              {"t": 2.01, "type": "tone", "hz": 1000.0, "duration": 0.005},
              {"t": 2.4, "type": "motor", "on": True}]
    assert key_times(events, [(3.0, "move", "safe", 24, 10, 1)]) == []


def test_the_report_counts_each_keys_times_at_its_base_less_their_terms():
    times = [key(whole=916, food=23), key(whole=915, food=24), key(whole=914, food=24,
                                                                   warriors=8),
             key(whole=916, food=24)]
    (line,) = [x for x in latency_report(times) if x.startswith("BAZAAR, a force of one")]
    assert "to the first tone: 4; 916 instructions less the digit terms at 3 of 4" in line
    assert "alone: 2" in line and line.endswith("the others, with their terms: 917 x 1")


def test_a_key_without_a_draw_is_timed_with_the_force_the_game_took_it_with():
    events = [{"t": 2.0, "type": "button", "action": "press", "button": "FRONTIER"},
              {"t": 2.01, "type": "tone", "hz": 1000.0, "duration": 0.005},
              {"t": 2.01 + 887 * INSTRUCTION_S, "type": "motor", "on": True}]
    (t,) = key_times(events, [(2.03, "key", "FRONTIER", 24, 10, 1)])
    assert (t.key, t.draw, t.value, t.whole, t.output) == ("FRONTIER", "", "", 887, "motor")
    assert "888 instructions less the digit terms at 1 of 1" in "\n".join(latency_report([t]))


def test_the_report_finds_one_remainder_for_moves_whose_terms_explain_it():
    # safe moves 4 above LOST's path; each time shifted back by its terms
    times = [key("MOVE", "move", "safe", 946 + 9 * k - digit_terms(f, 10), food=f)
             for k, f in enumerate((24, 23, 22, 18, 17))]
    times += [key("MOVE", "move", "lost", 942 + 3 * k - digit_terms(f, 8), food=f, warriors=8)
              for k, f in enumerate((21, 20, 19, 15))]
    (line,) = [x for x in latency_report(times) if x.startswith("MOVE")]
    assert "modulo 3 at 9 of 9" in line


def test_larger_forces_are_listed_apart():
    lines = latency_report([key(whole=970, warriors=20, rations=2)])
    assert lines[-1].endswith("2, 20, tone: 970 x 1")
    assert "no action key of a force of one ration with a fixed time" in "\n".join(lines)


def test_a_moves_residue_is_its_time_less_its_path_plus_its_terms_modulo_9():
    # 955 - 4 (a safe move's path) + 1 (food 24) = 952, 7 modulo 9
    assert residue(key("MOVE", "move", "safe", 955, food=24)) == 7


def test_a_battle_a_bazaar_and_a_larger_force_have_no_residue():
    assert residue(key("MOVE", "move", "battle", 1183)) is None
    assert residue(key()) is None
    assert residue(key("MOVE", "move", "safe", 955, warriors=20, rations=2)) is None


def test_each_key_gets_a_line_first_when_asked():
    lines = latency_report([key("MOVE", "move", "plague", 959, food=14, warriors=12)],
                           each=True)
    assert lines[0].endswith("residue 0") and "move=plague" in lines[0]
    assert lines[1].startswith("digit terms")


SWEEPS = Path(__file__).resolve().parents[1] / "data" / "sweeps"


def sweep_times(name: str) -> dict:
    sweep = read_sweep([str(SWEEPS / name)])
    return {n: (r.outcome, r.think) for n, r in sweep.scans.items()}


def test_the_l1_move_sweeps_times_place_its_bit_7_at_every_scan():
    reading = bit7_from_times(sweep_times("move_l1_p1_s101"))
    assert (reading.set_residue, reading.lows, reading.fit, reading.scans) == (8, (36,), 62, 62)


def test_the_l2_move_sweeps_times_place_its_bit_7_at_every_scan():
    reading = bit7_from_times(sweep_times("move_l2_p1_s102"))
    assert (reading.set_residue, reading.lows, reading.fit, reading.scans) == (3, (227,), 66,
                                                                             66)


def test_times_without_two_residues_6_apart_do_not_read_bit_7():
    assert bit7_from_times({0: ("LOST", 939.0), 1: ("LOST", 940.0), 2: ("none", 943.0)}) \
        is None


def test_towerlab_draws_prints_the_bit_7_the_times_read():
    out = io.StringIO()
    assert main(["draws", str(SWEEPS / "move_l1_p1_s101")], out) == 0
    assert out.getvalue().splitlines()[-1] == (
        "bit 7 from the times: residue 8 where set, 2 where clear; the count's low byte at "
        "the first scan 36, 62 of 62 scans agree")


def test_brigands_one_away_from_the_warriors_add_one_modulo_3():
    assert [brigands_path(15, 15 + d) for d in (-2, -1, 0, 1, 2)] == [0, 1, 0, 1, 0]


def test_taking_brigands_away_across_the_warriors_tens_adds_one_more():
    # 10 warriors: 9 and 8 brigands borrow from the tens
    assert [brigands_path(10, b) for b in (8, 9)] == [1, 2]


def test_adding_brigands_across_the_warriors_tens_adds_two_more():
    # 19 + 1 and 18 + 2 carry: 1 + 2 and 0 + 2; 17 + 1 does not
    assert [brigands_path(19, 20), brigands_path(18, 20), brigands_path(17, 18)] == [0, 2, 1]


def test_brigands_further_from_the_warriors_have_no_path():
    assert brigands_path(10, 13) is None


def test_the_battle_line_reads_the_horns_time_less_the_brigands_path():
    battles = [KeyTime("s", "MOVE", 1.0, float(1181 + 9 * k + brigands_path(10, b)),
                       "move", "battle", 23, 10, 1, "tone", b)
               for k, b in enumerate((8, 9, 10, 11, 12))]
    (line,) = [x for x in latency_report(battles) if x.startswith("MOVE with a battle")]
    assert "in one remainder modulo 3 at 5 of 5" in line
