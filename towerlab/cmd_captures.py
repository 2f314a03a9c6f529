"""Subcommands of the captures area: decode, plot, wav, diff, clock, draws, battles (registered by
towerlab.cli). Each is a small function ``(args, out) -> exit status`` over ``analysis``."""
from __future__ import annotations

import argparse
import contextlib
import io
from typing import IO, Iterator

from towerlab.options import checked as _checked, positive as _positive, seconds as _seconds

__all__ = ["register", "cmd_decode", "cmd_plot", "cmd_wav", "cmd_diff", "cmd_clock",
           "cmd_draws", "cmd_battles"]


@contextlib.contextmanager
def _naming(*paths: str) -> Iterator[None]:
    """Prefix analysis errors that name no file (a missing channel, no tones) with the first
    of ``paths``, the input they are about."""
    from analysis.base import AnalysisError
    try:
        yield
    except AnalysisError as exc:
        msg = str(exc)
        if any(msg.startswith(str(p)) for p in paths):
            raise
        raise AnalysisError(f"{paths[0]}: {msg}") from None


def _open(path: str, channel_map: str | None = None):
    """Open a capture; a channel map must name tower pins (the decoders read only those)."""
    from captures.formats import open_capture
    if channel_map is not None:
        from captures.channelmap import check_tower_signals, load_channel_map
        check_tower_signals(load_channel_map(channel_map), channel_map)
    return open_capture(path, channel_map)


def _is_events(path: str) -> bool:
    return path.lower().endswith(".jsonl") and not path.lower().endswith(".jsonl.gz")


def _events_of(path: str, channel_map: str | None = None) -> list[dict]:
    """Read an events file, or decode a capture, into events."""
    if _is_events(path):
        from captures.events import read_events
        return read_events(path)
    from analysis.decode import decode
    cap = _open(path, channel_map)
    with _naming(path):
        return decode(cap)


# Event type each decoder writes (keypad button events are inputs, never compared).
_TYPE_OF = {"display": "display", "lamps": "lamp", "motor": "motor", "reel": "reel",
            "speaker": "tone"}


def _observed(path: str, channel_map: str | None = None) -> set[str] | None:
    """Return the event types a capture's channels let the decoders see (None for an events
    file, which may hold any)."""
    if _is_events(path):
        return None
    from analysis.decode import StreamDecoder
    cap = _open(path, channel_map)
    dec = StreamDecoder(cap.info)
    return {_TYPE_OF[d.NAME] for d in dec.decoders if d.NAME in _TYPE_OF}


def _decode_options(args) -> dict:
    return {"reel": {"start_pos": None}} if getattr(args, "reel_unknown", False) else {}


def cmd_decode(args: argparse.Namespace, out: IO[str]) -> int:
    """Decode a capture's pins into an events file (JSON lines)."""
    from analysis.decode import StreamDecoder
    from captures.events import dumps_event
    from captures.source import atomic_write

    if not args.out.lower().endswith(".jsonl"):
        raise ValueError(f"{args.out}: events output must end in .jsonl")
    cap = _open(args.capture, args.channel_map)
    with _naming(args.capture):
        dec = StreamDecoder(cap.info, args.only, _decode_options(args), cap.gaps)
    if not dec.decoders:
        raise ValueError(f"{args.capture}: no decoder can run on its channels "
                         f"({' '.join(cap.channels)}); name the tower pins (R0-R10, O0-O7, "
                         "K1 K2 K4 K8, SENSOR) with --channel-map")
    counts: dict[str, int] = {}
    shown: list[dict] = []

    def keep(ev: dict) -> None:
        counts[ev["type"]] = counts.get(ev["type"], 0) + 1
        if args.summary and ev["type"] == "display":
            shown.append(ev)

    def write(f) -> None:
        text = io.TextIOWrapper(f, encoding="utf-8", newline="\n")
        last = 0
        for block in cap.changes():
            if len(block):
                last = int(block.times[-1])
            for ev in dec.feed(block):
                text.write(dumps_event(ev) + "\n")
                keep(ev)
        total = cap.info.total_samples
        for ev in dec.finish(max(int(total) if total is not None else last + 1, last)):
            text.write(dumps_event(ev) + "\n")
            keep(ev)
        text.flush()
        text.detach()

    atomic_write(args.out, write)
    summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "no events"
    for line in cap.warnings:
        print(f"warning: {line}", file=out)
    print(f"{args.out}: {summary}", file=out)
    for name, why in dec.skipped.items():
        print(f"skipped {name}: {why}", file=out)
    if args.summary:
        from analysis.display import flash_summary
        for span in flash_summary(shown):
            until = "" if span["end"] is None else f", until {span['end']:.3f}"
            how = (f" flashing x{span['flashes']}, period {span['period_s']:.2f} s"
                   if span["flashing"] else "")
            print(f"{span['t']:9.3f}  display {span['text']!r}{how}{until}", file=out)
    return 0


