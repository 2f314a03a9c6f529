"""The debugger through its Python API, on the demo firmware (emulator/firmware/demo.asm).

The demo's key scan is the end of ``show`` (page 0): TKA with R0-R2 set, and ``shnew`` runs
only when a key has just gone down; the level being chosen lives in RAM 0:8 (``VAL``), written
first by ``level`` (TCMIY 1) and stepped by NO/END (``lvno``: IMAC, TAM).
"""
from __future__ import annotations

import pytest

from emulator.asm import PC_ORDER, assemble, rom_offset
from emulator.chips import TMS1100, TMS1400
from emulator.debug import DebugError, Debugger, compile_condition, parse_ram_address
from emulator.debug.views import format_board
from emulator.decode import ident_output_pla
from emulator.fastcore import FAST_AVAILABLE
from emulator.symbols import SymbolError, Symbols, parse_symbols, write_symbols

VAL = 0x08            # RAM 0:8, the level (demo.asm .equ VAL)

needs_fast = pytest.mark.skipif(not FAST_AVAILABLE,
                                reason="accelerated core not built: pip install -e . with gcc")


def demo(core: str = "fast", **kw) -> Debugger:
    return Debugger(firmware="demo", core=core, **kw)


def page_addresses(dbg: Debugger, label: str, opcode: int) -> list[tuple[int, int, int]]:
    """Return the addresses after ``label`` on its page (LFSR order) holding ``opcode``."""
    c, p, pc = dbg.resolve(label)
    start = PC_ORDER.index(pc)
    return [(c, p, q) for q in PC_ORDER[start:] if dbg.rom[rom_offset(c, p, q)] == opcode]


# ---- breakpoints ------------------------------------------------------------------------------


def test_key_scan_breakpoint_is_not_hit_while_no_key_is_down():
    dbg = demo().break_at("shnew")
    stop = dbg.run(seconds=2.0)
    assert stop.reason == "time"
    assert dbg.points[1].hits == 0


def test_key_scan_breakpoint_is_hit_by_the_first_scan_after_a_key_goes_down():
    dbg = demo().press_at(1.0, "YES/BUY", 0.2).break_at("shnew")
    stop = dbg.run(seconds=5.0)
    assert stop.reason == "breakpoint 1"
    assert dbg.address == dbg.resolve("shnew")
    assert 1.0 < dbg.seconds < 1.0 + 0.011           # within one SHOW tick (about 9.4 ms)
    assert "YES/BUY" in dbg.board.pressed


def test_a_breakpoint_stops_before_its_instruction_runs():
    dbg = demo().break_at("show")
    dbg.run()
    st = dbg.state()
    assert (st["ca"], st["pa"], st["pc"]) == dbg.resolve("show")
    assert dbg.rom[rom_offset(*dbg.address)] == 0x23          # TYA, not yet executed


def test_continue_from_a_breakpoint_runs_on_to_its_next_hit():
    dbg = demo().break_at("show")
    first = dbg.run().cycle
    second = dbg.run().cycle
    assert second > first
    assert dbg.points[1].hits == 2


def test_conditional_breakpoint_stops_only_where_the_condition_holds():
    dbg = demo().break_at("sd1", "Y == 3")
    dbg.run()
    assert dbg.state()["y"] == 3
    assert dbg.address == dbg.resolve("sd1")


def test_condition_can_read_any_ram_nibble():
    dbg = demo().break_at("show", "ram[0, 0xC] == 0 and ram[0x0E] == 0 and CYCLE > 100000")
    dbg.run()
    st = dbg.state()
    assert st["ram"][0x0C] == 0 and st["ram"][0x0E] == 0 and st["cycle"] > 100000


def test_breakpoint_on_a_c_p_pc_address_equals_the_label():
    a = demo().break_at("0:0:22").press_at(1.0, "YES/BUY").run(seconds=3)
    b = demo().break_at("shnew").press_at(1.0, "YES/BUY").run(seconds=3)
    assert a.cycle == b.cycle and a.reason == b.reason == "breakpoint 1"


