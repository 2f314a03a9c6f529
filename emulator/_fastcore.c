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
 *
 * The OR-form path (run_fast) keeps the registers in locals and fast-forwards pure wait loops
 * (ff_analyse, ff_exit); board_run runs the Dark Tower board of emulator/darktower.py around
 * it; trace_out formats the trace (docs/trace-format.md). All of them are checked against the
 * reference core by tests/fastcore/.
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

/* hard-wired actions, numbered as emulator.decode.FIXED_CODES
 * (checked by tests/fastcore/test_action_numbering.py) */
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
    /* fast-forward of wait loops (run_fast): ROM addresses whose instruction and its follower
     * form a two-instruction loop that reads no input and writes no pin or RAM; the exit of
     * each entry (A, Y) is simulated once and kept */
    uint8_t ff_ok[4096];
    uint32_t *ff_memo[4096];          /* lazily: 256 entries, FF_* bits below */
    uint64_t ff_skipped;              /* instructions skipped by the fast-forward */
    int ff_enabled;
    /* the Dark Tower board run in the kernel (board_run), NULL until board_setup */
    struct board *board;
} Core;

/* ff_memo entry: bit 31 known, bit 30 no exit (never fast-forwarded), bits 8-23 iterations,
 * bits 4-7 A, bits 0-3 Y at the exit */
#define FF_KNOWN (1u << 31)
#define FF_NOEXIT (1u << 30)
#define FF_MAX_ITER 512

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


/* ---------------------------------------------------------------- fast path */

/* Mark the ROM addresses where a wait loop can be fast-forwarded: the instruction I there has
 * no hard-wired action, takes neither K nor RAM into the adder, stores nothing to RAM and can
 * clear STATUS (C8 or NE); the next instruction in the page is a BR without micro-ops back to
 * I. Such a loop is a pure function of (A, Y): it reads no input, writes no pin and no RAM. */
static void ff_analyse(Core *c)
{
    memset(c->ff_ok, 0, sizeof c->ff_ok);
    for (uint32_t addr = 0; addr < c->rom_size; addr++) {
        uint8_t op = c->rom[addr];
        uint16_t mi = c->micro[op];
        if (c->fixed[op] != F_NONE || c->cki[op] == 0xFF) continue;
        if (mi & (M_MTP | M_MTN | M_STO | M_CKM)) continue;
        if (!(mi & (M_C8 | M_NE))) continue;
        uint32_t pc = addr & 0x3F;
        uint32_t next = (addr & ~0x3Fu) | next_pc[pc];
        uint8_t op2 = c->rom[next];
        if (c->fixed[op2] != F_BR || c->micro[op2] != 0 || c->operand[op2] != pc) continue;
        c->ff_ok[addr] = 1;
    }
}

/* Return the memo entry of the loop at ``addr`` entered with (a, y): iterations of I + BR
 * until I leaves STATUS 0, and A, Y then (simulated here once, exactly as the kernel would). */
static uint32_t ff_exit(Core *c, uint32_t addr, uint8_t a, uint8_t y)
{
    uint32_t *memo = c->ff_memo[addr];
    if (!memo) {
        memo = c->ff_memo[addr] = PyMem_Calloc(256, sizeof(uint32_t));
        if (!memo) return FF_KNOWN | FF_NOEXIT;
    }
    uint32_t e = memo[a << 4 | y];
    if (e & FF_KNOWN) return e;
    const uint8_t op = c->rom[addr];
    const uint16_t mi = c->micro[op];
    const uint8_t cki = c->cki[op];
    uint8_t aa = a, yy = y;
    unsigned iter = 0;
    uint8_t status = 1;
    while (status && iter < FF_MAX_ITER) {
        uint8_t n = 0, p = 0;
        if (mi & M_15TN) n |= 0xF;
        if (mi & M_ATN) n |= aa;
        if (mi & M_NATN) n |= (~aa) & 0xF;
        if (mi & M_CKN) n |= cki;
        if (mi & M_CKP) p |= cki;
        if (mi & M_YTP) p |= yy;
        const unsigned sum = (unsigned)p + n + ((mi & M_CIN) ? 1 : 0);
        status = 1;
        if ((mi & M_C8) && !(sum & 0x10)) status = 0;
        if ((mi & M_NE) && n == p) status = 0;
        if (mi & M_AUTA) aa = sum & 0xF;
        if (mi & M_AUTY) yy = sum & 0xF;
        iter++;
    }
    e = status ? (FF_KNOWN | FF_NOEXIT)
               : (FF_KNOWN | (iter << 8) | ((uint32_t)aa << 4) | yy);
    memo[a << 4 | y] = e;
    return e;
}

/* Run the OR-form K path with the registers in locals (no watch, no trace, no Python K):
 * the same instruction semantics as step_one. Stops when the fetch cycle reaches ``until``,
 * the edge buffer is nearly full, or a stop-masked pin changed (returns 1 then). */
