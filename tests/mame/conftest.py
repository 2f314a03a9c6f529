"""Fixtures of the MAME cross-check: the oracle and the PLA texts MAME loads.

The PLA files are written by our own decode (emulator.decode / emulator.pla), padded to MAME's
exact sizes (867 / 557 bytes, docs/mame-oracle.md §3).
"""
from __future__ import annotations

import fcntl
import io
import pickle
from typing import Callable

import pytest

from emulator.darktower import write_glyph_output_pla
from emulator.decode import ident_output_pla, standard_micro_pla
from emulator.mame import MPLA_SIZE, OPLA_SIZE, MameOracle
from emulator.pla import pla_text
from tests.conftest import MAME, require_tool


@pytest.fixture(scope="session")
def oracle() -> MameOracle:
    """Return a MAME oracle (skips with an install hint when MAME is missing)."""
    return MameOracle(require_tool(MAME, "mame"), timeout=300)


@pytest.fixture(scope="session")
def mpla_text() -> str:
    """Return the TI standard micro decode as MAME's 867-byte micro PLA file text."""
    return pla_text(standard_micro_pla(), pad_to_bytes=MPLA_SIZE, term_count=30)


@pytest.fixture(scope="session")
def opla_text() -> str:
    """Return the identity output PLA (O = SL<<4 | A) as MAME's 557-byte file text."""
    return pla_text(ident_output_pla(), pad_to_bytes=OPLA_SIZE, term_count=32)


@pytest.fixture(scope="session")
def glyph_opla_text() -> str:
    """Return the Dark Tower glyph output PLA as MAME's 557-byte file text."""
    buf = io.StringIO()
    write_glyph_output_pla(buf)
    return buf.getvalue()


@pytest.fixture(scope="session")
def run_once(request, tmp_path_factory) -> Callable[[str, Callable[[], object]], object]:
    """Return ``once(name, compute)``: ``compute()``, computed by one pytest-xdist worker per run.

    The pytest-xdist recipe for once-per-run session data: the first worker computes under a
    file lock in the run's shared temp folder (the parent of the workers' base temp folders,
    new for every run) and pickles the result; the others load it. Without xdist it is just
    ``compute()``.
    """
    if not hasattr(request.config, "workerinput"):      # not an xdist worker
        return lambda name, compute: compute()
    root = tmp_path_factory.getbasetemp().parent

    def once(name: str, compute: Callable[[], object]) -> object:
        path = root / f"{name}.pickle"
        with open(root / f"{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if path.exists():
                with open(path, "rb") as f:
                    return pickle.load(f)
            value = compute()
            with open(path, "wb") as f:
                pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
            return value
    return once
