/* mem.c - simulated device DRAM: one lazily-backed reservation plus a sorted allocation table.
 *
 * Translation is an addition (base + phys). The allocation table is a sorted array searched by
 * bisection, with the last hit cached because DMA streams touch the same tensor many times in a
 * row. Freed memory is returned to the OS with madvise, so long runs do not grow.
 */
#include "sim/mem/mem.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef struct region {
  uint64_t base, size;
} region;

struct vta_mem {
  uint8_t *host;
  uint64_t capacity;
  region *r;
  size_t n, cap;
  size_t last; /* index of the last region found by vta_mem_check */
  uint64_t allocated;
};

int vta_mem_create(uint64_t capacity, vta_mem **out, vta_error *err) {
  if (capacity == 0) capacity = VTA_MEM_DEFAULT_CAPACITY;
  if (capacity > UINT64_MAX - VTA_MEM_ALIGN) /* the rounding below would wrap to 0 */
    return vta_error_set(err, VTA_ERR_NOMEM,
                         "device memory: %" PRIu64 " bytes of address space is beyond any host",
                         capacity);
  capacity = (capacity + VTA_MEM_ALIGN - 1) & ~(uint64_t)(VTA_MEM_ALIGN - 1);
  vta_mem *m = calloc(1, sizeof *m);
  if (!m) return vta_error_set(err, VTA_ERR_NOMEM, "device memory: out of host memory");
  void *p = mmap(NULL, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p == MAP_FAILED) {
    free(m);
    return vta_error_set(err, VTA_ERR_NOMEM,
                         "device memory: cannot reserve %" PRIu64 " bytes of address space: %s",
                         capacity, strerror(errno));
  }
  m->host = p;
  m->capacity = capacity;
  *out = m;
  return VTA_OK;
}

void vta_mem_destroy(vta_mem *m) {
  if (!m) return;
  munmap(m->host, m->capacity);
  free(m->r);
  free(m);
}

/* First region whose base is > phys. */
static size_t upper(const vta_mem *m, uint64_t phys) {
  size_t lo = 0, hi = m->n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (m->r[mid].base <= phys)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static int insert(vta_mem *m, size_t at, uint64_t base, uint64_t size, vta_error *err) {
  if (m->n == m->cap) {
    size_t nc = m->cap ? 2 * m->cap : 16;
    region *nr = realloc(m->r, nc * sizeof *nr);
    if (!nr) return vta_error_set(err, VTA_ERR_NOMEM, "device memory: out of host memory");
    m->r = nr;
    m->cap = nc;
  }
  memmove(m->r + at + 1, m->r + at, (m->n - at) * sizeof *m->r);
  m->r[at].base = base;
  m->r[at].size = size;
  m->n++;
  m->allocated += size;
  m->last = at;
  return VTA_OK;
}

static uint64_t round_up(uint64_t v) {
  return (v + VTA_MEM_ALIGN - 1) & ~(uint64_t)(VTA_MEM_ALIGN - 1);
}

int vta_mem_alloc(vta_mem *m, uint64_t size, uint64_t *phys, vta_error *err) {
  if (size == 0) size = 1;
  /* Also keeps round_up from wrapping a size near 2^64 to 0, which "fit" anywhere. */
  if (size > m->capacity)
    return vta_error_set(err, VTA_ERR_NOMEM,
                         "device memory: %" PRIu64 " bytes is more than the %" PRIu64
                         "-byte address space",
                         size, m->capacity);
  uint64_t need = round_up(size);
  /* First fit; address 0 is never handed out so that a null address is always an error. */
  uint64_t cur = VTA_MEM_ALIGN;
  for (size_t i = 0; i <= m->n; i++) {
    uint64_t next = i < m->n ? m->r[i].base : m->capacity;
    if (next >= cur && next - cur >= need) {
      int rc = insert(m, i, cur, size, err);
      if (rc) return rc;
      memset(m->host + cur, 0, size);
      *phys = cur;
      return VTA_OK;
    }
    if (i < m->n) {
      uint64_t end = round_up(m->r[i].base + m->r[i].size);
      if (end > cur) cur = end;
    }
  }
  return vta_error_set(err, VTA_ERR_NOMEM,
                       "device memory: no free range of %" PRIu64 " bytes (%" PRIu64
                       " of %" PRIu64 " bytes allocated)",
                       size, m->allocated, m->capacity);
}

int vta_mem_alloc_at(vta_mem *m, uint64_t phys, uint64_t size, vta_error *err) {
  if (size == 0) size = 1;
  if (phys % VTA_MEM_ALIGN)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "device memory: address 0x%" PRIx64 " is not aligned to %u bytes", phys,
                         VTA_MEM_ALIGN);
  if (phys > m->capacity || size > m->capacity - phys)
    return vta_error_set(err, VTA_ERR_NOMEM,
                         "device memory: [0x%" PRIx64 ", +%" PRIu64
                         ") is beyond the %" PRIu64 "-byte address space",
                         phys, size, m->capacity);
  size_t at = upper(m, phys);
  if (at > 0 && round_up(m->r[at - 1].base + m->r[at - 1].size) > phys)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "device memory: [0x%" PRIx64 ", +%" PRIu64
                         ") overlaps the allocation at 0x%" PRIx64,
                         phys, size, m->r[at - 1].base);
  if (at < m->n && m->r[at].base < phys + size)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "device memory: [0x%" PRIx64 ", +%" PRIu64
                         ") overlaps the allocation at 0x%" PRIx64,
                         phys, size, m->r[at].base);
  int rc = insert(m, at, phys, size, err);
  if (rc == VTA_OK) memset(m->host + phys, 0, size);
  return rc;
}