def cmd_plot(args: argparse.Namespace, out: IO[str]) -> int:
    """Draw a timing diagram or a sound picture of a capture."""
    from analysis.plot import plot_overview, plot_sound, plot_timing

    window = args.start is not None or args.end is not None
    if args.at is not None and window:
        raise ValueError("plot: give --at T [--span S] or --from/--to, not both")
    if args.span is not None and args.at is None:
        raise ValueError("plot: --span S needs --at T (the time to zoom in on)")
    if args.kind == "timing" and _is_events(args.capture):
        if args.at is not None or window:
            raise ValueError(f"{args.capture}: an events file has no pins to zoom in on "
                             f"(give the capture for --at/--from)")
        from captures.events import read_events
        plot_overview(read_events(args.capture), args.out)
        print(f"{args.out}: overview of {args.capture}", file=out)
        return 0
    cap = _open(args.capture, args.channel_map)
    what = args.kind
    with _naming(args.capture, args.out):
        if args.kind == "sound":
            plot_sound(cap, args.out)
        elif args.at is not None or window:
            if args.at is not None:
                span = args.span if args.span is not None else 0.1
                start, end = max(0.0, args.at - span / 2), args.at + span / 2
            else:
                start = args.start if args.start is not None else 0.0
                end = args.end if args.end is not None else start + 0.05
            plot_timing(cap, start, end, args.out)
            what = f"timing {start:g}-{end:g} s"
        else:
            from analysis.decode import decode
            from analysis.plot import capture_end
            events = decode(cap)
            events += [{"t": g.start / cap.info.samplerate, "type": "gap",
                        "dur_s": (g.end - g.start) / cap.info.samplerate, "reason": g.reason}
                       for g in cap.gaps]
            layout = plot_overview(events, args.out, end_s=capture_end(cap))
            what = f"overview 0-{layout.t1:g} s"
    print(f"{args.out}: {what} plot", file=out)
    return 0


def cmd_wav(args: argparse.Namespace, out: IO[str]) -> int:
    """Render the speaker (R10 AND NOT R4) as a 16-bit mono WAV file."""
    from analysis.sound import write_wav
    from captures.source import atomic_write

    if not args.out.lower().endswith(".wav"):
        raise ValueError(f"{args.out}: output must end in .wav")
    cap = _open(args.capture, args.channel_map)
    frames = [0]

    def write(f) -> None:
        frames[0] = write_wav(cap, f, args.rate, args.gain)

    with _naming(args.capture):
        atomic_write(args.out, write)
    print(f"{args.out}: {frames[0]} frames, {frames[0] / args.rate:.3f} s at {args.rate} Hz",
          file=out)
    return 0


