/* test_xclbin_flow.c - `make xclbin` without Vivado or Vitis: scripts/xclbin-flow.sh writes and
 * checks every file it can for a board (kernel.xml, the Tcl, link.cfg, the lint of the Vitis top
 * level, a metadata-only xclbin of the board's banks) and then stops naming the missing tool;
 * an unknown board is refused with the list of boards. The yosys estimate (minutes) is left to
 * `make xclbin` itself (XCLBIN_ESTIMATE=0 here). */
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

/* Runs the flow for a board with a PATH that has no Xilinx tool; returns the exit status and
 * the standard error in err (malloc'd). */
static int flow(const char *board, const char *out, char **err) {
  char cmd[1024], errf[200];
  snprintf(errf, sizeof errf, "%s/%s.err", g_dir, board);
  snprintf(
      cmd, sizeof cmd,
      "PATH=/usr/bin:/bin XCLBIN_ESTIMATE=0 scripts/xclbin-flow.sh %s configs/vta_default.json "
      "%s build/bin/vta-svgen build/bin/vta-xclbin > %s/%s.out 2> %s",
      board, out, g_dir, board, errf);
  int st = system(cmd);
  *err = cli_slurp(errf, NULL);
  assert_non_null(*err);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
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
#endif
      cmocka_unit_test(test_xclbin_flow_unknown_board),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
