"""Hold every number the clean-room game uses, each with its source and how well it is supported.

Sources: "rulebook" = ../shared/reference/dark-tower-rulebook-1981.txt (section named);
"capture X" = the shared MAME capture X (events.jsonl), with what was measured; "chosen" = the
rulebook gives no number, so we chose one (the ``support`` column says whether any capture
constrains it).  ``towerlab conform --stats`` checks the chosen odds against recordings.

Times are seconds, frequencies Hz.  Sound cues are tuples of ``(offset_s, freq_hz, dur_s)``
from the cue's start, plus the silence after the last note (``tail_s``) before the game goes on.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Param", "PARAMS", "Sound", "SOUNDS", "param", "parameter_table",
           "parameter_markdown"]


@dataclass(frozen=True)
class Param:
    """One named parameter: value, unit, where it comes from, how well captures support it."""
    name: str
    value: Any
    unit: str
    source: str
    support: str


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
    Param("lamp_after_motor_s", 0.0008, "s", "level4_bazaar 29.0256->29.0263", "measured"),
    Param("motor_off_after_tick_s", 0.00055, "s", "level4_bazaar/riddle: sensor edge -> R9 off",
          "measured (tower_test 1.5 ms)"),
    Param("motor_after_click_s", 0.005, "s", "tower_test 3.0624->3.0672", "measured"),
    Param("reel_tick_s", 0.027, "s", "tms1400-facts.md §12.4 (MAME reel model)", "definition"),
    Param("picture_s", 1.5963, "s", "tower_test: each lamp 1.596 s; all captures", "measured"),
    Param("number_after_lamp_s", 0.046, "s", "all 34 recordings: the number is first driven "
          "0.046 s after its picture's lamp (1842 pictures; 5 at 0.054)", "measured"),
    Param("tick_lit_s", 11073 / 3 / 425000, "s", "all 34 recordings: the key-wait loop "
          "(one key scan + 3 digit refreshes) takes 11064-11082 cycles at 425 kHz while a digit "
          "is lit; one tick = one refresh", "measured: 61,000 loop passes"),
    Param("tick_dark_s", 10821 / 3 / 425000, "s", "all 34 recordings: 10812-10830 cycles per "
          "loop pass while the display is dark", "measured: 59,000 loop passes"),
    Param("tick_busy_s", 3440 / 425000, "s", "level4_bazaar 29.1-30.6 s ('07'), tower_test "
          "7.0-9.5 s ('88'): outside the key-wait loop a digit refresh (O7 toggle) takes "
          "3432-3450 cycles",
          "measured"),
    Param("tick_reel_s", 3829 / 425000, "s", "all 34 recordings: while the reel turns the "
          "flash timer ticks every 3829 cycles: with it and tick_busy_s the tower test's L1 "
          "is predicted within 24 ms (mean 7 ms) in every recording",
          "fitted over the 34 tower tests"),
    Param("flash_ticks", 32, "ticks", "all 34 recordings: each flash phase is 32 ticks (on "
          "117588 or 118302 cycles, off 115074 or 115788: the key scan falls in 10 or 11 of "
          "them); period 0.5495 s, not 33 frames", "measured: 4,400 phases"),
    Param("flash_on_s", 32 * 11073 / 3 / 425000, "s", "= flash_ticks x tick_lit_s",
          "derived"),
    Param("flash_off_s", 32 * 10821 / 3 / 425000, "s", "= flash_ticks x tick_dark_s",
          "derived"),
    Param("scan_ticks", 3, "ticks", "all 34 recordings: R2, R1, R0 strobed once every 3 "
          "digit refreshes while waiting for a key", "measured"),
    Param("debounce_scans", 2, "scans", "l4_p4_s16 14.183 (K2 seen at 14.2048 and 14.2306, "
          "click 14.2314): a key is taken at the second scan that sees it; all recordings: "
          "click 26-52 ms after the press", "measured"),
    Param("click_after_scan_s", 0.0008, "s", "l4_p4_s16: scan 14.23056 -> click 14.23137",
          "measured"),
    Param("text_after_click_s", 0.0047, "s", "l4_p4_s16: click 14.2314 -> L2 14.2361, "
          "15.8329 -> L3 15.8376 (the next digit refresh after the click)", "measured"),
    Param("prompt_after_picture_s", 0.095, "s", "level4_bazaar: '--' 0.09-0.12 s after lamp "
          "off (a re-phased flash; the genuine prompt takes the flash timer's running phase: "
          "0-0.28 s after the lamp, 230 prompts in the corpus)", "measured"),
    Param("end_signal_after_picture_s", 0.082, "s", "level4_bazaar 45.068->45.150 (re-phased; "
          "genuine: the running phase, 0-0.28 s)", "measured"),
    Param("count_after_click_s", 0.11, "s", "level4_bazaar: '01' 0.107 s, '02' 0.121 s "
          "(re-phased)", "measured"),
    Param("first_turn_after_tune_s", 0.0106, "s", "all 34 recordings: the first key scan "
          "of player 1's turn comes 15162-15738 cycles (36-37 ms) after the overture's last "
          "note, one loop pass after the key loop begins; ' 1' (bit on) 12.6-20.8 ms after it",
          "measured"),
    Param("next_player_after_sound_s", 0.025, "s", "all recordings, 557 turn changes: ' N' "
          "0.008-0.04 s after the end cue when the flash timer's bit is on, else at its next "
          "toggle (the timer does not tick while a tone sounds)", "measured"),
    Param("reel_after_click_s", 0.015, "s", "level4_bazaar 43.184->43.199", "measured"),
    Param("lamp_after_click_s", 0.015, "s", "level4_bazaar 31.731->31.745", "measured"),
    Param("sound_after_click_s", 0.006, "s", "level_select 29.325->29.331", "measured"),
    Param("tune_after_click_s", 0.013, "s", "level4_bazaar/riddle: bazaar and tower tunes",
          "measured"),
    Param("battle_pause_s", 1.612, "s", "level4_riddle 67.910->69.522", "measured"),
    Param("skirmish_gap_s", 0.482, "s", "level4_riddle: skirmish sound end -> next lamp",
          "measured"),
    Param("victory_gap_s", 0.442, "s", "level4_riddle: last skirmish sound end -> VICTORY",
          "measured"),
    Param("key_after_click_s", 0.0057, "s", "level4_riddle 32.326->32.332 (next key)",
          "measured"),
    Param("key2_after_click_s", 0.0078, "s", "level4_riddle 60.977->60.984 (key 2 offer)",
          "measured"),
    Param("cue_after_lamp_s", 0.0019, "s", "level4_bazaar 69.310->69.312 (BAZAAR CLOSED, sad)",
          "measured"),
    Param("end_signal_after_cue_s", 0.27, "s", "level4_bazaar 71.229->71.500 (re-phased)",
          "measured"),
    Param("victory_tune_after_lamp_s", 0.001, "s", "level4_riddle 101.267->101.268",
          "measured"),
    Param("score_after_tune_s", 0.099, "s", "level4_riddle 106.051->106.150", "measured"),
    Param("tower_test_lamp_s", 1.5963, "s", "tower_test", "measured"),
    # --- rules (rulebook) -----------------------------------------------------------------
    Param("start_warriors", 10, "", "rulebook: The Object / score charts", "rulebook"),
    Param("start_gold", 30, "bags", "rulebook: score charts", "rulebook"),
    Param("start_food", 25, "rations", "rulebook: score charts", "rulebook"),
    Param("max_count", 99, "", "rulebook: Warriors, Rations Of Food (maximum 99)", "rulebook"),
    Param("gold_per_warrior", 6, "bags", "rulebook: Battle Treasures, gold", "rulebook"),
    Param("beast_carries", 50, "bags", "rulebook: Beast", "rulebook"),
    Param("food_per_15_warriors", 15, "warriors", "rulebook: Rations Of Food (1 per 15)",
          "rulebook"),
    Param("low_food_turns", 4, "turns", "rulebook: Low food warning ('4 or less turns of food "
          "left'); chosen: counted after this turn's rations are eaten", "rulebook"),
    Param("food_price", 1, "bags", "rulebook: Rations Of Food", "rulebook; level4_bazaar '01'"),
    Param("plague_warriors", 2, "", "rulebook: Plague Strikes", "rulebook"),
    Param("dragon_share", 4, "divisor", "rulebook: Dragon Attacks (1/4)", "rulebook"),
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
    Param("haggle_success", 0.5, "probability", "rulebook: 'approximately a 50/50 chance'",
          "level4_bazaar: 4 of 5 haggles succeeded; 95 % interval 0.38-0.96 contains 0.5"),
    Param("warrior_price", (4, 10), "bags", "chosen; rulebook sample game shows 5",
          "level4_bazaar shows 7 and 5 (both inside)"),
    Param("beast_price", (17, 25), "bags", "chosen", "no capture"),
    Param("scout_price", (17, 25), "bags", "chosen", "no capture"),
    Param("healer_price", (17, 25), "bags", "chosen", "no capture"),
    Param("move_odds", dict(safe=0.50, battle=0.20, lost=0.10, plague=0.10, dragon=0.10),
          "probability", "chosen", "no capture"),
    Param("tomb_odds", dict(deserted=0.35, battle=0.40, treasure=0.25), "probability",
          "chosen", "no capture"),
    Param("brigands_per_warrior", (0.5, 1.5), "brigands/warrior",
          "chosen: battle brigands = warriors x uniform range, at least 1", "no capture"),
    Param("skirmish_win", "warriors / (warriors + brigands)", "probability", "chosen",
          "level4_riddle: 5 of 7 skirmishes won (95 % interval 0.36-0.92); the model's mean "
          "over those skirmishes, 0.62, is inside"),
    Param("brigands_after_win", "halved, rounded down", "",
          "rulebook battle example 4 -> 2 -> 1 -> 0", "rulebook; level4_riddle 16-8-4-2-1-0"),
    Param("warriors_after_loss", 1, "warriors lost per lost skirmish",
          "chosen; rulebook battle example", "level4_riddle 10-9-8"),
    Param("battle_gold", (10, 30), "bags", "chosen: gold won after a battle (the rulebook "
          "says 'usually'; we always give some) or found in a tomb", "no capture"),
    Param("treasure_odds", dict(none=0.4, key=0.25, pegasus=0.1, sword=0.1, wizard=0.15),
          "probability", "chosen: extra treasure after a won battle's gold", "no capture"),
    Param("tomb_treasure_odds", dict(gold=0.5, key=0.2, pegasus=0.1, sword=0.1, wizard=0.1),
          "probability", "chosen: which one of the 5 treasures a tomb or ruin gives (rulebook "
          "Tomb/Ruin: 'one of the 5 treasures'); impossible ones are left out", "no capture"),
    Param("sanctuary_bonus", dict(warriors=(5, 8), gold=(10, 20), food=(10, 20)), "",
          "chosen", "no capture"),
    Param("retreat_loss", 1, "warriors", "chosen: exactly 1 (rulebook: a retreat loses 'at "
          "least one'); a retreat never takes the last warrior", "no capture"),
    Param("min_warriors", dict(solo=0, multi=1), "warriors",
          "rulebook: A Battle With Brigands, IMPORTANT (a lost battle leaves 1 warrior in a "
          "multi-player game, none in a solo game, which ends it); chosen: the same floor for "
          "plague and starvation", "rulebook; no capture"),
    Param("score", "min(99, max(0, 140 - 2 x turns - warriors at siege)), 0 if turns > 70; "
          "warriors at siege = those that begin the Final Battle",
          "points", "chosen; rulebook Scoring (few moves, few warriors)",
          "level4_riddle: 99 after 3 turns with 10 warriors"),
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

    @property
    def length(self) -> float:
        """Return the cue's length in seconds, tail included."""
        off, _, dur = self.notes[-1]
        return off + dur + self.tail_s


