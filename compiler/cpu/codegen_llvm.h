/* codegen_llvm.h - private to the two halves of the CPU code generator: codegen_llvm.c (one
 * wrapper per graph node, the simple operators, the module driver) and codegen_kernels.c (the
 * hand-vectorised kernels the wrappers call: GEMM, im2col, depthwise convolution).
 *
 * It is kept out of compiler.h because it needs LLVM's headers, which only the compiler's own
 * files see. Everything here works on one `cg`: the module being built and the node being
 * emitted.
 */
#ifndef VTA_CODEGEN_LLVM_H
#define VTA_CODEGEN_LLVM_H

#include <llvm-c/Core.h>

#include "compiler/compiler.h"

#define CG_MAX_ARGS VTA_KERNEL_MAX_ARGS
#define CG_MAX_DW 16 /* distinct depthwise kernel shapes per module */

enum { CG_KERNELS_OWN = 0, CG_KERNELS_EXPORT = 1, CG_KERNELS_IMPORT = 2 };

typedef struct cg {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMBuilderRef b;
  LLVMTypeRef f32, i64, i32, i8, i1, fptr, vptr, i8ptr, vf, vi1, vfptr;
  LLVMTypeRef et;         /* element type of the node's output (data movement copies it) */
  int vw;                 /* floats per vector register of the target (4, 8 or 16) */
  int vec;                /* elementwise helpers build vectors (1) or scalars (0) */
  int epi_done;           /* the node's epilogue steps its emitter has applied (the driver
                           * applies the rest in one pass over the output) */
  LLVMValueRef fn;        /* function being emitted */
  LLVMBasicBlockRef entry;
  const vta_graph *g;
  const vta_node *nd;
  int node;
  int n_args;
  int argv[CG_MAX_ARGS];          /* value index of each kernel argument */
  LLVMValueRef argp[CG_MAX_ARGS]; /* its pointer inside the node's body */
  vta_error *err;
  /* Shared kernels, emitted on first use. */
  LLVMValueRef k_gemm, k_gemm_nt, k_im2col;
  /* The shared kernels (GEMM, im2col, depthwise): CG_KERNELS_OWN internal to the module,
   * CG_KERNELS_EXPORT defined and exported (a kernel library module), CG_KERNELS_IMPORT only
   * declared (nodes linked against such a library). */
  int kernel_mode;
  int n_dw;
  int64_t dw_key[CG_MAX_DW];
  LLVMValueRef k_dw[CG_MAX_DW];
  LLVMValueRef scratch;   /* module-wide float scratch buffer (im2col blocks, padded planes) */
  int64_t scratch_floats;
} cg;

/* ---- small builders (codegen_llvm.c) ---- */
LLVMValueRef cg_i64(cg *c, int64_t x);
LLVMValueRef cg_f32(cg *c, double x);
LLVMValueRef cg_gep(cg *c, LLVMValueRef p, LLVMValueRef i);
LLVMValueRef cg_load(cg *c, LLVMValueRef p, LLVMValueRef i);
void cg_store(cg *c, LLVMValueRef v, LLVMValueRef p, LLVMValueRef i);
LLVMValueRef cg_add(cg *c, LLVMValueRef a, LLVMValueRef b);
LLVMValueRef cg_mul(cg *c, LLVMValueRef a, int64_t k);
LLVMValueRef cg_mulv(cg *c, LLVMValueRef a, LLVMValueRef b);

typedef struct cg_loop {
  LLVMValueRef phi;
  LLVMBasicBlockRef header, exit;
  int64_t step;
} cg_loop;
/* for (iv = lo; iv < hi; iv += step): returns iv; the body follows until cg_loop_close. */
LLVMValueRef cg_loop_open(cg *c, cg_loop *l, LLVMValueRef lo, LLVMValueRef hi, int64_t step);
void cg_loop_close(cg *c, cg_loop *l);
/* if (cond) { ...  cg_if_close } */
LLVMBasicBlockRef cg_if_open(cg *c, LLVMValueRef cond);
void cg_if_close(cg *c, LLVMBasicBlockRef after);
/* A stack slot of type t in the current function's entry block (SROA makes it SSA). */
LLVMValueRef cg_slot(cg *c, LLVMTypeRef t);
/* Calls the intrinsic or library function name (declared on first use from the arguments). */
LLVMValueRef cg_call(cg *c, const char *name, LLVMTypeRef ret, int n, LLVMValueRef *args);
LLVMValueRef cg_smin(cg *c, LLVMValueRef a, LLVMValueRef b);
LLVMValueRef cg_smax(cg *c, LLVMValueRef a, LLVMValueRef b);
/* A float32 math function of n (1 or 2) arguments on scalars or, while c->vec is set, vectors:
 * the intrinsic's vector form, or per lane for libm functions, which have none. */
