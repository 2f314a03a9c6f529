"""The old home of the scheduled keys (``BoardError``, ``ScriptedKeys``): they are part of the
board base now, ``emulator.board``. Importing them from here still works for one release, with
a DeprecationWarning."""
from __future__ import annotations

import warnings

__all__ = ["BoardError", "ScriptedKeys"]


def __getattr__(name: str):
    if name in __all__:
        from emulator import board

        warnings.warn(f"emulator.keyqueue.{name} moved to emulator.board "
                      f"({'Board' if name == 'ScriptedKeys' else name})", DeprecationWarning,
                      stacklevel=2)
        return board.Board if name == "ScriptedKeys" else board.BoardError
    raise AttributeError(f"module 'emulator.keyqueue' has no attribute {name!r}")
