/* model.c - the model runtime: loads a bundle (or compiles an ONNX file in memory), makes its
 * CPU code callable, walks its graph.
 *
 * The design idea: the graph is already in execution order and every node has one kernel, so
 * running a model is a loop that calls kernels with pointers to the buffers of their
 * arguments. Buffers are allocated once at load time, one per computed value, and constants
 * are used in place from the graph, so a run allocates nothing. A bundle's code is linked from
 * its native object when it was compiled on this machine (milliseconds), else compiled from
 * its bitcode; an ONNX file is compiled straight to an object and linked. With the next issue
 * a node may instead be an accelerator subgraph replayed through jit/; the walk stays the same.
 */
#include "host/model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compiler/compiler.h"

struct vta_model {
  vta_graph *g;
  vta_cpu_jit *jit;
  vta_kernel_fn *fns;
  void **buf;       /* per value: its elements (constants point into the graph) */
  char *owned;      /* per value: buf was malloc'd here */
  void ***args;     /* per node: its kernel's argument array */
  vta_model_timing t;
};

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void vta_model_destroy(vta_model *m) {
  if (!m) return;
  if (m->g) {
    for (int i = 0; m->buf && i < m->g->n_values; i++)
      if (m->owned[i]) free(m->buf[i]);
    for (int i = 0; m->args && i < m->g->n_nodes; i++) free(m->args[i]);
  }
  vta_cpu_jit_destroy(m->jit);
  free(m->fns);
  free(m->buf);
  free(m->owned);
  free(m->args);
  vta_graph_destroy(m->g);
  free(m);
}

/* Takes ownership of g; code is only read. */
static vta_model *model_build(vta_graph *g, const vta_cpu_code *code, vta_model_timing *t,
                              vta_error *err) {
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
    if (v->dtype != VTA_DT_F32 || v->rank < 0) {
      vta_error_set(err, VTA_ERR_UNSUPPORTED, "value '%s' is %s; the runtime handles float32 only",
                    v->name, vta_dtype_name(v->dtype));
      goto bad;
    }
    size_t n = vta_value_bytes(v);
    m->buf[i] = calloc(1, n ? n : 4);
    if (!m->buf[i]) goto nomem;
    m->owned[i] = 1;
  }
  for (int i = 0; i < g->n_nodes; i++) {
    int vals[64];
    int n = vta_kernel_args(g, i, vals);
    m->args[i] = calloc((size_t)n + 1, sizeof(void *));
    if (!m->args[i]) goto nomem;
    for (int k = 0; k < n; k++) m->args[i][k] = m->buf[vals[k]];
  }
  double t0 = now_ms();
  m->jit = vta_cpu_jit_create(code, g, m->fns, err);
  if (!m->jit) goto bad;
  m->t.jit_ms = now_ms() - t0;
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
  if (vta_bundle_read(bundle, size, &g, &code, err)) return NULL;
  vta_model *m = model_build(g, &code, NULL, err);
  vta_cpu_code_free(&code);
  return m;
}

vta_model *vta_model_open(const char *path, vta_error *err) {
  return vta_model_open_shaped(path, 0, NULL, NULL, NULL, err);
}

vta_model *vta_model_open_shaped(const char *path, int n_shapes, const char *const *names,
                                 const int *ranks, const int64_t (*dims)[8], vta_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    vta_error_set(err, VTA_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    return NULL;
  }
  char magic[4] = {0};
  size_t got = fread(magic, 1, 4, f);
  if (got == 4 && memcmp(magic, "VTAB", 4) == 0) {
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(n > 0 ? (size_t)n : 1);
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) {
      free(b);
      fclose(f);
      vta_error_set(err, VTA_ERR_IO, "%s: read error", path);
      return NULL;
    }
    fclose(f);
    vta_model *m = vta_model_load(b, (size_t)n, err);
    free(b);
    if (!m) vta_error_prefix(err, "%s", path);
    return m;
  }
  fclose(f);
  vta_model_timing t = {0};
  double t0 = now_ms();
  vta_import_opts io = {0};
  io.n_shapes = n_shapes;
  io.shape_names = names;
  io.shape_ranks = ranks;
  io.shape_dims = dims;
  vta_graph *g = vta_onnx_import_file(path, &io, err);
  if (!g) return NULL;
  double t1 = now_ms();
  vta_compile_opts o = {0};
  if (vta_compile_graph(g, &o, err)) {
    vta_error_prefix(err, "%s", path);
    vta_graph_destroy(g);
    return NULL;
  }
  double t2 = now_ms();
  vta_cpu_code code;
  /* Only the native object: it is linked straight away, bitcode would be unused. */
  if (vta_codegen_llvm_for(g, NULL, VTA_CODE_OBJECT, &code, err)) {
    vta_error_prefix(err, "%s", path);
    vta_graph_destroy(g);
    return NULL;
  }
  double t3 = now_ms();
  t.import_ms = t1 - t0;
  t.passes_ms = t2 - t1;
  t.codegen_ms = t3 - t2;
  vta_model *m = model_build(g, &code, &t, err);
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

int vta_model_run(vta_model *m, vta_error *err) {
  for (int i = 0; i < m->g->n_nodes; i++)
    if (m->fns[i]) m->fns[i](m->args[i]);
  (void)err;
  return 0;
}

const float *vta_model_output(const vta_model *m, int k) { return m->buf[m->g->outputs[k]]; }