def test_disabled_breakpoint_does_not_stop():
    dbg = demo()
    dbg.add_break("show")
    dbg.enable(1, False)
    assert dbg.run(seconds=0.1).reason == "time"


def test_run_without_anything_to_stop_at_needs_a_time():
    with pytest.raises(DebugError, match="nothing to stop at"):
        demo().run()


# ---- watchpoints -----------------------------------------------------------------------------


def test_ram_watchpoint_on_the_level_stops_after_the_instruction_that_wrote_it():
    dbg = demo().press_at(1.0, "YES/BUY").watch_ram("0:8", "write")
    stop = dbg.run(seconds=20)
    assert stop.reason == "watchpoint 1"
    assert dbg.ram()[VAL] == 1
    assert "write RAM 0:8 = 1 by " in stop.detail and "level+1" in stop.detail


def test_reverse_step_returns_to_the_writing_instruction_with_the_state_stepping_forward_gave():
    dbg = demo().press_at(1.0, "YES/BUY").watch_ram("0:8", "write")
    dbg.run(seconds=20)
    after = dbg.state()
    writer = dbg.instructions - 1
    dbg.reverse_step()
    back = dbg.state()
    assert dbg.address == dbg.resolve("level+1")              # TCMIY 1 with Y = VAL
    assert dbg.rom[rom_offset(*dbg.address)] == 0x68
    # A fresh run stepped forward to the same instruction gives the same state.
    fresh = demo().press_at(1.0, "YES/BUY")
    fresh.step(writer)
    assert fresh.state() == back
    assert format_board(fresh) == format_board(dbg)
    assert fresh.board.pins == dbg.board.pins
    # And stepping forward again reproduces the watchpoint's state.
    assert dbg.step().reason == "watchpoint 1"
    assert dbg.state() == after


def test_ram_watchpoint_condition_on_the_new_value_stops_at_the_second_level():
    dbg = demo().press_at(1.0, "YES/BUY").press_at(11.0, "NO/END")
    dbg.add_watch_ram("0:8", "write", cond="VALUE == 2")
    stop = dbg.run(seconds=20)
    assert stop.reason == "watchpoint 1"
    assert dbg.ram()[VAL] == 2
    assert "lvno" in stop.detail                              # IMAC; TAM after NO/END


def test_ram_read_watchpoint_stops_after_a_read_not_a_write():
    dbg = demo().watch_ram("0:0", "read")        # LD: read by TMA in show
    stop = dbg.run(seconds=1)
    assert stop.reason == "watchpoint 1"
    assert stop.detail.startswith("read RAM 0:0")
    assert "show" in stop.detail


def test_k_watchpoint_stops_after_the_key_scans_tka():
    dbg = demo().press_at(1.0, "YES/BUY").watch_k()
    stop = dbg.run(seconds=5)
    assert stop.reason == "watchpoint 1"
    assert stop.detail.startswith("K = 2")                   # YES/BUY: R2, K2
    tka = page_addresses(dbg, "show", 0x08)
    assert any(dbg.describe(a) in stop.detail for a in tka)


def test_pin_watchpoint_stops_when_the_reel_motor_starts():
    dbg = demo().press_at(1.0, "YES/BUY").watch_pins("r", [9])
    stop = dbg.run(seconds=5)
    assert stop.reason == "watchpoint 1"
    assert dbg.state()["r"] >> 9 & 1
    assert "R9 changed" in stop.detail and "spin" in stop.detail


def test_o_pin_watchpoint_stops_after_a_tdo_that_changes_the_digits():
    dbg = demo().watch_pins("o", [7])        # digit select
    dbg.run(seconds=1)
    c, p, pc = dbg.address
    prev = PC_ORDER[PC_ORDER.index(pc) - 1]
    assert dbg.rom[rom_offset(c, p, prev)] == 0x0A          # TDO


# ---- stepping ---------------------------------------------------------------------------------


def test_step_n_executes_n_instructions():
    dbg = demo()
    dbg.step(100)
    assert dbg.instructions == 100


