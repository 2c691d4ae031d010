/* test_plan.c - the model runtime without the compiler: a plan written by hand (two CPU nodes
 * with kernels in C) is serialised, loaded and run; its inputs are checked; every truncation
 * and every single-byte corruption of it is refused with a message naming the plan, never
 * crashing (ASan). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "runtime/plan.h"
#include "vta/model.h"

/* y = x + c (4 floats) */
static void k_add(void **a) {
  const float *x = a[0], *c = a[1];
  float *y = a[2];
  for (int i = 0; i < 4; i++) y[i] = x[i] + c[i];
}
/* z = 2 * y */
static void k_twice(void **a) {
  const float *y = a[0];
  float *z = a[1];
  for (int i = 0; i < 4; i++) z[i] = 2 * y[i];
}

static const float k_c[4] = {1, 2, 3, 4};

static void make_plan_fused(unsigned char **bytes, size_t *size, uint32_t fused) {
  vta_plan_value v[4] = {
      {.name = "x", .elem_bytes = 4, .is_float = 1, .role = VTA_PLAN_INPUT, .rank = 2, .dims = {1, 4}, .count = 4},
      {.name = "c", .elem_bytes = 4, .is_float = 1, .role = VTA_PLAN_CONST, .rank = 1, .dims = {4}, .count = 4,
       .data = (const unsigned char *)k_c},
      {.name = "y", .elem_bytes = 4, .is_float = 1, .role = VTA_PLAN_COMPUTED, .rank = 2, .dims = {1, 4}, .count = 4},
      {.name = "z", .elem_bytes = 4, .is_float = 1, .role = VTA_PLAN_COMPUTED, .rank = 2, .dims = {1, 4}, .count = 4},
  };
  uint32_t a0[3] = {0, 1, 2}, a1[2] = {2, 3}, in[1] = {0}, out[1] = {3};
  vta_plan_node n[2] = {{.what = "node 0 (Add)", .n_args = 3, .args = a0, .has_code = 1, .macs = 0},
                        {.what = "node 1 (Mul)", .n_args = 2, .args = a1, .has_code = 1, .macs = 4,
                         .fused = fused}};
  vta_plan p = {.n_values = 4, .n_inputs = 1, .n_outputs = 1, .n_nodes = 2, .values = v, .inputs = in,
                .outputs = out, .nodes = n};
  vta_error err;
  assert_int_equal(vta_plan_write(&p, bytes, size, &err), 0);
}

static void make_plan(unsigned char **bytes, size_t *size) { make_plan_fused(bytes, size, 0); }

static const vta_kernel_fn k_fns[2] = {k_add, k_twice};

static void test_plan_runs_cpu_kernels(void **state) {
  unsigned char *b;
  size_t n;
  make_plan(&b, &n);
  vta_error err;
  vta_model *m = vta_model_from_plan(b, n, "hand.plan", k_fns, 2, &err);
  free(b);
  assert_non_null(m);
  assert_int_equal(vta_model_n_inputs(m), 1);
  assert_int_equal(vta_model_n_outputs(m), 1);
  int rank;
  int64_t dims[8];
  assert_string_equal(vta_model_input(m, 0, &rank, dims), "x");
  assert_int_equal(rank, 2);
  assert_int_equal(dims[1], 4);
  assert_int_equal(vta_model_find_input(m, "x"), 0);
  const float x[4] = {1, 1, 1, 1};
  assert_int_not_equal(vta_model_set_input(m, 0, x, 3, &err), 0);
  assert_non_null(strstr(err.msg, "needs 4 elements"));
  assert_int_not_equal(vta_model_set_input(m, 1, x, 4, &err), 0);
  assert_int_equal(vta_model_set_input(m, 0, x, 4, &err), 0);
  assert_int_equal(vta_model_run(m, &err), 0);
  const float *z = vta_model_output(m, 0);
  for (int i = 0; i < 4; i++) assert_true(z[i] == 2 * (1 + k_c[i]));
  /* One successful run (the refused set_input calls are not runs), timed on the wall and on
   * the process's CPU clock. */
  vta_model_stats rs;
  vta_model_run_stats(m, &rs);
  assert_int_equal(rs.runs, 1);
  assert_true(rs.run_ms > 0 && rs.run_cpu_ms > 0);
  int dt;
  int64_t count;
  assert_non_null(vta_model_value(m, "y", &dt, &count));
  assert_int_equal(count, 4);
  /* No accelerator programs: only the cpu backend applies, and the message says so. */
  assert_int_not_equal(vta_model_set_backend(m, "fsim", NULL, &err), 0);
  assert_non_null(strstr(err.msg, "--accel"));
  vta_model_stats s;
  vta_model_run_stats(m, &s);
  vta_model_destroy(m);
}

static void test_plan_without_kernels_names_the_node(void **state) {
  unsigned char *b;
  size_t n;
  make_plan(&b, &n);
  vta_error err;
  vta_model *m = vta_model_from_plan(b, n, "hand.plan", NULL, 0, &err);
  free(b);
  assert_non_null(m);
  assert_int_not_equal(vta_model_run(m, &err), 0);
  assert_non_null(strstr(err.msg, "node 0 (Add)"));
  vta_model_destroy(m);
  /* A wrong kernel count is refused. */
  make_plan(&b, &n);
  assert_null(vta_model_from_plan(b, n, "hand.plan", k_fns, 1, &err));
  assert_non_null(strstr(err.msg, "1 kernels for 2 nodes"));
  free(b);
  vta_model_image img = {.abi = 99};
  assert_null(vta_model_from_image(&img, &err));
  assert_non_null(strstr(err.msg, "ABI 99"));
}

