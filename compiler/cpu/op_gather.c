/* op_gather.c - the index family: Gather, GatherElements, GatherND, ScatterElements (and its
 * deprecated name Scatter), ScatterND; each one's shape rule, reference and code.
 *
 * The design idea: all of them walk one iteration space (the output for the gathers, the
 * updates for the scatters) and, per element, read one tensor at an offset made partly of the
 * walk's coordinates and partly of index values read from the index tensor at run time. The
 * index tensors are data like any other (int64 or int32), so nothing here needs them to be
 * constants. Indices are taken modulo ONNX's rule (negative counts from the end); an index out
 * of range is an error in the reference (constant folding names the node) and, in generated
 * code, reads 0 / writes nothing, so that a bad index never touches memory outside a tensor.
 * Scatters copy the data first, then apply the updates in order (reduction none, add or mul).
 */
#include <inttypes.h>
#include <string.h>

#include "compiler/cpu/op_family.h"

/* ---- shape rules ---- */

static int need(vta_graph *g, int i, vta_error *err, int k, const vta_gvalue **v) {
  *v = vta_op_in(g, i, k);
  if (!*v) return vta_op_error(g, i, err, VTA_ERR_INVALID, "input %d is missing", k);
  if ((*v)->rank < 0) return vta_op_error(g, i, err, VTA_ERR_INVALID, "input %d ('%s') has no known shape", k, (*v)->name);
  return 0;
}
static int need_index(vta_graph *g, int i, vta_error *err, const vta_gvalue *ix) {
  if (ix->dtype != VTA_DT_I64 && ix->dtype != VTA_DT_I32)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "the indices '%s' are %s, not int64 or int32", ix->name,
                        vta_dtype_name(ix->dtype));
  return 0;
}
static int axis_attr(vta_graph *g, int i, vta_error *err, int rank, int64_t *axis) {
  vta_node *nd = &g->nodes[i];
  int64_t a = vta_node_int(nd, "axis", 0);
  if (a < -rank || a >= rank)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "axis %" PRId64 " is out of range for rank %d", a, rank);
  *axis = a < 0 ? a + rank : a;
  if (vta_attrs_set_int(&nd->n_attrs, &nd->attrs, "axis", *axis)) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  return 0;
}
/* Scatter reductions: 0 none, 1 add, 2 mul. */
static int reduction_of(const vta_node *nd) {
  const char *r = vta_node_string(nd, "reduction", "none");
  return strcmp(r, "add") == 0 ? 1 : strcmp(r, "mul") == 0 ? 2 : strcmp(r, "none") == 0 ? 0 : -1;
}

