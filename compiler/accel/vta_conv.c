/* vta_conv.c - the schedule of a conv2d or dense layer on the accelerator, and its emission as
 * a vta_program.
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
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/accel/vta_lower.h"

static uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
static uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

/* ---- Layer geometry ---- */

/* Whether the epilogue shifts by a vector (SHRCLIP: each channel's amount, per-channel or not,
 * with the clip's upper bound): whenever it shifts at all. */
int vta_conv_shift_vector(const vta_conv_desc *d) { return d->shift != 0 || d->leaky_k != 0; }

int vta_conv_residual_gemm(const vta_conv_desc *d) { return d->has_residual && d->leaky_k != 0; }

uint32_t vta_conv_vector_rows(const vta_conv_desc *d) {
  return 1 + (vta_conv_shift_vector(d) ? 1 : 0) + (d->leaky_k ? 1 : 0) + (d->post_add ? 2 : 0) +
         (d->head_n ? 1 : 0);
}

uint64_t vta_conv_acc_tile(const vta_conv_desc *d, uint64_t outs) {
  return d->leaky_k || d->post_add ? 2 * outs : outs;
}

uint32_t vta_conv_out_h(const vta_conv_desc *d) {
  uint64_t span = (uint64_t)d->h + d->pad_top + d->pad_bottom;
  if (d->stride_h == 0 || d->kh == 0 || span < d->kh) return 0;
  return (uint32_t)((span - d->kh) / d->stride_h + 1);
}

uint32_t vta_conv_out_w(const vta_conv_desc *d) {
  uint64_t span = (uint64_t)d->w + d->pad_left + d->pad_right;
  if (d->stride_w == 0 || d->kw == 0 || span < d->kw) return 0;
  return (uint32_t)((span - d->kw) / d->stride_w + 1);
}

uint32_t vta_conv_final_h(const vta_conv_desc *d) {
  return d->post_pool ? vta_conv_out_h(d) / 2 : vta_conv_out_h(d);
}

uint32_t vta_conv_final_w(const vta_conv_desc *d) {
  return d->post_pool ? vta_conv_out_w(d) / 2 : vta_conv_out_w(d);
}

int vta_conv_check(const vta_config *cfg, const vta_conv_desc *d, vta_error *err) {
  if (cfg->inp_width != 8 || cfg->wgt_width != 8 || cfg->acc_width != 32)
    return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                         "lowering: the configuration has %u-bit inputs, %u-bit weights and "
                         "%u-bit accumulators; the lowering handles 8, 8 and 32",
                         cfg->inp_width, cfg->wgt_width, cfg->acc_width);
  if (!d->n || !d->c || !d->h || !d->w || !d->k || !d->kh || !d->kw || !d->stride_h ||
      !d->stride_w)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "lowering: conv2d n=%u c=%u h=%u w=%u k=%u kernel %ux%u stride %ux%u: "
                         "every size and stride must be at least 1",
                         d->n, d->c, d->h, d->w, d->k, d->kh, d->kw, d->stride_h, d->stride_w);
  uint64_t sizes[] = {d->n, d->c, d->h, d->w, d->k, d->kh, d->kw};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    if (sizes[i] > 65535)
      return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                           "lowering: conv2d size %llu exceeds 65535 (16-bit transfer fields)",
                           (unsigned long long)sizes[i]);
  if (!vta_conv_out_h(d) || !vta_conv_out_w(d))
    return vta_error_set(err, VTA_ERR_INVALID,
                         "lowering: the %ux%u kernel does not fit the %ux%u input with its "
                         "padding",
                         d->kh, d->kw, d->h, d->w);
  if (d->pad_top >= d->kh || d->pad_bottom >= d->kh || d->pad_left >= d->kw ||
      d->pad_right >= d->kw)
    return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                         "lowering: padding %u,%u,%u,%u reaches a whole kernel (%ux%u): some "
                         "outputs would see no input",
                         d->pad_top, d->pad_left, d->pad_bottom, d->pad_right, d->kh, d->kw);
  if ((uint64_t)d->stride_h * d->w > 65535)
    return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                         "lowering: a row stride of %u x %u elements exceeds the 16-bit "
                         "x_stride of a load",
                         d->stride_h, d->w);
  if (d->shift > 31)
    return vta_error_set(err, VTA_ERR_INVALID, "lowering: shift %u exceeds 31", d->shift);
  if (d->shifts) {
    uint32_t most = 0;
    for (uint32_t k = 0; k < d->k; k++) {
      if (d->shifts[k] > 31)
        return vta_error_set(err, VTA_ERR_INVALID,
                             "lowering: the shift of output channel %u is %u; at most 31", k,
                             (unsigned)d->shifts[k]);
      if (d->shifts[k] > most) most = d->shifts[k];
    }
    if (most != d->shift)
      return vta_error_set(err, VTA_ERR_INVALID,
                           "lowering: shift %u is not the largest per-channel shift (%u)",
                           d->shift, most);
  }
  if (d->leaky_k && (d->leaky_k + d->shift > 31 || d->leaky_m < 0 || d->leaky_m > 32767 ||
                     (d->leaky_k < 31 && d->leaky_m > (1 << d->leaky_k))))
    return vta_error_set(err, VTA_ERR_INVALID,
                         "lowering: LeakyRelu slope %d / 2^%u with shift %u: the slope must be "
                         "in [0, 1] with m at most 32767, and shift + k at most 31",
                         d->leaky_m, d->leaky_k, d->shift);
  if (d->clip_lo < -128 || d->clip_hi > 127 || d->clip_lo > d->clip_hi)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "lowering: clip range [%d, %d] is not inside [-128, 127]", d->clip_lo,
                         d->clip_hi);
  if (d->post_add) {
    if (d->has_residual || d->leaky_k)
      return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                           "lowering: an add after the epilogue beside a %s (both use the "
                           "second operand's buffer or ACC copy)",
                           d->has_residual ? "residual" : "LeakyRelu");
    if (d->add_ma < -32768 || d->add_ma > 32767 || d->add_mb < -32768 || d->add_mb > 32767)
      return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                           "lowering: add multipliers %d and %d; the ALU's immediates hold 16 "
                           "bits", d->add_ma, d->add_mb);
    if (d->add_shift > 31)
      return vta_error_set(err, VTA_ERR_INVALID, "lowering: add shift %u exceeds 31",
                           d->add_shift);
    if (d->add_lo < -128 || d->add_hi > 127 || d->add_lo > d->add_hi)
      return vta_error_set(err, VTA_ERR_INVALID,
                           "lowering: add clip range [%d, %d] is not inside [-128, 127]",
                           d->add_lo, d->add_hi);
  }
  if (d->head_n) {
    uint64_t P = (uint64_t)vta_conv_out_h(d) * vta_conv_out_w(d);
    if (d->post_pool || d->post_add || d->leaky_k)
      return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                           "lowering: a classifier head after a %s",
                           d->post_pool ? "max pooling" : d->post_add ? "fused add" : "LeakyRelu");
    if (d->n != 1 || cfg->batch != 1 || cfg->block_in != cfg->block_out)
      return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                           "lowering: a classifier head needs batch 1 and BLOCK_IN = BLOCK_OUT "
                           "(batch %u of %u, blocks %u and %u)",
                           d->n, cfg->batch, cfg->block_in, cfg->block_out);
    if (!d->head_w || P > 255 || (d->relu ? 0 : d->clip_lo) < 0)
      return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                           "lowering: a classifier head averages at most 255 positions of a "
                           "non-negative output with its weights given (%llu positions, clip "
                           "from %d%s)",
                           (unsigned long long)P, d->relu ? 0 : d->clip_lo,
                           d->head_w ? "" : ", no weights");
    if (d->head_n > 65535 || d->head_shift > 31 || d->head_lo < -128 || d->head_hi > 127 ||
        d->head_lo > d->head_hi)
      return vta_error_set(err, VTA_ERR_INVALID,
                           "lowering: classifier head of %u outputs, shift %u, clip [%d, %d]: at "
                           "most 65535 outputs, shift 31, an int8 range",
                           d->head_n, d->head_shift, d->head_lo, d->head_hi);
  }
  if (d->post_pool) {
    uint32_t ho = vta_conv_out_h(d), wo = vta_conv_out_w(d);
    if (d->has_residual || d->leaky_k || d->post_add)
      return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                           "lowering: a max pooling after the epilogue beside a %s (both use "
                           "the ACC entries after the tile)",
                           d->has_residual ? "residual" : d->leaky_k ? "LeakyRelu" : "fused add");
    if (ho % 2 || wo % 2)
      return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                           "lowering: a fused 3x3/2 max pooling needs an even output; the "
                           "convolution gives %ux%u",
                           ho, wo);
    if (ceil_div(d->k, cfg->block_out) < 2)
      return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                           "lowering: a fused max pooling needs at least two output-channel "
                           "blocks (%u channels, BLOCK_OUT %u)",
                           d->k, cfg->block_out);
    if ((uint64_t)ho / 2 * (wo / 2) > 65535)
      return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                           "lowering: a pooled plane of %ux%u exceeds the 16-bit x_stride of a "
                           "store",
                           ho / 2, wo / 2);
  }
  if (d->has_residual) {
    if (vta_conv_residual_gemm(d) && cfg->block_in != cfg->block_out)
      return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                           "lowering: a residual operand beside a LeakyRelu needs BLOCK_IN = BLOCK_OUT (%u, %u)",
                           cfg->block_in, cfg->block_out);
    if (d->residual_mul < -128 || d->residual_mul > 127)
      return vta_error_set(err, VTA_ERR_INVALID,
                           "lowering: residual multiplier %d is not an int8", d->residual_mul);
  }
  return VTA_OK;
}

