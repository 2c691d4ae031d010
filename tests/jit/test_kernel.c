/* test_kernel.c - micro-op kernels: loops map to the GEMM/ALU iteration fields as the published
 * runtime does, the cache finds a kernel by call site and signature, a resident kernel is not
 * loaded again, a full micro-op buffer evicts (ring order), the staging area overflowing
 * synchronises, and bad kernels are refused with a reason. */
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

typedef struct fixture {
  vta_config cfg;
  vta_device *dev;
  vta_jit *jit;
} fixture;

static int open_fixture(void **state, const char *config, const vta_jit_options *opt) {
  fixture *f = calloc(1, sizeof *f);
  vta_error err;
  if (config) {
    if (vta_config_load(&f->cfg, config, &err)) return -1;
  } else {
    vta_config_default(&f->cfg);
  }
  if (vta_device_open("fsim", &f->cfg, NULL, &f->dev, &err)) return -1;
  if (vta_jit_create(f->dev, opt, &f->jit, &err)) return -1;
  *state = f;
  return 0;
}

static int setup(void **state) { return open_fixture(state, NULL, NULL); }
/* configs/small.json: a 1024-entry micro-op buffer. */
static int setup_small(void **state) { return open_fixture(state, "configs/small.json", NULL); }
/* Staging for 64 micro-ops only. */
static int setup_tiny_staging(void **state) {
  vta_jit_options o = {.max_uop_bytes = 64 * 4};
  return open_fixture(state, NULL, &o);
}

static int teardown(void **state) {
  fixture *f = *state;
  vta_jit_destroy(f->jit);
  vta_device_close(f->dev);
  free(f);
  return 0;
}

static size_t decode(fixture *f, vta_insn *out, size_t max) {
  const vta_insn_word *w;
  size_t n;
  vta_jit_stream(f->jit, &w, &n);
  assert_true(n <= max);
  for (size_t i = 0; i < n; i++) {
    vta_error err;
    assert_int_equal(vta_insn_decode(&f->cfg, &w[i], &out[i], &err), VTA_OK);
  }
  return n;
}

/* A GEMM kernel of n micro-ops (dst, src, wgt = i mod 32, inside every buffer of every
 * configuration used here) with the given loops. */
