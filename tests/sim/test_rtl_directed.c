/* test_rtl_directed.c - the directed programs of test_fsim.c on both backends, through the
 * device interface: every run must leave fsim's and rtl's device memory bit-identical, and
 * both must refuse the same bad streams.
 *
 * fsim's tests look into the on-chip buffers (vta_fsim_read_sram); the hardware has no such
 * port, so here every buffer is observed the way a program sees it: ACC through ALU shifts
 * (SHR 0, 8, 16, 24, each followed by a STORE of the narrowed value, which together give all
 * 32 bits), INP and WGT through a GEMM against a fixed random element of the other operand.
 * Programs written for fsim's stream-order schedule are serialised with tokens first
 * (fp_serialize_words), as a runtime would order dependent work; programs whose point is
 * their tokens run as written. Where the two backends legitimately differ (a deadlock is a
 * timeout on hardware; GEMM/ALU indices wrap modulo the buffer depth instead of being refused)
 * the test says so and checks the hardware's behaviour.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rtl_pair.h"
#include "vta/device.h"

#define DEFAULT_CFG "configs/vta_default.json"
#define WIDE_CFG "sim/rtl/configs/rtl_wide.json"
#define MAX_ALLOCS 1024

enum { FS = 0, RT = 1 };
static const char *const k_backend[2] = {"fsim", "rtl"};

typedef struct dpair {
  vta_config cfg;
  vta_device *dev[2];
  uint64_t at[MAX_ALLOCS], size[MAX_ALLOCS];
  int nalloc;
  vta_stats st[2];
  vta_error err[2];
  int rc[2];
  uint64_t seed;
} dpair;

static void pair_open(dpair *p, const char *config, const char *rtl_options) {
  memset(p, 0, sizeof *p);
  vta_error err;
  if (vta_config_load(&p->cfg, config, &err) != VTA_OK) fail_msg("%s", err.msg);
  for (int k = 0; k < 2; k++)
    if (vta_device_open(k_backend[k], &p->cfg, k == RT ? rtl_options : NULL, &p->dev[k], &err) !=
        VTA_OK)
      fail_msg("%s: %s", k_backend[k], err.msg);
  p->seed = 12345;
}

static void pair_close(dpair *p) {
  for (int k = 0; k < 2; k++) vta_device_close(p->dev[k]);
}

static void *hp(dpair *p, int k, uint64_t phys) { return vta_device_host_ptr(p->dev[k], phys); }

/* Allocates n bytes on both devices (the same address: the allocators are deterministic),
 * zeroed; the allocation joins the memory compared after every run. */
static uint64_t palloc(dpair *p, uint64_t n) {
  uint64_t a[2];
  for (int k = 0; k < 2; k++)
    assert_int_equal(vta_device_alloc(p->dev[k], n, &a[k], NULL), VTA_OK);
  assert_true(a[0] == a[1]);
  assert_true(p->nalloc < MAX_ALLOCS);
  p->at[p->nalloc] = a[0];
  p->size[p->nalloc++] = n;
  return a[0];
}

/* Writes the same bytes (random when src is NULL) into both devices. */
static void pset(dpair *p, uint64_t phys, const void *src, size_t n) {
  uint8_t *buf = malloc(n ? n : 1);
  assert_non_null(buf);
  for (size_t i = 0; i < n; i++) buf[i] = src ? ((const uint8_t *)src)[i] : (uint8_t)fp_rand(&p->seed);
  for (int k = 0; k < 2; k++) assert_int_equal(vta_device_copy_to(p->dev[k], phys, buf, n, NULL), VTA_OK);
  free(buf);
}

static uint32_t el(const dpair *p, vta_mem_type t, uint64_t phys) {
  return (uint32_t)(phys / p->cfg.elem_bytes[t]);
}

static void assert_same_memory(dpair *p) {
  for (int i = 0; i < p->nalloc; i++) {
    const uint8_t *a = hp(p, FS, p->at[i]), *b = hp(p, RT, p->at[i]);
    for (uint64_t j = 0; j < p->size[i]; j++)
      if (a[j] != b[j])
        fail_msg("after the run, byte %llu of the allocation at 0x%llx differs: fsim 0x%02x, "
                 "rtl 0x%02x",
                 (unsigned long long)j, (unsigned long long)p->at[i], a[j], b[j]);
  }
}

/* Runs prog (serialised first if asked) on both devices; p->rc, p->st, p->err hold the
 * outcomes. The program is consumed (re-initialised for the next one). */
static void prun_rc(dpair *p, fsim_prog *prog, int serialize, uint64_t rtl_timeout) {
  fsim_prog s;
  fp_init(&s, &p->cfg);
  if (serialize)
    assert_int_equal(fp_serialize_words(&p->cfg, prog->words, prog->n, &s), 0);
  fsim_prog *run = serialize ? &s : prog;
  uint64_t bytes = (run->n ? run->n : 1) * VTA_INSN_BYTES;
  uint8_t *words = calloc(1, bytes);
  assert_non_null(words);
  for (size_t i = 0; i < run->n; i++) vta_insn_word_store(&run->words[i], words + i * VTA_INSN_BYTES);
  for (int k = 0; k < 2; k++) {
    uint64_t insn;
    assert_int_equal(vta_device_alloc(p->dev[k], bytes, &insn, NULL), VTA_OK);
    assert_int_equal(vta_device_copy_to(p->dev[k], insn, words, bytes, NULL), VTA_OK);
    memset(&p->st[k], 0, sizeof p->st[k]);
    p->err[k].msg[0] = 0;
    p->rc[k] = vta_device_run(p->dev[k], insn, fp_count(run), k == RT ? rtl_timeout : 0,
                              &p->st[k], &p->err[k]);
    vta_device_free(p->dev[k], insn);
  }
  free(words);
  fp_free(&s);
  fp_free(prog);
  fp_init(prog, &p->cfg);
}

/* Runs prog on both; both must succeed with identical memory and shared counters. */
static void prun(dpair *p, fsim_prog *prog, int serialize) {
  prun_rc(p, prog, serialize, 2000000);
  for (int k = 0; k < 2; k++)
    if (p->rc[k] != VTA_OK) fail_msg("%s: %s", k_backend[k], p->err[k].msg);
  assert_same_memory(p);
  assert_int_equal(p->st[FS].insns, p->st[RT].insns);
  for (int m = 0; m < VTA_MOD_COUNT; m++)
    assert_int_equal(p->st[FS].insns_by_module[m], p->st[RT].insns_by_module[m]);
  for (int o = 0; o < VTA_OP_COUNT; o++)
    assert_int_equal(p->st[FS].insns_by_opcode[o], p->st[RT].insns_by_opcode[o]);
  assert_int_equal(p->st[FS].gemm_uops, p->st[RT].gemm_uops);
  assert_int_equal(p->st[FS].alu_uops, p->st[RT].alu_uops);
  assert_int_equal(p->st[FS].macs, p->st[RT].macs);
  for (int t = 0; t < VTA_MEM_COUNT; t++) {
    assert_int_equal(p->st[FS].bytes_read[t], p->st[RT].bytes_read[t]);
    assert_int_equal(p->st[FS].bytes_written[t], p->st[RT].bytes_written[t]);
  }
  assert_true(p->st[RT].cycles > 0);
}

/* Both refuse the program with `status`, and both messages contain `needle`. */
static void prun_fails(dpair *p, fsim_prog *prog, int status, const char *needle) {
  prun_rc(p, prog, 0, 100000);
  for (int k = 0; k < 2; k++) {
    if (p->rc[k] != status)
      fail_msg("%s returned %d (%s), expected %d", k_backend[k], p->rc[k], p->err[k].msg, status);
    if (!strstr(p->err[k].msg, needle))
      fail_msg("%s: message \"%s\" lacks \"%s\"", k_backend[k], p->err[k].msg, needle);
  }
  assert_same_memory(p);
}

