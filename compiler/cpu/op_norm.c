/* op_norm.c - the normalisation family: LayerNormalization, InstanceNormalization,
 * MeanVarianceNormalization and LRN; each one's shape rule, reference and code.
 *
 * The design idea: the first three are one computation, y = (x - mean) / sqrt(var + eps)
 * (then * scale + bias), over a set of "reduced" dimensions with the others kept; they differ
 * only in which dimensions are reduced and how scale and bias are indexed. So a node is
 * described once as kept and reduced dimensions (the walk of op_reduce.c) plus the strides of
 * scale and bias along the input's dimensions, and the reference and the code both do three
 * passes per kept position: mean, variance, output. Statistics are in double. LRN is a window
 * sum of squares across channels.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "compiler/cpu/op_family.h"

static int oom(vta_error *err) { return vta_error_set(err, VTA_ERR_NOMEM, "out of memory"); }

/* ---- shape rule ---- */

static int norm_infer(vta_graph *g, int i, vta_error *err) {
  vta_node *nd = &g->nodes[i];
  const vta_gvalue *x = vta_op_in(g, i, 0);
  if (!x || x->rank < 0) return vta_op_error(g, i, err, VTA_ERR_INVALID, "input 0 has no known shape");
  if (x->dtype != VTA_DT_F32 && x->dtype != VTA_DT_F64)
    return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "%s input ('%s'): %s takes floats", vta_dtype_name(x->dtype),
                        x->name, vta_op_name(nd->op));
  for (int k = 1; k < nd->n_in; k++) {
    const vta_gvalue *p = vta_op_in(g, i, k);
    if (p && (p->rank < 0 || p->dtype != x->dtype))
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "input %d ('%s') is not %s of known shape", k, p->name,
                          vta_dtype_name(x->dtype));
  }
  switch (nd->op) {
  case VTA_GOP_LAYER_NORM: {
    int64_t axis = vta_node_int(nd, "axis", -1);
    if (axis < -x->rank || axis >= x->rank)
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "axis %" PRId64 " is out of range for rank %d", axis, x->rank);
    if (axis < 0) axis += x->rank;
    const vta_gvalue *s = vta_op_in(g, i, 1);
    if (!s) return vta_op_error(g, i, err, VTA_ERR_INVALID, "the scale input is missing");
    for (int k = 1; k < 3; k++) {
      const vta_gvalue *p = vta_op_in(g, i, k);
      if (!p) continue;
      if (p->rank > x->rank - axis)
        return vta_op_error(g, i, err, VTA_ERR_INVALID, "input %d has rank %d, more than the %" PRId64
                            " normalised dimensions", k, p->rank, x->rank - axis);
      for (int d = 0; d < p->rank; d++) {
        int64_t xd = x->dims[x->rank - p->rank + d];
        if (p->dims[d] != 1 && p->dims[d] != xd)
          return vta_op_error(g, i, err, VTA_ERR_INVALID, "input %d does not broadcast to the normalised shape", k);
      }
    }
    if (vta_attrs_set_int(&nd->n_attrs, &nd->attrs, "axis", axis)) return oom(err);
    vta_op_set_out(g, i, 0, x->dtype, x->rank, x->dims);
    /* Mean and InvStdDev: the kept dimensions, 1 for the normalised ones. */
    int64_t sd[VTA_MAX_RANK];
    for (int d = 0; d < x->rank; d++) sd[d] = d < axis ? x->dims[d] : 1;
    for (int k = 1; k < nd->n_out && k < 3; k++)
      if (nd->out[k] >= 0) vta_op_set_out(g, i, k, x->dtype, x->rank, sd);
    return 0;
  }
  case VTA_GOP_INSTANCE_NORM: {
    if (x->rank < 3) return vta_op_error(g, i, err, VTA_ERR_INVALID, "the input has rank %d, below 3 (N, C, D1...)", x->rank);
    for (int k = 1; k < 3; k++) {
      const vta_gvalue *p = vta_op_in(g, i, k);
      if (!p || p->rank != 1 || p->dims[0] != x->dims[1])
        return vta_op_error(g, i, err, VTA_ERR_INVALID, "input %d must have one element per channel (%" PRId64 ")", k,
                            x->dims[1]);
    }
    vta_op_set_out(g, i, 0, x->dtype, x->rank, x->dims);
    return 0;
  }
  case VTA_GOP_MVN: {
    int64_t axes[VTA_MAX_RANK], canon[VTA_MAX_RANK];
    int n = vta_node_ints(nd, "axes", axes, VTA_MAX_RANK), red[VTA_MAX_RANK] = {0};
    if (n < 0) {
      n = 3, axes[0] = 0, axes[1] = 2, axes[2] = 3;
    }
    for (int k = 0; k < n; k++) {
      int64_t a = axes[k] < 0 ? axes[k] + x->rank : axes[k];
      if (a < 0 || a >= x->rank)
        return vta_op_error(g, i, err, VTA_ERR_INVALID, "axis %" PRId64 " is out of range for rank %d", axes[k], x->rank);
      red[a] = 1;
    }
    int m = 0;
    for (int d = 0; d < x->rank; d++)
      if (red[d]) canon[m++] = d;
    if (vta_attrs_set_ints(&nd->n_attrs, &nd->attrs, "axes", m, canon)) return oom(err);
    vta_op_set_out(g, i, 0, x->dtype, x->rank, x->dims);
    return 0;
  }
  default: { /* LRN */
    int64_t size = vta_node_int(nd, "size", 0);
    if (size < 1) return vta_op_error(g, i, err, VTA_ERR_INVALID, "size %" PRId64 " is missing or below 1", size);
    if (x->rank < 2) return vta_op_error(g, i, err, VTA_ERR_INVALID, "the input has rank %d, below 2", x->rank);
    vta_op_set_out(g, i, 0, x->dtype, x->rank, x->dims);
    return 0;
  }
  }
}

