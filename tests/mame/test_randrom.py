"""Seeded random TMS1400/TMS1100/TMS1000 images (emulator.randrom) for the MAME cross-check."""
from __future__ import annotations

import pytest

from emulator.chips import TMS1000, TMS1100
from emulator.core import lfsr_order
from emulator.randrom import RandRomError, random_key_masks, random_rom


def test_an_image_is_4096_bytes():
    assert len(random_rom(0)) == 4096


def test_the_same_seed_gives_the_same_image():
    assert random_rom(42) == random_rom(42)


def test_different_seeds_give_different_images():
    assert random_rom(1) != random_rom(2)


def test_an_image_holds_every_opcode():
    assert set(random_rom(5)) == set(range(256))


def test_key_scans_select_a_column_then_read_k_in_execution_order():
    # TCY 0..2; SETR; TKA|KNEZ, consecutive in the PC's LFSR order (docs/tms1400.md §2.1).
    order = lfsr_order()
    scans = 0
    for seed in range(4):
        rom = random_rom(seed)
        for base in range(0, 4096, 64):
            seq = [rom[base | pc] for pc in order]
            scans += sum(1 for a, b, c in zip(seq, seq[1:], seq[2:])
                         if a in (0x40, 0x48, 0x44) and b == 0x0D and c in (0x08, 0x0E))
    assert scans >= 100


def test_far_branches_set_the_chapter_buffer_before_branching():
    # LDP c; TPC; LDP p; BR|CALL (docs/tms1400.md §7.2), in execution order.
    order = lfsr_order()
    rom = random_rom(9)
    far = 0
    for base in range(0, 4096, 64):
        seq = [rom[base | pc] for pc in order]
        far += sum(1 for a, b, c, d in zip(seq, seq[1:], seq[2:], seq[3:])
                   if a & 0xF0 == 0x10 and b == 0x0B and c & 0xF0 == 0x10 and d >= 0x80)
    assert far >= 10


def test_key_masks_are_12_bit_and_seeded():
    masks = random_key_masks(3, 50)
    assert masks == random_key_masks(3, 50)
    assert all(0 <= m < 4096 for m in masks)
    assert 0 in masks and any(m for m in masks)


def test_a_non_integer_seed_is_rejected():
    with pytest.raises(RandRomError, match="seed '1' must be an integer"):
        random_rom("1")


def test_a_tms1100_image_is_2048_bytes_with_every_opcode():
    rom = random_rom(5, TMS1100)
    assert len(rom) == 2048 and set(rom) == set(range(256))


def test_tms1000_images_are_1024_bytes_and_four_hold_every_opcode():
    roms = [random_rom(seed, TMS1000) for seed in range(4)]
    assert {len(rom) for rom in roms} == {1024}
    assert set().union(*roms) == set(range(256))


def test_tms1000_key_scans_use_its_knez_opcode_09():
    # TCY n; SETR; KNEZ is 09 on the TMS1000 (0E is IA there), in execution order.
    order = lfsr_order()
    rom = random_rom(3, TMS1000)
    seqs = [[rom[base | pc] for pc in order] for base in range(0, 1024, 64)]
    assert any(a & 0xF0 == 0x40 and b == 0x0D and c == 0x09
               for seq in seqs for a, b, c in zip(seq, seq[1:], seq[2:]))


def test_an_unknown_chip_is_rejected():
    with pytest.raises(RandRomError, match="chip 'tms9999': random images are made for"):
        random_rom(1, type("Chip", (), {"name": "tms9999"})())


def test_key_masks_keep_to_the_allowed_bits():
    masks = random_key_masks(3, 400, ports=4, allowed=0x0FF0)
    assert all(m & ~0x0FF0 == 0 for m in masks) and any(masks)


def test_allowed_bits_outside_the_ports_are_rejected():
    with pytest.raises(RandRomError, match="allowed key bits 65536 must be a non-zero mask"):
        random_key_masks(3, 10, ports=4, allowed=1 << 16)


def test_key_masks_cover_the_ports_asked_for():
    masks = random_key_masks(3, 400, ports=18)
    assert max(masks) >= 1 << 68 and all(m < 1 << 72 for m in masks)


def test_a_negative_frame_count_is_rejected():
    with pytest.raises(RandRomError, match="frames -1 must be a whole number >= 0"):
        random_key_masks(1, -1)