static int gather_infer(vta_graph *g, int i, vta_error *err) {
  const vta_node *nd = &g->nodes[i];
  const vta_gvalue *x, *ix, *up = NULL;
  if (need(g, i, err, 0, &x) || need(g, i, err, 1, &ix) || need_index(g, i, err, ix)) return -1;
  int64_t axis = 0, dims[VTA_MAX_RANK];
  switch (nd->op) {
  case VTA_GOP_GATHER: {
    if (x->rank == 0) return vta_op_error(g, i, err, VTA_ERR_INVALID, "the data is a scalar");
    if (axis_attr(g, i, err, x->rank, &axis)) return -1;
    if (x->rank - 1 + ix->rank > VTA_MAX_RANK)
      return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "the result's rank %d is above %d", x->rank - 1 + ix->rank,
                          VTA_MAX_RANK);
    int r = 0;
    for (int d = 0; d < axis; d++) dims[r++] = x->dims[d];
    for (int d = 0; d < ix->rank; d++) dims[r++] = ix->dims[d];
    for (int d = (int)axis + 1; d < x->rank; d++) dims[r++] = x->dims[d];
    vta_op_set_out(g, i, 0, x->dtype, r, dims);
    return 0;
  }
  case VTA_GOP_GATHER_ELEMENTS:
    if (ix->rank != x->rank)
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "indices of rank %d for data of rank %d", ix->rank, x->rank);
    if (x->rank == 0) return vta_op_error(g, i, err, VTA_ERR_INVALID, "the data is a scalar");
    if (axis_attr(g, i, err, x->rank, &axis)) return -1;
    vta_op_set_out(g, i, 0, x->dtype, ix->rank, ix->dims);
    return 0;
  case VTA_GOP_GATHER_ND: {
    int64_t b = vta_node_int(nd, "batch_dims", 0);
    if (ix->rank < 1) return vta_op_error(g, i, err, VTA_ERR_INVALID, "the indices are a scalar");
    int64_t last = ix->dims[ix->rank - 1];
    if (b < 0 || b >= ix->rank || b >= x->rank || last < 1 || b + last > x->rank)
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "batch_dims %" PRId64 " and index tuples of %" PRId64
                          " for data of rank %d and indices of rank %d", b, last, x->rank, ix->rank);
    for (int d = 0; d < b; d++)
      if (ix->dims[d] != x->dims[d])
        return vta_op_error(g, i, err, VTA_ERR_INVALID, "batch dimension %d differs (%" PRId64 " and %" PRId64 ")", d,
                            x->dims[d], ix->dims[d]);
    int r = 0;
    for (int d = 0; d < ix->rank - 1; d++) dims[r++] = ix->dims[d];
    for (int d = (int)(b + last); d < x->rank; d++) dims[r++] = x->dims[d];
    if (r > VTA_MAX_RANK) return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "the result's rank is above %d", VTA_MAX_RANK);
    vta_op_set_out(g, i, 0, x->dtype, r, dims);
    return 0;
  }
  default: /* the scatters */
    if (need(g, i, err, 2, &up)) return -1;
    if (up->dtype != x->dtype)
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "updates are %s, data %s", vta_dtype_name(up->dtype),
                          vta_dtype_name(x->dtype));
    if (reduction_of(nd) < 0)
      return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "reduction '%s' (none, add and mul are supported)",
                          vta_node_string(nd, "reduction", ""));
    if (nd->op == VTA_GOP_SCATTER_ND) {
      if (ix->rank < 1) return vta_op_error(g, i, err, VTA_ERR_INVALID, "the indices are a scalar");
      int64_t last = ix->dims[ix->rank - 1];
      int want = ix->rank - 1 + x->rank - (int)last;
      if (last < 1 || last > x->rank || up->rank != want)
        return vta_op_error(g, i, err, VTA_ERR_INVALID, "updates of rank %d for index tuples of %" PRId64
                            " into data of rank %d", up->rank, last, x->rank);
      for (int d = 0; d < up->rank; d++) {
        int64_t e = d < ix->rank - 1 ? ix->dims[d] : x->dims[last + d - (ix->rank - 1)];
        if (up->dims[d] != e)
          return vta_op_error(g, i, err, VTA_ERR_INVALID, "updates dimension %d is %" PRId64 ", expected %" PRId64, d,
                              up->dims[d], e);
      }
    } else {
      if (x->rank == 0) return vta_op_error(g, i, err, VTA_ERR_INVALID, "the data is a scalar");
      if (ix->rank != x->rank || up->rank != x->rank || memcmp(ix->dims, up->dims, sizeof(int64_t) * (size_t)ix->rank))
        return vta_op_error(g, i, err, VTA_ERR_INVALID, "indices and updates must have the data's rank and one shape");
      if (axis_attr(g, i, err, x->rank, &axis)) return -1;
    }
    vta_op_set_out(g, i, 0, x->dtype, x->rank, x->dims);
    return 0;
  }
}

/* ---- the geometry both halves share ---- */

static void strides(const vta_gvalue *v, int64_t *s) {
  int64_t acc = 1;
  for (int d = v->rank - 1; d >= 0; d--) s[d] = acc, acc *= v->dims[d];
}
static void unravel(int64_t j, int rank, const int64_t *dims, int64_t *idx) {
  for (int d = rank - 1; d >= 0; d--) {
    idx[d] = dims[d] ? j % dims[d] : 0;
    j = dims[d] ? j / dims[d] : 0;
  }
}

/* ---- reference ---- */

static double combine(int red, double old, double v) { return red == 1 ? old + v : red == 2 ? old * v : v; }

