/* op_softmax.c - Softmax, LogSoftmax and Hardmax: each one's shape rule, reference and code.
 * (Softmax, which models spend time in, has float32 code and no reference: it is not folded.)
 *
 * The design idea: all three normalise along one axis, so a tensor is seen as outer x len x
 * inner with the axis in the middle; before opset 13 the operators "coerce" the input to 2-D at
 * the axis, which is the same view with every dimension from the axis on in len and inner 1.
 * LogSoftmax is x - max - log(sum(exp(x - max))), in double; Hardmax is 1 at the first largest
 * element and 0 elsewhere.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "compiler/cpu/codegen_local.h"
#include "compiler/cpu/op_family.h"

/* ---- shape rule ---- */

/* Softmax: any element type (the code takes float32), the axis made explicit and "coerce"
 * set by the opset. */
static int softmax_f32_infer(vta_graph *g, int i, vta_error *err) {
  const vta_gvalue *x = vta_op_in(g, i, 0);
  if (vta_op_need_shape(g, i, err, x, 0)) return -1;
  int legacy = g->opset < 13;
  int64_t axis = 0;
  if (vta_op_axis(g, i, err, vta_node_int(&g->nodes[i], "axis", legacy ? 1 : -1), x->rank, &axis)) return -1;
  if (vta_op_set_int(g, i, err, "axis", axis) || vta_op_set_int(g, i, err, "coerce", legacy)) return -1;
  vta_op_set_out(g, i, 0, x->dtype, x->rank, x->dims);
  return 0;
}

static int softmax_infer(vta_graph *g, int i, vta_error *err) {
  vta_node *nd = &g->nodes[i];
  if (nd->op == VTA_GOP_SOFTMAX) return softmax_f32_infer(g, i, err);
  const vta_gvalue *x = vta_op_in(g, i, 0);
  if (!x || x->rank < 0) return vta_op_error(g, i, err, VTA_ERR_INVALID, "input 0 has no known shape");
  if (x->dtype != VTA_DT_F32 && x->dtype != VTA_DT_F64)
    return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "%s input ('%s'): %s takes floats", vta_dtype_name(x->dtype),
                        x->name, vta_op_name(nd->op));
  int legacy = g->opset < 13;
  int64_t axis = vta_node_int(nd, "axis", legacy ? 1 : -1);
  if (axis < -x->rank || axis >= x->rank || x->rank == 0)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "axis %" PRId64 " is out of range for rank %d", axis, x->rank);
  if (axis < 0) axis += x->rank;
  if (vta_attrs_set_int(&nd->n_attrs, &nd->attrs, "axis", axis) ||
      vta_attrs_set_int(&nd->n_attrs, &nd->attrs, "coerce", vta_node_int(nd, "coerce", legacy)))
    return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  vta_op_set_out(g, i, 0, x->dtype, x->rank, x->dims);
  return 0;
}

typedef struct {
  int64_t outer, len, inner;
} view;

static view view_of(const vta_graph *g, const vta_node *nd) {
  const vta_gvalue *x = &g->values[nd->in[0]];
  int64_t axis = vta_node_int(nd, "axis", 1);
  int coerce = (int)vta_node_int(nd, "coerce", 0);
  view v = {1, 1, 1};
  for (int d = 0; d < x->rank; d++) {
    if (d < axis) v.outer *= x->dims[d];
    else if (d == axis || coerce) v.len *= x->dims[d];
    else v.inner *= x->dims[d];
  }
  return v;
}

/* ---- reference ---- */

static int softmax_folds(vta_gop op) { return op != VTA_GOP_SOFTMAX; }

static int softmax_eval(vta_graph *g, int i, vta_error *err) {
  (void)err;
  const vta_node *nd = &g->nodes[i];
  const vta_gvalue *x = &g->values[nd->in[0]];
  vta_gvalue *o = &g->values[nd->out[0]];
  view v = view_of(g, nd);
  for (int64_t a = 0; a < v.outer; a++)
    for (int64_t b = 0; b < v.inner; b++) {
      int64_t base = a * v.len * v.inner + b;
      double m = -INFINITY, s = 0;
      int64_t at = 0;
      for (int64_t k = 0; k < v.len; k++) {
        double e = vta_elem_get(x, base + k * v.inner);
        if (e > m) m = e, at = k;
      }
      for (int64_t k = 0; k < v.len; k++) s += exp(vta_elem_get(x, base + k * v.inner) - m);
      for (int64_t k = 0; k < v.len; k++) {
        double e = vta_elem_get(x, base + k * v.inner);
        vta_elem_put(o, base + k * v.inner, nd->op == VTA_GOP_HARDMAX ? (double)(k == at) : e - m - log(s));
      }
    }
  return 0;
}

/* ---- code ---- */

/* Softmax in float32: the maximum, the exponentials stored with their sum, then one scaling
 * pass by the sum's reciprocal. */
