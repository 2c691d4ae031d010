/* op_layout.c - the layout family: Split, Tile, Expand, DepthToSpace, SpaceToDepth, Trilu,
 * EyeLike, CumSum, OneHot, and the compile-time Size and Range; each one's shape rule,
 * reference and code.
 *
 * The design idea: most of these only move elements, and each such move is a "view": a loop
 * nest over some dimensions, the output written in order, the input read at base + the sum
 * over the loop counters of (counter mod m) * stride. Tile is a view with moduli, Expand one
 * with zero strides, DepthToSpace/SpaceToDepth six-dimensional transposes, each Split output a
 * view at an offset. The shape rule fixes the shapes, view_of() describes the move once, and
 * the reference and the code generator both walk that description. Trilu, EyeLike, CumSum and
 * OneHot compute a little and have their own short walks.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/cpu/op_family.h"

#define MAXV 12 /* view dimensions: 6 for the depth/space transposes, rank for the others */

typedef struct {
  int r;
  int64_t dims[MAXV], is[MAXV], mod[MAXV], base;
} view;

static void strides_of(int rank, const int64_t *dims, int64_t *s) {
  int64_t acc = 1;
  for (int d = rank - 1; d >= 0; d--) s[d] = acc, acc *= dims[d];
}
static int oom(vta_error *err) { return vta_error_set(err, VTA_ERR_NOMEM, "out of memory"); }

/* ---- shape rules ---- */

static int in_known(vta_graph *g, int i, vta_error *err, int k, const vta_gvalue **v) {
  *v = vta_op_in(g, i, k);
  if (!*v) return vta_op_error(g, i, err, VTA_ERR_INVALID, "input %d is missing", k);
  if ((*v)->rank < 0) return vta_op_error(g, i, err, VTA_ERR_INVALID, "input %d ('%s') has no known shape", k, (*v)->name);
  return 0;
}
/* Constant integer input k (count, or an error naming it: the shape depends on its values). */
static int const_param(vta_graph *g, int i, vta_error *err, int k, const char *what, int64_t *out, int max) {
  const vta_gvalue *v = vta_op_in(g, i, k);
  int n = vta_const_ints(v, out, max);
  if (n < 0)
    return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "%s (input %d%s%s%s) must be a constant integer tensor of at "
                        "most %d elements known at compile time", what, k, v ? ", '" : "", v ? v->name : "", v ? "'" : "",
                        max);
  return n;
}
static int norm_axis(vta_graph *g, int i, vta_error *err, int64_t a, int rank, int64_t *out) {
  if (a < -rank || a >= rank)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "axis %" PRId64 " is out of range for rank %d", a, rank);
  *out = a < 0 ? a + rank : a;
  return 0;
}

static int split_infer(vta_graph *g, int i, vta_error *err) {
  vta_node *nd = &g->nodes[i];
  const vta_gvalue *x;
  if (in_known(g, i, err, 0, &x)) return -1;
  if (x->rank == 0) return vta_op_error(g, i, err, VTA_ERR_INVALID, "the input is a scalar");
  int64_t axis = 0, sizes[64];
  if (norm_axis(g, i, err, vta_node_int(nd, "axis", 0), x->rank, &axis)) return -1;
  int n;
  if (nd->n_in > 1 && nd->in[1] >= 0) {
    if ((n = const_param(g, i, err, 1, "split", sizes, 64)) < 0) return -1;
    nd->in[1] = -1;
    nd->n_in = 1;
  } else {
    n = vta_node_ints(nd, "split", sizes, 64);
  }
  if (n <= 0) { /* equal parts, the last smaller (opset 18's rule; before it, they must divide) */
    int64_t parts = nd->n_out, len = x->dims[axis], each = (len + parts - 1) / parts;
    n = nd->n_out;
    for (int k = 0; k < n; k++) sizes[k] = each * (k + 1) <= len ? each : len - each * k > 0 ? len - each * k : 0;
  }
  if (n != nd->n_out)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "%d split sizes for %d outputs", n, nd->n_out);
  int64_t total = 0;
  for (int k = 0; k < n; k++) {
    if (sizes[k] < 0) return vta_op_error(g, i, err, VTA_ERR_INVALID, "split size %" PRId64 " is negative", sizes[k]);
    total += sizes[k];
  }
  if (total != x->dims[axis])
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "split sizes add up to %" PRId64 ", the axis has %" PRId64, total,
                        x->dims[axis]);
  if (vta_attrs_set_int(&nd->n_attrs, &nd->attrs, "axis", axis) || vta_attrs_set_ints(&nd->n_attrs, &nd->attrs, "split", n, sizes))
    return oom(err);
  for (int k = 0; k < n; k++) {
    int64_t dims[VTA_MAX_RANK];
    memcpy(dims, x->dims, sizeof dims);
    dims[axis] = sizes[k];
    if (nd->out[k] >= 0) vta_op_set_out(g, i, k, x->dtype, x->rank, dims);
  }
  return 0;
}