def cmd_diff(args: argparse.Namespace, out: IO[str]) -> int:
    """Compare two captures or events files by meaning; exit 1 on a difference."""
    from dataclasses import replace

    from analysis.compare import clock_line, compare_events, event_tolerance, format_comparison

    tol = event_tolerance()
    if args.tolerance is not None:
        for k in ("lamp", "motor", "tone"):
            tol.time_s[k] = args.tolerance
    if args.window_tolerance is not None:
        for k in ("display", "reel"):
            tol.time_s[k] = args.window_tolerance
    if args.freq_tolerance_rel is not None:
        tol = replace(tol, freq_frac=args.freq_tolerance_rel)
    if args.types:
        unknown = [t for t in args.types if t not in tol.time_s]
        if unknown:
            raise ValueError(f"--types: unknown event type {unknown[0]!r} (expected some of "
                             f"{', '.join(tol.time_s)})")
        tol = replace(tol, types=tuple(args.types))
    a = _events_of(args.a, args.channel_map)
    b = _events_of(args.b, args.channel_map)
    unseen: dict[str, str] = {}      # event type -> the capture that cannot show it
    if not args.types:
        # A capture from a smaller probe (8 channels: no digits) cannot show every type:
        # compare what both sides can show, and say what was left out.
        for path in (args.a, args.b):
            seen = _observed(path, args.channel_map)
            if seen is not None:
                for k in tol.types:
                    if k not in seen:
                        unseen.setdefault(k, path)
        if unseen:
            tol = replace(tol, types=tuple(k for k in tol.types if k not in unseen))
            if not tol.types:
                raise ValueError(f"{args.a} and {args.b}: no event type both can show "
                                 f"(channels missing for {', '.join(unseen)})")
    ratio = 1.0 if args.same_clock else None
    offset = 0.0 if args.same_clock else None
    c = compare_events(a, b, tol, ratio=ratio, offset=offset, context=args.context)
    print(format_comparison(c, args.a, args.b), file=out)
    if not args.same_clock:
        print(clock_line(c, args.a, args.b), file=out)
    if unseen:
        left = ", ".join(f"{k} ({path} lacks its channels)" for k, path in unseen.items())
        print(f"not compared: {left}; --types overrides", file=out)
    return 0 if c.equivalent else 1


def cmd_clock(args: argparse.Namespace, out: IO[str]) -> int:
    """Estimate a tower's oscillator frequency from the tone periods its firmware plays."""
    from analysis.compare import REFERENCE_CLOCK_HZ, estimate_clock

    events = _events_of(args.capture, args.channel_map)
    with _naming(args.capture):
        est = estimate_clock(events)
    print(f"clock {est.clock_hz / 1000:.2f} kHz (ratio {est.ratio:.4f} to "
          f"{REFERENCE_CLOCK_HZ / 1000:g} kHz; {est.tones_used} of {est.tones_total} tones "
          f"agree within {est.spread_rel * 100:.2f} %)", file=out)
    if args.reference:
        # The inputs are at the same wall times on both sides whatever the clocks: one line
        # through every event would mostly fit the script; the intervals the firmware times
        # between inputs (and its tone periods) give the ratio (analysis.compare).
        from analysis.base import AnalysisError
        from analysis.compare import fit_same_session_ratio
        reference = _events_of(args.reference)
        try:
            fit = fit_same_session_ratio(reference, events)
        except AnalysisError as exc:
            raise AnalysisError(f"{args.capture} against {args.reference}: {exc}") from None
        print(f"timeline against {args.reference}: clock "
              f"{REFERENCE_CLOCK_HZ * fit.ratio / 1000:.2f} kHz (ratio {fit.ratio:.4f} "
              f"+- {fit.ratio * fit.std_rel:.4f}; {fit.intervals} events in {fit.stretches} "
              f"stretches between inputs, {fit.tones} tones)", file=out)
    return 0


