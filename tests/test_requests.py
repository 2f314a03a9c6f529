"""The requests for recordings of the genuine tower (experiments/requests/, DEVELOPERS.md,
"Asking the tower") are files the lab can run as they are."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from captures.script import Power, Press, read_script
from towerlab.cli import build_parser

REQUESTS = sorted((Path(__file__).resolve().parents[1] / "experiments" / "requests").glob("*"))
FRAME_S = 1 / 60


def _body(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def _is_explore(path: Path) -> bool:
    body = _body(path)
    return len(body) == 1 and body[0].split()[0] == "explore"


def test_there_are_requests():
    assert REQUESTS


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.name)
def test_request_is_a_txt_file_named_with_letters_digits_and_underscores(path):
    assert path.suffix == ".txt" and path.stem.replace("_", "").isalnum(), path.name


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.name)
def test_request_starts_with_the_question_it_answers(path):
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# Question:"), f"{path.name}: first line {first!r}"


@pytest.mark.parametrize("path", [p for p in REQUESTS if _is_explore(p)], ids=lambda p: p.name)
def test_explore_request_takes_explore_options_but_the_target(path):
    words = shlex.split(_body(path)[0])
    assert "--target" not in words
    args = build_parser().parse_args(words + ["--target", "emu", "--out", "out"])
    assert args.command == "explore"


@pytest.mark.parametrize("path", [p for p in REQUESTS if not _is_explore(p)],
                         ids=lambda p: p.name)
def test_script_request_parses_with_a_run_length_and_actions_on_frame_boundaries(path):
    script = read_script(str(path))
    assert script.length is not None, f"{path.name}: no '# run length: S s' line"
    assert script.actions
    for a in script.actions:
        frames = a.t / FRAME_S
        assert abs(frames - round(frames)) < 1e-3, f"{path.name}: {a} is not on a frame"
        assert a.t <= script.length
    presses = [a for a in script.actions if isinstance(a, Press)]
    assert presses


@pytest.mark.parametrize("path", [p for p in REQUESTS if not _is_explore(p)],
                         ids=lambda p: p.name)
def test_each_game_of_a_script_request_starts_on_the_same_clock_phase(path):
    # a power-on on a multiple of 3 frames (0.05 s, 21250 cycles at 425 kHz) starts the chip
    # in the same phase of the clock against the frames as the first game's at 0 s
    script = read_script(str(path))
    ons = [a.t for a in script.actions if isinstance(a, Power) and a.on]
    for t in ons:
        assert abs(t * 20 - round(t * 20)) < 1e-6, f"{path.name}: power on at {t}"
    offs = [a.t for a in script.actions if isinstance(a, Power) and not a.on]
    assert len(offs) in (len(ons), len(ons) + 1)


def test_every_group_of_requests_is_in_the_labs_order_of_priority():
    # experiments/README.md orders the requests for a lab that can record only some
    readme = (REQUESTS[0].parents[1] / "README.md").read_text(encoding="utf-8")
    groups = {re.sub(r"_k\d+$", "", p.stem) for p in REQUESTS}
    assert sorted(g for g in groups if f"`{g}" not in readme) == []
