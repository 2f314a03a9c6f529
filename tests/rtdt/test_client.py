"""RtdtTower / RtdtClient through bleak, against the virtual tower on the simulated radio.

Every wait is simulated time (rig/rtdt/clock.py): the tests assert exact tower times and never
race the wall clock; a wait that can never end raises at once (VirtualClockDeadlock)."""
from __future__ import annotations

import asyncio

import pytest
from bleak import BleakClient

from captures.rtdt import RtdtParams
from emulator.rtdt import VirtualRtdt
from rig.rtdt.clock import VirtualClockDeadlock, VirtualClockLoop
from rig.rtdt.simble import SimBleakClient, SimBleakScanner, SimRadio
from rig.rtdt.tower import RtdtClient, RtdtError, RtdtTower, scan

P = RtdtParams()


def _of(tower, kind):
    return [e for e in tower.events() if e["type"] == kind]


@pytest.fixture
def tower():
    t = RtdtTower.simulated()
    yield t
    t.close()


@pytest.fixture
def calibrated(tower):
    tower.calibrate()
    return tower


def test_the_client_finds_the_tower_by_name_and_talks_through_bleak(tower):
    assert isinstance(tower.client._client, BleakClient)
    assert tower.client._client.backend_id == "SimBleakClient"
    assert tower.client.address == P.sim_address


def test_scanning_lists_towers_by_their_advertised_name():
    radio = SimRadio([VirtualRtdt(P), VirtualRtdt(P, address="DA:4C:10:00:00:02"),
                      VirtualRtdt(P, address="DA:4C:10:00:00:03", name="SomeSpeaker")])
    loop = VirtualClockLoop()
    try:
        found = loop.run_until_complete(scan(P, 1.0, SimBleakScanner, radio=radio))
    finally:
        loop.close()
    assert [a for a, _, _ in found] == ["DA:4C:10:00:00:01", "DA:4C:10:00:00:02"]


def test_scanning_by_service_finds_only_towers_that_advertise_the_uart_uuid():
    with_uuid = RtdtParams(scan_by_service=True, sim_advertise_service=True)
    radio = SimRadio([VirtualRtdt(RtdtParams()),
                      VirtualRtdt(with_uuid, address="DA:4C:10:00:00:02")])
    loop = VirtualClockLoop()
    try:
        found = loop.run_until_complete(scan(with_uuid, 1.0, SimBleakScanner, radio=radio))
    finally:
        loop.close()
    assert [a for a, _, _ in found] == ["DA:4C:10:00:00:02"]


def test_no_tower_in_range_is_a_one_line_error_after_the_scan_timeout():
    loop = VirtualClockLoop()
    client = RtdtClient(P, client_backend=SimBleakClient, scanner_backend=SimBleakScanner,
                        backend_kwargs={"radio": SimRadio([])})
    try:
        with pytest.raises(RtdtError, match="no Bluetooth LE device named 'ReturnToDarkTower' "
                                            "heard in 10 s"):
            loop.run_until_complete(client.open())
        assert loop.time() == pytest.approx(10.0, abs=0.2)
    finally:
        loop.close()


def test_the_first_battery_packet_arrives_on_subscribing(tower):
    tower.advance(0.1)
    first = _of(tower, "battery")[0]
    assert tower.client.notifications[0]["data"] == "07 00 00 11 94"     # 0x1194 = 4500 mV
    assert first["mv"] == 4500 and first["percent"] == 100
    assert 0 <= first["t"] - tower.client.subscribed_at <= 0.05


def test_calibration_waits_for_the_tower_and_reports_every_drum(tower):
    tower.calibrate()
    cal = _of(tower, "calibration")
    assert len(cal) == 1 and cal[0]["t"] == pytest.approx(P.sim_calibration_s, abs=0.2)
    assert [(e["drum"], e["position"], e["calibrated"]) for e in _of(tower, "drum")] == [
        ("top", "north", 1), ("middle", "north", 1), ("bottom", "north", 1)]