/* ---- Observing the buffers through programs ---- */

/* The micro-op buffer entry the observers use (above anything the tests load). */
#define OBS_UOP 200

/* Appends: load micro-op u into OBS_UOP (from a fresh allocation). */
static void obs_uop(dpair *p, fsim_prog *prog, vta_uop u) {
  uint64_t d = palloc(p, 4);
  uint8_t w[4];
  fp_uops(&p->cfg, w, &u, 1);
  pset(p, d, w, 4);
  fp_load(prog, VTA_MEM_UOP, OBS_UOP, el(p, VTA_MEM_UOP, d), 1, 1, 1, 0, 0, 0, 0, 0);
}

/* Appends a dump of ACC rows [first, first + n): four STOREs of narrow(ACC >> 8k), k = 0..3,
 * into a new allocation (ACC is shifted in place: the rows are consumed). */
static uint64_t dump_acc(dpair *p, fsim_prog *prog, uint32_t first, uint32_t n) {
  uint32_t eb = p->cfg.elem_bytes[VTA_MEM_OUT];
  uint64_t out = palloc(p, 4ull * n * eb);
  obs_uop(p, prog, (vta_uop){first, first, 0});
  const uint32_t fo[2] = {1, 1};
  for (int k = 0; k < 4; k++) {
    fp_alu(prog, VTA_ALU_SHR, 1, k ? 8 : 0, OBS_UOP, OBS_UOP + 1, n, 1, fo, NULL, 0);
    fp_store(prog, first, el(p, VTA_MEM_OUT, out) + (uint32_t)k * n, 1, n, n, 0);
  }
  return out;
}

/* Appends an observation of INP (or WGT) rows [first, first + n): a GEMM of each against the
 * element `other` of the other operand, into ACC rows from half the ACC depth, stored. */
static void observe(dpair *p, fsim_prog *prog, vta_mem_type t, uint32_t first, uint32_t n,
                    uint32_t other) {
  uint32_t acc = p->cfg.depth[VTA_MEM_ACC] / 2, eb = p->cfg.elem_bytes[VTA_MEM_OUT];
  uint64_t out = palloc(p, (uint64_t)n * eb);
  int inp = t == VTA_MEM_INP;
  obs_uop(p, prog, (vta_uop){acc, inp ? first : other, inp ? other : first});
  const uint32_t fo[3] = {1, inp ? 1u : 0u, inp ? 0u : 1u};
  fp_gemm(prog, 1, OBS_UOP, OBS_UOP + 1, n, 1, fo, NULL, 0);
  fp_gemm(prog, 0, OBS_UOP, OBS_UOP + 1, n, 1, fo, NULL, 0);
  fp_store(prog, acc, el(p, VTA_MEM_OUT, out), 1, n, n, 0);
}

/* Appends: random data into the last element of INP and WGT, the observers' other operand. */
static void load_observer_operands(dpair *p, fsim_prog *prog) {
  uint64_t d = palloc(p, p->cfg.elem_bytes[VTA_MEM_WGT] + p->cfg.elem_bytes[VTA_MEM_INP]);
  pset(p, d, NULL, p->cfg.elem_bytes[VTA_MEM_WGT] + p->cfg.elem_bytes[VTA_MEM_INP]);
  fp_load(prog, VTA_MEM_WGT, p->cfg.depth[VTA_MEM_WGT] - 1, el(p, VTA_MEM_WGT, d), 1, 1, 1, 0, 0,
          0, 0, 0);
  fp_load(prog, VTA_MEM_INP, p->cfg.depth[VTA_MEM_INP] - 1,
          el(p, VTA_MEM_INP, d + p->cfg.elem_bytes[VTA_MEM_WGT]), 1, 1, 1, 0, 0, 0, 0, 0);
}

/* Appends the observation of buffer entries [0, n) of the buffer type t loads into. */
static void observe_buffer(dpair *p, fsim_prog *prog, vta_mem_type t, uint32_t n) {
  if (t == VTA_MEM_ACC || t == VTA_MEM_ACC_8BIT)
    dump_acc(p, prog, 0, n);
  else if (t == VTA_MEM_INP)
    observe(p, prog, t, 0, n, p->cfg.depth[VTA_MEM_WGT] - 1);
  else
    observe(p, prog, t, 0, n, p->cfg.depth[VTA_MEM_INP] - 1);
}

/* ---- LOAD ---- */

static void padded_load(dpair *p, vta_mem_type t, uint32_t y, uint32_t x, uint32_t stride,
                        uint32_t yp0, uint32_t yp1, uint32_t xp0, uint32_t xp1, uint64_t fill,
                        uint64_t src) {
  uint32_t sram = 7, xt = xp0 + x + xp1, total = (yp0 + y + yp1) * xt, n = sram + total + 5;
  fsim_prog prog;
  fp_init(&prog, &p->cfg);
  load_observer_operands(p, &prog);
  fp_load(&prog, t, 0, el(p, t, fill), 1, n, n, 0, 0, 0, 0, 0);
  fp_load(&prog, t, sram, el(p, t, src), y, x, stride, yp0, yp1, xp0, xp1, 0);
  observe_buffer(p, &prog, t, n);
  fp_finish(&prog, 0);
  prun(p, &prog, 1);
}

static void test_rtl_directed_load_padding_combinations(void **state) {
  dpair p;
  pair_open(&p, DEFAULT_CFG, NULL);
  static const vta_mem_type types[] = {VTA_MEM_INP, VTA_MEM_WGT, VTA_MEM_ACC, VTA_MEM_ACC_8BIT};
  static const uint32_t pads[] = {0, 2};
  uint64_t fill = palloc(&p, 1100 * 256), src = palloc(&p, 64 * 256);
  pset(&p, fill, NULL, 1100 * 256);
  pset(&p, src, NULL, 64 * 256);
  for (size_t ti = 0; ti < 4; ti++) {
    for (int c = 0; c < 16; c++)
      padded_load(&p, types[ti], 2, 3, 5, pads[c & 1], pads[c >> 1 & 1], pads[c >> 2 & 1],
                  pads[c >> 3], fill, src);
    padded_load(&p, types[ti], 1, 1, 1, 15, 15, 15, 15, fill, src); /* the largest pads */
    padded_load(&p, types[ti], 3, 4, 2, 1, 0, 0, 2, fill, src);     /* stride < row */
    padded_load(&p, types[ti], 0, 2, 2, 1, 1, 1, 1, fill, src);     /* pads only */
  }
  pair_close(&p);
}

static void test_rtl_directed_load_x_size_zero_moves_nothing(void **state) {
  dpair p;
  pair_open(&p, DEFAULT_CFG, NULL);
  uint64_t d = palloc(&p, 4096);
  pset(&p, d, NULL, 4096);
  fsim_prog prog;
  fp_init(&prog, &p.cfg);
  load_observer_operands(&p, &prog);
  fp_load(&prog, VTA_MEM_INP, 0, el(&p, VTA_MEM_INP, d), 1, 8, 8, 0, 0, 0, 0, 0);
  fp_load(&prog, VTA_MEM_INP, 0, el(&p, VTA_MEM_INP, d), 2, 0, 0, 3, 3, 3, 3, 0);
  observe_buffer(&p, &prog, VTA_MEM_INP, 8);
  fp_finish(&prog, 0);
  prun(&p, &prog, 1);
  pair_close(&p);
}

