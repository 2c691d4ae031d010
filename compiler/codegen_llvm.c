/* codegen_llvm.c - CPU code generation with the LLVM C API: one function per graph node.
 *
 * The design idea: every shape is known at compile time, so each node becomes straight loop
 * nests over constant bounds, with the index arithmetic folded into constants and the
 * boundary cases of convolutions and pools resolved here, in C, rather than tested per element
 * at run time (a convolution's kernel loops are unrolled and each (kh, kw) gets exact output
 * ranges, leaving an inner loop without conditions that the loop vectoriser turns into SIMD
 * code). A kernel is "void vta_k<N>(void **args)" (see compiler.h for the argument order); it
 * calls an internal body whose pointer parameters are noalias, so after inlining LLVM knows
 * the buffers do not overlap. Fused epilogues are applied in the same loop for elementwise
 * nodes and in one pass over the (cache-warm) output for the others. The module is optimised
 * with LLVMRunPasses("default<O3>") for the host CPU's name and features.
 */
#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"

typedef struct {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMBuilderRef b;
  LLVMTypeRef f32, i64, i32, i1, fptr, vptr;
  LLVMValueRef fn;
  LLVMBasicBlockRef entry;
  const vta_graph *g;
  const vta_node *nd;
  int node;
  int n_args;
  int argv[64];          /* value index of each kernel argument */
  LLVMValueRef argp[64]; /* its pointer inside the body */
  vta_error *err;
} cg;

/* ---- small builders ---- */

static LLVMValueRef C(cg *c, int64_t x) { return LLVMConstInt(c->i64, (unsigned long long)x, 1); }
static LLVMValueRef F(cg *c, double x) { return LLVMConstReal(c->f32, x); }

static LLVMValueRef gep(cg *c, LLVMValueRef p, LLVMValueRef i) {
  return LLVMBuildInBoundsGEP2(c->b, c->f32, p, &i, 1, "");
}
static LLVMValueRef load(cg *c, LLVMValueRef p, LLVMValueRef i) {
  return LLVMBuildLoad2(c->b, c->f32, gep(c, p, i), "");
}
static void store(cg *c, LLVMValueRef v, LLVMValueRef p, LLVMValueRef i) {
  LLVMBuildStore(c->b, v, gep(c, p, i));
}
static LLVMValueRef add(cg *c, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildNSWAdd(c->b, a, b, ""); }
static LLVMValueRef mul(cg *c, LLVMValueRef a, int64_t k) {
  if (k == 1) return a;
  return LLVMBuildNSWMul(c->b, a, C(c, k), "");
}

typedef struct {
  LLVMValueRef phi;
  LLVMBasicBlockRef header, exit;
} loop_t;

/* for (iv = lo; iv < hi; iv++): returns iv; the body follows until loop_close. */
static LLVMValueRef loop_open(cg *c, loop_t *l, LLVMValueRef lo, LLVMValueRef hi) {
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
  return l->phi;
}
static void loop_close(cg *c, loop_t *l) {
  LLVMBasicBlockRef cur = LLVMGetInsertBlock(c->b);
  LLVMValueRef next = LLVMBuildNSWAdd(c->b, l->phi, C(c, 1), "");
  LLVMBuildBr(c->b, l->header);
  LLVMAddIncoming(l->phi, &next, &cur, 1);
  LLVMPositionBuilderAtEnd(c->b, l->exit);
}

/* A float accumulator in the entry block (SROA turns it into SSA). */
static LLVMValueRef accum(cg *c) {
  LLVMBasicBlockRef cur = LLVMGetInsertBlock(c->b);
  LLVMValueRef first = LLVMGetFirstInstruction(c->entry);
  if (first)
    LLVMPositionBuilderBefore(c->b, first);
  else
    LLVMPositionBuilderAtEnd(c->b, c->entry);
  LLVMValueRef a = LLVMBuildAlloca(c->b, c->f32, "acc");
  LLVMPositionBuilderAtEnd(c->b, cur);
  return a;
}

static LLVMValueRef call1(cg *c, const char *name, LLVMValueRef x) {
  LLVMTypeRef ft = LLVMFunctionType(c->f32, &c->f32, 1, 0);
  LLVMValueRef f = LLVMGetNamedFunction(c->mod, name);
  if (!f) f = LLVMAddFunction(c->mod, name, ft);
  return LLVMBuildCall2(c->b, ft, f, &x, 1, "");
}
static LLVMValueRef call2(cg *c, const char *name, LLVMValueRef x, LLVMValueRef y) {
  LLVMTypeRef ps[2] = {c->f32, c->f32};
  LLVMTypeRef ft = LLVMFunctionType(c->f32, ps, 2, 0);
  LLVMValueRef f = LLVMGetNamedFunction(c->mod, name);
  if (!f) f = LLVMAddFunction(c->mod, name, ft);
  LLVMValueRef a[2] = {x, y};
  return LLVMBuildCall2(c->b, ft, f, a, 2, "");
}
static LLVMValueRef fmax_(cg *c, LLVMValueRef a, LLVMValueRef b) {
  return LLVMBuildSelect(c->b, LLVMBuildFCmp(c->b, LLVMRealOGT, a, b, ""), a, b, "");
}
static LLVMValueRef fmin_(cg *c, LLVMValueRef a, LLVMValueRef b) {
  return LLVMBuildSelect(c->b, LLVMBuildFCmp(c->b, LLVMRealOLT, a, b, ""), a, b, "");
}
static LLVMValueRef clampf(cg *c, LLVMValueRef x, double lo, double hi) {
  if (lo > -INFINITY) x = fmax_(c, x, F(c, lo));
  if (hi < INFINITY) x = fmin_(c, x, F(c, hi));
  return x;
}

static float attr_f(int n, const vta_attr *a, const char *name, float d) {
  for (int i = 0; i < n; i++)
    if (strcmp(a[i].name, name) == 0) return a[i].kind == VTA_ATTR_FLOAT ? a[i].f : (float)a[i].i;
  return d;
}

/* ---- elementwise scalar operations ---- */

