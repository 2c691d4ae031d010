/* chain.c - accelerator programs replayed as one stream (vta_program_run_chain).
 *
 * Consecutive programs share one instruction stream and one synchronisation. At each boundary
 * the dependency tokens that would have been the end and start of two runs are carried across:
 * a program that reads what an earlier one stores waits for those stores (a barrier); its first
 * loads wait for the previous program's last GEMM only when they overwrite entries that GEMM's
 * pending predecessors read (boundary_pop_at); its first compute instruction waits for the
 * previous program's last store. docs/tiling.md section 12.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vta/program.h"

#include "jit/program_internal.h"

/* Is the op a load executed by the load module (INP, WGT), or by the compute module? */
static int load_module_load(const vta_prog_op *op) {
  return op->op == VTA_PROG_LOAD && (op->x.type == VTA_MEM_INP || op->x.type == VTA_MEM_WGT);
}

typedef struct byte_range {
  uint64_t lo, hi; /* [lo, hi) */
} byte_range;

/* The device bytes buffer b of p may touch: its base over the program's size of b. */
static byte_range buf_range(const vta_program *p, const uint64_t *phys, vta_prog_buf b) {
  byte_range r = {phys[b], phys[b] + p->bufsize[b]};
  return r;
}

static int overlaps(const byte_range *set, size_t n, byte_range r) {
  for (size_t i = 0; i < n; i++)
    if (r.lo < set[i].hi && set[i].lo < r.hi) return 1;
  return 0;
}

/* Does the op read a range an earlier program of the chain stores into (not yet covered)? */
static int reads_dirty(const vta_prog_op *op, const vta_program *p, const uint64_t *phys,
                       const byte_range *dirty, size_t ndirty) {
  if (op->op != VTA_PROG_LOAD || op->x.type == VTA_MEM_UOP) return 0;
  return overlaps(dirty, ndirty, buf_range(p, phys, op->x.buf));
}

/* The INP or WGT entries [lo, hi) an op of the load module writes ({0, 0} for others). */
static byte_range load_entries(const vta_prog_op *op, vta_mem_type type) {
  byte_range r = {0, 0};
  if (op->op != VTA_PROG_LOAD || op->x.type != type) return r;
  r.lo = op->x.sram;
  r.hi = r.lo + ((uint64_t)op->x.y_pad_before + op->x.y_size + op->x.y_pad_after) *
                    ((uint64_t)op->x.x_pad_before + op->x.x_size + op->x.x_pad_after);
  return r;
}

static int is_dep(const vta_prog_op *op, vta_prog_opcode code, vta_jit_stage from,
                  vta_jit_stage to) {
  return op->op == code && op->from == from && op->to == to;
}

/* The INP (wgt 0) or WGT (wgt 1) entries a GEMM kernel run reads over its loops, as one
 * range [lo, hi). */
static byte_range kernel_reads(const vta_prog_kernel *k, int wgt) {
  byte_range r = {UINT64_MAX, 0};
  uint64_t reach = 0;
  for (uint32_t l = 0; l < k->nloops && l < 2; l++)
    reach += (uint64_t)(k->loop[l].extent ? k->loop[l].extent - 1 : 0) *
             (wgt ? k->loop[l].wgt : k->loop[l].src);
  for (uint32_t i = 0; i < k->nuops; i++) {
    uint64_t v = wgt ? k->uops[i].wgt : k->uops[i].src;
    if (v < r.lo) r.lo = v;
    if (v + reach + 1 > r.hi) r.hi = v + reach + 1;
  }
  if (r.lo > r.hi) r.lo = r.hi = 0;
  return r;
}

static int ranges_meet(byte_range a, byte_range b) {
  return a.lo < a.hi && b.lo < b.hi && a.lo < b.hi && b.lo < a.hi;
}

/* Where a chained program's boundary compute->load pop goes (an op index of p; 0: before its
 * first op), when it needs no barrier. The token is pushed after the previous program's last
 * GEMM, so that p's loads overwrite no INP or WGT entry a GEMM of the previous one has still
 * to read. But once the previous program's own loads are done, the load module has waited for
 * every GEMM of it up to the one whose token its last pop took: only the GEMMs after that one
 * are pending. The loads of p before its own first compute->load pop that write none of the
 * entries those GEMMs read need not wait: the pop goes before the first load that does, or
 * with that first pop of p's own (a 1x1 convolution places its tiles from the top of the
 * buffers for this, compiler/accel/vta_walk.c). */
