/* test_fsim.c - the functional simulator against plain C references: every LOAD form and
 * padding combination, GEMM, every ALU opcode, STORE, the stale-OUT rule, token queues and
 * scheduling, every error it reports, and its statistics. (SIMD versus portable kernels and
 * random programs are in test_fsim_simd.c.)
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

typedef struct env {
  vta_config cfg;
  vta_mem *mem;
  vta_fsim *sim;
  vta_error err;
  vta_stats st;
  uint64_t seed;
} env;

static void env_open(env *e, const char *path) {
  memset(e, 0, sizeof *e);
  if (path)
    assert_int_equal(vta_config_load(&e->cfg, path, &e->err), VTA_OK);
  else
    vta_config_default(&e->cfg);
  assert_int_equal(vta_mem_create(0, &e->mem, &e->err), VTA_OK);
  assert_int_equal(vta_fsim_create(&e->cfg, e->mem, &e->sim, &e->err), VTA_OK);
  e->seed = 12345;
}

static void env_close(env *e) {
  vta_fsim_destroy(e->sim);
  vta_mem_destroy(e->mem);
}

static uint64_t dalloc(env *e, uint64_t bytes) {
  uint64_t phys;
  assert_int_equal(vta_mem_alloc(e->mem, bytes, &phys, &e->err), VTA_OK);
  return phys;
}

static void *dptr(env *e, uint64_t phys) { return vta_mem_ptr(e->mem, phys); }

static void fill_random(env *e, void *p, size_t n) {
  for (size_t i = 0; i < n; i++) ((uint8_t *)p)[i] = (uint8_t)fp_rand(&e->seed);
}

/* Commits the program, runs it with `timeout`, frees the stream. Stats start from zero. */
static int run_timeout(env *e, fsim_prog *p, uint64_t timeout) {
  uint64_t insn;
  assert_int_equal(fp_commit(p, e->mem, &insn), 0);
  memset(&e->st, 0, sizeof e->st);
  e->err.msg[0] = 0;
  int rc = vta_fsim_run(e->sim, insn, fp_count(p), timeout, &e->st, &e->err);
  vta_mem_free(e->mem, insn);
  fp_free(p);
  fp_init(p, &e->cfg);
  return rc;
}

static int run(env *e, fsim_prog *p) { return run_timeout(e, p, 0); }

static void assert_msg_has(const env *e, const char *needle) {
  if (!strstr(e->err.msg, needle)) fail_msg("message \"%s\" lacks \"%s\"", e->err.msg, needle);
}

static uint32_t el(env *e, vta_mem_type t, uint64_t phys) {
  return (uint32_t)(phys / e->cfg.elem_bytes[t]);
}

/* Loads micro-ops into the UOP buffer at 0 (a program of its own). */
static void put_uops(env *e, const vta_uop *u, uint32_t n) {
  uint64_t d = dalloc(e, 4 * n);
  fp_uops(&e->cfg, dptr(e, d), u, n);
  fsim_prog p;
  fp_init(&p, &e->cfg);
  fp_load(&p, VTA_MEM_UOP, 0, el(e, VTA_MEM_UOP, d), 1, n, n, 0, 0, 0, 0, 0);
  fp_finish(&p, 0);
  assert_int_equal(run(e, &p), VTA_OK);
}

/* ---- LOAD ---- */

/* The SRAM image (read_sram format) of one element of type t read from DRAM at src. */
static void sram_elem(const vta_config *c, vta_mem_type t, const uint8_t *src, uint8_t *dst) {
  if (t == VTA_MEM_ACC_8BIT) {
    for (uint32_t l = 0; l < c->batch * c->block_out; l++) {
      int32_t v = (int8_t)src[l];
      memcpy(dst + 4 * l, &v, 4);
    }
  } else {
    memcpy(dst, src, c->elem_bytes[t]);
  }
}

/* Prefills the buffer with data, then does one padded 2-D LOAD and compares the whole buffer
 * region with what ISA.md section 3 says it must hold. */
static void check_padded_load(env *e, vta_mem_type t, uint32_t y, uint32_t x, uint32_t stride,
                              uint32_t yp0, uint32_t yp1, uint32_t xp0, uint32_t xp1,
                              uint64_t fill, uint64_t src) {
  const vta_config *c = &e->cfg;
  vta_mem_type b = t == VTA_MEM_ACC_8BIT ? VTA_MEM_ACC : t;
  uint32_t deb = c->elem_bytes[t], seb = c->elem_bytes[b];
  uint32_t sram = 7, xt = xp0 + x + xp1, total = (yp0 + y + yp1) * xt, n = sram + total + 5;
  assert_true(n <= c->depth[b]);
  fsim_prog p;
  fp_init(&p, c);
  fp_load(&p, t, 0, el(e, t, fill), 1, n, n, 0, 0, 0, 0, 0);
  fp_load(&p, t, sram, el(e, t, src), y, x, stride, yp0, yp1, xp0, xp1, 0);
  fp_finish(&p, 0);
  assert_int_equal(run(e, &p), VTA_OK);

  uint8_t *exp = calloc(n, seb), *got = calloc(n, seb);
  const uint8_t *fp = dptr(e, fill), *sp = dptr(e, src);
  for (uint32_t i = 0; i < n; i++) sram_elem(c, t, fp + (size_t)i * deb, exp + (size_t)i * seb);
  for (uint32_t i = 0; i < total; i++) {
    uint32_t row = i / xt, col = i % xt;
    uint8_t *d = exp + (size_t)(sram + i) * seb;
    if (row < yp0 || row >= yp0 + y || col < xp0 || col >= xp0 + x)
      memset(d, 0, seb);
    else
      sram_elem(c, t, sp + ((size_t)(row - yp0) * stride + (col - xp0)) * deb, d);
  }
  assert_int_equal(vta_fsim_read_sram(e->sim, b, 0, n, got, &e->err), VTA_OK);
  if (memcmp(exp, got, (size_t)n * seb) != 0)
    fail_msg("%s load y=%u x=%u stride=%u pads %u %u %u %u differs from the reference",
             vta_mem_type_name(t), y, x, stride, yp0, yp1, xp0, xp1);
  free(exp);
  free(got);
  assert_int_equal(e->st.bytes_read[t], (uint64_t)n * deb + (uint64_t)y * x * deb);
}

static void test_fsim_load_every_padding_combination(void **state) {
  (void)state;
  env e;
  env_open(&e, NULL);
  static const vta_mem_type types[] = {VTA_MEM_INP, VTA_MEM_WGT, VTA_MEM_ACC, VTA_MEM_ACC_8BIT};
  static const uint32_t pads[] = {0, 1, 2, 5};
  uint64_t fill = dalloc(&e, 1100 * 256), src = dalloc(&e, 64 * 256);
  fill_random(&e, dptr(&e, fill), 1100 * 256);
  fill_random(&e, dptr(&e, src), 64 * 256);
  for (size_t ti = 0; ti < 4; ti++)
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++)
        for (int c = 0; c < 4; c++)
          for (int d = 0; d < 4; d++)
            check_padded_load(&e, types[ti], 2, 3, 5, pads[a], pads[b], pads[c], pads[d], fill,
                              src);
  /* The largest pads a field holds, a stride shorter than a row, and a single element. */
  for (size_t ti = 0; ti < 4; ti++) {
    check_padded_load(&e, types[ti], 1, 1, 1, 15, 15, 15, 15, fill, src);
    check_padded_load(&e, types[ti], 3, 4, 2, 1, 0, 0, 2, fill, src);
    check_padded_load(&e, types[ti], 0, 2, 2, 1, 1, 1, 1, fill, src); /* pads only */
  }
  env_close(&e);
}

