/* test_bench_alu.c - `vta bench alu`, and the cycle-level fields and device options that
 * host/bench_alu.c gives `vta bench gemm`: on fsim and on the rtl backend (the Verilator model
 * of hw/), one verified JSON line; on rtl the cycles, per-module busy and stall cycles and the
 * simulation speed are there, the ALU issues (nearly) one micro-op per cycle with immediate and
 * vector operands, and --wave writes a waveform. Cycle counts are exact, so the rates asserted
 * here are properties of the design, not of the machine. Runs the real binary (cli_run.h).
 */
#include "host/cli_run.h"

#include <cJSON.h>

/* The number under key of a one-line JSON object (nested with "a.b"), or -1 if absent. */
static double num(const char *json, const char *key) {
  cJSON *root = cJSON_Parse(json);
  if (!root) fail_msg("not JSON:\n%s", json);
  char k[64];
  snprintf(k, sizeof k, "%s", key);
  char *dot = strchr(k, '.');
  if (dot) *dot = 0;
  cJSON *v = cJSON_GetObjectItemCaseSensitive(root, k);
  if (dot && v) v = cJSON_GetObjectItemCaseSensitive(v, dot + 1);
  double x = cJSON_IsNumber(v) ? v->valuedouble : -1;
  cJSON_Delete(root);
  return x;
}

static void test_bench_alu_fsim_prints_one_verified_line(void **state) {
  cli_result r;
  CLI_RUN(&r, "bench", "alu", "--rows", "64", "--ops", "30", "--backend", "fsim");
  CLI_ASSERT_STATUS(&r, 0);
  CLI_ASSERT_CONTAINS(r.out, "\"bench\":\"alu\"");
  CLI_ASSERT_CONTAINS(r.out, "\"verified\":true");
  assert_true(num(r.out, "uops") == 64 * 30);
  assert_true(num(r.out, "imm_ops") == 15 && num(r.out, "vector_ops") == 15);
  assert_true(num(r.out, "cycles") < 0); /* fsim counts no cycles */
  assert_null(strstr(r.out, "compute_bound_cycles"));
  cli_result_free(&r);
}

static void test_bench_alu_rtl_one_uop_per_cycle(void **state) {
  cli_result r;
  CLI_RUN(&r, "bench", "alu", "--rows", "512", "--ops", "40", "--backend", "rtl");
  CLI_ASSERT_STATUS(&r, 0);
  CLI_ASSERT_CONTAINS(r.out, "\"verified\":true");
  double uops = num(r.out, "uops"), cycles = num(r.out, "cycles");
  assert_true(uops == 512 * 40);
  /* Loading 1024 ACC rows (8192 beats) and storing 512 OUT rows cost the rest. */
  assert_true(cycles > uops && cycles < uops + 8192 + 1024 + 400);
  assert_true(num(r.out, "uops_per_cycle") > 0.6);
  assert_true(num(r.out, "busy_cycles.compute") >= uops);
  assert_true(num(r.out, "stall_cycles.store") > 0);
  assert_true(num(r.out, "sim_cycles_per_s") > 0);
  cli_result_free(&r);
}

/* --backend rtl,sc: both lines, then the comparison (the SystemC model within 1 % here). */
static void test_bench_alu_compares_sc_with_rtl(void **state) {
  cli_result r;
  CLI_RUN(&r, "bench", "alu", "--rows", "256", "--ops", "20", "--backend", "rtl,sc");
  CLI_ASSERT_STATUS(&r, 0);
  CLI_ASSERT_CONTAINS(r.out, "\"backend\":\"rtl\"");
  CLI_ASSERT_CONTAINS(r.out, "\"backend\":\"sc\"");
  const char *cmp = strstr(r.out, "\"compare\":\"sc/rtl\"");
  assert_non_null(cmp);
  while (cmp > r.out && cmp[-1] != '\n') cmp--; /* the comparison line */
  double rc = num(cmp, "rtl_cycles"), sc = num(cmp, "sc_cycles"), e = num(cmp, "cycle_error");
  assert_true(rc > 256 * 20 && sc > 256 * 20);
  assert_true(e > -0.01 && e < 0.01);
  assert_true(num(cmp, "speed_ratio") > 0);
  cli_result_free(&r);
  CLI_RUN(&r, "bench", "alu", "--backend", "rtl,,sc");
  CLI_ASSERT_STATUS(&r, 2);
  CLI_ASSERT_CONTAINS(r.err, "backend names separated by commas");
  cli_result_free(&r);
}

