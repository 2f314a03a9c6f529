"""The sound-cue catalogue: every recorded tone run is a named cue, and the game plays each cue
the way the genuine tower does (cleanroom.cues, found with cleanroom.cuefind)."""
from __future__ import annotations

from pathlib import Path

import pytest

from captures.events import read_events
from cleanroom.conform import Tolerance, compare
from cleanroom.cuefind import (RUN_GAP_S, cluster, count_cues, count_forms, lead_times,
                               match, read_runs, report, same_notes, tone_runs, unmatched)
from cleanroom.cues import CUES, catalogue, sound_rows
from cleanroom.engine import Engine
from cleanroom.params import SOUNDS

DATA = Path(__file__).resolve().parents[1] / "data"
FOLDERS = sorted(DATA.glob("corpus/*/")) + sorted(DATA.glob("captures/*/"))
_EVENTS: dict[str, list[dict]] = {}


def events_of(session: str) -> list[dict]:
    if session not in _EVENTS:
        folder = next(f for f in FOLDERS if f.name == session)
        with open(folder / "events.jsonl") as f:
            _EVENTS[session] = read_events(f)
    return _EVENTS[session]


@pytest.fixture(scope="module")
def named_runs():
    return read_runs([str(f) for f in FOLDERS], catalogue=catalogue())


def recorded_tones(session: str, t0: float, notes: tuple) -> list[dict]:
    """Return the recording's tone events of the cue instance that starts at ``t0``."""
    tones = [e for e in events_of(session) if e["type"] == "tone" and e["t"] >= t0 - 1e-6]
    return tones[:len(notes)]


def test_the_recordings_are_all_here():
    assert len(FOLDERS) == 34


def test_every_recorded_tone_run_is_a_catalogue_cue(named_runs):
    left = unmatched(named_runs)
    assert left == [], [(r.session, r.t, r.notes[:4]) for r in left[:5]]


def test_each_cue_is_seen_in_the_recordings_its_catalogue_row_names(named_runs):
    counts = count_cues(named_runs)
    for name, cue in CUES.items():
        assert counts.get(name, {}) == dict(cue.sessions), name


def test_each_cue_starts_after_its_key_click_and_lamp_as_the_catalogue_says(named_runs):
    leads = lead_times(named_runs)
    for name, cue in CUES.items():
        assert leads[name] == (cue.after_click_s, cue.after_lamp_s), name


def test_every_cue_the_game_plays_is_a_sound():
    import re
    game = Path(__file__).resolve().parents[2] / "cleanroom"
    src = "".join(p.read_text() for p in [game / "stage.py", *sorted(game.glob("sections/*.py"))])
    names = set(re.findall(r'sound\("([a-z_]+)"', src))
    names |= set(re.findall(r'picture_with_sound\("[A-Z ]+", "([a-z_]+)"\)', src))
    assert names and names <= set(SOUNDS), names - set(SOUNDS)


def test_each_cue_has_its_example_instance_in_the_recording(named_runs):
    starts = {(r.session, round(r.t, 6)): r for r in named_runs}
    for cue in CUES.values():
        for notes, example in [(cue.notes, cue.example)] + \
                [(v.notes, v.example) for v in cue.variants]:
            run = starts[(example[0], round(example[1], 6))]
            assert run.name == cue.name and same_notes(notes, run.notes), (cue.name, example)


def test_no_two_cues_have_the_same_notes():
    forms = [(c.name, f) for c in CUES.values() for f in c.forms]
    for i, (a, fa) in enumerate(forms):
        for b, fb in forms[i + 1:]:
            assert a == b or not same_notes(fa, fb), (a, b)


def test_every_catalogue_cue_is_a_game_sound_with_the_same_rows():
    for name, cue in CUES.items():
        rows, tail = sound_rows(cue.notes)
        assert SOUNDS[name].notes == rows and SOUNDS[name].tail_s == tail, name
        for v in cue.variants:
            rows, _ = sound_rows(v.notes)
            assert SOUNDS[v.name].notes == rows and SOUNDS[v.name].tail_s == tail, v.name


def test_each_variant_is_seen_as_often_as_the_catalogue_says(named_runs):
    forms = count_forms(named_runs)
    for cue in CUES.values():
        assert forms.get((cue.name, 0), 0) == cue.count - sum(v.count for v in cue.variants)
        for k, v in enumerate(cue.variants, 1):
            assert forms.get((cue.name, k), 0) == v.count, v.name


def test_the_cursed_sound_is_the_lost_skirmish_notes():
    assert SOUNDS["cursed"].notes == SOUNDS["skirmish_lost"].notes


