/* test_cmd_tune.c - `vta tune` and `vta compile --tuning`: the tuning file records verified,
 * measured plans per layer shape; lowering applies them (the programs compute the same bits);
 * files for another configuration, malformed files, CPU-only bundles and bad options are
 * refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "compiler/compiler.h"
#include "compiler/accel/partition.h"
#include "host/cli.h"
#include "host/model.h"
#include "host/tuning.h"
#include "vta/config.h"
#include "compiler/graph_value.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static int rnd(int n) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (int)((rng >> 20) % (uint64_t)n);
}


/* x f32[1,32,14,14] -> QuantizeLinear -> QConv 3x3 32->32 pad 1 | clip -> DequantizeLinear,
 * partitioned for the default configuration: one accelerator node with several good tilings. */
static vta_graph *acc_model(vta_config *cfg) {
  vta_graph *g = vta_graph_create();
  g->opset = 13;
  int64_t xd[4] = {1, 32, 14, 14}, wd[4] = {32, 32, 3, 3}, bd[1] = {32};
  int x = value(g, "x", VTA_DT_F32, 4, xd, 0);
  vta_graph_add_input(g, x);
  int s = value(g, "s", VTA_DT_F32, 0, NULL, 1), z = value(g, "z", VTA_DT_I8, 0, NULL, 1);
  *(float *)g->values[s].data = 0.05f;
  int w = value(g, "w", VTA_DT_I8, 4, wd, 1), b = value(g, "b", VTA_DT_I32, 1, bd, 1);
  for (int i = 0; i < 32 * 32 * 9; i++) ((int8_t *)g->values[w].data)[i] = (int8_t)(rnd(31) - 15);
  for (int i = 0; i < 32; i++) ((int32_t *)g->values[b].data)[i] = rnd(2001) - 1000;
  int xq = vta_graph_add_value(g, "xq", VTA_DT_I8), yq = vta_graph_add_value(g, "yq", VTA_DT_I8);
  int y = vta_graph_add_value(g, "y", VTA_DT_F32);
  int q[3] = {x, s, z}, c[3] = {xq, w, b}, dq[3] = {yq, s, z};
  vta_graph_add_node(g, VTA_GOP_QUANTIZE_LINEAR, "q", 3, q, 1, &xq);
  int n = vta_graph_add_node(g, VTA_GOP_QCONV, "conv", 3, c, 1, &yq);
  vta_graph_add_node(g, VTA_GOP_DEQUANTIZE_LINEAR, "dq", 3, dq, 1, &y);
  vta_graph_add_output(g, y);
  vta_node *nd = &g->nodes[n];
  int64_t k[2] = {3, 3}, st[2] = {1, 1}, pd[4] = {1, 1, 1, 1};
  vta_attrs_set_ints(&nd->n_attrs, &nd->attrs, "kernel_shape", 2, k);
  vta_attrs_set_ints(&nd->n_attrs, &nd->attrs, "strides", 2, st);
  vta_attrs_set_ints(&nd->n_attrs, &nd->attrs, "pads", 4, pd);
  vta_attrs_set_int(&nd->n_attrs, &nd->attrs, "shift", 9);
  vta_attrs_set_int(&nd->n_attrs, &nd->attrs, "lo", -100);
  vta_attrs_set_int(&nd->n_attrs, &nd->attrs, "hi", 100);
  vta_config_default(cfg);
  vta_error err = {0};
  vta_compile_opts o = {.verify = 1, .accel = cfg};
  if (vta_compile_graph(g, &o, &err)) fail_msg("%s", err.msg);
  assert_true(vta_node_on_acc(g, 1));
  return g;
}

static unsigned char *bundle_of(const vta_graph *g, const vta_config *cfg, const vta_tuning *t, size_t *n,
                                int *tuned) {
  vta_error err = {0};
  vta_cpu_code code;
  vta_bundle_acc acc;
  unsigned char *b;
  if (vta_codegen_llvm(g, &code, &err)) fail_msg("%s", err.msg);
  if (vta_acc_bundle_tuned(g, cfg, t, &acc, tuned, &err)) fail_msg("%s", err.msg);
  assert_int_equal(vta_bundle_write_acc(g, &code, &acc, &b, n, &err), 0);
  vta_bundle_acc_free(&acc);
  vta_cpu_code_free(&code);
  return b;
}

