"""``towerlab debug``: the prompt on a pseudo-terminal, ``-x`` command files, and the symbol
options of ``asm``/``disasm``, on the demo firmware."""
from __future__ import annotations

import io
import os
import pty
import select
import sys
from pathlib import Path

import pytest

from emulator.debug import Debugger
from emulator.debug.views import format_board
from emulator.debugcmd import CommandShell
from towerlab.cli import main

ROOT = Path(__file__).resolve().parent.parent.parent
DEMO_ASM = ROOT / "emulator" / "firmware" / "demo.asm"


class Prompt:
    """``towerlab debug`` on a pty: ``send`` a line, ``expect`` text in what it prints."""

    def __init__(self, *args: str) -> None:
        pid, fd = pty.fork()
        if pid == 0:                                  # the child: the debugger
            os.chdir(ROOT)
            os.environ["TERM"] = "xterm"
            os.environ.pop("INPUTRC", None)
            os.execv(sys.executable, [sys.executable, "-m", "towerlab", "debug", *args])
        self.pid, self.fd = pid, fd
        self.seen = ""
        self.pos = 0

    def send(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def expect(self, text: str, limit_s: float = 120.0) -> str:
        """Return what was printed up to and including ``text`` since the last expect (the
        limit is a safety net for a hung child, not a timing check)."""
        while text not in self.seen[self.pos:]:
            ready, _, _ = select.select([self.fd], [], [], limit_s)
            if not ready:
                raise AssertionError(f"no {text!r} in the output:\n{self.seen[self.pos:]}")
            try:
                chunk = os.read(self.fd, 65536).decode(errors="replace")
            except OSError:
                chunk = ""
            if not chunk:
                raise AssertionError(f"the debugger ended before {text!r}:\n"
                                     f"{self.seen[self.pos:]}")
            self.seen += chunk
        end = self.seen.index(text, self.pos) + len(text)
        out, self.pos = self.seen[self.pos:end], end
        return out

    def command(self, line: str, until: str = "(towerlab) ") -> str:
        self.send(line + "\n")
        return self.expect(until)

    def close(self) -> int:
        _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)


@pytest.fixture
def prompt():
    p = Prompt("--firmware", "demo")
    p.expect("(towerlab) ")
    yield p
    try:
        os.kill(p.pid, 9)
        p.close()
    except (ProcessLookupError, ChildProcessError, OSError):
        pass


def test_prompt_session_breaks_in_the_key_scan_watches_the_level_and_steps_back(prompt):
    assert "breakpoint 1 at 0:0:22 shnew" in prompt.command("break shnew")
    prompt.command("run 2")
    assert "YES/BUY down for 0.2 s" in prompt.command("press YES/BUY 0.2")
    out = prompt.command("continue")
    assert "breakpoint 1: 0:0:22 shnew" in out
    assert "X=7" in out and "call stack" in out and "display [" in out   # the full view
    assert "=> 0:0:22  4B  TCY 13" in out
    prompt.command("delete 1")
    assert "watch ram 0:8 write" in prompt.command("watch ram 0:8")
    out = prompt.command("continue")
    assert "watchpoint 2: write RAM 0:8 = 1 by 0:C:01 level+1" in out
    out = prompt.command("reverse-step")
    assert "reverse-step" in out and "=> 0:C:01  68  TCMIY 1" in out
    out = prompt.command("step")
    assert "watchpoint 2: write RAM 0:8 = 1" in out


def test_prompt_keeps_a_readline_history(prompt):
    prompt.command("step 10")
    out = prompt.command("regs")
    assert "instruction 10" in out
    prompt.send("\x1b[A\x1b[A\n")              # up, up: "step 10" again
    prompt.expect("(towerlab) ")
    assert "instruction 20" in prompt.command("regs")


def test_ctrl_c_stops_a_continue_without_breakpoints(prompt):
    prompt.send("continue\n")
    prompt.expect("running until Ctrl-C")
    prompt.send("\x03")
    out = prompt.expect("(towerlab) ")
    assert "interrupted" in out
    assert "cycle" in prompt.command("regs")


def test_prompt_prints_one_line_errors_and_goes_on(prompt):
    out = prompt.command("break nowhere")
    assert "error: address 'nowhere': not c:p:pc hex and not a label" in out
    assert "unknown command 'frobnicate'" in prompt.command("frobnicate")
    assert "breakpoint 1 at" in prompt.command("break show")


def test_help_lists_every_command_and_quit_leaves(prompt):
    out = prompt.command("help")
    for name in ("reverse-step", "reverse-continue", "watch", "trace on FILE", "save FILE"):
        assert name in out
    prompt.send("quit\n")
    assert prompt.close() == 0


# ---- batch --------------------------------------------------------------------------------------


def test_command_file_runs_in_batch_with_short_stops(tmp_path):
    cmds = tmp_path / "study.cmd"
    cmds.write_text("break shnew\nrun 1\npress YES/BUY 0.2\ncontinue\nreverse-step 3\n"
                    "info\n")
    out = io.StringIO()
    assert main(["debug", "--firmware", "demo", "-x", str(cmds)], out) == 0
    text = out.getvalue()
    assert "(towerlab) continue\nbreakpoint 1: 0:0:22 shnew" in text
    assert "B=> 0:0:22  4B  TCY 13" in text
    assert "1: break 0:0:22 shnew  hits 1" in text
    assert "X=7" not in text                               # short view in batch


def test_command_file_error_names_the_file_and_line(tmp_path, capsys):
    cmds = tmp_path / "bad.cmd"
    cmds.write_text("step\nwatch ram 9:0\n")
    assert main(["debug", "--firmware", "demo", "-x", str(cmds)], io.StringIO()) == 2
    err = capsys.readouterr().err
    assert f"{cmds}: line 2: RAM address '9:0' is outside the 128-nibble RAM" in err


