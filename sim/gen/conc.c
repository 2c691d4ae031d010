/* conc.c - random race-free concurrent programs and the race checker (see conc.h).
 *
 * Both halves share one reading of ISA.md section 3: which buffer elements and DRAM bytes an
 * instruction reads and writes (`accesses`). Only resources that two modules touch are
 * tracked: INP and WGT (load writes, compute reads), OUT (compute writes, store reads) and
 * DRAM (load and compute read, store writes). UOP and ACC belong to compute alone, whose
 * instructions take effect in order.
 *
 * Ordering is vector clocks: vc[m][n] is the number of instructions of module n known to have
 * completed before module m's next instruction starts. A token carries the clock of the
 * instruction that pushed it (after it completed); popping it merges that clock. The generator
 * keeps these clocks while it emits, so it knows exactly which token an instruction needs; the
 * checker recomputes them from the finished stream alone.
 */
#include "sim/gen/conc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/gen/prog.h"
#include "vta/isa.h"

enum { L = VTA_MOD_LOAD, C = VTA_MOD_COMPUTE, S = VTA_MOD_STORE, NMOD = VTA_MOD_COUNT };
enum { R_INP, R_WGT, R_OUT, R_DRAM, R_COUNT };
static const char *const k_res_name[R_COUNT] = {"INP element", "WGT element", "OUT element",
                                                "DRAM byte at data offset"};

/* Source and destination module of each token queue (vta_queue order). */
static const int q_src[VTA_Q_COUNT] = {L, C, C, S}, q_dst[VTA_Q_COUNT] = {C, L, S, C};

static vta_field_id push_flag(int q) {
  return q_dst[q] < q_src[q] ? VTA_F_PUSH_PREV : VTA_F_PUSH_NEXT;
}
static vta_field_id pop_flag(int q) { return q_src[q] < q_dst[q] ? VTA_F_POP_PREV : VTA_F_POP_NEXT; }

/* The queue from module `from` to module `to`; -1 for load and store, which share none. */
static int queue_of(int from, int to) {
  for (int q = 0; q < VTA_Q_COUNT; q++)
    if (q_src[q] == from && q_dst[q] == to) return q;
  return -1;
}

static int module_of(const vta_insn *in) {
  return in->f[VTA_F_OPCODE] == VTA_OP_FINISH ? C : (int)vta_insn_module(in);
}

/* ---- Accesses ---- */

typedef struct cp_range {
  uint8_t res, write;
  uint32_t lo, hi; /* [lo, hi): elements, or DRAM bytes from the data allocation's start */
} cp_range;

typedef struct cp_ranges {
  cp_range *r;
  size_t n, cap;
} cp_ranges;

static int ranges_add(cp_ranges *a, int res, int write, uint64_t lo, uint64_t hi) {
  if (lo == hi) return 0;
  if (a->n && a->r[a->n - 1].res == res && a->r[a->n - 1].write == write &&
      a->r[a->n - 1].hi == lo) {
    a->r[a->n - 1].hi = (uint32_t)hi; /* extend a run (a GEMM walking its elements) */
    return 0;
  }
  if (a->n == a->cap) {
    size_t cap = a->cap ? 2 * a->cap : 16;
    cp_range *r = realloc(a->r, cap * sizeof *r);
    if (!r) return -1;
    a->r = r;
    a->cap = cap;
  }
  a->r[a->n++] = (cp_range){(uint8_t)res, (uint8_t)write, (uint32_t)lo, (uint32_t)hi};
  return 0;
}

/* What `in` reads and writes of the shared resources, appended to out. uops: the UOP buffer as
 * loaded (GEMM/ALU). Returns -1 with msg when an index passes its buffer or a DMA row leaves
 * [data, data + bytes). */
static int accesses(const vta_config *cfg, const vta_insn *in, const vta_uop *uops, uint64_t data,
                    uint64_t bytes, cp_ranges *out, char *msg, size_t n) {
  const int64_t *f = in->f;
  int op = (int)f[VTA_F_OPCODE], bad = 0;
  if (op == VTA_OP_LOAD || op == VTA_OP_STORE) {
    int t = (int)f[VTA_F_MEMORY_TYPE], store = op == VTA_OP_STORE;
    uint64_t x = (uint64_t)f[VTA_F_X_SIZE], y = (uint64_t)f[VTA_F_Y_SIZE];
    if (x == 0 || (store && y == 0)) return 0;
    uint64_t xt = store ? x : (uint64_t)(f[VTA_F_X_PAD_0] + f[VTA_F_X_PAD_1]) + x;
    uint64_t rows = store ? y : (uint64_t)(f[VTA_F_Y_PAD_0] + f[VTA_F_Y_PAD_1]) + y;
    uint64_t sram = (uint64_t)f[VTA_F_SRAM_BASE], eb = cfg->elem_bytes[t];
    int buf = t == VTA_MEM_ACC_8BIT ? VTA_MEM_ACC : t;
    if (sram + xt * rows > cfg->depth[buf]) {
      snprintf(msg, n, "%s buffer range %llu+%llu passes its depth %u",
               vta_mem_type_name((unsigned)t), (unsigned long long)sram,
               (unsigned long long)(xt * rows), cfg->depth[buf]);
      return -1;
    }
    int res = t == VTA_MEM_INP ? R_INP : t == VTA_MEM_WGT ? R_WGT : t == VTA_MEM_OUT ? R_OUT : -1;
    if (res >= 0) bad |= ranges_add(out, res, !store, sram, sram + xt * rows);
    for (uint64_t r = 0; r < y; r++) {
      uint64_t a = ((uint64_t)f[VTA_F_DRAM_BASE] + r * (uint64_t)f[VTA_F_X_STRIDE]) * eb;
      if (a < data || a + x * eb > data + bytes) {
        snprintf(msg, n, "DMA row %llu at 0x%llx (%llu bytes) leaves the data allocation",
                 (unsigned long long)r, (unsigned long long)a, (unsigned long long)(x * eb));
        return -1;
      }
      bad |= ranges_add(out, R_DRAM, store, a - data, a - data + x * eb);
    }
    return bad ? -1 : 0;
  }
  if (op != VTA_OP_GEMM && op != VTA_OP_ALU) return 0;
  int gemm = op == VTA_OP_GEMM, reset = gemm && f[VTA_F_RESET_REG];
  uint32_t da = cfg->depth[VTA_MEM_ACC], src_depth = cfg->depth[gemm ? VTA_MEM_INP : VTA_MEM_ACC];
  for (int64_t i = 0; i < f[VTA_F_ITER_OUT]; i++)
    for (int64_t j = 0; j < f[VTA_F_ITER_IN]; j++)
      for (int64_t k = f[VTA_F_UOP_BGN]; k < f[VTA_F_UOP_END]; k++) {
        const vta_uop *u = &uops[k];
        uint64_t a = u->dst + i * f[VTA_F_DST_FACTOR_OUT] + j * f[VTA_F_DST_FACTOR_IN];
        uint64_t x = u->src + i * f[VTA_F_SRC_FACTOR_OUT] + j * f[VTA_F_SRC_FACTOR_IN];
        uint64_t w = u->wgt + i * f[VTA_F_WGT_FACTOR_OUT] + j * f[VTA_F_WGT_FACTOR_IN];
        if (a >= da || x >= src_depth || (gemm && w >= cfg->depth[VTA_MEM_WGT])) {
          snprintf(msg, n, "micro-op %lld at i=%lld j=%lld indexes ACC %llu, %s %llu, WGT %llu",
                   (long long)k, (long long)i, (long long)j, (unsigned long long)a,
                   gemm ? "INP" : "ACC", (unsigned long long)x, (unsigned long long)w);
          return -1;
        }
        bad |= ranges_add(out, R_OUT, 1, a, a + 1);
        if (gemm && !reset) {
          bad |= ranges_add(out, R_INP, 0, x, x + 1);
          bad |= ranges_add(out, R_WGT, 0, w, w + 1);
        }
      }
  return bad ? -1 : 0;
}

