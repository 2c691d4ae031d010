/* codegen_conv.c - the CPU code of convolutions (depthwise, pointwise, and direct for stride 1
 * where the cost rule takes it; im2col and GEMM otherwise; per-tap GEMMs for transposed
 * convolutions whose kernel equals their stride), Gemm and MatMul, through the shared kernels of codegen_kernels.c, and the scratch
 * buffer those plans need. codegen_llvm.c dispatches each node to them. */
#include <llvm-c/Core.h>
#include <math.h>
#include <stdint.h>

#include "compiler/cpu/codegen_llvm.h"
#include "compiler/cpu/codegen_local.h"

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

void cg_emit_conv(cg *c, float lo, float hi) {
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

void cg_emit_conv_transpose(cg *c) {
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

void cg_emit_gemm(cg *c, float lo, float hi) {
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

void cg_emit_matmul(cg *c, float lo, float hi) {
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
