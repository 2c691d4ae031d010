/* test_bundle.c - the bundle file: what is written reads back and runs; a truncated, padded,
 * foreign, corrupted, future-version or unknown-section file is refused with a message saying
 * which; CPU-only bundles are version 2 and bundles with accelerator programs version 3, whose
 * sections a version-2 header may not carry; the native object is used on the machine it was
 * made for and the bitcode elsewhere.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compiler/compiler.h"
#include "compiler/accel/partition.h"
#include "host/model.h"
#include "vta/config.h"

/* y = Relu(x * w + b) on f32[2,20], the weight large enough to get its own section. */
static const char *TEXT =
    "vta-graph opset=13\n"
    "input %x f32[2,20]\n"
    "const %w f32[20] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]\n"
    "const %b f32[1] = [-50]\n"
    "%m f32[?] = Mul(%x, %w)\n"
    "%a f32[?] = Add(%m, %b)\n"
    "%y f32[?] = Relu(%a)\n"
    "output %y\n";

static unsigned char *make_bundle(size_t *size, vta_cpu_code *keep) {
  vta_error err = {0};
  vta_graph *g = vta_graph_parse(TEXT, strlen(TEXT), NULL, 0, &err);
  assert_non_null(g);
  assert_int_equal(vta_compile_graph(g, NULL, &err), 0);
  vta_cpu_code code;
  if (vta_codegen_llvm(g, &code, &err)) fail_msg("%s", err.msg);
  assert_non_null(code.bitcode);
  assert_non_null(code.object);
  unsigned char *b;
  assert_int_equal(vta_bundle_write(g, &code, &b, size, &err), 0);
  if (keep)
    *keep = code;
  else
    vta_cpu_code_free(&code);
  vta_graph_destroy(g);
  return b;
}

static void check_runs(const unsigned char *b, size_t n) {
  vta_error err = {0};
  vta_model *m = vta_model_load(b, n, &err);
  if (!m) fail_msg("%s", err.msg);
  float x[40];
  for (int i = 0; i < 40; i++) x[i] = (float)(i % 20) * 0.5f;
  assert_int_equal(vta_model_set_input(m, 0, x, 40, &err), 0);
  assert_int_equal(vta_model_run(m, &err), 0);
  const float *y = vta_model_output(m, 0);
  for (int i = 0; i < 40; i++) {
    float want = x[i] * (float)(i % 20 + 1) - 50;
    assert_float_equal(y[i], want > 0 ? want : 0, 1e-5);
  }
  vta_model_destroy(m);
}

static void expect_refused(const unsigned char *b, size_t n, const char *needle) {
  vta_error err = {0};
  vta_graph *g = NULL;
  vta_cpu_code code;
  assert_int_not_equal(vta_bundle_read(b, n, &g, &code, &err), 0);
  assert_null(g);
  if (!strstr(err.msg, needle)) fail_msg("expected \"%s\" in: %s", needle, err.msg);
  assert_null(vta_model_load(b, n, &err));
}

/* Recomputes the header checksum after a deliberate edit (FNV-1a 64 of the payload). */
static void reseal(unsigned char *b, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 32; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  for (int i = 0; i < 8; i++) b[24 + i] = (unsigned char)(h >> (8 * i));
}

static void test_bundle_round_trip_runs(void **state) {
  (void)state;
  size_t n;
  unsigned char *b = make_bundle(&n, NULL);
  assert_memory_equal(b, "VTAB", 4);
  check_runs(b, n);
  vta_error err = {0};
  vta_graph *g;
  vta_cpu_code code;
  assert_int_equal(vta_bundle_read(b, n, &g, &code, &err), 0);
  vta_cpu_target host;
  vta_cpu_target_host(&host);
  assert_string_equal(code.target.triple, host.triple);
  assert_string_equal(code.target.features, host.features);
  assert_true(code.size > 0 && code.object_size > 0);
  vta_cpu_code_free(&code);
  vta_graph_destroy(g);
  free(b);
}

