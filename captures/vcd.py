"""Write captures as VCD (with pyvcd) and read VCD files (a streaming token parser).

Writing follows the conventions of docs/capture-formats.md §1.4 and §7.2, made for sigrok 0.5.2,
PulseView and GTKWave: 1-bit ``wire`` variables only, in scope ``tower``; initial values in
``$dumpvars`` at ``#0``; ``close`` at the capture's length. The timescale is the largest legal
VCD unit (1/10/100 s, ms, us, ns, ps, fs) of which the sample period is a whole multiple: 1 MHz
→ ``1 us`` (1 tick per sample), 250 kHz → ``1 us`` (4 ticks per sample). When no unit divides
the period it is the largest unit with at least 2 ticks a sample, edges rounded to the nearest
tick (425 kHz → ``1 us``, 2.35 ticks a sample, which sigrok reads at 1 MHz). A gap is
written as ``x`` on every signal from its start to its end (Glasgow's overrun convention;
sigrok shows ``x`` as 0); a gap from sample 0 puts ``x`` in ``$dumpvars``. A
``$comment towerlab-capture {...}`` header line carries what VCD cannot say (exact samplerate,
length, original channel names, gaps, metadata, the initial levels hidden by such an ``x``)
so that our reader gets back exactly what was written.

Reading (for foreign files too): samplerate = 1/timescale unless our comment says otherwise
(libsigrok ``src/input/vcd.c`` does the same); vectors become one channel per bit,
``name[0]`` = least significant; ``real`` variables are skipped with a warning; ``x``/``z`` read
as 0, as in sigrok, except when every signal is ``x`` at once: that is a gap, and the last
levels are kept. Times that go backwards are an error naming the line.
"""
from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import BinaryIO, Iterator

import numpy as np

from captures.source import BLOCK, Source, checked_blocks, open_source, source_name
from captures.model import Capture, CaptureError, CaptureInfo, Changes, Gap

__all__ = ["COMMENT_TAG", "KEYWORDS", "read_vcd", "write_vcd", "choose_timescale"]

COMMENT_TAG = "towerlab-capture"
# Header keywords a VCD file may begin with (how captures.formats recognises one).
KEYWORDS = (b"$date", b"$version", b"$timescale", b"$comment", b"$scope", b"$var",
            b"$enddefinitions", b"$dumpvars", b"$upscope")
_UNITS = {"s": 0, "ms": 3, "us": 6, "ns": 9, "ps": 12, "fs": 15}
_SKIP_TYPES = ("real", "realtime", "string", "event")


def choose_timescale(samplerate: float) -> tuple[str, Fraction]:
    """Return the VCD timescale for a samplerate (Hz) and the ticks per sample (a Fraction,
    whole when the period is an exact multiple of the unit, else >= 2 and rounded)."""
    period = 1 / Fraction(samplerate)
    for unit, exp in _UNITS.items():
        for mag in (100, 10, 1):
            tick = Fraction(mag, 10 ** exp)
            ratio = period / tick
            if ratio.denominator == 1:
                return f"{mag} {unit}", ratio
    # No unit divides the period: the largest unit with at least 2 ticks a sample (each edge
    # within a quarter sample for other tools, exact for ours). A finer one would make
    # libsigrok, which samples at 1/timescale, expand 425 kHz to 1 GHz (docs/capture-formats.md
    # section 1.4).
    for unit, exp in _UNITS.items():
        for mag in (100, 10, 1):
            ratio = period / Fraction(mag, 10 ** exp)
            if ratio >= 2:
                return f"{mag} {unit}", ratio
    raise CaptureError(f"samplerate {samplerate} Hz is too high for VCD time units")


def _round_div(num: int, den: int) -> int:
    """Return num/den rounded half up (integers)."""
    return (2 * num + den) // (2 * den)


def _ref(name: str) -> str:
    return re.sub(r"\s", "_", name) or "_"


