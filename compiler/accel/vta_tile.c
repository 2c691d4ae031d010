/* vta_tile.c - the tiling cost model, the search over tilings, and the --explain text.
 *
 * The design idea: the cost of a tiling is predicted by replaying its schedule (the very walk
 * that emits the program, vta_walk.c) through an event model of the accelerator instead of a
 * formula. The three modules (load, compute, store) each execute their instructions in order;
 * an instruction starts when its module is free and the tokens it pops have been pushed; a
 * push happens when the pushing module's last instruction ends; the modules are simulated in
 * time order. Durations:
 *   LOAD INP/WGT (load module): DRAM latency, then bus beats on the shared read channel; buffer
 *                               writes (one entry per cycle) in order; up to load_ahead LOADs
 *                               accepted (their reads issued) beyond the one writing
 *   LOAD ACC (compute):         both units drained (in one bank without pads: the ALU, and a
 *                               GEMM writing that bank), then a read behind the bursts already
 *                               issued
 *   LOAD UOP (compute):         at once (beside the instructions before it), then the same
 *   GEMM/ALU (compute):         one micro-op per cycle on its unit: iterations x micro-ops +
 *                               overhead; a GEMM and an ALU instruction run together when their
 *                               ACC footprints allow it (the rule of hw/rtl/vta_compute.sv)
 *   STORE (store module):       beats + overhead on the module, then its token pushed a write
 *                               latency later; the next STORE starts after the beats (up to
 *                               STORE_TAIL in flight); an empty one after every earlier one
 * and the micro-op buffer is modelled as the JIT's ring (a kernel evicted and used again pays
 * another LOAD UOP), with the hardware's footprint records (one per LOAD UOP, the last
 * VTA_TILE_FP_RECORDS of them). Compute instructions start in order and their tokens are pushed
 * in order. So overlap, prologue and epilogue, a load-bound step or a store-bound unit, halo
 * re-reads, weight reloads, loads competing for the read channel and the ALU epilogue hidden
 * behind the other virtual thread's GEMMs are all counted, in cycles and in bytes. The constants
 * were set against the rtl backend (docs/tiling.md).
 *
 * The search enumerates tile sizes (for each dimension the distinct sizes ceil(extent / k)),
 * both tile orders, both bias placements, kernel-row steps and the im2col form, drops the plans
 * whose working set does not fit the configuration's buffers, ranks the rest by a quick
 * estimate (module busy times counted with the schedule's reuse rules, plus what cannot
 * overlap), replays the best through the event model, then replays the neighbours of the best
 * until none is better; the fewest predicted cycles wins.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/accel/vta_lower.h"

static uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

void vta_tile_model_default(const vta_config *cfg, vta_tile_model *m) {
  m->read_latency = cfg->dram_latency > 0 ? (uint32_t)cfg->dram_latency : 32;
  m->write_latency = m->read_latency;
  m->bus_bytes = cfg->bus_bytes ? cfg->bus_bytes : 8;
  m->load_overhead = 4;
  m->compute_overhead = 1;
  m->drain = 4;
  m->load_ahead = 2;
}

/* ---- The event model: a sink of vta_sched_walk ----
 *
 * The walk's operations are recorded per module as instructions carrying the token pops and
 * pushes the JIT would attach to them (a pop to the module's next instruction, a push to its
 * last one, no-ops where there is none), and simulated at the sync in time order: the module
 * whose next instruction can start earliest goes first. Reads share one DRAM data channel in
 * the order they start (an instruction's bursts are all requested when it starts), so a
 * micro-op or bias load on the compute module waits behind the load module's data. */

typedef enum ikind {
  I_NOOP = 0,
  I_READ = 1, /* a load: latency, then beats on the read channel; entries written */
  I_EXEC = 2, /* GEMM or ALU: cycles */
  I_STORE = 3 /* beats on the write channel, then the write response */
} ikind;

#define MAX_TOKS 4
/* STOREs started and not completed at once (hw/rtl/vta_store.sv, TailDepth). */
#define STORE_TAIL 4

/* What a GEMM or ALU instruction may touch of ACC, as the hardware knows it before it starts
 * (hw/rtl/vta_uop_fp.sv, vta_compute.sv): the range of its destinations and, for an ALU with a
 * vector operand, of its sources. ok: known, unwrapped, destinations in one bank. */
typedef struct footprint {
  uint8_t ok, nop, src;
  uint32_t dlo, dhi, slo, shi;
} footprint;

/* Cycles from the start of a LOAD UOP to its read request: it does not wait for the units to
 * drain (hw/rtl/vta_compute.sv). Not in vta_tile_model (whose fields are shared with the
 * tuning interface); measured like the others on the rtl backend. */
#define UOP_LOAD_ISSUE 1

/* The hardware keeps this many footprint records (hw/rtl/vta_uop_fp.sv, NRec). */
#define VTA_TILE_FP_RECORDS 32
/* Instructions the compute module's retire queue holds (hw/rtl/vta_compute.sv, RqDepth). */
#define RQ_DEPTH 8

typedef struct insn {
  uint8_t kind, npop, npush;
  uint8_t pop[MAX_TOKS], push[MAX_TOKS];
  uint8_t unit; /* I_EXEC: 0 the GEMM unit, 1 the ALU */
  uint8_t uop;  /* I_READ on compute: a LOAD UOP (it waits only for instructions reading the
                 * entries it writes), else a LOAD ACC (it waits for both units to drain) */
  uint8_t ald;  /* a LOAD ACC or ACC_8BIT without pads inside one bank: it waits for the ALU and
                 * for a GEMM that writes its bank only (hw/rtl/vta_compute.sv, can_ald) */
  uint32_t ald_lo; /* its first entry */
  uint32_t ubgn, uend; /* I_EXEC: micro-op entries read; LOAD UOP: written */
  uint64_t beats, entries, cycles;
  footprint fp; /* I_EXEC */
} insn;

#define MAX_AHEAD 16

typedef struct mq {
  insn *v;
  size_t n, cap, next;
  uint64_t free;       /* earliest start (acceptance) of the next instruction */
  uint64_t write_free; /* load module: when its write sequencer is free */
  uint64_t written[MAX_AHEAD + 1]; /* load module: when recent instructions finished writing */
} mq;

typedef struct ktime {
  uint64_t cycles; /* per run */
  uint32_t nuops;
  int gemm;
  int resident;
  uint32_t begin, end;
  footprint fp;  /* from its micro-ops and loops; usable while its record lasts */
  uint64_t rec;  /* the LOAD UOP (count) that left its record */
} ktime;

typedef struct tq {
  uint64_t *t;
  size_t n, cap, head;
} tq;

typedef struct csink {
  const vta_config *cfg;
  const vta_tile_model *m;
  vta_tile_cost *c;
  mq mod[VTA_MOD_COUNT];
  uint8_t pend[VTA_MOD_COUNT][MAX_TOKS]; /* pops waiting for the module's next instruction */
  int npend[VTA_MOD_COUNT];
  tq q[VTA_Q_COUNT];
  ktime *k;
  size_t nk, capk;
  /* The micro-op ring: resident kernels in placement order. */
  uint32_t *ring;
  size_t nring, capring;
  uint32_t top;
  uint64_t uop_loads; /* LOAD UOPs so far (footprint records) */
} csink;

