/* test_partition.c - the int8 and accelerator options of the command line on a real model:
 * `vta compile --accel --explain` (calibrated by default on tests/data/calib/blazeface, found by
 * the model's name), `vta info` and `vta run --backend fsim`, and the errors for bad
 * calibration inputs and options.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "host/cli.h"

#define FACE ".cache/models/blazeface.onnx"

static int fetched(void) {
  FILE *f = fopen(FACE, "rb");
  if (f) {
    fclose(f);
    return 1;
  }
  return system("scripts/fetch-models.sh >/dev/null") == 0;
}

static int call(int (*cmd)(int, char **), char **argv) {
  int argc = 0;
  while (argv[argc]) argc++;
  return cmd(argc, argv);
}

/* Runs cmd with stdout sent to path; returns its exit status. */
static int call_to(int (*cmd)(int, char **), char **argv, const char *path) {
  fflush(stdout);
  int saved = dup(1);
  FILE *f = freopen(path, "w", stdout);
  assert_non_null(f);
  int rc = call(cmd, argv);
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  stdout = fdopen(1, "w");
  return rc;
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  static char buf[1 << 20];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  return buf;
}

static void test_partition_cli_compile_explain_run(void **state) {
  (void)state;
  assert_true(fetched());
  char dir[] = "/tmp/vta-partition-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char bundle[300], out[300], text[300], cmdline[700];
  snprintf(bundle, sizeof bundle, "%s/face.vtab", dir);
  snprintf(out, sizeof out, "%s/out", dir);
  snprintf(text, sizeof text, "%s/stdout.txt", dir);
  char *compile[] = {"compile", FACE, "--explain", "-o", bundle, NULL};
  assert_int_equal(call_to(vta_cmd_compile, compile, text), 0);
  char *t = slurp(text);
  assert_non_null(strstr(t, "node 2 vta  QConv"));
  assert_non_null(strstr(t, "depthwise convolution"));
  assert_non_null(strstr(t, "program 0:"));
  /* 17 convolutions; the 3 max poolings read the residual adds' outputs on the CPU and feed
   * CPU nodes, so they stay there (on the device they would only move their tensors). */
  assert_non_null(strstr(t, "summary: 17 of"));
  assert_null(strstr(t, "vta  MaxPool"));
  assert_non_null(strstr(t, "cpu  MaxPool"));
  assert_non_null(strstr(t, "int8 max pooling on the CPU: its input comes from the CPU and every "
                            "reader runs there"));
  /* Per-channel power-of-two weight scales: one program per convolution, whose epilogue
   * shifts each channel by its own amount. */
  assert_non_null(strstr(t, "1 program (per-channel weight-scale shifts and the clip by one vector SHRCLIP)"));
  assert_non_null(strstr(t, "with per-channel shifts"));
  assert_null(strstr(t, "programs (one per weight-scale shift)"));
  /* The compile's threads (calibration code, tiling searches, code beside lowering) do not
   * change a byte of the bundle. */
  char one[300], three[300];
  snprintf(one, sizeof one, "%s/one.vtab", dir);
  snprintf(three, sizeof three, "%s/three.vtab", dir);
  char *c1[] = {"compile", FACE, "--accel", "-o", one, NULL};
  char *c3[] = {"compile", FACE, "--accel", "-o", three, NULL};
  setenv("VTA_THREADS", "1", 1);
  assert_int_equal(call(vta_cmd_compile, c1), 0);
  setenv("VTA_THREADS", "3", 1);
  assert_int_equal(call(vta_cmd_compile, c3), 0);
  unsetenv("VTA_THREADS");
  snprintf(cmdline, sizeof cmdline, "cmp -s %s %s && cmp -s %s %s", one, three, one, bundle);
  assert_int_equal(system(cmdline), 0);
  /* --residual-adds exact: BlazeFace's 16 adds get exact 7-bit multipliers and go to the
   * accelerator. */
  char *exact[] = {"compile", FACE, "--residual-adds", "exact", "--explain", "-o", one, NULL};
  assert_int_equal(call_to(vta_cmd_compile, exact, text), 0);
  t = slurp(text);
  assert_non_null(strstr(t, "summary: 36 of"));
  assert_non_null(strstr(t, "vta  QAdd"));
  assert_non_null(strstr(t, "vta  MaxPool")); /* beside the adds on the device */
  /* The orientation classifier's squeeze-and-excite layers (pairs of 16 to 10,000 MACs between
   * CPU nodes) run faster on the CPU than as device runs of their own; its other convolutions
   * (73,728 MACs and more) stay on the accelerator. */
  char *cls[] = {"compile", ".cache/models/ppocr_cls.onnx", "--shape", "1,3,48,192", "--explain",
                 "-o", one, NULL};
  assert_int_equal(call_to(vta_cmd_compile, cls, text), 0);
  t = slurp(text);
  assert_non_null(strstr(t, "summary: 24 of 141 nodes"));
  assert_non_null(strstr(t, "'p2o.Conv.44': int8 QConv on the CPU: in an island of accelerator "
                            "nodes between CPU nodes, 20000 MACs: about 20.00 us on a host doing 1 "
                            "MAC per ns, less than the accelerator's"));
  assert_non_null(strstr(t, "node 14 vta  QConv"));
  /* --host-macs-per-ns 0 keeps every island on the accelerator; a bad rate is refused. */
  char *keep[] = {"compile", ".cache/models/ppocr_cls.onnx", "--shape", "1,3,48,192", "--explain",
                  "--host-macs-per-ns", "0", "-o", one, NULL};
  assert_int_equal(call_to(vta_cmd_compile, keep, text), 0);
  assert_non_null(strstr(slurp(text), "summary: 42 of 141 nodes"));
  char *bad[] = {"compile", ".cache/models/ppocr_cls.onnx", "--host-macs-per-ns", "-1", "-o", one,
                 NULL};
  assert_int_equal(call(vta_cmd_compile, bad), 2);
  char *info[] = {"info", bundle, NULL};
  assert_int_equal(call_to(vta_cmd_info, info, text), 0);
  assert_non_null(strstr(slurp(text), "for 17 nodes"));
  char *run[] = {"run", bundle, "--input", "tests/data/models/astronaut.npy", "--backend", "fsim",
                 "-o", out, NULL};
  assert_int_equal(call_to(vta_cmd_run, run, text), 0);
  t = slurp(text);
  assert_non_null(strstr(t, "accelerator (fsim): "));
  assert_non_null(strstr(t, "25608192 of 30760960 MACs offloaded (83.2%)"));
  assert_non_null(strstr(t, "17 nodes in 17 programs"));
  /* The accelerator's outputs are the CPU code's, bit for bit. */
  char cpu_out[300];
  snprintf(cpu_out, sizeof cpu_out, "%s/cpu", dir);
  char *run_cpu[] = {"run", bundle, "--input", "tests/data/models/astronaut.npy", "--backend", "cpu",
                     "-o", cpu_out, NULL};
  assert_int_equal(call_to(vta_cmd_run, run_cpu, text), 0);
  snprintf(cmdline, sizeof cmdline, "diff -r %s %s >/dev/null", out, cpu_out);
  assert_int_equal(system(cmdline), 0);
  /* A CPU-only bundle has no accelerator programs to run. */
  char *plain[] = {"compile", FACE, "-o", bundle, NULL};
  assert_int_equal(call(vta_cmd_compile, plain), 0);
  assert_int_equal(call_to(vta_cmd_run, run, text), 1);
  snprintf(cmdline, sizeof cmdline, "rm -rf %s", dir);
  assert_int_equal(system(cmdline), 0);
}

