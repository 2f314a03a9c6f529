"""The reference core against MAME 0.251 itself (emulator.mame runs mbdtower headless).

Same canonical trace lines, instruction for instruction, on the golden program, on seeded random
images (standard and random PLAs: the PLA-driven decode and MAME's parse of our files) and on a
key-scanning loop with keys changing every frame. K values are the ones MAME read.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from chipkit import rom

from emulator.asm import assemble_file
from emulator.chips import TMS1400
from emulator.core import Cpu
from emulator.decode import ident_output_pla, standard_micro_pla
from emulator.mame import MameOracle
from emulator.pla import Pla, pla_text, read_pla
from emulator.trace import trace_lines

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


def _files(mpla: Pla, opla: Pla) -> tuple[str, str]:
    return (pla_text(mpla, term_count=30, pad_to_bytes=867),
            pla_text(opla, term_count=32, pad_to_bytes=557))


def _assert_same(images, mpla, opla, traces, steps):
    for i, (image, trace) in enumerate(zip(images, traces)):
        cpu = Cpu(TMS1400, image, mpla, opla)
        k_reads = trace.k_reads()
        cpu.read_k = lambda cycle: k_reads[cycle]
        mame = trace.lines()
        assert len(mame) == steps
        for n, ours in enumerate(trace_lines(cpu, steps)):
            assert ours == mame[n], f"image {i}, instruction {n}:\n ours {ours}\n mame {mame[n]}"


def _random_pla(rng: random.Random, inputs: int, outputs: int, terms: int) -> Pla:
    return Pla(inputs, outputs, tuple(
        ("".join(rng.choice("01--") for _ in range(inputs)),
         "".join(rng.choice("0001") for _ in range(outputs))) for _ in range(terms)),
        "".join(rng.choice("01") for _ in range(outputs)))


def _random_image(rng: random.Random) -> bytes:
    # one branch or call in eight keeps execution moving through the pages
    return bytes(rng.randrange(0x80, 0x100) if rng.random() < 0.12 else rng.randrange(0x80)
                 for _ in range(TMS1400.rom_size))


def test_core_matches_mame_on_the_golden_program(mame_binary):
    image = assemble_file(GOLDEN / "core_tms1400.asm").rom
    mpla, opla = standard_micro_pla(), read_pla((GOLDEN / "core_output.pla").read_text())
    traces = MameOracle(mame_binary, timeout=300).trace([image], *_files(mpla, opla), steps=200)
    _assert_same([image], mpla, opla, traces, 200)


@pytest.mark.parametrize("random_plas", [False, True], ids=["standard-pla", "random-pla"])
def test_core_matches_mame_on_random_images(mame_binary, random_plas):
    rng = random.Random(2026 + random_plas)
    images = [_random_image(rng) for _ in range(4)]
    mpla = _random_pla(rng, 8, 16, 30) if random_plas else standard_micro_pla()
    opla = _random_pla(rng, 5, 8, 32)
    traces = MameOracle(mame_binary, timeout=300).trace(images, *_files(mpla, opla), steps=5000)
    _assert_same(images, mpla, opla, traces, 5000)


def test_core_reads_k_as_mame_with_keys_held(mame_binary):
    scan = ["TCY 1", "SETR", "TKA", "TAMIYC", "TDO", "KNEZ", "BRANCH $03"]   # TKA is at pc $03
    image = rom(TMS1400, {15: scan})
    rng = random.Random(5)
    keys = [[rng.randrange(1 << 12) for _ in range(8)]]
    mpla, opla = standard_micro_pla(), ident_output_pla()
    traces = MameOracle(mame_binary, timeout=300).trace([image], *_files(mpla, opla), steps=6000,
                                                        keys=keys)
    assert len(set(traces[0].k_reads().values())) > 3
    _assert_same([image], mpla, opla, traces, 6000)


@pytest.mark.romset
def test_core_matches_mame_on_the_genuine_romset(mame_binary, romset):
    """With the user's own mbdtower set: every member is the known-good dump and our trace of
    the genuine firmware equals MAME's for the first 20,000 instructions (no keys)."""
    import zipfile

    from emulator.romset import known_sets, load_romset

    rs = load_romset(romset)
    assert rs.name == "mbdtower"
    assert not [n for n in rs.recognised if n.startswith("warning")], rs.recognised
    members = known_sets()["mbdtower"]
    path = Path(romset)
    if path.is_dir():
        def text(name):
            return (path / name).read_text("ascii")
    else:
        with zipfile.ZipFile(path) as zf:
            files = {n.rsplit("/", 1)[-1]: zf.read(n) for n in zf.namelist()}

        def text(name):
            return files[name].decode("ascii")
    traces = MameOracle(mame_binary, timeout=300).trace(
        [rs.rom], text(members.mpla), text(members.opla), steps=20000)
    _assert_same([rs.rom], rs.mpla, rs.opla, traces, 20000)
