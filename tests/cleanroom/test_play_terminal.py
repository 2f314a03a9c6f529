"""towerlab cleanroom-play in a real terminal (tmux): the prompt's line at the end, and input
piped from a file, read as a session."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.terminal import wait_for_words, wait_until_shown

ROOT = Path(__file__).resolve().parents[2]


def start(tmux, shell: str) -> None:
    """Run ``shell`` in a new 80x24 tmux terminal, then ``echo rc=STATUS``."""
    subprocess.run(tmux + ["new-session", "-d", "-s", "play", "-x", "80", "-y", "24", "-c",
                           str(ROOT), f"{shell}; echo rc=$?; sleep 30"], check=True, timeout=10)


def wait_for_line(tmux, line: str, timeout: float = 20.0) -> list[str]:
    """Wait until a whole screen line reads ``line``; return the screen's lines."""
    return wait_until_shown(tmux, lambda shown: line in shown.splitlines(), f"line {line!r}",
                            timeout).splitlines()


PLAY = f"{sys.executable} -m towerlab cleanroom-play --seed 1"


def test_ctrl_d_at_the_prompt_ends_the_prompts_line_before_the_shells(tmux):
    start(tmux, PLAY)
    wait_for_line(tmux, ">")
    subprocess.run(tmux + ["send-keys", "-t", "play", "C-d"], check=True, timeout=10)
    wait_for_line(tmux, "rc=0")


def test_ctrl_c_at_the_prompt_ends_the_prompts_line_before_the_shells(tmux):
    start(tmux, PLAY)
    wait_for_line(tmux, ">")
    subprocess.run(tmux + ["send-keys", "-t", "play", "C-c"], check=True, timeout=10)
    wait_for_line(tmux, "rc=130")


def test_keys_piped_from_a_file_are_shown_after_their_prompts(tmux, tmp_path):
    keys = tmp_path / "keys.txt"
    keys.write_text("yes\nno\n")
    start(tmux, f"{PLAY} < {keys}")
    lines = wait_for_line(tmux, "rc=0")
    assert "> yes" in lines and "> no" in lines
    assert lines.index("> no") < lines.index("  display 'L2'") < lines.index("rc=0")


def test_help_at_the_prompt_lists_the_keys_and_commands_and_a_bad_word_names_them(tmux):
    start(tmux, PLAY)
    wait_for_line(tmux, ">")
    subprocess.run(tmux + ["send-keys", "-t", "play", "help", "Enter"], check=True, timeout=10)
    wait_for_words(tmux, "> help Keys: yes no repeat haggle bazaar clear tomb move sanctuary "
                         "dark frontier inventory; wait S; off; on; quit; help")
    subprocess.run(tmux + ["send-keys", "-t", "play", "jump", "Enter"], check=True, timeout=10)
    wait_for_words(tmux, "unknown key 'jump' (expected one of YES/BUY,")
    wait_for_words(tmux, "INVENTORY; or wait S, off, on, quit, help)")
