/* test_fsim_simd.c - every GEMM kernel set the host can run (avx512-vnni, avx2, portable) gives
 * bit-identical memory, buffers and statistics on random programs, and all of them agree with
 * the plain C reference interpreter, under every shape of configuration (batch, block in/out,
 * partial SIMD chunks); and the selection rules (VTA_FSIM_SIMD, vta_fsim_set_simd).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sim/fsim/fsim.h"
#include "support/fsim_prog.h"
#include "vta/config.h"

/* Configuration files and inline JSON for shapes no file has: block_in != block_out, blocks
 * narrower than one 4-byte VNNI group, wider than one 16-lane chunk, batches > 1. */
static const char *const k_configs[] = {
    NULL, /* the default 1x16x16 */
    "configs/batch4.json",
    "{\"LOG_BATCH\": 1}", /* 2x16x16: the batch-2 case of vnni_gemm_bx16x16 */
    "configs/block32.json",
    "configs/block8.json",
    "configs/block4.json",
    "{\"LOG_BATCH\": 1, \"LOG_BLOCK_IN\": 1, \"LOG_BLOCK_OUT\": 5, \"LOG_INP_BUFF_SIZE\": 12,"
    " \"LOG_WGT_BUFF_SIZE\": 16, \"LOG_ACC_BUFF_SIZE\": 18}",
    "{\"LOG_BATCH\": 2, \"LOG_BLOCK_IN\": 5, \"LOG_BLOCK_OUT\": 1, \"LOG_INP_BUFF_SIZE\": 17,"
    " \"LOG_WGT_BUFF_SIZE\": 16, \"LOG_ACC_BUFF_SIZE\": 15}",
    "{\"LOG_BATCH\": 0, \"LOG_BLOCK_IN\": 3, \"LOG_BLOCK_OUT\": 6, \"LOG_INP_BUFF_SIZE\": 13,"
    " \"LOG_WGT_BUFF_SIZE\": 19, \"LOG_ACC_BUFF_SIZE\": 18}",
};

static const char *const k_kernels[] = {"avx512-vnni", "avx2", "portable"};
#define NK 3

static void load_config(vta_config *cfg, const char *src) {
  vta_error err;
  if (!src)
    vta_config_default(cfg);
  else if (src[0] == '{') {
    if (vta_config_parse(cfg, src, "inline", &err) != VTA_OK) fail_msg("%s", err.msg);
  } else if (vta_config_load(cfg, src, &err) != VTA_OK) {
    fail_msg("%s", err.msg);
  }
}

/* Runs `seeds` random programs on one simulator per available kernel set and on the
 * reference, each with its own memory; compares everything after every program. */
