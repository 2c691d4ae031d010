/* op_unary.c - the unary elementwise family: Relu, LeakyRelu, Clip, Sigmoid, HardSigmoid,
 * HardSwish, Tanh, Exp, Log, Sqrt, Neg, Abs, Reciprocal, Floor, Ceil, Elu, Selu, Softplus,
 * Softsign and Identity; each one's shape rule, reference and code.
 *
 * The design idea: these are the operators models spend their elementwise time in, and the
 * ones the fusion pass folds into their producer as epilogue steps, so their code is one step
 * on float32 scalars or vectors (cg_unary_step) that the vectorised walk of codegen_llvm.c
 * (cg_emit_pointwise) runs both for a node of its own and for a fused step of any producer.
 * The reference is the same definition in double. Clip on other element types, or with a
 * bound the model computes, goes through op_elementwise.c's scalar walk in double instead.
 */
#include <math.h>
#include <string.h>

#include "compiler/cpu/codegen_local.h"
#include "compiler/cpu/op_family.h"

/* ---- shape rule ---- */

/* Clip's bounds (opset 11 on: inputs 1 and 2) become float attributes when they are constants. */
static int clip_bounds(vta_graph *g, int i, vta_error *err, const vta_gvalue *a) {
  vta_node *nd = &g->nodes[i];
  float v[1];
  for (int k = 1; k <= 2 && k < nd->n_in; k++) {
    vta_gvalue *bv = vta_op_in(g, i, k);
    if (!bv) continue;
    if (a->dtype == VTA_DT_BOOL) return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "Clip on bool data is not supported");
    if (bv->dtype != a->dtype)
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "Clip's %s is %s, its data %s", k == 1 ? "min" : "max",
                          vta_dtype_name(bv->dtype), vta_dtype_name(a->dtype));
    if (vta_value_count(bv) != 1)
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "Clip's %s has %lld elements; it must be a scalar",
                          k == 1 ? "min" : "max", (long long)vta_value_count(bv));
    /* A bound computed at run time (openWakeWord's melspectrogram clips at its maximum
     * minus 80 dB) stays an input: the scalar walk reads it. */
    if (!bv->data) continue;
    /* Integer bounds are kept as float attributes: exact for every 16-bit value and for
     * the bounds models use; others are refused rather than rounded. */
    double x = vta_elem_get(bv, 0);
    v[0] = (float)x;
    if ((double)v[0] != x && !isnan(x))
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "Clip's %s %.17g is not exactly a float32; integer bounds must be",
                          k == 1 ? "min" : "max", x);
    if (vta_attrs_set_float(&nd->n_attrs, &nd->attrs, k == 1 ? "min" : "max", v[0]))
      return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
    nd->in[k] = -1;
  }
  while (nd->n_in > 0 && nd->in[nd->n_in - 1] < 0) nd->n_in--;
  return 0;
}

static int unary_infer(vta_graph *g, int i, vta_error *err) {
  vta_node *nd = &g->nodes[i];
  const vta_gvalue *a = vta_op_in(g, i, 0);
  if (vta_op_need_shape(g, i, err, a, 0)) return -1;
  if (nd->op == VTA_GOP_CLIP && g->opset >= 11 && clip_bounds(g, i, err, a)) return -1;
  if (nd->n_in != 1 && !(nd->op == VTA_GOP_CLIP && nd->n_in <= 3))
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "expects one input, has %d", nd->n_in);
  vta_op_set_out(g, i, 0, a->dtype, a->rank, a->dims);
  return 0;
}

/* ---- reference ---- */

