/* test_rtl.c - the RTL simulator: directed programs against fsim, throughput by design, and the
 * errors a user sees (missing model, bad stream, hung program, waveform).
 *
 * The throughput tests assert cycle counts, which are deterministic, never wall time; they
 * print the simulation speed for information.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "rtl_pair.h"
#include "vta/device.h"

#define DEFAULT_CFG "configs/vta_default.json"
#define SMALL_LOADS_MIN_UTIL 0.70 /* 0.34 when each LOAD paid the latency; 0.80 is the bound with reset micro-ops */

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Allocates n bytes in both memories (same address) and fills them from a seed. */
static uint64_t both_alloc(rtl_pair *p, uint64_t n, uint64_t seed) {
  uint64_t a[2];
  for (int k = 0; k < 2; k++) {
    assert_int_equal(vta_mem_alloc(p->mem[k], n, &a[k], NULL), VTA_OK);
    uint8_t *d = vta_mem_ptr(p->mem[k], a[k]);
    uint64_t s = seed;
    for (uint64_t i = 0; i < n; i++) d[i] = seed ? (uint8_t)fp_rand(&s) : 0;
  }
  assert_true(a[0] == a[1]);
  return a[0];
}

static uint64_t both_commit(rtl_pair *p, fsim_prog *prog) {
  uint64_t a[2];
  for (int k = 0; k < 2; k++) assert_int_equal(fp_commit(prog, p->mem[k], &a[k]), 0);
  assert_true(a[0] == a[1]);
  return a[0];
}

static void assert_same(rtl_pair *p, uint64_t addr, uint64_t n) {
  const uint8_t *a = vta_mem_ptr(p->mem[0], addr), *b = vta_mem_ptr(p->mem[1], addr);
  for (uint64_t i = 0; i < n; i++)
    if (a[i] != b[i]) fail_msg("byte %llu of 0x%llx differs: fsim 0x%02x rtl 0x%02x",
                               (unsigned long long)i, (unsigned long long)addr, a[i], b[i]);
}

/* Runs the committed program on both; returns the rtl statistics. */
static vta_stats run_both(rtl_pair *p, uint64_t insn, uint32_t count) {
  vta_stats st[2];
  memset(st, 0, sizeof st);
  vta_error err;
  if (vta_fsim_run(p->fsim, insn, count, 0, &st[0], &err) != VTA_OK) fail_msg("fsim: %s", err.msg);
  if (vta_rtl_run(p->rtl, insn, count, 0, &st[1], &err) != VTA_OK) fail_msg("rtl: %s", err.msg);
  assert_int_equal(st[0].gemm_uops, st[1].gemm_uops);
  assert_int_equal(st[0].alu_uops, st[1].alu_uops);
  assert_int_equal(st[0].macs, st[1].macs);
  for (int t = 0; t < VTA_MEM_COUNT; t++) {
    assert_int_equal(st[0].bytes_read[t], st[1].bytes_read[t]);
    assert_int_equal(st[0].bytes_written[t], st[1].bytes_written[t]);
  }
  for (int m = 0; m < VTA_MOD_COUNT; m++)
    assert_int_equal(st[0].insns_by_module[m], st[1].insns_by_module[m]);
  return st[1];
}

/* A compute-bound blocked GEMM: the weights of NB output blocks x KB input blocks are loaded
 * once and reused across T tiles of R input rows. Input tiles and ACC/OUT halves are double
 * buffered with tokens, so loading tile t+1 and storing tile t-1 overlap computing tile t. */
enum { R = 32, NB = 4, KB = 32, T = 32 };

static void test_rtl_gemm_blocked_compute_bound_reaches_90_percent(void **state) {
  rtl_pair p;
  vta_error err;
  if (rtl_pair_open(&p, DEFAULT_CFG, NULL, &err) != VTA_OK) fail_msg("%s", err.msg);
  assert_true(p.cfg.dram_latency >= 32 && p.cfg.bus_bytes == 8);
  const vta_config *c = &p.cfg;
  uint64_t inp = both_alloc(&p, (uint64_t)T * R * KB * c->elem_bytes[VTA_MEM_INP], 11);
  uint64_t wgt = both_alloc(&p, (uint64_t)NB * KB * c->elem_bytes[VTA_MEM_WGT], 12);
  uint64_t out = both_alloc(&p, (uint64_t)T * R * NB * c->elem_bytes[VTA_MEM_OUT], 0);
  /* Micro-ops: [0,KB) main kernel of half 0, [KB,2KB) of half 1, 2KB/2KB+1 resets. */
  vta_uop u[2 * KB + 2];
  for (int h = 0; h < 2; h++)
    for (int k = 0; k < KB; k++) u[h * KB + k] = (vta_uop){h * R * NB, h * R * KB + k, k};
  u[2 * KB] = (vta_uop){0, 0, 0};
  u[2 * KB + 1] = (vta_uop){R * NB, 0, 0};
  uint64_t uops = both_alloc(&p, sizeof u, 0);
  for (int k = 0; k < 2; k++) fp_uops(c, vta_mem_ptr(p.mem[k], uops), u, 2 * KB + 2);

  fsim_prog prog;
  fp_init(&prog, c);
  fp_load(&prog, VTA_MEM_UOP, 0, (uint32_t)(uops / 4), 1, 2 * KB + 2, 2 * KB + 2, 0, 0, 0, 0, 0);
  fp_load(&prog, VTA_MEM_WGT, 0, (uint32_t)(wgt / c->elem_bytes[VTA_MEM_WGT]), 1, NB * KB, NB * KB,
          0, 0, 0, 0, 0);
  for (int t = 0; t < T; t++) {
    int h = t % 2;
    uint32_t ie = (uint32_t)(inp / c->elem_bytes[VTA_MEM_INP]) + (uint32_t)(t * R * KB);
    fp_load(&prog, VTA_MEM_INP, (uint32_t)(h * R * KB), ie, 1, R * KB, R * KB, 0, 0, 0, 0,
            FP_PUSH_NEXT | (t >= 2 ? FP_POP_NEXT : 0));
    const uint32_t rf_out[3] = {1, 0, 0};
    fp_gemm(&prog, 1, 2 * KB + h, 2 * KB + h + 1, R * NB, 1, rf_out, NULL,
            t >= 2 ? FP_POP_NEXT : 0);
    const uint32_t f_out[3] = {NB, KB, 0}, f_in[3] = {1, 0, KB};
    fp_gemm(&prog, 0, (uint32_t)(h * KB), (uint32_t)(h * KB + KB), R, NB, f_out, f_in,
            FP_POP_PREV | FP_PUSH_NEXT | (t + 2 < T ? FP_PUSH_PREV : 0));
    uint32_t oe = (uint32_t)(out / c->elem_bytes[VTA_MEM_OUT]) + (uint32_t)(t * R * NB);
    fp_store(&prog, (uint32_t)(h * R * NB), oe, 1, R * NB, R * NB, FP_POP_PREV | FP_PUSH_PREV);
  }
  /* The last two stores' tokens: compute no-ops wait for them before FINISH. */
  for (int k = 0; k < 2; k++) fp_gemm(&prog, 0, 0, 1, 0, 1, NULL, NULL, FP_POP_NEXT);
  fp_finish(&prog, 0);
  uint64_t insn = both_commit(&p, &prog);
  uint32_t count = fp_count(&prog);
  fp_free(&prog);

  double t0 = now();
  vta_stats st = run_both(&p, insn, count);
  double wall = now() - t0;
  assert_same(&p, out, (uint64_t)T * R * NB * c->elem_bytes[VTA_MEM_OUT]);
  double bound = (double)st.macs / (double)c->macs_per_cycle;
  double util = bound / (double)st.cycles;
  printf("rtl gemm blocked 1x16x16 bus64 latency%d: cycles %llu compute bound %.0f utilisation "
         "%.4f, about %.0f simulated cycles/s (fsim included)\n",
         c->dram_latency, (unsigned long long)st.cycles, bound, util,
         (double)vta_rtl_last_sim_cycles(p.rtl) / wall);
  assert_true(util >= 0.90);
  /* Load, compute and store overlapped: the busy cycles add up to more than the run. */
  assert_true(st.busy_cycles[0] + st.busy_cycles[1] + st.busy_cycles[2] > st.cycles);
  rtl_pair_close(&p);
}

