"""Target specs: what a tower target is (``TargetSpec``), checking one, and opening it.

Targets (``open_target``):

    real       the button box on a serial port + an fx2lafw analyser (or sigrok-cli)
    sim        the same drivers against the virtual bench: the button-box firmware in simavr,
               the simulated FX2 on pyusb, and a virtual tower inside (the emulator, or
               ``virtual="fake"`` for rig.towers.fakes.PinTower)
    emu        the emulator (rig.towers.emulated.EmulatorTower, demo firmware or a romset)
    cleanroom  the clean-room game (cleanroom.tower.CleanroomTower)
    replay     a recorded session (rig.towers.emulated.ReplayTower: a recording or a shared
               capture)
    fake       rig.towers.fakes.PinTower directly (a pin-level double, for tests)

Example::

    target = open_target(TargetSpec("emu"))
    run_script(target.tower, script)
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from captures.darktower_facts import NOMINAL_CLOCK_HZ as DARKTOWER_CLOCK_HZ
from rig.bench import PROBE_16, VirtualBench
from rig.errors import RigError

if TYPE_CHECKING:
    from rig.towers.real import RealTower

__all__ = ["TargetSpec", "Target", "open_target", "TARGETS", "DEFAULT_CHANNEL_MAP",
           "NOMINAL_CLOCK_HZ", "validate_spec", "load_probe_map",
           "ALL_OUTPUT_TYPES", "is_number"]


TARGETS = ("real", "sim", "emu", "cleanroom", "replay", "fake")
DEFAULT_CHANNEL_MAP = {f"D{i}": name for i, name in enumerate(PROBE_16)}
ALL_OUTPUT_TYPES = ("display", "lamp", "motor", "reel", "tone")
# MAME's clock for the Dark Tower board (docs/dark-tower-wiring.md §9), as a float
NOMINAL_CLOCK_HZ = float(DARKTOWER_CLOCK_HZ)


@dataclass
class TargetSpec:
    """How to reach a tower: target kind and its options."""
    target: str
    romset: str | None = None
    firmware: str = "demo"
    port: str | None = None
    analyser: str = "fx2lafw"          # or a sigrok-cli driver spec: "sigrok:DRIVER[:opts]"
    channel_map: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_CHANNEL_MAP))
    samplerate: float = 250_000
    virtual: str = "emu"               # inside the bench: "emu" or "fake"
    tower_speed: float = 1.0           # bench: the virtual tower's clock against the world
    seed: int = 0
    clock_hz: float | None = None      # emu: oscillator (default: the board's 425 kHz)
    box_clock_error: float = 0.0       # bench: the box's resonator error (0.003 = 0.3 % fast)
    replay: str | None = None          # replay: the recording folder to answer from
    odds: dict | None = None           # cleanroom: odds in place of the game's own (explore)


class Target:
    """An open tower plus what is needed to finish a recording from it."""

    def __init__(self, tower, spec: TargetSpec, bench: VirtualBench | None = None):
        self.tower = tower
        self.spec = spec
        self.bench = bench

    @property
    def real(self) -> "RealTower | None":
        """Return the RealTower when the target goes through the rig's drivers, else None."""
        from rig.towers.real import RealTower
        return self.tower if isinstance(self.tower, RealTower) else None

    def observed_types(self) -> list[str]:
        """Return the output event types this target can produce."""
        if self.real is None:
            return list(ALL_OUTPUT_TYPES)
        from analysis.decode import StreamDecoder
        from captures.model import CaptureInfo
        dec = StreamDecoder(CaptureInfo(self.real.channels, self.real.samplerate))
        return [type(d).EVENT for d in dec.decoders if type(d).EVENT in ALL_OUTPUT_TYPES]

    def explain(self, exc: RigError) -> RigError:
        """Return ``exc``, or the virtual bench's own failure when that is what broke the
        link (the host only sees the box go away)."""
        if self.bench is not None and self.bench.error:
            return RigError(f"virtual bench failed: {self.bench.error}")
        return exc

    def close(self) -> None:
        """Close the tower and stop the bench, if any."""
        try:
            self.tower.close()
        finally:
            if self.bench is not None:
                self.bench.close()


def _emulator_tower(spec: TargetSpec):
    try:
        from rig.towers.emulated import EmulatorTower
    except ImportError as exc:
        raise RigError(f"the emulator target is not available ({exc})") from None
    clock = int(round(spec.clock_hz)) if spec.clock_hz else None
    if spec.romset:
        return EmulatorTower(romset=spec.romset, clock_hz=clock)
    return EmulatorTower(firmware=spec.firmware, clock_hz=clock)


def _virtual_tower(spec: TargetSpec):
    if spec.virtual == "fake":
        from rig.towers.fakes import PinTower
        return PinTower()
    if spec.virtual == "emu":
        # An RC oscillator off by ``tower_speed`` runs the chip fast or slow; the reel motor
        # and the board's 1/60 s frames keep real time (the emulator's clock_hz does that).
        base = spec.clock_hz or NOMINAL_CLOCK_HZ
        return _emulator_tower(replace(spec, clock_hz=base * spec.tower_speed))
    raise RigError(f"unknown virtual tower {spec.virtual!r} (expected emu or fake)")


def _bench_tower_speed(spec: TargetSpec) -> float:
    """Return the time scale the bench applies to the virtual tower: the emulator takes the
    oscillator error as its clock (``_virtual_tower``), the pin-level fake has no clock."""
    return spec.tower_speed if spec.virtual == "fake" else 1.0


