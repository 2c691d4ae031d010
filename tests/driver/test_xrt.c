/* test_xrt.c - the xrt backend without a card: XRT's noop emulation runs the host flow on the
 * metadata-only xclbins the project writes, and with emulate=rtl the Verilator model of the
 * same configuration plays the kernel, so programs run through XRT's buffer objects, syncs and
 * runs give memory bit-identical with fsim. Then every way the backend can be refused.
 *
 * XRT reads its environment (XCL_EMULATION_MODE, XILINX_XRT) and loads its device layer once
 * per process, so the cases that need another environment (no runtime, no device) run in a
 * child process. noop needs $XILINX_XRT/lib to be the folder holding libxrt_noop: the test makes
 * such a folder (a symbolic link to the system's library folder) under /tmp.
 */
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "isa/svgen.h"
#include "sim/rtl_pair.h"
#include "vta/device.h"
#include "vta/regmap.h"

#ifdef VTA_TEST_HAVE_XRT
#include "driver/xrt/xclbin_file.h"
#endif

/* The published-API example, compiled in unchanged (as tests/jit/test_gemm_published.c does). */
#define main gemm_published_main
#include "../../examples/gemm_published.c"
#undef main

#define DEFAULT_CFG "configs/vta_default.json"
#define WIDE_CFG "sim/rtl/configs/rtl_wide.json"

static char g_dir[64];
static char g_xrt[128];

/* A folder whose lib is the system folder holding XRT's libraries. */
static int setup_env(void **state) {
  (void)state;
  snprintf(g_dir, sizeof g_dir, "/tmp/vta_xrt_test.XXXXXX");
  assert_non_null(mkdtemp(g_dir));
  glob_t g;
  if (glob("/usr/lib/*/libxrt_noop.so.2", 0, NULL, &g) != 0 || g.gl_pathc == 0)
    fail_msg("XRT's noop library (libxrt_noop.so.2, Debian's libxrt1) is not installed");
  char libdir[512];
  snprintf(libdir, sizeof libdir, "%s", g.gl_pathv[0]);
  globfree(&g);
  *strrchr(libdir, '/') = '\0';
  snprintf(g_xrt, sizeof g_xrt, "%s/xrt", g_dir);
  assert_int_equal(mkdir(g_xrt, 0755), 0);
  char link[256];
  snprintf(link, sizeof link, "%s/lib", g_xrt);
  assert_int_equal(symlink(libdir, link), 0);
  setenv("XILINX_XRT", g_xrt, 1);
  setenv("XCL_EMULATION_MODE", "noop", 1);
  unsetenv("VTA_XRT_XCLBIN");
  unsetenv("VTA_XRT_EMULATE");
  return 0;
}

static int teardown_env(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
  return system(cmd) == 0 ? 0 : -1;
}

static void load_cfg(vta_config *cfg, const char *path) {
  vta_error err;
  if (vta_config_load(cfg, path, &err) != VTA_OK) fail_msg("%s", err.msg);
}

#ifdef VTA_TEST_HAVE_XRT

static const char *xclbin_path(const char *name) {
  static char buf[4][160];
  static int k;
  char *p = buf[k++ % 4];
  snprintf(p, 160, "%s/%s", g_dir, name);
  return p;
}

/* Writes a metadata-only xclbin for the configuration at path (spec changes by the caller). */
static const char *write_xclbin(const char *name, const char *config,
                                void (*tweak)(vta_xclbin_spec *)) {
  vta_config cfg;
  load_cfg(&cfg, config);
  vta_xclbin_spec s;
  vta_xclbin_spec_default(&s);
  if (tweak) tweak(&s);
  const char *path = xclbin_path(name);
  vta_error err;
  if (vta_xclbin_write_meta(&cfg, &s, path, &err) != VTA_OK) fail_msg("%s", err.msg);
  return path;
}

static int open_xrt(const char *config, const char *xclbin, const char *extra, vta_device **dev,
                    vta_error *err) {
  vta_config cfg;
  load_cfg(&cfg, config);
  char opts[512];
  snprintf(opts, sizeof opts, "xclbin=%s%s%s", xclbin, extra ? "," : "", extra ? extra : "");
  return vta_device_open("xrt", &cfg, opts, dev, err);
}