static int mod_of_stage(vta_jit_stage s) { return (int)s - 1; }

static int queue_of(vta_jit_stage from, vta_jit_stage to) {
  if (from == VTA_JIT_STAGE_LOAD) return VTA_Q_LOAD_TO_COMPUTE;
  if (from == VTA_JIT_STAGE_STORE) return VTA_Q_STORE_TO_COMPUTE;
  return to == VTA_JIT_STAGE_LOAD ? VTA_Q_COMPUTE_TO_LOAD : VTA_Q_COMPUTE_TO_STORE;
}

/* Appends an instruction to module mod, taking its pending pops. */
static insn *add_insn(csink *s, int mod, ikind kind, vta_error *err) {
  mq *q = &s->mod[mod];
  if (q->n == q->cap) {
    size_t nc = q->cap ? 2 * q->cap : 256;
    insn *nv = realloc(q->v, nc * sizeof *nv);
    if (!nv) {
      vta_error_set(err, VTA_ERR_NOMEM, "cost model: out of memory");
      return NULL;
    }
    q->v = nv;
    q->cap = nc;
  }
  insn *in = &q->v[q->n++];
  memset(in, 0, sizeof *in);
  in->kind = (uint8_t)kind;
  in->npop = (uint8_t)s->npend[mod];
  memcpy(in->pop, s->pend[mod], sizeof in->pop);
  s->npend[mod] = 0;
  return in;
}

/* Bus beats covering each row of a transfer (rows need not be aligned to the bus). */
static uint64_t beats(const csink *s, const vta_prog_xfer *x) {
  uint64_t eb = s->cfg->elem_bytes[x->type], bus = s->m->bus_bytes, n = 0;
  uint64_t len = (uint64_t)x->x_size * eb;
  if ((eb % bus == 0) || (x->x_stride * eb) % bus == 0) {
    uint64_t a = x->offset * eb % bus;
    return (uint64_t)x->y_size * ((a + len + bus - 1) / bus);
  }
  for (uint32_t y = 0; y < x->y_size; y++) {
    uint64_t a = (x->offset + (uint64_t)y * x->x_stride) * eb % bus;
    n += (a + len + bus - 1) / bus;
  }
  return n;
}

static int cs_load(void *ctx, const vta_prog_xfer *x, vta_error *err) {
  csink *s = ctx;
  uint64_t eb = s->cfg->elem_bytes[x->type];
  int mod = x->type == VTA_MEM_INP || x->type == VTA_MEM_WGT ? VTA_MOD_LOAD : VTA_MOD_COMPUTE;
  insn *in = add_insn(s, mod, I_READ, err);
  if (!in) return VTA_ERR_NOMEM;
  in->beats = beats(s, x);
  in->entries = (uint64_t)(x->y_pad_before + x->y_size + x->y_pad_after) *
                (x->x_pad_before + x->x_size + x->x_pad_after);
  if (mod == VTA_MOD_COMPUTE && (x->type == VTA_MEM_ACC || x->type == VTA_MEM_ACC_8BIT)) {
    uint64_t half = s->cfg->depth[VTA_MEM_ACC] / 2;
    in->ald = !x->y_pad_before && !x->y_pad_after && !x->x_pad_before && !x->x_pad_after &&
              x->sram < 2 * half && x->sram % half + in->entries <= half;
    in->ald_lo = x->sram;
  }
  s->c->bytes_read[x->type] += (uint64_t)x->x_size * x->y_size * eb;
  s->c->loads++;
  return VTA_OK;
}

static int cs_store(void *ctx, const vta_prog_xfer *x, vta_error *err) {
  csink *s = ctx;
  insn *in = add_insn(s, VTA_MOD_STORE, I_STORE, err);
  if (!in) return VTA_ERR_NOMEM;
  in->beats = beats(s, x);
  in->entries = (uint64_t)x->x_size * x->y_size;
  s->c->bytes_written += (uint64_t)x->x_size * x->y_size * s->cfg->elem_bytes[VTA_MEM_OUT];
  s->c->stores++;
  return VTA_OK;
}

/* The footprint the hardware computes for a kernel: bounds of its micro-ops' dst (and, for an
 * ALU with a vector operand, src) fields plus the largest loop offsets. */
static void kernel_footprint(const vta_config *cfg, const vta_prog_kernel *k, uint64_t iters,
                             footprint *f) {
  memset(f, 0, sizeof *f);
  if (iters == 0 || k->nuops == 0) {
    f->ok = f->nop = 1;
    return;
  }
  if (!k->uops) return; /* unknown */
  uint64_t dmin = UINT64_MAX, dmax = 0, smin = UINT64_MAX, smax = 0, dspan = 0, sspan = 0;
  for (uint32_t i = 0; i < k->nuops; i++) {
    uint64_t d = k->uops[i].dst, x = k->uops[i].src;
    if (d < dmin) dmin = d;
    if (d > dmax) dmax = d;
    if (x < smin) smin = x;
    if (x > smax) smax = x;
  }
  for (uint32_t l = 0; l < k->nloops; l++) {
    dspan += (uint64_t)(k->loop[l].extent - 1) * k->loop[l].dst;
    sspan += (uint64_t)(k->loop[l].extent - 1) * k->loop[l].src;
  }
  uint64_t depth = cfg->depth[VTA_MEM_ACC], bank = depth / 2;
  f->src = k->mode == VTA_JIT_ALU && !k->use_imm;
  f->dlo = (uint32_t)dmin;
  f->dhi = (uint32_t)(dmax + dspan < depth ? dmax + dspan : depth);
  f->slo = (uint32_t)(smin < depth ? smin : depth);
  f->shi = (uint32_t)(smax + sspan < depth ? smax + sspan : depth);
  f->ok = dmax + dspan < depth && (!f->src || smax + sspan < depth) &&
          dmin / bank == (dmax + dspan) / bank;
}

/* May instructions with footprints a and b run on the two units at once? Known footprints,
 * destinations in different banks, neither's destinations among the other's vector operands. */
static int fp_apart(const footprint *a, const footprint *b, uint32_t bank) {
  if (!a->ok || !b->ok) return 0;
  if (a->nop || b->nop) return 1;
  if (a->dlo / bank == b->dlo / bank) return 0;
  if (b->src && !(a->dhi < b->slo || b->shi < a->dlo)) return 0;
  if (a->src && !(b->dhi < a->slo || a->shi < b->dlo)) return 0;
  return 1;
}

static int cs_kernel(void *ctx, const vta_prog_kernel *k, uint32_t *id, vta_error *err) {
  csink *s = ctx;
  if (s->nk == s->capk) {
    size_t nc = s->capk ? 2 * s->capk : 32;
    ktime *nk = realloc(s->k, nc * sizeof *nk);
    if (!nk) return vta_error_set(err, VTA_ERR_NOMEM, "cost model: out of memory");
    s->k = nk;
    s->capk = nc;
  }
  uint64_t iters = 1;
  for (uint32_t l = 0; l < k->nloops; l++) iters *= k->loop[l].extent;
  ktime *t = &s->k[s->nk];
  memset(t, 0, sizeof *t);
  t->cycles = iters * k->nuops;
  t->nuops = k->nuops;
  t->gemm = k->mode == VTA_JIT_GEMM; /* resets too, as the devices count them */
  kernel_footprint(s->cfg, k, iters, &t->fp);
  s->c->kernels++;
  s->c->kernel_uops += k->nuops;
  *id = (uint32_t)s->nk++;
  return VTA_OK;
}

