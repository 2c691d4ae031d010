/* model.c - the model runtime: loads a bundle (or compiles an ONNX file in memory), makes its
 * CPU code callable, walks its graph.
 *
 * The design idea: the graph is already in execution order and every node has one kernel, so
 * running a model is a loop that calls kernels with pointers to the buffers of their
 * arguments. Buffers are allocated once at load time, one per computed value, and constants
 * are used in place from the graph, so a run allocates nothing. A bundle's code is linked from
 * its native object when it was compiled on this machine (milliseconds), else compiled from
 * its bitcode; an ONNX file is compiled straight to an object and linked.
 *
 * A bundle compiled with --accel also holds accelerator programs for some int8 nodes. With an
 * accelerator backend (vta_model_set_backend: fsim, rtl, ...) such a node is run by packing
 * its int8 input into the program's tile layout, copying it to device memory, replaying the
 * program through jit/ and unpacking the output; the walk stays the same, and every other
 * node runs its CPU code in between. The device buffers (weights and biases uploaded once,
 * one input and one output area per layer) are allocated when the backend is chosen. With the
 * cpu backend the same nodes run their CPU code, which computes the same int8 tensors.
 */
#include "host/model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"
#include "compiler/accel/partition.h"
#include "vta/device.h"
#include "vta/file.h"
#include "vta/limits.h"
#include "vta/jit.h"
#include "vta/program.h"

/* One accelerator node while an accelerator backend is selected. */
typedef struct acc_rt {
  vta_acc_layer L;
  uint64_t (*phys)[VTA_PROG_BUF_COUNT]; /* per part: its device buffers */
  int8_t *packed;        /* host staging of the packed input / output */
  int8_t *tmp;           /* a part's unpacked output */
} acc_rt;

struct vta_model {
  vta_graph *g;
  vta_cpu_jit *jit;
  vta_kernel_fn *fns;
  void **buf;       /* per value: its elements (constants point into the graph) */
  char *owned;      /* per value: buf was malloc'd here */
  void ***args;     /* per node: its kernel's argument array */
  vta_model_timing t;
  vta_bundle_acc acc;    /* the bundle's accelerator programs (empty for CPU-only models) */
  vta_config cfg;        /* their hardware configuration */
  vta_device *dev;       /* the accelerator backend, or NULL (cpu) */
  vta_jit *vjit;
  acc_rt **rt;           /* per node: its accelerator runtime, or NULL */
  vta_stats st;          /* accelerator statistics since the backend was chosen */
  uint64_t acc_runs;
  unsigned char *no_cpu; /* per node: its CPU kernel is not compiled yet (an accelerator node
                            of a version 4 bundle), or NULL when every kernel is */
};

static void acc_release(vta_model *m) {
  for (int i = 0; m->rt && i < m->g->n_nodes; i++) {
    acc_rt *r = m->rt[i];
    if (!r) continue;
    for (int p = 0; r->phys && p < r->L.nparts; p++)
      for (int b = 0; b < VTA_PROG_BUF_COUNT; b++)
        if (r->phys[p][b]) vta_device_free(m->dev, r->phys[p][b]);
    vta_acc_layer_free(&r->L);
    free(r->phys);
    free(r->packed);
    free(r->tmp);
    free(r);
  }
  free(m->rt);
  m->rt = NULL;
  vta_jit_destroy(m->vjit);
  m->vjit = NULL;
  if (m->dev) vta_device_close(m->dev);
  m->dev = NULL;
}

void vta_model_destroy(vta_model *m) {
  if (!m) return;
  if (m->g) acc_release(m);
  vta_bundle_acc_free(&m->acc);
  if (m->g) {
    for (int i = 0; m->buf && i < m->g->n_values; i++)
      if (m->owned[i]) free(m->buf[i]);
    for (int i = 0; m->args && i < m->g->n_nodes; i++) free(m->args[i]);
  }
  vta_cpu_jit_destroy(m->jit);
  free(m->no_cpu);
  free(m->fns);
  free(m->buf);
  free(m->owned);
  free(m->args);
  vta_graph_destroy(m->g);
  free(m);
}

