/* partition.c - which nodes run on the accelerator, why, and their lowering to accelerator
 * programs; the text of `vta compile --explain`.
 *
 * The design idea: a node goes to the accelerator when its arithmetic is exactly what the
 * lowering (compiler/accel/vta_lower.h) emits - an int8 convolution with groups 1 and dilation 1,
 * or an int8 dense layer, whose requantization is the pure rounding shift of the ALU epilogue
 * (per-channel multipliers only as powers of two, which are per-channel shifts) - and the
 * lowering's cost model finds a tiling that fits the configuration's buffers. Everything else
 * stays on the CPU, and the reason is recorded in words, with the multiply-accumulate count,
 * so `--explain` can say what was offloaded, what was not and why. Each accelerator node is
 * its own subgraph: the host packs its int8 NCHW input into the BATCH x BLOCK tiles the
 * program reads, replays the program, and unpacks the output (host/model.c); the quantizer
 * has already put QuantizeLinear / DequantizeLinear where int8 meets float, so those layout
 * conversions are the only boundary work left. The same node keeps its CPU code too, so a
 * bundle also runs without an accelerator and the two paths can be compared bit for bit.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/accel/partition.h"
#include "vta/config.h"

int vta_node_on_acc(const vta_graph *g, int i) {
  return strcmp(vta_node_string(&g->nodes[i], "device", "cpu"), "vta") == 0;
}

int vta_node_fused(const vta_graph *g, int i) {
  return (g->nodes[i].op == VTA_GOP_QADD || g->nodes[i].op == VTA_GOP_MAXPOOL) &&
         vta_node_int(&g->nodes[i], "fused", 0) != 0 && vta_node_on_acc(g, i);
}

/* The readers of value v, counted (at most 2 needed). */
static int readers(const vta_graph *g, int v) {
  int n = 0;
  for (int j = 0; j < g->n_nodes && n < 2; j++)
    for (int k = 0; k < g->nodes[j].n_in; k++) n += g->nodes[j].in[k] == v;
  return n;
}

/* The max pooling a convolution with "fuse_pool" ends with: the MaxPool reading its output
 * (its only reader), or -1. */
static int fused_pool_of(const vta_graph *g, int i) {
  const vta_node *nd = &g->nodes[i];
  if (nd->op != VTA_GOP_QCONV || !vta_node_int(nd, "fuse_pool", 0) || nd->n_out < 1) return -1;
  for (int j = i + 1; j < g->n_nodes; j++)
    if (g->nodes[j].op == VTA_GOP_MAXPOOL && g->nodes[j].n_in >= 1 && g->nodes[j].in[0] == nd->out[0])
      return j;
  return -1;
}

/* The add a convolution with "fuse_add" ends with: the QAdd reading its output (its only
 * reader), or -1. */
static int fused_add_of(const vta_graph *g, int i) {
  const vta_node *nd = &g->nodes[i];
  if (nd->op != VTA_GOP_QCONV || !vta_node_int(nd, "fuse_add", 0) || nd->n_out < 1) return -1;
  for (int j = i + 1; j < g->n_nodes; j++) {
    const vta_node *a = &g->nodes[j];
    if (a->op == VTA_GOP_QADD && a->n_in == 2 && (a->in[0] == nd->out[0] || a->in[1] == nd->out[0]))
      return j;
  }
  return -1;
}

static int producer_of(const vta_graph *g, int v);

/* The convolution whose program computes fused node i (an add or a max pooling reading its
 * output, fused_add_of / fused_pool_of), or -1. */
static int fused_into(const vta_graph *g, int i) {
  const vta_node *nd = &g->nodes[i];
  for (int k = 0; k < nd->n_in; k++) {
    int f = nd->in[k] >= 0 ? producer_of(g, nd->in[k]) : -1;
    if (f >= 0 && (fused_add_of(g, f) == i || fused_pool_of(g, f) == i)) return f;
  }
  return -1;
}

uint64_t vta_node_macs(const vta_graph *g, int i) {
  const vta_node *nd = &g->nodes[i];
  const vta_gvalue *o = nd->n_out ? &g->values[nd->out[0]] : NULL;
  if (!o) return 0;
  switch (nd->op) {
  case VTA_GOP_CONV: case VTA_GOP_QCONV: case VTA_GOP_QLINEAR_CONV: case VTA_GOP_CONV_INTEGER: {
    int wi = nd->op == VTA_GOP_QLINEAR_CONV ? 3 : 1;
    const vta_gvalue *w = &g->values[nd->in[wi]];
    return (uint64_t)vta_value_count(o) * (uint64_t)(vta_value_count(w) / (w->dims[0] ? w->dims[0] : 1));
  }
  case VTA_GOP_GEMM: case VTA_GOP_MATMUL: case VTA_GOP_QDENSE: case VTA_GOP_QLINEAR_MATMUL:
  case VTA_GOP_MATMUL_INTEGER: {
    const vta_gvalue *a = &g->values[nd->in[0]];
    int64_t k = nd->op == VTA_GOP_GEMM && vta_node_int(nd, "transA", 0) ? a->dims[0] : a->dims[a->rank - 1];
    return (uint64_t)vta_value_count(o) * (uint64_t)k;
  }
  default: return 0;
  }
}

void vta_acc_layer_free(vta_acc_layer *L) {
  for (int p = 0; L->parts && p < L->nparts; p++) {
    free(L->parts[p].ch);
    free(L->parts[p].shifts);
    vta_lowered_free(&L->parts[p].low);
  }
  free(L->parts);
  memset(L, 0, sizeof *L);
}

/* The node's multipliers (NULL without), checked to be powers of two: *ok = 0 otherwise. */
static const int32_t *pow2_muls(const vta_graph *g, const vta_node *nd, int *ok) {
  *ok = 1;
  if (nd->n_in <= 3 || nd->in[3] < 0) return NULL;
  const vta_gvalue *m = &g->values[nd->in[3]];
  const int32_t *mul = m->data;
  for (int64_t c = 0; c < vta_value_count(m); c++)
    if (mul[c] <= 0 || (mul[c] & (mul[c] - 1))) *ok = 0;
  return mul;
}

static int log2_u32(uint32_t x) {
  int k = 0;
  while (x > 1) x >>= 1, k++;
  return k;
}

/* An int8 MaxPool: the window, and an input that is never negative (the accelerator's loads
 * pad with 0): its producer clips at 0 or above. */
static int pool_desc(const vta_graph *g, int i, const vta_config *cfg, vta_acc_layer *L, vta_error *err) {
  const vta_node *nd = &g->nodes[i];
  char w[300];
  const vta_gvalue *x = &g->values[nd->in[0]], *y = &g->values[nd->out[0]];
  if (x->dtype != VTA_DT_I8 || x->rank != 4)
    return vta_error_set(err, VTA_ERR_UNSUPPORTED, "%s: %s max pooling of rank %d (the accelerator's "
                         "is int8 NCHW)", vta_node_describe(g, i, w, sizeof w), vta_dtype_name(x->dtype),
                         x->rank);
  int64_t ks[2] = {1, 1}, st[2] = {1, 1}, dl[2] = {1, 1}, pd[4] = {0, 0, 0, 0};
  vta_node_ints(nd, "kernel_shape", ks, 2);
  vta_node_ints(nd, "strides", st, 2);
  vta_node_ints(nd, "dilations", dl, 2);
  vta_node_ints(nd, "pads", pd, 4);
  if (dl[0] != 1 || dl[1] != 1 || vta_node_int(nd, "ceil_mode", 0) ||
      strcmp(vta_node_string(nd, "auto_pad", "NOTSET"), "NOTSET"))
    return vta_error_set(err, VTA_ERR_UNSUPPORTED, "%s: dilation, ceil_mode or auto_pad (the "
                         "accelerator's max pooling has explicit pads, floor sizes)",
                         vta_node_describe(g, i, w, sizeof w));
  int producer = -1;
  for (int j = 0; j < i; j++)
    if (g->nodes[j].n_out >= 1 && g->nodes[j].out[0] == nd->in[0]) producer = j;
  const vta_node *pn = producer >= 0 ? &g->nodes[producer] : NULL;
  int64_t plo = pn && (pn->op == VTA_GOP_QCONV || pn->op == VTA_GOP_QDENSE || pn->op == VTA_GOP_QADD)
                    ? vta_node_int(pn, "lo", -128) : -128;
  int padded = pd[0] || pd[1] || pd[2] || pd[3];
  if (plo < 0 && padded)
    return vta_error_set(err, VTA_ERR_UNSUPPORTED, "%s: its input may be negative (%s) and it pads; "
                         "the accelerator pads windows with 0", vta_node_describe(g, i, w, sizeof w),
                         pn ? "its producer is not an int8 layer clipping at 0 or above"
                            : "it is a graph input");
  for (int k = 0; k < 4; k++)
    if (x->dims[k] < 1 || x->dims[k] > 65535 || (k < 2 && (ks[k] < 1 || st[k] < 1)) || pd[k] < 0)
      return vta_error_set(err, VTA_ERR_UNSUPPORTED, "%s: a size, kernel, stride or pad out of range",
                           vta_node_describe(g, i, w, sizeof w));
  L->pool = 1;
  L->pd = (vta_pool_desc){.n = (uint32_t)x->dims[0], .c = (uint32_t)x->dims[1], .h = (uint32_t)x->dims[2],
                          .w = (uint32_t)x->dims[3], .kh = (uint32_t)ks[0], .kw = (uint32_t)ks[1],
                          .stride_h = (uint32_t)st[0], .stride_w = (uint32_t)st[1],
                          .pad_top = (uint32_t)pd[0], .pad_left = (uint32_t)pd[1],
                          .pad_bottom = (uint32_t)pd[2], .pad_right = (uint32_t)pd[3],
                          .negative = plo < 0};
  int rc = vta_pool_check(cfg, &L->pd, err);
  if (!rc && (y->dims[2] != vta_pool_out_h(&L->pd) || y->dims[3] != vta_pool_out_w(&L->pd)))
    rc = vta_error_set(err, VTA_ERR_INVALID, "output %lldx%lld, the window gives %ux%u",
                       (long long)y->dims[2], (long long)y->dims[3], vta_pool_out_h(&L->pd),
                       vta_pool_out_w(&L->pd));
  if (rc) {
    vta_error_prefix(err, "%s", vta_node_describe(g, i, w, sizeof w));
    return rc;
  }
  L->parts = calloc(1, sizeof *L->parts);
  if (!L->parts || !(L->parts[0].ch = malloc(sizeof(uint32_t) * L->pd.c + 4))) {
    vta_acc_layer_free(L);
    return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  }
  L->nparts = 1;
  L->parts[0].nch = L->pd.c;
  for (uint32_t c = 0; c < L->pd.c; c++) L->parts[0].ch[c] = c;
  return 0;
}

