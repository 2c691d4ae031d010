/* codegen_local.h - short names shared by the node emitters of codegen_llvm.c and the operator
 * families, op_*.c (private to compiler/cpu): the builders of codegen_builders.c and
 * codegen_llvm.c under the names the emitters use, a node's arguments, and broadcast strides. */
#ifndef VTA_COMPILER_CPU_CODEGEN_LOCAL_H
#define VTA_COMPILER_CPU_CODEGEN_LOCAL_H

#include "compiler/cpu/codegen_llvm.h"

typedef cg_loop loop_t;
static inline LLVMValueRef C(cg *c, int64_t x) { return cg_i64(c, x); }
static inline LLVMValueRef F(cg *c, double x) { return cg_f32(c, x); }
static inline LLVMValueRef gep(cg *c, LLVMValueRef p, LLVMValueRef i) { return cg_gep(c, p, i); }
static inline LLVMValueRef load(cg *c, LLVMValueRef p, LLVMValueRef i) { return cg_load(c, p, i); }
static inline void store(cg *c, LLVMValueRef v, LLVMValueRef p, LLVMValueRef i) { cg_store(c, v, p, i); }
static inline LLVMValueRef add(cg *c, LLVMValueRef a, LLVMValueRef b) { return cg_add(c, a, b); }
static inline LLVMValueRef mul(cg *c, LLVMValueRef a, int64_t k) { return cg_mul(c, a, k); }
static inline LLVMValueRef loop_open(cg *c, loop_t *l, LLVMValueRef lo, LLVMValueRef hi) {
  return cg_loop_open(c, l, lo, hi, 1);
}
static inline void loop_close(cg *c, loop_t *l) { cg_loop_close(c, l); }
static inline LLVMValueRef call1(cg *c, const char *name, LLVMValueRef x) { return cg_fcall(c, name, 1, x, NULL); }
static inline LLVMValueRef call2(cg *c, const char *name, LLVMValueRef x, LLVMValueRef y) {
  return cg_fcall(c, name, 2, x, y);
}
static inline LLVMValueRef fmax_(cg *c, LLVMValueRef a, LLVMValueRef b) { return cg_fmax(c, a, b); }
static inline LLVMValueRef fmin_(cg *c, LLVMValueRef a, LLVMValueRef b) { return cg_fmin(c, a, b); }
static inline LLVMValueRef clampf(cg *c, LLVMValueRef x, double lo, double hi) { return cg_fclamp(c, x, lo, hi); }
static inline float attr_f(int n, const vta_attr *a, const char *name, float d) { return cg_attr_f(n, a, name, d); }

/* A node's arguments: the pointer of value v, of input k, of the first output. */
static inline LLVMValueRef argp_of(cg *c, int v) {
  for (int k = 0; k < c->n_args; k++)
    if (c->argv[k] == v) return c->argp[k];
  return NULL;
}
static inline const vta_gvalue *V(cg *c, int v) { return &c->g->values[v]; }
static inline LLVMValueRef in_p(cg *c, int k) { return argp_of(c, c->nd->in[k]); }
static inline LLVMValueRef out_p(cg *c) { return c->argp[c->n_args - c->nd->n_out]; }
static inline int has_in(cg *c, int k) { return c->nd->n_in > k && c->nd->in[k] >= 0; }

/* Broadcast strides of value v for an output of rank r (0 where broadcast). */
static inline void bstrides(const vta_gvalue *v, int r, int64_t *s) {
  int64_t acc = 1;
  for (int d = r - 1; d >= 0; d--) {
    int vd = d - (r - v->rank);
    s[d] = (vd < 0 || v->dims[vd] == 1) ? 0 : acc;
    if (vd >= 0) acc *= v->dims[vd];
  }
}

#endif
