/* fsim_prog.c - test support: a reference interpreter to
 * check the simulators against (the builder and the random programs live in sim/gen/prog.c).
 *
 * The reference is deliberately the slowest, plainest reading of ISA.md section 3: element by
 * element, micro-op by micro-op, in stream order, with encoded micro-ops decoded at each use.
 * It shares nothing with sim/fsim but the ISA's encode/decode, so a test that compares the two
 * compares two independent readings of the spec.
 */
#include "support/fsim_prog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Reference interpreter ---- */

int fsim_ref_create(const vta_config *cfg, vta_mem *mem, fsim_ref **out) {
  fsim_ref *r = calloc(1, sizeof *r);
  if (!r) return -1;
  r->cfg = *cfg;
  r->mem = mem;
  r->uop = calloc(cfg->depth[VTA_MEM_UOP], sizeof *r->uop);
  r->inp = calloc(cfg->depth[VTA_MEM_INP], cfg->elem_bytes[VTA_MEM_INP]);
  r->wgt = calloc(cfg->depth[VTA_MEM_WGT], cfg->elem_bytes[VTA_MEM_WGT]);
  r->acc = calloc(cfg->depth[VTA_MEM_ACC], cfg->elem_bytes[VTA_MEM_ACC]);
  r->out = calloc(cfg->depth[VTA_MEM_OUT], cfg->elem_bytes[VTA_MEM_OUT]);
  if (!r->uop || !r->inp || !r->wgt || !r->acc || !r->out) {
    fsim_ref_destroy(r);
    return -1;
  }
  *out = r;
  return 0;
}

void fsim_ref_destroy(fsim_ref *r) {
  if (!r) return;
  free(r->uop);
  free(r->inp);
  free(r->wgt);
  free(r->acc);
  free(r->out);
  free(r);
}

/* Writes element `idx` of the buffer loaded by memory type t from DRAM (src NULL: zeros). */
static int ref_put(fsim_ref *r, int t, uint64_t idx, const uint8_t *src) {
  const vta_config *c = &r->cfg;
  int buf = t == VTA_MEM_ACC_8BIT ? VTA_MEM_ACC : t;
  if (idx >= c->depth[buf]) return -1;
  uint32_t lanes = c->batch * c->block_out;
  switch (t) {
  case VTA_MEM_UOP:
    r->uop[idx] = src ? (uint32_t)src[0] | (uint32_t)src[1] << 8 | (uint32_t)src[2] << 16 |
                            (uint32_t)src[3] << 24
                      : 0;
    break;
  case VTA_MEM_INP:
  case VTA_MEM_WGT: {
    uint32_t eb = c->elem_bytes[t];
    int8_t *d = (t == VTA_MEM_INP ? r->inp : r->wgt) + idx * eb;
    for (uint32_t i = 0; i < eb; i++) d[i] = src ? (int8_t)src[i] : 0;
    break;
  }
  case VTA_MEM_ACC:
    for (uint32_t l = 0; l < lanes; l++) {
      uint32_t v = 0;
      if (src)
        v = (uint32_t)src[4 * l] | (uint32_t)src[4 * l + 1] << 8 | (uint32_t)src[4 * l + 2] << 16 |
            (uint32_t)src[4 * l + 3] << 24;
      r->acc[idx * lanes + l] = (int32_t)v;
    }
    break;
  case VTA_MEM_ACC_8BIT:
    for (uint32_t l = 0; l < lanes; l++) r->acc[idx * lanes + l] = src ? (int8_t)src[l] : 0;
    break;
  default: return -1;
  }
  return 0;
}

static int32_t ref_alu(int op, int32_t a, int32_t b, int32_t imm) {
  switch (op) {
  case VTA_ALU_MIN: return a < b ? a : b;
  case VTA_ALU_MAX: return a > b ? a : b;
  case VTA_ALU_ADD: return (int32_t)(uint32_t)((int64_t)a + (int64_t)b);
  case VTA_ALU_MUL: return (int32_t)(uint32_t)(uint64_t)((int64_t)a * (int64_t)b);
  case VTA_ALU_SHR: {
    int64_t y = b & 63;
    if (y >= 32) y -= 64;
    if (y >= 0) return (int32_t)((int64_t)a >> y);
    return (int32_t)(uint32_t)((uint64_t)(uint32_t)a << -y);
  }
  case VTA_ALU_SHRCLIP: { /* SHR, then MAX with the immediate, MIN with the upper half */
    int32_t r = ref_alu(VTA_ALU_SHR, a, b, 0), lo = (int16_t)imm, hi = (int16_t)(b >> 16);
    if (r < lo) r = lo;
    return r > hi ? hi : r;
  }
  default: return 0;
  }
}