static int tile_expand_infer(vta_graph *g, int i, vta_error *err) {
  vta_node *nd = &g->nodes[i];
  const vta_gvalue *x;
  if (in_known(g, i, err, 0, &x)) return -1;
  int64_t p[VTA_MAX_RANK + 1], dims[VTA_MAX_RANK];
  const char *pname = nd->op == VTA_GOP_TILE ? "repeats" : "shape";
  /* The parameter input, or the attribute this rule made of it (a graph read back). */
  int n = nd->n_in < 2 && vta_node_attr(nd, pname) ? vta_node_ints(nd, pname, p, VTA_MAX_RANK + 1)
                                                   : const_param(g, i, err, 1, pname, p, VTA_MAX_RANK + 1);
  if (n < 0) return -1;
  if (nd->op == VTA_GOP_TILE) {
    if (n != x->rank) return vta_op_error(g, i, err, VTA_ERR_INVALID, "%d repeats for rank %d", n, x->rank);
    for (int d = 0; d < n; d++) {
      if (p[d] < 0) return vta_op_error(g, i, err, VTA_ERR_INVALID, "repeat %" PRId64 " is negative", p[d]);
      dims[d] = x->dims[d] * p[d];
    }
    if (vta_attrs_set_ints(&nd->n_attrs, &nd->attrs, "repeats", n, p)) return oom(err);
    nd->in[1] = -1;
    nd->n_in = 1;
    vta_op_set_out(g, i, 0, x->dtype, n, dims);
    return 0;
  }
  int r = n > x->rank ? n : x->rank;
  if (r > VTA_MAX_RANK) return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "rank %d is above %d", r, VTA_MAX_RANK);
  for (int d = 0; d < r; d++) {
    int64_t a = d - (r - x->rank) >= 0 ? x->dims[d - (r - x->rank)] : 1, b = d - (r - n) >= 0 ? p[d - (r - n)] : 1;
    if (a != b && a != 1 && b != 1)
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "dimension %d: %" PRId64 " does not expand to %" PRId64, d, a, b);
    dims[d] = a == 1 ? b : a;
  }
  if (vta_attrs_set_ints(&nd->n_attrs, &nd->attrs, "shape", r, dims)) return oom(err);
  nd->in[1] = -1;
  nd->n_in = 1;
  vta_op_set_out(g, i, 0, x->dtype, r, dims);
  return 0;
}

static int depth_space_infer(vta_graph *g, int i, vta_error *err) {
  vta_node *nd = &g->nodes[i];
  const vta_gvalue *x;
  if (in_known(g, i, err, 0, &x)) return -1;
  int64_t b = vta_node_int(nd, "blocksize", 0);
  if (x->rank != 4) return vta_op_error(g, i, err, VTA_ERR_INVALID, "the input has rank %d, not 4 (NCHW)", x->rank);
  if (b < 1) return vta_op_error(g, i, err, VTA_ERR_INVALID, "blocksize %" PRId64 " is missing or below 1", b);
  const char *mode = vta_node_string(nd, "mode", "DCR");
  if (strcmp(mode, "DCR") && strcmp(mode, "CRD"))
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "mode '%s' is not DCR or CRD", mode);
  int64_t dims[4] = {x->dims[0], x->dims[1], x->dims[2], x->dims[3]};
  if (nd->op == VTA_GOP_DEPTH_TO_SPACE) {
    if (x->dims[1] % (b * b))
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "%" PRId64 " channels are not a multiple of blocksize^2 = %" PRId64,
                          x->dims[1], b * b);
    dims[1] /= b * b, dims[2] *= b, dims[3] *= b;
  } else {
    if (x->dims[2] % b || x->dims[3] % b)
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "%" PRId64 "x%" PRId64 " is not a multiple of blocksize %" PRId64,
                          x->dims[2], x->dims[3], b);
    dims[1] *= b * b, dims[2] /= b, dims[3] /= b;
  }
  vta_op_set_out(g, i, 0, x->dtype, 4, dims);
  return 0;
}

