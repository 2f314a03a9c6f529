"""Read, evaluate and write programmable logic arrays in MAME's Berkeley PLA text format.

The TMS1000-family decode lives in two PLAs: the micro-instruction PLA (8 opcode inputs,
16 micro-op outputs, 30 terms) and the output PLA (5 inputs SL/A, 8 O-pin outputs, 20 terms on
the TMS1100, 32 on the TMS1400). The format and MAME's way of reading it are described in
``docs/tms1400.md`` §4.3 and ``docs/mame-oracle.md`` §3 (MAME's ``plaparse``):

- ``#`` lines are comments; keywords are ``.i N``, ``.o N``, ``.p N``, ``.phase BITS``, ``.e``;
- a term line is the input columns (``0``, ``1``, ``-``, ``~``), blanks, the output columns;
  input column k (from the left) is input bit k, output column k is output bit k;
- an output column is driven by a term only when its character is ``1``;
- ``.phase``: one digit per output, ``0`` inverts that output.

Example (a 2-input, 1-output AND)::

    .i 2
    .o 1
    .p 1
    11 1
    .e
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Iterable

__all__ = ["Pla", "PlaError", "read_pla", "write_pla", "pla_text", "terms_from_table",
           "MAME_PLA_SIZES"]

# File sizes of MAME's PLA files (docs/tms1400.md §12): micro PLA, TMS1400 and TMS1100 output PLA.
MAME_PLA_SIZES = {"micro": 867, "tms1400_output": 557, "tms1100_output": 365}

_INPUT_CHARS = "01-~"
_OUTPUT_CHARS = "01-~"


class PlaError(ValueError):
    """A PLA file that MAME's parser would reject; the message is ``name:line: message``."""


@dataclass(frozen=True)
class Pla:
    """One PLA: ``terms`` are ``(inputs, outputs)`` strings as written in the file.

    ``phase`` is the ``.phase`` string (one ``0``/``1`` per output) or None when absent.
    """
    inputs: int
    outputs: int
    terms: tuple[tuple[str, str], ...]
    phase: str | None = None

    def __post_init__(self) -> None:
        for n, (ins, outs) in enumerate(self.terms):
            if len(ins) != self.inputs or any(c not in _INPUT_CHARS for c in ins):
                raise PlaError(f"term {n}: input field {ins!r} is not {self.inputs} of 0 1 - ~")
            if len(outs) != self.outputs or any(c not in _OUTPUT_CHARS for c in outs):
                raise PlaError(f"term {n}: output field {outs!r} is not {self.outputs} of 0 1 - ~")
        if self.phase is not None and (len(self.phase) != self.outputs
                                       or any(c not in "01" for c in self.phase)):
            raise PlaError(f".phase {self.phase!r} is not {self.outputs} digits 0/1")

    @property
    def invert_mask(self) -> int:
        """Return the bit mask of outputs that ``.phase`` inverts (0 without ``.phase``)."""
        if self.phase is None:
            return 0
        return sum(1 << k for k, c in enumerate(self.phase) if c == "0")

    def compiled(self) -> list[tuple[int, int, int]]:
        """Return the terms as ``(care mask, value, output mask)``; never-matching terms dropped."""
        out = []
        for ins, outs in self.terms:
            if "~" in ins:
                continue
            care = value = 0
            for k, c in enumerate(ins):
                if c in "01":
                    care |= 1 << k
                    if c == "1":
                        value |= 1 << k
            omask = sum(1 << k for k, c in enumerate(outs) if c == "1")
            if omask:
                out.append((care, value, omask))
        return out

    def evaluate(self, x: int) -> int:
        """Return the output word for input word ``x`` (OR of matching terms, then ``.phase``)."""
        word = 0
        for care, value, omask in self.compiled():
            if x & care == value:
                word |= omask
        return word ^ self.invert_mask

    def table(self) -> list[int]:
        """Return the output word for every input value ``0 .. 2**inputs - 1``."""
        compiled = self.compiled()
        inv = self.invert_mask
        result = []
        for x in range(1 << self.inputs):
            word = 0
            for care, value, omask in compiled:
                if x & care == value:
                    word |= omask
            result.append(word ^ inv)
        return result


