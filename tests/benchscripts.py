"""Run a script of benchmarks/ end to end in the test process: load it as a module and call
its ``main(argv)`` with its output captured (the benchmark tests; speed itself is not
asserted: CI machines vary)."""
from __future__ import annotations

import importlib.util
import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def load(name: str) -> ModuleType:
    """Return benchmarks/NAME.py loaded as a module."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(bench: ModuleType, *argv: str) -> tuple[int, str, str]:
    """Return (exit status, stdout, stderr) of ``bench.main(argv)``."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = bench.main(list(argv))
    return status, out.getvalue(), err.getvalue()