int vta_acc_desc(const vta_graph *g, int i, const vta_config *cfg, vta_acc_layer *L, vta_error *err) {
  const vta_node *nd = &g->nodes[i];
  char w[300];
  memset(L, 0, sizeof *L);
  L->node = i;
  if (nd->op == VTA_GOP_MAXPOOL) return pool_desc(g, i, cfg, L, err);
  int64_t shift = vta_node_int(nd, "shift", 0), lo = vta_node_int(nd, "lo", -128), hi = vta_node_int(nd, "hi", 127);
  int64_t leaky_k = vta_node_int(nd, "leaky_k", 0), leaky_m = vta_node_int(nd, "leaky_m", 0);
  if (leaky_k < 0 || leaky_k > 31 || leaky_m < 0 || leaky_m > 32767)
    return vta_error_set(err, VTA_ERR_INVALID, "%s: LeakyRelu slope %lld / 2^%lld out of range",
                         vta_node_describe(g, i, w, sizeof w), (long long)leaky_m, (long long)leaky_k);
  int ok;
  const int32_t *mul = pow2_muls(g, nd, &ok);
  if (!ok)
    return vta_error_set(err, VTA_ERR_UNSUPPORTED, "%s: per-channel multipliers other than powers of "
                         "two need a MUL epilogue the lowering does not have",
                         vta_node_describe(g, i, w, sizeof w));
  vta_conv_desc d;
  vta_dense_desc dd;
  memset(&dd, 0, sizeof dd);
  uint32_t nout;
  int has_bias = nd->n_in > 2 && nd->in[2] >= 0;
  if (nd->op == VTA_GOP_QDENSE) {
    const vta_gvalue *x = &g->values[nd->in[0]], *wt = &g->values[nd->in[1]];
    int64_t k = x->dims[x->rank - 1], m = vta_value_count(x) / (k ? k : 1);
    if (m > 65535 || k > 65535 || wt->dims[0] > 65535)
      return vta_error_set(err, VTA_ERR_UNSUPPORTED, "%s: dense sizes above 65535",
                           vta_node_describe(g, i, w, sizeof w));
    L->dense = 1;
    dd = (vta_dense_desc){.m = (uint32_t)m, .k = (uint32_t)k, .n = (uint32_t)wt->dims[0],
                          .has_bias = has_bias, .shift = (uint32_t)shift, .relu = 0,
                          .clip_lo = (int32_t)lo, .clip_hi = (int32_t)hi,
                          .leaky_k = (uint32_t)leaky_k, .leaky_m = (int32_t)leaky_m};
    vta_dense_as_conv(cfg, &dd, &d);
    nout = dd.n;
  } else if (nd->op == VTA_GOP_QCONV) {
    vta_qconv_shape s;
    vta_qconv_shape_of(g, nd, &s);
    if (s.group != 1)
      return vta_error_set(err, VTA_ERR_UNSUPPORTED, "%s: %lld groups (the lowering handles groups = 1)",
                           vta_node_describe(g, i, w, sizeof w), (long long)s.group);
    if (s.dh != 1 || s.dw != 1)
      return vta_error_set(err, VTA_ERR_UNSUPPORTED, "%s: dilation %lldx%lld (the lowering handles 1)",
                           vta_node_describe(g, i, w, sizeof w), (long long)s.dh, (long long)s.dw);
    int64_t pd[4] = {0, 0, 0, 0};
    vta_node_ints(nd, "pads", pd, 4);
    int two = g->values[nd->in[0]].rank == 4;
    int64_t pb = two ? pd[2] : 0, pr = two ? pd[3] : pd[1];
    int64_t sz[] = {s.n, s.c, s.h, s.w, s.m, s.kh, s.kw, s.sh, s.sw, s.pt, s.pl, pb, pr};
    for (size_t k = 0; k < sizeof sz / sizeof sz[0]; k++)
      if (sz[k] < 0 || sz[k] > 65535)
        return vta_error_set(err, VTA_ERR_UNSUPPORTED, "%s: a size above 65535",
                             vta_node_describe(g, i, w, sizeof w));
    d = (vta_conv_desc){.n = (uint32_t)s.n, .c = (uint32_t)s.c, .h = (uint32_t)s.h, .w = (uint32_t)s.w,
                        .k = (uint32_t)s.m, .kh = (uint32_t)s.kh, .kw = (uint32_t)s.kw,
                        .stride_h = (uint32_t)s.sh, .stride_w = (uint32_t)s.sw,
                        .pad_top = (uint32_t)s.pt, .pad_left = (uint32_t)s.pl,
                        .pad_bottom = (uint32_t)pb, .pad_right = (uint32_t)pr,
                        .has_bias = has_bias, .shift = (uint32_t)shift, .relu = 0,
                        .clip_lo = (int32_t)lo, .clip_hi = (int32_t)hi,
                        .leaky_k = (uint32_t)leaky_k, .leaky_m = (int32_t)leaky_m};
    nout = d.k;
    if (vta_node_int(nd, "fuse_add", 0)) { /* the QAdd reading its output, in its epilogue */
      int j = fused_add_of(g, i);
      if (j < 0)
        return vta_error_set(err, VTA_ERR_INVALID, "%s: marked to end with an add, but no QAdd reads "
                             "its output", vta_node_describe(g, i, w, sizeof w));
      const vta_node *a = &g->nodes[j];
      int mine = a->in[0] == nd->out[0] ? 0 : 1;
      int64_t m0 = vta_node_int(a, "ma", 1), m1 = vta_node_int(a, "mb", 1);
      d.post_add = 1;
      d.add_ma = (int32_t)(mine ? m1 : m0);
      d.add_mb = (int32_t)(mine ? m0 : m1);
      d.add_shift = (uint32_t)vta_node_int(a, "shift", 0);
      d.add_lo = (int32_t)vta_node_int(a, "lo", -128);
      d.add_hi = (int32_t)vta_node_int(a, "hi", 127);
      L->fused_add = 1;
      L->add_node = j;
      L->add_out = a->out[0];
      L->add_in2 = a->in[1 - mine];
    }
    if (vta_node_int(nd, "fuse_pool", 0)) { /* the MaxPool reading its output, after its epilogue */
      int j = fused_pool_of(g, i);
      if (j < 0)
        return vta_error_set(err, VTA_ERR_INVALID, "%s: marked to end with a max pooling, but no "
                             "MaxPool reads its output", vta_node_describe(g, i, w, sizeof w));
      d.post_pool = 1;
      L->fused_pool = 1;
      L->pool_node = j;
      L->pool_out = g->nodes[j].out[0];
    }
  } else if (nd->op == VTA_GOP_QADD) {
    /* Elementwise: the operands' elements, in their order, as a 1x1 convolution of BLOCK
     * channels by rows of the tensor's last dimension (or single elements); the packing is a
     * fixed permutation of the elements, the same for both operands and the output. */
    int64_t ma = vta_node_int(nd, "ma", 1), mb = vta_node_int(nd, "mb", 1);
    const vta_gvalue *y = &g->values[nd->out[0]];
    int64_t n = vta_value_count(y), blk = cfg->block_out;
    int64_t wd = y->rank >= 1 ? y->dims[y->rank - 1] : 1;
    if (cfg->block_in != cfg->block_out)
      return vta_error_set(err, VTA_ERR_UNSUPPORTED, "%s: a residual add needs BLOCK_IN = BLOCK_OUT "
                           "(this configuration: %u and %u)", vta_node_describe(g, i, w, sizeof w),
                           cfg->block_in, cfg->block_out);
    if (ma < 0 || ma > 127 || mb < 0 || mb > 127)
      return vta_error_set(err, VTA_ERR_UNSUPPORTED, "%s: multipliers %lld and %lld; the accelerator "
                           "applies at most 127 (int8 weights), so it runs on the CPU with 14 bits "
                           "(`--residual-adds exact` or `acc` quantize adds for the accelerator)",
                           vta_node_describe(g, i, w, sizeof w), (long long)ma, (long long)mb);
    if (n % blk)
      return vta_error_set(err, VTA_ERR_UNSUPPORTED, "%s: %lld elements, not a multiple of BLOCK_OUT %lld",
                           vta_node_describe(g, i, w, sizeof w), (long long)n, (long long)blk);
    if (wd < 1 || (n / blk) % wd) wd = 1;
    if (n / blk / wd > 65535 || wd > 65535)
      return vta_error_set(err, VTA_ERR_UNSUPPORTED, "%s: %lld elements in rows of %lld: more than "
                           "65535 rows", vta_node_describe(g, i, w, sizeof w), (long long)n, (long long)wd);
    L->add = 1;
    d = (vta_conv_desc){.n = 1, .c = (uint32_t)blk, .h = (uint32_t)(n / blk / wd), .w = (uint32_t)wd,
                        .k = (uint32_t)blk, .kh = 1, .kw = 1, .stride_h = 1, .stride_w = 1,
                        .has_bias = 0, .shift = (uint32_t)shift, .relu = 0, .clip_lo = (int32_t)lo,
                        .clip_hi = (int32_t)hi, .has_residual = 1, .residual_mul = (int32_t)mb};
    nout = d.k;
    mul = NULL;
  } else {
    return vta_error_set(err, VTA_ERR_UNSUPPORTED, "%s: not an int8 convolution, dense layer or add",
                         vta_node_describe(g, i, w, sizeof w));
  }
  /* Channel c shifts by S - log2(mul[c]). A convolution is one part whose epilogue shifts each
   * channel by its own amount (one vector SHRCLIP, the clip with it); a dense layer, one part per distinct shift, in
   * order of first appearance. */
  int shifts[33];
  int ns = 0, most = 0;
  for (uint32_t c = 0; c < nout; c++) {
    int sc = (int)shift - (mul ? log2_u32((uint32_t)mul[c]) : 0);
    int seen = 0;
    for (int k = 0; k < ns; k++) seen |= shifts[k] == sc;
    if (!seen) {
      if (sc < 0 || sc > 31 || ns >= 33)
        return vta_error_set(err, VTA_ERR_INVALID, "%s: multiplier %d and shift %lld leave a shift "
                             "outside 0..31", vta_node_describe(g, i, w, sizeof w), mul ? mul[c] : 1,
                             (long long)shift);
      shifts[ns++] = sc;
      if (sc > most) most = sc;
    }
  }
  int per_channel = !L->dense && ns > 1;
  int np = per_channel ? 1 : ns;
  L->parts = calloc((size_t)np, sizeof *L->parts);
  if (!L->parts) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  L->nparts = np;
  for (int p = 0; p < np; p++) {
    vta_acc_part *P = &L->parts[p];
    P->ch = malloc(sizeof(uint32_t) * nout);
    P->shifts = per_channel ? malloc(nout) : NULL;
    if (!P->ch || (per_channel && !P->shifts)) {
      vta_acc_layer_free(L);
      return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
    }
    for (uint32_t c = 0; c < nout; c++) {
      int sc = (int)shift - (mul ? log2_u32((uint32_t)mul[c]) : 0);
      if (per_channel) P->shifts[P->nch] = (uint8_t)sc;
      if (per_channel || sc == shifts[p]) P->ch[P->nch++] = c;
    }
    P->d = d;
    P->dd = dd;
    P->d.shift = P->dd.shift = (uint32_t)(per_channel ? most : shifts[p]);
    P->d.shifts = P->shifts;
    if (L->dense) {
      P->dd.n = P->nch;
      vta_dense_as_conv(cfg, &P->dd, &P->d);
    } else {
      P->d.k = P->nch;
    }
    if (vta_conv_check(cfg, &P->d, err)) {
      vta_acc_layer_free(L);
      return -1;
    }
  }
  return 0;
}

