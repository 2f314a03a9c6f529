"""The MAME cross-check: our core's trace equals MAME 0.251's, line by line.

Both sides run the same image with PLA files written by our decode; our core reads every K
value MAME's core read (the value MAME read is the ground truth, docs/mame-oracle.md §5.8). TMS1400
images run in MAME's mbdtower, TMS1100 images in mdndclab. Corpus: (a) the hand-written
programs tests/programs/*.asm on every chip their "; Chips:" line names, (b) 200 seeded random
TMS1400 images x 2,000 instructions with keys changing during the run, plus 100 TMS1100 ones,
(c) our standard and glyph PLA files and 32 distinct random micro PLAs, (d) the golden programs
tests/golden/core_{tms1100,tms1400}.asm, whose golden traces must be MAME's. Everything runs on
the reference core and on the compiled kernel (emulator.fastcore), and besides the trace lines
the RAM is compared: MAME's Lua script snapshots it before every 100th instruction and after
the last (``MameOracle.trace(ram_every=...)``), so a wrong write shows before it is read. Each
test prints "compared N programs, M instructions, R RAM snapshots, K mismatches"; a mismatch
shows both lines side by side, or the RAM address and both nibbles.
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
from emulator.mame import (MBDTOWER, MDNDCLAB, MPLA_SIZE, OPLA_SIZE, MameOracle, MameTrace,
                           ram_hex)
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
RAM_EVERY = 100           # RAM snapshots: before every 100th instruction and after the last
RANDOM_MICRO_PLAS = 32
GOLDEN = PROGRAMS.parent / "golden"


def fast_available() -> bool:
    """Return True when the compiled kernel is built (emulator._fastcore)."""
    from emulator.fastcore import FAST_AVAILABLE
    return FAST_AVAILABLE


def make_core(chip: Chip, rom: bytes, mpla: Pla, opla: Pla | None, core: str):
    """Return (a reset chip on ``core``, its trace-lines function): "reference" or "compiled"."""
    if core == "reference":
        return Cpu(chip, rom, mpla, opla), trace_lines
    from emulator.fastcore import FastCpu, fast_trace_lines
    if not fast_available():
        pytest.skip("emulator._fastcore is not built (pip install -e . with a C compiler)")
    return FastCpu(chip, rom, mpla, opla), fast_trace_lines


def core_run(chip: Chip, rom: bytes, mpla: Pla, opla: Pla | None, trace: MameTrace,
             core: str = "reference") -> tuple[list[str], dict[int, str]]:
    """Return our core's trace lines of ``rom`` and its RAM at the instructions MAME
    snapshotted (``trace.ram``), fed the K values MAME read."""
    cpu, lines_of = make_core(chip, rom, mpla, opla, core)
    k_at = trace.k_reads()
    cpu.read_k = lambda cycle: k_at.get(cycle, 0)
    steps = len(trace.steps)
    points = sorted(n for n in trace.ram if n <= steps)
    lines, ram, done = [], {}, 0
    for stop in points + [steps]:
        for i, line in enumerate(lines_of(cpu, stop - done)):
            lines.append(f"{done + i:X} {line.split(' ', 1)[1]}")
        done = stop
        if stop in trace.ram:
            ram[stop] = ram_hex(cpu.ram)
    return lines, ram


def core_lines(chip: Chip, rom: bytes, mpla: Pla, opla: Pla | None,
               trace: MameTrace) -> list[str]:
    """Return our core's trace of ``rom``, fed the K values MAME read."""
    return core_run(chip, rom, mpla, opla, trace)[0]


def ram_mismatch(name: str, ours: dict[int, str], theirs: dict[int, str]) -> tuple[int, str] | None:
    """Return (n, report) for the first RAM snapshot that differs, naming address and values."""
    for n in sorted(theirs):
        a, b = ours.get(n), theirs[n]
        if a != b:
            if a is None:
                return n, f"{name}: no RAM snapshot of ours before instruction {n}"
            addr = next(i for i, (x, y) in enumerate(zip(a, b)) if x != y)
            return n, (f"{name}: RAM before instruction {n} differs first at {addr:02X} "
                       f"(X={addr >> 4:X} Y={addr & 15:X}): ours {a[addr]}, MAME {b[addr]}\n"
                       f"  ours {a}\n  MAME {b}")
    return None


def mismatch(name: str, ours: list[str], theirs: list[str], ours_ram: dict[int, str] | None = None,
             theirs_ram: dict[int, str] | None = None) -> str | None:
    """Return the first difference of one program: a trace line (both side by side) or a RAM
    snapshot (address and both values), whichever comes first."""
    ram = ram_mismatch(name, ours_ram or {}, theirs_ram or {}) if theirs_ram else None
    for n, (a, b) in enumerate(zip(ours, theirs)):
        if ram is not None and ram[0] <= n:
            return ram[1]
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
    return ram[1] if ram is not None else None


