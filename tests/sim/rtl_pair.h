/* rtl_pair.h - test support for the rtl tests: the same program on fsim and on rtl, each with
 * its own simulated DRAM built identically, then the memories compared byte for byte.
 *
 * Concurrent programs (sim/gen/conc.h) already carry their tokens: rtl_pair_conc checks that they
 * are race-free and runs them as they are, so the three modules of the RTL overlap.
 *
 * Random programs come from the shared generator (fp_random_build), which writes no dependency
 * tokens: fsim runs such a stream in order, but the RTL runs load, compute and store
 * concurrently. fp_serialize (sim/gen/prog.h) therefore adds the tokens (and compute no-ops where load and store
 * meet) that make every module wait for the instruction before it, which is how the runtime
 * orders dependent work; the result is a valid stream whose outcome does not depend on timing.
 */
#ifndef VTA_TESTS_RTL_PAIR_H
#define VTA_TESTS_RTL_PAIR_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/fsim/fsim.h"
#include "sim/mem/mem.h"
#include "sim/rtl/rtl.h"
#include "sim/gen/conc.h"
#include "support/fsim_prog.h"
#include "vta/config.h"

typedef struct rtl_pair {
  vta_config cfg;
  vta_mem *mem[2]; /* 0: fsim, 1: rtl */
  vta_fsim *fsim;
  vta_rtl *rtl;
} rtl_pair;

static inline int rtl_pair_open(rtl_pair *p, const char *config, const vta_rtl_options *o,
                         vta_error *err) {
  memset(p, 0, sizeof *p);
  int rc = vta_config_load(&p->cfg, config, err);
  for (int k = 0; k < 2 && rc == VTA_OK; k++) rc = vta_mem_create(1ull << 30, &p->mem[k], err);
  if (rc == VTA_OK) rc = vta_fsim_create(&p->cfg, p->mem[0], &p->fsim, err);
  if (rc == VTA_OK) rc = vta_rtl_create(&p->cfg, p->mem[1], o, &p->rtl, err);
  return rc;
}

static inline void rtl_pair_close(rtl_pair *p) {
  vta_rtl_destroy(p->rtl);
  vta_fsim_destroy(p->fsim);
  for (int k = 0; k < 2; k++) vta_mem_destroy(p->mem[k]);
}

/* Builds random program `seed` into both memories, serialised, runs it on both simulators and
 * compares the data. Returns 0 when identical; else -1 with the reason in msg. */
static inline int rtl_pair_random(rtl_pair *p, uint64_t seed, uint32_t ninsn, vta_stats st[2], char *msg,
                           size_t n) {
  fp_random r[2];
  uint64_t insn[2];
  uint32_t count[2];
  for (int k = 0; k < 2; k++) {
    if (fp_random_build(&p->cfg, seed, ninsn, p->mem[k], &r[k]) != 0 ||
        fp_serialize(&p->cfg, p->mem[k], r[k].insn, r[k].count, &insn[k], &count[k]) != 0) {
      snprintf(msg, n, "seed %llu: the program does not build", (unsigned long long)seed);
      return -1;
    }
  }
  if (insn[0] != insn[1] || r[0].data != r[1].data) {
    snprintf(msg, n, "seed %llu: the two memories allocate differently", (unsigned long long)seed);
    return -1;
  }
  memset(st, 0, 2 * sizeof *st);
  vta_error err;
  int rc = vta_fsim_run(p->fsim, insn[0], count[0], 0, &st[0], &err);
  if (rc != VTA_OK) {
    snprintf(msg, n, "seed %llu: fsim: %s", (unsigned long long)seed, err.msg);
    return -1;
  }
  rc = vta_rtl_run(p->rtl, insn[1], count[1], 2000000, &st[1], &err);
  if (rc != VTA_OK) {
    snprintf(msg, n, "seed %llu: rtl: %s", (unsigned long long)seed, err.msg);
    return -1;
  }
  const uint8_t *a = vta_mem_ptr(p->mem[0], r[0].data), *b = vta_mem_ptr(p->mem[1], r[1].data);
  int result = 0;
  for (uint64_t i = 0; i < r[0].data_bytes; i++)
    if (a[i] != b[i]) {
      snprintf(msg, n,
               "seed %llu (%u instructions): device memory differs at data byte %llu "
               "(fsim 0x%02x, rtl 0x%02x)",
               (unsigned long long)seed, count[0], (unsigned long long)i, a[i], b[i]);
      result = -1;
      break;
    }
  for (int k = 0; k < 2; k++) {
    vta_mem_free(p->mem[k], insn[k]);
    vta_mem_free(p->mem[k], r[k].insn);
    vta_mem_free(p->mem[k], r[k].data);
  }
  return result;
}