def test_next_steps_over_a_call_to_the_instruction_after_it():
    dbg = demo()
    dbg.until("waitt+1")                                      # LCALL show = LDP 0, CALL
    assert dbg.rom[rom_offset(*dbg.address)] >= 0xC0
    depth = dbg.state()["depth"]
    c, p, pc = dbg.address
    stop = dbg.next()
    assert stop.reason == "next"
    assert dbg.address == (c, p, PC_ORDER[PC_ORDER.index(pc) + 1])
    assert dbg.state()["depth"] == depth


def test_finish_returns_from_the_current_subroutine():
    dbg = demo()
    dbg.until("show")
    depth = dbg.state()["depth"]
    stop = dbg.finish()
    assert stop.reason == "finish"
    assert dbg.state()["depth"] == depth - 1
    assert dbg.describe(dbg.address).endswith("waitt+2")


def test_finish_outside_a_subroutine_is_an_error():
    with pytest.raises(DebugError, match="not in a subroutine"):
        demo().finish()


def test_until_stops_at_the_address():
    dbg = demo()
    assert dbg.until("sdelay").reason == "until"
    assert dbg.address == dbg.resolve("sdelay")


# ---- backwards ----------------------------------------------------------------------------------


def test_reverse_step_n_goes_back_n_instructions_to_the_same_state():
    dbg = demo(snapshot_every=1000)
    dbg.step(2500)
    seen = dbg.state()
    dbg.step(777)
    dbg.reverse_step(777)
    assert dbg.state() == seen and dbg.instructions == 2500


def test_reverse_continue_goes_back_to_the_previous_hit():
    dbg = demo().break_at("show")
    first = dbg.run()
    dbg.run()
    dbg.run()
    third = dbg.state()
    back = dbg.reverse_continue()
    assert back.reason == "breakpoint 1"
    assert dbg.cycle < third["cycle"]
    dbg.reverse_continue()
    assert dbg.cycle == first.cycle
    assert dbg.reverse_continue().reason == "start of history"
    assert dbg.instructions == 0


def test_reverse_continue_finds_the_last_write_before_now():
    dbg = demo().press_at(1.0, "YES/BUY").press_at(11.0, "NO/END")
    dbg.run(seconds=14)                                       # VAL: 1, then 2
    dbg.add_watch_ram("0:8", "write")
    stop = dbg.reverse_continue()
    assert stop.reason == "watchpoint 1"
    assert dbg.ram()[VAL] == 2 and "lvno" in stop.detail


def test_keys_pressed_at_the_prompt_are_replayed_when_going_back_and_forth():
    dbg = demo(snapshot_every=5000)
    dbg.run(seconds=0.5)
    dbg.press("YES/BUY", 0.2)
    dbg.add_break("shnew")
    hit = dbg.run(seconds=2).cycle
    dbg.goto(0.1)                                             # before the press
    assert dbg.board.pressed == set()
    assert dbg.run(seconds=3).cycle == hit                    # the same press, the same hit


def test_a_key_pressed_after_going_back_replaces_the_future():
    dbg = demo()
    dbg.run(seconds=0.5)
    dbg.press("YES/BUY", 0.2)
    dbg.goto(0.2)
    dbg.press("NO/END", 0.2)                                  # a different past
    dbg.add_break("shnew")
    dbg.run(seconds=2)
    assert dbg.board.pressed == {"NO/END"}
    assert 0.2 < dbg.seconds < 0.22


def _logs(dbg: Debugger) -> tuple:
    return list(dbg.board.pins), list(dbg.board.speaker), list(dbg.board.events)


def test_going_back_then_forward_past_a_snapshot_keeps_the_board_logs_whole():
    # going back truncates the logs (history.History.set_board_state); a later snapshot,
    # restored to go forward again, knows only their lengths
    dbg = demo(snapshot_every=1000).press_at(1.0, "YES/BUY").press_at(3.5, "NO/END", 0.05)
    dbg.run(seconds=3.7)
    later, logs = dbg.seconds, _logs(dbg)
    dbg.goto(1.0)
    dbg.goto(later)
    assert _logs(dbg) == logs


