"""Cut recordings of whole games just after the player-count prompt's first key (what
cleanroom.start_state reads): the script's actions and the events up to half a second after
that key, the run length there.  Regenerates this folder (from the checkout)::

    .venv/bin/python tests/data/setup/cut.py CORPUS tests/data/setup NAME...
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))

from captures.events import read_events, write_events  # noqa: E402
from captures.script import Press, Script, read_script, write_script  # noqa: E402


def cut(corpus: str, out: str, name: str) -> float:
    """Write ``corpus/name`` cut to ``out/name``; return the cut's time (s)."""
    script = read_script(os.path.join(corpus, name, "script.txt"))
    presses = [a for a in script.actions if isinstance(a, Press)]
    # the tower test's key, the level prompt's keys up to its YES/BUY, then the next key
    level = next(i for i, a in enumerate(presses) if i > 0 and a.button == "YES/BUY")
    end = round((presses[level + 1].t + 0.5) * 60) / 60
    kept = Script(actions=[a for a in script.actions if a.t + getattr(a, "hold", 0.0) < end],
                  length=end, name=script.name)
    events = [e for e in read_events(os.path.join(corpus, name, "events.jsonl"))
              if e["t"] <= end]
    os.makedirs(os.path.join(out, name), exist_ok=True)
    with open(os.path.join(out, name, "script.txt"), "w") as f:
        write_script(kept, f)
    with open(os.path.join(out, name, "events.jsonl"), "w") as f:
        write_events(events, f)
    return end


if __name__ == "__main__":
    corpus_dir, out_dir = sys.argv[1], sys.argv[2]
    for session in sys.argv[3:]:
        print(session, f"{cut(corpus_dir, out_dir, session):.3f} s")
