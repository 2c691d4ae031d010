/* fuse.c - fusion of elementwise epilogues (bias, ReLU, Clip, HardSigmoid, ...) into their
 * producer.
 *
 * The design idea: a value read exactly once, by an elementwise node whose output has the same
 * shape, need not exist in memory: the consumer becomes an epilogue step of the producer, applied
 * to each element before it is stored. The consumer's other operand (a bias, a residual) must
 * already exist when the producer runs, i.e. be a constant, an input, or produced earlier. The
 * walk repeats on the same producer, so Conv -> Add -> Relu becomes "Conv | Add | Relu".
 */
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"

static int sole_consumer(const vta_graph *g, int v) {
  int found = -1;
  for (int i = 0; i < g->n_nodes; i++) {
    const vta_node *nd = &g->nodes[i];
    for (int k = 0; k < nd->n_in; k++)
      if (nd->in[k] == v) {
        if (found >= 0) return -1;
        found = i;
      }
  }
  return found;
}

static int same_shape(const vta_gvalue *a, const vta_gvalue *b) {
  if (a->rank != b->rank) return 0;
  for (int d = 0; d < a->rank; d++)
    if (a->dims[d] != b->dims[d]) return 0;
  return 1;
}

static int copy_attrs(int n, const vta_attr *src, int *dn, vta_attr **dst) {
  for (int k = 0; k < n; k++) {
    const vta_attr *a = &src[k];
    int rc = 0;
    switch (a->kind) {
    case VTA_ATTR_INT: rc = vta_attrs_set_int(dn, dst, a->name, a->i); break;
    case VTA_ATTR_FLOAT: rc = vta_attrs_set_float(dn, dst, a->name, a->f); break;
    case VTA_ATTR_INTS: rc = vta_attrs_set_ints(dn, dst, a->name, a->n, a->ints); break;
    case VTA_ATTR_FLOATS: rc = vta_attrs_set_floats(dn, dst, a->name, a->n, a->floats); break;
    default: rc = vta_attrs_set_string(dn, dst, a->name, a->s); break;
    }
    if (rc) return -1;
  }
  return 0;
}

int vta_pass_fuse(vta_graph *g, vta_error *err) {
  char *dead = calloc((size_t)g->n_nodes + 1, 1);
  if (!dead) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory in fusion");
  for (int i = 0; i < g->n_nodes; i++) {
    if (dead[i]) continue;
    for (;;) {
      vta_node *p = &g->nodes[i];
      if (p->n_out != 1 || !vta_codegen_supports(p->op)) break;
      int v = p->out[0];
      const vta_gvalue *pv = &g->values[v];
      if (pv->dtype != VTA_DT_F32 || pv->is_output || vta_value_uses(g, v) != 1) break;
      int c = sole_consumer(g, v);
      if (c < 0 || dead[c]) break;
      vta_node *e = &g->nodes[c];
      int kind = vta_op_kind(e->op);
      if (kind == VTA_OPK_OTHER || e->op == VTA_GOP_IDENTITY) break;
      if (!same_shape(pv, &g->values[e->out[0]])) break;
      int arg = -1, left = 0;
      if (kind == VTA_OPK_BINARY) {
        if (e->n_in != 2) break;
        left = e->in[1] == v;
        arg = left ? e->in[0] : e->in[1];
        if (arg == v) break;
        const vta_gvalue *av = &g->values[arg];
        if (av->dtype != VTA_DT_F32 || (av->producer >= i)) break;
      }
      vta_epilogue *ne = realloc(p->epi, sizeof(vta_epilogue) * (size_t)(p->n_epi + 1 + e->n_epi));
      if (!ne) {
        free(dead);
        return vta_error_set(err, VTA_ERR_NOMEM, "out of memory in fusion");
      }
      p->epi = ne;
      vta_epilogue *s = &p->epi[p->n_epi];
      memset(s, 0, sizeof *s);
      s->op = e->op;
      s->arg = arg;
      s->arg_left = left;
      if (copy_attrs(e->n_attrs, e->attrs, &s->n_attrs, &s->attrs)) {
        free(dead);
        return vta_error_set(err, VTA_ERR_NOMEM, "out of memory in fusion");
      }
      p->n_epi++;
      for (int k = 0; k < e->n_epi; k++) p->epi[p->n_epi++] = e->epi[k];
      free(e->epi);
      e->epi = NULL;
      e->n_epi = 0;
      p->out[0] = e->out[0];
      g->values[e->out[0]].producer = i;
      e->n_out = 0;
      e->n_in = 0;
      dead[c] = 1;
    }
  }
  int rc = vta_graph_remove_nodes(g, dead, err);
  free(dead);
  return rc;
}