/* Takes ownership of g; code is only read. acc (may be NULL): the bundle's accelerator layers,
 * whose nodes have no CPU code when code->skips_acc. */
static vta_model *model_build(vta_graph *g, const vta_cpu_code *code, const vta_bundle_acc *acc,
                              vta_model_timing *t, vta_error *err) {
  vta_model *m = calloc(1, sizeof *m);
  if (!m) {
    vta_graph_destroy(g);
    vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
    return NULL;
  }
  m->g = g;
  if (t) m->t = *t;
  m->fns = calloc((size_t)g->n_nodes + 1, sizeof *m->fns);
  m->buf = calloc((size_t)g->n_values + 1, sizeof *m->buf);
  m->owned = calloc((size_t)g->n_values + 1, 1);
  m->args = calloc((size_t)g->n_nodes + 1, sizeof *m->args);
  if (!m->fns || !m->buf || !m->owned || !m->args) goto nomem;
  for (int i = 0; i < g->n_values; i++) {
    vta_gvalue *v = &g->values[i];
    if (v->data) {
      m->buf[i] = v->data;
      continue;
    }
    if (v->rank < 0 || ((v->is_input || v->is_output) && v->dtype != VTA_DT_F32)) {
      vta_error_set(err, VTA_ERR_UNSUPPORTED, "%s '%s' is %s; the runtime takes and returns float32 "
                    "tensors only", v->is_input ? "input" : v->is_output ? "output" : "value",
                    v->name, vta_dtype_name(v->dtype));
      goto bad;
    }
    size_t n = vta_value_bytes(v);
    m->buf[i] = calloc(1, n ? n : 4);
    if (!m->buf[i]) goto nomem;
    m->owned[i] = 1;
  }
  for (int i = 0; i < g->n_nodes; i++) {
    int n = vta_kernel_args(g, i, NULL, 0);
    int *vals = calloc((size_t)n + 1, sizeof *vals);
    m->args[i] = calloc((size_t)n + 1, sizeof(void *));
    if (!vals || !m->args[i]) {
      free(vals);
      goto nomem;
    }
    vta_kernel_args(g, i, vals, n);
    for (int k = 0; k < n; k++) m->args[i][k] = m->buf[vals[k]];
    free(vals);
  }
  unsigned char *have = NULL;
  if (code->skips_acc && acc && acc->n) {
    m->no_cpu = calloc((size_t)g->n_nodes + 1, 1);
    have = malloc((size_t)g->n_nodes + 1);
    if (!m->no_cpu || !have) {
      free(have);
      goto nomem;
    }
    for (int k = 0; k < acc->n; k++) m->no_cpu[acc->layers[k].node] = 1;
    for (int i = 0; i < g->n_nodes; i++) have[i] = !m->no_cpu[i];
  }
  double t0 = vta_now_ms();
  m->jit = vta_cpu_jit_create_for(code, g, have, m->fns, err);
  free(have);
  if (!m->jit) goto bad;
  m->t.jit_ms = vta_now_ms() - t0;
  return m;
nomem:
  vta_error_set(err, VTA_ERR_NOMEM, "out of memory setting up the model");
bad:
  vta_model_destroy(m);
  return NULL;
}

vta_model *vta_model_load(const unsigned char *bundle, size_t size, vta_error *err) {
  vta_graph *g;
  vta_cpu_code code;
  vta_bundle_acc acc;
  if (vta_bundle_read_acc(bundle, size, &g, &code, &acc, err)) return NULL;
  vta_config cfg;
  if (acc.config_json && vta_config_parse(&cfg, acc.config_json, "bundle hardware configuration", err)) {
    vta_bundle_acc_free(&acc);
    vta_cpu_code_free(&code);
    vta_graph_destroy(g);
    return NULL;
  }
  vta_model *m = model_build(g, &code, &acc, NULL, err);
  vta_cpu_code_free(&code);
  if (!m) {
    vta_bundle_acc_free(&acc);
    return NULL;
  }
  m->acc = acc;
  if (acc.config_json) m->cfg = cfg;
  return m;
}

