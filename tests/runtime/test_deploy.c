/* test_deploy.c - a deployed model needs only the installed runtime library: the text
 * orientation classifier compiled with `vta compile --accel --emit lib` (for this machine and
 * for aarch64), linked with examples/deploy_model.c by `cc` against the installed vta.pc alone
 * (no LLVM, no compiler), run natively on fsim and on the CPU and under qemu-user on fsim: all
 * outputs bit-identical with each other and with `vta run` of the same model on fsim; and
 * `vta bench model` of the bundle reports its device runs and boundary bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <cmocka.h>

#define MODEL ".cache/models/ppocr_cls.onnx"
#define ENV "env -u ASAN_OPTIONS -u UBSAN_OPTIONS -u LD_PRELOAD"

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...) {
  char cmd[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  int rc = system(cmd);
  if (rc != 0) print_error("command failed (%d): %s\n", rc, cmd);
  return rc;
}

static unsigned char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16;
  unsigned char *b = malloc(cap);
  *n = 0;
  size_t got;
  while (b && (got = fread(b + *n, 1, cap - *n, f)) > 0) {
    *n += got;
    if (*n == cap) b = realloc(b, cap *= 2);
  }
  fclose(f);
  return b;
}

/* The float32 elements of a version 1 .npy file (header: magic, version, length, text). */
static float *npy_floats(const char *path, size_t *count) {
  size_t n;
  unsigned char *b = slurp(path, &n);
  if (!b || n < 10 || memcmp(b, "\x93NUMPY\x01", 7) != 0 || !strstr((char *)b + 10, "<f4")) {
    free(b);
    return NULL;
  }
  size_t at = 10 + (size_t)(b[8] | b[9] << 8);
  *count = (n - at) / 4;
  float *x = malloc(*count * 4 + 4);
  memcpy(x, b + at, *count * 4);
  free(b);
  return x;
}

/* The lines of examples/deploy_model.c's output (exact hexadecimal floats). */
static float *printed(const char *path, size_t *count) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  float *y = malloc(4096 * sizeof *y);
  char line[64];
  *count = 0;
  while (*count < 4096 && fgets(line, sizeof line, f)) y[(*count)++] = strtof(line, NULL);
  fclose(f);
  return y;
}

