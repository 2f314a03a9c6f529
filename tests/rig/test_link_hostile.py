"""The host <-> button-box link treated as a hostile field would: bursts, truncated and split
frames, resets and wraps, on the real firmware (rig/firmware/buttonbox.c) in simavr behind its
pseudo-terminal, the same code path as /dev/ttyACM0 (tests/rig/conftest.py, SteppedBox).

Every wait is in the simulated AVR's time (``SteppedBox.wait_until``), never the wall clock's.
"""
from __future__ import annotations

import time

import pytest

from rig import protocol as p


def _read_frames(box, want: int, timeout: float = 10.0) -> list:
    """Read until ``want`` frames are in or ``timeout`` wall seconds pass (the replies are sent
    by then in AVR time; a loaded host may take a while to collect them)."""
    out, deadline = [], time.monotonic() + timeout
    while len(out) < want and time.monotonic() < deadline:
        out += box._parser.feed(box._read())
    return out


def test_a_burst_of_commands_sent_without_waiting_does_not_delay_a_scheduled_press(host):
    box, sim = host
    now = box.status().now_us
    box.press("MOVE", hold_ms=20, at_us=now + 100_000)
    # 300 STATUS frames at once: their replies (19 bytes each) take longer on the line than
    # the commands, so the box's transmit ring fills while the press falls due.
    box._write(b"".join(p.encode(p.CMD_STATUS, 1 + k % 250) for k in range(300)))
    sim.wait_until(sim.sim.now_us + 400_000)
    (closed, opened), = sim.key_intervals("MOVE")
    # within the 0.25 ms an action may wait while a frame is handled (rig/README.md, 6)
    assert opened - closed == pytest.approx(20_000, abs=250)


def test_commands_lost_to_a_burst_are_counted_by_the_box(host):
    box, sim = host
    before = box.status().crc_errors
    box._write(b"".join(p.encode(p.CMD_STATUS, 1 + k % 250) for k in range(300)))
    sim.wait_until(sim.sim.now_us + 400_000)
    answered = len([f for f in _read_frames(box, 300, timeout=5) if f.type == p.REP_STATUS])
    lost = 300 - answered
    # the receive ring overflows: what it dropped is counted, not silently lost
    assert lost > 0 and box.status().crc_errors - before >= lost


@pytest.fixture(params=[(1 << 31) - 1_500_000, (1 << 32) - 1_500_000],
                ids=["at-2**31-us", "at-2**32-us"])
def host_near_wrap(request):
    """Return (ButtonBox, SteppedBox) on firmware whose device clock starts 1.5 s before
    2**31 or 2**32 us (a box on for 35.8 or 71.6 min)."""
    from rig.build import build_firmware
    from rig.buttonbox import ButtonBox
    from tests.rig.conftest import SteppedBox, _need_avr_tools
    _need_avr_tools()
    sim = SteppedBox(firmware=build_firmware(defines={"TIME_AT_RESET_US": request.param}))
    box = ButtonBox(sim.sim.port, link=sim.link())
    yield box, sim
    box.close()
    sim.close()


def test_device_time_and_a_held_key_run_on_through_the_clock_wrap(host_near_wrap):
    box, sim = host_near_wrap
    start = box.hello().now_us
    box.press("TOMB/RUIN", at_us=start + 100_000)            # held until released
    box.release("TOMB/RUIN", at_us=start + 3_100_000)       # 3 s later, past the wrap
    times = [start]
    for k in range(1, 8):                    # a status every 0.5 s feeds the 2 s watchdog
        sim.wait_until(sim.sim.now_us + 500_000)
        status = box.status()
        times.append(status.now_us)
        assert not status.watchdog_tripped, f"the watchdog tripped by {status.now_us} us"
    assert all(0 < b - a < 1_000_000 for a, b in zip(times, times[1:])), times
    (closed, opened), = sim.key_intervals("TOMB/RUIN")
    assert opened - closed == pytest.approx(3_000_000, abs=30)


def test_a_box_reset_mid_session_is_a_one_line_link_lost_error(host):
    from rig.errors import LinkLostError
    box, sim = host
    box.hello()
    box.press("SANCTUARY/CITADEL")                   # held until released
    sim.wait_until(sim.sim.now_us + 50_000)
    sim.sim.reset()                                  # the box's supply dips: the key opens
    sim.wait_until(sim.sim.now_us + 50_000)
    with pytest.raises(LinkLostError, match=r"restarted \(reset or lost power\)") as err:
        box.status()
    assert "\n" not in str(err.value)
    assert sim.sim.keys == frozenset()


def test_a_new_host_on_a_reset_box_starts_its_session_with_hello(host):
    box, sim = host
    sim.sim.reset()
    sim.wait_until(sim.sim.now_us + 50_000)
    assert box.status().restarted                    # no hello yet: nothing was lost
    box.hello()
    assert not box.status().restarted


@pytest.mark.parametrize("cut, gap_us", [(3, 0), (4, 0), (10, 0), (13, 0),
                                         (3, 50_000), (5, 50_000), (10, 50_000)])
def test_a_frame_cut_short_does_not_swallow_the_good_frame_after_it(host, cut, gap_us):
    # a host that died mid-write, then (at once or 50 ms later) a new one: the box must
    # answer the new one's first frame, not take its bytes as the rest of the dead one's
    box, sim = host
    box.hello()
    dead = p.encode(p.CMD_PRESS, 200, button=3, hold_ms=10, at_us=p.NOW)[:cut]
    good = p.encode(p.CMD_STATUS, 42)
    if gap_us:
        box._write(dead)
        sim.wait_until(sim.sim.now_us + gap_us)
        box._write(good)
    else:
        box._write(dead + good)
    sim.wait_until(sim.sim.now_us + 20_000)
    frames = _read_frames(box, 1, timeout=5)
    assert [(f.type, f.seq) for f in frames] == [(p.REP_STATUS, 42)]
    assert sim.key_intervals("HAGGLE") == []


def test_a_frame_split_into_single_byte_writes_is_one_command(host):
    box, sim = host
    box.hello()
    for b in p.encode(p.CMD_PRESS, 43, button=3, hold_ms=10, at_us=p.NOW):
        box._write(bytes([b]))
        sim.wait_until(sim.sim.now_us + 300)         # a few byte times apart on the line
    sim.wait_until(sim.sim.now_us + 30_000)
    frames = _read_frames(box, 1, timeout=5)
    assert [(f.type, f.seq) for f in frames] == [(p.REP_ACK, 43)]
    assert len(sim.key_intervals("HAGGLE")) == 1


def test_release_all_now_during_a_sync_pulse_ends_the_pulse(host):
    box, sim = host
    box.sync(width_us=50_000)
    box.release_all()                 # cancels the pulse's scheduled end with the rest
    sim.wait_until(sim.sim.now_us + 100_000)
    assert not sim.changes[-1].sync and not box.status().pending