def test_trace_and_save_commands_write_their_files(tmp_path):
    shell_out = io.StringIO()
    shell = CommandShell(Debugger(firmware="demo"), shell_out)
    shell.run_lines([f"trace on {tmp_path / 't.txt'}", "step 50", "trace off",
                     f"save {tmp_path / 's.gz'}", "step 100", f"load {tmp_path / 's.gz'}",
                     "regs"], echo=False)
    assert len((tmp_path / "t.txt").read_text().splitlines()) == 50
    assert "instruction 50" in shell_out.getvalue().split("loaded")[-1]


def test_a_key_pressed_after_going_back_says_which_later_keys_it_forgets():
    out = io.StringIO()
    shell = CommandShell(Debugger(firmware="demo"), out)
    shell.run_lines(["run 1", "press YES/BUY 0.2", "run 2", "press NO/END 0.2", "run 1",
                     "goto 0.5", "press MOVE 0.1"], echo=False)
    last = out.getvalue().splitlines()[-1]
    assert last.startswith("forgot the 2 later keys given before going back (YES/BUY at 1.0")
    assert "NO/END at 3.0" in last
    shell.run_lines(["run 1", "press MOVE 0.1"], echo=False)
    assert "forgot" not in out.getvalue().splitlines()[-1]


def test_symbols_option_names_addresses(tmp_path):
    rom, sym = tmp_path / "demo.bin", tmp_path / "demo.sym"
    assert main(["asm", str(DEMO_ASM), "-o", str(rom), "--symbols", str(sym)], io.StringIO()) == 0
    cmds = tmp_path / "c.cmd"
    cmds.write_text("until readk\nregs\n")
    out = io.StringIO()
    assert main(["debug", "--rom", str(rom), "--symbols", str(sym), "-x", str(cmds),
                 "--script", str(ROOT / "emulator" / "firmware" / "demo_session.txt")],
                out) == 0
    assert "until: 0:8:21 readk" in out.getvalue()


# ---- asm / disasm --symbols ---------------------------------------------------------------------


def test_asm_writes_a_symbol_file_of_the_labels(tmp_path):
    rom, sym = tmp_path / "demo.bin", tmp_path / "demo.sym"
    assert main(["asm", str(DEMO_ASM), "-o", str(rom), "--symbols", str(sym)], io.StringIO()) == 0
    lines = sym.read_text().splitlines()
    assert lines[0] == "; symbols of demo.asm"
    assert "0:F:00 reset" in lines and "0:0:22 shnew" in lines and "0:8:21 readk" in lines


def test_disasm_with_symbols_prints_labels_and_assembles_back(tmp_path):
    rom, sym, src = tmp_path / "demo.bin", tmp_path / "demo.sym", tmp_path / "back.asm"
    main(["asm", str(DEMO_ASM), "-o", str(rom), "--symbols", str(sym)], io.StringIO())
    assert main(["disasm", str(rom), "--symbols", str(sym), "-o", str(src)], io.StringIO()) == 0
    text = src.read_text()
    assert "\nreadk:\n" in text and "CALL readk" in text and "\nshow:\n" in text
    again = tmp_path / "again.bin"
    assert main(["asm", str(src), "-o", str(again)], io.StringIO()) == 0
    assert again.read_bytes() == rom.read_bytes()


def test_disasm_listing_with_symbols_names_targets(tmp_path):
    rom, sym = tmp_path / "demo.bin", tmp_path / "demo.sym"
    main(["asm", str(DEMO_ASM), "-o", str(rom), "--symbols", str(sym)], io.StringIO())
    out = io.StringIO()
    assert main(["disasm", str(rom), "--listing", "--symbols", str(sym)], out) == 0
    text = out.getvalue()
    assert "readk:\n0:8:21  221  40  TCY 0" in text
    assert "; show" in text


def test_disasm_with_a_bad_symbol_file_names_it(tmp_path, capsys):
    rom, sym = tmp_path / "demo.bin", tmp_path / "bad.sym"
    main(["asm", str(DEMO_ASM), "-o", str(rom)], io.StringIO())
    sym.write_text("0:G:00 x\n")
    assert main(["disasm", str(rom), "--symbols", str(sym)], io.StringIO()) == 2
    assert f"{sym}:1: address '0:G:00'" in capsys.readouterr().err


def test_continue_with_nothing_to_stop_at_is_refused_in_batch(tmp_path, capsys):
    cmds = tmp_path / "c.cmd"
    cmds.write_text("continue\n")
    assert main(["debug", "--firmware", "demo", "-x", str(cmds)], io.StringIO()) == 2
    assert "line 1: continue with no breakpoint or watchpoint would never end" in \
        capsys.readouterr().err


def test_run_inf_in_a_command_file_is_one_line_naming_the_line(tmp_path, capsys):
    cmds = tmp_path / "c.cmd"
    cmds.write_text("step 2\nrun inf\n")
    assert main(["debug", "--firmware", "demo", "-x", str(cmds)], io.StringIO()) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"towerlab: {cmds}: line 2: run inf: expected a finite number of seconds "
                   f">= 0"]


def test_display_shows_the_lit_window_and_the_reel_pictures():
    dbg = Debugger(firmware="demo").press_at(1.0, "YES/BUY").watch_pins("r", [7])  # upper lamp
    dbg.run(seconds=10)
    text = format_board(dbg)
    assert "lamps: upper" in text
    assert "reel: card 0 (CURSED/LOST/PLAGUE)" in text
