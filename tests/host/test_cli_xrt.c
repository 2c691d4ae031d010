/* test_cli_xrt.c - `vta run|info|bench --backend xrt` without a card: a real model compiled for
 * the accelerator runs through XRT's noop emulation with the Verilator model playing the kernel
 * (emulate=rtl), and its outputs are compared bit for bit with fsim's; the command line's
 * refusals name the problem.
 *
 * The environment for noop (XILINX_XRT pointing at a folder whose lib is the system library
 * folder, XCL_EMULATION_MODE=noop) is given to each child; the xclbins are written with the
 * library's own writer (driver/xrt/xclbin_file.h).
 */
#include <glob.h>

#include "host/cli_run.h"

#ifdef VTA_TEST_HAVE_XRT
#include "driver/xrt/xclbin_file.h"
#endif
#include "vta/config.h"
#include "vta/device.h"

#define CLS ".cache/models/ppocr_cls.onnx"

static char g_dir[64];
static char g_env_xrt[200];
static const char *g_env[3];

static const char *path_in(const char *name) {
  static char buf[8][256];
  static int k;
  char *p = buf[k++ % 8];
  snprintf(p, 256, "%s/%s", g_dir, name);
  return p;
}

static int setup(void **state) {
  (void)state;
  snprintf(g_dir, sizeof g_dir, "/tmp/vta_cli_xrt.XXXXXX");
  if (!mkdtemp(g_dir)) return -1;
  glob_t g;
  if (glob("/usr/lib/*/libxrt_noop.so.2", 0, NULL, &g) != 0 || g.gl_pathc == 0) return -1;
  char libdir[512];
  snprintf(libdir, sizeof libdir, "%s", g.gl_pathv[0]);
  globfree(&g);
  *strrchr(libdir, '/') = '\0';
  char xrt[128], link[160];
  snprintf(xrt, sizeof xrt, "%s/xrt", g_dir);
  snprintf(link, sizeof link, "%s/lib", xrt);
  if (mkdir(xrt, 0755) != 0 || symlink(libdir, link) != 0) return -1;
  snprintf(g_env_xrt, sizeof g_env_xrt, "XILINX_XRT=%s", xrt);
  g_env[0] = g_env_xrt;
  g_env[1] = "XCL_EMULATION_MODE=noop";
  g_env[2] = NULL;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
  return system(cmd) == 0 ? 0 : -1;
}

#ifdef VTA_TEST_HAVE_XRT

static const char *xclbin_for(const char *config, const char *name) {
  vta_config cfg;
  vta_error err;
  if (vta_config_load(&cfg, config, &err) != VTA_OK) fail_msg("%s", err.msg);
  vta_xclbin_spec s;
  vta_xclbin_spec_default(&s);
  const char *p = path_in(name);
  if (vta_xclbin_write_meta(&cfg, &s, p, &err) != VTA_OK) fail_msg("%s", err.msg);
  return p;
}

static int model_cached(void) {
  FILE *f = fopen(CLS, "rb");
  if (f) {
    fclose(f);
    return 1;
  }
  return system("scripts/fetch-models.sh >/dev/null") == 0;
}

static void same_files(const char *a, const char *b) {
  size_t na, nb;
  char *x = cli_slurp(a, &na), *y = cli_slurp(b, &nb);
  if (!x || !y) fail_msg("missing output %s or %s", a, b);
  if (na != nb || memcmp(x, y, na) != 0) fail_msg("%s and %s differ", a, b);
  free(x);
  free(y);
}

/* The text classifier compiled for the accelerator: every accelerator layer through XRT's
 * buffer objects and kernel runs, executed by the RTL, gives fsim's outputs bit for bit. */
static void test_cli_xrt_model_bit_identical_with_fsim(void **state) {
  (void)state;
  if (!model_cached())
    fail_msg("%s is not cached and scripts/fetch-models.sh could not fetch it", CLS);
  cli_result r;
  const char *bundle = path_in("cls.vtab");
  CLI_RUN(&r, "compile", CLS, "--shape", "1,3,48,192", "--accel", "-o", bundle);
  CLI_ASSERT_STATUS(&r, 0);
  cli_result_free(&r);
  const char *x = xclbin_for("configs/vta_default.json", "vta.xclbin");
  const char *d1 = path_in("fsim_out"), *d2 = path_in("xrt_out");
  CLI_RUN(&r, "run", bundle, "-i", "tests/data/models/text.npy", "--backend", "fsim", "-o", d1);
  CLI_ASSERT_STATUS(&r, 0);
  cli_result_free(&r);
  CLI_RUN_ENV(&r, g_env, "run", bundle, "-i", "tests/data/models/text.npy", "--backend", "xrt",
              "--xclbin", x, "--device", "0", "--backend-options", "emulate=rtl", "-o", d2);
  CLI_ASSERT_STATUS(&r, 0);
  /* The accelerator's statistics come from the RTL's counters (cycles, utilisation). */
  CLI_ASSERT_CONTAINS(r.out, "accelerator (xrt):");
  CLI_ASSERT_CONTAINS(r.out, " cycles, utilisation ");
  cli_result_free(&r);
  DIR *d = opendir(d1);
  assert_non_null(d);
  struct dirent *e;
  int n = 0;
  while ((e = readdir(d)) != NULL) {
    if (!strstr(e->d_name, ".npy")) continue;
    char a[400], b[400];
    snprintf(a, sizeof a, "%s/%s", d1, e->d_name);
    snprintf(b, sizeof b, "%s/%s", d2, e->d_name);
    same_files(a, b);
    n++;
  }
  closedir(d);
  assert_true(n >= 1);
}

