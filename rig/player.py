"""Play a Dark Tower game as a person would, on any tower: the player of ``towerlab explore``.

``Explorer`` watches what a tower shows (``captures.events``: display texts, lamps with the
reel's card, tones) through the ``captures.tower.Tower`` protocol, reads it as the game's
prompts and pictures (``captures.darktower_game``) and answers each flashing prompt after a
human-like, seeded delay. How it reads the tower and what it presses is in
``docs/explore.md``; the batches of sessions are ``rig.explore``::

    explorer = Explorer(seed=7, level=4)
    events = explorer.run(CleanroomTower(seed=7))
    explorer.summary.outcome        # 'won'
    explorer.script_text()          # '# explore session 0 seed 7: towerlab explore ...'

Everything it decides comes from one ``random.Random`` seeded with ``seed``, and its presses
happen at exact tower times, so on a deterministic tower (the emulator, the clean-room game) a
seed plays the same session every time.
"""
from __future__ import annotations

import io
import random
from dataclasses import asdict, dataclass, field

from captures.darktower_game import (ACTIONS, BAZAAR_ITEMS, CARD_SETTLE_S, KEYS, SPECIALS,
                                     picture, read_prompt, settled_card)
from captures.script import BUTTONS, Press, Script, write_script

__all__ = ["Explorer", "SessionSummary", "ExploreError", "reaction_delays", "REACTION_S",
           "HOLD_S", "POLL_S", "QUIET_S", "MAX_SECONDS", "IGNORED_PRESSES", "GAME_WITHIN_S",
           "SETTLE_S"]

# A person answers a flashing prompt 0.3-3.1 s after it first lights: the genuine corpus's
# presses come 0.30-3.10 s after their prompt, 1st-99th percentile 0.43-2.93 s
# (docs/explore.md; tests/rig/test_explore.py measures both with reaction_delays).
REACTION_S = (0.3, 3.1)
HOLD_S = (0.15, 0.3)        # how long a key is held (the corpus holds 0.2 s)
POLL_S = 0.1                # how often the player looks at the tower, tower seconds
BUSY_POLL_S = 0.4           # ... while a picture is lit or the reel turns
SETTLE_S = CARD_SETTLE_S    # events are read this far behind now: the reel reports its card
                            # up to 15 ms after the lamp lights (docs/explore.md)
QUIET_S = 20.0              # no prompt and nothing shown for this long: the session is over
MAX_SECONDS = 1800.0        # stop at the first turn prompt after this much tower time
GAME_WITHIN_S = 120.0       # the first turn prompt comes within this long (the corpus: by
                            # 25-45 s, the tower test and both menus answered)
IGNORED_PRESSES = 3         # presses the tower did not react to, in a row, before giving up
RETREAT_HOLD_MAX_S = 15.0   # longest a retreat holds NO/END
# Rulebook (Game Level 4): the riddle of the keys is gold, then silver; everyone starts with
# the three keys, the Beast, Scout, Healer and Dragonsword, 10 warriors, 30 bags of gold and
# 25 rations, and the four frontiers behind them (docs/explore.md).
LEVEL4_RIDDLE = ("GOLD KEY", "SILVER KEY")

class ExploreError(ValueError):
    """A bad value given to the explorer; the message names it."""


@dataclass
class SessionSummary:
    """What one session showed (counted from what the tower showed and the player did)."""
    session: int
    seed: int
    level: int | None = None
    players: int | None = None
    turns: int = 0              # actions taken at turn prompts (REPEAT and CLEAR not counted)
    battles: int = 0            # battles begun (a BRIGANDS picture outside a battle)
    retreats: int = 0           # battles left by holding NO/END (WARRIORS with no number)
    bazaar_buys: int = 0        # purchases the tower confirmed (GOLD left shown)
    tombs: int = 0              # TOMB/RUIN actions
    dark_tower: int = 0         # DARK TOWER actions
    riddles: int = 0            # riddles of the keys asked ('1 ' prompts)
    final_battles: int = 0      # battles after the riddle's second key
    outcome: str = "no game"    # won, lost, unfinished, no game
    length_s: float = 0.0       # tower seconds
    presses: int = 0
    note: str = ""              # why the session ended, one line

    COLUMNS = ("session", "seed", "level", "players", "turns", "battles", "retreats",
               "bazaar_buys", "tombs", "dark_tower", "riddles", "final_battles", "outcome",
               "length_s", "presses", "note")

    def row(self) -> list[str]:
        """Return the summary's cells, as summary.txt writes them."""
        out = []
        for name in self.COLUMNS:
            v = getattr(self, name)
            out.append("-" if v is None else f"{v:.2f}" if isinstance(v, float) else str(v))
        return out


