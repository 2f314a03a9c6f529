"""VCD: writing with pyvcd for sigrok/GTKWave, and the streaming VCD reader."""
from __future__ import annotations

import io
from fractions import Fraction

import numpy as np
import pytest

from captures.formats import open_capture, write_capture
from captures.model import CaptureError, Gap, MemoryCapture
from captures.vcd import choose_timescale, read_vcd, write_vcd
from capfmt_helpers import DATA, expand, same_changes, sigrok_csv


def _vcd(tmp_path, text, name="t.vcd"):
    path = tmp_path / name
    path.write_text(text)
    return path


HEAD = """$timescale 1 us $end
$scope module top $end
$var wire 1 ! clk $end
$var wire 1 " data $end
$upscope $end
$enddefinitions $end
"""


def test_timescale_is_the_largest_unit_dividing_the_sample_period():
    assert choose_timescale(1_000_000) == ("1 us", 1)
    assert choose_timescale(250_000) == ("1 us", 4)
    assert choose_timescale(100_000) == ("10 us", 1)
    assert choose_timescale(1_000) == ("1 ms", 1)
    assert choose_timescale(24_000_000) == ("10 ns", Fraction(25, 6))   # rounded ticks


def test_period_no_unit_divides_uses_the_largest_unit_of_two_ticks_and_reads_back_exactly(
        tmp_path):
    # 1 ns ticks made sigrok-cli read a 15.5 s capture as 1.55e10 samples at 1 GHz
    assert choose_timescale(425_000) == ("1 us", Fraction(40, 17))
    cap = open_capture(DATA / "tower_test" / "edges.jsonl.gz")
    write_capture(cap, tmp_path / "t.vcd")
    back = read_vcd(tmp_path / "t.vcd")
    assert back.samplerate == 425_000
    assert back.info.total_samples == cap.info.total_samples
    assert same_changes(back, cap)


def test_written_vcd_has_only_one_bit_wires_in_scope_tower(tmp_path):
    cap = MemoryCapture.from_edges(["R4", "R10"], 1_000_000, [(0, "R4", 1), (3, "R10", 1)], 10)
    buf = io.BytesIO()
    write_vcd(cap, buf)
    text = buf.getvalue().decode()
    assert "$scope module tower $end" in text
    assert "$var wire 1 ! R4 $end" in text and "$var wire 1 \" R10 $end" in text
    assert "$timescale 1 us $end" in text
    assert text.rstrip().endswith("#10")


def test_gap_is_written_as_x_on_every_signal_and_read_back_as_a_gap(tmp_path):
    cap = MemoryCapture.from_edges(["A", "B"], 1000, [(0, "A", 1), (9, "A", 0)], 20,
                                   gaps=[Gap(3, 6, "overrun")])
    write_capture(cap, tmp_path / "g.vcd")
    text = (tmp_path / "g.vcd").read_text()
    assert "#3\nx!\nx\"\n#6\n1!\n0\"\n" in text
    back = read_vcd(tmp_path / "g.vcd")
    assert back.gaps == [Gap(3, 6, "overrun")]
    assert same_changes(back, cap)


def test_foreign_vcd_with_all_x_is_a_gap_and_partial_x_reads_0(tmp_path):
    path = _vcd(tmp_path, HEAD + "#0\n1!\n1\"\n#4\nx!\n#6\nx\"\n#9\n1!\n0\"\n#12\n")
    cap = read_vcd(path)
    mem = cap.to_memory()
    assert cap.samplerate == 1_000_000 and cap.channels == ["clk", "data"]
    assert cap.info.total_samples == 12
    assert mem.times.tolist() == [0, 4, 9]
    assert mem.words.tolist() == [3, 2, 1]
    assert cap.gaps == [Gap(6, 9, "no data (every signal x in the VCD)")]


