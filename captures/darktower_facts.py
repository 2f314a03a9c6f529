"""Hold the Dark Tower's facts once: keys, key matrix, segment wiring, glyphs, lamps, cards, reel.

Every package reads the tower's wiring and geometry from here (the board model, the decoders,
the front-end, the fakes, the clean-room game, the benchmarks); only the libsigrokdecode
decoder keeps its own copy, because libsigrokdecode runs it alone, and a test checks that copy
against this module (tests/captures/test_darktower_facts.py). What each fact is and where it
comes from (MAME 0.251's ``mbdtower`` driver in ``hh_tms1k``, the 1981 rulebook):
docs/dark-tower-wiring.md, whose sections the comments below name.

Example::

    KEY_MATRIX["MOVE"]           # (1, 8): strobed by R1, read on K8
    o_pins(GLYPHS[13][1])        # O pins that draw 'L': 0b0011100 (d e f = O2 O3 O4)
    card_image(2, "middle")      # 'BAZAAR CLOSED'
    REEL_STEPS * REEL_TICK_S     # 3.456 s for a whole turn of the reel
"""
from __future__ import annotations

__all__ = [
    "NOMINAL_CLOCK_HZ", "INSTRUCTION_CYCLES", "BUTTONS", "KEY_MATRIX",
    "SEGMENTS", "SEGMENT_PINS", "GLYPHS", "GLYPH_VARIANTS", "GLYPH_SEGMENTS", "GLYPH_BY_PATTERN",
    "segment_byte", "o_pins", "LAMP_PINS", "CARD_IMAGES", "card_image",
    "REEL_STEPS", "CARD_STEPS", "REEL_TICK_MS", "REEL_TICK_S", "REEL_COAST_MAX",
    "BIG_HOLE_STEPS", "SMALL_HOLE_STEPS", "reel_card", "sensor_sees_light", "coast_step",
    "reel_step",
]

# Clock (docs/dark-tower-wiring.md §9): MAME's CPU clock for the tower, Hz. The real
# tower runs on an RC oscillator near it; six clocks make one instruction.
NOMINAL_CLOCK_HZ = 425_000
INSTRUCTION_CYCLES = 6    # oscillator clocks per instruction (docs/tms1400.md)

# Keys (docs/dark-tower-wiring.md §5): the twelve keys as printed on them, in the panel's
# reading order (left to right, top to bottom: four rows of three).
BUTTONS: tuple[str, ...] = (
    "YES/BUY", "REPEAT", "NO/END",
    "HAGGLE", "BAZAAR", "CLEAR",
    "TOMB/RUIN", "MOVE", "SANCTUARY/CITADEL",
    "DARK TOWER", "FRONTIER", "INVENTORY",
)

# Key matrix (docs/dark-tower-wiring.md §5): button -> (R column 0-2, K bit 1/2/4/8). A
# pressed key drives its K line high while its R column is high; the reel sensor is OR-ed
# into K8.
KEY_MATRIX: dict[str, tuple[int, int]] = {
    "INVENTORY": (0, 1), "NO/END": (0, 2), "CLEAR": (0, 4), "SANCTUARY/CITADEL": (0, 8),
    "FRONTIER": (1, 1), "REPEAT": (1, 2), "BAZAAR": (1, 4), "MOVE": (1, 8),
    "DARK TOWER": (2, 1), "YES/BUY": (2, 2), "HAGGLE": (2, 4), "TOMB/RUIN": (2, 8),
}

# Segment wiring (docs/dark-tower-wiring.md §3): the letters in the bit order of a
# segment byte (bit 0 = a ... bit 6 = g) and the O pin driving each; O7 selects the digit.
SEGMENTS = "abcdefg"
SEGMENT_PINS: dict[str, int] = {"a": 5, "b": 6, "c": 1, "d": 2, "e": 3, "f": 4, "g": 0}

def segment_byte(segments: str) -> int:
    """Return the segment byte (bit 0 = a ... bit 6 = g) of the lit segment letters."""
    return sum(1 << SEGMENTS.index(s) for s in segments)


def o_pins(segments: str) -> int:
    """Return the O0-O6 pin word that lights the given segment letters (O7, the digit
    select, left 0)."""
    return sum(1 << SEGMENT_PINS[s] for s in segments)


