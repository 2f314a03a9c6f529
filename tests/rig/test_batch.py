"""The batch behind `towerlab run --script ... --jobs N` and `towerlab explore` (rig/batch.py):
local processes or a Dask cluster, a worker lost mid-batch costs only its job, which runs
again, and the output is byte for byte the local run's."""
from __future__ import annotations

import io
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from rig.batch import BatchError, _run_processes, emulator_script_job, run_jobs, start_order
from rig.explore import explore
from rig.specs import TargetSpec
from towerlab.cli import main

ROOT = Path(__file__).resolve().parent.parent.parent
CAPTURES = ROOT / "tests" / "data" / "captures"
SCRIPTS = [CAPTURES / n / "script.txt" for n in ("tower_test", "level_select")]
DEMO = {"firmware": "demo", "rom": None, "romset": None, "mpla": None, "opla": None,
        "board": "darktower", "clock_hz": None, "core": "fast"}
DEADLINE_S = 300.0        # a worker that never starts its job fails the test loudly


class KillAtStart:
    """A worker-start hook: the first worker to start job ``key`` writes its pid to
    ``folder/pid`` and blocks until the test kills its process; the retry runs the job."""

    def __init__(self, key: str, folder: Path):
        self.key, self.folder = key, str(folder)

    def __call__(self, key: str) -> None:
        if key != self.key:
            return
        try:
            fd = os.open(os.path.join(self.folder, "claim"), os.O_CREAT | os.O_EXCL)
        except FileExistsError:
            return                                  # the retry: run the job
        os.close(fd)
        tmp = os.path.join(self.folder, "pid.tmp")
        with open(tmp, "w") as f:
            f.write(str(os.getpid()))
        os.replace(tmp, os.path.join(self.folder, "pid"))
        threading.Event().wait()                    # until killed


class Killer(threading.Thread):
    """Wait (with a deadline) for the hook's pid file, then SIGKILL that process."""

    def __init__(self, folder: Path):
        super().__init__(daemon=True)
        self.folder, self.killed, self.error = folder, None, None

    def run(self) -> None:
        end = time.monotonic() + DEADLINE_S
        pid_file = self.folder / "pid"
        while not pid_file.exists():
            if time.monotonic() > end:
                self.error = f"no worker started the watched job within {DEADLINE_S:g} s"
                return
            time.sleep(0.02)
        self.killed = int(pid_file.read_text())
        os.kill(self.killed, signal.SIGKILL)

    def check(self) -> None:
        self.join(DEADLINE_S)
        assert self.error is None, self.error
        assert self.killed is not None and self.killed != os.getpid()


def _script_jobs():
    return [(DEMO, p.read_text(), str(p), 16.0) for p in SCRIPTS]


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed", reason="dask.distributed is pinned in "
                                      "setup.cfg: pip install -e .")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, worker_dashboard_address=None,
                                  silence_logs=50) as c:
        yield c


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def test_local_processes_give_the_results_of_one_process_in_job_order():
    assert run_jobs(emulator_script_job, _script_jobs(), workers=2) == \
        run_jobs(emulator_script_job, _script_jobs(), workers=1)


def test_results_stream_back_as_each_job_finishes():
    seen = []
    run_jobs(emulator_script_job, _script_jobs(), workers=2,
             on_result=lambda i, r: seen.append((i, r[0])))
    assert sorted(seen) == [(0, str(SCRIPTS[0])), (1, str(SCRIPTS[1]))]


def test_a_local_worker_killed_mid_batch_costs_only_its_job_which_runs_again(tmp_path):
    hook = KillAtStart("run-1", tmp_path)
    killer = Killer(tmp_path)
    killer.start()
    got = run_jobs(emulator_script_job, _script_jobs(), workers=2, hook=hook, label="run")
    killer.check()
    assert got == run_jobs(emulator_script_job, _script_jobs(), workers=1)


def test_dask_cluster_gives_the_local_results(cluster):
    assert run_jobs(emulator_script_job, _script_jobs(),
                    scheduler=cluster.scheduler_address) == \
        run_jobs(emulator_script_job, _script_jobs(), workers=1)


