"""The parsers under fuzzing, each with seeds made by our own writers (or taken from the repo's
test data) and its clean-refusal error class.

Parsers: capture formats (.sr, VCD, Saleae csv and binary, .tlc, edges), the button box's
probe frames, PLA files, romsets (zip and folder), button scripts, event files, channel maps
and assembler source. The property is the same for all: an input opens completely or is
refused with the parser's error, in one line; the probe-frame parser must also find the same
frames however the byte stream is cut into reads.
"""
from __future__ import annotations

import io
import random
import shutil
import sys
import zipfile
from pathlib import Path

import numpy as np

from tests.fuzz.harness import Target, mutate_bytes, mutate_gzip, mutate_text, mutate_zip

__all__ = ["TARGETS"]

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
sys.path.insert(0, str(ROOT / "tests" / "captures"))     # saleae_fixture_writer


# --- captures ------------------------------------------------------------------------------

def _captures():
    from captures.model import CaptureInfo, Gap, MemoryCapture
    a = CaptureInfo(["R4", "R10", "O7"], 250_000.0, 400, {"darktower": {"script": "fuzz"}})
    b = CaptureInfo([f"D{i}" for i in range(9)], 1_000_000.0, 5000, {})
    return [MemoryCapture(a, np.array([0, 10, 11, 50, 300]),
                          np.array([1, 3, 2, 6, 0], np.uint64), [Gap(100, 120, "overrun")]),
            MemoryCapture(b, np.array([0, 7, 900, 901, 4000]),
                          np.array([0, 0x1FF, 0x100, 0x3, 0x0AA], np.uint64), [])]


def _written(write) -> list[bytes]:
    out = []
    for cap in _captures():
        buf = io.BytesIO()
        write(cap, buf)
        out.append(buf.getvalue())
    return out


def _open_all(path: Path) -> None:
    """Open a capture and read it to the end (changes and gaps)."""
    from captures.formats import open_capture
    cap = open_capture(path)
    for _ in cap.changes():
        pass
    list(cap.gaps)


def _capture_file(ext: str):
    def run(data: bytes, case: Path) -> None:
        path = case / f"input{ext}"
        path.write_bytes(data)
        _open_all(path)
    return run


def _sr_seeds(work: Path) -> list[bytes]:
    """Our writer's sessions, plus one made by the real sigrok-cli (its demo device, 64
    samples) when it is installed."""
    import subprocess
    from captures.sigrok import write_sr
    seeds = _written(write_sr)
    tool = shutil.which("sigrok-cli")
    if tool:
        path = work / "sigrok-demo.sr"
        subprocess.run([tool, "-d", "demo", "--samples", "64", "-C", "D0,D1,D2,D3", "-o",
                        str(path)], capture_output=True, timeout=60)
        if path.exists():
            seeds.append(path.read_bytes())
    return seeds


def _vcd_seeds(work: Path) -> list[bytes]:
    from captures.vcd import write_vcd
    return _written(write_vcd)


def _tlc_seeds(work: Path) -> list[bytes]:
    from captures.stream import write_stream
    return _written(write_stream)


def _edges_seeds(work: Path) -> list[bytes]:
    from captures.edges import write_edges
    return _written(write_edges)


def _saleae_csv_seeds(work: Path) -> list[bytes]:
    from saleae_fixture_writer import write_csv
    out = []
    for k, cap in enumerate(_captures()):
        path = work / f"seed{k}.csv"
        write_csv(cap, path)
        out.append(path.read_bytes())
    return out


def _saleae_bin_seeds(work: Path) -> list[bytes]:
    from saleae_fixture_writer import write_bin
    out = []
    for version in (0, 1):
        for k, cap in enumerate(_captures()):
            folder = work / f"seed{version}_{k}"
            folder.mkdir(exist_ok=True)
            out.append(write_bin(cap, folder, version=version)[1].read_bytes())
    return out


def _capture_error():
    from captures.model import CaptureError
    return (CaptureError,)


# --- probe frames --------------------------------------------------------------------------

def _frame_seeds(work: Path) -> list[bytes]:
    from rig import protocol as p
    frames = [p.encode(p.CMD_HELLO, 1), p.encode(p.CMD_PRESS, 2, button=3, hold_ms=200,
                                                 at_us=p.NOW),
              p.encode(p.CMD_RELEASE, 3, button=11, at_us=12345),
              p.encode(p.CMD_RELEASE_ALL, 4, at_us=0), p.encode(p.CMD_POWER, 5, on=1, at_us=9),
              p.encode(p.CMD_SYNC, 6, width_us=100, at_us=77), p.encode(p.CMD_STATUS, 7),
              p.encode(p.CMD_WATCHDOG, 8, timeout_ms=500),
              p.encode(p.REP_ACK, 9, cmd=2, status=1, at_us=1 << 31),
              p.encode(p.REP_NAK, 10, cmd=9, code=3),
              p.encode(p.REP_HELLO, 11, protocol=1, fw_major=1, fw_minor=0, buttons=12,
                       now_us=5, ident=b"TWRB"),
              p.encode(p.REP_STATUS, 12, now_us=1, buttons=0x0FFF, power=1, flags=0,
                       crc_errors=0, watchdog_ms=0)]
    return [b"".join(frames), b"".join(reversed(frames)), b"\x00\xa5" + frames[1] + b"\xa5"]