/* ---- Shadow state: the latest writer and readers of every tracked element ---- */

typedef struct cp_cell {
  uint32_t wseq;          /* latest writer's number within its module (0: none) */
  uint32_t rseq[NMOD];    /* latest reader per module since that write */
  uint8_t wmod;
} cp_cell;

typedef struct cp_shadow {
  cp_cell *c[R_COUNT];
  uint64_t size[R_COUNT];
} cp_shadow;

static int shadow_init(cp_shadow *sh, const vta_config *cfg, uint64_t dram_bytes) {
  sh->size[R_INP] = cfg->depth[VTA_MEM_INP];
  sh->size[R_WGT] = cfg->depth[VTA_MEM_WGT];
  sh->size[R_OUT] = cfg->depth[VTA_MEM_OUT];
  sh->size[R_DRAM] = dram_bytes;
  int bad = 0;
  for (int r = 0; r < R_COUNT; r++) bad |= !(sh->c[r] = calloc(sh->size[r], sizeof(cp_cell)));
  return bad ? -1 : 0;
}

static void shadow_free(cp_shadow *sh) {
  for (int r = 0; r < R_COUNT; r++) free(sh->c[r]);
}

/* For each other module n: the latest of its accesses that conflicts with `acc` by module m
 * (req[n], 0 if none), and in *res / *at one such element for messages. */
static void shadow_conflicts(const cp_shadow *sh, const cp_ranges *acc, int m, uint32_t req[NMOD],
                             int res[NMOD], uint32_t at[NMOD]) {
  memset(req, 0, NMOD * sizeof *req);
  for (size_t i = 0; i < acc->n; i++) {
    const cp_range *r = &acc->r[i];
    for (uint32_t e = r->lo; e < r->hi; e++) {
      const cp_cell *c = &sh->c[r->res][e];
      if (c->wseq && c->wmod != m && c->wseq > req[c->wmod]) {
        req[c->wmod] = c->wseq;
        res[c->wmod] = r->res;
        at[c->wmod] = e;
      }
      if (!r->write) continue;
      for (int n = 0; n < NMOD; n++)
        if (n != m && c->rseq[n] > req[n]) {
          req[n] = c->rseq[n];
          res[n] = r->res;
          at[n] = e;
        }
    }
  }
}

static void shadow_record(cp_shadow *sh, const cp_ranges *acc, int m, uint32_t seq) {
  for (size_t i = 0; i < acc->n; i++) {
    const cp_range *r = &acc->r[i];
    for (uint32_t e = r->lo; e < r->hi; e++) {
      cp_cell *c = &sh->c[r->res][e];
      if (r->write) {
        memset(c, 0, sizeof *c);
        c->wseq = seq;
        c->wmod = (uint8_t)m;
      } else {
        c->rseq[m] = seq;
      }
    }
  }
}

/* ---- Token queues: FIFOs of vector clocks ---- */

typedef struct tokq {
  uint32_t (*vc)[NMOD];
  size_t head, n, cap;
} tokq;

static int tok_push(tokq *q, const uint32_t vc[NMOD]) {
  if (q->head + q->n == q->cap) {
    size_t cap = q->cap ? 2 * q->cap : 32;
    uint32_t(*v)[NMOD] = realloc(q->vc, cap * sizeof *v);
    if (!v) return -1;
    q->vc = v;
    q->cap = cap;
  }
  memcpy(q->vc[q->head + q->n++], vc, sizeof q->vc[0]);
  return 0;
}

static const uint32_t *tok_at(const tokq *q, size_t k) { return q->vc[q->head + k]; }

static void tok_pop(tokq *q, uint32_t into[NMOD]) {
  for (int n = 0; n < NMOD; n++)
    if (q->vc[q->head][n] > into[n]) into[n] = q->vc[q->head][n];
  q->head++;
  q->n--;
}

/* ---- The checker ---- */

