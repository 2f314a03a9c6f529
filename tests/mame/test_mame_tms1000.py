"""The MAME cross-check on the plain TMS1000: our core's trace equals MAME 0.251's.

MAME's ``simon`` (MB Simon: a TMS1000 at 325 kHz, 1024-byte ROM ``tms1000.u1``, micro PLA
``tms1000_common3_micro.pla`` 867 bytes, output PLA ``tms1000_simon_output.pla`` 365 bytes,
``mame -listroms simon``) runs our images with PLA files written by our decode
(emulator.decode / emulator.pla at MAME's sizes: 30 and 20 terms). Keys: simon's colour
buttons (IN.1, read while R1 is high) and Start/Last/Longest (IN.2, R2); its two
configuration switches (IN.0 on R0, IN.3 on R9) stay at MAME's defaults and are read too. Our
core reads every K value MAME's core read. Corpus: the TMS1000 programs of tests/programs and
200 seeded random TMS1000 images x 2,000 instructions with keys changing during the run. Each
cross-check prints "compared N programs, M instructions, K mismatches".
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from emulator.asm import assemble_file
from emulator.chips import TMS1000
from emulator.decode import ident_output_pla, output_pla_from_table, standard_micro_pla
from emulator.mame import SIMON, MameError, MameOracle
from emulator.randrom import random_key_masks, random_rom
from tests.mame.test_mame_crosscheck import KEY_FRAMES, PROGRAM_STEPS, RAM_EVERY, \
    RANDOM_STEPS, cross_check

pytestmark = pytest.mark.mame

PROGRAMS = Path(__file__).resolve().parent.parent / "programs"
RANDOM_TMS1000_IMAGES = 200
MAME_DASM = Path(__file__).resolve().parents[1] / "data" / "mame_dasm" / "tms1000_opcodes.txt"


@pytest.fixture(scope="module")
def simon(oracle) -> MameOracle:
    """Return the oracle running MAME's simon (TMS1000)."""
    return MameOracle(oracle.binary, oracle.timeout, oracle.workdir, SIMON)


@pytest.fixture(scope="module")
def random_runs(simon):
    """Return (name, chip, image, micro PLA, output PLA, MAME trace) for the random images."""
    mpla, opla = standard_micro_pla(TMS1000), ident_output_pla(TMS1000)
    seeds = range(RANDOM_TMS1000_IMAGES)
    roms = [random_rom(seed, TMS1000) for seed in seeds]
    keys = [random_key_masks(seed, KEY_FRAMES, SIMON.key_ports, SIMON.key_mask)
            for seed in seeds]
    traces = simon.trace(roms, mpla, opla, RANDOM_STEPS, keys, ram_every=RAM_EVERY)
    return [(f"random TMS1000 image seed {seed}", TMS1000, rom, mpla, opla, trace)
            for seed, rom, trace in zip(seeds, roms, traces)]


@pytest.fixture(scope="module")
def program_runs(simon):
    """Return the runs of the tests/programs files whose ``; Chips:`` line names the TMS1000."""
    chips_line = re.compile(r"^;\s*Chips:.*\bTMS1000\b", re.MULTILINE | re.IGNORECASE)
    paths = [p for p in sorted(PROGRAMS.glob("*.asm"))
             if chips_line.search(p.read_text(encoding="utf-8"))]
    assert paths, "no TMS1000 program in tests/programs"
    mpla = standard_micro_pla(TMS1000)
    runs = []
    for i, path in enumerate(paths):
        prog = assemble_file(path, TMS1000)
        opla = (output_pla_from_table(prog.opla.get(j, 0) for j in range(32)) if prog.opla
                else ident_output_pla(TMS1000))
        frames = PROGRAM_STEPS * 6 * 60 // SIMON.clock_hz + 2
        keys = random_key_masks(i, frames, SIMON.key_ports, SIMON.key_mask)
        [trace] = simon.trace([prog.rom], mpla, opla, PROGRAM_STEPS, [keys], ram_every=RAM_EVERY)
        runs.append((f"{path.name} (tms1000)", TMS1000, prog.rom, mpla, opla, trace))
    return runs


def test_random_tms1000_images_run_identically_in_mame(random_runs, capsys):
    cross_check(capsys, "random TMS1000 images (simon)", random_runs)


def test_random_tms1000_images_execute_every_opcode_on_every_page(random_runs):
    executed = {s.op for *_, trace in random_runs for s in trace.steps}
    pages = {s.page for *_, trace in random_runs for s in trace.steps}
    assert sorted(set(range(256)) - executed) == []
    assert pages == set(range(16))


def test_random_tms1000_images_read_keys_that_change_during_a_run(random_runs):
    changing = [run for run in random_runs
                if len({s.k for s in run[-1].steps if s.k is not None}) > 1]
    assert len(changing) >= RANDOM_TMS1000_IMAGES // 2


def test_mame_decoded_our_tms1000_micro_pla(random_runs):
    # A failed parse would leave A and Y at 0 (docs/mame-oracle.md §1); 01 is A8ACC: A + 8.
    steps = [s for *_, trace in random_runs for s in trace.steps]
    assert len({s.a for s in steps}) == 16 and len({s.y for s in steps}) == 16
    after_a8acc = {(b.a - a.a) % 16 for *_, t in random_runs
                   for a, b in zip(t.steps, t.steps[1:]) if a.op == 0x01}
    assert after_a8acc == {8}


def test_tms1000_programs_run_identically_in_mame(program_runs, capsys):
    cross_check(capsys, "tests/programs (tms1000, simon)", program_runs)


def test_tms1000_programs_execute_the_tms1000_only_opcodes(program_runs):
    executed = {s.op for *_, trace in program_runs for s in trace.steps}
    # COMX, A8ACC, A10ACC, A6ACC, DAN, KNEZ (09), CLO, IA, TAMIY, ALEC, LDX (2-bit)
    assert {0x00, 0x01, 0x05, 0x06, 0x07, 0x09, 0x0B, 0x0E, 0x20, 0x3C} <= executed
    assert any(0x70 <= op < 0x80 for op in executed)


def test_a_key_mask_on_a_configuration_switch_is_refused(simon):
    with pytest.raises(MameError, match="key mask 1 presses bits 1, which are configuration "
                                        "switches on simon"):
        simon.trace([bytes(1024)], standard_micro_pla(TMS1000), ident_output_pla(TMS1000),
                    10, [[1]])


def test_mames_tms1000_disassembly_is_the_saved_reference(simon):
    saved = {int(line[:2], 16): line[3:].rstrip()
             for line in MAME_DASM.read_text(encoding="ascii").splitlines()}
    assert simon.disassemble(bytes(range(256)) * 4) == saved


def test_disassembling_an_image_of_the_wrong_size_is_refused(simon):
    with pytest.raises(MameError, match="ROM image has 2048 bytes .expected 1024 for the "
                                        "TMS1000 of simon"):
        simon.disassemble(bytes(2048))


def test_random_tms1000_images_run_identically_on_the_compiled_kernel(random_runs, capsys):
    cross_check(capsys, "random TMS1000 images (simon)", random_runs, core="compiled")


def test_tms1000_ram_snapshots_hold_its_64_nibbles(random_runs):
    assert {len(text) for *_, trace in random_runs for text in trace.ram.values()} == {64}
