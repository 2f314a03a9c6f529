"""Play many Dark Tower sessions on any tower, one recording folder each: ``towerlab explore``.

``explore`` runs ``rig.player.Explorer`` sessions one after the other, on local processes or
on a Dask cluster (``rig.batch``) and writes one recording folder per session (the layout of
``rig.record.record``: recording.json, script.txt, capture.tlc where the tower has pins,
events.jsonl) plus ``summary.txt``, a table of what each session showed (``docs/explore.md``)::

    summary = explore(TargetSpec("cleanroom"), sessions=4, seed=1, out="out/explore")
    rec = play_session(TargetSpec("emu"), seed=7, out="out/one")     # one session

Each session is seeded from the batch seed and its number (``session_seed``), so a seeded
batch on a deterministic tower writes the same bytes every time, on one process, several,
or a Dask cluster. The player itself (``Explorer``, ``SessionSummary``, ``reaction_delays``
and its constants) moved to ``rig.player``; importing those names from here still works
for one release, with a DeprecationWarning.
"""
from __future__ import annotations

import json
import os
import random
import re
import shutil
import tempfile
import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

from rig import player
from rig.player import ExploreError, SessionSummary

__all__ = ["ExploreResult", "ExploreError", "explore", "check_options", "play_session",
           "explore_job", "session_seed", "session_folder", "summary_table"]

# Names that moved to rig.player, still importable from here for one release.
_MOVED = ("Explorer", "reaction_delays", "REACTION_S", "HOLD_S", "POLL_S", "QUIET_S",
          "MAX_SECONDS", "IGNORED_PRESSES", "GAME_WITHIN_S")


def __getattr__(name: str):
    if name in _MOVED:
        warnings.warn(f"rig.explore.{name} moved to rig.player.{name}", DeprecationWarning,
                      stacklevel=2)
        return getattr(player, name)
    raise AttributeError(f"module 'rig.explore' has no attribute {name!r}")


def summary_table(summaries: Sequence[SessionSummary]) -> str:
    """Return the tab-separated table of ``summaries`` (a header line, then one per session),
    as ``summary.txt`` holds it."""
    lines = ["\t".join(SessionSummary.COLUMNS)]
    lines += ["\t".join(s.row()) for s in sorted(summaries, key=lambda s: s.session)]
    return "\n".join(lines) + "\n"


def session_seed(seed: int, session: int) -> int:
    """Return session ``session``'s seed (32 bits) in a batch seeded ``seed``."""
    return random.Random(f"towerlab-explore:{seed}:{session}").getrandbits(32)


# ---- sessions and batches -------------------------------------------------------------------

@dataclass
class ExploreResult:
    """A finished session as a worker returns it: the summary and the recording's files
    (name -> bytes), written by the client so every backend leaves the same bytes."""
    summary: SessionSummary
    files: dict


def play_session(spec, seed: int, out: str | os.PathLike, session: int = 0,
                 **options) -> SessionSummary:
    """Play one session on the target ``spec`` (rig.specs.TargetSpec) into the recording
    folder ``out``; return its summary. ``options``: Explorer's level, players,
    max_seconds, quiet_s."""
    from cleanroom.odds import odds_overridden
    from rig.record import record_session

    explorer = player.Explorer(seed, session=session, **options)
    if spec.target == "cleanroom":
        spec = replace(spec, seed=seed)          # the game's own draws follow the session
    with odds_overridden(spec.odds):
        record_session(explorer, spec, out)
    return explorer.summary


