/* test_conformance.c - ONNX's own tests (Debian's libonnx-testdata: all 1,072 of its node,
 * pytorch-converted, pytorch-operator and simple folders) through
 * the whole compiler: import, passes, LLVM code, JIT, run, compare (floats to 1e-4 relative,
 * other types exactly).
 *
 * Every test directory is passed, failed or refused: a model that imports and compiles is run
 * and compared; one the compiler refuses (an operator refused by name, an element type or
 * attribute value it does not handle) is counted with the compiler's reason. Each test runs
 * first with its inputs given at run time; when the compiler refuses that (a shape or axis
 * computed at run time), again with the non-float32 inputs fixed at compile time. No test may fail; the operators
 * claimed in VTA_GOPS (compiler.h) must pass at least one test; at least MIN_PASSED pass. The
 * tables of docs/conformance.md are written with VTA_CONFORMANCE_TABLE=path.
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
#include "onnx/onnx.pb-c.h"

/* Debian's libonnx-testdata: its four folders of test models (the "real" folder holds only
 * links to models the package does not ship). */
#define DATA_DIR "/usr/share/libonnx-testdata/data"
static const char *const FOLDERS[] = {"node", "pytorch-converted", "pytorch-operator", "simple"};
#define N_FOLDERS ((int)(sizeof FOLDERS / sizeof FOLDERS[0]))

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

/* The older test folders (pytorch-converted, pytorch-operator) store their data tensors without
 * names: the k-th file is the model's k-th graph input (the exporter lists the data inputs
 * before its parameters). Names such tensors so. */
static void name_inputs(const char *dir, vta_gvalue *ins, int n_in) {
  char path[1024];
  snprintf(path, sizeof path, "%s/model.onnx", dir);
  size_t n;
  unsigned char *b = slurp(path, &n);
  if (!b) return;
  Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, n, b);
  free(b);
  if (!m) return;
  for (int k = 0; k < n_in && m->graph && (size_t)k < m->graph->n_input; k++)
    if (ins[k].name && !ins[k].name[0] && m->graph->input[k]->name) {
      free(ins[k].name);
      ins[k].name = strdup(m->graph->input[k]->name);
    }
  onnx__model_proto__free_unpacked(m, NULL);
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

/* Runs one test directory; fills op with the first node's operator name. With fix_ints, the
 * integer (and other non-float32) inputs are compile-time constants. */
