"""Run a parser on many mutated inputs: each case opens cleanly or is refused in one line.

A :class:`Target` names a parser, the valid seed inputs our own writers make for it, how to
run it on one input and which error classes count as a clean refusal. :func:`run_target`
mutates the seeds deterministically (case ``i`` of seed ``s`` is always the same bytes) and
returns a :class:`Result`: how many cases opened, how many were refused, and every failure (any
other exception, an empty or multi-line message, a case that ran past its time limit), with
the input that caused it.

Example::

    result = run_target(TARGETS["pla"], cases=1000, workdir=Path("/tmp/f"))
    print(result.line())   # pla: 1000 cases, 312 opened, 688 refused, 0 failures (0.9 s)
"""
from __future__ import annotations

import gzip
import io
import random
import signal
import time
import traceback
import warnings
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

__all__ = ["Target", "Result", "Failure", "CaseTimeout", "run_target", "mutate_bytes",
           "mutate_text", "mutate_zip", "mutate_gzip"]

INTERESTING_BYTES = (0x00, 0x01, 0x7F, 0x80, 0xFF, 0x0A, 0x20, 0x2C, 0x3D, 0x23)
INTERESTING_INTS = (0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, 0x80000000,
                    0xFFFFFFFF)
INTERESTING_TOKENS = ("0", "-1", "1e308", "-0", "nan", "inf", "4294967296", "0x10", "",
                      "99999999999999999999", "1.5", "\t", "=", "#", ",", '"', "\\", "\x00")


class CaseTimeout(Exception):
    """One case ran past its time limit (a hang or a blow-up)."""


@dataclass(frozen=True)
class Target:
    """One parser under fuzzing.

    ``seeds(workdir)`` returns valid inputs (bytes) made by our writers; ``run(data, workdir)``
    parses one input completely and returns normally when it opened; ``errors`` are the
    exception classes of a clean refusal; ``mutate(rng, data, seeds)`` returns a mutated input.
    """
    name: str
    seeds: Callable[[Path], list[bytes]]
    run: Callable[[bytes, Path], object]
    errors: tuple[type, ...]
    mutate: Callable[[random.Random, bytes, list[bytes]], bytes] = None  # default mutate_bytes

    def mutated(self, rng: random.Random, data: bytes, seeds: list[bytes]) -> bytes:
        """Return one mutated input (the target's own mutator, else byte edits)."""
        return (self.mutate or mutate_bytes)(rng, data, seeds)


@dataclass(frozen=True)
class Failure:
    """A case that neither opened nor was refused cleanly."""
    case: int
    error: str
    data: bytes


@dataclass
class Result:
    """What one target's run gave: counts per outcome, failures, wall seconds."""
    name: str
    cases: int = 0
    opened: int = 0
    refused: int = 0
    failures: list[Failure] = field(default_factory=list)
    seconds: float = 0.0

    def line(self) -> str:
        """Return the one-line report, e.g. ``pla: 1000 cases, 312 opened, 688 refused, 0
        failures (0.9 s)``."""
        return (f"{self.name}: {self.cases} cases, {self.opened} opened, {self.refused} "
                f"refused, {len(self.failures)} failures ({self.seconds:.1f} s)")


# --- mutators ------------------------------------------------------------------------------

def mutate_bytes(rng: random.Random, data: bytes, seeds: list[bytes]) -> bytes:
    """Apply 1-4 byte edits: flip a bit, set an interesting byte or 4-byte number, insert,
    delete, duplicate a chunk, splice in part of another seed, truncate."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        pos = rng.randrange(len(out)) if out else 0
        op = rng.randrange(9)
        if op == 0 and out:
            out[pos] ^= 1 << rng.randrange(8)
        elif op == 1 and out:
            out[pos] = rng.choice(INTERESTING_BYTES)
        elif op == 2 and out:
            out[pos] = rng.randrange(256)
        elif op == 3 and len(out) >= 4:
            pos = min(pos, len(out) - 4)
            out[pos:pos + 4] = rng.choice(INTERESTING_INTS).to_bytes(4, rng.choice(("little",
                                                                                     "big")))
        elif op == 4:
            out[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
        elif op == 5:
            del out[pos:pos + rng.randint(1, 16)]
        elif op == 6 and out:
            n = rng.randint(1, 64)
            out[pos:pos] = out[pos:pos + n]
        elif op == 7:
            other = rng.choice(seeds)
            if other:
                a = rng.randrange(len(other))
                out[pos:pos + rng.randint(0, 32)] = other[a:a + rng.randint(1, 64)]
        elif op == 8:
            del out[pos:]
    return bytes(out)


def mutate_text(rng: random.Random, data: bytes, seeds: list[bytes]) -> bytes:
    """Apply line and token edits (delete, duplicate, swap or borrow a line, replace a token
    with an interesting one) or, one time in four, byte edits."""
    if rng.random() < 0.25:
        return mutate_bytes(rng, data, seeds)
    lines = data.split(b"\n")
    for _ in range(rng.randint(1, 3)):
        if not lines:
            lines = [b""]
        i = rng.randrange(len(lines))
        op = rng.randrange(6)
        if op == 0:
            del lines[i]
        elif op == 1:
            lines.insert(i, lines[i])
        elif op == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 3:
            other = rng.choice(seeds).split(b"\n")
            lines.insert(i, rng.choice(other))
        else:
            tokens = lines[i].split(b" ")
            k = rng.randrange(len(tokens))
            if op == 4:
                tokens[k] = rng.choice(INTERESTING_TOKENS).encode()
            else:
                other = rng.choice(rng.choice(seeds).split(b"\n")).split(b" ")
                tokens[k] = rng.choice(other)
            lines[i] = b" ".join(tokens)
    return b"\n".join(lines)


def mutate_zip(rng: random.Random, data: bytes, seeds: list[bytes],
               inner: Callable = mutate_bytes) -> bytes:
    """Half the time mutate the zip's bytes; else mutate one member (its content with
    ``inner``, or its name), drop or duplicate one, and write a valid zip again, so the
    parsers behind the zip's CRCs are fuzzed too."""
    if rng.random() < 0.5:
        return mutate_bytes(rng, data, seeds)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            members = [(i.filename, zf.read(i)) for i in zf.infolist()]
    except Exception:                           # noqa: BLE001 (a seed mutated earlier)
        return mutate_bytes(rng, data, seeds)
    if members:
        k = rng.randrange(len(members))
        name, content = members[k]
        op = rng.randrange(6)
        if op <= 2:
            members[k] = (name, inner(rng, content, [m[1] for m in members]))
        elif op == 3:
            members[k] = (rng.choice(["", "x", name + "~", name.upper(), "a/" + name, name[:-1]
                                      or "y"]), content)
        elif op == 4:
            del members[k]
        else:
            members.append((name if rng.random() < 0.5 else name + "2", content))
    out = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)        # duplicate names are the point
        with zipfile.ZipFile(out, "w", rng.choice((zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)),
                             compresslevel=1) as zf:
            for name, content in members:
                zf.writestr(name or "empty", content)
    return out.getvalue()


