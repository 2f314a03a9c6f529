"""A real Return to Dark Tower over the radio: opt-in, ``pytest --hw --tower=rtdt:ADDRESS``
(or ``--tower=rtdt:`` plus the address ``towerlab rtdt scan`` prints)."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.hw


@pytest.fixture
def real_rtdt(request, rtdt_tower):
    if not request.config.getoption("--tower").startswith("rtdt:"):
        pytest.skip("needs a real tower: run with --hw --tower=rtdt:ADDRESS")
    return rtdt_tower


def test_a_real_tower_reports_its_battery_within_a_second(real_rtdt):
    real_rtdt.advance(1.0)
    assert any(e["type"] == "battery" for e in real_rtdt.events())


def test_a_real_tower_calibrates_and_turns_a_drum(real_rtdt):
    real_rtdt.calibrate()
    real_rtdt.rotate("top", "east")
    real_rtdt.advance(10.0)
    drums = [e for e in real_rtdt.events() if e["type"] == "drum" and e["drum"] == "top"]
    assert drums[-1]["position"] == "east"