_SOUNDS = [
    Sound("overture", ((0.0, 220.0, 0.441), (0.4706, 165.5, 0.4169), (0.9171, 220.0, 0.1227),
                       (1.0436, 165.5, 0.1631), (1.2105, 220.0, 0.1591), (1.3992, 256.6, 0.378),
                       (1.8076, 220.0, 0.3182), (2.1555, 256.6, 0.1052),
                       (2.2644, 220.0, 0.1227), (2.3909, 260.4, 0.1344),
                       (2.5549, 324.9, 0.397), (2.9823, 165.5, 0.3202),
                       (3.3321, 220.0, 0.1591), (3.495, 165.5, 0.1631),
                       (3.6619, 220.0, 0.1591), (3.8506, 274.5, 0.9324)), 0.0,
          "capture level_select 29.331 (also the victory tune, level4_riddle 101.268)"),
    Sound("bazaar", ((0.0, 203.5, 0.403), (0.3981, 247.6, 0.3312), (0.7252, 297.6, 0.2722),
                     (0.9975, 310.7, 0.2607), (1.255, 297.6, 0.2755), (1.5306, 247.6, 0.3312),
                     (1.8578, 297.6, 0.2722), (2.13, 310.7, 0.2607),
                     (2.3875, 297.6, 0.5443)), 0.469, "capture level4_bazaar 25.339"),
    Sound("dark_tower", ((0.0, 224.2, 0.1472), (0.2061, 247.7, 0.1332),
                         (0.3982, 278.9, 0.1183), (0.5755, 247.7, 0.1332),
                         (0.7676, 224.2, 0.1472), (0.9744, 247.7, 0.1332),
                         (1.1666, 278.9, 0.0896), (1.5097, 224.2, 0.3614),
                         (1.93, 224.2, 0.7896)), 0.444, "capture level4_riddle 25.338"),
    Sound("end_turn", ((0.0, 278.9, 0.1183), (0.1184, 544.9, 0.1193),
                       (0.2379, 1041.7, 0.1238)), 0.0, "capture level4_bazaar 46.156"),
    Sound("sad", ((0.0, 737.8, 0.0881), (0.0882, 544.9, 0.1193), (0.2076, 431.9, 0.1505),
                  (0.3582, 357.7, 0.1817), (0.54, 305.3, 0.2129), (0.753, 266.3, 0.2441),
                  (0.9972, 236.0, 0.2796), (1.2727, 212.0, 0.3113),
                  (1.5793, 192.5, 0.3377)), 0.0,
          "captures level4_bazaar 69.312 (bazaar closed), level4_riddle 35.016 (wrong key)"),
    Sound("battle_horn", ((0.0, 520.8, 0.1555), (0.1556, 787.0, 0.3189),
                          (0.5317, 520.8, 0.1555), (0.6873, 787.0, 0.3189)), 0.442,
          "capture level4_riddle 63.719"),
    Sound("skirmish_won", ((0.0, 276.7, 0.2927), (0.2929, 407.1, 0.4348)), 0.482,
          "capture level4_riddle 72.717"),
    Sound("skirmish_lost", ((0.0, 278.9, 0.5773), (0.5774, 203.5, 0.6338)), 0.482,
          "capture level4_riddle 77.121"),
    # Not in any capture: chosen from the rulebook's descriptions, built from observed notes.
    Sound("safe", ((0.0, 737.8, 0.0447), (0.12, 737.8, 0.0447)), 0.3,
          "chosen: rulebook 'a short beep sound'"),
    Sound("death_march", ((0.0, 203.5, 0.45), (0.5, 203.5, 0.3), (0.85, 203.5, 0.15),
                          (1.05, 203.5, 0.6), (1.7, 236.0, 0.3), (2.05, 224.2, 0.3),
                          (2.4, 203.5, 0.6)), 0.3, "chosen: rulebook 'Death March'"),
    Sound("dragon", tuple((i * 0.06, 1041.7 if i % 2 else 787.0, 0.05) for i in range(12)),
          0.3, "chosen: rulebook 'high-pitched screeching sound'"),
    Sound("creak_open", tuple((i * 0.13, f, 0.12) for i, f in
                              enumerate((192.5, 212.0, 236.0, 266.3, 305.3))), 0.3,
          "chosen: rulebook 'creaking door'"),
    Sound("creak_close", tuple((i * 0.13, f, 0.12) for i, f in
                               enumerate((305.3, 266.3, 236.0, 212.0, 192.5))), 0.3,
          "chosen: rulebook 'creaking door shut'"),
    Sound("trill", tuple((i * 0.05, 1041.7 if i % 2 else 787.0, 0.045) for i in range(16)),
          0.3, "chosen: rulebook 'high-pitched trill'"),
    Sound("frontier", ((0.0, 520.8, 0.1555), (0.1556, 787.0, 0.1555), (0.3112, 1041.7, 0.4)),
          0.3, "chosen: rulebook 'triumphant musical sound'"),
    Sound("low_food", tuple(sorted([(i * 0.35, 165.5, 0.15) for i in range(3)] +
                                   [(i * 0.35 + 0.15, 192.5, 0.15) for i in range(3)])), 0.3,
          "chosen: rulebook '3 low-pitched whoops'"),
    Sound("pegasus", ((0.0, 520.8, 0.15), (0.16, 431.9, 0.15), (0.32, 520.8, 0.15),
                      (0.48, 787.0, 0.3)), 0.3, "chosen: rulebook 'lilting musical tune'"),
    Sound("siren", tuple((i * 0.06, 787.0 if i % 2 else 544.9, 0.055) for i in range(20)),
          0.3, "chosen: rulebook CLEAR 'many rapid beeps which sound like a siren'"),
]

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
    lines.append("")
    for s in _SOUNDS:
        lines.append(f"sound {s.name:16} {len(s.notes):2} notes {s.length:6.3f} s  {s.source}")
    return "\n".join(lines)


def _kind(p: Param) -> str:
    if p.name.endswith(("_s", "_hz", "_ticks", "_scans")):
        return "timing"
    if p.source.startswith("chosen") or p.support.startswith("no capture") or \
            p.name == "haggle_success":
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
