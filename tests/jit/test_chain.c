/* test_chain.c - chained replay (jit/chain.c): which loads of a program go into the stream of
 * the program before it (hoisting). A load into entries neither program touched before, from
 * a buffer no store may still be writing, goes where the previous program's load module waits
 * for its GEMMs; one that reads the previous program's output, or overwrites entries it
 * reads, stays; none goes where the previous program leaves its load module no time. Chained
 * outputs equal those of separate runs. */
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
#include "vta/jit.h"
#include "vta/program.h"

#define L VTA_JIT_STAGE_LOAD
#define C VTA_JIT_STAGE_COMPUTE
#define S VTA_JIT_STAGE_STORE

static void ok(int rc, const vta_error *err) {
  if (rc) fprintf(stderr, "%s\n", err->msg);
  assert_int_equal(rc, VTA_OK);
}

static vta_prog_xfer xfer(vta_mem_type type, vta_prog_buf buf, uint32_t sram, uint32_t n) {
  vta_prog_xfer x = {.type = type, .buf = buf, .sram = sram, .x_size = n, .y_size = 1,
                     .x_stride = n};
  return x;
}

/* A: six double-buffered steps, each loading one INP and one WGT element into slot t % 2 and
 * accumulating their product `extent` x 8 times into ACC 0; then its output element. */
static vta_program *program_a(const vta_config *cfg, uint32_t extent) {
  vta_program *p;
  vta_error err;
  ok(vta_program_create(cfg, &p, &err), &err);
  vta_uop r = {0, 0, 0}, g0 = {0, 0, 0}, g1 = {0, 1, 1};
  vta_prog_kernel reset = {.mode = VTA_JIT_GEMM, .reset = 1, .nuops = 1, .uops = &r};
  vta_prog_kernel k0 = {.mode = VTA_JIT_GEMM, .nloops = 2, .loop = {{extent, 0, 0, 0}, {8, 0, 0, 0}},
                        .nuops = 1, .uops = &g0};
  vta_prog_kernel k1 = k0;
  k1.uops = &g1;
  uint32_t kr, kk[2];
  ok(vta_program_add_kernel(p, &reset, &kr, &err), &err);
  ok(vta_program_add_kernel(p, &k0, &kk[0], &err), &err);
  ok(vta_program_add_kernel(p, &k1, &kk[1], &err), &err);
  for (uint32_t t = 0; t < 6; t++) {
    if (t >= 2) ok(vta_program_add_pop(p, C, L, &err), &err);
    vta_prog_xfer in = xfer(VTA_MEM_INP, VTA_PROG_BUF_INPUT, t % 2, 1);
    vta_prog_xfer w = xfer(VTA_MEM_WGT, VTA_PROG_BUF_WEIGHT, t % 2, 1);
    in.offset = w.offset = t;
    ok(vta_program_add_load(p, &in, &err), &err);
    ok(vta_program_add_load(p, &w, &err), &err);
    ok(vta_program_add_push(p, L, C, &err), &err);
    ok(vta_program_add_pop(p, L, C, &err), &err);
    if (t == 0) ok(vta_program_add_run(p, kr, &err), &err);
    ok(vta_program_add_run(p, kk[t % 2], &err), &err);
    if (t + 2 < 6) ok(vta_program_add_push(p, C, L, &err), &err);
  }
  ok(vta_program_add_push(p, C, S, &err), &err);
  ok(vta_program_add_pop(p, C, S, &err), &err);
  vta_prog_xfer out = xfer(VTA_MEM_OUT, VTA_PROG_BUF_OUTPUT, 0, 1);
  ok(vta_program_add_store(p, &out, &err), &err);
  ok(vta_program_add_sync(p, &err), &err);
  return p;
}

/* B: loads WGT 100 (fresh), INP 50 from its input (A's output, so dirty), INP 0 (A's slot) and
 * INP 60 from its second input (fresh, clean); ACC i = INP {50, 0, 60}[i] x WGT 100; stores
 * the three elements. */
static vta_program *program_b(const vta_config *cfg) {
  vta_program *p;
  vta_error err;
  ok(vta_program_create(cfg, &p, &err), &err);
  vta_uop r[3] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}};
  vta_uop g[3] = {{0, 50, 100}, {1, 0, 100}, {2, 60, 100}};
  vta_prog_kernel reset = {.mode = VTA_JIT_GEMM, .reset = 1, .nuops = 3, .uops = r};
  vta_prog_kernel gemm = {.mode = VTA_JIT_GEMM, .nuops = 3, .uops = g};
  uint32_t kr, kg;
  ok(vta_program_add_kernel(p, &reset, &kr, &err), &err);
  ok(vta_program_add_kernel(p, &gemm, &kg, &err), &err);
  vta_prog_xfer x[4] = {xfer(VTA_MEM_WGT, VTA_PROG_BUF_WEIGHT, 100, 1),
                        xfer(VTA_MEM_INP, VTA_PROG_BUF_INPUT, 50, 1),
                        xfer(VTA_MEM_INP, VTA_PROG_BUF_INPUT2, 0, 1),
                        xfer(VTA_MEM_INP, VTA_PROG_BUF_INPUT2, 60, 1)};
  x[3].offset = 1;
  for (int i = 0; i < 4; i++) ok(vta_program_add_load(p, &x[i], &err), &err);
  ok(vta_program_add_push(p, L, C, &err), &err);
  ok(vta_program_add_pop(p, L, C, &err), &err);
  ok(vta_program_add_run(p, kr, &err), &err);
  ok(vta_program_add_run(p, kg, &err), &err);
  ok(vta_program_add_push(p, C, S, &err), &err);
  ok(vta_program_add_pop(p, C, S, &err), &err);
  vta_prog_xfer out = xfer(VTA_MEM_OUT, VTA_PROG_BUF_OUTPUT, 0, 3);
  ok(vta_program_add_store(p, &out, &err), &err);
  ok(vta_program_add_sync(p, &err), &err);
  return p;
}

