/* jit.h - the runtime JIT: CISC operations in, a VTA instruction stream out, run on a device.
 *
 * A vta_jit is one command stream bound to one device (explicit handle, no hidden state). The
 * caller issues 2-D loads and stores, runs micro-op kernels (GEMM or ALU over at most two loop
 * levels), and places dependency tokens between the three pipeline stages; the JIT encodes each
 * operation into 128-bit instructions at once (so an out-of-range field is reported at the call
 * that caused it), keeps the micro-op kernels in a cache keyed by call site and signature, loads
 * a kernel into the micro-op buffer only when it is not already resident, and on vta_jit_sync
 * closes the stream (final token pops, FINISH), copies it to device memory and runs it.
 *
 * Worked example (C[16x16] = A[16x16] * W^T on the default 1x16x16 configuration; a, w, c are
 * device buffers from vta_device_alloc holding packed INP, WGT and OUT elements):
 *
 *     vta_jit *jit; vta_error err;
 *     vta_jit_create(dev, NULL, &jit, &err);
 *     vta_jit_load(jit, &(vta_jit_xfer){.type = VTA_MEM_INP, .dram_phys = a, .x_size = 1,
 *                                       .y_size = 1, .x_stride = 1}, &err);
 *     vta_jit_load(jit, &(vta_jit_xfer){.type = VTA_MEM_WGT, .dram_phys = w, .x_size = 1,
 *                                       .y_size = 1, .x_stride = 1}, &err);
 *     vta_jit_dep_push(jit, VTA_JIT_STAGE_LOAD, VTA_JIT_STAGE_COMPUTE, &err);
 *     vta_jit_dep_pop(jit, VTA_JIT_STAGE_LOAD, VTA_JIT_STAGE_COMPUTE, &err);
 *     static const int site;           // any address that names the call site
 *     vta_jit_kernel *k = vta_jit_kernel_find(jit, &site, NULL, 0);
 *     if (!k) {                        // first time here: record the kernel once
 *       vta_jit_kernel_begin(jit, &site, NULL, 0, &k, &err);
 *       vta_jit_kernel_uop(k, &(vta_jit_uop){.mode = VTA_JIT_GEMM, .reset = 1}, &err);
 *       vta_jit_kernel_end(k, &err);   // now cached under (&site, signature)
 *     }
 *     vta_jit_push_kernel(jit, k, &err);  // LOAD UOP if not resident, then GEMM
 *     ... a second kernel with reset = 0 does the multiply-accumulate ...
 *     vta_jit_dep_push(jit, VTA_JIT_STAGE_COMPUTE, VTA_JIT_STAGE_STORE, &err);
 *     vta_jit_dep_pop(jit, VTA_JIT_STAGE_COMPUTE, VTA_JIT_STAGE_STORE, &err);
 *     vta_jit_store(jit, &(vta_jit_xfer){.type = VTA_MEM_OUT, .dram_phys = c, .x_size = 1,
 *                                        .y_size = 1, .x_stride = 1}, &err);
 *     vta_jit_sync(jit, 0, NULL, &err);
 *     vta_jit_destroy(jit);
 *
 * Every function returns a vta_status and fills err (which may be NULL). A failed call leaves
 * the stream as it was, except a failed device run, which discards the stream it ran.
 *
 * The published VTA runtime (vta/runtime.h) is implemented on top of this API: its
 * VTACommandHandle is a vta_jit *, so a program may mix both.
 */
#ifndef VTA_JIT_H
#define VTA_JIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vta/config.h"
#include "vta/device.h"
#include "vta/isa.h"
#include "vta/stats.h"
#include "vta/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vta_jit vta_jit;
typedef struct vta_jit_kernel vta_jit_kernel;

/* Pipeline stages, numbered as the published runtime's queue ids. */
typedef enum vta_jit_stage {
  VTA_JIT_STAGE_LOAD = 1,
  VTA_JIT_STAGE_COMPUTE = 2,
  VTA_JIT_STAGE_STORE = 3
} vta_jit_stage;

/* Kernel modes, numbered as the published VTAUopPush's `mode`. */
typedef enum vta_jit_mode {
  VTA_JIT_GEMM = 0,
  VTA_JIT_ALU = 1,
  VTA_JIT_MODE_COUNT = 2
} vta_jit_mode;

/* Debug flags (the published VTA_DEBUG_* values). */
#define VTA_JIT_DUMP_INSN (1 << 1)     /* print each stream in assembler text before it runs */
#define VTA_JIT_DUMP_UOP (1 << 2)      /* print each kernel's micro-ops when it is recorded */
#define VTA_JIT_FORCE_SERIAL (1 << 5)  /* every instruction waits for the one before it */

