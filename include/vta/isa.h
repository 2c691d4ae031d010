/* isa.h - the two-level VTA instruction set, described once.
 *
 * Every field of every instruction format lives in one table (VTA_FORMAT_FIELDS below). The
 * widths of some fields depend on the hardware configuration (buffer depths), so a
 * configuration computes the bit position of every field once (vta_config_derive) and the
 * encoder, decoder, assembler, disassembler, simulators and the generated SystemVerilog package
 * all read those positions. Nothing here is a C bit-field: a 128-bit instruction is two
 * little-endian uint64_t words, and a field is a shift and a mask.
 *
 * Worked example (encode a LOAD of 16 INP elements, then decode and print it):
 *
 *     vta_config cfg; vta_config_default(&cfg);
 *     vta_insn in = {0};
 *     in.f[VTA_F_OPCODE] = VTA_OP_LOAD;  in.f[VTA_F_MEMORY_TYPE] = VTA_MEM_INP;
 *     in.f[VTA_F_DRAM_BASE] = 64; in.f[VTA_F_Y_SIZE] = 1; in.f[VTA_F_X_SIZE] = 16;
 *     in.f[VTA_F_X_STRIDE] = 16; in.f[VTA_F_PUSH_NEXT] = 1;
 *     vta_insn_word w; vta_insn_encode(&cfg, &in, &w, NULL);
 *     char text[256]; vta_insn_to_text(&cfg, &in, text, sizeof text);
 *     // text: "load memory_type=inp dram_base=64 y_size=1 x_size=16 x_stride=16 push_next"
 */
#ifndef VTA_ISA_H
#define VTA_ISA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vta/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct vta_config;

/* Opcodes (ISA.md section 2). */
typedef enum vta_opcode {
  VTA_OP_LOAD = 0,
  VTA_OP_STORE = 1,
  VTA_OP_GEMM = 2,
  VTA_OP_FINISH = 3,
  VTA_OP_ALU = 4,
  VTA_OP_COUNT = 5
} vta_opcode;

/* Memory types of LOAD/STORE. */
typedef enum vta_mem_type {
  VTA_MEM_UOP = 0,
  VTA_MEM_WGT = 1,
  VTA_MEM_INP = 2,
  VTA_MEM_ACC = 3,
  VTA_MEM_OUT = 4,
  VTA_MEM_ACC_8BIT = 5,
  VTA_MEM_COUNT = 6
} vta_mem_type;

/* ALU opcodes. SHRCLIP (ours, not in the published ISA) is a requantization in one micro-op:
 * the destination shifted as SHR by the operand, then clipped to [imm, the operand's upper 16
 * bits], both signed: min(max(SHR(dst, opnd), sext(imm)), opnd >> 16) (docs/isa-text.md). */
typedef enum vta_alu_op {
  VTA_ALU_MIN = 0,
  VTA_ALU_MAX = 1,
  VTA_ALU_ADD = 2,
  VTA_ALU_SHR = 3,
  VTA_ALU_MUL = 4,
  VTA_ALU_SHRCLIP = 5,
  VTA_ALU_COUNT = 6
} vta_alu_op;

/* Whether an ALU instruction reads its immediate field: as its operand (use_imm), or as
 * SHRCLIP's lower bound (always). Elsewhere the field is ignored. */
static inline int vta_alu_imm_used(unsigned alu_op, unsigned use_imm) {
  return use_imm != 0 || alu_op == VTA_ALU_SHRCLIP;
}

/* Pipeline modules an instruction is routed to (ISA.md section 4). */
typedef enum vta_module {
  VTA_MOD_LOAD = 0,
  VTA_MOD_COMPUTE = 1,
  VTA_MOD_STORE = 2,
  VTA_MOD_COUNT = 3
} vta_module;

/* Token queues (ISA.md section 4). */
typedef enum vta_queue {
  VTA_Q_LOAD_TO_COMPUTE = 0,
  VTA_Q_COMPUTE_TO_LOAD = 1,
  VTA_Q_COMPUTE_TO_STORE = 2,
  VTA_Q_STORE_TO_COMPUTE = 3,
  VTA_Q_COUNT = 4
} vta_queue;

/* Every field of every format: X(ID, text name). The ID is semantic: GEMM and ALU share
 * DST_FACTOR_OUT although its width may differ between formats. */
