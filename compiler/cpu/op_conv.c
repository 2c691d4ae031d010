/* op_conv.c - the convolution family: Conv, ConvTranspose, Gemm and MatMul; their shape rules
 * and CPU code (they are not folded at compile time: no reference).
 *
 * The design idea: the arithmetic is in the shared kernels of codegen_kernels.c, written with
 * explicit vectors (GEMM, im2col, depthwise, direct and pointwise convolution); this file
 * chooses a plan per node and calls them with the node's sizes as constants: depthwise,
 * pointwise, and direct for stride 1 where the cost rule takes it, im2col and GEMM otherwise;
 * per-tap GEMMs for transposed convolutions whose kernel equals their stride. Leading Relu and
 * Clip steps of the node's fused epilogue become the kernels' output clamp; the driver runs
 * the rest over the output. The shape rules are shared with the quantized convolutions and
 * matrix products (vta_conv_shape, vta_matmul_shape).
 */
#include <inttypes.h>
#include <llvm-c/Core.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "compiler/cpu/codegen_llvm.h"
#include "compiler/cpu/codegen_local.h"

/* ---- shape rules ---- */

int vta_conv_shape(vta_graph *g, int i, vta_error *err, int transpose, int xi, int wi, int bi, int ot) {
  vta_node *nd = &g->nodes[i];
  const vta_gvalue *x = vta_op_in(g, i, xi), *w = vta_op_in(g, i, wi), *b = bi >= 0 ? vta_op_in(g, i, bi) : NULL;
  if (vta_op_need_shape(g, i, err, x, 0) || vta_op_need_shape(g, i, err, w, 1)) return -1;
  if (x->rank < 3 || w->rank != x->rank)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "input rank %d and weight rank %d do not make a convolution", x->rank, w->rank);
  if (x->rank > 4) return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "a convolution with more than 2 spatial dimensions is not supported");
  int64_t group = vta_node_int(nd, "group", 1);
  if (group < 1 || x->dims[1] % group) return vta_op_error(g, i, err, VTA_ERR_INVALID, "group %" PRId64 " does not divide the %" PRId64 " input channels", group, x->dims[1]);
  int64_t m = transpose ? w->dims[1] * group : w->dims[0];
  if (!transpose && (w->dims[1] * group != x->dims[1] || w->dims[0] % group))
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "weight shape [%" PRId64 ",%" PRId64 ",...] does not match %" PRId64 " input channels in %" PRId64 " groups", w->dims[0], w->dims[1], x->dims[1], group);
  if (transpose && w->dims[0] != x->dims[1])
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "weight has %" PRId64 " input channels, the input %" PRId64, w->dims[0], x->dims[1]);
  if (b && (b->rank != 1 || b->dims[0] != m))
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "bias must have %" PRId64 " elements", m);
  int64_t kernel[VTA_MAX_RANK], ks[VTA_MAX_RANK];
  for (int d = 0; d < x->rank - 2; d++) kernel[d] = w->dims[d + 2];
  int n = vta_node_ints(nd, "kernel_shape", ks, VTA_MAX_RANK);
  if (n >= 0) {
    if (n != x->rank - 2) return vta_op_error(g, i, err, VTA_ERR_INVALID, "kernel_shape has %d values", n);
    for (int d = 0; d < n; d++)
      if (ks[d] != kernel[d]) return vta_op_error(g, i, err, VTA_ERR_INVALID, "kernel_shape does not match the weight's shape");
  }
  if (vta_op_set_int(g, i, err, "group", group)) return -1;
  int64_t dims[VTA_MAX_RANK] = {x->dims[0], m};
  if (vta_op_window(g, i, err, x, kernel, transpose, dims + 2)) return -1;
  vta_op_set_out(g, i, 0, ot >= 0 ? (vta_dtype)ot : x->dtype, x->rank, dims);
  return 0;
}