void vta_conv_im2col_desc(const vta_conv_desc *d, vta_conv_desc *out) {
  *out = *d;
  out->c = d->c * d->kh * d->kw;
  out->h = vta_conv_out_h(d);
  out->w = vta_conv_out_w(d);
  out->kh = out->kw = out->stride_h = out->stride_w = 1;
  out->pad_top = out->pad_left = out->pad_bottom = out->pad_right = 0;
}

/* The layer a plan walks: the conv itself, or the 1x1 conv over its im2col patches. */
static const vta_conv_desc *effective(const vta_conv_desc *d, const vta_tile_plan *p,
                                      vta_conv_desc *tmp) {
  if (!p->im2col) return d;
  vta_conv_im2col_desc(d, tmp);
  return tmp;
}

void vta_dense_as_conv(const vta_config *cfg, const vta_dense_desc *d, vta_conv_desc *out) {
  memset(out, 0, sizeof *out);
  out->n = cfg->batch;
  out->c = d->k;
  out->h = 1;
  out->w = ceil_div(d->m, cfg->batch);
  out->k = d->n;
  out->kh = out->kw = out->stride_h = out->stride_w = 1;
  out->has_bias = d->has_bias;
  out->shift = d->shift;
  out->relu = d->relu;
  out->clip_lo = d->clip_lo;
  out->clip_hi = d->clip_hi;
  out->leaky_k = d->leaky_k;
  out->leaky_m = d->leaky_m;
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

static void geom_init(geom *g, const vta_config *cfg, const vta_conv_desc *d) {
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
static uint32_t tile_rows(const geom *g, uint32_t ho_n, uint32_t kh_n) {
  return g->row_sub ? ho_n : (ho_n - 1) * g->d->stride_h + kh_n;
}
static uint32_t tile_cols(const geom *g, uint32_t wo_n, uint32_t kw_n) {
  return (wo_n - 1) * g->d->stride_w + kw_n;
}

static uint64_t gemm_uops(gemm_kind k, uint32_t ho_n, uint32_t co_n, uint32_t ci_n,
                          uint32_t taps) {
  if (k == GK_ROWS) return (uint64_t)co_n * ci_n * taps;
  if (k == GK_CO) return (uint64_t)ho_n * ci_n * taps;
  return ci_n;
}

/* The plan's kernel taps per step (0 means all). */
static uint32_t plan_kh(const geom *g, const vta_tile_plan *p) {
  return p->kh_t ? p->kh_t : g->d->kh;
}
static uint32_t plan_kw(const geom *g, const vta_tile_plan *p) {
  return p->kw_t ? p->kw_t : g->d->kw;
}

static int flat_ok(const geom *g) {
  return g->d->kh == 1 && g->d->kw == 1 && g->d->stride_w == 1;
}

static gemm_kind choose_kind(const geom *g, const vta_tile_plan *p) {
  if (flat_ok(g)) return GK_FLAT;
  uint32_t taps = plan_kh(g, p) * plan_kw(g, p);
  return gemm_uops(GK_CO, p->ho_t, p->co_t, p->ci_t, taps) <
                 gemm_uops(GK_ROWS, p->ho_t, p->co_t, p->ci_t, taps)
             ? GK_CO
             : GK_ROWS;
}

/* ---- Tile transfers ---- */

/* A tile's taps: kernel rows [ky0, ky0 + kh_n) and columns [kx0, kx0 + kw_n). */
typedef struct tapset {
  uint32_t ky0, kh_n, kx0, kw_n;
} tapset;

/* The load of input block `c` (absolute) for the tile of output rows [oh0, oh0 + ho_n) and
 * columns [ow0, ow0 + ow_n) of batch group gi over kernel taps tp; sram set by the caller.
 * Returns VTA_OK with x->x_size = 0 when the tile lies wholly in the zero padding (the step
 * then adds nothing). */
static int input_xfer(const geom *g, uint32_t gi, uint32_t oh0, uint32_t ho_n, uint32_t ow0,
                      uint32_t wo_n, uint32_t c, const tapset *tp, vta_prog_xfer *x,
                      vta_error *err) {
  const vta_conv_desc *d = g->d;
  memset(x, 0, sizeof *x);
  x->type = VTA_MEM_INP;
  x->buf = VTA_PROG_BUF_INPUT;
  int64_t H = d->h, W = d->w, first_row;
  if (g->row_sub) {
    /* Output row oh reads input row oh * stride - pad_top. */
    uint32_t before = 0, after = 0;
    for (uint32_t i = 0; i < ho_n; i++) {
      int64_t iy = (int64_t)(oh0 + i) * d->stride_h - d->pad_top;
      if (iy < 0) before++;
      else if (iy >= H) after++;
    }
    if (before + after >= ho_n) return VTA_OK; /* wholly padding */
    x->y_pad_before = before;
    x->y_pad_after = after;
    x->y_size = ho_n - before - after;
    first_row = (int64_t)(oh0 + before) * d->stride_h - d->pad_top;
    x->x_stride = d->stride_h * d->w;
  } else {
    int64_t r0 = (int64_t)oh0 * d->stride_h - d->pad_top + tp->ky0;
    int64_t r1 = r0 + tile_rows(g, ho_n, tp->kh_n);
    int64_t before = r0 < 0 ? -r0 : 0, after = r1 > H ? r1 - H : 0;
    if (before + after >= r1 - r0) return VTA_OK; /* wholly padding */
    x->y_pad_before = (uint32_t)before;
    x->y_pad_after = (uint32_t)after;
    x->y_size = (uint32_t)(r1 - r0 - before - after);
    first_row = r0 + before;
    x->x_stride = d->w;
  }
  int64_t c0 = (int64_t)ow0 * d->stride_w - d->pad_left + tp->kx0;
  int64_t c1 = c0 + tile_cols(g, wo_n, tp->kw_n);
  int64_t before = c0 < 0 ? -c0 : 0, after = c1 > W ? c1 - W : 0;
  if (before + after >= c1 - c0) {
    x->x_size = x->y_size = 0; /* wholly padding */
    return VTA_OK;
  }
  x->x_pad_before = (uint32_t)before;
  x->x_pad_after = (uint32_t)after;
  x->x_size = (uint32_t)(c1 - c0 - before - after);
  uint32_t pads[4] = {x->y_pad_before, x->y_pad_after, x->x_pad_before, x->x_pad_after};
  for (int i = 0; i < 4; i++)
    if (pads[i] > 15)
      return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                           "lowering: a tile needs %u rows or columns of zero padding; a load "
                           "pads at most 15",
                           pads[i]);
  x->offset = (((uint64_t)gi * g->cib + c) * d->h + (uint64_t)first_row) * d->w +
              (uint64_t)(c0 + before);
  return VTA_OK;
}

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

static void output_xfer(const geom *g, uint32_t gi, uint32_t oh0, uint32_t ho_n, uint32_t ow0,
                        uint32_t wo_n, uint32_t co0, uint32_t co_n, out_xfer *o) {
  memset(o, 0, sizeof *o);
  uint64_t plane = (uint64_t)g->ho * g->wo;
  uint64_t base = ((uint64_t)gi * g->cob + co0) * plane + (uint64_t)oh0 * g->wo + ow0;
  uint32_t P = ho_n * wo_n;
  o->x.offset = base;
  if (wo_n == g->wo && plane <= 65535 && (co_n == 1 || P <= plane)) {
    o->x.x_size = P;
    o->x.y_size = co_n;
    o->x.x_stride = (uint32_t)(co_n > 1 ? plane : P);
    o->count = 1;
  } else {
    o->x.x_size = wo_n;
    o->x.y_size = ho_n;
    o->x.x_stride = g->wo;
    o->count = co_n;
    o->next_sram = P;
    o->next_off = plane;
  }
}

/* ---- The on-chip layout ---- */

/* With a fused max pooling (post_pool) a unit's slot holds, after its tile of co_t x ho_t x
 * wo_t outputs, the pooled tile (co_t x ho_t/2 x wo_t/2, what its store reads), then for each
 * (column tile, output-channel tile) whose units use this bank the row carry: the horizontal
 * maxima of that tile's last output row, which the next row tile's first pooled row needs
 * (units take the banks in turn and there is an even number of such pairs per row of tiles, so
 * pair k = owi * n_co + coi is always in bank k % 2, at k / 2); with several column tiles, then
 * for each output-channel tile the column carry: the last column of a unit's tile (co_t x ho_t),
 * the left neighbour of the next column tile's first. The offsets from the slot's base: */
static uint32_t pool_compact_at(const vta_tile_plan *p) { return p->co_t * p->ho_t * p->wo_t; }
static uint32_t pool_carry_at(const geom *g, const vta_tile_plan *p, uint32_t k) {
  (void)g;
  return pool_compact_at(p) + p->co_t * (p->ho_t / 2) * (p->wo_t / 2) +
         k / 2 * p->co_t * (p->wo_t / 2);
}
static uint32_t pool_cc_at(const geom *g, const vta_tile_plan *p, uint32_t coi) {
  uint32_t pairs = ceil_div(g->cob, p->co_t) * ceil_div(g->wo, p->wo_t);
  return pool_carry_at(g, p, pairs) + coi * p->co_t * p->ho_t;
}

/* ACC slots: units take them in turn, and consecutive units use different banks (slot s is in
 * bank s % 2), so the epilogue of one unit runs on the ALU while the next unit's GEMMs run. A
 * unit holds its slot from its initialisation to the end of its store. With two slots the
 * next-but-one unit waits for that unless one unit's GEMMs outlast the other's epilogue, store
 * and next initialisation; when a unit's reduction is shorter than that (G GEMM micro-ops per
 * output against the ALU operations and store beats per output) and two tiles fit in a bank,
 * there are four slots, so three units' GEMMs cover it. (Not always four: every slot multiplies
 * the kernels, each a LOAD UOP and a footprint record in hardware.) */
static uint32_t acc_slots(const geom *g, const vta_tile_plan *p, uint32_t room) {
  const vta_conv_desc *d = g->d;
  uint64_t tile = vta_conv_acc_tile(d, (uint64_t)p->co_t * p->ho_t * p->wo_t);
  uint64_t G = (uint64_t)g->cib * d->kh * d->kw + (vta_conv_residual_gemm(d) ? 1 : 0);
  /* initialisation, SHR, MAX, MIN (one SHRCLIP when it shifts); a LeakyRelu's copy (2), SHL,
   * MUL, MAX, rounding */
  uint64_t alu = 1 + (vta_conv_shift_vector(d) ? 1 : 2) + (d->leaky_k ? 6 : 0);
  uint64_t bus = g->cfg->bus_bytes ? g->cfg->bus_bytes : 8;
  uint64_t store = (g->cfg->elem_bytes[VTA_MEM_OUT] + bus - 1) / bus;
  if (d->post_pool) return 2; /* each output-channel tile's carry stays in one bank */
  return 2 * tile <= room && G < alu + store + 1 ? 4 : 2;
}

/* The first ACC entry of slot s of n (slot size: half the room of a bank when n is 4). */
static uint32_t acc_slot_base(const vta_sched_layout *l, uint32_t n, uint32_t s) {
  uint32_t room = l->acc_half - l->bias_entries - l->shift_entries;
  return (s % 2) * l->acc_half + (n == 4 ? (s / 2) * (room / 2) : 0);
}

int vta_sched_layout_of(const vta_config *cfg, const vta_conv_desc *d, const vta_tile_plan *p,
                        vta_sched_layout *l, vta_error *err) {
  vta_conv_desc tmp;
  d = effective(d, p, &tmp);
  geom g;
  geom_init(&g, cfg, d);
  memset(l, 0, sizeof *l);
  uint32_t kh_n = plan_kh(&g, p), kw_n = plan_kw(&g, p);
  if (!p->ho_t || !p->wo_t || !p->co_t || !p->ci_t || p->ho_t > g.ho || p->wo_t > g.wo ||
      p->co_t > g.cob || p->ci_t > g.cib || kh_n > d->kh || kw_n > d->kw ||
      (unsigned)p->order >= VTA_TILE_ORDER_COUNT)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "tiling: plan %ux%u outputs x %u/%u channel blocks x %ux%u taps is "
                         "outside the layer (%ux%u outputs, %u output and %u input blocks, "
                         "kernel %ux%u)",
                         p->ho_t, p->wo_t, p->co_t, p->ci_t, kh_n, kw_n, g.ho, g.wo, g.cob, g.cib,
                         d->kh, d->kw);
  /* A weight tile must be one 2-D load: contiguous runs of taps per output block. */
  if ((kh_n < d->kh || kw_n < d->kw) && p->ci_t != 1)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "tiling: a step over part of the kernel takes one input block, not %u",
                         p->ci_t);
  if (kw_n < d->kw && kh_n != 1)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "tiling: a step over part of the kernel's columns takes one row, not %u",
                         kh_n);
  if (g.row_sub && kh_n != d->kh)
    return vta_error_set(err, VTA_ERR_INVALID, "tiling: a 1-row kernel has no rows to split");
  uint32_t taps_n = kh_n * kw_n;
  uint64_t P = (uint64_t)p->ho_t * p->wo_t;
  uint64_t inp = (uint64_t)p->ci_t * tile_rows(&g, p->ho_t, kh_n) * tile_cols(&g, p->wo_t, kw_n);
  uint64_t res = vta_conv_residual_gemm(d) ? (uint64_t)p->co_t * P : 0; /* an INP tile */
  uint64_t wgt = (uint64_t)p->co_t * p->ci_t * taps_n;
  uint64_t acc = vta_conv_acc_tile(d, (uint64_t)p->co_t * P);
  if (d->post_pool) {
    uint32_t tiles = ceil_div(g.cob, p->co_t), cols = ceil_div(g.wo, p->wo_t);
    if (g.wo % p->wo_t || p->wo_t % 2 || p->ho_t % 2 || p->order != VTA_TILE_SPATIAL_OUTER ||
        (tiles * cols) % 2)
      return vta_error_set(err, VTA_ERR_INVALID,
                           "tiling: with a fused max pooling a plan takes an even number of rows "
                           "and of columns dividing the %u columns, output-channel tiles "
                           "innermost, and an even number of column and channel tiles together; "
                           "plan %ux%u x %u output blocks (%u x %u tiles), %s",
                           g.wo, p->ho_t, p->wo_t, p->co_t, cols, tiles,
                           p->order == VTA_TILE_SPATIAL_OUTER ? "spatial-outer" : "co-outer");
    acc = cols > 1 ? pool_cc_at(&g, p, tiles) : pool_carry_at(&g, p, tiles * cols);
  }
  if (d->head_n) acc += p->co_t; /* the unit's averages after its tile */
  l->bias_entries = p->bias_resident ? g.cob : p->co_t;
  /* Per-channel shifts and a LeakyRelu's rounding: beside resident biases one more vector per
   * block and row; per tile, two regions of every row (see vta_sched_layout). */
  uint32_t rows = vta_conv_vector_rows(d);
  if (rows > 1) l->shift_entries = (p->bias_resident ? rows - 1 : 2 * rows - 1) * l->bias_entries;
  /* A classifier head: its accumulators below the biases, two input and two weight slots of a
   * unit's channel blocks at the top of INP and WGT (beside the residual's diagonal). */
  uint32_t head_nb = d->head_n ? ceil_div(d->head_n, cfg->block_out) : 0;
  uint32_t reserved_inp = d->head_n ? 2 * p->co_t : 0;
  uint32_t reserved_acc = l->bias_entries + l->shift_entries + head_nb;
  uint32_t reserved_wgt = (vta_conv_residual_gemm(d) ? 1 : 0) + 2 * head_nb * (d->head_n ? p->co_t : 0);
  if (d->head_n && (p->ho_t != g.ho || p->wo_t != g.wo))
    return vta_error_set(err, VTA_ERR_INVALID,
                         "tiling: with a classifier head a plan takes the whole %ux%u output "
                         "per tile, not %ux%u",
                         g.ho, g.wo, p->ho_t, p->wo_t);
  if (reserved_inp + 2 > cfg->depth[VTA_MEM_INP])
    return vta_error_set(err, VTA_ERR_BOUNDS, "tiling: the classifier's input slots do not fit INP");
  /* ACC: the two halves are the two banks of the hardware (index MSB), so the GEMMs of one
   * virtual thread and the ALU epilogue of the other can run together (hw/rtl/vta_compute.sv);
   * the biases (and shifts) take the top of the second bank. */
  uint32_t bank = cfg->depth[VTA_MEM_ACC] / 2;
  if (reserved_acc + 1 > bank || reserved_wgt + 2 > cfg->depth[VTA_MEM_WGT])
    return vta_error_set(err, VTA_ERR_BOUNDS, "tiling: the biases%s do not fit the ACC buffer",
                         l->shift_entries ? " and shifts" : "");
  uint32_t inp_avail = cfg->depth[VTA_MEM_INP] - reserved_inp, inp_half = inp_avail / 2;
  uint32_t wgt_avail = cfg->depth[VTA_MEM_WGT] - reserved_wgt, wgt_half = wgt_avail / 2;
  l->head_inp = inp_avail;
  l->head_wgt = wgt_avail + (vta_conv_residual_gemm(d) ? 1 : 0);
  l->wgt_ident = wgt_avail;
  l->acc_half = bank;
  l->acc_bias = cfg->depth[VTA_MEM_ACC] - reserved_acc + head_nb;
  l->head_acc = l->acc_bias - head_nb;
  uint32_t acc_room = bank - reserved_acc; /* a tile, in either half */
  const char *what = NULL;
  uint64_t need = 0, have = 0;
  if (inp > inp_half) what = "input tile", need = inp, have = inp_half;
  else if (res > inp_half) what = "residual tile", need = res, have = inp_half;
  else if (wgt > wgt_half) what = "weight tile", need = wgt, have = wgt_half;
  else if (acc > acc_room) what = "accumulator tile", need = acc, have = acc_room;
  if (what)
    return vta_error_set(err, VTA_ERR_BOUNDS,
                         "tiling: the %s of plan %ux%u x %u/%u x %ux%u needs %llu entries, a "
                         "half buffer holds %llu",
                         what, p->ho_t, p->wo_t, p->co_t, p->ci_t, kh_n, kw_n,
                         (unsigned long long)need, (unsigned long long)have);
  /* Tile slots. The tiles a schedule cycles through (per spatial tile, or per output-channel
   * tile, depending on the order) stay resident when they fit beside the one being loaded;
   * then exactly that many slots are used. Otherwise every access misses anyway and two slots
   * suffice: fewer slots mean fewer kernel variants (kernels name absolute slots). */
  uint32_t n_co = ceil_div(g.cob, p->co_t), n_red = ceil_div(g.cib, p->ci_t) *
                                                      ceil_div(d->kh, kh_n) * ceil_div(d->kw, kw_n);
  uint64_t nsp = (uint64_t)g.ng * ceil_div(g.ho, p->ho_t) * ceil_div(g.wo, p->wo_t);
  uint64_t in_cycle = p->order == VTA_TILE_SPATIAL_OUTER ? n_red + (vta_conv_residual_gemm(d) ? 1 : 0)
                                                         : nsp * n_red;
  uint64_t w_cycle = p->order == VTA_TILE_SPATIAL_OUTER ? (uint64_t)n_co * n_red : n_red;
  l->inp_slot = (uint32_t)(inp > res ? inp : res);
  l->wgt_slot = (uint32_t)wgt;
  uint64_t in_fit = inp_avail / l->inp_slot, w_fit = wgt_avail / l->wgt_slot;
  if (in_fit > VTA_SCHED_MAX_SLOTS) in_fit = VTA_SCHED_MAX_SLOTS;
  if (w_fit > VTA_SCHED_MAX_SLOTS) w_fit = VTA_SCHED_MAX_SLOTS;
  /* (an input tile is only ever reused by another output-channel tile: with one, two slots,
   * and so fewer kernels) */
  l->inp_slots = n_co > 1 && in_cycle + 1 <= in_fit ? (uint32_t)(in_cycle + 1 > 2 ? in_cycle + 1 : 2)
                                                    : 2;
  l->wgt_slots = w_cycle + 1 <= w_fit ? (uint32_t)(w_cycle + 1 > 2 ? w_cycle + 1 : 2) : 2;
  l->inp_top = l->wgt_top = 0;
  if (d->kh == 1 && d->kw == 1) { /* from the top down (inp_base, wgt_base) */
    /* Every weight tile in a slot of its own when they all fit: each is then loaded into
     * entries nothing read before, so a chain runs the loads inside the previous layer's
     * stream (jit/chain.c), and a later output-channel tile's first steps do not wait for
     * its weights. */
    uint64_t all_w = (uint64_t)n_co * n_red;
    if (all_w + 1 <= w_fit && all_w + 1 > l->wgt_slots) l->wgt_slots = (uint32_t)(all_w + 1);
    l->inp_top = inp_avail;
    l->wgt_top = wgt_avail;
  }
  gemm_kind k = choose_kind(&g, p);
  uint64_t nu = gemm_uops(k, p->ho_t, p->co_t, p->ci_t, taps_n);
  uint32_t ulim = cfg->depth[VTA_MEM_UOP] / 4;
  if (nu > ulim)
    return vta_error_set(err, VTA_ERR_BOUNDS,
                         "tiling: a step's kernel needs %llu micro-ops, more than a quarter of "
                         "the micro-op buffer (%u)",
                         (unsigned long long)nu, ulim);
  if (P > 16383 || p->ho_t > 16383 || p->wo_t > 16383 || p->co_t > 16383)
    return vta_error_set(err, VTA_ERR_BOUNDS, "tiling: a loop extent exceeds 16383 (14 bits)");
  /* The first and the last tile of each dimension carry the padding: check their loads (a
   * part of the kernel never pads more than the whole). */
  uint32_t last_oh = (ceil_div(g.ho, p->ho_t) - 1) * p->ho_t;
  uint32_t last_ow = (ceil_div(g.wo, p->wo_t) - 1) * p->wo_t;
  uint32_t ohs[2] = {0, last_oh}, ows[2] = {0, last_ow};
  tapset all = {0, d->kh, 0, d->kw};
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 2; b++) {
      vta_prog_xfer x;
      int rc = input_xfer(&g, 0, ohs[a], min_u32(p->ho_t, g.ho - ohs[a]), ows[b],
                          min_u32(p->wo_t, g.wo - ows[b]), 0, &all, &x, err);
      if (rc) return rc;
    }
  return VTA_OK;
}