def cmd_draws(args: argparse.Namespace, out: IO[str]) -> int:
    """Read a timing sweep: what the tower drew at each key scan, and the figures of
    docs/draws.md (analysis.draws)."""
    from analysis.draws import read_sweep, sweep_report

    if args.setup + args.first + args.count + args.after + args.holdings > 1:
        raise ValueError("--setup, --first, --count, --after and --holdings: expected one of "
                         "them (each reads its folders its own way)")
    if args.holdings:
        return _draws_holdings(args, out)
    if args.setup:
        return _draws_setup(args, out)
    if args.first:
        return _draws_first(args, out)
    if args.count:
        return _draws_count(args, out)
    if args.after:
        return _draws_after(args, out)
    sweep = read_sweep(args.sweep, press=args.press)
    for line in sweep_report(sweep, runs=args.runs):
        print(line, file=out)
    if sweep.is_move():
        from analysis.latency import sweep_bit7

        bit7 = sweep_bit7(sweep)
        print("bit 7 from the times: not read (the times do not take two residues 6 apart)"
              if bit7 is None else bit7.line(), file=out)
    return 0


def _draws_setup(args: argparse.Namespace, out: IO[str]) -> int:
    """``towerlab draws --setup``: the set-up after the level key of each recording, and
    what it follows (cleanroom.start_state)."""
    from cleanroom.phase import setup_phase_lines
    from cleanroom.start_state import read_setup, setup_report

    readings = [r for r in (read_setup(script, events, name, clock_ratio=args.clock_ratio)
                            for name, script, events in _whole_games(args.sweep))
                if r is not None]
    for line in setup_report(readings, each=args.runs) + setup_phase_lines(readings):
        print(line, file=out)
    return 0


def holdings_job(name: str, script, events: list[dict], clock_ratio: float) -> list:
    """One recording's key times against its force (``towerlab draws --holdings``): its
    draws resolved and replayed (cleanroom.holdings), its keys timed (analysis.latency); a
    job for ``rig.batch.run_jobs``."""
    from analysis.latency import key_times
    from cleanroom.holdings import read_holdings

    held = [(h.t, h.name, h.value, h.food, h.warriors, h.rations)
            for h in read_holdings(script, events, clock_ratio=clock_ratio)]
    return key_times(events, held, name)


def _draws_holdings(args: argparse.Namespace, out: IO[str]) -> int:
    """``towerlab draws --holdings``: each action key's time to its first output against
    the force's food and warriors, read from the clean-room game's replay of each recording
    (cleanroom.holdings, analysis.latency), ``--jobs`` recordings at a time."""
    from analysis.latency import latency_report
    from rig.batch import run_jobs

    if args.jobs < 1:
        raise ValueError(f"--jobs {args.jobs}: expected a number of processes >= 1")
    jobs = [(name, script, events, args.clock_ratio)
            for name, script, events in _whole_games(args.sweep)]
    times = [t for got in run_jobs(holdings_job, jobs, workers=args.jobs) for t in got]
    for line in latency_report(times, each=args.runs):
        print(line, file=out)
    return 0


def _draws_first(args: argparse.Namespace, out: IO[str]) -> int:
    """``towerlab draws --first``: the first draw of each recorded game that shows it (a game
    at level 4), by the phase of the passes before it (cleanroom.phase)."""
    from cleanroom.phase import first_draw_report, read_first_draw

    draws = [d for d in (read_first_draw(script, events, name)
                         for name, script, events in _whole_games(args.sweep))
             if d is not None]
    if not draws:
        print("no first draw shown in these recordings (only a game at level 4 begins with "
              "a draw it shows)", file=out)
        return 0
    for line in first_draw_report(draws):
        print(line, file=out)
    return 0


