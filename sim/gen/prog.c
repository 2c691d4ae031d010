/* prog.c - instruction streams for simulators and regressions: a builder, seeded random valid
 * programs, and the serialiser that adds the tokens making any in-order stream run the same on
 * a concurrent accelerator (see prog.h).
 */
#include "sim/gen/prog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Builder ---- */

void fp_init(fsim_prog *p, const vta_config *cfg) {
  memset(p, 0, sizeof *p);
  p->cfg = cfg;
}

void fp_free(fsim_prog *p) {
  free(p->words);
  memset(p, 0, sizeof *p);
}

uint32_t fp_count(const fsim_prog *p) { return (uint32_t)p->n; }

int fp_add_word(fsim_prog *p, uint64_t lo, uint64_t hi) {
  if (p->n == p->cap) {
    size_t cap = p->cap ? 2 * p->cap : 64;
    vta_insn_word *w = realloc(p->words, cap * sizeof *w);
    if (!w) return -1;
    p->words = w;
    p->cap = cap;
  }
  p->words[p->n].w[0] = lo;
  p->words[p->n].w[1] = hi;
  return (int)p->n++;
}

int fp_add(fsim_prog *p, const vta_insn *in) {
  vta_insn_word w;
  vta_error err;
  if (vta_insn_encode(p->cfg, in, &w, &err) != VTA_OK) {
    fprintf(stderr, "fp_add: %s\n", err.msg);
    return -1;
  }
  return fp_add_word(p, w.w[0], w.w[1]);
}

static void set_flags(vta_insn *in, int flags) {
  in->f[VTA_F_POP_PREV] = (flags & FP_POP_PREV) != 0;
  in->f[VTA_F_POP_NEXT] = (flags & FP_POP_NEXT) != 0;
  in->f[VTA_F_PUSH_PREV] = (flags & FP_PUSH_PREV) != 0;
  in->f[VTA_F_PUSH_NEXT] = (flags & FP_PUSH_NEXT) != 0;
}

int fp_load(fsim_prog *p, vta_mem_type t, uint32_t sram, uint32_t dram, uint32_t y, uint32_t x,
            uint32_t stride, uint32_t yp0, uint32_t yp1, uint32_t xp0, uint32_t xp1, int flags) {
  vta_insn in = {{0}};
  in.f[VTA_F_OPCODE] = VTA_OP_LOAD;
  in.f[VTA_F_MEMORY_TYPE] = t;
  in.f[VTA_F_SRAM_BASE] = sram;
  in.f[VTA_F_DRAM_BASE] = dram;
  in.f[VTA_F_Y_SIZE] = y;
  in.f[VTA_F_X_SIZE] = x;
  in.f[VTA_F_X_STRIDE] = stride;
  in.f[VTA_F_Y_PAD_0] = yp0;
  in.f[VTA_F_Y_PAD_1] = yp1;
  in.f[VTA_F_X_PAD_0] = xp0;
  in.f[VTA_F_X_PAD_1] = xp1;
  set_flags(&in, flags);
  return fp_add(p, &in);
}

int fp_store(fsim_prog *p, uint32_t sram, uint32_t dram, uint32_t y, uint32_t x, uint32_t stride,
             int flags) {
  vta_insn in = {{0}};
  in.f[VTA_F_OPCODE] = VTA_OP_STORE;
  in.f[VTA_F_MEMORY_TYPE] = VTA_MEM_OUT;
  in.f[VTA_F_SRAM_BASE] = sram;
  in.f[VTA_F_DRAM_BASE] = dram;
  in.f[VTA_F_Y_SIZE] = y;
  in.f[VTA_F_X_SIZE] = x;
  in.f[VTA_F_X_STRIDE] = stride;
  set_flags(&in, flags);
  return fp_add(p, &in);
}