@pytest.mark.parametrize("core", ["fast", "reference"] if FAST_AVAILABLE else ["reference"])
def test_a_key_pressed_after_instructions_run_one_at_a_time_is_where_a_re_run_presses_it(
        core, tmp_path):
    # a trace (or a watchpoint on the reference core) runs one instruction at a time
    # (engines.Runner.step_hits); the board must reach the next fetch, as a re-run's does
    dbg = demo(core, snapshot_every=1000)
    dbg.run(seconds=0.5)
    dbg.trace_on(tmp_path / "t.txt")
    dbg.add_watch_ram("7:F")
    dbg.step(10)
    dbg.press("YES/BUY", 0.2)
    assert dbg.board.events[-1]["t"] == round(dbg.seconds, 6)
    dbg.step(3000)
    dbg.trace_off()
    dbg.delete()
    logs = _logs(dbg)
    dbg.reverse_step(4000)
    dbg.step(4000)
    assert _logs(dbg) == logs


def test_running_under_the_debugger_gives_the_pins_of_a_plain_run():
    from emulator.boards import make_board
    from emulator.darktower import glyph_output_pla
    from emulator.debug import demo_program
    from emulator.decode import standard_micro_pla
    from emulator.fastcore import make_cpu

    dbg = demo(snapshot_every=3000).break_at("shnew").press_at(1.0, "YES/BUY")
    dbg.run(seconds=3)
    dbg.reverse_step(5000)
    dbg.run(seconds=6 - dbg.seconds)
    program = demo_program()
    cpu = make_cpu(program.chip, program.rom, standard_micro_pla(), glyph_output_pla())
    board = make_board("darktower", cpu)
    from captures.script import parse_script
    board.schedule(parse_script("1.0 YES/BUY 0.2\n", "s"))
    board.run_until(dbg.cycle)
    assert board.pins == dbg.board.pins
    assert board.events == dbg.board.events


def test_goto_far_ahead_stops_when_interrupted():
    # Ctrl-C at the prompt sets ``interrupt`` (debugcmd.CommandShell._interruptible)
    dbg = demo()
    dbg.interrupt = True
    stop = dbg.goto(1e6)
    assert stop.reason == "interrupted" and dbg.seconds < 1 and not dbg.interrupt
    assert dbg.goto(0.5).reason == "goto"


def test_reverse_continue_stops_its_search_when_interrupted():
    dbg = demo(snapshot_every=1000).break_at("shnew")
    now = dbg.run(seconds=2).cycle
    dbg.interrupt = True
    stop = dbg.reverse_continue()
    assert stop.reason == "interrupted" and dbg.cycle == now and not dbg.interrupt


def test_goto_before_a_loaded_state_says_it_is_the_start_of_history(tmp_path):
    dbg = demo()
    dbg.run(seconds=1)
    dbg.save(tmp_path / "s.gz")
    other = demo()
    other.load(tmp_path / "s.gz")
    stop = other.goto(0.5)
    assert stop.reason == "start of history" and other.cycle == dbg.cycle


_STORES = """
        .chip tms1400
        .page 15
start:  LDX 0
        TCY 5
        TCMIY 0
        TCY 9
        SETR
        SETR
        RSTR
spin:   BRANCH spin
"""


@pytest.mark.parametrize("core", ["fast", "reference"] if FAST_AVAILABLE else ["reference"])
def test_a_store_of_the_value_held_stops_a_ram_watchpoint_but_an_unchanged_pin_does_not(core):
    # README, Debugging a ROM: a store counts even when the nibble keeps its value; a pin
    # watchpoint counts only a change
    program = assemble(_STORES, TMS1400)
    dbg = Debugger(image=program.rom, chip=TMS1400, board="none", core=core,
                   symbols=Symbols.from_program(program.symbols))
    dbg.add_watch_ram("0:5", "write")
    stop = dbg.run(seconds=0.01)
    assert stop.reason == "watchpoint 1" and "write RAM 0:5 = 0 by 0:F:03 start+2" in stop.detail
    dbg.delete()
    dbg.add_watch_pins("r", [9])
    assert "by 0:F:0F start+4" in dbg.run(seconds=0.01).detail          # the first SETR
    assert "by 0:F:3F start+6" in dbg.run(seconds=0.01).detail          # RSTR, not SETR again
    assert dbg.run(seconds=0.01).reason == "time"


