/* test_vta_chain.c - accelerator programs chained into one device run
 * (vta_program_run_chain): a small residual block (3x3 conv, a 1x1 shortcut conv that does not
 * read the previous layer's output, a 3x3 conv adding the shortcut, then max pooling) lowered
 * by the compiler, run as one stream on fsim and on rtl, compared bit for bit with the C
 * reference and with the same programs run one device run each. Also: the chain takes one
 * device run, waits for earlier stores exactly where a layer reads them (two barriers here),
 * and on rtl costs fewer cycles than the separate runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "compiler/accel/vta_lower.h"
#include "compiler/accel/vta_pool.h"
#include "vta/config.h"
#include "vta/device.h"
#include "vta/jit.h"
#include "vta/program.h"

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return (uint32_t)(g_rng >> 16);
}
static int8_t *rand8(size_t n) {
  int8_t *p = malloc(n ? n : 1);
  assert_non_null(p);
  for (size_t i = 0; i < n; i++) p[i] = (int8_t)rnd();
  return p;
}

static vta_conv_desc conv(uint32_t c, uint32_t hw, uint32_t k, uint32_t kk, uint32_t s, uint32_t p,
                          int relu) {
  vta_conv_desc d = {.n = 1, .c = c, .h = hw, .w = hw, .k = k, .kh = kk, .kw = kk,
                     .stride_h = s, .stride_w = s, .pad_top = p, .pad_left = p, .pad_bottom = p,
                     .pad_right = p, .has_bias = 1, .relu = relu, .clip_lo = -128, .clip_hi = 127};
  uint32_t taps = c * kk * kk, sh = 6;
  while ((1u << (sh - 6)) * (1u << (sh - 6)) < taps) sh++;
  d.shift = sh + 1;
  return d;
}

/* The block: A = conv3x3(x), B = conv1x1(x), C = conv3x3(A) + B, D = maxpool3x3/2(C). */
typedef struct block {
  vta_conv_desc d[3];
  vta_pool_desc pool;
  int8_t *x, *w[3];
  int32_t *bias[3];
  int8_t *ref[4]; /* NCHW: A, B, C, D */
  size_t nout[4];
  vta_lowered low[4];
} block;

static void block_make(block *b, const vta_config *cfg, uint32_t c, uint32_t hw) {
  memset(b, 0, sizeof *b);
  b->d[0] = conv(c, hw, c, 3, 1, 1, 1);
  b->d[1] = conv(c, hw, c, 1, 1, 0, 0);
  b->d[2] = conv(c, hw, c, 3, 1, 1, 1);
  b->d[2].has_residual = 1;
  b->d[2].residual_mul = b->d[2].shift >= 8 ? 127 : 1 << (b->d[2].shift - 2);
  b->pool = (vta_pool_desc){.n = 1, .c = c, .h = hw, .w = hw, .kh = 3, .kw = 3, .stride_h = 2,
                            .stride_w = 2, .pad_top = 1, .pad_left = 1, .pad_bottom = 1,
                            .pad_right = 1};
  b->x = rand8((size_t)c * hw * hw);
  for (int i = 0; i < 3; i++) {
    b->w[i] = rand8((size_t)c * c * b->d[i].kh * b->d[i].kw);
    b->bias[i] = malloc(c * sizeof *b->bias[i]);
    assert_non_null(b->bias[i]);
    for (uint32_t k = 0; k < c; k++) b->bias[i][k] = (int32_t)(rnd() % 2001) - 1000;
    b->nout[i] = (size_t)c * hw * hw;
    b->ref[i] = malloc(b->nout[i]);
    assert_non_null(b->ref[i]);
  }
  b->nout[3] = (size_t)c * vta_pool_out_h(&b->pool) * vta_pool_out_w(&b->pool);
  b->ref[3] = malloc(b->nout[3]);
  assert_non_null(b->ref[3]);
  vta_ref_conv2d(&b->d[0], b->x, b->w[0], b->bias[0], NULL, b->ref[0]);
  vta_ref_conv2d(&b->d[1], b->x, b->w[1], b->bias[1], NULL, b->ref[1]);
  vta_ref_conv2d(&b->d[2], b->ref[0], b->w[2], b->bias[2], b->ref[1], b->ref[2]);
  vta_ref_pool_max(&b->pool, b->ref[2], b->ref[3]);
  vta_error err;
  for (int i = 0; i < 3; i++) {
    int rc = vta_lower_conv2d(cfg, &b->d[i], b->w[i], b->bias[i], NULL, &b->low[i], &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, VTA_OK);
  }
  assert_int_equal(vta_lower_maxpool(cfg, &b->pool, &b->low[3], &err), VTA_OK);
}

