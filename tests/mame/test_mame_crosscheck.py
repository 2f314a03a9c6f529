"""The MAME cross-check (issue 2, item 8): our core's trace equals MAME 0.251's, line by line.

Both sides run the same image with PLA files written by our decode; our core reads every K
value MAME's core read (the value MAME read is the ground truth, mame-oracle.md §5.8). TMS1400
images run in MAME's mbdtower, TMS1100 images in mdndclab. Corpus: (a) the hand-written
programs tests/programs/*.asm on every chip their "; Chips:" line names, (b) 200 seeded random
TMS1400 images x 2,000 instructions with keys changing during the run, plus 100 TMS1100 ones,
(c) our standard and glyph PLA files and random micro PLAs. Each test prints "compared N
programs, M instructions, K mismatches"; a mismatch shows both lines side by side.
"""
from __future__ import annotations

import io
import random
import re
from pathlib import Path

import pytest

from emulator.asm import assemble_file
from emulator.chips import TMS1100, TMS1400, Chip
from emulator.core import Cpu, lfsr_order
from emulator.darktower import glyph_output_pla
from emulator.decode import ident_output_pla, output_pla_from_table, standard_micro_pla
from emulator.mame import MBDTOWER, MDNDCLAB, MPLA_SIZE, OPLA_SIZE, MameOracle, MameTrace
from emulator.pla import Pla, read_pla, write_pla
from emulator.randrom import random_key_masks, random_rom
from emulator.trace import trace_lines

pytestmark = pytest.mark.mame

PROGRAMS = Path(__file__).resolve().parent.parent / "programs"
RANDOM_IMAGES = 200
RANDOM_TMS1100_IMAGES = 100
RANDOM_STEPS = 2000
PROGRAM_STEPS = 8000       # every program ends in an endless loop well before this
KEY_FRAMES = 4            # 2,000 instructions span 1.7 frames: 4 masks cover any start phase


def core_lines(chip: Chip, rom: bytes, mpla: Pla, opla: Pla | None,
               trace: MameTrace) -> list[str]:
    """Return our core's trace of ``rom``, fed the K values MAME read."""
    cpu = Cpu(chip, rom, mpla, opla)
    k_at = trace.k_reads()
    cpu.read_k = lambda cycle: k_at.get(cycle, 0)
    return list(trace_lines(cpu, len(trace.steps)))


def mismatch(name: str, ours: list[str], theirs: list[str]) -> str | None:
    """Return the first differing instruction of one program, both lines side by side."""
    for n, (a, b) in enumerate(zip(ours, theirs)):
        if a != b:
            fields = [x.split("=")[0] if "=" in x else name
                      for name, x, y in zip(("n", "cycle", "c:p:pc", "op"), a.split(), b.split())
                      if x != y]
            fields += [x.split("=")[0] for x, y in zip(a.split()[4:], b.split()[4:]) if x != y]
            width = max(len(a), len(b))
            before = f"\n  before      {theirs[n - 1]}" if n else ""
            return (f"{name}: first mismatch at instruction {n} (differs in "
                    f"{', '.join(fields) or 'length'}){before}\n"
                    f"  {'ours':<{width}}  |  MAME\n  {a:<{width}}  |  {b}")
    if len(ours) != len(theirs):
        return f"{name}: ours has {len(ours)} lines, MAME {len(theirs)}"
    return None


def cross_check(capsys, label: str, runs: list[tuple]):
    """Compare every ``(name, chip, image, micro PLA, output PLA, MAME trace)`` run, print the
    counts and fail with the first mismatch."""
    problems = []
    instructions = 0
    for name, chip, rom, mpla, opla, trace in runs:
        instructions += len(trace.steps)
        problem = mismatch(name, core_lines(chip, rom, mpla, opla, trace), trace.lines())
        if problem:
            problems.append(problem)
    summary = (f"{label}: compared {len(runs)} programs, {instructions} instructions, "
               f"{len(problems)} mismatches")
    with capsys.disabled():
        print(f"\n{summary}")
        if problems:
            print(problems[0])
    assert not problems, f"{summary}\n{problems[0]}"


