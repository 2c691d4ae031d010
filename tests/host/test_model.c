/* test_model.c - the model runtime (host/model.c) and the commands built on it, run as a user
 * runs them: `vta compile` (bundle, obj, ll), `vta run` (with --labels), `vta info` and
 * `vta bench model`, on PP-OCR's text orientation classifier (fetched and cached by
 * scripts/fetch-models.sh). The tool is the sanitized binary ($VTA_BIN, see cli_run.h).
 */
#include "host/cli_run.h"
#include "host/model.h"
#include "host/npy.h"

#define CLS ".cache/models/ppocr_cls.onnx"
#define TEXT_IN "tests/data/models/text.npy"
#define TEXT180_IN "tests/data/models/text180.npy"

static int have_model(void) {
  if (cli_exists(CLS)) return 1;
  if (system("scripts/fetch-models.sh >/dev/null") != 0) {
    print_error("%s is not cached and scripts/fetch-models.sh could not fetch it\n", CLS);
    return 0;
  }
  return 1;
}

static int setup(void **state) {
  if (!have_model()) return -1;
  return cli_tmp_setup(state);
}

/* Path of name in the test's folder; slot k (0-3) keeps several at once. (Not cli_tmp_path:
 * gcc's -Wrestrict cannot tell its source and destination apart when it is inlined here.) */
static const char *tmp(void **state, int k, const char *name) {
  static char paths[4][400];
  const cli_tmp *t = *state;
  snprintf(paths[k], sizeof paths[k], "%s/%s", t->dir, name);
  return paths[k];
}

/* ---- the runtime API ---- */

static void test_model_onnx_and_bundle_agree(void **state) {
  const char *bundle = tmp(state, 0, "cls.vtab");
  cli_result r;
  CLI_RUN(&r, "compile", CLS, "--shape", "1,3,48,192", "-o", bundle);
  CLI_ASSERT_STATUS(&r, 0);
  cli_result_free(&r);
  vta_error err = {0};
  vta_npy x;
  assert_int_equal(vta_npy_read(TEXT_IN, &x, &err), 0);
  int rank = x.rank;
  int64_t dims[1][8] = {{1, 3, 48, 192}};
  vta_model *a = vta_model_open_shaped(CLS, 1, (const char *const[]){NULL}, &rank,
                                       (const int64_t(*)[8])dims, &err);
  vta_model *b = vta_model_open(bundle, &err);
  assert_non_null(a);
  assert_non_null(b);
  assert_int_equal(vta_model_find_input(b, "x"), 0);
  assert_int_equal(vta_model_find_input(b, "nope"), -1);
  /* The wrong element count is refused with the input's name and both counts. */
  assert_int_not_equal(vta_model_set_input(b, 0, x.data, 5, &err), 0);
  assert_non_null(strstr(err.msg, "input 'x' needs 27648 elements, got 5"));
  assert_int_not_equal(vta_model_set_input(b, 3, x.data, x.count, &err), 0);
  assert_int_equal(vta_model_set_input(a, 0, x.data, x.count, &err), 0);
  assert_int_equal(vta_model_set_input(b, 0, x.data, x.count, &err), 0);
  assert_int_equal(vta_model_run(a, &err), 0);
  assert_int_equal(vta_model_run(b, &err), 0);
  assert_memory_equal(vta_model_output(a, 0), vta_model_output(b, 0), 2 * sizeof(float));
  /* Timings: the in-memory compile reports its stages, the bundle only its (fast) link. */
  assert_true(vta_model_timings(a)->codegen_ms > 0);
  assert_true(vta_model_timings(b)->codegen_ms == 0);
  vta_model_destroy(a);
  vta_model_destroy(b);
  vta_npy_free(&x);
}

