/* fsim_exec.c - what each instruction does (ISA.md section 3), checks first, effects second.
 *
 * Every instruction is checked completely before it changes anything: the SRAM range it
 * touches, and every DRAM byte its DMA reads or writes (vta_mem_check), so a failing
 * instruction leaves memory and buffers as they were and nothing outside an allocation is ever
 * read or written. GEMM and ALU are checked once per instruction, not per micro-op: the loop
 * factors are unsigned, so the largest index an instruction reaches is the largest micro-op
 * field plus (iter_out-1)*factor_out + (iter_in-1)*factor_in. The GEMM arithmetic itself is
 * in fsim_simd.c; ALU and the data movement are here, in plain C.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sim/fsim/fsim_internal.h"

/* The buffer a memory type lives in (ACC_8BIT loads into ACC). */
static vta_mem_type buffer_of(unsigned t) {
  return t == VTA_MEM_ACC_8BIT ? VTA_MEM_ACC : (vta_mem_type)t;
}

static const char *buf_name(vta_mem_type t) {
  static const char *const names[VTA_MEM_COUNT] = {"UOP", "WGT", "INP", "ACC", "OUT", "ACC"};
  return names[t];
}

/* Checks that the 2-D DMA of y_size rows of x_size elements (element bytes eb) starting at
 * element dram_base with a row stride of x_stride elements stays inside allocated memory: the
 * whole span at once, or failing that (rows in different allocations), row by row. */
static int dma_check(vta_fsim *sim, const fsim_insn *in, uint64_t eb, const char *verb,
                     char *msg, size_t n) {
  uint64_t base = (uint64_t)in->dram_base * eb;
  uint64_t span = ((uint64_t)(in->y_size - 1) * in->x_stride + in->x_size) * eb;
  if (vta_mem_check(sim->mem, base, span)) return VTA_OK;
  for (uint32_t y = 0; y < in->y_size; y++) {
    uint64_t a = base + (uint64_t)y * in->x_stride * eb, len = (uint64_t)in->x_size * eb;
    if (!vta_mem_check(sim->mem, a, len)) {
      char where[160];
      vta_mem_describe(sim->mem, a, where, sizeof where);
      snprintf(msg, n,
               "DMA %s row %u of %" PRIu64 " bytes at physical address 0x%" PRIx64
               " is outside the allocated device memory (%s)",
               verb, y, len, a, where);
      return VTA_ERR_BOUNDS;
    }
  }
  return VTA_OK;
}

/* Writes `count` zero elements of buffer t from SRAM index s. */
static void zero_elems(vta_fsim *sim, vta_mem_type t, uint64_t s, uint64_t count) {
  switch (t) {
  case VTA_MEM_UOP: memset(sim->uop + s, 0, count * sizeof *sim->uop); break;
  case VTA_MEM_INP: memset(sim->inp + s * sim->inp_row, 0, count * sim->inp_row); break;
  case VTA_MEM_WGT: memset(sim->wgt + s * sim->wgt_row, 0, count * sim->wgt_row); break;
  case VTA_MEM_ACC:
    memset(sim->acc + s * sim->acc_row, 0, count * sim->acc_row * sizeof(int32_t));
    break;
  default: break;
  }
}

/* Copies `count` DRAM elements of memory type t from src into its buffer at SRAM index s. */
static void copy_elems(vta_fsim *sim, unsigned t, uint64_t s, const uint8_t *src,
                       uint64_t count) {
  switch (t) {
  case VTA_MEM_UOP:
    for (uint64_t i = 0; i < count; i++) {
      uint32_t w = (uint32_t)src[4 * i] | (uint32_t)src[4 * i + 1] << 8 |
                   (uint32_t)src[4 * i + 2] << 16 | (uint32_t)src[4 * i + 3] << 24;
      vta_uop_decode(&sim->cfg, w, &sim->uop[s + i]);
    }
    break;
  case VTA_MEM_INP: memcpy(sim->inp + s * sim->inp_row, src, count * sim->inp_row); break;
  case VTA_MEM_WGT: memcpy(sim->wgt + s * sim->wgt_row, src, count * sim->wgt_row); break;
  case VTA_MEM_ACC: {
    /* Little-endian int32 lanes, as the host stores them: this simulator targets x86-64 and
     * other little-endian hosts. */
    memcpy(sim->acc + s * sim->acc_row, src, count * sim->acc_row * sizeof(int32_t));
    break;
  }
  case VTA_MEM_ACC_8BIT: {
    int32_t *d = sim->acc + s * sim->acc_row;
    uint64_t lanes = count * sim->acc_row;
    for (uint64_t i = 0; i < lanes; i++) d[i] = (int8_t)src[i];
    break;
  }
  default: break;
  }
}

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "fsim copies little-endian DRAM words with memcpy");

