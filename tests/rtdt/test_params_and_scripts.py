"""Protocol parameters (RtdtParams overrides) and the RTDT script format."""
from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from captures.rtdt import ParamsError, RtdtParams, apply_overrides, load_params, params_dict
from captures.rtdt_script import (RtdtCommand, RtdtScript, RtdtScriptError, parse_rtdt_script,
                                  read_rtdt_script, write_rtdt_script)


def test_a_json_file_overrides_the_named_parameters(tmp_path):
    f = tmp_path / "p.json"
    f.write_text('{"sim_calibration_s": 9, "led_pairing": "alternate", '
                 '"note_types": {"calibration": 9}}')
    p = load_params(str(f))
    assert p.sim_calibration_s == 9.0 and p.led_pairing == "alternate"
    assert p.note_type("calibration") == 9 and p.note_type("battery") == 7


def test_a_toml_file_overrides_the_named_parameters(tmp_path):
    f = tmp_path / "p.toml"
    f.write_text('device_name = "RTDT-bench"\nbattery_table_mv = [1400, 1000]\n')
    p = load_params(str(f))
    assert p.device_name == "RTDT-bench" and p.battery_table_mv == (1400, 1000)


def test_key_value_overrides_apply_after_the_file(tmp_path):
    f = tmp_path / "p.json"
    f.write_text('{"command_gap_s": 0.5}')
    p = load_params(str(f), ["command_gap_s=0.3", "write_with_response=false"])
    assert p.command_gap_s == 0.3 and p.write_with_response is False


def test_an_unknown_parameter_is_refused_naming_the_file_and_key(tmp_path):
    f = tmp_path / "p.json"
    f.write_text('{"calibration_secs": 3}')
    with pytest.raises(ParamsError, match=r"p\.json: unknown RTDT parameter 'calibration_secs'"):
        load_params(str(f))


@pytest.mark.parametrize("item, words", [
    ("reply_timeout_s=-1", "expected a finite number >= 0"),
    ("reply_timeout_s=soon", "expected a number"),
    ("write_retries=1.5", "expected an integer"),
    ("led_pairing=diagonal", "expected one of adjacent, alternate"),
    ("sim_calibration_positions=[0,9,0]", "three positions 0-3"),
    ("no_equals_sign", "expected KEY=VALUE"),
    ('sim_sequence_s={"seal": 2}', "sequence numbers as keys"),
    ('note_types={"door": 9}', "known notification names as keys"),
    ('effects={"strobe": 9}', "whole codes (0-7"),
    ("battery_interval_s=0", "battery_interval_s = 0.0: expected a number of seconds > 0"),
    ("link_timeout_long_s=0", "expected a number of seconds > 0"),
    ("sound_count=200", "sound_count = 200: expected an integer 1-127"),
    ("sequence_count=256", "expected an integer 1-255"),
    ('note_types={"calibration": 0}', "(state and calibration would both be 0)"),
    ('effects={"on": 0}', "(off and on would both be 0)"),
    ("device_name=", "device_name = '': expected a non-empty string"),
])
def test_a_bad_override_value_is_refused_in_one_line(item, words):
    with pytest.raises(ParamsError) as exc:
        load_params(None, [item])
    assert words in str(exc.value) and "\n" not in str(exc.value)


def test_a_file_that_is_not_json_is_refused_with_its_line(tmp_path):
    f = tmp_path / "p.json"
    f.write_text('{\n"a": }')
    with pytest.raises(ParamsError, match=r"p\.json:2: not JSON"):
        load_params(str(f))


def test_the_parameters_round_trip_through_their_dict():
    p = RtdtParams(sim_rotation_per_side_s=1.25, battery_table_mv=(1300, 1000))
    assert apply_overrides(RtdtParams(), params_dict(p)) == p


SESSION = """# run length: 30 s
0 calibrate
8 rotate top s
9 light ledge n breathe
9.5 light base2 sw flicker once
10 sound 0x5e loop
11 sequence sealReveal
12 volume 2
13 reset-skulls
14 skull-drop
15 drop-link silent
16 battery 3300
"""


def test_a_script_names_each_command_with_checked_arguments():
    s = parse_rtdt_script(SESSION, "s.txt")
    assert s.length == 30.0
    assert [(c.t, c.name, c.args) for c in s.commands] == [
        (0.0, "calibrate", ()), (8.0, "rotate", ("top", "south")),
        (9.0, "light", ("ledge", "northeast", "breathe")),
        (9.5, "light", ("base2", "southwest", "flicker", "once")),
        (10.0, "sound", (94, "loop")), (11.0, "sequence", (14,)), (12.0, "volume", (2,)),
        (13.0, "reset-skulls", ()), (14.0, "skull-drop", ()), (15.0, "drop-link", ("silent",)),
        (16.0, "battery", (3300,))]


@pytest.mark.parametrize("line, words", [
    ("1 rotate upper north", "unknown drum 'upper'"),
    ("1 rotate top up", "unknown side 'up'"),
    ("1 rotate top", "rotate takes 'DRUM SIDE'"),
    ("1 sound 114", "sound 114 is out of range (expected 1-113)"),
    ("1 sound x", "sound 'x' is not a number"),
    ("1 light roof north on", "unknown light layer 'roof'"),
    ("1 light top ne on", "unknown light 'ne' on layer top"),
    ("1 light top north glow", "unknown LED effect 'glow'"),
    ("1 sequence party", "sequence 'party' is not a number"),
    ("1 dance", "unknown command 'dance'"),
    ("soon calibrate", "time 'soon' is not a number"),
    ("-1 calibrate", "must be a finite number of seconds >= 0"),
    ("calibrate", "expected '<time_s> COMMAND ...'"),
    ("1 calibrate now", "calibrate takes no arguments"),
    ("1 drop-link loudly", "drop-link takes 'silent' or nothing"),
])
def test_a_bad_script_line_is_refused_with_its_file_and_line_number(line, words):
    with pytest.raises(RtdtScriptError) as exc:
        parse_rtdt_script(f"0 calibrate\n# a comment\n{line}\n", "s.txt")
    msg = str(exc.value)
    assert msg.startswith("s.txt:3: ") and words in msg and "\n" not in msg, msg


def test_a_script_file_that_is_not_text_is_refused(tmp_path):
    f = tmp_path / "s.txt"
    f.write_bytes(b"0 calibrate\n\xff\xfe")
    with pytest.raises(RtdtScriptError, match="not UTF-8"):
        read_rtdt_script(str(f))


commands = st.one_of(
    st.builds(lambda t: RtdtCommand(t, "calibrate"), st.floats(0, 1e4)),
    st.builds(lambda t, d, s: RtdtCommand(t, "rotate", (d, s)), st.floats(0, 1e4),
              st.sampled_from(["top", "middle", "bottom"]),
              st.sampled_from(["north", "east", "south", "west"])),
    st.builds(lambda t, n: RtdtCommand(t, "sound", (n,)), st.floats(0, 1e4),
              st.integers(1, 113)),
)


@settings(deadline=None)
@given(st.lists(commands, max_size=8), st.one_of(st.none(), st.floats(0, 1e4)))
def test_a_written_script_parses_back_to_the_same_commands(cmds, length):
    buf = io.StringIO()
    write_rtdt_script(RtdtScript(cmds, length), buf)
    back = parse_rtdt_script(buf.getvalue())
    assert [(round(c.t, 6), c.name, c.args) for c in cmds] == \
        [(c.t, c.name, c.args) for c in back.commands]
    assert back.length == (None if length is None else round(length, 6))