static int run_fast(Core *c, uint64_t until)
{
    const uint8_t *rom = c->rom;
    const uint32_t rmask = c->rom_size - 1;
    uint8_t *ram = c->ram;
    const int one_level = c->stack_depth == 1;
    const int setr_x_rule = c->setr_x_rule;
    const uint8_t x_mask = (uint8_t)c->x_mask;
    const uint16_t r_mask = (uint16_t)c->r_mask;
    const uint16_t stop_r = c->stop_r_mask;
    const uint8_t stop_o = c->stop_o_mask;
    const int ff = c->ff_enabled;
    const int pc_watch = c->watching & W_PC;   /* PC breakpoints: tested here, before each */
    uint8_t a = c->a, x = c->x, y = c->y, pc = c->pc, pa = c->pa, pb = c->pb, ca = c->ca,
            cb = c->cb, cl = c->cl, status = c->status, sl = c->sl, o = c->o,
            o_index = c->o_index, op = c->op;
    uint16_t r = c->r;
    uint64_t cyc = c->cycle, steps = c->steps, skipped = c->ff_skipped;
    int stop = 0;
    int n_edges = c->n_edges;

    while (cyc < until && n_edges < EDGE_CAP - 2) {
        if (pc_watch) {
            const uint32_t addr = (((uint32_t)ca << 10) | ((uint32_t)pa << 6) | prev_pc[pc])
                                  & rmask;
            if (BIT_SET(c->w_brk, addr)) {
                /* the debugger's record of a PC hit: the state before the instruction */
                c->a = a; c->x = x; c->y = y; c->pc = pc; c->pa = pa; c->pb = pb; c->ca = ca;
                c->cb = cb; c->cl = cl; c->status = status; c->sl = sl; c->o = o;
                c->o_index = o_index; c->op = op; c->r = r; c->cycle = cyc; c->steps = steps;
                c->n_edges = n_edges;
                c->w_from = (uint16_t)addr;
                record_hit(c, H_PC, (uint16_t)addr);
            }
        }
        if (ff) {
            /* a wait loop at this instruction: skip whole iterations to its exit when the
             * last of them is fetched before ``until``, BR keeps the page and chapter and
             * no PC breakpoint is on either instruction */
            const uint32_t addr = (((uint32_t)ca << 10) | ((uint32_t)pa << 6) | prev_pc[pc])
                                  & rmask;
            const uint32_t br = (((uint32_t)ca << 10) | ((uint32_t)pa << 6) | pc) & rmask;
            if (c->ff_ok[addr] && cb == ca && ((one_level && cl) || pb == pa)
                && !(pc_watch && (BIT_SET(c->w_brk, addr) || BIT_SET(c->w_brk, br)))) {
                const uint32_t e = ff_exit(c, addr, a, y);
                const uint64_t iter = (e >> 8) & 0xFFFF;
                if (!(e & FF_NOEXIT) && cyc + 12 * iter - 6 < until) {
                    a = (e >> 4) & 0xF;
                    y = e & 0xF;
                    if (c->micro[op] & M_STSL) sl = 0;
                    status = 1;        /* the BR not taken has no micro-ops: STATUS 1 */
                    pc = next_pc[pc];  /* the instruction after the BR */
                    op = rom[(((uint32_t)ca << 10) | ((uint32_t)pa << 6) | pc) & rmask];
                    pc = next_pc[pc];
                    cyc += 12 * iter;
                    steps += 2 * iter;
                    skipped += 2 * iter;
                    continue;
                }
            }
        }
        const uint16_t mi = c->micro[op];
        const uint8_t fx = c->fixed[op];
        const uint64_t fetch_cycle = cyc;

        switch (fx) {
        case F_BR:
            if (status) {
                if (!one_level || !cl) pa = pb;
                ca = cb;
                pc = c->operand[op];
            }
            break;
        case F_CALL:
            if (status) {
                if (one_level) {
                    uint8_t old = pa;
                    if (!cl) {
                        cl = 1;
                        c->sr[0] = pc;
                        pa = pb;
                        c->cs[0] = ca;
                    }
                    ca = cb;
                    pb = old;
                    pc = c->operand[op];
                } else {
                    cl = (uint8_t)(((cl << 1) | 1) & 7);
                    c->sr[2] = c->sr[1]; c->sr[1] = c->sr[0]; c->sr[0] = pc;
                    c->ps[2] = c->ps[1]; c->ps[1] = c->ps[0]; c->ps[0] = pa;
                    c->cs[2] = c->cs[1]; c->cs[1] = c->cs[0]; c->cs[0] = ca;
                    pc = c->operand[op];
                    pa = pb;
                    ca = cb;
                }
            } else if (!one_level) {
                pb = pa;
                cb = ca;
            }
            break;
        case F_RETN:
            if (one_level) {
                if (cl) {
                    cl = 0;
                    pc = c->sr[0];
                    ca = c->cs[0];
                }
                pa = pb;
            } else if (cl & 1) {
                cl >>= 1;
                pc = c->sr[0];
                pa = pb = c->ps[0];
                ca = cb = c->cs[0];
                c->sr[0] = c->sr[1]; c->sr[1] = c->sr[2];
                c->ps[0] = c->ps[1]; c->ps[1] = c->ps[2];
                c->cs[0] = c->cs[1]; c->cs[1] = c->cs[2];
            }
            break;
        default:
            break;
        }

        uint8_t cki = c->cki[op];
        if (cki == 0xFF) {
            uint8_t k = c->kconst;
            uint16_t rr = r & r_mask;
            for (int i = 0; rr; i++, rr >>= 1)
                if (rr & 1) k |= c->kr[i];
            uint8_t oo = o;
            for (int j = 0; oo; j++, oo >>= 1)
                if (oo & 1) k |= c->ko[j];
            cki = k & 0xF;
        }
        const uint8_t ram_addr = (uint8_t)(((x << 4) | y) & 0x7F);
        const uint8_t m = ram[ram_addr] & 0xF;
        uint8_t status_new = 1;
        unsigned sum = 0;
        int write = 0;
        uint8_t wval = 0;
        if (mi) {
            uint8_t n = 0, p = 0;
            if (mi & M_15TN) n |= 0xF;
            if (mi & M_ATN) n |= a;
            if (mi & M_NATN) n |= (~a) & 0xF;
            if (mi & M_CKN) n |= cki;
            if (mi & M_MTN) n |= m;
            if (mi & M_CKP) p |= cki;
            if (mi & M_MTP) p |= m;
            if (mi & M_YTP) p |= y;
            sum = (unsigned)p + n + ((mi & M_CIN) ? 1 : 0);
            if ((mi & M_C8) && !(sum & 0x10)) status_new = 0;
            if ((mi & M_NE) && n == p) status_new = 0;
            if (mi & M_CKM) { write = 1; wval = cki; }
            if (mi & M_STO) { write = 1; wval = a; }
        }
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
            if (!setr_x_rule || x < 4) {
                uint16_t old = r & r_mask;
                if (fx == F_SETR) r |= (uint16_t)(1u << y);
                else r &= (uint16_t)~(1u << y);
                uint16_t now = r & r_mask;
                if (now != old) {
                    edge_t *e = &c->edges[n_edges++];
                    e->cycle = fetch_cycle + 3; e->kind = 0; e->value = now;
                    if ((now ^ old) & stop_r) stop = 1;
                }
            }
            break;
        case F_TDO:
        case F_CLO: {
            o_index = (fx == F_TDO) ? (uint8_t)(((sl << 4) | a) & 0x1F) : 0;
            uint8_t old = o;
            o = c->opla[o_index];
            if (o != old) {
                edge_t *e = &c->edges[n_edges++];
                e->cycle = fetch_cycle + 3; e->kind = 1; e->value = o;
                if ((o ^ old) & stop_o) stop = 1;
            }
            break;
        }
        case F_LDX: x = c->operand[op]; break;
        case F_COMX: x ^= x_mask; break;
        case F_COMX8: x ^= 4; break;
        case F_LDP: pb = c->operand[op]; break;
        case F_COMC: cb ^= 1; break;
        case F_TPC: cb = pb & 3; break;
        default: break;
        }
        status = status_new;
        if (write) ram[ram_addr] = wval & 0xF;
        if (mi & M_AUTA) a = sum & 0xF;
        if (mi & M_AUTY) y = sum & 0xF;
        if (mi & M_STSL) sl = status;
        op = rom[(((uint32_t)ca << 10) | ((uint32_t)pa << 6) | pc) & rmask];
        pc = next_pc[pc];
        cyc += 6;
        steps++;
        if (stop) break;
    }
    c->a = a; c->x = x; c->y = y; c->pc = pc; c->pa = pa; c->pb = pb; c->ca = ca; c->cb = cb;
    c->cl = cl; c->status = status; c->sl = sl; c->o = o; c->o_index = o_index; c->op = op;
    c->r = r; c->cycle = cyc; c->steps = steps; c->ff_skipped = skipped;
    c->n_edges = n_edges;
    return stop;
}


