/* qops_ref.c - the definition of the compiler's int8 operators (QConv, QDense, QAdd) as plain
 * C loops, and the geometry of a QConv node.
 *
 * The design idea: the int8 arithmetic must be identical wherever it runs - the LLVM code of
 * the CPU path (op_quant.c), the accelerator (compiler/accel/vta_lower.h, whose reference is
 * vta_ref.c) and the quantizer's own checks - so it is written down once here, obviously, and
 * the tests compare every implementation with these loops bit for bit. Sums wrap in uint32_t
 * (signed overflow is undefined in C; two's-complement wrap is what the hardware does). A
 * per-channel multiplier, which only the CPU path uses, is applied in int64; the quantizer
 * chooses multipliers for which the product also fits int32, so an accelerator with a MUL
 * epilogue would compute the same.
 */
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"

void vta_qconv_shape_of(const vta_graph *g, const vta_node *nd, vta_qconv_shape *s) {
  const vta_gvalue *x = &g->values[nd->in[0]], *w = &g->values[nd->in[1]];
  const vta_gvalue *o = &g->values[nd->out[0]];
  int two = x->rank == 4;
  int64_t st[2] = {1, 1}, dl[2] = {1, 1}, pd[4] = {0, 0, 0, 0};
  vta_node_ints(nd, "strides", st, 2);
  vta_node_ints(nd, "dilations", dl, 2);
  vta_node_ints(nd, "pads", pd, 4);
  s->n = x->dims[0];
  s->c = x->dims[1];
  s->h = two ? x->dims[2] : 1;
  s->w = x->dims[two ? 3 : 2];
  s->m = o->dims[1];
  s->oh = two ? o->dims[2] : 1;
  s->ow = o->dims[two ? 3 : 2];
  s->kh = two ? w->dims[2] : 1;
  s->kw = w->dims[two ? 3 : 2];
  s->sh = two ? st[0] : 1;
  s->sw = two ? st[1] : st[0];
  s->dh = two ? dl[0] : 1;
  s->dw = two ? dl[1] : dl[0];
  s->pt = two ? pd[0] : 0;
  s->pl = two ? pd[1] : pd[0];
  s->group = vta_node_int(nd, "group", 1);
}

/* The requantization epilogue (compiler.h, "Quantized operators"). */
static int8_t requant(uint32_t acc, int32_t bias, const vta_qrequant *rq, int64_t ch) {
  int64_t z;
  int k = rq->leaky_k, shift = rq->shift + k;
  if (rq->mul) {
    int64_t y = (int64_t)(int32_t)acc * rq->mul[ch] + bias;
    if (k) {
      int64_t a = y * ((int64_t)1 << k), b = y * rq->leaky_m;
      y = a > b ? a : b;
    }
    z = (y + (shift ? (int64_t)1 << (shift - 1) : 0)) >> shift; /* arithmetic everywhere we build */
  } else {
    uint32_t y = acc + (uint32_t)bias;
    if (k) {
      int32_t a = (int32_t)(y << k), b = (int32_t)(y * (uint32_t)rq->leaky_m);
      y = (uint32_t)(a > b ? a : b);
    }
    y += shift ? 1u << (shift - 1) : 0;
    z = (int32_t)y >> shift;
  }
  return (int8_t)(z < rq->lo ? rq->lo : z > rq->hi ? rq->hi : z);
}

void vta_qref_conv(const vta_qconv_shape *s, const int8_t *x, const int8_t *w, const int32_t *bias,
                   const vta_qrequant *rq, int8_t *out) {
  int64_t cg = s->c / s->group, mg = s->m / s->group;
  for (int64_t n = 0; n < s->n; n++)
    for (int64_t m = 0; m < s->m; m++) {
      int64_t g = m / mg;
      for (int64_t oy = 0; oy < s->oh; oy++)
        for (int64_t ox = 0; ox < s->ow; ox++) {
          uint32_t acc = 0;
          for (int64_t c = 0; c < cg; c++)
            for (int64_t ky = 0; ky < s->kh; ky++)
              for (int64_t kx = 0; kx < s->kw; kx++) {
                int64_t iy = oy * s->sh + ky * s->dh - s->pt, ix = ox * s->sw + kx * s->dw - s->pl;
                if (iy < 0 || iy >= s->h || ix < 0 || ix >= s->w) continue;
                int32_t xv = x[((n * s->c + g * cg + c) * s->h + iy) * s->w + ix];
                int32_t wv = w[((m * cg + c) * s->kh + ky) * s->kw + kx];
                acc += (uint32_t)(xv * wv);
              }
          out[((n * s->m + m) * s->oh + oy) * s->ow + ox] =
              requant(acc, bias ? bias[m] : 0, rq, m);
        }
    }
}

void vta_qref_dense(int64_t m, int64_t k, int64_t n, const int8_t *x, const int8_t *w,
                    const int32_t *bias, const vta_qrequant *rq, int8_t *out) {
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      uint32_t acc = 0;
      for (int64_t q = 0; q < k; q++) acc += (uint32_t)((int32_t)x[i * k + q] * w[j * k + q]);
      out[i * n + j] = requant(acc, bias ? bias[j] : 0, rq, j);
    }
}

void vta_qref_add(int64_t n, const int8_t *a, const int8_t *b, int ma, int mb, int shift, int lo,
                  int hi, int8_t *out) {
  for (int64_t i = 0; i < n; i++) {
    int32_t y = a[i] * ma + b[i] * mb + (shift ? 1 << (shift - 1) : 0);
    int32_t z = y >> shift;
    out[i] = (int8_t)(z < lo ? lo : z > hi ? hi : z);
  }
}
