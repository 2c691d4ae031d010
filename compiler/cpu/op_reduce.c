/* op_reduce.c - the Reduce family (ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd,
 * ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp, ReduceSumSquare) and ArgMax/ArgMin: their
 * shape rule, their reference and their CPU code, in that order.
 *
 * The design idea: every member is one walk over the input with the kept dimensions outside
 * and the reduced ones inside, an accumulator per output element, a step per input element
 * and a final map (Mean divides, L2 takes the root, LogSum the logarithm). The reference and
 * the generated code share that description (the tables below), so they cannot disagree on
 * what an operator means. Accumulation is in double for every element type: exact for
 * integers up to 2^53 and closer to the true value than float32 for floats; ArgMax/ArgMin keep
 * the element's own value and its index along the axis.
 *
 * Canonical attributes after the shape rule: axes (sorted, non-negative; the reduced
 * dimensions, all of them when the model gave none), keepdims, and noop_with_empty_axes = 1
 * so that running the rule again on its own output changes nothing; ArgMax/ArgMin: axis
 * (non-negative), keepdims, select_last_index.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/cpu/codegen_llvm.h"

/* ---- what each operator computes ---- */

typedef enum { ACC_SUM, ACC_PROD, ACC_MAX, ACC_MIN } acc_kind;
typedef enum { PRE_NONE, PRE_ABS, PRE_SQUARE, PRE_EXP } pre_kind;
typedef enum { POST_NONE, POST_MEAN, POST_SQRT, POST_LOG } post_kind;

typedef struct {
  vta_gop op;
  acc_kind acc;
  pre_kind pre;   /* applied to each element before accumulation */
  post_kind post; /* applied to the accumulator */
} reduce_def;

static const reduce_def DEFS[] = {
    {VTA_GOP_REDUCE_SUM, ACC_SUM, PRE_NONE, POST_NONE},
    {VTA_GOP_REDUCE_MEAN, ACC_SUM, PRE_NONE, POST_MEAN},
    {VTA_GOP_REDUCE_MAX, ACC_MAX, PRE_NONE, POST_NONE},
    {VTA_GOP_REDUCE_MIN, ACC_MIN, PRE_NONE, POST_NONE},
    {VTA_GOP_REDUCE_PROD, ACC_PROD, PRE_NONE, POST_NONE},
    {VTA_GOP_REDUCE_L1, ACC_SUM, PRE_ABS, POST_NONE},
    {VTA_GOP_REDUCE_L2, ACC_SUM, PRE_SQUARE, POST_SQRT},
    {VTA_GOP_REDUCE_LOG_SUM, ACC_SUM, PRE_NONE, POST_LOG},
    /* log(sum(exp(x - m))) + m with m the largest element: computed in two walks. */
    {VTA_GOP_REDUCE_LOG_SUM_EXP, ACC_SUM, PRE_EXP, POST_LOG},
    {VTA_GOP_REDUCE_SUM_SQUARE, ACC_SUM, PRE_SQUARE, POST_NONE},
};

static const reduce_def *def_of(vta_gop op) {
  for (size_t k = 0; k < sizeof DEFS / sizeof DEFS[0]; k++)
    if (DEFS[k].op == op) return &DEFS[k];
  return NULL;
}
static int is_arg(vta_gop op) { return op == VTA_GOP_ARGMAX || op == VTA_GOP_ARGMIN; }

static double acc_init(acc_kind a) {
  switch (a) {
  case ACC_PROD: return 1;
  case ACC_MAX: return -INFINITY;
  case ACC_MIN: return INFINITY;
  default: return 0;
  }
}

/* ---- shape rule ---- */

static int numeric(vta_dtype t) { return t != VTA_DT_BOOL; }