/* Places kernel id in the micro-op ring as jit/kernel.c does, evicting what it overlaps. */
static int ring_place(csink *s, uint32_t id, vta_error *err) {
  ktime *k = &s->k[id];
  uint32_t depth = s->cfg->depth[VTA_MEM_UOP];
  if ((uint64_t)s->top + k->nuops > depth) s->top = 0;
  uint32_t b = s->top, e = b + k->nuops;
  size_t j = 0;
  for (size_t i = 0; i < s->nring; i++) {
    ktime *o = &s->k[s->ring[i]];
    if (o->begin < e && b < o->end) o->resident = 0;
    else s->ring[j++] = s->ring[i];
  }
  s->nring = j;
  if (s->nring == s->capring) {
    size_t nc = s->capring ? 2 * s->capring : 32;
    uint32_t *nr = realloc(s->ring, nc * sizeof *nr);
    if (!nr) return vta_error_set(err, VTA_ERR_NOMEM, "cost model: out of memory");
    s->ring = nr;
    s->capring = nc;
  }
  s->ring[s->nring++] = id;
  k->resident = 1;
  k->begin = b;
  k->end = e;
  s->top = e;
  return VTA_OK;
}

static int cs_run(void *ctx, uint32_t id, vta_error *err) {
  csink *s = ctx;
  ktime *k = &s->k[id];
  if (!k->resident) {
    int rc = ring_place(s, id, err);
    if (rc) return rc;
    k->rec = ++s->uop_loads;
    uint64_t bytes = (uint64_t)k->nuops * VTA_UOP_BYTES;
    s->c->bytes_read[VTA_MEM_UOP] += bytes;
    s->c->uop_loads++;
    /* The pending pops go to the kernel's instruction, not to its LOAD UOP (jit/jit.c). */
    int npend = s->npend[VTA_MOD_COMPUTE];
    s->npend[VTA_MOD_COMPUTE] = 0;
    insn *in = add_insn(s, VTA_MOD_COMPUTE, I_READ, err);
    s->npend[VTA_MOD_COMPUTE] = npend;
    if (!in) return VTA_ERR_NOMEM;
    in->beats = (bytes + s->m->bus_bytes - 1) / s->m->bus_bytes;
    in->entries = k->nuops;
    in->uop = 1;
    in->ubgn = k->begin;
    in->uend = k->end;
  }
  insn *in = add_insn(s, VTA_MOD_COMPUTE, I_EXEC, err);
  if (!in) return VTA_ERR_NOMEM;
  in->cycles = k->cycles;
  in->unit = k->gemm ? 0 : 1;
  in->fp = k->fp;
  in->ubgn = k->begin;
  in->uend = k->end;
  /* Records are replaced oldest first: a kernel loaded too long ago has none. */
  if (!k->fp.nop && s->uop_loads - k->rec >= VTA_TILE_FP_RECORDS) in->fp.ok = 0;
  if (k->gemm) s->c->gemm_uops += k->cycles;
  else s->c->alu_uops += k->cycles;
  s->c->runs++;
  return VTA_OK;
}

static int cs_dep(void *ctx, int push, vta_jit_stage from, vta_jit_stage to, vta_error *err) {
  csink *s = ctx;
  uint8_t q = (uint8_t)queue_of(from, to);
  if (push) {
    int m = mod_of_stage(from);
    mq *mm = &s->mod[m];
    /* The JIT commits pending pops as a no-op first; a push goes on the module's last
     * instruction, or on a no-op when it has none or its push flag is taken. */
    if (s->npend[m] || mm->n == 0 || mm->v[mm->n - 1].npush == MAX_TOKS) {
      if (!add_insn(s, m, I_NOOP, err)) return VTA_ERR_NOMEM;
    }
    insn *last = &mm->v[mm->n - 1];
    last->push[last->npush++] = q;
  } else {
    int m = mod_of_stage(to);
    if (s->npend[m] == MAX_TOKS && !add_insn(s, m, I_NOOP, err)) return VTA_ERR_NOMEM;
    s->pend[m][s->npend[m]++] = q;
  }
  return VTA_OK;
}

static int tq_push(tq *q, uint64_t t, vta_error *err) {
  if (q->n == q->cap) {
    size_t nc = q->cap ? 2 * q->cap : 256;
    uint64_t *nt = realloc(q->t, nc * sizeof *nt);
    if (!nt) return vta_error_set(err, VTA_ERR_NOMEM, "cost model: out of memory");
    q->t = nt;
    q->cap = nc;
  }
  q->t[q->n++] = t;
  return VTA_OK;
}