static void test_bench_gemm_rtl_reports_cycles_and_utilisation(void **state) {
  cli_tmp *t = *state;
  const char *wave = cli_tmp_path(t, 0, "gemm.fst");
  cli_result r;
  CLI_RUN(&r, "bench", "gemm", "--m", "64", "--n", "64", "--k", "64", "--backend", "rtl",
          "--wave", wave, "--device-options", "latency=40");
  CLI_ASSERT_STATUS(&r, 0);
  CLI_ASSERT_CONTAINS(r.out, "\"verified\":true");
  double bound = num(r.out, "compute_bound_cycles"), cycles = num(r.out, "cycles");
  assert_true(bound == 64.0 * 64 * 64 / 256);
  assert_true(cycles > bound);
  double util = num(r.out, "utilisation");
  assert_true(util > 0 && util < 1);
  assert_true(util * cycles > bound - 1 && util * cycles < bound + 1);
  for (int m = 0; m < 3; m++) {
    static const char *const busy[] = {"busy_cycles.load", "busy_cycles.compute",
                                       "busy_cycles.store"};
    assert_true(num(r.out, busy[m]) > 0);
  }
  /* With 40 cycles of memory latency the compute module must wait for its first loads: it
   * stalls for some cycles, fewer than the run. */
  double stall = num(r.out, "stall_cycles.compute");
  assert_true(stall > 0 && stall < cycles);
  assert_true(num(r.out, "sim_cycles_per_s") > 0);
  assert_true(cli_exists(wave));
  cli_result_free(&r);
  /* fsim: the bound, no cycles. */
  CLI_RUN(&r, "bench", "gemm", "--m", "16", "--n", "16", "--k", "16");
  CLI_ASSERT_STATUS(&r, 0);
  assert_true(num(r.out, "compute_bound_cycles") == 16);
  assert_true(num(r.out, "cycles") < 0);
  cli_result_free(&r);
}

static void test_bench_alu_bad_arguments_exit_2(void **state) {
  const char *const cases[][8] = {
      {"bench", "alu", "--rows", "0x", NULL},
      {"bench", "alu", "--ops", "0", NULL},
      {"bench", "alu", "--rows", "5000", NULL},
      {"bench", "alu", "--bogus", NULL},
      {"bench", "alu", "--device-options", "latency=x", "--backend", "rtl", NULL},
  };
  const int want[] = {2, 2, 2, 2, 1};
  const char *const says[] = {"--rows", "--ops", "half the ACC depth", "unexpected argument",
                              "latency=x"};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cli_result r;
    cli_run_env(&r, NULL, NULL, cases[i]);
    CLI_ASSERT_STATUS(&r, want[i]);
    CLI_ASSERT_CONTAINS(r.err, "vta bench alu: ");
    CLI_ASSERT_CONTAINS(r.err, says[i]);
    cli_result_free(&r);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bench_alu_fsim_prints_one_verified_line),
      cmocka_unit_test(test_bench_alu_rtl_one_uop_per_cycle),
      cmocka_unit_test(test_bench_alu_compares_sc_with_rtl),
      cmocka_unit_test_setup_teardown(test_bench_gemm_rtl_reports_cycles_and_utilisation,
                                      cli_tmp_setup, cli_tmp_teardown),
      cmocka_unit_test(test_bench_alu_bad_arguments_exit_2),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