static void test_model_open_refuses_other_files(void **state) {
  vta_error err = {0};
  assert_null(vta_model_open("/nonexistent/m.onnx", &err));
  assert_non_null(strstr(err.msg, "/nonexistent/m.onnx: cannot open"));
  const char *junk = tmp(state, 0, "junk.onnx");
  cli_spit_text(junk, "this is neither a bundle nor an ONNX model\n");
  assert_null(vta_model_open(junk, &err));
  assert_non_null(strstr(err.msg, "not an ONNX model"));
}

/* ---- the commands ---- */

static void test_model_cli_run_prints_labels(void **state) {
  const char *bundle = tmp(state, 0, "cls.vtab"), *labels = tmp(state, 1, "labels.txt");
  cli_result r;
  CLI_RUN(&r, "compile", CLS, "--shape", "1,3,48,192", "-o", bundle, "-v");
  CLI_ASSERT_STATUS(&r, 0);
  CLI_ASSERT_CONTAINS(r.err, "codegen");
  cli_result_free(&r);
  CLI_RUN(&r, "run", bundle, "--input", TEXT_IN, "--labels", "upright,rotated 180");
  CLI_ASSERT_STATUS(&r, 0);
  CLI_ASSERT_CONTAINS(r.out, "softmax_0.tmp_0: upright (0.677), rotated 180 (0.323)");
  cli_result_free(&r);
  cli_spit_text(labels, "upright\nrotated 180\n");
  char spec[400];
  snprintf(spec, sizeof spec, "@%s", labels);
  CLI_RUN(&r, "run", bundle, "--input", TEXT180_IN, "--labels", spec);
  CLI_ASSERT_STATUS(&r, 0);
  CLI_ASSERT_CONTAINS(r.out, "softmax_0.tmp_0: rotated 180 (0.774), upright (0.226)");
  cli_result_free(&r);
  /* Three labels for two scores: the plain summary, and a warning. */
  CLI_RUN(&r, "run", bundle, "--input", TEXT_IN, "--labels", "a,b,c");
  CLI_ASSERT_STATUS(&r, 0);
  CLI_ASSERT_CONTAINS(r.out, "softmax_0.tmp_0 [1,2] min 0.323");
  CLI_ASSERT_CONTAINS(r.err, "no output has 3 elements");
  cli_result_free(&r);
  CLI_RUN(&r, "run", bundle, "--input", TEXT_IN, "--labels", "@/nonexistent/labels");
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "cannot open /nonexistent/labels");
  cli_result_free(&r);
  /* An input of the wrong shape names both shapes. */
  CLI_RUN(&r, "run", bundle, "--input", "tests/data/models/astronaut.npy");
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "needs float32 (<f4) of shape (1, 3, 48, 192); the file holds <f4 of shape (1, 128, 128, 3)");
  cli_result_free(&r);
}

static void test_model_cli_info_and_corrupt_bundles(void **state) {
  const char *bundle = tmp(state, 0, "cls.vtab"), *cut = tmp(state, 1, "cut.vtab");
  cli_result r;
  CLI_RUN(&r, "compile", CLS, "--shape", "1,3,48,192", "-o", bundle);
  CLI_ASSERT_STATUS(&r, 0);
  cli_result_free(&r);
  CLI_RUN(&r, "info", bundle);
  CLI_ASSERT_STATUS(&r, 0);
  CLI_ASSERT_CONTAINS(r.out, "input:  x f32[1,3,48,192]");
  CLI_ASSERT_CONTAINS(r.out, "output: softmax_0.tmp_0 f32[1,2]");
  CLI_ASSERT_CONTAINS(r.out, "bytes of native object for");
  cli_result_free(&r);
  size_t n;
  char *b = cli_slurp(bundle, &n);
  cli_spit(cut, b, n / 2);
  free(b);
  CLI_RUN(&r, "info", cut);
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "truncated or padded");
  cli_result_free(&r);
  CLI_RUN(&r, "run", cut, "--input", TEXT_IN);
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "truncated or padded");
  cli_result_free(&r);
}

