/* test_jit.c - the native JIT API end to end on the functional simulator: a tiled GEMM with a
 * ReLU / shift / clip epilogue and one or two virtual threads is bit-exact against plain C on
 * the default, batch4 and block32 configurations; it stays exact when tiny stream or
 * micro-op limits force automatic synchronisations in the middle of its token traffic, and
 * under FORCE_SERIAL; bad operations are refused with a reason; a device failure discards the
 * stream and the next program runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "vta/config.h"
#include "vta/device.h"
#include "vta/isa.h"
#include "vta/jit.h"

#define L VTA_JIT_STAGE_LOAD
#define C VTA_JIT_STAGE_COMPUTE
#define S VTA_JIT_STAGE_STORE

typedef struct problem {
  vta_config cfg;
  uint32_t mb, nb, kb;    /* matrix sizes in elements */
  uint32_t mt, nt, kt;    /* tile sizes in elements */
  int vt;                 /* virtual threads (1 or 2) */
  vta_jit_options opt;
} problem;

static uint32_t g_seed = 7;
static uint32_t rnd(void) {
  g_seed ^= g_seed << 13;
  g_seed ^= g_seed >> 17;
  g_seed ^= g_seed << 5;
  return g_seed;
}

/* Kernel builders; the address of each function names its call site. */
static vta_jit_kernel *gemm_kernel(vta_jit *jit, const problem *p, uint32_t a, uint32_t i,
                                   uint32_t w, int reset) {
  uint32_t sig[4] = {a, i, w, (uint32_t)reset};
  vta_jit_kernel *k = vta_jit_kernel_find(jit, &gemm_kernel, sig, sizeof sig);
  if (k) return k;
  vta_error err;
  assert_int_equal(vta_jit_kernel_begin(jit, &gemm_kernel, sig, sizeof sig, &k, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_loop_begin(k, p->mt, p->nt, reset ? 0 : p->kt, 0, &err), 0);
  assert_int_equal(vta_jit_kernel_loop_begin(k, p->nt, 1, 0, reset ? 0 : p->kt, &err), 0);
  for (uint32_t q = 0; q < (reset ? 1 : p->kt); q++) {
    vta_jit_uop u = {.mode = VTA_JIT_GEMM, .reset = (uint32_t)reset, .dst = a,
                     .src = reset ? 0 : i + q, .wgt = reset ? 0 : w + q};
    assert_int_equal(vta_jit_kernel_uop(k, &u, &err), VTA_OK);
  }
  assert_int_equal(vta_jit_kernel_loop_end(k, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_loop_end(k, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_end(k, &err), VTA_OK);
  return k;
}

static vta_jit_kernel *alu_kernel(vta_jit *jit, const problem *p, uint32_t a, vta_alu_op op,
                                  int32_t imm) {
  int32_t sig[3] = {(int32_t)a, (int32_t)op, imm};
  vta_jit_kernel *k = vta_jit_kernel_find(jit, &alu_kernel, sig, sizeof sig);
  if (k) return k;
  vta_error err;
  assert_int_equal(vta_jit_kernel_begin(jit, &alu_kernel, sig, sizeof sig, &k, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_loop_begin(k, p->mt, p->nt, p->nt, 0, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_loop_begin(k, p->nt, 1, 1, 0, &err), VTA_OK);
  vta_jit_uop u = {.mode = VTA_JIT_ALU, .dst = a, .src = a, .alu_op = op, .use_imm = 1,
                   .imm = imm};
  assert_int_equal(vta_jit_kernel_uop(k, &u, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_loop_end(k, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_loop_end(k, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_end(k, &err), VTA_OK);
  return k;
}

static void push(vta_jit *jit, vta_jit_kernel *k) {
  vta_error err;
  int rc = vta_jit_push_kernel(jit, k, &err);
  if (rc) fprintf(stderr, "%s\n", err.msg);
  assert_int_equal(rc, VTA_OK);
}

static void ok(int rc, const vta_error *err) {
  if (rc) fprintf(stderr, "%s\n", err->msg);
  assert_int_equal(rc, VTA_OK);
}

/* Runs C = min(max(A * W^T, 0) >> 3, 127) and compares with plain C. Returns the counters. */
static vta_jit_counters run_problem(const problem *p) {
  const vta_config *cfg = &p->cfg;
  uint32_t B = cfg->batch, BI = cfg->block_in, BO = cfg->block_out;
  uint32_t M = p->mb * B, N = p->nb * BO, K = p->kb * BI;
  vta_error err;
  vta_device *dev;
  ok(vta_device_open("fsim", cfg, NULL, &dev, &err), &err);
  uint64_t da, dw, dc;
  ok(vta_device_alloc(dev, (uint64_t)M * K, &da, &err), &err);
  ok(vta_device_alloc(dev, (uint64_t)N * K, &dw, &err), &err);
  ok(vta_device_alloc(dev, (uint64_t)M * N, &dc, &err), &err);
  int8_t *a = malloc((size_t)M * K), *w = malloc((size_t)N * K);
  for (size_t i = 0; i < (size_t)M * K; i++) a[i] = (int8_t)rnd();
  for (size_t i = 0; i < (size_t)N * K; i++) w[i] = (int8_t)rnd();
  int8_t *pa = vta_device_host_ptr(dev, da), *pw = vta_device_host_ptr(dev, dw);
  size_t n = 0;
  for (uint32_t r0 = 0; r0 < M; r0 += B)
    for (uint32_t c0 = 0; c0 < K; c0 += BI)
      for (uint32_t r = 0; r < B; r++)
        for (uint32_t c = 0; c < BI; c++) pa[n++] = a[(size_t)(r0 + r) * K + c0 + c];
  n = 0;
  for (uint32_t r0 = 0; r0 < N; r0 += BO)
    for (uint32_t c0 = 0; c0 < K; c0 += BI)
      for (uint32_t r = 0; r < BO; r++)
        for (uint32_t c = 0; c < BI; c++) pw[n++] = w[(size_t)(r0 + r) * K + c0 + c];

  vta_jit *jit;
  ok(vta_jit_create(dev, &p->opt, &jit, &err), &err);
  uint32_t mtiles = p->mb / p->mt, ntiles = p->nb / p->nt, ktiles = p->kb / p->kt;
  uint64_t T = (uint64_t)mtiles * ntiles * ktiles, U = (uint64_t)mtiles * ntiles, t = 0, u = 0;
  uint32_t ih_size = p->mt * p->kt, wh_size = p->nt * p->kt, ah_size = p->mt * p->nt;
  int vt = p->vt;
  for (uint32_t m = 0; m < mtiles; m++) {
    for (uint32_t nn = 0; nn < ntiles; nn++, u++) {
      uint32_t ah = (uint32_t)(u % (uint64_t)vt) * ah_size;
      for (uint32_t kk = 0; kk < ktiles; kk++, t++) {
        uint32_t h = (uint32_t)(t % (uint64_t)vt);
        if (t >= (uint64_t)vt) ok(vta_jit_dep_pop(jit, C, L, &err), &err);
        vta_jit_xfer wx = {.type = VTA_MEM_WGT, .sram = h * wh_size, .dram_phys = dw,
                           .dram_offset = (uint64_t)nn * p->nt * p->kb + kk * p->kt,
                           .x_size = p->kt, .y_size = p->nt, .x_stride = p->kb};
        vta_jit_xfer ix = {.type = VTA_MEM_INP, .sram = h * ih_size, .dram_phys = da,
                           .dram_offset = (uint64_t)m * p->mt * p->kb + kk * p->kt,
                           .x_size = p->kt, .y_size = p->mt, .x_stride = p->kb};
        ok(vta_jit_load(jit, &wx, &err), &err);
        ok(vta_jit_load(jit, &ix, &err), &err);
        ok(vta_jit_dep_push(jit, L, C, &err), &err);
        ok(vta_jit_dep_pop(jit, L, C, &err), &err);
        if (kk == 0) {
          if (u >= (uint64_t)vt) ok(vta_jit_dep_pop(jit, S, C, &err), &err);
          push(jit, gemm_kernel(jit, p, ah, 0, 0, 1));
        }
        push(jit, gemm_kernel(jit, p, ah, h * ih_size, h * wh_size, 0));
        if (t + (uint64_t)vt < T) ok(vta_jit_dep_push(jit, C, L, &err), &err);
      }
      push(jit, alu_kernel(jit, p, ah, VTA_ALU_MAX, 0));
      push(jit, alu_kernel(jit, p, ah, VTA_ALU_SHR, 3));
      push(jit, alu_kernel(jit, p, ah, VTA_ALU_MIN, 127));
      ok(vta_jit_dep_push(jit, C, S, &err), &err);
      ok(vta_jit_dep_pop(jit, C, S, &err), &err);
      vta_jit_xfer cx = {.type = VTA_MEM_OUT, .sram = ah, .dram_phys = dc,
                         .dram_offset = (uint64_t)m * p->mt * p->nb + nn * p->nt,
                         .x_size = p->nt, .y_size = p->mt, .x_stride = p->nb};
      ok(vta_jit_store(jit, &cx, &err), &err);
      if (u + (uint64_t)vt < U) ok(vta_jit_dep_push(jit, S, C, &err), &err);
    }
  }
  ok(vta_jit_sync(jit, 0, NULL, &err), &err);
  vta_jit_counters counters = *vta_jit_get_counters(jit);

  const int8_t *pc = vta_device_host_ptr(dev, dc);
  int bad = 0;
  n = 0;
  for (uint32_t r0 = 0; r0 < M; r0 += B)
    for (uint32_t c0 = 0; c0 < N; c0 += BO)
      for (uint32_t r = 0; r < B; r++)
        for (uint32_t c = 0; c < BO; c++, n++) {
          int32_t acc = 0;
          for (uint32_t q = 0; q < K; q++)
            acc += (int32_t)a[(size_t)(r0 + r) * K + q] * (int32_t)w[(size_t)(c0 + c) * K + q];
          acc = acc > 0 ? acc : 0;
          acc >>= 3;
          acc = acc < 127 ? acc : 127;
          if (pc[n] != (int8_t)acc) bad++;
        }
  if (bad) fprintf(stderr, "%d of %u results wrong\n", bad, M * N);
  assert_int_equal(bad, 0);
  vta_jit_destroy(jit);
  vta_device_close(dev);
  free(a);
  free(w);
  return counters;
}

static problem make_problem(const char *config, int vt) {
  problem p;
  memset(&p, 0, sizeof p);
  vta_error err;
  assert_int_equal(vta_config_load(&p.cfg, config, &err), VTA_OK);
  p.mb = 8;
  p.nb = 4;
  p.kb = 8;
  p.mt = 2;
  p.nt = 2;
  p.kt = 2;
  p.vt = vt;
  return p;
}

static void test_jit_gemm_epilogue_exact_default(void **state) {
  for (int vt = 1; vt <= 2; vt++) {
    problem p = make_problem("configs/vta_default.json", vt);
    vta_jit_counters c = run_problem(&p);
    assert_int_equal(c.syncs, 1);
    assert_int_equal(c.auto_syncs, 0);
    /* 16 units x (reset + 3 ALU), 64 GEMMs: 6 distinct kernels per ACC half reused. */
    assert_true(c.kernel_hits > c.kernel_misses);
  }
}

static void test_jit_gemm_epilogue_exact_batch4(void **state) {
  for (int vt = 1; vt <= 2; vt++) {
    problem p = make_problem("configs/batch4.json", vt);
    run_problem(&p);
  }
}

static void test_jit_gemm_epilogue_exact_block32(void **state) {
  for (int vt = 1; vt <= 2; vt++) {
    problem p = make_problem("configs/block32.json", vt);
    run_problem(&p);
  }
}

static void test_jit_sync_on_stream_overflow_keeps_result(void **state) {
  problem p = make_problem("configs/vta_default.json", 2);
  p.opt.max_insn_bytes = 64 * VTA_INSN_BYTES; /* the smallest stream allowed */
  vta_jit_counters c = run_problem(&p);
  assert_true(c.auto_syncs >= 4);
  assert_int_equal(c.syncs, c.auto_syncs + 1);
}

static void test_jit_sync_on_uop_overflow_keeps_result(void **state) {
  problem p = make_problem("configs/vta_default.json", 2);
  p.opt.max_uop_bytes = 2 * VTA_UOP_BYTES; /* the largest kernel: kt = 2 micro-ops */
  vta_jit_counters c = run_problem(&p);
  assert_true(c.auto_syncs >= 10);
}

static void test_jit_force_serial_keeps_result(void **state) {
  problem p = make_problem("configs/vta_default.json", 2);
  p.opt.debug = VTA_JIT_FORCE_SERIAL;
  vta_jit_counters c = run_problem(&p);
  assert_true(c.noops > 0);
  problem q = make_problem("configs/batch4.json", 1);
  q.opt.debug = VTA_JIT_FORCE_SERIAL;
  q.opt.max_insn_bytes = 64 * VTA_INSN_BYTES;
  run_problem(&q);
}

static void test_jit_bad_operations_are_refused(void **state) {
  vta_config cfg;
  vta_config_default(&cfg);
  vta_error err;
  vta_device *dev;
  vta_jit *jit;
  uint64_t buf;
  assert_int_equal(vta_device_open("fsim", &cfg, NULL, &dev, &err), VTA_OK);
  assert_int_equal(vta_device_alloc(dev, 4096, &buf, &err), VTA_OK);
  assert_int_equal(vta_jit_create(dev, NULL, &jit, &err), VTA_OK);
  vta_jit_xfer x = {.type = VTA_MEM_OUT, .dram_phys = buf, .x_size = 1, .y_size = 1,
                    .x_stride = 1};
  assert_int_equal(vta_jit_load(jit, &x, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "out cannot be loaded"));
  x.type = VTA_MEM_INP;
  assert_int_equal(vta_jit_store(jit, &x, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "only out can be stored"));
  x.dram_phys = buf + 3;
  assert_int_equal(vta_jit_load(jit, &x, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "not a multiple of the 16-byte element"));
  x.dram_phys = buf;
  x.sram = 2047;
  x.x_size = 2;
  assert_int_equal(vta_jit_load(jit, &x, &err), VTA_ERR_BOUNDS);
  assert_non_null(strstr(err.msg, "[2047, 2049)"));
  x.sram = 0;
  x.dram_offset = 1ull << 40;
  assert_int_equal(vta_jit_load(jit, &x, &err), VTA_ERR_BOUNDS);
  assert_non_null(strstr(err.msg, "32 bits"));
  vta_jit_options bad = {.max_insn_bytes = 16};
  vta_jit *j2;
  assert_int_equal(vta_jit_create(dev, &bad, &j2, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "max_insn_bytes = 16"));
  const vta_insn_word *w;
  size_t n;
  vta_jit_stream(jit, &w, &n);
  assert_int_equal(n, 0);
  vta_jit_destroy(jit);
  vta_device_close(dev);
}

static void test_jit_device_failure_discards_stream(void **state) {
  vta_config cfg;
  vta_config_default(&cfg);
  vta_error err;
  vta_device *dev;
  vta_jit *jit;
  uint64_t buf;
  assert_int_equal(vta_device_open("fsim", &cfg, NULL, &dev, &err), VTA_OK);
  assert_int_equal(vta_device_alloc(dev, 4096, &buf, &err), VTA_OK);
  assert_int_equal(vta_jit_create(dev, NULL, &jit, &err), VTA_OK);
  /* An element 256 MiB past the buffer, where nothing is allocated. */
  vta_jit_xfer x = {.type = VTA_MEM_INP, .dram_phys = buf, .dram_offset = 1u << 24,
                    .x_size = 1, .y_size = 1, .x_stride = 1};
  assert_int_equal(vta_jit_load(jit, &x, &err), VTA_OK);
  int rc = vta_jit_sync(jit, 0, NULL, &err);
  assert_int_equal(rc, VTA_ERR_BOUNDS);
  assert_non_null(strstr(err.msg, "outside the allocated device memory"));
  const vta_insn_word *w;
  size_t n;
  vta_jit_stream(jit, &w, &n);
  assert_int_equal(n, 0);
  x.dram_offset = 0;
  assert_int_equal(vta_jit_load(jit, &x, &err), VTA_OK);
  assert_int_equal(vta_jit_sync(jit, 0, NULL, &err), VTA_OK);
  vta_jit_destroy(jit);
  vta_device_close(dev);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_jit_gemm_epilogue_exact_default),
      cmocka_unit_test(test_jit_gemm_epilogue_exact_batch4),
      cmocka_unit_test(test_jit_gemm_epilogue_exact_block32),
      cmocka_unit_test(test_jit_sync_on_stream_overflow_keeps_result),
      cmocka_unit_test(test_jit_sync_on_uop_overflow_keeps_result),
      cmocka_unit_test(test_jit_force_serial_keeps_result),
      cmocka_unit_test(test_jit_bad_operations_are_refused),
      cmocka_unit_test(test_jit_device_failure_discards_stream),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
