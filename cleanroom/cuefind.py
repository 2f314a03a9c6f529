"""Find the sound cues in recordings: group tones into runs, cluster equal runs, check a catalogue.

A recording's ``tone`` events (captures.events; a tone is a square-wave run on R10, a click has
``freq_hz`` None) are cut into *runs*: notes that follow each other with at most ``RUN_GAP_S``
of silence between one note's end and the next note's start.  The key click (431.9 Hz, 2
pulses, sounded 26-50 ms after the chip sees a key) is always a run of its own, even when the
tune the key starts follows it within a few milliseconds, because it belongs to the key and
not to the tune.

Each note of a run is ``(freq_hz, dur_s, gap_after_s)``: ``gap_after_s`` is the time from the
note's end to the next note's start (0.0 after the last note).  It is kept as the decoder
reports it: a legato seam (the one period the decoder drops between two notes) shows as a gap of
about one period, and a gap is negative where the decoder's note length (pulses over frequency)
runs past the next note's first rise, as in the tomb's falling sweep.  A click (a lone rise)
has ``freq_hz`` None and ``dur_s`` 0.0.

Two runs are the same cue (``same_notes``) when they have as many notes, each pair has the same
kind (tone or click), frequencies within 1 % and durations and gaps within 1/60 s.  ``cluster``
groups equal runs over many recordings (how the catalogue in cleanroom.cues was found);
given that catalogue, ``tone_runs`` names each run, ``unmatched`` lists the recorded runs that
are no catalogue cue and ``count_cues`` counts each cue per recording.

Every run carries its context (``Context``): the last key pressed before it and how long
before, what the display showed as it began and the next text after it, the reel's card and
the lamps lit as it began.  The catalogue's "when it plays" is read from these.

Example::

    >>> runs = tone_runs(read_events(open("tests/data/corpus/l1_p1_s01/events.jsonl")))
    >>> runs[1].notes
    ((737.8, 0.0447, 0.0),)
    >>> runs[1].context.lamps, runs[1].context.display
    (('upper',), '88')
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from captures.events import read_events

__all__ = ["RUN_GAP_S", "CLICK_HZ", "FREQ_FRAC", "TIME_S", "Note", "Context", "Run",
           "Cluster", "is_key_click", "tone_runs", "same_notes", "cluster", "match",
           "read_runs", "unmatched", "count_cues", "CueFindError"]

RUN_GAP_S = 0.35
"""Longest silence inside one cue, seconds.  Over the 34 recordings the silences between the
notes of a tune are at most 0.25 s (the pause in the Dark Tower tune); the shortest silence
between a cue and the next sound that is not the key click is 0.39 s."""

CLICK_HZ = 431.9
"""The key click's frequency, Hz (2 pulses, 4.6 ms; every recording)."""

FREQ_FRAC = 0.01
"""Two notes are the same pitch when their frequencies differ by at most 1 %."""

TIME_S = 1 / 60
"""Two notes are the same length (and two gaps the same) within one 1/60 s frame, seconds."""

Note = tuple  # (freq_hz | None, dur_s, gap_after_s)


class CueFindError(ValueError):
    """A recording folder cannot be read; the message names it and what was expected."""


@dataclass(frozen=True)
class Context:
    """What surrounded a run: key, display, reel card and lamps (times in seconds)."""
    button: str | None          # last key pressed before the run
    since_button_s: float | None  # from that press to the run's start
    display: str | None         # text shown as the run began
    display_after: str | None   # first different text shown after the run's start
    card: int | None            # reel card_pos as the run began
    lamps: tuple[str, ...]      # lamps lit as the run began (upper, middle, lower order)


@dataclass(frozen=True)
class Run:
    """One run of tones in one recording: start time (s), notes, context."""
    session: str
    t: float
    notes: tuple[Note, ...]
    context: Context
    name: str | None = None     # the catalogue cue it is, when cut with a catalogue

    @property
    def length(self) -> float:
        """Return the run's length from its first note's start to its last note's end, s."""
        return sum(d + g for _, d, g in self.notes)


@dataclass
class Cluster:
    """Equal runs over several recordings: the first one found stands for all."""
    runs: list[Run] = field(default_factory=list)

    @property
    def notes(self) -> tuple[Note, ...]:
        """Return the notes of the cluster's first run."""
        return self.runs[0].notes

    def sessions(self) -> dict[str, int]:
        """Return how many runs each recording has in this cluster."""
        out: dict[str, int] = {}
        for r in self.runs:
            out[r.session] = out.get(r.session, 0) + 1
        return out


