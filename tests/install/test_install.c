/* test_install.c - `make install PREFIX=DIR` gives a usable SDK: a program written only against
 * the published <vta/driver.h> and <vta/runtime.h> (examples/gemm_published.c) builds with
 * pkg-config from the installed vta.pc and computes a blocked GEMM correctly on fsim. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...) {
  char cmd[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  int rc = system(cmd);
  if (rc != 0) print_error("command failed (%d): %s\n", rc, cmd);
  return rc;
}

static void test_install_sdk_builds_and_runs_published_api_program(void **state) {
  char dir[] = "/tmp/vta-install-XXXXXX";
  assert_non_null(mkdtemp(dir));
  /* The sanitizer runtime must not leak into the install step or the user's program. */
  const char *env = "env -u ASAN_OPTIONS -u UBSAN_OPTIONS -u LD_PRELOAD";
  const char *build = getenv("VTA_BUILD") ? getenv("VTA_BUILD") : "build";
  assert_int_equal(
      sh("%s make -s --no-print-directory install BUILD=%s PREFIX=%s >/dev/null", env, build, dir),
      0);
  assert_int_equal(sh("test -f %s/include/vta/driver.h && test -f %s/include/vta/runtime.h && "
                      "test -f %s/lib/libvta.a && test -f %s/lib/libvta.so && test -x %s/bin/vta",
                      dir, dir, dir, dir, dir),
                   0);
  assert_int_equal(sh("%s cc -std=c11 -o %s/gemm examples/gemm_published.c "
                      "$(PKG_CONFIG_PATH=%s/lib/pkgconfig pkg-config --cflags --libs vta)",
                      env, dir, dir),
                   0);
  assert_int_equal(sh("%s VTA_BACKEND=fsim %s/gemm > %s/out.txt", env, dir, dir), 0);
  assert_int_equal(sh("%s VTA_CONFIG=configs/batch4.json %s/gemm >> %s/out.txt", env, dir, dir), 0);
  sh("rm -rf %s", dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_install_sdk_builds_and_runs_published_api_program),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
