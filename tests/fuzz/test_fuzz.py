"""Every parser under fuzzing, a fast subset: mutated valid inputs open or are refused in one
line (tests/fuzz/targets.py). ``make fuzz`` runs the same targets at 100,000 cases each.

More cases here: TOWERLAB_FUZZ_CASES=5000 pytest tests/fuzz
"""
from __future__ import annotations

import os

import pytest

from tests.fuzz.harness import Target, mutate_bytes, mutate_text, mutate_zip, run_target
from tests.fuzz.targets import TARGETS
from tests.skippolicy import require_tool

CASES = int(os.environ.get("TOWERLAB_FUZZ_CASES", 300))
PARSERS = ("sr", "vcd", "saleae-csv", "saleae-bin", "tlc", "edges", "probe-frames", "pla",
           "romset-zip", "romset-folder", "script", "events", "channel-map", "asm",
           "rtdt-notification", "rtdt-command", "rtdt-script", "rtdt-params")
# Parsers whose seeds include a file made by the real tool (tool, Debian package): without
# the tool those tests skip, so strict mode notices instead of fuzzing our own files only.
SEED_TOOLS = {"sr": ("sigrok-cli", "sigrok-cli")}


def test_every_parser_the_issue_names_has_a_target():
    assert tuple(TARGETS) == PARSERS


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory):
    """Return ``result(name)``: the Result of CASES cases of that parser, run once."""
    done = {}

    def result(name: str):
        if name in SEED_TOOLS:
            require_tool(*SEED_TOOLS[name])
        if name not in done:
            done[name] = run_target(TARGETS[name], CASES, tmp_path_factory.mktemp(name))
        return done[name]
    return result


@pytest.mark.parametrize("name", PARSERS)
def test_mutated_inputs_open_or_are_refused_in_one_line(name, fuzzed, capsys):
    result = fuzzed(name)
    with capsys.disabled():
        print(f"\n{result.line()}")
    assert result.failures == [], "\n".join(f"case {f.case}: {f.error}"
                                            for f in result.failures[:5])
    assert result.cases == CASES


@pytest.mark.parametrize("name", PARSERS)
def test_mutations_reach_both_outcomes(name, fuzzed):
    # A fuzzer whose inputs all open (or all fail) is not exploring the parser.
    result = fuzzed(name)
    if name == "probe-frames":       # the stream parser never refuses: it drops bytes
        assert result.opened == result.cases
    else:
        assert result.opened > 0 and result.refused > 0, result.line()


def test_the_sr_seeds_include_a_session_made_by_sigrok_cli(tmp_path):
    from captures.sigrok import write_sr
    from tests.fuzz.targets import _written

    require_tool(*SEED_TOOLS["sr"])
    seeds = TARGETS["sr"].seeds(tmp_path)
    ours = _written(write_sr)
    assert len(seeds) == len(ours) + 1 and seeds[-1] not in ours
    assert seeds[-1][:2] == b"PK"            # a zip, as sigrok-cli writes .sr sessions


def test_case_i_is_the_same_input_every_run(tmp_path):
    seen = []

    def run(data, case):
        seen.append(data)

    target = Target("probe", lambda work: [b"abc\ndef 1 2\n"], run, (ValueError,), mutate_text)
    run_target(target, 50, tmp_path / "a")
    first, seen[:] = list(seen), []
    run_target(target, 50, tmp_path / "b")
    assert seen == first and len(set(first)) > 10


def _crashes(data: bytes, case) -> None:
    if data != b"seed":
        raise KeyError("boom")


def test_an_exception_other_than_the_refusal_is_a_failure_with_its_input(tmp_path):
    target = Target("crashy", lambda work: [b"seed"], _crashes, (ValueError,))
    result = run_target(target, 20, tmp_path)
    assert result.failures and result.failures[0].error.startswith("KeyError: 'boom' (at ")
    assert result.failures[0].data != b"seed"


def _refuses_in_two_lines(data: bytes, case) -> None:
    if data != b"seed":
        raise ValueError("first line\nsecond line")


def test_a_refusal_of_several_lines_is_a_failure(tmp_path):
    target = Target("chatty", lambda work: [b"seed"], _refuses_in_two_lines, (ValueError,))
    result = run_target(target, 5, tmp_path)
    assert result.failures[0].error.startswith("ValueError message has several lines")


def _hangs(data: bytes, case) -> None:
    if data != b"seed":
        while True:
            pass


def test_a_case_past_its_time_limit_is_a_failure(tmp_path):
    target = Target("hang", lambda work: [b"seed"], _hangs, (ValueError,))
    result = run_target(target, 1, tmp_path, case_timeout=0.2)
    assert [f.error for f in result.failures] == ["ran longer than 0.2 s"]


def test_a_seed_that_does_not_open_is_a_failure(tmp_path):
    def refuse(data, case):
        raise ValueError("no")
    result = run_target(Target("bad seed", lambda w: [b"x"], refuse, (ValueError,)), 0, tmp_path)
    assert result.failures[0].error == "seed 0 does not open: refused"


def test_zip_mutations_rewrite_members_behind_the_crc():
    import io
    import random
    import zipfile
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("a", b"hello world")
    seed = buf.getvalue()
    rewritten = 0
    for i in range(100):
        out = mutate_zip(random.Random(i), seed, [seed])
        try:
            with zipfile.ZipFile(io.BytesIO(out)) as zf:
                rewritten += zf.testzip() is None and out != seed
        except zipfile.BadZipFile:
            pass
    assert rewritten > 20


def test_byte_mutations_change_the_input():
    import random
    assert all(mutate_bytes(random.Random(i), b"0123456789" * 4, [b"x"]) != b"0123456789" * 4
               for i in range(5))
