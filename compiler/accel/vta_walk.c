/* vta_walk.c - the schedule of a conv2d or dense layer on the accelerator: one walk over its
 * output tiles that issues runtime operations to a sink (vta_sched_walk).
 *
 * The design idea: the schedule is written once, as a walk over output tiles ("units") and
 * their reduction steps that issues runtime operations to a sink. The cost model (vta_tile.c)
 * is one sink, timing the operations; the program builder is the other. So what the cost model
 * predicts is exactly what the program does, instruction for instruction.
 *
 * The schedule is the classic VTA one with two virtual threads. A unit is a block of output
 * rows x columns x output-channel blocks of one batch group; it owns one slot of the ACC buffer
 * (units take the slots in turn, consecutive units in different banks: the halves of ACC that
 * the hardware banks by the index MSB), so the epilogue and store of one unit overlap the GEMMs
 * of the next. A unit's reduction over input-channel tiles (and, when a whole kernel does not fit,
 * over groups of kernel rows or columns) is a sequence of steps. Every step's input tile (with
 * the conv's zero padding made by the 2-D load's pads) and weight tile occupy one slot of INP
 * and of WGT; there are as many slots as tiles fit, at least two, and a new tile goes to the
 * least recently used slot that the previous step does not use, so the load of step t+1
 * overlaps the GEMM of step t, and tiles still resident are not loaded again (an input tile
 * reused by every output-channel tile, weights reused by every spatial tile, or all weights of
 * a small layer loaded once). Tokens: load->compute after every step's loads; compute->load
 * when a step's GEMM is done (the load two steps later may overwrite its slot); compute->store
 * after a unit's epilogue; store->compute when a unit's store is done (the unit that next uses
 * its ACC and OUT slot may start). Every push is popped: the stream ends balanced.
 *
 * A step's GEMM is one micro-op kernel that uses both loop levels: output rows and columns in
 * the loops and (output block, input block, ky, kx) in the micro-ops, or output blocks and
 * columns in the loops and (row, input block, ky, kx) in the micro-ops, or for 1x1 stride-1
 * layers output blocks and pixels in the loops and input blocks in the micro-ops: whichever
 * needs the fewest micro-ops. Its micro-ops name absolute buffer entries, so there is one
 * kernel per combination of slots and tile shape, built once and reused by every tile of that
 * shape (the JIT keeps them resident in the micro-op buffer).
 *
 * The epilogue runs on the ALU over the unit's ACC slot: bias, rounding right shift, MAX and
 * MIN (ReLU and the int8 clip). With per-channel shifts the SHR takes a vector operand, the
 * channels' amounts, loaded into ACC with the biases by the same 2-D loads (a second row).
 * With VTA_EPI_OFFSET the accumulators are initialised by one ALU MAX against a bias vector
 * raised by an offset instead of a reset and an ADD; see vta_conv_epilogue and
 * docs/tiling.md. The compute module runs a GEMM and an ALU instruction side by side when they
 * touch different ACC banks, but starts instructions in program order; so a unit's epilogue is
 * emitted after the first GEMM steps of the next unit (in the other bank), not before them,
 * and runs beside them (finish_unit).
 */
#include <stdlib.h>
#include <string.h>

#include "compiler/accel/vta_sched.h"

/* ---- The walk ---- */

typedef enum kkind {
  KK_GEMM = 0,  /* a step's convolution */
  KK_RES = 1,   /* residual: ACC += INP * diag(mul) */
  KK_RESET = 2, /* GEMM reset */
  KK_BIAS = 3,  /* ALU op with a vector operand: biases (MAX or ADD), shifts (SHR) */
  KK_IMM = 4,   /* ALU op with an immediate */
  KK_COPY = 5,  /* ALU op between two ACC tiles of the same shape, element by element */
  KK_POOL = 6,  /* a step of a fused max pooling (pool_step, in key b) */
  KK_GAP = 7,   /* a step of a classifier head's average (gap_step, in key b) */
  KK_HEAD = 8   /* a classifier head's GEMM: its outputs (a) += one unit's averages (b) x weights (c) */
} kkind;

/* The average of a unit's tile of P positions x n output blocks at slot entry T into its
 * entries G (one per block, after the tile), on the ALU: */
typedef enum gap_step {
  GS_CLEAR, /* G = 0 (MUL 0) */
  GS_SUM,   /* G += T[p], p < P: one micro-op, the outer loop over the positions */
  GS_ROUND, /* G += P/2 - P C' (C' the epilogue's offset): the first vector of a row beside the
             * biases (the same for every block, so one kernel per slot) */
  GS_MUL,   /* G *= M = ceil(2^k / P) */
  GS_SHR,   /* G >>= k: (sum + P/2) / P exactly for sums up to 127 P (k: gap_shift) */
  GS_COUNT
} gap_step;

/* k of GS_SHR: the least with 128 P^2 < 2^k, so that ceil(2^k / P) * P - 2^k < P keeps
 * (s + P/2) M / 2^k within 1/P of (s + P/2) / P for every s <= 127 P. */
static uint32_t gap_shift(uint32_t P) {
  uint32_t k = 0;
  while ((1ull << k) <= 128ull * P * P) k++;
  return k;
}

/* The steps of a fused max pooling over a unit's tile of R rows (even) x W columns (even) x n
 * output blocks at slot entry T (row r of block o at T + (o R + r) W), into the pooled tile at
 * C ((o R/2 + y) W/2 + x) with the row carry at K (o W/2 + x) and the column carries J (o R + r);
 * all on the ALU, in this order. The window's columns go in place into the even columns of
 * every row and its rows into the even rows (the odd columns are never written, so the column
 * carry reads the epilogue's values; the odd rows' even columns hold their horizontal maxima
 * when the row steps read them); with one pooled row per tile (R = 2) the clears and copies of
 * C and K are one kernel each (two micro-ops), so that a unit's pooling takes few kernels (each
 * is a LOAD UOP and a footprint record in hardware, of which the compute module keeps 32). */
typedef enum pool_step {
  PS_RIGHT,       /* T[r][2x] = max(T[r][2x], T[r][2x+1])         (the window's right column) */
  PS_LEFT,        /* T[r][2x] = max(T[r][2x], T[r][2x-1]), x >= 1 (its left column) */
  PS_COL_IN,      /* T[r][0] = max(T[r][0], the previous column tile's J[r]) */
  PS_COL_CLEAR,   /* this tile's J = 0 (MUL 0), */
  PS_COL_OUT,     /* J[r] += T[r][W-1], for the next column tile */
  PS_ROWS,        /* T[2y][2x] = max(T[2y][2x], T[2y+1][2x])       (the window's lower row) */
  PS_ABOVE,       /* T[2y][2x] = max(T[2y][2x], T[2y-1][2x]), y >= 1 (its upper row) */
  PS_CARRY_IN,    /* T[0][2x] = max(T[0][2x], K[x]): the previous row tile's last row */
  PS_CLEAR,       /* C = 0 (and K = 0 when R = 2) */
  PS_CARRY_CLEAR, /* K = 0 (R > 2) */
  PS_COPY,        /* C[y][x] += T[2y][2x] (and K[x] += T[1][2x] when R = 2) */
  PS_CARRY_OUT,   /* K[x] += T[R-1][2x], for the next row tile (R > 2) */
  PS_COUNT
} pool_step;

typedef struct kkey {
  uint32_t kind, op, a, b, c, ho_n, wo_n, co_n, ci_n, kh_n, kw_n;
  int32_t imm;
} kkey;

typedef struct walker {
  geom g;
  const vta_sched_epi *e;
  const vta_tile_plan *p;
  vta_sched_layout l;
  gemm_kind gk;
  uint32_t nslots; /* ACC slots */
  const vta_sched_sink *s;
  kkey *keys;
  uint32_t *ids;
  size_t nkeys, capkeys;
  vta_uop *uops;
  size_t capuops;
} walker;

static int uops_room(walker *w, size_t n, vta_error *err) {
  if (n <= w->capuops) return VTA_OK;
  vta_uop *nu = realloc(w->uops, n * sizeof *nu);
  if (!nu) return vta_error_set(err, VTA_ERR_NOMEM, "lowering: out of memory");
  w->uops = nu;
  w->capuops = n;
  return VTA_OK;
}

