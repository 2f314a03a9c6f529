"""Check a recording against a tower: replay its script on a target and compare the events
with analysis.compare (clock ratio estimated, per-type time tolerances) on the event types
both sides observe.

Example::

    result = check("out/", TargetSpec("emu"))
    result.ok, result.first
"""
from __future__ import annotations

import os
from dataclasses import dataclass, replace

from analysis.base import AnalysisError
from analysis.compare import (Comparison, IntervalFit, compare_events, event_tolerance,
                              fit_interval_ratio)
from captures.tower import run_script
from rig.errors import ClockFitError, RigError
from rig.recording import Recording, load_recording, target_rom_sha1
from rig.specs import ALL_OUTPUT_TYPES, NOMINAL_CLOCK_HZ, TargetSpec, open_target
__all__ = ["check", "recorded_clock", "fit_recorded_clock", "CheckResult", "check_cleanroom",
           "compared_end", "FAULT_MARGIN_S", "CLOCK_FIT_RANGE", "CLOCK_FIT_MAX_STD",
           "END_MARGIN_S"]


FAULT_MARGIN_S = 0.2    # a recording's fault: compare up to this long before it
CLOCK_FIT_RANGE = (0.7, 1.3)   # plausible oscillator / nominal (RC spreads, docs/dark-tower-wiring.md §9)
CLOCK_FIT_MAX_STD = 0.005      # a fit less certain than 0.5 % is not used
END_MARGIN_S = 0.05     # events this close to the session end are not compared


def recorded_clock(rec: Recording) -> float:
    """Estimate the recorded tower's oscillator (Hz) from its tones (analysis.compare's
    estimate_clock, which knows the genuine firmware's tone periods)."""
    from analysis.compare import estimate_clock

    return estimate_clock(rec.events).clock_hz


@dataclass
class CheckResult(Comparison):
    """A ``Comparison`` (recording = A, target = B) plus the oscillator the target ran at.

    ``clock_hz`` is None when the target ran at its own clock; with ``--clock auto``,
    ``clock_fit`` is the first pass's fit (analysis.compare.IntervalFit, ratio = the nominal
    run's clock over the recorded tower's).
    """
    clock_hz: float | None = None
    clock_fit: IntervalFit | None = None
    compared_until: float | None = None     # session seconds; less than the script's length
    fault: str | None = None                # when the recording ends in a fault
    late_actions: int = 0                   # the recording's actions that ran late
    clock_note: str | None = None           # why --clock auto fell back to the nominal clock
    rom_note: str | None = None             # the recording names another ROM than the target's
    target_events: list[dict] | None = None  # what the target showed (B), up to compared_until


def _replay(rec: Recording, spec: TargetSpec) -> tuple[list[dict], tuple[str, ...]]:
    """Run the recording's script on the target; return its events and the output types both
    sides observe."""
    target = open_target(spec)
    try:
        try:
            events = run_script(target.tower, rec.script, until=rec.meta.get("script_end_s"))
        except RigError as exc:
            raise target.explain(exc) from None
        types = tuple(t for t in ALL_OUTPUT_TYPES
                      if t in rec.meta.get("observed", ALL_OUTPUT_TYPES)
                      and t in target.observed_types())
    finally:
        target.close()
    return events, types


def fit_recorded_clock(rec: Recording, spec: TargetSpec,
                       events: list[dict] | None = None) -> tuple[float, IntervalFit]:
    """Return the recorded tower's oscillator (Hz) and the fit it comes from, for any firmware.

    The target (which must take a clock: emu, or sim with the emulator inside) runs the
    script at its nominal clock (``spec.clock_hz`` or 425 kHz), or ``events`` are that run;
    analysis.compare.fit_interval_ratio then compares the intervals both firmwares time
    themselves (flash periods, step delays, tone periods) between the recording and that run.
    """
    if spec.target not in ("emu", "sim") or (spec.target == "sim" and spec.virtual != "emu"):
        what = f"sim --virtual {spec.virtual}" if spec.target == "sim" else spec.target
        raise RigError(f"--clock auto needs a target that takes a clock (emu, or sim with "
                       f"the emulator inside), not {what}")
    nominal = spec.clock_hz or NOMINAL_CLOCK_HZ
    if events is None:
        events = _replay(rec, replace(spec, clock_hz=nominal))[0]
    end = compared_end(rec)
    try:
        fit = fit_interval_ratio([e for e in rec.events if e["t"] < end],
                                 [e for e in events if e["t"] < end])
    except AnalysisError as exc:
        raise ClockFitError(f"{rec.path}: cannot fit the recorded tower's clock "
                            f"({exc})") from None
    clock = nominal / fit.ratio
    if not (CLOCK_FIT_RANGE[0] <= clock / nominal <= CLOCK_FIT_RANGE[1]
            and fit.std_rel <= CLOCK_FIT_MAX_STD):
        raise ClockFitError(f"{rec.path}: the fitted clock {clock:.0f} Hz (+-"
                            f"{fit.std_rel * 100:.2f} %, from {fit.intervals} events and "
                            f"{fit.tones} tones) is not plausible: the recording and a run at "
                            f"{nominal:.0f} Hz have too little in common")
    return clock, fit


