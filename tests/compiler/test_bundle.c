/* test_bundle.c - the bundle file: what is written reads back and runs; a truncated, padded,
 * foreign, corrupted, future-version or unknown-section file is refused with a message saying
 * which; the native object is used on the machine it was made for and the bitcode elsewhere.
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
#include "host/model.h"

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
  expect_refused(b, n, "bundle version 99; this build reads version 2");
  free(b);
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
      cmocka_unit_test(test_bundle_other_cpu_uses_bitcode),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