int fsim_ref_run(fsim_ref *r, uint64_t insn_phys, uint32_t count, char *msg, size_t n) {
  const vta_config *c = &r->cfg;
  const uint32_t B = c->batch, BI = c->block_in, BO = c->block_out;
  if (!vta_mem_check(r->mem, insn_phys, (uint64_t)count * 16)) {
    snprintf(msg, n, "stream outside memory");
    return -1;
  }
  for (uint32_t pc = 0; pc < count; pc++) {
    vta_insn_word w;
    vta_insn in;
    vta_insn_word_load((const uint8_t *)vta_mem_ptr(r->mem, insn_phys + 16ull * pc), &w);
    if (vta_insn_decode(c, &w, &in, NULL) != VTA_OK || vta_insn_check(c, &in, NULL) != VTA_OK) {
      snprintf(msg, n, "instruction %u does not decode", pc);
      return -1;
    }
    const int64_t *f = in.f;
    switch (f[VTA_F_OPCODE]) {
    case VTA_OP_LOAD: {
      int t = (int)f[VTA_F_MEMORY_TYPE];
      if (f[VTA_F_X_SIZE] == 0) break;
      uint64_t eb = c->elem_bytes[t];
      uint64_t xt = f[VTA_F_X_PAD_0] + f[VTA_F_X_SIZE] + f[VTA_F_X_PAD_1];
      uint64_t s = f[VTA_F_SRAM_BASE];
      int bad = 0;
      for (int64_t i = 0; i < f[VTA_F_Y_PAD_0] * (int64_t)xt; i++) bad |= ref_put(r, t, s++, NULL);
      for (int64_t y = 0; y < f[VTA_F_Y_SIZE]; y++) {
        for (int64_t i = 0; i < f[VTA_F_X_PAD_0]; i++) bad |= ref_put(r, t, s++, NULL);
        for (int64_t x = 0; x < f[VTA_F_X_SIZE]; x++) {
          uint64_t a = (f[VTA_F_DRAM_BASE] + y * f[VTA_F_X_STRIDE] + x) * eb;
          if (!vta_mem_check(r->mem, a, eb)) {
            snprintf(msg, n, "instruction %u reads outside memory", pc);
            return -1;
          }
          bad |= ref_put(r, t, s++, vta_mem_ptr(r->mem, a));
        }
        for (int64_t i = 0; i < f[VTA_F_X_PAD_1]; i++) bad |= ref_put(r, t, s++, NULL);
      }
      for (int64_t i = 0; i < f[VTA_F_Y_PAD_1] * (int64_t)xt; i++) bad |= ref_put(r, t, s++, NULL);
      if (bad) {
        snprintf(msg, n, "instruction %u writes past its buffer", pc);
        return -1;
      }
      break;
    }
    case VTA_OP_STORE: {
      uint64_t eb = c->elem_bytes[VTA_MEM_OUT];
      for (int64_t y = 0; y < f[VTA_F_Y_SIZE]; y++)
        for (int64_t x = 0; x < f[VTA_F_X_SIZE]; x++) {
          uint64_t s = f[VTA_F_SRAM_BASE] + y * f[VTA_F_X_SIZE] + x;
          uint64_t a = (f[VTA_F_DRAM_BASE] + y * f[VTA_F_X_STRIDE] + x) * eb;
          if (s >= c->depth[VTA_MEM_OUT] || !vta_mem_check(r->mem, a, eb)) {
            snprintf(msg, n, "instruction %u stores out of range", pc);
            return -1;
          }
          memcpy(vta_mem_ptr(r->mem, a), r->out + s * eb, eb);
        }
      break;
    }
    case VTA_OP_GEMM:
    case VTA_OP_ALU: {
      int gemm = f[VTA_F_OPCODE] == VTA_OP_GEMM;
      for (int64_t i = 0; i < f[VTA_F_ITER_OUT]; i++)
        for (int64_t j = 0; j < f[VTA_F_ITER_IN]; j++)
          for (int64_t k = f[VTA_F_UOP_BGN]; k < f[VTA_F_UOP_END]; k++) {
            vta_uop u;
            vta_uop_decode(c, r->uop[k], &u);
            uint64_t a = u.dst + i * f[VTA_F_DST_FACTOR_OUT] + j * f[VTA_F_DST_FACTOR_IN];
            uint64_t x = u.src + i * f[VTA_F_SRC_FACTOR_OUT] + j * f[VTA_F_SRC_FACTOR_IN];
            uint64_t wi = u.wgt + i * f[VTA_F_WGT_FACTOR_OUT] + j * f[VTA_F_WGT_FACTOR_IN];
            int reset = gemm && f[VTA_F_RESET_REG];
            int use_imm = !gemm && f[VTA_F_USE_IMM];
            if (a >= c->depth[VTA_MEM_ACC] ||
                (gemm && !reset && (x >= c->depth[VTA_MEM_INP] || wi >= c->depth[VTA_MEM_WGT])) ||
                (!gemm && !use_imm && x >= c->depth[VTA_MEM_ACC])) {
              snprintf(msg, n, "instruction %u indexes past a buffer", pc);
              return -1;
            }
            for (uint32_t b = 0; b < B; b++)
              for (uint32_t o = 0; o < BO; o++) {
                int32_t *acc = &r->acc[(a * B + b) * BO + o];
                if (gemm && reset) {
                  *acc = 0;
                } else if (gemm) {
                  int64_t sum = *acc;
                  for (uint32_t ci = 0; ci < BI; ci++)
                    sum += (int64_t)r->inp[(x * B + b) * BI + ci] * r->wgt[(wi * BO + o) * BI + ci];
                  *acc = (int32_t)(uint32_t)(uint64_t)sum;
                } else {
                  int32_t opnd = use_imm ? (int32_t)f[VTA_F_IMM] : r->acc[(x * B + b) * BO + o];
                  *acc = ref_alu((int)f[VTA_F_ALU_OPCODE], *acc, opnd, (int32_t)f[VTA_F_IMM]);
                }
                r->out[(a * B + b) * BO + o] = (int8_t)(uint8_t)(uint32_t)*acc;
              }
          }
      break;
    }
    case VTA_OP_FINISH: return 0;
    default: snprintf(msg, n, "instruction %u: bad opcode", pc); return -1;
    }
  }
  snprintf(msg, n, "no FINISH");
  return -1;
}

