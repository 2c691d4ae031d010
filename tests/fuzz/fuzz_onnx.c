/* fuzz_onnx.c - an ONNX file imported (compiler/onnx.c), shape-inferred and compiled twice:
 * as `vta compile` does for the CPU (passes, then LLVM code generation) and as `vta compile
 * --accel` does (calibration on noise, quantization, partitioning, lowering of the accelerator
 * layers for the default configuration).
 *
 * Budget: the --accel path runs the model on the CPU to calibrate, so it is taken only for
 * graphs whose inputs hold at most FUZZ_INPUT_ELEMS elements; LLVM code generation only for
 * graphs of at most FUZZ_CODEGEN_NODES nodes (a few milliseconds each). */
#include "fuzz/fuzz.h"

#include "compiler/compiler.h"
#include "compiler/accel/partition.h"
#include "host/calib.h"
#include "vta/config.h"

#define FUZZ_INPUT_ELEMS (1 << 16)
#define FUZZ_CODEGEN_NODES 32

static void compile_float(const uint8_t *data, size_t size) {
  vta_error err;
  vta_graph *g = vta_onnx_import(data, size, NULL, &err);
  if (!g) return;
  if (vta_compile_graph(g, NULL, &err) == VTA_OK && g->n_nodes <= FUZZ_CODEGEN_NODES) {
    vta_cpu_code code;
    if (vta_codegen_llvm_for(g, NULL, VTA_CODE_OBJECT | VTA_CODE_QUICK, &code, &err) == VTA_OK)
      vta_cpu_code_free(&code);
  }
  vta_graph_destroy(g);
}

static void compile_accel(const uint8_t *data, size_t size) {
  vta_error err;
  vta_graph *g = vta_onnx_import(data, size, NULL, &err);
  if (!g) return;
  int64_t elems = 0;
  for (int k = 0; k < g->n_inputs; k++) {
    int64_t n = vta_value_count(&g->values[g->inputs[k]]);
    elems = n < 0 || elems + n > FUZZ_INPUT_ELEMS ? FUZZ_INPUT_ELEMS + 1 : elems + n;
  }
  if (elems > FUZZ_INPUT_ELEMS || g->n_nodes > FUZZ_CODEGEN_NODES) {
    vta_graph_destroy(g);
    return;
  }
  vta_config cfg;
  vta_config_default(&cfg);
  vta_calib_set cs;
  vta_calib cal;
  char source[64];
  if (vta_calib_load_noise(g, &cs, source, sizeof source, &err) == VTA_OK) {
    vta_calib_view(&cs, &cal);
    vta_quant_opts qo = {.calib = &cal};
    vta_place *places = NULL;
    vta_compile_opts o = {.quant = &qo, .accel = &cfg, .places = &places};
    if (vta_compile_graph(g, &o, &err) == VTA_OK) {
      vta_bundle_acc acc;
      int tuned = 0;
      if (vta_acc_bundle_tuned(g, &cfg, NULL, &acc, &tuned, &err) == VTA_OK)
        vta_bundle_acc_free(&acc);
    }
    free(places);
    vta_calib_set_free(&cs);
  }
  vta_graph_destroy(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  compile_float(data, size);
  compile_accel(data, size);
  return 0;
}