def write_vcd(capture: Capture, f: BinaryIO) -> None:
    """Write ``capture`` as VCD text to the binary file object ``f`` (see the module notes)."""
    from vcd import VCDWriter

    info = capture.info
    timescale, ticks = choose_timescale(info.samplerate)
    a, b = ticks.numerator, ticks.denominator

    def tick(sample: int) -> int:
        return _round_div(sample * a, b)

    refs: list[str] = []
    for c in info.channels:       # VCD names have no spaces: "Channel 0" -> "Channel_0"
        ref, k = _ref(c), 1
        while ref in refs:
            k += 1
            ref = f"{_ref(c)}_{k}"
        refs.append(ref)
    text = io.TextIOWrapper(f, encoding="utf-8", newline="\n", write_through=False)
    blocks = checked_blocks(capture)
    first = next(blocks, None)
    if first is None:
        raise CaptureError("capture has no changes to write")
    word = int(first.words[0])
    head = {"samplerate": info.samplerate, "total_samples": info.total_samples,
            "channels": info.channels, "gaps": [[g.start, g.end, g.reason] for g in capture.gaps],
            "meta": info.meta, "initial": word}
    # One whitespace-free token: VCD readers split on whitespace, and "$end" must not appear.
    packed = json.dumps(head, default=str, separators=(",", ":"))
    comment = COMMENT_TAG + " " + packed.replace("$", "\\u0024").replace(" ", "\\u0020")
    writer = VCDWriter(text, timescale=timescale, date="", comment=comment, version="TowerLab")
    vars_ = [writer.register_var("tower", r, "wire", size=1, init=(word >> i) & 1)
             for i, r in enumerate(refs)]
    # A gap is marked with x only when no change falls strictly inside it; it is decided at
    # the first change after its start (or at the end of the capture). The x of a gap from
    # sample 0 lands in $dumpvars (pyvcd folds #0 changes there); the comment keeps the
    # initial levels it hides.
    pending = sorted((g for g in capture.gaps if g.end > g.start), key=lambda g: g.start)
    total = info.total_samples
    last_t = 0

    def mark(marks: list[tuple[int, int]], current: int) -> None:
        """Write x at each (start, 1) and the current levels at each (end, 0)."""
        for t, kind in marks:
            if kind:
                for v in vars_:
                    writer.change(v, tick(t), "x")
            elif total is None or t < total:
                for i, v in enumerate(vars_):
                    writer.change(v, tick(t), (current >> i) & 1)

    def spans(gaps: list[Gap]) -> list[tuple[int, int]]:
        """Return the x marks of gaps decided together, overlapping gaps merged."""
        merged: list[list[int]] = []
        for g in sorted(gaps, key=lambda g: g.start):
            if merged and g.start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], g.end)
            else:
                merged.append([g.start, g.end])
        return [m for s, e in merged for m in ((s, 1), (e, 0))]

    def blocks_after_first() -> Iterator[Changes]:
        yield Changes(first.times[1:], first.words[1:])
        yield from blocks

    for block in blocks_after_first():
        for t, w in zip(block.times.tolist(), block.words.tolist()):
            decided: list[Gap] = []
            while pending and pending[0].start < t:
                g = pending.pop(0)
                if g.end <= t:
                    decided.append(g)
            marks = spans(decided)
            mark([m for m in marks if m[0] < t], word)
            diff = w ^ word
            i = 0
            while diff:
                if diff & 1:
                    writer.change(vars_[i], tick(t), (w >> i) & 1)
                diff >>= 1
                i += 1
            word = w
            mark([m for m in marks if m[0] == t], word)
            last_t = t
    mark(spans(pending), word)
    end = total if total is not None else max([last_t + 1] + [g.end for g in pending])
    if end <= last_t:
        raise CaptureError(f"capture length {end} samples ends before its last change at "
                           f"sample {last_t}")
    writer.close(tick(end))
    text.flush()
    text.detach()


# ----------------------------------------------------------------------------------- reader

@dataclass
class _Header:
    channels: list[str] = field(default_factory=list)
    ids: dict[str, tuple[int, int]] = field(default_factory=dict)   # id -> (first bit, size)
    timescale: Fraction = Fraction(1, 10 ** 6)
    own: dict | None = None
    warnings: list[str] = field(default_factory=list)