static void test_fsim_load_x_size_zero_moves_nothing(void **state) {
  (void)state;
  env e;
  env_open(&e, NULL);
  uint64_t d = dalloc(&e, 4096);
  memset(dptr(&e, d), 0x11, 4096);
  fsim_prog p;
  fp_init(&p, &e.cfg);
  fp_load(&p, VTA_MEM_INP, 0, el(&e, VTA_MEM_INP, d), 1, 8, 8, 0, 0, 0, 0, 0);
  fp_load(&p, VTA_MEM_INP, 0, el(&e, VTA_MEM_INP, d), 2, 0, 0, 3, 3, 3, 3, 0); /* padding only */
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_OK);
  int8_t got[8 * 16];
  assert_int_equal(vta_fsim_read_sram(e.sim, VTA_MEM_INP, 0, 8, got, &e.err), VTA_OK);
  for (int i = 0; i < 8 * 16; i++) assert_int_equal(got[i], 0x11);
  env_close(&e);
}

static void test_fsim_load_uop_decodes_each_microop(void **state) {
  (void)state;
  env e;
  env_open(&e, NULL);
  vta_uop u[5] = {{1, 2, 3}, {2047, 2047, 1023}, {0, 0, 0}, {5, 1000, 7}, {100, 3, 999}};
  uint64_t d = dalloc(&e, 64);
  fp_uops(&e.cfg, dptr(&e, d), u, 5);
  fsim_prog p;
  fp_init(&p, &e.cfg);
  fp_load(&p, VTA_MEM_UOP, 10, el(&e, VTA_MEM_UOP, d) + 1, 1, 4, 4, 0, 0, 0, 0, 0);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_OK);
  uint32_t got[6];
  assert_int_equal(vta_fsim_read_sram(e.sim, VTA_MEM_UOP, 9, 6, got, &e.err), VTA_OK);
  assert_int_equal(got[0], 0);
  assert_int_equal(got[5], 0);
  assert_memory_equal(&got[1], (uint8_t *)dptr(&e, d) + 4, 16);
  assert_int_equal(e.st.bytes_read[VTA_MEM_UOP], 16);
  env_close(&e);
}

static void test_fsim_load_acc_8bit_sign_extends(void **state) {
  (void)state;
  env e;
  env_open(&e, NULL);
  uint64_t d = dalloc(&e, 64);
  uint8_t *p8 = dptr(&e, d);
  for (int i = 0; i < 32; i++) p8[i] = (uint8_t)(i * 37 + 0x70);
  p8[16] = 0x80;
  p8[17] = 0xff;
  p8[18] = 0x7f;
  fsim_prog p;
  fp_init(&p, &e.cfg);
  /* Element bytes = ACC element bytes / 4 = 16: dram_base counts 16-byte elements. */
  assert_int_equal(e.cfg.elem_bytes[VTA_MEM_ACC_8BIT], 16);
  fp_load(&p, VTA_MEM_ACC_8BIT, 3, el(&e, VTA_MEM_ACC_8BIT, d) + 1, 1, 1, 1, 0, 0, 0, 0, 0);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_OK);
  int32_t got[16];
  assert_int_equal(vta_fsim_read_sram(e.sim, VTA_MEM_ACC, 3, 1, got, &e.err), VTA_OK);
  assert_int_equal(got[0], -128);
  assert_int_equal(got[1], -1);
  assert_int_equal(got[2], 127);
  for (int l = 0; l < 16; l++) assert_int_equal(got[l], (int8_t)p8[16 + l]);
  assert_int_equal(e.st.bytes_read[VTA_MEM_ACC_8BIT], 16);
  env_close(&e);
}

/* ---- GEMM ---- */

/* A blocked matrix product on the accelerator: M = mo*mi rows (each an INP element of BATCH
 * vectors), KB input blocks, NB output blocks; two loop levels split M. Compared with a plain
 * triple loop. */
static void gemm_case(env *e, uint32_t mo, uint32_t mi, uint32_t kb, uint32_t nb) {
  const vta_config *c = &e->cfg;
  const uint32_t B = c->batch, BI = c->block_in, BO = c->block_out, M = mo * mi;
  uint64_t dx = dalloc(e, (uint64_t)M * kb * c->elem_bytes[VTA_MEM_INP]);
  uint64_t dw = dalloc(e, (uint64_t)nb * kb * c->elem_bytes[VTA_MEM_WGT]);
  uint64_t dout = dalloc(e, (uint64_t)M * nb * c->elem_bytes[VTA_MEM_OUT]);
  uint64_t du = dalloc(e, 4ull * nb * kb);
  int8_t *x = dptr(e, dx), *w = dptr(e, dw);
  fill_random(e, x, (size_t)M * kb * B * BI);
  fill_random(e, w, (size_t)nb * kb * BO * BI);
  x[0] = -128;
  w[0] = -128;
  vta_uop *u = calloc((size_t)nb * kb, sizeof *u);
  for (uint32_t n = 0; n < nb; n++)
    for (uint32_t k = 0; k < kb; k++) u[n * kb + k] = (vta_uop){n, k, n * kb + k};
  fp_uops(c, dptr(e, du), u, (size_t)nb * kb);
  free(u);

  fsim_prog p;
  fp_init(&p, c);
  fp_load(&p, VTA_MEM_UOP, 0, el(e, VTA_MEM_UOP, du), 1, nb * kb, nb * kb, 0, 0, 0, 0, 0);
  fp_load(&p, VTA_MEM_INP, 0, el(e, VTA_MEM_INP, dx), 1, M * kb, M * kb, 0, 0, 0, 0, 0);
  fp_load(&p, VTA_MEM_WGT, 0, el(e, VTA_MEM_WGT, dw), 1, nb * kb, nb * kb, 0, 0, 0, 0, 0);
  const uint32_t fo[3] = {mi * nb, mi * kb, 0}, fi[3] = {nb, kb, 0};
  fp_gemm(&p, 1, 0, nb * kb, mo, mi, fo, fi, 0);
  fp_gemm(&p, 0, 0, nb * kb, mo, mi, fo, fi, 0);
  fp_store(&p, 0, el(e, VTA_MEM_OUT, dout), 1, M * nb, M * nb, 0);
  fp_finish(&p, 0);
  assert_int_equal(run(e, &p), VTA_OK);

  size_t lanes = (size_t)M * nb * B * BO;
  int32_t *acc = calloc(lanes, 4);
  assert_int_equal(vta_fsim_read_sram(e->sim, VTA_MEM_ACC, 0, M * nb, acc, &e->err), VTA_OK);
  const int8_t *out = dptr(e, dout);
  for (uint32_t m = 0; m < M; m++)
    for (uint32_t n = 0; n < nb; n++)
      for (uint32_t b = 0; b < B; b++)
        for (uint32_t o = 0; o < BO; o++) {
          int32_t s = 0;
          for (uint32_t k = 0; k < kb; k++)
            for (uint32_t ci = 0; ci < BI; ci++)
              s += x[((size_t)(m * kb + k) * B + b) * BI + ci] *
                   w[((size_t)(n * kb + k) * BO + o) * BI + ci];
          size_t at = ((size_t)(m * nb + n) * B + b) * BO + o;
          if (acc[at] != s || out[at] != (int8_t)s)
            fail_msg("m=%u n=%u b=%u o=%u: acc %d out %d, expected %d", m, n, b, o, acc[at],
                     out[at], s);
        }
  free(acc);
  uint64_t uops = (uint64_t)nb * kb * M;
  assert_int_equal(e->st.gemm_uops, 2 * uops);
  assert_int_equal(e->st.macs, uops * B * BI * BO);
}

