"""The parameter table: every number has a source and a support note; sound cues are sane."""
from __future__ import annotations

import json
from pathlib import Path

from cleanroom.params import PARAMS, SOUNDS, parameter_table

CAPTURES = Path(__file__).resolve().parents[1] / "data" / "captures"


def test_every_parameter_names_its_source_and_support():
    for p in PARAMS.values():
        assert p.source.strip() and p.support.strip(), p.name


def test_sound_cue_notes_are_in_time_order():
    for s in SOUNDS.values():
        for (a, f, da), (b, _, _) in zip(s.notes, s.notes[1:]):
            assert a < b, s.name
            # the decoder's length (pulses / frequency) runs at most one period past the
            # next note's first rise (legato seams, the tomb's falling sweep)
            period = 1 / f if f else 0.0
            assert a + da <= b + period + 0.001, s.name


def test_every_tone_in_the_shared_captures_is_a_known_cue_note():
    notes = {(f, d) for s in SOUNDS.values() for _, f, d in s.notes}
    notes |= {(431.9, 0.0046), (737.8, 0.0447)}
    for name in ("level_select", "level4_bazaar", "level4_riddle"):
        for line in (CAPTURES / name / "events.jsonl").read_text().splitlines():
            e = json.loads(line)
            if e["type"] == "tone":
                assert (e["freq_hz"], e["dur_s"]) in notes, (name, e)


def test_parameter_table_lists_every_parameter_and_cue():
    text = parameter_table()
    for name in list(PARAMS) + list(SOUNDS):
        assert name in text


def test_readme_parameter_tables_match_params_py():
    """Regenerate with: python -c "from cleanroom.params import parameter_markdown as m;
    print(m(), end='')" and paste below the README's '## Parameters' heading."""
    from cleanroom.params import parameter_markdown

    readme = (Path(__file__).resolve().parents[2] / "cleanroom" / "README.md").read_text()
    assert readme.split("## Parameters\n\n", 1)[1] == parameter_markdown()