def test_vectors_become_one_channel_per_bit(tmp_path):
    text = """$timescale 10 ns $end
$var wire 3 # seg [2:0] $end
$var wire 1 ! en $end
$enddefinitions $end
#0
b101 #
0!
#5
b11 #
1!
#7
"""
    cap = read_vcd(_vcd(tmp_path, text))
    mem = cap.to_memory()
    assert cap.channels == ["seg[0]", "seg[1]", "seg[2]", "en"]
    assert cap.samplerate == 100_000_000
    assert mem.words.tolist() == [0b0101, 0b1011]


def test_times_going_backwards_name_the_line(tmp_path):
    path = _vcd(tmp_path, HEAD + "#0\n1!\n0\"\n#10\n0!\n#5\n1!\n")
    with pytest.raises(CaptureError, match=r"t.vcd:12: time #5 goes backwards \(after #10\)"):
        read_vcd(path).to_memory()


@pytest.mark.parametrize("body, message", [
    ("#0\n1?\n", r"t.vcd:8: unknown identifier '\?'"),
    ("1!\n", r"t.vcd:7: value change before the first #time"),
    ("#0\nhello\n", r"t.vcd:8: cannot read 'hello'"),
    ("#0\n1!\n0\"\n#2x\n", r"t.vcd:10: bad time '#2x'"),
])
def test_bad_body_token_names_the_line(tmp_path, body, message):
    with pytest.raises(CaptureError, match=message):
        read_vcd(_vcd(tmp_path, HEAD + body)).to_memory()


@pytest.mark.parametrize("text, message", [
    ("", "t.vcd: empty VCD file"),
    ("$timescale 3 us $end\n$enddefinitions $end\n", "timescale '3 us' is not"),
    ("$timescale 1 us $end\n", "no \\$enddefinitions"),
    ("$timescale 1 us $end\n$enddefinitions $end\n", "declares no 1-bit or vector"),
    ("$var wire 1 ! a\n", r"\$var has no \$end"),
])
def test_bad_header_is_refused(tmp_path, text, message):
    with pytest.raises(CaptureError, match=message):
        read_vcd(_vcd(tmp_path, text))


def _random_capture(seed: int, samplerate: int) -> MemoryCapture:
    """Return 300 samples of four channels with 30 random changes after the first."""
    from captures.model import CaptureInfo

    rng = np.random.default_rng(seed)
    times = np.concatenate([[0], np.sort(rng.choice(np.arange(1, 300), 30, replace=False))])
    words = np.bitwise_xor.accumulate(rng.integers(1, 16, len(times), dtype=np.uint64))
    return MemoryCapture(CaptureInfo(["A", "B", "C", "D"], samplerate, 300), times, words)


def test_sigrok_cli_imports_our_vcd_as_the_same_samples(sigrok_cli, tmp_path):
    cap = _random_capture(7, 1_000_000)
    write_capture(cap, tmp_path / "s.vcd")
    got = sigrok_csv(sigrok_cli, tmp_path / "s.vcd", "-I", "vcd")
    want = expand(cap)
    assert np.array_equal(got, want)