/* The published contiguous-transfer limit: a stream (or its micro-ops) never exceeds it. */
#define VTA_JIT_MAX_XFER (1u << 25)

typedef struct vta_jit_options {
  uint64_t max_insn_bytes; /* stream size that triggers an automatic sync; 0: VTA_JIT_MAX_XFER */
  uint64_t max_uop_bytes;  /* micro-op staging size, likewise; 0: VTA_JIT_MAX_XFER */
  uint64_t timeout;        /* of automatic syncs (device.h units); 0: VTA_DEFAULT_TIMEOUT */
  int debug;               /* VTA_JIT_* debug flags */
  FILE *dump;              /* where dumps go; NULL: stderr */
} vta_jit_options;

/* A 2-D transfer between DRAM and an on-chip buffer (ISA.md section 3). DRAM is named by the
 * physical byte address of a device buffer (a multiple of the element size) plus an offset in
 * elements. Padding applies to loads only. */
typedef struct vta_jit_xfer {
  vta_mem_type type;     /* LOAD: inp, wgt, acc, acc_8bit, uop; STORE: out */
  uint32_t sram;         /* first on-chip element */
  uint64_t dram_phys;    /* physical byte address of the DRAM buffer */
  uint64_t dram_offset;  /* in elements of `type` */
  uint32_t x_size, y_size, x_stride;
  uint32_t x_pad_before, y_pad_before, x_pad_after, y_pad_after;
} vta_jit_xfer;

/* One micro-op as the published VTAUopPush describes it. mode, reset and (ALU) alu_op,
 * use_imm, imm must be the same for every micro-op of a kernel. */
typedef struct vta_jit_uop {
  vta_jit_mode mode;
  uint32_t reset;  /* GEMM: clear the accumulators instead of accumulating */
  uint32_t dst;    /* ACC index */
  uint32_t src;    /* INP index (GEMM) or ACC index (ALU) */
  uint32_t wgt;    /* WGT index (GEMM) */
  vta_alu_op alu_op;
  uint32_t use_imm;
  int32_t imm;
} vta_jit_uop;

/* What the JIT did since it was created. */
typedef struct vta_jit_counters {
  uint64_t insns;          /* instructions emitted (including no-ops and FINISH) */
  uint64_t noops;          /* no-op instructions inserted to carry tokens */
  uint64_t uop_loads;      /* LOAD UOP instructions */
  uint64_t uops_loaded;    /* micro-ops those loads moved */
  uint64_t kernels;        /* kernels recorded */
  uint64_t kernel_hits;    /* kernel runs that found their kernel resident */
  uint64_t kernel_misses;  /* kernel runs that had to load it */
  uint64_t evictions;      /* kernels evicted from the micro-op buffer */
  uint64_t syncs;          /* device runs */
  uint64_t auto_syncs;     /* of which triggered by a full stream or micro-op staging area */
  double device_seconds;   /* wall time inside vta_device_run */
  vta_stats stats;         /* device statistics of every run, added up */
} vta_jit_counters;

/* ---- The command stream ---- */

/* Creates a stream on dev (which must outlive it). opt may be NULL. The device buffers that
 * hold the stream and its micro-ops are allocated at the first synchronisation and grow as
 * needed (they are kept between runs). */
int vta_jit_create(vta_device *dev, const vta_jit_options *opt, vta_jit **out, vta_error *err);
/* Discards anything not synchronised, frees every kernel and the device buffers. */
void vta_jit_destroy(vta_jit *jit);

const vta_config *vta_jit_config(const vta_jit *jit);
vta_device *vta_jit_device(vta_jit *jit);
/* Debug flags take effect at once, except FORCE_SERIAL, which applies from the next stream. */
void vta_jit_set_debug(vta_jit *jit, int flags);
int vta_jit_get_debug(const vta_jit *jit);
const vta_jit_counters *vta_jit_get_counters(const vta_jit *jit);

int vta_jit_load(vta_jit *jit, const vta_jit_xfer *x, vta_error *err);
int vta_jit_store(vta_jit *jit, const vta_jit_xfer *x, vta_error *err);

/* Dependency tokens between adjacent stages (load<->compute, compute<->store).
 * push: after everything `from` was given so far, send a token to `to` (sets the push flag of
 * from's last instruction, or adds a no-op of `from` that carries it).
 * pop: `to`'s next instruction waits for a token from `from` (a no-op is added when that
 * instruction cannot carry it). With FORCE_SERIAL both are ignored. */