static void test_deploy_model_native_and_aarch64_match_vta_run(void **state) {
  if (!fopen(MODEL, "rb") && system("scripts/fetch-models.sh >/dev/null") != 0) {
    print_error("%s is not cached and scripts/fetch-models.sh could not fetch it\n", MODEL);
    fail();
  }
  char dir[] = "/tmp/vta-deploy-XXXXXX";
  assert_non_null(mkdtemp(dir));
  const char *build = getenv("VTA_BUILD") ? getenv("VTA_BUILD") : "build";
  /* The SDK for this machine and the cross-built one for the board. */
  assert_int_equal(sh(ENV " make -s --no-print-directory install BUILD=%s PREFIX=%s/host >/dev/null", build, dir), 0);
  assert_int_equal(sh(ENV " make -s --no-print-directory install-cross BUILD=%s PREFIX=%s/a64 >/dev/null", build, dir), 0);
  const char *shape = "--shape 1,3,48,192 --accel --calibrate tests/data/calib/ppocr_cls";
  assert_int_equal(sh(ENV " %s/host/bin/vta compile " MODEL " %s --emit lib -o %s/cls.o 2>/dev/null", dir, shape, dir), 0);
  assert_int_equal(sh(ENV " %s/host/bin/vta compile " MODEL " %s --emit lib --triple aarch64-linux-gnu "
                      "-o %s/cls_a64.o 2>/dev/null", dir, shape, dir), 0);
  assert_int_equal(sh(ENV " %s/host/bin/vta compile " MODEL " %s -o %s/cls.vtab 2>/dev/null", dir, shape, dir), 0);
  assert_int_equal(sh(ENV " %s/host/bin/vta run %s/cls.vtab --input tests/data/models/text.npy --backend fsim "
                      "--output %s/run >/dev/null", dir, dir, dir), 0);
  /* The benchmark measures the same runs as one JSON line: the classifier's 24 programs in 20
   * device runs (consecutive accelerator nodes chained; its squeeze-and-excite layers run on
   * the CPU, faster there), its tensors crossing the boundary, per inference. */
  assert_int_equal(sh(ENV " %s/host/bin/vta bench model %s/cls.vtab --input tests/data/models/text.npy --backend fsim "
                      "--repeat 2 > %s/bench.json && grep -q '\"device_runs_per_inference\":20,\"programs_per_inference\":24,' %s/bench.json && "
                      "grep -q '\"bytes_to_device_per_inference\":[1-9]' %s/bench.json && "
                      "grep -q '\"ort_inference_seconds\":null' %s/bench.json", dir, dir, dir, dir, dir, dir), 0);
  /* Linked by cc with the installed library only: nothing of LLVM or the compiler inside. */
  assert_int_equal(sh(ENV " cc -std=c11 -o %s/cls examples/deploy_model.c %s/cls.o "
                      "$(PKG_CONFIG_PATH=%s/host/lib/pkgconfig pkg-config --cflags --libs vta)", dir, dir, dir), 0);
  assert_int_equal(sh("! ldd %s/cls | grep -i llvm && ! nm %s/cls | grep -E ' (LLVM|vta_onnx|vta_compile)'",
                      dir, dir), 0);
  assert_int_equal(sh(ENV " aarch64-linux-gnu-gcc -std=c11 -static -o %s/cls_a64 examples/deploy_model.c %s/cls_a64.o "
                      "$(PKG_CONFIG_PATH=%s/a64/lib/pkgconfig pkg-config --cflags --libs vta)", dir, dir, dir), 0);
  /* The input as raw float32. */
  size_t nx;
  float *x = npy_floats("tests/data/models/text.npy", &nx);
  assert_non_null(x);
  assert_int_equal(nx, 3 * 48 * 192);
  char path[512];
  snprintf(path, sizeof path, "%s/x.f32", dir);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(x, 4, nx, f), nx);
  fclose(f);
  free(x);
  assert_int_equal(sh(ENV " %s/cls fsim %s/x.f32 > %s/fsim.txt 2>/dev/null", dir, dir, dir), 0);
  assert_int_equal(sh(ENV " %s/cls cpu %s/x.f32 > %s/cpu.txt 2>/dev/null", dir, dir, dir), 0);
  assert_int_equal(sh(ENV " qemu-aarch64 %s/cls_a64 fsim %s/x.f32 > %s/a64.txt 2>/dev/null", dir, dir, dir), 0);
  assert_int_equal(sh("cmp %s/fsim.txt %s/a64.txt && cmp %s/fsim.txt %s/cpu.txt", dir, dir, dir, dir), 0);
  size_t ny, nr;
  snprintf(path, sizeof path, "%s/fsim.txt", dir);
  float *y = printed(path, &ny);
  snprintf(path, sizeof path, "%s/run/softmax_0.tmp_0.npy", dir);
  float *r = npy_floats(path, &nr);
  assert_non_null(y);
  assert_non_null(r);
  assert_int_equal(ny, 2);
  assert_int_equal(nr, ny);
  assert_memory_equal(y, r, ny * sizeof *y);
  assert_true(y[0] > y[1]); /* upright text: class 0 */
  free(y);
  free(r);
  /* A bad symbol name is refused before anything is written. */
  char cmd[1024];
  snprintf(cmd, sizeof cmd, ENV " %s/host/bin/vta compile " MODEL " --emit lib --name 1bad -o %s/bad.o 2>/dev/null",
           dir, dir);
  assert_int_equal(WEXITSTATUS(system(cmd)), 2);
  snprintf(path, sizeof path, "%s/bad.o", dir);
  assert_null(fopen(path, "rb"));
  sh("rm -rf %s", dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_deploy_model_native_and_aarch64_match_vta_run),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
