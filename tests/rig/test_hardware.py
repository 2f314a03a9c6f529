"""Opt-in checks on a real bench (pytest --hw; the button box on $TOWERLAB_BOX_PORT, default
/dev/ttyACM0, and an fx2lafw analyser on USB)."""
from __future__ import annotations

import os

import pytest

PORT = os.environ.get("TOWERLAB_BOX_PORT", "/dev/ttyACM0")


@pytest.mark.hw
def test_the_real_button_box_answers_hello_and_status():
    from rig.buttonbox import ButtonBox
    box = ButtonBox(PORT)
    try:
        assert box.hello().protocol == 1
        assert box.status().now_us > 0
    finally:
        box.close()


@pytest.mark.hw
def test_the_real_analyser_loads_fx2lafw_and_streams():
    import time

    from rig.fx2lafw import Fx2lafw
    acq = Fx2lafw().open().start(1_000_000, [f"D{i}" for i in range(16)])
    time.sleep(0.5)
    cap = acq.stop()
    assert cap.info.total_samples > 100_000 and not cap.gaps