int vta_jit_dep_push(vta_jit *jit, vta_jit_stage from, vta_jit_stage to, vta_error *err);
int vta_jit_dep_pop(vta_jit *jit, vta_jit_stage from, vta_jit_stage to, vta_error *err);

/* Closes the stream (final pops, FINISH), copies it and its micro-ops to device memory, runs
 * it and waits. timeout: device.h units, 0 = default. Statistics of the run are added to stats
 * if not NULL. An empty stream runs nothing. Tokens still outstanding (pushed, not yet popped)
 * are carried to the next stream, so a synchronisation may fall anywhere in a program whose
 * pops follow their pushes. */
int vta_jit_sync(vta_jit *jit, uint64_t timeout, vta_stats *stats, vta_error *err);
/* Closes the stream without running it (for inspection with vta_jit_stream); the next call
 * that adds an instruction fails until vta_jit_sync or vta_jit_discard. */
int vta_jit_finish(vta_jit *jit, vta_error *err);
/* Drops the current stream and any pending tokens. */
void vta_jit_discard(vta_jit *jit);
/* The current stream: encoded words and the micro-ops staged for it (valid until the next
 * call on jit). */
void vta_jit_stream(const vta_jit *jit, const vta_insn_word **words, size_t *count);
void vta_jit_staged_uops(const vta_jit *jit, const uint32_t **uops, size_t *count);

/* ---- Micro-op kernels ---- */

/* The kernel recorded for (site, signature), or NULL. site is any address that names the call
 * site; the signature bytes distinguish variants of one site (nbytes may be 0). */
vta_jit_kernel *vta_jit_kernel_find(vta_jit *jit, const void *site, const void *sig,
                                    size_t nbytes);
/* Starts recording a kernel for (site, signature); fails if one is already recorded. */
int vta_jit_kernel_begin(vta_jit *jit, const void *site, const void *sig, size_t nbytes,
                         vta_jit_kernel **out, vta_error *err);
/* Loops are declared before the first micro-op, at most two, outer first. */
int vta_jit_kernel_loop_begin(vta_jit_kernel *k, uint32_t extent, uint32_t dst_factor,
                              uint32_t src_factor, uint32_t wgt_factor, vta_error *err);
int vta_jit_kernel_loop_end(vta_jit_kernel *k, vta_error *err);
int vta_jit_kernel_uop(vta_jit_kernel *k, const vta_jit_uop *u, vta_error *err);
/* Checks the kernel (loops closed, at least one micro-op, every index inside its buffer over
 * all loop iterations), encodes it and enters it in the cache. On failure the recording is
 * discarded. */
int vta_jit_kernel_end(vta_jit_kernel *k, vta_error *err);
/* Drops a recording that was begun but not ended. */
void vta_jit_kernel_discard(vta_jit_kernel *k);
vta_jit_mode vta_jit_kernel_mode(const vta_jit_kernel *k);
size_t vta_jit_kernel_size(const vta_jit_kernel *k);
/* Is the kernel in the micro-op buffer for the current stream? Where (uop indices)? */
int vta_jit_kernel_resident(const vta_jit_kernel *k, uint32_t *begin, uint32_t *end);

/* Forgets which kernels are resident, as a new stream does, but in the current stream: the
 * next run of each kernel loads it again (placed after the latest ones in the ring). A LOAD
 * UOP gives the compute module the kernel's footprint record (the last 32 are kept), which
 * lets a GEMM and an ALU instruction run side by side; a chain of programs
 * (vta_program_run_chain) calls this at each boundary, so each layer loads its kernels as it
 * would in a run of its own. */
void vta_jit_forget_kernels(vta_jit *jit);

/* Runs a finished kernel: a LOAD UOP when it is not resident, then one GEMM or ALU
 * instruction. GEMM maps the first loop to iter_out and the second to iter_in; ALU with one
 * loop uses iter_in. */
int vta_jit_push_kernel(vta_jit *jit, vta_jit_kernel *k, vta_error *err);

/* ---- The published runtime layer ----
 * vta/runtime.h's VTACommandHandle is a vta_jit *. Most published calls return nothing, so an
 * error is printed to stderr ("vta runtime: ..."), remembered here, and the handle ignores
 * further operations until VTASynchronize, which then discards the stream instead of running
 * it. This returns the latest such message (NULL if none) and, in *count, how many errors
 * there have been, so a program can tell whether a step it took failed. */
const char *vta_jit_last_error(const vta_jit *jit, uint64_t *count);

#ifdef __cplusplus
}
#endif
#endif
