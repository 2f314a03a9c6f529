"""The fx2lafw driver (rig/fx2lafw.py) against the simulated FX2 on a pyusb backend
(rig/usbsim.py): firmware upload, re-enumeration, vendor requests, bulk samples, faults."""
from __future__ import annotations

import time

import numpy as np
import pytest

from rig.errors import FirmwareError, UsbError, UsbPermissionError
from rig.fx2lafw import Fx2lafw, sample_delay
from rig.usbsim import CYPRESS_IDS, FX2LAFW_IDS, SimFX2, SimUsbBackend

CHANNELS16 = [f"D{i}" for i in range(16)]


class World:
    """A hand-cranked clock and the board it feeds."""

    def __init__(self, **kw):
        self.t = 0.0
        self.dev = SimFX2(lambda: self.t, **kw)
        self.backend = SimUsbBackend([self.dev])

    def driver(self, **kw) -> Fx2lafw:
        return Fx2lafw(backend=self.backend, clock=lambda: self.t, **kw)

    def run(self, seconds: float, pattern=lambda k: (k // 100) & 1, slice_s=0.002):
        """Produce samples for ``seconds`` of bench time, ``pattern(sample index)``."""
        for _ in range(int(round(seconds / slice_s))):
            n0 = self.dev.samples_made
            n = int(round(slice_s * self.dev.samplerate))
            self.t += slice_s
            # wait for FIFO room as long as the host needs (a loaded CI machine), so that only
            # a held bus drops samples; a reader that never drains still fails the test
            self.dev.push(np.asarray(pattern(np.arange(n0, n0 + n))), wait_s=10.0)


@pytest.fixture
def world(has_fx2lafw_firmware):
    return World()


def test_samplerates_use_libsigrok_clock_and_delay():
    assert sample_delay(250_000) == (0x40, 191)
    assert sample_delay(1_000_000) == (0x40, 47)
    assert sample_delay(20_000) == (0x00, 1499)


def test_a_samplerate_fx2lafw_cannot_make_is_refused():
    with pytest.raises(UsbError, match="3.3e\\+06 Hz is not one fx2lafw can make"):
        sample_delay(3_300_000)


def test_a_blank_fx2_gets_fx2lafw_and_comes_back_as_sigrok_fx2lafw(world):
    assert world.dev.ids == CYPRESS_IDS
    fx = world.driver().open()
    assert world.dev.ids == FX2LAFW_IDS
    assert world.dev.firmware_name == "fx2lafw-cypress-fx2.fw"
    assert fx.version == (1, 4)


def test_sixteen_channel_samples_arrive_as_changes(world):
    acq = world.driver().open().start(250_000, CHANNELS16)
    world.run(0.2)
    assert acq.wait_for(50_000, timeout=5)
    cap = acq.stop()
    assert cap.info.total_samples == 50_000 and not cap.gaps
    assert cap.times[:3].tolist() == [0, 100, 200]
    assert cap.words[:3].tolist() == [0, 1, 0]


def test_eight_channels_use_one_byte_per_sample(world):
    acq = world.driver().open().start(1_000_000, CHANNELS16[:8])
    world.run(0.01, pattern=lambda k: k & 0xFF)
    assert acq.wait_for(10_000, timeout=5)
    cap = acq.stop()
    assert not world.dev.wide and len(cap.times) == 10_000


def test_a_file_that_is_not_fx2lafw_firmware_is_reported(world, tmp_path):
    bogus = tmp_path / "not-fx2lafw.fw"
    bogus.write_bytes(bytes(range(256)) * 8)
    with pytest.raises(FirmwareError, match="did not come back after loading .*not an fx2lafw"):
        world.driver(firmware=str(bogus), renumerate_timeout=0.3).open()


def test_no_usb_permission_says_to_install_the_udev_rule(world):
    world.dev.deny_access = True
    with pytest.raises(UsbPermissionError, match="permission denied .*60-libsigrok.rules"):
        world.driver().open()


def test_no_analyser_on_the_bus_is_one_line():
    with pytest.raises(UsbError, match="no fx2lafw-compatible analyser found"):
        Fx2lafw(backend=SimUsbBackend([])).open()


def test_an_analyser_unplugged_mid_capture_leaves_the_data_and_a_gap(world):
    acq = world.driver().open().start(250_000, CHANNELS16)
    world.run(0.1)
    assert acq.wait_for(25_000, timeout=5)
    world.dev.unplug()
    world.t += 0.05
    deadline = time.monotonic() + 5
    while acq.running and time.monotonic() < deadline:
        time.sleep(0.01)
    cap = acq.stop()
    assert "disappeared" in acq.fault
    assert cap.gaps and cap.gaps[0].reason == "analyser unplugged"
    assert cap.gaps[0].start == 25_000 and cap.gaps[0].end == 37_500


def test_samples_lost_while_the_bus_is_held_are_recorded_as_an_overrun_gap(has_fx2lafw_firmware):
    world = World(fifo_bytes=8192)
    acq = world.driver(buffer_bytes=8192, slack_s=0.01).open().start(250_000, CHANNELS16)
    world.run(0.05)
    world.dev.hold_bus(0.1)
    world.run(0.1)
    world.run(0.05)
    # the reader drains what the device still holds: wait for it, with a deadline
    assert acq.wait_for(world.dev.samples_made - 4096 - 2500, timeout=30)
    cap = acq.stop()
    lost = world.dev.samples_dropped
    assert lost > 0
    (gap,) = cap.gaps
    assert gap.reason.startswith("overrun")
    assert gap.end - gap.start == pytest.approx(lost, abs=4096 + 2500)
    assert cap.info.total_samples == pytest.approx(world.dev.samples_made, abs=4096 + 2500)
