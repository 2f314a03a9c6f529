/* _fastcore: the accelerated TMS1000-family execution kernel.
 *
 * It executes the same chip model as the reference core (emulator/core.py): the decode
 * (micro-op bitmask, hard-wired action, CKI constant per opcode, output PLA) is computed once
 * in Python by emulator.decode and handed over as tables; this file only executes by lookup.
 * Behaviour follows docs/tms1400.md (sections 3, 5, 7, 8, 9, 11), exactly as the reference core.
 *
 * It runs many instructions per call and returns to Python only when
 *   - the requested cycle is reached,
 *   - the pin-change buffer is full,
 *   - an R or O pin selected by the stop masks changes, or
 *   - a K read needs Python (a Python K provider is installed instead of the OR-form).
 * K in the fast path is the OR-form every board here uses (TI data manual: the K lines are a
 * wired OR of the selected matrix rows):  K = kconst | OR(kr[i] for R bit i set)
 *                                                      | OR(ko[j] for O pin j set).
 * Pin changes are buffered as (cycle, kind, value) with kind 0 = R pins, 1 = O pins.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* micro-op bits, MAME order (facts 4.2), after the 0x3FC8 polarity fix */
enum { M_STSL = 1 << 0, M_AUTY = 1 << 1, M_AUTA = 1 << 2, M_CIN = 1 << 3, M_C8 = 1 << 4,
       M_NE = 1 << 5, M_CKN = 1 << 6, M_15TN = 1 << 7, M_MTN = 1 << 8, M_NATN = 1 << 9,
       M_ATN = 1 << 10, M_MTP = 1 << 11, M_YTP = 1 << 12, M_CKP = 1 << 13, M_CKM = 1 << 14,
       M_STO = 1 << 15 };

/* hard-wired actions; the numbering is shared with emulator/fastcore.py (FIXED_CODES) */
enum { F_NONE = 0, F_BR, F_CALL, F_RETN, F_LDP, F_LDX, F_COMX, F_COMX8, F_SBIT, F_RBIT,
       F_SETR, F_RSTR, F_TDO, F_CLO, F_COMC, F_TPC };

#define EDGE_CAP 65536

typedef struct {
    uint64_t cycle;
    uint16_t value;
    uint8_t kind;
} edge_t;

/* one trace record: the state before an instruction */
typedef struct {
    uint64_t cycle;
    uint16_t r;
    uint8_t ca, pa, pc, op, a, x, y, s, sl, pb, cb, o;
} trace_t;

/* Debugger watch (emulator/debug.py). When armed, instructions that match are recorded with the
 * whole chip state at the point the debugger would stop (the fields of state()): a PC hit
 * before the instruction at a marked ROM address runs, the other kinds after the instruction
 * that read or wrote a marked RAM nibble, took a non-zero K into the adder or RAM (TKA, KNEZ),
 * or changed a marked R / O pin.
 * Recording never stops the run: the debugger re-runs to the hit it wants. */
enum { H_PC = 0, H_RAM_READ, H_RAM_WRITE, H_K, H_R, H_O };
enum { W_PC = 1, W_AFTER = 2 };   /* armed: PC bitmap; RAM, K or pin watch (checked after) */
#define HIT_CAP 8192

typedef struct {
    uint64_t cycle;
    uint16_t r, where;     /* where: ROM address, RAM address, K value or changed pin bits */
    uint16_t from;         /* ROM address of the instruction that made the hit */
    uint8_t kind, a, x, y, pc, pa, pb, ca, cb, cl, status, sl, o, o_index, op;
    uint8_t sr[3], ps[3], cs[3];
    uint8_t ram[128];
} hit_t;