def compared_end(rec: Recording) -> float:
    """Return the session time (s) up to which events are compared: the decoders' last
    1/60 s window depends on where each side stops, and a recording that ends in a fault (a
    gap: the probe saw nothing from there) is compared up to ``FAULT_MARGIN_S`` before the
    fault (an unplugged box drops the tower's power a moment before the host notices)."""
    end = float(rec.meta.get("script_end_s") or rec.script.end_time()) - END_MARGIN_S
    gaps = [e["t"] - FAULT_MARGIN_S for e in rec.events if e.get("type") == "gap"]
    return min([end] + gaps)


def check(path: str | os.PathLike, spec: TargetSpec, auto_clock: bool = False) -> CheckResult:
    """Replay a recording's script on a target; return the comparison (recording = A,
    target = B) over the event types both observe.

    ``auto_clock``: a real tower's RC oscillator is off its nominal 425 kHz, so the same
    press lands in a different program state unless the target runs at the recorded tower's
    clock. Two passes: run at the nominal clock and fit the clock from internally timed
    intervals (``fit_recorded_clock``, any firmware), then rerun at the fitted clock and
    compare that.
    """
    rec = load_recording(path)
    fit = None
    note = None
    rom_note = None
    recorded_rom = rec.meta.get("rom_sha1")
    if isinstance(recorded_rom, str):
        ours = target_rom_sha1(spec)
        if ours is not None and ours != recorded_rom:
            rom_note = (f"the recording was made with ROM {recorded_rom[:12]}..., the target "
                        f"runs {ours[:12]}... ({'--romset ' + spec.romset if spec.romset else 'the demo firmware'}): "
                        f"differences are expected; pass --romset with that ROM")
    if auto_clock:
        try:
            clock, fit = fit_recorded_clock(rec, spec)
            spec = replace(spec, clock_hz=clock)
        except ClockFitError as exc:
            # Compare at the nominal clock: the first difference says where they part.
            note = str(exc)
    events, types = _replay(rec, spec)
    end = compared_end(rec)
    a = [e for e in rec.events if e["t"] < end]
    b = [e for e in events if e["t"] < end]
    # Reel positions are inferred (dead reckoning between sensor holes on a probe, frame-polled
    # on the emulator's board): fit the clock on the pin-exact types, then compare everything.
    exact = tuple(t for t in types if t != "reel") or types
    # (A fit outside analysis.compare.RATIO_RANGE comes back as the same clock, 1.0 / 0.0.)
    first = compare_events(a, b, event_tolerance(types=exact))
    result = compare_events(a, b, event_tolerance(types=types), ratio=first.ratio,
                            offset=first.offset)
    return CheckResult(**vars(result), clock_hz=spec.clock_hz, clock_fit=fit,
                       compared_until=end, fault=rec.meta.get("fault"),
                       late_actions=int(rec.meta.get("late_actions") or 0),
                       clock_note=note, rom_note=rom_note, target_events=b)


def check_cleanroom(path: str | os.PathLike, max_runs: int | None = None):
    """Check a recording against the clean-room game; return cleanroom.conform's Result.

    The game draws random decisions (move outcomes, prices, haggles...), so it is compared as
    ``towerlab conform`` does: each decision resolved to what the recording shows, with the
    game's tolerances (key-scan latency, flash phase), on the output types the recording
    observed, up to its end (or its fault).  ``max_runs``: the resolver's budget
    (cleanroom.conform ``resolve``; None: its default).
    """
    from cleanroom.conform import resolve

    script, events, end, types = _cleanroom_reference(path)
    return resolve(script, events, end=end, types=types, max_runs=max_runs)


def predict_cleanroom(path: str | os.PathLike, model: str, max_runs: int | None = None,
                      resync: bool = False):
    """Check a recording against the clean-room game drawing from the draw model ``model``
    (cleanroom.predict), compared as ``check_cleanroom`` compares, and scored against the
    draws ``check_cleanroom`` resolves (with ``max_runs`` as there); ``resync``: the game
    plays those draws and the model predicts each (``predict_resynced``); return
    cleanroom.predict's Prediction."""
    from cleanroom.conform import resolve
    from cleanroom.predict import model_named, predict

    drawing = model_named(model)            # an unknown name fails before any work
    script, events, end, types = _cleanroom_reference(path)
    truth = resolve(script, events, end=end, types=types, max_runs=max_runs)
    return predict(script, events, drawing, truth, end=end, types=types, resync=resync)


def _cleanroom_reference(path: str | os.PathLike) -> tuple:
    """Return (script, events up to the compared end, that end, the output types observed)
    of a recording, as the clean-room game is compared with it."""
    rec = load_recording(path)
    end = compared_end(rec)
    types = [t for t in ALL_OUTPUT_TYPES if t in rec.meta.get("observed", ALL_OUTPUT_TYPES)]
    return rec.script, [e for e in rec.events if e["t"] < end], end, types
