"""Check the clean-room game against many recordings at once: ``towerlab conform --reference
DIR... --jobs N`` (or ``--scheduler tcp://HOST:PORT``).

Each reference folder is read here first (script.txt, and events.jsonl or a capture, decoded),
so a folder that cannot be used stops the batch before any work, with one line naming it; the
sessions then run through rig.batch (``conform_job``: this process, local processes or a Dask
cluster) and each one's report is the text ``towerlab conform`` prints for it, the same
whatever the number of processes, written in the order the folders were given::

    reports = conform_folders(["tests/data/corpus"], jobs=2)
    print(summary_table(reports))

A lab timing sweep (a folder with ``sweep.jsonl``) is as many sessions as it has runs, each
made whole from power-on with the corpus session it was played from (captures.sweep,
``load_sessions``).

Witnesses: the decisions a session conformed with are kept (``witnesses``: a folder, one
file per recording, named by a hash of its script and events; ``towerlab conform`` keeps
them in ~/.cache/towerlab/witnesses).  The next check of the same recording replays them
once: if the game still conforms with them, that is the answer (seconds for a corpus, not
minutes); if not (the game's rules changed), the session is resolved from scratch.
"""
from __future__ import annotations

import ast
import hashlib
import io
import json
import os
import traceback
from dataclasses import dataclass, field
from typing import Callable, Sequence

from captures.script import Script
from captures.tolerance import Tolerance

__all__ = ["SessionReport", "load_session", "load_sessions", "load_references",
           "session_clock", "conform_job", "conform_sessions", "conform_folders",
           "summary_table", "CAPTURE_NAMES",
           "default_witness_dir", "recording_key", "read_witness", "write_witness",
           "decision_line"]

# where a conform job's arguments hold its witness (``conform_job``)
_WITNESS = 7

CAPTURE_NAMES = ("capture.sr", "capture.tlc", "capture.vcd", "edges.jsonl.gz", "capture.csv")


@dataclass
class SessionReport:
    """One session's outcome: ``text``, what ``towerlab conform`` prints for it (with a final
    newline), and the numbers of the summary table."""
    folder: str
    text: str
    conforms: bool
    matched: int
    total: int
    rule_items: int
    random_items: int
    difference_t: float | None = None       # the first difference's time (s)
    difference: str = ""                    # both sides of it, in one line
    witness: list = field(default_factory=list, repr=False)   # (value, revealed) if conforming
    # --no-resolve (cleanroom.predict): the model's draws as {kind: [predicted, drawn]}
    draws: dict | None = None


def load_session(folder: str) -> tuple[Script, list[dict]]:
    """Return (script, events) of a reference folder; decode its capture if it has no
    events.jsonl.  Errors (cleanroom.conform.ConformError) name the folder or file."""
    from cleanroom.conform import ConformError, load_reference, read_reference_script

    if os.path.isdir(folder) and not os.path.exists(os.path.join(folder, "events.jsonl")):
        found = [os.path.join(folder, n) for n in CAPTURE_NAMES
                 if os.path.exists(os.path.join(folder, n))]
        if found and os.path.exists(os.path.join(folder, "script.txt")):
            from analysis.decode import decode
            from captures.formats import open_capture
            return (read_reference_script(os.path.join(folder, "script.txt")),
                    decode(open_capture(found[0])))
        if not found:
            raise ConformError(f"{folder}: no events.jsonl and no capture "
                               f"({', '.join(CAPTURE_NAMES)})")
    return load_reference(folder)