static void test_partition_cli_bad_calibration_and_options(void **state) {
  (void)state;
  assert_true(fetched());
  char *missing[] = {"compile", FACE, "--calibrate", "/nonexistent/calib", "-o", "/tmp/x.vtab", NULL};
  assert_int_equal(call(vta_cmd_compile, missing), 1);
  /* A calibration file of the wrong shape is refused by name. */
  char dir[] = "/tmp/vta-calib-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char cmdline[300];
  snprintf(cmdline, sizeof cmdline, "cp tests/data/models/text.npy %s/", dir);
  assert_int_equal(system(cmdline), 0);
  char *wrong[] = {"compile", FACE, "--calibrate", dir, "-o", "/tmp/x.vtab", NULL};
  assert_int_equal(call(vta_cmd_compile, wrong), 1);
  snprintf(cmdline, sizeof cmdline, "rm -rf %s", dir);
  assert_int_equal(system(cmdline), 0);
  char *cfg_alone[] = {"compile", FACE, "--config", "configs/vta_default.json", "-o", "/tmp/x.vtab", NULL};
  assert_int_equal(call(vta_cmd_compile, cfg_alone), 2);
  char *accel_obj[] = {"compile", FACE, "--accel", "--emit", "obj", "-o", "/tmp/x.o", NULL};
  assert_int_equal(call(vta_cmd_compile, accel_obj), 2);
  char *adds[] = {"compile", FACE, "--accel", "--residual-adds", "gpu", "-o", "/tmp/x.vtab", NULL};
  assert_int_equal(call(vta_cmd_compile, adds), 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_partition_cli_compile_explain_run),
      cmocka_unit_test(test_partition_cli_bad_calibration_and_options),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
