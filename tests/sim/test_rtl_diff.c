/* test_rtl_diff.c - fsim against rtl on seeded random programs. The device memory after each
 * program must be bit-identical, and the counters both simulators share must agree.
 *
 * Two generators: fsim_prog's programs (every LOAD type with padding and strides, GEMM with
 * and without reset, every ALU opcode with immediates and vectors, STOREs, loops) carry no
 * tokens and are serialised by rtl_pair.h, so they test the datapaths one instruction at a
 * time; sim/gen/conc.c's programs are software pipelines whose tokens only order what must be
 * ordered, so load, compute and store run at once on the RTL (the tests check that they do) and
 * a wrong handshake, a token pushed too early or a buffer port conflict shows up as a
 * difference. Each concurrent program is first proven race-free by cp_check, whose own test is
 * here too.
 *
 * VTA_RTL_PROGRAMS sets the number of programs per test (`make regress` runs many, and adds
 * the configurations of VTA_RTL_EXTRA_CONFIGS); VTA_RTL_SEED the first seed. A failure names its
 * seed (and the programs are self-contained: that seed alone reproduces it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtl_pair.h"
#include "vta/isa.h"

static uint64_t env_u64(const char *name, uint64_t def) {
  const char *v = getenv(name);
  return v && *v ? strtoull(v, NULL, 0) : def;
}

static void run_random(const char *config, const char *options, uint64_t programs) {
  rtl_pair p;
  vta_error err;
  vta_config cfg;
  if (vta_config_load(&cfg, config, &err) != VTA_OK) fail_msg("%s: %s", config, err.msg);
  vta_rtl_options o;
  vta_rtl_options_default(&cfg, &o);
  char text[128];
  snprintf(text, sizeof text, "%s", options ? options : "");
  if (vta_rtl_options_parse(text, &o, &err) != VTA_OK) fail_msg("%s", err.msg);
  if (rtl_pair_open(&p, config, &o, &err) != VTA_OK) fail_msg("%s: %s", config, err.msg);
  uint64_t first = env_u64("VTA_RTL_SEED", 1);
  for (uint64_t s = first; s < first + programs; s++) {
    vta_stats st[2];
    char msg[512];
    uint32_t ninsn = 10 + (uint32_t)(s % 50);
    if (rtl_pair_random(&p, s, ninsn, st, msg, sizeof msg) != 0) fail_msg("%s: %s", config, msg);
    assert_int_equal(st[0].insns, st[1].insns);
    for (int m = 0; m < VTA_MOD_COUNT; m++)
      assert_int_equal(st[0].insns_by_module[m], st[1].insns_by_module[m]);
    assert_int_equal(st[0].gemm_uops, st[1].gemm_uops);
    assert_int_equal(st[0].alu_uops, st[1].alu_uops);
    assert_int_equal(st[0].macs, st[1].macs);
    assert_true(st[1].cycles > 0);
  }
  rtl_pair_close(&p);
}

static void test_rtl_diff_default_config_random_programs(void **state) {
  run_random("configs/vta_default.json", NULL, env_u64("VTA_RTL_PROGRAMS", 200));
}

/* A slow memory (a third of a beat per cycle, one-cycle latency) changes every interleaving of
 * the three modules and exercises back-pressure on every data path; results must not change. */
static void test_rtl_diff_slow_memory_random_programs(void **state) {
  run_random("configs/vta_default.json", "latency=1,bandwidth=3", env_u64("VTA_RTL_PROGRAMS", 100));
}

static void test_rtl_diff_wide_bus_random_programs(void **state) {
  run_random("sim/rtl/configs/rtl_wide.json", NULL, env_u64("VTA_RTL_PROGRAMS", 150));
}

/* Concurrent programs: returns how many of them overlapped modules (busy cycles of the three
 * modules adding up to more than the run). */
static void run_conc(const char *config, const char *options, uint64_t programs) {
  rtl_pair p;
  vta_error err;
  vta_config cfg;
  if (vta_config_load(&cfg, config, &err) != VTA_OK) fail_msg("%s: %s", config, err.msg);
  vta_rtl_options o;
  vta_rtl_options_default(&cfg, &o);
  char text[128];
  snprintf(text, sizeof text, "%s", options ? options : "");
  if (vta_rtl_options_parse(text, &o, &err) != VTA_OK) fail_msg("%s", err.msg);
  if (rtl_pair_open(&p, config, &o, &err) != VTA_OK) fail_msg("%s: %s", config, err.msg);
  uint64_t first = env_u64("VTA_RTL_SEED", 1), overlapped = 0, insns = 0, tokens = 0, cycles = 0;
  for (uint64_t s = first; s < first + programs; s++) {
    vta_stats st[2];
    cp_program cp;
    char msg[1024];
    uint32_t ninsn = 20 + (uint32_t)(s % 90);
    if (s % 16 == 0) ninsn *= 4; /* now and then a long one: deep queues, many tokens */
    if (rtl_pair_conc(&p, s, ninsn, st, &cp, msg, sizeof msg) != 0)
      fail_msg("%s %s: %s", config, options ? options : "", msg);
    assert_int_equal(st[0].insns, st[1].insns);
    for (int m = 0; m < VTA_MOD_COUNT; m++)
      assert_int_equal(st[0].insns_by_module[m], st[1].insns_by_module[m]);
    assert_int_equal(st[0].gemm_uops, st[1].gemm_uops);
    assert_int_equal(st[0].alu_uops, st[1].alu_uops);
    assert_int_equal(st[0].macs, st[1].macs);
    overlapped += st[1].busy_cycles[0] + st[1].busy_cycles[1] + st[1].busy_cycles[2] > st[1].cycles;
    insns += cp.count;
    tokens += cp.pops;
    cycles += st[1].cycles;
  }
  printf("%s %s: %llu concurrent programs, %llu instructions, %llu tokens popped, %llu cycles; "
         "%llu with modules overlapping\n",
         config, options ? options : "", (unsigned long long)programs, (unsigned long long)insns,
         (unsigned long long)tokens, (unsigned long long)cycles, (unsigned long long)overlapped);
  /* The point of these programs: most of them keep two or three modules busy at once. */
  assert_true(overlapped * 2 >= programs);
  rtl_pair_close(&p);
}