def _tokens(f: BinaryIO, name: str, drop_partial: bool = False) -> Iterator[tuple[str, int]]:
    """Yield (token, line number); ``drop_partial`` skips a last line cut before its newline."""
    for n, raw in enumerate(f, 1):
        if drop_partial and not raw.endswith(b"\n"):
            return
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise CaptureError(f"{name}:{n}: not UTF-8 text") from None
        for tok in line.split():
            yield tok, n


def _until_end(tokens: Iterator[tuple[str, int]], name: str, what: str, line: int) -> list[str]:
    out = []
    for tok, _ in tokens:
        if tok == "$end":
            return out
        out.append(tok)
    raise CaptureError(f"{name}:{line}: {what} has no $end")


def _parse_header(tokens: Iterator[tuple[str, int]], name: str) -> _Header:
    h = _Header()
    scopes: list[str] = []
    seen_keyword = False
    for tok, n in tokens:
        if not tok.startswith("$"):
            raise CaptureError(f"{name}:{n}: expected a $keyword in the VCD header, got "
                               f"{tok[:20]!r}")
        seen_keyword = True
        if tok == "$enddefinitions":
            _until_end(tokens, name, tok, n)
            if not h.channels:
                raise CaptureError(f"{name}: VCD declares no 1-bit or vector variables")
            return h
        body = _until_end(tokens, name, tok, n)
        if tok == "$timescale":
            m = re.fullmatch(r"(1|10|100)\s*(s|ms|us|ns|ps|fs)", "".join(body))
            if not m:
                raise CaptureError(f"{name}:{n}: timescale {' '.join(body)[:20]!r} is not "
                                   "1/10/100 s|ms|us|ns|ps|fs")
            h.timescale = Fraction(int(m.group(1)), 10 ** _UNITS[m.group(2)])
        elif tok == "$scope":
            scopes.append(body[-1] if body else "")
        elif tok == "$upscope":
            if scopes:
                scopes.pop()
        elif tok == "$comment":
            if body[:1] == [COMMENT_TAG]:
                try:
                    h.own = json.loads(" ".join(body[1:]))
                    if not isinstance(h.own, dict):
                        raise ValueError
                except ValueError:
                    raise CaptureError(f"{name}:{n}: damaged {COMMENT_TAG} comment") from None
        elif tok == "$var":
            if len(body) < 4:
                raise CaptureError(f"{name}:{n}: $var needs 'type size id name'")
            vtype, size_s, ident, ref = body[:4]
            if vtype in _SKIP_TYPES:
                h.warnings.append(f"{name}:{n}: {vtype} variable {ref!r} skipped")
                continue
            if not size_s.isdigit() or not 1 <= int(size_s) <= 64:
                raise CaptureError(f"{name}:{n}: $var size {size_s[:10]!r} is not 1..64")
            size = int(size_s)
            if ident in h.ids:
                h.warnings.append(f"{name}:{n}: {ref!r} aliases an earlier variable; skipped")
                continue
            label = ref if ref not in h.channels else ".".join(scopes[1:] + [ref])
            names = [label] if size == 1 else [f"{label}[{k}]" for k in range(size)]
            if any(x in h.channels for x in names):
                raise CaptureError(f"{name}:{n}: variable {label!r} is declared twice")
            if len(h.channels) + size > 64:
                raise CaptureError(f"{name}:{n}: more than 64 signal bits (not supported)")
            h.ids[ident] = (len(h.channels), size)
            h.channels.extend(names)
    if not seen_keyword:
        raise CaptureError(f"{name}: empty VCD file")
    raise CaptureError(f"{name}: VCD header has no $enddefinitions")


def _tail_time(source: Source, drop_partial: bool = False) -> tuple[int | None, bool]:
    """Return the last ``#time`` in the file and whether value changes follow it;
    ``drop_partial`` ignores a last line cut before its newline."""
    with open_source(source) as f:
        f.seek(0, 2)
        size = f.tell()
        f.seek(max(0, size - 65536))
        data = f.read()
    if drop_partial:
        data = data[:data.rfind(b"\n") + 1]
    tail = data.decode("utf-8", "replace").split()
    for k in range(len(tail) - 1, -1, -1):
        tok = tail[k]
        if tok.startswith("#") and tok[1:].isdigit():
            after = [t for t in tail[k + 1:] if not t.startswith("$")]
            return int(tok[1:]), bool(after)
    return None, False


