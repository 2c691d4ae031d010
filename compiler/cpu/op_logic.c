/* op_logic.c - comparisons, logic and selection: Equal, Less, LessOrEqual, Greater,
 * GreaterOrEqual, And, Or, Xor, Not, Where, Mod and BitShift; each one's shape rule, reference
 * and code.
 *
 * Limit: comparisons, Mod and BitShift work on doubles, so 64-bit integers are exact below
 * 2^53 in magnitude (shapes, indices, masks); Where moves elements in their own type.
 *
 * The design idea: these are the operators of masks and index arithmetic, so they take every
 * element type the IR has and produce bool (comparisons, logic) or the data's type (Where,
 * Mod). Elements are compared as doubles, exact for every integer below 2^53 (indices and
 * shapes); op_elementwise.c does the broadcasting and the conversions.
 */
#include <math.h>
#include <string.h>

#include "compiler/cpu/op_family.h"

/* ---- shape rule ---- */

static int logic_infer(vta_graph *g, int i, vta_error *err) {
  switch (g->nodes[i].op) {
  case VTA_GOP_AND: case VTA_GOP_OR: case VTA_GOP_XOR: return ew_infer(g, i, err, 0, 2, EW_OUT_BOOL, EW_BOOL);
  case VTA_GOP_NOT: return ew_infer(g, i, err, 0, 1, EW_OUT_BOOL, EW_BOOL);
  case VTA_GOP_WHERE: {
    const vta_gvalue *cnd = vta_op_in(g, i, 0), *x = vta_op_in(g, i, 1), *y = vta_op_in(g, i, 2);
    if (cnd && cnd->dtype != VTA_DT_BOOL)
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "the condition '%s' is %s, not bool", cnd->name,
                          vta_dtype_name(cnd->dtype));
    if (x && y && x->dtype != y->dtype)
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "X is %s and Y is %s: they must have one type",
                          vta_dtype_name(x->dtype), vta_dtype_name(y->dtype));
    return ew_infer(g, i, err, 0, 3, 1, EW_ANY);
  }
  case VTA_GOP_MOD: {
    const vta_gvalue *a = vta_op_in(g, i, 0), *b = vta_op_in(g, i, 1);
    if (a && b && a->dtype != b->dtype)
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "A is %s and B is %s: they must have one type",
                          vta_dtype_name(a->dtype), vta_dtype_name(b->dtype));
    if (a && (a->dtype == VTA_DT_F32 || a->dtype == VTA_DT_F64) && !vta_node_int(&g->nodes[i], "fmod", 0))
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "fmod=0 with %s inputs (ONNX requires fmod=1 for floats)",
                          vta_dtype_name(a->dtype));
    return ew_infer(g, i, err, 0, 2, 0, EW_NUMBERS);
  }
  case VTA_GOP_BITSHIFT: {
    const char *d = vta_node_string(&g->nodes[i], "direction", "");
    if (strcmp(d, "LEFT") && strcmp(d, "RIGHT"))
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "direction '%s' is not LEFT or RIGHT", d);
    return ew_infer(g, i, err, 0, 2, 0, EW_UNSIGNED);
  }
  default: return ew_infer(g, i, err, 0, 2, EW_OUT_BOOL, EW_ANY); /* comparisons */
  }
}

/* ---- reference ---- */

static double mod_ref(double a, double b, int fmod_) {
  if (fmod_) return fmod(a, b);
  if (b == 0) return 0;
  double r = fmod(a, b);
  return r != 0 && ((r < 0) != (b < 0)) ? r + b : r; /* the sign of the divisor, as Python's % */
}

static double logic_ref(const vta_node *nd, const double *x) {
  switch (nd->op) {
  case VTA_GOP_EQUAL: return x[0] == x[1];
  case VTA_GOP_LESS: return x[0] < x[1];
  case VTA_GOP_LESS_OR_EQUAL: return x[0] <= x[1];
  case VTA_GOP_GREATER: return x[0] > x[1];
  case VTA_GOP_GREATER_OR_EQUAL: return x[0] >= x[1];
  case VTA_GOP_AND: return x[0] != 0 && x[1] != 0;
  case VTA_GOP_OR: return x[0] != 0 || x[1] != 0;
  case VTA_GOP_XOR: return (x[0] != 0) != (x[1] != 0);
  case VTA_GOP_NOT: return x[0] == 0;
  case VTA_GOP_WHERE: return x[0] != 0 ? x[1] : x[2];
  case VTA_GOP_MOD: return mod_ref(x[0], x[1], (int)vta_node_int(nd, "fmod", 0));
  case VTA_GOP_BITSHIFT: /* exact in double for the values below 2^53 that shapes and masks use */
    if (x[1] >= 64) return 0;
    return strcmp(vta_node_string(nd, "direction", ""), "LEFT") == 0 ? fmod(ldexp(x[0], (int)x[1]), 18446744073709551616.0)
                                                                     : floor(ldexp(x[0], -(int)x[1]));
  default: return NAN;
  }
}

