/* test_gen_resnet.c - the built-in ResNet-18 (compiler/gen_resnet.c): a valid ONNX model of the
 * published architecture, the same bytes for the same seed, and through the compiler: int8 with
 * every convolution (the first one included) on the accelerator, fsim bit-identical to the
 * CPU code, close to float.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compiler/compiler.h"
#include "compiler/partition.h"
#include "host/calib.h"
#include "host/model.h"
#include "vta/config.h"

static vta_graph *import_resnet(void) {
  unsigned char *b;
  size_t n;
  vta_error err = {0};
  if (vta_gen_resnet18(7, &b, &n, &err)) fail_msg("%s", err.msg);
  vta_graph *g = vta_onnx_import(b, n, NULL, &err);
  free(b);
  if (!g) fail_msg("%s", err.msg);
  return g;
}

static void test_gen_resnet18_is_the_published_architecture(void **state) {
  (void)state;
  unsigned char *a, *b;
  size_t na, nb;
  vta_error err = {0};
  assert_int_equal(vta_gen_resnet18(7, &a, &na, &err), 0);
  assert_int_equal(vta_gen_resnet18(7, &b, &nb, &err), 0);
  assert_int_equal(na, nb); /* deterministic */
  assert_memory_equal(a, b, na);
  free(b);
  assert_int_equal(vta_gen_resnet18(8, &b, &nb, &err), 0);
  assert_true(nb == na && memcmp(a, b, na) != 0); /* another seed, other weights */
  free(a);
  free(b);
  vta_graph *g = import_resnet();
  int count[VTA_GOP_COUNT] = {0};
  for (int i = 0; i < g->n_nodes; i++) count[g->nodes[i].op]++;
  assert_int_equal(count[VTA_GOP_CONV], 20); /* conv1, 16 in the blocks, 3 downsampling */
  assert_int_equal(count[VTA_GOP_BATCHNORM], 20);
  assert_int_equal(count[VTA_GOP_ADD], 8);
  assert_int_equal(count[VTA_GOP_RELU], 17);
  assert_int_equal(count[VTA_GOP_MAXPOOL], 1);
  assert_int_equal(count[VTA_GOP_GLOBAL_AVGPOOL], 1);
  assert_int_equal(count[VTA_GOP_GEMM], 1);
  assert_int_equal(vta_shape_infer(g, &err), 0);
  const vta_gvalue *out = &g->values[g->outputs[0]];
  assert_int_equal(out->rank, 2);
  assert_int_equal(out->dims[1], 1000);
  uint64_t macs = 0;
  for (int i = 0; i < g->n_nodes; i++) macs += vta_node_macs(g, i);
  assert_int_equal(macs, 1814073344ull); /* ResNet-18 at 224x224: 1.81 GMACs */
  vta_graph_destroy(g);
}

static void test_gen_resnet18_int8_on_accelerator(void **state) {
  (void)state;
  vta_error err = {0};
  vta_graph *gf = import_resnet();
  vta_calib_set cs;
  char src[64];
  assert_int_equal(vta_calib_load_noise(gf, &cs, src, sizeof src, &err), 0);
  vta_calib cal;
  vta_calib_view(&cs, &cal);
  vta_graph *g = import_resnet();
  vta_quant_opts qo = {.calib = &cal};
  vta_config cfg;
  vta_config_default(&cfg);
  vta_place *places = NULL;
  vta_compile_opts o = {.quant = &qo, .accel = &cfg, .places = &places};
  if (vta_compile_graph(g, &o, &err)) fail_msg("%s", err.msg);
  if (vta_compile_graph(gf, NULL, &err)) fail_msg("%s", err.msg);
  int convs = 0, first = -1;
  uint64_t acc = 0, all = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    if (g->nodes[i].op == VTA_GOP_QCONV) {
      convs++;
      if (first < 0) first = i;
      if (!places[i].acc) fail_msg("node %d '%s' stays on the CPU: %s", i, g->nodes[i].name, places[i].why);
    }
    all += places[i].macs;
    acc += places[i].acc ? places[i].macs : 0;
  }
  free(places);
  assert_int_equal(convs, 20);
  assert_string_equal(g->nodes[first].name, "conv1.conv");
  assert_true((double)acc / (double)all > 0.999); /* only the classifier (0.03%) on the CPU */
  /* Bundles, one input; fsim bit-identical to the CPU code, close to float. */
  vta_cpu_code qc, fc;
  vta_bundle_acc ba;
  unsigned char *qb, *fb;
  size_t qn, fn;
  assert_int_equal(vta_codegen_llvm(g, &qc, &err), 0);
  if (vta_acc_bundle(g, &cfg, &ba, &err)) fail_msg("%s", err.msg);
  assert_int_equal(vta_bundle_write_acc(g, &qc, &ba, &qb, &qn, &err), 0);
  assert_int_equal(vta_codegen_llvm(gf, &fc, &err), 0);
  assert_int_equal(vta_bundle_write(gf, &fc, &fb, &fn, &err), 0);
  const float *x = cs.data[0];
  float y[3][1000];
  const char *backends[3] = {"cpu", "fsim", NULL};
  for (int k = 0; k < 3; k++) {
    vta_model *m = k < 2 ? vta_model_load(qb, qn, &err) : vta_model_load(fb, fn, &err);
    if (!m) fail_msg("%s", err.msg);
    if (backends[k] && vta_model_set_backend(m, backends[k], NULL, &err)) fail_msg("%s", err.msg);
    assert_int_equal(vta_model_set_input(m, 0, x, 3 * 224 * 224, &err), 0);
    if (vta_model_run(m, &err)) fail_msg("%s", err.msg);
    memcpy(y[k], vta_model_output(m, 0), sizeof y[k]);
    vta_model_destroy(m);
  }
  assert_memory_equal(y[0], y[1], sizeof y[0]);
  double e = 0, s = 0;
  int am = 0, af = 0;
  for (int j = 0; j < 1000; j++) {
    e += (y[1][j] - y[2][j]) * (y[1][j] - y[2][j]), s += y[2][j] * y[2][j];
    if (y[1][j] > y[1][am]) am = j;
    if (y[2][j] > y[2][af]) af = j;
  }
  print_message("resnet18 int8 vs float: NMSE %.3g, top class %d vs %d\n", e / s, am, af);
  assert_true(e / s < 0.01);
  assert_int_equal(am, af);
  free(qb);
  free(fb);
  vta_bundle_acc_free(&ba);
  vta_cpu_code_free(&qc);
  vta_cpu_code_free(&fc);
  vta_calib_set_free(&cs);
  vta_graph_destroy(g);
  vta_graph_destroy(gf);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gen_resnet18_is_the_published_architecture),
      cmocka_unit_test(test_gen_resnet18_int8_on_accelerator),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
