/* eval.c - evaluates nodes whose inputs are all constants, in plain C, at compile time.
 *
 * The design idea: constant folding needs a second implementation of some operators, and it
 * should be the obvious one: every element computed through its multi-index, in double
 * precision for arithmetic, for any element type. It covers what models compute from
 * constants - shape arithmetic (Shape, Gather, Concat, Slice, Cast, Unsqueeze ...), and
 * elementwise arithmetic on weights. Heavy operators (Conv, MatMul) are not evaluated here; a
 * node of that kind stays in the graph and runs through the generated code.
 */
#include <math.h>

#include "compiler/compiler.h"

static double get(const vta_gvalue *v, int64_t i) { return vta_elem_get(v, i); }
static void put(vta_gvalue *v, int64_t i, double x) { vta_elem_put(v, i, x); }

static int is_evaluable(vta_gop op) {
  switch (op) {
  case VTA_GOP_QUANTIZE_LINEAR: case VTA_GOP_DEQUANTIZE_LINEAR:
    return 1;
  default:
    return 0;
  }
}

int vta_eval_can(const vta_graph *g, int i) {
  const vta_node *nd = &g->nodes[i];
  const vta_op_family *fam = vta_op_family_of(nd->op);
  if (fam ? !fam->eval || (fam->folds && !fam->folds(nd->op)) : !is_evaluable(nd->op)) return 0;
  /* Several outputs only where the reference writes every one (Split of a constant, TopK);
   * the other families' references write their first output only. */
  int multi = nd->op == VTA_GOP_SPLIT || nd->op == VTA_GOP_TOPK;
  if ((nd->n_out != 1 && !multi) || nd->n_out < 1 || nd->n_epi) return 0;
  for (int k = 0; k < nd->n_out; k++) {
    if (nd->out[k] < 0) return 0;
    const vta_gvalue *o = &g->values[nd->out[k]];
    if (o->rank < 0 || o->data) return 0;
  }
  /* Keep large elementwise results computed at run time only if they are huge; weights
   * folded at compile time are the point of this pass, so there is no size limit here. */
  /* Shape and Size need only their input's shape. */
  if (nd->op == VTA_GOP_SHAPE || nd->op == VTA_GOP_SIZE) return nd->n_in >= 1 && nd->in[0] >= 0 && g->values[nd->in[0]].rank >= 0;
  for (int k = 0; k < nd->n_in; k++)
    if (nd->in[k] >= 0 && !g->values[nd->in[k]].data) return 0;
  return 1;
}

int vta_eval_node(vta_graph *g, int i, vta_error *err) {
  vta_node *nd = &g->nodes[i];
  vta_gvalue *o = &g->values[nd->out[0]];
  vta_gvalue *x = nd->n_in > 0 && nd->in[0] >= 0 ? &g->values[nd->in[0]] : NULL;
  for (int k = 0; k < nd->n_out; k++) {
    vta_gvalue *ok = &g->values[nd->out[k]], shape = *ok;
    if (vta_value_set_const(ok, shape.dtype, shape.rank, shape.dims))
      return vta_error_set(err, VTA_ERR_NOMEM, "out of memory folding node %d", i);
  }
  int64_t n = vta_value_count(o), idx[VTA_MAX_RANK];
  const vta_op_family *fam = vta_op_family_of(nd->op);
  if (fam) return fam->eval(g, i, err);
  switch (nd->op) {
  case VTA_GOP_QUANTIZE_LINEAR:
  case VTA_GOP_DEQUANTIZE_LINEAR: {
    /* As the generated code: float32 arithmetic, round half to even, saturation. */
    const vta_gvalue *sc = &g->values[nd->in[1]];
    const vta_gvalue *zp = nd->n_in > 2 && nd->in[2] >= 0 ? &g->values[nd->in[2]] : NULL;
    int64_t axis = vta_node_int(nd, "axis", 1), per = vta_value_count(sc) > 1;
    for (int64_t k = 0; k < n; k++) {
      int64_t ch = 0;
      if (per) {
        vta_value_unravel(o, k, idx);
        ch = idx[axis];
      }
      float s = ((const float *)sc->data)[ch];
      int64_t z = zp ? (int64_t)get(zp, vta_value_count(zp) > 1 ? ch : 0) : 0;
      if (nd->op == VTA_GOP_DEQUANTIZE_LINEAR) {
        ((float *)o->data)[k] = (float)((int64_t)get(x, k) - z) * s;
      } else {
        float q = nearbyintf((float)get(x, k) / s);
        double lo = o->dtype == VTA_DT_I8 ? -128 : 0, hi = o->dtype == VTA_DT_I8 ? 127 : 255;
        double y = isnan(q) ? 0 : (double)q + (double)z;
        put(o, k, y < lo ? lo : y > hi ? hi : y);
      }
    }
    return 0;
  }
  default:
    return vta_error_set(err, VTA_ERR_INVALID, "internal error: node %d (%s) has no reference", i,
                         vta_op_name(nd->op));
  }
}
