##
## TowerLab: libsigrokdecode protocol decoder "darktower" (API version 3).
##
## The rules follow TowerLab's analysis package (analysis/display.py, lamps.py, motor.py,
## keypad.py, speaker.py), which reproduce the shared reference captures' events.jsonl;
## board wiring from MAME's mbdtower driver (docs/dark-tower-wiring.md). This file is
## standalone because libsigrokdecode runs it in its own embedded Python (3.11 here), so
## PINS, GLYPHS, SEGMENT_O, KEYS and LAMPS are copies of captures/darktower_facts.py;
## tests/captures/test_darktower_facts.py checks that they agree.
##

import math
import sigrokdecode as srd

PINS = ['R%d' % i for i in range(11)] + ['O%d' % i for i in range(8)] + \
    ['K1', 'K2', 'K4', 'K8', 'SENSOR']
# Segment byte (bit 0 = a ... bit 6 = g) -> character.
GLYPHS = {0x3F: '0', 0x06: '1', 0x5B: '2', 0x4F: '3', 0x66: '4', 0x6D: '5', 0x7D: '6',
          0x7C: '6', 0x07: '7', 0x27: '7', 0x7F: '8', 0x6F: '9', 0x67: '9', 0x39: 'C',
          0x73: 'P', 0x38: 'L', 0x40: '-', 0x00: ' '}
SEGMENT_O = (5, 6, 1, 2, 3, 4, 0)          # O line of segments a..g
KEYS = (('INVENTORY', 'NO/END', 'CLEAR', 'SANCTUARY/CITADEL'),
        ('FRONTIER', 'REPEAT', 'BAZAAR', 'MOVE'),
        ('DARK TOWER', 'YES/BUY', 'HAGGLE', 'TOMB/RUIN'))
LAMPS = (('upper', 7), ('middle', 6), ('lower', 5))
NOTES = ('C', 'C#', 'D', 'D#', 'E', 'F', 'F#', 'G', 'G#', 'A', 'A#', 'B')

A_DISPLAY, A_LAMP, A_MOTOR, A_TONE, A_CLICK, A_KEY = range(6)


class SamplerateError(Exception):
    pass


def glyph(seg):
    if seg in GLYPHS:
        return GLYPHS[seg]
    return '?'