static double unary_ref(const vta_node *nd, const double *xs) {
  double x = xs[0];
  float a;
  switch (nd->op) {
  case VTA_GOP_RELU: return x > 0 ? x : 0;
  case VTA_GOP_LEAKY_RELU: a = vta_node_float(nd, "alpha", 0.01f); return x >= 0 ? x : a * x;
  case VTA_GOP_CLIP: {
    double lo = vta_node_float(nd, "min", -INFINITY), hi = vta_node_float(nd, "max", INFINITY);
    return x < lo ? lo : x > hi ? hi : x;
  }
  case VTA_GOP_SIGMOID: return 1 / (1 + exp(-x));
  case VTA_GOP_HARD_SIGMOID: {
    double y = vta_node_float(nd, "alpha", 0.2f) * x + vta_node_float(nd, "beta", 0.5f);
    return y < 0 ? 0 : y > 1 ? 1 : y;
  }
  case VTA_GOP_HARD_SWISH: {
    double y = x / 6 + 0.5;
    return x * (y < 0 ? 0 : y > 1 ? 1 : y);
  }
  case VTA_GOP_TANH: return tanh(x);
  case VTA_GOP_EXP: return exp(x);
  case VTA_GOP_LOG: return log(x);
  case VTA_GOP_SQRT: return sqrt(x);
  case VTA_GOP_NEG: return -x;
  case VTA_GOP_ABS: return fabs(x);
  case VTA_GOP_RECIPROCAL: return 1 / x;
  case VTA_GOP_FLOOR: return floor(x);
  case VTA_GOP_CEIL: return ceil(x);
  case VTA_GOP_ELU: a = vta_node_float(nd, "alpha", 1.0f); return x >= 0 ? x : a * (exp(x) - 1);
  case VTA_GOP_SELU: {
    double al = vta_node_float(nd, "alpha", 1.67326319217681884765625f);
    double ga = vta_node_float(nd, "gamma", 1.05070102214813232421875f);
    return x > 0 ? ga * x : ga * (al * exp(x) - al);
  }
  case VTA_GOP_SOFTPLUS: return log(exp(x) + 1);
  case VTA_GOP_SOFTSIGN: return x / (1 + fabs(x));
  default: return x;
  }
}

static int unary_eval(vta_graph *g, int i, vta_error *err) {
  (void)err;
  const vta_node *nd = &g->nodes[i];
  if (nd->op == VTA_GOP_IDENTITY) { /* a copy: exact for every element type */
    vta_gvalue *o = &g->values[nd->out[0]];
    memcpy(o->data, g->values[nd->in[0]].data, vta_value_bytes(o));
    return 0;
  }
  return ew_eval(g, i, unary_ref);
}

/* ---- code ---- */

