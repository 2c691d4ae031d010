/* vta_pack.c - the accelerator's data layouts and the conversions to and from them.
 *
 * The design idea: one element of an on-chip buffer is one contiguous run of bytes in DRAM, so
 * a packed tensor is an array of elements whose outer dimensions a 2-D load can walk. For
 * activations that is N/BATCH, C/BLOCK, H, W, BATCH, BLOCK: a row of W elements of one channel
 * block is contiguous (one load row), and rows follow at a stride of W (so a load of a tile's
 * rows is one 2-D transfer per channel block, with the conv's zero padding supplied by the
 * load's pads). Weights are O/BLOCK_OUT, I/BLOCK_IN, H, W, BLOCK_OUT, BLOCK_IN: all the
 * weights of one output block for a range of input blocks are contiguous, so a weight tile
 * (output blocks x input blocks x KH x KW) is one 2-D load. Channel counts that are not
 * multiples of the block are padded with zeros, which contribute nothing to a sum.
 *
 * A dense layer's activations x[M][K] are packed as an image of one batch group with C = K,
 * H = 1, W = ceil(M/BATCH): K/BLOCK, M/BATCH, BATCH, BLOCK, so that dense layers chain (the
 * output layout is the next layer's input layout) and the conv machinery runs them unchanged.
 */
#include <string.h>

#include "compiler/accel/vta_lower.h"

static uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

uint64_t vta_pack_act_bytes(const vta_config *cfg, uint32_t n, uint32_t c, uint32_t h, uint32_t w,
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

void vta_pack_act(const vta_config *cfg, const int8_t *src, uint32_t n, uint32_t c, uint32_t h,
                  uint32_t w, uint32_t block, int8_t *dst) {
  memset(dst, 0, vta_pack_act_bytes(cfg, n, c, h, w, block));
  uint32_t cb = ceil_div(c, block);
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t j = 0; j < c; j++)
      for (uint32_t y = 0; y < h; y++) {
        const int8_t *row = src + (((size_t)i * c + j) * h + y) * w;
        size_t base = act_index(cfg, cb, h, w, block, i, j, y, 0);
        size_t step = (size_t)cfg->batch * block;
        for (uint32_t x = 0; x < w; x++) dst[base + x * step] = row[x];
      }
}

void vta_unpack_act(const vta_config *cfg, const int8_t *src, uint32_t n, uint32_t c, uint32_t h,
                    uint32_t w, uint32_t block, int8_t *dst) {
  uint32_t cb = ceil_div(c, block);
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t j = 0; j < c; j++)
      for (uint32_t y = 0; y < h; y++) {
        int8_t *row = dst + (((size_t)i * c + j) * h + y) * w;
        size_t base = act_index(cfg, cb, h, w, block, i, j, y, 0);
        size_t step = (size_t)cfg->batch * block;
        for (uint32_t x = 0; x < w; x++) row[x] = src[base + x * step];
      }
}

uint64_t vta_pack_wgt_bytes(const vta_config *cfg, uint32_t o, uint32_t i, uint32_t kh,
                            uint32_t kw) {
  return (uint64_t)ceil_div(o, cfg->block_out) * cfg->block_out * ceil_div(i, cfg->block_in) *
         cfg->block_in * kh * kw;
}

void vta_pack_wgt(const vta_config *cfg, const int8_t *src, uint32_t o, uint32_t i, uint32_t kh,
                  uint32_t kw, int8_t *dst) {
  uint32_t BO = cfg->block_out, BI = cfg->block_in, ib = ceil_div(i, BI);
  memset(dst, 0, vta_pack_wgt_bytes(cfg, o, i, kh, kw));
  for (uint32_t a = 0; a < o; a++)
    for (uint32_t b = 0; b < i; b++)
      for (uint32_t y = 0; y < kh; y++)
        for (uint32_t x = 0; x < kw; x++) {
          size_t e = (((size_t)(a / BO) * ib + b / BI) * kh + y) * kw + x;
          dst[e * BO * BI + (size_t)(a % BO) * BI + b % BI] =
              src[(((size_t)a * i + b) * kh + y) * kw + x];
        }
}

