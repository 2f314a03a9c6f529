"""The tower in a web browser (``towerlab serve``): any tower behind the Tower protocol shown
on a local page, played with the mouse, touch or keyboard, heard through Web Audio.

    session    TowerSession: the tower's time, keys and events, streamed to pages
    backends   open_session: the clean-room game, the emulator, a recording, a real tower
    server     the aiohttp app: the page (static/), a websocket per page, /api/events

Example::

    from rig.specs import TargetSpec
    from rig.web.backends import open_session
    from rig.web.server import serve
    asyncio.run(serve(open_session(TargetSpec("cleanroom")), "127.0.0.1", 8765))
"""

__all__: list[str] = []