/* Part p's weights [nch][per] and biases (each divided by its channel's multiplier: with the
 * shift S - log2(mul[c]) and its rounding, (acc + bias[c] / mul[c] + 2^(s_c - 1)) >> s_c equals
 * the CPU's (acc * mul[c] + bias[c] + 2^(S - 1)) >> S bit for bit). */
int vta_acc_part_constants(const vta_graph *g, const vta_acc_layer *L, int p, int8_t **w, int32_t **b,
                           vta_error *err) {
  const vta_node *nd = &g->nodes[L->node];
  const vta_acc_part *P = &L->parts[p];
  if (L->add) { /* diag(ma), no bias */
    *w = calloc((size_t)P->nch * P->nch + 1, 1);
    *b = calloc((size_t)P->nch + 1, sizeof(int32_t));
    if (!*w || !*b) {
      free(*w);
      free(*b);
      return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
    }
    for (uint32_t k = 0; k < P->nch; k++) (*w)[(size_t)k * P->nch + k] = (int8_t)vta_node_int(nd, "ma", 1);
    return 0;
  }
  const vta_gvalue *wv = &g->values[nd->in[1]];
  int64_t per = vta_value_count(wv) / (wv->dims[0] ? wv->dims[0] : 1);
  int ok;
  const int32_t *mul = pow2_muls(g, nd, &ok);
  *w = malloc((size_t)(per * P->nch) + 1);
  *b = malloc(sizeof(int32_t) * P->nch + 4);
  if (!*w || !*b) {
    free(*w);
    free(*b);
    return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  }
  const int8_t *W = wv->data;
  const int32_t *B = nd->n_in > 2 && nd->in[2] >= 0 ? g->values[nd->in[2]].data : NULL;
  for (uint32_t k = 0; k < P->nch; k++) {
    uint32_t c = P->ch[k];
    memcpy(*w + (size_t)k * (size_t)per, W + (size_t)c * (size_t)per, (size_t)per);
    (*b)[k] = B ? B[c] / (mul ? mul[c] : 1) : 0; /* exact: the quantizer made it a multiple */
  }
  return 0;
}

/* The plan partitioning chose for part p, kept on the node as the attribute "plan<p>" (nine
 * integers: tile sizes, order, bias residency, im2col), so that lowering for the bundle does not
 * search again. One attribute per part keeps each within the text form's 64 elements. */
enum { PLAN_INTS = 9, MAX_PARTS = 33 };
static void plan_to_ints(const vta_tile_plan *p, int64_t *v) {
  v[0] = p->ho_t, v[1] = p->wo_t, v[2] = p->co_t, v[3] = p->ci_t, v[4] = p->kh_t, v[5] = p->kw_t;
  v[6] = p->order, v[7] = p->bias_resident, v[8] = p->im2col;
}
static int stored_plan(const vta_node *nd, int p, vta_tile_plan *out) {
  char name[16];
  snprintf(name, sizeof name, "plan%d", p);
  const vta_attr *a = vta_node_attr(nd, name);
  if (!a || a->kind != VTA_ATTR_INTS || a->n != PLAN_INTS) return 0;
  const int64_t *v = a->ints;
  for (int k = 0; k < PLAN_INTS; k++)
    if (v[k] < 0 || v[k] > 65535) return 0;
  if (v[6] >= VTA_TILE_ORDER_COUNT) return 0;
  memset(out, 0, sizeof *out);
  out->ho_t = (uint32_t)v[0], out->wo_t = (uint32_t)v[1], out->co_t = (uint32_t)v[2];
  out->ci_t = (uint32_t)v[3], out->kh_t = (uint32_t)v[4], out->kw_t = (uint32_t)v[5];
  out->order = (vta_tile_order)v[6], out->bias_resident = v[7] != 0, out->im2col = v[8] != 0;
  return 1;
}

int vta_conv_same_geometry(const vta_conv_desc *a, const vta_conv_desc *b) {
  return a->n == b->n && a->c == b->c && a->h == b->h && a->w == b->w && a->k == b->k && a->kh == b->kh &&
         a->kw == b->kw && a->stride_h == b->stride_h && a->stride_w == b->stride_w &&
         a->pad_top == b->pad_top && a->pad_left == b->pad_left && a->pad_bottom == b->pad_bottom &&
         a->pad_right == b->pad_right && !a->has_residual == !b->has_residual &&
         !a->post_add == !b->post_add;
}

const vta_tile_plan *vta_tuning_find(const vta_tuning *t, const vta_conv_desc *d, vta_tile_epilogue epi) {
  for (int k = 0; t && k < t->n; k++)
    if (t->p[k].epi == epi && vta_conv_same_geometry(&t->p[k].d, d)) return &t->p[k].plan;
  return NULL;
}

vta_tile_epilogue vta_acc_part_epilogue(const vta_graph *g, const vta_acc_layer *L, int p) {
  int8_t *w;
  int32_t *b;
  vta_error ignore;
  if (vta_acc_part_constants(g, L, p, &w, &b, &ignore)) return VTA_EPI_RESET_ADD;
  const vta_conv_desc *d = &L->parts[p].d;
  vta_tile_epilogue e = vta_conv_epilogue(d, w, d->has_bias ? b : NULL);
  free(w);
  free(b);
  return e;
}

int vta_acc_lower(const vta_graph *g, int i, const vta_config *cfg, vta_acc_layer *L, vta_error *err) {
  return vta_acc_lower_tuned(g, i, cfg, NULL, L, NULL, err);
}

int vta_acc_lower_tuned(const vta_graph *g, int i, const vta_config *cfg, const vta_tuning *tuning,
                        vta_acc_layer *L, int *tuned, vta_error *err) {
  if (vta_acc_desc(g, i, cfg, L, err)) return -1;
  if (L->pool) {
    if (vta_lower_maxpool(cfg, &L->pd, &L->parts[0].low, err)) {
      char wd[300];
      vta_error_prefix(err, "%s", vta_node_describe(g, i, wd, sizeof wd));
      vta_acc_layer_free(L);
      return -1;
    }
    return 0;
  }
  for (int p = 0; p < L->nparts; p++) {
    vta_acc_part *P = &L->parts[p];
    int8_t *w;
    int32_t *b;
    if (vta_acc_part_constants(g, L, p, &w, &b, err)) {
      vta_acc_layer_free(L);
      return -1;
    }
    /* A tuned plan must still fit (a tuning file from another configuration, or stale). */
    const vta_tile_plan *plan =
        tuning ? vta_tuning_find(tuning, &P->d, vta_conv_epilogue(&P->d, w, P->d.has_bias ? b : NULL)) : NULL;
    vta_error ignore;
    if (plan && vta_tile_check(cfg, &P->d, plan, &ignore)) plan = NULL;
    if (plan && tuned) (*tuned)++;
    /* Else the plan partitioning chose (if it still fits: the graph may come from elsewhere). */
    vta_tile_plan kept;
    if (!plan && stored_plan(&g->nodes[i], p, &kept) && !vta_tile_check(cfg, &P->d, &kept, &ignore))
      plan = &kept;
    int rc = L->dense ? vta_lower_dense(cfg, &P->dd, w, P->dd.has_bias ? b : NULL, plan, &P->low, err)
                      : vta_lower_conv2d(cfg, &P->d, w, P->d.has_bias ? b : NULL, plan, &P->low, err);
    free(w);
    free(b);
    if (rc) {
      char wd[300];
      vta_error_prefix(err, "%s", vta_node_describe(g, i, wd, sizeof wd));
      vta_acc_layer_free(L);
      return -1;
    }
  }
  return 0;
}

void vta_acc_pack_input(const vta_config *cfg, const vta_acc_layer *L, int p, const int8_t *x, int8_t *dst) {
  const vta_acc_part *P = &L->parts[p];
  if (L->pool) {
    vta_layout_pack_act(cfg, x, L->pd.n, L->pd.c, L->pd.h, L->pd.w, cfg->block_in, dst);
    return;
  }
  memset(dst, 0, P->low.input_bytes);
  if (L->dense)
    vta_layout_pack_dense(cfg, x, P->dd.m, P->dd.k, cfg->block_in, dst);
  else
    vta_lowered_pack_input(cfg, &P->d, &P->low, x, dst);
}

