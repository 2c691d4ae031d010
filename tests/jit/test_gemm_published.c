/* test_gemm_published.c - examples/gemm_published.c, the blocked GEMM written only against the
 * published driver and runtime headers, computes the right result on the default, batch4 and
 * block32 configurations (each in a child process: the published API configures its one device
 * from $VTA_CONFIG and $VTA_BACKEND at the first call), and on the rtl backend (the Verilator
 * model of hw/) for the configurations whose models `make test` builds. The example is compiled
 * into this test unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#define main gemm_published_main
#include "../../examples/gemm_published.c"
#undef main

static void run_example_on(const char *config, const char *backend) {
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    if (config) setenv("VTA_CONFIG", config, 1);
    else unsetenv("VTA_CONFIG");
    if (backend) setenv("VTA_BACKEND", backend, 1);
    else unsetenv("VTA_BACKEND");
    exit(gemm_published_main());
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}

static void run_example(const char *config) { run_example_on(config, NULL); }

static void test_gemm_published_default(void **state) { run_example(NULL); }
static void test_gemm_published_batch4(void **state) { run_example("configs/batch4.json"); }
static void test_gemm_published_block32(void **state) { run_example("configs/block32.json"); }
static void test_gemm_published_default_rtl(void **state) { run_example_on(NULL, "rtl"); }
static void test_gemm_published_wide_bus_rtl(void **state) {
  run_example_on("sim/rtl/configs/rtl_wide.json", "rtl");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gemm_published_default),
      cmocka_unit_test(test_gemm_published_batch4),
      cmocka_unit_test(test_gemm_published_block32),
      cmocka_unit_test(test_gemm_published_default_rtl),
      cmocka_unit_test(test_gemm_published_wide_bus_rtl),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