static int run_one(const char *dir, char *op, size_t opsize, char *why, size_t wsize, int fix_ints, int *compiled) {
  char path[1024];
  vta_gvalue ins[16], outs[16];
  const char *names[16];
  int n_in = 0, n_out = 0, rc = R_FAIL;
  why[0] = 0;
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
  name_inputs(dir, ins, n_in);
  /* Integer inputs become compile-time constants; so do the float parameter inputs of the
   * operators that take parameters as tensors (Clip's bounds, Pad's value, Resize's scales,
   * OneHot's depth and values, Upsample's scales, Range's bounds, BatchNormalization's scale, bias,
   * mean and variance), which the compiler requires to be known at compile time. */
  const char *base = strrchr(dir, '/') + 1;
  int params = strncmp(base, "test_clip", 9) == 0 || strncmp(base, "test_constant_pad", 17) == 0 ||
               strncmp(base, "test_resize", 11) == 0 || strncmp(base, "test_onehot", 11) == 0 ||
               strncmp(base, "test_upsample", 13) == 0 || strncmp(base, "test_batchnorm", 14) == 0;
  /* Range's every input decides its output's length. */
  int all_params = strncmp(base, "test_range", 10) == 0;
  /* The quantized operators: every input but the data (scales, zero points, weights, bias) is
   * fixed, so the integer data itself runs through the generated code. */
  int quant = strncmp(base, "test_quantizelinear", 19) == 0 || strncmp(base, "test_dequantizelinear", 21) == 0 ||
              strncmp(base, "test_qlinear", 12) == 0 || strstr(base, "convinteger") ||
              strncmp(base, "test_matmulinteger", 18) == 0;
  int n_fixed = 0;
  vta_gvalue fixed[16];
  for (int k = 0; k < n_in; k++)
    if (quant ? k > 0 : ((fix_ints && ins[k].dtype != VTA_DT_F32) || (params && k > 0) || all_params))
      names[n_fixed] = ins[k].name, fixed[n_fixed++] = ins[k];
  /* The run-time inputs' shapes are the data's (symbolic dimensions take them). */
  const char *snames[16];
  int sranks[16], n_shapes = 0;
  int64_t sdims[16][VTA_MAX_RANK];
  for (int k = 0; k < n_in; k++) {
    int fixed = 0;
    for (int f = 0; f < n_fixed; f++) fixed |= names[f] == ins[k].name;
    if (fixed || ins[k].rank > VTA_MAX_RANK) continue;
    snames[n_shapes] = ins[k].name;
    sranks[n_shapes] = ins[k].rank;
    memcpy(sdims[n_shapes], ins[k].dims, sizeof sdims[0]);
    n_shapes++;
  }
  vta_import_opts io = {0};
  io.n_shapes = fix_ints ? 0 : n_shapes;
  io.shape_names = snames;
  io.shape_ranks = sranks;
  io.shape_dims = (const int64_t(*)[VTA_MAX_RANK])sdims;
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
  *compiled = 1;
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
      if (strcmp(ins[j].name, gv->name) == 0) {
        if (vta_value_bytes(gv) != vta_value_bytes(&ins[j]) || gv->dtype != ins[j].dtype) {
          snprintf(why, wsize, "input '%s': the compiled graph's shape or type differs from the data's", gv->name);
          rc = R_FAIL;
          goto out;
        }
        memcpy(bufs[g->inputs[k]], ins[j].data, vta_value_bytes(gv));
      }
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
    int real = gv->dtype == VTA_DT_F32 || gv->dtype == VTA_DT_F64 || gv->dtype == VTA_DT_F16;
    /* float16 results computed in wider precision and rounded once may differ from ONNX's
     * float16 arithmetic by an ulp (2^-10 relative). */
    double tol = gv->dtype == VTA_DT_F16 ? 1.0 / 1024 : 1e-4;
    vta_gvalue got = *gv;
    got.data = bufs[g->outputs[k]];
    for (int64_t j = 0; j < n; j++) {
      /* Floats to 1e-4 relative (NaN matches NaN), every other type exactly. */
      double a = vta_elem_get(&got, j), b = vta_elem_get(&outs[k], j);
      if (real && isnan(a) && isnan(b)) continue;
      if (real ? !(fabs(a - b) <= tol * (fabs(b) > 1 ? fabs(b) : 1)) || (isinf(b) && a != b) : a != b) {
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

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The floor under the number of node tests that pass: raise it with every operator added (the
 * count measured when it was last raised). */
#define MIN_PASSED 919

static void test_conformance_all_tests_pass(void **state) {
  (void)state;
  /* Every test folder of the four, as "folder/test_name", sorted by folder then name. */
  char *dirs[2000];
  int nd = 0, per_folder[N_FOLDERS];
  for (int f = 0; f < N_FOLDERS; f++) {
    char fpath[512];
    snprintf(fpath, sizeof fpath, "%s/%s", DATA_DIR, FOLDERS[f]);
    DIR *d = opendir(fpath);
    if (!d) {
      print_error("%s is missing: install libonnx-testdata (scripts/deps.sh)\n", fpath);
      fail();
    }
    int first = nd;
    struct dirent *e;
    while ((e = readdir(d)) && nd < 2000)
      if (strncmp(e->d_name, "test_", 5) == 0) {
        char name[512];
        snprintf(name, sizeof name, "%s/%s", FOLDERS[f], e->d_name);
        dirs[nd++] = strdup(name);
      }
    closedir(d);
    per_folder[f] = nd - first;
    qsort(dirs + first, (size_t)(nd - first), sizeof dirs[0], cmp);
  }
  struct { char op[32]; int pass, fail, refused; } tab[VTA_GOP_COUNT + 1];
  memset(tab, 0, sizeof tab);
  /* VTA_CONFORMANCE_TABLE=path writes the tables of docs/conformance.md: per operator, then
   * every test with its result and, unless it passed, the reason. */
  const char *tpath = getenv("VTA_CONFORMANCE_TABLE");
  FILE *log = tpath ? fopen(tpath, "w") : NULL;
  char *rows = calloc((size_t)nd, 1400);
  assert_non_null(rows);
  int claimed_fail = 0, total[3] = {0, 0, 0}, ftotal[N_FOLDERS][3];
  memset(ftotal, 0, sizeof ftotal);
  for (int i = 0; i < nd; i++) {
    char dir[1024], op[64], why[1200] = "";
    snprintf(dir, sizeof dir, "%s/%s", DATA_DIR, dirs[i]);
    /* First with every data input given at run time, in the data's shapes (the generated
     * code computes the result); if the model does not compile that way, with the integer
     * inputs fixed and the declared shapes (what depends only on constants is then folded
     * by the references). */
    int compiled = 0;
    int r = run_one(dir, op, sizeof op, why, sizeof why, 0, &compiled);
    if (!compiled) r = run_one(dir, op, sizeof op, why, sizeof why, 1, &compiled);
    total[r]++;
    vta_gop o = vta_op_lookup(op);
    int slot = o < VTA_GOP_COUNT ? (int)o : VTA_GOP_COUNT;
    snprintf(tab[slot].op, sizeof tab[slot].op, "%s", o < VTA_GOP_COUNT ? op : "(other)");
    if (r == R_PASS) tab[slot].pass++;
    else if (r == R_FAIL) tab[slot].fail++;
    else tab[slot].refused++;
    for (char *p = why; *p; p++)
      if (*p == '|' || *p == '\n') *p = ' ';
    /* The reason without the test directory's path. */
    const char *reason = why, *cut = strstr(why, "model.onnx: ");
    if (cut) reason = cut + 12;
    /* Node tests by their bare name (as ONNX names them), the others as folder/name. */
    const char *slash = strchr(dirs[i], '/');
    char shown[600];
    if (strncmp(dirs[i], "node/", 5) == 0) snprintf(shown, sizeof shown, "%s", slash + 6);
    else snprintf(shown, sizeof shown, "%.*s/%s", (int)(slash - dirs[i]), dirs[i], slash + 6);
    for (int f = 0; f < N_FOLDERS; f++)
      if (strncmp(dirs[i], FOLDERS[f], strlen(FOLDERS[f])) == 0 && dirs[i][strlen(FOLDERS[f])] == '/')
        ftotal[f][r]++;
    snprintf(rows + (size_t)i * 1400, 1400, "| %s | %s | %s | %s |\n", shown, o < VTA_GOP_COUNT ? op : "",
             r == R_PASS ? "passed" : r == R_FAIL ? "FAILED" : "refused", reason);
    if (r == R_FAIL) print_error("%s (%s) fails: %s\n", dirs[i], op, why);
    if (vta_op_claimed(o) && r == R_FAIL) claimed_fail++;
    free(dirs[i]);
  }
  if (log) {
    fprintf(log, "%d tests: %d passed, %d failed, %d refused.\n\n| folder | tests | passed | failed | refused |\n"
                 "| --- | --- | --- | --- | --- |\n", nd, total[R_PASS], total[R_FAIL], total[R_UNSUPPORTED]);
    for (int f = 0; f < N_FOLDERS; f++)
      fprintf(log, "| %s | %d | %d | %d | %d |\n", FOLDERS[f], per_folder[f], ftotal[f][R_PASS], ftotal[f][R_FAIL],
              ftotal[f][R_UNSUPPORTED]);
    fprintf(log, "\n| operator | passed | failed | refused |\n| --- | --- | --- | --- |\n");
  }
  for (int k = 0; k <= VTA_GOP_COUNT; k++) {
    if (!tab[k].op[0]) continue;
    if (log) fprintf(log, "| %s | %d | %d | %d |\n", tab[k].op, tab[k].pass, tab[k].fail, tab[k].refused);
    if (k < VTA_GOP_COUNT && vta_op_claimed((vta_gop)k) && tab[k].pass == 0) {
      print_error("claimed operator %s passed no test\n", tab[k].op);
      claimed_fail++;
    }
  }
  if (log) {
    fprintf(log, "\n| test | operator | result | reason |\n| --- | --- | --- | --- |\n");
    for (int i = 0; i < nd; i++) fputs(rows + (size_t)i * 1400, log);
    fclose(log);
  }
  free(rows);
  for (int f = 0; f < N_FOLDERS; f++)
    print_message("%s: %d tests, %d passed, %d failed, %d refused\n", FOLDERS[f], per_folder[f], ftotal[f][R_PASS],
                  ftotal[f][R_FAIL], ftotal[f][R_UNSUPPORTED]);
  print_message("%d tests: %d passed, %d failed, %d refused\n", nd, total[R_PASS], total[R_FAIL],
                total[R_UNSUPPORTED]);
  assert_int_equal(claimed_fail, 0);
  assert_int_equal(total[R_FAIL], 0);
  assert_true(total[R_PASS] >= MIN_PASSED);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_conformance_all_tests_pass)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