/* ---------------------------------------------------------------- the Dark Tower board */

/* The board of emulator/darktower.py (DarkTowerBoard._run_fast and the methods it calls),
 * run here so the pin changes between two reel ticks or display frames cost no Python call.
 * Same model, same order of operations, same integer time units (1 / (3000 * clock) s) and the
 * same double arithmetic for the PWM brightness; the Python board hands its state over at each
 * board_run call and takes it back with the pins, speaker edges and events produced. */
typedef struct { int64_t units; uint8_t down, col, bit; } bkey_t;
typedef struct { uint64_t cycle; uint64_t word; } bpin_t;
typedef struct { uint64_t cycle; uint8_t level; } bspk_t;
typedef struct { uint64_t value; uint8_t kind, aux; } bevent_t;   /* kind 0 reel, 1 button */

typedef struct board {
    /* constants */
    int64_t units, tick_units, frame_units;
    int r_shift, o_shift, k_shift;
    uint64_t sensor_bit;
    double bri_cap, bri_on;
    int reel_steps, coast_max;           /* the reel's geometry (captures.darktower_facts) */
    uint8_t blind_at[256], card_at[256]; /* per reel position: sensor blind, card position */
    /* state (DarkTowerBoard attribute names) */
    uint16_t r;
    uint8_t o, keys[3], pos, decay, running, blind, led_level, spk;
    int card_pos;
    double led_bri;
    int64_t led_on_units, led_since, now, tick, frame;
    uint64_t word, last_pin_cycle;
    /* schedule of key changes (sorted) and what the run produced */
    bkey_t *sched;
    Py_ssize_t n_sched, next_key;
    bpin_t *pins; Py_ssize_t n_pins, cap_pins;
    int replace_last; uint64_t replace_word;
    bspk_t *spk_out; Py_ssize_t n_spk, cap_spk;
    bevent_t *ev; Py_ssize_t n_ev, cap_ev;
    int nomem;
} board_t;

