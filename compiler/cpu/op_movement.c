/* op_movement.c - the data-movement family: Reshape, Flatten, Squeeze, Unsqueeze, Transpose,
 * Slice, Concat and Pad; each one's shape rule, reference and code.
 *
 * The design idea: these operators move elements without arithmetic, so their code works on
 * any element type by moving the output's own LLVM type (c->et: float, or the integer type of
 * the same size), and everything but Pad folds at compile time (shape arithmetic: Shape ->
 * Slice -> Concat -> Reshape). Their shape rules turn the parameters ONNX passes as constant
 * inputs (Reshape's shape, Squeeze's axes, Pad's pads and value, Slice's ranges) into
 * attributes and make them canonical: Reshape's shape fully resolved, Slice's starts and
 * steps one per input axis (the output's shape says the count), Transpose's perm explicit.
 * The code is then a copy (the reshapes), one row copy per outer index (Concat), or an affine
 * gather out[idx] = in[base + idx * step] (Transpose, Slice); Pad clamps or reflects each
 * coordinate.
 */
#include <string.h>
#include <inttypes.h>

#include "compiler/cpu/codegen_local.h"

/* ---- shape rules ---- */

static int reshape_infer(vta_graph *g, int i, vta_error *err) {
  vta_node *nd = &g->nodes[i];
  const vta_gvalue *x = vta_op_in(g, i, 0);
  if (vta_op_need_shape(g, i, err, x, 0)) return -1;
  if (vta_op_input_to_ints(g, i, err, 1, "shape", 0)) return -1;
  vta_node_trim_inputs(nd);
  int64_t s[VTA_MAX_RANK + 1];
  int n = vta_node_ints(nd, "shape", s, VTA_MAX_RANK + 1);
  if (n < 0) return vta_op_error(g, i, err, VTA_ERR_INVALID, "the target shape is missing");
  if (n > VTA_MAX_RANK) return vta_op_error(g, i, err, VTA_ERR_INVALID, "the target shape has more than %d dimensions", VTA_MAX_RANK);
  int allowzero = (int)vta_node_int(nd, "allowzero", 0), neg = -1;
  int64_t known = 1, total = vta_value_count(x);
  for (int d = 0; d < n; d++) {
    if (s[d] == 0 && !allowzero) {
      if (d >= x->rank) return vta_op_error(g, i, err, VTA_ERR_INVALID, "shape[%d] = 0 copies a dimension the input lacks", d);
      s[d] = x->dims[d];
    }
    if (s[d] == -1) {
      if (neg >= 0) return vta_op_error(g, i, err, VTA_ERR_INVALID, "the target shape has more than one -1");
      neg = d;
    } else if (s[d] < 0) {
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "shape[%d] = %" PRId64 " is negative", d, s[d]);
    } else {
      known *= s[d];
    }
  }
  if (neg >= 0) {
    if (known == 0 || total % known) return vta_op_error(g, i, err, VTA_ERR_INVALID, "cannot infer the -1 dimension: %" PRId64 " elements into %" PRId64, total, known);
    s[neg] = total / known;
    known *= s[neg];
  }
  if (known != total)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "cannot reshape %" PRId64 " elements into %" PRId64, total, known);
  vta_node_remove_attr(nd, "allowzero");
  if (vta_op_set_ints(g, i, err, "shape", n, s)) return -1;
  vta_op_set_out(g, i, 0, x->dtype, n, s);
  return 0;
}

