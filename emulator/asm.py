"""Assemble TMS1000-family source (MAME 0.251 mnemonics) into a ROM image placed in LFSR order.

The mnemonics, operand forms and encodings come from the one opcode table
(:mod:`emulator.opcodes`, MAME 0.251's TMS1100/TMS1400 disassembler); this module holds no list
of its own. Placement follows ``docs/tms1400.md`` §2: ROM offset = chapter*1024 + page*64 + pc
with pc the raw 6-bit LFSR program counter, and consecutive instructions of a page sit at
successive LFSR values (00 01 03 07 0F 1F 3F 3E ... 10 20, then back to 00 in the same page).

Syntax (one statement per line; ``;`` starts a comment; mnemonics and directives are
case-insensitive, labels and names are case-sensitive)::

    ; blink: toggle R10 forever (TMS1400)
            .chip   tms1400
            .equ    SPEAKER, 10
            .opla   0, $00           ; output PLA entry: index (SL<<4 | A) -> O pins
            .chapter 0
            .page   15               ; reset starts at 0:F:00
    start:  TCY     SPEAKER
    loop:   SETR
            RSTR
            LBR     far              ; LDP/TPC as needed, then BRANCH
            .page   3, $3E           ; place from page 3, pc $3E
    far:    LDP     page(loop)
            BR      loop             ; BR is an alias of BRANCH

Statements:

- ``label:`` defines a label (a label may stand alone or precede a statement). Its value is the
  ``(chapter, page, pc)`` where the next byte is placed.
- An instruction is a MAME mnemonic (``TCY 4``, ``LDX 2``, ``SBIT 1``, ``LDP 5``, ``A3ACC``,
  ``TBIT 2``, ``BRANCH $3E``, ``CALL label``); aliases: ``BR`` = ``BRANCH``, ``TBIT1`` =
  ``TBIT`` (TI's name). Constant, X and bit operands are the values MAME prints; the
  assembler bit-reverses them into the opcode.
- ``BRANCH``/``CALL`` take a raw 6-bit pc (``$3E``, never checked) or a label. For a label the
  assembler checks that the label lies in the page (and chapter) the page buffer PB (and
  chapter buffer CB) hold at that point, as tracked below, and reports "branch target in
  another page" otherwise. ``pc(label)`` is the label's raw pc without that check, for the
  cases the tracking cannot see (a TMS1100 branch inside a subroutine stays in the current
  page whatever PB holds, docs/tms1400.md §7.1).
- ``LBR label`` / ``LCALL label`` (long branch / long call) emit what the tracked buffers need,
  so their size varies from 1 to 4 bytes: on the TMS1400 ``LDP c; TPC`` when the chapter
  differs (docs/tms1400.md §7.2), on the TMS1100 ``COMC`` when it differs (§7.1), then ``LDP p``
  when the page differs, then ``BRANCH``/``CALL``. Because LDP/TPC/COMC set STATUS to 1, an
  expanded LBR/LCALL is unconditional; the assembler rejects one that follows an instruction
  whose standard decode tests (C8 or NE), since the condition would be lost. For a
  conditional far branch write ``LDP p`` before the test and a plain ``BRANCH`` after it.
- Expressions: decimal, ``$3E``/``0x3E`` hex, ``%1010``/``0b1010`` binary, ``.equ`` names,
  ``page(label)``, ``chapter(label)``, joined with ``+`` and ``-``.

Directives:

- ``.chip NAME`` names the chip (must match the chip assembled for, if one is given).
- ``.chapter n`` continues placement at chapter n, page 0, pc 00.
- ``.page n`` / ``.page n, pc`` continues at page n of the current chapter, at pc 00 or at the
  given raw pc; ``.org pc`` continues at raw pc in the current page.
- ``.byte v[, v ...]`` places raw bytes; ``.fill v`` sets the byte for unused ROM (default
  ``$00``, MNEA, which changes nothing but STATUS).
- ``.opla index, obyte`` sets output-PLA entry ``index`` (0-31, SL<<4 | A) to O pins ``obyte``
  (collected in :attr:`Program.opla`).
- ``.equ NAME, value`` (or ``.equ NAME value``) defines a constant.

Placement starts at the reset address 0:F:00 (docs/tms1400.md §11). Within a page, instructions
follow the LFSR order and wrap from pc 20 to pc 00 like the chip does; a 65th byte in one run
is "page overflow" and a byte placed twice is an error.

Page-buffer tracking (what the label check and LBR/LCALL assume): at every label and placement
directive PB = the current page and CB = the current chapter (the code is assumed to be
entered with the buffers in sync). ``LDP n`` sets PB = n; TMS1400 ``TPC`` sets CB = PB & 3;
TMS1100 ``COMC`` toggles CB. After a ``CALL`` PB = the current page (the TMS1400 RETN pops it,
a not-taken CALL resyncs it; the TMS1100 CALL saves the caller's page in PB) and, on the
TMS1400, CB = the current chapter; on the TMS1100 CB keeps its value (CALL/RETN do not touch
it; the callee is assumed to leave it alone). A not-taken ``BRANCH`` leaves the buffers as
they were. TMS1100 subroutines: a CALL or LCALL inside a subroutine stays in the current page
(docs/tms1400.md §7.1), so LCALL assumes it is executed from the main level (call latch clear); a
TMS1400 LCALL assumes fewer than 3 return addresses are pending (a 4th drops the oldest).

Listing (:attr:`Program.listing`): one line per placed byte, ``c:p:pc  offset  opcode  source``
(e.g. ``0:F:00  3C0  45  start:  TCY     SPEAKER``; offset and opcode in hex); the further
bytes of an LBR/LCALL read ``+ LDP 3``; lines that place nothing keep their source text only.

Errors are :class:`AsmError` with the message ``file:line: message``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from emulator.chips import TMS1400, Chip, get_chip
from emulator.core import lfsr_order
from emulator.opcodes import Op, decode, encode, format_operand, mnemonics

__all__ = ["AsmError", "Program", "PageBuffers", "assemble", "assemble_file",
           "PC_ORDER", "rom_offset", "format_address", "ALIASES", "MAX_SOURCE_BYTES"]

ALIASES = {"BR": "BRANCH", "TBIT1": "TBIT"}
_PSEUDO = {"LBR": "BRANCH", "LCALL": "CALL"}
_DIRECTIVES = (".CHIP", ".CHAPTER", ".PAGE", ".ORG", ".BYTE", ".FILL", ".OPLA", ".EQU")
_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_LABEL_RE = re.compile(rf"\s*({_NAME})\s*:")
_PC_RE = re.compile(rf"pc\(\s*({_NAME})\s*\)$", re.IGNORECASE)
_FUNC_RE = re.compile(rf"(page|chapter)\(\s*({_NAME})\s*\)$", re.IGNORECASE)
MAX_SOURCE_BYTES = 16 << 20   # a 4 KB ROM's source is far smaller
_RESET = (0, 15, 0)  # chapter, page, pc of the first fetch after reset (docs/tms1400.md §11)


PC_ORDER: tuple[int, ...] = tuple(lfsr_order())  # the 64 raw pc values in execution order
_PC_INDEX = {pc: i for i, pc in enumerate(PC_ORDER)}


def rom_offset(chapter: int, page: int, pc: int) -> int:
    """Return the ROM byte offset of ``chapter:page:pc`` (docs/tms1400.md §2: no unscrambling)."""
    return chapter << 10 | page << 6 | pc


def format_address(chapter: int, page: int, pc: int) -> str:
    """Format an address as MAME's debugger does: ``chapter:page:pc`` (e.g. ``0:F:3E``)."""
    return f"{chapter}:{page:X}:{pc:02X}"