static void board_free(Core *c)
{
    board_t *b = c->board;
    if (!b) return;
    PyMem_Free(b->sched); PyMem_Free(b->pins); PyMem_Free(b->spk_out); PyMem_Free(b->ev);
    PyMem_Free(b);
    c->board = NULL;
}

#define GROW(ptr, n, cap, type) \
    if ((n) >= (cap)) { \
        Py_ssize_t nc = (cap) ? 2 * (cap) : 4096; \
        type *np_ = PyMem_Realloc((ptr), sizeof(type) * (size_t)nc); \
        if (!np_) { b->nomem = 1; return; } \
        (ptr) = np_; (cap) = nc; \
    }

static inline int b_sensor(const board_t *b) { return !b->blind && b->led_bri > b->bri_on; }

static inline uint8_t b_k(const board_t *b)
{
    uint8_t k = 0;
    for (int col = 0; col < 3; col++)
        if (b->r >> col & 1) k |= b->keys[col];
    if (b_sensor(b)) k |= 8;
    return k;
}

static inline uint64_t b_unit_cycle(const board_t *b, int64_t units)
{
    return (uint64_t)((units + b->units - 1) / b->units);   /* -(-units // UNITS), units >= 0 */
}

static void b_update_word(board_t *b, uint64_t cycle)
{
    uint64_t word = ((uint64_t)b->r << b->r_shift) | ((uint64_t)b->o << b->o_shift)
                    | ((uint64_t)b_k(b) << b->k_shift);
    if (b_sensor(b)) word |= b->sensor_bit;
    if (word == b->word) return;
    b->word = word;
    if (b->n_pins > 0 && b->pins[b->n_pins - 1].cycle == cycle) {
        b->pins[b->n_pins - 1].word = word;
    } else if (b->n_pins == 0 && b->last_pin_cycle == cycle) {
        b->replace_last = 1;
        b->replace_word = word;
    } else {
        GROW(b->pins, b->n_pins, b->cap_pins, bpin_t)
        b->pins[b->n_pins].cycle = cycle;
        b->pins[b->n_pins].word = word;
        b->n_pins++;
    }
}

static void b_event(board_t *b, uint8_t kind, uint8_t aux, uint64_t value)
{
    GROW(b->ev, b->n_ev, b->cap_ev, bevent_t)
    b->ev[b->n_ev].kind = kind; b->ev[b->n_ev].aux = aux; b->ev[b->n_ev].value = value;
    b->n_ev++;
}

static void b_led_change(board_t *b, uint64_t cycle)
{
    uint8_t level = (b->r >> 8 & 1) & ~(b->r >> 4) & 1;
    if (level != b->led_level) {
        int64_t now = (int64_t)cycle * b->units;
        if (b->led_level) b->led_on_units += now - b->led_since;
        b->led_since = now;
        b->led_level = level;
    }
}

static void b_apply_r(board_t *b, uint64_t cycle, uint16_t r)
{
    uint16_t old = b->r;
    b->r = r & 0x7FF;
    if (b->r >> 9 & 1) b->running = 1;
    b_led_change(b, cycle);
    uint8_t spk = (b->r >> 10 & 1) & ~(b->r >> 4) & 1;
    if (spk != b->spk) {
        GROW(b->spk_out, b->n_spk, b->cap_spk, bspk_t)
        b->spk_out[b->n_spk].cycle = cycle; b->spk_out[b->n_spk].level = spk;
        b->n_spk++;
        b->spk = spk;
    }
    if (old != b->r) b_update_word(b, cycle);
}

static void b_apply_o(board_t *b, uint64_t cycle, uint8_t o)
{
    if (o != b->o) {
        b->o = o;
        b_update_word(b, cycle);
    }
}

static void b_frame_tick(board_t *b)
{
    int64_t now = b->now;
    int64_t on = b->led_on_units;
    if (b->led_level) {
        on += now - b->led_since;
        b->led_since = now;
    }
    b->led_on_units = 0;
    double bri = 0.5 * b->led_bri + 0.5 * ((double)on / (double)b->frame_units);
    b->led_bri = bri <= b->bri_cap ? bri : b->bri_cap;   /* Python min(bri, cap) */
    b->frame++;
    int card_pos = b->card_at[b->pos];
    if (card_pos != b->card_pos) {
        b->card_pos = card_pos;
        b_event(b, 0, (uint8_t)card_pos, (uint64_t)now);
    }
    b_update_word(b, b_unit_cycle(b, now));
}

/* One 27 ms tick: the reel mechanism of captures.darktower_facts.reel_step, whose copy this is
 * (tests/fastcore/test_reel_mechanism.py checks it from every state). */
static void b_reel_tick(board_t *b)
{
    if (b->running) {
        b->pos = (uint8_t)((b->pos + b->reel_steps - 1) % b->reel_steps);
        if (b->r >> 9 & 1) {
            if (b->decay < b->coast_max) b->decay++;
        } else if (b->decay > 0) {
            b->decay--;
        } else {
            b->running = 0;
        }
    }
    b->blind = b->blind_at[b->pos];
    b->tick++;
    b_update_word(b, b_unit_cycle(b, b->now));
}

