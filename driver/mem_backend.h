/* mem_backend.h - the memory half of the simulator backends: device memory is one vta_mem.
 *
 * fsim and rtl (and any simulator that models DRAM with sim/mem) hand out device memory the same
 * way: allocations, host pointers and bounds checks all come from one vta_mem. Their state
 * structs start with a vta_mem_dev, so the memory slots of the backend table can be these
 * functions, written once:
 *
 *     typedef struct fsim_dev { vta_mem_dev base; vta_fsim *sim; } fsim_dev;  // base first
 *     const vta_backend vta_backend_fsim = { .name = "fsim", ..., VTA_MEM_DEV_SLOTS, .run = ... };
 */
#ifndef VTA_DRIVER_MEM_BACKEND_H
#define VTA_DRIVER_MEM_BACKEND_H

#include <stdint.h>

#include "sim/mem/mem.h"
#include "vta/device.h"

/* The first member of a simulator backend's state. */
typedef struct vta_mem_dev {
  vta_mem *mem;
} vta_mem_dev;

int vta_mem_dev_alloc(void *state, uint64_t size, uint64_t *phys, vta_error *err);
int vta_mem_dev_alloc_at(void *state, uint64_t phys, uint64_t size, vta_error *err);
void vta_mem_dev_free(void *state, uint64_t phys);
/* Copies refuse, with VTA_ERR_BOUNDS and the range in words, anything outside an allocation. */
int vta_mem_dev_copy_to(void *state, uint64_t phys, const void *src, uint64_t n, vta_error *err);
int vta_mem_dev_copy_from(void *state, void *dst, uint64_t phys, uint64_t n, vta_error *err);
void *vta_mem_dev_host_ptr(void *state, uint64_t phys);
int vta_mem_dev_phys_of(void *state, const void *host, uint64_t *phys);

/* The memory slots of a vta_backend initialiser. */
#define VTA_MEM_DEV_SLOTS                                                              \
  .mem_alloc = vta_mem_dev_alloc, .mem_alloc_at = vta_mem_dev_alloc_at,                \
  .mem_free = vta_mem_dev_free, .copy_to = vta_mem_dev_copy_to,                        \
  .copy_from = vta_mem_dev_copy_from, .host_ptr = vta_mem_dev_host_ptr,                \
  .phys_of = vta_mem_dev_phys_of

#endif
