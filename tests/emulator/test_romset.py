"""ROM sets: raw binaries, folders and MAME romset zips, identified by SHA-1 (docs/tms1400.md §12).

The images here are synthetic (not the real dumps), so every load must warn "unknown image".
"""
from __future__ import annotations

import zipfile

import pytest

from emulator import romset
from emulator.chips import TMS1000, TMS1100, TMS1400
from emulator.decode import ident_output_pla, standard_micro_pla
from emulator.pla import pla_text
from emulator.romset import RomError, load_romset

MPLA = pla_text(standard_micro_pla(), term_count=30, pad_to_bytes=867).encode()
OPLA32 = pla_text(ident_output_pla(), term_count=32, pad_to_bytes=557).encode()
OPLA20 = pla_text(ident_output_pla(), term_count=20, pad_to_bytes=365).encode()


def tower_members(rom_size=4096):
    return {"mp7332": bytes([0x4C]) * rom_size, "tms1100_common1_micro.pla": MPLA,
            "tms1400_mbdtower_output.pla": OPLA32}


def make_zip(path, members):
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def make_folder(path, members):
    path.mkdir()
    for name, data in members.items():
        (path / name).write_bytes(data)
    return path


def test_zip_romset_loads_rom_and_both_plas(tmp_path):
    rs = load_romset(make_zip(tmp_path / "mbdtower.zip", tower_members()))
    assert (rs.name, rs.chip) == ("mbdtower", TMS1400)
    assert rs.rom == bytes([0x4C]) * 4096
    assert len(rs.mpla.terms) == 30 and len(rs.opla.terms) == 32


def test_synthetic_images_are_loaded_with_an_unknown_image_warning(tmp_path):
    rs = load_romset(make_zip(tmp_path / "mbdtower.zip", tower_members()))
    warnings = [n for n in rs.recognised if n.startswith("warning:")]
    assert len(warnings) == 3
    assert warnings[0].startswith("warning: mp7332: unknown image, SHA-1 ")
    assert "not the known mp7332 dump" in warnings[0]


def test_member_with_the_known_sha1_is_recognised_as_a_known_good_dump(tmp_path, monkeypatch):
    members = tower_members()
    sha = romset._sha1(members["mp7332"])
    monkeypatch.setitem(romset._BY_SHA1, sha, "mp7332")
    rs = load_romset(make_zip(tmp_path / "mbdtower.zip", members))
    assert "mp7332: known-good dump" in rs.recognised


def test_real_sha1_table_matches_mame_listroms():
    assert romset.KNOWN_SHA1["mp7332"] == "7edbff437da371390fa8f28b3d183f833eaa9be9"
    assert romset.KNOWN_SHA1["m34012"] == "158362c2821678a51554e02dbb2f9ef5aaf5f59f"


def test_folder_romset_loads_like_the_zip(tmp_path):
    rs = load_romset(make_folder(tmp_path / "mbdtower", tower_members()))
    assert (rs.name, rs.chip, len(rs.opla.terms)) == ("mbdtower", TMS1400, 32)


def test_zip_members_in_a_subfolder_are_found(tmp_path):
    members = {f"mbdtower/{k}": v for k, v in tower_members().items()}
    rs = load_romset(make_zip(tmp_path / "set.zip", members))
    assert rs.name == "mbdtower"


def test_labyrinth_set_is_a_tms1100(tmp_path):
    members = {"m34012": bytes(2048), "tms1100_common1_micro.pla": MPLA,
               "tms1100_mdndclab_output.pla": OPLA20}
    rs = load_romset(make_zip(tmp_path / "mdndclab.zip", members))
    assert (rs.name, rs.chip) == ("mdndclab", TMS1100)


def test_raw_binary_gets_the_chip_of_its_size_and_no_plas(tmp_path):
    path = tmp_path / "game.bin"
    path.write_bytes(bytes(2048))
    rs = load_romset(path)
    assert (rs.name, rs.chip, rs.mpla, rs.opla) == (None, TMS1100, None, None)
    assert rs.recognised[0].startswith("warning: game.bin: unknown image")


def test_raw_binary_takes_the_chip_it_is_given(tmp_path):
    path = tmp_path / "game.bin"
    path.write_bytes(bytes(1024))
    assert load_romset(path, "tms1000").chip == TMS1000


