/* mem_backend.c - device memory of the simulator backends over one vta_mem (see the header).
 *
 * The state pointer of every slot points at a struct whose first member is a vta_mem_dev, so
 * converting it to vta_mem_dev * is the C way of reading a base struct.
 */
#include "driver/mem_backend.h"

#include <string.h>

static vta_mem *mem_of(void *state) { return ((vta_mem_dev *)state)->mem; }

int vta_mem_dev_alloc(void *state, uint64_t size, uint64_t *phys, vta_error *err) {
  return vta_mem_alloc(mem_of(state), size, phys, err);
}

int vta_mem_dev_alloc_at(void *state, uint64_t phys, uint64_t size, vta_error *err) {
  return vta_mem_alloc_at(mem_of(state), phys, size, err);
}

void vta_mem_dev_free(void *state, uint64_t phys) { vta_mem_free(mem_of(state), phys); }

int vta_mem_dev_copy_to(void *state, uint64_t phys, const void *src, uint64_t n, vta_error *err) {
  vta_mem *m = mem_of(state);
  if (!vta_mem_check(m, phys, n))
    return vta_error_set(err, VTA_ERR_BOUNDS,
                         "copy of %llu bytes to 0x%llx is outside the allocated device memory",
                         (unsigned long long)n, (unsigned long long)phys);
  memcpy(vta_mem_ptr(m, phys), src, n);
  return VTA_OK;
}

int vta_mem_dev_copy_from(void *state, void *dst, uint64_t phys, uint64_t n, vta_error *err) {
  vta_mem *m = mem_of(state);
  if (!vta_mem_check(m, phys, n))
    return vta_error_set(err, VTA_ERR_BOUNDS,
                         "copy of %llu bytes from 0x%llx is outside the allocated device memory",
                         (unsigned long long)n, (unsigned long long)phys);
  memcpy(dst, vta_mem_ptr(m, phys), n);
  return VTA_OK;
}

void *vta_mem_dev_host_ptr(void *state, uint64_t phys) { return vta_mem_ptr(mem_of(state), phys); }

int vta_mem_dev_phys_of(void *state, const void *host, uint64_t *phys) {
  return vta_mem_phys(mem_of(state), host, phys);
}
