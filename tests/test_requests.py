"""The requests for recordings of the genuine tower (experiments/requests/, DEVELOPERS.md,
"Asking the tower") are files the lab can run as they are (rig/requests.py reads and checks
them as `towerlab requests record` does)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from rig.requests import read_request, request_problems
from towerlab.cli import build_parser

REQUESTS = sorted((Path(__file__).resolve().parents[1] / "experiments" / "requests").glob("*"))


def test_there_are_requests():
    assert REQUESTS


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.name)
def test_request_reads_as_a_script_or_an_explore_line_after_its_question(path):
    req = read_request(path)
    assert req.question, f"{path.name}: an empty '# Question:' line"


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.name)
def test_script_request_has_a_run_length_and_its_games_on_frames_and_one_clock_phase(path):
    # a power-on on a multiple of 3 frames (0.05 s, 21250 cycles at 425 kHz) starts the chip
    # in the same phase of the clock against the frames as the first game's at 0 s
    assert request_problems(read_request(path)) == []


@pytest.mark.parametrize("path", [p for p in REQUESTS if read_request(p).explore is not None],
                         ids=lambda p: p.name)
def test_explore_request_takes_explore_options(path):
    words = list(read_request(path).explore)
    args = build_parser().parse_args(["explore", *words, "--target", "emu", "--out", "out"])
    assert args.command == "explore"


def test_every_group_of_requests_is_in_the_labs_order_of_priority():
    # experiments/README.md orders the requests for a lab that can record only some
    readme = (REQUESTS[0].parents[1] / "README.md").read_text(encoding="utf-8")
    groups = {re.sub(r"_k\d+$", "", p.stem) for p in REQUESTS}
    assert sorted(g for g in groups if f"`{g}" not in readme) == []