static void test_rtl_diff_default_config_concurrent_programs(void **state) {
  run_conc("configs/vta_default.json", NULL, env_u64("VTA_RTL_PROGRAMS", 300));
}

static void test_rtl_diff_slow_memory_concurrent_programs(void **state) {
  run_conc("configs/vta_default.json", "latency=1,bandwidth=3", env_u64("VTA_RTL_PROGRAMS", 100));
}

static void test_rtl_diff_long_latency_concurrent_programs(void **state) {
  run_conc("configs/vta_default.json", "read_latency=90,write_latency=3",
           env_u64("VTA_RTL_PROGRAMS", 60));
}

static void test_rtl_diff_wide_bus_concurrent_programs(void **state) {
  run_conc("sim/rtl/configs/rtl_wide.json", NULL, env_u64("VTA_RTL_PROGRAMS", 200));
}

/* `make regress` also runs both generators on the configurations in VTA_RTL_EXTRA_CONFIGS
 * (space-separated; it builds their models first). Without it (`make test`) the same runs,
 * with fewer programs, use the wide-bus configuration, whose model the tests build, with a
 * bandwidth-limited memory that the tests above do not give it. */
static void test_rtl_diff_extra_configs(void **state) {
  const char *list = getenv("VTA_RTL_EXTRA_CONFIGS");
  if (!list || !*list) {
    run_random("sim/rtl/configs/rtl_wide.json", "latency=1,bandwidth=5",
               env_u64("VTA_RTL_PROGRAMS", 20));
    run_conc("sim/rtl/configs/rtl_wide.json", "latency=1,bandwidth=5",
             env_u64("VTA_RTL_PROGRAMS", 20) / 2 + 1);
    return;
  }
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", list);
  char *save = NULL;
  for (char *c = strtok_r(buf, " ", &save); c; c = strtok_r(NULL, " ", &save)) {
    run_random(c, NULL, env_u64("VTA_RTL_PROGRAMS", 100));
    run_conc(c, NULL, env_u64("VTA_RTL_PROGRAMS", 100));
    run_conc(c, "latency=1,bandwidth=5", env_u64("VTA_RTL_PROGRAMS", 100) / 2 + 1);
  }
}

/* ---- The race checker the concurrent tests rely on ---- */

/* Runs cp_check on prog in a fresh memory whose data allocation holds micro-op {0,0,0}. */
static int check_prog(const vta_config *cfg, fsim_prog *prog, char *msg, size_t n) {
  vta_mem *mem;
  assert_int_equal(vta_mem_create(1 << 24, &mem, NULL), VTA_OK);
  uint64_t data, insn;
  assert_int_equal(vta_mem_alloc(mem, 8192, &data, NULL), VTA_OK);
  assert_int_equal(data, 0x1000); /* the programs below are written for it */
  memset(vta_mem_ptr(mem, data), 0, 8192);
  assert_int_equal(fp_commit(prog, mem, &insn), 0);
  int rc = cp_check(cfg, mem, insn, fp_count(prog), data, 8192, msg, n);
  vta_mem_destroy(mem);
  return rc;
}

