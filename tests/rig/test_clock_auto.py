"""``rig check --clock auto`` for any firmware: a tower whose RC oscillator is off its nominal
425 kHz is found equivalent once its clock is fitted from the intervals its firmware times."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from analysis.base import AnalysisError
from analysis.compare import fit_interval_ratio
from towerlab.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "captures"


def _flashing_session(clock_hz: float) -> list[dict]:
    """Return the events of a toneless firmware at ``clock_hz``: a press at fixed wall times,
    then a display flashing every 120,000 clocks and a lamp 5,000 clocks after the press."""
    events = []
    for press in (1.0, 4.0, 7.5):
        events.append({"t": press, "type": "button", "button": "MOVE", "action": "press"})
        events.append({"t": press + 5_000 / clock_hz, "type": "lamp", "lamp": "upper",
                       "on": 1})
        for n in range(10):
            events.append({"t": press + (8_000 + n * 120_000) / clock_hz, "type": "display",
                           "text": "--" if n % 2 == 0 else "  "})
    return sorted(events, key=lambda e: e["t"])


def test_the_clock_fit_needs_no_tone_table_only_intervals_the_firmware_times():
    recorded = _flashing_session(437_750)
    nominal = _flashing_session(425_000)
    fit = fit_interval_ratio(recorded, nominal)
    assert fit.ratio_tones is None and fit.stretches == 3
    assert 425_000 / fit.ratio == pytest.approx(437_750, rel=2e-4)


def test_the_clock_fit_takes_the_inputs_from_the_side_that_lists_them():
    recorded = [e for e in _flashing_session(437_750) if e["type"] != "button"]
    fit = fit_interval_ratio(recorded, _flashing_session(425_000))
    assert fit.stretches == 3
    assert 425_000 / fit.ratio == pytest.approx(437_750, rel=2e-4)


def test_the_clock_fit_of_two_sessions_with_nothing_in_common_says_so():
    with pytest.raises(AnalysisError, match="no internally timed interval"):
        fit_interval_ratio([{"t": 1.0, "type": "display", "text": "L1"}],
                           [{"t": 1.0, "type": "display", "text": "P2"}])


@pytest.fixture(scope="module")
def fast_recording(tmp_path_factory):
    """Record the shared tower_test script on the bench, the virtual tower's clock 3 % fast."""
    from tests.conftest import require_file
    from tests.rig.conftest import _need_avr_tools
    from rig.usbsim import find_firmware

    _need_avr_tools()
    require_file(find_firmware(), "sigrok-firmware-fx2lafw", "fx2lafw firmware")
    rec = tmp_path_factory.mktemp("clock") / "fast"
    code = main(["rig", "record", "--script", str(DATA / "tower_test" / "script.txt"),
                 "--target", "sim", "--tower-speed", "1.03", "--out", str(rec)], io.StringIO())
    assert code == 0
    return rec


def test_a_tower_three_percent_fast_on_the_demo_firmware_checks_equivalent_with_clock_auto(
        fast_recording):
    out = io.StringIO()
    code = main(["rig", "check", str(fast_recording), "--target", "emu", "--clock", "auto"], out)
    first, clock = out.getvalue().splitlines()
    assert code == 0 and first.startswith("equivalent")
    hz = float(clock.split("clock: ")[1].split(" Hz")[0])
    assert hz == pytest.approx(425_000 * 1.03, rel=1e-3)


def test_a_tower_three_percent_fast_is_not_equivalent_at_the_nominal_clock(fast_recording):
    out = io.StringIO()
    assert main(["rig", "check", str(fast_recording), "--target", "emu"], out) == 1
    assert out.getvalue().startswith("first difference")


def test_a_wrong_recording_still_gives_the_first_difference_with_clock_auto(fast_recording,
                                                                           tmp_path):
    import shutil
    wrong = tmp_path / "wrong"
    shutil.copytree(fast_recording, wrong)
    lines = (wrong / "events.jsonl").read_text().splitlines()
    kept = [line for line in lines
            if not (json.loads(line).get("lamp") == "middle" and json.loads(line)["on"] == 1)]
    assert len(kept) == len(lines) - 1
    (wrong / "events.jsonl").write_text("\n".join(kept) + "\n")
    out = io.StringIO()
    assert main(["rig", "check", str(wrong), "--target", "emu", "--clock", "auto"], out) == 1
    report = out.getvalue().splitlines()
    assert report[0].endswith("only in B") and "lamp=middle on=1" in report[2]


def test_clock_auto_on_a_target_without_a_clock_is_one_line(fast_recording, capsys):
    code = main(["rig", "check", str(fast_recording), "--target", "fake", "--clock",
                 "auto"], io.StringIO())
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "takes a clock" in err


@pytest.mark.parametrize("speed", ["0", "-1", "nan", "5"])
def test_a_tower_speed_outside_half_to_double_is_one_line(speed, tmp_path, capsys):
    script = tmp_path / "s.txt"
    script.write_text("1 MOVE 0.1\n")
    out = tmp_path / "never"
    code = main(["rig", "record", "--script", str(script), "--target", "sim", "--tower-speed",
                 speed, "--out", str(out)], io.StringIO())
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "tower speed" in err and not out.exists()
