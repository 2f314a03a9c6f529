"""`towerlab report` pages in a real browser: headless Chromium driven by selenium opens pages
made from the shared captures, the corpus and a conformance with a difference; the plot and the
table are there, clicking an event or the plot seeks the audio, and the console stays clean.

Needs Debian's chromium and chromium-driver (``make test`` installs them as root) and selenium
(the ``test`` extra of setup.cfg); skips saying so when they are missing (tests/chromium.py)."""
from __future__ import annotations

import io
import json
import shutil

import pytest

from tests.analysis.capload import CAPTURES
from tests.chromium import chromium, console_errors
from towerlab.cli import main

CORPUS = CAPTURES.parent / "corpus"
SHARED = sorted(p.name for p in CAPTURES.iterdir() if (p / "capture.sr").exists())


def _report(*argv) -> int:
    return main(["report", *[str(a) for a in argv]], io.StringIO())


@pytest.fixture(scope="module")
def browser():
    yield from chromium()


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    out = tmp_path_factory.mktemp("reports")
    made = {name: out / f"{name}.html" for name in SHARED}
    made.update({"corpus": out / "corpus.html", "conform": out / "conform.html"})
    for name in SHARED:
        assert _report(CAPTURES / name, "-o", made[name], "--audio-rate", "8000") == 0
    assert _report(CORPUS / "l1_p1_s01", "-o", made["corpus"], "--audio-rate", "8000") == 0
    # A reference the clean-room game cannot match: tower_test with its first lamp moved.
    ref = out / "tower_test_changed"
    shutil.copytree(CAPTURES / "tower_test", ref)
    lines = (ref / "events.jsonl").read_text().splitlines()
    first = next(i for i, line in enumerate(lines) if '"type": "lamp"' in line)
    ev = json.loads(lines[first])
    ev["lamp"] = "lower"
    lines[first] = json.dumps(ev)
    (ref / "events.jsonl").write_text("\n".join(lines) + "\n")
    assert _report(ref, "--conform", "-o", made["conform"]) == 1
    # A capture whose events file is empty: its sound, nothing decoded.
    empty = out / "tower_test_empty"
    shutil.copytree(CAPTURES / "tower_test", empty)
    (empty / "events.jsonl").write_text("")
    made["empty"] = out / "empty.html"
    assert _report(empty, "-o", made["empty"], "--audio-rate", "8000") == 0
    return made


def _open(browser, path):
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get_log("browser")              # drop what earlier pages logged
    browser.get(path.as_uri())
    WebDriverWait(browser, 60).until(lambda d: d.execute_script(
        "var a = document.getElementById('audio'); return !a || a.readyState >= 1;"))
    # Playing is the browser's business: keep the play position where the seek put it.
    browser.execute_script("var a = document.getElementById('audio');"
                           "if (a) { a.play = function () { return Promise.resolve(); }; }")


def _errors(browser) -> list[dict]:
    return console_errors(browser)


def _audio_time(browser) -> float:
    return browser.execute_script("return document.getElementById('audio').currentTime;")


def _rows(browser, table: int = 0):
    from selenium.webdriver.common.by import By
    return browser.find_elements(By.CSS_SELECTOR, f"#events{table} tbody tr")


@pytest.mark.parametrize("name", SHARED)
def test_the_page_of_a_shared_capture_shows_the_overview_plot(browser, pages, name):
    _open(browser, pages[name])
    size = browser.execute_script("var i = document.querySelector('#plot0 img');"
                                  "return [i.complete, i.naturalWidth, i.naturalHeight];")
    assert size[0] and size[1] == 1540 and size[2] > 300
    assert _errors(browser) == []


@pytest.mark.parametrize("name", SHARED)
def test_the_page_of_a_shared_capture_lists_every_event_and_has_its_sound(browser, pages,
                                                                         name):
    _open(browser, pages[name])
    n = sum(1 for line in open(CAPTURES / name / "events.jsonl") if line.strip())
    assert len(_rows(browser)) == n
    duration = browser.execute_script("return document.getElementById('audio').duration;")
    from captures.formats import open_capture
    info = open_capture(CAPTURES / name / "capture.sr").info
    assert duration == pytest.approx(info.total_samples / info.samplerate, abs=0.01)


def test_clicking_an_event_seeks_the_audio_to_its_time(browser, pages):
    _open(browser, pages["level_select"])
    row = _rows(browser)[100]
    t = float(row.get_attribute("data-t"))
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", row)
    row.click()
    assert _audio_time(browser) == pytest.approx(t, abs=0.01)
    assert "current" in row.get_attribute("class")
    assert _errors(browser) == []


def test_clicking_the_plot_seeks_the_audio_to_that_time(browser, pages):
    from selenium.webdriver.common.action_chains import ActionChains

    _open(browser, pages["level_select"])
    plot = browser.find_element("css selector", "#plot0")
    t0, t1, left, right = (float(plot.get_attribute(f"data-{k}"))
                           for k in ("t0", "t1", "left", "right"))
    width = plot.size["width"]
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", plot)
    x = (left + 0.5 * (right - left)) * width      # the middle of the time axis
    ActionChains(browser).move_to_element_with_offset(plot, int(x - width / 2), 0) \
        .click().perform()
    assert _audio_time(browser) == pytest.approx(t0 + 0.5 * (t1 - t0), abs=0.01 * (t1 - t0))
    assert _errors(browser) == []


