/* bundle.c - the compiled-model file: one versioned, checksummed container.
 *
 * Layout (all integers little-endian):
 *   0  "VTAB" magic, u32 version, u32 section count, u32 reserved, u64 payload bytes,
 *      u64 FNV-1a 64 checksum of the payload
 *   then per section: u32 kind, u32 reserved, u64 size, data padded to 8 bytes.
 * Sections: GRAPH (the text form with "= @K" constant references), CONST (one per large
 * constant, in value order), CPU (LLVM bitcode), TARGET (what the code was generated for:
 * "triple\ncpu\nfeatures"), OBJ (the same code as a native object for that target, so that
 * loading on the compiling machine needs no code generation), HWCFG (the accelerator's hardware
 * configuration as JSON, in bundles compiled with --accel) and ACC (one per accelerator node:
 * u32 node, u32 flags (bit 0: the program reads im2col patches), u64 packed input, second
 * input and output bytes, u64 sizes of the serialised vta_program and the packed weights, u64
 * count of the node's output channels it computes; then those channels (u32 each), the
 * program, the weights and the packed biases (the rest of the section), each padded to 8).
 *
 * Versions: 1 had no TARGET or OBJ; 2 added them; 3 added HWCFG and ACC; 4 has the same
 * sections as 3, but its CPU code leaves out the kernels of the nodes that have an ACC section
 * (`vta compile --accel` writes 4: those kernels are compiled when the cpu backend first runs
 * such a node, so compiling does not pay for code the accelerator makes unnecessary). A bundle
 * is written with the lowest version that holds its sections (a CPU-only bundle is version 2,
 * one with accelerator programs and every node's code version 3), so a reader built before the
 * accelerator sections still loads CPU-only bundles and refuses accelerator ones by their
 * version, before it meets a kind it does not know. This reader takes versions 2 to 4 and
 * refuses a kind that the bundle's version does not have, as it refuses any unknown kind (no
 * section is optional).
 *
 * The design idea: the graph stays human-readable inside the bundle (vta info prints it) and is
 * read by the same parser as the dumps; bulk data lives in binary sections beside it.
 */
#include <stdlib.h>
#include <string.h>

#include "compiler/compiler.h"

enum { SEC_GRAPH = 1, SEC_CONST = 2, SEC_CPU = 3, SEC_TARGET = 4, SEC_OBJ = 5, SEC_HWCFG = 6, SEC_ACC = 7 };
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

static size_t pad8(size_t n) { return (n + 7) & ~(size_t)7; }

int vta_bundle_write(const vta_graph *g, const vta_cpu_code *code, unsigned char **bytes,
                     size_t *size, vta_error *err) {
  return vta_bundle_write_acc(g, code, NULL, bytes, size, err);
}

int vta_bundle_write_acc(const vta_graph *g, const vta_cpu_code *code, const vta_bundle_acc *acc,
                         unsigned char **bytes, size_t *size, vta_error *err) {
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
  size_t cfg_len = acc && acc->config_json ? strlen(acc->config_json) : 0;
  if (cfg_len) total += 16 + pad8(cfg_len), nsec++;
  for (int k = 0; acc && k < acc->n; k++) {
    const vta_bundle_layer *L = &acc->layers[k];
    total += 16 + 56 + pad8(L->prog_size) + pad8(L->weight_size) + pad8(L->bias_size) + pad8(4 * (size_t)L->nch);
    nsec++;
  }
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
  if (cfg_len) SECTION(SEC_HWCFG, acc->config_json, cfg_len);
  for (int k = 0; acc && k < acc->n; k++) {
    const vta_bundle_layer *L = &acc->layers[k];
    size_t n = 56 + pad8(4 * (size_t)L->nch) + pad8(L->prog_size) + pad8(L->weight_size) + pad8(L->bias_size);
    put32(b + at, SEC_ACC);
    put64(b + at + 8, n);
    unsigned char *d = b + at + 16;
    put32(d, (uint32_t)L->node);
    put32(d + 4, L->flags);
    put64(d + 8, L->input_bytes);
    put64(d + 16, L->input2_bytes);
    put64(d + 24, L->output_bytes);
    put64(d + 32, L->prog_size);
    put64(d + 40, L->weight_size);
    put64(d + 48, L->nch);
    d += 56;
    for (uint32_t c = 0; c < L->nch; c++) put32(d + 4 * c, L->ch[c]);
    d += pad8(4 * (size_t)L->nch);
    /* The bias size follows from the section size. */
    if (L->prog_size) memcpy(d, L->prog, L->prog_size);
    d += pad8(L->prog_size);
    if (L->weight_size) memcpy(d, L->weight, L->weight_size);
    d += pad8(L->weight_size);
    if (L->bias_size) memcpy(d, L->bias, L->bias_size);
    at += 16 + n;
  }
#undef SECTION
  memcpy(b, "VTAB", 4);
  put32(b + 4, cfg_len || (acc && acc->n) ? (code->skips_acc ? 4 : 3) : 2);
  put32(b + 8, (uint32_t)nsec);
  put64(b + 16, total - HDR);
  put64(b + 24, fnv1a(b + HDR, total - HDR));
  free(text);
  *bytes = b;
  *size = total;
  return 0;
}

void vta_bundle_acc_free(vta_bundle_acc *acc) {
  for (int k = 0; acc->layers && k < acc->n; k++) {
    free(acc->layers[k].prog);
    free(acc->layers[k].ch);
    free(acc->layers[k].weight);
    free(acc->layers[k].bias);
  }
  free(acc->layers);
  free(acc->config_json);
  memset(acc, 0, sizeof *acc);
}