typedef struct {
    PyObject_HEAD
    /* decode tables (read-only after init) */
    uint8_t rom[4096];
    uint32_t rom_size;
    uint16_t micro[256];
    uint8_t fixed[256];
    uint8_t operand[256];
    uint8_t cki[256];      /* constant CKI value; 0xFF = read K */
    uint8_t opla[32];
    int chapter_bits, stack_depth, x_mask, setr_x_rule, r_mask;
    /* registers */
    uint8_t a, x, y, pc, pa, pb, ca, cb, cl, status, sl, o_index, o, op;
    uint8_t sr[3], ps[3], cs[3];
    uint16_t r;
    uint8_t ram[128];
    uint64_t cycle;        /* fetch cycle of the instruction to execute next (6n + 5) */
    uint64_t steps;        /* instructions executed since reset */
    /* K OR-form */
    uint8_t kconst, kr[16], ko[8];
    PyObject *k_callback;  /* if set, K is read from Python: k_callback(cycle) -> int */
    /* stop conditions */
    uint16_t stop_r_mask;
    uint8_t stop_o_mask;
    /* pin-change buffer */
    edge_t edges[EDGE_CAP];
    int n_edges;
    /* optional trace buffer */
    trace_t *trace;
    Py_ssize_t trace_cap, n_trace;
    /* debugger watch: 0 = off (one test per instruction), else W_* bits of what is armed */
    int watching;
    uint8_t w_brk[512];               /* ROM address bitmap */
    uint8_t w_read[16], w_write[16];  /* RAM address bitmaps */
    uint8_t w_k;                      /* record K reads that return non-zero */
    uint16_t w_r;
    uint8_t w_o;
    uint16_t w_from;                  /* ROM address of the instruction being executed */
    hit_t *hits;
    int n_hits;
    uint64_t hits_dropped;            /* stop cycle of the first hit not recorded, 0 = none */
} Core;

static uint8_t next_pc[64];
static uint8_t prev_pc[64];

static void init_lfsr(void)
{
    for (int p = 0; p < 64; p++) {
        int f = (((p >> 5) & 1) == ((p >> 4) & 1)) ? 1 : 0;
        if (p == 0x1F) f = 1;
        if (p == 0x3F) f = 0;
        next_pc[p] = (uint8_t)(((p << 1) | f) & 0x3F);
    }
    for (int p = 0; p < 64; p++) prev_pc[next_pc[p]] = (uint8_t)p;
}

static inline void push_edge(Core *c, uint64_t cycle, uint8_t kind, uint16_t value)
{
    edge_t *e = &c->edges[c->n_edges++];
    e->cycle = cycle;
    e->kind = kind;
    e->value = value;
}

static inline uint8_t k_orform(Core *c)
{
    uint8_t k = c->kconst;
    uint16_t r = c->r & c->r_mask;
    for (int i = 0; r; i++, r >>= 1)
        if (r & 1) k |= c->kr[i];
    uint8_t o = c->o;
    for (int j = 0; o; j++, o >>= 1)
        if (o & 1) k |= c->ko[j];
    return k & 0xF;
}

static inline void fetch(Core *c)
{
    uint32_t addr = ((uint32_t)c->ca << 10) | ((uint32_t)c->pa << 6) | c->pc;
    c->op = c->rom[addr % c->rom_size];
    c->pc = next_pc[c->pc];
}

static void record_hit(Core *c, uint8_t kind, uint16_t where)
{
    if (c->n_hits >= HIT_CAP) {
        if (!c->hits_dropped) c->hits_dropped = c->cycle;
        return;
    }
    hit_t *h = &c->hits[c->n_hits++];
    h->cycle = c->cycle; h->r = c->r; h->where = where; h->from = c->w_from; h->kind = kind;
    h->a = c->a; h->x = c->x; h->y = c->y; h->pc = c->pc; h->pa = c->pa; h->pb = c->pb;
    h->ca = c->ca; h->cb = c->cb; h->cl = c->cl; h->status = c->status; h->sl = c->sl;
    h->o = c->o; h->o_index = c->o_index; h->op = c->op;
    memcpy(h->sr, c->sr, 3); memcpy(h->ps, c->ps, 3); memcpy(h->cs, c->cs, 3);
    memcpy(h->ram, c->ram, 128);
}

#define BIT_SET(map, i) ((map)[(i) >> 3] >> ((i) & 7) & 1)