static int reduce_infer(vta_graph *g, int i, vta_error *err) {
  vta_node *nd = &g->nodes[i];
  vta_gvalue *x = vta_op_in(g, i, 0);
  if (!x || x->rank < 0) return vta_op_error(g, i, err, VTA_ERR_INVALID, "input 0 has no known shape");
  if (!numeric(x->dtype))
    return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "%s input: reductions take numbers",
                        vta_dtype_name(x->dtype));
  int rank = x->rank;
  int red[VTA_MAX_RANK] = {0};
  int64_t keep = vta_node_int(nd, "keepdims", 1);
  if (keep != 0 && keep != 1) return vta_op_error(g, i, err, VTA_ERR_INVALID, "keepdims %" PRId64 " is not 0 or 1", keep);
  if (is_arg(nd->op)) {
    int64_t axis = vta_node_int(nd, "axis", 0), last = vta_node_int(nd, "select_last_index", 0);
    if (axis < -rank || axis >= rank || rank == 0)
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "axis %" PRId64 " is out of range for rank %d", axis, rank);
    if (axis < 0) axis += rank;
    if (x->dims[axis] == 0)
      return vta_op_error(g, i, err, VTA_ERR_INVALID, "axis %" PRId64 " has no elements: no index to return", axis);
    red[axis] = 1;
    if (vta_attrs_set_int(&nd->n_attrs, &nd->attrs, "axis", axis) ||
        vta_attrs_set_int(&nd->n_attrs, &nd->attrs, "select_last_index", last != 0))
      return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  } else {
    int64_t axes[VTA_MAX_RANK + 1];
    int n_axes;
    if (nd->n_in > 1 && nd->in[1] >= 0) {
      /* Opset 13's ReduceSum (and opset 18's others) take the axes as an input. */
      const vta_gvalue *a = vta_op_in(g, i, 1);
      n_axes = vta_const_ints(a, axes, VTA_MAX_RANK + 1);
      if (n_axes < 0)
        return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED,
                            "the axes input '%s' must be a constant integer tensor of at most %d elements "
                            "known at compile time", a->name, VTA_MAX_RANK);
      nd->in[1] = -1;
      nd->n_in = 1;
    } else {
      n_axes = vta_node_ints(nd, "axes", axes, VTA_MAX_RANK + 1);
      if (n_axes > VTA_MAX_RANK)
        return vta_op_error(g, i, err, VTA_ERR_INVALID, "more axes than the input's rank %d", rank);
    }
    int noop = (int)vta_node_int(nd, "noop_with_empty_axes", 0);
    if (n_axes <= 0) {
      n_axes = 0;
      if (!noop)
        for (int d = 0; d < rank; d++) axes[n_axes++] = d;
    }
    for (int k = 0; k < n_axes; k++) {
      int64_t a = axes[k];
      if (a < -rank || a >= rank)
        return vta_op_error(g, i, err, VTA_ERR_INVALID, "axis %" PRId64 " is out of range for rank %d", a, rank);
      if (a < 0) a += rank;
      if (red[a]) return vta_op_error(g, i, err, VTA_ERR_INVALID, "axis %" PRId64 " is given twice", axes[k]);
      red[a] = 1;
    }
    int64_t canon[VTA_MAX_RANK];
    int n = 0;
    for (int d = 0; d < rank; d++)
      if (red[d]) canon[n++] = d;
    if (vta_attrs_set_ints(&nd->n_attrs, &nd->attrs, "axes", n, canon) ||
        vta_attrs_set_int(&nd->n_attrs, &nd->attrs, "noop_with_empty_axes", 1))
      return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  }
  if (vta_attrs_set_int(&nd->n_attrs, &nd->attrs, "keepdims", keep)) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  int64_t dims[VTA_MAX_RANK];
  int r = 0;
  for (int d = 0; d < rank; d++)
    if (!red[d]) dims[r++] = x->dims[d];
    else if (keep) dims[r++] = 1;
  vta_op_set_out(g, i, 0, is_arg(nd->op) ? VTA_DT_I64 : x->dtype, r, dims);
  return 0;
}

/* ---- the walk both halves share ---- */

/* The input's dimensions split into kept ones (outer, in order) and reduced ones (inner), with
 * the input strides of each and the output stride of each kept one. */
