/* backend_sc.c - the SystemC performance model as a device.
 *
 * The same simulated DRAM as fsim and rtl (sim/mem: allocation, host pointers and bounds checks
 * are shared through mem_backend.h) in front of sim/sc: data from fsim's kernels, cycles from the
 * SystemC model. Options are the sc model's "key=value,..." string (latency=N, read_latency=N,
 * write_latency=N, bandwidth=N, outstanding=N, arbitration=rr|fixed, timeline=FILE.json); the
 * configuration's SC_* keys give their defaults. Statistics add cycles and per-module busy/stall
 * cycles to fsim's counts, as rtl's do.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "driver/backends.h"
#include "driver/mem_backend.h"
#include "sim/sc/sc.h"

typedef struct sc_dev {
  vta_mem_dev base; /* first: the memory slots read it */
  vta_sc *sim;
} sc_dev;
_Static_assert(offsetof(sc_dev, base) == 0, "mem_backend.h needs the vta_mem_dev first");

static void sc_close(void *state) {
  sc_dev *d = state;
  if (!d) return;
  vta_sc_destroy(d->sim);
  vta_mem_destroy(d->base.mem);
  free(d);
}

static int sc_open(const vta_config *cfg, const char *options, void **state, vta_error *err) {
  sc_dev *d = calloc(1, sizeof *d);
  if (!d) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  vta_sc_options o;
  vta_sc_options_default(cfg, &o);
  int rc = VTA_OK;
  char *copy = NULL;
  if (options && *options) {
    copy = strdup(options);
    rc = copy ? vta_sc_options_parse(copy, &o, err)
              : vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  }
  if (rc == VTA_OK) rc = vta_mem_create(0, &d->base.mem, err);
  if (rc == VTA_OK) rc = vta_sc_create(cfg, d->base.mem, &o, &d->sim, err);
  free(copy); /* the timeline's name points into it: read by vta_sc_create only */
  if (rc != VTA_OK) {
    sc_close(d);
    return rc;
  }
  *state = d;
  return VTA_OK;
}

static int sc_run(void *state, uint64_t insn_phys, uint32_t count, uint64_t timeout,
                  vta_stats *stats, vta_error *err) {
  return vta_sc_run(((sc_dev *)state)->sim, insn_phys, count, timeout, stats, err);
}

const vta_backend vta_backend_sc = {
    .name = "sc",
    .description = "SystemC performance model: RTL cycle estimates at a hundred times rtl's "
                   "speed, data from fsim",
    .open = sc_open,
    .close = sc_close,
    .run = sc_run,
    VTA_MEM_DEV_SLOTS,
};
