/* op_select.c - the selection family: TopK and Compress, whose output keeps some of the
 * input's elements; each one's shape rule, reference and CPU code. (NonZero, whose output
 * length depends on all of its input's values, is computed at compile time only, in
 * op_shapecalc.c.)
 *
 * The design idea: the IR has static shapes, so what an output's length depends on must be
 * known when the model is compiled. TopK's length is its k (a constant input or attribute):
 * its values are chosen at run time by the generated code. Compress's length depends on its
 * condition, which the shape rule requires as a constant known at compile time (and refuses
 * by name otherwise: "the output's length depends on the data"); the condition becomes a table
 * of kept indices and the data may still come at run time.
 *
 * Canonical attributes after the shape rule: TopK: k, axis (non-negative), largest, sorted
 * (the K input dropped); Compress: axis (-1 for the flattened input), indices (the kept
 * positions along the axis; the condition input dropped).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/cpu/codegen_llvm.h"

static int oom(vta_error *err) { return vta_error_set(err, VTA_ERR_NOMEM, "out of memory"); }

static int in_known(vta_graph *g, int i, vta_error *err, int k, const vta_gvalue **v) {
  *v = vta_op_in(g, i, k);
  if (!*v) return vta_op_error(g, i, err, VTA_ERR_INVALID, "input %d is missing", k);
  if ((*v)->rank < 0) return vta_op_error(g, i, err, VTA_ERR_INVALID, "input %d ('%s') has no known shape", k, (*v)->name);
  return 0;
}

/* The input seen as [outer, n, inner] around an axis. */
static void split3(const vta_gvalue *x, int axis, int64_t *outer, int64_t *n, int64_t *inner) {
  *outer = *inner = 1;
  for (int d = 0; d < axis; d++) *outer *= x->dims[d];
  for (int d = axis + 1; d < x->rank; d++) *inner *= x->dims[d];
  *n = x->dims[axis];
}

/* ---- TopK ---- */

static int topk_infer(vta_graph *g, int i, vta_error *err) {
  vta_node *nd = &g->nodes[i];
  const vta_gvalue *x;
  if (in_known(g, i, err, 0, &x)) return -1;
  if (x->dtype == VTA_DT_BOOL) return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "TopK of bool data");
  if (x->rank < 1) return vta_op_error(g, i, err, VTA_ERR_INVALID, "TopK of a scalar");
  if (nd->n_out != 2 || nd->out[0] < 0 || nd->out[1] < 0)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "TopK has %d outputs; it makes two (values and indices)", nd->n_out);
  int64_t k;
  if (nd->n_in > 1 && nd->in[1] >= 0) {
    const vta_gvalue *kv = vta_op_in(g, i, 1);
    int64_t kk[2];
    if (vta_const_ints(kv, kk, 2) != 1)
      return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "K (input 1, '%s') must be a constant one-element integer "
                          "tensor known at compile time: the outputs' length is K", kv->name);
    k = kk[0];
    nd->in[1] = -1;
    nd->n_in = 1;
  } else {
    k = vta_node_int(nd, "k", -1);
  }
  int64_t axis = vta_node_int(nd, "axis", -1), largest = vta_node_int(nd, "largest", 1);
  if (axis < -x->rank || axis >= x->rank)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "axis %" PRId64 " is out of range for rank %d", axis, x->rank);
  if (axis < 0) axis += x->rank;
  if (k < 0 || k > x->dims[axis])
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "K %" PRId64 " is outside 0..%" PRId64 " (the length of axis %" PRId64 ")",
                        k, x->dims[axis], axis);
  if (largest != 0 && largest != 1)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "largest %" PRId64 " is not 0 or 1", largest);
  if (vta_attrs_set_int(&nd->n_attrs, &nd->attrs, "k", k) || vta_attrs_set_int(&nd->n_attrs, &nd->attrs, "axis", axis) ||
      vta_attrs_set_int(&nd->n_attrs, &nd->attrs, "largest", largest) ||
      vta_attrs_set_int(&nd->n_attrs, &nd->attrs, "sorted", 1))
    return oom(err);
  int64_t dims[VTA_MAX_RANK];
  memcpy(dims, x->dims, sizeof dims);
  dims[axis] = k;
  vta_op_set_out(g, i, 0, x->dtype, x->rank, dims);
  vta_op_set_out(g, i, 1, VTA_DT_I64, x->rank, dims);
  return 0;
}