int cp_check(const vta_config *cfg, vta_mem *mem, uint64_t insn, uint32_t count, uint64_t data,
             uint64_t data_bytes, char *msg, size_t n) {
  cp_shadow sh;
  memset(&sh, 0, sizeof sh);
  tokq q[VTA_Q_COUNT];
  memset(q, 0, sizeof q);
  cp_ranges acc = {0};
  vta_uop *uops = calloc(cfg->depth[VTA_MEM_UOP], sizeof *uops);
  uint32_t *where[NMOD]; /* stream index of each module's k-th instruction */
  for (int m = 0; m < NMOD; m++) where[m] = calloc((size_t)count + 1, sizeof(uint32_t));
  uint32_t vc[NMOD][NMOD] = {{0}}, seq[NMOD] = {0};
  int rc = -1;
  if (!uops || !where[0] || !where[1] || !where[2] || shadow_init(&sh, cfg, data_bytes) != 0) {
    snprintf(msg, n, "out of memory");
    goto done;
  }
  if (!vta_mem_check(mem, insn, (uint64_t)count * VTA_INSN_BYTES)) {
    snprintf(msg, n, "the stream is outside device memory");
    goto done;
  }
  for (uint32_t i = 0; i < count; i++) {
    vta_insn_word w;
    vta_insn in;
    char text[256], why[200];
    vta_insn_word_load((const uint8_t *)vta_mem_ptr(mem, insn + (uint64_t)i * VTA_INSN_BYTES), &w);
    if (vta_insn_decode(cfg, &w, &in, NULL) != VTA_OK || vta_insn_check(cfg, &in, NULL) != VTA_OK) {
      snprintf(msg, n, "instruction %u does not decode", i);
      goto done;
    }
    vta_insn_to_text(cfg, &in, text, sizeof text);
    int m = module_of(&in);
    for (int k = 0; k < VTA_Q_COUNT; k++) {
      if (q_dst[k] != m || !in.f[pop_flag(k)]) continue;
      if (q[k].n == 0) {
        snprintf(msg, n,
                 "instruction %u (%s) pops the %s queue but no earlier instruction in the "
                 "stream pushed a token it could take",
                 i, text, vta_queue_name((vta_queue)k));
        goto done;
      }
      tok_pop(&q[k], vc[m]);
    }
    vc[m][m] = ++seq[m];
    where[m][seq[m]] = i;
    acc.n = 0;
    if (accesses(cfg, &in, uops, data, data_bytes, &acc, why, sizeof why) != 0) {
      snprintf(msg, n, "instruction %u (%s): %s", i, text, why);
      goto done;
    }
    uint32_t req[NMOD];
    int res[NMOD];
    uint32_t at[NMOD];
    shadow_conflicts(&sh, &acc, m, req, res, at);
    for (int o = 0; o < NMOD; o++)
      if (o != m && req[o] > vc[m][o]) {
        snprintf(msg, n,
                 "race: instruction %u (%s) of %s and instruction %u of %s both touch %s %u "
                 "(one writes) and no chain of tokens orders them",
                 i, text, vta_module_name((vta_module)m), where[o][req[o]],
                 vta_module_name((vta_module)o), k_res_name[res[o]], at[o]);
        goto done;
      }
    shadow_record(&sh, &acc, m, seq[m]);
    if (in.f[VTA_F_OPCODE] == VTA_OP_LOAD && in.f[VTA_F_MEMORY_TYPE] == VTA_MEM_UOP)
      for (int64_t k = 0; k < in.f[VTA_F_X_SIZE]; k++) {
        const uint8_t *p = vta_mem_ptr(mem, ((uint64_t)in.f[VTA_F_DRAM_BASE] + (uint64_t)k) * 4);
        uint32_t word = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                        (uint32_t)p[3] << 24;
        vta_uop_decode(cfg, word, &uops[in.f[VTA_F_SRAM_BASE] + k]);
      }
    for (int k = 0; k < VTA_Q_COUNT; k++)
      if (q_src[k] == m && in.f[push_flag(k)] && tok_push(&q[k], vc[m]) != 0) {
        snprintf(msg, n, "out of memory");
        goto done;
      }
  }
  rc = 0;
done:
  shadow_free(&sh);
  for (int k = 0; k < VTA_Q_COUNT; k++) free(q[k].vc);
  for (int m = 0; m < NMOD; m++) free(where[m]);
  free(acc.r);
  free(uops);
  return rc;
}

/* ---- The generator ---- */

/* Buffer entries a program uses (small, so every accepted configuration has them and a
 * program is a few thousand cycles), DRAM region sizes, micro-op capacity. */
#define CP_LIM 96
#define CP_LIM_WGT 48
#define CP_LIM_UOP 256
#define CP_IN_ELEMS 96
#define CP_OUT_ELEMS 256
#define CP_UOP_CAP 4096

typedef struct cp_tmpl {
  vta_insn in;
  int m;
  cp_ranges acc;
} cp_tmpl;

typedef struct tlist {
  cp_tmpl *t;
  size_t n, cap, next;
} tlist;

/* An instruction about to be emitted: which queues it pops (always their head then). */
typedef struct pend {
  vta_insn in;
  int m;
  int pop[VTA_Q_COUNT];
} pend;

typedef struct gen {
  const vta_config *cfg;
  uint64_t s;
  vta_mem *mem;
  uint64_t data, bytes;
  uint8_t *d;
  uint64_t off_uop, off_in[VTA_MEM_COUNT], off_out, out_bytes;
  uint32_t uop_used;
  vta_uop *ubuf;   /* UOP buffer as the planned compute instructions leave it */
  uint8_t *uvalid; /* entries loaded by this program (others hold older programs' micro-ops) */
  uint32_t lim[VTA_MEM_COUNT];
  /* Emitted stream. */
  vta_insn *v;
  size_t n, cap;
  uint32_t seq[NMOD], vc[NMOD][NMOD];
  long last[NMOD];
  tokq q[VTA_Q_COUNT];
  cp_shadow sh;
  uint32_t p_pop, p_push; /* percent: extra pops and pushes no access needs */
  cp_program *out;
  int bad;
} gen;

