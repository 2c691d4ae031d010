/* codegen_kernels.c - the hand-vectorised kernels the node wrappers call: GEMM (the matrix
 * products and strided convolutions), im2col, depthwise convolution, direct stride-1 and
 * pointwise convolution (the last section).
 *
 * The design idea: compile time is spent once per kernel, not once per node. Each kernel is a
 * single internal, never-inlined LLVM function taking its sizes as run-time arguments, emitted
 * the first time a node needs it; a node's wrapper is a handful of calls with constant
 * arguments. The kernels are written directly with vectors of the target's width (c->vw
 * floats), so no loop vectoriser, unroller or SLP pass is needed to make them fast and the
 * optimiser can run a light pipeline. Edges (the last columns of a GEMM strip, the last output
 * pixels of a row) use masked loads and stores instead of scalar remainder loops.
 *
 * GEMM: C (MxN) = A (MxK) * B (KxN), B and C row-major with unit column stride, A with any
 * strides (its elements are broadcast one at a time). The micro-kernel holds an MR x 2*vw
 * tile of C in registers (MR = 8 with 32 vector registers, else 6) and streams one row of B's
 * strip and one column of A's panel per step of k; strips of 2*vw columns are the outer loop
 * so the K x 2*vw strip of B stays in L1 while every row panel of A passes over it. One
 * micro-kernel per row count 1..MR (remainder rows) and per full/masked strip. Bias, scale
 * and clamp (Relu, Clip) are applied to the registers before the single store.
 *
 * Depthwise convolution copies each channel into a zero-bordered plane in the scratch buffer
 * (the zero borders are written once per call), so the inner loop has no bounds tests; it is
 * specialised on kernel size, horizontal stride and dilation (taps unrolled), the other sizes
 * being arguments. Horizontal stride 2 loads two vectors and keeps the even lanes.
 */
#include <stdio.h>
#include <string.h>

#include "compiler/cpu/codegen_llvm.h"

static int mr_of(const cg *c) { return c->vw >= 16 ? 8 : 6; }

static LLVMValueRef param(cg *c, int k) { return LLVMGetParam(c->fn, (unsigned)k); }

static LLVMValueRef is_null(cg *c, LLVMValueRef p) {
  return LLVMBuildICmp(c->b, LLVMIntEQ, p, LLVMConstNull(LLVMTypeOf(p)), "");
}

/* p + i, or null when p is null (never dereferenced then). */
static LLVMValueRef offset_or_null(cg *c, LLVMValueRef p, LLVMValueRef i) {
  return LLVMBuildSelect(c->b, is_null(c, p), LLVMConstNull(c->fptr), cg_gep(c, p, i), "");
}

/* ---- GEMM ---- */

/* mk(A, ars, acs, B, ldb, C, ldc, K, bias, alpha, lo, hi, ncols): an mr-row tile. */
static LLVMValueRef gemm_micro(cg *c, int mr, int masked) {
  char name[48];
  snprintf(name, sizeof name, "vta.gemm.mk%d%s", mr, masked ? "m" : "");
  LLVMValueRef f = LLVMGetNamedFunction(c->mod, name);
  if (f) return f;
  LLVMTypeRef ps[13] = {c->fptr, c->i64, c->i64, c->fptr, c->i64, c->fptr, c->i64,
                        c->i64,  c->fptr, c->f32, c->f32, c->f32, c->i64};
  f = LLVMAddFunction(c->mod, name, LLVMFunctionType(LLVMVoidTypeInContext(c->ctx), ps, 13, 0));
  cg_kernel_attrs(c, f, (1u << 0) | (1u << 3) | (1u << 5) | (1u << 8));
  if (!cg_kernel_has_body(c)) return f;
  cg_saved sv = cg_save(c);
  cg_begin_function(c, f);
  LLVMValueRef A = param(c, 0), ars = param(c, 1), acs = param(c, 2), B = param(c, 3);
  LLVMValueRef ldb = param(c, 4), Cm = param(c, 5), ldc = param(c, 6), K = param(c, 7);
  LLVMValueRef bias = param(c, 8), alpha = param(c, 9), lo = param(c, 10), hi = param(c, 11);
  LLVMValueRef ncols = param(c, 12);
  LLVMValueRef vw = cg_i64(c, c->vw), mask[2] = {NULL, NULL};
  if (masked) {
    mask[0] = cg_vmask(c, ncols);
    mask[1] = cg_vmask(c, LLVMBuildNSWSub(c->b, ncols, vw, ""));
  }
  LLVMValueRef acc[8][2], zero = LLVMConstNull(c->vf);
  for (int r = 0; r < mr; r++)
    for (int v = 0; v < 2; v++) {
      acc[r][v] = cg_slot(c, c->vf);
      LLVMBuildStore(c->b, zero, acc[r][v]);
    }
  cg_loop lk;
  LLVMValueRef k = cg_loop_open(c, &lk, cg_i64(c, 0), K, 1);
  LLVMValueRef brow = cg_mulv(c, k, ldb), bv[2];
  for (int v = 0; v < 2; v++) {
    LLVMValueRef at = cg_add(c, brow, cg_i64(c, (int64_t)v * c->vw));
    bv[v] = masked ? cg_vmload(c, B, at, mask[v]) : cg_vload(c, B, at);
  }
  LLVMValueRef kofs = cg_mulv(c, k, acs);
  for (int r = 0; r < mr; r++) {
    LLVMValueRef a = cg_load(c, A, cg_add(c, cg_mulv(c, cg_i64(c, r), ars), kofs));
    LLVMValueRef as = cg_splat(c, a);
    for (int v = 0; v < 2; v++) {
      LLVMValueRef cur = LLVMBuildLoad2(c->b, c->vf, acc[r][v], "");
      LLVMBuildStore(c->b, cg_fmuladd(c, as, bv[v], cur), acc[r][v]);
    }
  }
  cg_loop_close(c, &lk);
  /* Bias per row (0 without one), then alpha * acc + bias, clamp, store. */
  LLVMValueRef bslot[8];
  for (int r = 0; r < mr; r++) {
    bslot[r] = cg_slot(c, c->f32);
    LLVMBuildStore(c->b, cg_f32(c, 0), bslot[r]);
  }
  LLVMBasicBlockRef after = cg_if_open(c, LLVMBuildNot(c->b, is_null(c, bias), ""));
  for (int r = 0; r < mr; r++) LLVMBuildStore(c->b, cg_load(c, bias, cg_i64(c, r)), bslot[r]);
  cg_if_close(c, after);
  LLVMValueRef va = cg_splat(c, alpha), vlo = cg_splat(c, lo), vhi = cg_splat(c, hi);
  for (int r = 0; r < mr; r++) {
    LLVMValueRef vb = cg_splat(c, LLVMBuildLoad2(c->b, c->f32, bslot[r], ""));
    LLVMValueRef row = cg_mulv(c, cg_i64(c, r), ldc);
    for (int v = 0; v < 2; v++) {
      LLVMValueRef x = cg_fmuladd(c, LLVMBuildLoad2(c->b, c->vf, acc[r][v], ""), va, vb);
      x = cg_clamp(c, x, vlo, vhi);
      LLVMValueRef at = cg_add(c, row, cg_i64(c, (int64_t)v * c->vw));
      if (masked)
        cg_vmstore(c, x, Cm, at, mask[v]);
      else
        cg_vstore(c, x, Cm, at);
    }
  }
  cg_end_function(c);
  cg_restore(c, sv);
  return f;
}