static void test_plan_corruptions_refused(void **state) {
  unsigned char *b;
  size_t n;
  make_plan(&b, &n);
  vta_error err;
  for (size_t len = 0; len < n; len++) {
    err.msg[0] = 0;
    vta_model *m = vta_model_from_plan(b, len, "cut.plan", k_fns, 2, &err);
    assert_null(m);
    assert_non_null(strstr(err.msg, "cut.plan"));
  }
  unsigned char *c = malloc(n);
  for (size_t at = 0; at < n; at++) {
    const unsigned char flips[3] = {0x01, 0x80, 0xff};
    for (int k = 0; k < 3; k++) {
      memcpy(c, b, n);
      c[at] ^= flips[k];
      err.msg[0] = 0;
      assert_null(vta_model_from_plan(c, n, "bad.plan", k_fns, 2, &err));
      assert_non_null(strstr(err.msg, "bad.plan"));
    }
  }
  free(c);
  free(b);
}

/* The structural checks behind the checksum: corruptions re-sealed with a valid checksum are
 * refused with a message or load a plan whose every index and size is consistent (loading
 * and destroying it is clean under ASan; its kernels, compiled for the original shapes, are
 * not run). */
static void reseal(unsigned char *c, size_t n) {
  uint64_t h = vta_plan_checksum(c, n - 8);
  for (int i = 0; i < 8; i++) c[n - 8 + i] = (unsigned char)(h >> (8 * i));
}

static void test_plan_resealed_corruptions_checked(void **state) {
  unsigned char *b;
  size_t n;
  make_plan(&b, &n);
  unsigned char *c = malloc(n);
  vta_error err;
  int refused = 0;
  for (size_t at = 0; at + 8 < n; at++) {
    const unsigned char flips[3] = {0x01, 0x80, 0xff};
    for (int k = 0; k < 3; k++) {
      memcpy(c, b, n);
      c[at] ^= flips[k];
      reseal(c, n);
      err.msg[0] = 0;
      vta_model *m = vta_model_from_plan(c, n, "sealed.plan", NULL, 0, &err);
      if (!m) {
        refused++;
        assert_non_null(strstr(err.msg, "sealed.plan"));
        continue;
      }
      vta_model_destroy(m);
    }
  }
  assert_true(refused > 0);
  free(c);
  free(b);
}

/* A node's fused flag is 0 or 1 (a QAdd computed by the convolution before it, skipped on an
 * accelerator backend, run on the CPU): 1 is read back, and on the CPU the node runs; 2 is
 * refused, naming the node. */
static void test_plan_fused_flag(void **state) {
  unsigned char *b;
  size_t n;
  vta_error err;
  make_plan_fused(&b, &n, 1);
  vta_model *m = vta_model_from_plan(b, n, "fused.plan", k_fns, 2, &err);
  free(b);
  assert_non_null(m);
  const float x[4] = {1, 1, 1, 1};
  assert_int_equal(vta_model_set_input(m, 0, x, 4, &err), 0);
  assert_int_equal(vta_model_run(m, &err), 0);
  assert_true(vta_model_output(m, 0)[3] == 2 * (1 + k_c[3]));
  vta_model_destroy(m);
  make_plan_fused(&b, &n, 2);
  assert_null(vta_model_from_plan(b, n, "fused.plan", k_fns, 2, &err));
  assert_non_null(strstr(err.msg, "node 1 (Mul) has fused flag 2"));
  free(b);
}

/* A plan of version 1 (byte-wise checksum) is refused by its version, not called damaged. */
static void test_plan_old_version_named(void **state) {
  unsigned char *b;
  size_t n;
  make_plan(&b, &n);
  b[4] = 1; /* the version, little-endian, after the magic */
  b[5] = b[6] = b[7] = 0;
  reseal(b, n);
  vta_error err;
  assert_null(vta_model_from_plan(b, n, "old.plan", k_fns, 2, &err));
  assert_non_null(strstr(err.msg, "old.plan: model plan version 1 is not supported"));
  free(b);
  /* The checksum sees a change in any one 8-byte word of a plan of 37 bytes (a tail). */
  unsigned char t[37] = {0};
  uint64_t h0 = vta_plan_checksum(t, sizeof t);
  for (size_t at = 0; at < sizeof t; at++) {
    t[at] = 0x5a;
    assert_true(vta_plan_checksum(t, sizeof t) != h0);
    t[at] = 0;
  }
  assert_true(vta_plan_checksum(t, sizeof t - 1) != h0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plan_runs_cpu_kernels),
      cmocka_unit_test(test_plan_without_kernels_names_the_node),
      cmocka_unit_test(test_plan_corruptions_refused),
      cmocka_unit_test(test_plan_resealed_corruptions_checked),
      cmocka_unit_test(test_plan_old_version_named),
      cmocka_unit_test(test_plan_fused_flag),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
