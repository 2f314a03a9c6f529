"""The kernel's watch record (``FastCpu.set_watch``/``take_hits``, used by emulator.debug):
what it records, with which state, and what it drops when full."""
from __future__ import annotations

import pytest

from pathlib import Path

from emulator.asm import assemble_file
from emulator.chips import TMS1100, TMS1400
from emulator.core import Cpu
from emulator.decode import MICRO_BIT, fixed_table, micro_table
from emulator.fastcore import FAST_AVAILABLE, FastCpu
from emulator.randrom import random_rom

pytestmark = pytest.mark.skipif(not FAST_AVAILABLE,
                                reason="accelerated core not built: pip install -e . with gcc")

ALL_ROM = b"\xff" * 512
NO_RAM = bytes(16)
ALL_RAM = b"\xff" * 16


def _reference_states(chip, rom, steps):
    """Yield (state before, state after, address) of each instruction on the reference core."""
    cpu = Cpu(chip, rom)
    for _ in range(steps):
        before = (cpu.ca, cpu.pa, cpu.pc, cpu.a, cpu.x, cpu.y, cpu.cycle, bytes(cpu.ram))
        cpu.step()
        after = (cpu.ca, cpu.pa, cpu.pc, cpu.a, cpu.x, cpu.y, cpu.cycle, bytes(cpu.ram))
        yield before, after


def _prev(pc_raw: int) -> int:
    from emulator.core import LFSR_NEXT
    return LFSR_NEXT.index(pc_raw)


@pytest.mark.parametrize("chip", [TMS1100, TMS1400])
def test_pc_bitmap_of_every_address_records_each_instruction_with_its_state_before(chip):
    rom = random_rom(5, chip)
    fast = FastCpu(chip, rom)
    fast.set_watch(ALL_ROM)
    fast.run(500)
    hits, dropped = fast.take_hits()
    assert dropped == 0 and len(hits) == 500
    for hit, (before, _) in zip(hits, _reference_states(chip, rom, 500)):
        got = (hit["ca"], hit["pa"], _prev(hit["pc"]), hit["a"], hit["x"], hit["y"],
               hit["cycle"], hit["ram"][: chip.ram_size])
        assert got == before
        assert hit["kind"] == "pc" and hit["where"] == hit["from"] == \
            before[0] << 10 | before[1] << 6 | before[2]


def test_ram_write_record_has_the_state_after_the_store():
    program = assemble_file(Path(__file__).parent.parent / "programs" / "bits_ram.asm")
    chip, rom = program.chip, program.rom
    fast = FastCpu(chip, rom)
    fast.set_watch(bytes(512), NO_RAM, ALL_RAM)
    fast.run(2000)
    hits, _ = fast.take_hits()
    micro = micro_table(chip)
    fixed = fixed_table(chip)
    expected = []
    for before, after in _reference_states(chip, rom, 2000):
        op = rom[before[0] << 10 | before[1] << 6 | before[2]]
        stores = micro[op] & (MICRO_BIT["STO"] | MICRO_BIT["CKM"]) or \
            fixed[op][0] in ("SBIT", "RBIT")
        if stores:
            expected.append((after[6], before[4] << 4 | before[5], after[7]))
    got = [(h["cycle"], h["where"], h["ram"][: chip.ram_size]) for h in hits]
    assert got == expected and len(expected) > 500


def test_a_disarmed_watch_records_nothing():
    fast = FastCpu(TMS1400, random_rom(2, TMS1400))
    fast.set_watch(ALL_ROM)
    fast.set_watch(None)
    fast.run(1000)
    assert fast.take_hits() == ([], 0)


def test_a_full_record_reports_the_first_hit_it_dropped():
    from emulator import _fastcore
    fast = FastCpu(TMS1400, random_rom(3, TMS1400))
    fast.set_watch(ALL_ROM)
    cap = _fastcore.HIT_CAP
    fast.run(cap + 10)
    hits, dropped = fast.take_hits()
    assert len(hits) == cap
    assert dropped == hits[-1]["cycle"] + 6
