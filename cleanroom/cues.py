"""Name every sound cue the genuine tower plays, as observed in the recordings.

The catalogue (``CUES``, name -> ``Cue``) was found by ``cleanroom.cuefind`` over the 34
recordings in ``tests/data/corpus`` and ``tests/data/captures`` (the genuine tower run as a
black box; nothing here comes from its program): tones grouped into runs, equal runs clustered,
each cluster named by when it plays (the key pressed before it, the picture lit, what the
display showed around it).  ``docs/cues.md`` is the same catalogue as a table.

Each cue holds

- ``notes``: ``(freq_hz, dur_s, gap_after_s)`` per note, copied from one recorded instance
  (``example`` = recording, start time in seconds).  ``freq_hz`` None is a click (a lone rise
  of the speaker line, ``dur_s`` 0.0); ``gap_after_s`` is the time from the note's end to the
  next note's start as the decoder reports it (about one period at a legato seam, negative
  where a note's pulses-over-frequency length runs past the next note's first rise).  The last
  note's ``gap_after_s`` is the *tail*: the silence the game keeps after the cue before its
  flow goes on (``tail`` says where that number comes from; it is never compared, as the
  next thing after a cue depends on the flow).
- ``when``: the context rule, in words: what makes the tower play it.
- ``after_click_s`` / ``after_lamp_s``: the median time (seconds) from the key click's start,
  or from the picture lamp lighting, to the cue's first note, where the recordings show the
  cue that way often enough (``cuefind.lead_times``); None otherwise.
- ``sessions``: recording -> how many times it plays there (counted by ``cuefind``; the test
  suite recounts and compares).
- ``variants``: other note lists the same cue is recorded as (the tomb's creak starts its
  sweep differently in 5 of 84 instances), each with its own sound name, an example and how
  often it is seen.

``cleanroom.params.SOUNDS`` is built from this table (each variant under its own name, with
its cue's tail), so ``Engine.sound(name)`` plays these notes; ``sound_rows`` converts a cue
into its ``(offset_s, freq_hz, dur_s)`` rows.

Regenerate and check: ``towerlab conform --cues tests/data/corpus/* tests/data/captures/*``
names every recorded run with this catalogue, prints each cue's count per recording and lists
every run that is no cue (with its notes as a literal to paste in here and its context).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

__all__ = ["Cue", "Variant", "CUES", "catalogue", "sound_rows", "describe_notes", "cues_markdown"]


@dataclass(frozen=True)
class Variant:
    """Another recorded form of a cue: its sound name, notes, an example, how many of the
    cue's instances have this form, and why it differs."""
    name: str
    notes: tuple
    example: tuple[str, float]
    count: int
    why: str


@dataclass(frozen=True)
class Cue:
    """One named cue: notes ``(freq_hz, dur_s, gap_after_s)``, when it plays, where it is seen."""
    name: str
    notes: tuple
    when: str
    tail: str
    example: tuple[str, float]
    after_click_s: float | None = None
    after_lamp_s: float | None = None
    sessions: Mapping[str, int] = field(default_factory=dict)
    variants: tuple[Variant, ...] = ()

    @property
    def forms(self) -> tuple[tuple, ...]:
        """Return every recorded form of the cue, ``notes`` first."""
        return (self.notes,) + tuple(v.notes for v in self.variants)

    @property
    def count(self) -> int:
        """Return how many times the recordings play the cue."""
        return sum(self.sessions.values())


def sound_rows(notes: tuple) -> tuple[tuple[tuple[float, float | None, float], ...], float]:
    """Return ``notes`` as ``(offset_s, freq_hz, dur_s)`` rows from the cue's start and the tail
    (seconds), the form ``cleanroom.params.Sound`` holds."""
    rows = []
    t = 0.0
    for freq, dur, gap in notes:
        rows.append((round(t, 4), freq, dur))
        t += dur + gap
    return tuple(rows), notes[-1][2]


def catalogue() -> dict[str, tuple[tuple, ...]]:
    """Return cue name -> every recorded form of its notes (what ``cuefind`` matches runs with)."""
    return {c.name: c.forms for c in _CUES}