/* The same structure with small tiles loaded one input row per LOAD instruction: 8 LOADs of
 * 64 bytes per tile. Each is far shorter than the memory latency, so a load module that waited
 * for one instruction's data before issuing the next one's addresses would pay the latency
 * eight times per tile; issuing ahead keeps the bus busy and the GEMM fed. */
enum { SR = 8, SNB = 4, SKB = 4, ST = 64 };

static void test_rtl_gemm_small_loads_hide_memory_latency(void **state) {
  rtl_pair p;
  vta_error err;
  if (rtl_pair_open(&p, DEFAULT_CFG, NULL, &err) != VTA_OK) fail_msg("%s", err.msg);
  const vta_config *c = &p.cfg;
  uint64_t inp = both_alloc(&p, (uint64_t)ST * SR * SKB * c->elem_bytes[VTA_MEM_INP], 31);
  uint64_t wgt = both_alloc(&p, (uint64_t)SNB * SKB * c->elem_bytes[VTA_MEM_WGT], 32);
  uint64_t out = both_alloc(&p, (uint64_t)ST * SR * SNB * c->elem_bytes[VTA_MEM_OUT], 0);
  vta_uop u[2 * SKB + 2];
  for (int h = 0; h < 2; h++)
    for (int k = 0; k < SKB; k++) u[h * SKB + k] = (vta_uop){h * SR * SNB, h * SR * SKB + k, k};
  u[2 * SKB] = (vta_uop){0, 0, 0};
  u[2 * SKB + 1] = (vta_uop){SR * SNB, 0, 0};
  uint64_t uops = both_alloc(&p, sizeof u, 0);
  for (int k = 0; k < 2; k++) fp_uops(c, vta_mem_ptr(p.mem[k], uops), u, 2 * SKB + 2);
  fsim_prog prog;
  fp_init(&prog, c);
  fp_load(&prog, VTA_MEM_UOP, 0, (uint32_t)(uops / 4), 1, 2 * SKB + 2, 2 * SKB + 2, 0, 0, 0, 0, 0);
  fp_load(&prog, VTA_MEM_WGT, 0, (uint32_t)(wgt / c->elem_bytes[VTA_MEM_WGT]), 1, SNB * SKB,
          SNB * SKB, 0, 0, 0, 0, 0);
  for (int t = 0; t < ST; t++) {
    int h = t % 2;
    for (int r = 0; r < SR; r++) {
      uint32_t ie = (uint32_t)(inp / c->elem_bytes[VTA_MEM_INP]) + (uint32_t)((t * SR + r) * SKB);
      int flags = (r == 0 && t >= 2 ? FP_POP_NEXT : 0) | (r == SR - 1 ? FP_PUSH_NEXT : 0);
      fp_load(&prog, VTA_MEM_INP, (uint32_t)(h * SR * SKB + r * SKB), ie, 1, SKB, SKB, 0, 0, 0,
              0, flags);
    }
    const uint32_t rf_out[3] = {1, 0, 0};
    fp_gemm(&prog, 1, 2 * SKB + h, 2 * SKB + h + 1, SR * SNB, 1, rf_out, NULL,
            t >= 2 ? FP_POP_NEXT : 0);
    const uint32_t f_out[3] = {SNB, SKB, 0}, f_in[3] = {1, 0, SKB};
    fp_gemm(&prog, 0, (uint32_t)(h * SKB), (uint32_t)(h * SKB + SKB), SR, SNB, f_out, f_in,
            FP_POP_PREV | FP_PUSH_NEXT | (t + 2 < ST ? FP_PUSH_PREV : 0));
    uint32_t oe = (uint32_t)(out / c->elem_bytes[VTA_MEM_OUT]) + (uint32_t)(t * SR * SNB);
    fp_store(&prog, (uint32_t)(h * SR * SNB), oe, 1, SR * SNB, SR * SNB,
             FP_POP_PREV | FP_PUSH_PREV);
  }
  for (int k = 0; k < 2; k++) fp_gemm(&prog, 0, 0, 1, 0, 1, NULL, NULL, FP_POP_NEXT);
  fp_finish(&prog, 0);
  uint64_t insn = both_commit(&p, &prog);
  uint32_t count = fp_count(&prog);
  fp_free(&prog);
  vta_stats st = run_both(&p, insn, count);
  assert_same(&p, out, (uint64_t)ST * SR * SNB * c->elem_bytes[VTA_MEM_OUT]);
  double bound = (double)st.macs / (double)c->macs_per_cycle;
  printf("rtl gemm small loads (%d LOADs of %d bytes per tile) latency%d: cycles %llu compute "
         "bound %.0f utilisation %.4f\n",
         SR, SKB * (int)c->elem_bytes[VTA_MEM_INP], c->dram_latency,
         (unsigned long long)st.cycles, bound, bound / (double)st.cycles);
  assert_true(bound / (double)st.cycles >= SMALL_LOADS_MIN_UTIL);
  rtl_pair_close(&p);
}

/* Runs every ALU operation, with an immediate and with a vector operand, over 1,024 ACC
 * elements on both simulators (rtl with options o, NULL for the defaults), checks the result
 * against fsim and returns the rtl statistics; *ops_out: the ALU instructions, *other_out: the
 * cycles of everything but the ALU work. */