/* Does a (at index ia) come before b (at index ib) in TopK's order? Larger (or smaller) first,
 * the lower index first among equals. */
static int topk_before(int largest, double a, int64_t ia, double b, int64_t ib) {
  if (a != b) return largest ? a > b : a < b;
  return ia < ib;
}

/* The reference (used by the unit tests and any fold of a constant TopK). */
static int topk_eval(vta_graph *g, int i, vta_error *err) {
  const vta_node *nd = &g->nodes[i];
  const vta_gvalue *x = &g->values[nd->in[0]];
  vta_gvalue *ov = &g->values[nd->out[0]], *oi = &g->values[nd->out[1]];
  int axis = (int)vta_node_int(nd, "axis", 0), largest = (int)vta_node_int(nd, "largest", 1);
  int64_t k = vta_node_int(nd, "k", 0), outer, n, inner;
  split3(x, axis, &outer, &n, &inner);
  int64_t *sel = malloc(sizeof(int64_t) * (size_t)(k > 0 ? k : 1));
  if (!sel) return oom(err);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t in = 0; in < inner; in++) {
      int64_t cnt = 0;
      for (int64_t r = 0; r < n; r++) {
        double v = vta_elem_get(x, (o * n + r) * inner + in);
        int64_t pos = cnt;
        while (pos > 0 && topk_before(largest, v, r, vta_elem_get(x, (o * n + sel[pos - 1]) * inner + in), sel[pos - 1])) pos--;
        if (pos >= k) continue;
        for (int64_t j = (cnt < k ? cnt : k - 1); j > pos; j--) sel[j] = sel[j - 1];
        sel[pos] = r;
        if (cnt < k) cnt++;
      }
      for (int64_t j = 0; j < k; j++) {
        int64_t at = (o * k + j) * inner + in;
        vta_elem_put(ov, at, vta_elem_get(x, (o * n + sel[j]) * inner + in));
        ((int64_t *)oi->data)[at] = sel[j];
      }
    }
  free(sel);
  return 0;
}

/* The code: per (outer, inner) position an insertion into the outputs, which hold the best
 * elements seen so far in order. Elements are compared as doubles, stored in their own type. */
static int topk_emit(cg *c) {
  const vta_node *nd = c->nd;
  const vta_gvalue *x = &c->g->values[nd->in[0]];
  vta_dtype t = x->dtype;
  int axis = (int)vta_node_int(nd, "axis", 0), largest = (int)vta_node_int(nd, "largest", 1);
  int64_t k = vta_node_int(nd, "k", 0), outer, n, inner;
  split3(x, axis, &outer, &n, &inner);
  if (k == 0) return 0;
  int vec = c->vec;
  c->vec = 0;
  LLVMBuilderRef b = c->b;
  LLVMValueRef X = cg_in(c, 0), OV = cg_out(c, 0), OI = cg_out(c, 1);
  LLVMValueRef cnt = cg_slot(c, c->i64), pos = cg_slot(c, c->i64);
  cg_loop lo, li, lr, lj, ls;
  LLVMValueRef o = cg_loop_open(c, &lo, cg_i64(c, 0), cg_i64(c, outer), 1);
  LLVMValueRef in = cg_loop_open(c, &li, cg_i64(c, 0), cg_i64(c, inner), 1);
  LLVMValueRef xb = cg_add(c, cg_mul(c, o, n * inner), in), ob = cg_add(c, cg_mul(c, o, k * inner), in);
  LLVMBuildStore(b, cg_i64(c, 0), cnt);
  LLVMValueRef r = cg_loop_open(c, &lr, cg_i64(c, 0), cg_i64(c, n), 1);
  LLVMValueRef xv = cg_tload(c, X, t, cg_add(c, xb, cg_mul(c, r, inner)));
  LLVMValueRef v = cg_to_f64(c, xv, t);
  /* pos = how many kept elements come before v: they are at least as good (kept elements
   * have lower indices, so equal ones stay ahead). */
  LLVMValueRef ccnt = LLVMBuildLoad2(b, c->i64, cnt, "");
  LLVMBuildStore(b, cg_i64(c, 0), pos);
  LLVMValueRef j = cg_loop_open(c, &lj, cg_i64(c, 0), ccnt, 1);
  LLVMValueRef kv = cg_to_f64(c, cg_tload(c, OV, t, cg_add(c, ob, cg_mul(c, j, inner))), t);
  LLVMValueRef ahead = LLVMBuildFCmp(b, largest ? LLVMRealOGE : LLVMRealOLE, kv, v, "");
  LLVMValueRef p = LLVMBuildLoad2(b, c->i64, pos, "");
  LLVMBuildStore(b, LLVMBuildAdd(b, p, LLVMBuildZExt(b, ahead, c->i64, ""), ""), pos);
  cg_loop_close(c, &lj);
  p = LLVMBuildLoad2(b, c->i64, pos, "");
  LLVMBasicBlockRef after = cg_if_open(c, LLVMBuildICmp(b, LLVMIntSLT, p, cg_i64(c, k), ""));
  /* Shift entries pos..last-1 one place down (last = min(cnt, k - 1)), from the end. */
  LLVMValueRef last = cg_smin(c, ccnt, cg_i64(c, k - 1));
  LLVMValueRef s = cg_loop_open(c, &ls, cg_i64(c, 0), LLVMBuildSub(b, last, p, ""), 1);
  LLVMValueRef dst = LLVMBuildSub(b, last, s, "");
  LLVMValueRef od = cg_add(c, ob, cg_mul(c, dst, inner)), os = cg_add(c, ob, cg_mul(c, LLVMBuildSub(b, dst, cg_i64(c, 1), ""), inner));
  cg_tstore(c, cg_tload(c, OV, t, os), OV, t, od);
  cg_tstore(c, cg_tload(c, OI, VTA_DT_I64, os), OI, VTA_DT_I64, od);
  cg_loop_close(c, &ls);
  LLVMValueRef op = cg_add(c, ob, cg_mul(c, p, inner));
  cg_tstore(c, xv, OV, t, op);
  cg_tstore(c, r, OI, VTA_DT_I64, op);
  cg_if_close(c, after);
  LLVMBuildStore(b, cg_smin(c, LLVMBuildAdd(b, ccnt, cg_i64(c, 1), ""), cg_i64(c, k)), cnt);
  cg_loop_close(c, &lr);
  cg_loop_close(c, &li);
  cg_loop_close(c, &lo);
  c->vec = vec;
  return 0;
}