static void test_rtl_directed_load_acc_8bit_sign_extends(void **state) {
  dpair p;
  pair_open(&p, DEFAULT_CFG, NULL);
  uint64_t d = palloc(&p, 64);
  uint8_t b[64];
  for (int i = 0; i < 64; i++) b[i] = (uint8_t)(i * 37 + 0x70);
  b[16] = 0x80;
  b[17] = 0xff;
  b[18] = 0x7f;
  pset(&p, d, b, 64);
  fsim_prog prog;
  fp_init(&prog, &p.cfg);
  fp_load(&prog, VTA_MEM_ACC_8BIT, 3, el(&p, VTA_MEM_ACC_8BIT, d) + 1, 1, 2, 2, 0, 0, 0, 0, 0);
  uint64_t dump = dump_acc(&p, &prog, 3, 2);
  fp_finish(&prog, 0);
  prun(&p, &prog, 1);
  /* The dump of lane 1 of row 3: bytes 0xff, then the sign extension 0xff 0xff 0xff. */
  const int8_t *out = hp(&p, RT, dump);
  for (int k = 0; k < 4; k++) assert_int_equal(out[k * 2 * 16 + 1], -1);
  assert_int_equal(out[0], -128);
  assert_int_equal(out[2 * 16], -1); /* -128 >> 8 */
  pair_close(&p);
}

/* ---- GEMM ---- */

/* test_fsim's blocked matrix product (M = mo*mi rows, KB input blocks, NB output blocks, two
 * loop levels), checked against a plain triple loop as well as against fsim. */
static void gemm_case(dpair *p, uint32_t mo, uint32_t mi, uint32_t kb, uint32_t nb) {
  const vta_config *c = &p->cfg;
  const uint32_t B = c->batch, BI = c->block_in, BO = c->block_out, M = mo * mi;
  uint64_t dx = palloc(p, (uint64_t)M * kb * c->elem_bytes[VTA_MEM_INP]);
  uint64_t dw = palloc(p, (uint64_t)nb * kb * c->elem_bytes[VTA_MEM_WGT]);
  uint64_t dout = palloc(p, (uint64_t)M * nb * c->elem_bytes[VTA_MEM_OUT]);
  uint64_t du = palloc(p, 4ull * nb * kb);
  pset(p, dx, NULL, (size_t)M * kb * B * BI);
  pset(p, dw, NULL, (size_t)nb * kb * BO * BI);
  vta_uop *u = calloc((size_t)nb * kb, sizeof *u);
  uint8_t *uw = calloc((size_t)nb * kb, 4);
  for (uint32_t n = 0; n < nb; n++)
    for (uint32_t k = 0; k < kb; k++) u[n * kb + k] = (vta_uop){n, k, n * kb + k};
  fp_uops(c, uw, u, (size_t)nb * kb);
  pset(p, du, uw, 4ull * nb * kb);
  free(u);
  free(uw);
  fsim_prog prog;
  fp_init(&prog, c);
  fp_load(&prog, VTA_MEM_UOP, 0, el(p, VTA_MEM_UOP, du), 1, nb * kb, nb * kb, 0, 0, 0, 0, 0);
  fp_load(&prog, VTA_MEM_INP, 0, el(p, VTA_MEM_INP, dx), 1, M * kb, M * kb, 0, 0, 0, 0, 0);
  fp_load(&prog, VTA_MEM_WGT, 0, el(p, VTA_MEM_WGT, dw), 1, nb * kb, nb * kb, 0, 0, 0, 0, 0);
  const uint32_t fo[3] = {mi * nb, mi * kb, 0}, fi[3] = {nb, kb, 0};
  fp_gemm(&prog, 1, 0, nb * kb, mo, mi, fo, fi, 0);
  fp_gemm(&prog, 0, 0, nb * kb, mo, mi, fo, fi, 0);
  fp_store(&prog, 0, el(p, VTA_MEM_OUT, dout), 1, M * nb, M * nb, 0);
  fp_finish(&prog, 0);
  prun(p, &prog, 1);
  const int8_t *x = hp(p, RT, dx), *w = hp(p, RT, dw), *out = hp(p, RT, dout);
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
          if (out[at] != (int8_t)s)
            fail_msg("m=%u n=%u b=%u o=%u: out %d, expected %d", m, n, b, o, out[at], (int8_t)s);
        }
  assert_int_equal(p->st[RT].gemm_uops, 2ull * nb * kb * M);
}

static void test_rtl_directed_gemm_matches_matmul(void **state) {
  static const char *const configs[] = {DEFAULT_CFG, WIDE_CFG};
  for (int i = 0; i < 2; i++) {
    dpair p;
    pair_open(&p, configs[i], NULL);
    gemm_case(&p, 3, 4, 2, 3);
    gemm_case(&p, 1, 1, 1, 1);
    gemm_case(&p, 2, 3, 2, 2);
    pair_close(&p);
  }
}

static void test_rtl_directed_gemm_accumulates_and_wraps(void **state) {
  dpair p;
  pair_open(&p, DEFAULT_CFG, NULL);
  uint64_t da = palloc(&p, 64), dx = palloc(&p, 16), dw = palloc(&p, 256), du = palloc(&p, 4);
  int32_t a[16];
  for (int l = 0; l < 16; l++) a[l] = l == 0 ? INT32_MAX - 5 : -l;
  pset(&p, da, a, 64);
  uint8_t x[16], w[256], uw[4];
  memset(x, 127, 16);
  for (int i = 0; i < 256; i++) w[i] = (uint8_t)(int8_t)(i / 16 == 0 ? 127 : (i % 3) - 1);
  pset(&p, dx, x, 16);
  pset(&p, dw, w, 256);
  fp_uops(&p.cfg, uw, &(vta_uop){0, 0, 0}, 1);
  pset(&p, du, uw, 4);
  fsim_prog prog;
  fp_init(&prog, &p.cfg);
  fp_load(&prog, VTA_MEM_UOP, 0, el(&p, VTA_MEM_UOP, du), 1, 1, 1, 0, 0, 0, 0, 0);
  fp_load(&prog, VTA_MEM_ACC, 0, el(&p, VTA_MEM_ACC, da), 1, 1, 1, 0, 0, 0, 0, 0);
  fp_load(&prog, VTA_MEM_INP, 0, el(&p, VTA_MEM_INP, dx), 1, 1, 1, 0, 0, 0, 0, 0);
  fp_load(&prog, VTA_MEM_WGT, 0, el(&p, VTA_MEM_WGT, dw), 1, 1, 1, 0, 0, 0, 0, 0);
  fp_gemm(&prog, 0, 0, 1, 2, 1, NULL, NULL, 0); /* the same micro-op twice: accumulates */
  uint64_t dump = dump_acc(&p, &prog, 0, 1);
  fp_finish(&prog, 0);
  prun(&p, &prog, 1);
  const uint8_t *d = hp(&p, RT, dump);
  for (int o = 0; o < 16; o++) {
    int64_t dot = 0;
    for (int ci = 0; ci < 16; ci++) dot += 127 * (int8_t)w[o * 16 + ci];
    uint32_t expect = (uint32_t)((int64_t)a[o] + 2 * dot), got = 0;
    for (int k = 0; k < 4; k++) got |= (uint32_t)d[k * 16 + o] << (8 * k);
    assert_int_equal(got, expect);
  }
  pair_close(&p);
}

/* vta_gemm takes two products per DSP slice (channels 2j and 2j+1 share one, docs/hw.md "Two
 * products per DSP slice"); its corrections depend on the operands' extremes, which random data
 * almost never reaches (pair 0's flag needs four bytes of -128). Dot products of extreme
 * operands, reset then accumulated once, read back at 32 bits and compared with the plain sum
 * (and, as everywhere here, with fsim). */