def test_wrong_rom_size_in_a_set_is_refused(tmp_path):
    members = tower_members()
    members["mp7332"] = bytes(4095)
    with pytest.raises(RomError) as err:
        load_romset(make_zip(tmp_path / "mbdtower.zip", members))
    assert str(err.value) == "mbdtower.zip: mp7332 is 4095 bytes (expected 4096 for a TMS1400)"


def test_raw_binary_of_no_chip_size_is_refused(tmp_path):
    path = tmp_path / "game.bin"
    path.write_bytes(bytes(3000))
    with pytest.raises(RomError, match=r"^game.bin is 3000 bytes \(expected 1024 for a TMS1000, "
                                       r"2048 for a TMS1100, 4096 for a TMS1400\)$"):
        load_romset(path)


def test_raw_binary_not_matching_the_given_chip_is_refused(tmp_path):
    path = tmp_path / "game.bin"
    path.write_bytes(bytes(2048))
    with pytest.raises(RomError, match=r"game.bin is 2048 bytes \(expected 4096 for a TMS1400\)"):
        load_romset(path, TMS1400)


def test_missing_rom_member_is_refused(tmp_path):
    members = tower_members()
    del members["mp7332"]
    with pytest.raises(RomError, match="mbdtower.zip: missing mp7332 .the TMS1400 ROM"):
        load_romset(make_zip(tmp_path / "mbdtower.zip", members))


def test_missing_plas_fall_back_with_warnings(tmp_path):
    rs = load_romset(make_zip(tmp_path / "mbdtower.zip", {"mp7332": bytes(4096)}))
    assert rs.mpla is None and rs.opla is None
    assert "warning: no micro PLA: using the TI standard decode" in rs.recognised
    assert "warning: no output PLA: O pins = SL<<4 | A" in rs.recognised


def test_not_a_zip_is_refused(tmp_path):
    path = tmp_path / "mbdtower.zip"
    path.write_bytes(b"this is not a zip file")
    with pytest.raises(RomError, match="^mbdtower.zip: not a zip file"):
        load_romset(path)


def test_missing_path_is_refused(tmp_path):
    with pytest.raises(RomError, match="no such file or folder"):
        load_romset(tmp_path / "nothere.zip")


def test_malformed_pla_member_is_refused_with_its_name_and_line(tmp_path):
    members = tower_members()
    members["tms1400_mbdtower_output.pla"] = b".i 5\n.o 8\n.type fr\n"
    with pytest.raises(RomError, match=r"^mbdtower.zip: tms1400_mbdtower_output.pla:3: unknown "):
        load_romset(make_zip(tmp_path / "mbdtower.zip", members))


def test_pla_of_wrong_shape_is_refused(tmp_path):
    members = tower_members()
    members["tms1400_mbdtower_output.pla"] = b".i 4\n.o 8\n"
    with pytest.raises(RomError, match="has 4 inputs x 8 outputs"):
        load_romset(make_zip(tmp_path / "mbdtower.zip", members))


def test_pla_with_phase_and_the_wrong_term_count_warns(tmp_path):
    members = tower_members()
    members["tms1100_common1_micro.pla"] = pla_text(standard_micro_pla()).encode()
    rs = load_romset(make_zip(tmp_path / "mbdtower.zip", members))
    assert any("MAME's TMS1400 reads exactly 30" in n for n in rs.recognised)


def test_unknown_folder_with_one_rom_file_uses_it(tmp_path):
    rs = load_romset(make_folder(tmp_path / "mine", {"prog.bin": bytes(4096), "o.pla": OPLA32}))
    assert (rs.name, rs.chip, len(rs.opla.terms)) == (None, TMS1400, 32)


def test_unknown_folder_with_several_rom_candidates_is_refused(tmp_path):
    folder = make_folder(tmp_path / "mine", {"a.bin": bytes(4096), "b.bin": bytes(4096)})
    with pytest.raises(RomError, match="cannot tell which file is the ROM"):
        load_romset(folder)


def test_romset_makes_a_running_cpu(tmp_path):
    rs = load_romset(make_zip(tmp_path / "mbdtower.zip", tower_members()))
    cpu = rs.make_cpu()
    cpu.step()
    assert cpu.y == 3        # 0x4C = TCY 3 everywhere