def test_a_drum_cannot_be_turned_before_calibration(tower):
    with pytest.raises(RtdtError, match="the top drum is not calibrated"):
        tower.rotate("top", "east")
    assert tower.client.sent == []


def test_a_rotation_shows_the_new_side_then_the_towers_duration_report(calibrated):
    t0 = calibrated.now
    calibrated.rotate("top", "south")
    calibrated.advance(5)
    drum = _of(calibrated, "drum")[-1]
    rot = _of(calibrated, "rotation")[-1]
    assert (drum["drum"], drum["position"]) == ("top", "south")
    dur = P.sim_rotation_base_s + 2 * P.sim_rotation_per_side_s
    assert rot["ms"] == round(dur * 1000)
    assert rot["t"] == pytest.approx(t0 + dur, abs=0.1)


def test_each_state_write_starts_from_the_last_state_with_sound_cleared(calibrated):
    calibrated.sound(17)
    calibrated.light("top", "north", "on")
    last = bytes.fromhex(calibrated.client.sent[-1]["data"])
    assert last[15] == 0 and last[3] == 0x30 and last[1] & 0x10    # top still calibrated


def test_commands_keep_one_in_flight_and_the_gap_so_none_is_dropped(calibrated):
    for n in (1, 2, 3, 4, 5):
        calibrated.sound(n)
    writes = calibrated.simulated_tower.writes
    assert all(w.result == "ok" for w in writes)
    times = [w.t for w in writes[1:]]
    assert min(b - a for a, b in zip(times, times[1:])) >= P.command_gap_s
    assert [e["sound"] for e in _of(calibrated, "sound")] == [1, 2, 3, 4, 5]


def test_a_sound_event_is_timed_at_the_towers_echo(calibrated):
    calibrated.sound(0x71)
    sent = calibrated.client.sent[-1]["t"]
    ev = _of(calibrated, "sound")[-1]
    assert ev["sound"] == 0x71 and sent < ev["t"] <= sent + 0.1


def test_a_sequence_returns_when_its_animation_ends(calibrated):
    start = calibrated.now
    calibrated.sequence(0x0E)
    ev = _of(calibrated, "sequence")[-1]
    assert ev["name"] == "sealReveal"
    assert ev["t"] - start == pytest.approx(P.sequence_s(0x0E), abs=0.1)


def test_a_skull_drop_becomes_a_skull_event_and_a_reset_clears_it(calibrated):
    calibrated.skull_drop()
    calibrated.advance(0.5)
    calibrated.reset_skulls()
    assert [(e["count"], e["drop"]) for e in _of(calibrated, "skull")] == [(1, 1), (0, 0)]


def test_a_dropped_link_is_reconnected_and_says_the_calibration_was_lost(calibrated):
    calibrated.drop_link()
    calibrated.advance(3)
    links = _of(calibrated, "link")
    assert [e["up"] for e in links] == [0, 1]
    assert "calibration was lost" in links[1]["reason"]
    assert links[1]["t"] - links[0]["t"] == pytest.approx(
        max(P.reconnect_delay_s, P.sim_reconnect_after_s), abs=0.2)
    with pytest.raises(RtdtError, match="not calibrated"):
        calibrated.rotate("top", "east")
    calibrated.calibrate()
    calibrated.rotate("top", "east")


def test_a_silent_drop_is_noticed_when_the_battery_packets_stop(calibrated):
    calibrated.drop_link(silent=True)
    last_battery = [n["t"] for n in calibrated.client.notifications
                    if n["data"].startswith("07")][-1]
    calibrated.advance(6)
    down = _of(calibrated, "link")[0]
    assert down["up"] == 0 and down["reason"] == "no battery packet for 3 s"
    assert P.link_timeout_s < down["t"] - last_battery <= P.link_timeout_s + 0.25
    assert _of(calibrated, "link")[1]["up"] == 1