/* Calls the micro-kernels over all row panels of one column strip. */
static void gemm_rows(cg *c, int masked, LLVMValueRef *p, LLVMValueRef Bj, LLVMValueRef Cj,
                      LLVMValueRef ncols) {
  int MR = mr_of(c);
  LLVMValueRef A = p[0], ars = p[1], acs = p[2], ldb = p[4], ldc = p[6], M = p[7], K = p[9];
  LLVMValueRef bias = p[10], alpha = p[11], lo = p[12], hi = p[13];
  LLVMValueRef full = gemm_micro(c, MR, masked);
  LLVMTypeRef ft = LLVMGlobalGetValueType(full);
  cg_loop li;
  LLVMValueRef i = cg_loop_open(c, &li, cg_i64(c, 0),
                                LLVMBuildNSWSub(c->b, M, cg_i64(c, MR - 1), ""), MR);
  LLVMValueRef args[13] = {cg_gep(c, A, cg_mulv(c, i, ars)), ars, acs, Bj, ldb,
                           cg_gep(c, Cj, cg_mulv(c, i, ldc)), ldc, K, offset_or_null(c, bias, i),
                           alpha, lo, hi, ncols};
  LLVMBuildCall2(c->b, ft, full, args, 13, "");
  cg_loop_close(c, &li);
  /* The remaining M % MR rows. */
  LLVMValueRef done = LLVMBuildMul(c->b, LLVMBuildSDiv(c->b, M, cg_i64(c, MR), ""), cg_i64(c, MR), "");
  LLVMValueRef rest = LLVMBuildNSWSub(c->b, M, done, "");
  args[0] = cg_gep(c, A, cg_mulv(c, done, ars));
  args[5] = cg_gep(c, Cj, cg_mulv(c, done, ldc));
  args[8] = offset_or_null(c, bias, done);
  for (int q = 1; q < MR; q++) {
    LLVMBasicBlockRef after = cg_if_open(c, LLVMBuildICmp(c->b, LLVMIntEQ, rest, cg_i64(c, q), ""));
    LLVMValueRef mk = gemm_micro(c, q, masked);
    LLVMBuildCall2(c->b, LLVMGlobalGetValueType(mk), mk, args, 13, "");
    cg_if_close(c, after);
  }
}

static LLVMValueRef gemm_kernel(cg *c) {
  if (c->k_gemm) return c->k_gemm;
  /* gemm(A, ars, acs, B, ldb, C, ldc, M, N, K, bias, alpha, lo, hi) */
  LLVMTypeRef ps[14] = {c->fptr, c->i64, c->i64, c->fptr, c->i64, c->fptr, c->i64,
                        c->i64,  c->i64, c->i64, c->fptr, c->f32, c->f32, c->f32};
  LLVMValueRef f = LLVMAddFunction(c->mod, "vta.gemm",
                                   LLVMFunctionType(LLVMVoidTypeInContext(c->ctx), ps, 14, 0));
  cg_kernel_attrs(c, f, (1u << 0) | (1u << 3) | (1u << 5) | (1u << 10));
  if (!cg_kernel_has_body(c)) return c->k_gemm = f;
  cg_saved sv = cg_save(c);
  cg_begin_function(c, f);
  LLVMValueRef p[14];
  for (int k = 0; k < 14; k++) p[k] = param(c, k);
  int64_t NR = 2 * (int64_t)c->vw;
  cg_loop lj;
  LLVMValueRef j = cg_loop_open(c, &lj, cg_i64(c, 0), p[8], NR);
  LLVMValueRef ncols = LLVMBuildNSWSub(c->b, p[8], j, "");
  LLVMValueRef Bj = cg_gep(c, p[3], j), Cj = cg_gep(c, p[5], j);
  LLVMValueRef full = LLVMBuildICmp(c->b, LLVMIntSGE, ncols, cg_i64(c, NR), "");
  LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "full");
  LLVMBasicBlockRef no = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "part");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "next");
  LLVMBuildCondBr(c->b, full, yes, no);
  LLVMPositionBuilderAtEnd(c->b, yes);
  gemm_rows(c, 0, p, Bj, Cj, ncols);
  LLVMBuildBr(c->b, join);
  LLVMPositionBuilderAtEnd(c->b, no);
  gemm_rows(c, 1, p, Bj, Cj, ncols);
  LLVMBuildBr(c->b, join);
  LLVMPositionBuilderAtEnd(c->b, join);
  cg_loop_close(c, &lj);
  cg_end_function(c);
  cg_restore(c, sv);
  return c->k_gemm = f;
}

void cg_call_gemm(cg *c, LLVMValueRef A, LLVMValueRef ars, LLVMValueRef acs, LLVMValueRef B,
                  LLVMValueRef ldb, LLVMValueRef Cm, LLVMValueRef ldc, LLVMValueRef M,
                  LLVMValueRef N, LLVMValueRef K, LLVMValueRef bias, float alpha, float lo,
                  float hi) {
  LLVMValueRef f = gemm_kernel(c);
  LLVMValueRef args[14] = {A, ars, acs, B, ldb, Cm, ldc, M, N, K,
                           bias ? bias : LLVMConstNull(c->fptr), cg_f32(c, alpha), cg_f32(c, lo),
                           cg_f32(c, hi)};
  LLVMBuildCall2(c->b, LLVMGlobalGetValueType(f), f, args, 14, "");
}

/* Horizontal sum of a vector: halves added until one lane is left. */
static LLVMValueRef hsum(cg *c, LLVMValueRef v) {
  for (int n = c->vw / 2; n >= 1; n /= 2) {
    LLVMValueRef idx[16];
    for (int k = 0; k < c->vw; k++) idx[k] = LLVMConstInt(c->i32, (unsigned)((k + n) % c->vw), 0);
    LLVMValueRef hi = LLVMBuildShuffleVector(c->b, v, LLVMGetUndef(c->vf),
                                             LLVMConstVector(idx, (unsigned)c->vw), "");
    v = LLVMBuildFAdd(c->b, v, hi, "");
  }
  return LLVMBuildExtractElement(c->b, v, LLVMConstInt(c->i32, 0, 0), "");
}