# ---- both cores ---------------------------------------------------------------------------------


def _stops(core: str) -> list:
    dbg = demo(core).press_at(0.3, "YES/BUY", 0.2)
    dbg.add_break("shnew")
    dbg.add_watch_pins("r", [9])
    dbg.add_watch_ram("0:C", "write")
    dbg.add_watch_k()
    dbg.add_break("sdl", "A == 0")
    out = []
    for _ in range(12):
        stop = dbg.run(seconds=0.5)
        out.append((stop.reason, stop.detail, dbg.state()))
    dbg.reverse_continue()
    out.append(dbg.state())
    return out


@needs_fast
def test_both_cores_stop_at_the_same_points_with_the_same_state():
    assert _stops("fast") == _stops("reference")


# ---- trace, save, load --------------------------------------------------------------------------


def test_trace_writes_the_canonical_trace_of_what_runs(tmp_path):
    from emulator.boards import make_board
    from emulator.core import Cpu
    from emulator.darktower import glyph_output_pla
    from emulator.debug import demo_program
    from emulator.decode import standard_micro_pla
    from emulator.trace import trace_lines

    dbg = demo()
    dbg.trace_on(tmp_path / "t.txt")
    dbg.step(3000)
    dbg.trace_off()
    program = demo_program()
    cpu = Cpu(program.chip, program.rom, standard_micro_pla(), glyph_output_pla())
    make_board("darktower", cpu)
    expected = list(trace_lines(cpu, 3000))
    assert (tmp_path / "t.txt").read_text().splitlines() == expected


def test_saved_state_loads_back_and_runs_on_identically(tmp_path):
    dbg = demo().press_at(1.0, "YES/BUY").break_at("shnew")
    dbg.run(seconds=3)
    dbg.save(tmp_path / "s.json.gz")
    saved = dbg.state()
    later = dbg.run(seconds=12)
    later_state = dbg.state()
    other = demo().break_at("shnew")
    other.load(tmp_path / "s.json.gz")
    assert other.state() == saved
    assert other.board.pins == dbg.board.pins[: len(other.board.pins)]
    assert other.run(seconds=12).cycle == later.cycle
    assert other.state() == later_state


def test_loading_a_state_of_another_rom_is_refused(tmp_path):
    dbg = demo()
    dbg.save(tmp_path / "s.gz")
    image = bytearray(dbg.rom)
    image[0] ^= 1
    other = Debugger(image=bytes(image), chip=TMS1400)
    with pytest.raises(DebugError, match="rom_sha1"):
        other.load(tmp_path / "s.gz")


def test_loading_a_file_that_is_not_a_state_names_it(tmp_path):
    bad = tmp_path / "x.gz"
    bad.write_text("hello")
    with pytest.raises(DebugError, match="x.gz: not a debugger state file"):
        demo().load(bad)


# ---- conditions and addresses -------------------------------------------------------------------


def test_condition_with_an_unknown_name_is_refused_in_one_line():
    with pytest.raises(DebugError, match="unknown name 'Q'"):
        compile_condition("Q == 1")


def test_condition_with_a_call_is_refused():
    with pytest.raises(DebugError, match="Call is not allowed"):
        compile_condition("__import__('os')")


def test_condition_evaluates_chained_comparisons():
    test = compile_condition("1 <= a < 4")
    assert test({"a": 3}) and not test({"a": 4})


@pytest.mark.parametrize("seconds", [float("inf"), float("nan"), -1.0])
def test_run_for_a_time_that_is_not_finite_or_is_negative_is_refused(seconds):
    with pytest.raises(DebugError, match=r"run .*: expected a finite number of seconds >= 0"):
        demo().run(seconds=seconds)


@pytest.mark.parametrize("seconds", [float("inf"), float("nan"), -5.0])
def test_goto_a_time_that_is_not_finite_or_is_negative_is_refused(seconds):
    dbg = demo()
    before = dbg.cycle
    with pytest.raises(DebugError, match=r"goto .*: expected a finite tower time"):
        dbg.goto(seconds)
    assert dbg.cycle == before