static void b_apply_key(board_t *b, Py_ssize_t index, uint64_t cycle)
{
    const bkey_t *k = &b->sched[index];
    int pressed = (b->keys[k->col] & k->bit) != 0;
    if (k->down == pressed) return;
    if (k->down) b->keys[k->col] |= k->bit;
    else b->keys[k->col] &= (uint8_t)~k->bit;
    b_event(b, 1, 0, (uint64_t)index);
    b_update_word(b, cycle);
}

static void b_advance_units(board_t *b, int64_t limit)
{
    while (!b->nomem) {
        int64_t t_tick = b->tick * b->tick_units;
        int64_t t_frame = b->frame * b->frame_units;
        int has_key = b->next_key < b->n_sched;
        int64_t t_key = has_key ? b->sched[b->next_key].units : 0;
        int64_t t = t_tick < t_frame ? t_tick : t_frame;
        if (has_key && t_key < t) t = t_key;
        if (t > limit) break;
        b->now = t;
        if (has_key && t_key == t) {
            Py_ssize_t i = b->next_key++;
            b_apply_key(b, i, b_unit_cycle(b, t));
        } else if (t_tick == t) {
            b_reel_tick(b);
        } else {
            b_frame_tick(b);
        }
    }
}

static void b_advance_to(board_t *b, uint64_t cycle)
{
    int64_t u = (int64_t)cycle * b->units;
    b_advance_units(b, u);
    if (b->now < u) b->now = u;
}

/* DarkTowerBoard._run_fast: quanta between board events, K as the OR-form of the pressed
 * keys of the strobed columns and the sensor; edges before the first clock whose K sample
 * sees the next event need no board advance. */
static int board_loop(Core *c, uint64_t until)
{
    board_t *b = c->board;
    while (c->cycle < until && !b->nomem) {
        b_advance_units(b, (int64_t)(c->cycle + 2) * b->units - 1);
        int64_t t_next = b->tick * b->tick_units;
        int64_t t_frame = b->frame * b->frame_units;
        if (t_frame < t_next) t_next = t_frame;
        if (b->next_key < b->n_sched && b->sched[b->next_key].units < t_next)
            t_next = b->sched[b->next_key].units;
        const int64_t first_seen = t_next / b->units;  /* > cycle + 1: events before are done */
        c->kconst = b_sensor(b) ? 8 : 0;
        memset(c->kr, 0, sizeof c->kr);
        memset(c->ko, 0, sizeof c->ko);
        c->kr[0] = b->keys[0]; c->kr[1] = b->keys[1]; c->kr[2] = b->keys[2];
        const uint64_t stop_at = (uint64_t)(first_seen - 1) < until ? (uint64_t)(first_seen - 1)
                                                                     : until;
        if (c->watching & W_AFTER) {   /* RAM, K and pin watches need the general step */
            while (c->cycle < stop_at && c->n_edges < EDGE_CAP - 2)
                if (step_one(c)) break;
        } else if (c->cycle < stop_at) {
            run_fast(c, stop_at);
        }
        uint64_t last = 0;
        for (int i = 0; i < c->n_edges; i++) {
            const edge_t *e = &c->edges[i];
            if (e->cycle >= (uint64_t)first_seen) b_advance_to(b, e->cycle);
            else last = e->cycle;
            if (e->kind == 0) b_apply_r(b, e->cycle, e->value);
            else b_apply_o(b, e->cycle, (uint8_t)e->value);
        }
        c->n_edges = 0;
        if (last && b->now < (int64_t)last * b->units) b->now = (int64_t)last * b->units;
    }
    return b->nomem ? -1 : 0;
}

/* board_setup(units, tick_units, frame_units, r_shift, o_shift, k_shift, sensor_bit, bri_cap,
 * bri_on, coast_max, blind, card): the Dark Tower board's constants (emulator/darktower.py);
 * blind and card hold one byte per reel position (their length is the number of positions) */
static PyObject *Core_board_setup(Core *self, PyObject *args)
{
    long long units, tick_units, frame_units;
    int r_shift, o_shift, k_shift;
    unsigned long long sensor_bit;
    double bri_cap, bri_on;
    int coast_max;
    Py_buffer blind, card;
    if (!PyArg_ParseTuple(args, "LLLiiiKddiy*y*", &units, &tick_units, &frame_units, &r_shift,
                          &o_shift, &k_shift, &sensor_bit, &bri_cap, &bri_on, &coast_max,
                          &blind, &card))
        return NULL;
    if (units <= 0 || tick_units <= 0 || frame_units <= 0 || blind.len < 1 || blind.len > 256
        || card.len != blind.len) {
        PyBuffer_Release(&blind); PyBuffer_Release(&card);
        PyErr_SetString(PyExc_ValueError, "board_setup: time units must be > 0 and the reel "
                                          "tables 1-256 bytes, one per position, both alike");
        return NULL;
    }
    if (!self->board) {
        self->board = PyMem_Calloc(1, sizeof(board_t));
        if (!self->board) return PyErr_NoMemory();
    }
    board_t *b = self->board;
    b->units = units; b->tick_units = tick_units; b->frame_units = frame_units;
    b->r_shift = r_shift; b->o_shift = o_shift; b->k_shift = k_shift;
    b->sensor_bit = sensor_bit; b->bri_cap = bri_cap; b->bri_on = bri_on;
    b->reel_steps = (int)blind.len; b->coast_max = coast_max;
    memcpy(b->blind_at, blind.buf, (size_t)blind.len);
    memcpy(b->card_at, card.buf, (size_t)card.len);
    PyBuffer_Release(&blind); PyBuffer_Release(&card);
    Py_RETURN_NONE;
}

