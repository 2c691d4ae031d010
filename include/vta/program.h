/* program.h - an accelerator program: the compiler's output for one accelerator subgraph, a
 * compact list of runtime operations that the host replays through the JIT (jit.h).
 *
 * The compiler never talks to a device. It describes what the runtime should do: 2-D loads and
 * stores whose DRAM side is an element offset into one of a few named buffers (the subgraph's
 * input, a second input, packed weights, packed biases, output, scratch), micro-op kernels
 * (defined once, with their loops and micro-ops, and run many times), dependency token pushes
 * and pops between the pipeline stages, and synchronisation. The host allocates the buffers,
 * passes their device addresses, and vta_program_run turns every operation into the matching
 * native JIT call. So the same program runs on every backend, and the JIT's kernel cache and
 * micro-op residency apply unchanged (a kernel is cached under its full description, so equal
 * kernels of different programs are recorded once per vta_jit).
 *
 * A program records the hardware configuration it was compiled for (the JSON keys that decide
 * element layouts and buffer depths) and refuses to run under a configuration that differs in
 * shape or has smaller buffers. It has a text form that vta_program_parse reads back (golden
 * tests, `--dump` output) and a binary form for bundles:
 *
 *     vta-program 1
 *     config log_batch=0 log_block_in=4 log_block_out=4 log_inp_width=3 log_wgt_width=3 ...
 *     buffer input 200704
 *     kernel 0 gemm
 *       loop 2 56 116 0          # extent dst_factor src_factor wgt_factor (outer first)
 *       loop 56 1 1 0
 *       uop 0 0 0                # dst src wgt
 *     end
 *     load inp sram=0 buf=input off=0 x=56 y=3 stride=56 pad=1,0,1,1   # pad=y0,y1,x0,x1
 *     push load compute
 *     pop load compute
 *     run 0
 *     store sram=0 buf=output off=0 x=56 y=2 stride=56
 *     sync
 *
 * Building one (the compiler's side):
 *
 *     vta_program *p; vta_program_create(&cfg, &p, &err);
 *     vta_program_need_buffer(p, VTA_PROG_BUF_INPUT, bytes);
 *     uint32_t k; vta_program_add_kernel(p, &kernel, &k, &err);   // equal kernels share an id
 *     vta_program_add_load(p, &(vta_prog_xfer){...}, &err);
 *     vta_program_add_run(p, k, &err);
 *     vta_program_add_sync(p, &err);
 *
 * Replaying it (the host's side): vta_program_run(jit, p, phys, &stats, &err) with phys[b] the
 * device address of buffer b (0 for buffers the program does not use).
 */
#ifndef VTA_PROGRAM_H
#define VTA_PROGRAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vta/config.h"
#include "vta/isa.h"
#include "vta/jit.h"
#include "vta/stats.h"
#include "vta/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VTA_PROGRAM_VERSION 1

/* The buffers a program addresses (text names: input, input2, weight, bias, output, scratch). */
typedef enum vta_prog_buf {
  VTA_PROG_BUF_INPUT = 0,   /* the subgraph's activation input */
  VTA_PROG_BUF_INPUT2 = 1,  /* a second activation input (a residual operand) */
  VTA_PROG_BUF_WEIGHT = 2,  /* packed constants loaded into WGT */
  VTA_PROG_BUF_BIAS = 3,    /* packed constants loaded into ACC */
  VTA_PROG_BUF_OUTPUT = 4,  /* the subgraph's result */
  VTA_PROG_BUF_SCRATCH = 5, /* intermediate results that never leave the subgraph */
  VTA_PROG_BUF_COUNT = 6
} vta_prog_buf;

typedef enum vta_prog_opcode {
  VTA_PROG_LOAD = 0,
  VTA_PROG_STORE = 1,
  VTA_PROG_RUN = 2,  /* run a kernel */
  VTA_PROG_PUSH = 3, /* dependency token push */
  VTA_PROG_POP = 4,  /* dependency token pop */
  VTA_PROG_SYNC = 5, /* close the stream, run it, wait */
  VTA_PROG_OP_COUNT = 6
} vta_prog_opcode;

/* A 2-D transfer; DRAM is buffer `buf` at an offset in elements of `type` (as vta_jit_xfer). */
typedef struct vta_prog_xfer {
  vta_mem_type type;  /* LOAD: inp, wgt, acc, acc_8bit, uop; STORE: out */
  vta_prog_buf buf;
  uint32_t sram;
  uint64_t offset;
  uint32_t x_size, y_size, x_stride;
  uint32_t y_pad_before, y_pad_after, x_pad_before, x_pad_after; /* loads only, at most 15 */
} vta_prog_xfer;

typedef struct vta_prog_op {
  vta_prog_opcode op;
  vta_prog_xfer x;        /* LOAD, STORE */
  uint32_t kernel;        /* RUN: index into the program's kernels */
  vta_jit_stage from, to; /* PUSH, POP */
} vta_prog_op;

typedef struct vta_prog_loop {
  uint32_t extent, dst, src, wgt; /* wgt is ignored by ALU kernels */
} vta_prog_loop;

/* A micro-op kernel as the JIT records it: one GEMM or ALU instruction over at most two loops
 * (outer first) and a list of micro-ops. */
typedef struct vta_prog_kernel {
  vta_jit_mode mode;
  uint32_t reset;    /* GEMM: clear the accumulators */
  vta_alu_op alu_op; /* ALU */
  uint32_t use_imm;  /* ALU */
  int32_t imm;       /* ALU with use_imm, 16-bit signed */
  uint32_t nloops;   /* 0, 1 or 2 */
  vta_prog_loop loop[2];
  uint32_t nuops;
  const vta_uop *uops;
} vta_prog_kernel;