void vta_acc_pack_input2(const vta_config *cfg, const vta_acc_layer *L, int p, const int8_t *x2, int8_t *dst) {
  const vta_acc_part *P = &L->parts[p];
  memset(dst, 0, P->low.input2_bytes);
  vta_layout_pack_act(cfg, x2, P->d.n, P->d.k, vta_conv_out_h(&P->d), vta_conv_out_w(&P->d), cfg->block_out, dst);
}

static uint32_t layer_outputs(const vta_acc_layer *L) {
  uint32_t n = 0;
  for (int q = 0; q < L->nparts; q++) n += L->parts[q].nch;
  return n;
}

void vta_acc_unpack_output(const vta_config *cfg, const vta_acc_layer *L, int p, const int8_t *src,
                           int8_t *tmp, int8_t *y) {
  const vta_acc_part *P = &L->parts[p];
  uint32_t n = layer_outputs(L);
  if (L->pool) {
    vta_layout_unpack_act(cfg, src, L->pd.n, L->pd.c, vta_pool_out_h(&L->pd), vta_pool_out_w(&L->pd),
                   cfg->block_out, y);
    return;
  }
  if (L->dense) {
    /* tmp [m][nch] -> the part's columns of y [m][n] */
    vta_layout_unpack_dense(cfg, src, P->dd.m, P->nch, cfg->block_out, tmp);
    for (uint32_t r = 0; r < P->dd.m; r++)
      for (uint32_t k = 0; k < P->nch; k++) y[(size_t)r * n + P->ch[k]] = tmp[(size_t)r * P->nch + k];
    return;
  }
  uint32_t ho = vta_conv_out_h(&P->d), wo = vta_conv_out_w(&P->d);
  size_t plane = (size_t)ho * wo;
  vta_layout_unpack_act(cfg, src, P->d.n, P->nch, ho, wo, cfg->block_out, tmp);
  for (uint32_t b = 0; b < P->d.n; b++)
    for (uint32_t k = 0; k < P->nch; k++)
      memcpy(y + ((size_t)b * n + P->ch[k]) * plane, tmp + ((size_t)b * P->nch + k) * plane, plane);
}

/* The cost model's choice for part p (with the epilogue the lowering will pick from the
 * part's constants); the predicted cycles of all parts are added up by the callers. */
static int part_choice(const vta_graph *g, const vta_acc_layer *L, int p, const vta_config *cfg,
                       vta_tile_choice *ch, vta_error *err) {
  int8_t *w;
  int32_t *b;
  if (vta_acc_part_constants(g, L, p, &w, &b, err)) return -1;
  const vta_conv_desc *d = &L->parts[p].d;
  vta_tile_epilogue epi = vta_conv_epilogue(d, w, d->has_bias ? b : NULL);
  free(w);
  free(b);
  return vta_tile_choose(cfg, NULL, d, epi, ch, err);
}

/* The cost model's choices made so far in one pass, by geometry and epilogue: many parts of a
 * network share a shape (ResNet-18's 58 programs have 44), and the search is the pass's cost.
 * The search also sees whether there is a bias, a shift, per-channel shifts and a LeakyRelu
 * (they decide micro-ops and the ACC regions, not their values), so those are part of
 * the key too. A remembered description outlives its layer: its shifts pointer becomes
 * k_shifts_given, only ever compared with NULL. */
static const uint8_t k_shifts_given[1];

static int same_key(const vta_conv_desc *a, vta_tile_epilogue ea, const vta_conv_desc *b,
                    vta_tile_epilogue eb) {
  return ea == eb && vta_conv_same_geometry(a, b) && !a->has_bias == !b->has_bias &&
         !a->shift == !b->shift && !vta_conv_shift_vector(a) == !vta_conv_shift_vector(b) &&
         !a->leaky_k == !b->leaky_k && !a->post_add == !b->post_add;
}

static vta_conv_desc remembered(const vta_conv_desc *d) {
  vta_conv_desc r = *d;
  if (r.shifts) r.shifts = k_shifts_given;
  return r;
}

typedef struct choice_memo {
  int n, cap;
  vta_conv_desc *d;
  vta_tile_epilogue *epi;
  vta_tile_choice *ch;
} choice_memo;

/* epi: the part's epilogue if known (presearch worked it out from the part's constants),
 * else -1. */
static int memo_choice(choice_memo *m, const vta_graph *g, const vta_acc_layer *L, int p, int epi_known,
                       const vta_config *cfg, vta_tile_choice *ch, vta_error *err) {
  const vta_conv_desc *d = &L->parts[p].d;
  vta_tile_epilogue epi = epi_known >= 0 ? (vta_tile_epilogue)epi_known : vta_acc_part_epilogue(g, L, p);
  for (int k = 0; k < m->n; k++)
    if (same_key(&m->d[k], m->epi[k], d, epi)) {
      *ch = m->ch[k];
      return 0;
    }
  if (vta_tile_choose(cfg, NULL, d, epi, ch, err)) return -1;
  if (m->n == m->cap) {
    int cap = m->cap ? 2 * m->cap : 32;
    vta_conv_desc *nd = realloc(m->d, sizeof *nd * (size_t)cap);
    if (nd) m->d = nd;
    vta_tile_epilogue *ne = realloc(m->epi, sizeof *ne * (size_t)cap);
    if (ne) m->epi = ne;
    vta_tile_choice *nc = realloc(m->ch, sizeof *nc * (size_t)cap);
    if (nc) m->ch = nc;
    if (!nd || !ne || !nc) return 0; /* no room to remember: the choice stands */
    m->cap = cap;
  }
  m->d[m->n] = remembered(d);
  m->epi[m->n] = epi;
  m->ch[m->n++] = *ch;
  return 0;
}

/* The tiling searches of a pass, run before it on all cores: one job per distinct geometry and
 * epilogue among the accelerator candidates' parts; their choices seed the memo, so the pass
 * itself finds every choice made (a search that failed is left out and fails again in the
 * pass, with its message where it belongs). */
typedef struct search_jobs {
  const vta_config *cfg;
  int n, cap;
  vta_conv_desc *d;
  vta_tile_epilogue *epi;
  vta_tile_choice *ch;
  int *ok;
} search_jobs;

static void search_one(void *ctx, int k) {
  search_jobs *J = ctx;
  vta_error e = {0};
  J->ok[k] = vta_tile_choose(J->cfg, NULL, &J->d[k], J->epi[k], &J->ch[k], &e) == VTA_OK;
}

static int memo_has(const choice_memo *m, const vta_conv_desc *d, vta_tile_epilogue epi) {
  for (int k = 0; k < m->n; k++)
    if (same_key(&m->d[k], m->epi[k], d, epi)) return 1;
  return 0;
}

/* epi_of (may be NULL): receives each part's epilogue, [node * MAX_PARTS + part], so that the
 * pass does not copy and scan every layer's weights again. */
static void presearch(const vta_graph *g, const vta_config *cfg, choice_memo *memo, int *epi_of) {
  search_jobs J = {.cfg = cfg};
  choice_memo keys = {0}; /* the distinct keys, as a memo without choices */
  uint8_t **owned = NULL;  /* copies of the keys' shifts (the search checks them) */
  int nowned = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    const vta_node *nd = &g->nodes[i];
    if (nd->op != VTA_GOP_QCONV && nd->op != VTA_GOP_QDENSE && nd->op != VTA_GOP_QADD) continue;
    vta_acc_layer L;
    vta_error e = {0};
    if (vta_acc_desc(g, i, cfg, &L, &e)) continue;
    for (int q = 0; q < L.nparts; q++) {
      vta_tile_epilogue epi = vta_acc_part_epilogue(g, &L, q);
      if (epi_of && q < MAX_PARTS) epi_of[(size_t)i * MAX_PARTS + (size_t)q] = (int)epi;
      if (memo_has(&keys, &L.parts[q].d, epi)) continue;
      if (keys.n == keys.cap) {
        int cap = keys.cap ? 2 * keys.cap : 32;
        vta_conv_desc *nd2 = realloc(keys.d, sizeof *nd2 * (size_t)cap);
        if (nd2) keys.d = nd2;
        vta_tile_epilogue *ne = realloc(keys.epi, sizeof *ne * (size_t)cap);
        if (ne) keys.epi = ne;
        uint8_t **no = realloc(owned, sizeof *no * (size_t)cap);
        if (no) owned = no;
        if (!nd2 || !ne || !no) break; /* the pass searches what is left itself */
        keys.cap = cap;
      }
      vta_conv_desc kd = L.parts[q].d;
      if (kd.shifts) {
        uint8_t *copy = malloc(kd.k ? kd.k : 1);
        if (!copy) break;
        memcpy(copy, kd.shifts, kd.k);
        kd.shifts = owned[nowned++] = copy;
      }
      keys.d[keys.n] = kd;
      keys.epi[keys.n++] = epi;
    }
    vta_acc_layer_free(&L);
  }
  J.n = keys.n;
  J.d = keys.d;
  J.epi = keys.epi;
  J.ch = malloc(sizeof *J.ch * (size_t)(J.n + 1));
  J.ok = calloc((size_t)J.n + 1, sizeof *J.ok);
  memo->d = malloc(sizeof *memo->d * (size_t)(J.n + 1));
  memo->epi = malloc(sizeof *memo->epi * (size_t)(J.n + 1));
  memo->ch = malloc(sizeof *memo->ch * (size_t)(J.n + 1));
  if (J.ch && J.ok && memo->d && memo->epi && memo->ch) {
    memo->cap = J.n + 1;
    vta_parallel_for(J.n, vta_compile_threads(), search_one, &J);
    for (int k = 0; k < J.n; k++) {
      if (!J.ok[k]) continue;
      memo->d[memo->n] = remembered(&J.d[k]);
      memo->epi[memo->n] = J.epi[k];
      memo->ch[memo->n++] = J.ch[k];
    }
  }
  free(J.ch);
  free(J.ok);
  free(keys.d);
  free(keys.epi);
  for (int k = 0; k < nowned; k++) free(owned[k]);
  free(owned);
}

