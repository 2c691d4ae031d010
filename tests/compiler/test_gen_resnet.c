/* test_gen_resnet.c - the built-in ResNet-18 (compiler/import/gen_resnet.c): a valid ONNX model of the
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
#include "compiler/accel/partition.h"
#include "host/calib.h"
#include "host/model.h"
#include "vta/config.h"
#include "vta/device.h"

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
  free(b);
  /* Imported from the ModelProto in memory: the graph of the serialised model, constants
   * included. */
  vta_graph *ga = vta_onnx_import(a, na, NULL, &err), *gb = vta_gen_resnet18_graph(7, NULL, &err);
  assert_non_null(ga);
  assert_non_null(gb);
  char *ta = vta_graph_print_string(ga, VTA_PRINT_FULL), *tb = vta_graph_print_string(gb, VTA_PRINT_FULL);
  assert_string_equal(ta, tb);
  assert_int_equal(ga->n_values, gb->n_values);
  for (int v = 0; v < ga->n_values; v++)
    if (ga->values[v].data) assert_memory_equal(ga->values[v].data, gb->values[v].data, vta_value_bytes(&ga->values[v]));
  free(ta);
  free(tb);
  vta_graph_destroy(ga);
  vta_graph_destroy(gb);
  free(a);
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

/* The weights are He-normal: the largest layer's 2.36M draws have the fan-in's standard
 * deviation and the normal distribution's share beyond 1, 2 and 3 sigma (68.3%, 4.55%, 0.27%
 * inside/outside), which a wrong ziggurat table or a broken tail would miss. */
static void test_gen_resnet18_weights_are_he_normal(void **state) {
  (void)state;
  vta_graph *g = import_resnet();
  int v = vta_graph_find_value(g, "layer4.1.conv2.weight");
  assert_true(v >= 0);
  const vta_gvalue *w = &g->values[v];
  assert_non_null(w->data);
  int64_t n = vta_value_count(w);
  assert_int_equal(n, 512 * 512 * 9);
  const float *x = w->data;
  double sd = sqrt(2.0 / (512 * 9)), sum = 0, sq = 0;
  int64_t in1 = 0, out2 = 0, out3 = 0;
  for (int64_t i = 0; i < n; i++) {
    double z = x[i] / sd;
    sum += z;
    sq += z * z;
    in1 += fabs(z) < 1;
    out2 += fabs(z) > 2;
    out3 += fabs(z) > 3;
  }
  double mean = sum / (double)n, var = sq / (double)n - mean * mean;
  print_message("he-normal check: mean %.4f sd %.4f, |z|<1 %.4f, |z|>2 %.5f, |z|>3 %.5f\n", mean,
                sqrt(var), (double)in1 / (double)n, (double)out2 / (double)n, (double)out3 / (double)n);
  assert_true(fabs(mean) < 0.005);
  assert_true(fabs(sqrt(var) - 1) < 0.005);
  assert_true(fabs((double)in1 / (double)n - 0.6827) < 0.002);
  assert_true(fabs((double)out2 / (double)n - 0.0455) < 0.001);
  assert_true(fabs((double)out3 / (double)n - 0.0027) < 0.0003);
  vta_graph_destroy(g);
}

/* The float network and its calibration set (the noise pictures), viewed as cal. */
static vta_graph *calibrated(vta_calib_set *cs, vta_calib *cal) {
  vta_error err = {0};
  vta_graph *gf = import_resnet();
  char src[64];
  assert_int_equal(vta_calib_load_noise(gf, cs, src, sizeof src, &err), 0);
  vta_calib_view(cs, cal);
  return gf;
}