static void test_fsim_gemm_matches_matmul(void **state) {
  (void)state;
  env e;
  env_open(&e, NULL);
  gemm_case(&e, 3, 4, 2, 3);
  gemm_case(&e, 1, 1, 1, 1);
  env_close(&e);
}

static void test_fsim_gemm_matches_matmul_every_config(void **state) {
  (void)state;
  static const char *const paths[] = {"configs/batch4.json", "configs/block32.json",
                                      "configs/block8.json", "configs/block4.json"};
  for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
    env e;
    env_open(&e, paths[i]);
    gemm_case(&e, 2, 3, 2, 2);
    vta_fsim_set_simd(e.sim, 0);
    gemm_case(&e, 2, 3, 2, 2);
    env_close(&e);
  }
}

static void test_fsim_gemm_accumulates_and_wraps(void **state) {
  (void)state;
  env e;
  env_open(&e, NULL);
  /* ACC starts at INT32_MAX - 5 in lane 0; x . w = 16 * 127 * 127 pushes it past 2^31. */
  uint64_t da = dalloc(&e, 64), dx = dalloc(&e, 16), dw = dalloc(&e, 256), dout = dalloc(&e, 16);
  int32_t *a = dptr(&e, da);
  for (int l = 0; l < 16; l++) a[l] = l == 0 ? INT32_MAX - 5 : -l;
  memset(dptr(&e, dx), 127, 16);
  int8_t *w = dptr(&e, dw);
  for (int i = 0; i < 256; i++) w[i] = (int8_t)(i / 16 == 0 ? 127 : (i % 3) - 1);
  put_uops(&e, &(vta_uop){0, 0, 0}, 1);
  fsim_prog p;
  fp_init(&p, &e.cfg);
  fp_load(&p, VTA_MEM_ACC, 0, el(&e, VTA_MEM_ACC, da), 1, 1, 1, 0, 0, 0, 0, 0);
  fp_load(&p, VTA_MEM_INP, 0, el(&e, VTA_MEM_INP, dx), 1, 1, 1, 0, 0, 0, 0, 0);
  fp_load(&p, VTA_MEM_WGT, 0, el(&e, VTA_MEM_WGT, dw), 1, 1, 1, 0, 0, 0, 0, 0);
  fp_gemm(&p, 0, 0, 1, 2, 1, NULL, NULL, 0); /* the same micro-op twice: accumulates */
  fp_store(&p, 0, el(&e, VTA_MEM_OUT, dout), 1, 1, 1, 0);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_OK);
  int32_t got[16];
  vta_fsim_read_sram(e.sim, VTA_MEM_ACC, 0, 1, got, &e.err);
  const int8_t *out = dptr(&e, dout);
  for (int o = 0; o < 16; o++) {
    int64_t dot = 0;
    for (int ci = 0; ci < 16; ci++) dot += 127 * w[o * 16 + ci];
    int32_t expect = (int32_t)(uint32_t)((int64_t)a[o] + 2 * dot);
    assert_int_equal(got[o], expect);
    assert_int_equal(out[o], (int8_t)expect);
  }
  assert_true(got[0] < 0); /* it wrapped */
  env_close(&e);
}

/* ---- ALU ---- */

/* The plain C meaning of one ALU lane (ISA.md section 3), in 64-bit arithmetic. */
static int32_t ref_lane(int op, int32_t a, int32_t b, int32_t imm) {
  switch (op) {
  case VTA_ALU_MIN: return a < b ? a : b;
  case VTA_ALU_MAX: return a > b ? a : b;
  case VTA_ALU_ADD: return (int32_t)(uint32_t)((int64_t)a + b);
  case VTA_ALU_MUL: return (int32_t)(uint32_t)(uint64_t)((int64_t)a * b);
  case VTA_ALU_SHRCLIP: { /* SHR, then MAX with the immediate, MIN with the upper half */
    int32_t r = ref_lane(VTA_ALU_SHR, a, b, 0), lo = (int16_t)imm, hi = (int16_t)(b >> 16);
    r = r > lo ? r : lo;
    return r < hi ? r : hi;
  }
  default: {
    int y = (int)((uint32_t)b & 63);
    if (y >= 32) y -= 64;
    if (y >= 0) return (int32_t)((int64_t)a >> y);
    return (int32_t)(uint32_t)((uint64_t)(uint32_t)a << -y);
  }
  }
}

static const int32_t k_edges[] = {INT32_MIN, INT32_MAX, -1, 0, 1, 2, -2, 0x12345678,
                                  -0x12345678, 31, 32, 33, -31, -32, -33, 63, 64, -64, 65535,
                                  -65536, 127, 128, -129, 255, 256, 0x40000000};

static void alu_case(env *e, uint64_t da, int op, int use_imm, int32_t imm) {
  /* Rows 0-3 are destinations; rows 4-7 the vector operands (their low 6 bits cover every
   * shift amount). Two micro-ops x iter_out 2: dst rows 0..3, src rows 4..7. */
  fsim_prog p;
  fp_init(&p, &e->cfg);
  fp_load(&p, VTA_MEM_ACC, 0, el(e, VTA_MEM_ACC, da), 1, 8, 8, 0, 0, 0, 0, 0);
  const uint32_t fo[2] = {2, 2};
  fp_alu(&p, (vta_alu_op)op, use_imm, imm, 0, 2, 2, 1, fo, NULL, 0);
  fp_finish(&p, 0);
  assert_int_equal(run(e, &p), VTA_OK);
  const int32_t *a0 = dptr(e, da);
  int32_t acc[8 * 16];
  int8_t out[4 * 16];
  vta_fsim_read_sram(e->sim, VTA_MEM_ACC, 0, 8, acc, &e->err);
  vta_fsim_read_sram(e->sim, VTA_MEM_OUT, 0, 4, out, &e->err);
  for (int i = 0; i < 64; i++) {
    int32_t expect = ref_lane(op, a0[i], use_imm ? imm : a0[64 + i], imm);
    if (acc[i] != expect || out[i] != (int8_t)expect)
      fail_msg("alu %s %s imm=%d lane %d: %d op %d = %d (out %d), expected %d",
               vta_alu_op_name((unsigned)op), use_imm ? "imm" : "vector", imm, i, a0[i],
               use_imm ? imm : a0[64 + i], acc[i], out[i], expect);
  }
  assert_memory_equal(acc + 64, a0 + 64, 64 * 4); /* operands untouched */
  assert_int_equal(e->st.alu_uops, 4);
}