/* ---- Epilogue parameters ---- */

void vta_sched_epi_default(const vta_conv_desc *d, vta_tile_epilogue mode, vta_sched_epi *e) {
  memset(e, 0, sizeof *e);
  e->mode = mode;
  e->shift = d->shift + d->leaky_k;
  e->shift_vec = vta_conv_shift_vector(d);
  e->leaky_k = d->leaky_k;
  e->leaky_m = d->leaky_m;
  e->lo = d->relu && d->clip_lo < 0 ? 0 : d->clip_lo;
  e->hi = d->clip_hi;
  if (mode == VTA_EPI_OFFSET) {
    e->lo += 256;
    e->hi += 256;
  }
}

/* The offset epilogue: the accumulators start at B_c = bias_c + round_c + (C' << s_c) instead
 * of 0 (s_c the channel's shift, round_c its rounding), so after the shift every result is
 * raised by C' (a multiple of 256, invisible to the 8-bit narrowing of OUT), and is clipped to
 * [C' + lo, C' + hi]: the same immediates for every channel, per-channel shifts or not. An
 * accumulator that holds such a result is initialised for the next tile by one MAX against
 * B_c, provided B_c >= C' + hi for every channel: no reset and no ADD. It is exact when no
 * int32 sum overflows, with or without the offset (bounded by 128 * sum |w| per channel).
 * Returns the smallest C' / 256 that works, or 0 (use PLAIN). */
