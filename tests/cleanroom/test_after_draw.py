"""``towerlab draws --after`` reads families of single level-4 games whose second MOVE is
swept (the requests l4_after_safe_p336..p338 and l4_second_move) and names the rule a draw
follows (cleanroom.count ``after_draw_lines``).  The families here are recorded from
clean-room towers whose second MOVE follows a known rule, so the reading is checked against
the rule that made them."""
from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from captures.events import write_events
from captures.script import read_script
from cleanroom.count import (AFTER_DRAW_RULES, AFTER_DRAW_TOLERANCE, COUNT_STEP, MODULUS,
                             MOVE_TABLE, Family, after_draw_lines, count_at, count_cell,
                             first_move_passes, passes_since_tower_test)
from cleanroom.predict import Count, play
from towerlab.cli import main

REQUESTS = Path(__file__).resolve().parents[2] / "experiments" / "requests"
FAMILIES = ("l4_after_safe_p336", "l4_after_safe_p337", "l4_after_safe_p338")
RUNS = 48


class RuleTower(Count):
    """A tower whose first MOVE reads the count and whose second reads the count the first
    draw left by ``rule`` (x1: the first MOVE's count, p1: its passes, q: the second's)."""

    def __init__(self, rule):
        self.rule, self.first = rule, None

    def draw(self, name, options, weights, t, tower):
        if name != "move" or tower.game.level != 4:
            return super().draw(name, options, weights, t, tower)
        q = passes_since_tower_test(tower.game.engine.takes, t)
        if first_move_passes(tower, name, t) is not None:
            self.first = (count_at(q), q)
            count = self.first[0]
        else:
            count = self.rule(*self.first, q)
        value = MOVE_TABLE[count_cell(count)]
        return value if value in options else super().draw(name, options, weights, t, tower)


class TimedRuleTower(RuleTower):
    """A ``RuleTower`` whose MOVEs also take 6 instructions more when the count they read has
    bit 7 set, as the genuine tower's do (docs/draws.md, sections 6 and 13)."""

    def draw(self, name, options, weights, t, tower):
        if name == "move_think_cycles" and getattr(self, "read", None) is not None:
            want = 36 if (self.read >> 7) & 1 else 0
            self.read = None
            return want
        value = super().draw(name, options, weights, t, tower)
        if name == "move" and tower.game.level == 4:
            q = passes_since_tower_test(tower.game.engine.takes, t)
            self.read = count_at(q) if self.first[1] == q else self.rule(*self.first, q)
        return value


RULES = {
    "adds a constant": lambda x1, p1, q: (count_at(q) + 0x1234) % MODULUS,
    "multiplies by 0x2507 and adds (a linear congruential step)":
        lambda x1, p1, q: (COUNT_STEP * x1 + 0x3b1d + COUNT_STEP * (q - p1)) % MODULUS,
    "sets the count afresh": lambda x1, p1, q: (0x5a5a + COUNT_STEP * (q - p1)) % MODULUS,
}


def _record(tmp_path: Path, rule, families=FAMILIES, session: str = "",
            tower=RuleTower) -> list[str]:
    """Record each family's games on a ``tower`` that follows ``rule``, a folder each (the
    recording in a ``session`` folder inside it, if given, as the lab may return it)."""
    folders = []
    for family in families:
        for k in range(RUNS):
            request = REQUESTS / f"{family}_k{k:02d}.txt"
            script = read_script(str(request))
            events, _ = play(script, tower(rule), script.end_time())
            folder = tmp_path / f"{family}_k{k:02d}"
            inner = folder / session
            inner.mkdir(parents=True)
            shutil.copy(request, inner / "script.txt")
            with open(inner / "events.jsonl", "w", encoding="utf-8") as f:
                write_events(events, f)
            folders.append(str(folder))
    return folders


@pytest.mark.parametrize("rule", sorted(RULES))
def test_draws_after_names_the_rule_the_towers_second_move_follows(tmp_path, rule):
    out = io.StringIO()
    assert main(["draws", "--after"] + _record(tmp_path, RULES[rule]), out) == 0
    lines = out.getvalue().splitlines()
    assert lines[-1] == f"a draw {rule}", out.getvalue()
    assert sum("second MOVEs read by the count: " in line for line in lines) == 3


@pytest.mark.parametrize("rule", sorted(RULES))
def test_draws_after_reads_the_rule_off_the_times_bit_7_too(tmp_path, rule):
    out = io.StringIO()
    assert main(["draws", "--after"] + _record(tmp_path, RULES[rule], tower=TimedRuleTower),
                out) == 0
    lines = out.getvalue().splitlines()
    assert sum("its times' bit 7 implies the low byte" in line for line in lines) == 3
    pairs = [line for line in lines if "the times' low byte moves" in line]
    assert len(pairs) == 2 and all(line.endswith(f": {rule}") for line in pairs), lines
    assert lines[-1] == f"a draw {rule}"


