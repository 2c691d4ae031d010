/* test_xclbin_flow.c - `make xclbin` without Vivado or Vitis: scripts/xclbin-flow.sh writes and
 * checks every file it can for a board (kernel.xml, the Tcl, link.cfg, the lint of the Vitis top
 * level, a metadata-only xclbin of the board's banks) and then stops naming the missing tool;
 * an unknown board is refused with the list of boards. The yosys estimate of the default
 * configuration (minutes) is left to `make xclbin` itself (XCLBIN_ESTIMATE=0 there); a small
 * configuration's estimate is checked, against the sweep's estimator and cache. */
#include "host/cli_run.h"

static char g_dir[64];

static int setup(void **state) {
  (void)state;
  snprintf(g_dir, sizeof g_dir, "/tmp/vta_xclbin_flow.XXXXXX");
  return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* Runs the flow for a board and configuration with a PATH that has no Xilinx tool and the
 * environment env ("VAR=x ..."); returns the exit status and the standard error in err
 * (malloc'd). */
static int flow_with(const char *board, const char *config, const char *env, const char *out,
                     char **err) {
  char cmd[1400], errf[200];
  snprintf(errf, sizeof errf, "%s/%s.err", g_dir, board);
  snprintf(cmd, sizeof cmd,
           "PATH=/usr/bin:/bin %s scripts/xclbin-flow.sh %s %s "
           "%s build/bin/vta-svgen build/bin/vta-xclbin > %s/%s.out 2> %s",
           env, board, config, out, g_dir, board, errf);
  int st = system(cmd);
  *err = cli_slurp(errf, NULL);
  assert_non_null(*err);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int flow(const char *board, const char *out, char **err) {
  return flow_with(board, "configs/vta_default.json", "XCLBIN_ESTIMATE=0", out, err);
}

static void expect_file(const char *dir, const char *name, const char *needle) {
  char p[400];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  char *text = cli_slurp(p, NULL);
  if (!text) fail_msg("%s was not written", p);
  if (needle && !strstr(text, needle)) fail_msg("%s lacks \"%s\"", p, needle);
  free(text);
}

static void check_board(const char *board, const char *memory) {
  char out[200], *err;
  snprintf(out, sizeof out, "%s/%s", g_dir, board);
  int st = flow(board, out, &err);
  if (st != 3) fail_msg("exit status %d, expected 3 (stopped without Vitis); stderr:\n%s", st, err);
  CLI_ASSERT_CONTAINS(
      err, "stopped: vivado (Vivado, for package_xo) and v++ (Vitis, for the link) not on PATH");
  free(err);
  expect_file(out, "kernel.xml", "<port name=\"m_axi_gmem\" mode=\"master\"");
  expect_file(out, "kernel_regs.tcl",
              "set_property value m_axi_gmem [ipx::add_register_parameter ASSOCIATED_BUSIF $r]");
  expect_file(out, "package_xo.tcl", "package_xo -force");
  char sp[80];
  snprintf(sp, sizeof sp, "sp=vta_1.m_axi_gmem:%s", memory);
  expect_file(out, "link.cfg", sp);
  expect_file(out, "link.cfg", "freqHz=100000000:vta_1.ap_clk");
  expect_file(out, "vta_pkg.sv", "localparam logic [7:0] RegInsnAddr = 8'h18;");
  expect_file(out, "vta_meta.txt", memory);
  expect_file(out, "vta_meta.txt", "config check: ok");
}

static void test_xclbin_flow_u250_stops_without_vitis(void **state) {
  (void)state;
  check_board("u250", "DDR[0]");
}

static void test_xclbin_flow_zcu104_stops_without_vitis(void **state) {
  (void)state;
  check_board("zcu104", "HP0");
}

static void test_xclbin_flow_hbm_board(void **state) {
  (void)state;
  check_board("u55c", "HBM[0]");
}

/* A JSON number field of a one-line object, or -1. */
static double json_field(const char *text, const char *key) {
  char k[64];
  snprintf(k, sizeof k, "\"%s\":", key);
  const char *p = strstr(text, k);
  return p ? strtod(p + strlen(k), NULL) : -1;
}

/* The estimate of `make xclbin` is scripts/rtl-resources.sh, the one `vta sweep` runs: for a
 * board whose part has URAM it infers URAM (a 16 KB micro-op buffer of 32-bit words goes to
 * URAM), the same configuration estimated for a part without URAM (xcup-nouram, the Ultra96's
 * xczu3eg) has none and more block RAM, and a second flow reuses the estimate. The configuration
 * is small (1x4x4, 1-2 KB data buffers) so yosys takes seconds. */
static void test_xclbin_flow_estimate_is_the_sweeps(void **state) {
  (void)state;
  char cfg[200], cache[200], env[400], out[200], path[400], cmd[1200], *err;
  snprintf(cfg, sizeof cfg, "%s/small.json", g_dir);
  FILE *f = fopen(cfg, "w");
  assert_non_null(f);
  fputs("{\"TARGET\":\"sim\",\"HW_VER\":\"0.0.2\",\"LOG_INP_WIDTH\":3,\"LOG_WGT_WIDTH\":3,"
        "\"LOG_ACC_WIDTH\":5,\"LOG_BATCH\":0,\"LOG_BLOCK\":2,\"LOG_UOP_BUFF_SIZE\":14,"
        "\"LOG_INP_BUFF_SIZE\":10,\"LOG_WGT_BUFF_SIZE\":10,\"LOG_ACC_BUFF_SIZE\":11,"
        "\"LOG_BUS_WIDTH\":6,\"CLOCK_MHZ\":100,\"DRAM_LATENCY\":32}\n",
        f);
  assert_int_equal(fclose(f), 0);
  snprintf(cache, sizeof cache, "%s/resources", g_dir);
  snprintf(env, sizeof env, "XCLBIN_ESTIMATE_CACHE=%s", cache);
  snprintf(out, sizeof out, "%s/kv260", g_dir);
  int st = flow_with("kv260", cfg, env, out, &err);
  if (st != 3) fail_msg("exit status %d, expected 3 (stopped without Vitis); stderr:\n%s", st, err);
  free(err);
  snprintf(path, sizeof path, "%s/resources.json", out);
  char *est = cli_slurp(path, NULL);
  if (!est) fail_msg("%s was not written", path);
  CLI_ASSERT_CONTAINS(est, "\"estimate\":\"xcup\",\"family\":\"xcup\",\"uram_inferred\":true");
  CLI_ASSERT_CONTAINS(est, "\"model_key\":\"i3w3a5o3_b0i2o2_u14i10w10a11_bus6\"");
  double uram = json_field(est, "uram"), bram = json_field(est, "bram36");
  assert_true(uram >= 1);
  assert_true(json_field(est, "lut") > 0 && json_field(est, "dsp") > 0);
  snprintf(path, sizeof path, "%s/kv260.out", g_dir);
  char *table = cli_slurp(path, NULL);
  assert_non_null(table);
  CLI_ASSERT_CONTAINS(table, "estimating resources with yosys synth_xilinx (xcup;");
  CLI_ASSERT_CONTAINS(table, "make xclbin:     URAM ");
  free(table);

  /* The same shape for a part without URAM: the sweep's cache layout, no URAM, more BRAM. */
  snprintf(path, sizeof path, "%s/nouram.json", g_dir);
  snprintf(cmd, sizeof cmd, "scripts/rtl-resources.sh build/bin/vta-svgen %s xcup-nouram %s/ > %s",
           cfg, cache, path);
  assert_int_equal(system(cmd), 0);
  char *nu = cli_slurp(path, NULL);
  assert_non_null(nu);
  CLI_ASSERT_CONTAINS(nu, "\"estimate\":\"xcup-nouram\",\"family\":\"xcup\",\"uram_inferred\":false");
  assert_true(json_field(nu, "uram") == 0);
  assert_true(json_field(nu, "bram36") > bram);
  snprintf(path, sizeof path, "%s/xcup-nouram/i3w3a5o3_b0i2o2_u14i10w10a11_bus6.json", cache);
  char *cached = cli_slurp(path, NULL);
  assert_non_null(cached);
  assert_string_equal(cached, nu);
  free(cached);
  free(nu);

  /* A second flow reuses the estimate (same RTL): the same JSON, no yosys run. */
  st = flow_with("kv260", cfg, env, out, &err);
  assert_int_equal(st, 3);
  CLI_ASSERT_CONTAINS(err, "rtl-resources.sh: reusing the xcup estimate of i3w3a5o3_b0i2o2_u14i10w10a11_bus6");
  free(err);
  snprintf(path, sizeof path, "%s/resources.json", out);
  char *again = cli_slurp(path, NULL);
  assert_non_null(again);
  assert_string_equal(again, est);
  free(again);
  free(est);
  /* A bad estimate name is refused naming the choices. */
  snprintf(cmd, sizeof cmd, "scripts/rtl-resources.sh build/bin/vta-svgen %s xcv %s/ 2> %s/bad.err",
           cfg, cache, g_dir);
  st = system(cmd);
  assert_int_equal(WIFEXITED(st) ? WEXITSTATUS(st) : -1, 2);
  snprintf(path, sizeof path, "%s/bad.err", g_dir);
  char *bad = cli_slurp(path, NULL);
  assert_non_null(bad);
  CLI_ASSERT_CONTAINS(bad, "estimate 'xcv' is not one of xc7, xcu, xcup, xcup-nouram");
  free(bad);
}

static void test_xclbin_flow_unknown_board(void **state) {
  (void)state;
  char out[200], *err;
  snprintf(out, sizeof out, "%s/nope", g_dir);
  assert_int_equal(flow("vcu118", out, &err), 1);
  CLI_ASSERT_CONTAINS(err, "no board 'vcu118' (boards: ");
  CLI_ASSERT_CONTAINS(err, "kv260");
  free(err);
}

int main(void) {
  const struct CMUnitTest tests[] = {
#ifdef VTA_TEST_HAVE_XRT
      cmocka_unit_test(test_xclbin_flow_u250_stops_without_vitis),
      cmocka_unit_test(test_xclbin_flow_zcu104_stops_without_vitis),
      cmocka_unit_test(test_xclbin_flow_hbm_board),
      cmocka_unit_test(test_xclbin_flow_estimate_is_the_sweeps),
#endif
      cmocka_unit_test(test_xclbin_flow_unknown_board),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