/* Simulates the recorded instructions in time order. */
static int cs_sync(void *ctx, vta_error *err) {
  csink *s = ctx;
  const vta_tile_model *m = s->m;
  for (int mod = 0; mod < VTA_MOD_COUNT; mod++)
    if (s->npend[mod] && !add_insn(s, mod, I_NOOP, err)) return VTA_ERR_NOMEM;
  /* The read channel: data of every accepted read ends by rd_free. The load module's latest
   * transfer issues its 16-beat bursts one per cycle from last_s (data from last_d), so a read
   * on the compute module waits only for the bursts issued before it. */
  uint64_t rd_free = 0, end = 0, last_s = 0, last_d = 0, last_b = 0;
  /* The compute module: each unit's end (0 GEMM, 1 ALU) and the footprint of its instruction,
   * the earliest next start (in order, one per cycle; nothing while a load runs), the time
   * every instruction started so far has completed (pushes are in order), and the end of the
   * time covered by a unit's work (its busy time counts once when both run). */
  uint64_t ufree[2] = {0, 0}, next_start = 0, retired = 0, covered = 0;
  /* The retire queue (hw/rtl/vta_compute.sv, RqDepth): a GEMM or ALU instruction, a no-op, a
   * LOAD UOP or a LOAD ACC beside a GEMM enters it as it starts and leaves it when it and every
   * instruction before it are done; with RQ_DEPTH in it the next one waits. The retire times
   * of the last RQ_DEPTH of them (rq_n so far). */
  uint64_t rq[RQ_DEPTH] = {0}, rq_n = 0;
  /* The store module: the completions of its last STORE_TAIL STOREs (st_n so far) and of the
   * last one. */
  uint64_t st_fin[STORE_TAIL] = {0}, st_n = 0, st_done = 0;
  /* A unit is free for its next instruction when it issues its last micro-op; that micro-op
   * writes ACC in compute_c3 (C3 of the compute pipeline, docs/hw.md; the ALU's in compute_c4),
   * two of which the constants above already count (they date from the three-stage pipeline).
   * An instruction that may touch the other unit's elements starts handoff cycles after the
   * other's last micro-op issued, so that its first ACC read follows that write (the GEMM
   * unit's read in C1 and the ALU's in compute_alu_c1, the write in C3 or C4: compute_c3 -
   * compute_alu_c1 or compute_c4 - compute_c1 cycles; hw/rtl/vta_compute.sv, other_free).
   * The ALU's stall (a micro-op that reads what the one just before it wrote, or a product or
   * clip two before) is not modelled: the compiler's programs avoid it (a classifier head's
   * average sums its blocks in the inner loop) but for an average over a single block. */
  const uint64_t pipe[2] = {(uint64_t)s->cfg->compute_c1 + 1,
                            (uint64_t)s->cfg->compute_c1 + 1 + (s->cfg->compute_c4 -
                                                                s->cfg->compute_c3)};
  const uint64_t handoff[2] = {(uint64_t)s->cfg->compute_c3 - s->cfg->compute_alu_c1,
                               (uint64_t)s->cfg->compute_c4 - s->cfg->compute_c1};
  uint32_t ubgn[2] = {0, 0}, uend[2] = {0, 0}; /* micro-op entries each unit reads */
  uint64_t ustart[2] = {0, 0};                   /* when each unit's instruction started */
  footprint ufp[2];
  memset(ufp, 0, sizeof ufp);
  uint32_t bank = s->cfg->depth[VTA_MEM_ACC] / 2;
  for (;;) {
    int best = -1;
    uint64_t best_t = 0;
    for (int mod = 0; mod < VTA_MOD_COUNT; mod++) {
      mq *mm = &s->mod[mod];
      if (mm->next == mm->n) continue;
      const insn *in = &mm->v[mm->next];
      uint64_t t = mm->free;
      if (mod == VTA_MOD_COMPUTE) {
        t = next_start;
        int via_rq = in->kind != I_READ || in->uop || in->ald;
        if (via_rq && rq_n >= RQ_DEPTH) t = max_u64(t, rq[rq_n % RQ_DEPTH] + 1);
        if (in->kind == I_EXEC) {
          t = max_u64(t, ufree[in->unit]);
          if (!fp_apart(&in->fp, &ufp[!in->unit], bank))
            t = max_u64(t, ufree[!in->unit] + handoff[!in->unit]);
        } else if (in->kind == I_READ && in->uop) {
          for (int u = 0; u < 2; u++)
            if (in->ubgn < uend[u] && ubgn[u] < in->uend) t = max_u64(t, ufree[u]);
        } else if (in->kind == I_READ && in->ald) {
          t = max_u64(t, max_u64(ufree[1] + pipe[1], next_start + 2));
          if (!ufp[0].ok || ufp[0].nop || ufp[0].dlo / bank == in->ald_lo / bank)
            t = max_u64(t, ufree[0] + pipe[0]);
          else if (ufree[0] + pipe[0] > t) /* the GEMM before it out of the pipeline */
            t = max_u64(t, ustart[0] + s->cfg->compute_c3 + 1);
        } else if (in->kind == I_READ) {
          t = max_u64(t, max_u64(max_u64(ufree[0] + pipe[0], ufree[1] + pipe[1]), retired));
        }
      } else if (mod == VTA_MOD_STORE) {
        if (in->kind != I_STORE) t = max_u64(t, st_done);  /* after every earlier STORE */
        else if (st_n >= STORE_TAIL) t = max_u64(t, st_fin[st_n % STORE_TAIL]);
      }
      int ready = 1;
      /* Each pop takes the next token of its queue (pops of one queue in one instruction
       * take consecutive tokens). */
      size_t used[VTA_Q_COUNT] = {0};
      for (int i = 0; i < in->npop && ready; i++) {
        tq *q = &s->q[in->pop[i]];
        size_t at = q->head + used[in->pop[i]]++;
        if (at >= q->n) ready = 0;
        else if (q->t[at] > t) t = q->t[at];
      }
      if (ready && (best < 0 || t < best_t)) {
        best = mod;
        best_t = t;
      }
    }
    if (best < 0) break;
    mq *mm = &s->mod[best];
    size_t idx = mm->next;
    insn *in = &mm->v[mm->next++];
    for (int i = 0; i < in->npop; i++) s->q[in->pop[i]].head++;
    uint64_t start = best_t, fin = start;
    if (best == VTA_MOD_LOAD) {
      /* Accepted at start: its reads go out at once, behind whatever the channel carries; its
       * writes follow the previous instruction's; up to load_ahead instructions are accepted
       * beyond the one writing. */
      uint64_t data = start;
      if (in->kind == I_READ) {
        data = start + m->read_latency > rd_free ? start + m->read_latency : rd_free;
        rd_free = data + in->beats;
        last_s = start;
        last_d = data;
        last_b = in->beats;
      }
      uint64_t w0 = data > mm->write_free ? data : mm->write_free;
      fin = w0 + (in->kind == I_READ ? max_u64(in->beats, in->entries) + m->load_overhead : 0);
      s->c->busy[best] += fin - w0;
      mm->write_free = fin;
      mm->written[idx % (MAX_AHEAD + 1)] = fin;
      uint32_t ahead = m->load_ahead < MAX_AHEAD ? m->load_ahead : MAX_AHEAD;
      mm->free = start + 1;
      if (idx + 1 > ahead) {
        uint64_t gate = mm->written[(idx - ahead) % (MAX_AHEAD + 1)];
        if (gate > mm->free) mm->free = gate;
      }
    } else {
      if (in->kind == I_READ) {
        uint64_t issue = start + (in->uop || in->ald ? UOP_LOAD_ISSUE : m->drain), ahead = rd_free;
        uint64_t bursts = (last_b + 15) / 16;
        if (issue < last_s + bursts) { /* behind only the bursts already issued */
          uint64_t before = issue >= last_s ? (issue - last_s + 1) * 16 : 0;
          ahead = last_d + (before < last_b ? before : last_b);
        }
        uint64_t data = issue + m->read_latency > ahead ? issue + m->read_latency : ahead;
        rd_free = (rd_free > data ? rd_free : data) + in->beats; /* later bursts wait */
        fin = data + max_u64(in->beats, in->entries) + m->load_overhead;
      } else if (in->kind == I_EXEC) {
        fin = start + in->cycles + m->compute_overhead + pipe[in->unit];
      } else if (in->kind == I_STORE) {
        /* The module takes the next STORE after this one's beats; its token (and its
         * completion) follows the last write response. */
        uint64_t data_end = start + max_u64(in->beats, in->entries) + m->load_overhead;
        fin = data_end + m->write_latency;
        s->c->busy[best] += fin - max_u64(start, st_done);
        st_fin[st_n++ % STORE_TAIL] = fin;
        st_done = fin;
        mm->free = data_end;
      }
      if (best == VTA_MOD_COMPUTE) {
        next_start = start + 1;
        if (in->kind == I_EXEC) {
          ufree[in->unit] = fin - pipe[in->unit];
          ustart[in->unit] = start;
          ufp[in->unit] = in->fp;
          ubgn[in->unit] = in->ubgn;
          uend[in->unit] = in->uend;
        } else if (in->kind == I_READ) {
          next_start = fin; /* the next instruction waits for the load */
        } else {
          fin = start + 1; /* a no-op: retires the cycle after it starts */
        }
        s->c->busy[best] += fin > max_u64(start, covered) ? fin - max_u64(start, covered) : 0;
        if (fin > covered) covered = fin;
        /* Tokens are pushed when this and every earlier instruction have completed. */
        if (fin < retired) fin = retired;
        retired = fin;
        mm->free = fin;
        if (in->kind != I_READ || in->uop || in->ald) rq[rq_n++ % RQ_DEPTH] = fin;
      } else if (in->kind != I_STORE) {
        s->c->busy[best] += fin - start;
        mm->free = fin;
      }
    }
    if (fin > end) end = fin;
    for (int i = 0; i < in->npush; i++) {
      int rc = tq_push(&s->q[in->push[i]], fin, err);
      if (rc) return rc;
    }
  }
  for (int mod = 0; mod < VTA_MOD_COUNT; mod++)
    if (s->mod[mod].next != s->mod[mod].n)
      return vta_error_set(err, VTA_ERR_DEADLOCK,
                           "cost model: the %s module waits for a token never pushed",
                           vta_module_name((vta_module)mod));
  s->c->cycles = end;
  return VTA_OK;
}

