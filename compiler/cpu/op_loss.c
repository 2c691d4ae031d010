/* op_loss.c - the loss family: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (with its
 * optional log_prob output); their shape rule, reference and code.
 *
 * The design idea: both are one walk over the positions (n, d1, ..., dk) of the target,
 * C classes apart in the scores: the loss at a position is -score[n, t, d] * weight[t] for
 * its target class t, nothing for ignore_index, then none / sum / mean (the mean divides by
 * the sum of the weights used). SoftmaxCrossEntropyLoss is the same over log-softmax scores,
 * computed per position as x - log(sum(exp(x - max))) - max without a temporary tensor. In
 * double. A target outside [0, C) that is not ignore_index reads nothing (it counts as
 * ignored in generated code and is an error naming the node when folded).
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "compiler/cpu/op_family.h"

/* reduction: 0 none, 1 sum, 2 mean */
static int reduction_of(const vta_node *nd) {
  const char *r = vta_node_string(nd, "reduction", "mean");
  return strcmp(r, "none") == 0 ? 0 : strcmp(r, "sum") == 0 ? 1 : strcmp(r, "mean") == 0 ? 2 : -1;
}

/* ---- shape rule ---- */

static int loss_infer(vta_graph *g, int i, vta_error *err) {
  vta_node *nd = &g->nodes[i];
  const vta_gvalue *x = vta_op_in(g, i, 0), *t = vta_op_in(g, i, 1), *w = vta_op_in(g, i, 2);
  if (!x || !t || x->rank < 0 || t->rank < 0)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "the scores and the target need known shapes");
  if (x->dtype != VTA_DT_F32 && x->dtype != VTA_DT_F64 && x->dtype != VTA_DT_F16)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "the scores are %s, not a float type", vta_dtype_name(x->dtype));
  if (t->dtype != VTA_DT_I64 && t->dtype != VTA_DT_I32)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "the target is %s, not int64 or int32", vta_dtype_name(t->dtype));
  if (x->rank < 2 || t->rank != x->rank - 1 || t->dims[0] != x->dims[0])
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "scores [N, C, d...] and target [N, d...] do not match");
  for (int d = 1; d < t->rank; d++)
    if (t->dims[d] != x->dims[d + 1])
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "target dimension %d is %" PRId64 ", the scores' is %" PRId64, d,
                          t->dims[d], x->dims[d + 1]);
  if (w && (w->rank != 1 || w->dims[0] != x->dims[1] || w->dtype != x->dtype))
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "the weights must be %s with one element per class (%" PRId64 ")",
                        vta_dtype_name(x->dtype), x->dims[1]);
  int red = reduction_of(nd);
  if (red < 0)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "reduction '%s' is not none, sum or mean",
                        vta_node_string(nd, "reduction", ""));
  if (red == 0) vta_op_set_out(g, i, 0, x->dtype, t->rank, t->dims);
  else vta_op_set_out(g, i, 0, x->dtype, 0, NULL);
  if (nd->op == VTA_GOP_SCE_LOSS && nd->n_out > 1 && nd->out[1] >= 0) vta_op_set_out(g, i, 1, x->dtype, x->rank, x->dims);
  return 0;
}

/* ---- the walk both halves share ---- */

typedef struct {
  int64_t N, C, D; /* positions: N x D, classes C apart (stride D) */
  int has_ignore;
  int64_t ignore;
} walk;

static walk walk_of(const vta_graph *g, const vta_node *nd) {
  const vta_gvalue *x = &g->values[nd->in[0]];
  walk w = {x->dims[0], x->dims[1], 1, vta_node_attr(nd, "ignore_index") != NULL, vta_node_int(nd, "ignore_index", 0)};
  for (int d = 2; d < x->rank; d++) w.D *= x->dims[d];
  return w;
}

/* ---- reference ---- */

