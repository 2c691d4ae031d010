/* mem.h - simulated device DRAM shared by every simulator (fsim, rtl, sc).
 *
 * The design idea: one contiguous reservation of host address space (mmap with no backing
 * until touched) stands for the device's physical address space, so translating a physical
 * address to a host pointer is one addition. A table of allocations on top says which
 * physical ranges a program may touch: every DMA is checked against it, so nothing outside an
 * allocation is ever read or written. Physical address 0 is never handed out by the allocator
 * (it catches null addresses), but vta_mem_alloc_at may claim it for raw images.
 */
#ifndef VTA_SIM_MEM_H
#define VTA_SIM_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "vta/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vta_mem vta_mem;

/* Default size of the simulated physical address space (bytes); the reservation costs no
 * memory until pages are touched. */
#define VTA_MEM_DEFAULT_CAPACITY (1ull << 32)
/* Alignment of every allocation (bytes): a page, which is also a multiple of every element
 * size of every accepted configuration. */
#define VTA_MEM_ALIGN 4096u

int vta_mem_create(uint64_t capacity, vta_mem **out, vta_error *err);
void vta_mem_destroy(vta_mem *mem);

/* Allocates size bytes (zero-filled) at a free, VTA_MEM_ALIGN-aligned physical address. */
int vta_mem_alloc(vta_mem *mem, uint64_t size, uint64_t *phys, vta_error *err);
/* Claims [phys, phys+size) exactly; fails if it overlaps an allocation or the capacity. */
int vta_mem_alloc_at(vta_mem *mem, uint64_t phys, uint64_t size, vta_error *err);
/* Frees the allocation that starts at phys; VTA_ERR_INVALID if there is none. */
int vta_mem_free(vta_mem *mem, uint64_t phys);

/* Host pointer for a physical address (no check). */
void *vta_mem_ptr(vta_mem *mem, uint64_t phys);
/* Physical address of a host pointer inside the reservation; returns 0 and fails if outside. */
int vta_mem_phys(const vta_mem *mem, const void *host, uint64_t *phys);

/* Is [phys, phys+len) entirely inside one allocation? Fast (last-hit cache + binary search). */
int vta_mem_check(vta_mem *mem, uint64_t phys, uint64_t len);
/* Describes the allocation containing phys (or the nearest one) for error messages. */
void vta_mem_describe(vta_mem *mem, uint64_t phys, char *buf, size_t n);

/* Start and size of the allocation containing phys; 0 if none. */
int vta_mem_find(vta_mem *mem, uint64_t phys, uint64_t *base, uint64_t *size);

/* The i-th allocation in address order (i from 0): its start and size; 0 past the last one.
 * (The lockstep backend of driver/diff.c mirrors every allocation onto the device it checks.) */
int vta_mem_region(const vta_mem *mem, size_t i, uint64_t *base, uint64_t *size);

uint64_t vta_mem_capacity(const vta_mem *mem);
uint64_t vta_mem_bytes_allocated(const vta_mem *mem);

#ifdef __cplusplus
}
#endif
#endif
