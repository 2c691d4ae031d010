/* vta_sched.h - what the schedule's two halves share (internal to compiler/accel/): the layer's
 * geometry, the tile transfers and the on-chip layout that vta_conv.c works out and vta_walk.c
 * walks. Not installed; the lowering's interface is vta_lower.h.
 */
#ifndef VTA_COMPILER_ACCEL_VTA_SCHED_H
#define VTA_COMPILER_ACCEL_VTA_SCHED_H

#include "compiler/accel/vta_lower.h"

static inline uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
static inline uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

/* The layer a plan walks: the conv itself, or the 1x1 conv over its im2col patches. */
static inline const vta_conv_desc *effective(const vta_conv_desc *d, const vta_tile_plan *p,
                                      vta_conv_desc *tmp) {
  if (!p->im2col) return d;
  vta_conv_im2col_desc(d, tmp);
  return tmp;
}

typedef enum gemm_kind {
  GK_ROWS = 0, /* loops: output rows, columns; micro-ops: co, ci, ky, kx */
  GK_CO = 1,   /* loops: output blocks, columns; micro-ops: row, ci, ky, kx */
  GK_FLAT = 2, /* loops: output blocks, pixels; micro-ops: ci (1x1, stride 1) */
  GK_COUNT = 3
} gemm_kind;

typedef struct geom {
  const vta_config *cfg;
  const vta_conv_desc *d;
  uint32_t ho, wo, ng, cib, cob;
  int row_sub; /* 1-row kernel with a row stride: load only the rows used */
  uint32_t rs; /* INP rows per output row in a tile */
} geom;

static inline void geom_init(geom *g, const vta_config *cfg, const vta_conv_desc *d) {
  g->cfg = cfg;
  g->d = d;
  g->ho = vta_conv_out_h(d);
  g->wo = vta_conv_out_w(d);
  g->ng = ceil_div(d->n, cfg->batch);
  g->cib = ceil_div(d->c, cfg->block_in);
  g->cob = ceil_div(d->k, cfg->block_out);
  g->row_sub = d->kh == 1 && d->stride_h > 1;
  g->rs = g->row_sub ? 1 : d->stride_h;
}

/* INP rows and columns of a tile of ho_n x wo_n outputs over kh_n x kw_n kernel taps. */
static inline uint32_t tile_rows(const geom *g, uint32_t ho_n, uint32_t kh_n) {
  return g->row_sub ? ho_n : (ho_n - 1) * g->d->stride_h + kh_n;
}
static inline uint32_t tile_cols(const geom *g, uint32_t wo_n, uint32_t kw_n) {
  return (wo_n - 1) * g->d->stride_w + kw_n;
}

static inline uint64_t gemm_uops(gemm_kind k, uint32_t ho_n, uint32_t co_n, uint32_t ci_n,
                          uint32_t taps) {
  if (k == GK_ROWS) return (uint64_t)co_n * ci_n * taps;
  if (k == GK_CO) return (uint64_t)ho_n * ci_n * taps;
  return ci_n;
}

/* The plan's kernel taps per step (0 means all). */
static inline uint32_t plan_kh(const geom *g, const vta_tile_plan *p) {
  return p->kh_t ? p->kh_t : g->d->kh;
}
static inline uint32_t plan_kw(const geom *g, const vta_tile_plan *p) {
  return p->kw_t ? p->kw_t : g->d->kw;
}

static inline int flat_ok(const geom *g) {
  return g->d->kh == 1 && g->d->kw == 1 && g->d->stride_w == 1;
}

static inline gemm_kind choose_kind(const geom *g, const vta_tile_plan *p) {
  if (flat_ok(g)) return GK_FLAT;
  uint32_t taps = plan_kh(g, p) * plan_kw(g, p);
  return gemm_uops(GK_CO, p->ho_t, p->co_t, p->ci_t, taps) <
                 gemm_uops(GK_ROWS, p->ho_t, p->co_t, p->ci_t, taps)
             ? GK_CO
             : GK_ROWS;
}

/* A tile's taps: kernel rows [ky0, ky0 + kh_n) and columns [kx0, kx0 + kw_n). */
typedef struct tapset {
  uint32_t ky0, kh_n, kx0, kw_n;
} tapset;

/* The load of input block `c` (absolute) for the tile of output rows [oh0, oh0 + ho_n) and
 * columns [ow0, ow0 + ow_n) of batch group gi over kernel taps tp; sram set by the caller.
 * Returns VTA_OK with x->x_size = 0 when the tile lies wholly in the zero padding (the step
 * then adds nothing). */
int vta_sched_input_xfer(const geom *g, uint32_t gi, uint32_t oh0, uint32_t ho_n, uint32_t ow0,
                         uint32_t wo_n, uint32_t c, const tapset *tp, vta_prog_xfer *x,
                         vta_error *err);

/* A transfer of output-shaped data (residual loads, output stores) for co_n blocks from co0:
 * one 2-D transfer when the tile spans whole rows (its blocks are then contiguous runs), else
 * one per block (*count says how many; x receives the first, the others follow at `next_sram`
 * and `next_off` increments). */
typedef struct out_xfer {
  vta_prog_xfer x;
  uint32_t count;
  uint32_t next_sram;
  uint64_t next_off;
} out_xfer;
void vta_sched_output_xfer(const geom *g, uint32_t gi, uint32_t oh0, uint32_t ho_n, uint32_t ow0,
                           uint32_t wo_n, uint32_t co0, uint32_t co_n, out_xfer *o);

/* The first entry after a slot's tile: where a fused operation's own entries start (the
 * pooled tile, an add's operand, a LeakyRelu's copy, a classifier's averages). */
static inline uint32_t after_tile(const vta_tile_plan *p) { return p->co_t * p->ho_t * p->wo_t; }
/* With a fused max pooling (post_pool) a unit's slot holds, after its tile of co_t x ho_t x
 * wo_t outputs, the pooled tile (co_t x ho_t/2 x wo_t/2, what its store reads), then for each
 * (column tile, output-channel tile) whose units use this bank the row carry: the horizontal
 * maxima of that tile's last output row, which the next row tile's first pooled row needs
 * (units take the banks in turn and there is an even number of such pairs per row of tiles, so
 * pair k = owi * n_co + coi is always in bank k % 2, at k / 2); with several column tiles, then
 * for each output-channel tile the column carry: the last column of a unit's tile (co_t x ho_t),
 * the left neighbour of the next column tile's first. The offsets from the slot's base: */
static inline uint32_t pool_carry_at(const vta_tile_plan *p, uint32_t k) {
  return after_tile(p) + p->co_t * (p->ho_t / 2) * (p->wo_t / 2) +
         k / 2 * p->co_t * (p->wo_t / 2);
}
static inline uint32_t pool_cc_at(const geom *g, const vta_tile_plan *p, uint32_t coi) {
  uint32_t pairs = ceil_div(g->cob, p->co_t) * ceil_div(g->wo, p->wo_t);
  return pool_carry_at(p, pairs) + coi * p->co_t * p->ho_t;
}

/* The number of ACC slots (2 or 4) for plan p with room entries per bank. */
uint32_t vta_sched_acc_slots(const geom *g, const vta_tile_plan *p, uint32_t room);
/* The first ACC entry of slot s of n (slot size: half the room of a bank when n is 4). */
static inline uint32_t acc_slot_base(const vta_sched_layout *l, uint32_t n, uint32_t s) {
  uint32_t room = l->acc_half - l->bias_entries - l->shift_entries;
  return (s % 2) * l->acc_half + (n == 4 ? (s / 2) * (room / 2) : 0);
}

#endif
