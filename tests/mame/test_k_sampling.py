"""When a K input change reaches an instruction: MAME 0.251's mbdtower against both our cores.

Our firmware (below) strobes the three key columns, lights the reel-sensor LED, runs the motor
and then executes only K-reading opcodes (TKA, KNEZ, COMX, TDO, TPC, RSTR, SETR, RETN: every
opcode 08-0F reads K: docs/k-sampling.md) round a page, forever. MAME single-steps it
while one key after another is held for one 1/60 s frame: MAME commits input changes at frame
boundaries (k/60 s = k * 7083.33 clocks), whose phase against the 6-clock instruction walks
through nine values, so an edge lands on every clock offset 0-5 of the K-reading instructions.
The reel sensor changes K8 at the 27 ms reel ticks (11,475 clocks: offsets 1 and 4 from
power-on, the only ones there are: MAME's driver restarts the reel with the CPU on a reset)
and at frame boundaries, where the LED's brightness is updated: a second firmware leaves the
reel parked in its big hole and blinks the LED every few frames while it reads K, so those
sensor edges land on every offset too. Our board gets the same keys at the
same frame times (a script) and each core reports the K value of every read; both must equal
MAME's read for read, and the runs must have hit every offset (docs/k-sampling.md).
"""
from __future__ import annotations

from fractions import Fraction

import pytest

from captures.darktower_facts import KEY_MATRIX
from captures.script import Press, Script
from emulator.asm import assemble
from emulator.chips import TMS1400
from emulator.darktower import DarkTowerBoard, glyph_output_pla
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
LED_FILL = ("KNEZ", "COMX", "TDO", "TPC", "RETN", "KNEZ")   # K reads that keep A and Y


def led_source() -> str:
    """Return the LED firmware: the reel stays parked in its big hole (motor off), the sensor
    LED R8 is lit for about 2 frames and dark for about 4, forever, while K is read."""
    lines = [".chip tms1400", ".page 15", "LBR blink", ".page 0", "blink: TCY 8", "SETR"]

    def delay(name: str, a: int = 0) -> list[str]:   # (16 - a) x 16 x 9 instructions, K
        return [f"TCY {a}", "TYA", f"o{name}: TCY 0", f"i{name}: {LED_FILL[0]}",   # on 6 of 9
                *LED_FILL[1:], "IYC", f"BR n{name}", f"BR i{name}", f"n{name}: A1ACC",
                f"BR e{name}", f"BR o{name}", f"e{name}: KNEZ"]
    # About 2 frames lit and 3.4 dark: the blink period (5.4 frames) is no multiple of the
    # 3 frames after which the frame boundary's phase against the instructions repeats.
    lines += delay("on") + ["TCY 8", "RSTR"] + delay("off1") + delay("off2", 4) + ["BR blink"]
    return "\n".join(lines) + "\n"


LED_ROM = bytes(assemble(led_source()).rom)


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


def our_reads(core: str, rom: bytes, end: int, keys: bool = True) -> list[tuple[int, int]]:
    """Return ``(fetch cycle, K)`` of every K read of ``rom`` on ``core`` up to clock ``end``,
    with the sweep's keys scripted (``keys``)."""
    cpu = make_cpu(TMS1400, rom, standard_micro_pla(), glyph_output_pla(), core=core)
    board = DarkTowerBoard(cpu)
    if keys:
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


@pytest.fixture(scope="module")
def mame_led_reads(oracle, mpla_text, glyph_opla_text, run_once):
    """Return MAME's K reads of the LED firmware: ``[(fetch cycle, opcode, K), ...]``."""
    def compute():
        [trace] = oracle.trace([LED_ROM], mpla_text, glyph_opla_text, STEPS)
        return [(s.cycle, s.op, s.k) for s in trace.steps if s.k is not None]
    return run_once("k_sampling_mame_led", compute)


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


@pytest.mark.parametrize("core", ["reference", "fast"])
def test_every_k_read_with_the_led_blinking_returns_what_mame_read(core, mame_led_reads):
    if core == "fast" and not FAST_AVAILABLE:
        pytest.skip("accelerated core not built: pip install -e . with gcc")
    ours = our_reads(core, LED_ROM, mame_led_reads[-1][0] + 1, keys=False)
    assert len(mame_led_reads) > 100_000
    assert ours == [(c, k) for c, _, k in mame_led_reads], first_difference(ours, mame_led_reads)


PHASES = {Fraction(k, 3) for k in range(1, 18, 2)}    # 1/3, 1, 5/3, ... 17/3 clocks


def edge_phase(edge: Fraction) -> tuple[int, Fraction]:
    """Return ``(fetch cycle, edge - fetch)`` of the instruction executing at ``edge``
    (fetches at 6n + 5, so 0 <= edge - fetch < 6)."""
    fetch = 5 + 6 * ((edge - 5) // 6)
    return int(fetch), edge - fetch


def test_the_sweep_puts_key_and_sensor_edges_on_every_offset(mame_reads, mame_led_reads):
    """Checks the test itself. A frame boundary k/60 s is k x 7083 1/3 clocks: against the
    fetches (5 mod 6) it falls at nine phases, 1/3, 1, 1 2/3, ... 5 2/3 clocks after a fetch,
    covering the clock offsets 0-5; 1 2/3 is the one inside the K sample clock. Key edges fell
    on all nine phases, and on each of the eight K-reading opcodes; the reel sensor's K8 edges
    at ticks on the two offsets a 27 ms tick can have, and its K8 edges at brightness updates
    on all nine phases."""
    assert PHASES == {edge_phase(Fraction(k * CLOCK, 60))[1] for k in range(18)}
    op_at = {c: op for c, op, _ in mame_reads[False]}
    key_hits: set[tuple[int, Fraction]] = set()
    for frame in range(2, FRAMES + 2):              # a key is pressed or released at each
        fetch, phase = edge_phase(Fraction(frame * CLOCK, 60))
        if fetch in op_at:
            key_hits.add((op_at[fetch], phase))
    assert {phase for _, phase in key_hits} == PHASES
    assert {int(phase) for _, phase in key_hits} == set(range(6))
    assert {op for op, _ in key_hits} == set(range(0x08, 0x10))
    sensor_hits = set()
    for reads in mame_reads.values():
        k_at = {c: k for c, _, k in reads}
        for tick in range(11_475, reads[-1][0], 11_475):
            fetch, phase = edge_phase(Fraction(tick))
            if {fetch - 6, fetch + 6} <= k_at.keys() and (k_at[fetch - 6] ^ k_at[fetch + 6]) & 8:
                sensor_hits.add(phase)
    # Ticks fall on clocks 0 and 3 mod 6 (11,475 = 3 mod 6), fetches on 5 mod 6: offsets 1, 4.
    assert sensor_hits == {1, 4}
    op_at = {c: op for c, op, _ in mame_led_reads}
    k_at = {c: k for c, _, k in mame_led_reads}
    led_hits = set()
    for frame in range(1, FRAMES):
        fetch, phase = edge_phase(Fraction(frame * CLOCK, 60))
        if fetch in op_at and {fetch - 6, fetch + 6} <= k_at.keys() \
                and (k_at[fetch - 6] ^ k_at[fetch + 6]) & 8:
            led_hits.add(phase)
    assert led_hits == PHASES


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
