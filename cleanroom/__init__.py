"""The clean-room Dark Tower: the 1981 game from the rulebook and observed behaviour only.

Modules: ``params`` (every number, with its source), ``reel`` (the picture reel), ``engine``
(tower time and events), ``stage`` (how and when the game shows things, its decisions),
``sections`` (the rules as flows, one module per rulebook section), ``rules`` (the rulebook's
arithmetic), ``choosers`` (random decisions), ``game`` (``Game``, binding them), ``tower``
(the Tower protocol), ``matching`` (trace-for-trace comparison), ``conform`` (the decision
resolver), ``observations`` and ``stats`` (statistics over recordings), ``play`` (terminal
front-end).
See cleanroom/README.md for the parameter note.  Imports only ``captures``.
"""

__all__: list[str] = []
