"""Branch, call, return, page and chapter logic with every edge case of docs/tms1400.md §7
(MAME 0.251, verified there by experiment; TMS1000: TI data manual, one subroutine level)."""
from __future__ import annotations

from chipkit import ALL_CHIPS, ONE_LEVEL_CHIPS, cpu, opcode, pc_at

from emulator.chips import TMS1100, TMS1400
from emulator.core import call_depth, enters_subroutine, return_addresses

NOP = "=7F"  # CLA on TMS1100/1400, ALEC 15 on TMS1000: harmless filler that leaves STATUS 1


def target(index: int) -> str:
    """Return a BRANCH/CALL operand for the ``index``-th instruction of a page."""
    return f"${pc_at(index):02X}"


# -- all chips ---------------------------------------------------------------------------------

@ALL_CHIPS
def test_br_taken_loads_pa_from_pb_and_pc_from_the_operand(chip):
    c = cpu(chip, "LDP 3", f"BRANCH {target(5)}")
    c.run(2)
    assert (c.pa, c.pc) == (3, pc_at(5))


@ALL_CHIPS
def test_br_not_taken_changes_nothing(chip):
    c = cpu(chip, "LDP 3", "TCY 0", "YNEC 0", "BRANCH $3E")
    c.run(4)
    assert (c.pa, c.pb, c.pc) == (15, 3, pc_at(4))


@ALL_CHIPS
def test_br_uses_the_status_of_the_previous_instruction(chip):
    c = cpu(chip, "TCY 0", "YNEC 0", "TCY 0", "BRANCH $3E")   # TCY resets STATUS to 1
    c.run(4)
    assert c.pc == 0x3E


@ALL_CHIPS
def test_call_returns_to_the_instruction_after_it(chip):
    c = cpu(chip, "LDP 2", "CALL $00", "TCY 7", pages={2: ["TCY 1", "RETN"]})
    c.run(2)
    assert (c.pa, c.pc) == (2, 0)
    c.run(3)
    assert (c.pa, c.pb, c.y, c.cl) == (15, 15, 7, 0)


@ALL_CHIPS
def test_ldp_sets_only_the_page_buffer(chip):
    c = cpu(chip, "LDP 9")
    c.step()
    assert (c.pa, c.pb) == (15, 9)


# -- 1-level call latch: TMS1000 and TMS1100 (docs/tms1400.md §7.1) --------------------------------

@ONE_LEVEL_CHIPS
def test_one_level_ldp_inside_a_subroutine_changes_the_return_page(chip):
    c = cpu(chip, "LDP 2", "CALL $00", pages={2: ["LDP 5", "RETN"], 5: [NOP, NOP, "TCY 9"]})
    c.run(5)
    assert (c.pa, c.y) == (5, 9)


@ONE_LEVEL_CHIPS
def test_one_level_call_inside_a_subroutine_stays_in_the_current_page(chip):
    c = cpu(chip, "LDP 2", "CALL $00", NOP,
            pages={2: ["LDP 3", f"CALL {target(3)}", "TCY 11", "RETN"]})
    c.run(4)
    assert (c.pa, c.pb, c.pc, c.cl) == (2, 2, pc_at(3), 1)


@ONE_LEVEL_CHIPS
def test_one_level_retn_after_a_nested_call_returns_to_the_first_return_pc_in_the_current_page(
        chip):
    c = cpu(chip, "LDP 2", "CALL $00", NOP,
            pages={2: ["LDP 3", f"CALL {target(3)}", "TCY 11", "RETN"]})
    c.run(6)
    assert (c.pa, c.cl, c.y) == (2, 0, 11)


@ONE_LEVEL_CHIPS
def test_one_level_br_inside_a_subroutine_stays_in_the_current_page(chip):
    c = cpu(chip, "LDP 2", "CALL $00", pages={2: ["LDP 6", f"BRANCH {target(3)}", NOP, "TCY 3"]})
    c.run(5)
    assert (c.pa, c.pb, c.y) == (2, 6, 3)


@ONE_LEVEL_CHIPS
def test_one_level_retn_without_a_call_only_loads_pa_from_pb(chip):
    c = cpu(chip, "LDP 4", "RETN", pages={4: [NOP, NOP, "TCY 2"]})
    c.run(3)
    assert (c.pa, c.y) == (4, 2)