static void test_fsim_alu_every_opcode_matches_reference(void **state) {
  (void)state;
  env e;
  env_open(&e, NULL);
  vta_uop u[2] = {{0, 4, 0}, {1, 5, 0}};
  put_uops(&e, u, 2);
  uint64_t da = dalloc(&e, 8 * 64);
  int32_t *a = dptr(&e, da);
  for (int i = 0; i < 64; i++)
    a[i] = i < (int)(sizeof k_edges / sizeof k_edges[0]) ? k_edges[i]
                                                          : (int32_t)(uint32_t)fp_rand(&e.seed);
  for (int i = 0; i < 64; i++)
    a[64 + i] = (int32_t)(((uint32_t)fp_rand(&e.seed) << 6) | (uint32_t)i);
  a[64 + 5] = INT32_MIN;
  a[64 + 6] = INT32_MAX;
  static const int32_t imms[] = {0,  1,  -1, 5,     31,     32,     33,  63,  64,
                                 -31, -32, -33, -64, 32767, -32768, 0x7fc0, 100, -100};
  for (int op = 0; op < VTA_ALU_COUNT; op++) {
    alu_case(&e, da, op, 0, 0);
    for (size_t k = 0; k < sizeof imms / sizeof imms[0]; k++) alu_case(&e, da, op, 1, imms[k]);
  }
  for (int32_t s = -70; s <= 70; s++) alu_case(&e, da, VTA_ALU_SHR, 1, s);
  /* SHRCLIP with a vector operand reads the immediate too (its lower bound). */
  for (size_t k = 0; k < sizeof imms / sizeof imms[0]; k++)
    alu_case(&e, da, VTA_ALU_SHRCLIP, 0, imms[k]);
  env_close(&e);
}

static void test_fsim_alu_microops_run_in_order(void **state) {
  (void)state;
  env e;
  env_open(&e, NULL);
  /* Each micro-op adds the previous row into the next: row r ends as the prefix sum, which
   * only holds if they run in order, each seeing the previous one's result. */
  vta_uop u[3] = {{1, 0, 0}, {2, 1, 0}, {3, 2, 0}};
  put_uops(&e, u, 3);
  uint64_t da = dalloc(&e, 4 * 64);
  int32_t *a = dptr(&e, da);
  for (int i = 0; i < 64; i++) a[i] = i * 1000 - 7;
  fsim_prog p;
  fp_init(&p, &e.cfg);
  fp_load(&p, VTA_MEM_ACC, 0, el(&e, VTA_MEM_ACC, da), 1, 4, 4, 0, 0, 0, 0, 0);
  fp_alu(&p, VTA_ALU_ADD, 0, 0, 0, 3, 1, 1, NULL, NULL, 0);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_OK);
  int32_t acc[64];
  vta_fsim_read_sram(e.sim, VTA_MEM_ACC, 0, 4, acc, &e.err);
  for (int l = 0; l < 16; l++) {
    int32_t s = a[l];
    for (int r = 1; r < 4; r++) {
      s += a[r * 16 + l];
      assert_int_equal(acc[r * 16 + l], s);
    }
  }
  env_close(&e);
}

/* ---- STORE and the stale-OUT rule ---- */

static void test_fsim_store_2d_writes_only_its_rows(void **state) {
  (void)state;
  env e;
  env_open(&e, NULL);
  vta_uop u = {0, 0, 0};
  put_uops(&e, &u, 1);
  uint64_t da = dalloc(&e, 6 * 64), dout = dalloc(&e, 4096);
  int32_t *a = dptr(&e, da);
  for (int i = 0; i < 6 * 16; i++) a[i] = i * 3 - 100;
  memset(dptr(&e, dout), 0xee, 4096);
  fsim_prog p;
  fp_init(&p, &e.cfg);
  fp_load(&p, VTA_MEM_ACC, 0, el(&e, VTA_MEM_ACC, da), 1, 6, 6, 0, 0, 0, 0, 0);
  const uint32_t fi[2] = {1, 1};
  fp_alu(&p, VTA_ALU_SHR, 1, 0, 0, 1, 1, 6, NULL, fi, 0); /* copy ACC rows 0-5 into OUT */
  /* 3 rows of 2 elements from OUT 0..5 to DRAM element 1 with a stride of 5. */
  fp_store(&p, 0, el(&e, VTA_MEM_OUT, dout) + 1, 3, 2, 5, 0);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_OK);
  const int8_t *d = dptr(&e, dout);
  for (int i = 0; i < 4096 / 16; i++) {
    int col = (i - 1) % 5, row = (i - 1) / 5;
    int written = i >= 1 && row < 3 && col < 2;
    for (int l = 0; l < 16; l++) {
      int8_t expect = written ? (int8_t)(a[(row * 2 + col) * 16 + l]) : (int8_t)0xee;
      if (d[i * 16 + l] != expect)
        fail_msg("element %d lane %d: %d, expected %d", i, l, d[i * 16 + l], expect);
    }
  }
  assert_int_equal(e.st.bytes_written[VTA_MEM_OUT], 6 * 16);
  env_close(&e);
}

static void test_fsim_load_acc_leaves_out_stale(void **state) {
  (void)state;
  env e;
  env_open(&e, NULL);
  put_uops(&e, &(vta_uop){0, 0, 0}, 1);
  uint64_t da = dalloc(&e, 64), db = dalloc(&e, 64), dout = dalloc(&e, 48);
  int32_t *a = dptr(&e, da), *b = dptr(&e, db);
  for (int l = 0; l < 16; l++) {
    a[l] = 0x100 + l;
    b[l] = 0x200 + 2 * l + 1;
  }
  fsim_prog p;
  fp_init(&p, &e.cfg);
  uint32_t o = el(&e, VTA_MEM_OUT, dout);
  fp_load(&p, VTA_MEM_ACC, 0, el(&e, VTA_MEM_ACC, da), 1, 1, 1, 0, 0, 0, 0, 0);
  fp_alu(&p, VTA_ALU_ADD, 1, 0, 0, 1, 1, 1, NULL, NULL, 0); /* OUT = narrow(a) */
  fp_load(&p, VTA_MEM_ACC, 0, el(&e, VTA_MEM_ACC, db), 1, 1, 1, 0, 0, 0, 0, 0);
  fp_store(&p, 0, o, 1, 1, 1, 0);                            /* still narrow(a) */
  fp_alu(&p, VTA_ALU_SHR, 1, 0, 0, 1, 1, 1, NULL, NULL, 0); /* OUT = narrow(b) */
  fp_store(&p, 0, o + 1, 1, 1, 1, 0);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_OK);
  const int8_t *d = dptr(&e, dout);
  for (int l = 0; l < 16; l++) {
    assert_int_equal(d[l], (int8_t)a[l]);
    assert_int_equal(d[16 + l], (int8_t)b[l]);
  }
  env_close(&e);
}

/* ---- Token queues and scheduling ---- */

/* GEMM (index 2) reads INP that a later LOAD (index 3) provides. With the token, the load must
 * run first; without it, the lowest index runs first and the GEMM sees the old (zero) INP. */