def note(freq):
    midi = 69 + 12 * math.log2(freq / 440.0)
    n = int(round(midi))
    return '%s%d' % (NOTES[n % 12], n // 12 - 1)


class Decoder(srd.Decoder):
    api_version = 3
    id = 'darktower'
    name = 'Dark Tower'
    longname = 'Milton Bradley Dark Tower (TMS1400 MP7332)'
    desc = 'Digits, card lamps, motor, speaker tones and keys of the Dark Tower board.'
    license = 'mit'
    inputs = ['logic']
    outputs = []
    tags = ['Embedded/industrial']
    channels = ()
    optional_channels = tuple({'id': p.lower(), 'name': p, 'desc': 'TMS1400 pin ' + p}
                              for p in PINS)
    options = (
        {'id': 'min_pulse_ms', 'desc': 'Ignore lamp/motor pulses shorter than (ms)',
         'default': 10.0},
        {'id': 'tone_tol', 'desc': 'Tone period tolerance (fraction)', 'default': 0.03},
    )
    annotations = (
        ('display', 'Display text'),
        ('lamp', 'Card lamp'),
        ('motor', 'Reel motor'),
        ('tone', 'Tone'),
        ('click', 'Click'),
        ('key', 'Key seen by the scan'),
    )
    annotation_rows = (
        ('display', 'Display', (A_DISPLAY,)),
        ('lamps', 'Lamps', (A_LAMP,)),
        ('motor', 'Motor', (A_MOTOR,)),
        ('speaker', 'Speaker', (A_TONE, A_CLICK)),
        ('keys', 'Keys', (A_KEY,)),
    )

    def __init__(self):
        self.reset()

    def reset(self):
        self.samplerate = None
        self.prev = None
        self.win_k = 0
        self.acc = [{}, {}]
        self.last_t = 0
        self.text = None
        self.held = []
        self.state = None
        self.levels = {}
        self.rises = []
        self.strobe = None
        self.keys = [0, 0, 0]

    def metadata(self, key, value):
        if key == srd.SRD_CONF_SAMPLERATE:
            self.samplerate = value

    def start(self):
        self.out_ann = self.register(srd.OUTPUT_ANN)

    def ann(self, ss, es, cls, texts):
        self.put(int(ss), int(max(es, ss + 1)), self.out_ann, [cls, texts])

    # Display: per 1/60 s window, the pattern driven longest (> 2 %) per digit.
    def display_to(self, t, pins):
        win = self.samplerate / 60.0
        while t >= (self.win_k + 1) * win:
            end = (self.win_k + 1) * win
            self.display_add(end - self.last_t)
            self.last_t = end
            chars = ''
            for acc in self.acc:
                best = max(acc, key=lambda s: (acc[s], s)) if acc else 0
                chars += glyph(best) if acc and acc[best] > 0.02 * win else ' '
            self.acc = [{}, {}]
            self.held.append((self.win_k * win, chars))
            self.win_k += 1
            self.display_filter()
        self.display_add(t - self.last_t)
        self.last_t = t

    def display_filter(self):
        # States (runs of equal windows) are judged in time order when the next one starts: a
        # state lasting exactly one window, after a kept state and before another, whose
        # digits each equal that digit of the last kept state or of the next state or are
        # blank, is a transition: dropped, its window given to the next state; a state equal
        # to the last kept one merges into it (tests/data/captures/README.md, the rule at its
        # end; analysis/display.py). A kept state is annotated up to the next state's start;
        # a merged continuation gets its own annotation of the same text.
        if not self.held:
            return
        start, text = self.held.pop()
        state = self.state
        if state is None:
            self.state = [start, text, False]
            return
        if text == state[1]:
            return
        new = [start, text, False]
        if state[2]:
            self.display_ann(state[0], start, state[1])
        else:
            win = self.samplerate / 60.0
            one = round((start - state[0]) / win) == 1
            if (self.text is not None and one and all(
                    c in (a, b, ' ') for a, c, b in zip(self.text, state[1], text))):
                new[0] = state[0]
                new[2] = text == self.text
            else:
                self.display_ann(state[0], start, state[1])
                self.text = state[1]
        self.state = new

    def display_ann(self, ss, es, text):
        if text.strip():
            shown = text.replace(' ', '_')
            self.ann(ss, es, A_DISPLAY, [shown, shown.strip('_')])

    def display_add(self, dur):
        if dur <= 0 or self.prev is None or self.pin(self.prev, 'R4'):
            return
        seg = 0
        for s, line in enumerate(SEGMENT_O):
            if self.pin(self.prev, 'O%d' % line):
                seg |= 1 << s
        if seg:
            acc = self.acc[self.pin(self.prev, 'O7')]
            acc[seg] = acc.get(seg, 0) + dur

    def pin(self, pins, name):
        i = self.index[name]
        return 1 if self.present[i] and pins[i] == 1 else 0

    # Lamps and motor: level changes, pulses shorter than min_pulse_ms ignored.
    def level(self, name, label, cls, value, t):
        lv = self.levels.setdefault(name, {'on': 0, 'since': 0, 'pending': None})
        min_len = self.options['min_pulse_ms'] / 1000.0 * self.samplerate
        if lv['pending'] is not None and t - lv['pending'] >= min_len:
            self.level_accept(lv, label, cls)
        if lv['pending'] is not None:
            if value == lv['on']:
                lv['pending'] = None
        elif value != lv['on']:
            lv['pending'] = t

    def level_accept(self, lv, label, cls):
        t = lv['pending']
        if lv['on']:
            self.ann(lv['since'], t, cls, [label, label[:1]])
        lv['on'] ^= 1
        lv['since'] = t
        lv['pending'] = None

    def levels_flush(self, t):
        min_len = self.options['min_pulse_ms'] / 1000.0 * self.samplerate
        for name, (label, cls) in self.level_labels().items():
            lv = self.levels.get(name)
            if lv and lv['pending'] is not None and t - lv['pending'] >= min_len:
                self.level_accept(lv, label, cls)

    def level_labels(self):
        labels = {'R%d' % pin: ('lamp %s' % lamp, A_LAMP) for lamp, pin in LAMPS}
        labels['R9'] = ('motor on', A_MOTOR)
        return labels

    # Speaker: rises of R10 while R4 is low, grouped into runs within 3 % of the first period.
    def tones_flush(self):
        r = self.rises
        tol = self.options['tone_tol']
        maxp = 0.025 * self.samplerate
        i, runs = 0, []
        while i < len(r) - 1:
            p = r[i + 1] - r[i]
            if p >= maxp:
                i += 1
                continue
            j = i + 1
            while (j + 1 < len(r) and r[j + 1] - r[j] < maxp
                   and abs(r[j + 1] - r[j] - p) <= tol * p):
                j += 1
            runs.append((i, j))
            i = j
        covered = set()
        for k, (i, j) in enumerate(runs):
            if (j == i + 1 and 0 < k < len(runs) - 1 and runs[k - 1][1] == i
                    and runs[k + 1][0] == j and (runs[k - 1][1] - runs[k - 1][0] > 1
                                                 or runs[k + 1][1] - runs[k + 1][0] > 1)):
                continue      # the seam between two legato notes
            covered.update(range(i, j + 1))
            freq = (j - i) * self.samplerate / float(r[j] - r[i])
            label = '%.1f Hz %s (%d pulses)' % (freq, note(freq), j - i + 1)
            self.ann(r[i], r[j], A_TONE, [label, '%.1f Hz' % freq, note(freq)])
        for k, t in enumerate(r):
            if k not in covered:
                self.ann(t, t + 1, A_CLICK, ['click', 'c'])
        self.rises = []

    # Keys: a strobe is one of R0-R2 high alone; rows high during it are its pressed keys.
    def keypad(self, pins, t):
        cols = [self.pin(pins, 'R%d' % c) for c in range(3)]
        col = cols.index(1) if sum(cols) == 1 else -1
        rows = sum(self.pin(pins, n) << b for b, n in enumerate(('K1', 'K2', 'K4', 'K8')))
        if self.strobe is not None and self.strobe[0] != col:
            c, start, seen, blind = self.strobe
            if blind:
                seen = (seen & 7) | (self.keys[c] & 8)
            for row in range(4):
                if seen >> row & 1 and not self.keys[c] >> row & 1:
                    self.ann(start, t, A_KEY, [KEYS[c][row], KEYS[c][row][:3]])
            self.keys[c] = seen
            self.strobe = None
        if col >= 0:
            if self.strobe is None:
                self.strobe = [col, t, 0, False]
            self.strobe[2] |= rows
            if self.pin(pins, 'SENSOR'):
                self.strobe[3] = True

    def decode(self):
        if not self.samplerate:
            raise SamplerateError('Cannot decode without samplerate.')
        # Ask has_channel() once per pin: libsigrokdecode 0.5.3 returns its bool without a
        # reference, and calling it per sample crashes the embedded Python.
        self.present = [bool(self.has_channel(i)) for i in range(len(PINS))]
        self.index = {name: i for i, name in enumerate(PINS)}
        conds = [{i: 'e'} for i in range(len(PINS)) if self.present[i]]
        if not conds:
            return
        pins = self.wait()
        t = self.samplenum
        self.prev = pins
        while True:
            self.on_change(pins, t)
            self.prev = pins
            pins = self.wait(conds)
            t = self.samplenum

    def on_change(self, pins, t):
        self.display_to(t, pins)
        self.levels_flush(t)
        r4 = self.pin(pins, 'R4')
        for lamp, pin in LAMPS:
            lit = self.pin(pins, 'R%d' % pin) and not r4
            self.level('R%d' % pin, 'lamp ' + lamp, A_LAMP, 1 if lit else 0, t)
        self.level('R9', 'motor on', A_MOTOR, self.pin(pins, 'R9'), t)
        if self.rises and t - self.rises[-1] >= 0.025 * self.samplerate:
            self.tones_flush()
        if self.pin(pins, 'R10') and not self.pin(self.prev, 'R10') and not r4 \
                and self.prev is not pins:
            self.rises.append(t)
        self.keypad(pins, t)
