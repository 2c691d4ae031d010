/* codegen_builders.c - the LLVM IR building blocks every CPU code emitter shares
 * (codegen_llvm.c for the nodes, codegen_kernels.c for the GEMM/im2col/depthwise kernels,
 * and the operator families' op_*.c): constants, address arithmetic, counted loops and
 * conditionals, stack slots, calls to intrinsics, target-width vectors with masks, and the
 * function scaffolding (entry block of stack slots, the shared kernels' attributes and
 * linkage).
 *
 * The design idea: the emitters describe computations, not IR plumbing; every loop, vector
 * access and function is made one way, here, so that what LLVM sees is uniform (stack slots
 * in the entry block for mem2reg, nsw arithmetic on indices, noalias kernel parameters).
 */
#include <llvm-c/Core.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/cpu/codegen_llvm.h"

/* ---- small builders ---- */

LLVMValueRef cg_i64(cg *c, int64_t x) { return LLVMConstInt(c->i64, (unsigned long long)x, 1); }

/* A float constant, splat over a vector while c->vec is set. */
LLVMValueRef cg_f32(cg *c, double x) {
  LLVMValueRef s = LLVMConstReal(c->f32, x);
  if (!c->vec) return s;
  LLVMValueRef e[16];
  for (int k = 0; k < c->vw; k++) e[k] = s;
  return LLVMConstVector(e, (unsigned)c->vw);
}
LLVMValueRef cg_gep(cg *c, LLVMValueRef p, LLVMValueRef i) {
  return LLVMBuildInBoundsGEP2(c->b, c->f32, p, &i, 1, "");
}
LLVMValueRef cg_load(cg *c, LLVMValueRef p, LLVMValueRef i) {
  return LLVMBuildLoad2(c->b, c->f32, cg_gep(c, p, i), "");
}
void cg_store(cg *c, LLVMValueRef v, LLVMValueRef p, LLVMValueRef i) {
  LLVMBuildStore(c->b, v, cg_gep(c, p, i));
}
LLVMValueRef cg_add(cg *c, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildNSWAdd(c->b, a, b, ""); }
LLVMValueRef cg_mul(cg *c, LLVMValueRef a, int64_t k) {
  if (k == 1) return a;
  return LLVMBuildNSWMul(c->b, a, cg_i64(c, k), "");
}
LLVMValueRef cg_mulv(cg *c, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildNSWMul(c->b, a, b, ""); }
LLVMValueRef cg_smin(cg *c, LLVMValueRef a, LLVMValueRef b) {
  return LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntSLT, a, b, ""), a, b, "");
}
LLVMValueRef cg_smax(cg *c, LLVMValueRef a, LLVMValueRef b) {
  return LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntSGT, a, b, ""), a, b, "");
}

LLVMValueRef cg_loop_open(cg *c, cg_loop *l, LLVMValueRef lo, LLVMValueRef hi, int64_t step) {
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(c->b);
  l->header = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "loop");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "body");
  l->exit = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "done");
  LLVMBuildBr(c->b, l->header);
  LLVMPositionBuilderAtEnd(c->b, l->header);
  l->phi = LLVMBuildPhi(c->b, c->i64, "i");
  LLVMAddIncoming(l->phi, &lo, &pre, 1);
  LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntSLT, l->phi, hi, ""), body, l->exit);
  LLVMPositionBuilderAtEnd(c->b, body);
  l->step = step;
  return l->phi;
}
void cg_loop_close(cg *c, cg_loop *l) {
  LLVMBasicBlockRef cur = LLVMGetInsertBlock(c->b);
  LLVMValueRef next = LLVMBuildNSWAdd(c->b, l->phi, cg_i64(c, l->step), "");
  LLVMBuildBr(c->b, l->header);
  LLVMAddIncoming(l->phi, &next, &cur, 1);
  LLVMPositionBuilderAtEnd(c->b, l->exit);
}
LLVMBasicBlockRef cg_if_open(cg *c, LLVMValueRef cond) {
  LLVMBasicBlockRef then = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "then");
  LLVMBasicBlockRef after = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "endif");
  LLVMBuildCondBr(c->b, cond, then, after);
  LLVMPositionBuilderAtEnd(c->b, then);
  return after;
}
void cg_if_close(cg *c, LLVMBasicBlockRef after) {
  LLVMBuildBr(c->b, after);
  LLVMPositionBuilderAtEnd(c->b, after);
}

