"""The bench world waits for the host (rig.bench.HostPacer): it runs at most ``slack_s`` past
the host's last command, like a logic analyser's buffer holding what the host has not read,
so a host slowed down by a loaded machine is never late with an action it schedules ahead."""
from __future__ import annotations

import time

from rig.bench import HostPacer


class FakeSerial:
    def __init__(self):
        self.written = b""
        self.in_waiting = 0

    def write(self, data):
        self.written += data
        return len(data)

    def read(self, size=1):
        return b""


def test_the_world_may_run_to_slack_past_the_hosts_last_command():
    pacer = HostPacer(slack_s=0.1, patience_s=None)
    pacer.contact(1.0)
    assert pacer.may_run_to(1.1) and not pacer.may_run_to(1.11)


def test_a_command_written_on_the_paced_link_is_contact_at_the_world_time():
    pacer = HostPacer(slack_s=0.1, patience_s=None)
    link = pacer.link(FakeSerial(), clock=lambda: 5.0)
    link.write(b"\xa5\x5a")
    assert pacer.may_run_to(5.1) and not pacer.may_run_to(5.2)


def test_reading_the_paced_link_does_not_let_the_world_run():
    # A host waiting for a reply must not let the world drift past its own schedule.
    pacer = HostPacer(slack_s=0.1, patience_s=None)
    link = pacer.link(FakeSerial(), clock=lambda: 5.0)
    link.read(10)
    assert not pacer.may_run_to(0.2)
    assert link.in_waiting == 0           # other attributes are the port's


def test_allow_until_lets_the_world_run_without_the_host():
    pacer = HostPacer(slack_s=0.1, patience_s=None)
    pacer.allow_until(3.0)
    assert pacer.may_run_to(3.0) and not pacer.may_run_to(3.01)


def test_the_horizon_never_moves_back():
    pacer = HostPacer(slack_s=0.1, patience_s=None)
    pacer.allow_until(3.0)
    pacer.contact(1.0)
    assert pacer.may_run_to(3.0)


def test_a_released_pacer_holds_nothing_back():
    pacer = HostPacer(slack_s=0.1, patience_s=None)
    pacer.release()
    assert pacer.may_run_to(1e9)
    pacer.wait(1e9)                       # returns at once


def test_the_simulated_box_stops_5_ms_after_a_silent_hosts_last_command(host):
    box, sim = host
    box.status()
    after = sim.sim.now_us          # AVR time: at or after the status command was written
    # The host says nothing more: the AVR runs on to its horizon and stops there, within
    # 5 ms (plus its 1 ms slice) of the status command, however long we look.
    deadline = time.monotonic() + 30
    while sim.pacer.may_run_to(sim.clock() + 0.001) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not sim.pacer.may_run_to(sim.clock() + 0.001), "the AVR never stopped"
    time.sleep(0.2)
    assert sim.sim.now_us <= after + 6_000


def test_with_a_ramp_the_slack_opens_over_wall_time_not_at_once():
    # The host's bytes need wall time to reach the simulated UART: right after a command the
    # world may not yet use its whole slack.
    pacer = HostPacer(slack_s=0.1, patience_s=None, ramp_s=3600.0)
    pacer.contact(1.0)
    assert not pacer.may_run_to(1.1)
    assert pacer.may_run_to(1.0)