static int squeeze_infer(vta_graph *g, int i, vta_error *err, int unsq) {
  vta_node *nd = &g->nodes[i];
  const vta_gvalue *x = vta_op_in(g, i, 0);
  if (vta_op_need_shape(g, i, err, x, 0)) return -1;
  if (vta_op_input_to_ints(g, i, err, 1, "axes", 0)) return -1;
  vta_node_trim_inputs(nd);
  int64_t axes[VTA_MAX_RANK * 2];
  int n = vta_node_ints(nd, "axes", axes, VTA_MAX_RANK * 2);
  int64_t dims[VTA_MAX_RANK];
  int r = 0;
  if (unsq) {
    if (n < 0) return vta_op_error(g, i, err, VTA_ERR_INVALID, "axes are missing");
    int orank = x->rank + n;
    if (orank > VTA_MAX_RANK) return vta_op_error(g, i, err, VTA_ERR_INVALID, "result rank too large");
    char is_new[VTA_MAX_RANK] = {0};
    for (int k = 0; k < n; k++) {
      int64_t a = 0;
      if (vta_op_axis(g, i, err, axes[k], orank, &a)) return -1;
      if (is_new[a]) return vta_op_error(g, i, err, VTA_ERR_INVALID, "axis %" PRId64 " repeated", a);
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
      if (vta_op_axis(g, i, err, axes[k], x->rank, &a)) return -1;
      if (x->dims[a] != 1) return vta_op_error(g, i, err, VTA_ERR_INVALID, "cannot squeeze axis %" PRId64 " of size %" PRId64, a, x->dims[a]);
      drop[a] = 1;
      axes[k] = a;
    }
    for (int d = 0; d < x->rank; d++)
      if (!drop[d]) dims[r++] = x->dims[d];
  }
  if (vta_op_set_ints(g, i, err, "axes", n, axes)) return -1;
  vta_op_set_out(g, i, 0, x->dtype, r, dims);
  return 0;
}

static int flatten_infer(vta_graph *g, int i, vta_error *err) {
  vta_node *nd = &g->nodes[i];
  const vta_gvalue *x = vta_op_in(g, i, 0);
  if (vta_op_need_shape(g, i, err, x, 0)) return -1;
  int64_t axis = vta_node_int(nd, "axis", 1);
  if (axis < -x->rank || axis > x->rank) return vta_op_error(g, i, err, VTA_ERR_INVALID, "axis %" PRId64 " out of range", axis);
  if (axis < 0) axis += x->rank;
  int64_t d[2] = {1, 1};
  for (int k = 0; k < x->rank; k++) d[k < axis ? 0 : 1] *= x->dims[k];
  if (vta_op_set_int(g, i, err, "axis", axis)) return -1;
  vta_op_set_out(g, i, 0, x->dtype, 2, d);
  return 0;
}

static int transpose_infer(vta_graph *g, int i, vta_error *err) {
  vta_node *nd = &g->nodes[i];
  const vta_gvalue *x = vta_op_in(g, i, 0);
  if (vta_op_need_shape(g, i, err, x, 0)) return -1;
  int64_t perm[VTA_MAX_RANK], dims[VTA_MAX_RANK];
  int n = vta_node_ints(nd, "perm", perm, VTA_MAX_RANK);
  if (n < 0) {
    n = x->rank;
    for (int d = 0; d < n; d++) perm[d] = n - 1 - d;
  }
  if (n != x->rank) return vta_op_error(g, i, err, VTA_ERR_INVALID, "perm has %d entries for rank %d", n, x->rank);
  char seen[VTA_MAX_RANK] = {0};
  for (int d = 0; d < n; d++) {
    if (perm[d] < 0 || perm[d] >= n || seen[perm[d]]) return vta_op_error(g, i, err, VTA_ERR_INVALID, "perm is not a permutation");
    seen[perm[d]] = 1;
    dims[d] = x->dims[perm[d]];
  }
  if (vta_op_set_ints(g, i, err, "perm", n, perm)) return -1;
  vta_op_set_out(g, i, 0, x->dtype, n, dims);
  return 0;
}

static int concat_infer(vta_graph *g, int i, vta_error *err) {
  vta_node *nd = &g->nodes[i];
  const vta_gvalue *x = vta_op_in(g, i, 0);
  if (vta_op_need_shape(g, i, err, x, 0)) return -1;
  int64_t axis = 0;
  if (!vta_node_attr(nd, "axis")) return vta_op_error(g, i, err, VTA_ERR_INVALID, "attribute axis is missing");
  if (vta_op_axis(g, i, err, vta_node_int(nd, "axis", 0), x->rank, &axis)) return -1;
  int64_t dims[VTA_MAX_RANK];
  memcpy(dims, x->dims, sizeof dims);
  dims[axis] = 0;
  for (int k = 0; k < nd->n_in; k++) {
    const vta_gvalue *v = vta_op_in(g, i, k);
    if (vta_op_need_shape(g, i, err, v, k)) return -1;
    if (v->rank != x->rank || v->dtype != x->dtype)
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "input %d ('%s') differs in rank or type from input 0", k, v->name);
    for (int d = 0; d < x->rank; d++)
      if (d != axis && v->dims[d] != x->dims[d])
        return vta_op_error(g, i, err, VTA_ERR_INVALID, "input %d ('%s') differs in dimension %d", k, v->name, d);
    dims[axis] += v->dims[axis];
  }
  if (vta_op_set_int(g, i, err, "axis", axis)) return -1;
  vta_op_set_out(g, i, 0, x->dtype, x->rank, dims);
  return 0;
}