typedef struct {
  int nk, nr;
  int64_t kdim[VTA_MAX_RANK], kstride[VTA_MAX_RANK], ostride[VTA_MAX_RANK];
  int64_t rdim[VTA_MAX_RANK], rstride[VTA_MAX_RANK];
  int64_t n_out, n_red;
} walk;

static void walk_of(const vta_graph *g, const vta_node *nd, walk *w) {
  const vta_gvalue *x = &g->values[nd->in[0]];
  int red[VTA_MAX_RANK] = {0};
  if (is_arg(nd->op)) {
    red[vta_node_int(nd, "axis", 0)] = 1;
  } else {
    int64_t axes[VTA_MAX_RANK];
    int n = vta_node_ints(nd, "axes", axes, VTA_MAX_RANK);
    for (int k = 0; k < n; k++) red[axes[k]] = 1;
  }
  int64_t st[VTA_MAX_RANK], acc = 1;
  for (int d = x->rank - 1; d >= 0; d--) st[d] = acc, acc *= x->dims[d];
  memset(w, 0, sizeof *w);
  w->n_out = w->n_red = 1;
  for (int d = 0; d < x->rank; d++) {
    if (red[d]) {
      w->rdim[w->nr] = x->dims[d], w->rstride[w->nr++] = st[d];
      w->n_red *= x->dims[d];
    } else {
      w->kdim[w->nk] = x->dims[d], w->kstride[w->nk++] = st[d];
      w->n_out *= x->dims[d];
    }
  }
  acc = 1;
  for (int k = w->nk - 1; k >= 0; k--) w->ostride[k] = acc, acc *= w->kdim[k];
}

static double pre(pre_kind p, double v, double m) {
  switch (p) {
  case PRE_ABS: return fabs(v);
  case PRE_SQUARE: return v * v;
  case PRE_EXP: return exp(v - m);
  default: return v;
  }
}
static double step(acc_kind a, double acc, double v) {
  switch (a) {
  case ACC_PROD: return acc * v;
  case ACC_MAX: return v > acc || isnan(v) ? v : acc;
  case ACC_MIN: return v < acc || isnan(v) ? v : acc;
  default: return acc + v;
  }
}
static double post(post_kind p, double acc, int64_t n, double m) {
  switch (p) {
  case POST_MEAN: return acc / (double)n;
  case POST_SQRT: return sqrt(acc);
  case POST_LOG: return log(acc) + m;
  default: return acc;
  }
}

/* ---- reference ---- */

/* Offset in the input of flat index j of a dimension list (row-major over dims). */
static int64_t offset_of(int64_t j, int n, const int64_t *dims, const int64_t *strides) {
  int64_t off = 0;
  for (int d = n - 1; d >= 0; d--) {
    off += (j % dims[d]) * strides[d];
    j /= dims[d];
  }
  return off;
}

static int reduce_eval(vta_graph *g, int i, vta_error *err) {
  (void)err;
  const vta_node *nd = &g->nodes[i];
  const vta_gvalue *x = &g->values[nd->in[0]];
  vta_gvalue *o = &g->values[nd->out[0]];
  walk w;
  walk_of(g, nd, &w);
  for (int64_t j = 0; j < w.n_out; j++) {
    int64_t base = offset_of(j, w.nk, w.kdim, w.kstride);
    if (is_arg(nd->op)) {
      int last = (int)vta_node_int(nd, "select_last_index", 0), mx = nd->op == VTA_GOP_ARGMAX;
      double best = vta_elem_get(x, base);
      int64_t at = 0;
      for (int64_t r = 1; r < w.n_red; r++) {
        double v = vta_elem_get(x, base + r * w.rstride[0]);
        if (mx ? (v > best || (last && v == best)) : (v < best || (last && v == best))) best = v, at = r;
      }
      ((int64_t *)o->data)[j] = at;
      continue;
    }
    const reduce_def *D = def_of(nd->op);
    double m = 0;
    if (D->pre == PRE_EXP) {
      m = -INFINITY;
      for (int64_t r = 0; r < w.n_red; r++) m = step(ACC_MAX, m, vta_elem_get(x, base + offset_of(r, w.nr, w.rdim, w.rstride)));
      if (isinf(m)) m = 0;
    }
    double acc = acc_init(D->acc);
    for (int64_t r = 0; r < w.n_red; r++)
      acc = step(D->acc, acc, pre(D->pre, vta_elem_get(x, base + offset_of(r, w.nr, w.rdim, w.rstride)), m));
    vta_elem_put(o, j, post(D->post, acc, w.n_red, m));
  }
  return 0;
}

