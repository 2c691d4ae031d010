/* model.c - the vta tool's model loader: a bundle (or an ONNX file compiled in memory) becomes a
 * runtime plan (compiler/plan_build.c) plus CPU kernels linked by LLVM's JIT, run by the model
 * runtime library (runtime/model.c) like any deployed model.
 *
 * The design idea: the tool and a deployed model share one runtime, so what `vta run` measures
 * and checks is what a board runs; only where the kernels come from differs (here the JIT links
 * the bundle's object, or compiles its bitcode; there an object compiled ahead of time). The
 * accelerator nodes of a version 4 bundle have no CPU code: it is compiled the first time the
 * cpu backend reaches one (the runtime's fallback hook), since most runs never need it.
 */
#include "host/model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"
#include "compiler/plan_build.h"
#include "vta/file.h"
#include "vta/limits.h"

/* What the tool keeps beside a runtime model: the graph its kernels were made from, the JIT
 * that owns their code. */
typedef struct host_model {
  vta_graph *g;
  vta_cpu_jit *jit;
  vta_kernel_fn *fns;
  vta_model_timing t;
} host_model;

static void host_release(void *ctx) {
  host_model *h = ctx;
  if (!h) return;
  vta_cpu_jit_destroy(h->jit);
  free(h->fns);
  vta_graph_destroy(h->g);
  free(h);
}

/* The accelerator nodes' CPU code, compiled when the cpu backend first needs it. */
static int compile_missing(vta_model *m, void *ctx, const unsigned char *missing, vta_error *err) {
  host_model *h = ctx;
  double t0 = vta_now_ms();
  vta_cpu_code code;
  if (vta_codegen_llvm_nodes(h->g, NULL, VTA_CODE_OBJECT, missing, &code, err)) {
    vta_error_prefix(err, "the accelerator nodes' CPU code");
    return -1;
  }
  int rc = vta_cpu_jit_add(h->jit, &code, h->g, missing, h->fns, err);
  vta_cpu_code_free(&code);
  if (rc || vta_model_set_kernels(m, h->fns, (uint32_t)h->g->n_nodes, missing, err)) return -1;
  h->t.codegen_ms += vta_now_ms() - t0;
  return 0;
}

/* Takes ownership of g; code is only read. acc (may be NULL): the bundle's accelerator layers,
 * whose nodes have no CPU code when code->skips_acc. */
static vta_model *model_build(vta_graph *g, const vta_cpu_code *code, const vta_bundle_acc *acc,
                              const char *name, vta_model_timing *t, vta_error *err) {
  host_model *h = calloc(1, sizeof *h);
  unsigned char *have = NULL, *plan = NULL;
  size_t plan_size = 0;
  vta_model *m = NULL;
  if (!h) {
    vta_graph_destroy(g);
    vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
    return NULL;
  }
  h->g = g;
  if (t) h->t = *t;
  h->fns = calloc((size_t)g->n_nodes + 1, sizeof *h->fns);
  if (!h->fns) {
    vta_error_set(err, VTA_ERR_NOMEM, "out of memory setting up the model");
    goto bad;
  }
  if (code->skips_acc && acc && acc->n) {
    have = malloc((size_t)g->n_nodes + 1);
    if (!have) {
      vta_error_set(err, VTA_ERR_NOMEM, "out of memory setting up the model");
      goto bad;
    }
    memset(have, 1, (size_t)g->n_nodes);
    for (int k = 0; k < acc->n; k++) have[acc->layers[k].node] = 0;
    for (int i = 0; i < g->n_nodes; i++) /* a fused add: placed on the accelerator, no code */
      if (vta_node_fused(g, i)) have[i] = 0;
  }
  if (vta_plan_build(g, acc, &plan, &plan_size, err)) goto bad;
  double t0 = vta_now_ms();
  h->jit = vta_cpu_jit_create_for(code, g, have, h->fns, err);
  if (!h->jit) goto bad;
  h->t.jit_ms = vta_now_ms() - t0;
  m = vta_model_from_plan(plan, plan_size, name, h->fns, (uint32_t)g->n_nodes, err);
  if (!m) goto bad;
  vta_model_set_owner(m, h, host_release, compile_missing);
  free(have);
  free(plan);
  return m;
bad:
  free(have);
  free(plan);
  host_release(h);
  return NULL;
}

vta_model *vta_model_load(const unsigned char *bundle, size_t size, vta_error *err) {
  vta_graph *g;
  vta_cpu_code code;
  vta_bundle_acc acc;
  if (vta_bundle_read_acc(bundle, size, &g, &code, &acc, err)) return NULL;
  vta_model *m = model_build(g, &code, &acc, "bundle", NULL, err);
  vta_cpu_code_free(&code);
  vta_bundle_acc_free(&acc);
  return m;
}

const vta_model_timing *vta_model_timings(const vta_model *m) {
  return &((const host_model *)vta_model_owner(m))->t;
}

vta_model *vta_model_open(const char *path, vta_error *err) {
  return vta_model_open_shaped(path, 0, NULL, NULL, NULL, err);
}

vta_model *vta_model_open_shaped(const char *path, int n_shapes, const char *const *names,
                                 const int *ranks, const int64_t (*dims)[8], vta_error *err) {
  vta_import_opts io = {0};
  io.n_shapes = n_shapes;
  io.shape_names = names;
  io.shape_ranks = ranks;
  io.shape_dims = dims;
  return vta_model_open_import(path, &io, err);
}

vta_model *vta_model_open_import(const char *path, const vta_import_opts *io, vta_error *err) {
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
  vta_graph *g = vta_onnx_import(b, n, io, err);
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
  vta_model *m = model_build(g, &code, NULL, path, &t, err);
  vta_cpu_code_free(&code);
  if (!m) vta_error_prefix(err, "%s", path);
  return m;
}
