"""Estimate the genuine tower's random quantities from what recordings show, with 95 % intervals.

The estimates are read from the observed behaviour alone (``events.jsonl``: the buttons
pressed, the picture lit = the reel's ``card_pos`` with the lamp, cleanroom.reel; the numbers
shown with it; the tones), never from the clean-room game, so they hold even where the game
does not yet conform.  ``observe(events)`` turns one recording into a list of ``Observation``
rows (quantity, situation, value); ``estimate_all(observations)`` turns many into ``Row``
estimates and checks each chosen value of cleanroom.params against its interval.

How each quantity is read from a recording: cleanroom.observations.

Intervals (``Row``): a share gets the Wilson 95 % score interval; a number drawn from a range
gets the observed min and max with the count, and the chosen range must contain every
observed value and must not be so wide that n draws would miss its ends: each end is allowed
only as far out as a uniform draw of n values avoids it with probability 2.5 %.  A rule
(``dragon_*``, ``brigands_after_win``, ...) is checked as "k of n agree"; it fails on one
disagreement.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from .reference import read_reference_events, wilson
from .evidence import estimate_text
from .observations import Observation, force_class, force_classes, observe
from .params import PARAMS
from .rules import dragon_takes
from .tower import CleanroomError

__all__ = ["Observation", "Row", "observe", "observe_folder", "estimate_all", "wilson",
           "range_interval", "rows_markdown", "rows_data", "replace_evidence", "StatsError",
           "force_class", "force_classes"]


class StatsError(CleanroomError):
    """A recording or a parameter file given to the statistics is not usable; says which."""


def range_interval(values: Sequence[float], alpha: float = 0.025
                   ) -> tuple[float, float, float, float]:
    """Return (lowest lo, min, max, highest hi) a uniform range lo..hi may have.

    ``min``/``max`` are observed; ``lo`` may lie below the observed min only while n uniform
    draws from lo..max would all miss lo..min with probability above ``alpha`` (the same for
    ``hi`` above the observed max).  Integers (counts, prices) are whole numbers 0-99;
    other values (ratios) are continuous: the ends may then lie (max - min) x
    (alpha^(-1/n) - 1) beyond what was seen.
    """
    lo, hi = min(values), max(values)
    n = len(values)
    if not all(isinstance(v, int) for v in values):
        slack = (hi - lo) * (alpha ** (-1 / n) - 1)
        return round(lo - slack, 4), lo, hi, round(hi + slack, 4)
    low = lo
    while low > 0 and ((hi - lo + 1) / (hi - (low - 1) + 1)) ** n > alpha:
        low -= 1
    high = hi
    while high < 99 and ((hi - lo + 1) / ((high + 1) - lo + 1)) ** n > alpha:
        high += 1
    return low, lo, hi, high


# ---- estimates -----------------------------------------------------------------------------
VERDICTS = {True: "ok", False: "OUTSIDE", None: "-"}     # a Row's ``ok`` in words


@dataclass
class Row:
    """One estimate: quantity, situation, outcome; count of total; interval; chosen; verdict.

    ``kind``: "share" (``low``-``high`` is the Wilson interval of count/total), "range"
    (``low``..``high`` the lowest lo and highest hi a uniform range may have; ``lo_seen``,
    ``hi_seen`` the observed min and max), "model" (the share of wins with the game's mean
    chance as ``chosen``), "rule" (count of total agree) or "info" (no chosen value).
    """
    quantity: str
    situation: str
    outcome: str
    kind: str
    count: int
    total: int
    low: float
    high: float
    chosen: Any = None
    param: str = ""
    ok: bool | None = None
    lo_seen: float | None = None
    hi_seen: float | None = None

    def describe(self) -> str:
        """Return one table line."""
        chosen = "" if self.chosen is None else f"  chosen {self.chosen!s}"
        return (f"{self.quantity:20} {self.situation:17} {self.outcome:9} n={self.total:<4} "
                f"{estimate_text(self)}{chosen}  {VERDICTS[self.ok]}")


def _share_rows(obs: list[Observation], quantity: str, param_name: str | None,
                chosen_table: dict | None) -> list[Row]:
    rows = []
    for situation in sorted({o.situation for o in obs}):
        these = [o for o in obs if o.situation == situation]
        n = len(these)
        outcomes = list(chosen_table or {})
        outcomes += sorted({str(o.value) for o in these} - set(map(str, outcomes)))
        for outcome in outcomes:
            k = sum(1 for o in these if str(o.value) == str(outcome))
            lo, hi = wilson(k, n)
            chosen = chosen_table.get(outcome) if chosen_table else None
            ok = None if chosen_table is None else \
                (lo <= (chosen or 0.0) <= hi)
            rows.append(Row(quantity, situation, str(outcome), "share", k, n, lo, hi,
                            chosen if chosen_table is not None else None, param_name or "",
                            ok))
    return rows


def _range_row(obs: list[Observation], quantity: str, param_name: str | None,
               chosen: tuple | None, situation: str = "all levels") -> Row:
    values = [o.value for o in obs]
    low, lo, hi, high = range_interval(values)
    ok = None
    if chosen is not None:
        a, b = chosen
        ok = low <= a <= lo and hi <= b <= high
    return Row(quantity, situation, "range", "range", len(values), len(values), low, high,
               chosen, param_name or "", ok, lo, hi)


def estimate_all(observations: Iterable[Observation]) -> list[Row]:
    """Estimate every quantity in ``observations``; check chosen values (module doc)."""
    by: dict[str, list[Observation]] = {}
    for o in observations:
        by.setdefault(o.quantity, []).append(o)
    rows: list[Row] = []

    def value(name: str) -> Any:
        return PARAMS[name].value if name in PARAMS else None

    for q in sorted(by):
        obs = by[q]
        if q in ("move", "tomb"):
            name = {"move": "move_odds", "tomb": "tomb_odds"}[q]
            rows += _share_rows(obs, q, name, value(name))
        elif q in ("treasure", "tomb_extra"):
            # the game's odds less what each player could not get there: the mean of its
            # chances over the observed situations must lie in each outcome's interval (a
            # tomb's picture after its gold follows the same odds as a battle's)
            name = "treasure_odds"
            table = value(name)
            seen = sorted({o.value for o in obs} - set(table))
            for outcome in list(table) + seen:
                k = sum(1 for o in obs if o.value == outcome)
                lo, hi = wilson(k, len(obs))
                mean = sum(o.chance.get(outcome, 0.0) for o in obs) / len(obs)
                rows.append(Row(q, "all levels", outcome, "model", k, len(obs), lo, hi,
                                round(mean, 3), name, lo <= mean <= hi))
        elif q == "retreat":
            rows += _share_rows(obs, q, None, None)
        elif q == "brigands_spread":
            weights = value(q)
            rows += _share_rows(obs, q, q, {d: round(w / sum(weights.values()), 4)
                                            for d, w in weights.items()})
        elif q == "haggle":
            k = sum(1 for o in obs if o.value)
            lo, hi = wilson(k, len(obs))
            chosen = value("haggle_success")
            rows.append(Row(q, "all levels", "success", "share", k, len(obs), lo, hi, chosen,
                            "haggle_success", lo <= chosen <= hi))
        elif q == "skirmish":
            k = sum(1 for o in obs if o.value)
            lo, hi = wilson(k, len(obs))
            mean = sum(o.chance for o in obs) / len(obs)
            rows.append(Row(q, "all levels", "won", "model", k, len(obs), lo, hi,
                            round(mean, 3), "skirmish_win", lo <= mean <= hi))
            # the same by the force ratio, in the steps of the game's chance
            # (cleanroom.rules.skirmish_chance)
            for situation in force_classes():
                these = [o for o in obs if o.situation == situation]
                if these:
                    k = sum(1 for o in these if o.value)
                    lo, hi = wilson(k, len(these))
                    mean = sum(o.chance for o in these) / len(these)
                    rows.append(Row(q, situation, "won", "model", k, len(these), lo, hi,
                                    round(mean, 3), "skirmish_win", lo <= mean <= hi))
        elif q in ("brigands_after_win", "warriors_after_loss", "dragon_warriors",
                   "dragon_gold", "haggle_step", "citadel_double", "tomb_treasure",
                   "last_stand", "inventory_totals"):
            if q == "haggle_step":
                k = sum(1 for o in obs if o.value == 1)
            elif q == "dragon_warriors":
                k = sum(1 for o in obs if o.value[1] == o.value[0] - dragon_takes(o.value[0], 0)[0])
            elif q == "dragon_gold":
                k = sum(1 for o in obs if o.value[1] == o.value[0] - dragon_takes(0, o.value[0])[1])
            elif q == "last_stand":
                k = sum(1 for o in obs if o.value is False)
            else:
                k = sum(1 for o in obs if o.value)
            param_name = {"brigands_after_win": "brigands_after_win",
                          "warriors_after_loss": "warriors_after_loss",
                          "dragon_warriors": "dragon_share", "dragon_gold": "dragon_share",
                          "haggle_step": "haggle_success",
                          "citadel_double": "citadel_double", "tomb_treasure": "tomb_odds",
                          "last_stand": "min_warriors", "inventory_totals": ""}[q]
            chosen = {"haggle_step": "1 bag", "last_stand": "lost",
                      "inventory_totals": "reading"}.get(q, "rule")
            rows.append(Row(q, obs[0].situation, "agree", "rule", k, len(obs), k / len(obs),
                            k / len(obs), chosen, param_name, k == len(obs)))
        elif q.endswith("_price"):
            chosen = value(q)
            if q == "food_price":
                k = sum(1 for o in obs if o.value == chosen)
                rows.append(Row(q, "all levels", f"= {chosen}", "rule", k, len(obs), 0, 0,
                                chosen, q, k == len(obs)))
            else:
                rows.append(_range_row(obs, q, q, tuple(chosen)))
        elif q == "brigands_minus_warriors":
            # one chosen range for every level: checked on all battles, shown per level
            spread = value("brigands_spread")
            rows.append(_range_row(obs, q, "brigands_spread", (min(spread), max(spread))))
            for situation in sorted({o.situation for o in obs}):
                rows.append(_range_row([o for o in obs if o.situation == situation], q,
                                       "brigands_spread", None, situation))
        elif q == "tower_brigands":
            for situation in sorted({o.situation for o in obs}):
                lo, hi = value(q)[int(situation.split()[-1])]
                rows.append(_range_row([o for o in obs if o.situation == situation], q, q,
                                       (lo, hi), situation))
        elif q in ("battle_gold", "tomb_gold"):
            rows.append(_range_row(obs, q, "battle_gold", tuple(value("battle_gold"))))
        elif q in ("sanctuary_warriors", "sanctuary_gold"):
            bonus = value("sanctuary_bonus")[q.split("_")[1]]
            rows.append(_range_row(obs, q, "sanctuary_bonus", tuple(bonus)))
        else:
            values = [o.value for o in obs]
            rows.append(Row(q, "all levels", "values", "info", len(values), len(values),
                            sum(values) / len(values), 0.0, None, "", None, min(values),
                            max(values)))
    return rows


def rows_data(rows: Sequence[Row]) -> list[tuple]:
    """Return rows as plain tuples: (param, quantity, situation, outcome, kind, count, total,
    low, high, lo_seen, hi_seen), the ``EVIDENCE`` data in cleanroom.evidence."""
    def num(v):
        return round(v, 4) if isinstance(v, float) else v
    return [(r.param, r.quantity, r.situation, r.outcome, r.kind, r.count, r.total,
             num(r.low), num(r.high), num(r.lo_seen), num(r.hi_seen)) for r in rows]


def rows_markdown(rows: Sequence[Row]) -> str:
    """Return the estimates as a Markdown table."""
    out = ["| parameter | quantity | situation | outcome | n | estimate, 95 % interval | chosen "
           "| verdict |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        chosen = "" if r.chosen is None else str(r.chosen)
        out.append(f"| {r.param and '`' + r.param + '`'} | {r.quantity} | {r.situation} | "
                   f"{r.outcome} | {r.total} | {estimate_text(r)} | {chosen} | "
                   f"{VERDICTS[r.ok]} |")
    return "\n".join(out) + "\n"


def observe_folder(folder: str) -> list[Observation]:
    """Read ``folder``/events.jsonl and return its observations (source = the folder name)."""
    path = os.path.join(folder, "events.jsonl")
    if not os.path.isfile(path):
        raise StatsError(f"{folder}: no events.jsonl (expected a recording folder)")
    events = read_reference_events(path, StatsError)
    return observe(events, os.path.basename(os.path.normpath(folder)))


BEGIN = "# BEGIN EVIDENCE"
END = "# END EVIDENCE"


def replace_evidence(text: str, rows: Sequence[Row], where: str = "evidence.py") -> str:
    """Return ``text`` (cleanroom/evidence.py) with its evidence block holding ``rows``."""
    start = text.find(BEGIN)
    stop = text.find(END)
    if start < 0 or stop < start:
        raise StatsError(f"{where}: no '{BEGIN}' ... '{END}' block (expected "
                         f"cleanroom/evidence.py)")
    head = text[:text.index("\n", start) + 1]
    lines = ["_EVIDENCE_ROWS: list[tuple] = ["]
    for row in rows_data(rows):
        lines.append(f"    ({', '.join(map(repr, row[:5]))},")
        lines.append(f"     {', '.join(map(repr, row[5:]))}),")
    lines.append("]")
    return head + "\n".join(lines) + "\n" + text[stop:]