def load_sessions(folder: str, sweep_base: str | None = None
                  ) -> list[tuple[str, Script, list[dict]]]:
    """Return the (label, script, events) sessions of a reference folder: its one session
    (``load_session``), or every run of a lab timing sweep (a folder with ``sweep.jsonl``,
    ``captures.sweep.sweep_sessions``; ``sweep_base``: the corpus session it was played from,
    or a corpus folder holding it, by default where the lab keeps it), or one run of it
    named as its report names it, ``SWEEP#kNNN``.  Errors name the folder or file."""
    from cleanroom.conform import ConformError

    sweep, _, run = folder.rpartition("#")
    if not (sweep and os.path.isfile(os.path.join(sweep, "sweep.jsonl"))):
        sweep, run = folder, ""
    if os.path.isfile(os.path.join(sweep, "sweep.jsonl")):
        from captures.sweep import sweep_sessions
        try:
            sessions = sweep_sessions(sweep, sweep_base)
        except ValueError as exc:       # a SweepError, or the corpus session's script
            raise ConformError(str(exc)) from None
        if not run:
            return sessions
        chosen = [s for s in sessions if s[0].rpartition("#")[2] == run]
        if not chosen:
            raise ConformError(f"{folder}: {sweep} has no run {run!r} (expected k000 to "
                               f"{sessions[-1][0].rpartition('#')[2]})")
        return chosen
    return [(folder, *load_session(folder))]


def load_references(folders: Sequence[str], sweep_base: str | None = None
                    ) -> list[tuple[str, Script, list[dict]]]:
    """Return the sessions of every reference folder in turn (``load_sessions``): all are
    read, and a bad one fails, before any is checked."""
    return [s for folder in folders for s in load_sessions(folder, sweep_base)]


def session_clock(events: list, given: float | None) -> tuple[float, str]:
    """Return the reference's clock over MAME's 425 kHz and how it was found: ``given``
    (--clock-ratio), else fitted from its tones as ``towerlab clock`` does
    (analysis.compare.estimate_clock).  A fit within its own precision of 1 is the
    reference clock itself (MAME, the corpus: exact), so nothing drifts; any other fit is
    used as it is, and said."""
    from analysis.compare import GIVEN_RATIO_RANGE, AnalysisError, estimate_clock

    if given is not None:
        low, high = GIVEN_RATIO_RANGE
        if not low < given < high:
            raise ValueError(f"--clock-ratio {given!r} must be a clock ratio near 1, between "
                             f"{low:g} and {high:g} (the tower's clock over MAME's 425 kHz)")
        return given, ""

    try:
        est = estimate_clock(events)
    except AnalysisError:
        return 1.0, ""          # no tone to fit: the reference clock
    # the agreeing estimates span spread_rel, so their median is known to about that over
    # sqrt(n), but no better than the tones' 0.1 Hz rounding (2e-4 of a 430 Hz click)
    error = max(2e-4, 2 * est.spread_rel / max(1, est.tones_used) ** 0.5)
    if abs(est.ratio - 1.0) <= error:
        return 1.0, ""
    return est.ratio, (f"clock ratio {est.ratio:.4f} fitted from {est.tones_used} tones "
                       f"(--clock-ratio to give it)")


def default_witness_dir() -> str:
    """Return where ``towerlab conform`` keeps witnesses: $XDG_CACHE_HOME/towerlab/witnesses
    (~/.cache/towerlab/witnesses)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "towerlab", "witnesses")


def recording_key(script: Script, events: list[dict]) -> str:
    """Return the hash naming a recording's witness: its script and its events."""
    from captures.script import write_script

    text = io.StringIO()
    write_script(script, text)
    h = hashlib.sha1(text.getvalue().encode())
    h.update(json.dumps(events, sort_keys=True).encode())
    return h.hexdigest()


def read_witness(folder: str | None, key: str) -> list | None:
    """Return the witness kept under ``key`` in ``folder`` as (value, revealed) pairs; None
    when there is none or it cannot be read (it is only a shortcut: the search runs then)."""
    if folder is None:
        return None
    try:
        with open(os.path.join(folder, key + ".json"), encoding="utf-8") as f:
            kept = json.load(f)
        return [(ast.literal_eval(v), bool(r)) for v, r in kept["decisions"]]
    except (OSError, ValueError, KeyError, TypeError, SyntaxError):
        return None


