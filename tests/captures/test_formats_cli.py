"""towerlab convert / towerlab info."""
from __future__ import annotations

import io

from captures.formats import open_capture
from capfmt_helpers import DATA, same_changes
from towerlab.cli import main


def _run(argv):
    out = io.StringIO()
    return main(argv, out), out.getvalue()


def test_convert_writes_the_format_of_the_output_extension(tmp_path):
    src = DATA / "tower_test" / "capture.sr"
    code, text = _run(["convert", str(src), "-o", str(tmp_path / "t.vcd")])
    assert code == 0
    assert "24 channels, 250 kHz, 3877500 samples" in text
    assert same_changes(open_capture(tmp_path / "t.vcd"), open_capture(src))


def test_convert_with_a_channel_map_keeps_only_mapped_signals(tmp_path):
    (tmp_path / "m.map").write_text("R10 = SPK\n")
    code, _ = _run(["convert", str(DATA / "tower_test" / "edges.jsonl.gz"), "-o",
                    str(tmp_path / "spk.sr"), "--channel-map", str(tmp_path / "m.map")])
    assert code == 0
    assert open_capture(tmp_path / "spk.sr").channels == ["SPK"]


def test_info_lists_channels_rate_length_changes_and_gaps():
    code, text = _run(["info", str(DATA / "tower_test" / "capture.sr")])
    assert code == 0
    assert "format:      sr" in text
    assert "channels:    24: R0 R1" in text
    assert "samplerate:  250 kHz" in text
    assert "length:      3877500 samples (15.510000 s)" in text
    assert "changes:     2947" in text
    assert "gaps:        0" in text


def test_bad_input_prints_one_line_and_exits_2(tmp_path, capsys):
    (tmp_path / "bad.sr").write_bytes(b"PK\x03\x04garbage")
    code, _ = _run(["info", str(tmp_path / "bad.sr")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "bad.sr: not a readable zip file" in err


def test_failed_convert_writes_nothing(tmp_path, capsys):
    (tmp_path / "m.map").write_text("D7 = X\n")
    code, _ = _run(["convert", str(DATA / "tower_test" / "capture.sr"), "-o",
                    str(tmp_path / "o.sr"), "--channel-map", str(tmp_path / "m.map")])
    assert code == 2
    assert "m.map: probe 'D7' is not in" in capsys.readouterr().err
    assert not (tmp_path / "o.sr").exists()


def test_convert_onto_its_own_input_is_refused_and_leaves_it_unchanged(tmp_path, capsys):
    src = tmp_path / "t.sr"
    src.write_bytes((DATA / "tower_test" / "capture.sr").read_bytes())
    (tmp_path / "link.vcd").symlink_to(src)
    before = src.read_bytes()
    for out in (src, tmp_path / "link.vcd"):
        code, _ = _run(["convert", str(src), "-o", str(out)])
        assert code == 2
        assert "is also an input of this command" in capsys.readouterr().err
    assert src.read_bytes() == before and (tmp_path / "link.vcd").is_symlink()
