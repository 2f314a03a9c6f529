"""The libsigrokdecode decoder 'darktower' annotates the reference capture in sigrok-cli.

Needs sigrok-cli (libsigrokdecode 0.5.3 embedding Python 3.11 here); SIGROKDECODE_DIR points
it at analysis/sigrok_pd.
"""
from __future__ import annotations

import os
import subprocess

from analysis.sigrok_pd import decoder_dir
from tests.analysis.capload import CAPTURES

PD_DIR = decoder_dir()


def annotations(sigrok_cli, *extra):
    env = dict(os.environ, SIGROKDECODE_DIR=str(PD_DIR))
    res = subprocess.run([sigrok_cli, "-i", str(CAPTURES / "tower_test" / "capture.sr"),
                          "-P", "darktower", *extra], capture_output=True, text=True,
                         env=env, timeout=120)
    assert res.returncode == 0, res.stderr
    return [line.split(": ", 1)[1] for line in res.stdout.splitlines() if ": " in line]


def test_sigrok_cli_shows_the_tower_tests_display_lamps_motor_and_key(sigrok_cli):
    ann = annotations(sigrok_cli)
    assert ann.count("L1") == 8 and ann.count("--") == 6 and ann.count("88") == 3
    assert ann[0] == "0_"
    assert ["lamp upper", "lamp middle", "lamp lower"] == [a for a in ann if a.startswith("lamp")]
    assert "motor on" in ann and "YES/BUY" in ann


def test_sigrok_cli_shows_the_tone_frequencies(sigrok_cli):
    tones = annotations(sigrok_cli, "-A", "darktower=tone")
    assert tones == ["431.8 Hz A4 (2 pulses)", "737.8 Hz F#5 (33 pulses)",
                     "737.8 Hz F#5 (33 pulses)", "737.9 Hz F#5 (33 pulses)"]


def test_sigrok_cli_drops_back_to_back_transitions_as_the_display_decoder(sigrok_cli, tmp_path):
    # The README example: "C2", "C " for one window, " 2" for one window, "C2": "C " is a
    # transition, " 2" starts in its window and lasts two windows, so it is shown.
    from analysis.display import DisplayDecoder
    from captures.formats import write_capture
    from tests.analysis.synth import capture, run
    from tests.analysis.test_display import W, drive

    edges = (drive(0, 3 * W, "C", "2") + drive(3 * W, 4 * W, "C", " ")
             + drive(4 * W, 5 * W, " ", "2") + drive(5 * W, 8 * W, "C", "2")
             + [(10 * W, "R3", 1)])          # a later edge: sigrok decoders see only edges
    cap = capture(edges, 11 * W, 60_000.0)
    path = tmp_path / "transitions.sr"
    write_capture(cap, path)
    env = dict(os.environ, SIGROKDECODE_DIR=str(PD_DIR))
    res = subprocess.run([sigrok_cli, "-i", str(path), "-P", "darktower", "-A",
                          "darktower=display"], capture_output=True, text=True, env=env,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    shown = [line.split(": ", 1)[1] for line in res.stdout.splitlines() if ": " in line]
    assert shown == ["C2", "_2", "C2"]
    assert [e["text"] for e in run(DisplayDecoder, cap)] == ["C2", " 2", "C2", "  "]