int vta_matmul_shape(vta_graph *g, int i, vta_error *err, int ai, int bi, int ot) {
  const vta_gvalue *a = vta_op_in(g, i, ai), *b = vta_op_in(g, i, bi);
  if (vta_op_need_shape(g, i, err, a, 0) || vta_op_need_shape(g, i, err, b, 1)) return -1;
  if (a->rank < 1 || b->rank < 1) return vta_op_error(g, i, err, VTA_ERR_INVALID, "MatMul of a scalar");
  int64_t ad[VTA_MAX_RANK + 1], bd[VTA_MAX_RANK + 1];
  int ar = a->rank, br = b->rank;
  memcpy(ad, a->dims, sizeof(int64_t) * (size_t)ar);
  memcpy(bd, b->dims, sizeof(int64_t) * (size_t)br);
  if (ar == 1) ad[1] = ad[0], ad[0] = 1, ar = 2;
  if (br == 1) bd[1] = 1, br = 2;
  if (ad[ar - 1] != bd[br - 2])
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "inner dimensions differ (%" PRId64 " vs %" PRId64 ")", ad[ar - 1], bd[br - 2]);
  vta_gvalue ba = {.rank = ar - 2}, bb = {.rank = br - 2};
  ba.name = a->name;
  bb.name = b->name;
  memcpy(ba.dims, ad, sizeof(int64_t) * (size_t)(ar - 2));
  memcpy(bb.dims, bd, sizeof(int64_t) * (size_t)(br - 2));
  int r;
  int64_t dims[VTA_MAX_RANK + 2];
  if (vta_op_broadcast(g, i, err, &ba, &bb, &r, dims)) return -1;
  int out_r = r;
  if (a->rank > 1) dims[out_r++] = ad[ar - 2];
  if (b->rank > 1) dims[out_r++] = bd[br - 1];
  if (out_r > VTA_MAX_RANK) return vta_op_error(g, i, err, VTA_ERR_INVALID, "result rank too large");
  vta_op_set_out(g, i, 0, ot >= 0 ? (vta_dtype)ot : a->dtype, out_r, dims);
  return 0;
}

static int gemm_infer(vta_graph *g, int i, vta_error *err) {
  const vta_node *nd = &g->nodes[i];
  const vta_gvalue *a = vta_op_in(g, i, 0), *b = vta_op_in(g, i, 1), *cc = vta_op_in(g, i, 2);
  if (vta_op_need_shape(g, i, err, a, 0) || vta_op_need_shape(g, i, err, b, 1)) return -1;
  if (a->rank != 2 || b->rank != 2) return vta_op_error(g, i, err, VTA_ERR_INVALID, "Gemm needs 2-D inputs");
  int ta = (int)vta_node_int(nd, "transA", 0), tb = (int)vta_node_int(nd, "transB", 0);
  int64_t m = ta ? a->dims[1] : a->dims[0], k = ta ? a->dims[0] : a->dims[1];
  int64_t k2 = tb ? b->dims[1] : b->dims[0], n = tb ? b->dims[0] : b->dims[1];
  if (k != k2) return vta_op_error(g, i, err, VTA_ERR_INVALID, "inner dimensions differ (%" PRId64 " vs %" PRId64 ")", k, k2);
  int64_t dims[2] = {m, n};
  if (cc) {
    vta_gvalue o = {.rank = 2, .dims = {m, n}, .name = "Y"};
    int r;
    int64_t bd[VTA_MAX_RANK];
    if (vta_op_need_shape(g, i, err, cc, 2) || vta_op_broadcast(g, i, err, &o, cc, &r, bd)) return -1;
    if (r != 2 || bd[0] != m || bd[1] != n) return vta_op_error(g, i, err, VTA_ERR_INVALID, "C does not broadcast to [M,N]");
  }
  vta_op_set_out(g, i, 0, a->dtype, 2, dims);
  return 0;
}

static int conv_infer(vta_graph *g, int i, vta_error *err) {
  switch (g->nodes[i].op) {
  case VTA_GOP_CONV: return vta_conv_shape(g, i, err, 0, 0, 1, 2, -1);
  case VTA_GOP_CONV_TRANSPOSE: return vta_conv_shape(g, i, err, 1, 0, 1, 2, -1);
  case VTA_GOP_GEMM: return gemm_infer(g, i, err);
  default: return vta_matmul_shape(g, i, err, 0, 1, -1);
  }
}

/* ---- code ---- */

typedef cg_conv conv_dims;

