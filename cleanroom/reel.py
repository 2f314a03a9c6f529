"""Model the tower's picture reel: 8 card positions, 3 cards each, turned by the motor.

The reel geometry and timing follow MAME 0.251's ``mbdtower`` simulation as described in
docs/dark-tower-wiring.md §6, because the shared reference captures were recorded in MAME and
report its ``card_pos`` output: 128 positions, one step every 27 ms (position decrements),
the sensor sees light through a big index hole at positions 0-11 and small holes where
``pos & 15 < 4``; after the motor stops the reel coasts 5 more steps.

How the game steers the reel is clean-room, from the captures only (tower_test,
level4_bazaar, level4_riddle): the motor runs until the sensor goes dark at the trailing edge
of the hole in front of the wanted card (position ``16 * card + 15``), then stops; the reel
coasts into the card's window (position ``16 * card + 10``).  After power-on the game knows
nothing, so the tower test turns the reel until it has seen the long index hole.

Card names (top, middle, bottom lamp) per ``card_pos``, docs/dark-tower-wiring.md §6::

    0 CURSED/LOST/PLAGUE         4 GOLD KEY/SILVER KEY/BRASS KEY
    1 VICTORY/WARRIORS/BRIGANDS  5 SCOUT/HEALER/GOLD
    2 WIZARD/BAZAAR CLOSED/KEY MISSING   6 WARRIOR/FOOD/BEAST
    3 DRAGON/SWORD/PEGASUS       7 (void)
"""
from __future__ import annotations

from dataclasses import dataclass

from captures.darktower_facts import (CARD_IMAGES, CARD_STEPS, LAMP_PINS, REEL_STEPS, reel_card,
                                      reel_step, sensor_sees_light)

__all__ = ["CARDS", "PICTURES", "Reel", "stop_position", "sensor_lit"]

# (card_pos, lamp) for each picture, card by card, top to bottom; lamp upper = R7, middle = R6,
# lower = R5.
PICTURES: dict[str, tuple[int, str]] = {
    CARD_IMAGES[lamp][card]: (card, lamp)
    for card in range(8) for lamp in LAMP_PINS if CARD_IMAGES[lamp][card]
}
CARDS: dict[tuple[int, str], str] = {v: k for k, v in PICTURES.items()}

STEPS = REEL_STEPS


def sensor_lit(pos: int) -> bool:
    """Return True when the reel sensor sees light through a hole at ``pos`` (MAME model)."""
    return sensor_sees_light(pos)


def stop_position(card: int) -> int:
    """Return the reel position at which the game stops the motor for ``card`` (0-7)."""
    return (CARD_STEPS * card + CARD_STEPS - 1) % STEPS


@dataclass
class Reel:
    """The reel's mechanical state: position 0-127, coasting counter, running flag."""
    pos: int = 0
    decay: int = 0
    running: bool = False
    motor: bool = False

    @property
    def card(self) -> int:
        """Return the card position (0-7) in the window."""
        return reel_card(self.pos)

    def set_motor(self, on: bool) -> None:
        """Switch the motor (R9); switching it on starts the reel at the next tick."""
        self.motor = on
        if on:
            self.running = True

    def tick(self) -> bool:
        """Advance one 27 ms step; return True if the position changed (MAME's model,
        docs/dark-tower-wiring.md §6)."""
        if not self.running:
            return False
        self.pos, self.decay, self.running = reel_step(self.pos, self.decay, True, self.motor)
        return True