static void test_cli_xrt_info_and_bench(void **state) {
  (void)state;
  const char *x = xclbin_for("configs/vta_default.json", "info.xclbin");
  cli_result r;
  CLI_RUN_ENV(&r, g_env, "info", "--backend", "xrt", "--xclbin", x);
  CLI_ASSERT_STATUS(&r, 0);
  CLI_ASSERT_CONTAINS(r.out, "shell:    vta_noop_platform");
  CLI_ASSERT_CONTAINS(r.out, "kernel:   vta (compute unit vta:vta_1");
  CLI_ASSERT_CONTAINS(r.out, "<- m_axi_gmem");
  CLI_ASSERT_CONTAINS(r.out, "UUID ");
  cli_result_free(&r);
  CLI_RUN_ENV(&r, g_env, "bench", "overhead", "--backend", "xrt", "--xclbin", x, "--runs", "50");
  CLI_ASSERT_STATUS(&r, 0);
  CLI_ASSERT_CONTAINS(
      r.out, "{\"bench\":\"overhead\",\"backend\":\"xrt\",\"config\":\"1x16x16\",\"runs\":50,");
  CLI_ASSERT_CONTAINS(r.out, "\"per_run_us\":");
  cli_result_free(&r);
  /* The GEMM benchmark through XRT and the RTL checks its result against the CPU. */
  CLI_RUN_ENV(&r, g_env, "bench", "gemm", "--m", "32", "--n", "32", "--k", "32", "--backend", "xrt",
              "--device-options", "emulate=rtl,xclbin=", "--repeat", "1");
  CLI_ASSERT_STATUS(&r, 1); /* an empty xclbin= names no file */
  cli_result_free(&r);
  char opt[300];
  snprintf(opt, sizeof opt, "xclbin=%s,emulate=rtl", x);
  CLI_RUN_ENV(&r, g_env, "bench", "gemm", "--m", "32", "--n", "32", "--k", "32", "--backend", "xrt",
              "--device-options", opt, "--repeat", "1");
  CLI_ASSERT_STATUS(&r, 0);
  CLI_ASSERT_CONTAINS(r.out, "\"bench\":\"gemm\",\"backend\":\"xrt\"");
  CLI_ASSERT_CONTAINS(r.out, "\"cycles\":");
  cli_result_free(&r);
}

static void test_cli_xrt_refusals(void **state) {
  (void)state;
  cli_result r;
  const char *wide = xclbin_for("sim/rtl/configs/rtl_wide.json", "wide.xclbin");
  /* --xclbin belongs to --backend xrt. */
  CLI_RUN(&r, "info", "--backend", "fsim", "--xclbin", wide);
  CLI_ASSERT_STATUS(&r, 2);
  CLI_ASSERT_CONTAINS(r.err, "--xclbin and --device are options of --backend xrt");
  cli_result_free(&r);
  /* No xclbin. */
  CLI_RUN_ENV(&r, g_env, "info", "--backend", "xrt");
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "no xclbin: give one with `--xclbin FILE`");
  cli_result_free(&r);
  /* An xclbin of another configuration than the one asked for. */
  CLI_RUN_ENV(&r, g_env, "info", "--backend", "xrt", "--xclbin", wide);
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "was built for configuration");
  cli_result_free(&r);
  CLI_RUN_ENV(&r, g_env, "info", "--backend", "xrt", "--xclbin", wide, "--config",
              "sim/rtl/configs/rtl_wide.json");
  CLI_ASSERT_STATUS(&r, 0);
  cli_result_free(&r);
  /* No runtime set up (XILINX_XRT missing). */
  CLI_RUN(&r, "info", "--backend", "xrt", "--xclbin", wide, "--config",
          "sim/rtl/configs/rtl_wide.json");
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "XILINX_XRT is not set");
  cli_result_free(&r);
  /* A bad device index. */
  CLI_RUN_ENV(&r, g_env, "info", "--backend", "xrt", "--xclbin", wide, "--device", "many");
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "device=many is not a device index");
  cli_result_free(&r);
}

#else

static void test_cli_xrt_absent_says_how_to_get_it(void **state) {
  (void)state;
  cli_result r;
  CLI_RUN(&r, "info", "--backend", "xrt", "--xclbin", "x.xclbin");
  CLI_ASSERT_STATUS(&r, 1);
  CLI_ASSERT_CONTAINS(r.err, "libxrt-dev");
  cli_result_free(&r);
}

#endif

int main(void) {
  const struct CMUnitTest tests[] = {
#ifdef VTA_TEST_HAVE_XRT
      cmocka_unit_test(test_cli_xrt_info_and_bench),
      cmocka_unit_test(test_cli_xrt_refusals),
      cmocka_unit_test(test_cli_xrt_model_bit_identical_with_fsim),
#else
      cmocka_unit_test(test_cli_xrt_absent_says_how_to_get_it),
#endif
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
