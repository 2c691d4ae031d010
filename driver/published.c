/* published.c - the published VTA driver API (vta/driver.h) on the device interface.
 *
 * The design idea: the published functions name no device, so there is one process-wide
 * vta_device, opened on first use from $VTA_BACKEND and $VTA_CONFIG, and a table of the
 * buffers VTAMemAlloc handed out (sorted by host address, so any pointer inside a buffer maps
 * to its physical address). A buffer's host pointer points straight into device memory when
 * the backend offers a host mapping (fsim); otherwise it is a malloc'd shadow that the cache
 * calls copy to and from the device, which is what those calls mean on a non-coherent
 * system. Failures cannot be returned through these signatures, so they are printed, once per
 * failure, and kept for vta_driver_last_error().
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vta/config.h"
#include "vta/device.h"
#include "vta/driver.h"

typedef struct pub_buf {
  uint8_t *host;
  uint64_t phys;
  size_t size;
  int shadow; /* host is a malloc'd copy, not device memory */
} pub_buf;

typedef struct pub_handle {
  uint32_t magic;
  vta_device *dev;
} pub_handle;

#define PUB_MAGIC 0x56544148u /* "VTAH" */

static struct {
  pthread_mutex_t lock;
  int tried;
  vta_device *dev;
  int shadow;
  pub_buf *buf; /* sorted by host */
  size_t n, cap;
  char last[VTA_ERROR_MSG_MAX];
  int has_last;
} g;

/* One recursive lock guards the device and the table: the runtime layer holds it around its
 * own device work (vta_driver_lock) and calls back into these functions meanwhile. */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static void init_lock(void) {
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&g.lock, &a);
  pthread_mutexattr_destroy(&a);
}
static void lock(void) {
  pthread_once(&g_once, init_lock);
  pthread_mutex_lock(&g.lock);
}
static void unlock(void) { pthread_mutex_unlock(&g.lock); }

void vta_driver_lock(void) { lock(); }
void vta_driver_unlock(void) { unlock(); }