static void softmax_f32(cg *c) {
  view w = view_of(c->g, c->nd);
  int64_t outer = w.outer, len = w.len, inner = w.inner;
  LLVMValueRef X = in_p(c, 0), O = out_p(c), mx = cg_slot(c, c->f32), sum = cg_slot(c, c->f32);
  loop_t lo, li, l1, l2, l3;
  LLVMValueRef o = loop_open(c, &lo, C(c, 0), C(c, outer));
  LLVMValueRef in = loop_open(c, &li, C(c, 0), C(c, inner));
  LLVMValueRef base = add(c, mul(c, o, len * inner), in);
  LLVMBuildStore(c->b, F(c, -INFINITY), mx);
  LLVMBuildStore(c->b, F(c, 0), sum);
  LLVMValueRef k = loop_open(c, &l1, C(c, 0), C(c, len));
  LLVMValueRef v = load(c, X, add(c, base, mul(c, k, inner)));
  LLVMBuildStore(c->b, fmax_(c, LLVMBuildLoad2(c->b, c->f32, mx, ""), v), mx);
  loop_close(c, &l1);
  LLVMValueRef m = LLVMBuildLoad2(c->b, c->f32, mx, "");
  k = loop_open(c, &l2, C(c, 0), C(c, len));
  LLVMValueRef idx = add(c, base, mul(c, k, inner));
  LLVMValueRef e = call1(c, "llvm.exp.f32", LLVMBuildFSub(c->b, load(c, X, idx), m, ""));
  store(c, e, O, idx);
  LLVMBuildStore(c->b, LLVMBuildFAdd(c->b, LLVMBuildLoad2(c->b, c->f32, sum, ""), e, ""), sum);
  loop_close(c, &l2);
  LLVMValueRef rs = LLVMBuildFDiv(c->b, F(c, 1), LLVMBuildLoad2(c->b, c->f32, sum, ""), "");
  k = loop_open(c, &l3, C(c, 0), C(c, len));
  idx = add(c, base, mul(c, k, inner));
  store(c, LLVMBuildFMul(c->b, load(c, O, idx), rs, ""), O, idx);
  loop_close(c, &l3);
  loop_close(c, &li);
  loop_close(c, &lo);
}

static int softmax_supports(const vta_graph *g, int i) {
  return g->nodes[i].op != VTA_GOP_SOFTMAX || cg_node_f32(g, i);
}

static int softmax_emit(cg *c) {
  const vta_node *nd = c->nd;
  if (nd->op == VTA_GOP_SOFTMAX) {
    softmax_f32(c);
    return 0;
  }
  vta_dtype t = c->g->values[nd->in[0]].dtype;
  view v = view_of(c->g, nd);
  LLVMBuilderRef b = c->b;
  LLVMTypeRef f64 = cg_f64_type(c);
  int vec = c->vec;
  c->vec = 0;
  LLVMValueRef X = cg_in(c, 0), O = cg_out(c, 0), mx = cg_slot(c, f64), sum = cg_slot(c, f64), at = cg_slot(c, c->i64);
  cg_loop lo, li, l1, l2, l3;
  LLVMValueRef a = cg_loop_open(c, &lo, cg_i64(c, 0), cg_i64(c, v.outer), 1);
  LLVMValueRef in = cg_loop_open(c, &li, cg_i64(c, 0), cg_i64(c, v.inner), 1);
  LLVMValueRef base = cg_add(c, cg_mul(c, a, v.len * v.inner), in);
  LLVMBuildStore(b, cg_f64(c, -INFINITY), mx);
  LLVMBuildStore(b, cg_f64(c, 0), sum);
  LLVMBuildStore(b, cg_i64(c, 0), at);
  LLVMValueRef k = cg_loop_open(c, &l1, cg_i64(c, 0), cg_i64(c, v.len), 1);
  LLVMValueRef e = cg_to_f64(c, cg_tload(c, X, t, cg_add(c, base, cg_mul(c, k, v.inner))), t);
  LLVMValueRef m = LLVMBuildLoad2(b, f64, mx, "");
  LLVMValueRef gt = LLVMBuildFCmp(b, LLVMRealOGT, e, m, "");
  LLVMBuildStore(b, LLVMBuildSelect(b, gt, e, m, ""), mx);
  LLVMBuildStore(b, LLVMBuildSelect(b, gt, k, LLVMBuildLoad2(b, c->i64, at, ""), ""), at);
  cg_loop_close(c, &l1);
  m = LLVMBuildLoad2(b, f64, mx, "");
  LLVMValueRef lse = NULL;
  if (nd->op == VTA_GOP_LOG_SOFTMAX) {
    k = cg_loop_open(c, &l2, cg_i64(c, 0), cg_i64(c, v.len), 1);
    e = cg_to_f64(c, cg_tload(c, X, t, cg_add(c, base, cg_mul(c, k, v.inner))), t);
    LLVMValueRef d = LLVMBuildFSub(b, e, m, "");
    LLVMBuildStore(b, LLVMBuildFAdd(b, LLVMBuildLoad2(b, f64, sum, ""), cg_call_f64(c, "llvm.exp.f64", 1, &d), ""), sum);
    cg_loop_close(c, &l2);
    LLVMValueRef s = LLVMBuildLoad2(b, f64, sum, "");
    lse = LLVMBuildFAdd(b, m, cg_call_f64(c, "llvm.log.f64", 1, &s), "");
  }
  LLVMValueRef arg = LLVMBuildLoad2(b, c->i64, at, "");
  k = cg_loop_open(c, &l3, cg_i64(c, 0), cg_i64(c, v.len), 1);
  LLVMValueRef idx = cg_add(c, base, cg_mul(c, k, v.inner)), y;
  if (lse) {
    y = LLVMBuildFSub(b, cg_to_f64(c, cg_tload(c, X, t, idx), t), lse, "");
  } else {
    y = cg_bool_f64(c, LLVMBuildICmp(b, LLVMIntEQ, k, arg, ""));
  }
  cg_tstore(c, cg_from_f64(c, y, t), O, t, idx);
  cg_loop_close(c, &l3);
  cg_loop_close(c, &li);
  cg_loop_close(c, &lo);
  c->vec = vec;
  return 0;
}

const vta_op_family vta_family_softmax = {"op_softmax.c", softmax_infer, softmax_eval,
                                          softmax_supports, softmax_emit, softmax_folds};
