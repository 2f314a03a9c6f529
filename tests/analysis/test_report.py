"""The report page (analysis.report): self-contained, what was run, the overview, the events
table with its times, the speaker's sound, and a first difference marked on both timelines.
The page in a real browser: tests/analysis/test_report_browser.py."""
from __future__ import annotations

import base64
import io
import re
import wave

import pytest

from analysis.base import AnalysisError
from analysis.report import (FirstDifference, Timeline, describe_event, open_source, report_html,
                             source_timeline, write_report)
from tests.analysis.capload import CAPTURES

CORPUS = CAPTURES.parent / "corpus"


@pytest.fixture(scope="module")
def tower_test_page():
    src = open_source(str(CAPTURES / "tower_test"))
    return src, report_html("tower_test", src.info, source_timeline(src), script=src.script,
                            audio_rate=8000)


def _wav(page: str) -> wave.Wave_read:
    data = re.search(r'src="data:audio/wav;base64,([^"]+)"', page).group(1)
    return wave.open(io.BytesIO(base64.b64decode(data)))


def test_a_capture_folder_says_what_was_run():
    src = open_source(str(CAPTURES / "tower_test"))
    assert src.info["ROM SHA-1"] == "7edbff437da371390fa8f28b3d183f833eaa9be9"
    assert src.info["clock"] == "425000 Hz" and src.info["script"] == "tower_test"
    assert src.info["target"] == "genuine MP7332 ROM in MAME 0.251 mbdtower driver"
    assert src.script.startswith(open(CAPTURES / "tower_test" / "script.txt").read()[:20])


def test_a_corpus_folder_reports_from_its_edge_log_with_the_chip_clock():
    src = open_source(str(CORPUS / "l1_p1_s01"))
    assert src.capture is not None and src.capture.info.samplerate == 425_000
    assert src.info["clock"] == "425000 Hz" and src.info["script"] == "l1_p1_s01"


def test_the_page_fetches_nothing():
    src = open_source(str(CAPTURES / "tower_test" / "events.jsonl"))
    page = report_html("t", src.info, source_timeline(src))
    assert not re.search(r'(src|href)="(?!data:)', page)
    assert "<link" not in page and "@import" not in page and "url(" not in page


def test_the_page_embeds_the_overview_as_a_png(tower_test_page):
    _, page = tower_test_page
    png = re.search(r'<img alt="overview of [^"]*"[^>]*src="data:image/png;base64,([^"]+)"',
                    page).group(1)
    assert base64.b64decode(png)[:4] == b"\x89PNG"


def test_the_page_has_one_table_row_per_event_with_its_time(tower_test_page):
    src, page = tower_test_page
    times = [float(t) for t in re.findall(r'<tr data-t="([0-9.]+)"', page)]
    assert times == pytest.approx([e["t"] for e in src.events], abs=1e-6)


def test_the_page_embeds_the_speaker_as_a_wav_of_the_whole_capture(tower_test_page):
    src, page = tower_test_page
    w = _wav(page)
    assert (w.getnchannels(), w.getsampwidth(), w.getframerate()) == (1, 2, 8000)
    seconds = src.capture.info.total_samples / src.capture.info.samplerate
    assert abs(w.getnframes() / 8000 - seconds) < 0.01


def test_the_script_is_on_the_page(tower_test_page):
    src, page = tower_test_page
    first = src.script.strip().splitlines()[-1]
    assert first.split()[1] in page


def test_an_events_file_has_no_sound_and_says_so():
    src = open_source(str(CAPTURES / "tower_test" / "events.jsonl"))
    page = report_html("t", src.info, source_timeline(src))
    assert "<audio" not in page and "no sound" in page