def is_key_click(ev: Mapping) -> bool:
    """Return True for the key click: 431.9 Hz within 1 %, 2 pulses (under 10 ms)."""
    f = ev.get("freq_hz")
    return f is not None and abs(f - CLICK_HZ) <= FREQ_FRAC * CLICK_HZ and ev["dur_s"] < 0.010


_LAMP_ORDER = ("upper", "middle", "lower")
_LAMP_LEAD_S = 0.005    # a cue tied to a picture starts 0.4-2 ms after its lamp
_COAST_S = 0.2          # the reel coasts about 135 ms into the card's window after the motor


def tone_runs(events: Iterable[Mapping], session: str = "", gap_s: float = RUN_GAP_S,
              catalogue: Mapping[str, Sequence[Sequence[Note]]] | None = None) -> list[Run]:
    """Cut a recording's tone events into runs (see the module docstring) with their context.

    ``gap_s`` is the longest silence inside a run, seconds.  With a ``catalogue`` (cue name ->
    the note lists the cue is recorded as), each run is further cut into the catalogue's cues
    from left to right, the longest cue that fits first (a tomb's creak is followed within
    0.1 s by the battle horn or a picture's beep); the pieces carry the cue's name, and what
    is left of a run when no cue fits is one run named None.
    """
    evs = sorted(events, key=lambda e: e["t"])
    groups: list[list[Mapping]] = []
    last_end = None
    for e in evs:
        if e["type"] != "tone":
            continue
        end = e["t"] + e["dur_s"]
        if is_key_click(e):
            groups.append([e])
            last_end = None
            continue
        if last_end is None or e["t"] - last_end > gap_s + 1e-9:
            groups.append([])
        groups[-1].append(e)
        last_end = end
    pieces: list[tuple[str | None, list[Mapping]]] = []
    for g in groups:
        if catalogue is None:
            pieces.append((None, g))
            continue
        notes = _notes(g)
        i = 0
        while i < len(g):
            best = None
            for name, forms in catalogue.items():
                for form in forms:
                    n = len(form)
                    if n <= len(g) - i and (best is None or n > best[1]) and \
                            same_notes(form, notes[i:i + n]):
                        best = (name, n)
            if best is None:
                pieces.append((None, g[i:]))
                break
            pieces.append((best[0], g[i:i + best[1]]))
            i += best[1]
    ctx = _Contexts(evs)
    return [Run(session, round(float(g[0]["t"]), 6), _notes(g), ctx.at(g[0]["t"]), name)
            for name, g in pieces]


def _notes(tones: Sequence[Mapping]) -> tuple[Note, ...]:
    """Return ``(freq_hz, dur_s, gap_after_s)`` per tone; offsets are rounded to 0.1 ms first so
    that summing durations and gaps gives each note's offset back exactly."""
    t0 = tones[0]["t"]
    offs = [round(e["t"] - t0, 4) for e in tones]
    out = []
    for k, e in enumerate(tones):
        dur = round(float(e["dur_s"]), 4)
        gap = 0.0 if k == len(tones) - 1 else round(offs[k + 1] - offs[k] - dur, 4)
        out.append((e["freq_hz"], dur, gap))
    return tuple(out)


class _Contexts:
    """Sweep a recording's events once, in time order, answering ``at(t)`` for rising t."""

    def __init__(self, evs: Sequence[Mapping]):
        self.evs = evs
        self.i = 0
        self.button: str | None = None
        self.button_t = 0.0
        self.display: str | None = None
        self.card: int | None = None
        self.lamps = {n: 0 for n in _LAMP_ORDER}

    def at(self, t0: float) -> Context:
        evs = self.evs
        while self.i < len(evs):
            e = evs[self.i]
            kind = e["type"]
            if e["t"] > t0:
                break
            if kind == "button" and e.get("action") == "press":
                self.button, self.button_t = e["button"], e["t"]
            elif kind == "display":
                self.display = e["text"]
            elif kind == "lamp":
                self.lamps[e["lamp"]] = int(e["on"])
            elif kind == "reel":
                self.card = int(e["card_pos"])
            self.i += 1
        lamps = dict(self.lamps)
        card = self.card
        after = None
        for e in evs[self.i:]:
            if e["t"] <= t0 + _LAMP_LEAD_S:       # the lamp a cue belongs to leads it a little
                if e["type"] == "lamp":
                    lamps[e["lamp"]] = int(e["on"])
            if e["t"] <= t0 + _COAST_S and e["type"] == "reel":
                card = int(e["card_pos"])
            elif after is not None and e["t"] > t0 + _COAST_S:
                break
            if after is None and e["type"] == "display" and e["text"] != self.display:
                after = e["text"]
        since = None if self.button is None else round(t0 - self.button_t, 4)
        return Context(self.button, since, self.display, after, card,
                       tuple(n for n in _LAMP_ORDER if lamps[n]))