static int trilu_infer(vta_graph *g, int i, vta_error *err) {
  vta_node *nd = &g->nodes[i];
  const vta_gvalue *x;
  if (in_known(g, i, err, 0, &x)) return -1;
  if (x->rank < 2) return vta_op_error(g, i, err, VTA_ERR_INVALID, "the input has rank %d, below 2", x->rank);
  int64_t k = 0;
  if (nd->n_in > 1 && nd->in[1] >= 0) {
    if (const_param(g, i, err, 1, "k", &k, 1) != 1) return -1;
    nd->in[1] = -1;
    nd->n_in = 1;
  } else {
    k = vta_node_int(nd, "k", 0);
  }
  if (vta_attrs_set_int(&nd->n_attrs, &nd->attrs, "k", k) ||
      vta_attrs_set_int(&nd->n_attrs, &nd->attrs, "upper", vta_node_int(nd, "upper", 1) != 0))
    return oom(err);
  vta_op_set_out(g, i, 0, x->dtype, x->rank, x->dims);
  return 0;
}

static int eyelike_infer(vta_graph *g, int i, vta_error *err) {
  vta_node *nd = &g->nodes[i];
  const vta_gvalue *x;
  if (in_known(g, i, err, 0, &x)) return -1;
  if (x->rank != 2) return vta_op_error(g, i, err, VTA_ERR_INVALID, "the input has rank %d, not 2", x->rank);
  vta_dtype t = x->dtype;
  if (vta_node_attr(nd, "dtype") && vta_dtype_from_onnx((int)vta_node_int(nd, "dtype", 1), &t))
    return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "element type %" PRId64 " (dtype)", vta_node_int(nd, "dtype", 0));
  vta_op_set_out(g, i, 0, t, 2, x->dims);
  return 0;
}

static int cumsum_infer(vta_graph *g, int i, vta_error *err) {
  vta_node *nd = &g->nodes[i];
  const vta_gvalue *x;
  if (in_known(g, i, err, 0, &x)) return -1;
  if (x->dtype == VTA_DT_BOOL) return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "bool input: CumSum adds numbers");
  int64_t a = 0, axis = 0;
  if (nd->n_in < 2 && vta_node_attr(nd, "axis")) a = vta_node_int(nd, "axis", 0);
  else if (const_param(g, i, err, 1, "axis", &a, 1) != 1) return -1;
  if (x->rank == 0) return vta_op_error(g, i, err, VTA_ERR_INVALID, "the input is a scalar");
  if (norm_axis(g, i, err, a, x->rank, &axis)) return -1;
  if (vta_attrs_set_int(&nd->n_attrs, &nd->attrs, "axis", axis)) return oom(err);
  nd->in[1] = -1;
  nd->n_in = 1;
  vta_op_set_out(g, i, 0, x->dtype, x->rank, x->dims);
  return 0;
}

