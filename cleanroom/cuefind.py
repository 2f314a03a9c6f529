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
before, the key click's and the picture lamp's lead over it, what the display showed as it
began and the next text after it, the reel's card and the lamps lit as it began, and the first
display, lamp or motor change after it.  The catalogue's "when it plays" is read from these,
``lead_times`` measures the typical leads and ``report`` prints all of it per cue (``towerlab
conform --cues DIR...``).

Example::

    >>> runs = tone_runs(read_events(open("tests/data/corpus/l1_p1_s01/events.jsonl")))
    >>> runs[1].notes
    ((737.8, 0.0447, 0.0),)
    >>> runs[1].context.lamps, runs[1].context.display_after
    (('upper',), '88')
"""
from __future__ import annotations

import os
import statistics
from dataclasses import dataclass, field, replace
from typing import Iterable, Mapping, Sequence

from captures.events import read_events

from .reel import CARDS

__all__ = ["RUN_GAP_S", "CLICK_HZ", "FREQ_FRAC", "TIME_S", "Note", "Context", "Run",
           "Cluster", "is_key_click", "tone_runs", "same_notes", "cluster", "match",
           "read_runs", "unmatched", "count_cues", "count_forms", "notes_literal", "report",
           "lead_times", "MIN_LEAD_SHARE", "CueFindError"]

RUN_GAP_S = 0.35
"""Longest silence inside one run, seconds.  Over the 34 recordings the silences between the
notes of a tune are at most 0.25 s (the pause in the Dark Tower tune); the shortest silence
between a cue and the next sound is 0.39 s, except after the key click (split off anyway) and
after the tomb's creak, which the next cue follows 0.1 s later (cut apart by the catalogue)."""

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
    card: int | None            # reel card_pos once settled (reported up to 0.2 s after the
                                # start: the reel coasts into the window after the motor stops)
    lamps: tuple[str, ...]      # lamps lit as the run began (upper, middle, lower order)
    then: str | None = None     # the first display, lamp or motor change after the run ends
    then_s: float | None = None  # from the run's end to that change
    since_lamp_s: float | None = None   # from a lamp lighting (at most 5 ms before) to the start
    since_click_s: float | None = None  # from the key click's start (at most 0.1 s before)

    @property
    def picture(self) -> str | None:
        """Return the picture lit as the run began (one lamp on a card), or None."""
        if len(self.lamps) != 1 or self.card is None:
            return None
        return CARDS.get((self.card, self.lamps[0]))


@dataclass(frozen=True)
class Run:
    """One run of tones in one recording: start time (s), notes, context."""
    session: str
    t: float
    notes: tuple[Note, ...]
    context: Context
    name: str | None = None     # the catalogue cue it is, when cut with a catalogue
    form: int = 0               # which of the cue's recorded forms (0 = its main notes)

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
_CLICK_LEAD_S = 0.1     # a key's cue starts 2-20 ms after the key click
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
    pieces: list[tuple[str | None, int, list[Mapping]]] = []
    for g in groups:
        if catalogue is None:
            pieces.append((None, 0, g))
            continue
        notes = _notes(g)
        i = 0
        while i < len(g):
            best = None
            for name, forms in catalogue.items():
                for k, form in enumerate(forms):
                    n = len(form)
                    if n <= len(g) - i and (best is None or n > best[1]) and \
                            same_notes(form, notes[i:i + n]):
                        best = (name, n, k)
            if best is None:
                pieces.append((None, 0, g[i:]))
                break
            pieces.append((best[0], best[2], g[i:i + best[1]]))
            i += best[1]
    ctx = _Contexts(evs)
    runs = []
    for name, form, g in pieces:
        c = ctx.at(g[0]["t"], g[-1]["t"] + g[-1]["dur_s"])
        if runs and len(runs[-1].notes) == 1 and is_key_click(_as_tone(runs[-1].notes[0])) \
                and g[0]["t"] - runs[-1].t <= _CLICK_LEAD_S and not is_key_click(g[0]):
            c = replace(c, since_click_s=round(g[0]["t"] - runs[-1].t, 5))
        runs.append(Run(session, round(float(g[0]["t"]), 6), _notes(g), c, name, form))
    return runs


def _as_tone(note: Note) -> dict:
    return {"freq_hz": note[0], "dur_s": note[1]}


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
        self.lamp_on_t: float | None = None

    def at(self, t0: float, end: float) -> Context:
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
                if e["on"]:
                    self.lamp_on_t = e["t"]
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
        then = then_s = None
        for e in evs[self.i:]:
            if e["t"] > end and e["type"] in ("display", "lamp", "motor"):
                then = _describe_change(e)
                then_s = round(e["t"] - end, 4)
                break
        since = None if self.button is None else round(t0 - self.button_t, 4)
        lamp_s = None
        if self.lamp_on_t is not None and t0 - self.lamp_on_t <= _LAMP_LEAD_S:
            lamp_s = round(t0 - self.lamp_on_t, 5)
        return Context(self.button, since, self.display, after, card,
                       tuple(n for n in _LAMP_ORDER if lamps[n]), then, then_s, lamp_s)