def explore_job(spec, session: int, seed: int, options: dict) -> ExploreResult:
    """Play session ``session`` of a batch seeded ``seed`` in a scratch folder; return its
    summary and files (rig.batch runs this on a worker)."""
    s_seed = session_seed(seed, session)
    scratch = tempfile.mkdtemp(prefix="towerlab-explore-")
    try:
        folder = Path(scratch) / "session"
        summary = play_session(spec, s_seed, folder, session=session, **options)
        files = {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return ExploreResult(summary, files)


def session_folder(out: str | os.PathLike, session: int) -> Path:
    """Return the recording folder of session ``session`` in ``out``."""
    return Path(out) / f"session_{session:04d}"


def check_options(sessions: int, seed: int, **options) -> None:
    """Raise ExploreError naming the first bad value: a number of sessions below 1, a
    negative seed, or an option ``player.Explorer`` refuses (level, players, favour, ...)."""
    if not isinstance(sessions, int) or sessions < 1:
        raise ExploreError(f"--sessions {sessions!r}: expected a number of sessions >= 1")
    if not isinstance(seed, int) or seed < 0:
        raise ExploreError(f"--seed {seed!r}: expected an integer >= 0")
    player.Explorer(0, **options)


PLAN = "explore.json"           # the batch as asked, written first: a cut-short batch resumes
# a session's folder (session_folder), or one being written beside it (``.NAME.part``)
_SESSION_NAME = re.compile(r"\.?session_\d{4,}(\.part)?")


def _plan(spec, sessions: int, seed: int, options: dict) -> dict:
    """Return what ``explore.json`` says of a batch: what must match for it to resume."""
    return {"format": "towerlab-explore", "version": 1, "target": spec.target,
            "romset": spec.romset, "odds": repr(spec.odds), "sessions": sessions,
            "seed": seed, "options": {k: repr(v) for k, v in sorted(options.items())}}


def _finished(d: Path, seed: int, session: int) -> SessionSummary | None:
    """Return the summary of session ``session`` if ``d`` holds it finished (its
    recording.json has the session's summary, the session's own seed and no fault)."""
    try:
        meta = json.loads((session_folder(d, session) / "recording.json").read_text("utf-8"))
        summary = SessionSummary(**meta["explore"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    ok = (meta.get("fault") is None and summary.session == session
          and summary.seed == session_seed(seed, session))
    return summary if ok else None


def _clear(d: Path) -> None:
    """Remove an explore's files from ``d`` (its sessions, summary, plan), nothing else."""
    for old in d.iterdir():
        if old.is_dir() and _SESSION_NAME.fullmatch(old.name):
            shutil.rmtree(old)
    for name in ("summary.txt", PLAN):
        (d / name).unlink(missing_ok=True)


def _prepare(d: Path, plan: dict, force: bool) -> bool:
    """Make ``d`` ready for the batch ``plan``; return True when it resumes a batch cut
    short with the same plan (its finished sessions kept). Raise ExploreError for a folder
    that is not an explore's, or an earlier explore's unless ``force``."""
    if d.exists() and not d.is_dir():
        raise ExploreError(f"{d}: exists and is not a folder (expected the folder for the "
                           f"session recordings)")
    if not d.is_dir() or not any(d.iterdir()):
        return False
    names = {p.name for p in d.iterdir()}
    sessions = {n for n in names if _SESSION_NAME.fullmatch(n)}
    if "summary.txt" in names:
        if not force:
            raise ExploreError(f"{d}: holds an earlier explore (summary.txt and its "
                               f"sessions); give a new folder, or --force to replace them")
    elif PLAN in names:
        try:
            earlier = json.loads((d / PLAN).read_text("utf-8"))
        except (OSError, ValueError):
            earlier = None
        if earlier == plan and not force:
            for old in names - {PLAN}:
                if old.endswith(".part") and (d / old).is_dir():
                    shutil.rmtree(d / old)      # a session being written when it stopped
            return True
        if not force:
            raise ExploreError(f"{d}: holds an explore cut short with other options "
                               f"({PLAN}); give its options to resume it, or --force to "
                               f"replace it")
    elif sessions and sessions == names:
        if not force:
            raise ExploreError(f"{d}: holds session folders but no {PLAN} or summary.txt "
                               f"(an explore cut short by an older towerlab); --force "
                               f"replaces them")
    else:
        raise ExploreError(f"{d}: not empty and not an explore folder (expected a new or "
                           f"empty folder)")
    _clear(d)
    return False


def explore(spec, sessions: int, seed: int, out: str | os.PathLike, jobs: int = 1,
            scheduler: str | None = None, progress: bool = False,
            on_session: Callable[[SessionSummary], None] | None = None,
            hook=None, force: bool = False, **options) -> list[SessionSummary]:
    """Play ``sessions`` sessions on the target ``spec``, ``jobs`` at a time on local
    processes or on the Dask cluster at ``scheduler``; write ``out/session_NNNN/`` for each
    and ``out/summary.txt``; return the summaries in session order.

    ``out`` must be new or empty, or hold a batch cut short (``explore.json`` and no
    summary.txt): the same batch resumes there, its finished sessions kept and the others
    played.  An earlier explore's folder is refused (its sessions would stand beside the new
    summary) unless ``force``, which first removes its ``session_NNNN`` folders,
    ``summary.txt`` and ``explore.json`` (nothing else).  Each session's folder appears
    whole (written beside it and renamed).

    ``on_session(summary)`` is called as each session finishes (in finishing order);
    ``hook`` is rig.batch's worker-start hook (tests use it to lose a worker).
    """
    from captures.files import atomic_write
    from rig.batch import run_jobs
    from rig.recording import write_json
    from rig.specs import validate_spec

    check_options(sessions, seed, **options)   # bad options fail before any work
    validate_spec(spec)
    if spec.target == "real" and (jobs > 1 or scheduler):
        raise ExploreError("a real tower plays one session at a time (no --jobs or "
                           "--scheduler with --target real)")
    d = Path(out)
    plan = _plan(spec, sessions, seed, options)
    resumed = _prepare(d, plan, force)
    created = not d.exists()
    try:
        d.mkdir(parents=True, exist_ok=True)
        if not resumed:
            write_json(d / PLAN, plan)
    except OSError as exc:
        raise ExploreError(f"{d}: cannot make the folder ({exc.strerror or exc})") from None
    summaries: list[SessionSummary] = []
    todo = []
    for i in range(1, sessions + 1):
        kept = _finished(d, seed, i) if resumed else None
        if kept is not None:
            summaries.append(kept)
        else:
            todo.append(i)
            if session_folder(d, i).exists():       # a session cut short: played again
                shutil.rmtree(session_folder(d, i))

    def done(i: int, result: ExploreResult) -> None:
        """Write a finished session's folder: beside it first, then renamed into place."""
        folder = session_folder(d, result.summary.session)
        part = folder.with_name(f".{folder.name}.part")
        for old in (part, folder):
            if old.exists():
                shutil.rmtree(old)
        part.mkdir()
        for name, data in result.files.items():
            atomic_write(part / name, lambda f, data=data: f.write(data), binary=True)
        os.replace(part, folder)
        summaries.append(result.summary)
        if on_session is not None:
            on_session(result.summary)

    job_args = [(spec, i, seed, dict(options)) for i in todo]
    try:
        if spec.target == "real":
            # one tower, one session at a time, its capture streamed into the folder itself
            # (crash-safe, rig.record.record_session)
            for _, i, _, opts in job_args:
                folder = session_folder(d, i)
                if folder.exists():
                    shutil.rmtree(folder)
                summaries.append(play_session(spec, session_seed(seed, i), folder,
                                              session=i, **opts))
                if on_session is not None:
                    on_session(summaries[-1])
        else:
            run_jobs(explore_job, job_args, workers=jobs, scheduler=scheduler,
                     on_result=done, progress=progress, label="explore", hook=hook)
    except BaseException as exc:
        if created and not any(p.name != PLAN for p in d.iterdir()):
            _clear(d)                               # leave no empty folder behind
            d.rmdir()
        elif isinstance(exc, KeyboardInterrupt) and not str(exc):
            from rig.errors import Interrupted
            raise Interrupted(f"interrupted: {len(summaries)} of {sessions} sessions "
                              f"recorded in {d}; the same command resumes the batch") from None
        raise
    text = summary_table(summaries)
    atomic_write(d / "summary.txt", lambda f: f.write(text), binary=False)
    return sorted(summaries, key=lambda s: s.session)