static int exec_load(vta_fsim *sim, const fsim_insn *in, vta_stats *st, char *msg, size_t n) {
  if (in->mem_type == VTA_MEM_OUT || in->mem_type >= VTA_MEM_COUNT) {
    snprintf(msg, n, "load: memory_type %u cannot be loaded", in->mem_type);
    return VTA_ERR_INVALID;
  }
  if (in->x_size == 0) return VTA_OK; /* a sync no-op: moves nothing, not even padding */
  vta_mem_type b = buffer_of(in->mem_type);
  uint64_t xt = (uint64_t)in->x_pad_0 + in->x_size + in->x_pad_1;
  uint64_t total = xt * ((uint64_t)in->y_pad_0 + in->y_size + in->y_pad_1);
  uint32_t depth = sim->cfg.depth[b];
  if (in->sram_base + total > depth) {
    snprintf(msg, n,
             "load writes %s buffer elements %u to %" PRIu64 " but its depth is %u",
             buf_name(b), in->sram_base, in->sram_base + total - 1, depth);
    return VTA_ERR_BOUNDS;
  }
  uint64_t eb = sim->cfg.elem_bytes[in->mem_type];
  if (in->y_size) {
    int rc = dma_check(sim, in, eb, "read of", msg, n);
    if (rc != VTA_OK) return rc;
  }
  uint64_t s = in->sram_base;
  zero_elems(sim, b, s, in->y_pad_0 * xt);
  s += in->y_pad_0 * xt;
  const uint8_t *dram = vta_mem_ptr(sim->mem, (uint64_t)in->dram_base * eb);
  for (uint32_t y = 0; y < in->y_size; y++) {
    zero_elems(sim, b, s, in->x_pad_0);
    s += in->x_pad_0;
    copy_elems(sim, in->mem_type, s, dram + (uint64_t)y * in->x_stride * eb, in->x_size);
    s += in->x_size;
    zero_elems(sim, b, s, in->x_pad_1);
    s += in->x_pad_1;
  }
  zero_elems(sim, b, s, in->y_pad_1 * xt);
  /* The SIMD kernels read their own copies of INP and WGT: refresh the rows just written. */
  const fsim_kernels *k = sim->kern;
  if (b == VTA_MEM_INP && k->prep_inp) k->prep_inp(sim, in->sram_base, (uint32_t)total);
  if (b == VTA_MEM_WGT && k->prep_wgt) k->prep_wgt(sim, in->sram_base, (uint32_t)total);
  st->bytes_read[in->mem_type] += (uint64_t)in->y_size * in->x_size * eb;
  return VTA_OK;
}

static int exec_store(vta_fsim *sim, const fsim_insn *in, vta_stats *st, char *msg, size_t n) {
  if (in->x_size == 0 || in->y_size == 0) return VTA_OK;
  uint64_t total = (uint64_t)in->y_size * in->x_size;
  uint32_t depth = sim->cfg.depth[VTA_MEM_OUT];
  if (in->sram_base + total > depth) {
    snprintf(msg, n, "store reads OUT buffer elements %u to %" PRIu64 " but its depth is %u",
             in->sram_base, in->sram_base + total - 1, depth);
    return VTA_ERR_BOUNDS;
  }
  uint64_t eb = sim->cfg.elem_bytes[VTA_MEM_OUT];
  int rc = dma_check(sim, in, eb, "write of", msg, n);
  if (rc != VTA_OK) return rc;
  uint8_t *dram = vta_mem_ptr(sim->mem, (uint64_t)in->dram_base * eb);
  for (uint32_t y = 0; y < in->y_size; y++)
    memcpy(dram + (uint64_t)y * in->x_stride * eb,
           sim->out + (in->sram_base + (uint64_t)y * in->x_size) * eb, in->x_size * eb);
  st->bytes_written[VTA_MEM_OUT] += total * eb;
  return VTA_OK;
}

/* The largest index one micro-op field reaches over the instruction's loops, and the
 * micro-op that reaches it. */
typedef struct reach {
  uint64_t max;
  uint32_t k;
} reach;

