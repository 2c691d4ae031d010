/* layout.h - the accelerator's activation layouts and the conversions to and from them
 * (runtime/layout.c): what a model runtime needs to hand tensors to accelerator programs and
 * take their results back. The compiler packs weights and biases itself (compiler/vta_lower.h)
 * and uses these for activations.
 *
 *     int8_t *packed = malloc(vta_layout_act_bytes(&cfg, n, c, h, w, cfg.block_in));
 *     vta_layout_pack_act(&cfg, x_nchw, n, c, h, w, cfg.block_in, packed);
 *
 * Activations: NCHW int8 <-> N/BATCH, C/BLOCK, H, W, BATCH, BLOCK (channels and images padded
 * with zeros to whole blocks). Dense activations x[M][K] are an image of one batch group with
 * C = K, H = 1, W = ceil(M / BATCH). im2col patches: channel (c * KH + ky) * KW + kx of output
 * pixel (oy, ox) is x[c][oy*sh + ky - pt][ox*sw + kx - pl], zero outside the image.
 */
#ifndef VTA_LAYOUT_H
#define VTA_LAYOUT_H

#include <stdint.h>

#include "vta/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A convolution's input geometry, as far as im2col packing needs it. */
typedef struct vta_layout_conv {
  uint32_t n, c, h, w;
  uint32_t kh, kw;
  uint32_t stride_h, stride_w;
  uint32_t pad_top, pad_left, pad_bottom, pad_right;
} vta_layout_conv;

/* Output size of the convolution (0 when the kernel does not fit the padded input). */
uint32_t vta_layout_conv_out_h(const vta_layout_conv *g);
uint32_t vta_layout_conv_out_w(const vta_layout_conv *g);

/* Bytes of a packed activation tensor; `block` is BLOCK_IN for inputs, BLOCK_OUT for outputs. */
uint64_t vta_layout_act_bytes(const vta_config *cfg, uint32_t n, uint32_t c, uint32_t h, uint32_t w,
                              uint32_t block);
void vta_layout_pack_act(const vta_config *cfg, const int8_t *src, uint32_t n, uint32_t c, uint32_t h,
                         uint32_t w, uint32_t block, int8_t *dst);
void vta_layout_unpack_act(const vta_config *cfg, const int8_t *src, uint32_t n, uint32_t c, uint32_t h,
                           uint32_t w, uint32_t block, int8_t *dst);
uint64_t vta_layout_dense_bytes(const vta_config *cfg, uint32_t m, uint32_t k, uint32_t block);
void vta_layout_pack_dense(const vta_config *cfg, const int8_t *src, uint32_t m, uint32_t k,
                           uint32_t block, int8_t *dst);
void vta_layout_unpack_dense(const vta_config *cfg, const int8_t *src, uint32_t m, uint32_t k,
                             uint32_t block, int8_t *dst);
uint64_t vta_layout_im2col_bytes(const vta_config *cfg, const vta_layout_conv *g);
void vta_layout_pack_im2col(const vta_config *cfg, const vta_layout_conv *g, const int8_t *x, int8_t *dst);

#ifdef __cplusplus
}
#endif
#endif