LLVMValueRef cg_slot(cg *c, LLVMTypeRef t) {
  LLVMBasicBlockRef cur = LLVMGetInsertBlock(c->b);
  LLVMValueRef first = LLVMGetFirstInstruction(c->entry);
  if (first)
    LLVMPositionBuilderBefore(c->b, first);
  else
    LLVMPositionBuilderAtEnd(c->b, c->entry);
  LLVMValueRef a = LLVMBuildAlloca(c->b, t, "slot");
  LLVMPositionBuilderAtEnd(c->b, cur);
  return a;
}

LLVMValueRef cg_call(cg *c, const char *name, LLVMTypeRef ret, int n, LLVMValueRef *args) {
  LLVMTypeRef ps[8];
  for (int k = 0; k < n; k++) ps[k] = LLVMTypeOf(args[k]);
  LLVMTypeRef ft = LLVMFunctionType(ret, ps, (unsigned)n, 0);
  LLVMValueRef f = LLVMGetNamedFunction(c->mod, name);
  if (!f) f = LLVMAddFunction(c->mod, name, ft);
  return LLVMBuildCall2(c->b, ft, f, args, (unsigned)n, "");
}

/* ---- vectors ---- */

LLVMValueRef cg_splat(cg *c, LLVMValueRef s) {
  LLVMValueRef v = LLVMBuildInsertElement(c->b, LLVMGetUndef(c->vf), s, LLVMConstInt(c->i32, 0, 0), "");
  return LLVMBuildShuffleVector(c->b, v, LLVMGetUndef(c->vf), LLVMConstNull(LLVMVectorType(c->i32, (unsigned)c->vw)), "");
}
static LLVMValueRef vptr_at(cg *c, LLVMValueRef p, LLVMValueRef i) {
  return LLVMBuildBitCast(c->b, cg_gep(c, p, i), c->vfptr, "");
}
LLVMValueRef cg_vload(cg *c, LLVMValueRef p, LLVMValueRef i) {
  LLVMValueRef l = LLVMBuildLoad2(c->b, c->vf, vptr_at(c, p, i), "");
  LLVMSetAlignment(l, 4);
  return l;
}
void cg_vstore(cg *c, LLVMValueRef v, LLVMValueRef p, LLVMValueRef i) {
  LLVMValueRef s = LLVMBuildStore(c->b, v, vptr_at(c, p, i));
  LLVMSetAlignment(s, 4);
}
LLVMValueRef cg_vmask(cg *c, LLVMValueRef n) {
  LLVMValueRef iota[16];
  for (int k = 0; k < c->vw; k++) iota[k] = LLVMConstInt(c->i32, (unsigned)k, 0);
  LLVMValueRef lim = LLVMBuildTrunc(c->b, cg_smax(c, cg_smin(c, n, cg_i64(c, c->vw)), cg_i64(c, 0)), c->i32, "");
  LLVMValueRef v = LLVMBuildInsertElement(c->b, LLVMGetUndef(LLVMVectorType(c->i32, (unsigned)c->vw)), lim,
                                          LLVMConstInt(c->i32, 0, 0), "");
  v = LLVMBuildShuffleVector(c->b, v, v, LLVMConstNull(LLVMVectorType(c->i32, (unsigned)c->vw)), "");
  return LLVMBuildICmp(c->b, LLVMIntSLT, LLVMConstVector(iota, (unsigned)c->vw), v, "");
}
LLVMValueRef cg_vmload(cg *c, LLVMValueRef p, LLVMValueRef i, LLVMValueRef mask) {
  char name[64];
  snprintf(name, sizeof name, "llvm.masked.load.v%df32.p0v%df32", c->vw, c->vw);
  LLVMValueRef a[4] = {vptr_at(c, p, i), LLVMConstInt(c->i32, 4, 0), mask, LLVMConstNull(c->vf)};
  return cg_call(c, name, c->vf, 4, a);
}
void cg_vmstore(cg *c, LLVMValueRef v, LLVMValueRef p, LLVMValueRef i, LLVMValueRef mask) {
  char name[64];
  snprintf(name, sizeof name, "llvm.masked.store.v%df32.p0v%df32", c->vw, c->vw);
  LLVMValueRef a[4] = {v, vptr_at(c, p, i), LLVMConstInt(c->i32, 4, 0), mask};
  cg_call(c, name, LLVMVoidTypeInContext(c->ctx), 4, a);
}
LLVMValueRef cg_fmuladd(cg *c, LLVMValueRef a, LLVMValueRef b, LLVMValueRef acc) {
  char name[40];
  int vec = LLVMGetTypeKind(LLVMTypeOf(a)) == LLVMVectorTypeKind;
  if (vec)
    snprintf(name, sizeof name, "llvm.fmuladd.v%df32", c->vw);
  else
    snprintf(name, sizeof name, "llvm.fmuladd.f32");
  LLVMValueRef x[3] = {a, b, acc};
  return cg_call(c, name, LLVMTypeOf(a), 3, x);
}
LLVMValueRef cg_clamp(cg *c, LLVMValueRef x, LLVMValueRef lo, LLVMValueRef hi) {
  x = LLVMBuildSelect(c->b, LLVMBuildFCmp(c->b, LLVMRealOLT, x, lo, ""), lo, x, "");
  return LLVMBuildSelect(c->b, LLVMBuildFCmp(c->b, LLVMRealOGT, x, hi, ""), hi, x, "");
}