static int onehot_infer(vta_graph *g, int i, vta_error *err) {
  vta_node *nd = &g->nodes[i];
  const vta_gvalue *ix, *dp, *vals;
  if (in_known(g, i, err, 0, &ix) || in_known(g, i, err, 1, &dp) || in_known(g, i, err, 2, &vals)) return -1;
  if (ix->dtype == VTA_DT_BOOL) return vta_op_error(g, i, err, VTA_ERR_INVALID, "bool indices");
  if (!dp->data || vta_value_count(dp) != 1)
    return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "depth ('%s') must be a constant scalar known at compile time",
                        dp->name);
  double depth = vta_elem_get(dp, 0);
  if (!(depth >= 1 && depth <= 1e9)) return vta_op_error(g, i, err, VTA_ERR_INVALID, "depth %g is not a positive size", depth);
  if (vta_value_count(vals) != 2) return vta_op_error(g, i, err, VTA_ERR_INVALID, "values must have 2 elements (off, on)");
  if (ix->rank + 1 > VTA_MAX_RANK) return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "rank above %d", VTA_MAX_RANK);
  int64_t axis = 0;
  if (norm_axis(g, i, err, vta_node_int(nd, "axis", -1), ix->rank + 1, &axis)) return -1;
  int64_t dims[VTA_MAX_RANK];
  int r = 0;
  for (int d = 0; d <= ix->rank; d++) dims[r++] = d == axis ? (int64_t)depth : ix->dims[d - (d > axis)];
  if (vta_attrs_set_int(&nd->n_attrs, &nd->attrs, "axis", axis) ||
      vta_attrs_set_int(&nd->n_attrs, &nd->attrs, "depth", (int64_t)depth))
    return oom(err);
  vta_op_set_out(g, i, 0, vals->dtype, r, dims);
  return 0;
}

static int layout_infer(vta_graph *g, int i, vta_error *err) {
  switch (g->nodes[i].op) {
  case VTA_GOP_SPLIT: return split_infer(g, i, err);
  case VTA_GOP_TILE: case VTA_GOP_EXPAND: return tile_expand_infer(g, i, err);
  case VTA_GOP_DEPTH_TO_SPACE: case VTA_GOP_SPACE_TO_DEPTH: return depth_space_infer(g, i, err);
  case VTA_GOP_TRILU: return trilu_infer(g, i, err);
  case VTA_GOP_EYE_LIKE: return eyelike_infer(g, i, err);
  case VTA_GOP_CUMSUM: return cumsum_infer(g, i, err);
  default: return onehot_infer(g, i, err);
  }
}

/* ---- the views (shared by the reference and the code) ---- */

/* The move that makes output k of a view operator. */
static void view_of(const vta_graph *g, const vta_node *nd, int k, view *v) {
  const vta_gvalue *x = &g->values[nd->in[0]], *o = &g->values[nd->out[k]];
  int64_t xs[VTA_MAX_RANK];
  strides_of(x->rank, x->dims, xs);
  memset(v, 0, sizeof *v);
  switch (nd->op) {
  case VTA_GOP_SPLIT: {
    int64_t axis = vta_node_int(nd, "axis", 0), sizes[64];
    vta_node_ints(nd, "split", sizes, 64);
    v->r = o->rank;
    for (int d = 0; d < o->rank; d++) v->dims[d] = o->dims[d], v->is[d] = xs[d];
    for (int j = 0; j < k; j++) v->base += sizes[j] * xs[axis];
    return;
  }
  case VTA_GOP_TILE:
    v->r = o->rank;
    for (int d = 0; d < o->rank; d++) v->dims[d] = o->dims[d], v->is[d] = xs[d], v->mod[d] = x->dims[d];
    return;
  case VTA_GOP_EXPAND:
    v->r = o->rank;
    for (int d = 0; d < o->rank; d++) {
      int xd = d - (o->rank - x->rank);
      v->dims[d] = o->dims[d];
      v->is[d] = xd < 0 || x->dims[xd] == 1 ? 0 : xs[xd];
    }
    return;
  default: { /* DepthToSpace, SpaceToDepth: six-dimensional transposes */
    int64_t b = vta_node_int(nd, "blocksize", 1), N = x->dims[0];
    int crd = strcmp(vta_node_string(nd, "mode", "DCR"), "CRD") == 0;
    v->r = 6;
    if (nd->op == VTA_GOP_DEPTH_TO_SPACE) {
      int64_t C = x->dims[1] / (b * b), H = x->dims[2], W = x->dims[3];
      /* The input seen as [N, b, b, C, H, W] (DCR) or [N, C, b, b, H, W] (CRD); the output
       * walked as [N, C, H, b, W, b]. */
      int64_t in6[6] = {N, crd ? C : b, b, crd ? b : C, H, W}, s6[6];
      strides_of(6, in6, s6);
      int64_t dims[6] = {N, C, H, b, W, b};
      int64_t is[6] = {s6[0], crd ? s6[1] : s6[3], s6[4], crd ? s6[2] : s6[1], s6[5], crd ? s6[3] : s6[2]};
      memcpy(v->dims, dims, sizeof dims);
      memcpy(v->is, is, sizeof is);
    } else {
      int64_t C = x->dims[1], H = x->dims[2] / b, W = x->dims[3] / b;
      /* The input seen as [N, C, H, b, W, b]; the output walked as [N, b, b, C, H, W] (DCR). */
      int64_t in6[6] = {N, C, H, b, W, b}, s6[6];
      strides_of(6, in6, s6);
      int64_t dims[6] = {N, b, b, C, H, W}, is[6] = {s6[0], s6[3], s6[5], s6[1], s6[2], s6[4]};
      memcpy(v->dims, dims, sizeof dims);
      memcpy(v->is, is, sizeof is);
    }
    return;
  }
  }
}
static int is_view(vta_gop op) {
  return op == VTA_GOP_SPLIT || op == VTA_GOP_TILE || op == VTA_GOP_EXPAND || op == VTA_GOP_DEPTH_TO_SPACE ||
         op == VTA_GOP_SPACE_TO_DEPTH;
}