/* ---- Compress ---- */

static int compress_infer(vta_graph *g, int i, vta_error *err) {
  vta_node *nd = &g->nodes[i];
  const vta_gvalue *x, *cond;
  if (in_known(g, i, err, 0, &x)) return -1;
  const vta_attr *done = vta_node_attr(nd, "indices");
  if (done && nd->n_in == 1) {
    /* Already canonical (the rule run again): axis -1 is the flattened input. */
    int64_t axis = vta_node_int(nd, "axis", -1), dims[VTA_MAX_RANK];
    if (axis < 0) {
      dims[0] = done->n;
      vta_op_set_out(g, i, 0, x->dtype, 1, dims);
    } else {
      memcpy(dims, x->dims, sizeof dims);
      dims[axis] = done->n;
      vta_op_set_out(g, i, 0, x->dtype, x->rank, dims);
    }
    return 0;
  }
  if (in_known(g, i, err, 1, &cond)) return -1;
  if (!cond->data)
    return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "Compress's output length is the number of true elements of "
                        "its condition '%s', known only from the data; the IR has static shapes, so the condition "
                        "must be a constant known at compile time", cond->name);
  if (cond->rank != 1) return vta_op_error(g, i, err, VTA_ERR_INVALID, "the condition has rank %d; it must be 1-D", cond->rank);
  const vta_attr *aa = vta_node_attr(nd, "axis");
  int64_t axis = -1, len = vta_value_count(x);
  if (aa) {
    axis = aa->i;
    if (axis < -x->rank || axis >= x->rank)
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "axis %" PRId64 " is out of range for rank %d", axis, x->rank);
    if (axis < 0) axis += x->rank;
    len = x->dims[axis];
  }
  int64_t nc = vta_value_count(cond);
  if (nc > len)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "the condition has %" PRId64 " elements, more than the %" PRId64
                        " it selects from", nc, len);
  int64_t *idx = malloc(sizeof(int64_t) * (size_t)(nc > 0 ? nc : 1)), m = 0;
  if (!idx) return oom(err);
  for (int64_t j = 0; j < nc; j++)
    if (vta_elem_get(cond, j) != 0) idx[m++] = j;
  if (m > INT32_MAX) {
    free(idx);
    return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "%" PRId64 " kept positions (at most %d)", m, INT32_MAX);
  }
  int rc = vta_attrs_set_int(&nd->n_attrs, &nd->attrs, "axis", axis) ||
           vta_attrs_set_ints(&nd->n_attrs, &nd->attrs, "indices", (int)m, idx);
  free(idx);
  if (rc) return oom(err);
  nd->in[1] = -1;
  nd->n_in = 1;
  int64_t dims[VTA_MAX_RANK];
  if (axis < 0) {
    dims[0] = m;
    vta_op_set_out(g, i, 0, x->dtype, 1, dims);
  } else {
    memcpy(dims, x->dims, sizeof dims);
    dims[axis] = m;
    vta_op_set_out(g, i, 0, x->dtype, x->rank, dims);
  }
  return 0;
}

