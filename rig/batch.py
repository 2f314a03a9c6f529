"""Run a batch of independent sessions: in this process, on local processes, or on a Dask
cluster, with the same results.

``run_jobs(fn, jobs, workers=N, scheduler=None)`` calls ``fn(*job)`` for every job and
returns the results in job order; ``on_result(index, result)`` is called in this process as
each one finishes, so a caller writes its files as they stream back. The functions run are
plain module-level functions of the library (``emulator_script_job`` for ``towerlab run
--script ... --jobs N``, ``rig.explore.explore_job`` for ``towerlab explore``); they return
their output as values (file contents, not paths), so a worker on another machine needs no
shared folder for its output and a worker lost mid-write leaves nothing behind.

- ``workers == 1`` and no scheduler: one after the other, here.
- ``workers > 1``: a ``concurrent.futures.ProcessPoolExecutor``; a worker process that dies
  breaks the pool, and the jobs it took down (only those not finished) run again on a new one.
- ``scheduler="tcp://HOST:PORT"``: ``dask.distributed``; a lost worker's task is rescheduled by
  the scheduler on another worker, and a task the scheduler gives up on (``KilledWorker``) is
  submitted again, up to ``retries`` times.

``hook`` (a picklable callable, ``hook(key)``) runs on the worker before each job; tests use it
to kill a worker at a known session::

    results = run_jobs(emulator_script_job, [(source, text, "a.txt", 30.0)], workers=2)
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from rig.progress import progress_line

__all__ = ["BatchError", "run_jobs", "start_order", "emulator_script_job", "DEFAULT_RETRIES"]

DEFAULT_RETRIES = 3
CONNECT_TIMEOUT_S = 15.0   # how long to keep trying to reach a Dask scheduler (seconds)


class BatchError(ValueError):
    """A batch could not run (an unreachable scheduler, a job lost too often); one line."""


def _call(fn: Callable, hook: Callable | None, key: str, args: tuple):
    """Run one job on a worker: the hook first (if any), then ``fn(*args)``."""
    if hook is not None:
        hook(key)
    return fn(*args)


def run_jobs(fn: Callable, jobs: Sequence[tuple], workers: int = 1,
             scheduler: str | None = None,
             on_result: Callable[[int, Any], None] | None = None, progress: bool = False,
             label: str = "batch", hook: Callable[[str], None] | None = None,
             retries: int = DEFAULT_RETRIES,
             connect_timeout_s: float = CONNECT_TIMEOUT_S, console=None,
             cost: Callable[[tuple], float] | None = None) -> list:
    """Call ``fn(*job)`` for each of ``jobs``; return the results in job order.

    ``cost(job)``: how long a job is expected to take, relative to the others: processes and
    the cluster start the costliest first, so that a long job does not run alone at the end
    while the other workers wait (the results keep the job order).

    ``workers`` processes here, or the Dask scheduler at ``scheduler``; ``on_result(i,
    result)`` as each finishes (in finishing order); ``progress`` shows a progress line on
    standard error when it is a terminal (rig.progress; on the rich ``console``'s file
    instead, when the caller prints its results through that console);
    a job whose worker is lost runs again, at most ``retries`` times more; a scheduler not
    reached within ``connect_timeout_s`` seconds is a BatchError.
    """
    if not isinstance(workers, int) or workers < 1:
        raise BatchError(f"--jobs {workers!r}: expected a number of processes >= 1")
    jobs = list(jobs)
    results: list = [None] * len(jobs)
    order = start_order(jobs, cost)
    with progress_line(f"{label}: {len(jobs)} job{'s' if len(jobs) != 1 else ''}",
                       total=len(jobs), quiet=not (progress and jobs),
                       stream=None if console is None else console.file) as line:

        def finished(i: int, result) -> None:
            results[i] = result
            if on_result is not None:
                on_result(i, result)
            line.advance()

        if scheduler:
            _run_dask(fn, jobs, scheduler, finished, label, hook, retries, connect_timeout_s,
                      order)
        elif workers == 1 or len(jobs) == 1:
            for i, job in enumerate(jobs):
                finished(i, _call(fn, hook, _key(label, i), job))
        else:
            _run_processes(fn, jobs, workers, finished, label, hook, retries, order)
    return results


def start_order(jobs: Sequence[tuple], cost: Callable[[tuple], float] | None) -> list[int]:
    """Return the job indices in the order to start them: costliest first (equal costs, and
    every job without ``cost``, in the jobs' own order)."""
    order = list(range(len(jobs)))
    if cost is not None:
        order.sort(key=lambda i: -cost(jobs[i]))
    return order


def _key(label: str, i: int) -> str:
    return f"{label}-{i}"


def _run_processes(fn, jobs, workers, finished, label, hook, retries, order=None) -> None:
    """Run on local processes, started in ``order`` (default: the jobs' own); jobs lost with
    a broken pool run again on a new pool."""
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    pending = list(range(len(jobs))) if order is None else list(order)
    lost = {i: 0 for i in pending}
    while pending:
        broken: list[int] = []
        with ProcessPoolExecutor(max_workers=min(workers, len(pending))) as pool:
            futures = {pool.submit(_call, fn, hook, _key(label, i), jobs[i]): i
                       for i in pending}
            waiting = set(futures)
            while waiting:
                done, waiting = wait(waiting, return_when=FIRST_COMPLETED)
                for f in sorted(done, key=lambda f: futures[f]):
                    i = futures[f]
                    try:
                        result = f.result()
                    except BrokenProcessPool:
                        broken.append(i)
                        continue
                    finished(i, result)
        for i in broken:
            lost[i] += 1
            if lost[i] > retries:
                raise BatchError(f"job {i + 1} ({_key(label, i)}): its worker process was "
                                 f"lost {lost[i]} times (expected it to finish on a retry)")
        again = set(broken)
        pending = [i for i in pending if i in again]


def _run_dask(fn, jobs, scheduler, finished, label, hook, retries,
              connect_timeout_s: float = CONNECT_TIMEOUT_S, order=None) -> None:
    """Run on the Dask cluster at ``scheduler``, submitted in ``order`` (default: the jobs'
    own); resubmit a job the scheduler gave up on."""
    try:
        from distributed import Client, as_completed
        from distributed.scheduler import KilledWorker
    except ImportError:
        raise BatchError("--scheduler needs dask.distributed (pip install "
                         "distributed; pinned in setup.cfg)") from None
    import uuid

    from distributed.comm import parse_address, parse_host_port

    try:    # first, for a Client made of a bad address lingers 30 s closing and then warns
        parse_host_port(parse_address(scheduler)[1])
    except ValueError as exc:
        raise BatchError(f"{scheduler}: not a Dask scheduler address ({exc}; expected "
                         f"tcp://HOST:PORT)") from None
    try:
        client = Client(scheduler, timeout=connect_timeout_s, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise BatchError(f"{scheduler}: cannot reach the Dask scheduler "
                         f"({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})") \
            from None
    except ValueError as exc:
        raise BatchError(f"{scheduler}: not a Dask scheduler address ({exc}; expected "
                         f"tcp://HOST:PORT)") from None
    batch = uuid.uuid4().hex[:8]
    try:
        index: dict = {}
        lost = {i: 0 for i in range(len(jobs))}

        def submit(i: int):
            f = client.submit(_call, fn, hook, _key(label, i), jobs[i],
                              key=f"{label}-{batch}-{i}-{lost[i]}", pure=False)
            index[f.key] = i
            return f

        with client.as_current():
            try:
                _drain(as_completed([submit(i) for i in (order or range(len(jobs)))]),
                       index, lost,
                       submit, finished, label, retries, KilledWorker)
            except ImportError as exc:
                raise BatchError(f"{scheduler}: a Dask worker cannot import the job ({exc}; "
                                 f"expected TowerLab installed on every worker, the same "
                                 f"version)") from None
            except RuntimeError as exc:
                if "deserializ" not in str(exc):
                    raise
                raise BatchError(f"{scheduler}: the Dask scheduler cannot load the job "
                                 f"(expected TowerLab installed on the scheduler and every "
                                 f"worker, the same version)") from None
    finally:
        client.close()


def _drain(queue, index, lost, submit, finished, label, retries, KilledWorker) -> None:
    """Take the Dask results as they finish; a job lost with its worker is submitted again."""
    for f in queue:
        i = index[f.key]
        try:
            result = f.result()
        except KilledWorker:
            lost[i] += 1
            if lost[i] > retries:
                raise BatchError(f"job {i + 1} ({_key(label, i)}): lost with its Dask worker "
                                 f"{lost[i]} times (expected it to finish on a retry)") \
                    from None
            queue.add(submit(i))
            continue
        finally:
            f.release()
        finished(i, result)


def emulator_script_job(source: dict, script_text: str, script_name: str,
                        seconds: float) -> tuple[str, int, str]:
    """Run one script of a batch on the emulator; return (script name, event count, the
    events as JSON-lines text).

    ``source`` holds EmulatorTower's arguments (firmware, rom, romset, mpla, opla, board,
    clock_hz, core); ROM and PLA paths must be readable where the job runs.
    """
    import io

    from captures.events import write_events
    from captures.script import parse_script
    from captures.tower import run_script
    from emulator.boards import board_keys
    from rig.towers.emulated import EmulatorTower

    tower = EmulatorTower(**source)
    script = parse_script(script_text, script_name, board_keys(tower.board_name))
    events = run_script(tower, script, until=seconds)
    tower.close()
    buf = io.StringIO()
    write_events(events, buf)
    return script_name, len(events), buf.getvalue()

