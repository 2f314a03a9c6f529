"""Render the 1-bit speaker as audio, the way MAME's speaker device does, and write WAV files.

Channels read: R10 (speaker) and R4 (SN75494 enable); the speaker level is R10 AND NOT R4
(MAME mbdtower ``write_r``, docs/dark-tower-wiring.md §8).

Pipeline (MAME ``spkrdev.cpp`` as described in docs/capture-formats.md §5):

1. box filter: average the 1-bit level over each intermediate sample period, at 4 x the
   output rate, exactly (from the edge times, not from per-sample data);
2. MAME's FIR low-pass: a sinc cut off at the output rate / 4 (zeros every 8 intermediate
   samples), 64 taps centred on tap 32, not windowed, DC gain ``MAME_LEVEL``; output sample
   n filters the intermediate samples up to 4n - 5 (``MAME_LATENCY``);
3. keep every 4th sample (decimate to the output rate);
4. a DC blocker ``y = x - x[-1] + 0.995 * y[-1]``;
5. scale by ``gain`` (MAME's mixer gain 0.25 for the Dark Tower) to 16-bit PCM.

The kernel's shape, level and latency were measured on ``mame mbdtower -wavwrite`` (0.251) of
programs that toggle R10 (a 681 Hz tone in bursts, 67 ms steps): fitted tap by tap from the
pin edges, then checked whole (tests/mame/test_mame_wav.py); past the first 30 ms of a run our
samples are within 34 of MAME's 16-bit ones.

``SpeakerRenderer`` works block by block on change blocks, so a capture of any length renders
in bounded memory; ``write_wav`` streams into the stdlib ``wave`` module.
"""
from __future__ import annotations

import wave
from typing import IO, Iterator

import numpy as np

from analysis.base import AnalysisError, ChannelSelector
from captures.model import Capture, CaptureInfo, Changes

__all__ = ["SpeakerRenderer", "render", "write_wav", "RATE_MULTIPLIER", "DC_POLE",
           "MAME_LEVEL", "MAME_LATENCY"]

RATE_MULTIPLIER = 4     # intermediate samples per output sample (MAME RATE_MULTIPLIER)
FIR_LENGTH = 64        # MAME's kernel (taps at the intermediate rate)
MAME_LEVEL = 0.5457    # MAME's DC gain from the 1-bit level to its mixer: a held 1 is 0.1364
                       # of full scale at the mixer gain 0.25 (measured, see module doc)
MAME_LATENCY = 5       # intermediate samples between the last one filtered and 4n (measured)
FIR_TAPS = FIR_LENGTH + MAME_LATENCY
DC_POLE = 0.995
_DC_CHUNK = 512         # closed-form DC blocker chunk (0.995**-512 stays small)
_BOX_CHUNK = 1 << 18    # intermediate samples box-filtered at a time (about 1.5 s at 44.1 kHz)