def test_a_dask_worker_killed_mid_batch_costs_only_its_job_which_runs_again(cluster,
                                                                              tmp_path):
    hook = KillAtStart("run-0", tmp_path)
    killer = Killer(tmp_path)
    killer.start()
    got = run_jobs(emulator_script_job, _script_jobs(), scheduler=cluster.scheduler_address,
                   hook=hook, label="run")
    killer.check()
    assert got == run_jobs(emulator_script_job, _script_jobs(), workers=1)


def test_explore_on_dask_with_a_killed_worker_writes_the_local_run_byte_for_byte(cluster,
                                                                                 tmp_path):
    spec = TargetSpec("cleanroom")
    explore(spec, 3, 5, tmp_path / "local", level=4)
    (tmp_path / "k").mkdir()
    killer = Killer(tmp_path / "k")
    killer.start()
    explore(spec, 3, 5, tmp_path / "dask", scheduler=cluster.scheduler_address, level=4,
            hook=KillAtStart("explore-1", tmp_path / "k"))
    killer.check()
    local, dask = _tree(tmp_path / "local"), _tree(tmp_path / "dask")
    assert len(local) == 3 * 3 + 2 and local == dask      # and summary.txt, explore.json


def test_towerlab_run_on_the_dask_cluster_writes_what_a_local_batch_writes(cluster,
                                                                           tmp_path):
    outs = {}
    for name, extra in (("local", ["--jobs", "2"]),
                        ("dask", ["--scheduler", cluster.scheduler_address])):
        text = io.StringIO()
        assert main(["run", "--firmware", "demo", "--script", *map(str, SCRIPTS),
                     "--seconds", "16", "--out", str(tmp_path / name), *extra], text) == 0
        outs[name] = text.getvalue()
    assert _tree(tmp_path / "local") == _tree(tmp_path / "dask")
    assert outs["local"].replace(str(tmp_path / "local"), "OUT").splitlines()[:-1] == \
        outs["dask"].replace(str(tmp_path / "dask"), "OUT").splitlines()[:-1]
    assert "on the Dask cluster at tcp://" in outs["dask"]


def test_an_unreachable_scheduler_is_one_line_naming_it():
    # (tried for half a second, not the 15 s a user gets: the port is closed either way)
    with pytest.raises(BatchError, match="tcp://127.0.0.1:9: cannot reach the Dask "
                                         "scheduler"):
        run_jobs(emulator_script_job, _script_jobs(), scheduler="tcp://127.0.0.1:9",
                 connect_timeout_s=0.5)


@pytest.mark.parametrize("address", ["garbage", "tcp://host:port"])
def test_a_scheduler_address_without_a_port_is_refused_at_once(address):
    began = time.monotonic()
    with pytest.raises(BatchError, match=f"{address}: not a Dask scheduler address"):
        run_jobs(emulator_script_job, _script_jobs(), scheduler=address)
    assert time.monotonic() - began < 5       # not the 30 s a lingering Client takes


def test_jobs_below_one_are_refused():
    with pytest.raises(BatchError, match="--jobs 0: expected a number of processes >= 1"):
        run_jobs(emulator_script_job, _script_jobs(), workers=0)


def _note_start(folder: str, n: int) -> int:
    """Append job ``n``'s number to ``folder``/started as the job starts; return it."""
    with open(os.path.join(folder, "started"), "a") as f:
        f.write(f"{n}\n")
    return n


def test_the_costliest_jobs_start_first():
    jobs = [("a", 1.0), ("b", 5.0), ("c", 2.0), ("d", 5.0), ("e", 0.5)]
    assert start_order(jobs, lambda job: job[1]) == [1, 3, 2, 0, 4]
    assert start_order(jobs, None) == [0, 1, 2, 3, 4]


def test_a_process_pool_starts_jobs_in_the_order_given_and_keeps_the_job_order(tmp_path):
    # one worker process takes the jobs one after the other, in the order they were queued
    jobs = [(str(tmp_path), n) for n in range(5)]
    results = {}
    _run_processes(_note_start, jobs, 1, results.__setitem__, "order", None, 0,
                   [3, 1, 4, 0, 2])
    assert results == {n: n for n in range(5)}
    assert (tmp_path / "started").read_text().split() == ["3", "1", "4", "0", "2"]


def test_run_jobs_returns_the_results_in_job_order_whatever_their_cost(tmp_path):
    jobs = [(str(tmp_path), n) for n in range(6)]
    assert run_jobs(_note_start, jobs, workers=2, cost=lambda job: job[1] % 3) == list(range(6))
