"""Run MAME 0.251 headless as an oracle for our TMS1000-family emulator.

Machines: ``mbdtower`` (Dark Tower, TMS1400, the default) and ``mdndclab`` (D&D Computer
Labyrinth, TMS1100), built from the boards' rows in ``emulator.boards``, and ``simon`` (MB Simon,
a plain TMS1000 with no board model here); :func:`machines` lists them. The harness builds a
scratch romset, e.g. ``roms/mbdtower/{mp7332, tms1100_common1_micro.pla,
tms1400_mbdtower_output.pla}`` or ``roms/simon/{tms1000.u1, tms1000_common3_micro.pla,
tms1000_simon_output.pla}``, from a ROM image and two PLA texts, starts ``/usr/games/mame mbdtower
-debug -debugger none -autoboot_script X.lua`` under ``timeout -s KILL`` and parses what the Lua
script (package data ``emulator/mame/*.lua``) writes. Method and pitfalls:
``docs/mame-oracle.md`` §2, §4, §5; ROM set members: ``docs/tms1400.md`` §12.

Modes:

- **trace** (:meth:`MameOracle.trace`): the state before every instruction, as the canonical
  trace line ``n cycle c:p:pc op A=a X=x Y=y S=s SL=l PB=pb CB=cb R=rrrr O=oo`` (all hex), plus
  the K value every 08-0F opcode read. Many images run in one MAME process: the script writes
  each further image into the ``:maincpu`` region, clears A, X, Y, SL, the stack and RAM (which
  reset leaves alone, docs/tms1400.md §11) and soft-resets, so every image starts from the
  power-on state; ``cycle`` counts from that reset. Key masks change once per 1/60 s frame.
- **pins** (:meth:`MameOracle.run_pins`): every R/O pin change with its cycle, from power-on,
  with the keys of a Dark Tower button script (captures.script) pressed as MAME sees them: from
  the 1/60 s frame boundary at or after the scripted time (:func:`frame_boundary`). A debugger
  registerpoint stops only before TDO/SETR/RSTR, so this runs at several times real time.
- **dasm** (:meth:`MameOracle.disassemble`): MAME's disassembler text of every opcode byte
  (the references in tests/data/mame_dasm/ are this of a ROM holding the bytes 00-FF).
- **speed** (:meth:`MameOracle.speed`): MAME's own speed on an image (no debugger, no Lua),
  start-up timed apart.

Example::

    oracle = MameOracle()
    [trace] = oracle.trace([rom], mpla_text, opla_text, steps=100)
    print(trace.lines()[0])       # 0 5 0:F:00 0C A=0 X=0 Y=0 S=1 SL=0 PB=F CB=0 R=0000 O=00
"""
from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import NamedTuple, Sequence

from captures.darktower_facts import KEY_MATRIX
from emulator.boards import BOARDS, BoardSpec, board_spec
from emulator.chips import TMS1000, Chip
from emulator.trace import format_line  # noqa: F401 (re-exported)
from emulator.pla import Pla, pla_text

__all__ = [
    "MameError", "MameOracle", "MameMachine", "MameStep", "MameTrace", "MameSpeed", "PinChange",
    "MBDTOWER", "MDNDCLAB", "SIMON", "machines", "machine_for_board", "MAME_BINARY",
    "MAME_VERSION", "CLOCK_HZ", "FRAME_HZ", "ROM_SIZE", "MPLA_SIZE", "OPLA_SIZE", "KEY_MATRIX",
    "format_line", "ram_hex", "frame_boundary", "script_inputs", "mame_pla_texts",
]

MAME_BINARY = "/usr/games/mame"
MAME_VERSION = "0.251"      # the version whose traces the cross-checks were verified against
_DARKTOWER = BOARDS["darktower"]
CLOCK_HZ = _DARKTOWER.clock_hz          # mbdtower CPU clock (Hz), from the board's row
FRAME_HZ = 60               # MAME polls inputs once per 1/60 s frame (docs/mame-oracle.md §5.8)
ROM_SIZE = _DARKTOWER.chip.rom_size    # mp7332 (bytes)
MPLA_SIZE = 867             # tms1100_common1_micro.pla, tms1000_common3_micro.pla (all machines)
OPLA_SIZE = _DARKTOWER.mame.opla_size  # tms1400_mbdtower_output.pla (bytes)
MPLA_FILE = _DARKTOWER.romset.mpla.file
R_PINS = 0x7FF              # R0-R10; the R latch has hidden bits 11-15