int cg_kernel_has_body(const cg *c) { return c->kernel_mode != CG_KERNELS_IMPORT; }

void cg_kernel_attrs(cg *c, LLVMValueRef f, uint64_t noalias_params) {
  LLVMSetLinkage(f, c->kernel_mode == CG_KERNELS_OWN ? LLVMInternalLinkage : LLVMExternalLinkage);
  unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", 8);
  LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(c->ctx, noinline, 0));
  unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
  unsigned nocapture = LLVMGetEnumAttributeKindForName("nocapture", 9);
  for (unsigned k = 0; k < 64; k++)
    if (noalias_params >> k & 1) {
      LLVMAddAttributeAtIndex(f, k + 1, LLVMCreateEnumAttribute(c->ctx, noalias, 0));
      LLVMAddAttributeAtIndex(f, k + 1, LLVMCreateEnumAttribute(c->ctx, nocapture, 0));
    }
}
cg_saved cg_save(cg *c) {
  cg_saved s = {LLVMGetInsertBlock(c->b), c->fn, c->entry};
  return s;
}
void cg_restore(cg *c, cg_saved s) {
  c->fn = s.fn;
  c->entry = s.entry;
  if (s.block) LLVMPositionBuilderAtEnd(c->b, s.block);
}
/* The entry block holds only the stack slots and a branch to "start", added at the end. */
void cg_begin_function(cg *c, LLVMValueRef f) {
  c->fn = f;
  c->entry = LLVMAppendBasicBlockInContext(c->ctx, f, "entry");
  LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(c->ctx, f, "start");
  LLVMPositionBuilderAtEnd(c->b, start);
}
void cg_end_function(cg *c) {
  LLVMBuildRetVoid(c->b);
  LLVMPositionBuilderAtEnd(c->b, c->entry);
  LLVMBuildBr(c->b, LLVMGetNextBasicBlock(c->entry));
}


/* ---- constant tables ---- */

static LLVMValueRef const_table(cg *c, LLVMTypeRef t, LLVMValueRef *e, int64_t n) {
  LLVMValueRef init = LLVMConstArray(t, e, (unsigned)n);
  LLVMValueRef gv = LLVMAddGlobal(c->mod, LLVMTypeOf(init), "tab");
  LLVMSetInitializer(gv, init);
  LLVMSetGlobalConstant(gv, 1);
  LLVMSetLinkage(gv, LLVMPrivateLinkage);
  return gv;
}

LLVMValueRef cg_table_i64(cg *c, const int64_t *v, int64_t n) {
  LLVMValueRef *e = malloc(sizeof(LLVMValueRef) * (size_t)(n ? n : 1));
  if (!e) return NULL;
  for (int64_t i = 0; i < n; i++) e[i] = cg_i64(c, v[i]);
  LLVMValueRef gv = const_table(c, c->i64, e, n);
  free(e);
  return gv;
}