/* Execute one instruction. Returns 0, 1 when a stop-masked pin changed, -1 on a Python error. */
static int step_one(Core *c)
{
    const uint8_t op = c->op;
    const uint16_t mi = c->micro[op];
    const uint8_t fx = c->fixed[op];
    const uint64_t fetch_cycle = c->cycle;
    int stop = 0;

    if (c->trace && c->n_trace < c->trace_cap) {
        trace_t *t = &c->trace[c->n_trace++];
        t->cycle = fetch_cycle;
        t->r = c->r & c->r_mask;
        t->ca = c->ca; t->pa = c->pa; t->op = op;
        /* the address of this instruction: the PC before the advance made at its fetch */
        t->pc = prev_pc[c->pc];
        t->a = c->a; t->x = c->x; t->y = c->y; t->s = c->status; t->sl = c->sl;
        t->pb = c->pb; t->cb = c->cb; t->o = c->o;
    }
    uint16_t w_pins = 0;   /* debugger watch: pin bits changed by this instruction */
    int w_kval = 0;
    if (c->watching & W_PC) {
        /* rom_size is 1024, 2048 or 4096 (Core_init) */
        uint16_t addr = (uint16_t)((((uint32_t)c->ca << 10) | ((uint32_t)c->pa << 6)
                                    | prev_pc[c->pc]) & (c->rom_size - 1));
        c->w_from = addr;
        if (BIT_SET(c->w_brk, addr)) record_hit(c, H_PC, addr);
    } else if (c->watching) {
        c->w_from = (uint16_t)((((uint32_t)c->ca << 10) | ((uint32_t)c->pa << 6)
                                | prev_pc[c->pc]) & (c->rom_size - 1));
    }

    /* sub-cycle 0: branch, call, return with the previous STATUS (facts 7) */
    if (fx == F_BR) {
        if (c->status) {
            if (c->stack_depth == 1) {
                if (!c->cl) c->pa = c->pb;
            } else {
                c->pa = c->pb;
            }
            c->ca = c->cb;
            c->pc = c->operand[op];
        }
    } else if (fx == F_CALL) {
        if (c->status) {
            if (c->stack_depth == 1) {
                uint8_t old = c->pa;
                if (!c->cl) {
                    c->cl = 1;
                    c->sr[0] = c->pc;
                    c->pa = c->pb;
                    c->cs[0] = c->ca;
                }
                c->ca = c->cb;
                c->pb = old;
                c->pc = c->operand[op];
            } else {
                c->cl = (uint8_t)(((c->cl << 1) | 1) & 7);
                c->sr[2] = c->sr[1]; c->sr[1] = c->sr[0]; c->sr[0] = c->pc;
                c->ps[2] = c->ps[1]; c->ps[1] = c->ps[0]; c->ps[0] = c->pa;
                c->cs[2] = c->cs[1]; c->cs[1] = c->cs[0]; c->cs[0] = c->ca;
                c->pc = c->operand[op];
                c->pa = c->pb;
                c->ca = c->cb;
            }
        } else if (c->stack_depth > 1) {
            c->pb = c->pa;
            c->cb = c->ca;
        }
    } else if (fx == F_RETN) {
        if (c->stack_depth == 1) {
            if (c->cl) {
                c->cl = 0;
                c->pc = c->sr[0];
                c->ca = c->cs[0];
            }
            c->pa = c->pb;
        } else if (c->cl & 1) {
            c->cl >>= 1;
            c->pc = c->sr[0];
            c->pa = c->pb = c->ps[0];
            c->ca = c->cb = c->cs[0];
            c->sr[0] = c->sr[1]; c->sr[1] = c->sr[2];
            c->ps[0] = c->ps[1]; c->ps[1] = c->ps[2];
            c->cs[0] = c->cs[1]; c->cs[1] = c->cs[2];
        }
    }

    /* CKI bus (facts 5.2.1) and the RAM-in nibble at the latched address */
    uint8_t cki = c->cki[op];
    if (cki == 0xFF) {
        if (c->k_callback) {
            PyObject *res = PyObject_CallFunction(c->k_callback, "K",
                                                  (unsigned long long)(fetch_cycle + 1));
            if (!res) return -1;
            long v = PyLong_AsLong(res);
            Py_DECREF(res);
            if (v == -1 && PyErr_Occurred()) return -1;
            cki = (uint8_t)(v & 0xF);
        } else {
            cki = k_orform(c);
        }
        w_kval = cki;
    }
    const uint8_t ram_addr = (uint8_t)(((c->x << 4) | c->y) & 0x7F);
    const uint8_t m = c->ram[ram_addr] & 0xF;

    /* sub-cycle 1: adder inputs (facts 4.1) */
    uint8_t n = 0, p = 0;
    if (mi & M_15TN) n |= 0xF;
    if (mi & M_ATN) n |= c->a;
    if (mi & M_NATN) n |= (~c->a) & 0xF;
    if (mi & M_CKN) n |= cki;
    if (mi & M_MTN) n |= m;
    if (mi & M_CKP) p |= cki;
    if (mi & M_MTP) p |= m;
    if (mi & M_YTP) p |= c->y;
    const unsigned sum = (unsigned)p + n + ((mi & M_CIN) ? 1 : 0);

    /* sub-cycle 2: status, RAM write value, hard-wired operations */
    uint8_t status = 1;
    if ((mi & M_C8) && !(sum & 0x10)) status = 0;
    if ((mi & M_NE) && n == p) status = 0;
    int write = 0;
    uint8_t wval = 0;
    if (mi & M_CKM) { write = 1; wval = cki; }
    if (mi & M_STO) { write = 1; wval = c->a; }

    switch (fx) {
    case F_SBIT:
        wval = (uint8_t)((write ? wval : m) | (cki ^ 0xF));
        write = 1;
        break;
    case F_RBIT:
        wval = (uint8_t)((write ? wval : m) & cki);
        write = 1;
        break;
    case F_SETR:
    case F_RSTR:
        if (!c->setr_x_rule || c->x < 4) {
            uint16_t old = c->r & c->r_mask;
            if (fx == F_SETR) c->r |= (uint16_t)(1u << c->y);
            else c->r &= (uint16_t)~(1u << c->y);
            uint16_t now = c->r & c->r_mask;
            if (now != old) {
                push_edge(c, fetch_cycle + 3, 0, now);
                if ((now ^ old) & c->stop_r_mask) stop = 1;
                w_pins = (uint16_t)(now ^ old);
            }
        }
        break;
    case F_TDO:
    case F_CLO: {
        c->o_index = (fx == F_TDO) ? (uint8_t)(((c->sl << 4) | c->a) & 0x1F) : 0;
        uint8_t old = c->o;
        c->o = c->opla[c->o_index];
        if (c->o != old) {
            push_edge(c, fetch_cycle + 3, 1, c->o);
            if ((c->o ^ old) & c->stop_o_mask) stop = 1;
            w_pins = (uint16_t)(c->o ^ old);
        }
        break;
    }
    case F_LDX: c->x = c->operand[op]; break;
    case F_COMX: c->x ^= (uint8_t)c->x_mask; break;
    case F_COMX8: c->x ^= 4; break;
    case F_LDP: c->pb = c->operand[op]; break;
    case F_COMC: c->cb ^= 1; break;
    case F_TPC: c->cb = c->pb & 3; break;
    default: break;
    }
    c->status = status;
    if (write) c->ram[ram_addr] = wval & 0xF;

    /* sub-cycle 4: register stores, then the next fetch */
    if (mi & M_AUTA) c->a = sum & 0xF;
    if (mi & M_AUTY) c->y = sum & 0xF;
    if (mi & M_STSL) c->sl = status;
    fetch(c);
    c->cycle += 6;
    c->steps++;
    if (c->watching & W_AFTER) {
        /* a read: the adder takes the nibble (MTP, MTN) or SBIT/RBIT modify it */
        if (((mi & (M_MTP | M_MTN)) || fx == F_SBIT || fx == F_RBIT)
            && BIT_SET(c->w_read, ram_addr))
            record_hit(c, H_RAM_READ, ram_addr);
        if (write && BIT_SET(c->w_write, ram_addr)) record_hit(c, H_RAM_WRITE, ram_addr);
        /* a K read: the micro-ops take the CKI bus while it carries K (TKA, KNEZ) */
        if (w_kval && c->w_k && (mi & (M_CKP | M_CKN | M_CKM)))
            record_hit(c, H_K, (uint16_t)w_kval);
        if (w_pins) {
            if ((fx == F_SETR || fx == F_RSTR) && (w_pins & c->w_r))
                record_hit(c, H_R, (uint16_t)(w_pins & c->w_r));
            else if ((fx == F_TDO || fx == F_CLO) && (w_pins & c->w_o))
                record_hit(c, H_O, (uint16_t)(w_pins & c->w_o));
        }
    }
    return stop;
}

