/* timeline_prog.h - the random programs the timeline tests (test_rtl_timeline, test_sc_timeline)
 * run: even k a concurrent program of 40 to 99 instructions (sim/gen/conc.h), odd k a
 * serialised random program of 30 (sim/gen/prog.h), both built in `mem` from `seed`. */
#ifndef VTA_TESTS_SIM_TIMELINE_PROG_H
#define VTA_TESTS_SIM_TIMELINE_PROG_H

static void timeline_program(const vta_config *cfg, vta_mem *mem, uint64_t seed, int k,
                             uint64_t *insn, uint32_t *count, uint64_t *data) {
  char why[400];
  if (k % 2 == 0) {
    cp_program p;
    if (cp_build(cfg, seed, 40 + (uint32_t)(seed % 60), mem, &p, why, sizeof why) != 0)
      fail_msg("seed %llu: %s", (unsigned long long)seed, why);
    *insn = p.insn;
    *count = p.count;
    *data = p.data;
  } else {
    fp_random p;
    assert_int_equal(fp_random_build(cfg, seed, 30, mem, &p), 0);
    assert_int_equal(fp_serialize(cfg, mem, p.insn, p.count, insn, count), 0);
    vta_mem_free(mem, p.insn);
    *data = p.data;
  }
}

#endif