typedef struct run_out {
  int8_t a[16], b[48];
  vta_prog_chain_info ci;
  uint64_t cycles;
} run_out;

/* A then B on a backend, chained or as two runs; A's output is B's input. */
static void run_ab(const char *backend, uint32_t extent, int chained, run_out *o) {
  vta_config cfg;
  vta_config_default(&cfg);
  vta_device *dev;
  vta_jit *jit;
  vta_error err;
  ok(vta_device_open(backend, &cfg, NULL, &dev, &err), &err);
  ok(vta_jit_create(dev, NULL, &jit, &err), &err);
  vta_program *a = program_a(&cfg, extent), *b = program_b(&cfg);
  uint64_t bufs[5]; /* A's input and weights, A's output, B's weights and second input */
  uint64_t sizes[5] = {6 * 16, 6 * 256, 16, 256, 2 * 16}, out_b;
  for (int i = 0; i < 5; i++) {
    ok(vta_device_alloc(dev, sizes[i] < 64 ? 64 : sizes[i], &bufs[i], &err), &err);
    uint8_t *v = malloc(sizes[i]);
    assert_non_null(v);
    for (uint64_t k = 0; k < sizes[i]; k++) v[k] = (uint8_t)(k * 37 + i * 11 + 5);
    ok(vta_device_copy_to(dev, bufs[i], v, sizes[i], &err), &err);
    free(v);
  }
  ok(vta_device_alloc(dev, 64, &out_b, &err), &err);
  uint64_t pa[VTA_PROG_BUF_COUNT] = {0}, pb[VTA_PROG_BUF_COUNT] = {0};
  pa[VTA_PROG_BUF_INPUT] = bufs[0];
  pa[VTA_PROG_BUF_WEIGHT] = bufs[1];
  pa[VTA_PROG_BUF_OUTPUT] = bufs[2];
  pb[VTA_PROG_BUF_INPUT] = bufs[2];
  pb[VTA_PROG_BUF_WEIGHT] = bufs[3];
  pb[VTA_PROG_BUF_INPUT2] = bufs[4];
  pb[VTA_PROG_BUF_OUTPUT] = out_b;
  vta_stats st;
  memset(&st, 0, sizeof st);
  memset(o, 0, sizeof *o);
  if (chained) {
    vta_prog_chain_item it[2] = {{a, pa}, {b, pb}};
    ok(vta_program_run_chain(jit, it, 2, &st, &o->ci, &err), &err);
  } else {
    ok(vta_program_run(jit, a, pa, &st, &err), &err);
    ok(vta_program_run(jit, b, pb, &st, &err), &err);
  }
  o->cycles = st.cycles;
  ok(vta_device_copy_from(dev, o->a, bufs[2], sizeof o->a, &err), &err);
  ok(vta_device_copy_from(dev, o->b, out_b, sizeof o->b, &err), &err);
  for (int i = 0; i < 5; i++) vta_device_free(dev, bufs[i]);
  vta_device_free(dev, out_b);
  vta_program_destroy(a);
  vta_program_destroy(b);
  vta_jit_destroy(jit);
  vta_device_close(dev);
}

static void check(const char *backend) {
  run_out ch, sep;
  run_ab(backend, 64, 1, &ch);
  run_ab(backend, 64, 0, &sep);
  /* WGT 100 and INP 60 go into A's stream; INP 50 reads A's output, INP 0 is A's slot. */
  assert_int_equal(ch.ci.hoisted_loads, 2);
  assert_int_equal(ch.ci.barriers, 1);
  assert_memory_equal(ch.a, sep.a, sizeof ch.a);
  assert_memory_equal(ch.b, sep.b, sizeof ch.b);
  /* The product of each element with WGT 100 is not zero, so a load out of place shows. */
  int nonzero = 0;
  for (size_t i = 0; i < sizeof ch.b; i++) nonzero |= ch.b[i] != 0;
  assert_true(nonzero);
  if (ch.cycles) {
    fprintf(stderr, "%s: chained %llu cycles, separate %llu\n", backend,
            (unsigned long long)ch.cycles, (unsigned long long)sep.cycles);
    assert_true(ch.cycles < sep.cycles);
  }
}

static void test_chain_hoists_fresh_clean_loads_fsim(void **state) {
  (void)state;
  check("fsim");
}

static void test_chain_hoists_fresh_clean_loads_sc(void **state) {
  (void)state;
  check("sc");
}

static void test_chain_hoists_fresh_clean_loads_rtl(void **state) {
  (void)state;
  check("rtl");
}

/* A's GEMMs of one micro-op leave its load module no time to wait: nothing is hoisted. */
static void test_chain_hoists_nothing_without_room(void **state) {
  (void)state;
  run_out ch, sep;
  run_ab("fsim", 1, 1, &ch);
  run_ab("fsim", 1, 0, &sep);
  assert_int_equal(ch.ci.hoisted_loads, 0);
  assert_memory_equal(ch.b, sep.b, sizeof ch.b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_chain_hoists_fresh_clean_loads_fsim),
      cmocka_unit_test(test_chain_hoists_fresh_clean_loads_sc),
      cmocka_unit_test(test_chain_hoists_fresh_clean_loads_rtl),
      cmocka_unit_test(test_chain_hoists_nothing_without_room),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