/* ---------------------------------------------------------------- Python glue */

static int get_buffer_exact(PyObject *obj, Py_ssize_t size, const char *what, Py_buffer *view)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_SIMPLE) < 0) return -1;
    if (view->len != size) {
        PyErr_Format(PyExc_ValueError, "%s must be %zd bytes, got %zd", what, size, view->len);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static int Core_init(Core *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"rom", "micro", "fixed", "operand", "cki", "opla",
                             "chapter_bits", "stack_depth", "x_mask", "setr_x_rule", NULL};
    PyObject *rom, *micro, *fixed, *operand, *cki, *opla;
    int chapter_bits, stack_depth, x_mask, setr_x_rule;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOOOOiiii", kwlist, &rom, &micro, &fixed,
                                     &operand, &cki, &opla, &chapter_bits, &stack_depth,
                                     &x_mask, &setr_x_rule))
        return -1;
    Py_buffer v;
    if (PyObject_GetBuffer(rom, &v, PyBUF_SIMPLE) < 0) return -1;
    if (v.len < 1 || v.len > 4096 || (v.len & (v.len - 1))) {
        PyErr_Format(PyExc_ValueError, "rom must be 1024, 2048 or 4096 bytes, got %zd", v.len);
        PyBuffer_Release(&v);
        return -1;
    }
    memcpy(self->rom, v.buf, (size_t)v.len);
    self->rom_size = (uint32_t)v.len;
    PyBuffer_Release(&v);
    if (get_buffer_exact(micro, 512, "micro", &v) < 0) return -1;
    for (int i = 0; i < 256; i++)
        self->micro[i] = (uint16_t)(((uint8_t *)v.buf)[2 * i] | (((uint8_t *)v.buf)[2 * i + 1] << 8));
    PyBuffer_Release(&v);
    if (get_buffer_exact(fixed, 256, "fixed", &v) < 0) return -1;
    memcpy(self->fixed, v.buf, 256);
    PyBuffer_Release(&v);
    if (get_buffer_exact(operand, 256, "operand", &v) < 0) return -1;
    memcpy(self->operand, v.buf, 256);
    PyBuffer_Release(&v);
    if (get_buffer_exact(cki, 256, "cki", &v) < 0) return -1;
    memcpy(self->cki, v.buf, 256);
    PyBuffer_Release(&v);
    if (get_buffer_exact(opla, 32, "opla", &v) < 0) return -1;
    memcpy(self->opla, v.buf, 32);
    PyBuffer_Release(&v);
    self->chapter_bits = chapter_bits;
    self->stack_depth = stack_depth;
    self->x_mask = x_mask;
    self->setr_x_rule = setr_x_rule;
    self->r_mask = 0x7FF;
    self->k_callback = NULL;
    self->trace = NULL;
    self->n_edges = 0;
    self->watching = 0;
    self->hits = NULL;
    self->n_hits = 0;
    self->hits_dropped = 0;
    return 0;
}