static void token_case(int with_token, int32_t *acc0) {
  env e;
  env_open(&e, NULL);
  uint64_t du = dalloc(&e, 4), dx = dalloc(&e, 16), dw = dalloc(&e, 256), dout = dalloc(&e, 16);
  fp_uops(&e.cfg, dptr(&e, du), &(vta_uop){0, 0, 0}, 1);
  fill_random(&e, dptr(&e, dx), 16);
  fill_random(&e, dptr(&e, dw), 256);
  fsim_prog p;
  fp_init(&p, &e.cfg);
  fp_load(&p, VTA_MEM_WGT, 0, el(&e, VTA_MEM_WGT, dw), 1, 1, 1, 0, 0, 0, 0, 0); /* 0 load */
  fp_load(&p, VTA_MEM_UOP, 0, el(&e, VTA_MEM_UOP, du), 1, 1, 1, 0, 0, 0, 0, 0); /* 1 compute */
  fp_gemm(&p, 0, 0, 1, 1, 1, NULL, NULL,
          (with_token ? FP_POP_PREV : 0) | FP_PUSH_NEXT);                        /* 2 compute */
  fp_load(&p, VTA_MEM_INP, 0, el(&e, VTA_MEM_INP, dx), 1, 1, 1, 0, 0, 0, 0,
          with_token ? FP_PUSH_NEXT : 0);                                        /* 3 load */
  fp_store(&p, 0, el(&e, VTA_MEM_OUT, dout), 1, 1, 1, FP_POP_PREV);            /* 4 store */
  fp_finish(&p, 0);                                                              /* 5 */
  assert_int_equal(run(&e, &p), VTA_OK);
  vta_fsim_read_sram(e.sim, VTA_MEM_ACC, 0, 1, acc0, &e.err);
  const int8_t *x = dptr(&e, dx), *w = dptr(&e, dw), *out = dptr(&e, dout);
  for (int o = 0; o < 16; o++) {
    int32_t s = 0;
    for (int c = 0; c < 16; c++) s += x[c] * w[o * 16 + c];
    if (!with_token) s = 0;
    assert_int_equal(acc0[o], s);
    assert_int_equal(out[o], (int8_t)s);
  }
  assert_int_equal(e.st.insns, 6);
  assert_int_equal(e.st.insns_by_module[VTA_MOD_LOAD], 2);
  assert_int_equal(e.st.insns_by_module[VTA_MOD_COMPUTE], 3);
  assert_int_equal(e.st.insns_by_module[VTA_MOD_STORE], 1);
  env_close(&e);
}

static void test_fsim_tokens_order_modules(void **state) {
  (void)state;
  int32_t with[16], without[16];
  token_case(1, with);
  token_case(0, without);
  int nonzero = 0;
  for (int o = 0; o < 16; o++) nonzero |= with[o] != 0;
  assert_true(nonzero); /* the two orders are distinguishable */
}

static void test_fsim_deadlock_names_each_blocked_head(void **state) {
  (void)state;
  env e;
  env_open(&e, NULL);
  fsim_prog p;
  fp_init(&p, &e.cfg);
  fp_gemm(&p, 1, 0, 1, 1, 1, NULL, NULL, FP_POP_PREV);                  /* 0: waits load */
  fp_store(&p, 0, 1, 1, 1, 1, FP_POP_PREV);                             /* 1: waits compute */
  fp_load(&p, VTA_MEM_INP, 0, 1, 1, 1, 1, 0, 0, 0, 0, FP_POP_NEXT);     /* 2: waits compute */
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_ERR_DEADLOCK);
  assert_msg_has(&e, "after 0 of 4 instructions");
  assert_msg_has(&e, "load waits at instruction 2 (load memory_type=inp");
  assert_msg_has(&e, "pop_next) for a token on compute->load");
  assert_msg_has(&e, "compute waits at instruction 0 (gemm reset_reg");
  assert_msg_has(&e, "on load->compute");
  assert_msg_has(&e, "store waits at instruction 1 (store");
  assert_msg_has(&e, "on compute->store");
  assert_int_equal(e.st.insns, 0);

  /* A compute head waiting on both of its queues names both; the others have finished. */
  fp_gemm(&p, 1, 0, 1, 1, 1, NULL, NULL, 0);
  fp_gemm(&p, 1, 0, 1, 1, 1, NULL, NULL, FP_POP_PREV | FP_POP_NEXT);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_ERR_DEADLOCK);
  assert_msg_has(&e, "after 1 of 3 instructions");
  assert_msg_has(&e, "instruction 1 (gemm");
  assert_msg_has(&e, "on load->compute and store->compute");
  assert_null(strstr(e.err.msg, "load waits"));
  env_close(&e);
}

static void test_fsim_load_and_store_ignore_flags_outside_the_pipeline(void **state) {
  (void)state;
  env e;
  env_open(&e, NULL);
  fsim_prog p;
  fp_init(&p, &e.cfg);
  uint64_t d = dalloc(&e, 4096);
  uint32_t x = el(&e, VTA_MEM_INP, d), o = el(&e, VTA_MEM_OUT, d);
  /* Would block forever if load honoured pop_prev or store pop_next. */
  fp_load(&p, VTA_MEM_INP, 0, x, 1, 1, 1, 0, 0, 0, 0, FP_POP_PREV | FP_PUSH_PREV);
  fp_store(&p, 0, o, 1, 1, 1, FP_POP_NEXT | FP_PUSH_NEXT);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_OK);
  /* A load's push_prev gives compute nothing to pop (compute pops load->compute with
   * pop_prev), and a store's push_next gives compute nothing on store->compute. */
  fp_load(&p, VTA_MEM_INP, 0, x, 1, 1, 1, 0, 0, 0, 0, FP_PUSH_PREV);
  fp_gemm(&p, 1, 0, 1, 1, 1, NULL, NULL, FP_POP_PREV);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_ERR_DEADLOCK);
  fp_store(&p, 0, o, 1, 1, 1, FP_PUSH_NEXT);
  fp_gemm(&p, 1, 0, 1, 1, 1, NULL, NULL, FP_POP_NEXT);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_ERR_DEADLOCK);
  /* The matching flags do work. */
  fp_load(&p, VTA_MEM_INP, 0, x, 1, 1, 1, 0, 0, 0, 0, FP_PUSH_NEXT);
  fp_store(&p, 0, o, 1, 1, 1, FP_PUSH_PREV);
  fp_gemm(&p, 1, 0, 1, 1, 1, NULL, NULL, FP_POP_PREV | FP_POP_NEXT | FP_PUSH_PREV);
  fp_load(&p, VTA_MEM_INP, 0, x, 1, 1, 1, 0, 0, 0, 0, FP_POP_NEXT);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_OK);
  env_close(&e);
}

static void test_fsim_tokens_accumulate(void **state) {
  (void)state;
  env e;
  env_open(&e, NULL);
  fsim_prog p;
  fp_init(&p, &e.cfg);
  /* Three pushes before three pops: a counting queue. A fourth pop would deadlock. */
  for (int i = 0; i < 3; i++) fp_gemm(&p, 1, 0, 1, 1, 1, NULL, NULL, FP_PUSH_NEXT);
  for (int i = 0; i < 3; i++) fp_store(&p, 0, 1, 1, 0, 1, FP_POP_PREV);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_OK);
  for (int i = 0; i < 3; i++) fp_gemm(&p, 1, 0, 1, 1, 1, NULL, NULL, FP_PUSH_NEXT);
  for (int i = 0; i < 4; i++) fp_store(&p, 0, 1, 1, 0, 1, FP_POP_PREV);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_ERR_DEADLOCK);
  assert_msg_has(&e, "store waits at instruction 6");
  env_close(&e);
}

/* ---- Stream errors ---- */

