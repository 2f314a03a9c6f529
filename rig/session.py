"""Record/check/import, by their old import path: ``rig.session`` was split by concern into
``rig.specs`` (target specs, ``open_target``), ``rig.recording`` (the recording layout),
``rig.record``, ``rig.check`` and ``rig.importing``. New code imports those modules.
"""
from __future__ import annotations

from rig.check import CheckResult, check, check_cleanroom, fit_recorded_clock, recorded_clock
from rig.importing import import_capture
from rig.record import record
from rig.recording import Recording, load_recording, target_rom_sha1
from rig.specs import (DEFAULT_CHANNEL_MAP, NOMINAL_CLOCK_HZ, TARGETS, Target, TargetSpec,
                       load_probe_map, open_target, validate_spec)

__all__ = ["TargetSpec", "Target", "open_target", "record", "check", "import_capture",
           "recorded_clock", "fit_recorded_clock", "CheckResult", "Recording", "load_recording",
           "TARGETS", "DEFAULT_CHANNEL_MAP", "NOMINAL_CLOCK_HZ", "validate_spec",
           "load_probe_map", "check_cleanroom", "target_rom_sha1"]