def read_pla(source: str | bytes | IO, name: str = "<pla>") -> Pla:
    """Parse Berkeley PLA text (a string, bytes or a text/binary file object) as MAME does.

    Raises PlaError ``name:line: message`` for anything MAME's parser rejects: unknown keywords,
    terms with the wrong number of columns, a missing ``.i``/``.o``, NUL bytes.
    """
    if hasattr(source, "read"):
        source = source.read()
    if isinstance(source, bytes):
        try:
            source = source.decode("ascii")
        except UnicodeDecodeError:
            raise PlaError(f"{name}: not a text PLA file (non-ASCII bytes)") from None
    inputs = outputs = None
    phase = None
    terms: list[tuple[str, str]] = []
    for lineno, raw in enumerate(source.splitlines(), 1):
        where = f"{name}:{lineno}"
        if "\0" in raw:
            raise PlaError(f"{where}: NUL byte (MAME counts it as a column)")
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("."):
            word, _, arg = line.partition(" ")
            arg = arg.strip()
            if word == ".e":
                break
            if word in (".i", ".o", ".p"):
                if not arg.isdigit():
                    raise PlaError(f"{where}: {word} needs a number, got {arg!r}")
                if word == ".i":
                    inputs = int(arg)
                elif word == ".o":
                    outputs = int(arg)
                continue
            if word == ".phase":
                if outputs is None:
                    raise PlaError(f"{where}: .phase before .o")
                if len(arg) != outputs or any(c not in "01" for c in arg):
                    raise PlaError(f"{where}: .phase {arg!r} is not {outputs} digits 0/1")
                phase = arg
                continue
            raise PlaError(f"{where}: unknown keyword {word!r} (MAME accepts .i .o .p .phase .e)")
        if inputs is None or outputs is None:
            raise PlaError(f"{where}: term before .i and .o")
        fields = line.split()
        if len(fields) != 2:
            raise PlaError(f"{where}: expected 'INPUTS OUTPUTS', got {line!r}")
        ins, outs = fields
        if len(ins) != inputs or any(c not in _INPUT_CHARS for c in ins):
            raise PlaError(f"{where}: input field {ins!r} is not {inputs} of 0 1 - ~")
        if len(outs) != outputs or any(c not in _OUTPUT_CHARS for c in outs):
            raise PlaError(f"{where}: output field {outs!r} is not {outputs} of 0 1 - ~")
        terms.append((ins, outs))
    if inputs is None or outputs is None:
        raise PlaError(f"{name}: no .i/.o header (not a PLA file)")
    return Pla(inputs, outputs, tuple(terms), phase)


def pla_text(pla: Pla, title: str = "", pad_to_bytes: int | None = None,
             term_count: int | None = None) -> str:
    """Return ``pla`` as MAME-loadable Berkeley text.

    ``term_count`` pads the term list with never-matching ``~`` terms to the device's fixed count
    (MAME reads the ``.phase`` fuses after exactly that many terms, docs/tms1400.md §4.3);
    ``pad_to_bytes`` pads with ``#`` comment lines to that exact file size (never NUL).
    ValueError when the PLA has more terms than ``term_count`` or does not fit ``pad_to_bytes``.
    """
    terms = list(pla.terms)
    if term_count is not None:
        if len(terms) > term_count:
            raise PlaError(f"PLA has {len(terms)} terms, more than the device's {term_count}")
        filler = ("~" * pla.inputs, "0" * pla.outputs)
        terms += [filler] * (term_count - len(terms))
    header = f"# {title}\n" if title else "#\n"
    body = [f".i {pla.inputs}\n", f".o {pla.outputs}\n", f".p {len(terms)}\n"]
    body += [f"{ins} {outs}\n" for ins, outs in terms]
    if pla.phase is not None:
        body.append(f".phase {pla.phase}\n")
    body.append(".e\n")
    text = "".join(body)
    if pad_to_bytes is None:
        return header + text
    pad = pad_to_bytes - len(header) - len(text)
    if pad < 0:
        raise PlaError(f"PLA text is {pad_to_bytes - pad} bytes, more than {pad_to_bytes}")
    if pad == 1:
        header = header[:-1] + "#\n"
        pad = 0
    lines = []
    while pad:
        size = min(pad, 72)
        if pad - size == 1:
            size -= 1
        lines.append("#" * (size - 1) + "\n")
        pad -= size
    return header + "".join(lines) + text


def write_pla(pla: Pla, fileobj: IO, pad_to_bytes: int | None = None, *,
              term_count: int | None = None, title: str = "") -> None:
    """Write ``pla`` to a text or binary file object in MAME's format (see :func:`pla_text`)."""
    text = pla_text(pla, title=title, pad_to_bytes=pad_to_bytes, term_count=term_count)
    try:
        fileobj.write(text)
    except TypeError:
        fileobj.write(text.encode("ascii"))


def terms_from_table(inputs: int, outputs: int,
                     words: Iterable[int]) -> tuple[tuple[str, str], ...]:
    """Return one term per input value whose output word is non-zero (unminimised)."""
    terms = []
    for x, word in enumerate(words):
        if word:
            ins = "".join("1" if x >> k & 1 else "0" for k in range(inputs))
            outs = "".join("1" if word >> k & 1 else "0" for k in range(outputs))
            terms.append((ins, outs))
    return tuple(terms)