#define VTA_FIELD_IDS(X)                 \
  X(OPCODE, "opcode")                    \
  X(POP_PREV, "pop_prev")                \
  X(POP_NEXT, "pop_next")                \
  X(PUSH_PREV, "push_prev")              \
  X(PUSH_NEXT, "push_next")              \
  X(MEMORY_TYPE, "memory_type")          \
  X(SRAM_BASE, "sram_base")              \
  X(DRAM_BASE, "dram_base")              \
  X(Y_SIZE, "y_size")                    \
  X(X_SIZE, "x_size")                    \
  X(X_STRIDE, "x_stride")                \
  X(Y_PAD_0, "y_pad_0")                  \
  X(Y_PAD_1, "y_pad_1")                  \
  X(X_PAD_0, "x_pad_0")                  \
  X(X_PAD_1, "x_pad_1")                  \
  X(RESET_REG, "reset_reg")              \
  X(UOP_BGN, "uop_bgn")                  \
  X(UOP_END, "uop_end")                  \
  X(ITER_OUT, "iter_out")                \
  X(ITER_IN, "iter_in")                  \
  X(DST_FACTOR_OUT, "dst_factor_out")    \
  X(DST_FACTOR_IN, "dst_factor_in")      \
  X(SRC_FACTOR_OUT, "src_factor_out")    \
  X(SRC_FACTOR_IN, "src_factor_in")      \
  X(WGT_FACTOR_OUT, "wgt_factor_out")    \
  X(WGT_FACTOR_IN, "wgt_factor_in")      \
  X(ALU_OPCODE, "alu_opcode")            \
  X(USE_IMM, "use_imm")                  \
  X(IMM, "imm")                          \
  X(UOP_DST, "dst")                      \
  X(UOP_SRC, "src")                      \
  X(UOP_WGT, "wgt")

typedef enum vta_field_id {
#define VTA_X_(id, name) VTA_F_##id,
  VTA_FIELD_IDS(VTA_X_)
#undef VTA_X_
  VTA_F_COUNT
} vta_field_id;

/* Formats: the four instruction formats and the 32-bit micro-op. */
typedef enum vta_format {
  VTA_FMT_MEM = 0, /* LOAD and STORE */
  VTA_FMT_GEMM = 1,
  VTA_FMT_ALU = 2,
  VTA_FMT_FINISH = 3,
  VTA_FMT_UOP = 4,
  VTA_FMT_COUNT = 5
} vta_format;

/* How a field's width is found: a constant, or a value derived from the configuration. */
typedef enum vta_width_kind {
  VTA_W_FIXED = 0,     /* the constant given in the table */
  VTA_W_UOP_DEPTH,     /* LOG_UOP_DEPTH */
  VTA_W_UOP_DEPTH_P1,  /* LOG_UOP_DEPTH + 1 (uop_end may equal the depth) */
  VTA_W_INP_DEPTH,     /* LOG_INP_DEPTH */
  VTA_W_WGT_DEPTH,     /* LOG_WGT_DEPTH */
  VTA_W_ACC_DEPTH,     /* LOG_ACC_DEPTH */
  VTA_W_SRC_DEPTH,     /* max(LOG_ACC_DEPTH, LOG_INP_DEPTH): micro-op src serves GEMM and ALU */
  VTA_W_COUNT
} vta_width_kind;

/* The field table: X(FORMAT, FIELD, WIDTH_KIND, FIXED_WIDTH, SIGNED), in packing order from
 * bit 0. A field that would straddle bit 64 starts at bit 64 (ISA.md section 2). */