static vta_stats run_alu_all_ops(const vta_rtl_options *o, int *ops_out, uint64_t *other_out) {
  rtl_pair p;
  vta_error err;
  if (rtl_pair_open(&p, DEFAULT_CFG, o, &err) != VTA_OK) fail_msg("%s", err.msg);
  const vta_config *c = &p.cfg;
  enum { N = 1024 };
  uint64_t acc = both_alloc(&p, (uint64_t)2 * N * c->elem_bytes[VTA_MEM_ACC], 5);
  uint64_t out = both_alloc(&p, (uint64_t)N * c->elem_bytes[VTA_MEM_OUT], 0);
  vta_uop u = {0, N, 0};
  uint64_t uops = both_alloc(&p, 4, 0);
  for (int k = 0; k < 2; k++) fp_uops(c, vta_mem_ptr(p.mem[k], uops), &u, 1);
  fsim_prog prog;
  fp_init(&prog, c);
  fp_load(&prog, VTA_MEM_UOP, 0, (uint32_t)(uops / 4), 1, 1, 1, 0, 0, 0, 0, 0);
  fp_load(&prog, VTA_MEM_ACC, 0, (uint32_t)(acc / c->elem_bytes[VTA_MEM_ACC]), 1, 2 * N, 2 * N, 0,
          0, 0, 0, 0);
  const uint32_t f_in[2] = {1, 1};
  int ops = 0;
  for (int op = 0; op < VTA_ALU_COUNT; op++)
    for (int imm = 0; imm < 2; imm++, ops++)
      fp_alu(&prog, (vta_alu_op)op, imm, op == VTA_ALU_SHR ? -3 + imm * 5 : 1000 - 37 * op, 0, 1, 1,
             N, NULL, f_in, ops == 2 * VTA_ALU_COUNT - 1 ? FP_PUSH_NEXT : 0);
  fp_store(&prog, 0, (uint32_t)(out / c->elem_bytes[VTA_MEM_OUT]), 1, N, N, FP_POP_PREV | FP_PUSH_PREV);
  fp_gemm(&prog, 0, 0, 1, 0, 1, NULL, NULL, FP_POP_NEXT);
  fp_finish(&prog, 0);
  uint64_t insn = both_commit(&p, &prog);
  uint32_t count = fp_count(&prog);
  fp_free(&prog);
  vta_stats st = run_both(&p, insn, count);
  assert_same(&p, out, (uint64_t)N * c->elem_bytes[VTA_MEM_OUT]);
  assert_int_equal(st.alu_uops, (uint64_t)ops * N);
  /* Everything but the ALU work: the two loads (16 + 8192 beats + latency) and the store. */
  *other_out = 2 * N * c->elem_bytes[VTA_MEM_ACC] / c->bus_bytes + 4 * c->dram_latency +
               N * c->elem_bytes[VTA_MEM_OUT] / c->bus_bytes + 200;
  *ops_out = ops;
  rtl_pair_close(&p);
  return st;
}

/* ALU micro-ops, with an immediate and with a vector operand, issue one per cycle. */
static void test_rtl_alu_vector_and_immediate_one_uop_per_cycle(void **state) {
  int ops;
  uint64_t other;
  vta_stats st = run_alu_all_ops(NULL, &ops, &other);
  printf("rtl alu: %llu micro-ops in %llu cycles (%llu of them loading and storing)\n",
         (unsigned long long)st.alu_uops, (unsigned long long)st.cycles,
         (unsigned long long)other);
  assert_true(st.cycles <= st.alu_uops + (uint64_t)ops * 4 + other);
}

/* asserts=off (the RTL's assertions not evaluated, for speed) changes nothing the design does:
 * the same result (checked against fsim) in the same cycles, busy and stall counts. */
static void test_rtl_asserts_off_runs_the_same_cycles(void **state) {
  vta_config cfg;
  vta_config_load(&cfg, DEFAULT_CFG, NULL);
  vta_rtl_options o;
  vta_rtl_options_default(&cfg, &o);
  char text[] = "asserts=off";
  vta_error err;
  assert_int_equal(vta_rtl_options_parse(text, &o, &err), VTA_OK);
  assert_int_equal(o.asserts_off, 1);
  int ops[2];
  uint64_t other[2];
  vta_stats on = run_alu_all_ops(NULL, &ops[0], &other[0]);
  vta_stats off = run_alu_all_ops(&o, &ops[1], &other[1]);
  assert_true(on.cycles > 0);
  assert_int_equal(on.cycles, off.cycles);
  for (int m = 0; m < VTA_MOD_COUNT; m++) {
    assert_int_equal(on.busy_cycles[m], off.busy_cycles[m]);
    assert_int_equal(on.stall_cycles[m], off.stall_cycles[m]);
  }
}

/* Accumulating into the same ACC element on consecutive cycles (a reduction loop with
 * dst_factor_in = 0) needs the forwarding path; so does an ALU reading what the previous
 * micro-op wrote. */
static void test_rtl_back_to_back_same_element_matches_fsim(void **state) {
  rtl_pair p;
  vta_error err;
  if (rtl_pair_open(&p, DEFAULT_CFG, NULL, &err) != VTA_OK) fail_msg("%s", err.msg);
  const vta_config *c = &p.cfg;
  uint64_t inp = both_alloc(&p, 64 * c->elem_bytes[VTA_MEM_INP], 21);
  uint64_t wgt = both_alloc(&p, 64 * c->elem_bytes[VTA_MEM_WGT], 22);
  uint64_t out = both_alloc(&p, 64 * c->elem_bytes[VTA_MEM_OUT], 0);
  vta_uop u[3] = {{3, 0, 0}, {3, 1, 1}, {4, 3, 0}};
  uint64_t uops = both_alloc(&p, sizeof u, 0);
  for (int k = 0; k < 2; k++) fp_uops(c, vta_mem_ptr(p.mem[k], uops), u, 3);
  fsim_prog prog;
  fp_init(&prog, c);
  fp_load(&prog, VTA_MEM_INP, 0, (uint32_t)(inp / c->elem_bytes[VTA_MEM_INP]), 1, 64, 64, 0, 0, 0, 0, 0);
  fp_load(&prog, VTA_MEM_WGT, 0, (uint32_t)(wgt / c->elem_bytes[VTA_MEM_WGT]), 1, 64, 64, 0, 0, 0, 0,
          FP_PUSH_NEXT);
  fp_load(&prog, VTA_MEM_UOP, 0, (uint32_t)(uops / 4), 1, 3, 3, 0, 0, 0, 0, FP_POP_PREV);
  fp_gemm(&prog, 1, 0, 1, 1, 1, NULL, NULL, 0);
  const uint32_t gi[3] = {0, 2, 2};
  fp_gemm(&prog, 0, 0, 2, 1, 20, NULL, gi, 0); /* 40 accumulations into ACC[3] */
  const uint32_t ai[2] = {0, 0};
  fp_alu(&prog, VTA_ALU_ADD, 0, 0, 2, 3, 1, 5, NULL, ai, 0); /* ACC[4] += ACC[3], five times */
  fp_alu(&prog, VTA_ALU_SHR, 1, 9, 2, 3, 1, 1, NULL, NULL, FP_PUSH_NEXT);
  fp_store(&prog, 0, (uint32_t)(out / c->elem_bytes[VTA_MEM_OUT]), 1, 8, 8, FP_POP_PREV | FP_PUSH_PREV);
  fp_gemm(&prog, 0, 0, 1, 0, 1, NULL, NULL, FP_POP_NEXT);
  fp_finish(&prog, 0);
  uint64_t insn = both_commit(&p, &prog);
  uint32_t count = fp_count(&prog);
  fp_free(&prog);
  run_both(&p, insn, count);
  assert_same(&p, out, 8 * c->elem_bytes[VTA_MEM_OUT]);
  rtl_pair_close(&p);
}