static void expect_open_error(const char *config, const char *xclbin, const char *extra, int status,
                              const char *const *words) {
  vta_device *dev = NULL;
  vta_error err = {0};
  int rc = open_xrt(config, xclbin, extra, &dev, &err);
  if (rc == VTA_OK) {
    vta_device_close(dev);
    fail_msg("opening %s succeeded", xclbin);
  }
  assert_int_equal(rc, status);
  for (; *words; words++)
    if (!strstr(err.msg, *words)) fail_msg("the message lacks \"%s\": %s", *words, err.msg);
}

/* ---- the host flow under noop ---- */

static void test_xrt_noop_host_flow(void **state) {
  (void)state;
  const char *x = write_xclbin("flow.xclbin", DEFAULT_CFG, NULL);
  vta_device *dev;
  vta_error err;
  if (open_xrt(DEFAULT_CFG, x, NULL, &dev, &err) != VTA_OK) fail_msg("%s", err.msg);
  assert_string_equal(vta_device_backend(dev)->name, "xrt");
  /* No host mapping: the runtime copies, so the backend knows what to sync. */
  assert_null(vta_device_backend(dev)->host_ptr);
  char *text = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&text, &n);
  vta_device_describe(dev, f);
  fclose(f);
  assert_non_null(strstr(text, "kernel:   vta (compute unit vta:vta_1"));
  assert_non_null(strstr(text, "bank0 (16384 MiB at 0x0) <- m_axi_gmem"));
  assert_non_null(strstr(text, "metadata only"));
  free(text);
  uint64_t a, b;
  assert_int_equal(vta_device_alloc(dev, 1000, &a, &err), VTA_OK);
  assert_int_equal(vta_device_alloc(dev, 8192, &b, &err), VTA_OK);
  assert_true(a != 0 && b != 0 && a != b);
  assert_true(a + 1000 <= b || b + 8192 <= a);
  uint8_t in[256], out[256];
  for (int i = 0; i < 256; i++) in[i] = (uint8_t)(i * 7 + 3);
  assert_int_equal(vta_device_copy_to(dev, b + 100, in, 256, &err), VTA_OK);
  memset(out, 0, sizeof out);
  assert_int_equal(vta_device_copy_from(dev, out, b + 100, 256, &err), VTA_OK);
  assert_memory_equal(in, out, 256);
  /* A copy across the end of a buffer object is refused, naming the range. */
  assert_int_equal(vta_device_copy_to(dev, a + 900, in, 200, &err), VTA_ERR_BOUNDS);
  assert_non_null(strstr(err.msg, "not inside one buffer object"));
  /* A run: arguments set, kernel started, waited for (noop completes it at once). */
  fsim_prog p;
  vta_config cfg;
  load_cfg(&cfg, DEFAULT_CFG);
  fp_init(&p, &cfg);
  fp_finish(&p, 0);
  uint8_t word[VTA_INSN_BYTES];
  vta_insn_word_store(&p.words[0], word);
  assert_int_equal(vta_device_copy_to(dev, a, word, sizeof word, &err), VTA_OK);
  vta_stats st;
  memset(&st, 0, sizeof st);
  if (vta_device_run(dev, a, 1, 0, &st, &err) != VTA_OK) fail_msg("%s", err.msg);
  /* From an offset inside a buffer object (a sub-buffer is the argument). */
  assert_int_equal(vta_device_copy_to(dev, b + 4096, word, sizeof word, &err), VTA_OK);
  if (vta_device_run(dev, b + 4096, 1, 0, &st, &err) != VTA_OK) fail_msg("%s", err.msg);
  /* A stream outside every buffer object. */
  assert_int_equal(vta_device_run(dev, b + 8192 + 4096 * 16, 1, 0, &st, &err), VTA_ERR_BOUNDS);
  fp_free(&p);
  vta_device_free(dev, a);
  vta_device_free(dev, b);
  vta_device_close(dev);
}

/* ---- emulate=rtl: bit-identical with fsim ---- */

