"""analysis.battles (``towerlab battles``): a recording's battles timed skirmish by skirmish,
and the battles that repeat in other games (docs/draws.md, section 9).

The 30 corpus sessions in tests/data and two excerpts of one battle fought in two games
(tests/data/battles) stand on their own; where the lab's corpus sits beside the checkout
(tests/corpus.py) its development sessions are read too."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from analysis.battles import (alike_starts, identical_battles, read_battles, same_draws,
                              segments, shared_pairs)
from captures.darktower_facts import INSTRUCTION_CYCLES, NOMINAL_CLOCK_HZ
from captures.events import read_events
from tests.cleanroom.corpus_split import DEVELOPMENT
from tests.corpus import DATA_CORPUS, genuine_corpus
from towerlab.cli import main

EXCERPTS = Path(__file__).resolve().parents[1] / "data" / "battles"
ONE_BATTLE = ["l1_p3_s141_50.95", "l3_p3_s111_355.38"]


def corpus_battles(folder: Path, names) -> list:
    out = []
    for name in sorted(names):
        path = folder / name / "events.jsonl"
        if path.is_file():
            out += read_battles(read_events(str(path)), name)
    return out


@pytest.fixture(scope="module")
def data_battles():
    return corpus_battles(DATA_CORPUS, [p.name for p in DATA_CORPUS.iterdir()])


@pytest.fixture(scope="module")
def dev_battles():
    """The development sessions' battles, where the lab's corpus is beside the checkout
    (None in a clone without it)."""
    corpus = genuine_corpus()
    return None if corpus is None else corpus_battles(corpus, DEVELOPMENT)


@pytest.fixture(scope="module")
def excerpts():
    return [b for name in ONE_BATTLE
            for b in read_battles(read_events(str(EXCERPTS / f"{name}.jsonl")), name)]


def test_the_sample_corpus_has_battles_to_read(data_battles):
    assert len(data_battles) == 96 and sum(len(b.skirmishes) for b in data_battles) == 456


def test_every_stretch_of_a_skirmish_but_one_has_a_fixed_length(data_battles):
    fixed = {k: v for k, v in segments(data_battles).items() if not k.startswith("stretch")}
    assert {k: (round(lo), round(hi)) for k, (lo, hi, _) in fixed.items()} == {
        "battle BRIGANDS lit": (678438, 678438), "WARRIORS lit": (678720, 678720),
        "WARRIORS dark to BRIGANDS": (42, 42), "BRIGANDS lit": (678708, 678708),
        "BRIGANDS dark to cue, won": (252, 252), "BRIGANDS dark to cue, lost": (240, 240),
        "cue, won": (309254, 309254), "cue, lost": (514777, 514777)}


def test_the_stretch_before_a_skirmish_is_a_whole_number_of_instructions(data_battles):
    # the events are dated to the microsecond: two dates are a tenth of an instruction apart
    rate = NOMINAL_CLOCK_HZ / INSTRUCTION_CYCLES
    for b in data_battles:
        landmark = b.lamp[1]
        for s in b.skirmishes:
            exact = (s.warriors_lamp[0] - landmark) * rate
            assert abs(exact - s.stretch) < 0.1, (b.session, b.t, s.k, exact)
            landmark = s.cue[-1][0]


def test_a_won_skirmish_halves_the_brigands_and_a_lost_one_costs_a_warrior(data_battles):
    for b in data_battles:
        brigands, warriors = b.brigands, None
        for s in b.skirmishes:
            if s.won:
                assert s.brigands == brigands // 2 and warriors in (None, s.warriors)
            else:
                assert s.brigands == brigands and (warriors is None or
                                                   s.warriors == warriors - 1)
            brigands, warriors = s.brigands, s.warriors


def test_one_battle_fought_in_two_games_agrees_skirmish_for_skirmish(excerpts):
    assert [b.session for b in excerpts] == ONE_BATTLE
    assert len(excerpts[0].skirmishes) == 7
    assert [b.session for g in identical_battles(excerpts) for b in g] == ONE_BATTLE


def test_a_battle_is_not_identical_to_itself(excerpts):
    assert identical_battles([excerpts[0], excerpts[0]]) == []


def test_battles_that_differ_in_one_stretch_are_not_identical(excerpts):
    a, b = excerpts
    b.skirmishes[3].stretch += 1
    try:
        assert identical_battles([a, b]) == []
    finally:
        b.skirmishes[3].stretch -= 1


def test_the_development_corpus_repeats_ten_battles_in_other_games(excerpts, dev_battles):
    if dev_battles is None:
        # a clone without the lab's corpus (tests/corpus.py): the one pair kept in tests/data
        assert len(identical_battles(excerpts)) == 1
        return
    battles = dev_battles
    assert len(battles) == 348 and sum(len(b.skirmishes) for b in battles) == 1701
    groups = identical_battles(battles)
    assert len(groups) == 10 and all(len(g) == 2 for g in groups)
    pairs = {frozenset((b.session, round(b.t, 2)) for b in g) for g in groups}
    assert frozenset({("l1_p1_s25", 100.47), ("l2_p1_s102", 249.27)}) in pairs
    assert shared_pairs(battles)[0] == 68


def test_a_battle_names_the_key_that_began_it_and_times_its_draw(excerpts):
    # the MOVE's click to the battle horn; a TOMB/RUIN's click to its creak's first note
    tomb, move = excerpts
    assert (tomb.begun_by, round(tomb.draw_time)) == ("TOMB/RUIN", 164)
    assert (move.begun_by, round(move.draw_time)) == ("MOVE", 1197)


def test_a_battle_knows_the_warriors_it_began_with(excerpts):
    # the first skirmish was lost: its WARRIORS shows one less than the battle began with
    first = excerpts[0].skirmishes[0]
    assert not first.won and excerpts[0].warriors == first.warriors + 1


def test_two_battles_that_agree_from_the_first_skirmish_begin_alike(excerpts):
    alike, pairs = alike_starts(excerpts)
    assert pairs == 1 and [(a.session, b.session) for a, b in alike] == [tuple(ONE_BATTLE)]


def test_battles_whose_won_skirmishes_differ_by_more_than_4_instructions_do_not(excerpts):
    a, b = excerpts
    won = next(s for s in b.skirmishes if s.won)
    won.stretch += 5
    try:
        assert alike_starts([a, b]) == ([], 1)
        won.stretch -= 1                        # 4 apart: a won skirmish's game terms
        assert len(alike_starts([a, b])[0]) == 1
    finally:
        won.stretch -= 4


def test_battles_begun_alike_took_their_moves_in_one_time(excerpts, dev_battles):
    # docs/draws.md, section 9: of the development battles that begin alike and were both
    # begun by a MOVE, the two MOVEs' draws took times within 2 instructions in 29 of 33
    if dev_battles is None:
        # a clone without the lab's corpus: the kept pair was begun by a TOMB/RUIN and a MOVE
        assert same_draws(alike_starts(excerpts)[0]) == (0, 0)
        return
    battles = dev_battles
    alike, pairs = alike_starts(battles)
    assert (len(alike), pairs) == (74, 59918)
    # and the same brigands more or fewer than the warriors, whatever the warriors
    assert all(a.brigands - a.warriors == b.brigands - b.warriors for a, b in alike)
    assert sum(a.warriors != b.warriors for a, b in alike) == 53
    assert same_draws(alike) == (29, 33)
    moves = [b for b in battles if b.begun_by == "MOVE"]
    assert same_draws((a, b) for i, a in enumerate(moves) for b in moves[i + 1:]
                      if a.session != b.session) == (1240, 14934)


def test_towerlab_battles_names_the_identical_battles():
    out = io.StringIO()
    assert main(["battles", *(str(EXCERPTS / f"{n}.jsonl") for n in ONE_BATTLE)], out) == 0
    text = out.getvalue()
    assert "2 battles with a BRIGANDS count, 14 skirmishes, 2 recordings" in text
    assert "identical battles in different recordings: 1 groups" in text
    assert "l1_p3_s141_50.95 50.95; l3_p3_s111_355.38 355.38: 7 skirmishes" in text
    assert "begin alike (the same outcomes from the first skirmish, 3 or more won within 4 " \
        "instructions): 1 of 1 pairs, 1 of them with as many brigands more than warriors" \
        in text


def test_towerlab_battles_reads_a_request_folder_holding_one_session(tmp_path):
    for name in ONE_BATTLE:
        inner = tmp_path / name / "session_0001"
        inner.mkdir(parents=True)
        (inner / "events.jsonl").write_text((EXCERPTS / f"{name}.jsonl").read_text())
    out = io.StringIO()
    assert main(["battles", *(str(tmp_path / n) for n in ONE_BATTLE)], out) == 0
    assert "l1_p3_s141_50.95 50.95; l3_p3_s111_355.38 355.38: 7 skirmishes" in out.getvalue()


def test_towerlab_battles_on_a_folder_without_events_exits_2(tmp_path, capsys):
    assert main(["battles", str(tmp_path)], io.StringIO()) == 2
    assert "no events.jsonl" in capsys.readouterr().err


def test_towerlab_battles_reads_every_recording_of_a_folder_of_them(tmp_path):
    for name in ONE_BATTLE:
        (tmp_path / name).mkdir()
        (tmp_path / name / "events.jsonl").write_text((EXCERPTS / f"{name}.jsonl").read_text())
    out = io.StringIO()
    assert main(["battles", str(tmp_path)], out) == 0
    top = tmp_path.name
    assert (f"{top}/l1_p3_s141_50.95 50.95; {top}/l3_p3_s111_355.38 355.38: 7 skirmishes"
            in out.getvalue())


def test_towerlab_battles_reads_a_folder_of_events_files():
    out = io.StringIO()
    assert main(["battles", str(EXCERPTS)], out) == 0
    assert "2 battles with a BRIGANDS count, 14 skirmishes, 2 recordings" in out.getvalue()