/* An empty event model for cfg (m NULL: the default constants, kept in *dm), counting into
 * cost; sink_close frees what it recorded. */
static void sink_open(csink *s, const vta_config *cfg, const vta_tile_model *m,
                      vta_tile_model *dm, vta_tile_cost *cost) {
  if (!m) {
    vta_tile_model_default(cfg, dm);
    m = dm;
  }
  memset(cost, 0, sizeof *cost);
  memset(s, 0, sizeof *s);
  s->cfg = cfg;
  s->m = m;
  s->c = cost;
}

static void sink_close(csink *s) {
  for (int q = 0; q < VTA_Q_COUNT; q++) free(s->q[q].t);
  for (int mod = 0; mod < VTA_MOD_COUNT; mod++) free(s->mod[mod].v);
  free(s->k);
  free(s->ring);
}

int vta_tile_predict(const vta_config *cfg, const vta_tile_model *m, const vta_conv_desc *d,
                     vta_tile_epilogue epi, const vta_tile_plan *p, vta_tile_cost *cost,
                     vta_error *err) {
  vta_tile_model dm;
  csink s;
  sink_open(&s, cfg, m, &dm, cost);
  vta_sched_epi e;
  vta_sched_epi_default(d, epi, &e);
  /* Micro-ops are built: the footprints of the kernels come from them. */
  vta_sched_sink sink = {.ctx = &s, .wants_uops = 1, .kernel = cs_kernel, .load = cs_load,
                         .store = cs_store, .run = cs_run, .dep = cs_dep, .sync = cs_sync};
  int rc = vta_sched_walk(cfg, d, &e, p, &sink, err);
  sink_close(&s);
  vta_conv_desc tmp;
  if (p->im2col) {
    vta_conv_im2col_desc(d, &tmp);
    d = &tmp;
  }
  if (rc == VTA_OK) {
    uint32_t ho = vta_conv_out_h(d), wo = vta_conv_out_w(d);
    uint32_t n_oh = ceil_div(ho, p->ho_t), n_ow = ceil_div(wo, p->wo_t);
    uint32_t cob = ceil_div(d->k, cfg->block_out), cib = ceil_div(d->c, cfg->block_in);
    cost->units = (uint64_t)ceil_div(d->n, cfg->batch) * n_oh * n_ow * ceil_div(cob, p->co_t);
    cost->steps = cost->units * (ceil_div(cib, p->ci_t) + (d->has_residual ? 1 : 0));
  }
  return rc;
}

int vta_tile_predict_program(const vta_config *cfg, const vta_tile_model *m,
                             const vta_program *prog, vta_tile_cost *cost, vta_error *err) {
  vta_tile_model dm;
  csink s;
  sink_open(&s, cfg, m, &dm, cost);
  int rc = VTA_OK;
  size_t nk = vta_program_kernel_count(prog), n = vta_program_op_count(prog);
  /* The kernels first: their ids are then the program's indices. */
  for (size_t i = 0; rc == VTA_OK && i < nk; i++) {
    uint32_t id;
    rc = cs_kernel(&s, vta_program_kernel(prog, i), &id, err);
  }
  int synced = 0;
  for (size_t i = 0; rc == VTA_OK && i < n; i++) {
    const vta_prog_op *op = vta_program_op(prog, i);
    switch (op->op) {
      case VTA_PROG_LOAD: rc = cs_load(&s, &op->x, err); break;
      case VTA_PROG_STORE: rc = cs_store(&s, &op->x, err); break;
      case VTA_PROG_RUN:
        rc = op->kernel < nk ? cs_run(&s, op->kernel, err)
                             : vta_error_set(err, VTA_ERR_INVALID,
                                             "cost model: operation %zu runs kernel %u of %zu", i,
                                             op->kernel, nk);
        break;
      case VTA_PROG_PUSH: rc = cs_dep(&s, 1, op->from, op->to, err); break;
      case VTA_PROG_POP: rc = cs_dep(&s, 0, op->from, op->to, err); break;
      default:
        /* Only a program's final sync is modelled: one device run. */
        if (i + 1 == n) {
          rc = cs_sync(&s, err);
          synced = 1;
        }
        break;
    }
  }
  if (rc == VTA_OK && !synced) rc = cs_sync(&s, err);
  sink_close(&s);
  return rc;
}

int vta_tile_check(const vta_config *cfg, const vta_conv_desc *d, const vta_tile_plan *p,
                   vta_error *err) {
  int rc = vta_conv_check(cfg, d, err);
  vta_sched_layout l;
  if (rc == VTA_OK) rc = vta_sched_layout_of(cfg, d, p, &l, err);
  return rc;
}

/* ---- The search ---- */

/* The distinct tile sizes ceil(n / k) of a dimension of extent n, largest first. */
static size_t sizes_of(uint32_t n, uint32_t *out, size_t max) {
  size_t c = 0;
  uint32_t prev = 0;
  for (uint32_t k = 1; k <= n && c < max; k++) {
    uint32_t s = ceil_div(n, k);
    if (s != prev) out[c++] = s;
    prev = s;
  }
  return c;
}

typedef struct cand {
  vta_tile_plan p;
  uint64_t est; /* the quick estimate that ranks it */
} cand;

static int cand_cmp(const void *a, const void *b) {
  const cand *x = a, *y = b;
  return x->est < y->est ? -1 : x->est > y->est;
}

/* Is a better than b (fewer cycles, then fewer bytes, then fewer instructions)? */
static int better(const vta_tile_cost *a, const vta_tile_cost *b) {
  if (a->cycles != b->cycles) return a->cycles < b->cycles;
  uint64_t ba = 0, bb = 0;
  for (int t = 0; t < VTA_MEM_COUNT; t++) {
    ba += a->bytes_read[t];
    bb += b->bytes_read[t];
  }
  if (ba != bb) return ba < bb;
  return a->loads + a->stores + a->runs < b->loads + b->stores + b->runs;
}

/* A quick estimate of a plan's cycles, to rank the plans before replaying the best few. It
 * counts what the schedule will do with the same reuse rules (vta_walk.c: a tile resident in
 * either half is not loaded again): the busy time of each module (on compute the busier of the
 * GEMM unit and the ALU, which run side by side, but no less than half the time each unit holds
 * an ACC slot; every load's latency and bus beats on load; every store on store), takes the
 * busiest, and
 * adds what cannot overlap: the first step's loads before any compute, and the last tile's
 * epilogue and store after it. */