static uint32_t rnd(gen *g, uint32_t lo, uint32_t hi) { /* inclusive */
  return lo + (uint32_t)(fp_rand(&g->s) % ((uint64_t)hi - lo + 1));
}

static uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

static int pend_knows(const gen *g, const pend *x, int n, uint32_t s) {
  for (int q = 0; q < VTA_Q_COUNT; q++)
    if (x->pop[q] && g->q[q].n && tok_at(&g->q[q], 0)[n] >= s) return 1;
  return 0;
}

/* Appends x to the stream: pops the heads of its queues, pushes its tokens. */
static void emit(gen *g, pend *x) {
  int m = x->m;
  for (int q = 0; q < VTA_Q_COUNT; q++)
    if (x->pop[q]) {
      tok_pop(&g->q[q], g->vc[m]);
      x->in.f[pop_flag(q)] = 1;
      g->out->pops++;
    }
  g->vc[m][m] = ++g->seq[m];
  for (int q = 0; q < VTA_Q_COUNT; q++)
    if (q_src[q] == m && x->in.f[push_flag(q)]) {
      g->bad |= tok_push(&g->q[q], g->vc[m]);
      g->out->pushes++;
    }
  if (g->n == g->cap) {
    size_t cap = g->cap ? 2 * g->cap : 128;
    vta_insn *v = realloc(g->v, cap * sizeof *v);
    if (!v) {
      g->bad = 1;
      return;
    }
    g->v = v;
    g->cap = cap;
  }
  g->last[m] = (long)g->n;
  g->v[g->n++] = x->in;
  g->out->by_module[m]++;
}

/* A no-op of module m in one of the forms programs use. */
static void make_noop(gen *g, pend *x, int m) {
  memset(x, 0, sizeof *x);
  x->m = m;
  int64_t *f = x->in.f;
  uint32_t k = rnd(g, 0, 3);
  if (m == L) { /* a LOAD that moves nothing */
    f[VTA_F_OPCODE] = VTA_OP_LOAD;
    f[VTA_F_MEMORY_TYPE] = k & 1 ? VTA_MEM_WGT : VTA_MEM_INP;
    f[VTA_F_Y_SIZE] = k >> 1;
  } else if (m == S) { /* a STORE of nothing */
    f[VTA_F_OPCODE] = VTA_OP_STORE;
    f[VTA_F_MEMORY_TYPE] = VTA_MEM_OUT;
    f[VTA_F_Y_SIZE] = k & 1;
    f[VTA_F_X_SIZE] = k & 1 ? 0 : rnd(g, 0, 2);
  } else if (k == 0) { /* GEMM or ALU without iterations, LOAD UOP/ACC of nothing */
    f[VTA_F_OPCODE] = VTA_OP_GEMM;
    f[VTA_F_UOP_END] = 1;
    f[VTA_F_ITER_IN] = 1;
  } else if (k == 1) {
    f[VTA_F_OPCODE] = VTA_OP_ALU;
    f[VTA_F_UOP_END] = 1;
    f[VTA_F_ITER_OUT] = 1;
    f[VTA_F_ALU_OPCODE] = VTA_ALU_ADD;
  } else {
    f[VTA_F_OPCODE] = VTA_OP_LOAD;
    f[VTA_F_MEMORY_TYPE] = k == 2 ? VTA_MEM_UOP : VTA_MEM_ACC;
  }
}

/* Sets the push flag on module n's latest instruction: its token goes onto q. */
static void retro_push(gen *g, int n, int q) {
  if (g->last[n] < 0 || g->v[g->last[n]].f[push_flag(q)]) { /* cannot happen: see need() */
    g->bad = 1;
    return;
  }
  vta_insn *p = &g->v[g->last[n]];
  p->f[push_flag(q)] = 1;
  g->bad |= tok_push(&g->q[q], g->vc[n]);
  g->out->pushes++;
}

/* Makes sure instruction x (of module m) starts after instruction s of module n completed.
 * A token of n's queue to m whose clock covers s is found (or made by adding a push to n's
 * latest instruction, which is s or later: had it pushed already, its token would be in the
 * queue or popped, and then m would know); x pops it, and sync no-ops of m pop the tokens in
 * front of it. Load and store have no queue: compute learns s first (a compute no-op pops for
 * it), then x learns compute's latest instruction. */
static void need(gen *g, pend *x, int n, uint32_t s) {
  int m = x->m;
  if (s == 0 || g->vc[m][n] >= s || pend_knows(g, x, n, s) || g->bad) return;
  int q = queue_of(n, m);
  if (q < 0) {
    if (g->vc[C][n] < s) {
      pend nop;
      make_noop(g, &nop, C);
      need(g, &nop, n, s);
      emit(g, &nop);
      g->out->syncs++;
    }
    need(g, x, C, g->seq[C]);
    return;
  }
  tokq *t = &g->q[q];
  size_t k = 0;
  while (k < t->n && tok_at(t, k)[n] < s) k++;
  if (k == t->n) retro_push(g, n, q);
  for (size_t i = 0; i < k && !g->bad; i++) {
    pend nop;
    make_noop(g, &nop, m);
    nop.pop[q] = 1;
    emit(g, &nop);
    g->out->syncs++;
  }
  x->pop[q] = 1;
}

/* Emits a planned instruction with the tokens its accesses need (and now and then some it
 * does not), then records its accesses. */
static void emit_tmpl(gen *g, cp_tmpl *t, int extra) {
  pend x;
  memset(&x, 0, sizeof x);
  x.in = t->in;
  x.m = t->m;
  uint32_t req[NMOD], at[NMOD];
  int res[NMOD];
  shadow_conflicts(&g->sh, &t->acc, t->m, req, res, at);
  /* Load and store first: they may add compute no-ops that x then waits for. */
  for (int n = NMOD - 1; n >= 0; n--)
    if (n != t->m && queue_of(n, t->m) < 0) need(g, &x, n, req[n]);
  for (int n = 0; n < NMOD; n++)
    if (n != t->m && queue_of(n, t->m) >= 0) need(g, &x, n, req[n]);
  if (extra) {
    for (int q = 0; q < VTA_Q_COUNT; q++) {
      if (q_dst[q] == t->m && !x.pop[q] && g->q[q].n && rnd(g, 1, 100) <= g->p_pop) x.pop[q] = 1;
      if (q_src[q] == t->m && rnd(g, 1, 100) <= g->p_push) x.in.f[push_flag(q)] = 1;
    }
  }
  emit(g, &x);
  shadow_record(&g->sh, &t->acc, t->m, g->seq[t->m]);
}