static void test_fsim_finish_rules(void **state) {
  (void)state;
  env e;
  env_open(&e, NULL);
  fsim_prog p;
  fp_init(&p, &e.cfg);
  fp_gemm(&p, 1, 0, 1, 1, 1, NULL, NULL, 0);
  fp_finish(&p, FP_POP_PREV);
  assert_int_equal(run(&e, &p), VTA_ERR_INVALID);
  assert_msg_has(&e, "instruction 1 (finish pop_prev): finish: may not pop");

  fp_finish(&p, 0);
  fp_gemm(&p, 1, 0, 1, 1, 1, NULL, NULL, 0);
  assert_int_equal(run(&e, &p), VTA_ERR_INVALID);
  assert_msg_has(&e, "instruction 0 (finish)");
  assert_msg_has(&e, "followed by instruction 1 (gemm reset_reg uop_end=1");

  fp_gemm(&p, 1, 0, 1, 1, 1, NULL, NULL, 0);
  assert_int_equal(run(&e, &p), VTA_ERR_INVALID);
  assert_msg_has(&e, "instruction 0 (gemm");
  assert_msg_has(&e, "without a FINISH");

  uint64_t insn = dalloc(&e, 16);
  assert_int_equal(vta_fsim_run(e.sim, insn, 0, 0, NULL, &e.err), VTA_ERR_INVALID);
  assert_msg_has(&e, "empty");
  env_close(&e);
}

static void test_fsim_undefined_opcode_and_memory_type(void **state) {
  (void)state;
  env e;
  env_open(&e, NULL);
  fsim_prog p;
  fp_init(&p, &e.cfg);
  fp_gemm(&p, 1, 0, 1, 1, 1, NULL, NULL, 0);
  fp_add_word(&p, 7, 0); /* opcode 7 */
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_ERR_INVALID);
  assert_msg_has(&e, "instruction 1 (word 0x");
  assert_msg_has(&e, "undefined opcode 7");

  vta_insn_word w = {{0, 0}};
  vta_word_set(&w, e.cfg.layout[VTA_FMT_MEM].pos[VTA_F_OPCODE], VTA_OP_LOAD);
  vta_word_set(&w, e.cfg.layout[VTA_FMT_MEM].pos[VTA_F_MEMORY_TYPE], 6);
  vta_word_set(&w, e.cfg.layout[VTA_FMT_MEM].pos[VTA_F_X_SIZE], 1);
  fp_add_word(&p, w.w[0], w.w[1]);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_ERR_INVALID);
  assert_msg_has(&e, "instruction 0 (load memory_type=6");
  assert_msg_has(&e, "undefined memory_type 6");

  fp_load(&p, VTA_MEM_OUT, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_ERR_INVALID);
  assert_msg_has(&e, "instruction 0 (load memory_type=out");
  env_close(&e);
}

static void test_fsim_fetch_outside_memory(void **state) {
  (void)state;
  env e;
  env_open(&e, NULL);
  assert_int_equal(vta_fsim_run(e.sim, 0x7000000, 2, 0, NULL, &e.err), VTA_ERR_BOUNDS);
  assert_msg_has(&e, "instruction 0: fetch");
  fsim_prog p;
  fp_init(&p, &e.cfg);
  fp_finish(&p, 0);
  uint64_t insn;
  assert_int_equal(fp_commit(&p, e.mem, &insn), 0);
  uint64_t base, size;
  assert_true(vta_mem_find(e.mem, insn, &base, &size));
  /* Claim the whole allocation as a stream: the first word past its end is named. */
  uint32_t n = (uint32_t)(size / 16) + 3;
  assert_int_equal(vta_fsim_run(e.sim, insn, n, 0, NULL, &e.err), VTA_ERR_BOUNDS);
  char want[64];
  snprintf(want, sizeof want, "instruction %u: fetch", (unsigned)(size / 16));
  assert_msg_has(&e, want);
  fp_free(&p);
  env_close(&e);
}

/* The timeout budget counts steps: one per instruction plus one per micro-op (and element
 * moved). Each 1-uop GEMM below costs 2 steps, FINISH 1. */
static void test_fsim_timeout_counts_steps(void **state) {
  (void)state;
  env e;
  env_open(&e, NULL);
  fsim_prog p;
  fp_init(&p, &e.cfg);
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < 9; i++) fp_gemm(&p, 1, 0, 1, 1, 1, NULL, NULL, 0);
    fp_finish(&p, 0);
    uint64_t limit = k == 0 ? 10 : k == 1 ? 19 : 0;
    int rc = run_timeout(&e, &p, limit);
    if (k == 0) {
      assert_int_equal(rc, VTA_ERR_TIMEOUT);
      assert_msg_has(&e, "instruction 5 (gemm");
      assert_int_equal(e.st.insns, 5);
    } else {
      assert_int_equal(rc, VTA_OK);
      assert_int_equal(e.st.insns, 10);
    }
  }
  env_close(&e);
}

/* Regression (found by the CLI fuzz): a single GEMM of 2^13 x 16383 x 16383 micro-ops ran for
 * hours because the limit was checked between instructions only. It is refused before it runs. */
static void test_fsim_timeout_refuses_one_huge_instruction(void **state) {
  (void)state;
  env e;
  env_open(&e, NULL);
  fsim_prog p;
  fp_init(&p, &e.cfg);
  fp_gemm(&p, 1, 0, 1, 16383, 16383, NULL, NULL, 0);
  fp_finish(&p, 0);
  assert_int_equal(run_timeout(&e, &p, 1000000), VTA_ERR_TIMEOUT);
  assert_msg_has(&e, "instruction 0 (gemm");
  assert_int_equal(e.st.insns, 0);
  fp_free(&p);
  env_close(&e);
}

/* ---- Bounds ---- */

static void test_fsim_gemm_alu_index_out_of_range(void **state) {
  (void)state;
  env e;
  env_open(&e, NULL);
  const uint32_t dacc = e.cfg.depth[VTA_MEM_ACC], dinp = e.cfg.depth[VTA_MEM_INP];
  const uint32_t dwgt = e.cfg.depth[VTA_MEM_WGT];
  /* Micro-op 1 is the one with the largest fields; loops add (3-1)*1 + (2-1)*2 = 4. */
  vta_uop u[3] = {{0, 0, 0}, {dacc - 4, dinp - 4, dwgt - 4}, {1, 1, 1}};
  put_uops(&e, u, 3);
  int32_t before[16], after[16];
  vta_fsim_read_sram(e.sim, VTA_MEM_ACC, 0, 1, before, &e.err);
  const uint32_t ok_out[3] = {1, 1, 1}, ok_in[3] = {1, 1, 1};
  fsim_prog p;
  fp_init(&p, &e.cfg);
  fp_gemm(&p, 0, 0, 3, 3, 2, ok_out, ok_in, 0); /* reaches depth-1: fine */
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_OK);

  for (int which = 0; which < 3; which++) {
    uint32_t fo[3] = {1, 1, 1}, fi[3] = {1, 1, 1};
    fi[which] = 2;
    vta_fsim_read_sram(e.sim, VTA_MEM_ACC, 0, 1, before, &e.err);
    fp_gemm(&p, 1, 0, 1, 1, 1, NULL, NULL, 0);
    fp_gemm(&p, 0, 0, 3, 3, 2, fo, fi, 0);
    fp_finish(&p, 0);
    assert_int_equal(run(&e, &p), VTA_ERR_BOUNDS);
    assert_msg_has(&e, "instruction 1 (gemm uop_end=3 iter_out=3 iter_in=2");
    static const char *const bufs[3] = {"ACC buffer index 2048 is out of range (depth 2048)",
                                        "INP buffer index 2048 is out of range (depth 2048)",
                                        "WGT buffer index 1024 is out of range (depth 1024)"};
    assert_msg_has(&e, bufs[which]);
    assert_msg_has(&e, "micro-op 1");
    /* Nothing of the failing GEMM happened (the reset before it did). */
    vta_fsim_read_sram(e.sim, VTA_MEM_ACC, 0, 1, after, &e.err);
    for (int l = 0; l < 16; l++) assert_int_equal(after[l], 0);
  }
  /* ALU: dst always checked, src only for vector operands. */
  const uint32_t afo[2] = {1, 2};
  fp_alu(&p, VTA_ALU_ADD, 1, 1, 0, 3, 3, 2, afo, (uint32_t[2]){1, 1}, 0);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_OK);
  fp_alu(&p, VTA_ALU_ADD, 0, 1, 0, 3, 3, 2, afo, (uint32_t[2]){1, 1}, 0);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_ERR_BOUNDS);
  assert_msg_has(&e, "ACC buffer index 2049 is out of range");
  env_close(&e);
}