static conv_dims conv_dims_of(const vta_graph *g, const vta_node *nd) {
  const vta_gvalue *x = &g->values[nd->in[0]], *o = &g->values[nd->out[0]], *w = &g->values[nd->in[1]];
  conv_dims k;
  int two = x->rank == 4;
  int64_t st[2] = {1, 1}, dl[2] = {1, 1}, pd[4] = {0, 0, 0, 0};
  vta_node_ints(nd, "strides", st, 2);
  vta_node_ints(nd, "dilations", dl, 2);
  vta_node_ints(nd, "pads", pd, 4);
  k.n = x->dims[0];
  k.cin = x->dims[1];
  k.h = two ? x->dims[2] : 1;
  k.w = x->dims[two ? 3 : 2];
  k.m = o->dims[1];
  k.oh = two ? o->dims[2] : 1;
  k.ow = o->dims[two ? 3 : 2];
  k.kh = two ? w->dims[2] : 1;
  k.kw = w->dims[two ? 3 : 2];
  k.sh = two ? st[0] : 1;
  k.sw = two ? st[1] : st[0];
  k.dh = two ? dl[0] : 1;
  k.dw = two ? dl[1] : dl[0];
  k.pt = two ? pd[0] : 0;
  k.pl = two ? pd[1] : pd[0];
  k.group = vta_node_int(nd, "group", 1);
  return k;
}
static conv_dims conv_get(cg *c) { return conv_dims_of(c->g, c->nd); }

/* How a convolution is computed. */
enum { CONV_DEPTHWISE, CONV_POINTWISE, CONV_DIRECT, CONV_IM2COL };
static int conv_plan(const conv_dims *k) {
  if (k->group > 1 && k->group == k->cin && k->m == k->cin) return CONV_DEPTHWISE;
  if (k->kh == 1 && k->kw == 1 && k->sh == 1 && k->sw == 1 && k->pt == 0 && k->pl == 0 &&
      k->oh == k->h && k->ow == k->w)
    return CONV_POINTWISE;
  if (cg_dconv_fits(k)) return CONV_DIRECT;
  return CONV_IM2COL;
}

/* A transposed convolution whose kernel equals its stride, without padding or dilation (the
 * 2x2, stride-2 upsampling of detectors' heads): every output pixel receives exactly one tap
 * of one input pixel. Computed per tap as one GEMM (W's tap, transposed, times the input) into
 * the scratch buffer, then scattered with the bias. */
static int conv_transpose_tiled(const conv_dims *k) {
  return k->kh == k->sh && k->kw == k->sw && k->dh == 1 && k->dw == 1 && k->pt == 0 && k->pl == 0 &&
         k->oh == k->h * k->sh && k->ow == k->w * k->sw;
}

/* Floats of the module's scratch buffer node i needs. */
int64_t cg_scratch_need(const vta_graph *g, int i, int vw) {
  const vta_node *nd = &g->nodes[i];
  if (nd->op == VTA_GOP_CONV_TRANSPOSE) {
    conv_dims k = conv_dims_of(g, nd);
    return conv_transpose_tiled(&k) ? k.m / k.group * k.h * k.w + 2 * vw : 0;
  }
  if (nd->op != VTA_GOP_CONV) return 0;
  conv_dims k = conv_dims_of(g, nd);
  switch (conv_plan(&k)) {
  case CONV_DEPTHWISE: return cg_dwconv_scratch(&k, vw);
  case CONV_IM2COL: return k.cin / k.group * k.kh * k.kw * cg_im2col_rows(&k) * k.ow + 2 * vw;
  case CONV_DIRECT: return cg_dconv_scratch(&k, vw);
  default: return 0;
  }
}

static void init_bias(cg *c, LLVMValueRef outp, LLVMValueRef m, int64_t plane) {
  LLVMValueRef bias = has_in(c, 2) ? in_p(c, 2) : NULL;
  LLVMValueRef bv = bias ? load(c, bias, m) : F(c, 0);
  loop_t l;
  LLVMValueRef i = loop_open(c, &l, C(c, 0), C(c, plane));
  store(c, bv, outp, i);
  loop_close(c, &l);
}