#define VTA_FORMAT_FIELDS(X)                   \
  X(MEM, OPCODE, FIXED, 3, 0)                  \
  X(MEM, POP_PREV, FIXED, 1, 0)                \
  X(MEM, POP_NEXT, FIXED, 1, 0)                \
  X(MEM, PUSH_PREV, FIXED, 1, 0)               \
  X(MEM, PUSH_NEXT, FIXED, 1, 0)               \
  X(MEM, MEMORY_TYPE, FIXED, 3, 0)             \
  X(MEM, SRAM_BASE, FIXED, 16, 0)              \
  X(MEM, DRAM_BASE, FIXED, 32, 0)              \
  X(MEM, Y_SIZE, FIXED, 16, 0)                 \
  X(MEM, X_SIZE, FIXED, 16, 0)                 \
  X(MEM, X_STRIDE, FIXED, 16, 0)               \
  X(MEM, Y_PAD_0, FIXED, 4, 0)                 \
  X(MEM, Y_PAD_1, FIXED, 4, 0)                 \
  X(MEM, X_PAD_0, FIXED, 4, 0)                 \
  X(MEM, X_PAD_1, FIXED, 4, 0)                 \
  X(GEMM, OPCODE, FIXED, 3, 0)                 \
  X(GEMM, POP_PREV, FIXED, 1, 0)               \
  X(GEMM, POP_NEXT, FIXED, 1, 0)               \
  X(GEMM, PUSH_PREV, FIXED, 1, 0)              \
  X(GEMM, PUSH_NEXT, FIXED, 1, 0)              \
  X(GEMM, RESET_REG, FIXED, 1, 0)              \
  X(GEMM, UOP_BGN, UOP_DEPTH, 0, 0)            \
  X(GEMM, UOP_END, UOP_DEPTH_P1, 0, 0)         \
  X(GEMM, ITER_OUT, FIXED, 14, 0)              \
  X(GEMM, ITER_IN, FIXED, 14, 0)               \
  X(GEMM, DST_FACTOR_OUT, ACC_DEPTH, 0, 0)     \
  X(GEMM, DST_FACTOR_IN, ACC_DEPTH, 0, 0)      \
  X(GEMM, SRC_FACTOR_OUT, INP_DEPTH, 0, 0)     \
  X(GEMM, SRC_FACTOR_IN, INP_DEPTH, 0, 0)      \
  X(GEMM, WGT_FACTOR_OUT, WGT_DEPTH, 0, 0)     \
  X(GEMM, WGT_FACTOR_IN, WGT_DEPTH, 0, 0)      \
  X(ALU, OPCODE, FIXED, 3, 0)                  \
  X(ALU, POP_PREV, FIXED, 1, 0)                \
  X(ALU, POP_NEXT, FIXED, 1, 0)                \
  X(ALU, PUSH_PREV, FIXED, 1, 0)               \
  X(ALU, PUSH_NEXT, FIXED, 1, 0)               \
  X(ALU, RESET_REG, FIXED, 1, 0)               \
  X(ALU, UOP_BGN, UOP_DEPTH, 0, 0)             \
  X(ALU, UOP_END, UOP_DEPTH_P1, 0, 0)          \
  X(ALU, ITER_OUT, FIXED, 14, 0)               \
  X(ALU, ITER_IN, FIXED, 14, 0)                \
  X(ALU, DST_FACTOR_OUT, ACC_DEPTH, 0, 0)      \
  X(ALU, DST_FACTOR_IN, ACC_DEPTH, 0, 0)       \
  X(ALU, SRC_FACTOR_OUT, ACC_DEPTH, 0, 0)      \
  X(ALU, SRC_FACTOR_IN, ACC_DEPTH, 0, 0)       \
  X(ALU, ALU_OPCODE, FIXED, 3, 0)              \
  X(ALU, USE_IMM, FIXED, 1, 0)                 \
  X(ALU, IMM, FIXED, 16, 1)                    \
  X(FINISH, OPCODE, FIXED, 3, 0)               \
  X(FINISH, POP_PREV, FIXED, 1, 0)             \
  X(FINISH, POP_NEXT, FIXED, 1, 0)             \
  X(FINISH, PUSH_PREV, FIXED, 1, 0)            \
  X(FINISH, PUSH_NEXT, FIXED, 1, 0)            \
  X(UOP, UOP_DST, ACC_DEPTH, 0, 0)             \
  X(UOP, UOP_SRC, SRC_DEPTH, 0, 0)             \
  X(UOP, UOP_WGT, WGT_DEPTH, 0, 0)

/* Position of one field in one format under one configuration (width 0: not in the format). */
typedef struct vta_field_pos {
  uint8_t lsb;
  uint8_t width;
  uint8_t is_signed;
} vta_field_pos;

/* Per-format layout computed by vta_config_derive. */
typedef struct vta_format_layout {
  vta_field_pos pos[VTA_F_COUNT];
  uint8_t order[VTA_F_COUNT]; /* field ids in packing order */
  uint8_t nfields;
  uint8_t bits_used;          /* highest used bit + 1 */
  uint64_t reserved_mask[2];  /* bits no field covers (must be zero in a valid word) */
} vta_format_layout;

/* A decoded instruction: one value per field id. Fields a format does not have are 0.
 * Signed fields (imm) hold their sign-extended value. */
typedef struct vta_insn {
  int64_t f[VTA_F_COUNT];
} vta_insn;

/* A 128-bit instruction word: w[0] holds bits 0-63, w[1] bits 64-127. In device memory it is
 * 16 bytes, little-endian, w[0] first. */
typedef struct vta_insn_word {
  uint64_t w[2];
} vta_insn_word;