class AsmError(ValueError):
    """Bad assembler input; the message is ``file:line: what is wrong``."""


@dataclass(frozen=True)
class Program:
    """An assembled ROM image with its symbols, listing and output-PLA entries."""
    chip: Chip
    rom: bytes
    symbols: dict = field(default_factory=dict)   # label -> (chapter, page, pc)
    listing: str = ""                             # "c:p:pc  offset  opcode  source" lines
    opla: dict | None = None                      # output-PLA index (0-31) -> O pins byte

    def opla_table(self, default: int = 0) -> list[int]:
        """Return the 32 output-PLA entries (index SL<<4 | A -> O pins), ``default`` if unset."""
        table = [default] * 32
        for index, obyte in (self.opla or {}).items():
            table[index] = obyte
        return table


@dataclass
class _Stmt:
    line: int
    labels: list
    op: str | None          # upper-cased mnemonic or directive, None for a label-only line
    args: list
    text: str


class PageBuffers:
    """Track the page buffer PB and chapter buffer CB along straight-line code.

    This is the assumption behind the label check of BRANCH/CALL and the expansion of
    LBR/LCALL (see the module docstring); the disassembler replays it to choose labels.
    """

    def __init__(self, chip: Chip) -> None:
        self.chip = chip
        self.chapter = self.page = self.cb = self.pb = 0

    def sync(self, chapter: int, page: int) -> None:
        """Assume the buffers equal the current chapter and page (entry, label, directive)."""
        self.chapter, self.page = chapter, page
        self.cb, self.pb = chapter, page

    def apply(self, byte: int) -> None:
        """Update the buffers for one executed-in-sequence opcode (docs/tms1400.md §7)."""
        op, value = decode(self.chip, byte)
        if op.fixed == "LDP":
            self.pb = value
        elif op.fixed == "TPC":
            self.cb = self.pb & self.chip.chapter_mask
        elif op.fixed == "COMC":
            self.cb ^= 1
        elif op.fixed == "CALL":
            self.pb = self.page
            if self.chip.stack_depth > 1:
                self.cb = self.chapter