void vta_pack_bias(const vta_config *cfg, const int32_t *src, uint32_t o, int32_t pad,
                   uint8_t *dst) {
  uint32_t BO = cfg->block_out, B = cfg->batch, ob = ceil_div(o, BO);
  for (uint32_t e = 0; e < ob; e++)
    for (uint32_t b = 0; b < B; b++)
      for (uint32_t l = 0; l < BO; l++) {
        uint32_t ch = e * BO + l;
        uint32_t v = (uint32_t)(ch < o ? src[ch] : pad);
        uint8_t *p = dst + 4 * (((size_t)e * B + b) * BO + l);
        p[0] = (uint8_t)v;
        p[1] = (uint8_t)(v >> 8);
        p[2] = (uint8_t)(v >> 16);
        p[3] = (uint8_t)(v >> 24);
      }
}

uint64_t vta_pack_dense_bytes(const vta_config *cfg, uint32_t m, uint32_t k, uint32_t block) {
  return vta_pack_act_bytes(cfg, cfg->batch, k, 1, ceil_div(m, cfg->batch), block);
}

/* Row r of x lands in batch lane r % BATCH of column r / BATCH. */
void vta_pack_dense(const vta_config *cfg, const int8_t *src, uint32_t m, uint32_t k,
                    uint32_t block, int8_t *dst) {
  uint32_t B = cfg->batch, w = ceil_div(m, B);
  memset(dst, 0, vta_pack_dense_bytes(cfg, m, k, block));
  for (uint32_t r = 0; r < m; r++)
    for (uint32_t j = 0; j < k; j++) {
      size_t e = (size_t)(j / block) * w + r / B;
      dst[e * B * block + (size_t)(r % B) * block + j % block] = src[(size_t)r * k + j];
    }
}

void vta_unpack_dense(const vta_config *cfg, const int8_t *src, uint32_t m, uint32_t k,
                      uint32_t block, int8_t *dst) {
  uint32_t B = cfg->batch, w = ceil_div(m, B);
  for (uint32_t r = 0; r < m; r++)
    for (uint32_t j = 0; j < k; j++) {
      size_t e = (size_t)(j / block) * w + r / B;
      dst[(size_t)r * k + j] = src[e * B * block + (size_t)(r % B) * block + j % block];
    }
}

uint64_t vta_pack_im2col_bytes(const vta_config *cfg, const vta_conv_desc *d) {
  return vta_pack_act_bytes(cfg, d->n, d->c * d->kh * d->kw, vta_conv_out_h(d), vta_conv_out_w(d),
                            cfg->block_in);
}

void vta_pack_im2col(const vta_config *cfg, const vta_conv_desc *d, const int8_t *x, int8_t *dst) {
  uint32_t ho = vta_conv_out_h(d), wo = vta_conv_out_w(d), pc = d->c * d->kh * d->kw;
  uint32_t BI = cfg->block_in, B = cfg->batch, pcb = ceil_div(pc, BI);
  memset(dst, 0, vta_pack_im2col_bytes(cfg, d));
  for (uint32_t n = 0; n < d->n; n++)
    for (uint32_t c = 0; c < d->c; c++)
      for (uint32_t ky = 0; ky < d->kh; ky++)
        for (uint32_t kx = 0; kx < d->kw; kx++) {
          uint32_t ch = (c * d->kh + ky) * d->kw + kx;
          for (uint32_t oy = 0; oy < ho; oy++) {
            int64_t iy = (int64_t)oy * d->stride_h + ky - d->pad_top;
            if (iy < 0 || iy >= d->h) continue;
            const int8_t *row = x + (((size_t)n * d->c + c) * d->h + (size_t)iy) * d->w;
            size_t e = (((size_t)(n / B) * pcb + ch / BI) * ho + oy) * wo;
            for (uint32_t ox = 0; ox < wo; ox++) {
              int64_t ix = (int64_t)ox * d->stride_w + kx - d->pad_left;
              if (ix < 0 || ix >= d->w) continue;
              dst[(e + ox) * B * BI + (size_t)(n % B) * BI + ch % BI] = row[ix];
            }
          }
        }
}