def cross_check(capsys, label: str, runs: list[tuple], core: str = "reference"):
    """Compare every ``(name, chip, image, micro PLA, output PLA, MAME trace)`` run on ``core``
    (trace lines and RAM snapshots), print the counts and fail with the first mismatch."""
    problems = []
    instructions = snapshots = 0
    for name, chip, rom, mpla, opla, trace in runs:
        instructions += len(trace.steps)
        snapshots += len(trace.ram)
        lines, ram = core_run(chip, rom, mpla, opla, trace, core)
        problem = mismatch(name, lines, trace.lines(), ram, trace.ram)
        if problem:
            problems.append(problem)
    summary = (f"{label} ({core} core): compared {len(runs)} programs, {instructions} "
               f"instructions, {snapshots} RAM snapshots, {len(problems)} mismatches")
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
            opla_text_for(chip, opla), PROGRAM_STEPS, [keys for _, _, keys in group],
            ram_every=RAM_EVERY)
        runs += [(name, chip, prog.rom, mpla, opla, trace)
                 for (name, prog, _), trace in zip(group, traces)]
    return runs


def test_hand_written_programs_run_identically_in_mame(program_runs, capsys):
    cross_check(capsys, "tests/programs", program_runs)


def test_hand_written_programs_run_identically_on_the_compiled_kernel(program_runs, capsys):
    cross_check(capsys, "tests/programs", program_runs, core="compiled")


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
        traces = oracle.trace(roms, mpla_text, opla_text, RANDOM_STEPS, keys,
                              ram_every=RAM_EVERY)
        return list(zip(range(RANDOM_IMAGES), roms, traces))
    return run_once("mame-random-corpus", compute)


@pytest.fixture(scope="session")
def random_tms1100_corpus(oracle, run_once):
    """Return (seed, image, MAME trace) for the 100 random TMS1100 images, traced in one run
    of MAME's mdndclab (once per test run)."""
    def compute():
        chip = TMS1100
        seeds = range(RANDOM_TMS1100_IMAGES)
        roms = [random_rom(seed, chip) for seed in seeds]
        keys = [random_key_masks(seed, KEY_FRAMES, ports=18) for seed in seeds]
        traces = oracle_for(oracle, chip).trace(
            roms, file_text(standard_micro_pla(chip), MPLA_SIZE, 30),
            opla_text_for(chip, ident_output_pla(chip)), RANDOM_STEPS, keys, ram_every=RAM_EVERY)
        return list(zip(seeds, roms, traces))
    return run_once("mame-random-tms1100-corpus", compute)


def random_runs(corpus, chip: Chip) -> list[tuple]:
    """Return cross_check runs of a random corpus (standard decode, identity output PLA)."""
    mpla, opla = standard_micro_pla(chip), ident_output_pla(chip)
    what = "random image" if chip == TMS1400 else f"random {chip.name.upper()} image"
    return [(f"{what} seed {seed}", chip, rom, mpla, opla, trace) for seed, rom, trace in corpus]


def test_random_images_run_identically_in_mame(random_corpus, capsys):
    cross_check(capsys, "random images", random_runs(random_corpus, TMS1400))


def test_random_images_run_identically_on_the_compiled_kernel(random_corpus, capsys):
    cross_check(capsys, "random images", random_runs(random_corpus, TMS1400), core="compiled")


def test_random_tms1100_images_run_identically_in_mame(random_tms1100_corpus, capsys):
    assert {s.chapter for _, _, trace in random_tms1100_corpus for s in trace.steps} == {0, 1}
    cross_check(capsys, "random TMS1100 images (mdndclab)",
                random_runs(random_tms1100_corpus, TMS1100))


def test_random_tms1100_images_run_identically_on_the_compiled_kernel(random_tms1100_corpus,
                                                                      capsys):
    cross_check(capsys, "random TMS1100 images (mdndclab)",
                random_runs(random_tms1100_corpus, TMS1100), core="compiled")


def test_ram_snapshots_come_every_100_instructions_and_after_the_last(random_corpus,
                                                                     random_tms1100_corpus):
    for corpus in (random_corpus, random_tms1100_corpus):
        for _, _, trace in corpus:
            assert sorted(trace.ram) == list(range(0, RANDOM_STEPS + 1, RAM_EVERY))
            assert {len(text) for text in trace.ram.values()} == {128}


def test_mame_ram_snapshots_start_cleared_and_fill_as_the_images_write(random_corpus):
    # The RAM really is read back from MAME: cleared at power-on, written by the run.
    assert {trace.ram[0] for _, _, trace in random_corpus} == {"0" * 128}
    written = [seed for seed, _, trace in random_corpus if trace.ram[RANDOM_STEPS] != "0" * 128]
    touched = {addr for _, _, trace in random_corpus
               for addr, digit in enumerate(trace.ram[RANDOM_STEPS]) if digit != "0"}
    assert len(written) >= RANDOM_IMAGES // 2
    assert len(touched) > 64


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


