"""Every BAZAAR, INVENTORY, SANCTUARY/CITADEL, FRONTIER and DARK TOWER visit of the 30-session
genuine corpus, replayed on the game (visits.visit) and compared output for output.

The test reads off each recording only what the tower keeps and the rules leave to chance:
the player's totals the visit itself shows (GOLD after a purchase plus what was spent, the
INVENTORY numbers, a Sanctuary's new totals), the prices first offered, each haggle's outcome,
the key the riddle offers first.  Everything else is the game's: which offers come in which
order, what each key does, when the bazaar closes, which pictures, totals and sound cues
(cleanroom/cues.py) follow, and when.

A cursed player's visit (the CURSED flow answers the key first) takes the totals it shows.
Left out, with the reason counted: a visit that starts with the low-food warning (the turn
loop plays it after the key, before the button's flow); the rest must all conform.
"""
from __future__ import annotations

import pytest

from .visits import CORPUS, RecordedVisit, level_players, load, recorded_visits, visit

SESSIONS = sorted(p.name for p in CORPUS.iterdir() if (p / "events.jsonl").exists())
ITEMS = {"WARRIOR": "warriors", "FOOD": "food", "BEAST": "beast", "SCOUT": "scout",
         "HEALER": "healer"}
SPECIALS = ("beast", "scout", "healer")
LOW_FOOD_HZ = 221.0     # the first whoop of the low-food warning (l2_p1_s26 301.346)


def _numbers(v: RecordedVisit) -> list[tuple[str, str | None, str | None]]:
    """Return (picture, number shown with it, key pressed before it) for each picture."""
    out, key = [], None
    for i, st in enumerate(v.steps):
        if st.kind == "press":
            key = st.value
        elif st.kind == "picture":
            nxt = v.steps[i + 1] if i + 1 < len(v.steps) else None
            num = nxt.value if (nxt is not None and nxt.kind == "text" and nxt.value.isdigit()
                                and nxt.t - st.t < 0.1) else None
            out.append((st.value, num, key))
            key = None
    return out


def _totals(v: RecordedVisit) -> dict:
    """Return the player's totals and possessions the visit's pictures show."""
    inv: dict = {}
    for picture, num, _ in _numbers(v):
        if picture in ("WARRIOR", "FOOD", "GOLD") and num is not None:
            inv[{"WARRIOR": "warriors", "FOOD": "food", "GOLD": "gold"}[picture]] = int(num)
        elif picture in ("BEAST", "SCOUT", "HEALER", "SWORD"):
            inv[picture.lower()] = True
        elif picture.endswith(" KEY"):
            inv["keys"] = inv.get("keys", 0) + 1
    return inv


def _bazaar(v: RecordedVisit, level: int) -> tuple[dict, dict]:
    first: dict[str, int] = {}
    price: dict[str, int] = {}
    haggles: list[bool] = []
    item, count, bought, gold, closed_count = None, 0, None, None, None
    key, pending = None, None
    for st in v.steps:
        if st.kind == "press":
            key = st.value
            if key == "YES/BUY" and item in SPECIALS:
                bought = item
            continue
        if st.kind == "picture":
            if st.value in ITEMS:
                if key == "HAGGLE":
                    haggles.append(True)
                item = ITEMS[st.value]
            elif st.value == "BAZAAR CLOSED":
                if key == "HAGGLE":
                    haggles.append(False)
                elif key == "YES/BUY":
                    closed_count = count
            pending = st.value
            key = None
            continue
        if st.value.isdigit():
            if key is None and pending in ITEMS:
                price[item] = int(st.value)
                first.setdefault(item, int(st.value))
            elif key is None and pending == "GOLD":
                gold = int(st.value)
            elif key == "YES/BUY":
                count = int(st.value)
            pending = None
    inv = dict(warriors=17, food=20, gold=30)       # 17 warriors carry 99 bags
    if gold is not None:
        inv["gold"] = gold + (price[bought] if bought else count * price[item])
    elif closed_count is not None:
        inv["gold"] = closed_count * price[item]
    owned = {s: level == 4 for s in SPECIALS}
    order = ["warriors", "food", *SPECIALS]
    offered = [ITEMS[p] for p, _, _ in _numbers(v) if p in ITEMS]
    for a, b in zip(offered, offered[1:]):     # specials skipped between two offers are owned
        if order.index(b) > order.index(a) + 1:
            for s in order[order.index(a) + 1:order.index(b)]:
                owned[s] = True
    inv.update(owned)
    out: dict = {"haggle": haggles}
    for it, n in first.items():
        if it != "food":
            out[("warrior" if it == "warriors" else it) + "_price"] = [n]
    return inv, out