static void test_rtl_directed_gemm_packed_products_at_the_extremes(void **state) {
  (void)state;
  static const int8_t ext[] = {-128, -127, -1, 0, 1, 126, 127};
  uint32_t r = 12345;
  for (int pat = 0; pat < 8; pat++) {
    dpair p;
    pair_open(&p, DEFAULT_CFG, NULL);
    uint64_t dx = palloc(&p, 16), dw = palloc(&p, 256), du = palloc(&p, 4);
    int8_t x[16], w[256];
    uint8_t uw[4];
    for (int ci = 0; ci < 16; ci++) {
      r = r * 1103515245u + 12345u;
      x[ci] = pat == 4 ? (int8_t)(ci % 2 ? 127 : -128)
              : pat == 5 ? 127
              : pat >= 6 ? ext[(r >> 16) % 7]
                         : -128;
    }
    for (int i = 0; i < 256; i++) {
      int o = i / 16, ci = i % 16;
      r = r * 1103515245u + 12345u;
      w[i] = pat == 1 ? (int8_t)(o % 2 ? -128 : 127)
             : pat == 2 ? (int8_t)(o % 2 ? 127 : -128)
             : pat == 3 ? (int8_t)(o % 2 && ci < 2 ? -128 : (ci % 3 ? 127 : -127))
             : pat >= 6 ? ext[(r >> 16) % 7]
                        : -128;
    }
    pset(&p, dx, x, 16);
    pset(&p, dw, w, 256);
    fp_uops(&p.cfg, uw, &(vta_uop){0, 0, 0}, 1);
    pset(&p, du, uw, 4);
    fsim_prog prog;
    fp_init(&prog, &p.cfg);
    fp_load(&prog, VTA_MEM_UOP, 0, el(&p, VTA_MEM_UOP, du), 1, 1, 1, 0, 0, 0, 0, 0);
    fp_load(&prog, VTA_MEM_INP, 0, el(&p, VTA_MEM_INP, dx), 1, 1, 1, 0, 0, 0, 0, 0);
    fp_load(&prog, VTA_MEM_WGT, 0, el(&p, VTA_MEM_WGT, dw), 1, 1, 1, 0, 0, 0, 0, 0);
    fp_gemm(&prog, 1, 0, 1, 1, 1, NULL, NULL, 0);
    fp_gemm(&prog, 0, 0, 1, 1, 1, NULL, NULL, 0);
    uint64_t dump = dump_acc(&p, &prog, 0, 1);
    fp_finish(&prog, 0);
    prun(&p, &prog, 1);
    const uint8_t *d = hp(&p, RT, dump);
    for (int o = 0; o < 16; o++) {
      int32_t dot = 0;
      for (int ci = 0; ci < 16; ci++) dot += x[ci] * w[o * 16 + ci];
      uint32_t got = 0;
      for (int k = 0; k < 4; k++) got |= (uint32_t)d[k * 16 + o] << (8 * k);
      if ((int32_t)got != dot)
        fail_msg("pattern %d, channel %d: ACC %d, dot product %d", pat, o, (int32_t)got, dot);
    }
    pair_close(&p);
  }
}

/* ---- ALU ---- */

static const int32_t k_edges[] = {INT32_MIN, INT32_MAX, -1, 0, 1, 2, -2, 0x12345678,
                                  -0x12345678, 31, 32, 33, -31, -32, -33, 63, 64, -64, 65535,
                                  -65536, 127, 128, -129, 255, 256, 0x40000000};

static void test_rtl_directed_alu_every_opcode(void **state) {
  dpair p;
  pair_open(&p, DEFAULT_CFG, NULL);
  uint64_t du = palloc(&p, 8), da = palloc(&p, 8 * 64);
  uint8_t uw[8];
  vta_uop u[2] = {{0, 4, 0}, {1, 5, 0}};
  fp_uops(&p.cfg, uw, u, 2);
  pset(&p, du, uw, 8);
  int32_t a[128];
  for (int i = 0; i < 64; i++)
    a[i] = i < (int)(sizeof k_edges / sizeof k_edges[0]) ? k_edges[i]
                                                          : (int32_t)(uint32_t)fp_rand(&p.seed);
  for (int i = 0; i < 64; i++) a[64 + i] = (int32_t)(((uint32_t)fp_rand(&p.seed) << 6) | (uint32_t)i);
  a[64 + 5] = INT32_MIN;
  a[64 + 6] = INT32_MAX;
  pset(&p, da, a, sizeof a);
  static const int32_t imms[] = {0,  1,  -1, 5,     31,     32,     33,  63,  64,
                                 -31, -32, -33, -64, 32767, -32768, 0x7fc0, 100, -100};
  const int nimm = (int)(sizeof imms / sizeof imms[0]);
  /* Every opcode with a vector operand, then with each immediate (SHR: then every shift;
   * SHRCLIP: then a vector operand with each immediate as its lower bound). */
  for (int op = 0; op < VTA_ALU_COUNT; op++)
    for (int k = -1; k < nimm + (op == VTA_ALU_SHR ? 141 : op == VTA_ALU_SHRCLIP ? nimm : 0);
         k++) {
      int use_imm = k >= 0 && k < nimm + (op == VTA_ALU_SHR ? 141 : 0);
      int32_t imm = k < 0 ? 0 : k < nimm ? imms[k] : op == VTA_ALU_SHR ? k - nimm - 70
                                                                        : imms[k - nimm];
      fsim_prog prog;
      fp_init(&prog, &p.cfg);
      fp_load(&prog, VTA_MEM_UOP, 0, el(&p, VTA_MEM_UOP, du), 1, 2, 2, 0, 0, 0, 0, 0);
      fp_load(&prog, VTA_MEM_ACC, 0, el(&p, VTA_MEM_ACC, da), 1, 8, 8, 0, 0, 0, 0, 0);
      const uint32_t fo[2] = {2, 2};
      fp_alu(&prog, (vta_alu_op)op, use_imm, imm, 0, 2, 2, 1, fo, NULL, 0);
      dump_acc(&p, &prog, 0, 8);
      fp_finish(&prog, 0);
      prun(&p, &prog, 1);
      /* Drop this case's dump allocations (its output and micro-op): compared once. */
      for (int i = 0; i < 2; i++) {
        p.nalloc--;
        for (int k2 = 0; k2 < 2; k2++) vta_device_free(p.dev[k2], p.at[p.nalloc]);
      }
    }
  pair_close(&p);
}

static void test_rtl_directed_alu_microops_run_in_order(void **state) {
  dpair p;
  pair_open(&p, DEFAULT_CFG, NULL);
  uint64_t du = palloc(&p, 12), da = palloc(&p, 4 * 64);
  uint8_t uw[12];
  vta_uop u[3] = {{1, 0, 0}, {2, 1, 0}, {3, 2, 0}};
  fp_uops(&p.cfg, uw, u, 3);
  pset(&p, du, uw, 12);
  int32_t a[64];
  for (int i = 0; i < 64; i++) a[i] = i * 1000 - 7;
  pset(&p, da, a, sizeof a);
  fsim_prog prog;
  fp_init(&prog, &p.cfg);
  fp_load(&prog, VTA_MEM_UOP, 0, el(&p, VTA_MEM_UOP, du), 1, 3, 3, 0, 0, 0, 0, 0);
  fp_load(&prog, VTA_MEM_ACC, 0, el(&p, VTA_MEM_ACC, da), 1, 4, 4, 0, 0, 0, 0, 0);
  fp_alu(&prog, VTA_ALU_ADD, 0, 0, 0, 3, 1, 1, NULL, NULL, 0);
  uint64_t dump = dump_acc(&p, &prog, 0, 4);
  fp_finish(&prog, 0);
  prun(&p, &prog, 1);
  const int8_t *d = hp(&p, RT, dump);
  for (int l = 0; l < 16; l++) { /* the low byte of each prefix sum */
    int32_t s = a[l];
    for (int r = 1; r < 4; r++) {
      s += a[r * 16 + l];
      assert_int_equal(d[r * 16 + l], (int8_t)s);
    }
  }
  pair_close(&p);
}

