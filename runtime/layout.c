/* layout.c - the accelerator's activation layouts (include/vta/layout.h).
 *
 * The design idea: one element of an on-chip buffer is one contiguous run of bytes in DRAM, so
 * a packed tensor is an array of elements whose outer dimensions a 2-D load can walk. For
 * activations that is N/BATCH, C/BLOCK, H, W, BATCH, BLOCK: a row of W elements of one channel
 * block is contiguous (one load row), and rows follow at a stride of W (so a load of a tile's
 * rows is one 2-D transfer per channel block, the convolution's zero padding supplied by the
 * load's pads). Channel counts that are not multiples of the block are padded with zeros, which
 * contribute nothing to a sum. A dense layer's activations are an image of one batch group, so
 * dense layers chain (the output layout is the next layer's input layout).
 *
 * This lives in the runtime layer because a deployed model packs and unpacks at its CPU
 * boundaries without the compiler; the compiler packs its test data and references with it.
 */
#include <string.h>

#include "vta/layout.h"

static uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

uint32_t vta_layout_conv_out_h(const vta_layout_conv *g) {
  uint64_t span = (uint64_t)g->h + g->pad_top + g->pad_bottom;
  if (g->stride_h == 0 || g->kh == 0 || span < g->kh) return 0;
  return (uint32_t)((span - g->kh) / g->stride_h + 1);
}

uint32_t vta_layout_conv_out_w(const vta_layout_conv *g) {
  uint64_t span = (uint64_t)g->w + g->pad_left + g->pad_right;
  if (g->stride_w == 0 || g->kw == 0 || span < g->kw) return 0;
  return (uint32_t)((span - g->kw) / g->stride_w + 1);
}

uint64_t vta_layout_act_bytes(const vta_config *cfg, uint32_t n, uint32_t c, uint32_t h, uint32_t w,
                              uint32_t block) {
  return (uint64_t)ceil_div(n, cfg->batch) * cfg->batch * ceil_div(c, block) * block * h * w;
}

/* Index of (n, c, y, x) in the packed layout. */
static size_t act_index(const vta_config *cfg, uint32_t nb_c, uint32_t h, uint32_t w,
                        uint32_t block, uint32_t n, uint32_t c, uint32_t y, uint32_t x) {
  uint32_t B = cfg->batch;
  size_t e = (((size_t)(n / B) * nb_c + c / block) * h + y) * w + x; /* element */
  return e * B * block + (size_t)(n % B) * block + c % block;
}

void vta_layout_pack_act(const vta_config *cfg, const int8_t *src, uint32_t n, uint32_t c, uint32_t h,
                         uint32_t w, uint32_t block, int8_t *dst) {
  memset(dst, 0, vta_layout_act_bytes(cfg, n, c, h, w, block));
  uint32_t cb = ceil_div(c, block);
  size_t step = (size_t)cfg->batch * block;
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t j = 0; j < c; j++)
      for (uint32_t y = 0; y < h; y++) {
        const int8_t *row = src + (((size_t)i * c + j) * h + y) * w;
        size_t base = act_index(cfg, cb, h, w, block, i, j, y, 0);
        for (uint32_t x = 0; x < w; x++) dst[base + x * step] = row[x];
      }
}

void vta_layout_unpack_act(const vta_config *cfg, const int8_t *src, uint32_t n, uint32_t c, uint32_t h,
                           uint32_t w, uint32_t block, int8_t *dst) {
  uint32_t cb = ceil_div(c, block);
  size_t step = (size_t)cfg->batch * block;
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t j = 0; j < c; j++)
      for (uint32_t y = 0; y < h; y++) {
        int8_t *row = dst + (((size_t)i * c + j) * h + y) * w;
        size_t base = act_index(cfg, cb, h, w, block, i, j, y, 0);
        for (uint32_t x = 0; x < w; x++) row[x] = src[base + x * step];
      }
}

uint64_t vta_layout_dense_bytes(const vta_config *cfg, uint32_t m, uint32_t k, uint32_t block) {
  return vta_layout_act_bytes(cfg, cfg->batch, k, 1, ceil_div(m, cfg->batch), block);
}

/* Row r of x lands in batch lane r % BATCH of column r / BATCH. */
void vta_layout_pack_dense(const vta_config *cfg, const int8_t *src, uint32_t m, uint32_t k,
                           uint32_t block, int8_t *dst) {
  uint32_t B = cfg->batch, w = ceil_div(m, B);
  memset(dst, 0, vta_layout_dense_bytes(cfg, m, k, block));
  for (uint32_t r = 0; r < m; r++)
    for (uint32_t j = 0; j < k; j++) {
      size_t e = (size_t)(j / block) * w + r / B;
      dst[e * B * block + (size_t)(r % B) * block + j % block] = src[(size_t)r * k + j];
    }
}

void vta_layout_unpack_dense(const vta_config *cfg, const int8_t *src, uint32_t m, uint32_t k,
                             uint32_t block, int8_t *dst) {
  uint32_t B = cfg->batch, w = ceil_div(m, B);
  for (uint32_t r = 0; r < m; r++)
    for (uint32_t j = 0; j < k; j++) {
      size_t e = (size_t)(j / block) * w + r / B;
      dst[(size_t)r * k + j] = src[e * B * block + (size_t)(r % B) * block + j % block];
    }
}

uint64_t vta_layout_im2col_bytes(const vta_config *cfg, const vta_layout_conv *g) {
  return vta_layout_act_bytes(cfg, g->n, g->c * g->kh * g->kw, vta_layout_conv_out_h(g),
                              vta_layout_conv_out_w(g), cfg->block_in);
}

void vta_layout_pack_im2col(const vta_config *cfg, const vta_layout_conv *g, const int8_t *x, int8_t *dst) {
  uint32_t ho = vta_layout_conv_out_h(g), wo = vta_layout_conv_out_w(g), pc = g->c * g->kh * g->kw;
  uint32_t BI = cfg->block_in, B = cfg->batch, pcb = ceil_div(pc, BI);
  memset(dst, 0, vta_layout_im2col_bytes(cfg, g));
  for (uint32_t n = 0; n < g->n; n++)
    for (uint32_t c = 0; c < g->c; c++)
      for (uint32_t ky = 0; ky < g->kh; ky++)
        for (uint32_t kx = 0; kx < g->kw; kx++) {
          uint32_t ch = (c * g->kh + ky) * g->kw + kx;
          for (uint32_t oy = 0; oy < ho; oy++) {
            int64_t iy = (int64_t)oy * g->stride_h + ky - g->pad_top;
            if (iy < 0 || iy >= g->h) continue;
            const int8_t *row = x + (((size_t)n * g->c + c) * g->h + (size_t)iy) * g->w;
            size_t e = (((size_t)(n / B) * pcb + ch / BI) * ho + oy) * wo;
            for (uint32_t ox = 0; ox < wo; ox++) {
              int64_t ix = (int64_t)ox * g->stride_w + kx - g->pad_left;
              if (ix < 0 || ix >= g->w) continue;
              dst[(e + ox) * B * BI + (size_t)(n % B) * BI + ch % BI] = row[ix];
            }
          }
        }
}
