/* jit_internal.h - what the files of jit/ share and nobody else needs.
 *
 * stream.c  the instruction stream: appending encoded instructions, pending pops, token
 *           pushes on the producing stage's last instruction, no-ops, FORCE_SERIAL chaining,
 *           the closing barrier and FINISH, and the tokens carried across a synchronisation.
 * kernel.c  micro-op kernels: recording (loops, micro-ops, checks), the cache keyed by call
 *           site and signature, and residency in the micro-op buffer (a ring with eviction).
 * jit.c     the vta_jit object: loads, stores, kernel runs, automatic synchronisation, the
 *           device buffers, dumps and counters.
 * runtime.c the published vta/runtime.h on top (thread-local handle, buffers).
 *
 * Internally a stage is a vta_module (0 load, 1 compute, 2 store); the public API numbers
 * them 1-3 like the published queue ids.
 */
#ifndef VTA_JIT_INTERNAL_H
#define VTA_JIT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "vta/jit.h"

/* Instructions one API call may add at most (pending-pop no-op, LOAD UOP, the operation,
 * serial no-ops) plus what closing a stream adds (drains, barrier no-ops, FINISH); a stream is
 * synchronised automatically before it could exceed its limit by more than this. */
#define JIT_CALL_RESERVE 16u
/* Tokens carried into the next stream per queue before it counts as a runaway program: the
 * published token FIFOs hold 1024. */
#define JIT_MAX_CARRY 1024

/* ---- stream.c ---- */

/* A LOAD UOP whose dram_base is relative to the micro-op staging buffer until the stream is
 * finished and the buffer's device address is known. */
typedef struct jit_uop_load {
  size_t idx;   /* instruction index */
  uint32_t rel; /* micro-op offset in the staging area */
} jit_uop_load;

typedef struct jit_stream {
  vta_insn_word *w;
  uint8_t *info;          /* per instruction: module | format << 2 */
  size_t n, cap;
  long last[VTA_MOD_COUNT]; /* index of each module's last instruction in this stream, -1 */
  uint8_t pend_prev[VTA_MOD_COUNT], pend_next[VTA_MOD_COUNT]; /* pops waiting for an insn */
  int64_t pushed[VTA_Q_COUNT], popped[VTA_Q_COUNT];           /* tokens in this stream */
  int64_t carry[VTA_Q_COUNT]; /* tokens to push again at the start of the next stream */
  size_t user;            /* instructions that are not token no-ops or FINISH */
  int serial;             /* FORCE_SERIAL latched for this stream */
  int closed;             /* FINISH appended */
  jit_uop_load *uop_loads;
  size_t n_uop_loads, cap_uop_loads;
} jit_stream;

int jit_stream_init(jit_stream *s, vta_error *err);
void jit_stream_free(jit_stream *s);
/* Empties the stream; keeps pending pops, carried tokens and capacity. */
void jit_stream_clear(jit_stream *s);

/* Appends one instruction (flags in `in` must be 0): attaches the pending pops of its stage
 * (or, FORCE_SERIAL, chains it to the previous instruction), encodes it, appends it. On error
 * nothing changed. user: counts as a user instruction. */
int jit_append(vta_jit *jit, vta_insn *in, int user, vta_error *err);
/* A kernel's LOAD UOP (compute): appended without taking the compute stage's pending pops. */
int jit_append_uop_load(vta_jit *jit, vta_insn *in, vta_error *err);
/* The same for a word already encoded by vta_insn_encode (dependency flags clear). */
int jit_append_word(vta_jit *jit, vta_insn_word *w, vta_module m, vta_format fmt, int user,
                    vta_error *err);
int jit_dep_push(vta_jit *jit, vta_module from, vta_module to, vta_error *err);
int jit_dep_pop(vta_jit *jit, vta_module from, vta_module to, vta_error *err);
/* Closes the stream: drains outstanding tokens (remembering them as carry), the barrier that
 * makes FINISH wait for load and store, FINISH. */