/* Compares [addr, addr + bytes) of the two memories; 0 when equal, else -1 with the first
 * difference in msg. */
static inline int rtl_pair_same(rtl_pair *p, uint64_t addr, uint64_t bytes, char *msg, size_t n) {
  const uint8_t *a = vta_mem_ptr(p->mem[0], addr), *b = vta_mem_ptr(p->mem[1], addr);
  for (uint64_t i = 0; i < bytes; i++)
    if (a[i] != b[i]) {
      snprintf(msg, n, "device memory differs at byte %llu of 0x%llx (fsim 0x%02x, rtl 0x%02x)",
               (unsigned long long)i, (unsigned long long)addr, a[i], b[i]);
      return -1;
    }
  return 0;
}

/* Builds concurrent program `seed` into both memories, proves it race-free (cp_check), runs it
 * on both simulators and compares the data. Returns 0 when identical; else -1 with the reason
 * in msg. prog (may be NULL) receives the program's shape. */
static inline int rtl_pair_conc(rtl_pair *p, uint64_t seed, uint32_t ninsn, vta_stats st[2],
                                cp_program *prog, char *msg, size_t n) {
  cp_program r[2];
  char why[400];
  for (int k = 0; k < 2; k++)
    if (cp_build(&p->cfg, seed, ninsn, p->mem[k], &r[k], why, sizeof why) != 0) {
      snprintf(msg, n, "seed %llu: %s", (unsigned long long)seed, why);
      return -1;
    }
  if (r[0].insn != r[1].insn || r[0].data != r[1].data) {
    snprintf(msg, n, "seed %llu: the two memories allocate differently", (unsigned long long)seed);
    return -1;
  }
  if (prog) *prog = r[0];
  int result = -1;
  vta_error err;
  memset(st, 0, 2 * sizeof *st);
  if (cp_check(&p->cfg, p->mem[0], r[0].insn, r[0].count, r[0].data, r[0].data_bytes, why,
               sizeof why) != 0) {
    snprintf(msg, n, "seed %llu: the generator made a racy program: %s", (unsigned long long)seed,
             why);
  } else if (vta_fsim_run(p->fsim, r[0].insn, r[0].count, 0, &st[0], &err) != VTA_OK) {
    snprintf(msg, n, "seed %llu: fsim: %s", (unsigned long long)seed, err.msg);
  } else if (vta_rtl_run(p->rtl, r[1].insn, r[1].count, 2000000, &st[1], &err) != VTA_OK) {
    snprintf(msg, n, "seed %llu: rtl: %s", (unsigned long long)seed, err.msg);
  } else if (rtl_pair_same(p, r[0].data, r[0].data_bytes, why, sizeof why) != 0) {
    snprintf(msg, n, "seed %llu (%u instructions, %u tokens): %s", (unsigned long long)seed,
             r[0].count, r[0].pops, why);
  } else {
    result = 0;
  }
  for (int k = 0; k < 2; k++) {
    vta_mem_free(p->mem[k], r[k].insn);
    vta_mem_free(p->mem[k], r[k].data);
  }
  return result;
}

#endif
