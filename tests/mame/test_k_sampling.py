"""When a K input change reaches an instruction: MAME 0.251's mbdtower against both our cores.

Our firmware (below) strobes the three key columns, lights the reel-sensor LED, runs the motor
and then executes only K-reading opcodes (TKA, KNEZ, COMX, TDO, TPC, RSTR, SETR, RETN: every
opcode 08-0F reads K, tms1400-facts.md §5.2.1) round a page, forever. MAME single-steps it
while one key after another is held for one 1/60 s frame: MAME commits input changes at frame
boundaries (k/60 s = k * 7083.33 clocks), whose phase against the 6-clock instruction walks
through nine values, so an edge lands on every clock offset 0-5 of the K-reading instructions.
The reel sensor changes K8 at the 27 ms reel ticks (11,475 clocks: offsets 1 and 4 from
power-on) and the LED's brightness at frame boundaries. Our board gets the same keys at the
same frame times (a script) and each core reports the K value of every read; both must equal
MAME's read for read, and the runs must have hit every offset (docs/k-sampling.md).
"""
from __future__ import annotations

from fractions import Fraction

import pytest

from captures.script import Press, Script
from emulator.asm import assemble
from emulator.chips import TMS1400
from emulator.darktower import KEY_MATRIX, DarkTowerBoard, glyph_output_pla
from emulator.decode import standard_micro_pla
from emulator.fastcore import FAST_AVAILABLE, make_cpu

pytestmark = pytest.mark.mame

CLOCK = 425_000
FRAMES = 150                 # 2.5 s: every key pressed 6 times, every offset many times
STEPS = FRAMES * CLOCK // 60 // 6
KEY_OPS = ("TKA", "KNEZ", "COMX", "TKA", "TDO", "KNEZ", "TPC", "TKA", "RSTR", "KNEZ", "SETR",
           "TKA", "RETN", "KNEZ")
BUTTONS = tuple(KEY_MATRIX)  # INVENTORY ... TOMB/RUIN, columns R0-R2, rows K1-K8


def sweep_source(late_motor: bool = False) -> str:
    """Return the firmware: columns R0-R2 and LED R8 on, the motor R9 on (after about 1.5 reel
    ticks when ``late_motor``, so the reel moves on even ticks instead of odd ones and its K8
    edges fall on the other offset), then 64 K reads round page 0 forever."""
    lines = [".chip tms1400", ".page 15"]
    for y in (0, 1, 2, 8):
        lines += [f"TCY {y}", "SETR"]
    if late_motor:                 # 3 x 16 x (16 x 3 + 3) instructions = 14,688 clocks
        for block in range(3):
            lines += ["CLA", f"o{block}: TCY 0", f"i{block}: IYC", f"BR n{block}",
                      f"BR i{block}", f"n{block}: A1ACC", f"BR e{block}", f"BR o{block}",
                      f"e{block}: TCY 0"]
    lines += ["TCY 9", "SETR", "TCY 3", "LBR reads", ".page 0"]   # the page's SETR/RSTR: R3
    ops = [KEY_OPS[i % len(KEY_OPS)] for i in range(64)]
    lines.append(f"reads: {ops[0]}")
    lines += ops[1:]
    return "\n".join(lines) + "\n"


ROMS = {late: bytes(assemble(sweep_source(late)).rom) for late in (False, True)}