static void cg_emit_conv(cg *c, float lo, float hi) {
  conv_dims k = conv_get(c);
  int64_t cgi = k.cin / k.group, mg = k.m / k.group, P = k.oh * k.ow, HW = k.h * k.w;
  int64_t K = cgi * k.kh * k.kw;
  LLVMValueRef X = in_p(c, 0), W = in_p(c, 1), O = out_p(c), B = has_in(c, 2) ? in_p(c, 2) : NULL;
  int plan = conv_plan(&k);
  loop_t ln, lg, lb;
  LLVMValueRef n = loop_open(c, &ln, C(c, 0), C(c, k.n));
  if (plan == CONV_DEPTHWISE) {
    cg_call_dwconv(c, &k, gep(c, X, mul(c, n, k.cin * HW)), W, B, gep(c, O, mul(c, n, k.m * P)), lo, hi);
    loop_close(c, &ln);
    return;
  }
  LLVMValueRef g = loop_open(c, &lg, C(c, 0), C(c, k.group));
  LLVMValueRef Xg = gep(c, X, add(c, mul(c, n, k.cin * HW), mul(c, g, cgi * HW)));
  LLVMValueRef Wg = gep(c, W, mul(c, g, mg * K));
  LLVMValueRef Og = gep(c, O, add(c, mul(c, n, k.m * P), mul(c, g, mg * P)));
  LLVMValueRef Bg = B ? gep(c, B, mul(c, g, mg)) : NULL;
  if (plan == CONV_DIRECT) {
    cg_call_dconv(c, &k, Xg, Wg, Bg, Og, lo, hi);
  } else if (plan == CONV_POINTWISE) {
    cg_call_pconv(c, Xg, Wg, Bg, Og, K, mg, P, lo, hi);
  } else {
    /* Blocks of output rows: their patch matrix is built in the scratch buffer, then one GEMM
     * writes those rows of every output channel. */
    int64_t rows = cg_im2col_rows(&k), nblk = (k.oh + rows - 1) / rows;
    LLVMValueRef S = LLVMBuildBitCast(c->b, c->scratch, c->fptr, "");
    LLVMValueRef blk = loop_open(c, &lb, C(c, 0), C(c, nblk));
    LLVMValueRef oh0 = mul(c, blk, rows);
    LLVMValueRef noh = cg_smin(c, C(c, rows), LLVMBuildNSWSub(c->b, C(c, k.oh), oh0, ""));
    LLVMValueRef ncol = mul(c, noh, k.ow);
    cg_call_im2col(c, &k, Xg, S, cgi, oh0, noh);
    cg_call_gemm(c, Wg, C(c, K), C(c, 1), S, ncol, gep(c, Og, mul(c, oh0, k.ow)), C(c, P), C(c, mg),
                 ncol, C(c, K), Bg, 1.0f, lo, hi);
    loop_close(c, &lb);
  }
  loop_close(c, &lg);
  loop_close(c, &ln);
}

/* Input positions i in [0, n_in) with 0 <= i*s + off < n_out. */
static void in_range(int64_t n_in, int64_t n_out, int64_t s, int64_t off, int64_t *lo, int64_t *hi) {
  int64_t l = 0;
  while (l < n_in && l * s + off < 0) l++;
  int64_t h = n_in;
  while (h > l && (h - 1) * s + off > n_out - 1) h--;
  *lo = l;
  *hi = h;
}