static int check_reach(const fsim_insn *in, const char *field, reach r, uint32_t f_out,
                       uint32_t f_in, vta_mem_type b, uint32_t depth, char *msg, size_t n) {
  uint64_t top = r.max + (uint64_t)(in->iter_out - 1) * f_out + (uint64_t)(in->iter_in - 1) * f_in;
  if (top < depth) return VTA_OK;
  snprintf(msg, n,
           "%s buffer index %" PRIu64 " is out of range (depth %u): micro-op %u has %s=%" PRIu64
           ", plus (iter_out-1)*%u + (iter_in-1)*%u",
           buf_name(b), top, depth, r.k, field, r.max, f_out, f_in);
  return VTA_ERR_BOUNDS;
}

static void uop_reach(const vta_fsim *sim, const fsim_insn *in, reach *d, reach *s, reach *w) {
  *d = *s = *w = (reach){0, in->uop_bgn};
  for (uint32_t k = in->uop_bgn; k < in->uop_end; k++) {
    const vta_uop *u = &sim->uop[k];
    if (u->dst > d->max) *d = (reach){u->dst, k};
    if (u->src > s->max) *s = (reach){u->src, k};
    if (u->wgt > w->max) *w = (reach){u->wgt, k};
  }
}

static int exec_gemm(vta_fsim *sim, const fsim_insn *in, vta_stats *st, char *msg, size_t n) {
  if (in->iter_out == 0 || in->iter_in == 0) return VTA_OK;
  reach d, s, w;
  uop_reach(sim, in, &d, &s, &w);
  const uint32_t *depth = sim->cfg.depth;
  int rc = check_reach(in, "dst", d, in->dst_out, in->dst_in, VTA_MEM_ACC, depth[VTA_MEM_ACC],
                       msg, n);
  if (rc == VTA_OK && !in->reset)
    rc = check_reach(in, "src", s, in->src_out, in->src_in, VTA_MEM_INP, depth[VTA_MEM_INP], msg,
                     n);
  if (rc == VTA_OK && !in->reset)
    rc = check_reach(in, "wgt", w, in->wgt_out, in->wgt_in, VTA_MEM_WGT, depth[VTA_MEM_WGT], msg,
                     n);
  if (rc != VTA_OK) return rc;
  uint64_t uops = (uint64_t)(in->uop_end - in->uop_bgn) * in->iter_out * in->iter_in;
  if (in->reset) {
    /* A reset zeroes ACC and, through narrowing, OUT; it reads neither INP nor WGT. */
    size_t row = sim->acc_row;
    for (uint32_t i = 0; i < in->iter_out; i++)
      for (uint32_t j = 0; j < in->iter_in; j++)
        for (uint32_t k = in->uop_bgn; k < in->uop_end; k++) {
          uint64_t a = sim->uop[k].dst + (uint64_t)i * in->dst_out + (uint64_t)j * in->dst_in;
          memset(sim->acc + a * row, 0, row * sizeof(int32_t));
          memset(sim->out + a * row, 0, row);
        }
  } else {
    sim->kern->gemm(sim, in);
    st->macs += uops * sim->cfg.macs_per_cycle;
  }
  st->uops += uops;
  st->gemm_uops += uops;
  return VTA_OK;
}

/* y = the sign-extended low LOG_ACC_WIDTH+1 (6) bits of the operand: >= 0 shifts right
 * (arithmetic), < 0 shifts left by -y; shifting out every bit gives 0. Written without
 * implementation-defined or undefined shifts. */
static int32_t alu_shr(int32_t a, int32_t op) {
  int32_t y = (int32_t)((uint32_t)op & 63u);
  if (y >= 32) y -= 64;
  if (y >= 0) return a >= 0 ? a >> y : ~(~a >> y);
  uint32_t sh = (uint32_t)-y;
  return sh >= 32 ? 0 : (int32_t)((uint32_t)a << sh);
}

/* SHRCLIP: SHR by the operand, then MAX with the immediate and MIN with the operand's upper 16
 * bits (signed), as the three micro-ops would: a requantization in one pass. */
static int32_t alu_shrclip(int32_t a, int32_t op, int32_t imm) {
  int32_t r = alu_shr(a, op), lo = (int16_t)imm, hi = (int16_t)((uint32_t)op >> 16);
  r = r > lo ? r : lo;
  return r < hi ? r : hi;
}

/* Lane by lane, with the operand from src (a vector micro-op) or imm. A micro-op reads dst[l]
 * and its operand before writing dst[l], and src is either dst itself or a whole other ACC
 * element, so the operand row is first copied to a local array: the lane loops then read
 * nothing they write, and with the lane count a constant (alu_uops is inlined into one loop
 * per common element width) the compiler turns each into a few vector instructions. The
 * narrowed copy goes to OUT, a separate buffer (restrict). */
