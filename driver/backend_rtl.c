/* backend_rtl.c - the Verilator-simulated RTL accelerator as a device.
 *
 * The same simulated DRAM as fsim (sim/mem, so allocation, host pointers and bounds checks are
 * shared: the memory slots are those of mem_backend.h) in front of the cycle-accurate model of
 * hw/ (sim/rtl). Options are the rtl simulator's "key=value,..." string (latency=N,
 * bandwidth=N, wave=FILE, models=DIR, asserts=off; all in sim/rtl/rtl.h); VTA_RTL_WAVE names a
 * waveform file when no option does.
 * Statistics add cycles and per-module busy/stall cycles to fsim's counts.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "driver/backends.h"
#include "driver/mem_backend.h"
#include "sim/rtl/rtl.h"

typedef struct rtl_dev {
  vta_mem_dev base; /* first: the memory slots read it */
  vta_rtl *sim;
  char *options; /* owns the strings the parsed options point into */
} rtl_dev;
_Static_assert(offsetof(rtl_dev, base) == 0, "mem_backend.h needs the vta_mem_dev first");

static void rt_close(void *state) {
  rtl_dev *d = state;
  if (!d) return;
  vta_rtl_destroy(d->sim);
  vta_mem_destroy(d->base.mem);
  free(d->options);
  free(d);
}

static int rt_open(const vta_config *cfg, const char *options, void **state, vta_error *err) {
  rtl_dev *d = calloc(1, sizeof *d);
  if (!d) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  vta_rtl_options o;
  vta_rtl_options_default(cfg, &o);
  int rc = VTA_OK;
  if (options && *options) {
    d->options = strdup(options);
    rc = d->options ? vta_rtl_options_parse(d->options, &o, err)
                    : vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  }
  if (rc == VTA_OK) rc = vta_mem_create(0, &d->base.mem, err);
  if (rc == VTA_OK) rc = vta_rtl_create(cfg, d->base.mem, &o, &d->sim, err);
  if (rc != VTA_OK) {
    rt_close(d);
    return rc;
  }
  *state = d;
  return VTA_OK;
}

static int rt_run(void *state, uint64_t insn_phys, uint32_t count, uint64_t timeout,
                  vta_stats *stats, vta_error *err) {
  return vta_rtl_run(((rtl_dev *)state)->sim, insn_phys, count, timeout, stats, err);
}

const vta_backend vta_backend_rtl = {
    .name = "rtl",
    .description = "RTL of hw/ under Verilator: cycle-accurate, AXI DRAM model, FST waveforms",
    .open = rt_open,
    .close = rt_close,
    .run = rt_run,
    VTA_MEM_DEV_SLOTS,
};