static LLVMValueRef gemm_nt_kernel(cg *c) {
  if (c->k_gemm_nt) return c->k_gemm_nt;
  /* gemm_nt(A, ars, B, ldb, C, ldc, M, N, K, bias, alpha, lo, hi): dot products along k. */
  LLVMTypeRef ps[13] = {c->fptr, c->i64, c->fptr, c->i64, c->fptr, c->i64, c->i64,
                        c->i64,  c->i64, c->fptr, c->f32, c->f32, c->f32};
  LLVMValueRef f = LLVMAddFunction(c->mod, "vta.gemm_nt",
                                   LLVMFunctionType(LLVMVoidTypeInContext(c->ctx), ps, 13, 0));
  cg_kernel_attrs(c, f, (1u << 0) | (1u << 2) | (1u << 4) | (1u << 9));
  if (!cg_kernel_has_body(c)) return c->k_gemm_nt = f;
  cg_saved sv = cg_save(c);
  cg_begin_function(c, f);
  LLVMValueRef A = param(c, 0), ars = param(c, 1), B = param(c, 2), ldb = param(c, 3);
  LLVMValueRef Cm = param(c, 4), ldc = param(c, 5), M = param(c, 6), N = param(c, 7);
  LLVMValueRef K = param(c, 8), bias = param(c, 9), alpha = param(c, 10), lo = param(c, 11);
  LLVMValueRef hi = param(c, 12);
  LLVMValueRef acc = cg_slot(c, c->vf), bs = cg_slot(c, c->f32);
  LLVMValueRef kfull = LLVMBuildMul(c->b, LLVMBuildSDiv(c->b, K, cg_i64(c, c->vw), ""),
                                    cg_i64(c, c->vw), "");
  LLVMValueRef tmask = cg_vmask(c, LLVMBuildNSWSub(c->b, K, kfull, ""));
  cg_loop li, lj, lk;
  LLVMValueRef i = cg_loop_open(c, &li, cg_i64(c, 0), M, 1);
  LLVMValueRef arow = cg_mulv(c, i, ars);
  LLVMBuildStore(c->b, cg_f32(c, 0), bs);
  LLVMBasicBlockRef after = cg_if_open(c, LLVMBuildNot(c->b, is_null(c, bias), ""));
  LLVMBuildStore(c->b, cg_load(c, bias, i), bs);
  cg_if_close(c, after);
  LLVMValueRef j = cg_loop_open(c, &lj, cg_i64(c, 0), N, 1);
  LLVMValueRef brow = cg_mulv(c, j, ldb);
  LLVMBuildStore(c->b, LLVMConstNull(c->vf), acc);
  LLVMValueRef k = cg_loop_open(c, &lk, cg_i64(c, 0), kfull, c->vw);
  LLVMValueRef a = cg_vload(c, A, cg_add(c, arow, k)), bv = cg_vload(c, B, cg_add(c, brow, k));
  LLVMBuildStore(c->b, cg_fmuladd(c, a, bv, LLVMBuildLoad2(c->b, c->vf, acc, "")), acc);
  cg_loop_close(c, &lk);
  a = cg_vmload(c, A, cg_add(c, arow, kfull), tmask);
  bv = cg_vmload(c, B, cg_add(c, brow, kfull), tmask);
  LLVMValueRef s = hsum(c, cg_fmuladd(c, a, bv, LLVMBuildLoad2(c->b, c->vf, acc, "")));
  LLVMValueRef y = LLVMBuildFAdd(c->b, LLVMBuildFMul(c->b, s, alpha, ""),
                                 LLVMBuildLoad2(c->b, c->f32, bs, ""), "");
  cg_store(c, cg_clamp(c, y, lo, hi), Cm, cg_add(c, cg_mulv(c, i, ldc), j));
  cg_loop_close(c, &lj);
  cg_loop_close(c, &li);
  cg_end_function(c);
  cg_restore(c, sv);
  return c->k_gemm_nt = f;
}

void cg_call_gemm_nt(cg *c, LLVMValueRef A, LLVMValueRef ars, LLVMValueRef B, LLVMValueRef ldb,
                     LLVMValueRef Cm, LLVMValueRef ldc, LLVMValueRef M, LLVMValueRef N,
                     LLVMValueRef K, LLVMValueRef bias, float alpha, float lo, float hi) {
  LLVMValueRef f = gemm_nt_kernel(c);
  LLVMValueRef args[13] = {A, ars, B, ldb, Cm, ldc, M, N, K, bias ? bias : LLVMConstNull(c->fptr),
                           cg_f32(c, alpha), cg_f32(c, lo), cg_f32(c, hi)};
  LLVMBuildCall2(c->b, LLVMGlobalGetValueType(f), f, args, 13, "");
}

/* ---- strided row copies (im2col and the padded planes) ---- */

/* dst[q] = src[q * stride] for q in [0, n), vectorised for stride 1 and 2; any other stride
 * (0 here) is the run-time value sv, copied one element at a time. */
static void copy_row(cg *c, int64_t stride, LLVMValueRef sv, LLVMValueRef dst, LLVMValueRef src,
                     LLVMValueRef n) {
  cg_loop l;
  LLVMValueRef q = cg_loop_open(c, &l, cg_i64(c, 0), n, stride == 1 || stride == 2 ? c->vw : 1);
  if (stride == 1) {
    LLVMValueRef m = cg_vmask(c, LLVMBuildNSWSub(c->b, n, q, ""));
    cg_vmstore(c, cg_vmload(c, src, q, m), dst, q, m);
  } else if (stride == 2) {
    /* The last element read is 2 * (n - 1): the span is 2 * rem - 1 long. */
    LLVMValueRef rem2 = LLVMBuildNSWSub(c->b, cg_mul(c, LLVMBuildNSWSub(c->b, n, q, ""), 2), cg_i64(c, 1), "");
    LLVMValueRef m0 = cg_vmask(c, rem2);
    LLVMValueRef m1 = cg_vmask(c, LLVMBuildNSWSub(c->b, rem2, cg_i64(c, c->vw), ""));
    LLVMValueRef at = cg_mul(c, q, 2);
    LLVMValueRef v0 = cg_vmload(c, src, at, m0);
    LLVMValueRef v1 = cg_vmload(c, src, cg_add(c, at, cg_i64(c, c->vw)), m1);
    LLVMValueRef idx[16];
    for (int k = 0; k < c->vw; k++) idx[k] = LLVMConstInt(c->i32, (unsigned)(2 * k), 0);
    LLVMValueRef even = LLVMBuildShuffleVector(c->b, v0, v1, LLVMConstVector(idx, (unsigned)c->vw), "");
    cg_vmstore(c, even, dst, q, cg_vmask(c, LLVMBuildNSWSub(c->b, n, q, "")));
  } else {
    cg_store(c, cg_load(c, src, cg_mulv(c, q, sv)), dst, q);
  }
  cg_loop_close(c, &l);
}

/* dst[0, n) = 0 */
static void zero_row(cg *c, LLVMValueRef dst, LLVMValueRef n) {
  cg_loop l;
  LLVMValueRef q = cg_loop_open(c, &l, cg_i64(c, 0), n, c->vw);
  cg_vmstore(c, LLVMConstNull(c->vf), dst, q, cg_vmask(c, LLVMBuildNSWSub(c->b, n, q, "")));
  cg_loop_close(c, &l);
}

