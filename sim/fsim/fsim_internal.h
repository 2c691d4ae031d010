/* fsim_internal.h - what the files of sim/fsim/ share and nobody else needs.
 *
 * fsim.c owns the run: it fetches and checks the whole stream, then schedules the three
 * modules through the token queues. fsim_exec.c gives every instruction its meaning (LOAD,
 * STORE, GEMM, ALU) with the bounds and DMA checks. fsim_simd.c holds the GEMM inner kernels
 * (portable C and x86 SIMD chosen at run time) and the kernel-specific copies of the INP and
 * WGT buffers they read.
 */
#ifndef VTA_FSIM_INTERNAL_H
#define VTA_FSIM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "sim/fsim/fsim.h"

/* One instruction, decoded once when the stream is fetched. The fields are those of the
 * instruction's format (vta_insn), narrowed to what their widths allow. */
typedef struct fsim_insn {
  uint8_t opcode;   /* vta_opcode */
  uint8_t module;   /* vta_module fetch routes it to */
  uint8_t pop_prev, pop_next, push_prev, push_next;
  uint8_t mem_type; /* LOAD/STORE */
  uint8_t alu_op;   /* ALU */
  uint8_t reset;    /* GEMM reset_reg (and ALU's, which has no meaning) */
  uint8_t use_imm;
  uint8_t y_pad_0, y_pad_1, x_pad_0, x_pad_1;
  uint16_t y_size, x_size, x_stride;
  uint32_t sram_base;
  uint32_t dram_base;
  uint32_t uop_bgn, uop_end, iter_out, iter_in;
  uint32_t dst_out, dst_in, src_out, src_in, wgt_out, wgt_in;
  int32_t imm;
  vta_insn_word word; /* as fetched, for the disassembly in messages */
} fsim_insn;

/* A set of GEMM kernels. `prep_*` refresh the kernel's own copy of buffer rows
 * [first, first+n) after a LOAD wrote them; `gemm` runs a whole non-reset GEMM instruction
 * whose indices were already checked. */
typedef struct fsim_kernels {
  const char *name;
  void (*prep_inp)(vta_fsim *sim, uint32_t first, uint32_t n);
  void (*prep_wgt)(vta_fsim *sim, uint32_t first, uint32_t n);
  void (*gemm)(vta_fsim *sim, const fsim_insn *in);
} fsim_kernels;

struct vta_fsim {
  vta_config cfg;
  vta_mem *mem;

  /* Shape (copies of cfg values the inner loops read). */
  uint32_t batch, block_in, block_out;
  uint32_t inp_row;  /* int8 lanes of one INP element: batch * block_in */
  uint32_t wgt_row;  /* int8 lanes of one WGT element: block_out * block_in */
  uint32_t acc_row;  /* lanes of one ACC / OUT element: batch * block_out */

  /* The on-chip buffers. The UOP buffer is kept decoded: a LOAD UOP decodes each micro-op once,
   * so GEMM/ALU never touch the bit layout. OUT holds the low 8 bits of each ACC lane as last
   * written by GEMM/ALU (the stale-OUT rule of ISA.md section 3). */
  vta_uop *uop;
  int8_t *inp;
  int8_t *wgt;
  int32_t *acc;
  uint8_t *out;

  /* Kernel-specific copies of INP and WGT (NULL for the portable kernels), in the layout the
   * SIMD kernels read; rebuilt whenever the kernel set changes. */
  uint8_t *inp_k;
  size_t inp_k_row;  /* bytes per INP element */
  uint8_t *wgt_k;
  size_t wgt_k_row;  /* bytes per WGT element */
  int32_t *wgt_corr; /* per WGT element: a correction per output lane (VNNI bias trick) */
  size_t wgt_corr_row;
  const fsim_kernels *kern;
  int simd_enabled;

  /* The stream being run: decoded instructions and each module's instruction indices. */
  fsim_insn *prog;
  uint32_t *order;
  uint32_t prog_cap;
};

/* ---- fsim_exec.c ---- */

/* Executes one instruction (the scheduler has done the pops). On failure returns the status
 * and writes the reason, without the "instruction N (text): " prefix, into msg. Statistics of
 * the instruction's data movement and micro-ops are added to st. */
int fsim_exec(vta_fsim *sim, const fsim_insn *in, vta_stats *st, char *msg, size_t n);

/* ---- fsim_simd.c ---- */

/* Chooses the best kernel set for the host and configuration (or the portable one when
 * want_simd is 0), allocates its buffer copies and fills them from INP and WGT. */
int fsim_kernels_select(vta_fsim *sim, int want_simd, vta_error *err);
/* Chooses a kernel set by name ("avx512-vnni", "avx2", "portable"); VTA_ERR_UNSUPPORTED when the
 * host lacks it. */
int fsim_kernels_select_name(vta_fsim *sim, const char *name, vta_error *err);
void fsim_kernels_free(vta_fsim *sim);

#endif
