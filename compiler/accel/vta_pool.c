/* vta_pool.c - int8 max pooling on the accelerator: the ALU's MAX over the window's taps.
 *
 * The design idea: the ALU only reads and writes the int32 accumulators, and the activations
 * arrive as int8 in INP. So each tile of input rows is loaded into INP (the load's zero padding
 * is the pooling's padding: the input is never negative), copied into an ACC region by one
 * GEMM micro-op per input entry against an identity weight tile (after a reset of the region),
 * and the output tile - reset to 0 - takes one ALU MAX instruction over its outputs and the
 * window's taps: its micro-ops are a row of outputs for each column of the window (kw x cn),
 * its loops the output rows and the window's rows (the input region advancing by the strides),
 * so consecutive micro-ops write different outputs (the ALU stalls a micro-op that reads the
 * output the one just before it wrote; docs/hw.md, "Compute pipeline"); a tile one output
 * wide takes a column of outputs per row of the window instead, and a single output the taps
 * as micro-ops (the stall then costs a cycle a tap). The output is stored from OUT, which the
 * ALU's results
 * narrow into. Tiles (rows by columns of outputs, the most that fit half of ACC and of INP)
 * alternate between the two ACC banks and two INP slots (two virtual
 * threads with the usual tokens), so the next tile's copy (GEMM unit) runs beside this tile's
 * MAX (ALU) and its load beside both. Per output row of a 3x3/2 pooling: the copy's two GEMM
 * micro-ops per input entry (four input entries per output) against nine ALU micro-ops - the
 * ALU bounds it, at 9 cycles per output entry of BATCH x BLOCK values.
 */
#include "compiler/accel/vta_pool.h"

#include <stdlib.h>
#include <string.h>

static uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

uint32_t vta_pool_out_h(const vta_pool_desc *d) {
  uint32_t h = d->h + d->pad_top + d->pad_bottom;
  return d->stride_h && h >= d->kh ? (h - d->kh) / d->stride_h + 1 : 0;
}

uint32_t vta_pool_out_w(const vta_pool_desc *d) {
  uint32_t w = d->w + d->pad_left + d->pad_right;
  return d->stride_w && w >= d->kw ? (w - d->kw) / d->stride_w + 1 : 0;
}

/* Input rows (or columns) a tile of r output rows (columns) reads. */
static uint32_t span(uint32_t r, uint32_t stride, uint32_t k) { return (r - 1) * stride + k; }

/* Tile shapes: r output rows by q output columns whose input (span x span entries) and output
 * fit half of ACC and whose input fits half of INP, ranked by an estimate: the busier of the
 * GEMM unit (two micro-ops per input entry: reset and copy, one per output: reset) and the ALU
 * (a micro-op per tap and output), plus a fixed cost per tile (its instructions and the
 * pipeline's hand-overs; halos make narrow tiles read more). The best n (at most max) go to
 * r[], q[], best first; returns n. */
#define POOL_SHAPES 8
static size_t tile_shapes(const vta_config *cfg, const vta_pool_desc *d, uint32_t *r, uint32_t *q,
                          size_t max) {
  uint32_t acc_half = cfg->depth[VTA_MEM_ACC] / 2, inp_half = cfg->depth[VTA_MEM_INP] / 2;
  uint32_t ho = vta_pool_out_h(d), wo = vta_pool_out_w(d);
  uint64_t est[POOL_SHAPES];
  size_t n = 0;
  if (max > POOL_SHAPES) max = POOL_SHAPES;
  for (uint32_t c = wo; c >= 1; c--) {
    uint64_t cols = span(c, d->stride_w, d->kw), nc = (wo + c - 1) / c;
    for (uint32_t k = 1; k <= ho; k++) {
      uint64_t a = span(k, d->stride_h, d->kh) * cols;
      if (a + (uint64_t)k * c > acc_half || a > inp_half) break;
      uint64_t tiles = nc * ((ho + k - 1) / k), gemm = tiles * (2 * a + (uint64_t)k * c);
      uint64_t alu = ((uint64_t)d->kh * d->kw + (d->negative ? 1 : 0)) * ho * wo, cost = (gemm > alu ? gemm : alu) + 64 * tiles;
      /* Insert in order (a later shape goes after an equal one). */
      size_t at = n;
      while (at > 0 && est[at - 1] > cost) at--;
      if (at >= max) continue;
      if (n < max) n++;
      for (size_t i = n - 1; i > at; i--) est[i] = est[i - 1], r[i] = r[i - 1], q[i] = q[i - 1];
      est[at] = cost, r[at] = k, q[at] = c;
    }
  }
  return n;
}