/* ---- Planning ---- */

static cp_tmpl *plan(gen *g, tlist *l, int op) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 16;
    cp_tmpl *t = realloc(l->t, cap * sizeof *t);
    if (!t) {
      g->bad = 1;
      return NULL;
    }
    l->t = t;
    l->cap = cap;
  }
  cp_tmpl *t = &l->t[l->n++];
  memset(t, 0, sizeof *t);
  t->in.f[VTA_F_OPCODE] = op;
  return t;
}

/* Fills in the module and the accesses of the last planned template; drops it if its indices
 * leave the buffers (returns -1 then, so the caller may try a simpler form). */
static int plan_done(gen *g, tlist *l) {
  cp_tmpl *t = &l->t[l->n - 1];
  char why[200];
  t->m = module_of(&t->in);
  if (accesses(g->cfg, &t->in, g->ubuf, g->data, g->bytes, &t->acc, why, sizeof why) != 0) {
    free(t->acc.r);
    l->n--;
    return -1;
  }
  if (t->in.f[VTA_F_OPCODE] == VTA_OP_LOAD && t->in.f[VTA_F_MEMORY_TYPE] == VTA_MEM_UOP) {
    /* The micro-ops were written to DRAM by plan_uops; the model follows the load. */
    for (int64_t k = 0; k < t->in.f[VTA_F_X_SIZE]; k++) {
      const uint8_t *p = g->d + (t->in.f[VTA_F_DRAM_BASE] + k) * 4 - g->data;
      uint32_t w = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                   (uint32_t)p[3] << 24;
      vta_uop_decode(g->cfg, w, &g->ubuf[t->in.f[VTA_F_SRAM_BASE] + k]);
      g->uvalid[t->in.f[VTA_F_SRAM_BASE] + k] = 1;
    }
  }
  return 0;
}

static void set_load(vta_insn *in, int t, uint32_t sram, uint32_t dram, uint32_t y, uint32_t x,
                     uint32_t stride, uint32_t yp0, uint32_t yp1, uint32_t xp0, uint32_t xp1) {
  int64_t *f = in->f;
  f[VTA_F_MEMORY_TYPE] = t;
  f[VTA_F_SRAM_BASE] = sram;
  f[VTA_F_DRAM_BASE] = dram;
  f[VTA_F_Y_SIZE] = y;
  f[VTA_F_X_SIZE] = x;
  f[VTA_F_X_STRIDE] = stride;
  f[VTA_F_Y_PAD_0] = yp0;
  f[VTA_F_Y_PAD_1] = yp1;
  f[VTA_F_X_PAD_0] = xp0;
  f[VTA_F_X_PAD_1] = xp1;
}

/* Zeros buffer entries [0, count) of type t with padding-only loads (no DRAM traffic). */
static void plan_zero(gen *g, tlist *l, int t, uint32_t count) {
  uint32_t maxpad = (1u << g->cfg->layout[VTA_FMT_MEM].pos[VTA_F_Y_PAD_0].width) - 1;
  uint32_t maxxp = (1u << g->cfg->layout[VTA_FMT_MEM].pos[VTA_F_X_PAD_0].width) - 1;
  uint32_t at = 0;
  while (at < count && !g->bad) {
    uint32_t left = count - at, xt = min_u32(left, 1 + 2 * maxxp);
    uint32_t rows = min_u32(left / xt, 2 * maxpad);
    uint32_t yp0 = min_u32(rows, maxpad), xp0 = min_u32(xt - 1, maxxp);
    cp_tmpl *tp = plan(g, l, VTA_OP_LOAD);
    if (!tp) return;
    set_load(&tp->in, t, at, 0, 0, 1, 1, yp0, rows - yp0, xp0, xt - 1 - xp0);
    plan_done(g, l);
    at += rows * xt;
  }
}

/* A random 2-D load of type t into buffer entries [base, base + size). */
static void plan_load(gen *g, tlist *l, int t, uint32_t base, uint32_t size) {
  uint32_t eb = g->cfg->elem_bytes[t];
  uint32_t x = rnd(g, 0, 19) ? rnd(g, 1, 4) : 0, y = rnd(g, 0, 19) ? rnd(g, 1, 3) : 0;
  uint32_t yp0 = 0, yp1 = 0, xp0 = 0, xp1 = 0;
  if (rnd(g, 0, 2) == 0) {
    yp0 = rnd(g, 0, 2);
    yp1 = rnd(g, 0, 2);
    xp0 = rnd(g, 0, 2);
    xp1 = rnd(g, 0, 2);
  }
  if ((yp0 + y + yp1) * (xp0 + x + xp1) > size) yp0 = yp1 = xp0 = xp1 = 0;
  if (y * x > size) y = 1;
  uint32_t total = (yp0 + y + yp1) * (xp0 + x + xp1);
  /* Source: the read-only inputs, or now and then the area stores write (DRAM read after
   * write, or write after read, between store and this load). */
  uint64_t region = g->off_in[t], elems = CP_IN_ELEMS;
  if (rnd(g, 0, 3) == 0 && g->out_bytes / eb >= 1) {
    region = g->off_out;
    elems = g->out_bytes / eb;
  }
  uint32_t stride = rnd(g, 0, 3) == 0 ? rnd(g, 0, 6) : x + rnd(g, 0, 3);
  uint64_t span = y ? (uint64_t)(y - 1) * stride + x : 0;
  if (span > elems) {
    stride = x;
    y = x * 2 <= elems ? 2 : 1;
    y = x ? min_u32(y, (uint32_t)(elems / x)) : y;
    span = y ? (uint64_t)(y - 1) * stride + x : 0;
    total = (yp0 + y + yp1) * (xp0 + x + xp1);
  }
  cp_tmpl *tp = plan(g, l, VTA_OP_LOAD);
  if (!tp) return;
  uint32_t dram = (uint32_t)((g->data + region) / eb + rnd(g, 0, (uint32_t)(elems - span)));
  set_load(&tp->in, t, base + rnd(g, 0, size - total), dram, y, x, stride, yp0, yp1, xp0, xp1);
  plan_done(g, l);
}