def _mame_kernel() -> np.ndarray:
    """Return MAME's speaker low-pass as convolution taps at the intermediate rate: the
    latency's zero taps, then a plain sinc cut off at 1/16 of the intermediate rate (the output
    rate / 4) over taps 0-63 centred on 32, scaled to the DC gain ``MAME_LEVEL``."""
    h = np.sinc((np.arange(FIR_LENGTH) - FIR_LENGTH // 2) / (4 * RATE_MULTIPLIER) * 2)
    return np.concatenate((np.zeros(MAME_LATENCY), h * (MAME_LEVEL / h.sum())))


class SpeakerRenderer:
    """Turn change blocks into float audio samples (-1..1) at ``rate`` Hz (see module doc)."""

    def __init__(self, info: CaptureInfo, rate: int = 44100, gain: float = 0.25):
        if not 1000 <= rate <= 192000:
            raise AnalysisError(f"audio rate {rate} Hz must be 1000-192000")
        if not (gain > 0 and np.isfinite(gain)):
            raise AnalysisError(f"gain {gain} must be a positive number")
        self.sel = ChannelSelector(info, ("R10", "R4"), decoder="sound")
        self.samplerate = float(info.samplerate)
        self.rate = rate
        self.gain = gain
        self.fi = rate * RATE_MULTIPLIER                 # intermediate rate (Hz)
        self.h = _mame_kernel()
        self._t = 0.0              # time of the last known level (seconds)
        self._level = 0
        self._integral = 0.0       # integral of the level up to _t (seconds)
        self._k = 0                # next intermediate boundary index to evaluate
        self._i_at_k = 0.0         # integral at boundary _k
        self._hist = np.zeros(FIR_TAPS - 1)
        self._n_inter = 0          # intermediate samples produced so far
        self._x1 = 0.0             # DC blocker state
        self._y1 = 0.0

    def feed(self, changes: Changes) -> np.ndarray:
        """Consume one change block; return the audio samples that are now complete."""
        times, vals = self.sel.select(changes)
        if len(times) == 0:
            return np.zeros(0)
        ts = times / self.samplerate
        levels = ((vals & 1) & ~(vals >> 1) & 1).astype(float)
        # Cumulative integral at each change: the old level holds until the change.
        prev_levels = np.concatenate(([self._level], levels[:-1]))
        dts = np.diff(np.concatenate(([self._t], ts)))
        integ = self._integral + np.cumsum(prev_levels * dts)
        kt = np.concatenate(([self._t], ts))
        ki = np.concatenate(([self._integral], integ))
        out = self._boundaries(kt, ki, ts[-1])
        self._t, self._level, self._integral = float(ts[-1]), int(levels[-1]), float(integ[-1])
        return out

    def finish(self, end_sample: int) -> np.ndarray:
        """Render up to ``end_sample`` (the capture length) and flush the filters."""
        end = end_sample / self.samplerate
        if end > self._t:
            kt = np.array([self._t, end])
            ki = np.array([self._integral, self._integral + self._level * (end - self._t)])
            out = self._boundaries(kt, ki, end)
            self._t, self._integral = end, float(ki[-1])
            return out
        return np.zeros(0)

    def _boundaries(self, kt: np.ndarray, ki: np.ndarray, until: float) -> np.ndarray:
        k_end = int(np.floor(until * self.fi))
        if k_end <= self._k:
            return np.zeros(0)
        # At most _BOX_CHUNK intermediate samples at a time: a block of changes may span
        # minutes (an edge log's blocks do), and its box-filter arrays would take gigabytes.
        out = []
        while self._k < k_end:
            k1 = min(k_end, self._k + _BOX_CHUNK)
            bounds = np.arange(self._k, k1 + 1) / self.fi
            ib = np.interp(bounds, kt, ki)
            ib[0] = self._i_at_k
            box = np.diff(ib) * self.fi
            self._k, self._i_at_k = k1, float(ib[-1])
            out.append(self._filter(box))
        return np.concatenate(out)

    def _filter(self, box: np.ndarray) -> np.ndarray:
        x = np.concatenate((self._hist, box))
        lp = np.convolve(x, self.h, mode="valid")
        self._hist = x[-(FIR_TAPS - 1):]
        first = (-self._n_inter) % RATE_MULTIPLIER
        dec = lp[first::RATE_MULTIPLIER]
        self._n_inter += len(box)
        return self._dc_block(dec) * self.gain

    def _dc_block(self, x: np.ndarray) -> np.ndarray:
        out = np.empty_like(x)
        a = DC_POLE
        for s in range(0, len(x), _DC_CHUNK):
            c = x[s:s + _DC_CHUNK]
            d = np.diff(np.concatenate(([self._x1], c)))
            n = np.arange(1, len(c) + 1)
            # y[n] = a^n y1 + sum_{k<=n} a^(n-k) d[k]
            y = a ** n * (self._y1 + np.cumsum(d * a ** -n))
            out[s:s + len(c)] = y
            self._x1, self._y1 = float(c[-1]), float(y[-1])
        return out


def render(capture: Capture, rate: int = 44100, gain: float = 0.25) -> Iterator[np.ndarray]:
    """Yield float audio chunks (-1..1) of a capture's speaker at ``rate`` Hz."""
    return _render(capture, SpeakerRenderer(capture.info, rate, gain))


def _render(capture: Capture, r: SpeakerRenderer) -> Iterator[np.ndarray]:
    last = 0
    for block in capture.changes():
        if len(block):
            last = int(block.times[-1])
        chunk = r.feed(block)
        if len(chunk):
            yield chunk
    total = capture.info.total_samples
    chunk = r.finish(max(int(total) if total is not None else last + 1, last))
    if len(chunk):
        yield chunk


def write_wav(capture: Capture, fileobj: IO[bytes], rate: int = 44100,
              gain: float = 0.25) -> int:
    """Write the speaker as 16-bit mono PCM WAV to a binary file object; return the frames.

    The rate, the gain and the capture's channels are checked before anything is written."""
    renderer = SpeakerRenderer(capture.info, rate, gain)
    frames = 0
    with wave.open(fileobj, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        for chunk in _render(capture, renderer):
            pcm = np.clip(np.round(chunk * 32767), -32768, 32767).astype("<i2")
            w.writeframes(pcm.tobytes())
            frames += len(pcm)
    return frames
