"""Cut a corpus session to the base a lab sweep needs (captures.sweep): the script's actions
up to the swept press (press number N from 0, included), the events up to that press.
Regenerates ``l2_p1_s102/`` here (from the checkout)::

    .venv/bin/python tests/data/sweeps/cut_base.py CORPUS/l2_p1_s102 6 tests/data/sweeps/l2_p1_s102
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))

from captures.events import read_events, write_events  # noqa: E402
from captures.script import Press, Script, read_script, write_script  # noqa: E402


def cut(session: str, press: int, out: str) -> float:
    """Write ``session`` cut after its press number ``press`` to ``out``; return its time."""
    script = read_script(os.path.join(session, "script.txt"))
    swept = [a for a in script.actions if isinstance(a, Press)][press]
    actions = script.actions[:script.actions.index(swept) + 1]
    kept = Script(actions=actions, length=round(swept.t + swept.hold + 1.0, 6),
                  name=script.name)
    events = [e for e in read_events(os.path.join(session, "events.jsonl"))
              if e["t"] <= swept.t]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "script.txt"), "w") as f:
        write_script(kept, f)
    with open(os.path.join(out, "events.jsonl"), "w") as f:
        write_events(events, f)
    return swept.t


if __name__ == "__main__":
    print(f"{cut(sys.argv[1], int(sys.argv[2]), sys.argv[3]):.3f} s")