static void compare_kernels(const char *config, uint64_t first_seed, int seeds, uint32_t ninsn) {
  vta_config cfg;
  load_config(&cfg, config);
  vta_error err;
  vta_mem *mem[NK + 1];
  vta_fsim *sim[NK] = {NULL};
  int have[NK];
  fsim_ref *ref;
  for (int k = 0; k <= NK; k++) assert_int_equal(vta_mem_create(0, &mem[k], &err), VTA_OK);
  for (int k = 0; k < NK; k++) {
    assert_int_equal(vta_fsim_create(&cfg, mem[k], &sim[k], &err), VTA_OK);
    int rc = vta_fsim_set_kernels(sim[k], k_kernels[k], &err);
    have[k] = rc == VTA_OK;
    if (!have[k]) assert_int_equal(rc, VTA_ERR_UNSUPPORTED);
    else assert_string_equal(vta_fsim_kernels(sim[k]), k_kernels[k]);
  }
  assert_true(have[NK - 1]); /* portable always runs */
  assert_int_equal(fsim_ref_create(&cfg, mem[NK], &ref), 0);

  const size_t acc_bytes = (size_t)cfg.depth[VTA_MEM_ACC] * cfg.elem_bytes[VTA_MEM_ACC];
  const size_t out_bytes = (size_t)cfg.depth[VTA_MEM_OUT] * cfg.elem_bytes[VTA_MEM_OUT];
  uint8_t *acc = malloc(acc_bytes), *out = malloc(out_bytes);
  for (int s = 0; s < seeds; s++) {
    uint64_t seed = first_seed + (uint64_t)s;
    fp_random r[NK + 1];
    for (int k = 0; k <= NK; k++)
      assert_int_equal(fp_random_build(&cfg, seed, ninsn, mem[k], &r[k]), 0);
    char msg[256];
    if (fsim_ref_run(ref, r[NK].insn, r[NK].count, msg, sizeof msg) != 0)
      fail_msg("reference, seed %llu: %s", (unsigned long long)seed, msg);
    vta_stats st[NK];
    memset(st, 0, sizeof st);
    for (int k = 0; k < NK; k++) {
      if (!have[k]) continue;
      assert_int_equal(r[k].insn, r[NK].insn); /* same addresses in every memory */
      if (vta_fsim_run(sim[k], r[k].insn, r[k].count, 0, &st[k], &err) != VTA_OK)
        fail_msg("%s, seed %llu: %s", k_kernels[k], (unsigned long long)seed, err.msg);
      if (memcmp(vta_mem_ptr(mem[k], r[k].data), vta_mem_ptr(mem[NK], r[NK].data),
                 r[k].data_bytes) != 0)
        fail_msg("config %s seed %llu: %s memory differs from the reference",
                 config ? config : "default", (unsigned long long)seed, k_kernels[k]);
      assert_int_equal(vta_fsim_read_sram(sim[k], VTA_MEM_ACC, 0, cfg.depth[VTA_MEM_ACC], acc,
                                          &err),
                       VTA_OK);
      assert_int_equal(vta_fsim_read_sram(sim[k], VTA_MEM_OUT, 0, cfg.depth[VTA_MEM_OUT], out,
                                          &err),
                       VTA_OK);
      if (memcmp(acc, ref->acc, acc_bytes) != 0 || memcmp(out, ref->out, out_bytes) != 0)
        fail_msg("config %s seed %llu: %s ACC/OUT buffers differ from the reference",
                 config ? config : "default", (unsigned long long)seed, k_kernels[k]);
    }
    for (int k = 0; k < NK - 1; k++)
      if (have[k]) assert_memory_equal(&st[k], &st[NK - 1], sizeof st[k]);
    assert_true(st[NK - 1].insns == r[0].count);
    for (int k = 0; k <= NK; k++) {
      vta_mem_free(mem[k], r[k].insn);
      vta_mem_free(mem[k], r[k].data);
    }
  }
  free(acc);
  free(out);
  fsim_ref_destroy(ref);
  for (int k = 0; k < NK; k++) vta_fsim_destroy(sim[k]);
  for (int k = 0; k <= NK; k++) vta_mem_destroy(mem[k]);
}

static void test_fsim_simd_random_programs_default_config(void **state) {
  (void)state;
  compare_kernels(NULL, 1, 200, 300);
}

static void test_fsim_simd_random_programs_every_shape(void **state) {
  (void)state;
  for (size_t i = 1; i < sizeof k_configs / sizeof k_configs[0]; i++)
    compare_kernels(k_configs[i], 1000 * i, 40, 250);
}

/* The random programs exercise everything the comparisons are meant to cover (a generator
 * that produced empty programs would make them pass vacuously). */
static void test_fsim_simd_random_programs_do_real_work(void **state) {
  (void)state;
  vta_config cfg;
  vta_config_default(&cfg);
  vta_error err;
  vta_mem *mem;
  vta_fsim *sim;
  assert_int_equal(vta_mem_create(0, &mem, &err), VTA_OK);
  assert_int_equal(vta_fsim_create(&cfg, mem, &sim, &err), VTA_OK);
  fp_random r;
  assert_int_equal(fp_random_build(&cfg, 1, 300, mem, &r), 0);
  vta_stats st;
  memset(&st, 0, sizeof st);
  assert_int_equal(vta_fsim_run(sim, r.insn, r.count, 0, &st, &err), VTA_OK);
  assert_int_equal(st.insns, 300);
  for (int t = 0; t < VTA_MEM_COUNT; t++)
    if (t != VTA_MEM_OUT) assert_true(st.bytes_read[t] > 0);
  assert_true(st.bytes_written[VTA_MEM_OUT] > 1000);
  assert_true(st.macs > 100 * 256);
  assert_true(st.alu_uops > 100);
  /* Results that vary: many distinct values in ACC and in the stored bytes. */
  int32_t *acc = malloc((size_t)cfg.depth[VTA_MEM_ACC] * 64);
  vta_fsim_read_sram(sim, VTA_MEM_ACC, 0, cfg.depth[VTA_MEM_ACC], acc, &err);
  int distinct = 0;
  for (int i = 1; i < 44 * 16; i++) distinct += acc[i] != acc[i - 1];
  assert_true(distinct > 300);
  free(acc);
  vta_fsim_destroy(sim);
  vta_mem_destroy(mem);
}