/* Builds the kernel a key describes (micro-ops only when the sink wants them). */
static int build(walker *w, const kkey *key, vta_prog_kernel *k, vta_error *err) {
  const vta_conv_desc *d = w->g.d;
  memset(k, 0, sizeof *k);
  uint32_t P = key->ho_n * key->wo_n;
  int want = w->s->wants_uops;
  int rc = VTA_OK;
  k->nloops = 2;
  if (key->kind == KK_GEMM) {
    k->mode = VTA_JIT_GEMM;
    uint32_t kh = key->kh_n, kw = key->kw_n;
    uint32_t R = tile_rows(&w->g, key->ho_n, kh), Cc = tile_cols(&w->g, key->wo_n, kw);
    uint32_t taps = kh * kw, sw = d->stride_w, rs = w->g.rs;
    gemm_kind gk = w->gk;
    k->nuops = (uint32_t)gemm_uops(gk, key->ho_n, key->co_n, key->ci_n, taps);
    if (want) rc = uops_room(w, k->nuops, err);
    if (rc) return rc;
    size_t n = 0;
    if (gk == GK_ROWS) {
      k->loop[0] = (vta_prog_loop){key->ho_n, key->wo_n, rs * Cc, 0};
      k->loop[1] = (vta_prog_loop){key->wo_n, 1, sw, 0};
      for (uint32_t co = 0; want && co < key->co_n; co++)
        for (uint32_t ci = 0; ci < key->ci_n; ci++)
          for (uint32_t ky = 0; ky < kh; ky++)
            for (uint32_t kx = 0; kx < kw; kx++)
              w->uops[n++] = (vta_uop){key->a + co * P, key->b + ci * R * Cc + ky * Cc + kx,
                                       key->c + ((co * key->ci_n + ci) * kh + ky) * kw + kx};
    } else if (gk == GK_CO) {
      k->loop[0] = (vta_prog_loop){key->co_n, P, 0, key->ci_n * taps};
      k->loop[1] = (vta_prog_loop){key->wo_n, 1, sw, 0};
      for (uint32_t oh = 0; want && oh < key->ho_n; oh++)
        for (uint32_t ci = 0; ci < key->ci_n; ci++)
          for (uint32_t ky = 0; ky < kh; ky++)
            for (uint32_t kx = 0; kx < kw; kx++)
              w->uops[n++] = (vta_uop){key->a + oh * key->wo_n,
                                       key->b + ci * R * Cc + (oh * rs + ky) * Cc + kx,
                                       key->c + (ci * kh + ky) * kw + kx};
    } else {
      k->loop[0] = (vta_prog_loop){key->co_n, P, 0, key->ci_n};
      k->loop[1] = (vta_prog_loop){P, 1, 1, 0};
      for (uint32_t ci = 0; want && ci < key->ci_n; ci++)
        w->uops[n++] = (vta_uop){key->a, key->b + ci * R * Cc, key->c + ci};
    }
  } else if (key->kind == KK_HEAD) {
    /* a: the head's accumulators, b: the averages in INP, c: the weights in WGT; ho_n: output
     * blocks, co_n: the unit's input blocks (micro-ops) */
    k->mode = VTA_JIT_GEMM;
    k->nuops = key->co_n;
    if (want) rc = uops_room(w, k->nuops, err);
    if (rc) return rc;
    k->loop[0] = (vta_prog_loop){key->ho_n, 1, 0, key->co_n};
    k->loop[1] = (vta_prog_loop){1, 0, 0, 0};
    for (uint32_t i = 0; want && i < key->co_n; i++)
      w->uops[i] = (vta_uop){key->a, key->b + i, key->c + i};
  } else if (key->kind == KK_GAP) {
    /* a: G, c: the source; ho_n x wo_n: the positions, co_n: the blocks */
    uint32_t P = key->ho_n * key->wo_n;
    k->mode = VTA_JIT_ALU;
    k->alu_op = (vta_alu_op)key->op;
    k->nuops = 1;
    if (want) rc = uops_room(w, 1, err);
    if (rc) return rc;
    if (want) w->uops[0] = (vta_uop){key->a, key->c, 0};
    k->use_imm = key->b != GS_SUM && key->b != GS_ROUND;
    k->imm = key->imm;
    if (key->b == GS_SUM) {
      /* The positions outside, the blocks inside: consecutive micro-ops add into different
       * entries (one that reads the entry the micro-op just before it wrote waits a cycle in
       * the ALU, docs/hw.md "Compute pipeline"); the wrapping sum is the same in any order. */
      k->loop[0] = (vta_prog_loop){P, 0, 1, 0};
      k->loop[1] = (vta_prog_loop){key->co_n, 1, P, 0};
    } else {
      k->loop[0] = (vta_prog_loop){key->co_n, 1, 0, 0}; /* ROUND: one value */
      k->loop[1] = (vta_prog_loop){1, 0, 0, 0};
    }
  } else if (key->kind == KK_POOL) {
    /* a: destination, c: source (absolute entries); ho_n x wo_n x co_n: the unit's tile; ci_n:
     * K, the second destination of PS_CLEAR and PS_COPY when R = 2 */
    uint32_t R = key->ho_n, W = key->wo_n, n = key->co_n, Rp = R / 2, Wp = W / 2;
    int two = (key->b == PS_CLEAR || key->b == PS_COPY) && Rp == 1;
    k->mode = VTA_JIT_ALU;
    k->alu_op = (vta_alu_op)key->op;
    k->nuops = key->b == PS_ABOVE ? Rp - 1 : two ? 2 : 1;
    if (want) rc = uops_room(w, k->nuops, err);
    if (rc) return rc;
    for (uint32_t i = 0; want && i < k->nuops; i++) w->uops[i] = (vta_uop){key->a, key->c, 0};
    if (want && two) w->uops[1] = (vta_uop){key->ci_n, key->b == PS_COPY ? key->c + W : 0, 0};
    switch ((pool_step)key->b) {
      case PS_RIGHT:
      case PS_LEFT:
        k->loop[0] = (vta_prog_loop){n * R, W, W, 0};
        k->loop[1] = (vta_prog_loop){key->b == PS_LEFT ? Wp - 1 : Wp, 2, 2, 0};
        break;
      case PS_COL_IN: /* every row of every block: dst by rows of the tile, src one by one */
        k->loop[0] = (vta_prog_loop){n * R, W, 1, 0};
        k->loop[1] = (vta_prog_loop){1, 0, 0, 0};
        break;
      case PS_COL_CLEAR:
        k->use_imm = 1;
        k->loop[0] = (vta_prog_loop){n * R, 1, 0, 0};
        k->loop[1] = (vta_prog_loop){1, 0, 0, 0};
        break;
      case PS_COL_OUT:
        k->loop[0] = (vta_prog_loop){n * R, 1, W, 0};
        k->loop[1] = (vta_prog_loop){1, 0, 0, 0};
        break;
      case PS_ROWS:
        k->loop[0] = (vta_prog_loop){n * Rp, 2 * W, 2 * W, 0};
        k->loop[1] = (vta_prog_loop){Wp, 2, 2, 0};
        break;
      case PS_ABOVE:
        k->loop[0] = (vta_prog_loop){n, R * W, R * W, 0};
        k->loop[1] = (vta_prog_loop){Wp, 2, 2, 0};
        for (uint32_t y = 1; want && y < Rp; y++)
          w->uops[y - 1] = (vta_uop){key->a + 2 * y * W, key->c + (2 * y - 1) * W, 0};
        break;
      case PS_CARRY_IN:
        k->loop[0] = (vta_prog_loop){n, R * W, Wp, 0};
        k->loop[1] = (vta_prog_loop){Wp, 2, 1, 0};
        break;
      case PS_CLEAR:
        k->use_imm = 1;
        k->loop[0] = (vta_prog_loop){n * Rp, Wp, 0, 0};
        k->loop[1] = (vta_prog_loop){Wp, 1, 0, 0};
        break;
      case PS_CARRY_CLEAR:
        k->use_imm = 1;
        k->loop[0] = (vta_prog_loop){n, Wp, 0, 0};
        k->loop[1] = (vta_prog_loop){Wp, 1, 0, 0};
        break;
      case PS_COPY:
        k->loop[0] = (vta_prog_loop){n * Rp, Wp, 2 * W, 0};
        k->loop[1] = (vta_prog_loop){Wp, 1, 2, 0};
        break;
      default: /* PS_CARRY_OUT */
        k->loop[0] = (vta_prog_loop){n, Wp, R * W, 0};
        k->loop[1] = (vta_prog_loop){Wp, 1, 2, 0};
        break;
    }
    k->imm = key->imm;
  } else {
    k->nuops = 1;
    if (want) rc = uops_room(w, 1, err);
    if (rc) return rc;
    vta_uop u = {key->a, 0, 0};
    if (key->kind == KK_RES) {
      k->mode = VTA_JIT_GEMM;
      k->loop[0] = (vta_prog_loop){key->co_n, P, P, 0};
      k->loop[1] = (vta_prog_loop){P, 1, 1, 0};
      u.src = key->b;
      u.wgt = key->c;
    } else if (key->kind == KK_RESET) {
      k->mode = VTA_JIT_GEMM;
      k->reset = 1;
      k->loop[0] = (vta_prog_loop){key->co_n, P, 0, 0};
      k->loop[1] = (vta_prog_loop){P, 1, 0, 0};
    } else {
      k->mode = VTA_JIT_ALU;
      k->alu_op = (vta_alu_op)key->op;
      if (key->kind == KK_BIAS) {
        k->loop[0] = (vta_prog_loop){key->co_n, P, 1, 0};
        k->loop[1] = (vta_prog_loop){P, 1, 0, 0};
        u.src = key->c;
        k->imm = key->imm; /* SHRCLIP's lower bound */
      } else if (key->kind == KK_COPY) {
        k->loop[0] = (vta_prog_loop){key->co_n, P, P, 0};
        k->loop[1] = (vta_prog_loop){P, 1, 1, 0};
        u.src = key->c;
      } else {
        k->use_imm = 1;
        k->imm = key->imm;
        k->loop[0] = (vta_prog_loop){key->co_n, P, 0, 0};
        k->loop[1] = (vta_prog_loop){P, 1, 0, 0};
      }
    }
    if (want) w->uops[0] = u;
  }
  k->uops = want ? w->uops : NULL;
  return VTA_OK;
}