int vta_model_n_acc_layers(const vta_model *m) { return m->acc.n; }
int vta_model_n_acc_nodes(const vta_model *m) {
  int n = 0;
  for (int k = 0; k < m->acc.n; k++) n += k == 0 || m->acc.layers[k].node != m->acc.layers[k - 1].node;
  return n;
}
const vta_config *vta_model_acc_config(const vta_model *m) { return &m->cfg; }

int vta_model_set_backend(vta_model *m, const char *backend, const char *options, vta_error *err) {
  acc_release(m);
  memset(&m->st, 0, sizeof m->st);
  m->acc_runs = 0;
  if (!backend || strcmp(backend, "cpu") == 0) return 0;
  if (!m->acc.n)
    return vta_error_set(err, VTA_ERR_INVALID, "the model has no accelerator layers (compile it with "
                         "`vta compile --accel`); only the cpu backend applies");
  if (vta_device_open(backend, &m->cfg, options, &m->dev, err) ||
      vta_jit_create(m->dev, NULL, &m->vjit, err))
    goto fail;
  m->rt = calloc((size_t)m->g->n_nodes + 1, sizeof *m->rt);
  if (!m->rt) {
    vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
    goto fail;
  }
  for (int k = 0; k < m->acc.n; k++) {
    int node = m->acc.layers[k].node;
    if (m->rt[node]) continue;
    acc_rt *r = calloc(1, sizeof *r);
    if (!r) {
      vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
      goto fail;
    }
    m->rt[node] = r;
    if (vta_acc_from_bundle(m->g, &m->cfg, &m->acc, node, &r->L, err)) goto fail;
    r->phys = calloc((size_t)r->L.nparts, sizeof *r->phys);
    if (!r->phys) {
      vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
      goto fail;
    }
    uint64_t staging = 0;
    for (int p = 0; p < r->L.nparts; p++) {
      vta_lowered *low = &r->L.parts[p].low;
      uint64_t need[VTA_PROG_BUF_COUNT];
      for (int q = 0; q < VTA_PROG_BUF_COUNT; q++) need[q] = vta_program_buffer_size(low->prog, (vta_prog_buf)q);
      if (need[VTA_PROG_BUF_INPUT] < low->input_bytes) need[VTA_PROG_BUF_INPUT] = low->input_bytes;
      if (need[VTA_PROG_BUF_OUTPUT] < low->output_bytes) need[VTA_PROG_BUF_OUTPUT] = low->output_bytes;
      if (need[VTA_PROG_BUF_WEIGHT] < low->weight_bytes) need[VTA_PROG_BUF_WEIGHT] = low->weight_bytes;
      if (need[VTA_PROG_BUF_BIAS] < low->bias_bytes) need[VTA_PROG_BUF_BIAS] = low->bias_bytes;
      for (int q = 0; q < VTA_PROG_BUF_COUNT; q++)
        if (need[q] && vta_device_alloc(m->dev, need[q], &r->phys[p][q], err)) goto fail;
      if ((low->weight_bytes &&
           vta_device_copy_to(m->dev, r->phys[p][VTA_PROG_BUF_WEIGHT], low->weight, low->weight_bytes, err)) ||
          (low->bias_bytes &&
           vta_device_copy_to(m->dev, r->phys[p][VTA_PROG_BUF_BIAS], low->bias, low->bias_bytes, err)))
        goto fail;
      for (int q = 0; q < VTA_PROG_BUF_COUNT; q++)
        if (need[q] > staging) staging = need[q];
    }
    r->packed = calloc(1, staging + 64);
    r->tmp = calloc(1, vta_value_bytes(&m->g->values[m->g->nodes[node].out[0]]) + 64);
    if (!r->packed || !r->tmp) {
      vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
      goto fail;
    }
  }
  return 0;
fail:
  vta_error_prefix(err, "backend %s", backend);
  acc_release(m);
  return -1;
}