static size_t boundary_pop_at(const vta_program *prev, const vta_program *p, size_t nops) {
  const vta_jit_stage L = VTA_JIT_STAGE_LOAD, C = VTA_JIT_STAGE_COMPUTE;
  size_t npop = 0, npush = 0;
  for (size_t k = 0; k < prev->nops; k++) npop += is_dep(&prev->ops[k], VTA_PROG_POP, C, L);
  byte_range rd[2] = {{UINT64_MAX, 0}, {UINT64_MAX, 0}}; /* INP, WGT read by pending GEMMs */
  for (size_t k = 0; k < prev->nops; k++) {
    const vta_prog_op *op = &prev->ops[k];
    npush += is_dep(op, VTA_PROG_PUSH, C, L);
    if (op->op != VTA_PROG_RUN || npush < npop) continue;
    const vta_prog_kernel *kk = &prev->kern[op->kernel].k;
    if (kk->mode != VTA_JIT_GEMM || kk->reset) continue;
    for (int b = 0; b < 2; b++) {
      byte_range r = kernel_reads(kk, b);
      if (r.lo < r.hi && r.lo < rd[b].lo) rd[b].lo = r.lo;
      if (r.hi > rd[b].hi) rd[b].hi = r.hi;
    }
  }
  for (size_t k = 0; k < nops; k++) {
    const vta_prog_op *op = &p->ops[k];
    if (is_dep(op, VTA_PROG_POP, C, L)) return k;
    for (int b = 0; b < 2; b++)
      if (ranges_meet(load_entries(op, b ? VTA_MEM_WGT : VTA_MEM_INP), rd[b])) return k;
  }
  return 0;
}

/* ---- Hoisting: the next program's first loads inside this one's stream ----
 *
 * A load of the load module (INP, WGT) of program B may go into the stream of the program A
 * before it, where A's load module waits for A's compute, when nothing orders it after A:
 * its entries are fresh (no operation of B before it touches them, so it is not waiting for a
 * GEMM of B to finish reading them), A never touches them, it reads no buffer a store since
 * the last barrier (A's included) or an earlier store of B may write, and it goes after A's
 * second compute->load pop (every GEMM before A is done by then). It then runs while A's
 * load module would idle, instead of at B's start, where a 1x1 convolution's first unit is
 * bound by its weight and gathered input loads (docs/tiling.md section 12). */

typedef struct touch_map {
  uint8_t *m[2]; /* INP, WGT: entry touched */
  uint64_t depth[2];
} touch_map;

static int map_meets(const touch_map *t, int b, byte_range r) {
  if (r.hi > t->depth[b]) return 1; /* out of the buffer: leave it where it is */
  for (uint64_t e = r.lo; e < r.hi; e++)
    if (t->m[b][e]) return 1;
  return 0;
}

static void map_mark(touch_map *t, int b, byte_range r) {
  if (r.hi > t->depth[b]) r.hi = t->depth[b];
  if (r.lo < r.hi) memset(t->m[b] + r.lo, 1, r.hi - r.lo);
}

/* Marks what op touches in INP and WGT: a load's entries, a GEMM run's reads. */
static void mark_op(touch_map *t, const vta_program *p, const vta_prog_op *op) {
  if (op->op == VTA_PROG_LOAD) {
    for (int b = 0; b < 2; b++) map_mark(t, b, load_entries(op, b ? VTA_MEM_WGT : VTA_MEM_INP));
  } else if (op->op == VTA_PROG_RUN) {
    const vta_prog_kernel *kk = &p->kern[op->kernel].k;
    if (kk->mode == VTA_JIT_GEMM && !kk->reset)
      for (int b = 0; b < 2; b++) map_mark(t, b, kernel_reads(kk, b));
  }
}

/* Cycles a run keeps its unit busy (a micro-op a cycle), and a load's estimated cycles on the
 * bus (a burst per row). */
static uint64_t run_cycles(const vta_prog_kernel *k) {
  uint64_t n = k->nuops;
  for (uint32_t l = 0; l < k->nloops && l < 2; l++) n *= k->loop[l].extent ? k->loop[l].extent : 1;
  return n;
}