int jit_stream_close(vta_jit *jit, vta_error *err);
/* At the start of a new stream: pushes again the tokens carried from the last one. */
int jit_stream_reopen(vta_jit *jit, vta_error *err);
/* Room for one more API call without exceeding max instructions. */
int jit_stream_has_room(const vta_jit *jit);

/* ---- kernel.c ---- */

typedef struct jit_loop {
  uint32_t extent, dst, src, wgt;
} jit_loop;

struct vta_jit_kernel {
  vta_jit *jit;
  const void *site;
  uint8_t *sig;
  size_t nbytes;
  uint64_t hash;
  int finished;
  /* Recorded description. */
  int mode_set;
  vta_jit_mode mode;
  uint32_t reset;
  vta_alu_op alu_op;
  uint32_t use_imm;
  int32_t imm;
  jit_loop loop[2];
  int nloops, open_loops;
  vta_uop *uops;
  size_t n, cap;
  /* After vta_jit_kernel_end. */
  uint32_t *words;        /* encoded micro-ops */
  vta_insn tmpl;          /* the GEMM/ALU instruction, uop range and flags left 0 */
  vta_insn_word tmpl_word; /* tmpl encoded by vta_insn_encode */
  vta_module tmpl_module;
  vta_format tmpl_format;
  /* Residency in the micro-op buffer during the current stream. */
  int resident;
  uint32_t sram_begin, sram_end;
  /* Where its micro-ops are in the staging area, valid while staged_epoch matches. */
  uint64_t staged_epoch;
  uint32_t staged_offset;
};

typedef struct jit_kcache {
  vta_jit_kernel **slot; /* open addressing, NULL = empty */
  size_t cap, n;
} jit_kcache;

typedef struct jit_ubuf {
  vta_jit_kernel **res; /* resident kernels sorted by sram_begin */
  size_t n, cap, cursor;
  uint32_t top, depth;
} jit_ubuf;

void jit_kcache_free(jit_kcache *kc);
void jit_ubuf_free(jit_ubuf *ub);
/* Forgets every resident kernel (a new stream cannot assume the buffer's contents). */
void jit_ubuf_clear(jit_ubuf *ub);
/* Where a kernel of n micro-ops would go next (no change). */
/* Every kernel not resident any more (the next run of each loads it), the ring's position kept. */
void jit_ubuf_forget(jit_ubuf *ub);
uint32_t jit_ubuf_plan(const jit_ubuf *ub, uint32_t n);
/* Places k at jit_ubuf_plan's position, evicting the kernels it overlaps; returns how many
 * were evicted, or -1 if out of memory. */
long jit_ubuf_place(jit_ubuf *ub, vta_jit_kernel *k);

/* ---- jit.c ---- */

struct vta_jit {
  vta_device *dev;
  vta_config cfg;
  vta_jit_options opt;
  FILE *dump;
  int debug;
  size_t max_insns;       /* opt.max_insn_bytes / 16 */
  size_t max_uops;        /* opt.max_uop_bytes / 4 */
  jit_stream s;
  jit_kcache kc;
  jit_ubuf ub;
  uint32_t *staged;       /* micro-ops staged for the current stream */
  size_t nstaged, cap_staged;
  uint64_t epoch;         /* incremented per stream; invalidates staged offsets */
  uint64_t insn_phys, insn_cap;   /* device buffers (0 = none yet) */
  uint64_t uop_phys, uop_cap;
  uint8_t *host_bytes;    /* stream bytes for backends without a host mapping */
  size_t host_bytes_cap;
  uint64_t stream_no;
  vta_jit_counters c;
  /* State of the published runtime.h layer (runtime.c). */
  int failed;             /* an error was reported; operations are ignored until sync */
  uint64_t errors;        /* errors reported so far */
  vta_error last_error;   /* the latest of them */
};

/* Runs the current stream (closing it first) and starts the next; used by vta_jit_sync and by
 * the automatic synchronisation. */
int jit_run(vta_jit *jit, uint64_t timeout, vta_stats *stats, int automatic, vta_error *err);

#endif