/* ---- the walk both halves share ---- */

typedef struct {
  int nk, nr;
  int64_t kdim[VTA_MAX_RANK], kstride[VTA_MAX_RANK], rdim[VTA_MAX_RANK], rstride[VTA_MAX_RANK];
  /* Strides of scale and bias along the kept and the reduced dimensions (0: broadcast). */
  int64_t sk[VTA_MAX_RANK], sr[VTA_MAX_RANK];
  /* Strides of Mean/InvStdDev (LayerNormalization's optional outputs) along the kept ones. */
  int64_t mk[VTA_MAX_RANK];
  double eps;
  int affine;
} walk;

static void walk_of(const vta_graph *g, const vta_node *nd, walk *w) {
  const vta_gvalue *x = &g->values[nd->in[0]];
  int red[VTA_MAX_RANK] = {0};
  int64_t st[VTA_MAX_RANK], pst[VTA_MAX_RANK] = {0}, acc = 1, axis = 0;
  memset(w, 0, sizeof *w);
  for (int d = x->rank - 1; d >= 0; d--) st[d] = acc, acc *= x->dims[d];
  switch (nd->op) {
  case VTA_GOP_LAYER_NORM: {
    axis = vta_node_int(nd, "axis", 0);
    for (int d = (int)axis; d < x->rank; d++) red[d] = 1;
    /* scale/bias broadcast against the normalised dimensions, right-aligned */
    const vta_gvalue *s = &g->values[nd->in[1]];
    int64_t a = 1;
    for (int d = s->rank - 1; d >= 0; d--) {
      pst[x->rank - s->rank + d] = s->dims[d] == 1 ? 0 : a;
      a *= s->dims[d];
    }
    w->eps = vta_node_float(nd, "epsilon", 1e-5f);
    w->affine = 1;
    break;
  }
  case VTA_GOP_INSTANCE_NORM:
    for (int d = 2; d < x->rank; d++) red[d] = 1;
    pst[1] = 1;
    w->eps = vta_node_float(nd, "epsilon", 1e-5f);
    w->affine = 1;
    break;
  default: { /* MVN */
    int64_t axes[VTA_MAX_RANK];
    int n = vta_node_ints(nd, "axes", axes, VTA_MAX_RANK);
    for (int k = 0; k < n; k++) red[axes[k]] = 1;
    w->eps = 1e-9;
    break;
  }
  }
  int64_t ma = 1, mst[VTA_MAX_RANK];
  for (int d = x->rank - 1; d >= 0; d--) {
    mst[d] = red[d] ? 0 : ma;
    if (!red[d]) ma *= x->dims[d];
  }
  for (int d = 0; d < x->rank; d++) {
    if (red[d]) {
      w->rdim[w->nr] = x->dims[d], w->rstride[w->nr] = st[d], w->sr[w->nr++] = pst[d];
    } else {
      w->kdim[w->nk] = x->dims[d], w->kstride[w->nk] = st[d], w->mk[w->nk] = mst[d], w->sk[w->nk++] = pst[d];
    }
  }
}