@dataclass(frozen=True)
class MameMachine:
    """One MAME machine the oracle runs: its chip, ROM-set members and inputs.

    Sources: docs/tms1400.md §10 (clocks) and §12 (ROM sets), docs/dark-tower-wiring.md §5 and
    docs/labyrinth-wiring.md §2 (input ports);
    simon: MAME 0.251 ``-listroms simon`` / ``-listdevices simon`` (TMS1000 @ 325 kHz, ROM
    ``tms1000.u1`` 1024 bytes, PLAs 867 / 365 bytes) and its input ports as MAME's Lua lists
    them (IN.0 R0 "Game Select" switch, IN.1 R1 the four colour buttons, IN.2 R2 Start/Last/
    Longest, IN.3 R9 "Difficulty" switch). ``key_ports`` is the number of input ports
    ``IN.0`` .. ``IN.n-1`` (4 K bits each); ``switch_ports`` are those of them that hold
    configuration switches, which the oracle leaves at MAME's defaults.
    """
    name: str
    chip: Chip
    rom_file: str
    opla_file: str
    opla_size: int
    clock_hz: int
    key_ports: int
    mpla_file: str = MPLA_FILE
    switch_ports: tuple[int, ...] = ()
    board: str | None = None           # the row in emulator.boards it was built from

    @property
    def keys(self) -> dict[str, tuple[int, int]] | None:
        """Return the board's key name -> (input port, K bit), None for a machine without a
        board model (a board's strobe line p is MAME's port IN.p)."""
        return board_spec(self.board).board_class.KEYS if self.board else None

    def default_opla(self):
        """Return the output PLA used when none is given: the board's default (the Dark
        Tower's glyph table), else the identity output PLA of the chip."""
        spec = board_spec(self.board) if self.board else None
        if spec is not None and spec.default_opla is not None:
            return spec.default_opla()
        from emulator.decode import ident_output_pla

        return ident_output_pla(self.chip)

    @property
    def rom_size(self) -> int:
        """Return the ROM image size in bytes."""
        return self.chip.rom_size

    @property
    def opla_terms(self) -> int:
        """Return the output-PLA term count MAME's device reads."""
        return self.chip.opla_terms

    @property
    def key_mask(self) -> int:
        """Return the key-mask bits (4p + b) the oracle can press: every port but switches."""
        mask = 0
        for port in range(self.key_ports):
            if port not in self.switch_ports:
                mask |= 0xF << 4 * port
        return mask




def machine_for_board(spec: BoardSpec) -> MameMachine:
    """Return the MAME machine of a board row (MameError for a row without MAME parameters)."""
    if spec.mame is None or spec.romset is None:
        raise MameError(f"board {spec.name!r} has no MAME machine (its row gives no MAME "
                        "parameters and ROM set)")
    return MameMachine(spec.mame.machine, spec.chip, spec.romset.rom.file,
                       spec.romset.opla.file, spec.mame.opla_size, spec.clock_hz,
                       spec.mame.key_ports, spec.romset.mpla.file, spec.mame.switch_ports,
                       spec.name)


MBDTOWER = machine_for_board(BOARDS["darktower"])
MDNDCLAB = machine_for_board(BOARDS["labyrinth"])
# simon: no board model; MAME 0.251 -listroms/-listdevices simon, see MameMachine.
SIMON = MameMachine("simon", TMS1000, "tms1000.u1", "tms1000_simon_output.pla", 365,
                    325_000, 4, "tms1000_common3_micro.pla", (0, 3))


def machines() -> dict[str, MameMachine]:
    """Return the machines the oracle runs by name: one per registered board with MAME
    parameters, and simon."""
    found = {m.name: m for m in (MBDTOWER, MDNDCLAB)}
    for spec in BOARDS.values():
        if spec.mame is not None and spec.mame.machine not in found:
            found[spec.mame.machine] = machine_for_board(spec)
    found[SIMON.name] = SIMON
    return found

# KEY_MATRIX (captures.darktower_facts, docs/dark-tower-wiring.md §5): button -> (R column,
# K bit). In MAME's driver column p is input port IN.p, read while R line p is high.

# Script times closer than this to a frame boundary count as on it (seconds).
_FRAME_TOLERANCE = 2e-4


class MameError(ValueError):
    """MAME could not be run or gave no usable result; the message says which file or value."""


@dataclass(frozen=True)
class MameStep:
    """The CPU state MAME shows before one instruction (all register widths as on the chip).

    ``cycle`` is the oscillator clock (CPU clocks) of the fetch, counted from reset; ``k`` is the
    value of the K inputs the instruction read (opcodes 08-0F only, else None).
    """
    n: int
    cycle: int
    chapter: int
    page: int
    pc: int
    op: int
    a: int
    x: int
    y: int
    status: int
    sl: int
    pb: int
    cb: int
    r: int
    o: int
    k: int | None = None

    def line(self) -> str:
        """Return the canonical trace line (``format_line``)."""
        return format_line(self.n, self.cycle, self.chapter, self.page, self.pc, self.op,
                           self.a, self.x, self.y, self.status, self.sl, self.pb, self.cb,
                           self.r, self.o)


