"""The terminal front-end: pure rendering pieces, sound capture, and a real key press in tmux."""
from __future__ import annotations

import io
import os
import stat
import subprocess
import sys
import time
import wave
from pathlib import Path

import numpy as np
import pytest

from captures.script import BUTTONS
from rig.play import (KEYMAP, Sound, TowerView, digit_rows, render_lines, timeline_lines,
                      tones_to_pcm)
from rig.towers.emulated import EmulatorTower
from tests.terminal import wait_for_words, wait_until_shown

ROOT = Path(__file__).resolve().parent.parent.parent


def test_keymap_puts_the_twelve_buttons_on_mames_keys_in_panel_order():
    assert list(KEYMAP.values()) == list(BUTTONS)
    assert "".join(KEYMAP) == "123qweasdzxc"


def test_an_eight_lights_every_segment_and_a_blank_none():
    assert digit_rows("8") == [" ━━ ", "┃  ┃", " ━━ ", "┃  ┃", " ━━ "]
    assert all(row.strip() == "" for row in digit_rows(" "))


def test_a_dash_lights_only_the_middle_segment():
    assert [row.strip() for row in digit_rows("-")] == ["", "", "━━", "", ""]


def test_view_follows_display_lamp_motor_and_reel_events():
    view = TowerView()
    view.update([{"t": 0, "type": "display", "text": "L1"},
                 {"t": 1, "type": "lamp", "lamp": "upper", "on": 1},
                 {"t": 2, "type": "motor", "on": 1},
                 {"t": 3, "type": "reel", "card_pos": 3}])
    assert (view.text, view.lamps["upper"], view.motor, view.card_pos) == ("L1", 1, 1, 3)


def test_a_lit_window_shows_its_image_name_and_a_dark_one_does_not():
    view = TowerView()
    view.update([{"t": 0, "type": "reel", "card_pos": 3},
                 {"t": 1, "type": "lamp", "lamp": "upper", "on": 1}])
    screen = "\n".join(render_lines(view, 1.0, "test", "silent"))
    assert "DRAGON" in screen
    assert "SWORD" not in screen and "PEGASUS" not in screen


def test_screen_shows_the_keys_to_press():
    screen = "\n".join(render_lines(TowerView(), 0.0, "test", "silent"))
    assert "[1] YES/BUY" in screen and "[C] INVENTORY" in screen


def test_timeline_lines_read_like_the_capture_readmes():
    lines = timeline_lines([{"t": 3.0167, "type": "button", "button": "YES/BUY",
                             "action": "press"},
                            {"t": 6.536, "type": "lamp", "lamp": "upper", "on": 1}])
    assert lines == ["    3.017  press YES/BUY", "    6.536  lamp upper on"]


def test_tone_events_synthesise_a_square_wave_of_their_frequency():
    pcm = tones_to_pcm([{"t": 0.0, "type": "tone", "freq_hz": 441.0, "dur_s": 0.1}], 0.0, 0.2,
                       rate=22050)
    crossings = np.count_nonzero(np.diff(np.sign(pcm[:2205])) > 0)
    assert abs(crossings - 44) <= 1
    assert not pcm[2300:].any()


def test_sound_records_the_emulators_speaker_to_a_wav():
    tower = EmulatorTower()
    buf = io.BytesIO()
    sound = Sound(tower, live=False, wav=buf)
    tower.advance(3.0)
    tower.press("YES/BUY")
    tower.advance(0.2)
    sound.pump()
    sound.close()
    buf.seek(0)
    with wave.open(buf) as w:
        frames = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
        rate = w.getframerate()
    assert abs(len(frames) - 3.2 * rate) < 0.01 * rate
    assert np.abs(frames[int(3.0 * rate):]).max() > 1000      # the click after the key
    assert np.abs(frames[:int(2.9 * rate)]).max() < 100       # silence before


def wait_for(tmux, text: str, timeout: float = 20.0) -> str:
    return wait_until_shown(tmux, lambda shown: text in shown, repr(text), timeout)


