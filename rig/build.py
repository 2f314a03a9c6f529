"""Build the button-box firmware (avr-gcc) and the simavr harness (gcc + libsimavr), cached by
source hash in ``rig/firmware/build/`` (gitignored), or ``$XDG_CACHE_HOME/towerlab`` when the
package directory is read-only.

Example::

    elf = build_firmware()          # rig/firmware/build/buttonbox-<hash>.elf
    hex_path = firmware_hex(elf)    # for avrdude
    harness = build_boxsim()
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from rig.errors import BuildError

__all__ = ["FIRMWARE_SOURCE", "BOXSIM_SOURCE", "build_dir", "build_firmware", "firmware_hex",
           "build_boxsim", "avrdude_command"]

HERE = Path(__file__).resolve().parent
FIRMWARE_SOURCE = HERE / "firmware" / "buttonbox.c"
BOXSIM_SOURCE = HERE / "sim" / "boxsim.c"
AVR_CFLAGS = ["-mmcu=atmega328p", "-DF_CPU=16000000UL", "-Os", "-Wall", "-Wextra", "-std=gnu99"]


def build_dir() -> Path:
    """Return a writable cache directory for build products."""
    d = HERE / "firmware" / "build"
    try:
        d.mkdir(parents=True, exist_ok=True)
        if os.access(d, os.W_OK):
            return d
    except OSError:
        pass
    d = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "towerlab"
    d.mkdir(parents=True, exist_ok=True)
    return d


def _tool(name: str, package: str) -> str:
    path = shutil.which(name)
    if not path:
        raise BuildError(f"{name} not found: apt-get install -y {package}")
    return path


def _digest(*parts: bytes) -> str:
    h = hashlib.sha1()
    for p in parts:
        h.update(p)
    return h.hexdigest()[:12]


def _run(cmd: list[str], what: str) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        first = (proc.stderr.strip().splitlines() or ["(no output)"])[0]
        raise BuildError(f"building {what} failed: {first}")


def _ensure_dir(d: Path) -> Path:
    """Create the build directory ``d``; raise BuildError naming it when it cannot be."""
    d = Path(d)
    if d.exists() and not d.is_dir():
        raise BuildError(f"{d}: exists and is not a directory (expected a build directory)")
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BuildError(f"{d}: cannot create the build directory "
                         f"({exc.strerror or exc})") from None
    return d


def build_firmware(out_dir: Path | None = None, defines: dict[str, int] | None = None) -> Path:
    """Compile rig/firmware/buttonbox.c for the ATmega328P at 16 MHz; return the ELF path.

    ``defines`` set the firmware's test knobs (``TIME_AT_RESET_US``: the device time at reset,
    to reach its wrap in seconds rather than 71.6 min); a flashed box is built without them.
    """
    src = FIRMWARE_SOURCE.read_bytes()
    d = _ensure_dir(out_dir) if out_dir is not None else build_dir()
    flags = AVR_CFLAGS + [f"-D{k}={int(v)}UL" for k, v in sorted((defines or {}).items())]
    elf = d / f"buttonbox-{_digest(src, ' '.join(flags).encode())}.elf"
    if not elf.exists():
        gcc = _tool("avr-gcc", "gcc-avr avr-libc")
        tmp = elf.with_suffix(f".{os.getpid()}.tmp")     # parallel test workers build too
        _run([gcc, *flags, "-o", str(tmp), str(FIRMWARE_SOURCE)], "the button-box firmware")
        os.replace(tmp, elf)
    return elf


def firmware_hex(elf: Path) -> Path:
    """Convert the firmware ELF to Intel hex (what avrdude flashes); return its path."""
    out = elf.with_suffix(".hex")
    if not out.exists():
        objcopy = _tool("avr-objcopy", "binutils-avr")
        _run([objcopy, "-O", "ihex", "-R", ".eeprom", str(elf), str(out)], "the firmware hex")
    return out


def avrdude_command(hex_path: Path, port: str, board: str = "uno") -> list[str]:
    """Return the avrdude command that flashes ``hex_path`` to an Uno (115200) or Nano (57600)."""
    baud = {"uno": "115200", "nano": "57600", "nano-new": "115200"}.get(board)
    if baud is None:
        raise BuildError(f"unknown board {board!r} (expected uno, nano or nano-new)")
    return ["avrdude", "-p", "m328p", "-c", "arduino", "-P", port, "-b", baud,
            "-U", f"flash:w:{hex_path}:i"]


def build_boxsim(out_dir: Path | None = None) -> Path:
    """Compile the simavr harness rig/sim/boxsim.c against libsimavr; return the binary path."""
    src = BOXSIM_SOURCE.read_bytes()
    d = out_dir or build_dir()
    exe = d / f"boxsim-{_digest(src)}"
    if not exe.exists():
        gcc = _tool("gcc", "gcc")
        inc = Path("/usr/include/simavr")
        if not (inc / "sim_avr.h").exists():
            raise BuildError("simavr headers not found in /usr/include/simavr: "
                             "apt-get install -y libsimavr-dev")
        libelf = _find_libelf()
        tmp = exe.with_name(f"{exe.name}.{os.getpid()}.tmp")
        _run([gcc, "-O2", "-Wall", f"-I{inc}", "-o", str(tmp), str(BOXSIM_SOURCE),
              "-lsimavr", libelf], "the simavr harness")
        os.replace(tmp, exe)
    return exe


def _find_libelf() -> str:
    """Return a linker argument for libelf (Debian ships only libelf.so.1 without -dev)."""
    for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"):
        for name in ("libelf.so", "libelf.so.1"):
            if os.path.exists(os.path.join(d, name)):
                return os.path.join(d, name)
    raise BuildError("libelf not found: apt-get install -y libelf1")