static uint64_t load_cycles(const vta_config *cfg, const vta_prog_op *op) {
  uint64_t bytes = (uint64_t)op->x.y_size * op->x.x_size * cfg->elem_bytes[op->x.type];
  return bytes / (cfg->bus_bytes ? cfg->bus_bytes : 8) + 2ull * op->x.y_size;
}

typedef struct hoisted {
  size_t before;       /* the op of A it goes before */
  size_t op;           /* its op in B */
  uint32_t row, rows;  /* the rows of it replayed there */
} hoisted;

/* Rows [row, row + rows) of a load without pads, as a load of their own. */
static vta_prog_op load_rows(const vta_prog_op *op, uint32_t row, uint32_t rows) {
  vta_prog_op o = *op;
  o.x.sram += row * op->x.x_size;
  o.x.offset += (uint64_t)row * op->x.x_stride;
  o.x.y_size = rows;
  return o;
}

/* Plans B's hoisted loads into A (ops [0, na) of a, [0, nb) of b): fills h (at most 2 nb: a
 * load, or its pieces, one per room) in the order they are to be replayed, marks skip[k] for
 * each load hoisted, and returns the number of entries of h. The room
 * before A's compute->load pop j is half the time A's load module is estimated to wait there
 * (A's GEMM cycles between its pushes against its loads between its pops). */
static size_t plan_hoist(const vta_program *a, size_t na, const vta_program *b, size_t nb,
                         const uint64_t *bphys, const byte_range *dirty, size_t ndirty,
                         hoisted *h, uint8_t *skip) {
  const vta_jit_stage L = VTA_JIT_STAGE_LOAD, C = VTA_JIT_STAGE_COMPUTE;
  const vta_config *cfg = &b->cfg;
  size_t npop = 0, npush = 0, nh = 0;
  for (size_t k = 0; k < na; k++) {
    npop += is_dep(&a->ops[k], VTA_PROG_POP, C, L);
    npush += is_dep(&a->ops[k], VTA_PROG_PUSH, C, L);
  }
  if (npop < 3 || npush < npop) return 0;
  touch_map ta, tb;
  memset(&ta, 0, sizeof ta);
  memset(&tb, 0, sizeof tb);
  size_t *pos = calloc(npop, sizeof *pos);
  uint64_t *cseg = calloc(npush + 1, sizeof *cseg), *lseg = calloc(npop + 1, sizeof *lseg);
  uint64_t *room = calloc(npop, sizeof *room);
  byte_range *bst = calloc(nb + 1, sizeof *bst);
  size_t nbst = 0;
  for (int m = 0; m < 2; m++) {
    vta_mem_type ty = m ? VTA_MEM_WGT : VTA_MEM_INP;
    ta.depth[m] = tb.depth[m] = cfg->depth[ty];
    ta.m[m] = calloc(cfg->depth[ty] + 1, 1);
    tb.m[m] = calloc(cfg->depth[ty] + 1, 1);
  }
  if (!pos || !cseg || !lseg || !room || !bst || !ta.m[0] || !ta.m[1] || !tb.m[0] || !tb.m[1])
    goto done; /* no room to plan: nothing is hoisted */
  /* A: what it touches, where its pops are, its compute and load time per segment. */
  size_t jp = 0, jq = 0;
  for (size_t k = 0; k < na; k++) {
    const vta_prog_op *op = &a->ops[k];
    mark_op(&ta, a, op);
    if (is_dep(op, VTA_PROG_POP, C, L)) pos[jp++] = k;
    else if (is_dep(op, VTA_PROG_PUSH, C, L)) jq++;
    else if (load_module_load(op)) lseg[jp] += load_cycles(cfg, op);
    else if (op->op == VTA_PROG_RUN && a->kern[op->kernel].k.mode == VTA_JIT_GEMM)
      cseg[jq] += run_cycles(&a->kern[op->kernel].k);
  }
  /* Pop j waits for push j; the loads before it (since pop j-1) start once pop j-1 went. */
  uint64_t tpush = 0, tload = 0;
  for (size_t j = 0; j < npop; j++) {
    tpush += cseg[j];
    uint64_t start = j ? (tload > tpush - cseg[j] ? tload : tpush - cseg[j]) : 0;
    tload = start + lseg[j];
    room[j] = j >= 2 && tpush > tload ? (tpush - tload) / 2 : 0;
  }
  /* B's candidates, in its order, into A's rooms from the first. */
  size_t g = 2;
  for (size_t k = 0; k < nb && g < npop; k++) {
    const vta_prog_op *op = &b->ops[k];
    if (op->op == VTA_PROG_STORE) bst[nbst++] = buf_range(b, bphys, op->x.buf);
    int cand = load_module_load(op) && op->x.x_size && op->x.y_size &&
               !reads_dirty(op, b, bphys, dirty, ndirty) &&
               !overlaps(bst, nbst, buf_range(b, bphys, op->x.buf));
    if (cand) {
      int m = op->x.type == VTA_MEM_WGT;
      byte_range e = load_entries(op, op->x.type);
      cand = !map_meets(&ta, m, e) && !map_meets(&tb, m, e);
    }
    if (cand) {
      /* Whole, or split by rows (without pads) over as many rooms as it needs. */
      int split = !op->x.x_pad_before && !op->x.x_pad_after && !op->x.y_pad_before &&
                  !op->x.y_pad_after;
      uint64_t per_row = load_cycles(cfg, op) / (op->x.y_size ? op->x.y_size : 1) + 1;
      size_t nh0 = nh, g0 = g;
      uint32_t row = 0;
      while (row < op->x.y_size && g < npop && nh < 2 * nb) {
        uint32_t rows = op->x.y_size - row;
        if (split && room[g] / per_row < rows) rows = (uint32_t)(room[g] / per_row);
        vta_prog_op part = load_rows(op, row, rows);
        uint64_t c = rows ? load_cycles(cfg, &part) : UINT64_MAX;
        if (rows == 0 || c > room[g]) {
          g++;
          continue;
        }
        room[g] -= c;
        h[nh].before = pos[g];
        h[nh].op = k;
        h[nh].row = row;
        h[nh].rows = rows;
        nh++;
        row += rows;
      }
      if (row < op->x.y_size) { /* out of room: it stays in B, whole; planning ends */
        nh = nh0;
        g = g0;
        break;
      }
      skip[k] = 1;
    }
    mark_op(&tb, b, op);
  }
done:
  free(pos);
  free(cseg);
  free(lseg);
  free(room);
  free(bst);
  for (int m = 0; m < 2; m++) {
    free(ta.m[m]);
    free(tb.m[m]);
  }
  return nh;
}