static void test_fsim_simd_selection(void **state) {
  (void)state;
  vta_config cfg;
  vta_config_default(&cfg);
  vta_error err;
  vta_mem *mem;
  vta_fsim *sim;
  assert_int_equal(vta_mem_create(0, &mem, &err), VTA_OK);

  __builtin_cpu_init();
  const char *best = "portable";
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vnni"))
    best = "avx512-vnni";
  else if (__builtin_cpu_supports("avx2"))
    best = "avx2";
#endif
  unsetenv("VTA_FSIM_SIMD");
  assert_int_equal(vta_fsim_create(&cfg, mem, &sim, &err), VTA_OK);
  assert_string_equal(vta_fsim_kernels(sim), best);
  assert_string_equal(vta_fsim_set_simd(sim, 0), "portable");
  assert_string_equal(vta_fsim_kernels(sim), "portable");
  assert_string_equal(vta_fsim_set_simd(sim, 1), best);
  assert_int_equal(vta_fsim_set_kernels(sim, "sse9", &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "unknown kernel set 'sse9'"));
  assert_string_equal(vta_fsim_kernels(sim), best);
  vta_fsim_destroy(sim);

  setenv("VTA_FSIM_SIMD", "0", 1);
  assert_int_equal(vta_fsim_create(&cfg, mem, &sim, &err), VTA_OK);
  assert_string_equal(vta_fsim_kernels(sim), "portable");
  assert_string_equal(vta_fsim_set_simd(sim, 1), best); /* explicit choice wins */
  vta_fsim_destroy(sim);
  setenv("VTA_FSIM_SIMD", "1", 1);
  assert_int_equal(vta_fsim_create(&cfg, mem, &sim, &err), VTA_OK);
  assert_string_equal(vta_fsim_kernels(sim), best);
  vta_fsim_destroy(sim);
  unsetenv("VTA_FSIM_SIMD");
  vta_mem_destroy(mem);
}

/* Switching kernel sets between runs keeps the buffers: the new set's copies of INP and WGT
 * are rebuilt from them. */
static void test_fsim_simd_switch_between_runs(void **state) {
  (void)state;
  vta_config cfg;
  vta_config_default(&cfg);
  vta_error err;
  vta_mem *ma, *mb;
  vta_fsim *a, *b;
  assert_int_equal(vta_mem_create(0, &ma, &err), VTA_OK);
  assert_int_equal(vta_mem_create(0, &mb, &err), VTA_OK);
  assert_int_equal(vta_fsim_create(&cfg, ma, &a, &err), VTA_OK);
  assert_int_equal(vta_fsim_create(&cfg, mb, &b, &err), VTA_OK);
  vta_fsim_set_simd(b, 0);
  for (int s = 0; s < 6; s++) {
    fp_random ra, rb;
    assert_int_equal(fp_random_build(&cfg, 500 + s, 200, ma, &ra), 0);
    assert_int_equal(fp_random_build(&cfg, 500 + s, 200, mb, &rb), 0);
    vta_fsim_set_kernels(a, k_kernels[s % NK], NULL); /* may be unsupported: keeps its set */
    assert_int_equal(vta_fsim_run(a, ra.insn, ra.count, 0, NULL, &err), VTA_OK);
    assert_int_equal(vta_fsim_run(b, rb.insn, rb.count, 0, NULL, &err), VTA_OK);
    assert_memory_equal(vta_mem_ptr(ma, ra.data), vta_mem_ptr(mb, rb.data), ra.data_bytes);
  }
  vta_fsim_destroy(a);
  vta_fsim_destroy(b);
  vta_mem_destroy(ma);
  vta_mem_destroy(mb);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fsim_simd_random_programs_default_config),
      cmocka_unit_test(test_fsim_simd_random_programs_every_shape),
      cmocka_unit_test(test_fsim_simd_random_programs_do_real_work),
      cmocka_unit_test(test_fsim_simd_selection),
      cmocka_unit_test(test_fsim_simd_switch_between_runs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