static int pad_infer(vta_graph *g, int i, vta_error *err) {
  vta_node *nd = &g->nodes[i];
  const vta_gvalue *x = vta_op_in(g, i, 0);
  if (vta_op_need_shape(g, i, err, x, 0)) return -1;
  if (g->opset >= 11) {
    if (vta_op_input_to_ints(g, i, err, 1, "pads", 1)) return -1;
    if (nd->n_in > 2 && vta_op_in(g, i, 2)) {
      float v[1];
      if (vta_const_floats(vta_op_in(g, i, 2), v, 1) != 1)
        return vta_op_error(g, i, err, VTA_ERR_INVALID, "constant_value must be a constant scalar known at compile time");
      if (vta_op_set_float(g, i, err, "value", v[0])) return -1;
      nd->in[2] = -1;
    }
    if (nd->n_in > 3 && vta_op_in(g, i, 3)) return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "Pad's axes input is not supported");
    vta_node_trim_inputs(nd);
  }
  int64_t pads[2 * VTA_MAX_RANK], dims[VTA_MAX_RANK];
  if (vta_node_ints(nd, "pads", pads, 2 * VTA_MAX_RANK) != 2 * x->rank)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "pads must have %d values", 2 * x->rank);
  const char *mode = vta_node_string(nd, "mode", "constant");
  if (strcmp(mode, "constant") && strcmp(mode, "reflect") && strcmp(mode, "edge"))
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "mode '%s' is not constant, reflect or edge", mode);
  for (int d = 0; d < x->rank; d++) {
    dims[d] = x->dims[d] + pads[d] + pads[d + x->rank];
    if (dims[d] < 0) return vta_op_error(g, i, err, VTA_ERR_INVALID, "negative output dimension %d", d);
    if (strcmp(mode, "reflect") == 0 && (pads[d] >= x->dims[d] || pads[d + x->rank] >= x->dims[d]))
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "reflect padding of %" PRId64 " on an axis of size %" PRId64, pads[d], x->dims[d]);
  }
  vta_op_set_out(g, i, 0, x->dtype, x->rank, dims);
  return 0;
}

