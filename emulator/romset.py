"""Load a ROM set: a raw ROM binary, a folder, or a MAME romset zip (mbdtower.zip, mdndclab.zip).

Members are identified by SHA-1 against MAME 0.251's ``-listroms`` (``docs/tms1400.md`` §12).
An image with the right size but an unknown SHA-1 is loaded with a warning (it may be a
different dump or a synthetic test image); a wrong size is refused, naming the file and the
expected size. We never ship these files: users bring their own dumps.

Example::

    rs = load_romset("mbdtower.zip")
    rs.name, rs.chip.name, rs.recognised
    # ('mbdtower', 'tms1400', ['mp7332: known-good dump', ...])
    cpu = rs.make_cpu()
"""
from __future__ import annotations

import hashlib
import io
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from emulator.chips import CHIPS, TMS1100, TMS1400, Chip, get_chip
from emulator.core import Cpu
from emulator.pla import Pla, PlaError, read_pla

__all__ = ["RomSet", "RomError", "KNOWN_SETS", "KNOWN_SHA1", "load_romset", "load_pla_file",
           "NO_MICRO_PLA", "NO_OUTPUT_PLA", "MAX_FILE_BYTES", "MAX_MEMBERS"]

# Notes a set without PLA files gets; RomSet.with_plas drops them when PLAs are given.
NO_MICRO_PLA = "warning: no micro PLA: using the TI standard decode"
NO_OUTPUT_PLA = "warning: no output PLA: O pins = SL<<4 | A"


class RomError(ValueError):
    """A ROM set that cannot be used; one line naming the file and what was expected."""


@dataclass(frozen=True)
class KnownSet:
    """One MAME machine's ROM set: its chip and member file names."""
    name: str
    chip: Chip
    rom: str
    mpla: str
    opla: str


KNOWN_SETS = {
    "mbdtower": KnownSet("mbdtower", TMS1400, "mp7332", "tms1100_common1_micro.pla",
                         "tms1400_mbdtower_output.pla"),
    "mdndclab": KnownSet("mdndclab", TMS1100, "m34012", "tms1100_common1_micro.pla",
                         "tms1100_mdndclab_output.pla"),
}

# SHA-1 of the known-good dumps (MAME 0.251 -listroms, docs/tms1400.md §12).
KNOWN_SHA1 = {
    "mp7332": "7edbff437da371390fa8f28b3d183f833eaa9be9",
    "tms1100_common1_micro.pla": "d6297f2a4bc7a870b76cc498d19dbb0ce7d69fec",
    "tms1400_mbdtower_output.pla": "72ce6d24cedf9c606f1742cd5620f75907246e87",
    "m34012": "158362c2821678a51554e02dbb2f9ef5aaf5f59f",
    "tms1100_mdndclab_output.pla": "63a2531278a665ace54c541101e052eb84413511",
}
MAX_FILE_BYTES = 1 << 20   # larger files cannot be a ROM (4 KB at most) or a PLA file
MAX_MEMBERS = 64           # a romset holds a ROM and two PLA files; MAME's largest a few dozen
_LIST_AT_MOST = 6      # file names an error lists before "and N more"
_BY_SHA1 = {sha: member for member, sha in KNOWN_SHA1.items()}
_ROM_MEMBERS = {s.rom: s for s in KNOWN_SETS.values()}


@dataclass
class RomSet:
    """A loaded ROM set: the chip, its ROM and PLAs, and what was recognised or warned about."""
    name: str | None
    chip: Chip
    rom: bytes
    mpla: Pla | None = None
    opla: Pla | None = None
    recognised: list[str] = field(default_factory=list)
    source: str = ""
    raw: bool = False               # a bare ROM image, not a zip or folder

    def summary(self) -> str:
        """Return one line saying what was loaded, e.g. ``mbdtower.zip: mbdtower set, TMS1400``
        or ``rom.bin: raw ROM image (no known set), TMS1400``."""
        if self.raw:
            what = f"raw ROM image of the {self.name} set" if self.name else \
                "raw ROM image (no known set)"
        else:
            what = f"{self.name} set" if self.name else "unknown set"
        return f"{self.source}: {what}, {self.chip.name.upper()}"

    def with_plas(self, mpla: Pla | None = None, opla: Pla | None = None,
                  opla_note: str | None = None) -> "RomSet":
        """Return this set with ``mpla``/``opla`` (when given) in place of its own, without the
        notes about PLAs it lacked; ``opla_note`` replaces the missing-output-PLA note when
        the caller supplies a default of its own (the Dark Tower glyph table)."""
        notes = list(self.recognised)
        if mpla is not None and NO_MICRO_PLA in notes:
            notes.remove(NO_MICRO_PLA)
        if opla is not None and NO_OUTPUT_PLA in notes:
            notes.remove(NO_OUTPUT_PLA)
        elif opla is None and self.opla is None and opla_note is not None:
            if NO_OUTPUT_PLA in notes:
                notes.remove(NO_OUTPUT_PLA)
            notes.append(opla_note)
        return RomSet(self.name, self.chip, self.rom,
                      self.mpla if mpla is None else mpla, self.opla if opla is None else opla,
                      notes, self.source, self.raw)

    def make_cpu(self) -> Cpu:
        """Return a reset Cpu running this set."""
        return Cpu(self.chip, self.rom, self.mpla, self.opla)


