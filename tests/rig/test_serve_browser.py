"""`towerlab serve` in a real browser (headless Chromium through selenium, tests/chromium.py).

A game of the clean-room backend is played by clicking the page's keys (level selection, a
MOVE that ends in a battle, the bazaar), with the tower's time stepped from the test (the
manual pace: nothing races the wall clock); after every step what the page shows (the digits'
lit segments, each window's lamp and picture, the reel's card) is checked against the fold of
the backend's own events at the page's time, and every tone against the Web Audio scheduled
for it. A recording is scrubbed on its timeline; on the wall clock the page draws every event
at the first frame at or after its time. No test leaves anything in the console.
"""
from __future__ import annotations

import time

import pytest

from captures.darktower_facts import CARD_IMAGES, GLYPH_SEGMENTS
from rig.specs import TargetSpec
from rig.web.backends import open_session
from rig.web.server import ServerThread
from tests.analysis.capload import CAPTURES
from tests.chromium import chromium, console_errors

DEADLINE_S = 30.0          # every wait fails loudly after this long
STEP_S = 0.5               # tower seconds per step of the game


@pytest.fixture(scope="module")
def browser():
    yield from chromium("--autoplay-policy=no-user-gesture-required")


def _wait(what: str, ok, deadline_s: float = DEADLINE_S):
    """Poll ``ok()`` until it returns something true; fail naming ``what`` at the deadline."""
    end = time.monotonic() + deadline_s
    while True:
        got = ok()
        if got:
            return got
        if time.monotonic() > end:
            pytest.fail(f"waited {deadline_s:g} s for {what}")
        time.sleep(0.02)


def _open(browser, srv: ServerThread, manual: bool = True) -> None:
    console_errors(browser)
    browser.get(srv.url)
    _wait("the page's hello", lambda: browser.execute_script(
        "return window.towerlab && window.towerlab.ready"))
    if manual:
        # the page draws what it holds at its next animation frame, and events the backend
        # made after the hello come in a message of their own: with the tower's time
        # standing still, wait until the page shows what the backend's events make of it
        # (a loaded machine is slower at both)
        _wait("the page showing the backend's first events", lambda: _shows(browser, srv))


def _shows(browser, srv: ServerThread) -> bool:
    try:
        _check_shown(browser, srv)
    except AssertionError:
        return False
    return True


def _advance(browser, seconds: float) -> float:
    """Step the tower's time by ``seconds`` from the page; return the page's time after."""
    target = browser.execute_script("return towerlab.time") + seconds
    browser.execute_script("towerlab.advance(arguments[0])", seconds)
    return _wait(f"the page at {target:.3f} s", lambda: browser.execute_script(
        "return towerlab.time >= arguments[0] - 1e-6 && towerlab.time", target))


def _backend_events(srv: ServerThread) -> list[dict]:
    """Return the backend tower's own events (read on the tower's thread)."""
    session = srv.session
    return srv.call(session._run(session.tower.events))


def _fold(events: list[dict], t: float) -> dict:
    """Return what the tower shows at ``t`` after ``events``: text, lamps, card."""
    shown = {"text": "  ", "lamps": {"upper": 0, "middle": 0, "lower": 0}, "card": None}
    for e in events:
        if e["t"] > t + 1e-9:
            break
        if e["type"] == "display":
            shown["text"] = e["text"]
        elif e["type"] == "lamp":
            shown["lamps"][e["lamp"]] = e["on"]
        elif e["type"] == "reel":
            shown["card"] = e["card_pos"]
    return shown


_PAGE = """
var out = {t: towerlab.time, digits: [], windows: {}, card: document.getElementById("reel")
           .getAttribute("data-card")};
for (var d = 0; d < 2; d++) {
  out.digits.push(Array.prototype.map.call(document.querySelectorAll("#digit" + d + " .on"),
                  function (p) { return p.getAttribute("data-seg"); }).sort().join(""));
}
["upper", "middle", "lower"].forEach(function (lamp) {
  var w = document.getElementById("window-" + lamp);
  out.windows[lamp] = [w.classList.contains("lit"), w.querySelector(".picture").textContent];
});
return out;
"""