LLVMValueRef cg_table_f32(cg *c, const float *v, int64_t n) {
  LLVMValueRef *e = malloc(sizeof(LLVMValueRef) * (size_t)(n ? n : 1));
  if (!e) return NULL;
  for (int64_t i = 0; i < n; i++) e[i] = cg_f32(c, v[i]);
  LLVMValueRef gv = const_table(c, c->f32, e, n);
  free(e);
  return gv;
}

LLVMValueRef cg_table_at(cg *c, LLVMValueRef tab, LLVMValueRef i) {
  LLVMTypeRef at = LLVMGlobalGetValueType(tab);
  LLVMValueRef idx[2] = {cg_i64(c, 0), i};
  return LLVMBuildLoad2(c->b, LLVMGetElementType(at), LLVMBuildInBoundsGEP2(c->b, at, tab, idx, 2, ""), "");
}

/* ---- typed elements (any element type, for the operator families) ---- */

LLVMTypeRef cg_elt_type(cg *c, vta_dtype t) {
  switch (t) {
  case VTA_DT_F32: return c->f32;
  case VTA_DT_F64: return LLVMDoubleTypeInContext(c->ctx);
  case VTA_DT_F16: return LLVMHalfTypeInContext(c->ctx);
  case VTA_DT_I64: case VTA_DT_U64: return c->i64;
  case VTA_DT_I32: case VTA_DT_U32: return c->i32;
  case VTA_DT_I16: case VTA_DT_U16: return LLVMInt16TypeInContext(c->ctx);
  default: return c->i8; /* i8, u8, bool */
  }
}
LLVMValueRef cg_typed_ptr(cg *c, LLVMValueRef p, vta_dtype t) {
  return LLVMBuildBitCast(c->b, p, LLVMPointerType(cg_elt_type(c, t), 0), "");
}
LLVMValueRef cg_tload(cg *c, LLVMValueRef p, vta_dtype t, LLVMValueRef i) {
  LLVMTypeRef et = cg_elt_type(c, t);
  return LLVMBuildLoad2(c->b, et, LLVMBuildInBoundsGEP2(c->b, et, cg_typed_ptr(c, p, t), &i, 1, ""), "");
}
void cg_tstore(cg *c, LLVMValueRef v, LLVMValueRef p, vta_dtype t, LLVMValueRef i) {
  LLVMTypeRef et = cg_elt_type(c, t);
  LLVMBuildStore(c->b, v, LLVMBuildInBoundsGEP2(c->b, et, cg_typed_ptr(c, p, t), &i, 1, ""));
}
LLVMValueRef cg_to_f64(cg *c, LLVMValueRef v, vta_dtype t) {
  LLVMTypeRef d = LLVMDoubleTypeInContext(c->ctx);
  switch (t) {
  case VTA_DT_F64: return v;
  case VTA_DT_F32: case VTA_DT_F16: return LLVMBuildFPExt(c->b, v, d, "");
  case VTA_DT_U8: case VTA_DT_BOOL: case VTA_DT_U16: case VTA_DT_U32: case VTA_DT_U64:
    return LLVMBuildUIToFP(c->b, v, d, "");
  default: return LLVMBuildSIToFP(c->b, v, d, "");
  }
}
LLVMValueRef cg_from_f64(cg *c, LLVMValueRef v, vta_dtype t) {
  LLVMTypeRef et = cg_elt_type(c, t);
  switch (t) {
  case VTA_DT_F64: return v;
  case VTA_DT_F32: return LLVMBuildFPTrunc(c->b, v, et, "");
  case VTA_DT_F16: /* through float: double to half is a library call whose ABI LLVM 14 and
                    * GCC disagree on; float to half is an instruction (F16C) */
    return LLVMBuildFPTrunc(c->b, LLVMBuildFPTrunc(c->b, v, c->f32, ""), et, "");
  case VTA_DT_BOOL:
    return LLVMBuildZExt(c->b, LLVMBuildFCmp(c->b, LLVMRealUNE, v, LLVMConstReal(LLVMTypeOf(v), 0), ""), et, "");
  case VTA_DT_U8: case VTA_DT_U16: case VTA_DT_U32: case VTA_DT_U64: return LLVMBuildFPToUI(c->b, v, et, "");
  default: return LLVMBuildFPToSI(c->b, v, et, "");
  }
}