static void test_bundle_truncated_padded_foreign_corrupt(void **state) {
  (void)state;
  size_t n;
  unsigned char *b = make_bundle(&n, NULL);
  expect_refused(b, n - 1, "truncated or padded");
  expect_refused(b, 20, "not a vta bundle");
  unsigned char *big = calloc(1, n + 8);
  memcpy(big, b, n);
  expect_refused(big, n + 8, "truncated or padded");
  free(big);
  expect_refused((const unsigned char *)"\x7f" "ELF\x02\x01\x01 an object file, not a bundle.....", 40,
                 "not a vta bundle (no VTAB magic)");
  b[n / 2] ^= 0x40;
  expect_refused(b, n, "checksum does not match");
  b[n / 2] ^= 0x40;
  b[4] = 99;
  expect_refused(b, n, "bundle version 99; this build reads versions 2 to 4");
  b[4] = 1;
  expect_refused(b, n, "bundle version 1; this build reads versions 2 to 4");
  free(b);
}

/* x f32[1,16,2,2] -> QuantizeLinear -> QConv 1x1 16->16 -> DequantizeLinear: one accelerator
 * node. */
static vta_graph *acc_graph(void) {
  static char text[8192];
  size_t at = (size_t)snprintf(text, sizeof text,
                               "vta-graph opset=13\n"
                               "input %%x f32[1,16,2,2]\n"
                               "const %%s f32[] = [0.0625]\n"
                               "const %%z i8[] = [0]\n"
                               "const %%w i8[16,16,1,1] = [");
  for (int i = 0; i < 256; i++) at += (size_t)snprintf(text + at, sizeof text - at, "%s%d", i ? ", " : "", (i * 37) % 15 - 7);
  at += (size_t)snprintf(text + at, sizeof text - at, "]\nconst %%b i32[16] = [");
  for (int i = 0; i < 16; i++) at += (size_t)snprintf(text + at, sizeof text - at, "%s%d", i ? ", " : "", i * 5 - 40);
  snprintf(text + at, sizeof text - at,
           "]\n%%xq i8[1,16,2,2] = QuantizeLinear(%%x, %%s, %%z)\n"
           "%%yq i8[1,16,2,2] = QConv(%%xq, %%w, %%b) kernel_shape=[1,1] strides=[1,1] pads=[0,0,0,0] "
           "dilations=[1,1] group=1 shift=4 lo=-128 hi=127\n"
           "%%y f32[1,16,2,2] = DequantizeLinear(%%yq, %%s, %%z)\n"
           "output %%y\n");
  vta_error err = {0};
  vta_graph *g = vta_graph_parse(text, strlen(text), NULL, 0, &err);
  if (!g) fail_msg("%s", err.msg);
  return g;
}

static void test_bundle_versions_follow_sections(void **state) {
  (void)state;
  size_t n;
  unsigned char *b = make_bundle(&n, NULL);
  assert_int_equal(b[4], 2); /* CPU-only: readable by builds older than accelerator sections */
  free(b);
  vta_error err = {0};
  vta_graph *g = acc_graph();
  vta_config cfg;
  vta_config_default(&cfg);
  /* Every island on the accelerator: the graph is too small to be worth a device run. */
  vta_compile_opts o = {.verify = 1, .accel = &cfg, .host_macs_per_ns = -1};
  if (vta_compile_graph(g, &o, &err)) fail_msg("%s", err.msg);
  assert_true(vta_node_on_acc(g, 1));
  vta_cpu_code code;
  vta_bundle_acc acc;
  if (vta_codegen_llvm(g, &code, &err)) fail_msg("%s", err.msg);
  if (vta_acc_bundle(g, &cfg, &acc, &err)) fail_msg("%s", err.msg);
  assert_int_equal(vta_bundle_write_acc(g, &code, &acc, &b, &n, &err), 0);
  assert_int_equal(b[4], 3);
  /* Round trip: the programs, their node and the configuration come back. */
  vta_graph *g2;
  vta_cpu_code code2;
  vta_bundle_acc acc2;
  assert_int_equal(vta_bundle_read_acc(b, n, &g2, &code2, &acc2, &err), 0);
  assert_int_equal(acc2.n, acc.n);
  assert_int_equal(acc2.layers[0].node, 1);
  assert_int_equal(acc2.layers[0].prog_size, acc.layers[0].prog_size);
  assert_memory_equal(acc2.layers[0].prog, acc.layers[0].prog, acc.layers[0].prog_size);
  vta_config back;
  assert_int_equal(vta_config_parse(&back, acc2.config_json, "bundle", &err), 0);
  assert_int_equal(back.log_block_in, cfg.log_block_in);
  vta_bundle_acc_free(&acc2);
  vta_cpu_code_free(&code2);
  vta_graph_destroy(g2);
  /* The same sections under a version-2 header (as a development build wrote them) are
   * refused by name, not read as something else. */
  b[4] = 2;
  reseal(b, n);
  expect_refused(b, n, "accelerator section (kind 6), which bundle version 2 does not have");
  free(b);
  /* CPU code without the accelerator nodes' kernels is version 4, and says so when read;
   * version 4 without accelerator layers cannot be. */
  code.skips_acc = 1;
  assert_int_equal(vta_bundle_write_acc(g, &code, &acc, &b, &n, &err), 0);
  assert_int_equal(b[4], 4);
  assert_int_equal(vta_bundle_read_acc(b, n, &g2, &code2, &acc2, &err), 0);
  assert_int_equal(code2.skips_acc, 1);
  vta_bundle_acc_free(&acc2);
  vta_cpu_code_free(&code2);
  vta_graph_destroy(g2);
  free(b);
  b = make_bundle(&n, NULL);
  b[4] = 4;
  reseal(b, n);
  expect_refused(b, n, "bundle version 4 leaves the accelerator nodes' CPU code out, but the bundle has "
                       "no accelerator layers");
  free(b);
  vta_bundle_acc_free(&acc);
  vta_cpu_code_free(&code);
  vta_graph_destroy(g);
}