def test_a_command_in_flight_when_the_link_drops_is_sent_again_after_reconnecting():
    tower = RtdtTower.simulated()
    try:
        tower.calibrate()

        async def scenario():
            task = asyncio.ensure_future(tower.client.sequence(0x13))   # echo after 16 s
            await asyncio.sleep(2.0)
            tower.radio.drop_link(tower.client.address)
            await task
        tower._run(scenario())
        seq = [s for s in tower.client.sent if s["command"] == "sequence 19"]
        assert [s["result"] for s in seq] == ["link lost before the reply; resent", "answered"]
        assert _of(tower, "sequence")[0]["t"] == pytest.approx(seq[1]["t"] + 16.0, abs=0.1)
    finally:
        tower.close()


def test_a_low_battery_is_an_event_and_a_warning(calibrated):
    calibrated.set_battery(3100)
    calibrated.advance(0.5)
    low = _of(calibrated, "battery")[-1]
    assert low["low"] == 1 and low["mv"] <= 3100
    assert any("battery low" in w for w in calibrated.client.warnings)


def test_the_tower_that_never_confirms_calibration_fails_after_the_timeout():
    p = RtdtParams(sim_calibration_reply="state", calibration_done_on="calibration")
    tower = RtdtTower.simulated(p)
    try:
        with pytest.raises(RtdtError, match="calibrate: no reply from the tower in 60 s"):
            tower.calibrate()
        assert tower.now == pytest.approx(60.0, abs=0.5)
    finally:
        tower.close()


def test_time_passes_exactly_as_advanced(tower):
    start = tower.now
    tower.advance(100.0)
    assert tower.now - start == pytest.approx(100.0, abs=1e-9)


def test_the_virtual_clock_refuses_a_wait_that_can_never_end():
    loop = VirtualClockLoop()
    try:
        with pytest.raises(VirtualClockDeadlock, match="no timer is set"):
            loop.run_until_complete(loop.create_future())
    finally:
        loop.close()


def test_the_simulated_backend_refuses_to_touch_the_dfu_service(tower):
    async def poke():
        dfu = tower.client._client.services.get_characteristic(
            "8ec90003-f315-4f60-9fb8-838830daea50")
        await tower.client._client.write_gatt_char(dfu, b"\x01", response=True)
    from bleak.exc import BleakError
    with pytest.raises(BleakError, match="brick"):
        tower._run(poke())


def test_the_device_information_names_the_tower(tower):
    info = tower.device_info()
    assert info["manufacturer"] == "Restoration Games LLC" and info["hardware"] == "1.11"


def _notify(tower, data: bytes) -> None:
    async def run():
        tower.radio.notify(tower.client.address, data)
    tower._run(run())


def test_an_unprompted_unjam_report_is_a_notice_and_not_a_reply(calibrated):
    _notify(calibrated, b"\x03\x01")
    calibrated.sound(5)
    notice = _of(calibrated, "notice")
    assert [(e["kind"], e["data"]) for e in notice] == [("unjam_jiggle", "03 01")]
    assert _of(calibrated, "sound")[0]["t"] > notice[0]["t"]


def test_bytes_that_are_no_notification_become_a_notice_and_a_warning(calibrated):
    _notify(calibrated, b"\x42\x00\x01")
    calibrated.advance(0.5)
    assert _of(calibrated, "notice")[0]["kind"] == "unparsed"
    assert any("unknown type 0x42" in w for w in calibrated.client.warnings)
    calibrated.rotate("top", "west")                      # the session goes on


class _BrownOut(VirtualRtdt):
    """A tower whose cells sag so far when the drums turn that it resets a second in."""
    on_turn = None

    def _calibrate(self, t):
        super()._calibrate(t)
        self.on_turn()


