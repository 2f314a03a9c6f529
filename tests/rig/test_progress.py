"""rig.progress: one progress line on a terminal, nothing in a pipe or with quiet."""
from __future__ import annotations

import io
import sys

import pytest

from rig.progress import progress_line, shows_progress


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_the_progress_line_with_its_label():
    term = Terminal()
    with progress_line("tracing", total=10, stream=term) as line:
        assert line.shown
        for _ in range(10):
            line.advance()
    assert "tracing" in term.getvalue()


def test_a_pipe_gets_nothing():
    pipe = io.StringIO()
    with progress_line("tracing", total=10, stream=pipe) as line:
        line.update(5)
        line.advance()
        assert not line.shown
    assert pipe.getvalue() == ""


def test_quiet_draws_nothing_even_on_a_terminal():
    term = Terminal()
    with progress_line("tracing", total=10, stream=term, quiet=True) as line:
        line.update(10)
    assert term.getvalue() == "" and not shows_progress(term, quiet=True)


def test_a_total_can_come_later():
    term = Terminal()
    with progress_line("recording", stream=term) as line:
        line.update(1.0, total=4.0)
    assert "recording" in term.getvalue()


def test_a_closed_or_plain_stream_is_not_a_terminal():
    closed = io.StringIO()
    closed.close()
    assert not shows_progress(closed) and not shows_progress(object())


# The long commands draw the line on standard error when it is a terminal, and not with
# --quiet (the work is the same either way).

def terminal_stderr(monkeypatch) -> Terminal:
    """Make standard error a terminal for the rest of the test (set in the test itself:
    pytest puts its own capture back between a fixture's set-up and the test)."""
    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    return term


@pytest.fixture(scope="module")
def demo_rom(tmp_path_factory):
    from emulator.boards import demo_program

    path = tmp_path_factory.mktemp("rom") / "demo.bin"
    path.write_bytes(bytes(demo_program().rom))
    return str(path)


@pytest.mark.parametrize("quiet", [False, True])
def test_trace_to_a_file_draws_the_line_unless_quiet(monkeypatch, demo_rom, tmp_path, quiet):
    from towerlab.cli import main

    stderr_terminal = terminal_stderr(monkeypatch)

    argv = ["trace", "--rom", demo_rom, "--steps", "200000", "-o", str(tmp_path / "t.txt")]
    assert main(argv + ["--quiet"] * quiet, io.StringIO()) == 0
    assert ("tracing 200,000 instructions" in stderr_terminal.getvalue()) is not quiet


@pytest.mark.parametrize("quiet", [False, True])
def test_a_batch_of_runs_draws_the_line_unless_quiet(monkeypatch, tmp_path, quiet):
    from towerlab.cli import main

    stderr_terminal = terminal_stderr(monkeypatch)

    scripts = []
    for name in ("a", "b"):
        (tmp_path / f"{name}.txt").write_text("1.0 YES/BUY 0.2\n")
        scripts.append(str(tmp_path / f"{name}.txt"))
    argv = ["run", "--firmware", "demo", "--script", *scripts, "--seconds", "2", "--out",
            str(tmp_path / "out")]
    assert main(argv + ["--quiet"] * quiet, io.StringIO()) == 0
    assert ("run: 2 jobs" in stderr_terminal.getvalue()) is not quiet


@pytest.mark.parametrize("quiet", [False, True])
def test_rig_record_draws_the_line_unless_quiet(monkeypatch, tmp_path, quiet):
    from towerlab.cli import main

    stderr_terminal = terminal_stderr(monkeypatch)

    (tmp_path / "s.txt").write_text("1.0 YES/BUY 0.2\n# run length: 3 s\n")
    argv = ["rig", "record", "--target", "emu", "--script", str(tmp_path / "s.txt"),
            "--out", str(tmp_path / "rec")]
    assert main(argv + ["--quiet"] * quiet, io.StringIO()) == 0
    assert ("recording on emu" in stderr_terminal.getvalue()) is not quiet


@pytest.mark.parametrize("quiet", [False, True])
def test_explore_draws_the_line_unless_quiet(monkeypatch, tmp_path, quiet):
    from towerlab.cli import main

    stderr_terminal = terminal_stderr(monkeypatch)

    argv = ["explore", "--target", "cleanroom", "--sessions", "1", "--level", "1",
            "--max-seconds", "30", "--out", str(tmp_path / "x")]
    assert main(argv + ["--quiet"] * quiet, io.StringIO()) == 0
    assert ("explore: 1 job" in stderr_terminal.getvalue()) is not quiet


def test_a_command_in_a_pipe_draws_nothing(monkeypatch, demo_rom, tmp_path):
    from towerlab.cli import main

    pipe = io.StringIO()
    monkeypatch.setattr(sys, "stderr", pipe)
    argv = ["trace", "--rom", demo_rom, "--steps", "200000", "-o", str(tmp_path / "t.txt")]
    assert main(argv, io.StringIO()) == 0
    assert "tracing" not in pipe.getvalue()
