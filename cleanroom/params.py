"""Hold every number the clean-room game uses, each with its source and how well it is supported.

Sources: "rulebook" = the 1981 rulebook (section named);
"capture X" = the shared MAME capture X (events.jsonl), with what was measured; "chosen" = the
rulebook gives no number, so we chose one (the ``support`` column says whether any capture
constrains it).  ``towerlab conform --stats`` checks the chosen odds against recordings; what
it estimates is kept in cleanroom.evidence (its names answer here too).

Times are seconds, frequencies Hz.  Sound cues are tuples of ``(offset_s, freq_hz, dur_s)``
from the cue's start, plus the silence after the last note (``tail_s``) before the game goes on;
they are built from the catalogue of observed cues in cleanroom.cues (``freq_hz`` None = a
click).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from captures.darktower_facts import NOMINAL_CLOCK_HZ, REEL_TICK_S

from .cues import CUES, sound_rows
from .evidence import EVIDENCE, EVIDENCE_COMMAND, Evidence, evidence, evidence_line

__all__ = ["Param", "PARAMS", "Sound", "SOUNDS", "param", "parameter_table",
           "parameter_markdown", "Evidence", "EVIDENCE", "EVIDENCE_COMMAND", "evidence"]


@dataclass(frozen=True)
class Param:
    """One named parameter: value, unit, where it comes from, how well captures support it."""
    name: str
    value: Any
    unit: str
    source: str
    support: str


# the rations past the first a force counts before a tomb's creak: 0 to 6 (99 warriors eat
# 7 a turn); each count has its own form of the creak (``ration_count_cycles``)
CREAK_COUNTS = range(7)


def creak_for_count(steps: int) -> str:
    """Return the opening creak played after ``steps`` rations past the first are counted:
    the plain one, the recorded slow start (one), or a derived form (two or more)."""
    return ("creak_open", "creak_open_slow_start")[steps] if steps < 2 else \
        f"creak_open_slow_start_{steps}"


_ROWS = [
    # --- timing (measured in the shared captures) ---------------------------------------
    Param("frame_s", 1 / 60, "s", "captures README: display decoded per 1/60 s window",
          "definition"),
    Param("click_dur_s", 0.0046, "s", "all captures: 431.9 Hz, 2 pulses after each key",
          "measured"),
    Param("click_hz", 431.9, "Hz", "all captures", "measured"),
    Param("beep_hz", 737.8, "Hz", "tower_test: beep with each lamp", "measured"),
    Param("beep_dur_s", 0.0447, "s", "tower_test: 33 pulses", "measured"),
    Param("beep_after_lamp_s", 0.0004, "s", "tower_test, level4_bazaar: lamp->tone", "measured"),
    Param("lamp_after_motor_s", {
        "tower_test": 0.000480, "total": 0.001144, "total WARRIOR": 0.001158,
        "total FOOD": 0.001158, "total BRIGANDS": 0.000664, "offer": 0.000777,
        "offer SCOUT": 0.000763, "item": 0.000734, "item BRASS KEY": 0.000720,
        "event": 0.000763, "event BRASS KEY": 0.000819, "event SILVER KEY": 0.000819,
        "event GOLD KEY": 0.000791, "event LOST": 0.000819, "event PLAGUE": 0.000805,
        "cue": 0.000537, "cue LOST": 0.000593, "cue PLAGUE": 0.000593, "cue CURSED": 0.000565},
          "s", "corpus, 999 pictures lit as the reel stops: the lamp lights this long after the "
          "motor goes off, by what the picture does (each within 1 us): the tower test's first "
          "lamp 0.480 ms (34 of 34); a total with its number 1.144 ms for GOLD (227), 1.158 for "
          "WARRIOR (154) and FOOD (1), the battle's BRIGANDS count 0.664 (92); a bazaar offer "
          "0.777 (WARRIOR, 71), 0.763 (SCOUT, 4); an INVENTORY or REPEAT item 0.734 (41), "
          "BRASS KEY 0.720 (4); an event or treasure 0.763 (HEALER, SCOUT, SWORD, WIZARD: 51), "
          "a key won 0.791-0.819 (14), LOST 0.819 (17), PLAGUE with a Healer 0.805 (14); a "
          "picture with its own cue 0.537 (DRAGON, PEGASUS, KEY MISSING, BAZAAR CLOSED: 85), "
          "LOST and PLAGUE 0.593 (61), CURSED 0.565 (10).  A role's plain entry stands for the "
          "pictures no recording shows after a turn", "measured on the pins"),
    Param("motor_off_after_tick_s", 0.00055, "s", "level4_bazaar/riddle: sensor edge -> R9 off; "
          "corpus: 230-259 cycles after the reel's step in 907 stops at a card", "measured"),
    Param("motor_off_after_index_s", 640 / NOMINAL_CLOCK_HZ, "s", "corpus: the tower test's "
          "stop at the index hole comes 632-653 cycles after the reel's step (30 of 30)",
          "measured on the pins"),
    Param("motor_after_click_s", 0.005, "s", "tower_test 3.0624->3.0672", "measured"),
    Param("reel_tick_s", REEL_TICK_S, "s", "docs/dark-tower-wiring.md §6 (MAME reel model)",
          "definition"),
    Param("picture_s", 1.5963, "s", "tower_test: each lamp 1.596 s; all captures", "measured"),
    Param("number_after_lamp_s", 0.046, "s", "all 34 recordings: the number is first driven "
          "0.046 s after its picture's lamp (1842 pictures; 5 at 0.054)", "measured"),
    Param("tick_lit_s", 11073 / 3 / NOMINAL_CLOCK_HZ, "s", "all 34 recordings: the key-wait loop "
          "(one key scan + 3 digit refreshes) takes 11064-11082 cycles at 425 kHz while a digit "
          "is lit; one tick = one refresh", "measured: 61,000 loop passes"),
    Param("tick_dark_s", 10821 / 3 / NOMINAL_CLOCK_HZ, "s", "all 34 recordings: 10812-10830 cycles per "
          "loop pass while the display is dark", "measured: 59,000 loop passes"),
    Param("toggle_extra_cycles", 40, "cycles at 425 kHz",
          "corpus pins: each flash toggle delays the key scans after it by 0.09-0.10 ms more "
          "than 32 ticks of the phase's passes (l4_p1_s04 17.98-20.01 s: 7 toggles, 0.66 ms; "
          "l1_p1_s01 148.07-149.61 s: 5 toggles, 0.51 ms); the phase totals agree (on 117588 or "
          "118302 cycles, off 115074 or 115788: 78 cycles per on-off pair more than 32 ticks "
          "of 11073/3 and of 10821/3)", "measured on the pins"),
    Param("new_key_pass_cut_cycles", (116, 276, 430), "cycles at 425 kHz",
          "all 30 corpus recordings: the key scan strobes R2, R1, R0 in turn and stops at the "
          "column of a key it finds closed; the loop pass that begins at the scan that first "
          "sees a key is shorter by 116, 276 or 430 cycles (key in column R0, R1 or R2; 898, "
          "455 and 366 passes, dark and lit alike within 10 cycles); per tick, a third of that",
          "measured on the pins"),
    Param("held_key_pass_cut_cycles", (45, 209, 366), "cycles at 425 kHz",
          "all 30 corpus recordings: each later pass while the key stays closed is shorter by "
          "45, 209 or 366 cycles (727, 191 and 328 passes)", "measured on the pins"),
    Param("release_pass_cut_cycles", 42, "cycles at 425 kHz",
          "all 30 corpus recordings: the pass that begins at the scan that first finds the keys "
          "open again is 42 cycles shorter, whatever the column (394 passes); a loop begun "
          "after a flow still knows the key the last one took, so its first scan begins such "
          "a pass (1913 clicks: +0.10 ms of drift per loop without it, +0.02 with it)",
          "measured on the pins"),
    Param("flash_toggling_cues", ("sad", "creak_open", "creak_open_after_low_food") + tuple(
              creak_for_count(k) for k in CREAK_COUNTS[1:]), "cue names", "corpus, 1768 waits "
          "for a key after another: outside the key loop the flash timer stands still, except "
          "in the flows that play the sad cue (LOST, KEY MISSING, the Dark Tower's sad end) or "
          "open a tomb (creak, in any of its forms): there the next prompt begins a new phase "
          "of the other state (180 such waits; see toggle_bit_before_take_ticks)",
          "measured on the pins"),
    Param("toggle_bit_before_take_ticks", 1, "ticks", "corpus pins, the 180 forced toggles "
          "of the 30 sessions: the new phase is the other state from the bit at the scan that "
          "took the key, a toggle at the refresh just before it included (180 of 180; "
          "l4_p4_s16 158.80: off one refresh before, the next prompt lit; l3_p1_s37 29.58: the "
          "toggle due one refresh after, the prompt dark).  A game tick ends with its refresh "
          "where the genuine's refresh comes 708 cycles after the scan, so the game's count at "
          "a scan is the genuine's plus 1 (1408 of 1610 takes; 130 are a pass ahead, 50 a pass "
          "behind, after a reel stop a step off): the genuine's bit is the game's 1 tick "
          "before its take.  With 2 ticks (the value before the refreshes were counted) "
          "l4_p4_s16 differed at 160.717", "measured on the pins"),
    Param("flash_ticks", 32, "ticks", "all 34 recordings: each flash phase is 32 ticks (on "
          "117588 or 118302 cycles, off 115074 or 115788: the key scan falls in 10 or 11 of "
          "them); period 0.5495 s, not 33 frames", "measured: 4,400 phases"),
    Param("flash_on_s", 32 * 11073 / 3 / NOMINAL_CLOCK_HZ, "s", "= flash_ticks x tick_lit_s",
          "derived"),
    Param("flash_off_s", 32 * 10821 / 3 / NOMINAL_CLOCK_HZ, "s", "= flash_ticks x tick_dark_s",
          "derived"),
    Param("scan_ticks", 3, "ticks", "all 34 recordings: R2, R1, R0 strobed once every 3 "
          "digit refreshes while waiting for a key", "measured"),
    Param("column_strobe_cycles", 156, "cycles at 425 kHz",
          "corpus pins (l4_p4_s16, 3451 key scans): R1 is strobed 156 cycles after R2 and R0 "
          "312 after (162 and 324 in 166 of them), so a key in column R1 or R0 closed that "
          "little after a scan's R2 strobe is seen by that scan", "measured on the pins"),
    Param("scan_edge_s", 0.0001, "s", "the game's key scans against the genuine's over the "
          "corpus's 1913 clicks (cleanroom/README.md): half within 0.06 ms, three in four "
          "within 0.13 ms; a key closed this close to its column's strobe may be seen by the "
          "scan on either side (decision key_scan_cycles, the nearer side likelier, evens at "
          "the strobe)", "measured on the pins"),
    Param("reel_edge_s", 0.0005, "s", "corpus: a reel turn's start after a picture with its "
          "own cue varies by 0.5 ms with nothing shown (the Death March's, 6.5-7.0 ms after "
          "the lamp: reel_after_cue_s); a start this close to the reel's 27 ms step may fall "
          "on its other side (decision reel_step_cycles; l1_p4_s177 239.895: the genuine's "
          "motor 0.08 ms after a step, the game's 0.30 ms before it, its reel a step ahead)",
          "measured"),
    Param("debounce_scans", 2, "scans", "l4_p4_s16 14.183 (K2 seen at 14.2048 and 14.2306, "
          "click 14.2314): a key is taken at the second scan that sees it; all recordings: "
          "click 26-52 ms after the press", "measured"),
    Param("click_after_scan_cycles", (654, 486, 342), "cycles at 425 kHz",
          "all 30 corpus recordings: from the key scan's R2 strobe to the click's first edge "
          "when it takes a key in column R0, R1 or R2 (1.54, 1.14 or 0.80 ms; 1031, 460 and "
          "373 clicks, within 30 cycles but for a few): the scan reaches the key's column "
          "later; the pass it ends is as long for every column (R0: 13098-13116 cycles dark, "
          "13350-13368 lit, = a pass + the click + 342 cycles)", "measured on the pins"),
    Param("text_before_scan_cycles", 10380, "cycles at 425 kHz", "corpus, on the pins: a "
          "prompt shown at once after a picture lights its text this long before the key "
          "loop's first scan (10370-10400 cycles: the 8 curse offers, 7.55-7.64 ms after the "
          "lamp goes dark, and 42 other prompts of l1_p1_s01, l1_p2_s29, l2_p1_s02, "
          "0.66-7.16 ms after it), and never before the lamp goes dark (3 at 0.0)",
          "measured on the pins"),
    Param("text_after_click_s", 0.0047, "s", "l4_p4_s16: click 14.2314 -> L2 14.2361, "
          "15.8329 -> L3 15.8376 (the next digit refresh after the click)", "measured"),
    Param("first_turn_after_tune_s", 0.00738, "s", "all 34 recordings: the first key scan "
          "of player 1's turn comes 15162-15738 cycles (36-37 ms) after the overture's last "
          "edge, one loop pass after the key loop begins; ' 1' (bit on) 12.6-20.8 ms after it; "
          "measured from the last note's decoded start, this pause puts the game's first scan "
          "on the genuine one (30 of 30 within 0.05 ms)", "measured on the pins"),
    Param("loop_after_click_cycles", dict(players=3600, count_first=5250, count_next=5112,
                                          curse=2916, curse_only=11190), "cycles at 425 kHz",
          "all 30 corpus recordings: from the scan that takes a key to the next prompt's first "
          "scan is a loop pass plus the click (13110 cycles dark, 13365 lit) in the level and "
          "player menus and the turn prompts, and longer where the tower does more before its "
          "next key loop: the first player-count prompt after level 1, 2 or 3 (15792-18300, "
          "22 recordings: the extra varies by 2,500; after level 4 none, 13338 lit and 13104 "
          "dark in all 10), the bazaar's first count after YES/BUY on "
          "'--' (18342-18378 dark, 18462-18648 lit: 35), each later count (18210-18270, "
          "18426-18618: 34), the next curse target (16002-16026: 5), the same target again "
          "when there is no other: one pass more than the menus (l1_p2_s05 356.63, l2_p2_s30 "
          "61.18 and 63.33: the first scan 25.9-26.1 ms later than at 150, and the flashing "
          "texts after it in phase; l1_p2_s121, l2_p2_s122, l3_p2_s155 conform with it)",
          "measured on the pins"),
    Param("click_alone_cycles", dict(repeat_first=-166, inventory_signal=-98,
                                     repeat_signal=183, stray=0), "cycles at 425 kHz",
          "corpus pins: where a key brings the click alone and the key loop goes on, its scans "
          "come this much later (sooner, negative) than the menus' one pass plus the click: "
          "REPEAT before the turn's first action 0.35-0.41 ms sooner (20), INVENTORY at the "
          "end-of-turn signal 0.17-0.23 ms sooner (31), REPEAT with nothing to repeat there "
          "0.40-0.47 ms later (9; one 0.88); a stray key's click (``stray_key``) as the "
          "menus' (chosen, no recording)", "measured on the pins"),
    Param("move_think_cycles", dict(other=(-1374, 1400), battle=(-1513, 622)), "cycles at 425 kHz",
          "the low ends reach a short MOVE of any time: the first MOVE after a set-up that did "
          "not repeat its step may skip that step (docs/draws.md, section 10: 9 such MOVEs, "
          "116-156 instructions sooner than the others), so each low end is the others' lowest "
          "(other -204, battle -396) less the longest step seen (156 instructions, 936 cycles), "
          "widened by a tenth of the span up to the highest (other +1,200, battle +480); before "
          "that: "
          "the range re-measured over the 112 development sessions and the 4 captures with it "
          "opened wide (each session resolved again): other -804..+1200 (the first MOVE of a "
          "game the soonest: l1_p1_s133 24.73, l1_p3_s125 34.43; level 4 late in a game the "
          "latest, l4_p1_s152 260.65), battle -936..+480 (first moves again: l1_p3_s189 25.98),"
          " widened by a tenth of the span each side; before that: "
          "corpus: after MOVE's click the safe move's beep comes 13.20-14.44 ms later (81, "
          "median 13.55), an outcome's reel 13.07-14.39 (127, median 13.45), its lamp on the "
          "card in place 13.30-13.78 (9), a battle's horn 16.52-18.13 (47, median 17.25): a "
          "hidden state decides how long the move takes.  This is the genuine's time less the "
          "game's (the medians): -162..+396 cycles, a battle's -312..+372, widened by a tenth "
          "of the span each side, a timing decision in 6-cycle steps (one instruction)",
          "measured"),
    Param("treasure_think_cycles", (-593, 617), "cycles at 425 kHz",
          "the range re-measured over the 112 development sessions and the 4 captures with it "
          "opened wide (each session resolved again): -492..+516 (378), widened by a tenth of "
          "the span each side; before that: "
          "corpus pins: after the GOLD total of a won battle or a tomb the next key loop's "
          "first scan comes 11112-11574 cycles after its lamp goes dark (78) and a treasure's "
          "reel 2.09-2.91 ms after it (40): the treasure the hidden state decides takes its "
          "time.  This is the genuine's less the game's (scan_after_picture_cycles' gold_found "
          "row, motor_after_picture_s' gold_found): -195..+267 cycles, widened by a tenth of "
          "the span each side, a timing decision in 6-cycle steps (one instruction)",
          "measured on the pins"),
    Param("menu_after_test_cycles", 89, "cycles at 425 kHz",
          "all 34 recordings: the level menu's key scans come this much later than a loop "
          "begun as the tower test's last lamp goes dark would scan (0.16-0.27 ms, 33 "
          "sessions' level menus)", "measured on the pins"),
    Param("riddle_think_cycles", (-286, 1204), "cycles at 425 kHz",
          "the range re-measured over the 112 development sessions and the 4 captures with it "
          "opened wide (each session resolved again): -162..+1080 (35), widened by a tenth of "
          "the span each side; before that: "
          "corpus: the riddle's first key picture comes after the tower's tune at a time that "
          "varies (11 riddles: its lamp on the card in place, or its reel, -0.28..+1.46 ms "
          "from the game's time, the tune's 0.44 s tail; the refusals' reel 442.038 ms after "
          "the tune, 22 of 22, does not vary): a hidden state decides it.  This is the "
          "genuine's time less the game's, -117..+621 cycles, widened by a tenth of the span "
          "each side, a timing decision in 6-cycle steps (one instruction)", "measured"),
    Param("haggle_think_cycles", (-228, 198), "cycles at 425 kHz",
          "the range re-measured over the 112 development sessions and the 4 captures with it "
          "opened wide (each session resolved again): -192..+162 (133), widened by a tenth of "
          "the span each side; before that: "
          "corpus: after HAGGLE's click a won haggle's lamp comes 16.25-16.97 ms later (29, "
          "median 16.59) and a refused one's reel 6.9-7.4 ms (14, median 7.2): a hidden state "
          "decides how long the haggle takes.  This is the genuine's time less the game's "
          "(haggled_after_click_s, haggle_refused_after_click_s), -145..+162 cycles, widened "
          "by a tenth of the span each side, a timing decision in 6-cycle steps", "measured"),
    Param("bazaar_think_cycles", (-523, 643), "cycles at 425 kHz",
          "the range re-measured over the 112 development sessions and the 4 captures with it "
          "opened wide (each session resolved again): -426..+546 (296), widened by a tenth of "
          "the span each side; before that: "
          "corpus: the reel to a bazaar's first offer starts after the cue 1.99 ms sooner to "
          "0.59 ms later than the game's own time (300 openings of the development sessions "
          "replayed with their decisions; 237 within 0.5 ms, more often sooner with every "
          "special owned: -1.28..+0.56 ms, 56 openings): a hidden state decides how long the "
          "bazaar takes to open (l4_p3_s20 358.07: 1.2 ms, across a 27 ms reel step), a timing "
          "decision in one-instruction steps", "measured"),
    Param("spoils_think_cycles", (-550, 436), "cycles at 425 kHz",
          "the range re-measured over the 112 development sessions and the 4 captures with it "
          "opened wide (each session resolved again): -468..+354 (296), widened by a tenth of "
          "the span each side; before that: "
          "corpus: after a won battle's last cue the reel to GOLD starts 449.925-451.704 ms "
          "after its last note (91 battles, median 450.885): a hidden state decides how long "
          "the spoils take.  This is the genuine's time less the game's (gold_after_battle_s), "
          "-457..+299 cycles, widened by a tenth of the span each side, a timing decision in "
          "6-cycle steps", "measured"),
    Param("players_setup_cycles", (-1540, 3976), "cycles at 425 kHz",
          "the set-up repeats a step of 124-148 instructions 0 to 4 times (docs/draws.md, section "
          "10): the range reaches one repetition more than the longest set-up seen, +2,628 + 148 "
          "instructions = +3,516, widened by a tenth of the span each side; before that: "
          "the range re-measured over the 112 development sessions and the 4 captures with it "
          "opened wide (each session resolved again): -1080..+2628 (83), widened by a tenth of "
          "the span each side; before that: "
          "corpus pins, the 22 games at levels 1-3: the first player-count prompt's key scans "
          "come 15792-18300 cycles after the scan that took the level (13086-13338 at level "
          "4): the extra set-up varies by some 3,000 cycles with nothing the tower has shown "
          "(l1_p3_s09 and l1_p4_s40 take YES/BUY at the same scan, 232 since power-on, and "
          "differ by 1,662), so a hidden state decides it.  loop_after_click_cycles' players "
          "row is the game's own value; this is the genuine's less the game's (the resolved "
          "values span -1291..+1755 over the 22), widened by a tenth of that span each side, "
          "a timing decision in 6-cycle steps (one instruction)", "measured on the pins"),
    Param("trill_tail_s", dict(picture=0.4482, picture_lamp=0.448935, end_signal=0.4457,
                               citadel_again=0.44351), "s",
          "corpus, on the pins: after the CITADEL trill's last edge the reel to the doubled "
          "WARRIOR starts 190752-190776 cycles later (8 visits); when no turn is needed its lamp "
          "lights at 191022 (3), 0.735 ms after the game's reel would start; with no bonus the "
          "end signal's first key scan comes 200484-200772 cycles after it (27): its key loop "
          "begins 2.5 ms before a picture's reel would; at "
          "the Citadel once the warriors are doubled, 199584-199812 (3: l4_p3_s20 88.1, 109.0, "
          "l4_p4_s24 268.8), 2.19 ms sooner (its first clicks within 0.1 ms once the trill "
          "before it waits for the rations to be counted, ration_count_cycles: all three had "
          "16 or more warriors; it was 1.41 ms, which made up for the trill 0.76 ms early)",
          "measured on the pins"),
    Param("sanctuary_bonus_cycles", 700, "cycles at 425 kHz",
          "corpus pins: a Sanctuary's bonus pictures come later than the Citadel's doubled "
          "warriors (above), by 510 and 558 cycles with the warriors' bonus alone (l3_p1_s37 "
          "220.9, l3_p3_s19 314.6), 846 with the food's alone (l2_p1_s02 419.4), 2214 with "
          "both (l2_p1_s26 305.1): about this much per bonus drawn", "measured on the pins"),
    Param("sanctuary_think_cycles", (-940, 2546), "cycles at 425 kHz",
          "the low end re-measured once ration_count_cycles moved the trill: l4_p1_s120 "
          "280.51 (a food bonus at the Citadel, 30 warriors) dates its FOOD reel at -649, "
          "where the range's old end, -590, left it 55 cycles early (and the median visit "
          "lies near +250), so -649..+2256 widened by a tenth of the span each side; before "
          "that: "
          "corpus, the 18 bonus visits of the development sessions (4 on the pins): a hidden "
          "state decides how long each bonus takes to draw, -330..+2256 cycles per bonus "
          "around sanctuary_bonus_cycles (measured with the range opened to +-2800: "
          "l1_p4_s145 205.19 2256, l3_p2_s107 106.80 2190, l2_p1_s118 383.49 1256 a bonus of "
          "3; the pins' 4 visits -190..+407), widened by a tenth of the span each side; the "
          "range and the median scale with the number of bonuses, a timing decision in "
          "6-cycle steps", "measured"),
    Param("turn_think_cycles", (-472, 924), "cycles at 425 kHz",
          "corpus pins, 750 turn changes of the 42 sessions with pins: the next player's key "
          "loop scans first 0.84 ms sooner to 1.92 ms later than the game's (5 % sooner than "
          "-0.12 ms, 5 % later than +0.31): a hidden state decides how long the turn change "
          "takes around next_player_after_sound_s, widened by a tenth of the span each side, "
          "a timing decision in 6-cycle steps (l1_p2_s105 415.01 and l3_p4_s179 109.91: a key "
          "a scan off without it)", "measured on the pins"),
    Param("next_player_after_sound_s", tuple(c / NOMINAL_CLOCK_HZ
                                              for c in (2489, 5894, 8737, 11591)), "s",
          "corpus, 553 turn changes measured on the pins: the next player's key loop begins "
          "after the end cue plus a pause that grows with the empty player slots skipped "
          "(of four): its first key scan comes 13740, 17358, 19986 or 22914 cycles (medians) "
          "after the cue's last edge for 0, 1, 2 or 3 slots skipped; the loop's first scan "
          "is one pass (3 ticks, 11073 cycles lit) after its start; the pauses are what "
          "puts the game's first scan on those medians after the cue as the game plays it "
          "(it starts 5.44 ms after the click, cleanroom/cues.py)", "measured on the pins"),
    Param("lamp_after_lamp_s", {"WARRIOR>FOOD": 0.001003, "FOOD>BEAST": 0.000593,
                                "SCOUT>HEALER": 0.000663, "SCOUT>GOLD": 0.001143,
                                "HEALER>GOLD": 0.00096, "GOLD KEY>SILVER KEY": 0.000635,
                                "SILVER KEY>BRASS KEY": 0.000607, "DRAGON>SWORD": 0.000113},
          "s", "development sessions: the next picture on the same card lights this long "
          "after the last one's lamp goes dark, by the pair: FOOD after WARRIOR (a "
          "Sanctuary's bonuses, INVENTORY) 1.002-1.003 ms (150 of 150); in INVENTORY BEAST "
          "after FOOD 0.593 ms (35 of 35), HEALER after SCOUT 0.663 (30 of 30), GOLD after "
          "HEALER 0.960 (30 of 30) and after SCOUT with no Healer 1.143 (5 of 5), the SILVER "
          "KEY after the GOLD KEY 0.635 (30 of 30), the BRASS KEY after the SILVER 0.607-0.608 "
          "(30 of 30); the SWORD after a DRAGON it slays 0.112-0.113 (24 of 24); a pair not "
          "listed lights as the last goes dark (the battle's BRIGANDS after WARRIORS has its "
          "own times: battle_pause_s)", "measured"),
    Param("scan_after_picture_cycles", dict(offer=10410, event=10450, warriors=10692,
                                            food=10674,
                                            gold=10566, inventory_gold=10662,
                                            gold_found=11307, key_won=10480,
                                            curse_offer=13380, cursed_gold=13158),
          "cycles at 425 kHz",
          "corpus, on the pins (561 key loops that begin as a picture's lamp goes dark): the "
          "first key scan comes this long after the lamp goes dark, with the display dark "
          "(252 cycles more when the prompt shows at once), by what the picture was: the food "
          "total 10656-10674 (3 Sanctuary bonuses: l2_p1_s02 424.34, l2_p1_s26 308.77, "
          "l2_p1_s34 338.59), a "
          "bazaar offer 10398-10422 (176), a picture without a number or an event 10434-10524 "
          "(LOST, KEY MISSING, BAZAAR CLOSED, SWORD, PEGASUS, the riddle's keys: 110), the "
          "warriors total 10686-10692 (76), the gold total after a purchase, a dragon or "
          "REPEAT 10542-10584 (85), INVENTORY's gold 10662 (32), the gold found in a won "
          "battle or a tomb 11307 (78, 11112-11574: it varies, as the battle's pauses do), "
          "a key won 10686-10716 (8); the WIZARD before the first curse offer 13344-13380 "
          "(13590-13626 lit: 10 offers; see ``curse_slot_cycles``), a cursed player's gold "
          "total after CURSED 13152-13164 (13272-13422 lit: 6); a plain pass is 10821",
          "measured on the pins"),
    Param("curse_slot_cycles", 2823, "cycles at 425 kHz",
          "corpus, on the pins: the first curse offer scans first 5646 cycles later when the "
          "tower passes over two empty player slots to find it (player 2 of 2 offered C1: "
          "l1_p2_s05 288.15, l1_p2_s29 346.33, 19026 cycles after WIZARD's lamp; the other 10 "
          "offers pass none), as the next player's turn does (``next_player_after_sound_s``): "
          "taken as this much per slot passed over, for the first offer and each NO/END to "
          "the next; the curser's own slot counts like an empty one (3 players, player 1 "
          "cursing: NO/END from C3 to C2 passes slots 4 and 1 and scans 2 slots later than a "
          "step from C2 to C3, l1_p3_s35 66.78, l3_p3_s11 344.77)", "measured on the pins"),
    Param("ration_count_cycles", dict(first=323, each=315), "cycles at 425 kHz",
          "development sessions, every action key at a turn's prompt: before anything the "
          "action shows the tower counts the force's rations, and each ration past the first "
          "(one per 15 warriors begun, rulebook: Rations Of Food) takes this much more: the "
          "first output after the click (the action's cue, reel or lamp, or the low-food "
          "warning) comes 323-331 cycles later than with 15 warriors or fewer for 2 rations "
          "(16-30 warriors: 65 actions of 16 level-4 sessions, e.g. l4_p1_s28 91.12, "
          "l4_p2_s188 141.88), 635-641 for 3 (5: l4_p1_s152 238.88, l4_p3_s20 354.62) and "
          "953 for 4 (6: l4_p1_s104 270.30-338.75), against -210..+7 for the 918 actions "
          "of forces eating one; a MOVE's, a riddle's and a bazaar's timing decisions had "
          "taken it up (move_think_cycles +288 median with 2 rations, +621 with 3, +1008 "
          "with 4).  A starving force counts one ration fewer: its Death March comes as "
          "with one ration with 2 (7 times in 3 sessions), 305-336 cycles later with 3 "
          "(l4_p1_s104 374.73, 385.57, l4_p1_s152 298.68), 636 with 4 (l4_p1_s152 "
          "274.93).  A tomb's creak has begun when the count runs: its first period lasts "
          "10.2 ms instead of 9.4 (98.4 Hz, "
          "creak_open_slow_start) with 2 rations, 10 tombs of 16-28 warriors, and none of the "
          "285 with 15 or fewer; with more rations each adds ``each`` to that period "
          "(creak_open_slow_start_2 to _6, no recording: no development tomb was opened "
          "without the warning by a force of 31 or more).  REPEAT and CLEAR at the turn's "
          "prompt, a click alone, count nothing: the next key's click as with one ration, 12 "
          "of 12 with 2-4 rations (l4_p1_s28 89.80, l4_p1_s104 314.42), and the action key "
          "after them counts", "measured"),
    Param("creak_close_after_creak_s", 0.0961, "s", "corpus: a deserted tomb's closing creak "
          "begins 96.0-96.7 ms after the opening creak's last click (9), where a horn begins "
          "100.2 ms after it (the opening cue's tail)", "measured"),
    Param("tomb_treasure_after_creak_s", dict(turn=0.00535, lamp=0.00574), "s",
          "corpus: after the opening creak's last click a tomb's battle horn starts 99.6-100.7 "
          "ms later (48: the creak's tail), its treasure's reel 104.6-106.5 ms later (16) or, "
          "with GOLD's card in place, the lamp 105.2-106.8 ms later (11): this much after the "
          "tail", "measured"),
    Param("power_on_scan_cycles", 10409, "cycles at 425 kHz",
          "all 30 corpus recordings, on the pins: after power-on the first key scan comes at "
          "cycle 10460 and the second 10770 later, then a dark pass (10821) each: the scans "
          "lie where a first one at 10409 would put them; the flash timer's first toggle "
          "(the '--' lit at cycle 115298) keeps 32 ticks' time", "measured on the pins"),
    Param("next_player_wrap_after_sound_s", 3080 / NOMINAL_CLOCK_HZ, "s",
          "corpus, on the pins: in a four-player game the turn passing from player 4 back to "
          "player 1 has its first key scan 1.30 ms (553 cycles) later after the end cue than "
          "a turn passing to the next slot (29 turn changes, 1.26-1.90 ms later but 1)",
          "measured on the pins"),
    Param("loop_lead_s", dict(beep=0.00091, creak_close=0.00198, sad=0.0008), "s",
          "corpus, on the pins: the key loop after a safe move's beep (73), after a "
          "deserted tomb's closing creak (9) and after the sad cue of a wrong key in the "
          "riddle (8) has its first scan this much sooner than one loop pass after the cue's "
          "decoded end (0.91 ms, sd 0.2; 1.98 ms, sd 0.01; 0.78-0.83 ms in 6, 0.24 in 2)",
          "measured on the pins"),
    Param("reel_after_click_s", 0.015, "s", "level4_bazaar 43.184->43.199", "measured"),
    Param("gold_lamp_after_buy_s", 0.016856, "s", "corpus: buying the SCOUT, the GOLD total on "
          "the card in place lights 16.856 ms after YES/BUY's click (3 of 3: l2_p1_s02 218.56, "
          "l2_p1_s26 227.73, l3_p1_s27 225.19)", "measured"),
    Param("repeat_after_click_s", dict(turn=0.00527, upper=0.00584, middle=0.00584,
                                       lower=0.00613), "s",
          "corpus: REPEAT at the end-of-turn signal starts the reel 5.26-5.56 ms after its "
          "click (12) or, with the card in place, lights the lamp 5.84 ms after it (upper, 9) "
          "or 6.13 ms (lower, 7); middle not seen, taken as upper", "measured"),
    Param("offer_repeat_after_click_s", 0.00983, "s", "corpus: REPEAT at the bazaar's '--' "
          "lights the offer's lamp again 9.81-9.83 ms after the click (10)", "measured"),
    Param("inventory_after_click_s", dict(turn=0.01193, lamp=0.01251), "s",
          "corpus: INVENTORY starts the reel to WARRIOR 11.91-11.94 ms after the click (36 of "
          "38), or lights its lamp 12.51-12.52 ms after it when the card is in place (7)",
          "measured"),
    Param("offer_after_click_s", dict(turn=0.01467, lamp=0.01474), "s",
          "corpus: NO/END at the bazaar's '--' shows the next offer: its lamp 14.74-14.80 ms "
          "after the click (55), the reel 14.67 ms after it when the card must turn (3)",
          "measured"),
    Param("offer_wrap_after_click_s", dict(turn=0.01618, lamp=0.01931), "s",
          "corpus: from the last offer back to the first (WARRIOR): its lamp 19.31 ms after "
          "the click (5, l4_p3_s20 210.99), the reel 16.18 ms after it (1)", "measured"),
    Param("haggled_after_click_s", 0.01659, "s", "corpus: a successful haggle lights the "
          "offer's lamp again 16.25-16.97 ms after HAGGLE's click (29)", "measured"),
    Param("haggle_refused_after_click_s", 0.0072, "s", "corpus: a refused haggle starts the "
          "reel to BAZAAR CLOSED 6.9-7.4 ms after the click (14); HAGGLE on food, where there "
          "is nothing to draw, 5.4 ms (9: closed_after_click_s)", "measured"),
    Param("unpaid_closed_after_click_s", 0.01195, "s", "corpus: YES/BUY for what the gold "
          "cannot pay (one more of a count, or a special item) turns the reel to BAZAAR "
          "CLOSED 11.80-12.13 ms after the click (7 of 7: l1_p4_s193 145.37, l2_p4_s194 "
          "243.40, l3_p1_s27 289.79, l3_p3_s143 276.55, l3_p3_s19 206.61, l3_p4_s163 347.53, "
          "l1_p2_s105 205.47); the game took the haggle's 5.4 ms, and l3_p3_s143's reel "
          "then reported its pictures two frames early", "measured"),
    Param("closed_after_click_s", 0.0054, "s", "corpus: HAGGLE on food -> the reel to "
          "BAZAAR CLOSED 5.4 ms after the click (9); level4_bazaar 69.310", "measured"),
    Param("action_after_warning_s", 0.43095, "s", "corpus: after the low-food warning or a "
          "starving force's Death March (sounded with the turn's first action key) the action's "
          "first output comes this long after the warning's last note plus the action's own "
          "time after a key click: BAZAAR, DARK TOWER, SANCTUARY/CITADEL 443.87-443.90 ms "
          "(their cues 12.92 ms after a click), FRONTIER 443.47 (12.52), INVENTORY's reel "
          "442.88 (11.93), MOVE's reel 444.4 (13.45), the tomb's creak 442.65 (its second "
          "period: the first is no note after a warning): 80 of 80 actions", "measured"),
    Param("starve_after_click_s", 0.014965, "s", "corpus: a starving force's Death March "
          "starts 14.47-16.46 ms after the action key's click (31 times; median 14.97)",
          "measured"),
    Param("starve_last_after_click_s", 0.009826, "s", "corpus: a solo force's last warrior "
          "starving: the reel turns to WARRIORS 9.83 ms after the action key's click, the "
          "Death March plays with it and 00 flashes (l3_p1_s119 417.38: 1 of 1)", "measured"),
    Param("starve_cycles", (-251, 1031), "cycles at 425 kHz",
          "the range re-measured over the 112 development sessions and the 4 captures with it "
          "opened wide (each session resolved again): -144..+924 (22), widened by a tenth of "
          "the span each side; before that: "
          "corpus: the starving Death "
          "March's start after the click varies over 14.47-16.46 ms with nothing shown "
          "(31 times): a hidden state decides it; the genuine's less starve_after_click_s, "
          "widened by a tenth of the span each side, a timing decision in 6-cycle steps",
          "measured"),
    Param("sound_after_click_s", 0.006, "s", "level_select 29.325->29.331", "measured"),
    Param("battle_pause_s", 1.6146, "s", "corpus, 88 battles: the first BRIGANDS lamp -> the "
          "first skirmish's lamp 3.21089 s when it is won (median of 59, sd 1.0 ms), 1.65 ms "
          "more when lost (skirmish_lost_extra_s); level4_riddle 67.910->69.522 (1.612) is one "
          "of them.  Where a battle's GOLD reel turn starts within a few ms of a 27 ms reel "
          "step the reel stops a step sooner or later as it falls: 22 of 107 such starts fall "
          "on the other side of a step than the genuine's (21 with the 3 ms shorter 1.612; 57 "
          "of the corpus's 884 reel stops a step off either way)", "measured"),
    Param("skirmish_gap_s", 0.479, "s", "corpus: a won skirmish's cue end -> the next WARRIORS "
          "lamp when that skirmish is won (232, median 0.47902, 0.4766-0.4810)", "measured"),
    Param("skirmish_lost_gap_s", 0.4794, "s", "corpus: a lost skirmish's cue end -> the next "
          "WARRIORS lamp when that skirmish is won (40, median 0.47938, 0.4769-0.4810; the "
          "next lost: 55, 0.48077, but for 4 at 0.4485)", "measured"),
    Param("skirmish_fatal_gap_s", 0.44849, "s", "corpus: a lost skirmish's cue end -> the "
          "Death March's WARRIORS lamp when the next skirmish is lost with two warriors left "
          "(l1_p3_s09 169.59, l1_p3_s35 387.99, l3_p3_s11 265.27, l3_p4_s15 368.25: 0.44849 "
          "in all 4), with no key scan between (the other skirmishes scan once for a retreat "
          "10-16 ms before their lamp)", "measured on the pins"),
    Param("final_horn_after_click_s", 0.005957, "s", "corpus: the Final Battle's horn starts "
          "5.957-5.958 ms after the click of YES/BUY on the riddle's right second key (8 of 8: "
          "level4_riddle 63.719, l4_p4_s16 201.964, l4_p1_s104 403.275, l4_p3_s112 162.956), "
          "where a MOVE's battle horn follows its click by 17.25 ms (cleanroom/cues.py)",
          "measured"),
    Param("skirmish_fatal_first_s", 1.55849, "s", "corpus: the battle's first BRIGANDS lamp "
          "goes dark -> the Death March's WARRIORS lamp when the first skirmish is lost with "
          "one or two warriors (l1_p2_s137 208.63, l2_p2_s106 107.11, l2_p3_s142 352.60: "
          "1.55849; l1_p2_s105 268.20 and 382.51: 1.5578, 1.5580), 56 ms before a won first "
          "skirmish's lamp and before the retreat scan a fight would have", "measured"),
    Param("skirmish_lost_extra_s", 0.0017, "s", "corpus: the lamp that shows a skirmish's "
          "result comes later when it is lost: after the battle's first BRIGANDS 3.21089 s "
          "(won, 59) or 3.21254 (lost, 29), after a won skirmish's cue 0.47902 (next won, 232) "
          "or 0.48101 (next lost, 15), after a lost one's 0.47938 (40) or 0.48077 (55); medians",
          "measured"),
    Param("skirmish_think_cycles", dict(won=(-1425, 1275), lost=(-1117, 1627)), "cycles at 425 kHz",
          "the range re-measured over the 112 development sessions and the 4 captures with it "
          "opened wide (each session resolved again): won -1200..+1050 (1166), lost -888..+1398"
          " (440), widened by a tenth of the span each side; before that: "
          "corpus pins, 456 skirmishes: between its retreat scan and its WARRIORS lamp the "
          "tower works a skirmish out in 4326-6210 cycles when it is won (292) and 5370-7602 "
          "when lost (68), whatever the numbers shown (the same 10 against 1 took 4698, 5748 "
          "and 6078): a hidden state decides it.  The game's pauses above are the medians; "
          "this is the genuine's time less the game's (game events: won -2462..+1961 us, "
          "lost -2131..+3236 us), a timing decision in 6-cycle steps (one instruction)",
          "measured on the pins"),
    Param("skirmish_picture_s", 1.5970, "s", "corpus: each skirmish's WARRIORS and BRIGANDS "
          "pictures are lit 1.5970 s (912 of 912), 0.7 ms longer than picture_s (the battle's "
          "first BRIGANDS: 1.5963 s, 96 of 96)", "measured"),
    Param("skirmish_cue_after_lamp_s", 0.0006, "s", "corpus: the won or lost cue starts "
          "0.56-0.59 ms after the BRIGANDS lamp goes dark (466 skirmishes)", "measured"),
    Param("gold_after_battle_s", 0.451, "s", "corpus: the last won skirmish's cue end -> the "
          "reel turning to GOLD (91 battles, 0.450-0.452)", "measured"),
    Param("victory_gap_s", 0.442, "s", "level4_riddle: last skirmish sound end -> VICTORY",
          "measured"),
    Param("key_after_click_s", 0.0057, "s", "level4_riddle 32.326->32.332 (next key)",
          "measured"),
    Param("key2_after_click_s", 0.0078, "s", "level4_riddle 60.977->60.984 (key 2 offer)",
          "measured"),
    Param("motor_after_picture_s", {"WARRIOR": 0.00066, "FOOD": 0.0008, "HEALER": 0.00196,
                                    "gold_found": 0.00248, "other": 0.00042,
                                    "FOOD>SCOUT": 0.00058, "BEAST>GOLD": 0.000648}, "s",
          "corpus: a reel turn that follows a picture starts this long after its lamp goes "
          "dark: WARRIOR 0.66 ms (60 of 60), FOOD 0.80 (33 of 37; 0.58 in 4), HEALER 1.96 "
          "(14 of 14), the GOLD found after a battle or in a tomb 2.09-2.91 (40, median 2.48, "
          "varying like the battle's pauses), other pictures (LOST, BEAST, a key, CURSED, "
          "INVENTORY's GOLD) 0.42 (68 of 74).  By the pair, in INVENTORY (development "
          "sessions): FOOD with SCOUT next (no Beast) 0.58 ms, 4 of 4 (l2_p1_s02 229.24, "
          "l2_p1_s26 279.11), where FOOD with GOLD next takes the 0.80 (80 of 81); BEAST with "
          "GOLD next (no Scout, no Healer) 0.648 ms, 5 of 5 (l1_p1_s149 268.26, l3_p4_s15 "
          "302.98), where BEAST with SCOUT next takes the 0.42 (18 of 18)", "measured"),
    Param("reel_after_cue_s", {"death_march": 0.0066, "dragon_slain": 0.0075},
          "s", "corpus: after a picture that plays one of these cues, the next reel turn starts "
          "this long after its lamp goes off (death march 38 pictures, 6.5-7.0 ms; dragon "
          "slain 5, 7-8 ms; the dragon's own: motor_after_dragon_s; after other pictures "
          "0-3 ms)", "measured"),
    Param("cue_after_lamp_s", 0.0019, "s", "level4_bazaar 69.310->69.312 (BAZAAR CLOSED, sad); "
          "a cue whose catalogue row (cleanroom/cues.py) has its own time after the lamp "
          "starts then instead", "measured"),
    Param("victory_tune_after_lamp_s", 0.001, "s", "level4_riddle 101.267->101.268",
          "measured"),
    Param("score_after_tune_s", 0.009, "s", "l4_p4_s16: the victory tune ends 234.520, the "
          "score is lit 234.529 in the running on phase; level4_riddle: tune end 106.051, the "
          "score waits for the flash timer's on toggle (106.150)", "measured on the pins"),
    Param("tower_test_lamp_s", (1.596480, 1.596466, 1.596325), "s", "all 34 recordings: the "
          "tower test lights the upper lamp 1.596480 s, the middle 1.596466 s and the lower "
          "1.596325 s (each the same to the microsecond in all 34)", "measured"),
    Param("curse_reel_after_click_s", {1: 0.0445, 2: 0.0379, 3: 0.0307}, "s",
          "corpus, all 12 curses: YES/BUY's click -> the reel turning to WARRIOR depends on "
          "how far the victim's number is after the curser's, counted round 4 ((victim - "
          "curser) mod 4): 1 -> 44.2-44.7 ms (6 curses, e.g. l2_p4_s14 128.85 P1 curses P2), "
          "2 -> 37.6-38.1 (4, l3_p4_s15 222.28 P1 curses P3), 3 -> 30.6-30.8 (2, l1_p2_s05 "
          "290.97 P2 curses P1)", "measured"),
    Param("tail_before_picture_s", {"battle_horn": 0.000394, "frontier": 0.0013,
                                    "dark_tower": -0.00196}, "s",
          "corpus, the game's replay against the genuine pins: the picture after these cues "
          "comes this much later than the cue's catalogue tail (cleanroom/cues.py) says: the "
          "battle horn -> BRIGANDS's reel 96 of 96 +0.394 ms; FRONTIER -> KEY MISSING 9 of 9 "
          "+1.30 ms; the DARK TOWER tune -> KEY MISSING without the keys 27 of 27 -1.96 to "
          "-2.00 ms (the tune's other paths, and the cues' key loops, keep the catalogue's "
          "tail)", "measured"),
    Param("motor_after_dragon_s", 0.01246, "s", "corpus: the reel turns on to WARRIOR "
          "12.30-12.81 ms after the DRAGON lamp goes dark, median 12.46 (28 dragons; e.g. "
          "l1_p1_s01 168.50, l1_p2_s05 170.08, l1_p4_s21 36.97)", "measured"),
    Param("picture_after_click_s", 0.01345, "s", "corpus: MOVE's reel starts 13.1-14.4 ms "
          "after the key click, median 13.45 (129 moves; l1_p1_s01 37.05, 270.15)", "measured"),
    Param("start_warriors", 10, "", "rulebook: The Object / score charts", "rulebook"),
    Param("start_gold", 30, "bags", "rulebook: score charts", "rulebook"),
    Param("start_food", 25, "rations", "rulebook: score charts", "rulebook"),
    Param("max_count", 99, "", "rulebook: Warriors, Rations Of Food (maximum 99)", "rulebook"),
    Param("gold_per_warrior", 6, "bags", "rulebook: Battle Treasures, gold", "rulebook"),
    Param("beast_carries", 50, "bags", "rulebook: Beast", "rulebook"),
    Param("food_per_15_warriors", 15, "warriors", "rulebook: Rations Of Food (1 per 15)",
          "rulebook"),
    Param("low_food_turns", 4, "turns", "rulebook: Low food warning ('4 or less turns of food "
          "left'), counting this turn: the warning sounds when the rations left after this "
          "turn's meal are fewer than 4 turns' worth (corpus: l2_p1_s26, FOOD 06 shown at "
          "277.55, then no warning at 297.30 with 4 rations left and the warning at 301.32 "
          "with 3; l2_p1_s02 348.60 none with 4, 365.73 with 3; l4_p3_s20 400.50, 40 warriors "
          "eating 3 a turn: the warning with 10 left, none the turn before with 13)",
          "rulebook; corpus"),
    Param("food_price", 1, "bags", "rulebook: Rations Of Food", "rulebook; level4_bazaar '01'"),
    Param("plague_warriors", 2, "", "rulebook: Plague Strikes", "rulebook"),
    Param("dragon_share", 4, "divisor", "rulebook: Dragon Attacks (1/4), of the gold and of "
          "the warriors; the tower takes the quarter digit by digit, a quarter "
          "of the tens' value plus a quarter of the units (corpus: cleanroom.game."
          "quarter_by_digits)",
          "rulebook; corpus (evidence rows)"),
    Param("dragon_hoard_start", dict(warriors=2, gold=6), "",
          "decided by evidence: the Dragon's hoard holds 2 warriors and 6 bags before its "
          "first attack and again after a sword has won it (corpus: every slaying, 5 of 5: "
          "l3_p1_s03 149.32 and l4_p3_s38 177.77 10 -> 12 warriors, 30 -> 36 bags with no "
          "attack before; l3_p1_s37 237.65 attacks took 3 and 14, the sword won 5 and 20; "
          "l4_p4_s39 166.32 and again 267.02); rulebook (Dragon Attacks) names no start",
          "corpus"),
    Param("curse_share", 4, "divisor", "rulebook: Cursed By A Wizard (1/4)", "rulebook"),
    Param("sanctuary_warriors_below", 4, "", "rulebook: Sanctuary (4 or less)", "rulebook"),
    Param("sanctuary_gold_below", 7, "bags", "rulebook: Sanctuary (7 or less)", "rulebook"),
    Param("sanctuary_food_below", 5, "rations", "rulebook: Sanctuary (5 or less)", "rulebook"),
    Param("citadel_double", (5, 24), "warriors", "rulebook: The Citadel (5 to 24)", "rulebook"),
    Param("tower_brigands", {1: (17, 32), 2: (33, 64), 3: (17, 64), 4: (16, 16)}, "",
          "rulebook: The 4 Game Play Levels; Level 4 (16)", "rulebook; level4_riddle '16'"),
    Param("level4_inventory", dict(warriors=10, gold=30, food=25, beast=1, scout=1, healer=1,
                                   sword=1, keys=3, frontiers=4), "",
          "rulebook: Level 4, Here Is What Has Been Preprogrammed (frontiers 4: chosen, "
          "so DARK TOWER is open at once as the rulebook's lesson needs)",
          "rulebook; level4 captures"),
    Param("level4_riddle", ("GOLD KEY", "SILVER KEY", "BRASS KEY"), "",
          "rulebook: Level 4 riddle", "rulebook; level4_riddle"),
    Param("key_order", ("BRASS KEY", "SILVER KEY", "GOLD KEY"), "",
          "rulebook: Three Magic Keys (brass, silver, gold)", "rulebook"),
    Param("riddle_offer_order", ("GOLD KEY", "SILVER KEY", "BRASS KEY"), "",
          "rulebook sample game step 10; level4_riddle: gold, silver, brass", "capture"),
    # --- chosen (the rulebook gives no number) --------------------------------------------
    Param("haggle_success", 0.72, "probability", "decided by evidence: 101 of 141 haggles "
          "of the development corpus succeeded (0.716, 95 % 0.637-0.784; was 0.67 from the "
          "first 30 sessions), which excludes the rulebook's 'approximately a 50/50 chance'",
          "corpus (evidence rows); level4_bazaar 4 of 5"),
    Param("warrior_price", (5, 8), "bags", "decided by evidence: the development corpus's "
          "first offers 5-8 in 321 visits (was chosen 4-10); rulebook sample game shows 5",
          "corpus (evidence rows); level4_bazaar shows 7 and 5"),
    Param("beast_price", (17, 24), "bags", "decided by evidence: the development corpus's "
          "first offers 17-24 in 37 visits, never 25 (was chosen 17-25); a haggled price "
          "goes lower (15 and 16 seen after haggles)", "corpus (evidence rows)"),
    Param("scout_price", (17, 25), "bags", "chosen; the development corpus's first offers "
          "17-24 in 11 visits, which allow 14-27", "corpus (evidence rows)"),
    Param("healer_price", (17, 25), "bags", "chosen; the development corpus's first offers "
          "18-23 in 6 visits, which allow 13-28", "corpus (evidence rows)"),
    Param("move_odds", dict(safe=0.30, battle=0.18, lost=0.195, plague=0.19, dragon=0.135),
          "probability", "decided by evidence: the development corpus's 969 moves: safe 291 "
          "(0.300), battle 178 (0.184), lost 188 (0.194), plague 186 (0.192), dragon 126 "
          "(0.130); one table for every level (the levels' counts differ by chance: "
          "chi-squared 15.6, 12 degrees of freedom, p = 0.21), rounded to lie in each "
          "level's interval (dragon: level 3's 38 of 216, 0.131-0.232; was safe 0.30, "
          "battle 0.18, lost 0.20, plague 0.20, dragon 0.12)",
          "corpus (evidence rows, per level)"),
    Param("tomb_odds", dict(deserted=0.14, battle=0.575, treasure=0.285), "probability",
          "decided by evidence: the development corpus's 303 tombs: deserted 43, battle 174, "
          "treasure 86 (was 0.11, 0.57, 0.32)", "corpus (evidence rows)"),
    Param("brigands_spread", {-2: 0.17, -1: 0.165, 0: 0.35, 1: 0.175, 2: 0.14},
          "probability of brigands - warriors", "decided by evidence: the brigands of a MOVE "
          "or TOMB/RUIN battle are the warriors' number plus -2 to +2 (development corpus: "
          "352 battles, every one within; a ratio range fits no split), 0 about twice as "
          "often as each other difference: with 3 or more warriors (none cut at 1 brigand) "
          "-2 came 58 times, -1 56, 0 119, +1 59, +2 46 of 338, the odds here (was uniform, "
          "which 0's 0.352, 95 % 0.303-0.404, excludes)", "corpus (evidence rows)"),
    Param("skirmish_win", ((0, 0.10), (0.5, 0.40), (1, 0.625), (2, 0.89), (4, 0.996)),
          "(ratio, probability)", "decided by evidence: the chance goes by steps of the force "
          "ratio: each row's chance holds from warriors = ratio x brigands up to the next "
          "row's ratio (cleanroom.game.skirmish_chance).  The development corpus's 1706 "
          "skirmishes (a multi-player last stand apart: min_warriors): w < b/2 won 5 of 51, "
          "b/2 <= w < b 145 of 365, b <= w < 2b 297 of 475, 2b <= w < 4b 282 of 316, w >= "
          "4b 499 of 499 (0.996, not 1: a loss there stays possible); within each step the "
          "share does not follow the ratio.  The smooth family w^k / (w^k + (c b)^k) (was "
          "k = 2, c = 0.8) fits worse at its best, k = 2.25, c = 0.925 (log-likelihood "
          "-700.8 against -683.7, BIC 1416.5 against 1404.6): even forces win 112 of 173 "
          "(0.574-0.715) where it gives 0.544, and w >= 4b 0.985",
          "corpus (evidence rows, by force ratio); level4_riddle 5 of 7"),
    Param("brigands_after_win", "halved, rounded down", "",
          "rulebook battle example 4 -> 2 -> 1 -> 0", "rulebook; level4_riddle 16-8-4-2-1-0"),
    Param("warriors_after_loss", 1, "warriors lost per lost skirmish",
          "chosen; rulebook battle example", "level4_riddle 10-9-8"),
    Param("battle_gold", (13, 20), "bags", "decided by evidence: gold won after a battle or "
          "found in a tomb; the development corpus's rises 13-20 in 146 battles and 48 tombs "
          "(was chosen 10-30)", "corpus (evidence rows)"),
    Param("treasure_odds", dict(none=0.19, key=0.66, pegasus=0.04, sword=0.05, wizard=0.06),
          "probability", "decided by evidence: the picture after a won battle's gold and "
          "after a tomb's, weights fitted (maximum likelihood) to the development corpus's "
          "314 battles and 86 tombs with the treasures each player could get (a key came in "
          "36 of 49 battles where one was missing, none in 169 of 265 where none was; was "
          "none 0.25, key 0.62, pegasus 0.035, sword 0.04, wizard 0.055)",
          "corpus (evidence rows)"),
    Param("sanctuary_bonus", dict(warriors=(5, 8), gold=(8, 14), food=(8, 20)), "",
          "decided by evidence for the gold: the development corpus's 4 bonuses of 9, 12, 13 "
          "and 13 bags, the span widened at each end by (max - min) / (n - 1), about one bag "
          "(was chosen 10-20); the warriors' chosen, inside its 9 bonuses 5-8; the food's "
          "chosen 10-20 and widened to 8 for the replays' bonuses of 9 (l2_p1_s34 334.1: 4 "
          "rations became 13), 12 and 16",
          "corpus (evidence rows); food no capture"),
    Param("retreat_loss", {1: 0.8, 2: 0.15, 3: 0.05}, "warriors (odds)", "chosen: 1 most "
          "often, 2 or 3 less (rulebook: a retreat loses 'at least one'; the Flash version: "
          "one more); every loss that leaves a warrior is an option, a retreat never takes "
          "the last warrior", "no capture"),
    Param("retreat_take_cycles", (0, 16000), "cycles at 425 kHz", "chosen: from the game's "
          "key scan that finds NO/END held to the take, at once or as late as the next "
          "pass's scan (a key loop takes a key at its second scan; a dark pass is 10880 "
          "cycles, the new key's 116 fewer; the game's scan lies about 9 ms after the pins' "
          "retreat scan) and the click's column lag (654 cycles for R0); the decision counts "
          "from the range's middle, the game's own value (battle.py ``_unknown_time``)",
          "no capture"),
    Param("retreat_at_first_scan", (0.5, 0.5), "odds (taken, the next scan)", "chosen: a "
          "key loop takes a key at the second scan that sees it closed (cleanroom/README.md, "
          "Key latency), and the battle's first skirmish scans twice, a pass apart, as a key "
          "loop's release pass does; the later skirmishes scan once each, so a retreat's "
          "NO/END first seen there is taken at once or only at the next skirmish's scan if "
          "still held (rulebook: hold NO/END 'until the battle ends').  Held at the scan "
          "before, it is taken.  No recording has a retreat", "no capture"),
    Param("dark_tower_unready", (0.6, 0.4), "odds (the sad cue, KEY MISSING)", "chosen: "
          "DARK TOWER with the three keys but without the last FRONTIER press plays the tune "
          "and then refuses, as without the keys (l3_p1_s03 182.17: the tune, then KEY "
          "MISSING with the sad cue); the rulebook (Frontier footnote) names only the sad "
          "cue, so the cue alone or the same KEY MISSING refusal; no recording has such a "
          "visit", "no capture"),
    Param("unready_sad_cycles", (-8000, 24000), "cycles at 425 kHz", "chosen: the sad cue "
          "alone after the tower's tune (``dark_tower_unready``) begins this much after the "
          "tune's catalogue tail ends, a duration a recording settles; the end signal then "
          "follows the cue as after a wrong key of the riddle (``loop_lead_s``)",
          "no capture"),
    Param("siege_after_retreat", (0.6, 0.4), "odds (the level's count, those left)",
          "chosen: after a Final Battle left by a retreat (or lost, in a multi-player game) "
          "the next siege faces the level's brigands again or as many as that battle left "
          "unbeaten (rulebook, The Final Battle: only the riddle is said to be asked again).  "
          "The corpus has no retreat, and its one siege after a lost Final Battle "
          "(l4_p2_s124) followed a battle without a won skirmish", "no capture"),
    Param("retreat_click", (0.7, 0.3), "odds (click, none)", "chosen: a key loop clicks "
          "when it takes a key, inside its scan (cleanroom/README.md, Key latency); whether "
          "the battle's scan does is not recorded", "no capture"),
    Param("retreat_lamp_cycles", (0, 4000), "cycles at 425 kHz", "chosen: from the take to "
          "the Death March's WARRIORS lamp; a lost battle's lamp comes with no scan or pause "
          "before it (``skirmish_fatal_gap_s``); counted from the range's middle, as "
          "``retreat_take_cycles``", "no capture"),
    Param("stray_key", (0.55, 0.45), "odds (ignored, click)", "chosen: a key the waiting "
          "prompt does not take (YES/BUY at a turn's prompt, say) is either not taken at all "
          "or taken at the second scan that sees it with a click and nothing else, the loop "
          "going on with the prompt flashing in its phase, as REPEAT or CLEAR with nothing "
          "to do are (``click_alone_cycles``); no recording has such a key", "no capture"),
    Param("min_warriors", dict(solo=0, multi=1), "warriors",
          "rulebook: A Battle With Brigands, IMPORTANT (a lost battle leaves 1 warrior in a "
          "multi-player game, none in a solo game, which ends it); chosen: the same floor for "
          "plague and starvation.  The development corpus: a multi-player force of 2 or 1 "
          "warriors never wins its skirmish (35 of 35 lost: the last stand rows); a solo "
          "force fights on (6 of 17 won at 2 or 1)", "rulebook; corpus (evidence rows)"),
    Param("score", (199, 4, 4), "points", "rulebook Scoring (few moves, few warriors): "
          "score = 199 - 4 x (the winner's turns + the warriors that began the Final "
          "Battle), within 0-99 (00: won without a score): 99 down to 25 turns and warriors "
          "together, 4 fewer for each one more.  Read off the 8 victories of the development "
          "sessions and captures (turns, warriors: score): l4_p1_s136 (14, 28: 31) and "
          "l4_p2_s140 (8, 28: 55) give 4 a turn, and a start of 87 + 28 x the warrior's "
          "weight; l4_p4_s16 (3, 19: 99) needs a weight of 2.67 (24/9) or more, l4_p1_s152 "
          "(16, 44: 00) 1.44 or more, l4_p1_s104 (25, 33: 00), l4_p3_s112 and l4_p3_s160 "
          "(1, 10: 99) and level4_riddle (3, 10: 99) any from 1.33; nothing recorded bounds "
          "it from above.  Every weight from 2.67 up fits all 8 (3 with a start of 171, 4 "
          "with 199, 6 with 255); the warriors weigh as much as a turn here, the one weight "
          "the recordings fix, which needs no second one (the rulebook names the two "
          "alike); it was 3 (171), the smallest whole number the bounds allow (request "
          "score_victories)",
          "corpus: 8 victories; the warriors' weight rests on a lower bound"),
]

PARAMS: dict[str, Param] = {p.name: p for p in _ROWS}


def param(name: str) -> Any:
    """Return the value of parameter ``name``."""
    return PARAMS[name].value


@dataclass(frozen=True)
class Sound:
    """A sound cue: notes ``(offset_s, freq_hz, dur_s)`` and the silence after it."""
    name: str
    notes: tuple
    tail_s: float
    source: str
    after_lamp_s: float | None = None   # when it starts after its picture's lamp, if known

    @property
    def length(self) -> float:
        """Return the cue's length in seconds, tail included."""
        off, _, dur = self.notes[-1]
        return off + dur + self.tail_s