def _sanctuary(v: RecordedVisit, level: int) -> tuple[dict, dict]:
    shown = _totals(v)
    inv: dict = dict(warriors=10, food=20, gold=30)
    out: dict = {}
    if level == 4:
        inv.update(frontiers=4, keys=3, beast=True, scout=True, healer=True)
        if "warriors" in shown:
            inv["warriors"] = shown["warriors"] // 2
        else:
            inv["doubled"] = True
        return inv, out
    for name, low in (("warriors", 3), ("food", 3), ("gold", 3)):
        if name in shown:
            inv[name] = low
            out[f"sanctuary_{name}"] = [shown[name] - low]
    return inv, out


def _dark_tower(v: RecordedVisit, level: int) -> tuple[dict, dict]:
    inv: dict = {} if level == 4 else dict(keys=0)
    out: dict = {}
    brigands, skirmish = None, []
    for picture, num, key in _numbers(v):
        if picture.endswith(" KEY"):
            if "riddle_key1" not in out:
                out["riddle_key1"] = [picture]
            elif key == "YES/BUY" and "riddle_key2" not in out:
                out["riddle_key2"] = [picture]
        elif picture == "WARRIORS" and num is not None and "warriors" not in inv:
            inv["warriors"] = int(num)
        elif picture == "BRIGANDS" and num is not None:
            if brigands is not None:
                skirmish.append(int(num) < brigands)
            brigands = int(num)
    if skirmish:
        out["skirmish"] = skirmish
    return inv, out


def _inputs(v: RecordedVisit, button: str) -> tuple[dict, dict]:
    """Return (inventory, decisions) for replaying visit ``v``."""
    level = level_players(v.session)[0]
    inv: dict = dict(warriors=10, food=20, gold=30)
    out: dict = {}
    if button == "BAZAAR":
        inv, out = _bazaar(v, level)
    elif button == "INVENTORY":
        inv = {"beast": False, "scout": False, "healer": False, "sword": False, "keys": 0,
               **_totals(v)}
    elif button == "SANCTUARY/CITADEL":
        inv, out = _sanctuary(v, level)
    elif button == "FRONTIER":
        if any(st.value == "KEY MISSING" for st in v.steps):
            inv.update(frontiers=1, keys=0)
    elif button == "DARK TOWER":
        inv, out = _dark_tower(v, level)
    if any(st.value == "CURSED" for st in v.steps):
        # a curse cast on this player answers the key first: CURSED, WARRIOR and GOLD left
        inv = {**inv, **_totals(v), "cursed_by": v.player % len_players(v) + 1}
        out = {}
    return inv, out


def len_players(v: RecordedVisit) -> int:
    """Return the number of players of ``v``'s session."""
    return level_players(v.session)[1]


def _left_out(v: RecordedVisit) -> str | None:
    tones = [e for e in load(v.session) if e["type"] == "tone" and e["t"] > v.t_press]
    if len(tones) > 1 and abs(tones[1]["freq_hz"] - LOW_FOOD_HZ) < 3:
        return "low food warning"
    return None


def sweep(button: str) -> tuple[int, list[str], dict[str, int]]:
    """Replay every recorded ``button`` visit; return (visits compared, failures, left out)."""
    n, failures, left = 0, [], {}
    for session in SESSIONS:
        for v in recorded_visits(session, button):
            reason = _left_out(v)
            if reason:
                left[reason] = left.get(reason, 0) + 1
                continue
            inv, out = _inputs(v, button)
            got = visit(session, v.t_press, v.t_end + 0.6, player=v.player, inventory=inv,
                        **out)
            n += 1
            if not got.result.conforms:
                failures.append(f"{session} {v.t_press:.2f}: {got.result.describe()}")
    return n, failures, left


@pytest.mark.parametrize("button", ["BAZAAR", "INVENTORY", "SANCTUARY/CITADEL", "FRONTIER",
                                    "DARK TOWER"])
def test_every_recorded_visit_conforms(button):
    n, failures, left = sweep(button)
    assert n > 0 and not failures, (
        f"{button}: {n - len(failures)} of {n} corpus visits conform (left out: {left})\n\n"
        + "\n\n".join(failures))
