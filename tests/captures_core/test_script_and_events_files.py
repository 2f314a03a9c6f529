"""The script and events files: round trips to the microsecond, one-line errors for bad bytes."""
from __future__ import annotations

import io

import pytest

from captures.events import EventError, read_events
from captures.script import Power, Press, Script, ScriptError, parse_script, power_ons, \
    read_script, write_script


def test_script_round_trip_keeps_microseconds():
    script = Script([Press(12.783333, "NO/END", 0.2), Power(30.000001, False),
                     Press(3.0, "DARK TOWER", 0.25)], length=109.1583)
    buf = io.StringIO()
    write_script(script, buf)
    again = parse_script(buf.getvalue())
    assert again.actions == script.actions and again.length == script.length


def test_script_that_is_not_utf8_is_named_in_one_line(tmp_path):
    path = tmp_path / "s.txt"
    path.write_bytes(b"1.0 YES/BUY 0.2\n\xff\xfe\n")
    with pytest.raises(ScriptError, match=r"s.txt: not a text script \(not UTF-8") as exc:
        read_script(str(path))
    assert "\n" not in str(exc.value)


def test_events_file_that_is_not_utf8_is_named_in_one_line(tmp_path):
    path = tmp_path / "e.jsonl"
    path.write_bytes(b'{"t": 0, "type": "motor", "on": 1}\n\xc3\x28\n')
    with pytest.raises(EventError, match=r"e.jsonl: not a JSON-lines events file \(not UTF-8"):
        read_events(str(path))


def test_script_with_unknown_button_names_the_line():
    with pytest.raises(ScriptError, match=r"s:2: unknown button 'FOO'"):
        parse_script("1 YES/BUY 0.2\n2 FOO 0.2\n", "s")


def test_script_power_needs_on_or_off():
    with pytest.raises(ScriptError, match=r"s:1: power takes 'on' or 'off'"):
        parse_script("1 power maybe\n", "s")


def test_each_game_of_a_script_begins_at_0_s_or_at_a_later_power_on():
    script = parse_script("1 YES/BUY 0.2\n9 power off\n10.05 power on\n0 power on\n"
                          "4 power off\n5 power on\n")
    assert power_ons(script) == [0.0, 5.0, 10.05]


def test_a_script_that_never_ends_is_refused_in_one_line():
    with pytest.raises(ScriptError, match=r"/dev/zero: more than 1048576 bytes"):
        read_script("/dev/zero")


def test_captures_written_to_a_device_keep_the_device(tmp_path):
    import os
    import stat

    from captures.source import atomic_write

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    import threading

    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
    reader.start()
    atomic_write(fifo, lambda f: f.write(b"capture bytes"))
    reader.join(5)
    assert got == [b"capture bytes"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_captures_written_through_a_symlink_keep_the_link(tmp_path):
    import os

    from captures.source import atomic_write

    target = tmp_path / "real.sr"
    target.write_bytes(b"old")
    link = tmp_path / "link.sr"
    link.symlink_to(target)
    atomic_write(link, lambda f: f.write(b"new"))
    assert os.path.islink(link) and target.read_bytes() == b"new"


def test_an_events_file_that_never_ends_is_refused_in_one_line():
    with pytest.raises(EventError, match=r"/dev/zero:1: line longer than"):
        read_events("/dev/zero")