def test_a_real_key_press_in_a_terminal_starts_the_reel_on_screen(tmux):
    cmd = (f"{sys.executable} -m towerlab play --firmware demo --silent --seconds 60; "
           "sleep 30")
    subprocess.run(tmux + ["new-session", "-d", "-s", "play", "-x", "100", "-y", "40",
                           "-c", str(ROOT), cmd], check=True, timeout=10)
    before = wait_for(tmux, "display [--]")
    assert "stopped" in before and "last key: -" in before
    subprocess.run(tmux + ["send-keys", "-t", "play", "1"], check=True, timeout=10)
    after = wait_for(tmux, "turning")
    assert "last key: YES/BUY" in after


def test_view_leaves_out_events_at_the_live_edge_that_may_still_change():
    view = TowerView()
    view.update([{"t": 1.0, "type": "display", "text": "--"},
                 {"t": 1.99, "type": "display", "text": " -"}], now=2.0)
    assert view.text == "--"


def test_play_records_the_wav_and_says_where(tmux, tmp_path):
    wav_path = tmp_path / "p.wav"
    cmd = (f"{sys.executable} -m towerlab play --firmware demo --silent --seconds 1 "
           f"--wav {wav_path}; sleep 30")
    subprocess.run(tmux + ["new-session", "-d", "-s", "play", "-x", "200", "-y", "40",
                           "-c", str(ROOT), cmd], check=True, timeout=10)
    wait_for(tmux, f"wrote {wav_path} (1.0 s of sound)")
    with wave.open(str(wav_path)) as w:
        assert w.getnframes() == pytest.approx(w.getframerate(), rel=0.05)


def test_the_wav_output_writes_through_a_fifo_and_leaves_it_a_fifo(tmp_path):
    from rig.play import _WavFile

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        out = _WavFile(str(fifo))
        out.file.write(b"RIFF")
        out.close(keep=True)
        assert os.read(reader, 16) == b"RIFF"
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_session_ending_in_an_error_leaves_no_wav(tmp_path):
    from rig.play import _WavFile

    out = _WavFile(str(tmp_path / "p.wav"))
    out.file.write(b"RIFF")
    out.close(keep=False)
    assert list(tmp_path.iterdir()) == []


# ---- live sound through aplay (a fake aplay on PATH; /dev/snd redirected) -------------------

FAKE_APLAY = """#!/bin/sh
# Fake aplay for the tests: record the arguments, then stdin, as they come.
printf '%s\\n' "$@" > "{out}/args"
exec cat > "{out}/pcm"
"""


@pytest.fixture
def fake_aplay(tmp_path, monkeypatch):
    """Put a fake ``aplay`` first on PATH and a stand-in sound device; return its output folder."""
    import rig.play

    bin_dir, out = tmp_path / "bin", tmp_path / "out"
    bin_dir.mkdir()
    out.mkdir()
    script = bin_dir / "aplay"
    script.write_text(FAKE_APLAY.format(out=out))
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    device = tmp_path / "snd"
    device.mkdir()
    monkeypatch.setattr(rig.play, "SOUND_DEVICE", str(device))
    return out


def wait_for_bytes(path: Path, size: int, timeout: float = 20.0) -> int:
    """Return the size of ``path`` once it holds at least ``size`` bytes (or at ``timeout``)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if path.exists() and path.stat().st_size >= size:
            break
        time.sleep(0.05)
    return path.stat().st_size if path.exists() else 0


def live_tower_test(fake_aplay) -> tuple[np.ndarray, int]:
    """Play the demo's tower test (key at 3.0 s, beeps from 6.46 s) for 10.2 s of tower time
    live, pumping at the front-end's frame rate; return the PCM aplay got and its rate."""
    from rig.play import FRAME_S, RATE

    tower = EmulatorTower(firmware="demo")
    sound = Sound(tower, live=True)
    assert sound.name == "aplay"
    actions = {round(3.0 / FRAME_S): tower.press, round(3.2 / FRAME_S): tower.release}
    for frame in range(round(10.2 / FRAME_S)):          # 306 frames of 1/30 s
        if frame in actions:
            actions[frame]("YES/BUY")
        tower.advance(FRAME_S)
        sound.pump()
    assert tower.now == pytest.approx(10.2)
    sound.close()
    tower.close()
    return np.frombuffer((fake_aplay / "pcm").read_bytes(), dtype="<i2"), RATE