/* Writes k new micro-ops (destinations in the ACC slot, sources in the INP slot, weights in
 * the WGT slot, each in the first half so loops stay inside) and plans their LOAD UOP. Returns
 * the buffer index of the first, or -1 when the micro-op area is used up. */
static long plan_uops(gen *g, tlist *l, uint32_t k, const uint32_t base[3], const uint32_t size[3]) {
  if (g->uop_used + k > CP_UOP_CAP) return -1;
  vta_uop u[8];
  for (uint32_t i = 0; i < k; i++)
    u[i] = (vta_uop){base[0] + rnd(g, 0, size[0] / 2 - 1), base[1] + rnd(g, 0, size[1] / 2 - 1),
                     base[2] + rnd(g, 0, size[2] / 2 - 1)};
  fp_uops(g->cfg, g->d + g->off_uop + 4ull * g->uop_used, u, k);
  uint32_t at = rnd(g, 0, g->lim[VTA_MEM_UOP] - k);
  cp_tmpl *tp = plan(g, l, VTA_OP_LOAD);
  if (!tp) return -1;
  set_load(&tp->in, VTA_MEM_UOP, at, (uint32_t)((g->data + g->off_uop) / 4) + g->uop_used, 1, k,
           k, 0, 0, 0, 0);
  g->uop_used += k;
  return plan_done(g, l) == 0 ? (long)at : -1;
}

/* A GEMM or ALU over micro-ops [bgn, end) with random loops; factors are capped so the
 * indices stay in the slots (and retried without factors if they do not). */
static void plan_op(gen *g, tlist *l, int op, int reset, uint32_t bgn, uint32_t end,
                    const uint32_t size[3]) {
  for (uint32_t k = bgn; k < end; k++)
    if (!g->uvalid[k]) return; /* only micro-ops this program loaded */
  for (int tries = 0; tries < 2; tries++) {
    cp_tmpl *tp = plan(g, l, op);
    if (!tp) return;
    int64_t *f = tp->in.f;
    f[VTA_F_UOP_BGN] = bgn;
    f[VTA_F_UOP_END] = end;
    f[VTA_F_ITER_OUT] = rnd(g, 0, 19) ? rnd(g, 1, 3) : 0;
    f[VTA_F_ITER_IN] = rnd(g, 1, 3);
    if (tries == 0) {
      uint32_t fa = size[0] / 8, fi = size[1] / 8, fw = size[2] / 8;
      f[VTA_F_DST_FACTOR_OUT] = rnd(g, 0, fa);
      f[VTA_F_DST_FACTOR_IN] = rnd(g, 0, 3) ? rnd(g, 0, fa) : 0; /* 0: accumulate in place */
      f[VTA_F_SRC_FACTOR_OUT] = rnd(g, 0, fi);
      f[VTA_F_SRC_FACTOR_IN] = rnd(g, 0, fi);
      if (op == VTA_OP_GEMM) {
        f[VTA_F_WGT_FACTOR_OUT] = rnd(g, 0, fw);
        f[VTA_F_WGT_FACTOR_IN] = rnd(g, 0, fw);
      }
    }
    if (op == VTA_OP_GEMM) {
      f[VTA_F_RESET_REG] = reset;
    } else {
      vta_alu_op aop = (vta_alu_op)rnd(g, 0, VTA_ALU_COUNT - 1);
      int32_t imm = (int32_t)rnd(g, 0, 65535) - 32768;
      if (rnd(g, 0, 3) != 0)
        imm = aop == VTA_ALU_SHR   ? (int32_t)rnd(g, 0, 16) - 4
              : aop == VTA_ALU_MUL ? (int32_t)rnd(g, 0, 10) - 5
                                   : (int32_t)rnd(g, 0, 400) - 200;
      f[VTA_F_ALU_OPCODE] = aop;
      f[VTA_F_USE_IMM] = rnd(g, 0, 1);
      f[VTA_F_IMM] = imm;
    }
    if (plan_done(g, l) == 0) return;
  }
}

static void plan_store(gen *g, tlist *l, uint32_t base, uint32_t size) {
  uint32_t x = rnd(g, 1, 4), y = rnd(g, 1, 3);
  if (x * y > size) y = 1;
  uint32_t stride = x + rnd(g, 0, 3), eb = g->cfg->elem_bytes[VTA_MEM_OUT];
  uint32_t elems = (uint32_t)(g->out_bytes / eb), span = (y - 1) * stride + x;
  cp_tmpl *tp = plan(g, l, VTA_OP_STORE);
  if (!tp) return;
  int64_t *f = tp->in.f;
  f[VTA_F_MEMORY_TYPE] = VTA_MEM_OUT;
  f[VTA_F_SRAM_BASE] = base + rnd(g, 0, size - x * y);
  f[VTA_F_DRAM_BASE] = (g->data + g->off_out) / eb + rnd(g, 0, elems - span);
  f[VTA_F_Y_SIZE] = y;
  f[VTA_F_X_SIZE] = x;
  f[VTA_F_X_STRIDE] = stride;
  plan_done(g, l);
}

/* ---- Data ---- */