enum { FS = 0, XR = 1 };

typedef struct xpair {
  vta_config cfg;
  vta_device *dev[2];
  uint64_t at[64], size[64];
  int nalloc;
  vta_stats st[2];
  uint64_t seed;
} xpair;

static void xpair_open(xpair *p, const char *config, const char *xclbin) {
  memset(p, 0, sizeof *p);
  load_cfg(&p->cfg, config);
  vta_error err;
  if (vta_device_open("fsim", &p->cfg, NULL, &p->dev[FS], &err) != VTA_OK) fail_msg("%s", err.msg);
  if (open_xrt(config, xclbin, "emulate=rtl", &p->dev[XR], &err) != VTA_OK) fail_msg("%s", err.msg);
  p->seed = 777;
}

static void xpair_close(xpair *p) {
  for (int k = 0; k < 2; k++) vta_device_close(p->dev[k]);
}

/* The same allocation on both (both hand out addresses from sim/mem's deterministic allocator
 * under noop, so they agree; the assertion says so). */
static uint64_t xalloc(xpair *p, uint64_t n) {
  uint64_t a[2];
  for (int k = 0; k < 2; k++) assert_int_equal(vta_device_alloc(p->dev[k], n, &a[k], NULL), VTA_OK);
  assert_true(a[0] == a[1]);
  assert_true(p->nalloc < 64);
  p->at[p->nalloc] = a[0];
  p->size[p->nalloc++] = n;
  return a[0];
}

static void xset(xpair *p, uint64_t phys, const void *src, size_t n) {
  uint8_t *buf = malloc(n);
  assert_non_null(buf);
  for (size_t i = 0; i < n; i++)
    buf[i] = src ? ((const uint8_t *)src)[i] : (uint8_t)fp_rand(&p->seed);
  for (int k = 0; k < 2; k++)
    assert_int_equal(vta_device_copy_to(p->dev[k], phys, buf, n, NULL), VTA_OK);
  free(buf);
}

static int xrun(xpair *p, fsim_prog *prog, uint64_t timeout, vta_error *err) {
  fsim_prog s;
  fp_init(&s, &p->cfg);
  assert_int_equal(fp_serialize_words(&p->cfg, prog->words, prog->n, &s), 0);
  uint64_t bytes = s.n * VTA_INSN_BYTES;
  uint8_t *words = calloc(1, bytes);
  assert_non_null(words);
  for (size_t i = 0; i < s.n; i++) vta_insn_word_store(&s.words[i], words + i * VTA_INSN_BYTES);
  uint64_t insn = xalloc(p, bytes);
  xset(p, insn, words, bytes);
  int rc = VTA_OK;
  for (int k = 0; k < 2 && rc == VTA_OK; k++) {
    memset(&p->st[k], 0, sizeof p->st[k]);
    rc = vta_device_run(p->dev[k], insn, fp_count(&s), timeout, &p->st[k], err);
  }
  free(words);
  fp_free(&s);
  return rc;
}

static void assert_same_memory(xpair *p) {
  for (int i = 0; i < p->nalloc; i++) {
    uint8_t *m[2];
    for (int k = 0; k < 2; k++) {
      m[k] = malloc(p->size[i]);
      assert_non_null(m[k]);
      assert_int_equal(vta_device_copy_from(p->dev[k], m[k], p->at[i], p->size[i], NULL), VTA_OK);
    }
    for (uint64_t j = 0; j < p->size[i]; j++)
      if (m[0][j] != m[1][j])
        fail_msg("byte %llu of the buffer at 0x%llx differs: fsim 0x%02x, xrt 0x%02x",
                 (unsigned long long)j, (unsigned long long)p->at[i], m[0][j], m[1][j]);
    free(m[0]);
    free(m[1]);
  }
}

static uint32_t el(const xpair *p, vta_mem_type t, uint64_t phys) {
  return (uint32_t)(phys / p->cfg.elem_bytes[t]);
}