def oracle_for(oracle: MameOracle, chip: Chip) -> MameOracle:
    """Return the oracle running ``chip``'s MAME machine (mbdtower or mdndclab)."""
    machine = MBDTOWER if chip == TMS1400 else MDNDCLAB
    return MameOracle(oracle.binary, oracle.timeout, oracle.workdir, machine)


def opla_text_for(chip: Chip, opla: Pla) -> str:
    """Return ``opla`` as ``chip``'s MAME output-PLA file (557 bytes/32 terms, 365/20)."""
    machine = MBDTOWER if chip == TMS1400 else MDNDCLAB
    return file_text(opla, machine.opla_size, machine.opla_terms)


def file_text(pla: Pla, size: int, terms: int) -> str:
    """Return ``pla`` as written to a file by emulator.pla.write_pla (MAME's exact size)."""
    buf = io.StringIO()
    write_pla(pla, buf, size, term_count=terms)
    return buf.getvalue()


# --- (a) the hand-written programs ---------------------------------------------------------

_CHIPS_LINE = re.compile(r"^;\s*Chips:(.*)$", re.MULTILINE)


def program_chips(path: Path) -> list[Chip]:
    """Return the chips a program's ``; Chips:`` header line names (tests/programs/README.md)."""
    match = _CHIPS_LINE.search(path.read_text(encoding="utf-8"))
    assert match, f"{path.name}: no '; Chips:' header line"
    named = re.findall(r"TMS1[14]00", match.group(1).upper())
    return [{"TMS1400": TMS1400, "TMS1100": TMS1100}[name] for name in dict.fromkeys(named)]


@pytest.fixture(scope="module")
def program_runs(oracle):
    """Return (name, chip, image, micro PLA, output PLA, MAME trace) for each program and chip.

    Keys change every frame (the programs' paths do not depend on K; tests/programs/README.md
    asks the cross-check to hold keys so TKA/KNEZ read something).
    """
    sources = sorted(PROGRAMS.glob("*.asm"))
    assert sources, f"no test programs in {PROGRAMS} (the opcode/edge-case corpus)"
    groups: dict[tuple, list] = {}
    for i, path in enumerate(sources):
        for chip in program_chips(path):
            prog = assemble_file(path, chip)
            opla = (output_pla_from_table(prog.opla.get(j, 0) for j in range(32)) if prog.opla
                    else ident_output_pla(chip))
            ports = 3 if chip == TMS1400 else 18
            frames = PROGRAM_STEPS * 6 * 60 // chip.clock_hz + 2
            keys = random_key_masks(i, frames, ports)
            groups.setdefault((chip, opla), []).append((f"{path.name} ({chip.name})", prog, keys))
    runs = []
    # One MAME process per machine and output PLA (PLA files are read once, at start-up).
    for (chip, opla), group in groups.items():
        mpla = standard_micro_pla(chip)
        traces = oracle_for(oracle, chip).trace(
            [prog.rom for _, prog, _ in group], file_text(mpla, MPLA_SIZE, 30),
            opla_text_for(chip, opla), PROGRAM_STEPS, [keys for _, _, keys in group])
        runs += [(name, chip, prog.rom, mpla, opla, trace)
                 for (name, prog, _), trace in zip(group, traces)]
    return runs


def test_hand_written_programs_run_identically_in_mame(program_runs, capsys):
    cross_check(capsys, "tests/programs", program_runs)


def test_hand_written_programs_run_on_both_chips(program_runs):
    assert {run[1] for run in program_runs} == {TMS1400, TMS1100}


def test_hand_written_programs_execute_every_opcode_and_read_keys(program_runs):
    tms1400 = [run for run in program_runs if run[1] == TMS1400]
    executed = {s.op for *_, trace in tms1400 for s in trace.steps}
    k_values = {s.k for *_, trace in program_runs for s in trace.steps if s.k is not None}
    assert sorted(set(range(256)) - executed) == []
    assert len(k_values) > 1, "no key was ever read while its column was selected"


# --- (b) seeded random images --------------------------------------------------------------

