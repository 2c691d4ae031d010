/* fuse.c - fusion of elementwise epilogues (bias, ReLU, Clip, HardSigmoid, ...) into their
 * producer.
 *
 * The design idea: a value read exactly once, by an elementwise node whose output has the same
 * shape, need not exist in memory: the consumer becomes an epilogue step of the producer, applied
 * to each element before it is stored. The consumer's other operand (a bias, a residual) must
 * already exist when the producer runs, i.e. be a constant, an input, or produced earlier. The
 * walk repeats on the same producer, so Conv -> Add -> Relu becomes "Conv | Add | Relu".
 *
 * Before that, HardSwish written out by exporters is recognised and becomes one node:
 * x * Clip(x + 3, 0, 6) / 6 (PaddlePaddle, TensorFlow) and x * HardSigmoid(x) with alpha 1/6
 * and beta 1/2 (PyTorch before opset 14). Written out, x is read twice, so nothing could be
 * fused into x's producer; as one HardSwish it becomes an epilogue of the convolution.
 *
 * And a Pad of zeros in front of a float convolution (tf2onnx writes one before TensorFlow's
 * "valid" strided convolutions; M-LSD's depthwise layers have them) becomes the convolution's
 * own padding: the padded copy costs a pass over memory that the convolution's kernels avoid,
 * as they read their zero border from the pads attribute (the GEMM path's im2col and the
 * depthwise plane both zero it). Conditions: constant mode with value 0, no padding of the
 * batch and channel dimensions, no negative pads, and the padded value read by this one
 * convolution only (not a graph output). Quantized convolutions (QConv) are not touched.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"

/* A zero Pad read only by a float convolution becomes the convolution's own padding (see the
 * file comment). Runs after shape inference: pads are attributes, auto_pad is resolved. */
static int fold_pads(vta_graph *g, vta_error *err) {
  int *uses = calloc((size_t)g->n_values + 1, sizeof *uses);
  char *dead = calloc((size_t)g->n_nodes + 1, 1);
  if (!uses || !dead) {
    free(uses);
    free(dead);
    return vta_error_set(err, VTA_ERR_NOMEM, "out of memory in pad folding");
  }
  for (int i = 0; i < g->n_nodes; i++) {
    const vta_node *nd = &g->nodes[i];
    for (int k = 0; k < nd->n_in; k++)
      if (nd->in[k] >= 0) uses[nd->in[k]]++;
    for (int k = 0; k < nd->n_epi; k++)
      if (nd->epi[k].arg >= 0) uses[nd->epi[k].arg]++;
  }
  for (int i = 0; i < g->n_outputs; i++) uses[g->outputs[i]] += 2;
  int any = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    vta_node *cv = &g->nodes[i];
    if (cv->op != VTA_GOP_CONV || cv->n_in < 2 || cv->in[0] < 0) continue;
    int pv = cv->in[0], pi = g->values[pv].producer;
    if (pi < 0 || uses[pv] != 1) continue;
    const vta_node *pd = &g->nodes[pi];
    if (pd->op != VTA_GOP_PAD || pd->n_epi || pd->n_out != 1 || pd->n_in < 1 || pd->in[0] < 0) continue;
    for (int k = 1; k < pd->n_in; k++)
      if (pd->in[k] >= 0) goto next; /* parameters still as inputs: not this pass's business */
    const vta_gvalue *x = &g->values[pd->in[0]];
    int rank = x->rank, nsp = rank - 2;
    int64_t pp[2 * VTA_MAX_RANK], cp[2 * VTA_MAX_RANK];
    if (rank < 3 || x->dtype != VTA_DT_F32 || strcmp(vta_node_string(pd, "mode", "constant"), "constant") ||
        vta_node_float(pd, "value", 0.0f) != 0.0f || vta_node_ints(pd, "pads", pp, 2 * VTA_MAX_RANK) != 2 * rank ||
        vta_node_ints(cv, "pads", cp, 2 * VTA_MAX_RANK) != 2 * nsp)
      continue;
    if (pp[0] || pp[1] || pp[rank] || pp[rank + 1]) continue;
    for (int d = 0; d < 2 * rank; d++)
      if (pp[d] < 0) goto next;
    for (int d = 0; d < nsp; d++) cp[d] += pp[2 + d], cp[nsp + d] += pp[rank + 2 + d];
    if (vta_attrs_set_ints(&cv->n_attrs, &cv->attrs, "pads", 2 * nsp, cp)) {
      free(uses);
      free(dead);
      return vta_error_set(err, VTA_ERR_NOMEM, "out of memory in pad folding");
    }
    cv->in[0] = pd->in[0];
    dead[pi] = 1;
    any = 1;
  next:;
  }
  int rc = any ? vta_graph_remove_nodes(g, dead, err) : 0;
  free(uses);
  free(dead);
  return rc;
}

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

