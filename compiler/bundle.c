/* bundle.c - the compiled-model file: one versioned, checksummed container.
 *
 * Layout (all integers little-endian):
 *   0  "VTAB" magic, u32 version, u32 section count, u32 reserved, u64 payload bytes,
 *      u64 FNV-1a 64 checksum of the payload
 *   then per section: u32 kind, u32 reserved, u64 size, data padded to 8 bytes.
 * Sections: GRAPH (the text form with "= @K" constant references), CONST (one per large
 * constant, in value order), CPU (LLVM bitcode), TARGET (what the code was generated for:
 * "triple\ncpu\nfeatures"), OBJ (the same code as a native object for that target, so that
 * loading on the compiling machine needs no code generation). Version 1 bundles had no TARGET
 * or OBJ. The next issue adds accelerator programs and the hardware configuration as further
 * kinds; a reader skips kinds it does not know only if the version says they are optional, so
 * today any unknown kind is refused.
 *
 * The design idea: the graph stays human-readable inside the bundle (vta info prints it) and is
 * read by the same parser as the dumps; bulk data lives in binary sections beside it.
 */
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"

enum { SEC_GRAPH = 1, SEC_CONST = 2, SEC_CPU = 3, SEC_TARGET = 4, SEC_OBJ = 5 };
#define HDR 32

static uint64_t fnv1a(const unsigned char *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}
static void put32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void put64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint32_t get32(const unsigned char *p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v |= (uint32_t)p[i] << (8 * i);
  return v;
}
static uint64_t get64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

int vta_bundle_write(const vta_graph *g, const vta_cpu_code *code, unsigned char **bytes,
                     size_t *size, vta_error *err) {
  char *text = vta_graph_print_string(g, VTA_PRINT_REFS);
  if (!text) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory writing the bundle");
  size_t tlen = strlen(text);
  char target[sizeof code->target + 4];
  size_t glen = (size_t)snprintf(target, sizeof target, "%s\n%s\n%s", code->target.triple,
                                 code->target.cpu, code->target.features);
  if (glen >= sizeof target) glen = sizeof target - 1;
  size_t total = HDR + 16 + ((tlen + 7) & ~(size_t)7) + 16 + ((code->size + 7) & ~(size_t)7) +
                 16 + ((glen + 7) & ~(size_t)7) + 16 + ((code->object_size + 7) & ~(size_t)7);
  int nsec = 4;
  for (int i = 0; i < g->n_values; i++) {
    const vta_gvalue *v = &g->values[i];
    if (v->data && vta_value_count(v) > 16) {
      total += 16 + ((vta_value_bytes(v) + 7) & ~(size_t)7);
      nsec++;
    }
  }
  unsigned char *b = calloc(1, total);
  if (!b) {
    free(text);
    return vta_error_set(err, VTA_ERR_NOMEM, "out of memory writing the bundle (%zu bytes)", total);
  }
  size_t at = HDR;
#define SECTION(kind, data, n)                    \
  do {                                            \
    put32(b + at, kind);                          \
    put64(b + at + 8, (uint64_t)(n));             \
    if (n) memcpy(b + at + 16, data, n);          \
    at += 16 + (((size_t)(n) + 7) & ~(size_t)7);  \
  } while (0)
  SECTION(SEC_GRAPH, text, tlen);
  for (int i = 0; i < g->n_values; i++) {
    const vta_gvalue *v = &g->values[i];
    if (v->data && vta_value_count(v) > 16) SECTION(SEC_CONST, v->data, vta_value_bytes(v));
  }
  SECTION(SEC_CPU, code->bitcode, code->size);
  SECTION(SEC_TARGET, target, glen);
  SECTION(SEC_OBJ, code->object, code->object_size);
#undef SECTION
  memcpy(b, "VTAB", 4);
  put32(b + 4, VTA_BUNDLE_VERSION);
  put32(b + 8, (uint32_t)nsec);
  put64(b + 16, total - HDR);
  put64(b + 24, fnv1a(b + HDR, total - HDR));
  free(text);
  *bytes = b;
  *size = total;
  return 0;
}