# ---- reading the tower ----------------------------------------------------------------------

@dataclass
class _Prompt:
    """A text that may be a flashing prompt: first lit at ``t``."""
    text: str
    t: float
    shown: int = 1              # times it has lit
    blanked: bool = False       # it went dark after a real on phase (>= 0.1 s)
    lit_at: float = 0.0
    answered: bool = False

    @property
    def flashing(self) -> bool:
        return self.blanked or self.shown >= 2


@dataclass
class _Sight:
    """A picture the tower showed: its name (None for an unknown card) and the number shown
    with it (None = no number)."""
    t: float
    name: str | None
    text: str | None


class _Watcher:
    """Follow a tower's events in time order, up to a horizon: the reel's card, the lit
    lamps (which picture), the candidate prompt, and the last time anything was shown."""

    def __init__(self) -> None:
        self.upto = -1.0
        self.card: int | None = None
        self.lit: dict[str, tuple[float, str | None]] = {}   # lamp -> (t on, number shown)
        self.lit_card: dict[str, int | None] = {}
        self.motor = False
        self.prompt: _Prompt | None = None
        self.sights: list[_Sight] = []
        self.activity = 0.0     # last tone, lamp, motor or non-blank display change
        self.text = "  "

    def feed(self, events: list[dict], horizon: float) -> list[_Sight]:
        """Take the events after the last horizon up to ``horizon``; return the pictures
        that finished (lamp off) among them."""
        import bisect

        lo = bisect.bisect_right(events, self.upto, key=_time)
        hi = bisect.bisect_right(events, horizon, key=_time)
        done: list[_Sight] = []
        for i in range(lo, hi):
            e = events[i]
            kind = e["type"]
            if kind == "reel":
                self.card = e["card_pos"]
            elif kind == "lamp":
                self.activity = e["t"]
                self.prompt = None
                if e["on"]:
                    self.lit[e["lamp"]] = (e["t"], None)
                    self.lit_card[e["lamp"]] = settled_card(events, i, self.card, SETTLE_S)
                elif e["lamp"] in self.lit:
                    t_on, text = self.lit.pop(e["lamp"])
                    card = self.lit_card.pop(e["lamp"], None)
                    sight = _Sight(t_on, picture(card, e["lamp"]), text)
                    self.sights.append(sight)
                    done.append(sight)
            elif kind in ("tone", "motor"):
                self.activity = e["t"]
                self.prompt = None
                if kind == "motor":
                    self.motor = bool(e["on"])
            elif kind == "display":
                self._display(e["t"], e["text"])
        self.upto = horizon
        return done

    def _display(self, t: float, text: str) -> None:
        old, self.text = self.text, text
        if self.lit:
            # a number shown with a picture
            lamp = next(iter(self.lit))
            if text.strip():
                self.lit[lamp] = (self.lit[lamp][0], text)
            self.activity = t
            return
        p = self.prompt
        if text == "  ":
            if p is not None and old == p.text and t - p.lit_at >= 0.1:
                p.blanked = True
            return
        if text != old:
            self.activity = t
        if p is not None and p.text == text:
            p.shown += 1
            p.lit_at = t
        else:
            self.prompt = _Prompt(text, t, lit_at=t)


def _time(e: dict) -> float:
    return e["t"]


def reaction_delays(events: list[dict]) -> list[float]:
    """Return, for each button press answering a flashing prompt in ``events``, how long
    after the prompt first lit it came (s): the first display text shown after the tower's
    last tone, lamp or motor change (or the last press) before the press. Presses at
    power-on (``0 ``) and during pictures are left out."""
    out = []
    last_out = 0.0
    first: tuple[float, str] | None = None
    for e in events:
        kind = e["type"]
        if kind in ("tone", "lamp", "motor"):
            last_out, first = e["t"], None
        elif kind == "display" and e["text"] != "  " and first is None:
            first = (e["t"], e["text"])
        elif kind == "button" and e.get("action") == "press":
            if first is not None and first[1] != "0 " and first[0] >= last_out:
                out.append(e["t"] - first[0])
            first = None        # a press the tower ignores: the next counts from after it
    return out


