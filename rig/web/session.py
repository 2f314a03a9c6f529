"""One tower shown to web pages: its time, its keys, and the events it showed, streamed.

``TowerSession`` holds a tower behind the ``captures.tower.Tower`` protocol (the clean-room
game, the emulator, a recording, a real tower through the rig: ``rig.web.backends``) and
knows nothing else of it. Every call to the tower runs on one worker thread (a real tower's
``advance`` waits on the button box; a page must not wait with it).

Time. The *play position* is the tower time a page shows. With ``pace="wall"`` it follows
the wall clock while playing (``clock`` seconds); with ``pace="manual"`` it moves only by
``advance(seconds)`` (tests drive the tower's simulated time this way and never race the
wall clock). The tower itself is run ``settle_s + lead_s`` ahead of the play position:

- ``settle_s``: a decoder at the live edge may still add or change its newest events (the
  emulator's display windows close a 1/60 s frame later, a real tower's capture arrives in
  blocks), so only events up to ``head - settle_s`` (the *horizon*) are sent, and sent once;
- ``lead_s``: events reach the page before their time (one frame by default), so the page
  draws each at the first frame at or after its time and schedules each tone's sound ahead.

A page never runs its clock past the horizon it was sent (``static/tower.js``): if the tower
falls behind, the page waits instead of missing events.

Keys. ``press`` closes a key at the tower's current time; ``release`` opens it, but not
before the key has been held ``hold_s`` of tower time (a click of a mouse is shorter than one
scan of the keypad). A key pressed again before its release is due closes again ``hold_s``
after that release (the keypad must see it open between two presses); one such press is kept
in reserve per key, and clicks beyond it while it waits are dropped, so a burst of clicks does
not queue presses for seconds to come. A recording takes no keys (``live`` False) and can be
sought instead.

Listeners (``subscribe``) get JSON-ready messages: ``events`` (new events and the horizon; one
that came late, before others already sent, is among them and the page puts it in place),
``clock`` (the play position, whether it runs), ``story`` (``analysis.story`` entries),
``reset`` (the whole event list, when a backend changed what it had already said) and
``error`` (one line). ``hello()`` is what a new page needs first.
"""
from __future__ import annotations

import asyncio
import bisect
import json
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from captures.darktower_facts import BUTTONS, CARD_IMAGES, GLYPH_SEGMENTS
from rig.errors import RigError

__all__ = ["TowerSession", "SessionError", "FRAME_S", "HOLD_S", "PACES"]

FRAME_S = 1 / 60        # one display frame (s): the page's refresh and the default lead
HOLD_S = 0.2            # a key is held at least this long (tower seconds), as rig.play does
PACES = ("wall", "manual")
STORY_EVERY_S = 0.5     # the story is retold at most this often (wall seconds)
EDGE_S = 0.001          # the least settle: an event made at the head is past the horizon
LATE_S = 5.0            # an event may come this late (s of tower time); older ones are final


class SessionError(RigError):
    """A page asked for something the session cannot do (a key on a recording, a seek on a
    live tower, an unknown key); one line."""


def _time(event: dict) -> float:
    return event["t"]


def _key(event: dict) -> str:
    return json.dumps(event, sort_keys=True)