#define BOARD_STATE "HBBBBBBBBBBidLLLLLKK"

/* board_run(until, state, schedule) -> (state, pins, replace_last, speaker, events, keys used)
 * state: (r, o, keys0, keys1, keys2, pos, decay, running, blind, led_level, speaker level,
 * card_pos, led_bri, led_on_units, led_since, now, tick, frame, word, last pin cycle);
 * schedule: packed (i64 units, u8 down, u8 col, u8 bit, 5 pad) key changes in heap order;
 * pins: packed (u64 cycle, u64 word); replace_last: the word for the caller's last pin entry
 * or None; speaker: packed (u64 cycle, u8 level, 7 pad); events: packed (u64 value, u8 kind,
 * u8 aux, 6 pad), kind 0 = reel (value = time in units, aux = card_pos), 1 = key applied
 * (value = schedule index). */
static PyObject *Core_board_run(Core *self, PyObject *args)
{
    board_t *b = self->board;
    if (!b) {
        PyErr_SetString(PyExc_RuntimeError, "board_run before board_setup");
        return NULL;
    }
    if (self->k_callback) {
        PyErr_SetString(PyExc_RuntimeError, "board_run needs the OR-form K (set_k_orform)");
        return NULL;
    }
    unsigned long long until;
    PyObject *state;
    Py_buffer sched;
    if (!PyArg_ParseTuple(args, "KO!y*", &until, &PyTuple_Type, &state, &sched)) return NULL;
    int card_pos;
    long long on_units, since, now, tick, frame;
    unsigned long long word, last_cycle;
    unsigned short r;
    unsigned char o, k0, k1, k2, pos, decay, running, blind, led_level, spk;
    double bri;
    if (!PyArg_ParseTuple(state, BOARD_STATE, &r, &o, &k0, &k1, &k2, &pos, &decay, &running,
                          &blind, &led_level, &spk, &card_pos, &bri, &on_units, &since, &now,
                          &tick, &frame, &word, &last_cycle)) {
        PyBuffer_Release(&sched);
        return NULL;
    }
    if (sched.len % 16) {
        PyBuffer_Release(&sched);
        PyErr_SetString(PyExc_ValueError, "board_run: schedule records are 16 bytes");
        return NULL;
    }
    b->r = r; b->o = o; b->keys[0] = k0; b->keys[1] = k1; b->keys[2] = k2; b->pos = pos;
    b->decay = decay; b->running = running; b->blind = blind; b->led_level = led_level;
    b->spk = spk; b->card_pos = card_pos; b->led_bri = bri; b->led_on_units = on_units;
    b->led_since = since; b->now = now; b->tick = tick; b->frame = frame; b->word = word;
    b->last_pin_cycle = last_cycle;
    b->n_sched = sched.len / 16;
    b->next_key = 0;
    PyMem_Free(b->sched);
    b->sched = PyMem_Malloc(sizeof(bkey_t) * (size_t)(b->n_sched ? b->n_sched : 1));
    if (!b->sched) { PyBuffer_Release(&sched); return PyErr_NoMemory(); }
    for (Py_ssize_t i = 0; i < b->n_sched; i++) {
        const uint8_t *rec = (const uint8_t *)sched.buf + 16 * i;
        int64_t u;
        memcpy(&u, rec, 8);
        b->sched[i].units = u; b->sched[i].down = rec[8]; b->sched[i].col = rec[9] % 3;
        b->sched[i].bit = rec[10];
    }
    PyBuffer_Release(&sched);
    b->n_pins = b->n_spk = b->n_ev = 0;
    b->replace_last = 0;
    b->nomem = 0;
    board_loop(self, until);
    if (b->nomem) return PyErr_NoMemory();
    PyObject *pins = PyBytes_FromStringAndSize(NULL, 16 * b->n_pins);
    PyObject *spk_b = PyBytes_FromStringAndSize(NULL, 16 * b->n_spk);
    PyObject *ev_b = PyBytes_FromStringAndSize(NULL, 16 * b->n_ev);
    if (!pins || !spk_b || !ev_b) {
        Py_XDECREF(pins); Py_XDECREF(spk_b); Py_XDECREF(ev_b);
        return NULL;
    }
    uint8_t *p = (uint8_t *)PyBytes_AS_STRING(pins);
    for (Py_ssize_t i = 0; i < b->n_pins; i++, p += 16) {
        memcpy(p, &b->pins[i].cycle, 8); memcpy(p + 8, &b->pins[i].word, 8);
    }
    p = (uint8_t *)PyBytes_AS_STRING(spk_b);
    memset(p, 0, 16 * b->n_spk);
    for (Py_ssize_t i = 0; i < b->n_spk; i++, p += 16) {
        memcpy(p, &b->spk_out[i].cycle, 8); p[8] = b->spk_out[i].level;
    }
    p = (uint8_t *)PyBytes_AS_STRING(ev_b);
    memset(p, 0, 16 * b->n_ev);
    for (Py_ssize_t i = 0; i < b->n_ev; i++, p += 16) {
        memcpy(p, &b->ev[i].value, 8); p[8] = b->ev[i].kind; p[9] = b->ev[i].aux;
    }
    PyObject *replace = b->replace_last ? PyLong_FromUnsignedLongLong(b->replace_word)
                                        : (Py_INCREF(Py_None), Py_None);
    PyObject *st = Py_BuildValue(
        "(" BOARD_STATE ")", (unsigned short)b->r, b->o, b->keys[0], b->keys[1], b->keys[2],
        b->pos, b->decay, b->running, b->blind, b->led_level, b->spk, b->card_pos, b->led_bri,
        (long long)b->led_on_units, (long long)b->led_since, (long long)b->now,
        (long long)b->tick, (long long)b->frame, (unsigned long long)b->word,
        (unsigned long long)b->last_pin_cycle);
    return Py_BuildValue("(NNNNNn)", st, pins, replace, spk_b, ev_b, b->next_key);
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
    memset(self->ff_memo, 0, sizeof self->ff_memo);
    self->ff_skipped = 0;
    self->ff_enabled = 1;
    self->board = NULL;
    ff_analyse(self);
    return 0;
}

