/* op_shapecalc.c - Shape, Size, ConstantOfShape, Range, NonZero and the window functions
 * (HannWindow, HammingWindow, BlackmanWindow): operators whose values decide shapes, so the
 * compiler evaluates them at compile time only (they have no CPU code); each one's shape rule
 * and reference.
 *
 * The design idea: Shape and Size need only their input's shape, which is always known, so
 * they always fold; ConstantOfShape's shape input must be a constant; the output length of Range, of NonZero and of the windows depends on their inputs'
 * values, so those must be constants, and one computed from the model's inputs is refused by
 * name. (NonZero's output is [rank, count of non-zero elements]: a data-dependent shape, which
 * the IR's static shapes can hold only when the data is known when the model is compiled.)
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "compiler/compiler.h"
#include "vta/limits.h"

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

/* Shape: start and end clamped into [0, rank] (negative ones counted from the end); the
 * canonical form keeps start only, the output's length giving the end. */
static int shape_infer(vta_graph *g, int i, vta_error *err) {
  const vta_gvalue *x;
  if (in_known(g, i, err, 0, &x)) return -1;
  vta_node *nd = &g->nodes[i];
  int64_t s = vta_node_int(nd, "start", 0), e = vta_node_int(nd, "end", x->rank);
  if (s < 0) s += x->rank;
  if (e < 0) e += x->rank;
  s = s < 0 ? 0 : s > x->rank ? x->rank : s;
  e = e < 0 ? 0 : e > x->rank ? x->rank : e;
  int64_t n = e > s ? e - s : 0;
  if (vta_attrs_set_int(&nd->n_attrs, &nd->attrs, "start", s))
    return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  vta_node_remove_attr(nd, "end");
  vta_op_set_out(g, i, 0, VTA_DT_I64, 1, &n);
  return 0;
}

/* ConstantOfShape: the shape input a constant within the limits, the value's type. */
static int constant_of_shape_infer(vta_graph *g, int i, vta_error *err) {
  const vta_gvalue *sv;
  if (in_known(g, i, err, 0, &sv)) return -1;
  int64_t shape[VTA_MAX_RANK];
  int n = vta_const_ints(sv, shape, VTA_MAX_RANK);
  if (n < 0)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "the shape input must be a constant known at compile time");
  for (int d = 0; d < n; d++)
    if (shape[d] < 0 || shape[d] > VTA_LIMIT_DIM)
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "shape element %d is %" PRId64 "; dimensions must be 0 to %" PRId64
                          " (VTA_LIMIT_DIM)", d, shape[d], (int64_t)VTA_LIMIT_DIM);
  const vta_node *nd = &g->nodes[i];
  vta_dtype t = VTA_DT_F32;
  if (vta_node_attr(nd, "dtype") && vta_dtype_from_onnx((int)vta_node_int(nd, "dtype", 1), &t))
    return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "the value's element type is not supported");
  vta_op_set_out(g, i, 0, t, n, shape);
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
  case VTA_GOP_SHAPE: return shape_infer(g, i, err);
  case VTA_GOP_CONSTANT_OF_SHAPE: return constant_of_shape_infer(g, i, err);
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
  if (nd->op == VTA_GOP_SHAPE) {
    int64_t s = vta_node_int(nd, "start", 0), n = vta_value_count(o);
    for (int64_t k = 0; k < n; k++) ((int64_t *)o->data)[k] = x->dims[s + k];
    return 0;
  }
  if (nd->op == VTA_GOP_CONSTANT_OF_SHAPE) {
    double v = vta_node_float(nd, "value", 0.0f);
    for (int64_t k = 0, n = vta_value_count(o); k < n; k++) vta_elem_put(o, k, v);
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

const vta_op_family vta_family_shapecalc = {"op_shapecalc.c", shapecalc_infer, shapecalc_eval,
                                            NULL, NULL, NULL};