@pytest.fixture(scope="session")
def random_corpus(oracle, run_once):
    """Return (seed, image, MAME trace) for the 200 random images, traced in one MAME run
    (once per test run, also under pytest-xdist)."""
    def compute():
        mpla_text = file_text(standard_micro_pla(), MPLA_SIZE, 30)
        opla_text = file_text(ident_output_pla(), OPLA_SIZE, 32)
        roms = [random_rom(seed) for seed in range(RANDOM_IMAGES)]
        keys = [random_key_masks(seed, KEY_FRAMES) for seed in range(RANDOM_IMAGES)]
        traces = oracle.trace(roms, mpla_text, opla_text, RANDOM_STEPS, keys)
        return list(zip(range(RANDOM_IMAGES), roms, traces))
    return run_once("mame-random-corpus", compute)


def test_random_images_run_identically_in_mame(random_corpus, capsys):
    runs = [(f"random image seed {seed}", TMS1400, rom, standard_micro_pla(), ident_output_pla(),
             trace) for seed, rom, trace in random_corpus]
    cross_check(capsys, "random images", runs)


def test_random_tms1100_images_run_identically_in_mame(oracle, capsys):
    chip = TMS1100
    mpla, opla = standard_micro_pla(chip), ident_output_pla(chip)
    seeds = range(RANDOM_TMS1100_IMAGES)
    roms = [random_rom(seed, chip) for seed in seeds]
    keys = [random_key_masks(seed, KEY_FRAMES, ports=18) for seed in seeds]
    traces = oracle_for(oracle, chip).trace(roms, file_text(mpla, MPLA_SIZE, 30),
                                            opla_text_for(chip, opla), RANDOM_STEPS, keys)
    assert {s.chapter for trace in traces for s in trace.steps} == {0, 1}
    runs = [(f"random TMS1100 image seed {seed}", chip, rom, mpla, opla, trace)
            for seed, rom, trace in zip(seeds, roms, traces)]
    cross_check(capsys, "random TMS1100 images (mdndclab)", runs)


def test_random_images_run_identically_on_the_compiled_kernel(random_corpus, capsys):
    fastcore = pytest.importorskip("emulator.fastcore")
    if not fastcore.FAST_AVAILABLE:
        pytest.skip("emulator._fastcore is not built (pip install -e . with a C compiler)")
    problems, instructions = [], 0
    for seed, rom, trace in random_corpus:
        cpu = fastcore.FastCpu(TMS1400, rom, standard_micro_pla(), ident_output_pla())
        k_at = trace.k_reads()
        cpu.read_k = lambda cycle, k_at=k_at: k_at.get(cycle, 0)
        ours = list(fastcore.fast_trace_lines(cpu, len(trace.steps)))
        instructions += len(ours)
        problem = mismatch(f"random image seed {seed} (compiled kernel)", ours, trace.lines())
        if problem:
            problems.append(problem)
    summary = (f"compiled kernel: compared {len(random_corpus)} programs, {instructions} "
               f"instructions, {len(problems)} mismatches")
    with capsys.disabled():
        print(f"\n{summary}")
    assert not problems, f"{summary}\n{problems[0]}"


def test_random_images_execute_every_opcode_in_every_chapter(random_corpus):
    executed = {s.op for _, _, trace in random_corpus for s in trace.steps}
    pages = {(s.chapter, s.page) for _, _, trace in random_corpus for s in trace.steps}
    assert sorted(set(range(256)) - executed) == []
    assert len(pages) == 64


def test_random_images_read_keys_that_change_during_a_run(random_corpus):
    changing = [seed for seed, _, trace in random_corpus
                if len({s.k for s in trace.steps if s.k is not None}) > 1]
    values = {s.k for _, _, trace in random_corpus for s in trace.steps if s.k is not None}
    assert len(changing) >= RANDOM_IMAGES // 2
    assert values == set(range(16))


def test_a_difference_is_reported_with_both_lines_side_by_side(random_corpus):
    # Our core with another output PLA than MAME's: the O pins differ from reset on.
    seed, rom, trace = random_corpus[0]
    ours = core_lines(TMS1400, rom, standard_micro_pla(), glyph_output_pla(), trace)
    report = mismatch(f"random image seed {seed}", ours, trace.lines())
    assert report is not None
    head, labels, both = report.splitlines()
    assert head == "random image seed 0: first mismatch at instruction 0 (differs in O)"
    assert labels.split() == ["ours", "|", "MAME"]
    assert both.split("  |  ") == [f"  {ours[0]}", trace.lines()[0]]