@dataclass
class MameTrace:
    """MAME's trace of one image: the steps in order, and the RAM snapshots when asked for.

    ``ram[n]`` is the RAM before instruction ``n`` (``n = len(steps)``: after the last one),
    one hex digit per nibble from address 0 (``X<<4 | Y``), as :func:`ram_hex` writes it.
    """
    steps: list[MameStep] = field(default_factory=list)
    ram: dict[int, str] = field(default_factory=dict)

    def lines(self) -> list[str]:
        """Return the canonical trace lines."""
        return [s.line() for s in self.steps]

    def k_reads(self) -> dict[int, int]:
        """Return ``{cycle: K}`` for every K read, keyed by the sampling clock (fetch + 1).

        This is the clock our core passes to ``read_k`` (docs/ARCHITECTURE.md, chip pins).
        """
        return {s.cycle + 1: s.k for s in self.steps if s.k is not None}


class PinChange(NamedTuple):
    """One pin-latch change: at ``cycle`` (CPU clocks from power-on) ``port`` became ``value``.

    ``port`` is ``"R"`` (R0-R10 as bits 0-10) or ``"O"`` (O0-O7). Cycle 0 holds the values
    after reset; later changes come 3 clocks after the output opcode's fetch (docs/tms1400.md §3).
    A plain tuple ``(cycle, port, value)`` compares equal.
    """
    cycle: int
    port: str
    value: int


@dataclass(frozen=True)
class MameSpeed:
    """A timing of MAME running an image for ``emulated_s`` seconds.

    ``wall_s`` is the wall time of that run, ``startup_s`` the wall time of a 1-second run (the
    shortest MAME allows: ``-seconds_to_run 0`` means "forever"), both best of two, so the
    difference is the time MAME took for ``emulated_s - 1`` emulated seconds. ``reported`` is
    MAME's own "Average speed" line of the long run as a multiple of real time (it too leaves
    out start-up), or None when MAME did not print one.
    """
    emulated_s: float
    wall_s: float
    startup_s: float
    reported: float | None = None
    clock_hz: int = CLOCK_HZ

    @property
    def run_s(self) -> float:
        """Return the wall seconds spent on the extra emulated seconds (at least 1 ms)."""
        return max(self.wall_s - self.startup_s, 1e-3)

    @property
    def instructions_per_s(self) -> float:
        """Return emulated instructions per wall second (6 clocks per instruction)."""
        return (self.emulated_s - 1) * self.clock_hz / 6 / self.run_s


def ram_hex(ram: bytes | bytearray | Sequence[int]) -> str:
    """Return RAM nibbles as the oracle's snapshot text: one upper-case hex digit per nibble."""
    return "".join("0123456789ABCDEF"[v & 15] for v in ram)


def frame_boundary(t: float) -> float:
    """Return the time (s) at which MAME's CPU first sees an input change requested at ``t``.

    MAME hands input changes to the driver at 1/60 s frame boundaries (docs/mame-oracle.md §5.8),
    the first one at 1/60 s after power-on; a time on a boundary (within 0.2 ms) counts as that
    boundary, as in the shared captures' scripts ("times are when the chip first sees the key").
    """
    if not t >= 0 or math.isinf(t):
        raise MameError(f"input time {t!r} is not a finite number of seconds >= 0")
    return max(math.ceil(t * FRAME_HZ - _FRAME_TOLERANCE * FRAME_HZ), 1) / FRAME_HZ


def script_inputs(script) -> list[tuple[float, str, bool]]:
    """Return ``(seen_s, button, pressed)`` for a captures.script Script, as MAME applies it.

    ``seen_s`` is the frame boundary from which the chip sees the change. Raises MameError for
    power actions other than an initial ``0 power on`` (mbdtower has no power switch) and for a
    press released within the frame it was pressed in.
    """
    from captures.script import timeline

    events = []
    held: dict[str, tuple[float, float]] = {}      # button -> (press time, boundary)
    for t, kind, arg in timeline(script):
        if kind == "power" and arg and t == 0:
            continue                       # the run starts at power-on anyway
        if kind == "power":
            raise MameError(f"{script.name}: 'power' at {t:g} s: the MAME oracle runs from "
                            "power-on and cannot switch the tower off or on")
        if kind not in ("press", "release"):
            raise MameError(f"{script.name}: unknown script action {kind!r} at {t:g} s")
        seen = frame_boundary(t)
        if kind == "press":
            held[arg] = (t, seen)
        else:
            pressed_at, pressed_seen = held.pop(arg, (None, None))
            if pressed_seen == seen:
                raise MameError(f"{script.name}: {arg} pressed at {pressed_at:g} s is released "
                                "in the same 1/60 s frame, so MAME would never show it to the "
                                "chip")
        events.append((seen, arg, kind == "press"))
    events.sort(key=lambda e: (e[0], e[2]))
    return events


