/* shape.c - shape and type inference, and the canonical form of operator parameters.
 *
 * The design idea: one walk in node order that, for each node, (1) turns parameters ONNX
 * passes as constant inputs into attributes (Reshape's shape, Squeeze's axes, Clip's bounds,
 * Pad's pads, Slice's ranges, Resize's scales), and makes defaults explicit (Conv's pads,
 * strides and dilations; auto_pad resolved; Transpose's perm; Softmax's axis), then (2) computes
 * the output types and shapes, and (3) evaluates the node when all its inputs are constants
 * (eval.c), so that shape computations such as Shape -> Gather -> Concat -> Reshape become
 * constants before the Reshape that needs them. Every later stage can then rely on explicit,
 * fully-resolved attributes and static shapes.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"
#include "vta/limits.h"

typedef struct {
  vta_graph *g;
  int i;
  vta_node *nd;
  vta_error *err;
  char where[300];
} ctx;

static int bad(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(ctx *c, const char *fmt, ...) {
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return vta_error_set(c->err, VTA_ERR_INVALID, "%s: %s", c->where, msg);
}
/* A parameter the model computes at run time: valid ONNX this compiler does not take. */
static int not_constant(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int not_constant(ctx *c, const char *fmt, ...) {
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return vta_error_set(c->err, VTA_ERR_UNSUPPORTED, "%s: %s", c->where, msg);
}
static int unsupported(ctx *c, const char *what) {
  return vta_error_set(c->err, VTA_ERR_UNSUPPORTED, "%s: %s is not supported", c->where, what);
}

static vta_gvalue *IN(ctx *c, int k) {
  return k < c->nd->n_in && c->nd->in[k] >= 0 ? &c->g->values[c->nd->in[k]] : NULL;
}

static void set_out(ctx *c, int k, vta_dtype t, int rank, const int64_t *dims) {
  vta_gvalue *v = &c->g->values[c->nd->out[k]];
  v->dtype = t;
  v->rank = rank;
  for (int d = 0; d < rank; d++) v->dims[d] = dims[d];
}

static int const_ints(const vta_gvalue *v, int64_t *out, int max) { return vta_const_ints(v, out, max); }
static int const_floats(const vta_gvalue *v, float *out, int max) { return vta_const_floats(v, out, max); }

static int set_ints(ctx *c, const char *name, int n, const int64_t *v) {
  return vta_op_set_ints(c->g, c->i, c->err, name, n, v);
}
static int set_int(ctx *c, const char *name, int64_t v) { return vta_op_set_int(c->g, c->i, c->err, name, v); }
static int set_string(ctx *c, const char *name, const char *v) {
  if (vta_attrs_set_string(&c->nd->n_attrs, &c->nd->attrs, name, v))
    return vta_error_set(c->err, VTA_ERR_NOMEM, "out of memory");
  return 0;
}
static int set_float(ctx *c, const char *name, float v) { return vta_op_set_float(c->g, c->i, c->err, name, v); }

/* Moves constant input k into an INTS attribute (then drops the input and any after it). */
static int input_to_ints(ctx *c, int k, const char *name, int required) {
  return vta_op_input_to_ints(c->g, c->i, c->err, k, name, required);
}

static void trim_inputs(vta_node *nd) { vta_node_trim_inputs(nd); }

static int norm_axis(ctx *c, int64_t axis, int rank, int64_t *out) { return vta_op_axis(c->g, c->i, c->err, axis, rank, out); }

static int need_rank(ctx *c, const vta_gvalue *v, int k) { return vta_op_need_shape(c->g, c->i, c->err, v, k); }

static int broadcast(ctx *c, const vta_gvalue *a, const vta_gvalue *b, int *rank, int64_t *dims) {
  return vta_op_broadcast(c->g, c->i, c->err, a, b, rank, dims);
}

/* Conv / pools: explicit kernel_shape, strides, dilations, pads (ir/opkit.c). */
static int spatial_params(ctx *c, const vta_gvalue *x, const int64_t *kernel, int transpose,
                          int64_t *out_sp) {
  return vta_op_window(c->g, c->i, c->err, x, kernel, transpose, out_sp);
}

/* Convolutions read x, w and the bias b at input positions xi, wi, bi (-1: none); the output
 * has element type ot (-1: x's). */
static int infer_conv_at(ctx *c, int transpose, int xi, int wi, int bi, int ot);
static int infer_conv(ctx *c, int transpose) { return infer_conv_at(c, transpose, 0, 1, 2, -1); }
static int infer_conv_at(ctx *c, int transpose, int xi, int wi, int bi, int ot) {
  vta_gvalue *x = IN(c, xi), *w = IN(c, wi), *b = bi >= 0 ? IN(c, bi) : NULL;
  if (need_rank(c, x, 0) || need_rank(c, w, 1)) return -1;
  if (x->rank < 3 || w->rank != x->rank)
    return bad(c, "input rank %d and weight rank %d do not make a convolution", x->rank, w->rank);
  if (x->rank > 4) return unsupported(c, "a convolution with more than 2 spatial dimensions");
  int64_t group = vta_node_int(c->nd, "group", 1);
  if (group < 1 || x->dims[1] % group) return bad(c, "group %" PRId64 " does not divide the %" PRId64 " input channels", group, x->dims[1]);
  int64_t m = transpose ? w->dims[1] * group : w->dims[0];
  if (!transpose && (w->dims[1] * group != x->dims[1] || w->dims[0] % group))
    return bad(c, "weight shape [%" PRId64 ",%" PRId64 ",...] does not match %" PRId64 " input channels in %" PRId64 " groups", w->dims[0], w->dims[1], x->dims[1], group);
  if (transpose && w->dims[0] != x->dims[1])
    return bad(c, "weight has %" PRId64 " input channels, the input %" PRId64, w->dims[0], x->dims[1]);
  if (b && (b->rank != 1 || b->dims[0] != m))
    return bad(c, "bias must have %" PRId64 " elements", m);
  int64_t kernel[VTA_MAX_RANK], ks[VTA_MAX_RANK];
  for (int d = 0; d < x->rank - 2; d++) kernel[d] = w->dims[d + 2];
  int n = vta_node_ints(c->nd, "kernel_shape", ks, VTA_MAX_RANK);
  if (n >= 0) {
    if (n != x->rank - 2) return bad(c, "kernel_shape has %d values", n);
    for (int d = 0; d < n; d++)
      if (ks[d] != kernel[d]) return bad(c, "kernel_shape does not match the weight's shape");
  }
  if (set_int(c, "group", group)) return -1;
  int64_t dims[VTA_MAX_RANK] = {x->dims[0], m};
  if (spatial_params(c, x, kernel, transpose, dims + 2)) return -1;
  set_out(c, 0, ot >= 0 ? (vta_dtype)ot : x->dtype, x->rank, dims);
  return 0;
}

static int infer_matmul_at(ctx *c, int ai, int bi, int ot);
static int infer_matmul(ctx *c) { return infer_matmul_at(c, 0, 1, -1); }
static int infer_matmul_at(ctx *c, int ai, int bi, int ot) {
  vta_gvalue *a = IN(c, ai), *b = IN(c, bi);
  if (need_rank(c, a, 0) || need_rank(c, b, 1)) return -1;
  if (a->rank < 1 || b->rank < 1) return bad(c, "MatMul of a scalar");
  int64_t ad[VTA_MAX_RANK + 1], bd[VTA_MAX_RANK + 1];
  int ar = a->rank, br = b->rank;
  memcpy(ad, a->dims, sizeof(int64_t) * (size_t)ar);
  memcpy(bd, b->dims, sizeof(int64_t) * (size_t)br);
  if (ar == 1) ad[1] = ad[0], ad[0] = 1, ar = 2;
  if (br == 1) bd[1] = 1, br = 2;
  if (ad[ar - 1] != bd[br - 2])
    return bad(c, "inner dimensions differ (%" PRId64 " vs %" PRId64 ")", ad[ar - 1], bd[br - 2]);
  vta_gvalue ba = {.rank = ar - 2}, bb = {.rank = br - 2};
  ba.name = a->name;
  bb.name = b->name;
  memcpy(ba.dims, ad, sizeof(int64_t) * (size_t)(ar - 2));
  memcpy(bb.dims, bd, sizeof(int64_t) * (size_t)(br - 2));
  int r;
  int64_t dims[VTA_MAX_RANK + 2];
  if (broadcast(c, &ba, &bb, &r, dims)) return -1;
  int out_r = r;
  if (a->rank > 1) dims[out_r++] = ad[ar - 2];
  if (b->rank > 1) dims[out_r++] = bd[br - 1];
  if (out_r > VTA_MAX_RANK) return bad(c, "result rank too large");
  set_out(c, 0, ot >= 0 ? (vta_dtype)ot : a->dtype, out_r, dims);
  return 0;
}

static int infer_gemm(ctx *c) {
  vta_gvalue *a = IN(c, 0), *b = IN(c, 1), *cc = IN(c, 2);
  if (need_rank(c, a, 0) || need_rank(c, b, 1)) return -1;
  if (a->rank != 2 || b->rank != 2) return bad(c, "Gemm needs 2-D inputs");
  int ta = (int)vta_node_int(c->nd, "transA", 0), tb = (int)vta_node_int(c->nd, "transB", 0);
  int64_t m = ta ? a->dims[1] : a->dims[0], k = ta ? a->dims[0] : a->dims[1];
  int64_t k2 = tb ? b->dims[1] : b->dims[0], n = tb ? b->dims[0] : b->dims[1];
  if (k != k2) return bad(c, "inner dimensions differ (%" PRId64 " vs %" PRId64 ")", k, k2);
  int64_t dims[2] = {m, n};
  if (cc) {
    vta_gvalue o = {.rank = 2, .dims = {m, n}, .name = "Y"};
    int r;
    int64_t bd[VTA_MAX_RANK];
    if (need_rank(c, cc, 2) || broadcast(c, &o, cc, &r, bd)) return -1;
    if (r != 2 || bd[0] != m || bd[1] != n) return bad(c, "C does not broadcast to [M,N]");
  }
  set_out(c, 0, a->dtype, 2, dims);
  return 0;
}

static int infer_reshape(ctx *c) {
  vta_gvalue *x = IN(c, 0);
  if (need_rank(c, x, 0)) return -1;
  if (input_to_ints(c, 1, "shape", 0)) return -1;
  trim_inputs(c->nd);
  int64_t s[VTA_MAX_RANK + 1];
  int n = vta_node_ints(c->nd, "shape", s, VTA_MAX_RANK + 1);
  if (n < 0) return bad(c, "the target shape is missing");
  if (n > VTA_MAX_RANK) return bad(c, "the target shape has more than %d dimensions", VTA_MAX_RANK);
  int allowzero = (int)vta_node_int(c->nd, "allowzero", 0), neg = -1;
  int64_t known = 1, total = vta_value_count(x);
  for (int d = 0; d < n; d++) {
    if (s[d] == 0 && !allowzero) {
      if (d >= x->rank) return bad(c, "shape[%d] = 0 copies a dimension the input lacks", d);
      s[d] = x->dims[d];
    }
    if (s[d] == -1) {
      if (neg >= 0) return bad(c, "the target shape has more than one -1");
      neg = d;
    } else if (s[d] < 0) {
      return bad(c, "shape[%d] = %" PRId64 " is negative", d, s[d]);
    } else {
      known *= s[d];
    }
  }
  if (neg >= 0) {
    if (known == 0 || total % known) return bad(c, "cannot infer the -1 dimension: %" PRId64 " elements into %" PRId64, total, known);
    s[neg] = total / known;
    known *= s[neg];
  }
  if (known != total)
    return bad(c, "cannot reshape %" PRId64 " elements into %" PRId64, total, known);
  vta_node_remove_attr(c->nd, "allowzero");
  if (set_ints(c, "shape", n, s)) return -1;
  set_out(c, 0, x->dtype, n, s);
  return 0;
}

static int infer_squeeze(ctx *c, int unsq) {
  vta_gvalue *x = IN(c, 0);
  if (need_rank(c, x, 0)) return -1;
  if (input_to_ints(c, 1, "axes", 0)) return -1;
  trim_inputs(c->nd);
  int64_t axes[VTA_MAX_RANK * 2];
  int n = vta_node_ints(c->nd, "axes", axes, VTA_MAX_RANK * 2);
  int64_t dims[VTA_MAX_RANK];
  int r = 0;
  if (unsq) {
    if (n < 0) return bad(c, "axes are missing");
    int orank = x->rank + n;
    if (orank > VTA_MAX_RANK) return bad(c, "result rank too large");
    char is_new[VTA_MAX_RANK] = {0};
    for (int k = 0; k < n; k++) {
      int64_t a = 0;
      if (norm_axis(c, axes[k], orank, &a)) return -1;
      if (is_new[a]) return bad(c, "axis %" PRId64 " repeated", a);
      is_new[a] = 1;
      axes[k] = a;
    }
    int src = 0;
    for (int d = 0; d < orank; d++) dims[d] = is_new[d] ? 1 : x->dims[src++];
    r = orank;
  } else {
    char drop[VTA_MAX_RANK] = {0};
    if (n < 0) {
      n = 0;
      for (int d = 0; d < x->rank; d++)
        if (x->dims[d] == 1) axes[n++] = d;
    }
    for (int k = 0; k < n; k++) {
      int64_t a = 0;
      if (norm_axis(c, axes[k], x->rank, &a)) return -1;
      if (x->dims[a] != 1) return bad(c, "cannot squeeze axis %" PRId64 " of size %" PRId64, a, x->dims[a]);
      drop[a] = 1;
      axes[k] = a;
    }
    for (int d = 0; d < x->rank; d++)
      if (!drop[d]) dims[r++] = x->dims[d];
  }
  if (set_ints(c, "axes", n, axes)) return -1;
  set_out(c, 0, x->dtype, r, dims);
  return 0;
}

static int infer_flatten(ctx *c) {
  vta_gvalue *x = IN(c, 0);
  if (need_rank(c, x, 0)) return -1;
  int64_t axis = vta_node_int(c->nd, "axis", 1);
  if (axis < -x->rank || axis > x->rank) return bad(c, "axis %" PRId64 " out of range", axis);
  if (axis < 0) axis += x->rank;
  int64_t d[2] = {1, 1};
  for (int k = 0; k < x->rank; k++) d[k < axis ? 0 : 1] *= x->dims[k];
  if (set_int(c, "axis", axis)) return -1;
  set_out(c, 0, x->dtype, 2, d);
  return 0;
}

static int infer_transpose(ctx *c) {
  vta_gvalue *x = IN(c, 0);
  if (need_rank(c, x, 0)) return -1;
  int64_t perm[VTA_MAX_RANK], dims[VTA_MAX_RANK];
  int n = vta_node_ints(c->nd, "perm", perm, VTA_MAX_RANK);
  if (n < 0) {
    n = x->rank;
    for (int d = 0; d < n; d++) perm[d] = n - 1 - d;
  }
  if (n != x->rank) return bad(c, "perm has %d entries for rank %d", n, x->rank);
  char seen[VTA_MAX_RANK] = {0};
  for (int d = 0; d < n; d++) {
    if (perm[d] < 0 || perm[d] >= n || seen[perm[d]]) return bad(c, "perm is not a permutation");
    seen[perm[d]] = 1;
    dims[d] = x->dims[perm[d]];
  }
  if (set_ints(c, "perm", n, perm)) return -1;
  set_out(c, 0, x->dtype, n, dims);
  return 0;
}

static int infer_concat(ctx *c) {
  vta_gvalue *x = IN(c, 0);
  if (need_rank(c, x, 0)) return -1;
  int64_t axis = 0;
  if (!vta_node_attr(c->nd, "axis")) return bad(c, "attribute axis is missing");
  if (norm_axis(c, vta_node_int(c->nd, "axis", 0), x->rank, &axis)) return -1;
  int64_t dims[VTA_MAX_RANK];
  memcpy(dims, x->dims, sizeof dims);
  dims[axis] = 0;
  for (int k = 0; k < c->nd->n_in; k++) {
    vta_gvalue *v = IN(c, k);
    if (need_rank(c, v, k)) return -1;
    if (v->rank != x->rank || v->dtype != x->dtype)
      return bad(c, "input %d ('%s') differs in rank or type from input 0", k, v->name);
    for (int d = 0; d < x->rank; d++)
      if (d != axis && v->dims[d] != x->dims[d])
        return bad(c, "input %d ('%s') differs in dimension %d", k, v->name, d);
    dims[axis] += v->dims[axis];
  }
  if (set_int(c, "axis", axis)) return -1;
  set_out(c, 0, x->dtype, x->rank, dims);
  return 0;
}

static int infer_pad(ctx *c) {
  vta_gvalue *x = IN(c, 0);
  if (need_rank(c, x, 0)) return -1;
  if (c->g->opset >= 11) {
    if (input_to_ints(c, 1, "pads", 1)) return -1;
    if (c->nd->n_in > 2 && IN(c, 2)) {
      float v[1];
      if (const_floats(IN(c, 2), v, 1) != 1)
        return bad(c, "constant_value must be a constant scalar known at compile time");
      if (set_float(c, "value", v[0])) return -1;
      c->nd->in[2] = -1;
    }
    if (c->nd->n_in > 3 && IN(c, 3)) return unsupported(c, "Pad's axes input");
    trim_inputs(c->nd);
  }
  int64_t pads[2 * VTA_MAX_RANK], dims[VTA_MAX_RANK];
  if (vta_node_ints(c->nd, "pads", pads, 2 * VTA_MAX_RANK) != 2 * x->rank)
    return bad(c, "pads must have %d values", 2 * x->rank);
  const char *mode = vta_node_string(c->nd, "mode", "constant");
  if (strcmp(mode, "constant") && strcmp(mode, "reflect") && strcmp(mode, "edge"))
    return bad(c, "mode '%s' is not constant, reflect or edge", mode);
  for (int d = 0; d < x->rank; d++) {
    dims[d] = x->dims[d] + pads[d] + pads[d + x->rank];
    if (dims[d] < 0) return bad(c, "negative output dimension %d", d);
    if (strcmp(mode, "reflect") == 0 && (pads[d] >= x->dims[d] || pads[d + x->rank] >= x->dims[d]))
      return bad(c, "reflect padding of %" PRId64 " on an axis of size %" PRId64, pads[d], x->dims[d]);
  }
  set_out(c, 0, x->dtype, x->rank, dims);
  return 0;
}

static int infer_slice(ctx *c) {
  vta_gvalue *x = IN(c, 0);
  if (need_rank(c, x, 0)) return -1;
  if (c->g->opset >= 10) {
    if (input_to_ints(c, 1, "starts", 1) || input_to_ints(c, 2, "ends", 1) ||
        input_to_ints(c, 3, "axes", 0) || input_to_ints(c, 4, "steps", 0))
      return -1;
    trim_inputs(c->nd);
  }
  int64_t st[VTA_MAX_RANK], en[VTA_MAX_RANK], ax[VTA_MAX_RANK], sp[VTA_MAX_RANK];
  int ns = vta_node_ints(c->nd, "starts", st, VTA_MAX_RANK);
  int ne = vta_node_ints(c->nd, "ends", en, VTA_MAX_RANK);
  int na = vta_node_ints(c->nd, "axes", ax, VTA_MAX_RANK);
  int nst = vta_node_ints(c->nd, "steps", sp, VTA_MAX_RANK);
  if (ns < 0 || ne != ns) return bad(c, "starts and ends are missing or differ in length");
  if (na < 0)
    for (na = 0; na < ns; na++) ax[na] = na;
  if (nst < 0)
    for (nst = 0; nst < ns; nst++) sp[nst] = 1;
  if (na != ns || nst != ns) return bad(c, "axes and steps must match starts in length");
  /* Canonical: per axis of the input, a start and a step; the output shape says the count. */
  int64_t start[VTA_MAX_RANK], step[VTA_MAX_RANK], dims[VTA_MAX_RANK];
  for (int d = 0; d < x->rank; d++) start[d] = 0, step[d] = 1, dims[d] = x->dims[d];
  for (int k = 0; k < ns; k++) {
    int64_t a = 0;
    if (norm_axis(c, ax[k], x->rank, &a)) return -1;
    int64_t n = x->dims[a], s = st[k], e = en[k], p = sp[k];
    if (p == 0) return bad(c, "step 0 on axis %" PRId64, a);
    if (s < 0) s += n;
    if (e < 0) e += n;
    if (p > 0) {
      s = s < 0 ? 0 : s > n ? n : s;
      e = e < 0 ? 0 : e > n ? n : e;
      dims[a] = e > s ? (e - s + p - 1) / p : 0;
    } else {
      s = s < 0 ? -1 : s > n - 1 ? n - 1 : s;
      e = e < -1 ? -1 : e > n - 1 ? n - 1 : e;
      dims[a] = s > e ? (s - e + (-p) - 1) / (-p) : 0;
    }
    start[a] = s;
    step[a] = p;
  }
  vta_node_remove_attr(c->nd, "ends");
  vta_node_remove_attr(c->nd, "axes");
  if (set_ints(c, "starts", x->rank, start) || set_ints(c, "steps", x->rank, step)) return -1;
  set_out(c, 0, x->dtype, x->rank, dims);
  return 0;
}

static int infer_resize(ctx *c) {
  vta_gvalue *x = IN(c, 0);
  if (need_rank(c, x, 0)) return -1;
  float scales[VTA_MAX_RANK];
  int64_t sizes[VTA_MAX_RANK];
  int nsc = -1, nsz = -1;
  int si = c->g->opset >= 11 ? 2 : 1;
  if (IN(c, si) && vta_value_count(IN(c, si)) > 0) {
    nsc = const_floats(IN(c, si), scales, VTA_MAX_RANK);
    if (nsc < 0) return not_constant(c, "scales must be a constant known at compile time");
  }
  if (c->g->opset >= 11 && IN(c, 3) && vta_value_count(IN(c, 3)) > 0) {
    nsz = const_ints(IN(c, 3), sizes, VTA_MAX_RANK);
    if (nsz < 0) return not_constant(c, "sizes must be a constant known at compile time");
  }
  int crop = strcmp(vta_node_string(c->nd, "coordinate_transformation_mode", "half_pixel"), "tf_crop_and_resize") == 0;
  float roi[2 * VTA_MAX_RANK];
  if (crop) {
    /* The region of interest: starts then ends, one pair per axis, fractions of the input. */
    int nr = c->g->opset >= 11 && IN(c, 1) ? const_floats(IN(c, 1), roi, 2 * VTA_MAX_RANK) : -1;
    if (nr < 0) return not_constant(c, "tf_crop_and_resize needs the roi input as a constant float tensor known at compile time");
    if (nr != 2 * x->rank) return bad(c, "roi has %d values; tf_crop_and_resize needs %d (a start and an end per axis)", nr, 2 * x->rank);
    if (vta_attrs_set_floats(&c->nd->n_attrs, &c->nd->attrs, "roi", nr, roi))
      return vta_error_set(c->err, VTA_ERR_NOMEM, "out of memory");
  }
  if (vta_node_attr(c->nd, "axes")) return unsupported(c, "Resize's axes attribute");
  const char *kar = vta_node_string(c->nd, "keep_aspect_ratio_policy", "stretch");
  if (strcmp(kar, "stretch")) return unsupported(c, "keep_aspect_ratio_policy other than stretch");
  int64_t dims[VTA_MAX_RANK];
  if (nsz >= 0) {
    if (nsz != x->rank) return bad(c, "sizes has %d values for rank %d", nsz, x->rank);
    for (int d = 0; d < x->rank; d++) {
      dims[d] = sizes[d];
      scales[d] = (float)sizes[d] / (float)x->dims[d];
    }
  } else if (nsc >= 0) {
    if (nsc != x->rank) return bad(c, "scales has %d values for rank %d", nsc, x->rank);
    for (int d = 0; d < x->rank; d++) {
      if (!(scales[d] > 0)) return bad(c, "scale %d is not positive", d);
      dims[d] = (int64_t)floorf((float)x->dims[d] * scales[d]);
    }
  } else {
    return bad(c, "neither scales nor sizes is given");
  }
  for (int k = 1; k < c->nd->n_in; k++) c->nd->in[k] = -1;
  trim_inputs(c->nd);
  const char *mode = vta_node_string(c->nd, "mode", "nearest");
  if (strcmp(mode, "nearest") && strcmp(mode, "linear") && strcmp(mode, "cubic"))
    return unsupported(c, "Resize mode other than nearest, linear and cubic");
  if (strcmp(mode, "nearest"))
    for (int d = 0; d < x->rank - 2; d++)
      if (dims[d] != x->dims[d] || scales[d] != 1.0f || (crop && (roi[d] != 0 || roi[x->rank + d] != 1)))
        return unsupported(c, "linear or cubic Resize of other than the last two dimensions");
  if (vta_attrs_set_floats(&c->nd->n_attrs, &c->nd->attrs, "scales", x->rank, scales))
    return vta_error_set(c->err, VTA_ERR_NOMEM, "out of memory");
  set_out(c, 0, x->dtype, x->rank, dims);
  return 0;
}

/* ---- quantized operators ---- */

static int is_q8(vta_dtype t) { return t == VTA_DT_I8 || t == VTA_DT_U8; }

/* Input k of a quantized ONNX operator: a constant scale (float) or zero point (int8/uint8, or
 * int32 for DequantizeLinear of int32 data) with 1 or `per` elements. */
static int q_param(ctx *c, int k, const char *what, int is_zp, int64_t per) {
  vta_gvalue *v = IN(c, k);
  if (!v) return 0;
  if (!v->data)
    return not_constant(c, "%s (input %d, '%s') must be a constant known at compile time", what, k, v->name);
  if (is_zp ? !(is_q8(v->dtype) || v->dtype == VTA_DT_I32) : v->dtype != VTA_DT_F32)
    return unsupported(c, is_zp ? "a zero point other than int8, uint8 or int32" : "a scale other than float32");
  int64_t n = vta_value_count(v);
  if (v->rank > 1 || (n != 1 && n != per))
    return bad(c, "%s has %lld elements; expected 1%s", what, (long long)n,
               per > 1 ? " or one per channel" : "");
  if (!is_zp) {
    const float *f = v->data;
    for (int64_t i = 0; i < n; i++)
      if (!(f[i] > 0) || !isfinite(f[i])) return bad(c, "%s element %lld is %g; scales must be positive", what, (long long)i, (double)f[i]);
  }
  return 0;
}

static int infer_quantize(ctx *c, int dequant) {
  vta_gvalue *x = IN(c, 0), *zp = IN(c, 2);
  if (need_rank(c, x, 0) || need_rank(c, IN(c, 1), 1)) return -1;
  /* The axis matters only for per-axis scales (a scalar scale works at any rank). */
  int64_t axis = 0;
  if (vta_value_count(IN(c, 1)) > 1) {
    if (x->rank == 0) return bad(c, "per-axis scales for a scalar");
    if (norm_axis(c, vta_node_int(c->nd, "axis", 1), x->rank, &axis)) return -1;
  }
  int64_t per = x->rank > 0 ? x->dims[axis] : 1;
  if (q_param(c, 1, "the scale", 0, per) || q_param(c, 2, "the zero point", 1, per)) return -1;
  if (zp && vta_value_count(zp) != vta_value_count(IN(c, 1)) && vta_value_count(zp) != 1)
    return bad(c, "the scale and the zero point differ in length");
  if (set_int(c, "axis", axis)) return -1;
  if (dequant) {
    if (!is_q8(x->dtype) && x->dtype != VTA_DT_I32)
      return unsupported(c, "DequantizeLinear of data other than int8, uint8 or int32");
    if (zp && zp->dtype != x->dtype) return bad(c, "the zero point's type differs from the data's");
    set_out(c, 0, VTA_DT_F32, x->rank, x->dims);
  } else {
    if (x->dtype != VTA_DT_F32) return unsupported(c, "QuantizeLinear of data other than float32");
    vta_dtype t = zp ? zp->dtype : VTA_DT_U8;
    if (!is_q8(t)) return unsupported(c, "QuantizeLinear to a type other than int8 or uint8");
    set_out(c, 0, t, x->rank, x->dims);
  }
  return 0;
}

static int need_type(ctx *c, int k, int int8_only) {
  vta_gvalue *v = IN(c, k);
  if (!v) return 0;
  if (int8_only ? v->dtype != VTA_DT_I8 : !is_q8(v->dtype))
    return unsupported(c, int8_only ? "an input other than int8" : "an input other than int8 or uint8");
  return 0;
}

/* Checks a zero-point input against its data input: same type, one element (or one per
 * output channel for weights). */
static int zp_match(ctx *c, int zk, int dk, int64_t per) {
  vta_gvalue *z = IN(c, zk), *d = IN(c, dk);
  if (!z) return 0;
  if (!z->data) return not_constant(c, "zero point input %d must be a constant known at compile time", zk);
  if (z->dtype != d->dtype) return bad(c, "zero point input %d's type differs from input %d's", zk, dk);
  int64_t n = vta_value_count(z);
  if (z->rank > 1 || (n != 1 && n != per)) return bad(c, "zero point input %d has %lld elements", zk, (long long)n);
  return 0;
}

static int infer_qlinear_conv(ctx *c) {
  vta_gvalue *w = IN(c, 3), *yz = IN(c, 7);
  if (c->nd->n_in < 8) return bad(c, "expects 8 or 9 inputs, has %d", c->nd->n_in);
  if (need_rank(c, IN(c, 0), 0) || need_rank(c, w, 3) || need_type(c, 0, 0) || need_type(c, 3, 0))
    return -1;
  int64_t m = w->rank > 0 ? w->dims[0] : 1;
  if (q_param(c, 1, "x_scale", 0, 1) || zp_match(c, 2, 0, 1) || q_param(c, 4, "w_scale", 0, m) ||
      zp_match(c, 5, 3, m) || q_param(c, 6, "y_scale", 0, 1) || !yz || q_param(c, 7, "y_zero_point", 1, 1))
    return yz ? -1 : bad(c, "y_zero_point is missing");
  vta_gvalue *b = IN(c, 8);
  if (b && b->dtype != VTA_DT_I32) return bad(c, "the bias must be int32");
  return infer_conv_at(c, 0, 0, 3, 8, yz->dtype);
}

static int infer_conv_integer(ctx *c) {
  if (need_rank(c, IN(c, 0), 0) || need_rank(c, IN(c, 1), 1) || need_type(c, 0, 0) || need_type(c, 1, 0))
    return -1;
  int64_t m = IN(c, 1)->rank > 0 ? IN(c, 1)->dims[0] : 1;
  if (zp_match(c, 2, 0, 1) || zp_match(c, 3, 1, m)) return -1;
  return infer_conv_at(c, 0, 0, 1, -1, VTA_DT_I32);
}

static int infer_qlinear_matmul(ctx *c) {
  if (c->nd->n_in != 8) return bad(c, "expects 8 inputs, has %d", c->nd->n_in);
  vta_gvalue *b = IN(c, 3);
  if (need_rank(c, IN(c, 0), 0) || need_rank(c, b, 3) || need_type(c, 0, 0) || need_type(c, 3, 0))
    return -1;
  int64_t n = b->dims[b->rank - 1];
  if (q_param(c, 1, "a_scale", 0, 1) || zp_match(c, 2, 0, 1) || q_param(c, 4, "b_scale", 0, n) ||
      zp_match(c, 5, 3, n) || q_param(c, 6, "y_scale", 0, 1) || q_param(c, 7, "y_zero_point", 1, 1))
    return -1;
  if (!IN(c, 2) || !IN(c, 5) || !IN(c, 7)) return bad(c, "a zero point is missing");
  return infer_matmul_at(c, 0, 3, IN(c, 7)->dtype);
}

static int infer_matmul_integer(ctx *c) {
  vta_gvalue *b = IN(c, 1);
  if (need_rank(c, IN(c, 0), 0) || need_rank(c, b, 1) || need_type(c, 0, 0) || need_type(c, 1, 0))
    return -1;
  if (zp_match(c, 2, 0, 1) || zp_match(c, 3, 1, b->dims[b->rank - 1])) return -1;
  return infer_matmul_at(c, 0, 1, VTA_DT_I32);
}

/* shift, lo, hi and the mul input (3) of QConv/QDense/QAdd; nmul: multipliers expected. */
static int requant_attrs(ctx *c, int64_t nmul) {
  int64_t shift = vta_node_int(c->nd, "shift", -1), lo = vta_node_int(c->nd, "lo", -128),
          hi = vta_node_int(c->nd, "hi", 127);
  if (shift < 0 || shift > 31) return bad(c, "shift %lld is not in 0..31", (long long)shift);
  if (lo < -128 || hi > 127 || lo > hi) return bad(c, "clip range [%lld, %lld] is not within int8", (long long)lo, (long long)hi);
  const vta_gvalue *m = c->nd->n_in > 3 ? IN(c, 3) : NULL;
  if (m && (!m->data || m->dtype != VTA_DT_I32 || m->rank != 1 || m->dims[0] != nmul))
    return bad(c, "mul must be a constant int32 tensor with one multiplier per output channel (%lld)",
               (long long)nmul);
  return set_int(c, "lo", lo) || set_int(c, "hi", hi);
}

static int infer_qconv(ctx *c) {
  vta_gvalue *w = IN(c, 1), *b = IN(c, 2);
  if (need_rank(c, IN(c, 0), 0) || need_rank(c, w, 1) || need_type(c, 0, 1) || need_type(c, 1, 1)) return -1;
  if (b && b->dtype != VTA_DT_I32) return bad(c, "the bias must be int32");
  if (infer_conv_at(c, 0, 0, 1, 2, VTA_DT_I8)) return -1;
  return requant_attrs(c, w->dims[0]);
}

static int infer_qdense(ctx *c) {
  vta_gvalue *x = IN(c, 0), *w = IN(c, 1), *b = IN(c, 2);
  if (need_rank(c, x, 0) || need_rank(c, w, 1) || need_type(c, 0, 1) || need_type(c, 1, 1)) return -1;
  if (x->rank < 1 || w->rank != 2 || x->dims[x->rank - 1] != w->dims[1])
    return bad(c, "QDense needs x [..., K] and w [N, K]");
  if (b && (b->dtype != VTA_DT_I32 || vta_value_count(b) != w->dims[0]))
    return bad(c, "the bias must be int32 with one element per output");
  int64_t dims[VTA_MAX_RANK];
  memcpy(dims, x->dims, sizeof dims);
  dims[x->rank - 1] = w->dims[0];
  set_out(c, 0, VTA_DT_I8, x->rank, dims);
  return requant_attrs(c, w->dims[0]);
}

static int infer_qadd(ctx *c) {
  vta_gvalue *a = IN(c, 0), *b = IN(c, 1);
  if (need_rank(c, a, 0) || need_rank(c, b, 1) || need_type(c, 0, 1) || need_type(c, 1, 1)) return -1;
  if (a->rank != b->rank || memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)a->rank))
    return bad(c, "QAdd needs operands of the same shape");
  for (int k = 0; k < 2; k++) {
    int64_t v = vta_node_int(c->nd, k ? "mb" : "ma", 1 << 20);
    if (v < -32768 || v > 32767) return bad(c, "%s %lld is not a 16-bit integer", k ? "mb" : "ma", (long long)v);
  }
  set_out(c, 0, VTA_DT_I8, a->rank, a->dims);
  return requant_attrs(c, 0);
}