/* Why an operator that reads or writes a boundary is float: the cause `--explain` names. */
static const char *float_cause(vta_gop op, int n_in) {
  switch (op) {
  case VTA_GOP_LEAKY_RELU:
    return "folds into the int8 convolution or dense layer before it only as that layer's output's "
           "only use, with a slope in (0, 1) that some m / 2^k approximates within the rounding "
           "without int32 overflow";
  case VTA_GOP_MUL: case VTA_GOP_DIV:
    return n_in == 2 ? "a product of two tensors: no int8 form (the ALU multiplies by constants, and "
                       "the result would need a requantization of its own)"
                     : "no int8 form";
  case VTA_GOP_HARD_SWISH: case VTA_GOP_HARD_SIGMOID: case VTA_GOP_SIGMOID: case VTA_GOP_TANH:
  case VTA_GOP_EXP: case VTA_GOP_ELU: case VTA_GOP_SOFTPLUS: case VTA_GOP_ERF:
    return "not piecewise linear with one slope: no int8 form on the ALU (MIN, MAX, ADD, SHR, MUL by "
           "constants)";
  case VTA_GOP_GLOBAL_AVGPOOL: case VTA_GOP_AVGPOOL: case VTA_GOP_REDUCE_MEAN:
    return "an average: no int8 form in the quantizer";
  case VTA_GOP_MAX: case VTA_GOP_MIN:
    return "of two tensors, or after a float operator: only a constant bound right after an int8 "
           "layer is folded into its clip";
  case VTA_GOP_SOFTMAX: case VTA_GOP_LOG_SOFTMAX:
    return "exponentials: float";
  case VTA_GOP_MAXPOOL: case VTA_GOP_GLOBAL_MAXPOOL: case VTA_GOP_RESHAPE: case VTA_GOP_TRANSPOSE:
  case VTA_GOP_FLATTEN: case VTA_GOP_CONCAT: case VTA_GOP_PAD: case VTA_GOP_SQUEEZE:
  case VTA_GOP_UNSQUEEZE: case VTA_GOP_SLICE:
    return "keeps its input's type, and its input is float";
  default:
    return "no int8 form in the quantizer";
  }
}

/* The node producing value v, or -1 (a graph input or a constant). */
static int producer_of(const vta_graph *g, int v) {
  for (int j = 0; j < g->n_nodes; j++)
    for (int k = 0; k < g->nodes[j].n_out; k++)
      if (g->nodes[j].out[k] == v) return j;
  return -1;
}

/* The first node reading value v (after node `after`), or -1. */
static int consumer_of(const vta_graph *g, int v, int after) {
  for (int j = after + 1; j < g->n_nodes; j++)
    for (int k = 0; k < g->nodes[j].n_in; k++)
      if (g->nodes[j].in[k] == v) return j;
  return -1;
}

/* The operator a boundary node (QuantizeLinear / DequantizeLinear) exists for: "input",
 * "output" or the float operator's name. */
static const char *boundary_cause(const vta_graph *g, int i) {
  const vta_node *nd = &g->nodes[i];
  if (nd->op == VTA_GOP_QUANTIZE_LINEAR) {
    int pj = producer_of(g, nd->in[0]);
    if (pj < 0) return "graph input";
    const vta_node *pn = &g->nodes[pj];
    return vta_op_name(pn->op == VTA_GOP_DEQUANTIZE_LINEAR && pn->n_epi ? pn->epi[0].op : pn->op);
  }
  if (g->values[nd->in[0]].dtype == VTA_DT_I32) return "output layer";
  if (nd->n_epi) return vta_op_name(nd->epi[0].op);
  int cj = consumer_of(g, nd->out[0], i);
  return cj < 0 || g->values[nd->out[0]].is_output ? "model output" : vta_op_name(g->nodes[cj].op);
}

/* Why boundary node i (QuantizeLinear / DequantizeLinear) exists: the float operator on its
 * other side and why that operator is float. */
static void boundary_reason(const vta_graph *g, int i, char *buf, size_t n) {
  const vta_node *nd = &g->nodes[i];
  if (nd->op == VTA_GOP_QUANTIZE_LINEAR) {
    int pj = producer_of(g, nd->in[0]);
    if (pj < 0) {
      snprintf(buf, n, "boundary: float to int8: the graph input '%.60s' is float32", g->values[nd->in[0]].name);
      return;
    }
    const vta_node *pn = &g->nodes[pj];
    /* A fused float epilogue (a dequantization followed by HardSwish, ...): its first step is
     * what needed float. */
    int fused = pn->op == VTA_GOP_DEQUANTIZE_LINEAR && pn->n_epi;
    vta_gop op = fused ? pn->epi[0].op : pn->op;
    int n_in = fused ? (pn->epi[0].arg >= 0 ? 2 : 1) : pn->n_in;
    snprintf(buf, n, "boundary: float to int8: its input comes from %s (node %d%s) on the CPU: %s",
             vta_op_name(op), pj, fused ? ", fused into a dequantization" : "", float_cause(op, n_in));
    return;
  }
  /* Dequantize: the float reader is the node's own fused epilogue, a consumer, or the output. */
  int y = nd->out[0];
  if (g->values[nd->in[0]].dtype == VTA_DT_I32) {
    snprintf(buf, n, "boundary: an output layer's int32 sums to float at full precision (int8 would be "
                     "too coarse for the model's answer)");
    return;
  }
  if (nd->n_epi) {
    vta_gop op = nd->epi[0].op;
    snprintf(buf, n, "boundary: int8 to float for %s (fused here): %s", vta_op_name(op),
             float_cause(op, nd->epi[0].arg >= 0 ? 2 : 1));
    return;
  }
  int cj = consumer_of(g, y, i);
  if (cj < 0 || g->values[y].is_output) {
    snprintf(buf, n, "boundary: int8 to float: '%.60s' is a model output (float32)", g->values[y].name);
    return;
  }
  const vta_node *cn = &g->nodes[cj];
  snprintf(buf, n, "boundary: int8 to float for %s (node %d): %s", vta_op_name(cn->op), cj,
           float_cause(cn->op, cn->n_in));
}

/* Why int8 data movement (node i, on the CPU) is a copy there: where its consumers run. */
static void movement_reason(const vta_graph *g, const vta_place *p, int i, char *buf, size_t n) {
  const vta_node *nd = &g->nodes[i];
  int on_acc = 0, any = 0, pj = nd->n_in ? producer_of(g, nd->in[0]) : -1;
  for (int j = consumer_of(g, nd->out[0], i); j >= 0; j = consumer_of(g, nd->out[0], j)) {
    any = 1;
    on_acc |= p[j].acc;
  }
  int from_acc = pj >= 0 && p[pj].acc;
  if (!on_acc && !from_acc)
    snprintf(buf, n, "int8 data movement between CPU nodes (a copy on the CPU; nothing crosses to the "
                     "device)");
  else if (!on_acc && any)
    snprintf(buf, n, "int8 data movement copied on the CPU: every reader runs on the CPU, so the "
                     "producer's output comes back anyway");
  else
    snprintf(buf, n, "int8 data movement copied on the CPU: %s as a layout of the device's tensors "
                     "is not built", vta_op_name(nd->op));
}

static const char *cpu_reason(const vta_graph *g, int i, char *buf, size_t n) {
  const vta_node *nd = &g->nodes[i];
  switch (nd->op) {
  case VTA_GOP_CONV: case VTA_GOP_GEMM: case VTA_GOP_MATMUL:
    snprintf(buf, n, "float %s: not quantized (its weights are computed, or calibration saw no range)",
             vta_op_name(nd->op));
    break;
  case VTA_GOP_QUANTIZE_LINEAR: case VTA_GOP_DEQUANTIZE_LINEAR: boundary_reason(g, i, buf, n); break;
  case VTA_GOP_MAXPOOL: case VTA_GOP_GLOBAL_MAXPOOL:
    snprintf(buf, n, "%s: the accelerator pools int8 tensors with a window (its input here is %s)",
             nd->op == VTA_GOP_MAXPOOL ? "max pooling" : "global max pooling",
             vta_dtype_name(g->values[nd->in[0]].dtype));
    break;
  case VTA_GOP_CONV_INTEGER: case VTA_GOP_MATMUL_INTEGER:
    snprintf(buf, n, "output layer: its int32 sums are dequantized straight to float (the accelerator "
                     "returns int8, too coarse for the model's answer)");
    break;
  case VTA_GOP_QLINEAR_CONV: case VTA_GOP_QLINEAR_MATMUL:
    snprintf(buf, n, "ONNX integer operator with zero points and float scales (not the accelerator's "
                     "symmetric shift requantization)");
    break;
  default:
    if (g->values[nd->out[0]].dtype == VTA_DT_F32)
      snprintf(buf, n, "float operator: %s", float_cause(nd->op, nd->n_in));
    else
      snprintf(buf, n, "int8 data movement (copies on the CPU)");
  }
  return buf;
}

/* The host CPU's int8 multiply-accumulates per nanosecond that an accelerator island is weighed
 * against by default: one per nanosecond, a low figure for a board's Arm core (a Cortex-A53 at
 * 1.2 GHz with scalar loops), so that on the default configuration only islands the
 * accelerator runs far below its peak move (`vta compile --host-macs-per-ns`). */
#define HOST_MACS_PER_NS 1.0

/* Node nd runs on the CPU: no device attribute, no tiling plans. */
static void to_cpu(vta_node *nd) {
  vta_node_remove_attr(nd, "device");
  for (int q = 0; q < MAX_PARTS; q++) {
    char name[16];
    snprintf(name, sizeof name, "plan%d", q);
    vta_node_remove_attr(nd, name);
  }
}

/* Union-find over nodes: the root of node a's island. */
static int island_root(int *up, int a) {
  while (up[a] != a) a = up[a] = up[up[a]];
  return a;
}

/* up[i]: the islands of accelerator nodes connected through their values (an accelerator node
 * reading what another produces joins its island); CPU nodes stay alone. Linear in the graph. */
static int islands(const vta_graph *g, const vta_place *p, int *up) {
  int *prod = malloc(sizeof(int) * ((size_t)g->n_values + 1));
  if (!prod) return -1;
  for (int v = 0; v < g->n_values; v++) prod[v] = -1;
  for (int a = 0; a < g->n_nodes; a++) {
    up[a] = a;
    for (int k = 0; k < g->nodes[a].n_out; k++)
      if (g->nodes[a].out[k] >= 0 && g->nodes[a].out[k] < g->n_values) prod[g->nodes[a].out[k]] = a;
  }
  for (int b = 0; b < g->n_nodes; b++) {
    if (!p[b].acc) continue;
    for (int k = 0; k < g->nodes[b].n_in; k++) {
      int v = g->nodes[b].in[k], a = v >= 0 && v < g->n_values ? prod[v] : -1;
      if (a >= 0 && p[a].acc) up[island_root(up, a)] = island_root(up, b);
    }
  }
  free(prod);
  return 0;
}