def _same_note(a: Note, b: Note, freq_frac: float, time_s: float, last: bool) -> bool:
    fa, da, ga = a
    fb, db, gb = b
    if (fa is None) != (fb is None):
        return False
    if fa is not None and abs(fa - fb) > freq_frac * max(fa, fb):
        return False
    if abs(da - db) > time_s + 1e-9:
        return False
    return last or abs(ga - gb) <= time_s + 1e-9


def same_notes(a: Sequence[Note], b: Sequence[Note], freq_frac: float = FREQ_FRAC,
               time_s: float = TIME_S) -> bool:
    """Return True when two note lists are the same cue: as many notes, each the same kind
    (tone or click), frequency within ``freq_frac``, duration and gap within ``time_s`` s (the
    gap after the last note is not compared: it is whatever follows the cue)."""
    if len(a) != len(b):
        return False
    n = len(a)
    return all(_same_note(x, y, freq_frac, time_s, i == n - 1)
               for i, (x, y) in enumerate(zip(a, b)))


def cluster(runs: Iterable[Run]) -> list[Cluster]:
    """Group equal runs (``same_notes`` against each cluster's first run), in order of first
    appearance."""
    out: list[Cluster] = []
    for r in runs:
        for c in out:
            if same_notes(c.notes, r.notes):
                c.runs.append(r)
                break
        else:
            out.append(Cluster([r]))
    return out


def match(run: Run, catalogue: Mapping[str, Sequence[Sequence[Note]]]) -> str | None:
    """Return the name of the catalogue cue one of whose note lists equals ``run``'s, or None."""
    for name, forms in catalogue.items():
        if any(same_notes(form, run.notes) for form in forms):
            return name
    return None


def read_runs(folders: Iterable[str],
              catalogue: Mapping[str, Sequence[Sequence[Note]]] | None = None) -> list[Run]:
    """Read ``events.jsonl`` of each recording folder and return its runs (cut into the
    ``catalogue``'s cues when one is given, see ``tone_runs``), in order."""
    runs: list[Run] = []
    for folder in folders:
        path = os.path.join(folder, "events.jsonl")
        if not os.path.isfile(path):
            raise CueFindError(f"{folder}: no events.jsonl (expected a recording folder)")
        with open(path) as f:
            runs += tone_runs(read_events(f), session=os.path.basename(os.path.normpath(folder)),
                              catalogue=catalogue)
    return runs


def unmatched(runs: Iterable[Run]) -> list[Run]:
    """Return the runs that ``tone_runs`` could not name with its catalogue."""
    return [r for r in runs if r.name is None]


def count_cues(runs: Iterable[Run]) -> dict[str, dict[str, int]]:
    """Return cue name -> recording -> how many times the named ``runs`` show it."""
    out: dict[str, dict[str, int]] = {}
    for r in runs:
        if r.name is not None:
            per = out.setdefault(r.name, {})
            per[r.session] = per.get(r.session, 0) + 1
    return out


def notes_literal(notes: Sequence[Note], indent: int = 8, per_line: int = 4) -> str:
    """Return ``notes`` as a Python tuple literal, ``per_line`` notes a line (the form
    cleanroom.cues keeps them in)."""
    def one(n: Note) -> str:
        f, d, g = n
        return f"({'None' if f is None else repr(float(f))}, {d!r}, {g!r})"
    pad = " " * indent
    lines = [", ".join(one(n) for n in notes[i:i + per_line])
             for i in range(0, len(notes), per_line)]
    return "(\n" + ",\n".join(pad + ln for ln in lines) + ",\n" + pad[:-4] + ")"