def _reframe(rng: random.Random, data: bytes, seeds: list[bytes]) -> bytes:
    """Mutate the bytes; one time in three, mutate inside one frame and fix its CRC, so the
    payload decoding behind the checksum is fuzzed too."""
    from rig import protocol as p
    if rng.random() < 2 / 3:
        return mutate_bytes(rng, data, seeds)
    out = bytearray(data)
    starts = [i for i in range(len(out) - 6) if out[i:i + 2] == p.MAGIC]
    if not starts:
        return mutate_bytes(rng, data, seeds)
    at = rng.choice(starts)
    length = out[at + 4]
    end = at + 5 + length
    body = bytearray(out[at + 2:end])
    for _ in range(rng.randint(1, 2)):
        body[rng.randrange(len(body))] = rng.randrange(256)
    if rng.random() < 0.3:
        body[2] = max(0, min(33, len(body) - 3))
    crc = p.crc16(bytes(body))
    out[at + 2:end + 2] = bytes(body) + crc.to_bytes(2, "little")
    return bytes(out)


def _run_frames(data: bytes, case: Path) -> None:
    from rig.protocol import FrameParser
    whole = FrameParser()
    frames = whole.feed(data)
    rng = random.Random(data)
    cut, parser, pos = [], FrameParser(), 0
    while pos < len(data):
        n = rng.randint(1, 9)
        cut += parser.feed(data[pos:pos + n])
        pos += n
    if cut != frames:
        raise AssertionError(f"frames depend on how the stream is read: {len(frames)} read "
                             f"whole, {len(cut)} read in pieces")
    if whole.dropped + sum(7 + len(f.payload) for f in frames) + len(whole._buf) != len(data):
        raise AssertionError("dropped + framed + buffered bytes do not add up to the input")
    for f in frames:
        try:
            f.fields()
        except ValueError as exc:       # unknown type or wrong length: the host NAKs it
            if not str(exc) or "\n" in str(exc):
                raise AssertionError(f"payload error not one line: {exc!r}") from None


# --- PLA, romsets --------------------------------------------------------------------------

def _pla_seeds(work: Path) -> list[bytes]:
    from emulator.darktower import glyph_output_pla
    from emulator.decode import ident_output_pla, standard_micro_pla
    from emulator.pla import pla_text
    return [pla_text(standard_micro_pla(), pad_to_bytes=867, term_count=30).encode(),
            pla_text(glyph_output_pla(), pad_to_bytes=557, term_count=32).encode(),
            pla_text(ident_output_pla()).encode(),
            (DATA.parent / "golden" / "core_output.pla").read_bytes()]


def _run_pla(data: bytes, case: Path) -> None:
    from emulator.pla import read_pla
    read_pla(data, "fuzz.pla")


def _romset_seeds(work: Path) -> list[bytes]:
    from emulator.darktower import glyph_output_pla
    from emulator.decode import ident_output_pla, standard_micro_pla
    from emulator.chips import TMS1100
    from emulator.pla import pla_text
    mpla = pla_text(standard_micro_pla(), pad_to_bytes=867, term_count=30).encode()
    sets = [{"mp7332": bytes(range(256)) * 16, "tms1100_common1_micro.pla": mpla,
             "tms1400_mbdtower_output.pla":
                 pla_text(glyph_output_pla(), pad_to_bytes=557, term_count=32).encode()},
            {"m34012": bytes(2048), "tms1100_common1_micro.pla": mpla,
             "tms1100_mdndclab_output.pla":
                 pla_text(ident_output_pla(TMS1100), pad_to_bytes=365, term_count=20).encode()},
            {"prog.bin": bytes([0x4C]) * 1024}]
    out = []
    for members in sets:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, content in members.items():
                zf.writestr(name, content)
        out.append(buf.getvalue())
    return out


def _mutate_romset(rng: random.Random, data: bytes, seeds: list[bytes]) -> bytes:
    return mutate_zip(rng, data, seeds, inner=lambda r, d, s: (
        mutate_text(r, d, s) if d[:1] in (b"#", b".") else mutate_bytes(r, d, s)))


def _run_romset_zip(data: bytes, case: Path) -> None:
    from emulator.romset import load_romset
    path = case / "set.zip"          # named by its members, not by the zip's name
    path.write_bytes(data)
    load_romset(path).make_cpu()