int fp_gemm(fsim_prog *p, int reset, uint32_t bgn, uint32_t end, uint32_t io, uint32_t ii,
            const uint32_t f_out[3], const uint32_t f_in[3], int flags) {
  static const uint32_t zero[3] = {0, 0, 0};
  if (!f_out) f_out = zero;
  if (!f_in) f_in = zero;
  vta_insn in = {{0}};
  in.f[VTA_F_OPCODE] = VTA_OP_GEMM;
  in.f[VTA_F_RESET_REG] = reset != 0;
  in.f[VTA_F_UOP_BGN] = bgn;
  in.f[VTA_F_UOP_END] = end;
  in.f[VTA_F_ITER_OUT] = io;
  in.f[VTA_F_ITER_IN] = ii;
  in.f[VTA_F_DST_FACTOR_OUT] = f_out[0];
  in.f[VTA_F_SRC_FACTOR_OUT] = f_out[1];
  in.f[VTA_F_WGT_FACTOR_OUT] = f_out[2];
  in.f[VTA_F_DST_FACTOR_IN] = f_in[0];
  in.f[VTA_F_SRC_FACTOR_IN] = f_in[1];
  in.f[VTA_F_WGT_FACTOR_IN] = f_in[2];
  set_flags(&in, flags);
  return fp_add(p, &in);
}

int fp_alu(fsim_prog *p, vta_alu_op op, int use_imm, int32_t imm, uint32_t bgn, uint32_t end,
           uint32_t io, uint32_t ii, const uint32_t f_out[2], const uint32_t f_in[2], int flags) {
  static const uint32_t zero[2] = {0, 0};
  if (!f_out) f_out = zero;
  if (!f_in) f_in = zero;
  vta_insn in = {{0}};
  in.f[VTA_F_OPCODE] = VTA_OP_ALU;
  in.f[VTA_F_ALU_OPCODE] = op;
  in.f[VTA_F_USE_IMM] = use_imm != 0;
  in.f[VTA_F_IMM] = imm;
  in.f[VTA_F_UOP_BGN] = bgn;
  in.f[VTA_F_UOP_END] = end;
  in.f[VTA_F_ITER_OUT] = io;
  in.f[VTA_F_ITER_IN] = ii;
  in.f[VTA_F_DST_FACTOR_OUT] = f_out[0];
  in.f[VTA_F_SRC_FACTOR_OUT] = f_out[1];
  in.f[VTA_F_DST_FACTOR_IN] = f_in[0];
  in.f[VTA_F_SRC_FACTOR_IN] = f_in[1];
  set_flags(&in, flags);
  return fp_add(p, &in);
}

int fp_finish(fsim_prog *p, int flags) {
  vta_insn in = {{0}};
  in.f[VTA_F_OPCODE] = VTA_OP_FINISH;
  set_flags(&in, flags);
  return fp_add(p, &in);
}

int fp_commit(fsim_prog *p, vta_mem *mem, uint64_t *phys) {
  uint64_t bytes = (p->n ? p->n : 1) * VTA_INSN_BYTES;
  if (vta_mem_alloc(mem, bytes, phys, NULL) != VTA_OK) return -1;
  uint8_t *dst = vta_mem_ptr(mem, *phys);
  for (size_t i = 0; i < p->n; i++) vta_insn_word_store(&p->words[i], dst + i * VTA_INSN_BYTES);
  return 0;
}

void fp_uops(const vta_config *cfg, uint8_t *dst, const vta_uop *uops, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint32_t w = 0;
    vta_uop_encode(cfg, &uops[i], &w, NULL);
    for (int b = 0; b < 4; b++) dst[4 * i + b] = (uint8_t)(w >> (8 * b));
  }
}

/* ---- Random programs ---- */

uint64_t fp_rand(uint64_t *s) {
  /* xorshift64*: small, deterministic, good enough for test data. */
  uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * 0x2545f4914f6cdd1dull;
}

static uint32_t rnd(uint64_t *s, uint32_t lo, uint32_t hi) { /* inclusive */
  return lo + (uint32_t)(fp_rand(s) % ((uint64_t)hi - lo + 1));
}

/* Elements of each DRAM region of the random programs. */
#define FP_REGION 64
/* Micro-op fields and loop factors stay small so every index fits every accepted config
 * (the smallest buffer depth of configs/ is 64): 15 + 2*7 + 2*7 = 43. */
#define FP_UOP_FIELD 16
#define FP_FACTOR 7
#define FP_ITER 3