/* A blocked matrix product with a requantising epilogue (GEMM, ALU SHR and MAX), stored. */
static void gemm_through_xrt(const char *config, const char *xclbin, uint32_t mo, uint32_t mi,
                             uint32_t kb, uint32_t nb) {
  xpair p;
  xpair_open(&p, config, xclbin);
  const vta_config *c = &p.cfg;
  const uint32_t M = mo * mi;
  uint64_t dx = xalloc(&p, (uint64_t)M * kb * c->elem_bytes[VTA_MEM_INP]);
  uint64_t dw = xalloc(&p, (uint64_t)nb * kb * c->elem_bytes[VTA_MEM_WGT]);
  uint64_t dout = xalloc(&p, (uint64_t)M * nb * c->elem_bytes[VTA_MEM_OUT]);
  uint64_t du = xalloc(&p, 4ull * (nb * kb + 1));
  xset(&p, dx, NULL, (size_t)M * kb * c->elem_bytes[VTA_MEM_INP]);
  xset(&p, dw, NULL, (size_t)nb * kb * c->elem_bytes[VTA_MEM_WGT]);
  vta_uop *u = calloc((size_t)nb * kb + 1, sizeof *u);
  uint8_t *uw = calloc((size_t)nb * kb + 1, 4);
  for (uint32_t n = 0; n < nb; n++)
    for (uint32_t k = 0; k < kb; k++) u[n * kb + k] = (vta_uop){n, k, n * kb + k};
  u[nb * kb] = (vta_uop){0, 0, 0}; /* the ALU's: dst = src = the element */
  fp_uops(c, uw, u, (size_t)nb * kb + 1);
  xset(&p, du, uw, 4ull * (nb * kb + 1));
  free(u);
  free(uw);
  fsim_prog prog;
  fp_init(&prog, c);
  fp_load(&prog, VTA_MEM_UOP, 0, el(&p, VTA_MEM_UOP, du), 1, nb * kb + 1, nb * kb + 1, 0, 0, 0, 0,
          0);
  fp_load(&prog, VTA_MEM_INP, 0, el(&p, VTA_MEM_INP, dx), 1, M * kb, M * kb, 0, 0, 0, 0, 0);
  fp_load(&prog, VTA_MEM_WGT, 0, el(&p, VTA_MEM_WGT, dw), 1, nb * kb, nb * kb, 0, 0, 0, 0, 0);
  const uint32_t fo[3] = {mi * nb, mi * kb, 0}, fi[3] = {nb, kb, 0};
  fp_gemm(&prog, 1, 0, nb * kb, mo, mi, fo, fi, 0);
  fp_gemm(&prog, 0, 0, nb * kb, mo, mi, fo, fi, 0);
  const uint32_t ao[2] = {1, 1}, ai[2] = {0, 0};
  fp_alu(&prog, VTA_ALU_SHR, 1, 3, nb * kb, nb * kb + 1, M * nb, 1, ao, ai, 0);
  fp_alu(&prog, VTA_ALU_MAX, 1, -20, nb * kb, nb * kb + 1, M * nb, 1, ao, ai, 0);
  fp_store(&prog, 0, el(&p, VTA_MEM_OUT, dout), 1, M * nb, M * nb, 0);
  fp_finish(&prog, 0);
  vta_error err;
  if (xrun(&p, &prog, 0, &err) != VTA_OK) fail_msg("%s", err.msg);
  fp_free(&prog);
  assert_same_memory(&p);
  /* The counters come from the RTL: the same work as fsim counted. */
  assert_int_equal(p.st[FS].gemm_uops, p.st[XR].gemm_uops);
  assert_int_equal(p.st[FS].alu_uops, p.st[XR].alu_uops);
  assert_int_equal(p.st[FS].macs, p.st[XR].macs);
  assert_true(p.st[XR].cycles > 0);
  /* The output is not trivially zero. */
  int8_t *out = malloc(p.size[2]);
  assert_int_equal(vta_device_copy_from(p.dev[XR], out, dout, p.size[2], NULL), VTA_OK);
  int nonzero = 0;
  for (uint64_t i = 0; i < p.size[2]; i++) nonzero += out[i] != 0;
  assert_true(nonzero > (int)(p.size[2] / 4));
  free(out);
  xpair_close(&p);
}