static int loss_eval(vta_graph *g, int i, vta_error *err) {
  const vta_node *nd = &g->nodes[i];
  const vta_gvalue *x = &g->values[nd->in[0]], *t = &g->values[nd->in[1]];
  const vta_gvalue *wt = nd->n_in > 2 && nd->in[2] >= 0 ? &g->values[nd->in[2]] : NULL;
  vta_gvalue *o = &g->values[nd->out[0]];
  walk w = walk_of(g, nd);
  int red = reduction_of(nd), sce = nd->op == VTA_GOP_SCE_LOSS;
  double sum = 0, wsum = 0;
  for (int64_t n = 0; n < w.N; n++)
    for (int64_t p = 0; p < w.D; p++) {
      int64_t base = n * w.C * w.D + p, k = (int64_t)vta_elem_get(t, n * w.D + p);
      double lse = 0;
      if (sce) {
        double m = -INFINITY, s = 0;
        for (int64_t c = 0; c < w.C; c++) m = fmax(m, vta_elem_get(x, base + c * w.D));
        for (int64_t c = 0; c < w.C; c++) s += exp(vta_elem_get(x, base + c * w.D) - m);
        lse = m + log(s);
      }
      double l = 0, wk = 0;
      if (!(w.has_ignore && k == w.ignore)) {
        if (k < 0 || k >= w.C)
          return vta_op_error(g, i, err, VTA_ERR_INVALID, "target %" PRId64 " is outside the %" PRId64 " classes", k, w.C);
        wk = wt ? vta_elem_get(wt, k) : 1;
        l = -(vta_elem_get(x, base + k * w.D) - lse) * wk;
      }
      if (red == 0) vta_elem_put(o, n * w.D + p, l);
      sum += l, wsum += wk;
    }
  if (red) vta_elem_put(o, 0, red == 1 ? sum : sum / wsum);
  return 0;
}

/* ---- code ---- */