def test_live_sound_is_off_without_a_sound_device(fake_aplay, monkeypatch, tmp_path):
    import rig.play

    monkeypatch.setattr(rig.play, "SOUND_DEVICE", str(tmp_path / "no-snd"))
    sound = Sound(EmulatorTower(firmware="demo"), live=True)
    assert sound.name == "silent"
    sound.close()
    assert not (fake_aplay / "args").exists()


def test_live_sound_starts_aplay_on_raw_s16le_mono_at_the_render_rate(fake_aplay):
    live_tower_test(fake_aplay)
    args = (fake_aplay / "args").read_text().split("\n")[:-1]
    assert args == ["-q", "-t", "raw", "-f", "S16_LE", "-r", "22050", "-c", "1"]


def test_live_sound_streams_the_whole_session_silent_until_the_key(fake_aplay):
    pcm, rate = live_tower_test(fake_aplay)
    assert abs(len(pcm) - 10.2 * rate) < 0.01 * rate
    assert np.abs(pcm[:int(2.9 * rate)]).max() < 100
    assert np.abs(pcm[int(3.0 * rate):int(3.1 * rate)]).max() > 1000     # the click


def test_live_sound_carries_the_beeps_at_the_genuine_pitch(fake_aplay):
    # demo golden: beeps at 6.4608, 8.0953, 9.7298 s, 737.8 Hz for 0.0447 s (33 pulses)
    pcm, rate = live_tower_test(fake_aplay)
    for start in (6.4608, 8.0953, 9.7298):
        beep = pcm[int((start + 0.005) * rate):int((start + 0.040) * rate)].astype(float)
        assert np.abs(beep).max() > 1000
        spectrum = np.abs(np.fft.rfft(beep * np.hanning(len(beep)), n=1 << 16))
        peak = np.argmax(spectrum) * rate / (1 << 16)
        assert abs(peak - 737.8) < 15
    assert np.abs(pcm[int(7.0 * rate):int(8.0 * rate)]).max() < 100       # quiet between


def test_live_sound_goes_out_through_silence_without_waiting_for_the_next_tone(fake_aplay):
    from rig.play import RATE

    tower = EmulatorTower(firmware="demo")
    sound = Sound(tower, live=True)
    tower.advance(2.5)                 # power-on: no speaker edge at all yet
    sound.pump()
    got = wait_for_bytes(fake_aplay / "pcm", int(2.49 * RATE) * 2)
    sound.close()
    tower.close()
    assert got >= int(2.49 * RATE) * 2


def test_live_sound_goes_silent_when_aplay_dies(fake_aplay, tmp_path):
    (tmp_path / "bin" / "aplay").write_text("#!/bin/sh\nexit 1\n")
    tower = EmulatorTower(firmware="demo")
    sound = Sound(tower, live=True)
    sound._proc.wait(timeout=10)
    tower.advance(1.0)
    sound.pump()
    assert sound.name == "silent" and sound._proc is None
    sound.close()
    tower.close()


def start_play(tmux, args: str, width: int = 80, height: int = 24, env: str = "") -> None:
    """Start ``towerlab play ARGS`` (after ``env``'s shell assignments) in a tmux terminal of
    ``width`` x ``height``; after it ends the shell prints ``rc=STATUS`` and the terminal's
    echo and canonical mode."""
    cmd = (f"{env} {sys.executable} -m towerlab play {args}; echo rc=$?; "
           "stty -a | grep -o -- ' -\\?echo \\| -\\?icanon' | tr -d '\\n'; echo; sleep 30")
    subprocess.run(tmux + ["new-session", "-d", "-s", "play", "-x", str(width), "-y",
                           str(height), "-c", str(ROOT), cmd], check=True, timeout=10)


def resize(tmux, width: int, height: int) -> None:
    subprocess.run(tmux + ["resize-window", "-t", "play", "-x", str(width), "-y", str(height)],
                   check=True, timeout=10)