static void test_xrt_emulated_gemm_bit_identical_with_fsim(void **state) {
  (void)state;
  gemm_through_xrt(DEFAULT_CFG, write_xclbin("gemm.xclbin", DEFAULT_CFG, NULL), 3, 4, 2, 3);
  gemm_through_xrt(WIDE_CFG, write_xclbin("gemm_wide.xclbin", WIDE_CFG, NULL), 2, 2, 3, 2);
}

/* A program that waits for a token nobody pushes: fsim calls it a deadlock; through XRT the
 * kernel never completes and the run ends with the interface's timeout. */
static void test_xrt_run_timeout(void **state) {
  (void)state;
  const char *x = write_xclbin("timeout.xclbin", DEFAULT_CFG, NULL);
  vta_device *dev;
  vta_error err;
  if (open_xrt(DEFAULT_CFG, x, "emulate=rtl", &dev, &err) != VTA_OK) fail_msg("%s", err.msg);
  vta_config cfg;
  load_cfg(&cfg, DEFAULT_CFG);
  fsim_prog p;
  fp_init(&p, &cfg);
  fp_gemm(&p, 1, 0, 1, 1, 1, (const uint32_t[3]){0, 0, 0}, (const uint32_t[3]){0, 0, 0},
          FP_POP_PREV);
  fp_finish(&p, 0);
  uint64_t insn;
  uint8_t words[2 * VTA_INSN_BYTES];
  for (size_t i = 0; i < p.n; i++) vta_insn_word_store(&p.words[i], words + i * VTA_INSN_BYTES);
  assert_int_equal(vta_device_alloc(dev, sizeof words, &insn, &err), VTA_OK);
  assert_int_equal(vta_device_copy_to(dev, insn, words, sizeof words, &err), VTA_OK);
  int rc = vta_device_run(dev, insn, fp_count(&p), 20000, NULL, &err);
  assert_int_equal(rc, VTA_ERR_TIMEOUT);
  assert_non_null(strstr(err.msg, "xrt backend"));
  assert_non_null(strstr(err.msg, "did not finish within 20000 cycles"));
  fp_free(&p);
  vta_device_close(dev);
}

/* ---- refusals ---- */

static void foreign_kernel(vta_xclbin_spec *s) {
  snprintf(s->kernel_name, sizeof s->kernel_name, "other");
}
static void null_uuid(vta_xclbin_spec *s) { s->null_uuid = 1; }
static void no_config(vta_xclbin_spec *s) { s->no_config = 1; }