def test_summary_says_which_set_was_recognised(tmp_path):
    rs = load_romset(make_zip(tmp_path / "mbdtower.zip", tower_members()))
    assert rs.summary() == "mbdtower.zip: mbdtower set, TMS1400"


def test_renamed_rom_with_a_known_sha1_names_its_set(tmp_path, monkeypatch):
    image = bytes([0x4C]) * 4096
    monkeypatch.setitem(romset._BY_SHA1, romset._sha1(image), "mp7332")
    rs = load_romset(make_folder(tmp_path / "mine", {"dump.bin": image, "o.pla": OPLA32}))
    assert (rs.name, rs.chip) == ("mbdtower", TMS1400)
    assert "dump.bin: known-good dump of mp7332" in rs.recognised


def test_a_folder_of_many_files_is_refused_in_one_short_line(tmp_path):
    folder = make_folder(tmp_path / "junk", {f"f{i:02}.txt": b"x" for i in range(40)})
    with pytest.raises(RomError) as err:
        load_romset(folder)
    assert str(err.value).endswith("found f00.txt, f01.txt, f02.txt, f03.txt, f04.txt, f05.txt "
                                   "and 34 more)")


def test_summary_of_a_raw_image_says_it_is_a_raw_image(tmp_path):
    path = tmp_path / "prog.bin"
    path.write_bytes(bytes(4096))
    assert load_romset(path).summary() == "prog.bin: raw ROM image (no known set), TMS1400"


def test_plas_given_later_drop_the_notes_about_missing_ones(tmp_path):
    rs = load_romset(make_zip(tmp_path / "mbdtower.zip", {"mp7332": bytes(4096)}))
    both = rs.with_plas(standard_micro_pla(), ident_output_pla())
    assert romset.NO_MICRO_PLA in rs.recognised and romset.NO_OUTPUT_PLA in rs.recognised
    assert not any("no micro PLA" in n or "no output PLA" in n for n in both.recognised)


def test_a_default_output_pla_replaces_the_missing_output_pla_note(tmp_path):
    rs = load_romset(make_zip(tmp_path / "mbdtower.zip", {"mp7332": bytes(4096)}))
    rs = rs.with_plas(opla_note="warning: no output PLA: using glyphs")
    assert rs.recognised[-1] == "warning: no output PLA: using glyphs"
    assert romset.NO_OUTPUT_PLA not in rs.recognised


def test_an_endless_device_is_refused_after_a_bounded_read():
    with pytest.raises(RomError, match=r"^zero: more than 1048576 bytes"):
        load_romset("/dev/zero")


def test_a_pla_file_that_is_a_folder_is_refused(tmp_path):
    with pytest.raises(RomError, match="is a folder .expected a PLA file."):
        romset.load_pla_file(tmp_path)


def test_files_too_big_to_be_a_rom_or_pla_are_not_read_from_a_folder(tmp_path):
    members = tower_members()
    members["huge.bin"] = bytes(romset.MAX_FILE_BYTES + 1)
    rs = load_romset(make_folder(tmp_path / "mbdtower", members))
    assert rs.name == "mbdtower" and len(rs.rom) == 4096


# --- limits: what cannot be a romset is refused naming the member and the limit ------------

LIMIT = romset.MAX_FILE_BYTES


def test_a_zip_member_that_inflates_past_the_limit_is_refused_naming_it_and_its_size(tmp_path):
    path = tmp_path / "mbdtower.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("mp7332", bytes(2 * LIMIT))     # 2 MiB of zeros, a few KB compressed
    assert path.stat().st_size < 10_000
    with pytest.raises(RomError) as err:
        load_romset(path)
    assert str(err.value) == (f"mbdtower.zip: member mp7332 inflates to {2 * LIMIT} bytes "
                              f"(expected at most {LIMIT} per member: a ROM image is at most "
                              "4096 bytes, a PLA file a few KB)")


def _understate_size(path, real_size: int, claimed: int) -> None:
    """Rewrite the uncompressed size of a one-member zip's headers from ``real_size`` to
    ``claimed`` (local header at offset 22, central directory entry at offset 24)."""
    data = bytearray(path.read_bytes())
    local = data.index(b"PK\x03\x04")
    central = data.index(b"PK\x01\x02")
    for at in (local + 22, central + 24):
        assert int.from_bytes(data[at:at + 4], "little") == real_size
        data[at:at + 4] = claimed.to_bytes(4, "little")
    path.write_bytes(bytes(data))