static void Core_dealloc(Core *self)
{
    Py_XDECREF(self->k_callback);
    PyMem_Free(self->trace);
    PyMem_Free(self->hits);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* reset(): the power-on state of MAME's device start + reset (facts 11). RAM, A, X, Y, SL and
 * the stack are zero at power-on and left alone by later resets (power_on=False). */
static PyObject *Core_reset(Core *self, PyObject *args)
{
    unsigned long long at = 0;
    int power_on = 0;
    if (!PyArg_ParseTuple(args, "|Kp", &at, &power_on)) return NULL;
    if (power_on) {
        self->a = self->x = self->y = self->sl = 0;
        memset(self->ram, 0, sizeof self->ram);
        memset(self->sr, 0, 3); memset(self->ps, 0, 3);
    }
    self->pa = self->pb = 0xF;
    self->pc = 0;
    self->ca = self->cb = 0;
    memset(self->cs, 0, 3);
    self->cl = 0;
    self->r = 0;
    self->o_index = 0;
    self->o = self->opla[0];
    self->n_edges = 0;
    push_edge(self, at, 0, 0);
    push_edge(self, at, 1, self->o);
    /* the first real opcode is fetched at clock at + 5 and sees STATUS = 1 (facts 3) */
    self->status = 1;
    self->cycle = at + 5;
    self->steps = 0;
    fetch(self);
    Py_RETURN_NONE;
}

static PyObject *Core_run(Core *self, PyObject *args)
{
    unsigned long long until;
    if (!PyArg_ParseTuple(args, "K", &until)) return NULL;
    const uint64_t start = self->steps;
    while (self->cycle < until) {
        if (self->n_edges >= EDGE_CAP - 2) break;
        int rc = step_one(self);
        if (rc < 0) return NULL;
        if (rc > 0) break;
    }
    return PyLong_FromUnsignedLongLong(self->steps - start);
}

static PyObject *Core_step(Core *self, PyObject *args)
{
    (void)args;
    if (self->n_edges >= EDGE_CAP - 2) {
        PyErr_SetString(PyExc_RuntimeError, "pin-change buffer full: call take_edges()");
        return NULL;
    }
    if (step_one(self) < 0) return NULL;
    Py_RETURN_NONE;
}

/* take_edges() -> list of (cycle, kind, value); clears the buffer */
static PyObject *Core_take_edges(Core *self, PyObject *args)
{
    (void)args;
    PyObject *list = PyList_New(self->n_edges);
    if (!list) return NULL;
    for (int i = 0; i < self->n_edges; i++) {
        edge_t *e = &self->edges[i];
        PyObject *t = Py_BuildValue("(KiI)", (unsigned long long)e->cycle, (int)e->kind,
                                    (unsigned)e->value);
        if (!t) { Py_DECREF(list); return NULL; }
        PyList_SET_ITEM(list, i, t);
    }
    self->n_edges = 0;
    return list;
}

static PyObject *Core_set_k(Core *self, PyObject *args)
{
    int kconst;
    Py_buffer kr, ko;
    if (!PyArg_ParseTuple(args, "iy*y*", &kconst, &kr, &ko)) return NULL;
    if (kr.len != 16 || ko.len != 8) {
        PyBuffer_Release(&kr); PyBuffer_Release(&ko);
        PyErr_SetString(PyExc_ValueError, "set_k needs 16 R-row bytes and 8 O-row bytes");
        return NULL;
    }
    self->kconst = (uint8_t)(kconst & 0xF);
    memcpy(self->kr, kr.buf, 16);
    memcpy(self->ko, ko.buf, 8);
    PyBuffer_Release(&kr); PyBuffer_Release(&ko);
    Py_RETURN_NONE;
}

static PyObject *Core_set_k_callback(Core *self, PyObject *args)
{
    PyObject *cb;
    if (!PyArg_ParseTuple(args, "O", &cb)) return NULL;
    Py_XDECREF(self->k_callback);
    if (cb == Py_None) { self->k_callback = NULL; }
    else { Py_INCREF(cb); self->k_callback = cb; }
    Py_RETURN_NONE;
}

static PyObject *Core_set_stop(Core *self, PyObject *args)
{
    int rmask, omask;
    if (!PyArg_ParseTuple(args, "ii", &rmask, &omask)) return NULL;
    self->stop_r_mask = (uint16_t)rmask;
    self->stop_o_mask = (uint8_t)omask;
    Py_RETURN_NONE;
}

/* trace(n) -> bytes of n packed records (see trace_t; emulator/fastcore.py unpacks them).
 * Executes up to n instructions, recording the state before each. */
static PyObject *Core_trace(Core *self, PyObject *args)
{
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "n", &n)) return NULL;
    if (n < 0) { PyErr_SetString(PyExc_ValueError, "n must be >= 0"); return NULL; }
    PyMem_Free(self->trace);
    self->trace = PyMem_Malloc(sizeof(trace_t) * (size_t)(n ? n : 1));
    if (!self->trace) return PyErr_NoMemory();
    self->trace_cap = n;
    self->n_trace = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (self->n_edges >= EDGE_CAP - 2) self->n_edges = 0;  /* trace mode keeps no edges */
        int rc = step_one(self);
        if (rc < 0) { PyMem_Free(self->trace); self->trace = NULL; return NULL; }
    }
    PyObject *out = PyBytes_FromStringAndSize((const char *)self->trace,
                                              (Py_ssize_t)(sizeof(trace_t) * (size_t)n));
    PyMem_Free(self->trace);
    self->trace = NULL;
    return out;
}

