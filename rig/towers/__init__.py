"""The towers behind the ``captures.tower.Tower`` protocol that the bench provides.

    emulated   EmulatorTower (the emulator on a board model), ReplayTower (a recording)
    real       RealTower: the button box + an analyser + the decoders
    fakes      PinTower: a pin-level double for tests and the virtual bench

The clean-room game's tower is ``cleanroom.tower.CleanroomTower`` (the game may not import the
bench, docs/ARCHITECTURE.md).

Example::

    from rig.towers.emulated import EmulatorTower
    tower = EmulatorTower()
"""

__all__: list[str] = []
