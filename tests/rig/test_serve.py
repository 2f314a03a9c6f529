"""`towerlab serve` without a browser: the session's time, keys and streamed events on each
backend, the websocket protocol, and the command line's refusals. The page in a real browser:
tests/rig/test_serve_browser.py."""
from __future__ import annotations

import asyncio
import io
import json

import pytest

from rig.specs import TargetSpec
from rig.web.backends import open_session
from rig.web.session import SessionError
from tests.analysis.capload import CAPTURES
from towerlab.cli import main


def _run(coro):
    return asyncio.run(coro)


async def _with(session, body):
    """Run ``body(session)`` with the session open, closing it after."""
    try:
        return await body(session)
    finally:
        await session.close()


def _texts(events):
    return [e["text"] for e in events if e["type"] == "display"]


def test_a_manual_session_runs_the_tower_only_as_far_as_it_is_advanced():
    async def body(s):
        await s.advance(1.0)
        return s.horizon, s.sent

    horizon, sent = _run(_with(open_session(TargetSpec("cleanroom", seed=0), "manual"), body))
    assert horizon == pytest.approx(1.0)
    assert sent and max(e["t"] for e in sent) <= 1.0 and "--" in _texts(sent)


def test_a_click_shorter_than_a_scan_is_held_for_hold_s():
    async def body(s):
        await s.advance(1.0)
        await s.press("YES/BUY")
        await s.release("YES/BUY")            # at once, as a mouse click
        await s.advance(1.0)
        return [(e["t"], e["action"]) for e in s.sent if e["type"] == "button"]

    presses = _run(_with(open_session(TargetSpec("cleanroom", seed=0), "manual"), body))
    assert [a for _, a in presses] == ["press", "release"]
    assert presses[1][0] - presses[0][0] == pytest.approx(0.2, abs=1e-6)


def test_the_demo_firmware_on_the_emulator_answers_a_key_through_the_session():
    async def body(s):
        await s.advance(2.0)
        await s.press("YES/BUY")
        await s.release("YES/BUY")
        await s.advance(3.0)
        return s.sent, s.about, s.settle_s

    sent, about, settle = _run(_with(open_session(TargetSpec("emu"), "manual"), body))
    assert "demo firmware" in about
    # the tower runs settle_s ahead of what the page shows: the key closes there
    press = next(e["t"] for e in sent if e["type"] == "button")
    assert press == pytest.approx(2.0 + settle, abs=0.01)
    assert any(e["type"] == "tone" and e["t"] > press for e in sent)      # the key's click


def test_a_recording_is_replayed_with_its_length_and_takes_no_keys():
    folder = str(CAPTURES / "level_select")

    async def body(s):
        with pytest.raises(SessionError, match="takes no keys"):
            await s.press("MOVE")
        await s.seek(15.0)
        return s.length_s, s.sent

    length, sent = _run(_with(open_session(TargetSpec("replay", replay=folder), "manual"),
                              body))
    assert length == pytest.approx(37.825)
    recorded = [json.loads(line) for line in open(CAPTURES / "level_select" / "events.jsonl")]
    assert sent == [e for e in recorded if e["t"] <= 15.0]


def test_a_live_tower_cannot_be_sought_and_an_unknown_key_is_named():
    async def body(s):
        with pytest.raises(SessionError, match="cannot go back"):
            await s.seek(0.0)
        with pytest.raises(SessionError, match="unknown key 'JUMP'"):
            await s.press("JUMP")

    _run(_with(open_session(TargetSpec("cleanroom", seed=0), "manual"), body))


def test_the_wall_pace_runs_the_tower_a_settle_and_a_frame_ahead_of_the_play_time():
    now = [100.0]

    async def body(s):
        s._clock = lambda: now[0]
        s._since = now[0]
        now[0] += 2.0
        await s.tick()
        return s.position(), s.horizon, s.tower.now

    session = open_session(TargetSpec("emu"), "wall")
    position, horizon, head = _run(_with(session, body))
    assert position == pytest.approx(2.0)
    assert head == pytest.approx(2.0 + session.settle_s + session.lead_s)
    assert horizon == pytest.approx(2.0 + session.lead_s)