static void test_xrt_refuses_bad_xclbins(void **state) {
  (void)state;
  /* Missing. */
  expect_open_error(
      DEFAULT_CFG, xclbin_path("missing.xclbin"), NULL, VTA_ERR_IO,
      (const char *const[]){"xrt backend", "cannot open the xclbin", "missing.xclbin", NULL});
  /* No xclbin at all. */
  {
    vta_config cfg;
    load_cfg(&cfg, DEFAULT_CFG);
    vta_device *dev;
    vta_error err;
    assert_int_equal(vta_device_open("xrt", &cfg, NULL, &dev, &err), VTA_ERR_INVALID);
    assert_non_null(strstr(err.msg, "no xclbin: give one with `--xclbin FILE`"));
  }
  /* Corrupt: not an xclbin, truncated, a section past the end. */
  const char *good = write_xclbin("good.xclbin", DEFAULT_CFG, NULL);
  size_t n = 0;
  FILE *f = fopen(good, "rb");
  static uint8_t buf[1 << 16];
  n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  const char *junk = xclbin_path("junk.xclbin");
  f = fopen(junk, "wb");
  for (int i = 0; i < 600; i++) fputc("not an xclbin "[i % 14], f);
  fclose(f);
  expect_open_error(DEFAULT_CFG, junk, NULL, VTA_ERR_INVALID,
                    (const char *const[]){"junk.xclbin is not a usable xclbin", "magic", NULL});
  const char *cut = xclbin_path("cut.xclbin");
  f = fopen(cut, "wb");
  fwrite(buf, 1, n - 100, f);
  fclose(f);
  expect_open_error(DEFAULT_CFG, cut, NULL, VTA_ERR_INVALID,
                    (const char *const[]){"cut.xclbin", "truncated", NULL});
  const char *tiny = xclbin_path("tiny.xclbin");
  f = fopen(tiny, "wb");
  fwrite(buf, 1, 100, f);
  fclose(f);
  expect_open_error(DEFAULT_CFG, tiny, NULL, VTA_ERR_INVALID,
                    (const char *const[]){"tiny.xclbin", "shorter than the", NULL});
  /* A section header pointing past the end (the first section's size made huge). */
  uint8_t *bad = malloc(n);
  memcpy(bad, buf, n);
  uint64_t huge = 1ull << 40;
  /* m_sections[0].m_sectionSize: the first section header is at 456 (struct axlf), its size
   * field at 32 (kind 4, name 16, padding 4, offset 8). */
  memcpy(bad + 456 + 32, &huge, 8);
  const char *sec = xclbin_path("sec.xclbin");
  f = fopen(sec, "wb");
  fwrite(bad, 1, n, f);
  fclose(f);
  free(bad);
  expect_open_error(DEFAULT_CFG, sec, NULL, VTA_ERR_INVALID,
                    (const char *const[]){"sec.xclbin", "runs past the end of the file", NULL});
  /* Foreign: no vta kernel. */
  expect_open_error(DEFAULT_CFG, write_xclbin("foreign.xclbin", DEFAULT_CFG, foreign_kernel), NULL,
                    VTA_ERR_UNSUPPORTED,
                    (const char *const[]){"foreign.xclbin", "has no `vta` kernel", NULL});
  /* A null UUID. */
  expect_open_error(DEFAULT_CFG, write_xclbin("nulluuid.xclbin", DEFAULT_CFG, null_uuid), NULL,
                    VTA_ERR_INVALID,
                    (const char *const[]){"nulluuid.xclbin has a null UUID", NULL});
  /* Built for another configuration, or naming none. */
  char key[160];
  vta_config wide;
  load_cfg(&wide, WIDE_CFG);
  vta_svgen_model_key(&wide, key, sizeof key);
  expect_open_error(DEFAULT_CFG, write_xclbin("wide.xclbin", WIDE_CFG, NULL), NULL,
                    VTA_ERR_UNSUPPORTED,
                    (const char *const[]){"wide.xclbin was built for configuration", key,
                                          "rebuild the xclbin", NULL});
  expect_open_error(DEFAULT_CFG, write_xclbin("noconfig.xclbin", DEFAULT_CFG, no_config), NULL,
                    VTA_ERR_UNSUPPORTED, (const char *const[]){"names no VTA configuration", NULL});
  /* Bad options. */
  expect_open_error(DEFAULT_CFG, good, "device=x", VTA_ERR_INVALID,
                    (const char *const[]){"device=x is not a device index", NULL});
  expect_open_error(DEFAULT_CFG, good, "emulate=fsim", VTA_ERR_INVALID,
                    (const char *const[]){"the only emulation is 'rtl'", NULL});
  expect_open_error(DEFAULT_CFG, good, "colour=red", VTA_ERR_INVALID,
                    (const char *const[]){"unknown xrt option 'colour'", NULL});
}

/* Runs an open in a fresh process (this test executable again, so that XRT starts anew) with a
 * changed environment; returns its message. */
