"""The clean-room Dark Tower: the 1981 game from the rulebook and observed behaviour only.

Modules: ``params`` (every number, with its source), ``reel`` (the picture reel), ``engine``
(tower time and events), ``game`` (the rules as flows), ``tower`` (the Tower protocol),
``conform`` (trace-for-trace comparison, decision resolver, statistics), ``play`` (terminal
front-end).  See cleanroom/README.md for the parameter note.  Imports only ``captures``.
"""

__all__: list[str] = []