def slower_first_period(notes: tuple, extra_s: float) -> tuple:
    """Return cue notes ``(freq_hz, dur_s, gap_after_s)`` of a falling sweep whose first
    period lasts ``extra_s`` longer: as the decoder reads a sweep, each note is two periods
    long and the next begins one period after it (cleanroom.cues, creak_open)."""
    period = 1 / notes[0][0] + extra_s
    return ((round(1 / period, 1), round(2 * period, 4), -round(period, 4)),) + notes[1:]


def _observed_sounds() -> list[Sound]:
    """Build the game's sound rows from the observed catalogue (cleanroom.cues)."""
    out = []
    for cue in CUES.values():
        rows, tail = sound_rows(cue.notes)
        session, t = cue.example
        out.append(Sound(cue.name, rows, tail,
                         f"cues.py: recorded in {session} at {t:.3f} s; {cue.count} times in "
                         f"{len(cue.sessions)} recordings; tail: {cue.tail}",
                         after_lamp_s=cue.after_lamp_s))
        for v in cue.variants:     # another recorded form, with the cue's tail
            rows, _ = sound_rows(v.notes)
            out.append(Sound(v.name, rows, tail, f"cues.py: {cue.name} as recorded in "
                             f"{v.example[0]} at {v.example[1]:.3f} s ({v.count} of "
                             f"{cue.count}): {v.why}"))
    # A tomb's creak with more rations to count than two: the slow start's first period
    # longer by the count of each more (params ``ration_count_cycles``; no recording).
    slow = next(v for v in CUES["creak_open"].variants if v.name == "creak_open_slow_start")
    _, tail = sound_rows(CUES["creak_open"].notes)
    for steps in CREAK_COUNTS[2:]:
        rows, _ = sound_rows(slower_first_period(slow.notes, (steps - 1) * param(
            "ration_count_cycles")["each"] / NOMINAL_CLOCK_HZ))
        out.append(Sound(creak_for_count(steps), rows, tail,
                         f"creak_open_slow_start with its first period {steps - 1} ration "
                         f"counts longer ({steps + 1} rations: "
                         f"{15 * steps + 1}-{min(99, 15 * steps + 15)} warriors; "
                         f"params ration_count_cycles), no recording"))
    # The CURSED picture plays the lost-skirmish notes; what follows it comes sooner.
    rows, _ = sound_rows(CUES["skirmish_lost"].notes)
    out.append(Sound("cursed", rows, 0.4415, "cues.py skirmish_lost notes with the CURSED picture "
                     "(11 times in the corpus), 0.49 ms after its lamp (10 of 10); tail: the "
                     "lamp goes off 441.5 ms after it (10 of 10, as after the Death March)",
                     after_lamp_s=0.000494))
    return out


