/* vta_ref.c - plain C references of the layers the accelerator runs, with exactly its
 * arithmetic: products summed in int32 with wrap-around, then the epilogue of vta_lower.h (with
 * the channel's own shift when the layer has per-channel shifts).
 *
 * The design idea: these loops are the definition that the accelerator's results must match
 * bit for bit, so they are written for obviousness first. Speed matters only enough for the
 * tests and `vta bench --verify`: the convolution accumulates one output plane at a time with
 * the output column innermost, which the C compiler vectorises. Sums are kept in uint32_t
 * because signed overflow is undefined in C and wrap-around is what the hardware does.
 */
#include <stdlib.h>
#include <string.h>

#include "compiler/accel/vta_lower.h"
#include "compiler/accel/vta_pool.h"

/* y = acc + bias + res_term wraps in uint32_t; a LeakyRelu (k > 0) takes max(y << k, y * m)
 * before the rounding, and the shift grows by k (vta_lower.h). */
static int8_t epilogue(uint32_t acc, int32_t bias, int32_t res_term, uint32_t shift, uint32_t k,
                       int32_t m, int32_t lo, int32_t hi) {
  uint32_t y = acc + (uint32_t)bias + (uint32_t)res_term;
  if (k) {
    int32_t a = (int32_t)(y << k), b = (int32_t)(y * (uint32_t)m);
    y = (uint32_t)(a > b ? a : b);
    shift += k;
  }
  if (shift) y += 1u << (shift - 1);
  int32_t z = (int32_t)y >> shift; /* arithmetic on every compiler this project builds with */
  if (z < lo) z = lo;
  if (z > hi) z = hi;
  return (int8_t)z;
}

void vta_ref_conv2d(const vta_conv_desc *d, const int8_t *x, const int8_t *w, const int32_t *bias,
                    const int8_t *residual, int8_t *out) {
  uint32_t ho = vta_conv_out_h(d), wo = vta_conv_out_w(d);
  if (d->head_n) { /* the layer, its average over the positions, the dense layer */
    vta_conv_desc c = *d;
    c.head_n = 0;
    int8_t *full = malloc((size_t)d->n * d->k * ho * wo), *avg = malloc((size_t)d->n * d->k);
    if (!full || !avg) abort();
    vta_ref_conv2d(&c, x, w, bias, residual, full);
    vta_ref_avgpool(full, d->n, d->k, ho, wo, avg);
    vta_dense_desc dd = {.m = d->n, .k = d->k, .n = d->head_n, .has_bias = d->head_bias != NULL,
                         .shift = d->head_shift, .clip_lo = d->head_lo, .clip_hi = d->head_hi};
    vta_ref_dense(&dd, avg, d->head_w, d->head_bias, out);
    free(full);
    free(avg);
    return;
  }
  if (d->post_pool) { /* the convolution, then its 3x3/2 max pooling (padding takes no part) */
    vta_conv_desc c = *d;
    c.post_pool = 0;
    int8_t *full = malloc((size_t)d->n * d->k * ho * wo);
    if (!full) abort();
    vta_ref_conv2d(&c, x, w, bias, residual, full);
    for (size_t p = 0; p < (size_t)d->n * d->k; p++)
      for (uint32_t y = 0; y < ho / 2; y++)
        for (uint32_t xo = 0; xo < wo / 2; xo++) {
          int m = -129;
          for (int i = -1; i <= 1; i++)
            for (int j = -1; j <= 1; j++) {
              int64_t yy = 2 * (int64_t)y + i, xx = 2 * (int64_t)xo + j;
              if (yy < 0 || yy >= ho || xx < 0 || xx >= wo) continue;
              int v = full[(p * ho + (size_t)yy) * wo + (size_t)xx];
              if (v > m) m = v;
            }
          out[(p * (ho / 2) + y) * (wo / 2) + xo] = (int8_t)m;
        }
    free(full);
    return;
  }
  int32_t lo = d->relu && d->clip_lo < 0 ? 0 : d->clip_lo;
  uint32_t *acc = malloc((size_t)ho * wo * sizeof *acc);
  if (!acc) abort(); /* a reference that cannot run must not pass a test */
  for (uint32_t n = 0; n < d->n; n++)
    for (uint32_t k = 0; k < d->k; k++) {
      memset(acc, 0, (size_t)ho * wo * sizeof *acc);
      for (uint32_t c = 0; c < d->c; c++)
        for (uint32_t ky = 0; ky < d->kh; ky++)
          for (uint32_t kx = 0; kx < d->kw; kx++) {
            int32_t wv = w[(((size_t)k * d->c + c) * d->kh + ky) * d->kw + kx];
            if (!wv) continue;
            const int8_t *plane = x + ((size_t)n * d->c + c) * d->h * d->w;
            for (uint32_t oy = 0; oy < ho; oy++) {
              int64_t iy = (int64_t)oy * d->stride_h + ky - d->pad_top;
              if (iy < 0 || iy >= d->h) continue;
              const int8_t *row = plane + (size_t)iy * d->w;
              uint32_t *arow = acc + (size_t)oy * wo;
              /* The output columns whose input column is inside the image. */
              uint32_t ox0 = 0, ox1 = wo;
              while (ox0 < wo && (int64_t)ox0 * d->stride_w + kx < d->pad_left) ox0++;
              while (ox1 > ox0 && (int64_t)(ox1 - 1) * d->stride_w + kx - d->pad_left >= d->w)
                ox1--;
              for (uint32_t ox = ox0; ox < ox1; ox++)
                arow[ox] += (uint32_t)(wv * row[ox * d->stride_w + kx - d->pad_left]);
            }
          }
      for (uint32_t p = 0; p < ho * wo; p++) {
        size_t o = ((size_t)n * d->k + k) * ho * wo + p;
        int32_t r = d->has_residual ? d->residual_mul * residual[o] : 0;
        out[o] = epilogue(acc[p], d->has_bias ? bias[k] : 0, r, d->shifts ? d->shifts[k] : d->shift,
                          d->leaky_k, d->leaky_m, lo, d->clip_hi);
        if (d->post_add) { /* the CPU's QAdd, in int32 */
          int32_t y = out[o] * d->add_ma + residual[o] * d->add_mb;
          if (d->add_shift) y += (int32_t)(1u << (d->add_shift - 1));
          y >>= d->add_shift;
          out[o] = (int8_t)(y < d->add_lo ? d->add_lo : y > d->add_hi ? d->add_hi : y);
        }
      }
    }
  free(acc);
}

