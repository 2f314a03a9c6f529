"""Say what the ``count`` draw model predicts for a request's games (docs/draws.md, section 12).

For each MOVE of a level-4 game of a request script (a power-on each): the game, the MOVE's
press time, the key-loop passes from the tower test's key to the key that took it (as the
clean-room game counts them) and, for a game's first MOVE with no draw before it, the
outcome the count gives there (the model says nothing of a later MOVE: "-").  Written before
the lab records the request, so that the recording judges the model on games it never saw;
the later MOVEs' passes place a swept MOVE's count (the count at the tower test's key is the
count at a scan less 0x2507 times the scan's passes).

    .venv/bin/python experiments/predict.py experiments/requests/l4_first_move_turns.txt \\
        > experiments/predictions/l4_first_move_turns.tsv
"""
from __future__ import annotations

import sys

from captures.script import read_script
from cleanroom.count import (COUNT_START, COUNT_STEP, first_move_passes, move_from_count,
                             passes_since_tower_test)
from cleanroom.predict import Count, play


class _Logged(Count):
    """The count model, noting each level-4 MOVE it draws: (game, time, passes since the
    tower test, the count's outcome for a first MOVE or None)."""

    def __init__(self):
        self.seen: list[tuple[int, float, int, str | None]] = []
        self._tests: list[float] = []       # each game's tower-test take, in order

    def draw(self, name, options, weights, t, tower):
        value = super().draw(name, options, weights, t, tower)
        takes = tower.game.engine.takes
        if name == "move" and tower.game.level == 4 and takes:
            if not self._tests or self._tests[-1] != takes[0][0]:
                self._tests.append(takes[0][0])
            first = first_move_passes(tower, name, t)
            self.seen.append((len(self._tests) - 1, t, passes_since_tower_test(takes, t),
                              value if first is not None else None))
        return value


def main(path: str) -> int:
    script = read_script(path)
    model = _Logged()
    play(script, model, script.end_time())
    print(f"# {path}: the count model on each MOVE of each level-4 game (count "
          f"{COUNT_START:#06x} at the tower test, {COUNT_STEP:#06x} a pass; a game's first "
          f"MOVE only; docs/draws.md, section 12)")
    print("game\tmove_take_s\tpasses_since_tower_test\tpredicted")
    for game, t, passes, value in model.seen:
        assert value is None or value == move_from_count(passes)
        print(f"{game}\t{t:.4f}\t{passes}\t{value or '-'}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: experiments/predict.py REQUEST.txt (a request script of level-4 games)")
    sys.exit(main(sys.argv[1]))