/* Undoes a fusion (either node of it going to the CPU, or a pass over a graph partitioned
 * before). */
static void unfuse(vta_node *nd) {
  vta_node_remove_attr(nd, "fuse_add");
  vta_node_remove_attr(nd, "fuse_pool");
  vta_node_remove_attr(nd, "fused");
}

/* Marks each int8 add quantized for it (attribute "fuse": `vta compile --residual-adds fuse`)
 * that the convolution producing one of its operands can compute in its epilogue
 * (vta_conv_desc.post_add): that operand is the convolution's output and nothing else
 * reads it, and the other operand is ready before the convolution runs (computed by an earlier
 * node, or an input or constant), so that the add's output comes from the convolution's
 * program and the add itself has nothing left to do on the accelerator. With the CPU's own
 * multipliers (14 bits; the ALU's immediates hold 16) the add is exact. Whether the
 * convolution then goes to the accelerator is decided by the pass (else it is undone). */
/* Whether node o (after i) may run at position i: every input of it is produced before i. */
static int movable_before(const vta_graph *g, int o, int i) {
  const vta_node *nd = &g->nodes[o];
  for (int k = 0; k < nd->n_in; k++)
    if (nd->in[k] >= 0 && producer_of(g, nd->in[k]) >= i) return 0;
  return 1;
}

/* Moves node o to position i < o (movable_before; the nodes from i on move up one); the
 * values' producers follow. */
static void move_node_before(vta_graph *g, int o, int i) {
  vta_node t = g->nodes[o];
  memmove(&g->nodes[i + 1], &g->nodes[i], sizeof t * (size_t)(o - i));
  g->nodes[i] = t;
  for (int n = i; n <= o; n++)
    for (int k = 0; k < g->nodes[n].n_out; k++)
      if (g->nodes[n].out[k] >= 0 && g->nodes[n].out[k] < g->n_values)
        g->values[g->nodes[n].out[k]].producer = n;
}

/* Multiply-accumulates per output element of a QConv (its reduction length), 0 for others. */
static uint64_t conv_depth(const vta_graph *g, int i) {
  if (i < 0 || g->nodes[i].op != VTA_GOP_QCONV) return 0;
  const vta_gvalue *o = &g->values[g->nodes[i].out[0]];
  uint64_t n = (uint64_t)vta_value_count(o);
  return n ? vta_node_macs(g, i) / n : 0;
}

/* The cost model's cycles for node i as it is now described (every part's choice), or
 * UINT64_MAX when it cannot be lowered. */
static uint64_t node_cycles(const vta_graph *g, int i, const vta_config *cfg) {
  vta_acc_layer L;
  vta_error e = {0};
  if (vta_acc_desc(g, i, cfg, &L, &e)) return UINT64_MAX;
  uint64_t c = 0;
  for (int q = 0; q < L.nparts && c != UINT64_MAX; q++) {
    vta_tile_choice ch;
    c = part_choice(g, &L, q, cfg, &ch, &e) ? UINT64_MAX : c + ch.cost.cycles;
  }
  vta_acc_layer_free(&L);
  return c;
}

/* A fusion is kept when the convolution's predicted cycles grow by at most this many
 * thousandths: the add's ALU work must hide beside the convolution's GEMMs (in a 3x3
 * convolution it does; in a 1x1 one with few input channels it bounds the layer). */
#define FUSE_MAX_GROWTH_PERMILLE 30

static int mark_fusions(vta_graph *g, const vta_config *cfg) {
  for (int j = 0; j < g->n_nodes; j++) unfuse(&g->nodes[j]);
  for (int j = 0; j < g->n_nodes; j++) {
    vta_node *a = &g->nodes[j];
    if (a->op != VTA_GOP_QADD || a->n_in != 2 || a->n_out != 1 || !vta_node_int(a, "fuse", 0) ||
        a->in[0] == a->in[1])
      continue;
    /* The deeper convolution first (its ALU work hides behind more GEMM micro-ops per output:
     * a ResNet block's 3x3 rather than its 1x1 shortcut), the other operand then computed
     * before it when the order allows. */
    int p0 = producer_of(g, a->in[0]), p1 = producer_of(g, a->in[1]);
    int deep = conv_depth(g, p1) > conv_depth(g, p0) ? 1 : 0;
    for (int k0 = 0; k0 < 2; k0++) {
      int k = k0 ? !deep : deep;
      int v = a->in[k], i = producer_of(g, v), o = producer_of(g, a->in[1 - k]);
      if (i < 0 || i >= j || g->nodes[i].op != VTA_GOP_QCONV || g->values[v].is_output ||
          readers(g, v) != 1 || vta_node_int(&g->nodes[i], "fuse_add", 0))
        continue;
      /* The other operand computed after the convolution: its producer moves before it. */
      int move = o >= i;
      if (move && (o >= j || !movable_before(g, o, i))) continue;
      int any = vta_node_int(a, "fuse", 0) == 2; /* VTA_ADDS_FUSE_ALWAYS: whatever it costs */
      uint64_t alone = any ? 0 : node_cycles(g, i, cfg);
      if (alone == UINT64_MAX) continue; /* not for the accelerator */
      if (vta_attrs_set_int(&g->nodes[i].n_attrs, &g->nodes[i].attrs, "fuse_add", 1)) return -1;
      uint64_t fused = node_cycles(g, i, cfg);
      if (fused == UINT64_MAX || (!any && fused > alone + alone * FUSE_MAX_GROWTH_PERMILLE / 1000)) {
        vta_node_remove_attr(&g->nodes[i], "fuse_add"); /* not with the add, or too slow */
        continue;
      }
      if (move) move_node_before(g, o, i);
      a = &g->nodes[j];
      if (vta_attrs_set_int(&a->n_attrs, &a->attrs, "fused", 1)) return -1;
      break;
    }
  }
  /* Max poolings: a 3x3/2 pooling with padding 1 of a convolution's output that nothing else
   * reads goes into that convolution's epilogue (vta_conv_desc.post_pool: the pooled tensor is
   * all its program writes), when the convolution with it is predicted to take fewer cycles
   * than the two programs apart (or the pooling could not run on the accelerator at all). */
  for (int j = 0; j < g->n_nodes; j++) {
    vta_node *mp = &g->nodes[j];
    if (mp->op != VTA_GOP_MAXPOOL || mp->n_in != 1 || mp->n_out != 1) continue;
    int v = mp->in[0], i = producer_of(g, v);
    if (i < 0 || i >= j || g->nodes[i].op != VTA_GOP_QCONV || g->values[v].is_output ||
        readers(g, v) != 1 || vta_node_int(&g->nodes[i], "fuse_add", 0))
      continue;
    vta_acc_layer P;
    vta_error e = {0};
    if (vta_acc_desc(g, j, cfg, &P, &e)) continue; /* its geometry is not the accelerator's */
    const vta_pool_desc *pd = &P.pd;
    int fits = pd->kh == 3 && pd->kw == 3 && pd->stride_h == 2 && pd->stride_w == 2 &&
               pd->pad_top == 1 && pd->pad_left == 1 && pd->pad_bottom <= 1 && pd->pad_right <= 1 &&
               pd->h % 2 == 0 && pd->w % 2 == 0;
    vta_lowered low;
    uint64_t pool_alone = UINT64_MAX;
    if (fits && vta_lower_maxpool(cfg, pd, &low, &e) == VTA_OK) {
      pool_alone = low.choice.cost.cycles;
      vta_lowered_free(&low);
    }
    vta_acc_layer_free(&P);
    if (!fits) continue;
    uint64_t alone = node_cycles(g, i, cfg);
    if (alone == UINT64_MAX) continue; /* not for the accelerator */
    if (vta_attrs_set_int(&g->nodes[i].n_attrs, &g->nodes[i].attrs, "fuse_pool", 1)) return -1;
    uint64_t fused = node_cycles(g, i, cfg);
    if (fused == UINT64_MAX || (pool_alone != UINT64_MAX && fused >= alone + pool_alone)) {
      vta_node_remove_attr(&g->nodes[i], "fuse_pool");
      continue;
    }
    if (vta_attrs_set_int(&mp->n_attrs, &mp->attrs, "fused", 1)) return -1;
  }
  return 0;
}