/* Runs the kernel of a key, announcing it to the sink the first time. */
static int run(walker *w, const kkey *key, vta_error *err) {
  size_t i = 0;
  while (i < w->nkeys && memcmp(&w->keys[i], key, sizeof *key) != 0) i++;
  if (i == w->nkeys) {
    if (w->nkeys == w->capkeys) {
      size_t nc = w->capkeys ? 2 * w->capkeys : 32;
      kkey *nk = realloc(w->keys, nc * sizeof *nk);
      uint32_t *ni = nk ? realloc(w->ids, nc * sizeof *ni) : NULL;
      if (nk) w->keys = nk;
      if (!ni) return vta_error_set(err, VTA_ERR_NOMEM, "lowering: out of memory");
      w->ids = ni;
      w->capkeys = nc;
    }
    vta_prog_kernel k;
    int rc = build(w, key, &k, err);
    if (rc == VTA_OK) rc = w->s->kernel(w->s->ctx, &k, &w->ids[i], err);
    if (rc) return rc;
    w->keys[i] = *key;
    w->nkeys++;
  }
  return w->s->run(w->s->ctx, w->ids[i], err);
}

static kkey key_of(kkind kind, uint32_t op, uint32_t a, uint32_t b, uint32_t c, uint32_t ho_n,
                   uint32_t wo_n, uint32_t co_n, uint32_t ci_n, const tapset *tp, int32_t imm) {
  kkey k;
  memset(&k, 0, sizeof k); /* keys are compared as bytes */
  k.kind = kind;
  k.op = op;
  k.a = a;
  k.b = b;
  k.c = c;
  k.ho_n = ho_n;
  k.wo_n = wo_n;
  k.co_n = co_n;
  k.ci_n = ci_n;
  if (tp) {
    k.kh_n = tp->kh_n;
    k.kw_n = tp->kw_n;
  }
  k.imm = imm;
  return k;
}

#define L_ VTA_JIT_STAGE_LOAD
#define C_ VTA_JIT_STAGE_COMPUTE
#define S_ VTA_JIT_STAGE_STORE

typedef struct unit_pos {
  uint32_t gi, oh0, ho_n, ow0, wo_n, co0, co_n, coi, spi; /* spi: spatial tile index */
} unit_pos;

static void unit_at(const walker *w, uint64_t u, unit_pos *q) {
  const vta_tile_plan *p = w->p;
  uint32_t n_oh = ceil_div(w->g.ho, p->ho_t), n_ow = ceil_div(w->g.wo, p->wo_t);
  uint32_t n_co = ceil_div(w->g.cob, p->co_t);
  uint64_t nsp = (uint64_t)w->g.ng * n_oh * n_ow, sp;
  if (p->order == VTA_TILE_SPATIAL_OUTER) {
    q->coi = (uint32_t)(u % n_co);
    sp = u / n_co;
  } else {
    q->coi = (uint32_t)(u / nsp);
    sp = u % nsp;
  }
  q->spi = (uint32_t)sp;
  uint32_t owi = (uint32_t)(sp % n_ow), ohi = (uint32_t)(sp / n_ow % n_oh);
  q->gi = (uint32_t)(sp / n_ow / n_oh);
  q->oh0 = ohi * p->ho_t;
  q->ho_n = min_u32(p->ho_t, w->g.ho - q->oh0);
  q->ow0 = owi * p->wo_t;
  q->wo_n = min_u32(p->wo_t, w->g.wo - q->ow0);
  q->co0 = q->coi * p->co_t;
  q->co_n = min_u32(p->co_t, w->g.cob - q->co0);
}

/* Tile slots of one buffer: which tile each holds and when it was last used. */
typedef struct slots {
  uint32_t n;
  uint64_t key[VTA_SCHED_MAX_SLOTS];
  uint64_t used[VTA_SCHED_MAX_SLOTS]; /* step of the last use + 1; 0: empty */
  int prev;                           /* the slot of the previous step, -1 if none */
} slots;

/* Chooses the slot for a tile at step t: where it already is, else the least recently used
 * slot other than the previous step's (which may still be computing; every older step has
 * finished, its compute->load token popped). Returns 1 when the tile must be loaded. */
static int place(slots *s, uint64_t key, uint64_t t, int *slot) {
  int best = -1;
  for (uint32_t i = 0; i < s->n; i++)
    if (s->used[i] && s->key[i] == key) {
      s->used[i] = t + 1;
      *slot = (int)i;
      return 0;
    }
  for (uint32_t i = 0; i < s->n; i++) {
    if ((int)i == s->prev) continue;
    if (best < 0 || s->used[i] < s->used[best]) best = (int)i;
  }
  s->key[best] = key;
  s->used[best] = t + 1;
  *slot = best;
  return 1;
}

/* A unit whose epilogue and store are still to be emitted. */
typedef struct pending_unit {
  int on;
  unit_pos q;
  uint32_t accb;
  uint64_t u;
  uint32_t shiftb; /* its shift vectors in ACC (per-channel shifts) */
  uint32_t roundb; /* its LeakyRelu's rounding vectors in ACC */
  uint32_t addcb;  /* an add after the epilogue: its constant's vectors, */
  uint32_t addsb;  /* and its SHRCLIP's operand (shift, upper bound) */
  uint32_t carryb; /* a fused max pooling: its row carry (pool_carry_at), */
  uint32_t colin, colout; /* the column carry it reads (another unit's) and writes (pool_cc_at) */
  uint32_t gapb;   /* a classifier head: its average's constant row (GS_ROUND) */
  int next;        /* with an add or a pooling after the epilogue: the next step to emit */
} pending_unit;

/* The transfers of unit q's output-shaped tile (its output; the residual, into INP or straight
 * into its ACC slot) between DRAM buffer buf and on-chip entries from sram, in the tile's
 * layout: one 2-D transfer, or one per output block. */