def _script_path(name: str) -> Path:
    path = Path(str(resources.files("emulator"))) / "mame" / name
    if not path.is_file():
        raise MameError(f"{path}: Lua script missing from the emulator package")
    return path


def mame_pla_texts(mpla: Pla | None = None, opla: Pla | None = None,
                   machine: MameMachine = MBDTOWER) -> tuple[str, str]:
    """Return the micro and output PLA file texts ``machine`` loads, padded to MAME's sizes.

    Sizes and term counts: micro PLA 867 bytes / 30 terms; output PLA 557 bytes / 32 terms
    (mbdtower) or 365 / 20 (mdndclab, simon) (docs/mame-oracle.md §3; ``mame -listroms simon``).
    Defaults: the TI standard micro decode of the machine's chip
    (emulator.decode.standard_micro_pla) and, for mbdtower, the Dark Tower glyph output PLA
    (emulator.darktower.glyph_output_pla), for the others the identity output PLA. The
    oracle's methods also take Pla objects and convert them this way.
    """
    from emulator.decode import standard_micro_pla

    if opla is None:
        opla = machine.default_opla()
    return (_as_text(standard_micro_pla(machine.chip) if mpla is None else mpla,
                     machine.mpla_file, machine),
            _as_text(opla, machine.opla_file, machine))


def _as_text(pla, name: str, machine: MameMachine):
    """Return a Pla as ``machine``'s file text (exact size and term count); else leave it."""
    if not isinstance(pla, Pla):
        return pla
    size, terms = ((MPLA_SIZE, 30) if name == machine.mpla_file
                   else (machine.opla_size, machine.opla_terms))
    try:
        return pla_text(pla, pad_to_bytes=size, term_count=terms)
    except ValueError as exc:
        raise MameError(f"{name}: {exc}") from None


def _check_inputs(rom: bytes, mpla_text, opla_text,
                  machine: MameMachine = MBDTOWER) -> tuple[str, str]:
    mpla_text = _as_text(mpla_text, machine.mpla_file, machine)
    opla_text = _as_text(opla_text, machine.opla_file, machine)
    if not isinstance(rom, (bytes, bytearray)) or len(rom) != machine.rom_size:
        size = len(rom) if isinstance(rom, (bytes, bytearray)) else type(rom).__name__
        raise MameError(f"ROM image has {size} bytes (expected {machine.rom_size} for the "
                        f"{machine.chip.name.upper()} of {machine.name})")
    for name, text, size in ((machine.mpla_file, mpla_text, MPLA_SIZE),
                             (machine.opla_file, opla_text, machine.opla_size)):
        if not isinstance(text, str):
            raise MameError(f"{name}: expected PLA text (str), got {type(text).__name__}")
        try:
            data = text.encode("ascii")
        except UnicodeEncodeError:
            raise MameError(f"{name}: PLA text is not ASCII") from None
        if len(data) != size:
            raise MameError(f"{name}: PLA text has {len(data)} bytes (MAME expects exactly {size}; "
                            "pad with # comment lines, emulator.pla.write_pla does)")
    return mpla_text, opla_text


_STEP = re.compile(r"^[0-9A-F]+( [0-9A-F]+){14}$")
_VERSIONS: dict[tuple[str, int], str] = {}      # (real path, mtime) -> "0.251"