/* A product (and SHRCLIP's clip) is ready a cycle after the ALU's other results (docs/hw.md,
 * "Compute pipeline"), so the ALU's sequencer holds a micro-op that reads the destination of the
 * MUL or SHRCLIP just before it.
 * Every form of that read: as the destination, as the vector operand, within one instruction
 * (a loop over one element, a chain of micro-ops each reading the one before) and across two
 * (MUL then an operation on its last element), with MULs of reset micro-ops between. Data on
 * rtl must equal fsim's, and the stalls must cost cycles: the same chain of ADDs, which need
 * none, runs faster. The same for SHRCLIP (its vector operand then holds the shift amount and
 * upper bound of the one before; with the immediate, the bounds cross and give zero). */
static void test_rtl_directed_alu_reads_a_product_the_next_cycle(void **state) {
  dpair p;
  pair_open(&p, DEFAULT_CFG, NULL);
  uint64_t du = palloc(&p, 16), da = palloc(&p, 4 * 64 * 8);
  uint8_t uw[16];
  vta_uop u[4] = {{1, 0, 0}, {2, 1, 0}, {3, 2, 0}, {4, 4, 0}};
  fp_uops(&p.cfg, uw, u, 4);
  pset(&p, du, uw, 16);
  int32_t a[8 * 16];
  for (int i = 0; i < 8 * 16; i++) a[i] = (int32_t)(fp_rand(&p.seed) % 2001) - 1000;
  pset(&p, da, a, sizeof a);
  const uint32_t z[2] = {0, 0};
  static const vta_alu_op ops[3] = {VTA_ALU_MUL, VTA_ALU_SHRCLIP, VTA_ALU_ADD};
  uint64_t cycles[3];
  for (int op = 0; op < 3; op++) {
    vta_alu_op o = ops[op];
    fsim_prog prog;
    fp_init(&prog, &p.cfg);
    fp_load(&prog, VTA_MEM_UOP, 0, el(&p, VTA_MEM_UOP, du), 1, 4, 4, 0, 0, 0, 0, 0);
    fp_load(&prog, VTA_MEM_ACC, 0, el(&p, VTA_MEM_ACC, da), 1, 8, 8, 0, 0, 0, 0, 0);
    for (int r = 0; r < 8; r++) {
      fp_alu(&prog, o, 0, 0, 0, 3, 1, 1, NULL, NULL, 0);      /* each reads the one before */
      fp_alu(&prog, o, 1, 3, 3, 4, 1, 5, z, z, 0);            /* element 4, five times */
      fp_alu(&prog, VTA_ALU_MAX, 1, -7, 3, 4, 1, 1, z, z, 0); /* the last product, next cycle */
    }
    dump_acc(&p, &prog, 0, 8);
    fp_finish(&prog, 0);
    prun(&p, &prog, 1);
    cycles[op] = p.st[RT].cycles;
  }
  /* Per round 2 + 4 + 1 stalls of the MUL chain, the ADD chain's none; where an instruction
   * waits in D anyway a stall costs nothing, but the four within the loop over one element
   * always cost a cycle each. */
  for (int op = 0; op < 2; op++)
    if (cycles[op] < cycles[2] + 8 * 4)
      fail_msg("%s chain %llu cycles, ADD chain %llu: the stalls are missing",
               vta_alu_op_name(ops[op]), (unsigned long long)cycles[op],
               (unsigned long long)cycles[2]);
  pair_close(&p);
}

/* ---- STORE and the stale-OUT rule ---- */

static void test_rtl_directed_store_2d_writes_only_its_rows(void **state) {
  static const char *const configs[] = {DEFAULT_CFG, WIDE_CFG};
  for (int i = 0; i < 2; i++) {
    dpair p;
    pair_open(&p, configs[i], NULL);
    const vta_config *c = &p.cfg;
    uint32_t ea = c->elem_bytes[VTA_MEM_ACC], eo = c->elem_bytes[VTA_MEM_OUT];
    uint64_t du = palloc(&p, 4), da = palloc(&p, 6ull * ea), dout = palloc(&p, 64ull * eo);
    uint8_t uw[4];
    fp_uops(c, uw, &(vta_uop){0, 0, 0}, 1);
    pset(&p, du, uw, 4);
    pset(&p, da, NULL, 6ull * ea);
    uint8_t *fill = malloc(64ull * eo);
    memset(fill, 0xee, 64ull * eo);
    pset(&p, dout, fill, 64ull * eo);
    free(fill);
    fsim_prog prog;
    fp_init(&prog, c);
    fp_load(&prog, VTA_MEM_UOP, 0, el(&p, VTA_MEM_UOP, du), 1, 1, 1, 0, 0, 0, 0, 0);
    fp_load(&prog, VTA_MEM_ACC, 0, el(&p, VTA_MEM_ACC, da), 1, 6, 6, 0, 0, 0, 0, 0);
    const uint32_t fi[2] = {1, 1};
    fp_alu(&prog, VTA_ALU_SHR, 1, 0, 0, 1, 1, 6, NULL, fi, 0); /* ACC rows 0-5 into OUT */
    /* 3 rows of 2 elements to DRAM element 1 with a stride of 5 (on the wide bus, rows that
     * start and end inside a beat: byte strobes). */
    fp_store(&prog, 0, el(&p, VTA_MEM_OUT, dout) + 1, 3, 2, 5, 0);
    fp_finish(&prog, 0);
    prun(&p, &prog, 1);
    const uint8_t *d = hp(&p, RT, dout);
    int written = 0;
    for (uint32_t b = 0; b < 64 * eo; b++) written += d[b] != 0xee;
    assert_true(written > 0 && written <= 6 * (int)eo);
    pair_close(&p);
  }
}

static void test_rtl_directed_load_acc_leaves_out_stale(void **state) {
  dpair p;
  pair_open(&p, DEFAULT_CFG, NULL);
  uint64_t du = palloc(&p, 4), da = palloc(&p, 64), db = palloc(&p, 64), dout = palloc(&p, 48);
  uint8_t uw[4];
  fp_uops(&p.cfg, uw, &(vta_uop){0, 0, 0}, 1);
  pset(&p, du, uw, 4);
  int32_t a[16], b[16];
  for (int l = 0; l < 16; l++) {
    a[l] = 0x100 + l;
    b[l] = 0x200 + 2 * l + 1;
  }
  pset(&p, da, a, 64);
  pset(&p, db, b, 64);
  fsim_prog prog;
  fp_init(&prog, &p.cfg);
  uint32_t o = el(&p, VTA_MEM_OUT, dout);
  fp_load(&prog, VTA_MEM_UOP, 0, el(&p, VTA_MEM_UOP, du), 1, 1, 1, 0, 0, 0, 0, 0);
  fp_load(&prog, VTA_MEM_ACC, 0, el(&p, VTA_MEM_ACC, da), 1, 1, 1, 0, 0, 0, 0, 0);
  fp_alu(&prog, VTA_ALU_ADD, 1, 0, 0, 1, 1, 1, NULL, NULL, 0); /* OUT = narrow(a) */
  fp_load(&prog, VTA_MEM_ACC, 0, el(&p, VTA_MEM_ACC, db), 1, 1, 1, 0, 0, 0, 0, 0);
  fp_store(&prog, 0, o, 1, 1, 1, 0);                            /* still narrow(a) */
  fp_alu(&prog, VTA_ALU_SHR, 1, 0, 0, 1, 1, 1, NULL, NULL, 0); /* OUT = narrow(b) */
  fp_store(&prog, 0, o + 1, 1, 1, 1, 0);
  fp_finish(&prog, 0);
  prun(&p, &prog, 1);
  const int8_t *d = hp(&p, RT, dout);
  for (int l = 0; l < 16; l++) {
    assert_int_equal(d[l], (int8_t)a[l]);
    assert_int_equal(d[16 + l], (int8_t)b[l]);
  }
  pair_close(&p);
}