_CUES = [
    Cue('click',
        (
            (431.9, 0.0046, 0.0),
        ),
        when=('the key click: every key the game reads, 26-50 ms after the chip sees it, before'
              ' whatever the key starts'),
        tail="not a pause of its own: the key's flow goes on",
        example=('l1_p1_s01', 4.711402),
        after_click_s=None, after_lamp_s=None,
        sessions={
            "l1_p1_s01": 58, "l1_p2_s05": 65, "l1_p2_s29": 65, "l1_p3_s09": 54, "l1_p3_s17": 53,
            "l1_p3_s35": 54, "l1_p4_s21": 55, "l1_p4_s40": 55, "l2_p1_s02": 88, "l2_p1_s26": 88,
            "l2_p2_s06": 85, "l2_p2_s33": 85, "l2_p3_s10": 75, "l2_p4_s14": 46, "l2_p4_s22": 70,
            "l3_p1_s03": 47, "l3_p1_s27": 65, "l3_p1_s37": 50, "l3_p2_s31": 54, "l3_p3_s11": 68,
            "l3_p3_s19": 57, "l3_p4_s15": 75, "l4_p1_s04": 53, "l4_p2_s08": 44, "l4_p2_s32": 47,
            "l4_p3_s20": 74, "l4_p3_s38": 60, "l4_p4_s16": 46, "l4_p4_s24": 64, "l4_p4_s39": 64,
            "level4_bazaar": 21, "level4_riddle": 18, "level_select": 12, "tower_test": 1},
    ),
    Cue('beep',
        (
            (737.8, 0.0447, 0.0),
        ),
        when=('a picture is shown: 0.4 ms after its lamp lights (a number, if any, follows '
              '30-40 ms later and both stay 1.6 s); also the safe MOVE, with no picture, 6-20 '
              'ms (median 14) after the key click, then the end-of-turn signal; and each of the'
              " tower test's three lamps"),
        tail="the lamp's 1.6 s is the flow's own wait",
        example=('l1_p1_s01', 8.183384),
        after_click_s=0.01364, after_lamp_s=0.00041,
        sessions={
            "l1_p1_s01": 46, "l1_p2_s05": 73, "l1_p2_s29": 71, "l1_p3_s09": 74, "l1_p3_s17": 73,
            "l1_p3_s35": 85, "l1_p4_s21": 53, "l1_p4_s40": 77, "l2_p1_s02": 79, "l2_p1_s26": 81,
            "l2_p2_s06": 62, "l2_p2_s33": 53, "l2_p3_s10": 63, "l2_p4_s14": 50, "l2_p4_s22": 89,
            "l3_p1_s03": 65, "l3_p1_s27": 65, "l3_p1_s37": 83, "l3_p2_s31": 33, "l3_p3_s11": 61,
            "l3_p3_s19": 77, "l3_p4_s15": 92, "l4_p1_s04": 60, "l4_p2_s08": 67, "l4_p2_s32": 67,
            "l4_p3_s20": 109, "l4_p3_s38": 115, "l4_p4_s16": 47, "l4_p4_s24": 88,
            "l4_p4_s39": 50, "level4_bazaar": 13, "level4_riddle": 25, "level_select": 3,
            "tower_test": 3},
    ),
    Cue('end_turn',
        (
            (278.9, 0.1183, 0.0001), (544.9, 0.1193, 0.0002), (1041.7, 0.1238, 0.0),
        ),
        when=("NO/END ends the turn: 5.4 ms after the key click; the next player's number "
              "flashes 0-30 ms after it ends (the flash timer's phase)"),
        tail="the next player's number follows at once",
        example=('l1_p1_s01', 25.707732),
        after_click_s=0.00544, after_lamp_s=None,
        sessions={
            "l1_p1_s01": 19, "l1_p2_s05": 23, "l1_p2_s29": 21, "l1_p3_s09": 20, "l1_p3_s17": 16,
            "l1_p3_s35": 16, "l1_p4_s21": 12, "l1_p4_s40": 17, "l2_p1_s02": 22, "l2_p1_s26": 27,
            "l2_p2_s06": 29, "l2_p2_s33": 29, "l2_p3_s10": 25, "l2_p4_s14": 15, "l2_p4_s22": 25,
            "l3_p1_s03": 14, "l3_p1_s27": 19, "l3_p1_s37": 19, "l3_p2_s31": 14, "l3_p3_s11": 20,
            "l3_p3_s19": 22, "l3_p4_s15": 17, "l4_p1_s04": 13, "l4_p2_s08": 12, "l4_p2_s32": 11,
            "l4_p3_s20": 20, "l4_p3_s38": 18, "l4_p4_s16": 8, "l4_p4_s24": 16, "l4_p4_s39": 14,
            "level4_bazaar": 2, "level4_riddle": 2},
    ),
    Cue('overture',
        (
            (220.0, 0.441, 0.0296), (165.5, 0.4169, 0.0296), (220.0, 0.1227, 0.0038),
            (165.5, 0.1631, 0.0038), (220.0, 0.1591, 0.0296), (256.6, 0.378, 0.0304),
            (220.0, 0.3182, 0.0297), (256.6, 0.1052, 0.0037), (220.0, 0.1227, 0.0038),
            (260.4, 0.1344, 0.0296), (324.9, 0.397, 0.0304), (165.5, 0.3202, 0.0296),
            (220.0, 0.1591, 0.0038), (165.5, 0.1631, 0.0038), (220.0, 0.1591, 0.0296),
            (274.5, 0.9324, 0.0),
        ),
        when=('the player count is chosen with YES/BUY, 6.0 ms after the key click (the game '
              "starts; player 1's number flashes after it), and the victory: 1.0 ms after the "
              'VICTORY lamp, the score flashing after it'),
        tail='shared capture level_select: the turn prompt follows at once',
        example=('l1_p1_s01', 15.538734),
        after_click_s=0.00597, after_lamp_s=None,
        sessions={
            "l1_p1_s01": 1, "l1_p2_s05": 1, "l1_p2_s29": 1, "l1_p3_s09": 1, "l1_p3_s17": 1,
            "l1_p3_s35": 1, "l1_p4_s21": 1, "l1_p4_s40": 1, "l2_p1_s02": 1, "l2_p1_s26": 1,
            "l2_p2_s06": 1, "l2_p2_s33": 1, "l2_p3_s10": 1, "l2_p4_s14": 1, "l2_p4_s22": 1,
            "l3_p1_s03": 1, "l3_p1_s27": 1, "l3_p1_s37": 1, "l3_p2_s31": 1, "l3_p3_s11": 1,
            "l3_p3_s19": 1, "l3_p4_s15": 1, "l4_p1_s04": 1, "l4_p2_s08": 1, "l4_p2_s32": 1,
            "l4_p3_s20": 1, "l4_p3_s38": 1, "l4_p4_s16": 2, "l4_p4_s24": 1, "l4_p4_s39": 1,
            "level4_bazaar": 1, "level4_riddle": 2, "level_select": 1},
    ),
    Cue('bazaar',
        (
            (203.5, 0.403, -0.0049), (247.6, 0.3312, -0.0041), (297.6, 0.2722, 0.0001),
            (310.7, 0.2607, -0.0032), (297.6, 0.2755, 0.0001), (247.6, 0.3312, -0.004),
            (297.6, 0.2722, 0.0), (310.7, 0.2607, -0.0032), (297.6, 0.5443, 0.469),
        ),
        when=("BAZAAR, 12.9 ms after the key click; the reel then turns to the first offer's "
              'picture (beep and price)'),
        tail='corpus: the reel starts 0.47 s after the tune (75 of 93)',
        example=('l1_p1_s01', 27.400367),
        after_click_s=0.01292, after_lamp_s=None,
        sessions={
            "l1_p1_s01": 3, "l1_p2_s05": 1, "l1_p2_s29": 3, "l1_p3_s09": 3, "l1_p3_s17": 3,
            "l1_p3_s35": 3, "l1_p4_s21": 5, "l1_p4_s40": 3, "l2_p1_s02": 8, "l2_p1_s26": 6,
            "l2_p2_s06": 5, "l2_p2_s33": 4, "l2_p3_s10": 5, "l2_p4_s14": 2, "l2_p4_s22": 2,
            "l3_p1_s03": 1, "l3_p1_s27": 4, "l3_p2_s31": 3, "l3_p3_s11": 2, "l3_p3_s19": 1,
            "l3_p4_s15": 5, "l4_p1_s04": 1, "l4_p2_s08": 2, "l4_p2_s32": 1, "l4_p3_s20": 5,
            "l4_p3_s38": 3, "l4_p4_s16": 1, "l4_p4_s24": 3, "l4_p4_s39": 3, "level4_bazaar": 2},
    ),
    Cue('battle_horn',
        (
            (520.8, 0.1555, 0.0001), (787.0, 0.3189, 0.0572), (520.8, 0.1555, 0.0001),
            (787.0, 0.3189, 0.442),
        ),
        when=("a battle begins: MOVE into a battle (17 ms after the key click), a tomb's battle"
              ' (0.1 s after creak_open), the Final Battle (6 ms after YES/BUY on the right '
              'last key); the reel then turns to BRIGANDS and their count'),
        tail='corpus: the reel starts 0.44 s after it (97 of 97)',
        example=('l1_p1_s01', 181.13536),
        after_click_s=0.01725, after_lamp_s=None,
        sessions={
            "l1_p1_s01": 2, "l1_p2_s05": 4, "l1_p2_s29": 4, "l1_p3_s09": 5, "l1_p3_s17": 5,
            "l1_p3_s35": 5, "l1_p4_s21": 2, "l1_p4_s40": 4, "l2_p1_s02": 3, "l2_p1_s26": 2,
            "l2_p2_s06": 2, "l2_p2_s33": 1, "l2_p3_s10": 3, "l2_p4_s14": 3, "l2_p4_s22": 6,
            "l3_p1_s03": 4, "l3_p1_s27": 4, "l3_p1_s37": 5, "l3_p2_s31": 1, "l3_p3_s11": 3,
            "l3_p3_s19": 5, "l3_p4_s15": 4, "l4_p1_s04": 3, "l4_p2_s08": 3, "l4_p2_s32": 2,
            "l4_p3_s20": 3, "l4_p3_s38": 2, "l4_p4_s16": 2, "l4_p4_s24": 4, "level4_riddle": 1},
    ),
    Cue('skirmish_won',
        (
            (276.7, 0.2927, 0.0002), (407.1, 0.4348, 0.482),
        ),
        when=('a skirmish is won: 0.6 ms after the BRIGANDS lamp goes off (each skirmish shows '
              'WARRIORS and BRIGANDS with their counts, 1.6 s each, then its cue); the next '
              "skirmish's WARRIORS lamp lights 0.48 s after the cue"),
        tail='corpus: the next lamp 0.48 s after it (268 of 361)',
        example=('l1_p1_s01', 104.093468),
        after_click_s=None, after_lamp_s=None,
        sessions={
            "l1_p1_s01": 7, "l1_p2_s05": 14, "l1_p2_s29": 16, "l1_p3_s09": 14, "l1_p3_s17": 17,
            "l1_p3_s35": 16, "l1_p4_s21": 8, "l1_p4_s40": 15, "l2_p1_s02": 9, "l2_p1_s26": 7,
            "l2_p2_s06": 8, "l2_p2_s33": 4, "l2_p3_s10": 11, "l2_p4_s14": 12, "l2_p4_s22": 23,
            "l3_p1_s03": 16, "l3_p1_s27": 12, "l3_p1_s37": 18, "l3_p2_s31": 4, "l3_p3_s11": 7,
            "l3_p3_s19": 19, "l3_p4_s15": 14, "l4_p1_s04": 12, "l4_p2_s08": 13, "l4_p2_s32": 8,
            "l4_p3_s20": 16, "l4_p3_s38": 9, "l4_p4_s16": 10, "l4_p4_s24": 17,
            "level4_riddle": 5},
    ),
    Cue('skirmish_lost',
        (
            (278.9, 0.5773, 0.0001), (203.5, 0.6338, 0.482),
        ),
        when=("a skirmish is lost (as skirmish_won); the same notes are the CURSED picture's "
              "'negative musical signal' (11 times, lamp lit 2 ms before)"),
        tail='corpus: the next lamp 0.48 s after it (98 of 113; 0.44 s after CURSED)',
        example=('l1_p2_s05', 303.535614),
        after_click_s=None, after_lamp_s=None,
        sessions={
            "l1_p2_s05": 2, "l1_p2_s29": 3, "l1_p3_s09": 8, "l1_p3_s17": 3, "l1_p3_s35": 9,
            "l1_p4_s21": 3, "l1_p4_s40": 6, "l2_p1_s26": 5, "l2_p2_s06": 4, "l2_p3_s10": 1,
            "l2_p4_s14": 2, "l2_p4_s22": 5, "l3_p1_s27": 3, "l3_p1_s37": 4, "l3_p2_s31": 2,
            "l3_p3_s11": 7, "l3_p3_s19": 7, "l3_p4_s15": 8, "l4_p1_s04": 3, "l4_p2_s08": 1,
            "l4_p2_s32": 5, "l4_p3_s20": 9, "l4_p3_s38": 3, "l4_p4_s16": 1, "l4_p4_s24": 7,
            "level4_riddle": 2},
    ),
    Cue('death_march',
        (
            (201.2, 0.2435, 0.0227), (201.2, 0.2435, 0.0227), (201.2, 0.0845, 0.0227),
            (201.2, 0.482, 0.0238), (244.1, 0.2048, -0.0041), (233.0, 0.2103, 0.0227),
            (232.9, 0.2147, -0.0043), (201.2, 0.2435, 0.0227), (198.4, 0.494, 0.0002),
            (201.2, 0.2435, 0.4415),
        ),
        when=('the PLAGUE picture (1.3 ms after its lamp), and a lost battle or a retreat (with'
              ' the WARRIORS picture); the lamp goes off 0.44 s after the cue'),
        tail='corpus: the lamp goes off 441.5 ms after it (42 of 42)',
        example=('l1_p1_s01', 69.014419),
        after_click_s=None, after_lamp_s=0.00126,
        sessions={
            "l1_p1_s01": 2, "l1_p2_s05": 2, "l1_p2_s29": 1, "l1_p3_s09": 3, "l1_p3_s17": 2,
            "l1_p3_s35": 2, "l1_p4_s21": 2, "l1_p4_s40": 1, "l2_p1_s02": 2, "l2_p1_s26": 2,
            "l2_p2_s06": 3, "l2_p2_s33": 4, "l2_p3_s10": 3, "l2_p4_s14": 1, "l3_p1_s27": 3,
            "l3_p1_s37": 2, "l3_p3_s11": 5, "l3_p4_s15": 2},
    ),
    Cue('sad',
        (
            (737.8, 0.0881, 0.0001), (544.9, 0.1193, 0.0001), (431.9, 0.1505, 0.0001),
            (357.7, 0.1817, 0.0001), (305.3, 0.2129, 0.0001), (266.3, 0.2441, 0.0001),
            (236.0, 0.2796, -0.0042), (212.0, 0.3113, -0.0046), (192.5, 0.3377, 0.0),
        ),
        when=('the LOST, KEY MISSING and BAZAAR CLOSED pictures (1.9 ms after the lamp, which '
              'goes off as the cue ends), and with no picture a refused haggle or a wrong key '
              'in the riddle of the keys (7-16 ms after the key click)'),
        tail='corpus: the lamp goes off as it ends (96 of 106)',
        example=('l1_p1_s01', 142.913962),
        after_click_s=0.00692, after_lamp_s=0.00188,
        sessions={
            "l1_p1_s01": 3, "l1_p2_s05": 4, "l1_p2_s29": 6, "l1_p3_s09": 5, "l1_p3_s17": 2,
            "l1_p3_s35": 2, "l1_p4_s21": 2, "l1_p4_s40": 1, "l2_p1_s02": 4, "l2_p1_s26": 3,
            "l2_p2_s06": 7, "l2_p2_s33": 3, "l2_p3_s10": 4, "l2_p4_s14": 3, "l2_p4_s22": 8,
            "l3_p1_s03": 3, "l3_p1_s27": 4, "l3_p1_s37": 2, "l3_p2_s31": 7, "l3_p3_s11": 7,
            "l3_p3_s19": 7, "l3_p4_s15": 1, "l4_p1_s04": 1, "l4_p2_s08": 1, "l4_p2_s32": 1,
            "l4_p3_s20": 3, "l4_p3_s38": 1, "l4_p4_s16": 3, "l4_p4_s24": 2, "l4_p4_s39": 3,
            "level4_bazaar": 1, "level4_riddle": 2},
    ),
    Cue('dragon',
        (
            (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0002), (1864.0, 0.0048, 0.0001),
            (1041.7, 0.0221, 0.0002), (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0001),
            (1864.0, 0.0048, 0.0002), (1041.7, 0.0221, 0.0001), (1864.0, 0.0048, 0.0001),
            (1041.7, 0.0221, 0.0015), (1864.0, 0.0048, 0.0002), (1041.7, 0.0221, 0.0001),
            (1864.0, 0.0048, 0.0002), (1041.7, 0.0221, 0.0001), (1864.0, 0.0048, 0.0001),
            (1041.7, 0.0221, 0.0002), (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0001),
            (1864.0, 0.0048, 0.0002), (1041.7, 0.0221, 0.0015), (1864.0, 0.0048, 0.0001),
            (1041.7, 0.0221, 0.0002), (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0001),
            (1864.0, 0.0048, 0.0002), (1041.7, 0.0221, 0.0001), (1864.0, 0.0048, 0.0001),
            (1041.7, 0.0221, 0.0002), (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0015),
            (1864.0, 0.0048, 0.0002), (1041.7, 0.0221, 0.0001), (1864.0, 0.0048, 0.0001),
            (1041.7, 0.0221, 0.0002), (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0001),
            (1864.0, 0.0048, 0.0002), (1041.7, 0.0221, 0.0001), (1864.0, 0.0048, 0.0002),
            (1041.7, 0.0221, 0.0014), (1864.0, 0.0048, 0.0002), (1041.7, 0.0221, 0.0001),
            (1864.0, 0.0048, 0.0002), (1041.7, 0.0221, 0.0001), (1864.0, 0.0048, 0.0001),
            (1041.7, 0.0221, 0.0002), (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0002),
            (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0015), (1864.0, 0.0048, 0.0001),
            (1041.7, 0.0221, 0.0002), (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0001),
            (1864.0, 0.0048, 0.0002), (1041.7, 0.0221, 0.0001), (1864.0, 0.0048, 0.0002),
            (1041.7, 0.0221, 0.0001), (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0015),
            (1864.0, 0.0048, 0.0002), (1041.7, 0.0221, 0.0001), (1864.0, 0.0048, 0.0001),
            (1041.7, 0.0221, 0.0002), (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0002),
            (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0001), (1864.0, 0.0048, 0.0002),
            (1041.7, 0.0221, 0.0014), (1864.0, 0.0048, 0.0002), (1041.7, 0.0221, 0.0001),
            (1864.0, 0.0048, 0.0002), (1041.7, 0.0221, 0.0001), (1864.0, 0.0048, 0.0001),
            (1041.7, 0.0221, 0.0002), (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0002),
            (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0),
        ),
        when=('the DRAGON picture (1.5 ms after its lamp, which goes off as the cue ends): the '
              'dragon takes its share; the WARRIOR and GOLD totals follow'),
        tail='corpus: the lamp goes off as it ends',
        example=('l1_p1_s01', 169.724645),
        after_click_s=None, after_lamp_s=0.00154,
        sessions={
            "l1_p1_s01": 1, "l1_p2_s05": 1, "l1_p2_s29": 1, "l1_p3_s09": 2, "l1_p3_s17": 1,
            "l1_p3_s35": 1, "l1_p4_s21": 1, "l1_p4_s40": 2, "l2_p1_s02": 1, "l2_p1_s26": 2,
            "l2_p2_s06": 1, "l2_p3_s10": 2, "l2_p4_s14": 1, "l2_p4_s22": 2, "l3_p1_s27": 3,
            "l3_p1_s37": 3, "l3_p3_s11": 1, "l3_p3_s19": 2},
    ),
    Cue('dragon_slain',
        (
            (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0002), (1864.0, 0.0048, 0.0001),
            (1041.7, 0.0221, 0.0002), (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0001),
            (1864.0, 0.0048, 0.0002), (1041.7, 0.0221, 0.0001), (1864.0, 0.0048, 0.0001),
            (1041.7, 0.0221, 0.0015), (1864.0, 0.0048, 0.0002), (1041.7, 0.0221, 0.0001),
            (1864.0, 0.0048, 0.0002), (1041.7, 0.0221, 0.0001), (1864.0, 0.0048, 0.0001),
            (1041.7, 0.0221, 0.0002), (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0001),
            (1864.0, 0.0048, 0.0002), (1041.7, 0.0221, 0.0015), (1864.0, 0.0048, 0.0001),
            (1041.7, 0.0221, 0.0002), (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0001),
            (1864.0, 0.0048, 0.0002), (1041.7, 0.0221, 0.0001), (1864.0, 0.0048, 0.0001),
            (1041.7, 0.0221, 0.0002), (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0015),
            (1864.0, 0.0048, 0.0002), (1041.7, 0.0221, 0.0001), (1864.0, 0.0048, 0.0001),
            (1041.7, 0.0221, 0.0002), (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0001),
            (1864.0, 0.0048, 0.0002), (1041.7, 0.0221, 0.0001), (1864.0, 0.0048, 0.0002),
            (1041.7, 0.0221, 0.0015), (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0001),
            (1864.0, 0.0048, 0.0002), (1041.7, 0.0221, 0.0001), (1864.0, 0.0048, 0.0001),
            (1041.7, 0.0221, 0.0002), (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0002),
            (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0015), (1864.0, 0.0048, 0.0001),
            (1041.7, 0.0221, 0.0002), (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0001),
            (1864.0, 0.0048, 0.0002), (1041.7, 0.0221, 0.0001), (1864.0, 0.0048, 0.0002),
            (1041.7, 0.0221, 0.0001), (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0015),
            (1864.0, 0.0048, 0.0002), (1041.7, 0.0221, 0.0001), (1864.0, 0.0048, 0.0001),
            (1041.7, 0.0221, 0.0002), (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0002),
            (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0001), (1864.0, 0.0048, 0.0002),
            (1041.7, 0.0221, 0.0014), (1864.0, 0.0048, 0.0002), (1041.7, 0.0221, 0.0001),
            (1864.0, 0.0048, 0.0002), (1041.7, 0.0221, 0.0001), (1864.0, 0.0048, 0.0001),
            (1041.7, 0.0221, 0.0002), (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0002),
            (1864.0, 0.0048, 0.0001), (1041.7, 0.0221, 0.0014), (708.3, 0.0325, -0.0015),
            (643.3, 0.0155, 0.0002), (544.9, 0.0422, -0.0018), (505.6, 0.0198, 0.0001),
            (442.7, 0.052, -0.0023), (412.1, 0.0243, -0.0), (368.9, 0.0623, -0.0026),
            (350.5, 0.0285, 0.0001), (316.2, 0.0727, -0.0031), (302.6, 0.0331, 0.0011),
            (278.9, 0.0825, -0.0036), (269.2, 0.0409, -0.0037), (247.7, 0.0929, -0.0041),
            (238.6, 0.0461, -0.0042), (224.2, 0.1026, -0.0044), (216.7, 0.0508, -0.0047),
            (203.5, 0.113, -0.0049), (197.4, 0.0557, -0.005), (185.9, 0.1721, 0.0009),
            (170.7, 0.293, -0.0058), (161.2, 0.1613, -0.0062), (157.3, 0.1716, -0.0064),
            (150.1, 1.0195, 0.0),
        ),
        when=("the DRAGON picture when the player owns the sword: the dragon's notes, then a "
              "falling glide while the SWORD lamp is lit (from 1.096 s to the cue's end); the "
              "hoard's totals follow"),
        tail='corpus: the SWORD lamp goes off as it ends',
        example=('l3_p1_s03', 149.364089),
        after_click_s=None, after_lamp_s=0.00154,
        sessions={
            "l3_p1_s03": 1, "l3_p1_s37": 1, "l4_p3_s38": 1, "l4_p4_s39": 2},
    ),
    Cue('pegasus',
        (
            (258.5, 0.0193, 0.0002), (290.3, 0.0413, 0.0002), (310.7, 0.0515, 0.0001),
            (354.2, 0.0649, 0.0002), (380.8, 0.0709, 0.0001), (454.1, 0.0771, 0.0001),
            (498.8, 0.0762, 0.0001), (632.4, 0.0727, 0.0001), (722.8, 0.0678, 0.0001),
            (1041.7, 0.0547, 0.0007), (1311.7, 0.0465, 0.0001), (2083.3, 0.0326, 0.0002),
            (2213.5, 0.0325, 0.0001), (2529.8, 0.0312, 0.0),
        ),
        when=('the PEGASUS picture as a treasure (1.0 ms after its lamp, which goes off as the '
              'cue ends)'),
        tail='corpus: the lamp goes off as it ends',
        example=('l1_p1_s01', 204.473087),
        after_click_s=None, after_lamp_s=0.00099,
        sessions={
            "l1_p1_s01": 1, "l1_p2_s29": 1, "l1_p3_s09": 1, "l1_p4_s40": 1, "l2_p1_s02": 1,
            "l3_p1_s03": 1, "l4_p3_s20": 1, "l4_p4_s24": 2},
    ),
    Cue('creak_open',
        (
            (106.5, 0.0188, -0.0094), (79.9, 0.025, -0.0125), (73.4, 0.0272, -0.0136),
            (67.9, 0.0294, -0.0146), (63.2, 0.0317, -0.0159), (59.1, 0.0339, -0.017),
            (55.4, 0.0361, -0.018), (52.2, 0.0383, -0.0192), (49.4, 0.0405, -0.0202),
            (46.8, 0.0427, -0.0214), (44.5, 0.0449, -0.0224), (42.4, 0.0472, -0.0236),
            (40.5, 0.0494, 0.0011), (None, 0.0, 0.0269), (None, 0.0, 0.028),
            (None, 0.0, 0.0291), (None, 0.0, 0.0302), (None, 0.0, 0.0313),
            (None, 0.0, 0.0325), (None, 0.0, 0.0335), (None, 0.0, 0.0346),
            (None, 0.0, 0.0358), (None, 0.0, 0.0369), (None, 0.0, 0.0379),
            (None, 0.0, 0.0391), (None, 0.0, 0.0401), (None, 0.0, 0.0413),
            (None, 0.0, 0.0424), (None, 0.0, 0.0435), (None, 0.0, 0.0446),
            (None, 0.0, 0.0457), (None, 0.0, 0.0469), (None, 0.0, 0.0479),
            (None, 0.0, 0.049), (None, 0.0, 0.0502), (None, 0.0, 0.0512),
            (None, 0.0, 0.0523), (None, 0.0, 0.0535), (None, 0.0, 0.0545),
            (None, 0.0, 0.0557), (None, 0.0, 0.0568), (None, 0.0, 0.0578),
            (None, 0.0, 0.059), (None, 0.0, 0.0601), (None, 0.0, 0.0612),
            (None, 0.0, 0.0623), (None, 0.0, 0.0634), (None, 0.0, 0.0646),
            (None, 0.0, 0.0656), (None, 0.0, 0.0667), (None, 0.0, 0.0679),
            (None, 0.0, 0.0689), (None, 0.0, 0.0701), (None, 0.0, 0.0711),
            (None, 0.0, 0.0723), (None, 0.0, 0.0734), (None, 0.0, 0.0744),
            (None, 0.0, 0.0756), (None, 0.0, 0.0767), (None, 0.0, 0.0778),
            (None, 0.0, 0.0789), (None, 0.0, 0.08), (None, 0.0, 0.0811),
            (None, 0.0, 0.0823), (None, 0.0, 0.0833), (None, 0.0, 0.0844),
            (None, 0.0, 0.0856), (None, 0.0, 0.0866), (None, 0.0, 0.0877),
            (None, 0.0, 0.0889), (None, 0.0, 0.09), (None, 0.0, 0.0911),
            (None, 0.0, 0.0921), (None, 0.0, 0.0933), (None, 0.0, 0.1),
        ),
        when=('TOMB/RUIN, 2.3 ms after the key click (the door creaks open); 0.1 s later the '
              "battle horn, creak_close, or the reel turns to the treasure's picture"),
        tail='corpus: the next cue 0.10 s after it',
        example=('l1_p2_s05', 96.924936),
        after_click_s=0.00232, after_lamp_s=None,
        sessions={
            "l1_p1_s01": 2, "l1_p2_s05": 3, "l1_p2_s29": 1, "l1_p3_s09": 3, "l1_p3_s17": 4,
            "l1_p3_s35": 5, "l1_p4_s21": 1, "l2_p1_s02": 3, "l2_p1_s26": 1, "l2_p2_s06": 1,
            "l2_p2_s33": 4, "l2_p3_s10": 5, "l2_p4_s14": 2, "l2_p4_s22": 6, "l3_p1_s03": 3,
            "l3_p1_s27": 3, "l3_p1_s37": 7, "l3_p2_s31": 1, "l3_p3_s11": 2, "l3_p3_s19": 4,
            "l3_p4_s15": 5, "l4_p1_s04": 3, "l4_p2_s08": 2, "l4_p2_s32": 2, "l4_p3_s20": 3,
            "l4_p3_s38": 2, "l4_p4_s16": 1, "l4_p4_s24": 4, "l4_p4_s39": 1},
        variants=(
            Variant('creak_open_slow_start', (
                (98.4, 0.0203, -0.0101), (79.9, 0.025, -0.0125), (73.4, 0.0272, -0.0136),
                (67.9, 0.0294, -0.0147), (63.2, 0.0317, -0.0158), (59.1, 0.0339, -0.017),
                (55.4, 0.0361, -0.0181), (52.2, 0.0383, -0.0191), (49.4, 0.0405, -0.0202),
                (46.8, 0.0427, -0.0214), (44.5, 0.0449, -0.0224), (42.4, 0.0472, -0.0236),
                (40.5, 0.0494, 0.0011), (None, 0.0, 0.0269), (None, 0.0, 0.0279),
                (None, 0.0, 0.0292), (None, 0.0, 0.0302), (None, 0.0, 0.0313),
                (None, 0.0, 0.0325), (None, 0.0, 0.0335), (None, 0.0, 0.0346),
                (None, 0.0, 0.0358), (None, 0.0, 0.0368), (None, 0.0, 0.038),
                (None, 0.0, 0.0391), (None, 0.0, 0.0401), (None, 0.0, 0.0413),
                (None, 0.0, 0.0424), (None, 0.0, 0.0435), (None, 0.0, 0.0446),
                (None, 0.0, 0.0457), (None, 0.0, 0.0468), (None, 0.0, 0.048),
                (None, 0.0, 0.049), (None, 0.0, 0.0501), (None, 0.0, 0.0513),
                (None, 0.0, 0.0523), (None, 0.0, 0.0535), (None, 0.0, 0.0545),
                (None, 0.0, 0.0557), (None, 0.0, 0.0568), (None, 0.0, 0.0578),
                (None, 0.0, 0.059), (None, 0.0, 0.0601), (None, 0.0, 0.0612),
                (None, 0.0, 0.0623), (None, 0.0, 0.0634), (None, 0.0, 0.0646),
                (None, 0.0, 0.0656), (None, 0.0, 0.0667), (None, 0.0, 0.0679),
                (None, 0.0, 0.0689), (None, 0.0, 0.07), (None, 0.0, 0.0712),
                (None, 0.0, 0.0723), (None, 0.0, 0.0733), (None, 0.0, 0.0745),
                (None, 0.0, 0.0756), (None, 0.0, 0.0767), (None, 0.0, 0.0778),
                (None, 0.0, 0.0789), (None, 0.0, 0.08), (None, 0.0, 0.0811),
                (None, 0.0, 0.0822), (None, 0.0, 0.0834), (None, 0.0, 0.0844),
                (None, 0.0, 0.0855), (None, 0.0, 0.0867), (None, 0.0, 0.0877),
                (None, 0.0, 0.0889), (None, 0.0, 0.09), (None, 0.0, 0.091),
                (None, 0.0, 0.0922), (None, 0.0, 0.0933), (None, 0.0, 0.1007),
            ),
                    example=('l4_p3_s20', 114.159972), count=3,
                    why=("the falling sweep's first period lasts 10.2 ms instead of 9.4 ms (the"
                         ' pins show it), so the decoder makes the first note 98.4 Hz; it plays '
                         'when the force eats 2 rations a turn (16-30 warriors): the tower '
                         'counts them in that period (params ration_count_cycles)')),
            Variant('creak_open_after_low_food', (
                (79.9, 0.025, -0.0125), (73.4, 0.0272, -0.0136), (67.9, 0.0294, -0.0146),
                (63.2, 0.0317, -0.0159), (59.1, 0.0339, -0.017), (55.4, 0.0361, -0.018),
                (52.2, 0.0383, -0.0192), (49.4, 0.0405, -0.0202), (46.8, 0.0427, -0.0213),
                (44.5, 0.0449, -0.0225), (42.4, 0.0472, -0.0236), (40.5, 0.0494, 0.0011),
                (None, 0.0, 0.0269), (None, 0.0, 0.028), (None, 0.0, 0.0291),
                (None, 0.0, 0.0302), (None, 0.0, 0.0314), (None, 0.0, 0.0324),
                (None, 0.0, 0.0335), (None, 0.0, 0.0346), (None, 0.0, 0.0358),
                (None, 0.0, 0.0369), (None, 0.0, 0.0379), (None, 0.0, 0.0391),
                (None, 0.0, 0.0402), (None, 0.0, 0.0413), (None, 0.0, 0.0423),
                (None, 0.0, 0.0435), (None, 0.0, 0.0446), (None, 0.0, 0.0457),
                (None, 0.0, 0.0469), (None, 0.0, 0.0479), (None, 0.0, 0.049),
                (None, 0.0, 0.0502), (None, 0.0, 0.0512), (None, 0.0, 0.0523),
                (None, 0.0, 0.0535), (None, 0.0, 0.0546), (None, 0.0, 0.0556),
                (None, 0.0, 0.0568), (None, 0.0, 0.0579), (None, 0.0, 0.059),
                (None, 0.0, 0.0601), (None, 0.0, 0.0612), (None, 0.0, 0.0623),
                (None, 0.0, 0.0634), (None, 0.0, 0.0645), (None, 0.0, 0.0656),
                (None, 0.0, 0.0668), (None, 0.0, 0.0678), (None, 0.0, 0.0689),
                (None, 0.0, 0.0701), (None, 0.0, 0.0711), (None, 0.0, 0.0723),
                (None, 0.0, 0.0734), (None, 0.0, 0.0744), (None, 0.0, 0.0756),
                (None, 0.0, 0.0767), (None, 0.0, 0.0778), (None, 0.0, 0.0789),
                (None, 0.0, 0.08), (None, 0.0, 0.0811), (None, 0.0, 0.0823),
                (None, 0.0, 0.0833), (None, 0.0, 0.0844), (None, 0.0, 0.0856),
                (None, 0.0, 0.0866), (None, 0.0, 0.0878), (None, 0.0, 0.0888),
                (None, 0.0, 0.09), (None, 0.0, 0.0911), (None, 0.0, 0.0922),
                (None, 0.0, 0.0932), (None, 0.0, 0.1002),
            ),
                    example=('l2_p1_s02', 367.529807), count=2,
                    why=("after the low-food warning the sweep's first period is not a note of "
                         'its own')),
        ),
    ),
    Cue('creak_close',
        (
            (None, 0.0, 0.0948), (None, 0.0, 0.0936), (None, 0.0, 0.0925),
            (None, 0.0, 0.0914), (None, 0.0, 0.0904), (None, 0.0, 0.0892),
            (None, 0.0, 0.0881), (None, 0.0, 0.087), (None, 0.0, 0.0859),
            (None, 0.0, 0.0848), (None, 0.0, 0.0837), (None, 0.0, 0.0826),
            (None, 0.0, 0.0814), (None, 0.0, 0.0804), (None, 0.0, 0.0793),
            (None, 0.0, 0.0782), (None, 0.0, 0.077), (None, 0.0, 0.0759),
            (None, 0.0, 0.0748), (None, 0.0, 0.0738), (None, 0.0, 0.0726),
            (None, 0.0, 0.0715), (None, 0.0, 0.0704), (None, 0.0, 0.0693),
            (None, 0.0, 0.0682), (None, 0.0, 0.0671), (None, 0.0, 0.066),
            (None, 0.0, 0.0649), (None, 0.0, 0.0637), (None, 0.0, 0.0627),
            (None, 0.0, 0.0615), (None, 0.0, 0.0605), (None, 0.0, 0.0594),
            (None, 0.0, 0.0582), (None, 0.0, 0.0571), (None, 0.0, 0.056),
            (None, 0.0, 0.0549), (None, 0.0, 0.0539), (None, 0.0, 0.0527),
            (None, 0.0, 0.0516), (None, 0.0, 0.0504), (None, 0.0, 0.0494),
            (None, 0.0, 0.0484), (None, 0.0, 0.0471), (None, 0.0, 0.0461),
            (None, 0.0, 0.0449), (None, 0.0, 0.0439), (None, 0.0, 0.0428),
            (None, 0.0, 0.0416), (None, 0.0, 0.0405), (None, 0.0, 0.0394),
            (None, 0.0, 0.0383), (None, 0.0, 0.0372), (None, 0.0, 0.0362),
            (None, 0.0, 0.035), (None, 0.0, 0.0339), (None, 0.0, 0.0327),
            (None, 0.0, 0.0317), (None, 0.0, 0.0306), (None, 0.0, 0.0295),
            (None, 0.0, 0.0283), (None, 0.0, 0.0273), (None, 0.0, 0.0261),
            (None, 0.0, 0.0251), (41.8, 0.0478, -0.0239), (43.8, 0.0456, -0.0228),
            (46.1, 0.0434, -0.0216), (48.5, 0.0412, -0.0206), (51.3, 0.039, 0.0),
        ),
        when=('a deserted tomb or ruin: straight after creak_open (the door swings shut); the '
              'end-of-turn signal follows'),
        tail=('corpus, on the pins: the end signal\'s first key scan comes 42.9-43.5 ms after '
              'the last edge (4 of 4 measured), 23.5 ms after the last note\'s decoded end, less '
              'than a loop pass: the key loop begins as the last note ends (tail 0; the game '
              'counts no ticks while a note sounds, so its first scan is 2 ms late); the signal '
              'then shows in the flash timer\'s phase, at once or 0.26-0.28 s later'),
        example=('l1_p3_s35', 250.329562),
        after_click_s=None, after_lamp_s=None,
        sessions={
            "l1_p3_s35": 1, "l2_p2_s33": 2, "l2_p3_s10": 1, "l3_p1_s27": 1, "l3_p3_s11": 1,
            "l3_p3_s19": 1, "l4_p2_s32": 1, "l4_p3_s38": 1},
    ),
    Cue('trill',
        (
            (1011.9, 0.0267, 0.0001), (1264.9, 0.0213, 0.0002), (1475.7, 0.0183, 0.0001),
            (1011.9, 0.0267, 0.0001), (1264.9, 0.0213, 0.0001), (1475.7, 0.0183, 0.0001),
            (1011.9, 0.0267, 0.0001), (1264.9, 0.0213, 0.0002), (1475.7, 0.0183, 0.0015),
            (1011.9, 0.0267, 0.0001), (1264.9, 0.0213, 0.0002), (1475.7, 0.0183, 0.0001),
            (1011.9, 0.0267, 0.0001), (1264.9, 0.0213, 0.0001), (1475.7, 0.0183, 0.0001),
            (1011.9, 0.0267, 0.0001), (1264.9, 0.0213, 0.0002), (1475.7, 0.0183, 0.0015),
            (1011.9, 0.0267, 0.0001), (1264.9, 0.0213, 0.0002), (1475.7, 0.0183, 0.0001),
            (1011.9, 0.0267, 0.0001), (1264.9, 0.0213, 0.0001), (1475.7, 0.0183, 0.0001),
            (1011.9, 0.0267, 0.0001), (1264.9, 0.0213, 0.0002), (1475.7, 0.0183, 0.0015),
            (1011.9, 0.0267, 0.0001), (1264.9, 0.0213, 0.0002), (1475.7, 0.0183, 0.0001),
            (1011.9, 0.0267, 0.0001), (1264.9, 0.0213, 0.0001), (1475.7, 0.0183, 0.0001),
            (1011.9, 0.0267, 0.0001), (1264.9, 0.0213, 0.0002), (1475.7, 0.0183, 0.0015),
            (1011.9, 0.0267, 0.0001), (1264.9, 0.0213, 0.0002), (1475.7, 0.0183, 0.0001),
            (1011.9, 0.0267, 0.0001), (1264.9, 0.0213, 0.0001), (1475.7, 0.0183, 0.0001),
            (1011.9, 0.0267, 0.0001), (1264.9, 0.0213, 0.0002), (1475.7, 0.0183, 0.0015),
            (1011.9, 0.0267, 0.0001), (1221.3, 0.0221, 0.0002), (1539.9, 0.0175, 0.0001),
            (1011.9, 0.0267, 0.0001), (1221.3, 0.0221, 0.0001), (1539.9, 0.0175, 0.0002),
            (1011.9, 0.0267, 0.0001), (1221.3, 0.0221, 0.0001), (1539.9, 0.0175, 0.0016),
            (1011.9, 0.0267, 0.0001), (1221.3, 0.0221, 0.0001), (1539.9, 0.0175, 0.0001),
            (1011.9, 0.0267, 0.0001), (1221.3, 0.0221, 0.0002), (1539.9, 0.0175, 0.0001),
            (1011.9, 0.0267, 0.0001), (1221.3, 0.0221, 0.0001), (1539.9, 0.0175, 0.0016),
            (1011.9, 0.0267, 0.0001), (1221.3, 0.0221, 0.0001), (1539.9, 0.0175, 0.0002),
            (1011.9, 0.0267, 0.0001), (1221.3, 0.0221, 0.0001), (1539.9, 0.0175, 0.0001),
            (1011.9, 0.0267, 0.0001), (1221.3, 0.0221, 0.0001), (1539.9, 0.0175, 0.0016),
            (1011.9, 0.0267, 0.0001), (1221.3, 0.0221, 0.0001), (1539.9, 0.0175, 0.0002),
            (1011.9, 0.0267, 0.0001), (1221.3, 0.0221, 0.0001), (1539.9, 0.0175, 0.0002),
            (1011.9, 0.0267, 0.0001), (1221.3, 0.0221, 0.0001), (1539.9, 0.0175, 0.0016),
            (1011.9, 0.0267, 0.0001), (1221.3, 0.0221, 0.0001), (1539.9, 0.0175, 0.0001),
            (1011.9, 0.0267, 0.0001), (1221.3, 0.0221, 0.0001), (1539.9, 0.0175, 0.0002),
            (1011.9, 0.0267, 0.0001), (1221.3, 0.0221, 0.0001), (1539.9, 0.0175, 0.45),
        ),
        when=('SANCTUARY/CITADEL, 12.9 ms after the key click; 0.45 s later the reel turns to a'
              ' bonus picture, or the end-of-turn signal flashes'),
        tail='corpus: the next output 0.43-0.47 s after it',
        example=('l1_p1_s01', 233.477398),
        after_click_s=0.01292, after_lamp_s=None,
        sessions={
            "l1_p1_s01": 1, "l1_p2_s05": 2, "l1_p2_s29": 1, "l1_p3_s09": 1, "l1_p3_s17": 2,
            "l1_p4_s40": 1, "l2_p1_s02": 2, "l2_p1_s26": 2, "l2_p2_s06": 4, "l2_p2_s33": 2,
            "l2_p4_s14": 2, "l2_p4_s22": 2, "l3_p1_s03": 1, "l3_p1_s37": 1, "l3_p2_s31": 2,
            "l3_p3_s19": 4, "l3_p4_s15": 1, "l4_p2_s08": 1, "l4_p3_s20": 5, "l4_p3_s38": 2,
            "l4_p4_s16": 2, "l4_p4_s24": 3, "l4_p4_s39": 2},
    ),
    Cue('frontier',
        (
            (544.9, 0.0899, 0.0001), (610.6, 0.0802, 0.0002), (804.9, 0.0609, 0.0001),
            (544.9, 0.0899, 0.0001), (610.6, 0.0802, 0.0002), (804.9, 0.0609, 0.0011),
            (544.9, 0.0899, 0.0001), (610.6, 0.0802, 0.0002), (804.9, 0.0609, 0.0001),
            (544.9, 0.0899, 0.0001), (610.6, 0.0802, 0.0002), (804.9, 0.0609, 0.4406),
        ),
        when=('FRONTIER, 12.5 ms after the key click (a frontier crossed); then the end-of-turn'
              " signal, or, when the kingdom's key is missing, the reel turns to KEY MISSING "
              'and the sad cue'),
        tail='corpus: the next output 0.43-0.44 s after it',
        example=('l1_p1_s01', 22.685031),
        after_click_s=0.01252, after_lamp_s=None,
        sessions={
            "l1_p1_s01": 1, "l1_p2_s05": 2, "l1_p2_s29": 1, "l1_p3_s09": 1, "l1_p3_s17": 2,
            "l1_p4_s40": 1, "l2_p1_s02": 1, "l2_p2_s06": 2, "l2_p2_s33": 5, "l2_p3_s10": 1,
            "l2_p4_s14": 1, "l2_p4_s22": 4, "l3_p1_s03": 1, "l3_p1_s27": 3, "l3_p2_s31": 2,
            "l3_p3_s11": 1, "l4_p1_s04": 2, "l4_p2_s32": 1, "l4_p3_s38": 1, "l4_p4_s39": 1},
    ),
    Cue('siren',
        (
            (442.7, 0.183, 0.0001), (885.4, 0.1818, 0.0001), (442.7, 0.183, 0.0001),
            (885.4, 0.1818, 0.0002), (442.7, 0.183, 0.0), (885.4, 0.1818, 0.0002),
            (442.7, 0.183, 0.0001), (885.4, 0.1818, 0.0),
        ),
        when=("CLEAR (the turn is void): 6.9 ms after the key click; the next player's number "
              'flashes'),
        tail="the next player's number follows at once",
        example=('l1_p1_s01', 34.923887),
        after_click_s=0.00692, after_lamp_s=None,
        sessions={
            "l1_p1_s01": 2, "l1_p2_s05": 1, "l1_p2_s29": 2, "l1_p3_s09": 2, "l1_p3_s17": 3,
            "l1_p4_s21": 3, "l1_p4_s40": 1, "l2_p1_s02": 3, "l2_p1_s26": 2, "l2_p2_s06": 1,
            "l2_p2_s33": 3, "l2_p3_s10": 1, "l2_p4_s14": 1, "l2_p4_s22": 1, "l3_p1_s03": 1,
            "l3_p1_s27": 1, "l3_p1_s37": 2, "l3_p2_s31": 1, "l3_p3_s11": 2, "l3_p4_s15": 1,
            "l4_p1_s04": 2, "l4_p3_s20": 1, "l4_p3_s38": 2, "l4_p4_s24": 2, "l4_p4_s39": 2},
    ),
    Cue('dark_tower',
        (
            (224.2, 0.1472, 0.0589), (247.7, 0.1332, 0.0589), (278.9, 0.1183, 0.0589),
            (247.7, 0.1332, 0.059), (224.2, 0.1472, 0.0596), (247.7, 0.1332, 0.059),
            (278.9, 0.0896, 0.2535), (224.2, 0.3614, 0.0589), (224.2, 0.7896, 0.444),
        ),
        when=('DARK TOWER, 12.9 ms after the key click, before the riddle of the keys (or KEY '
              'MISSING and the sad cue when a key or frontier is missing)'),
        tail='corpus: the reel starts 0.44 s after it (29 of 38)',
        example=('l1_p1_s01', 261.005934),
        after_click_s=0.01292, after_lamp_s=None,
        sessions={
            "l1_p1_s01": 1, "l1_p2_s29": 4, "l1_p3_s09": 2, "l1_p4_s21": 1, "l2_p1_s26": 3,
            "l2_p2_s06": 5, "l2_p4_s14": 1, "l3_p1_s03": 1, "l3_p2_s31": 2, "l3_p3_s11": 3,
            "l3_p3_s19": 3, "l4_p1_s04": 1, "l4_p2_s32": 1, "l4_p4_s16": 4, "l4_p4_s24": 1,
            "l4_p4_s39": 2, "level4_riddle": 3},
    ),
    Cue('low_food',
        (
            (221.0, 0.0814, -0.0045), (243.9, 0.0738, -0.0041), (274.5, 0.0619, 0.0002),
            (310.7, 0.0547, 0.0001), (365.1, 0.0466, 0.0001), (426.7, 0.0398, 0.0001),
            (528.6, 0.0322, 0.0001), (681.1, 0.025, 0.0001), (983.8, 0.0173, 0.0001),
            (1686.5, 0.0101, 0.0014), (221.0, 0.0814, -0.0045), (243.9, 0.0738, -0.0041),
            (274.5, 0.0619, 0.0002), (310.7, 0.0547, 0.0001), (365.1, 0.0466, 0.0001),
            (426.7, 0.0398, 0.0001), (528.6, 0.0322, 0.0001), (681.1, 0.025, 0.0001),
            (983.8, 0.0173, 0.0001), (1686.5, 0.0101, 0.0014), (221.0, 0.0814, -0.0045),
            (243.9, 0.0738, -0.0041), (274.5, 0.0619, 0.0002), (310.7, 0.0547, 0.0001),
            (365.1, 0.0466, 0.0001), (426.7, 0.0398, 0.0001), (528.6, 0.0322, 0.0001),
            (681.1, 0.025, 0.0001), (983.8, 0.0173, 0.0001), (1686.5, 0.0101, 0.44),
        ),
        when=('the first action key of a turn when food is low (rulebook: 4 or fewer turns of '
              "food): 12 ms after the key click; the key's own action follows 0.44 s after the "
              'cue'),
        tail="corpus: the action's cue 0.44 s after it",
        example=('l2_p1_s02', 365.779388),
        after_click_s=0.01203, after_lamp_s=None,
        sessions={
            "l2_p1_s02": 4, "l2_p1_s26": 1, "l4_p3_s20": 1},
    ),
]