_SOUNDS = _observed_sounds()

SOUNDS: dict[str, Sound] = {s.name: s for s in _SOUNDS}


def parameter_table() -> str:
    """Return the parameter and sound tables as aligned text (for the docs and the CLI)."""
    lines = [f"{'name':28} {'value':>28} {'unit':12} source / support"]
    for p in _ROWS:
        value = f"{p.value:.6g}" if isinstance(p.value, float) else str(p.value)
        if len(value) <= 28:
            lines.append(f"{p.name:28} {value:>28} {p.unit:12} {p.source} [{p.support}]")
        else:       # a table of values: shown whole on its own line, never cut
            lines.append(f"{p.name:28} {'(below)':>28} {p.unit:12} {p.source} "
                         f"[{p.support}]")
            lines.append(f"{'':28}   = {value}")
        for e in evidence(p.name):
            lines.append(f"{'':28}   corpus: {evidence_line(e)}")
    lines.append("")
    for s in _SOUNDS:
        lines.append(f"sound {s.name:16} {len(s.notes):2} notes {s.length:6.3f} s  {s.source}")
    return "\n".join(lines)


def _kind(p: Param) -> str:
    if p.name.endswith(("_s", "_hz", "_ticks", "_scans")):
        return "timing"
    if p.source.startswith(("chosen", "decided by evidence")) or \
            p.support.startswith("no capture") or p.name == "haggle_success":
        return "chosen"
    return "rule"


def parameter_markdown() -> str:
    """Return the parameter and sound tables as Markdown (the tables in cleanroom/README.md)."""
    def fmt(v: Any) -> str:
        return f"{v:.4g}" if isinstance(v, float) else str(v).replace("|", "/")

    out = []
    for title, kind in (("Chosen parameters (the rulebook gives no number)", "chosen"),
                        ("Rules with numbers from the rulebook", "rule"),
                        ("Timing measured in the shared captures", "timing")):
        out += [f"### {title}", "", "| name | value | unit | source | how well captures "
                "support it |", "|---|---|---|---|---|"]
        out += [f"| `{p.name}` | {fmt(p.value)} | {p.unit} | {p.source} | {p.support} |"
                for p in _ROWS if _kind(p) == kind]
        out.append("")
    out += ["### Sound cues", "", "| cue | notes | length (s) | source |", "|---|---|---|---|"]
    out += [f"| `{s.name}` | {len(s.notes)} | {s.length:.3f} | {s.source} |" for s in _SOUNDS]
    return "\n".join(out) + "\n"
