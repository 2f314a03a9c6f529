"""Record the requests for recordings of the genuine tower (``experiments/requests/``) as the
lab does, on any tower the rig drives: a real one through the button box and analyser, the
emulator on a romset the user brought, or the clean-room game.

A request (DEVELOPERS.md, "Asking the tower") is a file ``NAME.txt`` that begins with a
``# Question:`` line and holds either a script in the corpus format (with a ``# run length``
line, every action on a 1/60 s frame) or one line ``explore OPTIONS``.  Its recording goes
into ``RECORDINGS/NAME/``, the layout of the shared experiments folder: a script's session
there itself (``script.txt``, ``events.jsonl``, ``edges.jsonl.gz`` when the tower has pins,
and our ``recording.json``), an explore's sessions below it (``session_NNNN/``), and last
``request.txt``, a copy of the request.  ``request.txt`` marks the recording whole: a folder
without it is what a fault (an unplugged probe) or a crash left, kept and set aside as
``NAME.incomplete`` (``-2``, ``-3``, ...) when the request is recorded again.

Example::

    for req in find_requests("experiments/requests", ["l4_second_move_k0*"]):
        if request_status(req, "exp") != RECORDED:
            record_script_request(req, TargetSpec("emu", romset="mbdtower.zip"), "exp")
"""
from __future__ import annotations

import fnmatch
import os
import shlex
from dataclasses import dataclass
from pathlib import Path

from captures.script import Power, Press, Script, ScriptError, parse_script, power_ons
from rig.errors import RigError

__all__ = ["Request", "RequestError", "read_request", "request_problems", "find_requests",
           "request_status", "request_folder", "set_aside", "record_script_request",
           "pins_as_edges", "finish_request", "RECORDED", "CHANGED", "INCOMPLETE", "NOT_RECORDED",
           "Prediction", "count_predictions", "write_predictions", "read_predictions", "Scored",
           "score_predictions"]

QUESTION = "# Question:"
FRAME_S = 1 / 60
PHASE_S = 0.05          # a game's power-on on a multiple of 3 frames: the first one's clock phase
RECORDED, CHANGED, INCOMPLETE, NOT_RECORDED = ("recorded", "changed since recorded",
                                               "incomplete", "not recorded")


class RequestError(RigError):
    """A request file is not one the lab can run; the message names the file."""


@dataclass(frozen=True)
class Request:
    """One request: its name, file, text, the question it answers and what it plays
    (``script`` for a script request, ``explore`` the options of an explore request)."""
    name: str
    path: Path
    text: str
    question: str
    script: Script | None = None
    explore: tuple[str, ...] | None = None

    @property
    def kind(self) -> str:
        """'script' or 'explore'."""
        return "explore" if self.explore is not None else "script"

    def games(self) -> int:
        """The games a script request plays (one per power-on, the first at 0 s)."""
        if self.script is None:
            return 0
        return 1 + sum(1 for a in self.script.actions if isinstance(a, Power) and a.on)


def _body(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip() and not line.lstrip()
            .startswith("#")]


def read_request(path: str | os.PathLike) -> Request:
    """Read a request file; raise RequestError naming the file and what was expected."""
    p = Path(path)
    if p.suffix != ".txt" or not p.stem.replace("_", "").isalnum():
        raise RequestError(f"{p}: a request is NAME.txt, NAME of letters, digits and '_'")
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise RequestError(f"{p}: not UTF-8 text") from None
    except OSError as exc:
        raise RequestError(f"{p}: cannot read the request ({exc.strerror or exc})") from None
    lines = text.splitlines()
    if not lines or not lines[0].startswith(QUESTION):
        raise RequestError(f"{p}: the first line must be '{QUESTION} ...' (what the "
                           f"recording answers)")
    question = lines[0][len(QUESTION):].strip()
    body = _body(text)
    if len(body) == 1 and body[0].split()[0] == "explore":
        try:
            words = tuple(shlex.split(body[0])[1:])
        except ValueError as exc:
            raise RequestError(f"{p}: the explore line does not parse ({exc})") from None
        if any(w == "--target" or w.startswith("--target=") for w in words):
            raise RequestError(f"{p}: an explore request takes every option but --target "
                               f"(the lab chooses the tower)")
        return Request(p.stem, p, text, question, explore=words)
    try:
        script = parse_script(text, str(p))
    except ScriptError as exc:
        raise RequestError(str(exc)) from None
    return Request(p.stem, p, text, question, script=script)


def request_problems(req: Request) -> list[str]:
    """What keeps a script request from being run as the lab runs it, one line each: no
    run length, no press, an action off the 1/60 s frames or after the run's end, a game
    that does not begin in the first one's clock phase (power-on on a multiple of 0.05 s)."""
    script = req.script
    if script is None:
        return []
    where = req.path
    out = []
    if script.length is None:
        out.append(f"{where}: no '# run length: S s' line")
    if not any(isinstance(a, Press) for a in script.actions):
        out.append(f"{where}: no key press")
    for a in script.actions:
        frames = a.t / FRAME_S
        if abs(frames - round(frames)) > 1e-3:
            out.append(f"{where}: {a.t} s is not on a 1/60 s frame (the tower's inputs are)")
        if script.length is not None and a.t > script.length:
            out.append(f"{where}: {a.t} s is after the run's end ({script.length} s)")
        if isinstance(a, Power) and a.on and abs(a.t / PHASE_S - round(a.t / PHASE_S)) > 1e-6:
            out.append(f"{where}: power on at {a.t} s is not on a multiple of {PHASE_S} s")
    return out


