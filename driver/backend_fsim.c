/* backend_fsim.c - the functional simulator as a device: simulated DRAM (sim/mem) plus the
 * instruction-accurate model (sim/fsim). Memory is host-visible, so the published API can hand
 * out pointers into device memory directly.
 */
#include <stdlib.h>
#include <string.h>

#include "driver/backends.h"
#include "sim/fsim/fsim.h"
#include "sim/mem/mem.h"

typedef struct fsim_dev {
  vta_mem *mem;
  vta_fsim *sim;
} fsim_dev;

static int fs_open(const vta_config *cfg, const char *options, void **state, vta_error *err) {
  fsim_dev *d = calloc(1, sizeof *d);
  if (!d) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  int rc = vta_mem_create(0, &d->mem, err);
  if (rc == VTA_OK) rc = vta_fsim_create(cfg, d->mem, &d->sim, err);
  if (rc != VTA_OK) {
    vta_mem_destroy(d->mem);
    free(d);
    return rc;
  }
  *state = d;
  return VTA_OK;
}

static void fs_close(void *state) {
  fsim_dev *d = state;
  vta_fsim_destroy(d->sim);
  vta_mem_destroy(d->mem);
  free(d);
}

static int fs_alloc(void *state, uint64_t size, uint64_t *phys, vta_error *err) {
  return vta_mem_alloc(((fsim_dev *)state)->mem, size, phys, err);
}

static int fs_alloc_at(void *state, uint64_t phys, uint64_t size, vta_error *err) {
  return vta_mem_alloc_at(((fsim_dev *)state)->mem, phys, size, err);
}

static void fs_free(void *state, uint64_t phys) { vta_mem_free(((fsim_dev *)state)->mem, phys); }

static int fs_copy_to(void *state, uint64_t phys, const void *src, uint64_t n, vta_error *err) {
  fsim_dev *d = state;
  if (!vta_mem_check(d->mem, phys, n))
    return vta_error_set(err, VTA_ERR_BOUNDS,
                         "copy of %llu bytes to 0x%llx is outside the allocated device memory",
                         (unsigned long long)n, (unsigned long long)phys);
  memcpy(vta_mem_ptr(d->mem, phys), src, n);
  return VTA_OK;
}

static int fs_copy_from(void *state, void *dst, uint64_t phys, uint64_t n, vta_error *err) {
  fsim_dev *d = state;
  if (!vta_mem_check(d->mem, phys, n))
    return vta_error_set(err, VTA_ERR_BOUNDS,
                         "copy of %llu bytes from 0x%llx is outside the allocated device memory",
                         (unsigned long long)n, (unsigned long long)phys);
  memcpy(dst, vta_mem_ptr(d->mem, phys), n);
  return VTA_OK;
}

static int fs_run(void *state, uint64_t insn_phys, uint32_t count, uint64_t timeout,
                  vta_stats *stats, vta_error *err) {
  return vta_fsim_run(((fsim_dev *)state)->sim, insn_phys, count, timeout, stats, err);
}

static void *fs_host_ptr(void *state, uint64_t phys) {
  return vta_mem_ptr(((fsim_dev *)state)->mem, phys);
}

static int fs_phys_of(void *state, const void *host, uint64_t *phys) {
  return vta_mem_phys(((fsim_dev *)state)->mem, host, phys);
}

const vta_backend vta_backend_fsim = {
    .name = "fsim",
    .description = "functional simulator: instruction-accurate, fast, no cycle counts",
    .open = fs_open,
    .close = fs_close,
    .mem_alloc = fs_alloc,
    .mem_alloc_at = fs_alloc_at,
    .mem_free = fs_free,
    .copy_to = fs_copy_to,
    .copy_from = fs_copy_from,
    .run = fs_run,
    .host_ptr = fs_host_ptr,
    .phys_of = fs_phys_of,
};