int fp_random_build(const vta_config *cfg, uint64_t seed, uint32_t ninsn, vta_mem *mem,
                    fp_random *out) {
  uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
  static const int types[] = {VTA_MEM_UOP, VTA_MEM_WGT, VTA_MEM_INP, VTA_MEM_ACC, VTA_MEM_ACC_8BIT,
                              VTA_MEM_OUT};
  uint64_t off[VTA_MEM_COUNT], bytes = 0;
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    off[types[i]] = bytes;
    bytes += ((uint64_t)FP_REGION * cfg->elem_bytes[types[i]] + 4095) & ~4095ull;
  }
  uint64_t data;
  if (vta_mem_alloc(mem, bytes, &data, NULL) != VTA_OK) return -1;
  uint8_t *d = vta_mem_ptr(mem, data);
  for (uint64_t i = 0; i < off[VTA_MEM_OUT]; i++) d[i] = (uint8_t)fp_rand(&s);
  /* ACC data: mostly random 32-bit, some small values and extremes (shifts, min/max, wraps). */
  int32_t *acc = (int32_t *)(d + off[VTA_MEM_ACC]);
  for (uint64_t i = 0; i < (uint64_t)FP_REGION * cfg->elem_bytes[VTA_MEM_ACC] / 4; i++) {
    uint32_t k = rnd(&s, 0, 9);
    int32_t v = (int32_t)(uint32_t)fp_rand(&s);
    if (k < 3) v = (int32_t)rnd(&s, 0, 600) - 300;
    if (k == 3) v = INT32_MIN;
    if (k == 4) v = INT32_MAX;
    if (k == 5) v = (int32_t)rnd(&s, 0, 127) - 64;
    acc[i] = v;
  }
  vta_uop uops[FP_REGION];
  for (int i = 0; i < FP_REGION; i++)
    uops[i] = (vta_uop){rnd(&s, 0, FP_UOP_FIELD - 1), rnd(&s, 0, FP_UOP_FIELD - 1),
                        rnd(&s, 0, FP_UOP_FIELD - 1)};
  fp_uops(cfg, d + off[VTA_MEM_UOP], uops, FP_REGION);

  uint32_t lim[VTA_MEM_COUNT];
  for (int t = 0; t < VTA_MEM_COUNT; t++) lim[t] = cfg->depth[t] < 96 ? cfg->depth[t] : 96;
  fsim_prog p;
  fp_init(&p, cfg);
  int bad = 0;
  /* Start with micro-ops and data in every buffer. */
  bad |= fp_load(&p, VTA_MEM_UOP, 0, (uint32_t)((data + off[VTA_MEM_UOP]) / 4), 1, 32, 32, 0, 0,
                 0, 0, 0) < 0;
  while (p.n + 1 < ninsn && !bad) {
    uint32_t kind = rnd(&s, 0, 99);
    if (kind < 35) { /* LOAD */
      static const int lt[] = {VTA_MEM_UOP, VTA_MEM_WGT, VTA_MEM_INP, VTA_MEM_ACC,
                               VTA_MEM_ACC_8BIT};
      int t = lt[rnd(&s, 0, 4)];
      int b = t == VTA_MEM_ACC_8BIT ? VTA_MEM_ACC : t;
      uint32_t eb = cfg->elem_bytes[t];
      uint32_t region = (uint32_t)((data + off[t]) / eb);
      if (t == VTA_MEM_UOP) {
        uint32_t x = rnd(&s, 1, 16);
        uint32_t sram = rnd(&s, 0, (FP_UOP_FIELD + 4 < lim[b] ? FP_UOP_FIELD + 4 : lim[b]) - x);
        bad |= fp_load(&p, VTA_MEM_UOP, sram, region + rnd(&s, 0, FP_REGION - x), 1, x, x, 0, 0,
                       0, 0, 0) < 0;
        continue;
      }
      uint32_t x = rnd(&s, 0, 9) == 0 ? 0 : rnd(&s, 1, 4);
      uint32_t y = rnd(&s, 0, 9) == 0 ? 0 : rnd(&s, 1, 3);
      uint32_t stride = rnd(&s, 0, 3) == 0 ? rnd(&s, 0, 6) : x + rnd(&s, 0, 3);
      uint32_t yp0 = 0, yp1 = 0, xp0 = 0, xp1 = 0;
      if (rnd(&s, 0, 2) == 0) { /* padded loads a third of the time */
        yp0 = rnd(&s, 0, 2);
        yp1 = rnd(&s, 0, 2);
        xp0 = rnd(&s, 0, 2);
        xp1 = rnd(&s, 0, 2);
      }
      uint32_t total = (yp0 + y + yp1) * (xp0 + x + xp1);
      uint32_t span = y ? (y - 1) * stride + x : 0;
      if (total > lim[b] || span > FP_REGION) continue;
      bad |= fp_load(&p, (vta_mem_type)t, rnd(&s, 0, lim[b] - total),
                     region + rnd(&s, 0, FP_REGION - span), y, x, stride, yp0, yp1, xp0, xp1,
                     0) < 0;
    } else if (kind < 65) { /* GEMM */
      uint32_t bgn = rnd(&s, 0, FP_UOP_FIELD - 1), end = bgn + rnd(&s, 1, 4);
      uint32_t fo[3], fi[3];
      for (int i = 0; i < 3; i++) {
        fo[i] = rnd(&s, 0, FP_FACTOR);
        fi[i] = rnd(&s, 0, FP_FACTOR);
      }
      uint32_t io = rnd(&s, 0, 19) == 0 ? 0 : rnd(&s, 1, FP_ITER);
      bad |= fp_gemm(&p, rnd(&s, 0, 9) == 0, bgn, end, io, rnd(&s, 1, FP_ITER), fo, fi, 0) < 0;
    } else if (kind < 87) { /* ALU */
      uint32_t bgn = rnd(&s, 0, FP_UOP_FIELD - 1), end = bgn + rnd(&s, 1, 4);
      uint32_t fo[2] = {rnd(&s, 0, FP_FACTOR), rnd(&s, 0, FP_FACTOR)};
      uint32_t fi[2] = {rnd(&s, 0, FP_FACTOR), rnd(&s, 0, FP_FACTOR)};
      vta_alu_op op = (vta_alu_op)rnd(&s, 0, VTA_ALU_COUNT - 1);
      /* Immediates over the whole 16-bit range, but mostly the small shifts and factors
       * programs use, so that values survive long enough to meet later instructions. */
      int32_t imm = (int32_t)rnd(&s, 0, 65535) - 32768;
      if (rnd(&s, 0, 3) != 0) imm = op == VTA_ALU_SHR ? (int32_t)rnd(&s, 0, 16) - 4
                                  : op == VTA_ALU_MUL ? (int32_t)rnd(&s, 0, 10) - 5
                                                      : (int32_t)rnd(&s, 0, 400) - 200;
      bad |= fp_alu(&p, op, (int)rnd(&s, 0, 1), imm, bgn, end, rnd(&s, 1, FP_ITER),
                    rnd(&s, 1, FP_ITER), fo, fi, 0) < 0;
    } else { /* STORE */
      uint32_t x = rnd(&s, 1, 4), y = rnd(&s, 1, 3), stride = x + rnd(&s, 0, 3);
      uint32_t eb = cfg->elem_bytes[VTA_MEM_OUT];
      uint32_t region = (uint32_t)((data + off[VTA_MEM_OUT]) / eb);
      if (y * x > lim[VTA_MEM_OUT]) continue;
      bad |= fp_store(&p, rnd(&s, 0, lim[VTA_MEM_OUT] - y * x),
                      region + rnd(&s, 0, FP_REGION - ((y - 1) * stride + x)), y, x, stride,
                      0) < 0;
    }
  }
  bad |= fp_finish(&p, 0) < 0;
  if (!bad) bad = fp_commit(&p, mem, &out->insn) != 0;
  out->count = fp_count(&p);
  out->data = data;
  out->data_bytes = bytes;
  fp_free(&p);
  return bad ? -1 : 0;
}