int vta_pool_check(const vta_config *cfg, const vta_pool_desc *d, vta_error *err) {
  if (!d->n || !d->c || !d->h || !d->w || !d->kh || !d->kw || !d->stride_h || !d->stride_w)
    return vta_error_set(err, VTA_ERR_INVALID, "max pooling: a size or stride is 0");
  if (d->n > 65535 || d->c > 65535 || d->h > 65535 || d->w > 65535)
    return vta_error_set(err, VTA_ERR_UNSUPPORTED, "max pooling: a size above 65535");
  if (d->pad_top > 15 || d->pad_left > 15 || d->pad_bottom > 15 || d->pad_right > 15)
    return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                         "max pooling: pads %u,%u,%u,%u; a load pads at most 15", d->pad_top,
                         d->pad_left, d->pad_bottom, d->pad_right);
  if (d->pad_top >= d->kh || d->pad_bottom >= d->kh || d->pad_left >= d->kw || d->pad_right >= d->kw)
    return vta_error_set(err, VTA_ERR_UNSUPPORTED, "max pooling: a window would lie in the padding "
                         "(pads %u,%u,%u,%u, kernel %ux%u)", d->pad_top, d->pad_left, d->pad_bottom,
                         d->pad_right, d->kh, d->kw);
  if (d->negative && (d->pad_top || d->pad_left || d->pad_bottom || d->pad_right))
    return vta_error_set(err, VTA_ERR_UNSUPPORTED, "max pooling: an input that may be negative and "
                         "pads %u,%u,%u,%u (a load pads with 0, not with the smallest value)",
                         d->pad_top, d->pad_left, d->pad_bottom, d->pad_right);
  if (!vta_pool_out_h(d) || !vta_pool_out_w(d))
    return vta_error_set(err, VTA_ERR_INVALID, "max pooling: the %ux%u window does not fit the padded "
                         "%ux%u input", d->kh, d->kw, d->h + d->pad_top + d->pad_bottom,
                         d->w + d->pad_left + d->pad_right);
  if (cfg->block_in != cfg->block_out)
    return vta_error_set(err, VTA_ERR_UNSUPPORTED, "max pooling copies INP into ACC through an "
                         "identity weight tile: it needs BLOCK_IN = BLOCK_OUT (here %u and %u)",
                         cfg->block_in, cfg->block_out);
  uint32_t r, q;
  if (!tile_shapes(cfg, d, &r, &q, 1))
    return vta_error_set(err, VTA_ERR_BOUNDS, "max pooling: one output (a %ux%u window) does not fit "
                         "half of ACC (%u entries) or of INP (%u)", d->kh, d->kw,
                         cfg->depth[VTA_MEM_ACC] / 2, cfg->depth[VTA_MEM_INP] / 2);
  if ((uint64_t)d->kh * d->kw > cfg->depth[VTA_MEM_UOP] / 4)
    return vta_error_set(err, VTA_ERR_BOUNDS, "max pooling: a %ux%u window needs more micro-ops than "
                         "a quarter of the micro-op buffer (%u)", d->kh, d->kw, cfg->depth[VTA_MEM_UOP]);
  return VTA_OK;
}

typedef struct builder {
  vta_program *p;
  vta_error *err;
  int rc;
} builder;