static int infer_node(ctx *c) {
  vta_node *nd = c->nd;
  for (int k = 0; k < nd->n_in; k++) {
    vta_gvalue *v = IN(c, k);
    if (v && !v->data && v->rank < 0 && v->producer < 0 && !v->is_input)
      return bad(c, "input %d ('%s') is produced by no node", k, v->name);
  }
  const vta_op_family *fam = vta_op_family_of(nd->op);
  if (fam) return fam->infer(c->g, c->i, c->err);
  switch (nd->op) {
  case VTA_GOP_CONV: return infer_conv(c, 0);
  case VTA_GOP_CONV_TRANSPOSE: return infer_conv(c, 1);
  case VTA_GOP_GEMM: return infer_gemm(c);
  case VTA_GOP_MATMUL: return infer_matmul(c);
  case VTA_GOP_SOFTMAX: {
    vta_gvalue *x = IN(c, 0);
    if (need_rank(c, x, 0)) return -1;
    int legacy = c->g->opset < 13;
    int64_t axis = 0;
    if (norm_axis(c, vta_node_int(nd, "axis", legacy ? 1 : -1), x->rank, &axis)) return -1;
    if (set_int(c, "axis", axis) || set_int(c, "coerce", legacy)) return -1;
    set_out(c, 0, x->dtype, x->rank, x->dims);
    return 0;
  }
  case VTA_GOP_CONCAT: return infer_concat(c);
  case VTA_GOP_RESHAPE: return infer_reshape(c);
  case VTA_GOP_FLATTEN: return infer_flatten(c);
  case VTA_GOP_TRANSPOSE: return infer_transpose(c);
  case VTA_GOP_SQUEEZE: return infer_squeeze(c, 0);
  case VTA_GOP_UNSQUEEZE: return infer_squeeze(c, 1);
  case VTA_GOP_PAD: return infer_pad(c);
  case VTA_GOP_SLICE: return infer_slice(c);
  case VTA_GOP_RESIZE: return infer_resize(c);
  case VTA_GOP_UPSAMPLE: {
    /* Upsample (opset 9, removed in 10) is Resize-10: scales as input 1, asymmetric
     * coordinates, nearest rounding down. It becomes that Resize. */
    if (c->g->opset >= 10) return bad(c, "Upsample was removed in opset 10 (this model is opset %d); use Resize", c->g->opset);
    /* Checked before the node becomes a Resize, so that the error names an Upsample. */
    if (need_rank(c, IN(c, 0), 0)) return -1;
    if (set_string(c, "coordinate_transformation_mode", "asymmetric") || set_string(c, "nearest_mode", "floor"))
      return -1;
    nd->op = VTA_GOP_RESIZE;
    return infer_resize(c);
  }
  case VTA_GOP_BATCHNORM: {
    vta_gvalue *x = IN(c, 0);
    if (need_rank(c, x, 0)) return -1;
    if (nd->n_in != 5) return bad(c, "expects 5 inputs, has %d", nd->n_in);
    if (x->rank < 2) return bad(c, "input rank below 2");
    for (int k = 1; k < 5; k++) {
      vta_gvalue *p = IN(c, k);
      if (need_rank(c, p, k)) return -1;
      if (p->rank != 1 || p->dims[0] != x->dims[1])
        return bad(c, "input %d ('%s') must have %" PRId64 " elements (one per channel)", k, p->name, x->dims[1]);
    }
    if (vta_node_int(nd, "training_mode", 0)) return unsupported(c, "training_mode=1");
    set_out(c, 0, x->dtype, x->rank, x->dims);
    return 0;
  }
  case VTA_GOP_QUANTIZE_LINEAR: return infer_quantize(c, 0);
  case VTA_GOP_DEQUANTIZE_LINEAR: return infer_quantize(c, 1);
  case VTA_GOP_QLINEAR_CONV: return infer_qlinear_conv(c);
  case VTA_GOP_CONV_INTEGER: return infer_conv_integer(c);
  case VTA_GOP_QLINEAR_MATMUL: return infer_qlinear_matmul(c);
  case VTA_GOP_MATMUL_INTEGER: return infer_matmul_integer(c);
  case VTA_GOP_QCONV: return infer_qconv(c);
  case VTA_GOP_QDENSE: return infer_qdense(c);
  case VTA_GOP_QADD: return infer_qadd(c);
  case VTA_GOP_DROPOUT: {
    vta_gvalue *x = IN(c, 0);
    if (need_rank(c, x, 0)) return -1;
    if (nd->n_in > 2 && IN(c, 2)) {
      const vta_gvalue *t = IN(c, 2);
      if (!t->data || *(uint8_t *)t->data) return unsupported(c, "Dropout in training mode");
    }
    nd->n_in = 1;
    nd->op = VTA_GOP_IDENTITY;
    set_out(c, 0, x->dtype, x->rank, x->dims);
    return 0;
  }
  default:
    return unsupported(c, "shape inference for this operator");
  }
}