def test_a_terminal_too_small_for_the_drawing_is_said_in_words_until_it_grows(tmux):
    # LINES and COLUMNS exported (as some shells do) must not pin the size curses reads
    start_play(tmux, "--firmware demo --silent --seconds 60", env="LINES=24 COLUMNS=80")
    wait_for(tmux, "[Z] DARK TOWER")
    resize(tmux, 40, 12)
    small = wait_for_words(tmux, "The terminal is 40x12: too small for the tower's drawing, "
                                 "which needs 69x24.")
    assert "window [" not in small and "Esc, Ctrl-C or Ctrl-D quits" in " ".join(small.split())
    resize(tmux, 80, 24)
    grown = wait_for(tmux, "display [")
    assert "[Z] DARK TOWER" in grown and "too small" not in grown


def wait_for_file(path: Path, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > end:
            held = sorted(p.name for p in path.parent.iterdir())
            raise AssertionError(f"{path} not written {timeout} s after the terminal closed; "
                                 f"the folder holds {held}")
        time.sleep(0.1)


def test_closing_the_terminal_ends_the_session_and_keeps_its_wav(tmux, tmp_path):
    wav_path = tmp_path / "p.wav"
    start_play(tmux, f"--firmware demo --silent --wav {wav_path}")
    wait_for(tmux, "[Z] DARK TOWER")
    subprocess.run(tmux + ["kill-session", "-t", "play"], check=True, timeout=10)  # SIGHUP
    wait_for_file(wav_path)
    with wave.open(str(wav_path)) as w:
        assert w.getnframes() > 0
    assert [p.name for p in tmp_path.iterdir()] == ["p.wav"]


def test_ctrl_backslash_quits_with_the_terminal_restored_and_the_cursor_shown(tmux):
    start_play(tmux, "--firmware demo --silent")
    wait_for(tmux, "[Z] DARK TOWER")
    subprocess.run(tmux + ["send-keys", "-t", "play", "C-\\"], check=True, timeout=10)
    after = wait_for(tmux, "rc=0")
    assert " icanon echo" in after and "[Z] DARK TOWER" not in after
    cursor = subprocess.run(tmux + ["display", "-p", "-t", "play", "#{cursor_flag}"],
                            capture_output=True, text=True, timeout=10).stdout
    assert cursor.strip() == "1"


@pytest.mark.parametrize("key,said", [("k", "'k' is no tower key"),
                                      ("Up", "KEY_UP is no tower key"),
                                      ("Tab", "Tab is no tower key")])
def test_a_key_that_is_no_tower_key_is_said_with_the_keys_that_quit(tmux, key, said):
    start_play(tmux, "--firmware demo --silent --seconds 60")
    wait_for(tmux, "[Z] DARK TOWER")
    subprocess.run(tmux + ["send-keys", "-t", "play", key], check=True, timeout=10)
    shown = wait_for(tmux, said)
    assert "Esc, Ctrl-C or Ctrl-D quits" in shown and "last key: -" in shown


def test_ctrl_d_quits_as_esc_does(tmux):
    start_play(tmux, "--firmware demo --silent --seconds 60")
    wait_for(tmux, "Ctrl-D quits")
    subprocess.run(tmux + ["send-keys", "-t", "play", "C-d"], check=True, timeout=10)
    after = wait_for(tmux, "rc=0", timeout=5)
    assert " icanon echo" in after


def test_esc_quits(tmux):
    start_play(tmux, "--firmware demo --silent --seconds 60")
    wait_for(tmux, "[Z] DARK TOWER")
    subprocess.run(tmux + ["send-keys", "-t", "play", "Escape"], check=True, timeout=10)
    wait_for(tmux, "rc=0", timeout=5)


def test_play_asks_curses_not_to_wait_a_second_after_esc_for_an_escape_sequence(monkeypatch):
    # ncurses' default ESCDELAY is 1000 ms: Esc would quit a second late. Checked on the
    # screen loop itself, not by timing a terminal (a loaded machine would race it).
    import curses
    import types

    import rig.play

    delays = []
    monkeypatch.setattr(curses, "curs_set", lambda visibility: None)
    monkeypatch.setattr(curses, "set_escdelay", delays.append)
    screen = types.SimpleNamespace(nodelay=lambda flag: None, getch=lambda: 27)
    rig.play._loop(screen, types.SimpleNamespace(now=0.0), "", None, None)
    assert delays and delays[0] <= 100


def test_without_a_sound_device_the_status_line_says_so_and_play_goes_on_silent(tmux,
                                                                                  tmp_path):
    missing = tmp_path / "no-snd"
    runner = tmp_path / "run.py"
    runner.write_text("import sys\nimport rig.play\nfrom towerlab.cli import main\n"
                      f"rig.play.SOUND_DEVICE = {str(missing)!r}\n"
                      "sys.exit(main(sys.argv[1:]))\n")
    cmd = (f"PYTHONPATH={ROOT} {sys.executable} {runner} play --firmware demo --seconds 60; "
           "sleep 30")
    subprocess.run(tmux + ["new-session", "-d", "-s", "play", "-x", "200", "-y", "24",
                           "-c", str(ROOT), cmd], check=True, timeout=10)
    shown = wait_for(tmux, f"sound: silent (no sound device {missing})")
    subprocess.run(tmux + ["send-keys", "-t", "play", "1"], check=True, timeout=10)
    assert "last key: -" in shown
    wait_for(tmux, "last key: YES/BUY")


def test_with_silent_asked_the_status_line_says_silent_alone(tmux):
    start_play(tmux, "--firmware demo --silent --seconds 60")
    shown = wait_for(tmux, "sound: silent")
    assert "sound: silent (" not in shown


class _SimulatedTerminal:
    """The screen loop's world in simulated seconds: a clock its sleeps move on, keys that
    arrive at given times, and a tower that notes each press and release (no wall clock)."""

    def __init__(self, keys: list[tuple[float, str]]):
        self.now = 0.0                 # the wall clock the loop reads (time.monotonic)
        self.keys = sorted(keys)
        self.pressed: list[tuple[float, str]] = []
        self.released: list[tuple[float, str]] = []

    # time
    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += max(seconds, 1e-4)

    # screen
    def getch(self) -> int:
        if self.keys and self.keys[0][0] <= self.now:
            return ord(self.keys.pop(0)[1])
        return -1

    def nodelay(self, flag) -> None:
        pass

    def getmaxyx(self):
        return 40, 120

    def erase(self) -> None:
        pass

    def addstr(self, *args) -> None:
        pass

    def refresh(self) -> None:
        pass


class _NotingTower:
    """A tower that only notes the keys it is given, at its own time."""

    def __init__(self, term: _SimulatedTerminal):
        self.term, self.now = term, 0.0

    def press(self, button: str) -> None:
        self.term.pressed.append((self.now, button))

    def release(self, button: str) -> None:
        self.term.released.append((self.now, button))

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def events(self) -> list:
        return []


def _play_keys(monkeypatch, keys: list[tuple[float, str]], seconds: float):
    import curses
    import types

    import rig.play

    term = _SimulatedTerminal(keys)
    monkeypatch.setattr(rig.play, "time", term)
    monkeypatch.setattr(curses, "curs_set", lambda visibility: None)
    monkeypatch.setattr(curses, "set_escdelay", lambda ms: None)
    sound = types.SimpleNamespace(pump=lambda: None, status="silent")
    rig.play._loop(term, _NotingTower(term), "keys", sound, seconds)
    return term


def test_holding_a_key_down_holds_the_button_through_the_terminals_auto_repeat(monkeypatch):
    # a key held 1.2 s: the terminal repeats it every 30 ms
    held = [(1.0 + 0.03 * k, "2") for k in range(40)]
    term = _play_keys(monkeypatch, held, 4.0)
    assert [b for _, b in term.pressed] == ["REPEAT"]
    (t_up, _), = term.released
    assert t_up == pytest.approx(1.0 + 0.03 * 39 + 0.2, abs=0.05)


def test_two_taps_half_a_second_apart_are_two_presses(monkeypatch):
    term = _play_keys(monkeypatch, [(1.0, "2"), (1.5, "2")], 3.0)
    assert [b for _, b in term.pressed] == ["REPEAT", "REPEAT"]
    assert [round(t, 1) for t, _ in term.released] == [1.2, 1.7]
