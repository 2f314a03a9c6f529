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


def explore(spec, sessions: int, seed: int, out: str | os.PathLike, jobs: int = 1,
            scheduler: str | None = None, progress: bool = False,
            on_session: Callable[[SessionSummary], None] | None = None,
            hook=None, force: bool = False, **options) -> list[SessionSummary]:
    """Play ``sessions`` sessions on the target ``spec``, ``jobs`` at a time on local
    processes or on the Dask cluster at ``scheduler``; write ``out/session_NNNN/`` for each
    and ``out/summary.txt``; return the summaries in session order.

    ``out`` must be new or empty: an earlier explore's folder is refused (its sessions would
    stand beside the new summary) unless ``force``, which first removes its ``session_NNNN``
    folders and ``summary.txt`` (nothing else).

    ``on_session(summary)`` is called as each session finishes (in finishing order);
    ``hook`` is rig.batch's worker-start hook (tests use it to lose a worker).
    """
    from captures.files import atomic_write
    from rig.batch import run_jobs
    from rig.specs import validate_spec

    check_options(sessions, seed, **options)   # bad options fail before any work
    validate_spec(spec)
    if spec.target == "real" and (jobs > 1 or scheduler):
        raise ExploreError("a real tower plays one session at a time (no --jobs or "
                           "--scheduler with --target real)")
    d = Path(out)
    if d.exists() and not d.is_dir():
        raise ExploreError(f"{d}: exists and is not a folder (expected the folder for the "
                           f"session recordings)")
    if d.is_dir() and any(d.iterdir()):
        if not (d / "summary.txt").exists():
            raise ExploreError(f"{d}: not empty and not an explore folder (expected a new or "
                               f"empty folder)")
        if not force:
            raise ExploreError(f"{d}: holds an earlier explore (summary.txt and its sessions); "
                               f"give a new folder, or --force to replace them")
        for old in d.iterdir():
            if old.is_dir() and re.fullmatch(r"session_\d{4,}", old.name):
                shutil.rmtree(old)
        (d / "summary.txt").unlink()
    created = not d.exists()
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ExploreError(f"{d}: cannot make the folder ({exc.strerror or exc})") from None
    summaries: list[SessionSummary] = []

    def done(i: int, result: ExploreResult) -> None:
        """Write a finished session's folder (atomically, file by file)."""
        folder = session_folder(d, result.summary.session)
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir()
        for name, data in result.files.items():
            atomic_write(folder / name, lambda f, data=data: f.write(data), binary=True)
        summaries.append(result.summary)
        if on_session is not None:
            on_session(result.summary)

    job_args = [(spec, i, seed, dict(options)) for i in range(1, sessions + 1)]
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
    except BaseException:
        if created and not any(d.iterdir()):      # leave no empty folder behind
            d.rmdir()
        raise
    text = summary_table(summaries)
    atomic_write(d / "summary.txt", lambda f: f.write(text), binary=False)
    return sorted(summaries, key=lambda s: s.session)