static void test_gen_resnet18_int8_on_accelerator(void **state) {
  (void)state;
  vta_error err = {0};
  vta_calib_set cs;
  vta_calib cal;
  vta_graph *gf = calibrated(&cs, &cal);
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
    if (k == 1) {
      /* Device-resident tensors: conv1 with its max pooling -> layer1.0.conv1 and each block's
       * conv1 -> conv2 stay on the device; what crosses is conv1's im2col patches (147 -> 160
       * channels x 112 x 112), the inputs of the blocks after the CPU's residual adds, and the
       * tensors those adds and the downsampling read. */
      vta_model_stats rs;
      vta_model_run_stats(m, &rs);
      print_message("resnet18 on fsim: %llu device runs, %llu bytes to the device, %llu from it\n",
                    (unsigned long long)rs.device_runs, (unsigned long long)rs.bytes_to_device,
                    (unsigned long long)rs.bytes_from_device);
      /* Its 20 programs (the max pooling inside conv1's) chained between the CPU's residual
       * adds: 8 device runs, 9 boundaries where a layer reads its predecessor's output. */
      assert_int_equal(rs.device_runs, 8);
      assert_int_equal(rs.programs, 20);
      assert_int_equal(rs.barriers, 9);
      assert_int_equal(rs.bytes_to_device, 3085824);
      assert_int_equal(rs.bytes_from_device, 1128960);
      /* One device run per program: the same bits. */
      vta_model_set_chaining(m, 0);
      if (vta_model_run(m, &err)) fail_msg("%s", err.msg);
      assert_memory_equal(y[k], vta_model_output(m, 0), sizeof y[k]);
      vta_model_run_stats(m, &rs);
      assert_int_equal(rs.device_runs, 8 + 20);
    }
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

/* `--residual-adds fuse`: the same int8 model (14-bit adds), each add computed in the epilogue
 * of its block's 3x3 convolution (the shortcut's 1x1 moved before it): the same logits bit for
 * bit as with the adds on the CPU (fsim), on fsim, sc and rtl, in one device run. */
static void test_gen_resnet18_fused_adds_same_bits_one_run(void **state) {
  (void)state;
  vta_error err = {0};
  vta_calib_set cs;
  vta_calib cal;
  vta_graph *gf = calibrated(&cs, &cal);
  vta_config cfg;
  vta_config_default(&cfg);
  unsigned char *b[2];
  size_t nb[2];
  int fused = 0;
  for (int f = 0; f < 2; f++) {
    vta_graph *g = import_resnet();
    vta_quant_opts qo = {.calib = &cal, .adds = f ? VTA_ADDS_FUSE : VTA_ADDS_CPU};
    vta_compile_opts o = {.quant = &qo, .accel = &cfg};
    if (vta_compile_graph(g, &o, &err)) fail_msg("%s", err.msg);
    for (int i = 0; f && i < g->n_nodes; i++) fused += vta_node_fused(g, i);
    vta_cpu_code c;
    vta_bundle_acc ba;
    assert_int_equal(vta_codegen_llvm(g, &c, &err), 0);
    if (vta_acc_bundle(g, &cfg, &ba, &err)) fail_msg("%s", err.msg);
    assert_int_equal(vta_bundle_write_acc(g, &c, &ba, &b[f], &nb[f], &err), 0);
    vta_bundle_acc_free(&ba);
    vta_cpu_code_free(&c);
    vta_graph_destroy(g);
  }
  assert_int_equal(fused, 9); /* every block's add, and the max pooling into conv1 */
  /* rtl only for the fused bundle (the other is test_gen_resnet18_int8_on_accelerator's). */
  const char *backends[] = {"fsim", "sc", "rtl"};
  float y[2][1000];
  for (int k = 0; k < 3; k++)
    for (int f = k == 2 ? 1 : 0; f < 2; f++) {
      vta_model *m = vta_model_load(b[f], nb[f], &err);
      if (!m) fail_msg("%s", err.msg);
      if (vta_model_set_backend(m, backends[k], NULL, &err)) fail_msg("%s", err.msg);
      assert_int_equal(vta_model_set_input(m, 0, cs.data[0], 3 * 224 * 224, &err), 0);
      if (vta_model_run(m, &err)) fail_msg("%s", err.msg);
      if (k == 0 || f == 0) memcpy(y[f], vta_model_output(m, 0), sizeof y[f]);
      else assert_memory_equal(y[0], vta_model_output(m, 0), sizeof y[0]);
      vta_model_stats rs;
      vta_model_run_stats(m, &rs);
      vta_stats st;
      uint64_t macs, all;
      vta_model_acc_stats(m, &st, &macs, &all);
      print_message("resnet18 %s, adds %s: %llu device runs, %llu cycles, %llu bytes to the device, "
                    "%llu from it\n", backends[k], f ? "fused" : "on the CPU",
                    (unsigned long long)rs.device_runs, (unsigned long long)st.cycles,
                    (unsigned long long)rs.bytes_to_device, (unsigned long long)rs.bytes_from_device);
      assert_int_equal(rs.device_runs, f ? 1 : 8);
      if (f) assert_int_equal(rs.bytes_from_device, 25088); /* the classifier's input alone */
      vta_model_destroy(m);
      if (k == 0 && f) assert_memory_equal(y[0], y[1], sizeof y[0]);
    }
  free(b[0]);
  free(b[1]);
  vta_calib_set_free(&cs);
  vta_graph_destroy(gf);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gen_resnet18_is_the_published_architecture),
      cmocka_unit_test(test_gen_resnet18_weights_are_he_normal),
      cmocka_unit_test(test_gen_resnet18_int8_on_accelerator),
      cmocka_unit_test(test_gen_resnet18_fused_adds_same_bits_one_run),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