static void Core_dealloc(Core *self)
{
    Py_XDECREF(self->k_callback);
    PyMem_Free(self->trace);
    PyMem_Free(self->hits);
    for (int i = 0; i < 4096; i++) PyMem_Free(self->ff_memo[i]);
    board_free(self);
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
    if (!(self->watching & W_AFTER) && !self->k_callback) {
        run_fast(self, until);
        return PyLong_FromUnsignedLongLong(self->steps - start);
    }
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


/* ---------------------------------------------------------------- trace output */

/* The canonical trace line (emulator/trace.py, format_line) and the binary record
 * (docs/trace-format.md) written here from the kernel's trace records, with the filter of
 * emulator.trace.TraceFilter: a record is kept when its ROM address CA<<10|PA<<6|PC is in
 * [addr_lo, addr_hi], its opcode in [op_lo, op_hi] and, with pins_only, its R or O pins differ
 * from the record before it (the first record of a trace always counts as a change). */
static inline char *put_hex(char *p, uint64_t v, int width)
{
    static const char digits[] = "0123456789ABCDEF";
    char tmp[16];
    int n = 0;
    do { tmp[n++] = digits[v & 15]; v >>= 4; } while (v);
    while (n < width) tmp[n++] = '0';
    while (n) *p++ = tmp[--n];
    return p;
}

static inline char *put_str(char *p, const char *s)
{
    while (*s) *p++ = *s++;
    return p;
}

#define BIN_RECORD 32

static char *format_text(char *p, uint64_t n, const trace_t *t)
{
    p = put_hex(p, n, 1); *p++ = ' ';
    p = put_hex(p, t->cycle, 1); *p++ = ' ';
    p = put_hex(p, t->ca, 1); *p++ = ':';
    p = put_hex(p, t->pa, 1); *p++ = ':';
    p = put_hex(p, t->pc, 2); *p++ = ' ';
    p = put_hex(p, t->op, 2);
    p = put_str(p, " A="); p = put_hex(p, t->a, 1);
    p = put_str(p, " X="); p = put_hex(p, t->x, 1);
    p = put_str(p, " Y="); p = put_hex(p, t->y, 1);
    p = put_str(p, " S="); p = put_hex(p, t->s, 1);
    p = put_str(p, " SL="); p = put_hex(p, t->sl, 1);
    p = put_str(p, " PB="); p = put_hex(p, t->pb, 1);
    p = put_str(p, " CB="); p = put_hex(p, t->cb, 1);
    p = put_str(p, " R="); p = put_hex(p, t->r, 4);
    p = put_str(p, " O="); p = put_hex(p, t->o, 2);
    *p++ = '\n';
    return p;
}

static char *format_binary(char *p, uint64_t n, const trace_t *t)
{
    for (int i = 0; i < 8; i++) *p++ = (char)(n >> (8 * i));
    for (int i = 0; i < 8; i++) *p++ = (char)(t->cycle >> (8 * i));
    *p++ = (char)(t->r & 0xFF); *p++ = (char)(t->r >> 8);
    *p++ = (char)t->ca; *p++ = (char)t->pa; *p++ = (char)t->pc; *p++ = (char)t->op;
    *p++ = (char)t->a; *p++ = (char)t->x; *p++ = (char)t->y; *p++ = (char)t->s;
    *p++ = (char)t->sl; *p++ = (char)t->pb; *p++ = (char)t->cb; *p++ = (char)t->o;
    *p++ = 0; *p++ = 0;
    return p;
}

/* trace_out(count, first_n, binary, (addr_lo, addr_hi, op_lo, op_hi, pins_only), prev)
 * -> (bytes, prev): execute ``count`` instructions and return the kept records as text lines
 * or binary records, numbered from ``first_n``; ``prev`` is (r, o) of the record before the
 * first one, or None at the start of a trace, and the returned one continues it. */
static PyObject *Core_trace_out(Core *self, PyObject *args)
{
    Py_ssize_t count;
    unsigned long long first_n;
    int binary, addr_lo, addr_hi, op_lo, op_hi, pins_only;
    PyObject *prev;
    if (!PyArg_ParseTuple(args, "nKp(iiiip)O", &count, &first_n, &binary, &addr_lo, &addr_hi,
                          &op_lo, &op_hi, &pins_only, &prev))
        return NULL;
    if (count < 0) { PyErr_SetString(PyExc_ValueError, "count must be >= 0"); return NULL; }
    int have_prev = prev != Py_None;
    int prev_r = 0, prev_o = 0;
    if (have_prev && !PyArg_ParseTuple(prev, "ii", &prev_r, &prev_o)) return NULL;
    PyMem_Free(self->trace);
    self->trace = PyMem_Malloc(sizeof(trace_t) * (size_t)(count ? count : 1));
    if (!self->trace) return PyErr_NoMemory();
    self->trace_cap = count;
    self->n_trace = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (self->n_edges >= EDGE_CAP - 2) self->n_edges = 0;  /* trace mode keeps no edges */
        if (step_one(self) < 0) { PyMem_Free(self->trace); self->trace = NULL; return NULL; }
    }
    const size_t width = binary ? BIN_RECORD : 96;
    char *buf = PyMem_Malloc(width * (size_t)(count ? count : 1));
    if (!buf) { PyMem_Free(self->trace); self->trace = NULL; return PyErr_NoMemory(); }
    char *p = buf;
    for (Py_ssize_t i = 0; i < count; i++) {
        const trace_t *t = &self->trace[i];
        int changed = !have_prev || t->r != prev_r || t->o != prev_o;
        have_prev = 1; prev_r = t->r; prev_o = t->o;
        int addr = (t->ca << 10) | (t->pa << 6) | t->pc;
        if (addr < addr_lo || addr > addr_hi || t->op < op_lo || t->op > op_hi) continue;
        if (pins_only && !changed) continue;
        p = binary ? format_binary(p, first_n + (uint64_t)i, t)
                   : format_text(p, first_n + (uint64_t)i, t);
    }
    PyMem_Free(self->trace);
    self->trace = NULL;
    PyObject *out = PyBytes_FromStringAndSize(buf, p - buf);
    PyMem_Free(buf);
    if (!out) return NULL;
    if (!have_prev) return Py_BuildValue("(NO)", out, Py_None);
    return Py_BuildValue("(N(ii))", out, prev_r, prev_o);
}