def _run_romset_folder(data: bytes, case: Path) -> None:
    """Unpack the (mutated) zip's members into a folder and load the folder."""
    from emulator.romset import load_romset
    folder = case / "set"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir()
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            members = [(i.filename.rsplit("/", 1)[-1], zf.read(i)) for i in zf.infolist()
                       if not i.is_dir()]
    except Exception:                           # noqa: BLE001 (no folder from broken bytes)
        members = [("mp7332", data)]
    for name, content in members:
        if name and name not in (".", "..") and "\x00" not in name:
            (folder / name).write_bytes(content)
    load_romset(folder).make_cpu()


def _rom_error():
    from emulator.romset import RomError
    return (RomError,)


# --- text files ----------------------------------------------------------------------------

def _script_seeds(work: Path) -> list[bytes]:
    corpus = sorted((DATA / "corpus").glob("*/script.txt"))[:3]
    return [(DATA / "captures" / "tower_test" / "script.txt").read_bytes(),
            (ROOT / "emulator" / "firmware" / "demo_session.txt").read_bytes(),
            *(p.read_bytes() for p in corpus)]


def _run_script(data: bytes, case: Path) -> None:
    from captures.script import read_script
    path = case / "script.txt"
    path.write_bytes(data)
    read_script(str(path))


def _events_seeds(work: Path) -> list[bytes]:
    out = []
    for name in ("tower_test", "level_select"):
        lines = (DATA / "captures" / name / "events.jsonl").read_bytes().split(b"\n")
        out.append(b"\n".join(lines[:40]) + b"\n")
    return out


def _run_events(data: bytes, case: Path) -> None:
    from captures.events import read_events
    path = case / "events.jsonl"
    path.write_bytes(data)
    read_events(str(path))


def _channel_map_seeds(work: Path) -> list[bytes]:
    from rig.specs import DEFAULT_CHANNEL_MAP
    full = "".join(f"{k} = {v}\n" for k, v in DEFAULT_CHANNEL_MAP.items())
    return [full.encode(), b"# eight-channel probe\nD0 = R4  # digit strobe\nD1 = O0\nD2 = K8\n"]


def _run_channel_map(data: bytes, case: Path) -> None:
    from captures.channelmap import check_tower_signals, load_channel_map
    path = case / "probe.map"
    path.write_bytes(data)
    check_tower_signals(load_channel_map(path), str(path))


def _asm_seeds(work: Path) -> list[bytes]:
    return [(ROOT / "tests" / "programs" / name).read_bytes()
            for name in ("r_o_k.asm", "tms1100_paging.asm", "bits_ram.asm")] + \
        [(ROOT / "tests" / "golden" / "core_tms1100.asm").read_bytes()]


def _run_asm(data: bytes, case: Path) -> None:
    from emulator.asm import assemble_file
    path = case / "prog.asm"
    path.write_bytes(data)
    assemble_file(path)


def _error(module: str, name: str):
    def get():
        import importlib
        return (getattr(importlib.import_module(module), name),)
    return get


def _target(name, seeds, run, errors, mutate=None) -> Target:
    return Target(name, seeds, run, errors(), mutate)


def _build() -> dict[str, Target]:
    cap = _capture_error
    text_cap = lambda r, d, s: mutate_text(r, d, s)  # noqa: E731
    targets = [
        _target("sr", _sr_seeds, _capture_file(".sr"), cap, mutate_zip),
        _target("vcd", _vcd_seeds, _capture_file(".vcd"), cap, text_cap),
        _target("saleae-csv", _saleae_csv_seeds, _capture_file(".csv"), cap, text_cap),
        _target("saleae-bin", _saleae_bin_seeds, _capture_file(".bin"), cap),
        _target("tlc", _tlc_seeds, _capture_file(".tlc"), cap),
        _target("edges", _edges_seeds, _capture_file(".jsonl.gz"), cap, mutate_gzip),
        _target("probe-frames", _frame_seeds, _run_frames, lambda: (), _reframe),
        _target("pla", _pla_seeds, _run_pla, _error("emulator.pla", "PlaError"), mutate_text),
        _target("romset-zip", _romset_seeds, _run_romset_zip, _rom_error, _mutate_romset),
        _target("romset-folder", _romset_seeds, _run_romset_folder, _rom_error,
                _mutate_romset),
        _target("script", _script_seeds, _run_script, _error("captures.script", "ScriptError"),
                mutate_text),
        _target("events", _events_seeds, _run_events, _error("captures.events", "EventError"),
                mutate_text),
        _target("channel-map", _channel_map_seeds, _run_channel_map, cap, mutate_text),
        _target("asm", _asm_seeds, _run_asm, _error("emulator.asm", "AsmError"), mutate_text),
    ]
    return {t.name: t for t in targets}


TARGETS = _build()