static int32_t offset_multiple(const vta_conv_desc *d, const int8_t *w, const int32_t *bias) {
  if (d->shift == 0 || d->shift > 22 || d->leaky_k) return 0; /* LeakyRelu: y * m scales C' */
  int32_t hi = d->clip_hi;
  uint64_t taps = (uint64_t)d->c * d->kh * d->kw;
  int64_t resmax = d->has_residual ? 128ll * (d->residual_mul < 0 ? -d->residual_mul
                                                                   : d->residual_mul)
                                   : 0;
  /* Over the channels of each shift (one with a uniform shift). */
  int64_t lo_need[32], hi_room[32];
  int used[32] = {0};
  for (uint32_t k = 0; k < d->k; k++) {
    uint32_t sk = d->shifts ? d->shifts[k] : d->shift;
    int64_t s = 0;
    for (uint64_t i = 0; i < taps; i++) {
      int v = w[k * taps + i];
      s += v < 0 ? -v : v;
    }
    int64_t round = sk ? 1ll << (sk - 1) : 0;
    int64_t amax = 128 * s + resmax, base = (d->has_bias ? bias[k] : 0) + round;
    if (base - amax < INT32_MIN || base + amax > INT32_MAX) return 0; /* the reference wraps */
    if (!used[sk]) {
      used[sk] = 1;
      lo_need[sk] = INT64_MIN;
      hi_room[sk] = INT64_MAX;
    }
    /* B = base + C must reach C' + hi, and B + amax must not overflow. */
    if (-base > lo_need[sk]) lo_need[sk] = -base;
    if (INT32_MAX - amax - base < hi_room[sk]) hi_room[sk] = INT32_MAX - amax - base;
  }
  for (int32_t m = 1; m <= 127; m++) {
    int ok = 1;
    for (uint32_t sk = 0; ok && sk < 32; sk++) {
      if (!used[sk]) continue;
      int64_t cp = 256ll * m, c = cp << sk;
      /* For every channel: base + c >= cp + hi  <=>  c - cp - hi >= -base. */
      ok = c - cp - hi >= lo_need[sk] && c <= hi_room[sk];
    }
    if (ok) return m;
  }
  return 0;
}