def test_the_first_difference_is_marked_on_both_timelines():
    src = open_source(str(CAPTURES / "tower_test" / "events.jsonl"))
    main = source_timeline(src)
    other_events = [dict(e) for e in src.events]
    lamp = next(i for i, e in enumerate(other_events) if e["type"] == "lamp")
    other_events[lamp]["lamp"] = "lower"
    other = Timeline("changed", other_events, main.end_s, to_main=(1.0, 0.0))
    t = src.events[lamp]["t"]
    diff = FirstDifference("lamp differs", "first difference ...", t, t, src.events[lamp],
                      other_events[lamp])
    page = report_html("t", {}, main, other, diff, verdict="differs")
    marked = re.findall(r'<tr data-t="([0-9.]+)" data-type="\w+" class="diff"><td>[^<]*</td>'
                        r'<td>(\w+)</td><td>([^<]*)</td>', page)
    assert marked == [(f"{t:.6f}", "lamp", "lamp upper on"),
                      (f"{t:.6f}", "lamp", "lamp lower on")]
    assert page.count("<img") == 2 and 'id="verdict"' in page


def test_rows_of_the_second_timeline_carry_times_mapped_onto_the_first():
    events = [{"t": 1.0, "type": "motor", "on": 1}]
    page = report_html("t", {}, Timeline("a", events, 2.0),
                       Timeline("b", events, 2.0, to_main=(1.01, 0.5)))
    assert re.findall(r'<tr data-t="([0-9.]+)"', page) == ["1.000000", "1.510000"]


def test_events_are_described_in_words():
    assert describe_event({"t": 0, "type": "tone", "freq_hz": 440.0, "dur_s": 0.0046}) == \
        "tone 440 Hz A4, 4.6 ms"
    assert describe_event({"t": 0, "type": "reel", "card_pos": 3}) == \
        "reel card 3 (DRAGON/SWORD/PEGASUS)"
    assert describe_event({"t": 0, "type": "button", "button": "NO/END",
                           "action": "press"}) == "NO/END press"


def test_a_report_must_be_an_html_file(tmp_path):
    src = open_source(str(CAPTURES / "tower_test" / "events.jsonl"))
    with pytest.raises(AnalysisError, match="must end in .html"):
        write_report(str(tmp_path / "r.txt"), "t", {}, source_timeline(src))
    assert list(tmp_path.iterdir()) == []


def test_a_folder_with_nothing_to_report_is_named(tmp_path):
    with pytest.raises(AnalysisError, match=f"{tmp_path}: no events.jsonl and no capture"):
        open_source(str(tmp_path))


def test_a_difference_in_a_capture_shows_the_pins_around_it(tower_test_page):
    src, _ = tower_test_page
    main = source_timeline(src)
    lamp = next(e for e in src.events if e["type"] == "lamp")
    diff = FirstDifference("lamp differs", "...", lamp["t"], None, lamp, None)
    page = report_html("t", {}, main, None, diff, verdict="differs", audio_rate=8000)
    zoom = re.search(r'<summary>the pins around the first difference \(([0-9.]+)-([0-9.]+) s '
                     r'of the capture\)</summary><img class="zoom"[^>]*src="data:image/png;'
                     r'base64,([^"]+)"', page)
    assert float(zoom.group(1)) == pytest.approx(lamp["t"] - 0.1, abs=1e-3)
    assert float(zoom.group(2)) == pytest.approx(lamp["t"] + 0.1, abs=1e-3)
    assert base64.b64decode(zoom.group(3))[:4] == b"\x89PNG"


def test_each_table_has_a_check_box_per_event_type(tower_test_page):
    src, page = tower_test_page
    boxes = re.findall(r'<input type="checkbox" class="show-type" data-table="0" '
                       r'value="(\w+)" checked>', page)
    assert boxes == sorted({e["type"] for e in src.events})


def test_the_page_tells_the_sessions_story_with_each_entry_at_its_time():
    src = open_source(str(CORPUS / "l1_p2_s05" / "events.jsonl"))
    page = report_html("t", src.info, source_timeline(src))
    entries = re.findall(r'<li data-t="([0-9.]+)">(.*?)</li>', page)
    texts = [re.sub(r"<[^>]+>", "", text) for _, text in entries]
    assert texts[0] == "3.4 s tower test BLANK 88, BLANK 88, BLANK 88"
    assert "player 1: INVENTORY WARRIOR 10, FOOD 24, GOLD 30" in texts[3]
    assert float(entries[3][0]) == pytest.approx(24.85, abs=0.01)