def key_masks() -> list[int]:
    """Return the oracle's key schedule: mask i is committed at frame boundary i/60 s (i >= 2;
    mask 1 is held from the start): nothing, a key, nothing, the next key, ..."""
    masks = [0]
    for frame in range(2, FRAMES + 2):
        if frame % 2:
            masks.append(0)
        else:
            col, bit = KEY_MATRIX[BUTTONS[frame // 2 % len(BUTTONS)]]
            masks.append(bit << 4 * col)
    return masks


def key_script() -> Script:
    """Return the same keys for our board: pressed at even frame boundaries for one frame."""
    acts = [Press(frame / 60, BUTTONS[frame // 2 % len(BUTTONS)], 1 / 60)
            for frame in range(2, FRAMES + 2, 2)]
    return Script(actions=acts, name="k sweep")


@pytest.fixture(scope="module")
def mame_reads(oracle, mpla_text, glyph_opla_text, run_once):
    """Return ``{late_motor: [(fetch cycle, opcode, K), ...]}``: MAME's K reads, one MAME run
    from power-on per firmware (a soft reset would shift the CPU against the board's timers)."""
    def compute():
        out = {}
        for late, rom in ROMS.items():
            [trace] = oracle.trace([rom], mpla_text, glyph_opla_text, STEPS, keys=[key_masks()])
            out[late] = [(s.cycle, s.op, s.k) for s in trace.steps if s.k is not None]
        return out
    return run_once("k_sampling_mame", compute)


def our_reads(core: str, rom: bytes, end: int) -> list[tuple[int, int]]:
    """Return ``(fetch cycle, K)`` of every K read of the sweep on ``core``, keys scripted."""
    cpu = make_cpu(TMS1400, rom, standard_micro_pla(), glyph_output_pla(), core=core)
    board = DarkTowerBoard(cpu)
    board.schedule(key_script())
    reads: list[tuple[int, int]] = []
    sample = board.read_k

    def read_k(cycle: int) -> int:
        k = sample(cycle)
        reads.append((cycle - 1, k))      # the core samples K at fetch + 1
        return k
    cpu.read_k = read_k
    cpu.run_until(end)
    return reads


def first_difference(ours, theirs) -> str:
    for (cycle, k), (mcycle, op, mk) in zip(ours, theirs):
        if (cycle, k) != (mcycle, mk):
            return (f"first difference at the read fetched at cycle {mcycle} (opcode {op:02X}): "
                    f"ours fetched at {cycle} read K={k:X}, MAME read K={mk:X}")
    return f"ours made {len(ours)} reads, MAME {len(theirs)}"


@pytest.mark.parametrize("late_motor", [False, True])
@pytest.mark.parametrize("core", ["reference", "fast"])
def test_every_k_read_returns_what_mame_read(core, late_motor, mame_reads):
    if core == "fast" and not FAST_AVAILABLE:
        pytest.skip("accelerated core not built: pip install -e . with gcc")
    theirs = mame_reads[late_motor]
    ours = our_reads(core, ROMS[late_motor], theirs[-1][0] + 1)
    assert len(theirs) > 55_000
    assert ours == [(c, k) for c, _, k in theirs], first_difference(ours, theirs)


def edge_offset(edge: Fraction) -> tuple[int, int]:
    """Return ``(fetch cycle, clock offset 0-5)`` of the instruction executing at ``edge``
    (fetches at 6n + 5)."""
    fetch = 5 + 6 * ((edge - 5) // 6)
    return int(fetch), int(edge - fetch)


def test_the_sweep_puts_key_and_sensor_edges_on_every_offset(mame_reads):
    """Checks the test itself: key edges fell on every clock offset 0-5 of every K-reading
    opcode kind, and the reel sensor's K8 edges on the two offsets a 27 ms tick can have."""
    op_at = {c: op for c, op, _ in mame_reads[False]}
    key_hits: set[tuple[int, int]] = set()
    for frame in range(2, FRAMES + 2):              # a key is pressed or released at each
        fetch, offset = edge_offset(Fraction(frame * CLOCK, 60))
        if fetch in op_at:
            key_hits.add((op_at[fetch], offset))
    assert {offset for _, offset in key_hits} == set(range(6))
    assert {op for op, _ in key_hits} == set(range(0x08, 0x10))
    sensor_hits = set()
    for reads in mame_reads.values():
        k_at = {c: k for c, _, k in reads}
        for tick in range(11_475, reads[-1][0], 11_475):
            fetch, offset = edge_offset(Fraction(tick))
            if {fetch - 6, fetch + 6} <= k_at.keys() and (k_at[fetch - 6] ^ k_at[fetch + 6]) & 8:
                sensor_hits.add(offset)
    # Ticks fall on clocks 0 and 3 mod 6 (11,475 = 3 mod 6), fetches on 5 mod 6: offsets 1, 4.
    assert sensor_hits == {1, 4}


def test_the_fast_board_path_gives_the_reference_pins_for_the_sweep():
    if not FAST_AVAILABLE:
        pytest.skip("accelerated core not built: pip install -e . with gcc")
    pins = []
    for core in ("reference", "fast"):
        cpu = make_cpu(TMS1400, ROMS[True], standard_micro_pla(), glyph_output_pla(), core=core)
        board = DarkTowerBoard(cpu)
        board.schedule(key_script())
        board.run_until(STEPS * 6)
        pins.append(board.pins)
    assert len(pins[0]) > 1000
    assert pins[1] == pins[0]