static int tile_xfers(walker *w, const unit_pos *q, vta_mem_type type, vta_prog_buf buf,
                      uint32_t sram, int store, vta_error *err) {
  const vta_sched_sink *s = w->s;
  out_xfer o;
  vta_sched_output_xfer(&w->g, q->gi, q->oh0, q->ho_n, q->ow0, q->wo_n, q->co0, q->co_n, &o);
  o.x.type = type;
  o.x.buf = buf;
  int rc = VTA_OK;
  for (uint32_t i = 0; !rc && i < o.count; i++) {
    o.x.sram = sram + i * o.next_sram;
    rc = store ? s->store(s->ctx, &o.x, err) : s->load(s->ctx, &o.x, err);
    o.x.offset += o.next_off;
  }
  return rc;
}

/* A LeakyRelu before the rounding: max(y << k, y * m) + rounding over the unit's ACC slot, with
 * the second copy of y in the ACC entries after the slot's tile (a copy is MUL 0, then ADD). */
static int leaky_steps(walker *w, const pending_unit *pu, vta_error *err) {
  const vta_sched_epi *e = w->e;
  const unit_pos *q = &pu->q;
  uint32_t copyb = pu->accb + after_tile(w->p);
  struct {
    kkind kind;
    vta_alu_op op;
    uint32_t dst, src;
    int32_t imm;
  } st[6] = {{KK_IMM, VTA_ALU_MUL, copyb, 0, 0},
             {KK_COPY, VTA_ALU_ADD, copyb, pu->accb, 0},
             {KK_IMM, VTA_ALU_SHR, pu->accb, 0, -(int32_t)e->leaky_k}, /* a left shift */
             {KK_IMM, VTA_ALU_MUL, copyb, 0, e->leaky_m},
             {KK_COPY, VTA_ALU_MAX, pu->accb, copyb, 0},
             {KK_BIAS, VTA_ALU_ADD, pu->accb, pu->roundb, 0}};
  int rc = VTA_OK;
  for (int i = 0; !rc && i < 6; i++) {
    kkey k = key_of(st[i].kind, st[i].op, st[i].dst, 0, st[i].src, q->ho_n, q->wo_n, q->co_n, 0,
                    NULL, st[i].imm);
    rc = run(w, &k, err);
  }
  return rc;
}

/* The store of a unit's pooled tile (post_pool): its rows of every block, one 2-D store. */
static int pooled_store(walker *w, const pending_unit *pu, vta_error *err) {
  const unit_pos *q = &pu->q;
  uint32_t hp = w->g.ho / 2, wp = w->g.wo / 2, rp = q->ho_n / 2, wq = q->wo_n / 2;
  vta_prog_xfer x;
  memset(&x, 0, sizeof x);
  x.type = VTA_MEM_OUT;
  x.buf = VTA_PROG_BUF_OUTPUT;
  x.sram = pu->accb + after_tile(w->p);
  x.offset = (((uint64_t)q->gi * w->g.cob + q->co0) * hp + q->oh0 / 2) * wp + q->ow0 / 2;
  if (q->wo_n == w->g.wo || rp == 1) { /* whole rows, or one row per block: one store */
    x.x_size = q->wo_n == w->g.wo ? rp * wp : wq;
    x.y_size = q->co_n;
    x.x_stride = q->co_n > 1 ? hp * wp : x.x_size;
    return w->s->store(w->s->ctx, &x, err);
  }
  int rc = VTA_OK; /* a store per block */
  x.x_size = wq;
  x.y_size = rp;
  x.x_stride = wp;
  for (uint32_t o = 0; !rc && o < q->co_n; o++) {
    rc = w->s->store(w->s->ctx, &x, err);
    x.sram += rp * wq;
    x.offset += (uint64_t)hp * wp;
  }
  return rc;
}

/* The unit's store: the compute->store token, the store, the store->compute token. */
static int unit_store(walker *w, const pending_unit *pu, uint64_t U, vta_error *err) {
  const vta_sched_sink *s = w->s;
  int rc = s->dep(s->ctx, 1, C_, S_, err);
  if (!rc) rc = s->dep(s->ctx, 0, C_, S_, err);
  if (!rc && w->g.d->post_pool) {
    rc = pooled_store(w, pu, err);
  } else if (!rc && w->g.d->head_n) { /* the averages only, after the head's outputs */
    vta_prog_xfer x;
    memset(&x, 0, sizeof x);
    x.type = VTA_MEM_OUT;
    x.buf = VTA_PROG_BUF_OUTPUT;
    x.sram = pu->accb + after_tile(w->p);
    x.offset = ceil_div(w->g.d->head_n, w->g.cfg->block_out) + pu->q.co0;
    x.x_size = x.x_stride = pu->q.co_n;
    x.y_size = 1;
    rc = s->store(s->ctx, &x, err);
  } else if (!rc) {
    rc = tile_xfers(w, &pu->q, VTA_MEM_OUT, VTA_PROG_BUF_OUTPUT, pu->accb, 1, err);
  }
  /* (a classifier head waits for every unit's store, the last ones after the walk) */
  if (!rc && (pu->u + w->nslots < U || w->g.d->head_n)) rc = s->dep(s->ctx, 1, S_, C_, err);
  return rc;
}

/* The epilogue's clip over unit pu's slot: each channel's shift and the clip in one SHRCLIP,
 * or without a shift (vta_conv_shift_vector) MAX and MIN by immediates. */
static int clip_step(walker *w, const pending_unit *pu, vta_error *err) {
  const vta_sched_epi *e = w->e;
  const unit_pos *q = &pu->q;
  if (e->shift_vec) {
    kkey k = key_of(KK_BIAS, VTA_ALU_SHRCLIP, pu->accb, 0, pu->shiftb, q->ho_n, q->wo_n, q->co_n,
                    0, NULL, e->lo);
    return run(w, &k, err);
  }
  kkey k = key_of(KK_IMM, VTA_ALU_MAX, pu->accb, 0, 0, q->ho_n, q->wo_n, q->co_n, 0, NULL, e->lo);
  int rc = run(w, &k, err);
  k = key_of(KK_IMM, VTA_ALU_MIN, pu->accb, 0, 0, q->ho_n, q->wo_n, q->co_n, 0, NULL, e->hi);
  return rc ? rc : run(w, &k, err);
}

/* Step i (pool_step) of unit pu's fused max pooling: its kernel's key in *k and its micro-op
 * count in *cost; 0 when the step has nothing to do for this unit (a left column with one
 * pooled column, an upper row with one pooled row, no carry into the first row tile or out of
 * the last). */
static int pool_key(const walker *w, const pending_unit *pu, int i, kkey *k, uint64_t *cost) {
  const unit_pos *q = &pu->q;
  uint32_t R = q->ho_n, W = q->wo_n, n = q->co_n, Rp = R / 2, Wp = W / 2;
  uint32_t T = pu->accb, C = T + after_tile(w->p), K = pu->carryb;
  int left = q->ow0 > 0, right = q->ow0 + W < w->g.wo; /* column tiles on either side */
  vta_alu_op op = VTA_ALU_MAX;
  uint32_t dst = T, src = T, k2 = 0;
  uint64_t m = (uint64_t)n * Rp * Wp;
  int on = 1;
  switch ((pool_step)i) {
    case PS_RIGHT: src = T + 1, m = (uint64_t)n * R * Wp; break;
    case PS_LEFT: dst = T + 2, src = T + 1, m = (uint64_t)n * R * (Wp - 1), on = Wp > 1; break;
    case PS_COL_IN: src = pu->colin, m = (uint64_t)n * R, on = left; break;
    case PS_COL_CLEAR: op = VTA_ALU_MUL, dst = pu->colout, src = 0, m = (uint64_t)n * R, on = right; break;
    case PS_COL_OUT: op = VTA_ALU_ADD, dst = pu->colout, src = T + W - 1, m = (uint64_t)n * R, on = right; break;
    case PS_ROWS: src = T + W; break;
    case PS_ABOVE: m = (uint64_t)n * (Rp - 1) * Wp, on = Rp > 1; break;
    case PS_CARRY_IN: src = K, m = (uint64_t)n * Wp, on = q->oh0 > 0; break;
    case PS_CLEAR: op = VTA_ALU_MUL, dst = C, src = 0, k2 = Rp == 1 ? K : 0, m *= Rp == 1 ? 2 : 1; break;
    case PS_CARRY_CLEAR: op = VTA_ALU_MUL, dst = K, src = 0, m = (uint64_t)n * Wp, on = Rp > 1; break;
    case PS_COPY: op = VTA_ALU_ADD, dst = C, k2 = Rp == 1 ? K : 0, m *= Rp == 1 ? 2 : 1; break;
    default: op = VTA_ALU_ADD, dst = K, src = T + (R - 1) * W, m = (uint64_t)n * Wp, on = Rp > 1; break;
  }
  *k = key_of(KK_POOL, op, dst, (uint32_t)i, src, R, W, n, k2, NULL, 0);
  *cost = on ? m : 0;
  return on;
}

