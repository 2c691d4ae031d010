/* test_aot.c - ahead-of-time CPU code (`vta compile --emit obj`): the object for this machine
 * links with the system C compiler into a shared library that computes the same results as the
 * JIT with no LLVM involved at run time, and objects for other targets are real objects of
 * those architectures (ELF class and machine checked).
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "compiler/compiler.h"

/* A convolution (GEMM path), a depthwise convolution, a pool and a softmax: every kind of
 * kernel, with libm (expf) and memcpy among the symbols the object needs. */
static const char *TEXT =
    "vta-graph opset=13\n"
    "input %x f32[1,2,6,6]\n"
    "const %w f32[3,2,1,1] = [0.5, -1, 0.25, 2, -0.5, 1]\n"
    "const %d f32[3,1,3,3] = [1, 0, -1, 2, 0, -2, 1, 0, -1, 0.5, 0.5, 0.5, 0, 0, 0, -0.5, -0.5, -0.5, "
    "0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]\n"
    "const %shape i64[2] = [1, -1]\n"
    "%c f32[?] = Conv(%x, %w) group=1 kernel_shape=[1,1] strides=[1,1] dilations=[1,1] pads=[0,0,0,0]\n"
    "%r f32[?] = Relu(%c)\n"
    "%e f32[?] = Conv(%r, %d) group=3 kernel_shape=[3,3] strides=[1,1] dilations=[1,1] pads=[1,1,1,1]\n"
    "%p f32[?] = MaxPool(%e) kernel_shape=[2,2] strides=[2,2] pads=[0,0,0,0]\n"
    "%f f32[?] = Reshape(%p, %shape)\n"
    "%y f32[?] = Softmax(%f) axis=1\n"
    "output %y\n";

static vta_graph *graph(void) {
  vta_error err = {0};
  vta_graph *g = vta_graph_parse(TEXT, strlen(TEXT), NULL, 0, &err);
  if (!g) fail_msg("%s", err.msg);
  if (vta_compile_graph(g, NULL, &err)) fail_msg("%s", err.msg);
  return g;
}

/* Runs every node's kernel (from fns) over buffers; returns a copy of output 0. */
static float *run(const vta_graph *g, vta_kernel_fn *fns, const float *x) {
  void **buf = calloc((size_t)g->n_values, sizeof *buf);
  for (int v = 0; v < g->n_values; v++)
    buf[v] = g->values[v].data ? g->values[v].data : calloc(1, vta_value_bytes(&g->values[v]) + 4);
  memcpy(buf[g->inputs[0]], x, vta_value_bytes(&g->values[g->inputs[0]]));
  for (int i = 0; i < g->n_nodes; i++) {
    if (!vta_node_needs_code(g, i)) continue;
    assert_non_null(fns[i]);
    /* A node with a kernel has at most VTA_KERNEL_MAX_ARGS args (codegen refuses more). */
    int vals[VTA_KERNEL_MAX_ARGS];
    void *args[VTA_KERNEL_MAX_ARGS];
    int n = vta_kernel_args(g, i, vals, VTA_KERNEL_MAX_ARGS);
    for (int k = 0; k < n; k++) args[k] = buf[vals[k]];
    fns[i](args);
  }
  size_t bytes = vta_value_bytes(&g->values[g->outputs[0]]);
  float *y = malloc(bytes);
  memcpy(y, buf[g->outputs[0]], bytes);
  for (int v = 0; v < g->n_values; v++)
    if (!g->values[v].data) free(buf[v]);
  free(buf);
  return y;
}

