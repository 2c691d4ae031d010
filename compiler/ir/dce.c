/* dce.c - dead-node removal: a node none of whose outputs reaches a graph output goes.
 *
 * The design idea: one backward walk over the topologically ordered nodes marks live values
 * (graph outputs first, then the inputs and epilogue arguments of every live node), so the
 * pass is linear and needs no use lists.
 */
#include <stdlib.h>

#include "compiler/compiler.h"

int vta_pass_dce(vta_graph *g, vta_error *err) {
  char *live = calloc((size_t)g->n_values + 1, 1);
  char *dead = calloc((size_t)g->n_nodes + 1, 1);
  if (!live || !dead) {
    free(live);
    free(dead);
    return vta_error_set(err, VTA_ERR_NOMEM, "out of memory in dead-node removal");
  }
  for (int i = 0; i < g->n_outputs; i++) live[g->outputs[i]] = 1;
  for (int i = g->n_nodes - 1; i >= 0; i--) {
    const vta_node *nd = &g->nodes[i];
    int used = 0;
    for (int k = 0; k < nd->n_out; k++)
      if (nd->out[k] >= 0 && live[nd->out[k]]) used = 1;
    if (!used) {
      dead[i] = 1;
      continue;
    }
    for (int k = 0; k < nd->n_in; k++)
      if (nd->in[k] >= 0) live[nd->in[k]] = 1;
    for (int k = 0; k < nd->n_epi; k++)
      if (nd->epi[k].arg >= 0) live[nd->epi[k].arg] = 1;
  }
  int rc = vta_graph_remove_nodes(g, dead, err);
  free(live);
  free(dead);
  return rc;
}