/* ---- Tokens, as written ---- */

/* test_fsim's token case with its token: the GEMM waits for the INP a later LOAD brings. */
static void test_rtl_directed_tokens_order_modules(void **state) {
  dpair p;
  pair_open(&p, DEFAULT_CFG, NULL);
  uint64_t du = palloc(&p, 4), dx = palloc(&p, 16), dw = palloc(&p, 256), dout = palloc(&p, 16);
  uint8_t uw[4];
  fp_uops(&p.cfg, uw, &(vta_uop){0, 0, 0}, 1);
  pset(&p, du, uw, 4);
  pset(&p, dx, NULL, 16);
  pset(&p, dw, NULL, 256);
  fsim_prog prog;
  fp_init(&prog, &p.cfg);
  fp_load(&prog, VTA_MEM_WGT, 0, el(&p, VTA_MEM_WGT, dw), 1, 1, 1, 0, 0, 0, 0, 0);
  fp_load(&prog, VTA_MEM_UOP, 0, el(&p, VTA_MEM_UOP, du), 1, 1, 1, 0, 0, 0, 0, 0);
  fp_gemm(&prog, 1, 0, 1, 1, 1, NULL, NULL, FP_POP_PREV);
  fp_gemm(&prog, 0, 0, 1, 1, 1, NULL, NULL, FP_POP_PREV | FP_PUSH_NEXT);
  fp_load(&prog, VTA_MEM_INP, 0, el(&p, VTA_MEM_INP, dx), 1, 1, 1, 0, 0, 0, 0, FP_PUSH_NEXT);
  fp_store(&prog, 0, el(&p, VTA_MEM_OUT, dout), 1, 1, 1, FP_POP_PREV | FP_PUSH_PREV);
  fp_gemm(&prog, 0, 0, 1, 0, 1, NULL, NULL, FP_POP_NEXT);
  fp_finish(&prog, 0);
  /* The reset pops a token the WGT load does not push: the first push is the INP load's. */
  prun_rc(&p, &prog, 0, 20000);
  assert_int_equal(p.rc[FS], VTA_ERR_DEADLOCK);
  assert_int_equal(p.rc[RT], VTA_ERR_TIMEOUT);
  fp_load(&prog, VTA_MEM_WGT, 0, el(&p, VTA_MEM_WGT, dw), 1, 1, 1, 0, 0, 0, 0, FP_PUSH_NEXT);
  fp_load(&prog, VTA_MEM_UOP, 0, el(&p, VTA_MEM_UOP, du), 1, 1, 1, 0, 0, 0, 0, 0);
  fp_gemm(&prog, 1, 0, 1, 1, 1, NULL, NULL, FP_POP_PREV);
  fp_gemm(&prog, 0, 0, 1, 1, 1, NULL, NULL, FP_POP_PREV | FP_PUSH_NEXT);
  fp_load(&prog, VTA_MEM_INP, 0, el(&p, VTA_MEM_INP, dx), 1, 1, 1, 0, 0, 0, 0, FP_PUSH_NEXT);
  fp_store(&prog, 0, el(&p, VTA_MEM_OUT, dout), 1, 1, 1, FP_POP_PREV | FP_PUSH_PREV);
  fp_gemm(&prog, 0, 0, 1, 0, 1, NULL, NULL, FP_POP_NEXT);
  fp_finish(&prog, 0);
  prun(&p, &prog, 0);
  const int8_t *x = hp(&p, RT, dx), *w = hp(&p, RT, dw), *out = hp(&p, RT, dout);
  int nonzero = 0;
  for (int o = 0; o < 16; o++) {
    int32_t s = 0;
    for (int c = 0; c < 16; c++) s += x[c] * w[o * 16 + c];
    assert_int_equal(out[o], (int8_t)s);
    nonzero |= s != 0;
  }
  assert_true(nonzero);
  pair_close(&p);
}

static void test_rtl_directed_tokens_accumulate_and_flags_outside_the_pipeline(void **state) {
  dpair p;
  pair_open(&p, DEFAULT_CFG, NULL);
  uint64_t d = palloc(&p, 4096);
  uint32_t x = el(&p, VTA_MEM_INP, d), o = el(&p, VTA_MEM_OUT, d);
  fsim_prog prog;
  fp_init(&prog, &p.cfg);
  /* A counting queue: three pushes, three pops (a fourth would never be satisfied). */
  for (int i = 0; i < 3; i++) fp_gemm(&prog, 1, 0, 1, 1, 1, NULL, NULL, FP_PUSH_NEXT);
  for (int i = 0; i < 3; i++) fp_store(&prog, 0, 1, 1, 0, 1, FP_POP_PREV);
  fp_finish(&prog, 0);
  prun(&p, &prog, 0);
  for (int i = 0; i < 3; i++) fp_gemm(&prog, 1, 0, 1, 1, 1, NULL, NULL, FP_PUSH_NEXT);
  for (int i = 0; i < 4; i++) fp_store(&prog, 0, 1, 1, 0, 1, FP_POP_PREV);
  fp_finish(&prog, 0);
  prun_rc(&p, &prog, 0, 20000);
  assert_int_equal(p.rc[FS], VTA_ERR_DEADLOCK);
  assert_int_equal(p.rc[RT], VTA_ERR_TIMEOUT);
  assert_non_null(strstr(p.err[RT].msg, "store"));
  /* Load ignores its *_prev flags and store its *_next flags. */
  fp_load(&prog, VTA_MEM_INP, 0, x, 1, 1, 1, 0, 0, 0, 0, FP_POP_PREV | FP_PUSH_PREV);
  fp_store(&prog, 0, o, 1, 1, 1, FP_POP_NEXT | FP_PUSH_NEXT);
  fp_finish(&prog, 0);
  prun(&p, &prog, 0);
  fp_load(&prog, VTA_MEM_INP, 0, x, 1, 1, 1, 0, 0, 0, 0, FP_PUSH_PREV);
  fp_gemm(&prog, 1, 0, 1, 1, 1, NULL, NULL, FP_POP_PREV);
  fp_finish(&prog, 0);
  prun_rc(&p, &prog, 0, 20000);
  assert_int_equal(p.rc[FS], VTA_ERR_DEADLOCK);
  assert_int_equal(p.rc[RT], VTA_ERR_TIMEOUT);
  fp_load(&prog, VTA_MEM_INP, 0, x, 1, 1, 1, 0, 0, 0, 0, FP_PUSH_NEXT);
  fp_store(&prog, 0, o + 8, 1, 1, 1, FP_PUSH_PREV);
  fp_gemm(&prog, 1, 0, 1, 1, 1, NULL, NULL, FP_POP_PREV | FP_POP_NEXT | FP_PUSH_PREV);
  fp_load(&prog, VTA_MEM_INP, 0, x, 1, 1, 1, 0, 0, 0, 0, FP_POP_NEXT);
  fp_finish(&prog, 0);
  prun(&p, &prog, 0);
  pair_close(&p);
}

/* ---- Bad streams: both refuse them before running, in the same words ---- */