def test_the_websocket_says_hello_then_streams_events_and_errors():
    from aiohttp.test_utils import TestClient, TestServer

    from rig.web.server import make_app

    async def body():
        session = open_session(TargetSpec("cleanroom", seed=0), "manual")
        async with TestClient(TestServer(make_app(session))) as client:
            ws = await client.ws_connect("/ws")
            hello = await ws.receive_json(timeout=30)
            await ws.send_json({"kind": "advance", "s": 0.5})
            got = [await ws.receive_json(timeout=30) for _ in range(2)]
            await ws.send_json({"kind": "press", "button": "JUMP"})
            error = await ws.receive_json(timeout=30)
            page = await (await client.get("/")).text()
            api = await (await client.get("/api/events")).json()
            await ws.close()
        return hello, got, error, page, api

    hello, got, error, page, api = _run(body())
    assert hello["kind"] == "hello" and hello["live"] and not hello["seekable"]
    assert len(hello["buttons"]) == 12 and hello["glyphs"]["8"] == "abcdefg"
    assert [m["kind"] for m in got] == ["events", "clock"]
    assert got[0]["horizon"] == pytest.approx(0.5) and got[1]["t"] == pytest.approx(0.5)
    assert error == {"kind": "error", "message": "unknown key 'JUMP' (expected one of "
                     "YES/BUY, REPEAT, NO/END, HAGGLE, BAZAAR, CLEAR, TOMB/RUIN, MOVE, "
                     "SANCTUARY/CITADEL, DARK TOWER, FRONTIER, INVENTORY)"}
    assert "/static/tower.js" in page and "http" not in page.split("<body>")[1]
    assert api["horizon"] == pytest.approx(0.5)
    assert api["events"] == hello["events"] + got[0]["events"]


def test_a_tower_on_the_virtual_bench_is_mirrored_and_takes_keys(avr_tools,
                                                                  has_fx2lafw_firmware):
    # the rig's own code path to a real tower: button box firmware in simavr, the simulated
    # analyser, the pin-level fake tower inside (it shows a key's number while pressed)
    async def body(s):
        await s.advance(1.0)
        await s.press("MOVE")
        await s.release("MOVE")
        await s.advance(1.5)
        return s.sent

    sent = _run(_with(open_session(TargetSpec("sim", virtual="fake"), "manual"), body))
    press = next(e for e in sent if e["type"] == "button" and e["action"] == "press")
    assert press["button"] == "MOVE"
    assert any(e["type"] == "lamp" and e["on"] and e["t"] >= press["t"] for e in sent)
    assert "08" in _texts(sent)                # MOVE is the 8th key


def _serve(*argv) -> tuple[int, str]:
    import contextlib

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = main(["serve", *argv], io.StringIO())
    return status, err.getvalue()


@pytest.mark.parametrize("argv,message", [
    (["--listen", "localhost:http"], "--listen 'localhost:http': expected HOST:PORT"),
    (["--replay", "/nonexistent/rec"], "/nonexistent/rec: no events.jsonl"),
    (["--target", "real"], "needs the button box's serial port"),
    (["--target", "cleanroom", "--firmware", "demo"], "--target cleanroom does not go with"),
    (["--target", "replay"], "--target replay needs the recording"),
    (["--seed", "-1"], "seed -1: expected a whole number, 0 or more"),
    (["--firmware", "demo", "--seed", "3"], "--seed 3 is the clean-room game's"),
    (["--port", "/dev/ttyACM0"], "--port '/dev/ttyACM0' is the real tower's serial port"),
])
def test_serve_refuses_bad_input_with_one_line_and_status_2(argv, message):
    status, err = _serve(*argv)
    assert status == 2 and message in err and err.count("\n") == 1


class _LateTower:
    """A tower that reports a long note only when it has ended, as the emulator's speaker
    decoder does (t = its start): a display at 0.1 s, a 1 s note from 0.2 s known at 1.2 s."""

    def __init__(self):
        self.now = 0.0

    def advance(self, seconds):
        self.now += seconds

    def events(self):
        out = [{"t": 0.1, "type": "display", "text": "88"}]
        if self.now >= 1.2:
            out.append({"t": 0.2, "type": "tone", "freq_hz": 440.0, "dur_s": 1.0})
        if self.now >= 0.5:
            out.append({"t": 0.5, "type": "display", "text": "  "})
        return sorted(out, key=lambda e: e["t"])

    def press(self, button):
        pass

    def release(self, button):
        pass

    def close(self):
        pass


def test_an_event_that_comes_late_is_sent_as_new_not_as_a_reset():
    from rig.web.session import TowerSession

    said = []

    async def body(s):
        s.subscribe(said.append)
        await s.advance(1.0)
        await s.advance(0.5)
        return s.sent

    session = TowerSession(_LateTower(), title="t", about="a", pace="manual", settle_s=0.0)
    sent = _run(_with(session, body))
    kinds = [m["kind"] for m in said if m["kind"] in ("events", "reset")]
    assert "reset" not in kinds
    late = [m["events"] for m in said if m["kind"] == "events"][-1]
    assert late == [{"t": 0.2, "type": "tone", "freq_hz": 440.0, "dur_s": 1.0}]
    assert [e["t"] for e in sent] == [0.1, 0.2, 0.5]