static void write_file(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, n, f), n);
  fclose(f);
}

static int call(int (*cmd)(int, char **), char **argv) {
  int argc = 0;
  while (argv[argc]) argc++;
  return cmd(argc, argv);
}

static void run_fsim(const unsigned char *b, size_t n, float *y) {
  vta_error err = {0};
  vta_model *m = vta_model_load(b, n, &err);
  if (!m) fail_msg("%s", err.msg);
  if (vta_model_set_backend(m, "fsim", NULL, &err)) fail_msg("%s", err.msg);
  static float x[32 * 14 * 14];
  for (int i = 0; i < 32 * 14 * 14; i++) x[i] = (float)(i % 97) * 0.07f - 3.0f;
  assert_int_equal(vta_model_set_input(m, 0, x, 32 * 14 * 14, &err), 0);
  if (vta_model_run(m, &err)) fail_msg("%s", err.msg);
  memcpy(y, vta_model_output(m, 0), sizeof(float) * 32 * 14 * 14);
  vta_model_destroy(m);
}

static void test_tune_records_and_compile_applies(void **state) {
  (void)state;
  char dir[] = "/tmp/vta-tune-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char bundle[300], json[300], cmdline[400];
  snprintf(bundle, sizeof bundle, "%s/m.vtab", dir);
  snprintf(json, sizeof json, "%s/tuning.json", dir);
  vta_config cfg;
  vta_graph *g = acc_model(&cfg);
  size_t n;
  unsigned char *b = bundle_of(g, &cfg, NULL, &n, NULL);
  write_file(bundle, b, n);
  /* rtl: measured cycles for each candidate, the fastest recorded. */
  char *tune[] = {"tune", bundle, "-o", json, "--candidates", "3", NULL};
  assert_int_equal(call(vta_cmd_tune, tune), 0);
  size_t len;
  FILE *f = fopen(json, "rb");
  assert_non_null(f);
  static char text[1 << 16];
  len = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[len] = 0;
  cJSON *root = cJSON_Parse(text);
  assert_non_null(root);
  const cJSON *layers = cJSON_GetObjectItemCaseSensitive(root, "layers");
  assert_int_equal(cJSON_GetArraySize(layers), 1);
  const cJSON *L = cJSON_GetArrayItem(layers, 0);
  const cJSON *cands = cJSON_GetObjectItemCaseSensitive(L, "candidates");
  assert_true(cJSON_GetArraySize(cands) >= 2);
  double best = cJSON_GetObjectItemCaseSensitive(L, "cycles")->valuedouble;
  const cJSON *c;
  cJSON_ArrayForEach(c, cands) {
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "verified")));
    assert_true(cJSON_GetObjectItemCaseSensitive(c, "cycles")->valuedouble >= best);
  }
  cJSON_Delete(root);
  /* Applied: the part is lowered with the recorded plan and computes the same bits. */
  vta_tuning t;
  vta_error err = {0};
  if (vta_tuning_read(json, &cfg, &t, &err)) fail_msg("%s", err.msg);
  assert_int_equal(t.n, 1);
  int tuned = 0;
  vta_acc_layer AL;
  if (vta_acc_lower_tuned(g, 1, &cfg, &t, &AL, &tuned, &err)) fail_msg("%s", err.msg);
  assert_int_equal(tuned, 1);
  assert_memory_equal(&AL.parts[0].low.choice.plan, &t.p[0].plan, sizeof t.p[0].plan);
  vta_conv_desc part_d = AL.parts[0].d;
  vta_acc_layer_free(&AL);
  size_t n2;
  unsigned char *b2 = bundle_of(g, &cfg, &t, &n2, &tuned);
  static float y1[32 * 14 * 14], y2[32 * 14 * 14];
  run_fsim(b, n, y1);
  run_fsim(b2, n2, y2);
  assert_memory_equal(y1, y2, sizeof y1);
  vta_tuning_free(&t);
  /* fsim counts no cycles: candidates verified, the cost model's choice kept. */
  char *tune_fsim[] = {"tune", bundle, "-o", json, "--backend", "fsim", NULL};
  assert_int_equal(call(vta_cmd_tune, tune_fsim), 0);
  if (vta_tuning_read(json, &cfg, &t, &err)) fail_msg("%s", err.msg);
  vta_tile_choice ch;
  /* The file keys a plan by the layer's shape; the cost model also counts the part's bias and
   * epilogue, which the file does not record, so the choice is remade for the part as the
   * tuner saw it. */
  assert_int_equal(vta_tile_choose(&cfg, NULL, &part_d, t.p[0].epi, &ch, &err), 0);
  assert_memory_equal(&ch.plan, &t.p[0].plan, sizeof ch.plan);
  vta_tuning_free(&t);
  /* Another configuration's file is refused, naming both. */
  vta_config other = cfg;
  other.dram_latency += 8;
  assert_int_not_equal(vta_tuning_read(json, &other, &t, &err), 0);
  assert_non_null(strstr(err.msg, "tuned for the configuration"));
  free(b);
  free(b2);
  vta_graph_destroy(g);
  snprintf(cmdline, sizeof cmdline, "rm -rf %s", dir);
  assert_int_equal(system(cmdline), 0);
}