FORMS = {c.name: (c.notes, c.example) for c in CUES.values()}
FORMS.update({v.name: (v.notes, v.example) for c in CUES.values() for v in c.variants})


@pytest.mark.parametrize("name", list(FORMS))
def test_engine_plays_the_cue_as_the_recording_shows_it(name):
    notes, (session, t0) = FORMS[name]
    ref = recorded_tones(session, t0, notes)
    engine = Engine(lambda e: iter(()))
    engine.sound(name, at=t0)
    got = [e for e in engine.events if e["type"] == "tone"]
    assert len(got) == len(ref) == len(notes)
    # conform's tone tolerances (3 %, 10 % or 5 ms), onsets within 1 ms of the recording
    result = compare(ref, got, Tolerance(time_s=0.001), types=("tone",),
                     end=ref[-1]["t"] + ref[-1]["dur_s"] + 0.01)
    assert result.conforms, result.describe()
    assert result.matched == len(ref)


def test_engine_plays_every_recorded_instance_of_every_cue_within_conform_tolerances(named_runs):
    """Not only the example: each of the 5,774 recorded runs, against the sound of its form
    (notes within conform's 3 % and 10 % or 5 ms; onsets within 5 ms: a key pressed during a
    cue delays its notes by up to 4 ms, l1_p3_s35 at 88.128 s)."""
    sound_of = {(c.name, 0): c.name for c in CUES.values()}
    sound_of.update({(c.name, k): v.name for c in CUES.values()
                     for k, v in enumerate(c.variants, 1)})
    tones = {s: [e for e in events_of(s) if e["type"] == "tone"]
             for s in {r.session for r in named_runs}}
    starts = {s: {round(e["t"], 6): i for i, e in enumerate(ts)} for s, ts in tones.items()}
    failed = []
    for r in named_runs:
        i = starts[r.session][round(r.t, 6)]
        ref = tones[r.session][i:i + len(r.notes)]
        engine = Engine(lambda e: iter(()))
        engine.sound(sound_of[(r.name, r.form)], at=r.t)
        result = compare(ref, engine.events, Tolerance(time_s=0.005), types=("tone",),
                         end=ref[-1]["t"] + ref[-1]["dur_s"] + 0.01)
        if not result.conforms:
            failed.append((r.session, r.t, r.name, result.describe()))
    assert failed == [], failed[:3]


# ---- the extraction (cleanroom.cuefind) ------------------------------------------------

def tone(t, f, d):
    return {"t": t, "type": "tone", "freq_hz": f, "dur_s": d, "pulses": 2}


def test_key_click_is_a_run_of_its_own_even_right_before_a_tune():
    runs = tone_runs([tone(1.0, 431.9, 0.0046), tone(1.0136, 737.8, 0.0447)])
    assert [r.notes for r in runs] == [((431.9, 0.0046, 0.0),), ((737.8, 0.0447, 0.0),)]


def test_notes_closer_than_the_run_gap_are_one_run_with_their_gaps():
    gap = RUN_GAP_S - 0.01
    runs = tone_runs([tone(1.0, 278.9, 0.1), tone(1.1 + gap, 544.9, 0.1)])
    assert len(runs) == 1
    assert runs[0].notes == ((278.9, 0.1, round(gap, 4)), (544.9, 0.1, 0.0))


def test_a_silence_longer_than_the_run_gap_starts_a_new_run():
    runs = tone_runs([tone(1.0, 278.9, 0.1), tone(1.1 + RUN_GAP_S + 0.01, 544.9, 0.1)])
    assert len(runs) == 2


def test_a_click_keeps_a_null_frequency_and_zero_length():
    runs = tone_runs([tone(1.0, 40.5, 0.0494), {"t": 1.0768, "type": "tone", "freq_hz": None,
                                                  "dur_s": 0.0, "pulses": 1}])
    assert runs[0].notes[1] == (None, 0.0, 0.0)


def test_a_negative_gap_is_kept_as_the_decoder_reports_it():
    runs = tone_runs([tone(1.0, 79.9, 0.025), tone(1.0125, 73.4, 0.0272)])
    assert runs[0].notes[0] == (79.9, 0.025, -0.0125)


def test_context_names_key_display_card_and_lamp():
    evs = [{"t": 0.5, "type": "reel", "card_pos": 1},
           {"t": 0.9, "type": "button", "button": "MOVE", "action": "press"},
           {"t": 0.95, "type": "display", "text": "  "},
           {"t": 1.0, "type": "lamp", "lamp": "lower", "on": 1},
           tone(1.0004, 737.8, 0.0447),
           {"t": 1.03, "type": "display", "text": "08"}]
    ctx = tone_runs(evs)[0].context
    assert (ctx.button, ctx.since_button_s, ctx.display, ctx.display_after, ctx.card,
            ctx.lamps) == ("MOVE", 0.1004, "  ", "08", 1, ("lower",))