vta_tile_epilogue vta_conv_epilogue(const vta_conv_desc *d, const int8_t *w,
                                    const int32_t *bias) {
  if (offset_multiple(d, w, bias)) return VTA_EPI_OFFSET;
  int any = d->shift != 0 || d->leaky_k; /* a LeakyRelu's rounding row comes with the biases */
  for (uint32_t k = 0; !any && d->has_bias && k < d->k; k++) any = bias[k] != 0;
  return any ? VTA_EPI_RESET_ADD : VTA_EPI_RESET;
}

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
  GS_SUM,   /* G += T[p], p < P: one micro-op, the inner loop over the positions */
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
    k->loop[0] = (vta_prog_loop){key->co_n, 1, key->b == GS_SUM ? P : 0, 0}; /* ROUND: one value */
    k->loop[1] = (vta_prog_loop){key->b == GS_SUM ? P : 1, 0, key->b == GS_SUM ? 1 : 0, 0};
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
  output_xfer(&w->g, q->gi, q->oh0, q->ho_n, q->ow0, q->wo_n, q->co0, q->co_n, &o);
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
  uint32_t copyb = pu->accb + w->p->co_t * w->p->ho_t * w->p->wo_t;
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
  x.sram = pu->accb + pool_compact_at(w->p);
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
    x.sram = pu->accb + pool_compact_at(w->p);
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
  uint32_t T = pu->accb, C = T + pool_compact_at(w->p), K = pu->carryb;
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
  uint32_t P = q->ho_n * q->wo_n, G = pu->accb + pool_compact_at(w->p), kk = gap_shift(P);
  vta_alu_op op = i == GS_CLEAR || i == GS_MUL ? VTA_ALU_MUL : i == GS_SHR ? VTA_ALU_SHR : VTA_ALU_ADD;
  uint32_t src = i == GS_SUM ? pu->accb : i == GS_ROUND ? pu->gapb : 0;
  int32_t imm = i == GS_MUL ? (int32_t)(((1ull << kk) + P - 1) / P) : i == GS_SHR ? (int32_t)kk : 0;
  *k = key_of(KK_GAP, op, G, (uint32_t)i, src, q->ho_n, q->wo_n, q->co_n, 0, NULL, imm);
  *cost = (uint64_t)q->co_n * (i == GS_SUM ? P : 1);
}