static int layout(gen *g) {
  const vta_config *c = g->cfg;
  uint64_t at = 0, maxeb = 0;
  g->off_uop = at;
  at += (CP_UOP_CAP * 4ull + 4095) & ~4095ull;
  static const int in_types[] = {VTA_MEM_INP, VTA_MEM_WGT, VTA_MEM_ACC, VTA_MEM_ACC_8BIT};
  for (size_t i = 0; i < sizeof in_types / sizeof in_types[0]; i++) {
    int t = in_types[i];
    g->off_in[t] = at;
    at += ((uint64_t)CP_IN_ELEMS * c->elem_bytes[t] + 4095) & ~4095ull;
    if (c->elem_bytes[t] > maxeb) maxeb = c->elem_bytes[t];
  }
  /* The store area holds at least a few elements of every type a load may read from it. */
  g->off_out = at;
  g->out_bytes = (uint64_t)CP_OUT_ELEMS * c->elem_bytes[VTA_MEM_OUT];
  if (g->out_bytes < 8 * maxeb) g->out_bytes = 8 * maxeb;
  g->out_bytes = (g->out_bytes + 4095) & ~4095ull;
  g->bytes = at + g->out_bytes;
  if (vta_mem_alloc(g->mem, g->bytes, &g->data, NULL) != VTA_OK) return -1;
  g->d = vta_mem_ptr(g->mem, g->data);
  memset(g->d, 0, g->off_in[VTA_MEM_INP]);
  for (uint64_t i = g->off_in[VTA_MEM_INP]; i < g->bytes; i++) g->d[i] = (uint8_t)fp_rand(&g->s);
  /* ACC inputs: some small values and extremes (shifts, min/max, wraparound). */
  int32_t *acc = (int32_t *)(g->d + g->off_in[VTA_MEM_ACC]);
  for (uint64_t i = 0; i < (uint64_t)CP_IN_ELEMS * c->elem_bytes[VTA_MEM_ACC] / 4; i++) {
    uint32_t k = rnd(g, 0, 9);
    if (k < 3) acc[i] = (int32_t)rnd(g, 0, 600) - 300;
    if (k == 3) acc[i] = INT32_MIN;
    if (k == 4) acc[i] = INT32_MAX;
  }
  for (int t = 0; t < VTA_MEM_COUNT; t++) g->lim[t] = min_u32(c->depth[t], CP_LIM);
  g->lim[VTA_MEM_WGT] = min_u32(c->depth[VTA_MEM_WGT], CP_LIM_WGT);
  g->lim[VTA_MEM_UOP] = min_u32(c->depth[VTA_MEM_UOP], CP_LIM_UOP);
  /* INP indices double as ALU source (ACC) indices in shared micro-ops. */
  g->lim[VTA_MEM_INP] = g->lim[VTA_MEM_ACC] = min_u32(g->lim[VTA_MEM_INP], g->lim[VTA_MEM_ACC]);
  return 0;
}

/* ---- The program ---- */

enum { RING = 8 };