/* ---- im2col ---- */

int64_t cg_im2col_rows(const cg_conv *k) {
  /* Blocks of output rows whose patch matrix stays within about 256 KB (half of a typical
   * L2), so that GEMM reads it back from cache. */
  int64_t K = k->cin / k->group * k->kh * k->kw, per_row = K * k->ow;
  int64_t r = per_row > 0 ? 65536 / per_row : k->oh;
  return r < 1 ? 1 : r > k->oh ? k->oh : r;
}

static LLVMValueRef im2col_kernel(cg *c, int64_t sw) {
  char name[40];
  snprintf(name, sizeof name, "vta.im2col.s%lld", (long long)(sw <= 2 ? sw : 0));
  LLVMValueRef f = LLVMGetNamedFunction(c->mod, name);
  if (f) return f;
  /* im2col(X, out, C, H, W, OW, KH, KW, SH, SW, DH, DW, PT, PL, oh0, noh) */
  LLVMTypeRef ps[16] = {c->fptr, c->fptr};
  for (int k = 2; k < 16; k++) ps[k] = c->i64;
  f = LLVMAddFunction(c->mod, name, LLVMFunctionType(LLVMVoidTypeInContext(c->ctx), ps, 16, 0));
  cg_kernel_attrs(c, f, 3);
  if (!cg_kernel_has_body(c)) return f;
  cg_saved sv = cg_save(c);
  cg_begin_function(c, f);
  LLVMValueRef X = param(c, 0), out = param(c, 1), C = param(c, 2), H = param(c, 3);
  LLVMValueRef W = param(c, 4), OW = param(c, 5), KH = param(c, 6), KW = param(c, 7);
  LLVMValueRef SH = param(c, 8), SW = param(c, 9), DH = param(c, 10), DW = param(c, 11);
  LLVMValueRef PT = param(c, 12), PL = param(c, 13), oh0 = param(c, 14), noh = param(c, 15);
  if (sw <= 2) SW = cg_i64(c, sw);
  LLVMValueRef P = cg_mulv(c, noh, OW), zero = cg_i64(c, 0);
  cg_loop lc, lh, lw, lt;
  LLVMValueRef ci = cg_loop_open(c, &lc, zero, C, 1);
  LLVMValueRef kh = cg_loop_open(c, &lh, zero, KH, 1);
  LLVMValueRef kw = cg_loop_open(c, &lw, zero, KW, 1);
  LLVMValueRef r = cg_add(c, cg_mulv(c, cg_add(c, cg_mulv(c, ci, KH), kh), KW), kw);
  /* Output columns [lo, hi) read inside the row; the rest is left or right padding. */
  LLVMValueRef off = LLVMBuildNSWSub(c->b, cg_mulv(c, kw, DW), PL, "");  /* iw = ow*SW + off */
  LLVMValueRef lnum = LLVMBuildNSWNeg(c->b, off, "");
  LLVMValueRef lo = LLVMBuildSDiv(c->b, cg_add(c, lnum, LLVMBuildNSWSub(c->b, SW, cg_i64(c, 1), "")), SW, "");
  lo = LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntSLE, lnum, zero, ""), zero, lo, "");
  lo = cg_smin(c, lo, OW);
  LLVMValueRef hnum = LLVMBuildNSWSub(c->b, LLVMBuildNSWSub(c->b, W, cg_i64(c, 1), ""), off, "");
  LLVMValueRef hi = cg_add(c, LLVMBuildSDiv(c->b, hnum, SW, ""), cg_i64(c, 1));
  hi = LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntSLT, hnum, zero, ""), zero, hi, "");
  hi = cg_smax(c, cg_smin(c, hi, OW), lo);
  LLVMValueRef t = cg_loop_open(c, &lt, zero, noh, 1);
  LLVMValueRef ih = LLVMBuildNSWSub(c->b, cg_add(c, cg_mulv(c, cg_add(c, oh0, t), SH), cg_mulv(c, kh, DH)), PT, "");
  LLVMValueRef dst = cg_gep(c, out, cg_add(c, cg_mulv(c, r, P), cg_mulv(c, t, OW)));
  LLVMBasicBlockRef inside = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "row");
  LLVMBasicBlockRef outside = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "pad");
  LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "next");
  LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntULT, ih, H, ""), inside, outside);
  LLVMPositionBuilderAtEnd(c->b, inside);
  zero_row(c, dst, lo);
  LLVMValueRef src = cg_gep(c, X, cg_add(c, cg_mulv(c, cg_add(c, cg_mulv(c, ci, H), ih), W),
                                         cg_add(c, cg_mulv(c, lo, SW), off)));
  copy_row(c, sw <= 2 ? sw : 0, SW, cg_gep(c, dst, lo), src, LLVMBuildNSWSub(c->b, hi, lo, ""));
  zero_row(c, cg_gep(c, dst, hi), LLVMBuildNSWSub(c->b, OW, hi, ""));
  LLVMBuildBr(c->b, next);
  LLVMPositionBuilderAtEnd(c->b, outside);
  zero_row(c, dst, OW);
  LLVMBuildBr(c->b, next);
  LLVMPositionBuilderAtEnd(c->b, next);
  cg_loop_close(c, &lt);
  cg_loop_close(c, &lw);
  cg_loop_close(c, &lh);
  cg_loop_close(c, &lc);
  cg_end_function(c);
  cg_restore(c, sv);
  return f;
}

void cg_call_im2col(cg *c, const cg_conv *k, LLVMValueRef X, LLVMValueRef out, int64_t cin,
                    LLVMValueRef oh0, LLVMValueRef noh) {
  LLVMValueRef f = im2col_kernel(c, k->sw);
  LLVMValueRef a[16] = {X,
                        out,
                        cg_i64(c, cin),
                        cg_i64(c, k->h),
                        cg_i64(c, k->w),
                        cg_i64(c, k->ow),
                        cg_i64(c, k->kh),
                        cg_i64(c, k->kw),
                        cg_i64(c, k->sh),
                        cg_i64(c, k->sw),
                        cg_i64(c, k->dh),
                        cg_i64(c, k->dw),
                        cg_i64(c, k->pt),
                        cg_i64(c, k->pl),
                        oh0,
                        noh};
  LLVMBuildCall2(c->b, LLVMGlobalGetValueType(f), f, a, 16, "");
}

/* ---- depthwise convolution ---- */

static int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

/* The padded plane: rows HP, pitch WP (at least the input row at its left padding and every
 * tap of every computed lane), plus slack for the lanes past the last output column. */
static void dw_plane(const cg_conv *k, int vw, int64_t *hp, int64_t *wp, int64_t *slack) {
  *hp = (k->oh - 1) * k->sh + (k->kh - 1) * k->dh + 1;
  int64_t need = (k->ow - 1) * k->sw + (k->kw - 1) * k->dw + 1;
  *wp = k->pl + k->w > need ? k->pl + k->w : need;
  *slack = round_up(k->ow, vw) * k->sw + (k->kw - 1) * k->dw + 2 * (int64_t)vw;
}