/* CumSum's walk: outer x len x inner around the axis. */
static void around(const vta_gvalue *x, int64_t axis, int64_t *outer, int64_t *len, int64_t *inner) {
  *outer = *inner = 1;
  *len = x->dims[axis];
  for (int d = 0; d < x->rank; d++)
    if (d < axis) *outer *= x->dims[d];
    else if (d > axis) *inner *= x->dims[d];
}

/* ---- reference ---- */

static int layout_eval(vta_graph *g, int i, vta_error *err) {
  (void)err;
  const vta_node *nd = &g->nodes[i];
  vta_gvalue *o = &g->values[nd->out[0]];
  const vta_gvalue *x = nd->n_in > 0 && nd->in[0] >= 0 ? &g->values[nd->in[0]] : NULL;
  int64_t n = vta_value_count(o), idx[MAXV];
  if (is_view(nd->op)) {
    /* Every output (Split's several). */
    for (int k = 0; k < nd->n_out; k++) {
      if (nd->out[k] < 0) continue;
      view v;
      view_of(g, nd, k, &v);
      o = &g->values[nd->out[k]];
      n = vta_value_count(o);
      for (int64_t j = 0; j < n; j++) {
        int64_t rem = j, off = v.base;
        for (int d = v.r - 1; d >= 0; d--) idx[d] = rem % v.dims[d], rem /= v.dims[d];
        for (int d = 0; d < v.r; d++) off += (v.mod[d] ? idx[d] % v.mod[d] : idx[d]) * v.is[d];
        vta_elem_put(o, j, vta_elem_get(x, off));
      }
    }
    return 0;
  }
  switch (nd->op) {
  case VTA_GOP_TRILU: case VTA_GOP_EYE_LIKE: {
    int64_t k = vta_node_int(nd, "k", 0), rows = o->dims[o->rank - 2], cols = o->dims[o->rank - 1];
    int upper = (int)vta_node_int(nd, "upper", 1);
    for (int64_t j = 0; j < n; j++) {
      int64_t c = j % cols, r = (j / cols) % rows;
      int keep = nd->op == VTA_GOP_EYE_LIKE ? c - r == k : upper ? c - r >= k : c - r <= k;
      vta_elem_put(o, j, nd->op == VTA_GOP_EYE_LIKE ? keep : keep ? vta_elem_get(x, j) : 0);
    }
    return 0;
  }
  case VTA_GOP_CUMSUM: {
    int64_t outer, len, inner;
    around(x, vta_node_int(nd, "axis", 0), &outer, &len, &inner);
    int excl = (int)vta_node_int(nd, "exclusive", 0), rev = (int)vta_node_int(nd, "reverse", 0);
    for (int64_t a = 0; a < outer; a++)
      for (int64_t b = 0; b < inner; b++) {
        double s = 0;
        for (int64_t t = 0; t < len; t++) {
          int64_t p = (a * len + (rev ? len - 1 - t : t)) * inner + b;
          double e = vta_elem_get(x, p);
          if (!excl) s += e;
          vta_elem_put(o, p, s);
          if (excl) s += e;
        }
      }
    return 0;
  }
  default: { /* OneHot */
    const vta_gvalue *vals = &g->values[nd->in[2]];
    int64_t axis = vta_node_int(nd, "axis", 0), depth = vta_node_int(nd, "depth", 1), inner = 1;
    for (int d = (int)axis + 1; d < o->rank; d++) inner *= o->dims[d];
    for (int64_t j = 0; j < n; j++) {
      int64_t pos = (j / inner) % depth, src = (j / inner / depth) * inner + j % inner;
      double k = vta_elem_get(x, src);
      if (k < 0) k += (double)depth;
      vta_elem_put(o, j, vta_elem_get(vals, k == (double)pos ? 1 : 0));
    }
    return 0;
  }
  }
}

