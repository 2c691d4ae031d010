/* op_elementwise.c - the machinery the elementwise families share (op_family.h): the
 * broadcasting shape rule, the reference walk and the generated walk over the output.
 *
 * The design idea: an elementwise operator is fully described by one function of its input
 * elements, so the families write only that function (twice: C for the reference, LLVM for the
 * code) and everything else is here once. The generated walk is a loop nest over the output's
 * dimensions whose sizes are constants; each input is addressed through its broadcast strides
 * (0 along a broadcast dimension), its element converted to double, the result converted to
 * the output's type. This is plain scalar code: the vectorised float32 path of the core
 * operators (codegen_llvm.c) stays where speed matters.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "compiler/cpu/op_family.h"

int ew_infer(vta_graph *g, int i, vta_error *err, int lo, int hi, int out_type, unsigned allowed) {
  const vta_node *nd = &g->nodes[i];
  int rank = 0;
  for (int k = lo; k < hi; k++) {
    const vta_gvalue *v = vta_op_in(g, i, k);
    if (!v) return vta_op_error(g, i, err, VTA_ERR_INVALID, "input %d is missing", k);
    if (v->rank < 0) return vta_op_error(g, i, err, VTA_ERR_INVALID, "input %d ('%s') has no known shape", k, v->name);
    if (!(allowed & (1u << v->dtype)))
      return vta_op_error(g, i, err, VTA_ERR_UNSUPPORTED, "input %d ('%s') is %s, which %s does not take", k,
                          v->name, vta_dtype_name(v->dtype), vta_op_name(nd->op));
    if (v->rank > rank) rank = v->rank;
  }
  /* Numpy's rule, right-aligned: every input's dimension is the output's or 1. */
  int64_t dims[VTA_MAX_RANK];
  for (int d = 0; d < rank; d++) dims[d] = 1;
  for (int k = lo; k < hi; k++) {
    const vta_gvalue *v = vta_op_in(g, i, k);
    for (int d = 0; d < v->rank; d++) {
      int64_t *o = &dims[rank - v->rank + d], x = v->dims[d];
      if (*o == 1) *o = x;
      else if (x != 1 && x != *o)
        return vta_op_error(g, i, err, VTA_ERR_INVALID, "input %d ('%s'): dimension %d is %" PRId64
                            ", which does not broadcast with %" PRId64, k, v->name, d, x, *o);
    }
  }
  vta_dtype t = out_type == EW_OUT_BOOL ? VTA_DT_BOOL
              : out_type == EW_OUT_I64 ? VTA_DT_I64
                                       : vta_op_in(g, i, out_type)->dtype;
  vta_op_set_out(g, i, 0, t, rank, dims);
  return 0;
}

/* Broadcast strides of v for an output of rank r. */
static void bstrides(const vta_gvalue *v, int r, int64_t *s) {
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
}

static int eval_walk(vta_graph *g, int i, ew_ref_fn f, ew_ref_typed_fn ft);
int ew_eval(vta_graph *g, int i, ew_ref_fn f) { return eval_walk(g, i, f, NULL); }
int ew_eval_typed(vta_graph *g, int i, ew_ref_typed_fn f) { return eval_walk(g, i, NULL, f); }

static int eval_walk(vta_graph *g, int i, ew_ref_fn f, ew_ref_typed_fn ft) {
  const vta_node *nd = &g->nodes[i];
  vta_gvalue *o = &g->values[nd->out[0]];
  const vta_gvalue *in[16];
  int64_t st[16][VTA_MAX_RANK];
  int n = 0;
  for (int k = 0; k < nd->n_in && n < 16; k++)
    if (nd->in[k] >= 0) {
      in[n] = &g->values[nd->in[k]];
      bstrides(in[n], o->rank, st[n]);
      n++;
    }
  int64_t count = vta_value_count(o), idx[VTA_MAX_RANK] = {0};
  double x[16];
  for (int64_t j = 0; j < count; j++) {
    int64_t rem = j;
    for (int d = o->rank - 1; d >= 0; d--) {
      idx[d] = rem % o->dims[d];
      rem /= o->dims[d];
    }
    for (int k = 0; k < n; k++) {
      int64_t off = 0;
      for (int d = 0; d < o->rank; d++) off += idx[d] * st[k][d];
      x[k] = vta_elem_get(in[k], off);
    }
    vta_elem_put(o, j, f ? f(nd, x) : ft(nd, o->dtype, x));
  }
  return 0;
}