static void child_open(const char *xclbin, const char *xilinx_xrt, const char *mode, char *msg,
                       size_t n) {
  int fd[2];
  assert_int_equal(pipe(fd), 0);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(fd[0]);
    if (xilinx_xrt)
      setenv("XILINX_XRT", xilinx_xrt, 1);
    else
      unsetenv("XILINX_XRT");
    if (mode)
      setenv("XCL_EMULATION_MODE", mode, 1);
    else
      unsetenv("XCL_EMULATION_MODE");
    if (dup2(fd[1], 1) < 0) _exit(127);
    execl("/proc/self/exe", "test_xrt", "--child-open", xclbin, (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  size_t got = 0;
  ssize_t r;
  while (got + 1 < n && (r = read(fd[0], msg + got, n - 1 - got)) > 0) got += (size_t)r;
  msg[got] = '\0';
  close(fd[0]);
  int st;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void test_xrt_refuses_without_runtime_or_device(void **state) {
  (void)state;
  const char *x = write_xclbin("env.xclbin", DEFAULT_CFG, NULL);
  char msg[1024];
  child_open(x, NULL, "noop", msg, sizeof msg);
  if (!strstr(msg, "XILINX_XRT is not set")) fail_msg("%s", msg);
  child_open(x, "/nonexistent/xrt", "noop", msg, sizeof msg);
  if (!strstr(msg,
              "the XRT runtime is absent: /nonexistent/xrt/lib/libxrt_noop.so.2 does not exist"))
    fail_msg("%s", msg);
  child_open(x, g_xrt, "hw_emu_typo", msg, sizeof msg);
  if (!strstr(msg, "not an XRT emulation mode")) fail_msg("%s", msg);
  /* No card in this machine: the PCIe device layer finds no device 0. */
  child_open(x, g_xrt, NULL, msg, sizeof msg);
  if (!strstr(msg, "XRT finds no device 0") || !strstr(msg, "xbutil examine")) fail_msg("%s", msg);
}

/* The published driver.h API on top: examples/gemm_published.c with VTA_BACKEND=xrt, the
 * xclbin and the emulation from the environment, in a fresh process (the published API opens
 * its one device at the first call); it checks its GEMM against a C reference. */
static void test_xrt_published_api_gemm(void **state) {
  (void)state;
  const char *x = write_xclbin("published.xclbin", DEFAULT_CFG, NULL);
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    setenv("VTA_BACKEND", "xrt", 1);
    setenv("VTA_XRT_XCLBIN", x, 1);
    setenv("VTA_XRT_EMULATE", "rtl", 1);
    unsetenv("VTA_CONFIG");
    execl("/proc/self/exe", "test_xrt", "--published", (char *)NULL);
    _exit(127);
  }
  int st;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_xrt_table_lists_it(void **state) {
  (void)state;
  assert_non_null(vta_backend_find("xrt"));
  int found = 0;
  for (const vta_backend *const *b = vta_backends(); *b; b++)
    found += strcmp((*b)->name, "xrt") == 0;
  assert_int_equal(found, 1);
}

#else /* XRT not built */

static void test_xrt_absent_says_how_to_get_it(void **state) {
  (void)state;
  assert_null(vta_backend_find("xrt"));
  vta_config cfg;
  vta_config_default(&cfg);
  vta_device *dev;
  vta_error err;
  assert_int_equal(vta_device_open("xrt", &cfg, NULL, &dev, &err), VTA_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.msg, "libxrt-dev"));
}

#endif

int main(int argc, char **argv) {
#ifdef VTA_TEST_HAVE_XRT
  if (argc == 3 && strcmp(argv[1], "--child-open") == 0) {
    vta_device *dev;
    vta_error err = {0};
    if (open_xrt(DEFAULT_CFG, argv[2], NULL, &dev, &err) == VTA_OK) {
      snprintf(err.msg, sizeof err.msg, "opened");
      vta_device_close(dev);
    }
    printf("%s", err.msg);
    return 0;
  }
  if (argc == 2 && strcmp(argv[1], "--published") == 0) return gemm_published_main();
#endif
  (void)argc;
  (void)argv;
  const struct CMUnitTest tests[] = {
#ifdef VTA_TEST_HAVE_XRT
      cmocka_unit_test(test_xrt_table_lists_it),
      cmocka_unit_test(test_xrt_noop_host_flow),
      cmocka_unit_test(test_xrt_emulated_gemm_bit_identical_with_fsim),
      cmocka_unit_test(test_xrt_run_timeout),
      cmocka_unit_test(test_xrt_published_api_gemm),
      cmocka_unit_test(test_xrt_refuses_bad_xclbins),
      cmocka_unit_test(test_xrt_refuses_without_runtime_or_device),
#else
      cmocka_unit_test(test_xrt_absent_says_how_to_get_it),
#endif
  };
  return cmocka_run_group_tests(tests, setup_env, teardown_env);
}
