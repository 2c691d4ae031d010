/* vta_pack.c - the layouts of an accelerator layer's constants: weights and biases as its
 * program loads them.
 *
 * The design idea: one element of an on-chip buffer is one contiguous run of bytes in DRAM.
 * Weights are O/BLOCK_OUT, I/BLOCK_IN, H, W, BLOCK_OUT, BLOCK_IN: all the weights of one output
 * block for a range of input blocks are contiguous, so a weight tile (output blocks x input
 * blocks x KH x KW) is one 2-D load. Channel counts that are not multiples of the block are
 * padded with zeros, which contribute nothing to a sum. Activations (what a model runtime
 * packs and unpacks around each program, without the compiler) live in the runtime layer:
 * runtime/layout.c, include/vta/layout.h; the im2col packing here only adapts a layer's
 * description to it.
 */
#include <string.h>

#include "compiler/accel/vta_lower.h"

static uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

static vta_layout_conv im2col_geom(const vta_conv_desc *d) {
  return (vta_layout_conv){d->n, d->c, d->h, d->w, d->kh, d->kw, d->stride_h, d->stride_w,
                           d->pad_top, d->pad_left, d->pad_bottom, d->pad_right};
}

uint64_t vta_pack_im2col_bytes(const vta_config *cfg, const vta_conv_desc *d) {
  vta_layout_conv g = im2col_geom(d);
  return vta_layout_im2col_bytes(cfg, &g);
}

void vta_pack_im2col(const vta_config *cfg, const vta_conv_desc *d, const int8_t *x, int8_t *dst) {
  vta_layout_conv g = im2col_geom(d);
  vta_layout_pack_im2col(cfg, &g, x, dst);
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
