"""The speaker renderer box-filters a long block of changes a bounded stretch at a time (an
edge log's blocks span minutes): the sound is the same however long those stretches are."""
from __future__ import annotations

import numpy as np

import analysis.sound
from analysis.sound import render
from tests.analysis.synth import capture, square


def _audio(cap, rate=8000):
    return np.concatenate(list(render(cap, rate=rate, gain=1.0)))


def test_audio_is_the_same_however_long_the_box_filter_stretches_are(monkeypatch):
    # Two beeps 3 s apart in one block of changes: the silence between them is long.
    cap = capture(square("R10", 1_000, 250, 40) + square("R10", 300_000, 400, 30),
                  400_000, 100_000.0)
    whole = _audio(cap)
    monkeypatch.setattr(analysis.sound, "_BOX_CHUNK", 1000)
    chunked = _audio(cap)
    assert len(chunked) == len(whole) == 32_000
    assert np.allclose(chunked, whole, atol=1e-9)
    assert np.abs(whole[24_000:24_400]).max() > 0.1       # the second beep is there