static void kernel(builder *b, const vta_prog_kernel *k, uint32_t *id) {
  if (!b->rc) b->rc = vta_program_add_kernel(b->p, k, id, b->err);
}
static void run(builder *b, uint32_t id) {
  if (!b->rc) b->rc = vta_program_add_run(b->p, id, b->err);
}
static void dep(builder *b, int push, vta_jit_stage from, vta_jit_stage to) {
  if (!b->rc) b->rc = push ? vta_program_add_push(b->p, from, to, b->err) : vta_program_add_pop(b->p, from, to, b->err);
}

/* The program for tiles of R x Q outputs, with the cost model's prediction. */
static int lower_shape(const vta_config *cfg, const vta_pool_desc *d, uint32_t R, uint32_t Q,
                       vta_lowered *out, vta_error *err) {
  memset(out, 0, sizeof *out);
  int rc;
  const vta_jit_stage L = VTA_JIT_STAGE_LOAD, C = VTA_JIT_STAGE_COMPUTE, S = VTA_JIT_STAGE_STORE;
  uint32_t ho = vta_pool_out_h(d), wo = vta_pool_out_w(d);
  uint32_t cb = ceil_div(d->c, cfg->block_in), nb = ceil_div(d->n, cfg->batch);
  uint32_t ntr = ceil_div(ho, R), ntc = ceil_div(wo, Q);
  uint32_t acc_half = cfg->depth[VTA_MEM_ACC] / 2, inp_half = cfg->depth[VTA_MEM_INP] / 2;
  uint32_t a_max = span(R, d->stride_h, d->kh) * span(Q, d->stride_w, d->kw);
  out->input_bytes = vta_layout_act_bytes(cfg, d->n, d->c, d->h, d->w, cfg->block_in);
  out->output_bytes = vta_layout_act_bytes(cfg, d->n, d->c, ho, wo, cfg->block_out);
  /* The identity weight tile, [BLOCK_OUT][BLOCK_IN]. */
  out->weight_bytes = cfg->elem_bytes[VTA_MEM_WGT];
  out->weight = calloc(1, out->weight_bytes);
  if (!out->weight) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  for (uint32_t i = 0; i < cfg->block_out; i++) out->weight[(size_t)i * cfg->block_in + i] = 1;
  out->epilogue = VTA_EPI_RESET;
  rc = vta_program_create(cfg, &out->prog, err);
  if (rc) {
    vta_lowered_free(out);
    return rc;
  }
  builder b = {out->prog, err, 0};
  vta_program_need_buffer(out->prog, VTA_PROG_BUF_INPUT, out->input_bytes);
  vta_program_need_buffer(out->prog, VTA_PROG_BUF_OUTPUT, out->output_bytes);
  vta_program_need_buffer(out->prog, VTA_PROG_BUF_WEIGHT, out->weight_bytes);
  vta_prog_xfer x = {.type = VTA_MEM_WGT, .buf = VTA_PROG_BUF_WEIGHT, .sram = 0, .offset = 0,
                     .x_size = 1, .y_size = 1, .x_stride = 1};
  if (!b.rc) b.rc = vta_program_add_load(out->prog, &x, err);
  uint64_t T = (uint64_t)nb * cb * ntr * ntc, t = 0;
  /* The MAX's micro-ops: at most a quarter of the micro-op buffer (vta_pool_check keeps the
   * window's taps within it). */
  uint32_t ulimit = cfg->depth[VTA_MEM_UOP] / 4;
  if (ulimit < d->kh * d->kw) ulimit = d->kh * d->kw;
  vta_uop *taps = calloc(ulimit, sizeof *taps);
  if (!taps) {
    vta_lowered_free(out);
    return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  }
  for (uint32_t n = 0; n < nb && !b.rc; n++)
    for (uint32_t c = 0; c < cb && !b.rc; c++)
      for (uint32_t tr = 0; tr < ntr && !b.rc; tr++)
        for (uint32_t tc = 0; tc < ntc && !b.rc; tc++, t++) {
          uint32_t half = (uint32_t)(t & 1), r0 = tr * R, rn = ho - r0 < R ? ho - r0 : R;
          uint32_t c0 = tc * Q, cn = wo - c0 < Q ? wo - c0 : Q;
          uint32_t rows = span(rn, d->stride_h, d->kh), cols = span(cn, d->stride_w, d->kw);
          uint32_t ab = half * acc_half, ob = ab + a_max, ib = half * inp_half;
          int64_t y0 = (int64_t)r0 * d->stride_h - d->pad_top, y1 = y0 + rows - 1;
          int64_t x0 = (int64_t)c0 * d->stride_w - d->pad_left, x1 = x0 + cols - 1;
          uint32_t pb = y0 < 0 ? (uint32_t)-y0 : 0, pa = y1 > (int64_t)d->h - 1 ? (uint32_t)(y1 - (d->h - 1)) : 0;
          uint32_t qb = x0 < 0 ? (uint32_t)-x0 : 0, qa = x1 > (int64_t)d->w - 1 ? (uint32_t)(x1 - (d->w - 1)) : 0;
          /* ---- load: the tile's input, padded ---- */
          if (t >= 2) dep(&b, 0, C, L);
          x = (vta_prog_xfer){.type = VTA_MEM_INP, .buf = VTA_PROG_BUF_INPUT, .sram = ib,
                              .offset = (((uint64_t)n * cb + c) * d->h + (uint64_t)(y0 + pb)) * d->w +
                                        (uint64_t)(x0 + qb),
                              .x_size = cols - qb - qa, .y_size = rows - pb - pa, .x_stride = d->w,
                              .y_pad_before = pb, .y_pad_after = pa, .x_pad_before = qb,
                              .x_pad_after = qa};
          if (!b.rc) b.rc = vta_program_add_load(out->prog, &x, err);
          dep(&b, 1, L, C);
          /* ---- compute: copy into ACC, reset the outputs, MAX over the taps ---- */
          dep(&b, 0, L, C);
          if (t >= 2) dep(&b, 0, S, C);
          uint32_t ka, kc, ko, km;
          vta_uop ua = {ab, 0, 0}, uc = {ab, ib, 0}, uo = {ob, 0, 0};
          vta_prog_kernel k = {.mode = VTA_JIT_GEMM, .reset = 1, .nloops = 2,
                               .loop = {{rows, cols, 0, 0}, {cols, 1, 0, 0}}, .nuops = 1, .uops = &ua};
          kernel(&b, &k, &ka);
          k = (vta_prog_kernel){.mode = VTA_JIT_GEMM, .reset = 0, .nloops = 2,
                                .loop = {{rows, cols, cols, 0}, {cols, 1, 1, 0}}, .nuops = 1, .uops = &uc};
          kernel(&b, &k, &kc);
          k = (vta_prog_kernel){.mode = VTA_JIT_GEMM, .reset = 1, .nloops = 2,
                                .loop = {{rn, cn, 0, 0}, {cn, 1, 0, 0}}, .nuops = 1, .uops = &uo};
          kernel(&b, &k, &ko);
          uint32_t kn = 0; /* negative inputs: the outputs start at -128 */
          k = (vta_prog_kernel){.mode = VTA_JIT_ALU, .alu_op = VTA_ALU_MIN, .use_imm = 1, .imm = -128,
                                .nloops = 2, .loop = {{rn, cn, 0, 0}, {cn, 1, 0, 0}}, .nuops = 1,
                                .uops = &uo};
          if (d->negative) kernel(&b, &k, &kn);
          uint32_t nu = 0;
          k = (vta_prog_kernel){.mode = VTA_JIT_ALU, .alu_op = VTA_ALU_MAX, .use_imm = 0, .nloops = 2};
          if (cn >= 2 && (uint64_t)cn * d->kw <= ulimit) {
            /* a row of outputs per window column; loops: output rows, window rows */
            for (uint32_t j = 0; j < d->kw; j++)
              for (uint32_t c = 0; c < cn; c++)
                taps[nu++] = (vta_uop){ob + c, ab + j + c * d->stride_w, 0};
            k.loop[0] = (vta_prog_loop){rn, cn, d->stride_h * cols, 0};
            k.loop[1] = (vta_prog_loop){d->kh, 0, cols, 0};
          } else if (rn >= 2 && (uint64_t)rn * d->kh <= ulimit) {
            /* a column of outputs per window row; loops: output columns, window columns */
            for (uint32_t i = 0; i < d->kh; i++)
              for (uint32_t r = 0; r < rn; r++)
                taps[nu++] = (vta_uop){ob + r * cn, ab + i * cols + r * d->stride_h * cols, 0};
            k.loop[0] = (vta_prog_loop){cn, 1, d->stride_w, 0};
            k.loop[1] = (vta_prog_loop){d->kw, 0, 1, 0};
          } else {
            /* the window's taps; loops: output rows, columns */
            for (uint32_t i = 0; i < d->kh; i++)
              for (uint32_t j = 0; j < d->kw; j++) taps[nu++] = (vta_uop){ob, ab + i * cols + j, 0};
            k.loop[0] = (vta_prog_loop){rn, cn, d->stride_h * cols, 0};
            k.loop[1] = (vta_prog_loop){cn, 1, d->stride_w, 0};
          }
          k.nuops = nu;
          k.uops = taps;
          kernel(&b, &k, &km);
          run(&b, ka);
          run(&b, kc);
          if (t + 2 < T) dep(&b, 1, C, L);
          run(&b, ko);
          if (d->negative) run(&b, kn);
          run(&b, km);
          dep(&b, 1, C, S);
          /* ---- store: the output rows ---- */
          dep(&b, 0, C, S);
          x = (vta_prog_xfer){.type = VTA_MEM_OUT, .buf = VTA_PROG_BUF_OUTPUT, .sram = ob,
                              .offset = (((uint64_t)n * cb + c) * ho + r0) * wo + c0, .x_size = cn,
                              .y_size = rn, .x_stride = wo};
          if (!b.rc) b.rc = vta_program_add_store(out->prog, &x, err);
          if (t + 2 < T) dep(&b, 1, S, C);
        }
  free(taps);
  if (!b.rc) b.rc = vta_program_add_sync(out->prog, err);
  if (b.rc) {
    vta_error_prefix(err, "lowering max pooling");
    vta_lowered_free(out);
    return b.rc;
  }
  /* The prediction: the program through the cost model's event model (vta_tile.c), as the
   * convolutions' are. */
  b.rc = vta_tile_predict_program(cfg, NULL, out->prog, &out->choice.cost, err);
  if (b.rc) {
    vta_error_prefix(err, "predicting max pooling");
    vta_lowered_free(out);
    return b.rc;
  }
  out->choice.cost.units = T;
  return VTA_OK;
}

int vta_lower_maxpool(const vta_config *cfg, const vta_pool_desc *d, vta_lowered *out,
                      vta_error *err) {
  memset(out, 0, sizeof *out);
  int rc = vta_pool_check(cfg, d, err);
  if (rc) return rc;
  /* The estimate's best few shapes, each built and predicted by the event model; the fewest
   * predicted cycles win (the estimate misses the hand-overs and the read channel). */
  uint32_t r[POOL_SHAPES], q[POOL_SHAPES];
  size_t n = tile_shapes(cfg, d, r, q, POOL_SHAPES);
  for (size_t i = 0; i < n; i++) {
    vta_lowered cand;
    rc = lower_shape(cfg, d, r[i], q[i], &cand, err);
    if (rc) {
      if (out->prog) vta_lowered_free(out);
      return rc;
    }
    if (!out->prog || cand.choice.cost.cycles < out->choice.cost.cycles) {
      if (out->prog) vta_lowered_free(out);
      *out = cand;
    } else {
      vta_lowered_free(&cand);
    }
  }
  return VTA_OK;
}
