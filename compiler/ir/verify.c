/* verify.c - the IR checker run between passes (always in test builds, on request otherwise).
 *
 * The design idea: state the IR's invariants once and check them after every pass, so a pass
 * that breaks one is caught at the pass, not three stages later in generated code: values
 * defined once and before use (topological order), every used value typed and shaped,
 * producer links right, epilogues only on single-output nodes and shape-preserving.
 */
#include <stdlib.h>

#include "compiler/compiler.h"

int vta_graph_verify(const vta_graph *g, vta_error *err) {
  char w[300];
  char *defined = calloc((size_t)g->n_values + 1, 1);
  if (!defined) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory in the verifier");
  int rc = 0;
#define FAIL(...)                                                    \
  do {                                                               \
    rc = vta_error_set(err, VTA_ERR_INVALID, "verifier: " __VA_ARGS__); \
    goto out;                                                        \
  } while (0)
  for (int v = 0; v < g->n_values; v++) {
    const vta_gvalue *val = &g->values[v];
    /* A constant still linked to its producer was evaluated and awaits removal by fold. */
    if ((val->data && val->producer < 0) || val->is_input) {
      if (val->data && val->is_input) FAIL("value '%s' is both an input and a constant", val->name);
      if (val->rank < 0) FAIL("value '%s' has no shape", val->name);
      defined[v] = 1;
    }
  }
  for (int i = 0; i < g->n_nodes; i++) {
    const vta_node *nd = &g->nodes[i];
    vta_node_describe(g, i, w, sizeof w);
    for (int k = 0; k < nd->n_in; k++) {
      int v = nd->in[k];
      if (v < -1 || v >= g->n_values) FAIL("%s: input %d refers to no value", w, k);
      if (v >= 0 && !defined[v])
        FAIL("%s: input %d ('%s') is used before it is defined", w, k, g->values[v].name);
    }
    if (nd->n_epi && nd->n_out != 1) FAIL("%s: epilogue on a node with %d outputs", w, nd->n_out);
    for (int k = 0; k < nd->n_epi; k++) {
      int v = nd->epi[k].arg;
      if (v >= 0 && !defined[v])
        FAIL("%s: epilogue %d reads '%s' before it is defined", w, k, g->values[v].name);
      if (vta_op_kind(nd->epi[k].op) == VTA_OPK_OTHER)
        FAIL("%s: epilogue %d (%s) is not elementwise", w, k, vta_op_name(nd->epi[k].op));
      if ((vta_op_kind(nd->epi[k].op) == VTA_OPK_BINARY) != (v >= 0))
        FAIL("%s: epilogue %d (%s) has the wrong number of operands", w, k, vta_op_name(nd->epi[k].op));
    }
    for (int k = 0; k < nd->n_out; k++) {
      int v = nd->out[k];
      if (v < 0 || v >= g->n_values) FAIL("%s: output %d refers to no value", w, k);
      if (defined[v]) FAIL("%s: output '%s' is defined twice", w, g->values[v].name);
      if (g->values[v].producer != i) FAIL("%s: output '%s' has a wrong producer link", w, g->values[v].name);
      if (g->values[v].rank < 0) FAIL("%s: output '%s' has no shape", w, g->values[v].name);
      defined[v] = 1;
    }
  }
  for (int i = 0; i < g->n_outputs; i++)
    if (!defined[g->outputs[i]]) FAIL("graph output '%s' is never defined", g->values[g->outputs[i]].name);
out:
  free(defined);
  return rc;
#undef FAIL
}
