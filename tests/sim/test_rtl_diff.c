/* test_rtl_diff.c - fsim against rtl on seeded random programs: every LOAD type with padding
 * and strides, GEMM with and without reset, every ALU opcode with immediates and vectors,
 * STOREs, loops, and the tokens between the three modules. The device memory after each
 * program must be bit-identical, and the counters both simulators share must agree.
 * VTA_RTL_PROGRAMS sets the number of programs per configuration (`make regress` runs many);
 * VTA_RTL_SEED the first seed. A failure names its seed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "rtl_pair.h"

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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rtl_diff_default_config_random_programs),
      cmocka_unit_test(test_rtl_diff_wide_bus_random_programs),
      cmocka_unit_test(test_rtl_diff_slow_memory_random_programs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