# --- (c) PLA files written by our decode ---------------------------------------------------

def _pla_exercise_rom() -> bytes:
    """Return an image running every micro-PLA opcode and TDO of all 32 O indexes.

    Pages are filled in LFSR order and chained with ``LDP next; BR 00``.
    """
    tcy = [0x40 | int(f"{n:04b}"[::-1], 2) for n in range(16)]
    seq = []
    for a in range(16):       # A = a; SL = 1 then 0 (YNEA: SL = Y != A); TDO each time
        seq += [tcy[a], 0x23, tcy[a ^ 1], 0x02, 0x0A, tcy[a], 0x02, 0x0A]
    micro = [*range(0x00, 0x09), 0x0E, *range(0x20, 0x28), *range(0x38, 0x80)]
    rnd = random.Random(7)
    for op in micro:          # each micro opcode on some RAM/register contents, then TDO
        seq += [0x28 | rnd.randrange(8), tcy[rnd.randrange(16)], 0x70 | rnd.randrange(16),
                op, 0x0A]
    rom = bytearray(4096)
    order = lfsr_order()
    page, chunk = 15, 62
    for start in range(0, len(seq), chunk):
        part = seq[start:start + chunk]
        nxt = (page + 1) % 16
        part += [0x10 | int(f"{nxt:04b}"[::-1], 2), 0x80]
        for i, byte in enumerate(part):
            rom[page << 6 | order[i]] = byte
        page = nxt
    return bytes(rom)


def test_our_standard_decode_and_glyph_plas_behave_in_mame_as_in_our_core(oracle, capsys):
    mpla, opla = standard_micro_pla(), glyph_output_pla()
    mpla_text, opla_text = file_text(mpla, MPLA_SIZE, 30), file_text(opla, OPLA_SIZE, 32)
    assert (len(mpla_text), len(opla_text)) == (MPLA_SIZE, OPLA_SIZE)
    rom = _pla_exercise_rom()
    [trace] = oracle.trace([rom], mpla_text, opla_text, 1200)
    # MAME really decoded the file: a failed parse would leave A and Y at 0 (mame-oracle.md §1).
    assert len({s.a for s in trace.steps}) == 16 and len({s.y for s in trace.steps}) == 16
    assert len({s.o for s in trace.steps}) >= 20
    cross_check(capsys, "standard decode + glyph PLA",
                [("PLA exercise", TMS1400, rom, mpla, opla, trace)])


def _random_micro_pla(seed: int) -> Pla:
    """Return a random 8x16 micro PLA: 30 terms of 0/1/- (some ~), random outputs and phase."""
    rnd = random.Random(f"pla-{seed}")
    terms = []
    for _ in range(30):
        ins = "~" * 8 if rnd.random() < 0.1 else "".join(rnd.choice("01--") for _ in range(8))
        terms.append((ins, "".join("1" if rnd.random() < 0.2 else "0" for _ in range(16))))
    return Pla(8, 16, tuple(terms), "".join(rnd.choice("01") for _ in range(16)))


def test_random_micro_plas_decode_alike_in_mame_and_our_core(oracle, capsys):
    opla = ident_output_pla()
    opla_text = file_text(opla, OPLA_SIZE, 32)
    runs = []
    for seed in range(8):
        text = file_text(_random_micro_pla(seed), MPLA_SIZE, 30)
        mpla = read_pla(text, f"random micro PLA {seed}")
        roms = [random_rom(10_000 + 10 * seed + i) for i in range(4)]
        keys = [random_key_masks(10_000 + i, KEY_FRAMES) for i in range(4)]
        traces = oracle.trace(roms, text, opla_text, RANDOM_STEPS, keys)
        runs += [(f"random micro PLA {seed}, image {i}", TMS1400, rom, mpla, opla, trace)
                 for i, (rom, trace) in enumerate(zip(roms, traces))]
    cross_check(capsys, "random micro PLAs", runs)