/* ---- reference ---- */

static int norm_eval(vta_graph *g, int i, vta_error *err) {
  (void)err;
  const vta_node *nd = &g->nodes[i];
  const vta_gvalue *x = &g->values[nd->in[0]];
  vta_gvalue *o = &g->values[nd->out[0]];
  if (nd->op == VTA_GOP_LRN) {
    int64_t size = vta_node_int(nd, "size", 1), C = x->dims[1], inner = 1, n = vta_value_count(x);
    double alpha = vta_node_float(nd, "alpha", 1e-4f), beta = vta_node_float(nd, "beta", 0.75f),
           bias = vta_node_float(nd, "bias", 1.0f);
    for (int d = 2; d < x->rank; d++) inner *= x->dims[d];
    for (int64_t j = 0; j < n; j++) {
      int64_t c = (j / inner) % C, lo = c - (size - 1) / 2, hi = c + size / 2, s0 = j - c * inner;
      double s = 0;
      for (int64_t q = lo < 0 ? 0 : lo; q <= hi && q < C; q++) {
        double v = vta_elem_get(x, s0 + q * inner);
        s += v * v;
      }
      vta_elem_put(o, j, vta_elem_get(x, j) / pow(bias + alpha / (double)size * s, beta));
    }
    return 0;
  }
  walk w;
  walk_of(g, nd, &w);
  const vta_gvalue *sc = w.affine ? &g->values[nd->in[1]] : NULL;
  const vta_gvalue *bi = w.affine && nd->n_in > 2 && nd->in[2] >= 0 ? &g->values[nd->in[2]] : NULL;
  int64_t nk = 1, nr = 1, idx[VTA_MAX_RANK];
  for (int d = 0; d < w.nk; d++) nk *= w.kdim[d];
  for (int d = 0; d < w.nr; d++) nr *= w.rdim[d];
  for (int64_t a = 0; a < nk; a++) {
    int64_t base = 0, pbase = 0, rem = a;
    for (int d = w.nk - 1; d >= 0; d--) idx[d] = rem % w.kdim[d], rem /= w.kdim[d];
    for (int d = 0; d < w.nk; d++) base += idx[d] * w.kstride[d], pbase += idx[d] * w.sk[d];
    double mean = 0, var = 0;
    for (int pass = 0; pass < 3; pass++)
      for (int64_t r = 0; r < nr; r++) {
        int64_t off = base, poff = pbase, rr = r;
        for (int d = w.nr - 1; d >= 0; d--) {
          int64_t q = rr % w.rdim[d];
          rr /= w.rdim[d];
          off += q * w.rstride[d], poff += q * w.sr[d];
        }
        double v = vta_elem_get(x, off);
        if (pass == 0) mean += v / (double)nr;
        else if (pass == 1) var += (v - mean) * (v - mean) / (double)nr;
        else {
          double y = (v - mean) / sqrt(var + w.eps);
          if (sc) y = y * vta_elem_get(sc, poff) + (bi ? vta_elem_get(bi, poff) : 0);
          vta_elem_put(o, off, y);
        }
      }
  }
  return 0;
}

/* ---- code ---- */

static LLVMValueRef load_f64(cg *c, LLVMValueRef p, vta_dtype t, LLVMValueRef i) {
  return cg_to_f64(c, cg_tload(c, p, t, i), t);
}