static int reduce_supports(const vta_graph *g, int i) {
  const vta_node *nd = &g->nodes[i];
  vta_dtype t = g->values[nd->in[0]].dtype;
  return t == VTA_DT_F32 || t == VTA_DT_F64 || t == VTA_DT_I64 || t == VTA_DT_I32 || t == VTA_DT_I8 ||
         t == VTA_DT_U8;
}

/* ---- code generator ---- */

static LLVMValueRef f64c(cg *c, double v) { return LLVMConstReal(LLVMDoubleTypeInContext(c->ctx), v); }
static LLVMValueRef call_f64(cg *c, const char *name, LLVMValueRef v) {
  return cg_call(c, name, LLVMDoubleTypeInContext(c->ctx), 1, &v);
}

/* Opens loops over dims[0..n) and returns the offset sum(iv * strides) added to base. */
static LLVMValueRef open_loops(cg *c, cg_loop *l, int n, const int64_t *dims, const int64_t *strides,
                               LLVMValueRef base) {
  LLVMValueRef off = base;
  for (int d = 0; d < n; d++) {
    LLVMValueRef iv = cg_loop_open(c, &l[d], cg_i64(c, 0), cg_i64(c, dims[d]), 1);
    off = cg_add(c, off, cg_mul(c, iv, strides[d]));
  }
  return off;
}
static void close_loops(cg *c, cg_loop *l, int n) {
  for (int d = n - 1; d >= 0; d--) cg_loop_close(c, &l[d]);
}

static LLVMValueRef emit_step(cg *c, acc_kind a, LLVMValueRef acc, LLVMValueRef v) {
  LLVMBuilderRef b = c->b;
  switch (a) {
  case ACC_PROD: return LLVMBuildFMul(b, acc, v, "");
  case ACC_MAX: case ACC_MIN: {
    /* As the reference: a NaN element wins, a NaN accumulator stays. */
    LLVMValueRef better = LLVMBuildOr(b, LLVMBuildFCmp(b, a == ACC_MAX ? LLVMRealOGT : LLVMRealOLT, v, acc, ""),
                                      LLVMBuildFCmp(b, LLVMRealUNO, v, v, ""), "");
    return LLVMBuildSelect(b, better, v, acc, "");
  }
  default: return LLVMBuildFAdd(b, acc, v, "");
  }
}