static int gather_eval(vta_graph *g, int i, vta_error *err) {
  const vta_node *nd = &g->nodes[i];
  const vta_gvalue *x = &g->values[nd->in[0]], *ix = &g->values[nd->in[1]];
  const vta_gvalue *up = nd->n_in > 2 && nd->in[2] >= 0 ? &g->values[nd->in[2]] : NULL;
  vta_gvalue *o = &g->values[nd->out[0]];
  int64_t xs[VTA_MAX_RANK], is[VTA_MAX_RANK], idx[VTA_MAX_RANK];
  strides(x, xs);
  strides(ix, is);
  int64_t axis = vta_node_int(nd, "axis", 0);
  int red = reduction_of(nd);
  /* The walk: output elements for the gathers, update elements for the scatters. */
  const vta_gvalue *space = up ? up : o;
  int64_t n = vta_value_count(space);
  if (up) memcpy(o->data, x->data, vta_value_bytes(o));
  for (int64_t j = 0; j < n; j++) {
    unravel(j, space->rank, space->dims, idx);
    int64_t off = 0;
    switch (nd->op) {
    case VTA_GOP_GATHER: {
      int64_t ioff = 0;
      for (int d = 0; d < ix->rank; d++) ioff += idx[axis + d] * is[d];
      int64_t k = (int64_t)vta_elem_get(ix, ioff);
      if (k < 0) k += x->dims[axis];
      if (k < 0 || k >= x->dims[axis]) goto range;
      for (int d = 0; d < axis; d++) off += idx[d] * xs[d];
      off += k * xs[axis];
      for (int d = (int)axis + 1; d < x->rank; d++) off += idx[d - 1 + ix->rank] * xs[d];
      break;
    }
    case VTA_GOP_GATHER_ELEMENTS: case VTA_GOP_SCATTER_ELEMENTS: case VTA_GOP_SCATTER: {
      int64_t k = (int64_t)vta_elem_get(ix, j);
      if (k < 0) k += x->dims[axis];
      if (k < 0 || k >= x->dims[axis]) goto range;
      for (int d = 0; d < x->rank; d++) off += (d == axis ? k : idx[d]) * xs[d];
      break;
    }
    default: { /* GatherND, ScatterND: a tuple of indices per leading position */
      int64_t b = vta_node_int(nd, "batch_dims", 0), last = ix->dims[ix->rank - 1], lead = 0;
      int nlead = ix->rank - 1;
      for (int d = 0; d < nlead; d++) lead += idx[d] * is[d];
      for (int d = 0; d < b; d++) off += idx[d] * xs[d];
      for (int64_t t = 0; t < last; t++) {
        int64_t k = (int64_t)vta_elem_get(ix, lead + t), dim = x->dims[b + t];
        if (k < 0) k += dim;
        if (k < 0 || k >= dim) goto range;
        off += k * xs[b + t];
      }
      for (int d = (int)(b + last); d < x->rank; d++) off += idx[nlead + d - (b + last)] * xs[d];
      break;
    }
    }
    if (up) vta_elem_put(o, off, combine(red, vta_elem_get(o, off), vta_elem_get(up, j)));
    else vta_elem_put(o, j, vta_elem_get(x, off));
  }
  return 0;
range:
  return vta_op_error(g, i, err, VTA_ERR_INVALID, "an index is out of range for the data's shape");
}

/* ---- code ---- */

/* Loads index element at off, wraps it by dim and says whether it is in range. */
static LLVMValueRef index_at(cg *c, LLVMValueRef IX, vta_dtype t, LLVMValueRef off, int64_t dim, LLVMValueRef *ok) {
  LLVMBuilderRef b = c->b;
  LLVMValueRef k = cg_tload(c, IX, t, off);
  if (t != VTA_DT_I64) k = LLVMBuildSExt(b, k, c->i64, "");
  LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, k, cg_i64(c, 0), "");
  k = LLVMBuildSelect(b, neg, LLVMBuildAdd(b, k, cg_i64(c, dim), ""), k, "");
  LLVMValueRef in = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntSGE, k, cg_i64(c, 0), ""),
                                 LLVMBuildICmp(b, LLVMIntSLT, k, cg_i64(c, dim), ""), "");
  *ok = *ok ? LLVMBuildAnd(b, *ok, in, "") : in;
  return LLVMBuildSelect(b, in, k, cg_i64(c, 0), "");
}