static void report(const char *fn, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(const char *fn, const char *fmt, ...) {
  char msg[VTA_ERROR_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  lock();
  snprintf(g.last, sizeof g.last, "%s: %s", fn, msg);
  g.has_last = 1;
  unlock();
  fprintf(stderr, "vta driver: %s: %s\n", fn, msg);
}

const char *vta_driver_last_error(void) { return g.has_last ? g.last : NULL; }

/* Called with the lock held. */
static vta_device *open_locked(void) {
  if (g.tried) return g.dev;
  g.tried = 1;
  vta_config cfg;
  vta_error err;
  const char *backend = getenv("VTA_BACKEND");
  if (!backend || !*backend) backend = "fsim";
  int rc = vta_config_from_env(&cfg, &err);
  if (rc == VTA_OK) rc = vta_device_open(backend, &cfg, NULL, &g.dev, &err);
  if (rc != VTA_OK) {
    g.dev = NULL;
    snprintf(g.last, sizeof g.last, "cannot open the %s device: %s", backend, err.msg);
    g.has_last = 1;
    fprintf(stderr, "vta driver: %s\n", g.last);
    return NULL;
  }
  const char *sh = getenv("VTA_DRIVER_SHADOW");
  g.shadow = !vta_device_backend(g.dev)->host_ptr || (sh && strcmp(sh, "1") == 0);
  return g.dev;
}

struct vta_device *vta_driver_device(void) {
  lock();
  vta_device *d = open_locked();
  unlock();
  return d;
}

/* Index of the buffer containing p, or -1 (lock held). */
static long find_locked(const void *p) {
  const uint8_t *q = p;
  size_t lo = 0, hi = g.n;
  while (lo < hi) { /* first buffer with host > q */
    size_t mid = (lo + hi) / 2;
    if (g.buf[mid].host <= q)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0) return -1;
  const pub_buf *b = &g.buf[lo - 1];
  /* A zero-size allocation still owns its first byte. */
  size_t span = b->size ? b->size : 1;
  return (size_t)(q - b->host) < span ? (long)(lo - 1) : -1;
}

int vta_driver_phys_of(const void *ptr, uint64_t *phys) {
  lock();
  long i = ptr ? find_locked(ptr) : -1;
  if (i >= 0) *phys = g.buf[i].phys + (uint64_t)((const uint8_t *)ptr - g.buf[i].host);
  unlock();
  return i >= 0 ? 0 : -1;
}

/* Looks up the buffer holding [p, p+size); fills a copy of its entry. */
static int lookup(const char *fn, const void *p, size_t size, pub_buf *out) {
  lock();
  long i = p ? find_locked(p) : -1;
  if (i >= 0) *out = g.buf[i];
  unlock();
  if (i < 0) {
    report(fn, "%p is not inside a buffer from VTAMemAlloc", p);
    return -1;
  }
  size_t off = (size_t)((const uint8_t *)p - out->host);
  if (size > out->size - off) {
    report(fn, "%zu bytes at offset %zu run past the end of the %zu-byte buffer", size, off,
           out->size);
    return -1;
  }
  return 0;
}

void *VTAMemAlloc(size_t size, int cached) {
  (void)cached; /* every backend here is either coherent or shadowed */
  lock();
  vta_device *dev = open_locked();
  if (!dev) {
    unlock();
    return NULL;
  }
  vta_error err;
  pub_buf b = {.size = size, .shadow = g.shadow};
  int rc = vta_device_alloc(dev, size ? size : 1, &b.phys, &err);
  if (rc == VTA_OK && (vta_phy_addr_t)b.phys != b.phys) {
    vta_device_free(dev, b.phys);
    rc = vta_error_set(&err, VTA_ERR_NOMEM,
                       "device address 0x%" PRIx64 " does not fit vta_phy_addr_t (build with "
                       "USE_VTA64)",
                       b.phys);
  }
  if (rc == VTA_OK) {
    b.host = b.shadow ? calloc(1, size ? size : 1) : vta_device_host_ptr(dev, b.phys);
    if (!b.host) {
      vta_device_free(dev, b.phys);
      rc = vta_error_set(&err, VTA_ERR_NOMEM, "out of host memory for a %zu-byte shadow", size);
    }
  }
  if (rc == VTA_OK && g.n == g.cap) {
    size_t nc = g.cap ? 2 * g.cap : 64;
    pub_buf *nb = realloc(g.buf, nc * sizeof *nb);
    if (!nb) {
      if (b.shadow) free(b.host);
      vta_device_free(dev, b.phys);
      rc = vta_error_set(&err, VTA_ERR_NOMEM, "out of host memory for the buffer table");
    } else {
      g.buf = nb;
      g.cap = nc;
    }
  }
  if (rc == VTA_OK) {
    size_t at = 0;
    while (at < g.n && g.buf[at].host < b.host) at++; /* allocations are few; keep it simple */
    memmove(g.buf + at + 1, g.buf + at, (g.n - at) * sizeof *g.buf);
    g.buf[at] = b;
    g.n++;
  }
  unlock();
  if (rc != VTA_OK) {
    report("VTAMemAlloc", "%zu bytes: %s", size, err.msg);
    return NULL;
  }
  return b.host;
}

void VTAMemFree(void *buf) {
  if (!buf) return;
  lock();
  long i = find_locked(buf);
  pub_buf b = {0};
  int found = i >= 0 && g.buf[i].host == buf;
  if (found) {
    b = g.buf[i];
    memmove(g.buf + i, g.buf + i + 1, (g.n - (size_t)i - 1) * sizeof *g.buf);
    g.n--;
    vta_device_free(g.dev, b.phys);
  }
  unlock();
  if (!found) {
    report("VTAMemFree", "%p is not a buffer from VTAMemAlloc", buf);
    return;
  }
  if (b.shadow) free(b.host);
}

vta_phy_addr_t VTAMemGetPhyAddr(void *buf) {
  uint64_t phys;
  if (vta_driver_phys_of(buf, &phys)) {
    report("VTAMemGetPhyAddr", "%p is not inside a buffer from VTAMemAlloc", buf);
    return 0;
  }
  return (vta_phy_addr_t)phys;
}

/* Copies between the shadow and the device (to_device: shadow -> device). */
static void sync_shadow(const char *fn, void *p, size_t size, int to_device) {
  pub_buf b;
  if (lookup(fn, p, size, &b)) return;
  if (!b.shadow || size == 0) return;
  uint64_t phys = b.phys + (uint64_t)((uint8_t *)p - b.host);
  vta_error err;
  lock();
  int rc = to_device ? vta_device_copy_to(g.dev, phys, p, size, &err)
                     : vta_device_copy_from(g.dev, p, phys, size, &err);
  unlock();
  if (rc) report(fn, "%s", err.msg);
}

void VTAMemCopyFromHost(void *dst, const void *src, size_t size) {
  memcpy(dst, src, size);
  if (g.shadow) sync_shadow("VTAMemCopyFromHost", dst, size, 1);
}

void VTAMemCopyToHost(void *dst, const void *src, size_t size) {
  if (g.shadow) sync_shadow("VTAMemCopyToHost", (void *)src, size, 0);
  memcpy(dst, src, size);
}

void VTAFlushCache(void *vir_addr, vta_phy_addr_t phy_addr, int size) {
  (void)phy_addr; /* the virtual address names the buffer; its table entry has the rest */
  if (size < 0) {
    report("VTAFlushCache", "negative size %d", size);
    return;
  }
  if (g.shadow) sync_shadow("VTAFlushCache", vir_addr, (size_t)size, 1);
}

void VTAInvalidateCache(void *vir_addr, vta_phy_addr_t phy_addr, int size) {
  (void)phy_addr;
  if (size < 0) {
    report("VTAInvalidateCache", "negative size %d", size);
    return;
  }
  if (g.shadow) sync_shadow("VTAInvalidateCache", vir_addr, (size_t)size, 0);
}

VTADeviceHandle VTADeviceAlloc(void) {
  vta_device *dev = vta_driver_device();
  if (!dev) return NULL;
  pub_handle *h = malloc(sizeof *h);
  if (!h) {
    report("VTADeviceAlloc", "out of memory");
    return NULL;
  }
  h->magic = PUB_MAGIC;
  h->dev = dev;
  return h;
}

void VTADeviceFree(VTADeviceHandle handle) {
  pub_handle *h = handle;
  if (!h) return;
  if (h->magic != PUB_MAGIC) {
    report("VTADeviceFree", "%p is not a handle from VTADeviceAlloc", handle);
    return;
  }
  h->magic = 0;
  free(h); /* the process-wide device stays open for VTAMemAlloc's buffers */
}

int VTADeviceRun(VTADeviceHandle device, vta_phy_addr_t insn_phy_addr, uint32_t insn_count,
                 uint32_t wait_cycles) {
  pub_handle *h = device;
  if (!h || h->magic != PUB_MAGIC) {
    report("VTADeviceRun", "%p is not a handle from VTADeviceAlloc", device);
    return 2;
  }
  vta_error err;
  lock();
  int rc = vta_device_run(h->dev, insn_phy_addr, insn_count, wait_cycles, NULL, &err);
  unlock();
  if (rc == VTA_OK) return 0;
  report("VTADeviceRun", "%s", err.msg);
  return rc == VTA_ERR_TIMEOUT ? 1 : 2;
}