/* ---- GEMM and ALU side by side (hw/rtl/vta_compute.sv) ----
 *
 * The compute module runs a GEMM and an ALU instruction at the same time when their ACC
 * footprints lie in different banks (index MSB) and neither's destinations meet the other's
 * vector operand. A pair of N-micro-op instructions then takes about N cycles, not 2N; in the
 * same bank it takes 2N. Both give fsim's bits. */
enum { PAIR_N = 512 };

typedef enum pair_kind {
  PAIR_GEMM_ONLY = 0,   /* the GEMM alone: the reference time */
  PAIR_OTHER_BANK = 1,  /* GEMM in bank 0, then an ALU in bank 1 */
  PAIR_ALU_FIRST = 2,   /* the ALU in bank 1 first, then the GEMM in bank 0 */
  PAIR_SAME_BANK = 3,   /* GEMM, then an ALU in bank 0 (other entries: no hazard, but one bank) */
  PAIR_VECTOR_MEETS = 4, /* ALU in bank 1 whose vector operand reads the GEMM's destinations */
  PAIR_LOAD_BESIDE = 5,  /* GEMM in bank 0, then a LOAD ACC of 32 entries into bank 1 */
  PAIR_LOAD_PADDED = 6   /* the same LOAD ACC with a pad: it drains the units first */
} pair_kind;

typedef struct pair_result {
  uint64_t cycles, dual;
} pair_result;

/* One pair, then a drain (a LOAD ACC of an unused entry), then every region through SHR by 0
 * and 8 and STOREs, so the comparison with fsim covers two bytes of each result. */
static pair_result run_pair(pair_kind kind) {
  rtl_pair p;
  vta_error err;
  if (rtl_pair_open(&p, DEFAULT_CFG, NULL, &err) != VTA_OK) fail_msg("%s", err.msg);
  const vta_config *c = &p.cfg;
  const uint32_t D = c->depth[VTA_MEM_ACC], N = PAIR_N;
  assert_true(D >= 4 * N);
  /* ACC regions: the GEMM's [0, N), the ALU's [N, 2N) (bank 0) or [D/2, D/2 + N) (bank 1). */
  const uint32_t region[3] = {0, N, D / 2};
  uint64_t inp = both_alloc(&p, (uint64_t)N * c->elem_bytes[VTA_MEM_INP], 31);
  uint64_t wgt = both_alloc(&p, c->elem_bytes[VTA_MEM_WGT], 32);
  uint64_t acc = both_alloc(&p, (uint64_t)3 * N * c->elem_bytes[VTA_MEM_ACC], 33);
  uint64_t out = both_alloc(&p, (uint64_t)2 * 3 * N * c->elem_bytes[VTA_MEM_OUT], 0);
  /* Kernels, one LOAD UOP each: GEMM over region 0; ALU immediate on region 1 or 2; ALU MAX of
   * region 2 with region 0 (vector); SHR over any region (the dump). */
  vta_uop u[4] = {{0, 0, 0}, {N, 0, 0}, {D / 2, 0, 0}, {D / 2, 0, 0}};
  uint64_t uops = both_alloc(&p, sizeof u, 0);
  for (int k = 0; k < 2; k++) fp_uops(c, vta_mem_ptr(p.mem[k], uops), u, 4);
  uint32_t ue = (uint32_t)(uops / 4), ae = (uint32_t)(acc / c->elem_bytes[VTA_MEM_ACC]);
  uint32_t oe = (uint32_t)(out / c->elem_bytes[VTA_MEM_OUT]);

  fsim_prog prog;
  fp_init(&prog, c);
  fp_load(&prog, VTA_MEM_INP, 0, (uint32_t)(inp / c->elem_bytes[VTA_MEM_INP]), 1, N, N, 0, 0, 0,
          0, 0);
  fp_load(&prog, VTA_MEM_WGT, 0, (uint32_t)(wgt / c->elem_bytes[VTA_MEM_WGT]), 1, 1, 1, 0, 0, 0,
          0, FP_PUSH_NEXT);
  for (uint32_t k = 0; k < 4; k++)
    fp_load(&prog, VTA_MEM_UOP, k, ue + k, 1, 1, 1, 0, 0, 0, 0, k == 0 ? FP_POP_PREV : 0);
  for (int r = 0; r < 3; r++)
    fp_load(&prog, VTA_MEM_ACC, region[r], ae + (uint32_t)r * N, 1, N, N, 0, 0, 0, 0, 0);
  const uint32_t g_out[3] = {1, 1, 0}, a_out[2] = {1, 0}, v_out[2] = {1, 1};
  if (kind == PAIR_ALU_FIRST) fp_alu(&prog, VTA_ALU_ADD, 1, 1234, 2, 3, N, 1, a_out, NULL, 0);
  fp_gemm(&prog, 0, 0, 1, N, 1, g_out, NULL, 0);
  if (kind == PAIR_OTHER_BANK) fp_alu(&prog, VTA_ALU_ADD, 1, 1234, 2, 3, N, 1, a_out, NULL, 0);
  if (kind == PAIR_SAME_BANK) fp_alu(&prog, VTA_ALU_ADD, 1, 1234, 1, 2, N, 1, a_out, NULL, 0);
  if (kind == PAIR_VECTOR_MEETS) fp_alu(&prog, VTA_ALU_MAX, 0, 0, 3, 4, N, 1, v_out, NULL, 0);
  /* Region 2's first 32 entries again, from the same data (the dump below covers them). */
  if (kind == PAIR_LOAD_BESIDE)
    fp_load(&prog, VTA_MEM_ACC, D / 2, ae + 2 * N, 1, 32, 32, 0, 0, 0, 0, 0);
  if (kind == PAIR_LOAD_PADDED)
    fp_load(&prog, VTA_MEM_ACC, D / 2, ae + 2 * N, 1, 31, 31, 0, 0, 0, 1, 0);
  /* Drain: a LOAD ACC with a pad waits for both units (one without pads inside a bank would
   * start beside the GEMM; entries D - 2 and D - 1 are used by nobody). */
  fp_load(&prog, VTA_MEM_ACC, D - 2, ae, 1, 1, 1, 0, 0, 0, 1, 0);
  for (int pass = 0; pass < 2; pass++) {
    for (int r = 0; r < 3; r++) {
      /* SHR over region r: the kernel {0,0,0} with a destination factor, from region r. */
      const uint32_t s_out[2] = {1, 0};
      int last = r == 2;
      fp_load(&prog, VTA_MEM_UOP, 4, ue + (r == 0 ? 0 : r == 1 ? 1 : 2), 1, 1, 1, 0, 0, 0, 0,
              pass && r == 0 ? FP_POP_NEXT : 0);
      fp_alu(&prog, VTA_ALU_SHR, 1, pass * 8, 4, 5, N, 1, s_out, NULL, last ? FP_PUSH_NEXT : 0);
    }
    for (int r = 0; r < 3; r++)
      fp_store(&prog, region[r], oe + (uint32_t)(pass * 3 + r) * N, 1, N, N,
               (r == 0 ? FP_POP_PREV : 0) | (r == 2 ? FP_PUSH_PREV : 0));
  }
  fp_gemm(&prog, 0, 0, 1, 0, 1, NULL, NULL, FP_POP_NEXT);
  fp_finish(&prog, 0);
  uint64_t insn = both_commit(&p, &prog);
  uint32_t count = fp_count(&prog);
  fp_free(&prog);
  vta_stats st = run_both(&p, insn, count);
  assert_same(&p, out, (uint64_t)2 * 3 * N * c->elem_bytes[VTA_MEM_OUT]);
  pair_result res = {st.cycles, vta_rtl_last_dual_cycles(p.rtl)};
  rtl_pair_close(&p);
  return res;
}