class TowerSession:
    """A tower, its play position and the events sent so far (module doc)."""

    def __init__(self, tower, *, title: str, about: str, live: bool = True,
                 length_s: float | None = None, pace: str = "wall", settle_s: float = 0.05,
                 lead_s: float = FRAME_S, poll_s: float = FRAME_S, hold_s: float = HOLD_S,
                 keymap: dict[str, str] | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 on_close: Callable[[], None] | None = None):
        if pace not in PACES:
            raise SessionError(f"unknown pace {pace!r} (expected one of {', '.join(PACES)})")
        self.tower = tower
        self.title, self.about = title, about
        self.live, self.length_s, self.pace = live, length_s, pace
        self.settle_s = settle_s
        self.lead_s = 0.0 if pace == "manual" else lead_s
        self.poll_s, self.hold_s = poll_s, hold_s
        self.keymap = dict(keymap or {})
        self._clock = clock
        self._on_close = on_close
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tower")
        self._lock = asyncio.Lock()
        self.sent: list[dict] = []          # events sent, in the tower's order
        self.horizon = 0.0                  # every event up to here has been sent
        self._position = 0.0                # play position at ``_since`` (wall clock)
        self._since = clock()
        self.playing = pace == "wall"
        self._held: dict[str, float] = {}   # key -> tower time it was pressed
        # keys opened and closed later than asked: (tower time, "press"|"release", key)
        self._pending: list[tuple[float, str, str]] = []
        self._listeners: list[Callable[[dict], Any]] = []
        self.story: list[dict] = []
        self._story_at = -1e9
        self._story_sent = 0
        self._closed = False
        self._task: asyncio.Task | None = None

    # -- what a page is told ------------------------------------------------------------------

    def hello(self) -> dict:
        """Return the first message for a new page: what it shows and how."""
        from analysis.plot import BUTTON_SHORT

        return {"kind": "hello", "title": self.title, "about": self.about, "live": self.live,
                "seekable": self.length_s is not None, "length_s": self.length_s,
                "pace": self.pace, "frame_s": FRAME_S, "hold_s": self.hold_s,
                "buttons": list(BUTTONS), "short": BUTTON_SHORT, "keymap": self.keymap,
                "glyphs": GLYPH_SEGMENTS, "cards": CARD_IMAGES,
                "events": self.sent, "horizon": self.horizon, "clock": self.clock_message(),
                "story": self.story}

    def position(self) -> float:
        """Return the play position (tower seconds) now."""
        t = self._position
        if self.playing and self.pace == "wall":
            t += self._clock() - self._since
        if self.length_s is not None:
            t = min(t, self.length_s)
        return t

    def clock_message(self) -> dict:
        """Return the ``clock`` message: the play position and whether it runs."""
        return {"kind": "clock", "t": self.position(), "playing": self.playing}

    def subscribe(self, listener: Callable[[dict], Any]) -> Callable[[], None]:
        """Call ``listener(message)`` for every later message (a coroutine function is
        awaited); return the function that unsubscribes it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    async def _say(self, message: dict) -> None:
        for listener in list(self._listeners):
            result = listener(message)
            if asyncio.iscoroutine(result):
                try:
                    await result
                except (ConnectionError, RuntimeError):
                    pass            # a page that went away: its socket handler unsubscribes

    # -- what a page asks --------------------------------------------------------------------

    async def press(self, button: str) -> None:
        """Close ``button`` at the tower's current time."""
        self._check_key(button)
        async with self._lock:
            if button in self._held or \
                    any(b == button and a == "press" for _, a, b in self._pending):
                return          # held, or a press already waits in reserve (module doc)
            due = [at for at, _, b in self._pending if b == button]
            if due:
                self._held[button] = max(due) + self.hold_s
                self._pending.append((self._held[button], "press", button))
                self._pending.sort()
            else:
                self._held[button] = await self._run(self._press, button)
        await self.tick()

    async def release(self, button: str) -> None:
        """Open ``button`` (after it has been held ``hold_s``)."""
        self._check_key(button)
        async with self._lock:
            if button not in self._held:
                return
            at = self._held.pop(button) + self.hold_s
            self._pending.append((at, "release", button))
            self._pending.sort()
        await self.tick()

    async def advance(self, seconds: float) -> None:
        """Move the play position on by ``seconds`` (manual pace) and run the tower to it."""
        if self.pace != "manual":
            raise SessionError("advance: this session follows the wall clock (serve it with "
                               "--pace manual to step its time)")
        if not (isinstance(seconds, (int, float)) and 0 <= seconds <= 3600):
            raise SessionError(f"advance: {seconds!r} is not a number of seconds from 0 to "
                               f"3600")
        self._position += float(seconds)
        if self.length_s is not None:
            self._position = min(self._position, self.length_s)
        await self.tick()
        await self._say(self.clock_message())

    async def seek(self, t: float) -> None:
        """Move a recording's play position to ``t`` seconds (running its tower to there)."""
        if self.length_s is None:
            raise SessionError("seek: a live tower cannot go back in time (scrub the page's "
                               "timeline to look back)")
        if not isinstance(t, (int, float)) or not 0 <= t <= self.length_s:
            raise SessionError(f"seek: {t!r} is not a time from 0 to {self.length_s:g} s")
        self._position, self._since = float(t), self._clock()
        await self.tick()
        await self._say(self.clock_message())

    async def play(self, playing: bool) -> None:
        """Start or stop the play position (a live real tower runs on regardless); a
        recording played at its end plays again from its start."""
        self._position, self._since = self.position(), self._clock()
        if playing and self.length_s is not None and self._position >= self.length_s:
            self._position = 0.0
        self.playing = bool(playing)
        await self._say(self.clock_message())

    def _check_key(self, button: str) -> None:
        if not self.live:
            raise SessionError("a recording takes no keys (it replays its own)")
        if button not in BUTTONS:
            raise SessionError(f"unknown key {button!r} (expected one of {', '.join(BUTTONS)})")

    # -- running the tower -------------------------------------------------------------------

    async def _run(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    def _press(self, button: str) -> float:
        self.tower.press(button)
        return self.tower.now

    def _advance_to(self, target: float) -> list[dict]:
        """(worker) Run the tower to ``target``, opening and closing the keys due on the way;
        return its events."""
        tower = self.tower
        while self._pending and self._pending[0][0] <= target + 1e-9:
            at, action, button = self._pending.pop(0)
            if at > tower.now:
                tower.advance(at - tower.now)
            (tower.press if action == "press" else tower.release)(button)
        if target > tower.now + 1e-9:
            tower.advance(target - tower.now)
        return tower.events()

    async def tick(self) -> None:
        """Run the tower up to the play position plus ``settle_s + lead_s`` and send what
        settled."""
        async with self._lock:
            if self._closed:
                return
            if self.playing and self.length_s is not None and self.position() >= self.length_s:
                await self.play(False)
            target = self.position() + max(self.settle_s, EDGE_S) + self.lead_s
            events = await self._run(self._advance_to, target)
            head = max(target, getattr(self.tower, "now", target))
            # a key pressed now makes an event at the head: keep the horizon short of it
            horizon = head - max(self.settle_s, EDGE_S)
            # (the events are in time order: take the prefix, not a scan of the session)
            settled = events[:bisect.bisect_right(events, horizon + 1e-9, key=_time)]
            await self._send_settled(settled, horizon)
        await self._retell()

    async def _send_settled(self, settled: list[dict], horizon: float) -> None:
        """Send the settled events not sent yet. An event may come late, before events
        already sent (the emulator's speaker decoder writes a long note when it ends): it is
        sent all the same and the page puts it in its place; if an event sent before has
        changed or gone, the whole list goes again (``reset``). Only the last ``LATE_S`` of
        the events are compared (older ones do not change)."""
        from collections import Counter

        since = self.horizon - LATE_S
        i0 = bisect.bisect_left(self.sent, since, key=_time)
        j0 = bisect.bisect_left(settled, since, key=_time)
        old = Counter(_key(e) for e in self.sent[i0:])
        tail = settled[j0:]
        now = Counter(_key(e) for e in tail)
        if i0 != j0 or old - now:
            self.sent, self.horizon = settled, horizon
            await self._say({"kind": "reset", "events": settled, "horizon": horizon})
            return
        new = []
        for e in tail:
            k = _key(e)
            if old[k]:
                old[k] -= 1
            else:
                new.append(e)
        if new or horizon > self.horizon:
            self.sent = settled
            self.horizon = max(self.horizon, horizon)
            await self._say({"kind": "events", "events": new, "horizon": self.horizon})

    async def _retell(self) -> None:
        """Send the story again when the events grew (at most every STORY_EVERY_S)."""
        if len(self.sent) == self._story_sent or \
                self._clock() - self._story_at < STORY_EVERY_S and self.pace == "wall":
            return
        from analysis.story import session_story

        self._story_at, self._story_sent = self._clock(), len(self.sent)
        events = list(self.sent)
        entries = await self._run(lambda: [e.as_dict() for e in session_story(events)])
        if entries != self.story:
            self.story = entries
            await self._say({"kind": "story", "entries": entries})

    async def run(self) -> None:
        """Keep the tower running with the play position until ``close``."""
        last_clock = self._clock()
        while not self._closed:
            started = self._clock()
            try:
                await self.tick()
            except (ValueError, OSError) as exc:      # the tower failed: say so, stop
                await self._say({"kind": "error", "message": str(exc).splitlines()[0]})
                await self.play(False)
            if started - last_clock >= 1.0:
                last_clock = started
                await self._say(self.clock_message())
            await asyncio.sleep(max(0.0, self.poll_s - (self._clock() - started)))

    def start(self) -> asyncio.Task:
        """Start ``run`` on the running loop; return its task."""
        self._task = asyncio.get_running_loop().create_task(self.run())
        return self._task

    async def close(self) -> None:
        """Stop running, release every key and close the tower (and its bench)."""
        self._closed = True
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass
        closer = self._on_close or self.tower.close
        await asyncio.get_running_loop().run_in_executor(self._pool, closer)
        self._pool.shutdown(wait=True)
