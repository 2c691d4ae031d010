/* program_internal.h - what program.c and chain.c share: the program's representation and
 * the replay of one operation through the JIT. */
#ifndef VTA_JIT_PROGRAM_INTERNAL_H
#define VTA_JIT_PROGRAM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "vta/jit.h"
#include "vta/program.h"

typedef struct prog_kernel {
  vta_prog_kernel k; /* k.uops points at uops */
  vta_uop *uops;
  uint8_t *sig;      /* the binary record: signature in the JIT's cache */
  size_t nsig;
  uint64_t hash;
} prog_kernel;

struct vta_program {
  vta_config cfg;
  uint64_t bufsize[VTA_PROG_BUF_COUNT];
  vta_prog_op *ops;
  size_t nops, capops;
  prog_kernel *kern;
  size_t nkern, capkern;
  uint32_t *slot; /* open addressing over kern: index + 1, 0 = empty */
  size_t capslot;
};

/* The operations' names, by vta_prog_opcode. */
extern const char *const vta_prog_op_names[];

/* Whether a program compiled for `need` runs on a JIT configured as `have` (error naming the
 * first key that differs). */
int vta_prog_compatible(const vta_config *have, const vta_config *need, vta_error *err);

/* One operation of p through the JIT; kp caches the program's kernels (one entry per kernel of
 * p), phys the device addresses of p's buffers. */
int vta_prog_replay_op(vta_jit *jit, const vta_program *p, vta_jit_kernel **kp,
                       const uint64_t *phys, const vta_prog_op *op, vta_stats *stats,
                       vta_error *err);

#endif