/* A decoded micro-op. */
typedef struct vta_uop {
  uint32_t dst, src, wgt;
} vta_uop;

#define VTA_INSN_BYTES 16
#define VTA_UOP_BYTES 4

/* Names (lower case, as in the text form) and lookups; NULL / -1 when out of range. */
const char *vta_field_name(vta_field_id id);
int vta_field_lookup(const char *name, size_t len);
const char *vta_opcode_name(unsigned op);
const char *vta_mem_type_name(unsigned t);
const char *vta_alu_op_name(unsigned op);
const char *vta_module_name(vta_module m);
const char *vta_queue_name(vta_queue q);
const char *vta_format_name(vta_format f);

/* Static table access (width kind / constant / signedness of each field of each format). */
int vta_format_has_field(vta_format fmt, vta_field_id id);

/* The format of an opcode; VTA_FMT_COUNT if the opcode is undefined. */
vta_format vta_opcode_format(unsigned opcode);
/* The module an instruction is routed to by fetch (ISA.md section 4). */
vta_module vta_insn_module(const vta_insn *insn);

/* Encode: every field must fit its width (signed fields: two's complement range) and fields
 * the format does not have must be 0; otherwise VTA_ERR_INVALID naming the field, the value and
 * the limit. */
int vta_insn_encode(const struct vta_config *cfg, const vta_insn *insn, vta_insn_word *out,
                    vta_error *err);
/* Decode: VTA_ERR_INVALID for an undefined opcode or reserved bits that are set. */
int vta_insn_decode(const struct vta_config *cfg, const vta_insn_word *word, vta_insn *out,
                    vta_error *err);
/* Semantic check beyond encoding: defined memory type for the opcode, alu opcode defined,
 * STORE only from OUT with no padding, uop_bgn < uop_end <= UOP depth. */
int vta_insn_check(const struct vta_config *cfg, const vta_insn *insn, vta_error *err);

int vta_uop_encode(const struct vta_config *cfg, const vta_uop *uop, uint32_t *out, vta_error *err);
void vta_uop_decode(const struct vta_config *cfg, uint32_t word, vta_uop *out);

/* Byte (de)serialisation of instruction words (little-endian, 16 bytes). */
void vta_insn_word_store(const vta_insn_word *w, uint8_t out[VTA_INSN_BYTES]);
void vta_insn_word_load(const uint8_t in[VTA_INSN_BYTES], vta_insn_word *w);

/* Raw field access on a word using a layout (no range checks beyond masking). */
uint64_t vta_word_get(const vta_insn_word *w, vta_field_pos p);
void vta_word_set(vta_insn_word *w, vta_field_pos p, uint64_t v);

/* ---- Text form (docs/isa-text.md) ----
 * One instruction per line: the opcode name, then `field=value` for each non-zero field
 * (memory_type and alu_opcode take names; numbers in decimal or 0x hex, imm may be negative),
 * the dependency flags as bare words. `#` starts a comment. A micro-op line is
 * `uop dst=D src=S wgt=W`. */

/* Writes the text form of one instruction (no newline). Returns the length it needed, like
 * snprintf. */
int vta_insn_to_text(const struct vta_config *cfg, const vta_insn *insn, char *buf, size_t n);
int vta_uop_to_text(const vta_uop *uop, char *buf, size_t n);

/* Parses one line (no comment handling needed by the caller; blank lines are an error here).
 * On error, *errcol receives the 0-based column of the offending token if errcol is not NULL. */
int vta_insn_from_text(const struct vta_config *cfg, const char *line, vta_insn *out, int *errcol,
                       vta_error *err);
int vta_uop_from_text(const struct vta_config *cfg, const char *line, vta_uop *out, int *errcol,
                      vta_error *err);

/* Assembles a whole text (named `filename` in errors, which read "file:line:col: message" and
 * then the line with a caret under the column). On success *words is a malloc'd array of
 * *count encoded instructions (caller frees). */
int vta_asm(const struct vta_config *cfg, const char *text, const char *filename,
            vta_insn_word **words, size_t *count, vta_error *err);
/* Disassembles nbytes of little-endian instruction words to `out`, one line each; if
 * with_index, each line ends in `# N`. A length that is not a multiple of 16 or a word that does
 * not decode is an error naming the instruction index. */
int vta_disasm(const struct vta_config *cfg, const uint8_t *bytes, size_t nbytes, FILE *out,
               int with_index, vta_error *err);

#ifdef __cplusplus
}
#endif
#endif