#define ALU_MAX_LANES (1u << (VTA_CONFIG_MAX_LOG_BATCH + VTA_CONFIG_MAX_LOG_BLOCK))

#define ALU_LANES(EXPR)                                                      \
  for (uint32_t l = 0; l < lanes; l++) {                                     \
    int32_t a = dst[l], b = opnd[l];                                         \
    dst[l] = (EXPR);                                                         \
  }

static inline __attribute__((always_inline)) void
alu_uops(vta_fsim *sim, const fsim_insn *in, const uint32_t lanes) {
  int32_t opnd[ALU_MAX_LANES] __attribute__((aligned(64)));
  if (in->use_imm)
    for (uint32_t l = 0; l < lanes; l++) opnd[l] = in->imm;
  for (uint32_t i = 0; i < in->iter_out; i++)
    for (uint32_t j = 0; j < in->iter_in; j++) {
      uint64_t dd = (uint64_t)i * in->dst_out + (uint64_t)j * in->dst_in;
      uint64_t sd = (uint64_t)i * in->src_out + (uint64_t)j * in->src_in;
      for (uint32_t k = in->uop_bgn; k < in->uop_end; k++) {
        uint64_t a = sim->uop[k].dst + dd;
        int32_t *restrict dst = sim->acc + a * lanes;
        uint8_t *restrict out = sim->out + a * lanes;
        if (!in->use_imm)
          memcpy(opnd, sim->acc + (sim->uop[k].src + sd) * lanes, lanes * sizeof *opnd);
        switch (in->alu_op) {
        case VTA_ALU_MIN: ALU_LANES(a < b ? a : b); break;
        case VTA_ALU_MAX: ALU_LANES(a > b ? a : b); break;
        case VTA_ALU_ADD: ALU_LANES((int32_t)((uint32_t)a + (uint32_t)b)); break;
        case VTA_ALU_SHR: ALU_LANES(alu_shr(a, b)); break;
        case VTA_ALU_MUL: ALU_LANES((int32_t)((uint32_t)a * (uint32_t)b)); break;
        case VTA_ALU_SHRCLIP: ALU_LANES(alu_shrclip(a, b, in->imm)); break;
        default: break;
        }
        for (uint32_t l = 0; l < lanes; l++) out[l] = (uint8_t)dst[l];
      }
    }
}

static int exec_alu(vta_fsim *sim, const fsim_insn *in, vta_stats *st, char *msg, size_t n) {
  if (in->iter_out == 0 || in->iter_in == 0) return VTA_OK;
  reach d, s, w;
  uop_reach(sim, in, &d, &s, &w);
  uint32_t depth = sim->cfg.depth[VTA_MEM_ACC];
  int rc = check_reach(in, "dst", d, in->dst_out, in->dst_in, VTA_MEM_ACC, depth, msg, n);
  if (rc == VTA_OK && !in->use_imm)
    rc = check_reach(in, "src", s, in->src_out, in->src_in, VTA_MEM_ACC, depth, msg, n);
  if (rc != VTA_OK) return rc;
  /* Micro-ops run strictly in order: a later one may read what an earlier one wrote. */
  switch (sim->acc_row) {
  case 16: alu_uops(sim, in, 16); break;  /* 1x16 (the default) */
  case 64: alu_uops(sim, in, 64); break;  /* 4x16 */
  case 32: alu_uops(sim, in, 32); break;
  default: alu_uops(sim, in, sim->acc_row); break;
  }
  uint64_t uops = (uint64_t)(in->uop_end - in->uop_bgn) * in->iter_out * in->iter_in;
  st->uops += uops;
  st->alu_uops += uops;
  return VTA_OK;
}

int fsim_exec(vta_fsim *sim, const fsim_insn *in, vta_stats *st, char *msg, size_t n) {
  switch (in->opcode) {
  case VTA_OP_LOAD: return exec_load(sim, in, st, msg, n);
  case VTA_OP_STORE:
    if (in->mem_type != VTA_MEM_OUT) {
      snprintf(msg, n, "store: memory_type %u is not out", in->mem_type);
      return VTA_ERR_INVALID;
    }
    return exec_store(sim, in, st, msg, n);
  case VTA_OP_GEMM: return exec_gemm(sim, in, st, msg, n);
  case VTA_OP_ALU: return exec_alu(sim, in, st, msg, n);
  case VTA_OP_FINISH: return VTA_OK;
  default: snprintf(msg, n, "undefined opcode %u", in->opcode); return VTA_ERR_INVALID;
  }
}