/* Step i (gap_step) of unit pu's average for a classifier head: its key in *k, its micro-ops
 * in *cost. */
static void gap_key(const walker *w, const pending_unit *pu, int i, kkey *k, uint64_t *cost) {
  const unit_pos *q = &pu->q;
  uint32_t P = q->ho_n * q->wo_n, G = pu->accb + after_tile(w->p), kk = gap_shift(P);
  vta_alu_op op = i == GS_CLEAR || i == GS_MUL ? VTA_ALU_MUL : i == GS_SHR ? VTA_ALU_SHR : VTA_ALU_ADD;
  uint32_t src = i == GS_SUM ? pu->accb : i == GS_ROUND ? pu->gapb : 0;
  int32_t imm = i == GS_MUL ? (int32_t)(((1ull << kk) + P - 1) / P) : i == GS_SHR ? (int32_t)kk : 0;
  *k = key_of(KK_GAP, op, G, (uint32_t)i, src, q->ho_n, q->wo_n, q->co_n, 0, NULL, imm);
  *cost = (uint64_t)q->co_n * (i == GS_SUM ? P : 1);
}

/* Step i of an add after the epilogue (post_add) for unit pu, after the clip:
 *   0 the operand r, by LOAD ACC_8BIT into the entries after the slot's tile (it holds every
 *     later instruction until it is done, so it goes right after a GEMM instruction);
 *   1 r * mb;  2 + (2^(s-1) - C' * ma), a vector row loaded with the biases;
 *   3 (y + C') * ma (the slot holds y + C', C' the offset epilogue's);  4 + the operand;
 *   5 SHRCLIP by s into [lo, hi] (a second row: s, hi).
 * The sum is y * ma + r * mb + 2^(s-1) modulo 2^32, which is its value (it fits), so the SHR
 * sees the CPU's sum. Its key in *k and cycles in *cost; returns 2 for the load, 1 for a
 * kernel, 0 when a multiplier of 1 leaves nothing to do. */
#define ADD_STEPS 6
static int add_key(const walker *w, const pending_unit *pu, int i, kkey *k, uint64_t *cost) {
  const unit_pos *q = &pu->q;
  const vta_conv_desc *d = w->g.d;
  uint64_t elems = (uint64_t)q->ho_n * q->wo_n * q->co_n;
  uint64_t bus = w->g.cfg->bus_bytes ? w->g.cfg->bus_bytes : 8;
  uint32_t copyb = pu->accb + after_tile(w->p); /* the entries after the tile */
  *cost = elems;
  switch (i) {
    case 0:
      *cost = elems * w->g.cfg->elem_bytes[VTA_MEM_ACC_8BIT] / bus + 64;
      return 2;
    case 1:
      *k = key_of(KK_IMM, VTA_ALU_MUL, copyb, 0, 0, q->ho_n, q->wo_n, q->co_n, 0, NULL, d->add_mb);
      break;
    case 2:
      *k = key_of(KK_BIAS, VTA_ALU_ADD, copyb, 0, pu->addcb, q->ho_n, q->wo_n, q->co_n, 0, NULL, 0);
      return 1;
    case 3:
      *k = key_of(KK_IMM, VTA_ALU_MUL, pu->accb, 0, 0, q->ho_n, q->wo_n, q->co_n, 0, NULL, d->add_ma);
      break;
    case 4:
      *k = key_of(KK_COPY, VTA_ALU_ADD, pu->accb, 0, copyb, q->ho_n, q->wo_n, q->co_n, 0, NULL, 0);
      return 1;
    default:
      *k = key_of(KK_BIAS, VTA_ALU_SHRCLIP, pu->accb, 0, pu->addsb, q->ho_n, q->wo_n, q->co_n, 0,
                  NULL, d->add_lo);
      return 1;
  }
  if (k->imm == 1) *cost = 0; /* a MUL by 1 */
  return k->imm != 1;
}

/* The end of a unit whose epilogue is followed by a fused operation (an add, a max pooling or
 * a classifier's average), in steps emitted a few at a time beside the next unit's GEMMs (so
 * that the compute module, which starts instructions in order, never holds a GEMM behind more
 * ALU work than the GEMM before it lasts): the clip (SHRCLIP, or MAX and MIN), then the
 * operation's steps (add_key, pool_key, gap_key). Emits the steps from pu->next whose cycles fit
 * `budget` (all of them when `all`), then the store (*done). */
static int post_chunk(walker *w, pending_unit *pu, uint64_t budget, int all, uint64_t U,
                      int *done, vta_error *err) {
  const unit_pos *q = &pu->q;
  const vta_conv_desc *d = w->g.d;
  int rc = VTA_OK;
  uint64_t elems = (uint64_t)q->ho_n * q->wo_n * q->co_n, used = 0;
  int n = d->post_pool ? PS_COUNT : d->head_n ? GS_COUNT : ADD_STEPS;
  *done = 0;
  while (!rc && pu->next < 1 + n) {
    kkey k;
    uint64_t cost = (w->e->shift_vec ? 1 : 2) * elems; /* the clip */
    int go = 0, i = pu->next - 1;
    if (i >= 0 && d->post_pool) go = pool_key(w, pu, i, &k, &cost);
    else if (i >= 0 && d->head_n) gap_key(w, pu, i, &k, &cost), go = 1;
    else if (i >= 0) go = add_key(w, pu, i, &k, &cost);
    if (!all && used + cost > budget) break;
    used += cost;
    /* The pooled tile is rewritten from PS_CLEAR on: the store of the unit that used this slot
     * before must be done (its store->compute token; the GEMMs into the tile did not wait). */
    if (d->post_pool && i == PS_CLEAR && pu->u >= w->nslots)
      rc = w->s->dep(w->s->ctx, 0, S_, C_, err);
    if (!rc && i < 0) rc = clip_step(w, pu, err);
    else if (!rc && go == 2)
      rc = tile_xfers(w, q, VTA_MEM_ACC_8BIT, VTA_PROG_BUF_INPUT2,
                      pu->accb + after_tile(w->p), 0, err);
    else if (!rc && go) rc = run(w, &k, err);
    pu->next++;
  }
  if (!rc && pu->next == 1 + n) {
    rc = unit_store(w, pu, U, err);
    *done = 1;
  }
  return rc;
}

/* The end of unit pu: its epilogue on the ALU (a LeakyRelu, rounding shift, MAX, MIN over its
 * ACC slot), the compute->store token, and its store. */
static int finish_unit(walker *w, const pending_unit *pu, uint64_t U, vta_error *err) {
  if (w->g.d->post_add || w->g.d->post_pool || w->g.d->head_n) { /* the rest, at once */
    pending_unit p = *pu;
    int done;
    return post_chunk(w, &p, 0, 1, U, &done, err);
  }
  int rc = w->e->leaky_k ? leaky_steps(w, pu, err) : VTA_OK;
  if (!rc) rc = clip_step(w, pu, err);
  return rc ? rc : unit_store(w, pu, U, err);
}

/* The INP and WGT entries of slot k. A 1x1 convolution places its slots from the top of the
 * buffers down (inp_top, wgt_top), the others from entry 0 up: in a chain a 1x1 layer mostly
 * follows a larger kernel, and its first tiles then load into entries that the previous
 * layer's last GEMMs do not read, so they need not wait for them (jit/chain.c,
 * boundary_pop_at). */
static uint32_t inp_base(const walker *w, int k) {
  const vta_sched_layout *l = &w->l;
  return l->inp_top ? l->inp_top - (uint32_t)(k + 1) * l->inp_slot : (uint32_t)k * l->inp_slot;
}
static uint32_t wgt_base(const walker *w, int k) {
  const vta_sched_layout *l = &w->l;
  return l->wgt_top ? l->wgt_top - (uint32_t)(k + 1) * l->wgt_slot : (uint32_t)k * l->wgt_slot;
}