def test_a_tower_whose_times_do_not_read_bit_7_is_said_so(tmp_path):
    out = io.StringIO()
    assert main(["draws", "--after"] + _record(tmp_path, RULES["adds a constant"],
                                               FAMILIES[:1]), out) == 0
    assert out.getvalue().rstrip().endswith("its times do not read bit 7")


def test_draws_after_says_when_no_rule_fits(tmp_path):
    def scramble(x1, p1, q):
        return ((x1 * 0x9e37) ^ 0x5bd1) % MODULUS + COUNT_STEP * (q - p1)
    out = io.StringIO()
    assert main(["draws", "--after"] + _record(tmp_path, lambda *a: scramble(*a) % MODULUS),
                out) == 0
    lines = out.getvalue().splitlines()
    assert lines[-2].startswith("no one of these rules fits"), out.getvalue()
    assert lines[-1].endswith("the draw is no affine map of the count"), out.getvalue()


def test_draws_after_reads_an_affine_draw_whose_multiplier_no_rule_has(tmp_path):
    # x -> 5 x + b: the implied counts move (5 - 1) x 0x2507 = 0x941c a pass of the first MOVE
    def times_five(x1, p1, q):
        return (5 * x1 + 0x0d31 + COUNT_STEP * (q - p1)) % MODULUS
    out = io.StringIO()
    assert main(["draws", "--after"] + _record(tmp_path, times_five), out) == 0
    lines = out.getvalue().splitlines()
    assert lines[-2].startswith("no one of these rules fits"), out.getvalue()
    head = "the implied counts move by one amount a pass of the first MOVE, "
    assert lines[-1].startswith(head), out.getvalue()
    per_pass = int(lines[-1][len(head):].split(",")[0], 16)
    assert abs(per_pass - 4 * COUNT_STEP % MODULUS) <= AFTER_DRAW_TOLERANCE
    assert lines[-1].endswith("with a multiplier none of these rules has")


def test_draws_after_reads_the_first_move_the_count_predicts(tmp_path):
    out = io.StringIO()
    assert main(["draws", "--after"] + _record(tmp_path, RULES["adds a constant"],
                                               FAMILIES[:1]), out) == 0
    (line,) = out.getvalue().splitlines()
    assert line.startswith("l4_after_safe_p336: first MOVE 336 passes after the tower test "
                           "(shown: none 48; the count predicts none)")


def test_draws_after_reads_a_family_returned_as_session_folders(tmp_path):
    rule = RULES["sets the count afresh"]
    flat, nested = io.StringIO(), io.StringIO()
    assert main(["draws", "--after"] + _record(tmp_path / "flat", rule, FAMILIES[:2]),
                flat) == 0
    assert main(["draws", "--after"] + _record(tmp_path / "nested", rule, FAMILIES[:2],
                                               session="session_0"), nested) == 0
    assert nested.getvalue() == flat.getvalue()


def test_draws_after_of_a_family_whose_swept_presses_no_scan_took_is_one_line(tmp_path,
                                                                              capsys):
    # a tower that did not play the request as designed (the clean-room game with its own
    # draws, say): the second MOVEs fall outside key loops, and no click follows them
    folders = _record(tmp_path, RULES["adds a constant"], FAMILIES[:1])
    for folder in folders:
        path = Path(folder) / "events.jsonl"
        events = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        last = max(e["t"] for e in events if e["type"] == "button")
        with open(path, "w", encoding="utf-8") as f:
            write_events([e for e in events if e["type"] != "tone" or e["t"] < last - 1], f)
    assert main(["draws", "--after"] + folders, io.StringIO()) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "l4_after_safe_p336's last presses show no MOVE's outcomes" in \
        err[0]


def test_draws_after_of_a_folder_not_named_as_a_requests_game_is_one_line(tmp_path, capsys):
    (tmp_path / "session").mkdir()
    assert main(["draws", "--after", str(tmp_path / "session")], io.StringIO()) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not named NAME_kNN" in err[0]


def test_after_draw_lines_name_each_rule_from_the_differences_it_predicts():
    for rule, step in AFTER_DRAW_RULES.items():
        fams = [Family(f"f{p}", p, (("none", 1),), "none", (0x4000 + step(p - 336)) % MODULUS,
                       30, 31) for p in (336, 337, 338)]
        assert after_draw_lines(fams)[-1] == f"a draw {rule}"
