"""Help the clean-room tests press keys like a player and read what the tower showed."""
from __future__ import annotations

from cleanroom.conform import CRITERION
from cleanroom.game import ScriptedChooser
from cleanroom.play import observations, settle
from cleanroom.tower import CleanroomTower

HOLD_S = 0.2
STRICT = CRITERION       # the 1/60 s + 1 % criterion


def tower(level: int = 1, players: int = 1, inventory: dict | None = None,
          **outcomes) -> CleanroomTower:
    """Return a tower at player 1's turn with the named decisions queued (ScriptedChooser).

    ``inventory`` sets player 1's fields before the first turn begins (before its food is eaten).
    """
    tw = CleanroomTower(chooser=ScriptedChooser(outcomes), start=(level, players))
    for name, value in (inventory or {}).items():
        setattr(tw.game.players[0], name, value)
    settle(tw)
    return tw


def player(tw: CleanroomTower, number: int = 1):
    """Return player ``number``'s inventory."""
    return tw.game.players[number - 1]


def press(tw: CleanroomTower, *buttons: str, hold: float = HOLD_S) -> list[tuple[str, str]]:
    """Press each button in turn, let the tower finish; return what it showed from the first
    key's click on (before the click the prompt being answered may still flash on once: the
    key is taken at the second key scan that sees it, in the flash timer's running phase)."""
    start = len(tw.events())
    for b in buttons:
        tw.press(b)
        tw.advance(hold)
        tw.release(b)
        settle(tw)
    events = tw.events()
    click = next((i for i in range(start, len(events))
                  if events[i]["type"] == "tone" and events[i].get("cue") == "click"), start)
    return observations(events, click)


def shown(obs: list[tuple[str, str]], kind: str) -> list[str]:
    """Return the values of one kind ("picture", "display", "sound") in order."""
    return [v for k, v in obs if k == kind]