int cp_build(const vta_config *cfg, uint64_t seed, uint32_t ninsn, vta_mem *mem, cp_program *out,
             char *msg, size_t n) {
  gen g;
  memset(&g, 0, sizeof g);
  memset(out, 0, sizeof *out);
  g.cfg = cfg;
  g.s = seed * 0x9e3779b97f4a7c15ull + 7;
  g.mem = mem;
  g.out = out;
  for (int m = 0; m < NMOD; m++) g.last[m] = -1;
  tlist lists[NMOD] = {{0}};
  int rc = -1;
  g.ubuf = calloc(cfg->depth[VTA_MEM_UOP], sizeof *g.ubuf);
  g.uvalid = calloc(cfg->depth[VTA_MEM_UOP], 1);
  if (!g.ubuf || !g.uvalid || layout(&g) != 0) {
    snprintf(msg, n, "seed %llu: out of device or host memory", (unsigned long long)seed);
    goto done;
  }
  if (shadow_init(&g.sh, cfg, g.bytes) != 0) {
    snprintf(msg, n, "out of memory");
    goto done;
  }
  /* Knobs of this program. */
  uint32_t slots[3] = {rnd(&g, 1, 3), rnd(&g, 1, 2), rnd(&g, 1, 3)}; /* INP, WGT, ACC/OUT */
  uint32_t lead = rnd(&g, 0, 2), lag = rnd(&g, 0, 2);
  static const uint32_t extra[] = {0, 5, 20};
  g.p_pop = extra[rnd(&g, 0, 2)];
  g.p_push = extra[rnd(&g, 0, 2)];
  uint32_t size[3] = {g.lim[VTA_MEM_INP] / slots[0], g.lim[VTA_MEM_WGT] / slots[1],
                      g.lim[VTA_MEM_ACC] / slots[2]};

  /* Prologue: buffers this program reads start at zero, whatever ran before, so a program
   * gives the same memory alone or in a sequence. The ALU writes OUT = narrow(0). */
  tlist *pl = &lists[0];
  plan_zero(&g, pl, VTA_MEM_INP, g.lim[VTA_MEM_INP]);
  plan_zero(&g, pl, VTA_MEM_WGT, g.lim[VTA_MEM_WGT]);
  plan_zero(&g, pl, VTA_MEM_ACC, g.lim[VTA_MEM_ACC]);
  {
    vta_uop zero = {0, 0, 0};
    fp_uops(cfg, g.d + g.off_uop, &zero, 1);
    g.uop_used = 1;
    cp_tmpl *tp = plan(&g, pl, VTA_OP_LOAD);
    if (tp) {
      set_load(&tp->in, VTA_MEM_UOP, 0, (uint32_t)((g.data + g.off_uop) / 4), 1, 1, 1, 0, 0, 0, 0);
      plan_done(&g, pl);
    }
    tp = plan(&g, pl, VTA_OP_ALU);
    if (tp) {
      int64_t *f = tp->in.f;
      f[VTA_F_UOP_END] = 1;
      f[VTA_F_ITER_OUT] = g.lim[VTA_MEM_ACC];
      f[VTA_F_ITER_IN] = 1;
      f[VTA_F_DST_FACTOR_OUT] = 1;
      f[VTA_F_ALU_OPCODE] = VTA_ALU_ADD;
      f[VTA_F_USE_IMM] = 1;
      plan_done(&g, pl);
    }
    /* Prologue tokens follow the rule like everything else, without extra ones. */
    for (size_t i = 0; i < pl->n; i++) {
      emit_tmpl(&g, &pl->t[i], 0);
      free(pl->t[i].acc.r);
    }
    pl->n = 0;
  }

  /* Tiles, software-pipelined: step k emits load(k), compute(k - lead), store(k - lead - lag)
   * merged in random order. */
  uint32_t wslot[RING];
  uint32_t wcur = 0, tiles = 0;
  long cur_blk = 0;
  uint32_t cur_len = 1;
  uint32_t body = ninsn > 12 ? ninsn - 12 : 4;
  uint32_t ntiles = body / 7 + 1;
  for (uint32_t k = 0; k < ntiles + lead + lag && !g.bad; k++) {
    if (k < ntiles) { /* load(k) */
      tlist *l = &lists[L];
      if (k == 0 || rnd(&g, 0, 2) == 0) {
        wcur = (wcur + 1) % slots[1];
        plan_load(&g, l, VTA_MEM_WGT, wcur * size[1], size[1]);
      }
      wslot[k % RING] = wcur;
      uint32_t nl = rnd(&g, 1, 2);
      for (uint32_t i = 0; i < nl; i++)
        plan_load(&g, l, VTA_MEM_INP, (k % slots[0]) * size[0], size[0]);
      tiles++;
    }
    if (k >= lead && k - lead < ntiles) { /* compute(j) */
      uint32_t j = k - lead;
      tlist *l = &lists[C];
      uint32_t base[3] = {(j % slots[2]) * size[2], (j % slots[0]) * size[0],
                          wslot[j % RING] * size[1]};
      uint32_t usize[3] = {size[2], size[0], size[1]};
      if (j == 0 || rnd(&g, 0, 9) < 6) {
        uint32_t len = rnd(&g, 1, 6);
        long at = plan_uops(&g, l, len, base, usize);
        if (at >= 0) {
          cur_blk = at;
          cur_len = len;
        }
      }
      if (rnd(&g, 0, 9) < 3)
        plan_load(&g, l, rnd(&g, 0, 1) ? VTA_MEM_ACC : VTA_MEM_ACC_8BIT, base[0], size[2]);
      uint32_t b0 = (uint32_t)cur_blk, b1 = b0 + cur_len;
      if (rnd(&g, 0, 1)) plan_op(&g, l, VTA_OP_GEMM, 1, b0, b1, usize);
      uint32_t nops = rnd(&g, 1, 3);
      for (uint32_t i = 0; i < nops; i++) {
        /* Mostly the whole block, sometimes a part of it. */
        uint32_t a = b0, e = b1;
        if (cur_len > 1 && rnd(&g, 0, 2) == 0) {
          a = b0 + rnd(&g, 0, cur_len - 1);
          e = a + 1 + rnd(&g, 0, b1 - a - 1);
        }
        plan_op(&g, l, rnd(&g, 0, 9) < 6 ? VTA_OP_GEMM : VTA_OP_ALU, rnd(&g, 0, 9) == 0, a, e,
                usize);
      }
    }
    if (k >= lead + lag && k - lead - lag < ntiles) { /* store(j) */
      uint32_t j = k - lead - lag;
      uint32_t ns = rnd(&g, 1, 2);
      for (uint32_t i = 0; i < ns; i++) plan_store(&g, &lists[S], (j % slots[2]) * size[2], size[2]);
    }
    /* Random merge of the three lists, each in its own order. */
    for (;;) {
      uint32_t left = 0;
      for (int m = 0; m < NMOD; m++) left += (uint32_t)(lists[m].n - lists[m].next);
      if (!left || g.bad) break;
      uint32_t pick = rnd(&g, 0, left - 1);
      int m = 0;
      while (pick >= lists[m].n - lists[m].next) {
        pick -= (uint32_t)(lists[m].n - lists[m].next);
        m++;
      }
      cp_tmpl *t = &lists[m].t[lists[m].next++];
      emit_tmpl(&g, t, 1);
      free(t->acc.r);
      t->acc.r = NULL;
    }
    for (int m = 0; m < NMOD; m++) lists[m].n = lists[m].next = 0;
  }

  /* Half the programs wait for everything before FINISH, as runtimes do; the others end while
   * load and store may still run (the device is done only when every module is idle). */
  if (!g.bad && rnd(&g, 0, 1)) {
    pend x;
    make_noop(&g, &x, C);
    need(&g, &x, L, g.seq[L]);
    need(&g, &x, S, g.seq[S]);
    emit(&g, &x);
  }
  if (!g.bad) {
    pend fin;
    memset(&fin, 0, sizeof fin);
    fin.m = C;
    fin.in.f[VTA_F_OPCODE] = VTA_OP_FINISH;
    emit(&g, &fin);
  }
  if (g.bad) {
    snprintf(msg, n, "seed %llu: the generator failed (out of memory or an internal error)",
             (unsigned long long)seed);
    goto done;
  }
  fsim_prog p;
  fp_init(&p, cfg);
  int bad = 0;
  for (size_t i = 0; i < g.n; i++) bad |= fp_add(&p, &g.v[i]) < 0;
  if (!bad) bad = fp_commit(&p, mem, &out->insn) != 0;
  out->count = fp_count(&p);
  fp_free(&p);
  if (bad) {
    snprintf(msg, n, "seed %llu: an instruction does not encode", (unsigned long long)seed);
    goto done;
  }
  out->data = g.data;
  out->data_bytes = g.bytes;
  out->tiles = tiles;
  rc = 0;
done:
  for (int m = 0; m < NMOD; m++) {
    for (size_t i = lists[m].next; i < lists[m].n; i++) free(lists[m].t[i].acc.r);
    free(lists[m].t);
  }
  if (rc != 0 && g.data) vta_mem_free(mem, g.data);
  shadow_free(&g.sh);
  for (int q = 0; q < VTA_Q_COUNT; q++) free(g.q[q].vc);
  free(g.v);
  free(g.ubuf);
  free(g.uvalid);
  return rc;
}