def _analyser(spec: TargetSpec, bench: VirtualBench | None):
    from rig.fx2lafw import Fx2lafw
    if bench is not None:
        return Fx2lafw(backend=bench.usb_backend, clock=bench.clock)
    if spec.analyser == "fx2lafw":
        return Fx2lafw()
    if spec.analyser.startswith("sigrok:"):
        from rig.sigrok_cli import SigrokCli
        return SigrokCli(spec.analyser[len("sigrok:"):])
    raise RigError(f"unknown analyser {spec.analyser!r} (expected fx2lafw or sigrok:DRIVER)")


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value


def validate_spec(spec: TargetSpec) -> None:
    """Raise RigError, one line naming the value, for an option of ``spec`` that no target
    could use; nothing is opened."""
    from captures.model import DARKTOWER_CHANNELS

    if spec.target not in TARGETS:
        raise RigError(f"unknown target {spec.target!r} (expected one of {', '.join(TARGETS)})")
    if not (is_number(spec.tower_speed) and 0.5 <= spec.tower_speed <= 2.0):
        raise RigError(f"tower speed {spec.tower_speed!r}: expected a factor from 0.5 to 2 "
                       f"(1.03 = the tower's clock 3 % fast)")
    if spec.clock_hz is not None and not (is_number(spec.clock_hz)
                                          and 1_000 <= spec.clock_hz <= 10_000_000):
        raise RigError(f"clock {spec.clock_hz!r} Hz: expected an oscillator from 1 kHz to "
                       f"10 MHz (the tower's is about 425000)")
    if not (is_number(spec.samplerate) and 0 < spec.samplerate < float("inf")):
        raise RigError(f"samplerate {spec.samplerate!r}: expected a positive number of Hz "
                       f"(e.g. 250000)")
    if spec.analyser != "fx2lafw" and not (spec.analyser.startswith("sigrok:")
                                           and len(spec.analyser) > len("sigrok:")):
        raise RigError(f"unknown analyser {spec.analyser!r} (expected fx2lafw or "
                       f"sigrok:DRIVER, e.g. sigrok:fx2lafw or sigrok:saleae-logic16)")
    if not isinstance(spec.seed, int) or spec.seed < 0:
        raise RigError(f"seed {spec.seed!r}: expected a whole number, 0 or more (the "
                       f"clean-room game's draws)")
    if spec.odds and spec.target != "cleanroom":
        raise RigError(f"--odds is for the clean-room game (--target cleanroom), not "
                       f"{spec.target}: a tower draws with its own")
    if spec.virtual not in ("emu", "fake"):
        raise RigError(f"unknown virtual tower {spec.virtual!r} (expected emu or fake)")
    pins = set(DARKTOWER_CHANNELS) | {"SYNC"}
    for probe, pin in spec.channel_map.items():
        if pin not in pins:
            raise RigError(f"channel map: {probe} = {pin!r} is not a tower pin (expected SYNC "
                           f"or one of {' '.join(DARKTOWER_CHANNELS)})")


def open_target(spec: TargetSpec, sink_factory=None) -> Target:
    """Open the tower named by ``spec``; ``sink_factory(channels, samplerate)`` returns the
    live capture sink for rig targets (e.g. a StreamWriter)."""
    validate_spec(spec)
    if spec.target == "emu":
        return Target(_emulator_tower(spec), spec)
    if spec.target == "cleanroom":
        from cleanroom.tower import CleanroomTower
        return Target(CleanroomTower(seed=spec.seed), spec)
    if spec.target == "fake":
        from rig.towers.fakes import PinTower
        return Target(PinTower(), spec)
    if spec.target == "replay":
        if not spec.replay:
            raise RigError("the replay target needs the recording to replay (--replay DIR)")
        from rig.towers.emulated import ReplayTower
        return Target(ReplayTower(spec.replay), spec)
    from rig.buttonbox import ButtonBox, open_serial
    from rig.towers.real import RealTower, probe_channels
    channels = probe_channels(spec.channel_map)
    bench = None
    if spec.target == "sim":
        bench = VirtualBench(lambda: _virtual_tower(spec), probe=tuple(channels),
                             tower_speed=_bench_tower_speed(spec),
                             box_clock_error=spec.box_clock_error).start()
        port = bench.port
    else:
        if not spec.port:
            raise RigError("the real target needs the button box's serial port (--port "
                           "/dev/ttyACM0)")
        port = spec.port
    box = None
    try:
        # On the bench the host's serial link paces the world (rig.bench.HostPacer).
        box = (ButtonBox(port) if bench is None else
               ButtonBox(port, link=bench.pacer.link(open_serial(port), bench.clock)))
        sink = sink_factory(channels, spec.samplerate) if sink_factory else None
        # On the bench the world may run several times faster than the wall clock: schedule
        # actions two (bench) seconds ahead, 0.4 s of wall time, so a host slowed down by a
        # loaded machine is not late.
        tower = RealTower(box, _analyser(spec, bench), channels, spec.samplerate, sink=sink,
                          lead_s=2.0 if bench is not None else 0.3)
    except BaseException:
        if box is not None:
            box.close()
        if bench is not None:
            bench.close()
        raise
    return Target(tower, spec, bench)


def load_probe_map(path: str | os.PathLike) -> dict[str, str]:
    """Read a channel-map file (captures.channelmap format) for the rig's analyser: probes
    D0..D15, each on a tower pin or SYNC; errors name the file."""
    from captures.channelmap import load_channel_map

    cmap = load_channel_map(path)
    try:
        validate_spec(TargetSpec("fake", channel_map=cmap))
        from rig.towers.real import probe_channels
        probe_channels(cmap)
    except RigError as exc:
        raise RigError(f"{path}: {str(exc).removeprefix('channel map: ')}") from None
    return cmap