class MameOracle:
    """Run MAME 0.251 headless on our images (see the module docstring).

    ``binary``: the MAME executable; ``timeout``: seconds before a run is killed (SIGKILL);
    ``workdir``: where scratch folders go (default: the system temp dir; each run cleans up);
    ``machine``: a :func:`machines` row or name (default mbdtower); ``expect_version``: the
    MAME version the oracle insists on before its first run (default :data:`MAME_VERSION`;
    None runs any version). Another version may trace differently (save-item names, timing,
    input handling), so a different one is refused with both versions named rather than left
    to give silently different traces. The PLA arguments of every method are MAME file texts
    (exact sizes) or ``Pla`` objects (converted by :func:`mame_pla_texts`' rules).
    """

    def __init__(self, binary: str = MAME_BINARY, timeout: float = 600.0,
                 workdir: str | None = None, machine: MameMachine | str = MBDTOWER,
                 expect_version: str | None = MAME_VERSION) -> None:
        if isinstance(machine, str):
            known = machines()
            if machine not in known:
                raise MameError(f"unknown MAME machine {machine!r} (expected one of "
                                f"{', '.join(known)})")
            machine = known[machine]
        self.binary = binary
        self.timeout = timeout
        self.workdir = workdir
        self.machine = machine
        self.expect_version = expect_version

    # -- running MAME -------------------------------------------------------------------------

    def _mame(self) -> str:
        found = shutil.which(self.binary) or (self.binary if os.path.isfile(self.binary) else None)
        if not found:
            raise MameError(f"{self.binary}: MAME not found (apt-get install mame; "
                            f"{MAME_VERSION} expected)")
        if self.expect_version is not None:
            got = self.version()
            if got != self.expect_version:
                raise MameError(f"{self.binary}: MAME {got}, expected {self.expect_version} (the "
                                "traces were verified against it; another version may trace "
                                "differently: install mame " + self.expect_version +
                                ", or pass expect_version=None to run this one anyway)")
        return found

    def version(self) -> str:
        """Return the MAME version ``binary -version`` prints, e.g. ``"0.251"``.

        Asked once per executable (path and modification time) per process.
        """
        found = shutil.which(self.binary) or (self.binary if os.path.isfile(self.binary) else None)
        if not found:
            raise MameError(f"{self.binary}: MAME not found (apt-get install mame; "
                            f"{MAME_VERSION} expected)")
        key = (os.path.realpath(found), os.stat(found).st_mtime_ns)
        if key not in _VERSIONS:
            try:
                proc = subprocess.run([found, "-version"], stdin=subprocess.DEVNULL,
                                      capture_output=True, text=True, errors="replace",
                                      timeout=max(self.timeout, 30))
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise MameError(f"{self.binary} -version: cannot run ({exc})") from None
            words = proc.stdout.split()
            if proc.returncode != 0 or not words or not re.fullmatch(r"\d+\.\d+\S*", words[0]):
                raise MameError(f"{self.binary} -version: printed {proc.stdout.strip()[:60]!r} "
                                f"(exit status {proc.returncode}; expected a version such as "
                                f"{MAME_VERSION})")
            _VERSIONS[key] = words[0]
        return _VERSIONS[key]

    def _romset(self, work: Path, rom: bytes, mpla_text: str, opla_text: str) -> Path:
        folder = work / "roms" / self.machine.name
        folder.mkdir(parents=True)
        (folder / self.machine.rom_file).write_bytes(bytes(rom))
        (folder / self.machine.mpla_file).write_bytes(mpla_text.encode("ascii"))
        (folder / self.machine.opla_file).write_bytes(opla_text.encode("ascii"))
        return work / "roms"

    def _command(self, work: Path, roms: Path, lua: Path | None, seconds: int = 0,
                 debug: bool = True) -> list[str]:
        cmd = ["timeout", "-s", "KILL", str(int(math.ceil(self.timeout))), self._mame(),
               self.machine.name,
               "-noreadconfig", "-rompath", str(roms), "-cfg_directory", str(work / "cfg"),
               "-nvram_directory", str(work / "nvram"), "-video", "none", "-sound", "none",
               "-nothrottle", "-seconds_to_run", str(seconds), "-skip_gameinfo"]
        if debug:
            cmd += ["-debug", "-debugger", "none"]
        if lua is not None:
            cmd += ["-autoboot_script", str(lua)]
        return cmd

    def _run_lua(self, work: Path, roms: Path, script: str, job: str,
                 debug: bool = True) -> list[str]:
        """Run MAME with one of our Lua scripts and return the lines it wrote (without DONE)."""
        job_path = work / "job.txt"
        job_path.write_text(job, encoding="ascii")
        out_path = work / "out.txt"
        env = dict(os.environ, TOWERLAB_MAME_JOB=str(job_path), TOWERLAB_MAME_OUT=str(out_path))
        cmd = self._command(work, roms, _script_path(script), debug=debug)
        proc = subprocess.run(cmd, cwd=work, env=env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              errors="replace")
        lines = (out_path.read_text(encoding="utf-8", errors="replace").splitlines()
                 if out_path.exists() else [])
        for line in lines:
            if line.startswith("ERR "):
                raise MameError(f"{script}: Lua error in MAME: {line[4:]}")
        # The script writes DONE as its last line and leaves with os.exit(0); anything else is a
        # crash, a kill by timeout or an error MAME printed (docs/mame-oracle.md §5.6).
        if not lines or lines[-1] != "DONE":
            if proc.returncode in (-9, 124, 137):
                why = f"killed after {self.timeout:g} s (timeout)"
            else:
                errs = [ln for ln in (proc.stderr + proc.stdout).splitlines()
                        if ln.strip() and "XDG_RUNTIME_DIR" not in ln and "ALSA" not in ln]
                why = f"exit status {proc.returncode}" + (f": {errs[-1].strip()}" if errs else "")
            raise MameError(f"{self.binary} {self.machine.name} ({script}) ended without "
                            f"finishing: {why}")
        return lines[:-1]

    def _scratch(self) -> tempfile.TemporaryDirectory:
        return tempfile.TemporaryDirectory(prefix="towerlab-mame-", dir=self.workdir)

    # -- trace mode ---------------------------------------------------------------------------

    def trace(self, roms: Sequence[bytes], mpla_text: str | Pla, opla_text: str | Pla, steps: int,
              keys: Sequence[Sequence[int]] | None = None,
              ram_every: int | None = None) -> list[MameTrace]:
        """Return MAME's trace of ``steps`` instructions for each image, all in one MAME process.

        ``keys[i]`` is the key schedule of image i: masks with bit 4p+b = input port IN.p, K bit
        b (12 bits on mbdtower, port p = KEY_MATRIX column; 72 on mdndclab, port = mux bit; 16
        on simon, where only ports IN.1 and IN.2 hold buttons: ``machine.key_mask``); the
        first held from the start, each next one from the middle of the 1/60 s frame after the
        boundary that handed over the previous one. Default: no keys. ``ram_every`` N: also
        snapshot the RAM before every N-th instruction and after the last (``MameTrace.ram``).
        """
        roms = list(roms)
        if not roms:
            raise MameError("trace needs at least one ROM image")
        for i, rom in enumerate(roms):
            try:
                checked = _check_inputs(rom, mpla_text, opla_text, self.machine)
            except MameError as exc:
                raise MameError(f"image {i}: {exc}") from None
        mpla_text, opla_text = checked
        if not isinstance(steps, int) or steps <= 0:
            raise MameError(f"steps {steps!r} must be a positive number of instructions")
        if ram_every is not None and (not isinstance(ram_every, int) or ram_every <= 0):
            raise MameError(f"ram_every {ram_every!r} must be a positive number of instructions")
        if keys is not None and len(keys) != len(roms):
            raise MameError(f"{len(keys)} key schedules for {len(roms)} images (expected one each)")
        bits = 4 * self.machine.key_ports
        job = [f"steps {steps}", f"clock {self.machine.clock_hz}",
               f"romsize {self.machine.rom_size}", f"ramsize {self.machine.chip.ram_size}",
               f"ports {self.machine.key_ports}"]
        if self.machine.switch_ports:
            job.append("switches " + " ".join(map(str, self.machine.switch_ports)))
        if ram_every is not None:
            job.append(f"ramevery {ram_every}")
        for i, rom in enumerate(roms):
            job.append("rom " + bytes(rom).hex())
            masks = list(keys[i]) if keys is not None else []
            for m in masks:
                if not isinstance(m, int) or not 0 <= m < 1 << bits:
                    raise MameError(f"image {i}: key mask {m!r} is not a {bits}-bit number")
                if m & ~self.machine.key_mask:
                    raise MameError(f"image {i}: key mask {m:X} presses bits "
                                    f"{m & ~self.machine.key_mask:X}, which are configuration "
                                    f"switches on {self.machine.name} (allowed bits: "
                                    f"{self.machine.key_mask:X})")
            if masks:
                job.append("keys " + " ".join(f"{m:X}" for m in masks))
        with self._scratch() as tmp:
            work = Path(tmp)
            romdir = self._romset(work, roms[0], mpla_text, opla_text)
            lines = self._run_lua(work, romdir, "trace.lua", "\n".join(job) + "\n")
        return _parse_trace(lines, len(roms), steps, self.machine.chip.ram_size)

    # -- pins mode ----------------------------------------------------------------------------

    def run_pins(self, rom: bytes, mpla_text: str | Pla, opla_text: str | Pla, script=None,
                 seconds: float | None = None) -> list[PinChange]:
        """Return every R/O pin change of ``rom`` run from power-on for ``seconds`` (emulated).

        ``script`` is a captures.script Script (or None for no keys); its presses reach the chip
        at frame boundaries (``frame_boundary``). ``seconds`` defaults to the script's run
        length. The first two entries are the values after reset, at cycle 0.
        """
        mpla_text, opla_text = _check_inputs(rom, mpla_text, opla_text, self.machine)
        from captures.script import BUTTONS

        keys = self.machine.keys or {}
        if script is not None and not set(BUTTONS) <= set(keys):
            raise MameError(f"{script.name}: button scripts name Dark Tower keys; "
                            f"{self.machine.name} runs take no script")
        if seconds is None:
            if script is None:
                raise MameError("run_pins needs seconds or a script with a run length")
            seconds = script.end_time()
        if not seconds > 0 or math.isinf(seconds):
            raise MameError(f"seconds {seconds!r} must be a finite time > 0")
        job = [f"seconds {seconds!r}", f"clock {self.machine.clock_hz}",
               f"romsize {self.machine.rom_size}"]
        if script is not None:
            for seen, button, pressed in script_inputs(script):
                if seen >= seconds:
                    continue
                port, mask = keys[button]
                # Set the key mid-frame, half a frame before the boundary that hands it over.
                at = max(seen - 0.5 / FRAME_HZ, 0.0)
                job.append(f"input {at!r} {port} {mask} {int(pressed)}")
        with self._scratch() as tmp:
            work = Path(tmp)
            romdir = self._romset(work, rom, mpla_text, opla_text)
            lines = self._run_lua(work, romdir, "pins.lua", "\n".join(job) + "\n")
        return _parse_pins(lines)

    # -- sound ------------------------------------------------------------------------------

    def wav(self, rom: bytes, mpla_text: str | Pla, opla_text: str | Pla, seconds: int,
            rate: int = 48000) -> bytes:
        """Return the WAV file ``-wavwrite`` writes for ``rom`` run ``seconds`` (a whole number,
        docs/mame-oracle.md §5.5) from power-on, no keys, at ``rate`` Hz (16-bit stereo, the
        speaker on both channels); no debugger or Lua."""
        mpla_text, opla_text = _check_inputs(rom, mpla_text, opla_text, self.machine)
        if not isinstance(seconds, int) or seconds < 1:
            raise MameError(f"seconds {seconds!r} must be a whole number >= 1")
        with self._scratch() as tmp:
            work = Path(tmp)
            romdir = self._romset(work, rom, mpla_text, opla_text)
            out = work / "out.wav"
            cmd = self._command(work, romdir, None, seconds, debug=False) + [
                "-samplerate", str(int(rate)), "-wavwrite", str(out)]
            proc = subprocess.run(cmd, cwd=work, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if proc.returncode != 0 or not out.exists():
                raise MameError(f"{self.binary} {self.machine.name} -wavwrite: exit status "
                                f"{proc.returncode}")
            return out.read_bytes()

    # -- disassembler -------------------------------------------------------------------------

    def disassemble(self, rom: bytes, mpla_text: str | Pla | None = None,
                    opla_text: str | Pla | None = None) -> dict[int, str]:
        """Return ``{opcode byte: "MNEMONIC operand"}`` as MAME's debugger ``dasm`` shows them.

        Runs the debugger's ``dasm`` over the whole ROM ``rom`` (every byte once; a byte seen
        at several addresses must read the same). The PLAs default to the machine's
        (:func:`mame_pla_texts`); they do not change the disassembly.
        """
        default_mpla, default_opla = mame_pla_texts(machine=self.machine)
        mpla_text, opla_text = _check_inputs(
            rom, default_mpla if mpla_text is None else mpla_text,
            default_opla if opla_text is None else opla_text, self.machine)
        with self._scratch() as tmp:
            work = Path(tmp)
            romdir = self._romset(work, rom, mpla_text, opla_text)
            listing = work / "dasm.txt"
            self._run_lua(work, romdir, "dasm.lua",
                          f"romsize {self.machine.rom_size}\ndasm {listing}\n")
            if not listing.exists():
                raise MameError(f"{self.binary} {self.machine.name}: dasm wrote no listing")
            lines = listing.read_text(encoding="ascii", errors="replace").splitlines()
        return _parse_dasm(lines, self.machine.rom_size)

    # -- speed --------------------------------------------------------------------------------

    def speed(self, rom: bytes, mpla_text: str | Pla, opla_text: str | Pla,
              seconds: int) -> MameSpeed:
        """Time MAME running ``rom`` for ``seconds`` emulated seconds without debugger or Lua.

        Start-up is the wall time of a 1-second run, measured the same way (see MameSpeed).
        """
        mpla_text, opla_text = _check_inputs(rom, mpla_text, opla_text, self.machine)
        if not isinstance(seconds, int) or seconds < 2:
            raise MameError(f"seconds {seconds!r} must be a whole number >= 2 (MAME's "
                            "-seconds_to_run takes integers; 1 s is the start-up run)")
        with self._scratch() as tmp:
            work = Path(tmp)
            romdir = self._romset(work, rom, mpla_text, opla_text)
            startup, _ = self._timed_run(work, romdir, 1)
            wall, output = self._timed_run(work, romdir, seconds)
        m = re.search(r"Average speed:\s*([0-9.]+)%", output)
        return MameSpeed(float(seconds), wall, startup, float(m.group(1)) / 100 if m else None,
                         self.machine.clock_hz)

    def _timed_run(self, work: Path, romdir: Path, seconds: int) -> tuple[float, str]:
        """Return (best wall time of two runs, MAME's output) for ``-seconds_to_run seconds``."""
        best, output = math.inf, ""
        for _ in range(2):
            cmd = self._command(work, romdir, None, seconds, debug=False)
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, cwd=work, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  errors="replace")
            wall = time.perf_counter() - t0
            if proc.returncode != 0:
                raise MameError(f"{self.binary} {self.machine.name} -seconds_to_run {seconds}: "
                                f"exit status {proc.returncode}")
            if wall < best:
                best, output = wall, proc.stdout + proc.stderr
        return best, output