def test_context_times_the_cue_from_its_key_click_and_its_lamp():
    evs = [{"t": 0.9, "type": "button", "button": "MOVE", "action": "press"},
           tone(0.94, 431.9, 0.0046),
           {"t": 0.9552, "type": "lamp", "lamp": "upper", "on": 1},
           tone(0.957, 1864.0, 0.0048)]
    ctx = tone_runs(evs)[1].context
    assert (ctx.since_click_s, ctx.since_lamp_s) == (0.017, 0.0018)


def test_context_tells_what_follows_the_cue():
    evs = [tone(1.0, 520.8, 0.1555), {"t": 1.6, "type": "motor", "on": 1}]
    ctx = tone_runs(evs)[0].context
    assert (ctx.then, ctx.then_s) == ("motor on", 0.4445)


def test_equal_runs_cluster_within_one_percent_and_one_frame():
    a = tone_runs([tone(1.0, 520.8, 0.1555)], session="a")
    b = tone_runs([tone(5.0, 523.0, 0.1600)], session="b")
    c = tone_runs([tone(9.0, 540.0, 0.1555)], session="c")
    groups = cluster(a + b + c)
    assert [sorted(g.sessions()) for g in groups] == [["a", "b"], ["c"]]


def test_a_run_is_cut_into_catalogue_cues_longest_first():
    cat = {"short": [((100.0, 0.1, 0.0),)],
           "long": [((100.0, 0.1, 0.05), (200.0, 0.1, 0.0))],
           "horn": [((300.0, 0.1, 0.0),)]}
    runs = tone_runs([tone(1.0, 100.0, 0.1), tone(1.15, 200.0, 0.1), tone(1.35, 300.0, 0.1)],
                     catalogue=cat)
    assert [(r.name, r.t) for r in runs] == [("long", 1.0), ("horn", 1.35)]


def test_match_names_the_cue_a_whole_run_equals():
    cat = {"horn": [((300.0, 0.1, 0.0),)], "beep": [((737.8, 0.0447, 0.0),)]}
    beep, other = tone_runs([tone(1.0, 737.0, 0.045), tone(2.0, 999.0, 0.1)])
    assert (match(beep, cat), match(other, cat)) == ("beep", None)


def test_what_no_cue_fits_is_left_unnamed():
    cat = {"horn": [((300.0, 0.1, 0.0),)]}
    runs = tone_runs([tone(1.0, 300.0, 0.1), tone(1.15, 999.0, 0.1)], catalogue=cat)
    assert [r.name for r in runs] == ["horn", None]
    assert unmatched(runs) == runs[1:]


def test_report_counts_each_cue_and_says_what_follows_it_by_kind():
    cat = {"end_turn": [((278.9, 0.1183, 0.0), (544.9, 0.1193, 0.0))]}
    evs = [{"t": 0.95, "type": "button", "button": "NO/END", "action": "press"},
           tone(1.0, 278.9, 0.1183), tone(1.1184, 544.9, 0.1193),
           {"t": 1.2577, "type": "display", "text": " 2"}]
    text = report(tone_runs(evs, session="s", catalogue=cat), order=["end_turn", "siren"])
    assert "end_turn: 1 in 1 recordings; key before: NO/END 1" in text
    assert "then: display player's number +0.02 s 1" in text
    assert "siren: not heard" in text and "0 not in the catalogue" in text


def test_catalogue_examples_are_recordings_in_the_repo():
    names = {f.name for f in FOLDERS}
    for cue in CUES.values():
        assert cue.example[0] in names and set(cue.sessions) <= names, cue.name


def test_cue_rows_rebuild_offsets_from_durations_and_gaps():
    rows, tail = sound_rows(((278.9, 0.1183, 0.0001), (544.9, 0.1193, 0.0002),
                             (1041.7, 0.1238, 0.25)))
    assert rows == ((0.0, 278.9, 0.1183), (0.1184, 544.9, 0.1193), (0.2379, 1041.7, 0.1238))
    assert tail == 0.25


def test_docs_cue_table_matches_cues_py():
    """Regenerate with: python -c "from cleanroom.cues import cues_markdown as m;
    print(m(), end='')" and paste it over the table under '## The catalogue' in docs/cues.md."""
    from cleanroom.cues import cues_markdown

    text = (Path(__file__).resolve().parents[2] / "docs" / "cues.md").read_text()
    table = text[text.index("| cue | notes |"):].split("\n## ", 1)[0]
    assert table == cues_markdown()
