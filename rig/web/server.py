"""The web server of ``towerlab serve`` (aiohttp): the page, its script and style, and one
websocket per page over a ``rig.web.session.TowerSession``.

    GET /            the page (static/index.html: no framework, no build step, nothing fetched
                     from outside: it works offline)
    GET /static/F    its script and style
    GET /ws          the websocket: the session's messages out (``hello`` first, then
                     ``events``, ``clock``, ``story``, ``reset``, ``error``), and in:
                     {"kind": "press"|"release", "button": B}, {"kind": "advance", "s": S},
                     {"kind": "seek", "t": T}, {"kind": "play", "playing": bool}
    GET /api/events  the events sent so far and the horizon, as JSON (for scripts and tests)

Example::

    session = open_session(TargetSpec("cleanroom"))
    asyncio.run(serve(session, "127.0.0.1", 8765))
"""
from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Callable

from aiohttp import WSMsgType, web

from rig.web.session import SessionError, TowerSession

__all__ = ["make_app", "serve", "ServerThread", "STATIC"]

STATIC = Path(__file__).with_name("static")
_SESSION = web.AppKey("session", TowerSession)
_SOCKETS = web.AppKey("sockets", set)


def make_app(session: TowerSession) -> web.Application:
    """Return the aiohttp application serving ``session`` (started with the app)."""
    app = web.Application()
    app[_SESSION] = session
    app[_SOCKETS] = set()

    async def start(app: web.Application) -> None:
        session.start()

    async def goodbye(app: web.Application) -> None:
        # the pages' sockets, closed first: the server does not wait for them to go
        for ws in list(app[_SOCKETS]):
            await ws.close(code=1001, message=b"the server stops")

    async def stop(app: web.Application) -> None:
        await session.close()

    app.on_startup.append(start)
    app.on_shutdown.append(goodbye)
    app.on_cleanup.append(stop)
    app.router.add_get("/", _index)
    app.router.add_get("/ws", _socket)
    app.router.add_get("/api/events", _events)
    app.router.add_static("/static/", STATIC, show_index=False)
    return app


async def _index(request: web.Request) -> web.FileResponse:
    return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})


async def _events(request: web.Request) -> web.Response:
    session = request.app[_SESSION]
    return web.json_response({"horizon": session.horizon, "events": session.sent,
                              "position": session.position(), "story": session.story})


async def _socket(request: web.Request) -> web.WebSocketResponse:
    session = request.app[_SESSION]
    ws = web.WebSocketResponse(heartbeat=30)
    await ws.prepare(request)
    request.app[_SOCKETS].add(ws)
    queue: asyncio.Queue = asyncio.Queue()
    queue.put_nowait(session.hello())
    unsubscribe = session.subscribe(queue.put_nowait)

    async def send() -> None:
        while True:
            message = await queue.get()
            if ws.closed:
                return
            await ws.send_str(json.dumps(message))

    sender = asyncio.get_running_loop().create_task(send())
    try:
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                continue
            try:
                await _handle(session, json.loads(msg.data))
            except (SessionError, ValueError, KeyError, TypeError) as exc:
                text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                queue.put_nowait({"kind": "error", "message": text})
    finally:
        unsubscribe()
        sender.cancel()
        request.app[_SOCKETS].discard(ws)
    return ws


async def _handle(session: TowerSession, msg: dict) -> None:
    """Do what one page message asks (module doc)."""
    kind = msg.get("kind")
    if kind == "press":
        await session.press(msg["button"])
    elif kind == "release":
        await session.release(msg["button"])
    elif kind == "advance":
        await session.advance(msg["s"])
    elif kind == "seek":
        await session.seek(msg["t"])
    elif kind == "play":
        await session.play(bool(msg["playing"]))
    else:
        raise SessionError(f"unknown message {kind!r} (expected press, release, advance, "
                           f"seek or play)")


async def serve(session: TowerSession, host: str, port: int,
                ready: Callable[[str], None] | None = None) -> None:
    """Serve ``session`` on ``host:port`` until cancelled (Ctrl-C); ``ready(url)`` is called
    once the server listens."""
    runner = web.AppRunner(make_app(session), handle_signals=False, shutdown_timeout=2.0)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        await site.start()
        if ready is not None:
            actual = runner.addresses[0][1] if runner.addresses else port
            ready(f"http://{host}:{actual}/")
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()


class ServerThread:
    """A server on a thread of its own (for scripts and tests): ``with ServerThread(session)
    as srv: srv.url``; it listens on ``host`` at a free port unless ``port`` is given."""

    def __init__(self, session: TowerSession, host: str = "127.0.0.1", port: int = 0,
                 timeout_s: float = 30.0):
        import threading

        self.session, self.url = session, ""
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._failed: BaseException | None = None
        self._task: asyncio.Task | None = None
        self._thread = threading.Thread(target=self._main, args=(host, port), daemon=True,
                                        name="towerlab-serve")
        self._thread.start()
        if not self._ready.wait(timeout_s):
            raise RuntimeError(f"the server did not start within {timeout_s:g} s")
        if self._failed is not None:
            raise self._failed

    def _main(self, host: str, port: int) -> None:
        asyncio.set_event_loop(self._loop)

        def ready(url: str) -> None:
            self.url = url
            self._ready.set()

        self._task = self._loop.create_task(serve(self.session, host, port, ready))
        try:
            self._loop.run_until_complete(self._task)
        except asyncio.CancelledError:
            pass
        except BaseException as exc:           # noqa: BLE001 - handed to the starting thread
            self._failed = exc
            self._ready.set()
        finally:
            self._loop.close()

    def call(self, coro, timeout_s: float = 60.0):
        """Run a coroutine (e.g. ``session.advance(1.0)``) on the server's loop; return its
        result."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout_s)

    def stop(self) -> None:
        """Stop serving and close the session's tower."""
        if self._task is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._task.cancel)
        self._thread.join(60)

    def __enter__(self) -> "ServerThread":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
