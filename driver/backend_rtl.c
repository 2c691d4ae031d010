/* backend_rtl.c - the Verilator-simulated RTL accelerator as a device.
 *
 * The same simulated DRAM as fsim (sim/mem, so allocation, host pointers and bounds checks are
 * shared) in front of the cycle-accurate model of hw/ (sim/rtl). Options are the rtl simulator's
 * "key=value,..." string (latency=N, bandwidth=N, wave=FILE, models=DIR); VTA_RTL_WAVE names a
 * waveform file when no option does. Statistics add cycles and per-module busy/stall cycles to
 * fsim's counts.
 */
#include <stdlib.h>
#include <string.h>

#include "driver/backends.h"
#include "sim/mem/mem.h"
#include "sim/rtl/rtl.h"

typedef struct rtl_dev {
  vta_mem *mem;
  vta_rtl *sim;
  char *options; /* owns the strings the parsed options point into */
} rtl_dev;

static void rt_close(void *state) {
  rtl_dev *d = state;
  if (!d) return;
  vta_rtl_destroy(d->sim);
  vta_mem_destroy(d->mem);
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
  if (rc == VTA_OK) rc = vta_mem_create(0, &d->mem, err);
  if (rc == VTA_OK) rc = vta_rtl_create(cfg, d->mem, &o, &d->sim, err);
  if (rc != VTA_OK) {
    rt_close(d);
    return rc;
  }
  *state = d;
  return VTA_OK;
}

static int rt_alloc(void *state, uint64_t size, uint64_t *phys, vta_error *err) {
  return vta_mem_alloc(((rtl_dev *)state)->mem, size, phys, err);
}

static int rt_alloc_at(void *state, uint64_t phys, uint64_t size, vta_error *err) {
  return vta_mem_alloc_at(((rtl_dev *)state)->mem, phys, size, err);
}

static void rt_free(void *state, uint64_t phys) { vta_mem_free(((rtl_dev *)state)->mem, phys); }

static int rt_copy_to(void *state, uint64_t phys, const void *src, uint64_t n, vta_error *err) {
  rtl_dev *d = state;
  if (!vta_mem_check(d->mem, phys, n))
    return vta_error_set(err, VTA_ERR_BOUNDS,
                         "copy of %llu bytes to 0x%llx is outside the allocated device memory",
                         (unsigned long long)n, (unsigned long long)phys);
  memcpy(vta_mem_ptr(d->mem, phys), src, n);
  return VTA_OK;
}

static int rt_copy_from(void *state, void *dst, uint64_t phys, uint64_t n, vta_error *err) {
  rtl_dev *d = state;
  if (!vta_mem_check(d->mem, phys, n))
    return vta_error_set(err, VTA_ERR_BOUNDS,
                         "copy of %llu bytes from 0x%llx is outside the allocated device memory",
                         (unsigned long long)n, (unsigned long long)phys);
  memcpy(dst, vta_mem_ptr(d->mem, phys), n);
  return VTA_OK;
}

static int rt_run(void *state, uint64_t insn_phys, uint32_t count, uint64_t timeout,
                  vta_stats *stats, vta_error *err) {
  return vta_rtl_run(((rtl_dev *)state)->sim, insn_phys, count, timeout, stats, err);
}

static void *rt_host_ptr(void *state, uint64_t phys) {
  return vta_mem_ptr(((rtl_dev *)state)->mem, phys);
}

static int rt_phys_of(void *state, const void *host, uint64_t *phys) {
  return vta_mem_phys(((rtl_dev *)state)->mem, host, phys);
}

const vta_backend vta_backend_rtl = {
    .name = "rtl",
    .description = "RTL of hw/ under Verilator: cycle-accurate, AXI DRAM model, FST waveforms",
    .open = rt_open,
    .close = rt_close,
    .mem_alloc = rt_alloc,
    .mem_alloc_at = rt_alloc_at,
    .mem_free = rt_free,
    .copy_to = rt_copy_to,
    .copy_from = rt_copy_from,
    .run = rt_run,
    .host_ptr = rt_host_ptr,
    .phys_of = rt_phys_of,
};