def _draws_count(args: argparse.Namespace, out: IO[str]) -> int:
    """``towerlab draws --count``: MOVE sweeps (lab sweep folders, one or two; or recording
    folders that together are one sweep, as a request's single games come back); the count
    they read, its table, how one sweep's table predicts another's outcomes, and for one
    sweep how the table the game reads places it (analysis.accumulator, cleanroom.count)."""
    import os

    from analysis.accumulator import accumulator_lines, outcomes_of, predict_with
    from analysis.draws import read_sweep
    from cleanroom.count import MOVE_PICTURES, MOVE_TABLE

    lab = all(os.path.isfile(os.path.join(p, "sweep.jsonl")) for p in args.sweep)
    if lab and len(args.sweep) > 2:
        raise ValueError(f"--count: {len(args.sweep)} sweeps given (expected one or two MOVE "
                         f"sweeps)")
    groups = [[p] for p in args.sweep] if lab else [list(args.sweep)]
    sweeps = {}
    for paths in groups:
        sweep = read_sweep(paths, press=args.press)
        if not sweep.is_move():
            shown = sorted({r.outcome for r in sweep.scans.values()})
            raise ValueError(f"{paths[0]}: its outcomes ({', '.join(shown)}) are not a MOVE's "
                             f"(expected a MOVE sweep: none, LOST, DRAGON, PLAGUE, BRIGANDS)")
        if sweep.name in sweeps:
            raise ValueError(f"{paths[0]}: a second sweep named {sweep.name} (expected two "
                             f"different MOVE sweeps)")
        sweeps[sweep.name] = outcomes_of(sweep)
    for line in accumulator_lines(sweeps):
        print(line, file=out)
    if len(sweeps) == 1:
        (outcomes,) = sweeps.values()
        right, _, start = predict_with([MOVE_PICTURES[o] for o in MOVE_TABLE], outcomes)
        print(f"  with the table the game reads (cleanroom.count): {right} of {len(outcomes)} "
              f"right at the start {start:#06x} (the count at its first scan)", file=out)
    return 0