def write_witness(folder: str, key: str, name: str, pairs: list) -> None:
    """Keep ``pairs`` under ``key`` in ``folder`` (written whole, then renamed into place)."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, key + ".json")
    with open(path + ".part", "w", encoding="utf-8") as f:
        json.dump({"recording": name, "decisions": [[repr(v), r] for v, r in pairs]}, f)
        f.write("\n")
    os.replace(path + ".part", path)


def conform_job(folder: str, script: Script, events: list[dict], tol: Tolerance,
                clock_ratio: float, fitted: str, decisions: bool,
                witness: list | None = None, model: str | None = None,
                max_runs: int | None = None, resync: bool = False) -> SessionReport:
    """Resolve one session against its reference events at ``clock_ratio`` (``fitted``: how
    it was found, a line of the report when not empty), trying ``witness`` first (module
    doc); return its report (a rig.batch job: plain values in and out, no files).
    ``model``: the name of a draw model (cleanroom.predict): the report is that of the
    game with the model's draws, scored against the resolver's, and ends with the line
    ``draws predicted: K of N``; with ``resync`` the game plays the resolver's draws and the
    model only predicts each (cleanroom.predict ``predict_resynced``).  ``max_runs``: the
    resolver's budget (cleanroom.conform ``resolve``; None: its default)."""
    from cleanroom.conform import resolve, witness_of

    try:
        truth = resolve(script, events, tol, clock_ratio=clock_ratio, witness=witness,
                        max_runs=max_runs)
        result, prediction = truth, None
        if model is not None:
            from cleanroom.predict import model_named, predict

            prediction = predict(script, events, model_named(model), truth, tol,
                                 clock_ratio=clock_ratio, resync=resync)
            result = prediction.result
    except Exception as exc:                # a defect: this session fails, the batch goes on
        where = traceback.extract_tb(exc.__traceback__)[-1]
        failed = (f"the resolver failed ({type(exc).__name__}: {exc}, "
                  f"{os.path.basename(where.filename)}:{where.lineno}): a defect of towerlab")
        return SessionReport(folder, f"{folder}: {failed}\n", False, 0, 0, 0, 0,
                             difference=failed)
    lines = [f"{folder}: {fitted}"] if fitted else []
    lines.append(f"{folder}: {result.describe()}")
    if not result.conforms:
        lines.append(f"  before it: {result.counts()}")
    if decisions:
        lines += [decision_line(d) for d in result.decisions]
    if prediction is not None:
        lines.append(f"{folder}: {prediction.line()}")
    report = SessionReport(folder, "\n".join(lines) + "\n", result.conforms, result.matched,
                           result.total, result.rule_items or 0, result.random_items or 0)
    if prediction is not None:
        report.draws = {k: list(v) for k, v in prediction.kinds.items()}
    if truth.conforms:
        report.witness = witness_of(truth)
    diff = result.difference
    if diff is not None:
        report.difference_t = diff.t
        report.difference = _one_line(diff)
    return report


def decision_line(d) -> str:
    """Return one line of ``conform --decisions`` for decision ``d``: when, what, the value,
    whether the recording showed it, and for a duration the recording dated at either end
    of its range that it sits there (the genuine's may lie beyond it: a rule the game lacks,
    or a range to measure again, cleanroom/params.py)."""
    from cleanroom.decisions import is_timing

    seen = "revealed" if d.revealed else "not shown"
    if d.revealed and is_timing(d) and len(d.options) > 3 and \
            d.value in (min(d.options), max(d.options)):
        seen += ", at its range's end"
    return f"  {d.t:9.3f}  {d.name:18} {d.value!s:20} {seen}"


def _one_line(diff) -> str:
    """Return both sides of a first difference in one line."""
    def side(item) -> str:
        return "nothing" if item is None else f"{item.describe()} at {item.t:.3f} s"
    return f"reference {side(diff.reference)}; game {side(diff.game)}"


