/* vta_conv.c - a conv2d or dense layer on the accelerator: its geometry and checks, the tile
 * transfers and on-chip layout of a plan (vta_sched_layout_of), the epilogue's constants, and
 * the lowering that packs the constants and has the schedule walk (vta_walk.c) emit the
 * program. The schedule itself is described at the top of vta_walk.c.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/accel/vta_sched.h"

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


/* ---- Tile transfers ---- */


int vta_sched_input_xfer(const geom *g, uint32_t gi, uint32_t oh0, uint32_t ho_n, uint32_t ow0,
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


void vta_sched_output_xfer(const geom *g, uint32_t gi, uint32_t oh0, uint32_t ho_n, uint32_t ow0,
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


/* ACC slots: units take them in turn, and consecutive units use different banks (slot s is in
 * bank s % 2), so the epilogue of one unit runs on the ALU while the next unit's GEMMs run. A
 * unit holds its slot from its initialisation to the end of its store. With two slots the
 * next-but-one unit waits for that unless one unit's GEMMs outlast the other's epilogue, store
 * and next initialisation; when a unit's reduction is shorter than that (G GEMM micro-ops per
 * output against the ALU operations and store beats per output) and two tiles fit in a bank,
 * there are four slots, so three units' GEMMs cover it. (Not always four: every slot multiplies
 * the kernels, each a LOAD UOP and a footprint record in hardware.) */
uint32_t vta_sched_acc_slots(const geom *g, const vta_tile_plan *p, uint32_t room) {
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
    acc = cols > 1 ? pool_cc_at(&g, p, tiles) : pool_carry_at(p, tiles * cols);
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
      int rc = vta_sched_input_xfer(&g, 0, ohs[a], min_u32(p->ho_t, g.ho - ohs[a]), ows[b],
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