def test_a_ram_difference_is_reported_with_its_address_and_both_values(random_corpus):
    # The same trace lines, but MAME's snapshot before instruction 300 altered at X=2 Y=5:
    # the report names the snapshot, the address and both nibbles, although no line differs.
    seed, rom, trace = random_corpus[0]
    lines, ram = core_run(TMS1400, rom, standard_micro_pla(), ident_output_pla(), trace)
    theirs = dict(trace.ram)
    digit = "7" if theirs[300][0x25] != "7" else "8"
    theirs[300] = theirs[300][:0x25] + digit + theirs[300][0x26:]
    report = mismatch(f"random image seed {seed}", lines, trace.lines(), ram, theirs)
    assert report.splitlines()[0] == (f"random image seed {seed}: RAM before instruction 300 "
                                      f"differs first at 25 (X=2 Y=5): ours {ram[300][0x25]}, "
                                      f"MAME {digit}")


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
    [trace] = oracle.trace([rom], mpla_text, opla_text, 1200, ram_every=RAM_EVERY)
    # MAME really decoded the file: a failed parse would leave A and Y at 0
    # (docs/mame-oracle.md §1).
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


def test_random_micro_plas_are_32_distinct_plas():
    texts = {file_text(_random_micro_pla(seed), MPLA_SIZE, 30) for seed in range(RANDOM_MICRO_PLAS)}
    assert len(texts) == RANDOM_MICRO_PLAS


def test_random_micro_plas_decode_alike_in_mame_and_our_core(oracle, capsys):
    # One MAME process per PLA (MAME reads PLA files once, at start-up), one image each.
    opla = ident_output_pla()
    opla_text = file_text(opla, OPLA_SIZE, 32)
    runs = []
    for seed in range(RANDOM_MICRO_PLAS):
        text = file_text(_random_micro_pla(seed), MPLA_SIZE, 30)
        mpla = read_pla(text, f"random micro PLA {seed}")
        rom = random_rom(10_000 + seed)
        keys = [random_key_masks(10_000 + seed, KEY_FRAMES)]
        [trace] = oracle.trace([rom], text, opla_text, RANDOM_STEPS, keys, ram_every=RAM_EVERY)
        runs.append((f"random micro PLA {seed}", TMS1400, rom, mpla, opla, trace))
    cross_check(capsys, f"{RANDOM_MICRO_PLAS} random micro PLAs", runs)


# --- (d) the golden programs ---------------------------------------------------------------

def golden_lines(chip: str) -> list[str]:
    """Return the lines of tests/golden/core_<chip>.trace (without its # header)."""
    return [ln for ln in (GOLDEN / f"core_{chip}.trace").read_text().splitlines()
            if not ln.startswith("#")]


@pytest.fixture(scope="module")
def golden_runs(oracle):
    """Return {chip name: (chip, image, micro PLA, output PLA, MAME trace)} for the golden
    programs tests/golden/core_{tms1100,tms1400}.asm with tests/golden/core_output.pla."""
    opla = read_pla((GOLDEN / "core_output.pla").read_text(), "core_output.pla")
    # Its unused terms are never-matching filler: the TMS1100's 20-term file holds the rest.
    used = Pla(opla.inputs, opla.outputs, tuple(t for t in opla.terms if "~" not in t[0]),
               opla.phase)
    runs = {}
    for name in ("tms1100", "tms1400"):
        prog = assemble_file(GOLDEN / f"core_{name}.asm")
        chip = prog.chip
        mpla = standard_micro_pla(chip)
        [trace] = oracle_for(oracle, chip).trace(
            [prog.rom], file_text(mpla, MPLA_SIZE, 30), opla_text_for(chip, used),
            len(golden_lines(name)), ram_every=10)
        runs[name] = (chip, prog.rom, mpla, opla, trace)
    return runs


@pytest.mark.parametrize("chip", ["tms1100", "tms1400"])
def test_golden_trace_is_what_mame_traces(golden_runs, chip):
    mame = golden_runs[chip][-1].lines()
    assert len(mame) == 200
    first = next((n for n, (a, b) in enumerate(zip(golden_lines(chip), mame)) if a != b), None)
    assert first is None, (f"core_{chip}.trace line {first}:\n  golden {golden_lines(chip)[first]}"
                           f"\n  MAME   {mame[first]}")


@pytest.mark.parametrize("core", ["reference", "compiled"])
def test_golden_programs_run_identically_in_mame_with_ram(golden_runs, core, capsys):
    runs = [(f"core_{name}.asm", *run) for name, run in golden_runs.items()]
    cross_check(capsys, "golden programs", runs, core=core)