/* ---- code ---- */

static void emit_view(cg *c, int k) {
  const vta_node *nd = c->nd;
  const vta_gvalue *o = &c->g->values[nd->out[k]];
  view v;
  view_of(c->g, nd, k, &v);
  LLVMValueRef X = cg_in(c, 0), O = cg_out(c, k), off = cg_i64(c, v.base), j = cg_i64(c, 0);
  int64_t os[MAXV];
  strides_of(v.r, v.dims, os);
  cg_loop l[MAXV];
  for (int d = 0; d < v.r; d++) {
    LLVMValueRef iv = cg_loop_open(c, &l[d], cg_i64(c, 0), cg_i64(c, v.dims[d]), 1);
    j = cg_add(c, j, cg_mul(c, iv, os[d]));
    if (v.mod[d]) iv = LLVMBuildURem(c->b, iv, cg_i64(c, v.mod[d]), "");
    off = cg_add(c, off, cg_mul(c, iv, v.is[d]));
  }
  cg_tstore(c, cg_tload(c, X, o->dtype, off), O, o->dtype, j);
  for (int d = v.r - 1; d >= 0; d--) cg_loop_close(c, &l[d]);
}

static int layout_emit(cg *c) {
  const vta_node *nd = c->nd;
  const vta_gvalue *o = &c->g->values[nd->out[0]];
  const vta_gvalue *x = &c->g->values[nd->in[0]];
  LLVMBuilderRef b = c->b;
  int vec = c->vec;
  c->vec = 0;
  if (is_view(nd->op)) {
    for (int k = 0; k < nd->n_out; k++)
      if (nd->out[k] >= 0) emit_view(c, k);
    c->vec = vec;
    return 0;
  }
  LLVMValueRef X = cg_in(c, 0), O = cg_out(c, 0);
  int64_t n = vta_value_count(o);
  switch (nd->op) {
  case VTA_GOP_TRILU: case VTA_GOP_EYE_LIKE: {
    int64_t k = vta_node_int(nd, "k", 0), rows = o->dims[o->rank - 2], cols = o->dims[o->rank - 1];
    int upper = (int)vta_node_int(nd, "upper", 1);
    cg_loop lm, lr, lc;
    LLVMValueRef m = cg_loop_open(c, &lm, cg_i64(c, 0), cg_i64(c, rows * cols > 0 ? n / (rows * cols) : 0), 1);
    LLVMValueRef r = cg_loop_open(c, &lr, cg_i64(c, 0), cg_i64(c, rows), 1);
    LLVMValueRef cc = cg_loop_open(c, &lc, cg_i64(c, 0), cg_i64(c, cols), 1);
    LLVMValueRef j = cg_add(c, cg_add(c, cg_mul(c, m, rows * cols), cg_mul(c, r, cols)), cc);
    LLVMValueRef diff = LLVMBuildSub(b, cc, r, ""), kk = cg_i64(c, k);
    LLVMValueRef keep = LLVMBuildICmp(b, nd->op == VTA_GOP_EYE_LIKE ? LLVMIntEQ : upper ? LLVMIntSGE : LLVMIntSLE, diff, kk, "");
    LLVMTypeRef et = cg_elt_type(c, o->dtype);
    LLVMValueRef y;
    if (nd->op == VTA_GOP_EYE_LIKE) y = cg_from_f64(c, cg_bool_f64(c, keep), o->dtype);
    else y = LLVMBuildSelect(b, keep, cg_tload(c, X, o->dtype, j), LLVMConstNull(et), "");
    cg_tstore(c, y, O, o->dtype, j);
    cg_loop_close(c, &lc);
    cg_loop_close(c, &lr);
    cg_loop_close(c, &lm);
    break;
  }
  case VTA_GOP_CUMSUM: {
    int64_t outer, len, inner;
    around(x, vta_node_int(nd, "axis", 0), &outer, &len, &inner);
    int excl = (int)vta_node_int(nd, "exclusive", 0), rev = (int)vta_node_int(nd, "reverse", 0);
    LLVMValueRef s = cg_slot(c, cg_f64_type(c));
    cg_loop la, lb, lt;
    LLVMValueRef a = cg_loop_open(c, &la, cg_i64(c, 0), cg_i64(c, outer), 1);
    LLVMValueRef bi = cg_loop_open(c, &lb, cg_i64(c, 0), cg_i64(c, inner), 1);
    LLVMBuildStore(b, cg_f64(c, 0), s);
    LLVMValueRef t = cg_loop_open(c, &lt, cg_i64(c, 0), cg_i64(c, len), 1);
    LLVMValueRef pos = rev ? LLVMBuildSub(b, cg_i64(c, len - 1), t, "") : t;
    LLVMValueRef p = cg_add(c, cg_mul(c, cg_add(c, cg_mul(c, a, len), pos), inner), bi);
    LLVMValueRef e = cg_to_f64(c, cg_tload(c, X, x->dtype, p), x->dtype);
    LLVMValueRef old = LLVMBuildLoad2(b, cg_f64_type(c), s, ""), sum = LLVMBuildFAdd(b, old, e, "");
    cg_tstore(c, cg_from_f64(c, excl ? old : sum, o->dtype), O, o->dtype, p);
    LLVMBuildStore(b, sum, s);
    cg_loop_close(c, &lt);
    cg_loop_close(c, &lb);
    cg_loop_close(c, &la);
    break;
  }
  default: { /* OneHot */
    const vta_gvalue *vals = &c->g->values[nd->in[2]];
    int64_t axis = vta_node_int(nd, "axis", 0), depth = vta_node_int(nd, "depth", 1), inner = 1;
    for (int d = (int)axis + 1; d < o->rank; d++) inner *= o->dims[d];
    LLVMValueRef V = cg_in(c, 2);
    LLVMValueRef off = cg_tload(c, V, vals->dtype, cg_i64(c, 0)), on = cg_tload(c, V, vals->dtype, cg_i64(c, 1));
    cg_loop la, lp, li;
    LLVMValueRef a = cg_loop_open(c, &la, cg_i64(c, 0), cg_i64(c, n / (depth * inner)), 1);
    LLVMValueRef pos = cg_loop_open(c, &lp, cg_i64(c, 0), cg_i64(c, depth), 1);
    LLVMValueRef in = cg_loop_open(c, &li, cg_i64(c, 0), cg_i64(c, inner), 1);
    LLVMValueRef k = cg_to_f64(c, cg_tload(c, X, x->dtype, cg_add(c, cg_mul(c, a, inner), in)), x->dtype);
    k = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLT, k, cg_f64(c, 0), ""), LLVMBuildFAdd(b, k, cg_f64(c, (double)depth), ""), k, "");
    LLVMValueRef hit = LLVMBuildFCmp(b, LLVMRealOEQ, k, LLVMBuildSIToFP(b, pos, cg_f64_type(c), ""), "");
    LLVMValueRef j = cg_add(c, cg_mul(c, cg_add(c, cg_mul(c, a, depth), pos), inner), in);
    cg_tstore(c, LLVMBuildSelect(b, hit, on, off, ""), O, o->dtype, j);
    cg_loop_close(c, &li);
    cg_loop_close(c, &lp);
    cg_loop_close(c, &la);
    break;
  }
  }
  c->vec = vec;
  return 0;
}

const vta_op_family vta_family_layout = {"op_layout.c", layout_infer, layout_eval, NULL, layout_emit, NULL};
