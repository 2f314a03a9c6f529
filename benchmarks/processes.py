"""What the whole-process benchmarks share: a child's environment with a scratch bytecode
cache, and the wall and CPU time of one child run (benchmarks/tower_speed.py,
benchmarks/trace_speed.py)."""
from __future__ import annotations

import os
import resource
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cached_env(cache: str) -> dict:
    """Return this process's environment for a child that byte-compiles the sources into the
    scratch folder ``cache`` (as an installed package has them) and imports them from ROOT."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = cache
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _children_cpu() -> float:
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def time_process(cmd: list[str], env: dict | None, cwd=ROOT) -> tuple[float, float]:
    """Return (wall seconds, CPU seconds user + system) of one run of ``cmd``, launch to exit
    (the CPU of every process it started and waited for); raise RuntimeError naming the
    command and its exit status on failure."""
    c0 = _children_cpu()
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:4])} ...: exit status {proc.returncode}: "
                           f"{proc.stderr.strip()[-300:]}")
    return wall, _children_cpu() - c0
