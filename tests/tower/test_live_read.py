"""Reading a running tower's events: however often it is read, each read is what one read at
that time gives (rig.towers.emulated.EmulatorTower.events, captures.eventlog)."""
from __future__ import annotations

from pathlib import Path

import pytest

from analysis.decode import StreamDecoder
from captures.model import CaptureInfo, Changes
from captures.script import Press, Power, Script, read_script, timeline
from captures.tower import play_to, run_script
from rig.towers.emulated import EmulatorTower

ROOT = Path(__file__).resolve().parents[2]
DEMO_SESSION = ROOT / "emulator" / "firmware" / "demo_session.txt"
LABYRINTH_ASM = ROOT / "benchmarks" / "labyrinth_tones.asm"


def demo_script(until: float) -> Script:
    script = read_script(str(DEMO_SESSION))
    return Script(list(script.actions), until, "demo")


@pytest.fixture(scope="module")
def labyrinth_rom(tmp_path_factory):
    from emulator.asm import assemble
    from emulator.chips import TMS1100
    from emulator.decode import ident_output_pla
    from emulator.pla import write_pla

    folder = tmp_path_factory.mktemp("labyrinth")
    program = assemble(LABYRINTH_ASM.read_text(encoding="utf-8"), TMS1100, str(LABYRINTH_ASM))
    (folder / "m34012").write_bytes(bytes(program.rom))
    with open(folder / "o.pla", "w") as f:
        write_pla(ident_output_pla(TMS1100), f)
    return folder


def make(board: str, rom_folder: Path | None = None, core: str = "fast") -> EmulatorTower:
    if board == "labyrinth":
        return EmulatorTower(rom=str(rom_folder / "m34012"), opla=str(rom_folder / "o.pla"),
                             board="labyrinth", core=core)
    return EmulatorTower(core=core)


def read_along(tower, script: Script, read_at: list[float]) -> dict[float, list[dict]]:
    """Play ``script``, reading the events at each time of ``read_at`` (sorted); return them."""
    actions = list(timeline(script))
    reads, i = {}, 0
    for t_read in read_at:
        i = play_to(tower, actions, i, t_read)
        reads[t_read] = tower.events()
    return reads


def one_read_at(make_tower, script: Script, t: float) -> list[dict]:
    """Return what a fresh tower shows at ``t``, decoded here in one go from all its pins
    (the definition a live read must meet, independent of the tower's own reading)."""
    tower = make_tower()
    run_script(tower, Script(script.actions, t, script.name), until=t)
    board = tower.board
    times, words = board.event_arrays(0)
    dec = StreamDecoder(CaptureInfo(list(board.event_channels), tower.clock_hz),
                        only=tower.spec.decoders)
    end = max(tower.cycle, int(times[-1]) + 1 if len(times) else tower.cycle)
    decoded = dec.feed(Changes(times, words)) + dec.finish(end)
    power = [e for e in tower._power_events]
    every = [e for e in decoded + list(board.events) + power if e["t"] <= t + 1e-9]
    rank = {"power": 0, "button": 1}
    return sorted(every, key=lambda e: (e["t"], rank.get(e["type"], 2)))


