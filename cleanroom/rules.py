"""Count what the rulebook counts: a player's inventory and the arithmetic of food, skirmishes,
the dragon's and the wizard's quarter.

Sources: the 1981 rulebook (sections named in each docstring) and the corpus recordings for
what the genuine tower does where the rulebook says less (docs/corpus-statistics.md); the
numbers are cleanroom.params rows.  Nothing here comes from the MP7332 ROM.  Pure functions
and data: the flows that use them are the rule sections (cleanroom.sections).
"""
from __future__ import annotations

from dataclasses import dataclass

from .params import param

__all__ = ["ACTION_KEYS", "KEYS", "Player", "food_per_turn", "skirmish_chance",
           "quarter_by_digits", "dragon_takes", "at_citadel", "citadel_doubles",
           "hoard_start", "two_digits"]

ACTION_KEYS = frozenset({"MOVE", "TOMB/RUIN", "SANCTUARY/CITADEL", "BAZAAR", "FRONTIER",
                         "INVENTORY", "DARK TOWER", "REPEAT", "CLEAR"})
KEYS = ("BRASS KEY", "SILVER KEY", "GOLD KEY")


def skirmish_chance(warriors: int, brigands: int) -> float:
    """Return the chance that the warriors win a skirmish: it goes by steps of the force
    ratio, the chance of the last row of params ``skirmish_win`` whose ratio the warriors
    reach (warriors >= ratio x brigands).  Read off the corpus's skirmishes
    (docs/corpus-statistics.md): within each step, at half, once, twice and four times the
    brigands, the share won does not change with the ratio, where w^k / (w^k + (c b)^k)
    would rise through it (even forces win 62 %, not the 54 % of the best such k and c)."""
    chance = 0.0
    for ratio, p in param("skirmish_win"):
        if warriors >= ratio * brigands:
            chance = p
    return chance


def quarter_by_digits(n: int, share: int | None = None) -> int:
    """Return a quarter of ``n`` (0-99) taken digit by digit: a quarter of the tens' value
    plus a quarter of the units, each rounded down (36 -> 7 + 1 = 8, where n // 4 is 9).

    Read off the corpus's dragon attacks (docs/corpus-statistics.md, ``dragon_share``): it is
    the one rule that fits every one of them, gold and warriors alike, with the rulebook's
    "1/4": l3_p1_s27 135.5 s 36 bags became 28, l2_p2_s06 217 s 12 warriors became 10; a plain
    quarter rounded down gives 27 and 9.  The counts show as two decimal digits, and the
    numbers behave as if each digit were divided on its own.  ``share``: the divisor
    (default the dragon's, params ``dragon_share``; a wizard's curse takes ``curse_share``).
    """
    share = param("dragon_share") if share is None else share
    tens, units = divmod(max(0, min(99, n)), 10)
    return (10 * tens) // share + units // share


def dragon_takes(warriors: int, gold: int) -> tuple[int, int]:
    """Return (warriors, gold) the dragon takes: a quarter of each taken digit by digit
    (``quarter_by_digits``), so none of 1 to 3 warriors (params ``dragon_share``: every attack
    of the development corpus: 1 warrior kept 5 times in level1_solo_moves, 3 kept in
    l3_p2_s07 298.6 and level1_solo_moves 89.0, 2 kept in l1_p1_s133 161.5)."""
    return quarter_by_digits(warriors), quarter_by_digits(gold)


def at_citadel(frontiers: int, keys: int) -> bool:
    """Return True when SANCTUARY/CITADEL is the home Citadel's: all 4 frontiers crossed with
    the 3 keys (rulebook: The Sanctuary/Citadel Button)."""
    return frontiers >= 4 and keys >= 3


def citadel_doubles(warriors: int, frontiers: int, keys: int) -> bool:
    """Return True when the home Citadel doubles a force of ``warriors`` (rulebook: between
    5 and 24, params ``citadel_double``; any other force gets the Sanctuary's bonuses there),
    before asking whether it already doubled it since the last tomb or ruin."""
    lo, hi = param("citadel_double")
    return at_citadel(frontiers, keys) and lo <= warriors <= hi


def food_per_turn(warriors: int) -> int:
    """Return rations eaten per turn: 1 per started 15 warriors, at least 1 (rulebook: Food)."""
    return max(1, (warriors + 14) // 15)


@dataclass
class Player:
    """One player's inventory as the tower keeps it (rulebook: score chart)."""
    number: int
    warriors: int = 10
    gold: int = 30
    food: int = 25
    beast: bool = False
    scout: bool = False
    healer: bool = False
    sword: bool = False
    keys: int = 0              # 0-3: brass, silver, gold in that order
    frontiers: int = 0         # frontiers crossed (4 = back home)
    doubled: bool = False      # the home Citadel doubled the warriors since the last building
    cursed_by: int | None = None
    turns: int = 0

    def gold_limit(self) -> int:
        """Return the most gold this force can carry (6 per warrior, 50 with a beast, <= 99)."""
        return min(param("max_count"), param("gold_per_warrior") * self.warriors +
                   (param("beast_carries") if self.beast else 0))

    def carry(self) -> None:
        """Drop gold the force cannot carry (rulebook: Battle Treasures, gold)."""
        self.gold = max(0, min(self.gold, self.gold_limit()))


def hoard_start() -> tuple[int, int]:
    """Return the (warriors, gold) the Dragon's hoard holds before its first attack and
    after a sword has won it (params ``dragon_hoard_start``: every slaying in the corpus
    wins 2 warriors and 6 bags more than the attacks took)."""
    start = param("dragon_hoard_start")
    return start["warriors"], start["gold"]


def two_digits(n: int) -> str:
    """Return ``n`` as the two digits the display shows (cut to 0-99, a leading zero)."""
    return f"{max(0, min(99, n)):02d}"
