/* fuzz_bundle.c - a compiled bundle (compiler/bundle.c, host/model.c) loaded and run on the CPU.
 *
 * Two things are changed before loading, both so that the fuzzer tests the reader rather than
 * bouncing off it or running garbage machine code:
 * - the payload checksum is recomputed (otherwise almost every mutation stops there);
 * - the CPU code is regenerated from the bundle's graph: a bundle's code sections are native
 *   code and LLVM bitcode that `vta run` executes by design (a bundle is a program: run only
 *   those you trust), so running mutated code would find only that code's own crashes. The
 *   container, the graph text, the constants, the hardware configuration and the accelerator
 *   sections are read exactly as `vta run` reads them, and the model is run on zero inputs.
 * Budget: graphs of at most FUZZ_NODES nodes and FUZZ_BYTES bytes of values are run. */
#include "fuzz/fuzz.h"

#include "compiler/compiler.h"
#include "host/model.h"

#define FUZZ_NODES 32
#define FUZZ_BYTES (1 << 22)

static uint64_t fnv1a(const unsigned char *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 32) return 0;
  unsigned char *b = malloc(size);
  if (!b) return 0;
  memcpy(b, data, size);
  /* Header: magic, u32 version, u32 sections, u32 reserved, u64 payload bytes, u64 checksum. */
  uint64_t payload = size - 32;
  for (int i = 0; i < 8; i++) b[16 + i] = (unsigned char)(payload >> (8 * i));
  uint64_t h = fnv1a(b + 32, size - 32);
  for (int i = 0; i < 8; i++) b[24 + i] = (unsigned char)(h >> (8 * i));
  vta_graph *g = NULL;
  vta_cpu_code code;
  vta_bundle_acc acc;
  vta_error err;
  if (vta_bundle_read_acc(b, size, &g, &code, &acc, &err) != VTA_OK) {
    free(b);
    return 0;
  }
  vta_cpu_code_free(&code);
  free(b);
  b = NULL;
  size_t bytes = 0;
  for (int v = 0; v < g->n_values; v++) {
    size_t n = vta_value_bytes(&g->values[v]);
    bytes = n > FUZZ_BYTES || bytes + n > FUZZ_BYTES ? FUZZ_BYTES + 1 : bytes + n;
  }
  size_t n = 0;
  if (g->n_nodes <= FUZZ_NODES && bytes <= FUZZ_BYTES &&
      vta_codegen_llvm_for(g, NULL, VTA_CODE_OBJECT | VTA_CODE_BITCODE | VTA_CODE_QUICK, &code,
                           &err) == VTA_OK) {
    if (vta_bundle_write_acc(g, &code, acc.config_json ? &acc : NULL, &b, &n, &err) != VTA_OK) b = NULL;
    vta_cpu_code_free(&code);
  }
  vta_bundle_acc_free(&acc);
  vta_graph_destroy(g);
  if (!b) return 0;
  vta_model *m = vta_model_load(b, n, &err);
  free(b);
  if (!m) return 0;
  int ok = 1;
  for (int k = 0; k < vta_model_n_inputs(m) && ok; k++) {
    int rank;
    int64_t dims[8];
    vta_model_input(m, k, &rank, dims);
    size_t count = 1;
    for (int d = 0; d < rank; d++) count *= (size_t)dims[d];
    float *x = calloc(count + 1, sizeof *x);
    ok = x && vta_model_set_input(m, k, x, count, &err) == VTA_OK;
    free(x);
  }
  if (ok) vta_model_run(m, &err);
  vta_model_destroy(m);
  return 0;
}
