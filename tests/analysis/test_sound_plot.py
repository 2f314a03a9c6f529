"""WAV rendering (MAME's speaker pipeline) and the timing and sound plots."""
from __future__ import annotations

import io
import wave

import numpy as np
import pytest

from analysis.base import AnalysisError
from analysis.plot import plot_sound, plot_timing, window_edges
from analysis.sound import SpeakerRenderer, render, write_wav
from captures.model import Capture, Changes
from tests.analysis.synth import capture, square

RATE = 1_000_000.0


def _audio(cap, rate=44100):
    return np.concatenate(list(render(cap, rate=rate, gain=1.0)))


def test_wav_is_16_bit_mono_at_44100_hz_for_the_whole_capture():
    cap = capture(square("R10", 0, 1000, 200), 500_000, RATE)       # 1 kHz for 0.2 s
    buf = io.BytesIO()
    frames = write_wav(cap, buf)
    with wave.open(io.BytesIO(buf.getvalue())) as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate()) == (1, 2, 44100)
        assert w.getnframes() == frames == 22050


def test_a_square_wave_renders_at_its_pitch():
    x = _audio(capture(square("R10", 0, 1000, 200), 200_000, RATE))
    spectrum = np.abs(np.fft.rfft(x[:8192] * np.hanning(8192)))
    assert abs(np.fft.rfftfreq(8192, 1 / 44100)[spectrum.argmax()] - 1000) < 10


def test_the_speaker_is_silent_while_r4_is_high():
    x = _audio(capture(square("R10", 0, 1000, 200) + [(0, "R4", 1)], 200_000, RATE))
    assert np.all(x == 0)


def test_the_dc_blocker_returns_a_held_level_to_zero():
    x = _audio(capture([(1000, "R10", 1)], 1_000_000, RATE))
    assert x[40:100].max() > 0.5 and abs(x[-1]) < 1e-3


def test_the_box_filter_averages_the_level_exactly_over_each_sample_period():
    # A 50 % duty square at exactly 2 intermediate periods averages to 0.5 before filtering.
    r = SpeakerRenderer(capture([], 10, RATE).info, rate=44100, gain=1.0)
    kt = np.array([0.0, 1.0])
    ki = np.array([0.0, 0.5])
    r._k, r._i_at_k = 0, 0.0
    r._filter = lambda box: box          # look at the box filter's output only
    box = r._boundaries(kt, ki, 1.0)
    assert np.allclose(box, 0.5)


def test_audio_is_the_same_however_the_changes_are_split(tower_test):
    mem = tower_test.to_memory()
    t, w = mem.times, mem.words
    split = Capture(mem.info, lambda: (Changes(t[i:i + 33], w[i:i + 33])
                                       for i in range(0, len(t), 33)))
    assert np.allclose(_audio(split, 8000), _audio(mem, 8000))


def test_timing_plot_is_written_as_png_and_svg(tower_test, tmp_path):
    for name in ("t.png", "t.svg"):
        plot_timing(tower_test, 3.0, 3.1, str(tmp_path / name))
        assert (tmp_path / name).stat().st_size > 10_000
    assert (tmp_path / "t.png").read_bytes()[:4] == b"\x89PNG"


def test_timing_plot_reads_only_up_to_its_window(tower_test):
    mem = tower_test.to_memory()
    cut = int(np.searchsorted(mem.times, 4.0 * mem.info.samplerate))

    def factory():
        yield Changes(mem.times[:cut], mem.words[:cut])
        raise AssertionError("read past the plot window")
    times, words = window_edges(Capture(mem.info, factory), 425_000, 850_000)
    assert times[0] == 425_000 and len(times) == len(words) > 10


def test_timing_plot_rejects_an_empty_window(tower_test, tmp_path):
    with pytest.raises(AnalysisError, match="0 <= from < to"):
        plot_timing(tower_test, 3.0, 2.0, str(tmp_path / "x.png"))


def test_sound_plot_is_written(tower_test, tmp_path):
    plot_sound(tower_test, str(tmp_path / "s.png"))
    assert (tmp_path / "s.png").stat().st_size > 20_000


def test_a_timing_plot_gives_unmapped_lines_a_row_of_their_own():
    from analysis.plot import _timing_rows
    rows = _timing_rows(["D0", "R10", "R4", "SYNC"], display=False)
    assert rows == [("R4 /EN", "R4"), ("R10 spk", "R10"), ("D0", "D0"), ("SYNC", "SYNC")]


def test_a_timing_plot_of_a_capture_without_segment_lines_has_no_display_rows(tmp_path):
    cap = capture(square("R10", 100, 200, 20), 10_000, 100_000.0, channels=("O7", "R4", "R10"))
    plot_timing(cap, 0.0, 0.05, str(tmp_path / "t.png"))
    assert (tmp_path / "t.png").stat().st_size > 0


def test_note_labels_of_the_pitch_plot_do_not_overprint_each_other():
    from analysis.plot import _labelled_tones
    tones = [{"t": 10.0 + 0.5 * k, "freq_hz": f} for k, f in enumerate((738, 738, 432, 740))]
    tones.append({"t": 30.0, "freq_hz": 738})
    labelled = _labelled_tones(tones, duration=110.0)    # a label is 5 s wide
    assert [(t["t"], t["freq_hz"]) for t in labelled] == [
        (10.0, 738), (11.0, 432), (30.0, 738)]


def test_a_sound_plot_of_a_capture_with_a_gap_is_drawn(tmp_path):
    from captures.model import Gap
    cap = capture(square("R10", 1000, 2000, 50), 200_000, 1_000_000.0)
    cap.gaps.append(Gap(150_000, 160_000, "overrun"))
    plot_sound(cap, str(tmp_path / "s.png"))
    assert (tmp_path / "s.png").stat().st_size > 0


def test_gaps_are_shaded_where_they_overlap_the_plotted_window():
    from analysis.plot import gap_spans
    from captures.model import Gap
    cap = capture([], 10_000, 1000.0)
    cap.gaps.extend([Gap(1000, 2000, "a"), Gap(4000, 6000, "b"), Gap(8000, 9000, "c")])
    assert gap_spans(cap, 1.5, 5.0) == [(1.5, 2.0), (4.0, 5.0)]


def test_a_held_level_steps_by_mames_level_at_the_mixer_gain():
    # MAME 0.251's -wavwrite: R10 going high steps its output by 0.1364 of full scale with the
    # Dark Tower's mixer gain 0.25, then the DC blocker lets it decay (tests/mame/test_mame_wav.py).
    y = np.concatenate(list(render(capture([(1000, "R10", 1)], 100_000, RATE), 48000, 0.25)))
    x = np.zeros_like(y)                  # undo the DC blocker: the filtered level itself
    for n in range(1, len(y)):
        x[n] = y[n] - 0.995 * y[n - 1] + x[n - 1]
    assert abs(x[-1] - 0.1364) < 0.0005