static void emit_lrn(cg *c) {
  const vta_node *nd = c->nd;
  const vta_gvalue *x = &c->g->values[nd->in[0]];
  vta_dtype t = x->dtype;
  LLVMBuilderRef b = c->b;
  int64_t size = vta_node_int(nd, "size", 1), C = x->dims[1], inner = 1, N = x->dims[0];
  double alpha = vta_node_float(nd, "alpha", 1e-4f), beta = vta_node_float(nd, "beta", 0.75f),
         bias = vta_node_float(nd, "bias", 1.0f);
  for (int d = 2; d < x->rank; d++) inner *= x->dims[d];
  LLVMValueRef X = cg_in(c, 0), O = cg_out(c, 0), s = cg_slot(c, cg_f64_type(c));
  cg_loop ln, lc, li, lq;
  LLVMValueRef n = cg_loop_open(c, &ln, cg_i64(c, 0), cg_i64(c, N), 1);
  LLVMValueRef ch = cg_loop_open(c, &lc, cg_i64(c, 0), cg_i64(c, C), 1);
  LLVMValueRef in = cg_loop_open(c, &li, cg_i64(c, 0), cg_i64(c, inner), 1);
  LLVMValueRef s0 = cg_add(c, cg_mul(c, n, C * inner), in);
  LLVMBuildStore(b, cg_f64(c, 0), s);
  LLVMValueRef lo = cg_smax(c, LLVMBuildSub(b, ch, cg_i64(c, (size - 1) / 2), ""), cg_i64(c, 0));
  LLVMValueRef hi = cg_smin(c, cg_add(c, ch, cg_i64(c, size / 2 + 1)), cg_i64(c, C));
  LLVMValueRef q = cg_loop_open(c, &lq, lo, hi, 1);
  LLVMValueRef v = load_f64(c, X, t, cg_add(c, s0, cg_mul(c, q, inner)));
  LLVMBuildStore(b, LLVMBuildFAdd(b, LLVMBuildLoad2(b, cg_f64_type(c), s, ""), LLVMBuildFMul(b, v, v, ""), ""), s);
  cg_loop_close(c, &lq);
  LLVMValueRef j = cg_add(c, s0, cg_mul(c, ch, inner));
  LLVMValueRef den = LLVMBuildFAdd(b, cg_f64(c, bias), LLVMBuildFMul(b, cg_f64(c, alpha / (double)size),
                                                                      LLVMBuildLoad2(b, cg_f64_type(c), s, ""), ""), "");
  LLVMValueRef pw[2] = {den, cg_f64(c, beta)};
  LLVMValueRef y = LLVMBuildFDiv(b, load_f64(c, X, t, j), cg_call_f64(c, "llvm.pow.f64", 2, pw), "");
  cg_tstore(c, cg_from_f64(c, y, t), O, t, j);
  cg_loop_close(c, &li);
  cg_loop_close(c, &lc);
  cg_loop_close(c, &ln);
}

static LLVMValueRef open_nest(cg *c, cg_loop *l, int n, const int64_t *dims, const int64_t *st, const int64_t *st2,
                              LLVMValueRef base, LLVMValueRef *base2) {
  for (int d = 0; d < n; d++) {
    LLVMValueRef iv = cg_loop_open(c, &l[d], cg_i64(c, 0), cg_i64(c, dims[d]), 1);
    base = cg_add(c, base, cg_mul(c, iv, st[d]));
    if (base2) *base2 = cg_add(c, *base2, cg_mul(c, iv, st2[d]));
  }
  return base;
}
static void close_nest(cg *c, cg_loop *l, int n) {
  for (int d = n - 1; d >= 0; d--) cg_loop_close(c, &l[d]);
}