int vta_shape_infer_node(vta_graph *g, int i, vta_error *err) {
  ctx c = {g, i, &g->nodes[i], err, ""};
  vta_node_describe(g, i, c.where, sizeof c.where);
  if (infer_node(&c)) return -1;
  for (int k = 0; k < c.nd->n_out; k++) {
    if (c.nd->out[k] < 0) continue;
    const vta_gvalue *v = &g->values[c.nd->out[k]];
    if (v->rank < 0) return bad(&c, "output %d has no inferred shape", k);
    /* Before anything is allocated for it (constant evaluation, buffers). */
    char what[400];
    snprintf(what, sizeof what, "%s: output '%s'", c.where, v->name);
    if (vta_value_check_size(v, what, err)) return -1;
  }
  return 0;
}

int vta_shape_infer(vta_graph *g, vta_error *err) {
  for (int i = 0; i < g->n_inputs; i++) {
    const vta_gvalue *v = &g->values[g->inputs[i]];
    if (v->rank < 0)
      return vta_error_set(err, VTA_ERR_INVALID, "graph input '%s' has no known shape", v->name);
  }
  for (int i = 0; i < g->n_nodes; i++) {
    if (!g->nodes[i].inferred && vta_shape_infer_node(g, i, err)) return -1;
    /* Values computed from constants become constants now, so that later nodes that need
     * them as parameters (Reshape's shape) see them. The fold pass removes the nodes. */
    if (vta_eval_can(g, i) && vta_eval_node(g, i, err)) return -1;
  }
  return 0;
}