def find_requests(folder: str | os.PathLike, patterns: list[str] | None = None,
                  errors: list[str] | None = None) -> list[Request]:
    """Read the requests of ``folder``: all, by name, or those whose names match
    ``patterns`` (shell-style: ``l4_second_move_k0*``), in the patterns' order, each
    pattern's by name; a pattern that names none is an error.  A request that does not
    read raises RequestError, or with ``errors`` is left out and its message added there."""
    d = Path(folder)
    if not d.is_dir():
        raise RequestError(f"{d}: not a folder of requests (expected experiments/requests)")
    paths = sorted(d.glob("*.txt"))
    if not paths:
        raise RequestError(f"{d}: holds no request (NAME.txt files)")
    if patterns:
        chosen: dict[str, Path] = {}
        for pat in patterns:
            hits = [p for p in paths if fnmatch.fnmatchcase(p.stem, pat)]
            if not hits:
                raise RequestError(f"{pat!r}: names no request in {d} (expected a request's "
                                   f"name, or a pattern such as 'l4_second_move_k0*')")
            chosen.update((p.stem, p) for p in hits if p.stem not in chosen)
        paths = list(chosen.values())
    out = []
    for p in paths:
        try:
            out.append(read_request(p))
        except RequestError as exc:
            if errors is None:
                raise
            errors.append(str(exc))
    return out


def request_folder(req: Request, recordings: str | os.PathLike) -> Path:
    """Where the recording of ``req`` goes: ``RECORDINGS/NAME``."""
    return Path(recordings) / req.name


def request_status(req: Request, recordings: str | os.PathLike) -> str:
    """RECORDED (its request.txt is the request's text), CHANGED (recorded from an older
    text of the request), INCOMPLETE (a folder without request.txt) or NOT_RECORDED."""
    d = request_folder(req, recordings)
    marker = d / "request.txt"
    if marker.is_file():
        return RECORDED if marker.read_text(encoding="utf-8") == req.text else CHANGED
    return INCOMPLETE if d.exists() else NOT_RECORDED


def set_aside(folder: Path, why: str = "incomplete") -> Path:
    """Rename a recording out of the way (``NAME.incomplete``, then ``-2``, ...; ``why`` the
    suffix) and return its new place: what it holds stays readable."""
    n = 1
    while True:
        dest = folder.with_name(f"{folder.name}.{why}" + (f"-{n}" if n > 1 else ""))
        if not dest.exists():
            folder.rename(dest)
            return dest
        n += 1


def record_script_request(req: Request, spec, recordings: str | os.PathLike,
                          progress=None, inject=None):
    """Record a script request on the tower of ``spec`` (``rig.specs.TargetSpec``) into
    ``RECORDINGS/NAME`` and mark it whole; return the ``rig.recording.Recording``.

    The pins, when the tower has them, are kept as ``edges.jsonl.gz`` (the lab's pin log,
    its header naming the ROM and the request).  A rig fault leaves the folder as recorded
    up to the fault, without request.txt, and is raised.  ``progress`` and ``inject`` are
    ``rig.record.record``'s."""
    from rig.record import record
    from rig.recording import load_recording

    if req.script is None:
        raise RequestError(f"{req.path}: an explore request, not a script (record it with "
                           f"towerlab explore)")
    d = request_folder(req, recordings)
    record(str(req.path), spec, d, progress=progress, inject=inject)
    pins_as_edges(d, spec, req.name)
    finish_request(req, d)
    return load_recording(d)


def pins_as_edges(d: Path, spec, name: str) -> None:
    """Turn the recording's capture.tlc into edges.jsonl.gz (written whole, then the .tlc
    removed), its header naming the request and the ROM: the lab's pin log, which the draw
    readers (analysis/draws.py) read.  Nothing to do for a tower without pins."""
    from captures.files import atomic_write
    from captures.formats import open_capture
    from captures.edges import write_edges
    from rig.recording import target_rom_sha1

    tlc = d / "capture.tlc"
    if not tlc.exists():
        return
    cap = open_capture(tlc)
    cap.info.meta.update({"script": name, "source": f"towerlab requests record on "
                                                        f"{spec.target}"})
    rom = target_rom_sha1(spec)
    if rom:
        cap.info.meta["rom_sha1"] = rom
    atomic_write(d / "edges.jsonl.gz", lambda f: write_edges(cap, f))
    tlc.unlink()


def finish_request(req: Request, folder: Path) -> None:
    """Mark a recording whole: write request.txt, the request's text, last."""
    from captures.files import atomic_write

    atomic_write(folder / "request.txt", lambda f: f.write(req.text), binary=False)


