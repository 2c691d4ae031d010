/* test_conformance.c - ONNX's own per-operator node tests (Debian's libonnx-testdata) through
 * the whole compiler: import, passes, LLVM code, JIT, run, compare (1e-4 relative).
 *
 * Every test directory whose model imports and compiles is run; tests the compiler refuses as
 * unsupported (another element type, an unsupported attribute value) are counted, not run.
 * Integer inputs (shapes, axes) are fixed at compile time as constants. The operators in
 * CLAIMED must pass every test of theirs that compiles, and at least one; the table of all
 * results is written to build output for docs/compiler.md (VTA_CONFORMANCE_TABLE=path).
 */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compiler/compiler.h"

#define NODE_DIR "/usr/include/onnx/backend/test/data/node"

static unsigned char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc(len > 0 ? (size_t)len : 1);
  if (b && fread(b, 1, (size_t)len, f) != (size_t)len) {
    free(b);
    b = NULL;
  }
  fclose(f);
  *n = (size_t)len;
  return b;
}

static int read_tensor(const char *path, vta_gvalue *v) {
  size_t n;
  unsigned char *b = slurp(path, &n);
  if (!b) return -1;
  vta_error err;
  int rc = vta_onnx_read_tensor(b, n, v, &err);
  free(b);
  return rc;
}

enum { R_PASS, R_FAIL, R_UNSUPPORTED };

/* Runs one test directory; fills op with the first node's operator name. */
static int run_one(const char *dir, char *op, size_t opsize, char *why, size_t wsize) {
  char path[1024];
  vta_gvalue ins[16], outs[16];
  const char *names[16];
  int n_in = 0, n_out = 0, rc = R_FAIL;
  memset(ins, 0, sizeof ins);
  memset(outs, 0, sizeof outs);
  for (;; n_in++) {
    snprintf(path, sizeof path, "%s/test_data_set_0/input_%d.pb", dir, n_in);
    if (n_in >= 16 || read_tensor(path, &ins[n_in])) break;
  }
  for (;; n_out++) {
    snprintf(path, sizeof path, "%s/test_data_set_0/output_%d.pb", dir, n_out);
    if (n_out >= 16 || read_tensor(path, &outs[n_out])) break;
  }
  /* Integer inputs become compile-time constants; so do the float parameter inputs of the
   * operators that take parameters as tensors (Clip's bounds, Pad's value, Resize's scales),
   * which the compiler requires to be known at compile time. */
  const char *base = strrchr(dir, '/') + 1;
  int params = strncmp(base, "test_clip", 9) == 0 || strncmp(base, "test_constant_pad", 17) == 0 ||
               strncmp(base, "test_resize", 11) == 0;
  /* The quantized operators: every input but the data (scales, zero points, weights, bias) is
   * fixed, so the integer data itself runs through the generated code. */
  int quant = strncmp(base, "test_quantizelinear", 19) == 0 || strncmp(base, "test_dequantizelinear", 21) == 0 ||
              strncmp(base, "test_qlinear", 12) == 0 || strstr(base, "convinteger") ||
              strncmp(base, "test_matmulinteger", 18) == 0;
  int n_fixed = 0;
  vta_gvalue fixed[16];
  for (int k = 0; k < n_in; k++)
    if (quant ? k > 0 : (ins[k].dtype != VTA_DT_F32 || (params && k > 0)))
      names[n_fixed] = ins[k].name, fixed[n_fixed++] = ins[k];
  vta_import_opts io = {0};
  io.n_fixed = n_fixed;
  io.fixed_names = names;
  io.fixed_values = fixed;
  vta_error err = {0};
  snprintf(path, sizeof path, "%s/model.onnx", dir);
  vta_graph *g = vta_onnx_import_file(path, &io, &err);
  snprintf(op, opsize, "?");
  if (g && g->n_nodes) snprintf(op, opsize, "%s", vta_op_name(g->nodes[0].op));
  vta_cpu_code code = {0};
  vta_kernel_fn *fns = NULL;
  vta_cpu_jit *jit = NULL;
  void **bufs = NULL;
  if (!g || vta_compile_graph(g, NULL, &err) || vta_codegen_llvm(g, &code, &err)) {
    rc = err.status == VTA_ERR_UNSUPPORTED ? R_UNSUPPORTED : R_FAIL;
    snprintf(why, wsize, "%s", err.msg);
    goto out;
  }
  fns = calloc((size_t)g->n_nodes + 1, sizeof *fns);
  jit = vta_cpu_jit_create(&code, g, fns, &err);
  if (!jit) {
    snprintf(why, wsize, "%s", err.msg);
    goto out;
  }
  bufs = calloc((size_t)g->n_values + 1, sizeof *bufs);
  for (int v = 0; v < g->n_values; v++)
    bufs[v] = g->values[v].data ? g->values[v].data : calloc(1, vta_value_bytes(&g->values[v]) + 4);
  for (int k = 0; k < g->n_inputs; k++) {
    const vta_gvalue *gv = &g->values[g->inputs[k]];
    for (int j = 0; j < n_in; j++)
      if (strcmp(ins[j].name, gv->name) == 0) memcpy(bufs[g->inputs[k]], ins[j].data, vta_value_bytes(gv));
  }
  for (int i = 0; i < g->n_nodes; i++) {
    if (!fns[i]) continue;
    /* A node with a kernel has at most VTA_KERNEL_MAX_ARGS args (codegen refuses more). */
    int vals[VTA_KERNEL_MAX_ARGS];
    void *args[VTA_KERNEL_MAX_ARGS];
    int n = vta_kernel_args(g, i, vals, VTA_KERNEL_MAX_ARGS);
    for (int k = 0; k < n; k++) args[k] = bufs[vals[k]];
    fns[i](args);
  }
  rc = R_PASS;
  if (g->n_outputs != n_out) {
    snprintf(why, wsize, "%d outputs, expected %d", g->n_outputs, n_out);
    rc = R_FAIL;
  }
  for (int k = 0; k < n_out && rc == R_PASS; k++) {
    const vta_gvalue *gv = &g->values[g->outputs[k]];
    if (vta_value_count(gv) != vta_value_count(&outs[k]) || gv->dtype != outs[k].dtype) {
      snprintf(why, wsize, "output %d: shape or type differs", k);
      rc = R_FAIL;
      break;
    }
    int64_t n = vta_value_count(gv);
    for (int64_t j = 0; j < n; j++) {
      double a, b;
      if (gv->dtype == VTA_DT_F32) {
        a = ((float *)bufs[g->outputs[k]])[j];
        b = ((float *)outs[k].data)[j];
      } else if (gv->dtype == VTA_DT_I64) {
        a = (double)((int64_t *)bufs[g->outputs[k]])[j];
        b = (double)((int64_t *)outs[k].data)[j];
      } else {
        a = b = 0;
        if (memcmp(bufs[g->outputs[k]], outs[k].data, vta_value_bytes(gv))) a = 1;
      }
      if (isnan(a) && isnan(b)) continue;
      if (!(fabs(a - b) <= 1e-4 * (fabs(b) > 1 ? fabs(b) : 1))) {
        snprintf(why, wsize, "output %d element %lld: %.9g, expected %.9g", k, (long long)j, a, b);
        rc = R_FAIL;
        break;
      }
    }
  }
out:
  if (bufs)
    for (int v = 0; v < g->n_values; v++)
      if (!g->values[v].data) free(bufs[v]);
  free(bufs);
  vta_cpu_jit_destroy(jit);
  free(fns);
  vta_cpu_code_free(&code);
  vta_graph_destroy(g);
  for (int k = 0; k < n_in; k++) vta_value_free(&ins[k]);
  for (int k = 0; k < n_out; k++) vta_value_free(&outs[k]);
  return rc;
}