static void test_rtl_gemm_and_alu_in_different_banks_run_together(void **state) {
  pair_result alone = run_pair(PAIR_GEMM_ONLY), after = run_pair(PAIR_OTHER_BANK),
              before = run_pair(PAIR_ALU_FIRST);
  printf("rtl GEMM + ALU of %d micro-ops each in different banks: %llu and %llu cycles "
         "(GEMM alone %llu), %llu and %llu cycles with both units busy\n",
         PAIR_N, (unsigned long long)after.cycles, (unsigned long long)before.cycles,
         (unsigned long long)alone.cycles, (unsigned long long)after.dual,
         (unsigned long long)before.dual);
  assert_int_equal(alone.dual, 0);
  /* The pair costs about max(N, N), not N + N: a few cycles of start-up beyond the GEMM. */
  assert_true(after.cycles <= alone.cycles + 16);
  assert_true(before.cycles <= alone.cycles + 16);
  assert_true(after.dual >= PAIR_N - 16 && before.dual >= PAIR_N - 16);
}

/* A LOAD ACC without pads inside bank 1 starts beside a GEMM writing bank 0 (the ALU idle) and
 * is hidden behind it; with a pad it waits for the GEMM to drain, so its transfer (32 ACC
 * elements: 256 beats of the 64-bit bus, plus the DRAM latency) adds to the GEMM's time. Both
 * end with the same ACC contents as fsim (run_pair compares every region). */
static void test_rtl_acc_load_in_the_other_bank_runs_beside_a_gemm(void **state) {
  (void)state;
  pair_result alone = run_pair(PAIR_GEMM_ONLY), beside = run_pair(PAIR_LOAD_BESIDE),
              padded = run_pair(PAIR_LOAD_PADDED);
  printf("rtl GEMM of %d micro-ops: alone %llu cycles, with a LOAD ACC of 32 entries in the "
         "other bank %llu, with the same LOAD padded %llu\n",
         PAIR_N, (unsigned long long)alone.cycles, (unsigned long long)beside.cycles,
         (unsigned long long)padded.cycles);
  assert_true(beside.cycles <= alone.cycles + 16);
  assert_true(padded.cycles >= alone.cycles + 256);
}

static void test_rtl_gemm_and_alu_that_can_interfere_run_in_turn(void **state) {
  pair_result alone = run_pair(PAIR_GEMM_ONLY), same = run_pair(PAIR_SAME_BANK),
              meets = run_pair(PAIR_VECTOR_MEETS);
  printf("rtl GEMM + ALU of %d micro-ops each, same bank: %llu cycles, ALU operand among the "
         "GEMM's results: %llu cycles (GEMM alone %llu)\n",
         PAIR_N, (unsigned long long)same.cycles, (unsigned long long)meets.cycles,
         (unsigned long long)alone.cycles);
  /* N + N: the ALU waits for the GEMM, and the units never both write. */
  assert_int_equal(same.dual, 0);
  assert_int_equal(meets.dual, 0);
  assert_true(same.cycles >= alone.cycles + PAIR_N);
  assert_true(meets.cycles >= alone.cycles + PAIR_N);
}

/* Random GEMM and ALU instructions over ACC areas on both sides of the bank boundary and one
 * across it, with kernels loaded one per LOAD UOP, two per LOAD UOP, and over earlier ones
 * (the footprint records are replaced and invalidated), loops, vector operands in either
 * bank, resets, LOAD ACC in between and compute no-ops; every ACC area is then dumped through
 * SHR and STORE and compared with fsim. The RTL asserts on every micro-op that it stays inside
 * the footprint its instruction was admitted with. */
enum { DI_AREAS = 4, DI_AREA = 64, DI_INP = 128, DI_WGT = 16, DI_KERNELS = 24, DI_UOPS = 6 };

typedef struct di_kernel {
  int live, alu, vec, reset;
  uint32_t bgn, n;                    /* micro-op entries */
  uint32_t io, ii, fo[3], fi[3];      /* loops: dst, src, wgt factors */
  vta_alu_op op;
  int32_t imm;
} di_kernel;

static uint32_t rnd_below(uint64_t *s, uint32_t n) { return (uint32_t)(fp_rand(s) % n); }