int ew_scalar_walk(const vta_graph *g, int i, int forced) {
  const vta_node *nd = &g->nodes[i];
  if (nd->n_epi || nd->n_out != 1) return 0;
  int all_f32 = g->values[nd->out[0]].dtype == VTA_DT_F32 && !forced;
  for (int k = 0; k < nd->n_in; k++) {
    if (nd->in[k] < 0) continue;
    vta_dtype t = g->values[nd->in[k]].dtype;
    if (t == VTA_DT_BOOL) return 0;
    all_f32 &= t == VTA_DT_F32;
  }
  return !all_f32;
}

static int emit_walk(cg *c, ew_cg_fn f, int raw);
int ew_emit(cg *c, ew_cg_fn f) { return emit_walk(c, f, 0); }
int ew_emit_raw(cg *c, ew_cg_fn f) { return emit_walk(c, f, 1); }

static int emit_walk(cg *c, ew_cg_fn f, int raw) {
  const vta_node *nd = c->nd;
  const vta_gvalue *o = &c->g->values[nd->out[0]];
  const vta_gvalue *in[16];
  LLVMValueRef ptr[16];
  int64_t st[16][VTA_MAX_RANK], ost[VTA_MAX_RANK], acc = 1;
  int n = 0, vec = c->vec;
  c->vec = 0;
  for (int k = 0; k < nd->n_in && n < 16; k++)
    if (nd->in[k] >= 0) {
      in[n] = &c->g->values[nd->in[k]];
      ptr[n] = cg_in(c, k);
      bstrides(in[n], o->rank, st[n]);
      n++;
    }
  for (int d = o->rank - 1; d >= 0; d--) ost[d] = acc, acc *= o->dims[d];
  cg_loop l[VTA_MAX_RANK];
  LLVMValueRef off[16], oo = cg_i64(c, 0);
  for (int k = 0; k < n; k++) off[k] = cg_i64(c, 0);
  for (int d = 0; d < o->rank; d++) {
    LLVMValueRef iv = cg_loop_open(c, &l[d], cg_i64(c, 0), cg_i64(c, o->dims[d]), 1);
    oo = cg_add(c, oo, cg_mul(c, iv, ost[d]));
    for (int k = 0; k < n; k++)
      if (st[k][d]) off[k] = cg_add(c, off[k], cg_mul(c, iv, st[k][d]));
  }
  LLVMValueRef x[16];
  for (int k = 0; k < n; k++) {
    x[k] = cg_tload(c, ptr[k], in[k]->dtype, off[k]);
    if (!raw) x[k] = cg_to_f64(c, x[k], in[k]->dtype);
  }
  LLVMValueRef y = f(c, nd, x);
  cg_tstore(c, raw ? y : cg_from_f64(c, y, o->dtype), cg_out(c, 0), o->dtype, oo);
  for (int d = o->rank - 1; d >= 0; d--) cg_loop_close(c, &l[d]);
  c->vec = vec;
  return 0;
}

LLVMTypeRef cg_f64_type(cg *c) { return LLVMDoubleTypeInContext(c->ctx); }
LLVMValueRef cg_f64(cg *c, double v) { return LLVMConstReal(cg_f64_type(c), v); }
LLVMValueRef cg_call_f64(cg *c, const char *name, int n, LLVMValueRef *x) {
  return cg_call(c, name, cg_f64_type(c), n, x);
}
LLVMValueRef cg_bool_f64(cg *c, LLVMValueRef i1) { return LLVMBuildUIToFP(c->b, i1, cg_f64_type(c), ""); }