int vta_mem_free(vta_mem *m, uint64_t phys) {
  size_t at = upper(m, phys);
  if (at == 0 || m->r[at - 1].base != phys) return VTA_ERR_INVALID;
  region r = m->r[at - 1];
  memmove(m->r + at - 1, m->r + at, (m->n - at) * sizeof *m->r);
  m->n--;
  m->last = 0;
  m->allocated -= r.size;
  /* Give whole pages back to the OS; they read as zero when touched again. */
  uint64_t len = round_up(r.size);
  madvise(m->host + r.base, len, MADV_DONTNEED);
  return VTA_OK;
}

void *vta_mem_ptr(vta_mem *m, uint64_t phys) { return m->host + phys; }

int vta_mem_phys(const vta_mem *m, const void *host, uint64_t *phys) {
  const uint8_t *p = host;
  if (p < m->host || p >= m->host + m->capacity) return VTA_ERR_INVALID;
  *phys = (uint64_t)(p - m->host);
  return VTA_OK;
}

int vta_mem_check(vta_mem *m, uint64_t phys, uint64_t len) {
  if (m->n == 0) return 0;
  region r = m->r[m->last < m->n ? m->last : 0];
  if (phys >= r.base && phys - r.base <= r.size && len <= r.size - (phys - r.base)) return 1;
  size_t at = upper(m, phys);
  if (at == 0) return 0;
  r = m->r[at - 1];
  if (phys - r.base <= r.size && len <= r.size - (phys - r.base)) {
    m->last = at - 1;
    return 1;
  }
  return 0;
}

int vta_mem_find(vta_mem *m, uint64_t phys, uint64_t *base, uint64_t *size) {
  size_t at = upper(m, phys);
  if (at == 0 || phys - m->r[at - 1].base >= m->r[at - 1].size) return 0;
  *base = m->r[at - 1].base;
  *size = m->r[at - 1].size;
  return 1;
}

void vta_mem_describe(vta_mem *m, uint64_t phys, char *buf, size_t n) {
  size_t at = upper(m, phys);
  if (at > 0 && phys - m->r[at - 1].base < m->r[at - 1].size) {
    snprintf(buf, n, "inside the allocation [0x%" PRIx64 ", 0x%" PRIx64 ")", m->r[at - 1].base,
             m->r[at - 1].base + m->r[at - 1].size);
  } else if (at > 0) {
    snprintf(buf, n, "past the end of the allocation [0x%" PRIx64 ", 0x%" PRIx64 ")",
             m->r[at - 1].base, m->r[at - 1].base + m->r[at - 1].size);
  } else if (m->n > 0) {
    snprintf(buf, n, "before the first allocation at 0x%" PRIx64, m->r[0].base);
  } else {
    snprintf(buf, n, "no device memory is allocated");
  }
}

int vta_mem_region(const vta_mem *m, size_t i, uint64_t *base, uint64_t *size) {
  if (i >= m->n) return 0;
  *base = m->r[i].base;
  *size = m->r[i].size;
  return 1;
}

uint64_t vta_mem_capacity(const vta_mem *m) { return m->capacity; }
uint64_t vta_mem_bytes_allocated(const vta_mem *m) { return m->allocated; }