def _ends_with_newline(source: Source) -> bool:
    """Tell whether the file's last byte is a newline (or the file is empty)."""
    with open_source(source) as f:
        f.seek(0, 2)
        if f.tell() == 0:
            return True
        f.seek(-1, 2)
        return f.read(1) == b"\n"


def read_vcd(source: Source) -> Capture:
    """Open a VCD file (a path or a binary file object) as a streaming Capture; a file not
    written by TowerLab is read once here to find its all-x gaps."""
    name = source_name(source)
    with open_source(source) as f:
        head = _parse_header(_tokens(f, name), name)
    own = head.own or {}
    nbits = len(head.channels)
    channels = head.channels
    meta: dict = {}
    gaps: list[Gap] = []
    total: int | None = None
    initial: int | None = None
    if own:
        try:
            rate = float(own["samplerate"])
            if not 0 < rate < 1e15:
                raise ValueError
            if isinstance(own.get("channels"), list) and len(own["channels"]) == nbits \
                    and all(isinstance(c, str) for c in own["channels"]) \
                    and len(set(own["channels"])) == nbits:
                channels = list(own["channels"])
            total = own.get("total_samples")
            if total is not None and (type(total) is not int or total < 0):
                raise ValueError
            for g in own.get("gaps") or []:
                if not (type(g[0]) is int and type(g[1]) is int and 0 <= g[0] <= g[1]):
                    raise ValueError
                gaps.append(Gap(g[0], g[1], str(g[2])))
            meta = dict(own.get("meta") or {})
            initial = own.get("initial")
            if initial is not None and (type(initial) is not int
                                        or not 0 <= initial < 1 << nbits):
                raise ValueError
        except (KeyError, ValueError, TypeError, IndexError):
            raise CaptureError(f"{name}: {COMMENT_TAG} comment has bad values") from None
        per_tick = Fraction(rate) * head.timescale     # samples per tick
    else:
        rate = float(1 / head.timescale)
        per_tick = Fraction(1)
    p, q = per_tick.numerator, per_tick.denominator

    def sample(t: int) -> int:
        return t if q == 1 and p == 1 else _round_div(t * p, q)

    limit = total        # a length our own comment promises is enforced while reading
    partial = False      # our own file cut short: its last, unterminated line is dropped
    warnings = list(head.warnings)
    if total is not None:
        partial = not _ends_with_newline(source)
        last, more = _tail_time(source, partial)
        ends = None if last is None else sample(last) + (1 if more else 0)
        if ends is not None and ends < total:
            # Our writer ends the file at #<length>: a file that stops earlier was cut short.
            gaps.append(Gap(ends, total, "VCD file ends early (truncated)"))
            warnings.append(f"{name}: data ends at sample {ends} of {total} "
                            "(file truncated?); the rest is a gap")
    else:
        last, more = _tail_time(source)
        if last is not None:
            total = sample(last) + (1 if more else 0)
    info = CaptureInfo(list(channels), rate, total, meta)
    detect_gaps = not own

    def factory(found: list[Gap] | None = None) -> Iterator[Changes]:
        with open_source(source) as f:
            tokens = _tokens(f, name, partial)
            _parse_header(tokens, name)
            yield from _body(tokens, name, head, nbits, sample, [] if found is None else found,
                             detect_gaps, limit, total, initial)

    if detect_gaps:
        # A foreign file marks missing data with x: one pass at open finds those gaps, so
        # they are known before any writer needs them.
        for _ in factory(gaps):
            pass
    cap = Capture(info, factory, gaps)
    cap.warnings.extend(warnings)
    return cap


