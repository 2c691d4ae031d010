/* op_binary.c - the binary arithmetic family: Add, Sub, Mul, Div, Pow, Max, Min and PRelu; each
 * one's shape rule, reference and code.
 *
 * The design idea: as the unary family (op_unary.c), these are fused into their producer as
 * epilogue steps, so their code is one step on float32 scalars or vectors (cg_binary_step)
 * that codegen_llvm.c's vectorised walk runs for a node of its own and for a fused step
 * alike. Both inputs broadcast (numpy's rule) and share a type, except Pow's exponent; Pow on
 * integer or mixed types goes through op_elementwise.c's scalar walk in double (exact for
 * integers up to 2^53).
 */
#include <math.h>
#include <string.h>

#include "compiler/cpu/codegen_local.h"
#include "compiler/cpu/op_family.h"

/* ---- shape rule ---- */

static int binary_infer(vta_graph *g, int i, vta_error *err) {
  const vta_node *nd = &g->nodes[i];
  const vta_gvalue *a = vta_op_in(g, i, 0), *b = vta_op_in(g, i, 1);
  if (vta_op_need_shape(g, i, err, a, 0) || vta_op_need_shape(g, i, err, b, 1)) return -1;
  if (nd->n_in != 2) return vta_op_error(g, i, err, VTA_ERR_INVALID, "expects two inputs, has %d", nd->n_in);
  if (a->dtype != b->dtype && nd->op != VTA_GOP_POW)
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "input types differ (%s and %s)", vta_dtype_name(a->dtype),
                        vta_dtype_name(b->dtype));
  int r;
  int64_t dims[VTA_MAX_RANK];
  if (vta_op_broadcast(g, i, err, a, b, &r, dims)) return -1;
  if (nd->op == VTA_GOP_PRELU && (r != a->rank || memcmp(dims, a->dims, sizeof(int64_t) * (size_t)r)))
    return vta_op_error(g, i, err, VTA_ERR_INVALID, "PRelu's slope must broadcast to the input's shape");
  vta_op_set_out(g, i, 0, a->dtype, r, dims);
  return 0;
}

/* ---- reference ---- */

static double binary_ref(const vta_node *nd, vta_dtype out, const double *x) {
  double a = x[0], b = x[1];
  switch (nd->op) {
  case VTA_GOP_ADD: return a + b;
  case VTA_GOP_SUB: return a - b;
  case VTA_GOP_MUL: return a * b;
  case VTA_GOP_DIV: return out != VTA_DT_F32 && out != VTA_DT_F64 ? (b != 0 ? trunc(a / b) : 0) : a / b;
  case VTA_GOP_POW: return pow(a, b);
  case VTA_GOP_MAX: return a > b ? a : b;
  case VTA_GOP_MIN: return a < b ? a : b;
  case VTA_GOP_PRELU: return a < 0 ? a * b : a;
  default: return 0;
  }
}

static int binary_eval(vta_graph *g, int i, vta_error *err) {
  (void)err;
  return ew_eval_typed(g, i, binary_ref);
}

/* ---- code ---- */

/* One step on float32 scalars or (while c->vec is set) vectors: a op x. */
LLVMValueRef cg_binary_step(cg *c, vta_gop op, LLVMValueRef a, LLVMValueRef x) {
  LLVMBuilderRef b = c->b;
  switch (op) {
  case VTA_GOP_ADD: return LLVMBuildFAdd(b, a, x, "");
  case VTA_GOP_SUB: return LLVMBuildFSub(b, a, x, "");
  case VTA_GOP_MUL: return LLVMBuildFMul(b, a, x, "");
  case VTA_GOP_DIV: return LLVMBuildFDiv(b, a, x, "");
  case VTA_GOP_POW: return call2(c, "llvm.pow.f32", a, x);
  case VTA_GOP_MAX: return call2(c, "llvm.maxnum.f32", a, x);
  case VTA_GOP_MIN: return call2(c, "llvm.minnum.f32", a, x);
  case VTA_GOP_PRELU:
    return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLT, a, F(c, 0), ""),
                           LLVMBuildFMul(b, a, x, ""), a, "");
  default: return a;
  }
}

/* Integer powers (Pow(int64, int64), Pow(float, int32), Pow(int32, float)) through the scalar
 * walk. */
static LLVMValueRef pow_scalar(cg *c, const vta_node *nd, LLVMValueRef *x) {
  (void)nd;
  return cg_call_f64(c, "llvm.pow.f64", 2, x);
}
static int pow_scalar_walk(const vta_graph *g, int i) {
  return g->nodes[i].op == VTA_GOP_POW && ew_scalar_walk(g, i, 0);
}

static int binary_supports(const vta_graph *g, int i) { return pow_scalar_walk(g, i) || cg_node_f32(g, i); }

static int binary_emit(cg *c) {
  if (pow_scalar_walk(c->g, c->node)) return ew_emit(c, pow_scalar);
  cg_emit_pointwise(c, 1, 0);
  return 0;
}

const vta_op_family vta_family_binary = {"op_binary.c", binary_infer, binary_eval,
                                         binary_supports, binary_emit, NULL};