static void test_aot_host_object_links_and_matches_jit(void **state) {
  (void)state;
  vta_graph *g = graph();
  vta_error err = {0};
  vta_cpu_code code;
  if (vta_codegen_llvm(g, &code, &err)) fail_msg("%s", err.msg);
  char dir[] = "/tmp/vta_aot.XXXXXX";
  assert_non_null(mkdtemp(dir));
  char obj[64], so[64], cmd[256];
  snprintf(obj, sizeof obj, "%s/k.o", dir);
  snprintf(so, sizeof so, "%s/k.so", dir);
  FILE *f = fopen(obj, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(code.object, 1, code.object_size, f), code.object_size);
  fclose(f);
  snprintf(cmd, sizeof cmd, "cc -shared -o %s %s -lm", so, obj);
  assert_int_equal(system(cmd), 0);
  void *lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!lib) fail_msg("dlopen: %s", dlerror());
  vta_kernel_fn *aot = calloc((size_t)g->n_nodes, sizeof *aot), *jit = calloc((size_t)g->n_nodes, sizeof *jit);
  for (int i = 0; i < g->n_nodes; i++) {
    if (!vta_node_needs_code(g, i)) continue;
    char name[32];
    vta_kernel_name(i, name, sizeof name);
    aot[i] = (vta_kernel_fn)(uintptr_t)dlsym(lib, name);
    if (!aot[i]) fail_msg("%s is not exported by the object", name);
  }
  vta_cpu_jit *j = vta_cpu_jit_create(&code, g, jit, &err);
  assert_non_null(j);
  float x[72];
  for (int i = 0; i < 72; i++) x[i] = (float)((i * 7) % 13) * 0.25f - 1.5f;
  float *ya = run(g, aot, x), *yj = run(g, jit, x);
  int64_t n = vta_value_count(&g->values[g->outputs[0]]);
  float sum = 0;
  for (int64_t i = 0; i < n; i++) {
    assert_float_equal(ya[i], yj[i], 0);
    sum += ya[i];
  }
  assert_float_equal(sum, 1.0f, 1e-5); /* a softmax: the run did compute something */
  free(ya);
  free(yj);
  vta_cpu_jit_destroy(j);
  dlclose(lib);
  free(aot);
  free(jit);
  unlink(obj);
  unlink(so);
  rmdir(dir);
  vta_cpu_code_free(&code);
  vta_graph_destroy(g);
}

static void check_foreign(const char *triple, const char *features, int elf_class, int machine) {
  vta_graph *g = graph();
  vta_error err = {0};
  vta_cpu_target t;
  snprintf(t.triple, sizeof t.triple, "%s", triple);
  t.cpu[0] = 0; /* the target's default CPU ("generic" would be fatal for RISC-V in LLVM 14) */
  snprintf(t.features, sizeof t.features, "%s", features);
  vta_cpu_code code;
  if (vta_codegen_llvm_for(g, &t, VTA_CODE_OBJECT, &code, &err)) fail_msg("%s: %s", triple, err.msg);
  const unsigned char *o = code.object;
  assert_true(code.object_size > 64);
  assert_memory_equal(o, "\x7f" "ELF", 4);
  assert_int_equal(o[4], elf_class);
  assert_int_equal(o[18] | o[19] << 8, machine);
  /* The object for another machine cannot be linked here: the JIT needs bitcode, and says so. */
  vta_kernel_fn fns[16];
  assert_null(vta_cpu_jit_create(&code, g, fns, &err));
  assert_non_null(strstr(err.msg, triple));
  vta_cpu_code_free(&code);
  vta_graph_destroy(g);
}

static void test_aot_foreign_targets_get_their_objects(void **state) {
  (void)state;
  check_foreign("aarch64-linux-gnu", "+neon", 2, 183);         /* ELFCLASS64, EM_AARCH64 */
  check_foreign("armv7a-linux-gnueabihf", "+neon,+vfp4", 1, 40); /* ELFCLASS32, EM_ARM */
  check_foreign("riscv64-linux-gnu", "+m,+a,+f,+d", 2, 243);    /* EM_RISCV */
}

static void test_aot_unknown_triple_is_refused(void **state) {
  (void)state;
  vta_graph *g = graph();
  vta_error err = {0};
  vta_cpu_target t = {.triple = "z80-unknown-none", .cpu = "", .features = ""};
  vta_cpu_code code;
  assert_int_not_equal(vta_codegen_llvm_for(g, &t, VTA_CODE_OBJECT, &code, &err), 0);
  assert_non_null(strstr(err.msg, "no LLVM target for triple 'z80-unknown-none'"));
  vta_graph_destroy(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_aot_host_object_links_and_matches_jit),
      cmocka_unit_test(test_aot_foreign_targets_get_their_objects),
      cmocka_unit_test(test_aot_unknown_triple_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
