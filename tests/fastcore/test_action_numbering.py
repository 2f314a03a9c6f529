"""The fixed-action numbering and the micro-op bits live once (emulator.decode); the reference
core's loop literals and the C kernel's enums are checked against them."""
from __future__ import annotations

import re
from pathlib import Path

from emulator.decode import FIXED_CODES, K_READ_CODE, MICRO_BIT
from emulator.fastcore import HIT_KINDS
from emulator.opcodes import FIXED_ACTIONS

EMULATOR = Path(__file__).resolve().parent.parent.parent / "emulator"
KERNEL = (EMULATOR / "_fastcore.c").read_text()
CORE = (EMULATOR / "core.py").read_text()


def _enum(first: str) -> list[tuple[str, str | None]]:
    """Return the (name, value text or None) entries of the C enum whose first name is
    ``first``."""
    m = re.search(r"enum\s*\{\s*(" + first + r"\b[^}]*)\}", KERNEL)
    assert m, f"no enum starting with {first} in _fastcore.c"
    entries = []
    for item in m.group(1).split(","):
        name, _, value = item.strip().partition("=")
        entries.append((name.strip(), value.strip() or None))
    return entries


def test_kernel_fixed_action_enum_is_the_fixed_codes_table():
    entries = _enum("F_NONE")
    assert entries[0] == ("F_NONE", "0")
    assert all(value is None for _, value in entries[1:])
    names = [name.removeprefix("F_") for name, _ in entries]
    assert names == ["NONE", *FIXED_ACTIONS]
    assert {name: i for i, name in enumerate([None, *FIXED_ACTIONS])} == FIXED_CODES


def test_kernel_micro_op_bits_are_the_decode_bits():
    bits = {}
    for name, value in _enum("M_STSL"):
        m = re.fullmatch(r"1 << (\d+)", value or "")
        assert m, f"{name} = {value!r}"
        bits[name.removeprefix("M_")] = 1 << int(m.group(1))
    assert bits == MICRO_BIT


def test_kernel_hit_kinds_are_the_python_hit_kinds():
    names = [name.removeprefix("H_").lower() for name, _ in _enum("H_PC")]
    assert names == list(HIT_KINDS)


def test_reference_loop_literals_name_their_fixed_actions():
    checked = set()
    for line in CORE.splitlines():
        m = re.search(r"(?:if|elif) (fx == \d+(?: or fx == \d+)*):\s+# ([A-Z0-9, ]+)", line)
        if not m:
            continue
        codes = [int(n) for n in re.findall(r"fx == (\d+)", m.group(1))]
        names = [n.strip().split()[0] for n in m.group(2).split(",") if n.strip()]
        assert len(codes) == len(names), line
        for code, name in zip(codes, names):
            assert FIXED_CODES[name] == code, line
            checked.add(name)
    # RETN is the branch after BR (1) and CALL (2) under ``fx <= 3``
    assert checked == set(FIXED_ACTIONS) - {"RETN"}
    assert FIXED_CODES["BR"] == 1 and FIXED_CODES["CALL"] == 2 and FIXED_CODES["RETN"] == 3
    assert K_READ_CODE not in FIXED_CODES.values()