def test_a_zip_member_whose_header_understates_its_size_is_refused_as_damaged(tmp_path):
    path = tmp_path / "mbdtower.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("mp7332", bytes(2 * LIMIT))
    _understate_size(path, 2 * LIMIT, 4096)
    with pytest.raises(RomError, match=r"^mbdtower.zip: cannot read the zip \(Bad CRC-32 for "
                                       r"file 'mp7332'\)$"):
        load_romset(path)


def test_a_zip_of_more_members_than_a_romset_holds_is_refused_with_the_count(tmp_path):
    members = {f"f{i:03}.bin": b"x" for i in range(romset.MAX_MEMBERS + 1)}
    with pytest.raises(RomError) as err:
        load_romset(make_zip(tmp_path / "mbdtower.zip", members))
    assert str(err.value) == (f"mbdtower.zip: {romset.MAX_MEMBERS + 1} members (expected at "
                              f"most {romset.MAX_MEMBERS}: a romset zip holds a ROM and its "
                              "PLA files)")


def test_a_folder_of_more_files_than_a_romset_holds_is_refused_with_the_count(tmp_path):
    folder = make_folder(tmp_path / "junk",
                         {f"f{i:03}.bin": b"x" for i in range(romset.MAX_MEMBERS + 1)})
    with pytest.raises(RomError, match=rf"^junk: {romset.MAX_MEMBERS + 1} files \(expected at "
                                       rf"most {romset.MAX_MEMBERS}: a romset folder holds"):
        load_romset(folder)


def test_a_zip_inside_the_romset_zip_is_refused_naming_it(tmp_path):
    inner = make_zip(tmp_path / "inner.zip", tower_members()).read_bytes()
    with pytest.raises(RomError) as err:
        load_romset(make_zip(tmp_path / "set.zip", {"mbdtower.zip": inner}))
    assert str(err.value) == ("set.zip: member mbdtower.zip is itself a zip (expected the ROM "
                              "and PLA files directly: unzip it, or pass it as the romset)")


def test_a_zip_inside_the_zip_is_found_by_its_content_whatever_its_name(tmp_path):
    inner = make_zip(tmp_path / "inner.zip", tower_members()).read_bytes()
    with pytest.raises(RomError, match=r"^set.zip: member mp7332 is itself a zip"):
        load_romset(make_zip(tmp_path / "set.zip", {"mp7332": inner}))


def test_a_folder_of_romset_zips_says_to_pass_one_of_them(tmp_path):
    roms = tmp_path / "roms"
    roms.mkdir()
    make_zip(roms / "mbdtower.zip", tower_members())
    make_zip(roms / "simon.zip", {"tms1000.u1": bytes(1024)})
    with pytest.raises(RomError) as err:
        load_romset(roms)
    assert str(err.value) == ("roms: holds zip files (mbdtower.zip, simon.zip), not ROM and PLA "
                              "files (expected a romset: pass one of the zips)")


def test_a_too_large_rom_file_in_a_folder_is_refused_naming_it(tmp_path):
    members = tower_members()
    members["mp7332"] = bytes(LIMIT + 1)
    with pytest.raises(RomError, match=rf"^mbdtower: member mp7332 is {LIMIT + 1} bytes "
                                       rf"\(expected at most {LIMIT} per member"):
        load_romset(make_folder(tmp_path / "mbdtower", members))


def test_a_folder_holding_only_too_large_files_says_so_not_empty(tmp_path):
    folder = make_folder(tmp_path / "mine", {"big.bin": bytes(LIMIT + 1)})
    with pytest.raises(RomError) as err:
        load_romset(folder)
    assert str(err.value) == (f"mine: no file small enough to be a ROM or PLA file (big.bin is "
                              f"{LIMIT + 1} bytes; expected at most {LIMIT})")


def test_an_empty_zip_is_refused_as_empty(tmp_path):
    with pytest.raises(RomError, match=r"^mbdtower.zip: empty \(expected a ROM and its PLA "):
        load_romset(make_zip(tmp_path / "mbdtower.zip", {}))