static LLVMValueRef unary(cg *c, vta_gop op, int na, const vta_attr *at, LLVMValueRef x) {
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

static LLVMValueRef binary(cg *c, vta_gop op, LLVMValueRef a, LLVMValueRef x) {
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

/* ---- argument bookkeeping ---- */

/* Index among the kernel arguments of value v, first occurrence at or after from. */
static LLVMValueRef argp_of(cg *c, int v) {
  for (int k = 0; k < c->n_args; k++)
    if (c->argv[k] == v) return c->argp[k];
  return NULL;
}
static const vta_gvalue *V(cg *c, int v) { return &c->g->values[v]; }
static LLVMValueRef in_p(cg *c, int k) { return argp_of(c, c->nd->in[k]); }
static LLVMValueRef out_p(cg *c) { return c->argp[c->n_args - c->nd->n_out]; }

/* ---- pointwise loop nests with broadcasting ---- */

/* Broadcast strides of value v for an output of rank r / dims (0 where broadcast). */
static void bstrides(const vta_gvalue *v, int r, const int64_t *dims, int64_t *s) {
  int64_t acc = 1;
  for (int d = r - 1; d >= 0; d--) {
    int vd = d - (r - v->rank);
    if (vd < 0 || v->dims[vd] == 1) {
      s[d] = 0;
    } else {
      s[d] = acc;
    }
    if (vd >= 0) acc *= v->dims[vd];
  }
  (void)dims;
}

/* with_main: compute the node's own op on its inputs, then the epilogue; otherwise read the
 * output back and apply the epilogue in place. */
static void emit_pointwise(cg *c, int with_main) {
  const vta_node *nd = c->nd;
  const vta_gvalue *o = V(c, nd->out[0]);
  int nops = 0, opv[40];
  LLVMValueRef opp[40];
  if (with_main) {
    for (int k = 0; k < nd->n_in; k++) opv[nops] = nd->in[k], opp[nops++] = in_p(c, k);
  } else {
    opv[nops] = nd->out[0], opp[nops++] = out_p(c);
  }
  int first_epi = nops;
  for (int k = 0; k < nd->n_epi; k++)
    if (nd->epi[k].arg >= 0) opv[nops] = nd->epi[k].arg, opp[nops++] = argp_of(c, nd->epi[k].arg);
  /* Strides, then coalesce adjacent dimensions that are contiguous for every operand. */
  int r = o->rank;
  int64_t dims[VTA_MAX_RANK], st[41][VTA_MAX_RANK];
  for (int d = 0; d < r; d++) dims[d] = o->dims[d];
  for (int k = 0; k < nops; k++) bstrides(V(c, opv[k]), r, dims, st[k]);
  bstrides(o, r, dims, st[nops]);
  int64_t cd[VTA_MAX_RANK], cs[41][VTA_MAX_RANK];
  int cr = 0;
  for (int d = 0; d < r; d++) {
    if (dims[d] == 1) continue;
    int merge = cr > 0;
    for (int k = 0; k <= nops && merge; k++)
      if (cs[k][cr - 1] != st[k][d] * dims[d]) merge = 0;
    if (merge) {
      cd[cr - 1] *= dims[d];
      for (int k = 0; k <= nops; k++) cs[k][cr - 1] = st[k][d];
    } else {
      cd[cr] = dims[d];
      for (int k = 0; k <= nops; k++) cs[k][cr] = st[k][d];
      cr++;
    }
  }
  loop_t lp[VTA_MAX_RANK];
  LLVMValueRef off[41];
  for (int k = 0; k <= nops; k++) off[k] = C(c, 0);
  for (int d = 0; d < cr; d++) {
    LLVMValueRef i = loop_open(c, &lp[d], C(c, 0), C(c, cd[d]));
    for (int k = 0; k <= nops; k++)
      if (cs[k][d]) off[k] = add(c, off[k], mul(c, i, cs[k][d]));
  }
  LLVMValueRef x;
  if (with_main) {
    LLVMValueRef a = load(c, opp[0], off[0]);
    if (vta_op_kind(nd->op) == VTA_OPK_BINARY)
      x = binary(c, nd->op, a, load(c, opp[1], off[1]));
    else
      x = unary(c, nd->op, nd->n_attrs, nd->attrs, a);
  } else {
    x = load(c, opp[0], off[0]);
  }
  int ea = first_epi;
  for (int k = 0; k < nd->n_epi; k++) {
    const vta_epilogue *e = &nd->epi[k];
    if (e->arg >= 0) {
      LLVMValueRef y = load(c, opp[ea], off[ea]);
      ea++;
      x = e->arg_left ? binary(c, e->op, y, x) : binary(c, e->op, x, y);
    } else {
      x = unary(c, e->op, e->n_attrs, e->attrs, x);
    }
  }
  store(c, x, out_p(c), off[nops]);
  for (int d = cr - 1; d >= 0; d--) loop_close(c, &lp[d]);
}

/* ---- copies and data movement ---- */

static void emit_copy(cg *c) {
  loop_t l;
  LLVMValueRef i = loop_open(c, &l, C(c, 0), C(c, vta_value_count(V(c, c->nd->out[0]))));
  store(c, load(c, in_p(c, 0), i), out_p(c), i);
  loop_close(c, &l);
}

static void row_strides(const vta_gvalue *v, int64_t *s) {
  int64_t acc = 1;
  for (int d = v->rank - 1; d >= 0; d--) s[d] = acc, acc *= v->dims[d];
}

/* Generic gather: out[idx] = in[sum_d f_d(idx_d)] where f_d(i) = base[d] + i * step[d]. */
static void emit_affine(cg *c, const int64_t *base, const int64_t *step) {
  const vta_gvalue *o = V(c, c->nd->out[0]);
  int64_t os[VTA_MAX_RANK];
  row_strides(o, os);
  loop_t lp[VTA_MAX_RANK];
  int64_t b0 = 0;
  for (int d = 0; d < o->rank; d++) b0 += base[d];
  LLVMValueRef io = C(c, b0), oo = C(c, 0);
  for (int d = 0; d < o->rank; d++) {
    LLVMValueRef i = loop_open(c, &lp[d], C(c, 0), C(c, o->dims[d]));
    io = add(c, io, mul(c, i, step[d]));
    oo = add(c, oo, mul(c, i, os[d]));
  }
  store(c, load(c, in_p(c, 0), io), out_p(c), oo);
  for (int d = o->rank - 1; d >= 0; d--) loop_close(c, &lp[d]);
}

static void emit_transpose(cg *c) {
  const vta_gvalue *x = V(c, c->nd->in[0]);
  int64_t perm[VTA_MAX_RANK], xs[VTA_MAX_RANK], base[VTA_MAX_RANK] = {0}, step[VTA_MAX_RANK];
  vta_node_ints(c->nd, "perm", perm, VTA_MAX_RANK);
  row_strides(x, xs);
  for (int d = 0; d < x->rank; d++) step[d] = xs[perm[d]];
  emit_affine(c, base, step);
}

static void emit_slice(cg *c) {
  const vta_gvalue *x = V(c, c->nd->in[0]);
  int64_t st[VTA_MAX_RANK], sp[VTA_MAX_RANK], xs[VTA_MAX_RANK], base[VTA_MAX_RANK], step[VTA_MAX_RANK];
  vta_node_ints(c->nd, "starts", st, VTA_MAX_RANK);
  vta_node_ints(c->nd, "steps", sp, VTA_MAX_RANK);
  row_strides(x, xs);
  for (int d = 0; d < x->rank; d++) base[d] = st[d] * xs[d], step[d] = sp[d] * xs[d];
  emit_affine(c, base, step);
}

static void emit_concat(cg *c) {
  const vta_node *nd = c->nd;
  const vta_gvalue *o = V(c, nd->out[0]);
  int64_t axis = vta_node_int(nd, "axis", 0), inner = 1, outer = 1;
  for (int d = 0; d < axis; d++) outer *= o->dims[d];
  for (int d = (int)axis + 1; d < o->rank; d++) inner *= o->dims[d];
  int64_t at = 0, orow = o->dims[axis] * inner;
  for (int k = 0; k < nd->n_in; k++) {
    const vta_gvalue *x = V(c, nd->in[k]);
    int64_t row = x->dims[axis] * inner;
    if (row) {
      loop_t l1, l2;
      LLVMValueRef i = loop_open(c, &l1, C(c, 0), C(c, outer));
      LLVMValueRef j = loop_open(c, &l2, C(c, 0), C(c, row));
      store(c, load(c, in_p(c, k), add(c, mul(c, i, row), j)), out_p(c),
            add(c, add(c, mul(c, i, orow), C(c, at * inner)), j));
      loop_close(c, &l2);
      loop_close(c, &l1);
    }
    at += x->dims[axis];
  }
}

static void emit_pad(cg *c) {
  const vta_node *nd = c->nd;
  const vta_gvalue *x = V(c, nd->in[0]), *o = V(c, nd->out[0]);
  int64_t pads[2 * VTA_MAX_RANK], xs[VTA_MAX_RANK], os[VTA_MAX_RANK];
  vta_node_ints(nd, "pads", pads, 2 * VTA_MAX_RANK);
  row_strides(x, xs);
  row_strides(o, os);
  const char *mode = vta_node_string(nd, "mode", "constant");
  int constant = strcmp(mode, "constant") == 0, reflect = strcmp(mode, "reflect") == 0;
  int empty = vta_value_count(x) == 0;
  loop_t lp[VTA_MAX_RANK];
  LLVMValueRef io = C(c, 0), oo = C(c, 0), valid = LLVMConstInt(c->i1, 1, 0);
  for (int d = 0; d < o->rank; d++) {
    LLVMValueRef i = loop_open(c, &lp[d], C(c, 0), C(c, o->dims[d]));
    oo = add(c, oo, mul(c, i, os[d]));
    LLVMValueRef s = LLVMBuildNSWSub(c->b, i, C(c, pads[d]), "");
    int64_t n = x->dims[d];
    LLVMValueRef lo = LLVMBuildICmp(c->b, LLVMIntSLT, s, C(c, 0), "");
    LLVMValueRef hi = LLVMBuildICmp(c->b, LLVMIntSGE, s, C(c, n), "");
    if (constant) {
      valid = LLVMBuildAnd(c->b, valid, LLVMBuildNot(c->b, LLVMBuildOr(c->b, lo, hi, ""), ""), "");
      s = LLVMBuildSelect(c->b, lo, C(c, 0), s, "");
      s = LLVMBuildSelect(c->b, hi, C(c, n > 0 ? n - 1 : 0), s, "");
    } else if (reflect) {
      s = LLVMBuildSelect(c->b, lo, LLVMBuildNSWNeg(c->b, s, ""), s, "");
      s = LLVMBuildSelect(c->b, hi, LLVMBuildNSWSub(c->b, C(c, 2 * (n - 1)), s, ""), s, "");
    } else {
      s = LLVMBuildSelect(c->b, lo, C(c, 0), s, "");
      s = LLVMBuildSelect(c->b, hi, C(c, n - 1), s, "");
    }
    io = add(c, io, mul(c, s, xs[d]));
  }
  LLVMValueRef val = F(c, vta_node_float(nd, "value", 0.0f));
  LLVMValueRef y = empty ? val : load(c, in_p(c, 0), io);
  if (constant && !empty) y = LLVMBuildSelect(c->b, valid, y, val, "");
  store(c, y, out_p(c), oo);
  for (int d = o->rank - 1; d >= 0; d--) loop_close(c, &lp[d]);
}

/* A constant i64 or f32 table as a private global. */
static LLVMValueRef table_i64(cg *c, const int64_t *v, int64_t n) {
  LLVMValueRef *e = malloc(sizeof(LLVMValueRef) * (size_t)(n ? n : 1));
  for (int64_t i = 0; i < n; i++) e[i] = C(c, v[i]);
  LLVMValueRef init = LLVMConstArray(c->i64, e, (unsigned)n);
  free(e);
  LLVMValueRef gv = LLVMAddGlobal(c->mod, LLVMTypeOf(init), "tab");
  LLVMSetInitializer(gv, init);
  LLVMSetGlobalConstant(gv, 1);
  LLVMSetLinkage(gv, LLVMPrivateLinkage);
  return gv;
}
static LLVMValueRef table_f32(cg *c, const float *v, int64_t n) {
  LLVMValueRef *e = malloc(sizeof(LLVMValueRef) * (size_t)(n ? n : 1));
  for (int64_t i = 0; i < n; i++) e[i] = F(c, v[i]);
  LLVMValueRef init = LLVMConstArray(c->f32, e, (unsigned)n);
  free(e);
  LLVMValueRef gv = LLVMAddGlobal(c->mod, LLVMTypeOf(init), "tabf");
  LLVMSetInitializer(gv, init);
  LLVMSetGlobalConstant(gv, 1);
  LLVMSetLinkage(gv, LLVMPrivateLinkage);
  return gv;
}
static LLVMValueRef tload_i64(cg *c, LLVMValueRef tab, LLVMValueRef i) {
  LLVMValueRef p = LLVMBuildInBoundsGEP2(c->b, c->i64, tab, &i, 1, "");
  return LLVMBuildLoad2(c->b, c->i64, p, "");
}
static LLVMValueRef tload_f32(cg *c, LLVMValueRef tab, LLVMValueRef i) {
  return LLVMBuildLoad2(c->b, c->f32, gep(c, tab, i), "");
}

/* Source coordinate of output index i along an axis (ONNX Resize's transformations). */
static double resize_coord(const char *mode, int64_t i, int64_t in, int64_t out, float scale) {
  if (strcmp(mode, "asymmetric") == 0) return i / (double)scale;
  if (strcmp(mode, "align_corners") == 0) return out == 1 ? 0 : i * (double)(in - 1) / (double)(out - 1);
  if (strcmp(mode, "pytorch_half_pixel") == 0) return out > 1 ? (i + 0.5) / scale - 0.5 : 0;
  if (strcmp(mode, "tf_half_pixel_for_nn") == 0) return (i + 0.5) / scale;
  return (i + 0.5) / scale - 0.5; /* half_pixel */
}

static void emit_resize(cg *c) {
  const vta_node *nd = c->nd;
  const vta_gvalue *x = V(c, nd->in[0]), *o = V(c, nd->out[0]);
  const vta_attr *sa = vta_node_attr(nd, "scales");
  const char *ctm = vta_node_string(nd, "coordinate_transformation_mode", "half_pixel");
  const char *nm = vta_node_string(nd, "nearest_mode", "round_prefer_floor");
  int linear = strcmp(vta_node_string(nd, "mode", "nearest"), "linear") == 0;
  int64_t xs[VTA_MAX_RANK], os[VTA_MAX_RANK];
  row_strides(x, xs);
  row_strides(o, os);
  int r = o->rank;
  /* Per axis: index table (nearest) or lower index, upper index and weight (linear). */
  LLVMValueRef t0[VTA_MAX_RANK] = {0}, t1[VTA_MAX_RANK] = {0}, tw[VTA_MAX_RANK] = {0};
  for (int d = 0; d < r; d++) {
    int64_t n = o->dims[d], in = x->dims[d];
    float scale = sa->floats[d];
    if (n == in && scale == 1.0f) continue;
    int64_t *i0 = malloc(sizeof(int64_t) * (size_t)n), *i1 = malloc(sizeof(int64_t) * (size_t)n);
    float *w = malloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++) {
      double s = resize_coord(ctm, i, in, n, scale);
      if (linear) {
        if (s < 0) s = 0;
        if (s > in - 1) s = (double)(in - 1);
        int64_t a = (int64_t)floor(s);
        i0[i] = a;
        i1[i] = a + 1 < in ? a + 1 : in - 1;
        w[i] = (float)(s - a);
      } else {
        double f;
        if (strcmp(nm, "floor") == 0) f = floor(s);
        else if (strcmp(nm, "ceil") == 0) f = ceil(s);
        else if (strcmp(nm, "round_prefer_ceil") == 0) f = floor(s + 0.5);
        else f = (s - floor(s) == 0.5) ? floor(s) : floor(s + 0.5);
        int64_t a = (int64_t)f;
        i0[i] = a < 0 ? 0 : a >= in ? in - 1 : a;
      }
    }
    t0[d] = table_i64(c, i0, n);
    if (linear) t1[d] = table_i64(c, i1, n), tw[d] = table_f32(c, w, n);
    free(i0);
    free(i1);
    free(w);
  }
  loop_t lp[VTA_MAX_RANK];
  LLVMValueRef oo = C(c, 0), base = C(c, 0), idx[VTA_MAX_RANK];
  for (int d = 0; d < r; d++) {
    idx[d] = loop_open(c, &lp[d], C(c, 0), C(c, o->dims[d]));
    oo = add(c, oo, mul(c, idx[d], os[d]));
    if (!tw[d]) {
      LLVMValueRef s = t0[d] ? tload_i64(c, t0[d], idx[d]) : idx[d];
      base = add(c, base, mul(c, s, xs[d]));
    }
  }
  LLVMValueRef y;
  if (!linear) {
    y = load(c, in_p(c, 0), base);
  } else {
    /* Up to two interpolated axes (checked by shape inference: the last two). */
    int ax[2], na = 0;
    for (int d = 0; d < r; d++)
      if (tw[d]) ax[na++] = d;
    LLVMValueRef corner[4];
    for (int q = 0; q < (1 << na); q++) {
      LLVMValueRef off = base;
      for (int a = 0; a < na; a++) {
        LLVMValueRef s = tload_i64(c, (q >> a) & 1 ? t1[ax[a]] : t0[ax[a]], idx[ax[a]]);
        off = add(c, off, mul(c, s, xs[ax[a]]));
      }
      corner[q] = load(c, in_p(c, 0), off);
    }
    /* Straightforward form: interpolate along the first axis, then the second. */
    if (na == 1) {
      LLVMValueRef w = tload_f32(c, tw[ax[0]], idx[ax[0]]);
      y = LLVMBuildFAdd(c->b, corner[0], LLVMBuildFMul(c->b, w, LLVMBuildFSub(c->b, corner[1], corner[0], ""), ""), "");
    } else if (na == 2) {
      LLVMValueRef w0 = tload_f32(c, tw[ax[0]], idx[ax[0]]);
      LLVMValueRef w1 = tload_f32(c, tw[ax[1]], idx[ax[1]]);
      /* corner bit 0: axis ax[0] upper, bit 1: axis ax[1] upper */
      LLVMValueRef a0 = LLVMBuildFAdd(c->b, corner[0], LLVMBuildFMul(c->b, w1, LLVMBuildFSub(c->b, corner[2], corner[0], ""), ""), "");
      LLVMValueRef a1 = LLVMBuildFAdd(c->b, corner[1], LLVMBuildFMul(c->b, w1, LLVMBuildFSub(c->b, corner[3], corner[1], ""), ""), "");
      y = LLVMBuildFAdd(c->b, a0, LLVMBuildFMul(c->b, w0, LLVMBuildFSub(c->b, a1, a0, ""), ""), "");
    } else {
      y = load(c, in_p(c, 0), base);
    }
  }
  store(c, y, out_p(c), oo);
  for (int d = r - 1; d >= 0; d--) loop_close(c, &lp[d]);
}

/* ---- convolution ---- */

/* Range of output positions o in [0, n_out) with 0 <= o*s + k*d - p < n_in. */
static void out_range(int64_t n_out, int64_t n_in, int64_t s, int64_t off, int64_t *lo, int64_t *hi) {
  /* o*s + off >= 0  and  o*s + off <= n_in - 1 */
  int64_t l = 0;
  while (l < n_out && l * s + off < 0) l++;
  int64_t h = n_out;
  while (h > l && (h - 1) * s + off > n_in - 1) h--;
  *lo = l;
  *hi = h;
}

typedef struct {
  int64_t n, cin, h, w, m, oh, ow, kh, kw, sh, sw, dh, dw, pt, pl, group;
} conv_dims;

static conv_dims conv_get(cg *c, int transpose) {
  const vta_node *nd = c->nd;
  const vta_gvalue *x = V(c, nd->in[0]), *o = V(c, nd->out[0]), *w = V(c, nd->in[1]);
  conv_dims k;
  int two = x->rank == 4;
  int64_t st[2] = {1, 1}, dl[2] = {1, 1}, pd[4] = {0, 0, 0, 0};
  vta_node_ints(nd, "strides", st, 2);
  vta_node_ints(nd, "dilations", dl, 2);
  vta_node_ints(nd, "pads", pd, 4);
  k.n = x->dims[0];
  k.cin = x->dims[1];
  k.h = two ? x->dims[2] : 1;
  k.w = x->dims[two ? 3 : 2];
  k.m = o->dims[1];
  k.oh = two ? o->dims[2] : 1;
  k.ow = o->dims[two ? 3 : 2];
  k.kh = two ? w->dims[2] : 1;
  k.kw = w->dims[two ? 3 : 2];
  k.sh = two ? st[0] : 1;
  k.sw = two ? st[1] : st[0];
  k.dh = two ? dl[0] : 1;
  k.dw = two ? dl[1] : dl[0];
  k.pt = two ? pd[0] : 0;
  k.pl = two ? pd[1] : pd[0];
  k.group = vta_node_int(nd, "group", 1);
  (void)transpose;
  return k;
}

static void init_bias(cg *c, LLVMValueRef outp, LLVMValueRef m, int64_t plane) {
  LLVMValueRef bias = c->nd->n_in > 2 && c->nd->in[2] >= 0 ? in_p(c, 2) : NULL;
  LLVMValueRef bv = bias ? load(c, bias, m) : F(c, 0);
  loop_t l;
  LLVMValueRef i = loop_open(c, &l, C(c, 0), C(c, plane));
  store(c, bv, outp, i);
  loop_close(c, &l);
}

static void emit_conv(cg *c) {
  conv_dims k = conv_get(c, 0);
  int64_t cg_ = k.cin / k.group, mg = k.m / k.group, plane = k.oh * k.ow;
  LLVMValueRef X = in_p(c, 0), W = in_p(c, 1), O = out_p(c);
  loop_t ln, lg, lm, lc;
  LLVMValueRef n = loop_open(c, &ln, C(c, 0), C(c, k.n));
  LLVMValueRef g = loop_open(c, &lg, C(c, 0), C(c, k.group));
  LLVMValueRef mo = loop_open(c, &lm, C(c, 0), C(c, mg));
  LLVMValueRef m = add(c, mul(c, g, mg), mo);
  LLVMValueRef outp = gep(c, O, mul(c, add(c, mul(c, n, k.m), m), plane));
  init_bias(c, outp, m, plane);
  LLVMValueRef ci = loop_open(c, &lc, C(c, 0), C(c, cg_));
  LLVMValueRef ch = add(c, mul(c, g, cg_), ci);
  LLVMValueRef inp = gep(c, X, mul(c, add(c, mul(c, n, k.cin), ch), k.h * k.w));
  LLVMValueRef wbase = mul(c, add(c, mul(c, m, cg_), ci), k.kh * k.kw);
  for (int64_t kh = 0; kh < k.kh; kh++)
    for (int64_t kw = 0; kw < k.kw; kw++) {
      int64_t oh0, oh1, ow0, ow1;
      out_range(k.oh, k.h, k.sh, kh * k.dh - k.pt, &oh0, &oh1);
      out_range(k.ow, k.w, k.sw, kw * k.dw - k.pl, &ow0, &ow1);
      if (oh0 >= oh1 || ow0 >= ow1) continue;
      LLVMValueRef wv = load(c, W, add(c, wbase, C(c, kh * k.kw + kw)));
      loop_t lh, lw;
      LLVMValueRef oh = loop_open(c, &lh, C(c, oh0), C(c, oh1));
      LLVMValueRef irow = mul(c, add(c, mul(c, oh, k.sh), C(c, kh * k.dh - k.pt)), k.w);
      LLVMValueRef orow = mul(c, oh, k.ow);
      LLVMValueRef ow = loop_open(c, &lw, C(c, ow0), C(c, ow1));
      LLVMValueRef iv = load(c, inp, add(c, irow, add(c, mul(c, ow, k.sw), C(c, kw * k.dw - k.pl))));
      LLVMValueRef oi = add(c, orow, ow);
      LLVMValueRef acc = load(c, outp, oi);
      store(c, LLVMBuildFAdd(c->b, acc, LLVMBuildFMul(c->b, wv, iv, ""), ""), outp, oi);
      loop_close(c, &lw);
      loop_close(c, &lh);
    }
  loop_close(c, &lc);
  loop_close(c, &lm);
  loop_close(c, &lg);
  loop_close(c, &ln);
}

/* Input positions i in [0, n_in) with 0 <= i*s + off < n_out. */
static void in_range(int64_t n_in, int64_t n_out, int64_t s, int64_t off, int64_t *lo, int64_t *hi) {
  int64_t l = 0;
  while (l < n_in && l * s + off < 0) l++;
  int64_t h = n_in;
  while (h > l && (h - 1) * s + off > n_out - 1) h--;
  *lo = l;
  *hi = h;
}

static void emit_conv_transpose(cg *c) {
  conv_dims k = conv_get(c, 1);
  int64_t cg_ = k.cin / k.group, mg = k.m / k.group, plane = k.oh * k.ow;
  LLVMValueRef X = in_p(c, 0), W = in_p(c, 1), O = out_p(c);
  loop_t ln, lm, lg, lc, lmo;
  LLVMValueRef n = loop_open(c, &ln, C(c, 0), C(c, k.n));
  LLVMValueRef m = loop_open(c, &lm, C(c, 0), C(c, k.m));
  init_bias(c, gep(c, O, mul(c, add(c, mul(c, n, k.m), m), plane)), m, plane);
  loop_close(c, &lm);
  LLVMValueRef g = loop_open(c, &lg, C(c, 0), C(c, k.group));
  LLVMValueRef ci = loop_open(c, &lc, C(c, 0), C(c, cg_));
  LLVMValueRef ch = add(c, mul(c, g, cg_), ci);
  LLVMValueRef inp = gep(c, X, mul(c, add(c, mul(c, n, k.cin), ch), k.h * k.w));
  LLVMValueRef mo = loop_open(c, &lmo, C(c, 0), C(c, mg));
  LLVMValueRef mm = add(c, mul(c, g, mg), mo);
  LLVMValueRef outp = gep(c, O, mul(c, add(c, mul(c, n, k.m), mm), plane));
  LLVMValueRef wbase = mul(c, add(c, mul(c, ch, mg), mo), k.kh * k.kw);
  for (int64_t kh = 0; kh < k.kh; kh++)
    for (int64_t kw = 0; kw < k.kw; kw++) {
      int64_t ih0, ih1, iw0, iw1;
      in_range(k.h, k.oh, k.sh, kh * k.dh - k.pt, &ih0, &ih1);
      in_range(k.w, k.ow, k.sw, kw * k.dw - k.pl, &iw0, &iw1);
      if (ih0 >= ih1 || iw0 >= iw1) continue;
      LLVMValueRef wv = load(c, W, add(c, wbase, C(c, kh * k.kw + kw)));
      loop_t lh, lw;
      LLVMValueRef ih = loop_open(c, &lh, C(c, ih0), C(c, ih1));
      LLVMValueRef orow = mul(c, add(c, mul(c, ih, k.sh), C(c, kh * k.dh - k.pt)), k.ow);
      LLVMValueRef irow = mul(c, ih, k.w);
      LLVMValueRef iw = loop_open(c, &lw, C(c, iw0), C(c, iw1));
      LLVMValueRef iv = load(c, inp, add(c, irow, iw));
      LLVMValueRef oi = add(c, orow, add(c, mul(c, iw, k.sw), C(c, kw * k.dw - k.pl)));
      store(c, LLVMBuildFAdd(c->b, load(c, outp, oi), LLVMBuildFMul(c->b, wv, iv, ""), ""), outp, oi);
      loop_close(c, &lw);
      loop_close(c, &lh);
    }
  loop_close(c, &lmo);
  loop_close(c, &lc);
  loop_close(c, &lg);
  loop_close(c, &ln);
}

/* ---- matrix products ---- */

/* out[M,N] (+)= alpha * A[M,K] * B[K,N] with element strides (A: ars, acs; B: brs, bcs). */
static void emit_mm(cg *c, LLVMValueRef A, LLVMValueRef B, LLVMValueRef O, int64_t M, int64_t N,
                    int64_t K, int64_t ars, int64_t acs, int64_t brs, int64_t bcs, float alpha) {
  loop_t li, lj, lk, lj2;
  LLVMValueRef i = loop_open(c, &li, C(c, 0), C(c, M));
  LLVMValueRef row = gep(c, O, mul(c, i, N));
  LLVMValueRef j = loop_open(c, &lj, C(c, 0), C(c, N));
  store(c, F(c, 0), row, j);
  loop_close(c, &lj);
  LLVMValueRef k = loop_open(c, &lk, C(c, 0), C(c, K));
  LLVMValueRef a = load(c, A, add(c, mul(c, i, ars), mul(c, k, acs)));
  if (alpha != 1.0f) a = LLVMBuildFMul(c->b, a, F(c, alpha), "");
  LLVMValueRef brow = mul(c, k, brs);
  LLVMValueRef j2 = loop_open(c, &lj2, C(c, 0), C(c, N));
  LLVMValueRef bv = load(c, B, add(c, brow, mul(c, j2, bcs)));
  store(c, LLVMBuildFAdd(c->b, load(c, row, j2), LLVMBuildFMul(c->b, a, bv, ""), ""), row, j2);
  loop_close(c, &lj2);
  loop_close(c, &lk);
  loop_close(c, &li);
}

static void emit_gemm(cg *c) {
  const vta_node *nd = c->nd;
  const vta_gvalue *a = V(c, nd->in[0]), *o = V(c, nd->out[0]);
  int ta = (int)vta_node_int(nd, "transA", 0), tb = (int)vta_node_int(nd, "transB", 0);
  int64_t M = o->dims[0], N = o->dims[1], K = ta ? a->dims[0] : a->dims[1];
  float alpha = vta_node_float(nd, "alpha", 1.0f), beta = vta_node_float(nd, "beta", 1.0f);
  emit_mm(c, in_p(c, 0), in_p(c, 1), out_p(c), M, N, K, ta ? 1 : K, ta ? M : 1, tb ? 1 : N,
          tb ? K : 1, alpha);
  if (nd->n_in > 2 && nd->in[2] >= 0 && beta != 0.0f) {
    const vta_gvalue *cc = V(c, nd->in[2]);
    int64_t s[2];
    bstrides(cc, 2, o->dims, s);
    loop_t li, lj;
    LLVMValueRef i = loop_open(c, &li, C(c, 0), C(c, M));
    LLVMValueRef j = loop_open(c, &lj, C(c, 0), C(c, N));
    LLVMValueRef oi = add(c, mul(c, i, N), j);
    LLVMValueRef cv = load(c, in_p(c, 2), add(c, mul(c, i, s[0]), mul(c, j, s[1])));
    if (beta != 1.0f) cv = LLVMBuildFMul(c->b, cv, F(c, beta), "");
    store(c, LLVMBuildFAdd(c->b, load(c, out_p(c), oi), cv, ""), out_p(c), oi);
    loop_close(c, &lj);
    loop_close(c, &li);
  }
}

static void emit_matmul(cg *c) {
  const vta_node *nd = c->nd;
  const vta_gvalue *a = V(c, nd->in[0]), *b = V(c, nd->in[1]), *o = V(c, nd->out[0]);
  int64_t M = a->rank > 1 ? a->dims[a->rank - 2] : 1, K = a->dims[a->rank - 1];
  int64_t N = b->rank > 1 ? b->dims[b->rank - 1] : 1;
  /* Batch dimensions of the output and the broadcast strides of A's and B's batches. */
  int ob = o->rank - (a->rank > 1) - (b->rank > 1);
  int ab = a->rank > 2 ? a->rank - 2 : 0, bb = b->rank > 2 ? b->rank - 2 : 0;
  int64_t as[VTA_MAX_RANK] = {0}, bs[VTA_MAX_RANK] = {0}, acc = M * K, bacc = K * N;
  for (int d = ob - 1; d >= 0; d--) {
    int ad = d - (ob - ab), bd = d - (ob - bb);
    if (ad >= 0 && a->dims[ad] != 1) as[d] = acc;
    if (ad >= 0) acc *= a->dims[ad];
    if (bd >= 0 && b->dims[bd] != 1) bs[d] = bacc;
    if (bd >= 0) bacc *= b->dims[bd];
  }
  loop_t lp[VTA_MAX_RANK];
  LLVMValueRef ao = C(c, 0), bo = C(c, 0), oo = C(c, 0);
  int64_t ostride = M * N;
  int64_t os[VTA_MAX_RANK];
  for (int d = ob - 1; d >= 0; d--) os[d] = ostride, ostride *= o->dims[d];
  for (int d = 0; d < ob; d++) {
    LLVMValueRef i = loop_open(c, &lp[d], C(c, 0), C(c, o->dims[d]));
    ao = add(c, ao, mul(c, i, as[d]));
    bo = add(c, bo, mul(c, i, bs[d]));
    oo = add(c, oo, mul(c, i, os[d]));
  }
  emit_mm(c, gep(c, in_p(c, 0), ao), gep(c, in_p(c, 1), bo), gep(c, out_p(c), oo), M, N, K, K, 1,
          N, 1, 1.0f);
  for (int d = ob - 1; d >= 0; d--) loop_close(c, &lp[d]);
}

/* ---- pools, softmax ---- */

static void emit_pool(cg *c) {
  const vta_node *nd = c->nd;
  int is_max = nd->op == VTA_GOP_MAXPOOL || nd->op == VTA_GOP_GLOBAL_MAXPOOL;
  const vta_gvalue *x = V(c, nd->in[0]), *o = V(c, nd->out[0]);
  int64_t nc = x->dims[0] * x->dims[1];
  LLVMValueRef X = in_p(c, 0), O = out_p(c);
  if (nd->op == VTA_GOP_GLOBAL_AVGPOOL || nd->op == VTA_GOP_GLOBAL_MAXPOOL) {
    int64_t plane = vta_value_count(x) / (nc ? nc : 1);
    LLVMValueRef acc = accum(c);
    loop_t l1, l2;
    LLVMValueRef i = loop_open(c, &l1, C(c, 0), C(c, nc));
    LLVMBuildStore(c->b, F(c, is_max ? -INFINITY : 0), acc);
    LLVMValueRef j = loop_open(c, &l2, C(c, 0), C(c, plane));
    LLVMValueRef v = load(c, X, add(c, mul(c, i, plane), j));
    LLVMValueRef a = LLVMBuildLoad2(c->b, c->f32, acc, "");
    LLVMBuildStore(c->b, is_max ? fmax_(c, a, v) : LLVMBuildFAdd(c->b, a, v, ""), acc);
    loop_close(c, &l2);
    LLVMValueRef r = LLVMBuildLoad2(c->b, c->f32, acc, "");
    if (!is_max) r = LLVMBuildFDiv(c->b, r, F(c, (double)plane), "");
    store(c, r, O, i);
    loop_close(c, &l1);
    return;
  }
  int two = x->rank == 4;
  int64_t H = two ? x->dims[2] : 1, W = x->dims[two ? 3 : 2];
  int64_t OH = two ? o->dims[2] : 1, OW = o->dims[two ? 3 : 2];
  int64_t ks[2] = {1, 1}, st[2] = {1, 1}, dl[2] = {1, 1}, pd[4] = {0, 0, 0, 0};
  vta_node_ints(nd, "kernel_shape", ks, 2);
  vta_node_ints(nd, "strides", st, 2);
  vta_node_ints(nd, "dilations", dl, 2);
  vta_node_ints(nd, "pads", pd, 4);
  int64_t KH = two ? ks[0] : 1, KW = two ? ks[1] : ks[0], SH = two ? st[0] : 1, SW = two ? st[1] : st[0];
  int64_t DH = two ? dl[0] : 1, DW = two ? dl[1] : dl[0], PT = two ? pd[0] : 0, PL = two ? pd[1] : pd[0];
  int64_t PB = two ? pd[2] : 0, PR = two ? pd[3] : pd[1];
  int include_pad = (int)vta_node_int(nd, "count_include_pad", 0);
  LLVMValueRef acc = accum(c), cnt = accum(c);
  loop_t l1, l2, l3, l4, l5;
  LLVMValueRef i = loop_open(c, &l1, C(c, 0), C(c, nc));
  LLVMValueRef oh = loop_open(c, &l2, C(c, 0), C(c, OH));
  LLVMValueRef ow = loop_open(c, &l3, C(c, 0), C(c, OW));
  LLVMBuildStore(c->b, F(c, is_max ? -INFINITY : 0), acc);
  LLVMBuildStore(c->b, F(c, 0), cnt);
  LLVMValueRef kh = loop_open(c, &l4, C(c, 0), C(c, KH));
  LLVMValueRef ih = add(c, LLVMBuildNSWSub(c->b, mul(c, oh, SH), C(c, PT), ""), mul(c, kh, DH));
  LLVMValueRef kw = loop_open(c, &l5, C(c, 0), C(c, KW));
  LLVMValueRef iw = add(c, LLVMBuildNSWSub(c->b, mul(c, ow, SW), C(c, PL), ""), mul(c, kw, DW));
  LLVMValueRef ok = LLVMBuildAnd(c->b, LLVMBuildICmp(c->b, LLVMIntULT, ih, C(c, H), ""),
                                 LLVMBuildICmp(c->b, LLVMIntULT, iw, C(c, W), ""), "");
  LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "in");
  LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "next");
  LLVMBuildCondBr(c->b, ok, yes, next);
  LLVMPositionBuilderAtEnd(c->b, yes);
  LLVMValueRef v = load(c, X, add(c, mul(c, i, H * W), add(c, mul(c, ih, W), iw)));
  LLVMValueRef a = LLVMBuildLoad2(c->b, c->f32, acc, "");
  LLVMBuildStore(c->b, is_max ? fmax_(c, a, v) : LLVMBuildFAdd(c->b, a, v, ""), acc);
  LLVMBuildStore(c->b, LLVMBuildFAdd(c->b, LLVMBuildLoad2(c->b, c->f32, cnt, ""), F(c, 1), ""), cnt);
  LLVMBuildBr(c->b, next);
  LLVMPositionBuilderAtEnd(c->b, next);
  loop_close(c, &l5);
  loop_close(c, &l4);
  LLVMValueRef r = LLVMBuildLoad2(c->b, c->f32, acc, "");
  if (!is_max) {
    LLVMValueRef div;
    if (include_pad) {
      /* The window clipped to the padded input (matters only with ceil_mode). */
      LLVMValueRef h0 = LLVMBuildNSWSub(c->b, mul(c, oh, SH), C(c, PT), "");
      LLVMValueRef w0 = LLVMBuildNSWSub(c->b, mul(c, ow, SW), C(c, PL), "");
      LLVMValueRef h1 = add(c, h0, C(c, (KH - 1) * DH + 1)), w1 = add(c, w0, C(c, (KW - 1) * DW + 1));
      LLVMValueRef hmax = C(c, H + PB), wmax = C(c, W + PR);
      h1 = LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntSGT, h1, hmax, ""), hmax, h1, "");
      w1 = LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntSGT, w1, wmax, ""), wmax, w1, "");
      LLVMValueRef hn = LLVMBuildSDiv(c->b, LLVMBuildNSWSub(c->b, LLVMBuildNSWSub(c->b, h1, h0, ""), C(c, 1), ""), C(c, DH), "");
      LLVMValueRef wn = LLVMBuildSDiv(c->b, LLVMBuildNSWSub(c->b, LLVMBuildNSWSub(c->b, w1, w0, ""), C(c, 1), ""), C(c, DW), "");
      LLVMValueRef n = LLVMBuildNSWMul(c->b, add(c, hn, C(c, 1)), add(c, wn, C(c, 1)), "");
      div = LLVMBuildSIToFP(c->b, n, c->f32, "");
    } else {
      div = LLVMBuildLoad2(c->b, c->f32, cnt, "");
    }
    r = LLVMBuildFDiv(c->b, r, div, "");
  }
  store(c, r, O, add(c, mul(c, i, OH * OW), add(c, mul(c, oh, OW), ow)));
  loop_close(c, &l3);
  loop_close(c, &l2);
  loop_close(c, &l1);
}