def _split_args(text: str) -> list[str]:
    text = text.strip()
    if not text:
        return []
    return [a.strip() for a in text.split(",")]


def _parse(source: str, filename: str) -> list[_Stmt]:
    stmts = []
    for lineno, raw in enumerate(source.splitlines(), 1):
        body = raw.split(";", 1)[0]
        labels = []
        while True:
            m = _LABEL_RE.match(body)
            if not m:
                break
            labels.append(m.group(1))
            body = body[m.end():]
        body = body.strip()
        if not body and not labels:
            continue
        op, args = None, []
        if body:
            parts = body.split(None, 1)
            op = parts[0].upper()
            if not re.fullmatch(r"\.?[A-Z0-9_]+", op):
                raise AsmError(f"{filename}:{lineno}: cannot read {parts[0]!r} "
                               f"(expected a mnemonic, a directive or 'label:')")
            if op == ".EQU" and len(parts) > 1:
                # ".equ NAME value" and ".equ NAME, value"
                m = re.match(rf"\s*({_NAME})\s*(?:,|\s)\s*(.+)$", parts[1])
                if not m:
                    raise AsmError(f"{filename}:{lineno}: .equ expects NAME, value")
                args = [m.group(1), m.group(2).strip()]
            else:
                args = _split_args(parts[1]) if len(parts) > 1 else []
                if any(a == "" for a in args):
                    raise AsmError(f"{filename}:{lineno}: empty operand in {body!r}")
        stmts.append(_Stmt(lineno, labels, op, args, raw.expandtabs(8).rstrip()))
    return stmts


