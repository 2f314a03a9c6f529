"""The Dark Tower facts module (captures/darktower_facts.py, docs/dark-tower-wiring.md) and the
standalone copy of it in the libsigrokdecode decoder, which must agree with it."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from captures import darktower_facts as facts
from captures.model import DARKTOWER_CHANNELS

PD = Path(__file__).resolve().parents[2] / "analysis" / "sigrok_pd" / "darktower" / "pd.py"


def pd_constant(name: str):
    """Return the literal value the sigrok decoder assigns to module-level ``name``."""
    tree = ast.parse(PD.read_text(), str(PD))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name
                                                for t in node.targets):
            try:
                return ast.literal_eval(node.value)
            except ValueError:
                # PINS is built with comprehensions: evaluate it without builtins.
                return eval(compile(ast.Expression(node.value), str(PD), "eval"),
                            {"__builtins__": {"range": range}})
    raise AssertionError(f"{PD}: no module-level assignment to {name}")


def test_sigrok_decoder_reads_the_same_glyphs():
    assert pd_constant("GLYPHS") == facts.GLYPH_BY_PATTERN


def test_sigrok_decoder_has_the_same_segment_wiring():
    assert pd_constant("SEGMENT_O") == tuple(facts.SEGMENT_PINS[s] for s in facts.SEGMENTS)


def test_sigrok_decoder_has_the_same_key_matrix():
    keys = pd_constant("KEYS")
    assert {b: (col, 1 << row) for col, names in enumerate(keys)
            for row, b in enumerate(names)} == facts.KEY_MATRIX


def test_sigrok_decoder_has_the_same_lamps():
    assert dict(pd_constant("LAMPS")) == facts.LAMP_PINS
    assert [lamp for lamp, _ in pd_constant("LAMPS")] == list(facts.LAMP_PINS)


def test_sigrok_decoder_names_the_trace_model_channels():
    assert tuple(pd_constant("PINS")) == DARKTOWER_CHANNELS


def test_the_key_matrix_gives_each_of_the_twelve_keys_its_own_column_and_row():
    assert sorted(facts.KEY_MATRIX) == sorted(facts.BUTTONS) and len(facts.BUTTONS) == 12
    assert sorted(facts.KEY_MATRIX.values()) == [(c, k) for c in range(3) for k in (1, 2, 4, 8)]


def test_every_glyph_reads_back_as_its_character():
    for ch, segs in facts.GLYPHS:
        assert facts.GLYPH_BY_PATTERN[facts.segment_byte(segs)] == ch


def test_glyph_variants_are_not_shapes_of_other_glyphs():
    table = {facts.segment_byte(segs) for _, segs in facts.GLYPHS}
    assert not table & {facts.segment_byte(segs) for segs in facts.GLYPH_VARIANTS}


@pytest.mark.parametrize("segments,o", [("a", 1 << 5), ("g", 1 << 0), ("bc", 1 << 6 | 1 << 1),
                                        ("abcdefg", 0x7F)])
def test_o_pins_follow_the_segment_wiring(segments, o):
    assert facts.o_pins(segments) == o


def test_each_card_position_holds_three_pictures_but_the_blank_seventh():
    assert [facts.card_image(c, "upper") for c in (0, 6, 7)] == ["CURSED", "WARRIOR", ""]
    names = [facts.card_image(c, lamp) for c in range(7) for lamp in facts.LAMP_PINS]
    assert len(set(names)) == 21 and all(names)


def test_the_reel_turns_once_in_3_456_seconds_through_eight_cards():
    assert facts.REEL_STEPS * facts.REEL_TICK_S == pytest.approx(3.456)
    assert [facts.reel_card(p) for p in (0, 15, 16, 127)] == [0, 0, 1, 7]


def test_the_sensor_sees_light_through_the_index_hole_and_seven_small_holes():
    lit = [p for p in range(facts.REEL_STEPS) if facts.sensor_sees_light(p)]
    assert lit == list(range(12)) + [16 * j + i for j in range(1, 8) for i in range(4)]
