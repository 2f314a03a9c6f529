"""What the host says when the serial link or the box's firmware is wrong (no simavr needed)."""
from __future__ import annotations

import os
import pty

import pytest
import serial

from rig import protocol as p
from rig.buttonbox import ButtonBox
from rig.errors import FirmwareError, LinkError, PortBusyError, RigError


class FakeLink:
    """A serial-port stand-in whose box answers HELLO with ``version`` (or never answers)."""

    def __init__(self, version=(1, 0), protocol=1, answer=True):
        self.version, self.protocol, self.answer = version, protocol, answer
        self.out = b""

    def write(self, data):
        for frame in p.FrameParser().feed(data):
            if self.answer and frame.type == p.CMD_HELLO:
                self.out += p.encode(p.REP_HELLO, frame.seq, protocol=self.protocol,
                                     fw_major=self.version[0], fw_minor=self.version[1],
                                     buttons=12, now_us=5, ident=b"TLBX")
        return len(data)

    @property
    def in_waiting(self):
        return len(self.out)

    def read(self, n):
        data, self.out = self.out[:n], self.out[n:]
        return data

    def flush(self):
        pass

    def close(self):
        pass


def test_the_matching_firmware_version_is_accepted():
    box = ButtonBox("fake", link=FakeLink((1, 3)))
    assert box.hello().firmware == (1, 3)


def test_a_newer_firmware_major_version_asks_to_reflash():
    box = ButtonBox("fake", link=FakeLink((2, 0)))
    with pytest.raises(FirmwareError, match=r"runs firmware 2\.0 .*towerlab rig firmware --flash"):
        box.hello()


def test_a_device_that_never_answers_is_reported_as_missing_firmware():
    box = ButtonBox("fake", link=FakeLink(answer=False), timeout=0.02, retries=2)
    with pytest.raises(FirmwareError, match="does not answer the TowerLab hello"):
        box.hello(boot_s=0.1)


def test_a_missing_port_says_to_plug_the_box_in():
    with pytest.raises(RigError, match="no such serial port .*plugged in"):
        ButtonBox("/dev/ttyTOWERLAB-nothing")


def test_a_port_held_by_another_program_is_reported_busy():
    master, slave = pty.openpty()
    path = os.ttyname(slave)
    holder = serial.Serial(path, exclusive=True)
    try:
        with pytest.raises(PortBusyError, match="busy .*fuser -v"):
            ButtonBox(path)
    finally:
        holder.close()
        os.close(master)
        os.close(slave)


def test_an_out_of_range_hold_time_is_refused_before_sending():
    box = ButtonBox("fake", link=FakeLink())
    with pytest.raises(RigError, match="hold 70000 ms is out of range"):
        box.press("MOVE", hold_ms=70000)


def test_an_unknown_button_name_lists_the_buttons():
    box = ButtonBox("fake", link=FakeLink())
    with pytest.raises(RigError, match="unknown button 'JUMP'"):
        box.press("JUMP")


def test_link_errors_are_value_errors_for_the_cli():
    assert issubclass(LinkError, ValueError)


class DrainFails(FakeLink):
    """A link whose device went away as the host drains its output: tcdrain's EIO, which
    pyserial passes on as termios.error (no OSError)."""

    def flush(self):
        import termios
        raise termios.error(5, "Input/output error")


def test_a_box_gone_while_its_output_drains_is_a_lost_link():
    from rig.errors import LinkLostError
    box = ButtonBox("fake", link=DrainFails())
    with pytest.raises(LinkLostError, match="fake: button box went away while writing"):
        box.hello()