/* One step on float32 scalars or (while c->vec is set) vectors. */
LLVMValueRef cg_unary_step(cg *c, vta_gop op, int na, const vta_attr *at, LLVMValueRef x) {
  LLVMBuilderRef b = c->b;
  switch (op) {
  case VTA_GOP_RELU: return fmax_(c, x, F(c, 0));
  case VTA_GOP_LEAKY_RELU: {
    LLVMValueRef neg = LLVMBuildFMul(b, x, F(c, attr_f(na, at, "alpha", 0.01f)), "");
    return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGE, x, F(c, 0), ""), x, neg, "");
  }
  case VTA_GOP_CLIP:
    return clampf(c, x, attr_f(na, at, "min", -INFINITY), attr_f(na, at, "max", INFINITY));
  case VTA_GOP_SIGMOID: {
    LLVMValueRef e = call1(c, "llvm.exp.f32", LLVMBuildFNeg(b, x, ""));
    return LLVMBuildFDiv(b, F(c, 1), LLVMBuildFAdd(b, F(c, 1), e, ""), "");
  }
  case VTA_GOP_HARD_SIGMOID: {
    LLVMValueRef y = LLVMBuildFAdd(b, LLVMBuildFMul(b, x, F(c, attr_f(na, at, "alpha", 0.2f)), ""),
                                   F(c, attr_f(na, at, "beta", 0.5f)), "");
    return clampf(c, y, 0, 1);
  }
  case VTA_GOP_HARD_SWISH: {
    LLVMValueRef y = LLVMBuildFAdd(b, LLVMBuildFMul(b, x, F(c, 1.0f / 6.0f), ""), F(c, 0.5), "");
    return LLVMBuildFMul(b, x, clampf(c, y, 0, 1), "");
  }
  case VTA_GOP_TANH: return call1(c, "tanhf", x);
  case VTA_GOP_EXP: return call1(c, "llvm.exp.f32", x);
  case VTA_GOP_LOG: return call1(c, "llvm.log.f32", x);
  case VTA_GOP_SQRT: return call1(c, "llvm.sqrt.f32", x);
  case VTA_GOP_NEG: return LLVMBuildFNeg(b, x, "");
  case VTA_GOP_ABS: return call1(c, "llvm.fabs.f32", x);
  case VTA_GOP_RECIPROCAL: return LLVMBuildFDiv(b, F(c, 1), x, "");
  case VTA_GOP_FLOOR: return call1(c, "llvm.floor.f32", x);
  case VTA_GOP_CEIL: return call1(c, "llvm.ceil.f32", x);
  case VTA_GOP_ELU: {
    LLVMValueRef e = LLVMBuildFSub(b, call1(c, "llvm.exp.f32", x), F(c, 1), "");
    e = LLVMBuildFMul(b, e, F(c, attr_f(na, at, "alpha", 1.0f)), "");
    return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGE, x, F(c, 0), ""), x, e, "");
  }
  case VTA_GOP_SELU: {
    float al = attr_f(na, at, "alpha", 1.67326319217681884765625f);
    float ga = attr_f(na, at, "gamma", 1.05070102214813232421875f);
    LLVMValueRef e = LLVMBuildFSub(b, LLVMBuildFMul(b, call1(c, "llvm.exp.f32", x), F(c, al), ""), F(c, al), "");
    LLVMValueRef y = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGT, x, F(c, 0), ""), x, e, "");
    return LLVMBuildFMul(b, y, F(c, ga), "");
  }
  case VTA_GOP_SOFTPLUS:
    return call1(c, "llvm.log.f32", LLVMBuildFAdd(b, call1(c, "llvm.exp.f32", x), F(c, 1), ""));
  case VTA_GOP_SOFTSIGN:
    return LLVMBuildFDiv(b, x, LLVMBuildFAdd(b, F(c, 1), call1(c, "llvm.fabs.f32", x), ""), "");
  default: return x; /* IDENTITY */
  }
}

/* Clip through the scalar walk: bounds from the attributes or, given at run time, from the
 * present inputs, which follow x in order (absent ones skipped). */
static LLVMValueRef clip_scalar(cg *c, const vta_node *nd, LLVMValueRef *x) {
  LLVMValueRef v = x[0];
  float lo = vta_node_float(nd, "min", -INFINITY), hi = vta_node_float(nd, "max", INFINITY);
  LLVMValueRef l = cg_f64(c, lo), h = cg_f64(c, hi);
  int k = 1;
  if (nd->n_in > 1 && nd->in[1] >= 0) l = x[k++];
  if (nd->n_in > 2 && nd->in[2] >= 0) h = x[k++];
  v = LLVMBuildSelect(c->b, LLVMBuildFCmp(c->b, LLVMRealOLT, v, l, ""), l, v, "");
  return LLVMBuildSelect(c->b, LLVMBuildFCmp(c->b, LLVMRealOGT, v, h, ""), h, v, "");
}

/* Integer or float16/float64 clipping, and a Clip bound computed at run time (whatever the
 * type), go through the scalar walk. */
static int clip_scalar_walk(const vta_graph *g, int i) {
  const vta_node *nd = &g->nodes[i];
  return nd->op == VTA_GOP_CLIP && ew_scalar_walk(g, i, nd->n_in > 1);
}

static int unary_supports(const vta_graph *g, int i) {
  if (clip_scalar_walk(g, i) || cg_node_f32(g, i)) return 1;
  /* Identity copies any element type. */
  return g->nodes[i].op == VTA_GOP_IDENTITY && cg_node_moves(g, i);
}

static int unary_emit(cg *c) {
  if (clip_scalar_walk(c->g, c->node)) return ew_emit(c, clip_scalar);
  cg_emit_pointwise(c, 1, 0);
  return 0;
}

const vta_op_family vta_family_unary = {"op_unary.c", unary_infer, unary_eval,
                                        unary_supports, unary_emit, NULL};
