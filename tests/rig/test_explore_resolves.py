"""Sessions played by `towerlab explore` resolve: the resolver finds the draws of games it
has not seen when they are played as explore plays them (holds of 0.15-0.3 s at any
instant, retreats held until the battle ends), on the clean-room game, whose own draws are
then known.  Each session below once stopped the search at a difference the game could
explain (cleanroom/conform.py, ``_retie``): a retreat's loss of 2 taken for a loss of 1 with
a brigand fewer, a MOVE's PLAGUE whose time was measured with LOST's, the level's Dark
Tower brigands seen only at the final battle."""
from __future__ import annotations

import pytest

from captures.tower import run_script
from cleanroom.conform import resolve
from cleanroom.tower import CleanroomTower
from rig.conformance import load_session
from rig.explore import play_session, session_seed
from rig.specs import TargetSpec

BATCH_SEED = 777


@pytest.mark.parametrize("session", [3, 7, 15])
def test_an_explore_session_on_the_clean_room_game_resolves_to_its_own_draws(tmp_path, session):
    seed = session_seed(BATCH_SEED, session)
    play_session(TargetSpec("cleanroom"), seed, tmp_path, session=session, max_seconds=400)
    script, events = load_session(str(tmp_path))
    truth = CleanroomTower(seed=seed)
    assert run_script(truth, script) == events       # the script replays the recording
    result = resolve(script, events)
    assert result.conforms, result.describe()
    drawn = [(name, value) for _, name, value in truth.game.log]
    shown = [(d.name, d.value) for d in result.decisions
             if d.revealed and not d.name.endswith("_cycles")]
    assert shown and all(pair in drawn for pair in shown)