static void cg_emit_conv_transpose(cg *c) {
  conv_dims k = conv_get(c);
  int64_t cg_ = k.cin / k.group, mg = k.m / k.group, plane = k.oh * k.ow;
  LLVMValueRef X = in_p(c, 0), W = in_p(c, 1), O = out_p(c);
  loop_t ln, lm, lg, lc, lmo;
  if (conv_transpose_tiled(&k)) {
    int64_t HW = k.h * k.w, kk = k.kh * k.kw;
    LLVMValueRef S = LLVMBuildBitCast(c->b, c->scratch, c->fptr, ""), B = has_in(c, 2) ? in_p(c, 2) : NULL;
    LLVMValueRef n = loop_open(c, &ln, C(c, 0), C(c, k.n));
    LLVMValueRef g = loop_open(c, &lg, C(c, 0), C(c, k.group));
    LLVMValueRef Xg = gep(c, X, mul(c, add(c, mul(c, n, k.cin), mul(c, g, cg_)), HW));
    for (int64_t kh = 0; kh < k.kh; kh++)
      for (int64_t kw = 0; kw < k.kw; kw++) {
        /* S[mo, p] = sum_ci W[g*cg + ci, mo, kh, kw] * X[g*cg + ci, p] */
        LLVMValueRef Wt = gep(c, W, add(c, mul(c, g, cg_ * mg * kk), C(c, kh * k.kw + kw)));
        cg_call_gemm(c, Wt, C(c, kk), C(c, mg * kk), Xg, C(c, HW), S, C(c, HW), C(c, mg), C(c, HW), C(c, cg_), NULL,
                     1.0f, -INFINITY, INFINITY);
        loop_t lo_, lh, lw;
        LLVMValueRef mo = loop_open(c, &lo_, C(c, 0), C(c, mg));
        LLVMValueRef m = add(c, mul(c, g, mg), mo);
        LLVMValueRef bv = B ? load(c, B, m) : F(c, 0);
        LLVMValueRef outp = gep(c, O, mul(c, add(c, mul(c, n, k.m), m), plane));
        LLVMValueRef srow = gep(c, S, mul(c, mo, HW));
        LLVMValueRef ih = loop_open(c, &lh, C(c, 0), C(c, k.h));
        LLVMValueRef orow = mul(c, add(c, mul(c, ih, k.sh), C(c, kh)), k.ow);
        LLVMValueRef irow = mul(c, ih, k.w);
        LLVMValueRef iw = loop_open(c, &lw, C(c, 0), C(c, k.w));
        LLVMValueRef v = LLVMBuildFAdd(c->b, load(c, srow, add(c, irow, iw)), bv, "");
        store(c, v, outp, add(c, orow, add(c, mul(c, iw, k.sw), C(c, kw))));
        loop_close(c, &lw);
        loop_close(c, &lh);
        loop_close(c, &lo_);
      }
    loop_close(c, &lg);
    loop_close(c, &ln);
    return;
  }
  LLVMValueRef n = loop_open(c, &ln, C(c, 0), C(c, k.n));
  LLVMValueRef m = loop_open(c, &lm, C(c, 0), C(c, k.m));
  init_bias(c, gep(c, O, mul(c, add(c, mul(c, n, k.m), m), plane)), m, plane);
  loop_close(c, &lm);
  LLVMValueRef g = loop_open(c, &lg, C(c, 0), C(c, k.group));
  LLVMValueRef ci = loop_open(c, &lc, C(c, 0), C(c, cg_));
  LLVMValueRef ch = add(c, mul(c, g, cg_), ci);
  LLVMValueRef inp = gep(c, X, mul(c, add(c, mul(c, n, k.cin), ch), k.h * k.w));
  LLVMValueRef mo = loop_open(c, &lmo, C(c, 0), C(c, mg));
  LLVMValueRef mm = add(c, mul(c, g, mg), mo);
  LLVMValueRef outp = gep(c, O, mul(c, add(c, mul(c, n, k.m), mm), plane));
  LLVMValueRef wbase = mul(c, add(c, mul(c, ch, mg), mo), k.kh * k.kw);
  for (int64_t kh = 0; kh < k.kh; kh++)
    for (int64_t kw = 0; kw < k.kw; kw++) {
      int64_t ih0, ih1, iw0, iw1;
      in_range(k.h, k.oh, k.sh, kh * k.dh - k.pt, &ih0, &ih1);
      in_range(k.w, k.ow, k.sw, kw * k.dw - k.pl, &iw0, &iw1);
      if (ih0 >= ih1 || iw0 >= iw1) continue;
      LLVMValueRef wv = load(c, W, add(c, wbase, C(c, kh * k.kw + kw)));
      loop_t lh, lw;
      LLVMValueRef ih = loop_open(c, &lh, C(c, ih0), C(c, ih1));
      LLVMValueRef orow = mul(c, add(c, mul(c, ih, k.sh), C(c, kh * k.dh - k.pt)), k.ow);
      LLVMValueRef irow = mul(c, ih, k.w);
      LLVMValueRef iw = loop_open(c, &lw, C(c, iw0), C(c, iw1));
      LLVMValueRef iv = load(c, inp, add(c, irow, iw));
      LLVMValueRef oi = add(c, orow, add(c, mul(c, iw, k.sw), C(c, kw * k.dw - k.pl)));
      store(c, LLVMBuildFAdd(c->b, load(c, outp, oi), LLVMBuildFMul(c->b, wv, iv, ""), ""), outp, oi);
      loop_close(c, &lw);
      loop_close(c, &lh);
    }
  loop_close(c, &lmo);
  loop_close(c, &lc);
  loop_close(c, &lg);
  loop_close(c, &ln);
}