static void emit_softmax(cg *c) {
  const vta_node *nd = c->nd;
  const vta_gvalue *x = V(c, nd->in[0]);
  int64_t axis = vta_node_int(nd, "axis", 1), outer = 1, len = 1, inner = 1;
  int coerce = (int)vta_node_int(nd, "coerce", 0);
  for (int d = 0; d < x->rank; d++) {
    if (d < axis) outer *= x->dims[d];
    else if (d == axis || coerce) len *= x->dims[d];
    else inner *= x->dims[d];
  }
  LLVMValueRef X = in_p(c, 0), O = out_p(c), mx = accum(c), sum = accum(c);
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

/* ---- per-node driver ---- */

int vta_codegen_supports(vta_gop op) {
  switch (op) {
  case VTA_GOP_SHAPE: case VTA_GOP_CAST: case VTA_GOP_GATHER: case VTA_GOP_CONSTANT_OF_SHAPE:
  case VTA_GOP_BATCHNORM: case VTA_GOP_DROPOUT:
    return 0;
  default:
    return 1;
  }
}

int vta_node_needs_code(const vta_graph *g, int i) {
  return g->nodes[i].n_out == 1 && vta_value_count(&g->values[g->nodes[i].out[0]]) > 0;
}

int vta_kernel_args(const vta_graph *g, int i, int *values) {
  const vta_node *nd = &g->nodes[i];
  int n = 0;
  for (int k = 0; k < nd->n_in; k++)
    if (nd->in[k] >= 0) values[n++] = nd->in[k];
  for (int k = 0; k < nd->n_epi; k++)
    if (nd->epi[k].arg >= 0) values[n++] = nd->epi[k].arg;
  for (int k = 0; k < nd->n_out; k++) values[n++] = nd->out[k];
  return n;
}

void vta_kernel_name(int node, char *buf, size_t size) { snprintf(buf, size, "vta_k%d", node); }

static int emit_node(cg *c, int i) {
  const vta_node *nd = &c->g->nodes[i];
  c->nd = nd;
  c->node = i;
  c->n_args = vta_kernel_args(c->g, i, c->argv);
  /* body(float *noalias p0, ...) */
  LLVMTypeRef ps[64];
  for (int k = 0; k < c->n_args; k++) ps[k] = c->fptr;
  LLVMTypeRef bt = LLVMFunctionType(LLVMVoidTypeInContext(c->ctx), ps, (unsigned)c->n_args, 0);
  char name[64], bname[80];
  vta_kernel_name(i, name, sizeof name);
  snprintf(bname, sizeof bname, "%s.body", name);
  LLVMValueRef body = LLVMAddFunction(c->mod, bname, bt);
  LLVMSetLinkage(body, LLVMInternalLinkage);
  unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
  unsigned nocapture = LLVMGetEnumAttributeKindForName("nocapture", 9);
  for (int k = 0; k < c->n_args; k++) {
    /* A value passed twice (Add(x, x)) is read-only, so noalias still holds for writes. */
    LLVMAddAttributeAtIndex(body, (unsigned)(k + 1), LLVMCreateEnumAttribute(c->ctx, noalias, 0));
    LLVMAddAttributeAtIndex(body, (unsigned)(k + 1), LLVMCreateEnumAttribute(c->ctx, nocapture, 0));
    c->argp[k] = LLVMGetParam(body, (unsigned)k);
  }
  c->fn = body;
  c->entry = LLVMAppendBasicBlockInContext(c->ctx, body, "entry");
  LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(c->ctx, body, "start");
  LLVMPositionBuilderAtEnd(c->b, start);
  int pointwise_done = 0;
  switch (nd->op) {
  case VTA_GOP_CONV: emit_conv(c); break;
  case VTA_GOP_CONV_TRANSPOSE: emit_conv_transpose(c); break;
  case VTA_GOP_GEMM: emit_gemm(c); break;
  case VTA_GOP_MATMUL: emit_matmul(c); break;
  case VTA_GOP_MAXPOOL: case VTA_GOP_AVGPOOL: case VTA_GOP_GLOBAL_AVGPOOL: case VTA_GOP_GLOBAL_MAXPOOL:
    emit_pool(c);
    break;
  case VTA_GOP_SOFTMAX: emit_softmax(c); break;
  case VTA_GOP_CONCAT: emit_concat(c); break;
  case VTA_GOP_RESHAPE: case VTA_GOP_FLATTEN: case VTA_GOP_SQUEEZE: case VTA_GOP_UNSQUEEZE:
    emit_copy(c);
    break;
  case VTA_GOP_TRANSPOSE: emit_transpose(c); break;
  case VTA_GOP_PAD: emit_pad(c); break;
  case VTA_GOP_SLICE: emit_slice(c); break;
  case VTA_GOP_RESIZE: emit_resize(c); break;
  default:
    if (vta_op_kind(nd->op) == VTA_OPK_OTHER) {
      char w[300];
      return vta_error_set(c->err, VTA_ERR_UNSUPPORTED, "%s: no CPU code generator for %s",
                           vta_node_describe(c->g, i, w, sizeof w), vta_op_name(nd->op));
    }
    emit_pointwise(c, 1);
    pointwise_done = 1;
  }
  if (nd->n_epi && !pointwise_done) emit_pointwise(c, 0);
  LLVMBuildRetVoid(c->b);
  LLVMPositionBuilderAtEnd(c->b, c->entry);
  LLVMBuildBr(c->b, start);
  /* The exported wrapper: void vta_kN(void **args). */
  LLVMTypeRef wt = LLVMFunctionType(LLVMVoidTypeInContext(c->ctx), &c->vptr, 1, 0);
  LLVMValueRef wf = LLVMAddFunction(c->mod, name, wt);
  LLVMBasicBlockRef wb = LLVMAppendBasicBlockInContext(c->ctx, wf, "entry");
  LLVMPositionBuilderAtEnd(c->b, wb);
  LLVMValueRef av = LLVMGetParam(wf, 0), cargs[64];
  for (int k = 0; k < c->n_args; k++) {
    LLVMValueRef idx = C(c, k);
    LLVMValueRef p = LLVMBuildInBoundsGEP2(c->b, c->fptr, av, &idx, 1, "");
    cargs[k] = LLVMBuildLoad2(c->b, c->fptr, p, "");
  }
  LLVMBuildCall2(c->b, bt, body, cargs, (unsigned)c->n_args, "");
  LLVMBuildRetVoid(c->b);
  return 0;
}

static LLVMTargetMachineRef host_machine(const char *triple_or_null, vta_error *err) {
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  LLVMInitializeNativeAsmParser();
  char *triple = triple_or_null ? strdup(triple_or_null) : LLVMGetDefaultTargetTriple();
  LLVMTargetRef t;
  char *msg = NULL;
  if (LLVMGetTargetFromTriple(triple, &t, &msg)) {
    vta_error_set(err, VTA_ERR_UNSUPPORTED, "no LLVM target for triple '%s': %s", triple,
                  msg ? msg : "");
    LLVMDisposeMessage(msg);
    if (triple_or_null) free(triple); else LLVMDisposeMessage(triple);
    return NULL;
  }
  /* The host's CPU name may be "generic" on this machine: pass the features explicitly, or the
   * vectoriser would target baseline SSE2 only. A foreign triple gets a generic CPU. */
  char *cpu = triple_or_null ? NULL : LLVMGetHostCPUName();
  char *feat = triple_or_null ? NULL : LLVMGetHostCPUFeatures();
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine(t, triple, cpu ? cpu : "generic", feat ? feat : "",
                                                    LLVMCodeGenLevelAggressive, LLVMRelocPIC,
                                                    LLVMCodeModelDefault);
  if (cpu) LLVMDisposeMessage(cpu);
  if (feat) LLVMDisposeMessage(feat);
  if (triple_or_null) free(triple); else LLVMDisposeMessage(triple);
  if (!tm) vta_error_set(err, VTA_ERR_UNSUPPORTED, "cannot create an LLVM target machine");
  return tm;
}

int vta_codegen_llvm(const vta_graph *g, vta_cpu_code *out, vta_error *err) {
  memset(out, 0, sizeof *out);
  cg c;
  memset(&c, 0, sizeof c);
  c.g = g;
  c.err = err;
  c.ctx = LLVMContextCreate();
  c.mod = LLVMModuleCreateWithNameInContext("vta_cpu", c.ctx);
  c.b = LLVMCreateBuilderInContext(c.ctx);
  c.f32 = LLVMFloatTypeInContext(c.ctx);
  c.i64 = LLVMInt64TypeInContext(c.ctx);
  c.i32 = LLVMInt32TypeInContext(c.ctx);
  c.i1 = LLVMInt1TypeInContext(c.ctx);
  c.fptr = LLVMPointerType(c.f32, 0);
  c.vptr = LLVMPointerType(c.fptr, 0);
  int rc = 0;
  LLVMTargetMachineRef tm = host_machine(NULL, err);
  if (!tm) rc = -1;
  if (!rc) {
    char *triple = LLVMGetTargetMachineTriple(tm);
    LLVMSetTarget(c.mod, triple);
    LLVMDisposeMessage(triple);
    LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(c.mod, td);
    LLVMDisposeTargetData(td);
  }
  for (int i = 0; i < g->n_nodes && !rc; i++)
    if (vta_node_needs_code(g, i)) rc = emit_node(&c, i);
  char *msg = NULL;
  if (!rc && LLVMVerifyModule(c.mod, LLVMReturnStatusAction, &msg)) {
    rc = vta_error_set(err, VTA_ERR_INVALID, "internal error: generated LLVM IR is invalid: %.600s", msg);
  }
  if (msg) LLVMDisposeMessage(msg);
  if (!rc) {
    /* Every function gets the host CPU so that codegen in the JIT matches the optimiser. */
    char *cpu = LLVMGetHostCPUName(), *feat = LLVMGetHostCPUFeatures();
    for (LLVMValueRef f = LLVMGetFirstFunction(c.mod); f; f = LLVMGetNextFunction(f)) {
      if (LLVMIsDeclaration(f)) continue;
      LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                              LLVMCreateStringAttribute(c.ctx, "target-cpu", 10, cpu, (unsigned)strlen(cpu)));
      LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                              LLVMCreateStringAttribute(c.ctx, "target-features", 15, feat, (unsigned)strlen(feat)));
    }
    LLVMDisposeMessage(cpu);
    LLVMDisposeMessage(feat);
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMPassBuilderOptionsSetLoopVectorization(po, 1);
    LLVMPassBuilderOptionsSetSLPVectorization(po, 1);
    LLVMErrorRef e = LLVMRunPasses(c.mod, "default<O3>", tm, po);
    LLVMDisposePassBuilderOptions(po);
    if (e) {
      char *m = LLVMGetErrorMessage(e);
      rc = vta_error_set(err, VTA_ERR_INVALID, "LLVM optimisation failed: %s", m);
      LLVMDisposeErrorMessage(m);
    }
  }
  if (!rc) {
    LLVMMemoryBufferRef mb = LLVMWriteBitcodeToMemoryBuffer(c.mod);
    size_t n = LLVMGetBufferSize(mb);
    out->bitcode = malloc(n ? n : 1);
    if (!out->bitcode) {
      rc = vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
    } else {
      memcpy(out->bitcode, LLVMGetBufferStart(mb), n);
      out->size = n;
    }
    LLVMDisposeMemoryBuffer(mb);
  }
  if (tm) LLVMDisposeTargetMachine(tm);
  LLVMDisposeBuilder(c.b);
  LLVMDisposeModule(c.mod);
  LLVMContextDispose(c.ctx);
  return rc;
}