int64_t cg_dwconv_scratch(const cg_conv *k, int vw) {
  int64_t hp, wp, slack;
  dw_plane(k, vw, &hp, &wp, &slack);
  return hp * wp + slack;
}

static LLVMValueRef dw_kernel(cg *c, const cg_conv *k) {
  int64_t key = ((k->kh * 64 + k->kw) * 64 + k->sw) * 64 + k->dw;
  for (int i = 0; i < c->n_dw; i++)
    if (c->dw_key[i] == key) return c->k_dw[i];
  char name[64];
  snprintf(name, sizeof name, "vta.dwconv.%lldx%lld.s%lld.d%lld", (long long)k->kh,
           (long long)k->kw, (long long)k->sw, (long long)k->dw);
  /* dw(X, W, bias, O, pad, C, H, Wd, OH, OW, SH, DH, PT, PL, HP, WP, lo, hi) */
  LLVMTypeRef ps[18] = {c->fptr, c->fptr, c->fptr, c->fptr, c->fptr};
  for (int q = 5; q < 16; q++) ps[q] = c->i64;
  ps[16] = ps[17] = c->f32;
  LLVMValueRef f = LLVMAddFunction(c->mod, name, LLVMFunctionType(LLVMVoidTypeInContext(c->ctx), ps, 18, 0));
  cg_kernel_attrs(c, f, 0x1f);
  if (!cg_kernel_has_body(c)) {
    if (c->n_dw < CG_MAX_DW) {
      c->dw_key[c->n_dw] = key;
      c->k_dw[c->n_dw++] = f;
    }
    return f;
  }
  cg_saved sv = cg_save(c);
  cg_begin_function(c, f);
  LLVMValueRef X = param(c, 0), Wt = param(c, 1), bias = param(c, 2), O = param(c, 3);
  LLVMValueRef pad = param(c, 4), C = param(c, 5), H = param(c, 6), Wd = param(c, 7);
  LLVMValueRef OH = param(c, 8), OW = param(c, 9), SH = param(c, 10), DH = param(c, 11);
  LLVMValueRef PT = param(c, 12), PL = param(c, 13), HP = param(c, 14), WP = param(c, 15);
  LLVMValueRef vlo = cg_splat(c, param(c, 16)), vhi = cg_splat(c, param(c, 17));
  LLVMValueRef zero = cg_i64(c, 0);
  /* Zero the whole plane once: each channel rewrites only its input rows. */
  zero_row(c, pad, cg_mulv(c, HP, WP));
  LLVMValueRef bslot = cg_slot(c, c->f32);
  cg_loop lc, lr, lh, lw;
  LLVMValueRef ch = cg_loop_open(c, &lc, zero, C, 1);
  /* Copy the channel's rows that fall inside the plane. */
  LLVMValueRef r0 = cg_smax(c, zero, LLVMBuildNSWNeg(c->b, PT, ""));
  LLVMValueRef r1 = cg_smin(c, H, LLVMBuildNSWSub(c->b, HP, PT, ""));
  LLVMValueRef ih = cg_loop_open(c, &lr, r0, r1, 1);
  copy_row(c, 1, NULL, cg_gep(c, pad, cg_add(c, cg_mulv(c, cg_add(c, ih, PT), WP), PL)),
           cg_gep(c, X, cg_mulv(c, cg_add(c, cg_mulv(c, ch, H), ih), Wd)), Wd);
  cg_loop_close(c, &lr);
  /* The channel's taps, broadcast once. */
  int64_t taps = k->kh * k->kw;
  LLVMValueRef wv[64];
  for (int64_t t = 0; t < taps && t < 64; t++)
    wv[t] = cg_splat(c, cg_load(c, Wt, cg_add(c, cg_mul(c, ch, taps), cg_i64(c, t))));
  LLVMBuildStore(c->b, cg_f32(c, 0), bslot);
  LLVMBasicBlockRef after = cg_if_open(c, LLVMBuildNot(c->b, is_null(c, bias), ""));
  LLVMBuildStore(c->b, cg_load(c, bias, ch), bslot);
  cg_if_close(c, after);
  LLVMValueRef vb = cg_splat(c, LLVMBuildLoad2(c->b, c->f32, bslot, ""));
  LLVMValueRef obase = cg_mulv(c, cg_mulv(c, ch, OH), OW);
  LLVMValueRef oh = cg_loop_open(c, &lh, zero, OH, 1);
  LLVMValueRef prow = cg_mulv(c, cg_mulv(c, oh, SH), WP);
  LLVMValueRef orow = cg_add(c, obase, cg_mulv(c, oh, OW));
  LLVMValueRef ow = cg_loop_open(c, &lw, zero, OW, c->vw);
  LLVMValueRef acc = vb, col = cg_mul(c, ow, k->sw);
  LLVMValueRef idx2[16];
  for (int q = 0; q < c->vw; q++) idx2[q] = LLVMConstInt(c->i32, (unsigned)(2 * q), 0);
  for (int64_t kh = 0; kh < k->kh; kh++)
    for (int64_t kw = 0; kw < k->kw; kw++) {
      LLVMValueRef rowoff = cg_mulv(c, cg_mulv(c, cg_i64(c, kh), DH), WP);
      LLVMValueRef p = cg_add(c, cg_add(c, prow, rowoff), cg_add(c, col, cg_i64(c, kw * k->dw)));
      LLVMValueRef v;
      if (k->sw == 1) {
        v = cg_vload(c, pad, p);
      } else if (k->sw == 2) {
        LLVMValueRef v0 = cg_vload(c, pad, p), v1 = cg_vload(c, pad, cg_add(c, p, cg_i64(c, c->vw)));
        v = LLVMBuildShuffleVector(c->b, v0, v1, LLVMConstVector(idx2, (unsigned)c->vw), "");
      } else {
        v = LLVMGetUndef(c->vf);
        for (int q = 0; q < c->vw; q++)
          v = LLVMBuildInsertElement(c->b, v, cg_load(c, pad, cg_add(c, p, cg_i64(c, q * k->sw))),
                                     LLVMConstInt(c->i32, (unsigned)q, 0), "");
      }
      acc = cg_fmuladd(c, wv[kh * k->kw + kw], v, acc);
    }
  acc = cg_clamp(c, acc, vlo, vhi);
  LLVMValueRef rem = LLVMBuildNSWSub(c->b, OW, ow, "");
  cg_vmstore(c, acc, O, cg_add(c, orow, ow), cg_vmask(c, rem));
  cg_loop_close(c, &lw);
  cg_loop_close(c, &lh);
  cg_loop_close(c, &lc);
  cg_end_function(c);
  cg_restore(c, sv);
  if (c->n_dw < CG_MAX_DW) {
    c->dw_key[c->n_dw] = key;
    c->k_dw[c->n_dw++] = f;
  }
  return f;
}