static int norm_emit(cg *c) {
  const vta_node *nd = c->nd;
  int vec = c->vec;
  c->vec = 0;
  if (nd->op == VTA_GOP_LRN) {
    emit_lrn(c);
    c->vec = vec;
    return 0;
  }
  const vta_gvalue *x = &c->g->values[nd->in[0]];
  vta_dtype t = x->dtype;
  LLVMBuilderRef b = c->b;
  LLVMTypeRef f64 = cg_f64_type(c);
  walk w;
  walk_of(c->g, nd, &w);
  int64_t nr = 1;
  for (int d = 0; d < w.nr; d++) nr *= w.rdim[d];
  int has_b = w.affine && nd->n_in > 2 && nd->in[2] >= 0;
  LLVMValueRef X = cg_in(c, 0), O = cg_out(c, 0), S = w.affine ? cg_in(c, 1) : NULL, B = has_b ? cg_in(c, 2) : NULL;
  LLVMValueRef sum = cg_slot(c, f64);
  cg_loop kl[VTA_MAX_RANK], rl[VTA_MAX_RANK];
  LLVMValueRef pbase = cg_i64(c, 0), mo = cg_i64(c, 0);
  LLVMValueRef base = cg_i64(c, 0);
  for (int d = 0; d < w.nk; d++) {
    LLVMValueRef iv = cg_loop_open(c, &kl[d], cg_i64(c, 0), cg_i64(c, w.kdim[d]), 1);
    base = cg_add(c, base, cg_mul(c, iv, w.kstride[d]));
    pbase = cg_add(c, pbase, cg_mul(c, iv, w.sk[d]));
    mo = cg_add(c, mo, cg_mul(c, iv, w.mk[d]));
  }
  /* mean */
  LLVMBuildStore(b, cg_f64(c, 0), sum);
  LLVMValueRef off = open_nest(c, rl, w.nr, w.rdim, w.rstride, NULL, base, NULL);
  LLVMBuildStore(b, LLVMBuildFAdd(b, LLVMBuildLoad2(b, f64, sum, ""), load_f64(c, X, t, off), ""), sum);
  close_nest(c, rl, w.nr);
  LLVMValueRef mean = LLVMBuildFDiv(b, LLVMBuildLoad2(b, f64, sum, ""), cg_f64(c, (double)nr), "");
  /* variance */
  LLVMBuildStore(b, cg_f64(c, 0), sum);
  off = open_nest(c, rl, w.nr, w.rdim, w.rstride, NULL, base, NULL);
  LLVMValueRef dv = LLVMBuildFSub(b, load_f64(c, X, t, off), mean, "");
  LLVMBuildStore(b, LLVMBuildFAdd(b, LLVMBuildLoad2(b, f64, sum, ""), LLVMBuildFMul(b, dv, dv, ""), ""), sum);
  close_nest(c, rl, w.nr);
  LLVMValueRef var = LLVMBuildFDiv(b, LLVMBuildLoad2(b, f64, sum, ""), cg_f64(c, (double)nr), "");
  LLVMValueRef ve = LLVMBuildFAdd(b, var, cg_f64(c, w.eps), "");
  LLVMValueRef inv = LLVMBuildFDiv(b, cg_f64(c, 1), cg_call_f64(c, "llvm.sqrt.f64", 1, &ve), "");
  if (nd->op == VTA_GOP_LAYER_NORM) {
    if (nd->n_out > 1 && nd->out[1] >= 0) cg_tstore(c, cg_from_f64(c, mean, t), cg_out(c, 1), t, mo);
    if (nd->n_out > 2 && nd->out[2] >= 0) cg_tstore(c, cg_from_f64(c, inv, t), cg_out(c, 2), t, mo);
  }
  /* output */
  LLVMValueRef poff = pbase;
  off = open_nest(c, rl, w.nr, w.rdim, w.rstride, w.sr, base, &poff);
  LLVMValueRef y = LLVMBuildFMul(b, LLVMBuildFSub(b, load_f64(c, X, t, off), mean, ""), inv, "");
  if (S) y = LLVMBuildFMul(b, y, load_f64(c, S, t, poff), "");
  if (B) y = LLVMBuildFAdd(b, y, load_f64(c, B, t, poff), "");
  cg_tstore(c, cg_from_f64(c, y, t), O, t, off);
  close_nest(c, rl, w.nr);
  close_nest(c, kl, w.nk);
  c->vec = vec;
  return 0;
}

const vta_op_family vta_family_norm = {"op_norm.c", norm_infer, norm_eval, NULL, norm_emit, NULL};