static int gather_emit(cg *c) {
  const vta_node *nd = c->nd;
  const vta_gvalue *x = &c->g->values[nd->in[0]], *ix = &c->g->values[nd->in[1]];
  const vta_gvalue *up = nd->n_in > 2 && nd->in[2] >= 0 ? &c->g->values[nd->in[2]] : NULL;
  const vta_gvalue *o = &c->g->values[nd->out[0]];
  LLVMBuilderRef b = c->b;
  int vec = c->vec;
  c->vec = 0;
  int64_t xs[VTA_MAX_RANK], is[VTA_MAX_RANK], ss[VTA_MAX_RANK];
  strides(x, xs);
  strides(ix, is);
  int64_t axis = vta_node_int(nd, "axis", 0);
  int red = reduction_of(nd);
  LLVMValueRef X = cg_in(c, 0), IX = cg_in(c, 1), O = cg_out(c, 0), UP = up ? cg_in(c, 2) : NULL;
  if (up) {
    /* The data first: out = data. */
    LLVMValueRef a[4] = {LLVMBuildBitCast(b, O, c->i8ptr, ""), LLVMBuildBitCast(b, X, c->i8ptr, ""),
                         cg_i64(c, (int64_t)vta_value_bytes(o)), LLVMConstInt(c->i1, 0, 0)};
    cg_call(c, "llvm.memcpy.p0i8.p0i8.i64", LLVMVoidTypeInContext(c->ctx), 4, a);
  }
  const vta_gvalue *space = up ? up : o;
  strides(space, ss);
  cg_loop l[VTA_MAX_RANK];
  LLVMValueRef iv[VTA_MAX_RANK], j = cg_i64(c, 0);
  for (int d = 0; d < space->rank; d++) {
    iv[d] = cg_loop_open(c, &l[d], cg_i64(c, 0), cg_i64(c, space->dims[d]), 1);
    j = cg_add(c, j, cg_mul(c, iv[d], ss[d]));
  }
  LLVMValueRef off = cg_i64(c, 0), ok = NULL;
  switch (nd->op) {
  case VTA_GOP_GATHER: {
    LLVMValueRef ioff = cg_i64(c, 0);
    for (int d = 0; d < ix->rank; d++) ioff = cg_add(c, ioff, cg_mul(c, iv[axis + d], is[d]));
    LLVMValueRef k = index_at(c, IX, ix->dtype, ioff, x->dims[axis], &ok);
    for (int d = 0; d < axis; d++) off = cg_add(c, off, cg_mul(c, iv[d], xs[d]));
    off = cg_add(c, off, cg_mul(c, k, xs[axis]));
    for (int d = (int)axis + 1; d < x->rank; d++) off = cg_add(c, off, cg_mul(c, iv[d - 1 + ix->rank], xs[d]));
    break;
  }
  case VTA_GOP_GATHER_ELEMENTS: case VTA_GOP_SCATTER_ELEMENTS: case VTA_GOP_SCATTER: {
    LLVMValueRef k = index_at(c, IX, ix->dtype, j, x->dims[axis], &ok);
    for (int d = 0; d < x->rank; d++) off = cg_add(c, off, cg_mul(c, d == axis ? k : iv[d], xs[d]));
    break;
  }
  default: {
    int64_t bd = vta_node_int(nd, "batch_dims", 0), last = ix->dims[ix->rank - 1];
    int nlead = ix->rank - 1;
    LLVMValueRef lead = cg_i64(c, 0);
    for (int d = 0; d < nlead; d++) lead = cg_add(c, lead, cg_mul(c, iv[d], is[d]));
    for (int d = 0; d < bd; d++) off = cg_add(c, off, cg_mul(c, iv[d], xs[d]));
    for (int64_t t = 0; t < last; t++) {
      LLVMValueRef k = index_at(c, IX, ix->dtype, cg_add(c, lead, cg_i64(c, t)), x->dims[bd + t], &ok);
      off = cg_add(c, off, cg_mul(c, k, xs[bd + t]));
    }
    for (int d = (int)(bd + last); d < x->rank; d++) off = cg_add(c, off, cg_mul(c, iv[nlead + d - (bd + last)], xs[d]));
    break;
  }
  }
  if (up) {
    LLVMBasicBlockRef after = cg_if_open(c, ok);
    LLVMValueRef v = cg_tload(c, UP, x->dtype, j);
    if (red) {
      LLVMValueRef old = cg_to_f64(c, cg_tload(c, O, x->dtype, off), x->dtype), nv = cg_to_f64(c, v, x->dtype);
      v = cg_from_f64(c, red == 1 ? LLVMBuildFAdd(b, old, nv, "") : LLVMBuildFMul(b, old, nv, ""), x->dtype);
    }
    cg_tstore(c, v, O, x->dtype, off);
    cg_if_close(c, after);
  } else {
    /* 0 where the index is out of range; the data is read only where it is in range (an
     * empty tensor has no element 0). */
    cg_tstore(c, LLVMConstNull(cg_elt_type(c, x->dtype)), O, x->dtype, j);
    LLVMBasicBlockRef after = cg_if_open(c, ok);
    cg_tstore(c, cg_tload(c, X, x->dtype, off), O, x->dtype, j);
    cg_if_close(c, after);
  }
  for (int d = space->rank - 1; d >= 0; d--) cg_loop_close(c, &l[d]);
  c->vec = vec;
  return 0;
}

static int gather_supports(const vta_graph *g, int i) {
  (void)g;
  (void)i;
  return 1; /* every element type: the data is moved, not computed (reductions go through double) */
}

const vta_op_family vta_family_gather = {"op_gather.c", gather_infer, gather_eval,
                                         gather_supports, gather_emit, NULL};
