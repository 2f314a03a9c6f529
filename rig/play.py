"""Play any tower in a terminal: two 7-segment digits, the three windows, the reel, the keypad.

The front-end speaks only the ``captures.tower.Tower`` protocol and its events, so the same
screen serves the emulator (demo firmware or a user's ROM), the clean-room game and, later, a
real tower. Keys follow MAME's ``mbdtower`` keyboard layout (docs/dark-tower-wiring.md §5, §10)::

    1 YES/BUY     2 REPEAT     3 NO/END
    Q HAGGLE      W BAZAAR     E CLEAR
    A TOMB/RUIN   S MOVE       D SANCTUARY/CITADEL
    Z DARK TOWER  X FRONTIER   C INVENTORY

Esc, Ctrl-C or Ctrl-D quits; any other key is said, for ``NOTE_S``, to be no tower key.
A terminal reports key presses but not releases, so a key is held for ``HOLD_S`` of tower time,
and for ``HOLD_S`` after each repeat the terminal sends while it is held down (auto-repeat).
Tower time is paced to the wall clock. Sound goes live to ``aplay`` when ``/dev/snd`` exists
and ``aplay`` is installed (else the game is silent); ``--wav FILE`` records it.
"""
from __future__ import annotations

import math
import os
import shutil
import subprocess
import time
import wave
from typing import IO, Iterable

import numpy as np

from captures.darktower_facts import BUTTONS, CARD_IMAGES, GLYPH_SEGMENTS
from captures.events import dumps_event

__all__ = ["KEYMAP", "HOLD_S", "TowerView", "digit_rows", "render_lines", "timeline_lines",
           "tones_to_pcm", "Sound", "play", "PlayError", "SOUND_DEVICE", "APLAY_ARGS",
           "live_sound_available", "fit_screen"]

HOLD_S = 0.2          # seconds a key stays pressed (terminals send no key-up)
FRAME_S = 1 / 30      # screen refresh period, seconds
RATE = 22050          # audio sample rate, Hz
SOUND_DEVICE = "/dev/snd"     # ALSA's device folder: live sound only when it exists
# aplay reads raw PCM on stdin: signed 16-bit little-endian, mono, RATE Hz.
APLAY_ARGS = ("-q", "-t", "raw", "-f", "S16_LE", "-r", str(RATE), "-c", "1")

# Keyboard key -> tower button: the keyboard's 1 2 3 / Q W E / A S D / Z X C block laid over
# the panel's four rows of three, in the panel's reading order.
KEYMAP: dict[str, str] = dict(zip("123qweasdzxc", BUTTONS))


class PlayError(ValueError):
    """The front-end cannot start (no terminal, bad option); one line."""


def digit_rows(ch: str) -> list[str]:
    """Return a 7-segment character drawn with box characters: 5 rows of 4 columns."""
    s = GLYPH_SEGMENTS.get(ch, "")

    def on(seg: str, text: str) -> str:
        return text if seg in s else " " * len(text)

    return [
        " " + on("a", "━━") + " ",
        on("f", "┃") + "  " + on("b", "┃"),
        " " + on("g", "━━") + " ",
        on("e", "┃") + "  " + on("c", "┃"),
        " " + on("d", "━━") + " ",
    ]


class TowerView:
    """What the tower shows, folded from its events: display, lamps, motor, reel, last key."""

    # Events younger than this (seconds) are left out: at the live edge the decoders may still
    # be flushing a partial 1/60 s display window.
    SETTLE_S = 0.05

    def __init__(self) -> None:
        self.text = "  "
        self.lamps = {"upper": 0, "middle": 0, "lower": 0}
        self.motor = 0
        self.card_pos = 0
        self.last_button = ""
        self.last_tone = ""

    def update(self, events: list[dict], now: float | None = None) -> None:
        """Show the state after ``events`` (the tower's full list; decoders may still insert
        older events, so the view is folded afresh), leaving out those after ``now - SETTLE_S``.
        """
        self.__init__()
        limit = float("inf") if now is None else now - self.SETTLE_S
        for ev in events:
            if ev["t"] > limit:
                continue
            kind = ev["type"]
            if kind == "display":
                self.text = ev["text"]
            elif kind == "lamp":
                self.lamps[ev["lamp"]] = ev["on"]
            elif kind == "motor":
                self.motor = ev["on"]
            elif kind == "reel":
                self.card_pos = ev["card_pos"]
            elif kind == "button" and ev["action"] == "press":
                self.last_button = ev["button"]
            elif kind == "tone":
                f = ev["freq_hz"]
                self.last_tone = "click" if f is None else f"{f:.0f} Hz {ev['dur_s']:.3f} s"
            elif kind == "power" and not ev["on"]:
                self.text = "  "
                self.lamps = dict.fromkeys(self.lamps, 0)