/* Is v a float constant whose every element is within rel of want? */
static int const_all(const vta_graph *g, int v, float want, float rel) {
  if (v < 0) return 0;
  const vta_gvalue *x = &g->values[v];
  if (!x->data || x->dtype != VTA_DT_F32) return 0;
  const float *d = x->data;
  for (int64_t i = 0; i < vta_value_count(x); i++)
    if (!(fabsf(d[i] - want) <= rel * fabsf(want))) return 0;
  return 1;
}

/* The value's only consumer, if it is node op reading it and the value is no graph output. */
static int only_consumer(const vta_graph *g, int v, vta_gop op, const char *dead) {
  if (g->values[v].is_output || vta_value_uses(g, v) != 1) return -1;
  int c = sole_consumer(g, v);
  return c >= 0 && !dead[c] && g->nodes[c].op == op && g->nodes[c].n_epi == 0 ? c : -1;
}

/* The operand of binary node nd other than v, or -1 when v is not an operand. */
static int other_operand(const vta_node *nd, int v) {
  if (nd->n_in != 2) return -1;
  return nd->in[0] == v ? nd->in[1] : nd->in[1] == v ? nd->in[0] : -1;
}

/* Rewrites node a into HardSwish(x) producing value out; nodes in kill[0..n) die. */
static int make_hardswish(vta_graph *g, int a, int x, int out, const int *kill, int n, char *dead) {
  vta_node *nd = &g->nodes[a];
  nd->op = VTA_GOP_HARD_SWISH;
  nd->in[0] = x;
  nd->n_in = 1;
  vta_attrs_free(nd->n_attrs, nd->attrs);
  nd->n_attrs = 0;
  nd->attrs = NULL;
  for (int k = 0; k < n; k++) {
    vta_node *d = &g->nodes[kill[k]];
    d->n_in = d->n_out = 0;
    dead[kill[k]] = 1;
  }
  nd->out[0] = out;
  g->values[out].producer = a;
  return 0;
}

static void fuse_hardswish(vta_graph *g, char *dead) {
  for (int i = 0; i < g->n_nodes; i++) {
    vta_node *a = &g->nodes[i];
    if (dead[i] || a->n_out != 1 || a->n_epi) continue;
    int y = a->out[0];
    if (a->op == VTA_GOP_ADD && a->n_in == 2) {
      /* x + 3 -> Clip(0, 6) -> x * . -> . / 6 (or * 1/6) */
      int x = const_all(g, a->in[1], 3.0f, 0) ? a->in[0] : const_all(g, a->in[0], 3.0f, 0) ? a->in[1] : -1;
      if (x < 0) continue;
      int c1 = only_consumer(g, y, VTA_GOP_CLIP, dead);
      if (c1 < 0 || vta_node_float(&g->nodes[c1], "min", -1) != 0.0f ||
          vta_node_float(&g->nodes[c1], "max", -1) != 6.0f)
        continue;
      int y1 = g->nodes[c1].out[0];
      int c2 = only_consumer(g, y1, VTA_GOP_MUL, dead);
      if (c2 < 0 || other_operand(&g->nodes[c2], y1) != x) continue;
      int y2 = g->nodes[c2].out[0];
      int c3 = only_consumer(g, y2, VTA_GOP_DIV, dead), c3m = only_consumer(g, y2, VTA_GOP_MUL, dead);
      int y3;
      if (c3 >= 0 && g->nodes[c3].n_in == 2 && g->nodes[c3].in[0] == y2 && const_all(g, g->nodes[c3].in[1], 6.0f, 0)) {
        y3 = g->nodes[c3].out[0];
      } else if (c3m >= 0 && const_all(g, other_operand(&g->nodes[c3m], y2), 1.0f / 6.0f, 1e-6f)) {
        c3 = c3m;
        y3 = g->nodes[c3].out[0];
      } else {
        continue;
      }
      if (!same_shape(&g->values[x], &g->values[y3])) continue;
      int kill[3] = {c1, c2, c3};
      make_hardswish(g, i, x, y3, kill, 3, dead);
    } else if (a->op == VTA_GOP_HARD_SIGMOID && a->n_in == 1) {
      /* x * HardSigmoid(x, 1/6, 1/2) */
      if (fabsf(vta_node_float(a, "alpha", 0.2f) - 1.0f / 6.0f) > 1e-6f ||
          vta_node_float(a, "beta", 0.5f) != 0.5f)
        continue;
      int x = a->in[0], c1 = only_consumer(g, y, VTA_GOP_MUL, dead);
      if (c1 < 0 || other_operand(&g->nodes[c1], y) != x) continue;
      int y1 = g->nodes[c1].out[0];
      if (!same_shape(&g->values[x], &g->values[y1])) continue;
      int kill[1] = {c1};
      make_hardswish(g, i, x, y1, kill, 1, dead);
    }
  }
}

int vta_pass_fuse(vta_graph *g, vta_error *err) {
  if (fold_pads(g, err)) return -1;
  char *dead = calloc((size_t)g->n_nodes + 1, 1);
  if (!dead) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory in fusion");
  fuse_hardswish(g, dead);
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
      /* A Clip with a bound computed at run time keeps it as an input: not an epilogue. */
      if (kind == VTA_OPK_UNARY && e->n_in != 1) break;
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