# ---- the player -----------------------------------------------------------------------------

@dataclass
class _Belief:
    """What the player remembers of one player's force, from what the tower showed."""
    keys: set = field(default_factory=set)
    frontiers: int = 0
    warriors: int = 10
    gold: int = 30
    specials: set = field(default_factory=set)


class Explorer:
    """One player's session on one tower: reads what it shows, presses what a person would.

    ``seed`` seeds every choice; ``level`` / ``players`` fix the game chosen at the menus
    (default: random); ``max_seconds`` ends the session at the first turn prompt after that
    much tower time (outcome ``unfinished``); a tower that shows nothing for ``quiet_s``
    seconds or no player's turn within ``game_within_s`` ends it (``lost`` once a game
    began, else ``no game``). ``run(tower)`` plays and returns the events; then ``script``
    holds what was pressed and ``summary`` what the session showed.
    """

    def __init__(self, seed: int, session: int = 0, level: int | None = None,
                 players: int | None = None, max_seconds: float = MAX_SECONDS,
                 quiet_s: float = QUIET_S, game_within_s: float = GAME_WITHIN_S,
                 favour: dict[str, float] | None = None, repeat_rate: float | None = None,
                 retreat_rate: float | None = None):
        for name, v in (("level", level), ("players", players)):
            if v is not None and v not in (1, 2, 3, 4):
                raise ExploreError(f"{name} {v!r}: expected 1, 2, 3 or 4")
        for key, factor in (favour or {}).items():
            if key not in ACTIONS or key in ("REPEAT", "CLEAR"):
                raise ExploreError(f"favour {key!r}: expected an action key of a turn (one of "
                                   f"{', '.join(k for k in ACTIONS if k not in ('REPEAT', 'CLEAR'))})")
            if not (isinstance(factor, (int, float)) and 0 <= factor < float("inf")):
                raise ExploreError(f"favour {key}={factor!r}: expected a factor >= 0")
        for name, rate in (("repeat", repeat_rate), ("retreat", retreat_rate)):
            if rate is not None and not (isinstance(rate, (int, float)) and 0 <= rate <= 1):
                raise ExploreError(f"{name} rate {rate!r}: expected a share from 0 to 1")
        # steering (a request for recordings that need a situation): each turn's action
        # weights multiplied by ``favour``; REPEAT at the end-of-turn signal that often; a
        # retreat from that share of the battles, the Final Battle's too
        self.favour = dict(favour or {})
        self.repeat_rate = repeat_rate
        self.retreat_rate = retreat_rate
        self._repeated = False
        if not (isinstance(max_seconds, (int, float)) and 0 < max_seconds < float("inf")):
            raise ExploreError(f"max seconds {max_seconds!r}: expected a finite number of "
                               f"tower seconds > 0")
        self.rng = random.Random(seed)
        self.want_level = level or self.rng.randint(1, 4)
        self.want_players = players or self.rng.randint(1, 4)
        self.max_seconds = float(max_seconds)
        self.quiet_s = quiet_s
        self.game_within_s = game_within_s
        self.summary = SessionSummary(session=session, seed=seed)
        self.script = Script(name=f"explore session {session} seed {seed}")
        self._seed = seed
        self.phase = "power"        # power, menus, game, over
        self.beliefs: dict[int, _Belief] = {}
        self.current: int | None = None
        self.action: str | None = None      # this turn's action key
        self._offer: _Sight | None = None
        self._count_target = 0
        self._buying = False
        self._went_round = {"L": False, "P": False}
        self._riddle_known: list[str | None] = [None, None]
        self._riddle_wrong: list[set] = [set(), set()]
        self._riddle_try: tuple[int, str] | None = None
        self._in_battle = False
        self._brigands_seen = 0
        self._retreat_after: int | None = None
        self._retreat_at: float | None = None
        self._frontier_pending = False
        self._won = False
        self._holding_retreat = False
        self._riddle_counted = False
        self._end_note = ""
        self._counts: list[str] = []     # summary counts of the last press, once it is taken

    # ---- the session loop ----------------------------------------------------------------
    def run(self, tower) -> list[dict]:
        """Play on ``tower`` (powered, at its start) until the game is over, the tower
        stops prompting, or ``max_seconds``; return its events."""
        w = self._w = _Watcher()
        self._tower = tower
        ignored = 0
        reaction = self._reaction()
        end_note = None
        check: tuple[float, _Prompt] | None = None     # a press whose answer is awaited
        while end_note is None:
            self._look()
            p = w.prompt
            now = tower.now
            if check is not None and (now >= check[0] + 1.0 or p is not check[1]):
                counts, self._counts = self._counts, []
                if self._reacted(*check):
                    ignored = 0
                    for name in counts:         # an action the tower took
                        setattr(self.summary, name, getattr(self.summary, name) + 1)
                else:
                    ignored += 1
                    if ignored >= IGNORED_PRESSES:
                        end_note = (f"the tower ignored {ignored} presses in a row at "
                                    f"{check[1].text!r} (a firmware that does not play the "
                                    f"game?)")
                        break
                    if p is check[1]:               # still flashing: answer it again, a
                        # reaction after the press that did nothing
                        w.prompt = p = _Prompt(p.text, check[0], shown=2, lit_at=now)
                check = None
            if self._retreat_due(now):
                self._retreat()
                continue
            if p is not None and not p.answered and p.flashing and check is None:
                if self._stop_here(p):
                    end_note = self._end_note
                    break
                at = p.t + reaction
                if at > now + 1e-3:         # (a tower may advance in whole clock ticks)
                    self._advance(min(at - now, POLL_S))
                    continue
                button = self._decide(p.text)
                t_press = tower.now
                self._press(button, self._hold())
                p.answered = True
                reaction = self._reaction()
                check = (t_press, p)
                continue
            if self.phase != "game" and now >= self.game_within_s:
                end_note = (f"no game prompt seen within {self.game_within_s:g} s (the tower "
                            f"never flashed a player's turn)")
                break
            quiet = now - max(w.activity, self._last_press_end())
            if quiet >= self.quiet_s:
                end_note = self._quiet_note()
                break
            if now >= self.max_seconds + 120.0:
                end_note = f"stopped at {now:.0f} s (no turn prompt after --max-seconds)"
                self.summary.outcome = "unfinished"
                break
            # a picture or the turning reel holds the tower for a second or more: look less
            # often (no prompt flashes while a lamp is lit)
            busy = (w.lit or w.motor) and not self._in_battle
            self._advance(BUSY_POLL_S if busy else POLL_S)
        if self.summary.outcome == "no game" and self._won:
            self.summary.outcome = "won"
        self.summary.note = end_note
        self.summary.length_s = round(tower.now, 6)
        self.script.length = round(tower.now, 6)
        return tower.events()

    def script_text(self) -> str:
        """Return the session script as script.txt holds it."""
        buf = io.StringIO()
        # the command's module, as every recording an explore wrote says it
        buf.write(f"# {self.script.name}: towerlab explore (rig/explore.py)\n")
        write_script(self.script, buf)
        return buf.getvalue()

    def meta(self) -> dict:
        """Return recording.json's ``explore`` entry: the seed and what the session showed."""
        return {"explore": asdict(self.summary)}

    # ---- helpers of the loop -------------------------------------------------------------
    def _reaction(self) -> float:
        return round(self.rng.uniform(*REACTION_S), 3)

    def _hold(self) -> float:
        return round(self.rng.uniform(*HOLD_S), 3)

    def _advance(self, seconds: float) -> None:
        if seconds > 0:
            self._tower.advance(seconds)

    def _look(self) -> None:
        tower = self._tower
        for sight in self._w.feed(tower.events(), tower.now - SETTLE_S):
            self._saw(sight)

    def _last_press_end(self) -> float:
        a = self.script.actions
        return a[-1].t + a[-1].hold if a else 0.0

    def _press(self, button: str, hold: float | None) -> None:
        """Press ``button`` now and hold it ``hold`` s (None: a retreat, until the battle
        ends), watching the tower meanwhile; record it in the script."""
        tower = self._tower
        t0 = tower.now
        tower.press(button)
        self.summary.presses += 1
        if hold is not None:
            self._advance(hold)
            self._look()
        else:
            while (tower.now - t0 < RETREAT_HOLD_MAX_S and self._in_battle
                   and not (self._w.prompt is not None and self._w.prompt.flashing)):
                self._advance(POLL_S)
                self._look()
        tower.release(button)
        self.script.actions.append(Press(round(t0, 6), button, round(tower.now - t0, 6)))

    def _reacted(self, t_press: float, p: _Prompt) -> bool:
        """Return True when the tower answered the press at prompt ``p``: a tone (the key
        click) or a change of what it shows, since the press."""
        import bisect

        events = self._tower.events()
        start = bisect.bisect_left(events, t_press, key=_time)
        for e in events[start:]:
            if e["type"] in ("tone", "lamp", "motor"):
                return True
            if e["type"] == "display" and e["text"] not in ("  ", p.text):
                return True
        return False

    def _stop_here(self, p: _Prompt) -> bool:
        """Return True when the session ends at prompt ``p`` (the score after a victory, or
        a turn prompt after --max-seconds); sets the outcome."""
        s = self.summary
        if self._won and p.text.isdigit():
            s.outcome = "won"
            self._end_note = f"victory: the score {p.text} flashes"
            self._advance(2.0)
            return True
        if self.phase == "game" and p.text == "00":
            # a solo game lost: 00 flashes for good (the genuine tower's, cleanroom/README.md)
            s.outcome = "lost"
            self._end_note = "game over: 00 flashes after the last warriors were lost"
            self._advance(2.0)
            return True
        turn = read_prompt(p.text)
        if (self.phase == "game" and turn is not None and turn.kind == "turn"
                and self._tower.now >= self.max_seconds):
            s.outcome = "unfinished"
            self._end_note = (f"stopped at the first turn prompt after "
                              f"{self.max_seconds:g} s")
            return True
        return False

    def _quiet_note(self) -> str:
        s = self.summary
        if self.phase == "game" and not self._won:
            s.outcome = "lost"
            return (f"game over: the tower went quiet for {self.quiet_s:g} s "
                    f"after the last warriors were lost")
        if self._won:
            s.outcome = "won"
            return "victory"
        return (f"no game prompt seen within {self.quiet_s:g} s (the tower showed no "
                f"flashing prompt it waits at)")

    # ---- what the tower showed -----------------------------------------------------------
    def _belief(self) -> _Belief | None:
        return self.beliefs.get(self.current) if self.current is not None else None

    def _saw(self, sight: _Sight) -> None:
        s = self.summary
        name, b = sight.name, self._belief()
        if name == "VICTORY":
            self._won = True
        if name == "BRIGANDS":
            if not self._in_battle:
                self._in_battle = True
                self._brigands_seen = 0
                s.battles += 1
                if self._riddle_try is not None and self._riddle_try[0] == 2:
                    s.final_battles += 1
                    self._riddle_known[1] = self._riddle_try[1]
                    self._riddle_try = None
                self._plan_retreat()
            self._brigands_seen += 1
            if self._retreat_after == self._brigands_seen and self._retreat_at is None:
                self._retreat_at = self._tower.now + round(self.rng.uniform(0.2, 1.2), 3)
        if name == "WARRIORS" and sight.text is None and self._in_battle:
            if self._holding_retreat:
                s.retreats += 1
            self._in_battle = False
        if b is None:
            return
        number = int(sight.text) if sight.text and sight.text.isdigit() else None
        if name == "WARRIOR" and number is not None and self.action != "BAZAAR":
            b.warriors = number
        if name == "GOLD" and number is not None:
            b.gold = number
            if self._buying:
                s.bazaar_buys += 1
                self._buying = False
        if name in KEYS and self.action not in ("DARK TOWER", "INVENTORY"):
            b.keys.add(name)
        if name in KEYS and self.action == "INVENTORY":
            b.keys.add(name)
        if name in SPECIALS and self.action == "INVENTORY":
            b.specials.add(name)
        if name == "KEY MISSING" and self.action == "FRONTIER":
            self._frontier_pending = False
        if name == "BAZAAR CLOSED":
            self._buying = False
        if name in BAZAAR_ITEMS and self.action == "BAZAAR" and sight.text is not None:
            self._offer = sight

    def _plan_retreat(self) -> None:
        """Decide at a battle's first BRIGANDS whether to retreat, after which BRIGANDS."""
        self._retreat_at = None
        final = self.summary.final_battles and self._riddle_known[1] is not None \
            and self.action == "DARK TOWER"
        chance = 0.15 if final else 0.3
        if self.retreat_rate is not None:
            chance = self.retreat_rate      # steered (the same draws as unsteered)
        self._retreat_after = self.rng.randint(1, 3) if self.rng.random() < chance else None

    def _retreat_due(self, now: float) -> bool:
        return (self._in_battle and self._retreat_at is not None and now >= self._retreat_at
                and not self._holding_retreat)

    def _retreat(self) -> None:
        """Hold NO/END down until the battle ends (rulebook: Retreating in battle)."""
        self._retreat_at = None
        self._retreat_after = None
        self._holding_retreat = True
        try:
            self._press("NO/END", None)
        finally:
            self._holding_retreat = False
        self._in_battle = False

    # ---- what to press -------------------------------------------------------------------
    def _decide(self, text: str) -> str:
        """Return the button for flashing prompt ``text``."""
        rng = self.rng
        self._in_battle = False
        prompt = read_prompt(text)
        kind = prompt.kind if prompt is not None else None
        if self.phase == "power":
            self.phase = "menus"
            # rulebook, Tower Test: any key starts it
            return rng.choice(BUTTONS)
        if kind in ("level", "players") and self.phase == "menus":
            return self._menu(text)
        if self.phase != "game":
            return rng.choice(BUTTONS)
        if kind == "turn":
            return self._turn(prompt.n)
        if kind == "turn end":
            return self._end_of_turn()
        if kind == "offer":
            return self._bazaar_offer()
        if kind == "number" and self.action == "BAZAAR":
            return self._count(int(text))
        if kind == "curse":
            return "YES/BUY" if rng.random() < 0.6 else "NO/END"
        if kind == "riddle":
            return self._riddle(prompt.n)
        return rng.choice(BUTTONS)

    def _menu(self, text: str) -> str:
        kind, n = text[0], int(text[1])
        want = self.want_level if kind == "L" else self.want_players
        if n == want:
            if not self._went_round[kind] and self.rng.random() < 0.1:
                self._went_round[kind] = True      # once round the menu, as people do
                return "NO/END"
            if kind == "L":
                self.summary.level = n
            else:
                self.summary.players = n
                self._start_game()
            return "YES/BUY"
        return "NO/END"

    def _start_game(self) -> None:
        self.phase = "game"
        for n in range(1, self.want_players + 1):
            b = _Belief()
            if self.want_level == 4:
                b.keys, b.frontiers = set(KEYS), 4
                b.specials = set(SPECIALS)
            self.beliefs[n] = b
        if self.summary.level == 4:
            self._riddle_known = list(LEVEL4_RIDDLE)

    def _turn(self, n: int) -> str:
        """Choose player ``n``'s action: a quest for the keys, the frontiers and the tower,
        with every other button now and then."""
        rng = self.rng
        self._settle_turn()
        self.current = n
        b = self.beliefs.setdefault(n, _Belief())
        w = {"MOVE": 30.0, "TOMB/RUIN": 14.0, "BAZAAR": 10.0, "SANCTUARY/CITADEL": 6.0,
             "INVENTORY": 5.0, "REPEAT": 3.0, "CLEAR": 3.0, "FRONTIER": 4.0,
             "DARK TOWER": 2.0}
        if len(b.keys) >= 3 and b.frontiers >= 4:
            w["DARK TOWER"] += 40.0 if b.warriors >= 8 else 10.0
            w["BAZAAR"] += 10.0 if b.gold >= 10 else 0.0
        elif b.frontiers == 0 or len(b.keys) >= b.frontiers:
            w["FRONTIER"] += 25.0
        else:
            w["MOVE"] += 10.0
            w["TOMB/RUIN"] += 10.0
        if b.warriors <= 4:
            w["SANCTUARY/CITADEL"] += 15.0
        for k, factor in self.favour.items():
            w[k] *= factor
        if rng.random() < 0.02:
            key = rng.choice([k for k in BUTTONS if k not in ACTIONS])  # a stray key
        else:
            key = rng.choices(list(w), weights=list(w.values()))[0]
        if key in ACTIONS and key not in ("REPEAT", "CLEAR"):
            self.action = key
            self._riddle_counted = False
            self._counts.append("turns")
            if key == "TOMB/RUIN":
                self._counts.append("tombs")
            elif key == "DARK TOWER":
                self._counts.append("dark_tower")
            elif key == "FRONTIER":
                self._frontier_pending = True
        return key

    def _settle_turn(self) -> None:
        """Close the last action's books: a frontier crossed, a riddle key found wrong."""
        b = self._belief()
        if b is not None and self._frontier_pending:
            b.frontiers = min(4, b.frontiers + 1)
        self._frontier_pending = False
        if self._riddle_try is not None:
            stage, key = self._riddle_try
            self._riddle_wrong[stage - 1].add(key)
            self._riddle_try = None
        self._buying = False
        self._offer = None

    def _end_of_turn(self) -> str:
        self._settle_turn()
        r = self.rng.random()
        if self.repeat_rate is not None and self.action is not None:
            # steered: REPEAT after the turn's action that often, once (then as usual)
            if r < self.repeat_rate and not self._repeated:
                self._repeated = True
                return "REPEAT"
            self._repeated = False
            r = self.rng.random()
        if r < 0.82:
            self.action = None
            return "NO/END"
        if r < 0.9:
            return "REPEAT"
        if r < 0.96:
            return "INVENTORY"
        self.action = None
        return "CLEAR"

    def _bazaar_offer(self) -> str:
        rng, b = self.rng, self._belief()
        offer = self._offer
        item = offer.name if offer else None
        price = int(offer.text) if offer and offer.text and offer.text.isdigit() else 99
        gold = b.gold if b else 0
        w = {"NO/END": 25.0, "HAGGLE": 15.0, "REPEAT": 5.0, "CLEAR": 4.0, "YES/BUY": 5.0}
        if item == "FOOD":
            w["HAGGLE"] = 2.0           # haggling over food angers the merchant
        if price <= gold:
            w["YES/BUY"] += 35.0 if item in ("WARRIOR", "FOOD") else 30.0
        key = rng.choices(list(w), weights=list(w.values()))[0]
        if key == "YES/BUY":
            if item in SPECIALS:
                self._buying = True
                if b is not None:
                    b.specials.add(item)
            else:
                most = max(1, min(gold // max(1, price), 8))
                self._count_target = rng.randint(1, most)
        return key

    def _count(self, n: int) -> str:
        r = self.rng.random()
        if r < 0.04:
            return "CLEAR"
        if n < self._count_target:
            return "YES/BUY"
        self._buying = True
        b = self._belief()
        if b is not None and self._offer is not None and self._offer.name == "WARRIOR":
            b.warriors = min(99, b.warriors + n)
        return "NO/END"

    def _riddle(self, stage: int) -> str:
        """Answer the riddle of the keys: YES/BUY on the key believed right, NO/END to see
        the next; a guess that failed is not tried again (the order never changes)."""
        if stage == 2 and self._riddle_try is not None and self._riddle_try[0] == 1:
            self._riddle_known[0] = self._riddle_try[1]
            self._riddle_try = None
        if stage == 1 and not self._riddle_counted:
            self._riddle_counted = True
            self.summary.riddles += 1
        shown = next((s.name for s in reversed(self._w.sights) if s.name in KEYS), None)
        want = self._riddle_known[stage - 1]
        if want is None:
            other = self._riddle_known[0] if stage == 2 else None
            options = [k for k in KEYS if k not in self._riddle_wrong[stage - 1]
                       and k != other] or list(KEYS)
            want = self.rng.choice(options) if shown not in options else (
                shown if self.rng.random() < 0.5 else self.rng.choice(options))
        if self.rng.random() < 0.05:
            return "REPEAT"
        if shown == want:
            self._riddle_try = (stage, want)
            return "YES/BUY"
        return "NO/END"