static uint64_t estimate(const vta_config *cfg, const vta_tile_model *m, const vta_conv_desc *d,
                         vta_tile_epilogue epi, const vta_tile_plan *p,
                         const vta_sched_layout *l) {
  vta_conv_desc tmp;
  if (p->im2col) {
    vta_conv_im2col_desc(d, &tmp);
    d = &tmp;
  }
  uint32_t ho = vta_conv_out_h(d), wo = vta_conv_out_w(d);
  uint64_t cib = ceil_div(d->c, cfg->block_in), cob = ceil_div(d->k, cfg->block_out);
  uint64_t ng = ceil_div(d->n, cfg->batch), bus = m->bus_bytes, lat = m->read_latency;
  uint64_t kh = p->kh_t ? p->kh_t : d->kh, kw = p->kw_t ? p->kw_t : d->kw;
  uint64_t n_oh = ceil_div(ho, p->ho_t), n_ow = ceil_div(wo, p->wo_t);
  uint64_t n_co = ceil_div((uint32_t)cob, p->co_t), n_ci = ceil_div((uint32_t)cib, p->ci_t);
  uint64_t n_red = n_ci * ceil_div(d->kh, (uint32_t)kh) * ceil_div(d->kw, (uint32_t)kw);
  uint64_t nsp = ng * n_oh * n_ow, U = nsp * n_co, res = d->has_residual ? 1 : 0;
  uint64_t outs = ng * ho * wo * cob, P = (uint64_t)p->ho_t * p->wo_t;
  uint64_t ie = cfg->elem_bytes[VTA_MEM_INP], we = cfg->elem_bytes[VTA_MEM_WGT];
  uint64_t oe = cfg->elem_bytes[VTA_MEM_OUT];
  /* Stores: one per unit spanning whole rows, else one per output block. The store module is
   * busy with their beats; only the last one's write latency is in the unit's time (the
   * module starts the next STORE while the responses of the one before are on their way). */
  uint64_t st_data = (p->wo_t == wo ? 1 : p->co_t) * m->load_overhead +
                     p->co_t * P / (d->post_pool ? 4 : 1) * (oe > bus ? oe / bus : 1);
  uint64_t st_unit = st_data + m->write_latency;
  /* Compute: the GEMM unit (GEMMs, resets) and the ALU (initialisation, epilogue) run side by
   * side, one instruction overhead per run. An ACC half is held by a unit from its
   * initialisation to the end of its store, and there are two halves. */
  uint64_t g_out = cib * d->kh * d->kw + res, resets = epi == VTA_EPI_OFFSET ? 0 : 1;
  /* one SHRCLIP when it shifts, else MAX and MIN; a LeakyRelu: copy (2), SHL, MUL, MAX,
   * rounding; an add after the epilogue: up to 9 (its operand's MUL, then vta_walk.c's
   * add_key); a max pooling about 2 (pool_key) */
  uint64_t alu_ops = (epi == VTA_EPI_RESET ? 0 : 1) + (vta_conv_shift_vector(d) ? 1 : 2) +
                     (d->leaky_k ? 6 : 0) + (d->post_add ? 9 : 0) + (d->post_pool ? 2 : 0);
  uint64_t gunit = outs * (g_out + resets), aunit = outs * alu_ops;
  uint64_t runs = U * (n_red + res + 5);
  uint64_t compute = max_u64(gunit, aunit) + runs * m->compute_overhead;
  uint64_t half = p->co_t * P * (g_out + resets + alu_ops) + st_unit + lat;
  compute = max_u64(compute, U * half / 2);
  /* Bias loads per unit (with per-channel shifts, a second row of shift vectors). */
  uint64_t vrows = vta_conv_vector_rows(d);
  if (!p->bias_resident) compute += U * (m->drain + (cfg->compute_c1 + 1) + lat + vrows * p->co_t * 4 * we / 16 / bus);
  /* Loads: how many steps load an input tile and a weight tile. A cycle of tiles stays
   * resident when it fits the slots (least recently used replacement misses on every access
   * of a cycle longer than the slots). */
  uint64_t in_loads, w_loads, is = l->inp_slots, ws = l->wgt_slots;
  if (p->order == VTA_TILE_SPATIAL_OUTER) {
    in_loads = n_red + res <= is - 1 || n_co == 1 ? nsp * n_red : U * n_red;
    w_loads = n_co * n_red <= ws - 1 ? n_co * n_red : U * n_red;
  } else {
    in_loads = nsp * n_red <= is - 1 ? nsp * n_red : U * n_red;
    w_loads = n_red <= ws - 1 || nsp == 1 ? n_co * n_red : U * n_red;
  }
  uint64_t rows = d->kh == 1 && d->stride_h > 1 ? p->ho_t : (p->ho_t - 1) * d->stride_h + kh;
  uint64_t cols = (p->wo_t - 1) * d->stride_w + kw;
  uint64_t in_step = p->ci_t * (lat + m->load_overhead + rows * cols * (ie > bus ? ie / bus : 1));
  uint64_t w_step = lat + m->load_overhead + p->co_t * p->ci_t * kh * kw * we / bus;
  uint64_t res_unit = res * (lat + m->load_overhead + p->co_t * P * oe / bus) *
                      (p->wo_t == wo ? 1 : p->co_t);
  uint64_t load = in_loads * in_step + w_loads * w_step + U * res_unit;
  uint64_t store = U * st_data;
  uint64_t busiest = max_u64(compute, max_u64(load, store));
  return busiest + in_step + w_step + p->co_t * P * 3 + st_unit;
}

#define MAX_SIZES 512
/* How many of the best-ranked plans are replayed before the local search. On C1-C11 64 gives
 * the same choices as 128 (one layer, C6, a slightly better one) in half the time. */
#define MAX_REPLAYS 64

typedef struct cands {
  cand *c;
  size_t n, cap;
} cands;