def conform_sessions(sessions: Sequence[tuple[str, Script, list[dict]]], tol: Tolerance,
                     clock_ratio: float | None = None, decisions: bool = False, jobs: int = 1,
                     scheduler: str | None = None,
                     on_report: Callable[[SessionReport], None] | None = None,
                     console=None, witnesses: str | None = None,
                     model: str | None = None,
                     max_runs: int | None = None, resync: bool = False
                     ) -> list[SessionReport]:
    """Resolve each (folder, script, events) session, ``jobs`` at a time on local processes
    or on the Dask cluster at ``scheduler``; return the reports in the sessions' order.

    ``clock_ratio``: every reference's clock over MAME's 425 kHz, or None to fit each one's
    (``session_clock``, before any work).  ``on_report(report)`` is called for each report in
    the sessions' order, as soon as it and every one before it are done; ``console`` (a rich
    Console) shows a progress line on it.  ``witnesses``: the folder of witnesses (module
    doc) read before and written after each session, None for none.  ``model``: the name
    of a draw model (``conform_job``; cleanroom.predict), None to resolve the draws;
    ``resync``: the model re-synchronised at every draw (``conform_job``).  ``max_runs``:
    the resolver's budget of replays for each 400 s of a session (cleanroom.conform
    ``resolve``), None for its default.
    """
    from rig.batch import run_jobs

    if witnesses and os.path.exists(witnesses) and not os.path.isdir(witnesses):
        # refused before any work, not once every session is checked and a witness written
        raise ValueError(f"{witnesses}: not a folder (expected the folder of witnesses, "
                         f"made if missing)")
    keys = [recording_key(script, events) if witnesses else "" for _, script, events in sessions]
    jobs_args = [(folder, script, events, tol, *session_clock(events, clock_ratio), decisions,
                  read_witness(witnesses, key), model, max_runs, resync)
                 for (folder, script, events), key in zip(sessions, keys)]
    done: dict[int, SessionReport] = {}
    given = [0]

    def finished(i: int, report: SessionReport) -> None:
        if witnesses and report.witness and report.witness != jobs_args[i][_WITNESS]:
            write_witness(witnesses, keys[i], os.path.basename(report.folder.rstrip("/")),
                          report.witness)
        done[i] = report
        while given[0] in done and on_report is not None:
            on_report(done[given[0]])
            given[0] += 1

    return run_jobs(conform_job, jobs_args, workers=jobs, scheduler=scheduler,
                    on_result=finished, progress=console is not None, label="conform",
                    console=console, cost=_job_cost)


def _job_cost(job: tuple) -> float:
    """Return how long a conform job may take, relative to others: a resolve's work grows
    with the session's length; checking a witness is one replay (benchmarks/conform_speed.py:
    some 40 times less)."""
    events, witness = job[2], job[_WITNESS]
    length = max((e["t"] for e in events), default=0.0)
    return length / 40 if witness else length


def conform_folders(folders: Sequence[str], tol: Tolerance | None = None,
                    sweep_base: str | None = None, **options) -> list[SessionReport]:
    """Read every folder (bad ones fail first; a sweep's runs each a session,
    ``load_sessions``), then ``conform_sessions`` them."""
    from cleanroom.conform import CRITERION

    return conform_sessions(load_references(folders, sweep_base), tol or CRITERION, **options)


def summary_table(reports: Sequence[SessionReport]) -> str:
    """Return the table of a batch: one row per session (conforms, items matched of total,
    the first difference with its time) and a total row."""
    rows = [("session", "conforming", "items matched", "first difference")]
    for r in reports:
        diff = "" if r.difference_t is None else f"{r.difference_t:.3f} s: {r.difference}"
        rows.append((r.folder, "yes" if r.conforms else "no", f"{r.matched} of {r.total}",
                     diff))
    conforming = sum(r.conforms for r in reports)
    matched = sum(r.matched for r in reports)
    total = sum(r.total for r in reports)
    rows.append((f"{len(reports)} sessions", f"{conforming} of {len(reports)}",
                 f"{matched} of {total}", ""))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = []
    for n, row in enumerate(rows):
        cells = [row[i].ljust(widths[i]) for i in range(3)] + [row[3]]
        lines.append("  ".join(cells).rstrip())
        if n == 0 or n == len(rows) - 2:
            lines.append("  ".join("-" * w for w in widths) + "  " + "-" * 16)
    return "\n".join(lines) + "\n"