LLVMValueRef cg_fcall(cg *c, const char *name, int n, LLVMValueRef x, LLVMValueRef y);
/* Float max and min by an ordered compare and a select; a clamp to constant bounds (an
 * infinite bound is no compare). */
LLVMValueRef cg_fmax(cg *c, LLVMValueRef a, LLVMValueRef b);
LLVMValueRef cg_fmin(cg *c, LLVMValueRef a, LLVMValueRef b);
LLVMValueRef cg_fclamp(cg *c, LLVMValueRef x, double lo, double hi);
/* The float attribute name among the n attributes a (an integer one converted), or d. */
float cg_attr_f(int n, const vta_attr *a, const char *name, float d);

/* ---- operands of the node being emitted (codegen_llvm.c) ---- */
/* Pointer to input k's tensor, and to output k's (as float *: cast with cg_typed_ptr). */
LLVMValueRef cg_in(cg *c, int k);
LLVMValueRef cg_out(cg *c, int k);
/* The LLVM scalar type of an element type (f32 -> float, f64 -> double, integers and bool by
 * size), p cast to a pointer to it, and a load/store of element i of such a tensor. */
LLVMTypeRef cg_elt_type(cg *c, vta_dtype t);
LLVMValueRef cg_typed_ptr(cg *c, LLVMValueRef p, vta_dtype t);
LLVMValueRef cg_tload(cg *c, LLVMValueRef p, vta_dtype t, LLVMValueRef i);
void cg_tstore(cg *c, LLVMValueRef v, LLVMValueRef p, vta_dtype t, LLVMValueRef i);
/* Conversions between an element of type t and double (int: signed, except u8 and bool). */
LLVMValueRef cg_to_f64(cg *c, LLVMValueRef v, vta_dtype t);
LLVMValueRef cg_from_f64(cg *c, LLVMValueRef v, vta_dtype t);

/* ---- what a node's code takes (codegen_llvm.c) ---- */
/* 1 when every input and output of node i is float32, what most of the code is written for. */
int cg_node_f32(const vta_graph *g, int i);
/* 1 when node i's inputs have its output's element type and it has no fused steps: an
 * operator that only moves elements can then move them in that type. */
int cg_node_moves(const vta_graph *g, int i);

/* ---- the elementwise walk and the fused epilogue (codegen_llvm.c) ---- */
/* The vectorised float32 walk over node c->nd's output, broadcasting its operands: with_main
 * computes the node's own operation (the unary or binary family's step) on its inputs and
 * then its epilogue from step `first` on; otherwise it reads the output back and applies the
 * epilogue from `first` in place. Either way it sets c->epi_done to every step. */
void cg_emit_pointwise(cg *c, int with_main, int first);

/* ---- vectors of c->vw floats (codegen_llvm.c) ---- */
LLVMValueRef cg_splat(cg *c, LLVMValueRef scalar);
LLVMValueRef cg_vload(cg *c, LLVMValueRef p, LLVMValueRef i);
void cg_vstore(cg *c, LLVMValueRef v, LLVMValueRef p, LLVMValueRef i);
/* Lanes [0, n) set. */
LLVMValueRef cg_vmask(cg *c, LLVMValueRef n);
LLVMValueRef cg_vmload(cg *c, LLVMValueRef p, LLVMValueRef i, LLVMValueRef mask);
void cg_vmstore(cg *c, LLVMValueRef v, LLVMValueRef p, LLVMValueRef i, LLVMValueRef mask);
LLVMValueRef cg_fmuladd(cg *c, LLVMValueRef a, LLVMValueRef b, LLVMValueRef acc);
/* max(x, lo) then min(x, hi), scalar or vector, with lo/hi as values of x's type. */
LLVMValueRef cg_clamp(cg *c, LLVMValueRef x, LLVMValueRef lo, LLVMValueRef hi);

/* Marks f internal, not inlined, with noalias/nocapture on the pointer parameters listed
 * (bit k = parameter k). */
void cg_kernel_attrs(cg *c, LLVMValueRef f, uint64_t noalias_params);
/* Private constant tables of n int64 or float values (NULL when out of memory), and the
 * element at index i of one. */