int vta_bundle_read(const unsigned char *b, size_t size, vta_graph **g, vta_cpu_code *code,
                    vta_error *err) {
  *g = NULL;
  memset(code, 0, sizeof *code);
  if (size < HDR || memcmp(b, "VTAB", 4) != 0)
    return vta_error_set(err, VTA_ERR_INVALID, "not a vta bundle (no VTAB magic)");
  uint32_t ver = get32(b + 4), nsec = get32(b + 8);
  if (ver != VTA_BUNDLE_VERSION)
    return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                         "bundle version %u; this build reads version %d (recompile the model)",
                         ver, VTA_BUNDLE_VERSION);
  uint64_t payload = get64(b + 16);
  if (payload != size - HDR)
    return vta_error_set(err, VTA_ERR_INVALID,
                         "the bundle is truncated or padded: header says %llu payload bytes, "
                         "the file has %zu", (unsigned long long)payload, size - HDR);
  if (fnv1a(b + HDR, size - HDR) != get64(b + 24))
    return vta_error_set(err, VTA_ERR_INVALID, "the bundle's checksum does not match (corrupted)");
  if (nsec > (size - HDR) / 16)
    return vta_error_set(err, VTA_ERR_INVALID, "the header claims %u sections; %zu bytes hold at most %zu",
                         nsec, size - HDR, (size - HDR) / 16);
  const char *text = NULL;
  size_t tlen = 0;
  vta_const_ref *refs = calloc(nsec + 1, sizeof *refs);
  if (!refs) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  int nrefs = 0;
  size_t at = HDR;
  for (uint32_t s = 0; s < nsec; s++) {
    if (at > size || size - at < 16) {
      vta_error_set(err, VTA_ERR_INVALID, "section %u header runs past the end", s);
      goto fail;
    }
    uint32_t kind = get32(b + at);
    uint64_t n = get64(b + at + 8);
    if (n > size - at - 16) {
      vta_error_set(err, VTA_ERR_INVALID, "section %u (%llu bytes) runs past the end", s,
                    (unsigned long long)n);
      goto fail;
    }
    const unsigned char *d = b + at + 16;
    switch (kind) {
    case SEC_GRAPH: text = (const char *)d, tlen = n; break;
    case SEC_CONST: refs[nrefs].data = d, refs[nrefs++].size = n; break;
    case SEC_CPU:
    case SEC_OBJ: {
      unsigned char *copy = n ? malloc(n) : NULL;
      if (n && !copy) {
        vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
        goto fail;
      }
      if (n) memcpy(copy, d, n);
      unsigned char **dst = kind == SEC_CPU ? &code->bitcode : &code->object;
      free(*dst);
      *dst = copy;
      if (kind == SEC_CPU)
        code->size = n;
      else
        code->object_size = n;
      break;
    }
    case SEC_TARGET: {
      /* "triple\ncpu\nfeatures" */
      const char *t = (const char *)d, *end = t + n, *nl1 = memchr(t, '\n', n);
      const char *nl2 = nl1 ? memchr(nl1 + 1, '\n', (size_t)(end - nl1 - 1)) : NULL;
      if (!nl2 || nl1 - t >= (long)sizeof code->target.triple ||
          nl2 - nl1 - 1 >= (long)sizeof code->target.cpu ||
          end - nl2 - 1 >= (long)sizeof code->target.features) {
        vta_error_set(err, VTA_ERR_INVALID, "section %u (target) is not \"triple\\ncpu\\nfeatures\"", s);
        goto fail;
      }
      memcpy(code->target.triple, t, (size_t)(nl1 - t));
      memcpy(code->target.cpu, nl1 + 1, (size_t)(nl2 - nl1 - 1));
      memcpy(code->target.features, nl2 + 1, (size_t)(end - nl2 - 1));
      break;
    }
    default:
      vta_error_set(err, VTA_ERR_UNSUPPORTED, "section %u has unknown kind %u", s, kind);
      goto fail;
    }
    at += 16 + ((n + 7) & ~(uint64_t)7);
  }
  if (!text) {
    vta_error_set(err, VTA_ERR_INVALID, "the bundle has no graph section");
    goto fail;
  }
  *g = vta_graph_parse(text, tlen, refs, nrefs, err);
  free(refs);
  if (!*g) {
    vta_error_prefix(err, "bundle graph");
    vta_cpu_code_free(code);
    return -1;
  }
  return 0;
fail:
  free(refs);
  vta_cpu_code_free(code);
  return -1;
}