class _Assembler:
    def __init__(self, source: str, chip: Chip | None, filename: str) -> None:
        self.filename = filename
        self.stmts = _parse(source, filename)
        self.chip = self._choose_chip(chip)
        self.equs: dict[str, tuple[str, int]] = {}
        self.equ_values: dict[str, int] = {}
        self.labels: dict[str, tuple[int, int, int | None]] = {}
        self.label_lines: dict[str, int] = {}
        self.fill = 0x00
        self.fill_line: int | None = None

    # -- errors, numbers ------------------------------------------------------------------
    def err(self, line: int, message: str) -> AsmError:
        return AsmError(f"{self.filename}:{line}: {message}")

    def _choose_chip(self, chip: Chip | None) -> Chip:
        named = None
        for st in self.stmts:
            if st.op == ".CHIP":
                if len(st.args) != 1:
                    raise self.err(st.line, ".chip expects one chip name")
                try:
                    this = get_chip(st.args[0])
                except ValueError as exc:
                    raise self.err(st.line, str(exc)) from None
                if named is not None and this != named:
                    raise self.err(st.line, f".chip {this.name} contradicts .chip {named.name}")
                if chip is not None and this != chip:
                    raise self.err(st.line, f"source is for {this.name} but assembling for "
                                            f"{chip.name}")
                named = this
        return chip or named or TMS1400

    def value(self, text: str, line: int, labels_ok: bool = True,
              stack: tuple = ()) -> int:
        """Evaluate an expression: numbers, .equ names, page()/chapter() of labels, + and -."""
        if re.search(r"[^\s+\-(]\s+[^\s+\-)]", text.strip()):
            raise self.err(line, f"cannot read the value {text.strip()!r} (expected one value; "
                                 f"operands are separated by commas)")
        expr = text.replace(" ", "").replace("\t", "")
        if not expr:
            raise self.err(line, "missing value")
        terms = re.findall(r"[+-]?[^+-]+", expr)
        if "".join(terms) != expr:
            raise self.err(line, f"cannot read the value {text!r}")
        total = 0
        for term in terms:
            sign = -1 if term[0] == "-" else 1
            term = term.lstrip("+-")
            total += sign * self._term(term, text, line, labels_ok, stack)
        return total

    def _term(self, term: str, text: str, line: int, labels_ok: bool, stack: tuple) -> int:
        try:
            if term.startswith("$"):
                return int(term[1:], 16)
            if term.lower().startswith("0x"):
                return int(term[2:], 16)
            if term.startswith("%"):
                return int(term[1:], 2)
            if term.lower().startswith("0b"):
                return int(term[2:], 2)
            if term[0].isdigit():
                return int(term, 10)
        except ValueError:
            raise self.err(line, f"cannot read the number {term!r} in {text!r}") from None
        if _PC_RE.match(term):
            raise self.err(line, f"{term} is only allowed as a BRANCH/CALL operand")
        m = _FUNC_RE.match(term)
        if m:
            func, name = m.group(1).lower(), m.group(2)
            if not labels_ok:
                raise self.err(line, f"{term} cannot be used here (placement must not "
                                     f"depend on labels)")
            if name not in self.labels:
                raise self.err(line, f"undefined label {name!r}")
            chapter, page, _ = self.labels[name]
            return page if func == "page" else chapter
        if re.fullmatch(_NAME, term):
            if term in self.equ_values:
                return self.equ_values[term]
            if term in self.equs:
                if term in stack:
                    raise self.err(line, f".equ {term} refers to itself")
                expr, eline = self.equs[term]
                val = self.value(expr, eline, labels_ok, stack + (term,))
                if labels_ok or "(" not in expr:
                    self.equ_values[term] = val
                return val
            if term in self.labels:
                raise self.err(line, f"label {term!r} used as a number "
                                     f"(use page({term}) or chapter({term}))")
            raise self.err(line, f"undefined name {term!r}")
        raise self.err(line, f"cannot read the value {text!r}")

    def ranged(self, text: str, line: int, low: int, high: int, what: str,
               labels_ok: bool = True, why: str = "") -> int:
        val = self.value(text, line, labels_ok)
        if not low <= val <= high:
            raise self.err(line, f"{what} {val} out of range {low}-{high}{why}")
        return val

    # -- pass 1: names, and the chapter/page every label lies in --------------------------
    def collect(self) -> None:
        for st in self.stmts:
            if st.op == ".EQU":
                if len(st.args) != 2:
                    raise self.err(st.line, ".equ expects NAME, value")
                name = st.args[0]
                if name in self.equs:
                    raise self.err(st.line, f"duplicate name {name!r} "
                                            f"(first defined on line {self.equs[name][1]})")
                self.equs[name] = (st.args[1], st.line)
        chapter, page, _ = _RESET
        for st in self.stmts:
            # a directive applies before the labels of its line, as in pass 2
            if st.op == ".CHAPTER":
                chapter, page = self.chapter_arg(st), 0
            elif st.op == ".PAGE":
                page = self.page_args(st)[0]
            for name in st.labels:
                if name in self.labels or name in self.equs:
                    first = self.label_lines.get(name) or self.equs[name][1]
                    raise self.err(st.line, f"duplicate label {name!r} "
                                            f"(first defined on line {first})")
                self.labels[name] = (chapter, page, None)
                self.label_lines[name] = st.line

    def chapter_arg(self, st: _Stmt) -> int:
        if len(st.args) != 1:
            raise self.err(st.line, ".chapter expects one chapter number")
        return self.ranged(st.args[0], st.line, 0, self.chip.chapters - 1, "chapter",
                           labels_ok=False, why=f" (a {self.chip.name} has "
                                                f"{self.chip.chapters} chapters)")

    def page_args(self, st: _Stmt) -> tuple[int, int]:
        if len(st.args) not in (1, 2):
            raise self.err(st.line, ".page expects a page number and optionally a pc")
        page = self.ranged(st.args[0], st.line, 0, 15, "page", labels_ok=False)
        pc = 0
        if len(st.args) == 2:
            pc = self.ranged(st.args[1], st.line, 0, 0x3F, "pc", labels_ok=False)
        return page, pc

    # -- pass 2: place bytes --------------------------------------------------------------
    def place_all(self) -> None:
        chip = self.chip
        self.owner: dict[int, int] = {}        # offset -> source line
        self.bytes: dict[int, int] = {}        # offset -> byte (branch targets patched later)
        self.fixups: list = []                 # (offset, line, op, label)
        self.out_lines: list = []              # (stmt, [(offset, note), ...])
        self.opla: dict[int, int] = {}
        opla_lines: dict[int, int] = {}
        chapter, page, pc = _RESET
        self.index = _PC_INDEX[pc]
        self.run_start, self.run_count = 1, 0  # line that started this run of bytes, count
        self.cursor = [chapter, page]
        buffers = PageBuffers(chip)
        buffers.sync(chapter, page)
        prev: Op | None = None

        for st in self.stmts:
            emitted: list = []
            if st.op in (".CHAPTER", ".PAGE", ".ORG"):
                if st.op == ".CHAPTER":
                    self.cursor = [self.chapter_arg(st), 0]
                    pc = 0
                elif st.op == ".PAGE":
                    self.cursor[1], pc = self.page_args(st)
                else:
                    if len(st.args) != 1:
                        raise self.err(st.line, ".org expects one raw pc value")
                    pc = self.ranged(st.args[0], st.line, 0, 0x3F, "pc", labels_ok=False)
                self.index = _PC_INDEX[pc]
                self.run_start, self.run_count = st.line, 0
                buffers.sync(*self.cursor)
                prev = None
            for name in st.labels:
                c, p = self.cursor
                self.labels[name] = (c, p, PC_ORDER[self.index])
                buffers.sync(c, p)
            op = st.op
            if op is None or op in (".CHAPTER", ".PAGE", ".ORG", ".EQU", ".CHIP"):
                self.out_lines.append((st, emitted))
                continue
            if op == ".BYTE":
                if not st.args:
                    raise self.err(st.line, ".byte expects at least one value")
                for arg in st.args:
                    byte = self.ranged(arg, st.line, 0, 255, "byte")
                    emitted.append(self.put(st, byte, ""))
                    buffers.apply(byte)
                    prev = decode(chip, byte)[0]
            elif op == ".FILL":
                if len(st.args) != 1:
                    raise self.err(st.line, ".fill expects one byte value")
                if self.fill_line is not None:
                    raise self.err(st.line, f".fill already set on line {self.fill_line}")
                self.fill = self.ranged(st.args[0], st.line, 0, 255, "fill byte")
                self.fill_line = st.line
            elif op == ".OPLA":
                if len(st.args) != 2:
                    raise self.err(st.line, ".opla expects index, obyte")
                index = self.ranged(st.args[0], st.line, 0, 31, "output-PLA index (SL<<4 | A)")
                obyte = self.ranged(st.args[1], st.line, 0, 255, "output-PLA O byte")
                if index in self.opla:
                    raise self.err(st.line, f"output-PLA index {index} already set on line "
                                            f"{opla_lines[index]}")
                self.opla[index], opla_lines[index] = obyte, st.line
            elif op.startswith("."):
                raise self.err(st.line, f"unknown directive {st.op.lower()!r} (expected one of "
                                        f"{', '.join(d.lower() for d in _DIRECTIVES)})")
            elif op in _PSEUDO:
                prev = self.long_form(st, emitted, buffers, prev)
            else:
                prev = self.instruction(st, emitted, buffers)
            self.out_lines.append((st, emitted))

    def lookup(self, st: _Stmt, name: str) -> Op:
        ops = mnemonics(self.chip)
        op = ops.get(ALIASES.get(name, name))
        if op is None:
            raise self.err(st.line, f"unknown mnemonic {name!r} for {self.chip.name}")
        return op

    def put(self, st: _Stmt, byte: int, note: str) -> tuple:
        chapter, page = self.cursor
        if self.run_count >= 64:
            raise self.err(st.line, f"page overflow: more than 64 bytes in page "
                                    f"{chapter}:{page:X} since line {self.run_start}")
        pc = PC_ORDER[self.index]
        offset = rom_offset(chapter, page, pc)
        if offset in self.owner:
            raise self.err(st.line, f"{format_address(chapter, page, pc)} already holds the "
                                    f"byte from line {self.owner[offset]}")
        self.owner[offset] = st.line
        self.bytes[offset] = byte
        self.index = (self.index + 1) % 64
        self.run_count += 1
        return (offset, note)

    def target(self, st: _Stmt, op: Op, arg: str, buffers: PageBuffers, emitted: list) -> int:
        """Place a BRANCH/CALL: raw pc operand, or label checked against the tracked PB/CB."""
        if re.fullmatch(_NAME, arg) and arg in self.labels:
            chapter, page, _ = self.labels[arg]
            if (chapter, page) != (buffers.cb, buffers.pb):
                here = f"{buffers.cb}:{buffers.pb:X}" if self.chip.chapters > 1 else \
                    f"{buffers.pb:X}"
                there = f"{chapter}:{page:X}" if self.chip.chapters > 1 else f"{page:X}"
                long = "LBR" if op.mnemonic == "BRANCH" else "LCALL"
                raise self.err(st.line, f"branch target {arg!r} is in page {there} but the "
                                        f"page buffer holds {here} here (use {long}, or "
                                        f"LDP first)")
            placed = self.put(st, op.opcode, "")
            self.fixups.append((placed[0], st.line, op, arg))
            emitted.append(placed)
            return op.opcode
        m = _PC_RE.match(arg)
        if m:
            if m.group(1) not in self.labels:
                raise self.err(st.line, f"undefined label {m.group(1)!r}")
            placed = self.put(st, op.opcode, "")
            self.fixups.append((placed[0], st.line, op, m.group(1)))
            emitted.append(placed)
            return op.opcode
        if re.fullmatch(_NAME, arg) and arg not in self.equs:
            raise self.err(st.line, f"undefined label {arg!r}")
        pc = self.ranged(arg, st.line, 0, 0x3F, f"{op.mnemonic} target pc")
        byte = encode(op, pc)
        emitted.append(self.put(st, byte, ""))
        return byte

    def instruction(self, st: _Stmt, emitted: list, buffers: PageBuffers) -> Op:
        op = self.lookup(st, st.op)
        if op.operand:
            if len(st.args) != 1:
                raise self.err(st.line, f"{op.mnemonic} expects one operand")
            if op.operand == "a6":
                byte = self.target(st, op, st.args[0], buffers, emitted)
            else:
                limit = {"c4": 15, "x3": 7, "x2": 3, "b2": 3}[op.operand]
                what = {"c4": "constant", "x3": "RAM file", "x2": "RAM file",
                        "b2": "bit number"}[op.operand]
                val = self.ranged(st.args[0], st.line, 0, limit, f"{op.mnemonic} {what}")
                byte = encode(op, val)
                emitted.append(self.put(st, byte, ""))
        else:
            if st.args:
                raise self.err(st.line, f"{op.mnemonic} takes no operand")
            byte = op.opcode
            emitted.append(self.put(st, byte, ""))
        buffers.apply(byte)
        return op

    def long_form(self, st: _Stmt, emitted: list, buffers: PageBuffers, prev: Op | None) -> Op:
        chip = self.chip
        final = self.lookup(st, _PSEUDO[st.op])
        if len(st.args) != 1 or not re.fullmatch(_NAME, st.args[0]):
            raise self.err(st.line, f"{st.op} expects one label")
        name = st.args[0]
        if name not in self.labels:
            raise self.err(st.line, f"undefined label {name!r}")
        chapter, page, _ = self.labels[name]
        ldp = mnemonics(chip)["LDP"]
        seq: list[tuple[int, str]] = []
        if chapter != buffers.cb:
            if chip.op_0b == "TPC":
                seq += [(encode(ldp, chapter), f"LDP {chapter}"), (0x0B, "TPC")]
            elif chip.op_0b == "COMC":
                seq.append((0x0B, "COMC"))
        pb = chapter if seq and chip.op_0b == "TPC" else buffers.pb
        if page != pb:
            seq.append((encode(ldp, page), f"LDP {page}"))
        if seq and prev is not None and ({"C8", "NE"} & prev.micro):
            raise self.err(st.line, f"{st.op} {name} expands to {seq[0][1]}... which sets "
                                    f"STATUS, losing the test of the {prev.mnemonic} before "
                                    f"it (put LDP before the test and use BRANCH/CALL)")
        for byte, note in seq:
            emitted.append(self.put(st, byte, note))
            buffers.apply(byte)
        placed = self.put(st, final.opcode, f"{final.mnemonic} {name}")
        self.fixups.append((placed[0], st.line, final, name))
        emitted.append(placed)
        buffers.apply(final.opcode)
        return final

    # -- pass 3: branch targets, image, listing -------------------------------------------
    def finish(self) -> Program:
        for name, (expr, line) in self.equs.items():   # an unused .equ must still be good
            self.value(expr, line, labels_ok=True, stack=(name,))
        for offset, line, op, name in self.fixups:
            self.bytes[offset] = encode(op, self.labels[name][2])
        size = self.chip.rom_size
        rom = bytearray([self.fill]) * size
        for offset, byte in self.bytes.items():
            rom[offset] = byte
        symbols = {name: value for name, value in self.labels.items() if value[2] is not None}
        unplaced = [n for n, v in self.labels.items() if v[2] is None]
        if unplaced:  # cannot happen: pass 2 visits every label
            raise AssertionError(f"labels without a pc: {unplaced}")
        return Program(chip=self.chip, rom=bytes(rom), symbols=symbols,
                       listing=self.listing(rom), opla=dict(self.opla) or None)

    def listing(self, rom: bytearray) -> str:
        lines = []
        for st, emitted in self.out_lines:
            if not emitted:
                lines.append(f"{'':17}{st.text}".rstrip())
                continue
            for i, (offset, note) in enumerate(emitted):
                chapter, page, pc = offset >> 10, offset >> 6 & 15, offset & 0x3F
                byte = rom[offset]
                if i == 0:
                    text = st.text
                else:
                    op, val = decode(self.chip, byte)
                    text = f"  + {op.mnemonic} {format_operand(op, val)}".rstrip()
                lines.append(f"{format_address(chapter, page, pc)}  {offset:03X}  {byte:02X}  "
                             f"{text}".rstrip())
        return "\n".join(lines) + "\n"