static int slice_infer(vta_graph *g, int i, vta_error *err) {
  vta_node *nd = &g->nodes[i];
  const vta_gvalue *x = vta_op_in(g, i, 0);
  if (vta_op_need_shape(g, i, err, x, 0)) return -1;
  if (g->opset >= 10) {
    if (vta_op_input_to_ints(g, i, err, 1, "starts", 1) || vta_op_input_to_ints(g, i, err, 2, "ends", 1) ||
        vta_op_input_to_ints(g, i, err, 3, "axes", 0) || vta_op_input_to_ints(g, i, err, 4, "steps", 0))
      return -1;
    vta_node_trim_inputs(nd);
  }
  int64_t st[VTA_MAX_RANK], en[VTA_MAX_RANK], ax[VTA_MAX_RANK], sp[VTA_MAX_RANK];
  int ns = vta_node_ints(nd, "starts", st, VTA_MAX_RANK);
  int ne = vta_node_ints(nd, "ends", en, VTA_MAX_RANK);
  int na = vta_node_ints(nd, "axes", ax, VTA_MAX_RANK);
  int nst = vta_node_ints(nd, "steps", sp, VTA_MAX_RANK);
  if (ns < 0 || ne != ns) return vta_op_error(g, i, err, VTA_ERR_INVALID, "starts and ends are missing or differ in length");
  if (na < 0)
    for (na = 0; na < ns; na++) ax[na] = na;
  if (nst < 0)
    for (nst = 0; nst < ns; nst++) sp[nst] = 1;
  if (na != ns || nst != ns) return vta_op_error(g, i, err, VTA_ERR_INVALID, "axes and steps must match starts in length");
  /* Canonical: per axis of the input, a start and a step; the output shape says the count. */
  int64_t start[VTA_MAX_RANK], step[VTA_MAX_RANK], dims[VTA_MAX_RANK];
  for (int d = 0; d < x->rank; d++) start[d] = 0, step[d] = 1, dims[d] = x->dims[d];
  for (int k = 0; k < ns; k++) {
    int64_t a = 0;
    if (vta_op_axis(g, i, err, ax[k], x->rank, &a)) return -1;
    int64_t n = x->dims[a], s = st[k], e = en[k], p = sp[k];
    if (p == 0) return vta_op_error(g, i, err, VTA_ERR_INVALID, "step 0 on axis %" PRId64, a);
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
  vta_node_remove_attr(nd, "ends");
  vta_node_remove_attr(nd, "axes");
  if (vta_op_set_ints(g, i, err, "starts", x->rank, start) || vta_op_set_ints(g, i, err, "steps", x->rank, step)) return -1;
  vta_op_set_out(g, i, 0, x->dtype, x->rank, dims);
  return 0;
}

static int movement_infer(vta_graph *g, int i, vta_error *err) {
  switch (g->nodes[i].op) {
  case VTA_GOP_CONCAT: return concat_infer(g, i, err);
  case VTA_GOP_RESHAPE: return reshape_infer(g, i, err);
  case VTA_GOP_FLATTEN: return flatten_infer(g, i, err);
  case VTA_GOP_TRANSPOSE: return transpose_infer(g, i, err);
  case VTA_GOP_SQUEEZE: return squeeze_infer(g, i, err, 0);
  case VTA_GOP_UNSQUEEZE: return squeeze_infer(g, i, err, 1);
  case VTA_GOP_PAD: return pad_infer(g, i, err);
  default: return slice_infer(g, i, err);
  }
}

/* ---- reference ---- */

/* Pad has no reference: a Pad of constants is not folded; it runs as code. */
static int movement_folds(vta_gop op) { return op != VTA_GOP_PAD; }

static int movement_eval(vta_graph *g, int i, vta_error *err) {
  (void)err;
  const vta_node *nd = &g->nodes[i];
  vta_gvalue *o = &g->values[nd->out[0]];
  const vta_gvalue *x = &g->values[nd->in[0]];
  int64_t n = vta_value_count(o), idx[VTA_MAX_RANK], xs[VTA_MAX_RANK], os[VTA_MAX_RANK];
  vta_value_strides(x, xs);
  vta_value_strides(o, os);
  switch (nd->op) {
  case VTA_GOP_TRANSPOSE: {
    int64_t perm[VTA_MAX_RANK];
    vta_node_ints(nd, "perm", perm, VTA_MAX_RANK);
    for (int64_t k = 0; k < n; k++) {
      vta_value_unravel(o, k, idx);
      int64_t off = 0;
      for (int d = 0; d < o->rank; d++) off += idx[d] * xs[perm[d]];
      vta_elem_put(o, k, vta_elem_get(x, off));
    }
    return 0;
  }
  case VTA_GOP_SLICE: {
    int64_t st[VTA_MAX_RANK], sp[VTA_MAX_RANK];
    vta_node_ints(nd, "starts", st, VTA_MAX_RANK);
    vta_node_ints(nd, "steps", sp, VTA_MAX_RANK);
    for (int64_t k = 0; k < n; k++) {
      vta_value_unravel(o, k, idx);
      int64_t off = 0;
      for (int d = 0; d < o->rank; d++) off += (st[d] + idx[d] * sp[d]) * xs[d];
      vta_elem_put(o, k, vta_elem_get(x, off));
    }
    return 0;
  }
  case VTA_GOP_CONCAT: {
    int64_t axis = vta_node_int(nd, "axis", 0), base = 0;
    for (int a = 0; a < nd->n_in; a++) {
      const vta_gvalue *v = &g->values[nd->in[a]];
      int64_t m = vta_value_count(v);
      for (int64_t k = 0; k < m; k++) {
        vta_value_unravel(v, k, idx);
        idx[axis] += base;
        int64_t off = 0;
        for (int d = 0; d < o->rank; d++) off += idx[d] * os[d];
        vta_elem_put(o, off, vta_elem_get(v, k));
      }
      base += v->dims[axis];
    }
    return 0;
  }
  default: /* the reshapes: the same type and element count */
    memcpy(o->data, x->data, vta_value_bytes(o));
    return 0;
  }
}

/* ---- code ---- */

/* Float32, or any element type moved as it is (one type in and out, no fused steps); Pad
 * then only with a padding value of 0, which every type holds exactly. */
static int movement_supports(const vta_graph *g, int i) {
  const vta_node *nd = &g->nodes[i];
  if (cg_node_f32(g, i)) return 1;
  if (nd->op == VTA_GOP_PAD && g->values[nd->out[0]].dtype != VTA_DT_F32 && vta_node_float(nd, "value", 0.0f) != 0.0f)
    return 0;
  return cg_node_moves(g, i);
}

/* Elements of the output's type (c->et). */
static LLVMValueRef egep(cg *c, LLVMValueRef p, LLVMValueRef i) {
  LLVMValueRef q = LLVMBuildBitCast(c->b, p, LLVMPointerType(c->et, 0), "");
  return LLVMBuildInBoundsGEP2(c->b, c->et, q, &i, 1, "");
}
static LLVMValueRef eload(cg *c, LLVMValueRef p, LLVMValueRef i) {
  return LLVMBuildLoad2(c->b, c->et, egep(c, p, i), "");
}
static void estore(cg *c, LLVMValueRef v, LLVMValueRef p, LLVMValueRef i) {
  LLVMBuildStore(c->b, v, egep(c, p, i));
}

static void memcpy_f32(cg *c, LLVMValueRef dst, LLVMValueRef src, int64_t count) {
  if (count <= 0) return;
  int64_t esize = LLVMGetTypeKind(c->et) == LLVMFloatTypeKind ? 4 : (int64_t)LLVMGetIntTypeWidth(c->et) / 8;
  LLVMValueRef a[4] = {LLVMBuildBitCast(c->b, dst, c->i8ptr, ""), LLVMBuildBitCast(c->b, src, c->i8ptr, ""),
                       C(c, count * esize), LLVMConstInt(c->i1, 0, 0)};
  cg_call(c, "llvm.memcpy.p0i8.p0i8.i64", LLVMVoidTypeInContext(c->ctx), 4, a);
}

static void emit_copy(cg *c) {
  memcpy_f32(c, out_p(c), in_p(c, 0), vta_value_count(V(c, c->nd->out[0])));
}

/* Generic gather: out[idx] = in[sum_d f_d(idx_d)] where f_d(i) = base[d] + i * step[d]. */
static void emit_affine(cg *c, const int64_t *base, const int64_t *step) {
  const vta_gvalue *o = V(c, c->nd->out[0]);
  int64_t os[VTA_MAX_RANK];
  vta_value_strides(o, os);
  loop_t lp[VTA_MAX_RANK];
  int64_t b0 = 0;
  for (int d = 0; d < o->rank; d++) b0 += base[d];
  LLVMValueRef io = C(c, b0), oo = C(c, 0);
  for (int d = 0; d < o->rank; d++) {
    LLVMValueRef i = loop_open(c, &lp[d], C(c, 0), C(c, o->dims[d]));
    io = add(c, io, mul(c, i, step[d]));
    oo = add(c, oo, mul(c, i, os[d]));
  }
  estore(c, eload(c, in_p(c, 0), io), out_p(c), oo);
  for (int d = o->rank - 1; d >= 0; d--) loop_close(c, &lp[d]);
}

static void emit_transpose(cg *c) {
  const vta_gvalue *x = V(c, c->nd->in[0]);
  int64_t perm[VTA_MAX_RANK], xs[VTA_MAX_RANK], base[VTA_MAX_RANK] = {0}, step[VTA_MAX_RANK];
  vta_node_ints(c->nd, "perm", perm, VTA_MAX_RANK);
  vta_value_strides(x, xs);
  for (int d = 0; d < x->rank; d++) step[d] = xs[perm[d]];
  emit_affine(c, base, step);
}

static void emit_slice(cg *c) {
  const vta_gvalue *x = V(c, c->nd->in[0]);
  int64_t st[VTA_MAX_RANK], sp[VTA_MAX_RANK], xs[VTA_MAX_RANK], base[VTA_MAX_RANK], step[VTA_MAX_RANK];
  vta_node_ints(c->nd, "starts", st, VTA_MAX_RANK);
  vta_node_ints(c->nd, "steps", sp, VTA_MAX_RANK);
  vta_value_strides(x, xs);
  for (int d = 0; d < x->rank; d++) base[d] = st[d] * xs[d], step[d] = sp[d] * xs[d];
  emit_affine(c, base, step);
}

static void emit_concat(cg *c) {
  const vta_node *nd = c->nd;
  const vta_gvalue *o = V(c, nd->out[0]);
  int64_t axis = vta_node_int(nd, "axis", 0), inner = 1, outer = 1;
  for (int d = 0; d < axis; d++) outer *= o->dims[d];
  for (int d = (int)axis + 1; d < o->rank; d++) inner *= o->dims[d];
  int64_t at = 0, orow = o->dims[axis] * inner;
  for (int k = 0; k < nd->n_in; k++) {
    const vta_gvalue *x = V(c, nd->in[k]);
    int64_t row = x->dims[axis] * inner;
    if (row && outer) {
      loop_t l1;
      LLVMValueRef i = loop_open(c, &l1, C(c, 0), C(c, outer));
      memcpy_f32(c, egep(c, out_p(c), add(c, mul(c, i, orow), C(c, at * inner))),
                 egep(c, in_p(c, k), mul(c, i, row)), row);
      loop_close(c, &l1);
    }
    at += x->dims[axis];
  }
}

static void emit_pad(cg *c) {
  const vta_node *nd = c->nd;
  const vta_gvalue *x = V(c, nd->in[0]), *o = V(c, nd->out[0]);
  int64_t pads[2 * VTA_MAX_RANK], xs[VTA_MAX_RANK], os[VTA_MAX_RANK];
  vta_node_ints(nd, "pads", pads, 2 * VTA_MAX_RANK);
  vta_value_strides(x, xs);
  vta_value_strides(o, os);
  const char *mode = vta_node_string(nd, "mode", "constant");
  int constant = strcmp(mode, "constant") == 0, reflect = strcmp(mode, "reflect") == 0;
  int empty = vta_value_count(x) == 0;
  loop_t lp[VTA_MAX_RANK];
  LLVMValueRef io = C(c, 0), oo = C(c, 0), valid = LLVMConstInt(c->i1, 1, 0);
  for (int d = 0; d < o->rank; d++) {
    LLVMValueRef i = loop_open(c, &lp[d], C(c, 0), C(c, o->dims[d]));
    oo = add(c, oo, mul(c, i, os[d]));
    LLVMValueRef s = LLVMBuildNSWSub(c->b, i, C(c, pads[d]), "");
    int64_t n = x->dims[d];
    LLVMValueRef lo = LLVMBuildICmp(c->b, LLVMIntSLT, s, C(c, 0), "");
    LLVMValueRef hi = LLVMBuildICmp(c->b, LLVMIntSGE, s, C(c, n), "");
    if (constant) {
      valid = LLVMBuildAnd(c->b, valid, LLVMBuildNot(c->b, LLVMBuildOr(c->b, lo, hi, ""), ""), "");
      s = LLVMBuildSelect(c->b, lo, C(c, 0), s, "");
      s = LLVMBuildSelect(c->b, hi, C(c, n > 0 ? n - 1 : 0), s, "");
    } else if (reflect) {
      s = LLVMBuildSelect(c->b, lo, LLVMBuildNSWNeg(c->b, s, ""), s, "");
      s = LLVMBuildSelect(c->b, hi, LLVMBuildNSWSub(c->b, C(c, 2 * (n - 1)), s, ""), s, "");
    } else {
      s = LLVMBuildSelect(c->b, lo, C(c, 0), s, "");
      s = LLVMBuildSelect(c->b, hi, C(c, n - 1), s, "");
    }
    io = add(c, io, mul(c, s, xs[d]));
  }
  float pv = vta_node_float(nd, "value", 0.0f);
  LLVMValueRef val = c->et == c->f32 ? F(c, pv) : LLVMConstInt(c->et, (unsigned long long)(int64_t)pv, 1);
  LLVMValueRef y = empty ? val : eload(c, in_p(c, 0), io);
  if (constant && !empty) y = LLVMBuildSelect(c->b, valid, y, val, "");
  estore(c, y, out_p(c), oo);
  for (int d = o->rank - 1; d >= 0; d--) loop_close(c, &lp[d]);
}

static int movement_emit(cg *c) {
  switch (c->nd->op) {
  case VTA_GOP_CONCAT: emit_concat(c); break;
  case VTA_GOP_TRANSPOSE: emit_transpose(c); break;
  case VTA_GOP_PAD: emit_pad(c); break;
  case VTA_GOP_SLICE: emit_slice(c); break;
  default: emit_copy(c); break;
  }
  return 0;
}

const vta_op_family vta_family_movement = {"op_movement.c", movement_infer, movement_eval, movement_supports,
                                           movement_emit, movement_folds};