def _body(tokens: Iterator[tuple[str, int]], name: str, head: _Header, nbits: int, sample,
          gaps: list[Gap], detect_gaps: bool, limit: int | None,
          total: int | None, initial: int | None = None) -> Iterator[Changes]:
    all_bits = (1 << nbits) - 1
    levels = 0
    xmask = all_bits          # nothing known before the first values
    known = 0                 # signals that have had a 0/1 value
    word: int | None = None   # last emitted word
    now = -1                  # current time (ticks)
    now_s = 0
    gap_start: int | None = None
    times: list[int] = []
    words: list[int] = []
    ids = head.ids

    def settle() -> None:
        """Turn the levels at the end of time ``now`` into a change."""
        nonlocal word, gap_start
        if xmask == all_bits:
            # No data: keep the last levels (those set earlier at this time count; a signal
            # never set reads 0; our own comment may give the levels under an x at #0).
            if word is None:
                if now_s != 0:
                    raise CaptureError(f"{name}: first values are at sample {now_s}, "
                                       "expected 0")
                word = levels & known if initial is None else initial
                times.append(0)
                words.append(word)
            if gap_start is None:
                gap_start = now_s
            return
        if gap_start is not None:
            gaps.append(Gap(gap_start, now_s, "no data (every signal x in the VCD)"))
            gap_start = None
        w = levels & ~xmask
        if word is None and now_s != 0:
            raise CaptureError(f"{name}: first values are at sample {now_s}, expected 0")
        if w != word:
            if times and times[-1] == now_s:
                words[-1] = w
            else:
                times.append(now_s)
                words.append(w)
            word = w

    for tok, n in tokens:
        c = tok[0]
        if c == "#":
            if not tok[1:].isdigit():
                raise CaptureError(f"{name}:{n}: bad time {tok[:20]!r}")
            t = int(tok[1:])
            if t < now:
                raise CaptureError(f"{name}:{n}: time #{t} goes backwards (after #{now})")
            if now >= 0 and t != now:
                settle()
                if len(times) >= BLOCK:
                    yield Changes(np.array(times, np.int64), np.array(words, np.uint64))
                    times, words = [], []
            now = t
            now_s = sample(t)
            if limit is not None and now_s > limit:
                raise CaptureError(f"{name}:{n}: time #{t} is past the end ({limit} samples)")
        elif c in "01xXzZ":
            if now < 0:
                raise CaptureError(f"{name}:{n}: value change before the first #time")
            spec = ids.get(tok[1:])
            if spec is None:
                raise CaptureError(f"{name}:{n}: unknown identifier {tok[1:][:20]!r}")
            bit = 1 << spec[0]
            if c in "01":
                xmask &= ~bit
                known |= bit
                levels = (levels | bit) if c == "1" else (levels & ~bit)
            else:
                xmask |= bit
        elif c in "bB":
            value = tok[1:].lower()
            ident, _ = next(tokens, (None, n))
            if ident is None:
                raise CaptureError(f"{name}:{n}: vector value without an identifier")
            spec = ids.get(ident)
            if spec is None:
                raise CaptureError(f"{name}:{n}: unknown identifier {ident[:20]!r}")
            if now < 0:
                raise CaptureError(f"{name}:{n}: value change before the first #time")
            if not value or not re.fullmatch(r"[01xz]+", value) or len(value) > spec[1]:
                raise CaptureError(f"{name}:{n}: bad vector value {tok[:30]!r}")
            fill = value[0] if value[0] in "xz" else "0"
            value = value.rjust(spec[1], fill)
            for k, ch in enumerate(reversed(value)):
                bit = 1 << (spec[0] + k)
                if ch in "01":
                    xmask &= ~bit
                    known |= bit
                    levels = (levels | bit) if ch == "1" else (levels & ~bit)
                else:
                    xmask |= bit
        elif c in "rR":
            next(tokens, None)        # a real value and its identifier: not a digital signal
        elif c == "$":
            if tok in ("$comment", "$date", "$version", "$timescale", "$scope", "$var",
                       "$upscope"):
                _until_end(tokens, name, tok, n)
            elif tok not in ("$dumpvars", "$dumpon", "$dumpoff", "$dumpall", "$end"):
                raise CaptureError(f"{name}:{n}: unexpected {tok[:20]!r} in the VCD body")
        else:
            raise CaptureError(f"{name}:{n}: cannot read {tok[:20]!r} (expected #time or a "
                               "value change)")
    if now >= 0:
        settle()
    if gap_start is not None:
        end = total if total is not None else now_s
        gaps.append(Gap(gap_start, max(end, gap_start), "no data (every signal x in the VCD)"))
    if word is None:
        raise CaptureError(f"{name}: VCD has no value changes")
    if times:
        yield Changes(np.array(times, np.int64), np.array(words, np.uint64))