QUIT_KEYS = "Esc, Ctrl-C or Ctrl-D quits"
NOTE_S = 3.0          # seconds a note (a key that is no tower key) stays on screen


def render_lines(view: TowerView, now: float, title: str, sound: str,
                 note: str = "") -> list[str]:
    """Return the screen as text lines (the curses loop draws them; tests read them); a
    ``note`` stands in the last line, in place of the help."""
    lines = [f" TowerLab play: {title}", f" tower time {now:7.2f} s    sound: {sound}", ""]
    left, right = digit_rows(view.text[0]), digit_rows(view.text[1])
    lines += [f"     {a}  {b}" for a, b in zip(left, right)]
    lines.append(f"     display [{view.text}]")
    lines.append("")
    spin = "|/-\\"[int(now * 8) % 4] if view.motor else " "
    lines.append(f"  reel {spin} {'turning' if view.motor else 'stopped'}   card {view.card_pos}")
    for lamp in ("upper", "middle", "lower"):
        image = CARD_IMAGES[lamp][view.card_pos] or "(void)"
        shown = f"*{image:^15}*" if view.lamps[lamp] else f" {'.' * 15} "
        lines.append(f"  {lamp:>6} window [{shown}] lamp {'on' if view.lamps[lamp] else 'off'}")
    lines.append("")
    lines.append("  keys:")
    keys = list(KEYMAP.items())
    for row in range(4):
        cells = [f"[{k.upper()}] {b:<18}" for k, b in keys[row * 3:row * 3 + 3]]
        lines.append("   " + "".join(cells))
    lines.append("")
    lines.append(f"  last key: {view.last_button or '-'}    last tone: {view.last_tone or '-'}")
    lines.append(f"  {note}" if note else f"  press the keys above; {QUIT_KEYS}")
    return lines


def fit_screen(lines: list[str], width: int, height: int) -> list[str]:
    """Return what to draw of ``lines`` in a ``width`` x ``height`` terminal: the lines cut to
    ``width - 1`` columns and ``height - 1`` rows (curses cannot write the last cell), or, when
    the drawing below the title and status lines does not fit, words saying so, wrapped to the
    width."""
    import textwrap

    need_w = max(len(line.rstrip()) for line in lines[2:]) + 1
    need_h = len(lines) + 1
    if width >= need_w and height >= need_h:
        return [line[:width - 1] for line in lines[:height - 1]]
    words = (f"The terminal is {width}x{height}: too small for the tower's drawing, which "
             f"needs {need_w}x{need_h}. Make the terminal larger (the tower runs on); "
             f"{QUIT_KEYS}.")
    return textwrap.wrap(words, max(width - 1, 1))[:max(height - 1, 1)]


def timeline_lines(events: Iterable[dict]) -> list[str]:
    """Return a condensed, human-readable timeline: one line per event, time in seconds."""
    out = []
    for ev in events:
        t, kind = ev["t"], ev["type"]
        if kind == "display":
            what = f"display '{ev['text']}'"
        elif kind == "lamp":
            what = f"lamp {ev['lamp']} {'on' if ev['on'] else 'off'}"
        elif kind == "motor":
            what = f"motor {'on' if ev['on'] else 'off'}"
        elif kind == "reel":
            what = f"reel card_pos {ev['card_pos']}"
        elif kind == "tone":
            f = ev["freq_hz"]
            what = ("click" if f is None else f"tone {f:.1f} Hz") + f" {ev['dur_s']:.3f} s"
        elif kind == "button":
            what = f"{ev['action']} {ev['button']}"
        elif kind == "power":
            what = f"power {'on' if ev['on'] else 'off'}"
        else:
            what = dumps_event(ev)
        out.append(f"{t:9.3f}  {what}")
    return out


