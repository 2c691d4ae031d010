/* device.h - one device interface, several backends.
 *
 * A backend is a `const struct vta_backend` of function pointers (optional slots say so), and
 * the backends are listed in one table (driver/device.c) where they are found by name: "fsim",
 * and "rtl" and "xrt" when they are built (xrt needs XRT's headers and library at build time). The same programs run on all of them, and
 * every backend is checked against fsim.
 *
 *     vta_device *dev; vta_error err;
 *     if (vta_device_open("fsim", &cfg, NULL, &dev, &err)) { fprintf(stderr, "%s\n", err.msg); ... }
 *     uint64_t insn; vta_device_alloc(dev, 16 * n, &insn, &err);
 *     vta_device_copy_to(dev, insn, words, 16 * n, &err);
 *     vta_stats st; vta_device_run(dev, insn, n, 0, &st, &err);
 *     vta_device_close(dev);
 */
#ifndef VTA_DEVICE_H
#define VTA_DEVICE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vta/config.h"
#include "vta/stats.h"
#include "vta/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Default timeout of a run, in device cycles for cycle-level backends and for fsim in steps (one
 * per instruction, micro-op and element moved: a lower bound on cycles). VTADeviceRun's
 * wait_cycles uses the same unit. 0 means this default. */
#define VTA_DEFAULT_TIMEOUT 10000000000ull

typedef struct vta_backend {
  const char *name;
  const char *description;
  /* Opens a device for cfg; `options` is a backend-specific string or NULL. */
  int (*open)(const vta_config *cfg, const char *options, void **state, vta_error *err);
  void (*close)(void *state);
  int (*mem_alloc)(void *state, uint64_t size, uint64_t *phys, vta_error *err);
  /* Optional (NULL): allocation at a fixed physical address (raw images for `vta exec`). */
  int (*mem_alloc_at)(void *state, uint64_t phys, uint64_t size, vta_error *err);
  void (*mem_free)(void *state, uint64_t phys);
  int (*copy_to)(void *state, uint64_t phys, const void *src, uint64_t n, vta_error *err);
  int (*copy_from)(void *state, void *dst, uint64_t phys, uint64_t n, vta_error *err);
  /* Runs insn_count instructions at insn_phys until FINISH. timeout as VTA_DEFAULT_TIMEOUT. */
  int (*run)(void *state, uint64_t insn_phys, uint32_t insn_count, uint64_t timeout,
             vta_stats *stats, vta_error *err);
  /* Optional (NULL): a host pointer through which the device memory at phys can be read and
   * written directly (simulators). Backends without it need copy_to/copy_from. */
  void *(*host_ptr)(void *state, uint64_t phys);
  /* Optional (NULL): physical address of a host pointer returned by host_ptr. */
  int (*phys_of)(void *state, const void *host, uint64_t *phys);
  /* Optional (NULL): prints what the device is (card, shell, loaded image, memory banks). */
  void (*describe)(void *state, FILE *out);
} vta_backend;

typedef struct vta_device vta_device;

/* The table of built backends, NULL-terminated, and lookup by name. */
const vta_backend *const *vta_backends(void);
const vta_backend *vta_backend_find(const char *name);

int vta_device_open(const char *backend, const vta_config *cfg, const char *options,
                    vta_device **out, vta_error *err);
void vta_device_close(vta_device *dev);
const vta_config *vta_device_config(const vta_device *dev);
const vta_backend *vta_device_backend(const vta_device *dev);
int vta_device_alloc(vta_device *dev, uint64_t size, uint64_t *phys, vta_error *err);
int vta_device_alloc_at(vta_device *dev, uint64_t phys, uint64_t size, vta_error *err);
void vta_device_free(vta_device *dev, uint64_t phys);
int vta_device_copy_to(vta_device *dev, uint64_t phys, const void *src, uint64_t n,
                       vta_error *err);
int vta_device_copy_from(vta_device *dev, void *dst, uint64_t phys, uint64_t n, vta_error *err);
/* NULL when the backend has no direct host mapping. */
void *vta_device_host_ptr(vta_device *dev, uint64_t phys);
int vta_device_phys_of(vta_device *dev, const void *host, uint64_t *phys);
/* Prints the backend's description of the open device (name and description line when the
 * backend has no describe slot). */
void vta_device_describe(vta_device *dev, FILE *out);
/* Runs and measures wall time; stats may be NULL. Returns VTA_ERR_TIMEOUT on timeout and
 * VTA_ERR_DEADLOCK / VTA_ERR_BOUNDS / VTA_ERR_INVALID with the instruction named. */
int vta_device_run(vta_device *dev, uint64_t insn_phys, uint32_t insn_count, uint64_t timeout,
                   vta_stats *stats, vta_error *err);

#ifdef __cplusplus
}
#endif
#endif
