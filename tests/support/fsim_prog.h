/* fsim_prog.h - test support for simulator tests: a plain C reference interpreter of ISA.md
 * section 3. The program builder and the random programs it used to hold are in sim/gen/prog.h
 * (included here), shared with `vta regress`.
 */
#ifndef VTA_TESTS_FSIM_PROG_H
#define VTA_TESTS_FSIM_PROG_H

#include "sim/gen/prog.h"

/* ---- Reference interpreter ----
 * Executes a stream in stream order (dependency flags are ignored: valid for programs whose
 * token order equals stream order), straight from the text of ISA.md section 3: one element at a
 * time, 64-bit arithmetic truncated to 32 bits. Returns 0, or -1 with a reason in msg for
 * anything out of range (it never touches memory outside its buffers or allocations). */
typedef struct fsim_ref {
  vta_config cfg;
  vta_mem *mem;
  uint32_t *uop; /* encoded micro-ops, as loaded */
  int8_t *inp, *wgt, *out;
  int32_t *acc;
} fsim_ref;

int fsim_ref_create(const vta_config *cfg, vta_mem *mem, fsim_ref **out);
void fsim_ref_destroy(fsim_ref *r);
int fsim_ref_run(fsim_ref *r, uint64_t insn_phys, uint32_t count, char *msg, size_t n);

#endif
