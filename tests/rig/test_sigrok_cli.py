"""The sigrok-cli backend (rig/sigrok_cli.py), run against sigrok-cli's demo driver."""
from __future__ import annotations


import pytest

from rig.errors import UsbError
from rig.sigrok_cli import SigrokCli

DEMO16 = "demo:logic_channels=16:analog_channels=0"


def test_the_demo_device_reports_sixteen_logic_channels(sigrok_tool):
    assert SigrokCli(DEMO16).logic_channels() == 16


def test_a_continuous_capture_streams_changes_until_stopped(sigrok_tool):
    acq = SigrokCli(DEMO16).start(100_000, [f"D{i}" for i in range(16)])
    assert acq.wait_for(20_000, timeout=30), "sigrok-cli's demo gave under 20,000 samples"
    cap = acq.stop()
    assert cap.info.total_samples > 10_000
    assert len(cap.times) > 100 and not cap.gaps and acq.fault is None


def test_an_unknown_sigrok_driver_is_one_line(sigrok_tool):
    with pytest.raises(UsbError, match="sigrok-cli cannot use device 'nosuchdriver'"):
        SigrokCli("nosuchdriver").start(100_000, ["D0"])