typedef struct vta_program vta_program;

/* ---- Building ---- */

int vta_program_create(const vta_config *cfg, vta_program **out, vta_error *err);
void vta_program_destroy(vta_program *p);

/* The configuration the program was compiled for (derived from its recorded keys). */
const vta_config *vta_program_config(const vta_program *p);

/* Raises the size (bytes) the program requires of buffer b to at least `bytes`. */
void vta_program_need_buffer(vta_program *p, vta_prog_buf b, uint64_t bytes);
uint64_t vta_program_buffer_size(const vta_program *p, vta_prog_buf b);

/* Adds a kernel (its micro-ops are copied) after checking it against the configuration (loop
 * count, extents, every index inside its buffer over all iterations, immediates that fit), or
 * finds an equal one already added; *id receives its index. */
int vta_program_add_kernel(vta_program *p, const vta_prog_kernel *k, uint32_t *id,
                           vta_error *err);
/* Operations, appended in order. Loads and stores are checked against the configuration's
 * buffers and grow the buffer's required size to cover what they touch. */
int vta_program_add_load(vta_program *p, const vta_prog_xfer *x, vta_error *err);
int vta_program_add_store(vta_program *p, const vta_prog_xfer *x, vta_error *err);
int vta_program_add_run(vta_program *p, uint32_t kernel, vta_error *err);
int vta_program_add_push(vta_program *p, vta_jit_stage from, vta_jit_stage to, vta_error *err);
int vta_program_add_pop(vta_program *p, vta_jit_stage from, vta_jit_stage to, vta_error *err);
int vta_program_add_sync(vta_program *p, vta_error *err);

/* ---- Reading ---- */

size_t vta_program_op_count(const vta_program *p);
const vta_prog_op *vta_program_op(const vta_program *p, size_t i);
size_t vta_program_kernel_count(const vta_program *p);
const vta_prog_kernel *vta_program_kernel(const vta_program *p, size_t i);
const char *vta_prog_buf_name(unsigned b);
const char *vta_prog_opcode_name(unsigned op);

/* Whole-program checks beyond those of each operation: every token pop has an earlier push on
 * its queue (in program order, as the JIT issues them), and the program ends with a sync with
 * every pushed token popped. vta_program_parse and vta_program_deserialize run it. */
int vta_program_check(const vta_program *p, vta_error *err);

/* ---- Text and binary forms ---- */

/* Writes the text form (kernels first, then operations, one per line). */
void vta_program_print(const vta_program *p, FILE *out);
/* Parses the text form; `name` is used in messages ("name:line: ..."). */
int vta_program_parse(const char *text, const char *name, vta_program **out, vta_error *err);
/* The binary form: little-endian, versioned, self-delimiting. *bytes is malloc'd. */
int vta_program_serialize(const vta_program *p, uint8_t **bytes, size_t *n, vta_error *err);
int vta_program_deserialize(const uint8_t *bytes, size_t n, const char *name, vta_program **out,
                            vta_error *err);

/* ---- Replaying ---- */

/* Issues every operation through jit's native API. buffer_phys[b] is the device address of
 * buffer b (a multiple of 64 bytes suits every element size; unused buffers may be 0, and the
 * array may be NULL if the program uses none). Statistics of the syncs are added to stats
 * (may be NULL). Fails without issuing anything when the jit's configuration differs in shape
 * or has smaller buffers than the program's. */
int vta_program_run(vta_jit *jit, const vta_program *p, const uint64_t *buffer_phys,
                    vta_stats *stats, vta_error *err);

/* ---- Chained replay: several programs in one device run ----
 *
 * Replays programs one after the other into one stream (each program's final sync dropped)
 * and runs it once. At each boundary, tokens across the layers stand in for the run boundary:
 * - the next program's first load waits (compute->load) for the previous program's last GEMM,
 *   so it does not overwrite INP/WGT still being read, but overlaps that program's epilogue
 *   and stores (its drain);
 * - its first GEMM/ALU (or a compute-side load) waits (store->compute) for the previous
 *   program's last store, so it does not overwrite OUT entries not yet stored;
 * - when it reads a DRAM range that an earlier program of the chain stores into and no
 *   barrier has covered since ("dirty"), its loads of that range also wait for every earlier
 *   store (store->compute->load through a compute no-op); its other first loads (weights)
 *   are issued before the wait, so they overlap the drain too.
 * Buffers are compared by address range (buffer_phys[b] over the program's size of b). */
typedef struct vta_prog_chain_item {
  const vta_program *prog;
  const uint64_t *phys; /* as vta_program_run's buffer_phys */
} vta_prog_chain_item;

typedef struct vta_prog_chain_info {
  uint32_t programs;  /* replayed */
  uint32_t barriers;  /* boundaries where a read waited for earlier stores */
  /* Boundaries without a barrier whose first loads go before the previous program's last
   * GEMM ends (they write no entry its pending GEMMs read). */
  uint32_t early_loads;
  /* Loads of a program replayed inside the previous one's stream, where its load module
   * waits for its compute (their entries fresh, their data complete; jit/chain.c). */
  uint32_t hoisted_loads;
} vta_prog_chain_info;

/* Runs items[0..n) as one stream with one synchronisation (more only if the JIT's stream or
 * micro-op staging fills up). info may be NULL. */
int vta_program_run_chain(vta_jit *jit, const vta_prog_chain_item *items, size_t n,
                          vta_stats *stats, vta_prog_chain_info *info, vta_error *err);

#ifdef __cplusplus
}
#endif
#endif
