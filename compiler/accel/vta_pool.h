/* vta_pool.h - int8 max pooling lowered onto the accelerator (vta_pool.c).
 *
 *     vta_pool_desc d = {.n = 1, .c = 64, .h = 112, .w = 112, .kh = 3, .kw = 3,
 *                        .stride_h = 2, .stride_w = 2, .pad_top = 1, .pad_left = 1,
 *                        .pad_bottom = 1, .pad_right = 1};
 *     vta_lowered low;
 *     if (vta_lower_maxpool(&cfg, &d, &low, &err)) ...
 *     // buffers: input = vta_layout_pack_act(x, n, c, h, w, BLOCK_IN), weight = low.weight,
 *     // output = low.output_bytes (unpack with vta_layout_unpack_act(..., ho, wo, BLOCK_OUT))
 *
 * Semantics (vta_ref_pool_max in vta_ref.c is the definition): out[n][c][y][x] = the largest input in the
 * window rows y*stride_h - pad_top + 0..kh-1, columns x*stride_w - pad_left + 0..kw-1, and 0 -
 * padding and the reset outputs read as 0 - so the input must not be negative (the compiler
 * lowers such a max pooling when its input comes from a ReLU or a clip at 0 or above; max(x, 0)
 * = x there); with `negative` the outputs start at -128 instead (one ALU MIN more per output),
 * which needs a pooling without padding. Output sizes floor((h + pads - kh) / stride) + 1.
 */
#ifndef VTA_COMPILER_VTA_POOL_H
#define VTA_COMPILER_VTA_POOL_H

#include "compiler/accel/vta_lower.h"

typedef struct vta_pool_desc {
  uint32_t n, c, h, w;
  uint32_t kh, kw;
  uint32_t stride_h, stride_w;
  uint32_t pad_top, pad_left, pad_bottom, pad_right;
  int negative;     /* the input may be negative: outputs start at -128 (no padding allowed) */
} vta_pool_desc;

uint32_t vta_pool_out_h(const vta_pool_desc *d);
uint32_t vta_pool_out_w(const vta_pool_desc *d);
/* Checks the description against the configuration: sizes, pads at most 15 (a load's padding),
 * BLOCK_IN = BLOCK_OUT, and that a tile of one output row fits the buffers. */
int vta_pool_check(const vta_config *cfg, const vta_pool_desc *d, vta_error *err);
/* The program (and its one identity weight tile); low->choice.cost.cycles holds a prediction
 * (the busiest of the GEMM unit, the ALU and the load module, plus the first load). */
int vta_lower_maxpool(const vta_config *cfg, const vta_pool_desc *d, vta_lowered *out,
                      vta_error *err);
/* The reference (vta_ref.c): NCHW int8 in, NCHW int8 out. */
void vta_ref_pool_max(const vta_pool_desc *d, const int8_t *x, int8_t *out);

#endif