def _check_shown(browser, srv: ServerThread) -> dict:
    """Check the page's digits, windows and reel against the backend's events at the page's
    time; return the page's view."""
    page = browser.execute_script(_PAGE)
    want = _fold(_backend_events(srv), page["t"])
    assert page["digits"] == ["".join(sorted(GLYPH_SEGMENTS.get(ch, ""))) for ch in
                              want["text"]], f"digits at {page['t']:.3f} s"
    card = want["card"]
    assert page["card"] == ("" if card is None else str(card))
    for lamp, (lit, picture) in page["windows"].items():
        assert lit == bool(want["lamps"][lamp]), f"{lamp} lamp at {page['t']:.3f} s"
        named = (CARD_IMAGES[lamp][card] or "blank") if card is not None else "?"
        assert picture == (named if lit else ""), f"{lamp} window at {page['t']:.3f} s"
    return page


def _click(browser, button: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    key = browser.find_element("css selector", f'#keypad button[data-button="{button}"]')
    ActionChains(browser).click(key).perform()


def _tap(browser, button: str) -> None:
    """Touch a key with a finger (pointer events of type touch)."""
    from selenium.webdriver.common.actions import interaction
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.actions.pointer_input import PointerInput

    key = browser.find_element("css selector", f'#keypad button[data-button="{button}"]')
    actions = ActionBuilder(browser, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
    actions.pointer_action.move_to(key).pointer_down().pause(0.05).pointer_up()
    actions.perform()


def _until(browser, srv, text: str, limit_s: float, seen: set) -> None:
    """Step the tower until the display shows ``text`` (a prompt flashes: it is in the events
    once lit), checking the page at every step; the pictures lit on the way go to ``seen``."""
    start = browser.execute_script("return towerlab.time")
    while True:
        page = _check_shown(browser, srv)
        seen.update(p for lit, p in page["windows"].values() if lit)
        if browser.execute_script(
                "var text = arguments[0], start = arguments[1];"
                "return towerlab.events.some(function (e) { return e.type === 'display' && "
                "e.text === text && e.t > start; })", text, start):
            return
        if page["t"] - start > limit_s:
            pytest.fail(f"{text!r} did not show within {limit_s:g} s of tower time after "
                        f"{start:.2f} s")
        _advance(browser, STEP_S)


def _check_tones(browser, srv) -> int:
    """Check that every tone the backend played up to the page's time has its Web Audio
    oscillator scheduled, at its frequency; return how many."""
    t, scheduled = browser.execute_script("return [towerlab.time, towerlab.tones]")
    tones = [e for e in _backend_events(srv) if e["type"] == "tone" and e["t"] <= t]
    keyed = {(round(s["t"], 6), round(s["freq"], 3)) for s in scheduled}
    missing = [e for e in tones
               if (round(e["t"], 6), round(e["freq_hz"] or 1000.0, 3)) not in keyed]
    assert not missing, f"{len(missing)} tones without Web Audio, first {missing[0]}"
    return len(tones)


def test_a_game_played_by_clicking_keys_against_the_clean_room_game(browser):
    from selenium.webdriver.common.keys import Keys

    with ServerThread(open_session(TargetSpec("cleanroom", seed=0), "manual")) as srv:
        _open(browser, srv)
        seen: set[str] = set()
        _until(browser, srv, "--", 3, seen)
        _click(browser, "YES/BUY")                       # the tower test
        _until(browser, srv, "L1", 15, seen)
        assert seen == {"blank"}                         # its lamps light the blank card
        browser.find_element("tag name", "body").send_keys("3")   # the keyboard: NO/END
        _until(browser, srv, "L2", 3, seen)
        _click(browser, "NO/END")
        _until(browser, srv, "L3", 3, seen)
        for _ in range(2):                               # round to L1 again
            _click(browser, "NO/END")
            _advance(browser, STEP_S)
        _until(browser, srv, "L1", 3, seen)
        _click(browser, "YES/BUY")
        _until(browser, srv, "P1", 3, seen)
        _tap(browser, "YES/BUY")                         # a finger: one player
        _until(browser, srv, " 1", 15, seen)

        battle = False
        for _ in range(6):                               # MOVE until a battle
            seen.clear()
            _click(browser, "MOVE")
            _until(browser, srv, "-1", 40, seen)
            if {"BRIGANDS", "WARRIORS"} <= seen:
                battle = True
                break
            _click(browser, "NO/END")
            _until(browser, srv, " 1", 10, seen)
        assert battle, "six MOVEs without a battle"
        story = browser.execute_script("return towerlab.story")
        assert any(e["action"] == "MOVE" and "battle" in e["what"] for e in story)
        assert browser.find_element("id", "story").text.count("player 1: MOVE") >= 1

        _click(browser, "NO/END")
        _until(browser, srv, " 1", 10, seen)
        bought = False
        for _ in range(4):                               # the bazaar until it is open
            seen.clear()
            _click(browser, "BAZAAR")
            _until(browser, srv, "--", 15, seen)
            if "WARRIOR" in seen and "BAZAAR CLOSED" not in seen:
                _click(browser, "YES/BUY")               # one warrior
                _until(browser, srv, "01", 5, seen)
                _click(browser, "NO/END")                # pay: the gold left
                _until(browser, srv, "-1", 10, seen)
                bought = "GOLD" in seen
                break
            _until(browser, srv, "-1", 10, seen)
            _click(browser, "NO/END")
            _until(browser, srv, " 1", 10, seen)
        assert bought, "the bazaar never sold a warrior"
        assert _check_tones(browser, srv) > 20
        browser.find_element("tag name", "body").send_keys(Keys.ESCAPE)
        assert console_errors(browser) == []


def _scrub(browser, t: float) -> None:
    """Drag the timeline to ``t`` (the input events a drag fires) and wait for the page."""
    browser.execute_script(
        "var line = document.getElementById('timeline'); line.value = arguments[0];"
        "line.dispatchEvent(new Event('input')); line.dispatchEvent(new Event('change'));", t)
    _wait(f"the page at {t} s", lambda: browser.execute_script(
        "return Math.abs(towerlab.time - arguments[0]) < 1e-6", t))


def test_a_recording_scrubbed_to_a_time_shows_the_state_at_that_time(browser):
    from captures.events import read_events

    folder = CAPTURES / "level_select"
    events = read_events(str(folder / "events.jsonl"))
    spec = TargetSpec("replay", replay=str(folder))
    with ServerThread(open_session(spec, "manual")) as srv:
        _open(browser, srv)
        assert browser.execute_script("return towerlab.hello.seekable")
        for t in (15.0, 7.5, 30.0):                      # forwards, back, forwards
            _scrub(browser, t)
            page = _check_shown(browser, srv)
            assert page["t"] == t
            current = browser.find_element("css selector", "#events tr.current")
            last = max(i for i, e in enumerate(events) if e["t"] <= t)
            assert int(current.get_attribute("data-i")) == last
        # at 7.5 s the tower test lights the upper lamp on the blank card; at 30 s 'P2' is
        # chosen and the overture plays
        _scrub(browser, 7.5)
        assert browser.execute_script(_PAGE)["windows"]["upper"] == [True, "blank"]
        story = browser.find_element("css selector", "#story li.current").text
        assert "tower test" in story
        assert console_errors(browser) == []


def test_on_the_wall_clock_every_event_is_drawn_at_the_first_frame_at_or_after_its_time(
        browser):
    with ServerThread(open_session(TargetSpec("cleanroom", seed=0), "wall")) as srv:
        _open(browser, srv, manual=False)
        _wait("3 s of tower time", lambda: browser.execute_script(
            "return towerlab.time >= 3.0"))
        _click(browser, "YES/BUY")                       # the tower test: lamps, reel, tones
        _wait("10 s of tower time", lambda: browser.execute_script(
            "return towerlab.time >= 10.0"))
        drawn, frames = browser.execute_script("return [towerlab.drawn, towerlab.frames]")
        assert len(drawn) > 20
        for i, d in drawn.items():
            # drawn at the first frame whose time reached it: the frame before was earlier
            assert d["since"] < d["t"] <= d["at"] + 1e-9, f"event {i} {d}"
        steps = sorted(f[0] for f in frames)
        assert steps[len(steps) // 2] < 1000 / 30          # median frame interval, ms
        assert _check_tones(browser, srv) >= 3          # the key click and the lamps
        assert console_errors(browser) == []


def test_clicks_faster_than_a_held_key_close_it_again_only_after_it_opened(browser):
    # three clicks before the tower's time moves: the first closes the key at once, the
    # second after the first has been held and let go (hold_s each), the third is dropped
    # while the second waits; the tower never sees a key closed twice
    with ServerThread(open_session(TargetSpec("cleanroom", seed=0), "manual")) as srv:
        _open(browser, srv)
        _advance(browser, 1.0)
        for _ in range(3):
            _click(browser, "CLEAR")
        _advance(browser, 2.0)
        keys = [(e["t"], e["action"]) for e in _backend_events(srv)
                if e["type"] == "button" and e["button"] == "CLEAR"]
        hold = srv.session.hold_s
        assert [a for _, a in keys] == ["press", "release"] * 2
        assert [t - keys[0][0] for t, _ in keys] == pytest.approx(
            [0.0, hold, 2 * hold, 3 * hold], abs=1e-6)
        assert console_errors(browser) == []


def test_play_at_the_end_of_a_recording_plays_it_again_from_its_start(browser):
    spec = TargetSpec("replay", replay=str(CAPTURES / "tower_test"))
    with ServerThread(open_session(spec, "manual")) as srv:
        _open(browser, srv)
        _scrub(browser, srv.session.length_s)
        play = browser.find_element("id", "play")
        assert play.text == "play"
        play.click()
        _wait("the page back at 0 s, playing", lambda: browser.execute_script(
            "return towerlab.time === 0 && document.getElementById('play').textContent "
            "=== 'pause'"))
        _advance(browser, 2.0)
        _check_shown(browser, srv)
        assert console_errors(browser) == []


@pytest.fixture(scope="module")
def strict_browser():
    """Chromium with its default autoplay policy: sound only after a user gesture."""
    yield from chromium()


def test_sound_starts_only_at_a_gesture_and_the_page_says_how_to_turn_it_on(strict_browser):
    browser = strict_browser
    spec = TargetSpec("replay", replay=str(CAPTURES / "level_select"))
    with ServerThread(open_session(spec, "manual")) as srv:
        browser.get_log("browser")
        _open(browser, srv)
        _advance(browser, 8.0)                          # the tower test's tones, unheard
        sound = browser.find_element("id", "sound")
        assert sound.get_attribute("data-sound") == "off"
        assert "click here (or any key) to hear the tower" in sound.text
        assert browser.execute_script("return [towerlab.audio, towerlab.tones.length]") == \
            ["none", 0]
        assert browser.get_log("browser") == []        # no autoplay warning either
        sound.click()
        _wait("the sound on", lambda: sound.get_attribute("data-sound") == "on")
        assert sound.text == "sound on: click to mute"
        _advance(browser, 8.0)
        assert browser.execute_script("return towerlab.tones.length") > 0
        sound.click()
        assert sound.get_attribute("data-sound") == "muted"
        assert browser.get_log("browser") == []


def test_a_stopped_server_is_said_in_plain_words_and_the_page_reconnects_when_it_is_back(
        browser):
    srv = ServerThread(open_session(TargetSpec("cleanroom", seed=0), "manual"))
    try:
        _open(browser, srv)
        _advance(browser, 1.0)
        port = int(srv.url.rstrip("/").rsplit(":", 1)[1])
    finally:
        srv.stop()
    error = browser.find_element("id", "error")
    _wait("the page saying the server stopped", lambda: "The server stopped" in error.text)
    assert "Start it again: this page reconnects by itself." in error.text
    assert browser.find_element("id", "mode").text == "disconnected"
    _click(browser, "YES/BUY")                          # nothing to send it to: no error
    with ServerThread(open_session(TargetSpec("cleanroom", seed=1), "manual"),
                      port=port) as srv:
        _wait("the page reconnected", lambda: browser.execute_script(
            "return towerlab.connected && towerlab.hello.about.indexOf('seed 1') >= 0"))
        assert error.text == ""
        _wait("the page showing the new game", lambda: _shows(browser, srv))
        _advance(browser, 3.0)
        _click(browser, "YES/BUY")                      # the new game takes keys
        _advance(browser, 1.0)
        assert [e["action"] for e in _backend_events(srv) if e["type"] == "button"] == \
            ["press", "release"]
        _check_shown(browser, srv)
        # while the server was away, the browser said each try it made went unanswered;
        # nothing else
        for entry in browser.get_log("browser"):
            assert entry["source"] == "network" and "ERR_CONNECTION_REFUSED" in \
                entry["message"] and "/ws" in entry["message"], entry


_OUTSIDE = """
var width = document.documentElement.clientWidth, out = [];
document.querySelectorAll("button, input, #length, #tower, #side").forEach(function (el) {
  var r = el.getBoundingClientRect();
  if (el.offsetParent !== null && (r.left < 0 || r.right > width + 0.5)) {
    out.push((el.id || el.getAttribute("data-button")) + " " + r.left + "-" + r.right);
  }
});
return [width, document.documentElement.scrollWidth, out];
"""


@pytest.mark.parametrize("target", ["replay", "cleanroom"])
def test_on_a_phone_every_control_is_inside_the_window(browser, target):
    spec = TargetSpec("replay", replay=str(CAPTURES / "tower_test")) if target == "replay" \
        else TargetSpec("cleanroom", seed=0)
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": 360, "height": 740, "deviceScaleFactor": 2, "mobile": True})
    try:
        with ServerThread(open_session(spec, "manual")) as srv:
            _open(browser, srv)
            width, scroll, outside = browser.execute_script(_OUTSIDE)
            assert width == 360 and outside == [] and scroll <= width
            assert console_errors(browser) == []
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_the_arrow_keys_on_the_timeline_move_a_recording_by_a_step_one_can_see(browser):
    from selenium.webdriver.common.keys import Keys

    spec = TargetSpec("replay", replay=str(CAPTURES / "level_select"))
    with ServerThread(open_session(spec, "manual")) as srv:
        _open(browser, srv)
        _scrub(browser, 10.0)
        length = srv.session.length_s
        line = browser.find_element("id", "timeline")
        line.send_keys(Keys.ARROW_RIGHT)                # a hundredth of the recording
        _wait("the page past 10 s", lambda: browser.execute_script(
            "return towerlab.time > 10.0 && towerlab.time"))
        assert browser.execute_script("return towerlab.time") == pytest.approx(
            10.0 + length / 100, abs=1e-3)
        line.send_keys(Keys.PAGE_DOWN)                  # a tenth back
        _wait("the page a tenth back", lambda: browser.execute_script(
            "return towerlab.time < 10.0"))
        assert console_errors(browser) == []


def test_a_key_on_a_recording_says_why_and_an_old_error_goes_at_the_next_request(browser):
    spec = TargetSpec("replay", replay=str(CAPTURES / "tower_test"))
    with ServerThread(open_session(spec, "manual")) as srv:
        _open(browser, srv)
        error = browser.find_element("id", "error")
        _click(browser, "MOVE")
        assert error.text.startswith("A recording takes no keys (it replays its own)")
        browser.execute_script("towerlab.seek(-5)")      # refused by the server
        _wait("the server's refusal", lambda: error.text.startswith("seek: -5 is not a time"))
        _scrub(browser, 5.0)
        assert error.text == ""
        assert console_errors(browser) == []


def test_a_key_focused_with_tab_is_pressed_by_enter_and_space(browser):
    from selenium.webdriver.common.keys import Keys

    with ServerThread(open_session(TargetSpec("cleanroom", seed=0), "manual")) as srv:
        _open(browser, srv)
        _advance(browser, 1.0)
        key = browser.find_element("css selector", '#keypad button[data-button="CLEAR"]')
        key.send_keys(Keys.ENTER)
        _advance(browser, 1.0)
        key.send_keys(Keys.SPACE)
        _advance(browser, 1.0)
        assert [e["action"] for e in _backend_events(srv)
                if e["type"] == "button" and e["button"] == "CLEAR"] == ["press", "release"] * 2
        assert console_errors(browser) == []


def test_a_key_held_when_the_window_loses_the_focus_is_let_go(browser):
    from selenium.webdriver.common.action_chains import ActionChains

    with ServerThread(open_session(TargetSpec("cleanroom", seed=0), "manual")) as srv:
        _open(browser, srv)
        _advance(browser, 1.0)
        ActionChains(browser).key_down("e").perform()      # CLEAR, held ...
        _advance(browser, 0.5)
        browser.execute_script("window.dispatchEvent(new Event('blur'))")   # ... and away
        _advance(browser, 1.0)
        assert [e["action"] for e in _backend_events(srv)
                if e["type"] == "button" and e["button"] == "CLEAR"] == ["press", "release"]
        ActionChains(browser).key_up("e").perform()        # (the keyup the page never saw)
        assert console_errors(browser) == []