def _describe_change(e: Mapping) -> str:
    if e["type"] == "display":
        return f"display {e['text']!r}"
    if e["type"] == "lamp":
        return f"{e['lamp']} lamp {'on' if e['on'] else 'off'}"
    return f"motor {'on' if e['on'] else 'off'}"


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


def count_forms(runs: Iterable[Run]) -> dict[tuple[str, int], int]:
    """Return (cue name, form) -> how many of the named ``runs`` are that form of the cue."""
    out: dict[tuple[str, int], int] = {}
    for r in runs:
        if r.name is not None:
            out[(r.name, r.form)] = out.get((r.name, r.form), 0) + 1
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


def _change_class(then: str) -> str:
    """Return a change described by ``_describe_change`` with a display text put in its class
    (a count, a player's number, the end-of-turn signal, ...)."""
    if not then.startswith("display "):
        return then
    text = then[len("display "):].strip("'")
    if text == "  ":
        return "display blank"
    if text.isdigit():
        return "display a count"
    if text[0] == " " and text[1].isdigit():
        return "display player's number"
    if text[0] == "-" and text[1].isdigit():
        return "display end-of-turn signal"
    return f"display {text!r}"


def _top(counter: dict, n: int = 3) -> str:
    items = sorted(counter.items(), key=lambda kv: (-kv[1], str(kv[0])))[:n]
    return ", ".join(f"{k} {v}" for k, v in items) if items else "-"


def report(runs: Sequence[Run], order: Sequence[str] = ()) -> str:
    """Return a text report of named ``runs`` (from ``tone_runs`` with a catalogue): per cue its
    count, recordings, the key before it, the picture lit, what follows it (the first display,
    lamp or motor change and its delay after the cue, 10 ms bins), then every run no cue fits,
    clustered, with its context and its notes as a literal for cleanroom.cues."""
    names = list(order) + sorted({r.name for r in runs if r.name is not None} - set(order))
    lines = [f"{len({r.session for r in runs})} recordings, {len(runs)} tone runs, "
             f"{sum(r.name is not None for r in runs)} named, "
             f"{sum(r.name is None for r in runs)} not in the catalogue"]
    for name in names:
        mine = [r for r in runs if r.name == name]
        if not mine:
            lines.append(f"{name}: not heard")
            continue
        keys: dict = {}
        pics: dict = {}
        then: dict = {}
        for r in mine:
            c = r.context
            keys[c.button] = keys.get(c.button, 0) + 1
            pics[c.picture] = pics.get(c.picture, 0) + 1
            nxt = None if c.then is None else f"{_change_class(c.then)} +{c.then_s:.2f} s"
            then[nxt] = then.get(nxt, 0) + 1
        lines.append(f"{name}: {len(mine)} in {len({r.session for r in mine})} recordings; "
                     f"key before: {_top(keys)}; picture: {_top(pics)}; then: {_top(then)}")
    left = [r for r in runs if r.name is None]
    for c in cluster(left):
        r = c.runs[0]
        lines.append(f"NOT IN THE CATALOGUE: {len(c.runs)} x {len(r.notes)} notes, first in "
                     f"{r.session} at {r.t:.3f} s; {r.context}")
        lines.append("    notes=" + notes_literal(r.notes, indent=8))
    return "\n".join(lines) + "\n"


MIN_LEAD_SHARE = 0.1
"""``lead_times`` reports a lead when at least this share of a cue's runs (and 5) have one."""


def lead_times(runs: Iterable[Run]) -> dict[str, tuple[float | None, float | None]]:
    """Return cue name -> (median time from the key click's start to the cue's start, median
    time from its picture lamp lighting to the cue's start), seconds rounded to 10 us; None
    where fewer than ``MIN_LEAD_SHARE`` of the cue's runs (or fewer than 5) have that lead."""
    by: dict[str, list[Run]] = {}
    for r in runs:
        if r.name is not None:
            by.setdefault(r.name, []).append(r)
    out = {}
    for name, rs in by.items():
        leads = []
        for values in ([r.context.since_click_s for r in rs],
                       [r.context.since_lamp_s for r in rs]):
            have = sorted(v for v in values if v is not None)
            if len(have) >= 5 and len(have) >= MIN_LEAD_SHARE * len(rs):
                leads.append(round(statistics.median(have), 5))
            else:
                leads.append(None)
        out[name] = (leads[0], leads[1])
    return out