static void test_bundle_malformed_sections(void **state) {
  (void)state;
  size_t n;
  unsigned char *b = make_bundle(&n, NULL);
  /* First section (the graph): unknown kind. */
  b[32] = 77;
  reseal(b, n);
  expect_refused(b, n, "section 0 has unknown kind 77");
  b[32] = 1;
  /* A section size running past the end. */
  unsigned char save = b[32 + 15];
  b[32 + 15] = 0x7f;
  reseal(b, n);
  expect_refused(b, n, "section 0 (");
  b[32 + 15] = save;
  /* More sections than the file could hold. */
  b[8] = 0xff;
  b[9] = 0xff;
  reseal(b, n);
  expect_refused(b, n, "sections");
  free(b);
}

/* A bundle whose object was made for another CPU of this architecture loads from its bitcode
 * (recompiled for this CPU); bitcode for another architecture, or no bitcode at all, is
 * refused, naming both machines. */
static void test_bundle_other_cpu_uses_bitcode(void **state) {
  (void)state;
  size_t n;
  vta_cpu_code code;
  unsigned char *b = make_bundle(&n, &code);
  free(b);
  vta_error err = {0};
  vta_graph *g = vta_graph_parse(TEXT, strlen(TEXT), NULL, 0, &err);
  assert_int_equal(vta_compile_graph(g, NULL, &err), 0);
  snprintf(code.target.features, sizeof code.target.features, "+some-other-cpu");
  assert_int_equal(vta_bundle_write(g, &code, &b, &n, &err), 0);
  check_runs(b, n);
  free(b);
  /* Bitcode does not cross architectures. */
  vta_cpu_target saved = code.target;
  snprintf(code.target.triple, sizeof code.target.triple, "aarch64-unknown-linux-gnu");
  assert_int_equal(vta_bundle_write(g, &code, &b, &n, &err), 0);
  assert_null(vta_model_load(b, n, &err));
  assert_non_null(strstr(err.msg, "generated for aarch64-unknown-linux-gnu; this machine is"));
  free(b);
  code.target = saved;
  free(code.bitcode);
  code.bitcode = NULL;
  code.size = 0;
  assert_int_equal(vta_bundle_write(g, &code, &b, &n, &err), 0);
  assert_null(vta_model_load(b, n, &err));
  assert_non_null(strstr(err.msg, "native object for"));
  assert_non_null(strstr(err.msg, "recompile the model here"));
  free(b);
  vta_cpu_code_free(&code);
  vta_graph_destroy(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bundle_round_trip_runs),
      cmocka_unit_test(test_bundle_truncated_padded_foreign_corrupt),
      cmocka_unit_test(test_bundle_malformed_sections),
      cmocka_unit_test(test_bundle_versions_follow_sections),
      cmocka_unit_test(test_bundle_other_cpu_uses_bitcode),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