static void test_rtl_diff_race_checker_finds_unordered_accesses(void **state) {
  vta_config cfg;
  vta_config_default(&cfg);
  const uint32_t data_inp = 0x1000 / 16; /* the test memory's first allocation: 0x1000 */
  char msg[512];
  /* A GEMM reading INP 0 while the load module may still be writing it. */
  for (int ordered = 0; ordered < 2; ordered++) {
    fsim_prog prog;
    fp_init(&prog, &cfg);
    fp_load(&prog, VTA_MEM_UOP, 0, 0x1000 / 4, 1, 1, 1, 0, 0, 0, 0, 0);
    fp_load(&prog, VTA_MEM_INP, 0, data_inp, 1, 1, 1, 0, 0, 0, 0, ordered ? FP_PUSH_NEXT : 0);
    fp_gemm(&prog, 0, 0, 1, 1, 1, NULL, NULL, ordered ? FP_POP_PREV : 0);
    fp_finish(&prog, 0);
    int rc = check_prog(&cfg, &prog, msg, sizeof msg);
    fp_free(&prog);
    if (ordered) {
      if (rc != 0) fail_msg("ordered program reported: %s", msg);
    } else {
      assert_int_equal(rc, -1);
      assert_non_null(strstr(msg, "race: instruction 2"));
      assert_non_null(strstr(msg, "INP element 0"));
    }
  }
  /* A store writing DRAM that a later load reads: ordered only through compute. */
  for (int ordered = 0; ordered < 2; ordered++) {
    fsim_prog prog;
    fp_init(&prog, &cfg);
    fp_alu(&prog, VTA_ALU_ADD, 1, 0, 0, 1, 0, 1, NULL, NULL, FP_PUSH_NEXT);
    fp_store(&prog, 0, data_inp + 8, 1, 1, 1, FP_POP_PREV | (ordered ? FP_PUSH_PREV : 0));
    if (ordered) fp_gemm(&prog, 0, 0, 1, 0, 1, NULL, NULL, FP_POP_NEXT | FP_PUSH_PREV);
    fp_load(&prog, VTA_MEM_INP, 4, data_inp + 8, 1, 1, 1, 0, 0, 0, 0, ordered ? FP_POP_NEXT : 0);
    fp_finish(&prog, 0);
    int rc = check_prog(&cfg, &prog, msg, sizeof msg);
    fp_free(&prog);
    if (ordered) {
      if (rc != 0) fail_msg("ordered program reported: %s", msg);
    } else {
      assert_int_equal(rc, -1);
      assert_non_null(strstr(msg, "of load and instruction 1 of store"));
      assert_non_null(strstr(msg, "DRAM byte"));
    }
  }
  /* A pop with no earlier push is refused (the generator's programs never have one). */
  fsim_prog prog;
  fp_init(&prog, &cfg);
  fp_store(&prog, 0, data_inp, 1, 1, 1, FP_POP_PREV);
  fp_finish(&prog, 0);
  assert_int_equal(check_prog(&cfg, &prog, msg, sizeof msg), -1);
  assert_non_null(strstr(msg, "no earlier instruction"));
  fp_free(&prog);
}

/* Generated programs are deterministic, race-free on every configuration the tests use, and
 * actually contain tokens in all four queues. */
static void test_rtl_diff_concurrent_generator_is_deterministic_and_race_free(void **state) {
  const char *configs[] = {"configs/vta_default.json", "sim/rtl/configs/rtl_wide.json",
                           "configs/block32.json", "configs/batch4.json", "configs/small.json"};
  for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++) {
    vta_config cfg;
    vta_error err;
    if (vta_config_load(&cfg, configs[c], &err) != VTA_OK) fail_msg("%s", err.msg);
    uint64_t pushes = 0;
    for (uint64_t seed = 1; seed <= 40; seed++) {
      vta_mem *m[2];
      cp_program p[2];
      char msg[512];
      for (int k = 0; k < 2; k++) {
        assert_int_equal(vta_mem_create(1 << 26, &m[k], NULL), VTA_OK);
        if (cp_build(&cfg, seed, 20 + (uint32_t)seed * 3, m[k], &p[k], msg, sizeof msg) != 0)
          fail_msg("%s: %s", configs[c], msg);
      }
      assert_true(p[0].insn == p[1].insn && p[0].count == p[1].count);
      assert_memory_equal(vta_mem_ptr(m[0], p[0].insn), vta_mem_ptr(m[1], p[1].insn),
                          (size_t)p[0].count * VTA_INSN_BYTES);
      assert_memory_equal(vta_mem_ptr(m[0], p[0].data), vta_mem_ptr(m[1], p[1].data),
                          p[0].data_bytes);
      if (cp_check(&cfg, m[0], p[0].insn, p[0].count, p[0].data, p[0].data_bytes, msg,
                   sizeof msg) != 0)
        fail_msg("%s seed %llu: %s", configs[c], (unsigned long long)seed, msg);
      for (int k = 0; k < 2; k++) vta_mem_destroy(m[k]);
      pushes += p[0].pushes;
    }
    assert_true(pushes > 100);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rtl_diff_race_checker_finds_unordered_accesses),
      cmocka_unit_test(test_rtl_diff_concurrent_generator_is_deterministic_and_race_free),
      cmocka_unit_test(test_rtl_diff_default_config_random_programs),
      cmocka_unit_test(test_rtl_diff_wide_bus_random_programs),
      cmocka_unit_test(test_rtl_diff_slow_memory_random_programs),
      cmocka_unit_test(test_rtl_diff_default_config_concurrent_programs),
      cmocka_unit_test(test_rtl_diff_wide_bus_concurrent_programs),
      cmocka_unit_test(test_rtl_diff_slow_memory_concurrent_programs),
      cmocka_unit_test(test_rtl_diff_long_latency_concurrent_programs),
      cmocka_unit_test(test_rtl_diff_extra_configs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