/* A classifier head (head_n) takes unit v's averages into its outputs in parts: its weights
 * (those of the unit's input blocks for every output block) loaded a few rows per step while
 * the layer runs (head_wload), the compute stage's compute->load token once the unit's store
 * is done (walk), the load stage's load of the averages (from the output buffer into INP) with
 * any weights still missing (head_avg), then the GEMM (head_gemm). Units alternate between two
 * INP and two WGT slots. */
static int head_wload(walker *w, uint64_t v, uint32_t r0, uint32_t r1, vta_error *err) {
  const vta_conv_desc *d = w->g.d;
  unit_pos q;
  unit_at(w, v, &q);
  uint32_t nb = ceil_div(d->head_n, w->g.cfg->block_out);
  vta_prog_xfer x;
  memset(&x, 0, sizeof x);
  x.type = VTA_MEM_WGT;
  x.buf = VTA_PROG_BUF_WEIGHT;
  x.sram = w->l.head_wgt + (uint32_t)(v % 2) * nb * w->p->co_t + r0 * q.co_n;
  x.offset = (uint64_t)w->g.cob * w->g.cib * d->kh * d->kw + (vta_conv_residual_gemm(d) ? 1 : 0) +
             (uint64_t)r0 * w->g.cob + q.co0; /* [output block][input block], after the layer's */
  x.x_size = q.co_n;
  x.y_size = r1 - r0;
  x.x_stride = w->g.cob;
  return r1 > r0 ? w->s->load(w->s->ctx, &x, err) : VTA_OK;
}

static int head_avg(walker *w, uint64_t v, uint32_t *rows, vta_error *err) {
  const vta_sched_sink *s = w->s;
  unit_pos q;
  unit_at(w, v, &q);
  uint32_t nb = ceil_div(w->g.d->head_n, w->g.cfg->block_out);
  vta_prog_xfer x;
  memset(&x, 0, sizeof x);
  int rc = s->dep(s->ctx, 0, C_, L_, err);
  if (!rc) rc = head_wload(w, v, rows[v], nb, err);
  rows[v] = nb;
  x.type = VTA_MEM_INP;
  x.buf = VTA_PROG_BUF_OUTPUT;
  x.sram = w->l.head_inp + (uint32_t)(v % 2) * w->p->co_t;
  x.offset = nb + q.co0;
  x.x_size = x.x_stride = q.co_n;
  x.y_size = 1;
  if (!rc) rc = s->load(s->ctx, &x, err);
  return rc ? rc : s->dep(s->ctx, 1, L_, C_, err);
}

static int head_gemm(walker *w, uint64_t v, vta_error *err) {
  unit_pos q;
  unit_at(w, v, &q);
  uint32_t nb = ceil_div(w->g.d->head_n, w->g.cfg->block_out), co_t = w->p->co_t;
  int rc = w->s->dep(w->s->ctx, 0, L_, C_, err);
  kkey k = key_of(KK_HEAD, 0, w->l.head_acc, w->l.head_inp + (uint32_t)(v % 2) * co_t,
                  w->l.head_wgt + (uint32_t)(v % 2) * nb * co_t, nb, 1, q.co_n, 0, NULL, 0);
  return rc ? rc : run(w, &k, err);
}

/* The head's end: every remaining unit's averages in, then its epilogue (the bias and rounding
 * were loaded into its accumulators first) and the store of its outputs. */
static int head_end(walker *w, uint64_t from, const int64_t *sent, uint32_t *rows, uint64_t U,
                    vta_error *err) {
  const vta_sched_sink *s = w->s;
  const vta_conv_desc *d = w->g.d;
  uint32_t nb = ceil_div(d->head_n, w->g.cfg->block_out);
  int rc = VTA_OK;
  for (uint64_t v = from; !rc && v < U; v++) {
    if (sent[v] < 0) { /* its store's token, then the load stage's */
      rc = s->dep(s->ctx, 0, S_, C_, err);
      if (!rc) rc = s->dep(s->ctx, 1, C_, L_, err);
    }
    if (!rc) rc = head_avg(w, v, rows, err);
    if (!rc) rc = head_gemm(w, v, err);
  }
  struct {
    vta_alu_op op;
    int32_t imm;
    int on;
  } st[3] = {{VTA_ALU_SHR, (int32_t)d->head_shift, d->head_shift != 0},
             {VTA_ALU_MAX, d->head_lo, 1},
             {VTA_ALU_MIN, d->head_hi, 1}};
  for (int i = 0; !rc && i < 3; i++) {
    if (!st[i].on) continue;
    kkey k = key_of(KK_IMM, st[i].op, w->l.head_acc, 0, 0, 1, nb, 1, 0, NULL, st[i].imm);
    rc = run(w, &k, err);
  }
  if (!rc) rc = s->dep(s->ctx, 1, C_, S_, err);
  if (!rc) rc = s->dep(s->ctx, 0, C_, S_, err);
  vta_prog_xfer x;
  memset(&x, 0, sizeof x);
  x.type = VTA_MEM_OUT;
  x.buf = VTA_PROG_BUF_OUTPUT;
  x.sram = w->l.head_acc;
  x.x_size = x.x_stride = nb;
  x.y_size = 1;
  return rc ? rc : s->store(s->ctx, &x, err);
}