def mutate_gzip(rng: random.Random, data: bytes, seeds: list[bytes],
                inner: Callable = mutate_text) -> bytes:
    """Half the time mutate the gzip bytes; else mutate the text inside and compress again."""
    if rng.random() < 0.5:
        return mutate_bytes(rng, data, seeds)
    try:
        text = gzip.decompress(data)
    except Exception:                           # noqa: BLE001
        return mutate_bytes(rng, data, seeds)
    return gzip.compress(inner(rng, text, [text]), compresslevel=1)


# --- running -------------------------------------------------------------------------------

def _alarm(signum, frame):
    raise CaseTimeout()


def run_target(target: Target, cases: int, workdir: Path, seed: int = 0,
               case_timeout: float | None = None, progress: Callable[[int], None] | None = None,
               max_failures: int = 20) -> Result:
    """Run ``cases`` mutated inputs of ``target`` in ``workdir``; return the Result.

    Each seed is first run unmutated and must open (a failure otherwise). ``case_timeout``
    (seconds, main thread only, SIGALRM) fails a case that runs longer; ``progress(done)`` is
    called every 1,000 cases. Stops collecting failures after ``max_failures``.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    seeds = target.seeds(workdir)
    result = Result(target.name)
    t0 = time.perf_counter()
    old = signal.signal(signal.SIGALRM, _alarm) if case_timeout else None
    try:
        for s, data in enumerate(seeds):
            outcome = _one(target, data, workdir, case_timeout)
            if outcome != "opened":
                result.failures.append(Failure(-1 - s, f"seed {s} does not open: {outcome}",
                                               data))
        for i in range(cases):
            rng = random.Random(f"{target.name}:{seed}:{i}")
            data = target.mutated(rng, rng.choice(seeds), seeds)
            outcome = _one(target, data, workdir, case_timeout)
            result.cases += 1
            if outcome == "opened":
                result.opened += 1
            elif outcome == "refused":
                result.refused += 1
            elif len(result.failures) < max_failures:
                result.failures.append(Failure(i, outcome, data))
            if progress is not None and (i + 1) % 1000 == 0:
                progress(i + 1)
    finally:
        if case_timeout:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    result.seconds = time.perf_counter() - t0
    return result


def _one(target: Target, data: bytes, workdir: Path, case_timeout: float | None) -> str:
    """Return "opened", "refused" or a one-line description of the failure."""
    case_dir = workdir / "case"          # reused: each run overwrites or clears its files
    case_dir.mkdir(exist_ok=True)
    try:
        if case_timeout:
            signal.setitimer(signal.ITIMER_REAL, case_timeout)
        target.run(data, case_dir)
        return "opened"
    except target.errors as exc:
        msg = str(exc)
        if not msg.strip():
            return f"{type(exc).__name__} with an empty message"
        if "\n" in msg:
            return f"{type(exc).__name__} message has several lines: {msg[:200]!r}"
        return "refused"
    except CaseTimeout:
        return f"ran longer than {case_timeout:g} s"
    except Exception as exc:                    # noqa: BLE001 (the failure being hunted)
        where = traceback.extract_tb(exc.__traceback__)[-1]
        return (f"{type(exc).__name__}: {str(exc)[:200]} (at {Path(where.filename).name}:"
                f"{where.lineno})")
    finally:
        if case_timeout:
            signal.setitimer(signal.ITIMER_REAL, 0)