def inside_points(events: list[dict]) -> list[float]:
    """Return times inside a tone, a display flash and a reel step of ``events``."""
    tones = [e for e in events if e["type"] == "tone" and e["dur_s"] > 0.02]
    texts = [e for e in events if e["type"] == "display"]
    reels = [e for e in events if e["type"] == "reel"]
    points = [tones[len(tones) // 2]["t"] + tones[len(tones) // 2]["dur_s"] / 2]
    if len(texts) > 2:
        a, b = texts[len(texts) // 2], texts[len(texts) // 2 + 1]
        points.append((a["t"] + b["t"]) / 2)
        points.append(b["t"] + 1 / 120)                 # half a 1/60 s window into a text
    if len(reels) > 1:
        points.append((reels[0]["t"] + reels[1]["t"]) / 2)
        points.append(reels[1]["t"] + 0.0135)           # half a 27 ms reel step after one
    return points


@pytest.mark.parametrize("step", [0.05, 0.0137, 0.31])
def test_reading_the_dark_tower_as_it_runs_gives_what_one_read_gives(step):
    script = demo_script(24.0)
    whole = run_script(make("darktower"), script)
    checks = inside_points(whole)
    times = sorted({round(k * step, 6) for k in range(1, int(24.0 / step) + 1)} | set(checks))
    reads = read_along(make("darktower"), script, times)
    assert reads[times[-1]] == one_read_at(lambda: make("darktower"), script, times[-1])
    for t in checks:
        assert reads[t] == one_read_at(lambda: make("darktower"), script, t), f"read at {t} s"


@pytest.mark.parametrize("step", [0.05, 0.0093])
def test_reading_the_labyrinth_as_it_runs_gives_what_one_read_gives(labyrinth_rom, step):
    script = Script([Press(float(t), "A1", 0.5) for t in (1, 4, 7)], 9.0, "labyrinth")
    whole = run_script(make("labyrinth", labyrinth_rom), script)
    tones = [e for e in whole if e["type"] == "tone"]
    assert len(tones) > 20 and any(e["type"] == "button" for e in whole)
    checks = [tones[5]["t"] + tones[5]["dur_s"] / 2, tones[12]["t"] + 1e-4]
    times = sorted({round(k * step, 6) for k in range(1, int(9.0 / step) + 1)} | set(checks))
    reads = read_along(make("labyrinth", labyrinth_rom), script, times)
    for t in checks + [times[-1]]:
        assert reads[t] == one_read_at(lambda: make("labyrinth", labyrinth_rom), script, t)


def test_power_switched_while_reading_gives_what_one_read_gives():
    script = Script(read_script(str(DEMO_SESSION)).actions[:2] + [Power(13.5, False),
                                                                    Power(14.2, True)],
                    16.0, "power")
    times = [round(k * 0.05, 6) for k in range(1, 321)]
    reads = read_along(make("darktower"), script, times)
    once = one_read_at(lambda: make("darktower"), script, 16.0)
    assert [e["on"] for e in once if e["type"] == "power"] == [0, 1]
    assert reads[16.0] == once


def test_the_reference_core_reads_as_it_runs_like_one_read():
    script = demo_script(4.0)
    times = [round(k * 0.05, 6) for k in range(1, 81)]
    reads = read_along(make("darktower", core="reference"), script, times)
    assert reads[4.0] == one_read_at(lambda: make("darktower", core="reference"), script, 4.0)


def test_a_read_returns_a_list_the_next_read_leaves_alone():
    tower = make("darktower")
    tower.advance(3.5)
    first = tower.events()
    kept = list(first)
    tower.press("YES/BUY")
    tower.advance(0.5)
    second = tower.events()
    assert len(second) > len(kept) and first == kept


def pin_tower_once(tower) -> list[dict]:
    """What a PinTower shows by definition: its power and key events plus its whole capture
    decoded in one go."""
    from analysis.decode import decode

    return sorted(tower._events + decode(tower.capture()), key=lambda e: e["t"])


def test_the_pin_level_fake_reads_as_it_runs_like_its_whole_capture_decoded():
    from rig.towers.fakes import PinTower

    script = Script([Press(0.7, "MOVE", 0.3), Press(2.2, "YES/BUY", 0.05), Power(3.1, False),
                     Power(3.4, True), Press(3.9, "NO/END", 0.4)], 5.0, "fake")
    times = sorted({round(k * 0.05, 6) for k in range(1, 101)} | {0.7, 2.21, 3.1})
    reads = read_along(PinTower(), script, times)
    for t in (0.7, 2.21, 3.1, 5.0):
        fresh = PinTower()
        read_along(fresh, script, [t])
        assert reads[t] == pin_tower_once(fresh), f"read at {t} s"


def test_the_clean_room_game_reads_as_it_runs_like_its_sorted_events():
    from cleanroom.tower import CleanroomTower

    script = demo_script(40.0)
    times = [round(k * 0.0173, 6) for k in range(1, int(40.0 / 0.0173) + 1)]
    reads = read_along(CleanroomTower(seed=3), script, times)
    for t in (times[len(times) // 3], times[-1]):
        fresh = CleanroomTower(seed=3)
        read_along(fresh, script, [t])
        assert reads[t] == fresh._engine.sorted_events(), f"read at {t} s"


def test_a_replayed_recording_reads_as_it_runs_like_its_events_up_to_now():
    from rig.towers.emulated import ReplayTower

    from .capdata import CAPTURES, events as capture_events

    folder = CAPTURES / "level4_bazaar"
    script = read_script(str(folder / "script.txt"))
    recorded = capture_events("level4_bazaar")
    times = [round(k * 0.05, 6) for k in range(1, int(script.end_time() / 0.05))]
    reads = read_along(ReplayTower(folder), script, times)
    for t in times[::97]:
        assert reads[t] == [e for e in recorded if e["t"] <= t + 1e-9]