/* state() -> dict of registers; set_state(dict) restores them (the reference core's names) */
static PyObject *Core_state(Core *self, PyObject *args)
{
    (void)args;
    return Py_BuildValue(
        "{s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:K,s:K,"
        "s:(iii),s:(iii),s:(iii),s:y#}",
        "a", self->a, "x", self->x, "y", self->y, "pc", self->pc, "pa", self->pa,
        "pb", self->pb, "ca", self->ca, "cb", self->cb, "cl", self->cl, "status", self->status,
        "sl", self->sl, "r", self->r, "o", self->o, "o_index", self->o_index, "op", self->op,
        "cycle", (unsigned long long)self->cycle, "steps", (unsigned long long)self->steps,
        "sr", self->sr[0], self->sr[1], self->sr[2], "ps", self->ps[0], self->ps[1], self->ps[2],
        "cs", self->cs[0], self->cs[1], self->cs[2], "ram", (const char *)self->ram,
        (Py_ssize_t)128);
}

static int dict_int(PyObject *d, const char *key, long *out)
{
    PyObject *v = PyDict_GetItemString(d, key);
    if (!v) { PyErr_Format(PyExc_KeyError, "state has no %s", key); return -1; }
    *out = PyLong_AsLong(v);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

static PyObject *Core_set_state(Core *self, PyObject *args)
{
    PyObject *d;
    if (!PyArg_ParseTuple(args, "O!", &PyDict_Type, &d)) return NULL;
    long v;
#define SETF(name) if (dict_int(d, #name, &v) < 0) return NULL; self->name = (uint8_t)v;
    SETF(a) SETF(x) SETF(y) SETF(pc) SETF(pa) SETF(pb) SETF(ca) SETF(cb) SETF(cl)
    SETF(status) SETF(sl) SETF(o) SETF(o_index) SETF(op)
#undef SETF
    if (dict_int(d, "r", &v) < 0) return NULL;
    self->r = (uint16_t)v;
    PyObject *cyc = PyDict_GetItemString(d, "cycle");
    if (cyc) self->cycle = PyLong_AsUnsignedLongLong(cyc);
    const char *names[3] = {"sr", "ps", "cs"};
    uint8_t *dst[3] = {self->sr, self->ps, self->cs};
    for (int k = 0; k < 3; k++) {
        PyObject *t = PyDict_GetItemString(d, names[k]);
        if (t) {
            for (int i = 0; i < 3 && i < PySequence_Size(t); i++) {
                PyObject *it = PySequence_GetItem(t, i);
                dst[k][i] = (uint8_t)PyLong_AsLong(it);
                Py_XDECREF(it);
            }
        }
    }
    PyObject *ram = PyDict_GetItemString(d, "ram");
    if (ram) {
        Py_buffer b;
        if (PyObject_GetBuffer(ram, &b, PyBUF_SIMPLE) < 0) return NULL;
        memcpy(self->ram, b.buf, b.len < 128 ? (size_t)b.len : 128);
        PyBuffer_Release(&b);
    }
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

/* set_watch(brk: 512 bytes, ram_read: 16 bytes, ram_write: 16 bytes, k: bool, r_mask, o_mask)
 * arms the debugger watch and clears the hit buffer; set_watch(None) disarms it. */
static PyObject *Core_set_watch(Core *self, PyObject *args)
{
    PyObject *brk, *rd = NULL, *wr = NULL;
    int k = 0, rmask = 0, omask = 0;
    if (!PyArg_ParseTuple(args, "O|OOpii", &brk, &rd, &wr, &k, &rmask, &omask)) return NULL;
    self->n_hits = 0;
    self->hits_dropped = 0;
    if (brk == Py_None) {
        self->watching = 0;
        Py_RETURN_NONE;
    }
    if (!rd || !wr) {
        PyErr_SetString(PyExc_TypeError, "set_watch needs brk, ram_read and ram_write bitmaps");
        return NULL;
    }
    Py_buffer v;
    if (get_buffer_exact(brk, 512, "brk", &v) < 0) return NULL;
    memcpy(self->w_brk, v.buf, 512);
    PyBuffer_Release(&v);
    if (get_buffer_exact(rd, 16, "ram_read", &v) < 0) return NULL;
    memcpy(self->w_read, v.buf, 16);
    PyBuffer_Release(&v);
    if (get_buffer_exact(wr, 16, "ram_write", &v) < 0) return NULL;
    memcpy(self->w_write, v.buf, 16);
    PyBuffer_Release(&v);
    if (!self->hits) {
        self->hits = PyMem_Malloc(sizeof(hit_t) * HIT_CAP);
        if (!self->hits) return PyErr_NoMemory();
    }
    self->w_k = (uint8_t)k;
    self->w_r = (uint16_t)rmask;
    self->w_o = (uint8_t)omask;
    int any_pc = 0, any_after = k || rmask || omask;
    for (int i = 0; i < 512; i++) any_pc |= self->w_brk[i];
    for (int i = 0; i < 16; i++) any_after |= self->w_read[i] | self->w_write[i];
    self->watching = (any_pc ? W_PC : 0) | (any_after ? W_AFTER : 0);
    Py_RETURN_NONE;
}

/* take_hits() -> (bytes of packed hit records, stop cycle of the first dropped hit or 0) */
static PyObject *Core_take_hits(Core *self, PyObject *args)
{
    (void)args;
    PyObject *out = PyBytes_FromStringAndSize(self->hits ? (const char *)self->hits : "",
                                              (Py_ssize_t)(sizeof(hit_t) * (size_t)self->n_hits));
    if (!out) return NULL;
    PyObject *res = Py_BuildValue("(NK)", out, (unsigned long long)self->hits_dropped);
    self->n_hits = 0;
    self->hits_dropped = 0;
    return res;
}

static PyObject *Core_get_cycle(Core *self, void *closure)
{
    (void)closure;
    return PyLong_FromUnsignedLongLong(self->cycle);
}

static PyObject *Core_get_steps(Core *self, void *closure)
{
    (void)closure;
    return PyLong_FromUnsignedLongLong(self->steps);
}

static PyObject *Core_get_pins(Core *self, void *closure)
{
    (void)closure;
    return Py_BuildValue("(ii)", self->r & self->r_mask, self->o);
}

static PyObject *Core_get_n_edges(Core *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(self->n_edges);
}

static PyMethodDef Core_methods[] = {
    {"reset", (PyCFunction)Core_reset, METH_VARARGS, "reset(at=0, power_on=False): INIT at clock `at`; power_on also zeroes RAM, A, X, Y, SL."},
    {"run", (PyCFunction)Core_run, METH_VARARGS, "Run until the fetch cycle reaches `until`, a stop pin changes or the edge buffer fills; return instructions run."},
    {"step", (PyCFunction)Core_step, METH_NOARGS, "Execute one instruction."},
    {"take_edges", (PyCFunction)Core_take_edges, METH_NOARGS, "Return and clear the buffered pin changes (cycle, kind 0=R 1=O, value)."},
    {"set_k", (PyCFunction)Core_set_k, METH_VARARGS, "Set the K OR-form: kconst, 16 R-row bytes, 8 O-row bytes."},
    {"set_k_callback", (PyCFunction)Core_set_k_callback, METH_VARARGS, "Read K from a Python callable(cycle) instead of the OR-form (None to clear)."},
    {"set_stop", (PyCFunction)Core_set_stop, METH_VARARGS, "Return from run() when an R pin in rmask or an O pin in omask changes."},
    {"trace", (PyCFunction)Core_trace, METH_VARARGS, "Execute n instructions and return their packed before-states."},
    {"state", (PyCFunction)Core_state, METH_NOARGS, "Return the registers as a dict."},
    {"set_state", (PyCFunction)Core_set_state, METH_VARARGS, "Restore registers from a dict made by state()."},
    {"set_watch", (PyCFunction)Core_set_watch, METH_VARARGS, "Arm the debugger watch: set_watch(brk512, ram_read16, ram_write16, k, r_mask, o_mask); set_watch(None) disarms."},
    {"take_hits", (PyCFunction)Core_take_hits, METH_NOARGS, "Return (packed hit records, first dropped stop cycle or 0) and clear them."},
    {NULL, NULL, 0, NULL}
};

static PyGetSetDef Core_getset[] = {
    {"cycle", (getter)Core_get_cycle, NULL, "fetch cycle of the next instruction (6n + 5)", NULL},
    {"steps", (getter)Core_get_steps, NULL, "instructions executed since reset", NULL},
    {"pins", (getter)Core_get_pins, NULL, "(R pins, O pins)", NULL},
    {"n_edges", (getter)Core_get_n_edges, NULL, "buffered pin changes", NULL},
    {NULL, NULL, NULL, NULL, NULL}
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "emulator._fastcore.Core",
    .tp_basicsize = sizeof(Core),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Accelerated TMS1000-family execution kernel (decode tables come from Python).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Core_init,
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_methods = Core_methods,
    .tp_getset = Core_getset,
};

static struct PyModuleDef moddef = {
    PyModuleDef_HEAD_INIT, "_fastcore",
    "Accelerated TMS1000-family execution kernel for TowerLab.", -1, NULL, NULL, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit__fastcore(void)
{
    init_lfsr();
    if (PyType_Ready(&CoreType) < 0) return NULL;
    PyObject *m = PyModule_Create(&moddef);
    if (!m) return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "EDGE_CAP", EDGE_CAP);
    PyModule_AddIntConstant(m, "TRACE_RECORD_SIZE", (long)sizeof(trace_t));
    PyModule_AddIntConstant(m, "HIT_RECORD_SIZE", (long)sizeof(hit_t));
    PyModule_AddIntConstant(m, "HIT_CAP", HIT_CAP);
    return m;
}
