/* plan_build.c - a compiled graph as a runtime plan (runtime/plan.h): what the model runtime
 * runs, for `vta run` (built in memory) and for deployed models (`vta compile --emit lib`).
 *
 * The design idea: the runtime knows nothing of graphs, operators or lowering, so everything it
 * needs is decided here once: each value's size and role, each CPU kernel's argument list,
 * and for an accelerator node the layout conversions around each of its programs (how its
 * input is packed, where its output channels go), taken from the same layer description the
 * lowering used (vta_acc_desc).
 */
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"
#include "compiler/accel/partition.h"
#include "compiler/plan_build.h"
#include "runtime/plan.h"

static vta_layout_conv conv_geom(const vta_conv_desc *d) {
  return (vta_layout_conv){d->n, d->c, d->h, d->w, d->kh, d->kw, d->stride_h, d->stride_w,
                           d->pad_top, d->pad_left, d->pad_bottom, d->pad_right};
}

/* Node i's parts from its layer description and the bundle's programs. */
static int acc_node(const vta_graph *g, const vta_config *cfg, const vta_bundle_acc *acc, int i,
                    vta_plan_node *pn, vta_error *err) {
  const vta_node *nd = &g->nodes[i];
  vta_acc_layer L;
  if (vta_acc_desc(g, i, cfg, &L, err)) return -1;
  pn->acc_in = (uint32_t)nd->in[0];
  pn->acc_in2 = (uint32_t)(L.add && nd->n_in > 1 ? nd->in[1] : nd->in[0]);
  pn->acc_out = (uint32_t)nd->out[0];
  if (L.fused_add) { /* its programs compute the add that reads its output (partition.c) */
    pn->acc_in2 = (uint32_t)L.add_in2;
    pn->acc_out = (uint32_t)L.add_out;
  }
  if (L.fused_pool) pn->acc_out = (uint32_t)L.pool_out; /* and the max pooling reading it */
  pn->parts = calloc((size_t)L.nparts + 1, sizeof *pn->parts);
  if (!pn->parts) {
    vta_acc_layer_free(&L);
    return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  }
  uint32_t total = 0;
  for (int q = 0; q < L.nparts; q++) total += L.parts[q].nch;
  int q = 0, rc = 0;
  char w[300];
  for (int k = 0; k < acc->n && !rc; k++) {
    const vta_bundle_layer *b = &acc->layers[k];
    if (b->node != i) continue;
    if (q >= L.nparts || b->nch != L.parts[q].nch ||
        (b->nch && memcmp(b->ch, L.parts[q].ch, sizeof(uint32_t) * b->nch))) {
      rc = vta_error_set(err, VTA_ERR_INVALID, "%s: its accelerator programs do not match its channels",
                         vta_node_describe(g, i, w, sizeof w));
      break;
    }
    const vta_acc_part *A = &L.parts[q];
    vta_plan_part *P = &pn->parts[q++];
    P->input_bytes = b->input_bytes;
    P->input2_bytes = b->input2_bytes;
    P->output_bytes = b->output_bytes;
    P->prog = b->prog;
    P->prog_size = b->prog_size;
    P->weight = b->weight;
    P->weight_size = b->weight_size;
    P->bias = b->bias;
    P->bias_size = b->bias_size;
    uint32_t nch = A->nch;
    if (L.pool) {
      const vta_pool_desc *d = &L.pd;
      P->in_kind = VTA_PLAN_IN_ACT;
      P->in = (vta_layout_conv){d->n, d->c, d->h, d->w, d->kh, d->kw, d->stride_h, d->stride_w,
                                d->pad_top, d->pad_left, d->pad_bottom, d->pad_right};
      P->out_kind = VTA_PLAN_OUT_ACT;
      P->out_n = d->n;
      P->out_h = vta_pool_out_h(d);
      P->out_w = vta_pool_out_w(d);
      nch = total = d->c;
    } else if (L.dense) {
      P->in_kind = VTA_PLAN_IN_DENSE;
      P->in = (vta_layout_conv){.n = A->dd.m, .c = A->dd.k, .h = 1, .w = 1};
      P->out_kind = VTA_PLAN_OUT_DENSE;
      P->out_n = A->dd.m;
    } else {
      P->in_kind = b->flags & VTA_BUNDLE_IM2COL ? VTA_PLAN_IN_IM2COL : VTA_PLAN_IN_ACT;
      P->in = conv_geom(&A->d);
      P->out_kind = VTA_PLAN_OUT_ACT;
      P->out_n = A->d.n;
      P->out_h = vta_conv_final_h(&A->d);
      P->out_w = vta_conv_final_w(&A->d);
      if (L.fused_add) { /* the add's other operand, shaped like the output */
        P->has_in2 = 1;
        P->in2_n = A->d.n;
        P->in2_c = total;
        P->in2_h = P->out_h;
        P->in2_w = P->out_w;
      }
      if (L.add) {
        P->has_in2 = 1;
        P->in2_n = A->d.n;
        P->in2_c = A->d.k;
        P->in2_h = P->out_h;
        P->in2_w = P->out_w;
        /* An add reads its operands and writes its output as one run of BLOCK-wide vectors in
         * any order that is the same for all three. When the tensor's own packed layout is
         * such a run (NCHW with whole channel blocks, batch 1), use it: the add then reads
         * and writes its neighbours' packed tensors in place on the device. */
        const vta_gvalue *y = &g->values[nd->out[0]];
        if (cfg->batch == 1 && y->rank == 4 && y->dims[1] % cfg->block_out == 0 &&
            (uint64_t)vta_value_count(y) == (uint64_t)A->d.h * A->d.w * cfg->block_out) {
          P->in = (vta_layout_conv){.n = (uint32_t)y->dims[0], .c = (uint32_t)y->dims[1], .h = (uint32_t)y->dims[2],
                                    .w = (uint32_t)y->dims[3], .kh = 1, .kw = 1, .stride_h = 1, .stride_w = 1};
          P->in2_n = P->out_n = P->in.n;
          P->in2_c = P->in.c;
          P->in2_h = P->out_h = P->in.h;
          P->in2_w = P->out_w = P->in.w;
          total = nch = P->in.c;
        }
      }
    }
    P->out_total = total;
    P->nch = nch;
    P->ch = malloc(sizeof(uint32_t) * (nch + 1));
    if (!P->ch) {
      rc = vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
      break;
    }
    for (uint32_t c = 0; c < nch; c++) P->ch[c] = L.pool || L.add || !A->ch ? c : A->ch[c];
  }
  pn->n_parts = (uint32_t)q;
  if (!rc && q != L.nparts)
    rc = vta_error_set(err, VTA_ERR_INVALID, "%s needs %d accelerator programs, the bundle holds %d",
                       vta_node_describe(g, i, w, sizeof w), L.nparts, q);
  vta_acc_layer_free(&L);
  return rc;
}