static void block_free(block *b) {
  free(b->x);
  for (int i = 0; i < 3; i++) free(b->w[i]), free(b->bias[i]);
  for (int i = 0; i < 4; i++) free(b->ref[i]), vta_lowered_free(&b->low[i]);
}

typedef struct result {
  int8_t *out[4]; /* NCHW */
  vta_stats st;
  uint64_t syncs;
  vta_prog_chain_info ci;
} result;

static uint64_t upload(vta_device *dev, const void *data, uint64_t n) {
  vta_error err;
  uint64_t phys;
  assert_int_equal(vta_device_alloc(dev, n ? n : 64, &phys, &err), VTA_OK);
  if (data) assert_int_equal(vta_device_copy_to(dev, phys, data, n, &err), VTA_OK);
  return phys;
}

/* Runs the block on a backend, chained or one run per program; 0 if the backend is absent. */
static int run_block(block *b, const char *backend, int chained, result *r) {
  memset(r, 0, sizeof *r);
  vta_config cfg;
  vta_config_default(&cfg);
  vta_device *dev;
  vta_jit *jit;
  vta_error err;
  int rc = vta_device_open(backend, &cfg, NULL, &dev, &err);
  if (rc == VTA_ERR_UNSUPPORTED || (rc && !vta_backend_find(backend))) return 0;
  if (rc) fprintf(stderr, "%s\n", err.msg);
  assert_int_equal(rc, VTA_OK);
  assert_int_equal(vta_jit_create(dev, NULL, &jit, &err), VTA_OK);
  uint32_t c = b->d[0].c, hw = b->d[0].h;
  /* Activations: x, A, B, C, D. Outputs start as garbage a missed store would leave. */
  int8_t *xp = calloc(1, b->low[0].input_bytes);
  assert_non_null(xp);
  vta_lowered_pack_input(&cfg, &b->d[0], &b->low[0], b->x, xp);
  uint64_t act[5];
  act[0] = upload(dev, xp, b->low[0].input_bytes);
  for (int i = 0; i < 4; i++) {
    uint64_t n = b->low[i].output_bytes;
    int8_t *g = malloc(n);
    assert_non_null(g);
    memset(g, 0x5a, n);
    act[i + 1] = upload(dev, g, n);
    free(g);
  }
  static const int in_of[4] = {0, 0, 1, 3}, in2_of[4] = {-1, -1, 2, -1};
  uint64_t phys[4][VTA_PROG_BUF_COUNT];
  vta_prog_chain_item items[4];
  for (int i = 0; i < 4; i++) {
    memset(phys[i], 0, sizeof phys[i]);
    phys[i][VTA_PROG_BUF_INPUT] = act[in_of[i]];
    if (in2_of[i] >= 0) phys[i][VTA_PROG_BUF_INPUT2] = act[in2_of[i]];
    phys[i][VTA_PROG_BUF_OUTPUT] = act[i + 1];
    phys[i][VTA_PROG_BUF_WEIGHT] = upload(dev, b->low[i].weight, b->low[i].weight_bytes);
    if (b->low[i].bias_bytes) phys[i][VTA_PROG_BUF_BIAS] = upload(dev, b->low[i].bias, b->low[i].bias_bytes);
    items[i] = (vta_prog_chain_item){b->low[i].prog, phys[i]};
  }
  uint64_t s0 = vta_jit_get_counters(jit)->syncs;
  if (chained) {
    rc = vta_program_run_chain(jit, items, 4, &r->st, &r->ci, &err);
  } else {
    rc = VTA_OK;
    for (int i = 0; i < 4 && rc == VTA_OK; i++) rc = vta_program_run(jit, items[i].prog, phys[i], &r->st, &err);
  }
  if (rc) fprintf(stderr, "%s\n", err.msg);
  assert_int_equal(rc, VTA_OK);
  r->syncs = vta_jit_get_counters(jit)->syncs - s0;
  for (int i = 0; i < 4; i++) {
    uint64_t n = b->low[i].output_bytes;
    int8_t *packed = malloc(n);
    r->out[i] = malloc(b->nout[i]);
    assert_non_null(packed);
    assert_non_null(r->out[i]);
    assert_int_equal(vta_device_copy_from(dev, packed, act[i + 1], n, &err), VTA_OK);
    uint32_t ho = i < 3 ? hw : vta_pool_out_h(&b->pool), wo = i < 3 ? hw : vta_pool_out_w(&b->pool);
    vta_layout_unpack_act(&cfg, packed, 1, c, ho, wo, cfg.block_out, r->out[i]);
    free(packed);
  }
  for (int i = 0; i < 4; i++)
    for (int k = VTA_PROG_BUF_WEIGHT; k <= VTA_PROG_BUF_BIAS; k++)
      if (phys[i][k]) vta_device_free(dev, phys[i][k]);
  for (int i = 0; i < 5; i++) vta_device_free(dev, act[i]);
  free(xp);
  vta_jit_destroy(jit);
  vta_device_close(dev);
  return 1;
}

