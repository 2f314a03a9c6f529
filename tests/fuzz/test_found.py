"""Inputs the fuzzers found (``make fuzz``), kept as regression tests: each is now refused in
one line by the parser's own error."""
from __future__ import annotations

import io
import zipfile

import pytest

from captures.script import ScriptError, parse_script
from emulator.romset import RomError, load_romset


def test_a_romset_zip_member_with_an_empty_name_is_refused(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("mp7332", bytes(4096))
        zf.writestr("x", b"")
    data = bytearray(buf.getvalue())
    # rename "x" to "" in its central directory entry (name length 1 -> 0)
    central = data.rindex(b"PK\x01\x02")
    assert data[central + 28] == 1 and data[central + 46:central + 47] == b"x"
    data[central + 28] = 0
    del data[central + 46]
    end = data.index(b"PK\x05\x06")
    size = int.from_bytes(data[end + 12:end + 16], "little")
    data[end + 12:end + 16] = (size - 1).to_bytes(4, "little")
    path = tmp_path / "set.zip"
    path.write_bytes(bytes(data))
    with pytest.raises(RomError, match=r"^set.zip: a member has an empty name \(expected the "
                                       r"ROM and PLA file names\)$"):
        load_romset(path)


def test_a_run_length_that_is_not_a_number_is_refused():
    with pytest.raises(ScriptError, match=r"^s.txt:1: run length '370.9083258.183333' is not "
                                          r"a number of seconds$"):
        parse_script("# run length: 370.9083258.183333 s\n", "s.txt")


def test_a_romset_zip_member_name_flagged_utf8_that_is_not_is_refused(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("\u00e9", bytes(4096))       # non-ASCII: written as UTF-8, flag 0x800
    data = buf.getvalue()
    assert data.count("\u00e9".encode()) == 2     # local header and central directory
    path = tmp_path / "set.zip"
    path.write_bytes(data.replace("\u00e9".encode(), b"\xc3\x28"))   # not UTF-8
    with pytest.raises(RomError, match=r"^set.zip: cannot read the zip \(a member name flagged "
                                       r"UTF-8 is not UTF-8\)$"):
        load_romset(path)