def test_ram_addresses_are_x_colon_y_hex_or_ranges():
    assert parse_ram_address("0:8") == [8]
    assert parse_ram_address("1:F") == [0x1F]
    assert parse_ram_address("0:E-1:1") == [0x0E, 0x0F, 0x10, 0x11]
    with pytest.raises(DebugError, match="outside the 128-nibble RAM"):
        parse_ram_address("8:0")


def test_unknown_label_is_an_error_naming_it():
    with pytest.raises(DebugError, match="'nowhere': not c:p:pc hex and not a label"):
        demo().break_at("nowhere")


# ---- other chips and boards ---------------------------------------------------------------------

_TMS1100_PROGRAM = """
        .chip tms1100
        .chapter 0
        .page 15
start:  LDX 2
        TCY 5
loop:   CALL bump
        BRANCH loop
bump:   TMA
        IAC
        TAM
        RETN
"""


def _labyrinth(core: str) -> Debugger:
    program = assemble(_TMS1100_PROGRAM.replace("IAC", "A1ACC"), TMS1100)
    return Debugger(image=program.rom, chip=TMS1100, board="labyrinth",
                    opla=ident_output_pla(TMS1100), core=core,
                    symbols=Symbols.from_program(program.symbols), snapshot_every=64)


@pytest.mark.parametrize("core", ["fast", "reference"] if FAST_AVAILABLE else ["reference"])
def test_tms1100_on_the_labyrinth_board_breaks_watches_and_reverses(core):
    dbg = _labyrinth(core)
    assert dbg.board_name == "labyrinth"
    dbg.add_watch_ram("2:5", "write", cond="VALUE == 7")
    stop = dbg.run(seconds=1)
    assert stop.reason == "watchpoint 1" and dbg.ram()[0x25] == 7
    assert "bump+2" in stop.detail
    dbg.reverse_step()
    assert dbg.ram()[0x25] == 6 and dbg.describe(dbg.address).endswith("bump+2")
    assert dbg.finish().reason == "watchpoint 1"              # the TAM writes 7 again
    dbg.delete(1)
    assert dbg.finish().reason == "finish"
    assert dbg.describe(dbg.address) == f"{dbg.describe(dbg.resolve('loop+1'))}"


_TMS1100_SUBROUTINE_BRANCH = """
        .chip tms1100
        .chapter 0
        .page 15
start:  CALL sub
        BRANCH start
sub:    LDP 3
        BRANCH pc(here)
        TDO
here:   RETN
        .page 3
far:    RETN
"""


def test_disassembly_names_where_a_branch_inside_a_tms1100_subroutine_goes():
    # a BRANCH or CALL inside a 1-level chip's subroutine stays in the page, whatever PB
    # holds (docs/tms1400.md section 7.1)
    from emulator.debug.views import format_disasm

    program = assemble(_TMS1100_SUBROUTINE_BRANCH, TMS1100)
    dbg = Debugger(image=program.rom, chip=TMS1100, board="none",
                   symbols=Symbols.from_program(program.symbols))
    assert dbg.until("sub+1").reason == "until"
    here = [ln for ln in format_disasm(dbg).splitlines() if "=>" in ln][0]
    assert here.endswith("; here")
    dbg.step()
    assert dbg.address == dbg.resolve("here")


# ---- symbols ------------------------------------------------------------------------------------


def test_symbol_file_round_trips(tmp_path):
    import io
    syms = Symbols.from_program({"reset": (0, 15, 0), "show": (0, 0, 0), "sd1": (0, 0, 0x3D)})
    buf = io.StringIO()
    write_symbols(syms, buf, "test")
    again = parse_symbols(buf.getvalue())
    assert again.names == syms.names


def test_symbol_file_line_without_a_name_is_an_error_naming_the_line():
    with pytest.raises(SymbolError, match="f.sym:2: '0:0:00' \\(expected 'ADDR NAME'"):
        parse_symbols("0:F:00 reset\n0:0:00\n", "f.sym")


def test_symbol_describes_later_instructions_as_label_plus_n():
    syms = Symbols.from_program({"show": (0, 0, 0)})
    assert syms.describe((0, 0, PC_ORDER[3])) == "show+3"
    assert syms.describe((0, 1, 0)) == ""