static void test_fsim_load_store_sram_out_of_range(void **state) {
  (void)state;
  env e;
  env_open(&e, NULL);
  uint64_t d = dalloc(&e, 1 << 20);
  fsim_prog p;
  fp_init(&p, &e.cfg);
  /* 2 pad rows + 1 row, 3 + 2 pad columns: 15 elements from 2034 end at 2048. */
  fp_load(&p, VTA_MEM_INP, 2034, el(&e, VTA_MEM_INP, d), 1, 3, 3, 2, 0, 0, 2, 0);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_ERR_BOUNDS);
  assert_msg_has(&e, "instruction 0 (load memory_type=inp sram_base=2034");
  assert_msg_has(&e, "INP buffer elements 2034 to 2048 but its depth is 2048");
  fp_load(&p, VTA_MEM_INP, 2033, el(&e, VTA_MEM_INP, d), 1, 3, 3, 2, 0, 0, 2, 0);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_OK);
  fp_load(&p, VTA_MEM_UOP, 8190, el(&e, VTA_MEM_UOP, d), 1, 3, 3, 0, 0, 0, 0, 0);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_ERR_BOUNDS);
  assert_msg_has(&e, "UOP buffer elements 8190 to 8192");
  fp_store(&p, 2040, el(&e, VTA_MEM_OUT, d), 3, 3, 3, 0);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_ERR_BOUNDS);
  assert_msg_has(&e, "OUT buffer elements 2040 to 2048");
  env_close(&e);
}

static void test_fsim_dma_outside_allocation(void **state) {
  (void)state;
  env e;
  env_open(&e, NULL);
  /* Two allocations with a gap: A at 1 MiB, B at 2 MiB, 4 KiB each. */
  assert_int_equal(vta_mem_alloc_at(e.mem, 1 << 20, 4096, &e.err), VTA_OK);
  assert_int_equal(vta_mem_alloc_at(e.mem, 2 << 20, 4096, &e.err), VTA_OK);
  uint8_t *A = dptr(&e, 1 << 20), *B = dptr(&e, 2 << 20);
  fill_random(&e, A, 4096);
  fill_random(&e, B, 4096);
  const uint32_t wa = (1 << 20) / 256, stride = (1 << 20) / 256; /* WGT elements */
  fsim_prog p;
  fp_init(&p, &e.cfg);
  /* Row 0 in A and row 1 in B: the span crosses the gap, each row is allocated. */
  fp_load(&p, VTA_MEM_WGT, 0, wa + 15, 2, 1, stride, 0, 0, 0, 0, 0);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_OK);
  int8_t got[512];
  vta_fsim_read_sram(e.sim, VTA_MEM_WGT, 0, 2, got, &e.err);
  assert_memory_equal(got, A + 15 * 256, 256);
  assert_memory_equal(got + 256, B + 15 * 256, 256);
  /* Two elements per row: row 0 runs past the end of A. */
  fp_load(&p, VTA_MEM_WGT, 0, wa + 15, 2, 2, stride, 0, 0, 0, 0, 0);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_ERR_BOUNDS);
  assert_msg_has(&e, "instruction 0 (load memory_type=wgt");
  assert_msg_has(&e, "DMA read of row 0 of 512 bytes at physical address 0x100f00");
  /* Nothing changed in the buffer. */
  int8_t again[512];
  vta_fsim_read_sram(e.sim, VTA_MEM_WGT, 0, 2, again, &e.err);
  assert_memory_equal(got, again, 512);
  /* A STORE past the end of A writes nothing at all, not even its first rows. */
  memset(A, 0x5a, 4096);
  fp_store(&p, 0, (1 << 20) / 16 + 250, 3, 2, 3, 0);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_ERR_BOUNDS);
  assert_msg_has(&e, "DMA write of row 2");
  for (int i = 0; i < 4096; i++) assert_int_equal(A[i], 0x5a);
  /* An address beyond any allocation. */
  fp_load(&p, VTA_MEM_INP, 0, 0x300000 / 16, 1, 1, 1, 0, 0, 0, 0, 0);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_ERR_BOUNDS);
  assert_msg_has(&e, "outside the allocated device memory");
  env_close(&e);
}

/* ---- Statistics ---- */

