"""The button-box firmware (rig/firmware/buttonbox.c) running on a simulated ATmega328P in
simavr, driven by the host code over its pseudo-terminal exactly as over /dev/ttyACM0.

Device times and AVR times differ by a constant (Timer1 starts after reset), so timings are
checked as differences between pin changes."""
from __future__ import annotations

import time

import pytest

from rig import protocol as p
from rig.errors import LinkError


def test_hello_reports_protocol_1_and_firmware_1_1(host):
    box, _ = host
    info = box.hello()
    assert (info.protocol, info.firmware, info.buttons) == (1, (1, 1), 12)


def test_the_firmware_this_host_is_written_for_is_not_called_outdated(host):
    box, _ = host
    assert box.hello().outdated() is None


def test_a_box_on_firmware_1_0_is_said_to_lack_reset_reports_and_how_to_flash_it():
    from rig.buttonbox import Hello

    note = Hello(1, (1, 0), 12, 0).outdated()
    assert note.startswith("firmware 1.0 cannot say that the box was reset")
    assert "towerlab rig firmware --flash" in note and "\n" not in note


def test_a_press_with_a_hold_closes_the_key_for_that_long(host):
    box, sim = host
    box.hello()
    ack = box.press("YES/BUY", hold_ms=200)
    sim.wait_until(sim.sim.now_us + 400_000)
    (closed, opened), = sim.key_intervals("YES/BUY")
    assert ack.status == p.ACK_DONE
    assert opened - closed == pytest.approx(200_000, abs=30)


def test_scheduled_actions_keep_their_device_time_spacing(host):
    box, sim = host
    now = box.status().now_us
    # 1 s ahead: the AVR waits for the host (it stays within 5 ms of the host's last
    # word), so both commands arrive first however busy the machine is.
    box.press("MOVE", at_us=now + 1_000_000)
    box.release("MOVE", at_us=now + 1_000_000 + 123_457)
    sim.wait_until(now + 1_300_000)
    (closed, opened), = sim.key_intervals("MOVE")
    assert opened - closed == pytest.approx(123_457, abs=30)


def test_power_and_sync_drive_their_own_pins(host):
    box, sim = host
    box.power(True)
    ack = box.sync(width_us=500)
    sim.wait_until(sim.sim.now_us + 20_000)
    powers = [c for c in sim.changes if c.power]
    syncs = [c.t_us for c in sim.changes if c.sync]
    assert powers and syncs and ack.status == p.ACK_DONE
    ends = [c.t_us for c in sim.changes if not c.sync and c.t_us > syncs[0]]
    assert ends[0] - syncs[0] == pytest.approx(500, abs=30)


def test_a_repeated_frame_is_answered_again_but_not_run_twice(host):
    box, sim = host
    box.hello()
    raw = p.encode(p.CMD_PRESS, 77, button=4, hold_ms=50, at_us=p.NOW)
    box._write(raw)
    sim.wait_until(sim.sim.now_us + 150_000)
    box._write(raw)
    sim.wait_until(sim.sim.now_us + 150_000)
    # Read until both answers are in (they are sent by then; a loaded host may take a while
    # to collect them), then say what came.
    replies, deadline = [], time.monotonic() + 10
    while len([f for f in replies if f.type == p.REP_ACK]) < 2 and time.monotonic() < deadline:
        replies += box._parser.feed(box._read())
    assert [f.seq for f in replies if f.type == p.REP_ACK] == [77, 77]
    assert len(sim.key_intervals("BAZAAR")) == 1


def test_bytes_corrupted_on_the_way_to_the_box_are_dropped_and_the_press_happens_once(host):
    box, sim = host
    box.hello()
    sim.sim.corrupt_to_box(4)
    box.press("HAGGLE", hold_ms=30)
    sim.wait_until(sim.sim.now_us + 100_000)
    status = box.status()
    assert box.resends >= 1 and status.crc_errors >= 1
    assert len(sim.key_intervals("HAGGLE")) == 1


def test_a_corrupted_reply_is_detected_and_the_resend_does_not_press_again(host):
    box, sim = host
    box.hello()
    sim.sim.corrupt_to_host(6)
    box.press("CLEAR", hold_ms=30)
    sim.wait_until(sim.sim.now_us + 100_000)
    assert box.resends >= 1 and box.dropped_bytes > 0
    assert len(sim.key_intervals("CLEAR")) == 1


def test_the_watchdog_releases_every_key_when_the_host_goes_quiet(host):
    box, sim = host
    box.set_watchdog(100)
    box.press("DARK TOWER")
    start = sim.sim.now_us
    sim.wait_until(start + 300_000)
    status = box.status()
    (closed, opened), = sim.key_intervals("DARK TOWER")
    assert status.watchdog_tripped and status.buttons == 0
    # counted from the last good frame (just before the key closed), checked every 1.024 ms
    assert 99_500 <= opened - closed <= 101_500


def test_an_out_of_range_button_is_refused_by_the_firmware(host):
    box, _ = host
    with pytest.raises(LinkError, match="button number out of range"):
        box.press(12)


def test_device_time_keeps_increasing_across_timer_wraps(host):
    box, sim = host
    first = box.status().now_us
    sim.wait_until(sim.sim.now_us + 70_000)      # past two 32.8 ms Timer1 overflows
    later = box.status().now_us
    assert 60_000 < later - first < 200_000


def test_an_unplugged_box_is_a_one_line_link_lost_error(host):
    from rig.errors import LinkLostError
    box, sim = host
    box.hello()
    sim.sim.unplug()
    time.sleep(0.05)
    with pytest.raises(LinkLostError, match="went away"):
        for _ in range(3):
            box.status()


def test_queued_actions_on_one_key_keep_their_order(host):
    box, sim = host
    now = box.status().now_us
    for k in range(3):
        box.press("INVENTORY", at_us=now + 1_000_000 + k * 50_000)
        box.release("INVENTORY", at_us=now + 1_020_000 + k * 50_000)
    sim.wait_until(now + 1_300_000)
    spans = sim.key_intervals("INVENTORY")
    assert [round((b - a) / 1000) for a, b in spans] == [20, 20, 20]
    assert [round((spans[k + 1][0] - spans[k][0]) / 1000) for k in range(2)] == [50, 50]


def test_a_full_schedule_is_refused_not_dropped(host):
    box, _ = host
    now = box.status().now_us
    for k in range(32):
        box.release("REPEAT", at_us=now + 1_000_000 + k)
    with pytest.raises(LinkError, match="schedule full"):
        box.release("REPEAT", at_us=now + 2_000_000)


def test_release_all_now_cancels_scheduled_presses(host):
    box, sim = host
    now = box.status().now_us
    # Ahead of the AVR, which waits for the host: the release-all arrives first.
    box.press("FRONTIER", hold_ms=10, at_us=now + 1_000_000)
    box.release_all()
    sim.wait_until(now + 1_200_000)
    assert sim.key_intervals("FRONTIER") == [] and not box.status().pending


def test_a_hello_is_always_answered_afresh(host):
    box, sim = host
    box.hello()                     # the UART is up (a byte sent before it is lost, as on a
    raw = p.encode(p.CMD_HELLO, 9)  # real board during reset)
    times = []
    for _ in range(2):
        box._write(raw)
        sim.wait_until(sim.sim.now_us + 20_000)
        frames = []
        deadline = time.monotonic() + 5
        while not frames and time.monotonic() < deadline:
            frames = [f for f in box._parser.feed(box._read()) if f.type == p.REP_HELLO]
        times.append(frames[0].fields().now_us)
    assert times[1] - times[0] >= 15_000
