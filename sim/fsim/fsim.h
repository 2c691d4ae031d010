/* fsim.h - the functional simulator: executes VTA instruction streams from simulated device
 * memory with the exact semantics of ISA.md sections 3 and 4, instruction by instruction.
 *
 * It knows nothing of the JIT or the driver: it reads instructions and data from a vta_mem and
 * writes results back to it. Errors name the instruction index and its disassembly.
 */
#ifndef VTA_SIM_FSIM_H
#define VTA_SIM_FSIM_H

#include <stdint.h>

#include "sim/mem/mem.h"
#include "vta/config.h"
#include "vta/stats.h"
#include "vta/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vta_fsim vta_fsim;

/* The simulator keeps a pointer to mem (which must outlive it) and its own SRAM state, which
 * persists across runs like the real buffers do. */
int vta_fsim_create(const vta_config *cfg, vta_mem *mem, vta_fsim **out, vta_error *err);
void vta_fsim_destroy(vta_fsim *sim);

/* Executes `count` instructions starting at physical address insn_phys. timeout: a budget of
 * steps, one per instruction plus one per micro-op executed and per element a LOAD or STORE
 * moves (a lower bound on device cycles); an instruction that would pass it is refused with
 * VTA_ERR_TIMEOUT before it runs. 0 means unlimited. stats may be NULL; counters are added to it. */
int vta_fsim_run(vta_fsim *sim, uint64_t insn_phys, uint32_t count, uint64_t timeout,
                 vta_stats *stats, vta_error *err);

/* SIMD kernels are chosen at run time from the host's features; this forces the portable path
 * (for testing that both give identical results). The environment variable VTA_FSIM_SIMD=0 does
 * the same for every simulator created after it is set. Returns the name of the kernel set in
 * use ("avx512-vnni", "avx2", "portable"). */
const char *vta_fsim_set_simd(vta_fsim *sim, int enable);

/* The name of the kernel set in use. */
const char *vta_fsim_kernels(const vta_fsim *sim);

/* Chooses a kernel set by name ("avx512-vnni", "avx2", "portable"), for tests that compare them
 * and for benchmarks. VTA_ERR_UNSUPPORTED when this host cannot run it; VTA_ERR_INVALID for an
 * unknown name. */
int vta_fsim_set_kernels(vta_fsim *sim, const char *name, vta_error *err);

/* Copies `count` elements of an on-chip buffer starting at element `index` into `out`, in the
 * element format the buffer's LOAD reads from DRAM (UOP: encoded 32-bit micro-ops; INP, WGT and
 * OUT: int8 rows; ACC: int32 rows). For tests and debugging dumps: the SRAM is otherwise only
 * visible through STORE. VTA_ERR_BOUNDS past the buffer's depth, VTA_ERR_INVALID for ACC_8BIT. */
int vta_fsim_read_sram(vta_fsim *sim, vta_mem_type type, uint32_t index, uint32_t count,
                       void *out, vta_error *err);

#ifdef __cplusplus
}
#endif
#endif