static void test_fsim_stats_count_everything(void **state) {
  (void)state;
  env e;
  env_open(&e, NULL);
  vta_uop u[4] = {{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {3, 3, 3}};
  uint64_t d = dalloc(&e, 1 << 16);
  fp_uops(&e.cfg, dptr(&e, d), u, 4);
  fsim_prog p;
  fp_init(&p, &e.cfg);
  fp_load(&p, VTA_MEM_UOP, 0, el(&e, VTA_MEM_UOP, d), 1, 4, 4, 0, 0, 0, 0, 0);       /* 16 B */
  fp_load(&p, VTA_MEM_INP, 0, el(&e, VTA_MEM_INP, d), 2, 3, 3, 1, 1, 1, 1, 0);       /* 96 B */
  fp_load(&p, VTA_MEM_WGT, 0, el(&e, VTA_MEM_WGT, d), 1, 4, 4, 0, 0, 2, 0, 0);       /* 1 KiB */
  fp_load(&p, VTA_MEM_ACC, 0, el(&e, VTA_MEM_ACC, d), 1, 2, 2, 0, 0, 0, 0, 0);       /* 128 B */
  fp_load(&p, VTA_MEM_ACC_8BIT, 0, el(&e, VTA_MEM_ACC_8BIT, d), 1, 2, 2, 0, 0, 0, 0, 0); /* 32 B */
  fp_load(&p, VTA_MEM_INP, 0, 0, 1, 0, 0, 0, 0, 0, 0, FP_PUSH_NEXT);                 /* sync */
  fp_gemm(&p, 1, 0, 4, 2, 3, NULL, NULL, FP_POP_PREV);                               /* 24 */
  fp_gemm(&p, 0, 0, 4, 2, 3, NULL, NULL, 0);                                         /* 24 */
  fp_alu(&p, VTA_ALU_MAX, 1, 0, 0, 2, 5, 1, NULL, NULL, FP_PUSH_NEXT);               /* 10 */
  fp_store(&p, 0, el(&e, VTA_MEM_OUT, d) + 100, 2, 3, 4, FP_POP_PREV);               /* 96 B */
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_OK);
  const vta_stats *s = &e.st;
  assert_int_equal(s->insns, 11);
  assert_int_equal(s->insns_by_module[VTA_MOD_LOAD], 3);
  assert_int_equal(s->insns_by_module[VTA_MOD_COMPUTE], 7);
  assert_int_equal(s->insns_by_module[VTA_MOD_STORE], 1);
  assert_int_equal(s->insns_by_opcode[VTA_OP_LOAD], 6);
  assert_int_equal(s->insns_by_opcode[VTA_OP_GEMM], 2);
  assert_int_equal(s->insns_by_opcode[VTA_OP_ALU], 1);
  assert_int_equal(s->insns_by_opcode[VTA_OP_STORE], 1);
  assert_int_equal(s->insns_by_opcode[VTA_OP_FINISH], 1);
  assert_int_equal(s->gemm_uops, 48);
  assert_int_equal(s->alu_uops, 10);
  assert_int_equal(s->uops, 58);
  assert_int_equal(s->macs, 24 * 256);
  assert_int_equal(s->bytes_read[VTA_MEM_UOP], 16);
  assert_int_equal(s->bytes_read[VTA_MEM_INP], 96);
  assert_int_equal(s->bytes_read[VTA_MEM_WGT], 1024);
  assert_int_equal(s->bytes_read[VTA_MEM_ACC], 128);
  assert_int_equal(s->bytes_read[VTA_MEM_ACC_8BIT], 32);
  assert_int_equal(s->bytes_written[VTA_MEM_OUT], 96);
  assert_int_equal(s->insn_bytes, 11 * 16);
  assert_int_equal(s->cycles, 0);
  /* Counters are added to what the caller passes. */
  vta_stats twice = *s;
  fp_load(&p, VTA_MEM_UOP, 0, el(&e, VTA_MEM_UOP, d), 1, 4, 4, 0, 0, 0, 0, 0);
  fp_finish(&p, 0);
  uint64_t insn;
  fp_commit(&p, e.mem, &insn);
  assert_int_equal(vta_fsim_run(e.sim, insn, 2, 0, &twice, &e.err), VTA_OK);
  assert_int_equal(twice.insns, 13);
  assert_int_equal(twice.bytes_read[VTA_MEM_UOP], 32);
  fp_free(&p);
  env_close(&e);
}

/* ---- The API around runs ---- */

static void test_fsim_sram_persists_across_runs(void **state) {
  (void)state;
  env e;
  env_open(&e, NULL);
  uint64_t d = dalloc(&e, 64);
  int32_t *a = dptr(&e, d);
  for (int l = 0; l < 16; l++) a[l] = l - 8;
  fsim_prog p;
  fp_init(&p, &e.cfg);
  fp_load(&p, VTA_MEM_ACC, 5, el(&e, VTA_MEM_ACC, d), 1, 1, 1, 0, 0, 0, 0, 0);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_OK);
  put_uops(&e, &(vta_uop){5, 0, 0}, 1); /* another run */
  fp_alu(&p, VTA_ALU_MUL, 1, -3, 0, 1, 1, 1, NULL, NULL, 0);
  fp_finish(&p, 0);
  assert_int_equal(run(&e, &p), VTA_OK);
  int32_t got[16];
  vta_fsim_read_sram(e.sim, VTA_MEM_ACC, 5, 1, got, &e.err);
  for (int l = 0; l < 16; l++) assert_int_equal(got[l], (l - 8) * -3);
  env_close(&e);
}

static void test_fsim_read_sram_checks_its_range(void **state) {
  (void)state;
  env e;
  env_open(&e, NULL);
  uint8_t buf[64];
  assert_int_equal(vta_fsim_read_sram(e.sim, VTA_MEM_OUT, 2047, 1, buf, &e.err), VTA_OK);
  assert_int_equal(vta_fsim_read_sram(e.sim, VTA_MEM_OUT, 2047, 2, buf, &e.err), VTA_ERR_BOUNDS);
  assert_msg_has(&e, "out buffer elements 2047 to 2048 are beyond its depth 2048");
  assert_int_equal(vta_fsim_read_sram(e.sim, VTA_MEM_ACC_8BIT, 0, 1, buf, &e.err),
                   VTA_ERR_INVALID);
  env_close(&e);
}

static void test_fsim_create_refuses_other_widths(void **state) {
  (void)state;
  vta_config cfg;
  vta_config_default(&cfg);
  cfg.acc_width = 16;
  vta_mem *mem;
  vta_error err;
  vta_fsim *sim = (vta_fsim *)(uintptr_t)1; /* must be reset to NULL */
  assert_int_equal(vta_mem_create(0, &mem, &err), VTA_OK);
  assert_int_equal(vta_fsim_create(&cfg, mem, &sim, &err), VTA_ERR_UNSUPPORTED);
  assert_null(sim);
  assert_non_null(strstr(err.msg, "ACC 16 bits"));
  vta_mem_destroy(mem);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fsim_load_every_padding_combination),
      cmocka_unit_test(test_fsim_load_x_size_zero_moves_nothing),
      cmocka_unit_test(test_fsim_load_uop_decodes_each_microop),
      cmocka_unit_test(test_fsim_load_acc_8bit_sign_extends),
      cmocka_unit_test(test_fsim_gemm_matches_matmul),
      cmocka_unit_test(test_fsim_gemm_matches_matmul_every_config),
      cmocka_unit_test(test_fsim_gemm_accumulates_and_wraps),
      cmocka_unit_test(test_fsim_alu_every_opcode_matches_reference),
      cmocka_unit_test(test_fsim_alu_microops_run_in_order),
      cmocka_unit_test(test_fsim_store_2d_writes_only_its_rows),
      cmocka_unit_test(test_fsim_load_acc_leaves_out_stale),
      cmocka_unit_test(test_fsim_tokens_order_modules),
      cmocka_unit_test(test_fsim_deadlock_names_each_blocked_head),
      cmocka_unit_test(test_fsim_load_and_store_ignore_flags_outside_the_pipeline),
      cmocka_unit_test(test_fsim_tokens_accumulate),
      cmocka_unit_test(test_fsim_finish_rules),
      cmocka_unit_test(test_fsim_undefined_opcode_and_memory_type),
      cmocka_unit_test(test_fsim_fetch_outside_memory),
      cmocka_unit_test(test_fsim_timeout_counts_steps),
      cmocka_unit_test(test_fsim_timeout_refuses_one_huge_instruction),
      cmocka_unit_test(test_fsim_gemm_alu_index_out_of_range),
      cmocka_unit_test(test_fsim_load_store_sram_out_of_range),
      cmocka_unit_test(test_fsim_dma_outside_allocation),
      cmocka_unit_test(test_fsim_stats_count_everything),
      cmocka_unit_test(test_fsim_sram_persists_across_runs),
      cmocka_unit_test(test_fsim_read_sram_checks_its_range),
      cmocka_unit_test(test_fsim_create_refuses_other_widths),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
