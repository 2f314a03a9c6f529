"""Play the rules: one module per rulebook section, each a set of generator flows over the
timing and display layer (cleanroom.stage).

Sections (the 1981 rulebook's, named in each module's docstring):

- ``selection``: power-on, the tower test, the choice of level and players, the set-up;
- ``turn``: the order of play, food, the action keys, REPEAT and CLEAR, the end of a turn;
- ``move``: the MOVE button's events (safe, lost, plague, dragon; a battle);
- ``battle``: a battle with brigands, skirmish by skirmish (also the Final Battle's);
- ``treasure``: a won battle's or a tomb's treasures; ``curse``: the wizard's curse;
- ``tomb``, ``sanctuary``, ``bazaar``: the buildings; ``frontier``: FRONTIER and INVENTORY;
- ``dark_tower``: the riddle of the keys and the way into the Final Battle;
- ``ending``: victory, a lost game, the score.

A section imports the stage and the sections it leads into, never cleanroom.game (which
binds them into ``Game``); the imports run one way: turn -> move, tomb, dark_tower ->
battle -> treasure -> curse, ending.  A new rule is a change in its section and a row in
cleanroom.params.
"""

__all__: list[str] = []