/* Operators whose every compiling node test must pass (the claimed table of docs/compiler.md). */
static const char *const CLAIMED[] = {
#include "tests/compiler/conformance_claimed.inc"
};

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void test_conformance_node_tests_pass(void **state) {
  (void)state;
  DIR *d = opendir(NODE_DIR);
  if (!d) {
    print_error("%s is missing: install libonnx-testdata (scripts/deps.sh)\n", NODE_DIR);
    fail();
  }
  char *dirs[2000];
  int nd = 0;
  struct dirent *e;
  while ((e = readdir(d)) && nd < 2000)
    if (strncmp(e->d_name, "test_", 5) == 0) dirs[nd++] = strdup(e->d_name);
  closedir(d);
  qsort(dirs, (size_t)nd, sizeof dirs[0], cmp);
  struct { char op[32]; int pass, fail, unsup; } tab[VTA_GOP_COUNT + 1];
  memset(tab, 0, sizeof tab);
  const char *tpath = getenv("VTA_CONFORMANCE_TABLE");
  FILE *log = tpath ? fopen(tpath, "w") : NULL;
  int claimed_fail = 0;
  for (int i = 0; i < nd; i++) {
    char dir[1024], op[64], why[1200] = "";
    snprintf(dir, sizeof dir, "%s/%s", NODE_DIR, dirs[i]);
    int r = run_one(dir, op, sizeof op, why, sizeof why);
    vta_gop o = vta_op_lookup(op);
    int slot = o < VTA_GOP_COUNT ? (int)o : VTA_GOP_COUNT;
    snprintf(tab[slot].op, sizeof tab[slot].op, "%s", o < VTA_GOP_COUNT ? op : "(other)");
    if (r == R_PASS) tab[slot].pass++;
    else if (r == R_FAIL) tab[slot].fail++;
    else tab[slot].unsup++;
    int claimed = 0;
    for (size_t k = 0; k < sizeof CLAIMED / sizeof CLAIMED[0]; k++)
      if (strcmp(CLAIMED[k], op) == 0) claimed = 1;
    if (log && r != R_PASS) fprintf(log, "# %s %s: %s\n", r == R_FAIL ? "FAIL" : "unsupported", dirs[i], why);
    if (claimed && r == R_FAIL) {
      print_error("%s (%s): %s\n", dirs[i], op, why);
      claimed_fail++;
    }
    free(dirs[i]);
  }
  for (int k = 0; k <= VTA_GOP_COUNT; k++) {
    if (!tab[k].op[0]) continue;
    if (log) fprintf(log, "| %s | %d | %d | %d |\n", tab[k].op, tab[k].pass, tab[k].fail, tab[k].unsup);
    for (size_t c = 0; c < sizeof CLAIMED / sizeof CLAIMED[0]; c++)
      if (strcmp(CLAIMED[c], tab[k].op) == 0 && tab[k].pass == 0) {
        print_error("claimed operator %s passed no test\n", tab[k].op);
        claimed_fail++;
      }
  }
  if (log) fclose(log);
  assert_int_equal(claimed_fail, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_conformance_node_tests_pass)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