static vta_jit_kernel *gemm_kernel(fixture *f, int id, uint32_t n, int nloops,
                                   const uint32_t loops[][4]) {
  vta_error err;
  vta_jit_kernel *k;
  assert_int_equal(vta_jit_kernel_begin(f->jit, &gemm_kernel, &id, sizeof id, &k, &err), VTA_OK);
  for (int l = 0; l < nloops; l++)
    assert_int_equal(vta_jit_kernel_loop_begin(k, loops[l][0], loops[l][1], loops[l][2],
                                               loops[l][3], &err),
                     VTA_OK);
  for (uint32_t i = 0; i < n; i++)
    assert_int_equal(
        vta_jit_kernel_uop(
            k, &(vta_jit_uop){.mode = VTA_JIT_GEMM, .dst = i % 32, .src = i % 32, .wgt = i % 32},
            &err),
        VTA_OK);
  for (int l = 0; l < nloops; l++) assert_int_equal(vta_jit_kernel_loop_end(k, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_end(k, &err), VTA_OK);
  return k;
}

static vta_jit_kernel *alu_kernel(fixture *f, int id, int nloops, const uint32_t loops[][4]) {
  vta_error err;
  vta_jit_kernel *k;
  assert_int_equal(vta_jit_kernel_begin(f->jit, &alu_kernel, &id, sizeof id, &k, &err), VTA_OK);
  for (int l = 0; l < nloops; l++)
    assert_int_equal(vta_jit_kernel_loop_begin(k, loops[l][0], loops[l][1], loops[l][2],
                                               loops[l][3], &err),
                     VTA_OK);
  vta_jit_uop u = {.mode = VTA_JIT_ALU, .dst = 1, .src = 2, .alu_op = VTA_ALU_SHR,
                   .use_imm = 1, .imm = -3};
  assert_int_equal(vta_jit_kernel_uop(k, &u, &err), VTA_OK);
  for (int l = 0; l < nloops; l++) assert_int_equal(vta_jit_kernel_loop_end(k, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_end(k, &err), VTA_OK);
  return k;
}

static void test_kernel_gemm_maps_loops_to_iter_out_then_in(void **state) {
  fixture *f = *state;
  vta_error err;
  const uint32_t loops[2][4] = {{3, 10, 20, 30}, {5, 1, 2, 3}};
  vta_jit_kernel *k = gemm_kernel(f, 0, 4, 2, loops);
  assert_int_equal(vta_jit_push_kernel(f->jit, k, &err), VTA_OK);
  vta_insn in[4];
  assert_int_equal(decode(f, in, 4), 2);
  /* LOAD UOP of the 4 micro-ops into buffer entry 0. */
  assert_int_equal(in[0].f[VTA_F_OPCODE], VTA_OP_LOAD);
  assert_int_equal(in[0].f[VTA_F_MEMORY_TYPE], VTA_MEM_UOP);
  assert_int_equal(in[0].f[VTA_F_SRAM_BASE], 0);
  assert_int_equal(in[0].f[VTA_F_X_SIZE], 4);
  assert_int_equal(in[0].f[VTA_F_Y_SIZE], 1);
  const vta_insn *g = &in[1];
  assert_int_equal(g->f[VTA_F_OPCODE], VTA_OP_GEMM);
  assert_int_equal(g->f[VTA_F_UOP_BGN], 0);
  assert_int_equal(g->f[VTA_F_UOP_END], 4);
  assert_int_equal(g->f[VTA_F_ITER_OUT], 3);
  assert_int_equal(g->f[VTA_F_DST_FACTOR_OUT], 10);
  assert_int_equal(g->f[VTA_F_SRC_FACTOR_OUT], 20);
  assert_int_equal(g->f[VTA_F_WGT_FACTOR_OUT], 30);
  assert_int_equal(g->f[VTA_F_ITER_IN], 5);
  assert_int_equal(g->f[VTA_F_DST_FACTOR_IN], 1);
  assert_int_equal(g->f[VTA_F_SRC_FACTOR_IN], 2);
  assert_int_equal(g->f[VTA_F_WGT_FACTOR_IN], 3);
  assert_int_equal(g->f[VTA_F_RESET_REG], 0);
  /* The staged micro-ops decode to what was pushed. */
  const uint32_t *u;
  size_t nu;
  vta_jit_staged_uops(f->jit, &u, &nu);
  assert_int_equal(nu, 4);
  for (uint32_t i = 0; i < 4; i++) {
    vta_uop d;
    vta_uop_decode(&f->cfg, u[i], &d);
    assert_int_equal(d.dst, i);
    assert_int_equal(d.src, i);
    assert_int_equal(d.wgt, i); /* i < 32 */
  }
  /* After finishing, the LOAD UOP points at the device's micro-op buffer. */
  assert_int_equal(vta_jit_finish(f->jit, &err), VTA_OK);
  vta_insn fin[16];
  decode(f, fin, 16);
  assert_true(fin[0].f[VTA_F_DRAM_BASE] > 0);
  uint8_t *dev = vta_device_host_ptr(f->dev, (uint64_t)fin[0].f[VTA_F_DRAM_BASE] * 4);
  assert_int_equal(dev[0] | dev[1] << 8 | dev[2] << 16 | (uint32_t)dev[3] << 24, 0);
  assert_int_equal(vta_jit_sync(f->jit, 0, NULL, &err), VTA_OK);
}

static void test_kernel_gemm_one_loop_is_iter_out(void **state) {
  fixture *f = *state;
  vta_error err;
  const uint32_t loops[1][4] = {{7, 1, 1, 1}};
  vta_jit_kernel *k = gemm_kernel(f, 1, 1, 1, loops);
  assert_int_equal(vta_jit_push_kernel(f->jit, k, &err), VTA_OK);
  vta_insn in[4];
  assert_int_equal(decode(f, in, 4), 2);
  assert_int_equal(in[1].f[VTA_F_ITER_OUT], 7);
  assert_int_equal(in[1].f[VTA_F_ITER_IN], 1);
  assert_int_equal(in[1].f[VTA_F_DST_FACTOR_IN], 0);
}

static void test_kernel_alu_one_loop_is_iter_in(void **state) {
  fixture *f = *state;
  vta_error err;
  const uint32_t one[1][4] = {{9, 1, 2, 0}};
  const uint32_t two[2][4] = {{4, 16, 8, 0}, {9, 1, 2, 0}};
  vta_jit_kernel *k1 = alu_kernel(f, 0, 1, one);
  vta_jit_kernel *k2 = alu_kernel(f, 1, 2, two);
  assert_int_equal(vta_jit_push_kernel(f->jit, k1, &err), VTA_OK);
  assert_int_equal(vta_jit_push_kernel(f->jit, k2, &err), VTA_OK);
  vta_insn in[8];
  assert_int_equal(decode(f, in, 8), 4);
  const vta_insn *a = &in[1], *b = &in[3];
  assert_int_equal(a->f[VTA_F_OPCODE], VTA_OP_ALU);
  assert_int_equal(a->f[VTA_F_ITER_OUT], 1);
  assert_int_equal(a->f[VTA_F_ITER_IN], 9);
  assert_int_equal(a->f[VTA_F_DST_FACTOR_IN], 1);
  assert_int_equal(a->f[VTA_F_SRC_FACTOR_IN], 2);
  assert_int_equal(a->f[VTA_F_ALU_OPCODE], VTA_ALU_SHR);
  assert_int_equal(a->f[VTA_F_USE_IMM], 1);
  assert_int_equal(a->f[VTA_F_IMM], -3);
  assert_int_equal(b->f[VTA_F_ITER_OUT], 4);
  assert_int_equal(b->f[VTA_F_DST_FACTOR_OUT], 16);
  assert_int_equal(b->f[VTA_F_SRC_FACTOR_OUT], 8);
  assert_int_equal(b->f[VTA_F_ITER_IN], 9);
  /* The second kernel follows the first in the micro-op buffer. */
  assert_int_equal(b->f[VTA_F_UOP_BGN], 1);
  assert_int_equal(b->f[VTA_F_UOP_END], 2);
}

static void test_kernel_cache_finds_by_site_and_signature(void **state) {
  fixture *f = *state;
  vta_error err;
  vta_jit_kernel *k = gemm_kernel(f, 42, 1, 0, NULL);
  int id = 42, other = 43;
  assert_ptr_equal(vta_jit_kernel_find(f->jit, &gemm_kernel, &id, sizeof id), k);
  assert_null(vta_jit_kernel_find(f->jit, &gemm_kernel, &other, sizeof other));
  assert_null(vta_jit_kernel_find(f->jit, &alu_kernel, &id, sizeof id));
  assert_null(vta_jit_kernel_find(f->jit, &gemm_kernel, &id, 2));
  /* Recording the same key twice is refused. */
  vta_jit_kernel *dup;
  assert_int_equal(vta_jit_kernel_begin(f->jit, &gemm_kernel, &id, sizeof id, &dup, &err),
                   VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "already recorded"));
  /* Many kernels: the table grows and still finds every one. */
  for (int i = 100; i < 400; i++) gemm_kernel(f, i, 1, 0, NULL);
  for (int i = 100; i < 400; i++)
    assert_non_null(vta_jit_kernel_find(f->jit, &gemm_kernel, &i, sizeof i));
  assert_int_equal(vta_jit_get_counters(f->jit)->kernels, 301);
}

static void test_kernel_resident_kernel_is_not_loaded_again(void **state) {
  fixture *f = *state;
  vta_error err;
  vta_jit_kernel *k = gemm_kernel(f, 0, 3, 0, NULL);
  for (int i = 0; i < 5; i++) assert_int_equal(vta_jit_push_kernel(f->jit, k, &err), VTA_OK);
  vta_insn in[8];
  assert_int_equal(decode(f, in, 8), 6); /* one LOAD UOP, five GEMMs */
  assert_int_equal(in[0].f[VTA_F_MEMORY_TYPE], VTA_MEM_UOP);
  for (int i = 1; i < 6; i++) assert_int_equal(in[i].f[VTA_F_OPCODE], VTA_OP_GEMM);
  const vta_jit_counters *c = vta_jit_get_counters(f->jit);
  assert_int_equal(c->kernel_misses, 1);
  assert_int_equal(c->kernel_hits, 4);
  assert_int_equal(c->uops_loaded, 3);
  /* A new stream cannot trust the buffer: the kernel is loaded again after a sync. */
  assert_int_equal(vta_jit_sync(f->jit, 0, NULL, &err), VTA_OK);
  assert_false(vta_jit_kernel_resident(k, NULL, NULL));
  assert_int_equal(vta_jit_push_kernel(f->jit, k, &err), VTA_OK);
  assert_int_equal(decode(f, in, 8), 2);
  assert_int_equal(in[0].f[VTA_F_MEMORY_TYPE], VTA_MEM_UOP);
}

static void test_kernel_full_buffer_evicts_in_ring_order(void **state) {
  fixture *f = *state; /* 1024 micro-op entries */
  vta_error err;
  assert_int_equal(f->cfg.depth[VTA_MEM_UOP], 1024);
  vta_jit_kernel *a = gemm_kernel(f, 1, 300, 0, NULL);
  vta_jit_kernel *b = gemm_kernel(f, 2, 300, 0, NULL);
  vta_jit_kernel *c = gemm_kernel(f, 3, 300, 0, NULL);
  vta_jit_kernel *d = gemm_kernel(f, 4, 300, 0, NULL);
  uint32_t bg, en;
  assert_int_equal(vta_jit_push_kernel(f->jit, a, &err), VTA_OK);
  assert_int_equal(vta_jit_push_kernel(f->jit, b, &err), VTA_OK);
  assert_int_equal(vta_jit_push_kernel(f->jit, c, &err), VTA_OK);
  assert_true(vta_jit_kernel_resident(c, &bg, &en));
  assert_int_equal(bg, 600);
  assert_int_equal(en, 900);
  /* d does not fit in [900, 1024): it wraps to 0 and evicts a only. */
  assert_int_equal(vta_jit_push_kernel(f->jit, d, &err), VTA_OK);
  assert_true(vta_jit_kernel_resident(d, &bg, &en));
  assert_int_equal(bg, 0);
  assert_false(vta_jit_kernel_resident(a, NULL, NULL));
  assert_true(vta_jit_kernel_resident(b, NULL, NULL));
  assert_true(vta_jit_kernel_resident(c, NULL, NULL));
  assert_int_equal(vta_jit_get_counters(f->jit)->evictions, 1);
  /* b is still resident: no load. a comes back at [300, 600), evicting b. */
  assert_int_equal(vta_jit_push_kernel(f->jit, b, &err), VTA_OK);
  assert_int_equal(vta_jit_push_kernel(f->jit, a, &err), VTA_OK);
  assert_true(vta_jit_kernel_resident(a, &bg, &en));
  assert_int_equal(bg, 300);
  assert_false(vta_jit_kernel_resident(b, NULL, NULL));
  assert_true(vta_jit_kernel_resident(c, NULL, NULL));
  const vta_jit_counters *cn = vta_jit_get_counters(f->jit);
  assert_int_equal(cn->evictions, 2);
  assert_int_equal(cn->kernel_hits, 1);
  assert_int_equal(cn->kernel_misses, 5);
  /* a's micro-ops were staged once: the reload points at the same place. */
  const uint32_t *u;
  size_t nu;
  vta_jit_staged_uops(f->jit, &u, &nu);
  assert_int_equal(nu, 1200);
  vta_insn in[16];
  size_t n = decode(f, in, 16);
  assert_int_equal(n, 11);
  assert_int_equal(in[0].f[VTA_F_DRAM_BASE], in[9].f[VTA_F_DRAM_BASE]);
  assert_int_equal(in[9].f[VTA_F_SRAM_BASE], 300);
  /* And the stream runs. */
  assert_int_equal(vta_jit_sync(f->jit, 0, NULL, &err), VTA_OK);
}

static void test_kernel_staging_overflow_synchronises(void **state) {
  fixture *f = *state; /* staging holds 64 micro-ops */
  vta_error err;
  vta_jit_kernel *a = gemm_kernel(f, 1, 40, 0, NULL);
  vta_jit_kernel *b = gemm_kernel(f, 2, 40, 0, NULL);
  assert_int_equal(vta_jit_push_kernel(f->jit, a, &err), VTA_OK);
  assert_int_equal(vta_jit_get_counters(f->jit)->auto_syncs, 0);
  assert_int_equal(vta_jit_push_kernel(f->jit, b, &err), VTA_OK);
  const vta_jit_counters *c = vta_jit_get_counters(f->jit);
  assert_int_equal(c->auto_syncs, 1);
  assert_int_equal(c->syncs, 1);
  const uint32_t *u;
  size_t nu;
  vta_jit_staged_uops(f->jit, &u, &nu);
  assert_int_equal(nu, 40);
  /* A kernel larger than the staging area is refused when it is ended. */
  vta_jit_kernel *k;
  int id = 9;
  assert_int_equal(vta_jit_kernel_begin(f->jit, &f, &id, sizeof id, &k, &err), VTA_OK);
  for (uint32_t i = 0; i < 65; i++)
    assert_int_equal(vta_jit_kernel_uop(k, &(vta_jit_uop){.mode = VTA_JIT_GEMM, .dst = i}, &err),
                     VTA_OK);
  assert_int_equal(vta_jit_kernel_end(k, &err), VTA_ERR_BOUNDS);
  assert_non_null(strstr(err.msg, "kernel of 65 micro-ops exceeds 64"));
  assert_int_equal(vta_jit_sync(f->jit, 0, NULL, &err), VTA_OK);
}

static void test_kernel_bad_recordings_are_refused(void **state) {
  fixture *f = *state;
  vta_error err;
  vta_jit_kernel *k;
  int id = 0;
  vta_jit_uop g = {.mode = VTA_JIT_GEMM};
  /* Loop after a micro-op. */
  assert_int_equal(vta_jit_kernel_begin(f->jit, &id, NULL, 0, &k, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_uop(k, &g, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_loop_begin(k, 2, 1, 1, 1, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "before its first micro-op"));
  vta_jit_kernel_discard(k);
  /* Three loops. */
  assert_int_equal(vta_jit_kernel_begin(f->jit, &id, NULL, 0, &k, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_loop_begin(k, 2, 1, 1, 1, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_loop_begin(k, 2, 1, 1, 1, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_loop_begin(k, 2, 1, 1, 1, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "at most two loop levels"));
  vta_jit_kernel_discard(k);
  /* GEMM and ALU micro-ops in one kernel. */
  assert_int_equal(vta_jit_kernel_begin(f->jit, &id, NULL, 0, &k, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_uop(k, &g, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_uop(k, &(vta_jit_uop){.mode = VTA_JIT_ALU}, &err),
                   VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "changes its mode"));
  vta_jit_kernel_discard(k);
  /* An index that leaves the ACC buffer on the last loop iteration. */
  assert_int_equal(vta_jit_kernel_begin(f->jit, &id, NULL, 0, &k, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_loop_begin(k, 1024, 2, 0, 0, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_uop(k, &(vta_jit_uop){.mode = VTA_JIT_GEMM, .dst = 2}, &err),
                   VTA_OK);
  assert_int_equal(vta_jit_kernel_loop_end(k, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_end(k, &err), VTA_ERR_BOUNDS); /* frees the recording */
  assert_non_null(strstr(err.msg, "dst index reaches 2048"));
  assert_non_null(strstr(err.msg, "ACC buffer (2048 entries)"));
  /* An immediate that does not fit 16 bits. */
  assert_int_equal(vta_jit_kernel_begin(f->jit, &id, NULL, 0, &k, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_uop(k,
                                      &(vta_jit_uop){.mode = VTA_JIT_ALU, .alu_op = VTA_ALU_ADD,
                                                     .use_imm = 1, .imm = 40000},
                                      &err),
                   VTA_OK);
  assert_int_equal(vta_jit_kernel_end(k, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "imm = 40000"));
  /* An empty kernel and an unclosed loop. */
  assert_int_equal(vta_jit_kernel_begin(f->jit, &id, NULL, 0, &k, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_end(k, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "no micro-ops"));
  assert_int_equal(vta_jit_kernel_begin(f->jit, &id, NULL, 0, &k, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_loop_begin(k, 2, 1, 1, 1, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_uop(k, &g, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_end(k, &err), VTA_ERR_INVALID);
  assert_non_null(strstr(err.msg, "still open"));
  /* None of them was cached. */
  assert_null(vta_jit_kernel_find(f->jit, &id, NULL, 0));
  assert_int_equal(vta_jit_get_counters(f->jit)->kernels, 0);
}

static void test_kernel_dump_prints_parseable_uops(void **state) {
  fixture *f = *state;
  vta_error err;
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  vta_jit *jit;
  vta_jit_options opt = {.debug = VTA_JIT_DUMP_UOP, .dump = mem};
  assert_int_equal(vta_jit_create(f->dev, &opt, &jit, &err), VTA_OK);
  vta_jit_kernel *k;
  assert_int_equal(vta_jit_kernel_begin(jit, &opt, NULL, 0, &k, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_loop_begin(k, 4, 1, 2, 3, &err), VTA_OK);
  for (uint32_t i = 0; i < 3; i++)
    assert_int_equal(vta_jit_kernel_uop(k,
                                        &(vta_jit_uop){.mode = VTA_JIT_GEMM, .dst = i,
                                                       .src = 10 + i, .wgt = 20 + i},
                                        &err),
                     VTA_OK);
  assert_int_equal(vta_jit_kernel_loop_end(k, &err), VTA_OK);
  assert_int_equal(vta_jit_kernel_end(k, &err), VTA_OK);
  fclose(mem);
  assert_non_null(strstr(text, "# loop 0: extent=4 dst_factor=1 src_factor=2 wgt_factor=3"));
  int seen = 0;
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    if (line[0] == '#') continue;
    vta_uop u;
    assert_int_equal(vta_uop_from_text(&f->cfg, line, &u, NULL, &err), VTA_OK);
    assert_int_equal(u.dst, (uint32_t)seen);
    assert_int_equal(u.src, 10u + (uint32_t)seen);
    assert_int_equal(u.wgt, 20u + (uint32_t)seen);
    seen++;
  }
  assert_int_equal(seen, 3);
  free(text);
  vta_jit_destroy(jit);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_kernel_gemm_maps_loops_to_iter_out_then_in, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_kernel_gemm_one_loop_is_iter_out, setup, teardown),
      cmocka_unit_test_setup_teardown(test_kernel_alu_one_loop_is_iter_in, setup, teardown),
      cmocka_unit_test_setup_teardown(test_kernel_cache_finds_by_site_and_signature, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_kernel_resident_kernel_is_not_loaded_again, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_kernel_full_buffer_evicts_in_ring_order, setup_small,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_kernel_staging_overflow_synchronises,
                                      setup_tiny_staging, teardown),
      cmocka_unit_test_setup_teardown(test_kernel_bad_recordings_are_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(test_kernel_dump_prints_parseable_uops, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
