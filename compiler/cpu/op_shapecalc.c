/* op_shapecalc.c - Size, Range, NonZero and the window functions (HannWindow, HammingWindow,
 * BlackmanWindow): operators whose values decide shapes, so the compiler evaluates them at
 * compile time only (they have no CPU code); each one's shape rule and reference.
 *
 * The design idea: Size needs only its input's shape, which is always known, so it always
 * folds; the output length of Range, of NonZero and of the windows depends on their inputs'
 * values, so those must be constants, and one computed from the model's inputs is refused by
 * name. (NonZero's output is [rank, count of non-zero elements]: a data-dependent shape, which
 * the IR's static shapes can hold only when the data is known when the model is compiled.)
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "compiler/compiler.h"

/* ---- shape rules ---- */

static int in_known(vta_graph *g, int i, vta_error *err, int k, const vta_gvalue **v) {
  *v = vta_op_in(g, i, k);
  if (!*v) return vta_op_error(g, i, err, VTA_ERR_INVALID, "input %d is missing", k);
  if ((*v)->rank < 0) return vta_op_error(g, i, err, VTA_ERR_INVALID, "input %d ('%s') has no known shape", k, (*v)->name);
  return 0;
}

static int size_infer_(vta_graph *g, int i, vta_error *err) {
  const vta_gvalue *x;
  if (in_known(g, i, err, 0, &x)) return -1;
  vta_op_set_out(g, i, 0, VTA_DT_I64, 0, NULL);
  return 0;
}

static int range_infer(vta_graph *g, int i, vta_error *err) {
  const vta_gvalue *v[3];
  for (int k = 0; k < 3; k++) {
    if (in_known(g, i, err, k, &v[k])) return -1;
    if (!v[k]->data || vta_value_count(v[k]) != 1)
      return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "input %d ('%s') must be a constant scalar known at compile "
                          "time (the output's length depends on it)", k, v[k]->name);
  }
  double s = vta_elem_get(v[0], 0), l = vta_elem_get(v[1], 0), d = vta_elem_get(v[2], 0);
  if (d == 0 || !isfinite(s) || !isfinite(l) || !isfinite(d))
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "start %g, limit %g, delta %g do not make a range", s, l, d);
  double n = ceil((l - s) / d);
  if (n < 0) n = 0;
  if (n > 1e9) return vta_op_error(g, i, err, VTA_ERR_BOUNDS, "%g elements (the limit is 1e9)", n);
  int64_t len = (int64_t)n;
  vta_op_set_out(g, i, 0, v[0]->dtype, 1, &len);
  return 0;
}

static int window_infer(vta_graph *g, int i, vta_error *err) {
  const vta_gvalue *n;
  if (in_known(g, i, err, 0, &n)) return -1;
  if (!n->data || vta_value_count(n) != 1 || (n->dtype != VTA_DT_I64 && n->dtype != VTA_DT_I32))
    return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "the size ('%s') must be a constant integer scalar known at "
                        "compile time (the output's length)", n->name);
  double len = vta_elem_get(n, 0);
  if (len < 0 || len > 1e9) return vta_op_error(g, i, err, VTA_ERR_INVALID, "size %g is not a window length", len);
  vta_dtype t = VTA_DT_F32;
  int64_t odt = vta_node_int(&g->nodes[i], "output_datatype", 1);
  if (vta_dtype_from_onnx((int)odt, &t))
    return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "output_datatype %" PRId64, odt);
  int64_t d = (int64_t)len;
  vta_op_set_out(g, i, 0, t, 1, &d);
  return 0;
}

/* ---- NonZero: shape rule and reference ---- */

static int nonzero_infer(vta_graph *g, int i, vta_error *err) {
  const vta_gvalue *x;
  if (in_known(g, i, err, 0, &x)) return -1;
  if (!x->data)
    return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "NonZero's output length is the number of non-zero elements "
                        "of its input '%s', known only from the data; the IR has static shapes, so that input must "
                        "be a constant known at compile time", x->name);
  if (x->rank < 1) return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "NonZero of a scalar");
  int64_t n = vta_value_count(x), nz = 0;
  for (int64_t j = 0; j < n; j++) nz += vta_elem_get(x, j) != 0;
  int64_t dims[2] = {x->rank, nz};
  vta_op_set_out(g, i, 0, VTA_DT_I64, 2, dims);
  return 0;
}

static int nonzero_eval(vta_graph *g, int i, vta_error *err) {
  (void)err;
  const vta_node *nd = &g->nodes[i];
  const vta_gvalue *x = &g->values[nd->in[0]];
  const vta_gvalue *o = &g->values[nd->out[0]];
  int64_t n = vta_value_count(x), nz = o->dims[1], at = 0;
  int64_t *out = o->data;
  for (int64_t j = 0; j < n && at < nz; j++) {
    if (vta_elem_get(x, j) == 0) continue;
    int64_t rem = j;
    for (int d = x->rank - 1; d >= 0; d--) {
      out[d * nz + at] = rem % x->dims[d];
      rem /= x->dims[d];
    }
    at++;
  }
  return 0;
}

static int shapecalc_infer(vta_graph *g, int i, vta_error *err) {
  switch (g->nodes[i].op) {
  case VTA_GOP_SIZE: return size_infer_(g, i, err);
  case VTA_GOP_RANGE: return range_infer(g, i, err);
  case VTA_GOP_NONZERO: return nonzero_infer(g, i, err);
  default: return window_infer(g, i, err);
  }
}

/* ---- reference ---- */

static int shapecalc_eval(vta_graph *g, int i, vta_error *err) {
  (void)err;
  const vta_node *nd = &g->nodes[i];
  vta_gvalue *o = &g->values[nd->out[0]];
  const vta_gvalue *x = &g->values[nd->in[0]];
  if (nd->op == VTA_GOP_SIZE) {
    ((int64_t *)o->data)[0] = vta_value_count(x);
    return 0;
  }
  if (nd->op == VTA_GOP_NONZERO) return nonzero_eval(g, i, err);
  int64_t n = vta_value_count(o);
  if (nd->op == VTA_GOP_RANGE) {
    double s = vta_elem_get(x, 0), d = vta_elem_get(&g->values[nd->in[2]], 0);
    for (int64_t j = 0; j < n; j++) vta_elem_put(o, j, s + (double)j * d);
    return 0;
  }
  /* Windows: periodic ones repeat with period N, symmetric ones end where they start. */
  double den = vta_node_int(nd, "periodic", 1) ? (double)n : (double)n - 1, pi2 = 2 * acos(-1.0);
  for (int64_t j = 0; j < n; j++) {
    double a = den > 0 ? pi2 * (double)j / den : 0, y;
    if (nd->op == VTA_GOP_HANN_WINDOW) y = 0.5 - 0.5 * cos(a);
    else if (nd->op == VTA_GOP_HAMMING_WINDOW) y = 25.0 / 46 - 21.0 / 46 * cos(a);
    else y = 0.42 - 0.5 * cos(a) + 0.08 * cos(2 * a);
    vta_elem_put(o, j, y);
  }
  return 0;
}

const vta_op_family vta_family_shapecalc = {"op_shapecalc.c", shapecalc_infer, shapecalc_eval, NULL, NULL};
