/* device.c - the backend table and the vta_device wrappers every caller goes through.
 *
 * The wrappers own what every backend would otherwise repeat: argument checks, wall-time
 * measurement, and the rule that a run which fails leaves a message naming the backend.
 */
#include "vta/device.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver/backends.h"

/* The table of built backends. Add one line per backend. */
static const vta_backend *const k_backends[] = {
    &vta_backend_fsim,
#ifdef VTA_HAVE_RTL
    &vta_backend_rtl,
#endif
#ifdef VTA_HAVE_SC
    &vta_backend_sc,
#endif
#ifdef VTA_HAVE_XRT
    &vta_backend_xrt,
#endif
    &vta_backend_diff, /* last: it checks one of the others */
    NULL,
};

struct vta_device {
  const vta_backend *be;
  void *state;
  vta_config cfg;
};

const vta_backend *const *vta_backends(void) { return k_backends; }

const vta_backend *vta_backend_find(const char *name) {
  for (const vta_backend *const *b = k_backends; *b; b++)
    if (strcmp((*b)->name, name) == 0) return *b;
  return NULL;
}

int vta_device_open(const char *backend, const vta_config *cfg, const char *options,
                    vta_device **out, vta_error *err) {
  if (!backend || !*backend) backend = "fsim";
  const vta_backend *be = vta_backend_find(backend);
#ifndef VTA_HAVE_XRT
  if (!be && strcmp(backend, "xrt") == 0)
    return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                         "the xrt backend is not built: XRT's headers and library were not found "
                         "when this library was built; install them (Debian: apt-get install "
                         "libxrt-dev uuid-dev, or run scripts/deps.sh) and rebuild");
#endif
  if (!be) {
    char names[256] = "";
    for (const vta_backend *const *b = k_backends; *b; b++) {
      if (names[0]) strncat(names, ", ", sizeof names - strlen(names) - 1);
      strncat(names, (*b)->name, sizeof names - strlen(names) - 1);
    }
    return vta_error_set(err, VTA_ERR_INVALID, "unknown backend '%s' (built: %s)", backend,
                         names);
  }
  vta_device *d = calloc(1, sizeof *d);
  if (!d) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  d->be = be;
  d->cfg = *cfg;
  int rc = be->open(&d->cfg, options, &d->state, err);
  if (rc != VTA_OK) {
    vta_error_prefix(err, "%s backend", be->name);
    free(d);
    return rc;
  }
  *out = d;
  return VTA_OK;
}

void vta_device_close(vta_device *d) {
  if (!d) return;
  d->be->close(d->state);
  free(d);
}

const vta_config *vta_device_config(const vta_device *d) { return &d->cfg; }
const vta_backend *vta_device_backend(const vta_device *d) { return d->be; }

int vta_device_alloc(vta_device *d, uint64_t size, uint64_t *phys, vta_error *err) {
  return d->be->mem_alloc(d->state, size, phys, err);
}

int vta_device_alloc_at(vta_device *d, uint64_t phys, uint64_t size, vta_error *err) {
  if (!d->be->mem_alloc_at)
    return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                         "%s backend cannot allocate at a fixed address", d->be->name);
  return d->be->mem_alloc_at(d->state, phys, size, err);
}

void vta_device_free(vta_device *d, uint64_t phys) { d->be->mem_free(d->state, phys); }

int vta_device_copy_to(vta_device *d, uint64_t phys, const void *src, uint64_t n,
                       vta_error *err) {
  return d->be->copy_to(d->state, phys, src, n, err);
}

int vta_device_copy_from(vta_device *d, void *dst, uint64_t phys, uint64_t n, vta_error *err) {
  return d->be->copy_from(d->state, dst, phys, n, err);
}

void *vta_device_host_ptr(vta_device *d, uint64_t phys) {
  return d->be->host_ptr ? d->be->host_ptr(d->state, phys) : NULL;
}

int vta_device_phys_of(vta_device *d, const void *host, uint64_t *phys) {
  if (!d->be->phys_of) return VTA_ERR_UNSUPPORTED;
  return d->be->phys_of(d->state, host, phys);
}

void vta_device_describe(vta_device *d, FILE *out) {
  if (d->be->describe)
    d->be->describe(d->state, out);
  else
    fprintf(out, "backend:  %s (%s)\n", d->be->name, d->be->description);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU time of the whole process: a backend may work on several threads (sc runs fsim beside
 * its model). */
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int vta_device_run(vta_device *d, uint64_t insn_phys, uint32_t insn_count, uint64_t timeout,
                   vta_stats *stats, vta_error *err) {
  if (insn_count == 0)
    return vta_error_set(err, VTA_ERR_INVALID, "%s backend: run of 0 instructions", d->be->name);
  vta_stats local;
  memset(&local, 0, sizeof local);
  double t0 = now(), c0 = cpu_now();
  int rc = d->be->run(d->state, insn_phys, insn_count, timeout ? timeout : VTA_DEFAULT_TIMEOUT,
                      &local, err);
  local.wall_seconds = now() - t0;
  local.cpu_seconds = cpu_now() - c0;
  if (stats) vta_stats_add(stats, &local);
  if (rc != VTA_OK) vta_error_prefix(err, "%s backend", d->be->name);
  return rc;
}