int vta_program_run_chain(vta_jit *jit, const vta_prog_chain_item *items, size_t n,
                          vta_stats *stats, vta_prog_chain_info *info, vta_error *err) {
  static const uint64_t k_none[VTA_PROG_BUF_COUNT] = {0};
  vta_prog_chain_info ci = {0, 0, 0, 0};
  int rc = VTA_OK;
  size_t maxk = 1;
  for (size_t c = 0; c < n; c++) {
    rc = vta_prog_compatible(vta_jit_config(jit), &items[c].prog->cfg, err);
    if (rc) return vta_error_prefix(err, "chained program %zu", c), rc;
    if (items[c].prog->nkern > maxk) maxk = items[c].prog->nkern;
  }
  size_t maxops = 1;
  for (size_t c = 0; c < n; c++)
    if (items[c].prog->nops > maxops) maxops = items[c].prog->nops;
  vta_jit_kernel **kp = calloc(maxk, sizeof *kp);
  byte_range *dirty = calloc(n * VTA_PROG_BUF_COUNT + 1, sizeof *dirty);
  byte_range *dnext = calloc(n * VTA_PROG_BUF_COUNT + 1, sizeof *dnext);
  uint8_t *skip = calloc(maxops, 1), *skip_next = calloc(maxops, 1);
  hoisted *hl = calloc(2 * maxops, sizeof *hl); /* a load, or a piece of one per room */
  size_t ndirty = 0, c = 0, i = 0;
  int oom = !kp || !dirty || !dnext || !skip || !skip_next || !hl; /* nothing issued yet */
  if (oom) {
    rc = vta_error_set(err, VTA_ERR_NOMEM, "program: out of memory chaining %zu programs", n);
    goto out;
  }
  const vta_jit_stage L = VTA_JIT_STAGE_LOAD, C = VTA_JIT_STAGE_COMPUTE, S = VTA_JIT_STAGE_STORE;
  for (; rc == VTA_OK && c < n; c++) {
    const vta_program *p = items[c].prog;
    const uint64_t *phys = items[c].phys ? items[c].phys : k_none;
    memset(kp, 0, maxk * sizeof *kp);
    i = 0;
    /* Each layer loads its own kernels, with their footprint records: a kernel left resident
     * by an earlier layer but loaded more than 32 LOAD UOPs ago has none, and its GEMMs could
     * not run beside the ALU (measured: +9,000 cycles on a second C5 chained after a first). */
    if (c > 0) vta_jit_forget_kernels(jit);
    size_t nops = p->nops, nd0 = ndirty;
    if (nops && p->ops[nops - 1].op == VTA_PROG_SYNC) nops--; /* one run, at the end */
    /* Where this program's boundary tokens go. first: the ops before the first token
     * operation, run, or store (the first loads, reorderable among themselves). */
    size_t first = 0, last_gemm_or_push = SIZE_MAX, first_run = SIZE_MAX, first_cload = SIZE_MAX;
    int need_barrier = 0, dirty_first = 0;
    size_t defer_to = 0; /* the op before which the boundary compute->load pop goes */
    while (first < nops && p->ops[first].op == VTA_PROG_LOAD) first++;
    for (size_t k = 0; k < nops; k++) {
      const vta_prog_op *op = &p->ops[k];
      if (op->op == VTA_PROG_RUN && p->kern[op->kernel].k.mode == VTA_JIT_GEMM) last_gemm_or_push = k;
      if (op->op == VTA_PROG_PUSH && op->from == C && op->to == L) last_gemm_or_push = k;
      if (op->op == VTA_PROG_RUN && first_run == SIZE_MAX) first_run = k;
      if (reads_dirty(op, p, phys, dirty, ndirty)) {
        need_barrier = 1;
        if (!load_module_load(op) && first_cload == SIZE_MAX) first_cload = k;
        if (k < first) dirty_first = 1;
      }
    }
    size_t s_pop_at = first_cload < first_run ? first_cload : first_run;
    /* The buffers stored since the last barrier once this program is in the stream (every
     * earlier store is complete before its loads when it has a barrier). */
    size_t nd = need_barrier ? 0 : ndirty;
    memcpy(dnext, dirty, nd * sizeof *dnext);
    for (int b = 0; b < VTA_PROG_BUF_COUNT; b++) {
      int stores = 0;
      for (size_t k = 0; k < nops && !stores; k++)
        stores = p->ops[k].op == VTA_PROG_STORE && p->ops[k].x.buf == (vta_prog_buf)b;
      if (stores) dnext[nd++] = buf_range(p, phys, (vta_prog_buf)b);
    }
    /* The next program's loads that go into this one's stream. */
    const vta_program *q = c + 1 < n ? items[c + 1].prog : NULL;
    const uint64_t *qphys = q && items[c + 1].phys ? items[c + 1].phys : k_none;
    size_t nh = 0, hi = 0;
    memset(skip_next, 0, maxops);
    if (q) {
      size_t qn = q->nops && q->ops[q->nops - 1].op == VTA_PROG_SYNC ? q->nops - 1 : q->nops;
      nh = plan_hoist(p, nops, q, qn, qphys, dnext, nd, hl, skip_next);
      for (size_t k = 0; k < qn; k++) ci.hoisted_loads += skip_next[k];
    }
    if (c > 0) {
      /* The previous program's last store lets this one's compute (and the barrier) go. */
      rc = vta_jit_dep_push(jit, S, C, err);
      if (rc == VTA_OK && need_barrier) {
        rc = vta_jit_dep_push(jit, S, C, err);
        if (rc == VTA_OK) rc = vta_jit_dep_pop(jit, S, C, err);
        if (rc == VTA_OK) rc = vta_jit_dep_push(jit, C, L, err); /* a compute no-op carries both */
        ci.barriers++;
      }
      /* The hazard token pushed after the previous program's last GEMM: before the first
       * load, or later when the first loads write nothing the previous program's pending
       * GEMMs read (without a barrier: with one the first loads wait for it anyway). */
      if (!need_barrier) defer_to = boundary_pop_at(items[c - 1].prog, p, nops);
      if (defer_to) ci.early_loads++;
      if (rc == VTA_OK && defer_to == 0) rc = vta_jit_dep_pop(jit, C, L, err);
    }
    /* The first loads: those not waiting for the barrier go first. */
    for (size_t k = 0; rc == VTA_OK && k < first; k++) {
      const vta_prog_op *op = &p->ops[k];
      if (skip[k]) continue; /* replayed inside the previous program */
      if (c > 0 && need_barrier && dirty_first && load_module_load(op) &&
          reads_dirty(op, p, phys, dirty, nd0))
        continue;
      if (c > 0 && k == s_pop_at) rc = vta_jit_dep_pop(jit, S, C, err);
      if (rc == VTA_OK && c > 0 && defer_to && k == defer_to) rc = vta_jit_dep_pop(jit, C, L, err);
      if (rc == VTA_OK) rc = vta_prog_replay_op(jit, p, kp, phys, op, stats, err);
      i = k;
    }
    if (rc == VTA_OK && c > 0 && need_barrier) rc = vta_jit_dep_pop(jit, C, L, err);
    for (size_t k = 0; rc == VTA_OK && c > 0 && need_barrier && dirty_first && k < first; k++) {
      const vta_prog_op *op = &p->ops[k];
      if (!skip[k] && load_module_load(op) && reads_dirty(op, p, phys, dirty, nd0)) {
        i = k;
        rc = vta_prog_replay_op(jit, p, kp, phys, op, stats, err);
      }
    }
    for (size_t k = first; rc == VTA_OK && k < nops; k++) {
      i = k;
      for (; rc == VTA_OK && hi < nh && hl[hi].before == k; hi++) {
        vta_prog_op part = load_rows(&q->ops[hl[hi].op], hl[hi].row, hl[hi].rows);
        rc = vta_prog_replay_op(jit, q, kp, qphys, &part, stats, err);
      }
      if (rc) break;
      if (c > 0 && k == s_pop_at) rc = vta_jit_dep_pop(jit, S, C, err);
      if (rc == VTA_OK && c > 0 && defer_to && k == defer_to) rc = vta_jit_dep_pop(jit, C, L, err);
      if (rc == VTA_OK && skip[k]) continue; /* replayed inside the previous program */
      if (rc == VTA_OK) rc = vta_prog_replay_op(jit, p, kp, phys, &p->ops[k], stats, err);
      if (rc == VTA_OK && c + 1 < n && k == last_gemm_or_push) rc = vta_jit_dep_push(jit, C, L, err);
    }
    /* No GEMM: the next program's loads need only what came before this one. */
    if (rc == VTA_OK && c + 1 < n && last_gemm_or_push == SIZE_MAX) rc = vta_jit_dep_push(jit, C, L, err);
    /* Neither a run nor a compute-side load: the store->compute token is still owed. */
    if (rc == VTA_OK && c > 0 && s_pop_at == SIZE_MAX) rc = vta_jit_dep_pop(jit, S, C, err);
    if (rc) break;
    uint8_t *sw = skip;
    skip = skip_next;
    skip_next = sw;
    byte_range *dw = dirty;
    dirty = dnext;
    dnext = dw;
    ndirty = nd;
    ci.programs++;
  }
out:
  free(kp);
  free(dirty);
  free(dnext);
  free(skip);
  free(skip_next);
  free(hl);
  if (oom) return rc;
  if (rc == VTA_OK && n) {
    rc = vta_jit_sync(jit, 0, stats, err);
    if (rc) return vta_error_prefix(err, "chain of %zu programs", n), rc;
  }
  if (rc) {
    vta_jit_discard(jit);
    if (c < n && i < items[c].prog->nops)
      vta_error_prefix(err, "chained program %zu of %zu: operation %zu (%s)", c, n, i,
                       vta_prog_op_names[items[c].prog->ops[i].op]);
    else if (c < n)
      vta_error_prefix(err, "chained program %zu of %zu: its boundary tokens", c, n);
    return rc;
  }
  if (info) *info = ci;
  return VTA_OK;
}