/* A kernel whose every index stays inside area `a` (destinations) and `b` (ALU operand). */
static void di_make(uint64_t *s, const uint32_t area[DI_AREAS], di_kernel *k, vta_uop *u) {
  k->alu = rnd_below(s, 2);
  k->vec = k->alu && rnd_below(s, 2);
  k->reset = !k->alu && rnd_below(s, 8) == 0;
  k->op = (vta_alu_op)rnd_below(s, VTA_ALU_COUNT);
  k->imm = (int32_t)rnd_below(s, 64) - 32;
  if (k->op == VTA_ALU_SHR) k->imm = (int32_t)rnd_below(s, 12) - 4;
  k->n = 1 + rnd_below(s, DI_UOPS);
  k->io = 1 + rnd_below(s, 8);
  k->ii = 1 + rnd_below(s, 16);
  /* Factors that keep each loop's span within 24 (6 for weights); 0 accumulates in place. */
  for (int f = 0; f < 3; f++) {
    uint32_t lim = f == 2 ? 6 : 24;
    k->fo[f] = rnd_below(s, 1 + lim / k->io);
    k->fi[f] = rnd_below(s, 1 + lim / k->ii);
  }
  uint32_t span_d = (k->io - 1) * k->fo[0] + (k->ii - 1) * k->fi[0];
  uint32_t span_s = (k->io - 1) * k->fo[1] + (k->ii - 1) * k->fi[1];
  uint32_t span_w = (k->io - 1) * k->fo[2] + (k->ii - 1) * k->fi[2];
  /* Destinations in either bank, now and then across the boundary (no usable footprint). */
  static const uint32_t pick[8] = {1, 0, 0, 0, 0, 2, 2, 3};
  uint32_t a = area[pick[rnd_below(s, 8)]], b = area[rnd_below(s, DI_AREAS)];
  uint32_t ssize = k->alu ? DI_AREA : DI_INP;
  for (uint32_t i = 0; i < k->n; i++) {
    u[i].dst = a + rnd_below(s, DI_AREA - span_d);
    u[i].src = (k->alu ? b : 0) + rnd_below(s, ssize - span_s);
    u[i].wgt = rnd_below(s, DI_WGT - span_w);
  }
}

static void test_rtl_dual_issue_random_programs_match_fsim(void **state) {
  rtl_pair p;
  vta_error err;
  if (rtl_pair_open(&p, DEFAULT_CFG, NULL, &err) != VTA_OK) fail_msg("%s", err.msg);
  const vta_config *c = &p.cfg;
  const uint32_t D = c->depth[VTA_MEM_ACC];
  /* Bank 0, the boundary, bank 1, the top of bank 1. */
  const uint32_t area[DI_AREAS] = {0, D / 2 - DI_AREA / 2, D / 2 + DI_AREA, D - DI_AREA};
  uint64_t inp = both_alloc(&p, (uint64_t)DI_INP * c->elem_bytes[VTA_MEM_INP], 41);
  uint64_t wgt = both_alloc(&p, (uint64_t)DI_WGT * c->elem_bytes[VTA_MEM_WGT], 42);
  uint64_t acc = both_alloc(&p, (uint64_t)DI_AREAS * DI_AREA * c->elem_bytes[VTA_MEM_ACC], 43);
  uint64_t out =
      both_alloc(&p, (uint64_t)4 * DI_AREAS * DI_AREA * c->elem_bytes[VTA_MEM_OUT], 0);
  uint64_t uops = both_alloc(&p, (uint64_t)2 * DI_KERNELS * DI_UOPS * 4, 0);
  uint32_t ue = (uint32_t)(uops / 4), ae = (uint32_t)(acc / c->elem_bytes[VTA_MEM_ACC]);
  uint32_t oe = (uint32_t)(out / c->elem_bytes[VTA_MEM_OUT]);
  /* The dump kernel: one micro-op at entry 0 of each area, at the end of the buffer. */
  const uint32_t dump = c->depth[VTA_MEM_UOP] - DI_AREAS;
  /* VTA_RTL_PROGRAMS, as for test_rtl_diff: `make regress` runs many more. */
  const char *env = getenv("VTA_RTL_PROGRAMS");
  uint64_t dual = 0, cycles = 0, programs = env && atoi(env) > 0 ? (uint64_t)atoi(env) : 40;
  for (uint64_t seed = 1; seed <= programs; seed++) {
    uint64_t s = seed * 0x9e3779b97f4a7c15ull;
    fsim_prog prog;
    fp_init(&prog, c);
    fp_load(&prog, VTA_MEM_INP, 0, (uint32_t)(inp / c->elem_bytes[VTA_MEM_INP]), 1, DI_INP,
            DI_INP, 0, 0, 0, 0, 0);
    fp_load(&prog, VTA_MEM_WGT, 0, (uint32_t)(wgt / c->elem_bytes[VTA_MEM_WGT]), 1, DI_WGT,
            DI_WGT, 0, 0, 0, 0, FP_PUSH_NEXT);
    for (int a = 0; a < DI_AREAS; a++)
      fp_load(&prog, (a + (int)seed) % 3 ? VTA_MEM_ACC : VTA_MEM_ACC_8BIT, area[a],
              (a + (int)seed) % 3 ? ae + (uint32_t)a * DI_AREA : ae * 4 + (uint32_t)a * DI_AREA,
              1, DI_AREA, DI_AREA, 0, 0, 0, 0, a == 0 ? FP_POP_PREV : 0);
    vta_uop dumpu[DI_AREAS];
    for (int a = 0; a < DI_AREAS; a++) dumpu[a] = (vta_uop){area[a], 0, 0};
    di_kernel k[DI_KERNELS];
    memset(k, 0, sizeof k);
    vta_uop all[2 * DI_KERNELS * DI_UOPS + DI_AREAS];
    uint32_t nall = 0, top = 0; /* DRAM micro-ops written; next free UOP entry */
    int nk = 0, last_alu = 0;
    uint32_t ninsn = 30 + rnd_below(&s, 20);
    for (uint32_t i = 0; i < ninsn; i++) {
      uint32_t what = rnd_below(&s, 16);
      int live = 0;
      for (int j = 0; j < nk; j++) live += k[j].live;
      if (nk < DI_KERNELS && (live == 0 || what < 4)) {
        /* New kernels: one, or two in one LOAD UOP; now and then over earlier ones. */
        int two = nk + 1 < DI_KERNELS && rnd_below(&s, 4) == 0;
        uint32_t at = rnd_below(&s, 6) == 0 && top > 4 ? rnd_below(&s, top - 2) : top;
        uint32_t first = nall, n = 0;
        for (int t = 0; t <= two; t++) {
          di_kernel *kk = &k[nk++];
          di_make(&s, area, kk, &all[nall]);
          kk->bgn = at + n;
          kk->live = 1;
          n += kk->n;
          nall += kk->n;
        }
        for (int j = 0; j < nk - 1 - two; j++)
          if (k[j].live && k[j].bgn < at + n && at < k[j].bgn + k[j].n) k[j].live = 0;
        fp_load(&prog, VTA_MEM_UOP, at, ue + first, 1, n, n, 0, 0, 0, 0, 0);
        if (at + n > top) top = at + n;
      } else if (what == 4) {
        /* LOAD ACC over part of an area (the units drain first). */
        uint32_t a = rnd_below(&s, DI_AREAS), n = 1 + rnd_below(&s, 8);
        fp_load(&prog, VTA_MEM_ACC, area[a] + rnd_below(&s, DI_AREA - n), ae + rnd_below(&s, 32),
                1, n, n, 0, 0, 0, 0, 0);
      } else if (what == 5) {
        fp_load(&prog, VTA_MEM_UOP, 0, ue, 1, 0, 0, 0, 0, 0, 0, 0); /* a compute no-op */
      } else {
        /* Mostly a kernel of the other unit than the previous run's, to give them overlap. */
        int j = (int)rnd_below(&s, (uint32_t)nk), want = rnd_below(&s, 4) ? !last_alu : -1;
        for (int t = 0; t < nk && !(k[j].live && (want < 0 || k[j].alu == want)); t++)
          j = (j + 1) % nk;
        while (!k[j].live) j = (j + 1) % nk;
        last_alu = k[j].alu;
        di_kernel *kk = &k[j];
        /* Now and then only part of the kernel's micro-ops. */
        uint32_t b = kk->bgn, e = kk->bgn + kk->n;
        if (kk->n > 1 && rnd_below(&s, 4) == 0) b += rnd_below(&s, kk->n - 1);
        if (kk->alu) {
          const uint32_t fo[2] = {kk->fo[0], kk->fo[1]}, fi[2] = {kk->fi[0], kk->fi[1]};
          fp_alu(&prog, kk->op, !kk->vec, kk->imm, b, e, kk->io, kk->ii, fo, fi, 0);
        } else {
          fp_gemm(&prog, kk->reset, b, e, kk->io, kk->ii, kk->fo, kk->fi, 0);
        }
      }
    }
    /* Dump: every area through SHR 0, 8, 8, 8 and STOREs. */
    for (int a = 0; a < DI_AREAS; a++) all[nall + (uint32_t)a] = dumpu[a];
    fp_load(&prog, VTA_MEM_UOP, dump, ue + nall, 1, DI_AREAS, DI_AREAS, 0, 0, 0, 0, 0);
    for (int pass = 0; pass < 4; pass++) {
      for (int a = 0; a < DI_AREAS; a++) {
        const uint32_t fo[2] = {1, 0};
        int flags = (pass && a == 0 ? FP_POP_NEXT : 0) | (a == DI_AREAS - 1 ? FP_PUSH_NEXT : 0);
        fp_alu(&prog, VTA_ALU_SHR, 1, pass ? 8 : 0, dump + (uint32_t)a, dump + (uint32_t)a + 1,
               DI_AREA, 1, fo, NULL, flags);
      }
      for (int a = 0; a < DI_AREAS; a++)
        fp_store(&prog, area[a], oe + (uint32_t)(pass * DI_AREAS + a) * DI_AREA, 1, DI_AREA,
                 DI_AREA, (a == 0 ? FP_POP_PREV : 0) | (a == DI_AREAS - 1 ? FP_PUSH_PREV : 0));
    }
    fp_gemm(&prog, 0, 0, 1, 0, 1, NULL, NULL, FP_POP_NEXT);
    fp_finish(&prog, 0);
    for (int m = 0; m < 2; m++) fp_uops(c, vta_mem_ptr(p.mem[m], uops), all, nall + DI_AREAS);
    uint64_t insn = both_commit(&p, &prog);
    uint32_t count = fp_count(&prog);
    fp_free(&prog);
    vta_stats st = run_both(&p, insn, count);
    assert_same(&p, out, (uint64_t)4 * DI_AREAS * DI_AREA * c->elem_bytes[VTA_MEM_OUT]);
    dual += vta_rtl_last_dual_cycles(p.rtl);
    cycles += st.cycles;
  }
  printf("rtl dual issue: %llu random programs, %llu cycles, %llu of them with both units "
         "writing\n",
         (unsigned long long)programs, (unsigned long long)cycles, (unsigned long long)dual);
  /* The programs do run GEMM and ALU instructions side by side. */
  assert_true(dual > 0);
  rtl_pair_close(&p);
}