static void result_free(result *r) {
  for (int i = 0; i < 4; i++) free(r->out[i]);
}

static void check_backend(const char *backend, int need) {
  vta_config cfg;
  vta_config_default(&cfg);
  block b;
  block_make(&b, &cfg, 32, 14);
  result ch, sep;
  if (!run_block(&b, backend, 1, &ch)) {
    assert_false(need);
    fprintf(stderr, "%s backend not built: skipped\n", backend);
    block_free(&b);
    skip();
  }
  assert_true(run_block(&b, backend, 0, &sep));
  for (int i = 0; i < 4; i++) {
    assert_memory_equal(ch.out[i], b.ref[i], b.nout[i]);
    assert_memory_equal(sep.out[i], b.ref[i], b.nout[i]);
  }
  assert_int_equal(ch.syncs, 1);
  assert_int_equal(sep.syncs, 4);
  assert_int_equal(ch.ci.programs, 4);
  /* B reads x (not stored in the chain): no wait; C reads A's output and D reads C's. */
  assert_int_equal(ch.ci.barriers, 2);
  /* B, a 1x1 conv, places its tiles where A's last GEMMs do not read (from the top of INP and
   * WGT), so its first loads go before A's last GEMM ends; C and D wait at their barriers. */
  assert_int_equal(ch.ci.early_loads, 1);
  assert_int_equal(ch.st.gemm_uops, sep.st.gemm_uops);
  assert_int_equal(ch.st.alu_uops, sep.st.alu_uops);
  if (sep.st.cycles) {
    fprintf(stderr, "%s: chained %llu cycles, separate runs %llu\n", backend,
            (unsigned long long)ch.st.cycles, (unsigned long long)sep.st.cycles);
    assert_true(ch.st.cycles < sep.st.cycles);
  }
  result_free(&ch);
  result_free(&sep);
  block_free(&b);
}

static void test_chain_fsim_matches_reference_in_one_run(void **state) {
  (void)state;
  check_backend("fsim", 1);
}

static void test_chain_rtl_matches_reference_in_fewer_cycles(void **state) {
  (void)state;
  check_backend("rtl", 1); /* the build makes its model for this test (sim/rtl/build.mk) */
}

/* An empty chain runs nothing; a chain whose configuration differs from the device's is refused
 * before anything runs, naming the program. */
static void test_chain_refuses_other_config(void **state) {
  (void)state;
  vta_config cfg, other;
  vta_config_default(&cfg);
  vta_error err;
  assert_int_equal(vta_config_load(&other, "configs/block8.json", &err), VTA_OK);
  vta_device *dev;
  vta_jit *jit;
  assert_int_equal(vta_device_open("fsim", &cfg, NULL, &dev, &err), VTA_OK);
  assert_int_equal(vta_jit_create(dev, NULL, &jit, &err), VTA_OK);
  assert_int_equal(vta_program_run_chain(jit, NULL, 0, NULL, NULL, &err), VTA_OK);
  assert_int_equal(vta_jit_get_counters(jit)->syncs, 0);
  vta_lowered low;
  vta_conv_desc d = conv(16, 8, 16, 3, 1, 1, 1);
  d.has_bias = 0;
  int8_t *w = rand8(16 * 16 * 9);
  assert_int_equal(vta_lower_conv2d(&other, &d, w, NULL, NULL, &low, &err), VTA_OK);
  vta_prog_chain_item it[2] = {{low.prog, NULL}, {low.prog, NULL}};
  assert_int_not_equal(vta_program_run_chain(jit, it, 2, NULL, NULL, &err), VTA_OK);
  assert_non_null(strstr(err.msg, "chained program 0"));
  assert_int_equal(vta_jit_get_counters(jit)->syncs, 0);
  vta_lowered_free(&low);
  free(w);
  vta_jit_destroy(jit);
  vta_device_close(dev);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_chain_fsim_matches_reference_in_one_run),
      cmocka_unit_test(test_chain_rtl_matches_reference_in_fewer_cycles),
      cmocka_unit_test(test_chain_refuses_other_config),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