static int reduce_emit(cg *c) {
  const vta_node *nd = c->nd;
  const vta_gvalue *x = &c->g->values[nd->in[0]];
  vta_dtype xt = x->dtype, ot = c->g->values[nd->out[0]].dtype;
  LLVMTypeRef f64 = LLVMDoubleTypeInContext(c->ctx);
  int vec = c->vec;
  c->vec = 0;
  walk w;
  walk_of(c->g, nd, &w);
  LLVMValueRef X = cg_in(c, 0), O = cg_out(c, 0);
  cg_loop kl[VTA_MAX_RANK], rl[VTA_MAX_RANK];
  LLVMValueRef oo = cg_i64(c, 0);
  LLVMValueRef base = cg_i64(c, 0);
  for (int d = 0; d < w.nk; d++) {
    LLVMValueRef iv = cg_loop_open(c, &kl[d], cg_i64(c, 0), cg_i64(c, w.kdim[d]), 1);
    base = cg_add(c, base, cg_mul(c, iv, w.kstride[d]));
    oo = cg_add(c, oo, cg_mul(c, iv, w.ostride[d]));
  }
  LLVMValueRef acc = cg_slot(c, f64);
  if (is_arg(nd->op)) {
    int last = (int)vta_node_int(nd, "select_last_index", 0), mx = nd->op == VTA_GOP_ARGMAX;
    LLVMValueRef at = cg_slot(c, c->i64);
    LLVMBuildStore(c->b, cg_to_f64(c, cg_tload(c, X, xt, base), xt), acc);
    LLVMBuildStore(c->b, cg_i64(c, 0), at);
    cg_loop l;
    LLVMValueRef r = cg_loop_open(c, &l, cg_i64(c, 1), cg_i64(c, w.n_red), 1);
    LLVMValueRef v = cg_to_f64(c, cg_tload(c, X, xt, cg_add(c, base, cg_mul(c, r, w.rstride[0]))), xt);
    LLVMValueRef best = LLVMBuildLoad2(c->b, f64, acc, "");
    LLVMRealPredicate p = mx ? (last ? LLVMRealOGE : LLVMRealOGT) : (last ? LLVMRealOLE : LLVMRealOLT);
    LLVMValueRef better = LLVMBuildFCmp(c->b, p, v, best, "");
    LLVMBuildStore(c->b, LLVMBuildSelect(c->b, better, v, best, ""), acc);
    LLVMBuildStore(c->b, LLVMBuildSelect(c->b, better, r, LLVMBuildLoad2(c->b, c->i64, at, ""), ""), at);
    cg_loop_close(c, &l);
    cg_tstore(c, LLVMBuildLoad2(c->b, c->i64, at, ""), O, VTA_DT_I64, oo);
  } else {
    const reduce_def *D = def_of(nd->op);
    LLVMValueRef m = f64c(c, 0);
    if (D->pre == PRE_EXP) {
      LLVMBuildStore(c->b, f64c(c, -INFINITY), acc);
      LLVMValueRef off = open_loops(c, rl, w.nr, w.rdim, w.rstride, base);
      LLVMValueRef v = cg_to_f64(c, cg_tload(c, X, xt, off), xt);
      LLVMBuildStore(c->b, emit_step(c, ACC_MAX, LLVMBuildLoad2(c->b, f64, acc, ""), v), acc);
      close_loops(c, rl, w.nr);
      m = LLVMBuildLoad2(c->b, f64, acc, "");
      LLVMValueRef fin = LLVMBuildFCmp(c->b, LLVMRealONE, call_f64(c, "llvm.fabs.f64", m), f64c(c, INFINITY), "");
      m = LLVMBuildSelect(c->b, fin, m, f64c(c, 0), "");
    }
    LLVMBuildStore(c->b, f64c(c, acc_init(D->acc)), acc);
    LLVMValueRef off = open_loops(c, rl, w.nr, w.rdim, w.rstride, base);
    LLVMValueRef v = cg_to_f64(c, cg_tload(c, X, xt, off), xt);
    switch (D->pre) {
    case PRE_ABS: v = call_f64(c, "llvm.fabs.f64", v); break;
    case PRE_SQUARE: v = LLVMBuildFMul(c->b, v, v, ""); break;
    case PRE_EXP: v = call_f64(c, "llvm.exp.f64", LLVMBuildFSub(c->b, v, m, "")); break;
    default: break;
    }
    LLVMBuildStore(c->b, emit_step(c, D->acc, LLVMBuildLoad2(c->b, f64, acc, ""), v), acc);
    close_loops(c, rl, w.nr);
    LLVMValueRef r = LLVMBuildLoad2(c->b, f64, acc, "");
    switch (D->post) {
    case POST_MEAN: r = LLVMBuildFDiv(c->b, r, f64c(c, (double)w.n_red), ""); break;
    case POST_SQRT: r = call_f64(c, "llvm.sqrt.f64", r); break;
    case POST_LOG: r = LLVMBuildFAdd(c->b, call_f64(c, "llvm.log.f64", r), m, ""); break;
    default: break;
    }
    cg_tstore(c, cg_from_f64(c, r, ot), O, ot, oo);
  }
  close_loops(c, kl, w.nk);
  c->vec = vec;
  return 0;
}

const vta_op_family vta_family_reduce = {"op_reduce.c", reduce_infer, reduce_eval,
                                         reduce_supports, reduce_emit, NULL};
