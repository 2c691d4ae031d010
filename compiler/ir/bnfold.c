/* bnfold.c - batch-norm folding: an inference-mode BatchNormalization is a per-channel affine
 * map y = a*x + b with a = scale/sqrt(var+eps), b = B - mean*a.
 *
 * The design idea: when the BN reads a convolution's output that nothing else reads, the map
 * goes into the convolution's weights and bias (W'[m] = a[m]*W[m], bias' = a*bias + b) and the
 * BN disappears; otherwise the BN becomes "Mul(x, a) | Add(., b)", an elementwise node with a
 * fused epilogue, so no BN kernel is ever needed. Both need constant BN parameters.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"

static int new_const(vta_graph *g, const char *base, const char *suffix, int rank,
                     const int64_t *dims) {
  char name[512];
  snprintf(name, sizeof name, "%s%s", base, suffix);
  int v = vta_graph_add_value(g, name, VTA_DT_F32);
  if (v < 0 || vta_value_set_const(&g->values[v], VTA_DT_F32, rank, dims)) return -1;
  return v;
}

int vta_pass_bnfold(vta_graph *g, vta_error *err) {
  char *dead = calloc((size_t)g->n_nodes + 1, 1);
  if (!dead) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory in batch-norm folding");
  int rc = 0;
  for (int i = 0; i < g->n_nodes && !rc; i++) {
    vta_node *bn = &g->nodes[i];
    if (bn->op != VTA_GOP_BATCHNORM) continue;
    const vta_gvalue *p[5];
    int all_const = 1;
    for (int k = 1; k < 5; k++) {
      p[k] = &g->values[bn->in[k]];
      if (!p[k]->data || p[k]->dtype != VTA_DT_F32) all_const = 0;
    }
    if (!all_const) {
      char w[300];
      rc = vta_error_set(err, VTA_ERR_UNSUPPORTED,
                         "%s: BatchNormalization needs constant float parameters",
                         vta_node_describe(g, i, w, sizeof w));
      break;
    }
    int64_t ch = p[1]->dims[0];
    float eps = vta_node_float(bn, "epsilon", 1e-5f);
    float *a = malloc(sizeof(float) * (size_t)ch), *b = malloc(sizeof(float) * (size_t)ch);
    if (!a || !b) {
      free(a);
      free(b);
      rc = vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
      break;
    }
    for (int64_t c = 0; c < ch; c++) {
      const float *s = p[1]->data, *bb = p[2]->data, *m = p[3]->data, *v = p[4]->data;
      a[c] = s[c] / sqrtf(v[c] + eps);
      b[c] = bb[c] - m[c] * a[c];
    }
    int x = bn->in[0], y = bn->out[0];
    int prod = g->values[x].producer;
    vta_node *cv = prod >= 0 ? &g->nodes[prod] : NULL;
    if (cv && cv->op == VTA_GOP_CONV && cv->n_epi == 0 && cv->in[1] >= 0 &&
        g->values[cv->in[1]].data && vta_value_uses(g, x) == 1 &&
        vta_value_uses(g, cv->in[1]) == 1 && g->values[cv->in[1]].dtype == VTA_DT_F32 &&
        (cv->n_in < 3 || cv->in[2] < 0 || (g->values[cv->in[2]].data && vta_value_uses(g, cv->in[2]) == 1))) {
      vta_gvalue *w = &g->values[cv->in[1]];
      int64_t per = vta_value_count(w) / ch;
      for (int64_t c = 0; c < ch; c++)
        for (int64_t k = 0; k < per; k++) ((float *)w->data)[c * per + k] *= a[c];
      int bias = cv->n_in >= 3 ? cv->in[2] : -1;
      if (bias < 0) {
        bias = new_const(g, g->values[y].name, ".bias", 1, &ch);
        cv = &g->nodes[prod]; /* the values array may have moved, nodes have not */
        bn = &g->nodes[i];
        if (bias < 0) {
          rc = vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
        } else {
          int *in = realloc(cv->in, sizeof(int) * 3);
          if (!in) {
            rc = vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
          } else {
            cv->in = in;
            cv->in[2] = bias;
            cv->n_in = 3;
          }
        }
      }
      if (!rc) {
        float *bd = g->values[bias].data;
        for (int64_t c = 0; c < ch; c++) bd[c] = bd[c] * a[c] + b[c];
        cv->out[0] = y;
        g->values[y].producer = prod;
        dead[i] = 1;
      }
    } else {
      /* Mul(x, a) | Add(., b) with a, b shaped [C,1,...] to broadcast over NC... */
      int rank = g->values[x].rank - 1;
      int64_t dims[VTA_MAX_RANK] = {ch};
      for (int d = 1; d < rank; d++) dims[d] = 1;
      int va = new_const(g, g->values[y].name, ".scale", rank, dims);
      int vb = va < 0 ? -1 : new_const(g, g->values[y].name, ".shift", rank, dims);
      bn = &g->nodes[i];
      vta_epilogue *e = vb < 0 ? NULL : calloc(1, sizeof *e);
      if (!e) {
        rc = vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
      } else {
        memcpy(g->values[va].data, a, sizeof(float) * (size_t)ch);
        memcpy(g->values[vb].data, b, sizeof(float) * (size_t)ch);
        e->op = VTA_GOP_ADD;
        e->arg = vb;
        bn->op = VTA_GOP_MUL;
        bn->in[1] = va;
        bn->n_in = 2;
        vta_attrs_free(bn->n_attrs, bn->attrs);
        bn->attrs = NULL;
        bn->n_attrs = 0;
        bn->epi = e;
        bn->n_epi = 1;
      }
    }
    free(a);
    free(b);
  }
  if (!rc) rc = vta_graph_remove_nodes(g, dead, err);
  free(dead);
  return rc;
}
