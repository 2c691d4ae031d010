/* test_commands.c - `vta bench gemm` and `vta demo` run in-process: the benchmark checks its
 * own result and prints one JSON line with every field; the demo prints its steps and a
 * correct result; bad command lines exit 2 with a reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "host/cli.h"

/* Runs a subcommand with stdout and stderr captured into *out (malloc'd). */
static int capture(int (*fn)(int, char **), int argc, char **argv, char **out) {
  fflush(NULL);
  FILE *tmp = tmpfile();
  assert_non_null(tmp);
  int saved_out = dup(1), saved_err = dup(2);
  dup2(fileno(tmp), 1);
  dup2(fileno(tmp), 2);
  int rc = fn(argc, argv);
  fflush(NULL);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
  long n = ftell(tmp);
  rewind(tmp);
  *out = calloc(1, (size_t)n + 1);
  assert_int_equal(fread(*out, 1, (size_t)n, tmp), (size_t)n);
  fclose(tmp);
  return rc;
}

static void test_bench_gemm_prints_one_verified_json_line(void **state) {
  char *argv[] = {"bench", "gemm", "--m", "64", "--n", "128", "--k", "256",
                  "--config", "configs/batch4.json", "--repeat", "2", NULL};
  char *out;
  assert_int_equal(capture(vta_cmd_bench, 12, argv, &out), 0);
  const char *keys[] = {"\"bench\":\"gemm\"", "\"backend\":\"fsim\"", "\"config\":\"4x16x16\"",
                        "\"m\":64", "\"n\":128", "\"k\":256", "\"macs\":2097152",
                        "\"wall_seconds\":", "\"jit_seconds\":", "\"device_seconds\":",
                        "\"gmacs_per_s\":", "\"jit_insns_per_s\":", "\"insns\":", "\"uops\":",
                        "\"verified\":true"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    if (!strstr(out, keys[i])) fprintf(stderr, "missing %s in: %s\n", keys[i], out);
    assert_non_null(strstr(out, keys[i]));
  }
  /* One line. */
  assert_non_null(strchr(out, '\n'));
  assert_int_equal(strchr(out, '\n')[1], 0);
  free(out);
}

static void test_bench_gemm_rejects_bad_sizes(void **state) {
  char *argv[] = {"bench", "gemm", "--m", "6", "--config", "configs/batch4.json", NULL};
  char *out;
  assert_int_equal(capture(vta_cmd_bench, 6, argv, &out), 2);
  assert_non_null(strstr(out, "multiples of BATCH 4"));
  free(out);
  char *argv2[] = {"bench", "resnet", NULL};
  assert_int_equal(capture(vta_cmd_bench, 2, argv2, &out), 2);
  assert_non_null(strstr(out, "unknown benchmark 'resnet'"));
  free(out);
  char *argv3[] = {"bench", "gemm", "--k", "0", NULL};
  assert_int_equal(capture(vta_cmd_bench, 4, argv3, &out), 2);
  free(out);
}

static void test_demo_runs_and_matches_reference(void **state) {
  char *argv[] = {"demo", "--config", "configs/block32.json", NULL};
  char *out;
  assert_int_equal(capture(vta_cmd_demo, 3, argv, &out), 0);
  assert_non_null(strstr(out, "4096 of 4096 values equal the CPU reference"));
  assert_non_null(strstr(out, "\"macs\": 262144"));
  free(out);
  char *argv2[] = {"demo", "--dump", NULL};
  assert_int_equal(capture(vta_cmd_demo, 2, argv2, &out), 0);
  assert_non_null(strstr(out, "alu uop_bgn="));
  assert_non_null(strstr(out, "finish"));
  free(out);
  char *argv3[] = {"demo", "--config", "configs/small.json", NULL};
  assert_int_equal(capture(vta_cmd_demo, 3, argv3, &out), 1);
  assert_non_null(strstr(out, "do not fit"));
  free(out);
}

int main(void) {
  unsetenv("VTA_CONFIG");
  unsetenv("VTA_BACKEND");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bench_gemm_prints_one_verified_json_line),
      cmocka_unit_test(test_bench_gemm_rejects_bad_sizes),
      cmocka_unit_test(test_demo_runs_and_matches_reference),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