static void test_rtl_missing_model_names_the_make_target(void **state) {
  vta_config cfg;
  vta_config_default(&cfg);
  vta_rtl_options o;
  vta_rtl_options_default(&cfg, &o);
  o.model_root = "/nonexistent/rtl-models";
  vta_mem *m;
  assert_int_equal(vta_mem_create(1 << 24, &m, NULL), VTA_OK);
  vta_rtl *r = NULL;
  vta_error err;
  assert_int_equal(vta_rtl_create(&cfg, m, &o, &r, &err), VTA_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.msg, "make rtl-model"));
  assert_non_null(strstr(err.msg, "/nonexistent/rtl-models/"));
  vta_mem_destroy(m);
}

static void test_rtl_options_reject_unknown_keys_and_bad_numbers(void **state) {
  vta_config cfg;
  vta_config_default(&cfg);
  vta_rtl_options o;
  vta_rtl_options_default(&cfg, &o);
  assert_int_equal(o.read_latency, (uint32_t)cfg.dram_latency);
  vta_error err;
  char good[] = "latency=40,bandwidth=4,wave=x.fst";
  assert_int_equal(vta_rtl_options_parse(good, &o, &err), VTA_OK);
  assert_int_equal(o.read_latency, 40);
  assert_int_equal(o.write_latency, 40);
  assert_int_equal(o.bytes_per_cycle, 4);
  assert_string_equal(o.wave_path, "x.fst");
  char bad_key[] = "lantency=4";
  assert_int_equal(vta_rtl_options_parse(bad_key, &o, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "lantency"));
  char bad_num[] = "latency=fast";
  assert_int_equal(vta_rtl_options_parse(bad_num, &o, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "fast"));
  assert_int_equal(o.asserts_off, 0);
  char asserts[] = "asserts=off";
  assert_int_equal(vta_rtl_options_parse(asserts, &o, &err), VTA_OK);
  assert_int_equal(o.asserts_off, 1);
  char asserts_on[] = "asserts=on";
  assert_int_equal(vta_rtl_options_parse(asserts_on, &o, &err), VTA_OK);
  assert_int_equal(o.asserts_off, 0);
  char bad_asserts[] = "asserts=maybe";
  assert_int_equal(vta_rtl_options_parse(bad_asserts, &o, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "maybe"));
}

/* A store that waits for a token nobody pushes: fsim finds the deadlock, the RTL hangs and the
 * watchdog turns that into a timeout that says which modules were still busy. */
