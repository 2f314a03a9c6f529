"""What the force in play holds at each of the game's draws and action keys, read from a
recording.

The genuine tower's time from an action key's click to its first output depends on the force's
food and warriors (docs/draws.md, section 13), which a recording shows only now and then.  The
clean-room game keeps them: ``read_holdings`` resolves a recording's draws
(``cleanroom.conform.resolve``), replays its script with them and notes, at each decision and
at each action key the game takes (a ``Holding`` named ``KEY``, the key its value), the
player in play, their warriors and food (this turn's ration already eaten, as the game eats it
when the turn begins: ``cleanroom.sections.turn``) and the rations the force eats a turn.

Example::

    script, events = load_reference("tests/data/corpus/l1_p1_s01")
    for h in read_holdings(script, events)[:3]:
        print(h.t, h.name, h.value, h.warriors, h.food)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from captures.script import Script
from captures.tower import run_script

from .conform import resolve
from .decisions import ForcedChooser
from .rules import food_per_turn
from .tower import CleanroomTower

__all__ = ["Holding", "KEY", "holdings", "read_holdings"]


KEY = "key"      # the name of an action key's holding (its value: the key)


@dataclass(frozen=True)
class Holding:
    """A decision the game took at tower time ``t`` (its ``name`` and ``value``), or an action
    key it took (``name`` ``KEY``, ``value`` the key), and what the player in play
    (``player``, from 1) held then: ``warriors``, ``food`` and the ``rations`` their force
    eats a turn (one per 15 warriors begun)."""
    t: float
    name: str
    value: object
    player: int
    warriors: int
    food: int
    rations: int


class _Noting(ForcedChooser):
    """Take the given decisions and note what the player in play holds at each."""

    def __init__(self, forced: Sequence):
        super().__init__(forced)
        self.tower: CleanroomTower | None = None
        self.held: list[Holding] = []

    def choose(self, name, options, weights, t):
        value = super().choose(name, options, weights, t)
        game = self.tower.game if self.tower is not None else None
        if game is not None and game.players:
            p = game.player
            self.held.append(Holding(t, name, self.calls[-1].value, p.number, p.warriors,
                                     p.food, food_per_turn(p.warriors)))
        return value


def holdings(script: Script, values: Sequence, until: float | None = None,
             clock_ratio: float = 1.0) -> list[Holding]:
    """Replay ``script`` (to ``until``, default its end) taking the decisions' ``values`` in
    order; return, in time order, a ``Holding`` for each decision made once a player is in
    play and for each action key."""
    chooser = _Noting(values)
    tower = CleanroomTower(chooser=chooser, clock_ratio=clock_ratio)
    chooser.tower = tower
    try:
        run_script(tower, script, until=script.end_time() if until is None else until)
        keys = [Holding(t, KEY, key, player, warriors, food, food_per_turn(warriors))
                for t, key, player, warriors, food in tower.game.action_keys]
    finally:
        tower.close()
    return sorted(chooser.held + keys, key=lambda h: h.t)


def read_holdings(script: Script, events: Sequence[dict], clock_ratio: float = 1.0
                  ) -> list[Holding]:
    """Return the holdings at each draw and action key of a recording (its ``script`` and
    ``events``): its draws resolved from the events, then replayed, up to the resolver's
    first difference when the game does not conform to it (what comes after is the
    resolver's guess)."""
    result = resolve(script, events, clock_ratio=clock_ratio)
    end = min(result.diff_time, script.end_time())
    return holdings(script, [d.value for d in result.decisions], end, clock_ratio)
