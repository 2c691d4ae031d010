/* shape.c - shape and type inference, and the canonical form of operator parameters: the walk
 * that hands each node to its operator family's shape rule (compiler/cpu/op_<family>.c).
 *
 * The design idea: one walk in node order that, for each node, (1) turns parameters ONNX
 * passes as constant inputs into attributes (Reshape's shape, Squeeze's axes, Clip's bounds,
 * Pad's pads, Slice's ranges, Resize's scales), and makes defaults explicit (Conv's pads,
 * strides and dilations; auto_pad resolved; Transpose's perm; Softmax's axis), then (2) computes
 * the output types and shapes, and (3) evaluates the node when all its inputs are constants
 * (eval.c), so that shape computations such as Shape -> Gather -> Concat -> Reshape become
 * constants before the Reshape that needs them. Every later stage can then rely on explicit,
 * fully-resolved attributes and static shapes. Steps (1) and (2) are the families' rules; the
 * two operators without CPU code of their own have theirs here (a family with an emit slot
 * has code for all its operators): Dropout becomes an Identity, and BatchNormalization is
 * left to bnfold.c, which folds it into the convolution before it or into a Mul and an Add.
 */
#include <inttypes.h>
#include <stdarg.h>

#include "compiler/compiler.h"

typedef struct {
  vta_graph *g;
  int i;
  vta_node *nd;
  vta_error *err;
  char where[300];
} ctx;

static int bad(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(ctx *c, const char *fmt, ...) {
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return vta_error_set(c->err, VTA_ERR_INVALID, "%s: %s", c->where, msg);
}
static int unsupported(ctx *c, const char *what) {
  return vta_error_set(c->err, VTA_ERR_UNSUPPORTED, "%s: %s is not supported", c->where, what);
}

static vta_gvalue *IN(ctx *c, int k) {
  return k < c->nd->n_in && c->nd->in[k] >= 0 ? &c->g->values[c->nd->in[k]] : NULL;
}

static void set_out(ctx *c, int k, vta_dtype t, int rank, const int64_t *dims) {
  vta_gvalue *v = &c->g->values[c->nd->out[k]];
  v->dtype = t;
  v->rank = rank;
  for (int d = 0; d < rank; d++) v->dims[d] = dims[d];
}

static int need_rank(ctx *c, const vta_gvalue *v, int k) { return vta_op_need_shape(c->g, c->i, c->err, v, k); }

static int infer_node(ctx *c) {
  vta_node *nd = c->nd;
  for (int k = 0; k < nd->n_in; k++) {
    vta_gvalue *v = IN(c, k);
    if (v && !v->data && v->rank < 0 && v->producer < 0 && !v->is_input)
      return bad(c, "input %d ('%s') is produced by no node", k, v->name);
  }
  const vta_op_family *fam = vta_op_family_of(nd->op);
  if (fam) return fam->infer(c->g, c->i, c->err);
  switch (nd->op) {
  case VTA_GOP_BATCHNORM: {
    vta_gvalue *x = IN(c, 0);
    if (need_rank(c, x, 0)) return -1;
    if (nd->n_in != 5) return bad(c, "expects 5 inputs, has %d", nd->n_in);
    if (x->rank < 2) return bad(c, "input rank below 2");
    for (int k = 1; k < 5; k++) {
      vta_gvalue *p = IN(c, k);
      if (need_rank(c, p, k)) return -1;
      if (p->rank != 1 || p->dims[0] != x->dims[1])
        return bad(c, "input %d ('%s') must have %" PRId64 " elements (one per channel)", k, p->name, x->dims[1]);
    }
    if (vta_node_int(nd, "training_mode", 0)) return unsupported(c, "training_mode=1");
    set_out(c, 0, x->dtype, x->rank, x->dims);
    return 0;
  }
  case VTA_GOP_DROPOUT: {
    vta_gvalue *x = IN(c, 0);
    if (need_rank(c, x, 0)) return -1;
    if (nd->n_in > 2 && IN(c, 2)) {
      const vta_gvalue *t = IN(c, 2);
      if (!t->data || *(uint8_t *)t->data) return unsupported(c, "Dropout in training mode");
    }
    nd->n_in = 1;
    nd->op = VTA_GOP_IDENTITY;
    set_out(c, 0, x->dtype, x->rank, x->dims);
    return 0;
  }
  default:
    return unsupported(c, "shape inference for this operator");
  }
}

int vta_shape_infer_node(vta_graph *g, int i, vta_error *err) {
  ctx c = {g, i, &g->nodes[i], err, ""};
  vta_node_describe(g, i, c.where, sizeof c.where);
  if (infer_node(&c)) return -1;
  for (int k = 0; k < c.nd->n_out; k++) {
    if (c.nd->out[k] < 0) continue;
    const vta_gvalue *v = &g->values[c.nd->out[k]];
    if (v->rank < 0) return bad(&c, "output %d has no inferred shape", k);
    /* Before anything is allocated for it (constant evaluation, buffers). */
    char what[400];
    snprintf(what, sizeof what, "%s: output '%s'", c.where, v->name);
    if (vta_value_check_size(v, what, err)) return -1;
  }
  return 0;
}

int vta_shape_infer(vta_graph *g, vta_error *err) {
  for (int i = 0; i < g->n_inputs; i++) {
    const vta_gvalue *v = &g->values[g->inputs[i]];
    if (v->rank < 0)
      return vta_error_set(err, VTA_ERR_INVALID, "graph input '%s' has no known shape", v->name);
  }
  for (int i = 0; i < g->n_nodes; i++) {
    if (!g->nodes[i].inferred && vta_shape_infer_node(g, i, err)) return -1;
    /* Values computed from constants become constants now, so that later nodes that need
     * them as parameters (Reshape's shape) see them. The fold pass removes the nodes. */
    if (vta_eval_can(g, i) && vta_eval_node(g, i, err)) return -1;
  }
  return 0;
}