_TMS1000_PROGRAM = """
        .chip tms1000
        .page 15
start:  LDX 1
        TCY 3
loop:   CALL bump
        BRANCH loop
bump:   TMA
        IA
        TAM
        RETN
"""


@pytest.mark.parametrize("core", ["fast", "reference"] if FAST_AVAILABLE else ["reference"])
def test_tms1000_runs_alone_without_a_board(core):
    from emulator.chips import TMS1000
    program = assemble(_TMS1000_PROGRAM, TMS1000)
    dbg = Debugger(image=program.rom, chip=TMS1000, core=core,
                   symbols=Symbols.from_program(program.symbols))
    assert dbg.board_name == "none"
    dbg.add_watch_ram("1:3", "write", cond="VALUE == 5")
    assert dbg.run(seconds=1).reason == "watchpoint 1"
    assert dbg.ram()[0x13] == 5
    dbg.reverse_step(4)                                       # back through TAM, IA, TMA, CALL
    assert dbg.address == dbg.resolve("loop") and dbg.ram()[0x13] == 4
    with pytest.raises(DebugError, match="no board: the chip has no keys"):
        dbg.press("YES/BUY")


def test_saved_state_of_the_reference_core_loads_back_and_runs_on_identically(tmp_path):
    dbg = demo("reference")
    dbg.step(5000)
    dbg.save(tmp_path / "s.gz")
    saved = dbg.state()
    dbg.step(3000)
    later = dbg.state()
    other = demo("reference")
    other.load(tmp_path / "s.gz")
    assert other.state() == saved
    other.step(3000)
    assert other.state() == later


@needs_fast
@pytest.mark.parametrize("saved_on, loaded_on", [("fast", "reference"), ("reference", "fast")])
def test_a_state_saved_on_one_core_loads_on_the_other(saved_on, loaded_on, tmp_path):
    # inside a subroutine, so that the return address (kept differently by each core) counts
    dbg = demo(saved_on).press_at(1.0, "YES/BUY")
    dbg.add_break("shnew")
    dbg.run(seconds=3)
    assert dbg.state()["depth"] > 0
    dbg.save(tmp_path / "s.gz")
    saved = dbg.state()
    dbg.delete()
    dbg.step(3000)
    later = dbg.state()
    other = demo(loaded_on)
    other.load(tmp_path / "s.gz")
    assert other.state() == saved
    other.step(3000)
    assert other.state() == later


def test_a_state_file_holding_the_reference_cores_own_image_still_loads(tmp_path):
    # state files written before both cores saved one register image (chipstate.cpu_state)
    import gzip
    import json

    from emulator.debug.history import _encode

    dbg = demo("reference").break_at("shnew").press_at(1.0, "YES/BUY")
    dbg.run(seconds=3)
    dbg.save(tmp_path / "s.gz")
    cpu = dbg.cpu
    doc = json.loads(gzip.decompress((tmp_path / "s.gz").read_bytes()))
    doc["cpu"] = _encode({k: getattr(cpu, k) for k in ("a", "x", "y", "pc", "pa", "pb", "ca",
                                                      "cb", "cl", "status", "sl", "r", "o",
                                                      "o_index", "cycle")}
                         | {"ram": bytes(cpu.ram), "stack": list(cpu.stack)})
    (tmp_path / "old.gz").write_bytes(gzip.compress(json.dumps(doc).encode()))
    for core in ["fast", "reference"] if FAST_AVAILABLE else ["reference"]:
        other = demo(core)
        other.load(tmp_path / "old.gz")
        assert other.state() == dbg.state()


def test_the_old_view_methods_still_answer_with_a_deprecation_warning():
    from emulator.debug import views

    dbg = demo()
    with pytest.warns(DeprecationWarning, match="emulator.debug.views.format_registers"):
        text = dbg.format_registers()
    assert text == views.format_registers(dbg)


def test_an_unknown_attribute_is_still_an_attribute_error():
    with pytest.raises(AttributeError, match="format_nothing"):
        demo().format_nothing