/* Adds the feasible plans of one lowering (the conv itself, or over im2col patches). */
static int enumerate(const vta_config *cfg, const vta_tile_model *m, const vta_conv_desc *d,
                     vta_tile_epilogue epi, int im2col, cands *cs, vta_tile_choice *out,
                     vta_error *err) {
  vta_conv_desc tmp;
  const vta_conv_desc *de = d;
  if (im2col) {
    vta_conv_im2col_desc(d, &tmp);
    de = &tmp;
  }
  uint32_t ho = vta_conv_out_h(de), wo = vta_conv_out_w(de);
  uint32_t cib = ceil_div(de->c, cfg->block_in), cob = ceil_div(de->k, cfg->block_out);
  uint32_t hs[MAX_SIZES], ws[MAX_SIZES], cos[MAX_SIZES], cis[MAX_SIZES];
  uint32_t khs[MAX_SIZES], kws[MAX_SIZES];
  size_t nh = sizes_of(ho, hs, MAX_SIZES), nw = sizes_of(wo, ws, MAX_SIZES);
  size_t nco = sizes_of(cob, cos, MAX_SIZES), nci = sizes_of(cib, cis, MAX_SIZES);
  /* Steps over part of the kernel only for single input blocks (and rows), and not for a
   * 1-row kernel with a row stride (its rows are subsampled by the load). */
  size_t nkh_all = sizes_of(de->kh, khs, MAX_SIZES); /* khs[0] is the whole kernel */
  if (de->kh == 1 && de->stride_h > 1) nkh_all = 1;
  size_t nkw_all = sizes_of(de->kw, kws, MAX_SIZES);
  vta_error ignore;
  for (size_t a = 0; a < nco; a++)
    for (size_t b = 0; b < nci; b++)
      for (size_t ky = 0; ky < (cis[b] == 1 ? nkh_all : 1); ky++)
        for (size_t kx = 0; kx < (khs[ky] == 1 && cis[b] == 1 ? nkw_all : 1); kx++)
          for (size_t c = 0; c < nw; c++)
            for (size_t e = 0; e < nh; e++)
              for (int order = 0; order < VTA_TILE_ORDER_COUNT; order++)
                for (int br = 1; br >= 0; br--) {
                  vta_tile_plan p = {.ho_t = hs[e], .wo_t = ws[c], .co_t = cos[a],
                                     .ci_t = cis[b],
                                     .kh_t = cis[b] == 1 ? khs[ky] : de->kh,
                                     .kw_t = khs[ky] == 1 && cis[b] == 1 ? kws[kx] : de->kw,
                                     .order = (vta_tile_order)order, .bias_resident = br,
                                     .im2col = im2col};
                  out->candidates++;
                  vta_sched_layout l;
                  if (vta_sched_layout_of(cfg, d, &p, &l, &ignore) != VTA_OK) continue;
                  out->feasible++;
                  if (cs->n == cs->cap) {
                    size_t nc = cs->cap ? 2 * cs->cap : 256;
                    cand *n2 = realloc(cs->c, nc * sizeof *n2);
                    if (!n2) return vta_error_set(err, VTA_ERR_NOMEM, "tiling: out of memory");
                    cs->c = n2;
                    cs->cap = nc;
                  }
                  cs->c[cs->n].p = p;
                  cs->c[cs->n].est = estimate(cfg, m, d, epi, &p, &l);
                  cs->n++;
                }
  return VTA_OK;
}

/* Replays a plan and keeps it if it is among the best (the chosen one first). */
static void consider(const vta_config *cfg, const vta_tile_model *m, const vta_conv_desc *d,
                     vta_tile_epilogue epi, const vta_tile_plan *p, vta_tile_choice *out,
                     int *have) {
  for (int i = 0; i < out->ntop; i++)
    if (memcmp(&out->top[i], p, sizeof *p) == 0) return; /* already replayed */
  vta_tile_cost c;
  vta_error ignore;
  if (vta_tile_predict(cfg, m, d, epi, p, &c, &ignore) != VTA_OK) return;
  out->simulated++;
  int pos = out->ntop;
  while (pos > 0 && better(&c, &out->top_cost[pos - 1])) pos--;
  if (pos < VTA_TILE_EXPLAIN_TOP) {
    int n = out->ntop < VTA_TILE_EXPLAIN_TOP ? out->ntop : VTA_TILE_EXPLAIN_TOP - 1;
    memmove(&out->top[pos + 1], &out->top[pos], (size_t)(n - pos) * sizeof out->top[0]);
    memmove(&out->top_cost[pos + 1], &out->top_cost[pos],
            (size_t)(n - pos) * sizeof out->top_cost[0]);
    out->top[pos] = *p;
    out->top_cost[pos] = c;
    if (out->ntop < VTA_TILE_EXPLAIN_TOP) out->ntop++;
  }
  if (!*have || better(&c, &out->cost)) {
    out->plan = *p;
    out->cost = c;
    *have = 1;
  }
}

/* The next tile size of a dimension of extent n up (dir > 0) or down from size v. */
static uint32_t step_size(uint32_t n, uint32_t v, int dir) {
  uint32_t k = ceil_div(n, v); /* tiles at size v */
  if (dir > 0) {
    while (k > 1 && ceil_div(n, k - 1) == v) k--;
    return k > 1 ? ceil_div(n, k - 1) : v;
  }
  while (k < n && ceil_div(n, k + 1) == v) k++;
  return k < n ? ceil_div(n, k + 1) : v;
}

/* Plans one move away from p. */
static int neighbours(const vta_config *cfg, const vta_conv_desc *d, const vta_tile_plan *p,
                      vta_tile_plan *out) {
  vta_conv_desc tmp;
  const vta_conv_desc *de = d;
  if (p->im2col) {
    vta_conv_im2col_desc(d, &tmp);
    de = &tmp;
  }
  uint32_t ext[4] = {vta_conv_out_h(de), vta_conv_out_w(de), ceil_div(de->k, cfg->block_out),
                     ceil_div(de->c, cfg->block_in)};
  int n = 0;
  for (int dim = 0; dim < 4; dim++)
    for (int dir = -1; dir <= 1; dir += 2) {
      vta_tile_plan q = *p;
      uint32_t *f = dim == 0 ? &q.ho_t : dim == 1 ? &q.wo_t : dim == 2 ? &q.co_t : &q.ci_t;
      uint32_t v = step_size(ext[dim], *f, dir);
      if (v == *f) continue;
      *f = v;
      if (dim == 3 && q.ci_t != 1) q.kh_t = de->kh, q.kw_t = de->kw;
      out[n++] = q;
    }
  vta_tile_plan q = *p;
  q.order = p->order == VTA_TILE_SPATIAL_OUTER ? VTA_TILE_CO_OUTER : VTA_TILE_SPATIAL_OUTER;
  out[n++] = q;
  q = *p;
  q.bias_resident = !p->bias_resident;
  out[n++] = q;
  if (p->ci_t == 1 && p->kh_t != de->kh) { /* whole kernel rows per step */
    q = *p;
    q.kh_t = de->kh;
    q.kw_t = de->kw;
    out[n++] = q;
  }
  return n;
}

#define LOCAL_ROUNDS 8