CUES: dict[str, Cue] = {c.name: c for c in _CUES}


def _note_text(freq: float | None, dur: float) -> str:
    return "click" if freq is None else f"{freq:g} Hz {dur * 1000:.0f} ms"


def describe_notes(notes: tuple) -> str:
    """Return ``notes`` in words, repeats folded: "(1864 Hz 5 ms, 1041.7 Hz 22 ms) x40", runs of
    clicks as "62 clicks 27-93 ms apart"."""
    key = [(f, round(d * 1000)) for f, d, _ in notes]
    out = []
    i = 0
    while i < len(notes):
        if notes[i][0] is None:
            j = i
            while j < len(notes) and notes[j][0] is None:
                j += 1
            if j - i > 2:
                gaps = [round(g * 1000) for _, _, g in notes[i:j - 1]]
                out.append(f"{j - i} clicks {gaps[0]}-{gaps[-1]} ms apart")
                i = j
                continue
        best = (1, 1)
        for p in range(1, 17):
            r = 1
            while key[i + r * p:i + (r + 1) * p] == key[i:i + p] and i + (r + 1) * p <= len(key):
                r += 1
            if r > 1 and p * r > best[0] * best[1]:
                best = (p, r)
        p, r = best
        block = ", ".join(_note_text(f, d) for f, d, _ in notes[i:i + p])
        out.append(f"({block}) x{r}" if r > 1 else block)
        i += p * r
    return ", ".join(out)


def cues_markdown() -> str:
    """Return the catalogue as a Markdown table (the one in docs/cues.md)."""
    lines = ["| cue | notes | length (s) | after click / lamp (ms) | when it plays "
             "| seen (times, recordings) |", "|---|---|---|---|---|---|"]
    for c in _CUES:
        rows, tail = sound_rows(c.notes)
        length = rows[-1][0] + rows[-1][2]
        seen = f"{c.count} in {len(c.sessions)}"
        if len(c.sessions) <= 8:
            seen += ": " + ", ".join(f"{s} {n}" for s, n in sorted(c.sessions.items()))
        variants = "".join(f" Variant `{v.name}` ({v.count} times, {len(v.notes)} notes, "
                           f"e.g. {v.example[0]} at {v.example[1]:.3f} s): {v.why}."
                           for v in c.variants)
        leads = " / ".join("-" if v is None else f"{v * 1000:.2f}"
                           for v in (c.after_click_s, c.after_lamp_s))
        lines.append(f"| `{c.name}` | {describe_notes(c.notes)}; then {tail:g} s of silence "
                     f"| {length:.3f} | {leads} | {c.when}.{variants} | {seen} |")
    return "\n".join(lines) + "\n"