def _draws_after(args: argparse.Namespace, out: IO[str]) -> int:
    """``towerlab draws --after``: families of single level-4 games (folders named
    ``NAME_kNN``, a family per NAME) whose second MOVE is swept; what the first MOVE's draw
    did to the count, family against family (cleanroom.count ``after_draw_lines``)."""
    import collections
    import os
    import re

    from analysis.accumulator import best_starts, outcomes_of
    from analysis.draws import read_sweep
    from analysis.latency import sweep_bit7
    from captures.events import recording_events_file
    from captures.script import Press, read_script
    from cleanroom.count import (COUNT_STEP, MODULUS, MOVE_PICTURES, MOVE_TABLE, Family,
                                 after_draw_lines, best_start)
    from cleanroom.predict import level4_moves

    groups: dict[str, list[str]] = collections.defaultdict(list)
    for path in args.sweep:
        name = os.path.basename(os.path.normpath(path))
        match = re.fullmatch(r"(.+)_k\d+", name)
        if match is None:
            raise ValueError(f"{path}: not named NAME_kNN (expected a request's single games, "
                             f"one folder each, as the lab returns them)")
        groups[match.group(1)].append(path)

    families = []
    for name, paths in sorted(groups.items()):
        sweep = read_sweep(paths)
        outcomes = outcomes_of(sweep)
        if not sweep.by_scan or not sweep.is_move() or not outcomes:
            raise ValueError(f"{paths[0]}: the family {name}'s last presses show no MOVE's "
                             f"outcomes (expected a swept second MOVE)")
        # the run at the sweep's first scan: its script, replayed once, gives the passes of
        # both MOVEs (every game of a family makes its first MOVE at the same pass)
        label = sweep.by_scan[min(sweep.by_scan)][0].label
        folder = next(p for p in paths if os.path.basename(os.path.normpath(p)) == label)
        events = recording_events_file(folder)
        script_path = os.path.join(os.path.dirname(events) if events else folder, "script.txt")
        if not os.path.isfile(script_path):
            raise ValueError(f"{folder}: no script.txt beside its events.jsonl (expected a "
                             f"recording folder with its script)")
        script = read_script(script_path)
        moves = [m for m in level4_moves(script) if m.game == 0]
        if len(moves) < 2 or moves[0].predicted is None:
            raise ValueError(f"{script_path}: not a level-4 game whose first draw is a MOVE "
                             f"and that makes a second (expected one of the requests "
                             f"l4_second_move or l4_after_safe)")
        presses = [a for a in script.actions if isinstance(a, Press)]
        first_press = next(i for i, a in enumerate(presses) if a.button == "MOVE")
        seen = collections.Counter(r.outcome for r in read_sweep(paths, first_press).runs)
        right, starts = best_starts([MOVE_PICTURES[o] for o in MOVE_TABLE], outcomes)
        # the times' bit 7 (docs/draws.md, section 13): the low byte at the sweep's first scan
        bit7 = sweep_bit7(sweep)
        low = None if bit7 is None else (
            bit7.lows[len(bit7.lows) // 2] - COUNT_STEP * moves[-1].passes) % 256
        families.append(Family(name, moves[0].passes, tuple(seen.most_common()),
                               MOVE_PICTURES[moves[0].predicted],
                               (best_start(starts) - COUNT_STEP * moves[-1].passes) % MODULUS,
                               right, len(outcomes), low,
                               (0, 0) if bit7 is None else (bit7.fit, bit7.scans)))
    for line in after_draw_lines(families):
        print(line, file=out)
    return 0


def cmd_battles(args: argparse.Namespace, out: IO[str]) -> int:
    """Time the battles of recordings skirmish by skirmish; list those that repeat across
    recordings (analysis.battles)."""
    from analysis.battles import battle_report, read_battles

    battles = []
    for name, events_path in _recordings(args.recordings, "a recording folder, a folder of "
                                         "them or an events .jsonl file"):
        battles += read_battles(_events_of(events_path), name)
    for line in battle_report(battles, each=args.each):
        print(line, file=out)
    return 0


def _whole_games(paths):
    """Yield (name, script, events) of every recording of a whole game the paths name (a
    recording folder or a folder of them: ``--setup``, ``--first``)."""
    import os

    from cleanroom.reference import load_reference

    for name, events_path in _recordings(paths, "a recording folder or a folder of them"):
        # load_reference refuses a folder without its script.txt in one line
        yield (name, *load_reference(os.path.dirname(events_path)))


def _recordings(paths, expected: str) -> list[tuple[str, str]]:
    """(name, events file) of every recording the paths name (captures.events.recordings_in);
    a path that names none is one line (``expected``: what it should have been)."""
    from captures.events import recordings_in

    found = []
    for path in paths:
        here = recordings_in(path)
        if not here:
            raise ValueError(f"{path}: no events.jsonl (expected {expected})")
        found += here
    return found


_audio_rate = _checked(int, lambda v: 1000 <= v <= 192_000, "an audio rate of 1000-192000 Hz")
_count = _checked(int, lambda v: v >= 0, "a whole number >= 0")


def _given_ratio(v: float) -> bool:
    """Return True for a --clock-ratio within analysis.compare.GIVEN_RATIO_RANGE."""
    from analysis.compare import GIVEN_RATIO_RANGE
    return GIVEN_RATIO_RANGE[0] < v < GIVEN_RATIO_RANGE[1]


def register(sub: "argparse._SubParsersAction") -> None:
    """Add this area's subcommands to the towerlab parser."""
    from towerlab.options import add_output, add_tolerance

    from analysis.decode import DECODERS

    cmap = dict(metavar="F", dest="channel_map", default=None,
                help="channel map file (probe = SIGNAL lines)")

    p = sub.add_parser("decode", help="decode a capture's pins into events (JSON lines)",
                       description="Decode the display, lamps, motor, reel, keypad and speaker "
                                   "of a capture into events, as the shared captures' "
                                   "events.jsonl define them.")
    p.add_argument("capture", help="capture file (.sr, .vcd, .tlc, .jsonl.gz, Saleae csv/bin or export folder)")
    add_output(p, required=True, metavar="EVENTS.jsonl",
               help="events file to write (JSON lines)")
    p.add_argument("--channel-map", **cmap)
    p.add_argument("--only", nargs="+", choices=list(DECODERS), metavar="DECODER",
                   help=f"run only these decoders ({', '.join(DECODERS)})")
    p.add_argument("--summary", action="store_true",
                   help="print the display as steady and flashing spans with flash periods")
    p.add_argument("--reel-unknown", action="store_true",
                   help="do not assume the reel starts at MAME's position 0 (real towers)")
    p.set_defaults(func=cmd_decode)

    p = sub.add_parser("plot", help="draw a session overview, a timing diagram or a sound "
                                    "picture",
                       description="timing: with no window, the overview of the whole session "
                                   "(display, lamps, motor, reel, tones, buttons; also from an "
                                   "events .jsonl); --at T --span S or --from/--to: the pins "
                                   "with the decoded lanes above. sound: pitch, spectrogram, "
                                   "waveform.")
    p.add_argument("kind", choices=("timing", "sound"))
    p.add_argument("capture", help="capture file (.sr, .vcd, .tlc, .jsonl.gz, Saleae csv/bin or export folder)")
    add_output(p, required=True, metavar="F.png|svg|pdf",
               help="picture to write; the extension picks the format")
    p.add_argument("--at", type=_seconds, default=None, metavar="T",
                   help="timing plot: zoom to the pins around T seconds (R/O/K lines, the "
                        "digit multiplex) with the decoded lanes above; without --at or "
                        "--from, the overview of the whole session")
    p.add_argument("--span", type=_positive, default=None, metavar="S",
                   help="width of the --at window in seconds (default 0.1)")
    p.add_argument("--from", dest="start", type=_seconds, default=None, metavar="S",
                   help="window start (s, timing plot at the pin level; default 0)")
    p.add_argument("--to", dest="end", type=_seconds, default=None, metavar="S",
                   help="window end (s, timing plot at the pin level; default start + 0.05)")
    p.add_argument("--channel-map", **cmap)
    p.set_defaults(func=cmd_plot)

    p = sub.add_parser("wav", help="render the speaker as a 16-bit WAV, as MAME does",
                       description="Render R10 AND NOT R4 as 16-bit mono PCM: box filter over "
                                   "each output sample, low-pass, DC blocker (MAME's speaker).")
    p.add_argument("capture", help="capture file (.sr, .vcd, .tlc, .jsonl.gz, Saleae csv/bin or export folder)")
    add_output(p, required=True, metavar="F.wav", help="WAV file to write")
    p.add_argument("--rate", type=_audio_rate, default=44100,
                   help="output rate in Hz, 1000-192000 (44100)")
    p.add_argument("--gain", type=_positive, default=0.25, help="mixer gain (MAME: 0.25)")
    p.add_argument("--channel-map", **cmap)
    p.set_defaults(func=cmd_wav)

    p = sub.add_parser("diff", help="compare two captures or events files by meaning",
                       description="Align the two event sequences, fit the clock ratio on the "
                                   "matched events, and print the first difference with both "
                                   "sides and context, or 'equivalent within tolerance'. "
                                   "Exit status 0 equivalent, 1 a difference, 2 bad input.")
    p.add_argument("a", help="reference: a capture or an events .jsonl file")
    p.add_argument("b", help="compared: a capture or an events .jsonl file")
    add_tolerance(p, "tolerance", unit="s", help="lamp/motor/tone time tolerance in s (0.001)",
                  old=(("--time-tol", 1.0, "s"),))
    add_tolerance(p, "window-tolerance", unit="s",
                  help="display/reel time tolerance in s (1/60 + 0.001)",
                  old=(("--window-tol", 1.0, "s"),))
    add_tolerance(p, "freq-tolerance-rel", unit="fraction",
                  help="tone frequency tolerance as a fraction (0.01)",
                  old=(("--freq-tol", 1.0, "fraction"),))
    p.add_argument("--types", nargs="+", metavar="TYPE",
                   help="event types to compare (display lamp motor reel tone)")
    p.add_argument("--same-clock", action="store_true",
                   help="do not fit a clock ratio: compare times as they are")
    p.add_argument("--context", type=_count, default=3,
                   help="events of context each side (3)")
    p.add_argument("--channel-map", **cmap)
    p.set_defaults(func=cmd_diff)

    p = sub.add_parser("clock", help="estimate a tower's oscillator from its tone periods")
    p.add_argument("capture", help="capture file or events .jsonl")
    p.add_argument("--reference", metavar="EVENTS",
                   help="also fit the clock ratio against this session recorded at 425 kHz "
                        "(events .jsonl or capture), e.g. a shared capture's events.jsonl")
    p.add_argument("--channel-map", **cmap)
    p.set_defaults(func=cmd_clock)

    p = sub.add_parser("draws", help="read a timing sweep: what the tower drew at each key scan",
                       description="Read a sweep of the genuine tower (one key pressed a frame "
                                   "later in each run): a lab sweep folder with sweep.jsonl, or "
                                   "one recording folder per run (the swept key is the last "
                                   "press). Print its key scans, outcomes, draw times and the "
                                   "figures of docs/draws.md.")
    p.add_argument("sweep", nargs="+", metavar="DIR",
                   help="a folder with sweep.jsonl, or recording folders with events.jsonl")
    p.add_argument("--press", type=int, metavar="N",
                   help="the swept key is press N of each recording (from 0; default the last)")
    p.add_argument("--runs", action="store_true",
                   help="a line per run (with --setup, per recording; with --holdings, per "
                        "key) first")
    p.add_argument("--setup", action="store_true",
                   help="the DIRs are recordings of whole games (or folders of them, such as "
                        "the corpus): read the set-up after each level key and what it follows "
                        "(docs/draws.md, section 10)")
    p.add_argument("--first", action="store_true",
                   help="the DIRs are recordings of whole games (or folders of them): the "
                        "first draw of each game that shows one (level 4), by the phase of "
                        "the key-loop passes before it (docs/draws.md, section 11)")
    p.add_argument("--count", action="store_true",
                   help="the DIRs are MOVE sweeps (one or two lab sweep folders, or "
                        "recording folders that together are one sweep): the 16-bit count "
                        "their outcomes read, its table, each sweep predicted with the "
                        "other's, one placed by the game's table (docs/draws.md, section 12)")
    p.add_argument("--after", action="store_true",
                   help="the DIRs are a request's single level-4 games, NAME_kNN, a family "
                        "per NAME, each family's second MOVE swept (l4_second_move, "
                        "l4_after_safe_p336...): what the first MOVE's draw did to the count, "
                        "family against family (docs/draws.md, section 12)")
    p.add_argument("--holdings", action="store_true",
                   help="the DIRs are recordings of whole games (or folders of them): each "
                        "action key's time to its first output against the force's food and "
                        "warriors, from the clean-room game's replay (docs/draws.md, section "
                        "13)")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="with --holdings: replay the recordings on N processes (default 1)")
    p.add_argument("--clock-ratio", type=_checked(float, _given_ratio,
                                                  "a clock ratio near 1 (e.g. 0.98)"),
                   default=1.0, metavar="R",
                   help="with --setup and --holdings: the recorded tower's clock over MAME's "
                        "425 kHz (default "
                        "1, the corpus's; a real tower's from towerlab clock)")
    p.set_defaults(func=cmd_draws)

    p = sub.add_parser("battles", help="time recordings' battles skirmish by skirmish",
                       description="Read the battles of recordings from their lamps and tones: "
                                   "each stretch of a skirmish, the one that varies, and the "
                                   "battles that repeat skirmish for skirmish in different "
                                   "recordings (docs/draws.md, section 9).")
    p.add_argument("recordings", nargs="+", metavar="DIR",
                   help="recording folders with events.jsonl, folders of them (the corpus), "
                        "or events .jsonl files")
    p.add_argument("--each", action="store_true", help="a line per battle first")
    p.set_defaults(func=cmd_battles)