/* Node i on the accelerator: pack, copy, replay, copy back, unpack. */
static int run_acc(vta_model *m, int i, vta_error *err) {
  acc_rt *r = m->rt[i];
  const vta_node *nd = &m->g->nodes[i];
  char w[300];
  for (int p = 0; p < r->L.nparts; p++) {
    const vta_lowered *low = &r->L.parts[p].low;
    vta_acc_pack_input(&m->cfg, &r->L, p, m->buf[nd->in[0]], r->packed);
    int bad = vta_device_copy_to(m->dev, r->phys[p][VTA_PROG_BUF_INPUT], r->packed, low->input_bytes, err);
    if (!bad && r->L.add) { /* the second operand, packed as the program's residual */
      vta_acc_pack_input2(&m->cfg, &r->L, p, m->buf[nd->in[1]], r->packed);
      bad = vta_device_copy_to(m->dev, r->phys[p][VTA_PROG_BUF_INPUT2], r->packed, low->input2_bytes, err);
    }
    if (bad || vta_program_run(m->vjit, low->prog, r->phys[p], &m->st, err) ||
        vta_device_copy_from(m->dev, r->packed, r->phys[p][VTA_PROG_BUF_OUTPUT], low->output_bytes, err)) {
      vta_error_prefix(err, "%s on the accelerator (program %d)", vta_node_describe(m->g, i, w, sizeof w), p);
      return -1;
    }
    vta_acc_unpack_output(&m->cfg, &r->L, p, r->packed, r->tmp, m->buf[nd->out[0]]);
  }
  m->acc_runs++;
  return 0;
}

void vta_model_acc_stats(const vta_model *m, vta_stats *st, uint64_t *acc_macs, uint64_t *all_macs) {
  if (st) *st = m->st;
  uint64_t a = 0, t = 0;
  for (int i = 0; i < m->g->n_nodes; i++) {
    const vta_node *nd = &m->g->nodes[i];
    uint64_t k = vta_node_macs(m->g, i);
    t += k;
    if (m->rt && m->rt[i]) a += k;
    (void)nd;
  }
  if (acc_macs) *acc_macs = a;
  if (all_macs) *all_macs = t;
}

vta_model *vta_model_open(const char *path, vta_error *err) {
  return vta_model_open_shaped(path, 0, NULL, NULL, NULL, err);
}

vta_model *vta_model_open_shaped(const char *path, int n_shapes, const char *const *names,
                                 const int *ranks, const int64_t (*dims)[8], vta_error *err) {
  /* One read serves both kinds of file, so that a pipe (which cannot be read twice) works. */
  unsigned char *b;
  size_t n;
  if (vta_file_read(path, "a model or bundle", VTA_LIMIT_MODEL_BYTES, &b, &n, err)) return NULL;
  if (n >= 4 && memcmp(b, "VTAB", 4) == 0) {
    vta_model *m = vta_model_load(b, n, err);
    free(b);
    if (!m) vta_error_prefix(err, "%s", path);
    return m;
  }
  vta_model_timing t = {0};
  double t0 = vta_now_ms();
  vta_import_opts io = {0};
  io.n_shapes = n_shapes;
  io.shape_names = names;
  io.shape_ranks = ranks;
  io.shape_dims = dims;
  vta_graph *g = vta_onnx_import(b, n, &io, err);
  free(b);
  if (!g) {
    vta_error_prefix(err, "%s", path);
    return NULL;
  }
  double t1 = vta_now_ms();
  vta_compile_opts o = {0};
  if (vta_compile_graph(g, &o, err)) {
    vta_error_prefix(err, "%s", path);
    vta_graph_destroy(g);
    return NULL;
  }
  double t2 = vta_now_ms();
  vta_cpu_code code;
  /* Only the native object: it is linked straight away, bitcode would be unused. */
  if (vta_codegen_llvm_for(g, NULL, VTA_CODE_OBJECT, &code, err)) {
    vta_error_prefix(err, "%s", path);
    vta_graph_destroy(g);
    return NULL;
  }
  double t3 = vta_now_ms();
  t.import_ms = t1 - t0;
  t.passes_ms = t2 - t1;
  t.codegen_ms = t3 - t2;
  vta_model *m = model_build(g, &code, NULL, &t, err);
  vta_cpu_code_free(&code);
  return m;
}