static void test_rtl_directed_bad_streams_are_refused_alike(void **state) {
  dpair p;
  pair_open(&p, DEFAULT_CFG, NULL);
  fsim_prog prog;
  fp_init(&prog, &p.cfg);
  fp_gemm(&prog, 1, 0, 1, 1, 1, NULL, NULL, 0);
  fp_finish(&prog, 0);
  fp_gemm(&prog, 1, 0, 1, 1, 1, NULL, NULL, 0);
  prun_fails(&p, &prog, VTA_ERR_INVALID, "instruction 1 (finish)");
  fp_gemm(&prog, 1, 0, 1, 1, 1, NULL, NULL, 0);
  prun_fails(&p, &prog, VTA_ERR_INVALID, "instruction 0 (gemm");
  fp_gemm(&prog, 1, 0, 1, 1, 1, NULL, NULL, 0);
  fp_add_word(&prog, 7, 0); /* opcode 7 */
  fp_finish(&prog, 0);
  prun_fails(&p, &prog, VTA_ERR_INVALID, "instruction 1 (word 0x");
  fp_load(&prog, VTA_MEM_OUT, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0);
  fp_finish(&prog, 0);
  prun_fails(&p, &prog, VTA_ERR_INVALID, "instruction 0 (load memory_type=out");
  /* Buffer ranges of LOAD and STORE (not of GEMM/ALU: see the wrap test). */
  uint64_t d = palloc(&p, 1 << 16);
  fp_load(&prog, VTA_MEM_INP, 2034, el(&p, VTA_MEM_INP, d), 1, 3, 3, 2, 0, 0, 2, 0);
  fp_finish(&prog, 0);
  prun_fails(&p, &prog, VTA_ERR_BOUNDS, "INP buffer elements 2034 to 2048 but its depth is 2048");
  fp_load(&prog, VTA_MEM_UOP, 8190, el(&p, VTA_MEM_UOP, d), 1, 3, 3, 0, 0, 0, 0, 0);
  fp_finish(&prog, 0);
  prun_fails(&p, &prog, VTA_ERR_BOUNDS, "UOP buffer elements 8190 to 8192");
  fp_store(&prog, 2040, el(&p, VTA_MEM_OUT, d), 3, 3, 3, 0);
  fp_finish(&prog, 0);
  prun_fails(&p, &prog, VTA_ERR_BOUNDS, "OUT buffer elements 2040 to 2048");
  /* DMA outside the allocations: a row past the end of one, an address beyond all. */
  fp_load(&prog, VTA_MEM_WGT, 0, el(&p, VTA_MEM_WGT, d) + 255, 2, 2, 4, 0, 0, 0, 0, 0);
  fp_finish(&prog, 0);
  prun_fails(&p, &prog, VTA_ERR_BOUNDS, "DMA read of row 0 of 512 bytes");
  fp_store(&prog, 0, el(&p, VTA_MEM_OUT, d) + 4094, 3, 2, 1, 0);
  fp_finish(&prog, 0);
  prun_fails(&p, &prog, VTA_ERR_BOUNDS, "DMA write of row 1 of 32 bytes");
  fp_load(&prog, VTA_MEM_INP, 0, 0x30000000 / 16, 1, 1, 1, 0, 0, 0, 0, 0);
  fp_finish(&prog, 0);
  prun_fails(&p, &prog, VTA_ERR_BOUNDS, "outside the allocated device memory");
  pair_close(&p);
}

/* fsim refuses a GEMM/ALU index past its buffer; the hardware, like every VTA, wraps it modulo
 * the depth (its address has LOG_DEPTH bits). A GEMM, its reset and an ALU whose second
 * iteration runs off the end of ACC, INP and WGT must do on rtl what the same work with the
 * indices wrapped by hand does on both. */
static void test_rtl_directed_gemm_alu_indices_wrap_on_hardware(void **state) {
  dpair p;
  pair_open(&p, DEFAULT_CFG, NULL);
  const vta_config *c = &p.cfg;
  uint32_t da = c->depth[VTA_MEM_ACC], di = c->depth[VTA_MEM_INP], dw = c->depth[VTA_MEM_WGT];
  uint64_t du = palloc(&p, 8), dx = palloc(&p, 2 * 16), dwg = palloc(&p, 2 * 256);
  vta_uop u[2] = {{da - 1, di - 1, dw - 1}, {0, 0, 0}};
  uint8_t uw[8], saved[2][4 * 16];
  fp_uops(c, uw, u, 2);
  pset(&p, du, uw, 8);
  pset(&p, dx, NULL, 32);
  pset(&p, dwg, NULL, 512);
  const uint32_t fo[3] = {1, 1, 1};
  for (int by_hand = 0; by_hand < 2; by_hand++) {
    fsim_prog prog;
    fp_init(&prog, c);
    fp_load(&prog, VTA_MEM_UOP, 0, el(&p, VTA_MEM_UOP, du), 1, 2, 2, 0, 0, 0, 0, 0);
    fp_load(&prog, VTA_MEM_INP, di - 1, el(&p, VTA_MEM_INP, dx), 1, 1, 1, 0, 0, 0, 0, 0);
    fp_load(&prog, VTA_MEM_INP, 0, el(&p, VTA_MEM_INP, dx) + 1, 1, 1, 1, 0, 0, 0, 0, 0);
    fp_load(&prog, VTA_MEM_WGT, dw - 1, el(&p, VTA_MEM_WGT, dwg), 1, 1, 1, 0, 0, 0, 0, 0);
    fp_load(&prog, VTA_MEM_WGT, 0, el(&p, VTA_MEM_WGT, dwg) + 1, 1, 1, 1, 0, 0, 0, 0, 0);
    for (int k = 0; k < (by_hand ? 2 : 1); k++) {
      uint32_t b = (uint32_t)k, iters = by_hand ? 1 : 2;
      fp_gemm(&prog, 1, b, b + 1, iters, 1, fo, NULL, 0);
    }
    for (int k = 0; k < (by_hand ? 2 : 1); k++) {
      uint32_t b = (uint32_t)k, iters = by_hand ? 1 : 2;
      fp_gemm(&prog, 0, b, b + 1, iters, 1, fo, NULL, 0);
      fp_alu(&prog, VTA_ALU_ADD, 0, 0, b, b + 1, iters, 1, fo, NULL, 0);
    }
    uint64_t dump[2] = {dump_acc(&p, &prog, da - 1, 1), dump_acc(&p, &prog, 0, 1)};
    fp_finish(&prog, 0);
    if (!by_hand) {
      prun_rc(&p, &prog, 1, 2000000);
      assert_int_equal(p.rc[FS], VTA_ERR_BOUNDS);
      assert_non_null(strstr(p.err[FS].msg, "buffer index 2048 is out of range"));
      if (p.rc[RT] != VTA_OK) fail_msg("rtl: %s", p.err[RT].msg);
      /* Keep rtl's dumps, then make both memories equal again. */
      for (int i = 0; i < 2; i++) {
        memcpy(saved[i], hp(&p, RT, dump[i]), sizeof saved[i]);
        for (int k = 0; k < 2; k++) memset(hp(&p, k, dump[i]), 0, sizeof saved[i]);
      }
    } else {
      prun(&p, &prog, 1);
      for (int i = 0; i < 2; i++) assert_memory_equal(saved[i], hp(&p, RT, dump[i]), sizeof saved[i]);
    }
  }
  pair_close(&p);
}

/* ---- Statistics, runs and memory ---- */