void cg_call_dwconv(cg *c, const cg_conv *k, LLVMValueRef X, LLVMValueRef W, LLVMValueRef bias,
                    LLVMValueRef O, float lo, float hi) {
  LLVMValueRef f = dw_kernel(c, k);
  int64_t hp, wp, slack;
  dw_plane(k, c->vw, &hp, &wp, &slack);
  LLVMValueRef pad = LLVMBuildBitCast(c->b, c->scratch, c->fptr, "");
  LLVMValueRef a[18] = {X,
                        W,
                        bias ? bias : LLVMConstNull(c->fptr),
                        O,
                        pad,
                        cg_i64(c, k->cin),
                        cg_i64(c, k->h),
                        cg_i64(c, k->w),
                        cg_i64(c, k->oh),
                        cg_i64(c, k->ow),
                        cg_i64(c, k->sh),
                        cg_i64(c, k->dh),
                        cg_i64(c, k->pt),
                        cg_i64(c, k->pl),
                        cg_i64(c, hp),
                        cg_i64(c, wp),
                        cg_f32(c, lo),
                        cg_f32(c, hi)};
  LLVMBuildCall2(c->b, LLVMGlobalGetValueType(f), f, a, 18, "");
}

/* ---- direct convolution (stride 1) ----
 *
 * The input of one group is copied once into zero-bordered planes in the scratch buffer (rows
 * HP, pitch WP), so that output pixel (y, x) under tap (ky, kx) reads plane element
 * (y + ky*DH)*WP + x + kx*DW. Output positions are numbered q = y*WP + x over the padded pitch,
 * which makes the input of consecutive q contiguous across row ends: the N dimension of a GEMM
 * whose k steps are (channel, tap) pairs, B's row for step k being the plane of its channel at
 * the tap's offset. No patch matrix is built (im2col writes KH*KW copies of the input); the
 * micro-kernel is GEMM's MR x 2*vw register tile with the taps unrolled. Positions with
 * x >= OW (the WP - OW columns between rows) are computed and dropped when the rows are copied
 * out to the output. */

/* The register tile: MR rows (output channels) x NV vectors of output positions. With 32
 * vector registers (AVX-512) 6 x 4: 24 accumulators, 4 position vectors and a broadcast
 * weight (measured on M-LSD against 8 x 2, 8 x 3, 12 x 2, 4 x 6 and 7 x 4, which spills; 4 x 6
 * for channel counts that are multiples of 4 but not of 6, leaving no remainder panel, was
 * within the noise); with 16 registers GEMM's 6 x 2. m (the output channels) is kept for such
 * a choice. */
static void dc_tile(const cg *c, int64_t m, int *mr, int *nv) {
  (void)m;
  *mr = c->vw >= 16 ? 6 : mr_of(c);
  *nv = c->vw >= 16 ? 4 : 2;
}

/* The planes and the output positions of a stride-1 convolution. */
static void dc_plane(const cg_conv *k, int64_t *hp, int64_t *wp, int64_t *nq) {
  *hp = k->oh + (k->kh - 1) * k->dh;
  int64_t need = k->ow + (k->kw - 1) * k->dw;
  *wp = k->pl + k->w > need ? k->pl + k->w : need;
  *nq = (k->oh - 1) * *wp + k->ow;
}

int cg_dconv_fits(const cg_conv *k) {
  if (k->sh != 1 || k->sw != 1 || k->kh * k->kw < 2 || k->kh * k->kw > 25 || k->oh < 1 || k->ow < 1) return 0;
  int64_t hp, wp, nq;
  dc_plane(k, &hp, &wp, &nq);
  /* The dropped columns cost as much as computed ones: at most as many as the kept ones. */
  return 2 * k->ow >= wp;
}

int64_t cg_dconv_scratch(const cg_conv *k, int vw) {
  int64_t hp, wp, nq;
  dc_plane(k, &hp, &wp, &nq);
  return k->cin / k->group * hp * wp + k->m / k->group * nq + 4 * (int64_t)vw;
}

/* mk(A, ars, B, plane, rowstep, colstep, C, ldc, Cin, bias, lo, hi, ncols): an mr-row tile of
 * 2*vw output positions; A's row r holds Cin * KH*KW weights, channel-major. */