/* The epilogue of a unit with an add after it (post_add), in steps emitted a few at a time
 * beside the next unit's GEMMs (so that the compute module, which starts instructions in
 * order, never holds a GEMM behind more ALU work than the GEMM before it lasts):
 *   0 the clip (SHRCLIP, or MAX and MIN): the slot holds y + C' (the offset epilogue's C');
 *   1 the operand r, by LOAD ACC_8BIT into the entries after the slot's tile (it holds every
 *     later instruction until it is done, so it goes right after a GEMM instruction);
 *   2 r * mb;  3 + (2^(s-1) - C' * ma), a vector row loaded with the biases;
 *   4 (y + C') * ma;  5 + the operand;  6 SHRCLIP by s into [lo, hi] (a second row: s, hi).
 * The sum is y * ma + r * mb + 2^(s-1) modulo 2^32, which is its value (it fits), so the SHR
 * sees the CPU's sum. Emits the steps from pu->next whose cycles fit `budget` (all of them
 * when `all`), then the store (*done). */
static int post_chunk(walker *w, pending_unit *pu, uint64_t budget, int all, uint64_t U,
                      int *done, vta_error *err) {
  const vta_sched_epi *e = w->e;
  const unit_pos *q = &pu->q;
  const vta_conv_desc *d = w->g.d;
  const int n = 7;
  int rc = VTA_OK;
  uint64_t elems = (uint64_t)q->ho_n * q->wo_n * q->co_n, used = 0;
  uint64_t bus = w->g.cfg->bus_bytes ? w->g.cfg->bus_bytes : 8;
  uint32_t copyb = pu->accb + w->p->co_t * w->p->ho_t * w->p->wo_t;
  *done = 0;
  /* A max pooling or a classifier's average: the clip, then its steps. */
  int tail = d->post_pool ? PS_COUNT : d->head_n ? GS_COUNT : 0;
  while (!rc && tail && pu->next < 1 + tail) {
    kkey k;
    uint64_t cost = (e->shift_vec ? 1 : 2) * elems;
    int go = pu->next > 0;
    if (go && d->post_pool) go = pool_key(w, pu, pu->next - 1, &k, &cost);
    else if (go) gap_key(w, pu, pu->next - 1, &k, &cost);
    if (!all && used + cost > budget) break;
    used += cost;
    /* The pooled tile is rewritten from PS_CLEAR on: the store of the unit that used this slot
     * before must be done (its store->compute token; the GEMMs into the tile did not wait). */
    if (d->post_pool && pu->next == 1 + PS_CLEAR && pu->u >= w->nslots)
      rc = w->s->dep(w->s->ctx, 0, S_, C_, err);
    if (!rc) rc = pu->next == 0 ? clip_step(w, pu, err) : go ? run(w, &k, err) : VTA_OK;
    pu->next++;
  }
  if (!rc && tail && pu->next == 1 + tail) {
    rc = unit_store(w, pu, U, err);
    *done = 1;
    return rc;
  }
  while (!rc && !tail && pu->next < n) {
    int i = pu->next;
    uint64_t cost = i == 0 ? (e->shift_vec ? 1 : 2) * elems
                  : i == 1 ? elems * w->g.cfg->elem_bytes[VTA_MEM_ACC_8BIT] / bus + 64
                  : (i == 2 && d->add_mb == 1) || (i == 4 && d->add_ma == 1) ? 0 : elems;
    if (!all && used + cost > budget) break;
    used += cost;
    kkey k;
    int go = 1;
    switch (i) {
      case 0:
        rc = clip_step(w, pu, err);
        go = 0;
        break;
      case 1:
        rc = tile_xfers(w, q, VTA_MEM_ACC_8BIT, VTA_PROG_BUF_INPUT2, copyb, 0, err);
        go = 0;
        break;
      case 2:
        k = key_of(KK_IMM, VTA_ALU_MUL, copyb, 0, 0, q->ho_n, q->wo_n, q->co_n, 0, NULL, d->add_mb);
        go = d->add_mb != 1;
        break;
      case 3:
        k = key_of(KK_BIAS, VTA_ALU_ADD, copyb, 0, pu->addcb, q->ho_n, q->wo_n, q->co_n, 0, NULL, 0);
        break;
      case 4:
        k = key_of(KK_IMM, VTA_ALU_MUL, pu->accb, 0, 0, q->ho_n, q->wo_n, q->co_n, 0, NULL, d->add_ma);
        go = d->add_ma != 1;
        break;
      case 5:
        k = key_of(KK_COPY, VTA_ALU_ADD, pu->accb, 0, copyb, q->ho_n, q->wo_n, q->co_n, 0, NULL, 0);
        break;
      default:
        k = key_of(KK_BIAS, VTA_ALU_SHRCLIP, pu->accb, 0, pu->addsb, q->ho_n, q->wo_n, q->co_n, 0,
                   NULL, d->add_lo);
        break;
    }
    if (!rc && go) rc = run(w, &k, err);
    pu->next++;
  }
  if (!rc && !tail && pu->next == n) {
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
        rc = input_xfer(&w->g, q.gi, q.oh0, q.ho_n, q.ow0, q.wo_n, ci0, &tp, &in0, err);
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
        carryb = acc_slot_base(l, nslots, ah) + pool_carry_at(&w->g, p, owi * n_co + q.coi);
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
  w.nslots = acc_slots(&w.g, p, w.l.acc_half - w.l.bias_entries - w.l.shift_entries);
  rc = walk(&w, err);
  free(w.keys);
  free(w.ids);
  free(w.uops);
  return rc;
}

/* ---- Emission: the program sink ---- */

static int ps_kernel(void *ctx, const vta_prog_kernel *k, uint32_t *id, vta_error *err) {
  return vta_program_add_kernel(ctx, k, id, err);
}
static int ps_load(void *ctx, const vta_prog_xfer *x, vta_error *err) {
  return vta_program_add_load(ctx, x, err);
}
static int ps_store(void *ctx, const vta_prog_xfer *x, vta_error *err) {
  return vta_program_add_store(ctx, x, err);
}
static int ps_run(void *ctx, uint32_t id, vta_error *err) {
  return vta_program_add_run(ctx, id, err);
}
static int ps_dep(void *ctx, int push, vta_jit_stage from, vta_jit_stage to, vta_error *err) {
  return push ? vta_program_add_push(ctx, from, to, err) : vta_program_add_pop(ctx, from, to, err);
}
static int ps_sync(void *ctx, vta_error *err) { return vta_program_add_sync(ctx, err); }

void vta_lowered_free(vta_lowered *l) {
  if (!l) return;
  vta_program_destroy(l->prog);
  free(l->weight);
  free(l->bias);
  memset(l, 0, sizeof *l);
}

int vta_lower_conv2d(const vta_config *cfg, const vta_conv_desc *d, const int8_t *w,
                     const int32_t *bias, const vta_tile_plan *plan, vta_lowered *out,
                     vta_error *err) {
  memset(out, 0, sizeof *out);
  int rc = vta_conv_check(cfg, d, err);
  if (rc) return rc;
  if (!w || (d->has_bias && !bias))
    return vta_error_set(err, VTA_ERR_INVALID, "lowering: weights or bias missing");
  geom g;
  geom_init(&g, cfg, d);
  /* The epilogue and the constants it implies. */
  int32_t m = offset_multiple(d, w, bias);
  vta_sched_epi e;
  vta_sched_epi_default(d, vta_conv_epilogue(d, w, bias), &e);
  /* With a LeakyRelu the rounding comes after it, in a row of its own (e.shift includes k). */
  int64_t cp = 256ll * m, add = d->leaky_k ? 0 : (d->shift ? 1ll << (d->shift - 1) : 0) + (cp << d->shift);
  e.lo = (int32_t)(cp + (d->relu && d->clip_lo < 0 ? 0 : d->clip_lo));
  e.hi = (int32_t)(cp + d->clip_hi);
  out->epilogue = e.mode;
  if (plan) {
    vta_tile_model model;
    vta_tile_model_default(cfg, &model);
    out->choice.plan = *plan;
    rc = vta_tile_predict(cfg, &model, d, e.mode, plan, &out->choice.cost, err);
    out->choice.macs = (uint64_t)d->n * vta_conv_out_h(d) * vta_conv_out_w(d) * d->k * d->c *
                       d->kh * d->kw;
    out->choice.compute_bound = out->choice.macs / cfg->macs_per_cycle;
  } else {
    rc = vta_tile_choose(cfg, NULL, d, e.mode, &out->choice, err);
  }
  if (rc) return rc;
  /* Constants: weights (+ the residual's diagonal), biases with rounding and offset. Over
   * im2col patches the OIHW weights are the same bytes read as [K][C*KH*KW][1][1]. */
  vta_conv_desc tmp;
  const vta_conv_desc *de = effective(d, &out->choice.plan, &tmp);
  uint64_t wbytes = vta_pack_wgt_bytes(cfg, de->k, de->c, de->kh, de->kw);
  uint32_t welem = cfg->elem_bytes[VTA_MEM_WGT];
  /* A classifier head's weights follow the layer's (and the residual's diagonal), its biases
   * the vector rows. */
  uint32_t head_nb = d->head_n ? ceil_div(d->head_n, cfg->block_out) : 0;
  uint64_t head_wbytes = d->head_n ? vta_pack_wgt_bytes(cfg, d->head_n, d->k, 1, 1) : 0;
  out->weight_bytes = (size_t)wbytes + (vta_conv_residual_gemm(d) ? welem : 0) + (size_t)head_wbytes;
  size_t vec_bytes = (size_t)g.cob * cfg->elem_bytes[VTA_MEM_ACC];
  out->bias_bytes = vec_bytes * vta_conv_vector_rows(d) + /* biases, shifts, roundings */
                    (size_t)head_nb * cfg->elem_bytes[VTA_MEM_ACC];
  out->weight = calloc(1, out->weight_bytes);
  out->bias = malloc(out->bias_bytes);
  int32_t *bv = malloc((d->k > d->head_n ? d->k : d->head_n) * sizeof *bv);
  if (!out->weight || !out->bias || !bv) {
    free(bv);
    vta_lowered_free(out);
    return vta_error_set(err, VTA_ERR_NOMEM, "lowering: out of memory for the constants");
  }
  vta_pack_wgt(cfg, w, de->k, de->c, de->kh, de->kw, (int8_t *)out->weight);
  if (vta_conv_residual_gemm(d))
    for (uint32_t i = 0; i < cfg->block_out; i++)
      out->weight[wbytes + (size_t)i * cfg->block_in + i] = (uint8_t)(int8_t)d->residual_mul;
  if (d->head_n)
    vta_pack_wgt(cfg, d->head_w, d->head_n, d->k, 1, 1,
                 (int8_t *)out->weight + wbytes + (vta_conv_residual_gemm(d) ? welem : 0));
  for (uint32_t k = 0; k < d->k; k++) {
    int64_t a = add; /* per-channel shifts: that channel's rounding and offset */
    if (d->shifts && e.shift_vec && !d->leaky_k)
      a = (d->shifts[k] ? 1ll << (d->shifts[k] - 1) : 0) + (cp << d->shifts[k]);
    bv[k] = (int32_t)(uint32_t)((uint64_t)(d->has_bias ? (int64_t)bias[k] : 0) + (uint64_t)a);
  }
  vta_pack_bias(cfg, bv, d->k, d->shifts && e.shift_vec ? 0 : (int32_t)add, out->bias);
  uint8_t *row = out->bias + vec_bytes;
  if (e.shift_vec) { /* SHRCLIP's operand: the upper bound over the shift */
    uint32_t hi = (uint32_t)(uint16_t)(int16_t)e.hi << 16;
    for (uint32_t k = 0; k < d->k; k++)
      bv[k] = (int32_t)(hi | (uint32_t)((d->shifts ? d->shifts[k] : d->shift) + d->leaky_k));
    vta_pack_bias(cfg, bv, d->k, (int32_t)(hi | (d->shift + d->leaky_k)), row);
    row += vec_bytes;
  }
  if (d->leaky_k) { /* channel k's rounding 2^(s_k + k - 1), after the LeakyRelu */
    for (uint32_t k = 0; k < d->k; k++)
      bv[k] = (int32_t)(1u << ((d->shifts ? d->shifts[k] : d->shift) + d->leaky_k - 1));
    vta_pack_bias(cfg, bv, d->k, 0, row);
    row += vec_bytes;
  }
  if (d->post_add) { /* the add's constant 2^(s-1) - C' * ma, then SHRCLIP's operand (s, hi) */
    int64_t rnd = d->add_shift ? 1ll << (d->add_shift - 1) : 0;
    int32_t c = (int32_t)(uint32_t)(uint64_t)(rnd - cp * d->add_ma);
    for (uint32_t k = 0; k < d->k; k++) bv[k] = c;
    vta_pack_bias(cfg, bv, d->k, c, row);
    row += vec_bytes;
    int32_t sv = (int32_t)(((uint32_t)(uint16_t)(int16_t)d->add_hi << 16) | d->add_shift);
    for (uint32_t k = 0; k < d->k; k++) bv[k] = sv;
    vta_pack_bias(cfg, bv, d->k, sv, row);
  }
  if (d->head_n) { /* the average's P/2 - P C' (gap_step), then the head's biases and rounding */
    int64_t P = (int64_t)vta_conv_out_h(d) * vta_conv_out_w(d);
    int32_t c = (int32_t)(uint32_t)(uint64_t)(P / 2 - P * cp);
    for (uint32_t k = 0; k < d->k; k++) bv[k] = c;
    vta_pack_bias(cfg, bv, d->k, c, row);
    row += vec_bytes;
    int64_t r = d->head_shift ? 1ll << (d->head_shift - 1) : 0;
    for (uint32_t j = 0; j < d->head_n; j++)
      bv[j] = (int32_t)(uint32_t)(uint64_t)((d->head_bias ? d->head_bias[j] : 0) + r);
    vta_pack_bias(cfg, bv, d->head_n, (int32_t)r, row);
  }
  free(bv);
  out->input_bytes = vta_layout_act_bytes(cfg, de->n, de->c, de->h, de->w, cfg->block_in);
  out->output_bytes =
      vta_layout_act_bytes(cfg, d->n, d->k, vta_conv_final_h(d), vta_conv_final_w(d), cfg->block_out);
  if (d->head_n) /* the head's outputs (dense layout), then the averages */
    out->output_bytes = (size_t)(head_nb + g.cob) * cfg->elem_bytes[VTA_MEM_OUT];
  out->input2_bytes = d->has_residual || d->post_add /* shaped like the layer's own output */
                         ? vta_layout_act_bytes(cfg, d->n, d->k, vta_conv_out_h(d),
                                                vta_conv_out_w(d), cfg->block_out)
                         : 0;
  /* The program. */
  rc = vta_program_create(cfg, &out->prog, err);
  if (rc == VTA_OK) {
    vta_sched_sink sink = {.ctx = out->prog, .wants_uops = 1, .kernel = ps_kernel,
                           .load = ps_load, .store = ps_store, .run = ps_run, .dep = ps_dep,
                           .sync = ps_sync};
    rc = vta_sched_walk(cfg, d, &e, &out->choice.plan, &sink, err);
  }
  if (rc == VTA_OK) {
    /* Buffers are declared at their full tensor sizes (a tile may not touch the last bytes). */
    vta_program_need_buffer(out->prog, VTA_PROG_BUF_INPUT, out->input_bytes);
    vta_program_need_buffer(out->prog, VTA_PROG_BUF_OUTPUT, out->output_bytes);
    vta_program_need_buffer(out->prog, VTA_PROG_BUF_WEIGHT, out->weight_bytes);
    vta_program_need_buffer(out->prog, VTA_PROG_BUF_BIAS, out->bias_bytes);
    if (d->has_residual || d->post_add)
      vta_program_need_buffer(out->prog, VTA_PROG_BUF_INPUT2, out->input2_bytes);
    rc = vta_program_check(out->prog, err);
  }
  if (rc) vta_lowered_free(out);
  return rc;
}

void vta_lowered_pack_input(const vta_config *cfg, const vta_conv_desc *d, const vta_lowered *low,
                            const int8_t *x, int8_t *dst) {
  if (low->choice.plan.im2col)
    vta_pack_im2col(cfg, d, x, dst);
  else
    vta_layout_pack_act(cfg, x, d->n, d->c, d->h, d->w, cfg->block_in, dst);
}

int vta_lower_dense(const vta_config *cfg, const vta_dense_desc *d, const int8_t *w,
                    const int32_t *bias, const vta_tile_plan *plan, vta_lowered *out,
                    vta_error *err) {
  if (!d->m || !d->k || !d->n)
    return vta_error_set(err, VTA_ERR_INVALID, "lowering: dense %ux%u by %u: sizes must be >= 1",
                         d->m, d->k, d->n);
  vta_conv_desc c;
  vta_dense_as_conv(cfg, d, &c);
  return vta_lower_conv2d(cfg, &c, w, bias, plan, out, err);
}
