"""Read a reference recording (a folder's script.txt and events.jsonl) for the conformance
check, every error one line naming the file; and the Wilson interval the statistics give
shares with."""
from __future__ import annotations

import math
import os

from captures.events import EventError, read_events
from captures.script import Script, ScriptError, read_script

from .matching import ConformError

__all__ = ["load_reference", "read_reference_events", "read_reference_script", "wilson"]


def load_reference(folder: str) -> tuple[Script, list[dict]]:
    """Read ``folder``/script.txt and ``folder``/events.jsonl; errors name the missing file."""
    if not os.path.isdir(folder):
        raise ConformError(f"{folder}: not a folder (expected a capture folder with script.txt "
                           f"and events.jsonl)")
    script_path = os.path.join(folder, "script.txt")
    events_path = os.path.join(folder, "events.jsonl")
    if not os.path.exists(script_path):
        raise ConformError(f"{folder}: no script.txt (the session's button script)")
    if not os.path.exists(events_path):
        raise ConformError(f"{folder}: no events.jsonl (decode the capture first: "
                           f"towerlab decode)")
    script = read_reference_script(script_path)
    return script, read_reference_events(events_path)


def read_reference_events(path: str, error: type = None) -> list[dict]:
    """Read a recording's events.jsonl; errors name the file (``error``: the exception class
    to raise, ConformError by default)."""
    error = error or ConformError
    try:
        return read_events(path)
    except EventError as exc:
        raise error(str(exc)) from None
    except UnicodeDecodeError:
        raise error(f"{path}: not a JSON-lines events file (bytes that are not UTF-8 "
                    f"text)") from None


def read_reference_script(path: str) -> Script:
    """Read a reference's session script; errors name the file (also for non-UTF-8 bytes)."""
    try:
        return read_script(path)
    except ScriptError as exc:
        raise ConformError(str(exc)) from None
    except UnicodeDecodeError:
        raise ConformError(f"{path}: not a text script (expected '<time_s> <BUTTON> <hold_s>' "
                           f"lines in UTF-8)") from None


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Return the Wilson score interval (95 % by default) for ``k`` successes in ``n``
    trials; it starts at exactly 0 when k = 0 and ends at exactly 1 when k = n."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (0.0 if k == 0 else max(0.0, mid - half)), (1.0 if k == n else min(1.0, mid + half))
