/* prog.h - instruction streams for the simulators and for `vta regress`: a builder, a generator
 * of seeded random valid programs, and a serialiser.
 *
 *     fsim_prog p; fp_init(&p, &cfg);
 *     fp_load(&p, VTA_MEM_INP, 0, dram_elem, 1, 4, 4, 0, 0, 0, 0, 0);
 *     fp_add(&p, &(vta_insn){.f = {[VTA_F_OPCODE] = VTA_OP_GEMM, [VTA_F_UOP_END] = 1,
 *                                  [VTA_F_ITER_OUT] = 1, [VTA_F_ITER_IN] = 1}});
 *     fp_finish(&p, 0);
 *     uint64_t insn; fp_commit(&p, mem, &insn);   // allocates and copies the stream
 *     vta_fsim_run(sim, insn, fp_count(&p), 0, &stats, &err);
 *
 * Random programs (fp_random_build) carry no dependency tokens: fsim runs such a stream in
 * order, but the RTL runs load, compute and store concurrently. fp_serialize adds the tokens
 * (and compute no-ops where load and store meet) that make every module wait for the
 * instruction before it, which is how the runtime orders dependent work; the result is a valid
 * stream whose outcome does not depend on timing. Concurrent programs, whose tokens order only
 * what must be ordered, are in sim/gen/conc.h.
 *
 * These were test support (tests/support) until `vta regress` needed them; the tests and the
 * regression tool now share this one copy.
 */
#ifndef VTA_SIM_GEN_PROG_H
#define VTA_SIM_GEN_PROG_H

#include <stddef.h>
#include <stdint.h>

#include "sim/mem/mem.h"
#include "vta/config.h"
#include "vta/isa.h"

/* Dependency flags for the helpers. */
enum { FP_POP_PREV = 1, FP_POP_NEXT = 2, FP_PUSH_PREV = 4, FP_PUSH_NEXT = 8 };

typedef struct fsim_prog {
  const vta_config *cfg;
  vta_insn_word *words;
  size_t n, cap;
} fsim_prog;

void fp_init(fsim_prog *p, const vta_config *cfg);
void fp_free(fsim_prog *p);
uint32_t fp_count(const fsim_prog *p);
/* Encodes and appends; returns the instruction index, or -1 if it does not encode (the test
 * then fails on its own assertion). */
int fp_add(fsim_prog *p, const vta_insn *in);
/* Appends a raw word (for malformed streams). */
int fp_add_word(fsim_prog *p, uint64_t lo, uint64_t hi);
int fp_load(fsim_prog *p, vta_mem_type t, uint32_t sram, uint32_t dram, uint32_t y, uint32_t x,
            uint32_t stride, uint32_t yp0, uint32_t yp1, uint32_t xp0, uint32_t xp1, int flags);
int fp_store(fsim_prog *p, uint32_t sram, uint32_t dram, uint32_t y, uint32_t x, uint32_t stride,
             int flags);
/* GEMM over uops [bgn,end) with loops (io, ii) and factors {dst, src, wgt} x {out, in}. */
int fp_gemm(fsim_prog *p, int reset, uint32_t bgn, uint32_t end, uint32_t io, uint32_t ii,
            const uint32_t f_out[3], const uint32_t f_in[3], int flags);
/* ALU: factors {dst, src} x {out, in}. */
int fp_alu(fsim_prog *p, vta_alu_op op, int use_imm, int32_t imm, uint32_t bgn, uint32_t end,
           uint32_t io, uint32_t ii, const uint32_t f_out[2], const uint32_t f_in[2], int flags);
int fp_finish(fsim_prog *p, int flags);
/* Allocates device memory for the stream, copies it there, returns its address. */
int fp_commit(fsim_prog *p, vta_mem *mem, uint64_t *phys);

/* Encodes micro-ops to little-endian words at a host pointer. */
void fp_uops(const vta_config *cfg, uint8_t *dst, const vta_uop *uops, size_t n);

/* ---- Random programs ----
 * A random valid program (LOADs of every memory type with random padding and strides, GEMMs
 * with and without reset, ALU ops of every kind with immediates and vectors, STOREs) and its
 * input data, built identically into any number of vta_mem instances (the allocator is
 * deterministic, so the addresses agree). */
typedef struct fp_random {
  uint64_t insn;             /* stream address */
  uint32_t count;            /* instructions */
  uint64_t data, data_bytes; /* the one data allocation (inputs and the STORE area) */
} fp_random;

/* Deterministic generator (xorshift) so failures reproduce from the seed. */
uint64_t fp_rand(uint64_t *state);
/* Builds the program of `seed` with about `ninsn` instructions into mem. */
int fp_random_build(const vta_config *cfg, uint64_t seed, uint32_t ninsn, vta_mem *mem,
                    fp_random *out);

/* ---- Serialising ---- */

/* Appends to out the serialised form of the count instruction words at w (FINISH last): every
 * module waits for the instruction before it. Returns -1 if a word does not decode. */
int fp_serialize_words(const vta_config *cfg, const vta_insn_word *w, size_t count,
                       fsim_prog *out);
/* Rewrites the stream at insn (count words, FINISH last) into a serialised one, allocated in
 * mem, at *out (*out_count instructions). Returns -1 on failure. */
int fp_serialize(const vta_config *cfg, vta_mem *mem, uint64_t insn, uint32_t count,
                 uint64_t *out, uint32_t *out_count);

#endif