@ONE_LEVEL_CHIPS
def test_one_level_call_not_taken_changes_nothing(chip):
    c = cpu(chip, "LDP 6", "TCY 3", "YNEC 3", "CALL $00")
    c.run(4)
    assert (c.pa, c.pb, c.pc, c.cl) == (15, 6, pc_at(4), 0)


def test_tms1100_comc_toggles_the_chapter_buffer_and_a_taken_br_loads_it():
    c = cpu(TMS1100, "COMC", "LDP 3", "BRANCH $00", pages={(1, 3): ["TCY 13"]})
    c.step()
    assert (c.ca, c.cb) == (0, 1)
    c.run(3)
    assert (c.ca, c.pa, c.y) == (1, 3, 13)


def test_tms1100_retn_restores_the_chapter_but_not_the_chapter_buffer():
    c = cpu(TMS1100, "COMC", "LDP 2", "CALL $00", pages={(1, 2): ["RETN"]})
    c.run(3)
    assert (c.ca, c.pa) == (1, 2)
    c.step()
    assert (c.ca, c.cb, c.pa, c.pc) == (0, 1, 15, pc_at(3))


def test_tms1100_br_inside_a_subroutine_still_loads_the_chapter():
    c = cpu(TMS1100, "LDP 2", "CALL $00", pages={2: ["COMC", "BRANCH $00"], (1, 2): ["TCY 4"]})
    c.run(5)
    assert (c.ca, c.pa, c.y) == (1, 2, 4)


# -- TMS1400 3-level stack (docs/tms1400.md §7.2) --------------------------------------------------

def _nested(depth: int) -> dict:
    """Pages 2.. each LDP the next page and CALL it; the last one returns; returns cascade."""
    pages = {}
    for level in range(depth):
        page = 2 + level
        if level < depth - 1:
            pages[page] = [f"LDP {page + 1}", "CALL $00", "RETN", "TCY 8"]
        else:
            pages[page] = ["RETN"]
    return pages


def test_tms1400_three_nested_calls_return_in_order():
    c = cpu(TMS1400, "LDP 2", "CALL $00", "TCY 1", pages=_nested(3))
    c.run(6)
    assert (c.pa, c.cl) == (4, 7)
    assert [entry[:2] for entry in c.stack] == [(pc_at(2), 3), (pc_at(2), 2), (pc_at(2), 15)]
    c.run(4)
    assert (c.pa, c.pb, c.cl, c.y) == (15, 15, 0, 1)


def test_tms1400_retn_loads_page_and_page_buffer_from_the_stack():
    c = cpu(TMS1400, "LDP 2", "CALL $00", pages={2: ["LDP 9", "RETN"]})
    c.run(4)
    assert (c.pa, c.pb, c.pc) == (15, 15, pc_at(2))


def test_tms1400_retn_with_an_empty_stack_does_nothing():
    c = cpu(TMS1400, "LDP 4", "RETN", "TCY 2")
    c.run(3)
    assert (c.pa, c.pb, c.y) == (15, 4, 2)


def test_tms1400_fourth_nested_call_discards_the_oldest_return():
    c = cpu(TMS1400, "LDP 2", "CALL $00", "TCY 1", pages=_nested(4))
    c.run(8)
    assert (c.pa, c.cl) == (5, 7)
    c.run(4)    # three RETNs return, the fourth (in page 2) does nothing
    assert (c.pa, c.cl, c.pc) == (2, 0, pc_at(3))
    c.step()
    assert c.y == 8


def test_tms1400_call_not_taken_copies_page_and_chapter_into_the_buffers():
    c = cpu(TMS1400, "LDP 1", "TPC", "LDP 6", "TCY 3", "YNEC 3", "CALL $00")
    c.run(5)
    assert (c.pb, c.cb) == (6, 1)
    c.step()
    assert (c.pa, c.pb, c.ca, c.cb, c.cl, c.pc) == (15, 15, 0, 0, 0, pc_at(6))


def test_tms1400_tpc_loads_the_chapter_buffer_from_the_page_buffer():
    c = cpu(TMS1400, "LDP 14", "TPC")
    c.run(2)
    assert (c.ca, c.cb) == (0, 2)