_DASM = re.compile(r"^\s*[0-9A-F:]+:\s+([0-9A-F]{2})\s+(\S+)\s*(\S*)\s*$")


def _parse_dasm(lines: list[str], size: int) -> dict[int, str]:
    table: dict[int, str] = {}
    for line in lines:
        m = _DASM.match(line)
        if not m:
            raise MameError(f"MAME dasm: unexpected line {line[:60]!r}")
        byte, text = int(m.group(1), 16), f"{m.group(2)} {m.group(3)}".rstrip()
        if table.setdefault(byte, text) != text:
            raise MameError(f"MAME dasm: opcode {byte:02X} shown as {table[byte]!r} and {text!r}")
    if len(lines) != size:
        raise MameError(f"MAME dasm listed {len(lines)} lines (expected {size}, one per byte)")
    return table


def _parse_trace(lines: list[str], count: int, steps: int,
                 ram_size: int = 128) -> list[MameTrace]:
    traces: list[MameTrace] = []
    current: list[MameStep] | None = None
    ram: dict[int, str] = {}
    for line in lines:
        if line.startswith("prog "):
            current, ram = [], {}
        elif line.startswith("end "):
            got = 0 if current is None else len(current)
            if got != steps:
                raise MameError(f"MAME trace of image {line[4:]} has {got} steps "
                                f"(expected {steps})")
            traces.append(MameTrace(current, ram))
            current = None
        elif line.startswith("ram "):
            parts = line.split()
            if current is None or len(parts) != 3 or len(parts[2]) != ram_size:
                raise MameError(f"MAME trace: RAM line {line[:60]!r} is not 'ram n' and "
                                f"{ram_size} hex digits inside an image")
            ram[int(parts[1], 16)] = parts[2]
        elif line.startswith("key "):
            _, n, k = line.split()
            i = int(n, 16)
            if current is None or i >= len(current):
                raise MameError(f"MAME trace: key line {line!r} for an instruction not traced")
            current[i] = _with_k(current[i], int(k, 16) & 0xF)
        elif _STEP.match(line):
            if current is None:
                raise MameError(f"MAME trace: step line {line!r} outside an image")
            v = [int(t, 16) for t in line.split()]
            current.append(MameStep(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9],
                                    v[10], v[11], v[12], v[13] & R_PINS, v[14]))
        else:
            raise MameError(f"MAME trace: unexpected line {line[:60]!r}")
    if len(traces) != count:
        raise MameError(f"MAME traced {len(traces)} images (expected {count})")
    return traces


def _with_k(step: MameStep, k: int) -> MameStep:
    return MameStep(step.n, step.cycle, step.chapter, step.page, step.pc, step.op, step.a,
                    step.x, step.y, step.status, step.sl, step.pb, step.cb, step.r, step.o, k)


def _parse_pins(lines: list[str]) -> list[PinChange]:
    changes: list[PinChange] = []
    for line in lines:
        parts = line.split()
        if parts[0] == "I" and len(parts) == 3:
            changes.append(PinChange(0, "R", int(parts[1], 16) & R_PINS))
            changes.append(PinChange(0, "O", int(parts[2], 16)))
        elif parts[0] == "C" and len(parts) == 4 and parts[2] in ("R", "O"):
            changes.append(PinChange(int(parts[1], 16), parts[2], int(parts[3], 16)))
        else:
            raise MameError(f"MAME pins: unexpected line {line[:60]!r}")
    if not changes or changes[0].cycle != 0:
        raise MameError("MAME pins: no initial pin values in the output")
    return changes
