"""Say what the ``count`` draw model predicts for a request's games (docs/draws.md, section 12).

For each game of a request script (a power-on each) whose first draw is a MOVE at level 4:
the MOVE's press time, the key-loop passes from the tower test's key to the key that took it
(as the clean-room game counts them) and the outcome the count gives there.  Written before
the lab records the request, so that the recording judges the model on games it never saw.

    .venv/bin/python experiments/predict.py experiments/requests/l4_first_move_turns.txt \\
        > experiments/predictions/l4_first_move_turns.tsv
"""
from __future__ import annotations

import sys

from captures.script import read_script
from cleanroom.count import COUNT_START, COUNT_STEP, first_move_passes, move_from_count
from cleanroom.predict import Count, play


class _Logged(Count):
    """The count model, noting the passes at each first MOVE it draws off the count."""

    def __init__(self):
        self.seen: list[tuple[float, int, str]] = []

    def draw(self, name, options, weights, t, tower):
        value = super().draw(name, options, weights, t, tower)
        passes = first_move_passes(tower, name, t)
        if passes is not None:
            self.seen.append((t, passes, value))
        return value


def main(path: str) -> int:
    script = read_script(path)
    model = _Logged()
    play(script, model, script.end_time())
    print(f"# {path}: the count model's first MOVE of each level-4 game (count "
          f"{COUNT_START:#06x} at the tower test, {COUNT_STEP:#06x} a pass; "
          f"docs/draws.md, section 12)")
    print("game\tmove_take_s\tpasses_since_tower_test\tpredicted")
    for i, (t, passes, value) in enumerate(model.seen):
        assert value == move_from_count(passes)
        print(f"{i}\t{t:.4f}\t{passes}\t{value}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: experiments/predict.py REQUEST.txt (a request script of level-4 games)")
    sys.exit(main(sys.argv[1]))