LLVMValueRef cg_table_i64(cg *c, const int64_t *v, int64_t n);
LLVMValueRef cg_table_f32(cg *c, const float *v, int64_t n);
LLVMValueRef cg_table_at(cg *c, LLVMValueRef tab, LLVMValueRef i);
/* After cg_kernel_attrs: does the kernel get a body here (not CG_KERNELS_IMPORT)? */
int cg_kernel_has_body(const cg *c);
/* Saves and restores the builder position and current function around emitting a kernel. */
typedef struct cg_saved {
  LLVMBasicBlockRef block;
  LLVMValueRef fn;
  LLVMBasicBlockRef entry;
} cg_saved;
cg_saved cg_save(cg *c);
void cg_restore(cg *c, cg_saved s);
/* Starts a new internal function's body: sets c->fn, c->entry and positions the builder. */
void cg_begin_function(cg *c, LLVMValueRef f);
void cg_end_function(cg *c);

/* ---- the kernels (codegen_kernels.c) ---- */

/* C[i, j] = clamp(alpha * sum_k A[i*ars + k*acs] * B[k*ldb + j] + bias[i], lo, hi) for i < M,
 * j < N; bias may be null (0). Row-major C with row stride ldc. */
void cg_call_gemm(cg *c, LLVMValueRef A, LLVMValueRef ars, LLVMValueRef acs, LLVMValueRef B,
                  LLVMValueRef ldb, LLVMValueRef Cm, LLVMValueRef ldc, LLVMValueRef M,
                  LLVMValueRef N, LLVMValueRef K, LLVMValueRef bias, float alpha, float lo,
                  float hi);
/* The same with B transposed: B[j*ldb + k] (A's columns contiguous: acs == 1). */
void cg_call_gemm_nt(cg *c, LLVMValueRef A, LLVMValueRef ars, LLVMValueRef B, LLVMValueRef ldb,
                     LLVMValueRef Cm, LLVMValueRef ldc, LLVMValueRef M, LLVMValueRef N,
                     LLVMValueRef K, LLVMValueRef bias, float alpha, float lo, float hi);

typedef struct cg_conv {
  int64_t n, cin, h, w, m, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl, group;
} cg_conv;

/* Rows r = (ci*KH + kh)*KW + kw, columns (oh - oh0)*OW + ow for oh in [oh0, oh0 + noh): the
 * input patch element under kernel tap (kh, kw), 0 in the padding. */
void cg_call_im2col(cg *c, const cg_conv *k, LLVMValueRef X, LLVMValueRef out, int64_t cin,
                    LLVMValueRef oh0, LLVMValueRef noh);
/* Depthwise convolution of one image (channel multiplier 1), bias may be null. */
void cg_call_dwconv(cg *c, const cg_conv *k, LLVMValueRef X, LLVMValueRef W, LLVMValueRef bias,
                    LLVMValueRef O, float lo, float hi);
/* Floats of scratch the kernels above need for node k (computed before emission). */
int64_t cg_dwconv_scratch(const cg_conv *k, int vw);
int64_t cg_im2col_rows(const cg_conv *k);  /* output rows per im2col block */
/* Direct convolution of one image and one group (stride 1, up to 25 taps, any dilation and
 * padding): cg_dconv_fits says whether it is chosen (the columns it computes and drops, WP -
 * OW per row, are at most OW); cg_dconv_scratch is the floats of scratch it needs. */
int cg_dconv_fits(const cg_conv *k);
int64_t cg_dconv_scratch(const cg_conv *k, int vw);
void cg_call_dconv(cg *c, const cg_conv *k, LLVMValueRef X, LLVMValueRef W, LLVMValueRef bias,
                   LLVMValueRef O, float lo, float hi);
/* A pointwise convolution (1x1, stride 1, no padding) of one image and group with the direct
 * convolution's register tile: O (m x p) = W (m x cin) * X (cin x p) + bias. */
void cg_call_pconv(cg *c, LLVMValueRef X, LLVMValueRef W, LLVMValueRef bias, LLVMValueRef O, int64_t cin,
                   int64_t m, int64_t p, float lo, float hi);

/* ---- the integer operators (op_quant.c) ---- */

/* Max pooling (global or not) of int8 or uint8 data, in int32 (for the pooling family). */
void cg_emit_imaxpool(cg *c);

/* The floats of the module's scratch buffer node i needs (vw: the vector width; op_conv.c). */
int64_t cg_scratch_need(const vta_graph *g, int i, int vw);

#endif