static void plan_release(vta_plan *p) {
  for (uint32_t i = 0; p->nodes && i < p->n_nodes; i++) {
    free((char *)p->nodes[i].what);
    free(p->nodes[i].args);
    for (uint32_t q = 0; p->nodes[i].parts && q < p->nodes[i].n_parts; q++) free(p->nodes[i].parts[q].ch);
    free(p->nodes[i].parts);
  }
  free(p->nodes);
  free(p->values);
  free(p->inputs);
  free(p->outputs);
}

int vta_plan_build(const vta_graph *g, const vta_bundle_acc *acc, unsigned char **bytes, size_t *size,
                   vta_error *err) {
  vta_plan p;
  memset(&p, 0, sizeof p);
  int rc = 0;
  char w[300];
  if (acc && acc->config_json && acc->n) {
    p.has_config = 1;
    if (vta_config_parse(&p.cfg, acc->config_json, "bundle hardware configuration", err)) return -1;
  }
  p.n_values = (uint32_t)g->n_values;
  p.n_inputs = (uint32_t)g->n_inputs;
  p.n_outputs = (uint32_t)g->n_outputs;
  p.n_nodes = (uint32_t)g->n_nodes;
  p.values = calloc(p.n_values + 1, sizeof *p.values);
  p.inputs = calloc(p.n_inputs + 1, sizeof *p.inputs);
  p.outputs = calloc(p.n_outputs + 1, sizeof *p.outputs);
  p.nodes = calloc(p.n_nodes + 1, sizeof *p.nodes);
  if (!p.values || !p.inputs || !p.outputs || !p.nodes) {
    rc = vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
    goto out;
  }
  for (int i = 0; i < g->n_values && !rc; i++) {
    const vta_gvalue *v = &g->values[i];
    vta_plan_value *pv = &p.values[i];
    size_t es = vta_dtype_size(v->dtype);
    if (v->rank < 0 || ((v->is_input || v->is_output) && v->dtype != VTA_DT_F32) ||
        (es != 1 && es != 2 && es != 4 && es != 8)) {
      rc = vta_error_set(err, VTA_ERR_UNSUPPORTED, "%s '%s' is %s; the runtime takes and returns float32 "
                         "tensors of known shape only%s", v->is_input ? "input" : v->is_output ? "output" : "value",
                         v->name, vta_dtype_name(v->dtype),
                         v->is_input && v->rank >= 0 ? " (fix such an input at compile time: --const-input NAME=VALUE)" : "");
      break;
    }
    pv->name = v->name;
    pv->dtype = (uint32_t)v->dtype;
    pv->elem_bytes = (uint32_t)es;
    pv->is_float = v->dtype == VTA_DT_F32;
    pv->role = v->data ? VTA_PLAN_CONST : v->is_input ? VTA_PLAN_INPUT : VTA_PLAN_COMPUTED;
    pv->rank = v->rank;
    for (int d = 0; d < v->rank; d++) pv->dims[d] = v->dims[d];
    pv->count = (uint64_t)vta_value_count(v);
    pv->data = v->data;
  }
  for (int k = 0; k < g->n_inputs; k++) p.inputs[k] = (uint32_t)g->inputs[k];
  for (int k = 0; k < g->n_outputs; k++) p.outputs[k] = (uint32_t)g->outputs[k];
  unsigned char *is_acc = calloc((size_t)g->n_nodes + 1, 1);
  if (!is_acc) {
    rc = vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
    goto out;
  }
  for (int k = 0; acc && k < acc->n; k++)
    if (acc->layers[k].node >= 0 && acc->layers[k].node < g->n_nodes) is_acc[acc->layers[k].node] = 1;
  for (int i = 0; i < g->n_nodes && !rc; i++) {
    vta_plan_node *pn = &p.nodes[i];
    pn->what = strdup(vta_node_describe(g, i, w, sizeof w));
    pn->has_code = (uint32_t)vta_node_needs_code(g, i);
    pn->macs = vta_node_macs(g, i);
    int n = vta_kernel_args(g, i, NULL, 0);
    pn->args = calloc((size_t)n + 1, sizeof *pn->args);
    int *vals = calloc((size_t)n + 1, sizeof *vals);
    if (!pn->what || !pn->args || !vals) {
      free(vals);
      rc = vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
      break;
    }
    vta_kernel_args(g, i, vals, n);
    pn->n_args = (uint32_t)n;
    for (int k = 0; k < n; k++) pn->args[k] = (uint32_t)vals[k];
    free(vals);
    pn->fused = (uint32_t)vta_node_fused(g, i);
    if (is_acc[i]) rc = acc_node(g, &p.cfg, acc, i, pn, err);
  }
  free(is_acc);
  if (!rc) rc = vta_plan_write(&p, bytes, size, err);
out:
  plan_release(&p);
  return rc;
}