static LLVMValueRef dconv_micro(cg *c, int64_t kh, int64_t kw, int mr, int nv, int masked) {
  char name[64];
  snprintf(name, sizeof name, "vta.dconv.%lldx%lld.mk%dx%d%s", (long long)kh, (long long)kw, mr, nv,
           masked ? "m" : "");
  LLVMValueRef f = LLVMGetNamedFunction(c->mod, name);
  if (f) return f;
  LLVMTypeRef ps[13] = {c->fptr, c->i64, c->fptr, c->i64, c->i64, c->i64, c->fptr,
                        c->i64,  c->i64, c->fptr, c->f32, c->f32, c->i64};
  f = LLVMAddFunction(c->mod, name, LLVMFunctionType(LLVMVoidTypeInContext(c->ctx), ps, 13, 0));
  cg_kernel_attrs(c, f, (1u << 0) | (1u << 2) | (1u << 6) | (1u << 9));
  if (!cg_kernel_has_body(c)) return f;
  cg_saved sv = cg_save(c);
  cg_begin_function(c, f);
  LLVMValueRef A = param(c, 0), ars = param(c, 1), B = param(c, 2), plane = param(c, 3);
  LLVMValueRef rowstep = param(c, 4), colstep = param(c, 5), Cm = param(c, 6), ldc = param(c, 7);
  LLVMValueRef Cin = param(c, 8), bias = param(c, 9), lo = param(c, 10), hi = param(c, 11);
  LLVMValueRef ncols = param(c, 12);
  int64_t taps = kh * kw;
  LLVMValueRef mask[8] = {NULL};
  if (masked)
    for (int v = 0; v < nv; v++) mask[v] = cg_vmask(c, LLVMBuildNSWSub(c->b, ncols, cg_i64(c, (int64_t)v * c->vw), ""));
  /* The taps' offsets within a plane, computed once. */
  LLVMValueRef toff[25];
  for (int64_t y = 0; y < kh; y++)
    for (int64_t x = 0; x < kw; x++)
      toff[y * kw + x] = cg_add(c, cg_mulv(c, cg_i64(c, y), rowstep), cg_mulv(c, cg_i64(c, x), colstep));
  LLVMValueRef acc[16][8], zero = LLVMConstNull(c->vf);
  for (int r = 0; r < mr; r++)
    for (int v = 0; v < nv; v++) {
      acc[r][v] = cg_slot(c, c->vf);
      LLVMBuildStore(c->b, zero, acc[r][v]);
    }
  cg_loop lc;
  LLVMValueRef ch = cg_loop_open(c, &lc, cg_i64(c, 0), Cin, 1);
  LLVMValueRef pbase = cg_mulv(c, ch, plane), abase = cg_mul(c, ch, taps);
  for (int64_t t = 0; t < taps; t++) {
    LLVMValueRef bv[8];
    for (int v = 0; v < nv; v++) {
      LLVMValueRef at = cg_add(c, cg_add(c, pbase, toff[t]), cg_i64(c, (int64_t)v * c->vw));
      bv[v] = masked ? cg_vmload(c, B, at, mask[v]) : cg_vload(c, B, at);
    }
    LLVMValueRef kofs = cg_add(c, abase, cg_i64(c, t));
    for (int r = 0; r < mr; r++) {
      LLVMValueRef as = cg_splat(c, cg_load(c, A, cg_add(c, cg_mulv(c, cg_i64(c, r), ars), kofs)));
      for (int v = 0; v < nv; v++) {
        LLVMValueRef cur = LLVMBuildLoad2(c->b, c->vf, acc[r][v], "");
        LLVMBuildStore(c->b, cg_fmuladd(c, as, bv[v], cur), acc[r][v]);
      }
    }
  }
  cg_loop_close(c, &lc);
  LLVMValueRef bslot[16];
  for (int r = 0; r < mr; r++) {
    bslot[r] = cg_slot(c, c->f32);
    LLVMBuildStore(c->b, cg_f32(c, 0), bslot[r]);
  }
  LLVMBasicBlockRef after = cg_if_open(c, LLVMBuildNot(c->b, is_null(c, bias), ""));
  for (int r = 0; r < mr; r++) LLVMBuildStore(c->b, cg_load(c, bias, cg_i64(c, r)), bslot[r]);
  cg_if_close(c, after);
  LLVMValueRef vlo = cg_splat(c, lo), vhi = cg_splat(c, hi);
  for (int r = 0; r < mr; r++) {
    LLVMValueRef vb = cg_splat(c, LLVMBuildLoad2(c->b, c->f32, bslot[r], ""));
    LLVMValueRef row = cg_mulv(c, cg_i64(c, r), ldc);
    for (int v = 0; v < nv; v++) {
      /* The sum first, then the bias, as GEMM's alpha * acc + bias with alpha 1. */
      LLVMValueRef x = LLVMBuildFAdd(c->b, LLVMBuildLoad2(c->b, c->vf, acc[r][v], ""), vb, "");
      x = cg_clamp(c, x, vlo, vhi);
      LLVMValueRef at = cg_add(c, row, cg_i64(c, (int64_t)v * c->vw));
      if (masked)
        cg_vmstore(c, x, Cm, at, mask[v]);
      else
        cg_vstore(c, x, Cm, at);
    }
  }
  cg_end_function(c);
  cg_restore(c, sv);
  return f;
}

/* The micro-kernels over every row panel of one strip of positions. */
static void dconv_rows(cg *c, int64_t kh, int64_t kw, int MR, int nv, int masked, LLVMValueRef *a,
                       LLVMValueRef M) {
  LLVMValueRef A = a[0], ars = a[1], Cm = a[6], ldc = a[7], bias = a[9];
  LLVMValueRef full = dconv_micro(c, kh, kw, MR, nv, masked);
  cg_loop li;
  LLVMValueRef i = cg_loop_open(c, &li, cg_i64(c, 0), LLVMBuildNSWSub(c->b, M, cg_i64(c, MR - 1), ""), MR);
  LLVMValueRef args[13];
  memcpy(args, a, sizeof args);
  args[0] = cg_gep(c, A, cg_mulv(c, i, ars));
  args[6] = cg_gep(c, Cm, cg_mulv(c, i, ldc));
  args[9] = offset_or_null(c, bias, i);
  LLVMBuildCall2(c->b, LLVMGlobalGetValueType(full), full, args, 13, "");
  cg_loop_close(c, &li);
  LLVMValueRef done = LLVMBuildMul(c->b, LLVMBuildSDiv(c->b, M, cg_i64(c, MR), ""), cg_i64(c, MR), "");
  LLVMValueRef rest = LLVMBuildNSWSub(c->b, M, done, "");
  args[0] = cg_gep(c, A, cg_mulv(c, done, ars));
  args[6] = cg_gep(c, Cm, cg_mulv(c, done, ldc));
  args[9] = offset_or_null(c, bias, done);
  for (int q = 1; q < MR; q++) {
    LLVMBasicBlockRef after = cg_if_open(c, LLVMBuildICmp(c->b, LLVMIntEQ, rest, cg_i64(c, q), ""));
    LLVMValueRef mk = dconv_micro(c, kh, kw, q, nv, masked);
    LLVMBuildCall2(c->b, LLVMGlobalGetValueType(mk), mk, args, 13, "");
    cg_if_close(c, after);
  }
}

/* Every strip of output positions against every row panel of output channels: T (M x NQ). */
static void dconv_strips(cg *c, int64_t kh, int64_t kw, int mr, int nv, LLVMValueRef Wt, LLVMValueRef B, LLVMValueRef plane,
                         LLVMValueRef rowstep, LLVMValueRef colstep, LLVMValueRef T, LLVMValueRef NQ,
                         LLVMValueRef Cin, LLVMValueRef bias, LLVMValueRef lo, LLVMValueRef hi, LLVMValueRef M) {
  int64_t nr = nv * (int64_t)c->vw;
  LLVMValueRef ars = cg_mul(c, Cin, kh * kw), NR = cg_i64(c, nr);
  cg_loop lj;
  LLVMValueRef j = cg_loop_open(c, &lj, cg_i64(c, 0), NQ, nr);
  LLVMValueRef ncols = LLVMBuildNSWSub(c->b, NQ, j, "");
  LLVMValueRef a[13] = {Wt, ars, cg_gep(c, B, j), plane, rowstep, colstep, cg_gep(c, T, j),
                        NQ, Cin, bias, lo, hi, ncols};
  LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "full");
  LLVMBasicBlockRef no = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "part");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "next");
  LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntSGE, ncols, NR, ""), yes, no);
  LLVMPositionBuilderAtEnd(c->b, yes);
  dconv_rows(c, kh, kw, mr, nv, 0, a, M);
  LLVMBuildBr(c->b, join);
  LLVMPositionBuilderAtEnd(c->b, no);
  dconv_rows(c, kh, kw, mr, nv, 1, a, M);
  LLVMBuildBr(c->b, join);
  LLVMPositionBuilderAtEnd(c->b, join);
  cg_loop_close(c, &lj);
}

/* pconv(X, W, bias, O, Cin, M, P, lo, hi): a pointwise convolution of one image and group with
 * the same tile, straight from X into O (positions are contiguous: no planes, no copies). */