# Glyphs (docs/dark-tower-wiring.md §4): accumulator value A -> (character, lit
# segments) of the output PLA TowerLab writes for MAME and the emulator: 0-9, 11 'C', 12 'P',
# 13 'L', 14 '-'; 10 and 15 blank.
GLYPHS: tuple[tuple[str, str], ...] = (
    ("0", "abcdef"), ("1", "bc"), ("2", "abdeg"), ("3", "abcdg"), ("4", "bcfg"),
    ("5", "acdfg"), ("6", "acdefg"), ("7", "abc"), ("8", "abcdefg"), ("9", "abcdfg"),
    (" ", ""), ("C", "adef"), ("P", "abefg"), ("L", "def"), ("-", "g"), (" ", ""),
)
# Other common shapes of 6, 7 and 9 (no tail on 6, a serif on 7, no tail on 9) that a decoder
# also reads as those digits (a choice: another output PLA may draw them so).
GLYPH_VARIANTS: dict[str, str] = {"cdefg": "6", "abcf": "7", "abcfg": "9"}

# Character -> lit segments, and segment byte -> character (the glyphs, then the variants).
GLYPH_SEGMENTS: dict[str, str] = {ch: segs for ch, segs in GLYPHS}
GLYPH_BY_PATTERN: dict[int, str] = {
    **{segment_byte(segs): ch for ch, segs in GLYPHS},
    **{segment_byte(segs): ch for segs, ch in GLYPH_VARIANTS.items()},
}

# Lamps (docs/dark-tower-wiring.md §2): lamp -> R pin, top to bottom; the events
# vocabulary names them upper/middle/lower. Lit while R4 is low.
LAMP_PINS: dict[str, int] = {"upper": 7, "middle": 6, "lower": 5}

# Card images (docs/dark-tower-wiring.md §6): lamp -> the picture it lights at each
# card position 0-7 of the reel; position 7 is the blank card ('').
CARD_IMAGES: dict[str, tuple[str, ...]] = {
    "upper": ("CURSED", "VICTORY", "WIZARD", "DRAGON", "GOLD KEY", "SCOUT", "WARRIOR", ""),
    "middle": ("LOST", "WARRIORS", "BAZAAR CLOSED", "SWORD", "SILVER KEY", "HEALER", "FOOD", ""),
    "lower": ("PLAGUE", "BRIGANDS", "KEY MISSING", "PEGASUS", "BRASS KEY", "GOLD", "BEAST", ""),
}

# Reel geometry and timing (docs/dark-tower-wiring.md §6): MAME's model of the drum.
REEL_STEPS = 128          # positions per turn; a running reel steps to the next lower one
CARD_STEPS = 16           # positions per card: card position = position // 16
REEL_TICK_MS = 27         # one step per 27 ms (MAME: 3500 ms // 128, integer division)
REEL_TICK_S = REEL_TICK_MS / 1000
REEL_COAST_MAX = 4        # the coasting counter saturates here: 5 more steps after R9 drops
BIG_HOLE_STEPS = 12       # the index hole: the sensor sees light at positions 0-11
SMALL_HOLE_STEPS = 4      # and at the first 4 positions of every card (position % 16 < 4)


def card_image(card_pos: int, lamp: str) -> str:
    """Return the picture behind ``lamp`` at reel card position ``card_pos`` ('' for the
    blank card)."""
    return CARD_IMAGES[lamp][card_pos & 7]


def reel_card(pos: int) -> int:
    """Return the card position (0-7) shown at reel position ``pos`` (0-127)."""
    return (pos // CARD_STEPS) & 7


def sensor_sees_light(pos: int) -> bool:
    """Return True when a hole lets the sensor see its LED at reel position ``pos``."""
    return pos % CARD_STEPS < SMALL_HOLE_STEPS or pos < BIG_HOLE_STEPS


# The reel mechanism (docs/dark-tower-wiring.md §6, MAME's model), once for the board model,
# the reel decoder and the clean-room game; the compiled kernel's copy (emulator/_fastcore.c,
# b_reel_tick) is checked against it by tests/fastcore/test_reel_mechanism.py.

def coast_step(decay: int, motor: bool) -> tuple[int, bool]:
    """Return (coasting counter, still running) after a reel step taken with the motor (R9)
    ``motor``: the counter counts up to REEL_COAST_MAX while driven and down after; the reel
    stops at the first step it finds the counter at 0 undriven (5 more steps after a long
    run)."""
    if motor:
        return min(decay + 1, REEL_COAST_MAX), True
    if decay > 0:
        return decay - 1, True
    return 0, False


def reel_step(pos: int, decay: int, running: bool, motor: bool) -> tuple[int, int, bool]:
    """Return (position, coasting counter, running) after one 27 ms tick: a running reel
    steps to the next lower position and coasts as :func:`coast_step` says; a still one
    stays."""
    if not running:
        return pos, decay, False
    decay, running = coast_step(decay, motor)
    return (pos - 1) % REEL_STEPS, decay, running