void vta_cpu_code_free(vta_cpu_code *code) {
  free(code->bitcode);
  code->bitcode = NULL;
  code->size = 0;
}

static LLVMModuleRef load_module(LLVMContextRef ctx, const vta_cpu_code *code, vta_error *err) {
  LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRangeCopy((const char *)code->bitcode,
                                                                     code->size, "vta_cpu");
  LLVMModuleRef m = NULL;
  if (LLVMParseBitcodeInContext2(ctx, mb, &m)) {
    vta_error_set(err, VTA_ERR_INVALID, "the CPU code is not valid LLVM bitcode");
    m = NULL;
  }
  LLVMDisposeMemoryBuffer(mb);
  return m;
}

int vta_codegen_emit_obj(const vta_cpu_code *code, const char *triple, const char *path,
                         vta_error *err) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = load_module(ctx, code, err);
  int rc = m ? 0 : -1;
  LLVMTargetMachineRef tm = NULL;
  if (!rc && triple) {
    LLVMInitializeAllTargetInfos();
    LLVMInitializeAllTargets();
    LLVMInitializeAllTargetMCs();
    LLVMInitializeAllAsmPrinters();
    /* Host CPU attributes would not fit a foreign target. */
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
      LLVMRemoveStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, "target-cpu", 10);
      LLVMRemoveStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, "target-features", 15);
    }
    LLVMSetTarget(m, triple);
  }
  if (!rc && !(tm = host_machine(triple, err))) rc = -1;
  if (!rc) {
    char *msg = NULL;
    if (LLVMTargetMachineEmitToFile(tm, m, (char *)path, LLVMObjectFile, &msg)) {
      rc = vta_error_set(err, VTA_ERR_IO, "%s: cannot write the object file: %s", path, msg ? msg : "");
    }
    if (msg) LLVMDisposeMessage(msg);
  }
  if (tm) LLVMDisposeTargetMachine(tm);
  if (m) LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return rc;
}

int vta_codegen_emit_ll(const vta_cpu_code *code, const char *path, vta_error *err) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = load_module(ctx, code, err);
  int rc = m ? 0 : -1;
  if (!rc) {
    char *msg = NULL;
    if (LLVMPrintModuleToFile(m, path, &msg))
      rc = vta_error_set(err, VTA_ERR_IO, "%s: cannot write LLVM IR: %s", path, msg ? msg : "");
    if (msg) LLVMDisposeMessage(msg);
    LLVMDisposeModule(m);
  }
  LLVMContextDispose(ctx);
  return rc;
}