int vta_pass_partition(vta_graph *g, const vta_config *cfg, double host_macs_per_ns,
                       vta_place **places, vta_error *err) {
  const double host = host_macs_per_ns == 0 ? HOST_MACS_PER_NS : host_macs_per_ns;
  vta_place *p = calloc((size_t)g->n_nodes + 1, sizeof *p);
  if (!p) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory in partitioning");
  choice_memo memo = {0};
  if (mark_fusions(g, cfg)) {
    free(p);
    return vta_error_set(err, VTA_ERR_NOMEM, "out of memory in partitioning");
  }
  int *epi_of = malloc(sizeof(int) * MAX_PARTS * ((size_t)g->n_nodes + 1));
  for (size_t k = 0; epi_of && k < MAX_PARTS * ((size_t)g->n_nodes + 1); k++) epi_of[k] = -1;
  presearch(g, cfg, &memo, epi_of);
  uint64_t *dev_cycles = calloc((size_t)g->n_nodes + 1, sizeof *dev_cycles); /* predicted */
  int rc = dev_cycles ? 0 : vta_error_set(err, VTA_ERR_NOMEM, "out of memory in partitioning");
  for (int i = 0; i < g->n_nodes && !rc; i++) {
    vta_node *nd = &g->nodes[i];
    p[i].macs = vta_node_macs(g, i);
    to_cpu(nd);
    int pool = nd->op == VTA_GOP_MAXPOOL && g->values[nd->in[0]].dtype == VTA_DT_I8;
    if ((pool || nd->op == VTA_GOP_QADD) && vta_node_int(nd, "fused", 0)) { /* marked, not placed */
      /* The convolution whose program computes it, if that one is on the accelerator; else the
       * node is on its own again. */
      int f = fused_into(g, i);
      if (f >= 0 && p[f].acc) {
        if (vta_attrs_set_string(&nd->n_attrs, &nd->attrs, "device", "vta")) {
          rc = vta_error_set(err, VTA_ERR_NOMEM, "out of memory in partitioning");
          break;
        }
        p[i].acc = 1;
        if (pool)
          snprintf(p[i].why, sizeof p[i].why,
                   "int8 max pooling computed by node %d's program: horizontal and vertical ALU "
                   "MAX over its ACC tile after its epilogue, the pooled tile stored", f);
        else
          snprintf(p[i].why, sizeof p[i].why,
                   "int8 residual add computed by node %d's program: the add's operand loaded into "
                   "ACC beside its GEMMs, then the ALU's multipliers %lld and %lld, rounding shift "
                   "by %lld and clip after its epilogue (the CPU's arithmetic, bit for bit)", f,
                   (long long)vta_node_int(nd, "ma", 1), (long long)vta_node_int(nd, "mb", 1),
                   (long long)vta_node_int(nd, "shift", 0));
        continue;
      }
      unfuse(nd);
      if (f >= 0) unfuse(&g->nodes[f]);
    }
    if (nd->op != VTA_GOP_QCONV && nd->op != VTA_GOP_QDENSE && nd->op != VTA_GOP_QADD && !pool) {
      cpu_reason(g, i, p[i].why, sizeof p[i].why);
      continue;
    }
    vta_acc_layer L;
    vta_error e2 = {0};
    if (pool) {
      vta_lowered low;
      if (vta_acc_desc(g, i, cfg, &L, &e2) || vta_lower_maxpool(cfg, &L.pd, &low, &e2)) {
        snprintf(p[i].why, sizeof p[i].why, "%s", e2.msg);
        vta_acc_layer_free(&L);
        continue;
      }
      if (vta_attrs_set_string(&nd->n_attrs, &nd->attrs, "device", "vta")) {
        vta_lowered_free(&low);
        vta_acc_layer_free(&L);
        rc = vta_error_set(err, VTA_ERR_NOMEM, "out of memory in partitioning");
        break;
      }
      p[i].acc = 1;
      snprintf(p[i].why, sizeof p[i].why,
               "int8 max pooling %ux%u/%u: the input copied into ACC by an identity GEMM, one ALU MAX "
               "per window tap; predicted %" PRIu64 " cycles", L.pd.kh, L.pd.kw, L.pd.stride_h,
               low.choice.cost.cycles);
      dev_cycles[i] = low.choice.cost.cycles;
      vta_lowered_free(&low);
      vta_acc_layer_free(&L);
      continue;
    }
    if (vta_acc_desc(g, i, cfg, &L, &e2)) {
      vta_qconv_shape s;
      if (nd->op == VTA_GOP_QCONV) vta_qconv_shape_of(g, nd, &s);
      if (nd->op == VTA_GOP_QCONV && s.group > 1)
        snprintf(p[i].why, sizeof p[i].why,
                 "%s convolution (%lld groups): each output channel reads %lld input channel%s, so "
                 "a %ux%u GEMM block would do %.0f%% useful work; the CPU's int8 loops are faster",
                 s.group == s.c ? "depthwise" : "grouped", (long long)s.group, (long long)(s.c / s.group),
                 s.c / s.group == 1 ? "" : "s", cfg->block_in, cfg->block_out,
                 100.0 * (double)(s.c / s.group) / ((double)cfg->block_in * cfg->block_out) * cfg->block_out);
      else
        snprintf(p[i].why, sizeof p[i].why, "%s", e2.msg);
      continue;
    }
    vta_tile_choice ch;
    uint64_t cycles = 0, bound = 0;
    int bad = 0, nparts = L.nparts, per_channel = L.nparts == 1 && L.parts[0].shifts;
    int64_t *plans = malloc(sizeof(int64_t) * PLAN_INTS * (size_t)nparts);
    if (!plans) {
      vta_acc_layer_free(&L);
      rc = vta_error_set(err, VTA_ERR_NOMEM, "out of memory in partitioning");
      break;
    }
    for (int q = 0; q < L.nparts && !bad; q++) {
      bad = memo_choice(&memo, g, &L, q, epi_of && q < MAX_PARTS ? epi_of[(size_t)i * MAX_PARTS + (size_t)q] : -1,
                        cfg, &ch, &e2);
      cycles += ch.cost.cycles;
      bound += ch.compute_bound;
      dev_cycles[i] += ch.cost.cycles;
      plan_to_ints(&ch.plan, plans + PLAN_INTS * q);
    }
    vta_acc_layer_free(&L);
    if (bad) {
      free(plans);
      snprintf(p[i].why, sizeof p[i].why, "no tiling fits the buffers: %s", e2.msg);
      continue;
    }
    int nomem = vta_attrs_set_string(&nd->n_attrs, &nd->attrs, "device", "vta");
    for (int q = 0; q < nparts && !nomem; q++) {
      char name[16];
      snprintf(name, sizeof name, "plan%d", q);
      nomem = vta_attrs_set_ints(&nd->n_attrs, &nd->attrs, name, PLAN_INTS, plans + PLAN_INTS * q);
    }
    free(plans);
    if (nomem) {
      rc = vta_error_set(err, VTA_ERR_NOMEM, "out of memory in partitioning");
      break;
    }
    p[i].acc = 1;
    if (nd->op == VTA_GOP_QADD) {
      snprintf(p[i].why, sizeof p[i].why,
               "int8 residual add: the first operand through a GEMM with diagonal weights (%lld), the "
               "second as the residual (multiplier %lld), the ALU's rounding shift by %lld and clip; "
               "predicted %" PRIu64 " cycles", (long long)vta_node_int(nd, "ma", 1),
               (long long)vta_node_int(nd, "mb", 1), (long long)vta_node_int(nd, "shift", 0), cycles);
      continue;
    }
    int fused_with = fused_add_of(g, i), pooled_by = fused_pool_of(g, i);
    char with[64] = "";
    if (fused_with >= 0) snprintf(with, sizeof with, ", ending with node %d's add", fused_with);
    if (pooled_by >= 0) snprintf(with, sizeof with, ", ending with node %d's max pooling", pooled_by);
    snprintf(p[i].why, sizeof p[i].why,
             "int8 %s with the ALU's shift requantization, %d program%s (%s%s); predicted %" PRIu64
             " cycles, %.0f%% of the compute bound",
             nd->op == VTA_GOP_QDENSE ? "dense layer" : "convolution, groups 1", nparts,
             nparts == 1 ? "" : "s",
             per_channel ? "per-channel weight-scale shifts and the clip by one vector SHRCLIP"
                         : "one per weight-scale shift",
             with, cycles, cycles ? 100.0 * (double)bound / (double)cycles : 0.0);
  }
  /* An island of accelerator nodes between CPU nodes (union-find over the values) runs as
   * device runs of its own, its inputs and outputs crossing the boundary either way. It stays on
   * the CPU
   * - when it is max poolings only: they have no multiply-accumulates, so on the device they
   *   would only move their tensor there and back (a pooling pays by keeping its tensor on the
   *   device beside an accelerator node, in the same island);
   * - when the host would do its multiply-accumulates faster (at `host` per ns) than the device
   *   runs its programs (at the configuration's clock): the squeeze-and-excite layers of a small
   *   network, a few hundred to ten thousand MACs in a device run of a few hundred to two
   *   thousand cycles. */
  size_t nn = (size_t)g->n_nodes + 1;
  int *up = malloc(sizeof(int) * nn), *cnt = calloc(nn, sizeof(int)), *pools = calloc(nn, sizeof(int));
  uint64_t *imacs = calloc(nn, sizeof(uint64_t)), *icyc = calloc(nn, sizeof(uint64_t));
  if (!rc && (!up || !cnt || !pools || !imacs || !icyc || islands(g, p, up) != 0))
    rc = vta_error_set(err, VTA_ERR_NOMEM, "out of memory in partitioning");
  for (int a = 0; !rc && a < g->n_nodes; a++) {
    if (!p[a].acc) continue;
    int r = island_root(up, a);
    cnt[r]++;
    pools[r] += g->nodes[a].op == VTA_GOP_MAXPOOL;
    imacs[r] += p[a].macs;
    icyc[r] += dev_cycles[a];
  }
  for (int a = 0; !rc && a < g->n_nodes; a++) {
    if (!p[a].acc) continue;
    int r = island_root(up, a), n = cnt[r];
    uint64_t macs = imacs[r], cyc = icyc[r];
    double host_ns = (double)macs / host, dev_ns = (double)cyc * 1000.0 / cfg->clock_mhz;
    if (pools[r] == n)
      snprintf(p[a].why, sizeof p[a].why,
               "int8 max pooling on the CPU: its input comes from the CPU and every reader runs "
               "there, and it has no multiply-accumulates, so the accelerator would only move its "
               "tensor there and back (a device run of %" PRIu64 " predicted cycles)",
               dev_cycles[a]);
    else if (host > 0 && host_ns < dev_ns)
      snprintf(p[a].why, sizeof p[a].why,
               "int8 %s on the CPU: %s between CPU nodes, %" PRIu64 " MACs: about %.2f us on a "
               "host doing %g MAC per ns, less than the accelerator's %" PRIu64
               " predicted cycles (%.2f us at %g MHz)",
               vta_op_name(g->nodes[a].op), n == 1 ? "alone" : "in an island of accelerator nodes",
               macs, host_ns / 1000.0, host, cyc, dev_ns / 1000.0, cfg->clock_mhz);
    else
      continue;
    p[a].acc = 0;
    to_cpu(&g->nodes[a]);
    unfuse(&g->nodes[a]); /* a fused pair is one island: both go */
  }
  free(up);
  free(cnt);
  free(pools);
  free(imacs);
  free(icyc);
  free(dev_cycles);
  /* Data movement's reason depends on where its neighbours run, known only now. */
  for (int i = 0; i < g->n_nodes && !rc; i++) {
    const vta_node *nd = &g->nodes[i];
    if (!p[i].acc && nd->n_out == 1 && nd->n_in >= 1 && !nd->n_epi && g->values[nd->out[0]].dtype == VTA_DT_I8 &&
        nd->op != VTA_GOP_QCONV && nd->op != VTA_GOP_QDENSE && nd->op != VTA_GOP_QADD &&
        nd->op != VTA_GOP_QUANTIZE_LINEAR && nd->op != VTA_GOP_MAXPOOL)
      movement_reason(g, p, i, p[i].why, sizeof p[i].why);
  }
  free(memo.d);
  free(memo.epi);
  free(memo.ch);
  free(epi_of);
  if (places && !rc)
    *places = p;
  else
    free(p);
  return rc;
}