def _sha1(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def _chip_for_size(label: str, size: int) -> Chip:
    for chip in CHIPS.values():
        if chip.rom_size == size:
            return chip
    sizes = ", ".join(f"{c.rom_size} for a {c.name.upper()}" for c in CHIPS.values())
    raise RomError(f"{label} is {size} bytes (expected {sizes})")


def _check_rom_size(label: str, data: bytes, chip: Chip) -> None:
    if len(data) != chip.rom_size:
        raise RomError(f"{label} is {len(data)} bytes (expected {chip.rom_size} for a "
                       f"{chip.name.upper()})")


def _identify(member: str, data: bytes, notes: list[str],
              expected: str | None = None) -> str | None:
    """Append a note on ``data``'s SHA-1; return the known member name it matches, if any."""
    sha = _sha1(data)
    known = _BY_SHA1.get(sha)
    if known is not None:
        what = "known-good dump" if known == member else f"known-good dump of {known}"
        notes.append(f"{member}: {what}")
        return known
    hint = f" (not the known {expected} dump)" if expected else ""
    notes.append(f"warning: {member}: unknown image, SHA-1 {sha}{hint}; using it anyway")
    return None


def _parse_pla(label: str, data: bytes) -> Pla:
    try:
        return read_pla(data, label)
    except PlaError as exc:
        raise RomError(str(exc)) from None


def _read_file(path: Path, label: str) -> bytes:
    """Return the bytes of ``path`` (a file, a device or a pipe), at most ``MAX_FILE_BYTES``;
    RomError naming ``label`` when unreadable or longer (``/dev/zero`` never ends)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise RomError(f"{label}: cannot read ({exc.strerror or exc})") from None
    if len(data) > MAX_FILE_BYTES:
        raise RomError(f"{label}: more than {MAX_FILE_BYTES} bytes (expected a ROM image of "
                       f"at most 4096 bytes or a PLA file)")
    return data


def load_pla_file(path: str | Path) -> Pla:
    """Read one PLA file; RomError (one line, naming the file) when unreadable or malformed."""
    path = Path(path)
    if path.is_dir():
        raise RomError(f"{path}: is a folder (expected a PLA file)")
    return _parse_pla(str(path), _read_file(path, str(path)))


def _is_zip_data(data: bytes) -> bool:
    """Return True when ``data`` is a zip archive (local-header magic and a readable directory)."""
    return data[:4] == b"PK\x03\x04" and zipfile.is_zipfile(io.BytesIO(data))


def _too_big(label: str, member: str, size: int, verb: str) -> RomError:
    return RomError(f"{label}: member {member} {verb} {size} bytes (expected at most "
                    f"{MAX_FILE_BYTES} per member: a ROM image is at most 4096 bytes, a PLA "
                    "file a few KB)")


def _nested_zip(label: str, member: str) -> RomError:
    return RomError(f"{label}: member {member} is itself a zip (expected the ROM and PLA files "
                    "directly: unzip it, or pass it as the romset)")


def _read_members(path: Path) -> tuple[dict[str, bytes], list[tuple[str, int]]]:
    """Return the files of a folder or zip by base name, and the (name, size) of the folder
    files too large to be a ROM or PLA file, which are left unread.

    A zip is a romset and nothing else, so in a zip a member larger than
    ``MAX_FILE_BYTES``, more than ``MAX_MEMBERS`` members or a zip inside the zip are refused
    naming the member; a folder may hold other large files.
    """
    label = path.name
    members: dict[str, bytes] = {}
    big: list[tuple[str, int]] = []
    if path.is_dir():
        try:
            children = [c for c in sorted(path.iterdir())
                        if c.is_file() and not c.name.startswith(".")]
            if len(children) > MAX_MEMBERS:
                raise RomError(f"{label}: {len(children)} files (expected at most {MAX_MEMBERS}: "
                               "a romset folder holds a ROM and its PLA files)")
            for child in children:
                size = child.stat().st_size
                if size > MAX_FILE_BYTES:
                    big.append((child.name, size))
                else:
                    members[child.name] = _read_file(child, f"{label}: {child.name}")
        except OSError as exc:
            raise RomError(f"{label}: cannot read ({exc.strerror or exc})") from None
        return members, big
    try:
        with zipfile.ZipFile(path) as zf:
            # (ZipInfo.is_dir fails on an empty name)
            infos = [i for i in zf.infolist() if not i.filename.endswith("/")]
            if len(infos) > MAX_MEMBERS:
                raise RomError(f"{label}: {len(infos)} members (expected at most {MAX_MEMBERS}: "
                               "a romset zip holds a ROM and its PLA files)")
            for info in infos:
                base = info.filename.rsplit("/", 1)[-1]
                if not base:
                    raise RomError(f"{label}: a member has an empty name (expected the ROM and "
                                   "PLA file names)")
                if info.file_size > MAX_FILE_BYTES:
                    raise _too_big(label, base, info.file_size, "inflates to")
                if base in members:
                    raise RomError(f"{label}: member {base} appears twice")
                with zf.open(info) as f:        # at most the limit, whatever the header says
                    data = f.read(MAX_FILE_BYTES + 1)
                if len(data) > MAX_FILE_BYTES:
                    raise _too_big(label, base, len(data), "inflates to more than")
                if base.lower().endswith(".zip") or _is_zip_data(data):
                    raise _nested_zip(label, base)
                members[base] = data
    except zipfile.BadZipFile as exc:
        if zipfile.is_zipfile(path):        # the directory reads, a member does not
            raise RomError(f"{label}: cannot read the zip ({exc})") from None
        raise RomError(f"{label}: not a zip file (expected a MAME romset zip)") from None
    except UnicodeDecodeError:
        raise RomError(f"{label}: cannot read the zip (a member name flagged UTF-8 is not "
                       "UTF-8)") from None
    except (OSError, zlib.error, NotImplementedError, RuntimeError, EOFError) as exc:
        # a damaged member, an unsupported compression method, an encrypted member
        raise RomError(f"{label}: cannot read the zip ({exc})") from None
    return members, big


def _refuse_big_needed(label: str, big: list[tuple[str, int]], needed: set[str]) -> None:
    """Refuse the first too-large folder file that the set needs (by name, or any .pla)."""
    for name, size in big:
        if name in needed or name.lower().endswith(".pla"):
            raise _too_big(label, name, size, "is")


def _list(names: list[str]) -> str:
    shown = ", ".join(names[:_LIST_AT_MOST]) or "none"
    if len(names) > _LIST_AT_MOST:
        shown += f" and {len(names) - _LIST_AT_MOST} more"
    return shown


def load_romset(path: str | Path, chip: Chip | str | None = None) -> RomSet:
    """Load a raw ROM binary, a romset folder or a MAME romset zip.

    ``chip`` (a Chip or a name) overrides the chip a known set implies; a raw binary without
    ``chip`` gets the chip whose ROM size matches. Raises RomError for unreadable paths, wrong
    sizes, missing ROM members and malformed PLAs; unknown images only add a warning to
    ``recognised``.
    """
    path = Path(path)
    if isinstance(chip, str):
        try:
            chip = get_chip(chip)
        except ValueError as exc:
            raise RomError(str(exc)) from None
    if not path.exists():
        raise RomError(f"{path}: no such file or folder")
    if path.is_dir() or (path.is_file() and (zipfile.is_zipfile(path)
                                             or path.suffix.lower() == ".zip")):
        return _load_set(path, chip)
    return _load_raw(path, chip)            # a file, or a pipe such as /dev/stdin


def _load_raw(path: Path, chip: Chip | None) -> RomSet:
    data = _read_file(path, path.name)
    notes: list[str] = []
    chip = chip or _chip_for_size(path.name, len(data))
    _check_rom_size(path.name, data, chip)
    known = _identify(path.name, data, notes)
    name = _ROM_MEMBERS[known].name if known in _ROM_MEMBERS else None
    return RomSet(name, chip, data, None, None, notes, path.name, raw=True)


def _load_set(path: Path, chip: Chip | None) -> RomSet:
    label = path.name
    members, big = _read_members(path)
    _refuse_big_needed(label, big, {s.rom for s in KNOWN_SETS.values()})
    zips = [m for m, data in members.items() if m.lower().endswith(".zip") or _is_zip_data(data)]
    if zips and path.is_dir():
        # e.g. MAME's roms folder given instead of one set: each zip is a romset of its own
        for m in zips:
            del members[m]
        if not members:
            raise RomError(f"{label}: holds zip files ({_list(zips)}), not ROM and PLA files "
                           "(expected a romset: pass one of the zips)")
    if not members:
        if big:
            raise RomError(f"{label}: no file small enough to be a ROM or PLA file ("
                           f"{_list([f'{n} is {size} bytes' for n, size in big])}; expected at "
                           f"most {MAX_FILE_BYTES})")
        raise RomError(f"{label}: empty (expected a ROM and its PLA files)")
    notes: list[str] = []
    stem = path.stem.lower()
    known_set = KNOWN_SETS.get(stem)
    if known_set is None:
        for member in members:
            if member in _ROM_MEMBERS:
                known_set = _ROM_MEMBERS[member]
                break
    # ROM member: the set's file name, else a file whose SHA-1 is a known ROM, else the only
    # non-PLA file.
    rom_name = None
    if known_set is None:
        for member, data in members.items():
            known = _BY_SHA1.get(_sha1(data))
            if known in _ROM_MEMBERS:
                known_set, rom_name = _ROM_MEMBERS[known], member
                break
    if rom_name is None and known_set is not None:
        if known_set.rom not in members:
            raise RomError(f"{label}: missing {known_set.rom} (the {known_set.chip.name.upper()} "
                           f"ROM of {known_set.name})")
        rom_name = known_set.rom
    elif rom_name is None:
        others = [m for m in members if not m.lower().endswith(".pla")]
        if len(others) != 1:
            found = _list(others)
            raise RomError(f"{label}: cannot tell which file is the ROM (expected one non-.pla "
                           f"file or one of {', '.join(_ROM_MEMBERS)}; found {found})")
        rom_name = others[0]
    chip = chip or (known_set.chip if known_set else None)
    rom = members[rom_name]
    chip = chip or _chip_for_size(f"{label}: {rom_name}", len(rom))
    _check_rom_size(f"{label}: {rom_name}", rom, chip)
    _identify(rom_name, rom, notes, known_set.rom if known_set else None)

    mpla = opla = None
    for member in sorted(m for m in members if m.lower().endswith(".pla")):
        pla = _parse_pla(f"{label}: {member}", members[member])
        if (pla.inputs, pla.outputs) == (8, 16):
            kind, expected_terms = "mpla", chip.mpla_terms
        elif (pla.inputs, pla.outputs) == (5, 8):
            kind, expected_terms = "opla", chip.opla_terms
        else:
            raise RomError(f"{label}: {member} has {pla.inputs} inputs x {pla.outputs} outputs "
                           "(expected 8 x 16 for a micro PLA or 5 x 8 for an output PLA)")
        if (kind == "mpla" and mpla is not None) or (kind == "opla" and opla is not None):
            raise RomError(f"{label}: more than one {'micro' if kind == 'mpla' else 'output'} "
                           f"PLA ({member} is the second)")
        expected = None
        if known_set is not None:
            expected = known_set.mpla if kind == "mpla" else known_set.opla
        _identify(member, members[member], notes, expected)
        if pla.phase is not None and len(pla.terms) != expected_terms:
            notes.append(f"warning: {member}: {len(pla.terms)} terms with .phase; MAME's "
                         f"{chip.name.upper()} reads exactly {expected_terms}, so MAME would "
                         "misread its phase")
        if kind == "mpla":
            mpla = pla
        else:
            opla = pla
    if mpla is None:
        notes.append(NO_MICRO_PLA)
    if opla is None:
        notes.append(NO_OUTPUT_PLA)
    name = known_set.name if known_set else None
    return RomSet(name, chip, rom, mpla, opla, notes, label)