def assemble(source: str, chip: Chip | None = None, filename: str = "<asm>") -> Program:
    """Assemble ``source`` into a ROM image of ``chip.rom_size`` bytes.

    ``chip`` None takes the chip from the ``.chip`` directive, else the TMS1400. Raises
    :class:`AsmError` (``file:line: message``) on the first error; nothing is returned then.
    """
    asm = _Assembler(source, chip, filename)
    asm.collect()
    asm.place_all()
    return asm.finish()


def assemble_file(path: str | Path, chip: Chip | None = None) -> Program:
    """Read and assemble the source file at ``path`` (UTF-8); see :func:`assemble`."""
    path = Path(path)
    if path.is_dir():
        raise AsmError(f"{path}: is a folder (expected an assembler source file)")
    try:
        with open(path, "rb") as f:          # bounded: /dev/zero would never end
            data = f.read(MAX_SOURCE_BYTES + 1)
    except OSError as exc:
        raise AsmError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_SOURCE_BYTES:
        raise AsmError(f"{path}: more than {MAX_SOURCE_BYTES} bytes (expected assembler "
                       f"source)")
    try:
        source = data.decode("utf-8-sig")    # a Windows editor's byte-order mark is fine
    except UnicodeDecodeError as exc:
        raise AsmError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return assemble(source, chip, str(path))