/* out[M,N] (+)= alpha * A[M,K] * B[K,N] with element strides (A: ars, acs; B: brs, bcs). */
static void emit_mm(cg *c, LLVMValueRef A, LLVMValueRef B, LLVMValueRef O, int64_t M, int64_t N,
                    int64_t K, int64_t ars, int64_t acs, int64_t brs, int64_t bcs, float alpha) {
  loop_t li, lj, lk, lj2;
  LLVMValueRef i = loop_open(c, &li, C(c, 0), C(c, M));
  LLVMValueRef row = gep(c, O, mul(c, i, N));
  LLVMValueRef j = loop_open(c, &lj, C(c, 0), C(c, N));
  store(c, F(c, 0), row, j);
  loop_close(c, &lj);
  LLVMValueRef k = loop_open(c, &lk, C(c, 0), C(c, K));
  LLVMValueRef a = load(c, A, add(c, mul(c, i, ars), mul(c, k, acs)));
  if (alpha != 1.0f) a = LLVMBuildFMul(c->b, a, F(c, alpha), "");
  LLVMValueRef brow = mul(c, k, brs);
  LLVMValueRef j2 = loop_open(c, &lj2, C(c, 0), C(c, N));
  LLVMValueRef bv = load(c, B, add(c, brow, mul(c, j2, bcs)));
  store(c, LLVMBuildFAdd(c->b, load(c, row, j2), LLVMBuildFMul(c->b, a, bv, ""), ""), row, j2);
  loop_close(c, &lj2);
  loop_close(c, &lk);
  loop_close(c, &li);
}

static void cg_emit_gemm(cg *c, float lo, float hi) {
  const vta_node *nd = c->nd;
  const vta_gvalue *a = V(c, nd->in[0]), *o = V(c, nd->out[0]);
  int ta = (int)vta_node_int(nd, "transA", 0), tb = (int)vta_node_int(nd, "transB", 0);
  int64_t M = o->dims[0], N = o->dims[1], K = ta ? a->dims[0] : a->dims[1];
  float alpha = vta_node_float(nd, "alpha", 1.0f), beta = vta_node_float(nd, "beta", 1.0f);
  int with_c = has_in(c, 2) && beta != 0.0f;
  if (!tb)
    cg_call_gemm(c, in_p(c, 0), C(c, ta ? 1 : K), C(c, ta ? M : 1), in_p(c, 1), C(c, N), out_p(c),
                 C(c, N), C(c, M), C(c, N), C(c, K), NULL, alpha, lo, hi);
  else if (!ta)
    cg_call_gemm_nt(c, in_p(c, 0), C(c, K), in_p(c, 1), C(c, K), out_p(c), C(c, N), C(c, M),
                    C(c, N), C(c, K), NULL, alpha, lo, hi);
  else
    emit_mm(c, in_p(c, 0), in_p(c, 1), out_p(c), M, N, K, 1, M, 1, K, alpha);
  if (with_c) {
    const vta_gvalue *cc = V(c, nd->in[2]);
    int64_t s[2];
    bstrides(cc, 2, s);
    loop_t li, lj;
    LLVMValueRef i = loop_open(c, &li, C(c, 0), C(c, M));
    LLVMValueRef j = loop_open(c, &lj, C(c, 0), C(c, N));
    LLVMValueRef oi = add(c, mul(c, i, N), j);
    LLVMValueRef cv = load(c, in_p(c, 2), add(c, mul(c, i, s[0]), mul(c, j, s[1])));
    if (beta != 1.0f) cv = LLVMBuildFMul(c->b, cv, F(c, beta), "");
    store(c, LLVMBuildFAdd(c->b, load(c, out_p(c), oi), cv, ""), out_p(c), oi);
    loop_close(c, &lj);
    loop_close(c, &li);
  }
}