/* ---- Serialising ---- */

/* Sets the pop flag of `in` for a token from module `from` (in the module of `in`). */
static void set_pop(vta_insn *in, vta_module self, vta_module from) {
  in->f[from < self ? VTA_F_POP_PREV : VTA_F_POP_NEXT] = 1;
}
static void set_push(vta_insn *in, vta_module self, vta_module to) {
  in->f[to < self ? VTA_F_PUSH_PREV : VTA_F_PUSH_NEXT] = 1;
}

/* Appends to out the serialised form of the n instruction words at w (FINISH last): every
 * module waits for the instruction before it. Returns -1 if a word does not decode. */
int fp_serialize_words(const vta_config *cfg, const vta_insn_word *w, size_t count,
                                      fsim_prog *out) {
  vta_insn *v = calloc(2 * count + 2, sizeof *v);
  vta_module *mod = calloc(2 * count + 2, sizeof *mod);
  if (!v || !mod) {
    free(v);
    free(mod);
    return -1;
  }
  size_t n = 0;
  int prev = -1; /* index of the last instruction in v */
  int bad = 0;
  for (size_t i = 0; i < count && !bad; i++) {
    vta_insn in;
    if (vta_insn_decode(cfg, &w[i], &in, NULL) != VTA_OK) {
      bad = 1;
      break;
    }
    int finish = in.f[VTA_F_OPCODE] == VTA_OP_FINISH;
    vta_module m = finish ? VTA_MOD_COMPUTE : vta_insn_module(&in);
    if (prev >= 0 && mod[prev] != m) {
      vta_module pm = mod[prev];
      if (pm != VTA_MOD_COMPUTE && m != VTA_MOD_COMPUTE) {
        /* load <-> store: through a compute no-op (a GEMM with no iterations). */
        vta_insn nop = {{0}};
        nop.f[VTA_F_OPCODE] = VTA_OP_GEMM;
        nop.f[VTA_F_UOP_END] = 1;
        nop.f[VTA_F_ITER_IN] = 1;
        set_push(&v[prev], pm, VTA_MOD_COMPUTE);
        set_pop(&nop, VTA_MOD_COMPUTE, pm);
        v[n] = nop;
        mod[n] = VTA_MOD_COMPUTE;
        prev = (int)n++;
        pm = VTA_MOD_COMPUTE;
      }
      if (finish && pm != VTA_MOD_COMPUTE) {
        /* A FINISH may not pop: a compute no-op pops for it. */
        vta_insn nop = {{0}};
        nop.f[VTA_F_OPCODE] = VTA_OP_GEMM;
        nop.f[VTA_F_UOP_END] = 1;
        nop.f[VTA_F_ITER_IN] = 1;
        set_push(&v[prev], pm, VTA_MOD_COMPUTE);
        set_pop(&nop, VTA_MOD_COMPUTE, pm);
        v[n] = nop;
        mod[n] = VTA_MOD_COMPUTE;
        prev = (int)n++;
      } else if (pm != m) {
        set_push(&v[prev], pm, m);
        set_pop(&in, m, pm);
      }
    }
    v[n] = in;
    mod[n] = m;
    prev = (int)n++;
  }
  for (size_t i = 0; i < n && !bad; i++) bad |= fp_add(out, &v[i]) < 0;
  free(v);
  free(mod);
  return bad ? -1 : 0;
}

/* Rewrites the stream at insn (count words, FINISH last) into a serialised one at *out. */
int fp_serialize(const vta_config *cfg, vta_mem *mem, uint64_t insn, uint32_t count,
                                uint64_t *out, uint32_t *out_count) {
  vta_insn_word *w = calloc(count ? count : 1, sizeof *w);
  if (!w) return -1;
  const uint8_t *src = vta_mem_ptr(mem, insn);
  for (uint32_t i = 0; i < count; i++) vta_insn_word_load(src + (size_t)i * VTA_INSN_BYTES, &w[i]);
  fsim_prog p;
  fp_init(&p, cfg);
  int bad = fp_serialize_words(cfg, w, count, &p) != 0;
  if (!bad) bad = fp_commit(&p, mem, out) != 0;
  *out_count = fp_count(&p);
  fp_free(&p);
  free(w);
  return bad ? -1 : 0;
}