def test_sigrok_cli_reads_our_425_khz_vcd_at_1_mhz_with_every_edge_within_half_a_us(
        sigrok_cli, tmp_path):
    # 1 ns ticks made sigrok-cli expand this to 1 GHz (a 15.5 s capture never finished)
    cap = _random_capture(8, 425_000)
    times, words = cap.times, cap.words
    write_capture(cap, tmp_path / "s.vcd")
    got = sigrok_csv(sigrok_cli, tmp_path / "s.vcd", "-I", "vcd")
    assert len(got) == round(300 / 0.425)
    at = np.flatnonzero(np.diff(got)) + 1
    assert np.array_equal(np.concatenate([[0], at]), (2 * times * 1000 + 425) // 850)
    assert np.array_equal(got[np.concatenate([[0], at])], words)


def test_gaps_found_in_a_foreign_vcd_are_known_before_converting(tmp_path):
    path = _vcd(tmp_path, HEAD + "#0\n1!\n1\"\n#4\nx!\nx\"\n#9\n1!\n0\"\n#12\n")
    cap = read_vcd(path)
    assert cap.gaps == [Gap(4, 9, "no data (every signal x in the VCD)")]
    write_capture(cap, tmp_path / "g.jsonl.gz")
    assert open_capture(tmp_path / "g.jsonl.gz").gaps == cap.gaps


def test_overlapping_gaps_are_one_x_span(tmp_path):
    cap = MemoryCapture.from_edges(["A"], 1000, [(0, "A", 1), (30, "A", 0)], 40,
                                   gaps=[Gap(5, 20, "overrun"), Gap(10, 15, "unplugged")])
    write_capture(cap, tmp_path / "o.vcd")
    body = (tmp_path / "o.vcd").read_text().split("$enddefinitions $end")[1]
    assert "#5\nx!\n#20\n1!\n#30\n0!\n" in body
    assert read_vcd(tmp_path / "o.vcd").gaps == cap.gaps


def test_a_gap_from_sample_0_is_x_in_dumpvars_until_its_end(tmp_path):
    cap = MemoryCapture.from_edges(["A", "B"], 1000, [(0, "A", 1), (9, "A", 0)], 20,
                                   gaps=[Gap(0, 4, "probe not yet connected")])
    write_capture(cap, tmp_path / "g0.vcd")
    body = (tmp_path / "g0.vcd").read_text().split("$enddefinitions $end")[1]
    assert body.startswith("\n#0\n$dumpvars\nx!\nx\"\n$end\n#4\n1!\n0\"\n#9\n0!\n")


def test_a_gap_from_sample_0_reads_back_with_the_initial_levels(tmp_path):
    cap = MemoryCapture.from_edges(["A", "B"], 1000, [(0, "A", 1), (9, "A", 0)], 20,
                                   gaps=[Gap(0, 4, "probe not yet connected")])
    write_capture(cap, tmp_path / "g0.vcd")
    back = read_vcd(tmp_path / "g0.vcd")
    assert back.gaps == cap.gaps and same_changes(back, cap)


def test_a_gap_from_sample_0_is_found_by_a_reader_without_our_comment(tmp_path):
    cap = MemoryCapture.from_edges(["A", "B"], 1000, [(0, "A", 1), (9, "A", 0)], 20,
                                   gaps=[Gap(0, 4, "probe not yet connected")])
    write_capture(cap, tmp_path / "g0.vcd")
    lines = (tmp_path / "g0.vcd").read_text().splitlines(keepends=True)
    foreign = _vcd(tmp_path, "".join(ln for ln in lines if "towerlab-capture" not in ln),
                   "foreign.vcd")
    assert read_vcd(foreign).gaps == [Gap(0, 4, "no data (every signal x in the VCD)")]


def _cut_vcd(tmp_path, keep: float):
    edges = [(0, "A", 0)] + [(t, "A", t // 10 % 2) for t in range(10, 200, 10)]
    cap = MemoryCapture.from_edges(["A"], 1000, edges, 200)
    write_capture(cap, tmp_path / "whole.vcd")
    data = (tmp_path / "whole.vcd").read_bytes()
    body = data.index(b"$enddefinitions")
    cut = tmp_path / "cut.vcd"
    cut.write_bytes(data[:body + int((len(data) - body) * keep)])
    return cut


def test_a_vcd_of_ours_cut_short_has_a_gap_from_where_its_data_ends(tmp_path):
    cut = _cut_vcd(tmp_path, 0.5)
    cap = read_vcd(cut)
    (gap,) = cap.gaps
    last = int(cap.to_memory().times[-1])
    assert last < gap.start < 200 and gap.end == 200 and "truncated" in gap.reason
    assert any("truncated" in w for w in cap.warnings)


def test_the_cut_last_line_of_a_truncated_vcd_of_ours_is_dropped(tmp_path):
    cut = _cut_vcd(tmp_path, 0.5)
    text = cut.read_text()
    cut.write_text(text.rstrip("\n") + "\n#1")        # half of a time stamp
    cap = read_vcd(cut)
    assert len(cap.to_memory().times) > 1 and cap.gaps[0].end == 200