def tones_to_pcm(events: Iterable[dict], start: float, end: float, rate: int = RATE) -> np.ndarray:
    """Synthesise square waves (int16) for the tone events overlapping [start, end) seconds;
    used for towers that report tones but no speaker pins (the clean-room game)."""
    n = max(0, int(round((end - start) * rate)))
    out = np.zeros(n, dtype=np.float64)
    for ev in events:
        if ev["type"] != "tone":
            continue
        t0, dur = ev["t"], max(ev["dur_s"], 0.002)
        if t0 >= end or t0 + dur <= start:
            continue
        a = max(0, int((t0 - start) * rate))
        b = min(n, int((t0 + dur - start) * rate))
        if b <= a:
            continue
        tt = (np.arange(a, b) / rate + start - t0)
        f = ev["freq_hz"] or 1000.0
        out[a:b] = np.where((tt * f) % 1.0 < 0.5, 0.25, -0.25)
    return (out * 32767).astype(np.int16)


def live_sound_available() -> bool:
    """Tell whether live sound can play: ``SOUND_DEVICE`` exists and ``aplay`` is on PATH."""
    return os.path.exists(SOUND_DEVICE) and shutil.which("aplay") is not None


class Sound:
    """Audio out of a tower: live to ``aplay`` (when /dev/snd and aplay exist) and/or a WAV.

    For an ``EmulatorTower`` the speaker pins are rendered (analysis.sound, MAME's filter chain);
    other towers' tone events are synthesised as square waves.
    """

    def __init__(self, tower, live: bool = True, wav: IO[bytes] | None = None):
        self.tower = tower
        self._done_t = 0.0
        self._proc = None
        self._wav = None
        if wav is not None:
            self._wav = wave.open(wav, "wb")
            self._wav.setnchannels(1)
            self._wav.setsampwidth(2)
            self._wav.setframerate(RATE)
        self.live = bool(live and live_sound_available())
        # why live sound was asked for and is off: said on the status line
        self.why_silent = "" if self.live or not live else (
            f"no sound device {SOUND_DEVICE}" if not os.path.exists(SOUND_DEVICE)
            else "no aplay on PATH")
        if self.live:
            try:
                self._proc = subprocess.Popen(
                    ["aplay", *APLAY_ARGS],
                    stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            except OSError as exc:
                self.live = False
                self.why_silent = f"aplay did not start ({exc.strerror or exc})"
        self._renderer = None
        self._fed = 0
        if hasattr(tower, "speaker_edges"):
            from analysis.sound import SpeakerRenderer
            from captures.model import CaptureInfo

            self._renderer = SpeakerRenderer(CaptureInfo(["R4", "R10"], tower.clock_hz), RATE)

    @property
    def name(self) -> str:
        """Return what the sound goes to, for the status line."""
        parts = (["aplay"] if self.live else []) + (["wav"] if self._wav else [])
        return "+".join(parts) or "silent"

    @property
    def status(self) -> str:
        """Return :attr:`name` and, when live sound was asked for and is off, why."""
        return f"{self.name} ({self.why_silent})" if self.why_silent else self.name

    def pump(self) -> None:
        """Render the audio up to the tower's ``now`` and send it out."""
        if not (self.live or self._wav):
            return
        if self._renderer is not None:
            from captures.model import Changes

            # Render up to the tower's cycle, silence included (else the samples of a quiet
            # stretch would only go out with the next edge, and aplay would play every tone
            # late by that stretch). An edge at the current cycle may still change: held back.
            edges = self.tower.speaker_edges(self._fed)       # the new ones
            now = int(self.tower.cycle)
            end = len(edges)
            while end > 0 and edges[end - 1][0] >= now:
                end -= 1
            block = edges[:end]
            self._fed += end
            chunk = self._renderer.feed(Changes(
                np.array([c for c, _ in block], dtype=np.int64),
                np.array([lvl << 1 for _, lvl in block], dtype=np.uint64)))
            # finish() renders the level held since the last edge up to ``now``; it may be
            # called again (analysis.sound.SpeakerRenderer keeps its filter state).
            chunk = np.concatenate([chunk, self._renderer.finish(now)])
            pcm = (np.clip(chunk, -1, 1) * 32767).astype(np.int16)
        else:
            now = self.tower.now
            pcm = tones_to_pcm(self.tower.events(), self._done_t, now)
            self._done_t = now
        self._out(pcm)

    def close(self) -> None:
        """Flush and close the outputs."""
        if self._renderer is not None and (self.live or self._wav):
            from captures.model import Changes

            edges = self.tower.speaker_edges(self._fed)
            chunk = self._renderer.feed(Changes(
                np.array([c for c, _ in edges], dtype=np.int64),
                np.array([lvl << 1 for _, lvl in edges], dtype=np.uint64)))
            end = max(int(self.tower.cycle), edges[-1][0] + 1 if edges else 0)
            chunk = np.concatenate([chunk, self._renderer.finish(end)])
            self._out((np.clip(chunk, -1, 1) * 32767).astype(np.int16))
            self._renderer = None
        if self._wav is not None:
            self._wav.close()
            self._wav = None
        self._stop_aplay()

    def _stop_aplay(self) -> None:
        """Close aplay's input and reap it (killed if it does not end within 5 s)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            proc.stdin.close()
        except OSError:          # a broken pipe: aplay is gone already
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def _out(self, pcm: np.ndarray) -> None:
        if not len(pcm):
            return
        data = pcm.astype("<i2").tobytes()
        if self._wav is not None:
            self._wav.writeframes(data)
        if self._proc is not None:
            try:
                self._proc.stdin.write(data)
                self._proc.stdin.flush()
            except OSError:          # aplay ended (device busy, killed): go on silent
                self.live = False
                self.why_silent = "aplay ended"
                self._stop_aplay()


def play(tower, title: str = "Dark Tower", wav: str | None = None, seconds: float | None = None,
         live_sound: bool = True) -> int:
    """Run the curses front-end on ``tower`` until Esc, Ctrl-C or Ctrl-D (or ``seconds`` of
    tower time);
    record the sound to ``wav`` if given. Return 0."""
    import curses

    if not os.isatty(0) or not os.isatty(1):
        raise PlayError("towerlab play needs a terminal (stdin and stdout are not a tty)")
    if seconds is not None and not seconds > 0:
        raise PlayError(f"--seconds {seconds!r} must be more than 0")
    wav_file = _WavFile(wav) if wav is not None else None
    sound = Sound(tower, live=live_sound, wav=wav_file.file if wav_file else None)
    # LINES and COLUMNS in the environment (some shells export them) would pin the size
    # ncurses reads, at start and after each resize: a resized terminal would be drawn at
    # the old size. Without them it asks the terminal.
    pinned = {name: os.environ.pop(name) for name in ("LINES", "COLUMNS") if name in os.environ}
    finished = False
    ending = _EndingSignals()
    try:
        ending.install()
        curses.wrapper(_loop, tower, title, sound, seconds)
        finished = True
    except KeyboardInterrupt:
        finished = True
    except curses.error:
        # A closed terminal fails curses' own restoring of it: the session still ended.
        if not ending.caught:
            raise
        finished = True
    finally:
        os.environ.update(pinned)
        sound.close()
        tower.close()
        if wav_file is not None:
            wav_file.close(keep=finished)
        ending.restore()
    return 0


class _EndingSignals:
    """End the session as Ctrl-C does, the terminal restored and the WAV kept, on the signals
    that otherwise kill the process mid-screen: SIGHUP (the terminal closed), SIGTERM (kill)
    and SIGQUIT (Ctrl-\\). After the first, these are ignored until :meth:`restore`."""

    NAMES = ("SIGHUP", "SIGTERM", "SIGQUIT")

    def __init__(self) -> None:
        self.caught = 0
        self._old: dict = {}

    def install(self) -> None:
        """Catch the signals (until :meth:`restore`)."""
        import signal

        for name in self.NAMES:
            if hasattr(signal, name):
                num = getattr(signal, name)
                self._old[num] = signal.signal(num, self._end)

    def _end(self, signum, frame) -> None:
        import signal

        self.caught = signum
        for num in self._old:
            signal.signal(num, signal.SIG_IGN)
        raise KeyboardInterrupt

    def restore(self) -> None:
        """Put back the handlers there were before."""
        import signal

        for num, old in self._old.items():
            signal.signal(num, old)
        self._old = {}


class _WavFile:
    """The ``--wav`` output, written to a temporary sibling and renamed when the session ends
    normally (removed on an error); an existing device or FIFO (``/dev/null``) is written in
    place, since renaming over it would replace it with a plain file."""

    def __init__(self, path: str) -> None:
        import tempfile

        self.path, self.tmp = path, None
        if not path:
            raise PlayError("--wav: file name is empty (expected a file name)")
        if os.path.isdir(path):
            raise PlayError(f"{path}: is a folder (expected a WAV file name)")
        try:
            if os.path.exists(path) and not os.path.isfile(path):
                self.file = open(path, "wb")
                return
            real = os.path.realpath(path)
            fd, self.tmp = tempfile.mkstemp(prefix=f".{os.path.basename(real)}.",
                                            suffix=".part", dir=os.path.dirname(real))
        except OSError as exc:
            raise PlayError(f"{path}: cannot write ({exc.strerror or exc})") from None
        self.file = os.fdopen(fd, "wb")
        self.real = real

    def close(self, keep: bool) -> None:
        """Close the file; rename it into place if ``keep``, else remove it."""
        self.file.close()
        if self.tmp is None:
            return
        if keep:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(self.tmp, 0o666 & ~umask)
            os.replace(self.tmp, self.real)
        else:
            os.unlink(self.tmp)


def _key_note(key: int) -> str:
    """Return what to say of a key that is no tower key ("" for none: a resize, the mouse)."""
    import curses

    if key in (curses.KEY_RESIZE, curses.KEY_MOUSE):
        return ""
    if 32 < key < 127:
        name = repr(chr(key))
    else:
        try:
            name = curses.keyname(key).decode("ascii", "replace")
        except (ValueError, curses.error):
            name = f"key {key}"
        name = {"^I": "Tab", "^J": "Enter", "^M": "Enter", " ": "Space"}.get(name, name)
    return f"{name} is no tower key; {QUIT_KEYS}"


def _loop(scr, tower, title: str, sound: Sound, seconds: float | None) -> None:
    import curses

    curses.curs_set(0)
    # Esc quits at once, not after ncurses' default wait of 1 s for an escape sequence.
    curses.set_escdelay(25)
    scr.nodelay(True)
    view = TowerView()
    releases: list[tuple[float, str]] = []
    note, note_until = "", 0.0
    start_wall = time.monotonic()
    start_tower = tower.now
    while True:
        key = scr.getch()
        while key != -1:
            if key in (27, 4):          # Esc, Ctrl-D
                return
            ch = chr(key).lower() if 0 <= key < 256 else ""
            button = KEYMAP.get(ch)
            if button is None:
                said = _key_note(key)
                if said:
                    note, note_until = said, time.monotonic() + NOTE_S
            elif all(b != button for _, b in releases):
                tower.press(button)
                releases.append((tower.now + HOLD_S, button))
            else:       # the terminal's auto-repeat of a key held down: the button stays down
                releases = [(tower.now + HOLD_S if b == button else t, b) for t, b in releases]
            key = scr.getch()
        if note and time.monotonic() >= note_until:
            note = ""
        target = start_tower + (time.monotonic() - start_wall)
        if seconds is not None:
            target = min(target, start_tower + seconds)
        releases.sort()
        while releases and releases[0][0] <= target:
            t, button = releases.pop(0)
            if t > tower.now:
                tower.advance(t - tower.now)
            tower.release(button)
        if target > tower.now:
            tower.advance(target - tower.now)
        view.update(tower.events(), tower.now)
        sound.pump()
        scr.erase()
        height, width = scr.getmaxyx()
        lines = render_lines(view, tower.now, title, sound.status, note)
        for y, line in enumerate(fit_screen(lines, width, height)):
            try:
                scr.addstr(y, 0, line)
            except curses.error:
                pass
        scr.refresh()
        if seconds is not None and tower.now >= start_tower + seconds - 1e-9:
            return
        time.sleep(max(0.0, FRAME_S - math.fmod(time.monotonic() - start_wall, FRAME_S)))