def test_a_line_over_each_plot_shows_the_play_position(browser, pages):
    from selenium.webdriver.support.ui import WebDriverWait

    _open(browser, pages["conform"])
    row = _rows(browser, 1)[20]
    t = float(row.get_attribute("data-t"))
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", row)
    row.click()
    WebDriverWait(browser, 30).until(lambda d: d.execute_script(
        "return document.querySelectorAll('.playhead[style*=\"block\"]').length") == 2)
    for plot in browser.find_elements("css selector", ".plot"):
        t0, t1, left, right = (float(plot.get_attribute(f"data-{k}"))
                               for k in ("t0", "t1", "left", "right"))
        at = browser.execute_script(
            "return parseFloat(arguments[0].querySelector('.playhead').style.left);", plot)
        assert at == pytest.approx(100 * (left + (t - t0) / (t1 - t0) * (right - left)),
                                   abs=0.5)


def test_the_row_of_the_play_position_is_highlighted_as_the_audio_moves(browser, pages):
    from selenium.webdriver.support.ui import WebDriverWait

    _open(browser, pages["level_select"])
    rows = _rows(browser)
    target = rows[60]
    t = float(target.get_attribute("data-t"))
    later = next(float(r.get_attribute("data-t")) for r in rows[61:]
                 if float(r.get_attribute("data-t")) > t)
    browser.execute_script("document.getElementById('audio').currentTime = arguments[0];",
                           (t + later) / 2)
    WebDriverWait(browser, 30).until(lambda d: "current" in (target.get_attribute("class")
                                                             or ""))
    current = [r for r in rows if "current" in (r.get_attribute("class") or "")]
    assert len(current) == 1 and float(current[0].get_attribute("data-t")) == t


def test_a_corpus_session_opens_with_its_whole_sound(browser, pages):
    _open(browser, pages["corpus"])
    duration = browser.execute_script("return document.getElementById('audio').duration;")
    assert duration == pytest.approx(283.46, abs=0.05)
    n = sum(1 for line in open(CORPUS / "l1_p1_s01" / "events.jsonl") if line.strip())
    assert len(_rows(browser)) == n
    assert _errors(browser) == []


def test_a_conformance_marks_the_first_difference_on_both_timelines(browser, pages):
    from selenium.webdriver.common.by import By

    _open(browser, pages["conform"])
    assert len(browser.find_elements(By.CSS_SELECTOR, ".plot img")) == 2
    marked = browser.find_elements(By.CSS_SELECTOR, "tr.diff")
    assert [m.find_element(By.XPATH, "ancestor::table").get_attribute("id")
            for m in marked] == ["events0", "events1"]
    # The game lights the upper lamp where the changed reference lit the lower one: the
    # game's row is that lamp, the reference's its lower lamp at the same time.
    assert "lamp upper on" in marked[1].text
    assert float(marked[0].get_attribute("data-t")) <= \
        float(marked[1].get_attribute("data-t")) + 0.05
    difference = browser.find_element(By.ID, "difference").text
    # both lamps are at the same time: the game's is named as the difference, the
    # reference's lower lamp stands beside it in the context
    assert "game:      lamp upper on" in difference
    assert "lamp lower on" in difference.split("context (reference):", 1)[1]
    assert "differs" in browser.find_element(By.ID, "verdict").text
    marked[1].click()
    assert _audio_time(browser) == pytest.approx(float(marked[1].get_attribute("data-t")),
                                                 abs=0.01)
    assert _errors(browser) == []


def test_unticking_an_event_type_hides_its_rows(browser, pages):
    from selenium.webdriver.common.by import By

    _open(browser, pages["level_select"])
    box = browser.find_element(By.CSS_SELECTOR, 'input.show-type[data-table="0"][value="tone"]')
    box.click()
    rows = _rows(browser)
    shown = {r.get_attribute("data-type") for r in rows if r.is_displayed()}
    assert "tone" not in shown and {"display", "lamp", "button"} <= shown
    box.click()
    assert all(r.is_displayed() for r in rows if r.get_attribute("data-type") == "tone")


def test_clicking_a_story_entry_seeks_the_audio_to_its_turn(browser, pages):
    from selenium.webdriver.common.by import By

    _open(browser, pages["corpus"])
    entries = browser.find_elements(By.CSS_SELECTOR, "ol.story li")
    turn = next(e for e in entries if "player 1:" in e.text)
    t = float(turn.get_attribute("data-t"))
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", turn)
    turn.click()
    assert _audio_time(browser) == pytest.approx(t, abs=0.01)
    assert _errors(browser) == []


def test_a_recording_without_events_says_so_in_words_and_still_plays_its_sound(browser, pages):
    from selenium.webdriver.common.by import By

    _open(browser, pages["empty"])
    said = browser.find_element(By.ID, "empty0").text
    assert said.startswith("No events:") and "no table or story" in said
    assert browser.find_elements(By.CSS_SELECTOR, "table.events, p.filter, ol.story") == []
    assert browser.execute_script("return document.getElementById('audio').duration") == \
        pytest.approx(15.51, abs=0.01)
    browser.find_element(By.CSS_SELECTOR, "#plot0").click()    # seeks the sound still
    assert _audio_time(browser) > 0
    assert _errors(browser) == []


def test_on_a_phone_the_page_is_as_wide_as_the_screen(browser, pages):
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": 360, "height": 740, "deviceScaleFactor": 2, "mobile": True})
    try:
        _open(browser, pages["conform"])
        width, scroll = browser.execute_script(
            "var d = document.documentElement; return [d.clientWidth, d.scrollWidth];")
        assert width == 360 and scroll <= width
        assert _errors(browser) == []
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
