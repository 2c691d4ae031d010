/* op_math.c - the elementwise math family: trigonometric and hyperbolic functions, Erf, Sign,
 * Round, IsNaN, IsInf, ThresholdedRelu, Shrink, Celu; each one's shape rule, reference and code.
 *
 * The design idea: an operator here is its scalar definition written twice, in C (the
 * reference) and in LLVM IR (the code), both in double precision; op_elementwise.c does the
 * rest (broadcast shape, walk, element types). libm functions without an LLVM intrinsic are
 * called by name and resolved from the process (the JIT) or the C library (objects).
 */
#include <math.h>
#include <string.h>

#include "compiler/cpu/op_family.h"

/* ---- shape rule ---- */

static int math_infer(vta_graph *g, int i, vta_error *err) {
  vta_gop op = g->nodes[i].op;
  int out = op == VTA_GOP_ISNAN || op == VTA_GOP_ISINF ? EW_OUT_BOOL : 0;
  unsigned allowed = op == VTA_GOP_SIGN || op == VTA_GOP_ROUND ? EW_NUMBERS : EW_FLOATS;
  return ew_infer(g, i, err, 0, 1, out, allowed);
}

/* ---- reference ---- */

static double math_ref(const vta_node *nd, const double *x) {
  double v = x[0];
  switch (nd->op) {
  case VTA_GOP_SIN: return sin(v);
  case VTA_GOP_COS: return cos(v);
  case VTA_GOP_TAN: return tan(v);
  case VTA_GOP_ASIN: return asin(v);
  case VTA_GOP_ACOS: return acos(v);
  case VTA_GOP_ATAN: return atan(v);
  case VTA_GOP_SINH: return sinh(v);
  case VTA_GOP_COSH: return cosh(v);
  case VTA_GOP_ASINH: return asinh(v);
  case VTA_GOP_ACOSH: return acosh(v);
  case VTA_GOP_ATANH: return atanh(v);
  case VTA_GOP_ERF: return erf(v);
  case VTA_GOP_SIGN: return v > 0 ? 1 : v < 0 ? -1 : v;
  case VTA_GOP_ROUND: return nearbyint(v); /* half to even in the default rounding mode */
  case VTA_GOP_ISNAN: return isnan(v);
  case VTA_GOP_ISINF:
    return isinf(v) && ((v > 0 && vta_node_int(nd, "detect_positive", 1)) ||
                        (v < 0 && vta_node_int(nd, "detect_negative", 1)));
  case VTA_GOP_THRESHOLDED_RELU: return v > vta_node_float(nd, "alpha", 1.0f) ? v : 0;
  case VTA_GOP_SHRINK: {
    double l = vta_node_float(nd, "lambd", 0.5f), b = vta_node_float(nd, "bias", 0.0f);
    return v < -l ? v + b : v > l ? v - b : 0;
  }
  case VTA_GOP_CELU: {
    double a = vta_node_float(nd, "alpha", 1.0f);
    return (v > 0 ? v : 0) + fmin(0, a * (exp(v / a) - 1));
  }
  default: return NAN;
  }
}

static int math_eval(vta_graph *g, int i, vta_error *err) {
  (void)err;
  return ew_eval(g, i, math_ref);
}

/* ---- code ---- */

static LLVMValueRef call1(cg *c, const char *name, LLVMValueRef v) { return cg_call_f64(c, name, 1, &v); }
static LLVMValueRef fcmp(cg *c, LLVMRealPredicate p, LLVMValueRef a, LLVMValueRef b) {
  return LLVMBuildFCmp(c->b, p, a, b, "");
}
static LLVMValueRef sel(cg *c, LLVMValueRef cond, LLVMValueRef a, LLVMValueRef b) {
  return LLVMBuildSelect(c->b, cond, a, b, "");
}

static LLVMValueRef math_cg(cg *c, const vta_node *nd, LLVMValueRef *x) {
  LLVMValueRef v = x[0], zero = cg_f64(c, 0);
  LLVMBuilderRef b = c->b;
  switch (nd->op) {
  case VTA_GOP_SIN: return call1(c, "llvm.sin.f64", v);
  case VTA_GOP_COS: return call1(c, "llvm.cos.f64", v);
  case VTA_GOP_TAN: return call1(c, "tan", v);
  case VTA_GOP_ASIN: return call1(c, "asin", v);
  case VTA_GOP_ACOS: return call1(c, "acos", v);
  case VTA_GOP_ATAN: return call1(c, "atan", v);
  case VTA_GOP_SINH: return call1(c, "sinh", v);
  case VTA_GOP_COSH: return call1(c, "cosh", v);
  case VTA_GOP_ASINH: return call1(c, "asinh", v);
  case VTA_GOP_ACOSH: return call1(c, "acosh", v);
  case VTA_GOP_ATANH: return call1(c, "atanh", v);
  case VTA_GOP_ERF: return call1(c, "erf", v);
  case VTA_GOP_SIGN:
    return sel(c, fcmp(c, LLVMRealOGT, v, zero), cg_f64(c, 1), sel(c, fcmp(c, LLVMRealOLT, v, zero), cg_f64(c, -1), v));
  case VTA_GOP_ROUND: return call1(c, "llvm.rint.f64", v);
  case VTA_GOP_ISNAN: return cg_bool_f64(c, fcmp(c, LLVMRealUNO, v, v));
  case VTA_GOP_ISINF: {
    int pos = (int)vta_node_int(nd, "detect_positive", 1), neg = (int)vta_node_int(nd, "detect_negative", 1);
    LLVMValueRef p = fcmp(c, LLVMRealOEQ, v, cg_f64(c, INFINITY)), n = fcmp(c, LLVMRealOEQ, v, cg_f64(c, -INFINITY));
    LLVMValueRef f = LLVMConstInt(c->i1, 0, 0);
    return cg_bool_f64(c, LLVMBuildOr(b, pos ? p : f, neg ? n : f, ""));
  }
  case VTA_GOP_THRESHOLDED_RELU:
    return sel(c, fcmp(c, LLVMRealOGT, v, cg_f64(c, vta_node_float(nd, "alpha", 1.0f))), v, zero);
  case VTA_GOP_SHRINK: {
    double l = vta_node_float(nd, "lambd", 0.5f), bs = vta_node_float(nd, "bias", 0.0f);
    return sel(c, fcmp(c, LLVMRealOLT, v, cg_f64(c, -l)), LLVMBuildFAdd(b, v, cg_f64(c, bs), ""),
               sel(c, fcmp(c, LLVMRealOGT, v, cg_f64(c, l)), LLVMBuildFSub(b, v, cg_f64(c, bs), ""), zero));
  }
  case VTA_GOP_CELU: {
    double a = vta_node_float(nd, "alpha", 1.0f);
    LLVMValueRef e = call1(c, "llvm.exp.f64", LLVMBuildFDiv(b, v, cg_f64(c, a), ""));
    LLVMValueRef neg = LLVMBuildFMul(b, cg_f64(c, a), LLVMBuildFSub(b, e, cg_f64(c, 1), ""), "");
    LLVMValueRef lo = sel(c, fcmp(c, LLVMRealOLT, neg, zero), neg, zero);
    return LLVMBuildFAdd(b, sel(c, fcmp(c, LLVMRealOGT, v, zero), v, zero), lo, "");
  }
  default: return cg_f64(c, NAN);
  }
}

static int math_emit(cg *c) { return ew_emit(c, math_cg); }

const vta_op_family vta_family_math = {"op_math.c", math_infer, math_eval, NULL, math_emit, NULL};