def test_tms1400_taken_br_loads_the_chapter_from_the_chapter_buffer():
    c = cpu(TMS1400, "LDP 3", "TPC", "LDP 5", "BRANCH $00", pages={(3, 5): ["TCY 13"]})
    c.run(5)
    assert (c.ca, c.pa, c.y) == (3, 5, 13)


def test_tms1400_br_inside_a_subroutine_loads_the_page():
    c = cpu(TMS1400, "LDP 2", "CALL $00", pages={2: ["LDP 7", "BRANCH $00"], 7: ["TCY 6"]})
    c.run(5)
    assert (c.pa, c.y, c.cl) == (7, 6, 1)


def test_tms1400_call_pushes_the_chapter_and_retn_restores_chapter_and_buffer():
    c = cpu(TMS1400, "LDP 2", "TPC", "CALL $00", pages={(2, 2): ["LDP 1", "TPC", "RETN"]})
    c.run(5)
    assert (c.ca, c.cb) == (2, 1)
    c.step()
    assert (c.ca, c.cb, c.pa, c.pb) == (0, 0, 15, 15)


@ONE_LEVEL_CHIPS
def test_one_level_call_keeps_the_return_page_in_the_page_buffer(chip):
    c = cpu(chip, "LDP 2", "CALL $00", pages={2: ["RETN"]})
    c.run(2)
    assert (c.pa, c.pb, c.cl) == (2, 15, 1)


def test_tms1400_call_leaves_the_page_buffer_on_the_called_page():
    c = cpu(TMS1400, "LDP 2", "CALL $00", pages={2: ["RETN"]})
    c.run(2)
    assert (c.pa, c.pb, c.cl) == (2, 2, 1)


# -- the call stack as a debugger asks for it ---------------------------------------------------

def test_tms1400_call_depth_counts_the_nested_calls_and_names_each_return_innermost_first():
    c = cpu(TMS1400, "LDP 2", "CALL $00", "TCY 1", pages=_nested(3))
    c.run(6)
    assert call_depth(TMS1400, c.cl) == 3
    assert return_addresses(TMS1400, c.cl, c.pb, c.stack) == [
        (0, 3, pc_at(2)), (0, 2, pc_at(2)), (0, 15, pc_at(2))]


def test_tms1400_return_addresses_read_the_same_from_the_state_dict():
    c = cpu(TMS1400, "LDP 2", "CALL $00", "TCY 1", pages=_nested(2))
    c.run(4)
    st = c.state()
    stack = list(zip(st["sr"], st["ps"], st["cs"]))
    assert return_addresses(TMS1400, st["cl"], st["pb"], stack) \
        == return_addresses(TMS1400, c.cl, c.pb, c.stack) == [(0, 2, pc_at(2)), (0, 15, pc_at(2))]


@ONE_LEVEL_CHIPS
def test_one_level_call_depth_is_one_and_the_return_page_is_the_page_buffer(chip):
    c = cpu(chip, "LDP 2", "CALL $00", pages={2: ["RETN"]})
    c.run(2)
    assert call_depth(chip, c.cl) == 1
    assert return_addresses(chip, c.cl, c.pb, c.stack) == [(0, 15, pc_at(2))]


@ALL_CHIPS
def test_outside_a_subroutine_the_depth_is_zero_and_there_is_no_return_address(chip):
    c = cpu(chip, "TCY 1")
    c.step()
    assert call_depth(chip, c.cl) == 0
    assert return_addresses(chip, c.cl, c.pb, c.stack) == []


@ALL_CHIPS
def test_a_call_enters_a_subroutine_only_when_status_is_one(chip):
    call = opcode(chip, "CALL $00")
    assert enters_subroutine(chip, call, 1, 0)
    assert not enters_subroutine(chip, call, 0, 0)
    assert not enters_subroutine(chip, opcode(chip, "BRANCH $00"), 1, 0)


@ONE_LEVEL_CHIPS
def test_one_level_call_inside_a_subroutine_enters_none(chip):
    assert not enters_subroutine(chip, opcode(chip, "CALL $00"), 1, 1)


def test_tms1400_call_inside_a_subroutine_enters_the_next_level():
    assert enters_subroutine(TMS1400, opcode(TMS1400, "CALL $00"), 1, 1)
