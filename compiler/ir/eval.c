/* eval.c - evaluates nodes whose inputs are all constants at compile time, with the reference
 * of their operator's family (compiler/cpu/op_<family>.c, the eval slot).
 *
 * The design idea: constant folding needs a second implementation of some operators, and it
 * should be the obvious one: every element computed through its multi-index, in double
 * precision for arithmetic, for any element type. It covers what models compute from
 * constants - shape arithmetic (Shape, Gather, Concat, Slice, Cast, Unsqueeze ...), and
 * elementwise arithmetic on weights. Heavy operators (Conv, MatMul) have no reference; a node
 * of that kind stays in the graph and runs through the generated code. This file decides
 * which nodes fold and gives the reference their outputs' storage.
 */
#include "compiler/compiler.h"

int vta_eval_can(const vta_graph *g, int i) {
  const vta_node *nd = &g->nodes[i];
  const vta_op_family *fam = vta_op_family_of(nd->op);
  if (!fam || !fam->eval || (fam->folds && !fam->folds(nd->op))) return 0;
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
  const vta_op_family *fam = vta_op_family_of(nd->op);
  if (!fam || !fam->eval)
    return vta_error_set(err, VTA_ERR_INVALID, "internal error: node %d (%s) has no reference", i,
                         vta_op_name(nd->op));
  for (int k = 0; k < nd->n_out; k++) {
    vta_gvalue *ok = &g->values[nd->out[k]], shape = *ok;
    if (vta_value_set_const(ok, shape.dtype, shape.rank, shape.dims))
      return vta_error_set(err, VTA_ERR_NOMEM, "out of memory folding node %d", i);
  }
  return fam->eval(g, i, err);
}