static void test_tune_refuses_bad_input(void **state) {
  (void)state;
  char dir[] = "/tmp/vta-tune-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[300], json[300], cmdline[400];
  snprintf(path, sizeof path, "%s/bad.json", dir);
  snprintf(json, sizeof json, "%s/out.json", dir);
  vta_config cfg;
  vta_config_default(&cfg);
  vta_tuning t;
  vta_error err = {0};
  const char *bad[] = {"{not json", "{\"vta_tuning\": 2, \"config\": \"x\", \"layers\": []}",
                       "{\"vta_tuning\": 1, \"config\": \"KEY\", \"layers\": [{\"shape\": {}, \"plan\": {}}]}"};
  const char *why[] = {"not JSON", "format 1", "\"n\" must be an integer"};
  char key[160];
  vta_tuning_config_key(&cfg, key, sizeof key);
  for (int k = 0; k < 3; k++) {
    char text[512];
    snprintf(text, sizeof text, "%s", bad[k]);
    char *at = strstr(text, "KEY");
    if (at) {
      char rest[512];
      snprintf(rest, sizeof rest, "%s", at + 3);
      snprintf(at, sizeof text - (size_t)(at - text), "%s%s", key, rest);
    }
    write_file(path, text, strlen(text));
    assert_int_not_equal(vta_tuning_read(path, &cfg, &t, &err), 0);
    if (!strstr(err.msg, why[k])) fail_msg("expected \"%s\" in: %s", why[k], err.msg);
  }
  /* A CPU-only bundle has nothing to tune; a missing -o is a usage error. */
  vta_graph *g = vta_graph_create();
  int64_t d[1] = {4};
  int x = value(g, "x", VTA_DT_F32, 1, d, 0), y = vta_graph_add_value(g, "y", VTA_DT_F32);
  vta_graph_add_input(g, x);
  vta_graph_add_node(g, VTA_GOP_RELU, "r", 1, &x, 1, &y);
  vta_graph_add_output(g, y);
  g->opset = 13;
  assert_int_equal(vta_compile_graph(g, NULL, &err), 0);
  vta_cpu_code code;
  unsigned char *b;
  size_t n;
  assert_int_equal(vta_codegen_llvm(g, &code, &err), 0);
  assert_int_equal(vta_bundle_write(g, &code, &b, &n, &err), 0);
  snprintf(path, sizeof path, "%s/cpu.vtab", dir);
  write_file(path, b, n);
  char *cpu_only[] = {"tune", path, "-o", json, NULL};
  assert_int_equal(call(vta_cmd_tune, cpu_only), 1);
  char *no_out[] = {"tune", path, NULL};
  assert_int_equal(call(vta_cmd_tune, no_out), 2);
  char *bad_n[] = {"tune", path, "-o", json, "--candidates", "9", NULL};
  assert_int_equal(call(vta_cmd_tune, bad_n), 2);
  free(b);
  vta_cpu_code_free(&code);
  vta_graph_destroy(g);
  snprintf(cmdline, sizeof cmdline, "rm -rf %s", dir);
  assert_int_equal(system(cmdline), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tune_records_and_compile_applies),
      cmocka_unit_test(test_tune_refuses_bad_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