void vta_explain_print(const vta_graph *g, const vta_config *cfg, const vta_place *places, FILE *out) {
  uint64_t total = 0, acc = 0;
  int n_acc = 0, n_bound = 0;
  fprintf(out, "# where each node runs (vta compile --explain)\n");
  for (int i = 0; i < g->n_nodes; i++) {
    const vta_node *nd = &g->nodes[i];
    int on = places ? places[i].acc : 0;
    uint64_t macs = places ? places[i].macs : vta_node_macs(g, i);
    total += macs;
    if (on) acc += macs, n_acc++;
    if (nd->op == VTA_GOP_QUANTIZE_LINEAR || nd->op == VTA_GOP_DEQUANTIZE_LINEAR) n_bound++;
    fprintf(out, "node %d %-4s %-16s", i, on ? "vta" : "cpu", vta_op_name(nd->op));
    if (macs) fprintf(out, " %10" PRIu64 " MACs", macs);
    fprintf(out, " '%s': %s\n", nd->name, places ? places[i].why : "no --accel: everything runs on the CPU");
    if (on && cfg) {
      vta_acc_layer L;
      vta_error e2 = {0};
      vta_tile_choice ch;
      if (!vta_acc_desc(g, i, cfg, &L, &e2)) {
        fprintf(out, "    input packed from NCHW int8 into %ux%u tiles on the CPU unless an accelerator node "
                     "left it on the device in that layout; output unpacked only where the CPU reads it\n",
                cfg->batch, cfg->block_in);
        for (int q = 0; L.pool && q < 1; q++)
          fprintf(out, "    program 0: max pooling of %ux%ux%ux%u, window %ux%u, stride %u,%u, pads "
                       "%u,%u,%u,%u -> %ux%u\n", L.pd.n, L.pd.c, L.pd.h, L.pd.w, L.pd.kh, L.pd.kw,
                  L.pd.stride_h, L.pd.stride_w, L.pd.pad_top, L.pd.pad_left, L.pd.pad_bottom,
                  L.pd.pad_right, vta_pool_out_h(&L.pd), vta_pool_out_w(&L.pd));
        for (int q = 0; !L.pool && q < L.nparts; q++) {
          if (part_choice(g, &L, q, cfg, &ch, &e2)) continue;
          if (L.parts[q].shifts) {
            uint32_t least = 31;
            for (uint32_t c = 0; c < L.parts[q].nch; c++)
              if (L.parts[q].shifts[c] < least) least = L.parts[q].shifts[c];
            fprintf(out, "    program %d: %u output channels with per-channel shifts %u..%u:\n    ",
                    q, L.parts[q].nch, least, L.parts[q].d.shift);
          } else {
            fprintf(out, "    program %d: %u output channels with shift %u:\n    ", q, L.parts[q].nch,
                    L.parts[q].d.shift);
          }
          char *text = NULL;
          size_t len = 0;
          FILE *m = open_memstream(&text, &len);
          if (m) {
            vta_tile_explain(cfg, &L.parts[q].d, &ch, m);
            fclose(m);
            for (char *s = text; s && *s; s++) {
              fputc(*s, out);
              if (*s == '\n' && s[1]) fputs("    ", out);
            }
            free(text);
          }
        }
        vta_acc_layer_free(&L);
      }
    }
  }
  fprintf(out, "summary: %d of %d nodes on the accelerator, %" PRIu64 " of %" PRIu64
               " MACs (%.1f%%) offloaded; %d quantize/dequantize boundary nodes",
          n_acc, g->n_nodes, acc, total, total ? 100.0 * (double)acc / (double)total : 0.0, n_bound);
  /* The boundaries by the float side's operator, in order of first appearance. */
  enum { CAUSES = 32 };
  const char *cause[CAUSES];
  int count[CAUSES], nc = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    if (g->nodes[i].op != VTA_GOP_QUANTIZE_LINEAR && g->nodes[i].op != VTA_GOP_DEQUANTIZE_LINEAR) continue;
    const char *c = boundary_cause(g, i);
    int k = 0;
    while (k < nc && strcmp(cause[k], c)) k++;
    if (k == nc && nc < CAUSES) cause[nc] = c, count[nc++] = 0;
    if (k < nc) count[k]++;
  }
  for (int k = 0; k < nc; k++) fprintf(out, "%s %s %d", k ? "," : " (for:", cause[k], count[k]);
  fprintf(out, "%s\n", nc ? ")" : "");
}

int vta_acc_bundle(const vta_graph *g, const vta_config *cfg, vta_bundle_acc *out, vta_error *err) {
  return vta_acc_bundle_tuned(g, cfg, NULL, out, NULL, err);
}

int vta_acc_bundle_tuned(const vta_graph *g, const vta_config *cfg, const vta_tuning *tuning,
                         vta_bundle_acc *out, int *tuned, vta_error *err) {
  memset(out, 0, sizeof *out);
  char *json = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&json, &len);
  if (!m) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  /* The JSON keys only (what vta_config_parse reads back). */
  fprintf(m, "{\"TARGET\": \"%s\", \"HW_VER\": \"%s\", \"LOG_INP_WIDTH\": %d, \"LOG_WGT_WIDTH\": %d, "
             "\"LOG_ACC_WIDTH\": %d, \"LOG_BATCH\": %d, \"LOG_BLOCK_IN\": %d, \"LOG_BLOCK_OUT\": %d, "
             "\"LOG_UOP_BUFF_SIZE\": %d, \"LOG_INP_BUFF_SIZE\": %d, \"LOG_WGT_BUFF_SIZE\": %d, "
             "\"LOG_ACC_BUFF_SIZE\": %d, \"LOG_BUS_WIDTH\": %d, \"CLOCK_MHZ\": %.17g, \"DRAM_LATENCY\": %d}\n",
          cfg->target, cfg->hw_ver, cfg->log_inp_width, cfg->log_wgt_width, cfg->log_acc_width,
          cfg->log_batch, cfg->log_block_in, cfg->log_block_out, cfg->log_uop_buff_size,
          cfg->log_inp_buff_size, cfg->log_wgt_buff_size, cfg->log_acc_buff_size, cfg->log_bus_width,
          cfg->clock_mhz, cfg->dram_latency);
  fclose(m);
  out->config_json = json;
  for (int i = 0; i < g->n_nodes; i++) {
    if (!vta_node_on_acc(g, i) || vta_node_fused(g, i)) continue; /* fused: no program */
    vta_acc_layer L;
    if (vta_acc_lower_tuned(g, i, cfg, tuning, &L, tuned, err)) {
      vta_bundle_acc_free(out);
      return -1;
    }
    for (int q = 0; q < L.nparts; q++) {
      vta_acc_part *P = &L.parts[q];
      vta_bundle_layer *ls = realloc(out->layers, sizeof *ls * (size_t)(out->n + 1));
      if (!ls) {
        vta_acc_layer_free(&L);
        vta_bundle_acc_free(out);
        return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
      }
      out->layers = ls;
      vta_bundle_layer *b = &ls[out->n++];
      memset(b, 0, sizeof *b);
      b->node = i;
      b->flags = P->low.choice.plan.im2col ? VTA_BUNDLE_IM2COL : 0;
      b->input_bytes = P->low.input_bytes;
      b->input2_bytes = P->low.input2_bytes;
      b->output_bytes = P->low.output_bytes;
      b->nch = P->nch;
      b->ch = P->ch; /* moved */
      P->ch = NULL;
      int rc = vta_program_serialize(P->low.prog, &b->prog, &b->prog_size, err);
      /* The packed constants move into the bundle description. */
      b->weight = P->low.weight;
      b->weight_size = P->low.weight_bytes;
      b->bias = P->low.bias;
      b->bias_size = P->low.bias_bytes;
      P->low.weight = NULL;
      P->low.bias = NULL;
      if (rc) {
        vta_acc_layer_free(&L);
        vta_bundle_acc_free(out);
        return -1;
      }
    }
    vta_acc_layer_free(&L);
  }
  return 0;
}

int vta_acc_from_bundle(const vta_graph *g, const vta_config *cfg, const vta_bundle_acc *acc, int node,
                        vta_acc_layer *L, vta_error *err) {
  if (vta_acc_desc(g, node, cfg, L, err)) return -1;
  int q = 0;
  for (int k = 0; k < acc->n; k++) {
    const vta_bundle_layer *b = &acc->layers[k];
    if (b->node != node) continue;
    if (q >= L->nparts || b->nch != L->parts[q].nch ||
        (b->nch && memcmp(b->ch, L->parts[q].ch, sizeof(uint32_t) * b->nch))) {
      vta_acc_layer_free(L);
      return vta_error_set(err, VTA_ERR_INVALID, "bundle: the accelerator programs of node %d do not "
                           "match its channels", node);
    }
    vta_acc_part *P = &L->parts[q++];
    if (vta_program_deserialize(b->prog, b->prog_size, "bundle", &P->low.prog, err)) {
      vta_acc_layer_free(L);
      return -1;
    }
    P->low.weight = malloc(b->weight_size ? b->weight_size : 1);
    P->low.bias = malloc(b->bias_size ? b->bias_size : 1);
    if (!P->low.weight || !P->low.bias) {
      vta_acc_layer_free(L);
      return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
    }
    if (b->weight_size) memcpy(P->low.weight, b->weight, b->weight_size);
    if (b->bias_size) memcpy(P->low.bias, b->bias, b->bias_size);
    P->low.weight_bytes = b->weight_size;
    P->low.bias_bytes = b->bias_size;
    P->low.input_bytes = b->input_bytes;
    P->low.input2_bytes = b->input2_bytes;
    P->low.output_bytes = b->output_bytes;
    P->low.choice.plan.im2col = (b->flags & VTA_BUNDLE_IM2COL) != 0;
  }
  if (q != L->nparts) {
    vta_acc_layer_free(L);
    return vta_error_set(err, VTA_ERR_INVALID, "bundle: node %d needs %d accelerator programs, the "
                         "bundle holds %d", node, L->nparts, q);
  }
  return 0;
}