static void test_rtl_hung_program_times_out_with_module_states(void **state) {
  rtl_pair p;
  vta_error err;
  if (rtl_pair_open(&p, DEFAULT_CFG, NULL, &err) != VTA_OK) fail_msg("%s", err.msg);
  uint64_t out = both_alloc(&p, 4096, 0);
  fsim_prog prog;
  fp_init(&prog, &p.cfg);
  fp_store(&prog, 0, (uint32_t)(out / p.cfg.elem_bytes[VTA_MEM_OUT]), 1, 4, 4, FP_POP_PREV);
  fp_finish(&prog, 0);
  uint64_t insn = both_commit(&p, &prog);
  assert_int_equal(vta_fsim_run(p.fsim, insn, fp_count(&prog), 0, NULL, &err), VTA_ERR_DEADLOCK);
  assert_int_equal(vta_rtl_run(p.rtl, insn, fp_count(&prog), 5000, NULL, &err), VTA_ERR_TIMEOUT);
  assert_non_null(strstr(err.msg, "5000 cycles"));
  assert_non_null(strstr(err.msg, "store"));
  /* The model is usable again after the timeout (it is reset). */
  fsim_prog ok;
  fp_init(&ok, &p.cfg);
  fp_finish(&ok, 0);
  uint64_t insn2 = both_commit(&p, &ok);
  assert_int_equal(vta_rtl_run(p.rtl, insn2, 1, 0, NULL, &err), VTA_OK);
  fp_free(&prog);
  fp_free(&ok);
  rtl_pair_close(&p);
}

static void test_rtl_bad_streams_are_refused_naming_the_instruction(void **state) {
  rtl_pair p;
  vta_error err;
  if (rtl_pair_open(&p, DEFAULT_CFG, NULL, &err) != VTA_OK) fail_msg("%s", err.msg);
  uint64_t data = both_alloc(&p, 4096, 0);
  fsim_prog prog;
  fp_init(&prog, &p.cfg);
  /* 300 INP elements of 16 bytes from a 4096-byte allocation. */
  fp_load(&prog, VTA_MEM_INP, 0, (uint32_t)(data / 16), 1, 300, 300, 0, 0, 0, 0, 0);
  fp_finish(&prog, 0);
  uint64_t insn = both_commit(&p, &prog);
  assert_int_equal(vta_rtl_run(p.rtl, insn, fp_count(&prog), 0, NULL, &err), VTA_ERR_BOUNDS);
  assert_non_null(strstr(err.msg, "instruction 0"));
  assert_non_null(strstr(err.msg, "outside the allocated device memory"));
  /* No FINISH at the end. */
  assert_int_equal(vta_rtl_run(p.rtl, insn, 1, 0, NULL, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "FINISH"));
  assert_int_equal(vta_rtl_run(p.rtl, insn, 0, 0, NULL, &err), VTA_ERR_INVALID);
  fp_free(&prog);
  rtl_pair_close(&p);
}

static void test_rtl_waveform_is_written_on_request(void **state) {
  char path[] = "/tmp/vta-rtl-wave-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  rtl_pair p;
  vta_error err;
  vta_config cfg;
  vta_config_load(&cfg, DEFAULT_CFG, NULL);
  vta_rtl_options o;
  vta_rtl_options_default(&cfg, &o);
  o.wave_path = path;
  if (rtl_pair_open(&p, DEFAULT_CFG, &o, &err) != VTA_OK) fail_msg("%s", err.msg);
  fsim_prog prog;
  fp_init(&prog, &p.cfg);
  fp_finish(&prog, 0);
  uint64_t insn = both_commit(&p, &prog);
  assert_int_equal(vta_rtl_run(p.rtl, insn, 1, 0, NULL, &err), VTA_OK);
  fp_free(&prog);
  rtl_pair_close(&p); /* closes the file */
  struct stat sb;
  assert_int_equal(stat(path, &sb), 0);
  assert_true(sb.st_size > 100);
  unlink(path);
}

/* The backend through the device interface, on a second configuration in the same process. */
static void test_rtl_backend_runs_through_the_device_interface(void **state) {
  vta_config cfg;
  vta_error err;
  assert_int_equal(vta_config_load(&cfg, "sim/rtl/configs/rtl_wide.json", &err), VTA_OK);
  assert_non_null(vta_backend_find("rtl"));
  vta_device *dev;
  if (vta_device_open("rtl", &cfg, "latency=3", &dev, &err) != VTA_OK) fail_msg("%s", err.msg);
  uint64_t insn;
  assert_int_equal(vta_device_alloc(dev, 16, &insn, &err), VTA_OK);
  fsim_prog prog;
  fp_init(&prog, &cfg);
  fp_finish(&prog, 0);
  uint8_t word[16];
  vta_insn_word_store(&prog.words[0], word);
  assert_int_equal(vta_device_copy_to(dev, insn, word, 16, &err), VTA_OK);
  vta_stats st;
  memset(&st, 0, sizeof st);
  assert_int_equal(vta_device_run(dev, insn, 1, 0, &st, &err), VTA_OK);
  assert_int_equal(st.insns, 1);
  assert_true(st.cycles > 0 && st.cycles < 200);
  fp_free(&prog);
  vta_device_close(dev);
  assert_int_equal(vta_device_open("rtl", &cfg, "bogus", &dev, &err), VTA_ERR_INVALID);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rtl_gemm_blocked_compute_bound_reaches_90_percent),
      cmocka_unit_test(test_rtl_gemm_small_loads_hide_memory_latency),
      cmocka_unit_test(test_rtl_alu_vector_and_immediate_one_uop_per_cycle),
      cmocka_unit_test(test_rtl_asserts_off_runs_the_same_cycles),
      cmocka_unit_test(test_rtl_back_to_back_same_element_matches_fsim),
      cmocka_unit_test(test_rtl_gemm_and_alu_in_different_banks_run_together),
    cmocka_unit_test(test_rtl_acc_load_in_the_other_bank_runs_beside_a_gemm),
      cmocka_unit_test(test_rtl_gemm_and_alu_that_can_interfere_run_in_turn),
      cmocka_unit_test(test_rtl_dual_issue_random_programs_match_fsim),
      cmocka_unit_test(test_rtl_missing_model_names_the_make_target),
      cmocka_unit_test(test_rtl_options_reject_unknown_keys_and_bad_numbers),
      cmocka_unit_test(test_rtl_hung_program_times_out_with_module_states),
      cmocka_unit_test(test_rtl_bad_streams_are_refused_naming_the_instruction),
      cmocka_unit_test(test_rtl_waveform_is_written_on_request),
      cmocka_unit_test(test_rtl_backend_runs_through_the_device_interface),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