static unsigned char *dup_bytes(const unsigned char *p, size_t n) {
  unsigned char *q = malloc(n ? n : 1);
  if (q && n) memcpy(q, p, n);
  return q;
}

/* Decodes an ACC section into acc's next layer. */
static int read_acc(const unsigned char *d, uint64_t n, uint32_t s, vta_bundle_acc *acc, vta_error *err) {
  if (n < 56) return vta_error_set(err, VTA_ERR_INVALID, "section %u (accelerator layer) is too short", s);
  uint64_t ps = get64(d + 32), ws = get64(d + 40), nch = get64(d + 48);
  if (nch > (n - 56) / 4)
    return vta_error_set(err, VTA_ERR_INVALID, "section %u (accelerator layer): channel count exceeds the section", s);
  uint64_t h = 56 + pad8(4 * nch);
  if (ps > n - h || pad8(ps) > n - h || ws > n - h - pad8(ps) || pad8(ws) > n - h - pad8(ps))
    return vta_error_set(err, VTA_ERR_INVALID, "section %u (accelerator layer): sizes exceed the section", s);
  uint64_t bs = n - h - pad8(ps) - pad8(ws);
  vta_bundle_layer *ls = realloc(acc->layers, sizeof *ls * (size_t)(acc->n + 1));
  if (!ls) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  acc->layers = ls;
  vta_bundle_layer *L = &ls[acc->n];
  memset(L, 0, sizeof *L);
  L->node = (int)get32(d);
  L->flags = get32(d + 4);
  L->input_bytes = get64(d + 8);
  L->input2_bytes = get64(d + 16);
  L->output_bytes = get64(d + 24);
  L->prog_size = ps;
  L->weight_size = ws;
  L->bias_size = bs;
  L->nch = (uint32_t)nch;
  L->ch = malloc(4 * nch + 4);
  for (uint64_t c = 0; L->ch && c < nch; c++) L->ch[c] = get32(d + 56 + 4 * c);
  L->prog = dup_bytes(d + h, ps);
  L->weight = dup_bytes(d + h + pad8(ps), ws);
  L->bias = dup_bytes(d + h + pad8(ps) + pad8(ws), bs);
  acc->n++;
  if (!L->ch || !L->prog || !L->weight || !L->bias) return vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
  return 0;
}

int vta_bundle_read(const unsigned char *b, size_t size, vta_graph **g, vta_cpu_code *code,
                    vta_error *err) {
  return vta_bundle_read_acc(b, size, g, code, NULL, err);
}

int vta_bundle_read_acc(const unsigned char *b, size_t size, vta_graph **g, vta_cpu_code *code,
                        vta_bundle_acc *acc, vta_error *err) {
  *g = NULL;
  memset(code, 0, sizeof *code);
  vta_bundle_acc scratch;
  if (!acc) acc = &scratch;
  memset(acc, 0, sizeof *acc);
  if (size < HDR || memcmp(b, "VTAB", 4) != 0)
    return vta_error_set(err, VTA_ERR_INVALID, "not a vta bundle (no VTAB magic)");
  uint32_t ver = get32(b + 4), nsec = get32(b + 8);
  if (ver < VTA_BUNDLE_VERSION_MIN || ver > VTA_BUNDLE_VERSION)
    return vta_error_set(err, VTA_ERR_UNSUPPORTED,
                         "bundle version %u; this build reads versions %d to %d (recompile the model)",
                         ver, VTA_BUNDLE_VERSION_MIN, VTA_BUNDLE_VERSION);
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
    if ((kind == SEC_HWCFG || kind == SEC_ACC) && ver < 3) {
      vta_error_set(err, VTA_ERR_INVALID, "section %u is an accelerator section (kind %u), which "
                    "bundle version %u does not have (they came with version 3; recompile the model)",
                    s, kind, ver);
      goto fail;
    }
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
    case SEC_HWCFG:
      free(acc->config_json);
      acc->config_json = malloc(n + 1);
      if (!acc->config_json) {
        vta_error_set(err, VTA_ERR_NOMEM, "out of memory");
        goto fail;
      }
      memcpy(acc->config_json, d, n);
      acc->config_json[n] = 0;
      break;
    case SEC_ACC:
      if (read_acc(d, n, s, acc, err)) goto fail;
      break;
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
  code->skips_acc = ver >= 4;
  if (code->skips_acc && !acc->n) {
    vta_error_set(err, VTA_ERR_INVALID, "bundle version 4 leaves the accelerator nodes' CPU code "
                  "out, but the bundle has no accelerator layers");
    goto fail;
  }
  if (acc->n && !acc->config_json) {
    vta_error_set(err, VTA_ERR_INVALID, "the bundle has accelerator layers but no hardware configuration");
    goto fail;
  }
  *g = vta_graph_parse(text, tlen, refs, nrefs, err);
  free(refs);
  if (!*g) {
    vta_error_prefix(err, "bundle graph");
    vta_cpu_code_free(code);
    vta_bundle_acc_free(acc);
    return -1;
  }
  for (int k = 0; k < acc->n; k++)
    if (acc->layers[k].node < 0 || acc->layers[k].node >= (*g)->n_nodes) {
      vta_error_set(err, VTA_ERR_INVALID, "accelerator layer %d names node %d; the graph has %d", k,
                    acc->layers[k].node, (*g)->n_nodes);
      vta_graph_destroy(*g);
      *g = NULL;
      vta_cpu_code_free(code);
      vta_bundle_acc_free(acc);
      return -1;
    }
  if (acc == &scratch) vta_bundle_acc_free(acc);
  return 0;
fail:
  free(refs);
  vta_cpu_code_free(code);
  vta_bundle_acc_free(acc);
  return -1;
}