const vta_model_timing *vta_model_timings(const vta_model *m) { return &m->t; }
int vta_model_n_inputs(const vta_model *m) { return m->g->n_inputs; }
int vta_model_n_outputs(const vta_model *m) { return m->g->n_outputs; }

static const char *info(const vta_gvalue *v, int *rank, int64_t *dims) {
  if (rank) *rank = v->rank;
  if (dims)
    for (int d = 0; d < v->rank; d++) dims[d] = v->dims[d];
  return v->name;
}
const char *vta_model_input(const vta_model *m, int k, int *rank, int64_t *dims) {
  return info(&m->g->values[m->g->inputs[k]], rank, dims);
}
const char *vta_model_output_info(const vta_model *m, int k, int *rank, int64_t *dims) {
  return info(&m->g->values[m->g->outputs[k]], rank, dims);
}
int vta_model_find_input(const vta_model *m, const char *name) {
  for (int k = 0; k < m->g->n_inputs; k++)
    if (strcmp(m->g->values[m->g->inputs[k]].name, name) == 0) return k;
  return -1;
}

int vta_model_set_input(vta_model *m, int k, const float *data, size_t count, vta_error *err) {
  if (k < 0 || k >= m->g->n_inputs)
    return vta_error_set(err, VTA_ERR_INVALID, "input %d does not exist (the model has %d)", k,
                         m->g->n_inputs);
  const vta_gvalue *v = &m->g->values[m->g->inputs[k]];
  if ((size_t)vta_value_count(v) != count)
    return vta_error_set(err, VTA_ERR_INVALID, "input '%s' needs %lld elements, got %zu", v->name,
                         (long long)vta_value_count(v), count);
  memcpy(m->buf[m->g->inputs[k]], data, count * sizeof(float));
  return 0;
}

/* The CPU kernels of the accelerator nodes, compiled from the bundle's graph the first time the
 * cpu backend runs the model (vta compile --accel leaves them out: most runs never need them). */
static int compile_fallback(vta_model *m, vta_error *err) {
  double t0 = vta_now_ms();
  vta_cpu_code code;
  if (vta_codegen_llvm_nodes(m->g, NULL, VTA_CODE_OBJECT, m->no_cpu, &code, err)) {
    vta_error_prefix(err, "the accelerator nodes' CPU code");
    return -1;
  }
  int rc = vta_cpu_jit_add(m->jit, &code, m->g, m->no_cpu, m->fns, err);
  vta_cpu_code_free(&code);
  if (rc) return -1;
  free(m->no_cpu);
  m->no_cpu = NULL;
  m->t.codegen_ms += vta_now_ms() - t0;
  return 0;
}

int vta_model_run(vta_model *m, vta_error *err) {
  for (int i = 0; i < m->g->n_nodes; i++) {
    if (m->rt && m->rt[i]) {
      if (run_acc(m, i, err)) return -1;
      continue;
    }
    if (m->no_cpu && m->no_cpu[i] && compile_fallback(m, err)) return -1;
    if (m->fns[i]) {
      m->fns[i](m->args[i]);
    }
  }
  return 0;
}

const void *vta_model_value(const vta_model *m, const char *name, int *dtype, int64_t *count) {
  int v = vta_graph_find_value(m->g, name);
  if (v < 0) return NULL;
  if (dtype) *dtype = m->g->values[v].dtype;
  if (count) *count = vta_value_count(&m->g->values[v]);
  return m->buf[v];
}

const float *vta_model_output(const vta_model *m, int k) { return m->buf[m->g->outputs[k]]; }