static int walk(walker *w, vta_error *err) {
  const vta_sched_sink *s = w->s;
  const vta_tile_plan *p = w->p;
  const vta_conv_desc *d = w->g.d;
  const vta_sched_epi *e = w->e;
  const vta_sched_layout *l = &w->l;
  uint32_t taps = d->kh * d->kw, kh_t = plan_kh(&w->g, p), kw_t = plan_kw(&w->g, p);
  uint32_t n_oh = ceil_div(w->g.ho, p->ho_t), n_ow = ceil_div(w->g.wo, p->wo_t);
  uint32_t n_co = ceil_div(w->g.cob, p->co_t), n_ci = ceil_div(w->g.cib, p->ci_t);
  uint32_t n_ky = ceil_div(d->kh, kh_t), n_kx = ceil_div(d->kw, kw_t);
  uint32_t n_red = n_ci * n_ky * n_kx; /* reduction steps */
  uint64_t U = (uint64_t)w->g.ng * n_oh * n_ow * n_co;
  /* The residual: loaded into the unit's ACC slot (LOAD ACC_8BIT on the compute module, beside
   * the previous unit's GEMMs), scaled and biased by the ALU (acc_res); with a LeakyRelu, whose
   * epilogue needs the reset-and-add initialisation, a step of its own (a GEMM with diagonal
   * weights). */
  int res_gemm = vta_conv_residual_gemm(d), acc_res = d->has_residual && !res_gemm;
  uint32_t spu = n_red + (res_gemm ? 1 : 0); /* steps per unit */
  uint64_t T = U * spu, t = 0;
  slots is, ws;
  memset(&is, 0, sizeof is);
  memset(&ws, 0, sizeof ws);
  is.n = l->inp_slots;
  ws.n = l->wgt_slots;
  is.prev = ws.prev = -1;
  uint32_t clean[4] = {0, 0, 0, 0};
  uint32_t nslots = w->nslots;
  int rc = VTA_OK;
  vta_prog_xfer x;
  pending_unit pend;
  memset(&pend, 0, sizeof pend);
  /* (LeakyRelu,) SHRCLIP, or without a shift MAX and MIN */
  uint32_t epi_ops = (e->shift_vec ? 1 : 2) + (e->leaky_k ? 6 : 0);

  /* The shift vectors travel with the biases, and the rounding they need is in the bias: a
   * layer with per-channel shifts has biases to load (RESET_ADD or OFFSET). */
  if ((e->shift_vec || e->leaky_k) && e->mode != VTA_EPI_RESET_ADD &&
      !(e->shift_vec && !e->leaky_k && e->mode == VTA_EPI_OFFSET))
    return vta_error_set(err, VTA_ERR_INVALID,
                         "lowering: per-channel shifts need an epilogue with biases (their "
                         "rounding), a LeakyRelu the reset-and-add one");
  /* Bias loads bring one row of bias vectors and, with per-channel shifts, a row of shift
   * vectors, with a LeakyRelu a row of its rounding (the bias buffer holds all biases, then all
   * shifts, then all roundings). */
  uint32_t vrows = vta_conv_vector_rows(d);
  /* Prologue: the residual's diagonal weights (load stage), every bias (compute stage). */
  if (res_gemm) {
    memset(&x, 0, sizeof x);
    x.type = VTA_MEM_WGT;
    x.buf = VTA_PROG_BUF_WEIGHT;
    x.sram = l->wgt_ident;
    x.offset = (uint64_t)w->g.cob * w->g.cib * taps;
    x.x_size = x.y_size = 1;
    x.x_stride = 1;
    rc = s->load(s->ctx, &x, err);
  }
  /* Nothing to add: no bias vector at all (but an add after the epilogue has its rows). */
  int biases = e->mode != VTA_EPI_RESET || d->post_add || d->head_n;
  /* A classifier head: per unit, the step at which the compute->load token of its averages
   * went (-1: not yet); hx, the next unit whose averages are to be loaded. */
  int64_t *head_e = NULL;
  uint32_t *head_rows = NULL; /* per unit: the rows of its weights loaded */
  uint64_t hx = 0;
  uint32_t head_nb = d->head_n ? ceil_div(d->head_n, w->g.cfg->block_out) : 0;
  if (d->head_n) {
    head_e = malloc(sizeof *head_e * (size_t)(U ? U : 1));
    head_rows = calloc((size_t)(U ? U : 1), sizeof *head_rows);
    if (!head_e || !head_rows) {
      free(head_e);
      free(head_rows);
      return vta_error_set(err, VTA_ERR_NOMEM, "lowering: out of memory");
    }
    for (uint64_t v = 0; v < U; v++) head_e[v] = -1;
    /* its accumulators start from its biases (with the rounding) */
    memset(&x, 0, sizeof x);
    x.type = VTA_MEM_ACC;
    x.buf = VTA_PROG_BUF_BIAS;
    x.sram = l->head_acc;
    x.offset = (uint64_t)vrows * w->g.cob;
    x.x_size = x.x_stride = ceil_div(d->head_n, w->g.cfg->block_out);
    x.y_size = 1;
    rc = s->load(s->ctx, &x, err);
  }
  if (!rc && p->bias_resident && biases) {
    memset(&x, 0, sizeof x);
    x.type = VTA_MEM_ACC;
    x.buf = VTA_PROG_BUF_BIAS;
    x.sram = l->acc_bias;
    x.x_size = w->g.cob;
    x.y_size = vrows;
    x.x_stride = w->g.cob;
    rc = s->load(s->ctx, &x, err);
  }
  for (uint64_t u = 0; !rc && u < U; u++) {
    unit_pos q;
    unit_at(w, u, &q);
    int ah = (int)(u % nslots); /* the ACC slot */
    uint32_t accb = acc_slot_base(l, nslots, ah), P = q.ho_n * q.wo_n;
    uint32_t red = 0; /* GEMM micro-ops per output element so far in this unit */
    /* The unit's bias and shift vectors: resident, or loaded for it into region u % 2 (the
     * previous unit's epilogue still reads the other) when it has per-channel shifts. */
    uint32_t biasb = l->acc_bias + (p->bias_resident ? q.co0 : 0), row = 0;
    if (vrows > 1 && p->bias_resident) {
      row = l->bias_entries;
    } else if (vrows > 1) {
      biasb = l->acc_bias + (uint32_t)(u % 2) * vrows * l->bias_entries;
      row = q.co_n;
    }
    uint32_t shiftb = e->shift_vec ? biasb + row : 0;
    uint32_t roundb = e->leaky_k ? biasb + (vrows - 1) * row : 0;
    uint32_t addcb = d->post_add ? biasb + (vrows - 2) * row : 0, addsb = addcb ? addcb + row : 0;
    for (uint32_t j = 0; !rc && j < spu; j++, t++) {
      /* A residual is the unit's first step: its short GEMM then follows the previous unit's
       * last reduction step, which is long enough to hide this unit's ACC reset and bias add
       * (ALU work on this unit's slot that its first GEMM waits for). The sums wrap, so the
       * order of the steps leaves every output as it was. */
      int res_step = res_gemm && j == 0;
      uint32_t rj = res_gemm ? j - 1 : j; /* the reduction step, unless res_step */
      uint32_t cii = res_step ? 0 : rj / (n_ky * n_kx), ci0 = cii * p->ci_t;
      uint32_t ci_n = res_step ? 0 : min_u32(p->ci_t, w->g.cib - ci0);
      tapset tp = {0, 0, 0, 0};
      if (!res_step) {
        uint32_t kyi = rj / n_kx % n_ky, kxi = rj % n_kx;
        tp.ky0 = kyi * kh_t;
        tp.kh_n = min_u32(kh_t, d->kh - tp.ky0);
        tp.kx0 = kxi * kw_t;
        tp.kw_n = min_u32(kw_t, d->kw - tp.kx0);
      }
      /* ---- load stage ---- */
      /* A head's unit whose token went two steps ago: its loads go just before this step's
       * compute->load pop, so that each pop still meets the push it met without them. */
      int head_x = 0;
      if (!rc && d->head_n && hx < U && head_e[hx] >= 0 && (uint64_t)head_e[hx] + 2 == t) {
        rc = head_avg(w, hx, head_rows, err);
        head_x = 1;
      }
      if (!rc && t >= 2) rc = s->dep(s->ctx, 0, C_, L_, err);
      /* The head's weights of unit v go into its WGT slot, a few rows per step, from four steps
       * after the GEMM of the unit before it in that slot (v - 2, whose averages' token goes at
       * the first step of unit v - 2 + nslots: this step's pop follows its GEMM) to the step
       * that loads v's averages (two after the first step of unit v + nslots), or the end. */
      for (uint64_t v = u > nslots + 2 ? u - nslots - 2 : 0; !rc && d->head_n && v <= u; v++) {
        uint64_t s0 = v >= 2 ? (v - 2 + nslots) * spu + 4 : 0;
        uint64_t s1 = v + nslots < U ? (v + nslots) * spu + 2 : T;
        if (t < s0 || t >= s1 || head_rows[v] >= head_nb) continue;
        uint64_t per = (head_nb + (s1 - s0) - 1) / (s1 - s0);
        uint32_t r1 = (uint32_t)((t - s0 + 1) * per < head_nb ? (t - s0 + 1) * per : head_nb);
        if (r1 > head_rows[v]) rc = head_wload(w, v, head_rows[v], r1, err);
        head_rows[v] = r1 > head_rows[v] ? r1 : head_rows[v];
      }
      int ih = -1, wh = -1, empty = 0;
      vta_prog_xfer in0;
      memset(&in0, 0, sizeof in0);
      if (!rc && !res_step) {
        rc = vta_sched_input_xfer(&w->g, q.gi, q.oh0, q.ho_n, q.ow0, q.wo_n, ci0, &tp, &in0, err);
        empty = in0.x_size == 0; /* the tile is all padding: nothing to add */
      }
      uint64_t ikey = res_step ? (1ull << 63) | ((uint64_t)q.spi << 24) | q.coi
                               : ((uint64_t)q.spi << 24) | rj;
      if (!rc && !empty && place(&is, ikey, t, &ih)) {
        uint32_t base = inp_base(w, ih);
        if (res_step) {
          rc = tile_xfers(w, &q, VTA_MEM_INP, VTA_PROG_BUF_INPUT2, base, 0, err);
        } else {
          uint32_t blk = tile_rows(&w->g, q.ho_n, tp.kh_n) * tile_cols(&w->g, q.wo_n, tp.kw_n);
          uint64_t cstride = (uint64_t)d->h * d->w; /* the next input block */
          for (uint32_t c = 0; !rc && c < ci_n; c++) {
            x = in0;
            x.offset += c * cstride;
            x.sram = base + c * blk;
            rc = s->load(s->ctx, &x, err);
          }
        }
      }
      is.prev = ih;
      if (!rc && !res_step && !empty) {
        uint64_t wkey = ((uint64_t)q.coi << 32) | rj;
        if (place(&ws, wkey, t, &wh)) {
          memset(&x, 0, sizeof x);
          x.type = VTA_MEM_WGT;
          x.buf = VTA_PROG_BUF_WEIGHT;
          x.sram = wgt_base(w, wh);
          x.offset = (((uint64_t)q.co0 * w->g.cib + ci0) * d->kh + tp.ky0) * d->kw + tp.kx0;
          x.x_size = ci_n * tp.kh_n * tp.kw_n;
          x.y_size = q.co_n;
          x.x_stride = w->g.cib * taps;
          rc = s->load(s->ctx, &x, err);
        }
      }
      ws.prev = wh;
      if (!rc) rc = s->dep(s->ctx, 1, L_, C_, err);
      /* ---- compute stage ---- */
      /* The step's loads are waited for by its GEMM, not by the unit's initialisation before
       * it, which reads none of them: the ALU then initialises this unit's slot (in the other
       * ACC bank) while the previous unit's last GEMM runs and this step's tiles load. A step
       * without a GEMM (all padding) waits at its start, as before. */
      int late_pop = j == 0 && !empty;
      if (!rc && head_x) rc = head_gemm(w, hx++, err);
      if (!rc && !late_pop) rc = s->dep(s->ctx, 0, L_, C_, err);
      kkey k;
      if (!rc && j == 0) {
        /* (a fused pooling's units wait for the store two before them only where they write
         * the pooled tile the store reads: post_chunk) */
        if (u >= nslots && !d->post_pool) rc = s->dep(s->ctx, 0, S_, C_, err);
        if (!rc && d->head_n && u >= nslots) { /* unit u - nslots stored its averages */
          rc = s->dep(s->ctx, 1, C_, L_, err);
          head_e[u - nslots] = (int64_t)t;
        }
        if (!rc && !p->bias_resident && biases) {
          memset(&x, 0, sizeof x);
          x.type = VTA_MEM_ACC;
          x.buf = VTA_PROG_BUF_BIAS;
          x.sram = biasb;
          x.offset = q.co0;
          x.x_size = q.co_n;
          x.y_size = vrows;
          x.x_stride = vrows > 1 ? w->g.cob : q.co_n;
          rc = s->load(s->ctx, &x, err);
        }
        uint32_t n_u = q.co_n * P;
        if (acc_res) {
          /* slot = residual (sign-extended), times its multiplier, plus the packed biases: the
           * sum of section 2 without its products, whatever the slot held (no reset). */
          rc = tile_xfers(w, &q, VTA_MEM_ACC_8BIT, VTA_PROG_BUF_INPUT2, accb, 0, err);
          if (!rc && d->residual_mul != 1) {
            k = key_of(KK_IMM, VTA_ALU_MUL, accb, 0, 0, q.ho_n, q.wo_n, q.co_n, 0, NULL,
                       d->residual_mul);
            rc = run(w, &k, err);
          }
          if (!rc && e->mode != VTA_EPI_RESET) {
            k = key_of(KK_BIAS, VTA_ALU_ADD, accb, 0, biasb, q.ho_n, q.wo_n, q.co_n, 0, NULL, 0);
            rc = run(w, &k, err);
          }
        } else {
          int need_reset = e->mode != VTA_EPI_OFFSET || n_u > clean[ah];
          if (!rc && need_reset) {
            /* The offset epilogue's first use of a slot clears it on the ALU (MUL by 0), beside
             * the GEMMs writing the other bank, not with a GEMM reset on the GEMM unit that
             * bounds the layer (ResNet-18: 8,136 cycles, C4 562). The other modes reset every
             * unit's slot on the GEMM unit, as their ADD of the biases waits for it anyway. */
            if (e->mode == VTA_EPI_OFFSET)
              k = key_of(KK_IMM, VTA_ALU_MUL, accb, 0, 0, q.ho_n, q.wo_n, q.co_n, 0, NULL, 0);
            else
              k = key_of(KK_RESET, 0, accb, 0, 0, q.ho_n, q.wo_n, q.co_n, 0, NULL, 0);
            rc = run(w, &k, err);
          }
          if (!rc && e->mode != VTA_EPI_RESET) {
            k = key_of(KK_BIAS, e->mode == VTA_EPI_OFFSET ? VTA_ALU_MAX : VTA_ALU_ADD, accb, 0,
                       biasb, q.ho_n, q.wo_n, q.co_n, 0, NULL, 0);
            rc = run(w, &k, err);
          }
        }
        if (e->mode == VTA_EPI_OFFSET && n_u > clean[ah]) clean[ah] = n_u;
      }
      if (!rc && late_pop) rc = s->dep(s->ctx, 0, L_, C_, err);
      if (!rc && !empty) {
        uint32_t inpb = inp_base(w, ih);
        if (res_step)
          k = key_of(KK_RES, 0, accb, inpb, l->wgt_ident, q.ho_n, q.wo_n, q.co_n, 0, NULL, 0);
        else
          k = key_of(KK_GEMM, 0, accb, inpb, wgt_base(w, wh), q.ho_n, q.wo_n, q.co_n,
                     ci_n, &tp, 0);
        rc = run(w, &k, err);
      }
      if (!rc && t + 2 < T) rc = s->dep(s->ctx, 1, C_, L_, err);
      /* The previous unit's epilogue follows the first steps of this one whose GEMMs last as
       * long as all but one of its ALU operations: then the ALU runs it in the other ACC bank
       * while these GEMMs run, and the GEMM after it need not wait (the compute module starts
       * instructions in order; the last ALU operation overlaps that GEMM too). */
      if (res_step) red += 1;
      else if (!empty) red += ci_n * tp.kh_n * tp.kw_n;
      if (!rc && pend.on && (d->post_add || d->post_pool || d->head_n)) {
        /* A few of its steps beside each of this unit's GEMM instructions. */
        uint64_t per = res_step ? 1 : empty ? 0 : (uint64_t)ci_n * tp.kh_n * tp.kw_n;
        int done;
        rc = post_chunk(w, &pend, per * q.ho_n * q.wo_n * q.co_n, j + 1 == spu, U, &done, err);
        if (done) pend.on = 0;
      } else if (!rc && pend.on && (red + 1 >= epi_ops || j + 1 == spu)) {
        rc = finish_unit(w, &pend, U, err);
        pend.on = 0;
      }
    }
    if (!rc) {
      uint32_t carryb = 0, colin = 0, colout = 0;
      if (d->post_pool) { /* its row carry, and the column carries (pool_carry_at, pool_cc_at) */
        uint32_t owi = q.ow0 / p->wo_t;
        carryb = acc_slot_base(l, nslots, ah) + pool_carry_at(p, owi * n_co + q.coi);
        colout = acc_slot_base(l, nslots, ah) + pool_cc_at(&w->g, p, q.coi);
        if (u >= n_co)
          colin = acc_slot_base(l, nslots, (uint32_t)((u - n_co) % nslots)) +
                  pool_cc_at(&w->g, p, q.coi);
      }
      uint32_t gapb = d->head_n ? biasb - (p->bias_resident ? q.co0 : 0) + (vrows - 1) * row : 0;
      pending_unit this_unit = {1, q, accb, u, shiftb, roundb, addcb, addsb, carryb,
                                colin, colout, gapb, 0};
      if (u + 1 < U) pend = this_unit;
      else rc = finish_unit(w, &this_unit, U, err);
    }
  }
  if (!rc && d->head_n) rc = head_end(w, hx, head_e, head_rows, U, err);
  free(head_e);
  free(head_rows);
  if (!rc) rc = s->sync(s->ctx, err);
  return rc;
}

#undef L_
#undef C_
#undef S_

int vta_sched_walk(const vta_config *cfg, const vta_conv_desc *d, const vta_sched_epi *e,
                   const vta_tile_plan *p, const vta_sched_sink *sink, vta_error *err) {
  vta_conv_desc tmp;
  d = effective(d, p, &tmp);
  walker w;
  memset(&w, 0, sizeof w);
  geom_init(&w.g, cfg, d);
  w.e = e;
  w.p = p;
  w.s = sink;
  int rc = vta_sched_layout_of(cfg, d, p, &w.l, err);
  if (rc) return rc;
  w.gk = choose_kind(&w.g, p);
  w.nslots = vta_sched_acc_slots(&w.g, p, w.l.acc_half - w.l.bias_entries - w.l.shift_entries);
  rc = walk(&w, err);
  free(w.keys);
  free(w.ids);
  free(w.uops);
  return rc;
}