static void cg_emit_matmul(cg *c, float lo, float hi) {
  const vta_node *nd = c->nd;
  const vta_gvalue *a = V(c, nd->in[0]), *b = V(c, nd->in[1]), *o = V(c, nd->out[0]);
  int64_t M = a->rank > 1 ? a->dims[a->rank - 2] : 1, K = a->dims[a->rank - 1];
  int64_t N = b->rank > 1 ? b->dims[b->rank - 1] : 1;
  /* Batch dimensions of the output and the broadcast strides of A's and B's batches. */
  int ob = o->rank - (a->rank > 1) - (b->rank > 1);
  int ab = a->rank > 2 ? a->rank - 2 : 0, bb = b->rank > 2 ? b->rank - 2 : 0;
  int64_t as[VTA_MAX_RANK] = {0}, bs[VTA_MAX_RANK] = {0}, acc = M * K, bacc = K * N;
  for (int d = ob - 1; d >= 0; d--) {
    int ad = d - (ob - ab), bd = d - (ob - bb);
    if (ad >= 0 && a->dims[ad] != 1) as[d] = acc;
    if (ad >= 0) acc *= a->dims[ad];
    if (bd >= 0 && b->dims[bd] != 1) bs[d] = bacc;
    if (bd >= 0) bacc *= b->dims[bd];
  }
  loop_t lp[VTA_MAX_RANK];
  LLVMValueRef ao = C(c, 0), bo = C(c, 0), oo = C(c, 0);
  int64_t ostride = M * N;
  int64_t os[VTA_MAX_RANK];
  for (int d = ob - 1; d >= 0; d--) os[d] = ostride, ostride *= o->dims[d];
  for (int d = 0; d < ob; d++) {
    LLVMValueRef i = loop_open(c, &lp[d], C(c, 0), C(c, o->dims[d]));
    ao = add(c, ao, mul(c, i, as[d]));
    bo = add(c, bo, mul(c, i, bs[d]));
    oo = add(c, oo, mul(c, i, os[d]));
  }
  cg_call_gemm(c, gep(c, in_p(c, 0), ao), C(c, K), C(c, 1), gep(c, in_p(c, 1), bo), C(c, N),
               gep(c, out_p(c), oo), C(c, N), C(c, M), C(c, N), C(c, K), NULL, 1.0f, lo, hi);
  for (int d = ob - 1; d >= 0; d--) loop_close(c, &lp[d]);
}

/* ---- pools, softmax ---- */

/* Leading epilogue steps a kernel can apply as a clamp: Relu and Clip. Returns how many. */
static int lead_clamp(const vta_node *nd, float *lo, float *hi) {
  *lo = -INFINITY;
  *hi = INFINITY;
  int k = 0;
  for (; k < nd->n_epi; k++) {
    const vta_epilogue *e = &nd->epi[k];
    float l, h;
    if (e->op == VTA_GOP_RELU) {
      l = 0, h = INFINITY;
    } else if (e->op == VTA_GOP_CLIP) {
      l = attr_f(e->n_attrs, e->attrs, "min", -INFINITY);
      h = attr_f(e->n_attrs, e->attrs, "max", INFINITY);
    } else {
      break;
    }
    /* clamp(clamp(x, lo, hi), l, h) == clamp(x, max(lo, l), min(hi, h)) when they overlap. */
    float nl = *lo > l ? *lo : l, nh = *hi < h ? *hi : h;
    if (nl > nh) break;
    *lo = nl, *hi = nh;
  }
  return k;
}

/* Can the node's kernel apply leading Relu/Clip steps itself? */
static int takes_clamp(const vta_node *nd) {
  if (nd->op == VTA_GOP_CONV || nd->op == VTA_GOP_MATMUL) return 1;
  if (nd->op != VTA_GOP_GEMM) return 0;
  int ta = (int)vta_node_int(nd, "transA", 0), tb = (int)vta_node_int(nd, "transB", 0);
  int with_c = nd->n_in > 2 && nd->in[2] >= 0 && vta_node_float(nd, "beta", 1.0f) != 0.0f;
  return !with_c && !(ta && tb);
}

static int conv_supports(const vta_graph *g, int i) { return cg_node_f32(g, i); }

static int conv_emit(cg *c) {
  const vta_node *nd = c->nd;
  float lo = -INFINITY, hi = INFINITY;
  c->epi_done = takes_clamp(nd) ? lead_clamp(nd, &lo, &hi) : 0;
  switch (nd->op) {
  case VTA_GOP_CONV: cg_emit_conv(c, lo, hi); break;
  case VTA_GOP_CONV_TRANSPOSE: cg_emit_conv_transpose(c); break;
  case VTA_GOP_GEMM: cg_emit_gemm(c, lo, hi); break;
  default: cg_emit_matmul(c, lo, hi); break;
  }
  return 0;
}

const vta_op_family vta_family_conv = {"op_conv.c", conv_infer, NULL, conv_supports, conv_emit, NULL};
