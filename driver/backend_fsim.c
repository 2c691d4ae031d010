/* backend_fsim.c - the functional simulator as a device: simulated DRAM (sim/mem) plus the
 * instruction-accurate model (sim/fsim). Memory is host-visible, so the published API can hand
 * out pointers into device memory directly; the memory slots are the shared ones of
 * mem_backend.h.
 */
#include <stddef.h>
#include <stdlib.h>

#include "driver/backends.h"
#include "driver/mem_backend.h"
#include "sim/fsim/fsim.h"

typedef struct fsim_dev {
  vta_mem_dev base; /* first: the memory slots read it */
  vta_fsim *sim;
} fsim_dev;
_Static_assert(offsetof(fsim_dev, base) == 0, "mem_backend.h needs the vta_mem_dev first");

static int fs_open(const vta_config *cfg, const char *options, void **state, vta_error *err) {
  fsim_dev *d = calloc(1, sizeof *d);
  if (!d) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  int rc = vta_mem_create(0, &d->base.mem, err);
  if (rc == VTA_OK) rc = vta_fsim_create(cfg, d->base.mem, &d->sim, err);
  if (rc != VTA_OK) {
    vta_mem_destroy(d->base.mem);
    free(d);
    return rc;
  }
  *state = d;
  return VTA_OK;
}

static void fs_close(void *state) {
  fsim_dev *d = state;
  vta_fsim_destroy(d->sim);
  vta_mem_destroy(d->base.mem);
  free(d);
}

static int fs_run(void *state, uint64_t insn_phys, uint32_t count, uint64_t timeout,
                  vta_stats *stats, vta_error *err) {
  return vta_fsim_run(((fsim_dev *)state)->sim, insn_phys, count, timeout, stats, err);
}

const vta_backend vta_backend_fsim = {
    .name = "fsim",
    .description = "functional simulator: instruction-accurate, fast, no cycle counts",
    .open = fs_open,
    .close = fs_close,
    .run = fs_run,
    VTA_MEM_DEV_SLOTS,
};