static void test_model_cli_compile_emits_objects_and_ir(void **state) {
  const char *obj = tmp(state, 0, "k.o"), *arm = tmp(state, 1, "k-arm64.o"), *ll = tmp(state, 2, "k.ll");
  cli_result r;
  CLI_RUN(&r, "compile", CLS, "--shape", "1,3,48,192", "--emit", "obj", "-o", obj);
  CLI_ASSERT_STATUS(&r, 0);
  cli_result_free(&r);
  size_t n;
  unsigned char *o = (unsigned char *)cli_slurp(obj, &n);
  assert_true(n > 64 && memcmp(o, "\x7f" "ELF", 4) == 0);
  free(o);
  CLI_RUN(&r, "compile", CLS, "--shape", "1,3,48,192", "--emit", "obj", "--triple", "aarch64-linux-gnu",
          "--features", "+neon", "-o", arm);
  CLI_ASSERT_STATUS(&r, 0);
  cli_result_free(&r);
  o = (unsigned char *)cli_slurp(arm, &n);
  assert_true(n > 64);
  assert_int_equal(o[18] | o[19] << 8, 183); /* EM_AARCH64 */
  free(o);
  CLI_RUN(&r, "compile", CLS, "--shape", "1,3,48,192", "--emit", "ll", "-o", ll);
  CLI_ASSERT_STATUS(&r, 0);
  cli_result_free(&r);
  char *text = cli_slurp(ll, NULL);
  CLI_ASSERT_CONTAINS(text, "define void @vta_k0(");
  CLI_ASSERT_CONTAINS(text, "@vta.gemm");
  free(text);
  CLI_RUN(&r, "compile", CLS, "--emit", "obj", "--cpu", "znver4", "-o", obj);
  CLI_ASSERT_STATUS(&r, 2);
  CLI_ASSERT_CONTAINS(r.err, "--cpu and --features need --triple");
  cli_result_free(&r);
  CLI_RUN(&r, "compile", CLS, "--shape", "1,3,48,192", "--triple", "aarch64-linux-gnu", "-o", obj);
  CLI_ASSERT_STATUS(&r, 2);
  CLI_ASSERT_CONTAINS(r.err, "apply to --emit obj, ll and lib only");
  cli_result_free(&r);
}

static void test_model_cli_bench_model(void **state) {
  (void)state;
  cli_result r;
  CLI_RUN(&r, "bench", "model", "ppocr_cls", "--no-ort", "--repeat", "3");
  CLI_ASSERT_STATUS(&r, 0);
  CLI_ASSERT_CONTAINS(r.out, "{\"bench\":\"model\",\"model\":\"ppocr_cls\",\"backend\":\"cpu\",\"compile_seconds\":");
  CLI_ASSERT_CONTAINS(r.out, "\"ort_inference_seconds\":null,\"ratio\":null,\"repeat\":3,\"threads\":1,\"verified\":true}");
  cli_result_free(&r);
  CLI_RUN(&r, "bench", "model", CLS);
  CLI_ASSERT_STATUS(&r, 2);
  CLI_ASSERT_CONTAINS(r.err, "needs --input");
  cli_result_free(&r);
  CLI_RUN(&r, "bench", "model", "ppocr_cls", "--backend", "fsim");
  CLI_ASSERT_STATUS(&r, 2);
  CLI_ASSERT_CONTAINS(r.err, "only 'cpu'");
  cli_result_free(&r);
  CLI_RUN(&r, "bench", "model", "ppocr_cls", "--repeat", "0");
  CLI_ASSERT_STATUS(&r, 2);
  cli_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_model_onnx_and_bundle_agree, setup, cli_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_model_open_refuses_other_files, setup, cli_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_model_cli_run_prints_labels, setup, cli_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_model_cli_info_and_corrupt_bundles, setup, cli_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_model_cli_compile_emits_objects_and_ir, setup, cli_tmp_teardown),
      cmocka_unit_test_setup_teardown(test_model_cli_bench_model, setup, cli_tmp_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