def test_a_command_whose_link_drops_every_time_gives_up_in_one_line():
    dev = _BrownOut(P)
    tower = RtdtTower.simulated(device=dev)
    try:
        dev.on_turn = lambda: tower.loop.call_later(1.0, tower.radio.drop_link, dev.address)
        # a deadline on the tower's own clock: resending for ever stops the loop at 600 s
        # (RuntimeError: Event loop stopped before Future completed), it does not hang
        tower.loop.call_at(tower.client._t0 + 600, tower.loop.stop)
        with pytest.raises(RtdtError) as err:
            tower.calibrate()
        assert str(err.value) == (
            f"calibrate: the link dropped {P.reconnect_attempts + 1} times before the tower "
            f"answered (cells that sag when the drums turn can reset the tower: fit fresh "
            f"ones)")
        assert [s["result"] for s in tower.client.sent][-1] == \
            "link lost before the reply; given up"
    finally:
        tower.close()


def _open_on(radio, params=P, address=None):
    client = RtdtClient(params, address, client_backend=SimBleakClient,
                        scanner_backend=SimBleakScanner, backend_kwargs={"radio": radio})
    return RtdtTower._opened(client, VirtualClockLoop(), radio)


def test_two_towers_in_range_are_named_and_the_user_chooses_one():
    radio = SimRadio([VirtualRtdt(P, address="DA:4C:10:00:00:02"), VirtualRtdt(P)])
    with pytest.raises(RtdtError) as err:
        _open_on(radio)
    assert str(err.value) == (
        "2 towers named 'ReturnToDarkTower' in range: DA:4C:10:00:00:01 (-60 dBm), "
        "DA:4C:10:00:00:02 (-60 dBm); choose one by its address (--target ble:ADDRESS)")
    tower = _open_on(radio, address="DA:4C:10:00:00:02")
    try:
        assert tower.client.address == "DA:4C:10:00:00:02"
    finally:
        tower.close()


def test_listening_for_a_second_tower_is_not_counted_in_the_session_time():
    tower = _open_on(SimRadio([VirtualRtdt(P)]))
    try:
        assert tower.now < 0.1                           # the connection, not the 1 s listen
    finally:
        tower.close()


# the link breaks 5 ms after the write leaves, before it reaches the tower (15 ms), or 20 ms
# after, when the tower has it but has not answered
@pytest.mark.parametrize("after_s, result", [
    (0.005, "write failed: DA:4C:10:00:00:01: disconnected during the write"),
    (0.02, "link lost before the reply; not resent")])
def test_a_drum_move_in_flight_when_the_link_drops_is_not_resent_to_an_uncalibrated_tower(
        calibrated, after_s, result):
    tower = calibrated
    tower.loop.call_at(tower.loop.time() + after_s, tower.radio.drop_link, tower.client.address)
    with pytest.raises(RtdtError) as err:
        tower.rotate("top", "south")
    assert str(err.value) == ("rotate top south: the link dropped before the tower answered, "
                              "and a tower forgets its calibration with the link: calibrate, "
                              "then send it again")
    assert [s["result"] for s in tower.client.sent if s["command"].startswith("rotate")] == \
        [result]
    tower.calibrate()
    tower.rotate("top", "south")
    assert _of(tower, "drum")[-1]["position"] == "south"


class _NoBlueZScanner(SimBleakScanner):
    """What bleak's BlueZ backend does on a machine without BlueZ: the D-Bus socket is not
    there when scanning starts."""

    async def start(self) -> None:
        raise FileNotFoundError(2, "No such file or directory")


def test_a_machine_without_bluez_is_told_so_in_one_line():
    client = RtdtClient(P, None, client_backend=SimBleakClient, scanner_backend=_NoBlueZScanner,
                        backend_kwargs={"radio": SimRadio([VirtualRtdt(P)])})
    with pytest.raises(RtdtError) as err:
        RtdtTower._opened(client, VirtualClockLoop(), None)
    text = str(err.value)
    assert text.startswith("Bluetooth LE is not available on this machine (") and \
        "BlueZ" in text and "--target sim" in text and "\n" not in text