/* state() -> dict of registers; set_state(dict) restores them (the reference core's names) */
static PyObject *Core_state(Core *self, PyObject *args)
{
    (void)args;
    return Py_BuildValue(
        "{s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:K,"
        "s:(iii),s:(iii),s:(iii),s:y#}",
        "a", self->a, "x", self->x, "y", self->y, "pc", self->pc, "pa", self->pa,
        "pb", self->pb, "ca", self->ca, "cb", self->cb, "cl", self->cl, "status", self->status,
        "sl", self->sl, "r", self->r, "o", self->o, "o_index", self->o_index, "op", self->op,
        "cycle", (unsigned long long)self->cycle,
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

static PyObject *Core_get_ff_skipped(Core *self, void *closure)
{
    (void)closure;
    return PyLong_FromUnsignedLongLong(self->ff_skipped);
}

static PyObject *Core_set_fast_forward(Core *self, PyObject *args)
{
    int on;
    if (!PyArg_ParseTuple(args, "p", &on)) return NULL;
    self->ff_enabled = on;
    Py_RETURN_NONE;
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
    {"trace_out", (PyCFunction)Core_trace_out, METH_VARARGS, "Execute n instructions; return their filtered trace as text lines or binary records."},
    {"state", (PyCFunction)Core_state, METH_NOARGS, "Return the registers as a dict."},
    {"set_state", (PyCFunction)Core_set_state, METH_VARARGS, "Restore registers from a dict made by state()."},
    {"set_watch", (PyCFunction)Core_set_watch, METH_VARARGS, "Arm the debugger watch: set_watch(brk512, ram_read16, ram_write16, k, r_mask, o_mask); set_watch(None) disarms."},
    {"set_fast_forward", (PyCFunction)Core_set_fast_forward, METH_VARARGS, "Skip pure wait loops to their exit (default on)."},
    {"board_setup", (PyCFunction)Core_board_setup, METH_VARARGS, "Set the Dark Tower board's constants (emulator/darktower.py)."},
    {"board_run", (PyCFunction)Core_board_run, METH_VARARGS, "Run chip and Dark Tower board to a cycle: board_run(until, state, schedule)."},
    {"take_hits", (PyCFunction)Core_take_hits, METH_NOARGS, "Return (packed hit records, first dropped stop cycle or 0) and clear them."},
    {NULL, NULL, 0, NULL}
};

static PyGetSetDef Core_getset[] = {
    {"cycle", (getter)Core_get_cycle, NULL, "fetch cycle of the next instruction (6n + 5)", NULL},
    {"ff_skipped", (getter)Core_get_ff_skipped, NULL, "instructions skipped in wait loops", NULL},
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