static int logic_eval(vta_graph *g, int i, vta_error *err) {
  (void)err;
  return ew_eval(g, i, logic_ref);
}

/* ---- code ---- */

static LLVMValueRef logic_cg(cg *c, const vta_node *nd, LLVMValueRef *x) {
  LLVMBuilderRef b = c->b;
  LLVMValueRef zero = cg_f64(c, 0);
  switch (nd->op) {
  case VTA_GOP_EQUAL: return cg_bool_f64(c, LLVMBuildFCmp(b, LLVMRealOEQ, x[0], x[1], ""));
  case VTA_GOP_LESS: return cg_bool_f64(c, LLVMBuildFCmp(b, LLVMRealOLT, x[0], x[1], ""));
  case VTA_GOP_LESS_OR_EQUAL: return cg_bool_f64(c, LLVMBuildFCmp(b, LLVMRealOLE, x[0], x[1], ""));
  case VTA_GOP_GREATER: return cg_bool_f64(c, LLVMBuildFCmp(b, LLVMRealOGT, x[0], x[1], ""));
  case VTA_GOP_GREATER_OR_EQUAL: return cg_bool_f64(c, LLVMBuildFCmp(b, LLVMRealOGE, x[0], x[1], ""));
  case VTA_GOP_AND: case VTA_GOP_OR: case VTA_GOP_XOR: {
    LLVMValueRef p = LLVMBuildFCmp(b, LLVMRealUNE, x[0], zero, ""), q = LLVMBuildFCmp(b, LLVMRealUNE, x[1], zero, "");
    LLVMValueRef r = nd->op == VTA_GOP_AND ? LLVMBuildAnd(b, p, q, "")
                   : nd->op == VTA_GOP_OR  ? LLVMBuildOr(b, p, q, "")
                                           : LLVMBuildXor(b, p, q, "");
    return cg_bool_f64(c, r);
  }
  case VTA_GOP_NOT: return cg_bool_f64(c, LLVMBuildFCmp(b, LLVMRealOEQ, x[0], zero, ""));
  case VTA_GOP_WHERE: return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealUNE, x[0], zero, ""), x[1], x[2], "");
  case VTA_GOP_MOD: {
    LLVMValueRef r = LLVMBuildFRem(b, x[0], x[1], "");
    if (vta_node_int(nd, "fmod", 0)) return r;
    /* r + b when r is nonzero and its sign differs from b's; 0 for a zero divisor. */
    LLVMValueRef fix = LLVMBuildAnd(b, LLVMBuildFCmp(b, LLVMRealONE, r, zero, ""),
                                    LLVMBuildXor(b, LLVMBuildFCmp(b, LLVMRealOLT, r, zero, ""),
                                                 LLVMBuildFCmp(b, LLVMRealOLT, x[1], zero, ""), ""), "");
    r = LLVMBuildSelect(b, fix, LLVMBuildFAdd(b, r, x[1], ""), r, "");
    return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOEQ, x[1], zero, ""), zero, r, "");
  }
  case VTA_GOP_BITSHIFT: {
    /* On the integers themselves: unsigned shift, 0 for shifts of the width or more. */
    vta_dtype t = c->g->values[nd->out[0]].dtype;
    LLVMValueRef a = LLVMBuildFPToUI(b, x[0], c->i64, ""), s = LLVMBuildFPToUI(b, x[1], c->i64, "");
    int bits = (int)vta_dtype_size(t) * 8;
    LLVMValueRef big = LLVMBuildICmp(b, LLVMIntUGE, s, cg_i64(c, bits), "");
    LLVMValueRef sh = LLVMBuildSelect(b, big, cg_i64(c, 0), s, "");
    LLVMValueRef r = strcmp(vta_node_string(nd, "direction", ""), "LEFT") == 0 ? LLVMBuildShl(b, a, sh, "")
                                                                               : LLVMBuildLShr(b, a, sh, "");
    if (bits < 64) r = LLVMBuildAnd(b, r, cg_i64(c, (int64_t)((1ull << bits) - 1)), "");
    r = LLVMBuildSelect(b, big, cg_i64(c, 0), r, "");
    return LLVMBuildUIToFP(b, r, cg_f64_type(c), "");
  }
  default: return cg_f64(c, NAN);
  }
}

/* Where selects: its elements are moved in their own type, exact beyond 2^53. */
static LLVMValueRef where_cg(cg *c, const vta_node *nd, LLVMValueRef *x) {
  (void)nd;
  LLVMValueRef cond = LLVMBuildICmp(c->b, LLVMIntNE, x[0], LLVMConstNull(LLVMTypeOf(x[0])), "");
  return LLVMBuildSelect(c->b, cond, x[1], x[2], "");
}

static int logic_emit(cg *c) { return c->nd->op == VTA_GOP_WHERE ? ew_emit_raw(c, where_cg) : ew_emit(c, logic_cg); }

const vta_op_family vta_family_logic = {"op_logic.c", logic_infer, logic_eval, NULL, logic_emit, NULL};