static int loss_emit(cg *c) {
  const vta_node *nd = c->nd;
  const vta_gvalue *x = &c->g->values[nd->in[0]], *t = &c->g->values[nd->in[1]];
  int has_w = nd->n_in > 2 && nd->in[2] >= 0;
  vta_dtype xt = x->dtype;
  LLVMBuilderRef b = c->b;
  LLVMTypeRef f64 = cg_f64_type(c);
  walk w = walk_of(c->g, nd);
  int red = reduction_of(nd), sce = nd->op == VTA_GOP_SCE_LOSS;
  int logp = sce && nd->n_out > 1 && nd->out[1] >= 0;
  int vec = c->vec;
  c->vec = 0;
  LLVMValueRef X = cg_in(c, 0), T = cg_in(c, 1), W = has_w ? cg_in(c, 2) : NULL, O = cg_out(c, 0);
  LLVMValueRef LP = logp ? cg_out(c, 1) : NULL;
  LLVMValueRef sum = cg_slot(c, f64), wsum = cg_slot(c, f64), mx = cg_slot(c, f64), se = cg_slot(c, f64);
  LLVMBuildStore(b, cg_f64(c, 0), sum);
  LLVMBuildStore(b, cg_f64(c, 0), wsum);
  cg_loop ln, lp, lc;
  LLVMValueRef n = cg_loop_open(c, &ln, cg_i64(c, 0), cg_i64(c, w.N), 1);
  LLVMValueRef p = cg_loop_open(c, &lp, cg_i64(c, 0), cg_i64(c, w.D), 1);
  LLVMValueRef base = cg_add(c, cg_mul(c, n, w.C * w.D), p), pos = cg_add(c, cg_mul(c, n, w.D), p);
  LLVMValueRef lse = cg_f64(c, 0);
  if (sce) {
    LLVMBuildStore(b, cg_f64(c, -INFINITY), mx);
    LLVMValueRef k = cg_loop_open(c, &lc, cg_i64(c, 0), cg_i64(c, w.C), 1);
    LLVMValueRef e = cg_to_f64(c, cg_tload(c, X, xt, cg_add(c, base, cg_mul(c, k, w.D))), xt);
    LLVMValueRef m = LLVMBuildLoad2(b, f64, mx, "");
    LLVMBuildStore(b, LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGT, e, m, ""), e, m, ""), mx);
    cg_loop_close(c, &lc);
    LLVMValueRef m2 = LLVMBuildLoad2(b, f64, mx, "");
    LLVMBuildStore(b, cg_f64(c, 0), se);
    k = cg_loop_open(c, &lc, cg_i64(c, 0), cg_i64(c, w.C), 1);
    e = cg_to_f64(c, cg_tload(c, X, xt, cg_add(c, base, cg_mul(c, k, w.D))), xt);
    LLVMValueRef d = LLVMBuildFSub(b, e, m2, "");
    LLVMBuildStore(b, LLVMBuildFAdd(b, LLVMBuildLoad2(b, f64, se, ""), cg_call_f64(c, "llvm.exp.f64", 1, &d), ""), se);
    cg_loop_close(c, &lc);
    LLVMValueRef s = LLVMBuildLoad2(b, f64, se, "");
    lse = LLVMBuildFAdd(b, m2, cg_call_f64(c, "llvm.log.f64", 1, &s), "");
    if (logp) {
      k = cg_loop_open(c, &lc, cg_i64(c, 0), cg_i64(c, w.C), 1);
      LLVMValueRef at = cg_add(c, base, cg_mul(c, k, w.D));
      e = cg_to_f64(c, cg_tload(c, X, xt, at), xt);
      cg_tstore(c, cg_from_f64(c, LLVMBuildFSub(b, e, lse, ""), xt), LP, xt, at);
      cg_loop_close(c, &lc);
    }
  }
  LLVMValueRef k = cg_tload(c, T, t->dtype, pos);
  if (t->dtype != VTA_DT_I64) k = LLVMBuildSExt(b, k, c->i64, "");
  LLVMValueRef use = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntSGE, k, cg_i64(c, 0), ""),
                                  LLVMBuildICmp(b, LLVMIntSLT, k, cg_i64(c, w.C), ""), "");
  if (w.has_ignore) use = LLVMBuildAnd(b, use, LLVMBuildICmp(b, LLVMIntNE, k, cg_i64(c, w.ignore), ""), "");
  if (red == 0) cg_tstore(c, cg_from_f64(c, cg_f64(c, 0), xt), O, xt, pos);
  LLVMBasicBlockRef after = cg_if_open(c, use);
  LLVMValueRef wk = W ? cg_to_f64(c, cg_tload(c, W, xt, k), xt) : cg_f64(c, 1);
  LLVMValueRef v = cg_to_f64(c, cg_tload(c, X, xt, cg_add(c, base, LLVMBuildMul(b, k, cg_i64(c, w.D), ""))), xt);
  LLVMValueRef l = LLVMBuildFMul(b, LLVMBuildFNeg(b, LLVMBuildFSub(b, v, lse, ""), ""), wk, "");
  if (red == 0) cg_tstore(c, cg_from_f64(c, l, xt), O, xt, pos);
  LLVMBuildStore(b, LLVMBuildFAdd(b, LLVMBuildLoad2(b, f64, sum, ""), l, ""), sum);
  LLVMBuildStore(b, LLVMBuildFAdd(b, LLVMBuildLoad2(b, f64, wsum, ""), wk, ""), wsum);
  cg_if_close(c, after);
  cg_loop_close(c, &lp);
  cg_loop_close(c, &ln);
  if (red) {
    LLVMValueRef s = LLVMBuildLoad2(b, f64, sum, "");
    if (red == 2) s = LLVMBuildFDiv(b, s, LLVMBuildLoad2(b, f64, wsum, ""), "");
    cg_tstore(c, cg_from_f64(c, s, xt), O, xt, cg_i64(c, 0));
  }
  c->vec = vec;
  return 0;
}

const vta_op_family vta_family_loss = {"op_loss.c", loss_infer, loss_eval, NULL, loss_emit, NULL};