static LLVMValueRef pconv_kernel(cg *c, int mr, int nv) {
  char name[48];
  snprintf(name, sizeof name, "vta.pconv.t%dx%d", mr, nv);
  LLVMValueRef f = LLVMGetNamedFunction(c->mod, name);
  if (f) return f;
  LLVMTypeRef ps[9] = {c->fptr, c->fptr, c->fptr, c->fptr, c->i64, c->i64, c->i64, c->f32, c->f32};
  f = LLVMAddFunction(c->mod, name, LLVMFunctionType(LLVMVoidTypeInContext(c->ctx), ps, 9, 0));
  cg_kernel_attrs(c, f, 0xf);
  if (!cg_kernel_has_body(c)) return f;
  cg_saved sv = cg_save(c);
  cg_begin_function(c, f);
  LLVMValueRef P = param(c, 6);
  dconv_strips(c, 1, 1, mr, nv, param(c, 1), param(c, 0), P, cg_i64(c, 0), cg_i64(c, 0), param(c, 3), P, param(c, 4),
               param(c, 2), param(c, 7), param(c, 8), param(c, 5));
  cg_end_function(c);
  cg_restore(c, sv);
  return f;
}

void cg_call_pconv(cg *c, LLVMValueRef X, LLVMValueRef W, LLVMValueRef bias, LLVMValueRef O, int64_t cin,
                   int64_t m, int64_t p, float lo, float hi) {
  int mr, nv;
  dc_tile(c, m, &mr, &nv);
  LLVMValueRef f = pconv_kernel(c, mr, nv);
  LLVMValueRef a[9] = {X, W, bias ? bias : LLVMConstNull(c->fptr), O, cg_i64(c, cin), cg_i64(c, m), cg_i64(c, p),
                       cg_f32(c, lo), cg_f32(c, hi)};
  LLVMBuildCall2(c->b, LLVMGlobalGetValueType(f), f, a, 9, "");
}

/* dconv(X, W, bias, O, pad, Cin, H, Wd, M, OH, OW, PT, PL, HP, WP, DH, DW, lo, hi) */
static LLVMValueRef dconv_kernel(cg *c, int64_t kh, int64_t kw, int mr, int nv) {
  char name[48];
  snprintf(name, sizeof name, "vta.dconv.%lldx%lld.t%dx%d", (long long)kh, (long long)kw, mr, nv);
  LLVMValueRef f = LLVMGetNamedFunction(c->mod, name);
  if (f) return f;
  LLVMTypeRef ps[19] = {c->fptr, c->fptr, c->fptr, c->fptr, c->fptr};
  for (int q = 5; q < 17; q++) ps[q] = c->i64;
  ps[17] = ps[18] = c->f32;
  f = LLVMAddFunction(c->mod, name, LLVMFunctionType(LLVMVoidTypeInContext(c->ctx), ps, 19, 0));
  cg_kernel_attrs(c, f, 0x1f);
  if (!cg_kernel_has_body(c)) return f;
  cg_saved sv = cg_save(c);
  cg_begin_function(c, f);
  LLVMValueRef X = param(c, 0), Wt = param(c, 1), bias = param(c, 2), O = param(c, 3), pad = param(c, 4);
  LLVMValueRef Cin = param(c, 5), H = param(c, 6), Wd = param(c, 7), M = param(c, 8), OH = param(c, 9);
  LLVMValueRef OW = param(c, 10), PT = param(c, 11), PL = param(c, 12), HP = param(c, 13), WP = param(c, 14);
  LLVMValueRef DH = param(c, 15), DW = param(c, 16), lo = param(c, 17), hi = param(c, 18);
  LLVMValueRef zero = cg_i64(c, 0), plane = cg_mulv(c, HP, WP);
  /* The planes: zeroed, then each channel's rows that fall inside copied in. */
  zero_row(c, pad, cg_mulv(c, Cin, plane));
  cg_loop lc, lr;
  LLVMValueRef ch = cg_loop_open(c, &lc, zero, Cin, 1);
  LLVMValueRef r0 = cg_smax(c, zero, LLVMBuildNSWNeg(c->b, PT, ""));
  LLVMValueRef r1 = cg_smin(c, H, LLVMBuildNSWSub(c->b, HP, PT, ""));
  LLVMValueRef ih = cg_loop_open(c, &lr, r0, r1, 1);
  copy_row(c, 1, NULL, cg_gep(c, pad, cg_add(c, cg_mulv(c, ch, plane), cg_add(c, cg_mulv(c, cg_add(c, ih, PT), WP), PL))),
           cg_gep(c, X, cg_mulv(c, cg_add(c, cg_mulv(c, ch, H), ih), Wd)), Wd);
  cg_loop_close(c, &lr);
  cg_loop_close(c, &lc);
  /* Every position strip against every row panel, into T (M x NQ), then T's rows out. */
  LLVMValueRef NQ = cg_add(c, cg_mulv(c, LLVMBuildNSWSub(c->b, OH, cg_i64(c, 1), ""), WP), OW);
  LLVMValueRef T = cg_gep(c, pad, cg_add(c, cg_mulv(c, Cin, plane), cg_i64(c, 2 * (int64_t)c->vw)));
  dconv_strips(c, kh, kw, mr, nv, Wt, pad, plane, cg_mulv(c, DH, WP), DW, T, NQ, Cin, bias, lo, hi, M);
  cg_loop lm, ly;
  LLVMValueRef m = cg_loop_open(c, &lm, zero, M, 1);
  LLVMValueRef y = cg_loop_open(c, &ly, zero, OH, 1);
  copy_row(c, 1, NULL, cg_gep(c, O, cg_mulv(c, cg_add(c, cg_mulv(c, m, OH), y), OW)),
           cg_gep(c, T, cg_add(c, cg_mulv(c, m, NQ), cg_mulv(c, y, WP))), OW);
  cg_loop_close(c, &ly);
  cg_loop_close(c, &lm);
  cg_end_function(c);
  cg_restore(c, sv);
  return f;
}

void cg_call_dconv(cg *c, const cg_conv *k, LLVMValueRef X, LLVMValueRef W, LLVMValueRef bias,
                   LLVMValueRef O, float lo, float hi) {
  int mr, nv;
  dc_tile(c, k->m / k->group, &mr, &nv);
  LLVMValueRef f = dconv_kernel(c, k->kh, k->kw, mr, nv);
  int64_t hp, wp, nq;
  dc_plane(k, &hp, &wp, &nq);
  LLVMValueRef pad = LLVMBuildBitCast(c->b, c->scratch, c->fptr, "");
  LLVMValueRef a[19] = {X, W, bias ? bias : LLVMConstNull(c->fptr), O, pad,
                        cg_i64(c, k->cin / k->group), cg_i64(c, k->h), cg_i64(c, k->w),
                        cg_i64(c, k->m / k->group), cg_i64(c, k->oh), cg_i64(c, k->ow),
                        cg_i64(c, k->pt), cg_i64(c, k->pl), cg_i64(c, hp), cg_i64(c, wp),
                        cg_i64(c, k->dh), cg_i64(c, k->dw), cg_f32(c, lo), cg_f32(c, hi)};
  LLVMBuildCall2(c->b, LLVMGlobalGetValueType(f), f, a, 19, "");
}