@dataclass(frozen=True)
class Prediction:
    """What the ``count`` draw model (cleanroom/count.py) says of a request's level-4 game
    before the recording comes back: the game's first MOVE (``game``: the script's
    power-on it follows, from 0 for the one at 0 s; ``take_s`` the tower time of the key
    that takes it, ``passes`` the key-loop passes since the tower test's key) and its
    outcome."""
    request: str
    game: int
    take_s: float
    passes: int
    predicted: str


PREDICTION_COLUMNS = ("request", "game", "move_take_s", "passes_since_tower_test", "predicted")


def count_predictions(reqs: list[Request]) -> list[Prediction]:
    """The count model's outcome for the first MOVE of every level-4 game the script
    requests play (the clean-room game replays each script for the passes)."""
    from cleanroom.predict import level4_moves

    return [Prediction(r.name, m.game, round(m.t, 6), m.passes, m.predicted)
            for r in reqs if r.script is not None
            for m in level4_moves(r.script) if m.predicted is not None]


def write_predictions(preds: list[Prediction], f, header: list[str]) -> None:
    """Write ``preds`` as tab-separated lines under ``#`` lines of ``header``."""
    for line in header:
        f.write(f"# {line}\n")
    f.write("\t".join(PREDICTION_COLUMNS) + "\n")
    for p in preds:
        f.write(f"{p.request}\t{p.game}\t{p.take_s:.6f}\t{p.passes}\t{p.predicted}\n")


def read_predictions(path: str | os.PathLike) -> list[Prediction]:
    """Read a file ``write_predictions`` wrote; RequestError names the file and line."""
    from cleanroom.count import MOVE_PICTURES

    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise RequestError(f"{path}: cannot read the predictions ({exc.strerror or exc})"
                           ) from None
    except UnicodeDecodeError:
        raise RequestError(f"{path}: not UTF-8 text (expected the predictions' tab-separated "
                           f"lines)") from None
    out = []
    for i, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#") or line.split("\t") == list(
                PREDICTION_COLUMNS):
            continue
        cols = line.split("\t")
        try:
            if len(cols) != len(PREDICTION_COLUMNS) or cols[4] not in MOVE_PICTURES:
                raise ValueError
            out.append(Prediction(cols[0], int(cols[1]), float(cols[2]), int(cols[3]),
                                  cols[4]))
        except ValueError:
            raise RequestError(f"{path}:{i}: expected {len(PREDICTION_COLUMNS)} tab-separated "
                               f"columns ({' '.join(PREDICTION_COLUMNS)}), the outcome one "
                               f"of {', '.join(MOVE_PICTURES)}; got {line!r}") from None
    return out


@dataclass(frozen=True)
class Scored:
    """A prediction against its recording: ``shown`` the outcome the genuine tower showed
    (the count model's names), None when the request is not recorded or the game's MOVE was
    not taken by a key scan (``why`` says which)."""
    prediction: Prediction
    shown: str | None
    why: str = ""

    @property
    def right(self) -> bool:
        return self.shown == self.prediction.predicted


def score_predictions(preds: list[Prediction], recordings: str | os.PathLike
                      ) -> list[Scored]:
    """Read each predicted game's first MOVE in ``RECORDINGS/REQUEST`` (the lab's layout,
    or one session folder inside it): the first picture lit after the game's first MOVE
    press, as a sweep reads it (analysis.draws; games in the order of the script's
    power-ons)."""
    from analysis.draws import SweepError, read_sweep
    from captures.events import recording_events_file
    from captures.script import read_script
    from cleanroom.count import MOVE_PICTURES

    names = {v: k for k, v in MOVE_PICTURES.items()}
    by_request: dict[str, list[Prediction]] = {}
    for p in preds:
        by_request.setdefault(p.request, []).append(p)
    out = []
    for name, rows in by_request.items():
        events = recording_events_file(str(Path(recordings) / name))
        if events is None:
            out += [Scored(p, None, "not recorded") for p in rows]
            continue
        folder = os.path.dirname(events)
        script = read_script(os.path.join(folder, "script.txt"))
        ons = power_ons(script) + [float("inf")]
        runs_at: dict[int, list] = {}       # the runs a press number reads, read once
        for p in rows:
            # the game's presses from its power-on: the last MOVE pressed before the key
            # that took it is the one predicted (a sweep reads a run per power-on, its
            # press by that number)
            presses = [a for a in script.actions if isinstance(a, Press)
                       and ons[p.game] <= a.t < ons[p.game + 1]]
            index = max((i for i, a in enumerate(presses) if a.button == "MOVE"
                         and a.t <= p.take_s + 1e-6), default=None)
            try:
                if index is not None and index not in runs_at:
                    runs_at[index] = read_sweep([folder], index).runs
            except SweepError as exc:
                out.append(Scored(p, None, f"unreadable ({exc})"))
                continue
            runs = runs_at.get(index, [])
            run = runs[p.game] if p.game < len(runs) else None
            if run is None or run.click is None:
                out.append(Scored(p, None, "its MOVE taken by no key scan"))
            else:
                out.append(Scored(p, names.get(run.outcome, run.outcome)))
    return out
