/* fold.c - constant folding: nodes whose inputs are all constants are evaluated at compile
 * time (eval.c) and disappear; their outputs become constants.
 *
 * The design idea: shape inference already evaluates what it can on the way (it has to, for
 * shape computations); this pass repeats the evaluation after other passes have created new
 * constant-only nodes, then removes every node whose outputs are all constants.
 */
#include <stdlib.h>

#include "compiler/compiler.h"

int vta_pass_fold(vta_graph *g, vta_error *err) {
  char *dead = calloc((size_t)g->n_nodes + 1, 1);
  if (!dead) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory in constant folding");
  for (int i = 0; i < g->n_nodes; i++) {
    if (vta_eval_can(g, i) && vta_eval_node(g, i, err)) {
      free(dead);
      return -1;
    }
    const vta_node *nd = &g->nodes[i];
    int all = 1;
    for (int k = 0; k < nd->n_out; k++)
      if (nd->out[k] >= 0 && !g->values[nd->out[k]].data) all = 0;
    dead[i] = (char)all;
  }
  int rc = vta_graph_remove_nodes(g, dead, err);
  free(dead);
  return rc;
}
