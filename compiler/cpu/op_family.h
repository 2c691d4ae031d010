/* op_family.h - what the operator families (compiler/cpu/op_<family>.c) share beyond
 * compiler.h's helpers: the elementwise machinery of op_elementwise.c.
 *
 * Many families are elementwise: each output element is a function of the elements of the
 * inputs at the same (broadcast) position. They describe that function twice, as a C function
 * of doubles (the reference, which folds constants) and as an LLVM builder over doubles (the
 * code); op_elementwise.c supplies the rest once: the broadcasting shape rule, the walk over
 * the output, the conversions from and to every element type.
 *
 *     static double ref_sin(const vta_node *nd, const double *x) { return sin(x[0]); }
 *     static LLVMValueRef cg_sin(cg *c, const vta_node *nd, LLVMValueRef *x) {
 *       return cg_call(c, "llvm.sin.f64", cg_f64_type(c), 1, x);
 *     }
 */
#ifndef VTA_OP_FAMILY_H
#define VTA_OP_FAMILY_H

#include "compiler/cpu/codegen_llvm.h"

typedef double (*ew_ref_fn)(const vta_node *nd, const double *x);
typedef LLVMValueRef (*ew_cg_fn)(cg *c, const vta_node *nd, LLVMValueRef *x);

/* Output type of an elementwise node: that of input k (k >= 0), or a fixed type. */
#define EW_OUT_BOOL (-1)
#define EW_OUT_I64 (-2)

/* The broadcasting shape rule: inputs lo..hi-1 must be present (the others may be absent),
 * their shapes broadcast together (numpy's rule) into output 0, whose type is out_type's.
 * allowed: bit t set when element type t is accepted for input k < 32 (VTA_DT_*). */
int ew_infer(vta_graph *g, int i, vta_error *err, int lo, int hi, int out_type, unsigned allowed);
/* Bits for `allowed`. */
#define EW_FLOATS ((1u << VTA_DT_F32) | (1u << VTA_DT_F64) | (1u << VTA_DT_F16))
#define EW_SIGNED ((1u << VTA_DT_I64) | (1u << VTA_DT_I32) | (1u << VTA_DT_I16) | (1u << VTA_DT_I8))
#define EW_UNSIGNED ((1u << VTA_DT_U64) | (1u << VTA_DT_U32) | (1u << VTA_DT_U16) | (1u << VTA_DT_U8))
#define EW_INTS (EW_SIGNED | EW_UNSIGNED)
#define EW_BOOL (1u << VTA_DT_BOOL)
#define EW_NUMBERS (EW_FLOATS | EW_INTS)
#define EW_ANY (EW_NUMBERS | EW_BOOL)

/* Reference and code for a node that ew_infer accepted: f sees the present inputs' elements as
 * doubles, in input order (absent inputs skipped). */
int ew_eval(vta_graph *g, int i, ew_ref_fn f);
int ew_emit(cg *c, ew_cg_fn f);
/* The same with the elements in their own LLVM types (no double): f returns the output's. For
 * operators that only move or select elements, exact for every value of every type. */
int ew_emit_raw(cg *c, ew_cg_fn f);

/* The typed eval: f also sees the output's element type (Div truncates for integers). */
typedef double (*ew_ref_typed_fn)(const vta_node *nd, vta_dtype out, const double *x);
int ew_eval_typed(vta_graph *g, int i, ew_ref_typed_fn f);

/* Whether the unary or binary family's node i goes through the scalar walk in double (ew_emit)
 * rather than the vectorised float32 one (cg_emit_pointwise): one output, no epilogue, no bool
 * input, and an element type other than float32 somewhere, or `forced` (a Clip bound given at
 * run time). */
int ew_scalar_walk(const vta_graph *g, int i, int forced);

/* The fused-epilogue steps: one unary (op_unary.c) or binary (op_binary.c) operation on float32
 * scalars or, while c->vec is set, vectors; the families' own code and every producer's fused
 * epilogue (cg_emit_pointwise) are built from them. na/at: the step's attributes. */
LLVMValueRef cg_unary_step(cg *c, vta_gop op, int na, const vta_attr *at, LLVMValueRef x);
LLVMValueRef cg_binary_step(cg *c, vta_gop op, LLVMValueRef a, LLVMValueRef x);

/* Double constants and calls for the builders. */
LLVMTypeRef cg_f64_type(cg *c);
LLVMValueRef cg_f64(cg *c, double v);
LLVMValueRef cg_call_f64(cg *c, const char *name, int n, LLVMValueRef *x);
/* 1.0 or 0.0 from an i1. */
LLVMValueRef cg_bool_f64(cg *c, LLVMValueRef i1);

#endif
