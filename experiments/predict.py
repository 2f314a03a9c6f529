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
from cleanroom.count import COUNT_START, COUNT_STEP, move_from_count
from cleanroom.predict import level4_moves


def main(path: str) -> int:
    moves = level4_moves(read_script(path))
    print(f"# {path}: the count model on each MOVE of each level-4 game (count "
          f"{COUNT_START:#06x} at the tower test, {COUNT_STEP:#06x} a pass; a game's first "
          f"MOVE only; docs/draws.md, section 12)")
    print("game\tmove_take_s\tpasses_since_tower_test\tpredicted")
    for m in moves:
        assert m.predicted is None or m.predicted == move_from_count(m.passes)
        print(f"{m.game}\t{m.t:.4f}\t{m.passes}\t{m.predicted or '-'}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: experiments/predict.py REQUEST.txt (a request script of level-4 games)")
    sys.exit(main(sys.argv[1]))