/* Compress as [outer, n, inner] -> [outer, m, inner] through the kept indices. */
static void compress_geom(const vta_graph *g, const vta_node *nd, int64_t *outer, int64_t *n, int64_t *inner) {
  const vta_gvalue *x = &g->values[nd->in[0]];
  int64_t axis = vta_node_int(nd, "axis", -1);
  if (axis < 0) *outer = *inner = 1, *n = vta_value_count(x);
  else split3(x, (int)axis, outer, n, inner);
}

static int compress_eval(vta_graph *g, int i, vta_error *err) {
  (void)err;
  const vta_node *nd = &g->nodes[i];
  const vta_gvalue *x = &g->values[nd->in[0]];
  vta_gvalue *o = &g->values[nd->out[0]];
  const vta_attr *ia = vta_node_attr(nd, "indices");
  int64_t outer, n, inner, m = ia->n;
  size_t es = vta_dtype_size(x->dtype);
  compress_geom(g, nd, &outer, &n, &inner);
  for (int64_t a = 0; a < outer; a++)
    for (int64_t j = 0; j < m; j++)
      memcpy((char *)o->data + (size_t)((a * m + j) * inner) * es,
             (const char *)x->data + (size_t)((a * n + ia->ints[j]) * inner) * es, (size_t)inner * es);
  return 0;
}

static int compress_emit(cg *c) {
  const vta_node *nd = c->nd;
  const vta_gvalue *x = &c->g->values[nd->in[0]];
  const vta_attr *ia = vta_node_attr(nd, "indices");
  int64_t outer, n, inner, m = ia->n;
  compress_geom(c->g, nd, &outer, &n, &inner);
  if (m == 0) return 0;
  int vec = c->vec;
  c->vec = 0;
  LLVMValueRef tab = cg_table_i64(c, ia->ints, m);
  if (!tab) return vta_error_set(c->err, VTA_ERR_NOMEM, "out of memory");
  LLVMValueRef X = cg_in(c, 0), O = cg_out(c, 0);
  cg_loop la, lj, li;
  LLVMValueRef a = cg_loop_open(c, &la, cg_i64(c, 0), cg_i64(c, outer), 1);
  LLVMValueRef j = cg_loop_open(c, &lj, cg_i64(c, 0), cg_i64(c, m), 1);
  LLVMValueRef src = cg_mul(c, cg_add(c, cg_mul(c, a, n), cg_table_at(c, tab, j)), inner);
  LLVMValueRef dst = cg_mul(c, cg_add(c, cg_mul(c, a, m), j), inner);
  LLVMValueRef e = cg_loop_open(c, &li, cg_i64(c, 0), cg_i64(c, inner), 1);
  cg_tstore(c, cg_tload(c, X, x->dtype, cg_add(c, src, e)), O, x->dtype, cg_add(c, dst, e));
  cg_loop_close(c, &li);
  cg_loop_close(c, &lj);
  cg_loop_close(c, &la);
  c->vec = vec;
  return 0;
}

/* ---- the family ---- */

static int select_infer(vta_graph *g, int i, vta_error *err) {
  switch (g->nodes[i].op) {
  case VTA_GOP_TOPK: return topk_infer(g, i, err);
  default: return compress_infer(g, i, err);
  }
}
static int select_eval(vta_graph *g, int i, vta_error *err) {
  switch (g->nodes[i].op) {
  case VTA_GOP_TOPK: return topk_eval(g, i, err);
  default: return compress_eval(g, i, err);
  }
}
static int select_emit(cg *c) { return c->nd->op == VTA_GOP_TOPK ? topk_emit(c) : compress_emit(c); }

const vta_op_family vta_family_select = {"op_select.c", select_infer, select_eval, NULL, select_emit, NULL};