int vta_tile_choose(const vta_config *cfg, const vta_tile_model *m, const vta_conv_desc *d,
                    vta_tile_epilogue epi, vta_tile_choice *out, vta_error *err) {
  memset(out, 0, sizeof *out);
  int rc = vta_conv_check(cfg, d, err);
  if (rc) return rc;
  vta_tile_model dm;
  if (!m) {
    vta_tile_model_default(cfg, &dm);
    m = &dm;
  }
  uint32_t ho = vta_conv_out_h(d), wo = vta_conv_out_w(d);
  out->macs = (uint64_t)d->n * ho * wo * d->k * d->c * d->kh * d->kw;
  out->compute_bound = out->macs / cfg->macs_per_cycle;
  cands cs = {0};
  rc = enumerate(cfg, m, d, epi, 0, &cs, out, err);
  /* Few input channels and a kernel larger than 1x1: also try the im2col patches. */
  if (rc == VTA_OK && d->c < cfg->block_in && d->kh * d->kw > 1) {
    vta_conv_desc ic;
    vta_conv_im2col_desc(d, &ic);
    vta_error ic_err;
    if (vta_conv_check(cfg, &ic, &ic_err) == VTA_OK)
      rc = enumerate(cfg, m, d, epi, 1, &cs, out, err);
  }
  if (rc) {
    free(cs.c);
    return rc;
  }
  if (cs.n == 0) {
    free(cs.c);
    return vta_error_set(err, VTA_ERR_BOUNDS,
                         "tiling: no tiling of conv2d %ux%ux%u -> %u (kernel %ux%u) fits this "
                         "configuration's buffers (INP %u, WGT %u, ACC %u, UOP %u entries)",
                         d->c, d->h, d->w, d->k, d->kh, d->kw, cfg->depth[VTA_MEM_INP],
                         cfg->depth[VTA_MEM_WGT], cfg->depth[VTA_MEM_ACC],
                         cfg->depth[VTA_MEM_UOP]);
  }
  qsort(cs.c, cs.n, sizeof *cs.c, cand_cmp);
  int have = 0;
  vta_error ignore;
  for (size_t i = 0; i < cs.n && out->simulated < MAX_REPLAYS; i++)
    consider(cfg, m, d, epi, &cs.c[i].p, out, &have);
  /* Local search: the estimate ranks plans whose costs differ by per-step imbalance and
   * fill/drain only roughly, so neighbours of the best plan (one tile dimension one size
   * up or down, the other order, the other bias placement) are replayed too, until none is
   * better. */
  for (int round = 0; have && round < LOCAL_ROUNDS; round++) {
    vta_tile_plan base = out->plan;
    vta_tile_cost before = out->cost;
    vta_tile_plan nb[16];
    int nn = neighbours(cfg, d, &base, nb);
    for (int i = 0; i < nn; i++) {
      vta_sched_layout l;
      if (vta_sched_layout_of(cfg, d, &nb[i], &l, &ignore) != VTA_OK) continue;
      consider(cfg, m, d, epi, &nb[i], out, &have);
    }
    if (!better(&out->cost, &before)) break;
  }
  free(cs.c);
  if (!have)
    return vta_error_set(err, VTA_ERR_BOUNDS, "tiling: no feasible tiling could be scheduled");
  return VTA_OK;
}

/* ---- --explain ---- */

static const char *const k_order_names[] = {"spatial-outer", "co-outer"};

static void plan_line(const vta_config *cfg, const vta_tile_plan *p, const vta_tile_cost *c,
                      uint64_t bound, FILE *out) {
  uint64_t rd = 0;
  for (int t = 0; t < VTA_MEM_COUNT; t++) rd += c->bytes_read[t];
  fprintf(out,
          "  %stile %ux%u outputs, %u x %u channels, %ux%u taps, %s, bias %s: %" PRIu64
          " cycles (%.1f%% of the compute bound), %" PRIu64 " bytes read, %" PRIu64
          " written\n",
          p->im2col ? "im2col patches, " : "", p->ho_t, p->wo_t, p->co_t * cfg->block_out,
          p->ci_t * cfg->block_in, p->kh_t, p->kw_t,
          k_order_names[p->order], p->bias_resident ? "resident" : "per tile", c->cycles,
          c->cycles ? 100.0 * (double)bound / (double)c->cycles : 0.0, rd, c->bytes_written);
}

void vta_tile_explain(const vta_config *cfg, const vta_conv_desc *d, const vta_tile_choice *c,
                      FILE *out) {
  uint32_t ho = vta_conv_out_h(d), wo = vta_conv_out_w(d);
  const vta_tile_cost *k = &c->cost;
  const vta_tile_plan *p = &c->plan;
  fprintf(out,
          "conv2d %ux%ux%ux%u -> %u, kernel %ux%u, stride %u,%u, pad %u,%u,%u,%u -> %ux%u%s%s\n",
          d->n, d->c, d->h, d->w, d->k, d->kh, d->kw, d->stride_h, d->stride_w, d->pad_top,
          d->pad_left, d->pad_bottom, d->pad_right, ho, wo, d->relu ? ", relu" : "",
          d->has_residual ? ", residual" : "");
  fprintf(out, "  %" PRIu64 " MACs; compute bound %" PRIu64 " cycles at %" PRIu64
               " MACs/cycle\n",
          c->macs, c->compute_bound, cfg->macs_per_cycle);
  fprintf(out, "  chosen:\n");
  plan_line(cfg, p, k, c->compute_bound, out);
  fprintf(out,
          "  %" PRIu64 " output tiles, %" PRIu64 " steps; %" PRIu64 " loads, %" PRIu64
          " stores, %" PRIu64 " kernel runs; %" PRIu64 " kernels of %" PRIu64
          " micro-ops, %" PRIu64 " micro-op loads\n",
          k->units, k->steps, k->loads, k->stores, k->runs, k->kernels, k->kernel_uops,
          k->uop_loads);
  fprintf(out,
          "  busy: load %" PRIu64 ", compute %" PRIu64 " (GEMM %" PRIu64 ", ALU %" PRIu64
          "), store %" PRIu64 " cycles\n",
          k->busy[VTA_MOD_LOAD], k->busy[VTA_MOD_COMPUTE], k->gemm_uops, k->alu_uops,
          k->busy[VTA_MOD_STORE]);
  fprintf(out,
          "  bytes: inp %" PRIu64 ", wgt %" PRIu64 ", acc %" PRIu64 ", uop %" PRIu64
          ", out %" PRIu64 "\n",
          k->bytes_read[VTA_MEM_INP], k->bytes_read[VTA_MEM_WGT], k->bytes_read[VTA_MEM_ACC],
          k->bytes_read[VTA_MEM_UOP], k->bytes_written);
  /* What bounds it: the busiest module, and on compute the share of the ALU epilogue. */
  const uint64_t *busy = k->busy;
  double cyc = k->cycles ? (double)k->cycles : 1.0;
  if (busy[VTA_MOD_COMPUTE] >= busy[VTA_MOD_LOAD] && busy[VTA_MOD_COMPUTE] >= busy[VTA_MOD_STORE])
    fprintf(out,
            "  bound by: the compute module, busy %.1f%% of the time: GEMM unit %.1f%%, ALU "
            "(epilogue) %.1f%%, side by side, besides loads of micro-ops and biases; idle %.1f%% "
            "(pipeline fill and drain)\n",
            100.0 * (double)busy[VTA_MOD_COMPUTE] / cyc, 100.0 * (double)k->gemm_uops / cyc,
            100.0 * (double)k->alu_uops / cyc,
            100.0 - 100.0 * (double)busy[VTA_MOD_COMPUTE] / cyc);
  else
    fprintf(out,
            "  bound by: the %s module, busy %.1f%% of the time (DRAM bandwidth %u bytes per "
            "cycle and latency per transfer); compute busy %.1f%%\n",
            busy[VTA_MOD_LOAD] >= busy[VTA_MOD_STORE] ? "load" : "store",
            100.0 * (double)(busy[VTA_MOD_LOAD] > busy[VTA_MOD_STORE] ? busy[VTA_MOD_LOAD]
                                                                      : busy[VTA_MOD_STORE]) / cyc,
            cfg->bus_bytes, 100.0 * (double)busy[VTA_MOD_COMPUTE] / cyc);
  fprintf(out, "  searched %" PRIu64 " plans, %" PRIu64 " fit the buffers, %" PRIu64
               " replayed; best of them:\n",
          c->candidates, c->feasible, c->simulated);
  for (int i = 0; i < c->ntop; i++)
    plan_line(cfg, &c->top[i], &c->top_cost[i], c->compute_bound, out);
}