static void test_rtl_directed_stats_count_everything(void **state) {
  dpair p;
  pair_open(&p, DEFAULT_CFG, NULL);
  vta_uop u[4] = {{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {3, 3, 3}};
  uint64_t d = palloc(&p, 1 << 16);
  pset(&p, d, NULL, 1 << 16);
  uint8_t uw[16];
  fp_uops(&p.cfg, uw, u, 4);
  pset(&p, d, uw, 16);
  fsim_prog prog;
  fp_init(&prog, &p.cfg);
  fp_load(&prog, VTA_MEM_UOP, 0, el(&p, VTA_MEM_UOP, d), 1, 4, 4, 0, 0, 0, 0, 0);
  fp_load(&prog, VTA_MEM_INP, 0, el(&p, VTA_MEM_INP, d), 2, 3, 3, 1, 1, 1, 1, 0);
  fp_load(&prog, VTA_MEM_WGT, 0, el(&p, VTA_MEM_WGT, d), 1, 4, 4, 0, 0, 2, 0, 0);
  fp_load(&prog, VTA_MEM_ACC, 0, el(&p, VTA_MEM_ACC, d), 1, 2, 2, 0, 0, 0, 0, 0);
  fp_load(&prog, VTA_MEM_ACC_8BIT, 0, el(&p, VTA_MEM_ACC_8BIT, d), 1, 2, 2, 0, 0, 0, 0, 0);
  fp_load(&prog, VTA_MEM_INP, 0, 0, 1, 0, 0, 0, 0, 0, 0, FP_PUSH_NEXT);
  fp_gemm(&prog, 1, 0, 4, 2, 3, NULL, NULL, FP_POP_PREV);
  fp_gemm(&prog, 0, 0, 4, 2, 3, NULL, NULL, 0);
  fp_alu(&prog, VTA_ALU_MAX, 1, 0, 0, 2, 5, 1, NULL, NULL, FP_PUSH_NEXT);
  fp_store(&prog, 0, el(&p, VTA_MEM_OUT, d) + 100, 2, 3, 4, FP_POP_PREV);
  fp_finish(&prog, 0);
  prun(&p, &prog, 0);
  const vta_stats *s = &p.st[RT];
  assert_int_equal(s->insns, 11);
  assert_int_equal(s->insns_by_module[VTA_MOD_LOAD], 3);
  assert_int_equal(s->insns_by_module[VTA_MOD_COMPUTE], 7);
  assert_int_equal(s->insns_by_module[VTA_MOD_STORE], 1);
  assert_int_equal(s->insns_by_opcode[VTA_OP_LOAD], 6);
  assert_int_equal(s->gemm_uops, 48);
  assert_int_equal(s->alu_uops, 10);
  assert_int_equal(s->uops, 58);
  assert_int_equal(s->macs, 24 * 256);
  assert_int_equal(s->bytes_read[VTA_MEM_WGT], 1024);
  assert_int_equal(s->bytes_written[VTA_MEM_OUT], 96);
  assert_int_equal(s->insn_bytes, 11 * 16);
  assert_true(s->cycles > 0 && s->busy_cycles[VTA_MOD_COMPUTE] > 0);
  assert_int_equal(p.st[FS].cycles, 0);
  pair_close(&p);
}

static void test_rtl_directed_sram_persists_across_runs(void **state) {
  dpair p;
  pair_open(&p, DEFAULT_CFG, NULL);
  uint64_t d = palloc(&p, 64), du = palloc(&p, 4), dout = palloc(&p, 16);
  int32_t a[16];
  for (int l = 0; l < 16; l++) a[l] = l - 8;
  pset(&p, d, a, 64);
  uint8_t uw[4];
  fp_uops(&p.cfg, uw, &(vta_uop){5, 0, 0}, 1);
  pset(&p, du, uw, 4);
  fsim_prog prog;
  fp_init(&prog, &p.cfg);
  fp_load(&prog, VTA_MEM_ACC, 5, el(&p, VTA_MEM_ACC, d), 1, 1, 1, 0, 0, 0, 0, 0);
  fp_finish(&prog, 0);
  prun(&p, &prog, 1);
  fp_load(&prog, VTA_MEM_UOP, 0, el(&p, VTA_MEM_UOP, du), 1, 1, 1, 0, 0, 0, 0, 0);
  fp_finish(&prog, 0);
  prun(&p, &prog, 1);
  fp_alu(&prog, VTA_ALU_MUL, 1, -3, 0, 1, 1, 1, NULL, NULL, 0);
  fp_store(&prog, 5, el(&p, VTA_MEM_OUT, dout), 1, 1, 1, 0);
  fp_finish(&prog, 0);
  prun(&p, &prog, 1);
  const int8_t *out = hp(&p, RT, dout);
  for (int l = 0; l < 16; l++) assert_int_equal(out[l], (l - 8) * -3);
  pair_close(&p);
}

/* The memory slots (driver/mem_backend.c) behave identically on both backends. */
static void test_rtl_directed_device_memory_slots_agree(void **state) {
  dpair p;
  pair_open(&p, WIDE_CFG, "latency=3");
  uint64_t a[2], b[2];
  vta_error err[2];
  for (int k = 0; k < 2; k++) {
    vta_device *d = p.dev[k];
    assert_int_equal(vta_device_alloc(d, 100, &a[k], &err[k]), VTA_OK);
    assert_int_equal(vta_device_alloc_at(d, 1 << 24, 8192, &err[k]), VTA_OK);
    assert_int_equal(vta_device_alloc_at(d, (1 << 24) + 4096, 16, &err[k]), VTA_ERR_INVALID);
    uint8_t buf[200] = {1, 2, 3};
    assert_int_equal(vta_device_copy_to(d, a[k], buf, 100, &err[k]), VTA_OK);
    assert_int_equal(vta_device_copy_to(d, a[k], buf, 200, &err[k]), VTA_ERR_BOUNDS);
    assert_non_null(strstr(err[k].msg, "copy of 200 bytes to 0x"));
    assert_int_equal(vta_device_copy_from(d, buf, a[k] + 50, 100, &err[k]), VTA_ERR_BOUNDS);
    assert_non_null(strstr(err[k].msg, "copy of 100 bytes from 0x"));
    uint8_t *h = vta_device_host_ptr(d, a[k]);
    assert_non_null(h);
    assert_int_equal(h[2], 3);
    uint64_t phys = 0;
    assert_int_equal(vta_device_phys_of(d, h + 7, &phys), VTA_OK);
    assert_int_equal(phys, a[k] + 7);
    vta_device_free(d, a[k]);
    assert_int_equal(vta_device_alloc(d, 64, &b[k], &err[k]), VTA_OK);
  }
  assert_true(a[0] == a[1] && b[0] == b[1] && b[0] == a[0]);
  assert_string_equal(err[0].msg, err[1].msg);
  pair_close(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rtl_directed_load_padding_combinations),
      cmocka_unit_test(test_rtl_directed_load_x_size_zero_moves_nothing),
      cmocka_unit_test(test_rtl_directed_load_acc_8bit_sign_extends),
      cmocka_unit_test(test_rtl_directed_gemm_matches_matmul),
      cmocka_unit_test(test_rtl_directed_gemm_accumulates_and_wraps),
      cmocka_unit_test(test_rtl_directed_gemm_packed_products_at_the_extremes),
      cmocka_unit_test(test_rtl_directed_alu_every_opcode),
      cmocka_unit_test(test_rtl_directed_alu_microops_run_in_order),
      cmocka_unit_test(test_rtl_directed_alu_reads_a_product_the_next_cycle),
      cmocka_unit_test(test_rtl_directed_store_2d_writes_only_its_rows),
      cmocka_unit_test(test_rtl_directed_load_acc_leaves_out_stale),
      cmocka_unit_test(test_rtl_directed_tokens_order_modules),
      cmocka_unit_test(test_rtl_directed_tokens_accumulate_and_flags_outside_the_pipeline),
      cmocka_unit_test(test_rtl_directed_bad_streams_are_refused_alike),
      cmocka_unit_test(test_rtl_directed_gemm_alu_indices_wrap_on_hardware),
      cmocka_unit_test(test_rtl_directed_stats_count_everything),
      cmocka_unit_test(test_rtl_directed_sram_persists_across_runs),
      cmocka_unit_test(test_rtl_directed_device_memory_slots_agree),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