void vta_ref_dense(const vta_dense_desc *d, const int8_t *x, const int8_t *w, const int32_t *bias,
                   int8_t *out) {
  int32_t lo = d->relu && d->clip_lo < 0 ? 0 : d->clip_lo;
  for (uint32_t i = 0; i < d->m; i++)
    for (uint32_t j = 0; j < d->n; j++) {
      uint32_t acc = 0;
      for (uint32_t q = 0; q < d->k; q++)
        acc += (uint32_t)((int32_t)x[(size_t)i * d->k + q] * w[(size_t)j * d->k + q]);
      out[(size_t)i * d->n + j] =
          epilogue(acc, d->has_bias ? bias[j] : 0, 0, d->shift, d->leaky_k, d->leaky_m, lo,
                   d->clip_hi);
    }
}

void vta_ref_pool_max(const vta_pool_desc *d, const int8_t *x, int8_t *out) {
  uint32_t ho = vta_pool_out_h(d), wo = vta_pool_out_w(d);
  for (uint32_t n = 0; n < d->n; n++)
    for (uint32_t c = 0; c < d->c; c++) {
      const int8_t *p = x + ((size_t)n * d->c + c) * d->h * d->w;
      int8_t *o = out + ((size_t)n * d->c + c) * ho * wo;
      for (uint32_t y = 0; y < ho; y++)
        for (uint32_t xo = 0; xo < wo; xo++) {
          int m = d->negative ? -128 : 0; /* the padding (and the reset accumulator) */
          for (uint32_t i = 0; i < d->kh; i++)
            for (uint32_t j = 0; j < d->kw; j++) {
              int64_t yy = (int64_t)y * d->stride_h - d->pad_top + i;
              int64_t xx = (int64_t)xo * d->stride_w - d->pad_left + j;
              if (yy < 0 || yy >= d->h || xx < 0 || xx >= d->w) continue;
              int v = p[yy * d->w + xx];
              if (v > m) m = v;
            }
          o[(size_t)y * wo + xo] = (int8_t)m;
        }
    }
}

void vta_ref_avgpool(const int8_t *x, uint32_t n, uint32_t c, uint32_t h, uint32_t w,
                     int8_t *out) {
  int64_t hw = (int64_t)h * w;
  for (uint32_t i = 0; i < n * c; i++) {
    int64_t s = 0;
    for (int64_t p = 0; p < hw; p++) s += x[(size_t)i * hw + (size_t)p];
    out[i] = (int8_t)((s + (s >= 0 ? hw / 2 : -hw / 2)) / hw);
  }
}
